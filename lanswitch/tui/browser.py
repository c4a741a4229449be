"""The table browser: the tables heard on the LAN, live, and a way to type an address.

``lanswitch join`` with no table opens it. The list is the zeroconf browser's, redrawn as
tables come and go; Enter joins the highlighted table, ``s`` watches it, ``a`` asks for
``HOST:PORT`` (for networks that block multicast DNS), ``q`` leaves. A table that needs a
password is marked with a lock; choosing it asks for the password (typed, not shown) before
anything is sent to the table.

Every answer is a row of its own (:meth:`lanswitch.discovery.TableBrowser.answers`), with its
fingerprint words: when two machines answer for one name, both rows show, marked, and the
player picks by the words the host's screen shows. Whatever came from the network is printed
through :func:`lanswitch.textsafe.escape` (prompt_toolkit shows C0 and C1 controls as ``^[``
and ``<9b>`` itself, but draws bidi and zero-width characters as they are).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.processors import PasswordProcessor

from ..client import Target
from ..discovery import Table, TableBrowser, conflicts
from ..settings import parse_target
from ..textsafe import escape
from ..tls import address_pin_key, fingerprint_words, parse_fingerprint
from .app import ESCAPE_WAIT, build_style
from .render import Look, StyledText

__all__ = ["Choice", "TableList", "browse"]


@dataclass(frozen=True, slots=True)
class Choice:
    """What the player picked: where, whether to watch, and the password typed (if asked)."""

    target: Target
    spectate: bool
    password: str | None = None


class TableList:
    """The browser's state: the tables, the cursor, the address being typed."""

    def __init__(self) -> None:
        self.tables: list[Table] = []
        self.cursor = 0
        self.typing = False
        self.asking: Choice | None = None  # a locked table chosen: its password is typed
        self.status = ""
        self.choice: Choice | None = None

    def update(self, tables: Sequence[Table]) -> None:
        """The answers heard now; the cursor stays on the answer it was on."""

        def ident(t: Table) -> tuple[str, str, int]:
            return (t.name, t.fingerprint, t.port)

        current = ident(self.tables[self.cursor]) if self.tables else None
        self.tables = sorted(tables, key=lambda t: (t.name.casefold(), t.fingerprint, t.port))
        idents = [ident(t) for t in self.tables]
        self.cursor = idents.index(current) if current in idents else 0

    def pick(self, spectate: bool) -> bool:
        if not self.tables:
            self.status = "no table yet: wait, or press a to type an address"
            return False
        table = self.tables[self.cursor]
        chosen = Choice(Target.from_table(table), spectate)
        if table.locked:  # the password first: see password()
            self.asking = chosen
            self.status = ""
            return False
        self.choice = chosen
        return True

    def password(self, text: str) -> bool:
        """The password typed for the locked table chosen (an empty one is asked again)."""
        if self.asking is None:
            return False
        if not text:
            self.status = "type the table's password (ask its host), or Esc to go back"
            return False
        self.choice = Choice(self.asking.target, self.asking.spectate, text)
        self.asking = None
        return True

    def address(self, text: str) -> bool:
        try:
            addr = parse_target(text.strip())
        except ValueError as e:
            self.status = str(e)
            return False
        if addr is None:
            self.status = f"{text.strip()!r} is not HOST:PORT"
            return False
        host, port = addr
        pin_as = address_pin_key(host, port)  # per HOST:PORT: one machine, several tables
        self.choice = Choice(Target(text.strip(), (host,), port, None, pin_as), False)
        return True

    def render(self, look: Look) -> StyledText:
        out: StyledText = [("class:title", "\n  Tables on this network\n\n")]
        if not self.tables:
            out.append(("class:dim", f"  listening{look.g.more} (none heard yet)\n"))
        clashing = {id(t) for ts in conflicts(self.tables).values() for t in ts}
        for i, t in enumerate(self.tables):
            try:
                words = fingerprint_words(parse_fingerprint(t.fingerprint))
            except ValueError:
                words = "(no fingerprint)"
            free = "?" if t.seats_free is None else t.seats_free
            total = "?" if t.seats_total is None else t.seats_total
            style = "class:cursor" if i == self.cursor else ""
            seats = f"{free} of {total} seats free"
            name, host, rules = escape(t.name)[:24], escape(t.host)[:12], escape(t.rules)[:12]
            mark = "!" if id(t) in clashing else " "
            line = f" {mark}{name:<24} {host:<12} {rules:<12} {seats}"
            out.append((style, line))
            # The words on a line of their own, with the mark of a dealer-blind table: the
            # row above is ~70 columns already, and one line of both wrapped anywhere at 80.
            blind = f"{look.g.sep}dealer-blind" if t.blind else ""
            lock = f"{look.g.sep}{_LOCK[look.ascii]} password" if t.locked else ""
            out.append(("class:dim", f"\n     {words}{blind}{lock}\n"))
        if clashing:
            out.append(
                (
                    "class:dim",
                    "\n  ! tables with different fingerprints answer to one name: one may be "
                    "pretending to be another.\n    Join the one whose words the host's screen "
                    "shows.\n",
                )
            )
        out.append(("", "\n"))
        return out


