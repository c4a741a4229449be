"""Fuzz soak (issue #6): random and mutated frames against a live host, which must not crash,
hang or stop its game.

One host serves a table where a real bot client plays a match against a host bot. Meanwhile
``--conns`` fuzzing connections send ``--frames`` frames in all: most inside TLS after a valid
``hello`` — messages that pass the schema but carry random content (moves, seats, rounds,
chat), valid frames with bytes flipped, cut or inserted, random payloads, lying length
headers — and some as plaintext to the TLS port. A connection the host closes is reopened.

Pass: 0 crashes (no error logged by the server, the server still running), 0 hangs (every
connection still open at the end answers a ``ping``, and every write completes), and the bot
game's match finishes with every hand verified fair. Figures: frames per second, connections,
closes by the host, the host's peak memory.

Usage: ``python benchmarks/fuzz.py [--frames N] [--conns N] [--seed S] [--json]``;
``tests/scenarios/test_fuzz.py`` runs a short soak. Traffic stays on 127.0.0.1; everything is
bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import resource
import ssl
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch import protocol as p
from lanswitch.bots import make_bot
from lanswitch.client import Client, Target
from lanswitch.host import Host, HostConfig
from lanswitch.server import Server
from lanswitch.session import Session
from lanswitch.tls import client_context, load_or_create_identity, server_context

LOOPBACK = "127.0.0.1"


@dataclass
class Result:
    frames: int = 0
    tls_frames: int = 0
    plaintext_frames: int = 0
    connections: int = 0
    closed_by_host: int = 0
    hangs: int = 0
    crashes: int = 0
    game_hands: int = 0
    game_fair: bool = False
    game_finished: bool = False
    seconds: float = 0.0
    frames_per_second: float = 0.0
    host_peak_rss_mib: float = 0.0
    notes: list[str] = field(default_factory=list)


class Errors(logging.Handler):
    """Counts what the server logs at ERROR: a host that failed on a message is a crash."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage())


def random_message(rng: random.Random) -> p.Message:
    """A message a client may send, fields within the schema, content random."""
    kind = rng.randrange(10)
    if kind == 0:
        return p.Sit(seat=rng.choice([None, rng.randrange(8)]))
    if kind == 1:
        return p.Stand()
    if kind == 2:
        return p.Ready(ready=rng.random() < 0.5)
    if kind == 3:
        text = "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 40)))
        return p.Chat(text=text)
    if kind == 4:
        return p.Move(seq=rng.randrange(0, 300), move=rng.randrange(0, 400))
    if kind == 5:
        return p.Commit(
            round=rng.randrange(4), commitment=rng.randbytes(32), signature=rng.randbytes(64)
        )
    if kind == 6:
        return p.Reveal(round=rng.randrange(4), seed=rng.randbytes(32), signature=rng.randbytes(64))
    if kind == 7:
        return p.LogHead(
            count=rng.randrange(500), head=rng.randbytes(32), signature=rng.randbytes(64)
        )
    if kind == 8:
        return p.Ping(nonce=rng.randrange(2**32))
    return p.Pong(nonce=rng.randrange(2**32))


def bad_frame(rng: random.Random, good: bytes) -> bytes:
    """A frame the host must refuse: mutated, random, or with a lying length."""
    kind = rng.randrange(5)
    if kind == 0:  # flip bytes of a valid frame's payload
        data = bytearray(good)
        for _ in range(rng.randrange(1, 6)):
            i = rng.randrange(4, len(data)) if len(data) > 4 else 0
            data[i] ^= 1 << rng.randrange(8)
        return bytes(data)
    if kind == 1:  # random payload under a correct length
        payload = rng.randbytes(rng.randrange(1, 200))
        return len(payload).to_bytes(4, "big") + payload
    if kind == 2:  # a length above the limit
        return (p.MAX_FRAME + 1 + rng.randrange(1000)).to_bytes(4, "big") + rng.randbytes(16)
    if kind == 3:  # length zero
        return bytes(4)
    payload = good[4:]  # bytes inserted into a valid payload
    i = rng.randrange(len(payload) + 1)
    mutated = payload[:i] + rng.randbytes(rng.randrange(1, 8)) + payload[i:]
    return len(mutated).to_bytes(4, "big") + mutated


