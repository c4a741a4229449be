"""Cards as small integers.

A card is an ``int`` with the id the fair-deal protocol uses (``protocol/SPEC.md``):

* ``52 * deck + 13 * suit + rank`` for the ordinary cards of deck 0 or 1, with suits
  C D H S = 0..3 and ranks A 2 3 4 5 6 7 8 9 10 J Q K = 0..12;
* ``104 + j`` for joker ``j`` (0..3), whatever the number of decks, so a card's id never
  depends on the table's setup.

Ints keep the engine fast (hands are bitmasks over these ids, see :mod:`lanswitch.game`) and
make the wire and the transcripts compact. This module turns them into text and back:
``10H``/``10♥``, ``QS``/``Q♠``, ``JOKER``. Two cards of the same face from different decks
print the same; the id tells them apart.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import InvalidInput

__all__ = [
    "CLUBS",
    "DIAMONDS",
    "HEARTS",
    "JOKER_BASE",
    "MAX_CARD",
    "MAX_DECKS",
    "MAX_JOKERS",
    "RANK_NAMES",
    "SPADES",
    "SUIT_LETTERS",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "CardError",
    "card_id",
    "colour",
    "deck_cards",
    "format_card",
    "format_cards",
    "is_joker",
    "parse_card",
    "parse_cards",
    "parse_rank",
    "parse_suit",
    "rank",
    "suit",
]

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

MAX_DECKS = 2
MAX_JOKERS = 4
JOKER_BASE = 52 * MAX_DECKS
MAX_CARD = JOKER_BASE + MAX_JOKERS  # exclusive upper bound of card ids

_SYMBOL_TO_SUIT = {s: i for i, s in enumerate(SUIT_SYMBOLS)}
_LETTER_TO_SUIT = {s: i for i, s in enumerate(SUIT_LETTERS)}
_RANK_ALIASES = {name: i for i, name in enumerate(RANK_NAMES)} | {"1": 0, "T": 9, "11": 10}


class CardError(InvalidInput):
    """A card text or id that does not name a card."""


def card_id(rank_: int, suit_: int, deck: int = 0) -> int:
    """The id of the card of ``rank_`` (0 = Ace … 12 = King) and ``suit_`` in ``deck``."""
    if not (0 <= rank_ < 13 and 0 <= suit_ < 4 and 0 <= deck < MAX_DECKS):
        raise CardError(f"no card with rank {rank_}, suit {suit_}, deck {deck}")
    return 52 * deck + 13 * suit_ + rank_


def is_joker(card: int) -> bool:
    return card >= JOKER_BASE


def rank(card: int) -> int:
    """Rank 0..12 (A..K); -1 for a joker."""
    return -1 if card >= JOKER_BASE else card % 13


def suit(card: int) -> int:
    """Suit 0..3 (C D H S); -1 for a joker."""
    return -1 if card >= JOKER_BASE else (card // 13) % 4


def colour(card: int) -> str:
    """``"red"`` for diamonds and hearts, ``"black"`` for clubs and spades, ``""`` for jokers."""
    s = suit(card)
    if s < 0:
        return ""
    return "red" if s in (DIAMONDS, HEARTS) else "black"


def deck_cards(decks: int, jokers: int) -> list[int]:
    """Every card id of a setup, sorted: ``decks`` French decks plus ``jokers`` jokers."""
    if not 1 <= decks <= MAX_DECKS:
        raise CardError(f"decks must be 1..{MAX_DECKS}, not {decks}")
    if not 0 <= jokers <= MAX_JOKERS:
        raise CardError(f"jokers must be 0..{MAX_JOKERS}, not {jokers}")
    return list(range(52 * decks)) + [JOKER_BASE + j for j in range(jokers)]


def format_card(card: int, *, symbols: bool = False) -> str:
    """``10H`` (or ``10♥`` with ``symbols``); ``JOKER`` for any joker."""
    if not 0 <= card < MAX_CARD:
        raise CardError(f"no card has id {card}")
    if card >= JOKER_BASE:
        return "JOKER"
    s = suit(card)
    return RANK_NAMES[card % 13] + (SUIT_SYMBOLS[s] if symbols else SUIT_LETTERS[s])


def format_cards(cards: Iterable[int], *, symbols: bool = False) -> str:
    return " ".join(format_card(c, symbols=symbols) for c in cards)


def parse_rank(text: str) -> int:
    """``"A"``, ``"10"``, ``"q"`` … → 0..12."""
    r = _RANK_ALIASES.get(text.strip().upper())
    if r is None:
        raise CardError(f"{text!r} is not a rank (A 2 3 4 5 6 7 8 9 10 J Q K)")
    return r


def parse_suit(text: str) -> int:
    """``"H"``, ``"♥"``, ``"hearts"`` … → 0..3."""
    t = text.strip()
    if t in _SYMBOL_TO_SUIT:
        return _SYMBOL_TO_SUIT[t]
    t = t.upper()
    if t in _LETTER_TO_SUIT:
        return _LETTER_TO_SUIT[t]
    for i, name in enumerate(SUIT_NAMES):
        if t.lower() in (name, name[:-1]):
            return i
    raise CardError(f"{text!r} is not a suit (C D H S, ♣ ♦ ♥ ♠, or its name)")


def parse_card(text: str, deck: int = 0) -> int:
    """Parse ``10H``, ``10♥``, ``qs``, ``Q♠``, ``JOKER`` (joker 0) or ``JOKER2`` (joker 1).

    The text does not say which deck a card comes from; ``deck`` picks it.
    """
    t = text.strip()
    if not t:
        raise CardError("empty card")
    up = t.upper()
    if up.startswith("JOKER"):
        n = up[5:]
        j = int(n) - 1 if n.isdigit() else 0 if not n else -1
        if not 0 <= j < MAX_JOKERS:
            raise CardError(f"{text!r} is not a card (jokers are JOKER, JOKER2 … JOKER4)")
        return JOKER_BASE + j
    try:
        return card_id(parse_rank(t[:-1]), parse_suit(t[-1]), deck)
    except CardError:
        raise CardError(f"{text!r} is not a card (try 10H, 10♥, QS, JOKER)") from None


def parse_cards(text: str) -> list[int]:
    """Parse space- or comma-separated cards; repeats of a face take the next deck's copy."""
    out: list[int] = []
    for word in text.replace(",", " ").split():
        card = parse_card(word)
        if card < JOKER_BASE and card in out:
            card = parse_card(word, deck=1)
            if card in out:
                raise CardError(f"{word!r} appears more than {MAX_DECKS} times")
        elif card >= JOKER_BASE:
            while card in out:
                card += 1
                if card >= MAX_CARD:
                    raise CardError(f"more than {MAX_JOKERS} jokers")
        out.append(card)
    return out
