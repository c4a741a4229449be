"""The hint (``lanswitch/hint.py``): the heuristic bot's move from the seat's own view, and one
line of why from the same rule rows, on stacked decks; the same move as the bot's at every
turn of whole hands under every preset (its time: benchmarks/hint.py)."""

from __future__ import annotations

import random

import pytest

from lanswitch.game import CALL_LAST, DRAW, SUIT_BASE, Game, Phase
from lanswitch.heuristic import HeuristicBot, knock_ready
from lanswitch.hint import hint
from lanswitch.rules import PRESETS
from tests.stacking import c, play, sized, stacked

SWITCH = PRESETS["switch"]
NAMES = ("ann", "bob")


def said(game: Game, seat: int, names: tuple[str, ...] = NAMES) -> tuple[int, str]:
    h = hint(game.view(seat), game.rules, names)
    assert h is not None
    return h.move, h.line.text()


def test_a_two_faced_with_a_two_in_hand_is_sent_on() -> None:
    g = stacked(sized(SWITCH, 4), 2, ["2C 5H 9D KH", "2S 6H 9C 3H"], "4C", dealer=1)
    play(g, 0, c("2C"))
    assert g.turn == 1
    assert said(g, 1) == (c("2S"), "play 2♠ — it adds 2 to the pick-up and passes it on")


def test_a_pick_up_nothing_answers_is_taken() -> None:
    g = stacked(sized(SWITCH, 4), 2, ["2C 5H 9D KH", "6H 9C 3D 3H"], "4C", dealer=1)
    play(g, 0, c("2C"))
    assert g.turn == 1
    assert said(g, 1) == (DRAW, "pick up 2 (d) — nothing you hold answers it")


def test_nothing_that_plays_is_a_draw_and_says_what_it_must_match() -> None:
    g = stacked(sized(SWITCH, 3), 2, ["5H 9D KS", "6H 9C 3D"], "4C", dealer=1)
    assert said(g, 0) == (DRAW, "draw (d) — nothing you hold plays on 4♣")


def test_the_longest_suit_goes_first() -> None:
    g = stacked(sized(SWITCH, 4), 2, ["5C 9C KC 3H", "6H 9H 3D 4D"], "3C", dealer=1)
    assert said(g, 0) == (
        c("KC"),
        "play K♣ — from your longest suit (3 clubs): more to lay on it later",
    )


def test_a_longest_suit_tied_with_another_is_said_as_one_of_them() -> None:
    """Two clubs beside two hearts: "your longest suit" misled (the newcomer pass)."""
    g = stacked(sized(SWITCH, 4), 2, ["9C KC 5H 6H", "6D 9H 3D 4D"], "3C", dealer=1)
    move, words = said(g, 0)
    assert move in (c("9C"), c("KC"))
    assert "from one of your longest suits (2 clubs)" in words, words


def test_a_pick_up_goes_to_a_next_player_close_to_going_out() -> None:
    g = stacked(sized(SWITCH, 2), 2, ["2C 5C", "9H 3D"], "4C", dealer=1)
    assert said(g, 0) == (c("2C"), "play 2♣ — bob has 2 cards left: the next player picks up 2")


def test_the_suit_named_is_the_one_held_most() -> None:
    g = stacked(sized(SWITCH, 4), 2, ["AC 5H 6H 9D", "6C 9C 3D 4D"], "4S", dealer=1)
    assert said(g, 0)[0] == c("AC")
    play(g, 0, c("AC"))
    assert g.phase == Phase.NAME_SUIT
    assert said(g, 0) == (SUIT_BASE + 2, "name ♥ — you hold most hearts (2)")


def test_last_card_is_called_as_the_turn_ends_on_one_card() -> None:
    g = stacked(sized(SWITCH, 2), 2, ["5C 9C", "6H 9H"], "4C", dealer=1)
    move, _ = said(g, 0)
    play(g, 0, move)
    assert said(g, 0) == (
        CALL_LAST,
        "call last card (l) — your turn ends with one card in hand: miss the call and you "
        "pick up 1",
    )


