"""Multi-card turns: what may follow within a turn, said by the prompt, taken by marking, and
allowed by the engine — one rule (:meth:`Game.follow_grounds`) for all three.

Issue 26 item 1: in Black 5 the prompt said "lay another A" after an Ace named a suit, but the
engine let any card of the named suit follow (a bot laid A♦, named ♦, laid 10♦ and went out).
The seed says "1, 2, 3 or 4 cards at a time as long as the cards are of the same face value".
Item 8: marking 7♣ 5♣ then J♣ in Switch was refused ("J♣ cannot follow 5♣: these rules lay
one card a turn") though laying them one by one was taken. And two marked Aces in Black 5 sent
only the first.

Three kinds of test: one per preset pinning its seed's sentence on a stacked deal; random
play-outs of every preset (fixed seeds) checking at every decision that the client's stand-in
of its own position (what the prompt and marking ask) has the engine's legal moves and grounds,
and that marking takes exactly the sequences the engine takes one by one; and the screen (the
in-process terminal client at a real host) for the marking and the Aces.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from lanswitch import protocol as p
from lanswitch.cards import JOKER_BASE, MAX_CARD
from lanswitch.game import (
    G_COVER,
    MIMIC_BASE,
    PASS,
    SUIT_BASE,
    Game,
    Phase,
)
from lanswitch.host import HostConfig
from lanswitch.rules import PRESETS, RuleSet
from lanswitch.tui.layout import compose
from lanswitch.tui.model import TuiModel
from lanswitch.tui.prompts import Spot, cannot_mark, follow_words, mirror, prompt, why_not
from lanswitch.tui.render import Look
from tests.stacking import c, cs, play, sized, stacked
from tests.tablenet import TableNet

NAMES = ("ann", "bob", "cid", "dee")


def text(spot: Spot) -> str:
    return "".join(f[1] for f in prompt(spot))


def spot_of(game: Game, seat: int, laid: Sequence[int] = (), rows: Sequence[int] = ()) -> Spot:
    return Spot(game.view(seat), game.rules, NAMES, seat, Look(), frozenset(rows), -1, tuple(laid))


def legal_cards(game: Game) -> list[int]:
    return [m for m in game.legal_moves() if m < MAX_CARD]


def lay(game: Game, seat: int, cards: str, suits: str = "") -> list[int]:
    """Lay ``cards`` one by one (each must be legal), naming the suits in ``suits`` in turn
    where a card asks for one; the ids laid."""
    names = iter(suits)
    out = []
    for card in cs(cards):
        play(game, seat, card)
        out.append(card)
        if game.phase == Phase.NAME_SUIT:
            play(game, seat, SUIT_BASE + "CDHS".index(next(names)))
    return out


# ---------------------------------------------------------------------------------------------
# Each preset's seed sentence, on a stacked deal.


def test_black5_lays_one_to_four_of_a_face_value_and_an_ace_does_not_open_its_suit() -> None:
    """000 Black 5: "can play 1, 2, 3 or 4 cards at a time as long as the cards are of the
    same face value". After A♦ names ♦ only another Ace may follow — not 10♦ (the bot that
    went out with A♦ 10♦)."""
    rules = sized(PRESETS["black5"], 5)
    game = stacked(rules, 2, ["AD AC 10D 9D 3S", "4C 6H 7H 9H KS"], "9C")
    laid = lay(game, 0, "AD", "D")
    assert game.phase == Phase.FOLLOW
    assert legal_cards(game) == [c("AC")]
    spot = spot_of(game, 0, laid)
    assert text(spot) == "lay another A, or p to end your turn"
    assert why_not(c("10D"), spot) == ("10♦ cannot continue this turn: only another A may follow")
    # Four of a face value, one by one, then the turn is over by itself.
    game = stacked(rules, 2, ["6C 6D 6H 6S 3S", "4C 5H 7H 9H KS"], "9C")
    lay(game, 0, "6C 6D 6H 6S")
    assert game.turn == 1


def test_j28_goes_on_in_the_suit_a_jack_names_and_lays_runs_and_sets() -> None:
    """000 J28: "if a Jack is played the suit can be changed to hearts, then the player is
    allowed to lay a heart and any other appropriate cards on that go"; and 000's own turn on
    6♣: 6♦ 6♥ 6♠ 7♠ 8♠ 9♠ 10♠ J♠ J♣ 10♣ 9♣."""
    rules = sized(PRESETS["j28"], 11)
    hand = "6D 6H 6S 7S 8S 9S 10S JS JC 10C 9C"
    game = stacked(rules, 2, [hand, "4C 5H 7H 9H KS 2D 3D 4D 5D 7D 8D"], "6C")
    assert game.turn == 0  # J28 plays from the dealer's right: seat 0 of two
    lay(game, 0, hand, "SC")  # J♠ names ♠ (J♣ follows by rank), J♣ names ♣
    assert game.counts[0] == 0
    # A Jack names a suit and the turn goes on in it.
    game = stacked(rules, 2, ["JH 4C 5H 7H 9H KS 2D 3D 4D 5D 7D", "KC ..."], "6C")
    laid = lay(game, 0, "JH", "D")
    assert c("2D") in legal_cards(game)
    spot = spot_of(game, 0, laid)
    assert text(spot).startswith("lay any diamond (♦ was named)")


def test_irish_runs_in_suit_and_its_ace_names_the_suit_for_the_next_player() -> None:
    """001: "A player can place consecutive cards of the same suit down"; the Ace names "the
    suit that has to be played next" — the seed says nothing of going on in it."""
    rules = sized(PRESETS["irish"], 5)
    game = stacked(rules, 2, ["6H 7H 7S 9D 3S", "4C 5C 8C 9C KS"], "5H")
    laid = lay(game, 0, "6H")
    assert legal_cards(game) == [c("7H")]
    assert text(spot_of(game, 0, laid)) == "lay the next heart up or down, or p to end your turn"
    game = stacked(rules, 2, ["AH 2H 9D 10D 3S", "4C 5C 8C 9C KS"], "5H")
    laid = lay(game, 0, "AH", "D")
    assert legal_cards(game) == [c("2H")]  # the run goes on from the Ace; not 9♦ or 10♦


