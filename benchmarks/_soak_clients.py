"""The client side of ``benchmarks/soak.py``: client slots that keep joining and leaving.

Each slot is a loop of *visits* to its table until the soak ends. A visit opens a pinned TLS
connection to 127.0.0.1 (:func:`lanswitch.tls.open_pinned_connection`), says ``hello`` as a
player (most visits) or a spectator, and runs a fresh :class:`lanswitch.session.Session` — the
real client logic, fair deal included — over a sans-I/O :class:`lanswitch.protocol.Connection`:
the same core :class:`lanswitch.client.Client` runs, under a leaner shell of our own. Why not
:class:`~lanswitch.client.Client` itself: its shell reconnects by itself with backoff and hides
a failure it retried, while this soak must decide when and how each visit ends (a ``bye``, a
dropped socket, a drop then a resume), and must see and count every failure. The shell costs
little beside the Session; the load generator's CPU is printed to show it is not the limit.

Signature checks are made afresh: ``lanswitch.fairdeal.primitives.VERIFIED`` (a memo of the
signatures a process has verified) is replaced here by one that keeps nothing
(``_latency_harness.forget_verified``). Hundreds of clients in one process check the same
moves; with one shared memo only the first would pay for each, where every player's laptop
checks each move itself.

A visit, as a person would make it:

* **seated** (a free seat, or a seat given between hands to a player who waited): it says
  ready (the Session's ``auto_ready``), and in the hand plays ``moves`` of its own turns —
  a random legal move after a short think — then leaves: cleanly with ``bye`` (the seat is
  kept for the hand, its signed head of the log so far goes before the ``bye``, the log says
  it left and a stand-in plays it, and it is freed after the hand), abruptly (the socket
  dropped mid-hand: a laptop closing; after the host's grace the log says its link was lost and
  a stand-in plays it), or by dropping and, after a short pause,
  *resuming* with the token to the same seat of the same hand, playing a few more turns and
  leaving with ``bye``. A few seated visits *stay* for the whole hand, so their Session
  verifies the hand's transcript (the deal fair, every move signed, every card legal) as every
  real client does.
* **watching** (a spectator, or a player with no free seat waiting for one): it watches for a
  few seconds (catching up on the hand in progress, then following it) and leaves, mostly
  with ``bye``, sometimes abruptly. A waiting player seated between hands becomes a seated
  visit.

Then the slot pauses and visits again with a new name and key: the population churns.

Errors are counted by kind, never retried away: a failed connect or handshake, no
``welcome``, any ``error`` or ``reject`` from the host (but one, below), a ``bye`` the slot did
not cause, a lost connection, a protocol violation, a Session warning (a fair-deal check that
failed, a gap in the events), an UNFAIR verdict (every party here is honest), a void hand or an
unconfirmed verdict not explained by one of our leavers, and a hang: every wait is bounded (a
welcome, an answer to a move, a turn in a hand in play, the host closing after ``bye``, a
stayer's verdict).

The ``reject``s that are not errors: a commitment to a round the host had just withdrawn
(a participant went away while it was committing, SPEC § Round states) that crossed the
withdrawal on the wire. The host refuses it (``fair_deal``, "takes no commitment from you
now", as SPEC § "What the host does" says), and the client learns of the withdrawal from the
next round's stage 1, which is already in its hands when the refusal comes. It is counted
(``late_commit_withdrawn``) and checked: the refused round was never fixed and a later one
was announced. Likewise a move refused as ``stale_view`` because the log said someone went
away (or came back) while it was on its way: a presence step is a step of its own (SPEC § Going
away), so the seat to act is shown a new view in the middle of its turn and a move already sent
answers the old one. It is counted (``move_stale_after_presence``) once checked: every log
event since the move was signed is an ``Away`` or a ``Back``. Any other refusal is an error.
(So a move counts as answered only by a view after a step whose log has the move itself: a
newer view alone may be that presence step's.)

Verdicts, protocol v2 (``lanswitch.fairdeal.verdict``), as the stayers' Sessions give them:

* **fair** — counted, and apart those with someone away (``Verdict.away``: a player who said
  goodbye mid-hand, ``left``, or whose link the host says was lost, ``lost``): people leaving
  no longer void a hand, the host's stand-in plays the seat on;
* **unconfirmed** — counted, with the cause of each missing confirmation: which seat, and what
  our slot in that seat did (said goodbye, dropped, dropped to resume, before or after the
  hand's end reached it) — the host logs no one away once the hand is over, so a player who
  leaves between the hand's end and its head is the expected cause. One that no leaver of ours
  explains (a person present to the end whose head is missing) is an error;
* **void** — counted with its cause (the fault and culprits of the ``abort``, seen live by
  every Session at the table, and the stayers' void verdicts). A void whose culprits are seats
  our players left is counted as *void because someone left* — issue #13's target is 0 of
  them, so they are reported on their own, with what each leaver did; any other void is an
  error (``abort:unexplained``);
* **unfair** — always an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import ssl
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from typing import Any

from _latency_harness import _pipe_queue, forget_verified, raise_nofile, sleep_until
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import protocol as p
from lanswitch.commitseat import CommitPart
from lanswitch.fairdeal import BY_SEAT, Away, Back, Move, SeatRecorder, Verdict
from lanswitch.session import SEED_WAIT_S, Session
from lanswitch.tls import open_pinned_connection

CONNECT_TIMEOUT_S = 10.0  # TCP connect + TLS handshake + the pin check
WELCOME_TIMEOUT_S = 10.0  # hello → welcome
MOVE_TIMEOUT_S = 10.0  # move → the view after it
BYE_TIMEOUT_S = 10.0  # bye → the host closes the connection
TURN_TIMEOUT_S = 45.0  # seated in a hand in play, and no turn of ours (nor any step) came
#: A stayer's hand, from its deal to its verdict. Generous: a hand of switch has a long tail
#: (this soak saw one of 8 reshuffles, over 5 minutes at the bots' 0.6 s a move); a stalled
#: hand is caught sooner by ``TURN_TIMEOUT_S``.
STAYER_TIMEOUT_S = 900.0
IDLE_LEAVE_S = 20.0  # a seated player whose table starts no hand in this long goes home
ERRORS_KEPT = 30  # the first lines of this many errors are kept (all are counted)
READ_SIZE = 65536
CAUSES_KEPT = 40  # the words of this many unconfirmed and void causes are kept (all counted)
RECENT_S = 10.0  # a seat left this long (plus the host's grace) before an abort explains it
#: The host's refusal of a commitment to a round that is no longer committing.
_NO_COMMITMENT = re.compile(r"^round (\d+) takes no commitment from you now")


@dataclass(frozen=True, slots=True)
class Mix:
    """The shares of each kind of visit (the rest of the players' leaves are clean)."""

    spectate: float = 0.15  # visits that watch as spectators
    abrupt: float = 0.15  # leaves that drop the socket without a word
    resume: float = 0.15  # seated leaves that drop, then resume with the token
    stay: float = 0.06  # seated visits that play the hand out and check its transcript
    steady_every: int = 10  # every n-th table is steady: all its seated visits stay
    moves: tuple[int, int] = (1, 5)  # own turns a seated visit plays
    think_s: tuple[float, float] = (0.2, 0.8)  # before each move
    watch_s: tuple[float, float] = (3.0, 12.0)  # a watching visit's length
    pause_s: tuple[float, float] = (1.0, 4.0)  # between visits
    resume_pause_s: tuple[float, float] = (0.2, 1.5)  # between the drop and the resume


@dataclass(slots=True)
class Tally:
    """What one client process counted: events by kind, errors by kind, the first errors."""

    counts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    first: list[str] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)  # the first unconfirmed and void causes

    def error(self, kind: str, text: str = "") -> None:
        self.errors[kind] += 1
        if len(self.first) < ERRORS_KEPT:
            self.first.append(f"{time.monotonic():.1f} {kind}: {text}"[:500])

    def cause(self, text: str) -> None:
        if len(self.causes) < CAUSES_KEPT:
            self.causes.append(text[:500])

    def as_dict(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "errors": dict(self.errors),
            "first": self.first,
            "causes": self.causes,
        }


