"""The lanswitch side of ``benchmarks/latency.py``: real hosts and real bot clients.

The server process runs one :class:`lanswitch.server.Server` per table, each on its own port
of 127.0.0.1, all on one event loop: one host process carrying 250 tables is the load the
issue asks about (a LAN party's host would carry one). Each client is a
:class:`lanswitch.session.Session` over a pinned TLS connection
(:func:`lanswitch.tls.open_pinned_connection`) with a sans-I/O
:class:`lanswitch.protocol.Connection`: it says hello, takes a seat, says ready by itself, takes
part in every fair-deal round (commit, reveal, signed log heads, the transcript check), and
when its turn comes plays a random legal move (``make_bot("random", …)``).

The fair deal v2's cost on a move: the mover's client signs it (Ed25519, over the log as it
holds it: :meth:`lanswitch.session.Session.move`), the host checks that signature before it
plays the move (and signs the moves it makes itself: bots, stand-ins), and every client at
the table checks the move's signature as the step arrives (its ``SeatRecorder``) — one
signature and about 1 + N verifications per move, N the people at the table. All of it is in
the figures: the host's checks in the server's CPU and round trips, the clients' in the client
processes' CPU.

The clients of one process share the library's memo of verified signatures
(``lanswitch.fairdeal.primitives.VERIFIED``): a move's signature is checked once per client
process as it arrives — the first of the table's four clients pays for it, the other three find
it known good (issue #17: the load generator must not be what limits the host's figure, and on
two cores it was: a thousand clients checking every move four times took a whole core at
~700 actions/s, 0.85 ms of client CPU per action). What a real client does is more than this:
each player's laptop checks every move itself, about 90 µs a move on this machine — the
clients' CPU here is a lower bound of the whole table's. ``fresh_checks`` (``latency.py
--fresh-checks``) makes every check afresh instead, as before issue #17
(``_latency_harness.forget_verified``): then the clients' CPU is an upper bound (a client's
check of a finished hand verifies again the moves it checked live, which a real client's own
memo would spare it). The server process keeps the memo, as ``lanswitch host`` does. In the
same way the clients of one process decode each frame's payload once
(``_latency_harness.share_decodes``): a table's four clients are sent the same bytes for about
a third of what they receive, and decoding and checking what it received was a fifth of the
load generator's time (``--profile``, issue #17); ``fresh_checks`` turns that off as well.

Each client's check of each finished hand (its transcript, :func:`lanswitch.fairdeal.verify`:
a few ms, most of it Ed25519 signature checks — every move's among them) runs in a worker
thread of its client process, not on the clients' event loop: a real client checks on its own
machine, but here a thousand share one loop, where a table's four checks at the end of a hand
would stall every other client for tens of ms. (A thread, not a process: the client processes
are daemons, which may have no children. The interpreter's switch interval is cut to 1 ms, so
the thread holds the loop up for at most about that long at a time.) Its CPU time (the
thread's own) is counted (``check_cpu_us``). A verdict that is not fair counts as an error
(``verdict:…``): no one leaves here, so every hand must be fair with everyone confirming; the
hands checked fair are counted. The client processes also move what their setup made out of
the garbage collector's reach (``gc.freeze``) and then switch the collector off: a thousand
clients' objects in one heap make collections, even young ones, of milliseconds that no real
client's small heap has (``_latency_harness._client_main`` says why; each step reports the
client process's RSS, ``client_rss_kib``, so the garbage kept instead is seen).

What is timed: a ``move`` from just before the client signs it (protocol v2: a move is not
ready to send until signed) to just after the client's own next ``view`` (the first one whose
``seq`` is the move's ``seq + 1``) has been decoded. The echo's request is timed from just
before it is written: the difference is the signature and the move's encoding (the signing
alone is counted too, ``sign_us``, so the report can give it; v1's benchmark started after the
encoding, and v1 signed no move). A ``reject``, a lost connection or an ``error`` is counted
as an error of the step it falls in.

Pacing: the client whose turn it is waits for its table's next slot of the schedule (shared by
the table's four clients) before it sends; with an unpaced step it sends at once. Nothing else
is paced: between hands the fair deal runs at the speed of the wire, as it would at a table.

(a) uses one client at a table whose three other seats are the host's own bots (``bot_delay``
a few milliseconds, so a bot's move never overlaps the client's round trip): a single remote
client, one request in flight, as the echo's one client. Four clients at one table in one
client process would time the load generator's own queue (the host answers every seat at
once, and the mover's answer may be read last).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import pstats
import random
import ssl
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from _latency_harness import (
    Recorder,
    Schedule,
    Session,
    Step,
    StepResult,
    forget_verified,
    gather_limited,
    run_session,
    share_decodes,
)
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import protocol as p
from lanswitch.bots import Bot, make_bot
from lanswitch.fairdeal import Transcript, verify
from lanswitch.host import Host, HostConfig
from lanswitch.journal import Journal
from lanswitch.rules import PRESETS, RuleSet
from lanswitch.server import Server, collector_policy
from lanswitch.session import Session as ClientSession
from lanswitch.tls import Identity, open_pinned_connection, server_context

#: (a)'s host bots wait this long before acting: longer than a round trip, so the measured
#: client's move is the only thing the host is doing while it is timed.
ONE_CLIENT_BOT_DELAY_S = 0.002
#: The client processes' interpreter switch interval (default 5 ms): the longest the checker
#: thread holds the event loop up at a time.
CHECKER_SWITCH_S = 0.001
#: A move not answered in this long is given up (an error) so the table can go on.
MOVE_TIMEOUT_S = 5.0


# --- the server process -------------------------------------------------------------------------


class _Tables:
    """The server process's tables: one Server per table, all on this event loop."""

    def __init__(self, servers: list[Server]) -> None:
        self.servers = servers
        self.ports = [s.port for s in servers]

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.servers), return_exceptions=True)


