"""The host's network shell: TLS connections in, a :class:`~lanswitch.host.Host` in the middle.

One :class:`Server` serves one table on one TCP port. It owns every connection in a single
:class:`asyncio.TaskGroup` (so shutting down cancels them all and waits for them), reads bytes
into each connection's sans-I/O :class:`~lanswitch.protocol.Connection`, hands the messages to
the host with the time, and writes what the host queued — every frame for one connection in
one write. A timer of the event loop is armed for the host's next deadline (a bot's move, a
timer, a ping) and ticks it. Nothing here decides anything about the game.

A connection whose unsent output grows past ``write_limit`` (a client that stopped reading)
is dropped rather than allowed to hold the host's memory; its player may resume.

With a ``journal`` (``lanswitch.journal.Journal.write``), the records the host made of each
call go to it before anything that call produced is written: what a client has been told is
always in the journal. If the journal fails, the table plays on without it (the failure is in
:attr:`Server.journal_error`, for the command to say).

A bot's move that is a search (the ``hard`` bot's: a tenth of a second, more on a slow
laptop) is never made on this event loop, which at ``lanswitch play`` also answers the host's
own player's keys: a host made with ``asks=True`` puts it in ``Host.asking``, and the server
has it made in a worker process (:class:`~lanswitch.decider.Decider`) and hands the move back with
``Host.decided`` (``lanswitch/host/_decide.py`` says why it is safe to make it elsewhere).

Who gets in is the door's: :mod:`lanswitch.door` (its docstring; the values: :class:`Limits`).
The server keeps it, being the part that knows peer addresses; the host only ever meets a
connection with its ``hello``. The garbage-collector policy of a host process is
:mod:`lanswitch.gcpolicy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import ssl
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import TracebackType

from . import protocol as p
from .decider import Decider
from .door import Limits, _Guesses, _Said, address_key
from .gcpolicy import CollectorPolicy, collector_policy, connection_closed
from .host import MAX_CLIENTS, Host
from .host._decide import Decision, decide

__all__ = [
    "CollectorPolicy",
    "Limits",
    "Server",
    "address_key",
    "collector_policy",
    "listen_failure",
]

log = logging.getLogger(__name__)

READ_SIZE = 65536
CLOSE_WAIT = 2.0  # seconds to let a closing connection flush its last frames
MAX_CLOSING = 32  # connections let flush their last frames at once; more are cut at once
TLS_HANDSHAKE_TIMEOUT = 5.0  # seconds a new connection has to finish the TLS handshake
MAX_HELLO_READS = 100_000  # reads before a hello (a frame's 65,540 bytes one at a time)


@dataclass(slots=True)
class _Link:
    """One open connection, as the server holds it."""

    writer: asyncio.StreamWriter
    conn: p.Connection
    address: str  # address_key() of its peer
    joined: bool = False  # welcomed by the host (until then: pending, unknown to the host)


def listen_failure(e: OSError, address: str, port: int) -> str:
    """Why the table cannot listen, in words (asyncio's own text is a Python tuple): a port
    in use names a free one to try instead."""
    import errno
    import re
    import socket

    # asyncio says "error while attempting to bind on address ('0.0.0.0', 47123): address
    # already in use": the port is in that tuple when the caller does not know it (a resumed
    # table's, from its journal).
    told = re.search(r"\('[^']*', (\d+)\)", str(e))
    port = port or (int(told.group(1)) if told else 0)
    if e.errno == errno.EADDRINUSE and port:
        spare = ""
        with contextlib.suppress(OSError), socket.socket() as probe:
            probe.bind((address, 0))
            spare = f" --port {probe.getsockname()[1]}"
        return f"port {port} is in use — another lanswitch? try{spare or ' another --port'}"
    if e.errno == errno.EADDRNOTAVAIL:
        return f"{address} is not an address of this machine"
    reason = re.sub(r"^error while attempting to bind on address \([^)]*\): ", "", str(e))
    return f"cannot listen on {address}:{port}: {reason}"


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
        limits: Limits | None = None,
    ) -> None:
        self.host = host
        self.ssl_context = ssl_context
        self.address = address
        self.port = port
        self.clock = clock
        self.write_limit = write_limit
        self.journal = journal
        self.journal_error: Exception | None = None
        self._closing = 0  # connections in their polite close (CLOSE_WAIT), at most MAX_CLOSING
        self.limits = limits = limits or Limits()
        self._ids = itertools.count(host.last_cid + 1)  # a resumed host's ids are taken
        self._links: dict[int, _Link] = {}
        self._pending: Counter[str] = Counter()  # address → connections before hello
        self._joined: Counter[str] = Counter()  # address → connections the host welcomed
        self._pending_total = 0
        self._guesses = _Guesses(limits)
        self._said = _Said(limits.log_burst, limits.log_window)
        self._stop = asyncio.Event()
        self._started = asyncio.Event()
        self._sleep_until: float | None = None  # the deadline the tick timer is armed for
        self._tick_timer: asyncio.TimerHandle | None = None
        self._tick_after = -math.inf  # a tick that failed holds the next one back until then
        self._tg: asyncio.TaskGroup | None = None
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None
        self.connections_total = 0  # connections let in at accept (TLS begun)
        self.refused_early = 0  # connections closed at accept, before TLS
        self.evicted = 0  # waiting connections put out to make room for another address's
        self.wrong_passwords = 0
        self.stopped = False  # stop() stopped serving, and left the table to --resume
        self.decider = Decider()
        self._asked: tuple[int, int, int] | None = None  # the question being decided now
        self._deciding: asyncio.Task[None] | None = None
        self._warmed = False

    @property
    def pending(self) -> int:
        """Connections that are waiting for their TLS handshake or ``hello``."""
        return self._pending_total

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
        """Tell every client, close every connection, and stop (after :meth:`stop`: only
        the stopping, the table is left as it was)."""
        if not self.host.finished and not self.stopped:
            self.host.shutdown(self.clock(), reason)
            self._flush()
        self._stop.set()
        if self._task is not None:
            await self._task

    async def stop(self, text: str) -> None:
        """Stop serving *without* ending the table (its host is interrupted mid-match): every
        client is told ``text`` (``error`` ``paused``: it waits for the table to come back),
        and nothing from here on reaches the
        journal, which keeps the table as it was for ``--resume``. (:meth:`close` ends it.)"""
        host = self.host
        if not host.finished:
            self.stopped = True
            self.journal, host.journaling = None, False  # the goodbyes are not the table's
            for cid in list(host.conns):
                host.send(cid, p.Error(code=p.ErrorCode.PAUSED, text=text))
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
        # Plain TCP here: TLS begins per connection once it is let in (``_accept``).
        server = await asyncio.start_server(self._accept, self.address, self.port, limit=READ_SIZE)
        self.port = server.sockets[0].getsockname()[1]
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                self._ask()  # a resumed host may have a question out
                self._arm()
                self._started.set()
                await self._stop.wait()
                server.close()
                self._disarm()
                if self._deciding is not None:
                    self._deciding.cancel()
                for cid in list(self._links):
                    self._drop(cid, close=True)
        finally:
            self._tg = None
            self.decider.close()
            server.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_WAIT):
                    await server.wait_closed()

    # -- connections -------------------------------------------------------------------------

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A TCP connection, before TLS: let in (its task does TLS and waits for the hello),
        or closed at once if too many wait for their hello already."""
        if self._tg is None or self._stop.is_set():
            writer.transport.abort()
            return
        address = address_key(writer.get_extra_info("peername"))
        lim = self.limits
        if self._pending[address] >= lim.pending_per_address or (
            self._pending_total >= lim.pending and not self._make_room(address)
        ):
            writer.transport.abort()
            self.refused_early += 1
            self._said.warn(
                self.clock(),
                "refused a connection from %s: %d connections wait for their hello, %d from "
                "there (limits %d and %d)",
                address,
                self._pending_total,
                self._pending[address],
                lim.pending,
                lim.pending_per_address,
            )
            return
        cid = next(self._ids)
        self.connections_total += 1
        self._links[cid] = _Link(writer, p.Connection(p.Role.SERVER), address)
        self._pending[address] += 1
        self._pending_total += 1
        self._tg.create_task(self._serve_connection(cid, reader, writer))

    def _make_room(self, address: str) -> bool:
        """The waiting room is full and a connection from ``address`` knocks: it takes the
        place of the oldest waiting connection of the address with the most waiting, if that
        address has at least two more waiting than ``address`` — so the room is shared out
        evenly among addresses, a lone waiting connection is never put out, and silent
        connections keep others out only from as many addresses as the room has places."""
        if not self._pending:
            return False
        victim, count = max(self._pending.items(), key=lambda kv: kv[1])
        if count < self._pending[address] + 2:
            return False
        oldest = next(
            (c for c, link in self._links.items() if not link.joined and link.address == victim),
            None,
        )
        link = None if oldest is None else self._forget(oldest)
        if link is None:  # pragma: no cover - the counts and the links agree
            return False
        _end(link.writer, abort=True)  # its task sees the connection gone and ends
        self.evicted += 1
        return True

    async def _serve_connection(
        self, cid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            first = await self._handshake(cid, reader, writer)
            if (
                first is not None
                and self._admit(cid, first.messages[0])
                and self._deliver(cid, first.messages[1:], first.error)
            ):
                await self._serve(cid, reader)
        except Exception:  # a bug of ours: this connection ends, not the table's task group
            log.exception("connection %d failed", cid)
        finally:
            if cid in self._links:
                self._drop(cid, close=True)
            if self._closing >= MAX_CLOSING:
                # Connections are being turned away faster than they finish closing: a peer
                # that never reads holds its TLS state for the whole polite close, outside
                # every other limit (a made-up resume token, over and over). Past this many at
                # once, a closing connection is cut at once (its last frame may be lost).
                _end(writer, abort=True)
            else:
                self._closing += 1
                try:
                    async with asyncio.timeout(CLOSE_WAIT):
                        await writer.wait_closed()
                except Exception:
                    # A peer that does not take part in the TLS close (one that never reads)
                    # would hold the TLS state for asyncio's 30 s shutdown timeout: let it go.
                    _end(writer, abort=True)
                finally:
                    self._closing -= 1

    async def _handshake(
        self, cid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> _First | None:
        """TLS, then the connection's first messages, the first a ``hello``, within the hello
        deadline — and, for a hello without a token, its address's back-off waited out. None:
        the connection is to be closed (it said nothing in time, or something else)."""
        link = self._links.get(cid)
        if link is None:  # dropped before its task began (the server is closing)
            return None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.hello_deadline
        first: _First | None = None
        plain = writer.transport
        try:
            async with asyncio.timeout_at(deadline):
                await writer.start_tls(
                    self.ssl_context, ssl_handshake_timeout=TLS_HANDSHAKE_TIMEOUT
                )
                for _ in range(MAX_HELLO_READS):
                    data = await reader.read(READ_SIZE)
                    if not data or cid not in self._links:
                        _end(writer, abort=True)
                        return None
                    try:
                        messages = link.conn.receive_data(data)
                    except p.RemoteProtocolError as e:
                        if not e.received:
                            self._write(cid, link.conn.send(e.error_message()))
                            return None
                        first = _First(list(e.received), e)
                        break
                    if messages:
                        first = _First(messages)
                        break
        except (TimeoutError, ConnectionError, OSError, ssl.SSLError):
            _end(writer, abort=True)  # silent, or gone: nothing to say, and no TLS close
            return None
        except Exception as e:  # whatever a peer does before its hello ends only its connection
            log.debug("connection %d failed before its hello: %r", cid, e)
            if writer.transport is None:  # a TLS upgrade cut short (see _end): give the writer
                # its closed plain transport back, or its __del__ fails on the None and prints so
                writer._transport = plain
            _end(writer, abort=True)
            return None
        if first is None or not isinstance(first.messages[0], p.Hello):
            return None  # a bye or an error before the hello: nothing to do
        hello = first.messages[0]
        if hello.token is not None:
            return first  # a resume: never held up (a token cannot be guessed)
        # Wait out the address's back-off after wrong passwords (each wait re-checked: another
        # connection from there may have guessed wrong meanwhile and pushed it further).
        for _ in range(100):
            wait = self._guesses.wait(link.address, self.clock())
            if wait <= 0:
                return first
            if loop.time() + wait >= deadline:
                text = (
                    f"too many wrong passwords from {link.address}: try again in "
                    f"{math.ceil(wait)} s"
                )
                self._said.warn(self.clock(), "refused a hello from %s: %s", link.address, text)
                self._write(cid, link.conn.send(p.Error(code=p.ErrorCode.RATE_LIMITED, text=text)))
                return None
            await asyncio.sleep(wait)
            if cid not in self._links:
                return None
        return None

    def _room_for(self, address: str) -> str | None:
        """Why a new player or spectator from ``address`` may not join now (None: it may)."""
        joined = self._joined[address]
        if joined >= self.limits.per_address:
            return (
                f"{joined} connections from {address} are at this table already: the most "
                "one address may have"
            )
        if len(self.host.table.clients) >= MAX_CLIENTS:
            return "this table is full"
        return None

    def _admit(self, cid: int, hello: p.Message) -> bool:
        """Introduce connection ``cid`` to the host with its ``hello``; True if welcomed.

        The host's ``connect`` and ``receive`` of the hello run back to back, so their two
        journal records are the last ones; if the host turned the connection away and changed
        nothing else — it closed only this one, told only this one — they are taken out
        again: a connection that never joined leaves nothing in the journal."""
        link = self._links.get(cid)
        if link is None or not isinstance(hello, p.Hello):
            return False
        host = self.host
        now = self.clock()
        if hello.token is None:
            full = self._room_for(link.address)
            if full is not None:
                self._said.warn(now, "refused a join from %s: %s", link.address, full)
                self._write(cid, link.conn.send(p.Error(code=p.ErrorCode.TABLE_FULL, text=full)))
                self._drop(cid, close=True)
                return False
        mark, told, closed = len(host.inputs), len(host.outbox), len(host.closing)
        host.connect(cid, now)
        if cid in host.conns:
            host.receive(cid, hello, now)
        conn = host.conns.get(cid)
        if conn is not None and conn.welcomed:
            self._pending[link.address] -= 1
            self._pending_total -= 1
            if self._pending[link.address] <= 0:
                del self._pending[link.address]
            self._joined[link.address] += 1
            link.joined = True
            if hello.token is None:
                self._guesses.right(link.address)
            self._flush()
            return True
        answers = [m for c, m in host.outbox[told:] if c == cid]
        if host.closing[closed:] == [cid] and len(answers) == len(host.outbox) - told:
            del host.inputs[mark:]
        if any(isinstance(m, p.Error) and m.code is p.ErrorCode.BAD_PASSWORD for m in answers):
            self.wrong_passwords += 1
            count, wait = self._guesses.wrong(link.address, now)
            self._said.warn(
                now,
                "wrong table password from %s (%d in a row): its next try waits %.0f s",
                link.address,
                count,
                wait,
            )
        self._flush()
        return False

    def _deliver(
        self, cid: int, messages: Sequence[p.Message], error: p.RemoteProtocolError | None = None
    ) -> bool:
        """Hand ``messages`` from ``cid`` to the host and send what it queued; then, if the
        stream broke the protocol (``error``), tell the peer and close. False: ``cid`` is
        closed."""
        link = self._links.get(cid)
        if link is None:
            return False
        now = self.clock()
        try:
            for m in messages:
                self.host.receive(cid, m, now)
        except Exception:  # a bug of ours: this client is told, the table goes on
            log.exception("the host failed on a message from %d", cid)
            self._write(cid, link.conn.send(p.Error(code=p.ErrorCode.INTERNAL)))
            self._drop(cid, close=True)
            return False
        if error is not None:
            self._write(cid, link.conn.send(error.error_message()))
            self._drop(cid, close=True)
            return False
        self._flush()
        return cid in self._links

    async def _serve(self, cid: int, reader: asyncio.StreamReader) -> None:
        """A joined connection's messages, until it or the host ends it."""
        while cid in self._links:
            try:
                data = await reader.read(READ_SIZE)
            except (ConnectionError, OSError, ssl.SSLError):
                data = b""
            link = self._links.get(cid)
            if link is None:
                break
            try:
                messages = link.conn.receive_data(data)
            except p.RemoteProtocolError as e:
                self._deliver(cid, e.received, e)
                break
            if not self._deliver(cid, messages) or not data or link.conn.closed:
                break

    def _write(self, cid: int, data: bytes) -> None:
        link = self._links.get(cid)
        if link is None:
            return
        writer = link.writer
        if writer.transport is None:  # see _end
            self._drop(cid, close=False)
            return
        writer.write(data)
        transport = writer.transport
        if transport.get_write_buffer_size() > self.write_limit:
            log.warning("dropping connection %d: it stopped reading", cid)
            transport.abort()
            self._drop(cid, close=False)

    def _forget(self, cid: int) -> _Link | None:
        """Take ``cid`` off the server's books (its address's counts with it)."""
        link = self._links.pop(cid, None)
        if link is None:
            return None
        connection_closed()
        counts = self._joined if link.joined else self._pending
        counts[link.address] -= 1
        if counts[link.address] <= 0:
            del counts[link.address]
        if not link.joined:
            self._pending_total -= 1
        return link

    def _drop(self, cid: int, *, close: bool) -> None:
        """Forget connection ``cid`` (telling the host, if it knows it and did not end it)."""
        link = self._forget(cid)
        if link is None:
            return
        if cid in self.host.conns:
            self.host.disconnected(cid, self.clock())
        if close:
            _end(link.writer)
        self._flush()

    def _flush(self) -> None:
        """Write what the host queued, close what it closed, and re-arm the tick timer if the
        host's next deadline came sooner."""
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
                link = self._links.get(cid)
                if link is None or link.conn.closed:
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
                        frames.append(link.conn.send(message, frame=frame))
                    except p.LocalProtocolError as e:  # a bug of ours: say so, serve the rest
                        log.error("not sent to %d: %s", cid, e)
                self._write(cid, b"".join(frames))
            closing, host.closing = host.closing, []
            for cid in closing:
                gone = self._forget(cid)
                if gone is not None:
                    _end(gone.writer)  # after the frames written above
        self._ask()
        self._arm()
        if host.finished:
            self._stop.set()

    # -- the bots' moves the host asks for ----------------------------------------------------

    def _ask(self) -> None:
        """Have the question the host has out now decided, once (a task of the server's);
        start the worker as soon as a hand has bots that search."""
        if self.host.searching and not self._warmed:
            self._warmed = True
            self.decider.warm()
        asked = self.host.asking
        if asked is None or asked.key == self._asked or self._tg is None or self._stop.is_set():
            return
        self._asked = asked.key
        self._deciding = self._tg.create_task(self._decide(asked), name=f"bot move {asked.key}")

    async def _decide(self, asked: Decision) -> None:
        try:
            move = await self.decider.move(asked)
        except Exception:  # a bug of ours in the search: the table plays on, and says so
            log.exception("a bot's search failed: it plays the normal bot's move")
            move = decide(replace(asked, bot="heuristic"))
        if self._stop.is_set():
            return
        try:
            self.host.decided(*asked.key, move, self.clock())
        except Exception:  # a bug of ours: keep the table up, say so
            log.exception("the host failed on a bot's move")
        self._flush()

    # -- the tick timer ---------------------------------------------------------------------
    #
    # The host says when it next wants a tick (``next_deadline``); one timer of the event loop
    # is armed for it, re-armed earlier when a step brings the deadline forward, and left as
    # it is when the deadline moves later (a tick before it is due does nothing, and re-arms).
    # A plain loop timer, not a task sleeping on an event with a timeout: 250 tables in one
    # process tick ~500 times a second (pings), and a task's timeout — a future, a timer,
    # a cancellation raised and caught — cost 1.0 of 8.7 busy seconds in the profile
    # (issue #17).

    def _arm(self) -> None:
        """(Re-)arm the tick timer for the host's next deadline, if that is sooner than the
        one it is armed for."""
        if self._stop.is_set() or self._tg is None:
            return
        deadline = self.host.next_deadline()
        if deadline is None:
            return
        deadline = max(deadline, self._tick_after)
        if self._tick_timer is not None and self._sleep_until is not None:
            if self._sleep_until <= deadline:
                return
            self._tick_timer.cancel()
        self._sleep_until = deadline
        # A deadline already due still waits for the loop's next round: the clients get in.
        delay = max(0.0, deadline - self.clock())
        self._tick_timer = asyncio.get_running_loop().call_later(delay, self._tick)

    def _disarm(self) -> None:
        if self._tick_timer is not None:
            self._tick_timer.cancel()
        self._tick_timer = self._sleep_until = None

    def _tick(self) -> None:
        """Tick the host at its deadline (bots, timers, pings), send what it queued, re-arm."""
        self._tick_timer = self._sleep_until = None
        if self._stop.is_set():
            return
        now = self.clock()
        try:
            self.host.tick(now)
        except Exception:  # a bug of ours: keep the table up, say so
            log.exception("the host failed on a tick")
            self._tick_after = now + 0.1
        self._flush()


def _end(writer: asyncio.StreamWriter, *, abort: bool = False) -> None:
    """Close ``writer``'s connection (``abort``: at once, without a TLS close). A TLS upgrade
    the peer cut short just as it finished leaves a writer without a transport
    (``loop.start_tls`` returns None, and ``StreamWriter.start_tls`` stores it): nothing to
    close then, and nothing may raise here."""
    transport = writer.transport
    if transport is None:
        return
    if abort:
        transport.abort()
    else:
        transport.close()


@dataclass(slots=True)
class _First:
    """A connection's first messages (the first its ``hello``) and the protocol error that
    ended the read they came in, if one did."""

    messages: list[p.Message]
    error: p.RemoteProtocolError | None = None
