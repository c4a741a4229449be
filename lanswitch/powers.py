"""The power cards in a player's words, made from the rule rows (:class:`~lanswitch.rules.Power`).

One vocabulary for two places: the help's card of the table's power cards (:func:`power_card`,
one line per row: "Q: must be covered by a card of its suit in the same turn, or its player
draws a card") and the game log's explanation of each effect as it happens
(:mod:`lanswitch.narrate` uses :func:`cards_words` and :func:`effect_words`). Pure: no I/O.

Theory of operation
-------------------
A power row is a set of fields, each one effect (``pickup``, ``skip``, ``cover`` …). Every
field of :class:`~lanswitch.rules.Power` is either one of :data:`EFFECT_FIELDS`, which
:func:`effect_words` turns into a clause, or one that only names the row or qualifies another
field (:data:`QUALIFIERS`: ``adds`` qualifies ``stacks_on``, ``cancel`` qualifies ``cancels``).
A row is explained by the clauses of the fields it sets, in :data:`EFFECT_FIELDS` order, so a
new row made of known fields needs no new words, and a new field that has none fails
``tests/test_powers.py`` until it has them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .cards import (
    JOKER_BASE,
    MAX_CARD,
    RANK_NAMES,
    SUIT_NAMES,
    CardError,
    format_card,
    parse_card,
    parse_rank,
    parse_suit,
)
from .rules import Power, RuleSet

__all__ = [
    "EFFECT_FIELDS",
    "QUALIFIERS",
    "calls_words",
    "cards_words",
    "effect_words",
    "power_card",
    "predicate_words",
    "row_words",
    "rows_cards_words",
]

EFFECT_FIELDS: Final = (
    "pickup",
    "answer_only",
    "skip",
    "stacks_on",
    "cancels",
    "returns",
    "reverse",
    "wild",
    "names_suit",
    "continue_in_suit",
    "again",
    "follow_suit",
    "cover",
    "run",
    "together",
    "mimic",
)
"""The fields of a power row that are an effect of their own, in the order a row's clauses
are told."""

QUALIFIERS: Final = {
    "name": "",  # the row's name (used by other rows)
    "cards": "",  # which cards: told by cards_words
    "pickup_deal": "pickup",  # "pickup = 'deal'": told with the pick-up
    "adds": "stacks_on",  # whether stacking adds: told with stacks_on
    "cancel": "cancels",  # one card's worth or all: told with cancels
}
"""The fields that are not an effect of their own, and the field they are told with."""

_RANK_WORDS: Final = {0: "Ace", 10: "Jack", 11: "Queen", 12: "King"}


def _rank_words(rank: int) -> str:
    name = _RANK_WORDS.get(rank, RANK_NAMES[rank])
    article = "an" if name[0] in "A8" else "a"
    return f"{article} {name}"


def _card_words(card: int) -> str:
    if not 0 <= card < MAX_CARD:
        return "?"
    return "joker" if card >= JOKER_BASE else format_card(card, symbols=True)


def predicate_words(text: str) -> str:
    """A power row's card predicate (lanswitch/rules/table.py) as a reader says it: ``2`` → "a 2",
    ``black J`` → "a black Jack", ``KH`` → "K♥", ``*H`` → "any heart", ``joker`` → "a joker"."""
    t = " ".join(text.strip().split())
    low = t.lower()
    if low == "*":
        return "any card"
    if low in ("joker", "power"):
        return "a joker" if low == "joker" else "a power card"
    parts = low.split(" ")
    try:
        if len(parts) == 2 and parts[0] in ("red", "black"):
            return f"a {parts[0]} {_rank_words(parse_rank(parts[1])).split(' ', 1)[1]}"
        if len(parts) == 1 and parts[0] in ("red", "black"):
            return f"any {parts[0]} card"
        if t.startswith("*"):
            return f"any {SUIT_NAMES[parse_suit(t[1:])][:-1]}"
        try:
            return _rank_words(parse_rank(t))
        except CardError:
            return _card_words(parse_card(t) % 52)
    except CardError:
        return t


def _or(words: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def cards_words(row: Power) -> str:
    """The row's cards as a reader says them: "a 2", "a black Jack", "K♥ or Q♥"."""
    words: list[str] = []
    for p in row.cards:
        w = predicate_words(p)
        if w not in words:
            words.append(w)
    return _or(words)


def rows_cards_words(rules: RuleSet, names: Sequence[str]) -> str:
    """The cards of the named rows: "a 2 or a black Jack"."""
    words: list[str] = []
    for r in rules.power:
        if r.name in names:
            for p in r.cards:
                w = predicate_words(p)
                if w not in words:
                    words.append(w)
    return _or(words)


def _turns(n: int) -> str:
    return "a turn" if n == 1 else f"{n} turns"


def _amount(row: Power) -> str:
    return "as many cards as were dealt" if row.pickup_deal else str(row.pickup)


