"""The machinery of ``benchmarks/latency.py``: paced schedules, client and server processes.

Why a harness of its own: the lanswitch host and the bare echo anchor must be loaded in exactly
the same way, or their ratio means nothing (``/work/shared/notes/perf.md``: a closed loop of
1,000 clients measures a saturated queue, not latency). So both are driven by the same
:class:`Schedule` (tables of clients, one acting client per table, each table acting on its own
slots of a common period, starts staggered evenly over the period) and recorded by the same
:class:`Recorder`; only the :class:`Driver` differs (``_latency_echo.EchoDriver``,
``_latency_game.GameDriver``).

Processes: the server runs in one child process and the clients in one or more others (spawned,
so no event loop or socket is inherited). A client process connects everything first, says
``ready``, and starts the schedule at a time the parent gives; the parent merges the clients'
figures step by step and may stop the schedule early (a rising rate that already failed). Every
wait is bounded; children are ended by their own process id only.

A round trip is measured in the client process from just before the request is written to just
after the awaited reply has been decoded. The client process also samples the server process's
CPU time and memory from ``/proc`` at the edges of each measurement window, so a figure comes
with where the time went (server CPU busy, or the load generator itself).
"""

from __future__ import annotations

import array
import asyncio
import bisect
import contextlib
import cProfile
import gc
import math
import multiprocessing as mp
import os
import resource
import sys
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

#: How long after a step ends its round trips may still come back and count. A request not
#: answered by then is counted as an error of that step (never silently dropped).
GRACE_S = 2.0

_CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- /proc and limits -------------------------------------------------------------------------


def raise_nofile(wanted: int) -> int:
    """Raise the soft open-file limit to ``wanted`` (at most the hard limit); the new soft limit.

    1,000 TLS clients need 1,000 sockets in the client process and as many in the server.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return int(soft)


def proc_memory(pid: int) -> dict[str, int]:
    """``VmRSS`` (current) and ``VmHWM`` (peak) resident memory of ``pid`` in KiB; {} if gone."""
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    key, value = line.split(":", 1)
                    out[key] = int(value.split()[0])
    except (OSError, ValueError):
        return {}
    return {"rss_kib": out.get("VmRSS", 0), "peak_rss_kib": out.get("VmHWM", 0)}


def proc_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds used so far by ``pid`` (from ``/proc/PID/stat``); None if gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK


def machine_cpu_s() -> tuple[float, float]:
    """CPU seconds the whole machine has been busy (all cores, every process) and lost to
    the hypervisor (steal), from ``/proc/stat``; (0, 0) if unreadable."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()[1:]
    except OSError:
        return 0.0, 0.0
    v = [int(x) for x in fields] + [0] * 8
    user, nice, system, _idle, _iowait, irq, softirq, steal = v[:8]
    return (user + nice + system + irq + softirq) / _CLK_TCK, steal / _CLK_TCK


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..1) of an ascending sequence; NaN if empty."""
    if not sorted_values:
        return math.nan
    rank = min(len(sorted_values), max(1, math.ceil(q * len(sorted_values))))
    return sorted_values[rank - 1]


def lag_summary(lags: Sequence[float]) -> dict[str, float]:
    """p50, p99 and max of event-loop lags (seconds), for one window."""
    ordered = sorted(lags)
    return {
        "p50": percentile(ordered, 0.50),
        "p99": percentile(ordered, 0.99),
        "max": ordered[-1] if ordered else math.nan,
    }


#: How late an idle asyncio loop may wake: epoll's timeout is in whole milliseconds.
EPOLL_ROUNDING_S = 0.001


class LagProbe:
    """How late an event loop runs a timer, and how long the garbage collector stopped it.

    A coroutine asks to sleep ``interval`` and records how much longer it took. A loop busy
    with other work (a burst of messages, a transcript being verified, a slow callback, a
    collection of the cyclic garbage collector) runs everything late, and every round trip
    through it waits that long. Probing both processes tells a slow host from a slow load
    generator: on a LAN the clients would each have their own machine, so only the server's
    lag belongs to lanswitch. ``gc.callbacks`` time each collection, so a stall can be laid
    at the collector's door. The probe costs ``1 / interval`` timer wake-ups a second.
    """

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.times: array.array[float] = array.array("d")
        self.lags: array.array[float] = array.array("d")
        self.off_cpu: array.array[float] = array.array("d")
        self.gc_times: array.array[float] = array.array("d")
        self.gc_pauses: array.array[float] = array.array("d")
        self.gc_generations: array.array[int] = array.array("b")
        self._gc_start = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.monotonic()
            return
        self.gc_times.append(self._gc_start)
        self.gc_pauses.append(time.monotonic() - self._gc_start)
        self.gc_generations.append(info.get("generation", 0))

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._on_gc)

    async def run(self) -> None:
        # The loop is never idle while a timer is overdue (it would run it) but for the
        # rounding of epoll's timeout to the millisecond, so of each lag, whatever this thread
        # did not spend on a CPU since the sleep began, less that millisecond, was spent
        # waiting for one: ``off_cpu`` is that lower bound (the machine, not the loop).
        interval = self.interval
        while True:
            t, cpu = time.monotonic(), time.thread_time()
            await asyncio.sleep(interval)
            now = time.monotonic()
            lag = now - t - interval
            self.times.append(now)
            self.lags.append(lag)
            self.off_cpu.append(max(0.0, lag - (time.thread_time() - cpu) - EPOLL_ROUNDING_S))

    def window(self, begin: float, end: float) -> dict[str, float]:
        """Lag p50, p99 and max of the probes that woke in ``[begin, end)``, and the p99 of
        the part of each lag the loop's thread spent off a CPU (``off_cpu_p99``); the longest
        and the total garbage-collector pause there, and how many full (generation 2) ones."""
        i = bisect.bisect_left(self.times, begin)
        j = bisect.bisect_left(self.times, end)
        out = lag_summary(self.lags[i:j])
        off = sorted(self.off_cpu[i:j])
        out["off_cpu_p99"] = percentile(off, 0.99)
        i = bisect.bisect_left(self.gc_times, begin)
        j = bisect.bisect_left(self.gc_times, end)
        pauses = self.gc_pauses[i:j]
        out["gc_max"] = max(pauses, default=0.0)
        out["gc_total"] = sum(pauses)
        out["gc_full"] = float(sum(1 for g in self.gc_generations[i:j] if g == 2))
        return out


# --- the schedule -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One stretch of a schedule: every table may act once per ``period_s`` for ``duration_s``.

    ``period_s`` 0 means unpaced: the acting client sends as soon as it may (the one-client
    round trip, one request in flight at a time). Round trips sent in the first ``warmup_s``
    are not recorded: connections, caches and queues settle after a change of rate.
    """

    period_s: float
    duration_s: float
    warmup_s: float


