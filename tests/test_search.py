"""The engine's API for search (``Game.determinize``, the table's tally of what each hand was
shown to lack) and the ``hard`` bot built on it (``lanswitch.search``)."""

from __future__ import annotations

import random

import pytest

from lanswitch.bots import HeuristicBot, make_bot
from lanswitch.game import MAX_CARD, DeterminizeError, Game
from lanswitch.rules import PRESETS
from lanswitch.search import HardBot, SeededRng, position_value
from lanswitch.simulate import play_hand, shuffled

RULES = ["switch", "irish", "blackjack", "two-four-jack", "peanuckle"]


def _hands_in_play(name: str, seed: int, players: int = 4) -> list[tuple[Game, int]]:
    """Positions of seeded heuristic hands of ``name``: (a copy of the hand, the seat to act),
    about one in five of every move's."""
    rules = PRESETS[name]
    rng = random.Random(seed)
    bots = [HeuristicBot(rules) for _ in range(players)]
    out: list[tuple[Game, int]] = []
    for hand_no in range(12):
        g = Game(rules, players, dealer=hand_no % players)
        for _ in range(3000):
            seat = g.to_act()
            if seat < 0:
                req = g.chance_request()
                if req is None:
                    break
                g.apply_chance(shuffled(rng, req[1]))
                continue
            if rng.random() < 0.2:
                out.append((g.clone(), seat))
            g.apply(seat, bots[seat].act(g, seat, rng))
    return out


def _hidden_dealt_again(g: Game, seat: int, rng: random.Random) -> Game:
    """The same hand with every card ``seat`` cannot see in another place: the other hands
    and the stock dealt again (counts kept). What ``seat`` sees is unchanged."""
    h = g.clone()
    others = [s for s in range(g.players) if s != seat]
    unseen = [c for s in others for c in g.hand(s)] + list(g.stock)
    rng.shuffle(unseen)
    for s in others:
        n = g.counts[s]
        h.hands[s] = sum(1 << c for c in unseen[:n])
        unseen = unseen[n:]
    h.stock = unseen
    h._legal = None
    assert h.view(seat) == g.view(seat)
    return h


@pytest.mark.parametrize("name", RULES)
def test_a_determinization_keeps_all_the_seat_can_see(name: str) -> None:
    rng = random.Random(5)
    positions = _hands_in_play(name, 1)
    assert len(positions) > 100
    for g, seat in positions:
        d = g.determinize(seat, rng)
        assert d.cards_conserved()
        assert d.view(seat) == g.view(seat)  # its hand, every count, the top, the turn
        assert d.discard == g.discard
        assert d.log == []
        assert d.events == []


@pytest.mark.parametrize("name", RULES)
def test_the_hands_really_lack_what_the_table_saw_them_lack(name: str) -> None:
    """The tally is public and true: a seat shown to lack cards holds none of them but for
    the ones that came to it since. (A tally that said more would make every search believe
    a lie about the other hands.)"""
    constrained = 0
    for g, _seat in _hands_in_play(name, 2):
        for s in range(g.players):
            if not g.lacks[s]:
                continue
            constrained += 1
            held = g.hands[s] & g.lacks[s]
            assert held.bit_count() <= g.drawn_since[s], (s, g.hand(s), g.drawn_since[s])
    assert constrained > 100


@pytest.mark.parametrize("name", RULES)
def test_a_determinization_mostly_honours_what_each_hand_was_shown_to_lack(name: str) -> None:
    """Each hand's cards from before it drew are dealt from those it was not shown to lack.
    The deal is greedy, most constrained hand first, and gives way to the counts where the
    hands compete for too few such cards: seeded, so the share is a fixed figure."""
    rng = random.Random(9)
    honoured = tried = 0
    for g, seat in _hands_in_play(name, 3):
        d = g.determinize(seat, rng)
        for s in range(g.players):
            if s == seat or not g.lacks[s]:
                continue
            sure = g.counts[s] - min(g.drawn_since[s], g.counts[s])
            tried += 1
            honoured += (d.hands[s] & ~g.lacks[s]).bit_count() >= sure
    assert tried > 100
    assert honoured >= 0.95 * tried, (honoured, tried)


def test_a_determinization_depends_on_nothing_the_seat_cannot_see() -> None:
    """Two hands the same to the seat but for where its hidden cards lie give the same
    determinization for the same random source — and so the same search and the same move.
    (A determinize that kept the real hands, say, fails here.)"""
    deal = random.Random(11)
    checked = 0
    for name in RULES:
        for g, seat in _hands_in_play(name, 4)[::7]:
            h = _hidden_dealt_again(g, seat, deal)
            if h.hands == g.hands:
                continue  # nothing was hidden to move
            a = g.determinize(seat, random.Random(3))
            b = h.determinize(seat, random.Random(3))
            assert (a.hands, a.stock) == (b.hands, b.stock)
            checked += 1
    assert checked > 50


