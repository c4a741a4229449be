"""A table in one process, for tests: a :class:`~lanswitch.host.Host` and client
:class:`~lanswitch.session.Session` objects joined by pairs of sans-I/O
:class:`~lanswitch.protocol.Connection` objects, so every message is really framed, encoded,
decoded and checked against the connection state machine, with a clock the test moves.

This is the real host and the real client mirror; only the sockets are left out (the
loopback tests in ``test_server.py`` add them).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import protocol as p
from lanswitch.bots import make_bot
from lanswitch.host import Host, HostConfig
from lanswitch.host._decide import decide
from lanswitch.session import Session

Chooser = Callable[[Session], int]


@dataclass
class Link:
    """One client: its session and the two ends of its current connection."""

    session: Session
    cid: int
    server_end: p.Connection
    client_end: p.Connection
    received: list[p.Message] = field(default_factory=list)
    alive: bool = True
    mute: bool = False  # drop what the session would answer (a client that stopped talking)
    withhold: tuple[type[p.Message], ...] = ()  # message types this client never sends
    chooser: Chooser | None = None


class TableNet:
    """A host and its clients in one process (see the module docstring)."""

    def __init__(
        self,
        config: HostConfig,
        *,
        seed: int = 1,
        journal: bool = False,
        host: type[Host] = Host,
        asks: bool = False,
    ) -> None:
        """``host``: the host's class (a test's cheating host plugs in a subclass);
        ``asks``: the host asks for its searching bots' moves, as ``lanswitch play``'s does,
        and this table answers each question in place (:func:`decide`) when it steps, where
        the server has a worker process answer it."""
        self.rng = random.Random(seed)
        self.now = 0.0
        self.asks = asks
        self.host = host(
            config, entropy=self.rng.randbytes, now=self.now, journal=journal, asks=asks
        )
        self.links: dict[int, Link] = {}
        self._next = 1

    def crash(self) -> list[Link]:
        """The host process dies and a new one is restored from the journal (``journal``):
        every link is dead, and the clients (their sessions) reconnect with their tokens.
        The links of the new connections, in the order of the old ones."""
        records = list(self.host.inputs)
        self.host = Host.restore(records, entropy=self.rng.randbytes, asks=self.asks)
        self.host.drop_connections(self.now)
        old = list(self.links.values())
        for link in old:
            link.alive = False
        self.links.clear()
        return [self.resume(link) for link in old if not link.session.closed]

    # -- connections ---------------------------------------------------------------------------

    def join(
        self,
        name: str,
        *,
        spectate: bool = False,
        password: str | None = None,
        auto_ready: bool = True,
        bot: str | None = "heuristic",
    ) -> Link:
        key = Ed25519PrivateKey.from_private_bytes(self.rng.randbytes(32))
        session = Session(
            name,
            key=key,
            entropy=self.rng.randbytes,
            spectate=spectate,
            password=password,
            auto_ready=auto_ready,
            clock=lambda: self.now,  # the session judges the host's timeouts by the test's time
        )
        link = self._open(session)
        if bot is not None:
            link.chooser = self.bot(bot)
        return link

    def bot(self, strategy: str) -> Chooser:
        def choose(s: Session) -> int:
            assert s.rules is not None
            assert s.view is not None
            return make_bot(strategy, s.rules).choose(s.view, self.rng)

        return choose

    def _open(self, session: Session) -> Link:
        cid = self._next
        self._next += 1
        link = Link(session, cid, p.Connection(p.Role.SERVER), p.Connection(p.Role.CLIENT))
        self.links[cid] = link
        self.host.connect(cid, self.now)
        self.send(link, session.hello())
        return link

    def drop(self, link: Link) -> None:
        """The link goes dead: the host notices it (as the server shell would tell it)."""
        link.alive = False
        self.links.pop(link.cid, None)
        self.host.disconnected(link.cid, self.now)
        self.pump()

    def resume(self, link: Link) -> Link:
        """The same client (session, token, key) on a new connection."""
        link.alive = False
        self.links.pop(link.cid, None)
        new = self._open(link.session)
        new.chooser = link.chooser
        return new

    def restart(self, link: Link, *, away: float = 0.0) -> Link:
        """The client's program ends (its link goes dead) and, ``away`` seconds later, a new
        run of it takes the seat back with the kept key and resume token
        (``lanswitch.seatkeep``): a fresh session — nothing of the old one's hand, seeds or
        records but what the kept seat holds (``Session.keep``: the rounds it revealed its seed
        in, which the client shell writes before it sends each reveal; here every reply goes
        after ``receive`` returns, so the record is always as complete) — on a new connection,
        its chooser the old one's."""
        old = link.session
        self.drop(link)
        if away:
            self.tick(self.now + away)
        fresh = Session(
            old.name,
            key=old.key,
            entropy=self.rng.randbytes,
            spectate=old.spectate,
            auto_ready=old.auto_ready,
            clock=lambda: self.now,
        )
        fresh.token, fresh.restored, fresh.keep = old.token, True, old.keep
        new = self._open(fresh)
        new.chooser = link.chooser
        return new

    # -- traffic ---------------------------------------------------------------------------

    def send(self, link: Link, message: p.Message, *, at_once: bool = False) -> None:
        """``message`` from the client of ``link`` to the host, then everything that follows.

        The clock moves 20 ms with each message a test sends: a person (or a paced bot) is not
        instantaneous, and the host's rate limit counts messages per second."""
        if not at_once:  # ``at_once``: a flood, faster than any person
            self.now += 0.02
        data = link.client_end.send(message)
        for m in link.server_end.receive_data(data):
            self.host.receive(link.cid, m, self.now)
        self.pump()

    def pump(self) -> None:
        """Deliver the host's output (and the sessions' automatic answers) until quiet."""
        host = self.host
        for _ in range(100_000):
            if not host.outbox and not host.closing:
                return
            out, host.outbox = host.outbox, []
            for cid, message in out:
                link = self.links.get(cid)
                if link is None or not link.alive:
                    continue
                data = link.server_end.send(message)
                for m in link.client_end.receive_data(data):
                    link.received.append(m)
                    replies = link.session.receive(m)
                    if link.mute or link.client_end.closed:
                        continue
                    for r in replies:
                        if isinstance(r, link.withhold):
                            continue
                        for back in link.server_end.receive_data(link.client_end.send(r)):
                            host.receive(cid, back, self.now)
            if host.outbox:  # answers queued more: deliver them before closing anything
                continue
            closing, host.closing = host.closing, []
            for cid in closing:
                link = self.links.pop(cid, None)
                if link is not None:
                    link.alive = False
        raise AssertionError("the table did not go quiet")

    def tick(self, to: float) -> None:
        """Move the clock to ``to`` in steps of at most a second, as a live host would see
        it (so clients that answer pings stay connected across a long wait)."""
        for _ in range(100_000):
            self.now = min(to, self.now + 1.0)
            self.host.tick(self.now)
            self.pump()
            if self.now >= to:
                return

    # -- play ------------------------------------------------------------------------------

    def step(self) -> bool:
        """One client whose turn it is plays (by its chooser); else time moves to the host's
        next deadline. False when nothing can happen any more."""
        asked = self.host.asking
        if asked is not None:  # the shell's part: the answer, made here at once
            self.host.decided(*asked.key, decide(asked), self.now)
            self.pump()
            return True
        for link in list(self.links.values()):
            s = link.session
            if link.alive and link.chooser is not None and s.my_turn():
                self.send(link, s.move(link.chooser(s)))
                return True
        deadline = self.host.next_deadline()
        if deadline is None:
            return False
        self.tick(max(self.now, deadline))
        return True

    def run(self, until: Callable[[], bool], *, steps: int = 20_000) -> None:
        """Step until ``until()`` (AssertionError if it does not come within ``steps``)."""
        for _ in range(steps):
            if until():
                return
            if not self.step():
                break
        assert until(), "the table stopped before the condition held"
