"""Issue #4, "the spec is enough": a client written from ``protocol/SPEC.md`` alone plays v2.

:mod:`tests.rawclient` rebuilds the wire and the fair deal of protocol v2 from the spec's text
with the standard library, ``msgpack`` and ``cryptography`` only (no :mod:`lanswitch` import).
Three kinds of test use it:

* The known-answer vectors in ``protocol/vectors/`` (frames and their signed scenario, labels,
  both hand setups with their ``hand_context`` and round 0's ``round_context``, the log of
  every event kind and move maker, the reshuffle's whole signed flow, one statement of each
  signed kind, rejection, and a whole hand's transcript) must come out of the spec-only code
  byte for byte; the spec-only verifier must find the vector hand fair and a tampered copy
  unfair.
* In-process, a host scripted in this file (signing with its own ``@dealer`` key, building
  every message with the spec-only code) feeds the client what an honest host would and what
  a cheating one might: the client must commit and reveal to the first, and refuse a round
  that leaves it out while present or takes in a person who is away, a stage 3 that
  contradicts stage 1 or another stage 3, a stage 3 without its commitment, a Move signed
  over another log or by a maker the log does not allow, a goodbye head of another log.
* A real ``lanswitch host`` subprocess (headless, loopback, bots of its own without keys) is
  joined over TLS 1.3 with its printed fingerprint pinned: the raw client plays a whole hand
  signing every move over its log and verifies it fair on its own; moves not signed over the
  host's log (and other probes) are refused with the spec's codes; a client that drops its
  connection after committing resumes, compares every replayed announcement with the one it
  kept and finishes the hand; a player that leaves mid-hand sends its goodbye head, which a
  raw spectator, and a raw player who plays on, find in the log's ``Away`` and check; and a
  v1 ``hello``, an empty frame, a frame above 64 KiB and a second ``hello`` get the spec's
  ``error``.

Where the spec was silent or wrong, :data:`tests.rawclient.SPEC_NOTES` says what the client
does instead (the code's behaviour); ``pytest -s -k spec_notes`` prints them.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests import rawclient as rc
from tests.rawblind import BlindRawClient

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
REPO = VECTORS.parent.parent

#: Whole-test budget: each host test stays well under a minute.
STARTUP_S = 20.0
SESSION_S = 40.0
EXIT_S = 8.0


def load(name: str) -> Any:
    """One vector file."""
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def unhex(x: str) -> bytes:
    """Vector bytes are lowercase hex."""
    return bytes.fromhex(x)


def from_json(v: Any) -> Any:
    """A frames.json payload as the decoder returns it: ``{"bin": hex}`` becomes bytes."""
    if isinstance(v, dict):
        if set(v) == {"bin"}:
            return unhex(v["bin"])
        return {k: from_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [from_json(x) for x in v]
    return v


def private(hex_key: str) -> Ed25519PrivateKey:
    """A fixed test key of the vectors."""
    return Ed25519PrivateKey.from_private_bytes(unhex(hex_key))


def public(key: Ed25519PrivateKey) -> bytes:
    """Its raw public key."""
    return key.public_key().public_bytes_raw()


def test_spec_notes_are_reported() -> None:
    """The findings about the spec travel with the tests (printed with ``-s``)."""
    assert rc.SPEC_NOTES
    assert rc.INTERPRETATIONS
    for note in (*rc.SPEC_NOTES, *rc.INTERPRETATIONS):
        print("spec note:", note)


# --------------------------------------------------------------------------------------------
# Wire vectors


FRAMES = load("frames.json")
FRAME_BY_NAME = {v["name"]: rc.classify_frame(unhex(v["hex"])) for v in FRAMES["frames"]}


@pytest.mark.parametrize("vector", FRAMES["frames"], ids=lambda v: v["name"])
def test_frame_vectors_decode_and_reencode(vector: dict[str, Any]) -> None:
    """Each vector frame passes the spec's checks and re-encodes to the same bytes.

    Re-encoding writes ``type`` first and the fields in the order the spec lists them, so
    this also checks that the message reference lists every field, in lanswitch's order.
    """
    raw = unhex(vector["hex"])
    msg = rc.classify_frame(raw)
    expected = from_json(vector["payload"])
    assert msg == expected
    assert list(expected)[1:] == list(rc.FIELDS[expected["type"]])
    if expected["type"] == "lobby":
        for entry in expected["seats"]:
            assert tuple(entry) == rc.SEAT_ENTRY_FIELDS
    assert rc.frame(rc.encode_message(expected)) == raw


def test_every_message_type_has_a_frame_vector() -> None:
    """The spec's message list and the vectors' agree; version 2, 64 KiB."""
    assert {v["type"] for v in FRAMES["frames"]} == set(rc.FIELDS)
    assert FRAMES["protocol_version"] == rc.PROTOCOL_VERSION == 8
    assert FRAMES["max_frame"] == rc.MAX_PAYLOAD


@pytest.mark.parametrize("vector", FRAMES["rejects"], ids=lambda v: v["name"])
def test_frame_rejects(vector: dict[str, Any]) -> None:
    """A receiver written from § Framing / § Messages gives each reject its code."""
    with pytest.raises(rc.WireError) as caught:
        rc.classify_frame(unhex(vector["hex"]))
    assert caught.value.code == vector["code"]


def test_map_keys_and_utf8_are_refused_as_bad_frame() -> None:
    """§ Framing: an integer map key and invalid UTF-8 are ``bad_frame``; a bin key decodes."""
    int_key = rc.frame(bytes.fromhex("82a474797065a470696e6701") + b"\x07")
    with pytest.raises(rc.WireError) as caught:
        rc.classify_frame(int_key)
    assert caught.value.code == "bad_frame"
    bad_utf8 = rc.frame(bytes.fromhex("82a474797065a470696e67a56e6f6e6365") + b"\xa1\xff")
    with pytest.raises(rc.WireError) as caught:
        rc.classify_frame(bad_utf8)
    assert caught.value.code == "bad_frame"
    bin_key = rc.frame(bytes.fromhex("82a474797065a470696e67c4056e6f6e636507"))
    with pytest.raises(rc.WireError) as caught:
        rc.classify_frame(bin_key)
    assert caught.value.code == "bad_message"


def test_frame_scenario_is_signed_as_the_spec_says() -> None:
    """The fair-deal frames are real statements of the scenario frames.json states.

    ``hand`` gives the keys (no entry for the bot): ``ctx_0`` and the round's context from
    the scenario's log position, mask and cards are the stated ones; both announcements pass
    the client's stage checks; the commitment opens with the stated seed; the commit, reveal,
    reveals, abort, move (over the stated log), bot's Move event, heads and the cards
    signature (over the view's hand) all verify.
    """
    s = FRAMES["scenario"]
    hand = FRAME_BY_NAME["hand"]
    keys = hand["keys"]
    assert set(keys) == {"ann", rc.DEALER}  # bot-1 is the host's: no key
    for pid, k in s["private_keys"].items():
        assert public(private(k)) == keys[pid]
    decks, jokers = rc.deck_setup(hand["rules"], len(hand["seats"]) - len(hand["out"]))
    ctx0 = rc.hand_context(hand["game_id"], hand["hand_no"], decks, jokers, hand["seats"], keys)
    assert ctx0.hex() == s["hand_context"]
    head = unhex(s["log_head"])
    count = s["log_count"]
    ctx = rc.round_context(ctx0, s["round"], count, head, s["round_mask"], s["round_cards"])
    assert ctx.hex() == s["round_context"]
    a1, a3 = FRAME_BY_NAME["announce_commit"], FRAME_BY_NAME["announce_reveal"]
    present = rc.seats_of(s["round_mask"])
    assert not rc.stage1_problems(
        ctx0, keys, hand["seats"], s["round"], a1, count, head, present, s["round_cards"]
    )
    assert not rc.stage3_problems(ctx0, keys, hand["seats"], a3)
    assert not rc.contradiction(a1, a3)
    seed = unhex(s["seeds"]["ann"])
    commit = FRAME_BY_NAME["commit"]
    assert commit["commitment"] == rc.commitment(ctx, "ann", seed)
    assert a3["commitments"]["ann"] == [commit["commitment"], commit["signature"]]
    assert rc.verify(
        keys["ann"], commit["signature"], rc.commit_statement(ctx, "ann", commit["commitment"])
    )
    reveal = FRAME_BY_NAME["reveal"]
    assert reveal["seed"] == seed
    statement = rc.reveal_statement(ctx, "ann", commit["commitment"], seed)
    assert rc.verify(keys["ann"], reveal["signature"], statement)
    for pid, (sd, sig) in FRAME_BY_NAME["reveals"]["seeds"].items():
        c = a3["commitments"][pid][0]
        assert rc.commitment(ctx, pid, sd) == c
        assert rc.verify(keys[pid], sig, rc.reveal_statement(ctx, pid, c, sd))
    abort = FRAME_BY_NAME["abort"]
    statement = rc.abort_statement(
        ctx0, abort["round"], abort["fault"], abort["culprits"], rc.pairs(abort["commitments"])
    )
    assert rc.verify(keys[rc.DEALER], abort["signature"], statement)
    move = FRAME_BY_NAME["move"]
    statement = rc.move_statement(ctx0, count, head, 0, rc.BY_PLAYER, move["move"])
    assert rc.verify(keys["ann"], move["signature"], statement)
    bot_move = rc.decode_event(FRAME_BY_NAME["events"]["log"][0])
    assert (bot_move.kind, bot_move.seat, bot_move.by) == ("move", 1, rc.BY_BOT)
    assert rc.move_maker_ok(bot_move.by, bot_move.seat, {0}, set(), hand["turn_timer_ms"])
    statement = rc.move_statement(ctx0, count, head, 1, rc.BY_BOT, bot_move.move)
    assert rc.verify(keys[rc.DEALER], bot_move.signature, statement)
    over = FRAME_BY_NAME["hand_over"]
    n, hd, sig = over["head"]
    assert rc.verify(keys[rc.DEALER], sig, rc.log_statement(ctx0, rc.DEALER, n, hd))
    cards = FRAMES["scenario"]["cards"]  # (what the host gave ann, in the order given)
    statement = rc.cards_statement(ctx0, "ann", cards)
    assert rc.verify(keys[rc.DEALER], over["cards_signature"], statement)
    lh = FRAME_BY_NAME["log_head"]
    statement = rc.log_statement(ctx0, "ann", lh["count"], lh["head"])
    assert rc.verify(keys["ann"], lh["signature"], statement)
    for pid, (n, hd, sig) in FRAME_BY_NAME["log_heads"]["heads"].items():
        assert rc.verify(keys[pid], sig, rc.log_statement(ctx0, pid, n, hd))


# --------------------------------------------------------------------------------------------
# Fair-deal vectors


FAIR = load("fair-deal.json")


def test_labels_vector() -> None:
    """§ Conventions: the fourteen labels, and the spec's ``enc`` example."""
    assert FAIR["labels"] == {n: "lanswitch/v2/" + n for n in rc.LABELS}
    assert rc.enc(rc.label("hand")).hex() == "00116c616e7377697463682f76322f68616e64"


def _keys(v: dict[str, Any]) -> dict[str, bytes]:
    """A vector setup's keys as ``hand.keys`` would carry them (a bot's empty one left out)."""
    return {p: unhex(k) for p, k in v["keys"].items() if k}


@pytest.mark.parametrize("name", ["hand_52", "hand_106"])
def test_hand_setup_and_round_zero_vectors(name: str) -> None:
    """From the rules text through ctx_0, the setup note, the log and round 0's whole order."""
    v = FAIR[name]
    keys = _keys(v)
    for pid, k in v["private_keys"].items():
        assert public(private(k)) == keys[pid]
    game_id = unhex(v["game_id"])
    decks, jokers = rc.deck_setup(v["rules"], len(v["seats"]) - len(v["out"]))
    assert (decks, jokers) == (v["decks"], v["jokers"])
    assert hashlib.sha256(v["rules"].encode()).hexdigest() == v["rules_sha256"]
    pre = rc.hand_context_preimage(game_id, v["hand_no"], decks, jokers, v["seats"], keys)
    assert (rc.enc(rc.label("hand")) + pre).hex() == v["hand_context_preimage"]
    ctx0 = rc.hand_context(game_id, v["hand_no"], decks, jokers, v["seats"], keys)
    assert ctx0.hex() == v["hand_context"]
    note = rc.setup_note(v["rules"], v["dealer"], v["out"], v["turn_timer_ms"], v["names"])
    assert note.hex() == v["setup_note"]
    log = [note] + [unhex(e["encoding"]) for e in v["before"]]
    heads = rc.log_heads(ctx0, log)
    assert heads[0].hex() == v["head_0"]
    assert heads[1].hex() == v["head_1"]
    away: set[int] = set()
    for item, hd in zip(v["before"], heads[2:], strict=True):
        ev = rc.decode_event(unhex(item["encoding"]))
        assert ev.kind == item["event"]["kind"]
        assert hd.hex() == item["head"]
        if ev.kind == "away":
            away.add(ev.seat)
    assert (len(log), heads[-1].hex()) == (v["count"], v["head"])
    persons = {s for s, p in enumerate(v["seats"]) if p in keys}
    present = sorted(persons - away)
    assert rc.mask_of(present) == v["mask"]  # the people present, by the log
    assert rc.participants_of(v["mask"], v["seats"]) == v["participants"]
    cards = rc.setup_cards(decks, jokers)
    assert cards == v["cards"]
    rpre = rc.round_context_preimage(ctx0, v["round"], v["count"], heads[-1], v["mask"], cards)
    assert (rc.enc(rc.label("round")) + rpre).hex() == v["round_context_preimage"]
    ctx = rc.round_context(ctx0, v["round"], v["count"], heads[-1], v["mask"], cards)
    assert ctx.hex() == v["round_context"]
    seeds = {p: unhex(s) for p, s in v["seeds"].items()}
    assert list(seeds) == v["participants"] or set(seeds) == set(v["participants"])
    for p in v["participants"]:
        preimage = rc.enc(rc.label("commit")) + ctx + rc.enc(p) + seeds[p]
        assert preimage.hex() == v["commitment_preimages"][p]
        assert rc.commitment(ctx, p, seeds[p]).hex() == v["commitments"][p]
    assert sorted(seeds, key=lambda p: p.encode("ascii")) == v["ikm_order"]
    assert rc.deck_ikm(seeds).hex() == v["ikm"]
    assert rc.enc(rc.label("deck-key")).hex() == v["deck_key_info"]
    key = rc.deck_key(ctx, seeds)
    assert key.hex() == v["deck_key"]
    assert rc.stream_block(key, 0).hex() == v["stream_block_0"]
    assert rc.stream_block(key, 1).hex() == v["stream_block_1"]
    words = rc.stream_words(key)
    assert [next(words) for _ in range(8)] == v["stream_words_0"]
    assert rc.round_order(ctx, seeds, cards) == v["order"]


def test_log_vector() -> None:
    """Every event kind and every move maker: encodings, heads, and each signed statement."""
    v = FAIR["log"]
    setup = FAIR["hand_52"]
    keys = _keys(setup)
    ctx = unhex(v["hand_context"])
    assert rc.log_head0(ctx).hex() == v["head_0"]
    head = unhex(setup["head_1"])
    k = v["first"]
    makers = set()
    for item in v["events"]:
        raw = unhex(item["encoding"])
        ev = rc.decode_event(raw)
        assert rc.encode_event(ev) == raw
        want = item["event"]
        assert ev.kind == want["kind"]
        for name, x in want.items():
            if name != "kind":
                got = getattr(ev, name)
                assert (got.hex() if isinstance(got, bytes) else got) == x, (name, item)
        if ev.kind == "move":
            makers.add(ev.by)
            statement = rc.move_statement(ctx, k, head, ev.seat, ev.by, ev.move)
            assert statement.hex() == item["statement"]
            assert item["signer"] == rc.move_signer(ev.by, setup["seats"][ev.seat])
            assert rc.verify(keys[item["signer"]], ev.signature, statement)
        if ev.kind == "away" and ev.how == rc.LEFT:
            statement = rc.log_statement(ctx, item["signer"], ev.count, ev.head)
            assert statement.hex() == item["statement"]
            assert rc.verify(keys[item["signer"]], ev.signature, statement)
        head = rc.log_next(head, raw)
        assert head.hex() == item["head"]
        k += 1
    assert makers == {0, 1, 2, 3}
    assert head.hex() == v["final_head"]
    assert k == v["count"]


def test_public_log_examples() -> None:
    """§ Public log's own examples decode to what the text says and encode back."""
    sig, hd = bytes(range(64)), bytes(range(32))
    examples = [
        ("010307", rc.Event("draw", seat=3, n=7)),
        ("0268", rc.Event("turnup", card=104)),
        ("0400000002280005", rc.Event("shuffle", round=2, n=40, mask=5)),
        ("030200000000c8" + sig.hex(), rc.Event("move", seat=2, move=200, signature=sig)),
        ("03020000010005" + sig.hex(), rc.Event("move", seat=2, move=0x10005, signature=sig)),
        ("060101", rc.Event("away", seat=1, how=rc.LOST)),
        (
            "06010000000005" + hd.hex() + sig.hex(),
            rc.Event("away", seat=1, how=rc.LEFT, count=5, head=hd, signature=sig),
        ),
        ("0701", rc.Event("back", seat=1)),
        ("05000573657475700001ff", rc.Event("note", label="setup", data=b"\xff")),
    ]
    for hexed, ev in examples:
        assert rc.decode_event(unhex(hexed)) == ev
        assert rc.encode_event(ev).hex() == hexed
    assert len(unhex(examples[3][0])) == 71
    assert len(unhex(examples[6][0])) == 103


@pytest.mark.parametrize(
    "hexed",
    [
        "010300",  # Draw of 0 cards
        "01030700",  # a byte too many
        "026c",  # card 108
        "030204000000c8" + "00" * 64,  # maker 4
        "030200000000c8" + "00" * 63,  # a short signature
        "0400000002000005",  # Shuffle of 0 cards
        "060102",  # Away of no known kind
        "06010000000005",  # Away LEFT without its head and signature
        "06010100",  # Away LOST with a trailing byte
        "0005000573657475700000",  # tag 0
        "08",  # tag 8
        "050005536574757000",  # a Note label with upper case (and truncated data)
        "0500055365747570000100",  # a Note label with upper case
    ],
)
def test_decoder_refuses_other_encodings(hexed: str) -> None:
    """§ Public log: each event has exactly one encoding; anything else is refused."""
    with pytest.raises(rc.SpecViolationError):
        rc.decode_event(unhex(hexed))


def test_reshuffle_vector() -> None:
    """Round 1 of hand_52 where the log vector ends: context, key, order, its signed flow."""
    v = FAIR["reshuffle"]
    setup = FAIR["hand_52"]
    keys = _keys(setup)
    ctx0 = unhex(setup["hand_context"])
    head = unhex(v["head"])
    assert (v["count"], v["head"]) == (FAIR["log"]["count"], FAIR["log"]["final_head"])
    pre = rc.round_context_preimage(ctx0, v["round"], v["count"], head, v["mask"], v["cards"])
    assert (rc.enc(rc.label("round")) + pre).hex() == v["round_context_preimage"]
    ctx = rc.round_context(ctx0, v["round"], v["count"], head, v["mask"], v["cards"])
    assert ctx.hex() == v["round_context"]
    parts = rc.participants_of(v["mask"], setup["seats"])
    assert parts == v["participants"]
    seeds = {p: unhex(s) for p, s in v["seeds"].items()}
    commitments = [(p, rc.commitment(ctx, p, seeds[p])) for p in parts]
    for p, c in commitments:
        assert c.hex() == v["commitments"][p]
        preimage = rc.enc(rc.label("commit")) + ctx + rc.enc(p) + seeds[p]
        assert preimage.hex() == v["commitment_preimages"][p]
    assert rc.deck_ikm(seeds).hex() == v["ikm"]
    key = rc.deck_key(ctx, seeds)
    assert key.hex() == v["deck_key"]
    assert rc.stream_block(key, 0).hex() == v["stream_block_0"]
    assert rc.round_order(ctx, seeds, v["cards"]) == v["order"]
    dealer_c = dict(commitments)[rc.DEALER]
    stages = {
        "announce_1": rc.announce_statement(ctx0, 1, False, ctx, [(rc.DEALER, dealer_c)]),
        "announce_3": rc.announce_statement(ctx0, 1, True, ctx, commitments),
    }
    for name, statement in stages.items():
        assert statement.hex() == v[name]["message"], name
        assert rc.verify(keys[rc.DEALER], unhex(v[name]["signature"]), statement)
    for p, c in commitments:
        statement = rc.commit_statement(ctx, p, c)
        assert statement.hex() == v["commits"][p]["message"]
        assert rc.verify(keys[p], unhex(v["commits"][p]["signature"]), statement)
        statement = rc.reveal_statement(ctx, p, c, seeds[p])
        assert statement.hex() == v["reveals"][p]["message"]
        assert rc.verify(keys[p], unhex(v["reveals"][p]["signature"]), statement)


def test_signature_vector() -> None:
    """The seven statements, rebuilt and signed with the fixed keys: deterministic Ed25519."""
    v = FAIR["signature"]
    setup, resh = FAIR["hand_52"], FAIR["reshuffle"]
    ctx0 = unhex(setup["hand_context"])
    ctx = unhex(resh["round_context"])
    seeds = {p: unhex(s) for p, s in resh["seeds"].items()}
    cs = [(p, unhex(resh["commitments"][p])) for p in resh["participants"]]
    c_alice = dict(cs)["alice"]
    ab = v["abort"]
    statements = {
        "commit": rc.commit_statement(ctx, "alice", c_alice),
        "reveal": rc.reveal_statement(ctx, "alice", c_alice, seeds["alice"]),
        "announce_1": rc.announce_statement(ctx0, 1, False, ctx, [cs[-1]]),
        "announce_3": rc.announce_statement(ctx0, 1, True, ctx, cs),
        "abort": rc.abort_statement(ctx0, ab["round"], ab["fault"], ab["culprits"], cs),
        "move": rc.move_statement(
            ctx0,
            v["move"]["count"],
            unhex(v["move"]["head"]),
            v["move"]["seat"],
            v["move"]["by"],
            v["move"]["move"],
        ),
        "log_head": rc.log_statement(
            ctx0, rc.DEALER, v["log_head"]["count"], unhex(v["log_head"]["head"])
        ),
        "log_head_alice": rc.log_statement(
            ctx0, "alice", v["log_head_alice"]["count"], unhex(v["log_head_alice"]["head"])
        ),
        "cards": rc.cards_statement(ctx0, v["cards"]["seat"], v["cards"]["cards"]),
    }
    assert set(statements) == set(v) - {"public_keys"}
    for name, statement in statements.items():
        assert statement.hex() == v[name]["message"], name
        key = private(setup["private_keys"][v[name]["signer"]])
        assert key.sign(statement).hex() == v[name]["signature"], name
        signer_public = unhex(v["public_keys"][v[name]["signer"]])
        assert rc.verify(signer_public, unhex(v[name]["signature"]), statement)


def test_rejection_vector() -> None:
    """uniform() skips words at or above the limit; the limits themselves."""
    v = FAIR["rejection"]
    assert rc.shuffle(v["cards"], iter(v["words"])) == v["order"]
    for n, limit in v["limits"].items():
        assert 2**32 - (2**32 % int(n)) == limit


TRANSCRIPT = load("hand-transcript.json")


def test_hand_transcript_vector_verifies_fair_from_the_spec() -> None:
    """§ Verification with the spec-only verifier: the vector hand is fair.

    The rounds' orders, the seat's cards, the final head and the setup come out as the
    vector summary says; the bot's moves are the host's (by 1), the people's their own.
    """
    want = FAIR["hand"]
    rec = rc.record_from_transcript(TRANSCRIPT)
    for p, k in want["private_keys"].items():
        assert public(private(k)) == rec.public_keys[p]
    assert rec.context0().hex() == want["hand_context"]
    assert rec.log[0].hex() == want["setup_note"]
    assert "bot-1" not in rec.public_keys
    verdict = rc.verify_hand(rec)
    assert verdict.status == want["status"] == "fair", verdict.problems
    assert verdict.orders == want["orders"]
    assert verdict.seat_cards == want["seat_cards"] == rec.cards
    assert len(rec.log) == want["count"]
    assert rc.log_heads(rec.context0(), rec.log)[-1].hex() == want["final_head"]
    assert set(verdict.moves_by) == {rc.BY_PLAYER, rc.BY_BOT}
    ctx0 = rec.context0()
    heads = rc.log_heads(ctx0, rec.log)
    for rr, w in zip(rec.rounds, want["rounds"], strict=True):
        assert (rr.round, rr.at) == (w["round"], w["at"])
        ctx = rr.announces[0]["ctx"]
        assert ctx.hex() == w["round_context"]
        cards = rr.announces[0]["cards"]
        assert rc.round_context(ctx0, rr.round, rr.at, heads[rr.at], w["mask"], cards) == ctx


def _tampered(change: str) -> rc.HandRecord:
    """The vector transcript with one thing changed."""
    rec = rc.record_from_transcript(TRANSCRIPT)
    if change == "turnup":
        i = next(i for i, e in enumerate(rec.log) if e[0] == 2)
        rec.log[i] = bytes([2, (rec.log[i][1] + 1) % 52])
    elif change == "move_signature":
        i = next(i for i, e in enumerate(rec.log) if e[0] == 3)
        rec.log[i] = rec.log[i][:-1] + bytes([rec.log[i][-1] ^ 1])
    elif change == "move_maker":
        i = next(i for i, e in enumerate(rec.log) if e[0] == 3 and e[2] == 0)
        rec.log[i] = rec.log[i][:2] + b"\x02" + rec.log[i][3:]
    elif change == "shuffle_round":
        i = max(i for i, e in enumerate(rec.log) if e[0] == 4)
        rec.log[i] = b"\x04" + rc.u32(2) + rec.log[i][5:]
    elif change == "away_inserted":
        at = max(i for i, e in enumerate(rec.log) if e[0] == 4)  # before the reshuffle
        rec.log.insert(at, rc.encode_event(rc.Event("away", seat=1, how=rc.LOST)))
    elif change == "stage3_commitment":
        a = rec.rounds[1].announces[1]
        _c, sig = a["commitments"]["bob"]
        a["commitments"]["bob"] = [bytes(32), sig]
    elif change == "stage3_order":
        a = rec.rounds[0].announces[1]
        a["commitments"] = dict(reversed(a["commitments"].items()))
    elif change == "own_seed":
        rec.rounds[0].own_seed = bytes(32)
    elif change == "revealed_seed":
        _seed, sig = rec.rounds[1].reveals["bob"]
        rec.rounds[1].reveals["bob"] = (bytes(32), sig)
    elif change == "cards":
        rec.cards[0], rec.cards[1] = rec.cards[1], rec.cards[0]
    elif change == "bob_head":  # bob signs the head of another log of the same length
        n = rec.log_heads["bob"][0]
        bob = private(FAIR["hand"]["private_keys"]["bob"])
        sig = bob.sign(rc.log_statement(rec.context0(), "bob", n, bytes(32)))
        rec.log_heads["bob"] = (n, bytes(32), sig)
    elif change == "bob_head_signature":
        n, hd, sig = rec.log_heads["bob"]
        rec.log_heads["bob"] = (n, hd, sig[:-1] + bytes([sig[-1] ^ 1]))
    elif change == "round_at":
        rec.rounds[1] = replace(rec.rounds[1], at=rec.rounds[1].at - 1)
    elif change == "dispute":
        rec.disputes.append((5, "the host moved for us"))
    else:  # pragma: no cover
        raise AssertionError(change)
    return rec


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("turnup", "TurnUp"),
        ("move_signature", "signature"),
        ("move_maker", "not allowed"),
        ("shuffle_round", "deals round 2"),
        ("away_inserted", "no fixed round announced here"),
        ("stage3_commitment", "commitment signature"),
        ("stage3_order", "stage 3 lists"),
        ("own_seed", "changed or dropped our commitment"),
        ("revealed_seed", "does not open"),
        ("cards", "cards signature"),
        ("bob_head", "bob signed another log"),
        ("bob_head_signature", "bob's head is not validly signed"),
        ("round_at", "the mask is not the people present|ctx is not the context"),
        ("dispute", "dispute"),
    ],
)
def test_tampered_transcript_is_unfair(change: str, why: str) -> None:
    """The spec-only verifier is not vacuous: one change makes the vector hand unfair.

    Some changes also break the head the seats signed; the check named is among the problems.
    """
    verdict = rc.verify_hand(_tampered(change))
    assert verdict.status == "unfair"
    assert any(re.search(why, p) for p in verdict.problems), verdict.problems


