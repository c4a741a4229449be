"""The fair deal's cryptographic core: vectors, the round state machine, ids, the shuffle's
rejection bound and uniformity, the log, signatures."""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from lanswitch import fairness as fz
from lanswitch.cards import MAX_CARD, deck_cards
from lanswitch.fairness import (
    DEALER,
    Blame,
    Fault,
    Round,
    RoundState,
    UsageError,
)
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
VECTORS_PATH = ROOT / "protocol" / "vectors" / "fair-deal.json"
V: dict[str, Any] = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))

SEATS = ["alice", "bob", "carol", "dave"]
GAME = bytes(range(16))


def h(s: str) -> bytes:
    return bytes.fromhex(s)


def seed(i: int) -> bytes:
    return hashlib.sha256(b"test seed %d" % i).digest()


def inputs(
    ids: list[str] = SEATS, hand_no: int = 1
) -> tuple[bytes, dict[str, bytes], dict[str, bytes]]:
    ctx = fz.hand_context(GAME, hand_no, 1, 0, ids)
    seeds = {p: seed(i + 100 * hand_no) for i, p in enumerate(fz.participants(ids))}
    commits = {p: fz.commitment(ctx, p, s) for p, s in seeds.items()}
    return ctx, seeds, commits


def state(rnd: Round) -> RoundState:
    """``rnd.state``, un-narrowed (mypy would otherwise keep the type of an earlier check)."""
    return rnd.state


def key_of(i: int) -> Ed25519PrivateKey:
    return fz.private_key(hashlib.sha256(b"key %d" % i).digest())


# ---------------------------------------------------------------------------------------------
# Known-answer vectors


def test_vectors_file_is_current() -> None:
    gen = load_script("protocol/vectors/gen_fair_deal.py", "gen_fair_deal")
    assert gen.render() == VECTORS_PATH.read_text(encoding="utf-8"), (
        "run: python protocol/vectors/gen_fair_deal.py --write"
    )


def test_labels() -> None:
    assert V["labels"] == fz.LABELS
    assert all(v == "lanswitch/v1/" + k for k, v in fz.LABELS.items())


@pytest.mark.parametrize("name", ["hand_52", "hand_104"])
def test_hand_vector(name: str) -> None:
    v = V[name]
    game_id = h(v["game_id"])
    ctx = fz.hand_context(game_id, v["hand_no"], v["decks"], v["jokers"], v["seats"])
    assert list(fz.participants(v["seats"])) == v["participants"]
    assert hashlib.sha256(h(v["context_preimage"])).digest() == ctx
    assert ctx.hex() == v["context"]
    seeds = {p: h(s) for p, s in v["seeds"].items()}
    for p in v["participants"]:
        assert hashlib.sha256(h(v["commitment_preimages"][p])).hexdigest() == v["commitments"][p]
        assert fz.commitment(ctx, p, seeds[p]).hex() == v["commitments"][p]
    assert sorted(v["participants"], key=str.encode) == v["ikm_order"]
    assert fz._ikm(seeds).hex() == v["ikm"]
    assert fz.enc(fz.LABELS["deck-key"]).hex() == v["deck_key_info"]
    key = fz.deck_key(ctx, seeds)
    assert key.hex() == v["deck_key"]
    assert fz.stream_block(key, 0).hex() == v["stream_block_0"]
    assert fz.stream_block(key, 1).hex() == v["stream_block_1"]
    words = fz.stream_words(key)
    assert [next(words) for _ in range(8)] == v["stream_words_0"]
    cards = deck_cards(v["decks"], v["jokers"])
    assert cards == v["cards"]
    assert len(cards) == {"hand_52": 52, "hand_104": 104}[name]
    assert fz.shuffle(key, cards) == v["order"]
    assert fz.shuffle_words(cards, fz.stream_words(key)) == v["order"]
    assert fz.derive_order(ctx, seeds, cards) == v["order"]
    # The state machine derives the same order.
    rnd = Round(ctx, v["seats"])
    for p in v["participants"]:
        rnd.commit(p, h(v["commitments"][p]))
    for p in v["participants"]:
        rnd.reveal(p, seeds[p])
    assert rnd.order(cards) == v["order"]
    assert fz.open_round(ctx, v["seats"], rnd.commitments, seeds) == key


def test_reshuffle_vector() -> None:
    v = V["reshuffle"]
    ctx0 = h(v["context_0"])
    ctx = fz.reshuffle_context(ctx0, v["round"], h(v["log_head"]), v["discard"])
    assert hashlib.sha256(h(v["context_preimage"])).digest() == ctx
    assert ctx.hex() == v["context"]
    # The discard pile may come in any order; the context sorts it.
    assert fz.reshuffle_context(ctx0, 1, h(v["log_head"]), reversed(v["discard"])) == ctx
    seeds = {p: h(s) for p, s in v["seeds"].items()}
    for p, s in seeds.items():
        assert fz.commitment(ctx, p, s).hex() == v["commitments"][p]
    key = fz.deck_key(ctx, seeds)
    assert key.hex() == v["deck_key"]
    assert fz.shuffle(key, v["discard"]) == v["order"]
    # The log head it is bound to is the one before the log's Reshuffle event.
    assert v["log_head"] == V["log"]["events"][-2]["head"]


