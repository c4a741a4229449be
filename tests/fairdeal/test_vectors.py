"""The fair deal's known-answer vectors (``protocol/vectors/fair-deal.json`` and
``hand-transcript.json``, written by ``protocol/vectors/gen_fair_deal.py``): the files are
current, and the library computes every label, context, commitment, statement, shuffle, log and
whole hand the vectors hold — checked also against an independent spelling of the spec's
hashing (``tests/fairdeal/handkit.py``)."""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from lanswitch.cards import MAX_CARD, deck_cards
from lanswitch.fairdeal import (
    BY_BOT,
    BY_SEAT,
    BY_STAND_IN,
    BY_TIMEOUT,
    LEFT,
    LOST,
    Announcement,
    Away,
    Back,
    Draw,
    Fault,
    HandSetup,
    Log,
    LogEvent,
    Move,
    Note,
    Round,
    RoundState,
    Shuffle,
    Transcript,
    TurnUp,
    VoidRecord,
    decode_event,
    verify,
)
from lanswitch.fairdeal import keystream as ks
from lanswitch.fairdeal import primitives as fp
from lanswitch.fairdeal.checks import Presence, check_announcement, check_move, check_same_round
from lanswitch.fairdeal.log import log_start
from lanswitch.fairdeal.primitives import DEALER
from tests.fairdeal.handkit import (
    SEATS,
    _enc,
    _hkdf,
    _ikm,
    _label,
    _next_head,
    _sha,
    _u32,
    _words,
    h,
    state,
)
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
VECTORS_PATH = ROOT / "protocol" / "vectors" / "fair-deal.json"
HAND_PATH = ROOT / "protocol" / "vectors" / "hand-transcript.json"
V: dict[str, Any] = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))


# =============================================================================================
# Known-answer vectors


def test_vector_files_are_current() -> None:
    gen = load_script("protocol/vectors/gen_fair_deal.py", "gen_fair_deal")
    hint = "run: python protocol/vectors/gen_fair_deal.py --write"
    assert gen.render() == VECTORS_PATH.read_text(encoding="utf-8"), hint
    assert gen.render_hand() == HAND_PATH.read_text(encoding="utf-8"), hint


def test_labels() -> None:
    names = [
        "hand",
        "round",
        "commit",
        "deck-key",
        "stream",
        "log",
        "log-event",
        "sign/commit",
        "sign/reveal",
        "sign/announce",
        "sign/abort",
        "sign/move",
        "sign/log",
        "sign/cards",
    ]
    assert V["labels"] == fp.LABELS == {n: "lanswitch/v2/" + n for n in names}


def event_of(d: Mapping[str, Any]) -> LogEvent:
    """A log event from its JSON form in the vectors."""
    cls: Callable[..., LogEvent] = {
        "draw": Draw,
        "turnup": TurnUp,
        "move": Move,
        "shuffle": Shuffle,
        "note": Note,
        "away": Away,
        "back": Back,
    }[d["kind"]]
    binary = ("data", "head", "signature")
    return cls(**{k: h(x) if k in binary else x for k, x in d.items() if k != "kind"})


def vector_setup(v: Mapping[str, Any]) -> HandSetup:
    keys = {p: h(k) for p, k in v["keys"].items() if k}
    return HandSetup.from_toml(
        h(v["game_id"]),
        v["hand_no"],
        v["rules"],
        v["seats"],
        keys,
        dealer=v["dealer"],
        out=v["out"],
        turn_timer_ms=v["turn_timer_ms"],
        names=v["names"],
    )


