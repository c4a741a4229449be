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

import asyncio
import contextlib
import os
import random
import re
import signal
import time
from typing import TextIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .admission import TRIES, PasswordNeeded, ask_password, wrong_password
from .bots import make_bot
from .client import Client, JoinError, Target, find_target
from .errors import LanswitchError
from .history import close_writer, open_writer
from .host import HostConfig
from .hosting import (
    HostedTable,
    ResumeError,
    advertiser_for,
    follow_open_seats,
    mid_match,
    new_table,
    resume_table,
    serve,
    settle,
    stopped_text,
)
from .protocol import Bye, Error, ErrorCode
from .rules import PRESETS, RuleSet, load_rules
from .seatkeep import SeatKeeper
from .server import collector_policy, listen_failure
from .session import HandRecord, News, Session, named
from .settings import Hosting, Join, Watch
from .textsafe import escape
from .tls import Identity, IdentityError, PinStore, load_or_create_identity

__all__ = ["CommandError", "cmd_host", "cmd_join"]


class CommandError(LanswitchError):
    """A failure the command reports (exit 1)."""


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def _rules_name(spec: str) -> str:
    from pathlib import Path

    return spec if spec in PRESETS else Path(spec).stem[:64] or "house rules"


# ---------------------------------------------------------------------------------------------
# host


def host_config(hosting: Hosting, rules: RuleSet) -> HostConfig:
    """The table ``lanswitch host`` serves (the command line checked the seats and bots)."""
    return HostConfig(
        name=hosting.name[:32],
        rules=rules,
        rules_name=_rules_name(hosting.rules),
        seats=hosting.seats,
        bots=hosting.bots,
        password=hosting.password,
        hands=hosting.hands,
        turn_timer=hosting.turn_timer,
        bot_delay=hosting.bot_delay,
        blind=hosting.blind,
        bot_strategy=hosting.level,
        hints=hosting.hints,
    )


def cmd_host(hosting: Hosting, out: TextIO, err: TextIO) -> int:
    """``lanswitch host``: serve a table until the match ends or Ctrl-C."""
    data = hosting.data
    if hosting.resume:
        try:
            identity = load_or_create_identity(data)
            table = resume_table(data, hosting.name or None)
        except (IdentityError, ResumeError) as e:
            raise CommandError(str(e)) from None
        if hosting.interface:
            table.address = hosting.interface
        return _run_host(table, identity, out, err)
    rules = load_rules(hosting.rules)  # RulesError → exit 2 in cli.main
    config = host_config(hosting, rules)
    try:
        identity = load_or_create_identity(data)
    except IdentityError as e:
        raise CommandError(str(e)) from None
    table = new_table(config, data, address=hosting.interface or "0.0.0.0", port=hosting.port)
    return _run_host(table, identity, out, err)


def _run_host(table: HostedTable, identity: Identity, out: TextIO, err: TextIO) -> int:
    try:
        return asyncio.run(_host(table, identity, out, err))
    except KeyboardInterrupt:
        # Where the event loop cannot take signals (Windows), Ctrl-C cancels the host's task:
        # its finally stopped (mid-match) or closed the server, and closed the advertiser.
        out.write(_STOPPED if table.stopped else "table closed\n")
        return 0


_STOPPED = (
    "table stopped mid-match: lanswitch host --resume carries it on where it stopped "
    "(its players join it again then)\n"
)


def resumed_line(table: HostedTable) -> str:
    """What a resumed host says about where its table stopped."""
    return (
        f"resumed from its journal ({_count(table.replayed, 'record')} replayed in "
        f"{table.replay_s * 1000:.0f} ms): {table.stopped_at}; "
        f"{_count(table.dropped, 'connection')} to come back"
    )