def _event(d: dict[str, Any]) -> fz.LogEvent:
    cls = {
        "draw": fz.Draw,
        "turnup": fz.TurnUp,
        "play": fz.Play,
        "reshuffle": fz.Reshuffle,
        "suit": fz.Suit,
        "action": fz.Action,
        "note": fz.Note,
    }[d["kind"]]
    args = {k: (h(x) if k == "data" else x) for k, x in d.items() if k != "kind"}
    return cls(**args)  # type: ignore[no-any-return]


def test_log_vector() -> None:
    v = V["log"]
    ctx0 = h(v["context"])
    assert fz.log_start(ctx0).hex() == v["head_0"]
    log = fz.Log(ctx0)
    head = h(v["head_0"])
    for row in v["events"]:
        ev = _event(row["event"])
        assert fz.encode_event(ev).hex() == row["encoding"]
        assert fz.decode_event(h(row["encoding"])) == ev
        head = fz.log_step(head, h(row["encoding"]))
        assert head.hex() == row["head"]
        assert log.append(ev).hex() == row["head"]
    assert log.head.hex() == v["final_head"]
    assert log.count == v["count"]
    assert fz.log_head(ctx0, log.events).hex() == v["final_head"]
    assert {row["event"]["kind"] for row in v["events"]} == {
        "draw",
        "turnup",
        "play",
        "reshuffle",
        "suit",
        "action",
        "note",
    }


def test_signature_vector() -> None:
    v = V["signature"]
    sk = h(v["private_key"])
    assert fz.public_bytes(sk).hex() == v["public_key"]
    ctx, pid, count, head = h(v["context"]), v["signer"], v["count"], h(v["head"])
    msgs = {
        "commitment": fz.commitment_message(ctx, pid, h(v["commitment"])),
        "reveal": fz.reveal_message(ctx, pid, h(v["commitment"]), h(v["seed"])),
        "log_head": fz.log_head_message(ctx, pid, count, head),
        "cards": fz.cards_message(ctx, v["cards_seat"], v["cards"]),
    }
    assert set(msgs) == set(v["messages"])
    for name, msg in msgs.items():
        assert msg.hex() == v["messages"][name]
        assert fz.sign(sk, msg).hex() == v["signatures"][name]  # Ed25519 is deterministic
        assert fz.verify(h(v["public_key"]), msg, h(v["signatures"][name]))
    assert v["head"] == V["log"]["final_head"]
    assert count == V["log"]["count"]
    sig = h(v["signatures"]["log_head"])
    assert fz.sign_log_head(sk, ctx, pid, count, head) == sig
    assert fz.verify_log_head(h(v["public_key"]), ctx, pid, count, head, sig)
    cards_sig = h(v["signatures"]["cards"])
    assert fz.sign_cards(sk, ctx, v["cards_seat"], v["cards"]) == cards_sig
    assert fz.verify_cards(h(v["public_key"]), ctx, v["cards_seat"], v["cards"], cards_sig)
    # The signature covers the seat, every card and their order.
    cards = v["cards"]
    for other_seat, other_cards in [
        ("bob", cards),
        (v["cards_seat"], cards[::-1]),
        (v["cards_seat"], cards[:-1]),
        (v["cards_seat"], [*cards, 0]),
    ]:
        assert not fz.verify_cards(h(v["public_key"]), ctx, other_seat, other_cards, cards_sig)


@pytest.mark.parametrize("cards", [b"\x01", "ab", [MAX_CARD], [-1], [1.5], [0] * 0x10000])
def test_cards_message_rejects_what_is_not_a_list_of_card_ids(cards: Any) -> None:
    with pytest.raises(UsageError):
        fz.cards_message(bytes(32), "alice", cards)
    with pytest.raises(UsageError):
        fz.cards_message(bytes(32), DEALER, [1])  # the host signs cards; it is dealt none


def test_rejection_vector() -> None:
    v = V["rejection"]
    assert fz.shuffle_words(v["cards"], iter(v["words"])) == v["order"]
    for n, limit in v["limits"].items():
        assert fz.rejection_limit(int(n)) == limit


# ---------------------------------------------------------------------------------------------
# Participant ids and contexts


@pytest.mark.parametrize("pid", ["a", "Z", "0", "-", "_", "bob-2", "carol_9", "x" * 32])
def test_valid_ids(pid: str) -> None:
    assert fz.is_valid_id(pid)
    assert fz.check_id(pid) == pid


@pytest.mark.parametrize(
    "pid",
    ["", "x" * 33, DEALER, "@x", "a b", "a.b", "é", "٣", "bob\n", "a/b", "ａ"],
)
def test_invalid_ids(pid: str) -> None:
    assert not fz.is_valid_id(pid)
    with pytest.raises(UsageError):
        fz.check_id(pid)


def test_dealer_is_reserved_and_last() -> None:
    assert fz.check_id(DEALER, dealer_ok=True) == DEALER
    assert fz.participants(["b", "a"]) == ("b", "a", DEALER)
    with pytest.raises(UsageError):
        fz.participants(["a", DEALER])
    with pytest.raises(UsageError):
        fz.participants(["a", "a"])
    with pytest.raises(UsageError):
        fz.participants([])
    with pytest.raises(UsageError):
        fz.participants("ab")
    many = [f"s{i}" for i in range(254)]
    assert len(fz.participants(many)) == fz.MAX_PARTICIPANTS == 255
    with pytest.raises(UsageError):
        fz.participants([*many, "one-more"])


