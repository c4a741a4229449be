"""The rules engine (``lanswitch/game.py``): matches — hands in a row, the deal rotating,
scores adding up to the rules' target —, the figures it counts for the rule lab (turns, cards
drawn), and recorded hands it reproduces event for event (``tests/golden/gen.py``).

The engine rule by rule, each on a stacked deck, is ``tests/test_inventory.py``; its properties
over every preset (cards conserved, replay, hidden cards) ``tests/test_properties.py``."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from lanswitch.bots import HeuristicBot
from lanswitch.game import Event, Game, Match
from lanswitch.rules import PRESETS, rules_from_mapping
from lanswitch.simulate import play_hand
from tests.golden.gen import events_digest


def play_match(match: Match, seed: int, hands_cap: int = 400) -> list[Game]:
    rng = random.Random(seed)
    bots = [HeuristicBot(match.rules) for _ in range(match.players)]
    games = []
    for _ in range(hands_cap):
        if match.over:
            break
        game = match.new_hand()
        play_hand(game, bots, rng)
        match.record(game)
        games.append(game)
    assert match.over
    return games


def test_two_four_jack_is_played_to_500_and_the_highest_total_wins() -> None:
    """002: 'play to a certain cumulative score … Common scoring goals … are 500 or 1000'."""
    match = Match(PRESETS["two-four-jack"], 3)
    games = play_match(match, seed=1)
    assert max(match.totals) >= 500
    assert match.winner == max(range(3), key=lambda s: match.totals[s])
    # Totals are the sums of each hand's winner-collects scores.
    for seat in range(3):
        assert match.totals[seat] == sum(g.result.scores[seat] for g in games if g.result)
    # Before the last hand nobody had reached the target.
    last = games[-1].result
    assert last is not None
    before = [match.totals[s] - last.scores[s] for s in range(3)]
    assert max(before) < 500


def test_black5_players_go_out_at_301_until_one_is_left() -> None:
    """000 (Black 5): points 'noted to see when you shall be eliminated … (usually 301)'."""
    match = Match(PRESETS["black5"], 4)
    games = play_match(match, seed=2)
    assert len(match.out) == 3
    assert match.winner is not None
    assert match.winner not in match.out
    assert all(match.totals[s] >= 301 for s in match.out)
    # A player who is out is dealt no more cards.
    for seat in match.out:
        total = 0
        went_out = -1
        for i, g in enumerate(games):
            assert g.result is not None
            total += g.result.scores[seat]
            if total >= 301:
                went_out = i
                break
        assert went_out >= 0
        for g in games[went_out + 1 :]:
            assert seat not in g.dealt_in


def test_the_deal_rotates_clockwise_and_skips_players_who_are_out() -> None:
    """002: 'Thereafter, the deal rotates clockwise around the table after each hand'."""
    match = Match(PRESETS["black5"], 3, first_dealer=1)
    games = play_match(match, seed=3)
    dealers = [g.dealer for g in games]
    assert dealers[0] == 1
    for prev, game in itertools.pairwise(games):
        expected = (prev.dealer + 1) % 3
        while expected in {s for s in range(3) if s not in game.dealt_in}:
            expected = (expected + 1) % 3
        assert game.dealer == expected


def test_a_fixed_dealer_deals_every_hand() -> None:
    rules = rules_from_mapping({"base": "switch", "deal": {"dealer_rotation": "fixed"}})
    match = Match(rules, 4, first_dealer=2, max_hands=5)
    games = play_match(match, seed=4)
    assert [g.dealer for g in games] == [2] * 5


def test_hands_standing_alone_end_after_max_hands_with_the_most_wins() -> None:
    match = Match(PRESETS["switch"], 4, max_hands=7)
    play_match(match, seed=5)
    assert len(match.results) == 7
    assert sum(match.wins) == 7
    assert match.winner is not None
    assert match.wins[match.winner] == max(match.wins)


def test_each_hand_takes_a_new_number_and_a_finished_match_refuses_more() -> None:
    match = Match(replace(PRESETS["switch"]), 2, max_hands=2)
    games = play_match(match, seed=6)
    assert [g.hand_no for g in games] == [1, 2]
    with pytest.raises(ValueError, match="over"):
        match.new_hand()


def test_recording_an_unfinished_or_foreign_hand_is_refused() -> None:
    match = Match(PRESETS["switch"], 2)
    game = match.new_hand()
    with pytest.raises(ValueError, match="not over"):
        match.record(game)
    other = Game(PRESETS["switch"], 2, hand_no=9)
    play_hand(other, [HeuristicBot(PRESETS["switch"])] * 2, random.Random(1))
    with pytest.raises(ValueError, match="not the match's current hand"):
        match.record(other)


@pytest.mark.parametrize("preset", ["switch", "two-four-jack", "black5"])
def test_a_match_whose_every_hand_was_void_has_no_winner(preset: str) -> None:
    """Issue 25, item 3: at a dealer-blind table whose every hand a player's bad passes voided
    (blamed on nobody the record could prove, so nobody forfeited), the match ended at the
    rules' void limit and seat 0 — the cheater, there — was announced its winner."""
    rules = PRESETS[preset]
    match = Match(rules, 3, max_hands=5)
    for _ in range(rules.scoring.void_limit):
        game = match.new_hand()
        game.void()
        match.record(game)
    assert match.over
    assert match.winner is None
    assert match.voids == rules.scoring.void_limit
    # One forfeit among them is a hand scored: someone won it, and it is not the forfeiter.
    match = Match(rules, 3, max_hands=5)
    game = match.new_hand()
    game.void([0])
    match.record(game)
    for _ in range(rules.scoring.void_limit - 1):
        game = match.new_hand()
        game.void()
        match.record(game)
    assert match.over
    assert match.winner is not None
    assert match.winner != 0


