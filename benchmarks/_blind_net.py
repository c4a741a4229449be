"""The machinery of ``benchmarks/fairness.py --blind-net``: real tables over TLS on loopback.

One table is one match of ``hands`` hands: the real :class:`lanswitch.server.Server` around a
real :class:`lanswitch.host.Host` in a child process of its own (spawned: the host's figures
are the host's, and on a 2-core machine it has one core and the people the other), bound to
127.0.0.1 with TLS (the host's identity made in a temporary directory, its fingerprint pinned
by the clients); the people as real :class:`lanswitch.client.Client` shells around real
:class:`lanswitch.session.Session` objects in ``client_procs`` other spawned processes
(shared round-robin), playing as headless heuristic bots with no think time; the host's own
seats (if any) its bots with ``bot_delay`` 0. This process only starts them and gathers.

Nothing of lanswitch is changed: the host and the sessions are subclasses that only write
down, on the system-wide monotonic clock (``time.perf_counter``, ``CLOCK_MONOTONIC`` on
Linux, so the processes' times compare), when things happen:

* the host: when each ``hand`` goes out, when the hand's deal is applied and (blind) every
  card of its bots' seats is open to it, when it takes each move, when ``hand_over`` goes
  out, and its process's CPU time;
* each session: when ``hand`` arrives, when its own dealt cards are all known to it (the
  commit-reveal deal: the first ``view`` after ``hand``; blind: the deal applied by its own
  follower and every key of its cards unsealed), each draw of its own from just before the
  move is made (and signed) to the first moment the drawn cards are all known to it with no
  reshuffle awaited (and whether a reshuffle came between), and when its verdict of the hand
  is written.

Every person connects from 127.0.0.1, so the server's per-address limits are raised to the
table's size (people at a LAN table come from as many addresses); each person connects once
the one before it is welcomed. Every wait is bounded: a table has ``limit`` seconds, the
children are joined with a timeout and ended by their own handles if they do not stop. Only
127.0.0.1 is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import dataclasses
import io
import itertools
import multiprocessing as mp
import os
import pstats
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import fairdeal as fd
from lanswitch import protocol as p
from lanswitch.blindsession import BlindPart
from lanswitch.bots import Bot, make_bot
from lanswitch.client import Client, Target
from lanswitch.game import DRAW, HIDDEN_BASE, Phase
from lanswitch.host import Host, HostConfig
from lanswitch.host._blind import BlindHand
from lanswitch.rules import PRESETS, RuleSet
from lanswitch.server import Limits, Server
from lanswitch.session import Session
from lanswitch.tls import load_or_create_identity, server_context

LOOPBACK = "127.0.0.1"

clock = time.perf_counter
RESHUFFLE = int(Phase.RESHUFFLE)


def rules_of(name: str) -> RuleSet:
    """``switch``, or ``big``: Switch with hands so big that the stock runs out at once (1 to
    19 cards left after the deal at 2..8 players: 11, 6, 3, 1, 19, 19, 7), so draws soon need
    a reshuffle."""
    switch = PRESETS["switch"]
    if name == "switch":
        return switch
    if name == "big":
        sizes = (20, 15, 12, 10, 14, 12, 12)  # 2..8 players (6+: two decks)
        return dataclasses.replace(switch, deal=dataclasses.replace(switch.deal, hand_size=sizes))
    raise ValueError(f"no rule set {name!r}")


@dataclass(frozen=True, slots=True)
class TableSpec:
    """One table to play: ``people`` headless client bots, ``bots`` host bots."""

    blind: bool
    people: int
    bots: int
    rules: str
    hands: int
    limit: float

    @property
    def mode(self) -> str:
        return "blind" if self.blind else "commit-reveal"


# --- the host's process ----------------------------------------------------------------------


class TimedHost(Host):
    """A host that writes down when each hand's milestones go out (module docstring)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.marks: dict[int, dict[str, float]] = {}
        self.moves: dict[int, list[float]] = {}  # when the host took each move of the hand
        self._current = -1
        self._scanned = 0  # moves (blind) or log events (commit-reveal) already seen
        self._cpu0 = 0.0

    def receive(self, cid: int, message: p.Message, now: float) -> None:
        super().receive(cid, message, now)
        self._look()

    def tick(self, now: float) -> None:
        super().tick(now)
        self._look()

    def _look(self) -> None:
        t = clock()
        for _, m in self.outbox:
            if isinstance(m, p.Hand) and m.hand_no not in self.marks:
                self._current, self._scanned = m.hand_no, 0
                self.marks[m.hand_no] = {"hand": t}
                self.moves[m.hand_no] = []
                self._cpu0 = time.process_time()
        marks = self.marks.get(self._current)
        if marks is None:
            return
        self._scan(t)
        if "dealt" not in marks and self._dealt():
            marks["dealt"] = t
        if "over" not in marks and any(isinstance(m, p.HandOver) for _, m in self.outbox):
            marks["over"] = t
            marks["cpu"] = time.process_time() - self._cpu0
            marks["turns"] = self._turns()

    def _scan(self, t: float) -> None:
        """Note the moves the host took since it last looked (all at ``t``)."""
        h: Any = self.hand if self.hand is not None else self.last_hand
        if h is None:
            return
        part = getattr(h, "part", None)
        if part is not None:
            n = len(part.follower.moves)
            new = n - self._scanned
        else:
            events = h.dealer.log.events
            n = len(events)
            new = sum(isinstance(e, fd.Move) for e in events[self._scanned :])
        self.moves[self._current] += [t] * new
        self._scanned = n

    def _turns(self) -> int:
        """The turns the hand's engine counted: a length both deals measure alike (a blind
        hand has more moves for as many turns: where only a pass is legal, its engine waits
        for the player's pass instead of ending the turn itself)."""
        h: Any = self.hand if self.hand is not None else self.last_hand
        if h is None:
            return 0
        part = getattr(h, "part", None)
        game = part.follower.game if part is not None else h.dealer.game
        return int(game.turns)

    def _dealt(self) -> bool:
        """The hand's first deal is applied and every card of the host's bots is known to it."""
        h = self.hand
        if h is None:
            return False
        if isinstance(h, BlindHand):
            f = h.part.follower
            if ("shuffle", 0) not in f.steps:
                return False
            return all(f.game.hands[s] >> HIDDEN_BASE == 0 for s in h.bots)
        return h.seq > 0


