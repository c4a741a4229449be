"""The fair deal: commit-reveal seeds, key derivation, an unbiased shuffle, a hash-chained log.

Theory of operation
-------------------
Every order of cards a hand uses — the deal and every reshuffle of the discard pile — comes
from one *round* of commit-reveal among all participants: every seat plus the host's own
contribution under the reserved id :data:`DEALER` (``@dealer``). ``protocol/SPEC.md``
("Fair deal") is the byte-exact description; this module is its reference implementation.

1. Everyone computes the round's context: :func:`hand_context` for the deal (round 0),
   :func:`reshuffle_context` for reshuffle round ``r`` (bound to the discard pile and to the
   public log so far).
2. Each participant draws a 32-byte seed (the shells use ``secrets.token_bytes(32)``) and sends
   :func:`commitment` — a hash of the context, its id and its seed — to the host.
3. When every commitment is in, the host broadcasts them all; each client checks the set with
   :func:`check_announced`. Then each participant sends its seed to the host alone.
4. The host checks that every seed opens its commitment, derives the key with
   :func:`deck_key` (HKDF over all seeds) and orders the cards with :func:`shuffle`
   (Fisher–Yates driven by an HMAC keystream, rejection-sampled so it is unbiased).
5. After the hand the host reveals every seed of every round; :func:`open_round` re-checks a
   round from a transcript and names who is to blame if something does not open.

:class:`Round` is the host's side of one round as a pure state machine (no sockets, no clock:
a timeout is the shell calling :meth:`Round.abandon`). Every public event of the hand goes
into a :class:`Log`, a SHA-256 hash chain whose final head all clients compare; commitments,
reveals and log heads are signed with per-session Ed25519 keys (:func:`sign_commitment`,
:func:`sign_reveal`, :func:`sign_log_head`), and the host signs each seat's private cards
(:func:`sign_cards`), so blame can be shown to a third party. Key *generation* is the
shells' job; this module only uses keys it is given. Driving a whole hand this way, each
seat's transcript and its verification are :mod:`lanswitch.transcript`.

Errors: :class:`UsageError` means the caller broke an API rule (a bug on this side);
:class:`Blame` means a participant broke the protocol and names it (``@dealer`` = the host).

Nothing here reads a clock, the network or the OS's randomness: seeds and keys come in as bytes.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final, TypeAlias

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .cards import MAX_CARD, MAX_DECKS, MAX_JOKERS

__all__ = [
    "DEALER",
    "GAME_ID_BYTES",
    "HASH_BYTES",
    "LABELS",
    "MAX_PARTICIPANTS",
    "SEED_BYTES",
    "SIGNATURE_BYTES",
    "Action",
    "Blame",
    "Draw",
    "FairnessError",
    "Fault",
    "Log",
    "LogEvent",
    "Note",
    "Play",
    "PrivateKeyLike",
    "PublicKeyLike",
    "Reshuffle",
    "Round",
    "RoundState",
    "Suit",
    "TurnUp",
    "UsageError",
    "cards_message",
    "check_announced",
    "check_id",
    "commitment",
    "commitment_message",
    "deck_key",
    "decode_event",
    "derive_order",
    "enc",
    "encode_event",
    "hand_context",
    "is_valid_id",
    "label_hash",
    "log_head",
    "log_head_message",
    "log_start",
    "log_step",
    "open_round",
    "participants",
    "private_key",
    "public_bytes",
    "public_key",
    "rejection_limit",
    "reshuffle_context",
    "reveal_message",
    "shuffle",
    "shuffle_words",
    "sign",
    "sign_cards",
    "sign_commitment",
    "sign_log_head",
    "sign_reveal",
    "stream_block",
    "stream_words",
    "uniform",
    "verify",
    "verify_cards",
    "verify_commitment",
    "verify_log_head",
    "verify_reveal",
]

# ---------------------------------------------------------------------------------------------
# Constants

DEALER: Final = "@dealer"
"""The reserved id of the host's own contribution; always the last participant of a round."""

SEED_BYTES: Final = 32
HASH_BYTES: Final = 32
GAME_ID_BYTES: Final = 16
SIGNATURE_BYTES: Final = 64
MAX_PARTICIPANTS: Final = 255  # the count in ctx_0 is a u8; @dealer included

_PREFIX: Final = "lanswitch/v1/"
LABELS: Final = {
    name: _PREFIX + name
    for name in (
        "hand",
        "reshuffle",
        "commit",
        "deck-key",
        "stream",
        "log",
        "log-event",
        "sign/commit",
        "sign/reveal",
        "sign/log",
        "sign/cards",
    )
}
"""Every domain-separation label, by short name (``LABELS["commit"] == "lanswitch/v1/commit"``)."""

_ID_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
_TWO32: Final = 1 << 32
_WORDS: Final = struct.Struct(">8I")


# ---------------------------------------------------------------------------------------------
# Errors


class FairnessError(ValueError):
    """Base class of everything this module raises on purpose."""


class UsageError(FairnessError):
    """The caller broke an API rule: a malformed argument, or a call in the wrong state.

    Like h11's ``LocalProtocolError``: a bug on this side, not a peer's misbehaviour.
    """


