"""A searching bot's move asked of the shell (``lanswitch/host/_decide.py``): the same move as
one made in place, never made on the host's own loop, kept by the journal, and made in a real
worker process by the server over real TLS."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lanswitch import decider as decider_module
from lanswitch import protocol as p
from lanswitch.client import Client
from lanswitch.decider import Decider
from lanswitch.game import Game
from lanswitch.host import Host, HostConfig
from lanswitch.host._decide import Decision, decide
from lanswitch.hosting import new_table, resume_table, settle
from lanswitch.search import HardBot
from lanswitch.server import Server
from lanswitch.tls import Identity, load_or_create_identity, server_context
from tests.tablenet import TableNet
from tests.test_journal import state
from tests.test_server import LOOPBACK, bot_client, run, target_of


@pytest.fixture(scope="module")
def identity(tmp_path_factory: pytest.TempPathFactory) -> Identity:
    return load_or_create_identity(tmp_path_factory.mktemp("host"))


def config(**kw: object) -> HostConfig:
    base: dict[str, object] = {
        "name": "T",
        "seats": 2,
        "bots": 1,
        "bot_strategy": "hard",
        "bot_delay": 0.3,
        "hands": 1,
    }
    base.update(kw)
    return HostConfig(**base)  # type: ignore[arg-type]


_act = HardBot.act


async def one_hand(identity: Identity) -> tuple[Server, Client]:
    """A table of an asking host (ann and its hard bot, one hand) served over TLS on
    127.0.0.1, played to its end by ann, a heuristic bot's client."""
    host = Host(config(bot_delay=0.0), entropy=os.urandom, now=time.monotonic(), asks=True)
    server = Server(host, ssl_context=server_context(identity), address=LOOPBACK)
    await server.start()
    client = bot_client("ann", target_of(server, identity))
    await client.run()
    await server.wait_finished()
    return server, client


def no_search(bot: HardBot, game: Game, seat: int, rng: Any) -> int:
    """``HardBot.act`` where it has a choice to make fails the test: made in this process,
    it is a search the host should have asked for (a single legal move is played at once)."""
    if len(game.legal_moves()) > 1:
        raise AssertionError("a hard bot searched in the host's own process")
    return _act(bot, game, seat, rng)


def _hand(net: TableNet) -> Game:
    last = net.host.last_hand or net.host.hand
    assert last is not None
    return last.game


def test_a_hand_whose_moves_are_asked_is_the_hand_whose_moves_are_made_in_place() -> None:
    """The same table, seed and player, one host deciding its hard bots' moves in place and
    one asking for them: every message the player got is the same, so the move a worker
    makes from the hand's log and the seed is the move the host would have made."""
    got = []
    for asks in (False, True):
        net = TableNet(config(), seed=5, asks=asks)
        ann = net.join("ann")
        net.run(lambda ann=ann: bool(ann.session.history))  # type: ignore[misc]
        got.append((ann.received, list(_hand(net).log)))
    assert sum(1 for seat, _ in got[0][1] if seat > 0) > 10  # the bots moved, often
    assert got[0] == got[1]


def test_an_asking_host_waits_for_its_answer_and_takes_no_stale_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the hard bot's turn an asking host puts the question out and makes no move; it
    never searches itself, and its next deadline is not the bot's (a shell would otherwise
    tick it again and again in vain). An answer to another question changes nothing; the
    answer to this one is played at once."""
    net = TableNet(config(), seed=7, asks=True)
    ann = net.join("ann")
    net.run(lambda: net.host.asking is not None)
    monkeypatch.setattr(HardBot, "act", no_search)
    host, asked = net.host, net.host.asking
    assert asked is not None
    game = _hand(net)
    steps = len(game.log)
    assert asked.key == (game.hand_no, steps, game.to_act())
    assert asked.bot == "hard"
    assert len(asked.seed) == 16
    net.tick(net.now + 1.0)  # time passes: still asked, nothing played
    deadline = host.next_deadline()
    assert deadline is None or deadline > net.now
    assert host.asking is asked
    assert len(game.log) == steps
    before = len(ann.received)
    legal = game.legal_moves()
    host.decided(asked.hand_no, steps - 1, asked.seat, legal[0], net.now)  # stale
    host.decided(asked.hand_no + 1, steps, asked.seat, legal[0], net.now)  # stale
    net.pump()
    assert host.asking is asked
    assert len(game.log) == steps
    assert len(ann.received) == before
    monkeypatch.undo()
    move = decide(asked)
    host.decided(*asked.key, move, net.now)
    net.pump()
    assert game.log[steps] == (asked.seat, move)
    assert host.asking is None or host.asking.key != asked.key
    assert len(ann.received) > before


def test_the_journal_keeps_the_answers_and_a_question_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host restored from its journal plays each answer back from its record (no search)
    and, stopped with a question out, has the same question out again (the same seed): the
    resumed server asks it, and the hand goes on to its end."""
    net = TableNet(config(), seed=9, journal=True, asks=True)
    ann = net.join("ann")
    answered = 0
    for _ in range(2_000):
        if net.host.asking is not None:
            answered += 1
            if answered == 6:
                break
        assert net.step()
    asked = net.host.asking
    assert asked is not None
    before = state(net.host)
    monkeypatch.setattr(HardBot, "act", no_search)
    restored = Host.restore(list(net.host.inputs), entropy=net.rng.randbytes, asks=True)
    assert state(restored) == before
    assert restored.asking == asked
    monkeypatch.undo()
    net.crash()
    net.run(lambda: bool(ann.session.history) or net.host.hand is None)
    assert net.host.hand is None
    assert net.host.last_hand is not None


