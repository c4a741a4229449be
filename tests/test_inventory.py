"""One test per rule of ``RULES-INVENTORY.md``, each on a stacked deck.

Every test is named after the rule it checks and cites, in its docstring, the seed text
(``000`` English wiki Switch, ``001`` Irish switch, ``002`` How To Play Switch, ``003`` Spanish
wiki Interruptor) and the sentence it implements. Decks are stacked with
:func:`tests.stacking.stacked`: seat 0 is dealt first and (except in J28) plays first.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from typing import Any

import pytest

from lanswitch.cards import CLUBS, DIAMONDS, HEARTS, JOKER_BASE
from lanswitch.game import (
    CALL_LAST,
    CALL_TWO,
    DRAW,
    MIMIC_BASE,
    PASS,
    SUIT_BASE,
    Game,
    IllegalMove,
    Phase,
    Reason,
)
from lanswitch.rules import PRESETS, Power, RulesError, RuleSet, dump_toml, rules_from_mapping
from tests.stacking import c, cs, hand_of, kinds, legal, play, reshuffle, sized, stacked

SWITCH = PRESETS["switch"]
IRISH = PRESETS["irish"]
TFJ = PRESETS["two-four-jack"]
BLACKJACK = PRESETS["blackjack"]
J28 = PRESETS["j28"]
TAKE_TWO = PRESETS["take-two"]
BLACK5 = PRESETS["black5"]
PEANUCKLE = PRESETS["peanuckle"]
TURBO = PRESETS["turbo"]


def suit(s: int) -> int:
    return SUIT_BASE + s


def house(rules: RuleSet) -> RuleSet:
    """``rules`` as a house-rules file would give it: printed, loaded and validated."""
    loaded = rules_from_mapping(tomllib.loads(dump_toml(rules)), "house rules")
    assert loaded == rules
    return loaded


def with_row(rules: RuleSet, name: str, **changes: Any) -> RuleSet:
    """``rules`` with one power row changed (a house rule the schema already has)."""
    rows = tuple(replace(r, **changes) if r.name == name else r for r in rules.power)
    assert rows != rules.power, name
    return house(replace(rules, power=rows))


def with_play(rules: RuleSet, **changes: Any) -> RuleSet:
    return house(replace(rules, play=replace(rules.play, **changes)))


def with_calls(rules: RuleSet, **changes: Any) -> RuleSet:
    return house(replace(rules, calls=replace(rules.calls, **changes)))


def rejected(game: Game, seat: int, move: int) -> Reason:
    """The reason ``move`` is rejected; the state must be untouched by the attempt."""
    before = (
        [game.hand(s) for s in range(game.players)],
        list(game.stock),
        list(game.discard),
        game.turn,
        game.phase,
        len(game.log),
        game.view(seat),
    )
    with pytest.raises(IllegalMove) as err:
        game.apply(seat, move)
    after = (
        [game.hand(s) for s in range(game.players)],
        list(game.stock),
        list(game.discard),
        game.turn,
        game.phase,
        len(game.log),
        game.view(seat),
    )
    assert after == before
    return err.value.reason


# =============================================================================================
# Core (all presets)


def test_deck_is_one_french_deck_or_two_shuffled_together_for_many_players() -> None:
    """000: 'Switch is played with a regular, single deck of playing cards, or with two
    standard decks (shuffled into one) if there is a large number of players'; 002: 'if more
    than 5 players are playing, two standard 52 card decks should be used'"""
    for name in ("switch", "irish", "two-four-jack", "blackjack", "j28", "take-two"):
        rules = PRESETS[name]
        assert [rules.decks_for(n) for n in range(2, 9)] == [1, 1, 1, 1, 2, 2, 2], name
        assert len(Game(rules, 5).deck) == 52
        six = Game(rules, 6).deck
        assert len(six) == 104
        assert len({x % 52 for x in six}) == 52


def test_jokers_are_optional() -> None:
    """001: 'A Joker card can be used in play, but is not necessary for the game'; 003 (Toma
    dos): 'Se juega con una baraja de 52 cartas (sin comodines) o una baraja de 54 cartas (con
    comodines)'"""
    assert len(Game(TAKE_TWO, 3).deck) == 52
    two_jokers = rules_from_mapping({"base": "take-two", "deal": {"jokers": 2}})
    deck = Game(two_jokers, 3).deck
    assert len(deck) == 54
    assert deck[-2:] == [JOKER_BASE, JOKER_BASE + 1]


def test_deal_one_card_at_a_time_clockwise_from_the_dealers_left() -> None:
    """002: 'he shuffles the entire deck and deals one card at a time to each player,
    clockwise around the table, starting with the player at his immediate left'"""
    game = Game(SWITCH, 3, dealer=1)
    events = game.apply_chance(list(range(52)))
    assert [s for k, s, _ in events if k == "deal"] == [2, 0, 1] * 7
    assert game.hand(2) == list(range(0, 21, 3))
    assert game.hand(0) == list(range(1, 21, 3))
    assert game.hand(1) == list(range(2, 21, 3))
    assert game.discard == [21]
    assert len(game.stock) == 30
    assert game.stock[-1] == 22


