"""The dealer-blind deck's cryptography: card points, the two locking passes, opening a
position, and a key released to one drawer alone.

Theory of operation
-------------------
SRA-style mental poker on the prime-order subgroup of Ed25519 (order ``ℓ``), with libsodium's
group operations (PyNaCl). Every card ``c`` of a shuffle is a point ``P_c`` (hash to curve,
bound to the hand). Locking a point with a secret scalar ``k`` is ``k·P``; locks commute
(``a·(b·P) = b·(a·P)``) and one is removed with ``k⁻¹ mod ℓ``. Telling which card hides
under ``k·P`` without ``k`` is the decisional Diffie–Hellman problem in that group.

A shuffle of ``n`` cards is two passes over the deck by every participant in turn (the people
present, then ``@dealer``):

1. **lock pass**: participant ``i`` locks every point with one key ``k_i`` and permutes the
   deck with a permutation ``π_i``: ``out[t] = k_i · in[π_i[t]]``;
2. **key pass**: participant ``i`` swaps its one lock for one key per position ``c_{i,j}``:
   ``out[j] = (c_{i,j} · k_i⁻¹) · in[j]`` (no permutation).

After both passes position ``j`` holds ``(∏_i c_{i,j}) · P_card``; nobody knows which card
until every participant has given its ``c_{i,j}``. A drawer gets the others' keys of its
position sealed to it alone (:func:`seal_release`); laying a card, or turning one up, makes
every key of its position public (:func:`open_position`).

Everything a participant uses in a shuffle is derived from one 32-byte seed
(:class:`BlindKeys`), so after the hand it reveals that seed and everyone recomputes its passes
exactly, position by position (:func:`check_passes`), and every key it released. A pass that
swaps in a duplicate or drops a card, or a key released wrong, is then proven against its
author's signatures. Between the passes only what needs no secret is checked live (every point
valid, all distinct, the right count: :func:`check_points`).

Every point another participant sends — each point of each pass — goes through one check,
:func:`point_problem`: a canonical encoding, not the identity, and in the prime-order subgroup.
Every follower checks the encoding (:func:`encoding_problem`) as a pass comes; the group test,
~40 µs a point, is made by the host just after relaying the pass, by the next author's lock
and, for a shuffle's last pass, by everyone (``hand.Follower``, ``protocol/SPEC.md``,
"Points received"). Before its fix for CVE-2025-69277 libsodium's
subgroup test accepted the points ``Q + T``, ``T`` of order 2; such a point carries a mark
through the others' locks (``k·(Q + T) = k·Q + T`` for every odd ``k``), so the library in use
is tried once for that, and where it fails the check is made by arithmetic instead
(:func:`in_subgroup_by_arithmetic`).

Pure: seeds come in as bytes. ``protocol/SPEC.md`` ("Dealer-blind") is the byte-exact
description.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import nacl.bindings as sodium
import nacl.exceptions

from ...cards import MAX_CARD
from ..keystream import shuffle
from ..primitives import HASH_BYTES, SEED_BYTES, UsageError, check_id, enc, need_bytes, u8, u16, u32

__all__ = [
    "ELL",
    "LIBRARY_SUBGROUP_TEST",
    "POINT_BYTES",
    "SCALAR_BYTES",
    "SEALED_BYTES",
    "BlindKeys",
    "CardPoints",
    "PassFault",
    "card_point",
    "check_passes",
    "check_points",
    "dealt_order",
    "find_invalid",
    "in_subgroup_by_arithmetic",
    "key_pass",
    "lock_pass",
    "open_position",
    "pass_message",
    "point_problem",
    "points_hash",
    "release_message",
    "seal_release",
    "unseal_release",
]

ELL: Final = 2**252 + 27742317777372353535851937790883648493
"""The order ``ℓ`` of Ed25519's prime-order subgroup, where every point here lives."""
POINT_BYTES: Final = 32
_FIELD: Final = 2**255 - 19
"""``p``: a point's encoding is its ``y`` mod ``p`` (255 bits, little-endian) and the sign of
its ``x`` in the top bit."""
_IDENTITY_Y: Final = 1
_ELL_PLUS_ONE: Final = (ELL + 1).to_bytes(32, "little")
SCALAR_BYTES: Final = 32
_SIG: Final = 64
_TAG: Final = 16
SEALED_BYTES: Final = SCALAR_BYTES + _SIG + _TAG
"""A released key sealed to its drawer: the key, its sender's signature, the AEAD tag."""