def test_missing_confirmation_is_unconfirmed() -> None:
    """A person present to the end whose head is missing: unconfirmed, not unfair."""
    rec = rc.record_from_transcript(TRANSCRIPT)
    del rec.log_heads["bob"]
    verdict = rc.verify_hand(rec)
    assert verdict.status == "unconfirmed", verdict.problems
    assert verdict.unconfirmed == ["bob from event 0"]


def test_deck_setup_reading() -> None:
    """A deck table is 'from that many players up'; missing keys take the preset's value."""
    rules = "[deal]\ndecks = { 2 = 1, 6 = 2 }\njokers = 2\n"
    assert rc.deck_setup(rules, 2) == (1, 2)
    assert rc.deck_setup(rules, 5) == (1, 2)
    assert rc.deck_setup(rules, 6) == (2, 2)
    assert rc.deck_setup(rules, 8) == (2, 2)
    assert rc.deck_setup("[deal]\ndecks = 2\n", 3) == (2, 0)
    assert rc.deck_setup('base = "switch"\n', 6) == (2, 0)
    assert rc.deck_setup('base = "black5"\n', 6) == (1, 0)
    # Every preset's deck, from the SPEC's table (§ The hand's setup, the presets' decks).
    assert len(rc.PRESET_DEAL) == 9
    assert rc.deck_setup('base = "two-four-jack"\n', 7) == (2, 0)
    with pytest.raises(rc.SpecViolationError):
        rc.deck_setup("[deal]\ndecks = { 3 = 1 }\n", 3)  # "2" is required
    with pytest.raises(rc.SpecViolationError):
        rc.deck_setup("not toml = = 1", 2)


