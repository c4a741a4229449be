"""Property tests of the rules engine, over every preset and 2–8 players.

Each example is a whole hand driven by a seeded :class:`random.Random` (the seed is drawn by
hypothesis): chance requests are answered with ``rng.shuffle`` of the awaited cards, and the
seat to act picks uniformly from :meth:`Game.legal_moves`. The properties:

(a) cards are conserved after every move and every chance step, and the events account for
    every card that entered or left a hand;
(b) every listed legal move applies, and a sample of unlisted moves raises
    :class:`IllegalMove` leaving every bit of state as it was;
(c) views never hold another seat's cards, and ``redact`` hides other seats' dealt and
    drawn cards (a seat rebuilds its own hand, and nothing more, from its redacted events);
(d) replaying the log reproduces the hand, at the end and part-way;
(e) every hand ends, by the rules or by the safety limit, within a bounded number of steps;
(f) ``blunder`` charges exactly ``blunder_penalty`` cards (or what the cards allow), replays,
    and refuses to charge a legal move.

Besides the nine presets, a few validated variants cover what no preset exercises: jokers
(mimic and pick-up jokers), and a stock that is never rebuilt (blocked hands, forgiven
draws), and two kitchen-sink rule sets cover the power features no preset uses. How every
hand ended is tallied per rule set and printed at the end of the run (see ``conftest.py``).

The checks are white-box where the public API cannot see: a snapshot compares every attribute
of the :class:`Game` (``vars``), and conservation and hidden-card checks read ``hands``,
``stock``, ``discard`` and ``debt`` directly.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from lanswitch.cards import JOKER_BASE, MAX_CARD
from lanswitch.game import (
    CALL_LAST,
    CALL_TWO,
    DRAW,
    MIMIC_BASE,
    PASS,
    STATE_FIELDS,
    SUIT_BASE,
    Event,
    Game,
    IllegalMove,
    Phase,
    Reason,
    View,
    format_move,
    parse_move,
    redact,
)
from lanswitch.rules import PRESETS, RuleSet, rules_from_mapping

# ---------------------------------------------------------------------------------------------
# Rule sets under test

# Power features no preset uses (chain follows, 10-runs, "again", covers, answer-only and
# deal-sized pick-ups, partial cancels, ...), gathered into two kitchen-sink rule sets.
_SINK_CHAIN: dict[str, Any] = {
    "name": "sink-chain",
    "deal": {"decks": 2, "hand_size": {"2": 9, "6": 7}, "jokers": 2, "starter": "any"},
    "play": {
        "draw": "until_playable",
        "follow": "chain",
        "wild_exempt_from_forced_play": True,
        "finish_multi_card": False,
        "reverse_with_two": "nothing",
        "no_finish_on": ["K"],
        "no_finish_mode": "forbid",
        "blunder_penalty": 3,
    },
    "calls": {"last_card": True, "peanuckle": True, "required_to_finish": True, "penalty": 2},
    "power": [
        {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two", "three"]},
        {"name": "three", "cards": "3", "pickup": 3, "answer_only": True, "stacks_on": ["two"]},
        {"name": "seven", "cards": "7", "follow_suit": True},
        {"name": "eight", "cards": "8", "skip": 1, "stacks_on": ["eight"]},
        {"name": "nine", "cards": "9", "reverse": True},
        {"name": "ten", "cards": "10", "run": True},
        {
            "name": "black_jack",
            "cards": "black J",
            "pickup": "deal",
            "together": True,
            "stacks_on": ["black_jack"],
        },
        {"name": "red_jack", "cards": "red J", "returns": ["black_jack", "two"]},
        {"name": "queen", "cards": "Q", "cover": "any"},
        {"name": "king", "cards": "K", "again": True},
        {"name": "ace", "cards": "A", "wild": True, "names_suit": True},
        {"name": "joker", "cards": "joker", "wild": True, "mimic": True},
    ],
}
_SINK_SETS: dict[str, Any] = {
    "name": "sink-sets",
    "deal": {"decks": {"2": 1, "5": 2}, "hand_size": 6, "jokers": 4, "first_player": "right"},
    "play": {
        "draw": "one_then_play",
        "follow": "runs_and_sets",
        "wild_continues": True,
        "no_finish_on": ["power"],
        "no_finish_mode": "draw",
        "play_until_one_left": True,
        "may_draw_instead": True,
        "safety_limit": 3000,
    },
    "calls": {"last_card": True, "timing": "on_finish", "miss_turn": True, "penalty": 2},
    "scoring": {"mode": "penalty", "target": 100},
    "power": [
        {"name": "two", "cards": "2", "pickup": 2, "stacks_on": ["two", "joker"]},
        {
            "name": "black_queen",
            "cards": "black Q",
            "pickup": 4,
            "stacks_on": ["two"],
            "together": True,
        },
        {
            "name": "red_queen",
            "cards": "red Q",
            "cancels": ["black_queen", "two"],
            "cancel": "one",
            "together": True,
        },
        {"name": "eight", "cards": "8", "skip": 2},
        {"name": "jack", "cards": "J", "reverse": True, "together": True},
        {"name": "five", "cards": "5", "cover": "suit"},
        {"name": "ace", "cards": ["A", "*S"], "wild": True, "names_suit": True},
        {
            "name": "joker",
            "cards": "joker",
            "pickup": 5,
            "wild": True,
            "mimic": True,
            "stacks_on": ["two", "joker"],
        },
    ],
}
VARIANTS: dict[str, RuleSet] = {
    # Built through the validator, like a house-rules file would be.
    "irish+jokers": rules_from_mapping(
        {"base": "irish", "name": "irish+jokers", "deal": {"jokers": 2}}, "variant"
    ),
    "take-two+jokers": rules_from_mapping(
        {"base": "take-two", "name": "take-two+jokers", "deal": {"jokers": 4}}, "variant"
    ),
    "switch-no-reshuffle": rules_from_mapping(
        {"name": "switch-no-reshuffle", "play": {"reshuffle": False}}, "variant"
    ),
    "blackjack-no-reshuffle": rules_from_mapping(
        {"base": "blackjack", "name": "blackjack-no-reshuffle", "play": {"reshuffle": False}},
        "variant",
    ),
    "sink-chain": rules_from_mapping(_SINK_CHAIN, "variant"),
    "sink-sets": rules_from_mapping(_SINK_SETS, "variant"),
}
RULESETS: dict[str, RuleSet] = {**PRESETS, **VARIANTS}
ALL_NAMES = list(RULESETS)

RULE_ENDINGS = frozenset({"finished", "one_left", "blocked"})

# How each hand of the run ended, per rule set; printed by conftest.pytest_terminal_summary.
ENDINGS: dict[str, Counter[str]] = {name: Counter() for name in RULESETS}
# The first few hands of each rule set stopped by the safety limit, to replay by hand.
LIMIT_CASES: dict[str, list[Case]] = {name: [] for name in RULESETS}


# A whole hand costs about as much as a hundred small examples: each property plays a tenth
# of the profile's max_examples hands (see conftest.py).
HANDS = settings(max_examples=max(1, settings().max_examples // 10))

# ---------------------------------------------------------------------------------------------
# Driving a hand


@dataclass(frozen=True)
class Case:
    name: str
    players: int
    dealer: int
    out: frozenset[int]
    seed: int

    @property
    def rules(self) -> RuleSet:
        return RULESETS[self.name]

    def new_game(self) -> Game:
        return Game(self.rules, self.players, dealer=self.dealer, out=self.out)

    def replay(self, log: list[Any]) -> Game:
        return Game.replay(self.rules, self.players, log, dealer=self.dealer, out=self.out)


@st.composite
def cases(draw: st.DrawFn, name: str) -> Case:
    players = draw(st.integers(2, 8))
    # Mostly everyone plays; sometimes seats sit the hand out (eliminated in a match).
    out = draw(
        st.one_of(
            st.just(frozenset[int]()),
            st.frozensets(st.integers(0, players - 1), max_size=players - 2),
        )
    )
    dealer = draw(st.sampled_from([s for s in range(players) if s not in out]))
    seed = draw(st.integers(0, 2**64 - 1))
    return Case(name, players, dealer, out, seed)


def step_bound(game: Game, blunders: int = 0) -> int:
    """Steps a hand may take: at most ``safety_limit`` actions, and at most one chance step
    (the deal, or a reshuffle) before the first action and after each action or blunder."""
    return 2 * (game.rules.play.safety_limit + blunders) + 2


def chance_order(game: Game, rng: random.Random) -> list[int]:
    req = game.chance_request()
    assert req is not None
    order = list(req[1])
    rng.shuffle(order)
    return order


def play_step(game: Game, rng: random.Random) -> list[Event]:
    """One chance step or one uniformly chosen legal move."""
    if game.chance_request() is not None:
        return game.apply_chance(chance_order(game, rng))
    seat = game.to_act()
    moves = game.legal_moves()
    assert seat >= 0, f"phase {game.phase!r}: nobody to act and no chance awaited"
    assert moves, f"seat {seat} to act in {game.phase!r} has no legal move (stuck)"
    return game.apply(seat, rng.choice(moves))


def run(case: Case, blunders: list[int] | None = None) -> Iterator[tuple[Game, list[Event]]]:
    """Yield the fresh game, then the game and its events after every step, to the end.

    The consumer may act on the game between steps (charge blunders, counted in
    ``blunders[0]``); the hand must still end within :func:`step_bound` steps.
    """
    rng = random.Random(case.seed)
    game = case.new_game()
    yield game, []
    steps = 0
    while not game.over:
        steps += 1
        extra = blunders[0] if blunders else 0
        assert steps <= step_bound(game, extra), (
            f"{case}: no end after {steps} steps ({game.actions} actions)"
        )
        events = play_step(game, rng)
        yield game, events


def play_out(case: Case) -> Game:
    """The hand played to its end."""
    for game, _ in run(case):
        if game.over:
            return game
    raise AssertionError("unreachable: run() ends only with the hand")


def conserved(game: Game) -> bool:
    """Every card of the deck is in exactly one place (checked here, not by the engine), and
    :meth:`Game.cards_conserved` agrees."""
    places = [c for s in seats(game) for c in game.hand(s)] + game.stock + game.discard
    ok = sorted(places) == sorted(game.deck)
    assert game.cards_conserved() == ok, "Game.cards_conserved() disagrees"
    return ok


def seats(game: Game) -> range:
    return range(game.players)


def clone(game: Game) -> Game:
    """A deep copy that shares the immutable rules and compiled tables (and copies the log
    and events shallowly: they hold only tuples)."""
    memo: dict[int, Any] = {
        id(game.rules): game.rules,
        id(game.t): game.t,
        id(game.log): list(game.log),
        id(game.events): list(game.events),
    }
    return copy.deepcopy(game, memo)


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, set | frozenset):
        return frozenset(v)
    return v


_NOT_STATE = frozenset({"rules", "t", "_legal"})  # shared tables and a lazily filled cache


def _state(game: Game) -> dict[str, Any]:
    """Every attribute of a game (it has slots, not a __dict__; compiled, not even those)."""
    return {k: getattr(game, k) for k in STATE_FIELDS}


def snapshot(game: Game) -> dict[str, Any]:
    """All the state of a hand: every attribute, plus what the public queries answer."""
    snap = {k: _freeze(v) for k, v in _state(game).items() if k not in _NOT_STATE}
    snap["log length"] = len(game.log)
    snap["views"] = tuple(game.view(s) for s in [*seats(game), None])
    snap["legal"] = tuple(game.legal_moves())
    snap["chance"] = game.chance_request()
    snap["to act"] = game.to_act()
    snap["cards"] = tuple(tuple(game.hand(s)) for s in seats(game))
    return snap


def fingerprint(game: Game) -> tuple[Any, ...]:
    """A cheap stand-in for :func:`snapshot`, compared after each rejected move."""
    return (
        len(game.log),
        len(game.events),
        game.actions,
        game.phase,
        game.turn,
        tuple(game.hands),
        tuple(game.counts),
        tuple(game.stock),
        tuple(game.discard),
        game.pend_kind,
        game.pend_amount,
        game.pend_target,
        game.result,
    )


def assert_same_state(before: dict[str, Any], after: dict[str, Any], what: str) -> None:
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"{what} changed the state: {changed}"


def dealt(game: Game) -> list[int]:
    return list(game.dealt_in)


def is_player_phase(game: Game) -> bool:
    return Phase.PLAY <= game.phase <= Phase.AFTER_DRAW


# ---------------------------------------------------------------------------------------------
# (a) conservation, and (e) every hand ends


def check_consistency(game: Game) -> None:
    """What the public queries say about whose move it is agrees with the phase."""
    req = game.chance_request()
    to_act = game.to_act()
    if game.over:
        assert req is None
        assert to_act == -1
        assert game.legal_moves() == []
        assert game.result is not None
    elif game.phase in (Phase.DEAL, Phase.RESHUFFLE):
        assert req is not None
        assert to_act == -1
        assert game.legal_moves() == []
    else:
        assert req is None
        assert to_act == game.turn >= 0
        assert game.active[to_act], f"seat {to_act} is to act but out of the hand"
        moves = game.legal_moves()
        assert moves, f"seat {to_act} has no legal move in {game.phase!r}"
        assert moves == sorted(set(moves)), f"legal moves not sorted and unique: {moves}"
    assert game.counts == [h.bit_count() for h in game.hands]


def check_events_move_cards(game: Game, before: list[int], events: list[Event]) -> None:
    """The events say exactly how many cards entered and left each hand."""
    delta = [0] * game.players
    for kind, seat, _value in events:
        if kind in ("deal", "draw"):
            delta[seat] += 1
        elif kind == "play":
            delta[seat] -= 1
    actual = [a - b for a, b in zip(game.counts, before, strict=True)]
    assert actual == delta, f"hand sizes moved by {actual} but the events say {delta}: {events}"


class StepChecks:
    """Checks across consecutive steps of one hand."""

    def __init__(self) -> None:
        self.counts: list[int] | None = None
        self.chance_next = True  # the first step is the deal
        self.next_draw = -1  # the card a reshuffle put on top of the stock
        self.plays_this_turn = 0

    def check(self, game: Game, events: list[Event]) -> None:
        if self.counts is None:
            self.counts = [0] * game.players
        check_events_move_cards(game, self.counts, events)
        self.counts = list(game.counts)
        rules = game.rules
        if self.chance_next and events:
            entry = game.log[-1]
            assert entry[0] == -1
            order = entry[1]
            assert isinstance(order, tuple)
            if events[0][0] == "deal":
                # order[0] is the top: it goes to the first seat dealt to, and the starter
                # comes right after the hands.
                assert events[0][2] == order[0]
                n = len(game.dealt_in) * game.hand_size
                starters = [e[2] for e in events if e[0] == "starter"]
                assert starters == list(order[n : n + len(starters)])
                first = next(e[1] for e in events if e[0] == "turn")
                assert first == events[0][1] or rules.deal.first_player == "right"
            else:
                assert events[0] == ("reshuffle", -1, len(order)), events[:1]
                assert game.discard[:1] == game.discard[-1:], "a reshuffle keeps only the top"
                self.next_draw = order[0]
        for kind, seat, value in events:
            if kind == "draw" and self.next_draw >= 0:
                assert value == self.next_draw, "the first card after a reshuffle is order[0]"
                self.next_draw = -1
            elif kind == "turn":
                self.plays_this_turn = 0
            elif kind == "play":
                self.plays_this_turn += 1
            elif kind == "finish":
                top = game.discard[-1]
                excused = any(e[0] == "forgiven" for e in events)
                if (game.t.no_finish_mask >> top) & 1 and not excused:
                    pytest.fail(f"seat {seat} went out on a card it may not finish on: {top}")
                if not rules.play.finish_multi_card:
                    assert self.plays_this_turn == 1, f"seat {seat} went out on a multi-card turn"
        for kind, seat, value in events:
            if kind == "take" and not any(e[:2] == ("penalty", seat) for e in events):
                # Taking a pick-up draws it all now, or after the reshuffle, or what exists.
                got = sum(1 for e in events if e[:2] == ("draw", seat))
                let_off = sum(e[2] for e in events if e[:2] == ("forgiven", seat))
                assert got + let_off + game.debt[seat] == value, f"took {value}: {events}"
        turns = [e[1] for e in events if e[0] == "turn"]
        if turns:
            assert turns[-1] == game.turn, f"the last turn event names {turns[-1]}, not the turn"
        if is_player_phase(game):
            # Reshuffles are eager and debts are paid before anyone acts.
            if rules.play.reshuffle:
                assert game.stock or len(game.discard) <= 1, "a player acts on an empty stock"
            assert not any(game.debt), f"debts {game.debt} unpaid while a seat acts"
        self.chance_next = game.chance_request() is not None


def check_result(case: Case, game: Game) -> None:
    res = game.result
    assert res is not None
    limit = game.rules.play.safety_limit
    assert res.reason in RULE_ENDINGS | {"limit"}, res
    if res.reason == "limit":
        assert res.actions == game.actions == limit
    else:
        assert res.actions == game.actions <= limit
    assert sorted(res.placings) == sorted(dealt(game)), res
    assert len(res.scores) == len(res.hand_points) == game.players
    for s in game.finished:
        assert game.counts[s] == 0, f"seat {s} finished holding cards"
    if res.reason == "finished":
        assert len(game.finished) == 1
        assert res.placings[0] == game.finished[0]
    elif res.reason == "one_left":
        assert len(game.finished) == len(dealt(game)) - 1
    if res.reason == "blocked":
        assert not game.stock, "a hand was blocked while cards were left to draw"
    # Scores follow scoring.mode from the points of the cards left in hand.
    pts = game.rules.scoring.card_points
    for s in seats(game):
        value = sum(pts[13] if c >= JOKER_BASE else pts[c % 13] for c in game.hand(s))
        assert res.hand_points[s] == (value if s in game.dealt_in else 0)
    mode = game.rules.scoring.mode
    if mode == "none":
        assert not any(res.scores)
    elif mode == "penalty":
        assert res.scores == res.hand_points
    else:
        winner = res.placings[0]
        others = sum(res.hand_points[s] for s in game.dealt_in if s != winner)
        assert res.scores == tuple(others if s == winner else 0 for s in seats(game))
    ENDINGS[case.name][res.reason] += 1
    if res.reason == "limit" and len(LIMIT_CASES[case.name]) < 3:
        LIMIT_CASES[case.name].append(case)


@pytest.mark.parametrize("name", ALL_NAMES)
@HANDS
@given(data=st.data())
def test_cards_conserved_and_every_hand_ends(name: str, data: st.DataObject) -> None:
    case = data.draw(cases(name), label="case")
    tracker = StepChecks()
    game: Game | None = None
    for game, events in run(case):
        # Before the deal the cards are in no place yet: nothing to conserve.
        assert game.phase == Phase.DEAL or conserved(game), f"cards lost: {events}"
        check_consistency(game)
        tracker.check(game, events)
    assert game is not None
    note(f"result {game.result}")
    check_result(case, game)
    res = game.result
    assert res is not None
    assert ("over", res.placings[0], len(res.placings)) in game.events


# ---------------------------------------------------------------------------------------------
# (b) legal moves apply; other moves are rejected and change nothing


def interesting(game: Game) -> bool:
    """States worth checking more often than the plain start of a turn."""
    seat = game.to_act()
    return bool(
        game.phase != Phase.PLAY
        or game.pend_kind
        or game.chance_request() is not None
        or (seat >= 0 and game.counts[seat] <= 2)
    )


def sampled(game: Game, check_rng: random.Random, budget: list[int]) -> bool:
    """Whether to run the expensive checks on this state (at most ``budget[0]`` more)."""
    if budget[0] <= 0:
        return False
    p = 0.5 if interesting(game) else 0.06
    if game.actions < 3 or game.over or check_rng.random() < p:
        budget[0] -= 1
        return True
    return False


# Reasons that are about who, when or what (not about the rules of play).
NOT_A_RULE = frozenset(
    {
        Reason.HAND_OVER,
        Reason.WAITING_FOR_DEAL,
        Reason.NOT_YOUR_TURN,
        Reason.NO_SUCH_MOVE,
        Reason.NOT_IN_HAND,
    }
)


def illegal_candidates(game: Game, rng: random.Random) -> list[tuple[int, int, Reason | None]]:
    """(seat, move, reason) for moves the engine must reject here; a reason of None means
    "some rule of play", i.e. none of :data:`NOT_A_RULE`."""
    out: list[tuple[int, int, Reason | None]] = []
    seat = game.turn
    if not is_player_phase(game):
        expected = Reason.HAND_OVER if game.over else Reason.WAITING_FOR_DEAL
        for s in {seat, *rng.sample(range(game.players), 1)}:
            for m in (0, DRAW, PASS, SUIT_BASE, CALL_LAST, *game.hand(s)[:2]):
                out.append((s, m, expected))
        return out
    legal = set(game.legal_moves())
    hand = set(game.hand(seat))
    card_phase = game.phase in (Phase.PLAY, Phase.FOLLOW, Phase.AFTER_DRAW)
    not_in_hand = [c for c in range(MAX_CARD) if c not in hand]
    for c in rng.sample(not_in_hand, min(4, len(not_in_hand))):
        out.append((seat, c, Reason.NOT_IN_HAND if card_phase else None))
    unlisted = sorted(hand - legal)
    for c in rng.sample(unlisted, min(4, len(unlisted))):
        out.append((seat, c, None))
    specials = [DRAW, PASS, CALL_LAST, CALL_TWO, *range(SUIT_BASE, SUIT_BASE + 4)]
    specials += [MIMIC_BASE + rng.randrange(52), MIMIC_BASE + 51]
    for m in specials:
        if m not in legal:
            out.append((seat, m, None))
    for junk in (-1, MAX_CARD, 150, DRAW - 1, 299, MIMIC_BASE + 52, 10**6):
        out.append((seat, junk, Reason.NO_SUCH_MOVE))
    # Someone else, with the mover's legal moves and with their own cards.
    others = [s for s in seats(game) if s != seat]
    for other in rng.sample(others, min(2, len(others))):
        for m in [*rng.sample(sorted(legal), min(2, len(legal))), *game.hand(other)[:2]]:
            out.append((other, m, Reason.NOT_YOUR_TURN))
    for other in (-1, game.players):
        out.append((other, next(iter(legal)), Reason.NOT_YOUR_TURN))
    return out


def check_moves(game: Game, rng: random.Random) -> None:
    before = snapshot(game)
    quick = fingerprint(game)
    legal = game.legal_moves()
    seat = game.to_act()
    hand = game.hand(seat) if seat >= 0 else []
    for move in legal:
        for symbols in (False, True):
            text = format_move(move, symbols=symbols)
            back = parse_move(text, hand)
            # Text names a face, not a copy: any copy of it (any joker) in hand will do.
            same = back % 52 == move % 52 if move < JOKER_BASE else back >= JOKER_BASE
            assert back == move or (move < MAX_CARD and back in legal and same), (move, text)
        g = clone(game)
        try:
            g.apply(seat, move)
        except IllegalMove as e:  # pragma: no cover - reported as a failure
            pytest.fail(f"listed move {move} by seat {seat} was rejected: {e} ({e.reason})")
        assert conserved(g), f"move {move} broke card conservation"
        assert len(g.log) == len(game.log) + 1
        assert g.actions == game.actions + 1
    for who, move, reason in illegal_candidates(game, rng):
        with pytest.raises(IllegalMove) as info:
            game.apply(who, move)
        err = info.value
        assert isinstance(err.reason, Reason)
        assert (err.seat, err.move) == (who, move)
        assert str(err), "an IllegalMove needs a message"
        if reason is not None:
            assert err.reason is reason, f"seat {who} move {move}: {err.reason} not {reason}"
        else:
            assert err.reason not in NOT_A_RULE, f"seat {who} move {move}: {err.reason}"
        assert fingerprint(game) == quick, f"rejected move {move} by seat {who} changed state"
    if game.chance_request() is not None:
        req = game.chance_request()
        assert req is not None
        cards = req[1]
        bad_orders = [cards[1:], [*cards, cards[0]], [*cards[1:], MAX_CARD + 5]]
        for order in bad_orders:
            with pytest.raises(ValueError, match="permutation"):
                game.apply_chance(order)
    else:
        with pytest.raises(ValueError, match="no shuffle"):
            game.apply_chance([])
    assert_same_state(before, snapshot(game), "a rejected move")


@pytest.mark.parametrize("name", ALL_NAMES)
@HANDS
@given(data=st.data())
def test_legal_moves_apply_and_others_are_rejected(name: str, data: st.DataObject) -> None:
    case = data.draw(cases(name), label="case")
    check_rng = random.Random(case.seed ^ 0x5EED)
    budget = [40]
    for game, _events in run(case):
        if sampled(game, check_rng, budget):
            check_moves(game, check_rng)
        elif is_player_phase(game):
            moves = game.legal_moves()
            assert moves == sorted(set(moves)), f"legal moves not sorted and unique: {moves}"


# ---------------------------------------------------------------------------------------------
# (c) views and redaction


def rotate_hidden(game: Game, viewer: int | None) -> Game | None:
    """A copy of the hand in which every card ``viewer`` cannot see has moved: the other
    seats' cards and the stock, rotated by one place (each keeps its size). None if fewer
    than two cards are hidden."""
    others = [s for s in seats(game) if s != viewer]
    pool = [c for s in others for c in game.hand(s)] + list(game.stock)
    if len(pool) < 2:
        return None
    rotated = pool[1:] + pool[:1]
    g = clone(game)
    i = 0
    for s in others:
        n = game.counts[s]
        g.hands[s] = sum(1 << c for c in rotated[i : i + n])
        i += n
    g.stock = rotated[i:]
    g._legal = None  # recompute: legal moves may depend only on what the seat sees
    assert conserved(g)
    return g


def check_views(game: Game) -> None:
    to_act = game.to_act()
    for viewer in [*seats(game), None]:
        v = game.view(viewer)
        assert v.seat == viewer
        if viewer is None:
            assert v.hand == (), "a spectator view holds cards"
            assert v.legal == ()
        else:
            assert v.hand == tuple(game.hand(viewer)), f"view({viewer}).hand is not its hand"
            assert v.counts[viewer] == len(v.hand)
            if viewer == to_act:
                assert v.legal == tuple(game.legal_moves())
                cards = {m for m in v.legal if 0 <= m < MAX_CARD}
                assert cards <= set(v.hand), "legal moves list cards the seat does not hold"
            else:
                assert v.legal == (), f"seat {viewer} is not to act but its view lists moves"
        assert v.counts == tuple(game.counts)
        assert v.stock == len(game.stock)
        assert v.discard == len(game.discard)
        # No field can depend on cards the viewer cannot see: move them all, and every
        # field of the view (hand, counts, legal moves and the rest) must stay the same.
        moved = rotate_hidden(game, viewer)
        if moved is not None:
            w = moved.view(viewer)
            diff = [f.name for f in fields(View) if getattr(v, f.name) != getattr(w, f.name)]
            assert not diff, f"view({viewer}) fields {diff} depend on cards it cannot see"


def check_redaction(game: Game, events: list[Event], mirrors: dict[int, set[int]]) -> None:
    """Redacted events hide other seats' dealt and drawn cards, and are enough for each seat
    to keep its own hand up to date."""
    for viewer in [*seats(game), None]:
        for e in events:
            r = redact(e, viewer)
            kind, seat, _ = e
            if kind in ("deal", "draw") and seat != viewer:
                assert r == (kind, seat, -1), f"redact({e}, {viewer}) = {r}"
            else:
                assert r == e, f"redact({e}, {viewer}) = {r} hid a public or own event"
    for s, mirror in mirrors.items():
        for e in events:
            kind, seat, value = redact(e, s)
            if seat != s:
                continue
            if kind in ("deal", "draw"):
                assert value >= 0
                assert value not in mirror
                mirror.add(value)
            elif kind == "play":
                mirror.remove(value)
        assert mirror == set(game.hand(s)), f"seat {s} cannot rebuild its hand from events"


@pytest.mark.parametrize("name", ALL_NAMES)
@HANDS
@given(data=st.data())
def test_views_never_hold_foreign_cards(name: str, data: st.DataObject) -> None:
    case = data.draw(cases(name), label="case")
    check_rng = random.Random(case.seed ^ 0xC0FFEE)
    budget = [30]
    mirrors: dict[int, set[int]] = {s: set() for s in range(case.players)}
    for game, events in run(case):
        check_redaction(game, events, mirrors)
        if sampled(game, check_rng, budget):
            check_views(game)


# ---------------------------------------------------------------------------------------------
# (d) replay


@pytest.mark.parametrize("name", ALL_NAMES)
@HANDS
@given(data=st.data())
def test_replay_reproduces_the_hand(name: str, data: st.DataObject) -> None:
    case = data.draw(cases(name), label="case")
    cut = data.draw(st.floats(0, 1), label="replay part-way at")
    # Play it through once to learn its length, then again to snapshot part-way.
    game = play_out(case)
    total = len(game.log)
    assert_same_state(snapshot(game), snapshot(case.replay(game.log)), "replaying the log")
    k = int(cut * total)
    for g, _ in run(case):
        if len(g.log) == k:
            assert_same_state(snapshot(g), snapshot(case.replay(g.log)), f"replaying {k} steps")
            break


# ---------------------------------------------------------------------------------------------
# (f) blunders


def blunder_move(game: Game, who: int, rng: random.Random) -> int:
    """An illegal move for ``who`` now."""
    if who != game.to_act():
        pool = [*game.hand(who), DRAW, PASS, *game.legal_moves()]
        return rng.choice(pool)
    legal = set(game.legal_moves())
    pool = [m for m in [*range(MAX_CARD), DRAW, PASS, CALL_LAST, SUIT_BASE] if m not in legal]
    return rng.choice(pool)


def check_blunder(game: Game, rng: random.Random) -> None:
    penalty = game.rules.play.blunder_penalty
    who = rng.choice([s for s in seats(game) if game.active[s]])
    move = blunder_move(game, who, rng)
    count = game.counts[who]
    available = len(game.stock)
    if game.rules.play.reshuffle:
        available += max(0, len(game.discard) - 1)
    expected = min(penalty, available)
    events = game.blunder(who, move)
    assert events[0] == ("blunder", who, move), events
    assert conserved(game)
    drawn = [e for e in events if e[0] == "draw" and e[1] == who]
    forgiven = sum(e[2] for e in events if e[0] == "forgiven" and e[1] == who)
    if game.chance_request() is not None:  # the stock ran out: reshuffle, then pay the debt
        events = game.apply_chance(chance_order(game, rng))
        drawn += [e for e in events if e[0] == "draw" and e[1] == who]
        forgiven += sum(e[2] for e in events if e[0] == "forgiven" and e[1] == who)
        assert conserved(game)
    gained = game.counts[who] - count
    assert gained == len(drawn) == expected, (
        f"blunder by seat {who} with penalty {penalty}: drew {gained}, expected {expected}"
    )
    assert gained + forgiven == penalty


@pytest.mark.parametrize("name", ALL_NAMES)
@HANDS
@given(data=st.data())
def test_blunders_charge_the_penalty_and_replay(name: str, data: st.DataObject) -> None:
    case = data.draw(cases(name), label="case")
    rng = random.Random(case.seed ^ 0xB1)
    blunders = [0]
    game: Game | None = None
    for game, _ in run(case, blunders):
        if game.over or game.chance_request() is not None:
            if rng.random() < 0.1:
                before = snapshot(game)
                with pytest.raises(ValueError, match="no blunder"):
                    game.blunder(game.turn, MAX_CARD + 1)
                assert_same_state(before, snapshot(game), "a blunder while no one may act")
        elif rng.random() < 0.08 and blunders[0] < 12:
            before = snapshot(game)
            # A legal move is no blunder: refused, and nothing changes.
            with pytest.raises(ValueError, match="legal"):
                game.blunder(game.to_act(), rng.choice(game.legal_moves()))
            # Nor can a seat that is out of the hand blunder.
            for s in seats(game):
                if not game.active[s]:
                    with pytest.raises(ValueError, match="not in the hand"):
                        game.blunder(s, DRAW)
            assert_same_state(before, snapshot(game), "refusing a blunder")
            check_blunder(game, rng)
            blunders[0] += 1
    assert game is not None
    note(f"{blunders[0]} blunders; result {game.result}")
    assert_same_state(snapshot(game), snapshot(case.replay(game.log)), "replaying blunders")


# ---------------------------------------------------------------------------------------------
# (e) a fixed sweep: every rule set, every player count, a few seeds each; the tally is
# printed at the end of the run.


@pytest.mark.parametrize("name", ALL_NAMES)
def test_endings_sweep(name: str) -> None:
    for players in range(2, 9):
        for seed in range(3):
            case = Case(name, players, seed % players, frozenset(), 1000 * players + seed)
            game = play_out(case)
            assert conserved(game)
            check_result(case, game)


# ---------------------------------------------------------------------------------------------
# Seat numbers from outside (a network host passes them through) must be real seats.


@pytest.mark.parametrize("seat", [-1, 3, 99])
@pytest.mark.parametrize("call", ["view", "blunder", "dealer", "out"])
def test_seats_that_do_not_exist_are_rejected(call: str, seat: int) -> None:
    """-1 must not wrap round to the last seat (``view(-1)`` would show its hand) and a seat
    past the end must be a ValueError, not an IndexError."""
    rules = PRESETS["blackjack"]
    if call == "dealer":
        with pytest.raises(ValueError, match="dealer"):
            Game(rules, 3, dealer=seat)
        return
    if call == "out":
        with pytest.raises(ValueError, match="sitting out"):
            Game(rules, 3, out=[seat])
        return
    game = Game(rules, 3)
    game.apply_chance(chance_order(game, random.Random(1)))
    before = snapshot(game)
    attempt = (lambda: game.view(seat)) if call == "view" else (lambda: game.blunder(seat, 0))
    with pytest.raises(ValueError, match="seat"):
        attempt()
    assert_same_state(before, snapshot(game), f"{call} for seat {seat}")
