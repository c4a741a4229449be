"""The terminal client (a shell): ``lanswitch play`` and an interactive ``lanswitch join``.

``play`` hosts a table on the LAN (the same :class:`~lanswitch.host.Host` and
:class:`~lanswitch.server.Server` as ``lanswitch host``, advertised by zeroconf) and seats the
player at it through a real client connection over loopback TLS, so the host's own player
goes through exactly the code every other player does (``run.py``). The screens are
``app.py`` (layout, styles, the key table), ``model.py`` (the cursor, the selection, what each
key does) and ``render.py`` (cards and seats as styled text); ``browser.py`` lists the tables.

This module stays light on purpose: ``play`` puts a first frame on the terminal (a splash,
written directly as terminal escapes) before prompt_toolkit, the rules engine and the network
code are even loaded, then loads them and starts the table behind it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TextIO

__all__ = ["SPLASH", "play"]

SPLASH = "lanswitch · starting your table…"
_ENTER = "\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l"  # the alternate screen, cleared, cursor hidden
_LEAVE = "\x1b[?25h\x1b[?1049l"


def play(args: argparse.Namespace, data: Path, out: TextIO, err: TextIO) -> int:
    """``lanswitch play``: host a table on the LAN and sit at it."""
    splash = sys.stdout.isatty()
    if splash:  # prompt_toolkit takes over this same screen when it starts
        sys.stdout.write(f"{_ENTER}\x1b[1m{SPLASH}\x1b[0m")
        sys.stdout.flush()
    try:
        from ..hosting import ResumeError
        from ..journal import JournalError
        from ..rules import load_rules
        from ..tls import IdentityError
        from .run import play as run_play

        rules = load_rules(args.rules)  # RulesError: the splash goes, the error is printed
        try:
            return asyncio.run(run_play(args, data, rules, out, err))
        except (IdentityError, ResumeError, JournalError) as e:
            failure = str(e)
        except OSError as e:  # the port is taken, the address is not ours
            failure = f"cannot host the table: {e.strerror or e}"
    finally:
        if splash:
            sys.stdout.write(_LEAVE)
            sys.stdout.flush()
    err.write(f"lanswitch: {failure}\n")
    return 1
