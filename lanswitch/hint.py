"""A hint for the player to act: the move the heuristic bot would make, and one line of why.

One exception: where the last-card call counts when its caller goes out the turn after
(Black Jack's knock), a hand of two or more cards that could all go down in one turn is
told to knock (:func:`~lanswitch.heuristic.knock_ready`), as the hard bot does and the
prompt offers — the heuristic knocks on its last card only, and a player who followed its
hints would never go out with a run.

The terminal client has no engine, only its seat's :class:`~lanswitch.game.View` and the
rules, so the hint is made from those alone: the move is the heuristic bot's
(:class:`~lanswitch.heuristic.HeuristicBot`, the ``normal`` level, which plays from the view),
and the reason reads the same things the bot weighed — the pending pick-up or skip, the rows
of the power cards (:class:`~lanswitch.rules.Power`, in the words of :mod:`lanswitch.powers`),
the suit held most, the next player's count — so the words cannot promise what the rules do
not do. A hint is a :class:`~lanswitch.narrate.Line`, like the log's, so a screen draws its
cards in their suits' colours (or as letters, ``--ascii``). It uses nothing the seat cannot see:
asking for one shows nobody anything.

Pure and quick (tens of microseconds: ``tests/test_hint.py`` times it): no I/O, no clock, no
randomness (the heuristic bot draws none).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .cards import JOKER_BASE, MAX_CARD, SUIT_NAMES
from .game import CALL_LAST, CALL_TWO, DRAW, MIMIC_BASE, PASS, SUIT_BASE, Phase, View
from .heuristic import HeuristicBot, knock_ready
from .narrate import Cards, Line, Part, SuitName
from .powers import effect_words
from .rules import Power, RuleSet

__all__ = ["Hint", "hint"]


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested ``move`` (an engine move: a card id, ``DRAW``, ``PASS``, a suit or a
    joker's face, a call) and ``line``: the move and why, in words ("play 7♣ — …")."""

    move: int
    line: Line


class _NoChance:
    """The heuristic bot's ``rng``: it draws none (a hint is the same every time it is asked)."""

    def random(self) -> float:
        return 0.0


@lru_cache(maxsize=16)
def _bot(rules: RuleSet) -> HeuristicBot:
    return HeuristicBot(rules)


def hint(view: View, rules: RuleSet, names: Sequence[str] = ()) -> Hint | None:
    """The hint for the seat of ``view`` on its turn (None: not its turn, or nothing to do).
    ``names``: every seat's name, for "bob has one card left" (else "the next player")."""
    me = view.seat
    if me is None or view.turn != me or not view.legal:
        return None
    bot = _bot(rules)
    if len(view.hand) > 1 and knock_ready(view, rules, bot.t):
        return Hint(CALL_LAST, Line(_knock(view), "notice"))
    move = bot.choose(view, _NoChance())
    return Hint(move, Line(_words(move, view, rules, bot, names), "notice"))


def _words(
    move: int, view: View, rules: RuleSet, bot: HeuristicBot, names: Sequence[str]
) -> tuple[Part, ...]:
    if SUIT_BASE <= move < SUIT_BASE + 4:
        return _name_suit(move - SUIT_BASE, view, bot)
    if MIMIC_BASE <= move < MIMIC_BASE + 52:
        return _joker_as(move - MIMIC_BASE, view, rules, bot)
    if move == CALL_LAST:
        return ("call last card (l) — ", _call_why(1, view, rules))
    if move == CALL_TWO:
        return ("call peanuckle (n) — ", _call_why(2, view, rules))
    if move == DRAW:
        return _draw(view)
    if move == PASS:
        return _pass(view, rules)
    if 0 <= move < MAX_CARD:
        return ("play ", Cards((move,)), " — ", *_card_why(move, view, rules, bot, names))
    return ("wait: a card of yours is still being opened",)  # pragma: no cover - defensive


# -- the choices and the calls ----------------------------------------------------------------


def _plural(suit: int) -> str:
    return SUIT_NAMES[suit]


def _name_suit(suit: int, view: View, bot: HeuristicBot) -> tuple[Part, ...]:
    held = bot.suit_counts(view.hand)[suit]
    if not held:
        return ("name ", SuitName(suit), " — you hold no card of any suit more than another")
    return ("name ", SuitName(suit), f" — you hold most {_plural(suit)} ({held})")


def _joker_as(face: int, view: View, rules: RuleSet, bot: HeuristicBot) -> tuple[Part, ...]:
    row = _row(face, rules, bot)
    lead: tuple[Part, ...] = ("your joker as ", Cards((face,)), " — ")
    if row is not None:
        words = effect_words(row, "pickup", rules) or effect_words(row, "skip", rules)
        if words:
            return (*lead, f"the strongest attack it may stand for: {words}")
    suit = face // 13
    return (*lead, f"a {_plural(suit)[:-1]}, the suit you hold most")


