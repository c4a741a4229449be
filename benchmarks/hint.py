"""How quick a hint is: ``lanswitch.hint.hint`` at every turn of seat 0 in seeded 4-seat hands
of every preset, beside its anchor measured in the same run on the same views — the
heuristic bot's own choice (``HeuristicBot.choose``), which a hint makes and then words.

Usage::

    python benchmarks/hint.py [--hands 6]

Issue #28's target: a hint shown within 300 ms of ``h`` (the screen's redraw comes on top:
``tests/test_tui.py`` prints it for the running application).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch.game import Game, View
from lanswitch.heuristic import HeuristicBot
from lanswitch.hint import hint
from lanswitch.rules import PRESETS, RuleSet

NAMES = ("you", "bob", "cat", "dan")


def views(rules: RuleSet, hands: int) -> list[View]:
    """Seat 0's view at each of its turns in ``hands`` seeded hands of heuristic bots."""
    bot = HeuristicBot(rules)
    out: list[View] = []
    for n in range(hands):
        rng = random.Random(n)
        g = Game(rules, 4, dealer=n % 4)
        for _ in range(2000):
            request = g.chance_request()
            if request is not None:
                order = list(request[1])
                rng.shuffle(order)
                g.apply_chance(order)
                continue
            seat = g.to_act()
            if seat < 0:
                break
            view = g.view(seat)
            if seat == 0:
                out.append(view)
            g.apply(seat, bot.choose(view, rng))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--hands", type=int, default=6, help="hands per preset")
    args = ap.parse_args()
    took: list[float] = []
    anchor: list[float] = []
    for rules in PRESETS.values():
        bot = HeuristicBot(rules)
        rng = random.Random(0)
        for view in views(rules, args.hands):
            start = time.perf_counter()
            bot.choose(view, rng)
            anchor.append(time.perf_counter() - start)
            start = time.perf_counter()
            hint(view, rules, NAMES)
            took.append(time.perf_counter() - start)
    took.sort()
    anchor.sort()

    def us(values: list[float], q: float) -> float:
        return values[min(len(values) - 1, int(len(values) * q))] * 1e6

    print(f"{len(took)} turns of seat 0, every preset, {args.hands} hands each")
    print(
        f"hint: median {us(took, 0.5):.1f} µs, p99 {us(took, 0.99):.1f} µs, "
        f"max {took[-1] * 1e6:.0f} µs (target: 300 ms)"
    )
    print(
        f"anchor, the heuristic's choice alone: median {us(anchor, 0.5):.1f} µs, "
        f"p99 {us(anchor, 0.99):.1f} µs; hint / anchor (medians) "
        f"×{statistics.median(took) / statistics.median(anchor):.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