def test_blackjack_runs_a_seven_follows_suit_and_an_ace_has_a_run_on_top() -> None:
    """000 Black Jack: "consecutive cards of the same suit"; "Seven: all other cards held by
    that player in the same suit as the 7 may be played"; the Ace "with a run on top of it if
    possible"."""
    rules = sized(PRESETS["blackjack"], 5)
    game = stacked(rules, 2, ["AS 9H 10H 4C 3S", "4D 5D 8D 6D KD"], "5C")
    laid = lay(game, 0, "AS", "H")
    assert legal_cards(game) == [c("9H"), c("10H")]
    assert text(spot_of(game, 0, laid)).startswith("lay any heart (♥ was named)")
    laid += lay(game, 0, "9H")
    assert legal_cards(game) == [c("10H")]
    game = stacked(rules, 2, ["7C 2C KC 9D 3S", "4D 5D 8D 6D KD"], "5C")
    laid = lay(game, 0, "7C")
    assert legal_cards(game) == [c("2C"), c("KC")]
    assert text(spot_of(game, 0, laid)) == (
        "the 7♣ follows suit: lay more clubs, or p to end your turn"
    )


@pytest.mark.parametrize("name", ["switch", "peanuckle", "turbo", "two-four-jack", "take-two"])
def test_one_card_a_turn_but_for_the_power_cards_that_say_otherwise(name: str) -> None:
    """A turn is one card (000 "Object": "may play any card ... that matches"; 002 names no
    multi-card play; 003 Toma dos leaves "dos o más cartas del mismo valor a la vez" to the
    house), but for Switch's 7 ("all other cards held by that player in the same suit as the
    7 may be played") and Black Jacks ("you can play both of them at the same time")."""
    rules = sized(PRESETS[name], 5)
    game = stacked(rules, 2, ["9C 9D 9H 3S 4S", "4D 5D 8D 6D KD"], "9S")
    lay(game, 0, "9C")
    assert game.turn == 1
    if any(r.follow_suit for r in rules.power):
        game = stacked(rules, 2, ["7C 5C JC 9H 3S", "4D 5D 8D 6D KD"], "9C")
        laid = lay(game, 0, "7C 5C")
        assert legal_cards(game) == [c("JC")]
        assert text(spot_of(game, 0, laid)).startswith("the 7♣ follows suit: lay more clubs")
    if any(r.together and r.pickup for r in rules.power):
        game = stacked(rules, 2, ["JC JS 9D 9H 3S", "4D 5D 8D 6D KD"], "9C")
        laid = lay(game, 0, "JC")
        assert legal_cards(game) == [c("JS")]
        assert text(spot_of(game, 0, laid)) == "lay another black Jack, or p to end your turn"


# ---------------------------------------------------------------------------------------------
# Marking: the engine lays the marked cards one by one on the seat's stand-in.