class Fault(enum.Enum):
    """How a participant broke the protocol. The value is the text a player sees."""

    UNKNOWN_PARTICIPANT = "is not a participant of this round"
    BAD_COMMITMENT = "sent a commitment that is not 32 bytes"
    DUPLICATE_COMMITMENT = "committed twice"
    COPIED_COMMITMENT = "sent a commitment identical to another participant's"
    EARLY_REVEAL = "revealed its seed before every commitment was fixed"
    DUPLICATE_REVEAL = "revealed twice"
    BAD_REVEAL = "revealed a seed that does not open its commitment"
    BAD_SIGNATURE = "sent a message whose signature does not verify"
    MISSING_COMMITMENT = "did not commit"
    MISSING_REVEAL = "did not reveal its seed"
    # Faults of the host (culprit @dealer) seen by a client:
    WRONG_PARTICIPANTS = "announced a set of participants other than the hand's"
    ALTERED_COMMITMENT = "announced a commitment other than the one sent to it"
    ALTERED_SEED = "revealed a seed other than the one sent to it"
    FORGED_SIGNATURE = "passed on a commitment or seed without its participant's valid signature"


class Blame(FairnessError):  # noqa: N818  (it is what the protocol calls it)
    """A participant broke the protocol. ``culprits`` names who (``@dealer`` = the host)."""

    def __init__(self, fault: Fault, culprits: Iterable[str], detail: str = "") -> None:
        self.fault = fault
        self.culprits: tuple[str, ...] = tuple(culprits)
        self.detail = detail
        who = ", ".join(self.culprits) or "nobody"
        super().__init__(f"{who} {fault.value}" + (f": {detail}" if detail else ""))

    @property
    def pid(self) -> str:
        """The first (usually the only) participant blamed."""
        return self.culprits[0]

    def __reduce__(self) -> tuple[object, ...]:  # keep it picklable despite the custom init
        return (Blame, (self.fault, self.culprits, self.detail))


# ---------------------------------------------------------------------------------------------
# Encoding and hashing


def _u8(x: int) -> bytes:
    return x.to_bytes(1, "big")


def _u16(x: int) -> bytes:
    return x.to_bytes(2, "big")


def _u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


def enc(b: bytes | str) -> bytes:
    """``u16(len b) ‖ b``; a ``str`` is encoded as ASCII first."""
    if isinstance(b, str):
        try:
            b = b.encode("ascii")
        except UnicodeEncodeError:
            raise UsageError(f"{b!r} is not ASCII") from None
    if len(b) > 0xFFFF:
        raise UsageError(f"enc: {len(b)} bytes do not fit a u16 length")
    return _u16(len(b)) + b


def label_hash(name: str, *parts: bytes) -> bytes:
    """``SHA-256(enc("lanswitch/v1/" + name) ‖ parts…)``: every hash of the protocol."""
    h = hashlib.sha256(enc(LABELS[name]))
    for p in parts:
        h.update(p)
    return h.digest()


def _need_bytes(what: str, value: bytes, n: int) -> bytes:
    if not isinstance(value, bytes | bytearray) or len(value) != n:
        raise UsageError(f"{what} must be {n} bytes")
    return bytes(value)


# ---------------------------------------------------------------------------------------------
# Participants


def is_valid_id(pid: str) -> bool:
    """A seat's id: 1 to 32 of ``A–Z a–z 0–9 _ -`` (``@dealer`` is not a seat id)."""
    return isinstance(pid, str) and _ID_RE.fullmatch(pid) is not None


def check_id(pid: str, *, dealer_ok: bool = False) -> str:
    """``pid`` if it is a valid seat id (or ``@dealer`` when ``dealer_ok``), else UsageError."""
    if is_valid_id(pid) or (dealer_ok and pid == DEALER):
        return pid
    raise UsageError(f"{pid!r} is not a participant id ([A-Za-z0-9_-]{{1,32}})")


def participants(ids: Sequence[str]) -> tuple[str, ...]:
    """The participants of a hand's rounds: the seat ids in seat order, then ``@dealer``.

    The seat ids must be valid, distinct, and at most 254 (the count, @dealer included, is a u8).
    A seat's number in the log is its index here.
    """
    if isinstance(ids, str):
        raise UsageError("ids must be a sequence of ids, not one string")
    out = tuple(check_id(p) for p in ids)
    if not out:
        raise UsageError("a hand needs at least one seat")
    if len(set(out)) != len(out):
        raise UsageError(f"ids must be distinct: {list(out)}")
    if len(out) + 1 > MAX_PARTICIPANTS:
        raise UsageError(f"at most {MAX_PARTICIPANTS - 1} seats")
    return (*out, DEALER)


def _sorted_cards(cards: Iterable[int]) -> list[int]:
    """``cards`` sorted ascending, checked to be distinct card ids."""
    a = sorted(cards)
    try:
        bytes(a)  # every element an int in 0..255, checked in C
    except (TypeError, ValueError):
        raise UsageError(f"not a list of card ids: {a!r}") from None
    if a and a[-1] >= MAX_CARD:
        raise UsageError(f"{a[-1]} is not a card id (0..{MAX_CARD - 1})")
    if len(set(a)) != len(a):
        raise UsageError("a card appears twice")
    return a


# ---------------------------------------------------------------------------------------------
# Contexts, commitments, key


def hand_context(
    game_id: bytes, hand_no: int, decks: int, jokers: int, ids: Sequence[str]
) -> bytes:
    """``ctx_0``, the context of a hand's deal (round 0).

    ``H("hand", game_id[16] ‖ u32(hand_no) ‖ u8(decks) ‖ u8(jokers) ‖ u8(n) ‖ enc(id)…)`` over
    the ``n`` participants: ``ids`` (the seats, in seat order), then ``@dealer``.
    """
    game_id = _need_bytes("game_id", game_id, GAME_ID_BYTES)
    if not 0 <= hand_no < _TWO32:
        raise UsageError(f"hand_no must be a u32, not {hand_no}")
    if not 1 <= decks <= MAX_DECKS:
        raise UsageError(f"decks must be 1..{MAX_DECKS}, not {decks}")
    if not 0 <= jokers <= MAX_JOKERS:
        raise UsageError(f"jokers must be 0..{MAX_JOKERS}, not {jokers}")
    ps = participants(ids)
    return label_hash(
        "hand",
        game_id,
        _u32(hand_no),
        _u8(decks),
        _u8(jokers),
        _u8(len(ps)),
        *(enc(p) for p in ps),
    )


