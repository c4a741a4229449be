"""The rule table: every behaviour of every Switch system as data.

A :class:`RuleSet` is plain data in four sections plus a table of power cards:

``[deal]``     decks, hand size, jokers, starter card, first player, dealer rotation
``[play]``     drawing, forced play, reshuffle, multi-card turns, finishing restrictions …
``[calls]``    last card, peanuckle, and their penalties
``[scoring]``  how a hand is scored and when a match ends
``[[power]]``  one row per power card: which cards (a predicate) and what they do

Each option is described once, in :data:`OPTIONS` (and each power-row key in
:data:`POWER_KEYS`): the validator and the TOML printer (:mod:`.files`), the generated tables
in ``docs/rules.md`` and the help all read these rows. Power cards are rows, not code: the
engine (:mod:`lanswitch.game`) compiles the rows once into per-card lookup tables with
:func:`compile_predicate` and never asks "is this a 2?".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from ..cards import (
    JOKER_BASE,
    MAX_CARD,
    MAX_DECKS,
    MAX_JOKERS,
    CardError,
    colour,
    parse_card,
    parse_rank,
    parse_suit,
    rank,
    suit,
)
from ..errors import InvalidInput

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPTIONS",
    "POWER_KEYS",
    "Calls",
    "Deal",
    "Option",
    "Play",
    "Power",
    "RuleSet",
    "RulesError",
    "Scoring",
    "compile_predicate",
]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8


class RulesError(InvalidInput):
    """A rule set that cannot be used; the message names the source, the key and the fix."""


# --------------------------------------------------------------------------------------------
# The schema. Each option is described once, here; the loader, the TOML printer and the
# docs all read this table.


@dataclass(frozen=True, slots=True)
class Option:
    section: str
    key: str
    kind: str  # "bool" | "int" | "enum" | "by_players" | "predicates" | "points"
    help: str
    choices: tuple[str, ...] = ()
    lo: int = 0
    hi: int = 0


OPTIONS: Final[tuple[Option, ...]] = (
    Option("deal", "decks", "by_players", "French decks shuffled together", lo=1, hi=MAX_DECKS),
    Option("deal", "hand_size", "by_players", "cards dealt to each player", lo=1, hi=20),
    Option("deal", "jokers", "int", "jokers added to the deck", lo=0, hi=MAX_JOKERS),
    Option(
        "deal",
        "starter",
        "enum",
        "skip_power: turn cards until one is not a power card; any: the first card stands",
        choices=("skip_power", "any"),
    ),
    Option(
        "deal",
        "first_player",
        "enum",
        "who plays first: the player left of the dealer, play going clockwise, or the player "
        "right of the dealer, play going anticlockwise (the dealer plays last either way)",
        choices=("left", "right"),
    ),
    Option(
        "deal",
        "dealer_rotation",
        "enum",
        "clockwise: the deal passes left after each hand; fixed: the same dealer every hand",
        choices=("clockwise", "fixed"),
    ),
    Option(
        "play",
        "draw",
        "enum",
        "one: draw one, turn ends; one_then_play: draw one, then you may play; "
        "until_playable: draw until you can play; two: draw two, turn ends",
        choices=("one", "one_then_play", "until_playable", "two"),
    ),
    Option("play", "may_draw_instead", "bool", "a player may draw even when able to play"),
    Option(
        "play",
        "wild_exempt_from_forced_play",
        "bool",
        "when drawing instead is not allowed, holding only wild playable cards still lets you draw",
    ),
    Option(
        "play",
        "reshuffle",
        "bool",
        "true: an empty stock is rebuilt from the discard pile; false: who cannot play passes, "
        "and a full round of passes ends the hand",
    ),
    Option(
        "play",
        "follow",
        "enum",
        "multi-card turns: none; sets (same rank); suit_runs (same suit, next rank up or down); "
        "runs_and_sets (either, mixed); chain (each card matches the one before in suit or rank)",
        choices=("none", "sets", "suit_runs", "runs_and_sets", "chain"),
    ),
    Option("play", "wild_continues", "bool", "a wild card may continue a multi-card turn"),
    Option(
        "play",
        "reverse_with_two",
        "enum",
        "with two players left, a reverse gives the same player another turn (again) or not",
        choices=("again", "nothing"),
    ),
    Option(
        "play",
        "no_finish_on",
        "predicates",
        "cards a hand may not end on (card predicates; 'power' = any power card)",
    ),
    Option(
        "play",
        "no_finish_mode",
        "enum",
        "draw: the card is played, then its player draws one; forbid: it may not be played "
        "as the last card",
        choices=("draw", "forbid"),
    ),
    Option("play", "finish_multi_card", "bool", "a hand may end with a turn of several cards"),
    Option(
        "play",
        "play_until_one_left",
        "bool",
        "after the first player goes out, play on until one is left (placings)",
    ),
    Option(
        "play",
        "blunder_penalty",
        "int",
        "cards drawn for an illegal play or a play out of turn (0 = simply rejected)",
        lo=0,
        hi=5,
    ),
    Option(
        "play",
        "safety_limit",
        "int",
        "player actions after which a hand is stopped and scored (counted, never silent)",
        lo=100,
        hi=1_000_000,
    ),
    Option("calls", "last_card", "bool", "a player left with one card must call 'last card'"),
    Option("calls", "peanuckle", "bool", "a player left with two cards must call 'peanuckle'"),
    Option("calls", "penalty", "int", "cards drawn for a missed call", lo=0, hi=10),
    Option("calls", "miss_turn", "bool", "a missed call also costs the next turn"),
    Option(
        "calls",
        "timing",
        "enum",
        "turn_end: a missed call is punished when the turn ends; on_finish: when that player "
        "plays out without having called at the end of the previous turn (the card stays "
        "played); the call ('cards', knocking) may then also be made at the start of any turn",
        choices=("turn_end", "on_finish"),
    ),
    Option(
        "calls",
        "required_to_finish",
        "bool",
        "a player may not play a last single card without having called last card",
    ),
    Option(
        "scoring",
        "mode",
        "enum",
        "none: hands stand alone; winner_collects: the winner scores the cards left in the "
        "others' hands; penalty: each player scores the cards left in their own hand",
        choices=("none", "winner_collects", "penalty"),
    ),
    Option(
        "scoring",
        "target",
        "int",
        "winner_collects: first to reach it wins the match; penalty: reaching it puts a player "
        "out; 0: no target",
        lo=0,
        hi=1_000_000,
    ),
    Option("scoring", "card_points", "points", "points per rank (A 2 … K) and for a joker"),
    Option(
        "scoring",
        "void_warning",
        "int",
        "void hands in a match that the host caused or blamed on a player, on its word alone, "
        "at which every player is warned (and a headless player leaves): aborting is the host's "
        "one lever over the deal",
        lo=1,
        hi=1000,
    ),
    Option(
        "scoring",
        "void_limit",
        "int",
        "void or forfeited hands after which a match ends (a forfeited one counts as played)",
        lo=1,
        hi=1000,
    ),
)

POWER_KEYS: Final[dict[str, str]] = {
    "name": "unique name of the row, used by stacks_on, cancels and returns",
    "cards": "card predicate(s): 2, KH, 'black J', 'red 5', *H (any heart), joker",
    "pickup": "the next player picks up this many cards (or 'deal': the hand size dealt)",
    "stacks_on": "pending pick-ups or skips from these rows may be answered by this card, "
    "adding its own",
    "adds": "with stacks_on: true adds this card's pick-up or skip to the pending one; false "
    "passes the pending one on as it is (001's 7s: however many are laid, one turn is missed)",
    "cancels": "pending pick-ups from these rows may be answered by this card, which cancels them",
    "cancel": "one: cancel one card's worth; all: cancel the whole pending pick-up",
    "returns": "a pending pick-up from these rows goes back to the player who laid it",
    "answer_only": "the card's pick-up counts only when laid on a pending pick-up",
    "skip": "the next player misses this many turns (answerable if stacks_on is set)",
    "reverse": "the direction of play reverses",
    "wild": "may be laid on any card",
    "names_suit": "its player names the suit to follow",
    "continue_in_suit": "with names_suit: its player may go on in the same turn with any card "
    "of the suit named (J28's Jack; Black Jack's Ace 'with a run on top of it')",
    "again": "its player takes another turn",
    "follow_suit": "its player may go on to lay every card of its suit, in any order",
    "cover": "none, or its player must cover it in the same turn: suit (its suit) or any card",
    "run": "its player may lay any card of its suit, then continue in sequence (10-run)",
    "together": "several cards of this row may be laid in one turn",
    "mimic": "the card stands for any card its player names (joker)",
}


# --------------------------------------------------------------------------------------------
# The data classes.

ByPlayers = tuple[int, ...]  # index 0 = 2 players … index 6 = 8 players


@dataclass(frozen=True, slots=True)
class Deal:
    decks: ByPlayers = (1, 1, 1, 1, 2, 2, 2)
    hand_size: ByPlayers = (7,) * 7
    jokers: int = 0
    starter: str = "skip_power"
    first_player: str = "left"
    dealer_rotation: str = "clockwise"


@dataclass(frozen=True, slots=True)
class Play:
    draw: str = "until_playable"
    may_draw_instead: bool = False
    wild_exempt_from_forced_play: bool = False
    reshuffle: bool = True
    follow: str = "none"
    wild_continues: bool = False
    reverse_with_two: str = "again"
    no_finish_on: tuple[str, ...] = ()
    no_finish_mode: str = "draw"
    finish_multi_card: bool = True
    play_until_one_left: bool = False
    blunder_penalty: int = 0
    safety_limit: int = 5000


@dataclass(frozen=True, slots=True)
class Calls:
    last_card: bool = True
    peanuckle: bool = False
    penalty: int = 1
    miss_turn: bool = False
    timing: str = "turn_end"
    required_to_finish: bool = False


_FACE_POINTS: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 0)  # A..K, joker


@dataclass(frozen=True, slots=True)
class Scoring:
    mode: str = "none"
    target: int = 0
    card_points: tuple[int, ...] = _FACE_POINTS  # A..K then joker
    void_warning: int = 2
    void_limit: int = 6


@dataclass(frozen=True, slots=True)
class Power:
    """One row of the power-card table."""

    name: str
    cards: tuple[str, ...]
    pickup: int = 0
    pickup_deal: bool = False
    stacks_on: tuple[str, ...] = ()
    adds: bool = True
    cancels: tuple[str, ...] = ()
    cancel: str = "one"
    returns: tuple[str, ...] = ()
    answer_only: bool = False
    skip: int = 0
    reverse: bool = False
    wild: bool = False
    names_suit: bool = False
    continue_in_suit: bool = False
    again: bool = False
    follow_suit: bool = False
    cover: str = "none"
    run: bool = False
    together: bool = False
    mimic: bool = False


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A whole rule system. Immutable; build variants with :func:`dataclasses.replace`."""

    name: str = "switch"
    description: str = ""
    sources: tuple[str, ...] = ()
    deal: Deal = field(default_factory=Deal)
    play: Play = field(default_factory=Play)
    calls: Calls = field(default_factory=Calls)
    scoring: Scoring = field(default_factory=Scoring)
    power: tuple[Power, ...] = ()

    def decks_for(self, players: int) -> int:
        return self.deal.decks[_players_index(players)]

    def hand_size_for(self, players: int) -> int:
        return self.deal.hand_size[_players_index(players)]

    def deck_size_for(self, players: int) -> int:
        return 52 * self.decks_for(players) + self.deal.jokers

    def row(self, name: str) -> Power:
        for r in self.power:
            if r.name == name:
                return r
        raise KeyError(name)