def test_the_hard_bots_choice_is_the_same_whatever_the_hidden_cards() -> None:
    deal = random.Random(12)
    rules = PRESETS["switch"]
    bot = HardBot(rules, iterations=40)
    checked = 0
    for g, seat in _hands_in_play("switch", 6)[::6]:
        if len(g.legal_moves()) < 2:
            continue
        h = _hidden_dealt_again(g, seat, deal)
        assert bot.act(g, seat, random.Random(8)) == bot.act(h, seat, random.Random(8))
        checked += 1
    assert checked > 10


def test_a_hand_a_seat_cannot_see_whole_is_not_determinized() -> None:
    """A dealer-blind hand's seat holds hidden cards of its own on the host's engine: there is
    nothing to deal them from, so determinize refuses, and the hard bot plays the heuristic's
    move."""
    rules = PRESETS["switch"]
    g = Game(rules, 3, blind=True)
    g.apply_chance(list(range(512, 512 + len(g.deck))), hidden=True)
    seat = g.to_act()
    with pytest.raises(DeterminizeError, match="own cards are hidden"):
        g.determinize(seat, random.Random(1))
    move = HardBot(rules, iterations=10).act(g, seat, random.Random(1))
    assert move == HeuristicBot(rules).act(g, seat, random.Random(1))


@pytest.mark.parametrize("name", RULES)
def test_the_hard_bot_plays_whole_hands(name: str) -> None:
    rules = PRESETS[name]
    rng = random.Random(21)
    bots = [HardBot(rules, iterations=12), *(make_bot("heuristic", rules) for _ in range(3))]
    for hand_no in range(2):
        result = play_hand(Game(rules, 4, dealer=hand_no), bots, rng)
        assert result.placings


def test_a_position_is_scored_by_fewest_cards_and_a_won_hand_by_its_winner() -> None:
    rules = PRESETS["switch"]
    g = Game(rules, 3)
    g.apply_chance(list(range(52)))
    g.counts = [2, 7, 7]
    v = position_value(g)
    assert v[0] > v[1] == v[2]
    assert abs(sum(v) - 1) < 1e-9
    done = Game(rules, 3)
    done.apply_chance(list(range(52)))
    result = play_hand(done, [HeuristicBot(rules)] * 3, random.Random(1))
    assert position_value(done) == [1.0 if s == result.placings[0] else 0.0 for s in range(3)]


def test_a_decision_stops_at_its_move_budget() -> None:
    """A decision's time is bounded by the moves it plays, not only by its iterations (a hand
    whose play-outs run long makes long iterations): with room for 10,000 iterations and
    2,000 moves, the search stops within one iteration of the moves — and the same seed plays
    the same search."""
    g, seat = next((g, s) for g, s in _hands_in_play("blackjack", 5) if len(g.legal_moves()) > 2)
    bot = HardBot(PRESETS["blackjack"], iterations=10_000, move_budget=2_000)
    root = bot.search(g, seat, random.Random(1))
    played = bot.moves_played
    # One iteration plays at most 200 moves down the tree and a play-out's, and counts one more.
    assert 2_000 <= played < 2_000 + 200 + bot.rollout_moves + 1
    assert root.visits < 10_000
    again = bot.search(g, seat, random.Random(1))
    assert (again.visits, bot.moves_played) == (root.visits, played)
    unbounded = HardBot(PRESETS["blackjack"], iterations=300, move_budget=10**9)
    assert unbounded.search(g, seat, random.Random(1)).visits == 300


def test_the_search_stops_once_the_heuristics_move_is_settled_and_chooses_the_same() -> None:
    """Once the standing move leads every other by more visits than the iterations left, no
    outcome of them could change the choice, so the search stops there: over the decisions
    of seeded switch and blackjack hands, the move chosen from the same random state is the
    same with the check as without it, and some decisions end sooner."""
    same = sooner = decisions = 0
    for name in ("switch", "blackjack"):
        rules = PRESETS[name]
        full = HardBot(rules, iterations=300, check_every=0)
        early = HardBot(rules, iterations=300, check_every=10)
        for g, seat in _hands_in_play(name, 3)[:60]:
            if len([m for m in g.legal_moves() if m < MAX_CARD]) < 2:
                continue
            decisions += 1
            full.moves_played = early.moves_played = 0
            a = full.act(g, seat, random.Random(decisions))
            b = early.act(g, seat, random.Random(decisions))
            same += a == b
            sooner += early.moves_played < full.moves_played
    assert decisions >= 20
    assert same == decisions
    assert sooner > 0