@pytest.mark.parametrize("name", ["hand_52", "hand_106"])
def test_hand_vector(name: str) -> None:
    v = V[name]
    ids = [*v["seats"], DEALER]
    # Keys: every person's and @dealer's from its private key, empty for the host's bots.
    for p, k in v["keys"].items():
        assert k == (
            fp.public_bytes(h(v["private_keys"][p])).hex() if p in v["private_keys"] else ""
        )
    assert list(v["keys"]) == ids
    s = vector_setup(v)
    assert (s.decks, s.jokers) == (v["decks"], v["jokers"])
    # ctx_0, spelled out.
    pre = (
        _label("hand")
        + h(v["game_id"])
        + struct.pack(">IBBB", v["hand_no"], v["decks"], v["jokers"], len(ids))
        + b"".join(_enc(p) + _enc(h(v["keys"][p])) for p in ids)
    )
    assert pre.hex() == v["hand_context_preimage"]
    assert _sha(pre).hex() == v["hand_context"] == s.ctx0.hex()
    keys = {p: h(k) for p, k in v["keys"].items() if k}
    ctx0 = fp.hand_context(h(v["game_id"]), v["hand_no"], v["decks"], v["jokers"], v["seats"], keys)
    assert ctx0 == s.ctx0
    # The setup note, spelled out, and the log's first heads.
    rules_digest = hashlib.sha256(v["rules"].encode()).digest()
    assert rules_digest.hex() == v["rules_sha256"]
    data = rules_digest + bytes([v["dealer"], len(v["out"]), *v["out"]]) + _u32(v["turn_timer_ms"])
    data += bytes([len(v["names"])]) + b"".join(_enc(n.encode("utf-8")) for n in v["names"])
    note = b"\x05" + _enc("setup") + _enc(data)
    assert note.hex() == v["setup_note"] == s.note.encode().hex()
    assert _sha(_label("log"), ctx0).hex() == v["head_0"] == log_start(ctx0).hex()
    assert _next_head(h(v["head_0"]), note).hex() == v["head_1"]
    # Presence events before the deal, then round 0 among the people present.
    log = Log(ctx0, [s.note])
    presence = Presence(s)
    for row in v["before"]:
        ev = event_of(row["event"])
        assert ev.encode().hex() == row["encoding"]
        assert presence.feed(log.count, ev, log.heads) is None
        assert log.append(ev).hex() == row["head"]
    assert (v["count"], v["head"]) == (log.count, log.head.hex())
    assert v["mask"] == presence.present_mask()
    assert list(fp.participants_of(v["seats"], v["mask"])) == v["participants"]
    cards = deck_cards(v["decks"], v["jokers"])
    assert cards == v["cards"]
    assert len(cards) == int(name.split("_")[1])
    r, count, head, mask = v["round"], v["count"], h(v["head"]), v["mask"]
    pre = _label("round") + ctx0 + _u32(r) + _u32(count) + head
    pre += struct.pack(">HH", mask, len(cards)) + bytes(sorted(cards))
    assert pre.hex() == v["round_context_preimage"]
    ctx = fp.round_context(ctx0, r, count, head, mask, cards)
    assert _sha(pre) == ctx
    assert ctx.hex() == v["round_context"]
    # Commitments, key, keystream, order.
    seeds = {p: h(x) for p, x in v["seeds"].items()}
    assert list(seeds) == v["participants"]
    for p in v["participants"]:
        cpre = _label("commit") + ctx + _enc(p) + seeds[p]
        assert cpre.hex() == v["commitment_preimages"][p]
        assert _sha(cpre).hex() == v["commitments"][p]
        assert fp.commitment(ctx, p, seeds[p]).hex() == v["commitments"][p]
    assert sorted(v["participants"], key=str.encode) == v["ikm_order"]
    assert _ikm(seeds).hex() == v["ikm"]
    assert _label("deck-key").hex() == v["deck_key_info"]
    key = _hkdf(ctx, _ikm(seeds), _label("deck-key"))
    assert key.hex() == v["deck_key"] == fp.deck_key(ctx, seeds).hex()
    for k in (0, 1):
        block = hmac.new(key, _label("stream") + _u32(k), "sha256").digest()
        assert block.hex() == v[f"stream_block_{k}"] == ks.stream_block(key, k).hex()
    words = ks.stream_words(key)
    assert [next(words) for _ in range(8)] == v["stream_words_0"]
    assert list(struct.unpack(">8I", h(v["stream_block_0"]))) == v["stream_words_0"]
    assert ks.shuffle_words(cards, _words(key)) == v["order"]
    assert ks.shuffle_words(cards, ks.stream_words(key)) == v["order"]
    assert ks.shuffle(key, cards) == v["order"]
    assert ks.derive_order(ctx, seeds, cards) == v["order"]
    # The host's Round derives the same order from signed messages.
    priv = {p: h(k) for p, k in v["private_keys"].items()}
    rnd = Round(ctx, v["participants"], keys)
    for p in [DEALER, *v["participants"][:-1]]:
        c = h(v["commitments"][p])
        rnd.commit(p, c, fp.sign(priv[p], fp.commitment_message(ctx, p, c)))
    for p in v["participants"]:
        c = h(v["commitments"][p])
        rnd.reveal(p, seeds[p], fp.sign(priv[p], fp.reveal_message(ctx, p, c, seeds[p])))
    assert rnd.order(cards) == v["order"]