class Schedule:
    """When each table may act: ``steps`` one after the other from ``t0`` (``time.monotonic``).

    Table ``i`` of ``n_tables`` acts in step ``k`` at ``start_k + (i / n_tables + j) * period``
    for ``j = 0, 1, …``: one slot per period per table, the tables' slots spread evenly over
    the period (staggered starts, as real tables are). A table whose round trip overruns its
    next slot skips to the one after (:meth:`next_slot`), so an overloaded host shows up as a
    lower achieved rate as well as a higher latency. ``time.monotonic`` is the system-wide
    ``CLOCK_MONOTONIC`` on Linux, so one ``t0`` holds across the client processes.
    """

    def __init__(self, t0: float, steps: Sequence[Step], n_tables: int) -> None:
        self.t0 = t0
        self.steps = tuple(steps)
        self.n_tables = max(1, n_tables)
        self.starts: list[float] = []
        t = t0
        for s in self.steps:
            self.starts.append(t)
            t += s.duration_s
        self.end = t
        self.stop_at = t  # moved earlier by stop()

    def stop(self, now: float) -> None:
        """End the schedule at ``now``: no slot is given out after it."""
        self.stop_at = min(self.stop_at, now)

    def step_at(self, t: float) -> int | None:
        """The index of the step running at ``t``; None before the start or after the end."""
        if t < self.t0 or t >= self.stop_at:
            return None
        return bisect.bisect_right(self.starts, t) - 1

    def window(self, k: int) -> tuple[float, float]:
        """The measurement window of step ``k``: after its warm-up, to its end."""
        s = self.steps[k]
        return self.starts[k] + s.warmup_s, self.starts[k] + s.duration_s

    def next_slot(self, table: int, now: float, last: float) -> float | None:
        """The first slot of ``table`` at or after ``now`` and after ``last`` (its previous
        slot); None once the schedule is over."""
        t = max(now, self.t0, last + 1e-9)
        while True:
            k = self.step_at(t)
            if k is None:
                return None
            step, start = self.steps[k], self.starts[k]
            end = start + step.duration_s
            if step.period_s <= 0:
                return t
            phase = start + step.period_s * (table % self.n_tables) / self.n_tables
            j = max(0, math.ceil((t - phase) / step.period_s - 1e-9))
            slot = phase + j * step.period_s
            if slot <= last:
                slot += step.period_s
            if slot < min(end, self.stop_at):
                return slot
            t = end  # into the next step (or past the end: None)


