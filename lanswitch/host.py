"""The host of one table, sans I/O: protocol messages in, protocol messages out, time passed in.

This is the table's whole logic — the lobby (:class:`lanswitch.table.Table`), the match
(:class:`lanswitch.game.Match`), each hand dealt by the fair deal
(:class:`lanswitch.transcript.FairHost`), the host's bots, the turn timer, liveness and
resuming — with no sockets, no clock and no randomness of its own. The server shell
(``lanswitch.server``) owns the connections: it numbers them (``cid``), and calls

* :meth:`Host.connect` when one opens, :meth:`Host.receive` for each message the
  :class:`~lanswitch.protocol.Connection` decoded, :meth:`Host.disconnected` when one drops;
* :meth:`Host.tick` whenever :meth:`Host.next_deadline` comes (bots acting, timers, pings);

and after each call writes :attr:`Host.outbox` (``(cid, message)`` pairs, in order) and closes
the connections in :attr:`Host.closing`. Randomness (tokens, seeds, keys, game ids) comes from
the ``entropy`` callable the shell passes (``os.urandom``); tests pass a seeded one.

Policies the spec leaves to the host, as this one implements them (``docs/hosting.md``):

* A hand starts when every seat is filled, at least one by a person, and every seated person
  is ready and connected. Bots are always ready.
* A player whose link drops keeps the seat and the hand. When its turn comes and it is still
  away after ``away_grace`` seconds, a stand-in bot plays that turn for it. A fair-deal round
  waits ``round_timeout`` seconds for commitments and seeds; past that the hand is void and
  the missing participant is blamed.
* With a turn timer, a seat that lets it run out has the safest legal move made for it (draw,
  else pass, else its first legal move).
* The host pings a connection it has not heard from for ``PING_AFTER`` seconds and drops it
  after ``DROP_AFTER``.

Crash recovery. The host is a deterministic function of its calls, their times and the bytes
it drew from ``entropy`` — so a journal of those calls is a complete record of the table. With
``journal=True`` every call the shell makes (and every local power: bots, rules, kick, the
owner) appends one record to :attr:`Host.inputs`: the call's name, its arguments (a message as
its msgpack payload, a rule set as TOML), whether it raised, and the randomness it drew. The
shell stores them (``lanswitch.journal``, sqlite) before it sends what the call produced, so
nothing a client was told is missing from the journal. :meth:`Host.restore` replays a journal
into a new host in exactly the state the old one was in when it stopped, connections included;
the shell then tells it those connections are gone, and their players resume with their
tokens as after any lost link.
"""

from __future__ import annotations

import functools
import inspect
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Any, Concatenate, ParamSpec, TypeVar

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import protocol as p
from .bots import BOTS, Bot, make_bot
from .fairness import (
    DEALER,
    Blame,
    Log,
    LogEvent,
    Round,
    RoundState,
    commitment,
    encode_event,
    log_start,
    log_step,
    public_bytes,
    sign_commitment,
    sign_log_head,
    sign_reveal,
    verify_log_head,
)
from .game import DRAW, PASS, PRIVATE_KINDS, Event, Game, IllegalMove, Match, redact
from .rules import PRESETS, RulesError, RuleSet, dump_toml, rules_from_mapping
from .table import Client, Refusal, Refused, Table
from .transcript import FairHost, SignedHead

__all__ = ["DROP_AFTER", "HOST_ID", "PING_AFTER", "Host", "HostConfig", "ReplayError"]

HOST_ID = "@host"
"""The table's client id for the host itself (its powers are local calls, never messages)."""

PING_AFTER = 2.0
"""Seconds of silence from a client before the host pings it."""
DROP_AFTER = 8.0
"""Seconds of silence after which the host drops a connection (the seat is kept)."""
MAX_CLIENTS = 32
"""Connections a table takes; the next gets ``error`` ``table_full``."""
HANDSHAKE_TIMEOUT = 5.0
"""Seconds a new connection has to send its ``hello``."""
RATE_LIMIT = 500
"""Messages a connection may send per second (a person sends a few; a headless bot at a table
of bots with no delays, a few hundred; a flood, thousands).
Beyond it messages are refused with ``reject`` ``rate_limited``; at three times it the
connection is closed with ``error`` ``rate_limited``."""
CHAT_BURST = 5
CHAT_WINDOW = 5.0
"""At most ``CHAT_BURST`` chat lines per client per ``CHAT_WINDOW`` seconds."""
LOG_KEEP = 50
"""The host keeps its latest ``LOG_KEEP``..``2 × LOG_KEEP`` log lines: a shell prints them as
they come (``log_since``), and a table that runs for days would otherwise keep every join and
leave."""
_ADVANCE_BOUND = 100_000
"""Engine steps one call may run (bots with no delay play whole hands in one call)."""

_LIMITED = (p.Chat, p.Move, p.Sit, p.Stand, p.Ready, p.Ping, p.Hello)
"""The messages the rate limit drops (with a ``reject``) rather than lets through."""

_REFUSAL_CODES = {
    Refusal.BAD_PASSWORD: p.ErrorCode.BAD_PASSWORD,
    Refusal.BAD_TOKEN: p.ErrorCode.BAD_TOKEN,
    Refusal.TABLE_FULL: p.ErrorCode.TABLE_FULL,
    Refusal.SEAT_TAKEN: p.ErrorCode.SEAT_TAKEN,
}


class ReplayError(ValueError):
    """A journal that cannot be replayed: a record that does not decode, randomness that runs
    out, or a call whose outcome differs from the one recorded (the code changed under it)."""


class _Entropy:
    """The shell's randomness as the host draws it. While the host journals, every draw is
    kept until the call that drew it is recorded; a replay swaps in a :class:`_Tape`."""

    __slots__ = ("drawn", "keep", "source")

    def __init__(self, source: Callable[[int], bytes]) -> None:
        self.source = source
        self.keep = False
        self.drawn = bytearray()

    def __call__(self, n: int) -> bytes:
        data = self.source(n)
        if len(data) != n:
            raise ReplayError(f"asked for {n} random bytes, got {len(data)}")
        if self.keep:
            self.drawn += data
        return data


