"""Card ids, and card text both ways."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lanswitch.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    JOKER_BASE,
    MAX_CARD,
    RANK_NAMES,
    SPADES,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    CardError,
    card_id,
    colour,
    deck_cards,
    format_card,
    format_cards,
    is_joker,
    parse_card,
    parse_cards,
    parse_rank,
    parse_suit,
    rank,
    suit,
)

ORDINARY = range(JOKER_BASE)
JOKERS = range(JOKER_BASE, MAX_CARD)

# ---------------------------------------------------------------------------------------------
# Ids


def test_id_layout() -> None:
    assert (CLUBS, DIAMONDS, HEARTS, SPADES) == (0, 1, 2, 3)
    assert (JOKER_BASE, MAX_CARD) == (104, 108)
    for deck in range(2):
        for s in range(4):
            for r in range(13):
                c = card_id(r, s, deck)
                assert c == 52 * deck + 13 * s + r
                assert (rank(c), suit(c), is_joker(c)) == (r, s, False)
    for j, c in enumerate(JOKERS):
        assert c == 104 + j
        assert is_joker(c)
        assert (rank(c), suit(c), colour(c)) == (-1, -1, "")


def test_card_id_is_a_bijection_onto_the_ordinary_ids() -> None:
    ids = [card_id(r, s, d) for d in range(2) for s in range(4) for r in range(13)]
    assert sorted(ids) == list(ORDINARY)


@pytest.mark.parametrize(
    ("r", "s", "deck"), [(13, 0, 0), (-1, 0, 0), (0, 4, 0), (0, -1, 0), (0, 0, 2)]
)
def test_card_id_rejects_what_is_no_card(r: int, s: int, deck: int) -> None:
    with pytest.raises(CardError, match="no card with rank"):
        card_id(r, s, deck)


def test_colours() -> None:
    assert colour(parse_card("QH")) == colour(parse_card("2D")) == "red"
    assert colour(parse_card("QS")) == colour(parse_card("2C")) == "black"
    assert colour(parse_card("JOKER")) == ""


def test_deck_cards() -> None:
    assert deck_cards(1, 0) == list(range(52))
    assert deck_cards(2, 0) == list(range(104))
    assert deck_cards(1, 2) == [*range(52), 104, 105]
    assert deck_cards(2, 4) == list(range(MAX_CARD))
    with pytest.raises(CardError, match=r"decks must be 1\.\.2, not 3"):
        deck_cards(3, 0)
    with pytest.raises(CardError, match=r"decks must be 1\.\.2, not 0"):
        deck_cards(0, 0)
    with pytest.raises(CardError, match=r"jokers must be 0\.\.4, not 5"):
        deck_cards(1, 5)


# ---------------------------------------------------------------------------------------------
# Text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10H", card_id(9, HEARTS)),
        ("10♥", card_id(9, HEARTS)),
        ("QS", card_id(11, SPADES)),
        ("Q♠", card_id(11, SPADES)),
        ("qs", card_id(11, SPADES)),
        ("  AC ", card_id(0, CLUBS)),
        ("a♣", card_id(0, CLUBS)),
        ("2D", card_id(1, DIAMONDS)),
        ("KD", card_id(12, DIAMONDS)),
        ("1H", card_id(0, HEARTS)),  # 1 is an ace
        ("TS", card_id(9, SPADES)),  # T is a ten
        ("11C", card_id(10, CLUBS)),  # 11 is a jack
        ("JOKER", 104),
        ("joker", 104),
        ("JOKER1", 104),
        ("JOKER2", 105),
        ("JOKER3", 106),
        ("JOKER4", 107),
    ],
)
def test_parse_card(text: str, expected: int) -> None:
    assert parse_card(text) == expected


def test_parse_card_takes_the_deck_it_is_told() -> None:
    assert parse_card("10H", deck=1) == card_id(9, HEARTS, 1) == 52 + 26 + 9
    assert parse_card("JOKER2", deck=1) == 105  # jokers belong to no deck


def test_format_card() -> None:
    assert format_card(card_id(9, HEARTS)) == "10H"
    assert format_card(card_id(9, HEARTS), symbols=True) == "10♥"
    assert format_card(card_id(11, SPADES, 1)) == "QS"
    assert format_card(card_id(0, CLUBS), symbols=True) == "A♣"
    for c in JOKERS:
        assert format_card(c) == format_card(c, symbols=True) == "JOKER"
    assert format_cards([0, 51, 104], symbols=True) == "A♣ K♠ JOKER"
    assert format_cards([]) == ""


@pytest.mark.parametrize("bad", [-1, MAX_CARD, 1000])
def test_format_card_rejects_bad_ids(bad: int) -> None:
    with pytest.raises(CardError, match=f"no card has id {bad}"):
        format_card(bad)


@pytest.mark.parametrize("symbols", [False, True])
def test_every_id_round_trips_through_text(symbols: bool) -> None:
    for c in ORDINARY:
        text = format_card(c, symbols=symbols)
        assert text == RANK_NAMES[c % 13] + (SUIT_SYMBOLS if symbols else SUIT_LETTERS)[suit(c)]
        assert parse_card(text, deck=c // 52) == c
        assert parse_card(text.lower(), deck=c // 52) == c
        assert parse_card(f"  {text}\t", deck=c // 52) == c
    for j, c in enumerate(JOKERS):
        assert parse_card(format_card(c, symbols=symbols)) == JOKER_BASE  # "JOKER": the first
        assert parse_card(f"JOKER{j + 1}") == c


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("", "empty card"),
        ("   ", "empty card"),
        ("ZH", r"'ZH' is not a card \(try 10H, 10♥, QS, JOKER\)"),
        ("10X", r"'10X' is not a card \(try 10H"),
        ("10", r"'10' is not a card \(try 10H"),
        ("H", r"'H' is not a card \(try 10H"),
        ("14H", r"'14H' is not a card"),
        ("0H", r"'0H' is not a card"),
        ("10HH", r"'10HH' is not a card"),
        ("♥10", r"'♥10' is not a card"),
        ("JOKER0", r"'JOKER0' is not a card \(jokers are JOKER, JOKER2 … JOKER4\)"),
        ("JOKER5", r"'JOKER5' is not a card \(jokers are JOKER, JOKER2 … JOKER4\)"),
        ("JOKERS", r"'JOKERS' is not a card \(jokers are"),
        ("JOKER-1", r"'JOKER-1' is not a card \(jokers are"),
    ],
)
def test_bad_card_text_says_what_would_do(bad: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        parse_card(bad)


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("A", 0), ("1", 0), ("10", 9), ("T", 9), ("t", 9), ("J", 10), ("11", 10), (" k ", 12)],
)
def test_parse_rank(text: str, expected: int) -> None:
    assert parse_rank(text) == expected


@pytest.mark.parametrize("bad", ["", "0", "14", "X", "AA", "joker"])
def test_parse_rank_rejects(bad: str) -> None:
    with pytest.raises(CardError, match=r"is not a rank \(A 2 3 4 5 6 7 8 9 10 J Q K\)"):
        parse_rank(bad)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("C", CLUBS),
        ("d", DIAMONDS),
        ("♥", HEARTS),
        ("♠", SPADES),
        ("hearts", HEARTS),
        ("Heart", HEARTS),
        ("SPADES", SPADES),
        ("club", CLUBS),
        (" diamonds ", DIAMONDS),
    ],
)
def test_parse_suit(text: str, expected: int) -> None:
    assert parse_suit(text) == expected


@pytest.mark.parametrize("bad", ["", "X", "♡", "heartz", "CD"])
def test_parse_suit_rejects(bad: str) -> None:
    with pytest.raises(CardError, match=r"is not a suit \(C D H S, ♣ ♦ ♥ ♠, or its name\)"):
        parse_suit(bad)


# ---------------------------------------------------------------------------------------------
# Lists of cards


def test_parse_cards_repeats_take_the_second_decks_copy() -> None:
    qs0, qs1 = card_id(11, SPADES, 0), card_id(11, SPADES, 1)
    assert parse_cards("QS QS") == [qs0, qs1]
    assert parse_cards("QS, 10H,Q♠") == [qs0, card_id(9, HEARTS), qs1]
    assert parse_cards("qs Q♠ 10H 10♥") == [qs0, qs1, 35, 87]
    assert parse_cards("") == []
    assert parse_cards(" , ,") == []


def test_parse_cards_a_third_copy_is_an_error() -> None:
    with pytest.raises(CardError, match="'QS' appears more than 2 times"):
        parse_cards("QS QS QS")


def test_parse_cards_jokers() -> None:
    assert parse_cards("JOKER JOKER") == [104, 105]
    assert parse_cards("JOKER2 JOKER") == [105, 104]
    assert parse_cards("JOKER JOKER JOKER JOKER") == [104, 105, 106, 107]
    with pytest.raises(CardError, match="more than 4 jokers"):
        parse_cards("JOKER JOKER JOKER JOKER JOKER")
    with pytest.raises(CardError, match="more than 4 jokers"):
        parse_cards("JOKER4 JOKER4")


def test_parse_cards_reports_the_bad_word() -> None:
    with pytest.raises(CardError, match="'XX' is not a card"):
        parse_cards("QS XX 10H")


@given(
    st.lists(st.sampled_from(range(MAX_CARD)), unique=True, max_size=40),
    st.booleans(),
)
def test_format_then_parse_cards(cards: list[int], symbols: bool) -> None:
    """Text does not say which deck a card is from: the k-th copy of a face parses as deck k,
    the k-th joker as joker k."""
    seen: dict[int, int] = {}
    jokers = 0
    expected = []
    for c in cards:
        if c >= JOKER_BASE:
            expected.append(JOKER_BASE + jokers)
            jokers += 1
        else:
            k = seen.get(c % 52, 0)
            seen[c % 52] = k + 1
            expected.append(52 * k + c % 52)
    assert parse_cards(format_cards(cards, symbols=symbols)) == expected
