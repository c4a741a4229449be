"""The full-screen terminal client (prompt_toolkit): the application, its styles and its keys.

The whole screen is one control (:class:`ScreenControl`) that asks :func:`.layout.compose` for
exactly the lines the window has room for, so the layout degrades as the window shrinks
instead of prompt_toolkit cutting it at the bottom. Below it, while the player types a chat
line, sits the one input line. The keys come from the one table in ``keys.py``, which also
makes the hint bar. The network task calls :meth:`TuiApp.refresh` when a message arrives.

Esc: prompt_toolkit waits ``ttimeoutlen`` after an escape byte to see whether a sequence
follows, and its default bindings (Emacs's Alt-key ones) make a lone Esc wait ``timeoutlen``
more, and read Esc quickly followed by ``d`` as Alt-d. Here the wait is 50 ms and Esc is an
*eager* binding, handled the moment it is read, so the ``d`` after it is a key of its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, UIContent, UIControl
from prompt_toolkit.styles import Style

from .keys import KEYS, Key, acts
from .layout import PAGES, compose
from .model import TuiModel

__all__ = ["ESCAPE_WAIT", "ScreenControl", "TuiApp", "build_style", "colour_wanted"]

ESCAPE_WAIT = 0.05
"""Seconds to wait after an escape byte for the rest of a key's sequence (a terminal sends a
sequence in one go; a person's Esc is a lone byte)."""


def build_style(*, colour: bool = True, four_colour: bool = False) -> Style:
    """The stylesheet. Without colour (``NO_COLOR``) cards and turns keep bold/underline."""
    if not colour:
        return Style.from_dict(
            {
                "turn": "bold",
                "legal": "bold",
                "cursor": "reverse",
                "selected": "underline",
                "hint": "reverse",
                "title": "reverse",
                "advice": "bold",
            }
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
        "title": "reverse",
        "legal": "bold",
        "illegal": "ansibrightblack",
        "cursor": "reverse",
        "selected": "underline",
        "hint": "reverse",
        "status": "ansiyellow",
        "advice": "ansigreen",  # h's suggested move and why
    }
    if four_colour:  # each suit its own colour, for colour-blind players and quick reading
        rules |= {
            "clubs": "ansigreen",
            "diamonds": "ansiblue",
            "hearts": "ansired",
            "spades": "",
        }
    return Style.from_dict(rules)


class ScreenControl(UIControl):
    """The screen: the lines :func:`.layout.compose` makes for the window's size."""

    def __init__(self, draw: Callable[[int, int], list[StyleAndTextTuples]]) -> None:
        self.draw = draw

    def create_content(self, width: int, height: int) -> UIContent:
        lines = self.draw(width, height)
        empty: StyleAndTextTuples = []
        return UIContent(
            get_line=lambda i: lines[i] if i < len(lines) else empty,
            line_count=len(lines),
            cursor_position=Point(0, 0),
            show_cursor=False,
        )

    def is_focusable(self) -> bool:
        return True  # the focus rests here, so that no stray key reaches the chat line


