"""The heuristic bot against three random bots: its win share on every preset.

A random seat wins about a quarter of 4-player hands; a real strategy must do clearly better.
Usage: ``python benchmarks/winshare.py [--games N] [--seed S] [--json]`` (issue #2 asks for
at least 2,000 hands per preset).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch.rules import PRESETS
from lanswitch.simulate import simulate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = {}
    for name, rules in PRESETS.items():
        stats = simulate(
            rules, 4, args.games, ["heuristic", "random", "random", "random"], args.seed
        )
        rows[name] = {
            "games": stats.games,
            "heuristic_win_share": stats.wins[0] / stats.games,
            "random_win_share_per_seat": sum(stats.wins[1:]) / 3 / stats.games,
            "limit_endings": stats.endings.get("limit", 0),
            "elapsed_s": stats.elapsed_s,
        }
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"heuristic (seat 1) vs 3 random bots, {args.games} hands each, seed {args.seed}\n")
    print(f"{'preset':<14} {'heuristic':>9} {'random/seat':>11} {'limit':>6}")
    for name, r in rows.items():
        print(
            f"{name:<14} {r['heuristic_win_share']:>9.1%} "
            f"{r['random_win_share_per_seat']:>11.1%} {r['limit_endings']:>6}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