_PREFIX: Final = "lanswitch/v2/blind/"


def _label(name: str) -> bytes:
    return enc(_PREFIX + name)


def _h(name: str, *parts: bytes) -> bytes:
    """``SHA-256(enc("lanswitch/v2/blind/" + name) ‖ parts…)``."""
    h = hashlib.sha256(_label(name))
    for p in parts:
        h.update(p)
    return h.digest()


def _scalar(name: str, *parts: bytes) -> bytes:
    """A scalar mod ℓ, uniform: ``SHA-512(label ‖ parts…)`` reduced (libsodium's
    ``scalar_reduce`` of 64 bytes). Zero has probability 2⁻²⁵² and is refused."""
    h = hashlib.sha512(_label(name))
    for p in parts:
        h.update(p)
    s: bytes = sodium.crypto_core_ed25519_scalar_reduce(h.digest())
    if s == bytes(SCALAR_BYTES):  # pragma: no cover  (2^-252)
        raise UsageError("a derived scalar is zero")
    return s


def _mult(k: bytes, p: bytes) -> bytes:
    """``k·P`` without clamping, so that locks commute exactly. libsodium refuses a point
    that is not on the curve, not canonical, or of small order, and a zero result."""
    try:
        out: bytes = sodium.crypto_scalarmult_ed25519_noclamp(k, p)
    except (nacl.exceptions.RuntimeError, nacl.exceptions.CryptoError, ValueError, TypeError):
        raise UsageError("not a point of the prime-order group") from None
    return out


def _inv(k: bytes) -> bytes:
    out: bytes = sodium.crypto_core_ed25519_scalar_invert(k)
    return out


def _mul(a: bytes, b: bytes) -> bytes:
    out: bytes = sodium.crypto_core_ed25519_scalar_mul(a, b)
    return out


def _is_scalar(s: object) -> bool:
    """A canonical nonzero scalar: 32 bytes, little-endian, ``0 < s < ℓ``."""
    return isinstance(s, bytes) and len(s) == SCALAR_BYTES and 0 < int.from_bytes(s, "little") < ELL


# ---------------------------------------------------------------------------------------------
# Card points


def card_point(ctx0: bytes, card: int) -> bytes:
    """``P_c = from_uniform(H("card", ctx_0 ‖ u8(c)))``: card ``c``'s point for the hand
    ``ctx_0`` (libsodium's Elligator 2 map, cleared to the prime-order subgroup)."""
    if not 0 <= card < MAX_CARD:
        raise UsageError(f"{card} is not a card id")
    r = _h("card", need_bytes("ctx0", ctx0, HASH_BYTES), u8(card))
    out: bytes = sodium.crypto_core_ed25519_from_uniform(r)
    return out


class CardPoints:
    """The points of a hand's cards and the way back from a point to its card."""

    __slots__ = ("_card", "_point", "ctx0")

    def __init__(self, ctx0: bytes, cards: Iterable[int]) -> None:
        self.ctx0 = need_bytes("ctx0", ctx0, HASH_BYTES)
        self._point: dict[int, bytes] = {c: card_point(ctx0, c) for c in sorted(set(cards))}
        self._card = {p: c for c, p in self._point.items()}
        if len(self._card) != len(self._point):  # pragma: no cover  (a SHA-256 collision)
            raise UsageError("two cards share a point")

    def point(self, card: int) -> bytes:
        return self._point[card]

    def card(self, point: bytes) -> int | None:
        """The card whose point this is, or None (a point that is no card of this hand)."""
        return self._card.get(point)

    def deck(self, cards: Iterable[int]) -> list[bytes]:
        """The input of a shuffle's first pass: the points of ``cards`` sorted ascending."""
        return [self._point[c] for c in sorted(cards)]


# ---------------------------------------------------------------------------------------------
# One participant's keys for one shuffle