def _knock(view: View) -> tuple[Part, ...]:
    return (
        "call last card (l) — ",
        Cards(tuple(view.hand)),
        " could all go down in one turn: call now, and next turn you may go out with them",
    )


def _call_why(held: int, view: View, rules: RuleSet) -> str:
    cards = "one card" if held == 1 else "two cards"
    if rules.calls.timing == "on_finish" or rules.calls.required_to_finish:
        return f"you hold {cards}: going out next turn needs the call made first"
    penalty = rules.calls.penalty
    cost = f"you pick up {penalty}" if penalty else "you pay a penalty"
    return f"your turn ends with {cards} in hand: miss the call and {cost}"


# -- draw and pass -----------------------------------------------------------------------------


def _top(view: View) -> int:
    return view.top_face if view.top_face >= 0 else view.top


def _fits(view: View) -> tuple[Part, ...]:
    """What a card must match now: the named suit, else the top card."""
    if view.named_suit >= 0:
        s = view.named_suit
        return (f"is a {_plural(s)[:-1]} (", SuitName(s), " was named)")
    return ("plays on ", Cards((_top(view),)))


def _draw(view: View) -> tuple[Part, ...]:
    if view.pending_kind == "pickup" and view.pending_target == view.seat:
        return (f"pick up {view.pending_amount} (d) — nothing you hold answers it",)
    if view.phase == Phase.FOLLOW:
        return ("draw (d) — nothing you hold covers the ", Cards((_top(view),)))
    return ("draw (d) — nothing you hold ", *_fits(view))


def _pass(view: View, rules: RuleSet) -> tuple[Part, ...]:
    if view.pending_kind == "skip" and view.pending_target == view.seat:
        return ("take the skip (p) — nothing you hold passes it on",)
    if view.phase == Phase.AFTER_DRAW:
        return ("pass (p) — the card you drew does not play",)
    if view.phase == Phase.FOLLOW:
        cards = [m for m in view.legal if 0 <= m < MAX_CARD]
        if cards and len(view.hand) == 1 and rules.calls.timing == "on_finish":
            return ("end your turn (p) — going out now, uncalled, costs the penalty",)
        if cards:
            return ("end your turn (p) — keep your last card for when nothing else plays",)
        return ("end your turn (p) — nothing more you hold may follow",)
    return ("pass (p) — nothing plays and nothing is left to draw",)


# -- a card ------------------------------------------------------------------------------------


def _row(card: int, rules: RuleSet, bot: HeuristicBot) -> Power | None:
    index = bot.t.row_of[card] if 0 <= card < MAX_CARD else -1
    return rules.power[index] if index >= 0 else None


def _next_seat(view: View) -> int | None:
    """The next seat in play after this one (as the heuristic counts it), or None."""
    n = len(view.counts)
    s = view.seat if view.seat is not None else 0
    for _ in range(n):
        s = (s + view.direction) % n
        if view.active[s] and s != view.seat:
            return s
    return None


def _who(seat: int | None, names: Sequence[str]) -> str:
    if seat is not None and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return "the next player"


