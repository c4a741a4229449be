"""Running the terminal client: ``lanswitch play`` (host and sit) and ``lanswitch join``.

``play`` hosts a table on the LAN (the same :class:`~lanswitch.host.Host` and
:class:`~lanswitch.server.Server` as ``lanswitch host``, advertised by zeroconf) and seats the
player at it through a real client connection over loopback TLS, so the host's own player
goes through exactly the code every other player does. The host's powers (bots, rules,
start) are local calls on the host. ``join`` without ``--bot`` runs the same client against a
table elsewhere. Both keep every finished hand in the history (:mod:`lanswitch.history`,
through the :class:`~lanswitch.client.Client`) unless ``--no-history`` is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import os
import shutil
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .. import protocol as p
from ..admission import TRIES, PasswordNeeded, ask_password, wrong_password
from ..bots import LEVELS, level_of
from ..client import Client, JoinError, Target, find_target
from ..history import close_writer, open_writer
from ..host import Host, HostConfig
from ..hosting import (
    HostedTable,
    advertiser_for,
    follow_open_seats,
    mid_match,
    new_table,
    owner_session,
    resume_table,
    serve,
    settle,
    stopped_text,
)
from ..rules import PRESETS, RuleSet
from ..seatkeep import SeatKeeper
from ..session import SEED_WAIT_S, Session
from ..settings import Join, Play, Screen
from ..table import Refused
from ..textsafe import escape
from ..tls import PinStore, load_or_create_identity
from .app import TuiApp, colour_wanted
from .model import FROM_NEXT_HAND, HostPowers, TuiModel
from .render import Look

__all__ = ["host_powers", "join", "look_of", "play", "play_config", "run_client"]


def look_of(screen: Screen) -> Look:
    """How the client draws, from the command line's settings (and ``NO_COLOR``)."""
    return Look(
        ascii=screen.ascii, four_colour=screen.four_colour, colour=screen.colour and colour_wanted()
    )


