"""What silent connections cost a host: TLS connections that never say ``hello`` (issue 15).

A real table (a :class:`~lanswitch.server.Server` on 127.0.0.1, in its own process, with the
memory settings ``lanswitch host`` uses) is sent ``--conns`` TLS connections from ``--sources``
loopback addresses (127.0.0.2, 127.0.0.3, …), each of which finishes its TLS handshake (if it
is let in) and then neither sends nor reads anything — the cheapest attack on a host's memory.
Then, for ``--seconds``, every address keeps opening such connections as fast as it can (an
attacker reconnecting as each is dropped). Meanwhile a player from another address joins, and
the time its ``welcome`` takes is reported.

Measured: the host process's resident memory (``VmRSS`` from ``/proc``) idle, after the
connections, its peak (``VmHWM``), and after the hello deadline has dropped them; how many
connections were let in and how many refused. The script fails (exit 1) if the host grew more
than ``--bound`` MiB above idle at its peak, or the player was not let in: the bound is the one
docs/security.md documents.

Usage: ``python benchmarks/silent.py [--conns 2000] [--sources 20] [--seconds 10]
[--bound 48] [--json]``. Linux only (``/proc``). Traffic stays on loopback. To measure another
checkout's host (e.g. the code before the limits), put it first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

LOOPBACK = "127.0.0.1"
PLAYER_SOURCE = "127.0.1.1"


# ---------------------------------------------------------------------------------------------
# The host process


def host_main() -> None:
    """Serve one table until stdin closes; print ``PORT PID`` once listening."""
    from lanswitch.host import Host, HostConfig
    from lanswitch.hosting import steady_memory
    from lanswitch.server import Server, collector_policy
    from lanswitch.tls import load_or_create_identity, server_context

    async def main() -> None:
        steady_memory()
        with tempfile.TemporaryDirectory() as tmp:
            identity = load_or_create_identity(Path(tmp))
            host = Host(HostConfig(name="Silent"), entropy=os.urandom, now=time.monotonic())
            server = Server(host, ssl_context=server_context(identity), address=LOOPBACK)
            await server.start()
            collector_policy().install()  # as lanswitch host does once serving
            print(server.port, os.getpid(), flush=True)
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, sys.stdin.read)  # until the parent closes it
            await server.close()

    asyncio.run(main())


# ---------------------------------------------------------------------------------------------
# The attacker and the measurements (the parent process)


def status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of ``pid``, in MiB."""
    out: dict[str, float] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    return out