class _Tape:
    """Randomness played back from one journal record."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def __call__(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise ReplayError("the call drew more randomness than the journal recorded")
        self.at += n
        return self.data[self.at - n : self.at]


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _journaled(
    method: Callable[Concatenate[Host, _P], _R],
) -> Callable[Concatenate[Host, _P], _R]:
    """Record each outermost call of ``method`` to :attr:`Host.inputs` (see the module
    docstring); a call made by another recorded call is part of that one."""
    signature = inspect.signature(method)
    name = method.__name__

    def call(self: Host, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not self.journaling or self._depth:
            return method(self, *args, **kwargs)
        self._depth += 1
        raised = True
        try:
            result = method(self, *args, **kwargs)
            raised = False
            return result
        finally:
            self._depth -= 1
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            values = list(bound.arguments.values())[1:]
            self._record(name, values, raised)

    functools.update_wrapper(call, method)
    return call


def _to_record(value: object) -> object:
    if isinstance(value, p.Message):
        return p.encode_message(value, check=False)
    if isinstance(value, RuleSet):
        return dump_toml(value)
    return value


def _config_record(config: HostConfig) -> dict[str, Any]:
    out = {f.name: getattr(config, f.name) for f in fields(config)}
    out["rules"] = dump_toml(config.rules)
    return out


def _config_from_record(data: object) -> HostConfig:
    if not isinstance(data, dict):
        raise ReplayError("the journal's first record holds no table settings")
    known = {f.name for f in fields(HostConfig)}
    unknown = set(data) - known
    if unknown:
        raise ReplayError(f"unknown table settings in the journal: {', '.join(sorted(unknown))}")
    try:
        rules = _parse_rules(data.get("rules", ""))
        return HostConfig(**{**data, "rules": rules})
    except (TypeError, ValueError) as e:
        raise ReplayError(f"the journal's table settings are not valid: {e}") from None


def _parse_rules(text: object) -> RuleSet:
    if not isinstance(text, str):
        raise ReplayError("rules in the journal are not text")
    try:
        return rules_from_mapping(tomllib.loads(text), source="journal rules")
    except (tomllib.TOMLDecodeError, RulesError) as e:
        raise ReplayError(f"rules in the journal are not valid: {e}") from None


_REPLAYED = frozenset(
    {
        "connect",
        "receive",
        "disconnected",
        "tick",
        "shutdown",
        "add_bot",
        "remove_bot",
        "set_rules",
        "kick",
        "set_owner",
    }
)
"""The calls a journal may hold (each a public method of :class:`Host`)."""


class _EntropyRng:
    """A bot's ``random()`` drawn from the shell's entropy (the core has no random source)."""

    def __init__(self, entropy: Callable[[int], bytes]) -> None:
        self._entropy = entropy

    def random(self) -> float:
        return (int.from_bytes(self._entropy(7), "big") >> 3) / (1 << 53)


@dataclass(frozen=True, slots=True)
class HostConfig:
    """How a table is set up (``lanswitch host`` options)."""

    name: str = "lanswitch"
    rules: RuleSet = PRESETS["switch"]
    rules_name: str = ""  # what the lobby calls the rules; default: the rule set's name
    seats: int = 4
    bots: int = 0  # seats the host fills with bots, counted from the last seat
    bot_strategy: str = "heuristic"
    password: str | None = None
    hands: int | None = None  # the match ends after this many hands (None: the rules decide)
    turn_timer: float = 0.0  # seconds a seat has to act; 0: no timer
    bot_delay: float = 0.6  # seconds a host bot waits before it acts, so people can follow
    away_grace: float = 30.0  # seconds before a stand-in plays an away player's turn
    round_timeout: float = 30.0  # seconds a fair-deal round waits for commitments / seeds
    heads_timeout: float = 30.0  # seconds the host waits for the seats' log heads

    def __post_init__(self) -> None:
        if not 0 <= self.bots <= self.seats:
            raise ValueError(f"bots must be 0..{self.seats}, not {self.bots}")
        if self.bot_strategy not in BOTS:
            raise ValueError(f"no bot {self.bot_strategy!r}; bots are {', '.join(BOTS)}")
        if self.hands is not None and self.hands < 1:
            raise ValueError("hands must be at least 1")
        for name in ("turn_timer", "bot_delay", "away_grace", "round_timeout", "heads_timeout"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")


@dataclass(slots=True)
class _Conn:
    """One open connection as the host sees it."""

    cid: int
    heard: float  # when the host last heard from it
    opened: float = 0.0  # when it connected
    key: bytes = b""  # the client's session key (after hello)
    welcomed: bool = False
    pinged: bool = False
    chat_times: list[float] = field(default_factory=list)
    window: float = 0.0  # the start of the current second, for the rate limit
    count: int = 0  # messages received in that second
    requests: int = 0  # of which requests the rate limit counts (moves, chat, seats, pings)


@dataclass(slots=True)
class _Hand:
    """The hand in progress (and, once over, until every log head is in)."""

    fair: FairHost
    game: Game
    pids: tuple[str, ...]
    bot_keys: dict[int, Ed25519PrivateKey]
    bots: dict[int, Bot]
    steps: list[tuple[tuple[Event, ...], tuple[bytes, ...]]] = field(default_factory=list)
    announces: list[tuple[int, p.Announce]] = field(default_factory=list)  # (seq then, it)
    dealer_seeds: dict[int, dict[str, bytes]] = field(default_factory=dict)
    round_open: bool = False  # a round is announced and not yet dealt from
    stage2: bool = False  # the open round's commitments were broadcast
    round_deadline: float = 0.0
    turn_since: float = 0.0  # when the seat to act was given the turn
    over: bool = False
    over_messages: dict[int | None, p.HandOver] = field(default_factory=dict)
    abort: p.Abort | None = None  # the hand was void
    reveals: list[p.Reveals] = field(default_factory=list)
    heads: dict[str, SignedHead] = field(default_factory=dict)
    heads_deadline: float = 0.0
    heads_message: p.LogHeads | None = None

    @property
    def seq(self) -> int:
        return len(self.steps)


class Host:
    """One table's host: see the module docstring for how a shell drives it."""

    def __init__(
        self,
        config: HostConfig,
        *,
        entropy: Callable[[int], bytes],
        now: float,
        journal: bool = False,
    ) -> None:
        self.inputs: list[bytes] = []  # journal records not yet taken by the shell
        self.journaling = False
        self._depth = 0
        self._quiet = False  # replaying: nothing is sent
        self._entropy = _Entropy(entropy)
        self._entropy.keep = journal
        entropy = self.entropy = self._entropy
        self.config = config
        self.rules = config.rules
        self.rules_name = config.rules_name or config.rules.name
        self.table = Table(
            name=config.name,
            rules=config.rules,
            host=HOST_ID,
            host_name=config.name,
            token_source=lambda: entropy(24).hex(),
            seats_total=config.seats,
            password=config.password,
            bots=tuple(BOTS),
        )
        self.key = Ed25519PrivateKey.from_private_bytes(entropy(32))
        self._rng = _EntropyRng(entropy)
        self.bot_keys: dict[int, Ed25519PrivateKey] = {}
        for seat in range(config.seats - config.bots, config.seats):
            self.add_bot(seat, config.bot_strategy)
        self.conns: dict[int, _Conn] = {}
        self.keys: dict[str, bytes] = {}  # resume token → the session key it was issued with
        self.away: dict[int, float] = {}  # seat → since when its player is away
        self.quit: set[int] = set()  # seats whose players said bye during this hand
        self.outbox: list[tuple[int, p.Message]] = []
        self.closing: list[int] = []
        self.log: list[str] = []  # what happened, for a headless host to print (the latest)
        self.log_start = 0  # how many earlier lines were let go (a long session's memory)
        self.match = self._new_match()
        self.hand: _Hand | None = None
        self.finished = False  # the match is over and every client was told
        self._owner_key: bytes | None = None  # the host's own player (lobby.host)
        self.last_cid = 0  # the highest connection id seen (a resumed server numbers on)
        self._now = now
        if journal:
            self.journaling = True
            self._record("init", [_config_record(config), now], False)

    @property
    def now(self) -> float:
        """The time of the latest call (a resumed shell's clock carries on from it)."""
        return self._now

    @property
    def owner_key(self) -> bytes | None:
        """The session key of the host's own player, who sits at this table's terminal."""
        return self._owner_key

    @owner_key.setter
    def owner_key(self, key: bytes | None) -> None:
        self.set_owner(key)

    @_journaled
    def set_owner(self, key: bytes | None) -> None:
        self._owner_key = key
        self._broadcast_lobby()

    def log_since(self, n: int) -> tuple[list[str], int]:
        """The log lines from line ``n`` on (counted over the whole session) and the count
        after them: a shell prints ``lines`` and asks again from ``count``."""
        return self.log[max(0, n - self.log_start) :], self.log_start + len(self.log)

    def _say(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > 2 * LOG_KEEP:  # keep the latest; a shell has printed the rest
            del self.log[:LOG_KEEP]
            self.log_start += LOG_KEEP

    # -- the journal ---------------------------------------------------------------------------

    def _record(self, name: str, values: list[object], raised: bool) -> None:
        drawn = bytes(self._entropy.drawn)
        self._entropy.drawn.clear()
        record = [name, [_to_record(v) for v in values], raised, drawn]
        self.inputs.append(msgpack.packb(record, use_bin_type=True))

    @classmethod
    def restore(cls, records: Iterable[bytes], *, entropy: Callable[[int], bytes]) -> Host:
        """A host in the state the journal ``records`` leave it in, journaling on from there.

        The connections open when the journal ends are still open in it: the shell tells it
        they are gone (:meth:`drop_connections`). ReplayError if the journal does not replay.
        """
        it = iter(records)
        name, values, _, drawn = _unpack(next(it, None), 1)
        if name != "init" or len(values) != 2 or not isinstance(values[1], float | int):
            raise ReplayError("the journal does not begin with the table's settings")
        tape = _Tape(drawn)
        host = cls(_config_from_record(values[0]), entropy=tape, now=values[1])
        if tape.at != len(tape.data):
            raise ReplayError("the table's settings do not replay as they ran")
        host._quiet = True
        for n, raw in enumerate(it, 2):
            name, values, raised, drawn = _unpack(raw, n)
            tape = _Tape(drawn)
            host._entropy.source = tape
            call = _replay_call(host, name, values, n)
            try:
                call()
                failed = False
            except ReplayError:
                raise
            except Exception:  # the live host raised here too (the shell went on): the same
                failed = True
            if failed != raised or tape.at != len(tape.data):
                raise ReplayError(f"record {n} ({name}) does not replay as it ran")
        host._entropy.source = entropy
        host._entropy.keep = True
        host._quiet = False
        host.outbox.clear()
        host.closing.clear()
        host.journaling = True
        return host

    def drop_connections(self, now: float) -> None:
        """Every connection is gone (the shell restarted): their players are away."""
        for cid in list(self.conns):
            self.disconnected(cid, now)

    # -- the shell's calls ---------------------------------------------------------------------

    @_journaled
    def connect(self, cid: int, now: float) -> None:
        """A connection opened (TLS done); its ``hello`` comes next."""
        self._now = now
        self.last_cid = max(self.last_cid, cid)
        if self.finished:
            self._close(cid, p.Bye(reason="the match is over"))
            return
        self.conns[cid] = _Conn(cid, now, opened=now)
        if len(self.conns) > MAX_CLIENTS:
            self._close(cid, p.Error(code=p.ErrorCode.TABLE_FULL, text="this table is full"))

    @_journaled
    def receive(self, cid: int, message: p.Message, now: float) -> None:
        """A message from connection ``cid``, already checked by its Connection."""
        self._now = now
        conn = self.conns.get(cid)
        if conn is None:
            return
        conn.heard, conn.pinged = now, False
        if now - conn.window >= 1.0:
            conn.window, conn.count, conn.requests = now, 0, 0
        conn.count += 1
        # Requests a person makes (moves, chat, seats, pings) are limited: beyond RATE_LIMIT a
        # second they are refused, beyond three times that the connection is closed. The fair
        # deal's answers and pongs are never dropped (a client that was only fast would break
        # the deal; extra ones are refused cheaply by the round), but a flood of anything past
        # ten times the limit closes the connection too.
        limited = isinstance(message, _LIMITED)
        conn.requests += limited
        if conn.count > 10 * RATE_LIMIT or conn.requests > 3 * RATE_LIMIT:
            text = f"more than {3 * RATE_LIMIT} requests in a second"
            self._close(cid, p.Error(code=p.ErrorCode.RATE_LIMITED, text=text))
            return
        if limited and conn.requests > RATE_LIMIT:
            if conn.requests == RATE_LIMIT + 1 or isinstance(message, p.Move | p.Ready):
                # Said once a second, and for every move or ready dropped, which its client
                # must send again (a ready lost unsaid would hold the next hand up for ever).
                text = f"more than {RATE_LIMIT} requests a second: slow down"
                seq = message.seq if isinstance(message, p.Move) else 0
                self._send(cid, p.Reject(code=p.ErrorCode.RATE_LIMITED, text=text, seq=seq))
            return
        if isinstance(message, p.Hello):
            self._hello(conn, message)
        elif isinstance(message, p.Bye | p.Error):
            self._gone(cid, left=isinstance(message, p.Bye))
        elif isinstance(message, p.Ping):
            self._send(cid, p.Pong(nonce=message.nonce))
        elif isinstance(message, p.Pong):
            pass
        else:
            handler = _HANDLERS.get(type(message))
            if handler is None:  # a host-only message the Connection let through: a bug there
                self._close(cid, p.Error(code=p.ErrorCode.UNEXPECTED, text=message.TYPE))
                return
            try:
                handler(self, cid, message)
            except Refused as e:
                code = _REFUSAL_CODES.get(e.refusal, p.ErrorCode.NOT_NOW)
                self._send(cid, p.Reject(code=code, text=e.refusal.value))
        # The host's own moves (bots, stand-ins, the timer) wait for the next tick, so what
        # this message caused goes out first; with no bot delay that tick is due at once.
        self._advance(moves=False)

    @_journaled
    def disconnected(self, cid: int, now: float) -> None:
        """The connection ended (stream closed, reset, or the shell dropped it)."""
        self._now = now
        self._gone(cid, left=False)
        self._advance(moves=False)

    @_journaled
    def tick(self, now: float) -> None:
        """Time passed: liveness, timers, bots."""
        self._now = now
        # Each test is written as ``now >= start + delay``, the very sum next_deadline()
        # returns, so a tick at that deadline always acts (``now - start >= delay`` can miss
        # it by a rounding error, and the shell would wake again and again at the same time).
        for conn in list(self.conns.values()):
            slow_hello = not conn.welcomed and now >= conn.opened + HANDSHAKE_TIMEOUT
            if now >= conn.heard + DROP_AFTER or slow_hello:
                self._close(conn.cid, None)
            elif now >= conn.heard + PING_AFTER and conn.welcomed and not conn.pinged:
                conn.pinged = True
                self._send(conn.cid, p.Ping(nonce=int(now * 1000) & 0xFFFFFFFF))
        self._advance()

    def next_deadline(self) -> float | None:
        """When :meth:`tick` should next run (None: only when a message comes)."""
        times = [c.heard + (DROP_AFTER if c.pinged else PING_AFTER) for c in self.conns.values()]
        times += [c.opened + HANDSHAKE_TIMEOUT for c in self.conns.values() if not c.welcomed]
        h = self.hand
        if h is None:
            times += [since + self.config.away_grace for since in self.away.values()]
        else:
            if h.over:
                if h.heads_message is None:
                    times.append(h.heads_deadline)
            elif h.game.chance_request() is not None:
                times.append(h.round_deadline)
            else:
                due = self._turn_due(h)
                if due is not None:
                    times.append(due)
        return min(times) if times else None

    @_journaled
    def shutdown(self, now: float, reason: str = "the host closed the table") -> None:
        """End the table: everyone is told (``bye`` after the match, else ``error`` shutdown)."""
        self._now = now
        self.finished = True
        for cid in list(self.conns):
            if self.match.over and self.hand is None:
                self._close(cid, p.Bye(reason=reason))
            else:
                self._close(cid, p.Error(code=p.ErrorCode.SHUTDOWN, text=reason))

    # -- the host's own powers (local calls: the host's terminal or command line) -----------

    @_journaled
    def add_bot(self, seat: int, strategy: str = "heuristic") -> None:
        self.table.add_bot(HOST_ID, seat, strategy)
        self.bot_keys[seat] = Ed25519PrivateKey.from_private_bytes(self.entropy(32))
        if hasattr(self, "conns"):
            self._broadcast_lobby()

    @_journaled
    def remove_bot(self, seat: int) -> None:
        self.table.remove_bot(HOST_ID, seat)
        self.bot_keys.pop(seat, None)
        self._broadcast_lobby()

    @_journaled
    def set_rules(self, rules: RuleSet, name: str = "") -> None:
        self.table.set_rules(HOST_ID, rules)
        self.rules, self.rules_name = rules, name or rules.name
        self.match = self._new_match()
        self._broadcast_lobby()

    @_journaled
    def kick(self, seat: int) -> None:
        entry = self._seat_client(seat)
        if entry is None:
            raise Refused(Refusal.NO_SUCH_CLIENT)
        cid = int(entry)
        self.table.kick(HOST_ID, entry)
        if cid in self.conns:
            self._close(cid, p.Error(code=p.ErrorCode.KICKED, text="the host removed you"))
        self._broadcast_lobby()

    def free_seats(self) -> int:
        return self.table.free_seats()

    def standings(self) -> str:
        """The match so far in words: who leads (or won), and everyone's score or wins."""
        m = self.match
        by_wins = self.rules.scoring.mode == "none"
        seats = [s for s in self.table.seats if s.kind != "empty"]
        figures = ", ".join(
            f"{s.name} {m.wins[s.index] if by_wins else m.totals[s.index]}" for s in seats
        )
        unit = "hands won" if by_wins else "points"
        if m.winner is not None:
            return f"{self.table.seats[m.winner].name} wins ({unit}: {figures})"
        return f"{unit}: {figures}"

    # -- handshake and lobby ---------------------------------------------------------------

    def _hello(self, conn: _Conn, hello: p.Hello) -> None:
        cid = conn.cid
        if hello.version != p.PROTOCOL_VERSION:
            text = f"this host speaks protocol {p.PROTOCOL_VERSION}, you sent {hello.version}"
            self._close(cid, p.Error(code=p.ErrorCode.VERSION_MISMATCH, text=text))
            return
        entry: Client | None = None
        if hello.token is not None:
            token = hello.token.decode("ascii", "replace")
            if self.keys.get(token) != hello.key:
                self._close(cid, p.Error(code=p.ErrorCode.BAD_TOKEN, text=Refusal.BAD_TOKEN.value))
                return
            old = next((c for c in self.table.clients.values() if c.token == token), None)
            if old is not None and old.id != str(cid) and int(old.id) in self.conns:
                # The same player on a new connection: the old one is a dead link.
                self._close(int(old.id), None)
            try:
                entry = self.table.join(str(cid), hello.name, self._now, resume=token)
            except Refused as e:
                self._close(cid, p.Error(code=p.ErrorCode.BAD_TOKEN, text=e.refusal.value))
                return
            if entry.seat is not None:
                self.away.pop(entry.seat, None)
                self.quit.discard(entry.seat)
            self._say(f"{entry.name} is back")
        else:
            for k in range(1, 10):
                name = hello.name if k == 1 else f"{hello.name[:21]} {k}"
                try:
                    entry = self.table.join(
                        str(cid),
                        name,
                        self._now,
                        password=hello.password,
                        spectate=hello.spectate,
                    )
                    break
                except Refused as e:
                    if e.refusal is not Refusal.NAME_TAKEN:
                        code = _REFUSAL_CODES.get(e.refusal, p.ErrorCode.BAD_MESSAGE)
                        self._close(cid, p.Error(code=code, text=e.refusal.value))
                        return
            if entry is None:
                self._close(cid, p.Error(code=p.ErrorCode.BAD_MESSAGE, text="name taken"))
                return
            self.keys[entry.token] = hello.key
            self._say(f"{entry.name} joined" + (" to watch" if hello.spectate else ""))
            seated = self.table.seating_line(entry)  # people before bots: where they sit
            if seated is not None:
                self._say(seated)
        if entry is None:  # pragma: no cover - every path above sets it or returns
            return
        conn.key, conn.welcomed = hello.key, True
        self._send(
            cid,
            p.Welcome(
                version=p.PROTOCOL_VERSION,
                table=self.config.name[:32],
                seat=entry.seat,
                token=entry.token.encode("ascii"),
            ),
        )
        self._broadcast_lobby()
        if self.hand is not None and not self._quiet:
            self._catch_up(cid)

    def _sit(self, cid: int, m: p.Sit) -> None:
        seat = m.seat
        if seat is None:
            if self.table.in_play:
                raise Refused(Refusal.IN_PLAY)
            seat = self.table.seat_for_person()  # a free seat, else a bot's
            if seat is None:
                raise Refused(Refusal.TABLE_FULL)
        self.table.sit(str(cid), seat)
        self._broadcast_lobby()

    def _stand(self, cid: int, m: p.Stand) -> None:
        self.table.stand(str(cid))
        self._broadcast_lobby()

    def _ready(self, cid: int, m: p.Ready) -> None:
        self.table.set_ready(str(cid), m.ready)
        self._broadcast_lobby()

    def _chat(self, cid: int, m: p.Chat) -> None:
        conn = self.conns[cid]
        conn.chat_times = [t for t in conn.chat_times if self._now - t < CHAT_WINDOW]
        if len(conn.chat_times) >= CHAT_BURST:
            self._send(cid, p.Reject(code=p.ErrorCode.RATE_LIMITED, text="slow down"))
            return
        conn.chat_times.append(self._now)
        line = self.table.chat(str(cid), m.text, self._now)
        self._say(f"<{line.name}> {line.text}")
        self._broadcast(p.Chat(text=line.text, sender=line.name[:32]))

    def _lobby(self) -> p.LobbyState:
        seats = []
        owner = None
        for s in self.table.seats:
            key = b""
            if s.kind == "bot":
                key = public_bytes(self.bot_keys[s.index])
            elif s.kind == "human" and s.client is not None:
                entry = self.table.clients.get(s.client)
                if entry is not None:
                    key = self.keys.get(entry.token, b"")
            if key and key == self.owner_key:
                owner = s.index
            connected = s.kind == "bot" or (s.kind == "human" and s.index not in self.away)
            seats.append(
                p.LobbySeat(
                    name=s.name[:32],
                    id=f"seat{s.index}" if s.kind != "empty" else "",
                    bot=s.kind == "bot",
                    ready=s.ready,
                    connected=connected and s.kind != "empty",
                    key=key,
                )
            )
        results = self.match.results
        return p.LobbyState(
            table=self.config.name[:32],
            rules=self.rules_name[:64],
            host=owner,
            seats=tuple(seats),
            spectators=sum(1 for c in self.table.clients.values() if c.spectator),
            playing=self.table.in_play,
            hands=len(results),
            scores=tuple(self.match.totals) if results else (),
            turn_timer=round(self.config.turn_timer),
        )

    def _broadcast_lobby(self) -> None:
        if self.conns and not self._quiet:
            self._broadcast(self._lobby())

    # -- connections -----------------------------------------------------------------------

    def _send(self, cid: int, message: p.Message) -> None:
        if not self._quiet:
            self.outbox.append((cid, message))

    def _broadcast(self, message: p.Message) -> None:
        if self._quiet:
            return
        for cid, conn in self.conns.items():
            if conn.welcomed:
                self.outbox.append((cid, message))

    def _close(self, cid: int, last: p.Error | p.Bye | None) -> None:
        """Close ``cid`` after ``last`` (None: silently — a dead link, which may resume)."""
        if cid in self.conns:
            if last is not None:
                self._send(cid, last)
            self.closing.append(cid)
            self._gone(cid, left=False)

    def _gone(self, cid: int, *, left: bool) -> None:
        """Connection ``cid`` is gone: its player keeps the seat (``left``: unless between
        hands, when a player who said ``bye`` gives the seat up)."""
        conn = self.conns.pop(cid, None)
        if conn is None:
            return
        entry = self.table.clients.get(str(cid))
        if entry is None:
            return
        if entry.seat is None or (left and not self.table.in_play):
            self.table.leave(str(cid))
            self.keys.pop(entry.token, None)
            self._say(f"{entry.name} left")
        else:
            self.table.disconnect(str(cid), self._now)
            if self.finished:
                return
            # Gone for good mid-hand: a stand-in plays at once; the seat is freed after it.
            self.away[entry.seat] = self._now - (self.config.away_grace if left else 0.0)
            if left:
                self.quit.add(entry.seat)
            self._say(f"{entry.name} " + ("left" if left else "is away"))
        self._broadcast_lobby()

    def _seat_client(self, seat: int) -> str | None:
        if not 0 <= seat < len(self.table.seats):
            return None
        return self.table.seats[seat].client

    def _seat_of(self, cid: int) -> int | None:
        """The seat ``cid`` plays in the current hand (None: it only watches)."""
        entry = self.table.clients.get(str(cid))
        if entry is None or self.hand is None:
            return None
        return entry.seat

    def _cid_of_seat(self, seat: int) -> int | None:
        client = self._seat_client(seat)
        if client is None:
            return None
        cid = int(client)
        return cid if cid in self.conns else None

    # -- the match and its hands -------------------------------------------------------------

    def _new_match(self, first_dealer: int = 0) -> Match:
        self.game_id = self.entropy(16)
        return Match(
            self.rules, self.config.seats, first_dealer=first_dealer, max_hands=self.config.hands
        )

    def _free_away_seats(self) -> bool:
        """Between hands, a player away longer than ``away_grace`` gives the seat up."""
        for seat, since in list(self.away.items()):
            if self._now >= since + self.config.away_grace:
                del self.away[seat]
                client = self._seat_client(seat)
                entry = self.table.clients.get(client or "")
                if entry is not None:
                    self.table.leave(entry.id)
                    self.keys.pop(entry.token, None)
                    self._say(f"{entry.name} gave up the seat")
                self._broadcast_lobby()
                return True
        return False

    def _seat_waiting(self) -> bool:
        """Between hands, a player who joined without a seat takes a free one, or a bot's
        (the policy is the table's: ``Table.seat_for_person``)."""
        entry = self.table.seat_waiting()
        if entry is None:
            return False
        self._say(self.table.seating_line(entry) or f"{entry.name} takes a seat")
        self._broadcast_lobby()
        return True

    def _can_start(self) -> bool:
        seats = self.table.seats
        humans = [s for s in seats if s.kind == "human"]
        return (
            not self.table.in_play
            and not self.finished
            and all(s.kind != "empty" for s in seats)
            and bool(humans)
            and all(s.ready and s.index not in self.away for s in humans)
        )

    def _start_hand(self) -> None:
        if self.match.over:  # a rematch: the scores start again, the deal moves on
            self.match = self._new_match(self.match.dealer)
        self.table.start(HOST_ID)
        game = self.match.new_hand()
        pids = tuple(f"seat{i}" for i in range(self.config.seats))
        keys: dict[str, bytes] = {DEALER: public_bytes(self.key)}
        bot_keys: dict[int, Ed25519PrivateKey] = {}
        bots: dict[int, Bot] = {}
        for s in self.table.seats:
            if s.kind == "bot":
                bot_keys[s.index] = self.bot_keys[s.index]
                keys[pids[s.index]] = public_bytes(self.bot_keys[s.index])
                bots[s.index] = make_bot(s.bot, self.rules)
            else:
                entry = self.table.clients[s.client or ""]
                keys[pids[s.index]] = self.keys[entry.token]
        self.quit.clear()
        fair = FairHost(game, game_id=self.game_id, seats=pids, key=self.key, public_keys=keys)
        self.hand = _Hand(fair, game, pids, bot_keys, bots, turn_since=self._now)
        self._say(f"hand {game.hand_no} started, {self.table.seats[game.dealer].name} deals")
        self._broadcast_lobby()
        self._broadcast(self._hand_message())

    def _hand_message(self) -> p.Hand:
        """The ``hand`` message of the hand in progress (at its start, and to catch up)."""
        assert self.hand is not None
        setup = self.hand.fair.setup
        return p.Hand(
            game_id=setup.game_id,
            hand_no=setup.hand_no,
            seats=self.hand.pids,
            dealer=setup.dealer,
            out=setup.out,
            rules=setup.rules_toml,
            keys=self.hand.fair.public_keys,
        )

    def _catch_up(self, cid: int) -> None:
        """Bring a client that (re)joined during a hand up to date (SPEC § Resuming)."""
        h = self.hand
        assert h is not None
        seat = self._seat_of(cid)
        self._send(cid, self._hand_message())
        # Announces and steps in the order they were first sent: a round's context binds the
        # log up to it, so a client that rebuilds the hand from nothing (a restarted process)
        # must have the steps before a round to check that round's context.
        announces = iter(h.announces)
        pending = next(announces, None)
        for seq in range(h.seq + 1):
            while pending is not None and pending[0] <= seq:
                self._send(cid, pending[1])
                pending = next(announces, None)
            if seq < h.seq:
                events, log = h.steps[seq]
                shown = tuple(redact(e, seat) for e in events)
                self._send(cid, p.Events(seq=seq + 1, events=shown, log=log))
        self._send(cid, self._view(h, seat))
        if h.abort is not None:
            self._send(cid, h.abort)
        if h.over:
            self._send(cid, h.over_messages.get(seat) or h.over_messages[None])
            for r in h.reveals:
                self._send(cid, r)
            if h.heads_message is not None:
                self._send(cid, h.heads_message)

    def _view(self, h: _Hand, seat: int | None) -> p.SeatView:
        return p.SeatView.from_view(h.game.view(seat), h.seq, self._timer_ms(h))

    def _timer_ms(self, h: _Hand) -> int:
        if not self.config.turn_timer or h.game.result is not None:
            return 0
        if h.game.chance_request() is not None:
            return 0
        left = h.turn_since + self.config.turn_timer - self._now
        return max(0, int(left * 1000))

    def _step(
        self, h: _Hand, logged: list[LogEvent], events: list[Event], first: int | None = None
    ) -> None:
        """Send step ``seq`` to everyone: its events, redacted per viewer, then each view."""
        if not h.steps:  # the public log begins with the setup note, sent with the first step
            logged = [h.fair.setup.note, *logged]
        log = tuple(encode_event(e) for e in logged)
        h.steps.append((tuple(events), log))
        seq = h.seq
        h.turn_since = self._now
        if self._quiet:  # replaying a journal: nothing is sent
            return
        timer = self._timer_ms(h)
        shown: dict[int | None, tuple[p.Events, p.SeatView]] = {}
        private = any(e[0] in PRIVATE_KINDS for e in events)  # else all see the same events
        shared = tuple(redact(e, None) for e in events) if private else tuple(events)
        public = p.Events(seq=seq, events=shared, log=log)
        order = list(self.conns.values())
        if first is not None and first in self.conns:  # the mover hears first: its round trip
            order.insert(0, order.pop(order.index(self.conns[first])))
        for conn in order:
            cid = conn.cid
            if not conn.welcomed:
                continue
            seat = self._seat_of(cid)
            pair = shown.get(seat)
            if pair is None:
                # One events message for every viewer who sees the step as a spectator does
                # (all of them, unless cards were dealt or drawn): the server encodes it once.
                ev = public
                if private and seat is not None:
                    mine = tuple(redact(e, seat) for e in events)
                    if mine != public.events:
                        ev = p.Events(seq=seq, events=mine, log=log)
                view = p.SeatView.from_view(h.game.view(seat), seq, timer)
                pair = shown[seat] = (ev, view)
            self.outbox.append((cid, pair[0]))
            self.outbox.append((cid, pair[1]))

    def _advance(self, *, moves: bool = True) -> None:
        """Run the table forward as far as it can go without waiting (``moves``: including
        the moves the host makes itself)."""
        for _ in range(_ADVANCE_BOUND):
            if not self._advance_once(moves):
                return
        raise RuntimeError("the table did not settle")  # pragma: no cover - a bug

    def _advance_once(self, moves: bool) -> bool:
        h = self.hand
        if h is None:
            if self._free_away_seats() or self._seat_waiting():
                return True
            if self._can_start():
                self._start_hand()
                return True
            return False
        if h.over:
            return self._maybe_finish(h)
        game = h.game
        if game.result is not None:
            self._end_hand(h)
            return True
        if game.chance_request() is not None:
            return self._advance_round(h)
        seat = game.to_act()
        due = self._turn_due(h)
        if not moves or due is None or self._now < due:
            return False
        if seat in h.bots:
            view = game.view(seat)
            move = h.bots[seat].choose(view, self._rng)
        else:
            move = self._stand_in_move(h, seat)
        self._step(h, *h.fair.act(seat, move))
        return True

    def _turn_due(self, h: _Hand) -> float | None:
        """When the host itself moves for the seat to act (a bot, an away player, a timer)."""
        seat = h.game.to_act()
        if seat in h.bots:
            return h.turn_since + self.config.bot_delay
        times = []
        if seat in self.away:  # after one grace period a stand-in plays as promptly as a bot
            times.append(
                max(h.turn_since + self.config.bot_delay, self.away[seat] + self.config.away_grace)
            )
        if self.config.turn_timer:
            times.append(h.turn_since + self.config.turn_timer)
        return min(times) if times else None

    def _stand_in_move(self, h: _Hand, seat: int) -> int:
        legal = h.game.legal_moves()
        if seat in self.away:  # an away player: a stand-in plays as well as a bot would
            return make_bot("heuristic", self.rules).choose(h.game.view(seat), self._rng)
        for safe in (DRAW, PASS):  # the timer ran out: the move that gives nothing away
            if safe in legal:
                return safe
        return legal[0]

    # -- fair-deal rounds ------------------------------------------------------------------

    def _advance_round(self, h: _Hand) -> bool:
        fair = h.fair
        if not h.round_open:
            r, cards, rnd = fair.open_round()
            h.round_open, h.stage2 = True, False
            h.round_deadline = self._now + self.config.round_timeout
            self._announce(h, p.Announce(round=r, ctx=rnd.ctx, cards=cards))
            seeds = h.dealer_seeds[r] = {}
            for pid, key in self._own_participants(h):
                seed = seeds[pid] = self.entropy(32)
                c = commitment(rnd.ctx, pid, seed)
                rnd.commit(pid, c, sign_commitment(key, rnd.ctx, pid, c))
            return True
        r = len(fair.rounds) - 1
        _, rnd = fair.rounds[r]
        if rnd.state == RoundState.REVEAL and not h.stage2:
            h.stage2 = True
            commitments = {q: (c, rnd.commit_signatures[q]) for q, c in rnd.commitments.items()}
            cards = fair.rounds[r][0]
            self._announce(
                h, p.Announce(round=r, ctx=rnd.ctx, cards=cards, commitments=commitments)
            )
            for pid, key in self._own_participants(h):
                seed = h.dealer_seeds[r][pid]
                sig = sign_reveal(key, rnd.ctx, pid, rnd.commitments[pid], seed)
                rnd.reveal(pid, seed, sig)
            return True
        if rnd.state == RoundState.DONE:
            h.round_open = False
            self._step(h, *fair.close_round())
            return True
        if rnd.state == RoundState.FAILED and rnd.blame is not None:
            self._void(h, rnd.blame)
            return True
        waiting = rnd.waiting_for()
        quitters = {h.pids[seat] for seat in self.quit}
        if self._now >= h.round_deadline or (waiting and set(waiting) <= quitters):
            # The wait is over — or it waits only for players who said bye: no use waiting.
            self._void(h, rnd.abandon())
            return True
        return False

    def _own_participants(self, h: _Hand) -> Iterable[tuple[str, Ed25519PrivateKey]]:
        """The participants whose keys the host holds: its bots, then ``@dealer``."""
        for seat, key in h.bot_keys.items():
            yield h.pids[seat], key
        yield DEALER, self.key

    def _announce(self, h: _Hand, message: p.Announce) -> None:
        h.announces.append((h.seq, message))
        self._broadcast(message)

    def _void(self, h: _Hand, blame: Blame) -> None:
        if not h.steps:
            # Void before the first step: the public log (which the host signs) already holds
            # the setup note, sent with the first step. Send it now, in a step of its own, or
            # the seats' logs would be one event short of the host's signed head.
            self._step(h, [], [])
        r = len(h.fair.rounds) - 1
        cards, rnd = h.fair.rounds[r]
        if not h.stage2:  # failed while committing: show the commitments that did come
            sigs = rnd.commit_signatures
            partial = {q: (c, sigs[q]) for q, c in rnd.commitments.items()}
            self._announce(h, p.Announce(round=r, ctx=rnd.ctx, cards=cards, commitments=partial))
        record = h.fair.fail_round(blame)
        self._say(f"hand {h.game.hand_no} is void: {blame}")
        h.abort = p.Abort(
            round=record.round, fault=record.fault.name.lower(), culprits=record.culprits
        )
        self._broadcast(h.abort)

    def _commit(self, cid: int, m: p.Commit) -> None:
        h, pid, rnd = self._open_round(cid, m.round)
        if h is None or rnd is None:
            return
        if rnd.state != RoundState.COMMIT or pid in rnd.commitments:
            if rnd.commitments.get(pid) != m.commitment:  # a resent commitment is no news
                self._reject_fair(cid, f"round {m.round} takes no commitment from you now")
            return
        try:
            rnd.commit(pid, m.commitment, m.signature)
        except Blame as e:
            self._reject_fair(cid, str(e))

    def _reveal(self, cid: int, m: p.Reveal) -> None:
        h, pid, rnd = self._open_round(cid, m.round)
        if h is None or rnd is None:
            return
        if rnd.state != RoundState.REVEAL or not h.stage2 or pid in rnd.seeds:
            if rnd.seeds.get(pid) != m.seed:
                self._reject_fair(cid, f"round {m.round} takes no seed from you now")
            return
        try:
            rnd.reveal(pid, m.seed, m.signature)
        except Blame as e:
            if rnd.blame is None:  # else the round failed: the hand is void (advance sees it)
                self._reject_fair(cid, str(e))

    def _open_round(self, cid: int, r: int) -> tuple[_Hand | None, str, Round | None]:
        """The hand and round ``r`` of it, for ``cid``'s seat. A past round is returned too
        (its state is not COMMIT or REVEAL, so the callers take nothing from it): a client
        catching up sends again what it sent then, and the same message again is no news."""
        h = self.hand
        seat = self._seat_of(cid)
        if h is None or seat is None or not 0 <= r < len(h.fair.rounds):
            self._reject_fair(cid, f"round {r} is not open")
            return None, "", None
        rnd = h.fair.rounds[r][1]
        past = h.over or r != len(h.fair.rounds) - 1
        if past and rnd.state in (RoundState.COMMIT, RoundState.REVEAL):  # pragma: no cover
            self._reject_fair(cid, f"round {r} is not open")  # cannot be: it was dealt from
            return None, "", None
        return h, h.pids[seat], rnd

    def _reject_fair(self, cid: int, text: str) -> None:
        self._send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text=text[:500]))

    # -- moves -----------------------------------------------------------------------------

    def _move(self, cid: int, m: p.Move) -> None:
        h = self.hand
        seat = self._seat_of(cid)
        if h is None or h.over or seat is None or h.game.result is not None:
            self._send(cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="no hand", seq=m.seq))
            return
        game = h.game
        if game.chance_request() is not None or game.to_act() != seat:
            self._send(
                cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="not your turn", seq=m.seq)
            )
            return
        if m.seq != h.seq:
            text = f"that answered view {m.seq}; the table is at {h.seq}"
            self._send(cid, p.Reject(code=p.ErrorCode.STALE_VIEW, text=text, seq=m.seq))
            return
        try:
            logged, events = h.fair.act(seat, m.move)
        except IllegalMove as e:
            self._send(cid, p.Reject(code=p.ErrorCode.ILLEGAL_MOVE, text=str(e), seq=m.seq))
            return
        self._step(h, logged, events, first=cid)

    # -- the end of a hand -----------------------------------------------------------------

    def _end_hand(self, h: _Hand) -> None:
        h.over = True
        fair, game = h.fair, h.game
        result = game.result
        assert result is not None
        signed = fair.sign_head()
        head = (signed.count, signed.head, signed.signature)
        h.over_messages[None] = p.HandOver(
            reason=result.reason,
            placings=result.placings,
            scores=result.scores,
            hand_points=result.hand_points,
            head=head,
        )
        for seat in range(len(h.pids)):
            h.over_messages[seat] = p.HandOver(
                reason=result.reason,
                placings=result.placings,
                scores=result.scores,
                hand_points=result.hand_points,
                head=head,
                cards_signature=fair.sign_cards(seat),
            )
        for cid, conn in self.conns.items():
            if conn.welcomed:
                self._send(cid, h.over_messages[self._seat_of(cid)])
        for r in range(len(fair.rounds)):
            seeds, sigs = fair.reveals(r)
            msg = p.Reveals(round=r, seeds={q: (s, sigs.get(q, b"")) for q, s in seeds.items()})
            h.reveals.append(msg)
            self._broadcast(msg)
        ctx0 = fair.setup.ctx0
        h.heads[DEALER] = signed
        for seat, key in h.bot_keys.items():
            pid = h.pids[seat]
            sig = sign_log_head(key, ctx0, pid, signed.count, signed.head)
            h.heads[pid] = SignedHead(signed.count, signed.head, sig)
        h.heads_deadline = self._now + self.config.heads_timeout
        names = [self.table.seats[s].name for s in result.placings]
        self._say(
            f"hand {game.hand_no} over ({result.reason})" + (f": {names[0]} wins" if names else "")
        )

    def _log_head(self, cid: int, m: p.LogHead) -> None:
        """A seat's signed head: after the hand, of the whole log; during it, of the log so far
        — a player who leaves mid-hand signs what it saw, and the others' checks accept that
        prefix of their log from it (SPEC § Fair deal on the wire). A newer head replaces an
        older one; a head that is not of the log this host sent is refused, so no client can
        make the others' checks blame the host."""
        h = self.hand
        seat = self._seat_of(cid)
        if h is None or seat is None or h.heads_message is not None:
            self._reject_fair(cid, "no log head is wanted now")
            return
        pid = h.pids[seat]
        signed = SignedHead(m.count, m.head, m.signature)
        old = h.heads.get(pid)
        if old == signed:
            return  # sent again after a resume
        log = h.fair.log
        if (
            m.count > log.count
            or (old is not None and old.count >= m.count)
            or not verify_log_head(
                h.fair.public_keys[pid], h.fair.setup.ctx0, pid, m.count, m.head, m.signature
            )
            or _head_at(log, m.count) != m.head
        ):
            self._reject_fair(
                cid, "that log head is not of the log you were sent, or not signed with your key"
            )
            return
        h.heads[pid] = signed

    def _maybe_finish(self, h: _Hand) -> bool:
        if h.heads_message is None:
            # Every seat's head of the whole log is in — or, from a player who is gone, the
            # head it signed as it left — or the wait is over.
            full = h.fair.log.count
            waiting = [
                q
                for seat, q in enumerate(h.pids)
                if (hd := h.heads.get(q)) is None
                or (hd.count < full and self._cid_of_seat(seat) is not None)
            ]
            if waiting and self._now < h.heads_deadline:
                return False
            h.heads_message = p.LogHeads(
                heads={q: (s.count, s.head, s.signature) for q, s in h.heads.items()}
            )
            self._broadcast(h.heads_message)
        game = h.game
        self.match.record(game)
        self.hand = None
        self.table.hand_over()
        self._broadcast_lobby()
        if self.match.over:
            n = len(self.match.results)
            self._say(f"match over after {n} hand{'s' if n != 1 else ''}: {self.standings()}")
            if self.config.hands is not None:
                self.finished = True
                for cid in list(self.conns):
                    self._close(cid, p.Bye(reason=f"match over: {self.standings()}"[:500]))
        return True


