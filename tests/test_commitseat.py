"""A client's part in a commit-reveal hand (``lanswitch/commitseat.py``), at a table of the
real host in one process (``tests/tablenet.py``): the turn timer judged by the time its turn was
shown (also after a resume), the seed it owes from its commitment to its reveal, and its
verdict when its own head of the log never reached the host. A modified host's disputes, over
real TLS, are in ``tests/scenarios/test_cheats.py`` and ``test_cheats_more.py``."""

from __future__ import annotations

import pytest

from lanswitch import protocol as p
from lanswitch.fairdeal import Move, verify_all
from tests.records import transcript_of, verdict_of
from tests.tablenet import TableNet
from tests.test_host import config, over


def test_a_client_that_resumes_during_its_turn_judges_a_timeout_by_the_time_it_was_shown() -> None:
    """Ann's link drops before her turn begins and comes back 3 s into it: her view says 17 s
    are left, and the host's timeout 17 s later is honest. (Timing her from the resume with
    the table's whole 20 s would dispute it.)"""
    net = TableNet(config(hands=1, turn_timer=20.0, seats=2, bots=0), seed=11)
    a = net.join("ann", bot=None)
    b = net.join("bob")
    seat = a.session.seat
    net.run(lambda: b.session.my_turn())
    net.drop(a)
    net.send(b, b.session.move(net.bot("heuristic")(b.session)))
    assert net.host.hand is not None
    assert net.host.hand.game.to_act() == seat
    net.tick(net.now + 3.0)
    a = net.resume(a)
    assert a.session.my_turn()
    assert 16_000 <= a.session.timer_ms <= 17_000
    net.run(lambda: bool(a.session.history))
    (record,) = a.session.history
    assert record.proof is not None
    assert not transcript_of(record).disputes, transcript_of(record).disputes
    assert record.judgement is not None
    assert record.judgement.status == "fair", record.judgement.text()


@pytest.mark.parametrize("lost", ["final", "every"])
def test_a_seat_whose_log_head_never_reached_the_host_is_unconfirmed_not_unfair(
    lost: str,
) -> None:
    """The host's ``log_heads`` lacks bob's final head: bob's own transcript holds the head
    he signed himself, and his check is fair. Ann cannot tell a head that never came from one
    the host withheld: her verdict is unconfirmed — no blame — and says how far bob confirmed
    the log (his last signed move). A player can no longer frame the host by keeping its
    head back (v1 said unfair)."""
    net = TableNet(config(hands=1, heads_timeout=5.0), seed=4)
    a = net.join("ann")
    b = net.join("bob", auto_ready=False)
    if lost == "every":
        b.withhold = (p.LogHead,)
    net.send(b, p.Ready(ready=True))
    net.run(lambda: b.session.seq > 0)
    b.withhold = (p.LogHead,)
    net.run(lambda: over(net))
    (mine,) = b.session.history
    assert mine.judgement is not None
    assert mine.judgement.fair, mine.judgement.text()
    (theirs,) = a.session.history
    assert theirs.judgement is not None
    assert theirs.judgement.status == "unconfirmed", theirs.judgement.text()
    ((who, count),) = verdict_of(theirs).unconfirmed
    assert who == "seat1"
    assert 0 < count < verdict_of(theirs).events
    assert theirs.judgement.culprits == ()
    log = transcript_of(theirs).log
    seen = sum(isinstance(e, Move) for e in log[:count])
    total = sum(isinstance(e, Move) for e in log)
    assert f"bob confirmed the hand only to move {seen} of {total}" in theirs.judgement.text()
    # Side by side with bob's own transcript, it is settled.
    assert mine.proof is not None
    assert theirs.proof is not None
    assert [v.status for v in verify_all([transcript_of(theirs), transcript_of(mine)])] == [
        "fair"
    ] * 2


def test_a_player_owes_its_seed_from_its_commitment_to_its_reveal() -> None:
    """A seat that has committed in a round and not yet revealed is the only source of its seed:
    leaving then would void the hand and lay it on that player, so the shells wait (briefly)
    while ``owes_seed()``. Ann's commitment is held back so that bob sits in that window."""
    net = TableNet(config(hands=1), seed=3)
    a = net.join("ann")
    a.withhold = (p.Commit,)
    b = net.join("bob")
    net.run(lambda: b.session.hand is not None and a.session.hand is not None)
    assert b.session.owes_seed()  # committed; the round waits for ann
    assert a.session.owes_seed()  # (as far as her program knows, she committed too)
    a.withhold = ()
    a = net.resume(a)  # her program sends its commitment again on the new connection
    assert not b.session.owes_seed()  # the round was fixed and his seed went at once
    assert not a.session.owes_seed()
    net.run(lambda: over(net))
    (record,) = b.session.history
    assert record.judgement is not None
    assert record.judgement.fair, record.judgement.text()
    assert not b.session.owes_seed()
