"""Rules-engine speed: player actions/s and hands/s with 4 random bots, on every preset.

Target (issue #2): on ``switch``, at least 1.0x OpenSpiel ``crazy_eights`` player actions/s,
measured in the same run (the anchor is in ``_openspiel_anchor.py``; install it with
``pip install -e '.[bench]'``). The machine is noisy, so ours and OpenSpiel's runs are
interleaved and the medians compared.

The engine runs compiled by mypyc when ``make`` built it (``lanswitch.ENGINE`` says which);
the pure Python engine is measured too, in a second process with ``LANSWITCH_PURE=1``.

Usage: ``python benchmarks/engine.py [--games N] [--reps R] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _openspiel_anchor import openspiel_random_playouts

import lanswitch
from lanswitch.rules import PRESETS
from lanswitch.simulate import simulate


def ours(preset: str, games: int, seed: int) -> dict[str, float]:
    stats = simulate(PRESETS[preset], 4, games, ["random"] * 4, seed)
    return {
        "games": stats.games,
        "actions": stats.actions,
        "elapsed_s": stats.elapsed_s,
        "actions_per_s": stats.actions / stats.elapsed_s,
        "games_per_s": stats.games / stats.elapsed_s,
        "actions_per_game": stats.actions / stats.games,
        "limit_endings": stats.endings.get("limit", 0),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="hands per measurement")
    ap.add_argument("--reps", type=int, default=5, help="interleaved repetitions on switch")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--switch-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.switch_only:  # the pure-engine measurement, run in a child process
        runs = [ours("switch", args.games, seed=rep)["actions_per_s"] for rep in range(args.reps)]
        print(json.dumps({"engine": lanswitch.ENGINE, "median": statistics.median(runs)}))
        return 0

    # 1. switch against OpenSpiel, interleaved.
    mine: list[float] = []
    theirs: list[float] = []
    for rep in range(args.reps):
        mine.append(ours("switch", args.games, seed=rep)["actions_per_s"])
        os_run = openspiel_random_playouts(args.games, players=4, seed=rep)
        if os_run is not None:
            theirs.append(os_run["actions_per_s"])
    anchor = statistics.median(theirs) if theirs else None
    switch_med = statistics.median(mine)

    # 2. every preset once.
    rows = {name: ours(name, args.games, seed=7) for name in PRESETS}

    # 3. the pure Python engine, for comparison, when the compiled one ran above.
    pure = None
    if lanswitch.ENGINE == "compiled":
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--switch-only",
                "--games",
                str(args.games),
                "--reps",
                str(args.reps),
            ],
            env=dict(os.environ, LANSWITCH_PURE="1"),
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
        )
        pure = json.loads(child.stdout)["median"]

    report = {
        "engine": lanswitch.ENGINE,
        "switch_actions_per_s_median": round(switch_med),
        "pure_engine_switch_actions_per_s_median": round(pure) if pure else None,
        "openspiel_crazy_eights_actions_per_s_median": round(anchor) if anchor else None,
        "ratio": round(switch_med / anchor, 3) if anchor else None,
        "reps": args.reps,
        "games_per_rep": args.games,
        "presets": {
            k: {kk: round(vv, 3) if isinstance(vv, float) else vv for kk, vv in v.items()}
            for k, v in rows.items()
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"engine: {lanswitch.ENGINE}; 4 random bots, {args.games} hands per measurement\n")
    print(f"{'preset':<14} {'actions/s':>10} {'hands/s':>9} {'actions/hand':>13} {'limit':>6}")
    for name, r in rows.items():
        print(
            f"{name:<14} {r['actions_per_s']:>10,.0f} {r['games_per_s']:>9,.0f} "
            f"{r['actions_per_game']:>13.1f} {r['limit_endings']:>6.0f}"
        )
    print()
    print(f"switch, median of {args.reps} interleaved runs: {switch_med:,.0f} player actions/s")
    if anchor is None:
        print("OpenSpiel not installed (pip install -e '.[bench]'): no anchor this run")
    else:
        print(f"OpenSpiel crazy_eights (same run, median):  {anchor:,.0f} player actions/s")
        print(f"ratio: {switch_med / anchor:.2f}x (target >= 1.0x)")
    if pure is not None:
        ratio = f" ({pure / anchor:.2f}x OpenSpiel)" if anchor else ""
        print(f"pure Python engine (LANSWITCH_PURE=1), switch: {pure:,.0f} actions/s{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
