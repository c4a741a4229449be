"""Network latency of a lanswitch host, beside a bare asyncio + TLS + msgpack echo (issue #4).

Every figure is printed with the anchor measured in the same run and their ratio: the machine
is noisy, so only ratios carry between runs (``/work/shared/notes/perf.md``). The anchor is a
bare echo server (``_latency_echo.py``: the same TLS context and certificate, the same framing,
a view-like answer, nothing else), loaded in exactly the same way as the lanswitch host.

Targets:

(a) one client's action round trip (``move`` → its own updated ``view``) on loopback:
    p50 ≤ 1.3× the echo's p50 (issue #17; issue #4 asked ≤ 2×) (one client, one request in
    flight at a time, one per 10 ms slot; the medians of three 6 s runs, echo and lanswitch
    alternating, as ``engine.py`` does).
    The lanswitch client sits at a table with three host bots (2 ms each), so its turn comes
    round 7 ms or more after its move (longer when a new hand is dealt); it moves at the first
    10 ms slot after that (about two slots in three), and the echo's one client sends at every
    10 ms slot. Both at the same pace, because a round trip's time here depends on how long
    the processes sat idle before it: the echo back to back (measured once more, and printed
    for reference) answers about three times as fast as at one request per 10 ms;
(b) 1,000 bot clients on 250 tables of 4, each table acting every 100 ms, starts staggered
    (≈ 2,500 actions/s): p99 ≤ 2× the echo's p99 under the same paced load, 0 errors; the
    host process's memory (current and peak RSS) is reported;
(c) the highest paced rate the host sustains with p99 ≤ 10 ms: the rate rises by 1.25× a
    step from 250/s (the same 250 tables, a shorter period) until two steps in a row fail
    (p99 above 10 ms, an error, or under 90 % of the offered rate achieved) or the bounded
    ramp (16 steps of 4 s) ends. It starts far below (b)'s rate so that a host which cannot
    sustain (b) still gets a figure.

Issue #17's targets against the fan-out echo (below), the same run: (c) lanswitch's highest
sustained rate ≥ 0.8× the fan-out echo's; the server's CPU per answered action in (b) ≤ 1.5×
the fan-out echo's; the longest pause of the server's garbage collector ≤ 10 ms at every step
of (c) (``srvGC``).

The report also gives two floors, from one Ed25519 check timed in this process after the phases
(``measure_verify_us``, warm: a lower bound): a host that checks each move's signature spends
at least the fan-out echo's CPU plus that check per action, and a signed move's round trip
takes at least the echo's plus the client's signing and the host's check. Where a floor is
above its target, no work on the rest of the host meets that target while moves are signed.

Beside the echo, (b) and (c) also run the *fan-out echo* (``_latency_echo.py``): the same echo,
but each answer goes to the four connections of the mover's table, as every host of a card
game must tell every player of every move. It has no game and no checks, so it is the floor of
what any host (ours or another) can reach on this machine; the report says whether even it
meets (b)'s target, and gives lanswitch's p99 as a ratio to it as well.

Load shape (why it is paced): a closed loop of 1,000 clients measures a saturated queue, not
latency. Each table's acting client waits for its table's next slot (the tables' slots spread
evenly over the period) before it sends; only ``move`` → ``view`` round trips are recorded
(the fair deal's commits and reveals between hands are not moves). The echo's tables work the
same way: the acting client of each table of 4 sends one request per slot, and the turn passes
to the next client of the table.

Processes: the server in one child process, the clients in ``--client-procs`` others (default
1: on a 2-core machine the host gets one core and the load generator the other). Phases run
echo, lanswitch, echo, lanswitch… so both meet the same background noise.

Columns of each step: ``offered/s`` (tables / period), ``got/s`` (moves sent in the window),
``n`` round trips timed, percentiles and max in ms, ``err`` errors, ``srvCPU`` and ``cliCPU``
(share of one core used by the server process and by the busiest client process),
``srvLag99`` / ``cliLag99`` (p99 of how late each process's event loop ran a 5 ms timer: a
blocked loop delays every round trip through it), ``srvGC`` / ``cliGC`` (the longest pause
of the cyclic garbage collector in the window, ms), ``others`` (cores busy with processes not
ours — other work on a shared machine, the noise). So a figure limited by the load generator
or by the neighbours rather than the host can be told apart. ``--profile DIR`` runs the
lanswitch server process under cProfile during the load (not the setup), and the load's client
processes whole, and prints each one's own time by area (protocol, TLS, asyncio, host logic,
syscalls) and the top functions; profiling slows them, so its latency figures are not the
ones to quote.

The fair deal v2 (protocol 2) signs every move: the mover's client signs it, the host checks
the signature before playing it (and signs the moves of its bots), and every client at the
table checks it as it arrives — one signature and about 1 + N verifications per move. A
lanswitch round trip is timed from just before the client signs its move, so it includes the
signature; the report gives the signing alone too (``sign``: mean µs per move), and the CPU
an action costs on the server and on the clients, and of the clients' the share spent
checking whole hands at their end (``end-of-hand checks``). To set the figures beside v1's, run
v1's own ``benchmarks/latency.py`` (commit 11934c4) the same day on the same machine: its round
trip starts after the move is encoded, and v1 signs no move.

The clients of a client process share one memo of verified signatures
(``lanswitch.fairdeal.primitives.VERIFIED``): each move's signature is checked once per
process, not by each of the table's clients (issue #17: with every check made afresh the load
generator saturated its core before the host did, ~0.85 ms of client CPU per action). So the
clients' CPU is a lower bound of what real clients spend (each player's laptop checks every
move itself: ~90 µs a move); ``--fresh-checks`` makes every check afresh, as before, for an
upper bound. The server keeps the memo, as ``lanswitch host`` does. The clients of a process
also decode each frame's payload once (the same bytes go to the four seats of a table for about
a third of what they receive; ``_latency_harness.share_decodes``); ``--fresh-checks`` decodes
every frame afresh too.

Caveat: all 250 tables deal their first hand during the setup, at about the same moment, and
a random bot's hand of switch lasts ~160 moves, so the ends of the first hands (the fair
deal's signatures and transcript checks, on the host and on every client) come in a wave,
not spread evenly as at tables that have played a while.

The lanswitch server process installs the host's collector policy once its tables are up, as
``lanswitch host`` does (``lanswitch.gcpolicy.CollectorPolicy``, issue #17). ``--server-gc-freeze``
is an older experiment, off by default: both servers call ``gc.freeze()`` once their clients
are in, to show what the collector's full collections cost the echoes.

With two cores or more, the server process has the first to itself and the load's client
processes the rest, for every phase and both echoes alike (``_latency_harness.cpu_plan`` says
why; ``--no-pin`` shares them as before). Each step also gives the server loop's lag that was
spent off a CPU (``off_cpu_p99``, a lower bound: the machine, not the loop), and the load's
client processes run without their garbage collector (``_latency_harness._client_main``).

Usage: ``python benchmarks/latency.py [--quick] [--json] [--client-procs N] [--profile DIR]
[--fresh-checks] [--no-pin] [--server-gc-freeze]``.
Traffic stays on 127.0.0.1; every phase is bounded in time and count.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _latency_harness as harness
from _latency_echo import start_echo
from _latency_harness import Session, Step, StepResult, raise_nofile, run_session

from lanswitch.tls import Identity, load_or_create_identity

#: The (c) criterion: the highest rate whose p99 stays at or under this.
P99_LIMIT_S = 0.010
#: A step is sustained only if at least this share of the offered rate was achieved.
MIN_ACHIEVED = 0.90
#: Issue #17: (a)'s p50 at most this many times the echo's.
A_RATIO = 1.3
#: Issue #17: (c)'s highest sustained rate at least this share of the fan-out echo's.
C_SHARE_OF_FANOUT = 0.8
#: Issue #17: the server's CPU per action in (b) at most this many times the fan-out echo's.
CPU_RATIO_TO_FANOUT = 1.5
#: Issue #17: the longest garbage-collector pause in the server, at every step of (c).
GC_PAUSE_LIMIT_S = 0.010
#: A client process this busy (share of one core) may be what limits a figure.
CLIENT_BOUND = 0.90


@dataclass(frozen=True, slots=True)
class Sizes:
    """How big each phase is: ``--quick`` is a smoke run of seconds, the default the issue's."""

    one_s: float  # (a) duration of one repetition, warm-up included
    one_period_s: float  # (a) one move (or request) per slot of this period
    one_reps: int  # (a) repetitions, echo and lanswitch alternating: the medians are compared
    tables: int  # (b), (c)
    per_table: int
    period_s: float  # (b)
    load_s: float  # (b) duration, warm-up included
    load_warmup_s: float
    ramp_start_period_s: float  # (c): the first step's period (the same tables)
    ramp_factor: float  # (c): each step's rate over the previous one's
    ramp_steps: int  # (c): at most this many steps
    ramp_s: float  # (c): each step's duration, warm-up included
    ramp_warmup_s: float
    # Cards a hand deals (None: switch's own 7). The quick run deals 3, so hands end within its
    # seconds whatever the machine's load (with 7 they sometimes did not, on a loaded 2-core
    # machine, and tests/scenarios/test_latency.py saw no hand checked).
    hand_size: int | None = None

    def load_steps(self) -> list[Step]:
        """(b): one paced step."""
        return [Step(self.period_s, self.load_s, self.load_warmup_s)]

    def ramp_steps_list(self) -> list[Step]:
        """(c): the rate rising by ``ramp_factor`` a step, from a rate well under (b)'s, so the
        figure exists even for a host that cannot sustain (b)."""
        return [
            Step(self.ramp_start_period_s / self.ramp_factor**k, self.ramp_s, self.ramp_warmup_s)
            for k in range(self.ramp_steps)
        ]


