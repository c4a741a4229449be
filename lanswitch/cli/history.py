"""``lanswitch history``: the hands this computer's clients played or watched, as a table
(newest first) or one hand in full (``history ID``), or one hand's transcript saved to a file
(``history ID --save FILE``). Also the lookup ``verify --hand ID`` and ``replay --hand ID``
make: the transcript the history keeps for a hand, or why there is none."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .common import _UsageError, data_dir

if TYPE_CHECKING:
    from ..history import HandRow


def _history_row(hand: int, path: Path, what: str) -> HandRow:
    """Hand ``hand`` of the history at ``path``; a usage error if there is none (to
    ``what``: check, show)."""
    from ..history import History, HistoryError

    if not path.exists():
        raise _UsageError(f"no history at {path} yet: no hand {hand} to {what}")
    try:
        with History(path) as history:
            row = history.get(hand)
    except HistoryError as e:
        raise _UsageError(str(e)) from None
    if row is None:
        raise _UsageError(f"no hand {hand} in the history {path}; lanswitch history lists them")
    return row


def _stored_transcript(hand: int, data: Path) -> tuple[str, bytes | str]:
    """``history:ID`` and the transcript the history keeps for hand ``hand`` (or why there is
    none: a hand watched has no transcript). A hand not in the history is a usage error."""
    from ..history import history_path

    row = _history_row(hand, history_path(data), "check")
    name = f"history:{hand}"
    if row.transcript is not None:
        return name, row.transcript
    if row.seat is None:
        return name, "you watched this hand: there is no transcript of yours to check"
    if row.status == "unfinished":
        return name, (
            "the host stopped the table during this hand and never carried it on: it was not "
            "finished, so there is nothing to check"
        )
    # Played, but no file of its deal was kept: not "you watched this hand" (issue 26).
    return name, (
        f"you played this hand (seat {row.seat + 1}), but the history kept no file of its "
        "deal to check"
    )


def _cmd_history(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from datetime import datetime

    from ..history import History, HistoryError, history_path, result_text, verdict_text
    from ..textsafe import escape

    path = history_path(data_dir(args.data_dir))
    if args.save is not None:
        if args.id is None:
            raise _UsageError("history --save FILE saves one hand: give its ID as well")
        return _save_hand(args.id, path, args.save, out)
    if args.id is not None:
        return _show_hand(args.id, path, args.json, out)
    rows = []
    total = 0
    if path.exists():  # reading never makes the file
        try:
            with History(path) as history:
                rows, total = history.rows(args.limit), history.count()
        except HistoryError as e:
            raise _UsageError(str(e)) from None
    if args.json:
        out.write(json.dumps([r.as_json() for r in rows]) + "\n")
        return 0
    if not rows:
        out.write(
            f"No hands in the history yet ({path}). Every hand you play or watch with "
            "lanswitch play or lanswitch join is kept there.\n"
        )
        return 0

    def when(at: str) -> str:
        try:
            return datetime.fromisoformat(at).astimezone().strftime("%Y-%m-%d %H:%M")
        except ValueError:
            return at[:16]

    table = [
        (
            str(r.id),
            escape(when(r.at)),
            escape(r.table[:24]),
            str(r.hand_no),
            escape(r.rules[:16]),
            result_text(r),
            verdict_text(r),
        )
        for r in rows
    ]
    for line in history_lines(table):
        out.write(line + "\n")
    if total > len(rows):
        out.write(f"({len(rows)} of {total} hands; --limit N shows more)\n")
    out.write("lanswitch verify --hand ID checks a hand's transcript again.\n")
    return 0


WIDTH = 80
"""The columns ``lanswitch history`` keeps its lines within, a terminal's usual width: each
line is shorter (a full line makes some terminals wrap again, as ``stats`` says)."""

_HEAD = ("id", "when", "table", "hand", "rules", "result", "verdict")
_SHRINK = ((4, 8), (2, 20), (5, 14))
"""The columns that give way, in turn, where a hand's line is too long, each down to its
least: the rules, the table's name, then the result (its winner comes first)."""


