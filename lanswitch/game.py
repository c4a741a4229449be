"""The rules engine: a pure, deterministic state machine for one hand of Switch.

Theory of operation
-------------------
A :class:`Game` is one hand. It is driven like an OpenSpiel state: the seat to act asks for
:meth:`Game.legal_moves` and applies one with :meth:`Game.apply`; chance is explicit, so the
hand replays exactly from its log. Chance happens twice: the deal (phase ``DEAL``) and every
reshuffle of the discard pile (phase ``RESHUFFLE``). In those phases no player may act; the
caller asks :meth:`Game.chance_request` for the cards to order and answers with
:meth:`Game.apply_chance`. Nothing in here draws a random number or reads a clock — the deck
source (a seeded shuffler for simulations, the fair deal for networked tables) is outside.

Moves are small ints: ``0..107`` play that card id, and the constants :data:`DRAW`,
:data:`PASS`, :data:`SUIT_BASE` + suit, :data:`CALL_LAST`, :data:`CALL_TWO`,
:data:`MIMIC_BASE` + face. A multi-card turn is a sequence of card moves by the same seat
(phase ``FOLLOW``) closed by :data:`PASS`, so the legal-move list stays short whatever the
rules allow. An illegal move raises :class:`IllegalMove` with a typed :class:`Reason` and
leaves the state untouched; where the rules charge for blunders, :meth:`Game.blunder`
applies the charge as a logged action of its own.

Speed comes from the representation: a hand is a bitmask over card ids, every "which cards
may follow this one" question is a precomputed mask (built once per rule set by
:class:`Tables`), and the hot path allocates little more than the move list and the events.

Reshuffles happen eagerly: as soon as the stock is empty after an action (and the discard
pile holds more than its top card), the hand waits for a reshuffle. So every player action
starts with a non-empty stock or with no card left to draw at all. A draw of several cards
that empties the stock half-way leaves the rest as a debt, paid right after the reshuffle and
before anyone acts.

Why one module of some 2,000 lines (a :class:`Game` of some 1,230): this is the module mypyc
compiles (``make``; :mod:`lanswitch._native` picks the build), and it runs about 2.5 times
faster compiled. mypyc makes a call native only inside what it compiles: a helper moved to
another module would be reached by an ordinary Python call from the hot path (every legal-move
list, every apply), and its classes would lose their native attribute access. So the engine
keeps, in one compilation unit, what the hot path touches — the move encoding, the per-rule-set
:class:`Tables`, the views and the result — with the :class:`Match` that scores its hands; the
rest is outside it already: the rule rows in :mod:`lanswitch.rules`, the blind form's positions in
:mod:`lanswitch.fairdeal.blind.positions`, the narration in :mod:`lanswitch.narrate`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal, Protocol, get_args

from . import cards as _cards
from .cards import SUIT_LETTERS, deck_cards, format_card
from .errors import InvalidInput, LocalError
from .rules import MAX_PLAYERS, MIN_PLAYERS, RuleSet, compile_predicate

# The card-id bounds of lanswitch.cards, as constants of this module: the compiled engine
# inlines its own module's constants but would look another module's up at every use.
MAX_CARD: Final = 108
JOKER_BASE: Final = 104
if (MAX_CARD, JOKER_BASE) != (_cards.MAX_CARD, _cards.JOKER_BASE):
    raise ImportError("lanswitch.game's card-id bounds disagree with lanswitch.cards")

__all__ = [
    "BLUNDERED",
    "CALLED_LAST",
    "CALLED_PEANUCKLE",
    "CALL_LAST",
    "CALL_TWO",
    "DRAW",
    "EVENT_KINDS",
    "G_ANSWER",
    "G_COVER",
    "G_FOLLOW",
    "G_FOLLOW_SUIT",
    "G_NAMED",
    "G_RUN",
    "G_RUN_START",
    "G_STACK",
    "G_TOGETHER",
    "G_WILD",
    "HIDDEN_BASE",
    "MIMIC_BASE",
    "MISSED_LAST",
    "MISSED_PEANUCKLE",
    "NO_FINISH",
    "PASS",
    "STATE_FIELDS",
    "SUIT_BASE",
    "DeterminizeError",
    "Event",
    "EventKind",
    "Game",
    "Ground",
    "HandResult",
    "IllegalMove",
    "Match",
    "Phase",
    "Reason",
    "Rng",
    "Tables",
    "View",
    "format_move",
    "parse_move",
    "redact",
    "turn_mark",
]

# ---------------------------------------------------------------------------------------------
# Moves

DRAW: Final = 200
PASS: Final = 201
SUIT_BASE: Final = 210  # + suit 0..3
CALL_LAST: Final = 220
CALL_TWO: Final = 221
MIMIC_BASE: Final = 300  # + face 0..51
BLUNDER_FLAG: Final = 1 << 16  # marks a blunder in the log
# A hidden card: a position of a dealer-blind deck whose card nobody running this engine knows
# yet (``HIDDEN_BASE + position``, see :meth:`Game.reveal`). Above every card id and move, so
# it is never a legal move and matches nothing.
HIDDEN_BASE: Final = 512


class Phase(enum.IntEnum):
    """Where the hand stands. ``DEAL`` and ``RESHUFFLE`` wait for chance, not a player."""

    DEAL = 0
    PLAY = 1  # the seat to act starts its turn (or goes on drawing until it can play)
    FOLLOW = 2  # the seat has laid a card and may lay more, call, or end the turn
    NAME_SUIT = 3  # the seat laid a suit-naming wild and must name the suit
    NAME_CARD = 4  # the seat laid a mimic joker and must name the card it stands for
    AFTER_DRAW = 5  # draw "one_then_play": the seat drew and may play or pass
    RESHUFFLE = 6
    OVER = 7


# The same values as plain ints: the engine compares these on its hot path (an int compare
# is cheaper than an enum member lookup). Public fields hand out ``Phase`` members.
_DEAL: Final = 0
_PLAY: Final = 1
_FOLLOW: Final = 2
_NAME_SUIT: Final = 3
_NAME_CARD: Final = 4
_AFTER_DRAW: Final = 5
_RESHUFFLE: Final = 6
_OVER: Final = 7
#: ``Phase`` members by value: a tuple index, where calling the enum is a slow lookup (the
#: host makes a view per seat per step).
_PHASES: Final = tuple(sorted(Phase))


class Reason(enum.Enum):
    """Why a move was rejected. The value is the text a player sees."""

    HAND_OVER = "the hand is over"
    WAITING_FOR_DEAL = "the cards are being shuffled"
    NOT_YOUR_TURN = "it is not your turn"
    NO_SUCH_MOVE = "there is no such move"
    NOT_IN_HAND = "that card is not in your hand"
    DOES_NOT_MATCH = "that card does not match the top card's suit or rank"
    MUST_ANSWER = "you must answer the pick-up or skip, or take it"
    CANNOT_FINISH_ON = "a hand may not end on that card"
    CANNOT_FINISH_MULTI = "a hand may not end with a turn of several cards"
    NOT_CALLED = "you did not call last card, so you may not play your last card yet"
    DOES_NOT_FOLLOW = "that card cannot continue this turn"
    MUST_COVER = "you must cover that card"
    MUST_PLAY = "you have a card you can play, so you may not draw"
    CANNOT_DRAW = "there is nothing to draw or you may not draw now"
    CANNOT_PASS = "you may not pass now"
    NAME_SUIT_FIRST = "name the suit first"
    NAME_CARD_FIRST = "name the card the joker stands for first"
    NOT_NAMING = "there is no suit or card to name now"
    CANNOT_CALL = "that call is not open now"
    NOT_LEGAL = "that card cannot stand for the joker now"


class DeterminizeError(LocalError):
    """:meth:`Game.determinize` was asked of a hand it cannot deal again: the seat's own
    cards are hidden on this engine (a dealer-blind host's), or the cards out of sight do not
    add up."""


class IllegalMove(InvalidInput):
    """A rejected move. The state it was tried on is unchanged."""

    def __init__(self, reason: Reason, seat: int, move: int) -> None:
        super().__init__(f"{format_move(move)}: {reason.value}")
        self.reason = reason
        self.seat = seat
        self.move = move


def format_move(move: int, *, symbols: bool = False) -> str:
    """Short text for a move: ``10H``, ``draw``, ``pass``, ``suit H``, ``call last``, ``as 7H``."""
    if 0 <= move < MAX_CARD:
        return format_card(move, symbols=symbols)
    if move == DRAW:
        return "draw"
    if move == PASS:
        return "pass"
    if SUIT_BASE <= move < SUIT_BASE + 4:
        return f"suit {SUIT_LETTERS[move - SUIT_BASE]}"
    if move == CALL_LAST:
        return "call last"
    if move == CALL_TWO:
        return "call peanuckle"
    if MIMIC_BASE <= move < MIMIC_BASE + 52:
        return f"as {format_card(move - MIMIC_BASE, symbols=symbols)}"
    return f"<move {move}>"


def parse_move(text: str, hand: Iterable[int] = ()) -> int:
    """Parse what :func:`format_move` prints. A card face is matched to the copy in ``hand``."""
    from .cards import parse_card, parse_suit

    t = " ".join(text.strip().lower().split())
    simple = {
        "draw": DRAW,
        "pass": PASS,
        "end": PASS,
        "call last": CALL_LAST,
        "last": CALL_LAST,
        "call peanuckle": CALL_TWO,
        "peanuckle": CALL_TWO,
    }
    if t in simple:
        return simple[t]
    if t.startswith("suit "):
        return SUIT_BASE + parse_suit(t[5:])
    if t.startswith("as "):
        return MIMIC_BASE + parse_card(t[3:]) % 52
    card = parse_card(t)
    for c in hand:
        if c == card or (c < JOKER_BASE and card < JOKER_BASE and c % 52 == card % 52):
            return c
        if c >= JOKER_BASE and card >= JOKER_BASE:
            return c
    return card


# ---------------------------------------------------------------------------------------------
# Tables compiled once per rule set

_FOLLOW_MODES: Final = ("none", "sets", "suit_runs", "runs_and_sets", "chain")


# Per-row effect flags, compiled from the Power rows so that laying a card tests bits rather
# than reading the rule-set objects.
F_PICKUP: Final = 1
F_SKIP: Final = 2
F_SKIP_STACK: Final = 4
F_ANSWER_ONLY: Final = 8
F_REVERSE: Final = 16
F_AGAIN: Final = 32
F_FOLLOW_SUIT: Final = 64
F_COVER: Final = 128
F_COVER_ANY: Final = 256
F_RUN: Final = 512
F_NAMES_SUIT: Final = 1024
F_CANCEL_ALL: Final = 2048
F_PASSES_ON: Final = 4096  # stacking passes the pending amount on as it is (``adds = false``)
F_CONTINUE_SUIT: Final = 8192  # after its suit is named the turn goes on in that suit
F_TURN_EFFECTS: Final = F_REVERSE | F_AGAIN | F_FOLLOW_SUIT | F_COVER | F_RUN | F_NAMES_SUIT

_FACES: Final = (1 << 52) - 1  # the faces of deck 0: what a mimic joker may name


def _bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


# What may continue a turn, and why. The engine's one rule for what may follow within a turn
# (:meth:`Game.follow_grounds`) is a list of grounds: each is one rule of the rule set that
# lets some cards follow — the play.follow option from the last card, a power row's own
# effect, a named suit — with the cards it lets follow. The engine's legal moves are the
# union of their cards; the prompt under the hand says each ground in words
# (``lanswitch.tui.prompts``), so the two cannot disagree.
G_COVER: Final = 1  # the last card must be covered (its row's cover): value = the card
G_ANSWER: Final = 2  # still facing a pick-up after a part-cancel: more answers of the row laid
G_FOLLOW: Final = 3  # play.follow (sets, runs, chain) from the last card: value = that card
G_TOGETHER: Final = 4  # the last card's row is laid "together": value = the row
G_STACK: Final = 5  # pick-ups of "together" rows that stack on this turn's: value = pend rows
G_FOLLOW_SUIT: Final = 6  # a follow_suit card (7) was laid this turn: value = its suit
G_RUN_START: Final = 7  # right after a run card (10-run): any card of its suit: value = suit
G_RUN: Final = 8  # in a 10-run: next in sequence or same rank: value = the last card
G_NAMED: Final = 9  # a suit was named by a continue_in_suit row: value = the suit
G_WILD: Final = 10  # play.wild_continues: a wild card may continue: value = -1

Ground = tuple[int, int, int]
"""``(kind, value, cards)``: one G_* kind, what it is about, and the mask of the cards it lets
follow."""


def turn_mark(
    t: Tables, face: int, marks: tuple[int, int, int, int, int]
) -> tuple[int, int, int, int, int]:
    """The turn's marks after laying ``face``: ``(follow_suit, run_state, run_suit, cover,
    cover_suit)`` — what the power cards laid so far this turn leave open (a 7 that follows
    suit holds for the turn, a run goes on in sequence, a Queen waits to be covered). The
    engine keeps them as it lays each card; :meth:`Game.from_view` folds a seat's cards laid
    this turn through the same function."""
    follow_suit, run_state, run_suit, cover, cover_suit = marks
    if cover and (cover == 2 or face // 13 % 4 == cover_suit):
        cover = 0
    if run_state == 1:
        run_state = 2
    row = t.row_of[face]
    if row >= 0:
        f = t.flags[row]
        suit_ = face // 13 % 4
        if f & F_FOLLOW_SUIT:
            follow_suit = suit_
        if f & F_COVER:
            cover = 2 if f & F_COVER_ANY else 1
            cover_suit = suit_
        if f & F_RUN:
            run_state = 1
            run_suit = suit_
    return (follow_suit, run_state, run_suit, cover, cover_suit)


class Tables:
    """Everything the engine looks up, derived once from a :class:`RuleSet`.

    Power rows become per-card arrays (``row_of``) and per-row masks; matching and following
    become per-card masks, so a legal-move query is a few ``&`` and ``|`` on ints.
    """

    def __init__(self, rules: RuleSet, cards: int = (1 << MAX_CARD) - 1) -> None:
        """``cards``: the mask of the card ids in play (a hand's deck). Every mask is kept
        within it, so a one-deck game computes on ints below 2**52 (cheaper than the 108-bit
        ints the whole id range would need, and native ints in the compiled engine)."""
        self.rules = rules
        ordinary = range(JOKER_BASE)
        self.rank_mask = [0] * 13
        self.suit_mask = [0] * 4
        for c in ordinary:
            if (cards >> c) & 1:
                self.rank_mask[c % 13] |= 1 << c
                self.suit_mask[(c // 13) % 4] |= 1 << c
        self.joker_mask = cards & ~((1 << JOKER_BASE) - 1)
        self.all_mask = cards

        rows = rules.power
        self.row_names = [r.name for r in rows]
        self.row_of = [-1] * MAX_CARD
        self.row_mask = [0] * len(rows)
        for i, r in enumerate(rows):
            m = 0
            for p in r.cards:
                m |= compile_predicate(p)
            for c in _bits(m & cards):
                if self.row_of[c] < 0:  # the first row that names a card owns it
                    self.row_of[c] = i
                    self.row_mask[i] |= 1 << c
        self.power_mask = 0
        for m in self.row_mask:
            self.power_mask |= m
        index = {r.name: i for i, r in enumerate(rows)}
        self.rows = rows
        self.is_pickup = [r.pickup > 0 or r.pickup_deal for r in rows]
        self.stacks_on = [sum(1 << index[n] for n in r.stacks_on) for r in rows]
        self.cancels = [sum(1 << index[n] for n in r.cancels) for r in rows]
        self.returns = [sum(1 << index[n] for n in r.returns) for r in rows]
        self.cancel_order = [tuple(index[n] for n in r.cancels) for r in rows]
        self.wild_mask = 0
        self.mimic_mask = 0
        self.together_mask = [0] * len(rows)
        self.together_all = 0
        for i, r in enumerate(rows):
            if r.wild or r.mimic:
                self.wild_mask |= self.row_mask[i]
            if r.mimic:
                self.mimic_mask |= self.row_mask[i]
            if r.together:
                self.together_mask[i] = self.row_mask[i]
                self.together_all |= self.row_mask[i]
        self.skip_stacking = [bool(r.skip and r.stacks_on) for r in rows]

        m = 0
        for p in rules.play.no_finish_on:
            m |= compile_predicate(p, self.power_mask)
        self.no_finish_mask = m & cards

        # match_mask[c]: cards that may be laid on c by suit or rank (wilds are added apart).
        self.match_mask = [0] * MAX_CARD
        for c in ordinary:
            self.match_mask[c] = self.rank_mask[c % 13] | self.suit_mask[(c // 13) % 4]
        for c in range(JOKER_BASE, MAX_CARD):
            self.match_mask[c] = self.all_mask
        # follow_mask[c]: cards that may follow c within one turn under play.follow.
        mode = rules.play.follow
        self.follow_mode = _FOLLOW_MODES.index(mode)
        self.follow_mask = [0] * MAX_CARD
        self.run_mask = [0] * MAX_CARD  # same suit, next rank up or down
        for c in ordinary:
            rk, st = c % 13, (c // 13) % 4
            adj = 0
            for rr in (rk - 1, rk + 1):
                if 0 <= rr < 13:
                    adj |= self.rank_mask[rr] & self.suit_mask[st]
            self.run_mask[c] = adj
            if mode == "sets":
                self.follow_mask[c] = self.rank_mask[rk]
            elif mode == "suit_runs":
                self.follow_mask[c] = adj
            elif mode == "runs_and_sets":
                self.follow_mask[c] = adj | self.rank_mask[rk]
            elif mode == "chain":
                self.follow_mask[c] = self.match_mask[c]
        self._answer_cache: dict[int, tuple[int, int, int]] = {}

        # Shortcuts for the hot path (see Game.apply and Game.legal_moves).
        play, calls = rules.play, rules.calls
        self.start_mask = [m | self.wild_mask for m in self.match_mask]
        self.may_draw_instead = play.may_draw_instead
        self.wild_exempt = play.wild_exempt_from_forced_play
        self.draw_until_playable = play.draw == "until_playable"
        knock = calls.last_card and calls.timing == "on_finish"
        # The largest hand at which a call may be open at the start of a turn, and later in it.
        follow_calls = 3 if calls.peanuckle else 2 if calls.last_card else 0
        self.call_max = MAX_CARD if knock else follow_calls
        # A plain card laid from a hand bigger than this ends the turn with nothing to check.
        self.quiet_hand = max(2, follow_calls) + 1
        self.follow_calls = follow_calls
        plain_follow = self.follow_mode == 0 and not play.wild_continues
        self.plain_follow = plain_follow
        self.together_of = [self.together_mask[r] if r >= 0 else 0 for r in self.row_of]
        self.flags: list[int] = []
        self.amount: list[int] = []  # pick-up or skip per row; -1: the hand size dealt
        for i, r in enumerate(rows):
            f = 0
            for flag, on in (
                (F_PICKUP, self.is_pickup[i]),
                (F_SKIP, r.skip > 0),
                (F_SKIP_STACK, r.skip > 0 and bool(r.stacks_on)),
                (F_ANSWER_ONLY, r.answer_only),
                (F_REVERSE, r.reverse),
                (F_AGAIN, r.again),
                (F_FOLLOW_SUIT, r.follow_suit),
                (F_COVER, r.cover != "none"),
                (F_COVER_ANY, r.cover == "any"),
                (F_RUN, r.run),
                (F_NAMES_SUIT, r.names_suit),
                (F_CANCEL_ALL, r.cancel == "all"),
                (F_PASSES_ON, not r.adds),
                (F_CONTINUE_SUIT, r.continue_in_suit),
            ):
                if on:
                    f |= flag
            self.flags.append(f)
            self.amount.append(-1 if r.pickup_deal else r.pickup if self.is_pickup[i] else r.skip)
        self.plain_card = [
            c < JOKER_BASE and plain_follow and self.row_of[c] < 0 for c in range(MAX_CARD)
        ]
        self.continue_suit_of = [
            self.row_of[c] >= 0 and bool(self.flags[self.row_of[c]] & F_CONTINUE_SUIT)
            for c in range(MAX_CARD)
        ]

    def answers(self, pend_rows: int) -> tuple[int, int, int]:
        """Masks of the cards that stack on, cancel, or return a pending set of rows."""
        hit = self._answer_cache.get(pend_rows)
        if hit is None:
            stack = cancel = ret = 0
            for i in range(len(self.rows)):
                if self.stacks_on[i] & pend_rows:
                    stack |= self.row_mask[i]
                elif self.cancels[i] & pend_rows:
                    cancel |= self.row_mask[i]
                elif self.returns[i] & pend_rows:
                    ret |= self.row_mask[i]
            # A mimic joker may answer if some face it could name answers.
            if (stack | cancel | ret) & ((1 << JOKER_BASE) - 1):
                stack |= self.mimic_mask & ~(cancel | ret)
            hit = (stack, cancel, ret)
            self._answer_cache[pend_rows] = hit
        return hit


@lru_cache(maxsize=64)
def _tables(rules: RuleSet, cards: int) -> Tables:
    return Tables(rules, cards)


# ---------------------------------------------------------------------------------------------
# Events, views, results

Event = tuple[str, int, int]
"""``(kind, seat, value)``: what happened, in order. ``value`` is a card id, a count, a suit,
or -1. Kinds: deal, starter, play, draw (one per card), pickup (the amount now pending),
take (a seat takes the pending pick-up: the amount), cancel, return, skip, miss, reverse,
again, suit, mimic, call, penalty, blunder, pass, finish, reshuffle, forgiven, turn, over.
On the wire and in logs the kind is a plain string (:data:`EventKind` names them all);
:mod:`lanswitch.narrate` tells each one in words."""

EventKind = Literal[
    "deal",  # (seat, card) dealt to that seat (-1 to the others: see redact)
    "starter",  # (-1, card) turned up to start the pile (several: power cards turned past)
    "play",  # (seat, card) laid
    "draw",  # (seat, card) one card drawn (-1 to the others)
    "pickup",  # (seat that laid it, the amount now pending)
    "take",  # (seat, amount) the seat takes the pending pick-up (its draws follow)
    "cancel",  # (seat, amount still pending) a card cancelled (part of) the pick-up
    "return",  # (seat, seat it goes back to) a card sent the pick-up back
    "skip",  # (seat that laid it, turns the next player is to miss)
    "miss",  # (seat, turns) the seat misses turns
    "reverse",  # (seat, new direction: 1 clockwise, -1 anticlockwise)
    "again",  # (seat, -1) the seat plays again
    "suit",  # (seat, suit 0..3) named by a wild
    "mimic",  # (seat, face) the joker stands for that card
    "call",  # (seat, CALLED_LAST or CALLED_PEANUCKLE)
    "penalty",  # (seat, MISSED_LAST, MISSED_PEANUCKLE, BLUNDERED or NO_FINISH) its draws follow
    "blunder",  # (seat, move) an illegal move charged (the move did not happen)
    "pass",  # (seat, -1) the seat passes without drawing (nothing to draw)
    "finish",  # (seat, place) the seat is out, in that place (1 = first)
    "reshuffle",  # (-1, cards) the pile under its top card becomes the stock
    "forgiven",  # (seat, cards) what could not be drawn (no card left anywhere) is let go
    "turn",  # (seat, -1) the seat is to act
    "over",  # (winner, seats placed) the hand is over
]
EVENT_KINDS: Final[frozenset[str]] = frozenset(get_args(EventKind))

# The ``value`` of a "call" event: which call was made.
CALLED_LAST: Final = 1
CALLED_PEANUCKLE: Final = 2
# The ``value`` of a "penalty" event: what it is for.
MISSED_LAST: Final = 1  # did not call last card
MISSED_PEANUCKLE: Final = 2  # did not call peanuckle
BLUNDERED: Final = 3  # an illegal move (rules.play.blunder_penalty)
NO_FINISH: Final = 4  # laid a last card the hand may not end on (no_finish_mode "draw")

PRIVATE_KINDS: Final = frozenset({"deal", "draw"})
"""The event kinds whose value is a card only their own seat may see."""


class Rng(Protocol):
    """A random source: anything with ``random() -> float`` (the core imports none)."""

    def random(self) -> float: ...


def redact(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may see it: other seats' dealt and drawn cards become -1."""
    if event[0] in PRIVATE_KINDS and event[1] != viewer:
        return (event[0], event[1], -1)
    return event


@dataclass(init=False, slots=True)
class View:
    """What one seat (or a spectator, ``seat=None``) may know. Never another seat's cards.

    Treated as immutable: nothing assigns to a view's fields (``dataclasses.replace`` makes
    a changed copy). It is not a *frozen* dataclass because a frozen one's generated
    ``__init__`` sets each field through ``object.__setattr__``, interpreted even in the
    compiled engine: 3.6 µs a view, against 0.4 µs for the ``__init__`` written out here,
    which mypyc compiles — and the ``hard`` bot's play-outs build one per move.
    """

    seat: int | None
    hand: tuple[int, ...]
    counts: tuple[int, ...]
    active: tuple[bool, ...]
    top: int
    top_face: int
    named_suit: int
    free: bool
    direction: int
    turn: int
    phase: Phase
    pending_kind: str  # "" | "pickup" | "skip"
    pending_amount: int
    pending_target: int
    missed: tuple[int, ...]
    declared: tuple[bool, ...]
    called_last: bool
    called_two: bool
    stock: int
    discard: int
    dealer: int
    finished: tuple[int, ...]
    legal: tuple[int, ...]

    def __init__(
        self,
        *,
        seat: int | None,
        hand: tuple[int, ...],
        counts: tuple[int, ...],
        active: tuple[bool, ...],
        top: int,
        top_face: int,
        named_suit: int,
        free: bool,
        direction: int,
        turn: int,
        phase: Phase,
        pending_kind: str,
        pending_amount: int,
        pending_target: int,
        missed: tuple[int, ...],
        declared: tuple[bool, ...],
        called_last: bool,
        called_two: bool,
        stock: int,
        discard: int,
        dealer: int,
        finished: tuple[int, ...],
        legal: tuple[int, ...],
    ) -> None:
        self.seat = seat
        self.hand = hand
        self.counts = counts
        self.active = active
        self.top = top
        self.top_face = top_face
        self.named_suit = named_suit
        self.free = free
        self.direction = direction
        self.turn = turn
        self.phase = phase
        self.pending_kind = pending_kind
        self.pending_amount = pending_amount
        self.pending_target = pending_target
        self.missed = missed
        self.declared = declared
        self.called_last = called_last
        self.called_two = called_two
        self.stock = stock
        self.discard = discard
        self.dealer = dealer
        self.finished = finished
        self.legal = legal


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended. ``placings`` lists every seat dealt in, best first."""

    reason: str  # "finished" | "one_left" | "blocked" | "limit" | "void" | "forfeit"
    placings: tuple[int, ...]  # empty for a void hand
    scores: tuple[int, ...]  # points this hand earned, per seat (see scoring.mode)
    hand_points: tuple[int, ...]  # value of the cards left in each hand
    actions: int


# ---------------------------------------------------------------------------------------------
# The game


# Every attribute of a Game: its whole state. The slots (attribute access is the engine's most
# frequent operation) and clone() both read it.
STATE_FIELDS: Final = (
    "_legal",
    "actions",
    "active",
    "again",
    "any_debt",
    "blind",
    "called_last",
    "called_two",
    "counts",
    "cover",
    "cover_suit",
    "dealer",
    "dealt_in",
    "debt",
    "deck",
    "declared",
    "direction",
    "discard",
    "draws",
    "drawn_since",
    "drew",
    "events",
    "finished",
    "fired",
    "follow_suit",
    "free",
    "hand_no",
    "hand_size",
    "hands",
    "hold",
    "idle_passes",
    "knock",
    "lacks",
    "last",
    "limit",
    "log",
    "mimic_allowed",
    "missed",
    "named_suit",
    "no_finish_drawn",
    "penalties",
    "pend_amount",
    "pend_from",
    "pend_kind",
    "pend_resume",
    "pend_rows",
    "pend_target",
    "phase",
    "played",
    "players",
    "reshuffles",
    "result",
    "resume_after",
    "resume_phase",
    "reversals",
    "rules",
    "run_state",
    "run_suit",
    "skip_next",
    "special",
    "start_count",
    "stock",
    "t",
    "top",
    "turn",
    "turns",
)


class Game:
    """One hand. ``players`` seats (2..8); seats in ``out`` sit this hand out (eliminated)."""

    __slots__ = STATE_FIELDS

    def __init__(
        self,
        rules: RuleSet,
        players: int,
        *,
        dealer: int = 0,
        out: Iterable[int] = (),
        hand_no: int = 1,
        blind: bool = False,
    ) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players}")
        self.rules = rules
        self.players = players
        self.hand_no = hand_no
        if not 0 <= dealer < players:
            raise ValueError(f"the dealer must be a seat 0..{players - 1}, not {dealer}")
        sitting_out = set(out)
        if any(not 0 <= s < players for s in sitting_out):
            raise ValueError(f"seats sitting out must be 0..{players - 1}, not {sorted(out)}")
        self.active = [i not in sitting_out for i in range(players)]
        n_active = sum(self.active)
        if n_active < MIN_PLAYERS:
            raise ValueError("a hand needs at least two players")
        if not self.active[dealer]:
            raise ValueError(f"the dealer (seat {dealer}) is sitting this hand out")
        self.dealer = dealer
        self.dealt_in = tuple(i for i in range(players) if self.active[i])
        self.hand_size = rules.hand_size_for(n_active)
        self.deck = deck_cards(rules.decks_for(n_active), rules.deal.jokers)
        self.t = _tables(rules, sum(1 << c for c in self.deck))
        self.hands = [0] * players
        self.counts = [0] * players
        self.stock: list[int] = []  # top of the stock is the end of the list
        self.discard: list[int] = []
        self.top = -1  # the face the next card must match (a mimic joker's named face)
        self.named_suit = -1
        self.free = False
        self.direction = 1
        self.turn = dealer
        self.phase = _DEAL
        self.resume_phase = _PLAY
        # The pending pick-up or skip the seat `pend_target` must answer or take.
        self.pend_kind = 0  # 0 none, 1 pickup, 2 skip
        self.pend_amount = 0
        self.pend_rows = 0
        self.pend_from = -1
        self.pend_target = -1
        # A pick-up sent back by a "returns" card: the seat whose turn it really was, so that
        # play goes on after it once the pick-up is taken (taking it is not a turn of its own).
        self.pend_resume = -1
        self.resume_after = -1
        # Black Jack's "cards"/knocking: with calls checked when a player goes out, the call
        # is a declaration that may be made at any hand size (see _add_calls).
        self.knock = rules.calls.last_card and rules.calls.timing == "on_finish"
        self.missed = [0] * players
        self.declared = [False] * players
        self.debt = [0] * players
        self.any_debt = False
        self.finished: list[int] = []
        # What the table has seen of each hand without seeing it (for search: determinize).
        # ``lacks[s]``: cards seat s was shown not to hold when it last drew for want of a
        # card to play (or took a pick-up it could not answer); ``drawn_since[s]``: how many
        # of its cards came after that, which ``lacks`` says nothing of. Public knowledge:
        # every player at the table could keep the same tally.
        self.lacks = [0] * players
        self.drawn_since = [0] * players
        self.idle_passes = 0
        self.actions = 0
        self.limit = rules.play.safety_limit
        self.result: HandResult | None = None
        self.log: list[tuple[int, int] | tuple[int, tuple[int, ...]]] = []
        self.events: list[Event] = []
        # Figures for simulate: how often each power row fired, penalties, draws.
        self.fired = [0] * len(self.t.rows)
        self.penalties = 0
        self.draws = 0
        self.reshuffles = 0
        self.turns = 0
        self.mimic_allowed = 0
        # A dealer-blind hand: its host runs this engine on public information, with the
        # cards nobody has opened hidden (HIDDEN_BASE and up), and each player runs it with its
        # own cards known. So no outcome may be decided by a card in the mover's hand: where
        # the rules end a turn because nothing more can be played ("only PASS is legal"), a
        # blind hand waits for the PASS instead (the player's client sends it), and the held
        # back last card of 001 becomes `hold` (1: only PASS is legal; 2: a hidden card might
        # be held back, so PASS is legal too, and the check after the hand tells).
        self.blind = blind
        self.hold = 0
        self.special = True
        self._reset_turn()
        self._legal: list[int] | None = None

    # -- turn-local state ------------------------------------------------------------------

    def _reset_turn(self) -> None:
        if self.special:
            self._reset_special()
        self.played = 0
        self.hold = 0
        self.called_last = self.called_two = self.drew = False
        self.start_count = self.counts[self.turn]

    def _reset_special(self) -> None:
        """Reset what only a power card (or a finish held back) changes; ``special`` says
        whether one did this turn, so most turns skip this."""
        self.special = False
        self.last = -1
        self.follow_suit = -1
        self.run_state = 0  # 0 none, 1 after a run card (any of its suit), 2 in sequence
        self.run_suit = -1
        self.cover = 0  # 0 none, 1 suit, 2 any
        self.cover_suit = -1
        self.reversals = 0
        self.again = False
        self.skip_next = 0
        self.no_finish_drawn = False

    # -- chance ----------------------------------------------------------------------------

    def chance_request(self) -> tuple[str, list[int]] | None:
        """``("deal", cards)`` or ``("reshuffle", cards)``: the sorted cards to order next."""
        if self.phase == _DEAL:
            return ("deal", list(self.deck))
        if self.phase == _RESHUFFLE:
            return ("reshuffle", sorted(self.discard[:-1]))
        return None

    def apply_chance(self, order: Sequence[int], *, hidden: bool = False) -> list[Event]:
        """Answer the chance request with those cards in order; ``order[0]`` is the top.

        ``hidden``: a dealer-blind deal, where the engine runs on public information only.
        Then ``order`` may hold hidden cards (distinct ids from :data:`HIDDEN_BASE` up) in
        place of the awaited cards nobody knows yet; the known ones (a turned-up starter) must
        still be awaited cards. :meth:`reveal` names a hidden card once it is opened.
        """
        req = self.chance_request()
        if req is None:
            raise ValueError("no shuffle is awaited now")
        kind, cards = req
        if hidden:
            known = {c for c in order if c < HIDDEN_BASE}
            if len(order) != len(cards) or len(set(order)) != len(order) or not known <= set(cards):
                raise ValueError(
                    f"the {kind} order must hold each awaited card or a hidden one, once"
                )
        elif sorted(order) != cards:
            raise ValueError(f"the {kind} order must be a permutation of the awaited cards")
        self.events = ev = []
        self.log.append((-1, tuple(order)))
        self._legal = None
        if kind == "deal":
            self._deal(order)
        else:
            self.reshuffles += 1
            top = self.discard[-1]
            self.discard = [top]
            self.stock = list(reversed(order))
            ev.append(("reshuffle", -1, len(order)))
            self.phase = self.resume_phase
            self.any_debt = False
            for seat in range(self.players):
                if self.debt[seat]:
                    n, self.debt[seat] = self.debt[seat], 0
                    self._draw(seat, n)
        self._settle()
        return ev

    def _deal(self, order: Sequence[int]) -> None:
        ev = self.events
        self.stock = list(reversed(order))
        seats = self._seats_from(self.dealer)
        for _ in range(self.hand_size):
            for seat in seats:
                c = self.stock.pop()
                self.hands[seat] |= 1 << c
                self.counts[seat] += 1
                ev.append(("deal", seat, c))
        c = self.stock.pop()
        self.discard.append(c)
        ev.append(("starter", -1, c))
        if self.rules.deal.starter == "skip_power":
            while (self.t.power_mask >> c) & 1 and self.stock:
                c = self.stock.pop()
                self.discard.append(c)
                ev.append(("starter", -1, c))
        self.top = c
        # A wild (or joker) starter names no suit: anything may be laid on it.
        self.free = bool((self.t.wild_mask >> c) & 1) or c >= JOKER_BASE
        if self.rules.deal.first_player == "left":
            first = seats[0]
        else:
            # J28: "the next non-dealing player to the right of the dealer" leads and play
            # goes on to the right, so that the dealer plays last, as on the left.
            first = seats[-2]
            self.direction = -1
        self.turn = first
        self.phase = _PLAY
        self._reset_turn()
        ev.append(("turn", first, -1))

    def _seats_from(self, dealer: int) -> list[int]:
        """Active seats clockwise from the dealer's left, ending with the dealer."""
        out = []
        for k in range(1, self.players + 1):
            s = (dealer + k) % self.players
            if self.active[s] or s == dealer:
                out.append(s)
        return out

    # -- queries ---------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase == _OVER

    def to_act(self) -> int:
        """The seat whose move is awaited, or -1 in chance phases and after the hand."""
        return self.turn if _PLAY <= self.phase <= _AFTER_DRAW else -1

    def hand(self, seat: int) -> list[int]:
        return _bits(self.hands[seat])

    def playable_mask(self) -> int:
        """Cards that may start a turn on the current top (ignoring the hand)."""
        t = self.t
        if self.free:
            return t.all_mask
        if self.named_suit >= 0:
            m = t.suit_mask[self.named_suit] | t.wild_mask
            return m | t.rank_mask[self.top % 13] if self.top < JOKER_BASE else m
        return t.match_mask[self.top] | t.wild_mask

    def legal_moves(self) -> list[int]:
        """Every legal move of the seat to act, sorted; empty in chance phases and at the end."""
        legal = self._legal
        if legal is not None:
            return legal
        if (
            self.phase == _PLAY
            and not self.pend_kind
            and not self.free
            and self.named_suit < 0
            and not self.hold
        ):
            # The most common question, answered inline: what starts a turn on a plain top
            # card. The same rules as the general path in _compute_legal.
            seat = self.turn
            t = self.t
            cards = self.hands[seat] & t.start_mask[self.top]
            n = self.counts[seat]
            if n == 1:
                cards = self._finish_filter(cards, seat)
            legal = []
            m = cards
            while m:
                low = m & -m
                legal.append(low.bit_length() - 1)
                m ^= low
            if not cards or t.may_draw_instead or (t.wild_exempt and not cards & ~t.wild_mask):
                legal.append(DRAW if self.stock else PASS)
            if n <= t.call_max:
                self._add_calls(legal, seat)
        else:
            legal = self._compute_legal()
        self._legal = legal
        return legal

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        seat = self.turn
        t = self.t
        hand = self.hands[seat]
        if phase == _PLAY:
            if self.hold == 1:
                return [PASS]
            if self.pend_kind and self.pend_target == seat:
                stack, cancel, ret = t.answers(self.pend_rows)
                cards = hand & (stack | cancel | ret)
                cards = self._finish_filter(cards, seat)
                moves = _bits(cards)
                moves.append(DRAW if self.pend_kind == 1 else PASS)
            else:
                cards = self._finish_filter(hand & self.playable_mask(), seat)
                moves = _bits(cards)
                if (
                    not cards
                    or self.rules.play.may_draw_instead
                    or (self.rules.play.wild_exempt_from_forced_play and not cards & ~t.wild_mask)
                ):
                    # With nothing left to draw (no reshuffle possible), not playing is a pass.
                    moves.append(DRAW if self.stock else PASS)
            if self.hold == 2 and PASS not in moves:
                moves.append(PASS)
            if self.counts[seat] <= t.call_max:
                self._add_calls(moves, seat)
            return moves
        if phase == _FOLLOW:
            cards = hand & self._follow_mask()
            cards = self._finish_filter(cards, seat)
            moves = _bits(cards)
            if self.pend_kind and self.pend_target == seat:
                moves.append(DRAW if self.pend_kind == 1 else PASS)
            elif self.cover:
                if not cards:
                    moves.append(DRAW)
            else:
                moves.append(PASS)
            if self.counts[seat] <= t.call_max:
                self._add_calls(moves, seat)
            return moves
        if phase == _NAME_SUIT:
            return [SUIT_BASE, SUIT_BASE + 1, SUIT_BASE + 2, SUIT_BASE + 3]
        if phase == _NAME_CARD:
            return [MIMIC_BASE + f for f in _bits(self.mimic_allowed)]
        if phase == _AFTER_DRAW:
            cards = self._finish_filter(hand & self.playable_mask(), seat)
            moves = _bits(cards)
            moves.append(PASS)
            if self.counts[seat] <= t.call_max:
                self._add_calls(moves, seat)
            return moves
        return []

    def _finish_filter(self, cards: int, seat: int) -> int:
        """Drop cards that would end the hand where the rules forbid it."""
        if self.counts[seat] != 1 or not cards:
            return cards
        rules = self.rules
        if rules.play.no_finish_mode == "forbid":
            cards &= ~self.t.no_finish_mask
        if self.played and not rules.play.finish_multi_card:
            return 0
        if (
            rules.calls.required_to_finish
            and rules.calls.last_card  # without the call nobody could ever finish
            and not self.played
            and not self.declared[seat]
        ):
            return 0
        return cards

    def _add_calls(self, moves: list[int], seat: int) -> None:
        calls = self.rules.calls
        n = self.counts[seat]
        if (
            calls.last_card
            and not self.called_last
            and (1 <= n <= 2 or (self.knock and n and self.phase == _PLAY))
        ):
            # "last card" from two cards down; where the call is checked on going out (Black
            # Jack), "cards"/knocking may also be declared at the start of any turn.
            moves.append(CALL_LAST)
        if calls.peanuckle and not self.called_two and 2 <= n <= 3:
            moves.append(CALL_TWO)

    def _follow_mask(self) -> int:
        """Cards that may continue the current turn after ``self.last``: the union of the
        grounds' cards (:meth:`follow_grounds`)."""
        m = 0
        for g in self.follow_grounds():
            m |= g[2]
        return m

    def follow_grounds(self) -> list[Ground]:
        """Why cards may continue the current turn, one :data:`Ground` per rule that lets
        some follow (empty: nothing may). Meaningful in phase ``FOLLOW``. This is the engine's
        one rule for what may follow within a turn; the prompt says these grounds in words."""
        t = self.t
        last = self.last
        if self.cover:
            cards = t.all_mask if self.cover == 2 else t.suit_mask[self.cover_suit]
            return [(G_COVER, last, cards)]
        if self.pend_kind and self.pend_target == self.turn:
            # Still facing a pick-up after a partial cancel: only more answers.
            stack, cancel, ret = t.answers(self.pend_rows)
            row = t.row_of[last]
            together = t.together_mask[row] if row >= 0 else 0
            return [(G_ANSWER, row, (stack | cancel | ret) & together)] if together else []
        out: list[Ground] = []
        m = t.follow_mask[last] if last < JOKER_BASE else 0
        if m:
            out.append((G_FOLLOW, last, m))
        row = t.row_of[last]
        if row >= 0:
            together = t.together_mask[row]
            if together:
                out.append((G_TOGETHER, row, together))
                if self.pend_kind and self.pend_target == -2:
                    # Laying pick-ups together: any card of a "together" row that stacks on
                    # what this turn has laid may follow (003: J♠ 2♠ 2♥ 2♦ 2♣ J♣ when 2s and
                    # Black Jacks stack on each other and both rows are "together").
                    stack = t.answers(self.pend_rows)[0] & t.together_all
                    if stack:
                        out.append((G_STACK, self.pend_rows, stack))
        if self.follow_suit >= 0:
            out.append((G_FOLLOW_SUIT, self.follow_suit, t.suit_mask[self.follow_suit]))
        if self.run_state == 1:
            out.append((G_RUN_START, self.run_suit, t.suit_mask[self.run_suit]))
        elif self.run_state == 2:
            out.append((G_RUN, last, t.run_mask[last] | t.rank_mask[last % 13]))
        if self.named_suit >= 0 and row >= 0 and t.flags[row] & F_CONTINUE_SUIT:
            # The card that named the suit lets the turn go on in it (J28's Jack).
            out.append((G_NAMED, self.named_suit, t.suit_mask[self.named_suit]))
        if self.rules.play.wild_continues and t.wild_mask:
            out.append((G_WILD, -1, t.wild_mask))
        return out

    # -- applying moves --------------------------------------------------------------------

    def apply(self, seat: int, move: int) -> list[Event]:
        """Apply ``move`` for ``seat``; the events it caused. Raises :class:`IllegalMove`."""
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        # Outside the player phases the legal list is empty, so this rejects those too.
        if seat != self.turn or move not in legal:
            raise IllegalMove(self.explain(seat, move), seat, move)
        self._legal = None
        self.log.append((seat, move))
        self.actions += 1
        t = self.t
        counts = self.counts
        if (
            move < MAX_CARD
            and t.plain_card[move]
            and not self.played
            and not self.hold
            and counts[seat] > t.quiet_hand
            and not self.called_last
            and not self.called_two
            and self.stock
        ):
            # The hot path, inlined: a card without power, in rules where nothing may follow
            # it, from a hand too big for any call or finish, with cards left in the stock.
            # The turn state is still as _reset_turn left it, so the turn simply passes on.
            self.hands[seat] ^= 1 << move
            counts[seat] -= 1
            if (self.lacks[seat] >> move) & 1:
                self._laid_drawn(seat)
            self.discard.append(move)
            self.top = self.last = move
            self.named_suit = -1
            self.free = self.drew = False
            self.idle_passes = 0
            nxt = (seat + self.direction) % self.players
            if not self.active[nxt] or self.missed[nxt]:
                self.events = [("play", seat, move)]
                self.played = 1
                self._end_turn(seat)
                ev = self.events
            else:
                self.turns += 1
                self.declared[seat] = False
                self.turn = nxt
                self.phase = _PLAY
                self.start_count = counts[nxt]
                self.events = ev = [("play", seat, move), ("turn", nxt, -1)]
            if self.actions >= self.limit:
                self._end_hand("limit")
            return ev
        if (
            move == DRAW
            and t.draw_until_playable
            and self.phase == _PLAY
            and not self.pend_kind
            and counts[seat] != 1
        ):
            # The other hot path: one card drawn under "draw until you can play".
            if not t.may_draw_instead:
                self._shown_to_lack(seat, self._unplayable_shown())
            self.drawn_since[seat] += 1
            c = self.stock.pop()
            self.hands[seat] |= 1 << c
            counts[seat] += 1
            self.draws += 1
            self.drew = True
            self.idle_passes = 0
            self.events = ev = [("draw", seat, c)]
            if self.actions >= self.limit:
                self._end_hand("limit")
            if not self.stock:
                self._settle()
            return ev
        self.events = []
        if move < MAX_CARD:
            self._lay(seat, move)
        elif move == DRAW:
            self._on_draw(seat)
        elif move == PASS:
            self._on_pass(seat)
        elif move >= MIMIC_BASE:
            face = move - MIMIC_BASE
            self.top = face
            self.events.append(("mimic", seat, face))
            self.phase = _FOLLOW
            self._effects(seat, face)
        elif move >= SUIT_BASE + 10:  # calls
            if move == CALL_LAST:
                self.called_last = True
            else:
                self.called_two = True
            self.events.append(
                ("call", seat, CALLED_LAST if move == CALL_LAST else CALLED_PEANUCKLE)
            )
        else:
            self.named_suit = move - SUIT_BASE
            self.events.append(("suit", seat, self.named_suit))
            self.phase = _FOLLOW
            self._after_card(seat)
        if self.actions >= self.limit and self.phase != _OVER:
            self._end_hand("limit")
        if not self.stock or self.any_debt:
            self._settle()
        return self.events

    def _lay(self, seat: int, card: int) -> None:
        """Move ``card`` from the hand to the pile and apply what it does."""
        if (self.t.mimic_mask >> card) & 1:
            # The faces it may stand for are those legal here as real cards (one deck's).
            if self.played:
                allowed = self._follow_mask()
            elif self.pend_kind and self.pend_target == seat:
                allowed = sum(self.t.answers(self.pend_rows))
            else:
                allowed = self.playable_mask()
            self.mimic_allowed = (allowed & _FACES) or _FACES
        self.hands[seat] ^= 1 << card
        self.counts[seat] -= 1
        if (self.lacks[seat] >> card) & 1:
            self._laid_drawn(seat)
        self.discard.append(card)
        self.played += 1
        self.named_suit = -1
        self.free = False
        self.idle_passes = 0
        self.events.append(("play", seat, card))
        if (self.t.mimic_mask >> card) & 1:
            self.phase = _NAME_CARD
            return
        self.top = card
        self.phase = _FOLLOW
        self._effects(seat, card)

    def _effects(self, seat: int, face: int) -> None:
        """What laying ``face`` does, then the next step of the turn."""
        t = self.t
        ev = self.events
        row = t.row_of[face]
        if self.cover or self.run_state or row >= 0:
            # What the turn leaves open (one function for the engine and for a seat's own
            # view of its turn, Game.from_view).
            (self.follow_suit, self.run_state, self.run_suit, self.cover, self.cover_suit) = (
                turn_mark(
                    t,
                    face,
                    (self.follow_suit, self.run_state, self.run_suit, self.cover, self.cover_suit),
                )
            )
        self.last = face
        if row < 0:
            self._after_card(seat)
            return
        self.special = True
        f = t.flags[row]
        fired = True
        if self.pend_kind and self.pend_target == seat:
            fired = self._answer(seat, face, row, f)
        elif f & (F_PICKUP | F_SKIP) and not f & F_ANSWER_ONLY:
            if f & (F_PICKUP | F_SKIP_STACK):
                kind = 1 if f & F_PICKUP else 2
                if self.pend_kind != kind:
                    self.pend_kind = kind
                    self.pend_amount = 0
                    self.pend_rows = 0
                self._stack(seat, row, 1 << row)
            else:
                self.skip_next += t.amount[row]
                ev.append(("skip", seat, t.amount[row]))
        elif not f & F_TURN_EFFECTS:
            fired = False  # an answer-only card laid with nothing to answer
        if fired:
            self.fired[row] += 1
        if f & F_TURN_EFFECTS:
            if f & F_REVERSE:
                self.direction = -self.direction
                self.reversals += 1
                ev.append(("reverse", seat, self.direction))
            if f & F_AGAIN:
                self.again = True
                ev.append(("again", seat, -1))
            if f & F_NAMES_SUIT:
                self.phase = _NAME_SUIT
                return
        self._after_card(seat)

    def _answer(self, seat: int, face: int, row: int, f: int) -> bool:
        """``face`` laid by the seat facing a pick-up or skip; False if it answered nothing."""
        t = self.t
        ev = self.events
        stack, cancel, ret = t.answers(self.pend_rows)
        if (stack >> face) & 1:
            self._stack(seat, row, 1 << row)
        elif (cancel >> face) & 1:
            if f & F_CANCEL_ALL:
                self._clear_pending()
            else:
                hit = next(i for i in t.cancel_order[row] if (self.pend_rows >> i) & 1)
                self.pend_amount -= self._pickup_of(hit)
                if self.pend_amount <= 0:
                    self._clear_pending()
            ev.append(("cancel", seat, self.pend_amount))
        elif (ret >> face) & 1:
            if self.pend_resume < 0:
                self.pend_resume = seat
            self.pend_target = self.pend_from
            self.pend_from = seat
            ev.append(("return", seat, self.pend_target))
        else:
            return False
        return True

    def _pickup_of(self, row: int) -> int:
        amount = self.t.amount[row]
        return self.hand_size if amount < 0 else amount

    def _stack(self, seat: int, row: int, bit: int) -> None:
        amount = self.t.amount[row]
        if not (self.pend_amount and self.t.flags[row] & F_PASSES_ON):
            self.pend_amount += self.hand_size if amount < 0 else amount
        self.pend_rows |= bit
        self.pend_from = seat
        self.pend_target = -2  # decided when the turn ends: the next seat to act
        self.pend_resume = -1  # passed on in turn: whoever takes it takes it on their turn
        self.events.append(("pickup" if self.pend_kind == 1 else "skip", seat, self.pend_amount))

    def _clear_pending(self) -> None:
        self.pend_kind = self.pend_amount = self.pend_rows = 0
        self.pend_from = self.pend_target = self.pend_resume = -1

    def _after_card(self, seat: int) -> None:
        """After a card (and any naming): go on to FOLLOW if anything is open, else end."""
        t = self.t
        if (
            t.plain_follow
            and self.follow_suit < 0
            and not self.run_state
            and not self.cover
            and not t.together_of[self.last]
            and not (self.named_suit >= 0 and t.continue_suit_of[self.last])
            and self.pend_target != seat
            and self.counts[seat] > t.follow_calls
        ):
            self._end_turn(seat)  # nothing can continue this turn: no need to list moves
            return
        moves = self._compute_legal()
        if moves == [PASS] and not self.blind:
            self._end_turn(seat)
        else:
            self._legal = moves

    def _on_draw(self, seat: int) -> None:
        self.idle_passes = 0
        if self.pend_kind == 1 and self.pend_target == seat:
            # Taking a pick-up it might have answered: taken as a sign it held no answer
            # (every bot answers when it can, and so do most people).
            if self.counts[seat] > 1:
                stack, cancel, ret = self.t.answers(self.pend_rows)
                self._shown_to_lack(seat, stack | cancel | ret)
            n = self.pend_amount
            self.resume_after = self.pend_resume
            self.events.append(("take", seat, n))
            self._clear_pending()
            self._draw(seat, n)
            self._end_turn(seat)
            return
        if self.phase == _FOLLOW:  # cannot cover: draw one, the turn ends
            self.cover = 0
            self._draw(seat, 1)
            self._end_turn(seat)
            return
        policy = self.rules.play.draw
        if not self.rules.play.may_draw_instead and self.counts[seat] > 1:
            self._shown_to_lack(seat, self._unplayable_shown())
        self.drew = True
        if policy == "two":
            self._draw(seat, 2)
            self._end_turn(seat)
        elif policy == "one":
            self._draw(seat, 1)
            self._end_turn(seat)
        elif policy == "one_then_play":
            self._draw(seat, 1)
            self.phase = _AFTER_DRAW
            if not self.blind and self._compute_legal() == [PASS]:
                self._end_turn(seat)
        else:  # until_playable: stay in PLAY; the legal moves say what comes next
            one = self.counts[seat] == 1
            held = self.hands[seat] & self.playable_mask() if one else 0
            held_back = held and not self._finish_filter(held, seat)
            unknown = self.blind and one and self.hands[seat] >> HIDDEN_BASE != 0
            self._draw(seat, 1)
            if held_back:
                # The last card would play but may not end the hand: 001 "they must pick up a
                # card from the deck and cannot play the trick card" - one card, turn over.
                if self.blind:
                    self.hold = 1
                    self._legal = None
                else:
                    self._end_turn(seat)
            elif unknown:
                self.hold = 2
                self._legal = None

    def _unplayable_shown(self) -> int:
        """The cards a draw in the play phase shows its seat did not hold: those that would
        have started the turn (less the wild cards where a hand of only those may draw)."""
        shown = self.playable_mask()
        if self.rules.play.wild_exempt_from_forced_play:
            shown &= ~self.t.wild_mask
        return shown

    def _shown_to_lack(self, seat: int, cards: int) -> None:
        """The table saw ``seat`` hold none of ``cards``, all its hand at once: what it was
        shown to lack before still holds if no card came to it since; otherwise it is
        dropped (this tally does not follow which card came when)."""
        self.lacks[seat] = cards | (self.lacks[seat] if not self.drawn_since[seat] else 0)
        self.drawn_since[seat] = 0

    def _laid_drawn(self, seat: int) -> None:
        """``seat`` laid a card it was shown to lack: one that came to it since."""
        if self.drawn_since[seat]:
            self.drawn_since[seat] -= 1

    def _on_pass(self, seat: int) -> None:
        if self.pend_kind == 2 and self.pend_target == seat:
            n = self.pend_amount
            self._clear_pending()
            self.missed[seat] += n - 1  # this turn is the first one missed
            self.events.append(("miss", seat, n))
        elif self.phase == _PLAY and not self.drew:
            self.idle_passes += 1
            self.events.append(("pass", seat, -1))
        self._end_turn(seat)

    def _draw(self, seat: int, n: int) -> None:
        """Give ``seat`` up to ``n`` cards; what the stock cannot give becomes a debt."""
        ev = self.events
        stock = self.stock
        while n and stock:
            c = stock.pop()
            self.hands[seat] |= 1 << c
            self.counts[seat] += 1
            self.drawn_since[seat] += 1
            ev.append(("draw", seat, c))
            n -= 1
            self.draws += 1
        if n:
            if self.rules.play.reshuffle and len(self.discard) > 1:
                self.debt[seat] += n
                self.any_debt = True
            else:
                ev.append(("forgiven", seat, n))

    def _penalty(self, seat: int, n: int, why: int) -> None:
        """A penalty draw. ``why``: MISSED_LAST, MISSED_PEANUCKLE, BLUNDERED or NO_FINISH."""
        self.penalties += 1
        self.events.append(("penalty", seat, why))
        self._draw(seat, n)

    # -- the end of a turn -----------------------------------------------------------------

    def _end_turn(self, seat: int) -> None:
        if (
            self.counts[seat] > 2
            and not self.special
            and not self.idle_passes
            and self.resume_after < 0
            and not self.called_last
            and not self.called_two
        ):
            # The common end of a turn: no call or finish to check, no power card that bends
            # the order of play (those set `special`). The same outcome as the path below.
            self.turns += 1
            self.declared[seat] = False
            self._begin_turn(self._next_seat(seat))
            return
        self._end_turn_full(seat)

    def _begin_turn(self, nxt: int) -> None:
        """Hand the turn to ``nxt`` (or past it, to the first seat not missing a turn)."""
        if self.missed[nxt]:
            nxt = self._skip_missed(nxt)
        if self.pend_kind:
            self.pend_target = nxt
        self.turn = nxt
        self.phase = _PLAY
        self._reset_turn()
        self.events.append(("turn", nxt, -1))

    def _skip_missed(self, nxt: int) -> int:
        """Pass over seats that must miss turns (each pass uses one up)."""
        guard = 0
        while self.missed[nxt] > 0 and guard < 64 * self.players:
            self.missed[nxt] -= 1
            self.events.append(("miss", nxt, 1))
            nxt = self._next_seat(nxt)
            guard += 1
        return nxt

    def _end_turn_full(self, seat: int) -> None:
        rules = self.rules
        ev = self.events
        count = self.counts[seat]
        self.turns += 1
        if count == 0 and not self.debt[seat] and self.played:
            if (
                self.t.no_finish_mask >> self.discard[-1]
            ) & 1 and rules.play.no_finish_mode == "draw":
                self.no_finish_drawn = True
                self.special = True
                self._penalty(seat, 1, NO_FINISH)
            elif self.knock and not self.declared[seat]:
                # 000 (Black Jack): going out without having called at the end of the previous
                # turn costs the penalty; 003: "even if the player had several cards".
                self._penalty(seat, rules.calls.penalty, MISSED_LAST)
                if rules.calls.miss_turn:
                    self.missed[seat] += 1
        calls = rules.calls
        if self.played and not self.no_finish_drawn and calls.timing == "turn_end":
            count = self.counts[seat] + self.debt[seat]
            missed_call = 0
            if calls.last_card and count == 1 and not self.called_last:
                missed_call = MISSED_LAST
            elif calls.peanuckle and count == 2 and not self.called_two:
                missed_call = MISSED_PEANUCKLE
            if missed_call:
                if calls.penalty:
                    self._penalty(seat, calls.penalty, missed_call)
                else:
                    ev.append(("penalty", seat, missed_call))
                if calls.miss_turn:
                    self.missed[seat] += 1
        if self.knock:
            self.declared[seat] = self.called_last and self.counts[seat] > 0
        else:
            self.declared[seat] = self.called_last and self.counts[seat] == 1
        # Out?
        if self.counts[seat] == 0 and not self.debt[seat]:
            self.active[seat] = False
            self.finished.append(seat)
            ev.append(("finish", seat, len(self.finished)))
            left = sum(self.active)
            if not rules.play.play_until_one_left:
                self._end_hand("finished")
                return
            if left <= 1:
                self._end_hand("one_left")
                return
        if self.idle_passes and self.idle_passes >= sum(self.active):
            self._end_hand("blocked")
            return
        # Who is next?
        n_active = sum(self.active)
        if (
            self.active[seat]
            and not self.pend_kind
            and not self.skip_next
            and (
                self.again
                or (self.reversals % 2 and n_active == 2 and rules.play.reverse_with_two == "again")
            )
        ):
            nxt = seat
        elif self.pend_kind and self.pend_target >= 0:
            nxt = self.pend_target  # sent back by a return
        elif self.resume_after >= 0:
            nxt = self._next_seat(self.resume_after)  # a returned pick-up was taken
        else:
            nxt = self._next_seat(seat)
        self.resume_after = -1
        if self.skip_next:
            self.missed[nxt] += self.skip_next
        self._begin_turn(nxt)

    def _next_seat(self, seat: int) -> int:
        d = self.direction
        n = self.players
        s = seat
        for _ in range(n):
            s = (s + d) % n
            if self.active[s]:
                return s
        return seat

    def _settle(self) -> None:
        """After any action: wait for a reshuffle if the stock ran out."""
        if (
            self.phase != _OVER
            and self.phase != _RESHUFFLE
            and not self.stock
            and len(self.discard) > 1
            and self.rules.play.reshuffle
        ):
            self.resume_phase = self.phase
            self.phase = _RESHUFFLE
            self._legal = None
        elif self.phase != _RESHUFFLE and self.any_debt:
            # Debts that no reshuffle can pay any more are forgiven.
            self.any_debt = False
            for seat, n in enumerate(self.debt):
                if n:
                    self.debt[seat] = 0
                    self.events.append(("forgiven", seat, n))

    # -- the end of a hand -----------------------------------------------------------------

    def hand_points(self, seat: int) -> int:
        pts = self.rules.scoring.card_points
        return sum(pts[13] if c >= JOKER_BASE else pts[c % 13] for c in _bits(self.hands[seat]))

    def forfeit_charge(self) -> int:
        """The points a seat that forfeits is charged at least: those of the worst hand the
        deal could have given it (the ``hand_size`` highest-scoring cards of the deck).

        A forfeit must cost what withholding could gain. At the deal nobody holds a card, so
        "as badly as the worst seat" would cost nothing — and the seat that withholds there may
        know the deal it stops (the host's own seat holds every other seed first): it would
        trade a bad hand for a free redeal (issue 25, item 7)."""
        pts = self.rules.scoring.card_points
        values = sorted(
            (pts[13] if c >= JOKER_BASE else pts[c % 13] for c in self.deck), reverse=True
        )
        return sum(values[: self.hand_size])

    def _end_hand(self, reason: str, forfeit: Sequence[int] = ()) -> None:
        """Score the hand as it stands: the seats that went out first, in order, then the rest
        by fewest cards, fewest points and seat order from the dealer — and the seats that
        ``forfeit`` (a void hand's culprits) last of all, charged at least as badly as the
        worst seat and as the worst hand a deal could give (:meth:`forfeit_charge`)."""
        rest = [s for s in self.dealt_in if s not in self.finished and s not in forfeit]
        order = self._seats_from(self.dealer)
        rest.sort(key=lambda s: (self.counts[s], self.hand_points(s), order.index(s)))
        firsts = tuple(s for s in self.finished if s not in forfeit)
        placings = firsts + tuple(rest) + tuple(forfeit)
        points = tuple(
            self.hand_points(s) if s in self.dealt_in else 0 for s in range(self.players)
        )
        charged = list(points)  # what each seat's hand counts for in the scores
        if forfeit:
            worst = max(max(points), self.forfeit_charge())
            for s in forfeit:
                charged[s] = worst
        scores = [0] * self.players
        mode = self.rules.scoring.mode
        if mode == "winner_collects":
            winner = placings[0]
            scores[winner] = sum(charged[s] for s in self.dealt_in if s != winner)
        elif mode == "penalty":
            scores = charged
        self.result = HandResult(reason, placings, tuple(scores), points, self.actions)
        self.phase = _OVER
        self._legal = []
        self.events.append(("over", placings[0], len(placings)))

    def void(self, forfeit: Iterable[int] = ()) -> HandResult:
        """End the hand with no result of its own: the fair deal aborted it.

        A commit-reveal round failed (a seed did not open its commitment, or a participant did
        not commit or reveal in time), so the cards cannot be dealt fairly. With no ``forfeit``
        (the host's own abort) ``result.reason`` is ``"void"``, with no placings and no scores,
        and :meth:`Match.record` adds nothing for it. The seats in ``forfeit`` — players blamed
        for the void (who: ``fairdeal.Dealer.fail`` says: once the cards were dealt, and at the
        deal for a seed proven bad) — lose the hand: ``"forfeit"``, scored as it
        stands with them placed last and charged at least :meth:`forfeit_charge`
        (``_end_hand``), and the match counts it as a hand played, so a player who withholds
        its seed to stop a hand it is losing, or a deal it dislikes, gains nothing by it.
        Either way the next hand takes a new hand number (``lanswitch.fairdeal``).
        """
        if self.phase == _OVER:
            raise ValueError("the hand is already over")
        losers = tuple(sorted(set(forfeit) & set(self.dealt_in)))
        if losers and len(losers) < len(self.dealt_in):
            self._end_hand("forfeit", losers)
            assert self.result is not None
            self.events.pop()  # the result is the fair deal's, not an event of play
            return self.result
        zeros = (0,) * self.players
        self.result = HandResult("void", (), zeros, zeros, self.actions)
        self.phase = _OVER
        self._legal = []
        return self.result

    # -- blunders --------------------------------------------------------------------------

    def blunder(self, seat: int, move: int) -> list[Event]:
        """Charge ``seat`` for trying an illegal ``move`` (rules.play.blunder_penalty cards).

        The move is taken back (it never happened); only the penalty is applied, as a logged
        action, so replay reproduces it. Raises ``ValueError`` if the move is legal.
        """
        self._check_seat(seat)
        if self.phase == _OVER or self.phase in (_DEAL, _RESHUFFLE):
            raise ValueError("no blunder can be charged now")
        if seat == self.turn and move in self.legal_moves():
            raise ValueError(f"{format_move(move)} is legal: not a blunder")
        if not self.active[seat]:
            raise ValueError(f"seat {seat} is not in the hand")
        self.events = []
        self._legal = None
        self.log.append((seat, BLUNDER_FLAG | move))
        self.events.append(("blunder", seat, move))
        if self.rules.play.blunder_penalty:
            self._penalty(seat, self.rules.play.blunder_penalty, BLUNDERED)
        if seat == self.turn:
            self.start_count = self.counts[seat]
        self._settle()
        return self.events

    def _check_seat(self, seat: int) -> None:
        """Seat numbers come from outside (a host passes them through): -1 must not wrap."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} at this table (seats 0..{self.players - 1})")

    def explain(self, seat: int, move: int) -> Reason:
        """Why ``move`` by ``seat`` is not legal now (assumes it is not)."""
        phase = self.phase
        if phase == _OVER:
            return Reason.HAND_OVER
        if phase in (_DEAL, _RESHUFFLE):
            return Reason.WAITING_FOR_DEAL
        if seat != self.turn:
            return Reason.NOT_YOUR_TURN
        is_card = 0 <= move < MAX_CARD
        valid = (
            is_card
            or move in (DRAW, PASS, CALL_LAST, CALL_TWO)
            or (SUIT_BASE <= move < SUIT_BASE + 4)
            or MIMIC_BASE <= move < MIMIC_BASE + 52
        )
        if not valid:
            return Reason.NO_SUCH_MOVE
        if phase == _NAME_SUIT:
            return Reason.NAME_SUIT_FIRST
        if phase == _NAME_CARD:
            return Reason.NOT_LEGAL if move >= MIMIC_BASE else Reason.NAME_CARD_FIRST
        if SUIT_BASE <= move < SUIT_BASE + 4 or move >= MIMIC_BASE:
            return Reason.NOT_NAMING
        if move in (CALL_LAST, CALL_TWO):
            return Reason.CANNOT_CALL
        if is_card:
            if not (self.hands[seat] >> move) & 1:
                return Reason.NOT_IN_HAND
            if phase == _FOLLOW and self.cover:
                return Reason.MUST_COVER
            if self.pend_kind and self.pend_target == seat:
                return Reason.MUST_ANSWER
            if self.counts[seat] == 1:
                base = self.playable_mask() if phase != _FOLLOW else self._follow_mask()
                if (base >> move) & 1:
                    if (self.t.no_finish_mask >> move) & 1:
                        return Reason.CANNOT_FINISH_ON
                    if self.played:
                        return Reason.CANNOT_FINISH_MULTI
                    return Reason.NOT_CALLED
            return Reason.DOES_NOT_FOLLOW if phase == _FOLLOW else Reason.DOES_NOT_MATCH
        if self.pend_kind and self.pend_target == seat:
            return Reason.MUST_ANSWER
        if phase == _FOLLOW and self.cover:
            return Reason.MUST_COVER
        if move == DRAW:
            if self.stock and phase == _PLAY:
                return Reason.MUST_PLAY
            return Reason.CANNOT_DRAW
        return Reason.CANNOT_PASS

    # -- views -----------------------------------------------------------------------------

    def view(self, seat: int | None) -> View:
        """What ``seat`` may see; ``None`` for a spectator (no hand at all)."""
        if seat is not None:
            self._check_seat(seat)
        legal = tuple(self.legal_moves()) if seat is not None and seat == self.to_act() else ()
        pk = ("", "pickup", "skip")[self.pend_kind]
        return View(
            seat=seat,
            hand=tuple(_bits(self.hands[seat])) if seat is not None else (),
            counts=tuple(self.counts),
            active=tuple(self.active),
            top=self.discard[-1] if self.discard else -1,
            top_face=self.top,
            named_suit=self.named_suit,
            free=self.free,
            direction=self.direction,
            turn=self.turn,
            phase=_PHASES[self.phase],
            pending_kind=pk,
            pending_amount=self.pend_amount,
            pending_target=self.pend_target,
            missed=tuple(self.missed),
            declared=tuple(self.declared),
            called_last=self.called_last,
            called_two=self.called_two,
            stock=len(self.stock),
            discard=len(self.discard),
            dealer=self.dealer,
            finished=tuple(self.finished),
            legal=legal,
        )

    # -- replay ----------------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        rules: RuleSet,
        players: int,
        log: Iterable[tuple[int, int] | tuple[int, tuple[int, ...]]],
        *,
        dealer: int = 0,
        out: Iterable[int] = (),
        hand_no: int = 1,
        blind: bool = False,
    ) -> Game:
        """Rebuild a hand from its log (chance orders and moves, as :attr:`log` holds them)."""
        g = cls(rules, players, dealer=dealer, out=out, hand_no=hand_no, blind=blind)
        for seat, entry in log:
            if isinstance(entry, tuple):
                g.apply_chance(entry)
            elif entry & BLUNDER_FLAG:
                g.blunder(seat, entry & ~BLUNDER_FLAG)
            else:
                g.apply(seat, entry)
        return g

    @classmethod
    def from_view(
        cls,
        rules: RuleSet,
        view: View,
        *,
        laid: Sequence[int] = (),
        pending_rows: int = 0,
    ) -> Game:
        """The hand as ``view``'s seat sees it, for asking the engine what that seat's own
        turn allows: what its legal moves are, what may follow the cards it has laid, and
        whether a sequence of cards it means to lay would be taken one by one.

        ``laid``: the faces the seat laid this turn, first first (a mimic joker as the face it
        stood for); ``pending_rows``: a bitmask of the power rows laid into the pending
        pick-up or skip. What the seat cannot see is hidden: the other hands are empty (their
        counts kept), the stock and the pile under the top card hold hidden cards. So the
        moves of the seat to act are the real ones; what happens after its turn means
        nothing. The stand-in is ``blind`` (see ``__init__``): a turn with only PASS left waits
        for it, so what may follow a sequence can still be asked at its end.
        """
        players = len(view.counts)
        finished = set(view.finished)
        out = [s for s in range(players) if not view.active[s] and s not in finished]
        g = cls(rules, players, dealer=view.dealer, out=out)
        g.blind = True
        seat = view.seat
        hands = [0] * players
        if seat is not None:
            for card in view.hand:
                hands[seat] |= 1 << card
        g.hands = hands
        g.counts = list(view.counts)
        g.active = list(view.active)
        g.finished = list(view.finished)
        # Hidden ids far above any a dealer-blind hand uses for its own hidden cards.
        hidden = HIDDEN_BASE + 4 * MAX_CARD
        g.stock = [hidden + i for i in range(view.stock)]
        under = [hidden + view.stock + i for i in range(max(0, view.discard - 1))]
        g.discard = [*under, view.top] if view.top >= 0 else under
        g.top = view.top_face
        g.named_suit = view.named_suit
        g.free = view.free
        g.direction = view.direction
        g.turn = view.turn
        g.phase = int(view.phase)
        g.pend_kind = ("", "pickup", "skip").index(view.pending_kind)
        g.pend_amount = view.pending_amount
        g.pend_target = view.pending_target
        g.pend_rows = pending_rows if g.pend_kind else 0
        g.missed = list(view.missed)
        g.declared = list(view.declared)
        g.called_last = view.called_last
        g.called_two = view.called_two
        g.played = len(laid)
        g.drew = view.phase == Phase.AFTER_DRAW
        g.start_count = view.counts[view.turn] + len(laid) if 0 <= view.turn < players else 0
        marks = (-1, 0, -1, 0, -1)
        for face in laid:
            marks = turn_mark(g.t, face, marks)
        g.follow_suit, g.run_state, g.run_suit, g.cover, g.cover_suit = marks
        g.last = view.top_face
        g.special = True
        if view.phase == Phase.NAME_CARD:
            g.mimic_allowed = sum(1 << (m - MIMIC_BASE) for m in view.legal if m >= MIMIC_BASE)
        g._legal = None
        return g

    def clone(self, *, history: bool = True) -> Game:
        """An independent copy of the hand (what ``copy.deepcopy`` gives, and faster).

        Rule tables are shared; every list of state is copied. Works for the compiled engine
        too, whose objects cannot be rebuilt by ``copy`` without their constructor arguments.
        ``history=False``: the copy starts with an empty log and no events (a search's
        play-out needs neither, and copying a long log is most of a copy's cost).
        """
        out = [s for s in range(self.players) if s not in self.dealt_in]
        g = Game(self.rules, self.players, dealer=self.dealer, out=out, hand_no=self.hand_no)
        for name in STATE_FIELDS:
            if not history and (name == "log" or name == "events"):
                continue
            value = getattr(self, name)
            setattr(g, name, value.copy() if isinstance(value, list) else value)
        return g

    def determinize(self, seat: int, rng: Rng) -> Game:
        """A copy of the hand as ``seat`` might believe it: every card it cannot see — the
        other hands and the stock — dealt again at random from the cards it cannot see.

        Kept: every count, the pile, ``seat``'s own hand, and what the table saw each hand
        lack (:attr:`lacks`: a seat that drew for want of a card to play is dealt none of
        those, but for the cards that came to it since). Only what ``seat`` may know goes
        in: the cards it cannot see are taken as a set (the deck less the pile and its own
        hand), never from where they really are, so two hands that differ only in hidden
        cards give the same copy for the same ``rng``. The copy keeps no log or events (a
        search plays it out; nothing replays it). A dealer-blind hand's hidden cards are
        dealt as real ones: the deck says which are left."""
        if self.hands[seat] >> HIDDEN_BASE or any(c >= HIDDEN_BASE for c in self.discard):
            raise DeterminizeError("the seat's own cards are hidden: nothing to deal from")
        g = self.clone(history=False)
        seen = self.hands[seat]
        for c in self.discard:
            seen |= 1 << c
        rand = rng.random
        unseen = [c for _, c in sorted([(rand(), c) for c in self.deck if not (seen >> c) & 1])]
        others = [s for s in range(self.players) if s != seat and self.active[s] and self.counts[s]]
        if len(unseen) != len(self.stock) + sum(self.counts[s] for s in others):
            raise DeterminizeError("the cards out of sight do not add up")
        # The most constrained hands first: each takes, in the random order, the cards it was
        # not shown to lack for the cards it held then, and any for those that came since.
        # Where too few fit, the belief gives way (any card) rather than the counts.
        others.sort(key=lambda s: -(self.lacks[s].bit_count()))
        taken = 0
        for s in others:
            lacks = self.lacks[s]
            need = self.counts[s]
            sure = need - min(self.drawn_since[s], need) if lacks else 0
            hand = 0
            for c in unseen:
                if not sure:
                    break
                if not (taken >> c) & 1 and not (lacks >> c) & 1:
                    hand |= 1 << c
                    taken |= 1 << c
                    sure -= 1
                    need -= 1
            for c in unseen:
                if not need:
                    break
                if not (taken >> c) & 1:
                    hand |= 1 << c
                    taken |= 1 << c
                    need -= 1
            g.hands[s] = hand
        g.stock = [c for c in unseen if not (taken >> c) & 1]
        g._legal = None
        return g

    def __copy__(self) -> Game:
        return self.clone()

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        return self.clone()

    def cards_conserved(self) -> bool:
        """Every card is in exactly one place: a hand, the stock or the discard pile (in a
        dealer-blind hand, some of them as hidden cards, each in one place too)."""
        seen = 0
        total = 0
        for h in self.hands:
            if seen & h:
                return False
            seen |= h
            total += h.bit_count()
        for c in self.stock + self.discard:
            if (seen >> c) & 1:
                return False
            seen |= 1 << c
            total += 1
        known = seen & ((1 << HIDDEN_BASE) - 1)
        return total == len(self.deck) and known & ~self.t.all_mask == 0

    def reveal(self, hidden: int, card: int) -> int:
        """The hidden card ``hidden`` (in a hand or the stock) is ``card``: the seat that holds
        it, or -1 for the stock. Refused (ValueError, nothing changed) if there is no such
        hidden card, or ``card`` is not of this deck or is already known to be elsewhere."""
        if hidden < HIDDEN_BASE or not 0 <= card < MAX_CARD or not (self.t.all_mask >> card) & 1:
            raise ValueError(f"cannot reveal {hidden} as {card}")
        for h in self.hands:
            if (h >> card) & 1:
                raise ValueError(f"{format_card(card)} is already in a hand")
        if card in self.stock or card in self.discard:
            raise ValueError(f"{format_card(card)} is already on the table")
        bit = 1 << hidden
        for seat in range(self.players):
            if self.hands[seat] & bit:
                self.hands[seat] = (self.hands[seat] ^ bit) | (1 << card)
                self._legal = None
                return seat
        for i in range(len(self.stock)):
            if self.stock[i] == hidden:
                self.stock[i] = card
                return -1
        raise ValueError(f"no hidden card {hidden}")


# ---------------------------------------------------------------------------------------------
# A match: several hands, the deal rotating, scores adding up


class Match:
    """Hands played one after another until the rules' target (or ``max_hands``) ends it.

    ``scoring.mode`` decides: ``winner_collects`` — the first to reach ``scoring.target``
    wins (002: 500); ``penalty`` — a player reaching ``scoring.target`` is out, and the last
    one left wins (Black 5: 301); ``none`` — hands stand alone and the match is just a series
    (most hands won leads). The deal passes clockwise to the next player still in the match
    (``deal.dealer_rotation = "clockwise"``) or stays (``"fixed"``).
    """

    def __init__(
        self,
        rules: RuleSet,
        players: int,
        *,
        first_dealer: int = 0,
        max_hands: int | None = None,
    ) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players}")
        if not 0 <= first_dealer < players:
            raise ValueError(f"the first dealer must be a seat 0..{players - 1}")
        if max_hands is not None and max_hands < 1:
            raise ValueError("max_hands must be at least 1")
        self.rules = rules
        self.players = players
        self.dealer = first_dealer
        self.max_hands = max_hands
        self.hand_no = 0  # hands started, void ones included: each hand gets a new number
        self.totals = [0] * players
        self.wins = [0] * players
        self.out: set[int] = set()
        self.results: list[HandResult] = []
        self.voids = 0  # void hands, forfeited ones included (towards ``void_limit``)
        self.forfeits = 0  # forfeited hands: lost by their culprits, and played
        self.winner: int | None = None
        self.over = False

    def new_hand(self, absent: Iterable[int] = ()) -> Game:
        """The next hand, dealt by the current dealer, without the players who are out of the
        match nor the seats in ``absent`` (empty seats: they sit this hand out). The deal moves
        on past an absent dealer."""
        if self.over:
            raise ValueError("the match is over")
        out = self.out | set(absent)
        if self.players - len(out) < MIN_PLAYERS:
            raise ValueError("a hand needs at least two players")
        if self.dealer in out:
            self.dealer = self._next_in(
                self.dealer, [s for s in range(self.players) if s not in out]
            )
        self.hand_no += 1
        return Game(self.rules, self.players, dealer=self.dealer, out=out, hand_no=self.hand_no)

    def record(self, game: Game) -> None:
        """Add a finished hand's scores, rotate the deal, and decide whether the match ends."""
        result = game.result
        if result is None:
            raise ValueError("the hand is not over")
        if game.hand_no != self.hand_no:
            raise ValueError(f"hand {game.hand_no} is not the match's current hand")
        self.results.append(result)
        scoring = self.rules.scoring
        if result.reason in ("void", "forfeit"):
            self.voids += 1
        if result.reason == "forfeit":
            self.forfeits += 1
        if result.reason != "void":
            for seat in game.dealt_in:
                self.totals[seat] += result.scores[seat]
            self.wins[result.placings[0]] += 1
            if scoring.mode == "penalty" and scoring.target:
                for seat in game.dealt_in:
                    if self.totals[seat] >= scoring.target:
                        self.out.add(seat)
        in_match = [s for s in range(self.players) if s not in self.out]
        if self.rules.deal.dealer_rotation == "clockwise" or self.dealer in self.out:
            self.dealer = self._next_in(self.dealer, in_match)
        self._decide(in_match)

    def _next_in(self, seat: int, in_match: Sequence[int]) -> int:
        for k in range(1, self.players + 1):
            s = (seat + k) % self.players
            if s in in_match:
                return s
        return seat

    def _decide(self, in_match: Sequence[int]) -> None:
        scoring = self.rules.scoring
        target = scoring.target
        everyone = range(self.players)
        if scoring.mode == "winner_collects" and target and max(self.totals) >= target:
            self._end(self._leader(everyone, self.totals, most=True))
        elif scoring.mode == "penalty" and target and len(in_match) <= 1:
            if in_match:
                self._end(in_match[0])
            else:  # everyone crossed the line in the same hand: the lowest total wins
                self._end(self._leader(everyone, self.totals, most=False))
        elif (
            self.max_hands is not None
            and len(self.results) - self.voids + self.forfeits >= self.max_hands
        ) or self.voids >= scoring.void_limit:
            if all(r.reason == "void" for r in self.results):
                # Every hand void, nobody's forfeit: no hand was scored, so nobody won one. (Before,
                # seat 0 "won": a player whose bad passes voided every hand of a dealer-blind
                # match, blamed on nobody it could prove, was announced as the match's winner.)
                self.winner, self.over = None, True
            elif scoring.mode == "penalty":
                self._end(self._leader(in_match or everyone, self.totals, most=False))
            elif scoring.mode == "winner_collects":
                self._end(self._leader(everyone, self.totals, most=True))
            else:
                self._end(self._leader(everyone, self.wins, most=True))

    def _leader(self, seats: Sequence[int], figure: Sequence[int], *, most: bool) -> int:
        """The seat among ``seats`` with the most (``most``) or the least of ``figure``; a tie
        goes to the tied seat placed best in the latest scored hand that placed any of them.
        (Before, a tie went to the lowest seat number — the seat ``lanswitch play``'s own
        player takes, as the first to sit down: in three-player, five-hand ``switch`` matches
        of equal bots, seat 1 won 0.438 of them, ``benchmarks/grinding.py``.)"""
        best = max(figure[s] for s in seats) if most else min(figure[s] for s in seats)
        tied = [s for s in seats if figure[s] == best]
        for result in reversed(self.results):
            placed = [s for s in result.placings if s in tied]
            if placed:
                return placed[0]
        return tied[0]

    def _end(self, winner: int) -> None:
        self.winner = winner
        self.over = True