def test_the_seeded_random_source_is_marsaglias_xorshift128_and_a_function_of_its_seed() -> None:
    """``SeededRng`` (a host bot's randomness, seeded by 16 bytes of entropy) is xorshift128:
    from Marsaglia's own starting words its first output is the paper's (J. Stat. Softw.
    8(14), 2003); ``random()`` joins 27 and 26 bits of two outputs into [0, 1); the same
    seed gives the same numbers, another seed others; a seed not of 16 bytes is refused."""
    words = (123456789, 362436069, 521288629, 88675123)
    seed = b"".join(w.to_bytes(4, "big") for w in words)
    assert SeededRng(seed)._next() == 3701687786
    r = SeededRng(seed)
    a, b = r._next() >> 5, r._next() >> 6
    assert SeededRng(seed).random() == (a * 67108864 + b) / 2**53
    one = [SeededRng(bytes(range(16))).random() for _ in range(3)]
    assert one[0] == one[1] == one[2]
    r = SeededRng(bytes(range(16)))
    draws = [r.random() for _ in range(20_000)]
    assert min(draws) >= 0.0
    assert max(draws) < 1.0
    assert abs(sum(draws) / len(draws) - 0.5) < 0.01
    assert len(set(draws)) == len(draws)
    assert SeededRng(bytes(range(1, 17))).random() != draws[0]
    assert SeededRng(bytes(16)).random() > 0  # the all-zero state, which xorshift never leaves
    with pytest.raises(ValueError, match="16 bytes"):
        SeededRng(b"short")


@pytest.mark.parametrize("name", ["blackjack", "switch"])
def test_down_the_tree_a_seat_calls_last_card_as_the_heuristic_does(name: str) -> None:
    """Calls are not choices the tree weighs, but they must still be made there: with them
    left out, a seat that laid down to its last card passed without the call and paid the
    penalty (switch), or could never go out (Black Jack's knock, the call a turn before), so
    the search rated every move down to one card as a blunder. From positions where the seat
    to act holds two cards and may lay one, laying it is rated higher with the seats calling
    as the heuristic does than without (the same random draws), by a clear margin."""
    rules = PRESETS[name]
    gains: list[float] = []
    positions = [p for seed in (8, 9, 10) for p in _hands_in_play(name, seed, players=3)]
    for g, seat in positions:
        cards = [m for m in g.legal_moves() if m < MAX_CARD]
        if g.counts[seat] != 2 or not cards or len(gains) >= 12:
            continue
        rated = []
        for calls in (True, False):
            bot = HardBot(rules, iterations=300, check_every=0, calls_in_tree=calls)
            root = bot.search(g, seat, random.Random(len(gains)))
            laid = [root.children[m] for m in cards if m in root.children]
            rated.append(sum(n.mean() for n in laid) / len(laid))
        gains.append(rated[0] - rated[1])
    assert len(gains) >= 8
    assert sum(gains) / len(gains) > 0.1, gains


def test_the_hard_bot_knocks_with_a_hand_that_could_go_out_in_one_turn() -> None:
    """Black Jack's knock ("cards") is a call made a turn before going out, with any number
    of cards. The heuristic makes it on its last card only, so it never goes out with a run
    (two or more cards laid in one turn). The hard bot knocks as a person does, and where the
    terminal offers the call: when the cards it holds could all go down in one turn — 5♣ 6♣,
    a run in suit — not with cards that could not (5♣ 9♥), and never where the call is
    checked as the turn ends (switch: there the last card is called as the heuristic does)."""
    from lanswitch.game import CALL_LAST, PASS
    from tests.stacking import c, play, sized, stacked

    rules = sized(PRESETS["blackjack"], 3)
    hard, plain = HardBot(rules, iterations=60), HeuristicBot(rules)
    run = stacked(rules, 2, ["4C 5C 6C", "9C 4S 8D"], "4D")
    play(run, 0, c("4C"))  # 5♣ 6♣ left, and the turn may go on
    assert CALL_LAST in run.legal_moves()
    assert plain.act(run, 0, SeededRng(bytes(range(16)))) != CALL_LAST
    assert hard.act(run, 0, SeededRng(bytes(range(16)))) == CALL_LAST
    play(run, 0, CALL_LAST, PASS)
    play(run, 1, c("9C"), PASS)
    play(run, 0, c("5C"), c("6C"))  # out with the run, the turn after the knock: no penalty
    assert run.result is not None
    assert run.result.placings[0] == 0
    apart = stacked(rules, 2, ["4C 5C 9H", "9C 4S 8D"], "4D")
    play(apart, 0, c("4C"))  # 5♣ 9♥: no order lays both in one turn
    assert CALL_LAST in apart.legal_moves()
    assert not hard.knocks(apart.view(0))
    assert hard.act(apart, 0, SeededRng(bytes(range(16)))) != CALL_LAST
    switch = sized(PRESETS["switch"], 3)
    turn_end = stacked(switch, 2, ["4C 5C 6C", "9C 4S 8D"], "4D")
    play(turn_end, 0, c("4C"))
    assert not HardBot(switch).knocks(turn_end.view(0))
