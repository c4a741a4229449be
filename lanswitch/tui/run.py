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

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ..client import Client, JoinError, Target
from ..discovery import TableAdvertiser
from ..history import HistoryWriter
from ..host import HostConfig
from ..hosting import HostedTable, new_table, owner_session, resume_table, serve, settle
from ..netcmd import close_history, default_name, history_writer
from ..protocol import PROTOCOL_VERSION
from ..rules import PRESETS, RuleSet
from ..session import Session
from ..table import Refused
from ..tls import (
    FingerprintMismatch,
    PinChanged,
    PinStore,
    load_or_create_identity,
)
from .app import TuiApp, colour_wanted
from .model import HostPowers, TuiModel
from .render import Look

__all__ = ["describe_failure", "look_of", "play", "play_config", "run_client"]


def look_of(args: argparse.Namespace) -> Look:
    return Look(
        ascii=bool(getattr(args, "ascii", False)),
        four_colour=bool(getattr(args, "four_colour", False)),
        colour=colour_wanted(),
    )


def describe_failure(exc: BaseException | None) -> str:
    """Why the connection could not go on, for the screen and the exit message."""
    if isinstance(exc, PinChanged):
        return str(exc)
    if isinstance(exc, FingerprintMismatch):
        return f"{exc}. Someone may be impersonating the table; check the host's words"
    return str(exc) or type(exc).__name__