def test_no_hint_off_turn_nor_for_a_spectator() -> None:
    g = stacked(sized(SWITCH, 3), 2, ["5H 9D KS", "6H 9C 3D"], "4C", dealer=1)
    assert hint(g.view(1), SWITCH, NAMES) is None
    assert hint(g.view(None), SWITCH, NAMES) is None


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_hint_is_the_heuristics_move_with_a_reason(preset: str) -> None:
    """Whole 4-seat hands of heuristic bots: at every turn of seat 0 the hint is the bot's own
    move, with its why — or, at Black Jack, the knock with a hand that could go out in one
    turn (the next test). (How quick: ``benchmarks/hint.py``; speed is never a test's
    assert.)"""
    rules = PRESETS[preset]
    bot = HeuristicBot(rules)
    names = ("you", "bob", "cat", "dan")
    hints = 0
    for n in range(6):
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
            move = bot.choose(view, rng)
            if seat == 0:
                h = hint(view, rules, names)
                hints += 1
                assert h is not None
                knock = len(view.hand) > 1 and knock_ready(view, rules, bot.t)
                assert h.move == (CALL_LAST if knock else move)
                text = h.line.text()
                assert " — " in text, text
                assert not text.endswith(" — "), text
            g.apply(seat, move)
    assert hints > 20


def test_where_only_cards_worth_keeping_play_the_hint_names_the_ones_kept() -> None:
    """The newcomer pass: holding A♣ 7♣ 2♦ J♥ on 5♦ the hint said "play 2♦ — nothing else you
    hold plays", with A♣ bright beside it. Only cards worth keeping play (a wild Ace, a 2
    that answers a pick-up): the hint says which it keeps."""
    g = stacked(sized(SWITCH, 4), 2, ["AC 7C 2D JH", "6H 9C 3S 4S"], "5D", dealer=1)
    move, words = said(g, 0)
    assert move == c("2D"), words
    assert words == "play 2♦ — A♣ plays too, but a wild is best kept for later"


def test_at_black_jack_a_hand_that_could_go_out_in_one_turn_is_told_to_knock() -> None:
    """The heuristic knocks on its last card only: a player who followed its hints at Black
    Jack would never go out with a run. With 5♣ 6♣ left after laying 4♣, the hint is the
    knock, and says why; with 5♣ 9♥ (no order lays both in one turn) it is not."""
    rules = sized(PRESETS["blackjack"], 3)
    run = stacked(rules, 2, ["4C 5C 6C", "9C 4S 8D"], "4D")
    play(run, 0, c("4C"))
    assert said(run, 0) == (
        CALL_LAST,
        "call last card (l) — 5♣ 6♣ could all go down in one turn: call now, and next turn "
        "you may go out with them",
    )
    apart = stacked(rules, 2, ["4C 5C 9H", "9C 4S 8D"], "4D")
    play(apart, 0, c("4C"))
    assert CALL_LAST in apart.legal_moves()
    assert said(apart, 0)[0] != CALL_LAST


def test_a_kept_eight_is_kept_to_answer_a_skip_not_a_pick_up() -> None:
    """The newcomer pass, at Black Jack: holding 8♣ 4♥ 7♠ 8♠ on 8♥ the hint said "play 4♥ —
    of the cards that play, it sheds the highest, keeping 8♣ to answer a pick-up". An 8
    answers a skip there, not a pick-up, and 4♥ is the lowest card that plays: it is laid
    because the others, both 8s, are worth keeping."""
    rules = sized(PRESETS["blackjack"], 4)
    g = stacked(rules, 2, ["8D 8C 4H 7S", "9H 4S 6D 3C"], "4D")
    assert said(g, 0) == (
        c("4H"),
        "play 4♥ — the only card that plays you need not keep, keeping 8♦ to answer a skip",
    )
    # A 2 is still kept to answer a pick-up.
    two = stacked(rules, 2, ["2D 4H 7S 9C", "9H 4S 6D 3C"], "4D")
    assert said(two, 0) == (
        c("4H"),
        "play 4♥ — the only card that plays you need not keep, keeping 2♦ to answer a pick-up",
    )