@dataclass(frozen=True, slots=True)
class BlindKeys:
    """Everything participant ``pid`` uses in the shuffle ``ctx`` of ``n`` cards, derived from
    its ``seed``: the lock ``k`` of the first pass, its permutation ``π`` (``perm[t]`` is the
    input position that goes to output ``t``), and the key ``c_j`` of every position.

    ``k = S("lock", ctx ‖ enc(id) ‖ seed)``, ``c_j = S("position", ctx ‖ enc(id) ‖ seed ‖
    u16(j))`` where ``S`` reduces a SHA-512 mod ℓ; ``π`` is the fair deal's unbiased shuffle of
    ``0..n−1`` under the key ``H("permute", ctx ‖ enc(id) ‖ seed)``.
    """

    ctx: bytes
    pid: str
    n: int
    lock: bytes
    perm: tuple[int, ...]
    positions: tuple[bytes, ...]

    @classmethod
    def derive(cls, ctx: bytes, pid: str, seed: bytes, n: int) -> BlindKeys:
        """The keys ``seed`` makes (remembered, the latest few hundred: the check after a hand
        needs each participant's keys of a shuffle for its passes, the keys it released and
        the dealt order, and a departed participant's key is made once per position)."""
        return _derive(bytes(ctx), pid, bytes(seed), n)

    @classmethod
    def _make(cls, ctx: bytes, pid: str, seed: bytes, n: int) -> BlindKeys:
        ctx = need_bytes("ctx", ctx, HASH_BYTES)
        seed = need_bytes("seed", seed, SEED_BYTES)
        if not 1 <= n <= MAX_CARD:
            raise UsageError(f"a shuffle has 1..{MAX_CARD} cards, not {n}")
        who = enc(check_id(pid, dealer_ok=True))
        lock = _scalar("lock", ctx, who, seed)
        perm = tuple(shuffle(_h("permute", ctx, who, seed), range(n)))
        positions = tuple(_scalar("position", ctx, who, seed, u16(j)) for j in range(n))
        return cls(ctx, pid, n, lock, perm, positions)


@functools.lru_cache(maxsize=512)
def _derive(ctx: bytes, pid: str, seed: bytes, n: int) -> BlindKeys:
    return BlindKeys._make(ctx, pid, seed, n)


# ---------------------------------------------------------------------------------------------
# The two passes


def lock_pass(points: Sequence[bytes], keys: BlindKeys) -> list[bytes]:
    """The first pass: ``out[t] = k · in[π[t]]``."""
    if len(points) != keys.n:
        raise UsageError(f"a pass over {keys.n} positions got {len(points)} points")
    k = keys.lock
    return [_mult(k, points[src]) for src in keys.perm]


def key_pass(points: Sequence[bytes], keys: BlindKeys) -> list[bytes]:
    """The second pass: ``out[j] = (c_j · k⁻¹) · in[j]``, one scalar multiplication each."""
    if len(points) != keys.n:
        raise UsageError(f"a pass over {keys.n} positions got {len(points)} points")
    unlock = _inv(keys.lock)
    return [_mult(_mul(c, unlock), p) for c, p in zip(keys.positions, points, strict=True)]


def point_problem(point: object) -> str | None:
    """What is wrong with a point received from another participant, or None: the one check
    every such point passes before it is used (``protocol/SPEC.md``, "Points received").

    1. 32 bytes, and a **canonical encoding**: ``y < p``, and the sign bit clear when ``x = 0``
       (``y = 1`` or ``y = p − 1``: those encodings with the bit set name the same points);
    2. **not the identity** (``y = 1``): a lock of it is itself, whatever the key;
    3. **on the curve and in the prime-order subgroup**, ``ℓ·P`` the identity: libsodium's
       ``crypto_core_ed25519_is_valid_point`` (about 40 µs) when the library in use is one
       that refuses the points ``Q + T``, ``T`` of order 2, which it accepted before its fix
       for CVE-2025-69277 (:data:`LIBRARY_SUBGROUP_TEST`, tried once at import); with any
       other, :func:`in_subgroup_by_arithmetic` (twice the cost)."""
    why = encoding_problem(point)
    if why is not None:
        return why
    assert isinstance(point, bytes)
    if LIBRARY_SUBGROUP_TEST:
        if not sodium.crypto_core_ed25519_is_valid_point(point):
            return "not on the curve, or outside the prime-order subgroup"
        return None
    return in_subgroup_by_arithmetic(point)


def encoding_problem(point: object) -> str | None:
    """Steps 1 and 2 of :func:`point_problem` (integer comparisons, no group operation):
    what every follower checks of every point, whoever else checks the rest."""
    if not isinstance(point, bytes) or len(point) != POINT_BYTES:
        return "not 32 bytes"
    y = int.from_bytes(point, "little")
    negative = y >> 255
    y &= (1 << 255) - 1
    if y >= _FIELD:
        return "not a canonical encoding (y ≥ p)"
    if negative and y in (_IDENTITY_Y, _FIELD - 1):
        return "not a canonical encoding (x = 0 with the sign bit set)"
    if y == _IDENTITY_Y:
        return "the identity"
    return None