def test_a_tie_goes_to_the_tied_player_placed_best_in_the_latest_hand_not_to_seat_one() -> None:
    """Found measuring issue 25's grinding: a tie went to the lowest seat number — the seat
    ``lanswitch play``'s own player takes, as the first to sit down — so seat 1 won 0.438 of
    three-player matches of equal bots. Two forfeits make a 1-1 tie of seats 1 and 3 here;
    seat 3 won the later hand."""
    match = Match(PRESETS["switch"], 3, max_hands=2)
    game = match.new_hand()  # dealt by seat 1 (index 0): order from the seat after it
    game.void([1, 2])
    match.record(game)
    assert match.results[-1].placings[0] == 0
    game = match.new_hand()
    game.void([0, 1])
    match.record(game)
    assert match.results[-1].placings[0] == 2
    assert match.wins == [1, 0, 1]
    assert match.over
    assert match.winner == 2  # before: 0, by seat number


@pytest.mark.parametrize("blind", [False, True], ids=["commit-reveal", "blind"])
def test_a_person_the_match_puts_out_sits_out_the_next_hands_and_nobody_is_blamed(
    blind: bool,
) -> None:
    """Issue 26 (found at a games night): under penalty scoring (Black 5), a player past the
    target is out of the match. The host dealt the next hands without them, but with their key,
    so the hand waited for their commitment and was voided on them; and the other clients
    read it as "the host deals hand N without bob, who sits at the table" — every hand after
    void, the innocent blamed. Three people, a target of 40: the hands after someone is out
    are all checked fair by everyone dealt in."""
    import dataclasses

    from lanswitch.host import HostConfig
    from lanswitch.rules import PRESETS
    from tests.tablenet import TableNet

    rules = PRESETS["black5"]
    rules = dataclasses.replace(rules, scoring=dataclasses.replace(rules.scoring, target=40))
    config = HostConfig(name="T", rules=rules, seats=3, bots=0, bot_delay=0.0, blind=blind)
    net = TableNet(config, seed=3)
    links = [net.join(name) for name in ("ann", "bob", "cat")]
    ann = links[0].session

    net.run(lambda: len(ann.history) >= 8, steps=400_000)
    sat_out = 0
    for link in links:
        for record in link.session.history:
            j = record.judgement
            if j is None:
                sat_out += 1  # out of the match: watched this hand
                continue
            assert j.status == "fair", (link.session.name, record.hand_no, j.reason)
    assert sat_out >= 1  # someone was put out, and sat hands out


@pytest.mark.parametrize("preset", list(PRESETS))
def test_turns_and_draws_match_the_events(preset: str) -> None:
    rules = PRESETS[preset]
    for seed in range(12):
        players = 2 + seed % 7
        game = Game(rules, players, dealer=seed % players)
        rng = random.Random(seed)
        events: list[Event] = []
        for _ in range(rules.play.safety_limit * 2 + 100):
            if game.over:
                break
            legal = game.legal_moves()
            if legal:
                events += game.apply(game.turn, legal[int(rng.random() * len(legal))])
            else:
                req = game.chance_request()
                assert req is not None
                order = req[1]
                rng.shuffle(order)
                events += game.apply_chance(order)
        assert game.result is not None
        # Every ended turn hands the turn on (a "turn" event), except one that ends the hand.
        ended_at_turn_end = game.result.reason in ("finished", "one_left", "blocked")
        turn_events = sum(1 for e in events if e[0] == "turn") - 1  # the first is the deal's
        assert game.turns == turn_events + ended_at_turn_end, (preset, seed)
        assert game.draws == sum(1 for e in events if e[0] == "draw")


GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_recorded_hands_replay_event_for_event(preset: str) -> None:
    hands = json.loads((GOLDEN / f"{preset}.json").read_text(encoding="utf-8"))
    assert len(hands) == 3
    for hand in hands:
        game = Game(
            PRESETS[preset], hand["players"], dealer=hand["dealer"], hand_no=hand["hand_no"]
        )
        events: list[Event] = []
        for seat, entry in hand["log"]:
            if isinstance(entry, list):
                events += game.apply_chance(entry)
            else:
                assert entry in game.legal_moves()
                events += game.apply(seat, entry)
        assert game.result is not None
        assert len(events) == hand["events"]
        assert events_digest(events) == hand["events_sha256"]
        expected = hand["result"]
        assert game.result.reason == expected["reason"]
        assert list(game.result.placings) == expected["placings"]
        assert list(game.result.scores) == expected["scores"]
        assert game.result.actions == expected["actions"]
