"""What the player is asked to do, and why a card cannot be laid: made from the legal moves
and the pending state, never fixed per phase.

The prompt under the hand reads the view's legal moves (a draw is offered only when ``d`` would
be taken, a call only while it is open) and the power rows of the rules in play: facing a
pick-up it names the cards that answer it ("pick up 2 with d, or lay a 2 or a black Jack to
add to it"); after a 7 that follows suit it says so ("7♣ follows suit: lay more clubs, or p to
end your turn"). :func:`why_not` gives the one-line reason a pointed or marked card cannot be
laid, and :func:`cannot_mark` whether a card marked with Space can follow the ones marked
before it in the same turn.

What may follow within a turn is the engine's to say: :func:`mirror` rebuilds the seat's own
position as an engine hand (:meth:`~lanswitch.game.Game.from_view`, what it cannot see
hidden), the prompt after a card says the engine's grounds
(:meth:`~lanswitch.game.Game.follow_grounds`) in words, and marking lays the marked cards on
that stand-in one by one, so it accepts exactly the sequences the engine takes.

The client knows only its view (no other hand, no engine state), so the words are made from
what the view shows — the top card, the phase, the legal moves, the pending pick-up or skip
and the rows (:class:`Spot`'s ``pending_rows``) the model saw laid to build it — and the rule
set, compiled once into the engine's own :class:`~lanswitch.game.Tables`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..cards import JOKER_BASE, SUIT_NAMES
from ..game import (
    CALL_LAST,
    CALL_TWO,
    DRAW,
    G_ANSWER,
    G_COVER,
    G_FOLLOW,
    G_FOLLOW_SUIT,
    G_NAMED,
    G_RUN,
    G_RUN_START,
    G_STACK,
    G_TOGETHER,
    G_WILD,
    MIMIC_BASE,
    PASS,
    SUIT_BASE,
    Game,
    Ground,
    Phase,
    Tables,
    View,
)
from ..heuristic import one_turn
from ..narrate import predicate_words
from ..rules import Power, RuleSet
from .render import Look, StyledText, card_text, plain, suit_text

__all__ = [
    "Spot",
    "cannot_mark",
    "follow_words",
    "last_call_offered",
    "mirror",
    "prompt",
    "tables_for",
    "why_not",
]


@lru_cache(maxsize=16)
def tables_for(rules: RuleSet) -> Tables:
    """The engine's tables for ``rules`` (which power row owns a card, what may follow)."""
    return Tables(rules)


@dataclass(frozen=True, slots=True)
class Spot:
    """Where the player stands: the view, the rules, who is who, the rows of the cards laid
    into the pending pick-up or skip, the card this seat drew last this turn (-1: none), and
    the cards it laid this turn (a 7 that follows suit holds for the rest of the turn)."""

    view: View
    rules: RuleSet | None
    names: Sequence[str]
    me: int | None
    look: Look = field(default_factory=Look)
    pending_rows: frozenset[int] = frozenset()
    drawn: int = -1
    laid: tuple[int, ...] = ()  # the cards this seat laid this turn, first first

    @property
    def mine(self) -> bool:
        """This seat is to act."""
        v = self.view
        return self.me is not None and v.turn == self.me and bool(v.legal)

    def who(self, seat: int) -> str:
        if seat == self.me:
            return "you"
        return self.names[seat] if 0 <= seat < len(self.names) else "the next player"

    def card(self, card: int) -> str:
        return card_text(card, self.look)

    def row(self, card: int) -> Power | None:
        if self.rules is None or not 0 <= card < JOKER_BASE + 4:
            return None
        index = tables_for(self.rules).row_of[card]
        return self.rules.power[index] if index >= 0 else None

    @property
    def top(self) -> int:
        """The face to match: the top card, or what a joker on top stands for."""
        v = self.view
        return v.top_face if v.top_face >= 0 else v.top


def _rows_words(rows: Sequence[Power], look: Look) -> str:
    """Rows' cards as a reader says them: "a 2 or a black Jack" ("K♥", or "KH" in ASCII)."""
    words: list[str] = []
    for r in rows:
        for p in r.cards:
            w = plain(predicate_words(p), look)
            if w not in words:
                words.append(w)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _answers(spot: Spot) -> tuple[list[Power], list[Power], list[Power]]:
    """The rows that add to, cancel, and send back the pending pick-up or skip."""
    rules = spot.rules
    if rules is None:
        return [], [], []
    pending = {rules.power[i].name for i in spot.pending_rows if i < len(rules.power)}
    if not pending:  # not seen being built (joined mid-hand): the top card's row
        row = spot.row(spot.top)
        pending = {row.name} if row is not None else set()
    stack = [r for r in rules.power if set(r.stacks_on) & pending]
    cancel = [r for r in rules.power if set(r.cancels) & pending]
    ret = [r for r in rules.power if set(r.returns) & pending]
    return stack, cancel, ret


