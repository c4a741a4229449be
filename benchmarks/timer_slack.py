"""How short an honest host's turn timer looks to a player's own clock, on a loaded machine.

A client judges each timeout the host makes for its seat by its own clock: from the moment it
was shown its turn to the moment the timeout reached it (``CommitPart._early_timeout``). The host
starts its timer when it makes the step and sends the view in the same call, so to the player
an honest timer lasts ``T + d_timeout - d_view``: it looks short by however much longer the
view took to be handled than the timeout did — network jitter, and above all a client or host
process that had no CPU when the view came. ``session.TIMER_SLACK`` must cover that, and no
more: every second of it is a second a host may take off each turn unseen (issue 25, item 2).

This runs the real thing: a host process (``Host`` + ``Server`` over TLS on 127.0.0.1, a 5 s
turn timer, every seat a person who never moves) and the players' clients in this process,
while ``--load`` processes spin on every core, so both ends are starved as on a busy laptop.
It prints, for every timeout, how short it looked (``T - waited``), and the anchor measured in
the same run: how late a plain ``asyncio`` timer fires in this process under the same load.

    .venv/bin/python benchmarks/timer_slack.py                 # 150 s, 4 spinning processes
    .venv/bin/python benchmarks/timer_slack.py --seconds 60 --load 0

Network safety: loopback only; it ends only the processes it started, by their ids.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

TIMER = 5.0
SEATS = 4
LOOPBACK = "127.0.0.1"


def serve(home: Path) -> None:
    """The host process: a table of ``SEATS`` people with a turn timer, hand after hand."""
    from lanswitch.host import Host, HostConfig
    from lanswitch.server import Server
    from lanswitch.tls import load_or_create_identity, server_context

    ident = load_or_create_identity(home / "identity")
    config = HostConfig(
        name="Slack", seats=SEATS, bots=0, turn_timer=TIMER, hands=None, away_grace=30.0
    )
    host = Host(config, entropy=os.urandom, now=time.monotonic())

    async def main() -> None:
        server = Server(host, ssl_context=server_context(ident), address=LOOPBACK)
        await server.start()
        print(json.dumps({"port": server.port, "fp": ident.fingerprint.hex()}), flush=True)
        await server.wait_finished()

    asyncio.run(main())


def spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


async def players(port: int, fp: bytes, seconds: float) -> tuple[list[float], list[float]]:
    """Seat ``SEATS`` players who never move; return how short each timeout looked (s), and
    how late each of this loop's plain timers fired (s), the anchor."""
    from lanswitch.client import Client, Target
    from lanswitch.commitseat import CommitPart
    from lanswitch.session import Session

    short: list[float] = []

    class MeasuringPart(CommitPart):
        def _early_timeout(self) -> str | None:
            clock = self.side.clock
            if self.turn_began is not None and clock is not None:
                short.append(self.turn_time - (clock() - self.turn_began))
            return super()._early_timeout()

    class Measuring(Session):
        commit_part = MeasuringPart

    target = Target("Slack", (LOOPBACK,), port, fp, f"{LOOPBACK}:{port}")
    clients = [
        Client(
            Measuring(
                f"p{i}",
                key=Ed25519PrivateKey.generate(),
                entropy=os.urandom,
                auto_ready=True,
                clock=time.monotonic,
            ),
            target,
            chooser=lambda s: 0,
            think=3600.0,  # never moves: every turn of theirs is the host's timeout
            reconnect_for=5.0,
        )
        for i in range(SEATS)
    ]
    late: list[float] = []

    async def anchor() -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + 0.05
            await asyncio.sleep(0.05)
            late.append(loop.time() - due)

    tasks = [asyncio.create_task(c.run()) for c in clients]
    tasks.append(asyncio.create_task(anchor()))
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return short, late


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=150.0)
    ap.add_argument("--load", type=int, default=4, help="spinning processes (default 4)")
    ap.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--spin", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.serve:
        serve(args.serve)
        return 0
    if args.spin:
        spin(args.spin)
        return 0
    started: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as home:
        host = subprocess.Popen([sys.executable, __file__, "--serve", home], stdout=subprocess.PIPE)
        started.append(host)
        try:
            assert host.stdout is not None
            hello = json.loads(host.stdout.readline())
            for _ in range(args.load):
                started.append(
                    subprocess.Popen([sys.executable, __file__, "--spin", str(args.seconds + 5)])
                )
            short, late = asyncio.run(
                players(hello["port"], bytes.fromhex(hello["fp"]), args.seconds)
            )
        finally:
            for proc in started:
                proc.kill()
                proc.wait(10)
    if not short:
        print("no timeouts seen")
        return 1
    short.sort()
    late.sort()

    def q(xs: list[float], f: float) -> float:
        return xs[min(len(xs) - 1, int(f * len(xs)))]

    report = {
        "timeouts": len(short),
        "load_processes": args.load,
        "cores": os.cpu_count(),
        "short_ms": {
            "median": 1000 * statistics.median(short),
            "p99": 1000 * q(short, 0.99),
            "max": 1000 * short[-1],
            "min": 1000 * short[0],
        },
        "anchor_timer_late_ms": {
            "median": 1000 * statistics.median(late),
            "p99": 1000 * q(late, 0.99),
            "max": 1000 * late[-1],
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        s, a = report["short_ms"], report["anchor_timer_late_ms"]
        print(
            f"{len(short)} honest timeouts of {TIMER:.0f} s, {args.load} spinning processes on "
            f"{os.cpu_count()} cores"
        )
        print(
            f"looked short by: median {s['median']:.1f} ms, p99 {s['p99']:.1f} ms, "
            f"max {s['max']:.1f} ms (negative: looked long)"
        )
        print(
            f"anchor, a 50 ms asyncio timer here, late by: median {a['median']:.1f} ms, "
            f"p99 {a['p99']:.1f} ms, max {a['max']:.1f} ms; worst timeout shortfall = "
            f"{s['max'] / max(a['max'], 1e-3):.2f}x the worst timer lateness"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