def vector_log() -> tuple[HandSetup, Log, Presence]:
    """hand_52's log with the log vector's events, checked as a seat checks them live."""
    s = vector_setup(V["hand_52"])
    v = V["log"]
    log = Log(s.ctx0, [s.note])
    assert v["first"] == log.count == 1
    presence = Presence(s)
    for row in v["events"]:
        ev = event_of(row["event"])
        k = log.count
        if isinstance(ev, Move):
            assert check_move(s, presence, k, log.head, ev) is None, row
        else:
            assert presence.feed(k, ev, log.heads) is None, row
        log.append(ev)
    return s, log, presence


def test_log_vector() -> None:
    v = V["log"]
    s = vector_setup(V["hand_52"])
    assert v["hand_context"] == s.ctx0.hex()
    assert v["head_0"] == log_start(s.ctx0).hex()
    head = _next_head(h(v["head_0"]), s.note.encode())
    log = Log(s.ctx0, [s.note])
    keys = {p: h(k) for p, k in V["hand_52"]["keys"].items() if k}
    for row in v["events"]:
        ev = event_of(row["event"])
        data = h(row["encoding"])
        assert ev.encode() == data
        assert decode_event(data) == ev
        if isinstance(ev, Move):
            # The statement the move is signed over: the log before it, spelled out.
            stmt = _label("sign/move") + s.ctx0 + _u32(log.count) + head
            stmt += bytes([ev.seat, ev.by]) + _u32(ev.move)
            assert stmt.hex() == row["statement"]
            assert row["signer"] == (SEATS[ev.seat] if ev.by == BY_SEAT else DEALER)
            assert fp.verify(keys[row["signer"]], stmt, ev.signature)
        elif isinstance(ev, Away) and ev.how == LEFT:
            stmt = _label("sign/log") + s.ctx0 + _enc(SEATS[ev.seat]) + _u32(ev.count) + ev.head
            assert stmt.hex() == row["statement"]
            assert ev.head == log.heads[ev.count]
            assert fp.verify(keys[SEATS[ev.seat]], stmt, ev.signature)
        head = _next_head(head, data)
        assert head.hex() == row["head"]
        assert log.append(ev) == head
    assert log.head.hex() == v["final_head"]
    assert log.count == v["count"]
    # One event of every kind (the setup note is event 0), every maker, both ways to go away.
    events = [s.note, *(event_of(r["event"]) for r in v["events"])]
    assert {type(e) for e in events} == {Draw, TurnUp, Move, Shuffle, Note, Away, Back}
    assert {e.by for e in events if isinstance(e, Move)} == {
        BY_SEAT,
        BY_BOT,
        BY_STAND_IN,
        BY_TIMEOUT,
    }
    assert {e.how for e in events if isinstance(e, Away)} == {LEFT, LOST}
    # And the seat's live checks accept every event of it.
    _, checked, presence = vector_log()
    assert checked.head == log.head
    assert presence.present_mask() == 0b0011  # dave left; bob was lost and came back


