"""What the player is asked to do, and why a card cannot be laid: made from the legal moves
and the pending state, never fixed per phase.

The prompt under the hand reads the view's legal moves (a draw is offered only when ``d`` would
be taken, a call only while it is open) and the power rows of the rules in play: facing a
pick-up it names the cards that answer it ("pick up 2 with d, or lay a 2 or a black Jack to
add to it"); after a 7 that follows suit it says so ("7♣ follows suit: lay more clubs, or p to
end your turn"). :func:`why_not` gives the one-line reason a pointed or marked card cannot be
laid, and :func:`cannot_follow` whether a card marked with Space can follow the one marked
before it in the same turn.

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
from ..game import CALL_LAST, CALL_TWO, DRAW, PASS, Phase, Tables, View
from ..narrate import predicate_words
from ..rules import Power, RuleSet
from .render import Look, StyledText, card_text, plain, suit_text

__all__ = ["Spot", "cannot_follow", "prompt", "tables_for", "why_not"]


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


def _calls(spot: Spot) -> list[str]:
    legal = spot.view.legal
    out = []
    if CALL_LAST in legal:
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
    """After laying a card, in the same turn: what may follow it, and why."""
    v = spot.view
    rules = spot.rules
    top = spot.top
    row = spot.row(top)
    end = ", or p to end your turn" if PASS in v.legal else ""
    if row is not None and row.cover != "none":
        what = f"a {_suit_word(top)}" if row.cover == "suit" else "any card"
        text = f"cover the {spot.card(top)} with {what}"
        if DRAW in v.legal:
            text += ", or d to draw a card and end your turn"
        return text
    if not holding:
        if CALL_LAST in v.legal and spot.me is not None and v.counts[spot.me] == 1:
            return "you hold one card: l calls last card, then p ends your turn"
        return "p ends your turn" if PASS in v.legal else "your turn goes on"
    opener = _follows_suit(spot)
    if opener >= 0:
        return f"the {spot.card(opener)} follows suit: lay more {_suit_word(opener)}s{end}"
    if row is not None and row.run:
        return (
            f"the {spot.card(top)} starts a run: lay any {_suit_word(top)}, then in sequence{end}"
        )
    if row is not None and row.together:
        another = _rows_words([row], spot.look).removeprefix("a ").removeprefix("an ")
        return f"lay another {another}{end}"
    follow = rules.play.follow if rules is not None else "none"
    rank = card_text(top, Look(ascii=True))[:-1] if top < JOKER_BASE else "joker"
    if follow == "sets":
        return f"lay another {rank}{end}"
    if follow == "suit_runs":
        return f"lay the next {_suit_word(top)} up or down{end}"
    if follow == "runs_and_sets":
        return f"lay another {rank}, or the next {_suit_word(top)} up or down{end}"
    if follow == "chain":
        return f"lay a card that matches the {spot.card(top)}{end}"
    return f"you may lay more{end}"


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
        row = spot.row(top)
        if row is not None and row.cover != "none":
            return f"{name} does not cover the {topname}: it needs a {_suit_word(top)}"
        opener = _follows_suit(spot)
        if opener >= 0:
            first = spot.card(opener)
            return f"after the {first} only {_suit_word(opener)}s may follow ({first} follows suit)"
        reason = cannot_follow(top, card, spot)
        return reason or f"{name} cannot continue this turn"
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


def cannot_follow(prev: int, card: int, spot: Spot) -> str:
    """Why ``card`` cannot follow ``prev`` within one turn ("" if the rules let it)."""
    rules = spot.rules
    if rules is None:
        return ""
    t = tables_for(rules)
    m = t.follow_mask[prev] if prev < JOKER_BASE else 0
    row = spot.row(prev)
    if row is not None:
        index = rules.power.index(row)
        m |= t.together_mask[index]
        suit = (prev % 52) // 13
        if row.follow_suit or row.run or row.cover == "suit":
            m |= t.suit_mask[suit]
        if row.cover == "any":
            m |= t.all_mask
    if rules.play.wild_continues:
        m |= t.wild_mask
    if (m >> card) & 1:
        return ""
    a, b = spot.card(prev), spot.card(card)
    if not m:
        return f"{b} cannot follow {a}: these rules lay one card a turn"
    return f"{b} cannot follow {a} in the same turn"