async def run_client(
    client: Client,
    *,
    look: Look,
    powers: HostPowers | None = None,
    bell: bool = False,
    title: str = "lanswitch",
    where: str = "",
    on_start: Callable[[TuiModel, TuiApp], None] | None = None,
    stop_instead: Callable[[], Awaitable[bool]] | None = None,
) -> TuiModel:
    """Run the terminal client for ``client`` (connected with :meth:`Client.connect`, or it
    connects now) until the player leaves or the host ends the table; returns the model (for
    the exit status and tests). ``stop_instead`` (the host's own player): called when the
    player leaves, before any goodbye; True if it stopped the table instead (the seat stays
    the player's for ``--resume``)."""
    session = client.session
    model = TuiModel(session, send=client.send, look=look, powers=powers, bell=bell)
    tui = TuiApp(model, title=title, where=where)
    rung = 0
    previous = client.on_news

    def news(item: object) -> None:
        nonlocal rung
        tui.refresh()
        if wrong_password(session):  # not a table's end: join asks again (admission.py)
            tui.app.exit()
            return
        if bell and model.rings > rung:  # once per turn of ours
            rung = model.rings
            sys.stdout.write("\a")
            sys.stdout.flush()

    async def tick() -> None:
        # Between messages the screen still changes: the turn timer and an away player's
        # grace count down, and the seconds since the link to the host was lost count up.
        # Redraw twice a second then.
        for _ in range(10**9):
            await asyncio.sleep(0.5)
            counting = session.timer_ms or model.away()  # a turn timer, a grace to stand-in
            if (counting and model.screen == "table") or model.lost_since is not None:
                tui.app.invalidate()

    client.on_news = news
    net = asyncio.create_task(client.run())

    def net_done(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            model.failure = str(exc) if isinstance(exc, JoinError) else repr(exc)
            model.lost_since = None
        tui.refresh()

    net.add_done_callback(net_done)
    ticker = asyncio.create_task(tick())
    if on_start is not None:
        on_start(model, tui)
    # lanswitch's own warnings (the server's: "wrong table password from …", a connection that
    # failed) go to the screen's log while it is up: Python's last-resort handler writes them
    # to stderr, the terminal prompt_toolkit draws on, over the title and the lobby.
    logger = logging.getLogger("lanswitch")
    to_screen = _ToScreen(model, tui)
    logger.addHandler(to_screen)
    propagated, logger.propagate = logger.propagate, False
    try:
        await tui.app.run_async(handle_sigint=_loop_takes_signals())
    finally:
        logger.removeHandler(to_screen)
        logger.propagate = propagated
        client.on_news = previous
        ticker.cancel()
        if not net.done() and model.quit and stop_instead is not None and await stop_instead():
            # The table is stopped, to carry on: our own seat is paused like everyone's (its
            # hand recorded unfinished, no goodbye said). Its ``paused`` is on the way to us.
            for _ in range(100):  # bounded: 2 s
                if net.done() or session.paused is not None:
                    break
                await asyncio.sleep(0.02)
        if not net.done():
            if not session.closed and session.paused is None:
                await _pay_seed(session, net)
                for message in session.begin_leaving():  # a blind hand's seeds, then a wait
                    client.send(message)
                await _pay_seed(session, net)
                model.said_goodbye = True
                for message in session.leave():
                    client.send(message)
            net.cancel()
        with contextlib.suppress(asyncio.CancelledError, JoinError, OSError):
            await net
    return model


class _ToScreen(logging.Handler):
    """A log record of lanswitch's, WARNING and up, as a line in the terminal client's log
    (its message only: a traceback has no place on a card table)."""

    def __init__(self, model: TuiModel, tui: TuiApp) -> None:
        super().__init__(logging.WARNING)
        self.model, self.tui = model, tui

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.model.warn(escape(record.getMessage()))
            self.tui.refresh()
        except Exception:  # a log line must never take the screen down
            self.handleError(record)


async def _pay_seed(session: Session, net: asyncio.Task[None]) -> None:
    """Before a player who quits says goodbye: if its seed for the round in progress is still
    to go, let the network task send it (a bounded wait, SEED_WAIT_S): leaving without it
    would void the hand and lay it on this player."""
    deadline = time.monotonic() + SEED_WAIT_S
    for _ in range(int(SEED_WAIT_S / 0.02) + 1):
        if net.done() or not session.owes_seed() or time.monotonic() >= deadline:
            return
        await asyncio.sleep(0.02)


def _loop_takes_signals() -> bool:
    """Whether this event loop can take a signal handler (POSIX: yes; Windows: no — there
    Ctrl-C is the key binding, or KeyboardInterrupt): prompt_toolkit's SIGINT handling needs
    one."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, lambda: None)
    except (NotImplementedError, RuntimeError, AttributeError, ValueError):
        return False
    loop.remove_signal_handler(signal.SIGINT)
    return True


def farewell(model: TuiModel, table: str) -> tuple[int, str]:
    """The exit status and the last line, once the screen is gone."""
    if model.failure is not None:
        return 1, f"lanswitch: {model.failure}"
    reason = model.session.close_reason
    if model.said_goodbye:  # our own goodbye is the close reason now: it was not the host's doing
        return 0, f'you left the table "{table}"'
    if isinstance(reason, p.Bye):
        return 0, f"the host ended the match: {reason.reason}"
    if isinstance(reason, p.Error):
        return 1, f"lanswitch: the host closed the connection: {reason.code.value}: {reason.text}"
    if model.session.paused is not None:  # left while waiting for a stopped table
        # (No goodbye could reach the stopped host: the seat stays ours, and kept on disk
        # (lanswitch.seatkeep), a join run again once the host carries on takes it back.)
        return 0, (
            f'left the table "{table}", which its host stopped; join again once it carries '
            "on, and you take your seat back"
        )
    return 0, f'left the table "{table}"'


def play_config(settings: Play, rules: RuleSet) -> HostConfig:
    """The table ``lanswitch play`` hosts (the command line checked the seats and bots)."""
    t = settings.table
    return HostConfig(
        name=(t.name or f"{settings.player}'s table")[:32],
        rules=rules,
        rules_name=t.rules if t.rules in PRESETS else Path(t.rules).stem,
        seats=t.seats,
        bots=t.bots,
        bot_delay=t.bot_delay,
        turn_timer=t.turn_timer,
        hands=t.hands,
        blind=t.blind,
        password=t.password,
        bot_strategy=t.level,
        hints=t.hints,
    )


def host_powers(host: Host, poke: Callable[[], None]) -> HostPowers:
    """What the host's own screen may do to its table (local calls on ``host``; ``poke``
    tells the server to run the table on), and show of it."""
    order = list(PRESETS)

    def act(call: Callable[[], object]) -> str | None:
        try:
            result = call()
        except Refused as e:
            return e.refusal.value
        poke()
        return result if isinstance(result, str) else None

    def add_bot() -> str | None:
        free = [s.index for s in host.table.seats if s.kind == "empty"]
        if not free:
            return "no seat is free"
        return act(lambda: host.add_bot(free[0])) or "a bot sits down"

    def remove_bot() -> str | None:
        bots = [s.index for s in host.table.seats if s.kind == "bot"]
        if not bots:
            return "no bot to remove"
        return act(lambda: host.remove_bot(bots[-1])) or "a bot stands up: a seat for a friend"

    def next_rules() -> str | None:
        now = host.rules_name if host.rules_name in PRESETS else order[-1]
        nxt = order[(order.index(now) + 1) % len(order)]
        return act(lambda: host.set_rules(PRESETS[nxt], nxt)) or f"rules: {nxt}"

    def toggle_blind() -> str | None:
        on = not host.blind
        said = (
            f"dealer-blind{FROM_NEXT_HAND}: the host cannot see any card it is not dealt"
            if on
            else f"commit-reveal{FROM_NEXT_HAND} (not dealer-blind)"
        )
        return act(lambda: host.set_blind(on)) or said

    def next_level() -> str | None:
        now = level_of(host.bot_level)
        nxt = LEVELS[(LEVELS.index(now) + 1) % len(LEVELS)] if now in LEVELS else LEVELS[0]
        # "from the next hand" once a hand was played (the model leaves it out before).
        return act(lambda: host.set_bot_level(nxt)) or f"the bots play {nxt}{FROM_NEXT_HAND}"

    def toggle_hints() -> str | None:
        on = not host.hints
        said = (
            "hints allowed: h at the table suggests a move"
            if on
            else "hints off at this table: h will not suggest a move"
        )
        return act(lambda: host.set_hints(on)) or said

    told_away: set[int] = set()  # the away seats the last s said the hand waits for

    def start() -> str | None:
        # s again, with the same players still away: their seats are given up now.
        away = set() if host.table.in_play else set(host.away)
        given: list[str] = []
        if away and away <= told_away:
            for seat in sorted(away):
                name = host.table.seats[seat].name
                if act(functools.partial(host.give_up, seat)) is None:
                    given.append(name)
        told_away.clear()
        for _ in range(len(host.table.seats)):  # every empty seat gets a bot
            if not any(s.kind == "empty" for s in host.table.seats):
                break
            add_bot()
        said = (f"gave up {' and '.join(given)}'s seat: a bot plays it; ") if given else ""
        waits = _waits_for()
        if waits:
            told_away.update(host.away)
        return said + (waits or "starting: every seat is filled")

    def _waits_for() -> str:
        # What the hand still waits for once every seat is filled (the host starts it when
        # every seated person is there and ready: Host._can_start), in words; "" for nothing.
        # A player who is away keeps the seat for seat_limit seconds from going away; then
        # the host gives the seat up, and a bot takes it where the table was set with bots.
        if host.table.in_play:
            return ""
        now = host.now  # the latest event's time: "up to" holds, however long ago
        limit = host.config.seat_limit
        away, unready = [], []
        for seat in host.table.seats:
            if seat.kind != "human":
                continue
            entry = host.table.clients.get(seat.client or "")
            mine = entry is not None and host.keys.get(entry.token) == host.owner_key
            if seat.index in host.away:
                left = max(0, math.ceil(host.away[seat.index] + limit - now))
                away.append(f"{seat.name} to come back (up to {left} s)")
            elif not seat.ready and not mine:  # the host's own player is made ready with s
                unready.append(f"{seat.name} to press r")
        if not away and not unready:
            return ""
        said = "not starting yet: waiting for " + " and ".join(away + unready)
        if away:
            said += (
                "; then a bot takes the seat"
                if host.config.bots
                else "; then the seat is free, and s again puts a bot in it"
            ) + " — or s again to give it up now"
        return said

    def arrivals(n: int) -> tuple[list[str], int]:
        # The host's log says who arrived to watch and who waits for a seat; the lobby
        # (every client's) says who takes a seat, goes away, comes back and leaves.
        lines, count = host.log_since(n)
        return [x for x in lines if x.endswith(" joined to watch") or " waits " in x], count

    def waiting() -> list[str]:
        # Who waits for a seat, and, between hands, the key that seats them now: x stands a
        # bot up, and the free seat goes to the first who waits.
        seated = (host.table.seating_line(c) for c in host.table.clients.values())
        lines = [line for line in seated if line is not None and " waits " in line]
        bots = any(s.kind == "bot" for s in host.table.seats)
        if bots and not host.table.in_play:
            lines = [f"{line} (x stands a bot up for them now)" for line in lines]
        return lines

    return HostPowers(
        add_bot,
        remove_bot,
        next_rules,
        start,
        arrivals,
        waiting,
        toggle_blind=toggle_blind,
        locked=lambda: bool(host.config.password),
        next_level=next_level,
        toggle_hints=toggle_hints,
    )


async def play(settings: Play, rules: RuleSet) -> tuple[int, str]:
    """``lanswitch play``: host a table and sit at it (``--resume``: the table a crashed
    ``play`` left, with the player back in the seat). The exit status and the last line."""
    data = settings.table.data
    identity = load_or_create_identity(data)
    if settings.table.resume:
        table, session = _resumed_seat(data, settings.table.name or None, settings.player)
    else:
        config = play_config(settings, rules)
        address = settings.table.interface or "0.0.0.0"
        table = new_table(config, data, address=address, port=settings.table.port)
        # The player's session key is kept in the journal, so that after a crash the
        # resumed table knows its own player again (by the key its resume token was given to).
        raw = os.urandom(32)
        if table.journal is not None:
            table.journal.set(_OWNER, raw)
        session = owner_session(settings.player, raw)
        table.host.owner_key = session.public_key
    if settings.table.interface:
        table.address = settings.table.interface
    host = table.host
    config = host.config
    session.password = config.password  # the host's own player knows its table's password
    server = await serve(table, identity)  # OSError: the port is taken (tui.play says so)
    advertiser = advertiser_for(table, server.port, identity)
    bound = "" if table.address == "0.0.0.0" else table.address
    here = bound or "127.0.0.1"  # our own client connects over loopback
    shown = bound or next(iter(advertiser.addresses), here)  # where friends join
    target = Target(config.name, (here,), server.port, identity.fingerprint, "self")

    async def keep_advertised() -> None:
        # In the background: zeroconf probes for a second or so before it answers, and the
        # player should not wait for that to see the table. Friends can always join by
        # address if multicast DNS cannot start. Its first answer is the one browsers keep
        # a while, so it waits (briefly) for this player's own client to take its seat: the
        # table is not "4 of 4 seats free" with its host sitting at it.
        for _ in range(30):
            if any(seat.kind == "human" for seat in host.table.seats):
                break
            await asyncio.sleep(0.05)
        await follow_open_seats(advertiser, table)  # (not started: the values only)
        try:
            await advertiser.start()
        except Exception:
            return
        for _ in range(10**9):
            await asyncio.sleep(0.5)
            await follow_open_seats(advertiser, table)

    keeper = asyncio.create_task(keep_advertised())
    history = open_writer(data, keep=settings.history)
    said = None
    stopped = False

    async def stop_instead() -> bool:
        # The host's player leaving mid-match (q and y, Ctrl-C twice) stops the table rather
        # than ending it: one line to every friend, and the journal kept for --resume.
        nonlocal stopped
        if not mid_match(host):
            return False
        stopped = table.stopped = True
        await server.stop(stopped_text("play"))
        return True

    try:
        client = Client(session, target, pins=None, history=history)
        model = await run_client(
            client,
            look=look_of(settings.screen),
            powers=host_powers(host, server.poke),
            bell=settings.screen.bell,
            title="lanswitch",
            where=f"{shown}:{server.port}",
            stop_instead=stop_instead,
        )
    finally:
        said = close_writer(history)
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper
        with contextlib.suppress(Exception):  # safe if it never started: nothing to undo
            await advertiser.close()
        await server.close()
        settle(table)
    code = 1 if model.failure is not None else 0
    last = f"lanswitch: {model.failure}" if model.failure else f'table "{config.name}" closed'
    if stopped and model.failure is None:
        again = f"{program()} play --resume"
        last = f'table "{config.name}" stopped mid-match: {again} carries it on'
    return code, "\n".join(x for x in (said, last) if x)


def program(argv0: str | None = None) -> str:
    """The command that starts this program again, as the person can type it: ``lanswitch``
    where that name finds this very program, else the path it was started by (``make play``
    runs ``.venv/bin/lanswitch``, on no PATH: "lanswitch play --resume" was "command not
    found"), or ``python -m lanswitch``."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    if argv0.endswith("__main__.py"):
        return f"{_typed(sys.executable)} -m lanswitch"
    return _typed(argv0) if Path(argv0).name.startswith("lanswitch") else "lanswitch"


def _typed(path: str) -> str:
    """``path`` as it can be typed: its name alone where that name finds this very file."""
    name = Path(path).name
    found = shutil.which(name)
    # (abspath, not realpath: a venv's python is a link to the one it was made from, which
    # the name may find first, without the venv's packages)
    if found is not None and os.path.abspath(found) == os.path.abspath(path):
        return name
    return path


async def join(settings: Join, screen: Screen) -> tuple[int, str]:
    """``lanswitch join`` in the terminal client: the table named (or the one picked in the
    browser), connected to *before* the screen starts, so a table that cannot be reached is
    one plain line. A table that needs a password is asked for one (in the browser, or on the
    terminal), and again if it was wrong. The exit status and the last line."""
    from .browser import browse

    look = look_of(screen)
    spectate = settings.spectate
    password = settings.password
    try:
        if settings.table or settings.address:
            target = await find_target(settings)
        else:
            choice = await browse(look=look, interfaces=settings.interfaces, name=settings.name)
            if choice is None:
                return 0, ""
            target, spectate = choice.target, spectate or choice.spectate
            password = choice.password or password
        wrong = turned_away = False
        for _ in range(TRIES):
            if password is None and (target.locked or turned_away):
                password = ask_password(target.label, wrong=wrong)
                if password is None:
                    return 0, f'you did not join "{target.label}": it needs its password'
            model, said = await _join_once(settings, target, spectate, password, look, screen)
            if not wrong_password(model.session):
                break
            turned_away = True
            wrong, password = password is not None, None  # none given is not a wrong one
        else:
            return 1, f'lanswitch: {TRIES} wrong passwords for "{target.label}": ask its host'
    except JoinError as e:
        return 1, f"lanswitch: {e}"
    except PasswordNeeded as e:
        return 2, f"lanswitch: {e}"
    code, last = farewell(model, model.session.table or target.label)
    return code, "\n".join(x for x in (said, last) if x)


async def _join_once(
    settings: Join, target: Target, spectate: bool, password: str | None, look: Look, screen: Screen
) -> tuple[TuiModel, str | None]:
    """One try at the table (the screen ends early if the password was turned away), and
    what the history had to say. A seat kept from a ``join`` of this table that ended is
    taken back (lanswitch.seatkeep)."""
    keeper = None if spectate else SeatKeeper.open(settings.data, target.pin_as)
    try:
        return await _join_keeping(settings, target, spectate, password, look, screen, keeper)
    finally:
        if keeper is not None:
            keeper.close()


async def _join_keeping(
    settings: Join,
    target: Target,
    spectate: bool,
    password: str | None,
    look: Look,
    screen: Screen,
    keeper: SeatKeeper | None,
) -> tuple[TuiModel, str | None]:
    """:func:`_join_once`, its seat kept by ``keeper`` (None: a spectator, who keeps nothing)."""
    session = Session(
        settings.name,
        key=Ed25519PrivateKey.generate() if keeper is None else keeper.key,
        entropy=os.urandom,  # fresh seeds, a kept seat or not (seatkeep's docstring)
        spectate=spectate,
        password=password,
        clock=time.monotonic,
    )
    if keeper is not None:
        keeper.attach(session)
    history = open_writer(settings.data, keep=settings.history)
    client = Client(
        session,
        target,
        pins=PinStore.in_dir(settings.data),
        accept_change=settings.accept_new_fingerprint,
        history=history,
        keeper=keeper,
    )
    try:
        await client.connect()
    except BaseException:
        close_writer(history)
        raise
    try:
        model = await run_client(client, look=look, bell=screen.bell, title="lanswitch")
    finally:
        said = close_writer(history)
    return model, said


_OWNER = "owner_seed"
"""The journal's key for the playing host's session key (32 bytes: an Ed25519 seed)."""


def _resumed_seat(data: Path, name: str | None, player: str) -> tuple[HostedTable, Session]:
    """The table a crashed ``play`` left, and a session that resumes its player's seat."""
    table = resume_table(data, name)
    host = table.host
    assert table.journal is not None
    raw = table.journal.get(_OWNER)
    token = next((t for t, k in host.keys.items() if k == host.owner_key), None)
    entry = next((c for c in host.table.clients.values() if c.token == token), None)
    if not isinstance(raw, bytes) or len(raw) != 32 or entry is None:
        # Hosted by lanswitch host, or its player had left: they sit down as someone new.
        raw = os.urandom(32)
        table.journal.set(_OWNER, raw)
        session = owner_session(player, raw)
        host.owner_key = session.public_key
        return table, session
    session = owner_session(entry.name, raw)
    session.token = entry.token.encode("ascii")
    return table, session
