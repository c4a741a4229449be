"""The host's side of a hand: the rules engine dealt by commit-reveal rounds, its public log,
every seat's private cards — and the hand's stage as one table.

:class:`Dealer` is pure: the host (``lanswitch.host``) or the one-process driver
(:mod:`.local`) carries its messages. A chance step of the engine (the deal, a reshuffle) is a
round: :meth:`Dealer.open_round` (the host's own commitment goes out first, signed), the
participants :meth:`~Dealer.commit` — the last commitment gives the stage-3 announcement —
and :meth:`~Dealer.reveal`; then :meth:`~Dealer.deal`, or :meth:`~Dealer.fail` (the hand is
void) or :meth:`~Dealer.withdraw` (a participant went away before all committed). A move is
:meth:`~Dealer.act` (a player's, with its signature over the log as it held it) or
:meth:`~Dealer.host_move` (the host's, for a bot, a player who is away, or a turn timer that
ran out: signed as ``@dealer`` and marked so). A player going away or coming back is
:meth:`~Dealer.away` / :meth:`~Dealer.back`. Each returns the :class:`Step` it added.

:meth:`Dealer.order`, :meth:`Dealer.announced_cards` and :meth:`Dealer.own_reveal` are where a
host's choice could enter: an honest host returns what it is given (the tamper and cheating
tests override them to play a dishonest one).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from ..errors import InvalidInput
from ..game import BLUNDER_FLAG, Event, Game
from .checks import Presence
from .forfeit import forfeiters
from .log import (
    BY_BOT,
    BY_SEAT,
    BY_STAND_IN,
    BY_TIMEOUT,
    LEFT,
    LOST,
    Away,
    Back,
    Draw,
    Log,
    LogEvent,
    Move,
    Shuffle,
    TurnUp,
)
from .primitives import (
    DEALER,
    Fault,
    PrivateKeyLike,
    UsageError,
    cards_message,
    commitment,
    commitment_message,
    log_head_message,
    move_message,
    participants_of,
    private_key,
    public_bytes,
    reveal_message,
    round_context,
    sign,
    verify,
)
from .round import Announcement, Round, RoundState, VoidRecord
from .setup import HandSetup
from .transcript import SignedHead

__all__ = ["HAND_CALLS", "BadMove", "Dealer", "HandStage", "Step", "card_events"]


class HandStage(enum.Enum):
    """Where a hand stands; :data:`HAND_CALLS` says what each stage takes."""

    PLAY = "the engine waits for a move"
    CHANCE = "the engine waits for a shuffle and no round is open"
    COMMITTING = "a round is open: its participants commit"
    REVEALING = "a round's commitments are fixed: its participants reveal their seeds"
    DEALING = "every seed of the round opened: its order is to be dealt"
    FAILING = "a seed of the round did not open: the hand is to be voided"
    OVER = "the hand is over, or void: its log is final"


HAND_CALLS: Final[Mapping[HandStage, frozenset[str]]] = {
    HandStage.PLAY: frozenset({"act", "host_move", "away", "back"}),
    HandStage.CHANCE: frozenset({"open_round", "away", "back"}),
    HandStage.COMMITTING: frozenset({"commit", "withdraw", "fail"}),
    HandStage.REVEALING: frozenset({"reveal", "fail"}),
    HandStage.DEALING: frozenset({"deal"}),
    HandStage.FAILING: frozenset({"fail"}),
    HandStage.OVER: frozenset(),
}
"""Which of the dealer's calls each stage of a hand takes: the one table of the hand's flow
(the round's own flow is :data:`.round.ROUND_FLOW`). A player going away while a round is
committing is :meth:`Dealer.withdraw` and then :meth:`Dealer.away`; while it is revealing, the
host waits for its seed and fails the round if it never comes."""

_ROUND_STAGES: Final = {
    RoundState.ANNOUNCED: HandStage.COMMITTING,
    RoundState.FIXED: HandStage.REVEALING,
    RoundState.FAILED: HandStage.FAILING,
}


class BadMove(InvalidInput):
    """A player's move the host cannot take: its signature is not over the log as it stands."""


@dataclass(frozen=True, slots=True)
class Step:
    """What one step added: the public log events (the same for everyone) and the engine's
    events (to be redacted per viewer)."""

    log: tuple[LogEvent, ...]
    events: tuple[Event, ...] = ()


@dataclass
class _Open:
    """A round as the dealer runs it."""

    number: int
    cards: tuple[int, ...]
    mask: int
    at: int
    round: Round
    announces: list[Announcement] = field(default_factory=list)
    own_seed: bytes = b""


def card_events(events: Sequence[Event]) -> list[LogEvent]:
    """The log events for the cards one engine step moved from the stock.

    Dealt and drawn cards become ``Draw(seat, n)`` — consecutive ones to the same seat merge
    into one, whatever unlogged events lie between them —, turned-up starters ``TurnUp``.
    Everything else the engine reports is a consequence of the rules, which the replay
    recomputes, so it is not logged.
    """
    out: list[LogEvent] = []
    seat_run, n_run = -1, 0
    for kind, seat, value in events:
        if kind == "deal" or kind == "draw":
            if seat == seat_run and n_run < 255:
                n_run += 1
                continue
            if n_run:
                out.append(Draw(seat_run, n_run))
            seat_run, n_run = seat, 1
        elif kind == "starter":
            if n_run:
                out.append(Draw(seat_run, n_run))
                seat_run, n_run = -1, 0
            out.append(TurnUp(value))
    if n_run:
        out.append(Draw(seat_run, n_run))
    return out


class Dealer:
    """The host's side of one hand (see the module docstring)."""

    def __init__(
        self,
        game: Game,
        *,
        game_id: bytes,
        seats: Sequence[str],
        key: PrivateKeyLike,
        keys: Mapping[str, bytes],
        turn_timer_ms: int = 0,
        names: Sequence[str] = (),
    ) -> None:
        req = game.chance_request()
        if req is None or req[0] != "deal":
            raise UsageError("the dealer needs a game that waits for its deal")
        if len(seats) != game.players:
            raise UsageError(f"{game.players} seats need {game.players} ids, got {len(seats)}")
        self.key = private_key(key)
        if keys.get(DEALER) != public_bytes(self.key):
            raise UsageError("the host's key does not match @dealer's public key")
        out = tuple(s for s in range(game.players) if not game.active[s])
        self.setup = HandSetup.create(
            game_id,
            game.hand_no,
            game.rules,
            seats,
            keys,
            dealer=game.dealer,
            out=out,
            turn_timer_ms=turn_timer_ms,
            names=names,
        )
        self.game = game
        self.log = Log(self.setup.ctx0)
        self.log.append(self.setup.note)
        self.presence = Presence(self.setup)
        self.rounds: list[_Open] = []
        self.cards: list[list[int]] = [[] for _ in seats]
        self.void: VoidRecord | None = None

    # -- where the hand stands ---------------------------------------------------------------

    @property
    def stage(self) -> HandStage:
        if self.game.result is not None:
            return HandStage.OVER
        if self.game.chance_request() is None:
            return HandStage.PLAY
        if not self.rounds:
            return HandStage.CHANCE
        rnd = self.rounds[-1].round
        if rnd.complete and rnd.state is RoundState.FIXED:
            return HandStage.DEALING
        return _ROUND_STAGES.get(rnd.state, HandStage.CHANCE)

    def _need(self, call: str) -> None:
        stage = self.stage
        if call not in HAND_CALLS[stage]:
            raise UsageError(f"{call} is not taken while the hand is at {stage.name}")

    @property
    def open(self) -> _Open | None:
        """The round in progress (committing, revealing, to be dealt or voided), if any."""
        if self.rounds and self.rounds[-1].round.state in _ROUND_STAGES and not self.game.result:
            return self.rounds[-1]
        return None

    def _add(self, logged: Sequence[LogEvent], events: Sequence[Event] = ()) -> Step:
        self.log.extend(logged)
        for ev in logged:
            self.presence.feed(self.log.count - 1, ev, self.log.heads)
        for kind, seat, value in events:
            if kind == "deal" or kind == "draw":
                self.cards[seat].append(value)
        return Step(tuple(logged), tuple(events))

    # -- the levers a dishonest host would pull (own_reveal is the third) ---------------------

    def announced_cards(self, round_no: int, cards: list[int]) -> list[int]:
        """The cards the host announces for round ``round_no``: the engine's, honestly."""
        return cards

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        """The order the host deals from: the derived one, honestly."""
        return derived

    # -- rounds ------------------------------------------------------------------------------

    def open_round(self, seed: bytes) -> list[Announcement]:
        """Announce the next round among the people present, with the host's own commitment
        to ``seed``. Returns its stage-1 announcement — and stage 3 at once if nobody but the
        host takes part (everyone is away)."""
        self._need("open_round")
        req = self.game.chance_request()
        assert req is not None
        r = len(self.rounds)
        setup, log = self.setup, self.log
        cards = tuple(sorted(self.announced_cards(r, req[1])))
        mask = self.presence.present_mask()
        ctx = round_context(setup.ctx0, r, log.count, log.head, mask, cards)
        ps = participants_of(setup.seats, mask)
        rnd = Round(ctx, ps, setup.keys)
        opened = _Open(r, cards, mask, log.count, rnd, own_seed=seed)
        self.rounds.append(opened)
        c = commitment(ctx, DEALER, seed)
        sig = sign(self.key, commitment_message(ctx, DEALER, c))
        fixed = rnd.commit(DEALER, c, sig)
        out = [self._announce(opened, fixed=False)]
        if fixed:
            out.append(self._fixed(opened))
        return out

    def _announce(self, opened: _Open, *, fixed: bool) -> Announcement:
        rnd = opened.round
        shown = rnd.commitments if fixed else {DEALER: rnd.commitments[DEALER]}
        ann = Announcement.make(
            self.key,
            self.setup.ctx0,
            opened.number,
            fixed,
            rnd.ctx,
            opened.cards,
            opened.mask,
            shown,
        )
        opened.announces.append(ann)
        return ann

    def _fixed(self, opened: _Open) -> Announcement:
        """Every commitment is in: announce them all."""
        ann = self._announce(opened, fixed=True)
        self._reveal_own(opened)
        return ann

    def _reveal_own(self, opened: _Open) -> bool:
        """Once every other seed is in, the host puts in its own: it reveals last (which it
        may as well, knowing the rest), so it alone could refuse an order it dislikes — the
        last-revealer abort, which voids the hand with the blame on the host."""
        return opened.round.waiting_for() == (DEALER,) and self._put_own(opened)

    def _put_own(self, opened: _Open) -> bool:
        seed = self.own_reveal(opened.number, opened.own_seed)
        if seed is None:
            return False
        rnd = opened.round
        c = rnd.commitments[DEALER][0]
        return rnd.reveal(DEALER, seed, sign(self.key, reveal_message(rnd.ctx, DEALER, c, seed)))

    def own_reveal(self, round_no: int, seed: bytes) -> bytes | None:
        """The seed the host reveals for itself: the one it committed to, honestly (a test's
        host withholds it, or sends another)."""
        return seed

    def commit(self, pid: str, commitment_: bytes, signature: bytes) -> Announcement | None:
        """Take ``pid``'s commitment (Blame if it is refused); the stage-3 announcement when it
        was the last one."""
        self._need("commit")
        opened = self.rounds[-1]
        if opened.round.commit(pid, commitment_, signature):
            return self._fixed(opened)
        return None

    def reveal(self, pid: str, seed: bytes, signature: bytes) -> bool:
        """Take ``pid``'s seed (Blame if it is refused, or if it does not open: then the round
        has failed and :meth:`fail` voids the hand); True once every seed is in."""
        self._need("reveal")
        opened = self.rounds[-1]
        return opened.round.reveal(pid, seed, signature) or self._reveal_own(opened)

    def deal(self) -> Step:
        """Deal from the round whose seeds all opened: its Shuffle event, then the cards."""
        self._need("deal")
        opened = self.rounds[-1]
        order = self.order(opened.number, opened.round.order(opened.cards))
        opened.round.deal()
        events = self.game.apply_chance(order)
        shuffle_ev = Shuffle(opened.number, len(opened.cards), opened.mask)
        return self._add([shuffle_ev, *card_events(events)], events)

    def withdraw(self) -> None:
        """Give up the committing round (a participant went away): the next
        :meth:`open_round` announces it anew, without that player."""
        self._need("withdraw")
        self.rounds[-1].round.withdraw()

    def fail(self) -> VoidRecord:
        """The round failed — a seed did not open, or the wait for one ran out (blaming whoever
        is missing) —: the hand is void. The players blamed forfeit it (``Game.void``) once the
        cards were dealt, and at the deal for a seed that does not open its commitment (proven
        by its signature): the host's own seat holds every other seed before it must reveal, so
        a bad seed there is a choice of deal. A seed "that never came" at the deal is the
        host's word, which must not cost a player a hand it never saw: plain void."""
        self._need("fail")
        opened = self.rounds[-1]
        rnd = opened.round
        if rnd.state is RoundState.FIXED and DEALER in rnd.waiting_for():
            # The host reveals last, but a round failing for want of another's seed is not
            # the host's to answer for: its own goes in, and comes out with the rest.
            self._put_own(opened)
        blame = rnd.blame if rnd.state is RoundState.FAILED and rnd.blame else rnd.abandon()
        self.void = VoidRecord.make(
            self.key, self.setup.ctx0, opened.number, blame, rnd.commitments
        )
        dealt = any(o.round.state is RoundState.DEALT for o in self.rounds)
        seats = self.setup.seats
        proven = blame.fault is Fault.BAD_REVEAL
        lost = forfeiters(blame.culprits, seats, dealt=dealt, proven=proven)
        self.game.void([seats.index(q) for q in lost])
        return self.void

    # -- moves -------------------------------------------------------------------------------

    def move_message(self, seat: int, by: int, move: int) -> bytes:
        """What ``seat``'s move, made by ``by``, is signed over: the log as it stands."""
        return move_message(self.setup.ctx0, self.log.count, self.log.head, seat, by, move)

    def act(self, seat: int, move: int, signature: bytes) -> Step:
        """Apply a player's own move: BadMove unless ``signature`` is its signature over the log
        as it stands, IllegalMove if the rules refuse it. Either way nothing changes."""
        self._need("act")
        pid = self.setup.seats[seat]
        if self.setup.host_runs(seat) or seat in self.presence.away:
            raise BadMove(f"{pid} does not make its own moves now")
        if not verify(self.setup.keys[pid], self.move_message(seat, BY_SEAT, move), signature):
            raise BadMove("the move's signature is not over the log as the host holds it")
        return self._move(seat, move, BY_SEAT, signature)

    def host_move(self, seat: int, move: int, by: int | None = None) -> Step:
        """A move the host makes for ``seat``: its bot's, a stand-in's for a player who is
        away, or on a timeout (``by``; by default what the seat's state says)."""
        self._need("host_move")
        if by is None:
            by = (
                BY_BOT
                if self.setup.host_runs(seat)
                else BY_STAND_IN
                if seat in self.presence.away
                else BY_TIMEOUT
            )
        if by == BY_SEAT:
            raise UsageError("the host does not sign as a player")
        return self._move(seat, move, by, sign(self.key, self.move_message(seat, by, move)))

    def _move(self, seat: int, move: int, by: int, signature: bytes) -> Step:
        if move & BLUNDER_FLAG:
            events = self.game.blunder(seat, move & ~BLUNDER_FLAG)
        else:
            events = self.game.apply(seat, move)  # IllegalMove: nothing changed
        return self._add([Move(seat, by, move, signature), *card_events(events)], events)

    # -- people going and coming -------------------------------------------------------------

    def away(self, seat: int, left: SignedHead | None = None) -> Step:
        """``seat``'s player is away from here on: it said goodbye (``left``, its signed head
        of the log so far, which must be of this log) or its link was lost. A round that is
        committing must be :meth:`withdraw`-n first."""
        self._need("away")
        if seat in self.presence.away or self.setup.host_runs(seat):
            raise UsageError(f"seat {seat} cannot go away")
        if left is None:
            return self._add([Away(seat, LOST)])
        pid = self.setup.seats[seat]
        ok = left.count <= self.log.count and self.log.heads[left.count] == left.head
        msg = log_head_message(self.setup.ctx0, pid, left.count, left.head)
        if not ok or not verify(self.setup.keys[pid], msg, left.signature):
            raise UsageError(f"{pid}'s head is not of this log: it cannot be its goodbye")
        return self._add([Away(seat, LEFT, left.count, left.head, left.signature)])

    def back(self, seat: int) -> Step:
        """``seat``'s player, away, is back and plays for itself again."""
        self._need("back")
        if seat not in self.presence.away:
            raise UsageError(f"seat {seat} is not away")
        return self._add([Back(seat)])

    def is_away(self, seat: int) -> bool:
        return seat in self.presence.away

    # -- after the hand ------------------------------------------------------------------------

    def reveals(self, round_no: int) -> dict[str, tuple[bytes, bytes]]:
        """The seeds (with reveal signatures) round ``round_no`` received, a bad one too: what
        the host reveals after the hand."""
        return self.rounds[round_no].round.seeds

    def sign_head(self) -> SignedHead:
        head, count = self.log.head, self.log.count
        msg = log_head_message(self.setup.ctx0, DEALER, count, head)
        return SignedHead(count, head, sign(self.key, msg))

    def sign_cards(self, seat: int) -> bytes:
        pid = self.setup.seats[seat]
        return sign(self.key, cards_message(self.setup.ctx0, pid, self.cards[seat]))
