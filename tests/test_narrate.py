"""The one narration of the engine's events (``lanswitch/narrate.py``): every kind told, every
player's draws and passes logged, the words each reader gets, and ``simulate --verbose``
telling a hand with it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lanswitch.bots import make_bot
from lanswitch.game import (
    BLUNDERED,
    CALLED_LAST,
    CALLED_PEANUCKLE,
    DRAW,
    EVENT_KINDS,
    MAX_CARD,
    MISSED_LAST,
    MISSED_PEANUCKLE,
    NO_FINISH,
    Event,
    Game,
    Phase,
    redact,
)
from lanswitch.narrate import QUIET_KINDS, Cards, Story, describe, ending, merge, predicate_words
from lanswitch.powers import EFFECT_FIELDS, effect_words
from lanswitch.rules import PRESETS, Power
from lanswitch.simulate import play_hand, verbose_printer
from tests.stacking import c, play, sized, stacked
from tests.test_properties import VARIANTS

NAMES = ("ann", "bob", "cid")


def told(events: list[Event], *, me: int | None = None) -> list[str]:
    return [line.text() for line in describe(events, NAMES, me=me)]


def test_every_kind_the_engine_emits_is_typed_and_told_in_words() -> None:
    """Every kind of event the engine makes (each preset, hands to the end) is one the
    ``EventKind`` Literal names, and describe() tells it without its raw fallback."""
    seen: set[str] = set()
    for name, rules in PRESETS.items():
        for seed in range(6):
            game = Game(rules, 2 + seed % 3, hand_no=seed + 1)
            events: list[Event] = []

            def keep(
                g: Game, seat: int, move: int, ev: list[Event], out: list[Event] = events
            ) -> None:
                out.extend(ev)

            bots = [make_bot("random" if seed % 2 else "heuristic", rules)] * game.players
            play_hand(game, bots, random.Random(seed), keep)
            seen |= {k for k, _, _ in events}
            for line in describe(events, NAMES[:1] * game.players):
                text = line.text()
                assert not any(text.startswith(f"{k} (") for k in EVENT_KINDS), (name, text)
    assert seen <= EVENT_KINDS, seen - EVENT_KINDS
    assert {"play", "draw", "take", "pickup", "finish", "turn", "starter"} <= seen
    for kind in EVENT_KINDS - QUIET_KINDS:  # told in words, not as "kind (seat, value)"
        for text in told([(kind, 1, 2)]):
            assert not text.startswith(f"{kind} ("), text
    assert told([("unheard-of", 1, 7)]) == ["unheard-of (bob, 7)"]  # a newer host's kind


def test_another_players_draws_passes_and_pick_ups_are_logged() -> None:
    """Item 4: a bot going from 5 to 6 cards and the stock from 21 to 19 was logged as nothing
    but its play; every draw, pick-up and pass of another player is a line now."""
    hidden = [redact(e, 0) for e in [("draw", 1, c("5H")), ("draw", 1, c("6S"))]]
    assert hidden == [("draw", 1, -1), ("draw", 1, -1)]
    assert told(hidden, me=0) == ["bob draws 2 cards"]
    assert told([("draw", 2, -1)], me=0) == ["cid draws a card"]
    assert told([("take", 1, 4), *[("draw", 1, -1)] * 4], me=0) == ["bob picks up 4"]
    assert told([("pass", 2, -1)], me=0) == ["cid passes"]
    assert told([("miss", 2, 2)], me=0) == ["cid misses 2 turns"]
    # One's own cards are named; "you" takes its own verb.
    assert told([("draw", 0, c("5H"))], me=0) == ["you draw 5♥"]
    assert told([("take", 0, 2), ("draw", 0, c("5H")), ("draw", 0, c("6S"))], me=0) == [
        "you pick up 2: 5♥ 6♠"
    ]
    # A run of single draws (one move each) reads as one line.
    lines = [describe([("draw", 1, -1)], NAMES, me=0)[0] for _ in range(3)]
    joined = merge(merge(lines[0], lines[1]) or lines[0], lines[2])
    assert joined is not None
    assert joined.text() == "bob draws 3 cards"
    assert merge(lines[0], describe([("draw", 2, -1)], NAMES, me=0)[0]) is None


def test_calls_and_penalties_say_what_they_are() -> None:
    """Item 4: "is penalised 3" (a raw reason code) and a peanuckle call read as "calls last
    card"."""
    assert told([("call", 1, CALLED_LAST)]) == ["bob calls last card"]
    assert told([("call", 1, CALLED_PEANUCKLE)]) == ["bob calls peanuckle"]
    assert told([("penalty", 2, MISSED_LAST), ("draw", 2, -1), ("draw", 2, -1)], me=0) == [
        "cid did not call last card and draws 2 cards"
    ]
    assert told([("penalty", 0, MISSED_PEANUCKLE), ("draw", 0, c("3C"))], me=0) == [
        "you did not call peanuckle and draw 3♣"
    ]
    assert told([("blunder", 1, c("7H")), ("penalty", 1, BLUNDERED), ("draw", 1, -1)]) == [
        "bob blunders: 7♥ is not legal",
        "bob pays for a blunder and draws a card",
    ]
    assert told([("play", 1, c("AS")), ("penalty", 1, NO_FINISH), ("draw", 1, -1)]) == [
        "bob plays A♠",
        "bob may not end the hand on A♠ and draws a card",
    ]
    assert told([("penalty", 1, MISSED_LAST)]) == ["bob did not call last card"]  # no cards


