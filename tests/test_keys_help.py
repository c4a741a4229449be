"""``? help`` against the keys, screen by screen (issue 26): the help lists the keys a person
reads there, and each is pressed through the application's own key bindings to see that it
acts; every other key of the key table is pressed too, to see that none that acts is left out.

The screens: the lobby (a player, the host's player, a spectator), a hand (the player to
act, a player waiting, a spectator watching), and between hands (the player's end-of-hand
screen, the spectator's lobby). The table runs in process (``tests/tablenet.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.application.current import set_app
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys

from lanswitch import protocol as p
from lanswitch.game import DRAW
from lanswitch.host import HostConfig
from lanswitch.rules import PRESETS
from lanswitch.tui.app import TuiApp
from lanswitch.tui.keys import KEYS
from lanswitch.tui.model import HostPowers, TuiModel
from lanswitch.tui.pages import help_lines
from tests.tablenet import Link, TableNet

_PRESS = {"enter": Keys.ControlM, "left": Keys.Left, "right": Keys.Right, "space": " "}


class Person:
    """A person at the table: a session, the model and the real application at it. What the
    model sends reaches the host only while ``forward`` is on (while the test plays); else it
    is only recorded, so pressing a key to see whether it acts changes nothing at the table."""

    def __init__(self, net: TableNet, link: Link, *, host: bool = False) -> None:
        self.net, self.link = net, link
        self.forward = True
        self.sent: list[p.Message] = []
        self.powers_used: list[str] = []
        powers = self._powers() if host else None
        self.model = TuiModel(link.session, send=self._send, powers=powers)
        self.app = TuiApp(self.model)
        self.app.refresh()

    def _send(self, message: p.Message) -> None:
        self.sent.append(message)
        if self.forward:
            self.net.send(self.link, message)

    def _powers(self) -> HostPowers:
        def power(name: str) -> Callable[[], str | None]:
            def use() -> str | None:
                self.powers_used.append(name)
                return f"{name} used"

            return use

        return HostPowers(
            power("add_bot"),
            power("remove_bot"),
            power("next_rules"),
            power("start"),
            toggle_blind=power("toggle_blind"),
            next_level=power("next_level"),
            toggle_hints=power("toggle_hints"),
        )

    def listed(self) -> set[str]:
        """The keys the help names, read as a person reads its key lines (the lines before
        the first blank one): "d draw" is d, "b/x bot +/-" is b and x, "←/→ move" the arrows,
        "Enter lay" enter; a letter is itself ("H hints…" is H, not h)."""
        self.model.update()
        names: set[str] = set()
        arrows = dict(zip(self.model.look.g.arrows.split("/"), ("left", "right"), strict=True))
        for line in help_lines(self.model):
            said = "".join(frag[1] for frag in line).strip()
            if not said:
                break
            for name in said.split(" ")[0].split("/"):
                names.add(arrows.get(name, name if len(name) == 1 else name.lower()))
        return names

    def press(self, key: str) -> bool:
        """Press ``key`` through the application's key bindings; whether it did anything a
        person can tell (a page or question opened, a line said, a message sent, the cursor or
        the marks moved, the end-of-hand screen closed, a host's power used). What it did is
        undone after, and nothing it sent reached the host."""
        m = self.model
        m.update()
        m.overlay, m.status = None, ""
        if len(m.row()) > 2:
            m.cursor = 1  # the cursor can move either way
        forward, self.forward = self.forward, False
        before, dismissed = self._seen(), m.dismissed_hand
        asyncio.run(self._keypress(key))
        acted = self._seen() != before
        if m.overlay is not None:  # a page, a question or the chat line: Esc closes it
            asyncio.run(self._keypress(Keys.Escape))
        m.overlay, m.status, m.selected, m.queue, m.drawing = None, "", [], [], 0
        m.dismissed_hand = dismissed
        self.forward = forward
        return acted

    async def _keypress(self, key: str) -> None:
        # As a terminal's key reaches the running application: its key processor, which
        # runs the binding whose filter is on (a timer task of its own wants a loop).
        kp = self.app.app.key_processor
        with set_app(self.app.app):
            kp.feed(KeyPress(_PRESS.get(key, key)))
            kp.process_keys()

    def _seen(self) -> tuple[object, ...]:
        m = self.model
        return (
            m.overlay,
            m.status,
            len(self.sent),
            m.cursor,
            tuple(m.selected),
            m.dismissed_hand,
            len(self.powers_used),
        )

    def check(self, screen: str) -> set[str]:
        """On ``screen``: the help lists exactly the keys that act. Returns them."""
        assert self.model.screen == screen, (self.model.screen, screen)
        listed = self.listed()
        every = {name for key in KEYS for name in key.keys}
        assert listed <= every, listed - every  # the help names no key the table lacks
        acting = {name for name in sorted(every) if self.press(name)}
        assert listed == acting, (
            screen,
            f"listed but does nothing: {sorted(listed - acting)}",
            f"acts but not listed: {sorted(acting - listed)}",
        )
        return listed


def test_help_lists_exactly_the_keys_that_act_on_each_screen() -> None:
    """Issue 26: in the lobby ``?`` listed ``n`` (peanuckle), ``Enter lay`` and ``d draw``,
    keys of a hand that do nothing there; in a hand it listed the lobby's keys."""
    rules = PRESETS["peanuckle"]  # a call of each kind: l and n both act in a hand
    config = HostConfig(name="T", rules=rules, seats=3, bots=1, bot_delay=0.0, hands=None)
    net = TableNet(config, seed=5)
    ann = Person(net, net.join("ann", auto_ready=False, bot=None), host=True)
    bob = Person(net, net.join("bob", auto_ready=True))
    eve = Person(net, net.join("eve", spectate=True, bot=None))
    for person in (ann, bob, eve):
        person.model.update()

    chat_help_leave = {"c", "?", "q"}
    lobby = {"enter", "r", "b", "x", "g", "s", "f", "k", "H"}  # k: the bots' level; H: hints
    assert ann.check("lobby") == lobby | chat_help_leave
    assert bob.check("lobby") == {"enter", "r"} | chat_help_leave
    assert eve.check("lobby") == chat_help_leave

    ann.model.toggle_ready()
    net.run(lambda: ann.model.session.my_turn(), steps=20_000)
    for person in (ann, bob, eve):
        person.model.update()
    playing = {"left", "right", "enter", "space", "d", "p", "l", "n", "m", "h"} | chat_help_leave
    assert ann.check("table") == playing | {"H"}  # to act; H says hints wait for the lobby
    assert not bob.model.session.my_turn()
    assert bob.check("table") == playing  # waiting: each says whose turn it is
    assert eve.check("table") == {"m"} | chat_help_leave  # watching

    for _ in range(20_000):  # ann plays the hand out
        ann.model.update()
        if ann.model.screen == "over":
            break
        if ann.model.session.my_turn():
            legal = ann.model.legal()
            if ann.model.choices():
                ann.model.enter()
            elif any(c in legal for c in ann.model.hand()):
                ann.model.cursor = next(i for i, c in enumerate(ann.model.hand()) if c in legal)
                ann.model.enter()
            elif DRAW in legal:
                ann.model.draw()
            else:
                ann.model.pass_turn()
        net.step()
    eve.model.update()
    assert ann.check("over") == {"enter", "v", "m"} | chat_help_leave
    assert eve.check("lobby") == chat_help_leave  # a spectator has no end-of-hand screen