def _players_index(players: int) -> int:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players}")
    return players - MIN_PLAYERS


# --------------------------------------------------------------------------------------------
# Card predicates: text → set of card ids (as a bitmask over all MAX_CARD ids).

_ALL_CARDS_MASK: Final = (1 << MAX_CARD) - 1


def compile_predicate(text: str, power_mask: int = 0) -> int:
    """The bitmask of the card ids a predicate names.

    Grammar: ``*`` any card; ``joker``; ``power`` (the cards of any power row, passed in as
    ``power_mask``); a rank (``2``, ``J``); an exact face (``KH``, ``A♠``); a suit (``*H``);
    a colour and a rank (``black J``, ``red 5``); a colour alone (``red``).
    """
    t = " ".join(text.strip().split())
    low = t.lower()
    if low == "*":
        return _ALL_CARDS_MASK
    if low == "joker":
        return _mask(c for c in range(JOKER_BASE, MAX_CARD))
    if low == "power":
        return power_mask
    ordinary = range(JOKER_BASE)
    parts = low.split(" ")
    if len(parts) == 2 and parts[0] in ("red", "black"):
        r = parse_rank(parts[1])
        return _mask(c for c in ordinary if colour(c) == parts[0] and rank(c) == r)
    if len(parts) == 1 and parts[0] in ("red", "black"):
        return _mask(c for c in ordinary if colour(c) == parts[0])
    if len(parts) != 1:
        raise CardError(f"{text!r} is not a card predicate")
    if t.startswith("*"):
        s = parse_suit(t[1:])
        return _mask(c for c in ordinary if suit(c) == s)
    try:
        r = parse_rank(t)
        return _mask(c for c in ordinary if rank(c) == r)
    except CardError:
        pass
    try:
        face = parse_card(t)
    except CardError:
        raise CardError(
            f"{text!r} is not a card predicate (try 2, KH, 'black J', 'red 5', *H, joker, power)"
        ) from None
    return _mask(c for c in ordinary if c % 52 == face % 52)


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m
