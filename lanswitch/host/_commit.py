"""A commit-reveal hand as the host runs it: its steps, its fair-deal rounds, moves, people
going away and coming back, the end of the hand, and catching up a client that (re)joins.

The hand itself — the engine, its rounds, its log, its stage — is a
:class:`~lanswitch.fairdeal.Dealer`, whose :data:`~lanswitch.fairdeal.HAND_CALLS` table says
what each stage takes. :class:`CommitHand` adds what only the host knows: time (deadlines, the
grace an away player gets, the turn timer), connections, and what to send whom. It is one of
the two :class:`~lanswitch.host._deal.HandDriver` implementations; the table holds it.

Policies (``docs/hosting.md``): a round waits ``round_timeout`` for a connected participant;
a player whose link drops is waited for ``away_grace`` seconds, then the log says it is away
and the host plays its seat (a stand-in) and leaves it out of later rounds — the hand goes on
— until it comes back by its token; a player who says goodbye mid-hand is away at once, its
signed head of the log so far in the log. Only a player who vanishes between its commitment
and its seed voids the hand (its seed cannot be replaced), blamed on the host's word.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .. import protocol as p
from ..bots import make_bot
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
from ..narrate import ending
from ._config import IDLE_PING_AFTER
from ._deal import HandMessage, HandStart, Tableside, Watch, hand_message, not_taken

__all__ = ["CommitHand"]

_MOVING: Final = frozenset({HandStage.PLAY})
_PRESENCE: Final = frozenset({HandStage.PLAY, HandStage.CHANCE})
"""The stages in which the log may say someone went or came back (between steps, no round
open: a round's context binds the log as it was announced)."""


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


class CommitHand:
    """A commit-reveal hand in progress, and after it until every log head is in."""

    __slots__ = (
        "bots",
        "dealer",
        "goodbyes",
        "heads",
        "heads_deadline",
        "heads_message",
        "host",
        "over_messages",
        "pids",
        "published",
        "reveals",
        "round_deadline",
        "steps",
        "turn_since",
    )

    dealer_cls: type[Dealer] = Dealer
    """What deals the hand. (A dishonest host, in the tests that play one against untouched
    clients, plugs in a Dealer that cheats: ``tests/cheats.py``.)"""

    def __init__(self, host: Tableside, start: HandStart) -> None:
        self.host = host
        game = start.game
        self.dealer = self.dealer_cls(
            game,
            game_id=start.game_id,
            seats=start.pids,
            key=start.key,
            keys={DEALER: public_bytes(start.key), **start.keys},
            turn_timer_ms=round(host.config.turn_timer * 1000),
            names=start.names,
        )
        self.pids = start.pids
        self.bots = start.bots
        self.steps: list[tuple[tuple[Event, ...], tuple[bytes, ...]]] = []
        self.published: list[tuple[int, p.Message]] = []
        """Announcements and the abort, each with the step count when it was sent (to catch
        up)."""
        self.round_deadline = 0.0
        self.turn_since = host.now  # when the seat to act was given the turn
        self.goodbyes: dict[int, SignedHead] = {}  # heads sent before a bye
        self.over_messages: dict[int | None, p.HandOver] = {}
        self.reveals: list[p.Reveals] = []
        self.heads: dict[str, SignedHead] = {}
        self.heads_deadline = 0.0
        self.heads_message: p.LogHeads | None = None
        host.say(f"hand {game.hand_no} started, {host.seat_names()[game.dealer]} deals")
        host.broadcast_lobby()
        host.broadcast(hand_message(self.dealer.setup, blind=False))

    # -- what the table asks (HandDriver) ------------------------------------------------------

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

    @property
    def settled(self) -> bool:
        return self.heads_message is not None

    def receive(self, cid: int, message: HandMessage) -> None:
        if isinstance(message, p.Move):
            self._move(cid, message)
        elif isinstance(message, p.Commit):
            self._commit(cid, message)
        elif isinstance(message, p.Reveal):
            self._reveal(cid, message)
        elif isinstance(message, p.LogHead):
            self._log_head(cid, message)
        else:  # a dealer-blind hand's message
            self.host.send(cid, not_taken(message))

    def advance(self, moves: bool) -> bool:
        if self.ended:
            return self._maybe_finish()
        stage = self.dealer.stage
        if stage is HandStage.OVER:
            self._end_hand()
            return True
        if stage in _PRESENCE and self._presence_step():
            return True
        if stage is HandStage.PLAY:
            return moves and self._host_moves()
        return self._advance_round(stage)

    def deadline(self) -> float | None:
        host = self.host
        grace = host.config.away_grace
        # The grace of a player whose link dropped, until the log says it went (or, after
        # the hand, until its head is no longer waited for).
        times = [
            since + grace
            for seat, since in host.away.items()
            if not self.dealer.is_away(seat) and since + grace > host.now
        ]
        if self.ended:
            return min([self.heads_deadline, *times]) if self.heads_message is None else None
        stage = self.dealer.stage
        if stage in (HandStage.COMMITTING, HandStage.REVEALING):
            times.append(self.round_deadline)
        elif stage is HandStage.PLAY:
            due = self._turn_due()
            if due is not None:
                times.append(due)
        else:
            times.append(host.now)  # a step the host takes at once
        return min(times) if times else None

    def watch(self) -> Watch | None:
        """In play, the host waits on the seat to act alone — pinged after ``PING_AFTER`` of
        silence since its turn began (a draw or a turn of its own starts it anew) — and the
        others hear of every step without needing to speak (``IDLE_PING_AFTER``). Rounds of
        the fair deal wait on everyone (None: the table's default)."""
        if self.ended or self.dealer.stage not in _MOVING:
            return None
        seat = self.game.to_act()
        host = self.host
        awaited = None if seat in self.bots or self.dealer.is_away(seat) else host.cid_of_seat(seat)
        return IDLE_PING_AFTER, awaited, self.turn_since

    def catch_up(self, cid: int) -> None:
        """The hand, then every announcement, abort and step in the order first sent — a
        round's context binds the log as it was, so a client that rebuilds the hand from
        nothing must have the steps before a round to check it —, then its view and the
        hand's end."""
        host = self.host
        seat = host.seat_of(cid)
        # The hand is over, and its seats may have changed hands as it ended (a bot's, taken
        # by a player who watched it): a client is caught up as the seat it had in it — the
        # one dealt its key —, else as one who watched.
        if self.ended and seat is not None and seat < len(self.pids):
            mine = self.dealer.setup.keys.get(self.pids[seat]) == host.conn_key(cid)
            seat = seat if mine else None
        host.send(cid, hand_message(self.dealer.setup, blind=False))
        published = iter(self.published)
        pending = next(published, None)
        for seq in range(self.seq + 1):
            while pending is not None and pending[0] <= seq:
                host.send(cid, pending[1])
                pending = next(published, None)
            if seq < self.seq:
                events, log = self.steps[seq]
                shown = tuple(redact(e, seat) for e in events)
                host.send(cid, p.Events(seq=seq + 1, events=shown, log=log))
        host.send(cid, self._view(seat))
        if self.ended:
            host.send(cid, self.over_messages.get(seat) or self.over_messages[None])
            for r in self.reveals:
                host.send(cid, r)
            if self.heads_message is not None:
                host.send(cid, self.heads_message)

    # -- what clients are sent -----------------------------------------------------------------

    def _view(self, seat: int | None) -> p.SeatView:
        return p.SeatView.from_view(self.game.view(seat), self.seq, self._timer_ms())

    def _timer_ms(self) -> int:
        host = self.host
        if not host.config.turn_timer or self.dealer.stage not in _MOVING:
            return 0
        left = self.turn_since + host.config.turn_timer - host.now
        return max(0, int(left * 1000))

    def _step(self, step: Step, first: int | None = None) -> None:
        """Send step ``seq`` to everyone: its events, redacted per viewer, then each view."""
        events = step.events
        log = tuple(e.encode() for e in step.log)
        self.steps.append((events, log))
        seq = self.seq
        host = self.host
        self.turn_since = host.now
        if host.quiet:  # replaying a journal: nothing is sent
            return
        timer = self._timer_ms()
        shown: dict[int | None, tuple[p.Events, p.SeatView]] = {}
        private = any(e[0] in PRIVATE_KINDS for e in events)  # else all see the same events
        shared = tuple(redact(e, None) for e in events) if private else events
        public = p.Events(seq=seq, events=shared, log=log)
        for cid, seat in host.viewers(first):  # the mover hears first: its round trip
            pair = shown.get(seat)
            if pair is None:
                # One events message for every viewer who sees the step as a spectator does
                # (all of them, unless cards were dealt or drawn): the server encodes it once.
                ev = public
                if private and seat is not None:
                    mine = tuple(redact(e, seat) for e in events)
                    if mine != public.events:
                        ev = p.Events(seq=seq, events=mine, log=log)
                view = p.SeatView.from_view(self.game.view(seat), seq, timer)
                pair = shown[seat] = (ev, view)
            host.send(cid, pair[0])
            host.send(cid, pair[1])

    def _publish(self, message: p.Message) -> None:
        self.published.append((self.seq, message))
        self.host.broadcast(message)

    # -- the host's own moves ------------------------------------------------------------------

    def _host_moves(self) -> bool:
        """The host's own move for the seat to act, if one is due: its bot, a stand-in for a
        player who is away, or the turn timer running out."""
        due = self._turn_due()
        host = self.host
        if due is None or host.now < due:
            return False
        game, dealer = self.game, self.dealer
        seat = game.to_act()
        if seat in self.bots or dealer.is_away(seat):
            bot = self.bots.get(seat) or make_bot("heuristic", host.rules)
            if host.now < self.turn_since + host.config.bot_delay:
                host.think_ahead(bot, game, seat)  # only its question is due yet
                return False
            move = host.bot_move(bot, game, seat)
            if move is None:  # asked of the shell: its answer advances the hand
                return False
        else:  # the timer ran out: the move that gives nothing away
            move = timeout_move(game.legal_moves())
        self._step(dealer.host_move(seat, move))
        return True

    def _turn_due(self) -> float | None:
        """When the host itself moves for the seat to act (a bot, an away player, a timer)."""
        seat = self.game.to_act()
        config, away = self.host.config, self.host.away
        if seat in self.bots or self.dealer.is_away(seat):
            if self.host.awaits_move(self.game, seat):
                return None  # its answer, not the time, moves it on
            if seat in self.bots and self.host.to_ask(self.bots[seat], self.game, seat):
                # The question goes out at once: the search runs while the delay does.
                return self.turn_since
            return self.turn_since + config.bot_delay
        if seat in away:  # gone, not yet past its grace: the log says so then
            return away[seat] + config.away_grace
        if config.turn_timer:
            return self.turn_since + config.turn_timer
        return None

    def _presence_step(self) -> bool:
        """Log one person going away or coming back, if one is due (between steps)."""
        dealer, host = self.dealer, self.host
        names = host.seat_names()
        for seat in sorted(dealer.setup.humans):
            if dealer.is_away(seat):
                if seat not in host.away and host.cid_of_seat(seat) is not None:
                    self._step(dealer.back(seat))
                    host.say(f"{names[seat]} plays again")
                    return True
            elif host.gone_for_good(seat):
                goodbye = self.goodbyes.get(seat) if seat in host.quit else None
                self._step(dealer.away(seat, goodbye))
                host.say(f"the host plays {names[seat]}'s seat")
                return True
        return False

    # -- fair-deal rounds ----------------------------------------------------------------------

    def _advance_round(self, stage: HandStage) -> bool:
        dealer, host = self.dealer, self.host
        if stage is HandStage.CHANCE:
            self.round_deadline = host.now + host.config.round_timeout
            for a in dealer.open_round(host.entropy(32)):
                self._publish(_announce(a))
            return True
        if stage is HandStage.DEALING:
            self._step(dealer.deal())
            return True
        if stage is HandStage.FAILING:
            self._void()
            return True
        opened = dealer.open
        assert opened is not None
        rnd = opened.round
        pids = self.pids
        gone = [q for q in rnd.participants if q in pids and host.gone_for_good(pids.index(q))]
        if stage is HandStage.COMMITTING and gone:
            # Nobody has been asked for a seed of this round yet: give it up and announce it
            # anew without the players who went (the next pass logs them away first).
            dealer.withdraw()
            return True
        waiting = rnd.waiting_for()
        missing_gone = [q for q in waiting if q in gone]
        # A seed that cannot come (its player went) fails the round — once everyone still
        # here has had the chance to reveal, so that only the missing are blamed.
        if host.now >= self.round_deadline or (missing_gone and set(waiting) <= {*gone, DEALER}):
            self._void()
            return True
        return False

    def _void(self) -> None:
        record = self.dealer.fail()
        self.host.say(
            f"hand {self.game.hand_no} is void: {', '.join(record.culprits)} {record.fault.value}"
        )
        self._publish(_abort(record))

    def _commit(self, cid: int, m: p.Commit) -> None:
        def take(pid: str) -> None:
            fixed = self.dealer.commit(pid, m.commitment, m.signature)
            if fixed is not None:
                self._publish(_announce(fixed))

        self._fair(cid, m.round, HandStage.COMMITTING, "commitment", m.commitment, take)

    def _reveal(self, cid: int, m: p.Reveal) -> None:
        def take(pid: str) -> None:
            self.dealer.reveal(pid, m.seed, m.signature)

        self._fair(cid, m.round, HandStage.REVEALING, "seed", m.seed, take)

    def _fair(
        self,
        cid: int,
        r: int,
        stage: HandStage,
        what: str,
        value: bytes,
        take: Callable[[str], None],
    ) -> None:
        """A commitment or seed for round ``r``, taken when the hand is at ``stage`` of that
        round. One that repeats what the round already has from this seat (a client resending
        after a resume) is no news; anything else the round cannot take is refused."""
        seat = self.host.seat_of(cid)
        dealer = self.dealer
        if seat is None or not 0 <= r < len(dealer.rounds):
            self._reject_fair(cid, f"round {r} is not open")
            return
        pid = self.pids[seat]
        rnd = dealer.rounds[r].round
        have = rnd.commitments if stage is HandStage.COMMITTING else rnd.seeds
        again = pid in have and have[pid][0] == value
        if dealer.stage is not stage or r != len(dealer.rounds) - 1:
            if not again:
                self._reject_fair(cid, f"round {r} takes no {what} from you now")
            return
        try:
            take(pid)
        except Blame as e:
            if not again and rnd.state is not RoundState.FAILED:  # failed: the hand is void
                self._reject_fair(cid, str(e))

    def _reject_fair(self, cid: int, text: str) -> None:
        self.host.send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text=text[:500]))

    # -- moves ---------------------------------------------------------------------------------

    def _move(self, cid: int, m: p.Move) -> None:
        """A player's move. The checks, in order: a hand in play and a seat in it; this seat's
        turn (``not_your_turn``); the view it answers is the current one (``stale_view``, an
        older or a future ``seq``); its signature over the log (``fair_deal``); the rules
        (``illegal_move``)."""
        host = self.host
        seat = host.seat_of(cid)
        dealer = self.dealer
        if self.ended or seat is None or dealer.stage is HandStage.OVER:
            host.send(cid, not_taken(m))
            return
        if dealer.stage not in _MOVING or self.game.to_act() != seat:
            host.send(
                cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="not your turn", seq=m.seq)
            )
            return
        if m.seq != self.seq:
            text = f"that answered view {m.seq}; the table is at {self.seq}"
            host.send(cid, p.Reject(code=p.ErrorCode.STALE_VIEW, text=text, seq=m.seq))
            return
        if m.move & BLUNDER_FLAG:  # a blunder is the rules' charge for a move, not a move
            host.send(cid, p.Reject(code=p.ErrorCode.ILLEGAL_MOVE, text="not a move", seq=m.seq))
            return
        try:
            step = dealer.act(seat, m.move, m.signature)
        except BadMove as e:
            host.send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text=str(e), seq=m.seq))
            return
        except IllegalMove as e:
            host.send(cid, p.Reject(code=p.ErrorCode.ILLEGAL_MOVE, text=str(e), seq=m.seq))
            return
        self._step(step, first=cid)

    # -- the end of the hand -------------------------------------------------------------------

    def _end_hand(self) -> None:
        dealer, game, host = self.dealer, self.game, self.host
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
        self.over_messages[None] = p.HandOver(**fields)  # type: ignore[arg-type]
        for seat in dealer.setup.humans:
            self.over_messages[seat] = p.HandOver(
                **fields,  # type: ignore[arg-type]
                cards_signature=dealer.sign_cards(seat),
            )
        for cid, viewer in host.viewers():
            host.send(cid, self.over_messages.get(viewer) or self.over_messages[None])
        for r in range(len(dealer.rounds)):
            msg = p.Reveals(round=r, seeds=dealer.reveals(r))
            self.reveals.append(msg)
            host.broadcast(msg)
        self.heads[DEALER] = signed
        self.heads_deadline = host.now + host.config.heads_timeout
        names = host.seat_names()
        placed = [names[s] for s in result.placings]
        void = result.reason in ("void", "forfeit")
        how = ending(result.reason, names, result.placings)
        host.say(
            f"hand {game.hand_no} {how}"  # "void: …"
            if void
            else f"hand {game.hand_no} over: {how}"
            + (f"; {placed[0]} wins" if placed and result.reason != "finished" else "")
        )

    def _log_head(self, cid: int, m: p.LogHead) -> None:
        """A seat's signed head of the log: after the hand, of the whole log; during it, just
        before a goodbye, of the log so far (its ``Away`` event will carry it). A head that is
        not of the log this host sent, or not signed by the seat, is refused — so no client
        can make the others' checks blame the host."""
        seat = self.host.seat_of(cid)
        if seat is None or self.heads_message is not None:
            self.host.send(cid, not_taken(m))
            return
        dealer = self.dealer
        pid = self.pids[seat]
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
        if self.ended:
            self.heads[pid] = signed
        else:
            self.goodbyes[seat] = signed

    def _maybe_finish(self) -> bool:
        """Every present person's head of the whole log is in, or the wait is over: the
        heads go to everyone and the hand is settled. A player who went away mid-hand has its
        goodbye (or nothing) in the log; one whose link dropped is waited for while it may
        still come back (its grace)."""
        if self.heads_message is not None:
            return False
        dealer, host = self.dealer, self.host
        full = dealer.log.count
        waiting = []
        for seat in dealer.setup.humans:
            if dealer.is_away(seat) or host.gone_for_good(seat):
                continue  # not waited for: the log says it went, or it has not come back
            got = self.heads.get(self.pids[seat])
            if got is None or got.count < full:
                waiting.append(seat)
        if waiting and host.now < self.heads_deadline:
            return False
        self.heads_message = p.LogHeads(
            heads={q: (s.count, s.head, s.signature) for q, s in self.heads.items()}
        )
        host.broadcast(self.heads_message)
        return True
