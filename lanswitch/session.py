"""A client's mirror of the table, sans I/O: the host's messages in, the replies out.

:class:`Session` keeps what one client knows — its seat, the lobby, the hand's setup, its
latest view and the events since — and does the client's part of the fair deal by itself,
through a :class:`~lanswitch.fairdeal.SeatRecorder`: it checks every announcement and every
step as it arrives (a forged or forked move, a changed commitment, a round that leaves it out
show at once, as ``warning`` news), commits to a fresh seed and reveals it once, signs its
moves over the log it holds and the log's head at the end, disputes what it saw itself (the
host moving for it on a timeout that had not run out, or calling it away while its link was
up), and when the hand's last message arrives writes its transcript and verifies it
(:func:`lanswitch.fairdeal.verify`). It counts the match's void hands by culprit and warns
past the rules' ``void_warning``. Randomness (its seeds) comes from the ``entropy`` callable
the shell passes, time (for the turn timer) from ``clock``. A shell (``lanswitch.client``, a
test, a benchmark) feeds it every message with :meth:`Session.receive` and sends back what
that returns; :meth:`Session.move` makes a move message for the view on screen.

What happens is also appended to :attr:`Session.news` as :class:`News` items, for a screen or
a log to show in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import protocol as p
from .blindsession import BlindPart
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
    SeatRecorder,
    SetupError,
    SignedHead,
    TranscriptError,
    Verdict,
    VoidRecord,
    VoidTally,
    decode_event,
    verify,
)
from .fairdeal.blindhand import BlindFault, Holder
from .fairdeal.judgement import COMMIT_REVEAL, DEALER_BLIND, Deal, Judgement, Proof
from .fairdeal.primitives import mask_of, named, public_bytes
from .fairdeal.tally import VoidEntry
from .game import DRAW, MAX_CARD, PASS, Event, View, format_move
from .handcheck import dealt_alone, key_problem, lobby_problems, own_seat_problem
from .rules import RuleSet

__all__ = ["HandRecord", "News", "Session", "hand_setup", "named"]


@dataclass(frozen=True, slots=True)
class News:
    """Something that happened, for the screen: ``kind`` and a short English ``text``.

    Kinds: ``welcome``, ``lobby``, ``hand``, ``events``, ``presence`` (the log says a player
    went away or came back), ``reject``, ``chat``, ``over``, ``verdict``, ``voids`` (the
    match's void hands, counted), ``warning``, ``closed``, ``opened`` (at a dealer-blind
    table: a card this seat drew is open to it — the last key came, perhaps with nothing
    else to tell, and its turn may begin with it) (and
    ``pin`` from the client shell: the certificate trusted). ``data`` holds the message or
    record behind it.
    """

    kind: str
    text: str
    data: object = None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished hand as this client saw it: the result, its judgement and its proof.

    ``judgement`` is what every reader shows and counts, whichever deal dealt the hand
    (:class:`~lanswitch.fairdeal.judgement.Judgement`; None: this client watched, and had
    nothing of its own to judge — or was told not to check). ``proof`` is the deal's saved file
    (the transcript, the blind hand's file), opaque: the history stores it and ``lanswitch
    verify`` reads it (None: none was kept).

    The rest is what a record kept after the table is gone needs (``lanswitch history``):
    ``game_id``, the ``rules``' name, this client's ``seat`` (None: watching) and every seat's
    name as the lobby showed it when the hand began (``over.placings`` index them).
    """

    hand_no: int
    over: p.HandOver
    judgement: Judgement | None
    proof: Proof | None = None
    game_id: bytes = b""
    rules: str = ""
    seat: int | None = None
    names: tuple[str, ...] = ()
    deal: Deal = COMMIT_REVEAL
    """Which deal dealt the hand, as a label to show (a hand watched has no judgement to say)."""


def _abort_text(m: p.BlindAbort) -> str:
    """What a ``blind_abort`` says, as a sentence: whom the host blames and for what, or (when
    it blames nobody) its detail, which says who stopped the hand and why."""
    try:
        fault = BlindFault[m.fault.upper()].value
    except KeyError:
        fault = m.fault
    if not m.culprit:
        return m.detail or fault
    return f"{m.culprit} {fault}" + (f" ({m.detail})" if m.detail else "")


def hand_setup(m: p.Hand) -> HandSetup:
    """The fair deal's setup of the hand ``m`` deals (SetupError if it is not a valid one)."""
    return HandSetup.from_toml(
        m.game_id,
        m.hand_no,
        m.rules,
        m.seats,
        m.keys,
        dealer=m.dealer,
        out=m.out,
        turn_timer_ms=m.turn_timer_ms,
        names=m.names,
    )


HEADS_PATIENCE: Final = 90.0
"""Seconds after ``hand_over`` a client waits for the hand's seeds and log heads before it
settles the hand with what it has (the host waits 30 s for the heads, then sends them)."""

SEED_WAIT_S: Final = 3.0
"""Seconds a client about to leave waits for the round it committed to to be fixed and its
seed to go (:meth:`Session.owes_seed`): commitments come in within milliseconds at a live
table, and a host that never fixes the round must not keep anyone from leaving."""