def _suit_word(card: int) -> str:
    return SUIT_NAMES[(card % 52) // 13][:-1]  # "club"


def last_call_offered(spot: Spot) -> bool:
    """Whether ``l`` (the last-card call) is offered now, in the prompt and the key bar.

    The engine makes the call legal from two cards down where a missed call is checked as the
    turn ends (``calls.timing = "turn_end"``): that is the last card(s), and it is offered
    whenever legal. Where the call is checked on going out (``"on_finish"``, Black Jack's
    knock) the engine lets it be declared at the start of any turn, at any hand size, because
    a player may go out with several cards laid in one turn (a run); there a call only
    matters when the cards held could all go down in one turn, so it is offered then:
    the last card, or a hand that the rules' follow-ons (:func:`lanswitch.heuristic.one_turn`)
    can lay out together. (The ``normal`` bot calls only as it ends a turn on one card;
    ``hard`` knocks where this offers the call: :mod:`lanswitch.search`.)"""
    v = spot.view
    if CALL_LAST not in v.legal:
        return False
    rules = spot.rules
    if rules is None or rules.calls.timing != "on_finish" or len(v.hand) <= 1:
        return True
    return one_turn(tuple(v.hand), tables_for(rules), rules.play.wild_continues)


def _calls(spot: Spot) -> list[str]:
    legal = spot.view.legal
    out = []
    if last_call_offered(spot):
        out.append("l calls last card")
    if CALL_TWO in legal:
        out.append("n calls peanuckle")
    return out


def prompt(spot: Spot) -> StyledText:
    """The line that tells the player what to do now (or whose turn it is)."""
    v = spot.view
    if not spot.mine:
        return _waiting(spot)
    legal = v.legal
    cards = [m for m in legal if m in v.hand]
    extras = _calls(spot)
    if v.phase == Phase.NAME_SUIT:
        return [("class:turn", f"name the suit to play next: {spot.look.g.arrows} and Enter")]
    if v.phase == Phase.NAME_CARD:
        return [("class:turn", f"name the card your joker stands for: {spot.look.g.arrows}, Enter")]
    if v.pending_kind and v.pending_target == spot.me:
        main = _facing(spot, bool(cards))
    elif v.phase == Phase.FOLLOW:
        main = _follow(spot, bool(cards))
    elif v.phase == Phase.AFTER_DRAW:
        if cards:
            drawn = spot.card(spot.drawn) if spot.drawn in cards else "a card you can"
            main = f"lay {drawn} with Enter, or p to pass"
        else:
            main = "p to pass: nothing you hold fits"
    elif cards:
        main = "your turn: lay a card with Enter"
        if v.free:
            main = "your turn: lay any card with Enter"
        if DRAW in legal:
            main += ", or d to draw"
        elif PASS in legal:
            main += ", or p to pass"
    elif DRAW in legal:
        main = f"nothing you hold fits {_what_fits(spot)}: d to draw"
    elif PASS in legal:
        main = "nothing fits and nothing is left to draw: p to pass"
    else:
        main = "your turn"
    out: StyledText = [("class:turn", main)]
    extras = [e for e in extras if e not in main]
    if extras:
        sep = spot.look.g.sep
        out.append(("class:dim", sep + sep.join(extras)))
    return out


def _facing(spot: Spot, holding: bool) -> str:
    """Facing a pick-up or a skip: how to take it, and what answers it."""
    v = spot.view
    stack, cancel, ret = _answers(spot)
    n = v.pending_amount
    if v.pending_kind == "pickup":
        text = f"pick up {n} with d"
        ways = []
        if stack:
            ways.append(f"{_rows_words(stack, spot.look)} to add to it")
        if cancel:
            ways.append(f"{_rows_words(cancel, spot.look)} to cancel it")
        if ret:
            ways.append(f"{_rows_words(ret, spot.look)} to send it back")
    else:
        text = f"you miss {n} turn{'s' if n != 1 else ''}: p to take it"
        ways = [f"{_rows_words(stack, spot.look)} to pass it on"] if stack else []
    if ways and holding:
        text += ", or lay " + ", or ".join(ways)
    elif ways:
        every = _rows_words([*stack, *cancel, *ret], spot.look)
        text += f": nothing you hold answers it ({every} would)"
    return text


def _follow(spot: Spot, holding: bool) -> str:
    """After laying a card, in the same turn: what may follow it, and why (the engine's
    grounds, :func:`follow_words`)."""
    v = spot.view
    top = spot.top
    row = spot.row(top)
    end = ", or p to end your turn" if PASS in v.legal else ""
    grounds = _grounds(spot)
    if any(g[0] == G_COVER for g in grounds) and row is not None:
        what = f"a {_suit_word(top)}" if row.cover == "suit" else "any card"
        text = f"cover the {spot.card(top)} with {what}"
        if DRAW in v.legal:
            text += ", or d to draw a card and end your turn"
        return text
    if not holding:
        if CALL_LAST in v.legal and spot.me is not None and v.counts[spot.me] == 1:
            return "you hold one card: l calls last card, then p ends your turn"
        return "p ends your turn" if PASS in v.legal else "your turn goes on"
    lead, phrases = follow_words(spot, grounds)
    if lead:
        return lead + "".join(f", or {p}" for p in phrases) + end
    if not phrases:
        return f"you may lay more{end}"
    return "lay " + ", or ".join(phrases) + end


def mirror(spot: Spot) -> Game | None:
    """The seat's own position as an engine hand (:meth:`Game.from_view`), or None where
    there is none to rebuild (no rules, a spectator)."""
    if spot.rules is None or spot.me is None or spot.view.seat != spot.me:
        return None
    rows = 0
    for r in spot.pending_rows:
        rows |= 1 << r
    laid = list(spot.laid)
    v = spot.view
    if v.phase in (Phase.FOLLOW, Phase.NAME_SUIT) and (not laid or laid[-1] != v.top_face):
        # A card was laid this turn, and it is on top: a spot made without the turn's cards
        # (a seat that came back mid-turn) knows that one at least.
        laid.append(v.top_face)
    return Game.from_view(spot.rules, v, laid=laid, pending_rows=rows)


def _grounds(spot: Spot) -> list[Ground]:
    """The engine's grounds for what may follow now (empty outside a turn's FOLLOW)."""
    if spot.view.phase != Phase.FOLLOW:
        return []
    g = mirror(spot)
    return g.follow_grounds() if g is not None else []


# The order grounds are said in: the widest first, so that a narrower one whose cards a wider
# one already lets follow is not said again (a run's next club after "more clubs").
_SAY_ORDER = (
    G_FOLLOW_SUIT,
    G_RUN_START,
    G_NAMED,
    G_TOGETHER,
    G_STACK,
    G_ANSWER,
    G_RUN,
    G_FOLLOW,
    G_WILD,
)


def follow_words(spot: Spot, grounds: Sequence[Ground]) -> tuple[str, list[str]]:
    """The grounds in words: a lead that says why the turn goes on ("the 7♣ follows suit: lay
    more clubs"; "" if none) and a phrase for each other ground ("another A", "the next heart
    up or down"). A ground whose cards the grounds said before it already let follow is not
    said again; every card of every ground is in what is said."""
    said = 0
    lead = ""
    phrases: list[str] = []
    for kind in _SAY_ORDER:
        for g in grounds:
            if g[0] != kind or not g[2] & ~said:
                continue
            said |= g[2]
            words = _ground_words(spot, g)
            if kind in (G_FOLLOW_SUIT, G_RUN_START) and not lead:
                lead = words
            else:
                phrases.append(words)
    return lead, phrases


def _ground_words(spot: Spot, g: Ground) -> str:
    kind, value, cards = g
    top = spot.top
    rules = spot.rules
    if kind == G_FOLLOW_SUIT:
        opener = _follows_suit(spot)
        first = spot.card(opener) if opener >= 0 else f"a 7 of {SUIT_NAMES[value]}"
        return f"the {first} follows suit: lay more {SUIT_NAMES[value]}"
    if kind == G_RUN_START:
        suit_ = SUIT_NAMES[value][:-1]
        return f"the {spot.card(top)} starts a run: lay any {suit_}, then in sequence"
    if kind == G_NAMED:
        return f"any {SUIT_NAMES[value][:-1]} ({suit_text(value, spot.look)} was named)"
    if kind == G_TOGETHER and rules is not None:
        another = _rows_words([rules.power[value]], spot.look)
        return "another " + another.removeprefix("a ").removeprefix("an ")
    if kind in (G_STACK, G_ANSWER, G_WILD) and rules is not None:
        t = tables_for(rules)
        rows = [r for i, r in enumerate(rules.power) if t.row_mask[i] & cards]
        words = _rows_words(rows, spot.look)
        if kind == G_STACK:
            return f"{words} to add to the pick-up"
        if kind == G_ANSWER:
            return f"{words} to answer the pick-up"
        return words
    rank = card_text(value, Look(ascii=True))[:-1] if 0 <= value < JOKER_BASE else "joker"
    suit = _suit_word(value) if 0 <= value < JOKER_BASE else "card"
    if kind == G_RUN:
        return f"the next {suit} up or down, or another {rank}"
    follow = rules.play.follow if rules is not None else "none"
    if follow == "sets":
        return f"another {rank}"
    if follow == "suit_runs":
        return f"the next {suit} up or down"
    if follow == "runs_and_sets":
        return f"another {rank}, or the next {suit} up or down"
    return f"a card that matches the {spot.card(value)}"


def _follows_suit(spot: Spot) -> int:
    """The card laid this turn that lets the rest of its suit follow (a 7), else -1."""
    for card in (*spot.laid, spot.top):
        row = spot.row(card)
        if row is not None and row.follow_suit:
            return card
    return -1


def _what_fits(spot: Spot) -> str:
    """What a card must match now: the named suit, or the top card."""
    v = spot.view
    if v.named_suit >= 0:
        return f"a {SUIT_NAMES[v.named_suit][:-1]} ({suit_text(v.named_suit, spot.look)} was named)"
    return f"the {spot.card(spot.top)}"


def _waiting(spot: Spot) -> StyledText:
    """Not this seat's turn: whose it is, and what hangs over them."""
    v = spot.view
    if not 0 <= v.turn < len(spot.names):
        return [("class:dim", "")]
    who = spot.who(v.turn)
    text = f"{who} to play"
    if v.pending_kind and 0 <= v.pending_target < len(spot.names):
        target = spot.who(v.pending_target)
        if v.pending_kind == "pickup":
            text += f"{spot.look.g.sep}{target} must pick up {v.pending_amount} or answer it"
        else:
            n = v.pending_amount
            text += (
                f"{spot.look.g.sep}{target} misses {n} turn{'s' if n != 1 else ''} unless answered"
            )
    return [("class:dim", text)]


def why_not(card: int, spot: Spot) -> str:
    """Why ``card`` cannot be laid now, in one line ("" if it can)."""
    v = spot.view
    name = spot.card(card)
    if not spot.mine:
        return f"it is {spot.who(v.turn)}'s turn" if v.turn >= 0 else "wait for your turn"
    if card in v.legal:
        return ""
    if v.phase == Phase.NAME_SUIT:
        return "name the suit first"
    if v.phase == Phase.NAME_CARD:
        return "name the card your joker stands for first"
    top = spot.top
    topname = spot.card(top)
    if v.pending_kind and v.pending_target == spot.me:
        stack, cancel, ret = _answers(spot)
        what = "pick-up" if v.pending_kind == "pickup" else "skip"
        if stack or cancel or ret:
            return f"{name} does not answer the {what}"
        return f"nothing answers this {what}: {'d' if what == 'pick-up' else 'p'} takes it"
    last = _last_card_reason(card, spot)
    if last:
        return last
    if v.phase == Phase.FOLLOW:
        grounds = _grounds(spot)
        row = spot.row(top)
        if any(g[0] == G_COVER for g in grounds) and row is not None:
            if row.cover == "any":
                return f"{name} cannot continue this turn"
            return f"{name} does not cover the {topname}: it needs a {_suit_word(top)}"
        if not grounds:
            return f"{name} cannot follow {topname}: {_one_card(spot)}"
        lead, phrases = follow_words(spot, grounds)
        opener = _follows_suit(spot)
        if lead and not phrases and opener >= 0:
            first = spot.card(opener)
            return f"after the {first} only {_suit_word(opener)}s may follow ({first} follows suit)"
        if lead:
            phrases = [lead.split(": lay ", 1)[-1], *phrases]
        return f"{name} cannot continue this turn: only {', or '.join(phrases)} may follow"
    if v.phase == Phase.AFTER_DRAW:
        return f"{name} does not fit the {topname}"
    if v.named_suit >= 0:
        suit = suit_text(v.named_suit, spot.look)
        return f"{name} is not a {SUIT_NAMES[v.named_suit][:-1]}: {suit} was named"
    if top >= JOKER_BASE:
        return f"{name} cannot be laid now"
    rank = card_text(top, Look(ascii=True))[:-1]
    return f"{name} matches neither the {rank} nor the {_suit_word(top)}s of the {topname}"


def _last_card_reason(card: int, spot: Spot) -> str:
    """Why a last card that would otherwise fit may not be laid (rules about finishing)."""
    v, rules = spot.view, spot.rules
    me = spot.me
    if rules is None or me is None or me >= len(v.counts) or v.counts[me] != 1:
        return ""
    t = tables_for(rules)
    if (t.no_finish_mask >> card) & 1 and rules.play.no_finish_mode == "forbid":
        return f"a hand may not end on {spot.card(card)}: {', '.join(rules.play.no_finish_on)}"
    if rules.calls.required_to_finish and not (v.declared and v.declared[me]):
        return "call last card (l) at the end of a turn before you lay your last card"
    if v.phase == Phase.FOLLOW and not rules.play.finish_multi_card:
        return "a hand may not end with a turn of several cards"
    return ""


def _one_card(spot: Spot) -> str:
    """Why nothing may follow: the rules' words for a turn of one card."""
    rules = spot.rules
    if rules is not None and rules.play.follow == "none":
        return "these rules lay one card a turn"
    return f"nothing may follow the {spot.card(spot.top)} in these rules"


def cannot_mark(marked: Sequence[int], card: int, spot: Spot) -> str:
    """Why ``card`` cannot be laid after the cards ``marked`` (first first) in this turn ("" if
    it can): the marked cards are laid one by one on the engine's stand-in (:func:`mirror`),
    a suit or a joker's card named as the next card needs, and the engine says whether
    ``card`` is then legal — so marking takes exactly the sequences laying one by one takes."""
    if not marked:
        return why_not(card, spot)
    g = mirror(spot)
    me = spot.me
    if g is None or me is None:
        return ""
    laid = list(spot.laid)
    prev = marked[-1]
    for i, move in enumerate(marked):
        if g.turn != me or move not in g.legal_moves():
            return f"{spot.card(move)} can no longer be laid: mark again"
        if g.phase != Phase.FOLLOW:
            laid = []  # a turn of its own (a reverse with two players gives another)
        g.apply(me, move)
        laid.append(move)
        nxt = marked[i + 1] if i + 1 < len(marked) else card
        for _ in range(2):  # a suit to name, or a joker's card (then perhaps a suit)
            if g.turn == me and g.phase == Phase.NAME_SUIT:
                g.apply(me, _suit_for(g.legal_moves(), nxt))
            elif g.turn == me and g.phase == Phase.NAME_CARD:
                face = _face_for(g.legal_moves(), nxt)
                g.apply(me, face)
                laid[-1] = face - MIMIC_BASE
        if i + 1 < len(marked):
            _end_if_only_pass(g, me)
    a, b = spot.card(prev), spot.card(card)
    if g.turn == me and card in g.legal_moves():
        return ""
    if g.turn != me or g.phase != Phase.FOLLOW:
        return f"{b} cannot follow {a}: {_one_card(spot)}"
    # The turn may end here and give this seat another (a reverse with two players).
    after_turn = g.clone()
    _end_if_only_pass(after_turn, me)
    again = after_turn.turn == me and after_turn.phase != Phase.FOLLOW
    if again and card in after_turn.legal_moves():
        return ""
    rows = frozenset(i for i in range(len(g.t.rows)) if g.pend_rows >> i & 1)
    here = Spot(g.view(me), spot.rules, spot.names, me, spot.look, rows, -1, tuple(laid))
    return why_not(card, here) or f"{b} cannot follow {a} in the same turn"


def _end_if_only_pass(g: Game, me: int) -> None:
    """End the turn where the engine would by itself: nothing but PASS is left (the stand-in
    is blind, so it waits for the PASS instead)."""
    if g.turn == me and g.phase == Phase.FOLLOW and g.legal_moves() == [PASS]:
        g.apply(me, PASS)


def _suit_for(legal: Sequence[int], nxt: int) -> int:
    """The suit to name so that ``nxt`` may follow (its own suit), else the first offered."""
    want = SUIT_BASE + (nxt % 52) // 13 if 0 <= nxt < JOKER_BASE else -1
    return want if want in legal else legal[0]


def _face_for(legal: Sequence[int], nxt: int) -> int:
    """The card a joker stands for so that ``nxt`` may follow: its suit or rank if offered."""
    if 0 <= nxt < JOKER_BASE:
        for m in legal:
            face = m - MIMIC_BASE
            if face // 13 == (nxt % 52) // 13 or face % 13 == nxt % 13:
                return m
    return legal[0]
