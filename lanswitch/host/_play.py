"""The host's hands: starting one, its steps, its fair-deal rounds, moves, people going away
and coming back, the end of the hand, and catching up a client that (re)joins mid-hand.

The hand itself — the engine, its rounds, its log, its stage — is a
:class:`~lanswitch.fairdeal.Dealer`, whose :data:`~lanswitch.fairdeal.HAND_CALLS` table says
what each stage takes. This module adds what only the host knows: time (deadlines, the grace
an away player gets, the turn timer), connections, and what to send whom.

Policies (``docs/hosting.md``): a round waits ``round_timeout`` for a connected participant;
a player whose link drops is waited for ``away_grace`` seconds, then the log says it is away
and the host plays its seat (a stand-in) and leaves it out of later rounds — the hand goes on
— until it comes back by its token; a player who says goodbye mid-hand is away at once, its
signed head of the log so far in the log. Only a player who vanishes between its commitment
and its seed voids the hand (its seed cannot be replaced), blamed on the host's word.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from .. import protocol as p
from ..bots import Bot, make_bot
from ..fairdeal import (
    DEALER,
    Announcement,
    BadMove,
    Blame,
    Dealer,
    HandStage,
    RoundState,
    SignedHead,
    Step,
    VoidRecord,
)
from ..fairdeal.checks import timeout_move
from ..fairdeal.primitives import log_head_message, public_bytes, seats_of, verify
from ..game import BLUNDER_FLAG, PRIVATE_KINDS, Event, Game, IllegalMove, redact
from ._blind import BlindHand, BlindHost
from ._config import ADVANCE_BOUND, HOST_ID, IDLE_PING_AFTER

__all__ = ["Host"]

_MOVING: Final = frozenset({HandStage.PLAY})
_PRESENCE: Final = frozenset({HandStage.PLAY, HandStage.CHANCE})
"""The stages in which the log may say someone went or came back (between steps, no round
open: a round's context binds the log as it was announced)."""


@dataclass(slots=True)
class _Hand:
    """The hand in progress, and after it until every log head is in."""

    dealer: Dealer
    pids: tuple[str, ...]
    bots: dict[int, Bot]
    steps: list[tuple[tuple[Event, ...], tuple[bytes, ...]]] = field(default_factory=list)
    published: list[tuple[int, p.Message]] = field(default_factory=list)
    """Announcements and the abort, each with the step count when it was sent (to catch up)."""
    round_deadline: float = 0.0
    turn_since: float = 0.0  # when the seat to act was given the turn
    goodbyes: dict[int, SignedHead] = field(default_factory=dict)  # heads sent before a bye
    over_messages: dict[int | None, p.HandOver] = field(default_factory=dict)
    reveals: list[p.Reveals] = field(default_factory=list)
    heads: dict[str, SignedHead] = field(default_factory=dict)
    heads_deadline: float = 0.0
    heads_message: p.LogHeads | None = None

    @property
    def seq(self) -> int:
        return len(self.steps)

    @property
    def game(self) -> Game:
        return self.dealer.game

    @property
    def ended(self) -> bool:
        """The hand is over and its end was sent (``hand_over``, the reveals)."""
        return bool(self.over_messages)


def _announce(a: Announcement) -> p.Announce:
    return p.Announce(
        round=a.round,
        fixed=a.fixed,
        ctx=a.ctx,
        cards=a.cards,
        seats=seats_of(a.mask),
        commitments=dict(a.commitments),
        signature=a.signature,
    )


def _abort(v: VoidRecord) -> p.Abort:
    return p.Abort(
        round=v.round,
        fault=v.fault.name.lower(),
        culprits=v.culprits,
        commitments=dict(v.commitments),
        signature=v.signature,
    )


class Host(BlindHost):
    """One table's host: see the package docstring for how a shell drives it."""

    hand: _Hand | BlindHand | None
    dealer_cls: type[Dealer] = Dealer
    """What deals each hand. (A dishonest host, in the tests that play one against untouched
    clients, plugs in a Dealer that cheats.)"""

    # -- starting a hand -----------------------------------------------------------------------

    def _start_hand(self) -> None:
        if self.match.over:  # a rematch: the scores start again, the deal moves on
            self.match = self._new_match(self.match.dealer)
        empty = [s.index for s in self.table.seats if s.kind == "empty"]
        self.table.start(HOST_ID)
        game = self.match.new_hand(absent=empty)
        pids = tuple(f"seat{i}" for i in range(self.config.seats))
        keys: dict[str, bytes] = {DEALER: public_bytes(self.key)}
        bots: dict[int, Bot] = {}
        for s in self.table.seats:
            if s.kind == "bot":
                bots[s.index] = make_bot(s.bot, self.rules)
            elif s.kind == "human":
                entry = self.table.clients[s.client or ""]
                keys[pids[s.index]] = self.keys[entry.token]
        if self.blind:
            self._start_blind_hand(game, pids, bots)
            return
        dealer = self.dealer_cls(
            game,
            game_id=self.game_id,
            seats=pids,
            key=self.key,
            keys=keys,
            turn_timer_ms=round(self.config.turn_timer * 1000),
            names=tuple(s.name[:32] for s in self.table.seats),  # as the lobby shows them
        )
        self.hand = _Hand(dealer, pids, bots, turn_since=self._now)
        self._say(f"hand {game.hand_no} started, {self.table.seats[game.dealer].name} deals")
        self._broadcast_lobby()
        self._broadcast(self._hand_message(self.hand))

    def _hand_message(self, h: _Hand) -> p.Hand:
        """The ``hand`` message of ``h`` (at its start, and to catch up)."""
        setup = h.dealer.setup
        return p.Hand(
            game_id=setup.game_id,
            hand_no=setup.hand_no,
            seats=h.pids,
            dealer=setup.dealer,
            out=setup.out,
            rules=setup.rules_toml,
            keys=setup.keys,
            turn_timer_ms=setup.turn_timer_ms,
            names=setup.names,
        )

    def _catch_up(self, cid: int, *, resumed: bool) -> None:
        """Bring a client that (re)joined up to date (SPEC § Resuming): the hand, then every
        announcement, abort and step in the order first sent — a round's context binds the log
        as it was, so a client that rebuilds the hand from nothing must have the steps before
        a round to check it —, then its view and the hand's end. Between hands, a player who
        resumes gets the last hand again, in case it lost its end (its verdict needs it)."""
        h: _Hand | BlindHand | None = self.hand
        if h is None and resumed:
            h = self.last_hand
        if h is None:
            return
        if isinstance(h, BlindHand):
            self._blind_catch_up(cid, h)
            return
        entry = self.table.clients.get(str(cid))
        seat = None if entry is None else entry.seat
        self._send(cid, self._hand_message(h))
        published = iter(h.published)
        pending = next(published, None)
        for seq in range(h.seq + 1):
            while pending is not None and pending[0] <= seq:
                self._send(cid, pending[1])
                pending = next(published, None)
            if seq < h.seq:
                events, log = h.steps[seq]
                shown = tuple(redact(e, seat) for e in events)
                self._send(cid, p.Events(seq=seq + 1, events=shown, log=log))
        self._send(cid, self._view(h, seat))
        if h.ended:
            self._send(cid, h.over_messages.get(seat) or h.over_messages[None])
            for r in h.reveals:
                self._send(cid, r)
            if h.heads_message is not None:
                self._send(cid, h.heads_message)

    def _view(self, h: _Hand, seat: int | None) -> p.SeatView:
        return p.SeatView.from_view(h.game.view(seat), h.seq, self._timer_ms(h))

    def _timer_ms(self, h: _Hand) -> int:
        if not self.config.turn_timer or h.dealer.stage not in _MOVING:
            return 0
        left = h.turn_since + self.config.turn_timer - self._now
        return max(0, int(left * 1000))

    # -- steps ---------------------------------------------------------------------------------

    def _step(self, h: _Hand, step: Step, first: int | None = None) -> None:
        """Send step ``seq`` to everyone: its events, redacted per viewer, then each view."""
        events = step.events
        log = tuple(e.encode() for e in step.log)
        h.steps.append((events, log))
        seq = h.seq
        h.turn_since = self._now
        if self._quiet:  # replaying a journal: nothing is sent
            return
        timer = self._timer_ms(h)
        shown: dict[int | None, tuple[p.Events, p.SeatView]] = {}
        private = any(e[0] in PRIVATE_KINDS for e in events)  # else all see the same events
        shared = tuple(redact(e, None) for e in events) if private else events
        public = p.Events(seq=seq, events=shared, log=log)
        order = list(self.conns.values())
        if first is not None and first in self.conns:  # the mover hears first: its round trip
            order.insert(0, order.pop(order.index(self.conns[first])))
        for conn in order:
            cid = conn.cid
            if not conn.welcomed:
                continue
            seat = self._seat_of(cid)
            pair = shown.get(seat)
            if pair is None:
                # One events message for every viewer who sees the step as a spectator does
                # (all of them, unless cards were dealt or drawn): the server encodes it once.
                ev = public
                if private and seat is not None:
                    mine = tuple(redact(e, seat) for e in events)
                    if mine != public.events:
                        ev = p.Events(seq=seq, events=mine, log=log)
                view = p.SeatView.from_view(h.game.view(seat), seq, timer)
                pair = shown[seat] = (ev, view)
            self.outbox.append((cid, pair[0]))
            self.outbox.append((cid, pair[1]))

    def _publish(self, h: _Hand, message: p.Message) -> None:
        h.published.append((h.seq, message))
        self._broadcast(message)

    # -- running the table forward ------------------------------------------------------------

    def _advance(self, *, moves: bool = True) -> None:
        """Run the table forward as far as it can go without waiting (``moves``: including
        the moves the host makes itself)."""
        for _ in range(ADVANCE_BOUND):
            if not self._advance_once(moves):
                return
        raise RuntimeError("the table did not settle")  # pragma: no cover - a bug

    def _advance_once(self, moves: bool) -> bool:
        h = self.hand
        if h is None:
            return self._between_hands()
        if isinstance(h, BlindHand):
            return self._blind_advance(h, moves)
        if h.ended:
            return self._maybe_finish(h)
        dealer = h.dealer
        stage = dealer.stage
        if stage is HandStage.OVER:
            self._end_hand(h)
            return True
        if stage in _PRESENCE and self._presence_step(h):
            return True
        if stage is HandStage.PLAY:
            return moves and self._host_moves(h)
        return self._advance_round(h, stage)

    def _host_moves(self, h: _Hand) -> bool:
        """The host's own move for the seat to act, if one is due: its bot, a stand-in for a
        player who is away, or the turn timer running out."""
        due = self._turn_due(h)
        if due is None or self._now < due:
            return False
        game, dealer = h.game, h.dealer
        seat = game.to_act()
        if seat in h.bots or dealer.is_away(seat):
            bot = h.bots.get(seat) or make_bot("heuristic", self.rules)
            move = bot.choose(game.view(seat), self._rng)
        else:  # the timer ran out: the move that gives nothing away
            move = timeout_move(game.legal_moves())
        self._step(h, dealer.host_move(seat, move))
        return True

    def _turn_due(self, h: _Hand) -> float | None:
        """When the host itself moves for the seat to act (a bot, an away player, a timer)."""
        seat = h.game.to_act()
        if seat in h.bots or h.dealer.is_away(seat):
            return h.turn_since + self.config.bot_delay
        if seat in self.away:  # gone, not yet past its grace: the log says so then
            return self.away[seat] + self.config.away_grace
        if self.config.turn_timer:
            return h.turn_since + self.config.turn_timer
        return None

    def _presence_step(self, h: _Hand) -> bool:
        """Log one person going away or coming back, if one is due (between steps)."""
        dealer = h.dealer
        for seat in sorted(dealer.setup.humans):
            if dealer.is_away(seat):
                if seat not in self.away and self._cid_of_seat(seat) is not None:
                    self._step(h, dealer.back(seat))
                    self._say(f"{self.table.seats[seat].name} plays again")
                    return True
            elif self._gone_for_good(seat):
                goodbye = h.goodbyes.get(seat) if seat in self.quit else None
                self._step(h, dealer.away(seat, goodbye))
                self._say(f"the host plays {self.table.seats[seat].name}'s seat")
                return True
        return False

    # -- fair-deal rounds ------------------------------------------------------------------

    def _advance_round(self, h: _Hand, stage: HandStage) -> bool:
        dealer = h.dealer
        if stage is HandStage.CHANCE:
            h.round_deadline = self._now + self.config.round_timeout
            for a in dealer.open_round(self.entropy(32)):
                self._publish(h, _announce(a))
            return True
        if stage is HandStage.DEALING:
            self._step(h, dealer.deal())
            return True
        if stage is HandStage.FAILING:
            self._void(h)
            return True
        opened = dealer.open
        assert opened is not None
        rnd = opened.round
        gone = [q for q in rnd.participants if q in h.pids and self._gone_for_good(h.pids.index(q))]
        if stage is HandStage.COMMITTING and gone:
            # Nobody has been asked for a seed of this round yet: give it up and announce it
            # anew without the players who went (the next pass logs them away first).
            dealer.withdraw()
            return True
        waiting = rnd.waiting_for()
        missing_gone = [q for q in waiting if q in gone]
        # A seed that cannot come (its player went) fails the round — once everyone still
        # here has had the chance to reveal, so that only the missing are blamed.
        if self._now >= h.round_deadline or (missing_gone and set(waiting) <= {*gone, DEALER}):
            self._void(h)
            return True
        return False

    def _void(self, h: _Hand) -> None:
        record = h.dealer.fail()
        self._say(
            f"hand {h.game.hand_no} is void: {', '.join(record.culprits)} {record.fault.value}"
        )
        self._publish(h, _abort(record))

    def _commit(self, cid: int, m: p.Commit) -> None:
        def take(h: _Hand, pid: str) -> None:
            fixed = h.dealer.commit(pid, m.commitment, m.signature)
            if fixed is not None:
                self._publish(h, _announce(fixed))

        self._fair(cid, m.round, HandStage.COMMITTING, "commitment", m.commitment, take)

    def _reveal(self, cid: int, m: p.Reveal) -> None:
        def take(h: _Hand, pid: str) -> None:
            h.dealer.reveal(pid, m.seed, m.signature)

        self._fair(cid, m.round, HandStage.REVEALING, "seed", m.seed, take)

    def _fair(
        self,
        cid: int,
        r: int,
        stage: HandStage,
        what: str,
        value: bytes,
        take: Callable[[_Hand, str], None],
    ) -> None:
        """A commitment or seed for round ``r``, taken when the hand is at ``stage`` of that
        round. One that repeats what the round already has from this seat (a client resending
        after a resume) is no news; anything else the round cannot take is refused."""
        h, pid = self._participant(cid, r)
        if h is None:
            return
        rnd = h.dealer.rounds[r].round
        have = rnd.commitments if stage is HandStage.COMMITTING else rnd.seeds
        again = pid in have and have[pid][0] == value
        if h.dealer.stage is not stage or r != len(h.dealer.rounds) - 1:
            if not again:
                self._reject_fair(cid, f"round {r} takes no {what} from you now")
            return
        try:
            take(h, pid)
        except Blame as e:
            if not again and rnd.state is not RoundState.FAILED:  # failed: the hand is void
                self._reject_fair(cid, str(e))

    def _participant(self, cid: int, r: int) -> tuple[_Hand | None, str]:
        """The hand and ``cid``'s id in it, if round ``r`` of it exists."""
        h = self.hand
        seat = self._seat_of(cid)
        if not isinstance(h, _Hand) or seat is None or not 0 <= r < len(h.dealer.rounds):
            self._reject_fair(cid, f"round {r} is not open")
            return None, ""
        return h, h.pids[seat]

    def _reject_fair(self, cid: int, text: str) -> None:
        self._send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text=text[:500]))

    # -- moves -----------------------------------------------------------------------------

    def _move(self, cid: int, m: p.Move) -> None:
        """A player's move. The checks, in order: a hand in play and a seat in it; this seat's
        turn (``not_your_turn``); the view it answers is the current one (``stale_view``, an
        older or a future ``seq``); its signature over the log (``fair_deal``); the rules
        (``illegal_move``)."""
        h = self.hand
        seat = self._seat_of(cid)
        if not isinstance(h, _Hand) or h.ended or seat is None or h.dealer.stage is HandStage.OVER:
            self._send(cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="no hand", seq=m.seq))
            return
        if h.dealer.stage not in _MOVING or h.game.to_act() != seat:
            self._send(
                cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="not your turn", seq=m.seq)
            )
            return
        if m.seq != h.seq:
            text = f"that answered view {m.seq}; the table is at {h.seq}"
            self._send(cid, p.Reject(code=p.ErrorCode.STALE_VIEW, text=text, seq=m.seq))
            return
        if m.move & BLUNDER_FLAG:  # a blunder is the rules' charge for a move, not a move
            self._send(cid, p.Reject(code=p.ErrorCode.ILLEGAL_MOVE, text="not a move", seq=m.seq))
            return
        try:
            step = h.dealer.act(seat, m.move, m.signature)
        except BadMove as e:
            self._send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text=str(e), seq=m.seq))
            return
        except IllegalMove as e:
            self._send(cid, p.Reject(code=p.ErrorCode.ILLEGAL_MOVE, text=str(e), seq=m.seq))
            return
        self._step(h, step, first=cid)

    # -- the end of a hand -----------------------------------------------------------------

    def _end_hand(self, h: _Hand) -> None:
        dealer, game = h.dealer, h.game
        result = game.result
        assert result is not None
        signed = dealer.sign_head()
        head = (signed.count, signed.head, signed.signature)
        fields = {
            "reason": result.reason,
            "placings": result.placings,
            "scores": result.scores,
            "hand_points": result.hand_points,
            "head": head,
        }
        h.over_messages[None] = p.HandOver(**fields)  # type: ignore[arg-type]
        for seat in dealer.setup.humans:
            h.over_messages[seat] = p.HandOver(
                **fields,  # type: ignore[arg-type]
                cards_signature=dealer.sign_cards(seat),
            )
        for cid, conn in self.conns.items():
            if conn.welcomed:
                self._send(cid, h.over_messages.get(self._seat_of(cid)) or h.over_messages[None])
        for r in range(len(dealer.rounds)):
            msg = p.Reveals(round=r, seeds=dealer.reveals(r))
            h.reveals.append(msg)
            self._broadcast(msg)
        h.heads[DEALER] = signed
        h.heads_deadline = self._now + self.config.heads_timeout
        names = [self.table.seats[s].name for s in result.placings]
        verb = "void" if result.reason in ("void", "forfeit") else "over"
        self._say(
            f"hand {game.hand_no} {verb} ({result.reason})"
            + (f": {names[0]} wins" if names and verb == "over" else "")
        )

    def _log_head(self, cid: int, m: p.LogHead) -> None:
        """A seat's signed head of the log: after the hand, of the whole log; during it, just
        before a goodbye, of the log so far (its ``Away`` event will carry it). A head that is
        not of the log this host sent, or not signed by the seat, is refused — so no client
        can make the others' checks blame the host."""
        h = self.hand
        seat = self._seat_of(cid)
        if not isinstance(h, _Hand) or seat is None or h.heads_message is not None:
            self._reject_fair(cid, "no log head is wanted now")
            return
        dealer = h.dealer
        pid = h.pids[seat]
        signed = SignedHead(m.count, m.head, m.signature)
        log = dealer.log
        key = dealer.setup.keys.get(pid)
        if (
            key is None
            or log.head_at(m.count) != m.head
            or not verify(
                key, log_head_message(dealer.setup.ctx0, pid, m.count, m.head), m.signature
            )
        ):
            self._reject_fair(
                cid, "that log head is not of the log you were sent, or not signed with your key"
            )
            return
        if h.ended:
            h.heads[pid] = signed
        else:
            h.goodbyes[seat] = signed

    def _maybe_finish(self, h: _Hand) -> bool:
        if h.heads_message is None:
            # Every present person's head of the whole log is in, or the wait is over. A
            # player who went away mid-hand has its goodbye (or nothing) in the log; one whose
            # link dropped is waited for while it may still come back (its grace).
            full = h.dealer.log.count
            waiting = []
            for seat in h.dealer.setup.humans:
                if h.dealer.is_away(seat) or self._gone_for_good(seat):
                    continue  # not waited for: the log says it went, or it has not come back
                got = h.heads.get(h.pids[seat])
                if got is None or got.count < full:
                    waiting.append(seat)
            if waiting and self._now < h.heads_deadline:
                return False
            h.heads_message = p.LogHeads(
                heads={q: (s.count, s.head, s.signature) for q, s in h.heads.items()}
            )
            self._broadcast(h.heads_message)
        self._hand_done(h.game)
        self.last_hand = h
        return True

    # -- what the base asks -------------------------------------------------------------------

    def _watch(self) -> tuple[float, int | None, float]:
        """In play, the host waits on the seat to act alone — pinged after ``PING_AFTER`` of
        silence since its turn began (a draw or a turn of its own starts it anew) — and the
        others hear of every step without needing to speak (``IDLE_PING_AFTER``). Rounds of
        the fair deal and dealer-blind hands wait on everyone (the default)."""
        h = self.hand
        if not isinstance(h, _Hand) or h.ended or h.dealer.stage not in _MOVING:
            return super()._watch()
        seat = h.game.to_act()
        awaited = None if seat in h.bots or h.dealer.is_away(seat) else self._cid_of_seat(seat)
        return IDLE_PING_AFTER, awaited, h.turn_since

    def _hand_deadline(self) -> float | None:
        h = self.hand
        if h is None:
            return None
        if isinstance(h, BlindHand):
            return self._blind_deadline(h)
        # The grace of a player whose link dropped, until the log says it went (or, after
        # the hand, until its head is no longer waited for).
        times = [
            since + self.config.away_grace
            for seat, since in self.away.items()
            if not h.dealer.is_away(seat) and since + self.config.away_grace > self._now
        ]
        if h.ended:
            return min([h.heads_deadline, *times]) if h.heads_message is None else None
        stage = h.dealer.stage
        if stage in (HandStage.COMMITTING, HandStage.REVEALING):
            times.append(h.round_deadline)
        elif stage is HandStage.PLAY:
            due = self._turn_due(h)
            if due is not None:
                times.append(due)
        else:
            times.append(self._now)  # a step the host takes at once
        return min(times) if times else None
