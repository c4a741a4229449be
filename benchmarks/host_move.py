"""What a move costs the host itself, without sockets (issue #17): ``Host.receive`` of a signed
move (its signature check, the rules, the fair-deal log, a view per seat) and encoding what
it queued as the server does (each distinct message once), at one table and at many tables
played round-robin — so a difference between the two is the cost of a larger working set
(cache misses), not of the work.

The anchor, measured in the same run: one Ed25519 check (``latency.measure_verify_us``, the
floor's own), the part of a move no host that checks signatures can skip.
``benchmarks/latency.py`` sets these beside the fan-out echo's CPU per action.

Tables of four people (``tests.tablenet.TableNet``: the real host and sessions in one process,
the sessions' work outside the timed part). Usage: ``python benchmarks/host_move.py
[--moves N] [--tables N]``. No network; bounded by ``--moves``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from latency import measure_verify_us

from lanswitch import protocol as p
from lanswitch.host import HostConfig
from tests.tablenet import Link, TableNet


def _actor(net: TableNet) -> Link:
    """The link whose turn it is, time moved on until there is one (a deal, a round)."""
    for _ in range(1000):
        for link in net.links.values():
            if link.alive and link.session.my_turn():
                return link
        deadline = net.host.next_deadline()
        net.tick(max(net.now, deadline if deadline is not None else net.now + 0.1))
    raise RuntimeError("no one's turn came")


def per_move_us(n_tables: int, moves: int) -> tuple[float, float]:
    """Median µs of ``Host.receive`` for a move and of encoding its output."""
    nets = []
    for i in range(n_tables):
        net = TableNet(HostConfig(name="T", seats=4, bots=0, bot_delay=0.0, hands=None), seed=i)
        for name in ("ann", "bob", "cat", "dan"):
            net.join(name)
        nets.append(net)
    receive: list[float] = []
    encode: list[float] = []
    for _ in range(moves):
        net = nets[len(receive) % n_tables]
        link = _actor(net)
        assert link.chooser is not None
        move = link.session.move(link.chooser(link.session))
        net.now += 0.02
        messages = link.server_end.receive_data(link.client_end.send(move))
        began = time.perf_counter()
        for m in messages:
            net.host.receive(link.cid, m, net.now)
        received = time.perf_counter()
        frames: dict[int, bytes] = {}
        for _cid, out in net.host.outbox:
            if id(out) not in frames:
                frames[id(out)] = p.encode_frame(out, check=out.TYPE not in p.BUILT_FROM_ENGINE)
        encoded = time.perf_counter()
        receive.append(received - began)
        encode.append(encoded - received)
        net.pump()
    return statistics.median(receive) * 1e6, statistics.median(encode) * 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=3000, help="moves timed per configuration")
    ap.add_argument("--tables", type=int, default=250, help="tables of the large working set")
    args = ap.parse_args(argv)
    anchor = measure_verify_us()
    print(f"one signature check (the anchor): {anchor:.1f} us")
    for n in (1, args.tables, 1, args.tables):  # alternating: both meet the same noise
        rec, enc = per_move_us(n, args.moves)
        rest = rec + enc - anchor
        print(
            f"{n:4d} table(s): receive {rec:6.1f} us ({rec / anchor:.2f}x the check), encode "
            f"{enc:5.1f} us; beyond the check {rest:6.1f} us ({rest / anchor:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
