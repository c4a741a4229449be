"""A client's part in a dealer-blind hand (``lanswitch/blindsession.py``), at a table of the
real host in one process (``tests/tablenet.py``), as it comes back to a hand: what it sent
before it does not send again, and a new process of the host's own player is caught up on the
hand with its own sealed keys and exactly the cards the old one held. (The host's side of the
same crash recovery is ``tests/test_journal.py``; modified players and hosts over real TLS are
``tests/scenarios/test_blind_net.py``.)"""

from __future__ import annotations

from lanswitch import protocol as p
from lanswitch.blindsession import BlindPart
from tests.records import blind_file_of
from tests.tablenet import TableNet
from tests.test_journal import config, owner, restart_play


def test_a_blind_player_who_missed_the_end_of_a_hand_comes_back_between_hands() -> None:
    """bob's seeds reached the host and ended hand 1; the host died before the hand's end
    reached bob. The restored host is between hands: bob, back by his token, is caught up on
    hand 1 (its end included) and judges it; and what he had sent in hand 1 he does not send
    again — hand 2 begins as he comes back, and its blind messages look the same. (Before, his
    hand-1 passes and keys reached hand 2 and stopped it: "VOID (dealer-blind): seat1 gave a
    shuffle pass that is not its input locked and reordered", blamed on honest bob.)"""
    net = TableNet(config(blind=True, hands=2, seats=3, bots=1), seed=21, journal=True)
    ann = net.join("ann")
    bob = net.join("bob", auto_ready=False)
    bob.withhold = (p.BlindSeeds,)
    bob.session.auto_ready = True
    net.send(bob, p.Ready(ready=True))

    def seeds_made() -> bool:
        h = bob.session.hand
        return h is not None and isinstance(h.part, BlindPart) and h.part.seeds_sent

    net.run(seeds_made)
    assert bob.session.hand is not None
    assert isinstance(bob.session.hand.part, BlindPart)
    (seeds,) = [m for m in bob.session.hand.part.sent if isinstance(m, p.BlindSeeds)]
    bob.alive = False  # the link dies as the seeds go out: the hand's end never reaches bob
    net.links.pop(bob.cid)
    net.host.receive(bob.cid, seeds, net.now)
    net.pump()
    assert net.host.hand is None  # hand 1 is over at the host
    assert not bob.session.history
    (ann,) = net.crash()
    bob = net.resume(bob)
    net.run(lambda: net.host.finished)
    for link in (ann, bob):
        verdicts = [(r.hand_no, str(r.judgement)) for r in link.session.history]
        assert verdicts == [(1, "FAIR (dealer-blind)"), (2, "FAIR (dealer-blind)")]
        assert not [m for m in link.received if isinstance(m, p.Reject)]


def test_a_restarted_blind_player_process_between_hands_judges_the_last_hand_and_plays_on() -> None:
    """``lanswitch play --resume`` of a blind table that died between hands, bob's ready for
    the next hand lost with it: the host's own player, a new process, is caught up on hand 1
    with the sealed keys that were its own (by its key: no seat is in play between hands) and
    keeps the same file of it as before; it sends nothing for hand 1; bob's client says ready
    again on its new link; hand 2 is played, fair. (Before: the table waited for bob's ready
    for ever; with it, the new process's hand-1 passes reached hand 2 and voided it, "seat0
    sent a message whose signature does not verify (pass 1)", and its file of hand 1 held
    none of its keys.)"""
    raw = bytes(range(32))
    net = TableNet(config(blind=True, hands=2, seats=3, bots=1), seed=21, journal=True)
    ann = net._open(owner(raw))
    ann.chooser = net.bot("heuristic")
    bob = net.join("bob")
    bob.withhold = (p.Ready,)  # (hand 1 has begun: his next ready is lost)
    net.run(lambda: bool(ann.session.history))
    assert net.host.hand is None
    (before,) = ann.session.history
    token = ann.session.token
    ann, bob, fresh = restart_play(net, ann, bob, raw, token)
    ann.chooser = net.bot("heuristic")
    net.run(lambda: net.host.finished)
    for link in (ann, bob):
        verdicts = [(r.hand_no, str(r.judgement)) for r in link.session.history]
        assert verdicts == [(1, "FAIR (dealer-blind)"), (2, "FAIR (dealer-blind)")]
        assert not [m for m in link.received if isinstance(m, p.Reject)]
    assert blind_file_of(fresh.history[0]) == blind_file_of(before)


def test_a_restarted_blind_player_process_holds_the_cards_the_old_one_held() -> None:
    """``lanswitch play --resume`` mid blind hand, after the host's own player had laid a card:
    the new process, caught up, holds exactly the cards the old one held — not also the ones
    the old one laid. (Before, a laid card stayed listed as held; once a reshuffle brought
    the same card back, the new process laid it by its old position: "UNFAIR (dealer-blind):
    ann laid a card that was never in its hand", blamed on honest ann — seen over real
    processes, 1 run in 4 of the tmux test in test_crash.py.)"""
    raw = bytes(range(32))
    net = TableNet(config(blind=True, hands=1, seats=3, bots=1), seed=5, journal=True)
    ann = net._open(owner(raw))
    ann.chooser = net.bot("heuristic")
    bob = net.join("bob")

    def laid_twice() -> bool:  # two cards of hers laid, and the hand goes on
        h = ann.session.hand
        if h is None or not isinstance(h.part, BlindPart) or h.part.ended:
            return False
        laid = [m for m in h.part.follower.moves if m.by == "seat0" and m.hidden >= 0]
        return len(laid) >= 2

    net.run(laid_twice)
    old = ann.session.hand
    assert old is not None
    assert isinstance(old.part, BlindPart)
    assert old.part.part is not None
    held = dict(old.part.part.holder.cards)
    token = ann.session.token
    ann, bob, fresh = restart_play(net, ann, bob, raw, token)  # ann caught up on the hand
    new = fresh.hand
    assert new is not None
    assert isinstance(new.part, BlindPart)
    assert new.part.part is not None
    assert new.part.part.holder.cards == held
    ann.chooser = net.bot("heuristic")
    net.run(lambda: net.host.finished)
    for link in (ann, bob):
        assert [str(r.judgement) for r in link.session.history] == ["FAIR (dealer-blind)"]
