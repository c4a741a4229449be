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

The seat that reads the narration (``me``) is "you", with the verb to match.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .cards import JOKER_BASE, RANK_NAMES, SUIT_LETTERS, SUIT_NAMES, SUIT_SYMBOLS, format_card
from .game import (
    BLUNDERED,
    CALLED_PEANUCKLE,
    MAX_CARD,
    MISSED_LAST,
    MISSED_PEANUCKLE,
    NO_FINISH,
    Event,
    format_move,
)

__all__ = [
    "QUIET_KINDS",
    "Cards",
    "Line",
    "Part",
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


def describe(events: Iterable[Event], names: Sequence[str], *, me: int | None = None) -> list[Line]:
    """The lines that tell ``events`` (one step of a hand, or several) to the reader in seat
    ``me`` (None: a spectator, or a simulation with every card face up). ``names[seat]`` is
    what each seat is called."""
    t = _Teller(names, me)
    out: list[Line] = []
    # A run of draws and what led to it: (seat, lead kind, its value, the cards so far).
    run: tuple[int, str, int, list[int]] | None = None
    starters: list[int] = []
    last_played = -1

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
                run = (seat, "draw", 0, [value])
            continue
        if kind == "starter":
            if run is not None:
                flush()
            starters.append(value)
            continue
        flush()
        if kind in ("take", "penalty"):
            run = (seat, kind, value, [])
            continue
        if kind == "play":
            last_played = value
        line = _line(kind, seat, value, t)
        if line is not None:
            out.append(line)
    flush()
    return out


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
    if not cards:
        return Line((why,), "notice")
    drawn = _drawn(seat, cards, "and " + ("draw" if seat == t.me else "draws"))
    return Line((why + " ", *drawn.parts), "notice")


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


_RANK_WORDS = {0: "Ace", 10: "Jack", 11: "Queen", 12: "King"}


def _rank_words(rank: int) -> str:
    name = _RANK_WORDS.get(rank, RANK_NAMES[rank])
    article = "an" if name[0] in "A8" else "a"
    return f"{article} {name}"


def predicate_words(text: str) -> str:
    """A power row's card predicate (rules.py) as a reader says it: ``2`` → "a 2",
    ``black J`` → "a black Jack", ``KH`` → "K♥", ``*H`` → "any heart", ``joker`` → "a joker"."""
    from .cards import CardError, parse_card, parse_rank, parse_suit

    t = " ".join(text.strip().split())
    low = t.lower()
    if low == "*":
        return "any card"
    if low in ("joker", "power"):
        return "a joker" if low == "joker" else "a power card"
    parts = low.split(" ")
    try:
        if len(parts) == 2 and parts[0] in ("red", "black"):
            return f"a {parts[0]} {_rank_words(parse_rank(parts[1])).split(' ', 1)[1]}"
        if len(parts) == 1 and parts[0] in ("red", "black"):
            return f"any {parts[0]} card"
        if t.startswith("*"):
            return f"any {SUIT_NAMES[parse_suit(t[1:])][:-1]}"
        try:
            return _rank_words(parse_rank(t))
        except CardError:
            return card_words(parse_card(t) % 52)
    except CardError:
        return t
