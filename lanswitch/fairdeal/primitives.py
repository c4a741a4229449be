"""The fair deal's cryptography: encodings, contexts, commitments, the deck key, and every
signed statement. The keystream and the unbiased shuffle the deck key drives are
:mod:`.keystream`'s.

``protocol/SPEC.md`` ("Fair deal") is the byte-exact description; this module is its
reference implementation. Everything here is a pure function of its arguments: seeds and keys
come in as bytes (the shells draw them with ``secrets`` and ``Ed25519PrivateKey.generate()``).
In the formulas of the docstrings below a label is written short: ``enc("sign/move")`` stands
for ``enc("lanswitch/v2/sign/move")`` (:data:`LABELS` holds them in full).

Errors: :class:`UsageError` means the caller broke an API rule (a bug on this side, like h11's
``LocalProtocolError``); :class:`Blame` means a participant broke the protocol and names it
(``@dealer`` = the host).
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, TypeAlias

import nacl.bindings
import nacl.exceptions
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ..cards import MAX_CARD, MAX_DECKS, MAX_JOKERS
from ..errors import LanswitchError, LocalError, RemoteError

__all__ = [
    "DEALER",
    "GAME_ID_BYTES",
    "HASH_BYTES",
    "LABELS",
    "MAX_SEATS",
    "SEED_BYTES",
    "SIGNATURE_BYTES",
    "Blame",
    "FairnessError",
    "Fault",
    "PrivateKeyLike",
    "PublicKeyLike",
    "UsageError",
    "abort_message",
    "announce_message",
    "cards_message",
    "check_id",
    "commitment",
    "commitment_message",
    "deck_key",
    "enc",
    "hand_context",
    "is_valid_id",
    "label_hash",
    "log_head_message",
    "mask_of",
    "move_message",
    "named",
    "participants_of",
    "private_key",
    "public_bytes",
    "public_key",
    "raw_public_key",
    "reveal_message",
    "round_context",
    "seats_of",
    "sign",
    "sign_own",
    "verify",
]

# ---------------------------------------------------------------------------------------------
# Constants

DEALER: Final = "@dealer"
"""The reserved id of the host's own contribution and signature: always a participant of
every round, always the last in any list of participants."""

SEED_BYTES: Final = 32
HASH_BYTES: Final = 32
GAME_ID_BYTES: Final = 16
SIGNATURE_BYTES: Final = 64
MAX_SEATS: Final = 16  # a round's participant mask is a u16

_PREFIX: Final = "lanswitch/v2/"
LABELS: Final = {
    name: _PREFIX + name
    for name in (
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
    )
}
"""Every domain-separation label, by short name (``LABELS["commit"] == "lanswitch/v2/commit"``)."""

_ID_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
_TWO32: Final = 1 << 32


# ---------------------------------------------------------------------------------------------
# Errors


class FairnessError(LanswitchError, ValueError):
    """Base class of everything the fair deal raises on purpose."""


class UsageError(FairnessError, LocalError):
    """The caller broke an API rule: a malformed argument, or a call in the wrong state."""


class Fault(enum.Enum):
    """How a participant broke the protocol. The value is the text a player reads."""

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


class Blame(FairnessError, RemoteError):  # noqa: N818  (it is what the protocol calls it)
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


def u8(x: int) -> bytes:
    return x.to_bytes(1, "big")


def u16(x: int) -> bytes:
    return x.to_bytes(2, "big")


def u32(x: int) -> bytes:
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
    return u16(len(b)) + b


def label_hash(name: str, *parts: bytes) -> bytes:
    """``SHA-256(enc("lanswitch/v2/" + name) ‖ parts…)``: every hash of the protocol."""
    h = hashlib.sha256(enc(LABELS[name]))
    for p in parts:
        h.update(p)
    return h.digest()


def need_bytes(what: str, value: bytes, n: int) -> bytes:
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


_ID_IN_TEXT: Final = re.compile(r"@dealer|\bseat(\d+)\b")


def named(text: str, names: Sequence[str]) -> str:
    """``text`` (a verdict's words) with the fair deal's ids as a player reads them: ``seatN``
    as the name of the player in seat N (counted from 0, as the ids are) when the hand began,
    ``@dealer`` as "the host"."""

    def name(m: re.Match[str]) -> str:
        if m[1] is None:
            return "the host"
        i = int(m[1])
        return names[i] if i < len(names) and names[i] else m[0]

    return _ID_IN_TEXT.sub(name, text)


def mask_of(seats: Iterable[int]) -> int:
    """The u16 bit mask of a set of seat numbers (bit ``s`` for seat ``s``)."""
    m = 0
    for s in seats:
        if not 0 <= s < MAX_SEATS:
            raise UsageError(f"seat {s} does not fit a participant mask")
        m |= 1 << s
    return m


def seats_of(mask: int) -> tuple[int, ...]:
    """The seat numbers of a participant mask, ascending."""
    return tuple(s for s in range(MAX_SEATS) if mask >> s & 1)


def participants_of(seat_ids: Sequence[str], mask: int) -> tuple[str, ...]:
    """A round's participants: the ids of the seats in ``mask``, in seat order, then
    ``@dealer`` (who takes part in every round)."""
    if mask >> len(seat_ids):
        raise UsageError(f"the mask {mask:#x} names a seat past the {len(seat_ids)} seats")
    return (*(seat_ids[s] for s in seats_of(mask)), DEALER)


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
    game_id: bytes,
    hand_no: int,
    decks: int,
    jokers: int,
    seat_ids: Sequence[str],
    keys: Mapping[str, bytes],
) -> bytes:
    """``ctx_0``, the context of a whole hand: what every signature of the hand is bound to.

    ``H("hand", game_id[16] ‖ u32(hand_no) ‖ u8(decks) ‖ u8(jokers) ‖ u8(n) ‖
    (enc(id) ‖ enc(key))…)`` over the ``n`` seats in seat order and then ``@dealer``, where
    ``key`` is the participant's 32-byte Ed25519 public key, or empty for a seat the host runs
    (a bot): such a seat has no key of its own, everything it does is the host's.
    """
    game_id = need_bytes("game_id", game_id, GAME_ID_BYTES)
    if not 0 <= hand_no < _TWO32:
        raise UsageError(f"hand_no must be a u32, not {hand_no}")
    if not 1 <= decks <= MAX_DECKS:
        raise UsageError(f"decks must be 1..{MAX_DECKS}, not {decks}")
    if not 0 <= jokers <= MAX_JOKERS:
        raise UsageError(f"jokers must be 0..{MAX_JOKERS}, not {jokers}")
    ids = [check_id(p) for p in seat_ids]
    if not 2 <= len(ids) <= MAX_SEATS or len(set(ids)) != len(ids):
        raise UsageError(f"a hand has 2..{MAX_SEATS} distinct seat ids, not {ids}")
    if DEALER not in keys:
        raise UsageError("@dealer has no key")
    parts = []
    for p in (*ids, DEALER):
        key = keys.get(p, b"")
        if key and len(key) != 32:
            raise UsageError(f"the key of {p} is not 32 bytes")
        parts.append(enc(p) + enc(key))
    return label_hash("hand", game_id, u32(hand_no), u8(decks), u8(jokers), u8(len(parts)), *parts)


def round_context(
    ctx0: bytes, round_no: int, count: int, head: bytes, mask: int, cards: Iterable[int]
) -> bytes:
    """``ctx_r``, the context of round ``r`` (0, 1, 2, … in the order the host announces them).

    ``H("round", ctx_0 ‖ u32(r) ‖ u32(count) ‖ head[32] ‖ u16(mask) ‖ u16(|D|) ‖ u8(c)…)``:
    the log stands at ``count`` events ending in ``head`` when the round is announced (its
    ``Shuffle`` event, if it is dealt from, comes next), ``mask`` names the seats that take part
    (``@dealer`` always does), ``D`` are the cards it orders — the deck for the deal, the
    discard pile under its top card for a reshuffle — sorted ascending. So a round's seeds
    cannot be prepared before the host knows what it shuffles, and a round cannot be moved to
    another pile, another history, or another set of players.
    """
    ctx0 = need_bytes("ctx0", ctx0, HASH_BYTES)
    head = need_bytes("head", head, HASH_BYTES)
    if not 0 <= round_no < _TWO32 or not 0 <= count < _TWO32:
        raise UsageError("round and count must be u32s")
    if not 0 <= mask < 1 << MAX_SEATS:
        raise UsageError(f"mask must be a u16, not {mask}")
    d = _sorted_cards(cards)
    if not d:
        raise UsageError("a round orders at least one card")
    return label_hash(
        "round", ctx0, u32(round_no), u32(count), head, u16(mask), u16(len(d)), bytes(d)
    )


def commitment(ctx: bytes, pid: str, seed: bytes) -> bytes:
    """``H("commit", ctx_r ‖ enc(id) ‖ seed[32])``: binds the seed to the round and the id."""
    ctx = need_bytes("ctx", ctx, HASH_BYTES)
    seed = need_bytes("seed", seed, SEED_BYTES)
    return label_hash("commit", ctx, enc(check_id(pid, dealer_ok=True)), seed)


def _ikm(seeds: Mapping[str, bytes]) -> bytes:
    """``enc(id) ‖ seed`` for every participant, ids sorted by their ASCII bytes."""
    parts = []
    for pid in sorted(seeds, key=lambda p: p.encode("ascii")):
        seed = seeds[pid]
        check_id(pid, dealer_ok=True)
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise UsageError(f"the seed of {pid} must be {SEED_BYTES} bytes")
        parts.append(enc(pid) + seed)
    return b"".join(parts)


_DECK_KEY_INFO: Final = enc(LABELS["deck-key"])


def deck_key(ctx: bytes, seeds: Mapping[str, bytes]) -> bytes:
    """The round's deck key ``K``, 32 bytes.

    ``HKDF-SHA256(salt=ctx_r, ikm=enc(id) ‖ seed… over ids sorted by bytes,
    info=enc("deck-key"))`` where ``seeds`` maps every participant of the round (``@dealer``
    included) to its revealed seed.
    """
    ctx = need_bytes("ctx", ctx, HASH_BYTES)
    if not seeds:
        raise UsageError("no seeds")
    kdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=ctx, info=_DECK_KEY_INFO)
    return kdf.derive(_ikm(seeds))


# ---------------------------------------------------------------------------------------------
# Keys and signatures (Ed25519, per-session keys made by the shells)

PrivateKeyLike: TypeAlias = Ed25519PrivateKey | bytes
"""An Ed25519 private key object, or its raw 32 bytes."""
PublicKeyLike: TypeAlias = Ed25519PublicKey | bytes
"""An Ed25519 public key object, or its raw 32 bytes."""


def private_key(key: PrivateKeyLike) -> Ed25519PrivateKey:
    """The key object for ``key`` (raw 32 bytes are loaded, an object passes through)."""
    if isinstance(key, Ed25519PrivateKey):
        return key
    return Ed25519PrivateKey.from_private_bytes(need_bytes("private key", key, 32))


def public_key(key: PublicKeyLike) -> Ed25519PublicKey:
    """The key object for ``key`` (raw 32 bytes are loaded, an object passes through)."""
    if isinstance(key, Ed25519PublicKey):
        return key
    try:
        return Ed25519PublicKey.from_public_bytes(need_bytes("public key", key, 32))
    except ValueError as e:
        raise UsageError(f"not an Ed25519 public key: {e}") from None


def public_bytes(key: PrivateKeyLike) -> bytes:
    """The raw 32-byte public key of a private key."""
    return private_key(key).public_key().public_bytes_raw()


def raw_public_key(key: PublicKeyLike) -> bytes:
    """The raw 32 bytes of a public key (an object or bytes)."""
    if isinstance(key, bytes):
        return key
    return key.public_bytes_raw()


def sign(key: PrivateKeyLike, message: bytes) -> bytes:
    """The 64-byte Ed25519 signature of ``message`` (deterministic)."""
    return private_key(key).sign(message)


def verify(key: PublicKeyLike, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``key``'s valid Ed25519 signature of ``message``.

    A signature that verified once is remembered (:data:`VERIFIED`, the latest few thousand):
    a client checks every move as it arrives and again when it verifies the hand, and a
    process that hosts and plays checks the same moves twice. Only ever a memo of a pure
    answer: ``lanswitch verify`` in a process of its own checks everything afresh."""
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        raw = raw_public_key(key)
    except AttributeError:
        return False
    if not isinstance(raw, bytes) or len(raw) != 32:
        return False
    memo = (raw, bytes(message), signature)
    if memo in VERIFIED:
        return True
    # libsodium's check (crypto_sign_open): RFC 8032 with S < L, and it also refuses public
    # keys and R of small order and non-canonical encodings — stricter than OpenSSL's on
    # crafted inputs only, never on a signature made by an honest signer, and over twice as
    # fast, which every move's round trip and every client's check of it pays.
    try:
        nacl.bindings.crypto_sign_open(signature + bytes(message), raw)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.CryptoError, ValueError, TypeError):
        return False
    _remember(memo)
    return True


