"""The terminal client in process: prompt_toolkit's pipe input for keys, a VT100 output into a
buffer for what is drawn (colours included), and a real host on loopback TLS behind it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from lanswitch import protocol as p
from lanswitch.client import Target
from lanswitch.game import DRAW, PASS, Phase
from lanswitch.host import Host, HostConfig
from lanswitch.rules import PRESETS
from lanswitch.server import Server
from lanswitch.session import Session
from lanswitch.tls import Identity, load_or_create_identity, server_context
from lanswitch.tui.app import KEYS, TuiApp, build_style
from lanswitch.tui.model import HostPowers, TuiModel
from lanswitch.tui.render import Look, card_text, move_text
from lanswitch.tui.run import run_client
from tests.tablenet import TableNet

LOOPBACK = "127.0.0.1"
ENTER, LEFT, RIGHT = "\r", "\x1b[D", "\x1b[C"


@pytest.fixture(scope="module")
def identity(tmp_path_factory: pytest.TempPathFactory) -> Identity:
    return load_or_create_identity(tmp_path_factory.mktemp("tui-host"))


class Screen:
    """Where the client draws: a VT100 stream into a buffer, 100×30."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()
        self.output = Vt100_Output(
            self.buffer, lambda: Size(rows=30, columns=100), term="xterm-256color"
        )

    def text(self) -> str:
        return self.buffer.getvalue()


async def until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


@dataclass
class Terminal:
    """The terminal client (``run_client``) at a real host on loopback TLS, keys through a pipe."""

    host: Host
    session: Session
    model: TuiModel
    keys: PipeInput
    task: asyncio.Task[Any]

    async def play_by_keys(self, done: Callable[[], bool]) -> int:
        """Press the key that moves the game on at each of our turns until ``done()``; the
        number of keys pressed (bounded: 5,000 looks, 5 ms apart)."""
        pressed, last = 0, -1
        for _ in range(5000):
            if done():
                break
            key = key_for(self.model)
            if key is not None and self.session.seq != last:
                last = self.session.seq
                self.keys.send_text(key)
                pressed += 1
            await asyncio.sleep(0.005)
        return pressed


@contextlib.asynccontextmanager
async def terminal(
    identity: Identity,
    config: HostConfig,
    screen: Screen,
    *,
    now: float | None = None,
    **run: Any,
) -> AsyncIterator[Terminal]:
    """A host for ``config`` served on loopback, and ann's terminal client at it, drawing on
    ``screen``, once it shows the lobby. On leaving: a client still running is cancelled (one
    that failed raises here), then the server is closed."""
    host = Host(config, entropy=os.urandom, now=time.monotonic() if now is None else now)
    server = Server(host, ssl_context=server_context(identity), address=LOOPBACK)
    await server.start()
    try:
        target = Target(config.name, (LOOPBACK,), server.port, identity.fingerprint, "t")
        session = Session("ann", key=Ed25519PrivateKey.generate(), entropy=os.urandom)
        got: dict[str, TuiModel] = {}
        with create_pipe_input() as keys, create_app_session(input=keys, output=screen.output):
            task = asyncio.create_task(
                run_client(
                    session,
                    target,
                    look=Look(),
                    pins=None,
                    on_start=lambda m, t: got.update(m=m),
                    **run,
                )
            )
            try:
                await until(lambda: "m" in got and got["m"].screen == "lobby")
                yield Terminal(host, session, got["m"], keys, task)
            finally:
                if task.done():
                    task.result()  # ended by itself: it must have ended well
                else:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
    finally:
        await server.close()


def key_for(model: TuiModel) -> str | None:
    """The key a player presses to move the game on (None: not our turn)."""
    s = model.session
    if not s.my_turn() or s.view is None:
        return None
    legal = s.view.legal
    if model.choices():
        return ENTER
    hand = s.view.hand
    if any(c in legal for c in hand):
        return ENTER  # the cursor sits on a legal card when the turn comes
    if DRAW in legal:
        return "d"
    if PASS in legal:
        return "p"
    return ENTER


def test_a_whole_hand_played_by_keys(identity: Identity) -> None:
    screen = Screen()

    async def main() -> None:
        config = HostConfig(name="Keys", seats=3, bots=2, bot_delay=0.0, hands=1)
        async with terminal(identity, config, screen) as t:
            t.keys.send_text("r")
            pressed = await t.play_by_keys(lambda: t.model.screen in ("over", "closed"))
            await until(lambda: bool(t.session.history))
            await asyncio.sleep(0.1)  # a frame after the verdict
            assert pressed > 0
            record = t.session.history[0]
            assert record.verdict is not None
            assert record.verdict.fair

    asyncio.run(asyncio.wait_for(main(), 60))
    drawn = screen.text()
    assert "deal verified" in drawn
    assert "Hand 1 is over" in drawn
    assert any(s in drawn for s in "♣♦♥♠")
    assert "\x1b[" in drawn  # styled: colours and reverse video