def test_a_journal_of_a_host_that_made_its_moves_in_place_replays_in_an_asking_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``play --resume`` of a table a lanswitch before asking hosts left: its records keep
    each move the bots made, and the asking host plays them back (no search, no question)."""
    net = TableNet(config(), seed=3, journal=True)
    net.join("ann")
    for _ in range(40):
        assert net.step()
    monkeypatch.setattr(HardBot, "act", no_search)
    records = list(net.host.inputs)
    restored = Host.restore(records, entropy=net.rng.randbytes, asks=True)
    assert state(restored) == state(net.host)
    assert restored.asking is None
    assert restored.asks
    # It asks from here on, and its journal says so from where it began to: a second crash
    # replays the old records in place and the new ones asking, whatever the shell says.
    again = Host.restore(records + restored.inputs, entropy=net.rng.randbytes)
    assert again.asks
    assert state(again) == state(restored)


def test_the_server_has_a_worker_process_make_every_hard_move(
    identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over real TLS, an asking host's hard bots play a whole hand while a search in the
    server's own process would fail the test: each move came from the worker process."""
    monkeypatch.setattr(HardBot, "act", no_search)

    async def main() -> None:
        server, client = await one_hand(identity)
        assert isinstance(client.session.close_reason, p.Bye)
        (record,) = client.session.history
        assert record.judgement is not None
        assert record.judgement.fair
        assert server.decider.made_apart >= 1
        assert server.decider.made_here == 0

    run(main, limit=120)


def test_without_a_worker_the_move_is_made_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no process can be had, the decider makes the move itself (the table never waits
    on a worker that is not there), the same move."""
    net = TableNet(config(), seed=7, asks=True)
    net.join("ann")
    net.run(lambda: net.host.asking is not None)
    asked = net.host.asking
    assert isinstance(asked, Decision)

    def refused(*args: Any, **kw: Any) -> Any:
        raise OSError("no processes here")

    monkeypatch.setattr(decider_module, "ProcessPoolExecutor", refused)
    decider = Decider()
    move = asyncio.run(decider.move(asked))
    assert move == decide(asked)
    assert (decider.made_apart, decider.made_here) == (0, 1)
    monkeypatch.undo()  # a worker could be had now: none is tried again at this table
    assert asyncio.run(decider.move(asked)) == move
    assert (decider.made_apart, decider.made_here) == (0, 2)


def test_the_tables_play_hosts_and_resumes_ask_for_their_bots_moves(tmp_path: Path) -> None:
    """``lanswitch play`` and ``host`` (``hosting.new_table``) and their ``--resume``
    (``resume_table``) make hosts that ask: the server behind them then has every search made
    in its worker."""
    data = tmp_path / "data"
    table = new_table(config(hands=None), data, address=LOOPBACK, port=0)
    assert table.host.asks
    assert table.journal is not None
    table.journal.set("port", 4000)  # as serving it does; then the host crashed
    table.journal.close()
    resumed = resume_table(data)
    try:
        assert resumed.host.asks
    finally:
        resumed.host.shutdown(resumed.clock())
        settle(resumed)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` is still running (an exited one no parent reaps yet is a
    zombie: "Z" in its status, not running)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_worker_ends_with_a_killed_table(tmp_path: Path) -> None:
    """``kill -9`` of a ``play`` whose bots had thought in a worker left the worker running,
    waiting for work forever. It now watches its parent and ends with it."""
    script = tmp_path / "table.py"
    script.write_text(
        "import os, sys, time\n"
        "from lanswitch.decider import Decider\n"
        "if __name__ == '__main__':\n"
        "    pool = Decider().pool()\n"
        "    print(pool.submit(os.getpid).result(), flush=True)\n"
        "    time.sleep(60)\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    table = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert table.stdout is not None
        worker = int(table.stdout.readline())
        assert _alive(worker)
    finally:
        table.kill()  # SIGKILL: nothing of the table's own runs
        table.wait(timeout=10)
    for _ in range(100):  # bounded: 10 s
        if not _alive(worker):
            break
        time.sleep(0.1)
    assert not _alive(worker)


def test_a_search_that_fails_leaves_the_table_playing(
    identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the search (here: it raises wherever it runs, the worker and the server's
    own process alike — no worker to be had, the move made in place) must not end the
    table: the normal bot's move is played instead, and the hand ends fair."""
    monkeypatch.setattr(HardBot, "act", no_search)
    monkeypatch.setattr(decider_module, "ProcessPoolExecutor", None)  # no worker: in place

    async def main() -> None:
        server, client = await one_hand(identity)
        (record,) = client.session.history
        assert record.judgement is not None
        assert record.judgement.fair
        assert server.decider.made_here == 0  # each failed: none was made by the search

    run(main, limit=120)