@dataclass(frozen=True, slots=True)
class Departure:
    """How one of our players left a seat during a hand (before the hand's log heads came)."""

    how: str  # "bye" | "drop" | "resume" (dropped, to come back with its token) | "failed"
    at: float  # time.monotonic()
    saw_over: bool  # its Session had the hand's ``hand_over`` (the hand had ended)
    events: int  # log events its Session held
    head: int | None  # the count of the head of the log it signed on its way out (a bye)

    @property
    def cause(self) -> str:
        """A short key to count by."""
        return f"{self.how}:{'after' if self.saw_over else 'before'}_hand_over"

    def text(self) -> str:
        how = {
            "bye": "said goodbye",
            "drop": "dropped its link (no bye) and did not come back",
            "resume": "dropped its link to resume with its token",
            "failed": "had its visit fail (an error counted on its own)",
        }.get(self.how, self.how)
        when = (
            "after hand_over reached it"
            if self.saw_over
            else f"before hand_over reached it, holding {self.events} log events"
        )
        head = "" if self.head is None else f", signing a head of {self.head} events"
        return f"{how} {when}{head}"


@dataclass(slots=True)
class _Plan:
    """How one visit goes: decided when it starts (a waiting player seated later keeps it)."""

    spectate: bool
    leave: str  # "bye" | "drop" | "resume"
    moves: int
    stay: bool
    watch_s: float


