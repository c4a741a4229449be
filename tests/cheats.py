"""A table over real TLS on loopback, with a dishonest host or client among untouched ones.

:func:`play_over_tls` starts the real server shell (``lanswitch.server``) around a host —
honest, or one that cheats (usually by plugging a dishonest
:class:`~lanswitch.fairdeal.Dealer` into its commit-reveal hands: :func:`dealing`, or a hand
driver that cheats into ``Host.commit_hand`` / ``Host.blind_hand``) — and runs the real client shell
(``lanswitch.client.Client``) for each person, most of them untouched ``Session`` objects
playing as headless bots, perhaps one a ``Session`` subclass that cheats. When the match is
over it writes every honest client's transcripts to files and runs the untouched
``lanswitch verify --json`` over them, each file alone and all together. The test then reads
the :class:`Outcome`: each client's live verdicts and news, and the command's verdicts.

Everything binds 127.0.0.1; every run is bounded in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import cli
from lanswitch.bots import make_bot
from lanswitch.client import Client, Target
from lanswitch.fairdeal import Dealer, Verdict
from lanswitch.fairdeal.blind.check import BlindOutcome
from lanswitch.fairdeal.judgement import COMMIT_REVEAL, DEALER_BLIND
from lanswitch.host import Host, HostConfig
from lanswitch.host._commit import CommitHand
from lanswitch.rules import PRESETS
from lanswitch.seatkeep import SeatKeeper
from lanswitch.server import Server
from lanswitch.session import News, Session
from lanswitch.tls import Identity, load_or_create_identity, server_context
from tests.records import outcome_of, verdict_of

LOOPBACK = "127.0.0.1"

SessionMaker = Callable[..., Session]


@dataclass
class Person:
    """One client at the table: its name, how its session is made (an untouched ``Session``,
    or a subclass that cheats), and how long it thinks before a move."""

    name: str
    make: SessionMaker = Session
    think: float = 0.0
    honest: bool = True


@dataclass
class Outcome:
    host: Host
    sessions: dict[str, Session]
    files: dict[str, list[Path]] = field(default_factory=dict)
    alone: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """``lanswitch verify --json`` of each honest person's files, each run on its own."""
    together: list[dict[str, Any]] = field(default_factory=list)
    """``lanswitch verify --json`` of every honest person's files in one run (compared)."""
    exit_alone: dict[str, int] = field(default_factory=dict)

    def verdicts(self, name: str) -> list[Verdict]:
        """``name``'s live verdicts, hand by hand (what its screen said)."""
        return [
            verdict_of(r)
            for r in self.sessions[name].history
            if r.deal is COMMIT_REVEAL and r.judgement is not None
        ]

    def news(self, name: str, kind: str = "warning") -> list[News]:
        return [n for n in self.sessions[name].news if n.kind == kind]

    def statuses(self, name: str) -> list[str]:
        return [v.status for v in self.verdicts(name)]

    def blind(self, name: str) -> list[BlindOutcome]:
        """``name``'s live verdicts of dealer-blind hands."""
        return [
            outcome_of(r)
            for r in self.sessions[name].history
            if r.deal is DEALER_BLIND and r.judgement is not None
        ]

    def cli_statuses(self, name: str) -> list[str]:
        return [str(f["status"]) for f in self.alone[name]]


def all_fair(out: Outcome, names: Sequence[str] = ("ann", "bob")) -> None:
    """Every hand of each of ``names`` is fair, live and by the untouched ``lanswitch verify``
    of its saved file."""
    for name in names:
        assert out.statuses(name), f"{name} has no verdict"
        assert set(out.statuses(name)) == {"fair"}, [v.text() for v in out.verdicts(name)]
        assert set(out.cli_statuses(name)) == {"fair"}, out.alone[name]