def test_reshuffle_vector() -> None:
    v = V["reshuffle"]
    s, log, presence = vector_log()
    ctx0, r = s.ctx0, v["round"]
    # Announced where the log vector ends, among the people present, over the discard pile
    # under its top card.
    assert (v["count"], v["head"]) == (log.count, log.head.hex())
    assert v["mask"] == presence.present_mask()
    pile = [c for c in map(_laid, log.events) if c is not None]
    assert v["cards"] == sorted(pile[:-1])
    cards, head = v["cards"], log.head
    pre = _label("round") + ctx0 + _u32(r) + _u32(log.count) + head
    pre += struct.pack(">HH", v["mask"], len(cards)) + bytes(cards)
    assert pre.hex() == v["round_context_preimage"]
    ctx = fp.round_context(ctx0, r, log.count, head, v["mask"], reversed(cards))
    assert _sha(pre) == ctx
    assert ctx.hex() == v["round_context"]
    ps = fp.participants_of(s.seats, v["mask"])
    assert list(ps) == v["participants"] == ["alice", "bob", DEALER]
    seeds = {p: h(x) for p, x in v["seeds"].items()}
    c = {p: h(x) for p, x in v["commitments"].items()}
    for p in ps:
        assert _sha(_label("commit"), ctx, _enc(p), seeds[p]) == c[p]
    key = _hkdf(ctx, _ikm(seeds), _label("deck-key"))
    assert key.hex() == v["deck_key"]
    assert ks.shuffle_words(cards, _words(key)) == v["order"] == ks.shuffle(key, cards)
    # The whole signed flow, through the host's Round and the seat's checks.
    dealer_key = s.keys[DEALER]
    rnd = Round(ctx, ps, s.keys)
    sigs = {p: h(v["commits"][p]["signature"]) for p in ps}
    for p in ps:
        msg = _label("sign/commit") + ctx + _enc(p) + c[p]
        assert msg.hex() == v["commits"][p]["message"]
        assert fp.commitment_message(ctx, p, c[p]) == msg
    stage1 = {DEALER: (c[DEALER], sigs[DEALER])}
    ann1 = Announcement(
        r, False, ctx, tuple(cards), v["mask"], stage1, h(v["announce_1"]["signature"])
    )
    stmt1 = _label("sign/announce") + ctx0 + _u32(r) + b"\x01" + ctx + b"\x01"
    stmt1 += _enc(DEALER) + _enc(c[DEALER])
    assert stmt1.hex() == v["announce_1"]["message"] == ann1.message(ctx0).hex()
    assert ann1.signed_by(dealer_key, ctx0)
    assert check_announcement(s, ann1, log.count, head, presence.present_mask()) is None
    assert rnd.commit(DEALER, c[DEALER], sigs[DEALER]) is False
    assert rnd.commit("alice", c["alice"], sigs["alice"]) is False
    assert rnd.commit("bob", c["bob"], sigs["bob"]) is True
    ann3 = Announcement(
        r, True, ctx, tuple(cards), v["mask"], rnd.commitments, h(v["announce_3"]["signature"])
    )
    stmt3 = _label("sign/announce") + ctx0 + _u32(r) + b"\x03" + ctx + b"\x03"
    stmt3 += b"".join(_enc(p) + _enc(c[p]) for p in ps)
    assert stmt3.hex() == v["announce_3"]["message"] == ann3.message(ctx0).hex()
    assert ann3.signed_by(dealer_key, ctx0)
    assert check_announcement(s, ann3, log.count, head, presence.present_mask()) is None
    assert check_same_round(ann1, ann3) is None
    for i, p in enumerate(ps):
        rev = v["reveals"][p]
        msg = _label("sign/reveal") + ctx + _enc(p) + c[p] + _enc(seeds[p])
        assert msg.hex() == rev["message"]
        assert rnd.reveal(p, seeds[p], h(rev["signature"])) is (i == len(ps) - 1)
    assert rnd.order(cards) == v["order"]
    rnd.deal()
    assert state(rnd) is RoundState.DEALT


def _laid(e: LogEvent) -> int | None:
    """The card ``e`` puts on the discard pile (a turn-up, a card laid), if any."""
    if isinstance(e, TurnUp):
        return e.card
    if isinstance(e, Move) and e.move < MAX_CARD:
        return e.move
    return None