class _Leave(Exception):  # noqa: N818  (control flow: the visit ends the way ``how`` says)
    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


class Slots:
    """The client slots of one process: ``cfg["tables"]`` (global indices, ports in
    ``cfg["ports"]``), ``cfg["per_table"]`` slots each."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self.fingerprint: bytes = cfg["identity"].fingerprint
        self.ports: list[int] = cfg["ports"]
        self.tables: list[int] = cfg["tables"]
        self.per_table: int = cfg["per_table"]
        self.seed: int = cfg["seed"]
        self.mix: Mix = cfg["mix"]
        self.tally = Tally()
        self.end = 0.0
        # (table, game id, hand number) → the seats our players left during that hand
        self.left_in: dict[tuple[int, bytes, int], set[int]] = {}
        # (table, game id, hand number, seat) → how our player last left it, before the
        # hand's log heads came (the cause of a missing confirmation or of a void)
        self.departures: dict[tuple[int, bytes, int, int], Departure] = {}
        self.left_waiting: dict[tuple[int, str], float] = {}  # (table, name) → when it left
        # (table, seat) → when one of our players last left it
        self.left_at: dict[tuple[int, int], float] = {}
        self.grace_s: float = cfg["grace_s"]
        self.aborts: set[tuple[int, bytes, int, int]] = set()  # counted once per table
        self.verdicts: set[tuple[bytes, int, int]] = set()
        self.active = 0

    # -- the slots -----------------------------------------------------------------------------

    async def run(self, t0: float, end: float, ramp_s: float) -> None:
        """Every slot, started evenly over ``ramp_s`` from ``t0``, until ``end``."""
        self.end = end
        n = len(self.tables) * self.per_table
        tasks = []
        for i, table in enumerate(self.tables):
            for k in range(self.per_table):
                j = i * self.per_table + k
                # Slots of one table start apart from each other: interleave by table.
                order = k * len(self.tables) + i
                start = t0 + ramp_s * order / max(1, n)
                rng = random.Random(self.seed * 1_000_003 + table * 64 + k)
                tasks.append(asyncio.create_task(self._slot(table, j, start, rng)))
        done, pending = await asyncio.wait(tasks, timeout=max(1.0, end - time.monotonic()) + 60.0)
        for task in pending:
            self.tally.error("hang:slot", "a slot did not finish within 60 s of the end")
            task.cancel()
        for task in done:
            exc = task.exception()
            if exc is not None:
                text = "".join(traceback.format_exception(exc))
                self.tally.error(f"crash:{type(exc).__name__}", text)
        await asyncio.gather(*pending, return_exceptions=True)

    async def _slot(self, table: int, j: int, start: float, rng: random.Random) -> None:
        await sleep_until(start)
        mix = self.mix
        # On a steady table the seated players play each hand out (people still come, watch,
        # wait for a seat and go, and leave between hands): its hands end with no one
        # missing, so their transcripts verify in full (elsewhere, a player who left mid-hand
        # never signs the log, and every other seat's check stops at the missing head).
        steady = mix.steady_every > 0 and table % mix.steady_every == 0
        for n in range(100_000):  # bounded: a visit takes at least a connection's time
            if time.monotonic() >= self.end:
                return
            spectate = rng.random() < mix.spectate
            r = rng.random()
            leave = "drop" if r < mix.abrupt else "resume" if r < mix.abrupt + mix.resume else "bye"
            plan = _Plan(
                spectate=spectate,
                leave=leave,
                moves=rng.randint(*mix.moves),
                stay=not spectate and (steady or rng.random() < mix.stay),
                watch_s=rng.uniform(*mix.watch_s),
            )
            session = Session(
                f"p{table}-{j % self.per_table}-{n}",
                key=Ed25519PrivateKey.generate(),
                entropy=os.urandom,
                spectate=spectate,
                auto_ready=True,
            )
            how = await self._visit(table, session, plan, rng, resume=False)
            if how == "resume":
                await asyncio.sleep(rng.uniform(*mix.resume_pause_s))
                again = _Plan(False, "bye", rng.randint(*mix.moves), False, plan.watch_s)
                await self._visit(table, session, again, rng, resume=True)
            await asyncio.sleep(rng.uniform(*mix.pause_s))

    # -- one visit ---------------------------------------------------------------------------

    async def _visit(
        self, table: int, session: Session, plan: _Plan, rng: random.Random, *, resume: bool
    ) -> str:
        """One connection from connect to leave; how it ended (``resume``: come back)."""
        tally = self.tally
        try:
            reader, writer = await open_pinned_connection(
                "127.0.0.1", self.ports[table], self.fingerprint, timeout=CONNECT_TIMEOUT_S
            )
        except Exception as e:  # refused, timed out, TLS failed, wrong certificate: all errors
            tally.error(f"connect:{type(e).__name__}", f"table {table}: {e}")
            return "failed"
        tally.counts["connections"] += 1
        self.active += 1
        how = "failed"  # unless the visit says otherwise (an exception is counted as a crash)
        try:
            how = await self._converse(table, session, plan, rng, reader, writer, resume=resume)
        except _Leave as leave:
            how = leave.how
        finally:
            self.active -= 1
            self._left(table, session, how)
        if how in ("drop", "resume"):
            writer.transport.abort()  # no bye, no TLS close: the link is simply gone
        else:
            writer.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2.0):
                await writer.wait_closed()
        return how

    async def _converse(
        self,
        table: int,
        session: Session,
        plan: _Plan,
        rng: random.Random,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        resume: bool,
    ) -> str:
        tally = self.tally
        conn = p.Connection(p.Role.CLIENT)
        writer.write(conn.send(session.hello()))
        began = time.monotonic()
        welcomed = False
        was_seated = session.seat
        watch_until = began + plan.watch_s
        moves_left = plan.moves
        # (seq of the move sent, when, how many log events the Session held when it signed it)
        pending: tuple[int, float, int] | None = None
        act_at: float | None = None
        progress = began  # the last step of a hand in play we saw while seated
        idle_since: float | None = None  # seated and no hand in play since
        seated = False  # seated at some time in this visit
        hand_began: float | None = None  # when the hand this visit plays in began
        welcomed_unseated = False  # a player who found no free seat (and waited)
        leave_at: float | None = None  # when this visit first meant to leave (owing a seed)
        for _ in range(10**6):  # bounded: each turn reads or times out within a second
            now = time.monotonic()
            # -- is it time to leave (or has something hung)? --------------------------------
            if not welcomed:
                if now - began > WELCOME_TIMEOUT_S:
                    tally.error("hang:welcome", f"table {table}")
                    return "failed"
            else:
                how = self._leave_now(session, plan, moves_left, pending, watch_until, now)
                if pending is not None and now - pending[1] > MOVE_TIMEOUT_S:
                    tally.error("hang:move", f"table {table}: move at seq {pending[0]}")
                    return "failed"
                in_hand = self._in_hand(session)
                if session.seat is not None and in_hand and now - progress > TURN_TIMEOUT_S:
                    tally.error("hang:turn", f"table {table}: no step for {TURN_TIMEOUT_S:.0f} s")
                    return "failed"
                if plan.stay and hand_began is not None and now - hand_began > STAYER_TIMEOUT_S:
                    tally.error("hang:verdict", f"table {table}: no verdict in a stayer's time")
                    return "failed"
                if session.seat is not None and not in_hand and not (plan.stay and session.hand):
                    idle_since = now if idle_since is None else idle_since
                    if now - idle_since > IDLE_LEAVE_S:
                        tally.counts["idle_leaves"] += 1
                        how = how or "bye"
                else:
                    idle_since = None
                if how == "bye" and session.owes_seed():
                    # As the terminal client does: its seed for the round in progress goes
                    # before its goodbye (a bounded wait), or the hand would be void.
                    if leave_at is None:
                        leave_at = now
                        tally.counts["byes_held_for_a_seed"] += 1
                    if now - leave_at < SEED_WAIT_S:
                        how = None
                if how is not None:
                    return await self._leave(table, session, conn, reader, writer, how)
                if act_at is not None and now >= act_at:
                    act_at = None
                    view = session.view
                    if pending is None and session.my_turn() and view is not None:
                        message = session.move(rng.choice(view.legal))
                        writer.write(conn.send(message))
                        pending = (message.seq, now, _log_count(session))
                        moves_left -= 1
                        tally.counts["moves_sent"] += 1
            # -- read what the host sent, until the next thing we have to do -----------------
            wake = now + 1.0
            if act_at is not None:
                wake = min(wake, act_at)
            try:
                async with asyncio.timeout(max(0.0, wake - now)):
                    data = await reader.read(READ_SIZE)
            except TimeoutError:
                continue
            except (ConnectionError, OSError, ssl.SSLError) as e:
                tally.error("lost", f"table {table}: {type(e).__name__}: {e}")
                return "failed"
            if not data:
                tally.error("lost", f"table {table}: the host closed the connection")
                return "failed"
            try:
                messages = conn.receive_data(data)
            except p.RemoteProtocolError as e:
                tally.error(f"protocol:{e.code.value}", f"table {table}: {e}")
                return "failed"
            replies: list[p.Message] = []
            for m in messages:
                if isinstance(m, p.Welcome):
                    welcomed = True
                    if resume:
                        tally.counts["resumes"] += 1
                        if m.seat != was_seated:
                            tally.error("resume:seat", f"table {table}: {was_seated} → {m.seat}")
                    else:
                        tally.counts["joins"] += 1
                        tally.counts["joins_spectating" if plan.spectate else "joins_player"] += 1
                elif isinstance(m, p.Reject):
                    if _withdrawn_commit(session, m):
                        tally.counts["late_commit_withdrawn"] += 1  # module docstring
                    elif (
                        pending is not None
                        and m.seq == pending[0]
                        and _stale_after_presence(session, m, pending[2])
                    ):
                        tally.counts["move_stale_after_presence"] += 1  # module docstring
                    else:
                        since = "" if pending is None else _events_since(session, pending[2])
                        tally.error(f"reject:{m.code.value}", f"table {table}: {m.text}{since}")
                    if pending is not None and m.seq == pending[0]:
                        pending = None
                elif isinstance(m, p.Error):
                    tally.error(f"error:{m.code.value}", f"table {table}: {m.text}")
                elif isinstance(m, p.Bye):
                    tally.error("bye_from_host", f"table {table}: {m.reason}")
                elif isinstance(m, p.Abort):
                    self._abort(table, session, m)
                elif isinstance(m, p.SeatView):
                    progress = time.monotonic()
                    if (
                        pending is not None
                        and m.seq >= pending[0] + 1
                        and _moved_since(session, pending[2])
                    ):
                        pending = None
                        tally.counts["moves_answered"] += 1
                elif isinstance(m, p.Events | p.Announce):
                    progress = time.monotonic()
                replies += session.receive(m)
            self._news(table, session)
            if hand_began is None and session.seat is not None and self._in_hand(session):
                hand_began = time.monotonic()
            if session.seat is not None and not seated:
                seated = True
                tally.counts["seated_visits"] += 1
                if welcomed_unseated:
                    tally.counts["seated_after_waiting"] += 1
            elif welcomed and not seated and not plan.spectate:
                welcomed_unseated = True
            if replies and not conn.closed:
                writer.write(conn.send_all(replies))
            if session.closed:
                return "failed"  # the host ended it: counted above as an error or a bye
            if session.lost_place:
                tally.error("lost_place", f"table {table}: a gap in the events")
                return "failed"
            if (
                act_at is None
                and pending is None
                and session.my_turn()
                and (moves_left > 0 or plan.stay)
            ):
                act_at = time.monotonic() + rng.uniform(*self.mix.think_s)
        tally.error("hang:visit", f"table {table}: a visit ran out of turns")
        return "failed"

    def _in_hand(self, session: Session) -> bool:
        h = session.hand
        return h is not None and h.over is None and session.view is not None

    def _leave_now(
        self,
        session: Session,
        plan: _Plan,
        moves_left: int,
        pending: tuple[int, float, int] | None,
        watch_until: float,
        now: float,
    ) -> str | None:
        """How to leave now (None: stay)."""
        if now >= self.end:
            return "bye"  # the soak is over: everyone goes home cleanly
        if pending is not None:
            return None  # a move is on its way: see its answer first
        if session.seat is None:  # watching (a spectator, or a player waiting for a seat)
            if now < watch_until:
                return None
            return "drop" if plan.leave == "drop" else "bye"
        if plan.stay:
            return "bye" if session.history else None  # the hand's verdict is in
        if moves_left > 0:
            return None
        if plan.leave == "resume" and not self._in_hand(session):
            return "bye"  # a resume is for a hand in progress: between hands, just leave
        return plan.leave

    def _left(self, table: int, session: Session, how: str) -> None:
        """The visit is over, whichever way (``how``): a seat left while its hand had begun
        (or was about to: the hand may be dealt while our bye is on its way) may owe that
        hand a seed, and its log head; a void or a missing confirmation naming it is then
        explained, and its cause is what :class:`Departure` records."""
        h = session.hand
        if session.seat is None:
            if not session.spectate:
                # A waiting player: the host may have seated it and dealt (the lobby saying
                # so still on its way) as it left; the seat it did not know it had owes the
                # hand's first round. The others know it by its name on that seat.
                self.left_waiting[(table, session.name)] = time.monotonic()
            return
        self.left_at[(table, session.seat)] = time.monotonic()
        if h is not None and not h.done:
            rec = _recorder(h)
            key4 = (table, h.message.game_id, h.message.hand_no, session.seat)
            if how != "failed" or key4 not in self.departures:  # a bye is noted before its end
                self.departures[key4] = Departure(
                    how,
                    time.monotonic(),
                    h.over is not None,
                    0 if rec is None else rec.log.count,
                    rec.log.count if how == "bye" and rec is not None else None,
                )
        if h is not None and h.over is None:
            key = (table, h.message.game_id, h.message.hand_no)
            if session.seat not in self.left_in.get(key, ()):
                self.tally.counts["left_mid_hand"] += 1
            self.left_in.setdefault(key, set()).add(session.seat)

    async def _leave(
        self,
        table: int,
        session: Session,
        conn: p.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        how: str,
    ) -> str:
        """Leave ``how``: ``bye`` (and the host must close the connection), or a drop."""
        tally = self.tally
        if how != "bye":
            tally.counts["drops" if how == "drop" else "drops_to_resume"] += 1
            raise _Leave(how)
        tally.counts["leaves"] += 1
        # Marked as gone before the bye is written: the others may hear of what it does to the
        # hand (a round withdrawn, the seat away) before this visit's end is noted.
        self._left(table, session, "bye")
        # As the terminal client leaves: its head of the hand so far, then bye.
        writer.write(b"".join(conn.send(m) for m in session.leave("soak: leaving")))
        try:
            async with asyncio.timeout(BYE_TIMEOUT_S):
                for _ in range(100_000):
                    data = await reader.read(READ_SIZE)
                    if not data:
                        break
        except TimeoutError:
            tally.error("hang:bye", f"table {table}: the host kept the connection open")
        except (ConnectionError, OSError, ssl.SSLError):
            pass  # closed without a TLS goodbye: closed all the same
        return "bye"

    # -- what the Session noticed ------------------------------------------------------------

    def _leavers(
        self,
        table: int,
        game_id: bytes,
        hand_no: int,
        pids: Iterable[str],
        names: Sequence[str] = (),
    ) -> bool:
        """Whether every one of ``pids`` is a seat one of our players left in that hand
        (``names``: the seats' names at the hand's start, as the observer saw them)."""
        left = self.left_in.get((table, game_id, hand_no), set())
        now = time.monotonic()

        def gone(q: str) -> bool:
            seat = _seat_of(q)
            if seat is None:
                return False  # the host (@dealer) never leaves its own table
            # In that hand; or just before its deal (our bye crossed the host's ``hand``).
            window = self.grace_s + RECENT_S
            recent = now - self.left_at.get((table, seat), -1e9) <= window
            name = names[seat] if seat < len(names) else ""
            waiting = now - self.left_waiting.get((table, name), -1e9) <= window
            return seat in left or recent or waiting

        pids = list(pids)
        return bool(pids) and all(gone(q) for q in pids)

    def _what_left(self, table: int, game_id: bytes, hand_no: int, pid: str) -> Departure | None:
        seat = _seat_of(pid)
        return None if seat is None else self.departures.get((table, game_id, hand_no, seat))

    def _describe(self, table: int, game_id: bytes, hand_no: int, pids: Iterable[str]) -> str:
        """What our players in ``pids``' seats did in that hand, in words."""
        parts = []
        for q in pids:
            d = self._what_left(table, game_id, hand_no, q)
            parts.append(f"{q} {d.text() if d is not None else 'left (just before the deal)'}")
        return "; ".join(parts)

    def _abort(self, table: int, session: Session, m: p.Abort) -> None:
        """A void, as it happens (every Session at the table hears it: counted once). One
        whose culprits are all seats our players left is a void because someone left (issue
        #13's target: none); any other is an error."""
        h = session.hand
        if h is None:
            self.tally.error("abort:no_hand", f"table {table}: round {m.round}")
            return
        gid, hno = h.message.game_id, h.message.hand_no
        key = (table, gid, hno, m.round)
        if key in self.aborts:
            return
        self.aborts.add(key)
        self.tally.counts["void_hands"] += 1
        if self._leavers(table, gid, hno, m.culprits, h.names):
            self.tally.counts["void_hands_leaver"] += 1
            self.tally.counts[f"void_cause:{m.fault}"] += 1
            for q in m.culprits:
                d = self._what_left(table, gid, hno, q)
                self.tally.counts[f"void_leaver:{d.cause if d else 'before_deal'}"] += 1
            self.tally.cause(
                f"void because someone left: table {table} hand {hno} round {m.round}: "
                f"{', '.join(m.culprits)} {m.fault} — {self._describe(table, gid, hno, m.culprits)}"
            )
        else:
            self.tally.error(
                "abort:unexplained", f"table {table}: round {m.round} {m.fault} {m.culprits}"
            )

    def _news(self, table: int, session: Session) -> None:
        """Errors among the Session's news; verdicts counted; news and history kept short."""
        for item in session.news:
            if item.kind == "warning" and not isinstance(item.data, p.Abort):
                self.tally.error("warning", f"table {table}: {item.text}")
        session.news.clear()
        for record in session.history:
            found = None if record.judgement is None else record.judgement.found
            if not isinstance(found, Verdict):
                continue
            v = found
            key = (v.game_id, v.hand_no, v.seat)
            if key in self.verdicts:
                continue
            self.verdicts.add(key)
            self._verdict(table, v, record.names)

    def _verdict(self, table: int, v: Verdict, names: Sequence[str]) -> None:
        """One stayer's verdict on one hand, counted by kind (module docstring)."""
        counts, gid, hno = self.tally.counts, v.game_id, v.hand_no
        counts[f"verdict_{v.status}"] += 1
        if v.status == "fair":
            if v.away:
                counts["verdict_fair_away"] += 1
            for a in v.away:
                counts[f"away_{a.how}"] += 1
        elif v.status == "unconfirmed":
            for pid, n in v.unconfirmed:
                d = self._what_left(table, gid, hno, pid)
                if d is None:
                    counts["unconfirmed_cause:unexplained"] += 1
                    self.tally.error(
                        "unconfirmed:unexplained",
                        f"table {table} hand {hno}: {pid} confirmed the log only to event {n} "
                        f"of {v.events}, and none of our players left that seat: {v.text()}",
                    )
                    continue
                counts[f"unconfirmed_cause:{d.cause}"] += 1
                self.tally.cause(
                    f"unconfirmed: table {table} hand {hno}: {pid} confirmed the log only to "
                    f"event {n} of {v.events}: it {d.text()}"
                )
        elif v.status == "void":
            if self._leavers(table, gid, hno, v.culprits, names):
                counts["verdict_void_leaver"] += 1
            else:
                self.tally.error("verdict:void:unexplained", f"table {table}: {v.text()}")
        else:  # unfair: every party here is honest
            self.tally.error(f"verdict:{v.status}:{v.check}", f"table {table}: {v.text()}")


