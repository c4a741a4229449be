"""Stacked decks: deal a :class:`~lanswitch.game.Game` exactly the cards a test names.

The engine deals one card at a time clockwise from the dealer's left (``hand_size`` rounds),
then turns the starter; under ``deal.starter = "skip_power"`` it keeps turning while the
turned card is a power card. :func:`stacked` builds the one permutation of the deck whose
deal gives the named hands, starter(s) and stock, and feeds it to ``apply_chance``. Cards
nobody named follow the given stock in sorted order.

Card texts are those of :func:`lanswitch.cards.parse_card` (``"10H"``, ``"QS"``,
``"JOKER"``). A face named twice is the second deck's copy (only with two decks in play).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from lanswitch.cards import JOKER_BASE, MAX_CARD, format_card, format_cards, parse_card
from lanswitch.game import Event, Game, format_move
from lanswitch.rules import RuleSet

__all__ = [
    "c",
    "cs",
    "hand_of",
    "kinds",
    "legal",
    "play",
    "reshuffle",
    "sized",
    "stacked",
]

PAD = "..."


def c(text: str) -> int:
    """The id of one card of deck 0 (``"10H"`` → 35)."""
    return parse_card(text)


def cs(text: str) -> list[int]:
    """The ids of space-separated cards of deck 0, in the order given."""
    return [parse_card(w) for w in text.split()]


def sized(rules: RuleSet, hand_size: int) -> RuleSet:
    """``rules`` with every player count dealt ``hand_size`` cards (for short stacked hands)."""
    return replace(rules, deal=replace(rules.deal, hand_size=(hand_size,) * 7))


class _Picker:
    """Hands out card ids for texts, the second deck's copy for a face already taken."""

    def __init__(self, deck: Sequence[int]) -> None:
        self.deck = set(deck)
        self.used: set[int] = set()

    def take(self, text: str) -> int:
        card = parse_card(text)
        while card in self.used:
            if card >= JOKER_BASE:
                card += 1
                if card >= MAX_CARD:
                    raise ValueError(f"too many jokers named ({text})")
            else:
                card += 52
        if card not in self.deck:
            raise ValueError(f"{text} (id {card}) is not in this deck or is named too often")
        self.used.add(card)
        return card

    def take_all(self, text: str) -> list[int]:
        return [self.take(w) for w in text.split()]


def stacked(
    rules: RuleSet,
    players: int,
    hands: Sequence[str],
    starter: str,
    stock: str = "",
    *,
    dealer: int | None = None,
    out: Iterable[int] = (),
) -> Game:
    """A game dealt exactly ``hands`` (one text per seat, ``""`` for seats sitting out).

    ``starter`` is the turned card; under ``starter = "skip_power"`` it may be several cards,
    every one but the last a power card, turned in that order. ``stock`` is the stock after
    the deal, top first. ``dealer`` defaults to the last seat, so that seat 0 is dealt first
    (and, with ``first_player = "left"``, plays first).

    A hand may end with ``...``: it is padded to the hand size with the lowest cards nobody
    named (hands padded in seat order, after the starter and the stock are set aside). The
    deal is checked against the request after it is applied.
    """
    if dealer is None:
        dealer = players - 1
    game = Game(rules, players, dealer=dealer, out=out)
    if len(hands) != players:
        raise ValueError(f"give one hand per seat ({players}), not {len(hands)}")
    picker = _Picker(game.deck)
    words = [h.split() for h in hands]
    pads = [bool(w) and w[-1] == PAD for w in words]
    dealt = {
        seat: picker.take_all(" ".join(w[:-1] if pads[seat] else w)) for seat, w in enumerate(words)
    }
    turned = picker.take_all(starter)
    top_first = picker.take_all(stock)
    seats = [s for s in _clockwise_from_left(players, dealer) if game.active[s]]
    for seat in range(players):
        want = game.hand_size if seat in seats else 0
        if pads[seat]:
            spare = sorted(set(game.deck) - picker.used)
            extra = spare[: max(0, want - len(dealt[seat]))]
            picker.used.update(extra)
            dealt[seat] += extra
        if len(dealt[seat]) != want:
            raise ValueError(f"seat {seat} must be dealt {want} cards, not {len(dealt[seat])}")
    power = game.t.power_mask
    if rules.deal.starter == "skip_power":
        *skipped, last = turned
        if any(not (power >> x) & 1 for x in skipped) or (power >> last) & 1:
            raise ValueError(f"{starter}: every turned card but the last must be a power card")
    elif len(turned) != 1:
        raise ValueError('deal.starter = "any" turns exactly one card')
    rest = sorted(set(game.deck) - picker.used)
    order: list[int] = []
    for r in range(game.hand_size):
        order += [dealt[seat][r] for seat in seats]
    order += turned + top_first + rest
    game.apply_chance(order)
    for seat in seats:
        assert game.hand(seat) == sorted(dealt[seat]), (seat, format_cards(game.hand(seat)))
    assert game.discard == turned
    assert game.stock[::-1][: len(top_first)] == top_first
    return game


def _clockwise_from_left(players: int, dealer: int) -> list[int]:
    return [(dealer + k) % players for k in range(1, players + 1)]


def reshuffle(game: Game, top_first: str = "") -> list[Event]:
    """Answer a pending reshuffle: ``top_first`` on top, the other cards in sorted order."""
    req = game.chance_request()
    if req is None or req[0] != "reshuffle":
        raise ValueError(f"no reshuffle is awaited (request: {req})")
    pool = list(req[1])
    head: list[int] = []
    for w in top_first.split():
        face = parse_card(w)
        match = next((x for x in pool if x == face or (x < JOKER_BASE and x % 52 == face)), None)
        if match is None:
            raise ValueError(f"{w} is not in the discard pile being reshuffled")
        pool.remove(match)
        head.append(match)
    return game.apply_chance(head + pool)


def play(game: Game, seat: int, *moves: int) -> list[Event]:
    """Apply several moves of one seat; all their events."""
    out: list[Event] = []
    for m in moves:
        out += game.apply(seat, m)
    return out


def legal(game: Game) -> list[str]:
    """The legal moves of the seat to act, as text (``"5C"``, ``"draw"``, ``"suit H"``)."""
    return [format_move(m) for m in game.legal_moves()]


def hand_of(game: Game, seat: int) -> str:
    """A seat's hand as sorted card texts."""
    return format_cards(game.hand(seat))


def kinds(events: Iterable[Event], *wanted: str) -> list[tuple[str, int, str]]:
    """Events of the given kinds with card values spelled out (``("play", 1, "2H")``)."""
    out = []
    for kind, seat, value in events:
        if wanted and kind not in wanted:
            continue
        text = format_card(value) if kind in ("play", "draw", "deal", "starter") else str(value)
        out.append((kind, seat, text))
    return out