def sign_own(key: Ed25519PrivateKey, message: bytes) -> bytes:
    """:func:`sign`, and the signature remembered as good for ``key``'s public half: a seat's
    own move comes back to it in the log, and checking a signature it has just made would
    cost a verification on every move's round trip."""
    signature = key.sign(message)
    _remember((key.public_key().public_bytes_raw(), bytes(message), signature))
    return signature


def _remember(memo: tuple[bytes, bytes, bytes]) -> None:
    VERIFIED[memo] = None
    if len(VERIFIED) > VERIFIED_KEEP:
        # The oldest goes. (A load generator verifies in threads: another may be here too.)
        with contextlib.suppress(RuntimeError, KeyError, StopIteration):
            del VERIFIED[next(iter(VERIFIED))]


VERIFIED: dict[tuple[bytes, bytes, bytes], None] = {}
"""Signatures known good: (public key, message, signature), oldest first."""
VERIFIED_KEEP: Final = 4096


# -- the signed statements --------------------------------------------------------------------
#
# Each begins with its own label, so no signature of one kind can be passed off as another.


def commitment_message(ctx: bytes, pid: str, commitment_: bytes) -> bytes:
    """``enc("sign/commit") ‖ ctx_r ‖ enc(id) ‖ C``: ``id`` committed to ``C`` in round
    ``ctx_r``."""
    return (
        enc(LABELS["sign/commit"])
        + need_bytes("ctx", ctx, HASH_BYTES)
        + enc(check_id(pid, dealer_ok=True))
        + need_bytes("commitment", commitment_, HASH_BYTES)
    )


