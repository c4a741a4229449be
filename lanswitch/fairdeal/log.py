"""The public log of a hand: its events, their one encoding, and the hash chain over them.

Every public thing that happens in a hand is an event of the log — the setup, each round's
shuffle, every card turned up, every move with the signature of whoever made it, how many
cards each seat took, and who went away or came back. The log is a SHA-256 chain whose head
every participant signs, so all of them agree on one history or the disagreement shows
(``protocol/SPEC.md``, "Public log"). It never holds a card only one seat may see: a ``Draw``
says how many cards, not which.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, Final, TypeAlias

from ..cards import MAX_CARD
from .primitives import (
    HASH_BYTES,
    LABELS,
    MAX_SEATS,
    SIGNATURE_BYTES,
    UsageError,
    enc,
    label_hash,
    need_bytes,
    u8,
    u16,
    u32,
)

__all__ = [
    "BY_BOT",
    "BY_NAMES",
    "BY_SEAT",
    "BY_STAND_IN",
    "BY_TIMEOUT",
    "LEFT",
    "LOST",
    "Away",
    "Back",
    "Draw",
    "Log",
    "LogEvent",
    "Move",
    "Note",
    "Shuffle",
    "TurnUp",
    "decode_event",
    "log_start",
    "log_step",
]

_TWO32: Final = 1 << 32

# Who made a move (Move.by). The seat itself signs its own moves with its key; every other
# maker is the host, which signs as @dealer and says why it moved for that seat.
BY_SEAT: Final = 0
"""The seat's own player, signed with the seat's key."""
BY_BOT: Final = 1
"""The host, for a seat it runs (a bot): the seat has no key of its own."""
BY_STAND_IN: Final = 2
"""The host, standing in for a player who is away (an ``Away`` event before it says so)."""
BY_TIMEOUT: Final = 3
"""The host, for a player whose turn timer ran out (only at a table with a turn timer)."""
BY_NAMES: Final = {
    BY_SEAT: "the player",
    BY_BOT: "the host's bot",
    BY_STAND_IN: "the host's stand-in",
    BY_TIMEOUT: "the host, the turn timer having run out",
}

# How a seat went away (Away.how).
LEFT: Final = 0
"""The player left the table: the event carries its own signed head of the log so far."""
LOST: Final = 1
"""The player's link was lost and it did not come back within the grace: the host's word."""


def _check_field(name: str, value: int, lo: int, hi: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise UsageError(f"{name} must be {lo}..{hi}, not {value!r}")


def _check_seat(seat: int) -> None:
    _check_field("seat", seat, 0, MAX_SEATS - 1)


@dataclass(frozen=True, slots=True)
class Draw:
    """``seat`` takes the top ``n`` cards of the stock, top card first (dealing included)."""

    TAG: ClassVar[int] = 0x01
    seat: int
    n: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        _check_field("n", self.n, 1, 255)

    def encode(self) -> bytes:
        return bytes((self.TAG, self.seat, self.n))


@dataclass(frozen=True, slots=True)
class TurnUp:
    """The top card of the stock, ``card``, is turned face up onto the discard pile."""

    TAG: ClassVar[int] = 0x02
    card: int

    def __post_init__(self) -> None:
        _check_field("card", self.card, 0, MAX_CARD - 1)

    def encode(self) -> bytes:
        return bytes((self.TAG, self.card))


@dataclass(frozen=True, slots=True)
class Move:
    """A move of ``seat`` (an engine move code: a card laid, a suit named, draw, pass, a call,
    a blunder as ``BLUNDER_FLAG | move``), made by ``by`` (:data:`BY_SEAT` …) and signed by its
    maker over the log before this event (:func:`~.primitives.move_message`)."""

    TAG: ClassVar[int] = 0x03
    seat: int
    by: int
    move: int
    signature: bytes

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        _check_field("by", self.by, BY_SEAT, BY_TIMEOUT)
        _check_field("move", self.move, 0, _TWO32 - 1)
        need_bytes("signature", self.signature, SIGNATURE_BYTES)

    def encode(self) -> bytes:
        return bytes((self.TAG, self.seat, self.by)) + u32(self.move) + self.signature


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Round ``round`` ran among the seats of ``mask`` (and ``@dealer``): its order of ``n``
    cards is now the stock — the deck for the deal, the discard pile under its top card for a
    reshuffle."""

    TAG: ClassVar[int] = 0x04
    round: int
    n: int
    mask: int

    def __post_init__(self) -> None:
        _check_field("round", self.round, 0, _TWO32 - 1)
        _check_field("n", self.n, 1, 255)
        _check_field("mask", self.mask, 0, (1 << MAX_SEATS) - 1)

    def encode(self) -> bytes:
        return u8(self.TAG) + u32(self.round) + u8(self.n) + u16(self.mask)


_NOTE_LABEL_RE: Final = re.compile(r"[a-z0-9][a-z0-9._/-]{0,63}")


@dataclass(frozen=True, slots=True)
class Note:
    """Data the table binds into the log (the hand's setup) under a short label.

    ``label``: 1–64 of ``a–z 0–9 . _ / -``, starting alphanumeric.
    """

    TAG: ClassVar[int] = 0x05
    label: str
    data: bytes = b""

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not _NOTE_LABEL_RE.fullmatch(self.label):
            raise UsageError(f"{self.label!r} is not a note label")
        if not isinstance(self.data, bytes) or len(self.data) > 0xFFFF:
            raise UsageError("note data must be at most 65535 bytes")

    def encode(self) -> bytes:
        return u8(self.TAG) + enc(self.label) + enc(self.data)


