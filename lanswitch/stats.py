"""``lanswitch stats``: what the history says about your games — hands and matches played,
your win rate, how you fare against each player you met (by name), per set of rules, and
over time (per month, or per week).

Theory of operation
-------------------
Every figure is counted from the rows of the history (:mod:`lanswitch.history`), one per hand
a client of this computer finished; nothing else is kept. A *hand played* is a row with a seat;
a hand only watched counts apart and in no rate. A hand *scored* is one played that ended with
placings (not void); you *won* it when you placed first, and your win rate is hands won over
hands scored. A *match* is one game id (a table's series of hands, until its match ends and a
new one begins). Other players are told apart by the name they played under, as the history
keeps them — a friend who changes name counts twice, and bots count under their names
(``bot 1``) like anyone. The history keeps no match scores, so matches are counted, not won.

Times are the history's (UTC), grouped in the local time zone: a month as ``2026-12``, a
week as its ISO name ``2026-W49``.

Pure over the rows: :func:`gather` takes them and a time zone; the command reads the file.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, TextIO

from .fairdeal.judgement import DEALER_BLIND
from .history import HandRow, History, HistoryError, history_path
from .textsafe import escape

__all__ = ["Stats", "Tally", "cmd_stats", "format_stats", "gather"]


@dataclass(slots=True)
class Tally:
    """Hands scored and hands you won among them (``theirs``: hands the other player won,
    for a row against a player; ``void``: hands played that ended void, for a row of rules
    or of a period — played, but in no rate; ``unfinished``: likewise, hands whose host stopped
    the table during them and never carried it on)."""

    hands: int = 0
    won: int = 0
    theirs: int = 0
    void: int = 0
    unfinished: int = 0

    def rate(self) -> float | None:
        return self.won / self.hands if self.hands else None

    def as_json(self, *, against: bool = False, void: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"hands": self.hands, "won": self.won, "win_rate": self.rate()}
        if against:
            out["they_won"] = self.theirs
        if void:
            out["void"] = self.void
            out["unfinished"] = self.unfinished
        return out


@dataclass(slots=True)
class Stats:
    """The history counted (see the module docstring)."""

    hands: int = 0  # rows: every hand kept, watched ones included
    played: int = 0
    watched: int = 0
    void: int = 0  # hands played that ended void (no result)
    unfinished: int = 0  # hands played that the host stopped and never finished (no result)
    blind: int = 0  # hands played that were dealt dealer-blind
    matches: int = 0  # game ids of the hands played
    first: str = ""  # when the first and the last hand were kept (ISO, UTC)
    last: str = ""
    you: Tally = field(default_factory=Tally)
    players: dict[str, Tally] = field(default_factory=dict)
    rules: dict[str, Tally] = field(default_factory=dict)
    periods: dict[str, Tally] = field(default_factory=dict)
    by: str = "month"

    def as_json(self) -> dict[str, Any]:
        return {
            "hands": self.hands,
            "played": self.played,
            "watched": self.watched,
            "void": self.void,
            "unfinished": self.unfinished,
            "dealer_blind": self.blind,
            "matches": self.matches,
            "first": self.first or None,
            "last": self.last or None,
            "you": self.you.as_json(),
            "players": {n: t.as_json(against=True) for n, t in self.players.items()},
            "rules": {n: t.as_json(void=True) for n, t in self.rules.items()},
            "by": self.by,
            "periods": {n: t.as_json(void=True) for n, t in self.periods.items()},
        }


def _period(at: str, by: str, zone: tzinfo | None) -> str:
    try:
        when = datetime.fromisoformat(at).astimezone(zone)
    except ValueError:
        return at[:7] if by == "month" else at[:10]
    if by == "week":
        year, week, _ = when.isocalendar()
        return f"{year}-W{week:02d}"
    return when.strftime("%Y-%m")


def gather(rows: Sequence[HandRow], *, by: str = "month", zone: tzinfo | None = None) -> Stats:
    """Count ``rows`` (any order) by ``by`` (``month`` or ``week``) in the time zone ``zone``
    (None: this computer's)."""
    if by not in ("month", "week"):
        raise ValueError(f"stats are grouped by month or week, not {by!r}")
    st = Stats(hands=len(rows), by=by)
    games: set[str] = set()
    ordered = sorted(rows, key=lambda r: (r.at, r.id))
    if ordered:
        st.first, st.last = ordered[0].at, ordered[-1].at
    for r in ordered:
        if r.seat is None:
            st.watched += 1
            continue
        st.played += 1
        st.blind += r.deal == DEALER_BLIND.name
        games.add(r.game_id)
        groups = (
            st.rules.setdefault(r.rules, Tally()),
            st.periods.setdefault(_period(r.at, by, zone), Tally()),
        )
        if r.status == "unfinished":  # the host stopped the table mid-hand: not played out
            st.unfinished += 1
            for tally in groups:
                tally.unfinished += 1
            continue
        if r.ending == "void" or not r.placings:
            st.void += 1
            for tally in groups:  # played under these rules, then: said, in no rate
                tally.void += 1
            continue
        won = r.place == 1
        for tally in (st.you, *groups):
            tally.hands += 1
            tally.won += won
        mine = r.seat is not None and r.place is not None
        for i, name in enumerate(r.placings):
            if mine and i + 1 == r.place:
                continue  # yourself
            t = st.players.setdefault(name, Tally())
            t.hands += 1
            t.won += won
            t.theirs += i == 0
    st.matches = len(games)
    # Most hands together first; the rules and the periods in their own order.
    st.players = dict(sorted(st.players.items(), key=lambda kv: (-kv[1].hands, kv[0])))
    st.rules = dict(sorted(st.rules.items(), key=lambda kv: (-kv[1].hands, kv[0])))
    st.periods = dict(sorted(st.periods.items()))
    return st


def _pct(t: Tally) -> str:
    rate = t.rate()
    return "-" if rate is None else f"{round(100 * rate)}%"


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """Columns as ``lanswitch history`` prints them: the first on the left, figures right."""
    table = [head, *rows]
    widths = [max(len(row[c]) for row in table) for c in range(len(head))]
    return [
        "  ".join(
            cell.ljust(widths[c]) if c == 0 else cell.rjust(widths[c]) for c, cell in enumerate(row)
        ).rstrip()
        for row in table
    ]


def _day(at: str, zone: tzinfo | None) -> str:
    try:
        return datetime.fromisoformat(at).astimezone(zone).strftime("%Y-%m-%d")
    except ValueError:
        return at[:10]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else ('es' if word.endswith('ch') else 's')}"


