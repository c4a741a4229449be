"""``lanswitch host`` and ``lanswitch join``: the network commands (a shell).

``host`` makes (once) or loads the host's TLS identity, serves a :class:`~lanswitch.host.Host`
with a :class:`~lanswitch.server.Server`, advertises it with zeroconf, and prints what happens.
``join`` finds the table (zeroconf, or ``HOST:PORT``), pins its certificate, and plays with a
:class:`~lanswitch.client.Client`: headless with a bot (``--bot``) or watching
(``--spectate``). After every hand a seat writes its transcript (``--transcripts DIR``) and
prints the verdict of checking it; every hand, watched ones too, goes into the history in the
data dir (:mod:`lanswitch.history`) unless ``--no-history`` says not to.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import os
import random
import re
import signal
from pathlib import Path
from typing import TextIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .bots import make_bot
from .client import Client, JoinError, Target, find_table, parse_address
from .discovery import TableAdvertiser, list_tables
from .history import HistoryWriter
from .host import HostConfig
from .hosting import HostedTable, ResumeError, new_table, resume_table, serve, settle
from .protocol import PROTOCOL_VERSION, Bye, Error
from .rules import PRESETS, load_rules
from .session import HandRecord, News, Session, named
from .tls import (
    FingerprintMismatch,
    Identity,
    IdentityError,
    PinChanged,
    PinStore,
    PinStoreError,
    load_or_create_identity,
)

__all__ = ["CommandError", "cmd_host", "cmd_join"]


class CommandError(Exception):
    """A failure the command reports (exit 1)."""


def default_name() -> str:
    """The player's name when none is given: the user name, at most 24 characters."""
    return _default_name()


def _default_name() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "player"
    return user[:24] or "player"


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def _rules_name(spec: str) -> str:
    return spec if spec in PRESETS else Path(spec).stem[:64] or "house rules"


# ---------------------------------------------------------------------------------------------
# host


def cmd_host(args: argparse.Namespace, data: Path, out: TextIO, err: TextIO) -> int:
    if args.resume:
        try:
            identity = load_or_create_identity(data)
            table = resume_table(data, args.name)
        except (IdentityError, ResumeError) as e:
            raise CommandError(str(e)) from None
        if args.interface:
            table.address = args.interface
        return asyncio.run(_host(table, identity, args, out, err))
    rules = load_rules(args.rules)  # RulesError → exit 2 in cli.main
    seats = args.seats
    if args.bots > seats:
        raise ValueError(f"--bots {args.bots} is more than --seats {seats}")
    config = HostConfig(
        name=args.name or f"{_default_name()}'s table"[:32],
        rules=rules,
        rules_name=_rules_name(args.rules),
        seats=seats,
        bots=args.bots,
        password=args.password,
        hands=args.hands,
        turn_timer=args.turn_timer,
        bot_delay=args.bot_delay,
    )
    try:
        identity = load_or_create_identity(data)
    except IdentityError as e:
        raise CommandError(str(e)) from None
    table = new_table(config, data, address=args.interface or "0.0.0.0", port=args.port)
    return asyncio.run(_host(table, identity, args, out, err))


def resumed_line(table: HostedTable) -> str:
    """What a resumed host says about where its table stopped."""
    return (
        f"resumed from its journal ({_count(table.replayed, 'record')} replayed in "
        f"{table.replay_s * 1000:.0f} ms): {table.stopped_at}; "
        f"{_count(table.dropped, 'connection')} to come back"
    )