def reveal_message(ctx: bytes, pid: str, commitment_: bytes, seed: bytes) -> bytes:
    """``enc("sign/reveal") ‖ ctx_r ‖ enc(id) ‖ C ‖ enc(seed)``.

    It names the commitment ``C`` the seed claims to open, so one signed reveal is evidence on
    its own: if ``seed`` does not open ``C``, the signer is to blame. The seed is
    length-prefixed so that a signed seed of the wrong length is still evidence.
    """
    if not isinstance(seed, bytes) or len(seed) > 0xFFFF:
        raise UsageError("seed must be bytes")
    return (
        enc(LABELS["sign/reveal"])
        + need_bytes("ctx", ctx, HASH_BYTES)
        + enc(check_id(pid, dealer_ok=True))
        + need_bytes("commitment", commitment_, HASH_BYTES)
        + enc(seed)
    )


def _commitment_list(commitments: Mapping[str, bytes]) -> bytes:
    """``u8(k) ‖ (enc(id) ‖ enc(C))…`` in the mapping's order (participant order)."""
    parts = [enc(check_id(p, dealer_ok=True)) + enc(c) for p, c in commitments.items()]
    if len(parts) > 255:
        raise UsageError("at most 255 commitments")
    return u8(len(parts)) + b"".join(parts)


