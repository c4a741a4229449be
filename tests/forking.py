"""A host that forks a hand to a player's restarted program: a deliberate cheater, for the
tests of a kept seat (``tests/test_rejoin.py`` in one process, ``tests/scenarios/test_cheats.py``
over TLS).

The friend's program committed to its seed for the deal, revealed it, and then ended (a kill, a
crash); a new run of it takes the seat back with the kept key and resume token
(``lanswitch.seatkeep``), remembering nothing of the hand but what it kept. The host knows the
friend's seed from the real hand. It deals the hand again to the new run: the same setup and
the same log before the deal — so the same round-0 context — and a round-0 announcement that
holds the friend's genuine earlier commitment (with its signature, from the real hand), but a
commitment of the host's own to a seed it **ground with the friend's seed in hand**, for the
deal it wants (the most power cards for its bot). After the hand it reveals the friend's seed
under the friend's own reveal signature from the real hand. Nobody else at the table (the host's
bots) can compare. Before the kept seat kept its rounds, the new run took that commitment as its
own, took its seed back from the reveals, and said FAIR.

It can deal an earlier hand again instead (:attr:`RedealingHost.redeal`), in place of the one in
play: one whose rounds the kept seat no longer holds (it keeps the last hand's).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from typing import Any

from lanswitch import protocol as p
from lanswitch.fairdeal import DEALER, Dealer
from lanswitch.fairdeal import keystream as ks
from lanswitch.game import Game
from lanswitch.host import Host
from lanswitch.host._commit import CommitHand
from lanswitch.host._deal import HandStart, Tableside

POWER = {1, 6, 7, 9, 10, 0}  # 2, 7, 8, 10, J, A: Switch's power ranks
GRIND = 200  # seeds the host tries for its own


def power(cards: list[int]) -> int:
    return sum(c % 13 in POWER for c in cards)


class ForkDealer(Dealer):
    """Deals round 0 from the host's ground seed (:attr:`ground`), and honestly after."""

    ground = b""

    def open_round(self, seed: bytes) -> list[Any]:
        return super().open_round(self.ground if not self.rounds and self.ground else seed)


class RedealtHand(CommitHand):
    """The hand dealt again to the new run."""

    dealer_cls = ForkDealer


class RememberingHand(CommitHand):
    """A real hand, remembering what a fork needs: the game before its deal, and the
    commitment and the seed each person sent for round 0."""

    def __init__(self, host: Tableside, start: HandStart) -> None:
        assert isinstance(host, RedealingHost)
        host.starts[start.game.hand_no] = dataclasses.replace(start, game=start.game.clone())
        super().__init__(host, start)
        host.hands[start.game.hand_no] = self

    def _commit(self, cid: int, m: p.Commit) -> None:
        self._heard(cid, m)
        super()._commit(cid, m)

    def _reveal(self, cid: int, m: p.Reveal) -> None:
        self._heard(cid, m)
        super()._reveal(cid, m)

    def _heard(self, cid: int, m: p.Commit | p.Reveal) -> None:
        host = self.host
        assert isinstance(host, RedealingHost)
        seat = host.seat_of(cid)
        if seat is not None and m.round == 0:
            host.heard.setdefault((self.game.hand_no, seat, type(m).__name__), m)
        if isinstance(m, p.Reveal) and host.probe is not None:
            host.probed.append(host.probe())  # (what the sender had on disk as it came)


class RedealingHost(Host):
    """Deals honestly, until a player whose seed for a deal it holds resumes its seat during a
    hand: then it deals that hand again to it, as the module docstring says — the hand in play
    (:attr:`redeal` None), or an earlier one it played (:attr:`redeal`: its number) in place
    of the one in play."""

    commit_hand = RememberingHand
    redeal: int | None = None

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.starts: dict[int, HandStart] = {}
        self.hands: dict[int, RememberingHand] = {}
        self.heard: dict[tuple[int, int, str], p.Commit | p.Reveal] = {}
        self.real: CommitHand | None = None  # the hand it dealt again
        self.forked: RedealtHand | None = None
        self.victim = ""
        self.probe: Callable[[], object] | None = None  # a test's look, as each seed comes
        self.probed: list[object] = []

    def _catch_up(self, cid: int, *, resumed: bool) -> None:
        seat = self.seat_of(cid)
        h = self.hand
        if (
            resumed
            and self.forked is None
            and isinstance(h, RememberingHand)
            and not h.ended
            and seat is not None
        ):
            hand_no = h.game.hand_no if self.redeal is None else self.redeal
            if (hand_no, seat, "Reveal") in self.heard:
                self._fork(cid, seat, self.hands[hand_no])
        super()._catch_up(cid, resumed=resumed)

    def _hand_done(self, game: Game) -> None:
        if self.forked is not None and game is self.forked.game and self.redeal is not None:
            # An earlier hand dealt again is no hand of the match: the table ends with it.
            self.hand, self.finished = None, True
            for cid in list(self.conns):
                self._close(cid, p.Bye(reason="match over"))
            return
        super()._hand_done(game)

    def _fork(self, cid: int, seat: int, real: RememberingHand) -> None:
        hand_no = real.game.hand_no
        start = self.starts[hand_no]
        opened = real.dealer.rounds[0]
        pid = real.pids[seat]
        commit, reveal = self.heard[hand_no, seat, "Commit"], self.heard[hand_no, seat, "Reveal"]
        assert isinstance(commit, p.Commit)
        assert isinstance(reveal, p.Reveal)
        bot = min(real.bots)

        def bot_power(own: bytes) -> int:
            g = start.game.clone()
            seeds = {pid: reveal.seed, DEALER: own}
            g.apply_chance(ks.derive_order(opened.round.ctx, seeds, opened.cards))
            return power(list(g.hand(bot)))

        candidates = (hashlib.sha256(b"fork %d" % i).digest() for i in range(GRIND))
        ground = max(candidates, key=bot_power)
        self.quiet = True  # built as a journal is replayed: nothing is sent, all is published
        try:
            fork = RedealtHand(self, dataclasses.replace(start, game=start.game.clone()))
            assert isinstance(fork.dealer, ForkDealer)
            fork.dealer.ground = ground
            fork.advance(True)  # round 0, stage 1: the host's new commitment
            fork.receive(cid, commit)  # the friend's own, from the real hand: stage 3
            fork.receive(cid, reveal)  # and its seed, from the real hand
            fork.advance(True)  # dealt
        finally:
            self.quiet = False
        assert fork.dealer.rounds[0].round.ctx == opened.round.ctx  # the same round-0 context
        self.real, self.forked, self.victim = real, fork, pid
        self.hand = fork