def test_starter_that_is_a_trick_card_is_followed_by_more_until_one_is_not() -> None:
    """000: 'if the "starting card" is a trick card, cards shall continue to be selected from
    the pool until a non-trick card is revealed'; 002: 'the dealer will continue to flip over
    the next card until it is not one of these special cards'"""
    game = stacked(sized(SWITCH, 5), 2, ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D"], "8C 2D AS JH 5H")
    assert kinds(game.events, "starter") == [
        ("starter", -1, "8C"),
        ("starter", -1, "2D"),
        ("starter", -1, "AS"),
        ("starter", -1, "JH"),
        ("starter", -1, "5H"),
    ]
    assert game.view(0).top == c("5H")
    assert game.view(0).discard == 5
    assert game.view(0).pending_kind == ""
    assert game.turn == 0
    # Irish: K♥ and the Aces are trick cards too; 002: the 2s, 4s, Jacks and Aces.
    irish = stacked(sized(IRISH, 5), 2, ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D"], "KH 7S AC 3H")
    assert irish.top == c("3H")
    assert irish.discard == cs("KH 7S AC 3H")
    tfj = stacked(sized(TFJ, 5), 2, ["3C 5C 6C 7C 9C", "3D 5D 6D 7D 9D"], "4C JD 2H 9S")
    assert tfj.top == c("9S")
    assert len(tfj.discard) == 4


@pytest.mark.parametrize("name", ["blackjack", "take-two", "j28", "black5"])
def test_black_jack_take_two_and_j28_just_turn_one_card(name: str) -> None:
    """000 (Black Jack): 'then places a single card face-up on the table'; 000 (J28): 'After
    seven cards are dealt the next card is placed face up'; 003 (Toma dos): 'coloca una sola
    carta boca arriba'"""
    rules = sized(PRESETS[name], 5)
    assert rules.deal.starter == "any"
    game = stacked(rules, 2, ["3C 4C 6C 9C 10C", "3D 4D 6D 9D 10D"], "2S")
    assert game.discard == [c("2S")]
    assert game.top == c("2S")
    view = game.view(game.turn)
    assert view.pending_kind == ""
    assert view.pending_amount == 0
    assert "draw" in legal(game)


def test_an_ace_turned_as_starter_lets_any_card_be_played() -> None:
    """000 (Black 5): 'If an ace is turned over by the deck it is free reign and any card can
    be played'"""
    game = stacked(BLACK5, 2, ["3C 4D 6H 9S KC", "3D 4S 6C 9D KD"], "AS")
    assert game.view(0).free
    assert legal(game) == ["3C", "KC", "4D", "6H", "9S"]


def test_play_starts_left_of_the_dealer_and_goes_clockwise() -> None:
    """002: 'Play of the hand begins with the player to the immediate left of the dealer and
    each player follows in a clockwise direction around the table'"""
    hands = ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D", "3H 4H 6H 9H KH", "3S 4S 6S 9S KS"]
    game = stacked(sized(SWITCH, 5), 4, hands, "5S", dealer=2)
    assert game.turn == 3
    play(game, 3, c("3S"))
    assert game.turn == 0
    play(game, 0, c("3C"))
    assert game.turn == 1
    play(game, 1, c("3D"))
    assert game.turn == 2


def test_j28_first_card_is_laid_by_the_player_right_of_the_dealer() -> None:
    """000 (J28): 'The next non-dealing player to the right of the dealer lays the first
    card.' Play then goes on to the right, so the dealer plays last, as in the other games."""
    hands = ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D", "3H 4H 6H 9H KH", "3S 4S 6S 9S KS"]
    game = stacked(sized(J28, 5), 4, hands, "5S", dealer=2)
    assert J28.deal.first_player == "right"
    assert game.turn == 1
    play(game, 1, c("5D"), PASS)
    assert game.turn == 0
    assert game.view(0).direction == -1
    play(game, 0, c("5C"), PASS)
    assert game.turn == 3
    play(game, 3, DRAW)
    assert legal(game) == ["AC", "pass"]  # J28 draws one, then may play it
    play(game, 3, PASS)
    assert game.turn == 2  # the dealer plays last


def test_a_card_must_match_the_top_cards_suit_or_rank() -> None:
    """000: 'if the previous card was a seven of clubs, the next player may put down any seven
    card, or any club card'; 002: 'Aces, Kings and Queens are each considered a separate rank,
    thus a Queen could be played on another Queen or another card of its same suit, but it
    could not be played on a King of a different suit'"""
    game = stacked(sized(SWITCH, 6), 2, ["3H 5C 9D KS 6H QC", "3D 4D 5D 6D 9C 4S"], "5H")
    assert legal(game) == ["5C", "3H", "6H"]
    assert rejected(game, 0, c("9D")) is Reason.DOES_NOT_MATCH
    play(game, 0, c("5C"))
    assert legal(game) == ["9C", "5D"]
    king = stacked(sized(TFJ, 3), 2, ["QC QH 3S", "3D 5D 6D"], "KD")
    assert legal(king) == ["draw"]


def test_a_named_suit_after_a_wild_replaces_the_top_cards_suit() -> None:
    """000: 'When playing an Ace, the player can decide freely the suit that has to be played
    next; from then on, play continues as normal, but on the suit selected by the player of the
    Ace'"""
    game = stacked(sized(SWITCH, 5), 2, ["AS 3C 4C 9H 6C", "5C 6D 9D KH 3S"], "9C")
    play(game, 0, c("AS"), suit(DIAMONDS))
    view = game.view(1)
    assert view.named_suit == DIAMONDS
    assert view.top == c("AS")
    assert legal(game) == ["6D", "9D"]
    play(game, 1, c("6D"))
    assert game.view(0).named_suit == -1
    assert legal(game) == ["6C"]


# -- drawing ----------------------------------------------------------------------------------


def test_draw_one_card_and_the_turn_ends() -> None:
    """000: 'Should the player not have any card available to play, he must pick up one card';
    002 (Limited Draw): 'a player need only draw one card if he cannot play to the current
    up-card. If he still cannot play, he must then skip his turn'"""
    game = stacked(sized(BLACKJACK, 5), 2, ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D"], "10S", "10H 3H")
    assert BLACKJACK.play.draw == "one"
    assert legal(game) == ["draw", "call last"]  # Black Jack: 'cards' may be called any time
    events = play(game, 0, DRAW)
    assert kinds(events, "draw", "turn") == [("draw", 0, "10H"), ("turn", 1, "-1")]
    assert "10H" in hand_of(game, 0)
    assert game.turn == 1


def test_j28_draw_one_then_play_it_if_you_can() -> None:
    """000 (J28): 'If the player is unable to lay any card then the player must pick up a card
    from the stock pile. If the player is then able to play then they can lay a card down on
    this go.'"""
    hands = ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D"]
    game = stacked(sized(J28, 5), 2, hands, "10S", "10H 3H")
    assert game.turn == 0
    assert legal(game) == ["draw"]
    play(game, 0, DRAW)
    assert game.phase == Phase.AFTER_DRAW
    assert game.turn == 0
    assert legal(game) == ["10H", "pass"]
    play(game, 0, c("10H"))  # nothing can follow it: the turn ends
    assert game.turn == 1
    assert game.top == c("10H")
    stuck = stacked(sized(J28, 5), 2, hands, "10S", "3H 10H")
    play(stuck, 0, DRAW)
    assert stuck.turn == 1
    assert "3H" in hand_of(stuck, 0)


def test_draw_until_you_can_play() -> None:
    """000: 'If a player is not able to place a card, he draws cards from the stack until he is
    able to play a card'; 001 and 002 say the same"""
    game = stacked(sized(SWITCH, 5), 2, ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D"], "QD", "3H 4S QS")
    play(game, 0, DRAW)
    assert game.turn == 0
    assert legal(game) == ["draw"]
    play(game, 0, DRAW)
    assert game.turn == 0
    assert legal(game) == ["draw"]
    play(game, 0, DRAW)
    assert legal(game) == ["QS"]
    play(game, 0, c("QS"))
    assert game.turn == 1
    assert game.counts[0] == 7


def test_take_two_draws_two_when_stuck() -> None:
    """003 (Toma dos): 'Si el jugador no puede jugar ninguna carta, debe tomar dos cartas del
    mazo'"""
    game = stacked(TAKE_TWO, 2, ["3C 4C 5C 6C 9C", "3D 4D 5D 6D 9D"], "10S", "10H 3H 4H")
    play(game, 0, DRAW)
    assert "10H" in hand_of(game, 0)
    assert "3H" in hand_of(game, 0)
    assert game.counts[0] == 7
    assert game.turn == 1


def test_a_player_may_choose_to_draw_instead_of_playing() -> None:
    """002: 'If a player cannot (or chooses not to) play one of his cards, he must draw cards,
    one at a time, from the stock pile until they receive a card they can or want to play';
    003: 'Un jugador puede optar por retener una carta'"""
    game = stacked(sized(TFJ, 5), 2, ["3D 5C 6C 9C KC", "3H 5H 6H 9H KH"], "QD", "7S 8S")
    assert legal(game) == ["3D", "draw"]
    play(game, 0, DRAW)
    assert game.turn == 0
    assert legal(game) == ["3D", "draw"]
    play(game, 0, c("3D"))
    assert game.turn == 1
    assert "7S" in hand_of(game, 0)


def test_forced_play_a_player_who_can_play_may_not_draw() -> None:
    """002 (Forced Play): 'if a player has a card in their hand that they can play, they cannot
    draw and instead must play a valid card on their turn, if able'"""
    game = stacked(sized(SWITCH, 5), 2, ["3D 5C 6C 9C KC", "3H 5H 6H 9H KH"], "QD")
    assert legal(game) == ["3D"]
    assert rejected(game, 0, DRAW) is Reason.MUST_PLAY


def test_forced_play_need_not_play_a_wild_ace() -> None:
    """002 (Forced Play): 'A player is NOT required to play a wild card (such as an Ace). Even
    if a wild card is the only card a player would be able to play, he need not play it and may
    draw from the stock instead'"""
    rules = with_play(TFJ, may_draw_instead=False, wild_exempt_from_forced_play=True)
    only_ace = stacked(sized(rules, 5), 2, ["AS 5C 6C 9C KC", "3H 5H 6H 9H KH"], "QD")
    assert legal(only_ace) == ["AS", "draw"]
    play(only_ace, 0, DRAW)
    assert only_ace.turn == 0
    assert only_ace.counts[0] == 6
    with_match = stacked(sized(rules, 5), 2, ["AS 3D 6C 9C KC", "3H 5H 6H 9H KH"], "QD")
    assert legal(with_match) == ["3D", "AS"]
    # With nothing left to draw, not playing the Ace is a pass: 3 × 17 cards + the starter.
    diamonds_and_hearts = "AS 2D 4D 5D 6D 7D 8D 9D 10D JD QD KD 2H 4H 5H 6H 7H"
    dry = stacked(sized(rules, 17), 3, [diamonds_and_hearts, "...", "..."], "3C")
    assert dry.view(0).stock == 0
    assert legal(dry) == ["AS", "pass"]
    forced = stacked(sized(SWITCH, 17), 3, [diamonds_and_hearts, "...", "..."], "3C")
    assert legal(forced) == ["AS"]


# -- the stock ----------------------------------------------------------------------------------


def test_an_empty_stock_is_rebuilt_from_the_discard_pile_except_its_top_card() -> None:
    """000: 'If the drawing stack is run down and becomes empty, the playing stack or discard
    pile (except for the topmost card) is shuffled, and placed face down to become the new
    "pool."'"""
    game = stacked(sized(TFJ, 25), 2, ["6H ...", "..."], "5H", "9S")
    play(game, 0, c("6H"))
    events = play(game, 1, DRAW)
    assert kinds(events, "draw") == [("draw", 1, "9S")]
    assert game.phase == Phase.RESHUFFLE
    assert game.to_act() == -1
    assert game.chance_request() == ("reshuffle", [c("5H")])
    with pytest.raises(IllegalMove) as err:
        game.apply(1, DRAW)
    assert err.value.reason is Reason.WAITING_FOR_DEAL
    events = reshuffle(game)
    assert ("reshuffle", -1, 1) in events
    view = game.view(1)
    assert view.stock == 1
    assert view.discard == 1
    assert view.top == c("6H")
    assert game.to_act() == 1
    assert view.phase == Phase.PLAY
    play(game, 1, DRAW)
    assert "5H" in hand_of(game, 1)
    assert game.cards_conserved()


def test_cards_still_owed_when_the_stock_runs_out_are_drawn_after_the_reshuffle() -> None:
    """000: the stock is rebuilt when it 'is run down and becomes empty' — a pick-up larger than
    the stock is finished from the new stock (RULES-INVENTORY: 'reshuffle when the stock
    empties and its debt mechanism')"""
    game = stacked(sized(TFJ, 25), 2, ["2H ...", "..."], "5H", "9S")
    play(game, 0, c("2H"))
    assert game.turn == 1
    assert game.view(1).pending_amount == 2
    events = play(game, 1, DRAW)
    assert kinds(events, "take", "draw") == [("take", 1, "2"), ("draw", 1, "9S")]
    assert game.debt[1] == 1
    assert game.phase == Phase.RESHUFFLE
    events = reshuffle(game)
    assert kinds(events, "reshuffle", "draw") == [("reshuffle", -1, "1"), ("draw", 1, "5H")]
    assert game.counts[1] == 27
    assert game.debt[1] == 0
    assert game.turn == 0
    assert game.view(0).phase == Phase.PLAY
    assert game.cards_conserved()


def test_no_reshuffle_who_cannot_play_passes_and_a_round_of_passes_ends_the_hand() -> None:
    """002 (No Reshuffle): 'when the stock pile is depleted, if a player cannot, or chooses not
    to, play a card, he skips his turn ... When, during a round, every active player skips his
    turn in this way, the hand ends and the scores are totalled for the hand.'"""
    rules = sized(with_play(TFJ, reshuffle=False), 25)
    game = stacked(rules, 2, ["6H ...", "..."], "5H", "9S")
    play(game, 0, c("6H"))
    play(game, 1, DRAW)
    assert game.phase == Phase.PLAY
    assert game.view(1).stock == 0
    assert "pass" in legal(game)
    play(game, 1, PASS)  # after drawing: not an idle pass
    play(game, 0, PASS)
    assert not game.over
    play(game, 1, PASS)
    assert game.result is not None
    assert game.result.reason == "blocked"
    assert game.result.placings == (0, 1)  # 24 cards against 26
    assert game.result.scores[0] == game.result.hand_points[1] > 0


# -- the end of the hand ------------------------------------------------------------------------


def test_the_first_player_with_no_cards_wins() -> None:
    """000: 'the first player to play his final card, and ergo have no cards left, wins the
    game'"""
    game = stacked(sized(SWITCH, 2), 2, ["5H 6H", "9H 9D"], "4H")
    play(game, 0, CALL_LAST, c("5H"))
    play(game, 1, CALL_LAST, c("9H"))
    events = play(game, 0, c("6H"))
    assert ("finish", 0, 1) in events
    assert game.over
    assert game.result is not None
    assert game.result.reason == "finished"
    assert game.result.placings == (0, 1)
    assert game.legal_moves() == []
    assert rejected(game, 1, c("9D")) is Reason.HAND_OVER


def test_play_may_go_on_until_one_player_is_left_giving_placings() -> None:
    """003 (Toma dos): 'Una vez que un jugador se queda sin cartas que ha ganado, el juego
    continúa hasta que solo queda 1 persona'; 000: 'The game can continue until all the players
    get rid of their cards'"""
    game = stacked(sized(TAKE_TWO, 2), 3, ["5H 9D", "5C 9C", "5D 6D"], "5S")
    play(game, 0, CALL_LAST, c("5H"))
    play(game, 1, CALL_LAST, c("5C"))
    play(game, 2, CALL_LAST, c("5D"))
    play(game, 0, c("9D"))
    assert not game.over
    assert game.view(1).finished == (0,)
    assert game.turn == 1
    play(game, 1, c("9C"))
    assert game.result is not None
    assert game.result.reason == "one_left"
    assert game.result.placings == (0, 1, 2)
    # Without the option the hand ends with the first out; the others are placed by cards
    # left, then by their points (6♦ before 9♣).
    short = stacked(sized(SWITCH, 2), 3, ["5H 9D", "5C 9C", "5D 6D"], "5S")
    play(short, 0, CALL_LAST, c("5H"))
    play(short, 1, CALL_LAST, c("5C"))
    play(short, 2, CALL_LAST, c("5D"))
    play(short, 0, c("9D"))
    assert short.result is not None
    assert short.result.reason == "finished"
    assert short.result.placings == (0, 2, 1)


def test_the_deal_rotates_clockwise_after_each_hand() -> None:
    """002: 'Thereafter, the deal rotates clockwise around the table after each completed
    hand'; 000 (J28): 'Dealership alternates from round to round'"""
    assert TFJ.deal.dealer_rotation == "clockwise"
    assert J28.deal.dealer_rotation == "clockwise"
    for dealer in range(3):
        game = Game(SWITCH, 3, dealer=dealer)
        game.apply_chance(list(range(52)))
        assert game.turn == (dealer + 1) % 3
        assert game.view(0).dealer == dealer


# =============================================================================================
# Hand size

_HANDS: dict[str, list[int]] = {
    # players:        2   3   4   5   6   7   8
    "switch": [7, 7, 7, 7, 7, 7, 7],
    "peanuckle": [7, 7, 7, 7, 7, 7, 7],
    "turbo": [7, 7, 7, 7, 7, 7, 7],
    "irish": [9, 9, 9, 7, 7, 7, 7],
    "two-four-jack": [12, 12, 10, 10, 10, 10, 10],
    "blackjack": [7, 7, 7, 5, 5, 5, 5],
    "j28": [7, 7, 7, 7, 7, 7, 7],
    "take-two": [5, 5, 5, 5, 5, 5, 5],
    "black5": [5, 5, 5, 5, 5, 5, 5],
}


@pytest.mark.parametrize("name", list(_HANDS))
def test_hand_size_per_system_and_player_count(name: str) -> None:
    """000: 'often seven per person'; 001: 'often 9 per person when 4 or less, 7 if 4+'; 002:
    'For two or three players, each should receive 12 cards, but if there are more players,
    each should receive 10'; 000 (Black Jack): '7 cards (or 5 cards if there is more than 4
    people)'; 000 (J28): 'a seven-card hand'; 003 (Toma dos): '5 cartas'; 000 (Black 5): 'There
    are five cards dealt to each player'"""
    rules = PRESETS[name]
    for players, size in zip(range(2, 9), _HANDS[name], strict=True):
        assert rules.hand_size_for(players) == size
        game = Game(rules, players)
        game.apply_chance(list(game.deck))
        assert game.counts == [size] * players
        assert len(game.stock) == len(game.deck) - size * players - len(game.discard)


# =============================================================================================
# Pick-ups


def test_a_two_makes_the_next_player_pick_up_two() -> None:
    """000: 'if a player places a two (of any suit) down, the next player is required to pick
    up two cards'"""
    game = stacked(sized(SWITCH, 5), 2, ["2H 3C 4C 5C 6C", "9C 9D KS QD 3S"], "5H", "4D 6D")
    events = play(game, 0, c("2H"))
    assert ("pickup", 0, 2) in events
    view = game.view(1)
    assert (view.pending_kind, view.pending_amount, view.pending_target) == ("pickup", 2, 1)
    assert legal(game) == ["draw"]
    events = play(game, 1, DRAW)
    assert kinds(events, "take", "draw") == [
        ("take", 1, "2"),
        ("draw", 1, "4D"),
        ("draw", 1, "6D"),
    ]
    assert game.counts[1] == 7
    assert game.view(0).pending_kind == ""


def test_two_stacks_and_next_without_two_draws_four() -> None:
    """000: 'Should that player have a two himself, however, he may place it down, requiring
    the next player to pick up four'"""
    hands = ["2H 3C 4C 9H 6C", "2S 5C 9D 3D 4D", "6D 9C KS 10C JD"]
    game = stacked(sized(SWITCH, 5), 3, hands, "5H", "3S 4S 6S 9S")
    play(game, 0, c("2H"))
    assert legal(game) == ["2S", "draw"]
    events = play(game, 1, c("2S"))
    assert ("pickup", 1, 4) in events
    view = game.view(2)
    assert (view.pending_kind, view.pending_amount, view.pending_target) == ("pickup", 4, 2)
    assert legal(game) == ["draw"]
    assert rejected(game, 2, c("KS")) is Reason.MUST_ANSWER  # a spade on 2♠, but not now
    play(game, 2, DRAW)
    assert game.counts[2] == 9
    assert "3S 4S 6S 9S" in hand_of(game, 2)
    assert game.turn == 0


def test_twos_stack_until_a_player_without_one_picks_up_six() -> None:
    """000: 'if he has a two, he may place it, requiring the next player to pick up six; this
    may continue until the flow reaches a player who does not have a two in his hand'"""
    hands = ["2H 3C 4C 9H 6C", "2S 5C 9D 3D 4D", "2C 9C KS 10C JD"]
    game = stacked(sized(SWITCH, 5), 3, hands, "5H")
    play(game, 0, c("2H"))
    play(game, 1, c("2S"))
    play(game, 2, c("2C"))
    assert game.view(0).pending_amount == 6
    assert legal(game) == ["draw"]
    play(game, 0, DRAW)
    assert game.counts[0] == 10
    assert game.turn == 1


def test_only_one_two_may_be_laid_at_a_time() -> None:
    """003: 'Un jugador no puede colocar dos cartas al mismo tiempo' (a player may not lay two
    2s at once)"""
    game = stacked(sized(SWITCH, 5), 2, ["2H 2S 4C 9C 6C", "3H 5C 9D 3D 4D"], "5H")
    play(game, 0, c("2H"))
    assert game.turn == 1
    assert "2S" in hand_of(game, 0)
    assert game.view(1).pending_amount == 2


def test_a_four_makes_the_next_player_pick_up_four_and_fours_stack() -> None:
    """002: 'Any time a four is legally played, it acts similar to a two ... four cards must
    drawn for each consecutive four that is played'"""
    hands = ["4H 3C 5C 6C 9C", "4S 2S 3D 9D KD", "6D 7D 8D 9S KS"]
    game = stacked(sized(TFJ, 5), 3, hands, "5H")
    play(game, 0, c("4H"))
    assert legal(game) == ["4S", "draw"]  # a 2 does not answer a 4
    play(game, 1, c("4S"))
    assert game.view(2).pending_amount == 8
    assert legal(game) == ["draw"]
    play(game, 2, DRAW)
    assert game.counts[2] == 13
    assert game.turn == 0


def test_a_player_who_must_draw_for_a_two_also_misses_the_turn() -> None:
    """002: 'When a two is played, the next player must draw two cards from the top of the
    stock and misses the turn, with the turn passing to the next player'; 000: 'A player that
    draws cards after a two has been played is usually not permitted to put any more cards
    down'"""
    hands = ["2H 3C 4C 9C 6C", "5C 9D 3D KD QD", "6D 7D 8D 9S KS"]
    game = stacked(sized(TFJ, 5), 3, hands, "5H", "3H 7H")  # both would play on 2♥
    play(game, 0, c("2H"))
    events = play(game, 1, DRAW)
    assert ("turn", 2, -1) in events
    assert game.turn == 2
    assert "3H" in hand_of(game, 1)
    assert "7H" in hand_of(game, 1)


def test_black_jack_makes_the_next_player_pick_up_five() -> None:
    """000: 'When the Black Jack is played, the following player must pick up 5'"""
    game = stacked(sized(SWITCH, 5), 2, ["JS 3C 4C 5C 6C", "9C 9D KD QD 3H"], "9S")
    play(game, 0, c("JS"))
    assert game.view(1).pending_amount == 5
    assert legal(game) == ["draw"]
    play(game, 1, DRAW)
    assert game.counts[1] == 10


def test_a_second_black_jack_makes_the_following_player_pick_up_ten() -> None:
    """000: 'or play another Black Jack and the following player must then pick up 10'"""
    hands = ["JS 3C 4C 5C 6C", "JC 9D KD QD 3H", "4H 6H 9H 3D 4D"]
    game = stacked(sized(SWITCH, 5), 3, hands, "9S")
    play(game, 0, c("JS"))
    assert legal(game) == ["JC", "draw"]
    play(game, 1, c("JC"))
    assert game.view(2).pending_amount == 10
    play(game, 2, DRAW)
    assert game.counts[2] == 15
    assert game.turn == 0


def test_both_black_jacks_at_once_make_the_next_player_pick_up_ten() -> None:
    """000: 'If you have both Black Jacks then you can play both of them at the same time, to
    then cause the next person to pick up ten'"""
    game = stacked(sized(SWITCH, 5), 2, ["JS JC 3C 4C 5C", "9C 9D KD QD 3H"], "9S")
    play(game, 0, c("JS"))
    assert game.phase == Phase.FOLLOW
    assert legal(game) == ["JC", "pass"]
    play(game, 0, c("JC"))
    assert game.turn == 1
    assert game.view(1).pending_amount == 10


def test_one_red_jack_cancels_only_one_black_jack() -> None:
    """000: 'although 1 Red Jack will only cancel out one Black Jack, so if 2 Black Jacks have
    been played then you will have to still pick up 5 unless you have the 2 Red Jack which will
    then cancel out both Black Jacks'"""
    hands = ["JS JC 3C 4C 5C", "JD 9D KD QD 3H", "4H 6H 9H 3D 4D"]
    game = stacked(sized(SWITCH, 5), 3, hands, "9S")
    play(game, 0, c("JS"), c("JC"))
    assert legal(game) == ["JD", "draw"]
    events = play(game, 1, c("JD"))
    assert ("cancel", 1, 5) in events
    assert game.turn == 1
    assert game.view(1).pending_amount == 5
    assert legal(game) == ["draw"]
    play(game, 1, DRAW)
    assert game.counts[1] == 9
    assert game.turn == 2
    # Both Red Jacks cancel both Black Jacks.
    hands[1] = "JD JH KD QD 3H"
    game = stacked(sized(SWITCH, 5), 3, hands, "9S")
    play(game, 0, c("JS"), c("JC"))
    play(game, 1, c("JD"))
    assert legal(game) == ["JH", "draw"]
    play(game, 1, c("JH"))
    assert game.turn == 2
    assert game.view(2).pending_kind == ""
    assert game.counts[1] == 3
    assert legal(game) == ["4H", "6H", "9H"]


def test_a_red_jack_on_its_own_is_an_ordinary_card() -> None:
    """002: 'A red Jack can also be played, as normal, on another card of the same suit, but
    when played in this way, has no special affects'"""
    game = stacked(sized(SWITCH, 5), 2, ["JD 3C 4C 5C 6C", "9C 9D KS QS 3H"], "5D")
    play(game, 0, c("JD"))
    assert game.turn == 1
    assert game.view(1).pending_kind == ""
    assert legal(game) == ["9D"]


def test_a_red_jack_does_not_cancel_a_two_in_switch() -> None:
    """000 (Switch): the Red Jack 'will cancel the pick up 5 rule' of the Black Jack (it is not
    said to cancel a 2)"""
    game = stacked(sized(SWITCH, 5), 2, ["2H 3C 4C 5C 6C", "JH 9D KS QS 3D"], "5H")
    play(game, 0, c("2H"))
    assert legal(game) == ["draw"]
    assert rejected(game, 1, c("JH")) is Reason.MUST_ANSWER


def test_blackjack_a_red_jack_cancels_all_pick_ups() -> None:
    """000 (Black Jack): 'If a red jack is placed all pick up cards are cancelled'; 'Two: ...
    Alternatively, a red jack can be used to cancel the card pickup'"""
    hands = ["2H 4C 6C 9C KC", "JS 3D 9D 4S 5D", "JD 4D 6D 10S 8C"]
    game = stacked(sized(BLACKJACK, 5), 3, hands, "5H")
    play(game, 0, c("2H"))
    play(game, 1, c("JS"))
    assert game.view(2).pending_amount == 7
    assert legal(game) == ["JD", "draw", "call last"]
    events = play(game, 2, c("JD"))
    assert ("cancel", 2, 0) in events
    assert game.turn == 0
    assert game.view(0).pending_kind == ""
    assert game.counts == [4, 4, 4]


def test_blackjack_a_two_may_be_answered_with_a_two_or_a_black_jack() -> None:
    """000 (Black Jack): 'The next player is forced to pick up two cards unless he is able to
    lay another two or black jack which makes the next player pick up the cards'"""
    hands = ["2H 4C 6C 9C KC", "JC 2S 9D QS 5D", "2D 4D 6D 10S 8C"]
    game = stacked(sized(BLACKJACK, 5), 3, hands, "5H")
    play(game, 0, c("2H"))
    assert legal(game) == ["JC", "2S", "draw", "call last"]
    play(game, 1, c("JC"))
    assert game.view(2).pending_amount == 7
    # A 2 still answers: a row already in the stack may be answered (an engine choice).
    assert legal(game) == ["2D", "draw", "call last"]


def test_black_jacks_may_pick_up_the_number_dealt_and_red_jacks_negate_them() -> None:
    """002 (Black and Red Jacks): 'the next player in turn must then draw a number of cards
    equal to that he was dealt ... the next player in would then have to draw double the
    initial number of dealt cards'; 'he may instead play a red Jack ... which negates this
    requirement'; 003: 'el siguiente jugador debe recoger el mismo número de cartas
    repartidas'"""
    data: dict[str, Any] = {
        "base": "two-four-jack",
        "power": [
            {"name": "ace", "cards": "A", "wild": True, "names_suit": True},
            {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two"]},
            {"name": "four", "cards": "4", "pickup": 4, "stacks_on": ["four"]},
            {"name": "ten", "cards": "10", "reverse": True},
            {"name": "black_jack", "cards": "black J", "pickup": "deal", "stacks_on": "black_jack"},
            {"name": "red_jack", "cards": "red J", "cancels": "black_jack", "cancel": "all"},
        ],
    }
    rules = rules_from_mapping(data)
    game = stacked(rules, 2, ["JS 8S ...", "JC JD ..."], "9S")
    assert game.hand_size == 12
    assert hand_of(game, 0).startswith("AC 2C 3C")
    play(game, 0, c("JS"))
    assert game.view(1).pending_amount == 12
    assert legal(game) == ["JC", "JD", "draw"]
    play(game, 1, c("JC"))
    assert game.view(0).pending_amount == 24
    play(game, 0, DRAW)
    assert game.counts[0] == 11 + 24
    red = stacked(rules, 2, ["JS 8S ...", "JC JD ..."], "9S")
    play(red, 0, c("JS"))
    play(red, 1, c("JD"))
    assert red.turn == 0
    assert red.view(0).pending_kind == ""
    assert red.counts[0] == 11


def test_variant_a_red_jack_adds_three_to_a_black_jack_instead_of_cancelling() -> None:
    """003 (variantes de Black Jack): 'Las jotas rojas no cancelan las jotas negras, sino que se
    pueden combinar con las jotas negras. Uno debe recoger tres cartas adicionales por Jack
    rojo.'"""
    rules = with_row(
        SWITCH, "red_jack", cancels=(), pickup=3, stacks_on=("black_jack",), answer_only=True
    )
    rules = with_row(rules, "black_jack", stacks_on=("black_jack", "red_jack"))
    hands = ["JS 3C 4C 5C 6C", "JD 9D KD QD 3H", "4H 6H 9H 3D 4D"]
    game = stacked(sized(rules, 5), 3, hands, "9S")
    play(game, 0, c("JS"))
    assert legal(game) == ["JD", "draw"]
    play(game, 1, c("JD"))
    assert game.view(2).pending_amount == 8
    play(game, 2, DRAW)
    assert game.counts[2] == 13
    # Laid with nothing to answer, the Red Jack picks nothing up ("answer_only").
    alone = stacked(sized(rules, 5), 2, ["JH 3C 4C 5C 6C", "9C 9D KS QS 3D"], "9H")
    play(alone, 0, c("JH"))
    assert alone.turn == 1
    assert alone.view(1).pending_kind == ""


def test_variant_twos_and_black_jacks_laid_together_pick_up_eighteen() -> None:
    """003 (variantes de Black Jack): 'los blackjacks y los dos se pueden colocar juntos dando
    un número máximo de recogida de 18, por lo que un movimiento como (JS, 2S, 2H, 2D, 2C, JC)
    sería un movimiento válido y legal'"""
    rules = with_row(BLACKJACK, "two", together=True, stacks_on=("two", "black_jack"))
    assert rules.row("black_jack").together
    assert "two" in rules.row("black_jack").stacks_on
    game = stacked(sized(rules, 7), 2, ["JS 2S 2H 2D 2C JC 3D", "9C 9D KS QH 4H 6H 8H"], "9S")
    for card in ("JS", "2S", "2H", "2D", "2C"):
        play(game, 0, c(card))
        assert game.turn == 0
    assert "JC" in legal(game)
    play(game, 0, c("JC"), PASS)
    assert game.turn == 1
    assert game.view(1).pending_amount == 18
    # The preset itself does not allow it: one 2 per turn, and a 2 does not follow a Jack.
    plain = stacked(sized(BLACKJACK, 7), 2, ["JS 2S 2H 2D 2C JC 3D", "9C 9D KS QH 4H 6H 8H"], "9S")
    play(plain, 0, c("JS"))
    assert "2S" not in legal(plain)


def test_irish_king_of_hearts_picks_up_five() -> None:
    """001: 'King of Hearts: Requires a player to pick up five cards, unless they have the 2 of
    hearts'"""
    game = stacked(sized(IRISH, 5), 2, ["KH 3C 5C 9C 6C", "2C 9D 4D 6D QS"], "9H")
    play(game, 0, c("KH"))
    assert game.view(1).pending_amount == 5
    assert legal(game) == ["draw"]  # a plain 2 does not answer the K♥
    play(game, 1, DRAW)
    assert game.counts[1] == 10


def test_irish_two_of_hearts_on_the_king_makes_seven_and_another_two_nine() -> None:
    """001: 'unless they have the 2 of hearts. Then they may pick up seven cards and another 2
    card makes them pick up nine and so on'"""
    hands = ["KH 3C 5C 9C 6C", "2H 9D 4D 6D QS", "2C 10D 4S 6S QD"]
    game = stacked(sized(IRISH, 5), 3, hands, "9H")
    play(game, 0, c("KH"))
    assert legal(game) == ["2H", "draw"]
    play(game, 1, c("2H"))
    assert game.view(2).pending_amount == 7
    assert legal(game) == ["2C", "draw"]
    play(game, 2, c("2C"))
    assert game.view(0).pending_amount == 9
    play(game, 0, DRAW)
    assert game.counts[0] == 13
    assert game.turn == 1


def test_j28_ace_of_hearts_picks_up_five_unless_answered_with_the_ace_of_spades() -> None:
    """000 (J28): 'if you have an ace of hearts the player next in turn must pick up 5 cards,
    unless they have an ace of spades, this cancels out the 5 cards they must pick up'"""
    game = stacked(sized(J28, 5), 2, ["AH 3C 5C 9C 6C", "AS 3D 5D 6S KD"], "9H")
    assert game.turn == 0
    play(game, 0, c("AH"))
    assert game.view(1).pending_amount == 5
    assert legal(game) == ["AS", "draw"]
    events = play(game, 1, c("AS"))
    assert ("cancel", 1, 0) in events
    assert game.turn == 0
    assert game.view(0).pending_kind == ""
    without = stacked(sized(J28, 5), 2, ["AH 3C 5C 9C 6C", "AC 3D 5D 6S KD"], "9H")
    play(without, 0, c("AH"))
    assert legal(without) == ["draw"]
    play(without, 1, DRAW)
    assert without.counts[1] == 10


def test_black5_black_five_picks_up_five_and_a_red_five_stops_it() -> None:
    """000 (Black 5): 'Black 5 - Pick up five cards. Red 5 - Stops the black 5's'"""
    game = stacked(BLACK5, 2, ["5S 3C 4D 9C KC", "5D 6C 7C 9D 10D"], "9S")
    play(game, 0, c("5S"))
    assert game.view(1).pending_amount == 5
    assert legal(game) == ["5D", "draw"]
    play(game, 1, c("5D"))
    assert game.turn == 0
    assert game.view(0).pending_kind == ""
    taken = stacked(BLACK5, 2, ["5S 3C 4D 9C KC", "6D 6C 7C 9D 10D"], "9S")
    play(taken, 0, c("5S"))
    play(taken, 1, DRAW)
    assert taken.counts[1] == 10


def test_black5_queen_of_hearts_sends_the_king_of_hearts_back() -> None:
    """000 (Black 5): 'King of Hearts - Pick up 10 cards'; 'Queen of Hearts - Reverses the power
    of the King of Hearts to the player who played it as long as it is played directly after
    the King of Hearts'"""
    hands = ["KH 3C 4D 9C 6C", "QH 7C 3D 9D 10D", "3H 6D 7D 9S 10S"]
    game = stacked(BLACK5, 3, hands, "9H")
    play(game, 0, c("KH"))
    assert game.view(1).pending_amount == 10
    assert legal(game) == ["QH", "draw"]
    events = play(game, 1, c("QH"))
    assert ("return", 1, 0) in events
    view = game.view(0)
    assert (view.pending_kind, view.pending_amount, view.pending_target) == ("pickup", 10, 0)
    assert game.turn == 0
    assert legal(game) == ["draw"]
    play(game, 0, DRAW)
    assert game.counts[0] == 14
    # Play goes on after the player of the Queen: seat 2 is not skipped.
    assert game.turn == 2
    assert game.view(2).pending_kind == ""
    # Without the Queen the next player picks up the 10.
    hands[1] = "QS 7C 3D 9D 10D"
    taken = stacked(BLACK5, 3, hands, "9H")
    play(taken, 0, c("KH"))
    assert legal(taken) == ["draw"]
    play(taken, 1, DRAW)
    assert taken.counts[1] == 15
    assert taken.turn == 2


def test_an_ace_cannot_be_used_to_dodge_a_pick_up() -> None:
    """002: 'Although an Ace may be played on any other card on it's owners proper turn, the
    next player in turn after a two or four is played may not use it to avoid drawing the
    requisite number of cards'"""
    game = stacked(sized(TFJ, 5), 2, ["2H 3C 5C 9C 6C", "AS 3D 5D 6S KD"], "9H")
    play(game, 0, c("2H"))
    assert legal(game) == ["draw"]
    assert rejected(game, 1, c("AS")) is Reason.MUST_ANSWER


def test_variant_an_ace_blocks_a_two() -> None:
    """003 (Black Jack): 'Ases: ... También se puede usar para bloquear un dos'"""
    rules = with_row(BLACKJACK, "ace", cancels=("two",), cancel="all")
    game = stacked(sized(rules, 5), 2, ["2H 4C 6C 9C KC", "AS 3D 9D QS 5D"], "5H")
    play(game, 0, c("2H"))
    assert legal(game) == ["AS", "draw", "call last"]
    play(game, 1, c("AS"))
    assert game.phase == Phase.NAME_SUIT
    play(game, 1, suit(CLUBS))
    assert game.turn == 0
    assert game.view(0).pending_kind == ""
    assert legal(game) == ["4C", "6C", "9C", "KC", "call last"]


def test_taking_a_pick_up_ends_the_turn() -> None:
    """000: 'A player that draws cards after a two has been played is usually not permitted to
    put any more cards down'"""
    game = stacked(
        sized(SWITCH, 5), 3, ["2H 3C 4C 9C 6C", "5C 9D KS QS 3D", "4D 6D 8D 9S KD"], "5H", "3H 4H"
    )
    play(game, 0, c("2H"))
    play(game, 1, DRAW)
    assert game.turn == 2
    assert "3H 4H" in hand_of(game, 1)


def test_take_two_joker_picks_up_five() -> None:
    """003 (Toma dos, reglas de casa): 'Ya sea que se usen comodines o no, si es el siguiente
    jugador, debe tomar 5 cartas de la baraja'"""
    rules = house(replace(TAKE_TWO, deal=replace(TAKE_TWO.deal, jokers=1)))
    game = stacked(rules, 2, ["JOKER 3C 5C 9C 6C", "2D 3D 5D 6S KD"], "9H")
    assert "JOKER" in legal(game)
    play(game, 0, JOKER_BASE, suit(DIAMONDS))
    assert game.view(1).pending_amount == 5
    assert legal(game) == ["draw"]  # nothing answers a joker
    play(game, 1, DRAW)
    assert game.counts[1] == 10


# =============================================================================================
# Skips


def test_an_eight_makes_the_next_player_miss_a_turn() -> None:
    """000: '8: the next player misses their turn'"""
    hands = ["8H 3C 4C 9C 6C", "5C 9D KS QS 3H", "4D 6D 9H 10S KD"]
    game = stacked(sized(SWITCH, 5), 3, hands, "5H")
    events = play(game, 0, c("8H"))
    assert ("miss", 1, 1) in events
    assert game.turn == 2


def test_stacked_eights_make_the_player_without_one_miss_a_turn_per_eight() -> None:
    """000: 'if this rule is included, then 8s will continue to be played, until the flow
    reaches a player without an 8, in which case he will miss a number of turns equivalent to
    the number of 8s played immediately previously'"""
    rules = with_row(SWITCH, "eight", stacks_on=("eight",))
    hands = ["8H 3S 4C 9C 6C", "8S 9D 4S QS 3D", "4D 6D 9H 10D KD"]
    game = stacked(sized(rules, 5), 3, hands, "5H")
    play(game, 0, c("8H"))
    assert game.turn == 1
    assert legal(game) == ["8S", "pass"]
    play(game, 1, c("8S"))
    view = game.view(2)
    assert (view.pending_kind, view.pending_amount) == ("skip", 2)
    assert legal(game) == ["pass"]
    events = play(game, 2, PASS)
    assert ("miss", 2, 2) in events
    assert game.view(0).missed[2] == 1
    assert game.turn == 0
    play(game, 0, c("3S"))
    events = play(game, 1, c("4S"))
    assert ("miss", 2, 1) in events
    assert game.turn == 0


def test_blackjack_eight_skips_unless_the_next_player_has_an_eight() -> None:
    """000 (Black Jack): 'Eight: The next player misses a turn unless they have an eight'"""
    hands = ["8H 4C 6C 9C KC", "8S 3D 9D QS 5D", "4D 6D 10S 3C 5C"]
    game = stacked(sized(BLACKJACK, 5), 3, hands, "5H")
    play(game, 0, c("8H"))
    assert legal(game) == ["8S", "pass", "call last"]
    play(game, 1, PASS)
    assert game.turn == 2
    assert game.counts[1] == 5


def test_j28_an_eight_must_be_answered_with_an_eight_or_turns_are_missed() -> None:
    """000 (J28): 'If an 8 is played the next person in the game must play a 8 also. Again this
    continues around the circle until a player is unable to lay an eight. This player must then
    miss a number of goes (determined by the number of 8s laid)'"""
    game = stacked(sized(J28, 5), 2, ["8H 3C 5C 9C 6C", "8S 3D 5D 6S KD"], "9H")
    play(game, 0, c("8H"))
    assert legal(game) == ["8S", "pass"]
    play(game, 1, c("8S"))
    assert game.turn == 0
    assert game.view(0).pending_amount == 2
    assert legal(game) == ["pass"]
    play(game, 0, PASS)
    assert game.turn == 1
    assert game.view(1).missed[0] == 1
    play(game, 1, c("6S"))
    assert game.turn == 1  # seat 0 misses its second go as well


def test_black5_the_next_player_plays_an_eight_or_waits() -> None:
    """000 (Black 5): '8 - The next player can either play an 8 or wait'"""
    game = stacked(BLACK5, 3, ["8H 3C 4D 9C KC", "8D 6C 7C 9D 10D", "3H 6D 7D 9S 10S"], "9H")
    play(game, 0, c("8H"))
    assert legal(game) == ["8D", "pass"]
    play(game, 1, PASS)
    assert game.turn == 2


def test_irish_seven_skips_and_sevens_stack() -> None:
    """001: '7: a player may skip a turn once the other player puts down at 7 of any suit, the
    next player can place another 7 down to make the next player skip, multiple people can put
    a 7 down, this action happens until no one has a 7, making them skip their turn'"""
    hands = ["7H 3C 5C 9C 6C", "7S 9D 4D 6D QS", "4S 10D 3S 6S QD"]
    game = stacked(sized(IRISH, 5), 3, hands, "9H")
    play(game, 0, c("7H"))
    assert legal(game) == ["7S", "pass"]
    play(game, 1, c("7S"))
    assert game.view(2).pending_kind == "skip"
    assert legal(game) == ["pass"]
    play(game, 2, PASS)
    assert game.turn == 0


def test_irish_stacked_sevens_make_the_player_without_one_skip_one_turn() -> None:
    """001: 'multiple people can put a 7 down, this action happens until no one has a 7, making
    them skip their turn' — their turn, one: not a turn per 7 laid (that count is 000's rule
    for 8s: 'he will miss a number of turns equivalent to the number of 8s played')"""
    hands = ["7H 5S 5C 9C 6C", "7S 9D 4D 6D QS", "4S 10D 3S 6S QD"]
    game = stacked(sized(IRISH, 5), 3, hands, "9H")
    play(game, 0, c("7H"))
    assert game.view(1).pending_amount == 1
    play(game, 1, c("7S"))
    assert game.view(2).pending_amount == 1  # two 7s laid, still one turn to miss
    events = play(game, 2, PASS)
    assert ("miss", 2, 1) in events
    assert game.turn == 0
    play(game, 0, c("5S"))
    assert game.turn == 1  # seat 2 missed one turn; seat 1 plays next and then seat 2 does
    play(game, 1, c("QS"))
    assert game.turn == 2
    # The 8s of Switch still count: two 8s laid make the player without one miss two turns.
    eights = with_row(SWITCH, "eight", stacks_on=("eight",))
    tally = stacked(sized(eights, 5), 3, ["8H 3C 5C 9C 6C", "8S 9D 4D 6D QS", hands[2]], "9H")
    play(tally, 0, c("8H"))
    play(tally, 1, c("8S"))
    assert tally.view(2).pending_amount == 2


def test_variant_jack_skips_instead_of_reversing() -> None:
    """003 (Toma dos): 'Jota: la jota puede invertir el orden de juego O saltar a un jugador
    según las reglas de la casa'"""
    rules = with_row(TAKE_TWO, "jack", reverse=False, skip=1)
    hands = ["JH 3C 4C 9C 6C", "5C 9D KS QS 3H", "4D 6D 9H 10S KD"]
    game = stacked(rules, 3, hands, "5H")
    play(game, 0, c("JH"))
    assert game.turn == 2
    assert game.view(2).direction == 1


def test_variant_an_eight_means_play_again() -> None:
    """003: 'En algunos juegos, el ocho se usa como carta para jugar de nuevo'"""
    rules = with_row(SWITCH, "eight", skip=0, again=True)
    hands = ["8H 3H 4C 9C 6C", "5C 9D KS QS 3S", "4D 6D 9H 10S KD"]
    game = stacked(sized(rules, 5), 3, hands, "5H")
    events = play(game, 0, c("8H"))
    assert ("again", 0, -1) in events
    assert game.turn == 0
    assert game.phase == Phase.PLAY
    assert legal(game) == ["3H"]


# =============================================================================================
# Reverses


def test_a_ten_reverses_the_direction_of_play() -> None:
    """000: '10: "reverses"—the direction of the game switches anticlockwise and continues this
    way. The next time a 10 is played, the direction will reverse again'"""
    hands = ["10H 3C 4C 9C 6C", "10D 9D KS QS 3S", "4D 6D 9H 10S KD"]
    game = stacked(sized(SWITCH, 5), 3, hands, "5H")
    events = play(game, 0, c("10H"))
    assert ("reverse", 0, -1) in events
    assert game.turn == 2
    play(game, 2, c("10S"))
    assert game.turn == 0
    assert game.view(0).direction == 1


@pytest.mark.parametrize(
    ("name", "card"),
    [
        ("irish", "JH"),
        ("two-four-jack", "JH"),
        ("take-two", "JH"),
        ("black5", "JH"),
        ("blackjack", "KH"),
    ],
)
def test_jack_or_king_reverses(name: str, card: str) -> None:
    """001: 'Jack: a Jack is used in play so the player can reverse to the previous player';
    002: 'When a Jack is played this immediately reverses the current direction of play'; 000
    (Black 5): 'Jack - Reverses the direction'; 000 (Black Jack): 'King: Reverses the order of
    play'"""
    hands = [f"{card} 3C 4C 9C 6C", "5C 9D KS QS 3S", "4D 6D 10S 3D 6S"]
    game = stacked(sized(PRESETS[name], 5), 3, hands, "5H")
    play(game, 0, c(card))
    assert game.turn == 2
    assert game.view(2).direction == -1


def test_variant_a_three_reverses_instead_of_the_king() -> None:
    """003 (variantes de Black Jack): 'A veces se usa un 3, un 7 o un 10 como carta inversa en
    lugar del rey'"""
    rows = tuple(r for r in BLACKJACK.power if r.name != "king")
    rules = house(
        replace(BLACKJACK, power=(*rows, Power(name="three", cards=("3",), reverse=True)))
    )
    hands = ["3H 4C 6C 9C KH", "5C 9D KS QS 4S", "4D 6D 10S 10D 6S"]
    game = stacked(sized(rules, 5), 3, hands, "5H")
    play(game, 0, c("3H"))
    assert game.turn == 2
    assert game.view(2).direction == -1
    king = stacked(sized(rules, 5), 3, hands, "5H")
    play(king, 0, c("KH"))
    assert king.turn == 1
    assert king.view(1).direction == 1


def test_with_two_players_an_irish_jack_reverses_to_its_own_player() -> None:
    """001: 'if there are only two players in the game one player will put a jack down, making
    it reverse to themself, they can then put another card down on top of it'"""
    game = stacked(sized(IRISH, 5), 2, ["JH 3H 4C 9C 6C", "5C 9D KS QS 3S"], "5H")
    play(game, 0, c("JH"))
    assert game.turn == 0
    assert game.phase == Phase.PLAY
    assert legal(game) == ["3H"]
    play(game, 0, c("3H"))
    assert game.turn == 1


def test_with_two_players_a_two_four_jack_jack_gives_the_turn_to_the_other_player() -> None:
    """002: 'Each time during the course of the game that a Jack is played, the direction of
    play will reverse again. Therefore, the player who played the card immediately preceding
    the play of the Jack will then have another turn as the rotation of play has changed' —
    with two players the one who played before the Jack is the other player"""
    hands = ["JH 3C 4C 9C 6C 3D 5D 6D 7D 8D QC KC", "9H 9D KS QS 3S 6S 7S 8S 9S 10S QH KH"]
    game = stacked(TFJ, 2, hands, "5H")
    play(game, 0, c("JH"))
    assert game.view(1).direction == -1
    assert game.turn == 1  # the other player, who played the card before the Jack
    play(game, 1, c("9H"))
    assert game.turn == 0
    # With three, the Jack sends play back the other way: to that same previous player.
    three = stacked(sized(TFJ, 5), 3, ["JH 3C 4C 9C 6C", "5C 9D KS QS 3S", "4D 6D 10S 3D 6S"], "5H")
    play(three, 0, c("JH"))
    assert three.turn == 2


def test_several_jacks_may_be_put_down_at_once() -> None:
    """001: 'one player may put down multiple jacks at the same time' (each one reverses)"""
    hands = ["JH JS 4C 9C 6C", "5C 9D KS QS 3S", "4D 6D 10S 3D 6S"]
    game = stacked(sized(IRISH, 5), 3, hands, "5H")
    play(game, 0, c("JH"))
    assert game.phase == Phase.FOLLOW
    assert legal(game) == ["JS", "pass"]
    events = play(game, 0, c("JS"))
    assert [k for k, _, _ in events].count("reverse") == 1
    assert game.turn == 1
    assert game.view(1).direction == 1
    one = stacked(sized(IRISH, 5), 3, hands, "5H")
    play(one, 0, c("JH"), PASS)
    assert one.turn == 2


# =============================================================================================
# Wilds


def test_an_ace_may_be_played_on_anything_and_its_player_names_the_suit() -> None:
    """000: 'Ace: can be played regardless of the suit or value of the topmost card on the
    playing deck ... When playing an Ace, the player can decide freely the suit that has to be
    played next'"""
    game = stacked(sized(SWITCH, 5), 2, ["AS 3C 4C 9C 6C", "5H 9D KH QS 3S"], "9H")
    assert legal(game) == ["9C", "AS"]
    play(game, 0, c("AS"))
    assert game.phase == Phase.NAME_SUIT
    assert game.turn == 0
    assert legal(game) == ["suit C", "suit D", "suit H", "suit S"]
    assert rejected(game, 0, c("3C")) is Reason.NAME_SUIT_FIRST
    events = play(game, 0, suit(HEARTS))
    assert ("suit", 0, HEARTS) in events
    assert game.turn == 1
    assert legal(game) == ["5H", "KH"]


def test_after_an_ace_the_next_player_plays_the_named_suit_or_another_ace() -> None:
    """002: 'The next player must then play a card of the named suit or another Ace. If unable
    to play such a card, he must then draw until obtaining a card for which he can legally
    play'"""
    game = stacked(sized(TFJ, 5), 2, ["AS 3C 5C 9C 6C", "AD 9D 9S QS 3H"], "9H")
    play(game, 0, c("AS"), suit(HEARTS))
    assert legal(game) == ["AD", "3H", "draw"]  # not the 9s, not the spades
    play(game, 1, c("AD"), suit(CLUBS))
    assert legal(game) == ["3C", "5C", "6C", "9C", "draw"]


def test_irish_ace_goes_only_on_its_own_suit_then_names_a_suit() -> None:
    """001: 'Ace: Can be placed on any card of the same suit, e.g. an Ace of Spades can be
    placed on top of any other Spades card. When playing an ace, the player can decide freely
    the suit that has to be played next'"""
    game = stacked(sized(IRISH, 5), 2, ["AS AH 3C 9C 6C", "5D 9D KH QH 3H"], "9S")
    assert legal(game) == ["9C", "AS"]
    assert rejected(game, 0, c("AH")) is Reason.DOES_NOT_MATCH
    play(game, 0, c("AS"), suit(DIAMONDS))
    assert legal(game) == ["5D", "9D"]


def test_j28_jack_is_wild_and_the_turn_goes_on_in_the_named_suit() -> None:
    """000 (J28): 'Jacks can be played at any time on top of any card ... if a Jack is played
    the suit can be changed to hearts, then the player is allowed to lay a heart and any other
    appropriate cards on that go'"""
    game = stacked(sized(J28, 5), 2, ["JC 5H 6H 3S 9S", "4C 9D KD QD 3D"], "9C")
    assert "JC" in legal(game)
    play(game, 0, c("JC"), suit(HEARTS))
    assert game.turn == 0
    assert legal(game) == ["5H", "6H", "pass"]
    play(game, 0, c("5H"), c("6H"), PASS)
    assert game.turn == 1
    assert hand_of(game, 0) == "3S 9S"


def test_joker_stands_for_any_card() -> None:
    """001: 'Joker: A Joker card can be used in play ... The Joker acts as a replacement card,
    i.e. it can be any card from any suit'"""
    rules = house(replace(IRISH, deal=replace(IRISH.deal, jokers=1)))
    game = stacked(sized(rules, 5), 2, ["JOKER 3C 5C 9C 6C", "2S 3D 5D 6S KD"], "9D")
    assert "JOKER" in legal(game)
    play(game, 0, JOKER_BASE)
    assert game.phase == Phase.NAME_CARD
    faces = legal(game)
    assert len(faces) == 16
    assert "as 2D" in faces
    assert "as 9S" in faces
    assert "as 3C" not in faces
    events = play(game, 0, MIMIC_BASE + c("2D"))
    assert ("mimic", 0, c("2D")) in events
    view = game.view(1)
    assert view.top == JOKER_BASE
    assert view.top_face == c("2D")
    assert (view.pending_kind, view.pending_amount) == ("pickup", 2)
    assert legal(game) == ["2S", "draw"]


# =============================================================================================
# Follow-on plays


def test_a_seven_lets_its_player_lay_every_card_of_its_suit() -> None:
    """000: '7: all other cards held by that player in the same suit as the 7 may be played';
    002: 'He may play these cards in any order to the pile'"""
    game = stacked(sized(SWITCH, 6), 2, ["7H 3H KH 9H 4C 5C", "4D 5D 6D QS 3S 9C"], "5H")
    play(game, 0, c("7H"))
    assert legal(game) == ["3H", "9H", "KH", "pass"]
    assert rejected(game, 0, c("4C")) is Reason.DOES_NOT_FOLLOW
    play(game, 0, c("KH"), c("3H"), c("9H"), PASS)
    assert game.turn == 1
    assert hand_of(game, 0) == "4C 5C"
    assert game.top == c("9H")


def test_blackjack_a_queen_must_be_covered_by_a_card_of_her_suit() -> None:
    """000 (Black Jack): 'Queen: A queen must be covered by a card of the same suit'"""
    game = stacked(sized(BLACKJACK, 5), 2, ["QH 3H 9C 4C 6C", "4D 5D 6D 10S 3S"], "9H")
    play(game, 0, c("QH"))
    assert game.turn == 0
    assert legal(game) == ["3H"]
    assert rejected(game, 0, c("9C")) is Reason.MUST_COVER
    play(game, 0, c("3H"))
    assert game.turn == 1
    assert game.top == c("3H")
    # Who cannot cover draws a card and the turn ends.
    bare = stacked(sized(BLACKJACK, 5), 2, ["QH 3C 9C 4C 6C", "4D 5D 6D 10S 3S"], "9H", "KD")
    play(bare, 0, c("QH"))
    assert legal(bare) == ["draw"]
    play(bare, 0, DRAW)
    assert bare.turn == 1
    assert "KD" in hand_of(bare, 0)


def test_variant_a_slag_queen_may_be_covered_by_any_card() -> None:
    """000 (Black Jack variants): 'The Queen is sometimes a "SLAG" which means she can be
    covered by any card, not only one of her suit'"""
    rules = with_row(BLACKJACK, "queen", cover="any")
    game = stacked(sized(rules, 5), 2, ["QH 3C 9C 4D 6S", "4H 5D 6D 10S 3S"], "9H")
    play(game, 0, c("QH"))
    assert legal(game) == ["3C", "9C", "4D", "6S"]
    play(game, 0, c("6S"))
    assert game.turn == 1
    assert game.top == c("6S")


def test_variant_a_king_came_to_cover() -> None:
    """003 (variantes de Black Jack): 'El Rey, cuando no está "al revés", a veces se usa como
    una carta "llegó a cubrir", en la cual, el jugador que coloca al rey también debe colocar
    una carta elegida del palo del rey'"""
    rules = with_row(BLACKJACK, "king", reverse=False, cover="suit")
    game = stacked(sized(rules, 5), 2, ["KC 3C 9C 4D 6S", "4H 5D 6D 10S 3S"], "5C")
    play(game, 0, c("KC"))
    assert legal(game) == ["3C", "9C"]
    play(game, 0, c("9C"))
    assert game.turn == 1


def test_variant_a_ten_starts_a_run_in_its_suit() -> None:
    """003: '10 : Si un jugador tiene un 10, puede colocar cualquier carta del mismo palo hacia
    abajo, pero a partir de ese momento debe continuar en orden. Por ejemplo, si se coloca el
    10 de corazones, el jugador puede colocar un 7 de corazones. Sin embargo, después de esto,
    tienen que poner un ocho de corazones, un seis de corazones o un 7 de un palo diferente, o
    pasar al siguiente jugador.'"""
    rules = with_row(SWITCH, "ten", reverse=False, run=True)
    rules = with_row(rules, "seven", follow_suit=False)
    hands = ["10H 7H 8H 6H 7C 9S 3H", "4D 5D 6D QS 3S 9C KD"]
    game = stacked(sized(rules, 7), 2, hands, "QH")
    play(game, 0, c("10H"))
    assert legal(game) == ["3H", "6H", "7H", "8H", "pass"]
    play(game, 0, c("7H"))
    assert legal(game) == ["7C", "6H", "8H", "pass"]
    play(game, 0, c("7C"))  # nothing goes on from 7♣: the turn ends
    assert game.turn == 1
    assert hand_of(game, 0) == "3H 6H 8H 9S"


@pytest.mark.parametrize("name", ["irish", "blackjack"])
def test_consecutive_cards_of_the_same_suit_may_be_laid_together(name: str) -> None:
    """001: 'A player can place consecutive cards of the same suit down to remove more cards';
    000 (Black Jack): 'A player can place consecutive cards of the same suit down'"""
    game = stacked(sized(PRESETS[name], 5), 2, ["4H 5H 6H 9C 3D", "4S 5D 6D 10S 3S"], "9H")
    play(game, 0, c("4H"))
    assert legal(game) == ["5H", "pass"]
    play(game, 0, c("5H"))
    assert legal(game) == ["6H", "pass"]
    play(game, 0, c("6H"), PASS)
    assert game.turn == 1
    assert hand_of(game, 0) == "9C 3D"


def test_black5_one_to_four_cards_of_a_rank_at_once() -> None:
    """000 (Black 5): 'can play 1, 2, 3 or 4 cards at a time as long as the cards are of the
    same face value'"""
    game = stacked(BLACK5, 2, ["9C 9D 9H 9S 3C", "4D 6S 6D 10S 3S"], "3D")
    play(game, 0, c("9D"))
    assert legal(game) == ["9C", "9H", "9S", "pass"]
    assert rejected(game, 0, c("3C")) is Reason.DOES_NOT_FOLLOW
    play(game, 0, c("9C"), c("9H"), c("9S"))
    assert game.turn == 1
    assert hand_of(game, 0) == "3C"


def test_take_two_house_rule_several_cards_of_one_value_at_once() -> None:
    """003 (Toma dos, reglas de casa): 'Se permite o no colocar dos o más cartas del mismo valor
    a la vez (colocar dos 5 en el mismo turno)'"""
    rules = with_play(TAKE_TWO, follow="sets")
    game = stacked(rules, 2, ["5H 5D 5C 9C 3D", "4S 6S 6D 10S 3S"], "5S")
    play(game, 0, c("5H"))
    assert legal(game) == ["5C", "5D", "pass"]
    play(game, 0, c("5C"), c("5D"), PASS)
    assert game.turn == 1
    assert hand_of(game, 0) == "9C 3D"
    plain = stacked(TAKE_TWO, 2, ["5H 5D 5C 9C 3D", "4S 6S 6D 10S 3S"], "5S")
    play(plain, 0, c("5H"))
    assert plain.turn == 1


def test_variant_each_card_matches_the_one_before_and_no_finish_with_several() -> None:
    """000 (Black Jack variants): 'Multiple cards can be placed on a single turn, where each
    card matches the previous card in rank or suit. There is no limit to the number of cards
    which can be played, but the player may not finish by placing more than one card.'"""
    rules = with_play(BLACKJACK, follow="chain", finish_multi_card=False)
    game = stacked(sized(rules, 6), 2, ["9H 9C 5C 5D 3D 6S", "4S 4D 6D 10S 3S 10C"], "4H")
    play(game, 0, c("9H"))
    assert legal(game) == ["9C", "pass"]
    play(game, 0, c("9C"), c("5C"), c("5D"))
    assert legal(game) == ["3D", "pass", "call last"]
    play(game, 0, c("3D"), PASS)
    assert game.turn == 1
    assert hand_of(game, 0) == "6S"
    last = stacked(sized(rules, 2), 2, ["9H 9C", "4S 4D"], "4H")
    play(last, 0, c("9H"))
    assert legal(last) == ["pass", "call last"]
    assert rejected(last, 0, c("9C")) is Reason.CANNOT_FINISH_MULTI


def test_variant_runs_within_a_suit_mixed_with_same_rank_switches() -> None:
    """000 (Black Jack variants): 'Runs within a suit are sometimes allowed (in both ascending
    and descending order), for example with a top card of 6 of clubs it would be possible to
    play the 6, 7, 8, and 9 of diamonds'"""
    rules = with_play(BLACKJACK, follow="runs_and_sets")
    game = stacked(sized(rules, 5), 2, ["6D 7D 8D 9D 3S", "4S 4H 6H 10S 3H"], "6C")
    play(game, 0, c("6D"), c("7D"), c("8D"), c("9D"), PASS)
    assert hand_of(game, 0) == "3S"
    assert game.top == c("9D")


J28_EXAMPLE = "6D 6H 6S 7S 8S 9S 10S JS JC 10C 9C"


def test_j28_runs_and_sets_the_seeds_turn_on_the_six_of_clubs() -> None:
    """000 (Black Jack variants and J28 runs): 'with the 6 of clubs on top, it would be possible
    to play 6D, 6H, 6S, 7S, 8S, 9S, 10S, JS, JC, 10C, 9C in a single turn'; 000 (J28): 'The
    player may lay a combination of the two above'"""
    game = stacked(
        sized(J28, 12), 2, [J28_EXAMPLE + " 3D", "4C 5C 7C QC KC 2D 4D 5D 7D 8D 9D QD"], "6C"
    )
    assert game.turn == 0
    for card in J28_EXAMPLE.split():
        assert card in legal(game), (card, legal(game))
        play(game, 0, c(card))
        if game.phase == Phase.NAME_SUIT:  # the Jacks are wild: name the suit going on
            play(game, 0, suit(CLUBS))
        assert game.turn == 0
    assert hand_of(game, 0) == "3D"
    play(game, 0, CALL_LAST, PASS)
    # The 8♠ in the run leaves the next player an 8 to answer or a turn to miss.
    view = game.view(1)
    assert game.turn == 1
    assert (view.pending_kind, view.pending_amount) == ("skip", 1)
    assert legal(game) == ["8D", "pass"]


def test_j28_a_set_then_a_run_on_the_ten_of_hearts() -> None:
    """003 (J28): 'Sobre un 10 de corazones, un jugador puede colocar: 9 de corazones, 9 de
    espadas, 8 de espadas, 7 de espadas y 7 de tréboles'; 000 (J28): 'The run must not skip
    numbers, and must be of the same suit as each other and the card they are being laid
    upon'"""
    game = stacked(sized(J28, 6), 2, ["9H 9S 8S 7S 7C 5S", "4C 5C 3C QC KC 2D"], "10H")
    for card in ("9H", "9S", "8S", "7S", "7C"):
        assert card in legal(game)
        play(game, 0, c(card))
    assert "5S" not in legal(game)  # a run may not skip a number
    assert rejected(game, 0, c("5S")) is Reason.DOES_NOT_FOLLOW


# =============================================================================================
# Calls and penalties


def test_a_missed_last_card_call_costs_one_card() -> None:
    """000: 'Should a player who has graduated to last card fail to call before the end of the
    turn in which they reach last card ... he may be penalised, often to the cost of picking up
    one card immediately'"""
    game = stacked(sized(SWITCH, 2), 2, ["5H 6C", "9C 9D"], "4H", "KS")
    play(game, 0, c("5H"))
    assert game.turn == 0
    assert legal(game) == ["pass", "call last"]
    events = play(game, 0, PASS)
    assert kinds(events, "penalty", "draw") == [("penalty", 0, "1"), ("draw", 0, "KS")]
    assert game.counts[0] == 2
    assert game.turn == 1


def test_a_called_last_card_is_not_penalised() -> None:
    """000: 'When a player has only one remaining card they must remember to call last card
    (by saying last card aloud) before their turn has ended'"""
    game = stacked(sized(SWITCH, 2), 2, ["5H 6C", "9C 9D"], "4H")
    play(game, 0, c("5H"), CALL_LAST, PASS)
    assert game.counts[0] == 1
    assert game.view(1).declared[0]
    early = stacked(sized(SWITCH, 2), 2, ["5H 6C", "9C 9D"], "4H")
    assert "call last" in legal(early)
    play(early, 0, CALL_LAST, c("5H"))
    assert early.turn == 1
    assert early.counts[0] == 1


def test_irish_a_missed_last_card_call_costs_two_cards() -> None:
    """001: 'they may be penalised, often to the cost of picking up two card's immediately'"""
    game = stacked(sized(IRISH, 2), 2, ["5H 6C", "9C 9D"], "4H")
    play(game, 0, c("5H"), PASS)
    assert game.counts[0] == 3


def test_turbo_switch_a_missed_last_card_call_costs_five_cards() -> None:
    """000: 'If they do not, they must pick up another card (or 5 if playing Turbo Switch)'"""
    game = stacked(sized(TURBO, 2), 2, ["5H 6C", "9C 9D"], "4H")
    play(game, 0, c("5H"), PASS)
    assert game.counts[0] == 6


def test_two_four_jack_a_missed_last_card_call_costs_a_card_and_the_next_turn() -> None:
    """002: 'When a player plays a card such that he then only has one card remaining in his
    hand, he must immediately announce this by saying "Last Card". If they do not do this, they
    must then draw an additional card from the stock pile and miss his next turn.'"""
    hands = ["5H 6C", "9H 9C", "9S 10S"]
    game = stacked(sized(TFJ, 2), 3, hands, "3H")
    play(game, 0, c("5H"), PASS)
    assert game.counts[0] == 2
    assert game.view(1).missed[0] == 1
    play(game, 1, c("9H"), CALL_LAST, PASS)
    events = play(game, 2, c("9S"), CALL_LAST, PASS)
    assert ("miss", 0, 1) in events
    assert game.turn == 1


def test_blackjack_finishing_without_having_called_costs_two_cards() -> None:
    """000 (Black Jack): 'If the player places their last card, but failed to say "Last card"
    at the end of their previous turn, then they must pick up two cards from the remaining
    deck'"""
    game = stacked(sized(BLACKJACK, 2), 2, ["5H 9C", "9H 4S"], "4H")
    play(game, 0, c("5H"), PASS)  # no call: nothing yet
    assert game.counts[0] == 1
    play(game, 1, c("9H"), PASS)
    events = play(game, 0, c("9C"))
    assert ("penalty", 0, 1) in events
    assert not game.over
    assert game.counts[0] == 2
    assert game.top == c("9C")
    assert game.turn == 1
    called = stacked(sized(BLACKJACK, 2), 2, ["5H 9C", "9H 4S"], "4H")
    play(called, 0, c("5H"), CALL_LAST, PASS)
    play(called, 1, c("9H"), PASS)
    play(called, 0, c("9C"))
    assert called.result is not None
    assert called.result.placings == (0, 1)


def test_blackjack_cards_must_be_called_before_finishing_with_several() -> None:
    """000 (Black Jack): 'If you think that you can finish your cards in one turn you say
    "cards" If they fail to do so, there is a penalty (see Endgame)'; 003: 'debe recoger dos
    cartas del mazo restante (incluso si el jugador tenía varias cartas)'"""
    hands = ["3C 4C 5C 6C", "9H 4S 8D 10D"]
    silent = stacked(sized(BLACKJACK, 4), 2, hands, "3D")
    assert legal(silent) == ["3C", "call last"]  # 'cards' may be called with four cards
    play(silent, 0, c("3C"), PASS)
    play(silent, 1, DRAW)
    events = play(silent, 0, c("4C"), c("5C"), c("6C"))
    assert ("penalty", 0, 1) in events
    assert silent.counts[0] == 2
    assert not silent.over
    knocked = stacked(sized(BLACKJACK, 4), 2, hands, "3D")
    play(knocked, 0, CALL_LAST, c("3C"), PASS)
    play(knocked, 1, DRAW)
    play(knocked, 0, c("4C"), c("5C"), c("6C"))
    assert knocked.result is not None
    assert knocked.result.placings[0] == 0


def test_j28_last_card_must_be_called_on_the_previous_go() -> None:
    """000 (J28): 'On a player's last card, "last card" must be said on their previous go in
    order to allow them to lay the card on their last go'"""
    game = stacked(sized(J28, 2), 2, ["5H 9C", "9H 4S"], "4H")
    play(game, 0, c("5H"), PASS)
    assert game.counts[0] == 1
    assert not game.view(1).declared[0]
    play(game, 1, c("9H"), PASS)
    assert game.turn == 0
    assert legal(game) == ["draw", "call last"]
    assert rejected(game, 0, c("9C")) is Reason.NOT_CALLED
    called = stacked(sized(J28, 2), 2, ["5H 9C", "9H 4S"], "4H")
    play(called, 0, c("5H"), CALL_LAST, PASS)
    play(called, 1, c("9H"), PASS)
    assert "9C" in legal(called)
    play(called, 0, c("9C"))
    assert called.result is not None
    assert called.result.placings == (0, 1)


def test_a_call_required_to_finish_needs_the_last_card_call() -> None:
    """000 (J28): '"last card" must be said on their previous go in order to allow them to lay
    the card on their last go' - without the call itself, nobody could ever lay a last card"""
    with pytest.raises(RulesError, match=r"calls\.required_to_finish: needs calls\.last_card"):
        rules_from_mapping({"base": "j28", "calls": {"last_card": False}})
    # Built around the validator, the engine ignores the requirement rather than stall.
    loose = replace(J28, calls=replace(J28.calls, last_card=False))
    game = stacked(sized(loose, 2), 2, ["5H 9C", "9H 4S"], "4H")
    play(game, 0, c("5H"))  # no call to make: the turn ends
    play(game, 1, c("9H"))
    assert legal(game) == ["9C"]


def test_j28_no_call_is_needed_to_finish_with_a_run_or_set() -> None:
    """000 (J28): 'One exception to this is if the player is able to end the game with a run or
    set of same value cards'"""
    game = stacked(sized(J28, 2), 2, ["5H 6H", "9C 4S"], "4H")
    play(game, 0, c("5H"))
    assert "6H" in legal(game)
    play(game, 0, c("6H"))
    assert game.result is not None
    assert game.result.placings == (0, 1)


def test_peanuckle_calls_at_two_cards_and_at_one() -> None:
    """000: 'In the variant known as Peanuckle, players with two cards remaining in their hand
    must say "peaknuckle" and a player with only one card must say "supper-peaknuckle". Failing
    to say either will result in the player picking up another card'"""
    game = stacked(sized(PEANUCKLE, 3), 2, ["5H 6H 9C", "9H 4S 4D"], "4H")
    play(game, 0, c("5H"))
    assert legal(game) == ["pass", "call last", "call peanuckle"]
    events = play(game, 0, PASS)
    assert ("penalty", 0, 2) in events
    assert game.counts[0] == 3
    called = stacked(sized(PEANUCKLE, 3), 2, ["5H 6H 9C", "9H 4S 4D"], "4H")
    play(called, 0, c("5H"), CALL_TWO, PASS)
    assert called.counts[0] == 2
    play(called, 1, c("9H"), CALL_TWO, PASS)
    play(called, 0, c("6H"))
    assert legal(called) == ["pass", "call last"]
    events = play(called, 0, PASS)
    assert ("penalty", 0, 1) in events
    assert called.counts[0] == 2


def test_variant_two_card_signalling_without_the_call_the_last_card_waits() -> None:
    """002 (Two card Signalling): 'If a player forgets to announce this, the player cannot play
    his last card on this turn and, depending on the variation, is usually penalized in some
    manner'"""
    rules = with_calls(TFJ, required_to_finish=True, penalty=0, miss_turn=False)
    game = stacked(sized(rules, 2), 2, ["5H 9C", "9H 4S"], "3H")
    play(game, 0, c("5H"), PASS)
    assert game.counts[0] == 1
    play(game, 1, c("9H"), CALL_LAST, PASS)
    assert game.turn == 0
    assert legal(game) == ["draw", "call last"]
    assert rejected(game, 0, c("9C")) is Reason.NOT_CALLED
    play(game, 0, DRAW)  # one card, and the turn is over: 9♣ stays in hand
    assert game.turn == 1
    assert game.counts[0] == 2
    assert "9C" in hand_of(game, 0)


# =============================================================================================
# Blunders


def test_blackjack_an_illegal_card_is_taken_back_and_costs_two_cards() -> None:
    """000 (Black Jack): 'If a player places an error by placing an illegal card down (... such
    as attempting to put a 7H on top of a 8S ...) then this is declared a "blunder" and the
    offending player must take back the card(s) they attempted to put down and pick up two
    more cards from the remaining deck as a penalty'"""
    game = stacked(sized(BLACKJACK, 5), 2, ["7H 3C 4C 6C 9C", "4D 5D 6D 10H 3H"], "8S", "KD QD")
    assert rejected(game, 0, c("7H")) is Reason.DOES_NOT_MATCH
    events = game.blunder(0, c("7H"))
    assert kinds(events) == [
        ("blunder", 0, str(c("7H"))),
        ("penalty", 0, "3"),
        ("draw", 0, "KD"),
        ("draw", 0, "QD"),
    ]
    assert "7H" in hand_of(game, 0)
    assert game.counts[0] == 7
    assert game.turn == 0
    assert game.top == c("8S")


def test_blackjack_playing_out_of_turn_is_a_blunder() -> None:
    """000 (Black Jack): 'or putting a card down a wrong time (when it is not their turn, this is
    an easy mistake to make such as forgetting that the previous player putting an eight down
    makes them skip their turn)'"""
    hands = ["8H 4C 6C 9C KC", "9H 3D 9D QS 5D", "4D 6D 10S 3C 5C"]
    game = stacked(sized(BLACKJACK, 5), 3, hands, "5H")
    play(game, 0, c("8H"))
    assert legal(game) == ["pass", "call last"]
    play(game, 1, PASS)
    assert rejected(game, 1, c("9H")) is Reason.NOT_YOUR_TURN
    game.blunder(1, c("9H"))
    assert game.counts[1] == 7
    assert game.turn == 2


def test_take_two_a_mistake_costs_two_cards() -> None:
    """003 (Toma dos): 'Si un jugador comete un error (por ejemplo, coloca una carta del palo
    equivocado hacia abajo), debe corregir el error y tomar dos cartas del mazo'"""
    game = stacked(TAKE_TWO, 2, ["7C 3C 4C 6C 9C", "4D 5D 6D 10H 3H"], "8S")
    game.blunder(0, c("7C"))
    assert game.counts[0] == 7
    assert "7C" in hand_of(game, 0)


def test_black5_any_mistake_costs_one_card() -> None:
    """000 (Black 5): 'Any mistake made by a player means he/she must pick a card'; 'If you ever
    have to ask is "it my go?!" you pick up a card'"""
    game = stacked(BLACK5, 2, ["7C 3C 4C 6C 9C", "4D 6D 10H 3H QS"], "8S")
    game.blunder(1, c("QS"))
    assert game.counts[1] == 6
    assert game.turn == 0


def test_a_legal_move_is_not_a_blunder_and_switch_charges_none() -> None:
    """RULES-INVENTORY: blunder penalties are Black Jack's and Take Two's 2 and Black 5's 1;
    000 (Switch) has none, an illegal card is simply not played"""
    game = stacked(sized(BLACKJACK, 5), 2, ["7H 3C 4C 6C 9S", "4D 5D 6D 10H 3H"], "8S")
    with pytest.raises(ValueError, match="legal"):
        game.blunder(0, c("9S"))
    plain = stacked(sized(SWITCH, 5), 2, ["7H 3C 4C 6C 9S", "4D 5D 6D 10H 3H"], "QS")
    events = plain.blunder(0, c("7H"))
    assert kinds(events) == [("blunder", 0, str(c("7H")))]
    assert plain.counts[0] == 5


# =============================================================================================
# Finishing restrictions


def test_switch_may_not_finish_on_an_ace_it_is_played_then_a_card_drawn() -> None:
    """000: 'If the last card is an Ace they must draw another card as a game can not end with
    an Ace Card'"""
    game = stacked(sized(SWITCH, 2), 2, ["5H AS", "9H 4S"], "4H", "KD QD")
    play(game, 0, c("5H"), CALL_LAST, PASS)
    play(game, 1, c("9H"), CALL_LAST, PASS)
    assert "AS" in legal(game)
    events = play(game, 0, c("AS"), suit(CLUBS))
    assert kinds(events, "penalty", "draw") == [("penalty", 0, "4"), ("draw", 0, "KD")]
    assert not game.over
    assert game.counts[0] == 1
    assert game.top == c("AS")
    assert game.turn == 1
    assert game.view(1).named_suit == CLUBS


def test_two_four_jack_may_finish_on_an_ace() -> None:
    """002: 'If the Ace played was the last card in the players hand, that player is the winner
    of that hand and the hand immediately ends and is scored'"""
    game = stacked(sized(TFJ, 2), 2, ["5H AS", "9H 4S"], "3H")
    play(game, 0, c("5H"), CALL_LAST, PASS)
    play(game, 1, c("9H"), CALL_LAST, PASS)
    play(game, 0, c("AS"), suit(CLUBS))
    assert game.result is not None
    assert game.result.placings == (0, 1)


@pytest.mark.parametrize(
    ("name", "card", "drawn"),
    [("irish", "2H", "QC"), ("irish", "KH", "QC"), ("take-two", "8H", "QC KC")],
)
def test_may_not_finish_on_a_trick_card(name: str, card: str, drawn: str) -> None:
    """001: 'A player cannot finish on a trick card. If their last card is a trick card they
    must pick up a card from the deck and cannot play the trick card'; 003 (Toma dos): 'Un
    jugador no puede terminar con una carta de truco. Si un jugador no puede terminar, debe
    tomar dos cartas del mazo.'"""
    game = stacked(sized(PRESETS[name], 2), 2, [f"5H {card}", "9H 4S"], "4H", "QC KC")
    play(game, 0, c("5H"), CALL_LAST, PASS)
    play(game, 1, c("9H"), CALL_LAST, PASS)
    assert legal(game) == ["draw", "call last"]
    assert rejected(game, 0, c(card)) is Reason.CANNOT_FINISH_ON
    events = play(game, 0, DRAW)
    # The turn ends with the card drawn (Irish draws until playable otherwise).
    assert [v for k, _, v in kinds(events, "draw")] == drawn.split()
    assert game.turn == 1
    assert card in hand_of(game, 0)


@pytest.mark.parametrize("card", ["JH", "2H", "8H"])
def test_j28_may_not_finish_on_a_jack_two_or_eight(card: str) -> None:
    """000 (J28): 'The game cannot end on a Jack of any suit, 2 of any suit or 8 of any
    suit'"""
    game = stacked(sized(J28, 2), 2, [f"5H {card}", "9H 4S"], "4H", "QC")
    play(game, 0, c("5H"), CALL_LAST, PASS)
    play(game, 1, c("9H"), CALL_LAST, PASS)
    assert legal(game) == ["draw", "call last"]
    assert rejected(game, 0, c(card)) is Reason.CANNOT_FINISH_ON
    ok = stacked(sized(J28, 2), 2, ["5H 3H", "9H 4S"], "4H")
    play(ok, 0, c("5H"), CALL_LAST, PASS)
    play(ok, 1, c("9H"), CALL_LAST, PASS)
    play(ok, 0, c("3H"))
    assert ok.over


# =============================================================================================
# Scoring


def test_two_four_jack_the_winner_scores_the_cards_left_in_the_others_hands() -> None:
    """002: 'The player winning the hand then collects points from all the other players based
    on the cards remaining in their hands: Ace 20; 2, 4, Jack 15; King, Queen 10; All other
    numbered cards Face Value of Card'"""
    game = stacked(sized(TFJ, 3), 2, ["2H 4H 9H", "2S 4S KD"], "5H", "AC JC QS 3D 5C 10S")
    play(game, 0, c("2H"), PASS)
    play(game, 1, DRAW)  # takes 2 rather than answer
    play(game, 0, c("4H"), CALL_LAST, PASS)
    play(game, 1, DRAW)  # takes 4
    play(game, 0, c("9H"))
    result = game.result
    assert result is not None
    assert result.placings == (0, 1)
    assert hand_of(game, 1) == "AC 5C JC 3D KD 2S 4S 10S QS"
    assert result.hand_points == (0, 15 + 15 + 10 + 20 + 15 + 10 + 3 + 5 + 10)
    assert result.scores == (103, 0)
    assert TFJ.scoring.target == 500


def test_black5_each_player_scores_the_cards_left_in_their_own_hand() -> None:
    """000 (Black 5): 'At the end of the game there is a count to see how many points the cards
    add up to in your hand and this will be noted to see when you shall be eliminated - which
    is dependant on the amount of points that are set pre the start of the game (usually
    301)'"""
    game = stacked(sized(BLACK5, 2), 2, ["5H 9H", "KC QS"], "4H", "AD")
    play(game, 0, c("5H"))
    play(game, 1, DRAW)
    play(game, 0, c("9H"))
    result = game.result
    assert result is not None
    assert result.placings == (0, 1)
    assert hand_of(game, 1) == "KC AD QS"
    assert result.scores == (0, 10 + 1 + 10) == result.hand_points
    assert BLACK5.scoring.target == 301
    assert BLACK5.scoring.mode == "penalty"


def test_otherwise_each_hand_stands_alone() -> None:
    """RULES-INVENTORY: 'Otherwise each hand stands alone (placings if play continues until one
    is left)'"""
    game = stacked(sized(SWITCH, 2), 3, ["5H 9D", "5C KC", "5D 6D"], "5S")
    play(game, 0, CALL_LAST, c("5H"))
    play(game, 1, CALL_LAST, c("5C"))
    play(game, 2, CALL_LAST, c("5D"))
    play(game, 0, c("9D"))
    result = game.result
    assert result is not None
    assert result.scores == (0, 0, 0)
    assert result.placings == (0, 2, 1)  # 6♦ (6) scores lower than K♣ (10)
    assert result.hand_points == (0, 10, 6)