async def _host(table: HostedTable, identity: Identity, out: TextIO, err: TextIO) -> int:
    fp_hex, fp_words = identity.hex, identity.words
    host, config = table.host, table.host.config
    address = table.address
    if table.warning:
        err.write(f"lanswitch: {table.warning}\n")
    try:
        server = await serve(table, identity)
    except OSError as e:
        text = listen_failure(e, address, table.port)
        if table.resumed:
            text += " (its players are trying to come back on that port: free it, then resume)"
        raise CommandError(text) from None
    interfaces = None if address == "0.0.0.0" else [address]
    advertiser = advertiser_for(table, server.port, identity)
    advertised = True
    try:
        await advertiser.start()
    except Exception as e:  # mDNS is a convenience: the table still takes direct joins
        advertised = False
        err.write(f"lanswitch: the table is not advertised on the LAN ({e}); join by address\n")
    name = advertiser.name if advertised else config.name
    shown = (address if interfaces else "") or ", ".join(advertiser.addresses) or address
    first, *others = shown.split(", ")
    # Names and the rules' name are the host's own, but came from its command line or a
    # file's name: escaped like everything else printed (lanswitch/textsafe.py), a newline
    # included, so that no name can start a line of its own in the log.
    out.write(f'table "{escape(name)}" listening on {first}:{server.port}')
    out.write(f" (also on {', '.join(others)})\n" if others else "\n")
    out.write(f"fingerprint: {fp_hex} ({fp_words})\n")
    out.write(
        f"rules {escape(host.rules_name)}, {config.seats} seats, {_count(config.bots, 'bot')}"
        + (f", {_count(config.hands, 'hand')}" if config.hands else "")
        + (", password set" if config.password else "")
        + (", dealer-blind" if host.blind else "")
        + "\n"
    )
    if table.resumed:
        out.write(resumed_line(table) + "\n")
    out.flush()

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        # POSIX only: elsewhere (Windows) the loop takes no signal handlers, and Ctrl-C
        # arrives as KeyboardInterrupt instead (_run_host).
        with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
            loop.add_signal_handler(sig, stop.set)
    shown_log = table.log_from  # a resumed host's earlier lines were said by the old one
    journal_said = False
    stopped = False
    waiter = asyncio.create_task(server.wait_finished())
    collector_policy().install()  # set up: the collector's pauses kept short (gcpolicy.py)
    try:
        for _ in range(10**9):
            stopper = asyncio.create_task(stop.wait())
            done, _pending = await asyncio.wait(
                {waiter, stopper}, timeout=0.25, return_when=asyncio.FIRST_COMPLETED
            )
            stopper.cancel()
            lines, shown_log = host.log_since(shown_log)
            for line in lines:
                out.write(escape(line) + "\n")  # it names players, and their chat
            if server.journal_error is not None and not journal_said:
                journal_said = True
                err.write(
                    f"lanswitch: the journal failed ({server.journal_error}); the table plays "
                    "on, but cannot be resumed after a crash\n"
                )
            out.flush()
            if advertised:
                await follow_open_seats(advertiser, table)
            if waiter in done or stop.is_set():
                break
    finally:
        if advertised:
            with contextlib.suppress(Exception):
                await advertiser.close()
        collector_policy().uninstall()
        # Interrupted mid-match (Ctrl-C, SIGTERM; where the loop takes no signals, Ctrl-C
        # cancels this task): the table stops rather than ends — its players are told it
        # may come back, and its journal stays for --resume.
        interrupted = stop.is_set() or _cancelled()
        if interrupted and mid_match(host):
            stopped = table.stopped = True
            await server.stop(stopped_text("host"))
        else:
            await server.close()
        settle(table)
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
                loop.remove_signal_handler(sig)
    for line in host.log_since(shown_log)[0]:
        out.write(escape(line) + "\n")
    if stopped:
        out.write(_STOPPED)
    elif stop.is_set() and not host.match.over:
        out.write("table closed\n")
    return 0