class TuiApp:
    """The prompt_toolkit application around a :class:`TuiModel`. ``title`` leads the title
    bar; ``where`` is the address friends join by (the host's own screen)."""

    def __init__(self, model: TuiModel, *, title: str = "lanswitch", where: str = "") -> None:
        self.model = model
        self.title = title
        self.where = where
        self.chat_buffer = Buffer(multiline=False, accept_handler=self._chat_accept)
        chatting = Condition(lambda: model.overlay == "chat")
        # The screen takes the focus (it is focusable for that alone): a key with no binding
        # goes nowhere. Focused, the hidden chat line took every such key (an x pressed at
        # the table opened the chat box as "x").
        self.screen = Window(ScreenControl(self._draw), wrap_lines=False)
        body = HSplit(
            [
                self.screen,
                ConditionalContainer(
                    Window(
                        BufferControl(self.chat_buffer),
                        height=1,
                        get_line_prefix=lambda n, w: [("class:turn", " say: ")],
                    ),
                    filter=chatting,
                ),
            ]
        )
        style = build_style(colour=model.look.colour, four_colour=model.look.four_colour)
        self.app: Application[None] = Application(
            layout=Layout(body, focused_element=self.screen),
            key_bindings=self._bindings(),
            style=style,
            full_screen=True,
            mouse_support=False,
            color_depth=None,
        )
        self.app.ttimeoutlen = ESCAPE_WAIT
        self.app.timeoutlen = ESCAPE_WAIT

    def _draw(self, cols: int, rows: int) -> list[StyleAndTextTuples]:
        return compose(self.model, cols, rows, title=self.title, where=self.where)

    # -- keys ------------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        model = self.model
        plain = Condition(lambda: model.overlay is None)
        paging = Condition(lambda: model.overlay in PAGES)
        for key in KEYS:
            # A key is bound where it acts (keys.acts), the test the help lists keys by.
            def active(key: Key = key) -> bool:
                return model.overlay is None and acts(key, model)

            def handler(
                event: KeyPressEvent, action: Callable[[TuiModel], None] = key.action
            ) -> None:
                model.status = ""
                action(model)
                if model.overlay == "chat" and not event.app.layout.has_focus(self.chat_buffer):
                    self.chat_buffer.reset()  # every chat line starts empty
                    event.app.layout.focus(self.chat_buffer)
                self.refresh()

            kb.add(*key.keys, filter=Condition(active))(handler)

        @kb.add("escape", eager=True)
        def _close(event: KeyPressEvent) -> None:
            if model.overlay is None:
                return
            if model.overlay == "chat":
                self.chat_buffer.reset()
                event.app.layout.focus(self.screen)
            model.overlay = None
            self.refresh()

        @kb.add("?", filter=Condition(lambda: model.overlay == "help"))
        @kb.add("q", filter=paging)
        @kb.add("enter", filter=paging)
        def _close_page(event: KeyPressEvent) -> None:
            model.overlay = None
            self.refresh()

        @kb.add("down", filter=paging)
        @kb.add("j", filter=paging)
        def _down(event: KeyPressEvent) -> None:
            model.scroll_by(1)

        @kb.add("up", filter=paging)
        @kb.add("k", filter=paging)
        def _up(event: KeyPressEvent) -> None:
            model.scroll_by(-1)

        @kb.add("pagedown", filter=paging)
        @kb.add("space", filter=paging)
        def _page_down(event: KeyPressEvent) -> None:
            model.scroll_by(max(1, event.app.output.get_size().rows - 3))

        @kb.add("pageup", filter=paging)
        def _page_up(event: KeyPressEvent) -> None:
            model.scroll_by(-max(1, event.app.output.get_size().rows - 3))

        @kb.add("y", filter=Condition(lambda: model.overlay == "quit"))
        def _leave(event: KeyPressEvent) -> None:
            model.quit = True
            event.app.exit()

        @kb.add("n", filter=Condition(lambda: model.overlay == "quit"))
        def _stay(event: KeyPressEvent) -> None:
            model.overlay = None

        @kb.add("q", filter=plain & Condition(lambda: model.screen == "closed"))
        @kb.add("enter", filter=plain & Condition(lambda: model.screen == "closed"))
        def _done(event: KeyPressEvent) -> None:
            event.app.exit()

        @kb.add("c-c")
        @kb.add("<sigint>")
        def _interrupt(event: KeyPressEvent) -> None:
            # Ctrl-C is q: it asks first (a hand is not thrown away by one stray key), and a
            # second Ctrl-C, at the question, leaves. The closed table's screen just goes.
            if model.screen == "closed":
                event.app.exit()
                return
            if model.overlay == "quit":
                model.quit = True
                event.app.exit()
                return
            if model.overlay == "chat":
                self.chat_buffer.reset()
                event.app.layout.focus(self.screen)
            model.status = ""
            model.open("quit")
            self.refresh()

        return kb

    def _chat_accept(self, buffer: Buffer) -> bool:
        self.model.chat(buffer.text)
        self.model.overlay = None
        self.app.layout.focus(self.screen)
        return False  # clear the buffer

    def refresh(self) -> None:
        """The session changed (a message came) or a key was handled: redraw."""
        self.model.update()
        self.app.invalidate()


def colour_wanted() -> bool:
    """``NO_COLOR`` (any value) turns colour off (https://no-color.org)."""
    return "NO_COLOR" not in os.environ