def test_marking_after_a_seven_takes_the_suit_it_opens() -> None:
    """Item 8: with 7♣ 5♣ marked, J♣ was refused ("J♣ cannot follow 5♣: these rules lay one
    card a turn"), though laying them one by one is taken."""
    rules = sized(PRESETS["switch"], 5)
    game = stacked(rules, 2, ["7C 5C JC 9H 3S", "4D 5D 8D 6D KD"], "9C")
    spot = spot_of(game, 0)
    assert cannot_mark([], c("7C"), spot) == ""
    assert cannot_mark([c("7C")], c("5C"), spot) == ""
    assert cannot_mark([c("7C"), c("5C")], c("JC"), spot) == ""
    assert cannot_mark([c("7C"), c("5C")], c("9H"), spot) == (
        "after the 7♣ only clubs may follow (7♣ follows suit)"
    )
    assert cannot_mark([c("5C")], c("JC"), spot) == (
        "J♣ cannot follow 5♣: these rules lay one card a turn"
    )
    lay(game, 0, "7C 5C JC")  # and the engine takes them so


def test_marking_two_aces_in_black5_and_a_jack_run_in_j28() -> None:
    rules = sized(PRESETS["black5"], 5)
    game = stacked(rules, 2, ["AC AH 10C 9D 3S", "4C 6H 7H 9H KS"], "9C")
    spot = spot_of(game, 0)
    assert cannot_mark([c("AC")], c("AH"), spot) == ""
    assert cannot_mark([c("AC")], c("10C"), spot) == (
        "10♣ cannot continue this turn: only another A may follow"
    )
    rules = sized(PRESETS["j28"], 5)
    game = stacked(rules, 2, ["JH 2D 3D 9S 3S", "KC ..."], "6C")
    spot = spot_of(game, 0)
    assert cannot_mark([c("JH")], c("2D"), spot) == ""  # the Jack will name ♦
    assert cannot_mark([c("JH"), c("2D")], c("3D"), spot) == ""
    assert cannot_mark([c("JH"), c("2D")], c("9S"), spot) != ""


# ---------------------------------------------------------------------------------------------
# Random play-outs of every preset: the client's view of its own turn is the engine's.