def test_context_binds_every_field() -> None:
    base = fz.hand_context(GAME, 1, 1, 0, SEATS)
    variants = [
        fz.hand_context(bytes(16), 1, 1, 0, SEATS),
        fz.hand_context(GAME, 2, 1, 0, SEATS),
        fz.hand_context(GAME, 1, 2, 0, SEATS),
        fz.hand_context(GAME, 1, 1, 2, SEATS),
        fz.hand_context(GAME, 1, 1, 0, list(reversed(SEATS))),
        fz.hand_context(GAME, 1, 1, 0, SEATS[:3]),
        fz.hand_context(GAME, 1, 1, 0, ["alicebob", "carol", "dave"]),
    ]
    assert len({base, *variants}) == 1 + len(variants)
    head = fz.log_start(base)
    r1 = fz.reshuffle_context(base, 1, head, [1, 2, 3])
    assert len({r1, fz.reshuffle_context(base, 2, head, [1, 2, 3])}) == 2
    assert len({r1, fz.reshuffle_context(base, 1, bytes(32), [1, 2, 3])}) == 2
    assert len({r1, fz.reshuffle_context(base, 1, head, [1, 2, 4])}) == 2
    assert len({r1, fz.reshuffle_context(variants[0], 1, head, [1, 2, 3])}) == 2


@pytest.mark.parametrize(
    "args",
    [
        (bytes(15), 1, 1, 0, SEATS),
        (GAME, -1, 1, 0, SEATS),
        (GAME, 2**32, 1, 0, SEATS),
        (GAME, 1, 0, 0, SEATS),
        (GAME, 1, 3, 0, SEATS),
        (GAME, 1, 1, 5, SEATS),
        (GAME, 1, 1, 0, ["ok", "not ok"]),
    ],
)
def test_context_rejects_bad_arguments(args: tuple[Any, ...]) -> None:
    with pytest.raises(UsageError):
        fz.hand_context(*args)


def test_bad_arguments_elsewhere() -> None:
    ctx = fz.hand_context(GAME, 1, 1, 0, SEATS)
    head = fz.log_start(ctx)
    with pytest.raises(UsageError):
        fz.reshuffle_context(ctx, 0, head, [1])
    with pytest.raises(UsageError):
        fz.reshuffle_context(ctx, 1, head, [])
    with pytest.raises(UsageError):
        fz.reshuffle_context(ctx, 1, head, [1, 1])
    with pytest.raises(UsageError):
        fz.commitment(ctx, "alice", bytes(31))
    with pytest.raises(UsageError):
        fz.commitment(ctx, "al ice", bytes(32))
    with pytest.raises(UsageError):
        fz.deck_key(ctx, {})
    with pytest.raises(UsageError):
        fz.shuffle(bytes(32), [0, 108])
    with pytest.raises(UsageError):
        fz.shuffle(bytes(32), [0, -1])
    with pytest.raises(UsageError):
        fz.shuffle(bytes(32), [3, 3])
    with pytest.raises(UsageError):
        fz.shuffle(bytes(31), [1, 2])
    with pytest.raises(UsageError):
        fz.enc(bytes(70000))
    with pytest.raises(UsageError):
        fz.enc("é")


def test_deck_key_sorts_by_id_bytes_not_insertion_order() -> None:
    ctx, seeds, _ = inputs(["b", "A", "_", "0", "-"])
    assert fz.deck_key(ctx, seeds) == fz.deck_key(ctx, dict(reversed(seeds.items())))
    assert fz._ikm(seeds).startswith(fz.enc("-"))
    # Every seed matters.
    for p in seeds:
        other = dict(seeds, **{p: bytes(32)})
        assert fz.deck_key(ctx, other) != fz.deck_key(ctx, seeds)


# ---------------------------------------------------------------------------------------------
# The round state machine


def test_round_happy_path() -> None:
    ctx, seeds, commits = inputs()
    rnd = Round(ctx, SEATS)
    assert rnd.participants == (*SEATS, DEALER)
    assert state(rnd) == RoundState.COMMIT
    assert rnd.waiting_for() == rnd.participants
    for p in reversed(rnd.participants):  # arrival order does not matter
        rnd.commit(p, commits[p])
    assert state(rnd) == RoundState.REVEAL
    assert list(rnd.commitments) == list(rnd.participants)
    fz.check_announced(ctx, SEATS, rnd.commitments, own_id="bob", own_commitment=commits["bob"])
    with pytest.raises(UsageError):
        _ = rnd.key
    for p in rnd.participants:
        rnd.reveal(p, seeds[p])
    assert state(rnd) == RoundState.DONE
    assert rnd.waiting_for() == ()
    assert rnd.key == fz.deck_key(ctx, seeds)
    assert rnd.seeds == seeds
    cards = deck_cards(1, 0)
    assert rnd.order(cards) == fz.derive_order(ctx, seeds, cards)
    assert sorted(rnd.order(cards)) == cards
    with pytest.raises(UsageError):
        rnd.reveal("alice", seeds["alice"])
    with pytest.raises(UsageError):
        rnd.commit("alice", commits["alice"])
    with pytest.raises(UsageError):
        rnd.abandon()