async def _host(
    table: HostedTable, identity: Identity, args: argparse.Namespace, out: TextIO, err: TextIO
) -> int:
    fp_hex, fp_words = identity.hex, identity.words
    host, config = table.host, table.host.config
    address = table.address
    if table.warning:
        err.write(f"lanswitch: {table.warning}\n")
    try:
        server = await serve(table, identity)
    except OSError as e:
        text = f"cannot listen on {address}:{table.port}: {e.strerror or e}"
        if table.resumed:
            text += " (its players are trying to come back on that port: free it, then resume)"
        raise CommandError(text) from None
    interfaces = None if address == "0.0.0.0" else [address]
    advertiser = TableAdvertiser(
        name=config.name,
        port=server.port,
        rules=host.rules_name,
        seats_total=config.seats,
        seats_free=host.table.open_seats(),
        fingerprint=fp_hex,
        version=PROTOCOL_VERSION,
        interfaces=interfaces,
    )
    advertised = True
    try:
        await advertiser.start()
    except Exception as e:  # mDNS is a convenience: the table still takes direct joins
        advertised = False
        err.write(f"lanswitch: the table is not advertised on the LAN ({e}); join by address\n")
    name = advertiser.name if advertised else config.name
    shown = (address if interfaces else "") or ", ".join(advertiser.addresses) or address
    first, *others = shown.split(", ")
    out.write(f'table "{name}" listening on {first}:{server.port}')
    out.write(f" (also on {', '.join(others)})\n" if others else "\n")
    out.write(f"fingerprint: {fp_hex} ({fp_words})\n")
    out.write(
        f"rules {host.rules_name}, {config.seats} seats, {_count(config.bots, 'bot')}"
        + (f", {_count(config.hands, 'hand')}" if config.hands else "")
        + (", password set" if config.password else "")
        + "\n"
    )
    if table.resumed:
        out.write(resumed_line(table) + "\n")
    out.flush()

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    shown_log = table.log_from  # a resumed host's earlier lines were said by the old one
    journal_said = False
    free = host.table.open_seats()
    waiter = asyncio.create_task(server.wait_finished())
    try:
        for _ in range(10**9):
            stopper = asyncio.create_task(stop.wait())
            done, _pending = await asyncio.wait(
                {waiter, stopper}, timeout=0.25, return_when=asyncio.FIRST_COMPLETED
            )
            stopper.cancel()
            lines, shown_log = host.log_since(shown_log)
            for line in lines:
                out.write(line + "\n")
            if server.journal_error is not None and not journal_said:
                journal_said = True
                err.write(
                    f"lanswitch: the journal failed ({server.journal_error}); the table plays "
                    "on, but cannot be resumed after a crash\n"
                )
            out.flush()
            if advertised and host.table.open_seats() != free:
                free = host.table.open_seats()
                with contextlib.suppress(Exception):
                    await advertiser.update(seats_free=free)
            if waiter in done or stop.is_set():
                break
    finally:
        if advertised:
            with contextlib.suppress(Exception):
                await advertiser.close()
        await server.close()
        settle(table)
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
    for line in host.log_since(shown_log)[0]:
        out.write(line + "\n")
    if stop.is_set() and not host.match.over:
        out.write("table closed\n")
    return 0


# ---------------------------------------------------------------------------------------------
# join


def history_writer(args: argparse.Namespace, data: Path) -> HistoryWriter | None:
    """The history for ``join`` or ``play`` (None with ``--no-history``)."""
    return None if getattr(args, "no_history", False) else HistoryWriter(data)


def close_history(writer: HistoryWriter | None, err: TextIO) -> None:
    """Save what is still queued; say so if hands could not be saved."""
    if writer is not None:
        message = writer.close()
        if message is not None:
            err.write(f"lanswitch: {message}\n")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")[:40] or "table"


def cmd_join(args: argparse.Namespace, data: Path, out: TextIO, err: TextIO) -> int:
    if args.bot is None and not args.headless:
        return asyncio.run(_join_terminal(args, data, out, err))
    if args.bot is None and not args.spectate:
        raise ValueError(
            "--headless needs --bot STRATEGY (a bot plays your seat) or --spectate (you watch)"
        )
    transcripts: Path | None = None
    if args.transcripts:
        transcripts = Path(args.transcripts).expanduser()
        if not transcripts.is_dir():
            raise ValueError(f"--transcripts: {transcripts} is not a directory")
    return asyncio.run(_join(args, data, transcripts, out, err))


async def _target(args: argparse.Namespace) -> Target:
    interfaces = [args.interface] if args.interface else None
    if args.table:
        addr = parse_address(args.table)
        if addr is not None:
            host, port = addr  # pinned per host: the port may change from run to run
            return Target(args.table, (host,), port, None, host)
        return await find_table(args.table, timeout=args.timeout, interfaces=interfaces)
    tables = await list_tables(min(args.timeout, 3.0), interfaces=interfaces, probe=True)
    if len(tables) == 1:
        return Target.from_table(tables[0])
    if not tables:
        raise JoinError(
            "no table answered on this network; name one, or join by address: "
            "lanswitch join HOST:PORT"
        )
    names = ", ".join(repr(t.name) for t in tables)
    raise JoinError(f"several tables answered ({names}): say which, e.g. lanswitch join NAME")


