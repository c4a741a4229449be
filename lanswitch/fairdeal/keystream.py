"""The keystream and the unbiased shuffle: a deck key to the order of a stock.

``protocol/SPEC.md`` ("Keystream", "Unbiased shuffle") is the byte-exact description. The
keystream is HMAC-SHA256 of the deck key over a block counter, read as big-endian u32 words;
a word gives a uniform index by rejection (a word at or above :func:`rejection_limit` is
skipped, so no index is likelier than another), and the indexes drive Fisher–Yates over the
sorted cards. :func:`shuffle_words` is that definition as written; :func:`shuffle` is the
same order computed faster (the blocks a shuffle needs in one go), and the tests hold the two
equal.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterable, Iterator, Mapping
from typing import Final

from ..cards import MAX_CARD
from .primitives import LABELS, UsageError, _sorted_cards, deck_key, enc, need_bytes, u32

__all__ = [
    "derive_order",
    "rejection_limit",
    "shuffle",
    "shuffle_words",
    "stream_block",
    "stream_words",
    "uniform",
]

_TWO32: Final = 1 << 32
_WORDS: Final = struct.Struct(">8I")


_STREAM_PREFIX: Final = enc(LABELS["stream"])


def stream_block(key: bytes, k: int) -> bytes:
    """Block ``k`` of the keystream: ``HMAC-SHA256(K, enc("stream") ‖ u32(k))``, 32 bytes."""
    key = need_bytes("key", key, 32)
    if not 0 <= k < _TWO32:
        raise UsageError(f"block index must be a u32, not {k}")
    return hmac.digest(key, _STREAM_PREFIX + u32(k), "sha256")


def stream_words(key: bytes) -> Iterator[int]:
    """The keystream as big-endian u32 words: 8 per block, blocks 0, 1, 2, …"""
    key = need_bytes("key", key, 32)
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for k in range(_TWO32):
        h = mac.copy()
        h.update(_STREAM_PREFIX + u32(k))
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
    key = need_bytes("key", key, 32)
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