def in_subgroup_by_arithmetic(point: bytes) -> str | None:
    """The subgroup part of :func:`point_problem` without libsodium's own subgroup test:
    ``(ℓ+1)·P = P``, i.e. ``ℓ·P`` is the identity. A point ``Q + T`` with ``T`` of order 2, 4
    or 8 gives ``Q + (ℓ+1)·T ≠ Q + T`` (``ℓ+1 ≡ 6 mod 8`` moves every such ``T``), so the
    answer holds even where that test accepts ``Q + T`` (the multiplication runs it first: off
    the curve, of small order, or refused by it, the point is refused). About 90 µs."""
    try:
        same: bytes = sodium.crypto_scalarmult_ed25519_noclamp(_ELL_PLUS_ONE, point)
    except (nacl.exceptions.RuntimeError, nacl.exceptions.CryptoError, ValueError, TypeError):
        return "not on the curve, or outside the prime-order subgroup"
    if same != point:
        return "outside the prime-order subgroup"
    return None


def _library_refuses_mixed_order() -> bool:
    """Whether libsodium's ``is_valid_point`` refuses ``P_0 + (0, −1)`` (a card point plus
    the point of order 2): true of every libsodium with the fix for CVE-2025-69277 (bundled
    by PyNaCl ≥ 1.6.2; distributions backported it to older versions)."""
    q = card_point(bytes(HASH_BYTES), 0)
    order_two = (_FIELD - 1).to_bytes(POINT_BYTES, "little")
    mixed: bytes = sodium.crypto_core_ed25519_add(q, order_two)
    return not sodium.crypto_core_ed25519_is_valid_point(mixed)


LIBRARY_SUBGROUP_TEST: Final = _library_refuses_mixed_order()
"""Whether :func:`point_problem` may rest its subgroup check on libsodium's own test."""


def check_points(points: object, n: int, *, each: bool = True) -> str | None:
    """What is wrong with a pass's output that anyone can see without a key: the count, a
    point that fails :func:`point_problem`, two equal points (a copied card). None if nothing
    is. Every follower runs it on every pass as it comes, before the pass is kept, relayed or
    locked again: the first point that fails is named, by position. ``each=False`` leaves out
    :func:`point_problem`'s group test of each point (about 40 µs a point), keeping its
    encoding checks: for a live follower, on a pass that is not a shuffle's last
    (``Follower``'s ``every``)."""
    if not isinstance(points, list | tuple) or len(points) != n:
        return f"a pass must give {n} points"
    for j, p in enumerate(points):  # the cheap part of point_problem first: set() needs bytes
        if not isinstance(p, bytes) or len(p) != POINT_BYTES:
            return f"position {j} is not a point of the prime-order group: not 32 bytes"
    if len(set(points)) != n:
        seen: set[bytes] = set()
        for j, p in enumerate(points):
            if p in seen:
                return f"position {j} repeats a point given before it"
            seen.add(p)
    bad = find_invalid(points, point_problem if each else encoding_problem)
    if bad is not None:
        j, why = bad
        return f"position {j} is not a point of the prime-order group: {why}"
    return None


def find_invalid(
    points: Sequence[object], problem: Callable[[object], str | None] | None = None
) -> tuple[int, str] | None:
    """The first position whose point fails ``problem`` (:func:`point_problem`), and why."""
    for j, p in enumerate(points):
        why = (problem or point_problem)(p)
        if why is not None:
            return j, why
    return None


def points_hash(points: Sequence[bytes]) -> bytes:
    """``H("points", u16(n) ‖ point…)``: what a pass's signature covers of its output."""
    return _h("points", u16(len(points)), *points)


def pass_message(ctx: bytes, pid: str, number: int, points: Sequence[bytes]) -> bytes:
    """``enc("sign/pass") ‖ ctx ‖ enc(id) ‖ u8(pass) ‖ H(points)``: ``id`` gave ``points`` as
    its output of pass ``number`` (1, the lock pass; 2, the key pass) of the shuffle ``ctx``."""
    if number not in (1, 2):
        raise UsageError(f"a pass is 1 or 2, not {number}")
    return (
        _label("sign/pass")
        + need_bytes("ctx", ctx, HASH_BYTES)
        + enc(check_id(pid, dealer_ok=True))
        + u8(number)
        + points_hash(points)
    )


# ---------------------------------------------------------------------------------------------
# Opening a position