async def start_tables(cfg: dict[str, Any]) -> _Tables:
    """Start ``cfg["tables"]`` tables of 4 seats (``cfg["bots"]`` of them the host's bots)."""
    identity: Identity = cfg["identity"]
    ctx = server_context(identity)
    servers: list[Server] = []
    rules = PRESETS["switch"]
    if cfg.get("hand_size") is not None:  # shorter hands: --quick (latency.py's Sizes)
        size = int(cfg["hand_size"])
        rules = replace(rules, deal=replace(rules.deal, hand_size=(size,) * 7))
    for i in range(cfg["tables"]):
        config = HostConfig(
            name=f"t{i}",
            rules=rules,
            seats=4,
            bots=cfg["bots"],
            bot_strategy="random",
            bot_delay=cfg["bot_delay"],
            hands=None,  # switch scores no match target: the match never ends
        )
        journal: Journal | None = None
        if cfg.get("journal") is not None:  # crash recovery on: benchmarks/journal.py
            journal = Journal.create(Path(cfg["journal"]), config.name)
        host = Host(config, entropy=os.urandom, now=time.monotonic(), journal=journal is not None)
        server = Server(
            host,
            ssl_context=ctx,
            address="127.0.0.1",
            port=0,
            journal=None if journal is None else journal.write,
        )
        await server.start()
        servers.append(server)
    # The host's collector policy, as ``lanswitch host`` installs it once serving (issue #17).
    collector_policy().install()
    return _Tables(servers)


# --- the clients --------------------------------------------------------------------------------


@dataclass(slots=True)
class _Table:
    index: int  # global, for the stagger
    port: int
    last_slot: float = -1.0


@dataclass(slots=True)
class _Client:
    table: _Table
    session: ClientSession
    conn: p.Connection
    rng: random.Random
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    bot: Bot | None = None
    bot_rules: RuleSet | None = None
    pending: tuple[int, int, float] | None = None  # (recorder token, move seq, sent at)
    actor: asyncio.Task[None] | None = None  # waiting for the table's slot, then moving
    seated: asyncio.Event = field(default_factory=asyncio.Event)
    dealt: asyncio.Event = field(default_factory=asyncio.Event)
    finished: bool = False
    first_at_table: bool = False  # counts the table's hands