def host_main(pipe: Pipe, spec: TableSpec, tmp: str, profile: str) -> None:
    """The host's process: serve one match on 127.0.0.1, then send back what it wrote down."""
    ident = load_or_create_identity(Path(tmp) / "host-identity")
    seats = spec.people + spec.bots
    config = HostConfig(
        name="bench",
        rules=rules_of(spec.rules),
        seats=seats,
        bots=spec.bots,
        bot_delay=0.0,
        hands=spec.hands,
        round_timeout=10.0,
        heads_timeout=10.0,
        away_grace=5.0,
        seat_limit=10.0,
        blind=spec.blind,
    )
    host = TimedHost(config, entropy=os.urandom, now=time.monotonic())
    prof = cProfile.Profile() if profile else None
    error = ""

    async def main() -> None:
        # People at a LAN table come from as many addresses; here all from 127.0.0.1.
        limits = Limits(pending_per_address=max(4, seats), per_address=max(8, seats))
        server = Server(host, ssl_context=server_context(ident), address=LOOPBACK, limits=limits)
        await server.start()
        pipe.send(("ready", server.port, ident.fingerprint))
        try:
            async with asyncio.timeout(spec.limit):
                await server.wait_finished()
        finally:
            await server.close()

    cpu0 = time.process_time()
    try:
        if prof is not None:
            prof.enable()
        asyncio.run(main())
    except BaseException as e:  # reported to the parent, which says so
        error = f"{type(e).__name__}: {e}"
    finally:
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
    pipe.send(("done", host.marks, host.moves, time.process_time() - cpu0, error))
    pipe.close()


# --- the people's process --------------------------------------------------------------------


@dataclass(slots=True)
class Draw:
    """One draw of a person's, timed from just before its move was made."""

    start: float
    seq: int
    before: int
    shuffles: int
    end: float = 0.0
    cards: int = 0
    reshuffle: bool = False
    reshuffled: int = 0  # cards in the reshuffle, if one came between


