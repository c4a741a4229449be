"""The terminal client (a shell): ``lanswitch play`` and an interactive ``lanswitch join``.

``play`` hosts a table on the LAN (the same :class:`~lanswitch.host.Host` and
:class:`~lanswitch.server.Server` as ``lanswitch host``, advertised by zeroconf) and seats the
player at it through a real client connection over loopback TLS, so the host's own player
goes through exactly the code every other player does (``run.py``). The screens are
``app.py`` (layout, styles, the key table), ``model.py`` (the cursor, the selection, what each
key does) and ``render.py`` (cards and seats as styled text); ``browser.py`` lists the tables.

This module stays light on purpose: ``play`` puts a first frame on the terminal (a splash)
with nothing but prompt_toolkit loaded, then loads the rest and starts the table behind it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from pathlib import Path
from typing import TextIO

from ..rules import load_rules

__all__ = ["play"]

SPLASH = "lanswitch · starting your table…"


def play(args: argparse.Namespace, data: Path, out: TextIO, err: TextIO) -> int:
    """``lanswitch play``: host a table on the LAN and sit at it."""
    rules = load_rules(args.rules)  # a bad rules file is reported before any screen
    return asyncio.run(_with_splash(args, data, rules, out))


async def _with_splash(args: argparse.Namespace, data: Path, rules: object, out: TextIO) -> int:
    from prompt_toolkit.application import Application
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    drawn = asyncio.Event()
    splash: Application[None] = Application(
        layout=Layout(Window(FormattedTextControl([("bold", SPLASH)]))),
        full_screen=True,
        after_render=lambda _app: drawn.set(),
    )
    shown = asyncio.create_task(splash.run_async())
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(5.0):
            await drawn.wait()

    from ..rules import RuleSet
    from .run import play

    assert isinstance(rules, RuleSet)

    async def close_splash() -> None:
        if splash.is_running:
            splash.exit()
        with contextlib.suppress(Exception):
            await shown  # one application on the terminal at a time

    try:
        return await play(args, data, rules, out, ready=close_splash)
    finally:
        await close_splash()