def announce_message(
    ctx0: bytes, round_no: int, fixed: bool, ctx: bytes, commitments: Mapping[str, bytes]
) -> bytes:
    """What the host signs when it announces a round (§ The round, step by step).

    ``enc("sign/announce") ‖ ctx_0 ‖ u32(r) ‖ u8(stage) ‖ ctx_r ‖ u8(k) ‖ (enc(id) ‖ enc(C))…``:
    stage 1 (``fixed`` false) lists only ``@dealer``'s commitment — the host commits before
    anyone else —, stage 3 every participant's, in participant order. Two announcements of the
    same round and stage that differ are the host's signed contradiction of itself.
    """
    if not 0 <= round_no < _TWO32:
        raise UsageError(f"round must be a u32, not {round_no}")
    return (
        enc(LABELS["sign/announce"])
        + need_bytes("ctx0", ctx0, HASH_BYTES)
        + u32(round_no)
        + u8(3 if fixed else 1)
        + need_bytes("ctx", ctx, HASH_BYTES)
        + _commitment_list(commitments)
    )


def abort_message(
    ctx0: bytes,
    round_no: int,
    fault: str,
    culprits: Sequence[str],
    commitments: Mapping[str, bytes],
) -> bytes:
    """What the host signs when a round fails: ``enc("sign/abort") ‖ ctx_0 ‖ u32(r) ‖
    enc(fault) ‖ u8(k) ‖ enc(culprit)… ‖ (the commitments it had, as in an announcement)``."""
    if not 0 <= round_no < _TWO32 or len(culprits) > 255:
        raise UsageError("round must be a u32, and at most 255 culprits")
    return (
        enc(LABELS["sign/abort"])
        + need_bytes("ctx0", ctx0, HASH_BYTES)
        + u32(round_no)
        + enc(fault)
        + u8(len(culprits))
        + b"".join(enc(check_id(c, dealer_ok=True)) for c in culprits)
        + _commitment_list(commitments)
    )