class Tracker:
    """What a client's model keeps from the events (``TuiModel._events``): the cards each
    seat laid this turn (a joker as the face it stood for) and the rows laid into the
    pending pick-up or skip."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.laid: dict[int, list[int]] = {}
        self.rows: set[int] = set()
        self.last_face = -1

    def take(self, events: Sequence[tuple[str, int, int]]) -> None:
        t = self.game.t
        for kind, seat, value in events:
            if kind == "play":
                self.last_face = value
                self.laid.setdefault(seat, []).append(value)
            elif kind == "mimic":
                self.last_face = value
                if self.laid.get(seat):
                    self.laid[seat][-1] = value
            elif kind == "turn":
                self.laid[seat] = []
            elif kind in ("pickup", "skip") and 0 <= self.last_face < MAX_CARD:
                row = t.row_of[self.last_face]
                if row >= 0:
                    self.rows.add(row)
        if not self.game.pend_kind:
            self.rows.clear()

    def spot(self, seat: int) -> Spot:
        return spot_of(self.game, seat, self.laid.get(seat, []), sorted(self.rows))


def named_for(legal: Sequence[int], nxt: int) -> int:
    """The choice marking makes for the next card: its suit (or a face of its suit/rank)."""
    for m in legal:
        suit_named = SUIT_BASE <= m < SUIT_BASE + 4 and 0 <= nxt < JOKER_BASE
        if suit_named and m - SUIT_BASE == (nxt % 52) // 13:
            return m
        if m >= MIMIC_BASE and 0 <= nxt < JOKER_BASE:
            face = m - MIMIC_BASE
            if face // 13 == (nxt % 52) // 13 or face % 13 == nxt % 13:
                return m
    return legal[0]


def one_by_one(game: Game, seat: int, cards: Sequence[int], then: int) -> bool:
    """Whether the engine takes ``cards`` and then ``then``, laid one by one from ``game``'s
    state (on a copy), each choice made for the card after it."""
    g = game.clone()
    seq = [*cards, then]
    for i, card in enumerate(seq):
        if g.turn != seat or card not in g.legal_moves():
            return False
        if i == len(seq) - 1:
            return True
        g.apply(seat, card)
        for _ in range(2):
            if g.turn == seat and g.phase in (Phase.NAME_SUIT, Phase.NAME_CARD):
                g.apply(seat, named_for(g.legal_moves(), seq[i + 1]))
    return False


def check_position(tracker: Tracker, rng: random.Random, stats: dict[str, int]) -> None:
    game = tracker.game
    seat = game.turn
    spot = tracker.spot(seat)
    stand_in = mirror(spot)
    assert stand_in is not None
    # The stand-in has the engine's moves, and in a turn's FOLLOW its grounds.
    assert stand_in.legal_moves() == game.legal_moves(), (game.rules.name, game.log[-3:])
    if game.phase != Phase.FOLLOW:
        return
    stats["follow"] += 1
    grounds = game.follow_grounds()
    assert stand_in.follow_grounds() == grounds
    # What the prompt says may follow is what the engine lets follow.
    lead, phrases = follow_words(spot, grounds)
    said = "".join(text(spot))
    holding = bool(legal_cards(game))
    for words in ([lead] if lead else []) + phrases:
        # A cover has words of its own; holding nothing that follows, the prompt says p.
        if holding and not any(g[0] == G_COVER for g in grounds):
            assert words in said, (said, words)
    union = 0
    for g in grounds:
        union |= g[2]
    hand = game.hands[seat]
    if game.counts[seat] > 1 and not (game.pend_kind and game.pend_target == seat):
        assert legal_cards(game) == [x for x in range(MAX_CARD) if (hand & union) >> x & 1]


def check_marking(game: Game, rng: random.Random, tracker: Tracker) -> int:
    """At the start of a turn: a random sequence the engine takes one by one; marking takes
    each of its prefixes' next cards and refuses each card the engine would refuse there."""
    seat = game.turn
    spot = tracker.spot(seat)
    hand = game.hand(seat)
    seq: list[int] = []
    checks = 0
    for _ in range(6):
        for card in hand:
            if card in seq:
                continue
            engine = one_by_one(game, seat, seq, card)
            marking = cannot_mark(seq, card, spot) == ""
            assert engine == marking, (game.rules.name, seq, card, cannot_mark(seq, card, spot))
            checks += 1
        nxt = [x for x in hand if x not in seq and one_by_one(game, seat, seq, x)]
        if not nxt:
            break
        seq.append(rng.choice(nxt))
    return checks


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_random_playouts_the_prompt_marking_and_engine_agree(name: str) -> None:
    rules: RuleSet = PRESETS[name]
    rng = random.Random(f"multicard-{name}")
    stats = {"follow": 0, "marks": 0}
    for hand_no in range(12):
        players = 2 + hand_no % 3
        game = Game(rules, players, dealer=hand_no % players)
        tracker = Tracker(game)
        for _ in range(600):  # bounded: a hand is cut short after 600 actions
            req = game.chance_request()
            if req is not None:
                order = list(req[1])
                rng.shuffle(order)
                tracker.take(game.apply_chance(order))
                continue
            if game.over:
                break
            seat = game.turn
            check_position(tracker, rng, stats)
            if game.phase == Phase.PLAY and not tracker.laid.get(seat) and rng.random() < 0.3:
                stats["marks"] += check_marking(game, rng, tracker)
            moves = game.legal_moves()
            cards = [m for m in moves if m < MAX_CARD]
            # Lean towards laying cards (longer turns), else any move.
            move = rng.choice(cards) if cards and rng.random() < 0.85 else rng.choice(moves)
            tracker.take(game.apply(seat, move))
    assert stats["marks"] > 50, stats
    if rules.play.follow != "none" or any(r.follow_suit or r.together for r in rules.power):
        assert stats["follow"] > 20, stats


# ---------------------------------------------------------------------------------------------
# At the screen: the in-process terminal client at a real host.


def table(name: str, seed: int, size: int) -> tuple[TableNet, TuiModel, list[p.Message]]:
    rules = sized(PRESETS[name], size)
    config = HostConfig(name="T", rules=rules, seats=2, bots=1, bot_delay=0.0, hands=None)
    net = TableNet(config, seed=seed)
    link = net.join("ann", auto_ready=True, bot=None)
    sent: list[p.Message] = []

    def send(m: p.Message) -> None:
        sent.append(m)
        net.send(link, m)

    return net, TuiModel(link.session, send=send), sent


def to_my_turn(net: TableNet, model: TuiModel) -> None:
    net.run(lambda: model.session.my_turn(), steps=20_000)
    model.update()