def reshuffle_context(
    ctx0: bytes, round_no: int, log_head: bytes, discard_cards: Iterable[int]
) -> bytes:
    """``ctx_r`` for reshuffle round ``r`` ≥ 1 of the hand whose deal context is ``ctx0``.

    ``H("reshuffle", ctx_0 ‖ u32(r) ‖ head ‖ u16(|D|) ‖ u8(card)… )`` with ``head`` the log
    head just before the reshuffle and ``D`` the cards to reshuffle (the discard pile without
    its top card), sorted ascending.
    """
    ctx0 = _need_bytes("ctx0", ctx0, HASH_BYTES)
    log_head = _need_bytes("log_head", log_head, HASH_BYTES)
    if not 1 <= round_no < _TWO32:
        raise UsageError(f"a reshuffle round number is 1..2^32-1, not {round_no}")
    d = _sorted_cards(discard_cards)
    if not d:
        raise UsageError("a reshuffle needs at least one card")
    return label_hash("reshuffle", ctx0, _u32(round_no), log_head, _u16(len(d)), bytes(d))


def commitment(ctx: bytes, pid: str, seed: bytes) -> bytes:
    """``H("commit", ctx ‖ enc(id) ‖ seed[32])``: binds the seed to the round and the id."""
    ctx = _need_bytes("ctx", ctx, HASH_BYTES)
    seed = _need_bytes("seed", seed, SEED_BYTES)
    return label_hash("commit", ctx, enc(check_id(pid, dealer_ok=True)), seed)


def _ikm(seeds: Mapping[str, bytes]) -> bytes:
    """``enc(id) ‖ seed`` for every participant, ids sorted by their ASCII bytes."""
    parts = []
    for pid in sorted(seeds, key=lambda p: p.encode("ascii")):
        seed = seeds[pid]
        if not (is_valid_id(pid) or pid == DEALER):
            check_id(pid, dealer_ok=True)  # raises with the message
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise UsageError(f"the seed of {pid} must be {SEED_BYTES} bytes")
        parts.append(enc(pid) + seed)
    return b"".join(parts)


def deck_key(ctx: bytes, seeds: Mapping[str, bytes]) -> bytes:
    """The round's deck key ``K``, 32 bytes.

    ``HKDF-SHA256(salt=ctx, ikm=enc(id) ‖ seed… over ids sorted by bytes, info=enc("deck-key"))``
    where ``seeds`` maps every participant id (``@dealer`` included) to its revealed seed.
    """
    ctx = _need_bytes("ctx", ctx, HASH_BYTES)
    if not seeds:
        raise UsageError("no seeds")
    return _hkdf(ctx, _ikm(seeds))


_DECK_KEY_INFO: Final = enc(LABELS["deck-key"])


def _hkdf(ctx: bytes, ikm: bytes) -> bytes:
    kdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=ctx, info=_DECK_KEY_INFO)
    return kdf.derive(ikm)


# ---------------------------------------------------------------------------------------------
# Keystream and the unbiased shuffle

_STREAM_PREFIX: Final = enc(LABELS["stream"])


def stream_block(key: bytes, k: int) -> bytes:
    """Block ``k`` of the keystream: ``HMAC-SHA256(K, enc("stream") ‖ u32(k))``, 32 bytes."""
    key = _need_bytes("key", key, 32)
    if not 0 <= k < _TWO32:
        raise UsageError(f"block index must be a u32, not {k}")
    return hmac.digest(key, _STREAM_PREFIX + _u32(k), "sha256")


def stream_words(key: bytes) -> Iterator[int]:
    """The keystream as big-endian u32 words: 8 per block, blocks 0, 1, 2, …"""
    key = _need_bytes("key", key, 32)
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for k in range(_TWO32):
        h = mac.copy()
        h.update(_STREAM_PREFIX + _u32(k))
        yield from _WORDS.unpack(h.digest())


def rejection_limit(n: int) -> int:
    """``2^32 − (2^32 mod n)``: the largest multiple of ``n`` not above 2^32.

    A word ``w < limit`` gives ``w mod n`` uniformly on ``0..n−1``; larger words are skipped.
    """
    if not 1 <= n <= _TWO32:
        raise UsageError(f"n must be 1..2^32, not {n}")
    return _TWO32 - _TWO32 % n


def uniform(n: int, words: Iterator[int]) -> int:
    """A uniform integer in ``0..n−1`` from the next accepted word of ``words``."""
    limit = rejection_limit(n)
    for w in words:
        if w < limit:
            return w % n
    raise UsageError("the word stream ran out")


def shuffle_words(cards: Iterable[int], words: Iterator[int]) -> list[int]:
    """Fisher–Yates (Durstenfeld) over ``sorted(cards)`` driven by ``words``.

    For ``i`` from ``m−1`` down to 1: ``j = uniform(i+1)``, swap ``a[i]`` and ``a[j]``.
    ``a[0]`` is the top of the stock. The reference form of :func:`shuffle` (which is faster).
    """
    a = _sorted_cards(cards)
    for i in range(len(a) - 1, 0, -1):
        j = uniform(i + 1, words)
        a[i], a[j] = a[j], a[i]
    return a


