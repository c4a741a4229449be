"""The heuristic bot: a real, simple strategy, and the play-outs' policy of the search.

It sees exactly what a player at its seat sees (a :class:`~lanswitch.game.View`). Its own
module so that the search (:mod:`lanswitch.search`), which plays hands out with it, and the
bots' registry (:mod:`lanswitch.bots`), which offers both, import it without importing each
other.
"""

from __future__ import annotations

from .cards import JOKER_BASE, MAX_CARD
from .game import (
    CALL_LAST,
    CALL_TWO,
    DRAW,
    MIMIC_BASE,
    PASS,
    SUIT_BASE,
    Game,
    Phase,
    Rng,
    Tables,
    View,
)
from .rules import RuleSet

__all__ = ["ONE_TURN_MAX", "HeuristicBot", "knock_ready", "one_turn"]


class HeuristicBot:
    """A real, simple strategy.

    * Call the way a person does: "last card" only as the turn is about to end with exactly one
      card in hand ("peanuckle": two), so never while staying on two, and never before a draw
      or a pick-up that gives it more (see :meth:`call_before`).
    * Facing a pick-up: send it back, else pass it on, else cancel it, else take it.
    * Otherwise shed: prefer plain cards over power cards, high-scoring cards first, and cards
      of the suit it holds most (so the next turn is likely playable). Keep answers to
      pick-ups and wild cards for when nothing else plays, but attack with a pick-up when the
      next player is about to go out.
    * In a multi-card turn, lay everything it may.
    * Name the suit it holds most; a joker stands for the strongest attack it may name.
    * Draw only when nothing plays.
    """

    name = "heuristic"
    needs_view = True
    searches = False

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.t = Tables(rules)
        self.points = rules.scoring.card_points
        #: Every card that answers a pick-up (sends it back, passes it on, cancels it): kept.
        self.answer_mask = 0
        for i, row in enumerate(rules.power):
            if row.stacks_on or row.cancels or row.returns:
                self.answer_mask |= self.t.row_mask[i]

    def choose_legal(self, legal: list[int], rng: Rng) -> int:
        raise TypeError("the heuristic bot needs the view")

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        return self.choose(game.view(seat), rng)

    def choose(self, view: View, rng: Rng) -> int:
        move = self._move(view)
        call = self.call_before(move, view)
        move = move if call is None else call
        # The view's legal moves are the host's word: a host that leaves some off (a cheat
        # hiding a card) can leave a list the engine never makes — only a call, say — and a
        # move from outside it is refused, and the seat would wait for ever. Play one offered.
        return move if move in view.legal or not view.legal else view.legal[0]

    def call_before(self, move: int, view: View) -> int | None:
        """The call to make before ``move``, or None.

        A call is checked when the turn ends (``calls.timing = "turn_end"``: one card left
        after laying, and not called, costs the penalty) or carried to the next turn as a
        declaration (``"on_finish"`` and ``required_to_finish``: going out needs a call made
        in the turn before). Either way what counts is the hand at the end of the turn, so
        the bot calls just before the move that ends its turn leaving the hand as it is — a
        pass — and only with one card in hand (last card) or two (peanuckle). A laid card
        does not end the turn while a call is open (the engine waits in ``FOLLOW`` for the
        call or the pass), so the bot calls after laying its second-to-last card, as a
        person says "last card" while laying it; a draw or a pick-up leaves it more cards,
        so it does not call before one."""
        legal = view.legal
        if CALL_LAST not in legal and CALL_TWO not in legal:
            return None
        held = self._held_at_turn_end(move, view)
        if held is None:
            return None
        calls = self.rules.calls
        played = view.phase == Phase.FOLLOW or move < MAX_CARD  # a card of this turn is down
        carried = calls.timing == "on_finish" or calls.required_to_finish
        if not (played or carried):
            return None  # nothing laid, nothing declared for next turn: no call is checked
        if held == 1 and CALL_LAST in legal:
            return CALL_LAST
        if held == 2 and CALL_TWO in legal:
            return CALL_TWO
        return None

    def _held_at_turn_end(self, move: int, view: View) -> int | None:
        """The cards the seat will hold when its turn ends after ``move``, where that move
        ends it and the number is certain; None otherwise (the turn goes on, or a draw's
        count is the stock's to say).

        A pass keeps the hand. A last card that must be covered (``cover``) leaves nothing
        to cover it with, so one card is drawn instead; a last card the hand may not end on
        (``no_finish_mode = "draw"``) draws one too. After either no call can be made (a
        call needs a card in hand), so it is made before laying."""
        if move == PASS:
            return len(view.hand)
        if not 0 <= move < MAX_CARD or len(view.hand) != 1:
            return None
        t = self.t
        row = t.row_of[move]
        covered = row >= 0 and t.rows[row].cover != "none"
        no_finish = (t.no_finish_mask >> move) & 1 and self.rules.play.no_finish_mode == "draw"
        return 1 if (covered or no_finish) and view.stock > 0 else None

    def _knocks_first(self, view: View) -> bool:
        """Where going out needs a call made in the turn before (Black Jack's knocking,
        ``timing = "on_finish"``) and this seat has not made it, laying the last card costs
        the penalty: better to call and end the turn on one card."""
        calls = self.rules.calls
        return (
            calls.last_card
            and calls.timing == "on_finish"
            and view.seat is not None
            and not view.declared[view.seat]
        )

    def _move(self, view: View) -> int:
        """The move to make, calls aside."""
        legal = view.legal
        if view.phase == Phase.NAME_SUIT:
            return SUIT_BASE + self.best_suit(view.hand)
        if view.phase == Phase.NAME_CARD:
            return self._best_face(legal, view)
        cards = [m for m in legal if m < MIMIC_BASE and m < DRAW]
        if not cards:
            return DRAW if DRAW in legal else PASS
        facing = view.pending_kind != "" and view.pending_target == view.seat
        if facing:
            return max(cards, key=lambda c: self._answer_rank(c, view))
        if view.phase == Phase.FOLLOW:
            # Lay more while it sheds; stop before giving away the last wild card, and before
            # going out undeclared where that costs the penalty.
            if len(view.hand) == 1 and PASS in legal and self._knocks_first(view):
                return PASS
            if len(view.hand) > 1 or len(cards) == len(view.hand):
                return self._best_shed(cards, view)
            return PASS if PASS in legal else cards[0]
        return self._best_shed(cards, view)

    # -- scoring candidate moves -------------------------------------------------------

    def suit_counts(self, hand: tuple[int, ...]) -> list[int]:
        counts = [0, 0, 0, 0]
        for c in hand:
            if c < JOKER_BASE:
                counts[c // 13 % 4] += 1
        return counts

    def best_suit(self, hand: tuple[int, ...]) -> int:
        counts = self.suit_counts(hand)
        return max(range(4), key=lambda s: (counts[s], -s))

    def card_points(self, c: int) -> int:
        """What ``c`` scores against its holder at the hand's end (high ones are shed first)."""
        return self.points[13] if c >= JOKER_BASE else self.points[c % 13]

    def _answer_rank(self, c: int, view: View) -> float:
        t = self.t
        row = t.row_of[c]
        if row < 0:
            return 0.0
        r = t.rows[row]
        if r.returns:
            return 3.0
        if r.stacks_on:
            return 2.0
        return 1.0 if r.cancels else 0.5

    def next_count(self, view: View) -> int:
        """The cards the next player to act holds (99 if nobody is left)."""
        n = len(view.counts)
        s = view.seat if view.seat is not None else 0
        for _ in range(n):
            s = (s + view.direction) % n
            if view.active[s]:
                return view.counts[s]
        return 99

    def _best_shed(self, cards: list[int], view: View) -> int:
        """The card of ``cards`` with the highest :meth:`_value` (the first of equals):
        the hand's suits and the next player's count worked out once, not once a card (the
        search's play-outs make this choice some ten million times a minute)."""
        counts = self.suit_counts(view.hand)
        next_count = self.next_count(view)
        held = len(view.hand)
        best = cards[0]
        best_value = self._value(best, counts, next_count, held)
        for c in cards[1:]:
            value = self._value(c, counts, next_count, held)
            if value > best_value:
                best, best_value = c, value
        return best

    def _value(self, c: int, counts: list[int], next_count: int, held: int) -> float:
        """How much the heuristic wants to lay ``c`` now, from the hand's suit ``counts``, the
        next player's count and the cards ``held`` (the highest is laid)."""
        t = self.t
        value = float(self.card_points(c))
        if c < JOKER_BASE:
            value += 2.0 * counts[c // 13 % 4]
        row = t.row_of[c]
        if row >= 0:
            r = t.rows[row]
            attack = (r.pickup > 0 or r.pickup_deal or r.skip > 0) and not r.answer_only
            if attack and next_count <= 2:
                value += 40.0
            elif (t.wild_mask >> c) & 1:
                value -= 30.0
            elif (self.answer_mask >> c) & 1:
                value -= 15.0
            if r.follow_suit or r.run:
                value += 3.0 * (counts[c // 13 % 4] - 1)
        if held == 1:
            value += 100.0
        return value

    def _best_face(self, legal: tuple[int, ...], view: View) -> int:
        t = self.t

        def score(move: int) -> float:
            f = move - MIMIC_BASE
            row = t.row_of[f]
            s = 2.0 * self.suit_counts(view.hand)[f // 13 % 4]
            if row >= 0:
                r = t.rows[row]
                s += 10.0 * (r.pickup + r.skip) + (5.0 if r.stacks_on else 0.0)
            return s

        return max(legal, key=score)


ONE_TURN_MAX = 10
"""The largest hand :func:`one_turn` looks for a one-turn finish in (the search is over
orders of the hand): the terminal's offer of the last-card call
(``lanswitch.tui.prompts.last_call_offered``; a bigger hand is not offered it, ``l`` still
makes it) and the hard bot's knock (:mod:`lanswitch.search`)."""


def one_turn(hand: tuple[int, ...], t: Tables, wild_continues: bool) -> bool:
    """Some order of ``hand`` lays every card in one turn by the rules' follow-ons (the
    engine's tables): each card may follow the one before by ``play.follow``, by its row
    laid together, after a card whose row lets its suit follow (7) or names the suit to go
    on in (an Ace), or is wild where ``play.wild_continues`` lets a wild card follow. A
    depth-first search over (cards laid, last card), memoised."""
    n = len(hand)
    if n > ONE_TURN_MAX:
        return False
    if not all(0 <= c < MAX_CARD for c in hand):  # a card not yet readable (dealer-blind)
        return False

    def follows(a: int, b: int) -> bool:
        if b >= JOKER_BASE or (t.wild_mask >> b) & 1:
            return wild_continues  # a wild card goes on within a turn only where it says so
        if a >= JOKER_BASE:
            return False
        if (t.follow_mask[a] | t.together_of[a]) >> b & 1:
            return True
        row = t.row_of[a]
        if row < 0:
            return False
        power = t.rows[row]
        same_suit = (a % 52) // 13 == (b % 52) // 13
        return bool(power.continue_in_suit) or (bool(power.follow_suit) and same_suit)

    seen: set[tuple[int, int]] = set()

    def rest(laid: int, last: int) -> bool:
        if laid == (1 << n) - 1:
            return True
        if (laid, last) in seen:
            return False
        seen.add((laid, last))
        return any(
            not laid >> i & 1 and follows(hand[last], hand[i]) and rest(laid | 1 << i, i)
            for i in range(n)
        )

    return any(rest(1 << i, i) for i in range(n))


def knock_ready(view: View, rules: RuleSet, t: Tables) -> bool:
    """Whether to knock now as a person would: where the last-card call counts when its
    caller goes out the turn after (Black Jack's "cards", ``calls.timing = "on_finish"``),
    the call is open to this seat and its hand could all go down in one turn
    (:func:`one_turn`: the last card, or a run). Where the terminal offers the call too
    (``lanswitch.tui.prompts.last_call_offered``); the hard bot knocks and the hint says so.
    (:class:`HeuristicBot` itself knocks on its last card only.)"""
    return (
        rules.calls.last_card
        and rules.calls.timing == "on_finish"
        and CALL_LAST in view.legal
        and not view.called_last
        and one_turn(view.hand, t, rules.play.wild_continues)
    )
