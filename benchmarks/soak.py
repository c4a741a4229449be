"""Join/leave soak (issues #6 and #13): 1,000 clients joining and leaving for 5 minutes; 0 errors,
host memory flat; on the fair deal v2, 0 hands void because someone left, 0 UNFAIR verdicts,
and the UNCONFIRMED verdicts counted with their causes.

**Host.** One process serves ``--tables`` real tables (``lanswitch.server.Server`` over
``lanswitch.host.Host``, one port each on 127.0.0.1, real TLS with a pinned self-signed
certificate), all on one event loop (``_soak_host.py``). A table has 4 seats, 2 of them the
host's bots, and is visited by ``--clients / --tables`` client slots (4 by default: 250 tables).
Why this shape: a table takes at most 32 connections (``MAX_CLIENTS``), and the host's cost
is driven by how many connections hear each step, so 1,000 connections cost about the same
spread over 250 tables of 4 or 50 tables of 20. Small tables with 2 bots keep every hand
moving while people come and go (bots and stand-ins act every ``--bot-delay``, 0.6 s as in a
real game), leave 2 seats to fight over, so some players wait for a seat and are seated
between hands, and keep each joiner's catch-up (the hand so far, replayed) as long as a real
one. The tables' waits on an absent player (the grace before the log says its link is lost and
a stand-in plays it, a fair-deal round, the signed log heads) are ``Sizes.grace_s`` (5 s, the
host's default ``away_grace``; the round and heads timeouts are shortened to it from 30 s):
every hand here loses players mid-way.

**Clients.** ``--client-procs`` processes (``_soak_clients.py``) run the slots: each slot keeps
visiting its table — connect (TLS + pin check + hello), sit or spectate, ready, play a few
turns of the real hand with the real ``Session`` (its fair deal and checks included), leave
with ``bye`` or by dropping the socket, sometimes drop and resume to the same seat with the
token, pause 1–4 s, come again with a new name and key — until ``--duration`` ends. The slots
start evenly over the first seconds (``perf.md``: 1,000 TLS clients starting at one instant
measure a thundering herd).

**Verdicts** (protocol v2: every move signed, people who leave logged away and the hand goes
on). The stayers' Sessions verify their hands; counted: fair (and fair with someone away: a
player who said goodbye mid-hand, or whose link the host says was lost), unconfirmed (each
missing confirmation with its cause: the seat, and what our player in it did — said goodbye,
dropped, dropped to resume — and whether the hand's end had reached it), void (each with its
cause: the abort's fault and culprits, and what those players did). A void whose culprits are
players who left is *void because someone left*: issue #13's target is 0 of them, so they are
counted on their own and judged as a target (``targets`` in the report; a missed target fails
the run like an error). UNFAIR is always an error: every party here is honest.

**Errors** are counted by kind and printed: every failure a slot sees (connect, handshake,
welcome, ``error``, ``reject`` — but a commitment that crossed its round's withdrawal, counted
on its own —, lost link, protocol violation, a Session warning, an UNFAIR verdict, a void hand
or an unconfirmed verdict not explained by a leaver, a hang — every wait is bounded), every
warning or exception the host process logs or its event loop reports, a table that stopped
serving, a child process that died. ``0 errors`` is their sum.

**Signature checks.** The client processes make every Ed25519 check afresh: the library's memo
of verified signatures (``lanswitch.fairdeal.primitives.VERIFIED``) is replaced in them by one
that keeps nothing (``_latency_harness.forget_verified``), since hundreds of clients in one
process check the same moves where each player's laptop would check them itself. The client
processes' CPU is then an upper bound (a real client's end-of-hand check finds the moves it
checked live in its own memo). The host process keeps the memo, as ``lanswitch host`` does.

**Memory.** The host's RSS is read from ``/proc`` before any client connects (the anchor),
every ``--sample`` seconds during the load, and after the clients have gone. Printed: the
series (every 30 s), RSS after the warm-up (the first 60 s, or a fifth of a short run) and at
the end, their difference as a share of the idle anchor, the slope over the second half (MiB
per minute, a least-squares fit), the peak; with the hosts' own counts (connections, lobby
entries, resume keys, away seats, log lines, hands, tracked objects) so a growth can be laid
at a structure's door. Also: connections served, joins, leaves, drops, resumes, moves, hands,
the CPU of the host and of each client process, and the machine.

Usage: ``python benchmarks/soak.py [--duration S] [--clients N] [--tables N] [--quick]
[--client-procs N] [--seed S] [--json] [--save FILE] [--tracemalloc]``;
``tests/scenarios/test_soak.py``
runs a short one. Traffic stays on 127.0.0.1; every loop and wait is bounded; only the
processes started here are ended, by their own pid. Exit status 0 when there were 0 errors,
the targets were met and the population churned.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing as mp
import os
import platform
import ssl
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from multiprocessing.connection import Connection as Pipe
from multiprocessing.connection import wait as wait_pipes
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _latency_harness import _end, machine_cpu_s, proc_cpu_s, proc_memory, raise_nofile
from _soak_clients import Mix, client_process
from _soak_host import host_process

import lanswitch
from lanswitch.tls import load_or_create_identity

MIB = 1024.0  # KiB per MiB (/proc reports KiB)
#: The judgement printed: RSS is called flat when the second half's slope is at most this.
FLAT_MIB_PER_MIN = 1.0
#: What a host holds of its clients; all must be back to 0 once every client has gone.
_HELD = ("conns", "server_conns", "clients", "keys", "away", "in_hand")


@dataclass(frozen=True, slots=True)
class Sizes:
    """One soak's shape (the defaults are the issue's: 1,000 clients for 5 minutes)."""

    clients: int = 1000
    tables: int = 250
    duration_s: float = 300.0
    warmup_s: float = 60.0
    ramp_s: float = 20.0  # the slots' first visits are spread over this long
    sample_s: float = 2.0  # host RSS and CPU from /proc
    stats_s: float = 10.0  # the hosts' own counts (objects every third time)
    print_s: float = 30.0
    client_procs: int = 2
    seats: int = 4
    bots: int = 2
    bot_delay_s: float = 0.6
    grace_s: float = 5.0
    seat_limit_s: float = 60.0  # a seat away this long is given up between hands (the default)
    settle_max_s: float = 240.0  # for the hosts to let go of everyone after the clients left
    # The bots' and stand-ins' delay once the clients have left: a hand may run to the
    # engine's limit (5,000 moves; a switch hand at 3,574 steps was still going 60 s after
    # the clients left, at 20 ms a move), and 2 ms plays even that out well inside
    # ``settle_max_s``.
    hurry_s: float = 0.002
    tracemalloc: bool = False  # trace the host's allocations from idle on (slows it)
    mix: Mix = field(default_factory=Mix)

    @property
    def per_table(self) -> int:
        return max(1, self.clients // self.tables)


QUICK = Sizes(
    clients=40,
    tables=10,
    duration_s=12.0,
    warmup_s=4.0,
    ramp_s=1.0,
    sample_s=0.5,
    stats_s=2.0,
    print_s=4.0,
    client_procs=1,
    bot_delay_s=0.02,  # hands of seconds, so a short run sees some end and verified
    grace_s=2.0,  # the hands left behind end soon after the clients go
    seat_limit_s=10.0,  # and the seats of those who dropped at the end are freed well in time
    settle_max_s=60.0,
    mix=Mix(
        watch_s=(1.0, 4.0),
        pause_s=(0.3, 1.2),
        moves=(1, 3),
        stay=0.15,
        think_s=(0.02, 0.1),
    ),
)


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = ""
    mem_kib = 0
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            model = next(
                (ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), ""
            )
        with open("/proc/meminfo", encoding="ascii") as f:
            mem_kib = int(next(ln.split()[1] for ln in f if ln.startswith("MemTotal")))
    except (OSError, StopIteration, ValueError):
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "memory_gib": round(mem_kib / MIB / MIB, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "openssl": ssl.OPENSSL_VERSION,
        "engine": lanswitch.ENGINE,
    }


def slope_mib_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, KiB) points, in MiB per minute (0 if too few)."""
    n = len(points)
    if n < 3:
        return 0.0
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var <= 0:
        return 0.0
    cov = sum((t - mt) * (v - mv) for t, v in points)
    return cov / var * 60.0 / MIB