def test_duplicate_commit_is_rejected_and_changes_nothing() -> None:
    ctx, _, commits = inputs()
    rnd = Round(ctx, SEATS)
    rnd.commit("alice", commits["alice"])
    with pytest.raises(Blame) as e:
        rnd.commit("alice", commits["bob"])
    assert e.value.fault == Fault.DUPLICATE_COMMITMENT
    assert e.value.pid == "alice"
    assert rnd.commitments == {"alice": commits["alice"]}
    for p in ("bob", "carol", "dave", DEALER):
        rnd.commit(p, commits[p])
    with pytest.raises(Blame) as e:  # still a duplicate once everyone is in
        rnd.commit("dave", commits["dave"])
    assert e.value.fault == Fault.DUPLICATE_COMMITMENT


def test_unknown_id_and_bad_length() -> None:
    ctx, seeds, commits = inputs()
    rnd = Round(ctx, SEATS)
    for pid in ("mallory", "not valid", "@host"):
        with pytest.raises(Blame) as e:
            rnd.commit(pid, commits["alice"])
        assert e.value.fault == Fault.UNKNOWN_PARTICIPANT
        assert e.value.culprits == (pid,)
    for bad in (b"", bytes(31), bytes(33), "0" * 32):
        with pytest.raises(Blame) as e:
            rnd.commit("alice", bad)  # type: ignore[arg-type]
        assert e.value.fault == Fault.BAD_COMMITMENT
    assert rnd.commitments == {}
    for p in rnd.participants:
        rnd.commit(p, commits[p])
    with pytest.raises(Blame) as e:
        rnd.reveal("mallory", seeds["alice"])
    assert e.value.fault == Fault.UNKNOWN_PARTICIPANT


def test_early_and_duplicate_reveals() -> None:
    ctx, seeds, commits = inputs()
    rnd = Round(ctx, SEATS)
    rnd.commit("alice", commits["alice"])
    with pytest.raises(Blame) as e:
        rnd.reveal("alice", seeds["alice"])
    assert e.value.fault == Fault.EARLY_REVEAL
    assert state(rnd) == RoundState.COMMIT
    for p in rnd.participants[1:]:
        rnd.commit(p, commits[p])
    rnd.reveal("alice", seeds["alice"])
    with pytest.raises(Blame) as e:
        rnd.reveal("alice", seeds["alice"])
    assert e.value.fault == Fault.DUPLICATE_REVEAL
    assert state(rnd) == RoundState.REVEAL


@pytest.mark.parametrize("bad", [bytes(32), b"short", b"", "tampered"])
def test_reveal_that_does_not_open_blames_that_id(bad: Any) -> None:
    ctx, seeds, commits = inputs()
    rnd = Round(ctx, SEATS)
    for p in rnd.participants:
        rnd.commit(p, commits[p])
    rnd.reveal("alice", seeds["alice"])
    if bad == "tampered":
        bad = bytes([seeds["carol"][0] ^ 1]) + seeds["carol"][1:]
    with pytest.raises(Blame) as e:
        rnd.reveal("carol", bad)
    assert e.value.fault == Fault.BAD_REVEAL
    assert e.value.culprits == ("carol",)
    assert state(rnd) == RoundState.FAILED
    assert rnd.blame is e.value
    assert rnd.bad_seed == bad
    # The round is over: no more seeds, and no key.
    with pytest.raises(UsageError):
        rnd.reveal("bob", seeds["bob"])
    with pytest.raises(UsageError):
        rnd.order([1, 2, 3])
    assert rnd.abandon() is e.value
    # The same story from a transcript: open_round blames carol too.
    with pytest.raises(Blame) as e2:
        fz.open_round(ctx, SEATS, commits, dict(seeds, carol=bad))
    assert e2.value.fault == Fault.BAD_REVEAL
    assert e2.value.culprits == ("carol",)


def test_abandon_blames_whoever_is_missing() -> None:
    ctx, seeds, commits = inputs()
    rnd = Round(ctx, SEATS)
    rnd.commit("bob", commits["bob"])
    rnd.commit(DEALER, commits[DEALER])
    blame = rnd.abandon()
    assert blame.fault == Fault.MISSING_COMMITMENT
    assert blame.culprits == ("alice", "carol", "dave")
    assert state(rnd) == RoundState.FAILED

    rnd = Round(ctx, SEATS)
    for p in rnd.participants:
        rnd.commit(p, commits[p])
    for p in ("alice", "carol", DEALER):
        rnd.reveal(p, seeds[p])
    assert rnd.waiting_for() == ("bob", "dave")
    blame = rnd.abandon()
    assert blame.fault == Fault.MISSING_REVEAL
    assert blame.culprits == ("bob", "dave")
    assert "bob, dave did not reveal" in str(blame)


def test_copied_commitment_is_caught() -> None:
    ctx, seeds, commits = inputs()
    # Copied at once: rejected on arrival.
    rnd = Round(ctx, SEATS)
    rnd.commit("alice", commits["alice"])
    with pytest.raises(Blame) as e:
        rnd.commit("bob", commits["alice"])
    assert e.value.fault == Fault.COPIED_COMMITMENT
    assert e.value.culprits == ("bob",)
    # Even knowing alice's seed, bob cannot open alice's commitment: it is bound to her id.
    assert fz.commitment(ctx, "bob", seeds["alice"]) != commits["alice"]
    with pytest.raises(Blame) as e:
        fz.open_round(
            ctx, SEATS, dict(commits, bob=commits["alice"]), dict(seeds, bob=seeds["alice"])
        )
    assert e.value.fault == Fault.BAD_REVEAL
    assert e.value.culprits == ("bob",)