def test_the_worker_is_started_as_a_hand_of_searching_bots_begins(
    identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's start (some 0.4 s of imports) is not left to the first question, which
    would wait for it: the host says when its hand has a bot that searches, and the server
    starts the worker then — only then (normal bots, a dealer-blind hand: none)."""
    for kw, searching in (
        ({}, True),
        ({"bot_strategy": "heuristic"}, False),
        ({"blind": True}, False),
    ):
        net = TableNet(config(**kw), seed=1, asks=True)
        net.join("ann")
        net.run(lambda net=net: net.host.hand is not None)  # type: ignore[misc]
        assert net.host.searching is searching, kw
    net = TableNet(config(), seed=1)
    net.join("ann")
    net.run(lambda: net.host.hand is not None)
    assert not net.host.searching  # a host that does not ask

    started: list[bool] = []
    move = Decider.move

    async def moving(self: Decider, decision: Decision) -> int:
        started.append(self.started)  # whether the worker was under way before it
        return await move(self, decision)

    monkeypatch.setattr(Decider, "move", moving)

    async def main() -> None:
        await one_hand(identity)
        assert started
        assert started[0]  # warmed as the hand was dealt, not at the first question

    run(main, limit=60)


def test_a_searching_bot_thinks_while_its_delay_runs_and_moves_at_the_pace_of_any() -> None:
    """The question goes out as the bot's turn begins, not when its move is due: the search
    runs while the table's bot delay does (0.6 s at ``play``), so a hard bot moves as soon as
    any other would, and never before its delay is up."""
    net = TableNet(config(bot_delay=0.6), seed=7, asks=True)
    net.join("ann")
    net.run(lambda: net.host.asking is not None)
    asked = net.host.asking
    assert asked is not None
    game = _hand(net)
    hand = net.host.hand
    assert hand is not None
    began = hand.turn_since  # type: ignore[attr-defined]
    assert net.now == began  # asked as the turn began
    steps = len(game.log)
    net.host.decided(*asked.key, decide(asked), net.now + 0.1)  # answered in 0.1 s
    net.pump()
    assert len(game.log) == steps  # answered, not yet played: the delay runs
    assert net.host.next_deadline() == began + 0.6
    net.tick(began + 0.6)
    assert len(game.log) > steps  # played when due
    assert game.log[steps][0] == asked.seat


def test_a_move_with_no_choice_is_not_asked() -> None:
    """A bot with a single legal move plays it at once, in place: a round trip to a worker
    would only add to it (about half a hard bot's turns offer one move)."""
    net = TableNet(config(bot_delay=0.0), seed=2, asks=True)
    ann = net.join("ann")
    forced = asked = 0
    for _ in range(5_000):
        if ann.session.history:
            break
        hand, question = net.host.hand, net.host.asking
        if question is not None:
            game = hand.game if hand is not None else None
            assert game is not None
            assert len(game.legal_moves()) > 1
            asked += 1
        elif hand is not None and hand.game.to_act() == 1 and len(hand.game.legal_moves()) == 1:
            forced += 1
        assert net.step()
    assert ann.session.history
    assert asked > 0
    assert forced > 0