async def _join_terminal(args: argparse.Namespace, data: Path, out: TextIO, err: TextIO) -> int:
    """``join`` in the terminal client: the table browser unless a table is named."""
    from .tui.browser import browse
    from .tui.run import look_of, run_client

    look = look_of(args)
    name = args.name or _default_name()
    spectate = args.spectate
    if args.table:
        try:
            target = await _target(args)
        except JoinError as e:
            raise CommandError(str(e)) from None
    else:
        interfaces = [args.interface] if args.interface else None
        choice = await browse(look=look, interfaces=interfaces, name=name)
        if choice is None:
            return 0
        target, spectate = choice.target, spectate or choice.spectate
    session = Session(
        name,
        key=Ed25519PrivateKey.generate(),
        entropy=os.urandom,
        spectate=spectate,
        password=args.password,
    )
    history = history_writer(args, data)
    try:
        model = await run_client(
            session,
            target,
            look=look,
            pins=PinStore.in_dir(data),
            accept_change=args.accept_new_fingerprint,
            bell=args.bell,
            history=history,
        )
    finally:
        close_history(history, err)
    if model.failure is not None:
        raise CommandError(model.failure)
    return 0


async def _join(
    args: argparse.Namespace, data: Path, transcripts: Path | None, out: TextIO, err: TextIO
) -> int:
    try:
        target = await _target(args)
    except JoinError as e:
        raise CommandError(str(e)) from None
    pins = PinStore.in_dir(data)
    session = Session(
        args.name or _default_name(),
        key=Ed25519PrivateKey.generate(),
        entropy=os.urandom,
        spectate=args.spectate,
        password=args.password,
        auto_ready=args.bot is not None,
    )
    rng = random.Random()
    strategy = args.bot

    def choose(s: Session) -> int:
        assert s.rules is not None
        assert s.view is not None
        return make_bot(strategy, s.rules).choose(s.view, rng)

    unfair: list[HandRecord] = []

    def show(news: News) -> None:
        if news.kind in ("welcome", "pin"):
            out.write(f"{news.text}\n")
        elif news.kind == "hand":
            out.write(f"{news.text.replace('begins', 'started')}\n")
        elif news.kind == "over":
            out.write(f"{news.text}\n")
        elif news.kind == "verdict" and isinstance(news.data, HandRecord):
            record = news.data
            verdict, t = record.verdict, record.transcript
            if verdict is None or t is None:
                return
            label = "fair" if verdict.fair else verdict.status.upper()
            if not verdict.fair and verdict.status != "void":
                unfair.append(record)
            # After "FAIR: hand …, RULES: ", with the players' names for the seats' ids.
            detail = named(verdict.text().split(": ", 2)[-1], record.names)
            where = ""
            if transcripts is not None:
                path = transcripts / (
                    f"{_slug(session.table)}-{t.setup.game_id.hex()[:8]}-"
                    f"hand{t.setup.hand_no:03d}-{t.id}.json"
                )
                path.write_text(t.to_json(), encoding="utf-8")
                where = f", transcript {path}"
            out.write(f"hand {record.hand_no} verified {label}{where}: {detail}\n")
        elif news.kind in ("warning", "reject"):
            err.write(f"lanswitch: {news.text}\n")
        elif news.kind == "chat":
            out.write(f"{news.text}\n")
        out.flush()

    client = Client(
        session,
        target,
        pins=pins,
        accept_change=args.accept_new_fingerprint,
        chooser=choose if strategy is not None else None,
        think=args.think,
        on_news=show,
        history=history_writer(args, data),
    )
    try:
        await client.run()
    except FingerprintMismatch as e:
        raise CommandError(
            f"refusing {target.label}: {e}. Someone may be impersonating the table; check the "
            "fingerprint words on the host's screen"
        ) from None
    except PinChanged as e:
        raise CommandError(str(e)) from None
    except PinStoreError as e:
        raise CommandError(f"the pin store is damaged: {e}") from None
    except JoinError as e:
        raise CommandError(str(e)) from None
    finally:
        close_history(client.history, err)
    reason = session.close_reason
    if isinstance(reason, Bye):
        out.write(f"the host ended the match: {reason.reason}\n")
    elif isinstance(reason, Error):
        raise CommandError(f"the host closed the connection: {reason.code.value}: {reason.text}")
    if unfair:
        err.write(f"lanswitch: {len(unfair)} hand(s) did not verify fair\n")
        return 1
    return 0