def test_commitment_from_another_hand_does_not_open() -> None:
    ctx1, seeds1, commits1 = inputs(hand_no=1)
    ctx2, seeds2, commits2 = inputs(hand_no=2)
    assert ctx1 != ctx2
    # dave replays his commitment and seed from hand 1 in hand 2.
    rnd = Round(ctx2, SEATS)
    for p in rnd.participants:
        rnd.commit(p, commits1["dave"] if p == "dave" else commits2[p])
    for p in ("alice", "bob", "carol", DEALER):
        rnd.reveal(p, seeds2[p])
    with pytest.raises(Blame) as e:
        rnd.reveal("dave", seeds1["dave"])
    assert e.value.fault == Fault.BAD_REVEAL
    assert e.value.culprits == ("dave",)
    # A reshuffle round of the same hand is another context too.
    ctx_r = fz.reshuffle_context(ctx1, 1, fz.log_start(ctx1), [5, 6, 7])
    assert fz.commitment(ctx_r, "dave", seeds1["dave"]) != commits1["dave"]


def test_round_with_signatures() -> None:
    ctx, seeds, commits = inputs()
    ps = fz.participants(SEATS)
    sks = {p: key_of(i) for i, p in enumerate(ps)}
    pks = {p: fz.public_bytes(sk) for p, sk in sks.items()}
    csig = {p: fz.sign_commitment(sks[p], ctx, p, commits[p]) for p in ps}
    rsig = {p: fz.sign_reveal(sks[p], ctx, p, commits[p], seeds[p]) for p in ps}
    rnd = Round(ctx, SEATS, public_keys=pks)
    with pytest.raises(UsageError):
        rnd.commit("alice", commits["alice"])  # a signature is required
    with pytest.raises(Blame) as e:
        rnd.commit("alice", commits["alice"], csig["bob"])  # bob's signature, not alice's
    assert e.value.fault == Fault.BAD_SIGNATURE
    assert e.value.culprits == ("alice",)
    rnd.commit("alice", commits["alice"], csig["alice"])
    with pytest.raises(Blame) as e:  # validly signed by bob, but a copy of alice's
        rnd.commit(
            "bob", commits["alice"], fz.sign_commitment(sks["bob"], ctx, "bob", commits["alice"])
        )
    assert e.value.fault == Fault.COPIED_COMMITMENT
    assert rnd.commit_signatures == {"alice": csig["alice"]}
    for p in ps[1:]:
        rnd.commit(p, commits[p], csig[p])
    assert rnd.commit_signatures == csig
    fz.check_announced(
        ctx,
        SEATS,
        rnd.commitments,
        own_id="carol",
        own_commitment=commits["carol"],
        public_keys=pks,
        signatures=rnd.commit_signatures,
    )
    flipped = bytes([rsig["bob"][0] ^ 1]) + rsig["bob"][1:]
    with pytest.raises(Blame) as e:
        rnd.reveal("bob", seeds["bob"], flipped)
    assert e.value.fault == Fault.BAD_SIGNATURE
    assert state(rnd) == RoundState.REVEAL  # a badly signed seed is ignored, not fatal
    for p in ps:
        rnd.reveal(p, seeds[p], rsig[p])
    assert state(rnd) == RoundState.DONE
    assert rnd.reveal_signatures == rsig
    key = fz.open_round(
        ctx,
        SEATS,
        rnd.commitments,
        rnd.seeds,
        own=("carol", seeds["carol"]),
        public_keys=pks,
        commit_signatures=csig,
        reveal_signatures=rsig,
    )
    assert key == rnd.key


def test_signed_bad_reveal_is_proof_against_its_signer() -> None:
    ctx, seeds, commits = inputs()
    ps = fz.participants(SEATS)
    sks = {p: key_of(i) for i, p in enumerate(ps)}
    pks = {p: fz.public_bytes(sk) for p, sk in sks.items()}
    csig = {p: fz.sign_commitment(sks[p], ctx, p, commits[p]) for p in ps}
    bad = bytes(32)
    rsig = {
        p: fz.sign_reveal(sks[p], ctx, p, commits[p], bad if p == "dave" else seeds[p]) for p in ps
    }
    rnd = Round(ctx, SEATS, public_keys=pks)
    for p in ps:
        rnd.commit(p, commits[p], csig[p])
    with pytest.raises(Blame) as e:
        rnd.reveal("dave", bad, rsig["dave"])
    assert e.value.culprits == ("dave",)
    # Anyone holding dave's public key can check the evidence the host kept.
    assert rnd.reveal_signatures["dave"] == rsig["dave"]
    assert fz.verify_commitment(pks["dave"], ctx, "dave", commits["dave"], csig["dave"])
    assert fz.verify_reveal(pks["dave"], ctx, "dave", commits["dave"], bad, rsig["dave"])
    assert fz.commitment(ctx, "dave", bad) != commits["dave"]