def test_a_stacked_hand_told_as_it_happens() -> None:
    rules = sized(PRESETS["switch"], 5)
    hands = ["2H 5S 5C 9C 6C", "2S 9D 4D 6D QS", "4S 10D 3S 6S QD"]
    game = stacked(rules, 3, hands, "9H")
    said = [line.text() for line in describe(play(game, 0, c("2H")), NAMES, me=1)]
    assert said == ["ann plays 2♥", "the pick-up is now 2"]
    said = [line.text() for line in describe(play(game, 1, c("2S")), NAMES, me=1)]
    assert said == ["you play 2♠", "the pick-up is now 4"]
    took = [redact(e, 1) for e in play(game, 2, DRAW)]
    assert [line.text() for line in describe(took, NAMES, me=1)] == ["cid picks up 4"]
    quiet = describe(play(game, 0, c("5S")), NAMES)
    assert all(line.tone != "notice" for line in quiet)
    assert any(isinstance(p, Cards) for line in quiet for p in line.parts)


def test_the_end_of_a_hand_in_words() -> None:
    assert ending("finished", NAMES, (1, 0, 2), me=0) == "bob went out"
    assert ending("finished", NAMES, (0, 1, 2), me=0) == "you went out"
    assert ending("one_left", NAMES, (1, 0, 2)) == "everyone but cid went out"
    assert ending("blocked", NAMES, (1, 0, 2)) == "no one could play or draw"
    assert ending("limit", NAMES, (1, 0, 2)) == "stopped at the rules' limit of moves"
    assert ending("forfeit", NAMES, (1, 2, 0)) == "void: whoever was blamed forfeits it"
    assert ending("unfinished", NAMES, ()) == "the host never finished it"


@pytest.mark.parametrize(
    ("predicate", "words"),
    [
        ("2", "a 2"),
        ("8", "an 8"),
        ("A", "an Ace"),
        ("black J", "a black Jack"),
        ("red 5", "a red 5"),
        ("KH", "K♥"),
        ("*H", "any heart"),
        ("joker", "a joker"),
        ("red", "any red card"),
    ],
)
def test_power_cards_in_words(predicate: str, words: str) -> None:
    assert predicate_words(predicate) == words