def _hmac_pads(key: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """HMAC-SHA256's inner and outer hash states for a key of at most 64 bytes (RFC 2104)."""
    k = key.ljust(64, b"\0")
    return (
        hashlib.sha256(bytes(b ^ 0x36 for b in k)),
        hashlib.sha256(bytes(b ^ 0x5C for b in k)),
    )


def _blocks(pads: tuple[hashlib._Hash, hashlib._Hash], start: int, count: int) -> bytes:
    """Keystream blocks ``start .. start+count−1``, concatenated."""
    inner, outer = pads
    out = []
    for k in range(start, start + count):
        i = inner.copy()
        i.update(_STREAM_PREFIX + k.to_bytes(4, "big"))
        o = outer.copy()
        o.update(i.digest())
        out.append(o.digest())
    return b"".join(out)


_LIMITS: Final = [0] + [_TWO32 - _TWO32 % n for n in range(1, MAX_CARD + 1)]


def shuffle(key: bytes, cards: Iterable[int]) -> list[int]:
    """The order of ``cards`` derived from ``key``: ``shuffle_words(cards, stream_words(key))``.

    ``order[0]`` is the top of the stock, as :meth:`lanswitch.game.Game.apply_chance` expects.
    This is the fast form: it computes the blocks a shuffle needs when no word is rejected in
    one go, and more only in the (2^-25 per word at most) event of a rejection.
    """
    key = _need_bytes("key", key, 32)
    a = _sorted_cards(cards)
    m = len(a)
    if m < 2:
        return a
    pads = _hmac_pads(key)
    nblocks = (m + 6) // 8  # m − 1 words
    words = list(struct.unpack(f">{8 * nblocks}I", _blocks(pads, 0, nblocks)))
    limits = _LIMITS
    pos = 0
    for i in range(m - 1, 0, -1):
        n = i + 1
        while True:
            if pos == len(words):  # only after a rejection used up a word
                words.extend(_WORDS.unpack(_blocks(pads, nblocks, 1)))
                nblocks += 1
            w = words[pos]
            pos += 1
            if w < limits[n]:
                break
        j = w % n
        a[i], a[j] = a[j], a[i]
    return a


def derive_order(ctx: bytes, seeds: Mapping[str, bytes], cards: Iterable[int]) -> list[int]:
    """``shuffle(deck_key(ctx, seeds), cards)``: the stock a round's seeds give."""
    return shuffle(deck_key(ctx, seeds), cards)


# ---------------------------------------------------------------------------------------------
# The public log


def _check_field(name: str, value: int, lo: int, hi: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise UsageError(f"{name} must be {lo}..{hi}, not {value!r}")


@dataclass(frozen=True, slots=True)
class Draw:
    """``seat`` takes the top ``n`` cards of the stock, top card first (dealing included)."""

    TAG: ClassVar[int] = 0x01
    seat: int
    n: int

    def __post_init__(self) -> None:
        _check_field("seat", self.seat, 0, 255)
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
class Play:
    """``seat`` lays ``card`` from its hand onto the discard pile."""

    TAG: ClassVar[int] = 0x03
    seat: int
    card: int

    def __post_init__(self) -> None:
        _check_field("seat", self.seat, 0, 255)
        _check_field("card", self.card, 0, MAX_CARD - 1)

    def encode(self) -> bytes:
        return bytes((self.TAG, self.seat, self.card))


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """Reshuffle round ``round`` ran: the discard pile bar its top card (``n`` cards) is now
    the stock, in the round's derived order."""

    TAG: ClassVar[int] = 0x04
    round: int
    n: int

    def __post_init__(self) -> None:
        _check_field("round", self.round, 1, _TWO32 - 1)
        _check_field("n", self.n, 1, 255)

    def encode(self) -> bytes:
        return _u8(self.TAG) + _u32(self.round) + _u8(self.n)


@dataclass(frozen=True, slots=True)
class Suit:
    """``seat`` names suit ``suit`` (0..3 = C D H S)."""

    TAG: ClassVar[int] = 0x05
    seat: int
    suit: int

    def __post_init__(self) -> None:
        _check_field("seat", self.seat, 0, 255)
        _check_field("suit", self.suit, 0, 3)

    def encode(self) -> bytes:
        return bytes((self.TAG, self.seat, self.suit))


@dataclass(frozen=True, slots=True)
class Action:
    """Any other action of ``seat``, by its engine move code (pass, draw, calls, mimic, blunder).

    The card check ignores it; the engine replay reads it.
    """

    TAG: ClassVar[int] = 0x06
    seat: int
    move: int

    def __post_init__(self) -> None:
        _check_field("seat", self.seat, 0, 255)
        _check_field("move", self.move, 0, _TWO32 - 1)

    def encode(self) -> bytes:
        return _u8(self.TAG) + _u8(self.seat) + _u32(self.move)


_NOTE_LABEL_RE: Final = re.compile(r"[a-z0-9][a-z0-9._/-]{0,63}")


@dataclass(frozen=True, slots=True)
class Note:
    """Data the table binds into the log (a rules digest, an abort, …) under a short label.

    The card check ignores it. ``label``: 1–64 of ``a–z 0–9 . _ / -``, starting alphanumeric.
    """

    TAG: ClassVar[int] = 0x07
    label: str
    data: bytes = b""

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not _NOTE_LABEL_RE.fullmatch(self.label):
            raise UsageError(f"{self.label!r} is not a note label")
        if not isinstance(self.data, bytes) or len(self.data) > 0xFFFF:
            raise UsageError("note data must be at most 65535 bytes")

    def encode(self) -> bytes:
        return _u8(self.TAG) + enc(self.label) + enc(self.data)


LogEvent: TypeAlias = Draw | TurnUp | Play | Reshuffle | Suit | Action | Note
"""One public event of the hand, as it goes into the hash chain."""


def encode_event(event: LogEvent) -> bytes:
    """The canonical bytes of ``event``: a tag byte, then fixed big-endian fields."""
    return event.encode()


def decode_event(data: bytes) -> LogEvent:
    """The inverse of :func:`encode_event`; ``UsageError`` unless ``data`` is exactly one event."""
    try:
        tag = data[0]
        if tag == Draw.TAG and len(data) == 3:
            return Draw(data[1], data[2])
        if tag == TurnUp.TAG and len(data) == 2:
            return TurnUp(data[1])
        if tag == Play.TAG and len(data) == 3:
            return Play(data[1], data[2])
        if tag == Reshuffle.TAG and len(data) == 6:
            return Reshuffle(int.from_bytes(data[1:5], "big"), data[5])
        if tag == Suit.TAG and len(data) == 3:
            return Suit(data[1], data[2])
        if tag == Action.TAG and len(data) == 6:
            return Action(data[1], int.from_bytes(data[2:6], "big"))
        if tag == Note.TAG:
            n = int.from_bytes(data[1:3], "big")
            label = data[3 : 3 + n]
            m = int.from_bytes(data[3 + n : 5 + n], "big")
            body = data[5 + n :]
            if len(label) == n and len(data) >= 5 + n and len(body) == m:
                return Note(label.decode("ascii"), bytes(body))
    except (IndexError, UnicodeDecodeError):
        pass
    raise UsageError(f"not one log event: {bytes(data).hex()}")


def log_start(ctx0: bytes) -> bytes:
    """``head_0 = H("log", ctx_0)``: the log of a hand starts bound to its deal context."""
    return label_hash("log", _need_bytes("ctx0", ctx0, HASH_BYTES))


_LOG_EVENT_HASH: Final = hashlib.sha256(enc(LABELS["log-event"]))


def log_step(head: bytes, event: LogEvent | bytes) -> bytes:
    """``head_{k+1} = H("log-event", head_k ‖ enc(event_k))``; ``event`` or its encoding."""
    data = event if isinstance(event, bytes) else event.encode()
    if len(head) != HASH_BYTES:
        raise UsageError(f"a log head is {HASH_BYTES} bytes")
    h = _LOG_EVENT_HASH.copy()
    h.update(head + len(data).to_bytes(2, "big") + data)
    return h.digest()


def log_head(ctx0: bytes, events: Iterable[LogEvent | bytes]) -> bytes:
    """The head after ``events``, starting from :func:`log_start`."""
    head = log_start(ctx0)
    for ev in events:
        head = log_step(head, ev)
    return head


class Log:
    """A hand's public log: the events so far and the head of their hash chain."""

    __slots__ = ("ctx0", "events", "head")

    def __init__(self, ctx0: bytes) -> None:
        self.ctx0 = ctx0
        self.head = log_start(ctx0)
        self.events: list[LogEvent] = []

    @property
    def count(self) -> int:
        """How many events the log holds (the ``count`` a log-head signature covers)."""
        return len(self.events)

    def append(self, event: LogEvent) -> bytes:
        """Add ``event``; returns the new head."""
        self.head = log_step(self.head, event)
        self.events.append(event)
        return self.head

    def extend(self, events: Iterable[LogEvent]) -> bytes:
        for ev in events:
            self.append(ev)
        return self.head


# ---------------------------------------------------------------------------------------------
# Signatures (Ed25519, per-session keys made by the shells)

PrivateKeyLike: TypeAlias = Ed25519PrivateKey | bytes
"""An Ed25519 private key object, or its raw 32 bytes."""
PublicKeyLike: TypeAlias = Ed25519PublicKey | bytes
"""An Ed25519 public key object, or its raw 32 bytes."""


def private_key(key: PrivateKeyLike) -> Ed25519PrivateKey:
    """The key object for ``key`` (raw 32 bytes are loaded, an object passes through)."""
    if isinstance(key, Ed25519PrivateKey):
        return key
    return Ed25519PrivateKey.from_private_bytes(_need_bytes("private key", key, 32))


def public_key(key: PublicKeyLike) -> Ed25519PublicKey:
    """The key object for ``key`` (raw 32 bytes are loaded, an object passes through)."""
    if isinstance(key, Ed25519PublicKey):
        return key
    try:
        return Ed25519PublicKey.from_public_bytes(_need_bytes("public key", key, 32))
    except ValueError as e:
        raise UsageError(f"not an Ed25519 public key: {e}") from None


def public_bytes(key: PrivateKeyLike) -> bytes:
    """The raw 32-byte public key of a private key."""
    return private_key(key).public_key().public_bytes_raw()


def commitment_message(ctx: bytes, pid: str, commitment_: bytes) -> bytes:
    """What a commitment's signature covers: ``enc("sign/commit") ‖ ctx ‖ enc(id) ‖ C``."""
    return (
        enc(LABELS["sign/commit"])
        + _need_bytes("ctx", ctx, HASH_BYTES)
        + enc(check_id(pid, dealer_ok=True))
        + _need_bytes("commitment", commitment_, HASH_BYTES)
    )


def reveal_message(ctx: bytes, pid: str, commitment_: bytes, seed: bytes) -> bytes:
    """What a reveal's signature covers: ``enc("sign/reveal") ‖ ctx ‖ enc(id) ‖ C ‖ enc(seed)``.

    It names the commitment ``C`` the seed claims to open, so one signed reveal is evidence on
    its own: if ``seed`` does not open ``C``, the signer is to blame; and a transcript
    verifier that checks the reveal signatures has checked every commitment's origin too.
    The seed is length-prefixed so that a signed seed of the wrong length is still evidence.
    """
    if not isinstance(seed, bytes) or len(seed) > 0xFFFF:
        raise UsageError("seed must be bytes")
    return (
        enc(LABELS["sign/reveal"])
        + _need_bytes("ctx", ctx, HASH_BYTES)
        + enc(check_id(pid, dealer_ok=True))
        + _need_bytes("commitment", commitment_, HASH_BYTES)
        + enc(seed)
    )


def log_head_message(ctx0: bytes, signer: str, count: int, head: bytes) -> bytes:
    """What a log-head signature covers.

    ``enc("sign/log") ‖ ctx_0 ‖ enc(signer) ‖ u32(count) ‖ head``: ``signer`` vouches that the
    log of the hand ``ctx_0`` has ``count`` events and ends in ``head``.
    """
    if not 0 <= count < _TWO32:
        raise UsageError(f"count must be a u32, not {count}")
    return (
        enc(LABELS["sign/log"])
        + _need_bytes("ctx0", ctx0, HASH_BYTES)
        + enc(check_id(signer, dealer_ok=True))
        + _u32(count)
        + _need_bytes("head", head, HASH_BYTES)
    )


def cards_message(ctx0: bytes, pid: str, cards: Sequence[int]) -> bytes:
    """What the host's signature over one seat's private cards covers.

    ``enc("sign/cards") ‖ ctx_0 ‖ enc(id) ‖ u16(count) ‖ u8(card)…``: the host (``@dealer``)
    vouches that it gave the seat ``id`` exactly these cards, in this order, in the hand
    ``ctx_0``. With it, a card the host swapped is provable to a third party, not only to the
    seat that received it.
    """
    if isinstance(cards, bytes | bytearray | str) or len(cards) > 0xFFFF:
        raise UsageError("cards must be a sequence of at most 65535 card ids")
    try:
        body = bytes(cards)
    except (TypeError, ValueError):
        raise UsageError(f"not a list of card ids: {list(cards)!r}") from None
    if body and max(body) >= MAX_CARD:
        raise UsageError(f"{max(body)} is not a card id (0..{MAX_CARD - 1})")
    return (
        enc(LABELS["sign/cards"])
        + _need_bytes("ctx0", ctx0, HASH_BYTES)
        + enc(check_id(pid))
        + _u16(len(body))
        + body
    )


def sign(key: PrivateKeyLike, message: bytes) -> bytes:
    """The 64-byte Ed25519 signature of ``message`` (deterministic)."""
    return private_key(key).sign(message)


def verify(key: PublicKeyLike, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``key``'s valid Ed25519 signature of ``message``."""
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        public_key(key).verify(signature, message)
    except InvalidSignature:
        return False
    return True


def sign_commitment(key: PrivateKeyLike, ctx: bytes, pid: str, commitment_: bytes) -> bytes:
    return sign(key, commitment_message(ctx, pid, commitment_))


def verify_commitment(
    key: PublicKeyLike, ctx: bytes, pid: str, commitment_: bytes, signature: bytes
) -> bool:
    return verify(key, commitment_message(ctx, pid, commitment_), signature)


def sign_reveal(
    key: PrivateKeyLike, ctx: bytes, pid: str, commitment_: bytes, seed: bytes
) -> bytes:
    return sign(key, reveal_message(ctx, pid, commitment_, seed))


def verify_reveal(
    key: PublicKeyLike, ctx: bytes, pid: str, commitment_: bytes, seed: bytes, signature: bytes
) -> bool:
    return verify(key, reveal_message(ctx, pid, commitment_, seed), signature)


def sign_log_head(key: PrivateKeyLike, ctx0: bytes, signer: str, count: int, head: bytes) -> bytes:
    return sign(key, log_head_message(ctx0, signer, count, head))


def verify_log_head(
    key: PublicKeyLike, ctx0: bytes, signer: str, count: int, head: bytes, signature: bytes
) -> bool:
    return verify(key, log_head_message(ctx0, signer, count, head), signature)


def sign_cards(key: PrivateKeyLike, ctx0: bytes, pid: str, cards: Sequence[int]) -> bytes:
    return sign(key, cards_message(ctx0, pid, cards))


def verify_cards(
    key: PublicKeyLike, ctx0: bytes, pid: str, cards: Sequence[int], signature: bytes
) -> bool:
    return verify(key, cards_message(ctx0, pid, cards), signature)


# ---------------------------------------------------------------------------------------------
# One commit-reveal round


class RoundState(enum.Enum):
    """Where a :class:`Round` stands.

    ``COMMIT`` → (every commitment in) → ``REVEAL`` → (every seed opens) → ``DONE``.
    ``COMMIT`` or ``REVEAL`` → (a seed does not open, or :meth:`Round.abandon`) → ``FAILED``.
    """

    COMMIT = "collecting commitments"
    REVEAL = "collecting seeds"
    DONE = "every seed opened; the key is derived"
    FAILED = "aborted; see Round.blame"


def _public_keys(
    keys: Mapping[str, PublicKeyLike] | None, ps: tuple[str, ...]
) -> dict[str, Ed25519PublicKey] | None:
    if keys is None:
        return None
    missing = [p for p in ps if p not in keys]
    if missing:
        raise UsageError(f"no public key for {missing}")
    return {p: public_key(keys[p]) for p in ps}


class Round:
    """The host's side of one commit-reveal round: a pure state machine.

    ``Round(ctx, ids)`` expects a commitment, then a seed, from each of ``participants(ids)``
    (the seats, then ``@dealer``). With ``public_keys`` (id → Ed25519 public key), every
    commitment and seed must come with its participant's signature, which is checked and kept.

    A rejected message raises :class:`Blame` and changes nothing, except a reveal that is
    validly signed (or unsigned, without keys) and does not open its commitment: that fails the
    round for good (``state`` ``FAILED``, ``blame`` set), since the hand must then be void.
    Time is not an input here: when the shell's timer runs out it calls :meth:`abandon`.
    """

    def __init__(
        self,
        ctx: bytes,
        ids: Sequence[str],
        *,
        public_keys: Mapping[str, PublicKeyLike] | None = None,
    ) -> None:
        self.ctx: Final = _need_bytes("ctx", ctx, HASH_BYTES)
        self.participants: Final = participants(ids)
        self.state = RoundState.COMMIT
        self.blame: Blame | None = None
        self._keys = _public_keys(public_keys, self.participants)
        self._commitments: dict[str, bytes] = {}
        self._commit_sigs: dict[str, bytes] = {}
        self._seeds: dict[str, bytes] = {}
        self._reveal_sigs: dict[str, bytes] = {}
        self._key: bytes | None = None
        self.bad_seed: bytes | None = None
        """The seed that failed to open (kept, with its signature, as evidence)."""
        self._prefix = enc(LABELS["commit"]) + self.ctx
        self._encoded = {p: enc(p) for p in self.participants}
        self._ikm_order = sorted(self.participants, key=lambda p: p.encode("ascii"))

    # -- inspection --------------------------------------------------------------------------

    @property
    def commitments(self) -> dict[str, bytes]:
        """The commitments received, in participant order (broadcast them once complete)."""
        return {p: self._commitments[p] for p in self.participants if p in self._commitments}

    @property
    def commit_signatures(self) -> dict[str, bytes]:
        return {p: self._commit_sigs[p] for p in self.participants if p in self._commit_sigs}

    @property
    def seeds(self) -> dict[str, bytes]:
        """The seeds revealed so far, in participant order."""
        return {p: self._seeds[p] for p in self.participants if p in self._seeds}

    @property
    def reveal_signatures(self) -> dict[str, bytes]:
        return {p: self._reveal_sigs[p] for p in self.participants if p in self._reveal_sigs}

    def waiting_for(self) -> tuple[str, ...]:
        """Who has yet to commit (``COMMIT``) or to reveal (``REVEAL``); else ``()``."""
        if self.state == RoundState.COMMIT:
            return tuple(p for p in self.participants if p not in self._commitments)
        if self.state == RoundState.REVEAL:
            return tuple(p for p in self.participants if p not in self._seeds)
        return ()

    @property
    def key(self) -> bytes:
        """The round's deck key (``DONE`` only)."""
        if self._key is None:
            raise UsageError(f"no key while the round is {self.state.name}")
        return self._key

    def order(self, cards: Iterable[int]) -> list[int]:
        """The derived order of ``cards`` (``DONE`` only); ``order[0]`` is the top of the stock."""
        return shuffle(self.key, cards)

    # -- input -------------------------------------------------------------------------------

    def _check_sender(self, pid: str, signature: bytes | None) -> None:
        if pid not in self._encoded:
            raise Blame(Fault.UNKNOWN_PARTICIPANT, (str(pid),))
        if (signature is None) != (self._keys is None):
            raise UsageError(
                "pass a signature exactly when the round has public keys"
                if self._keys is None
                else f"{pid}'s message has no signature"
            )

    def commit(self, pid: str, commitment_: bytes, signature: bytes | None = None) -> None:
        """Take ``pid``'s commitment. When the last one is in, the round moves to ``REVEAL``."""
        if self.state not in (RoundState.COMMIT, RoundState.REVEAL):
            raise UsageError(f"no commitments are taken while the round is {self.state.name}")
        self._check_sender(pid, signature)
        if pid in self._commitments:
            raise Blame(Fault.DUPLICATE_COMMITMENT, (pid,))
        if not isinstance(commitment_, bytes) or len(commitment_) != HASH_BYTES:
            raise Blame(Fault.BAD_COMMITMENT, (pid,))
        if self._keys is not None:
            assert signature is not None
            msg = commitment_message(self.ctx, pid, commitment_)
            if not verify(self._keys[pid], msg, signature):
                raise Blame(Fault.BAD_SIGNATURE, (pid,), "on its commitment")
        for other, c in self._commitments.items():
            if c == commitment_:
                raise Blame(Fault.COPIED_COMMITMENT, (pid,), f"copied from {other}")
        self._commitments[pid] = commitment_
        if signature is not None:
            self._commit_sigs[pid] = signature
        if len(self._commitments) == len(self.participants):
            self.state = RoundState.REVEAL

    def reveal(self, pid: str, seed: bytes, signature: bytes | None = None) -> None:
        """Take ``pid``'s seed. When the last one opens, the key is derived (``DONE``)."""
        if self.state == RoundState.COMMIT:
            if pid in self._encoded:
                raise Blame(Fault.EARLY_REVEAL, (pid,))
            raise Blame(Fault.UNKNOWN_PARTICIPANT, (str(pid),))
        if self.state != RoundState.REVEAL:
            raise UsageError(f"no seeds are taken while the round is {self.state.name}")
        self._check_sender(pid, signature)
        if pid in self._seeds:
            raise Blame(Fault.DUPLICATE_REVEAL, (pid,))
        if not isinstance(seed, bytes):
            raise UsageError("seed must be bytes")
        if self._keys is not None:
            assert signature is not None
            msg = reveal_message(self.ctx, pid, self._commitments[pid], seed)
            if not verify(self._keys[pid], msg, signature):
                raise Blame(Fault.BAD_SIGNATURE, (pid,), "on its seed")
        opens = (
            len(seed) == SEED_BYTES
            and hashlib.sha256(self._prefix + self._encoded[pid] + seed).digest()
            == self._commitments[pid]
        )
        if not opens:
            self.state = RoundState.FAILED
            self.blame = Blame(Fault.BAD_REVEAL, (pid,))
            if signature is not None:
                self._reveal_sigs[pid] = signature
            self.bad_seed = seed
            raise self.blame
        self._seeds[pid] = seed
        if signature is not None:
            self._reveal_sigs[pid] = signature
        if len(self._seeds) == len(self.participants):
            enc_, seeds = self._encoded, self._seeds
            ikm = b"".join(enc_[p] + seeds[p] for p in self._ikm_order)
            self._key = _hkdf(self.ctx, ikm)
            self.state = RoundState.DONE

    def abandon(self) -> Blame:
        """Give up waiting (the shell's timeout): ``FAILED``, blaming whoever is missing."""
        if self.state == RoundState.DONE:
            raise UsageError("the round is already complete")
        if self.state == RoundState.FAILED:
            assert self.blame is not None
            return self.blame
        fault = (
            Fault.MISSING_COMMITMENT if self.state == RoundState.COMMIT else Fault.MISSING_REVEAL
        )
        self.blame = Blame(fault, self.waiting_for())
        self.state = RoundState.FAILED
        return self.blame


# ---------------------------------------------------------------------------------------------
# The clients' checks


def check_announced(
    ctx: bytes,
    ids: Sequence[str],
    commitments: Mapping[str, bytes],
    *,
    own_id: str,
    own_commitment: bytes,
    public_keys: Mapping[str, PublicKeyLike] | None = None,
    signatures: Mapping[str, bytes] | None = None,
) -> None:
    """A client's check of the commitments the host broadcast, before it sends its seed.

    The ids must be exactly the hand's participants, ``own_id``'s commitment the one this
    client sent and, with ``public_keys``, every commitment validly signed. Anything else is
    the host's fault: ``Blame`` with culprit ``@dealer``. Send the seed only if this passes.
    """
    ps = participants(ids)
    if own_id not in ps:
        raise UsageError(f"{own_id!r} is not a participant")
    if set(commitments) != set(ps) or len(commitments) != len(ps):
        raise Blame(Fault.WRONG_PARTICIPANTS, (DEALER,), f"got {sorted(commitments)}")
    if commitments[own_id] != own_commitment:
        raise Blame(Fault.ALTERED_COMMITMENT, (DEALER,), f"for {own_id}")
    if public_keys is not None:
        keys = _public_keys(public_keys, ps)
        assert keys is not None
        sigs = signatures or {}
        for p in ps:
            c = commitments[p]
            if p not in sigs or not verify(keys[p], commitment_message(ctx, p, c), sigs[p]):
                raise Blame(Fault.FORGED_SIGNATURE, (DEALER,), f"commitment of {p}")


def open_round(
    ctx: bytes,
    ids: Sequence[str],
    commitments: Mapping[str, bytes],
    seeds: Mapping[str, bytes],
    *,
    own: tuple[str, bytes] | None = None,
    public_keys: Mapping[str, PublicKeyLike] | None = None,
    commit_signatures: Mapping[str, bytes] | None = None,
    reveal_signatures: Mapping[str, bytes] | None = None,
) -> bytes:
    """Re-check a finished round from a transcript; returns its deck key.

    In order: every participant has a commitment and a seed; ``own`` (this client's id and
    seed) is unchanged; with ``public_keys``, every seed carries its participant's valid reveal
    signature (which covers the commitment too) and, if ``commit_signatures`` are given, every
    commitment its valid signature. A failure so far is the host's (``@dealer``). Last, every
    seed must open its commitment; ``Blame(BAD_REVEAL)`` names everyone whose seed does not.
    """
    ps = participants(ids)
    for what, got in (("commitments", commitments), ("seeds", seeds)):
        if set(got) != set(ps) or len(got) != len(ps):
            raise Blame(Fault.WRONG_PARTICIPANTS, (DEALER,), f"{what} for {sorted(got)}")
    if own is not None:
        pid, seed = own
        if pid not in ps:
            raise UsageError(f"{pid!r} is not a participant")
        if seeds[pid] != seed:
            raise Blame(Fault.ALTERED_SEED, (DEALER,), f"for {pid}")
        if commitments[pid] != commitment(ctx, pid, seed):
            raise Blame(Fault.ALTERED_COMMITMENT, (DEALER,), f"for {pid}")
    if public_keys is not None:
        keys = _public_keys(public_keys, ps)
        assert keys is not None
        rsig = reveal_signatures or {}
        for p in ps:
            c, s = commitments[p], seeds[p]
            if commit_signatures is not None and (
                p not in commit_signatures
                or not verify(keys[p], commitment_message(ctx, p, c), commit_signatures[p])
            ):
                raise Blame(Fault.FORGED_SIGNATURE, (DEALER,), f"commitment of {p}")
            if p not in rsig or not verify(keys[p], reveal_message(ctx, p, c, s), rsig[p]):
                raise Blame(Fault.FORGED_SIGNATURE, (DEALER,), f"seed of {p}")
    bad = [
        p
        for p in ps
        if not isinstance(seeds[p], bytes)
        or len(seeds[p]) != SEED_BYTES
        or commitment(ctx, p, seeds[p]) != commitments[p]
    ]
    if bad:
        raise Blame(Fault.BAD_REVEAL, bad)
    return deck_key(ctx, seeds)