def open_position(point: bytes, keys: Iterable[bytes]) -> bytes:
    """The card point under ``point`` once every participant's key of its position is
    given: ``(∏ c_j)⁻¹ · point`` (one inversion and one multiplication, whatever the number
    of participants)."""
    m = None
    for c in keys:
        if not _is_scalar(c):
            raise UsageError("a position key must be a canonical nonzero scalar")
        m = c if m is None else _mul(m, c)
    if m is None:
        raise UsageError("no keys to open a position with")
    return _mult(_inv(m), point)


def release_message(ctx: bytes, sender: str, to: str, position: int, key: bytes) -> bytes:
    """``enc("sign/release") ‖ ctx ‖ enc(sender) ‖ enc(to) ‖ u16(j) ‖ c``: ``sender``'s key
    ``c`` of position ``j`` of the shuffle ``ctx``, given to ``to`` (``""``: made public, when
    the card is laid or turned up). Signed, so a wrong key is proven against the seed revealed
    after the hand."""
    if not 0 <= position < MAX_CARD:
        raise UsageError(f"position {position} is out of range")
    return (
        _label("sign/release")
        + need_bytes("ctx", ctx, HASH_BYTES)
        + enc(check_id(sender, dealer_ok=True))
        + enc(check_id(to, dealer_ok=True) if to else "")
        + u16(position)
        + need_bytes("key", key, SCALAR_BYTES)
    )


def _curve_secret(ed_seed: bytes) -> bytes:
    """The X25519 secret of an Ed25519 key given by its 32-byte seed (libsodium's map)."""
    _pk, sk = sodium.crypto_sign_seed_keypair(need_bytes("private key", ed_seed, 32))
    out: bytes = sodium.crypto_sign_ed25519_sk_to_curve25519(sk)
    return out


def _curve_public(ed_public: bytes) -> bytes:
    try:
        out: bytes = sodium.crypto_sign_ed25519_pk_to_curve25519(
            need_bytes("public key", ed_public, 32)
        )
    except (nacl.exceptions.RuntimeError, nacl.exceptions.CryptoError, ValueError):
        raise UsageError("not an Ed25519 public key") from None
    return out


@functools.lru_cache(maxsize=256)
def _shared(own_seed: bytes, peer_public: bytes) -> bytes:
    """X25519 between two Ed25519 session keys (remembered per pair, the latest few hundred:
    a participant seals to the same few drawers all hand, and each took three conversions
    and a scalar multiplication, ~120 µs, a release)."""
    try:
        out: bytes = sodium.crypto_scalarmult(_curve_secret(own_seed), _curve_public(peer_public))
    except nacl.exceptions.RuntimeError:
        raise UsageError("the peer's key gives no shared secret") from None
    return out


def _seal_key(
    own_seed: bytes, peer_public: bytes, ctx: bytes, sender: str, to: str, position: int
) -> tuple[bytes, bytes, bytes]:
    """The AEAD key, nonce and associated data of one release. The key is
    ``H("seal", X25519(a, B) ‖ ctx ‖ enc(sender) ‖ enc(to))`` between the two session keys
    (the same from either side); the nonce is ``u32(0) ‖ u32(0) ‖ u32(j)``: unique, since a
    position of a shuffle is released from one sender to one drawer once."""
    shared = _shared(need_bytes("private key", own_seed, 32), need_bytes("key", peer_public, 32))
    who = enc(check_id(sender, dealer_ok=True)) + enc(check_id(to, dealer_ok=True))
    key = _h("seal", shared, need_bytes("ctx", ctx, HASH_BYTES), who)
    return key, bytes(8) + u32(position), _label("sealed") + ctx + who + u16(position)


def seal_release(
    sender_seed: bytes,
    to_public: bytes,
    ctx: bytes,
    sender: str,
    to: str,
    position: int,
    key: bytes,
    signature: bytes,
) -> bytes:
    """``key ‖ signature`` encrypted to ``to`` alone (ChaCha20-Poly1305 under a key from
    X25519 between the two Ed25519 session keys): the host relays it and cannot read it."""
    aead_key, nonce, aad = _seal_key(sender_seed, to_public, ctx, sender, to, position)
    body = need_bytes("key", key, SCALAR_BYTES) + need_bytes("signature", signature, _SIG)
    out: bytes = sodium.crypto_aead_chacha20poly1305_ietf_encrypt(body, aad, nonce, aead_key)
    return out