def test_simulate_verbose_tells_the_hand_with_the_same_words() -> None:
    """``simulate --verbose`` and the terminal say the same thing for the same events."""
    rules = PRESETS["peanuckle"]
    game = Game(rules, 3)
    lines: list[str] = []
    events: list[Event] = []
    printer = verbose_printer(NAMES, lines.append)

    def both(g: Game, seat: int, move: int, ev: list[Event]) -> None:
        events.extend(ev)
        printer(g, seat, move, ev)

    play_hand(game, [make_bot("heuristic", rules)] * 3, random.Random(5), both)
    plays = [line for line in lines if " plays " in line]
    whole = [line.text() for line in describe(events, NAMES, rules=rules)]  # one story
    assert plays == [t for t in whole if " plays " in t]
    assert any(" draws " in line for line in lines)  # every card face up in a simulation
    assert lines[-4].startswith("Hand over after")


# ---------------------------------------------------------------------------------------------
# Every power card's effect told as it happens (issue 26, item 7a)

#: Rule sets whose rows, together, set every effect field: the presets and the two
#: kitchen-sink house rules of tests/test_properties.py (10-runs, "again", answer-only, ...).
EFFECT_RULES = {**PRESETS, **{n: VARIANTS[n] for n in ("sink-chain", "sink-sets")}}


