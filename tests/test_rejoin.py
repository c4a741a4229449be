"""A seat taken back by a new run of its player's program, at a table of the real host in one
process (``tests/tablenet.py``): the old run ended (a crash, a closed terminal, a kill) and a
new one came back with its session key and resume token (``lanswitch.seatkeep``), with none of
the old run's hand, seeds or records (``TableNet.restart``).

The host replays the hand to it (SPEC § Resuming). Before, the new run's part drew a seed of
its own for the hand's first round, and the round's fixed announcement then showed the old
run's commitment: "round 0: the host changed or dropped our commitment", and the hand UNFAIR,
blaming the host, proven by signatures — an honest host accused by its own player. Now a
commitment its own key signed is the seat's own (``fairdeal.seat``), its seed comes back with
everyone's after the hand, and the verdict is fair. The seeds are never kept: a run that ended
between committing and revealing fails that round, blamed on its seat, as a vanished player's
does. A dealer-blind hand cannot be played on by a new run (its locking keys went with the old
one): it sits that hand out."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from lanswitch import protocol as p
from lanswitch.fairdeal import DEALER, verify
from lanswitch.host._commit import CommitHand
from lanswitch.session import Session
from tests.forking import RedealingHost, power
from tests.records import transcript_of, verdict_of
from tests.tablenet import Link, TableNet
from tests.test_host import config


def said(s: Session, *kinds: str) -> list[str]:
    return [n.text for n in s.news if n.kind in kinds]


def until_step(link: Link, step: int) -> bool:
    h = link.session.hand
    return h is not None and h.over is None and link.session.seq >= step


@pytest.mark.parametrize(
    ("step", "away"),
    [(1, 0.0), (4, 0.0), (12, 0.0), (30, 0.0), (4, 9.0), (20, 9.0)],
    ids=["step1", "step4", "step12", "step30", "step4-stood-in", "step20-stood-in"],
)
def test_a_new_run_takes_its_seat_back_mid_hand_and_every_verdict_is_fair(
    step: int, away: float
) -> None:
    """``away`` past the grace (5 s): the host's stand-in played the seat meanwhile, and
    later rounds ran without it."""
    net = TableNet(config(seats=3, bots=1, hands=1), seed=step)
    bob, ann = net.join("bob"), net.join("ann")
    net.run(lambda: until_step(bob, step))
    seat, hand_no = bob.session.seat, bob.session.hand and bob.session.hand.message.hand_no
    new = net.restart(bob, away=away)
    net.run(lambda: net.host.finished)
    s = new.session
    assert seat is not None
    assert said(s, "welcome") == [f"resumed seat {seat + 1} at T"]
    assert said(s, "warning", "reject") == []
    (record,) = s.history
    assert (record.hand_no, record.seat) == (hand_no, seat)
    assert record.judgement is not None
    assert record.judgement.fair, record.judgement.text()
    for r in transcript_of(record).rounds:  # its own seed in every round it took part in
        if r.announces[0].mask >> seat & 1:
            assert r.own_seed is not None, r
            assert r.own_seed_sent, r
    if away:
        assert said(s, "presence")[:1] == [
            "you lost the link: the host plays your seat until you are back"
        ]
    assert [r.judgement is not None and r.judgement.fair for r in ann.session.history] == [True]
    assert "bob is back" in net.host.log_since(0)[0]


def _restarted_between_hands(**kw: Any) -> tuple[TableNet, Link, Link]:
    """bob and ann at a table of two hands (and ``kw``); bob's program ends after hand 1 and a
    new run takes his seat back between hands, ready. The table, the new run, and ann."""
    net = TableNet(config(seats=3, bots=1, hands=2, **kw), seed=4)
    bob, ann = net.join("bob", auto_ready=False), net.join("ann")
    net.send(bob, p.Ready(ready=True))
    net.run(lambda: bool(bob.session.history) and not net.host.table.in_play)
    new = net.restart(bob)
    new.session.auto_ready = True
    net.send(new, p.Ready(ready=True))
    return net, new, ann


def test_a_new_run_between_hands_follows_the_ended_hand_and_sends_nothing_for_it() -> None:
    """Between hands the host replays the hand that ended to a player who resumes, in case it
    lost the end. A new run follows it for its verdict; a commitment or a head of it sent back
    would reach the next hand (refused, or read as a bad signature there)."""
    net, new, ann = _restarted_between_hands()
    net.run(lambda: net.host.finished)
    s = new.session
    assert said(s, "warning", "reject") == []
    assert [(r.hand_no, r.judgement is not None and r.judgement.fair) for r in s.history] == [
        (1, True),
        (2, True),
    ]
    assert [r.judgement is not None and r.judgement.fair for r in ann.session.history] == [
        True,
        True,
    ]


def test_a_run_that_ended_between_committing_and_revealing_fails_that_round_as_its_own() -> None:
    net = TableNet(config(seats=2, bots=1, hands=1), seed=5)
    bob = net.join("bob", auto_ready=False)
    bob.withhold = (p.Reveal,)  # its seed never leaves: the program ends first

    def revealed() -> bool:
        h = bob.session.hand
        rec = None if h is None else getattr(h.part, "recorder", None)
        return rec is not None and bool(rec.rounds) and rec.rounds[0].revealed is not None

    net.send(bob, p.Ready(ready=True))
    net.run(revealed)
    new = net.restart(bob)
    net.run(lambda: bool(new.session.history), steps=50_000)
    (record,) = new.session.history
    j = record.judgement
    assert j is not None
    assert j.status == "void", j.text()
    assert j.culprits == ("seat0",), j  # blamed on bob, on the host's word: not the host
    assert "the host changed" not in j.text()


def test_a_seed_the_host_reveals_for_an_earlier_runs_round_must_be_that_seats_own() -> None:
    """The seed a new run takes back must open the commitment under its own key's signature: a
    host that reveals another seed for it is not believed (the round went ahead without a seed
    of the seat's that it can show)."""
    net = TableNet(config(seats=3, bots=1, hands=1), seed=6)
    bob, _ann = net.join("bob"), net.join("ann")
    net.run(lambda: until_step(bob, 6))
    new = net.restart(bob)
    s = new.session
    take = s.receive
    pid = f"seat{bob.session.seat}"

    def forged(m: p.Message) -> list[p.Message]:
        if isinstance(m, p.Reveals) and pid in m.seeds:
            _, signature = m.seeds[pid]
            m = dataclasses.replace(m, seeds={**m.seeds, pid: (bytes(32), signature)})
        return take(m)

    s.receive = forged  # type: ignore[method-assign,assignment]
    net.run(lambda: bool(s.history))
    (record,) = s.history
    assert record.judgement is not None
    assert not record.judgement.fair, record.judgement.text()
    rounds = transcript_of(record).rounds
    assert rounds[0].own_seed is None  # not taken back: it does not open the commitment


def test_a_new_run_sits_out_a_dealer_blind_hand_its_earlier_run_played() -> None:
    """Replayed to a new run, a dealer-blind hand the old one played would read as this seat
    cheating: the keys it made anew open nothing. It follows the hand as a watcher, says why,
    and plays the next one."""
    net, new, ann = _restarted_between_hands(blind=True)
    net.run(lambda: net.host.finished, steps=50_000)
    s = new.session
    (warning,) = said(s, "warning")
    assert warning.startswith("hand 1 is dealer-blind, and your part in it")
    assert said(s, "reject") == []
    assert [(r.hand_no, r.judgement is not None and r.judgement.fair) for r in s.history] == [
        (1, False),  # watched: no judgement of its own
        (2, True),
    ]
    assert s.history[0].judgement is None
    assert [r.judgement is not None and r.judgement.fair for r in ann.session.history] == [
        True,
        True,
    ]


def test_a_commitment_held_through_a_replay_goes_once_the_replay_ends() -> None:
    """A new run that comes back while the round it is in still waits for commitments sends
    its own when the replay ends (not before: the replay might yet show one its key made), and
    the hand goes on."""
    net = TableNet(config(seats=3, bots=1, hands=1), seed=9)
    bob, _ann = net.join("bob", auto_ready=False), net.join("ann")
    bob.withhold = (p.Commit,)  # the first round waits on bob when its program ends
    net.send(bob, p.Ready(ready=True))
    net.run(lambda: bob.session.hand is not None)
    new = net.restart(bob)
    net.run(lambda: net.host.finished, steps=50_000)
    s = new.session
    assert said(s, "warning", "reject") == []
    (record,) = s.history
    assert record.judgement is not None
    assert record.judgement.fair, record.judgement.text()
    first = transcript_of(record).rounds[0]
    assert record.seat is not None
    assert first.announces[0].mask >> record.seat & 1  # (not announced anew without it)
    assert first.own_seed is not None  # this run's own, sent after all
    assert first.own_seed_sent


def test_a_host_that_deals_the_hand_again_to_a_new_run_cannot_choose_its_deal() -> None:
    """The forking host (``tests/forking.py``): once bob's program has revealed its seed for the
    deal and ended, the host deals the hand again to the new run — the same setup and log before
    the deal, so the same round-0 context; bob's genuine earlier commitment; its own commitment
    to a seed ground with bob's seed in hand; bob's seed revealed after the hand under bob's own
    signature. The new run must not call that fair."""
    net = TableNet(config(seats=2, bots=1, hands=1), seed=11, host=RedealingHost)
    bob = net.join("bob")
    net.run(lambda: until_step(bob, 6))
    new = net.restart(bob)
    net.run(lambda: net.host.finished, steps=50_000)
    host = net.host
    assert isinstance(host, RedealingHost)
    assert host.forked is not None  # it did deal the hand again
    assert host.real is not None
    real0, fork0 = host.real.dealer.rounds[0], host.forked.dealer.rounds[0]
    assert fork0.round.ctx == real0.round.ctx  # the same round, as far as a context can tell
    assert fork0.round.commitments[DEALER] != real0.round.commitments[DEALER]
    bot = 1 - (bob.session.seat or 0)

    def dealt(hand: CommitHand) -> list[int]:
        return [v for kind, q, v in hand.steps[0][0] if kind == "deal" and q == bot]

    assert power(dealt(host.forked)) > power(dealt(host.real))  # the deal the host chose
    s = new.session
    (record,) = s.history
    j = record.judgement
    assert j is not None
    assert j.status == "unfair", j.text()
    assert j.culprits == (DEALER,), j
    assert verdict_of(record).proven, j.text()  # the host's own two signed announcements
    assert verify(transcript_of(record)).status == "unfair"  # lanswitch verify of its file
    assert any("your earlier run revealed its seed" in w for w in said(s, "warning")), said(
        s, "warning"
    )


class RedealsHandOne(RedealingHost):
    redeal = 1


def test_a_host_that_deals_an_earlier_hand_again_to_a_new_run_cannot_choose_its_deal() -> None:
    """The kept seat holds only the last hand's rounds (hand 2's, here), so a host that deals
    hand 1 again to the new run — bob's genuine commitment, its own chosen after it knew bob's
    seed — shows rounds the record does not hold: their seeds are never taken back (an honest
    host replays only the hand in play or the one just ended), and the verdict is not fair.
    Taken back there, as a round not kept could be "never revealed in", it was FAIR."""
    net = TableNet(config(seats=2, bots=1, hands=3), seed=12, host=RedealsHandOne)
    bob = net.join("bob")

    def in_hand_two() -> bool:
        h = bob.session.hand
        return h is not None and h.message.hand_no == 2 and until_step(bob, 3)

    net.run(in_hand_two)
    kept = bob.session.keep
    assert kept is not None
    assert kept.hand_no == 2  # the last hand's rounds only
    new = net.restart(bob)
    net.run(lambda: bool(new.session.history), steps=50_000)
    host = net.host
    assert isinstance(host, RedealsHandOne)
    assert host.forked is not None  # it dealt hand 1 again
    assert host.forked.game.hand_no == 1
    s = new.session
    record = s.history[0]
    assert record.hand_no == 1
    j = record.judgement
    assert j is not None
    assert j.status == "unfair", j.text()
    assert j.culprits == (DEALER,), j
    rounds = transcript_of(record).rounds
    assert rounds[0].own_seed is None  # bob's seed of the real hand 1: not taken back
    assert any("never revealed in this hand, by its own record" in w for w in said(s, "warning"))
