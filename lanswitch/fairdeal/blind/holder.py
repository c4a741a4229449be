"""One participant's secrets in a dealer-blind hand: :class:`Holder`.

A :class:`Holder` is one participant's secret side: its seed per shuffle (so its lock, its
permutation and its key per position, :class:`~.crypto.BlindKeys`), the keys others released to
it, and the cards it holds. Its own :class:`~.hand.Follower` knows those cards: that is the
player's own view. The host's holder is ``@dealer``: the owner of the seats the host runs (its
bots), so the host sees their cards and no others.

Pure: seeds and keys come in as bytes; no clock, no socket.
"""

from __future__ import annotations

from collections.abc import Callable

from ...game import DRAW, MAX_CARD, PASS
from ..primitives import (
    UsageError,
    need_bytes,
    sign,
)
from . import crypto
from .hand import (
    BlindFault,
    BlindSetup,
    Cheat,
    Follower,
    MoveRecord,
    Opening,
    Share,
    ShuffleRecord,
    claim_message,
    move_message,
)

__all__ = ["Holder"]


class Holder:
    """One participant's side of a blind hand (module docstring). ``seed_for(k)`` gives its
    fresh seed for shuffle ``k`` (``secrets.token_bytes(32)`` in a shell); ``signing_key`` is
    its 32-byte Ed25519 private key."""

    def __init__(
        self,
        setup: BlindSetup,
        pid: str,
        signing_key: bytes,
        seed_for: Callable[[int], bytes],
        points: crypto.CardPoints | None = None,
    ) -> None:
        if pid not in setup.participants:
            raise UsageError(f"{pid} is not a participant")
        self.setup = setup
        self.pid = pid
        self._sk = need_bytes("signing key", signing_key, 32)
        self._seed_for = seed_for
        self.seeds: dict[int, bytes] = {}
        self._keys: dict[int, crypto.BlindKeys] = {}
        # Live: the group test of each pass comes from the host's check after relaying it,
        # and the next author's lock (``Follower``'s docstring).
        # (Where the library's own subgroup test is the flawed one, CVE-2025-69277, a lock is
        # no test at all: every follower then tests every point, at the cost that brings.)
        self.follower = Follower(setup, points, every=not crypto.LIBRARY_SUBGROUP_TEST)
        # Keys released to this holder, per (shuffle, position): sender → share.
        self.received: dict[tuple[int, int], dict[str, Share]] = {}
        self.cards: dict[int, int] = {}  # hidden card → card, for the cards it holds

    def keys(self, rec: ShuffleRecord) -> crypto.BlindKeys:
        got = self._keys.get(rec.index)
        if got is None:
            seed = self.seeds.setdefault(rec.index, self._seed_for(rec.index))
            got = self._keys[rec.index] = crypto.BlindKeys.derive(rec.ctx, self.pid, seed, rec.n)
        return got

    def make_pass(self, number: int) -> tuple[tuple[bytes, ...], bytes]:
        """This participant's pass ``number`` of the open shuffle, and its signature."""
        rec = self.follower.shuffles[-1]
        inp = rec.last_output(self.follower.points)
        keys = self.keys(rec)
        try:
            out = tuple(crypto.lock_pass(inp, keys) if number == 1 else crypto.key_pass(inp, keys))
        except UsageError:
            # An invalid point in the pass before: its author's, proven by its signed pass.
            # (Every pass is checked as it comes, so a follower never keeps one: this is the
            # scalar multiplication's own refusal, should a point get past that check.)
            done = [(p, k) for k in (1, 2) for p in rec.order if (p, k) in rec.passes]
            author, its_number = done[-1]
            bad = crypto.find_invalid(rec.passes[done[-1]])
            where = "a point" if bad is None else f"position {bad[0]}"
            raise Cheat(
                BlindFault.BAD_PASS,
                author,
                f"pass {its_number}: {where} is not a point of the prime-order group",
            ) from None
        return out, sign(self._sk, crypto.pass_message(rec.ctx, self.pid, number, out))

    def claim(self, fault: str, detail: str) -> bytes:
        """Its signature over a claim that stops the hand (:func:`claim_message`)."""
        return sign(self._sk, claim_message(self.setup.ctx0, self.pid, fault, detail))

    def share(self, shuffle: int, position: int, to: str = "") -> Share:
        """Its own key of a position, signed for ``to`` (``""``: public)."""
        rec = self.follower.shuffles[shuffle]
        key = self.keys(rec).positions[position]
        message = crypto.release_message(rec.ctx, self.pid, to, position, key)
        return Share(self.pid, to, key, sign(self._sk, message))

    def seal(self, shuffle: int, position: int, to: str) -> bytes:
        """Its key of a position, signed and sealed to ``to`` alone."""
        s = self.share(shuffle, position, to)
        rec = self.follower.shuffles[shuffle]
        return crypto.seal_release(
            self._sk, self.setup.keys[to], rec.ctx, self.pid, to, position, s.key, s.signature
        )

    def release_to(self, seat: int, hidden: int) -> tuple[str, bytes] | None:
        """The sealed key a drawer is owed for a hidden card the public steps gave ``seat``:
        ``(drawer, sealed)``, or None if this participant owns the seat. It checks that its
        own follower gave that hidden card to that seat: the host cannot ask for a position
        on behalf of anyone else."""
        to = self.follower.owner(seat)
        if to == self.pid:
            return None
        if not (self.follower.game.hands[seat] >> hidden) & 1:
            raise UsageError(f"seat {seat} holds no hidden card {hidden}")
        k, position = self.follower.positions.locate(hidden)
        return to, self.seal(k, position, to)

    def receive(self, hidden: int, sender: str, sealed: bytes) -> int | None:
        """A key released to this holder; the card once every key is in (None before).
        :class:`Cheat` if the release does not open or is not signed by ``sender``; if all
        keys are in and they open no card, BAD_KEY with no culprit yet (the seeds after the
        hand tell whose key was wrong)."""
        k, position = self.follower.positions.locate(hidden)
        rec = self.follower.shuffles[k]
        got = crypto.unseal_release(
            self._sk, self.setup.keys[sender], rec.ctx, sender, self.pid, position, sealed
        )
        if got is None:
            raise Cheat(BlindFault.BAD_SIGNATURE, sender, "a sealed key", proven=False)
        # The seal already shows the sender (only it and this holder share its key); the
        # signature inside, which proves it to others, is checked if the card does not open.
        return self._take(hidden, Share(sender, self.pid, got[0], got[1]))

    def derive_gone(self, hidden: int) -> int | None:
        """The keys of one of its hidden cards that participants who left can no longer send:
        each made from the seed it published (unsigned: anyone can make it again). The card
        once every key is in."""
        f = self.follower
        k, position = f.positions.locate(hidden)
        rec = f.shuffles[k]
        card = None
        for q in rec.order:
            if q in f.gone and q != self.pid:
                card = self._take(hidden, Share(q, self.pid, f.gone_key(rec, position, q), b""))
        return card

    def _take(self, hidden: int, share: Share) -> int | None:
        k, position = self.follower.positions.locate(hidden)
        rec = self.follower.shuffles[k]
        shares = self.received.setdefault((k, position), {})
        shares[share.sender] = share
        if len(shares) < len(rec.order) - 1 or hidden in self.cards:
            return None
        if not any((h >> hidden) & 1 for h in self.follower.game.hands):
            return None  # laid (and opened to all) before this key came: a resume's replay
        mine = Share(self.pid, self.pid, self.keys(rec).positions[position], b"")
        try:
            card = self.follower.open_with(rec, position, [*shares.values(), mine], own=self.pid)
        except UsageError as e:
            raise Cheat(BlindFault.BAD_KEY, "", str(e), proven=False) from None
        self.cards[hidden] = card
        self.follower.know(hidden, card)
        return card

    def move(self, seq: int, seat: int, move: int) -> MoveRecord:
        """Its signed move for ``seat``; a laid card carries every key of its position."""
        hidden = -1
        opening = None
        if move < MAX_CARD and move not in (DRAW, PASS):
            hidden = next((h for h, c in self.cards.items() if c == move), -1)
            if hidden >= 0:
                del self.cards[hidden]  # laid: the same card may come back after a reshuffle
                k, position = self.follower.positions.locate(hidden)
                shares = (*self.received[(k, position)].values(), self.share(k, position, self.pid))
                opening = Opening(k, position, move, shares)
        message = move_message(self.setup.ctx0, seq, seat, self.pid, move, hidden)
        return MoveRecord(seq, seat, self.pid, move, hidden, sign(self._sk, message), opening)