FULL = Sizes(
    one_s=6.0,
    one_period_s=0.010,
    one_reps=3,
    tables=250,
    per_table=4,
    period_s=0.100,
    load_s=12.0,
    load_warmup_s=2.0,
    ramp_start_period_s=1.0,
    ramp_factor=1.25,
    ramp_steps=16,
    ramp_s=4.0,
    ramp_warmup_s=1.0,
)
QUICK = Sizes(
    one_s=1.5,
    one_period_s=0.010,
    one_reps=1,
    tables=20,
    per_table=4,
    period_s=0.100,
    load_s=2.5,
    load_warmup_s=0.5,
    ramp_start_period_s=0.2,
    ramp_factor=2.0,
    ramp_steps=3,
    ramp_s=1.5,
    ramp_warmup_s=0.5,
    hand_size=3,
)


def sustained(result: StepResult) -> bool:
    """Whether a paced step held: p99 within the limit, no error, the offered rate achieved."""
    return (
        result.errors == 0
        and bool(result.latencies)
        and result.pct(0.99) <= P99_LIMIT_S
        and result.achieved_per_s >= MIN_ACHIEVED * result.offered_per_s
    )


def split_tables(n_tables: int, procs: int) -> list[list[int]]:
    """Global table indices dealt round-robin to the client processes (so each process's
    tables are spread over the whole period, not bunched in one part of it)."""
    return [list(range(i, n_tables, procs)) for i in range(procs)]


# --- the echo -------------------------------------------------------------------------------