async def drain(reader: asyncio.StreamReader, state: dict[str, float]) -> None:
    """Read and discard what the host sends (a fuzzer that stops reading gets dropped)."""
    try:
        for _ in range(10**9):
            data = await reader.read(65536)
            if not data:
                state["closed"] = 1
                return
            state["heard"] = time.monotonic()
    except (ConnectionError, OSError, ssl.SSLError):
        state["closed"] = 1


async def fuzzer(
    port: int,
    rng: random.Random,
    budget: list[int],
    result: Result,
    tls_share: float,
    source: str = LOOPBACK,
) -> None:
    """One fuzzing client, from its own ``source`` address (the host limits connections per
    address: eight fuzzers from one address would be measuring those limits)."""
    failures = 0
    for _ in range(10**9):
        if budget[0] <= 0:
            return
        result.connections += 1
        if rng.random() > tls_share:  # plaintext to the TLS port: the handshake fails
            budget[0] -= 1
            result.frames += 1
            result.plaintext_frames += 1
            # The host either closes at once (garbage that is no TLS record) or waits for the
            # rest of a handshake that never comes, until its 5 s handshake limit: neither is a
            # hang, and the fuzzer does not wait for it.
            try:
                reader, writer = await asyncio.open_connection(
                    LOOPBACK, port, local_addr=(source, 0)
                )
                writer.write(rng.randbytes(rng.randrange(1, 300)))
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.2):
                        await reader.read(65536)
                writer.close()
            except (ConnectionError, OSError):
                pass
            continue
        try:
            reader, writer = await asyncio.open_connection(
                LOOPBACK, port, ssl=client_context(), server_hostname="", local_addr=(source, 0)
            )
        except (ConnectionError, OSError, ssl.SSLError) as e:
            failures += 1
            if failures >= 50:  # the host stopped taking connections: that is a crash
                result.crashes += 1
                result.notes.append(f"50 connections in a row failed, the last: {e}")
                return
            await asyncio.sleep(0.05)
            continue
        failures = 0
        state = {"closed": 0.0, "heard": 0.0}
        reading = asyncio.create_task(drain(reader, state))
        key = (
            Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)).public_key().public_bytes_raw()
        )
        hello = p.Hello(
            version=p.PROTOCOL_VERSION,
            name=f"fz{rng.randrange(10**6)}",
            key=key,
            spectate=rng.random() < 0.7,
        )
        writer.write(p.encode_frame(hello))
        try:
            for _ in range(rng.randrange(20, 400)):
                if budget[0] <= 0 or state["closed"]:
                    break
                good = p.encode_frame(random_message(rng))
                frame = bad_frame(rng, good) if rng.random() < 0.03 else good
                writer.write(frame)
                budget[0] -= 1
                result.frames += 1
                result.tls_frames += 1
                if writer.transport.get_write_buffer_size() > 1 << 16:
                    async with asyncio.timeout(10):
                        await writer.drain()
                if result.frames % 50 == 0:
                    await asyncio.sleep(0)  # let the host and the game breathe
            if not state["closed"]:  # still open: it must still answer
                before = state["heard"]
                writer.write(p.encode_frame(p.Ping(nonce=7)))
                for _ in range(200):
                    if state["closed"] or state["heard"] > before:
                        break
                    await asyncio.sleep(0.05)
                else:
                    result.hangs += 1
        except TimeoutError:
            result.hangs += 1
        except (ConnectionError, OSError, ssl.SSLError):
            pass
        if state["closed"]:
            result.closed_by_host += 1
        reading.cancel()
        writer.close()
        try:
            async with asyncio.timeout(2):
                await writer.wait_closed()
        except (TimeoutError, ConnectionError, OSError, ssl.SSLError):
            pass