def test_host_faults_blame_the_dealer() -> None:
    ctx, seeds, commits = inputs()
    ps = fz.participants(SEATS)
    sks = {p: key_of(i) for i, p in enumerate(ps)}
    pks = {p: fz.public_bytes(sk) for p, sk in sks.items()}
    csig = {p: fz.sign_commitment(sks[p], ctx, p, commits[p]) for p in ps}
    rsig = {p: fz.sign_reveal(sks[p], ctx, p, commits[p], seeds[p]) for p in ps}

    def announced(cs: dict[str, bytes], sigs: dict[str, bytes] | None = None) -> Fault:
        with pytest.raises(Blame) as e:
            fz.check_announced(
                ctx,
                SEATS,
                cs,
                own_id="alice",
                own_commitment=commits["alice"],
                public_keys=pks if sigs is not None else None,
                signatures=sigs,
            )
        assert e.value.culprits == (DEALER,)
        return e.value.fault

    without_bob = {p: c for p, c in commits.items() if p != "bob"}
    assert announced(without_bob) == Fault.WRONG_PARTICIPANTS
    assert announced(dict(commits, eve=commits["bob"])) == Fault.WRONG_PARTICIPANTS
    assert announced(dict(commits, alice=commits["bob"])) == Fault.ALTERED_COMMITMENT
    forged = dict(commits, bob=fz.commitment(ctx, "bob", bytes(32)))
    assert announced(forged, csig) == Fault.FORGED_SIGNATURE

    def opened(**kw: Any) -> Blame:
        args: dict[str, Any] = {
            "own": ("alice", seeds["alice"]),
            "public_keys": pks,
            "commit_signatures": csig,
            "reveal_signatures": rsig,
        }
        args.update(kw)
        cs = args.pop("commitments", commits)
        ss = args.pop("seeds", seeds)
        with pytest.raises(Blame) as e:
            fz.open_round(ctx, SEATS, cs, ss, **args)
        return e.value

    # The host reveals another seed for alice: alice's own check catches the host, not her.
    b = opened(seeds=dict(seeds, alice=bytes(32)))
    assert (b.fault, b.culprits) == (Fault.ALTERED_SEED, (DEALER,))
    # The host forges a seed for bob (it cannot sign as bob).
    b = opened(seeds=dict(seeds, bob=bytes(32)))
    assert (b.fault, b.culprits) == (Fault.FORGED_SIGNATURE, (DEALER,))
    b = opened(reveal_signatures={p: s for p, s in rsig.items() if p != "carol"})
    assert (b.fault, b.culprits) == (Fault.FORGED_SIGNATURE, (DEALER,))
    b = opened(seeds={p: s for p, s in seeds.items() if p != "carol"})
    assert (b.fault, b.culprits) == (Fault.WRONG_PARTICIPANTS, (DEALER,))
    # The host swaps bob's commitment and seed for a pair of its own that do open: bob's reveal
    # signature names his real commitment, so this is caught without commitment signatures.
    fake_seed = bytes(32)
    b = opened(
        commitments=dict(commits, bob=fz.commitment(ctx, "bob", fake_seed)),
        seeds=dict(seeds, bob=fake_seed),
        commit_signatures=None,
    )
    assert (b.fault, b.culprits) == (Fault.FORGED_SIGNATURE, (DEALER,))
    assert fz.open_round(
        ctx, SEATS, commits, seeds, public_keys=pks, reveal_signatures=rsig
    ) == fz.deck_key(ctx, seeds)
    # Without signatures the check falls back to "does it open": blame goes to the id.
    b = opened(seeds=dict(seeds, bob=bytes(32)), public_keys=None)
    assert (b.fault, b.culprits) == (Fault.BAD_REVEAL, ("bob",))


def test_round_rejects_bad_setup() -> None:
    ctx, _, _ = inputs()
    with pytest.raises(UsageError):
        Round(bytes(31), SEATS)
    with pytest.raises(UsageError):
        Round(ctx, ["alice", DEALER])
    with pytest.raises(UsageError):
        Round(ctx, SEATS, public_keys={"alice": bytes(32)})  # keys missing


def test_blame_pickles() -> None:
    import pickle

    b = Blame(Fault.BAD_REVEAL, ["x"], "detail")
    c = pickle.loads(pickle.dumps(b))
    assert (c.fault, c.culprits, str(c)) == (b.fault, b.culprits, str(b))


# ---------------------------------------------------------------------------------------------
# The shuffle: rejection bound, fast form = reference form


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 13, 52, 53, 104, 107, 108, 2**31, 2**32 - 1, 2**32])
def test_rejection_limit(n: int) -> None:
    limit = fz.rejection_limit(n)
    assert limit % n == 0
    assert 2**32 - n < limit <= 2**32
    # Accepted words give every residue equally often.
    assert limit // n == 2**32 // n


def test_uniform_rejects_exactly_from_the_limit() -> None:
    n = 52
    limit = fz.rejection_limit(n)
    assert limit == 2**32 - 48
    assert fz.uniform(n, iter([limit - 1])) == (limit - 1) % n
    assert fz.uniform(n, iter([limit, 2**32 - 1, 5])) == 5
    with pytest.raises(UsageError):
        fz.uniform(n, iter([limit]))
    with pytest.raises(UsageError):
        fz.rejection_limit(0)