def _recv(pipe: Pipe, timeout: float, what: str, proc: BaseProcess) -> Any:
    """The next message of a child within ``timeout`` (RuntimeError if it died first)."""
    deadline = time.monotonic() + timeout
    for _ in range(100_000):
        if pipe.poll(min(0.5, max(0.0, deadline - time.monotonic()))):
            return pipe.recv()
        if not proc.is_alive() and not pipe.poll(0):
            raise RuntimeError(f"the {what} died (exit code {proc.exitcode})")
        if time.monotonic() >= deadline:
            break
    raise TimeoutError(f"no answer from the {what} in {timeout:.0f} s")


def run(sizes: Sizes, seed: int = 1, say: Any = print) -> dict[str, Any]:
    """Run one soak; the report (see :func:`print_report`)."""
    with tempfile.TemporaryDirectory() as tmp:  # the host's certificate and key, on disk
        return _run(sizes, seed, say, Path(tmp))


def _run(sizes: Sizes, seed: int, say: Any, tmp: Path) -> dict[str, Any]:
    raise_nofile(4096)
    ctx = mp.get_context("spawn")
    nofile = 2 * sizes.clients + sizes.tables + 512
    errors: Counter[str] = Counter()
    first_errors: list[str] = []
    identity = load_or_create_identity(tmp)
    host_cfg = {
        "identity": identity,
        "tables": sizes.tables,
        "seats": sizes.seats,
        "bots": sizes.bots,
        "bot_delay_s": sizes.bot_delay_s,
        "grace_s": sizes.grace_s,
        "seat_limit_s": sizes.seat_limit_s,
        "nofile": nofile,
    }
    h_parent, h_child = ctx.Pipe()
    host: BaseProcess = ctx.Process(target=host_process, args=(h_child, host_cfg), daemon=True)
    host.start()
    clients: list[tuple[BaseProcess, Pipe]] = []
    report: dict[str, Any] = {"sizes": _sizes_json(sizes), "machine": machine()}
    try:
        msg = _recv(h_parent, 120.0, "host process", host)
        if msg[0] != "ready":
            errors["host_failed"] += 1
            first_errors.append(f"{msg[1]}\n{msg[2]}")
            return _finish(report, errors, first_errors, {}, [], [], {})
        _, host_pid, ports = msg
        time.sleep(1.0)
        idle = proc_memory(host_pid)
        h_parent.send(("stats", True))
        report["host_idle"] = _recv(h_parent, 30.0, "host process", host)[1]
        if sizes.tracemalloc:
            h_parent.send(("baseline",))
            _recv(h_parent, 60.0, "host process", host)
        say(
            f"soak: {sizes.tables} tables on 127.0.0.1 in host process {host_pid}, idle RSS "
            f"{idle.get('rss_kib', 0) / MIB:.1f} MiB; starting {sizes.clients} client slots in "
            f"{sizes.client_procs} process(es) for {sizes.duration_s:.0f} s"
        )
        per_proc: list[list[int]] = [[] for _ in range(max(1, sizes.client_procs))]
        for t in range(sizes.tables):
            per_proc[t % len(per_proc)].append(t)
        for i, tables in enumerate(per_proc):
            cfg = {
                "identity": identity,
                "ports": ports,
                "tables": tables,
                "per_table": sizes.per_table,
                "seed": seed * 101 + i,
                "grace_s": sizes.grace_s,
                "mix": sizes.mix,
                "progress_s": min(5.0, sizes.print_s / 2),
                "nofile": nofile,
            }
            c_parent, c_child = ctx.Pipe()
            proc: BaseProcess = ctx.Process(target=client_process, args=(c_child, cfg), daemon=True)
            proc.start()
            clients.append((proc, c_parent))
        client_pids = []
        for i, (proc, pipe) in enumerate(clients):
            msg = _recv(pipe, 60.0, f"client process {i}", proc)
            client_pids.append(msg[1])
        t0 = time.monotonic() + 0.5
        end = t0 + sizes.duration_s
        for _, pipe in clients:
            pipe.send(("start", t0, end, sizes.ramp_s))
        samples, stats, tallies = _load(
            sizes,
            host,
            h_parent,
            host_pid,
            clients,
            client_pids,
            t0,
            end,
            errors,
            first_errors,
            say,
        )
        # The clients are gone. The hands they left play out with stand-ins (the log says who
        # went) — hurried: no one is watching them any more (``_soak_host``) —, the away seats
        # are freed: the hosts must come back to holding nothing of anyone. Wait for that
        # (bounded), then the last memory sample.
        settle_start = time.monotonic()
        h_parent.send(("hurry", sizes.hurry_s))
        for _ in range(100):  # past any late answer to a stats request of the load
            msg = _recv(h_parent, 30.0, "host process", host)
            if msg[0] == "hurried":
                report["in_hand_when_left"] = msg[1]
                break
        after_stats: dict[str, Any] = {}
        for _ in range(10_000):
            h_parent.send(("stats", False))
            after_stats = _recv(h_parent, 30.0, "host process", host)[1]
            if all(after_stats[k] == 0 for k in _HELD):
                break
            if time.monotonic() - settle_start > sizes.settle_max_s:
                held = ", ".join(f"{k} {after_stats[k]}" for k in _HELD)
                errors["host_not_settled"] += 1
                first_errors.append(f"{sizes.settle_max_s:.0f} s after the clients left: {held}")
                h_parent.send(("held",))
                report["held"] = _recv(h_parent, 30.0, "host process", host)[1]
                first_errors += [f"  still held: {line}" for line in report["held"]]
                break
            time.sleep(1.0)
        report["settle_s"] = time.monotonic() - settle_start
        after = proc_memory(host_pid)
        h_parent.send(("stats", True))
        after_stats = _recv(h_parent, 30.0, "host process", host)[1]
        if sizes.tracemalloc:
            h_parent.send(("diff",))
            report["tracemalloc_after"] = _recv(h_parent, 120.0, "host process", host)[1]
        h_parent.send(("trim",))
        if _recv(h_parent, 30.0, "host process", host)[1]:
            report["memory_trimmed"] = proc_memory(host_pid)
        h_parent.send(("stop",))
        closed = _recv(h_parent, 60.0, "host process", host)
        final_stats = closed[1] if closed[0] == "closed" else after_stats
        report["memory_idle"] = idle
        report["memory_after"] = after
        report["host_after"] = after_stats
        return _finish(report, errors, first_errors, final_stats, samples, stats, tallies)
    except (TimeoutError, RuntimeError, EOFError, OSError) as e:
        errors["harness:" + type(e).__name__] += 1
        first_errors.append(f"harness: {e}")
        return _finish(report, errors, first_errors, {}, [], [], {})
    finally:
        for proc, _ in clients:
            _end(proc, 30.0)
        if host.is_alive():
            with contextlib.suppress(OSError):
                h_parent.send(("stop",))
        _end(host, 30.0)


