"""The terminal client's state, apart from prompt_toolkit: which screen, the cursor, the
selection, the log, and what each key does.

:class:`TuiModel` wraps the :class:`~lanswitch.session.Session` (what the table is) with what
only the screen needs (where the cursor is). Keys call its methods; they send messages through
the ``send`` callable the shell gives it (the :class:`~lanswitch.client.Client`'s). Tests drive
it directly, without a terminal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import protocol as p
from ..game import CALL_LAST, CALL_TWO, DRAW, PASS, SUIT_BASE, Phase
from ..session import HandRecord, News, Session, named
from .render import Look, StyledText, card_style, card_text, move_text, suit_text

__all__ = ["HostPowers", "TuiModel", "special_moves", "verdict_line"]

LOG_LINES = 500


@dataclass
class HostPowers:
    """What the player who hosts the table may do from the lobby (local calls on the host)."""

    add_bot: Callable[[], str | None]
    remove_bot: Callable[[], str | None]
    next_rules: Callable[[], str | None]
    start: Callable[[], str | None]


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
    ) -> None:
        self.session = session
        self.send = send
        self.look = look or Look()
        self.powers = powers
        self.bell = bell
        self.cursor = 0
        self.selected: list[int] = []  # cards chosen to lay together, in order
        self.queue: list[int] = []  # cards still to lay of a multi-card play
        self.log: list[StyledText] = []
        self.overlay: str | None = None  # "help", "chat", "quit", "details"
        self.status = ""  # one line of feedback (a refusal, a hint)
        self.dismissed_hand: int | None = None  # the hand-end screen the player closed
        self.quit = False
        self.failure: str | None = None  # the connection failed for good: why
        self.rings = 0  # bells rung (a test can count them)
        self._news_seen = 0
        self._turn_seq = -1
        self._timer_seen: tuple[int, int] = (-1, 0)  # (seq, timer_ms) of the view last read
        self.timer_since = 0.0  # when that view's timer_ms was read (time.monotonic)
        self._seats: tuple[p.LobbySeat, ...] | None = None  # the lobby last seen

    # -- what to show ----------------------------------------------------------------------

    @property
    def screen(self) -> str:
        s = self.session
        if self.failure is not None:
            return "closed"
        h = s.hand
        # The last hand's result stays up until dismissed, even when the match then ended.
        if h is not None and h.over is not None and self.dismissed_hand != h.message.hand_no:
            return "over"
        if s.closed:
            return "closed"
        lobby = s.lobby
        if h is not None and h.over is None and s.view is not None:
            return "table"
        if lobby is None:
            return "connecting"
        return "lobby"

    def names(self) -> list[str]:
        lobby = self.session.lobby
        return [st.name or f"seat {i + 1}" for i, st in enumerate(lobby.seats)] if lobby else []

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

    # -- news from the session -------------------------------------------------------------

    def update(self) -> None:
        """Take the session's news into the log; keep the cursor in range; lay queued cards."""
        s = self.session
        if (s.seq, s.timer_ms) != self._timer_seen:
            self._timer_seen, self.timer_since = (s.seq, s.timer_ms), time.monotonic()
        for news in s.news[self._news_seen :]:
            self._take(news)
        self._news_seen = len(s.news)
        row = self.row()
        self.cursor = max(0, min(self.cursor, len(row) - 1))
        if s.my_turn() and self._turn_seq != s.seq:
            self._turn_seq = s.seq
            self._on_turn()

    def _line(self, *parts: tuple[str, str]) -> None:
        self.log.append(list(parts))
        del self.log[:-LOG_LINES]

    def _take(self, news: News) -> None:
        look = self.look
        if news.kind == "hand":
            self._line(("class:rule", "── " + news.text + " " + "─" * 30))
            self.selected, self.queue = [], []
        elif news.kind == "events" and isinstance(news.data, tuple):
            names = self.names()
            for kind, seat, value in news.data:
                who = names[seat] if 0 <= seat < len(names) else ""
                if kind == "play":
                    self._line(
                        ("", f"{who} plays "), (card_style(value, look), card_text(value, look))
                    )
                elif kind == "draw" and value >= 0 and seat == self.session.seat:
                    self._line(("", "you draw "), (card_style(value, look), card_text(value, look)))
                elif kind == "pickup":
                    self._line(("class:warn", f"pick-up on: {value} cards"))
                elif kind == "take":
                    self._line(("class:warn", f"{who} picks up {value}"))
                elif kind == "cancel":
                    self._line(("", f"{who} cancels the pick-up"))
                elif kind == "suit":
                    self._line(("", f"{who} names {suit_text(value, look)}"))
                elif kind == "reverse":
                    self._line(("", "direction reversed"))
                elif kind == "miss":
                    self._line(("class:dim", f"{who} misses a turn"))
                elif kind == "call":
                    self._line(("class:warn", f"{who} calls last card"))
                elif kind == "penalty":
                    self._line(("class:warn", f"{who} is penalised {value}"))
                elif kind == "finish":
                    self._line(("class:good", f"{who} goes out"))
                elif kind == "reshuffle":
                    self._line(("class:dim", f"the discard pile is reshuffled ({value} cards)"))
        elif news.kind == "lobby" and isinstance(news.data, p.LobbyState):
            seats, self._seats = self._seats, news.data.seats
            if seats is not None:
                for line in _comings_and_goings(seats, news.data.seats, self.session.public_key):
                    self._line(("class:dim", line))
        elif news.kind == "verdict" and isinstance(news.data, HandRecord):
            v = news.data.verdict
            if v is not None:
                style = "class:good" if v.fair else "class:bad"
                self._line((style, verdict_line(news.data)))
        elif news.kind == "reject":
            self.status = news.text
            self.queue = []
        elif news.kind == "chat":
            self._line(("class:chat", news.text))
        elif news.kind in ("warning", "closed", "welcome", "pin", "over"):
            self._line(("class:dim" if news.kind != "warning" else "class:warn", news.text))

    def _on_turn(self) -> None:
        if self.bell:
            self.rings += 1
        legal = self.legal()
        if self.queue:  # the rest of a multi-card play
            nxt = self.queue.pop(0)
            if nxt in legal:
                self._play(nxt)
                return
            self.status = f"{card_text(nxt, self.look)} cannot be laid now"
            self.queue = []
        hand = self.hand()
        if not self.choices():  # put the cursor on a card that can be played
            if 0 <= self.cursor < len(hand) and hand[self.cursor] in legal:
                return
            for i, c in enumerate(hand):
                if c in legal:
                    self.cursor = i
                    break

    def seconds_left(self) -> int | None:
        """The turn timer's seconds left now (None: no timer running)."""
        ms = self.session.timer_ms
        if not ms:
            return None
        return max(0, int(ms / 1000 - (time.monotonic() - self.timer_since)))

    # -- keys ------------------------------------------------------------------------------

    def left(self) -> None:
        self.cursor = max(0, self.cursor - 1)

    def right(self) -> None:
        self.cursor = min(len(self.row()) - 1, self.cursor + 1) if self.row() else 0

    def enter(self) -> None:
        screen = self.screen
        if screen == "over":
            h = self.session.hand
            if h is not None:
                self.dismissed_hand = h.message.hand_no
            if not self.session.closed:
                self.toggle_ready(True)
            return
        if screen != "table":
            return
        if not self.session.my_turn():
            self.status = "it is not your turn"
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
        if self.screen != "table" or self.choices():
            return
        hand = self.hand()
        if not hand:
            return
        card = hand[self.cursor]
        if card in self.selected:
            self.selected.remove(card)
        else:
            self.selected.append(card)

    def _play(self, move: int) -> None:
        if move not in self.legal():
            self.status = f"{move_text(move, self.look)} is not a legal move now"
            return
        self.status = ""
        self.send(self.session.move(move))

    def draw(self) -> None:
        self._special(DRAW, "you cannot draw now")

    def pass_turn(self) -> None:
        self._special(PASS, "you cannot pass now")

    def call_last(self) -> None:
        self._special(CALL_LAST, "you cannot call last card now")

    def call_two(self) -> None:
        self._special(CALL_TWO, "you cannot call peanuckle now")

    def _special(self, move: int, refusal: str) -> None:
        if self.screen != "table":
            return
        if move in self.legal():
            self._play(move)
        else:
            self.status = refusal

    def toggle_ready(self, value: bool | None = None) -> None:
        s = self.session
        lobby = s.lobby
        if lobby is None or s.seat is None:
            self.status = "take a seat first"
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
        self.status = result or ""
        if name == "start":
            self.toggle_ready(True)