def format_stats(st: Stats, *, zone: tzinfo | None = None, width: int = 80) -> str:
    """The stats as ``lanswitch stats`` prints them (names escaped: they came over the
    network), each sentence wrapped to ``width`` columns (the terminal's) at a space.

    Every hand played is in the tables of rules and of periods — a void one in their
    ``void`` column, beside the hands with a result the win rate counts — so each table adds
    up to the hands the first line says; hands only watched are said apart, in no figure."""
    span = f"{_day(st.first, zone)} to {_day(st.last, zone)}"
    first = f"You played {_plural(st.played, 'hand')} in {_plural(st.matches, 'match')}, {span}"
    if st.blind:
        first += f" ({'all' if st.blind == st.played else st.blind} of them dealt dealer-blind)"
    prose = [first + "."]
    none: list[str] = []  # the hands played that have no result, and why
    for n, word in ((st.void, "void"), (st.unfinished, "unfinished")):
        if n:
            verb = "" if none else ("was " if n == 1 else "were ")
            none.append(f"{n} {verb}{word}")
    if st.you.hands:
        had = "hand that had" if st.you.hands == 1 else "hands that had"
        prose.append(
            f"You won {st.you.won} of the {st.you.hands} {had} a result ({_pct(st.you)})"
            + (f"; {', '.join(none)} (no result)." if none else ".")
        )
    else:
        prose.append(
            "No hand of yours has a result yet"
            + (f" ({', '.join(none)}: no result)." if none else ".")
        )
    if st.unfinished:
        prose.append(
            "(Unfinished: the host stopped the table during the hand and never carried it on.)"
        )
    if st.watched:
        prose.append(f"You also watched {_plural(st.watched, 'hand')}.")
    lines = [line for sentence in prose for line in _wrap(sentence, width)]
    if st.players:
        lines += [
            "",
            *_wrap("Against each player (hands with a result together, who won them):", width),
        ]
        lines += _table(
            ("player", "hands", "you won", "they won"),
            [
                (escape(n[:24]), str(t.hands), str(t.won), str(t.theirs))
                for n, t in st.players.items()
            ],
        )
    # Hands played with no result, in columns of their own (shown when there are any), so that
    # each table's hands add up to the hands played.
    extra = [(name, n) for name, n in (("void", st.void), ("unfinished", st.unfinished)) if n]
    for title, head, tallies in (
        ("Per set of rules:", "rules", st.rules),
        (f"Per {st.by}:", st.by, st.periods),
    ):
        if not tallies:
            continue
        lines += ["", title]
        rows = []
        for key, t in tallies.items():
            counts = {"void": t.void, "unfinished": t.unfinished}
            played = t.hands + t.void + t.unfinished
            rows.append(
                (
                    escape(key[:24]),
                    str(played),
                    *(str(counts[name]) for name, _ in extra),
                    str(t.won),
                    _pct(t),
                )
            )
        lines += _table((head, "hands", *(name for name, _ in extra), "won", "rate"), rows)
    if extra:
        lines += ["", "(the rate counts only the hands with a result)"]
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of fewer than ``width`` columns (a full line would make some
    terminals wrap again), broken at spaces."""
    import textwrap

    return textwrap.wrap(text, max(20, width - 1), break_on_hyphens=False) if text else []


def cmd_stats(data: Path, out: TextIO, err: TextIO, *, as_json: bool, by: str) -> int:
    """``lanswitch stats``: the history in the data dir ``data``, counted. Reading never makes
    the file; a history that cannot be read is an error that says why (exit 2)."""
    path = history_path(data)
    rows: list[HandRow] = []
    if path.exists():
        try:
            with History(path) as history:
                rows = history.rows()
        except HistoryError as e:
            err.write(f"lanswitch: error: {e}\n")
            return 2
    st = gather(rows, by=by)
    if as_json:
        out.write(json.dumps(st.as_json()) + "\n")
        return 0
    if not st.hands:
        out.write(
            f"No hands in the history yet ({path}), so no stats. Every hand you play or watch "
            "with lanswitch play or lanswitch join is kept there.\n"
        )
        return 0
    if not st.played:
        out.write(
            f"You only watched: {st.watched} hand{'s' if st.watched != 1 else ''}, none played.\n"
        )
        return 0
    out.write(format_stats(st, width=min(100, shutil.get_terminal_size((80, 24)).columns)))
    return 0
