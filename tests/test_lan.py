"""lanswitch on a simulated LAN: network namespaces joined by a bridge (``tests/netns.py``).

Each test builds its own LAN — a host at 10.77.0.1 and laptops at 10.77.0.2, .3, .4 — so
multicast DNS and TCP run as between real machines without a packet reaching the real network,
and tears it down by name afterwards. They need root and ``ip`` (iproute2) and skip with the
reason where those are missing. Every wait is bounded.

The first tests check the harness itself (TCP between nodes, a dropped link, zeroconf across
the bridge), so that a failure of the game's tests below is the game's, not the LAN's.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.netns import Lan, lan_or_skip

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

#: A TCP echo server: binds ADDR:0, prints "port N", echoes each connection until EOF, stops
#: after CONNS connections or LIMIT seconds. Arguments: ADDR CONNS LIMIT.
ECHO_SERVER = """
import socket, sys, time
addr, conns, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + limit
srv = socket.create_server((addr, 0))
print("port", srv.getsockname()[1], flush=True)
for _ in range(conns):
    srv.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        conn, _peer = srv.accept()
    except TimeoutError:
        break
    with conn:
        conn.settimeout(5)
        for _ in range(100):
            data = conn.recv(4096)
            if not data:
                break
            conn.sendall(data)
"""

#: A TCP client: connects to ADDR:PORT within TIMEOUT seconds, sends a line and reads it back;
#: prints "echo <ms>" and exits 0, or prints the error and exits 1. Arguments: ADDR PORT TIMEOUT.
ECHO_CLIENT = """
import socket, sys, time
addr, port, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
msg = b"over the bridge\\n"
t0 = time.perf_counter()
try:
    with socket.create_connection((addr, port), timeout=timeout) as s:
        s.sendall(msg)
        got = b""
        while len(got) < len(msg):
            part = s.recv(len(msg) - len(got))
            if not part:
                break
            got += part
except OSError as e:
    print("failed", type(e).__name__, e)
    sys.exit(1)
print("echo", round((time.perf_counter() - t0) * 1000, 2) if got == msg else got)
sys.exit(0 if got == msg else 1)
"""

#: Advertises a table with TableAdvertiser on the given address for at most LIMIT seconds;
#: prints "advertising NAME" once it answers. Arguments: ADDR NAME PORT FP LIMIT.
ADVERTISER = """
import asyncio, sys
from lanswitch.discovery import TableAdvertiser
addr, name, port, fp, limit = sys.argv[1:6]

async def main() -> None:
    async with TableAdvertiser(
        name=name, port=int(port), rules="irish", seats_total=4, seats_free=3,
        fingerprint=fp, version=1, host="lanhost", interfaces=[addr],
    ) as adv:
        print("advertising", adv.name, flush=True)
        await asyncio.sleep(float(limit))

asyncio.run(main())
"""


def _env(data_dir: Path | None = None) -> dict[str, str]:
    """The environment of a process in a node: this checkout first on the path, and its own
    data directory (so no two processes share keys or settings)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    if data_dir is not None:
        data_dir.mkdir(parents=True, exist_ok=True)
        env["LANSWITCH_DATA_DIR"] = str(data_dir)
    return env


@pytest.fixture
def lan(tmp_path: Path) -> Iterator[Lan]:
    """A host and three laptops on one bridge, torn down after the test whatever happens."""
    with lan_or_skip(tmp_path, laptops=3) as made:
        yield made


def _echo(lan: Lan, node: str, addr: str, port: int, timeout: float) -> tuple[bool, str]:
    done = lan.run(node, [PY, "-c", ECHO_CLIENT, addr, str(port), str(timeout)], timeout=20)
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def test_nodes_talk_tcp_across_the_bridge_and_a_dropped_link_cuts_one_off(lan: Lan) -> None:
    l1 = lan.address("l1")
    server = lan.start("l1", [PY, "-c", ECHO_SERVER, l1, "10", "30"], name="echo", env=_env())
    port = int(server.wait_for_line(r"^port (\d+)$", timeout=10).group(1))

    for node in ("host", "l2", "l3"):
        ok, said = _echo(lan, node, l1, port, timeout=3)
        assert ok, f"{node} -> l1: {said}\n{lan.describe()}"

    # l1 drops off the Wi-Fi: nobody reaches it (the SYN is lost, the connect times out) ...
    lan.link_down("l1")
    t0 = time.monotonic()
    ok, said = _echo(lan, "l2", l1, port, timeout=1)
    assert not ok, f"l1 answered with its link down: {said}"
    assert time.monotonic() - t0 < 10
    # ... and it is back when its link comes up (a few tries: the port needs a moment).
    lan.link_up("l1")
    for _ in range(20):
        ok, said = _echo(lan, "l2", l1, port, timeout=1)
        if ok:
            break
        time.sleep(0.25)
    assert ok, f"l1 unreachable after its link came back: {said}\n{lan.describe()}"


def test_a_table_advertised_in_the_host_is_listed_on_every_laptop(lan: Lan) -> None:
    """``lanswitch tables`` on each laptop hears a TableAdvertiser running in the host: mDNS
    crosses the bridge (multicast snooping off) and stays on the given interface."""
    name = f"Lan {lan.tag}"
    fp = secrets.token_hex(32)
    host = lan.address("host")
    adv = lan.start(
        "host", [PY, "-c", ADVERTISER, host, name, "45999", fp, "30"], name="adv", env=_env()
    )
    adv.wait_for_line(rf"^advertising {name}$", timeout=15)
    listers = [
        lan.start(
            laptop,
            [
                *(PY, "-m", "lanswitch", "--data-dir", str(lan.workdir / f"data-{laptop}")),
                *("tables", "--json", "--timeout", "2", "--interface", lan.address(laptop)),
            ],
            name=f"tables-{laptop}",
            env=_env(lan.workdir / f"data-{laptop}"),
            cwd=ROOT,
        )
        for laptop in ("l1", "l2", "l3")
    ]
    for lister in listers:
        assert lister.wait(timeout=20) == 0, lister.describe()
        rows = [r for r in json.loads(lister.stdout()) if r["name"] == name]
        assert rows == [
            {
                "name": name,
                "addresses": [host],
                "port": 45999,
                "rules": "irish",
                "free_seats": 3,
                "seats": 4,
                "version": 1,
                "fingerprint": fp,
                "host": "lanhost",
            }
        ], lister.describe()