# --- the recorder -----------------------------------------------------------------------------


@dataclass(slots=True)
class _StepFigures:
    latencies: array.array[float] = field(default_factory=lambda: array.array("d"))
    sent: int = 0
    errors: int = 0
    error_kinds: Counter[str] = field(default_factory=Counter)
    counts: Counter[str] = field(default_factory=Counter)
    samples: dict[str, float] = field(default_factory=dict)


class Recorder:
    """Round trips and errors per step, shipped to the parent ``GRACE_S`` after each step.

    :meth:`sent` opens a round trip (recorded only if sent inside a step's measurement
    window), :meth:`answered` closes it. A round trip still open when its step is shipped is
    counted as an ``unanswered`` error. At the edges of each window the server's and this
    process's CPU time and the server's memory are sampled, so the parent can say how busy
    each side was.
    """

    def __init__(
        self,
        schedule: Schedule,
        pipe: Pipe,
        server_pid: int,
        sample_server: bool,
        probe: LagProbe,
    ) -> None:
        self.schedule = schedule
        self.probe = probe
        self.pipe = pipe
        self.server_pid = server_pid
        self.sample_server = sample_server
        self.steps = [_StepFigures() for _ in schedule.steps]
        self.open: dict[int, tuple[int, float]] = {}
        self.outside_errors: Counter[str] = Counter()
        self._next_token = 0
        self.shipped = -1
        self.last_step = len(schedule.steps) - 1  # the last step to ship (lowered by a stop)
        self.all_shipped = asyncio.Event()
        self._handles: list[asyncio.TimerHandle] = []

    def arm(self, loop: asyncio.AbstractEventLoop) -> None:
        """Schedule the window-edge samples and the shipping of every step."""
        for k in range(len(self.schedule.steps)):
            begin, end = self.schedule.window(k)
            self._handles.append(loop.call_at(begin, self._sample, k, "begin"))
            self._handles.append(loop.call_at(end, self._sample, k, "end"))
            self._handles.append(loop.call_at(end + GRACE_S, self._ship, k))

    def stopped(self, loop: asyncio.AbstractEventLoop) -> None:
        """The schedule was stopped early: ship the steps begun so far after the grace."""
        for h in self._handles:
            h.cancel()
        self._handles.clear()
        now = loop.time()
        self.last_step = min(self.last_step, bisect.bisect_right(self.schedule.starts, now) - 1)
        if self.last_step <= self.shipped:
            self.all_shipped.set()
        else:
            self._handles.append(loop.call_at(now + GRACE_S, self._ship, self.last_step))

    def sent(self, t_send: float) -> int:
        """A request was written at ``t_send``; a token for :meth:`answered` (-1: not timed)."""
        k = self.schedule.step_at(t_send)
        if k is None:
            return -1
        begin, end = self.schedule.window(k)
        if not begin <= t_send < end:
            return -1
        fig = self.steps[k]
        fig.sent += 1
        token = self._next_token
        self._next_token += 1
        self.open[token] = (k, t_send)
        return token

    def answered(self, token: int, t_reply: float) -> None:
        """The reply to the request of ``token`` was decoded at ``t_reply``."""
        entry = self.open.pop(token, None)
        if entry is not None:
            k, t_send = entry
            self.steps[k].latencies.append(t_reply - t_send)

    def count(self, what: str, t: float, n: int = 1) -> None:
        """Something worth counting (a hand dealt…) happened at ``t``, ``n`` of it (a time in
        µs, say): per measurement window."""
        k = self.schedule.step_at(t)
        if k is not None and k > self.shipped:
            begin, end = self.schedule.window(k)
            if begin <= t < end:
                self.steps[k].counts[what] += n

    def error(self, kind: str, t: float) -> None:
        """Something went wrong at ``t``: counted against the step then running."""
        k = self.schedule.step_at(t)
        if k is None or k <= self.shipped:
            self.outside_errors[kind] += 1
            return
        self.steps[k].errors += 1
        self.steps[k].error_kinds[kind] += 1

    def _sample(self, k: int, edge: str) -> None:
        fig = self.steps[k]
        fig.samples[f"{edge}_wall"] = time.monotonic()
        fig.samples[f"{edge}_client_cpu"] = time.process_time()
        if edge == "end":
            fig.samples["client_rss_kib"] = float(proc_memory(os.getpid()).get("rss_kib", 0))
        if self.sample_server:
            busy, steal = machine_cpu_s()
            fig.samples[f"{edge}_machine_cpu"] = busy
            fig.samples[f"{edge}_machine_steal"] = steal
            cpu = proc_cpu_s(self.server_pid)
            if cpu is not None:
                fig.samples[f"{edge}_server_cpu"] = cpu
            if edge == "end":
                for key, v in proc_memory(self.server_pid).items():
                    fig.samples[f"server_{key}"] = float(v)

    def _ship(self, k: int) -> None:
        if k <= self.shipped:
            return
        for j in range(self.shipped + 1, k + 1):
            fig = self.steps[j]
            late = [tok for tok, (kk, _) in self.open.items() if kk == j]
            for tok in late:
                del self.open[tok]
            if late:
                fig.errors += len(late)
                fig.error_kinds["unanswered"] += len(late)
            self.pipe.send(
                (
                    "step",
                    j,
                    {
                        "latencies": fig.latencies.tobytes(),
                        "sent": fig.sent,
                        "errors": fig.errors,
                        "error_kinds": dict(fig.error_kinds),
                        "counts": dict(fig.counts),
                        "samples": dict(fig.samples),
                        "client_lag": self.probe.window(*self.schedule.window(j)),
                    },
                )
            )
            fig.latencies = array.array("d")
        self.shipped = k
        if k >= self.last_step:
            self.all_shipped.set()