class GameDriver:
    """Bot clients for the tables ``cfg["tables"]`` (global indices; ports in ``cfg["ports"]``,
    one per table of the whole run, by global index)."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self.fingerprint: bytes = cfg["identity"].fingerprint
        self.per_table: int = cfg["per_table"]
        ports: list[int] = cfg["ports"]
        self.tables = [_Table(i, ports[i]) for i in cfg["tables"]]
        self.clients: list[_Client] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.connected = 0
        self.recorder: Recorder | None = None
        self.schedule: asyncio.Future[Schedule] | None = None
        self.setup_errors: dict[str, int] = {}
        self.checker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="checker")
        sys.setswitchinterval(CHECKER_SWITCH_S)
        if cfg.get("fresh_checks"):
            forget_verified()  # every client checks every signature itself (module docstring)
        else:
            share_decodes()  # each frame decoded once per process (module docstring)
        seed = cfg.get("seed", 1)
        for t in self.tables:
            for k in range(self.per_table):
                session = ClientSession(
                    f"bot{t.index}-{k}",
                    key=Ed25519PrivateKey.generate(),
                    entropy=os.urandom,
                    auto_ready=True,
                    verify_hands=False,  # checked in self.checker instead (module docstring)
                )
                rng = random.Random(seed * 1_000_003 + t.index * 8 + k)
                c = _Client(t, session, p.Connection(p.Role.CLIENT), rng, first_at_table=k == 0)
                self.clients.append(c)

    async def setup(self) -> None:
        """Connect everyone, then wait until every table has dealt its first hand, so the
        schedule starts on tables in play rather than on a burst of handshakes and deals."""
        self.schedule = asyncio.get_running_loop().create_future()

        def connector(c: _Client) -> Any:
            async def connect() -> None:
                c.reader, c.writer = await open_pinned_connection(
                    "127.0.0.1", c.table.port, self.fingerprint, timeout=30.0
                )
                self.connected += 1
                self.tasks.append(asyncio.create_task(self._client_loop(c)))
                await c.seated.wait()

            return connect

        await gather_limited([connector(c) for c in self.clients], limit=32)
        await asyncio.gather(*(c.dealt.wait() for c in self.clients))

    async def run(self, schedule: Schedule, recorder: Recorder) -> None:
        self.recorder = recorder
        assert self.schedule is not None
        self.schedule.set_result(schedule)
        while time.monotonic() < schedule.stop_at:
            await asyncio.sleep(min(0.05, max(0.0, schedule.stop_at - time.monotonic())))

    async def close(self) -> None:
        self.checker.shutdown(wait=False, cancel_futures=True)
        tasks = self.tasks + [c.actor for c in self.clients if c.actor is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        writers = [c.writer for c in self.clients if c.writer is not None]
        for w in writers:
            w.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5.0):
                await asyncio.gather(*(w.wait_closed() for w in writers), return_exceptions=True)

    # -- one client --------------------------------------------------------------------------

    def _error(self, kind: str) -> None:
        if self.recorder is not None:
            self.recorder.error(kind, time.monotonic())
        else:
            self.setup_errors[kind] = self.setup_errors.get(kind, 0) + 1

    async def _client_loop(self, c: _Client) -> None:
        assert c.reader is not None
        assert c.writer is not None
        reader, writer, conn, session = c.reader, c.writer, c.conn, c.session
        writer.write(conn.send(session.hello()))
        while True:
            try:
                data = await reader.read(65536)
            except (ConnectionError, OSError, ssl.SSLError):
                data = b""
            try:
                messages = conn.receive_data(data)
            except p.RemoteProtocolError as e:
                self._error(f"protocol:{e.code.value}")
                return
            t_reply = time.monotonic()
            replies: list[p.Message] = []
            for m in messages:
                pending = c.pending
                if pending is not None:
                    if isinstance(m, p.SeatView) and m.seq == pending[1] + 1:
                        if self.recorder is not None:
                            self.recorder.answered(pending[0], t_reply)
                        c.pending = None
                    elif isinstance(m, p.Reject):
                        self._error(f"reject:{m.code.value}")
                        c.pending = None
                if isinstance(m, p.Error):
                    self._error(f"error:{m.code.value}")
                elif isinstance(m, p.Hand) and c.first_at_table and self.recorder is not None:
                    self.recorder.count("hands", t_reply)
                replies.extend(session.receive(m))
            session.news.clear()  # the load generator keeps no screen: bounded memory
            for record in session.history:
                # The commit-reveal transcript, checked again here (a dealer-blind file is not).
                source = None if record.proof is None else record.proof.source
                if isinstance(source, Transcript):
                    self._check(source)
            session.history.clear()
            if replies and not conn.closed:
                writer.write(conn.send_all(replies))
            if session.seat is not None:
                c.seated.set()
            if session.view is not None:
                c.dealt.set()
            if not data or conn.closed:
                if not c.finished:
                    self._error("closed")
                return
            if c.pending is not None and t_reply - c.pending[2] > MOVE_TIMEOUT_S:
                self._error("timeout")
                c.pending = None
            if c.pending is None and c.actor is None and not c.finished and session.my_turn():
                c.actor = asyncio.create_task(self._act(c))

    def _check(self, transcript: Transcript) -> None:
        """Check a finished hand in the worker; an unfair verdict is an error."""
        future = asyncio.get_running_loop().run_in_executor(self.checker, _verdict, transcript)

        def done(f: asyncio.Future[tuple[str, float]]) -> None:
            if f.cancelled():
                return
            status, cpu_s = ("check-failed", 0.0) if f.exception() is not None else f.result()
            if status != "fair":
                self._error(f"verdict:{status}")
            elif self.recorder is not None:
                now = time.monotonic()
                self.recorder.count("checked", now)
                self.recorder.count("check_cpu_us", now, round(cpu_s * 1e6))

        future.add_done_callback(done)

    async def _act(self, c: _Client) -> None:
        """Wait for the table's next slot, then play a random legal move.

        A task of its own, so the client goes on reading (and answering the host's pings)
        while it waits: a client that stopped reading for long would be dropped as gone.
        """
        try:
            await self._act_once(c)
        finally:
            c.actor = None

    async def _act_once(self, c: _Client) -> None:
        assert self.schedule is not None
        assert c.writer is not None
        schedule = await self.schedule
        slot = schedule.next_slot(c.table.index, time.monotonic(), c.table.last_slot)
        if slot is None:
            c.finished = True  # the schedule is over: this client only listens now
            return
        c.table.last_slot = slot
        delay = slot - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        session = c.session
        view, rules = session.view, session.rules
        if view is None or rules is None or not session.my_turn():
            return
        if c.bot is None or c.bot_rules is not rules:
            c.bot, c.bot_rules = make_bot("random", rules), rules
        move = c.bot.choose_legal(list(view.legal), c.rng)
        t_send = time.monotonic()  # the round trip starts here: the move is signed, then sent
        message = session.move(move)
        t_signed = time.monotonic()
        c.writer.write(c.conn.send(message))
        token = self.recorder.sent(t_send) if self.recorder is not None else -1
        if token >= 0 and self.recorder is not None:
            self.recorder.count("signed", t_send)
            self.recorder.count("sign_us", t_send, round((t_signed - t_send) * 1e6))
        c.pending = (token, message.seq, t_send)


def _verdict(transcript: Transcript) -> tuple[str, float]:
    """In the checker thread: the hand's verdict (``fair``, ``unconfirmed``, ``unfair`` or
    ``void``) and the CPU time this thread spent on it, in seconds."""
    began = time.thread_time()
    status = verify(transcript).status
    return status, time.thread_time() - began


# --- the phases ---------------------------------------------------------------------------------


def _profile_path(directory: Path | None, name: str) -> str | None:
    if directory is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    return str(directory / f"{name}.prof")


def game_one(
    identity: Identity,
    one_s: float,
    profile: Path | None,
    gc_freeze: bool = False,
    journal: Path | None = None,
    period_s: float = 0.0,
    hand_size: int | None = None,
) -> Session:
    """(a): one client at a table with three host bots, sequential moves: each as soon as it
    is the client's turn, or with ``period_s`` at the first slot of the period after that
    (with ``journal``, the host journals to a file in that directory, as ``lanswitch host``
    does)."""
    return run_session(
        server_start=start_tables,
        server_cfg={
            "identity": identity,
            "tables": 1,
            "bots": 3,
            "bot_delay": ONE_CLIENT_BOT_DELAY_S,
            "profile": _profile_path(profile, "server-one"),
            "gc_freeze": gc_freeze,
            "journal": None if journal is None else str(journal),
            "hand_size": hand_size,
        },
        client_kind="game",
        client_cfgs=lambda pid, ports: [
            {"identity": identity, "ports": ports, "tables": [0], "per_table": 1}
        ],
        n_tables=1,
        steps=[Step(period_s, one_s, min(0.5, one_s / 4))],
        keep_going=lambda k, r: True,
        setup_timeout_s=30.0,
    )


def game_load(
    identity: Identity,
    *,
    client_tables: list[list[int]],
    per_table: int,
    steps: Sequence[Step],
    keep_going: Callable[[int, StepResult], bool],
    profile: Path | None,
    profile_name: str = "server-load",
    gc_freeze: bool = False,
    fresh_checks: bool = False,
    hand_size: int | None = None,
) -> Session:
    """(b) and (c): tables of bot clients (``client_tables``: the global table indices of each
    client process), paced by ``steps``, stopped early when ``keep_going`` says so."""
    n_tables = sum(len(t) for t in client_tables)
    nofile = 4 * n_tables * per_table + 256
    return run_session(
        server_start=start_tables,
        server_cfg={
            "identity": identity,
            "tables": n_tables,
            "bots": 4 - per_table,
            "bot_delay": 0.0,
            "nofile": nofile,
            "hand_size": hand_size,
            "profile": _profile_path(profile, profile_name),
            "gc_freeze": gc_freeze,
        },
        client_kind="game",
        client_cfgs=lambda pid, ports: [
            {
                "identity": identity,
                "ports": ports,
                "tables": tables,
                "per_table": per_table,
                "nofile": nofile,
                "profile": _profile_path(profile, f"clients-{profile_name}-{k}"),
                "fresh_checks": fresh_checks,
            }
            for k, tables in enumerate(client_tables)
        ],
        n_tables=n_tables,
        steps=steps,
        keep_going=keep_going,
        setup_timeout_s=180.0,
    )


#: Where a profiled function's own time goes: the first rule whose text is in
#: ``file:function``. Builtins that match no rule (``len``, ``getattr``, ``dict.get``…) are
#: charged to the areas of their callers, in proportion to the time each caller spent in them.
_AREAS: tuple[tuple[str, str], ...] = (
    ("'poll' of 'select.epoll'", "idle (waiting in epoll)"),
    ("'send' of '_socket", "socket send syscalls (loopback delivery included)"),
    ("'recv", "socket recv syscalls"),
    ("_ssl.", "TLS records and handshakes (_ssl)"),
    ("sslproto.py", "asyncio TLS transport (sslproto.py)"),
    ("/ssl.py", "asyncio TLS transport (sslproto.py)"),
    ("lanswitch/protocol/", "lanswitch protocol: encode, decode, schema checks"),
    ("msgpack", "lanswitch protocol: encode, decode, schema checks"),
    ("lanswitch/server.py", "lanswitch server shell"),
    ("lanswitch/door.py", "lanswitch server shell"),
    ("lanswitch/gcpolicy.py", "lanswitch server shell"),
    ("lanswitch/", "lanswitch host: table, engine, fair deal"),
    ("ed25519", "lanswitch host: table, engine, fair deal"),
    ("cryptography", "lanswitch host: table, engine, fair deal"),
    ("Game", "lanswitch host: table, engine, fair deal"),
    ("hashlib", "lanswitch host: table, engine, fair deal"),
    ("dataclasses.py", "dataclasses.fields (called by protocol and host)"),
    ("asyncio/", "asyncio loop, streams, tasks"),
    ("selectors.py", "asyncio loop, streams, tasks"),
)

_Key = tuple[str, int, str]


def _area(key: _Key) -> str | None:
    text = f"{key[0]}:{key[2]}"
    for part, area in _AREAS:
        if part in text:
            return area
    return None


def profile_areas(path: Path) -> list[tuple[str, float]]:
    """Own time per area of a profiled process, busiest first (idle included)."""
    stats = pstats.Stats(str(path))
    raw: dict[_Key, tuple[int, int, float, float, dict[_Key, tuple[Any, ...]]]]
    raw = stats.stats  # type: ignore[attr-defined]
    areas: dict[str, float] = {}

    def charge(area: str, t: float) -> None:
        areas[area] = areas.get(area, 0.0) + t

    for key, (_cc, _nc, tottime, _ct, callers) in raw.items():
        area = _area(key)
        if area is not None:
            charge(area, tottime)
            continue
        shares = {c: float(v[2]) for c, v in callers.items()}
        total = sum(shares.values())
        if total <= 0:
            charge("other", tottime)
            continue
        for caller, t in shares.items():
            charge(_area(caller) or "other", tottime * t / total)
    return sorted(areas.items(), key=lambda kv: -kv[1])


def print_profile(directory: Path, top: int = 25) -> None:
    """Where the lanswitch server process's time went, and then each client process's (the
    load generator, which must not be the bottleneck), from the cProfile stats."""
    servers = [directory / f"{name}.prof" for name in ("server-one", "server-load", "server-ramp")]
    for path in [*servers, *sorted(directory.glob("clients-*.prof"))]:
        if not path.exists():
            continue
        name = path.stem
        who = "client" if name.startswith("clients-") else "server"
        areas = profile_areas(path)
        busy = sum(t for a, t in areas if not a.startswith("idle"))
        print(f"\n--- cProfile of the lanswitch {who} process ({name}): own time by area ---")
        for area, t in areas:
            share = "" if area.startswith("idle") else f" {t / busy:6.1%} of busy"
            print(f"  {t:8.3f} s{share}  {area}")
        print(f"--- {name}, by own time ---")
        stats = pstats.Stats(str(path))
        stats.sort_stats("tottime").print_stats(top)
        print(f"--- {name}, by cumulative time ---")
        stats.sort_stats("cumulative").print_stats(top)