_UNFINISHED: Final = p.HandOver(
    reason="unfinished", placings=(), scores=(), hand_points=(), head=(0, bytes(32), b"")
)
"""The end of a hand the host never ended, in a record (no ``hand_over`` came)."""

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
merely late (``Session._dropped_move``)."""


@dataclass(slots=True)
class _HandState:
    message: p.Hand
    setup: HandSetup | None
    recorder: SeatRecorder | None
    names: tuple[str, ...] = ()  # the seats' names when the hand began
    refused: str | None = None  # why this seat, dealt in, takes no part (the host's doing)
    over: p.HandOver | None = None
    over_at: float | None = None  # when ``hand_over`` came, by ``clock``
    done: bool = False
    held: list[int] = field(default_factory=list)  # this seat's cards, by the events
    shown_wrong: bool = False  # a view showed other cards than ``held`` (disputed once)
    stood_in: bool = False  # a stand-in move for this seat came while it was here (disputed)
    turn_began: float | None = None  # when this seat saw its turn begin, by ``clock``
    turn_time: float = 0.0  # the seconds it had from then, as it knows them
    sent_at: float | None = None  # when this seat sent a move on its turn, by ``clock``
    sent_move: int = 0  # that move (a card, or a draw, pass or call)
    sent_seq: int = -1  # the view it answered
    sent_legal: bool = False  # whether that view offered it
    blind: BlindPart | None = None  # a dealer-blind hand's own record
    link: int = -1  # the ``welcome`` it began under, if it began while this client was here


class Session:
    """One client's side of one table (see the module docstring)."""

    blind_holder: type[Holder] = Holder
    """What keeps this client's secrets in a dealer-blind hand (a test's cheating client plugs
    in a :class:`~lanswitch.fairdeal.blindhand.Holder` that cheats)."""

    def __init__(
        self,
        name: str,
        *,
        key: Ed25519PrivateKey,
        entropy: Callable[[int], bytes],
        spectate: bool = False,
        password: str | None = None,
        auto_ready: bool = False,
        seed_for: Callable[[bytes], bytes] | None = None,
        verify_hands: bool = True,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """``seed_for`` (a round's context → this seat's 32-byte seed) replaces fresh random
        seeds with ones the client can make again after a restart of its process. Only the
        host's own player may use it (``lanswitch play --resume``): a seed that can be made
        again is one a host that replays a round's context could know in advance — which
        matters for every seat but the host's own, since the host knows that one anyway.

        ``verify_hands=False`` leaves each finished hand's check to the shell: the record
        holds the transcript and no verdict (a load generator running a thousand clients in
        one process checks them off its event loop, so no client's check stalls the rest).

        ``clock`` (seconds, any origin) lets the session judge the host's timeout moves for
        its seat; without one it takes them on the host's word.

        ``name`` is cleaned as the host cleans it (a tab becomes a space, control and
        format characters go), so that ``hello`` is a valid message; ValueError if nothing
        is left of it."""
        self.name = p.clean_name(name)
        self.key = key
        self.public_key = public_bytes(key)
        self.entropy = entropy
        self.seed_for = seed_for
        self.verify_hands = verify_hands
        self.clock = clock
        self.spectate = spectate
        self.password = password
        self.auto_ready = auto_ready
        self.token: bytes | None = None
        self.table = ""
        self.seat: int | None = None
        self.lobby: p.LobbyState | None = None
        self.hand: _HandState | None = None
        self.seq = 0
        self._latest: View | None = None
        self._latest_msg: p.SeatView | None = None  # the latest view, until asked for as a View
        self.timer_ms = 0
        self.history: list[HandRecord] = []
        self.news: list[News] = []
        self.closed = False
        self.close_reason: p.Bye | p.Error | None = None
        self.lost_place = False  # a gap in the events: close the connection and resume
        self._ready_sent = False  # auto_ready said ready and the lobby has not shown it yet
        self.catching_up = True
        """Between a ``welcome`` and the next ``view``: the host replays what this client
        missed (SPEC § Resuming), so what arrives is not news of the moment."""
        self._replaying: bool | None = None
        """Whether the next ``hand`` is one already in play when this client (re)joined — the
        host replays it, and the lobby may have changed since it began — as the first lobby
        after a ``welcome`` says (None: no lobby yet)."""
        self.links = 0  # ``welcome``s so far: each is a new link (a resume after the first)
        self.seen_hands: set[tuple[bytes, int]] = set()
        self.voids = VoidTally()  # the table's, whatever game the host says a hand is of
        self._rules_text: str | None = None  # the rules of the last hand dealt
        self.distrust: str | None = None
        """Set once the void hands the host caused or claimed at this table reach the
        warning (``fairdeal.tally``): why this player should leave (a headless client does)."""

    # -- what the shell sends ------------------------------------------------------------------

    def leave(self, reason: str = "left the table") -> list[p.Message]:
        """What to send to leave the table for good: ``bye`` — after, in a hand this seat has
        not yet signed, its signed head of the log so far: its goodbye, which the log keeps
        (SPEC § Going away)."""
        out: list[p.Message] = []
        h = self.hand
        if h is not None and not h.done and h.blind is not None and h.over is None:
            out += h.blind.leave()
        if h is not None and not h.done and h.recorder is not None:
            signed = h.recorder.sign_head()
            out.append(p.LogHead(count=signed.count, head=signed.head, signature=signed.signature))
        bye = p.Bye(reason=reason[:500])
        out.append(bye)
        self.closed, self.close_reason = True, bye  # nothing more to hear: do not resume
        return out

    def begin_leaving(self) -> list[p.Message]:
        """What to send first to leave mid-hand at a dealer-blind table: its seeds. The shell
        then waits while :meth:`owes_seed` (a bounded wait, :data:`SEED_WAIT_S`), answering
        what the hand asks of it, until the host relays its leave; then :meth:`leave`."""
        h = self.hand
        if h is not None and not h.done and h.blind is not None and h.over is None:
            return h.blind.leave()
        return []

    def owes_seed(self) -> bool:
        """Whether this seat's seed for the round in progress is still to be sent (see
        :meth:`SeatRecorder.owes_seed`): a shell about to :meth:`leave` waits a moment
        (:data:`SEED_WAIT_S`) while this holds, so that leaving does not void the hand."""
        h = self.hand
        if h is not None and not h.done and h.blind is not None:
            return h.blind.busy()
        return h is not None and not h.done and h.recorder is not None and h.recorder.owes_seed()

    def hello(self) -> p.Hello:
        """The first message of a connection (with the resume token, once there is one)."""
        self.lost_place = False
        return p.Hello(
            version=p.PROTOCOL_VERSION,
            name=self.name,
            key=self.public_key,
            spectate=self.spectate,
            password=self.password,
            token=self.token,
        )

    def move(self, move: int) -> p.Move | p.BlindMove:
        """The message playing ``move`` on the view on screen, signed over the log this seat
        holds (the host refuses it if its own log differs); at a dealer-blind table, signed
        with the laid card's keys (ValueError there if it is not this seat's turn)."""
        h = self.hand
        if h is not None and h.blind is not None:
            return h.blind.move(move)
        rec = None if h is None else h.recorder
        signature = b"" if rec is None else rec.sign_move(move)
        if (
            h is not None
            and h.turn_began is not None
            and h.sent_at is None
            and self.clock is not None
        ):
            # Kept until the turn ends: a timeout the host logs for this turn after it is a
            # move of this player's it dropped (``_own_checks``) — unless it came too late.
            # The turn's first move counts (a host must not restart the clock by refusing).
            h.sent_at, h.sent_move = self.clock(), move
            h.sent_seq = self.seq
            h.sent_legal = self.view is not None and move in self.view.legal
        return p.Move(seq=self.seq, move=move, signature=signature)

    @property
    def rules(self) -> RuleSet | None:
        """The current (or last) hand's rules."""
        h = self.hand
        return None if h is None or h.setup is None else h.setup.rules

    @property
    def view(self) -> View | None:
        """The latest view of the hand (None before the first of a hand).

        Made from its message when first asked for: a client that is not to act (or a load
        generator's thousand) need not convert every view it is sent."""
        if self._latest is None and self._latest_msg is not None:
            self._latest = self._latest_msg.to_view()
        return self._latest

    @view.setter
    def view(self, value: View | None) -> None:
        self._latest, self._latest_msg = value, None

    def my_turn(self) -> bool:
        """This seat is to act on the latest view."""
        v = self._latest_msg if self._latest_msg is not None else self._latest
        h = self.hand
        if h is not None and h.blind is not None:
            return h.over is None and h.blind.my_turn()
        return (
            v is not None
            and h is not None
            and h.over is None
            and v.seat is not None
            and v.turn == v.seat
            and bool(v.legal)
        )

    # -- what the host sends ---------------------------------------------------------------

    def receive(self, message: p.Message) -> list[p.Message]:
        """Take one message from the host; returns the messages to send back, in order."""
        handler = _HANDLERS.get(type(message))
        if handler is None:
            return []
        reply: list[p.Message] = getattr(self, handler)(message)
        self.expire()  # (the host pings a quiet client: this runs every few seconds)
        return reply

    def _note(self, kind: str, text: str, data: object = None) -> None:
        self.news.append(News(kind, text, data))

    def _problems(self, found: list[str]) -> None:
        for text in found:
            self._note("warning", f"the fair deal: {named(text, self._names())}")

    def _names(self) -> tuple[str, ...]:
        h = self.hand
        if h is not None and h.names:
            return h.names
        return () if self.lobby is None else tuple(st.name for st in self.lobby.seats)

    def _welcome(self, m: p.Welcome) -> list[p.Message]:
        # Our seat is the host's word, here and in each lobby's ``you`` (SPEC § lobby) —
        # never the first seat that shows our key: keys are public, and a seat someone
        # else took with ours would read as our own (issue #15).
        resumed = self.token is not None
        self.token, self.table, self.seat = m.token, m.table, m.seat
        self.catching_up = True
        self.links += 1
        self._replaying = None
        self._ready_sent = False  # a ready said on the old link may be lost with it
        where = f"seat {m.seat + 1}" if m.seat is not None else "watching"  # people count from 1
        self._note("welcome", ("resumed " if resumed else "joined ") + f"{where} at {m.table}", m)
        return []

    def _lobby(self, m: p.LobbyState) -> list[p.Message]:
        self.lobby = m
        if self._replaying is None:
            self._replaying = m.playing
        self.seat = m.you
        if m.you is not None and m.you >= len(m.seats):
            self.seat = None
            self._note(
                "warning",
                f"the host says you sit at seat {m.you + 1} of a table of {len(m.seats)} "
                "seats: watching",
            )
        self._note("lobby", f"{sum(1 for s in m.seats if s.name)}/{len(m.seats)} seated", m)
        return self._auto_ready()

    def _auto_ready(self) -> list[p.Message]:
        m = self.lobby
        if (
            m is None
            or not self.auto_ready
            or self.seat is None
            or m.playing
            or m.seats[self.seat].ready
        ):
            self._ready_sent = False  # said once per time the seat is shown not ready
            return []
        if self._ready_sent:
            return []
        self._ready_sent = True
        return [p.Ready(ready=True)]

    def _hand(self, m: p.Hand) -> list[p.Message]:
        h = self.hand
        # Whether the host is playing this hand (the lobby just before it says so); if not, a
        # blind hand is one it ended, caught up on between hands: followed, answered never.
        playing = self.lobby is None or self.lobby.playing
        if h is not None and h.message == m:
            # Resuming the hand we are in (or whose end we missed): keep what we have — and,
            # in a blind hand still played, send again what may have been lost with the link.
            if h.blind is None or h.done:
                return []
            h.blind.answers = playing
            return h.blind.resend()
        if h is not None and not h.done:
            self._settle(h, f"the host began hand {m.hand_no} before this hand was settled")
        shown = () if self.lobby is None else tuple(st.name for st in self.lobby.seats)
        names = m.names or shown  # the names the setup binds (checked against the lobby's)
        setup, refused = self._setup(m)
        seat = self.seat  # by the host's word (welcome, lobby.you), not where our key is dealt
        dealt_in = seat is not None and seat < len(m.seats) and seat not in m.out
        refused = refused or own_seat_problem(m, seat, self.public_key) or key_problem(m)
        recorder: SeatRecorder | None = None
        part: BlindPart | None = None
        if m.blind and setup is not None and refused is None:
            part = BlindPart(
                setup,
                seat if dealt_in else None,
                self.key,
                self.entropy,
                self.blind_holder,
                self.seed_for,
            )
        elif setup is not None and refused is None and seat is not None and dealt_in:
            try:
                recorder = SeatRecorder(setup, seat, self.key)
            except ValueError as e:
                refused = f"the host's keys for hand {m.hand_no} are not valid ({e})"
        if refused is not None:
            self._note("warning", refused, m)
        host_seat = None if self.lobby is None else self.lobby.host
        if part is not None and seat is not None and dealt_alone(m, host_seat) == seat:
            self._note(
                "warning",
                f"in hand {m.hand_no} the host runs every other seat: it can tell your cards "
                "by elimination whenever the stock runs out (dealer-blind hides no more here)",
                m,
            )
        self.hand = _HandState(m, setup, recorder, names, refused if dealt_in else None)
        self.hand.blind = part
        if self._replaying is False:
            self.hand.link = self.links  # begun live: until the link drops, all of it is
        self.seq, self.view = 0, None
        if part is not None:
            self.view = part.view()
        if setup is not None:
            self.voids.heed(setup.rules.scoring.void_warning)
        if self._replaying is False:
            self._against_lobby(m, recorder, shown)
        elif h is not None:  # resumed, and a new hand with it: what cannot have changed
            self._against_lobby(m, recorder, shown, since=h.message)
        self._replaying = False  # the hands after this one begin while this client is here
        self._rules_text = m.rules
        self._note("hand", f"hand {m.hand_no} begins", m)
        if part is None:
            return []
        part.answers = playing
        return part.start()

    def _setup(self, m: p.Hand) -> tuple[HandSetup | None, str | None]:
        """Hand ``m``'s setup, or why there is none to take part in."""
        this = (m.game_id, m.hand_no)
        if this in self.seen_hands:  # a hand number is dealt once: a second deal is a redeal
            return None, f"the host deals hand {m.hand_no} again: not taking part"
        self.seen_hands.add(this)
        try:
            setup = hand_setup(m)
        except SetupError as e:
            return None, f"the host's setup of hand {m.hand_no} is not valid ({e}): not taking part"
        return setup, None

    def _against_lobby(
        self,
        m: p.Hand,
        recorder: SeatRecorder | None,
        names: Sequence[str],
        since: p.Hand | None = None,
    ) -> None:
        """Where the hand is not the table the lobby shows, or its rules not the last hand's:
        the host says two things at once. Each is a warning, and a dispute in this seat's
        transcript (at the setup note, log event 0). ``since``: see ``lobby_problems``."""
        found = [] if self.lobby is None else lobby_problems(m, self.lobby, names, since)
        if self._rules_text is not None and m.rules != self._rules_text:
            found.append(f"the host changed the rules for hand {m.hand_no}")
        for text in found:
            if recorder is not None:
                recorder.dispute(0, text)
            self._problems([text])

    def _announce(self, m: p.Announce) -> list[p.Message]:
        h = self.hand
        rec = None if h is None else h.recorder
        if h is None or rec is None:
            return []
        ann = Announcement(
            m.round, m.fixed, m.ctx, m.cards, mask_of(m.seats), m.commitments, m.signature
        )
        r = m.round

        def fresh() -> bytes:
            return self.entropy(32) if self.seed_for is None else self.seed_for(m.ctx)

        before = len(rec.problems)
        reply = rec.on_announcement(ann, fresh)
        self._problems(rec.problems[before:])
        if reply is None or h.over is not None:  # an ended hand replayed: nothing to send
            return []
        if isinstance(reply, Commit):
            return [p.Commit(round=r, commitment=reply.commitment, signature=reply.signature)]
        return [p.Reveal(round=r, seed=reply.seed, signature=reply.signature)]

    def _events(self, m: p.Events) -> list[p.Message]:
        h = self.hand
        if h is None or m.seq <= self.seq:
            return []  # a step we already have (a resume replays the hand)
        if m.seq != self.seq + 1:
            # The shell closes the connection and resumes (no bye: that would give up the seat).
            self.lost_place = True
            self._note("warning", f"missed steps {self.seq + 1}..{m.seq - 1}: resyncing", m)
            return []
        self.seq = m.seq
        try:
            logged = [decode_event(b) for b in m.log]
        except ValueError as e:
            logged = []
            self._note("warning", f"step {m.seq}: a log event is not valid: {e}", m)
        rec = h.recorder
        if rec is not None:
            self._own_checks(h, rec, logged, live=not self.catching_up)
            mine = [v for k, s, v in m.events if s == rec.seat and (k == "deal" or k == "draw")]
            self._problems(rec.on_step(logged, mine))
            h.held += mine
            for kind, s, v in m.events:
                if kind == "play" and s == rec.seat and v in h.held:
                    h.held.remove(v)
        self._presence(logged)
        events: tuple[Event, ...] = m.events
        self._note("events", f"step {m.seq}", events)
        return []

    def _presence(self, logged: Sequence[LogEvent]) -> None:
        """Say who the log says went away or came back: the host plays an away player's seat
        from then on, and every screen should show that it does."""
        names = self._names()
        for ev in logged:
            if not isinstance(ev, Away | Back):
                continue
            who = names[ev.seat] if ev.seat < len(names) and names[ev.seat] else "a player"
            if isinstance(ev, Back):
                self._note("presence", f"{who} is back and plays again", ev)
            else:
                why = "left the table" if ev.how == LEFT else "lost the link, says the host"
                self._note("presence", f"{who} {why}: the host plays the seat from now on", ev)

    def _own_checks(
        self, h: _HandState, rec: SeatRecorder, logged: Sequence[LogEvent], live: bool
    ) -> None:
        """What only this seat can tell about a step: the host made a move for it on a turn
        timer that had not run out, logged it away while its connection never broke, or played
        it as away while it was connected. Each is a dispute, kept in its transcript.

        ``live``: not a resume's catch-up. Moves made while this client was gone come in the
        catch-up; once it is over, an honest host logs this seat back before it moves again
        (``Host._presence_step`` runs before the host's own moves, and a resume is one
        ``receive``), so a stand-in move for this seat seen live was made while it was here —
        the one way to play a person's seat after cutting its link once and never saying it
        came back."""
        for k, ev in enumerate(logged, rec.log.count):
            if isinstance(ev, Away) and ev.seat == rec.seat and live:
                text = "the host says you went away, but your connection to it was up all along"
                rec.dispute(k, text)
                self._problems([text])
            elif isinstance(ev, Move) and ev.seat == rec.seat:
                if ev.by == BY_STAND_IN and live and not h.stood_in:
                    h.stood_in = True  # said once a hand: every later move is the same lie
                    text = (
                        "the host played your seat as if you were away, while you were "
                        "connected to it"
                    )
                    rec.dispute(k, text)
                    self._problems([text])
                timed = rec.setup.turn_timer_ms > 0  # (else the move is invalid to all)
                if ev.by == BY_TIMEOUT and timed and live and self.clock is not None:
                    problem = self._early_timeout(h) or self._dropped_move(h)
                    if problem is not None:
                        rec.dispute(k, problem)
                        self._problems([problem])
                h.turn_began = h.sent_at = None  # its turn is over, however it ended

    def _early_timeout(self, h: _HandState) -> str | None:
        """What is wrong with a timeout the host just made for this seat, by this client's
        clock: the seat never saw its turn begin (the host sends every seat a view after each
        step, so it would have), or its time had not run out."""
        assert self.clock is not None
        if h.turn_began is None:
            return "the host moved for you on a timeout before it showed you your turn"
        waited = self.clock() - h.turn_began
        if waited + TIMER_SLACK >= h.turn_time:
            return None
        return (
            f"the host moved for you on a timeout after {waited:.1f} s of your "
            f"{h.turn_time:.0f} s turn"
        )

    def _dropped_move(self, h: _HandState) -> str | None:
        """What is wrong with a timeout the host made for this seat after this client sent it
        a move on that turn: the move was dropped — unless it left within ``TIMER_SLACK`` of
        the turn's end by this client's clock, when an honest host's timer may have run out
        before it arrived (the host then refuses it as late)."""
        if h.sent_at is None or h.turn_began is None:
            return None
        took = h.sent_at - h.turn_began
        if took + TIMER_SLACK >= h.turn_time:
            return None
        m = h.sent_move
        what = (
            f"laid {format_cards([m])}"
            if 0 <= m < MAX_CARD
            else {DRAW: "drawn", PASS: "passed"}.get(m, f"chosen {format_move(m, symbols=True)}")
        )
        return (
            f"the host moved for you on a timeout, but you had {what} after {took:.1f} s "
            f"of your {h.turn_time:.0f} s turn: it dropped your move"
        )

    def _view(self, m: p.SeatView) -> list[p.Message]:
        h = self.hand
        resumed, self.catching_up = self.catching_up, False
        if h is None or m.seq != self.seq:
            return []
        mine = m.seat is not None and m.turn == m.seat and bool(m.legal)
        if mine and h.turn_began is None and self.clock is not None:
            # Seen live, the turn began at the step just shown: the table's whole timer. Seen
            # as a resume ends, it began while this client was gone: what the view says is left.
            h.turn_began = self.clock()
            whole = 0.0 if h.setup is None else h.setup.turn_timer_ms / 1000
            h.turn_time = min(whole, m.timer_ms / 1000) if resumed else whole
        elif not mine:
            h.turn_began = None
        rec = h.recorder
        if rec is not None and not h.shown_wrong and sorted(m.hand) != sorted(h.held):
            # The view is the host's word; the cards dealt and drawn to this seat, less those
            # it played, are the log's (checked against the deal at the end). A view that
            # hides a card keeps a player from playing it.
            h.shown_wrong = True
            gone = sorted(set(h.held) - set(m.hand))
            extra = sorted(set(m.hand) - set(h.held))
            what = (
                "; ".join(
                    [f"hides {format_cards(gone)}"] * bool(gone)
                    + [f"shows {format_cards(extra)}, never dealt to you"] * bool(extra)
                )
                or "shows another count of your cards"
            )
            text = f"at step {m.seq} your screen is not your hand: the host {what}"
            rec.dispute(max(0, rec.log.count - 1), text)
            self._problems([text])
        self._latest, self._latest_msg = None, m
        self.timer_ms = m.timer_ms
        return []

    def _hand_over(self, m: p.HandOver) -> list[p.Message]:
        h = self.hand
        if h is None:
            return []
        h.over = m
        if h.over_at is None and self.clock is not None:
            h.over_at = self.clock()
        if h.recorder is not None:
            h.recorder.on_cards_signature(m.cards_signature)
        self._note("over", f"hand {h.message.hand_no} over ({m.reason})", m)
        if h.blind is not None:
            if h.blind.outcome is not None and not h.done:
                self._record(h)
            return []
        if h.refused is not None and not h.done:
            self._record(h)  # nothing more to wait for: this seat took no part
            return []
        return self._maybe_head(h)

    def _abort(self, m: p.Abort) -> list[p.Message]:
        h = self.hand
        if h is None:
            return []
        try:
            fault = Fault[m.fault.upper()]
        except KeyError:
            return []
        record = VoidRecord(m.round, fault, tuple(m.culprits), m.commitments, m.signature)
        if h.recorder is not None:
            before = len(h.recorder.problems)
            h.recorder.on_void(record)
            self._problems(h.recorder.problems[before:])
        # Counted now, on what the abort says; the verdict after the hand settles the blame.
        proven = DEALER in record.culprits and len(record.culprits) == 1
        self._count_void(
            VoidEntry(h.message.hand_no, record.culprits, proven, fault, h.message.game_id)
        )
        who = named(", ".join(record.culprits), self._names())
        self._note("warning", f"round {m.round} failed ({who} {fault.value}): the hand is void", m)
        return []

    def _count_void(self, entry: VoidEntry) -> None:
        self.voids.record(entry)
        self._note("voids", named(self.voids.describe(), self._names()), self.voids)
        text = self.voids.warning_text()
        if text is not None and self.distrust is None:
            self.distrust = named(text, self._names())
            self._note("warning", self.distrust)

    def _reveals(self, m: p.Reveals) -> list[p.Message]:
        h = self.hand
        if h is None or h.recorder is None:
            return []
        h.recorder.on_reveals(m.round, m.seeds)
        return self._maybe_head(h)

    def _maybe_head(self, h: _HandState) -> list[p.Message]:
        """This seat's head of the whole log, once the hand is over and every round's seeds
        are in (and again after a resume: the host ignores one it has)."""
        rec = h.recorder
        if rec is None or h.over is None or h.done:
            return []
        if any(r.revealed is not None and not r.seeds for r in rec.rounds):
            return []
        signed = rec.sign_head()
        return [p.LogHead(count=signed.count, head=signed.head, signature=signed.signature)]

    def _log_heads(self, m: p.LogHeads) -> list[p.Message]:
        h = self.hand
        if h is None or h.over is None or h.done:
            return []
        if h.recorder is not None:
            h.recorder.on_heads({q: SignedHead(*v) for q, v in m.heads.items()})
        self._record(h)
        return []

    def _settle(self, h: _HandState, why: str) -> None:
        """Give hand ``h`` its record now, with what this client holds: the host went on (a
        new hand), the table closed, or the hand's end never came in time (:meth:`expire`).
        A hand the host stops short of its seeds or heads is never left without a verdict —
        the check says what is missing."""
        if h.done:
            return
        if h.blind is not None and h.blind.seat is not None:
            self._note("warning", f"hand {h.message.hand_no}: {why}", h.message)
            self._record(h)
            return
        if h.recorder is None and h.refused is None:
            h.done = True  # watched: there is nothing of this client's to judge
            return
        rec = h.recorder
        if rec is not None:
            missing = []
            if any(r.revealed is not None and not r.seeds for r in rec.rounds):
                missing.append("the seeds")
            if DEALER not in rec.heads:
                missing.append("its head of the log")
            if missing:
                why += f" (it never sent {' nor '.join(missing)})"
        self._note("warning", f"hand {h.message.hand_no}: {why}", h.message)
        if rec is not None:
            rec.on_heads(rec.heads)  # (this seat's own head: its last word)
        self._record(h)

    def _record(self, h: _HandState) -> None:
        """Hand ``h``'s record: its judgement and proof (or, for a seat the host kept out of its
        part, the verdict that says so), kept in :attr:`history` and told; a void counted."""
        h.done = True
        m = h.message
        judgement, proof, seat, deal = self._judge(h)
        aborted = any((e.game_id, e.hand_no) == (m.game_id, m.hand_no) for e in self.voids.entries)
        if judgement is not None and (
            judgement.status == "void" or (aborted and judgement.status == "unfair")
        ):
            # The verdict settles the blame the abort laid (_abort): a void the host laid on
            # a player and the check lays on the host is counted as the host's.
            self._count_void(judgement.void_entry())
        record = HandRecord(
            m.hand_no,
            h.over or _UNFINISHED,
            judgement,
            proof,
            game_id=m.game_id,
            rules="" if h.setup is None else h.setup.rules.name,
            seat=seat,
            names=h.names,
            deal=deal,
        )
        self.history.append(record)
        if judgement is not None:
            self._note("verdict", judgement.text(), record)

    def _judge(self, h: _HandState) -> tuple[Judgement | None, Proof | None, int | None, Deal]:
        """The deal's judgement of hand ``h``, its proof, the seat it was judged from and the
        deal: the dealer-blind part's, or the commit-reveal transcript verified (judgement
        None: nothing of this client's to judge). The one place that asks which deal it was."""
        if h.blind is not None:
            m, part = h.message, h.blind
            judged = part.judgement(m.game_id, m.hand_no, h.names)
            return judged, part.proof(), part.seat, DEALER_BLIND
        if h.recorder is None:
            refused = None
            if h.refused is not None:
                rules = "" if self.lobby is None else self.lobby.rules
                refused = _refusal(h, self.seat, rules).judgement()
            return refused, None, self.seat, COMMIT_REVEAL
        t = h.recorder.transcript()
        proof = Proof(COMMIT_REVEAL, t.id, t.to_json, source=t)
        judged = None
        if self.verify_hands:
            try:
                judged = verify(t).judgement()
            except TranscriptError as e:  # cannot be for a transcript we wrote: say so, go on
                self._note("warning", f"hand {h.message.hand_no}: the transcript is broken: {e}")
        return judged, proof, t.seat, COMMIT_REVEAL

    def _blind(self, m: p.Message) -> list[p.Message]:
        """A ``blind_*`` message: the hand's part takes it (module :mod:`.blindsession`)."""
        h = self.hand
        part = None if h is None else h.blind
        if h is None or part is None:
            return []
        before = len(part.problems)
        held = len(part.part.holder.cards) if part.part is not None else 0
        # Live: the whole hand came over this one link. (A blind catch-up has no end that a
        # client can see, so after a resume nothing of the hand is judged as live.)
        replies, events = part.take(m, live=h.link == self.links)
        self._problems(part.problems[before:])
        if part.steps != self.seq:
            self.seq = part.steps
        self.view = part.view()  # its own engine's (a spectator's: the public one)
        if events:
            self._note("events", f"step {self.seq}", tuple(events))
        if part.part is not None and len(part.part.holder.cards) > held:
            self._note("opened", "a card you drew is open to you", m)
        if isinstance(m, p.BlindAbort):
            self._note("warning", named(f"the host stopped the hand: {_abort_text(m)}", h.names), m)
        if part.seeds_sent and h.over_at is None and self.clock is not None:
            # Its part is over (it revealed its seeds): from here the host owes the reveal and
            # the hand's end, waited for as long as a commit-reveal hand's (``expire``).
            h.over_at = self.clock()
        if part.outcome is not None and h.over is not None and not h.done:
            self._record(h)
        return replies

    def expire(self) -> None:
        """The shell's clock says: a hand whose end came long ago (``HEADS_PATIENCE``) and
        whose seeds or heads never followed is settled now, with what this client holds."""
        h = self.hand
        if h is None or h.done or h.over_at is None or self.clock is None:
            return
        if self.clock() - h.over_at >= HEADS_PATIENCE:
            self._settle(h, "the host never finished the hand (its seeds and log heads)")

    def give_up(self, why: str = "the connection to the host is gone") -> None:
        """The shell has given up on the table: settle the hand in play, if any."""
        h = self.hand
        if h is not None and not h.done:
            self._settle(h, why)

    def _chat(self, m: p.Chat) -> list[p.Message]:
        self._note("chat", f"<{m.sender}> {m.text}", m)
        return []

    def _reject(self, m: p.Reject) -> list[p.Message]:
        self._note("reject", f"{m.code.value}: {m.text}", m)
        h = self.hand
        if h is not None and h.sent_at is not None and m.seq == h.sent_seq:
            # A refusal this client can see is honest clears the move: the table had moved on
            # (a newer view came since), or the move was not among the view's legal ones. Any
            # other refusal of a legal move on the view it answered is no reason to time it
            # out: the dispute stands (a host that refused it to log a timeout lied).
            moved_on = m.code in (p.ErrorCode.STALE_VIEW, p.ErrorCode.NOT_YOUR_TURN)
            if (moved_on and self.seq > m.seq) or (
                m.code is p.ErrorCode.ILLEGAL_MOVE and not h.sent_legal
            ):
                h.sent_at = None
        if m.code is p.ErrorCode.RATE_LIMITED:
            self._ready_sent = False  # a ready said may be the one refused: see retry()
        return []

    def retry(self) -> list[p.Message]:
        """What to say again a moment after a ``rate_limited`` refusal (the shell waits, then
        sends these): the automatic ready, if the lobby still shows this seat not ready. A
        move is the shell's own to send again."""
        return self._auto_ready()

    def _ping(self, m: p.Ping) -> list[p.Message]:
        return [p.Pong(nonce=m.nonce)]

    def _closed(self, m: p.Bye | p.Error) -> list[p.Message]:
        self.closed = True
        self.close_reason = m
        text = m.reason if isinstance(m, p.Bye) else f"{m.code.value}: {m.text}"
        self._note("closed", text, m)
        self.give_up("the host closed the table before the hand was settled")
        return []

    def _ignore(self, m: p.Message) -> list[p.Message]:
        return []


def _refusal(h: _HandState, seat: int | None, rules: str) -> Verdict:
    """The verdict of a hand the host dealt this seat in but kept it out of its part (a redeal,
    a setup that is not valid, its key missing or changed): unfair, on its own record."""
    m = h.message
    assert h.refused is not None
    pid = m.seats[seat] if seat is not None and seat < len(m.seats) else ""
    return Verdict(
        status="unfair",
        reason=h.refused,
        game_id=m.game_id,
        hand_no=m.hand_no,
        seat=-1 if seat is None else seat,
        id=pid,
        rules=rules if h.setup is None else h.setup.rules.name,
        players=len(m.seats),
        events=0,
        rounds=0,
        culprits=(DEALER,),
        check="setup",
        proven=False,
        names={q: n for q, n in zip(m.seats, h.names, strict=False) if n},
    )


_HANDLERS: dict[type[p.Message], str] = {
    p.Welcome: "_welcome",
    p.LobbyState: "_lobby",
    p.Hand: "_hand",
    p.Announce: "_announce",
    p.Events: "_events",
    p.SeatView: "_view",
    p.HandOver: "_hand_over",
    p.Abort: "_abort",
    p.Reveals: "_reveals",
    p.LogHeads: "_log_heads",
    p.BlindPass: "_blind",
    p.BlindOpen: "_blind",
    p.BlindRelease: "_blind",
    p.BlindMove: "_blind",
    p.BlindReveal: "_blind",
    p.BlindAbort: "_blind",
    p.BlindLeave: "_blind",
    p.Chat: "_chat",
    p.Reject: "_reject",
    p.Ping: "_ping",
    p.Pong: "_ignore",
    p.Bye: "_closed",
    p.Error: "_closed",
}
"""The method that takes each message the host may send (by name: a subclass — a test's
dishonest client — may take one differently)."""
