"""The host process of ``benchmarks/soak.py``: many real tables, each a :class:`Server` on its own
port of 127.0.0.1 with real TLS, all on one event loop, and what the parent asks of it.

Besides serving, the process answers the parent's ``stats`` requests with what the hosts hold
(open connections, lobby entries, resume keys, away seats, the hosts' log lines, hands played)
and, on request, the number of objects the garbage collector tracks — so a growth of the
resident memory the parent samples from ``/proc`` can be laid at a structure's door.

Once the clients have gone, the parent asks it to ``hurry``: every table's bots and stand-ins
then act every few milliseconds instead of ``bot_delay``. With protocol v2 the hands the
clients left are played out to their end by stand-ins (no one voids them any more), and a hand
of switch can run to hundreds of moves — minutes at 0.6 s a move — while the question asked
then is only whether each host lets go of everyone once its hand is over. ``held`` describes
every table still holding someone (its hand's stage, steps, the seat to act, how long since
the last step), so a table that stalled is told from one still playing.

Every failure of the host that would otherwise scroll past on stderr is counted: the server
shell logs a host exception (``log.exception``) and a dropped slow reader (``log.warning``);
an exception no one awaited lands in the event loop's exception handler. Both are caught here
(a logging handler on the root logger, a loop exception handler) and shipped to the parent
with their first lines, so "0 host exceptions" is a counted figure, not a silence.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import gc
import logging
import os
import re
import sys
import time
import traceback
import tracemalloc
from multiprocessing.connection import Connection as Pipe
from typing import Any

from _latency_harness import _pipe_queue, raise_nofile

from lanswitch.host import Host, HostConfig
from lanswitch.host._commit import CommitHand
from lanswitch.hosting import steady_memory
from lanswitch.rules import PRESETS
from lanswitch.server import Server, collector_policy
from lanswitch.tls import Identity, server_context

#: First lines of at most this many host failures are shipped to the parent (all are counted).
KEEP_FAILURES = 20


class _Failures(logging.Handler):
    """Counts every WARNING and above any logger emits in the host process."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.kinds: dict[str, int] = {}
        self.first: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        # One kind per logged message shape: its text before the first colon, numbers as N.
        shape = re.sub(r"\d+", "N", record.getMessage().split(":")[0])[:60]
        self.add(f"log:{record.levelname.lower()}:{record.name}:{shape}", self.format(record))

    def add(self, kind: str, text: str) -> None:
        self.count += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if len(self.first) < KEEP_FAILURES:
            self.first.append(f"{kind}: {text}"[:2000])


def host_config(i: int, cfg: dict[str, Any]) -> HostConfig:
    """Table ``i``: ``switch``, ``cfg["seats"]`` seats of which ``cfg["bots"]`` are host bots.

    A table waits ``cfg["grace_s"]`` on an absent player: the grace before the log says its
    link is lost and a stand-in plays the seat (``away_grace``, 5 s by default), and — cut
    from the defaults' 30 s — a fair-deal round's wait for a commitment or seed and the wait
    for the log heads: in this soak players leave mid-hand all the time, and each 30 s wait
    would stall its table. The paths are the same ones; only the clock runs faster.
    ``cfg["seat_limit_s"]``: how long a lost player's seat is kept (the host's default, 60 s,
    in the full soak).
    """
    grace = cfg["grace_s"]
    return HostConfig(
        name=f"soak{i}",
        rules=PRESETS["switch"],
        seats=cfg["seats"],
        bots=cfg["bots"],
        bot_strategy="heuristic",
        bot_delay=cfg["bot_delay_s"],
        hands=None,  # switch has no match target: the tables play on for the whole soak
        away_grace=grace,
        round_timeout=grace,
        heads_timeout=grace,
        seat_limit=cfg["seat_limit_s"],
    )


def _stats(servers: list[Server], failures: _Failures, objects: bool) -> dict[str, Any]:
    hosts = [s.host for s in servers]
    out: dict[str, Any] = {
        "t": time.monotonic(),
        "connections_total": sum(s.connections_total for s in servers),
        "conns": sum(len(h.conns) for h in hosts),
        "server_conns": sum(len(s._links) for s in servers),
        "clients": sum(len(h.table.clients) for h in hosts),
        "keys": sum(len(h.keys) for h in hosts),
        "away": sum(len(h.away) for h in hosts),
        "in_hand": sum(1 for h in hosts if h.hand is not None),
        "hands": sum(len(h.match.results) for h in hosts),
        "log_lines": sum(len(h.log) for h in hosts),
        "log_bytes": sum(sys.getsizeof(line) for h in hosts for line in h.log),
        "tasks": len(asyncio.all_tasks()),
        # Live blocks of Python's small-object allocator: unlike RSS, it falls when objects
        # are freed (RSS keeps the arenas and the C heap the process once grew to).
        "allocated_blocks": sys.getallocatedblocks(),
        "failures": failures.count,
        "failure_kinds": dict(failures.kinds),
        "failure_first": list(failures.first),
        "finished_tables": sum(1 for h in hosts if h.finished),
    }
    policy = collector_policy()
    out["gc_sweeps"] = policy.sweeps
    if objects:
        started = time.perf_counter()
        # Frozen ones too: the host's collector policy (lanswitch.gcpolicy.CollectorPolicy) keeps
        # the long-lived objects out of the collector's generations.
        out["gc_objects"] = len(gc.get_objects()) + gc.get_freeze_count()
        out["gc_frozen"] = gc.get_freeze_count()
        out["gc_objects_ms"] = (time.perf_counter() - started) * 1000
    return out