# ---------------------------------------------------------------------------------------------
# The model and the screens, without sockets (tests/tablenet.py)


def tui_at(net: TableNet, name: str = "ann", **kw: object) -> tuple[TuiModel, TuiApp]:
    link = net.join(name, auto_ready=False, bot=None)
    model = TuiModel(link.session, send=lambda m: net.send(link, m), **kw)  # type: ignore[arg-type]
    app = TuiApp(model)
    app.refresh()
    return model, app


def text(fragments: object) -> str:
    return "".join(t for _, t, *_ in fragments)  # type: ignore[attr-defined]


def test_the_lobby_shows_seats_and_ready_starts_the_hand() -> None:
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=1))
    model, app = tui_at(net)
    assert model.screen == "lobby"
    body = text(app._body())
    assert "ann" in body
    assert "bot 1" in body
    assert "Press r" in body
    assert "r ready" in text(app._hints())
    assert "b/x bot +/-" not in text(app._hints())  # not the host
    model.toggle_ready()
    app.refresh()
    assert model.screen == "table"
    table = text(app._body())
    assert "top: [" in table
    assert "hand:" in table


def test_a_player_who_vanished_mid_hand_keeps_a_name_in_the_result_and_the_verdict() -> None:
    """Bob's program dies mid-hand and the host frees his seat: the result still names him,
    and the verdict's caveat about him gets a line of its own (the body does not wrap)."""
    config = HostConfig(
        name="T", seats=4, bots=2, bot_delay=0.0, hands=None, away_grace=2.0, seat_limit=5.0
    )
    net = TableNet(config, seed=4)
    a, b = net.join("ann", auto_ready=False), net.join("bob")
    model = TuiModel(a.session, send=lambda m: net.send(a, m))
    app = TuiApp(model)
    net.send(a, p.Ready(ready=True))
    net.run(lambda: b.session.seq > 10)
    net.drop(b)
    net.run(lambda: bool(a.session.history))
    net.tick(net.now + 10.0)  # between hands, the host frees the seat of a player who is gone
    model.update()
    app.refresh()
    assert model.screen == "over"
    assert "bob" not in model.names()  # his seat was freed: the lobby no longer has him
    body = text(app._body())
    result, verdict = body.split("deal verified")
    assert "bob" in result
    lines = verdict.splitlines()
    assert lines[0] == ": fair, every card legal;"
    assert lines[1].startswith("    bob lost the link, says the host, at event ")
    assert lines[1].endswith("and the host played the seat after)")


def test_the_log_says_who_takes_a_seat_goes_away_comes_back_and_leaves() -> None:
    net = TableNet(HostConfig(name="T", seats=3, bots=1, bot_delay=0.0, hands=None))
    model, _ = tui_at(net)
    seen = 0

    def said() -> list[str]:
        nonlocal seen
        model.update()
        lines = [text(line) for line in model.log[seen:]]
        seen = len(model.log)
        return [line for line in lines if "bob" in line]

    b = net.join("bob", auto_ready=False)
    assert said() == ["bob takes seat 2"]
    net.drop(b)
    assert said() == ["bob is away"]
    b = net.resume(b)
    assert said() == ["bob is back"]
    net.send(b, p.Bye(reason="bye"))
    assert said() == ["bob left"]
    assert "ann" not in " ".join(text(line) for line in model.log)  # not about oneself


def test_keys_and_hints_come_from_one_table() -> None:
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=1))
    model, app = tui_at(net)
    model.toggle_ready()
    net.run(lambda: model.session.my_turn() or model.session.view is not None)
    app.refresh()
    hints = text(app._hints())
    for key in KEYS:
        if key.shown and "table" in key.screens and key.hint:
            assert key.hint in hints
    help_text = text(app._help())
    assert "d draw" in help_text
    assert "Space select" in help_text


def test_an_illegal_card_is_refused_on_screen_without_a_message() -> None:
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=1), seed=3)
    sent: list[p.Message] = []
    link = net.join("ann", auto_ready=False, bot=None)

    def send(m: p.Message) -> None:
        sent.append(m)
        net.send(link, m)

    model = TuiModel(link.session, send=send)
    model.toggle_ready()
    net.run(lambda: link.session.my_turn())
    model.update()
    v = link.session.view
    assert v is not None
    illegal = [i for i, c in enumerate(v.hand) if c not in v.legal]
    if not illegal:
        pytest.skip("every card is legal in this deal")
    before = len(sent)
    model.cursor = illegal[0]
    model.enter()
    assert len(sent) == before
    assert "not a legal move" in model.status