_LOCK = {False: "\N{LOCK}", True: "[locked]"}
"""The mark of a table that needs a password (ASCII: a word)."""


async def browse(
    *, look: Look, interfaces: Sequence[str] | None = None, name: str = ""
) -> Choice | None:
    """Show the browser until the player picks a table (None: they left)."""
    state = TableList()
    buffer = Buffer(multiline=False)
    kb = KeyBindings()
    secret = Buffer(multiline=False)  # the password of a locked table
    browsing = Condition(lambda: not state.typing and state.asking is None)
    typing = Condition(lambda: state.typing)
    asking = Condition(lambda: state.asking is not None)

    @kb.add("up", filter=browsing)
    def _up(event: KeyPressEvent) -> None:
        state.cursor = max(0, state.cursor - 1)

    @kb.add("down", filter=browsing)
    def _down(event: KeyPressEvent) -> None:
        state.cursor = min(len(state.tables) - 1, state.cursor + 1) if state.tables else 0

    def chose(event: KeyPressEvent, spectate: bool) -> None:
        if state.pick(spectate):
            event.app.exit()
        elif state.asking is not None:
            secret.reset()
            event.app.layout.focus(secret)

    @kb.add("enter", filter=browsing)
    def _join(event: KeyPressEvent) -> None:
        chose(event, False)

    @kb.add("s", filter=browsing)
    def _watch(event: KeyPressEvent) -> None:
        chose(event, True)

    @kb.add("enter", filter=asking)
    def _password(event: KeyPressEvent) -> None:
        if state.password(secret.text):
            event.app.exit()

    @kb.add("a", filter=browsing)
    def _type(event: KeyPressEvent) -> None:
        state.typing = True
        event.app.layout.focus(buffer)

    @kb.add("enter", filter=typing)
    def _typed(event: KeyPressEvent) -> None:
        if state.address(buffer.text):
            event.app.exit()

    @kb.add("escape", eager=True)  # at once: see app.py
    def _cancel(event: KeyPressEvent) -> None:
        if state.typing:
            state.typing = False
            buffer.reset()
        if state.asking is not None:
            state.asking = None
            state.status = ""
            secret.reset()

    @kb.add("q", filter=browsing)
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    sep = look.g.sep
    hint = " " + sep.join(
        (f"{look.g.updown} choose", "Enter join", "s watch", "a address", "q leave")
    )
    app: Application[None] = Application(
        layout=Layout(
            HSplit(
                [
                    Window(
                        FormattedTextControl(
                            lambda: [("class:title", f"lanswitch{look.g.sep}{name}")]
                        ),
                        height=1,
                    ),
                    Window(FormattedTextControl(lambda: state.render(look)), wrap_lines=True),
                    ConditionalContainer(
                        HSplit(
                            [
                                Window(
                                    FormattedTextControl("  HOST:PORT (Enter joins, Esc back): "),
                                    height=1,
                                ),
                                Window(BufferControl(buffer), height=1),
                            ]
                        ),
                        filter=typing,
                    ),
                    ConditionalContainer(
                        HSplit(
                            [
                                Window(
                                    FormattedTextControl(
                                        lambda: (
                                            "  Password for "
                                            + (
                                                escape(state.asking.target.label)[:24]
                                                if state.asking
                                                else ""
                                            )
                                            + " (Enter joins, Esc back): "
                                        )
                                    ),
                                    height=1,
                                ),
                                Window(
                                    BufferControl(secret, input_processors=[PasswordProcessor()]),
                                    height=1,
                                ),
                            ]
                        ),
                        filter=asking,
                    ),
                    Window(FormattedTextControl(lambda: state.status), height=1),
                    Window(FormattedTextControl(hint), height=1, style="class:hint"),
                ]
            )
        ),
        key_bindings=kb,
        style=build_style(colour=look.colour, four_colour=look.four_colour),
        full_screen=True,
    )
    app.ttimeoutlen = app.timeoutlen = ESCAPE_WAIT

    async with TableBrowser(interfaces=interfaces) as browser:

        async def follow() -> None:
            for _ in range(10**9):
                state.update(browser.answers())
                app.invalidate()
                await asyncio.sleep(0.3)

        watcher = asyncio.create_task(follow())
        try:
            await app.run_async()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
    return state.choice