def client_ctx() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class Attack:
    """Silent TLS connections, opened from several threads; those let in are kept open."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.ctx = client_ctx()
        self.held: list[ssl.SSLSocket] = []
        self.let_in = 0
        self.refused = 0
        self.lock = threading.Lock()

    def one(self, source: str) -> None:
        try:
            sock = socket.create_connection(
                (LOOPBACK, self.port), timeout=5, source_address=(source, 0)
            )
        except OSError:
            with self.lock:
                self.refused += 1
            return
        try:
            tls = self.ctx.wrap_socket(sock)
        except (OSError, ssl.SSLError):
            sock.close()
            with self.lock:
                self.refused += 1
            return
        with self.lock:
            self.let_in += 1
            self.held.append(tls)

    def close_all(self) -> None:
        with self.lock:
            held, self.held = self.held, []
        for sock in held:
            sock.close()


def join_time(port: int) -> float:
    """Seconds until a player from another address has its ``welcome`` (1e9: refused)."""
    try:
        return _join_time(port)
    except (OSError, ssl.SSLError):
        return 1e9


def _join_time(port: int) -> float:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from lanswitch import protocol as p

    t0 = time.perf_counter()
    sock = socket.create_connection((LOOPBACK, port), timeout=10, source_address=(PLAYER_SOURCE, 0))
    with client_ctx().wrap_socket(sock) as tls:
        conn = p.Connection(p.Role.CLIENT)
        key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        tls.sendall(conn.send(p.Hello(version=p.PROTOCOL_VERSION, name="player", key=key)))
        for _ in range(1000):
            data = tls.recv(65536)
            messages = conn.receive_data(data)
            if messages:
                return time.perf_counter() - t0 if isinstance(messages[0], p.Welcome) else 1e9
            if not data:
                break
    return 1e9


def measure(conns: int, sources: int, seconds: float) -> dict[str, Any]:
    env = dict(os.environ)
    host = subprocess.Popen(
        [sys.executable, __file__, "--host"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert host.stdout is not None
        port_text, pid_text = host.stdout.readline().split()
        port, pid = int(port_text), int(pid_text)
        time.sleep(1.0)
        idle = status(pid)
        addresses = [f"127.0.0.{2 + i}" for i in range(sources)]
        attack = Attack(port)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(attack.one, [addresses[i % sources] for i in range(conns)]))
        opened_s = time.perf_counter() - t0
        after = status(pid)
        first = {"let_in": attack.let_in, "refused": attack.refused, "seconds": opened_s}
        player_s = join_time(port)
        # The flood: every address reconnects as fast as it can, for ``seconds``.
        stop = time.monotonic() + seconds
        flood = Attack(port)

        def keep_at_it(source: str) -> None:
            for _ in range(10**6):
                if time.monotonic() >= stop:
                    return
                flood.one(source)

        def player_midway() -> float:
            time.sleep(seconds / 2)
            return join_time(port)

        with ThreadPoolExecutor(sources + 1) as pool:
            midway = pool.submit(player_midway)
            list(pool.map(keep_at_it, addresses))
            player_flood_s = midway.result()
        during = status(pid)
        attack.close_all()
        flood.close_all()
        time.sleep(6.0)  # past the hello deadline: every silent connection is gone
        drained = status(pid)
        return {
            "conns": conns,
            "sources": sources,
            "idle_rss_mib": idle["VmRSS"],
            "after_rss_mib": after["VmRSS"],
            "flood_rss_mib": during["VmRSS"],
            "peak_rss_mib": during["VmHWM"],
            "drained_rss_mib": drained["VmRSS"],
            "growth_peak_mib": during["VmHWM"] - idle["VmRSS"],
            "first_pass": first,
            "flood": {"seconds": seconds, "let_in": flood.let_in, "refused": flood.refused},
            "player_join_s": player_s,
            "player_join_during_flood_s": player_flood_s,
        }
    finally:
        if host.stdin is not None:
            host.stdin.close()
        try:
            host.wait(timeout=10)
        except subprocess.TimeoutExpired:
            host.kill()  # our own child, by its handle
            host.wait(timeout=5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--conns", type=int, default=2000)
    ap.add_argument("--sources", type=int, default=20, help="source addresses (at most 200)")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--bound", type=float, default=48.0, help="MiB of growth allowed at peak")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.host:
        host_main()
        return 0
    if not Path("/proc/self/status").exists():
        print("silent.py: needs Linux's /proc", file=sys.stderr)
        return 2
    if not 1 <= args.sources <= 200:
        ap.error("--sources must be 1..200")
    r = measure(args.conns, args.sources, args.seconds)
    ok = r["growth_peak_mib"] <= args.bound and r["player_join_during_flood_s"] < 5
    if args.json:
        print(json.dumps(r | {"bound_mib": args.bound, "ok": ok}))
    else:
        f, fl = r["first_pass"], r["flood"]
        print(
            f"{r['conns']:,} silent TLS connections from {r['sources']} addresses in "
            f"{f['seconds']:.1f} s: {f['let_in']} let in, {f['refused']:,} refused\n"
            f"then {fl['seconds']:.0f} s of reconnecting: {fl['let_in']:,} let in, "
            f"{fl['refused']:,} refused\n"
            f"host RSS: idle {r['idle_rss_mib']:.0f} MiB, after the connections "
            f"{r['after_rss_mib']:.0f} MiB, during the flood {r['flood_rss_mib']:.0f} MiB, "
            f"peak {r['peak_rss_mib']:.0f} MiB (+{r['growth_peak_mib']:.0f} MiB; bound "
            f"{args.bound:.0f}), after the hello deadline {r['drained_rss_mib']:.0f} MiB\n"
            f"a player from another address: welcome in {r['player_join_s'] * 1000:.0f} ms, "
            f"{r['player_join_during_flood_s'] * 1000:.0f} ms in the middle of the flood\n"
            + ("OK" if ok else "FAILED")
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