def test_the_suit_picker_and_multi_card_selection() -> None:
    # Play until a wild asks this seat for a suit; the choices are the four suits.
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=None), seed=5)
    link = net.join("ann", auto_ready=True, bot=None)
    model = TuiModel(link.session, send=lambda m: net.send(link, m))
    seen_choice = False
    for _ in range(3000):
        net.run(lambda: link.session.my_turn(), steps=5000)
        model.update()
        if model.choices():
            seen_choice = True
            assert [move_text(m, model.look) for m in model.choices()] == [
                "name ♣",
                "name ♦",
                "name ♥",
                "name ♠",
            ]
            model.cursor = 2
            model.enter()
            break
        v = link.session.view
        assert v is not None
        playable = [c for c in v.hand if c in v.legal]
        aces = [c for c in playable if c % 13 == 0]
        if aces:
            model.cursor = v.hand.index(aces[0])
            model.enter()
        elif v.phase == Phase.FOLLOW and PASS in v.legal:
            model.pass_turn()
        elif playable:
            model.cursor = v.hand.index(playable[0])
            model.enter()
        else:
            model.draw()
    assert seen_choice
    assert link.session.view is not None
    assert link.session.view.named_suit == 2 or link.session.view.turn != link.session.seat
    model.update()
    said = ["".join(fragment[1] for fragment in line) for line in model.log]
    assert "ann names ♥" in said, said[-5:]  # the suit, said once ("names name ♥" before)


def test_selected_cards_are_laid_in_order() -> None:
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=1), seed=9)
    link = net.join("ann", auto_ready=True, bot=None)
    sent: list[p.Message] = []

    def send(m: p.Message) -> None:
        sent.append(m)
        net.send(link, m)

    model = TuiModel(link.session, send=send)
    net.run(lambda: link.session.my_turn())
    model.update()
    v = link.session.view
    assert v is not None
    first = next(c for c in v.hand if c in v.legal)
    second = next((c for c in v.hand if c != first), first)
    model.cursor = v.hand.index(first)
    model.space()
    model.cursor = v.hand.index(second)
    model.space()
    assert model.selected == [first, second]
    model.space()  # toggles off
    assert model.selected == [first]
    model.cursor = v.hand.index(second)
    model.space()
    model.enter()
    moves = [m.move for m in sent if isinstance(m, p.Move)]
    assert moves[0] == first
    assert model.selected == []
    model.update()  # the rest goes when its turn comes, or is dropped with a word
    assert (
        second in [m.move for m in sent if isinstance(m, p.Move)]
        or model.status
        or not (model.queue)
    )


def test_the_host_powers_and_start() -> None:
    net = TableNet(HostConfig(name="T", seats=4, bots=1, bot_delay=0.0, hands=1))
    host = net.host

    def add() -> str | None:
        free = [s.index for s in host.table.seats if s.kind == "empty"]
        host.add_bot(free[0])
        net.pump()
        return "added"

    def remove() -> str | None:
        host.remove_bot(max(s.index for s in host.table.seats if s.kind == "bot"))
        net.pump()
        return "removed"

    def rules() -> str | None:
        host.set_rules(PRESETS["irish"], "irish")
        net.pump()
        return "irish"

    def start() -> str | None:
        for _ in range(4):
            if any(s.kind == "empty" for s in host.table.seats):
                add()
        return "starting"

    model, app = tui_at(net, powers=HostPowers(add, remove, rules, start))
    assert "b/x bot +/-" in text(app._hints())
    model.host_power("add_bot")
    app.refresh()
    assert text(app._body()).count("bot") >= 2
    model.host_power("remove_bot")
    model.host_power("next_rules")
    app.refresh()
    assert "irish" in text(app._header())
    model.host_power("start")
    app.refresh()
    assert model.screen == "table"


def test_chat_reaches_the_other_players() -> None:
    net = TableNet(HostConfig(name="T", seats=3, bots=1, bot_delay=0.0))
    model, _ = tui_at(net)
    bob = net.join("bob", auto_ready=False, bot=None)
    model.chat("  good luck  ")
    assert any(isinstance(m, p.Chat) and m.text == "good luck" for m in bob.received)


def test_looks_ascii_four_colour_and_no_colour() -> None:
    ascii_look = Look(ascii=True)
    assert card_text(9 + 13 * 2, ascii_look) == "10H"
    assert card_text(9 + 13 * 2, Look()) == "10♥"
    assert card_text(104, Look()) == "JK"
    four = build_style(four_colour=True)
    plain = build_style(colour=False)
    assert any("ansiblue" in str(rule) for rule in four.style_rules)
    assert not any("ansired" in str(rule) for rule in plain.style_rules)


def test_no_color_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    from lanswitch.tui.app import colour_wanted

    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_wanted()
    monkeypatch.delenv("NO_COLOR")
    assert colour_wanted()


