"""The figures the engine counts for the rule lab (turns, cards drawn) are right."""

from __future__ import annotations

import random

import pytest

from lanswitch.game import Event, Game
from lanswitch.rules import PRESETS


@pytest.mark.parametrize("preset", list(PRESETS))
def test_turns_and_draws_match_the_events(preset: str) -> None:
    rules = PRESETS[preset]
    for seed in range(12):
        players = 2 + seed % 7
        game = Game(rules, players, dealer=seed % players)
        rng = random.Random(seed)
        events: list[Event] = []
        for _ in range(rules.play.safety_limit * 2 + 100):
            if game.over:
                break
            legal = game.legal_moves()
            if legal:
                events += game.apply(game.turn, legal[int(rng.random() * len(legal))])
            else:
                req = game.chance_request()
                assert req is not None
                order = req[1]
                rng.shuffle(order)
                events += game.apply_chance(order)
        assert game.result is not None
        # Every ended turn hands the turn on (a "turn" event), except one that ends the hand.
        ended_at_turn_end = game.result.reason in ("finished", "one_left", "blocked")
        turn_events = sum(1 for e in events if e[0] == "turn") - 1  # the first is the deal's
        assert game.turns == turn_events + ended_at_turn_end, (preset, seed)
        assert game.draws == sum(1 for e in events if e[0] == "draw")
