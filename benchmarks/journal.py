"""What crash recovery costs: a move's round trip with and without the host's journal, and how
long ``--resume`` takes to replay a journal.

(1) Round trip. ``benchmarks/latency.py``'s (a) — one bot client at a table with three host
bots on loopback TLS, one move in flight — run alternately with the journal off (the anchor)
and on (every batch of calls a sqlite transaction in WAL mode before the answer is written,
as ``lanswitch host`` runs). The figures are p50 and p99 of the round trip, and the ratio.
As in ``latency.py`` (protocol v2), a round trip starts just before the client signs its move
and the host checks that signature before it journals and answers; both ways alike.

(2) Replay. Each journaled run leaves its journal (a table played for ``--seconds``); it is
opened and replayed into a new host with ``Host.restore``, as ``--resume`` does. The figures
are the records, hands, bytes on disk, the time to replay, and that time as a fraction of the
play it restores (the run's length: the anchor).

    .venv/bin/python benchmarks/journal.py             # 3 x 10 s each way
    .venv/bin/python benchmarks/journal.py --reps 1 --seconds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import _latency_game as game

from lanswitch.host import Host
from lanswitch.journal import Journal
from lanswitch.tls import load_or_create_identity


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reps", type=int, default=3, help="runs each way (default 3)")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of a run (default 10)")
    args = ap.parse_args(argv)
    off: list[tuple[float, float, int]] = []
    on: list[tuple[float, float, int]] = []
    replays: list[tuple[int, int, int, float]] = []
    with tempfile.TemporaryDirectory(prefix="lanswitch-journal-") as tmp:
        identity = load_or_create_identity(Path(tmp), host="localhost")
        for rep in range(1, args.reps + 1):
            for journaled in (False, True):
                where = Path(tmp) / f"rep{rep}" if journaled else None
                print(
                    f"... rep {rep}/{args.reps}, journal {'on' if journaled else 'off'}",
                    file=sys.stderr,
                    flush=True,
                )
                session = game.game_one(identity, args.seconds, None, journal=where)
                step = session.steps[0] if session.steps else None
                if step is None or not step.latencies:
                    print("a run produced no round trips", file=sys.stderr)
                    return 1
                figures = (step.pct(0.5), step.pct(0.99), len(step.latencies))
                (on if journaled else off).append(figures)
                if where is not None:
                    (path,) = sorted((where / "tables").glob("*.sqlite"))
                    size = sum(
                        f.stat().st_size
                        for f in where.glob("tables/*")
                        if f.name.startswith(path.name)
                    )
                    journal = Journal.open(path)
                    records = list(journal.records())
                    t0 = time.perf_counter()
                    host = Host.restore(records, entropy=os.urandom)
                    took = time.perf_counter() - t0
                    journal.close()
                    replays.append((len(records), host.match.hand_no, size, took))

    def med(rows: list[tuple[float, float, int]], i: int) -> float:
        return statistics.median(r[i] for r in rows) * 1000

    print(f"\njournal cost, {args.reps} runs of {args.seconds:.0f} s each way, medians:")
    print(f"{'':28} {'off (anchor)':>12} {'on':>10} {'ratio':>7}")
    for label, i in (("round trip p50 (ms)", 0), ("round trip p99 (ms)", 1)):
        a, b = med(off, i), med(on, i)
        print(f"{label:28} {a:12.3f} {b:10.3f} {b / a:6.2f}x")
    moves = statistics.median(r[2] for r in on), statistics.median(r[2] for r in off)
    print(f"{'moves timed per run':28} {moves[1]:12.0f} {moves[0]:10.0f}")
    print("\nreplay (--resume) of each journaled run:")
    for count, hands, size, took in replays:
        per = took / count * 1e6
        share = took / args.seconds
        print(
            f"  {count:6d} records, {hands:3d} hands, {size / 1024:7.0f} KiB on disk: "
            f"replayed in {took * 1000:6.0f} ms ({per:.0f} us a record), "
            f"{share:.1%} of the {args.seconds:.0f} s of play it restores"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
