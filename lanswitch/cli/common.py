"""What every part of the command line shares: the parser's limits and names, where lanswitch
keeps its files (``data_dir``), and the two ways a command stops early (``_UsageError``,
``_Quit``), which ``run.main`` turns into an exit code."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TextIO

from ..errors import InvalidInput, Stopped

# Parser limits and names, as literals so that `lanswitch play` can draw its first frame before
# the rules engine is loaded; tests/test_cli.py checks they agree with lanswitch.rules and bots.py.
MIN_PLAYERS, MAX_PLAYERS = 2, 8
BOTS = ("easy", "normal", "hard", "heuristic", "random")
#: The levels a person picks the table's bots by (``--level``), weakest first.
LEVELS = ("easy", "normal", "hard")
#: The bots that can play a joined seat: a client holds its seat's view, not the hand's engine
#: the ``hard`` bot searches (it would play the heuristic's moves there).
SEAT_BOTS = ("easy", "normal", "heuristic", "random")
PRESET_NAMES = (
    "switch",
    "irish",
    "two-four-jack",
    "blackjack",
    "j28",
    "take-two",
    "black5",
    "peanuckle",
    "turbo",
)

DATA_DIR_ENV = "LANSWITCH_DATA_DIR"


def terminal_width(out: TextIO) -> int | None:
    """The width of the terminal ``out`` writes to, or None when it is a file or a pipe
    (whose reader wants each line whole)."""
    return shutil.get_terminal_size((80, 24)).columns if out.isatty() else None


def fitted(line: str, width: int | None) -> str:
    """``line`` broken at spaces to fit ``width`` columns, going on indented by two (a
    terminal cuts a long line wherever its edge falls, mid-word); a word longer than the
    width (a path) stays whole. ``width`` None: the line as it is."""
    if width is None:
        return line
    import textwrap

    wrapped = textwrap.wrap(
        line,
        max(20, width - 1),
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return "\n".join(wrapped or [""])


def data_dir(option: str | None) -> Path:
    """Where lanswitch keeps files: ``--data-dir``, else $LANSWITCH_DATA_DIR, else the
    platform's user data directory."""
    if option:
        return Path(option).expanduser()
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("lanswitch", appauthor=False))


class _UsageError(InvalidInput):
    """Bad usage or bad input, found after parsing: ``main`` prints it as one line,
    "lanswitch: error: …", and exits 2."""


class _Quit(Stopped):
    """The person chose to stop before anything started (exit 0, nothing more said)."""