def test_no_lanswitch_import() -> None:
    """The raw client is the spec's: it imports nothing of lanswitch, the engine included."""
    source = Path(rc.__file__).read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+lanswitch\b", source, re.MULTILINE)
    assert "importlib" not in source


# --------------------------------------------------------------------------------------------
# In-process: a host scripted here, honest and not


class Recorder:
    """Stands in for :class:`rc.Connection`: keeps what the client sends (as valid frames)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, msg: dict[str, Any]) -> None:
        """Encode, frame and decode it as the host would; keep it."""
        self.sent.append(rc.classify_frame(rc.frame(rc.encode_message(msg))))

    def close(self) -> None:
        """Nothing to close."""

    def of(self, kind: str) -> list[dict[str, Any]]:
        """What was sent of one type."""
        return [m for m in self.sent if m["type"] == kind]


class ScriptedHost:
    """A host of three seats — the raw client (0), a person ``pal`` (1), a bot (2) — in-process.

    Every message is built with the spec-only code and signed with this host's own
    ``@dealer`` key (and pal's), then handed to the client's :meth:`rc.RawClient.handle`.
    """

    SEATS = ("raw", "pal", "bot-2")

    def __init__(self, turn_timer_ms: int = 0) -> None:
        self.client = rc.RawClient("127.0.0.1", 1, "00" * 32, seats=3)
        self.wire = Recorder()
        self.client.conn = self.wire
        self.client.report.seat = 0
        self.dealer = Ed25519PrivateKey.generate()
        self.pal = Ed25519PrivateKey.generate()
        self.keys = {
            "raw": self.client.public,
            "pal": public(self.pal),
            rc.DEALER: public(self.dealer),
        }
        self.rules = 'base = "switch"\n'
        game_id = secrets.token_bytes(16)
        hand: dict[str, Any] = {
            "type": "hand",
            "game_id": game_id,
            "hand_no": 1,
            "seats": list(self.SEATS),
            "dealer": 2,
            "out": [],
            "rules": self.rules,
            "keys": dict(self.keys),
            "turn_timer_ms": turn_timer_ms,
            "blind": False,
            "names": [],
        }
        self.send(hand)
        self.ctx0 = rc.hand_context(game_id, 1, 1, 0, list(self.SEATS), self.keys)
        assert self.client.ctx0 == self.ctx0
        self.log = [rc.setup_note(self.rules, 2, [], turn_timer_ms, [])]
        self.seq = 0
        self.seeds: dict[str, bytes] = {}

    @property
    def report(self) -> rc.Report:
        """The client's report."""
        return self.client.report

    def send(self, msg: dict[str, Any]) -> None:
        """Check it is a valid host message, then hand it to the client."""
        self.client.handle(rc.classify_frame(rc.frame(rc.encode_message(msg))))

    def head(self) -> bytes:
        """The head of the host's log."""
        return rc.log_heads(self.ctx0, self.log)[-1]

    def step(self, *events: rc.Event | bytes) -> None:
        """Send a step's ``events`` with these log events."""
        raws = [e if isinstance(e, bytes) else rc.encode_event(e) for e in events]
        self.seq += 1
        self.send({"type": "events", "seq": self.seq, "events": [], "log": raws})
        self.log.extend(raws)

    def commit_of(self, pid: str, ctx: bytes, key: Ed25519PrivateKey) -> tuple[bytes, bytes]:
        """A participant's commitment and its signature, from a fresh seed."""
        self.seeds[pid] = secrets.token_bytes(32)
        c = rc.commitment(ctx, pid, self.seeds[pid])
        return c, key.sign(rc.commit_statement(ctx, pid, c))

    def stage1(self, r: int, seats: list[int], cards: list[int] | None = None) -> dict[str, Any]:
        """Stage 1 of round ``r`` for ``seats``, signed; sent."""
        cards = cards if cards is not None else rc.setup_cards(1, 0)
        ctx = rc.round_context(self.ctx0, r, len(self.log), self.head(), rc.mask_of(seats), cards)
        c, sig = self.commit_of(rc.DEALER, ctx, self.dealer)
        statement = rc.announce_statement(self.ctx0, r, False, ctx, [(rc.DEALER, c)])
        msg = {
            "type": "announce",
            "round": r,
            "fixed": False,
            "ctx": ctx,
            "cards": cards,
            "seats": seats,
            "commitments": {rc.DEALER: [c, sig]},
            "signature": self.dealer.sign(statement),
        }
        self.send(msg)
        return msg

    def stage3(self, a1: dict[str, Any], commitments: dict[str, list[bytes]]) -> dict[str, Any]:
        """Stage 3 with these commitments (in the order given), signed; sent."""
        statement = rc.announce_statement(
            self.ctx0, a1["round"], True, a1["ctx"], rc.pairs(commitments)
        )
        msg = a1 | {
            "fixed": True,
            "commitments": commitments,
            "signature": self.dealer.sign(statement),
        }
        self.send(msg)
        return msg

    def honest_stage3(self, a1: dict[str, Any]) -> dict[str, list[bytes]]:
        """Every participant's commitment in participant order (the client's as it sent it)."""
        sent = self.wire.of("commit")[-1]
        pal = self.commit_of("pal", a1["ctx"], self.pal)
        out: dict[str, list[bytes]] = {}
        for pid in rc.participants_of(rc.mask_of(a1["seats"]), self.SEATS):
            if pid == "raw":
                out[pid] = [sent["commitment"], sent["signature"]]
            elif pid == "pal":
                out[pid] = list(pal)
            else:
                out[pid] = a1["commitments"][rc.DEALER]
        return out

    def move(
        self, seat: int, by: int, move: int, key: Ed25519PrivateKey, count: int | None = None
    ) -> rc.Event:
        """A Move event signed by ``key`` over the host's log (or its first ``count`` events)."""
        n = len(self.log) if count is None else count
        head = rc.log_heads(self.ctx0, self.log[:n])[-1]
        sig = key.sign(rc.move_statement(self.ctx0, n, head, seat, by, move))
        return rc.Event("move", seat=seat, by=by, move=move, signature=sig)


def test_scripted_honest_round_is_committed_and_revealed() -> None:
    """The baseline the refusals below depart from: commit after stage 1, reveal after 3."""
    host = ScriptedHost()
    a1 = host.stage1(0, [0, 1])
    [commit] = host.wire.of("commit")
    ctx = a1["ctx"]
    assert rc.verify(
        host.keys["raw"], commit["signature"], rc.commit_statement(ctx, "raw", commit["commitment"])
    )
    assert not host.wire.of("reveal")  # never before stage 3
    host.stage3(a1, host.honest_stage3(a1))
    [reveal] = host.wire.of("reveal")
    assert rc.commitment(ctx, "raw", reveal["seed"]) == commit["commitment"]
    statement = rc.reveal_statement(ctx, "raw", commit["commitment"], reveal["seed"])
    assert rc.verify(host.keys["raw"], reveal["signature"], statement)
    assert not host.report.violations, host.report.violations


def test_scripted_round_that_leaves_the_client_out_is_refused() -> None:
    """§ Participants: a round whose mask leaves out a person present (the client) is refused."""
    host = ScriptedHost()
    host.stage1(0, [1])
    assert not host.wire.of("commit")
    assert any("leaves out seats [0]" in v for v in host.report.violations), host.report.violations


def test_scripted_round_that_takes_in_a_person_away_is_refused() -> None:
    """After ``Away(pal, LOST)`` a round must leave pal out; one that takes it in is refused."""
    host = ScriptedHost()
    host.step(rc.Event("away", seat=1, how=rc.LOST))
    assert not host.report.violations, host.report.violations
    host.stage1(0, [0, 1])
    assert not host.wire.of("commit")
    assert any("takes in seats [1]" in v for v in host.report.violations)
    good = ScriptedHost()
    good.step(rc.Event("away", seat=1, how=rc.LOST))
    good.stage1(0, [0])
    assert len(good.wire.of("commit")) == 1
    assert not good.report.violations


def test_scripted_round_bound_to_another_log_is_refused() -> None:
    """ctx_r binds the log: a context computed over one event fewer is refused."""
    host = ScriptedHost()
    host.step(rc.Event("away", seat=1, how=rc.LOST))
    host.log.pop()  # the host forgets the event it sent
    host.stage1(0, [0])
    assert not host.wire.of("commit")
    assert any("ctx is not the context" in v for v in host.report.violations)


def test_scripted_announcements_are_kept_and_compared() -> None:
    """Replays are answered as the first time; a contradiction stops the client revealing."""
    host = ScriptedHost()
    a1 = host.stage1(0, [0, 1])
    host.send(a1)  # a replay (a resume): the same commit again
    commits = host.wire.of("commit")
    assert len(commits) == 2
    assert commits[0] == commits[1]
    cs = host.honest_stage3(a1)
    a3 = host.stage3(a1, cs)
    host.send(a3)  # replayed stage 3: the same reveal, byte for byte
    reveals = host.wire.of("reveal")
    assert len(reveals) == 2
    assert reveals[0] == reveals[1]
    assert host.report.replayed == ["announce 0 stage 1", "announce 0 stage 3"]
    assert not host.report.violations
    # A second stage 3 that changes another participant's commitment: the host's contradiction.
    other = dict(cs)
    other["pal"] = list(host.commit_of("pal", a1["ctx"], host.pal))
    host.stage3(a1, other)
    assert any("two different stage-3" in v for v in host.report.violations)


def test_scripted_stage3_that_contradicts_stage1_gets_no_reveal() -> None:
    """Stage 3 with other cards than stage 1 (re-signed): no seed is sent."""
    host = ScriptedHost()
    a1 = host.stage1(0, [0, 1])
    changed = a1 | {"cards": a1["cards"][:-1]}
    host.stage3(changed, host.honest_stage3(a1))
    assert not host.wire.of("reveal")
    assert any("changes cards" in v for v in host.report.violations)


def test_scripted_stage3_without_the_clients_commitment_gets_no_reveal() -> None:
    """The client's own commitment must be in stage 3 unchanged."""
    host = ScriptedHost()
    a1 = host.stage1(0, [0, 1])
    cs = host.honest_stage3(a1)
    cs["raw"] = list(host.commit_of("raw", a1["ctx"], Ed25519PrivateKey.generate()))
    host.stage3(a1, cs)
    assert not host.wire.of("reveal")
    assert any("our commitment is not in stage 3" in v for v in host.report.violations)


def test_scripted_stage1_with_a_bad_host_signature_is_refused() -> None:
    """The host's announce signature covers the stage: a stage-3 signature on stage 1 fails."""
    host = ScriptedHost()
    cards = rc.setup_cards(1, 0)
    ctx = rc.round_context(host.ctx0, 0, 1, host.head(), rc.mask_of([0, 1]), cards)
    c, sig = host.commit_of(rc.DEALER, ctx, host.dealer)
    wrong = rc.announce_statement(host.ctx0, 0, True, ctx, [(rc.DEALER, c)])
    host.send(
        {
            "type": "announce",
            "round": 0,
            "fixed": False,
            "ctx": ctx,
            "cards": cards,
            "seats": [0, 1],
            "commitments": {rc.DEALER: [c, sig]},
            "signature": host.dealer.sign(wrong),
        }
    )
    assert not host.wire.of("commit")
    assert any("stage-1 signature" in v for v in host.report.violations)


def test_scripted_withdrawn_round_and_redeal() -> None:
    """§ Round states: pal goes while round 0 is committing; round 1 without pal is fine.

    The Away comes over the ANNOUNCED round (SPEC_NOTES); the next stage 1 withdraws it.
    A new round over a FIXED one is a redeal and is refused.
    """
    host = ScriptedHost()
    host.stage1(0, [0, 1])
    host.step(rc.Event("away", seat=1, how=rc.LOST))
    host.stage1(1, [0])
    assert len(host.wire.of("commit")) == 2
    assert not host.report.violations, host.report.violations
    assert [x.state for x in host.client.rounds] == ["withdrawn", "announced"]
    redeal = ScriptedHost()
    a1 = redeal.stage1(0, [0, 1])
    redeal.stage3(a1, redeal.honest_stage3(a1))
    redeal.stage1(1, [0, 1])
    assert len(redeal.wire.of("commit")) == 1
    assert any("does not redeal" in v for v in redeal.report.violations)


def test_scripted_abort_is_checked() -> None:
    """The host's abort: its signature over the round, fault, culprits and commitments."""
    host = ScriptedHost()
    a1 = host.stage1(0, [0, 1])
    cs = {pid: v for pid, v in host.honest_stage3(a1).items() if pid != "pal"}
    statement = rc.abort_statement(host.ctx0, 0, "missing_commitment", ["pal"], rc.pairs(cs))
    abort = {
        "type": "abort",
        "round": 0,
        "fault": "missing_commitment",
        "culprits": ["pal"],
        "commitments": cs,
        "signature": host.dealer.sign(statement),
    }
    host.send(abort)
    assert host.client.rec is not None
    assert host.client.rec.void is not None
    # A void hand is a finding with honest players, and nothing more: the abort checks out.
    assert host.report.violations == ["a void hand: missing_commitment blaming ['pal']"]
    forged = ScriptedHost()
    forged.stage1(0, [0, 1])
    forged.send(abort | {"culprits": ["raw"]})  # the signature covers the culprits
    assert "abort: the abort is not validly signed by @dealer" in forged.report.violations


def _dealt(host: ScriptedHost) -> None:
    """Round 0 committed, fixed, revealed and dealt (a Shuffle and a TurnUp)."""
    a1 = host.stage1(0, [0, 1])
    host.stage3(a1, host.honest_stage3(a1))
    host.step(
        rc.Event("shuffle", round=0, n=52, mask=rc.mask_of([0, 1])), rc.Event("turnup", card=5)
    )


def test_scripted_moves_are_checked_as_they_arrive() -> None:
    """§ Moves: each Move's maker and signature, over the log the client holds."""
    host = ScriptedHost(turn_timer_ms=0)
    _dealt(host)
    host.step(host.move(2, rc.BY_BOT, 200, host.dealer))  # the bot: @dealer, by 1
    host.step(host.move(1, rc.BY_PLAYER, 201, host.pal))  # pal itself
    assert not host.report.violations, host.report.violations
    assert host.report.moves_by == {rc.BY_BOT: 1, rc.BY_PLAYER: 1}
    cases = [
        (host.move(1, rc.BY_PLAYER, 201, host.pal, count=len(host.log) - 1), "signature"),
        (host.move(1, rc.BY_BOT, 201, host.dealer), "by 1 for seat 1"),  # pal has a key
        (host.move(2, rc.BY_PLAYER, 201, host.dealer), "by 0 for seat 2"),  # the bot has none
        (host.move(1, rc.BY_TIMEOUT, 201, host.dealer), "by 3 for seat 1"),  # no turn timer
        (host.move(1, rc.BY_STAND_IN, 201, host.dealer), "by 2 for seat 1"),  # pal is here
        (host.move(1, rc.BY_PLAYER, 201, host.dealer), "signature"),  # not pal's key
    ]
    for ev, why in cases:
        before = len(host.report.violations)
        host.step(ev)
        found = host.report.violations[before:]
        assert any(why in v for v in found), (why, found)


def _goodbye(host: ScriptedHost) -> rc.Event:
    """Pal's goodbye: ``Away(1, LEFT)`` with pal's signed head of the host's whole log."""
    n = len(host.log)
    head = host.head()
    return rc.Event(
        "away",
        seat=1,
        how=rc.LEFT,
        count=n,
        head=head,
        signature=host.pal.sign(rc.log_statement(host.ctx0, "pal", n, head)),
    )


def test_scripted_presence_and_goodbye_heads_are_checked() -> None:
    """§ Going away: a LEFT goodbye head must be pal's, of this log; Back only after Away."""
    host = ScriptedHost()
    _dealt(host)
    host.step(_goodbye(host))
    host.step(host.move(1, rc.BY_STAND_IN, 200, host.dealer))  # the host stands in for pal
    host.step(rc.Event("back", seat=1))
    host.step(host.move(1, rc.BY_PLAYER, 201, host.pal))  # pal plays for itself again
    assert not host.report.violations, host.report.violations
    assert host.report.moves_by == {rc.BY_STAND_IN: 1, rc.BY_PLAYER: 1}
    bad: list[tuple[Callable[[rc.Event], rc.Event], str]] = [
        (lambda g: replace(g, head=bytes(32)), "not of this log"),
        (lambda g: replace(g, signature=bytes(64)), "not validly signed"),
        (lambda g: replace(g, count=g.count + 1), "not of this log"),
        (lambda g: rc.Event("away", seat=2, how=rc.LOST), "a seat of the host's"),
        (lambda g: rc.Event("back", seat=1), "not away"),
    ]
    for change, why in bad:
        host = ScriptedHost()
        _dealt(host)
        host.step(change(_goodbye(host)))
        assert any(why in v for v in host.report.violations), (why, host.report.violations)


def test_scripted_own_away_while_here_is_a_dispute() -> None:
    """The host logging the client itself away as it happens is recorded as a dispute."""
    host = ScriptedHost()
    _dealt(host)
    host.step(rc.Event("away", seat=0, how=rc.LOST))
    assert host.client.rec is not None
    assert host.client.rec.disputes


def test_scripted_client_signs_its_move_over_its_log() -> None:
    """The client's ``move`` is signed (by 0) over the log it holds after the view's step."""
    host = ScriptedHost()
    _dealt(host)
    view = dict(FRAME_BY_NAME["view"]) | {
        "seq": host.seq,
        "seat": 0,
        "hand": [],
        "counts": [0, 0, 0],
        "active": [True, True, True],
        "legal": [200],
        "turn": 0,
        "missed": [0, 0, 0],
        "declared": [False, False, False],
        "dealer": 2,
    }
    host.send(view)
    [move] = host.wire.of("move")
    assert move["seq"] == host.seq
    statement = rc.move_statement(host.ctx0, len(host.log), host.head(), 0, rc.BY_PLAYER, 200)
    assert rc.verify(host.keys["raw"], move["signature"], statement)


# --------------------------------------------------------------------------------------------
# Against a real host


@dataclass
class Host:
    """A ``lanswitch host --headless`` subprocess and what it printed."""

    proc: subprocess.Popen[str]
    name: str
    address: str
    port: int
    fingerprint: str
    lines: list[str]
    errors: list[str]

    def output(self) -> str:
        """Everything the host printed so far, for failure messages."""
        return "stdout:\n" + "".join(self.lines) + "\nstderr:\n" + "".join(self.errors)


def _pump(stream: IO[str], sink: list[str], q: queue.Queue[str | None] | None) -> None:
    """Drain a pipe (so the host never blocks on it), optionally feeding lines to a queue."""
    for line in stream:
        sink.append(line)
        if q is not None:
            q.put(line)
    if q is not None:
        q.put(None)


LISTEN = re.compile(r'^table "(?P<name>.*)" listening on (?P<addr>[0-9.]+):(?P<port>\d+)\s*$')
PIN = re.compile(r"^fingerprint: (?P<hex>[0-9a-fA-F]{64}) \((?P<words>.*)\)\s*$")


def start_host(tmp_path: Path, seats: int, extra: Sequence[str] = ()) -> Host:
    """A one-hand host on loopback with ``seats`` seats, the last one a bot (``extra``: more
    options of ``lanswitch host``)."""
    name = f"raw-{os.getpid()}-{secrets.token_hex(3)}"
    cmd = [
        sys.executable,
        "-m",
        "lanswitch",
        "--data-dir",
        str(tmp_path / "data"),
        "host",
        "--headless",
        "--name",
        name,
        "--seats",
        str(seats),
        "--bots",
        "1",
        "--hands",
        "1",
        "--interface",
        "127.0.0.1",
        "--port",
        "0",
        "--bot-delay",
        "0",
        *extra,
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    lines: list[str] = []
    errors: list[str] = []
    q: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines, q), daemon=True).start()
    threading.Thread(target=_pump, args=(proc.stderr, errors, None), daemon=True).start()
    try:
        listen: re.Match[str] | None = None
        pin: re.Match[str] | None = None
        deadline = time.monotonic() + STARTUP_S
        while listen is None or pin is None:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail("host printed no listen/fingerprint lines in time:\n" + "".join(errors))
            try:
                line = q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                proc.wait(timeout=EXIT_S)
                pytest.fail(
                    f"host exited ({proc.returncode}) before listening:\n" + "".join(errors)
                )
            if listen is None:
                listen = LISTEN.match(line)
                assert listen is not None, f"first line is not the listen line: {line!r}"
                assert listen["name"] == name
            elif pin is None:
                pin = PIN.match(line)
    except BaseException:
        stop_host(proc)
        raise
    return Host(proc, name, listen["addr"], int(listen["port"]), pin["hex"].lower(), lines, errors)