async def run_client(
    session: Session,
    target: Target,
    *,
    look: Look,
    pins: PinStore | None,
    accept_change: bool = False,
    powers: HostPowers | None = None,
    bell: bool = False,
    title: str = "lanswitch",
    on_start: Callable[[TuiModel, TuiApp], None] | None = None,
    history: HistoryWriter | None = None,
) -> TuiModel:
    """Run the terminal client for ``session`` at ``target`` until the player leaves or the
    host ends the table; returns the model (for the exit status and tests). ``history`` keeps
    each finished hand (the caller closes it)."""
    client: Client
    model = TuiModel(session, send=lambda m: client.send(m), look=look, powers=powers, bell=bell)
    tui = TuiApp(model, title=title)

    rung = 0

    def news(_: object) -> None:
        nonlocal rung
        tui.refresh()
        if bell and model.rings > rung:  # once per turn of ours
            rung = model.rings
            sys.stdout.write("\a")
            sys.stdout.flush()

    async def tick() -> None:
        # The turn timer counts down between messages: redraw twice a second while it runs.
        for _ in range(10**9):
            await asyncio.sleep(0.5)
            if session.timer_ms and model.screen == "table":
                tui.app.invalidate()

    client = Client(
        session, target, pins=pins, accept_change=accept_change, on_news=news, history=history
    )
    net = asyncio.create_task(client.run())

    def net_done(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            model.failure = describe_failure(task.exception())
        tui.refresh()

    net.add_done_callback(net_done)
    ticker = asyncio.create_task(tick())
    if on_start is not None:
        on_start(model, tui)
    try:
        await tui.app.run_async()
    finally:
        ticker.cancel()
        if not net.done():
            if not session.closed:
                for message in session.leave():
                    client.send(message)
            net.cancel()
        with contextlib.suppress(asyncio.CancelledError, JoinError, OSError):
            await net
    return model


def play_config(args: argparse.Namespace, rules: RuleSet) -> tuple[HostConfig, str]:
    """The table ``lanswitch play`` hosts, and the player's name."""
    name = args.name or default_name()
    config = HostConfig(
        name=(args.table or f"{name}'s table")[:32],
        rules=rules,
        rules_name=args.rules if args.rules in PRESETS else Path(args.rules).stem,
        seats=max(args.seats, args.bots + 1),
        bots=args.bots,
        bot_delay=args.bot_delay,
        turn_timer=args.turn_timer,
    )
    return config, name


async def play(
    args: argparse.Namespace,
    data: Path,
    rules: RuleSet,
    out: TextIO,
    err: TextIO | None = None,
) -> int:
    """``lanswitch play``: host a table and sit at it (``--resume``: the table a crashed
    ``play`` left, with the player back in the seat)."""
    identity = load_or_create_identity(data)
    if args.resume:
        table, session = _resumed_seat(data, args.table)
    else:
        config, name = play_config(args, rules)
        address = args.interface or "0.0.0.0"
        table = new_table(config, data, address=address, port=args.port)
        # The player's session key is kept in the journal, so that after a crash the
        # resumed table knows its own player again (by the key its resume token was given to).
        raw = os.urandom(32)
        if table.journal is not None:
            table.journal.set(_OWNER, raw)
        session = owner_session(name, raw)
        table.host.owner_key = session.public_key
    if args.interface:
        table.address = args.interface
    host = table.host
    config = host.config
    server = await serve(table, identity)  # OSError: the port is taken (tui.play says so)
    advertiser = TableAdvertiser(
        name=config.name,
        port=server.port,
        rules=host.rules_name,
        seats_total=config.seats,
        seats_free=host.table.open_seats(),
        fingerprint=identity.hex,
        version=PROTOCOL_VERSION,
        interfaces=None if table.address == "0.0.0.0" else [table.address],
    )
    advertised = False
    order = list(PRESETS)

    def act(call: object) -> str | None:
        try:
            result = call() if callable(call) else None
        except Refused as e:
            return e.refusal.value
        server.poke()
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
        return act(lambda: host.remove_bot(bots[-1])) or "a bot stands up"

    def next_rules() -> str | None:
        now = host.rules_name if host.rules_name in PRESETS else order[-1]
        nxt = order[(order.index(now) + 1) % len(order)]
        return act(lambda: host.set_rules(PRESETS[nxt], nxt)) or f"rules: {nxt}"

    def start() -> str | None:
        for _ in range(len(host.table.seats)):  # every empty seat gets a bot
            if not any(s.kind == "empty" for s in host.table.seats):
                break
            add_bot()
        return "starting: every seat is filled"

    powers = HostPowers(add_bot, remove_bot, next_rules, start)
    bound = "" if table.address == "0.0.0.0" else table.address
    here = bound or "127.0.0.1"  # our own client connects over loopback
    shown = bound or next(iter(advertiser.addresses), here)  # where friends join
    target = Target(config.name, (here,), server.port, identity.fingerprint, "self")
    free = host.table.open_seats()

    async def keep_advertised() -> None:
        # In the background: zeroconf probes for a second or so before it answers, and the
        # player should not wait for that to see the table. Friends can always join by
        # address if multicast DNS cannot start.
        nonlocal free, advertised
        try:
            await advertiser.start()
        except Exception:
            return
        advertised = True
        for _ in range(10**9):
            await asyncio.sleep(0.5)
            if advertised and host.table.open_seats() != free:
                free = host.table.open_seats()
                with contextlib.suppress(Exception):
                    await advertiser.update(seats_free=free)

    keeper = asyncio.create_task(keep_advertised())
    history = history_writer(args, data)
    try:
        model = await run_client(
            session,
            target,
            look=look_of(args),
            pins=None,
            powers=powers,
            bell=args.bell,
            title=f"lanswitch · hosting on {shown}:{server.port}",
            history=history,
        )
    finally:
        close_history(history, err or sys.stderr)
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper
        with contextlib.suppress(Exception):  # safe if it never started: nothing to undo
            await advertiser.close()
        await server.close()
        settle(table)
    del model
    out.write(f"table {config.name!r} closed\n")
    return 0


_OWNER = "owner_seed"
"""The journal's key for the playing host's session key (32 bytes: an Ed25519 seed)."""


def _resumed_seat(data: Path, name: str | None) -> tuple[HostedTable, Session]:
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
        session = owner_session(default_name(), raw)
        host.owner_key = session.public_key
        return table, session
    session = owner_session(entry.name, raw)
    session.token = entry.token.encode("ascii")
    return table, session