SWITCH = PRESETS["switch"]
BIG_HANDS = dataclasses.replace(
    SWITCH, deal=dataclasses.replace(SWITCH.deal, hand_size=(15, 15, 12, 10, 7, 7, 7))
)
"""Switch with 15 cards each at three seats, 12 at four: the stock runs out soon and often."""
CAPPED = dataclasses.replace(SWITCH, play=dataclasses.replace(SWITCH.play, safety_limit=240))
"""Switch stopped (and scored as it stands) after 240 moves, for a test whose person thinks
half a second a turn: it stays well inside its bound on the rare hand that runs on (of 20,000
three-seat heuristic hands, 1% passed 435 moves and one ran to the engine's limit, 5,000)."""
DRAW_ANY_TIME = dataclasses.replace(
    SWITCH, play=dataclasses.replace(SWITCH.play, may_draw_instead=True)
)
"""Switch where a player may draw even when able to play: every turn with a card to play is
one with a draw allowed too. (Under Switch's own rules such a turn is rare — facing a pick-up
with a 2 to stack — and 5 of 16 hands had none.)"""


def config(**kw: Any) -> HostConfig:
    base: dict[str, Any] = {
        "name": "Cheat",
        "rules": PRESETS["switch"],
        "seats": 3,
        "bots": 1,
        "bot_delay": 0.0,
        "hands": 1,
        "round_timeout": 3.0,
        "heads_timeout": 3.0,
        "away_grace": 1.0,
        "seat_limit": 2.0,
    }
    base.update(kw)
    return HostConfig(**base)


def dealing(dealer: type[Dealer], base: type[CommitHand] = CommitHand) -> type[CommitHand]:
    """The commit-reveal hand driver ``base`` dealing with ``dealer`` (a Dealer that cheats)."""
    return type(f"{dealer.__name__}Hand", (base,), {"dealer_cls": dealer})


def hosting(dealer: type[Dealer], base: type[Host] = Host) -> type[Host]:
    """A host whose commit-reveal hands are dealt by ``dealer``."""
    return type(f"{dealer.__name__}Host", (base,), {"commit_hand": dealing(dealer)})


def make_host(host_cls: type[Host] = Host, **kw: Any) -> Host:
    return host_cls(config(**kw), entropy=os.urandom, now=time.monotonic())


_IDENTITY: dict[str, Identity] = {}


def identity(tmp: Path) -> Identity:
    if "id" not in _IDENTITY:
        _IDENTITY["id"] = load_or_create_identity(tmp / "host-identity")
    return _IDENTITY["id"]


def _chooser(name: str) -> Callable[[Session], int]:
    rng = random.Random(name)

    def choose(s: Session) -> int:
        assert s.rules is not None
        assert s.view is not None
        return make_bot("heuristic", s.rules).choose(s.view, rng)

    return choose


def carl_leaves(how: str, after_seq: int, tries: int) -> Callable[[dict[str, Client]], Any]:
    """A ``during`` for :func:`play_over_tls`: once carl's client is past step ``after_seq``
    and owes the deal nothing (``Session.owes_seed``; checked ``tries`` times, 5 ms apart),
    carl leaves — saying goodbye (``how="bye"``), or his program killed (``"kill"``), never to
    come back."""

    async def leave(clients: dict[str, Client]) -> None:
        carl = clients["carl"]
        for _ in range(tries):
            if carl.session.seq >= after_seq and not carl.session.owes_seed():
                break
            await asyncio.sleep(0.005)
        if how == "bye":
            for m in carl.session.begin_leaving():  # as the terminal client leaves
                carl.send(m)
            for _ in range(tries):
                if not carl.session.owes_seed():
                    break
                await asyncio.sleep(0.005)
            for m in carl.session.leave():
                carl.send(m)
        else:
            writer = carl._writer
            assert writer is not None
            carl.session.closed = True  # the program is gone: it never comes back
            writer.transport.abort()

    return leave