def _seat_of(pid: str) -> int | None:
    """The seat of a fair-deal id (``seatN``); None for the host (``@dealer``)."""
    return int(pid[4:]) if pid.startswith("seat") and pid[4:].isdigit() else None


def _recorder(h: Any) -> SeatRecorder | None:
    """The hand's commit-reveal record of this seat (None: a blind hand, or no part in it)."""
    part = h.part
    return part.recorder if isinstance(part, CommitPart) else None


def _log_count(session: Session) -> int:
    h = session.hand
    rec = None if h is None else _recorder(h)
    return 0 if rec is None else rec.log.count


def _moved_since(session: Session, logged: int) -> bool:
    """Whether the log has our own move since we signed one (``logged`` events then): the view
    after it answers it. (A newer view alone does not: someone going away or coming back is a
    step of its own, and may come between our move and the host's refusal of it.)"""
    h = session.hand
    rec = None if h is None else _recorder(h)
    if rec is None:
        return True  # nothing to tell by: the view's seq says it
    return any(
        isinstance(ev, Move) and ev.seat == rec.seat and ev.by == BY_SEAT
        for ev in rec.log.events[logged:]
    )


def _stale_after_presence(session: Session, m: p.Reject, logged: int) -> bool:
    """Whether ``m`` refuses our move as stale because someone went away or came back while
    it was on its way: every log event since we signed it (``logged`` events then) is an
    ``Away`` or a ``Back`` (its step came before the refusal, on the same link)."""
    h = session.hand
    rec = None if h is None else _recorder(h)
    if m.code is not p.ErrorCode.STALE_VIEW or rec is None:
        return False
    since = rec.log.events[logged:]
    return bool(since) and all(isinstance(ev, Away | Back) for ev in since)