def unseal_release(
    own_seed: bytes,
    sender_public: bytes,
    ctx: bytes,
    sender: str,
    to: str,
    position: int,
    sealed: bytes,
) -> tuple[bytes, bytes] | None:
    """``(key, signature)`` from a sealed release, or None if it does not open (it was not
    sealed by ``sender`` to this drawer for this position, or it was changed on the way)."""
    if not isinstance(sealed, bytes) or len(sealed) != SEALED_BYTES:
        return None
    aead_key, nonce, aad = _seal_key(own_seed, sender_public, ctx, sender, to, position)
    try:
        body: bytes = sodium.crypto_aead_chacha20poly1305_ietf_decrypt(sealed, aad, nonce, aead_key)
    except nacl.exceptions.CryptoError:
        return None
    return body[:SCALAR_BYTES], body[SCALAR_BYTES:]


# ---------------------------------------------------------------------------------------------
# After the hand: every pass recomputed from the revealed seeds


@dataclass(frozen=True, slots=True)
class PassFault:
    """The first pass that its author's revealed seed does not reproduce."""

    pid: str
    number: int
    detail: str


def check_passes(
    ctx: bytes,
    deck: Sequence[bytes],
    order: Sequence[str],
    passes: Mapping[tuple[str, int], Sequence[bytes]],
    seeds: Mapping[str, bytes],
    *,
    complete: bool = True,
) -> PassFault | None:
    """Recompute a whole shuffle from the revealed seeds: the first pass (in the order they
    were made: every participant's lock pass in ``order``, then every key pass) whose given
    output differs from what its author's seed makes of its input is that author's fault.

    ``deck`` is the first input (the round's card points, sorted by card); ``passes[(id, k)]``
    is the output ``id`` signed for pass ``k``; a participant without a seed here cannot be
    checked and is the caller's to blame (it withheld its seed). ``complete=False``: the
    shuffle was cut short, and the passes given so far are checked.
    """
    n = len(deck)
    current = list(deck)
    for number in (1, 2):
        for pid in order:
            given = passes.get((pid, number))
            if given is None:
                if not complete:
                    return None  # a shuffle cut short: every pass given so far checks
                return PassFault(pid, number, "gave no output for this pass")
            seed = seeds.get(pid)
            if seed is None:
                raise UsageError(f"no seed of {pid} to check its passes with")
            keys = BlindKeys.derive(ctx, pid, seed, n)
            made = lock_pass(current, keys) if number == 1 else key_pass(current, keys)
            if len(given) != n:
                return PassFault(pid, number, f"gave {len(given)} points for {n} positions")
            if list(given) != made:
                bad = next(j for j in range(n) if given[j] != made[j])
                return PassFault(
                    pid, number, f"position {bad} is not what its seed makes of its input"
                )
            current = made
    return None


def deck_matches(
    ctx: bytes,
    points: CardPoints,
    cards: Iterable[int],
    order: Sequence[str],
    seeds: Mapping[str, bytes],
    locked: Sequence[bytes],
) -> bool:
    """Whether the locked deck is exactly what the revealed seeds make: position ``j`` holds
    ``(∏_i c_{i,j}) · P_{order[j]}``, ``order`` being :func:`dealt_order`'s.

    One scalar multiplication per position, where recomputing every pass takes two per
    participant per position. It settles everything the deal depends on — which card is at
    which position, under which keys —, since the seeds cannot be chosen after the passes to
    fit another deck (the permutations and keys are hashes of them); only when it fails is
    every pass recomputed (:func:`check_passes`), to find whose pass went wrong."""
    dealt = dealt_order(ctx, cards, order, seeds)
    n = len(dealt)
    if len(locked) != n:
        return False
    keys = [BlindKeys.derive(ctx, pid, seeds[pid], n).positions for pid in order]
    for j in range(n):
        m = keys[0][j]
        for other in keys[1:]:
            m = _mul(m, other[j])
        try:
            if _mult(m, points.point(dealt[j])) != locked[j]:
                return False
        except UsageError:
            return False
    return True


def dealt_order(
    ctx: bytes, cards: Iterable[int], order: Sequence[str], seeds: Mapping[str, bytes]
) -> list[int]:
    """The cards of a shuffle by position (``[0]`` is the top of the stock) that the revealed
    seeds make: the lock passes' permutations composed, in ``order``. Only the permutations:
    :func:`check_passes` is what shows that the points given follow them."""
    current = sorted(cards)
    n = len(current)
    for pid in order:
        perm = BlindKeys.derive(ctx, pid, seeds[pid], n).perm
        current = [current[src] for src in perm]
    return current