def stop_host(proc: subprocess.Popen[str]) -> None:
    """Kill the host by its own pid if it is still running."""
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=EXIT_S)


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    """A one-hand, two-seat host (the raw client and a bot of the host's, without a key)."""
    h = start_host(tmp_path, 2)
    try:
        yield h
    finally:
        stop_host(h.proc)


@pytest.fixture
def host3(tmp_path: Path) -> Iterator[Host]:
    """A one-hand, three-seat host (two raw clients and a bot)."""
    h = start_host(tmp_path, 3)
    try:
        yield h
    finally:
        stop_host(h.proc)


def _play(client: rc.RawClient, host: Host) -> rc.Report:
    """Run one client's session, turning an exception into a failure with the host's output."""
    try:
        return client.run(SESSION_S)
    except Exception as exc:
        raise AssertionError(f"{exc!r}\n{host.output()}") from exc


def _note(report: rc.Report, host: Host) -> str:
    """What to print when a live test fails."""
    return (
        f"violations: {report.violations}\nrejects: {report.rejects}\nprobes: {report.probes}\n"
        f"error: {report.error}\nreceived: {report.received[:14]}…{report.received[-14:]}\n"
        f"{host.output()}"
    )


def _assert_whole_hand(client: rc.RawClient, report: rc.Report, host: Host) -> None:
    """A whole hand played, verified fair on the client's own, and the match's bye."""
    note = _note(report, host)
    assert report.tls_version == "TLSv1.3"
    assert report.welcome is not None, note
    assert report.welcome["table"] == host.name, note
    assert report.error is None, note
    assert report.hand is not None, note
    rec = report.record
    assert rec is not None, note
    assert rec.rounds, note
    # One commit per round it took part in, one reveal per round fixed (a round withdrawn
    # when another player left has a commit and no reveal).
    assert report.commits == len([r for r in rec.rounds if r.own_seed is not None]), note
    assert report.reveals_sent == len([r for r in rec.rounds if r.own_seed_sent]) >= 1, note
    assert report.steps > 0, note
    assert report.views > 0, note
    assert report.moves > 0, note
    assert report.hand_over is not None, note
    assert report.reveals >= len(rec.rounds), note
    assert report.log_heads is not None, note
    assert report.log_head_sent == (len(rec.log), client.head()), note
    assert report.verdict is not None, note
    assert report.verdict.status == "fair", (report.verdict, note)
    assert report.verdict.seat_cards == rec.cards, note
    assert report.bye is not None, note
    assert not report.violations, note
    assert report.moves_by.get(rc.BY_PLAYER, 0) >= report.moves, note


