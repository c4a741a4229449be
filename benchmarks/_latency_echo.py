"""The anchor of ``benchmarks/latency.py``: a bare asyncio + TLS + msgpack echo server.

It is what any Python host of ours would cost at the least (``/work/shared/notes/perf.md``):
the same TLS 1.3 context and ECDSA P-256 self-signed certificate as lanswitch
(``lanswitch.tls``), the same length-prefixed msgpack frames (``u32 big-endian ‖ payload``),
asyncio streams on both sides, and an answer to every request shaped like a ``view`` message
(a map of two dozen fields, a seven-card hand, four seats) — but no schema checks, no game,
no fair deal. lanswitch's figures are read as ratios to these.

The client side (:class:`EchoDriver`) loads it exactly as ``_latency_game.GameDriver`` loads a
lanswitch host: tables of clients, one acting client per table at a time (the turn passes round
the table after each round trip), each act waiting for the table's next slot.

With ``fanout`` (the *fan-out echo*), each client first names its table, and every answer goes
to all four connections of the table, the mover's first; every client reads and unpacks every
frame it gets. That is the least I/O any host of a card game must do per action (each player
must hear of each move: one frame in, four out, four clients reading), with nothing else: the
floor under lanswitch's figures, where the plain echo (one frame in, one out) is the anchor
the issue's targets name.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from typing import Any

import msgpack
from _latency_harness import Recorder, Schedule, gather_limited

from lanswitch.tls import Identity, open_pinned_connection, server_context

#: A view-like answer: the fields of a ``view`` message (protocol/SPEC.md) at a typical moment.
VIEW_TEMPLATE: dict[str, Any] = {
    "type": "view",
    "seq": 0,
    "seat": 1,
    "hand": [3, 9, 17, 22, 30, 41, 50],
    "counts": [5, 7, 6, 4],
    "active": [True, True, True, True],
    "top": 28,
    "top_face": 2,
    "named_suit": -1,
    "free": False,
    "direction": 1,
    "turn": 1,
    "phase": 1,
    "pending_kind": "",
    "pending_amount": 0,
    "pending_target": -1,
    "missed": [0, 0, 0, 0],
    "declared": [False, False, False, False],
    "called_last": False,
    "called_two": False,
    "stock": 60,
    "discard": 11,
    "dealer": 0,
    "finished": [],
    "legal": [3, 30, 200],
    "timer_ms": 0,
}


class _EchoServer:
    def __init__(self, server: asyncio.Server, ports: list[int]) -> None:
        self.server = server
        self.ports = ports
        self.writers: set[asyncio.StreamWriter] = set()

    async def close(self) -> None:
        self.server.close()
        for w in list(self.writers):
            w.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5.0):
                await self.server.wait_closed()


async def start_echo(cfg: dict[str, Any]) -> _EchoServer:
    """Serve the echo on 127.0.0.1 (one port): each request frame gets one view-like frame."""
    identity: Identity = cfg["identity"]
    ctx = server_context(identity)
    holder: list[_EchoServer] = []

    fanout: bool = cfg.get("fanout", False)
    tables: dict[int, list[asyncio.StreamWriter]] = {}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        holder[0].writers.add(writer)
        buf = bytearray()
        mates = [writer]
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                buf += data
                out: list[bytes] = []
                while len(buf) >= 4:
                    n = int.from_bytes(buf[:4], "big")
                    if len(buf) < 4 + n:
                        break
                    request = msgpack.unpackb(bytes(buf[4 : 4 + n]), raw=False)
                    del buf[: 4 + n]
                    if fanout and "table" in request:  # the client names its table once
                        mates = tables.setdefault(request["table"], [])
                        mates.append(writer)
                        continue
                    answer = dict(VIEW_TEMPLATE)
                    answer["seq"] = request["seq"] + 1
                    payload = msgpack.packb(answer, use_bin_type=True)
                    out.append(len(payload).to_bytes(4, "big") + payload)
                if out:
                    frames = b"".join(out)
                    writer.write(frames)  # the mover first, then the rest of its table
                    for w in mates:
                        if w is not writer:
                            w.write(frames)
        except (ConnectionError, ssl.SSLError, OSError):
            pass
        finally:
            holder[0].writers.discard(writer)
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=ctx, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    holder.append(_EchoServer(server, [port]))
    return holder[0]


class EchoDriver:
    """Tables of echo clients: per table, the acting client sends a move-like request on each
    slot and awaits its answer, then the turn passes to the table's next client."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self.tables: list[int] = cfg["tables"]  # global table indices (for the stagger)
        self.per_table: int = cfg["per_table"]
        self.port: int = cfg["ports"][0]
        self.fingerprint: bytes = cfg["identity"].fingerprint
        self.timeout_s: float = cfg.get("timeout_s", 5.0)
        self.conns: list[list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = []
        self.connected = 0
        self.fanout: bool = cfg.get("fanout", False)
        self.readers: list[asyncio.Task[None]] = []
        self.waiting: dict[asyncio.StreamReader, tuple[int, asyncio.Future[Any]]] = {}

    async def setup(self) -> None:
        async def connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
            return await open_pinned_connection(
                "127.0.0.1", self.port, self.fingerprint, timeout=30.0
            )

        n = len(self.tables) * self.per_table
        streams = await gather_limited([connect] * n, limit=32)
        self.connected = len(streams)
        self.conns = [
            streams[i * self.per_table : (i + 1) * self.per_table] for i in range(len(self.tables))
        ]
        if self.fanout:
            for table, conns in zip(self.tables, self.conns, strict=True):
                for reader, writer in conns:
                    payload = msgpack.packb({"table": table}, use_bin_type=True)
                    writer.write(len(payload).to_bytes(4, "big") + payload)
                    self.readers.append(asyncio.create_task(self._listen(reader)))

    async def _listen(self, reader: asyncio.StreamReader) -> None:
        """Fan-out: one connection's reader, as a client's own would be: every frame is read
        and unpacked; an answer the acting client awaits completes its round trip."""
        while True:
            try:
                header = await reader.readexactly(4)
                body = await reader.readexactly(int.from_bytes(header, "big"))
            except (ConnectionError, ssl.SSLError, OSError, asyncio.IncompleteReadError):
                return
            answer = msgpack.unpackb(body, raw=False)
            waiting = self.waiting.get(reader)
            if waiting is not None and answer.get("seq") == waiting[0]:
                del self.waiting[reader]
                if not waiting[1].done():
                    waiting[1].set_result(answer)

    async def run(self, schedule: Schedule, recorder: Recorder) -> None:
        pairs = zip(self.tables, self.conns, strict=True)
        await asyncio.gather(*(self._table(t, c, schedule, recorder) for t, c in pairs))

    async def _table(
        self,
        table: int,
        conns: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]],
        schedule: Schedule,
        recorder: Recorder,
    ) -> None:
        last = -1.0
        turn = 0
        seq = 0
        while True:
            slot = schedule.next_slot(table, time.monotonic(), last)
            if slot is None:
                return
            last = slot
            delay = slot - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            reader, writer = conns[turn % len(conns)]
            turn += 1
            payload = msgpack.packb({"type": "move", "seq": seq, "move": 200}, use_bin_type=True)
            frame = len(payload).to_bytes(4, "big") + payload
            t_send = time.monotonic()
            writer.write(frame)
            token = recorder.sent(t_send)
            try:
                async with asyncio.timeout(self.timeout_s):
                    if self.fanout:
                        waiter = asyncio.get_running_loop().create_future()
                        self.waiting[reader] = (seq + 1, waiter)
                        answer = await waiter
                    else:
                        header = await reader.readexactly(4)
                        body = await reader.readexactly(int.from_bytes(header, "big"))
                        answer = msgpack.unpackb(body, raw=False)
                t_reply = time.monotonic()
            except TimeoutError:
                recorder.error("timeout", time.monotonic())
                return  # the stream is out of step now: this table is done
            except (ConnectionError, ssl.SSLError, OSError, asyncio.IncompleteReadError):
                recorder.error("connection", time.monotonic())
                return
            if answer.get("seq") != seq + 1:
                recorder.error("wrong_answer", t_reply)
                return
            recorder.answered(token, t_reply)
            seq += 1

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        writers = [w for conns in self.conns for _, w in conns]
        for w in writers:
            w.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5.0):
                await asyncio.gather(*(w.wait_closed() for w in writers), return_exceptions=True)
