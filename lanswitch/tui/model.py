"""The terminal client's state, apart from prompt_toolkit: which screen, the cursor, the
selection, the log, the link to the host, and what each key does.

:class:`TuiModel` wraps the :class:`~lanswitch.session.Session` (what the table is) with what
only the screen needs (where the cursor is). Keys call its methods; they send messages through
the ``send`` callable the shell gives it (the :class:`~lanswitch.client.Client`'s). Tests drive
it directly, without a terminal.

The log is the one narration of the engine's events (:mod:`lanswitch.narrate`), every
player's draws, pick-ups and passes included, plus who comes and goes (from the lobby), the
verdicts, chat, and the link to the host ("lost the host: reconnecting…"). The model decides
what the log says (:meth:`TuiModel.update` takes the session's news); :mod:`.log` keeps the
lines, narrates the events and finishes a blind draw's line once its cards can be read. Who
comes and goes is :mod:`.presence`; why a card cannot be laid, :mod:`.prompts`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .. import protocol as p
from ..cards import JOKER_BASE, MAX_CARD
from ..game import CALL_LAST, CALL_TWO, DRAW, MIMIC_BASE, PASS, SUIT_BASE, Phase
from ..hint import hint
from ..narrate import Line
from ..session import HandRecord, News, Session
from .log import Log, LogLine, record_fair, verdict_line
from .presence import Presence
from .prompts import Spot, cannot_mark, tables_for, why_not
from .render import Look, card_text, move_text

__all__ = [
    "FROM_NEXT_HAND",
    "HostPowers",
    "LogLine",
    "TuiModel",
    "preferred_choice",
    "record_fair",
    "special_moves",
    "verdict_line",
]


FROM_NEXT_HAND = " from the next hand"
"""How a power's words end where what it sets waits for the next hand ("the bots play hard
from the next hand"). Before any hand is played there is no next hand to speak of, and the
model leaves it out (:meth:`TuiModel.hand_played`)."""


@dataclass
class HostPowers:
    """What the player who hosts the table may do from the lobby (local calls on the host),
    and what only the host's screen shows: who arrived and who waits for a seat."""

    add_bot: Callable[[], str | None]
    remove_bot: Callable[[], str | None]
    next_rules: Callable[[], str | None]
    start: Callable[[], str | None]
    arrivals: Callable[[int], tuple[list[str], int]] = field(default=lambda n: ([], n))
    waiting: Callable[[], list[str]] = field(default=list)
    toggle_blind: Callable[[], str | None] = field(
        default=lambda: "this table cannot switch how it deals"
    )
    """Deal the next hands dealer-blind, or by commit-reveal again (what it says, or why not)."""
    locked: Callable[[], bool] = field(default=lambda: False)
    """The table has a password (the lobby's message does not say; the host knows)."""
    next_level: Callable[[], str | None] = field(
        default=lambda: "this table cannot change how its bots play"
    )
    """Every bot plays the next level (easy, normal, hard, then easy again) from the next
    hand (what it says, or why not)."""
    toggle_hints: Callable[[], str | None] = field(
        default=lambda: "this table cannot change whether hints are allowed"
    )
    """Allow hints at this table, or turn them off (what it says, or why not)."""