def play_simply(model: TuiModel) -> None:
    """Take the turn with one key: the first legal card, else draw or pass."""
    v = model.session.view
    assert v is not None
    legal = [x for x in v.hand if x in v.legal]
    if model.choices():
        model.enter()
    elif legal:
        model.cursor = v.hand.index(legal[0])
        model.enter()
    elif v.phase == Phase.FOLLOW or PASS in v.legal:
        model.pass_turn()
    else:
        model.draw()


def screen(model: TuiModel, cols: int = 80, rows: int = 24) -> str:
    """The composed screen at ``cols``×``rows`` as one text."""
    return "\n".join("".join(f[1] for f in line) for line in compose(model, cols, rows))


def moves_sent(sent: Sequence[p.Message]) -> list[int]:
    return [m.move for m in sent if isinstance(m, p.Move)]


def test_at_the_screen_a_seven_and_its_suit_are_marked_and_laid_as_marked() -> None:
    """Item 8 where the player meets it: Space on a 7 and two more of its suit, Enter."""
    net, model, sent = table("switch", 3, 7)
    for _ in range(400):
        to_my_turn(net, model)
        v = model.session.view
        assert v is not None
        sevens = [x for x in v.hand if x % 13 == 6 and x in v.legal and v.phase == Phase.PLAY]
        mates = [x for x in v.hand if sevens and x != sevens[0] and x // 13 == sevens[0] // 13]
        if len(mates) >= 2:
            break
        play_simply(model)
    else:
        pytest.fail("no 7 with two of its suit came to hand")
    marked = [sevens[0], *mates[:2]]
    for card in marked:
        model.cursor = v.hand.index(card)
        model.space()
        assert model.status == "", model.status
    assert model.selected == marked
    assert "cannot follow" not in screen(model)
    model.enter()
    for _ in range(len(marked)):
        net.run(lambda: bool(moves_sent(sent)) and model.session.my_turn(), steps=20_000)
        model.update()
    assert moves_sent(sent)[-3:] == marked
    assert model.status == ""


def test_at_the_screen_two_marked_aces_are_both_laid_after_the_suit_is_named() -> None:
    """The Aces: A♣ then A♥ marked in Black 5, Enter laid only A♣ — the suit choice the first
    Ace asks for took the next card's place. Now the choice is made, then the next Ace is laid,
    and the screen says so while the choice is open."""
    net, model, sent = table("black5", 4, 5)
    for _ in range(600):
        to_my_turn(net, model)
        v = model.session.view
        assert v is not None
        aces = [x for x in v.hand if x % 13 == 0]
        if len(aces) >= 2 and aces[0] in v.legal and v.phase == Phase.PLAY:
            break
        play_simply(model)
    else:
        pytest.fail("no two aces came to hand")
    for card in aces[:2]:
        model.cursor = v.hand.index(card)
        model.space()
        assert model.status == "", model.status
    model.enter()
    net.run(lambda: bool(model.session.my_turn() and model.choices()), steps=20_000)
    model.update()
    assert model.choices()  # the first Ace asks for a suit
    assert model.queue == [aces[1]]
    shown = screen(model)
    assert "name the suit" in shown
    assert "is laid as marked" in shown, shown
    model.enter()  # the suit under the cursor
    net.run(lambda: bool(model.session.my_turn() and not model.choices()), steps=20_000)
    model.update()  # the next view: the model lays the next marked card
    assert [m for m in moves_sent(sent) if m in aces[:2]] == aces[:2]


def test_a_house_rule_lets_a_named_suit_go_on_and_a_bad_one_is_refused() -> None:
    """``continue_in_suit`` is a row key a house-rules file may set (Black 5 with J28's habit),
    and only on a row that names a suit."""
    from lanswitch.rules import RulesError, rules_from_mapping

    house = rules_from_mapping(
        {
            "base": "black5",
            "power": [
                {
                    "name": "ace",
                    "cards": "A",
                    "wild": True,
                    "names_suit": True,
                    "continue_in_suit": True,
                },
            ],
        },
        "house.toml",
    )
    game = stacked(sized(house, 5), 2, ["AD AC 10D 9D 3S", "4C 6H 7H 9H KS"], "9C")
    laid = lay(game, 0, "AD", "D")
    assert legal_cards(game) == [c("AC"), c("9D"), c("10D")]
    assert text(spot_of(game, 0, laid)) == (
        "lay any diamond (♦ was named), or another A, or p to end your turn"
    )
    with pytest.raises(RulesError, match=r"power\.ace\.continue_in_suit: only a row that names"):
        rules_from_mapping(
            {"base": "black5", "power": [{"name": "ace", "cards": "A", "continue_in_suit": True}]},
            "house.toml",
        )
