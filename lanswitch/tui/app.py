"""The full-screen terminal client (prompt_toolkit): layout, styles, and the key table.

One table of :class:`Key` rows feeds both the key bindings and the hint bar at the bottom, so
the hints can never disagree with the keys. The screens are drawn by callables over the
:class:`~lanswitch.tui.model.TuiModel`; the network task calls :meth:`TuiApp.refresh` when a
message arrives.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from ..game import Phase
from ..rules import PRESETS
from ..session import named
from .model import TuiModel, special_moves, verdict_line
from .render import (
    PHASE_HINTS,
    StyledText,
    card_style,
    card_text,
    move_text,
    pending_text,
    seat_line,
    suit_text,
)

__all__ = ["KEYS", "Key", "TuiApp", "build_style"]


@dataclass(frozen=True, slots=True)
class Key:
    """One key binding: the keys, the hint shown for it, the screens where it works."""

    keys: tuple[str, ...]
    hint: str
    screens: frozenset[str]
    action: Callable[[TuiModel], None]
    shown: bool = True


_TABLE = frozenset({"table"})
_LOBBY = frozenset({"lobby", "over"})
_ALL = frozenset({"table", "lobby", "over", "connecting", "closed"})

KEYS: tuple[Key, ...] = (
    Key(("left",), "←/→ move", _TABLE, TuiModel.left),
    Key(("right",), "", _TABLE, TuiModel.right, shown=False),
    Key(("enter",), "Enter play", _TABLE, TuiModel.enter),
    Key(("enter",), "Enter next hand", frozenset({"over"}), TuiModel.enter),
    Key(("space",), "Space select", _TABLE, TuiModel.space),
    Key(("d",), "d draw", _TABLE, TuiModel.draw),
    Key(("p",), "p pass", _TABLE, TuiModel.pass_turn),
    Key(("l",), "l last", _TABLE, TuiModel.call_last),
    Key(("n",), "n peanuckle", _TABLE, TuiModel.call_two, shown=False),
    Key(("r",), "r ready", frozenset({"lobby"}), lambda m: m.toggle_ready()),
    Key(("b",), "b/x bot +/-", frozenset({"lobby"}), lambda m: m.host_power("add_bot")),
    Key(("x",), "x remove bot", frozenset({"lobby"}), lambda m: m.host_power("remove_bot"), False),
    Key(("g",), "g rules", frozenset({"lobby"}), lambda m: m.host_power("next_rules")),
    Key(("s",), "s start", frozenset({"lobby"}), lambda m: m.host_power("start")),
    Key(("c",), "c chat", _ALL, lambda m: setattr(m, "overlay", "chat")),
    Key(("v",), "v verdict", frozenset({"over"}), lambda m: setattr(m, "overlay", "details")),
    Key(("?",), "? help", _ALL, lambda m: setattr(m, "overlay", "help")),
    Key(("q",), "q leave", _ALL, lambda m: setattr(m, "overlay", "quit")),
)


def build_style(*, colour: bool = True, four_colour: bool = False) -> Style:
    """The stylesheet. Without colour (``NO_COLOR``) cards and turns keep bold/underline."""
    if not colour:
        return Style.from_dict(
            {"turn": "bold", "legal": "bold", "cursor": "reverse", "selected": "underline"}
        )
    red, black = "ansired", ""
    rules = {
        "hearts": red,
        "diamonds": red,
        "clubs": black,
        "spades": black,
        "joker": "ansimagenta",
        "turn": "bold ansiyellow",
        "me": "bold",
        "dim": "ansibrightblack",
        "warn": "ansiyellow",
        "good": "ansigreen",
        "bad": "bold ansired",
        "rule": "ansibrightblack",
        "chat": "ansicyan",
        "title": "bold",
        "legal": "bold",
        "illegal": "ansibrightblack",
        "cursor": "reverse",
        "selected": "underline",
        "hint": "reverse",
        "status": "ansiyellow",
    }
    if four_colour:  # each suit its own colour, for colour-blind players and quick reading
        rules |= {
            "clubs": "ansigreen",
            "diamonds": "ansiblue",
            "hearts": "ansired",
            "spades": "",
        }
    return Style.from_dict(rules)


class TuiApp:
    """The prompt_toolkit application around a :class:`TuiModel`."""

    def __init__(self, model: TuiModel, *, title: str = "lanswitch") -> None:
        self.model = model
        self.title = title
        self.chat_buffer = Buffer(multiline=False, accept_handler=self._chat_accept)
        kb = self._bindings()
        body = HSplit(
            [
                Window(FormattedTextControl(self._header), height=1, style="class:title"),
                Window(FormattedTextControl(self._body), wrap_lines=False),
                Window(FormattedTextControl(self._status), height=1, style="class:status"),
                Window(FormattedTextControl(self._hints), height=1, style="class:hint"),
            ]
        )
        floats = [
            Float(
                ConditionalContainer(
                    Frame(Window(FormattedTextControl(self._help), width=58), title="keys"),
                    filter=Condition(lambda: model.overlay == "help"),
                )
            ),
            Float(
                ConditionalContainer(
                    Frame(
                        Window(BufferControl(self.chat_buffer), height=1, width=56),
                        title="say (Enter sends, Esc closes)",
                    ),
                    filter=Condition(lambda: model.overlay == "chat"),
                ),
                bottom=3,
            ),
            Float(
                ConditionalContainer(
                    Frame(
                        Window(FormattedTextControl([("", " Leave the table? y / n ")]), height=1),
                        title="leave",
                    ),
                    filter=Condition(lambda: model.overlay == "quit"),
                )
            ),
            Float(
                ConditionalContainer(
                    Frame(Window(FormattedTextControl(self._details), width=70), title="verdict"),
                    filter=Condition(lambda: model.overlay == "details"),
                )
            ),
        ]
        style = build_style(colour=model.look.colour, four_colour=model.look.four_colour)
        self.app: Application[None] = Application(
            layout=Layout(FloatContainer(body, floats=floats)),
            key_bindings=kb,
            style=style,
            full_screen=True,
            mouse_support=False,
            color_depth=None,
        )

    # -- keys ------------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        model = self.model
        no_overlay = Condition(lambda: model.overlay is None)
        for key in KEYS:
            screens = key.screens

            def active(screens: frozenset[str] = screens) -> bool:
                return model.overlay is None and model.screen in screens

            def handler(
                event: KeyPressEvent, action: Callable[[TuiModel], None] = key.action
            ) -> None:
                action(model)
                if model.overlay == "chat":
                    event.app.layout.focus(self.chat_buffer)
                self.refresh()

            kb.add(*key.keys, filter=Condition(active))(handler)

        @kb.add("escape", filter=~no_overlay)
        def _close(event: KeyPressEvent) -> None:
            model.overlay = None
            self.chat_buffer.reset()
            event.app.layout.focus_previous()
            self.refresh()

        @kb.add("?", filter=Condition(lambda: model.overlay == "help"))
        def _close_help(event: KeyPressEvent) -> None:
            model.overlay = None

        @kb.add("y", filter=Condition(lambda: model.overlay == "quit"))
        def _leave(event: KeyPressEvent) -> None:
            model.quit = True
            event.app.exit()

        @kb.add("n", filter=Condition(lambda: model.overlay == "quit"))
        def _stay(event: KeyPressEvent) -> None:
            model.overlay = None

        @kb.add("q", filter=Condition(lambda: model.screen == "closed"))
        @kb.add("enter", filter=Condition(lambda: model.screen == "closed"))
        def _done(event: KeyPressEvent) -> None:
            event.app.exit()

        @kb.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            model.quit = True
            event.app.exit()

        return kb

    def _chat_accept(self, buffer: Buffer) -> bool:
        self.model.chat(buffer.text)
        self.model.overlay = None
        self.app.layout.focus_previous()
        return False  # clear the buffer

    def refresh(self) -> None:
        """The session changed (a message came) or a key was handled: redraw."""
        self.model.update()
        self.app.invalidate()

    # -- drawing ---------------------------------------------------------------------------

    def _header(self) -> StyledText:
        s = self.model.session
        lobby = s.lobby
        parts = [self.title]
        if lobby is not None:
            parts += [lobby.table, lobby.rules]
            if lobby.hands:
                parts.append(f"{lobby.hands} hand{'s' if lobby.hands != 1 else ''} played")
        h = s.hand
        if h is not None and h.over is None:
            parts.append(f"hand {h.message.hand_no}")
        text = " · ".join(parts)
        left = self.model.seconds_left()
        if left is not None and self.model.screen == "table":
            turn = "your" if s.my_turn() else "their"
            text += f"   {turn} time: {left}s"
        return [("class:title", text)]

    def _status(self) -> StyledText:
        return [("class:status", self.model.status)]

    def _hints(self) -> StyledText:
        model = self.model
        screen = model.screen
        shown = []
        for key in KEYS:
            if not key.shown or screen not in key.screens:
                continue
            if key.hint.startswith(("b/", "x ", "g ", "s ")) and model.powers is None:
                continue
            shown.append(key.hint)
        return [("class:hint", " " + " · ".join(shown) + " ")]

    def _body(self) -> StyledText:
        screen = self.model.screen
        if screen == "table":
            return self._table()
        if screen == "over":
            return self._over()
        if screen == "lobby":
            return self._lobby()
        if screen == "closed":
            reason = self.model.session.close_reason
            text = getattr(reason, "reason", "") or getattr(reason, "text", "")
            text = self.model.failure or text
            return [("", f"\n  The table is closed: {text}\n\n  Press Enter to leave.\n")]
        return [("", "\n  Connecting…\n")]

    def _log_tail(self, n: int) -> StyledText:
        out: StyledText = []
        for line in self.model.log[-n:]:
            out += line
            out.append(("", "\n"))
        return out

    def _lobby(self) -> StyledText:
        model = self.model
        s = model.session
        lobby = s.lobby
        assert lobby is not None
        out: StyledText = [("", "\n")]
        rules = s.rules or PRESETS.get(lobby.rules)  # the last hand's, else the preset's
        out.append(("class:title", f"  Rules: {lobby.rules}"))
        if rules is not None and rules.description:
            for line in textwrap.wrap(rules.description, 74)[:3]:
                out.append(("class:dim", f"\n  {line}"))
        out.append(("", "\n\n  Seats\n"))
        for i, seat in enumerate(lobby.seats):
            me = i == s.seat
            name = seat.name or "(free)"
            state = "bot" if seat.bot else ("ready" if seat.ready else "not ready")
            if seat.name and not seat.bot and not seat.connected:
                state = "away"
            if not seat.name:
                state = ""
            score = f"  {lobby.scores[i]:>4} pts" if lobby.scores and i < len(lobby.scores) else ""
            style = "class:me" if me else ("class:dim" if not seat.name else "")
            out.append((style, f"   {i + 1}  {name:<24} {state:<10}{score}"))
            out.append(("class:me", "  (you)\n" if me else "\n"))
        if lobby.spectators:
            out.append(("class:dim", f"\n  {lobby.spectators} watching\n"))
        if s.seat is None:
            out.append(
                ("class:warn", "\n  You are watching; a free seat is given between hands.\n")
            )
        elif not lobby.seats[s.seat].ready:
            out.append(("class:warn", "\n  Press r when you are ready to play.\n"))
        else:
            out.append(
                ("class:good", "\n  Ready. The hand starts when every seat is filled and ready.\n")
            )
        out.append(("", "\n"))
        return out + self._log_tail(8)

    def _table(self) -> StyledText:
        model = self.model
        s = model.session
        v = s.view
        assert v is not None
        look = model.look
        names = model.names()
        out: StyledText = []
        # Seats, in two columns when there are many.
        for seat in range(len(v.counts)):
            out += seat_line(v, s.lobby, seat, look, s.seat)
            out.append(("", "\n" if seat % 2 == 1 or seat == len(v.counts) - 1 else "    "))
        arrow = "clockwise" if v.direction >= 0 else "anticlockwise"
        out.append(("class:dim", f"  play goes {arrow} · stock {v.stock} · pile {v.discard}\n\n"))
        # The top card, the named suit, what is pending.
        out.append(("", "  top: "))
        if v.top >= 0:
            shown = v.top_face if v.top_face >= 0 else v.top
            out.append((card_style(shown, look) + " class:legal", f"[{card_text(v.top, look)}]"))
            if v.top_face >= 0 and v.top_face != v.top:
                out.append(("class:dim", f" as {card_text(v.top_face, look)}"))
        if v.named_suit >= 0:
            out.append(("", "  suit: "))
            out.append((card_style(13 * v.named_suit, look), suit_text(v.named_suit, look)))
        if v.free:
            out.append(("class:dim", "  (any card)"))
        pending = pending_text(v, names)
        if pending:
            out.append(("class:warn", f"   {pending}"))
        out.append(("", "\n\n"))
        out += self._log_tail(7)
        out.append(("", "\n"))
        # The cursor row: choices, or the hand.
        legal = model.legal()
        choices = model.choices()
        if choices:
            out.append(("class:turn", "  choose: "))
            for i, m in enumerate(choices):
                style = "class:cursor" if i == model.cursor else "class:legal"
                out.append((style, f" {move_text(m, look)} "))
                out.append(("", " "))
        else:
            out.append(("", "  hand: "))
            for i, c in enumerate(v.hand):
                style = card_style(c, look)
                style += " class:legal" if c in legal else (" class:illegal" if legal else "")
                if i == model.cursor and s.my_turn():
                    style += " class:cursor"
                if c in model.selected:
                    style += " class:selected"
                mark = "*" if c in model.selected else " "
                out.append((style, f"{mark}{card_text(c, look)}"))
                out.append(("", " "))
        out.append(("", "\n  "))
        if s.my_turn():
            hint = PHASE_HINTS.get(v.phase, "your turn")
            extras = [move_text(m, look) for m in special_moves(legal)]
            out.append(("class:turn", hint))
            if extras and v.phase != Phase.NAME_SUIT:
                out.append(("class:dim", "  (also: " + ", ".join(extras) + ")"))
        elif 0 <= v.turn < len(names):
            out.append(("class:dim", f"{names[v.turn]} to play"))
        return out

    def _over(self) -> StyledText:
        s = self.model.session
        h = s.hand
        assert h is not None
        assert h.over is not None
        over = h.over
        # The names the seats had when the hand began: a player who has gone since is still
        # named in the hand's result.
        names = [
            h.names[i] if i < len(h.names) and h.names[i] else name
            for i, name in enumerate(self.model.names())
        ]
        out: StyledText = [
            ("class:title", f"\n  Hand {h.message.hand_no} is over ({over.reason})\n\n")
        ]
        for place, seat in enumerate(over.placings, 1):
            name = names[seat] if seat < len(names) else f"seat {seat + 1}"
            score = over.scores[seat] if seat < len(over.scores) else 0
            left = over.hand_points[seat] if seat < len(over.hand_points) else 0
            out.append(("class:me" if seat == s.seat else "", f"   {place}. {name:<20}"))
            points = f" {score:>4} points  " if any(over.scores) else ""
            out.append(("class:dim", f"{points} {left:>3} left in hand\n"))
        record = s.history[-1] if s.history and s.history[-1].hand_no == h.message.hand_no else None
        out.append(("", "\n  "))
        if record is None:
            out.append(("class:dim", "checking the deal…" if s.seat is not None else ""))
        else:
            fair = record.verdict is not None and record.verdict.fair
            style = "class:good" if fair else "class:bad"
            # A line a clause: the body does not wrap, and a caveat must not be cut off.
            for k, clause in enumerate(verdict_line(record).split("; ")):
                out.append((style, clause if k == 0 else f";\n    {clause}"))
        out.append(("", "\n\n  Enter: ready for the next hand · v: the verdict in full\n"))
        return out

    def _details(self) -> StyledText:
        s = self.model.session
        record = s.history[-1] if s.history else None
        if record is None or record.verdict is None:
            return [("", "No verdict: you watched this hand.")]
        return [("", named(record.verdict.text(), record.names))]

    def _help(self) -> StyledText:
        lines = [f"  {k.hint}" for k in KEYS if k.hint]
        lines += [
            "  Esc close this",
            "",
            "  Legal cards are bright, the cursor is reversed.",
            "  Space marks cards to lay together, in order;",
            "  Enter lays them one after another.",
        ]
        return [("", "\n".join(lines))]


def colour_wanted() -> bool:
    """``NO_COLOR`` (any value) turns colour off (https://no-color.org)."""
    return "NO_COLOR" not in os.environ