def echo_one(
    identity: Identity, sizes: Sizes, gc_freeze: bool = False, *, paced: bool = True
) -> Session:
    """(a) for the echo: one client, sequential round trips, one per slot of (a)'s period
    (``paced``) or back to back."""
    return run_session(
        server_start=start_echo,
        server_cfg={"identity": identity, "gc_freeze": gc_freeze},
        client_kind="echo",
        client_cfgs=lambda pid, ports: [
            {"identity": identity, "ports": ports, "tables": [0], "per_table": 1}
        ],
        n_tables=1,
        steps=[Step(sizes.one_period_s if paced else 0.0, sizes.one_s, min(0.5, sizes.one_s / 4))],
        keep_going=lambda k, r: True,
        setup_timeout_s=30.0,
    )


def echo_paced(
    identity: Identity,
    sizes: Sizes,
    procs: int,
    steps: list[Step],
    keep_going: Callable[[int, StepResult], bool],
    gc_freeze: bool = False,
    fanout: bool = False,
) -> Session:
    """(b) or (c) for the echo: the same tables, slots and steps as lanswitch's (``fanout``:
    each answer goes to the whole table, see ``_latency_echo``)."""
    nofile = 4 * sizes.tables * sizes.per_table + 256
    return run_session(
        server_start=start_echo,
        server_cfg={
            "identity": identity,
            "nofile": nofile,
            "gc_freeze": gc_freeze,
            "fanout": fanout,
        },
        client_kind="echo",
        client_cfgs=lambda pid, ports: [
            {
                "identity": identity,
                "ports": ports,
                "tables": tables,
                "per_table": sizes.per_table,
                "nofile": nofile,
                "fanout": fanout,
            }
            for tables in split_tables(sizes.tables, procs)
        ],
        n_tables=sizes.tables,
        steps=steps,
        keep_going=keep_going,
        setup_timeout_s=120.0,
    )


# --- figures ------------------------------------------------------------------------------------


def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def _lag_json(lag: dict[str, float]) -> dict[str, float]:
    """Lags and pauses in ms; ``gc_full`` stays a count."""
    return {k: (int(v) if k == "gc_full" else ms(v)) for k, v in lag.items()}


def step_json(r: StepResult) -> dict[str, Any]:
    return {
        "period_ms": round(r.step.period_s * 1000.0, 3),
        "offered_per_s": round(r.offered_per_s, 1),
        "achieved_per_s": round(r.achieved_per_s, 1),
        "round_trips": len(r.latencies),
        "p50_ms": ms(r.pct(0.50)),
        "p90_ms": ms(r.pct(0.90)),
        "p99_ms": ms(r.pct(0.99)),
        "p999_ms": ms(r.pct(0.999)),
        "max_ms": ms(r.latencies[-1]) if r.latencies else math.nan,
        "errors": r.errors,
        "error_kinds": r.error_kinds,
        "hands_per_s": round(r.counts.get("hands", 0) / r.window_s, 2) if r.window_s else None,
        "checked_per_s": round(r.counts.get("checked", 0) / r.window_s, 2) if r.window_s else None,
        "server_cpu": round(r.server_cpu, 3) if r.server_cpu is not None else None,
        "client_cpu": round(r.client_cpu, 3),
        "others_cpu": round(r.others_cpu, 3) if r.others_cpu is not None else None,
        "steal_cpu": round(r.steal, 3) if r.steal is not None else None,
        "server_memory_kib": r.server_memory,
        "client_rss_kib": r.client_rss_kib,
        "server_loop_lag_ms": _lag_json(r.server_lag),
        "client_loop_lag_ms": _lag_json(r.client_lag),
        "sustained": sustained(r),
    }


class RampJudge:
    """Stops a rising ramp at the second failing step in a row.

    The machine is shared and noisy: one step can fail on a burst of someone else's work
    (the ``others`` column shows it). Two failures in a row end the ramp; a step that passes
    after a single failure still counts.
    """

    def __init__(self) -> None:
        self.failed_in_a_row = 0

    def __call__(self, k: int, result: StepResult) -> bool:
        self.failed_in_a_row = 0 if sustained(result) else self.failed_in_a_row + 1
        return self.failed_in_a_row < 2


def limit_step(session: Session) -> StepResult | None:
    """The step where the ramp ran out: the first of its final failing run, or its last."""
    steps = session.steps
    k = len(steps)
    while k > 0 and not sustained(steps[k - 1]):
        k -= 1
    if k < len(steps):
        return steps[k]
    return steps[-1] if steps else None


def highest_sustained(session: Session) -> tuple[float | None, StepResult | None]:
    """The highest offered rate of a sustained step, and the step where the ramp ran out."""
    rates = [r.offered_per_s for r in session.steps if sustained(r)]
    return (max(rates) if rates else None), limit_step(session)


def session_json(session: Session) -> dict[str, Any]:
    return {
        "connected": session.connected,
        "steps": [step_json(r) for r in session.steps],
        "server_memory_kib": {
            "idle": session.memory_idle,
            "connected": session.memory_connected,
            "end": session.memory_end,
        },
        "outside_errors": session.outside_errors,
        "failure": session.failure,
    }


def verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


