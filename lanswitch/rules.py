"""Rule sets: every behaviour of every Switch system as data.

A :class:`RuleSet` is plain data in four sections plus a table of power cards:

``[deal]``     decks, hand size, jokers, starter card, first player, dealer rotation
``[play]``     drawing, forced play, reshuffle, multi-card turns, finishing restrictions …
``[calls]``    last card, peanuckle, and their penalties
``[scoring]``  how a hand is scored and when a match ends
``[[power]]``  one row per power card: which cards (a predicate) and what they do

Power cards are rows, not code: the engine (:mod:`lanswitch.game`) compiles the rows once
into per-card lookup tables and never asks "is this a 2?". The same schema is used for the
built-in presets (:data:`PRESETS`), for ``lanswitch rules NAME`` (which prints a preset as a
loadable TOML file) and for house-rules files, so all three are checked by one validator.
A bad file fails with a :class:`RulesError` that names the file, the key and what is allowed.

Which seed text each preset follows, and every choice made where the seeds disagree, is in
``docs/rules.md``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Final

from .cards import (
    JOKER_BASE,
    MAX_CARD,
    MAX_DECKS,
    MAX_JOKERS,
    RANK_NAMES,
    CardError,
    colour,
    parse_card,
    parse_rank,
    parse_suit,
    rank,
    suit,
)

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPTIONS",
    "POWER_KEYS",
    "PRESETS",
    "Calls",
    "Deal",
    "Option",
    "Play",
    "Power",
    "RuleSet",
    "RulesError",
    "Scoring",
    "compile_predicate",
    "dump_toml",
    "load_rules",
    "preset",
    "rules_from_mapping",
]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8


class RulesError(ValueError):
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


# --------------------------------------------------------------------------------------------
# Building rule sets from mappings (TOML files and the presets use the same path).

_SECTION_CLASSES: Final = {"deal": Deal, "play": Play, "calls": Calls, "scoring": Scoring}
_TOP_KEYS: Final = ("base", "name", "description", "sources", "power", *_SECTION_CLASSES)


def _err(source: str, key: str, msg: str) -> RulesError:
    return RulesError(f"{source}: {key}: {msg}")


def _check_bool(source: str, key: str, v: object) -> bool:
    if not isinstance(v, bool):
        raise _err(source, key, f"must be true or false, not {v!r}")
    return v


def _check_int(source: str, key: str, v: object, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _err(source, key, f"must be a whole number from {lo} to {hi}, not {v!r}")
    return v


def _check_enum(source: str, key: str, v: object, choices: Sequence[str]) -> str:
    if v not in choices:
        raise _err(source, key, f"must be one of {', '.join(map(repr, choices))}, not {v!r}")
    assert isinstance(v, str)
    return v


def _check_str_list(source: str, key: str, v: object) -> tuple[str, ...]:
    if isinstance(v, str):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _err(source, key, f"must be a string or a list of strings, not {v!r}")
    return tuple(v)


def _check_by_players(source: str, key: str, v: object, lo: int, hi: int) -> ByPlayers:
    """``7`` or ``{2 = 9, 5 = 7}`` (the value from that many players up) → one per count."""
    if isinstance(v, int) and not isinstance(v, bool):
        n = _check_int(source, key, v, lo, hi)
        return (n,) * (MAX_PLAYERS - MIN_PLAYERS + 1)
    if not isinstance(v, dict) or not v:
        raise _err(source, key, f"must be a number or a table like {{ 2 = 9, 5 = 7 }}, not {v!r}")
    steps: dict[int, int] = {}
    for k, n in v.items():
        if not (isinstance(k, str) and k.isdigit() and MIN_PLAYERS <= int(k) <= MAX_PLAYERS):
            raise _err(
                source,
                f"{key}.{k}",
                f"keys are player counts {MIN_PLAYERS}..{MAX_PLAYERS} (the value holds from "
                "that many players up)",
            )
        steps[int(k)] = _check_int(source, f"{key}.{k}", n, lo, hi)
    if MIN_PLAYERS not in steps:
        raise _err(source, key, f"the table must start at {MIN_PLAYERS} players")
    out = []
    current = steps[MIN_PLAYERS]
    for p in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        current = steps.get(p, current)
        out.append(current)
    return tuple(out)


def _check_points(source: str, key: str, v: object) -> tuple[int, ...]:
    if not isinstance(v, dict):
        raise _err(source, key, f"must be a table like {{ A = 20, 2 = 15 }}, not {v!r}")
    points = list(_FACE_POINTS)
    for k, n in v.items():
        if str(k).lower() == "joker":
            idx = 13
        else:
            try:
                idx = parse_rank(str(k))
            except CardError:
                raise _err(
                    source, f"{key}.{k}", "keys are ranks A 2 3 4 5 6 7 8 9 10 J Q K or joker"
                ) from None
        points[idx] = _check_int(source, f"{key}.{k}", n, 0, 1000)
    return tuple(points)


def _section(source: str, name: str, data: object, base: Any) -> Any:
    if not isinstance(data, dict):
        raise _err(source, name, f"must be a table ([{name}]), not {data!r}")
    opts = {o.key: o for o in OPTIONS if o.section == name}
    values: dict[str, object] = {}
    for key, v in data.items():
        opt = opts.get(key)
        full = f"{name}.{key}"
        if opt is None:
            raise _err(source, full, f"unknown key; [{name}] takes {', '.join(opts)}")
        if opt.kind == "bool":
            values[key] = _check_bool(source, full, v)
        elif opt.kind == "int":
            values[key] = _check_int(source, full, v, opt.lo, opt.hi)
        elif opt.kind == "enum":
            values[key] = _check_enum(source, full, v, opt.choices)
        elif opt.kind == "by_players":
            values[key] = _check_by_players(source, full, v, opt.lo, opt.hi)
        elif opt.kind == "predicates":
            preds = _check_str_list(source, full, v)
            for p in preds:
                try:
                    compile_predicate(p)
                except CardError as e:
                    raise _err(source, full, str(e)) from None
            values[key] = preds
        else:  # points
            values[key] = _check_points(source, full, v)
    return replace(base, **values)


def _power_row(source: str, i: int, data: object) -> Power:
    where = f"power[{i}]"
    if not isinstance(data, dict):
        raise _err(source, where, "each [[power]] entry must be a table")
    unknown = set(data) - set(POWER_KEYS)
    if unknown:
        raise _err(
            source,
            f"{where}.{sorted(unknown)[0]}",
            f"unknown key; a power row takes {', '.join(POWER_KEYS)}",
        )
    if "name" not in data or not isinstance(data["name"], str) or not data["name"]:
        raise _err(source, f"{where}.name", "every power row needs a name")
    if "cards" not in data:
        raise _err(source, f"{where}.cards", "every power row needs cards (a predicate)")
    where = f"power.{data['name']}"
    kw: dict[str, Any] = {"name": data["name"]}
    kw["cards"] = _check_str_list(source, f"{where}.cards", data["cards"])
    for p in kw["cards"]:
        if p.strip().lower() == "power":
            raise _err(source, f"{where}.cards", "'power' cannot define a power row")
        try:
            compile_predicate(p)
        except CardError as e:
            raise _err(source, f"{where}.cards", str(e)) from None
    for key, v in data.items():
        if key in ("name", "cards"):
            continue
        full = f"{where}.{key}"
        if key == "pickup":
            if v == "deal":
                kw["pickup_deal"] = True
            else:
                kw["pickup"] = _check_int(source, full, v, 0, 52)
        elif key in ("skip",):
            kw[key] = _check_int(source, full, v, 0, 8)
        elif key in ("stacks_on", "cancels", "returns"):
            kw[key] = _check_str_list(source, full, v)
        elif key == "cancel":
            kw[key] = _check_enum(source, full, v, ("one", "all"))
        elif key == "cover":
            kw[key] = _check_enum(source, full, v, ("none", "suit", "any"))
        else:
            kw[key] = _check_bool(source, full, v)
    return Power(**kw)


def _check_power_table(source: str, rows: Sequence[Power]) -> None:
    by_name: dict[str, Power] = {}
    for r in rows:
        if r.name in by_name:
            raise _err(source, f"power.{r.name}", "two power rows have this name")
        by_name[r.name] = r
    for r in rows:
        is_pickup = r.pickup > 0 or r.pickup_deal
        if is_pickup and r.skip:
            raise _err(source, f"power.{r.name}", "a row may pick up or skip, not both")
        if r.cover != "none" and (r.names_suit or r.mimic):
            raise _err(source, f"power.{r.name}.cover", "a wild card cannot also need a cover")
        for key in ("stacks_on", "cancels", "returns"):
            for target in getattr(r, key):
                t = by_name.get(target)
                if t is None:
                    raise _err(
                        source,
                        f"power.{r.name}.{key}",
                        f"no power row is named {target!r} (rows: {', '.join(by_name)})",
                    )
                t_pickup = t.pickup > 0 or t.pickup_deal
                if key == "stacks_on":
                    if not (is_pickup or r.skip):
                        raise _err(
                            source,
                            f"power.{r.name}.stacks_on",
                            "only a pick-up or skip row can stack",
                        )
                    if is_pickup != t_pickup or bool(r.skip) != bool(t.skip):
                        raise _err(
                            source,
                            f"power.{r.name}.stacks_on",
                            f"{target!r} is not the same kind (pick-up or skip) as this row",
                        )
                elif not t_pickup:
                    raise _err(source, f"power.{r.name}.{key}", f"{target!r} is not a pick-up row")
        if r.continue_in_suit and not r.names_suit:
            raise _err(
                source,
                f"power.{r.name}.continue_in_suit",
                "only a row that names a suit (names_suit = true) has it",
            )
        if r.answer_only and not is_pickup:
            raise _err(source, f"power.{r.name}.answer_only", "only a pick-up row has it")
        if not r.adds and not r.stacks_on:
            raise _err(source, f"power.{r.name}.adds", "only a row that stacks (stacks_on) has it")


def _check_deck_fits(source: str, rules: RuleSet) -> None:
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        need = players * rules.hand_size_for(players) + 1
        have = rules.deck_size_for(players)
        if need > have:
            raise _err(
                source,
                "deal.hand_size",
                f"{players} players × {rules.hand_size_for(players)} cards + a starter need "
                f"{need} cards, but deal.decks and deal.jokers give {have}; lower the hand "
                "size or add a deck for that many players",
            )


def rules_from_mapping(data: Mapping[str, object], source: str = "<rules>") -> RuleSet:
    """Build and validate a rule set from a TOML-shaped mapping.

    ``base`` (default ``switch``) names the preset to start from; each section then overrides
    only the keys it gives; a ``power`` array replaces the whole power table.
    """
    base_name = data.get("base", "switch")
    if base_name not in PRESETS:
        raise _err(source, "base", f"must be one of {', '.join(PRESETS)}, not {base_name!r}")
    assert isinstance(base_name, str)
    rules = _build(data, source, PRESETS[base_name])
    if "name" not in data and "base" in data:
        rules = replace(rules, name=f"{base_name}+house")
    return rules


def _build(data: Mapping[str, object], source: str, rules: RuleSet) -> RuleSet:
    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise _err(source, unknown[0], f"unknown key; a rules file takes {', '.join(_TOP_KEYS)}")
    kw: dict[str, Any] = {}
    if "name" in data:
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            raise _err(source, "name", "must be a non-empty string")
        kw["name"] = name
    if "description" in data:
        if not isinstance(data["description"], str):
            raise _err(source, "description", "must be a string")
        kw["description"] = data["description"]
    if "sources" in data:
        kw["sources"] = _check_str_list(source, "sources", data["sources"])
    for sec in _SECTION_CLASSES:
        if sec in data:
            kw[sec] = _section(source, sec, data[sec], getattr(rules, sec))
    if "power" in data:
        rows = data["power"]
        if not isinstance(rows, list):
            raise _err(source, "power", "must be an array of tables ([[power]])")
        kw["power"] = tuple(_power_row(source, i, r) for i, r in enumerate(rows))
    rules = replace(rules, **kw)
    _check_power_table(source, rules.power)
    _check_deck_fits(source, rules)
    if rules.calls.required_to_finish and not rules.calls.last_card:
        raise _err(
            source,
            "calls.required_to_finish",
            "needs calls.last_card = true: a last card that must be called before it is "
            "laid could never be laid without the call",
        )
    return rules


def load_rules(spec: str) -> RuleSet:
    """A preset name or the path of a TOML house-rules file."""
    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if not path.suffix and not path.exists():
        raise RulesError(
            f"{spec}: no such preset or file; presets are {', '.join(PRESETS)}, "
            "or give the path of a .toml file"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RulesError(f"{spec}: cannot read the rules file: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{spec}: not a text (UTF-8) file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"{spec}: not valid TOML: {e}") from None
    return rules_from_mapping(data, source=str(path))


def preset(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"no preset {name!r}; presets are {', '.join(PRESETS)}") from None


# --------------------------------------------------------------------------------------------
# Printing a rule set as a TOML file that loads back to the same rule set.


_TOML_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_char(ch: str) -> str:
    """One character of a TOML basic string: quotes, backslashes and control characters
    (U+0000–U+001F, U+007F) escaped, everything else as it is."""
    esc = _TOML_ESCAPES.get(ch)
    if esc is not None:
        return esc
    o = ord(ch)
    return f"\\u{o:04X}" if o < 0x20 or o == 0x7F else ch


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + "".join(_toml_char(ch) for ch in v) + '"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(v)


def _by_players_toml(values: ByPlayers) -> str:
    if len(set(values)) == 1:
        return str(values[0])
    steps = []
    prev = None
    for i, n in enumerate(values):
        if n != prev:
            steps.append(f"{i + MIN_PLAYERS} = {n}")
            prev = n
    return "{ " + ", ".join(steps) + " }"


def _points_toml(points: Sequence[int]) -> str:
    names = [*RANK_NAMES, "joker"]
    parts = [
        f'"{n}" = {p}' if n[0].isdigit() else f"{n} = {p}"
        for n, p in zip(names, points, strict=True)
    ]
    return "{ " + ", ".join(parts) + " }"


def dump_toml(rules: RuleSet) -> str:
    """The rule set as a commented TOML file; :func:`load_rules` reads it back unchanged."""
    out = [
        # The name is escaped as in a TOML string: a newline in it must not end the comment.
        "# lanswitch rules: " + _toml_value(rules.name)[1:-1],
        "# Load with --rules FILE. Start a house-rules file from this one, or write only the",
        '# keys you change under base = "<preset>". Options are explained in docs/rules.md.',
        "",
        f"name = {_toml_value(rules.name)}",
        f"description = {_toml_value(rules.description)}",
        f"sources = {_toml_value(list(rules.sources))}",
    ]
    for sec in _SECTION_CLASSES:
        out += ["", f"[{sec}]"]
        obj = getattr(rules, sec)
        for opt in (o for o in OPTIONS if o.section == sec):
            v = getattr(obj, opt.key)
            if opt.kind == "by_players":
                text = _by_players_toml(v)
            elif opt.kind == "points":
                text = _points_toml(v)
            else:
                text = _toml_value(v)
            hint = f"  # {' | '.join(opt.choices)}" if opt.choices else ""
            out.append(f"{opt.key} = {text}{hint}")
    defaults = Power(name="", cards=())
    for row in rules.power:
        out += ["", "[[power]]"]
        for f in fields(Power):
            v = getattr(row, f.name)
            if f.name == "pickup_deal":
                continue
            if f.name == "pickup" and row.pickup_deal:
                out.append('pickup = "deal"')
                continue
            if f.name not in ("name", "cards") and v == getattr(defaults, f.name):
                continue
            out.append(f"{f.name} = {_toml_value(list(v) if isinstance(v, tuple) else v)}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# The presets. Each is the mapping a house-rules file would hold, built through the same
# validator; docs/rules.md explains every choice with its seed source.

_SCORE_002: Final = {"A": 20, "2": 15, "4": 15, "J": 15, "Q": 10, "K": 10, "joker": 0}

_SWITCH: Final[dict[str, Any]] = {
    "name": "switch",
    "description": "Classic Switch: 2s stack, 7 follows suit, 8 skips, 10 reverses, "
    "Black Jack picks up 5 and a Red Jack cancels one, Aces are wild.",
    "sources": ["000 Switch", "003 Interruptor"],
    "deal": {"decks": {"2": 1, "6": 2}, "hand_size": 7, "jokers": 0, "starter": "skip_power"},
    "play": {
        "draw": "until_playable",
        "may_draw_instead": False,
        "reshuffle": True,
        "follow": "none",
        "no_finish_on": ["A"],
        "no_finish_mode": "draw",
    },
    "calls": {"last_card": True, "penalty": 1, "timing": "turn_end"},
    "power": [
        {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two"]},
        {"name": "seven", "cards": "7", "follow_suit": True},
        {"name": "eight", "cards": "8", "skip": 1},
        {"name": "ten", "cards": "10", "reverse": True},
        {
            "name": "black_jack",
            "cards": "black J",
            "pickup": 5,
            "stacks_on": ["black_jack"],
            "together": True,
        },
        {
            "name": "red_jack",
            "cards": "red J",
            "cancels": ["black_jack"],
            "cancel": "one",
            "together": True,
        },
        {"name": "ace", "cards": "A", "wild": True, "names_suit": True},
    ],
}


def _variant(base: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of a preset mapping with whole sections or keys within them replaced."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


_PRESET_DATA: Final[dict[str, dict[str, Any]]] = {
    "switch": _SWITCH,
    "irish": {
        "name": "irish",
        "description": "Irish Switch: 9 cards (7 with five or more), K♥ picks up 5 and 2♥ "
        "adds to it, Aces change suit on their own suit, 7s skip and stack, Jacks reverse, "
        "same-suit runs, no finishing on a trick card.",
        "sources": ["001 Irish switch"],
        "deal": {
            "decks": {"2": 1, "6": 2},
            "hand_size": {"2": 9, "5": 7},
            "jokers": 0,
            "starter": "skip_power",
        },
        "play": {
            "draw": "until_playable",
            "follow": "suit_runs",
            "no_finish_on": ["power"],
            "no_finish_mode": "forbid",
        },
        "calls": {"last_card": True, "penalty": 2},
        "power": [
            {
                "name": "two_hearts",
                "cards": "2H",
                "pickup": 2,
                "stacks_on": ["two", "two_hearts", "king_hearts"],
            },
            {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two", "two_hearts"]},
            {"name": "king_hearts", "cards": "KH", "pickup": 5},
            {"name": "ace", "cards": "A", "names_suit": True},
            # 001: "the next player can place another 7 down to make the next player skip ...
            # this action happens until no one has a 7, making them skip their turn": one turn,
            # however many 7s were laid (counting them is 000's rule for 8s).
            {"name": "seven", "cards": "7", "skip": 1, "stacks_on": ["seven"], "adds": False},
            {"name": "jack", "cards": "J", "reverse": True, "together": True},
            {"name": "joker", "cards": "joker", "wild": True, "mimic": True},
        ],
    },
    "two-four-jack": {
        "name": "two-four-jack",
        "description": "Two-Four-Jack: 12 cards (10 with four or more), 2s and 4s pick up "
        "and stack, Jacks reverse, Aces wild but no dodge, draw until you play (or choose "
        "to), last card costs a card and a turn, the winner scores the others' cards to 500.",
        "sources": ["002 How To Play Switch"],
        "deal": {
            "decks": {"2": 1, "6": 2},
            "hand_size": {"2": 12, "4": 10},
            "starter": "skip_power",
        },
        "play": {
            "draw": "until_playable",
            "may_draw_instead": True,
            "no_finish_on": [],
            # 002: "the player who played the card immediately preceding the play of the Jack
            # will then have another turn": with two players, the other player (only 001's
            # Jack reverses "to themself").
            "reverse_with_two": "nothing",
        },
        "calls": {"last_card": True, "penalty": 1, "miss_turn": True},
        "scoring": {"mode": "winner_collects", "target": 500, "card_points": _SCORE_002},
        "power": [
            {"name": "ace", "cards": "A", "wild": True, "names_suit": True},
            {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two"]},
            {"name": "four", "cards": "4", "pickup": 4, "stacks_on": ["four"]},
            {"name": "jack", "cards": "J", "reverse": True},
        ],
    },
    "blackjack": {
        "name": "blackjack",
        "description": "Black Jack: 7 cards (5 with more than four), 2s answered by 2s or "
        "Black Jacks, Black Jack picks up 5, a Red Jack cancels every pick-up, 7 follows suit, "
        "8 skips unless answered, Queens must be covered, Kings reverse, same-suit runs, "
        "blunders cost 2.",
        "sources": ["000 Switch (Black Jack)", "003 Interruptor (Gato negro)"],
        "deal": {
            "decks": {"2": 1, "6": 2},
            "hand_size": {"2": 7, "5": 5},
            "starter": "any",
        },
        "play": {
            "draw": "one",
            "follow": "suit_runs",
            "no_finish_on": [],
            "blunder_penalty": 2,
        },
        "calls": {"last_card": True, "penalty": 2, "timing": "on_finish"},
        "power": [
            # 000: "The ace can be put down at any time ... with a run on top of it if
            # possible": the turn goes on in the suit the Ace names.
            {
                "name": "ace",
                "cards": "A",
                "wild": True,
                "names_suit": True,
                "continue_in_suit": True,
            },
            {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two"]},
            {"name": "seven", "cards": "7", "follow_suit": True},
            {"name": "eight", "cards": "8", "skip": 1, "stacks_on": ["eight"]},
            {
                "name": "black_jack",
                "cards": "black J",
                "pickup": 5,
                "stacks_on": ["black_jack", "two"],
                "together": True,
            },
            {
                "name": "red_jack",
                "cards": "red J",
                "cancels": ["two", "black_jack"],
                "cancel": "all",
            },
            {"name": "queen", "cards": "Q", "cover": "suit"},
            {"name": "king", "cards": "K", "reverse": True},
        ],
    },
    "j28": {
        "name": "j28",
        "description": "Jacks, Twos and Eights: runs and sets in one turn, Jacks wild, 2s "
        "stack, 8s must be answered or turns are missed, A♥ picks up 5 and A♠ cancels it, "
        "no finishing on a Jack, 2 or 8.",
        "sources": ["000 Switch (J28)", "003 Interruptor (Jotas, dos y ocho)"],
        "deal": {
            "decks": {"2": 1, "6": 2},
            "hand_size": 7,
            "starter": "any",
            "first_player": "right",
        },
        "play": {
            "draw": "one_then_play",
            "follow": "runs_and_sets",
            "wild_continues": True,
            "no_finish_on": ["J", "2", "8"],
            "no_finish_mode": "forbid",
        },
        "calls": {"last_card": True, "penalty": 0, "required_to_finish": True},
        "power": [
            # 000: "if a Jack is played the suit can be changed to hearts, then the player is
            # allowed to lay a heart and any other appropriate cards on that go".
            {
                "name": "jack",
                "cards": "J",
                "wild": True,
                "names_suit": True,
                "continue_in_suit": True,
            },
            {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two"]},
            {"name": "eight", "cards": "8", "skip": 1, "stacks_on": ["eight"]},
            {"name": "ace_hearts", "cards": "AH", "pickup": 5},
            {"name": "ace_spades", "cards": "AS", "cancels": ["ace_hearts"], "cancel": "all"},
        ],
    },
    "take-two": {
        "name": "take-two",
        "description": "Take Two: 5 cards, draw two when stuck, 2s stack, 8 skips, Jacks "
        "reverse, Aces wild, no finishing on a trick card, mistakes cost 2, play on until "
        "one is left.",
        "sources": ["003 Interruptor (Toma dos)"],
        "deal": {"decks": {"2": 1, "6": 2}, "hand_size": 5, "starter": "any"},
        "play": {
            "draw": "two",
            "no_finish_on": ["power"],
            "no_finish_mode": "forbid",
            "blunder_penalty": 2,
            "play_until_one_left": True,
        },
        "calls": {"last_card": True, "penalty": 1},
        "power": [
            {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two"]},
            {"name": "eight", "cards": "8", "skip": 1},
            {"name": "jack", "cards": "J", "reverse": True},
            {"name": "ace", "cards": "A", "wild": True, "names_suit": True},
            {"name": "joker", "cards": "joker", "pickup": 5, "wild": True, "names_suit": True},
        ],
    },
    "black5": {
        "name": "black5",
        "description": "Black 5: 5 cards, lay 1–4 of a rank at once, Aces change suit, 2s "
        "pick up 2, a black 5 picks up 5 and a red 5 stops it, play an 8 or wait, Jacks "
        "reverse, K♥ picks up 10 and Q♥ sends it back, mistakes cost 1, out at 301.",
        "sources": ["000 Switch (Black 5)"],
        "deal": {"decks": 1, "hand_size": 5, "starter": "any"},
        "play": {
            "draw": "one",
            "follow": "sets",
            "no_finish_on": [],
            "blunder_penalty": 1,
        },
        "calls": {"last_card": False},
        "scoring": {"mode": "penalty", "target": 301},
        "power": [
            {"name": "ace", "cards": "A", "wild": True, "names_suit": True},
            {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two"]},
            {"name": "black_five", "cards": "black 5", "pickup": 5, "stacks_on": ["black_five"]},
            {"name": "red_five", "cards": "red 5", "cancels": ["black_five"], "cancel": "all"},
            {"name": "eight", "cards": "8", "skip": 1, "stacks_on": ["eight"]},
            {"name": "jack", "cards": "J", "reverse": True},
            {"name": "king_hearts", "cards": "KH", "pickup": 10},
            {"name": "queen_hearts", "cards": "QH", "returns": ["king_hearts"]},
        ],
    },
    "peanuckle": _variant(
        _SWITCH,
        name="peanuckle",
        description="Peanuckle: Switch, plus a 'peanuckle' call at two cards and "
        "'super-peanuckle' (last card) at one.",
        sources=["000 Switch (Peanuckle)", "003 Interruptor (Peaknuckle)"],
        calls={"peanuckle": True},
    ),
    "turbo": _variant(
        _SWITCH,
        name="turbo",
        description="Turbo Switch: Switch where a missed last-card call costs 5 cards.",
        sources=["000 Switch (Turbo Switch)"],
        calls={"penalty": 5},
    ),
}

PRESETS: Final[dict[str, RuleSet]] = {
    # Every preset starts from the schema's defaults and states all that differs from them.
    name: _build(data, f"preset {name}", RuleSet())
    for name, data in _PRESET_DATA.items()
}
