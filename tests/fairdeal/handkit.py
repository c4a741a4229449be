"""One commit-reveal hand for the fair deal's unit tests (``tests/fairdeal/test_*.py``): the
seats (alice, bob and dave people, carol the host's bot) and their keys, the hand's setup, a
round among them with every message signed, the host's announcement of it, events of every kind
as the public log holds them, and an independent spelling of the spec's hashing (SPEC.md) to
check the library against."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from lanswitch.cards import deck_cards
from lanswitch.fairdeal import (
    BY_BOT,
    BY_SEAT,
    BY_STAND_IN,
    LEFT,
    LOST,
    Announcement,
    Away,
    Back,
    Draw,
    HandSetup,
    Log,
    LogEvent,
    Move,
    Note,
    Round,
    RoundState,
    Shuffle,
    TurnUp,
)
from lanswitch.fairdeal import primitives as fp
from lanswitch.fairdeal.primitives import DEALER

SEATS = ("alice", "bob", "carol", "dave")  # carol is the host's bot: no key
PEOPLE = 0b1011  # alice, bob and dave
GAME = bytes(range(16))
RULES = 'base = "switch"\n'
DECK = deck_cards(1, 0)


def h(s: str) -> bytes:
    return bytes.fromhex(s)


def raw_key(i: int) -> bytes:
    return hashlib.sha256(b"key %d" % i).digest()


PRIV: dict[str, bytes] = {"alice": raw_key(0), "bob": raw_key(1), "dave": raw_key(3)}
PRIV[DEALER] = raw_key(9)
PUB: dict[str, bytes] = {p: fp.public_bytes(k) for p, k in PRIV.items()}


def setup(hand_no: int = 1, turn_timer_ms: int = 0, **kw: Any) -> HandSetup:
    return HandSetup.from_toml(GAME, hand_no, RULES, SEATS, PUB, turn_timer_ms=turn_timer_ms, **kw)


S = setup()
S_TIMER = setup(turn_timer_ms=30_000)


def seed(i: int) -> bytes:
    return hashlib.sha256(b"test seed %d" % i).digest()


# -- an independent spelling of the spec's hashing, for checking the vectors ------------------


def _u32(x: int) -> bytes:
    return struct.pack(">I", x)


def _enc(b: bytes | str) -> bytes:
    if isinstance(b, str):
        b = b.encode("ascii")
    return struct.pack(">H", len(b)) + b


def _label(name: str) -> bytes:
    return _enc("lanswitch/v2/" + name)


def _sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def _hkdf(salt: bytes, ikm: bytes, info: bytes) -> bytes:
    """RFC 5869 HKDF-SHA256 with a 32-byte output: extract, then one block of expand."""
    prk = hmac.new(salt, ikm, "sha256").digest()
    return hmac.new(prk, info + b"\x01", "sha256").digest()


def _ikm(seeds: Mapping[str, bytes]) -> bytes:
    return b"".join(_enc(p) + seeds[p] for p in sorted(seeds, key=lambda p: p.encode("ascii")))


def _words(key: bytes) -> Iterator[int]:
    k = 0
    while True:
        block = hmac.new(key, _label("stream") + _u32(k), "sha256").digest()
        yield from struct.unpack(">8I", block)
        k += 1


def _next_head(head: bytes, encoding: bytes) -> bytes:
    return _sha(_label("log-event"), head, _enc(encoding))


# -- a round among alice, bob, dave and @dealer, every message signed ----------------------------


@dataclasses.dataclass(frozen=True)
class Inputs:
    ctx: bytes
    ps: tuple[str, ...]
    seeds: dict[str, bytes]
    commits: dict[str, bytes]
    csig: dict[str, bytes]
    rsig: dict[str, bytes]


def inputs(
    hand_no: int = 1, round_no: int = 0, mask: int = PEOPLE, cards: Sequence[int] = DECK
) -> Inputs:
    s = setup(hand_no)
    ctx = fp.round_context(s.ctx0, round_no, 1, Log(s.ctx0, [s.note]).head, mask, cards)
    ps = fp.participants_of(SEATS, mask)
    seeds = {p: seed(i + 100 * hand_no + 10_000 * round_no) for i, p in enumerate(ps)}
    commits = {p: fp.commitment(ctx, p, sd) for p, sd in seeds.items()}
    csig = {p: fp.sign(PRIV[p], fp.commitment_message(ctx, p, commits[p])) for p in ps}
    rsig = {p: fp.sign(PRIV[p], fp.reveal_message(ctx, p, commits[p], seeds[p])) for p in ps}
    return Inputs(ctx, ps, seeds, commits, csig, rsig)


R0 = inputs()


def new_round(i: Inputs = R0) -> Round:
    return Round(i.ctx, i.ps, PUB)


def committed(i: Inputs = R0) -> Round:
    rnd = new_round(i)
    for p in (DEALER, *i.ps[:-1]):
        rnd.commit(p, i.commits[p], i.csig[p])
    return rnd


def revealed(i: Inputs = R0) -> Round:
    rnd = committed(i)
    for p in i.ps:
        rnd.reveal(p, i.seeds[p], i.rsig[p])
    return rnd


def says(problem: str | None, needle: str) -> None:
    """A check found a problem, and it says ``needle``."""
    assert problem is not None, f"no problem found, expected one saying {needle!r}"
    assert needle in problem, problem


def state(rnd: Round) -> RoundState:
    """``rnd.state``, un-narrowed (mypy would otherwise keep the type of an earlier check)."""
    return rnd.state


def announcement(
    fixed: bool = False,
    i: Inputs = R0,
    *,
    key: bytes = PRIV[DEALER],
    mask: int = PEOPLE,
    cards: Sequence[int] = DECK,
    commitments: Mapping[str, tuple[bytes, bytes]] | None = None,
    round_no: int = 0,
    ctx: bytes | None = None,
) -> Announcement:
    """Round ``round_no`` as the host announces it, signed with ``key``. The commitments are
    ``i``'s, or if ``ctx`` is another round's, the same seeds' commitments to that round."""
    ctx = ctx or i.ctx
    if commitments is None:
        ids = fp.participants_of(SEATS, mask) if fixed else (DEALER,)
        commitments = {}
        for p in ids:
            if ctx == i.ctx and p in i.commits:
                commitments[p] = (i.commits[p], i.csig[p])
                continue
            c = fp.commitment(ctx, p, i.seeds.get(p, seed(999)))
            sig = fp.sign(PRIV[p], fp.commitment_message(ctx, p, c)) if p in PRIV else b""
            commitments[p] = (c, sig)
    return Announcement.make(key, S.ctx0, round_no, fixed, ctx, cards, mask, commitments)


# -- events of every kind, as the public log holds them ------------------------------------

SIG = bytes(range(64))
HEAD = bytes(range(32, 64))
EVENTS: list[LogEvent] = [
    Note(label="setup", data=bytes(32)),
    Shuffle(round=2, n=40, mask=0b1011),
    Draw(seat=3, n=7),
    TurnUp(card=104),
    Move(seat=0, by=BY_SEAT, move=51, signature=SIG),
    Move(seat=2, by=BY_BOT, move=(1 << 16) | 200, signature=SIG),
    Away(seat=1, how=LEFT, count=3, head=HEAD, signature=SIG),
    Move(seat=1, by=BY_STAND_IN, move=201, signature=SIG),
    Away(seat=3, how=LOST),
    Back(seat=1),
    Note(label="abort/void"),
]