def test_signature_vector() -> None:
    v = V["signature"]
    s = vector_setup(V["hand_52"])
    ctx0 = s.ctx0
    priv = {p: h(k) for p, k in V["hand_52"]["private_keys"].items()}
    rs = V["reshuffle"]
    ctx, r = h(rs["round_context"]), rs["round"]
    c = {p: h(x) for p, x in rs["commitments"].items()}
    csig = {p: h(x["signature"]) for p, x in rs["commits"].items()}
    alice_seed = h(rs["seeds"]["alice"])
    ab = v["abort"]
    mv = v["move"]
    lh = v["log_head"]
    cards = v["cards"]
    rebuilt: dict[str, bytes] = {
        "commit": fp.commitment_message(ctx, "alice", c["alice"]),
        "reveal": fp.reveal_message(ctx, "alice", c["alice"], alice_seed),
        "announce_1": fp.announce_message(ctx0, r, False, ctx, {DEALER: c[DEALER]}),
        "announce_3": fp.announce_message(ctx0, r, True, ctx, c),
        "abort": fp.abort_message(ctx0, r, ab["fault"], ab["culprits"], c),
        "move": fp.move_message(ctx0, mv["count"], h(mv["head"]), mv["seat"], mv["by"], mv["move"]),
        "log_head": fp.log_head_message(ctx0, DEALER, lh["count"], h(lh["head"])),
        "log_head_alice": fp.log_head_message(ctx0, "alice", lh["count"], h(lh["head"])),
        "cards": fp.cards_message(ctx0, cards["seat"], cards["cards"]),
    }
    assert set(rebuilt) == set(v) - {"public_keys"}
    labels = {
        "commit": "sign/commit",
        "reveal": "sign/reveal",
        "announce_1": "sign/announce",
        "announce_3": "sign/announce",
        "abort": "sign/abort",
        "move": "sign/move",
        "log_head": "sign/log",
        "log_head_alice": "sign/log",
        "cards": "sign/cards",
    }
    for name, msg in rebuilt.items():
        entry = v[name]
        assert msg.hex() == entry["message"], name
        assert msg.startswith(
            _label(labels[name]) + (ctx if name in ("commit", "reveal") else ctx0)
        )
        signer = entry["signer"]
        assert v["public_keys"][signer] == fp.public_bytes(priv[signer]).hex()
        assert fp.sign(priv[signer], msg).hex() == entry["signature"]  # Ed25519 is deterministic
        assert fp.verify(h(v["public_keys"][signer]), msg, h(entry["signature"]))
    # The statements spelled out, field by field.
    abort = _label("sign/abort") + ctx0 + _u32(r) + _enc(ab["fault"]) + bytes([len(ab["culprits"])])
    abort += b"".join(_enc(x) for x in ab["culprits"]) + bytes([len(c)])
    abort += b"".join(_enc(p) + _enc(c[p]) for p in c)
    assert abort.hex() == ab["message"]
    cards_stmt = (
        _label("sign/cards") + ctx0 + _enc("alice") + struct.pack(">H", len(cards["cards"]))
    )
    assert (cards_stmt + bytes(cards["cards"])).hex() == cards["message"]
    head_stmt = _label("sign/log") + ctx0 + _enc(DEALER) + _u32(lh["count"]) + h(lh["head"])
    assert head_stmt.hex() == lh["message"]
    assert (lh["count"], lh["head"]) == (V["log"]["count"], V["log"]["final_head"])
    assert cards["cards"] == V["hand_52"]["order"][:5]
    # The abort is the host's VoidRecord of the reshuffle round.
    void = VoidRecord(
        r,
        Fault.MISSING_REVEAL,
        tuple(ab["culprits"]),
        {p: (c[p], csig[p]) for p in c},
        h(ab["signature"]),
    )
    assert void.message(ctx0) == h(ab["message"])
    assert void.signed_by(s.keys[DEALER], ctx0)
    # The cards signature covers the seat, every card and their order.
    sig = h(cards["signature"])
    dealer_key = s.keys[DEALER]
    for seat, dealt in [
        ("alice", cards["cards"]),
        ("bob", cards["cards"]),
        ("alice", cards["cards"][::-1]),
        ("alice", cards["cards"][:-1]),
        ("alice", [*cards["cards"], 0]),
    ]:
        ok = fp.verify(dealer_key, fp.cards_message(ctx0, seat, dealt), sig)
        assert ok == (seat == "alice" and dealt == cards["cards"])