def _cancelled() -> bool:
    """Whether the running task is being cancelled (Ctrl-C where the loop takes no signals)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


# ---------------------------------------------------------------------------------------------
# join (headless: a bot plays the seat, or the client watches; the terminal client is tui's)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")[:40] or "table"


def cmd_join(join: Join, watch: Watch, out: TextIO, err: TextIO) -> int:
    """``lanswitch join --headless``/``--bot``: join through :mod:`lanswitch.client` and
    print what happens (the verdict of each hand, the transcripts written). A table that
    needs a password is asked for it on the terminal (again if it was wrong), or, where the
    input is not a terminal, said to need ``--password``."""
    try:
        return asyncio.run(_join_asking(join, watch, out, err))
    except PasswordNeeded as e:
        raise CommandError(str(e)) from None


async def _join_asking(join: Join, watch: Watch, out: TextIO, err: TextIO) -> int:
    try:
        target = await find_target(join)
    except JoinError as e:
        raise CommandError(str(e)) from None
    password, wrong, turned_away = join.password, False, False
    for _ in range(TRIES):
        if password is None and (target.locked or turned_away):
            password = ask_password(target.label, wrong=wrong)
            if password is None:
                err.write(f'lanswitch: you did not join "{escape(target.label)}"\n')
                return 1
        code = await _join(join._replace(password=password), target, watch, out, err)
        if code is not None:
            return code
        turned_away = True
        password, wrong = None, password is not None  # none given is not a wrong one
    raise CommandError(f'{TRIES} wrong passwords for "{escape(target.label)}": ask its host')


async def _join(join: Join, target: Target, watch: Watch, out: TextIO, err: TextIO) -> int | None:
    """One try at ``target``: the exit status, or None if its password was turned away. A
    seat kept from a ``join`` of this table that ended is taken back (lanswitch.seatkeep)."""
    keeper = None if join.spectate else SeatKeeper.open(join.data, target.pin_as)
    try:
        return await _join_keeping(join, target, watch, out, err, keeper)
    finally:
        if keeper is not None:
            keeper.close()


async def _join_keeping(
    join: Join, target: Target, watch: Watch, out: TextIO, err: TextIO, keeper: SeatKeeper | None
) -> int | None:
    """:func:`_join`, its seat kept by ``keeper`` (None: a spectator, who keeps nothing)."""
    session = Session(
        join.name,
        key=Ed25519PrivateKey.generate() if keeper is None else keeper.key,
        entropy=os.urandom,  # fresh seeds, a kept seat or not (seatkeep's docstring)
        spectate=join.spectate,
        password=join.password,
        auto_ready=watch.bot is not None,
        clock=time.monotonic,
    )
    if keeper is not None:
        keeper.attach(session)
    rng = random.Random()
    strategy = watch.bot
    transcripts = watch.transcripts

    def choose(s: Session) -> int:
        assert s.rules is not None
        assert s.view is not None
        assert strategy is not None
        return make_bot(strategy, s.rules).choose(s.view, rng)

    unfair: list[HandRecord] = []
    distrust: list[str] = []  # why this player left the table on its own (void hands)

    def show(news: News) -> None:
        if session.distrust is not None and not distrust:
            # Past the rules' void_warning the host is choosing its deals: a headless player
            # leaves (a person at the terminal client is warned and decides).
            distrust.append(session.distrust)
            for message in session.leave("too many void hands"):
                client.send(message)
        # Every line below holds what the host sent (the table's and players' names, chat,
        # reasons): escaped, a newline included, so none can drive the terminal or forge a
        # line of its own.
        if news.kind in ("welcome", "pin", "voids", "presence", "seat"):
            out.write(f"{escape(news.text)}\n")
        elif news.kind == "hand":
            out.write(f"{escape(news.text.replace('begins', 'started'))}\n")
        elif news.kind == "over":
            out.write(f"{escape(news.text)}\n")
        elif news.kind == "link":
            out.write("lost the host: reconnecting\n" if news.text == "lost" else "reconnected\n")
        elif news.kind == "paused":
            out.write(f"{escape(news.text)}: waiting for it (Ctrl-C leaves)\n")
        elif news.kind == "verdict" and isinstance(news.data, HandRecord):
            verdict(news.data)
        elif news.kind in ("warning", "reject"):
            err.write(f"lanswitch: {escape(news.text)}\n")
        elif news.kind == "chat":
            out.write(f"{escape(news.text)}\n")
        out.flush()

    def verdict(record: HandRecord) -> None:
        # The judgement, whichever deal dealt the hand: "hand 2 verified fair, transcript
        # PATH: 57 log events …" — its proof (the transcript, a blind hand's file) saved where
        # --transcripts says, and a hand found unfair counted for the exit status.
        j, proof = record.judgement, record.proof
        if j is None:
            return
        if j.status in ("unfair", "unconfirmed"):  # (a void is counted, and may end the match)
            unfair.append(record)
        where = ""
        if transcripts is not None and proof is not None:
            path = transcripts / (
                f"{_slug(session.table)}-{record.game_id.hex()[:8]}-"
                f"hand{record.hand_no:03d}-{proof.stem}.json"
            )
            path.write_text(proof.text(), encoding="utf-8")
            where = f", {proof.deal.proof} {path}"
        # After "FAIR: hand …, RULES: ", with the players' names for the seats' ids.
        said = f": {named(j.said, record.names)}" if j.said else ""
        out.write(
            f"hand {record.hand_no} verified {escape(j.word())}{escape(where)}{escape(said)}\n"
        )

    history = open_writer(join.data, keep=join.history)
    try:
        try:
            client = Client(
                session,
                target,
                pins=PinStore.in_dir(join.data),
                accept_change=join.accept_new_fingerprint,
                chooser=choose if strategy is not None else None,
                think=watch.think,
                on_news=show,
                history=history,
                keeper=keeper,
            )
            await client.connect()
            await client.run()
        except JoinError as e:
            raise CommandError(str(e)) from None
    finally:
        said = close_writer(history)
        if said is not None:
            err.write(said + "\n")
    reason = session.close_reason
    if wrong_password(session):
        return None
    if isinstance(reason, Bye) and not distrust:
        out.write(f"the host ended the match: {escape(reason.reason)}\n")
    elif isinstance(reason, Error) and reason.code is ErrorCode.SHUTDOWN:
        raise CommandError(escape(reason.text))
    elif isinstance(reason, Error):
        raise CommandError(
            f"the host closed the connection: {escape(reason.code.value)}: {escape(reason.text)}"
        )
    if unfair:
        err.write(f"lanswitch: {len(unfair)} hand(s) did not verify fair\n")
        return 1
    if distrust:
        err.write(f"lanswitch: left the table: {escape(distrust[0])}\n")
        return 3
    return 0
