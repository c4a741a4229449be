"""The table: connections, the handshake, the lobby, the match between hands, the journal,
the calls a shell makes (see the package docstring) — and the hand in play, which it holds as
a :class:`~lanswitch.host._deal.HandDriver` and never tells apart from the other deal's.

Why one module of some 1,000 lines, one class of some 930: everything here reads and writes one
state together — who is connected, seated, ready, away or gone (``conns``, ``table``,
``away``, ``quit``, ``keys``) — and each call a shell makes touches most of it (a dropped link
changes the lobby, the hand's watch and the seat's grace at once). The split that did pay is
done: the hand, the part with two implementations, is a driver in a module of its own per
deal (``_commit``, ``_blind``, behind ``_deal``), the settings are in ``_config``, the
journal's records and replay in ``_journal``. Cutting the rest across files meant a class
spread over several by inheritance, which is what the host was before, and what made a
message's handler hard to find.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Self

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .. import protocol as p
from ..bots import BOTS, Bot, level_of, make_bot
from ..fairdeal.blind.crypto import point_problem
from ..game import Game, Match
from ..rules import RuleSet
from ..search import SeededRng
from ..table import Client, Refusal, Refused, Table
from ._blind import BlindHand
from ._commit import CommitHand
from ._config import (
    ADVANCE_BOUND,
    CHAT_BURST,
    CHAT_WINDOW,
    HANDSHAKE_TIMEOUT,
    HOST_ID,
    LIMITED,
    LOG_KEEP,
    MAX_CLIENTS,
    PING_AFTER,
    PONG_WAIT,
    RATE_LIMIT,
    REFUSAL_CODES,
    Conn,
    HostConfig,
)
from ._deal import HAND_MESSAGES, Deal, HandDriver, HandStart, Watch, not_taken
from ._decide import Decision, key_of
from ._journal import (
    Decisions,
    Entropy,
    ReplayError,
    Tape,
    config_from_record,
    config_record,
    journaled,
    replay_call,
    to_record,
    unpack_record,
)

__all__ = ["Host"]


class Host:
    """One table's host: see the package docstring for how a shell drives it.

    It keeps the connections, the lobby, the match and the journal, and *holds* the hand in
    play as a :class:`~lanswitch.host._deal.HandDriver` — one of the two deals below — which
    it never tells apart (it is the driver's :class:`~lanswitch.host._deal.Tableside`)."""

    commit_hand: Deal = CommitHand
    """How a commit-reveal hand is dealt and run."""
    blind_hand: Deal = BlindHand
    """How a dealer-blind hand is dealt and run. (A dishonest host, in the tests that play one
    against untouched clients, plugs in a driver that cheats for either.)"""

    def __init__(
        self,
        config: HostConfig,
        *,
        entropy: Callable[[int], bytes],
        now: float,
        journal: bool = False,
        asks: bool = False,
    ) -> None:
        self.inputs: list[bytes] = []  # journal records not yet taken by the shell
        self.journaling = False
        self._depth = 0
        self.quiet = False  # replaying: nothing is sent
        self._entropy = Entropy(entropy)
        self._entropy.keep = journal
        self._decisions = Decisions()
        self._decisions.keep = journal
        self.asks = False
        """Whether a searching bot's move is asked of the shell (:attr:`asking`) rather than
        made here, inside the call that needs it (``_decide``'s docstring says why). Set by
        :meth:`ask_from_now`, which the journal keeps: a replay asks from where the host
        that wrote it began to."""
        self.asking: Decision | None = None
        """The bot's move the hand waits for, asked of the shell: it runs
        :func:`~lanswitch.host._decide.decide` on it and calls :meth:`decided`."""
        self._answer: tuple[tuple[int, int, int], int] | None = None
        self.searching = False
        """The hand in play has a bot whose moves this host will ask for (a shell may get
        ready to answer: the server starts its worker then, not at the first question)."""
        entropy = self.entropy = self._entropy
        self.config = config
        self.rules = config.rules
        self.rules_name = config.rules_name or config.rules.name
        self.blind = config.blind
        """Whether the next hand is dealt dealer-blind (``config.blind`` at first; the host's
        player may change it between hands: :meth:`set_blind`)."""
        self.bot_level = config.bot_strategy
        """How every bot of the table plays (``config.bot_strategy`` at first; the host's
        player may change it between hands: :meth:`set_bot_level`)."""
        self.hints = config.hints
        """Whether the players may ask for a suggested move (:meth:`set_hints`)."""
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
        for seat in range(config.seats - config.bots, config.seats):
            self.add_bot(seat)
        self.conns: dict[int, Conn] = {}
        self.keys: dict[str, bytes] = {}  # resume token → the session key it was issued with
        self.away: dict[int, float] = {}  # seat → since when its player is away
        self.freed: set[int] = set()  # seats given up mid-match, for a bot if no one takes them
        self.quit: set[int] = set()  # seats whose players said bye during this hand
        self.outbox: list[tuple[int, p.Message]] = []
        self.closing: list[int] = []
        self.log: list[str] = []  # what happened, for a headless host to print (the latest)
        self.log_start = 0  # how many earlier lines were let go (a long session's memory)
        self.match = self._new_match()
        self.hand: HandDriver | None = None
        """The hand in play, however it is dealt (``_deal``), until it is settled."""
        self.last_hand: HandDriver | None = None
        """The hand before this one, ended: a player who resumes between hands is caught up
        on it."""
        self.finished = False  # the match is over and every client was told
        self._owner_key: bytes | None = None  # the host's own player (lobby.host)
        self.last_cid = 0  # the highest connection id seen (a resumed server numbers on)
        self._now = now
        if journal:
            self.journaling = True
            self._record("init", [config_record(config), now], False)
        if asks:
            self.ask_from_now()

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

    @journaled
    def set_owner(self, key: bytes | None) -> None:
        self._owner_key = key
        self.broadcast_lobby()

    def log_since(self, n: int) -> tuple[list[str], int]:
        """The log lines from line ``n`` on (counted over the whole session) and the count
        after them: a shell prints ``lines`` and asks again from ``count``."""
        return self.log[max(0, n - self.log_start) :], self.log_start + len(self.log)

    def bot_move(self, bot: Bot, game: Game, seat: int) -> int | None:
        """``bot``'s move for ``seat`` in ``game`` (a hand's bot, or a stand-in for a player
        who is away). Its randomness is a :class:`~lanswitch.search.SeededRng` seeded by 16
        bytes of the shell's entropy, so the journal keeps 16 bytes a decision however many
        numbers the bot draws; the move is kept with the call's record, and a replay plays it
        back instead of deciding again. The seed is drawn replaying too, as it was live.

        A host that ``asks`` does not search here: the first call puts the decision in
        :attr:`asking` and answers None; once the shell's answer is in (:meth:`decided`,
        whose record keeps the move), the next call for the same hand, step and seat answers
        it. (A journal written before hosts asked kept such a move with the call's record:
        a record that still holds one plays it back.)"""
        if not self._asks_for(bot, game) or self._decisions.holds_move():
            seed = self.entropy(16)
            return self._decisions.decide(lambda: bot.act(game, seat, SeededRng(seed)))
        key = key_of(game.hand_no, len(game.log), seat)
        if self._answer is not None and self._answer[0] == key:
            move = self._answer[1]
            self._answer = None
            return move
        self.think_ahead(bot, game, seat)  # the question, unless it is out already
        return None

    def think_ahead(self, bot: Bot, game: Game, seat: int) -> None:
        """``seat``'s turn has begun and ``bot`` waits out the table's bot delay: a host that
        asks puts the question out now, so that the search runs while the delay does and the
        bot moves at the pace of any other (its move is played once both are done)."""
        if self.to_ask(bot, game, seat):
            self.asking = Decision.of(bot.name, game, seat, self.entropy(16))

    def to_ask(self, bot: Bot, game: Game, seat: int) -> bool:
        """Whether ``bot``'s move at ``seat`` is a question this host has yet to put out: it
        asks, the bot searches, and nothing was asked or answered for this step yet."""
        if not self._asks_for(bot, game):
            return False
        key = key_of(game.hand_no, len(game.log), seat)
        answered = self._answer is not None and self._answer[0] == key
        return not answered and (self.asking is None or self.asking.key != key)

    def _asks_for(self, bot: Bot, game: Game) -> bool:
        """Whether ``bot``'s move in ``game`` is asked of the shell: this host asks, the bot
        searches, it can search this hand (not a dealer-blind one, whose own cards the engine
        does not know), and there is a choice to make (a single legal move is played at
        once, where the round trip to a worker would only add to it)."""
        return self.asks and bot.searches and not game.blind and len(game.legal_moves()) > 1

    @journaled
    def ask_from_now(self) -> None:
        """From here on, searching bots' moves are asked of the shell (:attr:`asks`)."""
        self.asks = True

    def awaits_move(self, game: Game, seat: int) -> bool:
        """Whether ``seat``'s move in ``game`` as it stands is asked of the shell, unanswered."""
        asked = self.asking
        return asked is not None and asked.key == key_of(game.hand_no, len(game.log), seat)

    @journaled
    def decided(self, hand_no: int, steps: int, seat: int, move: int, now: float) -> None:
        """The shell's answer to :attr:`asking` (its key: the hand, its log's length, the
        seat), made at ``now``. An answer to anything but the question out now is stale (the
        hand moved on, or ended) and changes nothing."""
        self._now = now
        asked = self.asking
        if asked is None or asked.key != key_of(hand_no, steps, seat):
            return
        self._answer, self.asking = (asked.key, move), None
        self._advance()

    def say(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > 2 * LOG_KEEP:  # keep the latest; a shell has printed the rest
            del self.log[:LOG_KEEP]
            self.log_start += LOG_KEEP

    # -- the journal ---------------------------------------------------------------------------

    def _record(self, name: str, values: list[object], raised: bool) -> None:
        drawn = bytes(self._entropy.drawn)
        self._entropy.drawn.clear()
        moves = list(self._decisions.made)
        self._decisions.made.clear()
        record = [name, [to_record(v) for v in values], raised, drawn, moves]
        self.inputs.append(msgpack.packb(record, use_bin_type=True))

    @classmethod
    def restore(
        cls, records: Iterable[bytes], *, entropy: Callable[[int], bytes], asks: bool = False
    ) -> Self:
        """A host in the state the journal ``records`` leave it in, journaling on from there
        (``asks``: asking from then on, whatever the host that wrote them did; a question left
        unanswered at the journal's end is in :attr:`asking` again, for the shell to ask).

        The connections open when the journal ends are still open in it: the shell tells it
        they are gone (:meth:`drop_connections`). ReplayError if the journal does not replay.
        """
        it = iter(records)
        name, values, _, drawn, _ = unpack_record(next(it, None), 1)
        if name != "init" or len(values) != 2 or not isinstance(values[1], float | int):
            raise ReplayError("the journal does not begin with the table's settings")
        tape = Tape(drawn)
        host = cls(config_from_record(values[0]), entropy=tape, now=values[1])
        if tape.at != len(tape.data):
            raise ReplayError("the table's settings do not replay as they ran")
        host.quiet = True
        calls = host._journaled_calls()
        for n, raw in enumerate(it, 2):
            name, values, raised, drawn, moves = unpack_record(raw, n)
            tape = Tape(drawn)
            host._decisions.play_back(moves)
            host._entropy.source = tape
            call = replay_call(calls, name, values, n)
            try:
                call()
                failed = False
            except ReplayError:
                raise
            except Exception:  # the live host raised here too (the shell went on): the same
                failed = True
            if failed != raised or tape.at != len(tape.data) or not host._decisions.played_back():
                raise ReplayError(f"record {n} ({name}) does not replay as it ran")
        host._decisions.play_back(None)
        host._decisions.keep = True
        host._entropy.source = entropy
        host._entropy.keep = True
        host.quiet = False
        host.outbox.clear()
        host.closing.clear()
        host.journaling = True
        if asks and not host.asks:  # a journal of a host that made its moves in place
            host.ask_from_now()
        return host

    def _journaled_calls(self) -> dict[str, Callable[..., object]]:
        """The calls a journal may hold, by the name its records give (each ``@journaled``)."""
        return {
            "connect": self.connect,
            "receive": self.receive,
            "disconnected": self.disconnected,
            "tick": self.tick,
            "shutdown": self.shutdown,
            "add_bot": self.add_bot,
            "remove_bot": self.remove_bot,
            "set_rules": self.set_rules,
            "set_blind": self.set_blind,
            "set_bot_level": self.set_bot_level,
            "set_hints": self.set_hints,
            "kick": self.kick,
            "give_up": self.give_up,
            "set_owner": self.set_owner,
            "decided": self.decided,
            "ask_from_now": self.ask_from_now,
        }

    def drop_connections(self, now: float) -> None:
        """Every connection is gone (the shell restarted): their players are away."""
        for cid in list(self.conns):
            self.disconnected(cid, now)

    # -- the shell's calls ---------------------------------------------------------------------

    @journaled
    def connect(self, cid: int, now: float) -> None:
        """A connection opened (TLS done); its ``hello`` comes next."""
        self._now = now
        self.last_cid = max(self.last_cid, cid)
        if self.finished:
            self._close(cid, p.Bye(reason="the match is over"))
            return
        self.conns[cid] = Conn(cid, now, opened=now)
        if len(self.conns) > MAX_CLIENTS:
            self._close(cid, p.Error(code=p.ErrorCode.TABLE_FULL, text="this table is full"))

    @journaled
    def receive(self, cid: int, message: p.Message, now: float) -> None:
        """A message from connection ``cid``, already checked by its Connection."""
        self._now = now
        conn = self.conns.get(cid)
        if conn is None:
            return
        conn.heard, conn.pinged = now, None
        if now - conn.window >= 1.0:
            conn.window, conn.count, conn.requests = now, 0, 0
        conn.count += 1
        # Requests a person makes (moves, chat, seats, pings) are limited: beyond RATE_LIMIT a
        # second they are refused, beyond three times that the connection is closed. The fair
        # deal's answers and pongs are never dropped (a client that was only fast would break
        # the deal; extra ones are refused cheaply by the round), but a flood of anything past
        # ten times the limit closes the connection too.
        limited = isinstance(message, LIMITED)
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
                self.send(cid, p.Reject(code=p.ErrorCode.RATE_LIMITED, text=text, seq=seq))
            return
        if isinstance(message, p.Hello):
            closed = len(self.closing)
            self._hello(conn, message)
            if not conn.welcomed and self.closing[closed:] == [cid]:
                # Turned away, and nothing else changed: there is nothing to advance (and the
                # shell may leave this connection out of the journal: _journal's docstring).
                return
        elif isinstance(message, p.Bye | p.Error):
            self._gone(cid, left=isinstance(message, p.Bye))
        elif isinstance(message, p.Ping):
            self.send(cid, p.Pong(nonce=message.nonce))
        elif isinstance(message, p.Pong):
            pass
        elif isinstance(message, HAND_MESSAGES):  # the hand in play's, whichever deal
            if self.hand is None:
                self.send(cid, not_taken(message))
            else:
                self.hand.receive(cid, message)
        elif isinstance(message, p.Sit | p.Stand | p.Ready | p.Chat):
            try:
                self._lobby_message(cid, message)
            except Refused as e:
                code = REFUSAL_CODES.get(e.refusal, p.ErrorCode.NOT_NOW)
                self.send(cid, p.Reject(code=code, text=e.refusal.value))
        else:  # a host-only message the Connection let through: a bug there
            self._close(cid, p.Error(code=p.ErrorCode.UNEXPECTED, text=message.TYPE))
            return
        # The host's own moves (bots, stand-ins, the timer) wait for the next tick, so what
        # this message caused goes out first; with no bot delay that tick is due at once.
        self._advance(moves=False)

    @journaled
    def disconnected(self, cid: int, now: float) -> None:
        """The connection ended (stream closed, reset, or the shell dropped it)."""
        self._now = now
        self._gone(cid, left=False)
        self._advance(moves=False)

    @journaled
    def tick(self, now: float) -> None:
        """Time passed: liveness, timers, bots."""
        self._now = now
        # Each test is written as ``now >= start + delay``, the very sum next_deadline()
        # returns, so a tick at that deadline always acts (``now - start >= delay`` can miss
        # it by a rounding error, and the shell would wake again and again at the same time).
        watch = self._watch()
        for conn in list(self.conns.values()):
            if now < self._conn_due(conn, self._seat_watch(conn, watch)):
                continue
            if conn.welcomed and conn.pinged is None:
                conn.pinged = now
                self.send(conn.cid, p.Ping(nonce=int(now * 1000) & 0xFFFFFFFF))
            else:  # its hello, or its answer to our ping, is overdue
                self._close(conn.cid, None)
        self._advance()

    def _seat_watch(self, conn: Conn, watch: Watch) -> Watch:
        """``watch`` for ``conn``: a seated player is watched at ``PING_AFTER`` all hand long,
        whatever the hand says of its viewers. Its seat is played by a stand-in once its link
        is down past the grace, and every screen says so at once and counts down to it: a
        link cut while another seat acts must be noticed within seconds, not at the next
        ``IDLE_PING_AFTER`` (20 s: a 10 s cut was noticed only when the player resumed,
        "away" and "back" in the same instant). Only spectators are left to the idle pace."""
        after, awaited, since = watch
        if after > PING_AFTER and self.seat_of(conn.cid) is not None:
            return PING_AFTER, awaited, since
        return watch

    @staticmethod
    def _conn_due(conn: Conn, watch: Watch) -> float:
        """When ``conn`` next needs the host: the end of its time to say hello, to answer our
        ping, or (neither pending) its ping, on :meth:`_watch`'s terms."""
        if not conn.welcomed:
            return conn.opened + HANDSHAKE_TIMEOUT
        if conn.pinged is not None:
            return conn.pinged + PONG_WAIT
        after, awaited, since = watch
        if conn.cid == awaited:
            return max(conn.heard, since) + PING_AFTER
        return conn.heard + after

    def _watch(self) -> Watch:
        """How closely the host watches its connections now: the silence after which it pings
        each, and the one connection it waits on more closely than that (or None) with when
        it began to. By default everyone at ``PING_AFTER`` (the lobby, fair-deal rounds); the
        hand in play may say otherwise (``HandDriver.watch``)."""
        watch = None if self.hand is None else self.hand.watch()
        return (PING_AFTER, None, 0.0) if watch is None else watch

    def next_deadline(self) -> float | None:
        """When :meth:`tick` should next run (None: only when a message comes)."""
        watch = self._watch()
        times = [self._conn_due(c, self._seat_watch(c, watch)) for c in self.conns.values()]
        if self.hand is None:
            times += [since + self.config.seat_limit for since in self.away.values()]
        else:
            due = self._hand_deadline()
            if due is not None:
                times.append(due)
        return min(times) if times else None

    @journaled
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

    @journaled
    def add_bot(self, seat: int, strategy: str | None = None) -> None:
        """A bot sits in the free ``seat``, playing ``strategy`` (None: the table's level,
        :attr:`bot_level`)."""
        self.table.add_bot(HOST_ID, seat, self.bot_level if strategy is None else strategy)
        if hasattr(self, "conns"):
            self.broadcast_lobby()

    @journaled
    def remove_bot(self, seat: int) -> None:
        self.table.remove_bot(HOST_ID, seat)
        self.broadcast_lobby()

    @journaled
    def set_rules(self, rules: RuleSet, name: str = "") -> None:
        self.table.set_rules(HOST_ID, rules)
        self.rules, self.rules_name = rules, name or rules.name
        self.match = self._new_match()
        self.broadcast_lobby()

    @journaled
    def set_blind(self, on: bool) -> None:
        """Deal the next hands dealer-blind (``on``) or by commit-reveal. Between hands only
        (Refused IN_PLAY, as the rules); never at a table with a turn timer (TIMED_BLIND).
        The seated players confirm again, as after new rules: they agreed to another deal.
        The match goes on (how a hand is dealt does not change its score)."""
        if on and self.config.turn_timer:
            raise Refused(Refusal.TIMED_BLIND)
        if on == self.blind:
            return
        self.table.set_deal(HOST_ID)
        self.blind = on
        self.say(
            "the next hands are dealt dealer-blind"
            if on
            else "the next hands are dealt by commit-reveal (not dealer-blind)"
        )
        self.broadcast_lobby()

    @journaled
    def set_bot_level(self, level: str) -> None:
        """Every bot plays ``level`` (a name of :data:`~lanswitch.bots.BOTS`: ``easy``,
        ``normal``, ``hard``) from the next hand, and every bot added later too. Between
        hands only (Refused IN_PLAY, as the rules); the seated players confirm again, as after
        new rules. The match goes on."""
        if level not in BOTS:
            raise Refused(Refusal.UNKNOWN_BOT)
        if level_of(level) == level_of(self.bot_level):
            return
        self.table.set_bot_level(HOST_ID, level)
        self.bot_level = level
        played = self.last_hand is not None  # before the first hand, "the next" is the first
        self.say(f"the bots play {level_of(level)}" + (" from the next hand" if played else ""))
        self.broadcast_lobby()

    @journaled
    def set_hints(self, on: bool) -> None:
        """Allow the players to ask their program for a suggested move (``on``), or ask them
        not to: a courtesy each client keeps (the hint is made from the seat's own view, so it
        shows nobody anything hidden). Between hands only, as every setting of the table."""
        if self.table.in_play:
            raise Refused(Refusal.IN_PLAY)
        if on == self.hints:
            return
        self.hints = on
        self.say("hints are allowed at this table" if on else "hints are off at this table")
        self.broadcast_lobby()

    @journaled
    def kick(self, seat: int) -> None:
        entry = self._seat_client(seat)
        if entry is None:
            raise Refused(Refusal.NO_SUCH_CLIENT)
        cid = int(entry)
        self.table.kick(HOST_ID, entry)
        if cid in self.conns:
            self._close(cid, p.Error(code=p.ErrorCode.KICKED, text="the host removed you"))
        self.broadcast_lobby()

    @journaled
    def give_up(self, seat: int) -> None:
        """Between hands, give up now the seat of a player who is away, instead of keeping it
        for ``seat_limit`` (a friend's laptop died, and the table would rather play on): it is
        freed as ``seat_limit`` would free it, and a bot takes it where the table was set up
        with bots. Should the player come back, it joins again as anyone would."""
        if self.table.in_play:
            raise Refused(Refusal.IN_PLAY)
        if seat not in self.away:
            raise Refused(Refusal.NO_SUCH_CLIENT)
        self._free_seat(seat)

    def free_seats(self) -> int:
        return self.table.free_seats()

    def seat_names(self) -> list[str]:
        """Each seat's name now, for a fair-deal text's ids (``primitives.named``)."""
        return [s.name for s in self.table.seats]

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
        if m.over:  # every hand void (Match._decide): nobody won one
            return f"nobody wins: every hand was void ({unit}: {figures})"
        return f"{unit}: {figures}"

    # -- handshake and lobby ---------------------------------------------------------------

    def _hello(self, conn: Conn, hello: p.Hello) -> None:
        cid = conn.cid
        if hello.version != p.PROTOCOL_VERSION:
            text = f"this host speaks protocol {p.PROTOCOL_VERSION}, you sent {hello.version}"
            self._close(cid, p.Error(code=p.ErrorCode.VERSION_MISMATCH, text=text))
            return
        if not hello.spectate and point_problem(hello.key) is not None:
            # A player's key is a point of Ed25519's prime-order group, as every key a client
            # makes is (SPEC § Points received): any other cannot be sealed to at a blind table
            # (the sealer's libsodium refuses it) and is no key to sign with.
            text = "your key is not an Ed25519 public key"
            self._close(cid, p.Error(code=p.ErrorCode.BAD_MESSAGE, text=text))
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
            self.say(f"{entry.name} is back")
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
                        key_in_use=self._key_in_use(hello.key),
                    )
                    break
                except Refused as e:
                    if e.refusal is not Refusal.NAME_TAKEN:
                        code = REFUSAL_CODES.get(e.refusal, p.ErrorCode.BAD_MESSAGE)
                        self._close(cid, p.Error(code=code, text=e.refusal.value))
                        return
            if entry is None:
                self._close(cid, p.Error(code=p.ErrorCode.BAD_MESSAGE, text="name taken"))
                return
            self.keys[entry.token] = hello.key
            self.say(f"{entry.name} joined" + (" to watch" if hello.spectate else ""))
            seated = self.table.seating_line(entry)  # people before bots: where they sit
            if seated is not None:
                self.say(seated)
        if entry is None:  # pragma: no cover - every path above sets it or returns
            return
        conn.key, conn.welcomed = hello.key, True
        self.send(
            cid,
            p.Welcome(
                version=p.PROTOCOL_VERSION,
                table=self.config.name[:32],
                seat=entry.seat,
                token=entry.token.encode("ascii"),
            ),
        )
        self.broadcast_lobby()
        if not self.quiet:
            self._catch_up(cid, resumed=hello.token is not None)

    def _key_in_use(self, key: bytes) -> bool:
        """Whether someone at the table — seated, waiting, watching, or away with the seat
        kept — joined with session key ``key``."""
        return any(self.keys.get(c.token) == key for c in self.table.clients.values())

    def _lobby_message(self, cid: int, m: p.Sit | p.Stand | p.Ready | p.Chat) -> None:
        """A request of the lobby's (Refused: the table says no, and why)."""
        if isinstance(m, p.Sit):
            self._sit(cid, m)
        elif isinstance(m, p.Stand):
            self.table.stand(str(cid))
            self.broadcast_lobby()
        elif isinstance(m, p.Ready):
            self.table.set_ready(str(cid), m.ready)
            self.broadcast_lobby()
        else:
            self._chat(cid, m)

    def _sit(self, cid: int, m: p.Sit) -> None:
        seat = m.seat
        if seat is None:
            if self.table.in_play:
                raise Refused(Refusal.IN_PLAY)
            seat = self.table.seat_for_person()  # a free seat, else a bot's
            if seat is None:
                raise Refused(Refusal.TABLE_FULL)
        self.table.sit(str(cid), seat)
        self.broadcast_lobby()

    def _chat(self, cid: int, m: p.Chat) -> None:
        conn = self.conns[cid]
        conn.chat_times = [t for t in conn.chat_times if self._now - t < CHAT_WINDOW]
        if len(conn.chat_times) >= CHAT_BURST:
            self.send(cid, p.Reject(code=p.ErrorCode.RATE_LIMITED, text="slow down"))
            return
        conn.chat_times.append(self._now)
        line = self.table.chat(str(cid), m.text, self._now)
        self.say(f"<{line.name}> {line.text}")
        self.broadcast(p.Chat(text=line.text, sender=line.name[:32]))

    def _lobby(self) -> p.LobbyState:
        seats = []
        owner = None
        for s in self.table.seats:
            key = b""  # a bot has no key of its own: what it does is the host's
            if s.kind == "human" and s.client is not None:
                entry = self.table.clients.get(s.client)
                if entry is not None:
                    key = self.keys.get(entry.token, b"")
            if key and key == self.owner_key:
                owner = s.index
            connected = s.kind == "bot" or (s.kind == "human" and s.index not in self.away)
            # Mid-hand, how long the away player's grace has left: every screen counts down
            # to the stand-in from the host's own deadline (the clients' clocks are not ours).
            since = self.away.get(s.index) if self.hand is not None else None
            grace = 0.0 if since is None else since + self.config.away_grace - self._now
            seats.append(
                p.LobbySeat(
                    name=s.name[:32],
                    id=f"seat{s.index}" if s.kind != "empty" else "",
                    bot=s.kind == "bot",
                    ready=s.ready,
                    connected=connected and s.kind != "empty",
                    key=key,
                    grace_ms=max(0, math.ceil(grace * 1000)),
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
            # Under rules that keep no points the match is a series of hands: its score is the
            # hands each seat won (a spectator who came after hand 1 has no other way to know).
            scores=tuple(
                self.match.wins if self.rules.scoring.mode == "none" else self.match.totals
            )
            if results
            else (),
            turn_timer=round(self.config.turn_timer),
            blind=self.blind,
            bot_level=level_of(self.bot_level),
            hints=self.hints,
        )

    def broadcast_lobby(self) -> None:
        """The lobby to every welcomed connection, each with its own ``you``: its seat by
        the host's word (SPEC § lobby). Those without a seat share one message, so the
        server encodes it once."""
        if not self.conns or self.quiet:
            return
        lobby = self._lobby()
        for cid, conn in self.conns.items():
            if conn.welcomed:
                entry = self.table.clients.get(str(cid))
                seat = None if entry is None else entry.seat
                self.outbox.append((cid, lobby if seat is None else replace(lobby, you=seat)))

    # -- connections -----------------------------------------------------------------------

    def send(self, cid: int, message: p.Message) -> None:
        if not self.quiet:
            self.outbox.append((cid, message))

    def broadcast(self, message: p.Message) -> None:
        if self.quiet:
            return
        for cid, conn in self.conns.items():
            if conn.welcomed:
                self.outbox.append((cid, message))

    def _close(self, cid: int, last: p.Error | p.Bye | None) -> None:
        """Close ``cid`` after ``last`` (None: silently — a dead link, which may resume)."""
        if cid in self.conns:
            if last is not None:
                self.send(cid, last)
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
            self.say(f"{entry.name} left")
        else:
            self.table.disconnect(str(cid), self._now)
            if self.finished:
                return
            # Gone for good mid-hand: the host plays the seat at once, and frees it after the
            # hand. Lost: the player is waited for (away_grace mid-hand, seat_limit in all).
            gone = max(self.config.away_grace, self.config.seat_limit) if left else 0.0
            self.away[entry.seat] = self._now - gone
            if left:
                self.quit.add(entry.seat)
            self.say(f"{entry.name} " + ("left" if left else "is away"))
        self.broadcast_lobby()

    def _seat_client(self, seat: int) -> str | None:
        if not 0 <= seat < len(self.table.seats):
            return None
        return self.table.seats[seat].client

    def seat_of(self, cid: int) -> int | None:
        """The seat the client on ``cid`` holds (None: it only watches)."""
        entry = self.table.clients.get(str(cid))
        return None if entry is None else entry.seat

    def conn_key(self, cid: int) -> bytes | None:
        conn = self.conns.get(cid)
        return None if conn is None else conn.key

    def viewers(self, first: int | None = None) -> list[tuple[int, int | None]]:
        """Every welcomed connection with its client's seat, in the order they connected
        (``first`` at the front: the mover hears of its step first, its round trip)."""
        clients = self.table.clients
        order: list[tuple[int, int | None]] = []
        for cid, conn in self.conns.items():
            if conn.welcomed:
                entry = clients.get(str(cid))
                seat = None if entry is None else entry.seat
                if cid == first:
                    order.insert(0, (cid, seat))
                else:
                    order.append((cid, seat))
        return order

    def gone_for_good(self, seat: int) -> bool:
        """A player of this hand whose link has been down longer than the grace, or who said
        goodbye: the hand goes on without it."""
        since = self.away.get(seat)
        return since is not None and (
            self._now >= since + self.config.away_grace or seat in self.quit
        )

    def cid_of_seat(self, seat: int) -> int | None:
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
        """Between hands, a player away longer than ``seat_limit`` (or who said goodbye
        mid-hand) gives the seat up."""
        for seat, since in list(self.away.items()):
            if self._now >= since + self.config.seat_limit:
                self._free_seat(seat)
                return True
        return False

    def _free_seat(self, seat: int) -> None:
        """The away player of ``seat`` gives it up (it may join again, as anyone would)."""
        del self.away[seat]
        client = self._seat_client(seat)
        entry = self.table.clients.get(client or "")
        if entry is not None:
            self.table.leave(entry.id)
            self.keys.pop(entry.token, None)
            self.say(f"{entry.name} gave up the seat")
        self.freed.add(seat)
        self.broadcast_lobby()

    def _fill_freed_seats(self) -> bool:
        """Between hands, where the table was set up with bots, a bot takes a seat given up
        mid-match that no waiting person took (people first: they are seated before this)."""
        for seat in sorted(self.freed):
            self.freed.discard(seat)
            if self.config.bots and self.table.seats[seat].kind == "empty":
                self.add_bot(seat)
                return True
        return False

    def _seat_waiting(self) -> bool:
        """Between hands, a player who joined without a seat takes a free one, or a bot's
        (the policy is the table's: ``Table.seat_for_person``)."""
        entry = self.table.seat_waiting()
        if entry is None:
            return False
        self.say(self.table.seating_line(entry) or f"{entry.name} takes a seat")
        self.broadcast_lobby()
        return True

    def _can_start(self) -> bool:
        """A hand starts when every seat is filled — or, once the match has begun, when at
        least two are (a seat given up mid-match sits the hands out until someone takes it) —,
        at least one by a person, and every seated person is ready and there."""
        seats = self.table.seats
        humans = [s for s in seats if s.kind == "human"]
        filled = sum(s.kind != "empty" for s in seats)
        return (
            not self.table.in_play
            and not self.finished
            and (filled == len(seats) or (bool(self.match.results) and filled >= 2))
            and bool(humans)
            and all(s.ready and s.index not in self.away for s in humans)
        )

    def _between_hands(self) -> bool:
        """One change the lobby makes between hands (a seat given up or taken, a hand
        started); False when there is none."""
        if self._free_away_seats() or self._seat_waiting() or self._fill_freed_seats():
            return True
        if self._can_start():
            self._start_hand()
            return True
        return False

    def _hand_done(self, game: Game) -> None:
        """A hand is over and settled: score it, open the lobby, and end the match if it is
        over (and the table with it, when it had a set number of hands or too many voids)."""
        self.match.record(game)
        self.hand = None
        self.asking = self._answer = None  # a question left out was about a hand now over
        self.quit.clear()
        self.table.hand_over()
        self.broadcast_lobby()
        if self.match.over:
            n = len(self.match.results)
            self.say(f"match over after {n} hand{'s' if n != 1 else ''}: {self.standings()}")
            if self.config.hands is not None or self.match.voids >= self.rules.scoring.void_limit:
                self.finished = True
                for cid in list(self.conns):
                    self._close(cid, p.Bye(reason=f"match over: {self.standings()}"[:500]))

    # -- the hand in play (a HandDriver: _deal) ------------------------------------------------

    def _start_hand(self) -> None:
        """Deal a new hand of the match to the seats as they are, the way the table deals
        now (:attr:`blind`): the table holds it as :attr:`hand` until it is settled."""
        if self.match.over:  # a rematch: the scores start again, the deal moves on
            self.match = self._new_match(self.match.dealer)
        empty = [s.index for s in self.table.seats if s.kind == "empty"]
        self.table.start(HOST_ID)
        game = self.match.new_hand(absent=empty)
        pids = tuple(f"seat{i}" for i in range(self.config.seats))
        keys: dict[str, bytes] = {}
        bots: dict[int, Bot] = {}
        for s in self.table.seats:
            if s.kind == "bot":
                bots[s.index] = make_bot(s.bot, self.rules)
            elif s.kind == "human" and s.index in game.dealt_in:
                # (A person the match has put out sits at the table and takes no part.)
                entry = self.table.clients[s.client or ""]
                keys[pids[s.index]] = self.keys[entry.token]
        names = tuple(s.name[:32] for s in self.table.seats)  # as the lobby shows them
        self.searching = self.asks and not self.blind and any(b.searches for b in bots.values())
        start = HandStart(game, self.game_id, pids, keys, bots, names, self.key)
        deal = self.blind_hand if self.blind else self.commit_hand
        self.hand = deal(self, start)

    def _advance(self, *, moves: bool = True) -> None:
        """Run the table forward as far as it can go without waiting (``moves``: including
        the moves the host makes itself)."""
        for _ in range(ADVANCE_BOUND):
            if not self._advance_once(moves):
                return
        raise RuntimeError("the table did not settle")  # pragma: no cover - a bug

    def _advance_once(self, moves: bool) -> bool:
        h = self.hand
        if h is None:
            return self._between_hands()
        if h.settled:
            self._hand_done(h.game)
            self.last_hand = h
            return True
        return h.advance(moves)

    def _catch_up(self, cid: int, *, resumed: bool) -> None:
        """Bring a client that (re)joined up to date on the hand in progress (SPEC §
        Resuming). Between hands, a player who resumes gets the last hand again, in case it
        lost its end (its verdict needs it)."""
        h = self.hand
        if h is None and resumed:
            h = self.last_hand
        if h is not None:
            h.catch_up(cid)

    def _hand_deadline(self) -> float | None:
        """When the hand in progress next needs a tick."""
        h = self.hand
        if h is None:
            return None
        return self.now if h.settled else h.deadline()
