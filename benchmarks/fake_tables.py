"""A fake table answering for a real one's name, tried many times (issue 15, item 1).

On a simulated LAN of network namespaces (``tests/netns.py``: needs root and ``ip``; nothing
leaves the machine), a real ``lanswitch host`` runs on ``host``; a player on ``l1`` watches
it once, which pins it; then a fake TLS table with a fingerprint of its own answers from
``l3``, first as the name in capitals, then as the very same name, advertised without the
probe that would make it rename itself (``tests/scenarios/test_lan.py``'s ``FAKE_TABLE``). For each
fake,
a fresh player (``l2``, a new data dir each time) and the pinned player (``l1``) each run
``lanswitch join NAME --spectate --headless`` TRIALS times. Each run is counted as

* ``refused``: it connected nowhere and said why (two answers, or not the pinned table);
* ``real`` / ``fake``: it connected, and the certificate it printed is the real table's / the
  fake's (a silent choice between two answers, right or wrong).

The issue's figures (the code before it): a casefolded fake took a pinned player 1 of 5
times; a same-name fake took a fresh player 2 of 9. What this code should print: every run
``refused``.

Usage (as root): ``python benchmarks/fake_tables.py [--trials N] [--code DIR]`` — ``--code``
runs another checkout's lanswitch (e.g. an export of an older commit) for comparison. Every
wait is bounded; every process is stopped by its own pid, every namespace deleted by name.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lanswitch.tls import fingerprint_words  # noqa: E402
from tests.netns import Lan, why_no_lan  # noqa: E402
from tests.scenarios.test_lan import FAKE_TABLE  # noqa: E402

PY = sys.executable


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=10, help="joins per player and fake")
    ap.add_argument("--code", type=Path, default=ROOT, help="the lanswitch checkout to run")
    args = ap.parse_args()
    why = why_no_lan()
    if why is not None:
        print(f"cannot run: {why}", file=sys.stderr)
        return 2
    code = args.code.resolve()
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONUNBUFFERED="1")
    work = Path(tempfile.mkdtemp(prefix="lsw-fakes-"))
    failed = 0
    with Lan(work, laptops=3) as lan:

        def lanswitch(data: str, node: str, *a: str) -> list[str]:
            """``lanswitch`` with its own data dir, on ``node``'s interface only."""
            where = ("--interface", lan.address(node))
            return [PY, "-m", "lanswitch", "--data-dir", str(work / data), *a, *where]

        name = f"Kitchen {lan.tag}"
        host = lan.start(
            "host",
            lanswitch("host", "host", "host", "--headless", "--name", name),
            name="host",
            env=env,
            cwd=code,
        )
        fp = host.wait_for_line(r"^fingerprint: ([0-9a-f]{64})", 20).group(1)
        real = fingerprint_words(bytes.fromhex(fp))
        pin = lan.start(
            "l1",
            lanswitch("l1", "l1", "join", name, "--spectate", "--headless"),
            name="pin",
            env=env,
            cwd=code,
        )
        pin.wait_for_line("^host certificate", 30)
        pin.stop()
        for variant, fake_name in (("capitals", name.upper()), ("same name", name)):
            fake = lan.start(
                "l3",
                [PY, "-c", FAKE_TABLE, lan.address("l3"), fake_name, str(work / "fake"), "900"],
                name=f"fake-{variant[0]}",
                env=env,
                cwd=code,
            )
            fake.wait_for_line("^faking", 20)
            for who, node in (("fresh", "l2"), ("pinned", "l1")):
                counts = {"refused": 0, "real": 0, "fake": 0, "other": 0}
                took: list[float] = []
                for i in range(args.trials):
                    data = f"fresh-{variant[0]}-{i}" if who == "fresh" else "l1"
                    p = lan.start(
                        node,
                        lanswitch(data, node, "join", name, "--spectate", "--headless"),
                        name=f"join-{variant[0]}-{who}-{i}",
                        env=env,
                        cwd=code,
                    )
                    t0 = time.monotonic()
                    for _ in range(300):  # at most 15 s: join's own timeout is 5 s
                        if p.returncode is not None or "host certificate" in p.stdout():
                            break
                        time.sleep(0.05)
                    took.append(time.monotonic() - t0)
                    said = p.stdout()
                    p.stop()
                    m = re.search(r"^host certificate: ([a-z ]+) \(", said, re.M)
                    if m:
                        counts["real" if m.group(1) == real else "fake"] += 1
                    elif re.search(
                        r"different tables answer|not the one you pinned|HAS CHANGED", p.stderr()
                    ):
                        counts["refused"] += 1
                    else:
                        counts["other"] += 1
                took.sort()
                failed += args.trials - counts["refused"]
                print(
                    f"fake with {variant:9}  {who:6} player: {counts}  "
                    f"median {took[len(took) // 2]:.2f} s to the verdict",
                    flush=True,
                )
            fake.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