def test_rejection_vector() -> None:
    v = V["rejection"]
    assert ks.shuffle_words(v["cards"], iter(v["words"])) == v["order"]
    for n, limit in v["limits"].items():
        assert ks.rejection_limit(int(n)) == limit == 2**32 - 2**32 % int(n)
    # The stream needs one word more than the shuffle's m − 1: the third word is rejected.
    assert len(v["words"]) == len(v["cards"])
    assert v["words"][2] >= v["limits"]["3"]


def test_whole_hand_vector() -> None:
    v = V["hand"]
    assert v["file"] == HAND_PATH.name
    t = Transcript.from_json(HAND_PATH.read_text(encoding="utf-8"))
    verdict = verify(t)
    assert verdict.fair, verdict.text()
    assert (verdict.status, verdict.outcome) == (v["status"], v["outcome"])
    s = t.setup
    assert s.ctx0.hex() == v["hand_context"]
    assert s.note.encode().hex() == v["setup_note"] == t.log[0].encode().hex()
    assert hashlib.sha256(s.rules_toml.encode()).hexdigest() == v["rules_sha256"]
    for p, k in v["private_keys"].items():
        assert fp.public_bytes(h(k)) == s.keys[p]
    assert set(s.keys) == {*v["private_keys"]} == {"alice", "bob", DEALER}
    # The head chain, spelled out.
    head = _sha(_label("log"), s.ctx0)
    heads = [head]
    for ev in t.log:
        head = _next_head(head, ev.encode())
        heads.append(head)
    assert (len(t.log), head.hex()) == (v["count"], v["final_head"])
    assert t.log_heads[DEALER].head == head
    # Every maker: alice and bob move for themselves, the host for its bot.
    assert {(e.seat, e.by) for e in t.log if isinstance(e, Move)} == {
        (0, BY_SEAT),
        (1, BY_SEAT),
        (2, BY_BOT),
    }
    # The stock, replayed from the log with every round re-derived from its seeds.
    assert len(v["rounds"]) == len(v["orders"]) == len(t.rounds) == 2
    by_round = {rec.round: rec for rec in t.rounds}
    stock: list[int] = []
    pile: list[int] = []
    mine: list[int] = []
    dealt = 0
    for k, ev in enumerate(t.log):
        if isinstance(ev, Shuffle):
            rec, want = by_round[ev.round], v["rounds"][dealt]
            cards = deck_cards(s.decks, s.jokers) if dealt == 0 else sorted(pile[:-1])
            assert list(rec.first.cards) == cards
            assert (want["round"], want["at"], want["mask"], rec.at) == (ev.round, k, ev.mask, k)
            ctx = fp.round_context(s.ctx0, ev.round, k, heads[k], ev.mask, cards)
            assert ctx == rec.first.ctx
            assert ctx.hex() == want["round_context"]
            seeds = {p: sd for p, (sd, _) in rec.seeds.items()}
            assert list(seeds) == want["participants"] == list(fp.participants_of(s.seats, ev.mask))
            stock = ks.shuffle_words(cards, _words(_hkdf(ctx, _ikm(seeds), _label("deck-key"))))
            assert stock == want["order"] == v["orders"][dealt]
            pile = pile[-1:]
            dealt += 1
        elif isinstance(ev, Draw):
            if ev.seat == t.seat:
                mine += stock[: ev.n]
            del stock[: ev.n]
        elif isinstance(ev, TurnUp):
            assert stock.pop(0) == ev.card
            pile.append(ev.card)
        elif (card := _laid(ev)) is not None:
            pile.append(card)
    assert dealt == 2
    assert mine == v["seat_cards"] == list(t.cards)