def test_fast_shuffle_handles_rejections(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejections are too rare to meet with real keys; feed the fast form crafted blocks."""
    import struct

    words = [2**32 - 1, 2**32 - 1, 17] * 100  # 2^32−1 is rejected unless n is a power of 2

    def fake_blocks(pads: object, start: int, count: int) -> bytes:
        return struct.pack(f">{8 * count}I", *words[8 * start : 8 * (start + count)])

    monkeypatch.setattr(fz, "_blocks", fake_blocks)
    for m in (3, 20, 52):
        cards = list(range(m))
        assert fz.shuffle(bytes(32), cards) == fz.shuffle_words(cards, iter(words))


@given(
    key=st.binary(min_size=32, max_size=32),
    cards=st.sets(st.integers(0, 107), max_size=108),
)
def test_fast_shuffle_equals_reference(key: bytes, cards: set[int]) -> None:
    order = fz.shuffle(key, cards)
    assert order == fz.shuffle_words(cards, fz.stream_words(key))
    assert sorted(order) == sorted(cards)


def test_small_shuffles() -> None:
    assert fz.shuffle(bytes(32), []) == []
    assert fz.shuffle(bytes(32), [7]) == [7]
    assert sorted(fz.shuffle(bytes(32), [9, 3])) == [3, 9]


# ---------------------------------------------------------------------------------------------
# Uniformity: chi-squared over card positions


def chi2_sf(x: float, k: int) -> float:
    """P(χ²_k ≥ x) by the Wilson–Hilferty cube-root normal approximation (fine for k ≳ 30)."""
    z = ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_chi2_approximation_matches_tables() -> None:
    # Upper 1% and 0.01% points of χ² from standard tables.
    assert chi2_sf(135.807, 100) == pytest.approx(0.01, rel=0.03)
    assert chi2_sf(63.691, 40) == pytest.approx(0.01, rel=0.05)
    assert chi2_sf(149.449, 100) == pytest.approx(0.001, rel=0.1)
    assert chi2_sf(1000.0, 1000) == pytest.approx(0.4941, abs=0.002)


def position_chi2(orders: Iterator[list[int]], m: int, count: int) -> tuple[float, int]:
    """χ² of the card × position table over ``count`` orders of ``0..m−1``; df = (m−1)²."""
    buf = bytearray()
    for order in orders:
        buf += bytes(order)
    assert len(buf) == m * count
    expected = count / m
    x = 0.0
    for pos in range(m):
        seen = Counter(buf[pos::m])
        x += sum((seen.get(c, 0) - expected) ** 2 for c in range(m)) / expected
    return x, (m - 1) ** 2


def deterministic_orders(m: int, count: int) -> Iterator[list[int]]:
    cards = list(range(m))
    for i in range(count):
        yield fz.shuffle(hashlib.sha256(b"chi2/%d/%d" % (m, i)).digest(), cards)


@pytest.mark.parametrize("m", [52, 104])
def test_positions_are_uniform(m: int) -> None:
    """100k shuffles each; the seeds are fixed, so the result is reproducible."""
    count = 100_000
    x, df = position_chi2(deterministic_orders(m, count), m, count)
    p = chi2_sf(x, df)
    assert p > 1e-4, f"χ²={x:.1f} on {df} df, p={p:.2e}: card positions are not uniform"


def test_chi2_catches_a_biased_shuffle() -> None:
    """The statistic has teeth: the classic naive shuffle (j from the whole range) fails it."""
    m, count = 7, 20_000

    def naive() -> Iterator[list[int]]:
        for i in range(count):
            words = fz.stream_words(hashlib.sha256(b"naive %d" % i).digest())
            a = list(range(m))
            for k in range(m - 1, -1, -1):
                j = fz.uniform(m, words)
                a[k], a[j] = a[j], a[k]
            yield a

    x, df = position_chi2(naive(), m, count)
    assert chi2_sf(x, df) < 1e-6


# ---------------------------------------------------------------------------------------------
# The public log


EVENTS: list[fz.LogEvent] = [
    fz.Draw(seat=3, n=7),
    fz.TurnUp(card=104),
    fz.Play(seat=0, card=51),
    fz.Reshuffle(round=2, n=40),
    fz.Suit(seat=1, suit=3),
    fz.Action(seat=2, move=(1 << 16) | 200),
    fz.Note(label="rules", data=bytes(32)),
    fz.Note(label="abort/void"),
]


def test_event_encodings() -> None:
    assert [fz.encode_event(e).hex() for e in EVENTS] == [
        "010307",
        "0268",
        "030033",
        "040000000228",
        "050103",
        "0602000100c8",
        "07000572756c65730020" + "00" * 32,
        "07000a61626f72742f766f69640000",
    ]
    for e in EVENTS:
        assert fz.decode_event(fz.encode_event(e)) == e


@given(
    st.one_of(
        st.builds(fz.Draw, seat=st.integers(0, 255), n=st.integers(1, 255)),
        st.builds(fz.TurnUp, card=st.integers(0, 107)),
        st.builds(fz.Play, seat=st.integers(0, 255), card=st.integers(0, 107)),
        st.builds(fz.Reshuffle, round=st.integers(1, 2**32 - 1), n=st.integers(1, 255)),
        st.builds(fz.Suit, seat=st.integers(0, 255), suit=st.integers(0, 3)),
        st.builds(fz.Action, seat=st.integers(0, 255), move=st.integers(0, 2**32 - 1)),
        st.builds(
            fz.Note,
            label=st.from_regex(r"[a-z0-9][a-z0-9._/-]{0,63}", fullmatch=True),
            data=st.binary(max_size=100),
        ),
    )
)
def test_event_round_trip(event: fz.LogEvent) -> None:
    data = fz.encode_event(event)
    assert fz.decode_event(data) == event
    # No encoding is a prefix of another's (they are framed by enc() in the chain anyway).
    for cut in range(len(data)):
        with pytest.raises(UsageError):
            fz.decode_event(data[:cut])
    with pytest.raises(UsageError):
        fz.decode_event(data + b"\0")


@pytest.mark.parametrize(
    "make",
    [
        lambda: fz.Draw(seat=0, n=0),
        lambda: fz.Draw(seat=256, n=1),
        lambda: fz.TurnUp(card=108),
        lambda: fz.Play(seat=-1, card=0),
        lambda: fz.Reshuffle(round=0, n=1),
        lambda: fz.Suit(seat=0, suit=4),
        lambda: fz.Action(seat=0, move=2**32),
        lambda: fz.Note(label="Rules"),
        lambda: fz.Note(label=""),
        lambda: fz.Draw(seat=True, n=1),
    ],
)
def test_event_field_checks(make: Any) -> None:
    with pytest.raises(UsageError):
        make()


@pytest.mark.parametrize("junk", ["", "00", "ff", "0101", "01010100", "0700", "070001", "07000141"])
def test_decode_rejects_junk(junk: str) -> None:
    with pytest.raises(UsageError):
        fz.decode_event(bytes.fromhex(junk))


def test_log_chain_detects_any_change() -> None:
    ctx, _, _ = inputs()
    log = fz.Log(ctx)
    heads = [log.head] + [log.append(e) for e in EVENTS]
    assert len(set(heads)) == len(heads)
    assert fz.log_head(ctx, EVENTS) == log.head
    assert fz.log_head(ctx, [fz.encode_event(e) for e in EVENTS]) == log.head
    swapped = [EVENTS[1], EVENTS[0], *EVENTS[2:]]
    assert fz.log_head(ctx, swapped) != log.head
    assert fz.log_head(ctx, EVENTS[:-1]) != log.head
    assert fz.log_head(ctx, [*EVENTS[:2], fz.Play(seat=0, card=50), *EVENTS[3:]]) != log.head
    other_ctx, _, _ = inputs(hand_no=2)
    assert fz.log_head(other_ctx, EVENTS) != log.head


# ---------------------------------------------------------------------------------------------
# Signatures


def test_signatures_fail_on_any_flipped_bit() -> None:
    sk = key_of(1)
    pk = fz.public_bytes(sk)
    ctx, seeds, commits = inputs()
    head = fz.log_head(ctx, EVENTS)
    sig = fz.sign_log_head(sk, ctx, DEALER, len(EVENTS), head)
    assert len(sig) == fz.SIGNATURE_BYTES
    assert fz.verify_log_head(pk, ctx, DEALER, len(EVENTS), head, sig)
    assert fz.verify_log_head(sk.public_key(), ctx, DEALER, len(EVENTS), head, sig)
    for bit in (0, 7, 100, 255, 511):
        bad = bytearray(sig)
        bad[bit // 8] ^= 1 << (bit % 8)
        assert not fz.verify_log_head(pk, ctx, DEALER, len(EVENTS), head, bytes(bad))
    flipped_head = bytes([head[0] ^ 0x80]) + head[1:]
    assert not fz.verify_log_head(pk, ctx, DEALER, len(EVENTS), flipped_head, sig)
    assert not fz.verify_log_head(pk, ctx, DEALER, len(EVENTS) - 1, head, sig)
    assert not fz.verify_log_head(pk, ctx, "alice", len(EVENTS), head, sig)
    assert not fz.verify_log_head(fz.public_bytes(key_of(2)), ctx, DEALER, len(EVENTS), head, sig)
    assert not fz.verify_log_head(pk, ctx, DEALER, len(EVENTS), head, sig[:-1])
    # Domain separation: a commitment signature is no reveal signature, and vice versa.
    c = commits["alice"]
    csig = fz.sign_commitment(sk, ctx, "alice", c)
    assert fz.verify_commitment(pk, ctx, "alice", c, csig)
    assert not fz.verify_reveal(pk, ctx, "alice", c, seeds["alice"], csig)
    assert not fz.verify_commitment(pk, ctx, "bob", c, csig)
    rsig = fz.sign_reveal(sk.private_bytes_raw(), ctx, "alice", c, seeds["alice"])
    assert fz.verify_reveal(pk, ctx, "alice", c, seeds["alice"], rsig)
    assert not fz.verify_reveal(pk, ctx, "alice", commits["bob"], seeds["alice"], rsig)
    assert not fz.verify_commitment(pk, ctx, "alice", c, rsig)


def test_key_loading() -> None:
    with pytest.raises(UsageError):
        fz.private_key(bytes(31))
    with pytest.raises(UsageError):
        fz.public_key(bytes(33))
    sk = key_of(3)
    assert fz.private_key(sk) is sk
    pub = sk.public_key()
    assert fz.public_key(pub) is pub