def test_raw_client_plays_a_hand(host: Host) -> None:
    """The spec-only client plays one whole hand against a bot and every promise holds.

    The bot's seat is the host's: no key in the lobby or ``hand.keys``, ``ctx_0`` with its
    empty key (the host's announcements match the client's own contexts), its moves by 1
    signed by ``@dealer``. Every move of the client is signed over its log and accepted.
    """
    started = time.monotonic()
    client = rc.RawClient(host.address, host.port, host.fingerprint, name="Raw")
    report = _play(client, host)
    note = _note(report, host)
    assert report.received[:2] == ["welcome", "lobby"], note  # § Handshake 4
    _assert_whole_hand(client, report, host)
    assert report.hand is not None
    assert set(report.hand["keys"]) == {report.my_id, rc.DEALER}, note
    assert report.moves_by.get(rc.BY_BOT, 0) > 0, note
    assert not report.rejects, note
    host.proc.wait(timeout=EXIT_S)
    assert host.proc.returncode == 0, host.output()
    assert time.monotonic() - started < 55


def test_a_blind_client_from_the_spec_plays_a_blind_hand(tmp_path: Path) -> None:
    """Issue 25, Build 7: a dealer-blind participant written from SPEC.md alone
    (``tests/rawblind.py``: the blind deal's formulas from § Dealer-blind, what is due when from
    § Dealer-blind on the wire, and from the rules engine only the facts § The rules engine on
    hidden cards lists) plays a whole blind hand against the host's bot: every pass, opening,
    sealed key and move of the host's checks out on its side, the host refuses nothing of its,
    every seed the host reveals makes its passes, and the host's own check finds the hand fair."""
    host = start_host(tmp_path, 2, ("--blind",))
    try:
        client = BlindRawClient(host.address, host.port, host.fingerprint, name="Raw")
        report = _play(client, host)
        host.proc.wait(timeout=EXIT_S)
    finally:
        stop_host(host.proc)
    note = _note(report, host)
    assert report.hand is not None, note
    assert report.hand["blind"], note
    assert not report.violations, note
    assert not report.rejects, note
    assert report.error is None, note
    assert report.hand_over is not None, note
    assert report.hand_over["reason"] in ("finished", "one_left", "blocked", "limit"), note
    assert report.moves > 0, note
    seen = client.blind_report
    assert seen["turned_up"] >= 1, note
    assert seen["opened"] >= 7, note  # its whole first hand of switch, at least
    assert seen["releases"] >= 7, note  # the bot's, sealed to @dealer
    assert "reveal" in seen, note
    assert "hand 1: FAIR (dealer-blind)\n" in host.lines, note
    assert report.bye is not None, note
    assert host.proc.returncode == 0, host.output()


