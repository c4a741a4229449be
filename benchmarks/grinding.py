"""Does voiding one deal a match pay? A simulation of the host's own seat grinding deals.

``lanswitch play``'s own player sits in the host's process, which holds every other seed of a
commit-reveal round before that seat must reveal: it can work out the whole deal, play it out
in its head, and — if it does not like it — send a seed that does not open its commitment. The
hand is void, proven against that seat. One such void a match stays under the warning (2).

This plays the same matches (same seeds) three ways, the grinder at seat 0 with heuristic bots
everywhere (``lanswitch.simulate.play_hand``):

* ``honest``  — nobody voids (the anchor, measured in the same run);
* ``free``    — the grinder voids at most one deal a match, whenever one play-out of the deal
  it sees (with its own guess at the others' choices) says it will not win, and a void at the
  deal costs nothing: a redeal (the rule before issue 25);
* ``forfeit`` — the same, under today's rule (``Game.void``): the seat that withholds forfeits
  the hand — placed last, charged at least the worst hand a deal could give, and the match
  counts it as a hand played.

It prints the grinder's share of hands won in the hand slot it voided in (the void and what
came after it in that slot), and its share of matches won, each with a Wilson 95% interval.
(Before ``Match`` broke ties by the latest hand, a tie went to the lowest seat number, and
an honest seat 1 won 0.438 of these matches; now about a third.)

    .venv/bin/python benchmarks/grinding.py                   # 3,000 5-hand matches of switch
    .venv/bin/python benchmarks/grinding.py --matches 500 --rules two-four-jack --json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from dataclasses import dataclass

from lanswitch.bots import HeuristicBot
from lanswitch.game import Game, Match
from lanswitch.rules import PRESETS, RuleSet
from lanswitch.simulate import play_hand, shuffled

GRINDER = 0


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float, float]:
    if n == 0:
        return (0.0, 0.0, 0.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (p, max(0.0, c - h), min(1.0, c + h))


@dataclass
class Tally:
    matches: int = 0
    match_wins: int = 0
    slots: int = 0  # hand slots in which the grinder voided a deal (or would have, honest)
    slot_wins: int = 0
    hands: int = 0
    hand_wins: int = 0
    voids: int = 0


def _predicts_a_loss(game: Game, order: list[int], bots: list[HeuristicBot], seed: int) -> bool:
    """One play-out of the deal ``order`` from ``game`` (a copy): does the grinder not win?"""
    copy = game.clone()
    copy.apply_chance(order)
    result = play_hand(copy, bots, random.Random(seed))
    return result.placings[0] != GRINDER if result.placings else True


def play_match(rules: RuleSet, players: int, hands: int, seed: int, policy: str, t: Tally) -> None:
    """One match under ``policy`` (``honest``, ``free``, ``forfeit``); the same ``seed``
    deals the same cards and drives the same choices in each, up to the first void."""
    rng = random.Random(seed)
    bots = [HeuristicBot(rules) for _ in range(players)]
    match = Match(rules, players, max_hands=hands)
    may_void = True
    in_slot = False  # the hand now dealt is the one after the grinder's void
    for _ in range(hands * 4 + 10):
        if match.over:
            break
        game = match.new_hand()
        req = game.chance_request()
        assert req is not None
        order = shuffled(rng, req[1])
        lose = _predicts_a_loss(game, order, bots, rng.randrange(1 << 30))
        if may_void and lose:
            may_void = False
            t.slots += 1
            if policy != "honest":
                t.voids += 1
                game.void([GRINDER] if policy == "forfeit" else [])
                match.record(game)
                if game.result is not None and game.result.reason == "forfeit":
                    t.hands += 1  # a hand lost, in its slot
                    continue
                in_slot = True  # free: the slot is dealt again
                continue
            in_slot = True
        game.apply_chance(order)
        result = play_hand(game, bots, rng)
        match.record(game)
        won = bool(result.placings) and result.placings[0] == GRINDER
        t.hands += 1
        t.hand_wins += won
        if in_slot:
            t.slot_wins += won
            in_slot = False
    t.matches += 1
    t.match_wins += match.winner == GRINDER


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=3000)
    ap.add_argument("--hands", type=int, default=5, help="hands a match (default 5)")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--rules", default="switch")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rules = PRESETS[args.rules]
    out: dict[str, dict[str, object]] = {}
    began = time.perf_counter()
    for policy in ("honest", "free", "forfeit"):
        t = Tally()
        for m in range(args.matches):
            play_match(rules, args.players, args.hands, args.seed * 1_000_003 + m, policy, t)
        slot = wilson(t.slot_wins, t.slots)
        match = wilson(t.match_wins, t.matches)
        out[policy] = {
            "matches": t.matches,
            "voids": t.voids,
            "slot_win": slot,
            "match_win": match,
            "hand_win": wilson(t.hand_wins, t.hands),
        }
    took = time.perf_counter() - began
    if args.json:
        print(json.dumps({"rules": args.rules, "seconds": took, **out}, indent=2))
        return 0
    print(
        f"{args.matches} matches of {args.hands} hands, {args.rules}, {args.players} players, "
        f"the grinder at seat {GRINDER + 1}, heuristic bots ({took:.0f} s)"
    )
    honest = out["honest"]
    for policy, row in out.items():
        sw, mw, hs, hm = row["slot_win"], row["match_win"], honest["slot_win"], honest["match_win"]
        assert isinstance(sw, tuple)
        assert isinstance(mw, tuple)
        assert isinstance(hs, tuple)
        assert isinstance(hm, tuple)
        print(
            f"  {policy:8} the voided hand's slot won {sw[0]:.3f} [{sw[1]:.3f}, {sw[2]:.3f}] "
            f"({sw[0] / max(hs[0], 1e-9):.2f}x honest)  ·  match won {mw[0]:.3f} "
            f"[{mw[1]:.3f}, {mw[2]:.3f}] ({mw[0] / max(hm[0], 1e-9):.2f}x honest)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