def _hurry(servers: list[Server], delay: float) -> int:
    """Every table's bots and stand-ins act after ``delay`` from now on; the tables still in
    a hand."""
    for s in servers:
        s.host.config = dataclasses.replace(s.host.config, bot_delay=delay)
    return sum(1 for s in servers if s.host.hand is not None)


def _held(servers: list[Server], top: int = 12) -> list[str]:
    """One line for each of the first ``top`` tables still holding someone or a hand."""
    out = []
    now = time.monotonic()
    for s in servers:
        h = s.host
        hand = h.hand
        if hand is None and not h.away and not h.table.clients and not h.conns:
            continue
        line = (
            f"{h.config.name}: conns {len(h.conns)}, lobby {len(h.table.clients)}, "
            f"away seats {sorted(h.away)}"
        )
        if hand is not None:
            assert isinstance(hand, CommitHand)  # the soak's tables deal commit-reveal
            game = hand.dealer.game
            line += (
                f"; hand {game.hand_no}: stage {hand.dealer.stage.name}, {hand.seq} steps, "
                f"{hand.dealer.log.count} log events, last step {now - hand.turn_since:.1f} s "
                f"ago, ended {hand.ended}"
            )
            if not hand.ended:
                line += f", seat {game.to_act()} to act"
        out.append(line)
        if len(out) >= top:
            break
    return out


def _collect_all() -> None:
    """A full collection, frozen objects included (the host's collector policy keeps the
    long-lived ones out of ``gc.collect``'s reach: its sweep is the full one)."""
    policy = collector_policy()
    if policy.installed:
        policy.sweep()
    else:
        gc.collect()


def _trim() -> bool:
    """Collect, then hand the C heap's free memory back to the system (glibc
    ``malloc_trim``): what RSS is left is memory still in use (or pinned by fragmentation),
    not memory merely kept for reuse. False where there is no glibc."""
    _collect_all()
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    libc.malloc_trim(0)
    return True


def _diff(baseline: tracemalloc.Snapshot, top: int = 15) -> list[str]:
    """What the host holds now that it did not at the baseline, by line of source, largest
    first (after a collection, so only what is still referenced)."""
    _collect_all()
    stats = tracemalloc.take_snapshot().compare_to(baseline, "lineno")
    total = sum(s.size_diff for s in stats)
    lines = [
        f"total {total / 1024 / 1024:+.2f} MiB in {sum(s.count_diff for s in stats):+,} blocks"
    ]
    for s in stats[:top]:
        where = f"{s.traceback[0].filename}:{s.traceback[0].lineno}"
        lines.append(f"{s.size_diff / 1024:+10.1f} KiB {s.count_diff:+8,} blocks  {where}")
    return lines


def host_process(pipe: Pipe, cfg: dict[str, Any]) -> None:
    """Entry point: start the tables, say ``ready`` with the ports, answer ``stats`` until
    ``stop``, then close every table and send the last stats."""
    raise_nofile(cfg["nofile"])
    failures = _Failures()
    failures.setFormatter(logging.Formatter("%(message)s"))
    logging.getLogger().addHandler(failures)

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def on_loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            exc = context.get("exception")
            text = str(context.get("message", ""))
            if exc is not None:
                text += "\n" + "".join(traceback.format_exception(exc))
            failures.add("loop_exception", text)

        loop.set_exception_handler(on_loop_error)
        queue = _pipe_queue(pipe)
        identity: Identity = cfg["identity"]
        ctx = server_context(identity)
        servers: list[Server] = []
        steady_memory()  # as lanswitch host and play set the allocator up (hosting.serve)
        try:
            for i in range(cfg["tables"]):
                host = Host(host_config(i, cfg), entropy=os.urandom, now=time.monotonic())
                server = Server(host, ssl_context=ctx, address="127.0.0.1", port=0)
                await server.start()
                servers.append(server)
        except Exception as e:
            pipe.send(("failed", f"host: {type(e).__name__}: {e}", traceback.format_exc()))
            return
        collector_policy().install()  # as lanswitch host does once serving (hosting.serve)
        baseline: tracemalloc.Snapshot | None = None
        pipe.send(("ready", os.getpid(), [s.port for s in servers]))
        for _ in range(10**7):  # bounded: the parent sends a stats request every few seconds
            msg = await queue.get()
            if msg[0] == "stats":
                pipe.send(("stats", _stats(servers, failures, objects=msg[1])))
            elif msg[0] == "trim":
                pipe.send(("trimmed", _trim()))
            elif msg[0] == "hurry":
                pipe.send(("hurried", _hurry(servers, msg[1])))
            elif msg[0] == "held":
                pipe.send(("held", _held(servers)))
            elif msg[0] == "baseline":  # --tracemalloc: trace from now on (idle, tables made)
                tracemalloc.start(1)
                baseline = tracemalloc.take_snapshot()
                pipe.send(("baseline", True))
            elif msg[0] == "diff" and baseline is not None:
                pipe.send(("diff", _diff(baseline)))
            else:
                break
        for s in servers:  # a table that stopped serving by itself is a failure of the host
            task = s._task
            if task is not None and task.done():
                exc = None if task.cancelled() else task.exception()
                failures.add("server_stopped", f"table {s.host.config.name}: {exc!r}")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(20.0):
                await asyncio.gather(*(s.close() for s in servers), return_exceptions=True)
        pipe.send(("closed", _stats(servers, failures, objects=False)))

    asyncio.run(main())