async def soak(
    frames: int, conns: int, seed: int, tls_share: float = 0.9, hands: int = 2
) -> Result:
    result = Result()
    errors = Errors()
    # A fuzzer writing to a connection the host has just closed makes asyncio warn; that is
    # the fuzzer's side, not a finding.
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    logging.getLogger("lanswitch").addHandler(errors)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        identity = load_or_create_identity(Path(tmp))
        host = Host(
            # No hand limit: a finished match would close the table under the fuzzers. The
            # game must instead complete ``hands`` hands, fair, by the end of the soak.
            HostConfig(name="Fuzz", seats=2, bots=1, bot_delay=0.02),
            entropy=os.urandom,
            now=time.monotonic(),
        )
        server = Server(host, ssl_context=server_context(identity), address=LOOPBACK)
        await server.start()
        target = Target("Fuzz", (LOOPBACK,), server.port, identity.fingerprint, "fuzz")
        session = Session(
            "player", key=Ed25519PrivateKey.generate(), entropy=os.urandom, auto_ready=True
        )
        bot_rng = random.Random(seed)

        def choose(s: Session) -> int:
            assert s.rules is not None
            assert s.view is not None
            return make_bot("heuristic", s.rules).choose(s.view, bot_rng)

        game = asyncio.create_task(Client(session, target, chooser=choose, think=0.01).run())
        await asyncio.sleep(0.2)  # the player takes its seat before the crowd arrives
        budget = [frames]
        rngs = [random.Random(seed * 1000 + i) for i in range(conns)]
        await asyncio.gather(
            *(
                fuzzer(server.port, r, budget, result, tls_share, f"127.0.0.{10 + i}")
                for i, r in enumerate(rngs)
            )
        )
        try:
            async with asyncio.timeout(120):
                while len(session.history) < hands:
                    if game.done():
                        raise RuntimeError(f"the bot client stopped: {game.exception()!r}")
                    await asyncio.sleep(0.1)
            result.game_finished = True
        except RuntimeError as e:
            result.notes.append(str(e))
        except TimeoutError:
            result.notes.append("the bot game did not finish within 120 s after the fuzzing")
            game.cancel()
        result.game_hands = len(session.history)
        result.game_fair = bool(session.history) and all(
            r.judgement is not None and r.judgement.fair for r in session.history
        )
        if server._task is not None and server._task.done() and not host.finished:
            result.crashes += 1
            result.notes.append("the server stopped")
        await server.close()
        game.cancel()
        with contextlib.suppress(BaseException):
            await game
    logging.getLogger("lanswitch").removeHandler(errors)
    result.crashes += len(errors.records)
    result.notes += errors.records[:5]
    result.seconds = time.monotonic() - started
    result.frames_per_second = result.frames / result.seconds
    result.host_peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--conns", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hands", type=int, default=20, help="hands in the bot game (default 20)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = asyncio.run(soak(args.frames, args.conns, args.seed, hands=args.hands))
    if args.json:
        print(json.dumps(asdict(result), indent=2))
        return
    ok = result.crashes == 0 and result.hangs == 0 and result.game_finished and result.game_fair
    print(
        f"{result.frames:,} frames ({result.tls_frames:,} in TLS, {result.plaintext_frames:,} "
        f"plaintext) on {result.connections:,} connections in {result.seconds:.0f} s "
        f"({result.frames_per_second:,.0f} frames/s); the host closed {result.closed_by_host:,}"
    )
    print(
        f"crashes {result.crashes}, hangs {result.hangs}; the bot game: "
        f"{'finished' if result.game_finished else 'NOT finished'}, {result.game_hands} hands, "
        f"{'all fair' if result.game_fair else 'NOT all fair'}; peak RSS of the process "
        f"(host and fuzzers) {result.host_peak_rss_mib:.0f} MiB"
    )
    for note in result.notes[:10]:
        print(f"  note: {note}")
    print("PASS" if ok else "FAIL")


if __name__ == "__main__":
    main()
