"""What ``--resume`` costs a table of ``hard`` bots: replaying its journal with each bot's
recorded move played back, against deciding every move again (the anchor: how a journal
without the moves replays, as every journal did before they were kept), and what a bot's
decision adds to the journal.

A journaled table (pure: ``tests.tablenet``, no sockets) of one player and three ``hard``
bots plays whole hands; its journal is replayed with ``Host.restore`` as kept, then with every
record stripped of its bots' moves (the bots decide again, from the same seeds, to the same
moves). The figures: the records, the bots' moves, the journal's bytes per bot move, both
replay times and their ratio, and the numbers a hard bot's decision draws (each drawn from
the entropy cost the journal 7 bytes before a decision's randomness became a 16-byte seed).

    .venv/bin/python benchmarks/replay.py [--hands 2] [--seed 11]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch.host import Host, HostConfig
from lanswitch.search import HardBot, SeededRng
from tests.tablenet import TableNet


class Counting:
    """A SeededRng that counts its draws."""

    def __init__(self, seed: bytes) -> None:
        self.rng, self.draws = SeededRng(seed), 0

    def random(self) -> float:
        self.draws += 1
        return self.rng.random()


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    config = HostConfig(
        name="T", seats=4, bots=3, bot_strategy="hard", bot_delay=0.3, hands=args.hands
    )
    net = TableNet(config, seed=args.seed, journal=True)
    net.join("ann")
    start = time.perf_counter()
    net.run(lambda: net.host.finished, steps=200_000)
    played = time.perf_counter() - start
    records = list(net.host.inputs)
    moves = sum(len(msgpack.unpackb(r)[4]) for r in records)
    size = sum(len(r) for r in records)
    start = time.perf_counter()
    Host.restore(records, entropy=net.rng.randbytes)
    kept = time.perf_counter() - start
    stripped = [msgpack.packb(msgpack.unpackb(r)[:4], use_bin_type=True) for r in records]
    start = time.perf_counter()
    Host.restore(stripped, entropy=net.rng.randbytes)
    again = time.perf_counter() - start
    print(
        f"{args.hands} hands of ann and 3 hard bots: {len(records)} records, {moves} bot moves, "
        f"{size / 1024:.0f} KB ({size / max(1, moves):.0f} bytes a bot move); "
        f"played in {played:.1f} s"
    )
    print(
        f"replay with the moves kept: {kept * 1000:.0f} ms; deciding again (anchor): "
        f"{again * 1000:.0f} ms; {again / kept:.0f}x"
    )
    # What a hard decision draws: the bots' decisions of a fresh copy of the same table.
    bot = HardBot(config.rules)
    draws: list[int] = []
    probe = TableNet(config, seed=args.seed)
    probe.join("ann")
    for _ in range(20_000):
        hand = probe.host.hand
        game = getattr(hand, "game", None)
        if game is not None and game.result is None and len(draws) < 60:
            seat = game.to_act()
            if seat in getattr(hand, "bots", {}) and len(game.legal_moves()) > 1:
                rng = Counting(bytes(range(16)))
                bot.act(game.clone(), seat, rng)
                if rng.draws:
                    draws.append(rng.draws)
        if probe.host.finished or not probe.step():
            break
    if draws:
        print(
            f"a hard decision that searches draws {statistics.median(draws):,.0f} numbers "
            f"(median of {len(draws)}): {statistics.median(draws) * 7 / 1024:.0f} KB of journal "
            f"at 7 bytes a draw, 16 bytes as a seed"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
