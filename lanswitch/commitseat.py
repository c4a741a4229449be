"""A client's part in one commit-reveal hand, sans I/O: the host's messages of the hand in,
replies out.

A :class:`~lanswitch.session.Session` holds one :class:`CommitPart` per commit-reveal hand (and
for a hand it takes no part in: watching, or kept out of it by the host). It is one of the two
:class:`~lanswitch.seatpart.SeatPart` implementations, carved out of the session. It does the
seat's part of the fair deal through a :class:`~lanswitch.fairdeal.SeatRecorder`: it checks
every announcement and every step as it arrives (a forged or forked move, a changed commitment,
a round that leaves it out show at once, as ``warning`` news), commits to a fresh seed and
reveals it once, signs its moves over the log it holds and the log's head at the end, and
disputes what only it can see — the host moving for it on a timeout that had not run out or
before its turn was shown, dropping a move it sent, calling it away while its link was up,
playing its seat as away while it was here, or a view that is not its hand. Each dispute is
kept in its transcript, so ``lanswitch verify`` of its file says so too. When the hand's last
message arrives (the hosts' heads of the log) it is settled; its judgement is the transcript
verified (:func:`lanswitch.fairdeal.verify`).

Before this seat's seed for a round leaves (its ``reveal``), the round's fixed announcement
goes on the session's record of the rounds it revealed in (``Session.keep``), which the client
shell writes to the kept seat before it sends the reveal: a new run of this program that takes
the seat back gets it, and takes its earlier seed back only in a round replayed with those very
commitments (``lanswitch.fairdeal.seat``).

A hand replayed to a client that (re)joined is answered once the replay ends (its view): a
commitment the replay may yet show as made before — on the link that dropped, or by an earlier
run of this program that ended, whose seat a new run took back (``lanswitch.seatkeep``; the
recorder takes that commitment as its own) — is not made twice. A hand the host had already
ended when it was replayed is followed for its verdict and never answered (``answers``).

The time (for the turn timer) and randomness (its seeds) come through the session
(:class:`~lanswitch.seatpart.Seatside`), as do the step counter and the view on screen, which
the host sends at this deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import protocol as p
from .cards import format_cards
from .fairdeal import (
    BY_STAND_IN,
    BY_TIMEOUT,
    DEALER,
    LEFT,
    Announcement,
    Away,
    Back,
    Commit,
    Fault,
    HandSetup,
    LogEvent,
    Move,
    RoundState,
    SeatRecorder,
    SignedHead,
    TranscriptError,
    VoidRecord,
    decode_event,
    verify,
)
from .fairdeal.judgement import COMMIT_REVEAL, Deal, Judgement, Proof
from .fairdeal.primitives import mask_of, named
from .fairdeal.tally import VoidEntry
from .fairdeal.transcript import Transcript
from .game import DRAW, MAX_CARD, PASS, Event, View, format_move
from .seatpart import PartMessage, Seatside

__all__ = ["TIMER_SLACK", "CommitPart"]

TIMER_SLACK: Final = 0.5
"""Seconds a turn timer may seem to run short on this client before a host's timeout move for
this seat is disputed. The host starts the timer as it sends the view that shows the turn, so
to this clock an honest timer lasts ``T + d_timeout - d_view``: short by however much longer
the view took to be handled than the timeout did (jitter, a starved process). Measured with
the host and the players starved on every core (``benchmarks/timer_slack.py``: 35 timeouts,
4 spinning processes on 2 cores) that was at most 14 ms on loopback; a Wi-Fi card saving power
may hold a frame for a beacon interval or three (100-300 ms), hence 0.5 s. Every second of
slack is one a host may take off each turn unseen (it was 2 s: 1.5 s of a 5 s turn went
uncaught). It also decides whether a move this seat sent before a timeout was dropped or
merely late (``CommitPart._dropped_move``)."""


class CommitPart:
    """One client's side of one commit-reveal hand (module docstring). No recorder: it takes no
    part (watching, or kept out by the host) and follows the steps and views for the screen."""

    deal: Deal = COMMIT_REVEAL
    hides_from_host = False

    def __init__(
        self,
        side: Seatside,
        hand: p.Hand,
        setup: HandSetup | None,
        seat: int | None,
        key: Ed25519PrivateKey,
    ) -> None:
        """The part in ``hand`` of ``seat`` (``setup`` None, or ``seat`` None: no part to take).
        :attr:`refused` says why the host's keys make a part impossible, if they do."""
        self.side = side
        self.hand = hand
        self.recorder: SeatRecorder | None = None
        self.refused: str | None = None
        if setup is not None and seat is not None:
            # A seat taken back by a new run of this program: what the earlier run kept of the
            # rounds it revealed its seed in (``fairdeal.seat``, RevealedRounds).
            kept = side.keep if side.restored else None
            earlier = () if kept is None else kept.rounds
            try:
                self.recorder = SeatRecorder(setup, seat, key, earlier)
            except ValueError as e:
                self.refused = f"the host's keys for hand {hand.hand_no} are not valid ({e})"
        self.over: p.HandOver | None = None
        self.heads_in = False  # the hosts' heads of the log came (or a record was made)
        self.closed = False  # judged: the record is made, nothing more is taken into it
        self._transcript: Transcript | None = None
        self.held: list[int] = []  # this seat's cards, by the events
        self.shown_wrong = False  # a view showed other cards than ``held`` (disputed once)
        self.stood_in = False  # a stand-in move for this seat came while it was here (disputed)
        self.turn_began: float | None = None  # when this seat saw its turn begin, by ``clock``
        self.turn_time = 0.0  # the seconds it had from then, as it knows them
        self.sent_at: float | None = None  # when this seat sent a move on its turn, by ``clock``
        self.sent_move = 0  # that move (a card, or a draw, pass or call)
        self.sent_seq = -1  # the view it answered
        self.sent_legal = False  # whether that view offered it
        self.deferred: p.Commit | None = None  # our commitment, until a replay ends (_announce)
        self.answers = True
        """False: it follows a hand the host has already ended (caught up on between hands by
        a client that has no part of its own in the hand yet: a restarted process that took
        its seat back) for its verdict, and sends nothing: the host takes nothing more for
        that hand, and a commitment or a head of it would reach the next one."""

    # -- what the session asks -----------------------------------------------------------------

    @property
    def seat(self) -> int | None:
        return self.side.seat if self.recorder is None else self.recorder.seat

    @property
    def finished(self) -> bool:
        return self.over is not None

    @property
    def settled(self) -> bool:
        return self.heads_in

    def view(self) -> View | None:
        return None  # the host sends every view

    def start(self, playing: bool) -> list[p.Message]:
        self.answers = playing
        return []

    def resume(self, playing: bool) -> list[p.Message]:
        return []  # the host replays the hand; what is owed is answered as it comes

    def dispute_setup(self, text: str) -> None:
        if self.recorder is not None:
            self.recorder.dispute(0, text)

    def begin_leaving(self) -> list[p.Message]:
        return []

    def leave(self) -> list[p.Message]:
        """Its signed head of the log so far, in a hand it has not yet signed: its goodbye,
        which the log keeps (SPEC § Going away)."""
        if self.recorder is None:
            return []
        signed = self.recorder.sign_head()
        return [p.LogHead(count=signed.count, head=signed.head, signature=signed.signature)]

    def busy(self) -> bool:
        """Its seed for the round in progress is still to be sent
        (:meth:`SeatRecorder.owes_seed`)."""
        return self.recorder is not None and self.recorder.owes_seed()

    def my_turn(self) -> bool:
        v = self.side.shown()
        return (
            v is not None
            and self.over is None
            and v.seat is not None
            and v.turn == v.seat
            and bool(v.legal)
        )

    def move(self, move: int) -> p.Move:
        """The message playing ``move`` on the view on screen, signed over the log this seat
        holds (the host refuses it if its own log differs)."""
        s = self.side
        rec = self.recorder
        signature = b"" if rec is None else rec.sign_move(move)
        if self.turn_began is not None and self.sent_at is None and s.clock is not None:
            # Kept until the turn ends: a timeout the host logs for this turn after it is a
            # move of this player's it dropped (``_own_checks``) — unless it came too late.
            # The turn's first move counts (a host must not restart the clock by refusing).
            self.sent_at, self.sent_move = s.clock(), move
            self.sent_seq = s.seq
            self.sent_legal = s.view is not None and move in s.view.legal
        return p.Move(seq=s.seq, move=move, signature=signature)

    def rejected(self, m: p.Reject) -> None:
        if self.sent_at is not None and m.seq == self.sent_seq:
            # A refusal this client can see is honest clears the move: the table had moved on
            # (a newer view came since), or the move was not among the view's legal ones. Any
            # other refusal of a legal move on the view it answered is no reason to time it
            # out: the dispute stands (a host that refused it to log a timeout lied).
            moved_on = m.code in (p.ErrorCode.STALE_VIEW, p.ErrorCode.NOT_YOUR_TURN)
            if (moved_on and self.side.seq > m.seq) or (
                m.code is p.ErrorCode.ILLEGAL_MOVE and not self.sent_legal
            ):
                self.sent_at = None

    def settle(self, why: str) -> str | None:
        rec = self.recorder
        if rec is None:
            return None  # watched: there is nothing of this client's to judge
        missing = []
        if rec.awaiting_seeds():
            missing.append("the seeds")
        if DEALER not in rec.heads:
            missing.append("its head of the log")
        if missing:
            why += f" (it never sent {' nor '.join(missing)})"
        rec.on_heads(rec.heads)  # (this seat's own head: its last word)
        return why

    def judgement(self, game_id: bytes, hand_no: int, names: Sequence[str]) -> Judgement | None:
        """Its transcript verified (None: no part taken, or ``verify_hands`` off)."""
        self.closed = self.heads_in = True
        if self.recorder is None:
            return None
        t = self._transcript = self.recorder.transcript()
        if not self.side.verify_hands:
            return None
        try:
            return verify(t).judgement()
        except TranscriptError as e:  # cannot be for a transcript we wrote: say so, go on
            self.side.note("warning", f"hand {hand_no}: the transcript is broken: {e}")
            return None

    def proof(self) -> Proof | None:
        t = self._transcript
        return None if t is None else Proof(COMMIT_REVEAL, t.id, t.to_json, source=t)

    # -- what the host sends ---------------------------------------------------------------

    def take(self, m: PartMessage) -> list[p.Message]:
        if isinstance(m, p.Announce):
            return self._announce(m)
        if isinstance(m, p.Events):
            return self._events(m)
        if isinstance(m, p.SeatView):
            return self._view(m)
        if isinstance(m, p.HandOver):
            return self._hand_over(m)
        if isinstance(m, p.Abort):
            return self._abort(m)
        if isinstance(m, p.Reveals):
            return self._reveals(m)
        if isinstance(m, p.LogHeads):
            return self._log_heads(m)
        return []  # the other deal's

    def _announce(self, m: p.Announce) -> list[p.Message]:
        rec = self.recorder
        if rec is None:
            return []
        ann = Announcement(
            m.round, m.fixed, m.ctx, m.cards, mask_of(m.seats), m.commitments, m.signature
        )
        r = m.round
        s = self.side

        def fresh() -> bytes:
            return s.entropy(32) if s.seed_for is None else s.seed_for(m.ctx)

        before = len(rec.problems)
        reply = rec.on_announcement(ann, fresh)
        s.fair_deal_problems(rec.problems[before:])
        if reply is None or self.over is not None or not self.answers:
            return []  # (an ended hand replayed: nothing to send)
        if isinstance(reply, Commit):
            commit = p.Commit(round=r, commitment=reply.commitment, signature=reply.signature)
            if s.catching_up and not s.live():
                # The hand replayed to a client that (re)joined: later in the replay the round
                # may show a commitment of ours made before — on the link that dropped, or by
                # an earlier run of this program (its seat kept: lanswitch.seatkeep) — and a
                # second one would only be refused. Sent when the replay ends (its view), if
                # the round still waits for it.
                self.deferred = commit
                return []
            return [commit]
        # The round goes on record before its seed leaves: the shell writes the session's
        # ``keep`` to disk before it sends what this returns (``fairdeal.seat``).
        s.keep_reveal(self.hand, ann)
        return [p.Reveal(round=r, seed=reply.seed, signature=reply.signature)]

    def _release(self) -> list[p.Message]:
        """The commitment held while the hand was replayed, if its round still waits for it
        (this recorder's own, not yet fixed, not refused)."""
        held, self.deferred = self.deferred, None
        rec = self.recorder
        if held is None or rec is None or self.over is not None:
            return []
        r = next((x for x in rec.rounds if x.round == held.round), None)
        if (
            r is None
            or r.refused
            or r.state is not RoundState.ANNOUNCED
            or r.own_commitment != held.commitment
            or rec.rounds[-1] is not r
        ):
            return []
        return [held]

    def _events(self, m: p.Events) -> list[p.Message]:
        s = self.side
        if m.seq <= s.seq:
            return []  # a step we already have (a resume replays the hand)
        if m.seq != s.seq + 1:
            # The shell closes the connection and resumes (no bye: that would give up the seat).
            s.lost_place = True
            s.note("warning", f"missed steps {s.seq + 1}..{m.seq - 1}: resyncing", m)
            return []
        s.seq = m.seq
        try:
            logged = [decode_event(b) for b in m.log]
        except ValueError as e:
            logged = []
            s.note("warning", f"step {m.seq}: a log event is not valid: {e}", m)
        rec = self.recorder
        if rec is not None:
            self._own_checks(rec, logged, live=not s.catching_up)
            mine = [v for k, q, v in m.events if q == rec.seat and (k == "deal" or k == "draw")]
            s.fair_deal_problems(rec.on_step(logged, mine))
            self.held += mine
            for kind, q, v in m.events:
                if kind == "play" and q == rec.seat and v in self.held:
                    self.held.remove(v)
        self._presence(logged)
        events: tuple[Event, ...] = m.events
        s.note("events", f"step {m.seq}", events)
        return []

    def _presence(self, logged: Sequence[LogEvent]) -> None:
        """Say who the log says went away or came back, one way on every screen: a lost link
        is a stand-in until the player is back; only a goodbye gives the seat up for the rest
        of the hand. On the host's own screen the host's word is its own (no "says the
        host"); on the player's own screen the line speaks to it."""
        names = self.side.seat_names()
        me = None if self.recorder is None else self.recorder.seat
        for ev in logged:
            if not isinstance(ev, Away | Back):
                continue
            who = names[ev.seat] if ev.seat < len(names) and names[ev.seat] else "a player"
            if ev.seat == me:
                text = (
                    "you are back and play your seat again"
                    if isinstance(ev, Back)
                    else "you lost the link: the host plays your seat until you are back"
                )
            elif isinstance(ev, Back):
                text = f"{who} is back and plays again"
            elif ev.how == LEFT:
                text = f"{who} left the table: the host plays the seat for the rest of the hand"
            else:
                said = "" if self.side.hosting() else ", says the host"
                text = f"{who} lost the link{said}: the host plays the seat until {who} is back"
            self.side.note("presence", text, ev)

    def _own_checks(self, rec: SeatRecorder, logged: Sequence[LogEvent], live: bool) -> None:
        """What only this seat can tell about a step: the host made a move for it on a turn
        timer that had not run out, logged it away while its connection never broke, or played
        it as away while it was connected. Each is a dispute, kept in its transcript.

        ``live``: not a resume's catch-up. Moves made while this client was gone come in the
        catch-up; once it is over, an honest host logs this seat back before it moves again
        (``Host._presence_step`` runs before the host's own moves, and a resume is one
        ``receive``), so a stand-in move for this seat seen live was made while it was here —
        the one way to play a person's seat after cutting its link once and never saying it
        came back."""
        s = self.side
        for k, ev in enumerate(logged, rec.log.count):
            if isinstance(ev, Away) and ev.seat == rec.seat and live:
                text = "the host says you went away, but your connection to it was up all along"
                rec.dispute(k, text)
                s.fair_deal_problems([text])
            elif isinstance(ev, Move) and ev.seat == rec.seat:
                if ev.by == BY_STAND_IN and live and not self.stood_in:
                    self.stood_in = True  # said once a hand: every later move is the same lie
                    text = (
                        "the host played your seat as if you were away, while you were "
                        "connected to it"
                    )
                    rec.dispute(k, text)
                    s.fair_deal_problems([text])
                timed = rec.setup.turn_timer_ms > 0  # (else the move is invalid to all)
                if ev.by == BY_TIMEOUT and timed and live and s.clock is not None:
                    problem = self._early_timeout() or self._dropped_move()
                    if problem is not None:
                        rec.dispute(k, problem)
                        s.fair_deal_problems([problem])
                self.turn_began = self.sent_at = None  # its turn is over, however it ended

    def _early_timeout(self) -> str | None:
        """What is wrong with a timeout the host just made for this seat, by this client's
        clock: the seat never saw its turn begin (the host sends every seat a view after each
        step, so it would have), or its time had not run out."""
        clock = self.side.clock
        assert clock is not None
        if self.turn_began is None:
            return "the host moved for you on a timeout before it showed you your turn"
        waited = clock() - self.turn_began
        if waited + TIMER_SLACK >= self.turn_time:
            return None
        return (
            f"the host moved for you on a timeout after {waited:.1f} s of your "
            f"{self.turn_time:.0f} s turn"
        )

    def _dropped_move(self) -> str | None:
        """What is wrong with a timeout the host made for this seat after this client sent it
        a move on that turn: the move was dropped — unless it left within ``TIMER_SLACK`` of
        the turn's end by this client's clock, when an honest host's timer may have run out
        before it arrived (the host then refuses it as late)."""
        if self.sent_at is None or self.turn_began is None:
            return None
        took = self.sent_at - self.turn_began
        if took + TIMER_SLACK >= self.turn_time:
            return None
        m = self.sent_move
        what = (
            f"laid {format_cards([m])}"
            if 0 <= m < MAX_CARD
            else {DRAW: "drawn", PASS: "passed"}.get(m, f"chosen {format_move(m, symbols=True)}")
        )
        return (
            f"the host moved for you on a timeout, but you had {what} after {took:.1f} s "
            f"of your {self.turn_time:.0f} s turn: it dropped your move"
        )

    def _view(self, m: p.SeatView) -> list[p.Message]:
        s = self.side
        resumed = s.catching_up  # (the session ends its catching up with this view)
        out = self._release() if resumed else []
        if m.seq != s.seq:
            return out
        mine = m.seat is not None and m.turn == m.seat and bool(m.legal)
        setup = None if self.recorder is None else self.recorder.setup
        if mine and self.turn_began is None and s.clock is not None:
            # Seen live, the turn began at the step just shown: the table's whole timer. Seen
            # as a resume ends, it began while this client was gone: what the view says is left.
            self.turn_began = s.clock()
            whole = 0.0 if setup is None else setup.turn_timer_ms / 1000
            self.turn_time = min(whole, m.timer_ms / 1000) if resumed else whole
        elif not mine:
            self.turn_began = None
        rec = self.recorder
        if rec is not None and not self.shown_wrong and sorted(m.hand) != sorted(self.held):
            # The view is the host's word; the cards dealt and drawn to this seat, less those
            # it played, are the log's (checked against the deal at the end). A view that
            # hides a card keeps a player from playing it.
            self.shown_wrong = True
            gone = sorted(set(self.held) - set(m.hand))
            extra = sorted(set(m.hand) - set(self.held))
            what = (
                "; ".join(
                    [f"hides {format_cards(gone)}"] * bool(gone)
                    + [f"shows {format_cards(extra)}, never dealt to you"] * bool(extra)
                )
                or "shows another count of your cards"
            )
            text = f"at step {m.seq} your screen is not your hand: the host {what}"
            rec.dispute(max(0, rec.log.count - 1), text)
            s.fair_deal_problems([text])
        s.show(m)
        s.timer_ms = m.timer_ms
        return out

    def _hand_over(self, m: p.HandOver) -> list[p.Message]:
        self.over = m
        if self.recorder is not None:
            self.recorder.on_cards_signature(m.cards_signature)
        return self._maybe_head()

    def _abort(self, m: p.Abort) -> list[p.Message]:
        try:
            fault = Fault[m.fault.upper()]
        except KeyError:
            return []
        s = self.side
        record = VoidRecord(m.round, fault, tuple(m.culprits), m.commitments, m.signature)
        if self.recorder is not None:
            before = len(self.recorder.problems)
            self.recorder.on_void(record)
            s.fair_deal_problems(self.recorder.problems[before:])
        # Counted now, on what the abort says; the verdict after the hand settles the blame.
        proven = DEALER in record.culprits and len(record.culprits) == 1
        h = self.hand
        s.count_void(VoidEntry(h.hand_no, record.culprits, proven, fault, h.game_id))
        who = named(", ".join(record.culprits), s.seat_names())
        s.note("warning", f"round {m.round} failed ({who} {fault.value}): the hand is void", m)
        return []

    def _reveals(self, m: p.Reveals) -> list[p.Message]:
        rec = self.recorder
        if rec is None:
            return []
        before = len(rec.problems)
        rec.on_reveals(m.round, m.seeds)
        self.side.fair_deal_problems(rec.problems[before:])
        return self._maybe_head()

    def _maybe_head(self) -> list[p.Message]:
        """This seat's head of the whole log, once the hand is over and every round's seeds
        are in (and again after a resume: the host ignores one it has)."""
        rec = self.recorder
        if rec is None or self.over is None or self.closed or not self.answers:
            return []
        if rec.awaiting_seeds():
            return []
        signed = rec.sign_head()
        return [p.LogHead(count=signed.count, head=signed.head, signature=signed.signature)]

    def _log_heads(self, m: p.LogHeads) -> list[p.Message]:
        if self.over is None or self.closed:
            return []
        if self.recorder is not None:
            self.recorder.on_heads({q: SignedHead(*v) for q, v in m.heads.items()})
        self.heads_in = True
        return []