def report_line(
    label: str, ours: float | None, echo: float | None, target: str, met: bool | None
) -> str:
    def fmt(v: float | None) -> str:
        return "   n/a" if v is None or math.isnan(v) else f"{v:8.3f}"

    ratio = (
        f"{ours / echo:6.2f}x"
        if ours is not None and echo and not math.isnan(ours) and not math.isnan(echo)
        else "   n/a"
    )
    tail = f"  target {target}: {verdict(met)}" if met is not None else ""
    return f"{label:<34} {fmt(ours)} {fmt(echo)} {ratio}{tail}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run of seconds")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--client-procs", type=int, default=1, help="client processes (default 1)")
    ap.add_argument(
        "--echo-only", action="store_true", help="measure only the anchor (no lanswitch host)"
    )
    ap.add_argument(
        "--profile",
        type=Path,
        default=None,
        help=(
            "run the lanswitch server and the load's client processes under cProfile "
            "(slower!); stats files go in this directory"
        ),
    )
    ap.add_argument(
        "--fresh-checks",
        action="store_true",
        help="the load's clients check every signature afresh (each its own; before issue 17)",
    )
    ap.add_argument(
        "--no-pin",
        action="store_true",
        help=(
            "let the server and the load's client processes share every core (by default the "
            "server has one to itself: _latency_harness.cpu_plan)"
        ),
    )
    ap.add_argument(
        "--server-gc-freeze",
        action="store_true",
        help="experiment: gc.freeze() in both servers once the clients are in",
    )
    args = ap.parse_args(argv)
    freeze = args.server_gc_freeze
    harness.PIN_CPUS = not args.no_pin
    sizes = QUICK if args.quick else FULL
    procs = max(1, min(args.client_procs, sizes.tables))
    raise_nofile(4 * sizes.tables * sizes.per_table + 256)
    sessions: dict[str, Session | None] = {}

    def progress(text: str) -> None:
        if not args.json:
            print(f"... {text}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="lanswitch-latency-") as tmp:
        identity = load_or_create_identity(Path(tmp), host="localhost")
        game: Any = None
        if not args.echo_only:
            import _latency_game as game

        def ours(steps: list[Step], keep: Callable[[int, StepResult], bool], name: str) -> Session:
            return game.game_load(  # type: ignore[no-any-return]
                identity,
                client_tables=split_tables(sizes.tables, procs),
                per_table=sizes.per_table,
                steps=steps,
                keep_going=keep,
                profile=args.profile,
                profile_name=name,
                gc_freeze=freeze,
                fresh_checks=args.fresh_checks,
                hand_size=sizes.hand_size,
            )

        # The echo and lanswitch alternate phase by phase, so both meet the same noise.
        for rep in range(1, sizes.one_reps + 1):
            progress(f"(a) echo, one client ({rep}/{sizes.one_reps})")
            sessions[f"echo_one#{rep}"] = echo_one(identity, sizes, freeze)
            if game is not None:
                progress(f"(a) lanswitch, one client ({rep}/{sizes.one_reps})")
                sessions[f"ours_one#{rep}"] = game.game_one(
                    identity,
                    sizes.one_s,
                    args.profile,
                    freeze,
                    period_s=sizes.one_period_s,
                    hand_size=sizes.hand_size,
                )
        progress("(a) echo, one client, back to back (for reference)")
        sessions["echo_b2b"] = echo_one(identity, sizes, freeze, paced=False)
        progress("(b) echo, paced load")
        sessions["echo_load"] = echo_paced(
            identity, sizes, procs, sizes.load_steps(), lambda k, r: True, freeze
        )
        progress("(b) fan-out echo, paced load")
        sessions["fan_load"] = echo_paced(
            identity, sizes, procs, sizes.load_steps(), lambda k, r: True, freeze, fanout=True
        )
        if game is not None:
            progress("(b) lanswitch, paced load")
            sessions["ours_load"] = ours(sizes.load_steps(), lambda k, r: True, "server-load")
        progress("(c) echo, rising rate")
        sessions["echo_ramp"] = echo_paced(
            identity, sizes, procs, sizes.ramp_steps_list(), RampJudge(), freeze
        )
        progress("(c) fan-out echo, rising rate")
        sessions["fan_ramp"] = echo_paced(
            identity, sizes, procs, sizes.ramp_steps_list(), RampJudge(), freeze, fanout=True
        )
        if game is not None:
            progress("(c) lanswitch, rising rate")
            sessions["ours_ramp"] = ours(sizes.ramp_steps_list(), RampJudge(), "server-ramp")

    report = build_report(sizes, procs, sessions, verify_us=measure_verify_us())
    report["sizes"]["server_gc_freeze"] = freeze
    plan = harness.cpu_plan()
    report["sizes"]["cores"] = (
        None if plan is None else {"server": sorted(plan[0]), "clients": sorted(plan[1])}
    )
    if args.json:
        print(json.dumps(_finite(report), indent=2, allow_nan=False, default=str))
    else:
        print_report(report)
    if args.profile is not None and game is not None:
        game.print_profile(args.profile)
    return 0


def _finite(obj: Any) -> Any:
    """``obj`` with every NaN or infinity (a percentile of no samples) as None: strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def _first(session: Session | None) -> StepResult | None:
    return session.steps[0] if session is not None and session.steps else None


def measure_verify_us(n: int = 2000) -> float:
    """One Ed25519 check as the host makes it (``lanswitch.fairdeal.primitives.verify``, each
    signature new to its memo), µs: the median of five batches, in this process once the
    phases are over. Warm: a lower bound of what a host checking moves among 250 tables pays."""
    import time

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from lanswitch.fairdeal.primitives import sign, verify

    key = os.urandom(32)
    public = Ed25519PrivateKey.from_private_bytes(key).public_key().public_bytes_raw()
    messages = [os.urandom(48) for _ in range(n)]
    signed = [(m, sign(key, m)) for m in messages]
    batches = []
    for b in range(5):
        part = signed[b * n // 5 : (b + 1) * n // 5]
        began = time.perf_counter()
        for m, s in part:
            if not verify(public, m, s):
                raise RuntimeError("a good signature did not verify")
        batches.append((time.perf_counter() - began) / len(part))
    return round(statistics.median(batches) * 1e6, 1)


def build_report(
    sizes: Sizes, procs: int, sessions: dict[str, Session | None], verify_us: float | None = None
) -> dict[str, Any]:
    """Every figure, the echo's beside it, the ratio and the verdict, as one JSON-able map.

    ``verify_us``: one signature check (:func:`measure_verify_us`), for the floors: a host
    that checks each move's signature spends at least the fan-out echo's CPU plus one check
    per action, and a move's round trip takes at least the echo's plus the client's signing
    and the host's check."""
    eb, gb = _first(sessions.get("echo_load")), _first(sessions.get("ours_load"))
    fb = _first(sessions.get("fan_load"))
    echo_ramp, ours_ramp = sessions.get("echo_ramp"), sessions.get("ours_ramp")
    fan_ramp = sessions.get("fan_ramp")

    def pct(r: StepResult | None, q: float) -> float | None:
        return ms(r.pct(q)) if r is not None and r.latencies else None

    def ratio(a: float | None, b: float | None) -> float | None:
        return round(a / b, 3) if a is not None and b else None

    def reps(prefix: str, q: float) -> list[float]:
        out = []
        for key, session in sessions.items():
            r = _first(session) if key.startswith(prefix) else None
            if r is not None and r.latencies:
                out.append(ms(r.pct(q)))
        return out

    def median(values: list[float]) -> float | None:
        return statistics.median(values) if values else None

    a_ours, a_echo = median(reps("ours_one", 0.50)), median(reps("echo_one", 0.50))
    b_ours, b_echo = pct(gb, 0.99), pct(eb, 0.99)
    c_ours, c_ours_limit = highest_sustained(ours_ramp) if ours_ramp else (None, None)
    c_echo, c_echo_limit = highest_sustained(echo_ramp) if echo_ramp else (None, None)
    c_fan, c_fan_limit = highest_sustained(fan_ramp) if fan_ramp else (None, None)
    b_fan = pct(fb, 0.99)
    ramp = sizes.ramp_steps_list()
    gc_steps = [ms(r.server_lag.get("gc_max", 0.0)) for r in ours_ramp.steps] if ours_ramp else []

    def cpu(r: StepResult | None) -> dict[str, float | None]:
        """CPU shares of a core, and CPU time per action answered (the clients' counted as
        ``procs`` times the busiest process's: exact for one), and the cores that would take
        at the offered rate — on a machine of 2, shared by the server and the clients. For
        lanswitch also the clients' end-of-hand checks per action (their thread's CPU, part
        of the clients')."""
        if r is None or r.server_cpu is None or not r.achieved_per_s:
            return {"server": None, "client": None}
        per_server = r.server_cpu / r.achieved_per_s
        per_client = r.client_cpu * procs / r.achieved_per_s
        out: dict[str, float | None] = {
            "server": round(r.server_cpu, 3),
            "client": round(r.client_cpu, 3),
            "server_ms_per_action": round(1000 * per_server, 3),
            "clients_ms_per_action": round(1000 * per_client, 3),
            "cores_at_offered_rate": round((per_server + per_client) * r.offered_per_s, 2),
        }
        if "check_cpu_us" in r.counts and r.sent:
            out["clients_check_ms_per_action"] = round(r.counts["check_cpu_us"] / 1e3 / r.sent, 3)
        return out

    def server_ms(r: StepResult | None) -> float | None:
        return cpu(r).get("server_ms_per_action")

    ours_ms, fan_ms = server_ms(gb), server_ms(fb)
    cpu_ratio = ratio(ours_ms, fan_ms)

    def sign_us(r: StepResult | None) -> float | None:
        """The client's mean time to sign a move (lanswitch, protocol v2), µs."""
        if r is None or not r.counts.get("signed"):
            return None
        return round(r.counts["sign_us"] / r.counts["signed"], 1)

    def sign_reps() -> list[float]:
        out = []
        for key, session in sessions.items():
            v = sign_us(_first(session)) if key.startswith("ours_one") else None
            if v is not None:
                out.append(v)
        return out

    a_sign = median(sign_reps())
    return {
        "sizes": {
            "tables": sizes.tables,
            "clients_per_table": sizes.per_table,
            "clients": sizes.tables * sizes.per_table,
            "period_ms": sizes.period_s * 1000.0,
            "client_processes": procs,
        },
        "a_one_client": {
            "repetitions": sizes.one_reps,
            "ours_p50_ms": a_ours,
            "ours_p99_ms": median(reps("ours_one", 0.99)),
            "echo_p50_ms": a_echo,
            "echo_p99_ms": median(reps("echo_one", 0.99)),
            "ours_p50_ms_each": reps("ours_one", 0.50),
            "echo_p50_ms_each": reps("echo_one", 0.50),
            "ratio_p50": ratio(a_ours, a_echo),
            "period_ms": sizes.one_period_s * 1000.0,
            "echo_back_to_back_p50_ms": pct(_first(sessions.get("echo_b2b")), 0.50),
            "ours_sign_us": a_sign,
            "verify_us": verify_us,
            "floor_ratio": ratio(a_echo + (a_sign + verify_us) / 1000, a_echo)
            if a_echo is not None and a_sign is not None and verify_us is not None
            else None,
            "target": f"p50 <= {A_RATIO}x echo p50",
            "met": (a_ours <= A_RATIO * a_echo) if a_ours is not None and a_echo else None,
        },
        "b_paced_load": {
            "ours_p50_ms": pct(gb, 0.50),
            "ours_p99_ms": b_ours,
            "echo_p50_ms": pct(eb, 0.50),
            "echo_p99_ms": b_echo,
            "ratio_p99": ratio(b_ours, b_echo),
            "ours_errors": gb.errors if gb else None,
            "echo_errors": eb.errors if eb else None,
            "offered_per_s": round(gb.offered_per_s, 1) if gb else None,
            "ours_achieved_per_s": round(gb.achieved_per_s, 1) if gb else None,
            "echo_achieved_per_s": round(eb.achieved_per_s, 1) if eb else None,
            "ours_cpu": cpu(gb),
            "ours_sign_us": sign_us(gb),
            "echo_cpu": cpu(eb),
            "ours_server_lag_ms": _lag_json(gb.server_lag) if gb else None,
            "echo_server_lag_ms": _lag_json(eb.server_lag) if eb else None,
            "host_memory_kib": gb.server_memory if gb else None,
            "echo_memory_kib": eb.server_memory if eb else None,
            "target": "p99 <= 2x echo p99, 0 errors",
            "met": (b_ours <= 2 * b_echo and gb is not None and gb.errors == 0)
            if b_ours is not None and b_echo
            else None,
            "fanout_p50_ms": pct(fb, 0.50),
            "fanout_p99_ms": b_fan,
            "fanout_errors": fb.errors if fb else None,
            "fanout_achieved_per_s": round(fb.achieved_per_s, 1) if fb else None,
            "fanout_cpu": cpu(fb),
            "fanout_ratio_p99": ratio(b_fan, b_echo),
            "cpu_ratio_to_fanout": cpu_ratio,
            "verify_us": verify_us,
            "cpu_floor_ratio_to_fanout": ratio(fan_ms + verify_us / 1000, fan_ms)
            if fan_ms is not None and verify_us is not None
            else None,
            "target_cpu": f"server CPU per action <= {CPU_RATIO_TO_FANOUT}x the fan-out echo's",
            "met_cpu": (cpu_ratio <= CPU_RATIO_TO_FANOUT) if cpu_ratio is not None else None,
            "ours_ratio_p99_to_fanout": ratio(b_ours, b_fan),
            "fanout_meets_target": (b_fan <= 2 * b_echo and fb is not None and fb.errors == 0)
            if b_fan is not None and b_echo
            else None,
        },
        "c_highest_rate": {
            "ours_per_s": c_ours,
            "echo_per_s": c_echo,
            "ratio": ratio(c_ours, c_echo),
            "ours_limit_step": step_json(c_ours_limit) if c_ours_limit else None,
            "echo_limit_step": step_json(c_echo_limit) if c_echo_limit else None,
            "fanout_per_s": c_fan,
            "ratio_to_fanout": ratio(c_ours, c_fan),
            "target_fanout": f">= {C_SHARE_OF_FANOUT}x the fan-out echo's",
            "met_fanout": (c_ours >= C_SHARE_OF_FANOUT * c_fan) if c_ours and c_fan else None,
            "ours_gc_max_ms_each": gc_steps,
            "target_gc": f"server GC pause <= {GC_PAUSE_LIMIT_S * 1000:.0f} ms at every step",
            "met_gc": (max(gc_steps) <= GC_PAUSE_LIMIT_S * 1000) if gc_steps else None,
            "fanout_limit_step": step_json(c_fan_limit) if c_fan_limit else None,
            "ramp_from_per_s": round(sizes.tables / ramp[0].period_s, 1),
            "ramp_top_per_s": round(sizes.tables / ramp[-1].period_s, 1),
            "criterion": f"p99 <= {P99_LIMIT_S * 1000:.0f} ms, 0 errors, "
            f">= {MIN_ACHIEVED:.0%} of the offered rate",
        },
        "sessions": {k: session_json(v) if v else None for k, v in sessions.items()},
    }


_TITLES = {
    "echo_one": "(a) echo, one client, sequential, one request per 10 ms slot",
    "echo_b2b": "(a) echo, one client, back to back (for reference only)",
    "ours_one": "(a) lanswitch, one client (3 host bots), one move per 10 ms slot",
    "echo_load": "(b) echo, paced load",
    "fan_load": "(b) fan-out echo (each answer to the whole table), paced load",
    "ours_load": "(b) lanswitch, paced load",
    "echo_ramp": "(c) echo, rising rate",
    "fan_ramp": "(c) fan-out echo, rising rate",
    "ours_ramp": "(c) lanswitch, rising rate",
}


def print_report(rep: dict[str, Any]) -> None:
    sz = rep["sizes"]
    print(
        f"lanswitch latency vs a bare asyncio+TLS+msgpack echo, same run; (b)/(c): "
        f"{sz['clients']} clients on {sz['tables']} tables, {sz['client_processes']} client "
        "process(es); the server in its own process. Times in ms; CPU: share of one core."
    )
    cores = sz.get("cores")
    print(
        "The server's process alone on core(s) "
        f"{cores['server']}, the load's on {cores['clients']}.\n"
        if cores
        else "The server and the load share every core (--no-pin, or a single core).\n"
    )
    for name, s in rep["sessions"].items():
        if s is None:
            continue
        base, _, rep_no = name.partition("#")
        title = _TITLES.get(base, base) + (f", repetition {rep_no}" if rep_no else "")
        print(f"{title}: {s['connected']} connected")
        if s["failure"]:
            print(f"  FAILED: {s['failure']}")
        print(
            f"  {'period':>7} {'offered/s':>9} {'got/s':>8} {'n':>7} {'p50':>7} {'p90':>7} "
            f"{'p99':>7} {'p99.9':>7} {'max':>7} {'err':>4} {'srvCPU':>6} {'cliCPU':>6} "
            f"{'srvLag99':>8} {'cliLag99':>8} {'others':>6} {'srvGC':>6} {'cliGC':>6}"
        )
        for st in s["steps"]:
            srv = f"{st['server_cpu']:6.0%}" if st["server_cpu"] is not None else "   n/a"
            others = f"{st['others_cpu']:6.0%}" if st["others_cpu"] is not None else "   n/a"
            flag = ""
            # (a)'s one client keeps its pace only when its turn has come round by the slot
            # (three bots' turns): not a rate the host is asked to sustain.
            if st["period_ms"] > 0 and not st["sustained"] and base not in ("ours_one", "echo_one"):
                flag = "  (not sustained)"
            print(
                f"  {st['period_ms']:7.2f} {st['offered_per_s']:9.0f} {st['achieved_per_s']:8.0f} "
                f"{st['round_trips']:7d} {st['p50_ms']:7.3f} {st['p90_ms']:7.3f} "
                f"{st['p99_ms']:7.3f} {st['p999_ms']:7.3f} {st['max_ms']:7.2f} "
                f"{st['errors']:4d} {srv} {st['client_cpu']:6.0%} "
                f"{st['server_loop_lag_ms'].get('p99', math.nan):8.3f} "
                f"{st['client_loop_lag_ms'].get('p99', math.nan):8.3f} {others} "
                f"{st['server_loop_lag_ms'].get('gc_max', math.nan):6.1f} "
                f"{st['client_loop_lag_ms'].get('gc_max', math.nan):6.1f}{flag}"
            )
            if st["error_kinds"]:
                print(f"          errors: {st['error_kinds']}")
            if st["hands_per_s"] or st["checked_per_s"]:
                print(
                    f"          hands dealt in the window: {st['hands_per_s']:.1f}/s; "
                    f"transcripts checked fair: {st['checked_per_s']:.1f}/s"
                )
        mem = s["server_memory_kib"]
        print(
            f"  server RSS: idle {mem['idle'].get('rss_kib', 0) / 1024:.1f} MiB, connected "
            f"{mem['connected'].get('rss_kib', 0) / 1024:.1f} MiB, end "
            f"{mem['end'].get('rss_kib', 0) / 1024:.1f} MiB, peak "
            f"{mem['end'].get('peak_rss_kib', 0) / 1024:.1f} MiB"
        )
        rss = [st["client_rss_kib"] / 1024 for st in s["steps"] if st.get("client_rss_kib")]
        if rss:  # the load's collector is off (_latency_harness._client_main): its growth
            print(f"  load's client process RSS, each step's end: {rss[0]:.0f} → {rss[-1]:.0f} MiB")
        if s["outside_errors"]:
            print(f"  errors outside the measured steps: {s['outside_errors']}")
        print()

    print(f"{'figure':<34} {'lanswitch':>8} {'echo':>8} {'ratio':>7}")
    a, b, c = rep["a_one_client"], rep["b_paced_load"], rep["c_highest_rate"]
    print(report_line("(a) one client, p50 ms", a["ours_p50_ms"], a["echo_p50_ms"],
                      a["target"], a["met"]))  # fmt: skip
    print(report_line("    one client, p99 ms", a["ours_p99_ms"], a["echo_p99_ms"], "", None))
    if a["repetitions"] > 1:
        each = ", ".join(
            f"{o:.3f}/{e:.3f}"
            for o, e in zip(a["ours_p50_ms_each"], a["echo_p50_ms_each"], strict=False)
        )
        print(f"    (a): medians of {a['repetitions']} alternating runs; p50s ours/echo: {each}")
    if a["ours_sign_us"] is not None:
        print(
            f"    (a): lanswitch's round trip starts before the client signs its move; the "
            f"signing alone: {a['ours_sign_us']:.1f} us (mean)"
        )
    if a["floor_ratio"] is not None:
        print(
            f"    (a): the floor of a signed move: the echo's p50 + the signing + the host's "
            f"check ({a['verify_us']:.1f} us) = {a['floor_ratio']:.2f}x the echo's p50"
        )
    if a["echo_back_to_back_p50_ms"] is not None:
        print(
            f"    (a): both at one round trip per {a['period_ms']:.0f} ms slot; the echo back to "
            f"back (no idle time between requests): p50 {a['echo_back_to_back_p50_ms']:.3f} ms"
        )
    print(report_line("(b) paced load, p50 ms", b["ours_p50_ms"], b["echo_p50_ms"], "", None))
    print(report_line("    paced load, p99 ms", b["ours_p99_ms"], b["echo_p99_ms"],
                      b["target"], b["met"]))  # fmt: skip
    print(
        f"    offered {b['offered_per_s']}/s; achieved: lanswitch {b['ours_achieved_per_s']}, "
        f"echo {b['echo_achieved_per_s']}; errors: lanswitch {b['ours_errors']}, "
        f"echo {b['echo_errors']}"
    )
    oc, ec = b["ours_cpu"], b["echo_cpu"]
    if oc["server"] is not None and ec["server"] is not None:
        print(
            f"    CPU (share of a core): lanswitch server {oc['server']:.0%}, its clients "
            f"{oc['client']:.0%}; echo server {ec['server']:.0%}, its clients {ec['client']:.0%}"
        )
    if oc.get("server_ms_per_action") is not None:
        check = oc.get("clients_check_ms_per_action")
        sign = b["ours_sign_us"]
        print(
            f"    lanswitch CPU per action answered: server {oc['server_ms_per_action']:.3f} ms, "
            f"clients {oc['clients_ms_per_action']:.3f} ms"
            + (f" (of which end-of-hand checks {check:.3f} ms)" if check is not None else "")
            + (f"; a move's signing {sign:.1f} us" if sign is not None else "")
        )
    if b["ours_server_lag_ms"]:
        lag = b["ours_server_lag_ms"]
        print(
            f"    lanswitch server loop: lag p99 {lag.get('p99', math.nan):.1f} ms, max "
            f"{lag.get('max', math.nan):.1f} ms; longest GC pause {lag.get('gc_max', 0):.1f} ms "
            f"({lag.get('gc_full', 0)} full collections in the window)"
        )
    if b["fanout_p99_ms"] is not None:
        fc = b["fanout_cpu"]
        print(
            f"    fan-out echo: p50 {b['fanout_p50_ms']:.3f} ms, p99 {b['fanout_p99_ms']:.3f} ms "
            f"({b['fanout_ratio_p99']}x the echo's; lanswitch {b['ours_ratio_p99_to_fanout']}x "
            f"the fan-out's), {b['fanout_achieved_per_s']}/s, errors {b['fanout_errors']}, "
            f"server CPU {fc['server'] or 0:.0%}, clients CPU {fc['client'] or 0:.0%}"
        )
        if fc.get("cores_at_offered_rate") is not None and oc.get("cores_at_offered_rate"):
            print(
                f"    CPU per action answered, server + clients: lanswitch "
                f"{oc['server_ms_per_action']:.3f} + {oc['clients_ms_per_action']:.3f} ms, "
                f"fan-out echo {fc['server_ms_per_action']:.3f} + "
                f"{fc['clients_ms_per_action']:.3f} ms; at {b['offered_per_s']:.0f}/s that is "
                f"{oc['cores_at_offered_rate']:.2f} and {fc['cores_at_offered_rate']:.2f} cores "
                f"of this machine's {os.cpu_count()}"
            )
        if b["cpu_ratio_to_fanout"] is not None:
            print(
                f"    server CPU per action, lanswitch / fan-out echo: "
                f"{b['cpu_ratio_to_fanout']:.2f}x  target {b['target_cpu']}: "
                f"{verdict(b['met_cpu'])}"
            )
        if b["cpu_floor_ratio_to_fanout"] is not None:
            print(
                f"    the floor of a host that checks each move's signature: the fan-out echo's "
                f"CPU + one check ({b['verify_us']:.1f} us) = "
                f"{b['cpu_floor_ratio_to_fanout']:.2f}x the fan-out echo's"
            )
        floor = "meets" if b["fanout_meets_target"] else "does NOT meet"
        print(
            f"    the fan-out echo (no game, no checks: only the I/O every host that tells all "
            f"four players must do) {floor} (b)'s target on this machine"
        )
    hm, em = b["host_memory_kib"] or {}, b["echo_memory_kib"] or {}
    if hm:
        print(
            f"    host memory: RSS {hm.get('rss_kib', 0) / 1024:.1f} MiB, peak "
            f"{hm.get('peak_rss_kib', 0) / 1024:.1f} MiB (echo: "
            f"{em.get('rss_kib', 0) / 1024:.1f} / {em.get('peak_rss_kib', 0) / 1024:.1f} MiB)"
        )
    print(report_line("(c) highest sustained, actions/s", c["ours_per_s"], c["echo_per_s"],
                      "", None))  # fmt: skip
    print(
        f"    criterion: {c['criterion']}; the ramp runs {c['ramp_from_per_s']:.0f}/s to "
        f"{c['ramp_top_per_s']:.0f}/s"
    )
    if c["fanout_per_s"] is not None:
        print(f"    fan-out echo: highest sustained {c['fanout_per_s']:.0f}/s")
    if c["met_fanout"] is not None:
        print(
            f"    lanswitch / fan-out echo: {c['ratio_to_fanout']:.2f}x  target "
            f"{c['target_fanout']}: {verdict(c['met_fanout'])}"
        )
    if c["met_gc"] is not None:
        each = ", ".join(f"{v:.1f}" for v in c["ours_gc_max_ms_each"])
        print(
            f"    longest GC pause in the lanswitch server, each step of (c): {each} ms  target "
            f"{c['target_gc']}: {verdict(c['met_gc'])}"
        )
    for who, name in (("ours", "lanswitch"), ("echo", "echo"), ("fanout", "fan-out echo")):
        st = c[f"{who}_limit_step"]
        if st is None:
            continue
        where = "held every step up to" if st["sustained"] else "ran out at"
        print(
            f"    {name} {where} {st['offered_per_s']:.0f}/s: p99 {st['p99_ms']:.1f} ms, "
            f"server CPU {st['server_cpu'] or 0:.0%} (loop lag p99 "
            f"{st['server_loop_lag_ms'].get('p99', math.nan):.1f} ms, off a CPU >= "
            f"{st['server_loop_lag_ms'].get('off_cpu_p99', math.nan):.1f} ms), clients CPU "
            f"{st['client_cpu']:.0%}, other processes {st['others_cpu'] or 0:.0%}; longest "
            f"GC pause in the server {st['server_loop_lag_ms'].get('gc_max', math.nan):.1f} ms "
            f"({st['server_loop_lag_ms'].get('gc_full', 0)} full collections)"
        )
        server_lag = st["server_loop_lag_ms"].get("p99", math.nan)
        client_lag = st["client_loop_lag_ms"].get("p99", math.nan)
        if not st["sustained"] and client_lag > server_lag:
            # A round trip waits on both loops; the one that lags more is what gave out first.
            print(
                f"    {name}: the load's loop lagged more than the server's there (p99 "
                f"{client_lag:.1f} against {server_lag:.1f} ms): the load generator ran out first"
            )
        if st["client_cpu"] >= CLIENT_BOUND:
            print(
                f"    {name}: its clients' process was >= {CLIENT_BOUND:.0%} busy there: the "
                "figure may be a lower bound on what the server sustains"
            )


if __name__ == "__main__":
    raise SystemExit(main())