def history_lines(rows: Sequence[tuple[str, ...]], width: int = WIDTH) -> list[str]:
    """The history's table, one hand a line (id, when, table, hand, rules, result, verdict)
    where every line is shorter than ``width``; else each hand's verdict on a line of its own
    under its row, and the row's longest cells cut (with "…") until it fits: the table, when
    and who won stay on the first line, and a verdict is never cut (it wraps, indented)."""
    import textwrap

    table = [_HEAD, *rows]
    widths = [max(len(row[c]) for row in table) for c in range(len(_HEAD))]
    if sum(widths) + 2 * (len(widths) - 1) < width:
        return [_row(row, widths) for row in table]
    widths = widths[:-1]  # the verdict goes under the row
    for column, least in _SHRINK:
        over = sum(widths) + 2 * (len(widths) - 1) - (width - 1)
        if over > 0:
            widths[column] = max(least, widths[column] - over)
    indent = " " * (widths[0] + 2)  # under "when"
    lines = [_row(_HEAD[:-1], widths), indent + _HEAD[-1]]
    for row in rows:
        lines.append(_row(row[:-1], widths))
        lines += textwrap.wrap(
            row[-1],
            width - 1,
            initial_indent=indent,
            subsequent_indent=indent + "  ",
            break_on_hyphens=False,
        )
    return lines


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    right = {0, 3}  # numbers line up on the right
    out = []
    for c, cell in enumerate(cells):
        if c < len(widths):
            w = widths[c]
            cell = cell if len(cell) <= w else cell[: w - 1] + "…"
            cell = cell.rjust(w) if c in right else cell.ljust(w)
        out.append(cell)
    return "  ".join(out).rstrip()


def _save_hand(hand: int, path: Path, target: Path, out: TextIO) -> int:
    """``lanswitch history ID --save FILE``: the hand's transcript as it is kept, byte for
    byte, in a new file (never over another: a transcript is evidence)."""
    import shlex

    from ..fairdeal.judgement import deal_named
    from ..textsafe import escape

    row = _history_row(hand, path, "save")
    if row.transcript is None:
        raise _UsageError(
            f"hand {hand} was watched, not played: there is no transcript of yours to save"
        )
    try:
        with target.open("xb") as f:
            f.write(row.transcript)
    except FileExistsError:
        raise _UsageError(f"{target} exists already: give a new file's name") from None
    except OSError as e:
        raise _UsageError(f"cannot write {target}: {e.strerror or e}") from None
    kind = deal_named(row.deal).proof_name()
    out.write(
        f"saved the {kind} of hand {row.hand_no} at {escape(row.table)} to {escape(str(target))}"
        f"; lanswitch verify {escape(shlex.quote(str(target)))} checks it\n"
    )
    return 0


def _show_hand(hand: int, path: Path, as_json: bool, out: TextIO) -> int:
    """``lanswitch history ID``: one hand in full, as this client saw it."""
    from ..history import result_text, verdict_text
    from ..textsafe import escape

    row = _history_row(hand, path, "show")
    if as_json:
        out.write(json.dumps(row.as_json()) + "\n")
        return 0
    # "dave watching", "dave in seat 2" ("dave in watching" was the newcomer pass's)
    where = "watching" if row.seat is None else f"in seat {row.seat + 1}"
    at = escape(row.at[:16].replace("T", " "))
    out.write(
        f"hand {row.hand_no} at {escape(row.table)} ({escape(row.rules)}), {at} UTC,"
        f" {escape(row.name)} {where}\n"
    )
    out.write(f"result: {result_text(row)}\n")
    if row.placings:
        placed = (f"{i}. {escape(n)}" for i, n in enumerate(row.placings, 1))
        out.write("placings: " + ", ".join(placed) + "\n")
    out.write(f"verdict: {verdict_text(row)}\n")
    if row.log:
        out.write("the hand as it was told to you:\n")
        for line in row.log:
            out.write(f"  {escape(line)}\n")
    else:
        out.write("(no log kept for this hand: an older lanswitch recorded it)\n")
    if row.transcript is not None:
        out.write(
            f"lanswitch verify --hand {row.id} checks its transcript again; "
            f"lanswitch history {row.id} --save FILE writes it to a file.\n"
        )
    return 0