def test_the_leave_confirmation(identity: Identity, tmp_path: Path) -> None:
    screen = Screen()

    async def main() -> None:
        async with terminal(identity, HostConfig(name="Q", seats=2, bots=1), screen, now=0.0) as t:
            model, keys = t.model, t.keys
            keys.send_text("q")
            await until(lambda: model.overlay == "quit")
            keys.send_text("n")
            await until(lambda: model.overlay is None)
            keys.send_text("?")
            await until(lambda: model.overlay == "help")
            keys.send_text("\x1b")
            await until(lambda: model.overlay is None, 5)
            keys.send_text("q")
            await until(lambda: model.overlay == "quit")
            keys.send_text("y")
            await asyncio.wait_for(t.task, 10)
            assert model.quit
            await until(lambda: not t.host.conns)  # the host heard the player leave

    asyncio.run(asyncio.wait_for(main(), 60))
    assert "Leave the table?" in screen.text()


def test_the_turn_timer_counts_down_on_screen() -> None:
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, turn_timer=20.0), seed=4)
    model, app = tui_at(net)
    model.toggle_ready()
    net.run(lambda: model.session.my_turn())
    app.refresh()
    header = text(app._header())
    assert "your time: 19s" in header or "your time: 20s" in header
    model.timer_since -= 5  # five seconds pass on the client's clock
    assert "your time: 1" in text(app._header())
    assert model.seconds_left() in (14, 15)


def test_the_bell_rings_once_per_turn() -> None:
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=1), seed=6)
    model, app = tui_at(net, bell=True)
    model.toggle_ready()
    turns: set[int] = set()  # the steps at which this seat was to act
    for _ in range(40):
        net.run(lambda: model.session.my_turn() or net.host.finished, steps=5000)
        if net.host.finished or not model.session.my_turn():
            break
        app.refresh()
        app.refresh()  # a second redraw of the same step rings nothing
        turns.add(model.session.seq)
        assert model.rings == len(turns)
        legal = model.legal()
        cards = [c for c in model.hand() if c in legal]
        if cards:
            model.cursor = list(model.hand()).index(cards[0])
            model.enter()
        elif DRAW in legal:
            model.draw()
        else:
            model.pass_turn()
    assert turns


def test_the_table_browser_lists_tables_and_takes_an_address() -> None:
    from lanswitch.tui.browser import browse

    screen = Screen()

    async def main() -> None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=screen.output):
            task = asyncio.create_task(browse(look=Look(), interfaces=[LOOPBACK], name="ann"))
            await asyncio.sleep(0.3)
            keys.send_text("a")
            await asyncio.sleep(0.1)
            keys.send_text("not an address\r")
            await asyncio.sleep(0.1)
            keys.send_text("\x7f" * 20 + "127.0.0.1:4567\r")
            choice = await asyncio.wait_for(task, 10)
        assert choice is not None
        assert choice.target.addresses == ("127.0.0.1",)
        assert choice.target.port == 4567
        assert choice.target.fingerprint is None
        assert not choice.spectate

    asyncio.run(asyncio.wait_for(main(), 30))
    drawn = screen.text()
    assert "Tables on this network" in drawn
    assert "is not HOST:PORT" in drawn


def test_the_browser_model_picks_the_highlighted_table() -> None:
    from lanswitch.discovery import Table
    from lanswitch.tui.browser import TableList

    def table(name: str) -> Table:
        return Table(name, ("10.0.0.2",), 4000, "switch", 2, 4, 1, "ab" * 32, "pc", "pc.local.")

    state = TableList()
    assert not state.pick(False)
    assert "no table yet" in state.status
    state.update([table("Kitchen"), table("Attic")])
    assert [t.name for t in state.tables] == ["Attic", "Kitchen"]
    state.cursor = 1
    state.update([table("Kitchen"), table("Attic"), table("Barn")])  # the cursor stays put
    assert state.tables[state.cursor].name == "Kitchen"
    assert state.pick(True)
    assert state.choice is not None
    assert state.choice.spectate
    assert state.choice.target.pin_as == "table Kitchen"
    assert "Kitchen" in text(state.render(Look()))


def test_chat_and_the_verdict_overlay_by_keys(identity: Identity) -> None:
    screen = Screen()

    async def main() -> None:
        config = HostConfig(name="C", seats=2, bots=1, bot_delay=0.0, hands=None)
        async with terminal(identity, config, screen) as t:
            t.keys.send_text("c")
            await until(lambda: t.model.overlay == "chat")
            t.keys.send_text("hello table\r")
            await until(lambda: any("hello table" in n.text for n in t.session.news))
            assert t.model.overlay is None

    asyncio.run(asyncio.wait_for(main(), 30))
    assert "hello table" in screen.text()
