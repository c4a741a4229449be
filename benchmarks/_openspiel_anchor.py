"""OpenSpiel ``crazy_eights`` random playouts: the anchor for the engine benchmark.

Issue #2 sets the rules engine's target at >= 1.0x OpenSpiel's *player actions per second*,
measured in the same run on the same machine. This module measures that reference figure:
it plays full games of OpenSpiel's ``crazy_eights`` (C++, driven through ``pyspiel``) with
uniformly random players from a plain Python loop, and reports player actions, chance actions
(dealing, dealer choice) and wall-clock rates. Chance actions are counted but excluded from
``actions_per_s`` because our engine has no equivalent decision points.

``pyspiel`` is optional (``pip install -e '.[bench]'``); without it the function returns None.
Note that OpenSpiel's default is 5 players, so ``players`` is always passed explicitly.
"""

from __future__ import annotations

import importlib
import json
import random
import time
from types import ModuleType


def _load_pyspiel() -> ModuleType | None:
    # importlib keeps mypy --strict quiet whether or not pyspiel (which ships no stubs) is present.
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        return None


def openspiel_random_playouts(
    games: int,
    players: int = 4,
    seed: int = 0,
    params: dict[str, object] | None = None,
) -> dict[str, float] | None:
    """Play ``games`` random games of ``crazy_eights``; None if pyspiel is unavailable.

    ``params`` adds/overrides OpenSpiel game parameters, e.g. ``{"use_special_cards": True,
    "reshuffle": True}`` (defaults: max_draw_cards=5, max_turns=100, reshuffle=False,
    use_special_cards=False). Every step fetches the legal actions (or chance outcomes) and
    applies exactly one action; game loading is outside the timed region, state creation inside.
    """
    pyspiel = _load_pyspiel()
    if pyspiel is None:
        return None

    game_params: dict[str, object] = {"players": players}
    if params:
        game_params.update(params)
    game = pyspiel.load_game("crazy_eights", game_params)

    rng = random.Random(seed)
    # Action choice: ``int(rng.random() * len(xs))`` everywhere (cheaper than rng.choice, which
    # goes through getrandbits/_randbelow). A fair comparison uses the same idiom in our engine.
    rand = rng.random
    new_state = game.new_initial_state
    chance_id = int(pyspiel.PlayerId.CHANCE)
    player_actions = 0
    chance_actions = 0

    start = time.perf_counter()
    for _ in range(games):
        state = new_state()
        current_player = state.current_player
        legal_actions = state.legal_actions
        chance_outcomes = state.chance_outcomes
        apply_action = state.apply_action
        while True:
            player = current_player()
            if player >= 0:
                legal = legal_actions()
                apply_action(legal[int(rand() * len(legal))])
                player_actions += 1
            elif player == chance_id:
                # Every crazy_eights chance node (dealer choice, deals, draws, reshuffles) has
                # uniform outcome probabilities, so a uniform pick samples chance_outcomes()
                # exactly; an inverse-CDF walk in Python would cost ~15% of OpenSpiel's rate.
                outcomes = chance_outcomes()
                apply_action(outcomes[int(rand() * len(outcomes))][0])
                chance_actions += 1
            else:  # terminal (crazy_eights has no simultaneous nodes)
                break
    elapsed = time.perf_counter() - start

    return {
        "games": float(games),
        "player_actions": float(player_actions),
        "chance_actions": float(chance_actions),
        "elapsed_s": elapsed,
        "actions_per_s": player_actions / elapsed if elapsed > 0 else 0.0,
        "games_per_s": games / elapsed if elapsed > 0 else 0.0,
    }


if __name__ == "__main__":
    print(json.dumps(openspiel_random_playouts(2000), indent=2))