@dataclass(frozen=True, slots=True)
class Away:
    """The player of ``seat`` is away from here on: the host stands in for it (its moves are
    ``BY_STAND_IN``) and later rounds run without it.

    ``how``: :data:`LEFT` — it said goodbye, and ``count``/``head``/``signature`` are its own
    signed head of the log so far (what it confirmed); :data:`LOST` — its link was lost and it
    did not come back in time, on the host's word (``count`` 0, empty head and signature).
    """

    TAG: ClassVar[int] = 0x06
    seat: int
    how: int
    count: int = 0
    head: bytes = b""
    signature: bytes = b""

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        _check_field("how", self.how, LEFT, LOST)
        _check_field("count", self.count, 0, _TWO32 - 1)
        if self.how == LEFT:
            need_bytes("head", self.head, HASH_BYTES)
            need_bytes("signature", self.signature, SIGNATURE_BYTES)
        elif self.count or self.head or self.signature:
            raise UsageError("a lost player's away event carries no head")

    def encode(self) -> bytes:
        base = bytes((self.TAG, self.seat, self.how))
        if self.how == LEFT:
            return base + u32(self.count) + self.head + self.signature
        return base


@dataclass(frozen=True, slots=True)
class Back:
    """The player of ``seat``, away since an ``Away`` event, is back and plays for itself."""

    TAG: ClassVar[int] = 0x07
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)

    def encode(self) -> bytes:
        return bytes((self.TAG, self.seat))


LogEvent: TypeAlias = Draw | TurnUp | Move | Shuffle | Note | Away | Back
"""One public event of the hand, as it goes into the hash chain."""


def decode_event(data: bytes) -> LogEvent:
    """The inverse of ``event.encode()``; ``UsageError`` unless ``data`` is exactly one event."""
    try:
        tag, n = data[0], len(data)
        if tag == Draw.TAG and n == 3:
            return Draw(data[1], data[2])
        if tag == TurnUp.TAG and n == 2:
            return TurnUp(data[1])
        if tag == Move.TAG and n == 7 + SIGNATURE_BYTES:
            return Move(data[1], data[2], int.from_bytes(data[3:7], "big"), bytes(data[7:]))
        if tag == Shuffle.TAG and n == 8:
            return Shuffle(
                int.from_bytes(data[1:5], "big"), data[5], int.from_bytes(data[6:8], "big")
            )
        if tag == Note.TAG:
            k = int.from_bytes(data[1:3], "big")
            label = data[3 : 3 + k]
            m = int.from_bytes(data[3 + k : 5 + k], "big")
            body = data[5 + k :]
            if len(label) == k and n >= 5 + k and len(body) == m:
                return Note(label.decode("ascii"), bytes(body))
        if tag == Away.TAG and n == 3 and data[2] != 0:
            return Away(data[1], data[2])
        if tag == Away.TAG and n == 7 + HASH_BYTES + SIGNATURE_BYTES and data[2] == 0:
            return Away(
                data[1],
                0,
                int.from_bytes(data[3:7], "big"),
                bytes(data[7 : 7 + HASH_BYTES]),
                bytes(data[7 + HASH_BYTES :]),
            )
        if tag == Back.TAG and n == 2:
            return Back(data[1])
    except (IndexError, UnicodeDecodeError, UsageError):
        pass
    raise UsageError(f"not one log event: {bytes(data).hex()}")


def log_start(ctx0: bytes) -> bytes:
    """``head_0 = H("log", ctx_0)``: the log of a hand starts bound to the hand's context."""
    return label_hash("log", need_bytes("ctx0", ctx0, HASH_BYTES))


_LOG_EVENT_HASH: Final = hashlib.sha256(enc(LABELS["log-event"]))


def log_step(head: bytes, event: LogEvent | bytes) -> bytes:
    """``head_{k+1} = H("log-event", head_k ‖ enc(event_k))``; ``event`` or its encoding."""
    data = event if isinstance(event, bytes) else event.encode()
    if len(head) != HASH_BYTES:
        raise UsageError(f"a log head is {HASH_BYTES} bytes")
    h = _LOG_EVENT_HASH.copy()
    h.update(head + len(data).to_bytes(2, "big") + data)
    return h.digest()


class Log:
    """A hand's public log: its events, and the head after every prefix of them.

    ``heads[k]`` is the head after the first ``k`` events, so a signature over any prefix (a
    move's, a head signed by a player who left) is checked without walking the chain again.
    """

    __slots__ = ("ctx0", "events", "heads")

    def __init__(self, ctx0: bytes, events: Iterable[LogEvent] = ()) -> None:
        self.ctx0 = ctx0
        self.heads = [log_start(ctx0)]
        self.events: list[LogEvent] = []
        self.extend(events)

    @property
    def count(self) -> int:
        """How many events the log holds (the ``count`` a log-head signature covers)."""
        return len(self.events)

    @property
    def head(self) -> bytes:
        return self.heads[-1]

    def append(self, event: LogEvent) -> bytes:
        """Add ``event``; returns the new head."""
        head = log_step(self.heads[-1], event)
        self.heads.append(head)
        self.events.append(event)
        return head

    def extend(self, events: Iterable[LogEvent]) -> bytes:
        for ev in events:
            self.append(ev)
        return self.head

    def head_at(self, count: int) -> bytes | None:
        """The head after the first ``count`` events (None past the end)."""
        return self.heads[count] if 0 <= count < len(self.heads) else None