# --- drivers and the client process -----------------------------------------------------------


class _KeepsNothing(dict[tuple[bytes, bytes, bytes], None]):
    """A memo of verified signatures that never remembers one."""

    def __setitem__(self, key: tuple[bytes, bytes, bytes], value: None) -> None:
        return


def forget_verified() -> None:
    """Make every Ed25519 check in this process afresh.

    ``lanswitch.fairdeal.primitives.verify`` remembers the signatures it found good
    (``VERIFIED``, a few thousand), so a client that checks a move as it arrives finds it known
    good when it verifies the hand. A load generator runs hundreds of clients in one process,
    and they check the same moves: with one memo for all of them only the first would pay for
    each, where every player's laptop checks every move itself. The load generators' client
    processes call this (the servers keep the memo: a host is one process, as here). The cost:
    a client's check of a whole hand here verifies again the moves it checked live, which a
    real client's own memo would spare it — the clients' CPU is an upper bound.
    """
    from lanswitch.fairdeal import primitives

    primitives.VERIFIED = _KeepsNothing()


class _SharedDecodes:
    """``decode_frame_payload`` with one memo for a whole client process (see
    :func:`share_decodes`): payload bytes → the message, the latest ``keep``."""

    def __init__(self, decode: Callable[[bytes], Any], keep: int = 4096) -> None:
        self.decode = decode
        self.keep = keep
        self.memo: dict[bytes, Any] = {}
        self.hits = 0

    def __call__(self, payload: bytes) -> Any:
        message = self.memo.get(payload)
        if message is not None:
            self.hits += 1
            return message
        message = self.decode(payload)  # a bad frame raises, and is not remembered
        if len(self.memo) >= self.keep:
            del self.memo[next(iter(self.memo))]
        self.memo[payload] = message
        return message


def share_decodes() -> None:
    """Decode each frame's payload once per client process.

    A table's four clients are sent the same bytes for some messages (a step's events when no
    card was dealt or drawn, the deal's announcements, reveals and heads, the lobby): a
    thousand clients in one process decoded and schema-checked each of them four times, as
    four players' laptops each would, and the load generator saturated its core before the
    host did (issue #17). With this the first of them decodes it and the others get the same
    message (frozen: nothing can change it) — about a third of the decodes of a hand of four
    (``tests/scenarios/test_latency.py``). Views differ per seat and are still decoded by each.
    What a
    client does with a message (its session, its fair-deal checks) is unchanged, and a real
    client decodes everything itself: ``--fresh-checks`` turns this off too.
    """
    from lanswitch import protocol

    if not isinstance(protocol.decode_frame_payload, _SharedDecodes):
        protocol.decode_frame_payload = _SharedDecodes(protocol.decode_frame_payload)


class Driver(Protocol):
    """The client side of one kind of server: connect, run a schedule, close."""

    connected: int

    async def setup(self) -> None:
        """Open every connection (and, for lanswitch, sit everyone down) before the start."""

    async def run(self, schedule: Schedule, recorder: Recorder) -> None:
        """Drive the tables until the schedule ends."""

    async def close(self) -> None:
        """Close every connection, bounded in time."""


