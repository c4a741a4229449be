"""Golden playthroughs: recorded hands the engine must reproduce event for event.

Like OpenSpiel's playthrough files: each preset has hands played by bots with a fixed seed;
the file keeps the hand's log (chance orders and moves), a SHA-256 of every event the engine
produced, and the result. ``tests/test_game.py`` replays each log and compares. A change to
the engine that alters any event fails the test; if the change is meant, regenerate with
``python tests/golden/gen.py`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from lanswitch.bots import HeuristicBot, RandomBot
from lanswitch.game import Event, Game
from lanswitch.rules import PRESETS
from lanswitch.simulate import play_hand

HERE = Path(__file__).resolve().parent
CASES = [(2, 0, "heuristic"), (4, 1, "random"), (6, 3, "heuristic")]


def events_digest(events: list[Event]) -> str:
    h = hashlib.sha256()
    for kind, seat, value in events:
        h.update(f"{kind},{seat},{value};".encode())
    return h.hexdigest()


def record(preset: str, players: int, dealer: int, bot: str, seed: int) -> dict[str, Any]:
    rules = PRESETS[preset]
    cls = HeuristicBot if bot == "heuristic" else RandomBot
    game = Game(rules, players, dealer=dealer, hand_no=seed)
    events: list[Event] = []

    def on_move(g: Game, seat: int, move: int, ev: list[Event]) -> None:
        events.extend(ev)

    play_hand(game, [cls(rules) for _ in range(players)], random.Random(seed), on_move)
    result = game.result
    assert result is not None
    return {
        "preset": preset,
        "players": players,
        "dealer": dealer,
        "hand_no": seed,
        "bots": bot,
        "log": [[seat, list(e) if isinstance(e, tuple) else e] for seat, e in game.log],
        "events_sha256": events_digest(events),
        "events": len(events),
        "result": {
            "reason": result.reason,
            "placings": list(result.placings),
            "scores": list(result.scores),
            "actions": result.actions,
        },
    }


def main() -> None:
    for preset in PRESETS:
        hands = [
            record(preset, players, dealer, bot, seed=100 + i)
            for i, (players, dealer, bot) in enumerate(CASES)
        ]
        path = HERE / f"{preset}.json"
        path.write_text(json.dumps(hands, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{path.name}: {len(hands)} hands, {sum(h['events'] for h in hands)} events")


if __name__ == "__main__":
    main()
