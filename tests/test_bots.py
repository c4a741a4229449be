"""Bots play only legal moves, and the heuristic is a real strategy (it beats random)."""

from __future__ import annotations

import random

import pytest

from lanswitch.bots import HeuristicBot, RandomBot, make_bot
from lanswitch.game import Game
from lanswitch.rules import PRESETS
from lanswitch.simulate import simulate


@pytest.mark.parametrize("preset", list(PRESETS))
def test_heuristic_only_chooses_legal_moves(preset: str) -> None:
    rules = PRESETS[preset]
    bot = HeuristicBot(rules)
    rng = random.Random(4)
    for hand_no in range(15):
        game = Game(rules, 2 + hand_no % 7, dealer=0, hand_no=hand_no + 1)
        for _ in range(5000):
            if game.over:
                break
            seat = game.to_act()
            if seat < 0:
                req = game.chance_request()
                assert req is not None
                cards = req[1]
                rng.shuffle(cards)
                game.apply_chance(cards)
                continue
            view = game.view(seat)
            move = bot.choose(view, rng)
            assert move in view.legal
            game.apply(seat, move)
        assert game.over


def test_random_bot_is_uniform_over_legal_moves() -> None:
    bot = RandomBot(PRESETS["switch"])
    rng = random.Random(1)
    counts = dict.fromkeys((3, 17, 200), 0)
    for _ in range(3000):
        counts[bot.choose_legal([3, 17, 200], rng)] += 1
    assert all(900 < n < 1100 for n in counts.values())


@pytest.mark.parametrize("preset", ["switch", "blackjack", "black5"])
def test_heuristic_beats_three_random_bots(preset: str) -> None:
    stats = simulate(PRESETS[preset], 4, 300, ["heuristic", "random", "random", "random"], 11)
    share = stats.wins[0] / stats.games
    # A random seat wins about 25%; the heuristic must do clearly better.
    assert share > 0.33, share


def test_make_bot_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match="no bot 'genius'"):
        make_bot("genius", PRESETS["switch"])