async def sleep_until(t: float) -> None:
    """Sleep until ``time.monotonic()`` (the event loop's clock) reaches ``t``."""
    delay = t - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)


async def gather_limited(
    factories: Sequence[Callable[[], Awaitable[Any]]], limit: int
) -> list[Any]:
    """Await the coroutines the factories make, at most ``limit`` at a time, in order.

    Connecting 1,000 TLS clients at once would overflow the listen backlog and measure a
    thundering herd; the load starts only after everyone is in anyway.
    """
    sem = asyncio.Semaphore(limit)

    async def one(f: Callable[[], Awaitable[Any]]) -> Any:
        async with sem:
            return await f()

    return list(await asyncio.gather(*(one(f) for f in factories)))


def _pipe_queue(pipe: Pipe) -> asyncio.Queue[Any]:
    """The parent's messages on ``pipe`` as an asyncio queue (read by the event loop)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def readable() -> None:
        try:
            queue.put_nowait(pipe.recv())
        except (EOFError, OSError):
            loop.remove_reader(pipe.fileno())
            queue.put_nowait(("stop",))

    loop.add_reader(pipe.fileno(), readable)
    return queue


async def _client_main(pipe: Pipe, driver: Driver, cfg: dict[str, Any]) -> None:
    queue = _pipe_queue(pipe)
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(cfg["setup_timeout_s"]):
            await driver.setup()
    except Exception as e:
        pipe.send(("failed", f"setup: {type(e).__name__}: {e}", traceback.format_exc()))
        await driver.close()
        return
    # The load generator runs a thousand clients in one heap, where each real client has a
    # small heap of its own: its full collections would stall every client at once, a pause
    # no real client has. What setup made is never garbage: out of the collector's reach.
    # Then the collector is switched off for the run: even its young collections stall a
    # thousand clients' loop for milliseconds, because CPython starts one after 700 *net*
    # allocations (allocations less deallocations) — in a heap where old objects die as fast
    # as new ones are made, the youngest generation grows to ~7,000 live objects (messages,
    # views, futures) between collections, and a collection of it took 4 ms, of the next
    # generation (~20,000) 9 ms: ~2% of the run stalled, right at the round trips' p99
    # (issue #17). A real client's heap is a thousandth of that. The garbage cycles the
    # clients leave are kept instead; the RSS each process ends a step with is reported
    # (``client_rss_kib``), so what that costs is seen.
    gc.collect()
    gc.freeze()
    gc.disable()
    pipe.send(("ready", driver.connected))
    msg = await queue.get()
    if msg[0] != "start":
        await driver.close()
        pipe.send(("done", {}))
        return
    _, t0, steps_raw, n_tables = msg
    schedule = Schedule(t0, [Step(*s) for s in steps_raw], n_tables)
    probe = LagProbe()
    probing = asyncio.create_task(probe.run())
    recorder = Recorder(schedule, pipe, cfg["server_pid"], cfg["sample_server"], probe)
    recorder.arm(loop)
    run = asyncio.create_task(driver.run(schedule, recorder))
    stop_wait = asyncio.create_task(queue.get())
    shipped = asyncio.create_task(recorder.all_shipped.wait())
    deadline = schedule.end + GRACE_S + 5.0
    try:
        async with asyncio.timeout(max(1.0, deadline - time.monotonic())):
            done, _ = await asyncio.wait({shipped, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
            if stop_wait in done:
                schedule.stop(time.monotonic())
                recorder.stopped(loop)
                await shipped
    except TimeoutError:
        recorder.outside_errors["client_deadline"] += 1
    stop_wait.cancel()
    shipped.cancel()
    probing.cancel()
    probe.close()
    run.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await run
    await driver.close()
    pipe.send(("done", {"outside_errors": dict(recorder.outside_errors)}))


def client_process(pipe: Pipe, kind: str, cfg: dict[str, Any]) -> None:
    """Entry point of a client process: ``kind`` is ``echo`` or ``game``. With
    ``cfg["profile"]`` set to a path, the process runs under cProfile and writes its stats
    there (where the load generator's own time goes: it must not be the bottleneck)."""
    raise_nofile(cfg.get("nofile", 4096))
    driver: Driver
    if kind == "echo":
        from _latency_echo import EchoDriver

        driver = EchoDriver(cfg)
    else:
        from _latency_game import GameDriver

        driver = GameDriver(cfg)
    profiler = cProfile.Profile() if cfg.get("profile") else None
    try:
        if profiler is not None:  # the whole process: setup is a small share of it
            profiler.enable()
        asyncio.run(_client_main(pipe, driver, cfg))
    except Exception as e:
        pipe.send(("failed", f"client: {type(e).__name__}: {e}", traceback.format_exc()))
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(cfg["profile"])


# --- the server process -----------------------------------------------------------------------


class ServerHandle(Protocol):
    """What a server entry point returns: its ports, and how to close it."""

    ports: list[int]

    async def close(self) -> None: ...


def server_process(
    pipe: Pipe,
    start: Callable[[dict[str, Any]], Awaitable[ServerHandle]],
    cfg: dict[str, Any],
) -> None:
    """Entry point of the server process: start, report the ports, serve until told to stop.

    With ``cfg["gc_freeze"]``, everything alive when the parent says ``loaded`` (every client
    is in) is moved out of the garbage collector's reach (``gc.freeze()``): an experiment on
    the collector's pauses, off by default. With ``cfg["profile"]`` set to a path, the
    serving time from ``loaded`` on runs under cProfile and the stats are written
    there on a clean stop (the benchmark's answer to "where does the time
    go" when a target is missed).
    """
    raise_nofile(cfg.get("nofile", 4096))
    profiler = cProfile.Profile() if cfg.get("profile") else None

    async def main() -> None:
        queue = _pipe_queue(pipe)
        try:
            handle = await start(cfg)
        except Exception as e:
            pipe.send(("failed", f"server: {type(e).__name__}: {e}", traceback.format_exc()))
            return
        pipe.send(("ready", os.getpid(), handle.ports))
        probe = LagProbe()
        probing = asyncio.create_task(probe.run())
        profiling = False
        while True:
            msg = await queue.get()
            if msg[0] == "lags":
                pipe.send(("lags", [probe.window(b, e) for b, e in msg[1]]))
            elif msg[0] == "loaded":  # the clients are in: profile the load, not the setup
                if cfg.get("gc_freeze"):
                    gc.collect()
                    gc.freeze()  # the tables and connections made so far: never collected again
                if profiler is not None and not profiling:
                    profiler.enable()
                    profiling = True
            else:
                break
        if profiler is not None and profiling:
            profiler.disable()
        probing.cancel()
        probe.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(10.0):
                await handle.close()
        pipe.send(("closed",))

    asyncio.run(main())
    if profiler is not None:
        profiler.dump_stats(cfg["profile"])


# --- the parent's side ------------------------------------------------------------------------


@dataclass(slots=True)
class StepResult:
    """One step merged over the client processes."""

    step: Step
    offered_per_s: float  # tables / period (0 when unpaced)
    latencies: list[float]  # seconds, ascending
    sent: int
    errors: int
    error_kinds: dict[str, int]
    window_s: float
    client_cpu: float  # busy fraction of the busiest client process over the window
    server_cpu: float | None  # busy fraction of the server process over the window
    server_memory: dict[str, int]
    client_rss_kib: int = 0  # the largest client process's RSS at the step's end
    client_lag: dict[str, float] = field(default_factory=dict)  # worst client process's
    server_lag: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    others_cpu: float | None = None  # cores busy with other processes (the machine's noise)
    steal: float | None = None  # cores taken by the hypervisor

    @property
    def achieved_per_s(self) -> float:
        return self.sent / self.window_s if self.window_s > 0 else 0.0

    def pct(self, q: float) -> float:
        return percentile(self.latencies, q)


@dataclass(slots=True)
class Session:
    """The outcome of one server + clients run."""

    steps: list[StepResult]
    connected: int
    memory_idle: dict[str, int]
    memory_connected: dict[str, int]
    memory_end: dict[str, int]
    outside_errors: dict[str, int]
    failure: str | None = None


def _recv(pipe: Pipe, timeout: float, what: str, proc: BaseProcess | None = None) -> Any:
    """The next message from a child, waiting at most ``timeout`` (less if the child dies)."""
    deadline = time.monotonic() + timeout
    while not pipe.poll(min(0.5, max(0.0, deadline - time.monotonic()))):
        if proc is not None and not proc.is_alive() and not pipe.poll(0):
            raise RuntimeError(f"the {what} died (exit code {proc.exitcode})")
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no answer from the {what} in {timeout:.0f} s")
    return pipe.recv()


def _end(proc: BaseProcess, timeout: float) -> None:
    """Wait for a child; end it by its own pid if it does not finish in ``timeout``."""
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()  # SIGTERM to this child's pid only
        proc.join(5.0)
    if proc.is_alive():
        proc.kill()
        proc.join(5.0)


#: Whether :func:`run_session` gives the server process a core of its own (set by
#: ``latency.py``; see :func:`cpu_plan`).
PIN_CPUS = False


def cpu_plan() -> tuple[set[int], set[int]] | None:
    """The cores of the server process and of the client processes, when :data:`PIN_CPUS`
    and this process may use two or more: the first for the server, the rest for the load.

    On a LAN the host has its machine to itself and every client is another laptop. Here both
    share a few cores, and the load — a thousand clients' decoding, signing and end-of-hand
    checks, a thread of them at a time — takes more CPU than the host: unpinned, three busy
    threads on two cores take turns, and the host is put off a core for milliseconds at a
    time (its loop's lag off the CPU, :class:`LagProbe`, shows it) — the load generator's
    doing, not the host's. Pinned, the host runs on a core the load never takes; the load can
    then saturate its own cores sooner (its CPU is reported beside every figure). Both echoes
    are run the same way."""
    if not PIN_CPUS or not hasattr(os, "sched_setaffinity"):  # Linux only
        return None
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return None
    return {cores[0]}, set(cores[1:])


def run_session(
    *,
    server_start: Callable[[dict[str, Any]], Awaitable[ServerHandle]],
    server_cfg: dict[str, Any],
    client_kind: str,
    client_cfgs: Callable[[int, list[int]], list[dict[str, Any]]],
    n_tables: int,
    steps: Sequence[Step],
    keep_going: Callable[[int, StepResult], bool],
    setup_timeout_s: float,
) -> Session:
    """Start the server process, then the client processes; run ``steps``; end both.

    ``client_cfgs(server_pid, ports)`` makes one config per client process.
    ``keep_going(k, result)`` is asked after each merged step; False stops the schedule
    (bounded ramps stop at the first step that fails).
    """
    ctx = mp.get_context("spawn")
    s_parent, s_child = ctx.Pipe()
    server: BaseProcess = ctx.Process(
        target=server_process, args=(s_child, server_start, server_cfg), daemon=True
    )
    server.start()
    plan = cpu_plan()
    if plan is not None and server.pid is not None:
        os.sched_setaffinity(server.pid, plan[0])  # before it starts a thread: all inherit
    clients: list[tuple[BaseProcess, Pipe]] = []
    try:
        msg = _recv(s_parent, 120.0, "server process", server)
        if msg[0] != "ready":
            return Session([], 0, {}, {}, {}, {}, failure=f"{msg[1]}\n{msg[2]}")
        _, server_pid, ports = msg
        memory_idle = proc_memory(server_pid)
        for i, cfg in enumerate(client_cfgs(server_pid, ports)):
            # Only the first client process samples the server: /proc is read once per edge.
            cfg = dict(
                cfg, server_pid=server_pid, setup_timeout_s=setup_timeout_s, sample_server=i == 0
            )
            c_parent, c_child = ctx.Pipe()
            proc: BaseProcess = ctx.Process(
                target=client_process, args=(c_child, client_kind, cfg), daemon=True
            )
            proc.start()
            if plan is not None and proc.pid is not None:
                os.sched_setaffinity(proc.pid, plan[1])
            clients.append((proc, c_parent))
        connected = 0
        for i, (_, pipe) in enumerate(clients):
            msg = _recv(pipe, setup_timeout_s + 30.0, f"client process {i}", clients[i][0])
            if msg[0] != "ready":
                return Session([], 0, memory_idle, {}, {}, {}, failure=f"{msg[1]}\n{msg[2]}")
            connected += msg[1]
        memory_connected = proc_memory(server_pid)
        s_parent.send(("loaded",))
        t0 = time.monotonic() + 0.5
        raw_steps = [(s.period_s, s.duration_s, s.warmup_s) for s in steps]
        for _, pipe in clients:
            pipe.send(("start", t0, raw_steps, n_tables))
        per_step: dict[int, list[dict[str, Any]]] = {}
        results: list[StepResult] = []
        outside: Counter[str] = Counter()
        done = 0
        stopped = False
        next_k = 0
        deadline = t0 + sum(s.duration_s for s in steps) + GRACE_S + 30.0
        open_pipes: dict[int, Pipe] = {id(pipe): pipe for _, pipe in clients}
        while done < len(clients):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the client processes did not finish in time")
            ready = mp.connection.wait(list(open_pipes.values()), timeout=remaining)
            for ready_one in ready:
                pipe = open_pipes[id(ready_one)]
                try:
                    msg = pipe.recv()
                except EOFError:
                    del open_pipes[id(pipe)]
                    done += 1
                    outside["client_process_lost"] += 1
                    continue
                if msg[0] == "step":
                    per_step.setdefault(msg[1], []).append(msg[2])
                elif msg[0] == "done":
                    del open_pipes[id(pipe)]
                    done += 1
                    outside.update(msg[1].get("outside_errors", {}))
                elif msg[0] == "failed":
                    del open_pipes[id(pipe)]
                    done += 1
                    outside["client_failed"] += 1
                    print(f"latency: a client process failed: {msg[1]}\n{msg[2]}")
            while next_k in per_step and len(per_step[next_k]) == len(clients):
                k = next_k
                next_k += 1
                result = _merge(steps[k], per_step.pop(k), n_tables)
                if stopped:
                    continue  # a step cut short by the stop: not a figure
                results.append(result)
                if not keep_going(k, result):
                    stopped = True
                    for proc, pipe in clients:
                        if proc.is_alive():
                            with contextlib.suppress(OSError):
                                pipe.send(("stop",))
        memory_end = proc_memory(server_pid)
        schedule = Schedule(t0, steps, n_tables)
        s_parent.send(("lags", [schedule.window(k) for k in range(len(steps))]))
        try:
            lag_msg = _recv(s_parent, 30.0, "server process", server)
        except (TimeoutError, RuntimeError, EOFError, OSError) as e:
            outside["server_lags_lost"] += 1
            print(f"latency: no loop lags from the server: {e}", file=sys.stderr)
        else:
            for k, r in enumerate(results):  # results[k] is step k: steps are kept in order
                r.server_lag = lag_msg[1][k]
        return Session(results, connected, memory_idle, memory_connected, memory_end, dict(outside))
    finally:
        for proc, _ in clients:
            _end(proc, 20.0)
        with contextlib.suppress(OSError):
            s_parent.send(("stop",))
        with contextlib.suppress(OSError, EOFError, TimeoutError):
            _recv(s_parent, 20.0, "server process")
        _end(server, 20.0)


def _merge(step: Step, parts: list[dict[str, Any]], n_tables: int) -> StepResult:
    lat = array.array("d")
    sent = errors = 0
    kinds: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    client_cpu = 0.0
    server_cpu: float | None = None
    memory: dict[str, int] = {}
    client_rss = 0
    client_lag: dict[str, float] = {}
    clients_cpu_s = 0.0
    machine: tuple[float, float] | None = None
    window = step.duration_s - step.warmup_s
    for part in parts:
        lat.frombytes(part["latencies"])
        sent += part["sent"]
        errors += part["errors"]
        kinds.update(part["error_kinds"])
        counts.update(part.get("counts", {}))
        s = part["samples"]
        if "begin_wall" in s and "end_wall" in s:
            wall = s["end_wall"] - s["begin_wall"]
            if wall > 0:
                window = wall
                used = s["end_client_cpu"] - s["begin_client_cpu"]
                clients_cpu_s += used
                client_cpu = max(client_cpu, used / wall)
                if "begin_server_cpu" in s and "end_server_cpu" in s:
                    server_cpu = (s["end_server_cpu"] - s["begin_server_cpu"]) / wall
                if "begin_machine_cpu" in s and "end_machine_cpu" in s:
                    machine = (
                        (s["end_machine_cpu"] - s["begin_machine_cpu"]) / wall,
                        (s["end_machine_steal"] - s["begin_machine_steal"]) / wall,
                    )
        lag = part.get("client_lag", {})
        if lag and (not client_lag or lag["p99"] > client_lag["p99"]):
            client_lag = lag
        for key in ("rss_kib", "peak_rss_kib"):
            if f"server_{key}" in s:
                memory[key] = int(s[f"server_{key}"])
        client_rss = max(client_rss, int(s.get("client_rss_kib", 0)))
    return StepResult(
        step=step,
        offered_per_s=n_tables / step.period_s if step.period_s > 0 else 0.0,
        latencies=sorted(lat),
        sent=sent,
        errors=errors,
        error_kinds=dict(kinds),
        window_s=window,
        client_cpu=client_cpu,
        server_cpu=server_cpu,
        server_memory=memory,
        client_rss_kib=client_rss,
        client_lag=client_lag,
        counts=dict(counts),
        others_cpu=(
            max(0.0, machine[0] - (server_cpu or 0.0) - clients_cpu_s / window)
            if machine is not None
            else None
        ),
        steal=machine[1] if machine is not None else None,
    )