def _head_at(log: Log, count: int) -> bytes:
    """The head of ``log``'s first ``count`` events (the chain is walked again only for a
    prefix: at a hand's end every seat signs the whole log, whose head the log keeps)."""
    if count == log.count:
        return log.head
    head = log_start(log.ctx0)
    for event in log.events[:count]:
        head = log_step(head, event)
    return head


def _unpack(raw: object, n: int) -> tuple[str, list[Any], bool, bytes]:
    if not isinstance(raw, bytes):
        raise ReplayError("the journal is empty" if raw is None else f"record {n} is not bytes")
    try:
        record = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except (ValueError, msgpack.UnpackException) as e:
        raise ReplayError(f"record {n} does not decode: {e}") from None
    if (
        not isinstance(record, list)
        or len(record) != 4
        or not isinstance(record[0], str)
        or not isinstance(record[1], list)
        or not isinstance(record[2], bool)
        or not isinstance(record[3], bytes)
    ):
        raise ReplayError(f"record {n} is not a journal record")
    return record[0], record[1], record[2], record[3]


def _replay_call(host: Host, name: str, values: list[Any], n: int) -> Callable[[], object]:
    """Record ``n``'s call on ``host``, its arguments decoded."""
    if name not in _REPLAYED:
        raise ReplayError(f"record {n} is a call the host does not take: {name!r}")
    args = list(values)
    try:
        if name == "receive":
            args[1] = p.decode_frame_payload(args[1])
        elif name == "set_rules":
            args[0] = _parse_rules(args[0])
    except (IndexError, TypeError, p.ProtocolError) as e:
        raise ReplayError(f"record {n} ({name}) does not decode: {e}") from None
    method = getattr(host, name)
    return lambda: method(*args)


_HANDLERS: dict[type[p.Message], Callable[[Host, int, Any], None]] = {
    p.Sit: Host._sit,
    p.Stand: Host._stand,
    p.Ready: Host._ready,
    p.Chat: Host._chat,
    p.Move: Host._move,
    p.Commit: Host._commit,
    p.Reveal: Host._reveal,
    p.LogHead: Host._log_head,
}