class TuiModel:
    """See the module docstring."""

    def __init__(
        self,
        session: Session,
        *,
        send: Callable[[p.Message], None],
        look: Look | None = None,
        powers: HostPowers | None = None,
        bell: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.send = send
        self.look = look or Look()
        self.powers = powers
        self.bell = bell
        self.clock = clock
        self.cursor = 0
        self.selected: list[int] = []  # cards chosen to lay together, in order
        self.queue: list[int] = []  # cards still to lay of a multi-card play
        self._log = Log()  # the lines under the table (tui/log.py)
        self.overlay: str | None = None  # "help", "chat", "quit", "details"
        self.scroll = 0  # the first line shown of a long overlay (the verdict, the help)
        self.status = ""  # one line of feedback (a refusal, why a card cannot be laid)
        self.hint: Line | None = None
        """The move suggested on h, and why: shown under the prompt until the turn moves on
        or the cursor moves."""
        self.power_said: tuple[str, int] = ("", 0)
        """What the host's last power said, and the hands played then: the host's lobby
        shows it until another hand is played."""
        self.dismissed_hand: int | None = None  # the hand-end screen the player closed
        self.quit = False
        self.said_goodbye = False  # this player said goodbye (q, y): the table did not end
        self.failure: str | None = None  # the connection failed for good: why
        self.lost_since: float | None = None  # the link to the host is down since then
        self.rings = 0  # bells rung (a test can count them)
        self.pending_rows: set[int] = set()  # power rows laid into the pending pick-up
        self.drawn = -1  # the card this seat drew last (for "lay it, or pass")
        self.laid: list[int] = []  # the cards this seat laid this turn
        self._last_face = -1
        self._news_seen = 0
        self._host_log = 0
        self._turn_seq = -1
        self._timer_seen: tuple[int, int] = (-1, 0)  # (seq, timer_ms) of the view last read
        self.timer_since = 0.0  # when that view's timer_ms was read (the clock)
        self.presence = Presence()  # who comes and goes (tui/presence.py)
        self.drawing = 0  # draws left to make of a d that draws until a card can be laid
        self._draw_held = 0  # the cards held when the last of them was sent
        self._choices_seen: tuple[int, ...] = ()  # the choice last offered (a suit, a face)
        self.fingerprint = b""  # the table's certificate fingerprint, once the client pinned it

    # -- what to show ----------------------------------------------------------------------

    @property
    def log(self) -> list[LogLine]:
        """The log's lines, oldest first (at most ``log.LOG_LINES``)."""
        return self._log.lines

    @property
    def screen(self) -> str:
        """``connecting``, ``lobby``, ``table`` (playing or watching), ``over`` (a hand this
        seat played is over, until Enter), ``closed``."""
        s = self.session
        if self.failure is not None:
            return "closed"
        h = s.hand
        if (
            h is not None
            and h.over is not None
            and self.dismissed_hand != h.message.hand_no
            and self.played_last_hand()
        ):
            return "over"  # the result stays up until dismissed, even when the match ended
        if s.closed:
            return "closed"
        if h is not None and h.over is None and s.view is not None:
            return "table"
        if s.lobby is None:
            return "connecting"
        return "lobby"

    @property
    def watching(self) -> bool:
        """No seat at this table now: a spectator, or a player waiting for a seat."""
        return self.session.seat is None

    def played_last_hand(self) -> bool:
        """This client held a seat in the current (or last) hand."""
        v = self.session.view
        h = self.session.hand
        if v is not None:
            return v.seat is not None
        return (
            h is not None
            and bool(self.session.history)
            and self.session.history[-1].seat is not None
        )

    def hand_played(self) -> bool:
        """A hand has been played (or is in play) at this table: this client saw one, or
        the host's lobby counts one (a table carried on with ``--resume``, a spectator)."""
        s = self.session
        lobby = s.lobby
        return s.hand is not None or bool(s.history) or (lobby is not None and lobby.hands > 0)

    def names(self) -> list[str]:
        """The seats' names now (the lobby's)."""
        lobby = self.session.lobby
        return [st.name or f"seat {i + 1}" for i, st in enumerate(lobby.seats)] if lobby else []

    def hand_names(self) -> list[str]:
        """The seats' names when the hand began: a player who has gone since keeps a name."""
        now = self.names()
        h = self.session.hand
        if h is None:
            return now
        return [
            h.names[i] if i < len(h.names) and h.names[i] else (now[i] if i < len(now) else "")
            for i in range(max(len(h.names), len(now)))
        ]

    def hand(self) -> tuple[int, ...]:
        v = self.session.view
        return v.hand if v is not None else ()

    def legal(self) -> tuple[int, ...]:
        v = self.session.view
        return v.legal if v is not None and self.session.my_turn() else ()

    def choices(self) -> list[int]:
        """When the rules ask for a choice instead of a card (a suit, a joker's face), the
        moves to choose from; else empty."""
        v = self.session.view
        if v is None or not self.session.my_turn():
            return []
        if v.phase in (Phase.NAME_SUIT, Phase.NAME_CARD):
            return [m for m in v.legal if m >= SUIT_BASE]
        return []

    def row(self) -> list[int]:
        """What the cursor moves over: the choices, else the hand."""
        return self.choices() or list(self.hand())

    def spot(self) -> Spot | None:
        """Where this seat stands, for the prompt and the reasons (None: no hand on)."""
        v = self.session.view
        if v is None:
            return None
        return Spot(
            v,
            self.session.rules,
            self.hand_names(),
            v.seat,
            self.look,
            frozenset(self.pending_rows),
            self.drawn,
            tuple(self.laid),
        )

    def pointed_reason(self) -> str:
        """Why the card under the cursor cannot be laid (on this seat's turn; else "")."""
        spot = self.spot()
        hand = self.hand()
        if spot is None or not spot.mine or self.choices() or not 0 <= self.cursor < len(hand):
            return ""
        return why_not(hand[self.cursor], spot)

    def seconds_left(self) -> int | None:
        """The turn timer's seconds left now (None: no timer running), rounded up as the away
        countdown is: a 5 s turn shows 5 as it starts and 1 in its last second, 0 only once
        the host's time is up (rounded down it began at 4 and showed 0 for a whole second).

        The view's ``timer_ms`` counts from the moment this model first sees that view —
        whether an :meth:`update` or a redraw comes first (:meth:`_timer_origin`)."""
        ms = self.session.timer_ms
        if not ms:
            return None
        self._timer_origin()
        return max(0, math.ceil(ms / 1000 - (self.clock() - self.timer_since)))

    def _timer_origin(self) -> None:
        """Start the count of a view's ``timer_ms`` when the view is first seen. Set in
        :meth:`update` alone, a redraw between a view's arrival and the next update (the
        screen redraws twice a second while a timer runs) counted the new view's time from
        the update before — the previous turn's — and showed a turn just begun as nearly
        over; and a key pressed later restarted the count from the key."""
        s = self.session
        if (s.seq, s.timer_ms) != self._timer_seen:
            self._timer_seen, self.timer_since = (s.seq, s.timer_ms), self.clock()

    def away(self) -> list[tuple[str, int | None]]:
        """The players away mid-hand, by the latest lobby: each name with the seconds left
        before the host stands in for it, None once its grace is over (:mod:`.presence`)."""
        lobby = self.session.lobby
        if lobby is None or not lobby.playing or self.session.view is None:
            return []
        return self.presence.away(lobby, self.clock())

    def left_seats(self) -> frozenset[int]:
        """The seats whose players said goodbye mid-hand: the host plays them for the rest
        of it (a goodbye gives the seat up; a lost link, in :meth:`away`, only until return)."""
        if self.session.view is None:
            return frozenset()
        return self.presence.left_seats()

    def lost_for(self) -> int | None:
        """Seconds since the link to the host went down (None: it is up)."""
        if self.lost_since is None:
            return None
        return int(self.clock() - self.lost_since)

    # -- news from the session -------------------------------------------------------------

    def update(self) -> None:
        """Take the session's news into the log; keep the cursor in range; lay queued cards."""
        s = self.session
        self._timer_origin()
        for news in s.news[self._news_seen :]:
            self._take(news)
        self._news_seen = len(s.news)
        if self.powers is not None:
            lines, self._host_log = self.powers.arrivals(self._host_log)
            for line in lines:
                self._say(line, "class:warn")
        v = s.view
        if v is not None and not v.pending_kind:
            self.pending_rows.clear()
        choices = tuple(self.choices())
        if choices != self._choices_seen:  # a choice opens: the cursor starts on the best
            self._choices_seen = choices
            if choices:
                self.cursor = preferred_choice(choices, self.hand())
        row = self.row()
        self.cursor = max(0, min(self.cursor, len(row) - 1))
        if not s.my_turn():
            self.drawing = 0  # a d draws on within its own turn only
            self.hint = None
            return
        if self._turn_seq != s.seq:
            self._turn_seq = s.seq
            self._on_turn()
        if self.drawing and len(self.hand()) > self._draw_held and self._fresh():
            self._draw_on()  # the card drawn last is in the hand: draw on, or stop

    def warn(self, text: str) -> None:
        """A warning from the shell's own workings (a wrong password tried at our table)."""
        self._say(text, "class:warn")

    def _say(self, text: str, style: str = "") -> None:
        self._log.say(text, style, self.look)

    def _take(self, news: News) -> None:
        if news.kind == "hand":
            rule = self.look.g.rule
            self._log.new_hand([("class:rule", f"{rule * 2} {news.text} {rule * 24}")], self.look)
            self.selected, self.queue, self.pending_rows = [], [], set()
            self.drawn = self._last_face = -1
            self.laid = []
            self.presence.new_hand()
        elif news.kind == "events" and isinstance(news.data, tuple):
            self._events(news.data)
        elif news.kind == "lobby" and isinstance(news.data, p.LobbyState):
            me = self.session.public_key
            for line in self.presence.lobby(news.data, self.clock(), me):
                self._say(line, "class:dim")
        elif news.kind == "opened" and isinstance(news.data, tuple):
            self._log.opened(news.data, self.look)
        elif news.kind == "verdict" and isinstance(news.data, HandRecord):
            fair = record_fair(news.data)
            if fair is not None:
                self._say(verdict_line(news.data), "class:good" if fair else "class:bad")
        elif news.kind == "reject":
            self.status = news.text
            self.queue = []
        elif news.kind == "chat":
            self._say(news.text, "class:chat")
        elif news.kind == "link":
            self._link(news.text)
        elif news.kind == "paused":  # the host stopped the table to carry it on: we wait
            if self.lost_since is None:
                self.lost_since = self.clock()
            self._say(f"{news.text}: waiting for it to come back (q leaves)", "class:warn")
        elif news.kind == "presence":
            if self.presence.logged(news.data, self.session.seat):  # a return: said once
                self._say(news.text, "class:warn")
        elif news.kind == "voids":
            self._say(news.text, "class:warn")
        elif news.kind == "pin" and isinstance(news.data, bytes):
            self.fingerprint = news.data  # the lobby shows its words whole, at any width
            if self.powers is None:  # a joiner's log keeps whether the pin is new or known;
                self._say(news.text, "class:dim")  # the host's own lobby says it once
        elif news.kind in ("warning", "closed", "welcome", "pin", "over", "seat"):
            self._say(news.text, "class:dim" if news.kind != "warning" else "class:warn")

    def _events(self, events: tuple[tuple[str, int, int], ...]) -> None:
        me = self.session.seat
        for kind, seat, value in events:
            if kind in ("play", "mimic"):
                self._last_face = value
                if kind == "play" and seat == me:
                    self.laid.append(value)
                elif seat == me and self.laid:
                    self.laid[-1] = value  # a joker laid: what may follow is of its face
            elif kind == "turn" and seat == me:
                self.laid = []  # a turn of ours begins
                self.drawing = 0  # and a d of an earlier turn draws no more
            elif kind in ("pickup", "skip") and self._last_face >= 0:
                rules = self.session.rules
                if rules is not None and 0 <= self._last_face < 108:
                    row = tables_for(rules).row_of[self._last_face]
                    if row >= 0:
                        self.pending_rows.add(row)
            elif kind == "draw" and seat == me:
                self.drawn = value
            elif kind == "turn" and seat != me and self.queue:
                left = " ".join(card_text(c, self.look) for c in self.queue)
                self.status = f"{left} not laid: your turn ended"
                self.queue = []
        self._log.tell(events, self.hand_names(), me, self.session.rules, self.look)

    def _link(self, state: str) -> None:
        if state == "lost":
            if self.lost_since is None:
                self.lost_since = self.clock()
                self._say("lost the host: reconnecting…", "class:warn")
        elif state == "back" and self.lost_since is not None:
            took = self.clock() - self.lost_since
            self.lost_since = None
            self._say(f"reconnected to the host after {took:.0f} s", "class:good")

    def _on_turn(self) -> None:
        if self.bell:
            self.rings += 1
        self.status = ""
        self.hint = None  # a hint is for the step it was asked on
        legal = self.legal()
        if self.queue and self.choices():
            # A card of the marked play names a suit (or a joker its card) before the next is
            # laid: the player chooses, then the marked cards go on (two Aces marked in Black
            # 5 sent only the first: the suit choice took the next card's place and failed).
            nxt = self.queue[0]
            rest = " ".join(card_text(c, self.look) for c in self.queue)
            self.status = f"after your choice, {rest} is laid as marked"
            self._choose_for(nxt)
            return
        if self.queue:  # the rest of a multi-card play
            nxt = self.queue.pop(0)
            if nxt in legal:
                self._play(nxt)
                return
            spot = self.spot()
            why = why_not(nxt, spot) if spot is not None else ""
            self.status = f"{card_text(nxt, self.look)} not laid" + (f": {why}" if why else "")
            self.queue = []
        hand = self.hand()
        if not self.choices():  # put the cursor on a card that can be played
            if 0 <= self.cursor < len(hand) and hand[self.cursor] in legal:
                return
            for i, c in enumerate(hand):
                if c in legal:
                    self.cursor = i
                    break

    # -- keys ------------------------------------------------------------------------------

    def left(self) -> None:
        self.cursor = max(0, self.cursor - 1)
        self.hint = None  # the line under the prompt says why the card pointed at cannot go

    def right(self) -> None:
        self.cursor = min(len(self.row()) - 1, self.cursor + 1) if self.row() else 0
        self.hint = None

    def enter(self) -> None:
        screen = self.screen
        if screen == "over":
            h = self.session.hand
            if h is not None:
                self.dismissed_hand = h.message.hand_no
            if not self.session.closed and self.session.seat is not None:
                self.toggle_ready(True)
            return
        if screen == "lobby":
            self.toggle_ready(True)
            return
        if screen != "table":
            return
        if self.watching:
            self.status = "you are watching this hand"
            return
        if not self.session.my_turn():
            v = self.session.view
            names = self.hand_names()
            who = names[v.turn] if v is not None and 0 <= v.turn < len(names) else "another player"
            self.status = f"it is {who}'s turn"
            return
        row = self.row()
        if not row:
            return
        if self.choices():
            self._play(row[self.cursor])
            return
        if self.selected:
            first, *rest = self.selected
            self.selected, self.queue = [], rest
            self._play(first)
            return
        self._play(row[self.cursor])

    def space(self) -> None:
        """Mark the pointed card to lay after the ones marked before it (or unmark it): only
        a card that can be laid now, or that can follow the last one marked in one turn."""
        if self.screen != "table" or self.choices() or self.watching:
            return
        hand = self.hand()
        if not hand:
            return
        card = hand[self.cursor]
        if card in self.selected:
            self.selected.remove(card)
            self.status = ""
            return
        spot = self.spot()
        if spot is None or not spot.mine:
            self.status = "mark cards on your turn"
            return
        # The engine lays the marked cards one by one on a stand-in of this seat's position and
        # says whether this one may then follow (a 7 marked earlier lets its suit follow).
        why = cannot_mark(self.selected, card, spot)
        if why:
            self.status = why
            return
        self.status = ""
        self.selected.append(card)

    def _choose_for(self, nxt: int) -> None:
        """Point the suit (or joker's card) choice at the marked card ``nxt``'s suit: where the
        turn goes on in the named suit (J28's Jack) that lets it follow, and elsewhere it is
        as good a start as any (the choice is the player's; Enter takes it)."""
        if not 0 <= nxt < JOKER_BASE:
            return
        for i, m in enumerate(self.choices()):
            face = m - MIMIC_BASE if m >= MIMIC_BASE else -1
            if m - SUIT_BASE == (nxt % 52) // 13 or face == nxt % 52:
                self.cursor = i
                return

    def _play(self, move: int) -> None:
        if move not in self.legal():
            spot = self.spot()
            why = why_not(move, spot) if spot is not None and 0 <= move < 108 else ""
            self.status = why or f"{move_text(move, self.look)} is not a legal move now"
            return
        self.status = ""
        self.send(self.session.move(move))

    def draw(self) -> None:
        """d: draw a card — or, where the rules draw until a card can be laid, draw on by
        itself, a card a step, until one can (one key, not a key per card; the log shows the
        run of cards drawn on one line)."""
        rules = self.session.rules
        v = self.session.view
        pending = v is not None and bool(v.pending_kind)  # a pick-up is one move, not a draw
        if rules is not None and rules.play.draw == "until_playable" and not pending:
            self.drawing = DRAW_ON_BOUND if DRAW in self.legal() else 0
        self._draw_held = len(self.hand())
        self._special(DRAW, "you cannot draw now")

    def _draw_on(self) -> bool:
        """Draw the next card of a d that draws until playable (see :meth:`draw`); False once
        a card can be laid, the draw is no longer legal, or a drawn card is not yet readable
        (dealer-blind: its keys still to come) — then the player decides."""
        legal = self.legal()
        hand = self.hand()
        readable = all(0 <= c < MAX_CARD for c in hand)
        if self.drawing <= 0 or DRAW not in legal or not readable or any(c in legal for c in hand):
            self.drawing = 0
            return False
        self.drawing -= 1
        self._draw_held = len(hand)
        self._play(DRAW)
        return True

    def _fresh(self) -> bool:
        """The view on screen is of the latest step: the host's events come before the view
        they make, and a draw decided on the view before would draw one card too many. (A
        draw also takes steps before its card is dealt: :meth:`update` waits for the card.)"""
        shown = self.session.shown()
        return not isinstance(shown, p.SeatView) or shown.seq == self.session.seq

    def pass_turn(self) -> None:
        self._special(PASS, "you cannot pass now")

    def call_last(self) -> None:
        self._special(CALL_LAST, "no last-card call is open now (it is, from two cards down)")

    def call_two(self) -> None:
        self._special(CALL_TWO, "no peanuckle call is open now")

    def _special(self, move: int, refusal: str) -> None:
        if self.screen != "table" or self.watching:
            return
        if not self.session.my_turn():
            self.status = "wait for your turn"
        elif move in self.legal():
            self._play(move)
        else:
            self.status = refusal + self._instead()

    def _instead(self) -> str:
        """What the player may do instead of a refused draw, pass or call."""
        legal = self.legal()
        cards = [m for m in legal if m in self.hand()]
        ways = []
        if cards:
            ways.append("lay a card")
        if DRAW in legal:
            ways.append("d draws")
        if PASS in legal:
            ways.append("p passes")
        return f": {', '.join(ways)}" if ways else ""

    def ask_hint(self) -> None:
        """h: the move the heuristic bot would make here, and why (:mod:`lanswitch.hint`,
        from this seat's own view), with the cursor on it where it is a card or a choice —
        where the host allows hints at this table."""
        if self.screen != "table" or self.watching:
            return
        s = self.session
        lobby = s.lobby
        if lobby is not None and not lobby.hints:
            self.status = (
                "you have turned hints off at this table (H in the lobby turns them on)"
                if self.powers is not None
                else "the host has turned hints off at this table"
            )
            return
        v = s.view
        if v is None or not s.my_turn():
            # Not whose turn it is: the line stays while the turn moves on, and a name in it
            # contradicted the seats' marker a moment later (the newcomer pass).
            self.status = "a hint is for your turn: press h again when it comes"
            return
        if s.rules is None:
            self.status = "no hint yet: the table's rules have not come"
            return
        suggested = hint(v, s.rules, self.hand_names())
        if suggested is None:
            self.status = "no hint now"
            return
        row = self.row()
        if suggested.move in row:
            self.cursor = row.index(suggested.move)
        self.status = ""
        self.hint = suggested.line

    def toggle_ready(self, value: bool | None = None) -> None:
        s = self.session
        lobby = s.lobby
        if lobby is None or s.seat is None:
            self.status = "you have no seat: you are watching" if s.spectate else "wait for a seat"
            return
        ready = (not lobby.seats[s.seat].ready) if value is None else value
        self.send(p.Ready(ready=ready))

    def chat(self, text: str) -> None:
        text = text.strip()
        if text:
            self.send(p.Chat(text=text[:500]))

    def host_power(self, name: str) -> None:
        if self.powers is None:
            self.status = "only the host can do that"
            return
        result = getattr(self.powers, name)()
        if result and not self.hand_played():  # "the bots play hard", before the first hand
            result = result.replace(FROM_NEXT_HAND, "")
        self.status = result or ""
        lobby = self.session.lobby
        self.power_said = (self.status, -1 if lobby is None else lobby.hands)
        if name == "start":
            self.toggle_ready(True)

    def between_hands(self, why: str) -> None:
        """A key of the lobby, pressed during a hand: it does nothing there, and says why."""
        self.status = why

    def open(self, overlay: str) -> None:
        self.overlay = overlay
        self.scroll = 0

    def scroll_by(self, lines: int) -> None:
        self.scroll = max(0, self.scroll + lines)


DRAW_ON_BOUND = 108
"""At most this many draws of one d (a deck and a half): the stock is refilled from the pile,
and a hand that cannot lay might otherwise draw on while the pile lasts."""


def preferred_choice(choices: Sequence[int], hand: Sequence[int]) -> int:
    """Where the cursor starts when the rules ask for a choice: on the suit (or a face of the
    suit) the player holds most of among the cards left in hand, ties going to the first in
    the fixed suit order (♣ ♦ ♥ ♠); a choice of no suit counts as none held. Always an index of
    ``choices`` (0 when there are none)."""
    held = [0, 0, 0, 0]
    for card in hand:
        if 0 <= card < JOKER_BASE:
            held[(card % 52) // 13] += 1

    def suit_of(move: int) -> int | None:
        if SUIT_BASE <= move < SUIT_BASE + 4:
            return move - SUIT_BASE
        if MIMIC_BASE <= move < MIMIC_BASE + 52:
            return (move - MIMIC_BASE) // 13
        return None

    best, best_key = 0, (-1, 0)
    for i, move in enumerate(choices):
        suit = suit_of(move)
        key = (held[suit] if suit is not None else 0, -(suit if suit is not None else 4))
        if key > best_key:
            best, best_key = i, key
    return best


def special_moves(legal: tuple[int, ...]) -> list[int]:
    """The moves that are not cards or choices: draw, pass, the calls."""
    return [m for m in (DRAW, PASS, CALL_LAST, CALL_TWO) if m in legal]
