"""The terminal client (a shell): ``lanswitch play`` and an interactive ``lanswitch join``.

``play`` hosts a table on the LAN (the same :class:`~lanswitch.host.Host` and
:class:`~lanswitch.server.Server` as ``lanswitch host``, advertised by zeroconf) and seats the
player at it through a real client connection over loopback TLS, so the host's own player
goes through exactly the code every other player does (``run.py``). The modules:

- ``run.py`` — ``play`` and ``join``: the host, the client connection, the app, the history.
- ``model.py`` — the client's state apart from prompt_toolkit: the screen, the cursor, the
  marked cards, what each key does, the session's news taken in.
- ``log.py`` — the log under the table (its lines, the narration, a hand's verdict line).
- ``presence.py`` — who comes and goes, as the lobby and the log tell it.
- ``faces.py`` — a dealer-blind draw's cards told in its log line once they can be read.
- ``prompts.py`` — what to do now, and why a card cannot be laid, from the legal moves.
- ``keys.py`` — the one key table: the bindings, the hint bar and the help.
- ``layout.py`` — every screen, composed for the window's size.
- ``keybar.py`` — the key bar at its foot (two lines in the host's lobby where one is short).
- ``render.py`` — cards, seats and text as styled text fitted to a width.
- ``scoreboard.py`` — the match so far: totals against the target, who leads.
- ``powers.py`` — the help's card of the table's power cards.
- ``app.py`` — the prompt_toolkit application.
- ``browser.py`` — the live list of tables on the LAN (``join`` with no table).
- ``replay.py`` — ``lanswitch replay``: a saved hand step by step on the table screen.

This module stays light on purpose: ``play`` puts a first frame on the terminal (a splash,
written directly as terminal escapes) before prompt_toolkit, the rules engine and the network
code are even loaded, then loads them and starts the table behind it. Whatever the command
has to say at the end (the table closed, why it failed) is printed after the terminal is
back to its normal screen, on a line of its own.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from ..settings import Join, Play, Screen

__all__ = ["SPLASH", "join", "play"]

SPLASH = "lanswitch · starting your table…"
_ENTER = "\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l"  # the alternate screen, cleared, cursor hidden
_LEAVE = "\x1b[?25h\x1b[?1049l"


def _splash_wanted() -> bool:
    # A terminal that takes VT100 escapes: POSIX ones do; the Windows console is left to
    # prompt_toolkit, which knows how to draw on it.
    return sys.stdout.isatty() and sys.platform != "win32"


def play(settings: Play, out: TextIO, err: TextIO) -> int:
    """``lanswitch play``: host a table on the LAN and sit at it."""
    splash = _splash_wanted()
    if splash:  # prompt_toolkit takes over this same screen when it starts
        sys.stdout.write(f"{_ENTER}\x1b[1m{SPLASH}\x1b[0m")
        sys.stdout.flush()
    code, said = 1, ""
    try:
        from ..hosting import ResumeError
        from ..journal import JournalError
        from ..rules import load_rules
        from ..tls import IdentityError
        from .run import play as run_play

        rules = load_rules(settings.table.rules)  # RulesError: the splash goes, it is printed
        try:
            code, said = asyncio.run(run_play(settings, rules))
        except (IdentityError, ResumeError, JournalError) as e:
            said = f"lanswitch: {e}"
        except OSError as e:  # the port is taken, the address is not ours
            from ..server import listen_failure

            table = settings.table
            said = f"lanswitch: {listen_failure(e, table.interface or '0.0.0.0', table.port)}"
        except KeyboardInterrupt:
            code, said = 0, "the table is closed"
    finally:
        if splash:
            sys.stdout.write(_LEAVE)
            sys.stdout.flush()
    # After the terminal is back on its own screen: a line of its own, which the shell's
    # prompt will not overwrite.
    if said:
        (out if code == 0 else err).write(said + "\n")
    return code


def join(settings: Join, screen: Screen, out: TextIO, err: TextIO) -> int:
    """``lanswitch join`` in the terminal client (the table browser unless a table is named)."""
    from .run import join as run_join

    try:
        code, said = asyncio.run(run_join(settings, screen))
    except KeyboardInterrupt:
        code, said = 0, ""
    if said:
        (out if code == 0 else err).write(said + "\n")
    return code
