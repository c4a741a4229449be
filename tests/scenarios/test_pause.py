"""A table its host stops mid-hand to carry on later (protocol v7's ``error`` ``paused``).

Ctrl-C on a host mid-match stops the table and keeps its journal for ``--resume``
(``Server.stop``). Before v7 every client took that for the table's end and judged the hand
in play at once: "UNFAIR: the host never signed the log it sent you", blame the host — for
an orderly stop, in every friend's history and in the host's own player's. Now a client
waits for the table to come back (``tests/scenarios/test_crash.py`` resumes one, end to end); a
client
that gives up first — its player leaves, or its patience runs out — records the hand
**unfinished**: not scored, no verdict, nobody blamed. Unless the hand had already shown it
a problem: a pause does not launder a cheat, whose verdict stands.

Real TLS on loopback, the real host and untouched clients, in both deals.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import protocol as p
from lanswitch.cli import main
from lanswitch.client import Client, JoinError, Target
from lanswitch.fairdeal.primitives import DEALER
from lanswitch.history import History, HistoryWriter, result_text, verdict_text
from lanswitch.host import Host
from lanswitch.server import Server
from lanswitch.session import HandRecord, Session
from lanswitch.tls import server_context
from tests.cheats import config, identity
from tests.scenarios.test_cheats import HidingHost

LOOPBACK = "127.0.0.1"
STOPPED = "the host stopped the table mid-match; it can carry on where it stopped"


def _bot(session: Session) -> int:
    """The first legal move (the pause is what is tested, not the play)."""
    view = session.view
    assert view is not None
    return view.legal[0]


def stop_mid_hand(
    host: Host, tmp: Path, *, leave: str, pause_bob_only: bool = False
) -> dict[str, Session]:
    """Seat ann and bob at ``host``'s table over TLS, stop the table (``Server.stop``) once
    the hand is under way, and let each give up waiting its own way: ann's patience runs out
    (1.5 s), bob leaves (his client task is cancelled, as the terminal client's is on ``q``).
    ``leave``: also stop ann by cancelling ("both") instead. Their sessions."""
    ident = identity(tmp)
    clients: dict[str, Client] = {}

    async def main() -> None:
        server = Server(host, ssl_context=server_context(ident), address=LOOPBACK)
        await server.start()
        target = Target("Paused", (LOOPBACK,), server.port, ident.fingerprint, f"{LOOPBACK}:x")
        for name in ("ann", "bob"):
            session = Session(
                name,
                key=Ed25519PrivateKey.generate(),
                entropy=os.urandom,
                auto_ready=True,
                clock=time.monotonic,
            )
            clients[name] = Client(
                session, target, chooser=_bot, think=0.05, reconnect_for=5.0, pause_patience=1.5
            )
        tasks = {n: asyncio.create_task(c.run()) for n, c in clients.items()}
        try:
            for _ in range(400):  # the hand under way: a few moves made (up to 20 s)
                hand = host.hand
                if hand is not None and all(
                    c.session.view is not None and c.session.seq >= 4 for c in clients.values()
                ):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("no hand got under way")
            if pause_bob_only:
                assert isinstance(host, ShunningHost)
                await host.pause_one(server, clients["bob"].session)
                for _ in range(400):  # bob told; the others play his seat out (up to 20 s)
                    if host.match.results:
                        break
                    await asyncio.sleep(0.05)
                assert host.match.results, "the hand did not end without bob"
                # bob tries again and again, turned away each time, until his client gives up
                # (reconnect_for, 5 s: a lost link's patience, not a pause's).
                (gone,) = await asyncio.gather(tasks["bob"], return_exceptions=True)
                assert isinstance(gone, JoinError), gone
                await asyncio.wait_for(tasks["ann"], 30.0)  # ann's match is over
                return
            await server.stop(f"{STOPPED} (the host runs lanswitch host --resume)")
            for _ in range(200):  # both told (up to 10 s)
                if all(c.session.paused is not None for c in clients.values()):
                    break
                await asyncio.sleep(0.05)
            assert all(c.session.paused is not None for c in clients.values())
            assert not any(t.done() for t in tasks.values())  # waiting, not gone
            for name in ("bob", "ann") if leave == "both" else ("bob",):
                tasks[name].cancel()
            results = await asyncio.gather(*tasks.values(), return_exceptions=True)
            for name, r in zip(tasks, results, strict=True):
                if leave != "both" and name == "ann":
                    assert isinstance(r, JoinError), r  # her patience ran out
                    assert "did not carry it on within" in str(r), r
                else:
                    assert isinstance(r, asyncio.CancelledError), r
        finally:
            await server.close()

    async def bounded() -> None:
        async with asyncio.timeout(60.0):
            await main()

    asyncio.run(bounded())
    return {n: c.session for n, c in clients.items()}


class ShunningHost(Host):
    """A modified host: it tells bob alone that the table is paused, plays on — his seat by
    its stand-in — and turns his reconnections away before any welcome, hoping his record of
    the hand says "unfinished, nobody blamed" rather than judging a hand played without him."""

    shunned: bytes = b""

    async def pause_one(self, server: Server, bob: Session) -> None:
        self.shunned = bob.public_key
        seat = bob.seat
        assert seat is not None
        cid = self.cid_of_seat(seat)
        assert cid is not None
        self._close(cid, p.Error(code=p.ErrorCode.PAUSED, text=f"{STOPPED} (it is not)"))
        server.poke()

    def receive(self, cid: int, message: p.Message, now: float) -> None:
        if isinstance(message, p.Hello) and message.key == self.shunned:
            self._close(cid, None)  # not taken back: no welcome, no word
            return
        super().receive(cid, message, now)


def _last(session: Session) -> HandRecord:
    assert session.history, f"{session.name} recorded nothing"
    return session.history[-1]


@pytest.mark.parametrize("blind", [False, True], ids=["commit-reveal", "dealer-blind"])
@pytest.mark.parametrize("leave", ["patience", "both"])
def test_a_hand_its_host_stopped_is_left_unfinished_not_unfair(
    tmp_path: Path, blind: bool, leave: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = stop_mid_hand(
        Host(config(blind=blind, seats=2, bots=0), entropy=os.urandom, now=time.monotonic()),
        tmp_path,
        leave=leave,
    )
    for name, session in sessions.items():
        record = _last(session)
        assert record.over.reason == "unfinished", (name, record.over)
        assert record.judgement is None, (name, record.judgement and record.judgement.headline)
        said = [n.text for n in session.news if n.kind == "warning"]
        assert any("is left unfinished: the host stopped the table" in t for t in said), said
        assert not any(n.kind == "verdict" for n in session.news), name
        # The history keeps it so, through sqlite: not "watched", not judged.
        writer = HistoryWriter(tmp_path / name)
        failed = writer.record(record, name=name, table="Paused", host="127.0.0.1", client="")
        assert failed is None, failed
        writer.close()
        with History.in_dir(tmp_path / name) as kept:
            (row,) = kept.rows()
        assert row.status == "unfinished", row.status
        assert result_text(row) == "unfinished: no result"
        assert verdict_text(row).startswith("not checked: the host stopped the table"), row
        assert row.transcript is None  # verify would read a hand stopped short as unfair
        assert main(["--data-dir", str(tmp_path / name), "verify", "--hand", str(row.id)]) == 2
        _out, err = capsys.readouterr()
        assert "stopped the table during this hand and never carried it on" in err, err
        paused = [n.text for n in session.news if n.kind == "paused"]
        assert paused, name
        assert paused[0].startswith(STOPPED), paused


def test_a_pause_does_not_launder_a_cheat(tmp_path: Path) -> None:
    """A host that hid a card from ann's screen, then stops the table before the hand's end:
    ann's client had seen the problem, and the hand is judged — unfair, the host to blame —
    not left unfinished."""
    host = HidingHost(config(seats=2, bots=0), entropy=os.urandom, now=time.monotonic())
    sessions = stop_mid_hand(host, tmp_path, leave="patience")
    record = _last(sessions["ann"])
    j = record.judgement
    assert j is not None, record.over
    assert j.status == "unfair", j.headline
    assert j.culprits == (DEALER,), j.culprits  # the host, on ann's own record
    said = [n.text for n in sessions["ann"].news if n.kind == "warning"]
    assert any("your screen is not your hand" in t for t in said), said
    assert _last(sessions["bob"]).judgement is None  # bob saw nothing wrong: unfinished


@pytest.mark.parametrize("blind", [False, True], ids=["commit-reveal", "dealer-blind"])
def test_a_pause_told_to_one_player_while_the_table_plays_on_is_not_a_pause(
    tmp_path: Path, blind: bool
) -> None:
    """A host that says "paused" to bob alone and plays his seat out without him: bob's client
    tries to come back, the host answers and turns it away — a host that answers is serving,
    not paused — so when bob gives up, his hand is judged as a lost link's (unfair, the host
    to blame: it never sent him the hand's end), not left unfinished with nobody blamed."""
    host = ShunningHost(
        config(seats=2, bots=0, blind=blind), entropy=os.urandom, now=time.monotonic()
    )
    sessions = stop_mid_hand(host, tmp_path, leave="", pause_bob_only=True)
    bob = sessions["bob"]
    record = _last(bob)
    j = record.judgement
    assert j is not None, (record.over, [n.text for n in bob.news][-6:])
    # The hand's end never came to him: commit-reveal, unfair (no head of the log from the
    # host); dealer-blind, void on the host (it withheld the seeds), as for any lost link.
    assert j.status == ("void" if blind else "unfair"), j.headline
    assert j.culprits == (DEALER,), j.culprits
    assert bob.paused is None  # the pause was void once the host answered
