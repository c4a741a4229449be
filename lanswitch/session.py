"""A client's mirror of the table, sans I/O: the host's messages in, the replies out.

:class:`Session` keeps what one client knows — its seat, the lobby, the hand's setup, its
latest view and the events since — and holds, for each hand, its part in it: a
:class:`~lanswitch.seatpart.SeatPart`, picked once from the ``hand`` message (its ``blind``
flag) — :class:`~lanswitch.commitseat.CommitPart` for a commit-reveal hand (the seat's
:class:`~lanswitch.fairdeal.SeatRecorder`: it checks every announcement and step as it arrives,
commits and reveals, signs its moves and the log, disputes what only it can see) or
:class:`~lanswitch.blindsession.BlindPart` for a dealer-blind one (its own engine and view, its
passes and keys, its seeds after the hand, the check and the hand's file). From then on the
session never tells the two apart: every message about the hand goes to the part
(:meth:`Session._part`), as do a move, whose turn it is, leaving mid-hand and coming back; the
part asks the session only what :class:`~lanswitch.seatpart.Seatside` offers.

What is written once, above both deals, is here: the handshake and the lobby; the hand's setup
checked against the lobby (a dispute on this seat's own record, kept by the part where its deal
keeps one); a hand the host dealt this seat in but kept it out of (unfair, on its own record);
when a hand is settled — its part has every proof it waits for, or the host went on, closed the
table or never finished (:data:`HEADS_PATIENCE`) — and its :class:`HandRecord`, with the
part's :class:`~lanswitch.fairdeal.judgement.Judgement` and
:class:`~lanswitch.fairdeal.judgement.Proof` (or, with ``verify_hands=False``, the proof alone,
for a shell that checks it elsewhere); the match's void hands counted by culprit, and
:attr:`Session.distrust` past the rules' ``void_warning``. Randomness (its seeds) comes from
the ``entropy`` callable the shell passes, time (for the turn timer) from ``clock``. A shell
(``lanswitch.client``, a test, a benchmark) feeds it every message with
:meth:`Session.receive` — one ``isinstance`` chain finds each message's handler
(:meth:`Session._dispatch`) — and sends back what that returns; :meth:`Session.move` makes a
move message for the view on screen.

What happens is also appended to :attr:`Session.news` as :class:`News` items, for a screen or
a log to show in order.

Why one module of some 770 lines: the split that paid is made — each deal's part of a hand
lives in its own module (``commitseat``, ``blindsession``, behind ``seatpart``) — and what is
left is one class, :class:`Session`, over one state (the seat, the lobby, the hand in play and
its record), with the two small types its readers import beside it (:class:`News`,
:class:`HandRecord`). Its handlers are methods reached by one ``isinstance`` chain; moving some
to another file would bring back the class spread over files the host had.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import protocol as p
from .blindsession import BlindPart
from .commitseat import CommitPart
from .fairdeal import DEALER, HandSetup, SetupError, Verdict, VoidTally
from .fairdeal.blind.holder import Holder
from .fairdeal.judgement import COMMIT_REVEAL, Deal, Judgement, Proof
from .fairdeal.primitives import named, public_bytes
from .fairdeal.round import Announcement
from .fairdeal.seat import RevealedRounds
from .fairdeal.tally import VoidEntry
from .game import View
from .handcheck import dealt_alone, key_problem, lobby_problems, out_of_match, own_seat_problem
from .narrate import ending
from .rules import RuleSet
from .seatpart import PART_MESSAGES, PartMessage, SeatPart

__all__ = ["HandRecord", "News", "Session", "hand_setup", "named"]


@dataclass(frozen=True, slots=True)
class News:
    """Something that happened, for the screen: ``kind`` and a short English ``text``.

    Kinds: ``welcome``, ``lobby``, ``hand``, ``events``, ``presence`` (the log says a player
    went away or came back), ``reject``, ``chat``, ``over``, ``verdict``, ``voids`` (the
    match's void hands, counted), ``warning``, ``closed``, ``opened`` (at a dealer-blind
    table: a card this seat drew is open to it — the last key came, perhaps with nothing
    else to tell, and its turn may begin with it), ``seat`` (the host no longer keeps the seat
    the resume token held: the client shell joins as someone new) (and from the client shell:
    ``pin``, the certificate trusted; ``seat``, a seat kept on disk taken back; ``link``, lost
    and back). ``data`` holds the message or record behind it.
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


