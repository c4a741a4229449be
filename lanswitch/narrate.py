"""The engine's events told in words: one narration for every place a person reads a hand.

The terminal client's log, ``lanswitch simulate --verbose`` and the history all tell a hand
through :func:`describe`, so they cannot disagree about what happened ("calls peanuckle", not
"calls last card"; "did not call last card", not "penalised 1"). Pure: no I/O, no clock.

Theory of operation
-------------------
The engine emits one event per thing that happened (:data:`lanswitch.game.EventKind`),
several per move: a penalty is a ``penalty`` event and then one ``draw`` per card; taking a
pick-up is ``take`` and then its draws. :func:`describe` walks one step's events and folds
such a run into one :class:`Line` ("bob did not call last card and draws a card"), and
leaves out what a reader does not need (``turn``, ``deal``, ``over``). Another seat's drawn
cards reach a player as -1 (``lanswitch.game.redact``), so a line says how many cards were
drawn, and which ones only where they are known: one's own, or every card in a simulation.

A :class:`Line` keeps its cards and suits apart from its words (:class:`Cards`,
:class:`SuitName`), so a screen can draw a card in its suit's colour, or as letters with
``--ascii``; :meth:`Line.text` gives plain text. Consecutive draws by one player, one move
each under "draw until you can play", are joined by :func:`merge` into one line
("bob draws 3 cards").

Power cards are told from their rule rows (the table's :class:`~lanswitch.rules.RuleSet`):
an effect with an event of its own (``pickup``, ``skip``, ``reverse``, ``suit``, ``cancel``,
``return``, ``again``, ``mimic``) gets that event's line, with what answers a pending pick-up
or skip read from the rows that stack on, cancel or return it; an effect with none (a card to
cover, a suit to follow, a 10-run, a wild card, an answer laid on nothing) gets a line of its
own after the card. Some effects span steps: a Queen laid in one move is covered, or not and
a card drawn, in the next. A :class:`Story` (one per reader per table) carries what that needs
from step to step. Each line names the row fields it explains (:attr:`Line.effects`), so a
test can check that every effect the engine applied was told.

The seat that reads the narration (``me``) is "you", with the verb to match.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal

from .cards import JOKER_BASE, SUIT_LETTERS, SUIT_SYMBOLS, format_card
from .game import (
    BLUNDERED,
    CALLED_PEANUCKLE,
    MAX_CARD,
    MISSED_LAST,
    MISSED_PEANUCKLE,
    NO_FINISH,
    Event,
    Tables,
    format_move,
)
from .powers import predicate_words, rows_cards_words
from .rules import Power, RuleSet

__all__ = [
    "QUIET_KINDS",
    "Cards",
    "Line",
    "Part",
    "Story",
    "SuitName",
    "Tone",
    "card_words",
    "describe",
    "ending",
    "merge",
    "nth",
    "predicate_words",
]

Tone = Literal["plain", "notice", "good", "quiet"]
"""How a line reads: ``notice`` wants attention (a pick-up, a penalty, a call), ``good`` is
someone going out, ``quiet`` is routine (a draw, a reshuffle)."""

QUIET_KINDS = frozenset({"turn", "deal", "over"})
"""The event kinds :func:`describe` leaves out: the screen shows whose turn it is and the
hand dealt, and the end of a hand has a screen of its own."""


@dataclass(frozen=True, slots=True)
class Cards:
    """Cards named in a line (a screen draws each in its suit's colour)."""

    ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SuitName:
    """A suit named in a line."""

    suit: int


Part = str | Cards | SuitName


@dataclass(frozen=True, slots=True)
class Line:
    """One line of narration: words, cards and suits in order, and how it reads.

    A plain line of cards drawn also keeps who drew (``drawer``, else -1), its words before
    the cards (``lead``: "bob draws"), how many (``drawn``) and the faces known (``seen``),
    so that :func:`merge` can join it with the next one."""

    parts: tuple[Part, ...]
    tone: Tone = "plain"
    drawer: int = -1
    lead: str = ""
    drawn: int = 0
    seen: tuple[int, ...] = ()
    #: The power-row fields (lanswitch.powers.EFFECT_FIELDS) this line explains, and
    #: "calls" for a missed call, "follow" for a card laid on in a multi-card turn.
    effects: tuple[str, ...] = ()

    def text(self, *, symbols: bool = True) -> str:
        """The line as plain text (suits as ``♥``, or ``H`` without ``symbols``)."""
        out = []
        for part in self.parts:
            if isinstance(part, Cards):
                out.append(" ".join(card_words(c, symbols=symbols) for c in part.ids))
            elif isinstance(part, SuitName):
                out.append(SUIT_SYMBOLS[part.suit] if symbols else SUIT_LETTERS[part.suit])
            else:
                out.append(part)
        return "".join(out)


def card_words(card: int, *, symbols: bool = True) -> str:
    """A card as a line names it: ``10♥`` (``10H``), ``joker``, ``?`` for one not seen."""
    if not 0 <= card < MAX_CARD:
        return "?"
    if card >= JOKER_BASE:
        return "joker"
    return format_card(card, symbols=symbols)


def nth(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` … ``11th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _count(n: int, thing: str) -> str:
    return f"{'a' if n == 1 else n} {thing}{'' if n == 1 else 's'}"


class _Teller:
    """Names and verbs for one reader: the reader's own seat is "you"."""

    def __init__(self, names: Sequence[str], me: int | None) -> None:
        self.names = names
        self.me = me

    def who(self, seat: int) -> str:
        if seat == self.me:
            return "you"
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"seat {seat + 1}"

    def whose(self, seat: int) -> str:
        return "your" if seat == self.me else f"{self.who(seat)}'s"

    def does(self, seat: int, verb: str) -> str:
        """``bob draws`` / ``you draw``: ``verb`` in the third person, made to agree."""
        if seat != self.me:
            return f"{self.who(seat)} {verb}"
        first, _, rest = verb.partition(" ")
        if first in ("did", "may"):  # a verb that does not change
            plain = first
        elif first == "is":
            plain = "are"
        elif first.endswith("ies"):
            plain = first[:-3] + "y"
        elif first.endswith(("sses", "shes", "ches", "xes", "oes")):
            plain = first[:-2]
        else:
            plain = first[:-1] if first.endswith("s") else first
        return "you " + " ".join(w for w in (plain, rest) if w)


def _drawn(seat: int, cards: Sequence[int], lead: str) -> Line:
    """``lead`` (e.g. "bob draws") with the cards: their faces where known, else a count."""
    seen = tuple(c for c in cards if 0 <= c < MAX_CARD)
    return Line(_draw_parts(lead, len(cards), seen), "quiet", seat, lead, len(cards), seen)


def _draw_parts(lead: str, n: int, seen: tuple[int, ...]) -> tuple[Part, ...]:
    if seen and len(seen) == n:
        return (lead + " ", Cards(seen))
    return (f"{lead} {_count(n, 'card')}",)


def merge(previous: Line, line: Line) -> Line | None:
    """``previous`` and ``line`` as one line, when both are plain draws by the same seat (a run
    of single draws under "draw until you can play"); else None."""
    if previous.drawer < 0 or previous.drawer != line.drawer or previous.lead != line.lead:
        return None
    n, seen = previous.drawn + line.drawn, (*previous.seen, *line.seen)
    return replace(previous, parts=_draw_parts(previous.lead, n, seen), drawn=n, seen=seen)


@lru_cache(maxsize=16)
def _tables(rules: RuleSet) -> Tables:
    """The engine's tables for ``rules``: which power row owns a card."""
    return Tables(rules)


@dataclass
class Story:
    """What a hand's narration remembers from one step to the next (a step is one move's
    events): whose turn it is and what was laid in it, a card waiting to be covered, the rows
    of the pending pick-up or skip. A Queen laid in one step is covered — or not, and its
    player draws — in the next, so the line that says which needs the step before.

    One Story per reader per table; it starts afresh at each deal (the ``deal`` and
    ``starter`` events), so it may live across hands. ``rules`` is the table's rule set:
    without it the lines say what happened but not what the power cards do."""

    rules: RuleSet | None = None
    turn: int = -1  # the seat whose turn it is
    laid: list[int] = field(default_factory=list)  # the cards it laid this turn, first first
    cover: tuple[int, int] = (-1, -1)  # (seat, card) a card laid that must be covered
    follow_suit: int = -1  # a suit its player may go on laying (a 7 that follows suit)
    pending: list[str] = field(default_factory=list)  # row names in the pending pick-up/skip
    pending_kind: str = ""  # "pickup" | "skip" | ""
    pending_by: int = -1  # the seat that laid (or sent back) the pending pick-up or skip
    face: int = -1  # the face of the card laid last (a joker's named face)
    named_suit: int = -1  # the suit a wild card named, until the next card is laid
    again_told: bool = False  # "plays again" said in this turn

    def row(self, card: int) -> Power | None:
        """The power row that owns ``card`` under the rules, if any."""
        if self.rules is None or not 0 <= card < MAX_CARD:
            return None
        index = _tables(self.rules).row_of[card]
        return self.rules.power[index] if index >= 0 else None

    def restart(self) -> None:
        """A new deal: nothing of the hand before carries over."""
        self.turn = self.face = self.named_suit = -1
        self.laid = []
        self.cover = (-1, -1)
        self.follow_suit = -1
        self.pending = []
        self.pending_kind = ""
        self.pending_by = -1
        self.again_told = False


def describe(
    events: Iterable[Event],
    names: Sequence[str],
    *,
    me: int | None = None,
    rules: RuleSet | None = None,
    story: Story | None = None,
) -> list[Line]:
    """The lines that tell ``events`` (one step of a hand, or several) to the reader in seat
    ``me`` (None: a spectator, or a simulation with every card face up). ``names[seat]`` is
    what each seat is called.

    With the table's ``rules`` each power card's effect is told as it happens, from its rule
    row: what a pick-up is now and what answers it, a card that must be covered (and whether
    it was), a suit followed, a card laid on in a run or a set. Pass the same ``story`` for
    every step of a hand, so a line may draw on the step before (a cover missed is a draw in
    the next step); without one, each call starts a story of its own."""
    t = _Teller(names, me)
    if story is None:
        story = Story(rules)
    elif rules is not None:
        story.rules = rules
    out: list[Line] = []
    # A run of draws and what led to it: (seat, lead kind, its value, the cards so far).
    run: tuple[int, str, int, list[int]] | None = None
    starters: list[int] = []
    last_played = -1
    dealt = False

    def flush() -> None:
        nonlocal run
        if starters:
            out.append(_starter(starters))
            starters.clear()
        if run is None:
            return
        seat, lead, value, cards = run
        run = None
        out.append(_run_line(seat, lead, value, cards, t, last_played))

    for kind, seat, value in events:
        if kind == "draw":
            if run is not None and run[0] == seat:
                run[3].append(value)
            else:
                flush()
                cover_seat, covered = story.cover
                if cover_seat == seat and covered >= 0:  # could not cover: draws instead
                    story.cover = (-1, -1)
                    run = (seat, "uncovered", covered, [value])
                else:
                    run = (seat, "draw", 0, [value])
            continue
        if kind in ("starter", "deal"):
            if not dealt:  # a deal's events come in one step
                story.restart()
                dealt = True
            if kind == "deal":
                continue
            if run is not None:
                flush()
            starters.append(value)
            continue
        flush()
        if kind in ("take", "penalty"):
            if kind == "take":
                story.pending, story.pending_kind = [], ""
            run = (seat, kind, value, [])
            continue
        if kind == "play":
            out += _laid(seat, value, story, t)
            last_played = value
            continue
        if kind == "turn":
            line = _turn(seat, story, t)
            if line is not None:
                out.append(line)
            continue
        line = _line(kind, seat, value, t)
        if line is not None:
            out.append(_explained(line, kind, seat, value, story, t))
        if kind == "mimic":  # the joker does what the card it stands for does
            out += _effects_of(seat, value, story.row(value), story, t)
    flush()
    return out


def _turn(seat: int, story: Story, t: _Teller) -> Line | None:
    """A new turn: the same seat again (a reverse or a skip with two players) is told."""
    again = seat == story.turn and bool(story.laid) and not story.again_told
    story.turn = seat
    story.laid = []
    story.cover = (-1, -1)
    story.follow_suit = story.named_suit = -1
    story.again_told = False
    if again:
        return Line((t.does(seat, "plays") + " again",), "quiet", effects=("again",))
    return None


def _laid(seat: int, card: int, story: Story, t: _Teller) -> list[Line]:
    """A card laid, and what it does that no event of its own tells."""
    if seat != story.turn:  # (joined mid-hand, or a turn event not seen)
        story.turn, story.laid = seat, []
    out: list[Line] = []
    words: tuple[Part, ...] = (t.does(seat, "plays") + " ", Cards((card,)))
    effects: tuple[str, ...] = ()
    cover_seat, covered = story.cover
    row = story.row(card)
    if cover_seat == seat and covered >= 0:
        story.cover = (-1, -1)
        words += (", covering ", Cards((covered,)))
        effects = ("cover",)
    elif story.laid:
        why, effects = _laid_on(card, story)
        if why:
            words += (f" ({why})",)
    out.append(Line(words, effects=effects))
    story.laid.append(card)
    story.face = card
    story.named_suit = -1
    return out + _effects_of(seat, card, row, story, t)


def _effects_of(seat: int, card: int, row: Power | None, story: Story, t: _Teller) -> list[Line]:
    """What ``card`` (laid, or named for a joker) does that no event of its own tells: a card
    to cover, a suit to follow, a run, a wild card, an answer with nothing to answer."""
    out: list[Line] = []
    if row is None:
        return out
    suit = SuitName(card // 13 % 4) if card < JOKER_BASE else None
    if row.cover != "none" and suit is not None:
        story.cover = (seat, card)
        by: tuple[Part, ...] = ("a ", suit) if row.cover == "suit" else ("any card",)
        out.append(
            Line(
                (
                    Cards((card,)),
                    " must be covered by ",
                    *by,
                    " in this turn, or ",
                    t.does(seat, "draws") + " a card",
                ),
                "notice",
                effects=("cover",),
            )
        )
    if row.follow_suit and suit is not None:
        story.follow_suit = suit.suit
        out.append(
            Line(
                (
                    Cards((card,)),
                    " follows suit: ",
                    t.does(seat, "may lay") + " more ",
                    suit,
                    " in this turn",
                ),
                effects=("follow_suit",),
            )
        )
    if row.run and suit is not None:
        out.append(
            Line(
                (
                    Cards((card,)),
                    " starts a run: ",
                    t.does(seat, "may lay") + " any ",
                    suit,
                    ", then go on in sequence",
                ),
                effects=("run",),
            )
        )
    if row.wild and not row.names_suit and not row.mimic:
        out.append(Line((Cards((card,)), " is wild: it goes on any card"), effects=("wild",)))
    if row.answer_only and not (story.pending and story.pending_by != seat):
        out.append(
            Line(
                (Cards((card,)), " does nothing here: it counts only when laid on a pick-up"),
                "quiet",
                effects=("answer_only",),
            )
        )
    return out


def _laid_on(card: int, story: Story) -> tuple[str, tuple[str, ...]]:
    """Why ``card`` could go on in this turn, after the cards already laid in it."""
    rules = story.rules
    if rules is None:
        return "", ()
    prev = story.face  # the card before (what a joker stood for)
    before = story.row(prev)
    row = story.row(card)
    suit = card // 13 % 4 if card < JOKER_BASE else -1
    if suit >= 0 and story.follow_suit == suit:
        return "following suit", ("follow_suit",)
    if suit >= 0 and story.named_suit == suit and before is not None and before.continue_in_suit:
        return "the suit named", ("continue_in_suit",)
    if row is not None and (row.wild or row.mimic) and rules.play.wild_continues:
        return "wild", ("wild", "follow")
    if before is not None and row is not None and before.together and row.together:
        return "laid together", ("together",)
    if before is not None and before.run:
        return "a run", ("run",)
    if prev >= JOKER_BASE or card >= JOKER_BASE:
        return "", ()
    same_rank = prev % 13 == card % 13
    same_suit = prev // 13 % 4 == card // 13 % 4
    follow = rules.play.follow
    if follow in ("sets", "runs_and_sets") and same_rank:
        return "same rank", ("follow",)
    if follow in ("suit_runs", "runs_and_sets") and same_suit and abs(prev % 13 - card % 13) == 1:
        return "a run", ("follow",)
    if follow == "chain" and (same_rank or same_suit):
        return "matching the card before", ("follow",)
    return "", ()


def _answers(story: Story) -> str:
    """What may answer the pending pick-up or skip: "a 2 adds to it, a red Jack cancels it"."""
    rules = story.rules
    if rules is None or not story.pending:
        return ""
    pending = set(story.pending)
    said: list[str] = []
    stack = [r.name for r in rules.power if set(r.stacks_on) & pending]
    if stack:
        passes = all(not r.adds for r in rules.power if r.name in stack)
        verb = "passes it on" if passes else "adds to it"
        said.append(f"{rows_cards_words(rules, stack)} {verb}")
    cancel = [r.name for r in rules.power if set(r.cancels) & pending]
    if cancel:
        said.append(f"{rows_cards_words(rules, cancel)} cancels it")
    ret = [r.name for r in rules.power if set(r.returns) & pending]
    if ret:
        said.append(f"{rows_cards_words(rules, ret)} sends it back")
    return ", ".join(said)


def _explained(line: Line, kind: str, seat: int, value: int, story: Story, t: _Teller) -> Line:
    """An event's line with what the power card that caused it does, from its rule row."""
    face = story.face
    row = story.row(face)
    if kind in ("pickup", "skip"):
        # A skip that does not stack is not pending: the next player simply misses a turn.
        pends = kind == "pickup" or (row is not None and bool(row.stacks_on))
        stacked = pends and story.pending_kind == kind and bool(story.pending)
        if not pends:
            story.pending, story.pending_kind = [], ""
        elif not stacked:
            story.pending, story.pending_kind = [], kind
        if pends and row is not None and row.name not in story.pending:
            story.pending.append(row.name)
        story.pending_by = seat
        if kind == "pickup":
            parts: tuple[Part, ...] = (f"the pick-up is now {value}",)
        else:
            parts = (f"the next player misses {_count(value, 'turn')}",)
        answers = _answers(story) if pends else ""
        if answers:
            parts += (f" ({answers})",)
        return replace(line, parts=parts, effects=(kind, "stacks_on") if stacked else (kind,))
    if kind == "cancel":
        if value <= 0:
            story.pending, story.pending_kind = [], ""
        return replace(line, effects=("cancels",))
    if kind == "return":
        story.pending_by = seat
        return replace(line, effects=("returns",))
    if kind == "reverse":
        return replace(line, effects=("reverse",))
    if kind == "suit":
        story.named_suit = value
        wild = row is not None and row.wild  # (the line before says which card it was)
        return replace(line, effects=("names_suit", "wild") if wild else ("names_suit",))
    if kind == "mimic":
        story.face = value
        return replace(line, effects=("mimic", "wild"))
    if kind == "again":
        story.again_told = True
        return replace(line, effects=("again",))
    if kind == "miss" and story.pending_kind == "skip" and seat == story.turn:
        # The skip is taken: its target passes on its own turn. (A seat passed over for the
        # turns an earlier skip left it to miss is told "miss" too, between turns: that leaves
        # the pending skip as it is.)
        story.pending, story.pending_kind = [], ""
    return line


def _starter(cards: Sequence[int]) -> Line:
    *past, top = cards
    if not past:
        return Line(("the starter card is ", Cards((top,))), "quiet")
    return Line(
        ("the starter card is ", Cards((top,)), " (turned past: ", Cards(tuple(past)), ")"),
        "quiet",
    )


def _run_line(seat: int, lead: str, value: int, cards: list[int], t: _Teller, last: int) -> Line:
    """A run of draws with what led to it: plain draws, a pick-up taken, a penalty paid."""
    if lead == "draw":
        return _drawn(seat, cards, t.does(seat, "draws"))
    if lead == "uncovered":
        drawn = _drawn(seat, cards, "and " + ("draw" if seat == t.me else "draws"))
        lead_in: tuple[Part, ...] = (t.does(seat, "did not cover") + " ", Cards((value,)), " ")
        return Line(lead_in + drawn.parts, "notice", effects=("cover",))
    if lead == "take":
        took = t.does(seat, "picks up") + f" {value}"
        seen = tuple(c for c in cards if 0 <= c < MAX_CARD)
        if seen and len(seen) == len(cards):
            return Line((took + ": ", Cards(seen)), "notice")
        return Line((took,), "notice")
    # A penalty, then the cards it costs (none where the rules charge nothing).
    why = {
        MISSED_LAST: t.does(seat, "did not call last card"),
        MISSED_PEANUCKLE: t.does(seat, "did not call peanuckle"),
        BLUNDERED: t.does(seat, "pays for a blunder"),
    }.get(value)
    if why is None:  # NO_FINISH, or a code from a newer host
        if value == NO_FINISH and 0 <= last < MAX_CARD:
            why = t.does(seat, "may not end the hand on ") + card_words(last)
        else:
            why = t.does(seat, "is penalised")
    effects = ("calls",) if value in (MISSED_LAST, MISSED_PEANUCKLE) else ()
    if not cards:
        return Line((why,), "notice", effects=effects)
    drawn = _drawn(seat, cards, "and " + ("draw" if seat == t.me else "draws"))
    return Line((why + " ", *drawn.parts), "notice", effects=effects)


def _line(kind: str, seat: int, value: int, t: _Teller) -> Line | None:
    """One event that stands alone (not a draw, a take or a penalty)."""
    if kind in QUIET_KINDS:
        return None
    if kind == "play":
        return Line((t.does(seat, "plays") + " ", Cards((value,))))
    if kind == "pass":
        return Line((t.does(seat, "passes"),), "quiet")
    if kind == "pickup":
        return Line((f"the pick-up is now {value}",), "notice")
    if kind == "skip":
        return Line((f"the next player misses {_count(value, 'turn')}",), "notice")
    if kind == "miss":
        return Line((t.does(seat, "misses") + f" {_count(value, 'turn')}",), "quiet")
    if kind == "cancel":
        if value <= 0:
            return Line((t.does(seat, "cancels") + " the pick-up",), "plain")
        return Line((t.does(seat, "cancels") + f" part of the pick-up: {value} left",), "plain")
    if kind == "return":
        return Line((t.does(seat, "sends") + f" the pick-up back to {t.who(value)}",), "notice")
    if kind == "reverse":
        way = "clockwise" if value >= 0 else "anticlockwise"
        return Line((f"play now goes {way}",), "quiet")
    if kind == "again":
        return Line((t.does(seat, "plays") + " again",), "quiet")
    if kind == "suit":
        if not 0 <= value < 4:
            return None
        return Line((t.does(seat, "names") + " ", SuitName(value)), "plain")
    if kind == "mimic":
        return Line(("the joker stands for ", Cards((value,))), "plain")
    if kind == "call":
        call = "peanuckle" if value == CALLED_PEANUCKLE else "last card"
        return Line((t.does(seat, "calls") + f" {call}",), "notice")
    if kind == "blunder":
        if 0 <= value < MAX_CARD:
            return Line(
                (t.does(seat, "blunders") + ": ", Cards((value,)), " is not legal"), "notice"
            )
        return Line((t.does(seat, "blunders") + f": {format_move(value)} is not legal",), "notice")
    if kind == "finish":
        return Line((t.does(seat, "goes out") + f" ({nth(value)})",), "good")
    if kind == "reshuffle":
        return Line((f"the pile is shuffled into a new stock ({value} cards)",), "quiet")
    if kind == "forgiven":
        return Line(
            (f"nothing left to draw: {t.whose(seat)} {_count(value, 'card')} let go",), "quiet"
        )
    return Line((f"{kind} ({t.who(seat)}, {value})",), "quiet")  # a kind from a newer host


def won_how(reason: str) -> str:
    """How the winner of a hand that ended for ``reason`` (``HandResult.reason``) won, in a
    few words for "bob won (…)": a verdict's line said the engine's word ("finished",
    "one_left"), which a player does not know."""
    return {
        "finished": "went out",
        "one_left": "went out first",
        "blocked": "fewest cards, when no one could play or draw",
        "limit": "fewest cards, at the rules' limit of moves",
    }.get(reason, reason)


def ending(
    reason: str, names: Sequence[str], placings: Sequence[int], me: int | None = None
) -> str:
    """How a hand ended, in words: "bob went out", "no one could play", …"""
    t = _Teller(names, me)
    first = t.who(placings[0]) if placings else "no one"
    if reason == "finished":
        return f"{first} went out"
    if reason == "one_left":
        return f"everyone but {t.who(placings[-1])} went out" if placings else "one player left"
    if reason == "blocked":
        return "no one could play or draw"
    if reason == "limit":
        return "stopped at the rules' limit of moves"
    if reason == "void":
        return "void: the deal did not complete"
    if reason == "forfeit":
        return "void: whoever was blamed forfeits it"
    if reason == "unfinished":  # (a record of this client's: no hand_over came)
        return "the host never finished it"
    return reason
