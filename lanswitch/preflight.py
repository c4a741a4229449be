"""What the command line checks and says before a table opens or a screen starts (a shell:
it reads the terminal and the data dir).

- :func:`no_terminal`: ``play``, the interactive ``join`` and ``replay`` draw a screen and
  read keys; without a terminal on their input (``</dev/null``, a pipe, a service) they say
  so in one line instead of failing deep inside prompt_toolkit with a traceback.
- :func:`offer_resume`: a table the last host left unfinished (a crash, a host stopped
  mid-match) is said before a new one opens, with how to carry it on — ``play`` asks, at its
  terminal — and a journal too damaged to resume is said to be damaged, not passed over (and,
  before ``play``'s screen covers it, waits to be read).
"""

from __future__ import annotations

import functools
import shutil
import sys
import textwrap
import time
from pathlib import Path
from typing import TextIO

from .errors import Stopped

__all__ = ["Declined", "no_terminal", "offer_resume"]


class Declined(Stopped):
    """The person stopped at the question (Ctrl-C, Ctrl-D): neither table opens."""


def no_terminal(command: str, stdin: TextIO | None = None) -> str | None:
    """Why ``command`` cannot run here (its input is not a terminal), or None if it can."""
    if (stdin if stdin is not None else sys.stdin).isatty():
        return None
    if command == "play":
        return (
            "lanswitch play needs a terminal to play in, and its input is not one: run it in "
            "a terminal; to host a table without one, use lanswitch host"
        )
    if command == "replay":
        return (
            "lanswitch replay needs a terminal to step through the hand in, and its input is "
            "not one: run it in a terminal; lanswitch verify FILE checks the file without one"
        )
    return (
        "lanswitch join needs a terminal to play in, and its input is not one: run it in a "
        "terminal, or give --bot STRATEGY (a bot plays your seat) or --spectate --headless"
    )


def offer_resume(command: str, data: Path, err: TextIO, stdin: TextIO | None = None) -> bool:
    """Say what the journals in ``data`` hold before ``command`` (``play``, ``host``) opens a
    new table; whether the person chose to carry the interrupted table on instead (``play`` at
    a terminal asks; ``host`` only says). Declined if they stopped at the question.

    ``play``'s lobby takes the whole window the moment it opens, so what is said here must be
    read first: at a terminal, ``play`` waits under a damaged journal's note for Enter (when
    there is no question to wait at anyway). Stopping there, or at "Carry it on now?"
    (Ctrl-C, Ctrl-D), ends with a line saying what is kept: nothing is ever deleted here."""
    from .hosting import interrupted

    stdin = stdin if stdin is not None else sys.stdin
    found, damaged = interrupted(data)
    asks = command == "play" and stdin.isatty()
    say = functools.partial(_say, err, _width() if asks else 0)
    for note in damaged:
        say(f"lanswitch: {note}")
    if found is None:
        go_on = "Press Enter to start a new table (Ctrl-C stops here) "
        if damaged and asks and _answer(err, stdin, go_on) is None:
            say("stopped: no table was started; the damaged journal is left as it is")
            err.flush()
            raise Declined
        return False
    if found.stopped is not None:
        # Its host stopped it (q, Ctrl-C): "interrupted" read as something gone wrong.
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(found.stopped))
        happened = f"was stopped mid-match ({when})"
    else:  # its host died: a crash, a kill, a power cut
        happened = "was interrupted before its match ended"
    say(
        f"lanswitch: the table {found.describe()} {happened}; lanswitch {command} --resume "
        "carries it on"
    )
    if not asks:
        err.flush()
        return False
    answer = _answer(err, stdin, "Carry it on now? [Y/n] ")
    if answer is None:
        say(
            f"stopped: nothing was lost — the table {found.describe()} is kept as it was; "
            f"lanswitch {command} --resume carries it on later"
        )
        err.flush()
        raise Declined
    if answer.strip().lower() in ("y", "yes", ""):
        return True
    err.write(f'starting a new table; "{found.name}" stays for --resume\n')
    return False


def _width() -> int:
    """The terminal's width, less one (a line that fills it makes some terminals wrap)."""
    return max(20, shutil.get_terminal_size((80, 24)).columns - 1)


def _say(err: TextIO, width: int, text: str) -> None:
    """``text`` as a line of ``err``; at a terminal (``width``), broken at spaces to fit it,
    where the terminal would have cut words (a path longer than the line stays whole)."""
    if width:
        text = "\n".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False))
    err.write(text + "\n")


def _answer(err: TextIO, stdin: TextIO, question: str) -> str | None:
    """The line typed after ``question``; None if the person stopped there (Ctrl-C: the
    interrupt; Ctrl-D: the end of input), after ending the question's line."""
    err.write(question)
    err.flush()
    try:
        answer = stdin.readline()
    except KeyboardInterrupt:
        answer = ""
    if not answer:
        err.write("\n")
        return None
    return answer