def _card_why(
    card: int, view: View, rules: RuleSet, bot: HeuristicBot, names: Sequence[str]
) -> tuple[Part, ...]:
    """Why the heuristic lays ``card``: the first of its reasons that holds, in the order it
    weighs them (``HeuristicBot._move`` and ``_value``)."""
    row = _row(card, rules, bot)
    legal = [m for m in view.legal if 0 <= m < MAX_CARD and m < DRAW]
    if view.pending_kind and view.pending_target == view.seat and row is not None:
        return (_answer_words(row, view),)
    if len(view.hand) == 1:
        if (bot.t.no_finish_mask >> card) & 1:
            return ("your last card: a hand may not end on it, so you draw one after it",)
        return ("your last card: you go out",)
    attack = row is not None and (row.pickup > 0 or row.pickup_deal or row.skip > 0)
    nxt = _next_seat(view)
    if attack and row is not None and not row.answer_only and bot.next_count(view) <= 2:
        left = bot.next_count(view)
        effect = effect_words(row, "pickup", rules) or effect_words(row, "skip", rules)
        who = _who(nxt, names)
        return (f"{who} has {'one card' if left == 1 else f'{left} cards'} left: {effect}",)
    if view.phase == Phase.FOLLOW:
        return ("lay on while you can: one card fewer to be caught holding",)
    if len(legal) == 1:
        return ("the only card you hold that plays",)
    t = bot.t
    kept_back = t.wild_mask | bot.answer_mask
    if (kept_back >> card) & 1 and all((kept_back >> c) & 1 for c in legal):
        # Only cards worth keeping play: say which others it keeps, and for what (a wild
        # card is kept longest). "Nothing else you hold plays" beside a bright A♣ was false
        # (the newcomer pass).
        others = tuple(c for c in legal if c != card)
        wilds = tuple(c for c in others if (t.wild_mask >> c) & 1)
        if wilds:
            too = " plays too, but a wild is" if len(wilds) == 1 else " play too, but wilds are"
            return (Cards(wilds), too, " best kept for later")
        too = " plays too, but is" if len(others) == 1 else " play too, but are"
        return (Cards(others), too, f" best kept to answer {_answers(others, rules, bot)}")
    counts = bot.suit_counts(view.hand)
    suit = card // 13 % 4 if card < JOKER_BASE else -1
    if row is not None and (row.follow_suit or row.run) and suit >= 0 and counts[suit] > 1:
        more = counts[suit] - 1
        what = _plural(suit) if more > 1 else _plural(suit)[:-1]
        return (f"you may lay your {more} other {what} after it this turn",)
    kept = _kept(card, legal, rules, bot)
    most = max(counts)
    if suit >= 0 and counts[suit] == most and most > 1:
        # A tie is said as one: "your longest suit" beside two others as long misled (the
        # newcomer pass).
        longest = "your longest suit" if counts.count(most) == 1 else "one of your longest suits"
        words = f"from {longest} ({most} {_plural(suit)}): more to lay on it later"
        return (words, *kept)
    # Of the plain cards that play (the wild cards and answers kept back), it is the one of
    # the longest suit, the highest, or the best of both (the heuristic adds them up).
    plain = [c for c in legal if not (kept_back >> c) & 1] or legal
    points = bot.card_points(card)
    worth = f" ({points} points)" if rules.scoring.mode != "none" else ""

    def held(c: int) -> int:
        return counts[c // 13 % 4] if c < JOKER_BASE else 0

    longer = f"{held(card)} {_plural(suit)}" if suit >= 0 else "jokers"
    if held(card) == max(held(c) for c in plain) and held(card) > 1:
        return (f"the longest of your suits that play ({longer})", *kept)
    if len(plain) == 1 and len(legal) > 1:
        # The others that play are kept back: "it sheds the highest" beside two brighter
        # 8s read as wrong (the newcomer pass, at Black Jack).
        return ("the only card that plays you need not keep", *kept)
    if points == max(bot.card_points(c) for c in plain):
        return ("of the cards that play, it sheds the highest" + worth, *kept)
    return (f"of the cards that play, the best mix of a high card and a long suit ({longer})",)


def _kept(card: int, legal: Sequence[int], rules: RuleSet, bot: HeuristicBot) -> tuple[Part, ...]:
    """The words ", keeping 8♦ for when nothing else plays": a wild card (else the answers to
    a pick-up or a skip) that could have been laid and is kept instead, as the heuristic keeps
    them; or nothing."""
    t = bot.t
    if (t.wild_mask >> card) & 1 or (bot.answer_mask >> card) & 1:
        return ()
    for c in legal:
        if (t.wild_mask >> c) & 1:
            return (", keeping ", Cards((c,)), " for when nothing else plays")
    answers = tuple(c for c in legal if (bot.answer_mask >> c) & 1)
    if answers:
        return (", keeping ", Cards(answers), f" to answer {_answers(answers, rules, bot)}")
    return ()


def _answers(cards: Sequence[int], rules: RuleSet, bot: HeuristicBot) -> str:
    """What ``cards`` (kept to answer an attack) answer: "a pick-up", "a skip" or both, from
    the rows they stack on, cancel or send back (an 8 answers an 8's skip, not a pick-up)."""
    by_name = {row.name: row for row in rules.power}
    pickup = skip = False
    for c in cards:
        row = _row(c, rules, bot)
        if row is None:
            continue
        for name in (*row.stacks_on, *row.cancels, *row.returns):
            target = by_name.get(name)
            if target is not None:
                pickup |= target.pickup > 0 or target.pickup_deal
                skip |= target.skip > 0
    if skip and not pickup:
        return "a skip"
    return "a pick-up or a skip" if skip else "a pick-up"


def _answer_words(row: Power, view: View) -> str:
    """What laying a card of ``row`` does to the pick-up (or skip) this seat faces, from the
    row's fields, in the order the heuristic prefers them (``_answer_rank``)."""
    what = "pick-up" if view.pending_kind == "pickup" else "skip"
    if row.returns:
        return f"it sends the {what} back to whoever laid it"
    if row.stacks_on:
        if row.adds and row.pickup and what == "pick-up":
            return f"it adds {row.pickup} to the {what} and passes it on"
        return f"it passes the {what} on"
    if row.cancels:
        return f"it cancels the {what}"
    return f"it answers the {what}"
