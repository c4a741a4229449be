"""The lanswitch side of ``benchmarks/latency.py`` (the host and its bot clients).

Not written yet: it drives ``lanswitch.server.Server`` and ``lanswitch.session.Session``,
which are not in the tree yet. Until then ``latency.py --echo-only`` measures the anchor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _latency_harness import Recorder, Schedule, Session

from lanswitch.tls import Identity


def game_one(identity: Identity, sizes: Any, profile: Path | None) -> Session:
    """(a) for lanswitch: not available yet."""
    raise SystemExit("latency: the lanswitch server is not in the tree yet; use --echo-only")


def game_load(identity: Identity, sizes: Any, procs: int, profile: Path | None) -> Session:
    """(b) and (c) for lanswitch: not available yet."""
    raise SystemExit("latency: the lanswitch server is not in the tree yet; use --echo-only")


def print_profile(directory: Path) -> None:
    """Where the server's time went: not available yet."""


class GameDriver:
    """The lanswitch bot clients: not available yet."""

    connected = 0

    def __init__(self, cfg: dict[str, Any]) -> None:
        raise SystemExit("latency: the lanswitch client is not in the tree yet")

    async def setup(self) -> None:
        """Nothing to connect to yet."""

    async def run(self, schedule: Schedule, recorder: Recorder) -> None:
        """Nothing to drive yet."""

    async def close(self) -> None:
        """Nothing to close yet."""
