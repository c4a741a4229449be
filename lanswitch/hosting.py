"""A hosted table's shell parts, shared by ``lanswitch host`` and ``lanswitch play``: a new
table with its journal, or a table restored from the journal a crashed host left
(``--resume``), and the server that serves it.

A resumed table carries on as if the host had only paused: its clock continues from the
journal's last time (so no timer ran out while it was down), it listens on the port its
clients know, and every connection it had is gone — those players are away, and come back
with their resume tokens as after any lost link (``lanswitch.client`` keeps trying for
``HOST_GONE_AFTER`` seconds of refused connections).

Either way the data dir is made private first (:func:`lanswitch.datadir.make_private`: 0700,
its key, history and journal files 0600, tightening what an older version left readable).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import hmac
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .datadir import make_private
from .discovery import TableAdvertiser
from .errors import StateError
from .host import Host, HostConfig, ReplayError
from .journal import Journal, JournalError, Unfinished, damaged, journal_dir, unfinished
from .protocol import PROTOCOL_VERSION
from .server import Server
from .session import Session
from .tls import Identity, server_context

__all__ = [
    "HostedTable",
    "ResumeError",
    "advertiser_for",
    "follow_open_seats",
    "interrupted",
    "mid_match",
    "new_table",
    "owner_session",
    "resume_table",
    "serve",
    "settle",
    "steady_memory",
    "stopped_text",
]


class ResumeError(StateError):
    """No table can be resumed (the text says why, and what there is)."""


@dataclass
class HostedTable:
    """A host, its journal (None: the table cannot be resumed after a crash) and its clock."""

    host: Host
    journal: Journal | None
    clock: Callable[[], float]
    port: int  # the port to listen on (resumed: the one its clients know)
    address: str  # the address to listen on
    replayed: int = 0  # journal records replayed (a resumed table)
    replay_s: float = 0.0
    log_from: int = 0  # the host's log lines from here on are this process's to show
    dropped: int = 0  # connections the crashed host had open (their players come back)
    stopped_at: str = ""  # where the journal left the table, in words
    warning: str | None = None  # why there is no journal
    stopped: bool = False  # interrupted mid-match: stopped, its journal kept for --resume

    @property
    def resumed(self) -> bool:
        return self.replayed > 0


def new_table(
    config: HostConfig, data: Path, *, address: str, port: int, journal: bool = True
) -> HostedTable:
    """A new table, journaled in ``data`` (if the journal cannot be made, the table is
    hosted anyway, without crash recovery, and ``warning`` says why)."""
    j: Journal | None = None
    warning = None
    with contextlib.suppress(OSError):  # if it cannot be made, the journal says so below
        make_private(data)
    if journal:
        try:
            j = Journal.create(data, config.name)
            j.set("address", address)
        except JournalError as e:
            warning = f"the table cannot be resumed after a crash: {e}"
    host = Host(config, entropy=os.urandom, now=time.monotonic(), journal=j is not None, asks=True)
    if j is not None:
        try:
            j.write(host.inputs)  # the table's settings, before anything else happens
            host.inputs.clear()
        except JournalError as e:
            j.finish()
            j, host.journaling = None, False
            warning = f"the table cannot be resumed after a crash: {e}"
    return HostedTable(host, j, time.monotonic, port, address, warning=warning)


def resume_table(data: Path, name: str | None = None) -> HostedTable:
    """The newest unfinished table in ``data`` (named ``name``, if given), restored."""
    with contextlib.suppress(OSError):  # no data dir: nothing to resume, as said below
        make_private(data)
    tables = unfinished(data)
    candidates = [u for u in tables if name is None or u.name == name]
    if not candidates:
        where = journal_dir(data)
        named = f' named "{name}"' if name is not None else ""
        others = "; there are: " + ", ".join(u.describe() for u in tables) if tables else ""
        broken = damaged(data)
        if broken and not tables:
            # Not "nothing": a journal is there, and the player should hear what is wrong
            # with it, where it is, and that it does not stop a new table.
            raise ResumeError("; ".join(d.describe() for d in broken))
        raise ResumeError(f"no unfinished table{named} to resume in {where}{others}")
    found = candidates[0]
    if found.busy:
        raise ResumeError(f"table {found.describe()} is still being hosted by another lanswitch")
    try:
        journal = Journal.open(found.path)
    except JournalError as e:
        raise ResumeError(str(e)) from None
    try:
        t0 = time.perf_counter()
        records = list(journal.records())
        port, address = journal.get("port"), journal.get("address")
        if not records or not isinstance(port, int) or not isinstance(address, str):
            # It stopped before it listened: no one ever saw this table.
            journal.finish()
            raise ResumeError(f"table {found.describe()} never opened: nothing to resume")
        host = Host.restore(records, entropy=os.urandom, asks=True)
        took = time.perf_counter() - t0
    except (JournalError, ReplayError) as e:
        journal.close()
        raise ResumeError(f"cannot resume from {found.path}: {e}") from None
    if host.finished:
        journal.finish()
        raise ResumeError(f"the match at table {found.describe()} is over: nothing to resume")
    # The table's clock carries on from the journal's last moment: the time it was down
    # does not count against anyone's timer.
    offset = host.now - time.monotonic()

    def clock() -> float:
        return time.monotonic() + offset

    if host.hand is not None:
        stopped = f"hand {host.hand.game.hand_no}, step {host.hand.seq}"
    else:
        n = len(host.match.results)
        stopped = f"between hands, {n} played" if n else "in the lobby"
    log_from, dropped = host.log_since(0)[1], len(host.conns)
    host.drop_connections(clock())
    return HostedTable(
        host, journal, clock, port, address, len(records), took, log_from, dropped, stopped
    )


def interrupted(data: Path) -> tuple[Unfinished | None, list[str]]:
    """Before a new table is opened in ``data``: the newest table a host left unfinished (a
    crash, Ctrl-C mid-match) that ``--resume`` can carry on, None if there is none, and a
    note for each journal too damaged to resume."""
    with contextlib.suppress(OSError):
        tables = [u for u in unfinished(data) if not u.busy and _opened(u.path)]
        return (tables[0] if tables else None), [d.describe() for d in damaged(data)]
    return None, []


def _opened(path: Path) -> bool:
    """Whether the table of the journal at ``path`` ever listened (one that never did is no
    one's table to come back to: :func:`resume_table` removes it)."""
    try:
        j = Journal.open(path)
    except JournalError:
        return False
    try:
        return isinstance(j.get("port"), int)
    except JournalError:
        return False
    finally:
        j.close()


def owner_session(name: str, raw: bytes) -> Session:
    """The host's own player, made from the 32 bytes the journal keeps: the session key, and
    the fair deal's seeds, derived per round from them — so a ``play`` restarted after a crash
    commits and reveals in a round it had joined before exactly what it did then. (Only the
    host's own seat may do this: see ``Session``'s ``seed_for``.)"""
    key = Ed25519PrivateKey.from_private_bytes(raw)
    seeds = hashlib.sha256(b"lanswitch owner seeds\0" + raw).digest()

    def seed_for(ctx: bytes) -> bytes:
        return hmac.new(seeds, ctx, hashlib.sha256).digest()

    return Session(name, key=key, entropy=os.urandom, seed_for=seed_for, clock=time.monotonic)


def steady_memory() -> None:
    """Keep a long-running host's memory from creeping up as players come and go (glibc only).

    glibc serves a large block (each TLS connection's 256 KiB read buffer, for one) from its own
    mmap and gives it back when freed — until a large block is freed, which raises that
    threshold (up to 32 MiB). From then on the buffers of connections that come and go are cut
    from the heap, which fragments and never shrinks: ``benchmarks/soak.py`` measured the
    host's RSS rising about 5 MiB a minute with 1,000 clients churning, though nothing it held
    grew (``malloc_trim`` took it back to 79 MiB). Fixed thresholds keep it flat. Elsewhere
    (another libc, another system) this does nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    mallopt(m_mmap_threshold, 128 * 1024)
    mallopt(m_trim_threshold, 1024 * 1024)


async def serve(table: HostedTable, identity: Identity) -> Server:
    """Start serving ``table`` (OSError if its port cannot be had: then a new table's journal
    is removed, and a resumed table's is left for another try)."""
    steady_memory()
    j = table.journal

    def write(records: list[bytes]) -> None:
        assert j is not None
        try:
            j.write(records)
        except JournalError:
            # A journal that stopped short would resume an older table than its clients
            # saw: better none at all.
            j.finish()
            raise

    server = Server(
        table.host,
        ssl_context=server_context(identity),
        address=table.address,
        port=table.port,
        clock=table.clock,
        journal=None if j is None else write,
    )
    try:
        await server.start()
    except OSError:
        if j is not None:  # a new table never opened; a resumed one's stays for another try
            (j.close if table.resumed else j.finish)()
        raise
    if j is not None:
        try:
            j.set("port", server.port)
            j.set("stopped", None)  # a resumed table is running again: no longer stopped
        except JournalError as e:
            server.journal, server.journal_error = None, e
            table.host.journaling = False
    return server


def advertiser_for(table: HostedTable, port: int, identity: Identity) -> TableAdvertiser:
    """The zeroconf advertisement of ``table``, served on ``port`` (not started): on its one
    address, or on every interface; its free seats are the ones a person may take (empty, or
    a bot's: people before bots)."""
    host = table.host
    return TableAdvertiser(
        name=host.config.name,
        port=port,
        rules=host.rules_name,
        seats_total=host.config.seats,
        seats_free=host.table.open_seats(),
        fingerprint=identity.hex,
        version=PROTOCOL_VERSION,
        interfaces=None if table.address == "0.0.0.0" else [table.address],
        blind=host.blind,
        locked=host.config.password is not None,
    )


async def follow_open_seats(advertiser: TableAdvertiser, table: HostedTable) -> None:
    """Advertise the table's open seats again if they are not what the advertisement says,
    and its rules and deal (dealer-blind or not) if the host's player changed them in the
    lobby. The advertisement is the one record of what was announced: it was made before
    ``play``'s own player sat down, and a failed update keeps the old values, so the next
    call tries again."""
    host = table.host
    now = host.table.open_seats()
    if (now, host.blind, host.rules_name) != (
        advertiser.seats_free,
        advertiser.blind,
        advertiser.rules,
    ):
        # mDNS is a convenience: on failure the table plays on, and says so elsewhere
        with contextlib.suppress(Exception):
            await advertiser.update(seats_free=now, blind=host.blind, rules=host.rules_name)


def mid_match(host: Host) -> bool:
    """Whether stopping now leaves a match to come back to (a hand in play, or one played
    and the match not over): then an interrupted host keeps its journal (:meth:`Server.stop`)
    instead of ending the table. A lobby where nothing was played yet is simply closed."""
    return (
        not host.finished
        and not host.match.over
        and (host.hand is not None or bool(host.match.results))
    )


def stopped_text(command: str) -> str:
    """What every player at a table its host stopped mid-match reads (one line)."""
    return (
        f"the host stopped the table mid-match; it can carry on where it stopped (the host "
        f"runs lanswitch {command} --resume)"
    )


def settle(table: HostedTable) -> None:
    """After the server stopped: a finished table's journal goes (nothing to resume); an
    unfinished one's stays for ``--resume``."""
    j = table.journal
    if j is None:
        return
    if table.host.finished:
        j.finish()
        return
    if table.stopped:
        # Stopped on purpose: the next `play` says so, where a table whose host died is
        # "interrupted" (the newcomer pass: a table quit with q was offered as interrupted).
        with contextlib.suppress(JournalError):
            j.set("stopped", time.time())
    j.close()
