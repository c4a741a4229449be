"""A minimal lanswitch v1 client written only from ``protocol/SPEC.md`` (issue #4).

Nothing here imports :mod:`lanswitch`: the wire (TLS 1.3, framing, msgpack messages and their
field types) and the fair deal (contexts, commitments, deck key, keystream, shuffle, public
log, signatures, stock model) are rebuilt from the text of the specification alone, with the
standard library, ``msgpack`` and ``cryptography`` (Ed25519). If this module and the reference
implementation ever disagree while both pass their vectors, the spec is ambiguous; if this
module cannot be written at all from the spec, the spec is insufficient. Each function names
the section it follows so that a disagreement points at a paragraph.

The client (:class:`RawClient`) takes a seat, readies, takes part in every fair-deal round,
plays legal moves, signs its log head and collects everyone's heads, checking as it goes what
the spec promises; :class:`Report` says what it saw. Where the spec leaves a choice open the
client makes the choice written in :data:`INTERPRETATIONS` so the test can report it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import random
import re
import secrets
import socket
import ssl
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

PROTOCOL_VERSION = 1
MAX_PAYLOAD = 65536
DEALER = "@dealer"

#: Choices the spec leaves to the reader; the test prints them with its findings.
INTERPRETATIONS = (
    "deal.decks given as a table {players = decks} means 'from that many players up' "
    "(SPEC says only 'decks may be given per number of players'; docs/rules.md says 'from that "
    "many players up')",
    "a missing [deal] decks/jokers is taken as 1 deck / 0 jokers (SPEC gives no defaults, and "
    'a house-rules file with base = "preset" would leave them out entirely)',
    "round r's cards D are recomputed from the public log (TurnUp and Play go on the pile, "
    "Reshuffle keeps its top card); SPEC step 1 says 'round r from the log it holds and cards'",
    "a client's own cards are the values of 'deal' and 'draw' engine events for its seat",
)


class SpecViolationError(Exception):
    """The peer did something the spec rules out (or this client's reading of it does)."""


# --------------------------------------------------------------------------------------------
# Fair deal § Conventions


def u8(x: int) -> bytes:
    """One unsigned byte (Conventions)."""
    return x.to_bytes(1, "big")


def u16(x: int) -> bytes:
    """Two bytes, big-endian (Conventions)."""
    return x.to_bytes(2, "big")


def u32(x: int) -> bytes:
    """Four bytes, big-endian (Conventions)."""
    return x.to_bytes(4, "big")


def enc(b: bytes | str) -> bytes:
    """``u16(len(b)) ‖ b``; a text is ASCII first (Conventions)."""
    raw = b.encode("ascii") if isinstance(b, str) else b
    if len(raw) > 0xFFFF:
        raise ValueError("enc() takes at most 65535 bytes")
    return u16(len(raw)) + raw


def label(name: str) -> bytes:
    """The domain-separation label ``lanswitch/v1/<name>``."""
    return b"lanswitch/v1/" + name.encode("ascii")


def h(name: str, x: bytes) -> bytes:
    """``H(name, x) = SHA-256(enc("lanswitch/v1/" ‖ name) ‖ x)``."""
    return hashlib.sha256(enc(label(name)) + x).digest()


# --------------------------------------------------------------------------------------------
# Card ids, participants, contexts, commitments


def setup_cards(decks: int, jokers: int) -> list[int]:
    """The cards of a setup, ascending: ``0 .. 52·decks − 1`` then ``104 .. 104 + jokers − 1``."""
    if decks not in (1, 2) or not 0 <= jokers <= 4:
        raise SpecViolationError(f"no such setup: {decks} decks, {jokers} jokers")
    return list(range(52 * decks)) + list(range(104, 104 + jokers))


def participants(seats: Sequence[str]) -> list[str]:
    """The seat ids in seat order, then ``@dealer`` (Participants)."""
    return [*seats, DEALER]


def context0(game_id: bytes, hand_no: int, decks: int, jokers: int, parts: Sequence[str]) -> bytes:
    """``ctx_0`` (Rounds and contexts, round 0)."""
    body = game_id + u32(hand_no) + u8(decks) + u8(jokers) + u8(len(parts))
    return h("hand", body + b"".join(enc(p) for p in parts))


def reshuffle_context(ctx0: bytes, r: int, head: bytes, pile: Sequence[int]) -> bytes:
    """``ctx_r`` for reshuffle round ``r`` over ``D`` (sorted here, as the spec says)."""
    d = sorted(pile)
    return h("reshuffle", ctx0 + u32(r) + head + u16(len(d)) + bytes(d))


def commitment(ctx: bytes, pid: str, seed: bytes) -> bytes:
    """``C_p = H("commit", ctx_r ‖ enc(p) ‖ seed_p)`` (Commitments)."""
    return h("commit", ctx + enc(pid) + seed)


def deck_key(ctx: bytes, seeds: Mapping[str, bytes]) -> bytes:
    """``K_r``: HKDF-SHA256 over the seeds in ASCII order of their ids (Deck key)."""
    ikm = b"".join(enc(p) + seeds[p] for p in sorted(seeds, key=lambda p: p.encode("ascii")))
    prk = hmac.new(ctx, ikm, hashlib.sha256).digest()
    return hmac.new(prk, enc(label("deck-key")) + b"\x01", hashlib.sha256).digest()


def stream_block(key: bytes, k: int) -> bytes:
    """``block_k`` of the keystream (Keystream)."""
    return hmac.new(key, enc(label("stream")) + u32(k), hashlib.sha256).digest()


def stream_words(key: bytes) -> Iterator[int]:
    """The keystream as big-endian u32 words, each produced once (Keystream)."""
    k = 0
    while True:
        block = stream_block(key, k)
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        k += 1


def uniform(n: int, words: Iterator[int]) -> int:
    """A uniform integer in ``0 .. n−1`` by rejection (Unbiased shuffle)."""
    limit = 2**32 - (2**32 % n)
    while True:
        w = next(words)
        if w < limit:
            return w % n


def shuffle(cards: Sequence[int], words: Iterator[int]) -> list[int]:
    """Fisher–Yates over the sorted cards; ``order[0]`` is the top of the stock."""
    a = sorted(cards)
    for i in range(len(a) - 1, 0, -1):
        j = uniform(i + 1, words)
        a[i], a[j] = a[j], a[i]
    return a


def round_order(ctx: bytes, seeds: Mapping[str, bytes], cards: Sequence[int]) -> list[int]:
    """A round's order from its context, every participant's seed and its cards."""
    return shuffle(cards, stream_words(deck_key(ctx, seeds)))


# --------------------------------------------------------------------------------------------
# Public log

LOG_LABEL = re.compile(r"[a-z0-9][a-z0-9._/-]{0,63}")


@dataclass(frozen=True)
class Event:
    """A decoded public-log event: ``kind`` and its fields (unused ones 0 or empty)."""

    kind: str
    seat: int = 0
    card: int = 0
    n: int = 0
    round: int = 0
    suit: int = 0
    move: int = 0
    label: str = ""
    data: bytes = b""


def decode_event(e: bytes) -> Event:
    """Parse one event's encoding (Public log table); exactly one encoding per event."""
    if not e:
        raise SpecViolationError("empty log event")
    tag, body = e[0], e[1:]
    sizes = {1: 2, 2: 1, 3: 2, 4: 5, 5: 2, 6: 5}
    if tag in sizes and len(body) != sizes[tag]:
        raise SpecViolationError(f"log event {e.hex()}: wrong length for tag {tag}")
    if tag == 1:
        if body[1] == 0:
            raise SpecViolationError(f"log event {e.hex()}: Draw of 0 cards")
        return Event("draw", seat=body[0], n=body[1])
    if tag == 2:
        return Event("turnup", card=body[0])
    if tag == 3:
        return Event("play", seat=body[0], card=body[1])
    if tag == 4:
        r, n = int.from_bytes(body[:4], "big"), body[4]
        if r < 1 or n < 1:
            raise SpecViolationError(f"log event {e.hex()}: Reshuffle needs round ≥ 1 and n ≥ 1")
        return Event("reshuffle", round=r, n=n)
    if tag == 5:
        if body[1] > 3:
            raise SpecViolationError(f"log event {e.hex()}: no suit {body[1]}")
        return Event("suit", seat=body[0], suit=body[1])
    if tag == 6:
        return Event("action", seat=body[0], move=int.from_bytes(body[1:], "big"))
    if tag == 7:
        if len(body) < 2:
            raise SpecViolationError(f"log event {e.hex()}: truncated Note")
        ln = int.from_bytes(body[:2], "big")
        lab, rest = body[2 : 2 + ln], body[2 + ln :]
        if len(lab) != ln or len(rest) < 2:
            raise SpecViolationError(f"log event {e.hex()}: truncated Note")
        dn = int.from_bytes(rest[:2], "big")
        data = rest[2:]
        if len(data) != dn:
            raise SpecViolationError(f"log event {e.hex()}: Note data of the wrong length")
        text = lab.decode("ascii", errors="replace")
        if not LOG_LABEL.fullmatch(text):
            raise SpecViolationError(f"log event {e.hex()}: bad Note label {text!r}")
        return Event("note", label=text, data=data)
    raise SpecViolationError(f"log event {e.hex()}: unknown tag {tag}")


def log_head0(ctx0: bytes) -> bytes:
    """``head_0 = H("log", ctx_0)``."""
    return h("log", ctx0)


def log_next(head: bytes, event: bytes) -> bytes:
    """``head_{k+1} = H("log-event", head_k ‖ enc(e_k))``."""
    return h("log-event", head + enc(event))


def log_head(ctx0: bytes, events: Sequence[bytes]) -> bytes:
    """The head of a whole log."""
    head = log_head0(ctx0)
    for e in events:
        head = log_next(head, e)
    return head


def setup_note(rules: str, dealer: int, out: Sequence[int]) -> bytes:
    """The setup note: ``Note("setup", SHA-256(rules) ‖ u8(dealer) ‖ u8(k) ‖ out…)``."""
    data = hashlib.sha256(rules.encode("utf-8")).digest() + u8(dealer) + u8(len(out))
    data += bytes(sorted(out))
    return b"\x07" + enc(b"setup") + enc(data)


def deck_setup(rules: str, players: int) -> tuple[int, int]:
    """``decks`` and ``jokers`` of the rules' ``[deal]`` for ``players`` seats dealt in.

    The spec says only that "decks may be given per number of players"; see
    :data:`INTERPRETATIONS` for the reading used here (a table's keys are thresholds).
    """
    deal = tomllib.loads(rules).get("deal", {})
    decks: Any = deal.get("decks", 1)
    if isinstance(decks, dict):
        chosen = None
        for threshold, value in sorted((int(k), v) for k, v in decks.items()):
            if players >= threshold:
                chosen = value
        if chosen is None:
            raise SpecViolationError(
                f"deal.decks {decks} names no deck count for {players} players"
            )
        decks = chosen
    jokers: Any = deal.get("jokers", 0)
    if not isinstance(decks, int) or not isinstance(jokers, int):
        raise SpecViolationError(f"deal.decks/jokers not numbers: {decks!r}, {jokers!r}")
    return decks, jokers


# --------------------------------------------------------------------------------------------
# Signatures


def sign_commit_msg(ctx: bytes, pid: str, c: bytes) -> bytes:
    """The commitment's signed message."""
    return enc(label("sign/commit")) + ctx + enc(pid) + c


def sign_reveal_msg(ctx: bytes, pid: str, c: bytes, seed: bytes) -> bytes:
    """The reveal's signed message (the seed length-prefixed)."""
    return enc(label("sign/reveal")) + ctx + enc(pid) + c + enc(seed)


def sign_log_msg(ctx0: bytes, signer: str, count: int, head: bytes) -> bytes:
    """The log head's signed message."""
    return enc(label("sign/log")) + ctx0 + enc(signer) + u32(count) + head


def sign_cards_msg(ctx0: bytes, seat_id: str, cards: Sequence[int]) -> bytes:
    """The cards message the host signs for one seat."""
    return enc(label("sign/cards")) + ctx0 + enc(seat_id) + u16(len(cards)) + bytes(cards)


def verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Pure Ed25519 verification; any malformed key or signature is simply invalid."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


# --------------------------------------------------------------------------------------------
# The stock model (Verification)


@dataclass
class Replay:
    """What replaying a log with the stock model gave."""

    cards: dict[int, list[int]]  # every card each seat got, in order
    head: bytes
    count: int
    rounds: int  # rounds used, round 0 included
    contexts: list[bytes]  # ctx_r of each round used


OrderFor = Callable[[int, bytes, list[int]], list[int]]


def replay(ctx0: bytes, log: Sequence[bytes], deck: Sequence[int], order_for: OrderFor) -> Replay:
    """Walk ``log`` through the stock model; ``order_for(r, ctx_r, cards)`` gives round orders.

    Raises :class:`SpecViolationError` at the first impossible event, as § Verification step 3 asks.
    """
    stock = list(order_for(0, ctx0, sorted(deck)))
    pile: list[int] = []
    hands: dict[int, list[int]] = {}
    given: dict[int, list[int]] = {}
    last_round = 0
    contexts = [ctx0]
    head = log_head0(ctx0)
    for i, raw in enumerate(log):
        ev = decode_event(raw)
        if ev.kind == "draw":
            if ev.n > len(stock):
                raise SpecViolationError(f"event {i}: Draw of {ev.n} from a stock of {len(stock)}")
            taken, stock = stock[: ev.n], stock[ev.n :]
            hands.setdefault(ev.seat, []).extend(taken)
            given.setdefault(ev.seat, []).extend(taken)
        elif ev.kind == "turnup":
            if not stock or stock[0] != ev.card:
                raise SpecViolationError(f"event {i}: TurnUp {ev.card} is not the stock's top")
            pile.append(stock.pop(0))
        elif ev.kind == "play":
            held = hands.get(ev.seat, [])
            if ev.card not in held:
                raise SpecViolationError(f"event {i}: seat {ev.seat} plays {ev.card} it lacks")
            held.remove(ev.card)
            pile.append(ev.card)
        elif ev.kind == "reshuffle":
            if stock:
                raise SpecViolationError(f"event {i}: Reshuffle of a stock holding {len(stock)}")
            if ev.round != last_round + 1 or len(pile) != ev.n + 1:
                raise SpecViolationError(
                    f"event {i}: Reshuffle({ev.round}, {ev.n}) after round {last_round} "
                    f"with {len(pile)} cards on the pile"
                )
            d = sorted(pile[:-1])
            ctx = reshuffle_context(ctx0, ev.round, head, d)
            contexts.append(ctx)
            stock = list(order_for(ev.round, ctx, d))
            pile = pile[-1:]
            last_round = ev.round
        head = log_next(head, raw)
    return Replay(given, head, len(log), last_round + 1, contexts)


# --------------------------------------------------------------------------------------------
# Network § Framing and § Messages

SEAT_ENTRY_FIELDS = ("name", "id", "bot", "ready", "connected", "key")

#: Who may send what in the ``open`` state (Connection states).
CLIENT_OPEN = frozenset(
    {"sit", "stand", "ready", "chat", "move", "commit", "reveal", "log_head", "ping", "pong"}
)
HOST_OPEN = frozenset(
    {
        "lobby",
        "chat",
        "hand",
        "view",
        "events",
        "reject",
        "hand_over",
        "announce",
        "reveals",
        "abort",
        "log_heads",
        "ping",
        "pong",
    }
)
ERROR_CODES = frozenset(
    {
        "bad_frame",
        "too_big",
        "bad_message",
        "unexpected",
        "version_mismatch",
        "bad_password",
        "bad_token",
        "table_full",
        "seat_taken",
        "not_now",
        "not_your_turn",
        "illegal_move",
        "stale_view",
        "fair_deal",
        "rate_limited",
        "kicked",
        "shutdown",
        "internal",
    }
)

# Field types, in the spec's notation (§ Messages, "Field types"): a name ("bool", "pid", …) or
# a tuple ("int", lo, hi), ("list", T, lo, hi) … The notation is recursive and heterogeneous, so
# it is typed as Any rather than as a union mypy would make every use of unwrap.
T = Any
U32: T = ("int", 0, 2**32 - 1)
I32: T = ("int", -(2**31), 2**31 - 1)
CARD: T = ("int", 0, 107)
SEAT: T = ("int", 0, 7)
SIG: T = ("bin", 0, 256)
BIN32: T = ("bin", 32, 32)
TEXT: T = ("str", 0, 500)


def opt(t: T) -> T:
    """``T?``."""
    return ("opt", t)


def arr(t: T, lo: int, hi: int) -> T:
    """``[T; a..b]``."""
    return ("list", t, lo, hi)


def mapping(k: T, v: T, n: int) -> T:
    """``{K: V; ≤ n}``."""
    return ("map", k, v, n)


SEAT_ENTRY: T = (
    "record",
    {
        "name": ("str", 0, 32),
        "id": "pid_or_empty",
        "bot": "bool",
        "ready": "bool",
        "connected": "bool",
        "key": ("bin", 0, 32),
    },
)

TYPES: dict[str, dict[str, T]] = {
    "hello": {
        "version": U32,
        "name": "name",
        "key": BIN32,
        "spectate": "bool",
        "password": opt(("str", 0, 128)),
        "token": opt(("bin", 16, 64)),
    },
    "welcome": {"version": U32, "table": "name", "seat": opt(SEAT), "token": ("bin", 16, 64)},
    "error": {"code": "code", "text": TEXT},
    "bye": {"reason": TEXT},
    "ping": {"nonce": U32},
    "pong": {"nonce": U32},
    "sit": {"seat": opt(SEAT)},
    "stand": {},
    "ready": {"ready": "bool"},
    "chat": {"text": ("str", 1, 500), "sender": ("str", 0, 32)},
    "lobby": {
        "table": "name",
        "rules": ("str", 1, 64),
        "host": opt(SEAT),
        "seats": arr(SEAT_ENTRY, 2, 8),
        "spectators": U32,
        "playing": "bool",
        "hands": U32,
        "scores": arr(I32, 0, 8),
        "turn_timer": U32,
    },
    "hand": {
        "game_id": ("bin", 16, 16),
        "hand_no": U32,
        "seats": arr("pid", 2, 8),
        "dealer": SEAT,
        "out": arr(SEAT, 0, 8),
        "rules": ("str", 1, 32768),
        "keys": mapping("pid+", BIN32, 9),
    },
    "view": {
        "seq": U32,
        "seat": opt(SEAT),
        "hand": arr(CARD, 0, 108),
        "counts": arr(("int", 0, 108), 2, 8),
        "active": arr("bool", 2, 8),
        "top": ("int", -1, 107),
        "top_face": I32,
        "named_suit": ("int", -1, 3),
        "free": "bool",
        "direction": ("int", -1, 1),
        "turn": ("int", -1, 7),
        "phase": ("int", 0, 7),
        "pending_kind": TEXT,
        "pending_amount": I32,
        "pending_target": ("int", -2, 7),
        "missed": arr(I32, 0, 8),
        "declared": arr("bool", 0, 8),
        "called_last": "bool",
        "called_two": "bool",
        "stock": ("int", 0, 108),
        "discard": ("int", 0, 108),
        "dealer": SEAT,
        "finished": arr(SEAT, 0, 8),
        "legal": arr(U32, 0, 1024),
        "timer_ms": U32,
    },
    "events": {
        "seq": U32,
        "events": arr(("tuple", (("str", 1, 16), ("int", -1, 7), I32)), 0, 2048),
        "log": arr(("bin", 1, 1024), 0, 512),
    },
    "move": {"seq": U32, "move": U32},
    "reject": {"code": "code", "text": TEXT, "seq": U32},
    "hand_over": {
        "reason": ("str", 1, 16),
        "placings": arr(SEAT, 0, 8),
        "scores": arr(I32, 0, 8),
        "hand_points": arr(I32, 0, 8),
        "head": ("tuple", (U32, BIN32, SIG)),
        "cards_signature": SIG,
    },
    "announce": {
        "round": U32,
        "ctx": BIN32,
        "cards": arr(CARD, 0, 108),
        "commitments": mapping("pid+", ("tuple", (SIG, SIG)), 9),
    },
    "commit": {"round": U32, "commitment": SIG, "signature": SIG},
    "reveal": {"round": U32, "seed": SIG, "signature": SIG},
    "reveals": {"round": U32, "seeds": mapping("pid+", ("tuple", (SIG, SIG)), 9)},
    "abort": {"round": U32, "fault": TEXT, "culprits": arr("pid+", 1, 9)},
    "log_head": {"count": U32, "head": BIN32, "signature": SIG},
    "log_heads": {"heads": mapping("pid+", ("tuple", (U32, BIN32, SIG)), 9)},
}

#: Every message's fields in the order the spec lists them (and lanswitch writes them).
FIELDS: dict[str, tuple[str, ...]] = {kind: tuple(fields) for kind, fields in TYPES.items()}

PID = re.compile(r"[A-Za-z0-9_-]{1,32}")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class WireError(Exception):
    """A frame or message the spec says the receiver answers with ``error`` ``code``."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(f"{code}: {text}")
        self.code = code
        self.text = text


def check_value(t: T, v: Any, where: str) -> None:
    """Raise :class:`WireError` ``bad_message`` unless ``v`` has the spec type ``t``."""

    def bad(why: str) -> WireError:
        return WireError("bad_message", f"{where}: {why}")

    if t == "bool":
        if not isinstance(v, bool):
            raise bad("not a bool")
        return
    if t in ("name", "pid", "pid+", "pid_or_empty", "code"):
        if not isinstance(v, str):
            raise bad("not a str")
        ok = {
            "name": 1 <= len(v) <= 32 and not CONTROL.search(v),
            "pid": PID.fullmatch(v) is not None,
            "pid+": v == DEALER or PID.fullmatch(v) is not None,
            "pid_or_empty": v == "" or PID.fullmatch(v) is not None,
            "code": v in ERROR_CODES,
        }[t]
        if not ok:
            raise bad(f"{v!r} is not a valid {t}")
        return
    kind = t[0]
    if kind == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            raise bad("not an int")
        if not t[1] <= v <= t[2]:
            raise bad(f"{v} out of {t[1]}..{t[2]}")
    elif kind == "str":
        if not isinstance(v, str) or not t[1] <= len(v) <= t[2]:
            raise bad(f"not a str of {t[1]}..{t[2]} characters")
    elif kind == "bin":
        if not isinstance(v, bytes) or not t[1] <= len(v) <= t[2]:
            raise bad(f"not a bin of {t[1]}..{t[2]} bytes")
    elif kind == "opt":
        if v is not None:
            check_value(t[1], v, where)
    elif kind == "list":
        if not isinstance(v, list) or not t[2] <= len(v) <= t[3]:
            raise bad(f"not an array of {t[2]}..{t[3]} items")
        for i, item in enumerate(v):
            check_value(t[1], item, f"{where}[{i}]")
    elif kind == "tuple":
        if not isinstance(v, list) or len(v) != len(t[1]):
            raise bad(f"not an array of exactly {len(t[1])} items")
        for i, (tt, item) in enumerate(zip(t[1], v, strict=True)):
            check_value(tt, item, f"{where}[{i}]")
    elif kind == "map":
        if not isinstance(v, dict) or len(v) > t[3]:
            raise bad(f"not a map of at most {t[3]} entries")
        for k, item in v.items():
            check_value(t[1], k, f"{where} key")
            check_value(t[2], item, f"{where}[{k!r}]")
    elif kind == "record":
        if not isinstance(v, dict) or set(v) != set(t[1]):
            raise bad(f"not a map with exactly {sorted(t[1])}")
        for k, tt in t[1].items():
            check_value(tt, v[k], f"{where}.{k}")
    else:  # pragma: no cover - a typo in TYPES
        raise AssertionError(t)


def check_message(msg: Any) -> dict[str, Any]:
    """Validate a decoded payload as a message (§ Messages); ``hello``'s version goes first."""
    if not isinstance(msg, dict):
        raise WireError("bad_message", "the payload is not a map")
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise WireError("bad_message", f"unknown type {kind!r}")
    if kind in ("hello", "welcome"):
        version = msg.get("version")
        is_int = isinstance(version, int) and not isinstance(version, bool)
        if is_int and version != PROTOCOL_VERSION:
            raise WireError("version_mismatch", f"version {version}, not 1")
    fields = TYPES[kind]
    got = set(msg) - {"type"}
    if got != set(fields):
        raise WireError("bad_message", f"{kind}: fields {sorted(got)}, not {sorted(fields)}")
    for name, t in fields.items():
        check_value(t, msg[name], f"{kind}.{name}")
    return msg


def decode_payload(payload: bytes) -> Any:
    """Exactly one msgpack value, decoded with the spec's limits, else ``bad_frame``."""
    try:
        return msgpack.unpackb(
            payload,
            raw=False,
            strict_map_key=False,
            max_str_len=MAX_PAYLOAD,
            max_bin_len=MAX_PAYLOAD,
            max_array_len=8192,
            max_map_len=1024,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises several unrelated types for malformed input
        raise WireError("bad_frame", f"not one msgpack value: {exc}") from exc


def classify_frame(frame: bytes) -> dict[str, Any]:
    """Decode one whole frame as a receiver must, raising :class:`WireError` on a reject."""
    if len(frame) < 4:
        raise WireError("bad_frame", "the stream ended inside a frame")
    n = int.from_bytes(frame[:4], "big")
    if n == 0:
        raise WireError("bad_frame", "a frame of length 0")
    if n > MAX_PAYLOAD:
        raise WireError("too_big", f"a frame of {n} bytes")
    if len(frame) - 4 != n:
        raise WireError("bad_frame", "the stream ended inside a frame")
    return check_message(decode_payload(frame[4:]))


def encode_message(msg: Mapping[str, Any]) -> bytes:
    """``type`` first, then the fields in the spec's order; ``bytes`` become msgpack bin."""
    kind = msg["type"]
    ordered = {"type": kind} | {k: msg[k] for k in FIELDS[kind]}
    if set(msg) != set(ordered):
        raise ValueError(f"{kind}: fields {sorted(msg)} are not the spec's")
    return bytes(msgpack.packb(ordered, use_bin_type=True))


def frame(payload: bytes) -> bytes:
    """``u32(L) ‖ payload`` (Framing); a sender never writes a frame above the limit."""
    if not 1 <= len(payload) <= MAX_PAYLOAD:
        raise ValueError(f"a payload of {len(payload)} bytes cannot be framed")
    return u32(len(payload)) + payload


# --------------------------------------------------------------------------------------------
# Transport


def fingerprint(der: bytes) -> str:
    """The pin: SHA-256 of the certificate's DER, lowercase hex."""
    return hashlib.sha256(der).hexdigest()


class Connection:
    """One TLS 1.3 connection to a host, pinned, speaking frames with deadlines."""

    def __init__(self, host: str, port: int, pin: str, timeout: float) -> None:
        """Connect, handshake TLS 1.3 and check the pin before anything is sent."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.maximum_version = ssl.TLSVersion.TLSv1_3
        ctx.check_hostname = False  # pinned, not checked against a CA or host name
        ctx.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection((host, port), timeout=timeout)
        try:
            self.sock = ctx.wrap_socket(raw, server_hostname=None)
        except BaseException:
            raw.close()
            raise
        self.tls_version = self.sock.version()
        der = self.sock.getpeercert(binary_form=True)
        self.fingerprint = fingerprint(der) if der else ""
        if self.fingerprint != pin.lower():
            self.sock.close()
            raise SpecViolationError(f"pinned {pin}, the host presented {self.fingerprint}")
        self.buffer = b""

    def close(self) -> None:
        """Close the TLS connection (best effort)."""
        with contextlib.suppress(OSError):
            self.sock.close()

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (for the tests of rejects)."""
        self.sock.sendall(data)

    def send(self, msg: Mapping[str, Any]) -> None:
        """Encode and frame one message."""
        self.send_raw(frame(encode_message(msg)))

    def _read(self, n: int, deadline: float) -> bytes | None:
        """Exactly ``n`` bytes, or None at the end of the stream; TimeoutError past deadline."""
        while len(self.buffer) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from the host in time")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except (ssl.SSLZeroReturnError, ConnectionResetError):
                chunk = b""
            if not chunk:
                if self.buffer:
                    raise WireError("bad_frame", "the stream ended inside a frame")
                return None
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def recv(self, deadline: float) -> dict[str, Any] | None:
        """The next message, validated; None when the stream ends between frames."""
        head = self._read(4, deadline)
        if head is None:
            return None
        n = int.from_bytes(head, "big")
        if n == 0:
            raise WireError("bad_frame", "a frame of length 0")
        if n > MAX_PAYLOAD:
            raise WireError("too_big", f"a frame of {n} bytes")
        payload = self._read(n, deadline)
        if payload is None:
            raise WireError("bad_frame", "the stream ended inside a frame")
        return check_message(decode_payload(payload))


# --------------------------------------------------------------------------------------------
# The client


@dataclass
class Round:
    """One fair-deal round as this client saw it."""

    number: int
    ctx: bytes
    cards: list[int]
    seed: bytes
    commitment: bytes
    commitments: dict[str, list[bytes]] = field(default_factory=dict)
    revealed: bool = False
    reveals: dict[str, list[bytes]] | None = None


@dataclass
class Report:
    """What one session showed: counts for the test's assertions, findings for its message."""

    seat: int | None = None
    my_id: str = ""
    tls_version: str | None = None
    welcome: dict[str, Any] | None = None
    hand: dict[str, Any] | None = None
    rounds: list[Round] = field(default_factory=list)
    steps: int = 0
    views: int = 0
    moves: int = 0
    rejects: list[dict[str, Any]] = field(default_factory=list)
    hand_over: dict[str, Any] | None = None
    reveals: int = 0
    log_heads: dict[str, Any] | None = None
    bye: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    count: int = 0
    head: bytes = b""
    cards: list[int] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)  # promises seen kept
    violations: list[str] = field(default_factory=list)  # promises seen broken
    received: list[str] = field(default_factory=list)  # message types in order

    def check(self, ok: bool, what: str) -> bool:
        """Record a promise of the spec as kept or broken."""
        (self.checks if ok else self.violations).append(what)
        return ok


class RawClient:
    """A seated player driven by the spec alone."""

    def __init__(
        self, host: str, port: int, pin: str, name: str = "raw", seed: int = 4, seats: int = 2
    ) -> None:
        """Make the session key; nothing is sent until :meth:`run`."""
        self.host, self.port, self.pin, self.name = host, port, pin, name
        self.seats = seats
        self.key = Ed25519PrivateKey.generate()
        self.public = self.key.public_key().public_bytes_raw()
        self.rng = random.Random(seed)
        self.report = Report()
        self.conn: Connection | None = None
        # hand state
        self.ctx0 = b""
        self.parts: list[str] = []
        self.keys: dict[str, bytes] = {}
        self.deck: list[int] = []
        self.log: list[bytes] = []
        self.head = b""
        self.pile: list[int] = []
        self.played: list[int] = []  # cards our seat laid, from the log
        self.seq = 0
        self.moved_at: int | None = None
        self.ready_sent = False
        self.log_head_sent = False

    # -- plumbing -----------------------------------------------------------------------------

    def send(self, msg: dict[str, Any]) -> None:
        """Send a client message, checking this client keeps to its own state rules."""
        assert self.conn is not None
        assert msg["type"] in CLIENT_OPEN | {"hello", "bye"}, msg["type"]
        self.conn.send(msg)

    def sign(self, message: bytes) -> bytes:
        """Ed25519 signature with the session key."""
        return self.key.sign(message)

    # -- the session --------------------------------------------------------------------------

    def run(self, timeout: float) -> Report:
        """Play one session until the host says ``bye`` (or errors, or the time is up)."""
        deadline = time.monotonic() + timeout
        rep = self.report
        self.conn = Connection(self.host, self.port, self.pin, timeout)
        rep.tls_version = self.conn.tls_version
        rep.check(rep.tls_version == "TLSv1.3", f"TLS version is {rep.tls_version}")
        try:
            self.send(
                {
                    "type": "hello",
                    "version": PROTOCOL_VERSION,
                    "name": self.name,
                    "key": self.public,
                    "spectate": False,
                    "password": None,
                    "token": None,
                }
            )
            first = self.conn.recv(deadline)
            if first is None or first["type"] != "welcome":
                raise SpecViolationError(f"the first answer to hello is {first!r}, not welcome")
            rep.received.append("welcome")
            rep.welcome = first
            rep.check(first["version"] == PROTOCOL_VERSION, "welcome.version is 1")
            rep.seat = first["seat"]
            if rep.seat is None:
                raise SpecViolationError("asked for a seat at a table with a free one, got none")
            while True:
                msg = self.conn.recv(deadline)
                if msg is None:
                    rep.check(False, "the host closed without bye")
                    break
                rep.received.append(msg["type"])
                if msg["type"] == "bye":
                    rep.bye = msg
                    break
                if msg["type"] == "error":
                    rep.error = msg
                    break
                if msg["type"] not in HOST_OPEN:
                    raise SpecViolationError(f"the host sent {msg['type']} in the open state")
                getattr(self, "on_" + msg["type"])(msg)
        finally:
            self.conn.close()
        return rep

    # -- lobby ---------------------------------------------------------------------------------

    def on_lobby(self, msg: dict[str, Any]) -> None:
        """Check our seat entry; say ``ready`` when it shows us not ready between hands."""
        rep = self.report
        assert rep.seat is not None
        if rep.seat >= len(msg["seats"]):
            raise SpecViolationError(f"lobby has no seat {rep.seat}")
        rep.check(len(msg["seats"]) == self.seats, f"lobby lists {self.seats} seats")
        entry = msg["seats"][rep.seat]
        rep.my_id = entry["id"]
        if entry["key"]:
            rep.check(entry["key"] == self.public, "the lobby shows our session key")
        if not entry["ready"] and not msg["playing"] and rep.hand is None:
            if not self.ready_sent:
                self.send({"type": "ready", "ready": True})
                self.ready_sent = True
        elif entry["ready"]:
            self.ready_sent = False

    def on_chat(self, msg: dict[str, Any]) -> None:
        """Chat is not this client's business."""

    def on_ping(self, msg: dict[str, Any]) -> None:
        """Answer a ping."""
        self.send({"type": "pong", "nonce": msg["nonce"]})

    def on_pong(self, msg: dict[str, Any]) -> None:
        """This client sends no ping; an unasked pong is harmless."""

    def on_reject(self, msg: dict[str, Any]) -> None:
        """A stale move is expected after a resent view; anything else is a finding."""
        self.report.rejects.append(msg)
        if msg["code"] == "stale_view":
            return
        self.report.check(False, f"reject {msg['code']}: {msg['text']}")

    # -- the hand ------------------------------------------------------------------------------

    def on_hand(self, msg: dict[str, Any]) -> None:
        """Compute ``ctx_0`` from the hand's setup; check the keys; start the log."""
        rep = self.report
        assert rep.seat is not None
        if rep.hand is not None:
            rep.check(msg["hand_no"] != rep.hand["hand_no"], "a new hand takes a new number")
        rep.hand = msg
        seats = msg["seats"]
        self.parts = participants(seats)
        rep.check(len(set(self.parts)) == len(self.parts), "hand.seats are distinct")
        if rep.my_id:
            rep.check(seats[rep.seat] == rep.my_id, "hand.seats names our seat as the lobby did")
        rep.my_id = seats[rep.seat]
        dealt_in = len(seats) - len(msg["out"])
        decks, jokers = deck_setup(msg["rules"], dealt_in)
        self.deck = setup_cards(decks, jokers)
        self.ctx0 = context0(msg["game_id"], msg["hand_no"], decks, jokers, self.parts)
        self.keys = dict(msg["keys"])
        rep.check(set(self.keys) == set(self.parts), "hand.keys names every participant")
        rep.check(self.keys.get(rep.my_id) == self.public, "hand.keys holds our session key")
        self.log, self.head, self.pile, self.played = [], log_head0(self.ctx0), [], []
        self.seq = 0
        self.moved_at = None
        rep.rounds = []
        rep.cards = []

    def on_announce(self, msg: dict[str, Any]) -> None:
        """Step 1: check the context and commit; step 3: check the list and reveal."""
        rep = self.report
        r = msg["round"]
        if not msg["commitments"]:
            expected = len(rep.rounds)
            rep.check(r == expected, f"round {r} announced after {expected} rounds")
            if r == 0:
                ctx, cards = self.ctx0, self.deck
                rep.check(msg["cards"] == self.deck, "round 0's cards are the setup's deck")
            else:
                cards = sorted(self.pile[:-1])
                rep.check(
                    msg["cards"] == cards,
                    f"round {r}'s cards are the pile under its top card "
                    f"(announced {msg['cards']}, computed {cards})",
                )
                ctx = reshuffle_context(self.ctx0, r, self.head, cards)
            if not rep.check(msg["ctx"] == ctx, f"announce.ctx of round {r} is ours"):
                rep.rounds.append(Round(r, msg["ctx"], msg["cards"], b"", b""))
                return  # the spec: do not take part; keep the evidence
            seed = secrets.token_bytes(32)
            c = commitment(ctx, rep.my_id, seed)
            rep.rounds.append(Round(r, ctx, list(cards), seed, c))
            self.send(
                {
                    "type": "commit",
                    "round": r,
                    "commitment": c,
                    "signature": self.sign(sign_commit_msg(ctx, rep.my_id, c)),
                }
            )
            return
        rnd = next((x for x in rep.rounds if x.number == r), None)
        if rnd is None or not rnd.seed:
            rep.check(False, f"second announce of round {r}, which we did not commit to")
            return
        ok = rep.check(set(msg["commitments"]) == set(self.parts), f"round {r}: all commit")
        mine = msg["commitments"].get(rep.my_id)
        ok &= rep.check(
            mine is not None and mine[0] == rnd.commitment, f"round {r}: our commitment kept"
        )
        ok &= rep.check(msg["ctx"] == rnd.ctx, f"round {r}: the second announce's ctx")
        for pid, (c, sig) in msg["commitments"].items():
            key = self.keys.get(pid, b"")
            ok &= rep.check(
                verify(key, sig, sign_commit_msg(rnd.ctx, pid, c)),
                f"round {r}: {pid}'s commitment signature",
            )
        rnd.commitments = dict(msg["commitments"])
        if not ok or rnd.revealed:
            return
        rnd.revealed = True
        self.send(
            {
                "type": "reveal",
                "round": r,
                "seed": rnd.seed,
                "signature": self.sign(
                    sign_reveal_msg(rnd.ctx, rep.my_id, rnd.commitment, rnd.seed)
                ),
            }
        )

    def on_events(self, msg: dict[str, Any]) -> None:
        """Extend the log, track the pile and our cards; check seq and redaction."""
        rep = self.report
        seat = rep.seat
        rep.check(msg["seq"] == self.seq + 1, f"events.seq {msg['seq']} follows {self.seq}")
        self.seq = msg["seq"]
        rep.steps += 1
        if not self.log and rep.hand is not None:
            note = setup_note(rep.hand["rules"], rep.hand["dealer"], rep.hand["out"])
            rep.check(
                bool(msg["log"]) and msg["log"][0] == note, "the first log event is the setup note"
            )
        for raw in msg["log"]:
            ev = decode_event(raw)
            if ev.kind in ("turnup", "play"):
                self.pile.append(ev.card)
            if ev.kind == "play" and ev.seat == seat:
                self.played.append(ev.card)
            elif ev.kind == "reshuffle":
                self.pile = self.pile[-1:]
            self.log.append(raw)
            self.head = log_next(self.head, raw)
        for kind, who, value in msg["events"]:
            if kind in ("deal", "draw"):
                if who == seat:
                    rep.check(0 <= value <= 107, f"our own {kind} event shows the card")
                    rep.cards.append(value)
                else:
                    rep.check(value == -1, f"seat {who}'s {kind} event is redacted")

    def on_view(self, msg: dict[str, Any]) -> None:
        """Check the view against the events; move when it is our turn."""
        rep = self.report
        seat = rep.seat
        assert seat is not None
        rep.views += 1
        rep.check(msg["seq"] == self.seq, f"view.seq {msg['seq']} is the last events' {self.seq}")
        rep.check(msg["seat"] == seat, "view.seat is our seat")
        counts = msg["counts"]
        rep.check(
            seat < len(counts) and len(msg["hand"]) <= counts[seat],
            f"view.hand ({len(msg['hand'])}) holds no more than counts[{seat}]",
        )
        rep.check(
            seat < len(counts) and len(msg["hand"]) == counts[seat],
            "view.hand holds exactly counts[seat] cards",
        )
        rep.check(msg["hand"] == sorted(msg["hand"]), "view.hand is ascending")
        held = list(rep.cards)
        for c in self.played:
            if c in held:
                held.remove(c)
        rep.check(
            sorted(held) == msg["hand"], "view.hand = cards dealt/drawn to us minus cards played"
        )
        if msg["turn"] != seat:
            rep.check(not msg["legal"], "view.legal is empty when it is not our turn")
            return
        if not msg["legal"] or self.moved_at == msg["seq"] or msg["seq"] != self.seq:
            return
        cards = [m for m in msg["legal"] if m < 108]
        move = self.rng.choice(cards) if cards else msg["legal"][0]
        self.moved_at = msg["seq"]
        rep.moves += 1
        self.send({"type": "move", "seq": msg["seq"], "move": move})

    def on_abort(self, msg: dict[str, Any]) -> None:
        """A void hand is a finding in a test with honest bots."""
        self.report.check(False, f"abort: {msg}")

    # -- after the hand ------------------------------------------------------------------------

    def on_hand_over(self, msg: dict[str, Any]) -> None:
        """Check the host's signed head against our log and its cards signature."""
        rep = self.report
        rep.hand_over = msg
        reasons = ("finished", "one_left", "blocked", "limit", "void")
        rep.check(msg["reason"] in reasons, f"hand_over.reason {msg['reason']!r} is the spec's")
        count, head, sig = msg["head"]
        rep.count, rep.head = len(self.log), self.head
        rep.check(count == len(self.log), f"hand_over.head count {count} = {len(self.log)} events")
        rep.check(head == self.head, "hand_over.head is the head of our log")
        rep.check(
            verify(self.keys.get(DEALER, b""), sig, sign_log_msg(self.ctx0, DEALER, count, head)),
            "hand_over.head's signature verifies with @dealer's key",
        )
        rep.check(
            verify(
                self.keys.get(DEALER, b""),
                msg["cards_signature"],
                sign_cards_msg(self.ctx0, rep.my_id, rep.cards),
            ),
            "hand_over.cards_signature verifies over our cards",
        )

    def on_reveals(self, msg: dict[str, Any]) -> None:
        """Check each round's seeds; after the last, verify the deal and send our head."""
        rep = self.report
        rep.reveals += 1
        r = msg["round"]
        rep.check(
            r == rep.reveals - 1, f"reveals come in round order ({r} is number {rep.reveals})"
        )
        rnd = next((x for x in rep.rounds if x.number == r), None)
        if not rep.check(rnd is not None, f"reveals for announced round {r}"):
            return
        assert rnd is not None
        rnd.reveals = dict(msg["seeds"])
        rep.check(set(msg["seeds"]) == set(self.parts), f"round {r}: every seed revealed")
        mine = msg["seeds"].get(rep.my_id)
        rep.check(mine is not None and mine[0] == rnd.seed, f"round {r}: our seed unchanged")
        for pid, (seed, sig) in msg["seeds"].items():
            c = rnd.commitments.get(pid, [b""])[0]
            key = self.keys.get(pid, b"")
            rep.check(
                verify(key, sig, sign_reveal_msg(rnd.ctx, pid, c, seed)),
                f"round {r}: {pid}'s reveal signature",
            )
            rep.check(commitment(rnd.ctx, pid, seed) == c, f"round {r}: {pid}'s seed opens")
        if rep.reveals == len(rep.rounds) and not self.log_head_sent:
            self.verify_deal()
            self.log_head_sent = True
            count, head = len(self.log), self.head
            self.send(
                {
                    "type": "log_head",
                    "count": count,
                    "head": head,
                    "signature": self.sign(sign_log_msg(self.ctx0, rep.my_id, count, head)),
                }
            )

    def verify_deal(self) -> None:
        """§ Verification 2–3: rebuild every order from the seeds and replay the log."""
        rep = self.report
        by_round = {x.number: x for x in rep.rounds}

        def order_for(r: int, ctx: bytes, cards: list[int]) -> list[int]:
            rnd = by_round.get(r)
            if rnd is None or rnd.reveals is None:
                raise SpecViolationError(f"the log uses round {r}, which was never revealed")
            if ctx != rnd.ctx or cards != sorted(rnd.cards):
                raise SpecViolationError(f"round {r}'s context or cards differ from the announce")
            seeds = {p: s for p, (s, _sig) in rnd.reveals.items()}
            return round_order(ctx, seeds, cards)

        try:
            result = replay(self.ctx0, self.log, self.deck, order_for)
        except SpecViolationError as exc:
            rep.check(False, f"stock model: {exc}")
            return
        rep.check(result.rounds == len(rep.rounds), "every round announced was used")
        assert rep.seat is not None
        rep.check(
            result.cards.get(rep.seat, []) == rep.cards,
            "the seeds deal us exactly the cards we were shown",
        )

    def on_log_heads(self, msg: dict[str, Any]) -> None:
        """Every participant signed the same head as ours."""
        rep = self.report
        rep.log_heads = msg
        rep.check(set(msg["heads"]) == set(self.parts), "log_heads from every participant")
        for pid, (count, head, sig) in msg["heads"].items():
            rep.check((count, head) == (len(self.log), self.head), f"{pid}'s log head equals ours")
            rep.check(
                verify(self.keys.get(pid, b""), sig, sign_log_msg(self.ctx0, pid, count, head)),
                f"{pid}'s log-head signature verifies",
            )