def test_a_blind_client_from_the_spec_plays_beside_an_untouched_client(tmp_path: Path) -> None:
    """The same spec-alone blind client at a three-seat blind table with an untouched
    ``lanswitch join --bot`` player and the host's bot: keys now go between two people too
    (each seals its key of the other's cards to it, and lays its own cards with the other's
    key), and all three verdicts — the raw client's checks, the untouched player's and the
    host's — are fair."""
    host = start_host(tmp_path, 3, ("--blind",))
    bob: subprocess.Popen[str] | None = None
    try:
        bob = subprocess.Popen(
            [
                *(sys.executable, "-m", "lanswitch", "--data-dir", str(tmp_path / "bob")),
                *("join", f"{host.address}:{host.port}", "--bot", "heuristic", "--name", "bob"),
                *("--interface", "127.0.0.1"),
            ],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        client = BlindRawClient(host.address, host.port, host.fingerprint, name="Raw", seats=3)
        report = _play(client, host)
        out, err = bob.communicate(timeout=SESSION_S)
        host.proc.wait(timeout=EXIT_S)
    finally:
        if bob is not None and bob.poll() is None:
            bob.kill()
            bob.wait(timeout=EXIT_S)
        stop_host(host.proc)
    note = _note(report, host) + f"\nbob:\n{out}\n{err}"
    assert report.hand is not None, note
    assert report.hand["blind"], note
    assert len(report.hand["keys"]) == 3, note  # the raw client, bob and @dealer
    assert not report.violations, note
    assert not report.rejects, note
    assert report.hand_over is not None, note
    assert report.hand_over["reason"] in ("finished", "one_left", "blocked", "limit"), note
    assert client.blind_report["opened"] >= 7, note
    assert "hand 1: FAIR (dealer-blind)\n" in host.lines, note
    assert bob.returncode == 0, note
    assert "hand 1 verified fair (dealer-blind)" in out, note


def test_host_refuses_moves_not_signed_over_its_log(host: Host) -> None:
    """Each probe is refused with its code and the move's seq; then the honest move goes.

    A move signed over the log before the last step, one whose signature is of another move,
    one signed with a stranger's key: ``fair_deal``. A move while a round is open (no seat is to
    act): ``not_your_turn``; an older seq: ``stale_view`` (both checked before the signature).
    A blunder of a legal move, correctly signed: ``illegal_move``. Blunders of an illegal move
    (correctly signed, or signed by a stranger) get ``illegal_move`` too — the code's
    behaviour, not the SPEC's (:data:`tests.rawclient.SPEC_NOTES`).
    """
    probes = ["out_of_turn", "stale_seq", "stale_head", "other_move", "foreign_key"]
    probes += ["legal_blunder", "illegal_blunder", "blunder_bad_signature"]
    client = rc.RawClient(host.address, host.port, host.fingerprint, name="Probe", probes=probes)
    report = _play(client, host)
    note = _note(report, host)
    expected = {p: rc.PROBE_CODES[p] for p in probes}
    assert dict(report.probes) == expected, note
    assert all(r["code"] in expected.values() for r in report.rejects), note
    _assert_whole_hand(client, report, host)


def test_raw_client_resumes_and_compares_replayed_announcements(host: Host) -> None:
    """Drop the link right after the first commit (no bye), resume by the token, go on.

    The host resends the hand, every announcement and every step: the client recognises the
    hand it holds, answers the replayed stage 1 with the same commit (which the host ignores,
    no reject), reveals after stage 3, and finishes the hand fair.
    """
    client = rc.RawClient(
        host.address, host.port, host.fingerprint, name="Resumer", drop_after_commit=True
    )
    report = _play(client, host)
    note = _note(report, host)
    assert report.resumes == 1, note
    assert report.received.count("welcome") == 2, note
    assert "hand" in report.replayed, note
    assert "announce 0 stage 1" in report.replayed, note
    assert not report.rejects, note
    _assert_whole_hand(client, report, host)
    assert report.record is not None
    assert not report.record.disputes, note


def _run_together(host: Host, clients: dict[str, rc.RawClient]) -> dict[str, rc.Report]:
    """Run the clients in threads (the first until it has seen the lobby, then the rest)."""
    reports: dict[str, rc.Report] = {}
    failures: list[BaseException] = []

    def run(name: str, client: rc.RawClient) -> None:
        try:
            reports[name] = _play(client, host)
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = []
    for i, (name, client) in enumerate(clients.items()):
        t = threading.Thread(target=run, args=(name, client), daemon=True)
        threads.append(t)
        t.start()
        if i == 0:  # let the first one in before the hand can start
            for _ in range(200):
                if client.report.lobby is not None or failures:
                    break
                time.sleep(0.01)
    for t in threads:
        t.join(timeout=SESSION_S + 5)
    assert not failures, failures
    assert set(reports) == set(clients), host.output()
    return reports


def _check_goodbye(left: rc.Report, watcher: rc.Report, host: Host) -> rc.Event:
    """The leaver said goodbye with its head; the watcher found exactly that head in Away."""
    assert left.left_mid_hand, _note(left, host)
    assert left.goodbye is not None
    assert left.bye is None  # it ended the connection itself
    assert not left.violations, _note(left, host)
    note = _note(watcher, host)
    assert left.seat is not None
    aways = [e for e in watcher.aways if e.seat == left.seat]
    assert len(aways) == 1, (watcher.aways, left.seat, note)
    [away] = aways
    assert away.how == rc.LEFT, note
    assert (away.count, away.head) == left.goodbye, note
    assert watcher.moves_by.get(rc.BY_STAND_IN, 0) >= 1, note  # the host plays the seat
    rec = watcher.record
    assert rec is not None
    at = rec.log.index(rc.encode_event(away))
    for rr, mask in zip(rec.rounds, watcher.masks, strict=True):
        if rr.at > at:  # rounds announced after it leave the leaver out
            assert not mask >> left.seat & 1, note
    return away


def _a_hand_with_a_goodbye(tmp_path: Path) -> tuple[Host, rc.Report, rc.Report]:
    """A two-seat host, a raw spectator and a raw player that leaves after its first move:
    the host (still running, for the caller to stop), the leaver's report and the watcher's,
    from the first of at most three hands where the host logged the leaver away."""
    for attempt in range(3):
        host = start_host(tmp_path / f"try{attempt}", 2)
        try:
            watcher = rc.RawClient(
                host.address, host.port, host.fingerprint, name="Watcher", spectate=True
            )
            leaver = rc.RawClient(
                host.address, host.port, host.fingerprint, name="Leaver", leave_after_moves=1
            )
            reports = _run_together(host, {"watcher": watcher, "leaver": leaver})
        except BaseException:
            stop_host(host.proc)
            raise
        left, seen = reports["leaver"], reports["watcher"]
        if attempt == 2 or any(e.seat == left.seat for e in seen.aways):
            return host, left, seen
        assert seen.hand_over is not None, _note(seen, host)  # it ended first: play again
        stop_host(host.proc)
    raise AssertionError("unreachable")


def test_player_leaving_mid_hand_leaves_its_goodbye_head(tmp_path: Path) -> None:
    """A player leaves after its first move with ``log_head`` (its goodbye) and ``bye``.

    A raw spectator watches the whole hand: it finds ``Away(seat, LEFT, count, head, sig)``
    with exactly the head the leaver signed and checks it (signature, head of its own log's
    first ``count`` events), checks the host's stand-in moves (by 2, ``@dealer``) and bot
    moves (by 1), every later round (without the leaver: if every person is away, ``@dealer``
    alone, both stages at once), replays the hand from the seeds and finds it fair with the
    leaver named. ``log_heads`` holds no head of the leaver (its goodbye is in the log).

    About one hand in a hundred the host's bot, moving at once, ends the hand before the
    leaver's goodbye is in: at two seats, every card that misses a turn or reverses gives the
    bot another go (seen: 8 bot moves and none of the leaver's). A goodbye after the hand gives
    the seat up and logs nothing. Then it plays again, with a new host, at most three times.
    """
    host, left, seen = _a_hand_with_a_goodbye(tmp_path)
    try:
        _check_goodbye(left, seen, host)
        note = _note(seen, host)
        assert seen.error is None, note
        assert seen.hand_over is not None, note
        assert seen.log_heads is not None, note
        assert left.my_id not in seen.log_heads["heads"], note
        assert seen.verdict is not None, note
        assert seen.verdict.status == "fair", (seen.verdict, note)
        assert any(left.my_id in x and "left" in x for x in seen.verdict.left), seen.verdict
        assert seen.moves_by.get(rc.BY_BOT, 0) >= 1, note
        assert seen.bye is not None, note
        assert not seen.violations, note
        host.proc.wait(timeout=EXIT_S)
        assert host.proc.returncode == 0, host.output()
    finally:
        stop_host(host.proc)


def test_seated_player_plays_on_after_another_leaves(host3: Host) -> None:
    """Two raw players and a bot; one leaves mid-hand, the other plays the hand out.

    The player who stays checks the goodbye as the spectator above does, goes on playing (its
    moves after the ``Away`` are read: a host that, once a person was logged away, kept a
    deadline in the past and starved its connections failed here), sees the host stand in
    for the leaver, and verifies the hand fair with the leaver named.
    """
    leaver = rc.RawClient(
        host3.address, host3.port, host3.fingerprint, name="Leaver", seats=3, leave_after_moves=1
    )
    stayer = rc.RawClient(host3.address, host3.port, host3.fingerprint, name="Stayer", seats=3)
    reports = _run_together(host3, {"leaver": leaver, "stayer": stayer})
    left, stay = reports["leaver"], reports["stayer"]
    _check_goodbye(left, stay, host3)
    _assert_whole_hand(stayer, stay, host3)
    assert stay.verdict is not None
    assert any(left.my_id in x and "left" in x for x in stay.verdict.left), stay.verdict


def _hello(version: int = rc.PROTOCOL_VERSION) -> dict[str, Any]:
    """A new player's ``hello`` with a fresh session key."""
    return {
        "type": "hello",
        "version": version,
        "name": "Probe",
        "key": public(Ed25519PrivateKey.generate()),
        "spectate": True,
        "password": None,
        "token": None,
    }


def _error_for(host: Host, data: bytes, *, after_hello: bool = False) -> dict[str, Any]:
    """Open a pinned connection, (say hello,) write ``data``: the ``error`` it earns.

    After a hello the host's ``welcome``, ``lobby`` and any ``ping`` come first; the error
    must follow before the connection ends.
    """
    conn = rc.Connection(host.address, host.port, host.fingerprint, timeout=10.0)
    deadline = time.monotonic() + 10.0
    try:
        if after_hello:
            conn.send(_hello())
            welcome = conn.recv(deadline)
            assert welcome is not None, host.output()
            assert welcome["type"] == "welcome", welcome
        conn.send_raw(data)
        for _ in range(100):
            answer = conn.recv(deadline)
            assert answer is not None, f"the host closed without an error\n{host.output()}"
            if answer["type"] not in ("lobby", "ping", "chat"):
                assert answer["type"] == "error", answer
                return answer
        raise AssertionError("no error among 100 messages")
    finally:
        conn.close()


def test_host_refuses_bad_frames_and_messages(host: Host) -> None:
    """A v1 ``hello``: ``version_mismatch`` naming both versions; a 0-length frame: ``bad_frame``.

    Also a frame above 64 KiB (``too_big``, judged on its length alone) and a second
    ``hello`` (``unexpected``), from § Framing, § Connection states and § Error codes.
    """
    v1 = _hello() | {"version": 1}
    answer = _error_for(host, rc.frame(msgpack.packb(v1, use_bin_type=True)))
    assert answer["code"] == "version_mismatch", answer
    assert "1" in answer["text"], answer  # the text names both versions
    assert str(rc.PROTOCOL_VERSION) in answer["text"], answer

    answer = _error_for(host, b"\x00\x00\x00\x00")
    assert answer["code"] == "bad_frame", answer

    answer = _error_for(host, rc.u32(rc.MAX_PAYLOAD + 1))
    assert answer["code"] == "too_big", answer

    answer = _error_for(host, rc.frame(rc.encode_message(_hello())), after_hello=True)
    assert answer["code"] == "unexpected", answer