def _comings_and_goings(
    before: Sequence[p.LobbySeat], after: Sequence[p.LobbySeat], me: bytes
) -> list[str]:
    """What the other players did between two lobby states, a line each: took a seat, went
    away (their connection dropped), came back, left. Bots coming and going are the host's
    business, and shown in the seat list."""
    lines = []
    for i, (old, new) in enumerate(zip(before, after, strict=False)):
        if new.key == me and new.key:
            continue
        was = bool(old.name) and not old.bot
        now = bool(new.name) and not new.bot
        if was and (not now or old.key != new.key):
            lines.append(f"{old.name} left")
        if now and (not was or old.key != new.key):
            lines.append(f"{new.name} takes seat {i + 1}")
        elif now and old.connected and not new.connected:
            lines.append(f"{new.name} is away")
        elif now and not old.connected and new.connected:
            lines.append(f"{new.name} is back")
    return lines


def verdict_line(record: HandRecord) -> str:
    """The verdict under a hand's result: a few words, with the players' names."""
    v = record.verdict
    if v is None:
        return f"hand {record.hand_no}: no transcript (watching)"
    if v.fair:
        caveats = "".join(f"; {c}" for c in v.caveats())
        line = f"hand {record.hand_no}: deal verified: fair, every card legal{caveats}"
    else:
        who = ", ".join(v.culprits) or "nobody"
        line = f"hand {record.hand_no}: {v.status.upper()}: {v.reason} (blame {who})"
    return named(line, record.names)


def special_moves(legal: tuple[int, ...]) -> list[int]:
    """The moves that are not cards or choices: draw, pass, the calls."""
    return [m for m in (DRAW, PASS, CALL_LAST, CALL_TWO) if m in legal]