def move_message(ctx0: bytes, count: int, head: bytes, seat: int, by: int, move: int) -> bytes:
    """What a move's signature covers.

    ``enc("sign/move") ‖ ctx_0 ‖ u32(count) ‖ head[32] ‖ u8(seat) ‖ u8(by) ‖ u32(move)``: the
    signer — the seat itself (``by`` 0), or the host for a seat it runs or stands in for —
    makes ``move`` for ``seat`` on the log of ``count`` events ending in ``head``, as the signer
    holds it. The head binds the whole history (so the game, the hand and the step number);
    a signature that does not verify over another player's log is a fork caught by that player.
    """
    if not 0 <= count < _TWO32 or not 0 <= move < _TWO32:
        raise UsageError("count and move must be u32s")
    if not 0 <= seat < MAX_SEATS or not 0 <= by <= 255:
        raise UsageError(f"seat must be 0..{MAX_SEATS - 1} and by a u8")
    return (
        enc(LABELS["sign/move"])
        + need_bytes("ctx0", ctx0, HASH_BYTES)
        + u32(count)
        + need_bytes("head", head, HASH_BYTES)
        + u8(seat)
        + u8(by)
        + u32(move)
    )


def log_head_message(ctx0: bytes, signer: str, count: int, head: bytes) -> bytes:
    """``enc("sign/log") ‖ ctx_0 ‖ enc(signer) ‖ u32(count) ‖ head``: ``signer`` vouches that
    the log of the hand ``ctx_0`` has ``count`` events ending in ``head``."""
    if not 0 <= count < _TWO32:
        raise UsageError(f"count must be a u32, not {count}")
    return (
        enc(LABELS["sign/log"])
        + need_bytes("ctx0", ctx0, HASH_BYTES)
        + enc(check_id(signer, dealer_ok=True))
        + u32(count)
        + need_bytes("head", head, HASH_BYTES)
    )


def cards_message(ctx0: bytes, pid: str, cards: Sequence[int]) -> bytes:
    """``enc("sign/cards") ‖ ctx_0 ‖ enc(id) ‖ u16(count) ‖ u8(card)…``: the host vouches that
    it gave the seat ``id`` exactly these cards, in this order. A seat's private cards are the
    one thing the public log does not bind; with this a swapped card is provable."""
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
        + need_bytes("ctx0", ctx0, HASH_BYTES)
        + enc(check_id(pid))
        + u16(len(body))
        + body
    )