def _events_since(session: Session, logged: int) -> str:
    """The log events that came after our move was signed, in a few words (for an error)."""
    h = session.hand
    rec = None if h is None else _recorder(h)
    if rec is None:
        return ""
    since = rec.log.events[logged:]
    words = ", ".join(repr(ev) for ev in since[:4]) + (" …" if len(since) > 4 else "")
    return f" (log events since our move was signed: {words or 'none'}; we are seat {rec.seat})"


def _withdrawn_commit(session: Session, m: p.Reject) -> bool:
    """Whether ``m`` refuses our commitment to a round that was withdrawn: never fixed, and a
    later round already announced (its stage 1 came before the refusal, on the same link)."""
    found = _NO_COMMITMENT.match(m.text)
    h = session.hand
    rec = None if h is None else _recorder(h)
    if m.code is not p.ErrorCode.FAIR_DEAL or found is None or rec is None:
        return False
    r = int(found[1])
    mine = next((x for x in rec.rounds if x.round == r), None)
    return (
        mine is not None
        and not any(a.fixed for a in mine.announces)
        and any(x.round > r for x in rec.rounds)
    )


async def _main(pipe: Pipe, cfg: dict[str, Any]) -> None:
    queue = _pipe_queue(pipe)
    slots = Slots(cfg)
    pipe.send(("ready", os.getpid()))
    msg = await queue.get()
    if msg[0] != "start":
        pipe.send(("done", slots.tally.as_dict()))
        return
    _, t0, end, ramp_s = msg

    async def progress() -> None:
        for _ in range(10**6):
            await asyncio.sleep(cfg["progress_s"])
            pipe.send(("progress", {**slots.tally.as_dict(), "active": slots.active}))

    reporting = asyncio.create_task(progress())
    try:
        await slots.run(t0, end, ramp_s)
    finally:
        reporting.cancel()
    pipe.send(("done", slots.tally.as_dict()))


def client_process(pipe: Pipe, cfg: dict[str, Any]) -> None:
    """Entry point of a client process (spawned: no event loop or socket is inherited)."""
    raise_nofile(cfg["nofile"])
    forget_verified()  # every check made afresh, as on each player's own laptop
    try:
        asyncio.run(_main(pipe, cfg))
    except Exception as e:
        pipe.send(("failed", f"client: {type(e).__name__}: {e}", traceback.format_exc()))