def _pending_of(rules: RuleSet, names: Sequence[str]) -> str:
    """What the named rows leave pending: "pick-up", "skip" or "pick-up or skip"."""
    rows = [r for r in rules.power if r.name in names]
    kinds = []
    if any(r.pickup or r.pickup_deal for r in rows):
        kinds.append("pick-up")
    if any(r.skip and not (r.pickup or r.pickup_deal) for r in rows):
        kinds.append("skip")
    return " or ".join(kinds) or "pick-up"


def effect_words(row: Power, field: str, rules: RuleSet) -> str:
    """The clause that tells what ``field`` of ``row`` does ("" where the row does not set
    it). Said of the card, in the present tense: "the next player picks up 2"."""
    if field == "pickup":
        if not (row.pickup or row.pickup_deal):
            return ""
        return f"the next player picks up {_amount(row)}"
    if field == "answer_only":
        return "only when laid on a pick-up" if row.answer_only else ""
    if field == "skip":
        return f"the next player misses {_turns(row.skip)}" if row.skip else ""
    if field == "stacks_on":
        if not row.stacks_on:
            return ""
        what = _pending_of(rules, row.stacks_on)
        on = rows_cards_words(rules, row.stacks_on)
        if not row.adds:
            return f"it passes on a {what} from {on}"
        return f"it adds to a {what} from {on}"
    if field == "cancels":
        if not row.cancels:
            return ""
        on = rows_cards_words(rules, row.cancels)
        if row.cancel == "all":
            return f"it cancels a pick-up from {on}"
        first = next(r for r in rules.power if r.name == row.cancels[0])
        return f"it cancels {_amount(first)} of a pick-up from {on}"
    if field == "returns":
        if not row.returns:
            return ""
        on = rows_cards_words(rules, row.returns)
        return f"it sends a pick-up from {on} back to whoever laid it"
    if field == "reverse":
        if not row.reverse:
            return ""
        if rules.play.reverse_with_two == "again":
            return "play changes direction (with two players: its player goes again)"
        return "play changes direction"
    if field == "wild":
        return "goes on any card" if row.wild else ""
    if field == "names_suit":
        return "its player names the suit to follow" if row.names_suit else ""
    if field == "continue_in_suit":
        if not row.continue_in_suit:
            return ""
        return "its player may go on in the same turn with cards of the suit named"
    if field == "again":
        return "its player plays again" if row.again else ""
    if field == "follow_suit":
        return "its player may lay more of its suit in the same turn" if row.follow_suit else ""
    if field == "cover":
        if row.cover == "none":
            return ""
        by = "a card of its suit" if row.cover == "suit" else "any card"
        return f"must be covered by {by} in the same turn, or its player draws a card"
    if field == "run":
        return "its player may lay any card of its suit, then go on in sequence" if row.run else ""
    if field == "together":
        return "several may be laid in one turn" if row.together else ""
    if field == "mimic":
        return "stands for any card its player names" if row.mimic else ""
    raise KeyError(field)


def row_words(row: Power, rules: RuleSet) -> list[str]:
    """Every clause of the row, in :data:`EFFECT_FIELDS` order."""
    return [w for f in EFFECT_FIELDS if (w := effect_words(row, f, rules))]


def power_card(rules: RuleSet) -> list[str]:
    """The table's power cards, one line per row: its cards and what they do.

    "a Queen: must be covered by a card of its suit in the same turn, or its player draws
    a card". Where two rows name one card (Irish: 2♥ and 2), the first owns it, as in the
    engine, so the rows are told in the table's order."""
    out: list[str] = []
    for row in rules.power:
        words = row_words(row, rules)
        out.append(f"{_capital(cards_words(row))}: " + ("; ".join(words) or "no effect"))
    return out


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def calls_words(rules: RuleSet) -> list[str]:
    """The table's calls in a player's words, one line each (the help's "Calls"), from the
    rules' ``calls`` row: when each is said, what missing it costs, and what ``LAST`` beside a
    player means. Empty where the rules have no calls."""
    calls = rules.calls
    n = calls.penalty
    cards = f"{n} card{'s' if n != 1 else ''}"
    costs = [f"you pick up {cards}"] if n else []
    if calls.miss_turn:
        costs.append("miss your next turn")
    cost = " and ".join(costs)
    out = []
    if calls.last_card and calls.timing == "on_finish":
        missed = f"you pick up {cards} instead of going out" if n else "you do not go out"
        out.append(
            'l calls last card — here a knock ("cards"): it counts on your next turn, when you '
            "may go out with any number of cards laid in one turn (a run); go out without "
            f"having called and {missed}. l is offered when the cards you hold could all go "
            "down in one turn. LAST beside a player: they knocked, and may go out on their "
            "next turn."
        )
    elif calls.last_card:
        said = (
            "l calls last card: say it in the turn that leaves you one card (it is offered from "
            "two cards down)"
        )
        said += f"; end that turn without it and {cost}." if cost else "."
        if calls.required_to_finish:
            said += " Your last card may be laid only if you called on your go before (else you "
            said += "draw a card instead)."
        out.append(said + " LAST beside a player: they called, and hold one card.")
    if calls.peanuckle:
        said = (
            "n calls peanuckle: say it in the turn that leaves you two cards (offered from three "
            "down)"
        )
        out.append(said + (f"; end that turn without it and {cost}." if cost else "."))
    return out