class EffectWatch:
    """Plays a hand step by step and checks, for every step, that each power-card effect the
    engine applied in it has a narrated line that says so (``Line.effects``).

    What happened is read from the engine (its events, the state before the move), what was
    said from the narration: the two meet only in the effect's field name."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rules = game.rules
        self.story = Story()
        self.turn_cards: list[int] = []  # cards laid in the turn under way
        self.face = -1  # the face laid last (a joker's named face)
        self.named = -1  # the suit named in this turn, if any
        self.seen: Counter[str] = Counter()
        self.missing: list[str] = []

    def row(self, card: int) -> Power | None:
        index = self.game.t.row_of[card] if 0 <= card < MAX_CARD else -1
        return self.rules.power[index] if index >= 0 else None

    @staticmethod
    def effects_of(row: Power | None, facing: bool, before: Power | None) -> list[str]:
        """The effects of a card laid (or named) that have no event of their own."""
        if row is None:
            return []
        want = [f for f in ("follow_suit", "run") if getattr(row, f)]
        if row.cover != "none":
            want.append("cover")
        if row.wild and not row.names_suit and not row.mimic:
            want.append("wild")
        if row.answer_only and not facing:
            want.append("answer_only")
        if row.together and before is not None and before.together:
            want.append("together")
        return want

    def step(self, seat: int, move: int) -> None:
        g = self.game
        view = g.view(seat)
        facing = view.pending_kind != "" and view.pending_target == seat
        covering = g.cover != 0  # a card laid before this move waits to be covered
        laid_on = view.phase == Phase.FOLLOW  # a card laid now goes on this turn's cards
        events = g.apply(seat, move)
        self.check(events, facing, covering, seat, laid_on)

    def check(
        self, events: list[Event], facing: bool, covering: bool, seat: int, laid_on: bool = False
    ) -> None:
        lines = describe(events, NAMES[:1] * self.game.players, rules=self.rules, story=self.story)
        said = {e for line in lines for e in line.effects}
        want: list[str] = []
        if laid_on and events and events[0][0] == "play" and not lines[0].effects:
            # A card laid on in a multi-card turn says why it could follow.
            self.missing.append(f"{self.rules.name}: why {lines[0].text()!r} followed")
        if covering and any(k in ("play", "draw") and s == seat for k, s, _ in events):
            want.append("cover")  # covered, or not and a card drawn
        for kind, _who, value in events:
            if kind == "turn":
                self.turn_cards = []
                self.named = -1
            elif kind == "play":
                before = self.row(self.turn_cards[-1]) if self.turn_cards else None
                ok = before is not None and before.continue_in_suit and value < 104
                if ok and value // 13 % 4 == self.named:  # going on in the suit named
                    want.append("continue_in_suit")
                self.turn_cards.append(value)
                self.face = value
                want += self.effects_of(self.row(value), facing, before)
            elif kind in ("pickup", "skip"):
                want.append(kind)
                if facing:
                    want.append("stacks_on")
            elif kind == "suit":
                self.named = value
                want.append("names_suit")
                row = self.row(self.face)
                if row is not None and row.wild:
                    want.append("wild")
            elif kind == "mimic":
                self.face = value
                want.append("mimic")
                want += self.effects_of(self.row(value), facing, None)
            elif kind == "penalty" and value in (MISSED_LAST, MISSED_PEANUCKLE):
                want.append("calls")
            elif kind in ("cancel", "return", "reverse", "again"):
                want.append({"cancel": "cancels", "return": "returns"}.get(kind, kind))
        self.seen.update(want)
        for effect in want:
            if effect not in said:
                told = [line.text() for line in lines]
                self.missing.append(f"{self.rules.name}: {effect} untold in {told} ({events})")


def test_every_power_effect_of_every_preset_is_told_as_it_happens() -> None:
    """Seeded bot hands of every preset (and of two house rules that use the row fields no
    preset does): each effect of a power row that happened in a step — a pick-up and what
    answers it, a skip, a reversal, a suit named, a card to cover and whether it was, a suit
    followed, a run, cards laid together, a joker's face, a missed call — has its line in
    that step's narration, a card laid on in a multi-card turn says why it could follow, and
    every effect field of every row occurred somewhere."""
    seen: Counter[str] = Counter()
    for name, rules in EFFECT_RULES.items():
        for hand_no in range(16):
            players = 2 + hand_no % 4
            game = Game(rules, players, dealer=hand_no % players, hand_no=hand_no + 1)
            watch = EffectWatch(game)
            rng = random.Random(hand_no)
            bot = make_bot("random" if hand_no % 2 else "heuristic", rules)
            for _ in range(rules.play.safety_limit * 2):
                if game.over:
                    break
                seat = game.to_act()
                if seat < 0:
                    req = game.chance_request()
                    assert req is not None
                    events = game.apply_chance(sorted(req[1], key=lambda _: rng.random()))
                    watch.check(events, False, False, -1)
                    continue
                watch.step(seat, bot.choose(game.view(seat), rng))
            assert game.over, name
            assert not watch.missing, watch.missing[:5]
            seen += watch.seen
    used = {
        f
        for r in EFFECT_RULES.values()
        for row in r.power
        for f in EFFECT_FIELDS
        if effect_words(row, f, r)
    }
    assert used == set(EFFECT_FIELDS)  # (the rule sets above use every field)
    assert used <= set(seen), used - set(seen)


def test_a_queen_to_cover_told_across_steps() -> None:
    """The games night's Black Jack log: "bot 1 plays Q♦ / bot 1 draws a card". The Queen's
    step says it must be covered; the next step says whether it was."""
    rules = sized(PRESETS["blackjack"], 3)
    game = stacked(rules, 2, ["QD 3C 5S", "QH 4H 9C"], "9D", "6S 7S 8S 2C")
    story = Story()

    def said(events: list[Event], me: int | None = None) -> list[str]:
        return [line.text() for line in describe(events, NAMES, me=me, rules=rules, story=story)]

    assert said(play(game, 0, c("QD"))) == [
        "ann plays Q♦",
        "Q♦ must be covered by a ♦ in this turn, or ann draws a card",
    ]
    assert said([redact(e, 1) for e in play(game, 0, DRAW)], me=1) == [
        "ann did not cover Q♦ and draws a card"
    ]
    assert said(play(game, 1, c("QH")), me=1) == [
        "you play Q♥",
        "Q♥ must be covered by a ♥ in this turn, or you draw a card",
    ]
    assert said(play(game, 1, c("4H")), me=1) == ["you play 4♥, covering Q♥"]