def verify_files(files: Sequence[Path]) -> tuple[int, list[dict[str, Any]]]:
    """The untouched ``lanswitch verify --json FILE…``: its exit code and each file's verdict."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["verify", "--json", *map(str, files)])
    return code, list(json.loads(out.getvalue())["files"])


class Clients(dict[str, Client]):
    """The clients at the table by name, as a ``during`` sees them; :meth:`restart` ends a
    person's program and runs it again from its kept seat (``play_over_tls(keep=…)``)."""

    def __init__(
        self, target: Target, people: Sequence[Person], keep: Path | None, reconnect_for: float
    ) -> None:
        super().__init__()
        self.target = target
        self.people = {person.name: person for person in people}
        self.keep = keep
        self.reconnect_for = reconnect_for
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.killed: list[asyncio.Task[None]] = []

    def start(self, name: str) -> Client:
        """``name``'s program, as ``join`` runs it: with its seat kept in ``keep/NAME`` (taken
        back if one is kept there), if the table keeps seats."""
        person = self.people[name]
        keeper = (
            None if self.keep is None else SeatKeeper.open(self.keep / name, self.target.pin_as)
        )
        session = person.make(
            name,
            key=Ed25519PrivateKey.generate() if keeper is None else keeper.key,
            entropy=os.urandom,
            auto_ready=True,
            clock=time.monotonic,
        )
        if keeper is not None:
            keeper.attach(session)
        client = self[name] = Client(
            session,
            self.target,
            chooser=_chooser(name),
            think=person.think,
            reconnect_for=self.reconnect_for,
            keeper=keeper,
        )
        self.tasks[name] = asyncio.create_task(client.run())
        return client

    async def restart(self, name: str) -> Client:
        """``name``'s program is killed — it sends nothing more, and what it kept on disk
        stays — and run again: a new session that takes the seat back from what was kept."""
        old, task = self[name], self.tasks[name]
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        self.killed.append(task)
        if old.keeper is not None:
            old.keeper.close()  # (its lock goes with the process, however it ends)
        return self.start(name)

    def close(self) -> None:
        for client in self.values():
            if client.keeper is not None:
                client.keeper.close()


def play_over_tls(
    host: Host,
    people: Sequence[Person],
    tmp: Path,
    *,
    limit: float = 90.0,
    during: Callable[[Clients], Any] | None = None,
    reconnect_for: float = 5.0,
    keep: Path | None = None,
) -> Outcome:
    """Play ``host``'s match over real TLS with ``people`` (see the module docstring).
    ``during(clients)``, a coroutine function, runs beside the match (to make a person leave,
    or its link die, or its program end and run again: :meth:`Clients.restart`).
    ``reconnect_for``: how long a client whose link is lost keeps trying (short, so that a test
    of a host that is gone ends soon). ``keep``: each person's seat is kept there, as ``join``
    keeps it (``lanswitch.seatkeep``; None: not kept)."""
    tmp.mkdir(parents=True, exist_ok=True)
    ident = identity(tmp)
    clients: Clients | None = None

    async def main() -> None:
        nonlocal clients
        server = Server(host, ssl_context=server_context(ident), address=LOOPBACK)
        await server.start()
        target = Target("Cheat", (LOOPBACK,), server.port, ident.fingerprint, f"{LOOPBACK}:x")
        clients = Clients(target, people, keep, reconnect_for)
        for person in people:
            clients.start(person.name)
        tasks = list(clients.tasks.values())
        if during is not None:
            tasks.append(asyncio.create_task(during(clients)))
        try:
            results = await asyncio.gather(*tasks, return_exceptions=True)
            while rest := [t for t in clients.tasks.values() if not t.done()]:
                results += await asyncio.gather(*rest, return_exceptions=True)  # (restarted)
            killed = [t for t in clients.killed if t in tasks]
            failed = [
                r
                for r in results
                if isinstance(r, BaseException)
                and not (killed and isinstance(r, asyncio.CancelledError))
            ]
            if failed:
                raise failed[0]
            await server.wait_finished()
        finally:
            clients.close()
            await server.close()

    async def bounded() -> None:
        async with asyncio.timeout(limit):
            await main()

    asyncio.run(bounded())
    assert clients is not None
    outcome = Outcome(host, {n: c.session for n, c in clients.items()})
    every: list[Path] = []
    for person in people:
        if not person.honest:
            continue
        session = outcome.sessions[person.name]
        files = []
        for record in session.history:
            text = "" if record.proof is None else record.proof.text()
            if not text:
                continue
            path = tmp / f"{person.name}-hand{record.hand_no}.json"
            path.write_text(text, encoding="utf-8")
            files.append(path)
        outcome.files[person.name] = files
        if files:
            code, verdicts = verify_files(files)
            outcome.exit_alone[person.name] = code
            outcome.alone[person.name] = verdicts
            every += files
    if every:
        outcome.together = verify_files(every)[1]
    return outcome
