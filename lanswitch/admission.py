"""A table's password, asked of the person joining (a shell: it reads the terminal).

A table hosted with ``--password`` says so in its advertisement (TXT ``pw=1``, never the
password itself: :mod:`lanswitch.discovery`), so a player who joins it by name or picks it in
the browser is asked for the password *before* connecting. A table joined by address says so
only when it turns the ``hello`` away (``error`` ``bad_password``); so does a wrong password.
Either way the player is asked again: nothing was lost, no seat was taken. Where no one can be
asked (the input is not a terminal), :class:`PasswordNeeded` says to use ``--password``.
"""

from __future__ import annotations

import getpass
import sys
from typing import TextIO

from . import protocol as p
from .errors import Stopped
from .session import Session
from .textsafe import escape

__all__ = ["TRIES", "PasswordNeeded", "ask_password", "wrong_password"]

TRIES = 5
"""Passwords asked at most, one table, one command (each wrong one also waits out the host's
back-off: lanswitch/door.py)."""


class PasswordNeeded(Stopped):
    """A password is needed and cannot be asked for (the text says to use --password)."""


def wrong_password(session: Session) -> bool:
    """Whether the host turned ``session`` away for its password (none, or a wrong one)."""
    reason = session.close_reason
    return isinstance(reason, p.Error) and reason.code is p.ErrorCode.BAD_PASSWORD


def ask_password(
    table: str, *, wrong: bool, stdin: TextIO | None = None, out: TextIO | None = None
) -> str | None:
    """The password for ``table``, typed on the terminal (not echoed); None if the player gave
    up (an empty line, end of input, Ctrl-C). PasswordNeeded if the input is not a terminal."""
    stdin = stdin if stdin is not None else sys.stdin
    out = out if out is not None else sys.stderr
    shown = escape(table)
    if not stdin.isatty():
        if wrong:
            raise PasswordNeeded(
                f'the password given is not table "{shown}"\'s: ask its host for it, and give '
                "it with --password PW"
            )
        raise PasswordNeeded(
            f'table "{shown}" needs a password: ask its host for it, and give it with --password PW'
        )
    if wrong:
        out.write(f'That is not the password of table "{shown}". Try again (Enter gives up).\n')
    else:
        out.write(f'Table "{shown}" needs a password (ask its host; Enter gives up).\n')
    out.flush()
    try:
        typed = getpass.getpass("password: ", stream=out)
    except (EOFError, KeyboardInterrupt):
        out.write("\n")
        return None
    return typed or None