def _load(
    sizes: Sizes,
    host: BaseProcess,
    h_pipe: Pipe,
    host_pid: int,
    clients: list[tuple[BaseProcess, Pipe]],
    client_pids: list[int],
    t0: float,
    end: float,
    errors: Counter[str],
    first_errors: list[str],
    say: Any,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """Sample the host while the clients run; until every client process is done."""
    samples: list[dict[str, Any]] = []
    stats: list[dict[str, Any]] = []
    progress: dict[int, dict[str, Any]] = {}
    tallies: dict[int, dict[str, Any]] = {}
    pipes = {id(pipe): (i, pipe) for i, (_, pipe) in enumerate(clients)}
    next_sample = t0
    next_stats = t0 + sizes.stats_s
    n_stats = 0
    next_print = t0 + sizes.print_s
    deadline = end + 120.0
    while len(tallies) < len(clients):
        now = time.monotonic()
        if now > deadline:
            errors["hang:client_process"] += len(clients) - len(tallies)
            first_errors.append("client processes did not report within 120 s of the end")
            break
        if now >= next_sample:
            next_sample += sizes.sample_s
            mem = proc_memory(host_pid)
            busy, steal = machine_cpu_s()
            samples.append(
                {
                    "t": now - t0,
                    "rss_kib": mem.get("rss_kib", 0),
                    "peak_rss_kib": mem.get("peak_rss_kib", 0),
                    "host_cpu_s": proc_cpu_s(host_pid) or 0.0,
                    "client_cpu_s": [proc_cpu_s(pid) or 0.0 for pid in client_pids],
                    "machine_busy_s": busy,
                    "steal_s": steal,
                }
            )
        if now >= next_stats and now < end:
            next_stats += sizes.stats_s
            h_pipe.send(("stats", n_stats % 3 == 0))
            n_stats += 1
        if now >= next_print and now < end + sizes.print_s and samples:
            next_print += sizes.print_s
            say(_progress_line(samples, stats, progress))
        if not host.is_alive():
            errors["host_died"] += 1
            first_errors.append(f"the host process died (exit code {host.exitcode})")
            break
        timeout = max(0.0, min(next_sample, next_print) - time.monotonic())
        ready = wait_pipes([h_pipe] + [p for _, p in pipes.values()], timeout=timeout)
        for r in ready:
            if r is h_pipe:
                msg = h_pipe.recv()
                if msg[0] == "stats":
                    msg[1]["t_rel"] = msg[1]["t"] - t0
                    stats.append(msg[1])
                continue
            i, pipe = pipes[id(r)]
            try:
                msg = pipe.recv()
            except EOFError:
                del pipes[id(r)]
                errors["client_process_lost"] += 1
                tallies[i] = {}
                continue
            if msg[0] == "progress":
                progress[i] = msg[1]
            elif msg[0] == "done":
                tallies[i] = msg[1]
                del pipes[id(r)]
            elif msg[0] == "failed":
                errors["client_process_failed"] += 1
                first_errors.append(f"{msg[1]}\n{msg[2]}")
                tallies[i] = {}
                del pipes[id(r)]
    return samples, stats, tallies


def _progress_line(
    samples: list[dict[str, Any]], stats: list[dict[str, Any]], progress: dict[int, dict[str, Any]]
) -> str:
    s = samples[-1]
    prev = samples[-2] if len(samples) > 1 else s
    dt = max(1e-9, s["t"] - prev["t"])
    joins = sum(p.get("counts", {}).get("joins", 0) for p in progress.values())
    errs = sum(sum(p.get("errors", {}).values()) for p in progress.values())
    active = sum(p.get("active", 0) for p in progress.values())
    st = stats[-1] if stats else {}
    host_cpu = (s["host_cpu_s"] - prev["host_cpu_s"]) / dt
    cli_cpu = (
        max((a - b) / dt for a, b in zip(s["client_cpu_s"], prev["client_cpu_s"], strict=True))
        if s["client_cpu_s"]
        else 0.0
    )
    return (
        f"  t={s['t']:5.0f}s  host RSS {s['rss_kib'] / MIB:7.1f} MiB  conns {st.get('conns', 0):4d}"
        f"  lobby {st.get('clients', 0):4d}  keys {st.get('keys', 0):4d}  open {active:4d}"
        f"  joins {joins:6d}  hands {st.get('hands', 0):5d}  errors {errs}"
        f"  hostCPU {host_cpu:4.0%}  cliCPU(max) {cli_cpu:4.0%}"
    )


def _sizes_json(sizes: Sizes) -> dict[str, Any]:
    out = asdict(sizes)
    out["per_table"] = sizes.per_table
    return out


def _finish(
    report: dict[str, Any],
    errors: Counter[str],
    first_errors: list[str],
    host_final: dict[str, Any],
    samples: list[dict[str, Any]],
    stats: list[dict[str, Any]],
    tallies: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    """Merge the processes' figures into the report and judge it."""
    sizes = report["sizes"]
    counts: Counter[str] = Counter()
    causes: list[str] = []
    for tally in tallies.values():
        counts.update(tally.get("counts", {}))
        errors.update(tally.get("errors", {}))
        first_errors += tally.get("first", [])
        causes += tally.get("causes", [])
    for kind, n in host_final.get("failure_kinds", {}).items():
        errors["host:" + kind] += n
    first_errors += [f"host: {line}" for line in host_final.get("failure_first", [])]
    report["counts"] = dict(counts)
    report["verdicts"] = verdict_summary(counts)
    report["causes"] = causes[:60]
    report["errors"] = dict(sorted(errors.items()))
    report["error_total"] = sum(errors.values())
    report["first_errors"] = first_errors[:40]
    report["host_final"] = {k: v for k, v in host_final.items() if k != "failure_first"}
    report["stats"] = stats
    duration = sizes["duration_s"]
    load = [s for s in samples if s["t"] <= duration + 1e-6]
    report["series"] = [
        {"t": round(s["t"], 1), "rss_mib": round(s["rss_kib"] / MIB, 2)} for s in samples
    ]
    if load:
        first, last = load[0], load[-1]
        wall = max(1e-9, last["t"] - first["t"])
        warm = next((s for s in load if s["t"] >= sizes["warmup_s"]), last)
        idle = report.get("memory_idle", {}).get("rss_kib", 0)
        second = [(s["t"], float(s["rss_kib"])) for s in load if s["t"] >= duration / 2]
        report["memory"] = {
            "idle_mib": idle / MIB,
            "warm_mib": warm["rss_kib"] / MIB,
            "warm_t": warm["t"],
            "end_mib": last["rss_kib"] / MIB,
            "end_minus_warm_mib": (last["rss_kib"] - warm["rss_kib"]) / MIB,
            "end_minus_warm_of_idle": (last["rss_kib"] - warm["rss_kib"]) / idle if idle else None,
            "end_over_idle": last["rss_kib"] / idle if idle else None,
            "slope_second_half_mib_per_min": slope_mib_per_min(second),
            "peak_mib": max(s["peak_rss_kib"] for s in load) / MIB,
            "after_clients_left_mib": report.get("memory_after", {}).get("rss_kib", 0) / MIB,
            "after_trim_mib": report.get("memory_trimmed", {}).get("rss_kib", 0) / MIB,
        }
        blocks = [(s["t_rel"], s["allocated_blocks"]) for s in stats if s["t_rel"] <= duration]
        warm_blocks = next((b for t, b in blocks if t >= sizes["warmup_s"]), None)
        if blocks and warm_blocks:
            second_b = [(t, float(b)) for t, b in blocks if t >= duration / 2]
            report["memory"]["blocks"] = {
                "idle": report.get("host_idle", {}).get("allocated_blocks"),
                "warm": warm_blocks,
                "end": blocks[-1][1],
                "after": report.get("host_after", {}).get("allocated_blocks"),
                # per minute, as a share of the warm count (blocks are of any size class)
                "slope_second_half_per_min": slope_mib_per_min(second_b) * MIB / warm_blocks,
            }
        slope = report["memory"]["slope_second_half_mib_per_min"]
        report["memory"]["flat"] = slope <= FLAT_MIB_PER_MIN
        report["cpu"] = {
            "host": (last["host_cpu_s"] - first["host_cpu_s"]) / wall,
            "clients": [
                (a - b) / wall
                for a, b in zip(last["client_cpu_s"], first["client_cpu_s"], strict=True)
            ],
            "machine_busy_cores": (last["machine_busy_s"] - first["machine_busy_s"]) / wall,
            "steal_cores": (last["steal_s"] - first["steal_s"]) / wall,
            "wall_s": wall,
        }
    churned = (
        counts["joins"] > sizes["clients"]
        and counts["leaves"] > 0
        and counts["drops"] > 0
        and counts["resumes"] > 0
    )
    report["churned"] = churned
    targets = {
        "void_because_someone_left": counts["void_hands_leaver"],
        "unfair": report["verdicts"]["unfair"],
    }
    report["targets"] = {k: {"got": v, "target": 0, "met": v == 0} for k, v in targets.items()}
    met = all(t["met"] for t in report["targets"].values())
    report["passed"] = report["error_total"] == 0 and met and churned and bool(load)
    return report


def verdict_summary(counts: Counter[str]) -> dict[str, Any]:
    """The stayers' verdicts and the hands' voids, by kind and cause (``_soak_clients``)."""

    def by(prefix: str) -> dict[str, int]:
        return {k[len(prefix) :]: v for k, v in sorted(counts.items()) if k.startswith(prefix)}

    return {
        "fair": counts["verdict_fair"],
        "fair_with_away": counts["verdict_fair_away"],
        "away": by("away_"),
        "unconfirmed": counts["verdict_unconfirmed"],
        "unconfirmed_causes": by("unconfirmed_cause:"),
        "void": counts["verdict_void"],
        "void_leaver": counts["verdict_void_leaver"],
        "unfair": counts["verdict_unfair"],
        "void_hands": counts["void_hands"],
        "void_hands_leaver": counts["void_hands_leaver"],
        "void_hands_leaver_causes": by("void_leaver:"),
        "void_hands_faults": by("void_cause:"),
        "late_commit_withdrawn": counts["late_commit_withdrawn"],
        "move_stale_after_presence": counts["move_stale_after_presence"],
    }


def print_report(rep: dict[str, Any]) -> None:
    """The summary a person reads."""
    m = rep["machine"]
    sz = rep["sizes"]
    c = rep["counts"]
    print(
        f"\nmachine: {m['cpus']} cores, {m['cpu']}, {m['memory_gib']} GiB; {m['platform']}; "
        f"Python {m['python']}; {m['openssl']}; engine {m['engine']}"
    )
    print(
        f"load: {sz['clients']} client slots on {sz['tables']} tables "
        f"({sz['seats']} seats, {sz['bots']} host bots, {sz['per_table']} slots each), "
        f"{sz['duration_s']:.0f} s, {sz['client_procs']} client process(es), "
        f"bot delay {sz['bot_delay_s']} s, grace {sz['grace_s']} s, seats of the gone freed "
        f"after {sz['seat_limit_s']:.0f} s"
    )
    hf = rep.get("host_final", {})
    print(
        f"churn: {hf.get('connections_total', 0):,} connections served by the host; "
        f"{c.get('joins', 0):,} joins ({c.get('joins_player', 0):,} as players, "
        f"{c.get('joins_spectating', 0):,} spectating), {c.get('leaves', 0):,} clean leaves "
        f"(bye; {c.get('byes_held_for_a_seed', 0):,} held until the player's seed for the "
        "round in progress went), "
        f"{c.get('drops', 0):,} abrupt drops, {c.get('drops_to_resume', 0):,} drops "
        f"then {c.get('resumes', 0):,} resumes; {c.get('left_mid_hand', 0):,} players left "
        f"mid-hand, {c.get('idle_leaves', 0):,} left a table that started no hand; "
        f"{c.get('seated_visits', 0):,} visits seated, {c.get('seated_after_waiting', 0):,} "
        f"of them after waiting for a seat"
    )
    print(
        f"play: {c.get('moves_sent', 0):,} moves sent by clients, "
        f"{c.get('moves_answered', 0):,} answered; {hf.get('hands', 0):,} hands completed "
        f"at the host"
    )
    print_verdicts(rep)
    mem = rep.get("memory")
    if mem:
        ratio = mem["end_minus_warm_of_idle"]
        print(
            f"host memory: idle (before load) {mem['idle_mib']:.1f} MiB; after warm-up "
            f"(t={mem['warm_t']:.0f} s) {mem['warm_mib']:.1f} MiB; end {mem['end_mib']:.1f} MiB"
            f" (end − warm-up {mem['end_minus_warm_mib']:+.1f} MiB = "
            f"{ratio:+.1%} of idle); slope over the second half "
            f"{mem['slope_second_half_mib_per_min']:+.2f} MiB/min; peak {mem['peak_mib']:.1f} "
            f"MiB; after the clients left {mem['after_clients_left_mib']:.1f} MiB"
        )
        b = mem.get("blocks")
        if b:
            print(
                f"  live Python allocator blocks: idle {b['idle']:,}, after warm-up {b['warm']:,}, "
                f"end {b['end']:,} ({b['end'] / b['warm'] - 1:+.1%}), after the clients left "
                f"{b['after']:,}; second-half slope {b['slope_second_half_per_min']:+.2%} of the "
                f"warm count per minute"
            )
        print(
            f"  RSS after a gc.collect() and malloc_trim(0) once the clients left: "
            f"{mem['after_trim_mib']:.1f} MiB; judged "
            + ("FLAT" if mem["flat"] else "GROWING")
            + f" (second-half slope ≤ {FLAT_MIB_PER_MIN} MiB/min is flat)"
        )
        print(
            "  RSS series (MiB):",
            ", ".join(
                f"{s['t']:.0f}s {s['rss_mib']:.1f}" for s in _every(rep["series"], sz["print_s"])
            ),
        )
    hi = rep.get("host_idle", {})
    if hi:
        print(
            f"host state at idle (before load): {hi.get('gc_objects', 0):,} gc-tracked objects, "
            f"{hi.get('tasks')} asyncio tasks, {hi.get('log_lines'):,} host log lines"
        )
    if "in_hand_when_left" in rep:
        print(
            f"after the clients left: {rep['in_hand_when_left']} tables were in a hand, played "
            f"out by stand-ins (hurried to {sz['hurry_s'] * 1000:.0f} ms a move); the hosts let "
            f"go of everyone in {rep.get('settle_s', 0):.0f} s"
        )
    ha = rep.get("host_after", {})
    if ha:
        print(
            f"host state after the clients left: {ha.get('conns')} connections, "
            f"{ha.get('clients')} lobby entries, {ha.get('keys')} resume keys, "
            f"{ha.get('away')} away seats, {ha.get('in_hand')} tables in a hand, "
            f"{ha.get('tasks')} asyncio tasks, {ha.get('log_lines'):,} host log lines "
            f"({ha.get('log_bytes', 0) / MIB / MIB:.1f} MiB), "
            f"{ha.get('gc_objects', 0):,} gc-tracked objects ({ha.get('gc_frozen', 0):,} of them "
            f"frozen by the collector policy, which swept {ha.get('gc_sweeps', 0)} times)"
        )
    objs = [(s["t_rel"], s["gc_objects"]) for s in rep.get("stats", []) if "gc_objects" in s]
    if objs:
        print("  gc-tracked objects in the host:", ", ".join(f"{t:.0f}s {n:,}" for t, n in objs))
    if rep.get("tracemalloc_after"):
        print("what the host holds once the clients left that it did not at idle (tracemalloc):")
        for line in rep["tracemalloc_after"]:
            print(f"  {line}")
    cpu = rep.get("cpu")
    if cpu:
        print(
            f"cpu (share of one core over the load): host {cpu['host']:.0%}, client "
            f"processes {', '.join(f'{x:.0%}' for x in cpu['clients'])}; machine busy "
            f"{cpu['machine_busy_cores']:.2f} cores of {m['cpus']}, steal "
            f"{cpu['steal_cores']:.2f}"
        )
    print(
        f"errors: {rep['error_total']}"
        + (
            " (" + ", ".join(f"{k} {v}" for k, v in rep["errors"].items()) + ")"
            if rep["errors"]
            else ""
        )
    )
    for line in rep["first_errors"][:15]:
        print(f"  {line}")
    missed = [k for k, t in rep.get("targets", {}).items() if not t["met"]]
    print(
        "PASS"
        if rep["passed"]
        else "FAIL"
        + ("" if rep["churned"] else " (too little churn)")
        + (f" (targets missed: {', '.join(missed)})" if missed else "")
    )


def print_verdicts(rep: dict[str, Any]) -> None:
    """The fair deal's part of the report: verdicts and voids with their causes, the targets."""
    v = rep["verdicts"]
    away = ", ".join(f"{how} {n:,}" for how, n in v["away"].items()) or "none"
    print(
        f"verdicts of the hands verified by players who stayed to the end (every move signed "
        f"and checked): {v['fair']:,} FAIR, {v['fair_with_away']:,} of them with someone away "
        f"(absences: {away}); {v['unconfirmed']:,} UNCONFIRMED; {v['void']:,} VOID "
        f"({v['void_leaver']:,} blaming players who left); {v['unfair']:,} UNFAIR"
    )
    if v["unconfirmed_causes"]:
        print(
            "  missing confirmations of the UNCONFIRMED, by what the player did: "
            + ", ".join(f"{k} {n:,}" for k, n in v["unconfirmed_causes"].items())
        )
    print(
        f"void hands (aborts seen live at the tables): {v['void_hands']:,}, of which "
        f"{v['void_hands_leaver']:,} because someone left"
        + (
            " (faults: "
            + ", ".join(f"{k} {n:,}" for k, n in v["void_hands_faults"].items())
            + "; the leavers: "
            + ", ".join(f"{k} {n:,}" for k, n in v["void_hands_leaver_causes"].items())
            + ")"
            if v["void_hands_leaver"]
            else ""
        )
        + "; any other void is an error"
    )
    if v["late_commit_withdrawn"] or v["move_stale_after_presence"]:
        print(
            f"  refused, not errors (v2 races, _soak_clients): {v['late_commit_withdrawn']:,} "
            f"commitments that crossed their round's withdrawal, "
            f"{v['move_stale_after_presence']:,} moves made stale by someone going away or "
            "coming back while they were on their way"
        )
    for line in rep.get("causes", [])[:12]:
        print(f"  {line}")
    for name, t in rep.get("targets", {}).items():
        print(
            f"target: {name.replace('_', ' ')} = {t['got']:,} (target {t['target']}): "
            + ("met" if t["met"] else "NOT MET")
        )


def _every(series: list[dict[str, Any]], step: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for s in series:
        if not out or s["t"] >= out[-1]["t"] + step - 1e-6:
            out.append(s)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="40 clients, 10 tables, 12 s")
    ap.add_argument("--duration", type=float, help="seconds of churn (default 300)")
    ap.add_argument("--clients", type=int, help="client slots (default 1000)")
    ap.add_argument("--tables", type=int, help="tables (default 250)")
    ap.add_argument("--client-procs", type=int, help="client processes (default 2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--save", type=Path, help="also write the report as JSON to this file")
    ap.add_argument(
        "--tracemalloc",
        action="store_true",
        help="trace the host's allocations from idle on and print, once the clients have left, "
        "what it still holds by source line (a diagnosis: slows the host)",
    )
    args = ap.parse_args(argv)
    sizes = QUICK if args.quick else Sizes()
    if args.duration is not None:
        d = args.duration
        sizes = replace(sizes, duration_s=d, warmup_s=min(sizes.warmup_s, d / 5))
    if args.clients is not None:
        sizes = replace(sizes, clients=args.clients)
    if args.tables is not None:
        sizes = replace(sizes, tables=args.tables)
    if args.tracemalloc:
        sizes = replace(sizes, tracemalloc=True)
    if args.client_procs is not None:
        sizes = replace(sizes, client_procs=args.client_procs)
    if sizes.clients < sizes.tables:
        ap.error("every table needs a client slot (--clients at least --tables)")
    if sizes.per_table > 32:  # kept possible: it shows the soak counting the refusals
        print(
            "soak: more than 32 slots a table: the host refuses the rest (errors)", file=sys.stderr
        )
    out = sys.stderr if args.json else sys.stdout

    def say(text: str) -> None:
        print(text, file=out, flush=True)  # progress as it comes, even into a file

    rep = run(sizes, args.seed, say)
    if args.save is not None:
        args.save.write_text(json.dumps(rep, indent=1, default=str))
    if args.json:
        print(json.dumps(rep, indent=1, default=str))
    else:
        print_report(rep)
    return 0 if rep["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
