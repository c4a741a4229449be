"""A bot's win share on paired hands: the same deals played with it in a seat, and with the
baseline bot in that seat, against the same opponents.

Each deal is played twice from one seed: once with ``--bot`` in the rotating seat, once with
the opponents' own kind (``--against``) there — the anchor, measured in the same run on the
same deals, which wins one hand in the table's size by symmetry. Printed per rule set: both
win shares with Wilson 95% intervals, the paired difference, and the bot's time per decision
(median and 99th percentile over every decision, and over those with a choice to make), each
worker process on one core.

Usage::

    python benchmarks/winshare.py [--rules switch,irish,blackjack] [--hands 2000]
        [--bot hard] [--against heuristic] [--players 4] [--jobs 2] [--seed 1] [--json]
        [--set iterations=800 --set margin=0.02 …]

``--set NAME=VALUE`` changes one of the bot's settings (for ``hard``: ``iterations``,
``move_budget``, ``margin``, ``rollout_moves``, ``count_weight``, ``explore``) for trying a
tuning on the same deals.

Issue #28's bar: ``hard`` against three ``heuristic`` ≥ 30% over ≥ 2,000 paired hands (the
interval's lower end above 26%), against three ``random`` ≥ 55%; a decision's median ≤ 250 ms
and p99 ≤ 1 s.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch.bots import Bot, make_bot
from lanswitch.game import Game, Rng, View
from lanswitch.rules import PRESETS
from lanswitch.simulate import play_hand, wilson


class Timed:
    """``bot``, its decisions timed (and whether each had a choice to make)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name, self.needs_view, self.searches = bot.name, True, bot.searches
        self.times: list[tuple[float, bool]] = []

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        choice = len(game.legal_moves()) > 1
        start = time.perf_counter()
        move = self.bot.act(game, seat, rng)
        self.times.append((time.perf_counter() - start, choice))
        return move

    def choose(self, view: View, rng: Rng) -> int:
        return self.bot.choose(view, rng)

    def choose_legal(self, legal: list[int], rng: Rng) -> int:
        return self.bot.choose_legal(legal, rng)


Job = tuple[str, str, str, int, int, int, int, dict[str, float]]


def play_pairs(job: Job) -> dict[str, Any]:
    """Deals ``first`` to ``last`` (exclusive) of rule set ``name``: each played with the bot,
    then with the baseline, in the deal's seat."""
    name, bot_name, against, players, seed, first, last, settings = job
    rules = PRESETS[name]
    bot = make_bot(bot_name, rules)
    for key, value in settings.items():
        if not isinstance(getattr(bot, key, None), (int, float)):
            raise SystemExit(f"--set: {bot_name} has no setting {key!r}")
        setattr(bot, key, type(getattr(bot, key))(value))
    timed = Timed(bot)
    won = base = 0
    for deal in range(first, last):
        seat = deal % players
        dealer = (deal // players) % players
        for candidate in (True, False):
            bots: list[Bot] = [make_bot(against, rules) for _ in range(players)]
            if candidate:
                bots[seat] = timed
            game = Game(rules, players, dealer=dealer, hand_no=deal + 1)
            result = play_hand(game, bots, random.Random(seed * 1_000_003 + deal))
            first_out = bool(result.placings) and result.placings[0] == seat
            if candidate:
                won += first_out
            else:
                base += first_out
    return {"hands": last - first, "won": won, "base": base, "times": timed.times}


def ms(seconds: float) -> str:
    """A time per decision, in milliseconds to the precision it needs."""
    m = seconds * 1000
    return f"{m:.0f} ms" if m >= 10 else f"{m:.2g} ms"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def measure(
    name: str,
    bot: str,
    against: str,
    players: int,
    hands: int,
    jobs: int,
    seed: int,
    settings: dict[str, float] | None = None,
) -> dict[str, Any]:
    chunk = max(1, hands // (jobs * 8))
    work: list[Job] = [
        (name, bot, against, players, seed, a, min(hands, a + chunk), settings or {})
        for a in range(0, hands, chunk)
    ]
    start = time.perf_counter()
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            parts = pool.map(play_pairs, work)
    else:
        parts = [play_pairs(w) for w in work]
    won = sum(p["won"] for p in parts)
    base = sum(p["base"] for p in parts)
    times = [t for p in parts for t in p["times"]]
    every = [t for t, _ in times]
    chosen = [t for t, choice in times if choice]
    lo, hi = wilson(won, hands)
    blo, bhi = wilson(base, hands)
    return {
        "rules": name,
        "bot": bot,
        "settings": settings or {},
        "against": against,
        "players": players,
        "hands": hands,
        "win_share": won / hands,
        "wilson95": [lo, hi],
        "baseline_win_share": base / hands,
        "baseline_wilson95": [blo, bhi],
        "difference": (won - base) / hands,
        "decisions": len(every),
        "median_s": percentile(every, 0.5),
        "p99_s": percentile(every, 0.99),
        "with_a_choice": len(chosen),
        "choice_median_s": percentile(chosen, 0.5),
        "choice_p99_s": percentile(chosen, 0.99),
        "elapsed_s": time.perf_counter() - start,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rules", default="switch,irish,blackjack")
    ap.add_argument("--hands", type=int, default=2000, help="paired deals per rule set")
    ap.add_argument("--bot", default="hard")
    ap.add_argument("--against", default="heuristic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (one core each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = ap.parse_args()
    settings: dict[str, float] = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--set {item}: give NAME=VALUE")
        settings[key] = float(value)
    rows = [
        measure(n, args.bot, args.against, args.players, args.hands, args.jobs, args.seed, settings)
        for n in args.rules.split(",")
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{args.bot} in one seat against {args.players - 1} {args.against}, paired with "
        f"{args.against} in that seat on the same deals; seed {args.seed}"
        + "".join(f"; {k}={v:g}" for k, v in settings.items())
        + "\n"
    )
    for r in rows:
        lo, hi = r["wilson95"]
        blo, bhi = r["baseline_wilson95"]
        ratio = r["win_share"] / max(r["baseline_win_share"], 1e-9)
        print(
            f"{r['rules']:<14} {r['hands']} hands: {r['bot']} {r['win_share']:.1%} "
            f"[{lo:.1%}, {hi:.1%}]  {r['against']} {r['baseline_win_share']:.1%} "
            f"[{blo:.1%}, {bhi:.1%}]  ratio ×{ratio:.2f}"
        )
        print(
            f"{'':<14} time per decision: median {ms(r['median_s'])}, p99 {ms(r['p99_s'])} "
            f"({r['decisions']} decisions); with a choice ({r['with_a_choice']}): median "
            f"{ms(r['choice_median_s'])}, p99 {ms(r['choice_p99_s'])}; {r['elapsed_s']:.0f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
