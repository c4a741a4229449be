"""The host's network shell: TLS connections in, a :class:`~lanswitch.host.Host` in the middle.

One :class:`Server` serves one table on one TCP port. It owns every connection in a single
:class:`asyncio.TaskGroup` (so shutting down cancels them all and waits for them), reads bytes
into each connection's sans-I/O :class:`~lanswitch.protocol.Connection`, hands the messages to
the host with the time, and writes what the host queued — every frame for one connection in
one write. A ticker task sleeps until the host's next deadline (a bot's move, a timer, a
ping) and ticks it. Nothing here decides anything about the game.

A connection whose unsent output grows past ``write_limit`` (a client that stopped reading)
is dropped rather than allowed to hold the host's memory; its player may resume.

With a ``journal`` (``lanswitch.journal.Journal.write``), the records the host made of each
call go to it before anything that call produced is written: what a client has been told is
always in the journal. If the journal fails, the table plays on without it (the failure is in
:attr:`Server.journal_error`, for the command to say).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import ssl
import time
from collections.abc import Callable
from types import TracebackType

from . import protocol as p
from .host import Host

__all__ = ["Server"]

log = logging.getLogger(__name__)

READ_SIZE = 65536
CLOSE_WAIT = 2.0  # seconds to let a closing connection flush its last frames
TLS_HANDSHAKE_TIMEOUT = 5.0  # seconds a new connection has to finish the TLS handshake


class Server:
    """Serve ``host`` on ``address:port`` with TLS (``port`` 0: any free port)."""

    def __init__(
        self,
        host: Host,
        *,
        ssl_context: ssl.SSLContext,
        address: str = "0.0.0.0",
        port: int = 0,
        clock: Callable[[], float] = time.monotonic,
        write_limit: int = 1 << 20,
        journal: Callable[[list[bytes]], None] | None = None,
    ) -> None:
        self.host = host
        self.ssl_context = ssl_context
        self.address = address
        self.port = port
        self.clock = clock
        self.write_limit = write_limit
        self.journal = journal
        self.journal_error: Exception | None = None
        self._ids = itertools.count(host.last_cid + 1)  # a resumed host's ids are taken
        self._conns: dict[int, tuple[asyncio.StreamWriter, p.Connection]] = {}
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._started = asyncio.Event()
        self._sleep_until: float | None = None
        self._tg: asyncio.TaskGroup | None = None
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None
        self.connections_total = 0

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen (in a background task) and return once the port is bound."""
        self._task = asyncio.create_task(self.serve(), name=f"lanswitch server {self.address}")
        started = asyncio.create_task(self._started.wait())
        await asyncio.wait({self._task, started}, return_when=asyncio.FIRST_COMPLETED)
        if not self._started.is_set():
            started.cancel()
            await self._task  # raises what stopped it (e.g. the port is taken)

    async def close(self, reason: str = "the host closed the table") -> None:
        """Tell every client, close every connection, and stop."""
        if not self.host.finished:
            self.host.shutdown(self.clock(), reason)
            self._flush()
        self._stop.set()
        if self._task is not None:
            await self._task

    async def wait_finished(self) -> None:
        """Until the server stops: the match ended (``--hands``) or :meth:`close` was called."""
        if self._task is not None:
            await self._task

    def poke(self) -> None:
        """Send what the host queued outside a message or a tick (a local call on it: the
        host's own player added a bot, changed the rules)."""
        self._flush()

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def serve(self) -> None:
        """Run until the host's match is over or :meth:`close`."""
        server = await asyncio.start_server(
            self._accept,
            self.address,
            self.port,
            ssl=self.ssl_context,
            limit=READ_SIZE,
            ssl_handshake_timeout=TLS_HANDSHAKE_TIMEOUT,
        )
        self.port = server.sockets[0].getsockname()[1]
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                ticker = tg.create_task(self._ticker(), name="lanswitch ticker")
                self._started.set()
                await self._stop.wait()
                server.close()
                ticker.cancel()
                for cid in list(self._conns):
                    self._drop(cid, close=True)
        finally:
            self._tg = None
            server.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_WAIT):
                    await server.wait_closed()

    # -- connections -------------------------------------------------------------------------

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._tg is None or self._stop.is_set():
            writer.close()
            return
        cid = next(self._ids)
        self.connections_total += 1
        self._conns[cid] = (writer, p.Connection(p.Role.SERVER))
        self._tg.create_task(self._serve_connection(cid, reader, writer))

    async def _serve_connection(
        self, cid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        host = self.host
        host.connect(cid, self.clock())
        self._flush()
        try:
            while cid in self._conns:
                try:
                    data = await reader.read(READ_SIZE)
                except (ConnectionError, OSError, ssl.SSLError):
                    data = b""
                conn = self._conns.get(cid)
                if conn is None:
                    break
                try:
                    messages = conn[1].receive_data(data)
                except p.RemoteProtocolError as e:
                    now = self.clock()
                    for m in e.received:
                        host.receive(cid, m, now)
                    self._write(cid, conn[1].send(e.error_message()))
                    self._drop(cid, close=True)
                    break
                now = self.clock()
                try:
                    for m in messages:
                        host.receive(cid, m, now)
                except Exception:  # a bug of ours: this client is told, the table goes on
                    log.exception("the host failed on a message from %d", cid)
                    self._write(cid, conn[1].send(p.Error(code=p.ErrorCode.INTERNAL)))
                    self._drop(cid, close=True)
                    break
                self._flush()
                if not data or conn[1].closed:
                    break
        finally:
            if cid in self._conns:
                self._drop(cid, close=True)
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_WAIT):
                    await writer.wait_closed()

    def _write(self, cid: int, data: bytes) -> None:
        conn = self._conns.get(cid)
        if conn is None:
            return
        writer = conn[0]
        writer.write(data)
        transport = writer.transport
        if transport.get_write_buffer_size() > self.write_limit:
            log.warning("dropping connection %d: it stopped reading", cid)
            transport.abort()
            self._drop(cid, close=False)

    def _drop(self, cid: int, *, close: bool) -> None:
        """Forget connection ``cid`` (telling the host if it did not end it itself)."""
        conn = self._conns.pop(cid, None)
        if conn is None:
            return
        self.host.disconnected(cid, self.clock())
        if close:
            conn[0].close()
        self._flush()

    def _flush(self) -> None:
        """Write what the host queued, close what it closed, and wake the ticker if needed."""
        host = self.host
        if host.inputs:
            records, host.inputs = host.inputs, []
            if self.journal is not None:
                try:
                    self.journal(records)
                except Exception as e:  # the game matters more than its recovery: play on
                    log.error("the journal failed, so a crash now ends this table: %s", e)
                    self.journal, self.journal_error = None, e
                    host.journaling = False
        while host.outbox or host.closing:
            out, host.outbox = host.outbox, []
            # One write per connection, in the order the host first addressed them (the
            # mover first), each written as soon as its frames are encoded.
            # A message sent to several connections (a broadcast, a spectators' view) is
            # encoded once; views and events, built from the engine's values, unchecked.
            batches: dict[int, list[p.Message]] = {}
            for cid, message in out:
                batches.setdefault(cid, []).append(message)
            encoded: dict[int, bytes] = {}  # id(message) → frame, while ``out`` holds them
            for cid, messages in batches.items():
                conn = self._conns.get(cid)
                if conn is None or conn[1].closed:
                    # Gone, or said bye in the same read as a request whose answers the host
                    # addressed to it as well: there is no one to tell.
                    continue
                frames = []
                for message in messages:
                    try:
                        frame = encoded.get(id(message))
                        if frame is None:
                            check = message.TYPE not in p.BUILT_FROM_ENGINE
                            frame = encoded[id(message)] = p.encode_frame(message, check=check)
                        frames.append(conn[1].send(message, frame=frame))
                    except p.LocalProtocolError as e:  # a bug of ours: say so, serve the rest
                        log.error("not sent to %d: %s", cid, e)
                self._write(cid, b"".join(frames))
            closing, host.closing = host.closing, []
            for cid in closing:
                conn = self._conns.pop(cid, None)
                if conn is not None:
                    conn[0].close()  # after the frames written above
        deadline = host.next_deadline()
        if deadline is not None and (self._sleep_until is None or deadline < self._sleep_until):
            self._wake.set()
        if host.finished:
            self._stop.set()

    async def _ticker(self) -> None:
        """Tick the host at its deadlines (bots, timers, pings)."""
        host = self.host
        while not self._stop.is_set():
            deadline = host.next_deadline()
            self._sleep_until = deadline
            self._wake.clear()
            delay = None if deadline is None else max(0.0, deadline - self.clock())
            if delay is None or delay > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._wake.wait()
            else:
                await asyncio.sleep(0)  # a deadline already due: still let the clients in
            self._sleep_until = None
            try:
                host.tick(self.clock())
            except Exception:  # a bug of ours: keep the table up, say so
                log.exception("the host failed on a tick")
                await asyncio.sleep(0.1)
            self._flush()
