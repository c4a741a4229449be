"""How long the host's event loop is held while its ``hard`` bots think: a ticker on the
server's loop (as a key press of the host's own player at ``lanswitch play`` would be, on the
same loop) measures how late each of its 10 ms wake-ups comes, through whole hands of three
``hard`` bots and one player over real TLS on 127.0.0.1.

The anchor, in the same run on the same machine: the same table whose host makes its bots'
moves in place (``asks=False``, as every host did before): each search held the loop.

Usage::

    python benchmarks/bot_wait.py [--hands 2] [--rules switch] [--delay 0.05]

The figure that matters is how late a wake-up can be (p99, worst): what a key press waits.
Beside it, the pace: the match's seconds per move of the bots (a move in place waits out the
bot delay, then searches; an asked one searches while the delay runs).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch.host import Host, HostConfig
from lanswitch.rules import PRESETS
from lanswitch.server import Server
from lanswitch.tls import load_or_create_identity, server_context
from tests.test_server import LOOPBACK, bot_client, target_of

TICK = 0.010  # the ticker's period: a key press's worth of work every 10 ms


async def one_table(
    asks: bool, hands: int, rules: str, delay: float, identity_dir: Path
) -> tuple[list[float], float]:
    """Each wake-up's lateness (seconds) while a table of three hard bots plays ``hands``,
    and the match's seconds per bot move."""
    identity = load_or_create_identity(identity_dir)
    config = HostConfig(
        name="Bench",
        seats=4,
        bots=3,
        bot_strategy="hard",
        bot_delay=delay,
        hands=hands,
        rules=PRESETS[rules],
    )
    host = Host(config, entropy=os.urandom, now=time.monotonic(), asks=asks)
    server = Server(host, ssl_context=server_context(identity), address=LOOPBACK)
    await server.start()
    client = bot_client("ann", target_of(server, identity), think=0.05)
    late: list[float] = []
    hands_seen: dict[int, Any] = {}
    playing = asyncio.create_task(client.run())
    loop = asyncio.get_running_loop()
    began = loop.time()
    for _ in range(int(3600 / TICK)):  # bounded: an hour of ticks at most
        if playing.done():
            break
        if host.hand is not None:
            hands_seen[id(host.hand)] = host.hand
        due = loop.time() + TICK
        await asyncio.sleep(TICK)
        late.append(max(0.0, loop.time() - due))
    await playing
    await server.wait_finished()
    took = loop.time() - began
    me = client.session.seat
    bot_moves = sum(
        1 for h in hands_seen.values() for seat, _ in h.game.log if seat >= 0 and seat != me
    )
    return late, took / max(1, bot_moves)


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--rules", default="switch")
    ap.add_argument("--delay", type=float, default=0.05, help="the bots' delay, seconds")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for asks in (False, True):
            late, pace = asyncio.run(one_table(asks, args.hands, args.rules, args.delay, Path(tmp)))
            results[asks] = late
            print(
                f"{'asked of a worker' if asks else 'made in place (anchor)'}: "
                f"{len(late)} wake-ups, late by median {statistics.median(late) * 1e3:.1f} ms, "
                f"p99 {pct(late, 0.99) * 1e3:.1f} ms, worst {max(late) * 1e3:.1f} ms; "
                f"{pace:.3f} s of the match a bot move"
            )
    anchor, asked = results[False], results[True]
    for name, q in (("p99", 0.99), ("worst", 1.0)):
        a, b = pct(anchor, q), pct(asked, q)
        print(f"{name}: {b * 1e3:.1f} ms against {a * 1e3:.1f} ms in place: {b / a:.2f}×")


if __name__ == "__main__":
    main()