@dataclass(slots=True)
class _HandState:
    message: p.Hand
    setup: HandSetup | None
    part: SeatPart  # its deal's part: every message of the hand goes to it
    names: tuple[str, ...] = ()  # the seats' names when the hand began
    refused: str | None = None  # why this seat, dealt in, takes no part (the host's doing)
    over: p.HandOver | None = None
    over_at: float | None = None  # when ``hand_over`` came (or its part was done), by ``clock``
    done: bool = False
    link: int = -1  # the ``welcome`` it began under, if it began while this client was here
    unchecked: bool = False
    """Caught up on as a hand the host had ended, so not compared with the lobby (which is the
    table as it is now): if the host plays it on after the catch-up, it is compared then."""


class Session:
    """One client's side of one table (see the module docstring)."""

    commit_part: type[CommitPart] = CommitPart
    """What takes this seat's part in a commit-reveal hand (a test's cheating client plugs in
    a :class:`~lanswitch.commitseat.CommitPart` that cheats)."""
    blind_part: type[BlindPart] = BlindPart
    """What takes this seat's part in a dealer-blind hand."""
    blind_holder: type[Holder] = Holder
    """What keeps this client's secrets in a dealer-blind hand (a test's cheating client plugs
    in a :class:`~lanswitch.fairdeal.blind.holder.Holder` that cheats)."""

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
        self.restored = False
        """This client took back a seat an earlier run of its program held, with that run's
        key and resume token (``lanswitch.seatkeep``): a hand replayed to it that the earlier
        run began is followed with what the earlier run left behind — at a commit-reveal hand,
        the commitments its key signed (``fairdeal.seat``); at a dealer-blind one nothing, as
        its locking keys went with it, so it sits that hand out."""
        self.keep: RevealedRounds | None = None
        """What a shell that keeps this seat on disk must have written there before it sends
        the replies of a ``receive``: the rounds of the last hand in which this seat revealed
        its seed, each one's fixed announcement (:meth:`keep_reveal`; a new one is added before
        the reveal that goes with it leaves). A new run that takes the seat back starts with
        what the earlier one kept (``lanswitch.seatkeep``), and takes back its earlier seed only
        in a round the host replays with those very commitments (``lanswitch.fairdeal.seat``):
        a host that knew the seed cannot deal such a round again with a commitment of its own
        chosen after it."""
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
        # The host stopped the table mid-match to carry it on later (``error`` ``paused``):
        # its ``error`` until a ``welcome`` says the table is back. Not closed: the client
        # keeps its token and the hand in play, and connects again (lanswitch.client).
        self.paused: p.Error | None = None
        self._problems = 0  # fair-deal problems told during the hand in play
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
        not yet settled, what its part sends on leaving (a commit-reveal seat's signed head of
        the log so far, its goodbye, which the log keeps: SPEC § Going away; a dealer-blind
        one's seeds)."""
        out: list[p.Message] = []
        h = self.hand
        if h is not None and not h.done:
            out += h.part.leave()
        bye = p.Bye(reason=reason[:500])
        out.append(bye)
        self.closed, self.close_reason = True, bye  # nothing more to hear: do not resume
        return out

    def begin_leaving(self) -> list[p.Message]:
        """What to send first to leave mid-hand (at a dealer-blind table: its seeds). The shell
        then waits while :meth:`owes_seed` (a bounded wait, :data:`SEED_WAIT_S`), answering
        what the hand asks of it, until the host relays its leave; then :meth:`leave`."""
        h = self.hand
        if h is not None and not h.done:
            return h.part.begin_leaving()
        return []

    def owes_seed(self) -> bool:
        """Whether something of this seat's for the hand in progress is still to be sent (its
        seed for the round in progress, a blind shuffle's passes): a shell about to
        :meth:`leave` waits a moment (:data:`SEED_WAIT_S`) while this holds, so that leaving
        does not void the hand."""
        h = self.hand
        return h is not None and not h.done and h.part.busy()

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
        """The message playing ``move`` on the view on screen, signed as its deal signs it:
        over the log this seat holds (the host refuses it if its own log differs), or at a
        dealer-blind table with the laid card's keys (ValueError there if it is not this seat's
        turn)."""
        h = self.hand
        if h is None:
            return p.Move(seq=self.seq, move=move, signature=b"")
        return h.part.move(move)

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
        h = self.hand
        return h is not None and h.over is None and h.part.my_turn()

    # -- what a hand's part asks (``seatpart.Seatside``) ---------------------------------------

    def show(self, m: p.SeatView) -> None:
        self._latest, self._latest_msg = None, m

    def shown(self) -> p.SeatView | View | None:
        return self._latest_msg if self._latest_msg is not None else self._latest

    def live(self) -> bool:
        h = self.hand
        return h is not None and h.link == self.links

    def note(self, kind: str, text: str, data: object = None) -> None:
        self.news.append(News(kind, text, data))

    def fair_deal_problems(self, found: Sequence[str]) -> None:
        self._problems += len(found)
        for text in found:
            self.note("warning", f"the fair deal: {named(text, self.seat_names())}")

    def seat_names(self) -> tuple[str, ...]:
        h = self.hand
        if h is not None and h.names:
            return h.names
        return () if self.lobby is None else tuple(st.name for st in self.lobby.seats)

    def hosting(self) -> bool:
        lobby = self.lobby
        return lobby is not None and lobby.host is not None and lobby.host == self.seat

    def keep_reveal(self, hand: p.Hand, fixed: Announcement) -> None:
        k = self.keep
        if k is None or (k.game_id, k.hand_no) != (hand.game_id, hand.hand_no):
            k = RevealedRounds(hand.game_id, hand.hand_no)  # only the last hand's are kept
        self.keep = k.with_round(fixed)

    def count_void(self, entry: VoidEntry) -> None:
        self.voids.record(entry)
        self.note("voids", named(self.voids.describe(), self.seat_names()), self.voids)
        text = self.voids.warning_text()
        if text is not None and self.distrust is None:
            self.distrust = named(text, self.seat_names())
            self.note("warning", self.distrust)

    # -- what the host sends ---------------------------------------------------------------

    def receive(self, message: p.Message) -> list[p.Message]:
        """Take one message from the host; returns the messages to send back, in order."""
        reply = self._dispatch(message)
        self.expire()  # (the host pings a quiet client: this runs every few seconds)
        return reply

    def _dispatch(self, m: p.Message) -> list[p.Message]:
        """The one place a message finds its handler: the hand's own messages go to the part
        of the hand in play (:meth:`_part`); the rest are the table's."""
        if isinstance(m, PART_MESSAGES):
            return self._part(m)
        if isinstance(m, p.Welcome):
            return self._welcome(m)
        if isinstance(m, p.LobbyState):
            return self._lobby(m)
        if isinstance(m, p.Hand):
            return self._hand(m)
        if isinstance(m, p.Chat):
            return self._chat(m)
        if isinstance(m, p.Reject):
            return self._reject(m)
        if isinstance(m, p.Ping):
            return [p.Pong(nonce=m.nonce)]
        if isinstance(m, p.Bye | p.Error):
            return self._closed(m)
        return []  # a pong, or nothing a client takes

    def _part(self, m: PartMessage) -> list[p.Message]:
        """A message of the hand in play: its part takes it; then the hand is over and settled,
        perhaps — its record is made here, above either deal."""
        h = self.hand
        if isinstance(m, p.SeatView):
            replies = [] if h is None else h.part.take(m)
            self.catching_up = False  # a view ends a resume's catch-up (its part has read it)
            return replies
        if h is None:
            return []
        if h.unchecked and not self.catching_up and isinstance(m, p.Events) and h.over is None:
            self._played_on(h)
        if isinstance(m, p.HandOver):
            h.over = m
            if h.over_at is None and self.clock is not None:
                h.over_at = self.clock()
            how = ending(m.reason, h.names, m.placings)
            self.note("over", f"hand {h.message.hand_no} over: {how}", m)
            if h.refused is not None:
                if not h.done:
                    self._record(h)  # nothing more to wait for: this seat took no part
                return []
        replies = h.part.take(m)
        if h.part.finished and h.over_at is None and self.clock is not None:
            h.over_at = self.clock()
        if h.over is not None and h.part.settled and not h.done:
            self._record(h)
        return replies

    def _welcome(self, m: p.Welcome) -> list[p.Message]:
        # Our seat is the host's word, here and in each lobby's ``you`` (SPEC § lobby) —
        # never the first seat that shows our key: keys are public, and a seat someone
        # else took with ours would read as our own (issue #15).
        resumed = self.token is not None
        self.paused = None
        self.token, self.table, self.seat = m.token, m.table, m.seat
        self.catching_up = True
        self.links += 1
        self._replaying = None
        self._ready_sent = False  # a ready said on the old link may be lost with it
        # People count seats from 1: "joined seat 2 at ann's table", "joined, watching ann's
        # table" (not "joined watching at").
        where = f" seat {m.seat + 1} at" if m.seat is not None else ", watching"
        self.note("welcome", ("resumed" if resumed else "joined") + f"{where} {m.table}", m)
        return []

    def _lobby(self, m: p.LobbyState) -> list[p.Message]:
        self.lobby = m
        if self._replaying is None:
            self._replaying = m.playing
        self.seat = m.you
        if m.you is not None and m.you >= len(m.seats):
            self.seat = None
            self.note(
                "warning",
                f"the host says you sit at seat {m.you + 1} of a table of {len(m.seats)} "
                "seats: watching",
            )
        self.note("lobby", f"{sum(1 for s in m.seats if s.name)}/{len(m.seats)} seated", m)
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
            # Resuming the hand we are in (or whose end we missed): keep what we have — and
            # send again what may have been lost with the link, as its deal does.
            return [] if h.done else h.part.resume(playing)
        if h is not None and not h.done:
            self._settle(h, f"the host began hand {m.hand_no} before this hand was settled")
        self._problems = 0
        shown = () if self.lobby is None else tuple(st.name for st in self.lobby.seats)
        names = m.names or shown  # the names the setup binds (checked against the lobby's)
        setup, refused = self._setup(m)
        seat = self.seat  # by the host's word (welcome, lobby.you), not where our key is dealt
        # A hand the host ended, caught up on between hands: the seat may have changed hands
        # since it ended (a bot's, taken by this player as it ended). Not dealt our key there,
        # this seat was not ours in that hand: we watched it. (Taking no part, a hand not in
        # play is followed and never answered: a host that says so of a hand it goes on to
        # play gets nothing from us in it.)
        ended = self.catching_up and not playing
        if ended and seat is not None and seat < len(m.seats):
            seat = None if m.keys.get(m.seats[seat]) != self.public_key else seat
        dealt_in = seat is not None and seat < len(m.seats) and seat not in m.out
        refused = refused or own_seat_problem(m, seat, self.public_key) or key_problem(m)
        mine = seat if dealt_in else None
        inherited = self.restored and h is None and (self._replaying is not False or not playing)
        if m.blind and mine is not None and inherited:
            # A dealer-blind hand an earlier run of this program played (replayed: in play when
            # this run came back, or ended): its locking keys went with that run, and keys
            # made anew would read as this seat cheating. Followed as a watcher follows it.
            mine = None
            self.note(
                "warning",
                f"hand {m.hand_no} is dealer-blind, and your part in it (its locking keys) "
                "went with the lanswitch that ended: you sit it out and play from the next hand",
                m,
            )
        part: SeatPart
        # The one place the deal is told apart: its part. (A hand this seat takes no part in
        # is followed as a commit-reveal one's steps are: for the screen.)
        if m.blind and setup is not None and refused is None:
            part = self.blind_part(self, m, setup, mine, self.key, self.blind_holder)
        else:
            part = self.commit_part(self, m, setup if refused is None else None, mine, self.key)
            refused = refused or part.refused
        if refused is not None:
            self.note("warning", refused, m)
        host_seat = None if self.lobby is None else self.lobby.host
        if part.hides_from_host and seat is not None and dealt_alone(m, host_seat) == seat:
            self.note(
                "warning",
                f"in hand {m.hand_no} the host runs every other seat: it can tell your cards "
                "by elimination whenever the stock runs out (dealer-blind hides no more here)",
                m,
            )
        self.hand = _HandState(m, setup, part, names, refused if dealt_in else None)
        if self._replaying is False:
            self.hand.link = self.links  # begun live: until the link drops, all of it is
        self.seq, self.view = 0, part.view()
        if setup is not None:
            self.voids.heed(setup.rules.scoring.void_warning)
        if ended:
            # The hand the host ended, caught up on between hands: the lobby is the table as
            # it is now, seats taken and given up since, not the one that hand was dealt to
            # (compared then, by those who were there). Compared, it blamed an honest host.
            # Should the host play it on after all, it is compared then (``_part``).
            self.hand.unchecked = True
        elif self._replaying is False:
            self._against_lobby(m, part, shown)
        elif h is not None:  # resumed, and a new hand with it: what cannot have changed
            self._against_lobby(m, part, shown, since=h.message)
        self._replaying = False  # the hands after this one begin while this client is here
        self._rules_text = m.rules
        self.note("hand", f"hand {m.hand_no} begins", m)
        return part.start(playing)

    def _played_on(self, h: _HandState) -> None:
        """Hand ``h`` was caught up on as one the host had ended, and the host plays it on: it
        was not, and what the catch-up let pass is compared now — the hand against the table
        the lobby shows, and this player's own seat (a host that called a hand ended to
        deal a person's seat to itself unseen is caught here). This client follows it only:
        it answered nothing of a hand it was told was over."""
        h.unchecked = False
        m = h.message
        found = [f"the host caught you up on hand {m.hand_no} as over, and plays it on"]
        if self.lobby is not None:
            found += lobby_problems(m, self.lobby, h.names)
        own = own_seat_problem(m, self.seat, self.public_key)
        if own is not None:
            found.append(own)
        self.fair_deal_problems(found)

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
        part: SeatPart,
        names: Sequence[str],
        since: p.Hand | None = None,
    ) -> None:
        """Where the hand is not the table the lobby shows, or its rules not the last hand's:
        the host says two things at once. Each is a warning, and a dispute in this seat's
        transcript (at the setup note, log event 0). ``since``: see ``lobby_problems``."""
        found: list[str] = []
        if self.lobby is not None:
            out, found = self._out_of_match(m, names)
            found += lobby_problems(m, self.lobby, names, since, out)
        if self._rules_text is not None and m.rules != self._rules_text:
            found.append(f"the host changed the rules for hand {m.hand_no}")
        for text in found:
            part.dispute_setup(text)
            self.fair_deal_problems([text])

    def _out_of_match(self, m: p.Hand, names: Sequence[str]) -> tuple[set[int], list[str]]:
        """The seats the match has put out of hand ``m`` (penalty scoring), by the lobby's
        totals checked against the hands of the match this client has the ends of; what it
        cannot confirm (a hand missed) is said, blaming nobody (``handcheck.out_of_match``)."""
        rules, lobby = self.rules, self.lobby
        if rules is None or lobby is None or rules.scoring.mode != "penalty":
            return set(), []
        if not rules.scoring.target:
            return set(), []
        seen = [
            (r.hand_no, r.over, () if r.judgement is None else r.judgement.scores)
            for r in self.history
            if r.game_id == m.game_id
        ]
        found = out_of_match(m, lobby, rules.scoring.target, names, seen)
        for text in found.unconfirmed:
            self.note("warning", text, m)
        return set(found.out), list(found.problems)

    def _settle(self, h: _HandState, why: str) -> None:
        """Give hand ``h`` its record now, with what this client holds: the host went on (a
        new hand), the table closed, or the hand's end never came in time (:meth:`expire`).
        A hand the host stops short of its seeds or heads is never left without a verdict —
        the check says what is missing."""
        if h.done:
            return
        said = why if h.refused is not None else h.part.settle(why)
        if said is None:
            h.done = True  # watched: there is nothing of this client's to judge
            return
        self.note("warning", f"hand {h.message.hand_no}: {said}", h.message)
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
            # The verdict settles the blame the abort laid (a commit-reveal ``abort``, counted
            # as it came): a void the host laid on a player and the check lays on the host is
            # counted as the host's.
            self.count_void(judgement.void_entry())
        record = _record_of(h, judgement, proof, seat, deal)
        self.history.append(record)
        if judgement is not None:
            self.note("verdict", judgement.text(), record)

    def _judge(self, h: _HandState) -> tuple[Judgement | None, Proof | None, int | None, Deal]:
        """The judgement of hand ``h``, its proof, the seat it was judged from and the deal: a
        hand the host kept this seat out of is unfair on its own record, whichever deal;
        otherwise its part judges (judgement None: nothing of this client's to judge)."""
        part = h.part
        if h.refused is not None:
            rules = "" if self.lobby is None else self.lobby.rules
            return _refusal(h, self.seat, rules).judgement(), None, self.seat, part.deal
        m = h.message
        judged = part.judgement(m.game_id, m.hand_no, h.names)
        return judged, part.proof(), part.seat, part.deal

    def expire(self) -> None:
        """The shell's clock says: a hand whose end came long ago (``HEADS_PATIENCE``) and
        whose seeds or heads never followed is settled now, with what this client holds."""
        h = self.hand
        if h is None or h.done or h.over_at is None or self.clock is None:
            return
        if self.clock() - h.over_at >= HEADS_PATIENCE:
            self._settle(h, "the host never finished the hand (its seeds and log heads)")

    def give_up(self, why: str = "the connection to the host is gone") -> None:
        """The shell has given up on the table: settle the hand in play, if any. A hand the
        host paused (:attr:`paused`) and never carried on is left unfinished instead
        (:meth:`_unfinished`)."""
        h = self.hand
        if h is not None and not h.done:
            paused = self.paused is not None and h.over is None
            if paused and h.refused is None and not self._problems:
                self._unfinished(h)
            else:
                self._settle(h, why)

    def _unfinished(self, h: _HandState) -> None:
        """Hand ``h``, which the host stopped mid-play to carry the table on later, is left
        here unfinished: not scored, and not judged. Judging it would blame the host for what
        is missing (its seeds and its head of the log come only at a hand's end), and a table
        stopped on purpose, to come back to, is no proof of anything. A host that never comes
        back escapes only the check of a hand nobody won; a problem this client already saw
        in the hand is judged as ever (:meth:`give_up` sends that hand to :meth:`_settle`).
        The record keeps no file of the deal: ``lanswitch verify`` of a hand stopped short
        would say what judging it live would."""
        h.done = True
        m = h.message
        # No file: checked offline, a hand stopped short reads as the host's fault.
        self.history.append(_record_of(h, None, None, h.part.seat, h.part.deal))
        self.note(
            "warning",
            f"hand {m.hand_no} is left unfinished: the host stopped the table during it and "
            "did not carry it on while you waited, so the hand is not scored and cannot be "
            "checked",
            m,
        )

    def _chat(self, m: p.Chat) -> list[p.Message]:
        self.note("chat", f"<{m.sender}> {m.text}", m)
        return []

    def _reject(self, m: p.Reject) -> list[p.Message]:
        self.note("reject", f"{m.code.value}: {m.text}", m)
        h = self.hand
        if h is not None:
            h.part.rejected(m)
        if m.code is p.ErrorCode.RATE_LIMITED:
            self._ready_sent = False  # a ready said may be the one refused: see retry()
        return []

    def retry(self) -> list[p.Message]:
        """What to say again a moment after a ``rate_limited`` refusal (the shell waits, then
        sends these): the automatic ready, if the lobby still shows this seat not ready. A
        move is the shell's own to send again."""
        return self._auto_ready()

    def _closed(self, m: p.Bye | p.Error) -> list[p.Message]:
        if isinstance(m, p.Error) and m.code is p.ErrorCode.PAUSED:
            # Not the table's end: the client waits for the host to carry it on, and comes
            # back to the seat and the hand with its token (SPEC § Resuming).
            self.paused = m
            self.note("paused", m.text, m)
            return []
        self.closed = True
        self.close_reason = m
        kind, text = "closed", m.reason if isinstance(m, p.Bye) else f"{m.code.value}: {m.text}"
        why = "the host closed the table before the hand was settled"
        if isinstance(m, p.Error) and m.code is p.ErrorCode.SHUTDOWN:
            text = m.text  # the host's own words, a whole line (lanswitch/hosting.py)
            why = "the host stopped the table before the hand was settled"  # (or --resume)
        elif isinstance(m, p.Error) and m.code is p.ErrorCode.BAD_TOKEN and self.token is not None:
            # The seat our token held was given up (or this is not the table that gave it): the
            # client shell joins again as someone new at once (lanswitch.client), so said so.
            h = self.hand
            seatless = self.links > 0 and self.seat is None  # welcomed here without a seat
            if seatless and (h is None or h.done or h.part.seat is None):
                # No seat of ours in the hand (watching, or waiting for a seat): nothing to
                # give up. The hand goes on (a host back from a pause refuses a waiting
                # player's old token), and the new join follows it again as the host replays
                # it. Giving it up recorded a hand the host had carried on as "unfinished:
                # the host … did not carry it on" (the newcomer pass).
                self.paused = None
                self.note(
                    "seat",
                    "the host did not take you back as you were (you had no seat to keep): "
                    "joining again",
                    m,
                )
                return []
            kind, text = "seat", "the host no longer keeps your seat: joining as someone new"
        self.note(kind, text, m)
        self.give_up(why)
        return []


def _record_of(
    h: _HandState, judgement: Judgement | None, proof: Proof | None, seat: int | None, deal: Deal
) -> HandRecord:
    """Hand ``h``'s record with its judgement and proof (a hand with no ``hand_over``, as one
    stopped short, ends ``unfinished``)."""
    m = h.message
    return HandRecord(
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