class TimedSession(Session):
    """A session that writes down when its own milestones happen (module docstring)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.marks: dict[int, dict[str, float]] = {}
        self.draws: list[Draw] = []
        self.pending: Draw | None = None
        self._announced = 0  # the cards of a commit-reveal round announced since the draw

    def receive(self, message: p.Message) -> list[p.Message]:
        t = clock()
        if isinstance(message, p.Hand) and message.hand_no not in self.marks:
            self.marks[message.hand_no] = {"hand": t}
            self.pending = None
        if isinstance(message, p.Announce) and not message.fixed and self.pending is not None:
            self.pending.reshuffle = True
            self.pending.reshuffled = len(message.cards)
        records = len(self.history)
        replies = super().receive(message)
        h = self.hand
        if h is None:
            return replies
        marks = self.marks.setdefault(h.message.hand_no, {})
        if "dealt" not in marks and self._dealt(message):
            marks["dealt"] = clock()
        if isinstance(message, p.HandOver) and "over" not in marks:
            marks["over"] = clock()
        if len(self.history) > records:
            marks.setdefault("verdict", clock())
        d = self.pending
        if d is not None:
            held = self._held(message)
            if held is not None and held > d.before:
                d.end, d.cards = clock(), held - d.before
                self._shuffles_since(d)
                self.draws.append(d)
                self.pending = None
        return replies

    def move(self, move: int) -> p.Move | p.BlindMove:
        t = clock()
        before = self._count()
        message = super().move(move)
        self.pending = None
        if move == DRAW and before is not None:
            f = self._follower()
            self.pending = Draw(t, message.seq, before, 0 if f is None else len(f.shuffles))
        return message

    def _follower(self) -> Any:
        h = self.hand
        return None if h is None or not isinstance(h.part, BlindPart) else h.part.follower

    def _count(self) -> int | None:
        """Cards held now, as this client knows them (hidden ones counted)."""
        f = self._follower()
        if f is not None:
            if self.seat is None:
                return None
            return int(f.game.hands[self.seat]).bit_count()
        v = self.view
        return None if v is None else len(v.hand)

    def _held(self, message: p.Message) -> int | None:
        """Cards held, once every one of them is known and no reshuffle is awaited (the
        engine reshuffles as soon as a draw empties the stock, and pays what the draw still
        owes after it): None until then."""
        f = self._follower()
        if f is not None:
            if self.seat is None or f.open_shuffle is not None or f.game.phase == RESHUFFLE:
                return None
            hand = int(f.game.hands[self.seat])
            return None if hand >> HIDDEN_BASE else hand.bit_count()
        if isinstance(message, p.SeatView) and message.phase != RESHUFFLE:
            return len(message.hand)
        return None

    def _dealt(self, message: p.Message) -> bool:
        f = self._follower()
        if f is not None:
            if self.seat is None or ("shuffle", 0) not in f.steps:
                return False
            return int(f.game.hands[self.seat]) >> HIDDEN_BASE == 0
        return isinstance(message, p.SeatView) and message.seq >= 1

    def _shuffles_since(self, d: Draw) -> None:
        f = self._follower()
        if f is not None and len(f.shuffles) > d.shuffles:
            d.reshuffle = True
            d.reshuffled = f.shuffles[-1].n


def _chooser(name: str) -> Callable[[Session], int]:
    """A headless heuristic bot, made once per rule set (making one costs ~0.5 ms: not a
    cost of either deal, so not one to put in every move's round trip)."""
    rng = random.Random(name)
    bots: dict[int, Bot] = {}

    def choose(s: Session) -> int:
        assert s.rules is not None
        assert s.view is not None
        bot = bots.get(id(s.rules))
        if bot is None:
            bots.clear()
            bot = bots[id(s.rules)] = make_bot("heuristic", s.rules)
        return bot.choose(s.view, rng)

    return choose


@dataclass
class TableRun:
    """What one table's match gave: every hand's marks, host's and people's."""

    spec: TableSpec
    host: dict[int, dict[str, float]] = field(default_factory=dict)
    moves: dict[int, list[float]] = field(default_factory=dict)
    people: list[dict[int, dict[str, float]]] = field(default_factory=list)
    draws: list[Draw] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    host_cpu: float = 0.0
    client_cpu: float = 0.0
    wall: float = 0.0
    error: str = ""


async def _play(
    spec: TableSpec, names: list[str], port: int, fingerprint: bytes
) -> tuple[list[TimedSession], str]:
    """Seat ``names`` at the table (one after another: each welcomed before the next
    connects, as people arrive) and play until the host ends the match."""
    target = Target("bench", (LOOPBACK,), port, fingerprint, f"{LOOPBACK}:{port}")
    sessions: list[TimedSession] = []
    tasks: list[asyncio.Task[None]] = []
    error = ""
    try:
        async with asyncio.timeout(spec.limit):
            for name in names:
                s = TimedSession(
                    name,
                    key=Ed25519PrivateKey.generate(),
                    entropy=os.urandom,
                    auto_ready=True,
                    clock=time.monotonic,
                )
                sessions.append(s)
                c = Client(s, target, chooser=_chooser(name), think=0.0, reconnect_for=5.0)
                tasks.append(asyncio.create_task(c.run()))
                for _ in range(1000):  # at most 10 s
                    if s.lobby is not None or tasks[-1].done():
                        break
                    await asyncio.sleep(0.01)
            results = await asyncio.gather(*tasks, return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        if failed:
            error = f"a client failed: {type(failed[0]).__name__}: {failed[0]}"
    except TimeoutError:
        error = f"the match did not end within {spec.limit:g} s"
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return sessions, error


def clients_main(
    pipe: Pipe, spec: TableSpec, names: list[str], port: int, fingerprint: bytes, profile: str
) -> None:
    """A people's process: play ``names`` at the table, then send back what they wrote down."""
    prof = cProfile.Profile() if profile else None
    cpu0 = time.process_time()
    sessions: list[TimedSession] = []
    try:
        if prof is not None:
            prof.enable()
        sessions, error = asyncio.run(_play(spec, names, port, fingerprint))
    except BaseException as e:  # reported to the parent, which says so
        error = f"{type(e).__name__}: {e}"
    finally:
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
    statuses: list[str] = []
    for s in sessions:
        for r in s.history:
            statuses.append("none" if r.judgement is None else r.judgement.status)
    marks = [s.marks for s in sessions]
    draws = [d for s in sessions for d in s.draws]
    pipe.send(("done", marks, draws, statuses, time.process_time() - cpu0, error))
    pipe.close()


def run_table(spec: TableSpec, client_procs: int = 1, profile_dir: str = "") -> TableRun:
    """Play ``spec``'s match: the host in a child process, the people in ``client_procs``
    others (module docstring)."""
    out = TableRun(spec)
    ctx = mp.get_context("spawn")
    tag = f"{spec.mode}-{spec.people}p{spec.bots}b-{spec.rules}"

    def prof(who: str) -> str:
        return str(Path(profile_dir) / f"{who}-{tag}.prof") if profile_dir else ""

    procs: list[BaseProcess] = []
    with tempfile.TemporaryDirectory(prefix="lanswitch-blind-net-") as tmp:
        ours, theirs = ctx.Pipe()
        host = ctx.Process(target=host_main, args=(theirs, spec, tmp, prof("host")), daemon=True)
        host.start()
        procs.append(host)
        try:
            if not ours.poll(30.0):
                out.error = "the host process did not start within 30 s"
                return out
            _, port, fingerprint = ours.recv()
            names = [f"p{i}" for i in range(spec.people)]
            k = max(1, min(client_procs, spec.people))
            pipes = []
            t0 = clock()
            for i in range(k):
                a, b = ctx.Pipe()
                args = (b, spec, names[i::k], port, fingerprint, prof(f"clients{i}"))
                proc = ctx.Process(target=clients_main, args=args, daemon=True)
                proc.start()
                procs.append(proc)
                pipes.append(a)
            deadline = time.monotonic() + spec.limit + 30.0
            for a in pipes:
                if not a.poll(max(0.0, deadline - time.monotonic())):
                    out.error = out.error or "a people's process sent nothing back"
                    continue
                _, marks, draws, statuses, cpu, error = a.recv()
                out.people += marks
                out.draws += draws
                out.statuses += statuses
                out.client_cpu += cpu
                out.error = out.error or error
            out.wall = clock() - t0
            if ours.poll(30.0):
                _, out.host, out.moves, out.host_cpu, host_error = ours.recv()
                out.error = out.error or host_error
            else:
                out.error = out.error or "the host process sent nothing back"
        finally:
            for child in procs:
                child.join(10.0)
                if child.is_alive():
                    child.kill()  # our own child, by its handle
                    child.join(5.0)
    return out


# --- figures ---------------------------------------------------------------------------------


def _ms(x: float) -> float:
    return round(x * 1000, 2)


def deal_times(run: TableRun, *, every: bool = False) -> list[float | None]:
    """Per hand: from ``hand`` sent to the last participant knowing all its dealt cards
    (``every``: None for a hand where that never came, else such hands are left out)."""
    out: list[float | None] = []
    for hand_no, marks in run.host.items():
        ends = [m[hand_no]["dealt"] for m in run.people if "dealt" in m.get(hand_no, {})]
        if len(ends) < run.spec.people or "dealt" not in marks:
            if every:
                out.append(None)
            continue
        out.append(max([*ends, marks["dealt"]]) - marks["hand"])
    return out


@dataclass(frozen=True, slots=True)
class HandTimes:
    """One whole hand, by the host's clock and the people's (seconds from ``hand`` going
    out): the deal known to everyone, the last move taken, ``hand_over`` going out, the last
    person's verdict; its moves and turns, and the gaps between consecutive moves taken."""

    dealt: float
    last_move: float
    over: float
    verdict: float
    moves: int
    turns: int
    gaps: tuple[float, ...]


def hand_times(run: TableRun) -> list[HandTimes]:
    """Every hand that was played out and judged by every person."""
    out = []
    deals = dict(zip(run.host, deal_times(run, every=True), strict=True))
    for hand_no, marks in run.host.items():
        ends = [m[hand_no]["verdict"] for m in run.people if "verdict" in m.get(hand_no, {})]
        moves = run.moves.get(hand_no, [])
        dealt = deals[hand_no]
        if "over" not in marks or len(ends) < run.spec.people or not moves or dealt is None:
            continue
        t0 = marks["hand"]
        gaps = tuple(b - a for a, b in itertools.pairwise(moves))
        out.append(
            HandTimes(
                dealt,
                moves[-1] - t0,
                marks["over"] - t0,
                max(ends) - t0,
                len(moves),
                int(marks.get("turns", 0)),
                gaps,
            )
        )
    return out


def draw_times(run: TableRun, kind: str) -> list[float]:
    """Draws of one kind: ``draw`` (one card), ``pickup`` (several), ``reshuffle`` (any draw
    that waited for a reshuffle)."""
    got = []
    for d in run.draws:
        k = "reshuffle" if d.reshuffle else "draw" if d.cards == 1 else "pickup"
        if k == kind:
            got.append(d.end - d.start)
    return got


def median_ms(xs: list[float]) -> float | None:
    return _ms(statistics.median(xs)) if xs else None


def summary(run: TableRun) -> dict[str, Any]:
    """One table's figures (milliseconds, medians over its hands or draws)."""
    hands = hand_times(run)
    resh = [d.reshuffled for d in run.draws if d.reshuffle]
    deals = [x for x in deal_times(run) if x is not None]
    played = max(1, len(run.host))
    return {
        "mode": run.spec.mode,
        "people": run.spec.people,
        "host_bots": run.spec.bots,
        "rules": run.spec.rules,
        "hands": len(run.host),
        "hands_timed": len(hands),
        "error": run.error,
        "verdicts": sorted(set(run.statuses)),
        "deal_ms": median_ms(deals),
        "draw_ms": median_ms(draw_times(run, "draw")),
        "draws": len(draw_times(run, "draw")),
        "pickup_ms": median_ms(draw_times(run, "pickup")),
        "pickups": len(draw_times(run, "pickup")),
        "reshuffle_ms": median_ms(draw_times(run, "reshuffle")),
        "reshuffles": len(resh),
        "reshuffled_cards": statistics.median(resh) if resh else None,
        "hand_to_over_ms": median_ms([h.over for h in hands]),
        "hand_to_verdict_ms": median_ms([h.verdict for h in hands]),
        "moves": statistics.median([h.moves for h in hands]) if hands else None,
        "turns": statistics.median([h.turns for h in hands]) if hands else None,
        "move_gap_ms": median_ms([g for h in hands for g in h.gaps]),
        "phases_ms": {
            "deal": median_ms([h.dealt for h in hands]),
            "play": median_ms([h.last_move - h.dealt for h in hands]),
            "end": median_ms([h.over - h.last_move for h in hands]),
            "verdicts": median_ms([h.verdict - h.over for h in hands]),
        },
        "per_hand": [[h.turns, _ms(h.over), _ms(h.verdict), h.moves] for h in hands],
        "host_cpu_ms_per_hand": _ms(run.host_cpu / played),
        "clients_cpu_ms_per_hand": _ms(run.client_cpu / played),
        "wall_s": round(run.wall, 2),
    }


def profile_text(path: str, top: int = 14) -> str:
    """The top functions of a cProfile dump by their own time."""
    buf = io.StringIO()
    with contextlib.suppress(OSError):
        st = pstats.Stats(path, stream=buf)
        st.sort_stats("tottime").print_stats(top)
    lines = buf.getvalue().splitlines()
    start = next((i for i, ln in enumerate(lines) if "ncalls" in ln), 0)
    return "\n".join(ln for ln in lines[start:] if ln.strip())
