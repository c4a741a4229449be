"""The client's session (``lanswitch/session.py``), at a table of the real host in one process
(``tests/tablenet.py``): what it takes from the host and checks itself — its seat, its own
name, a step it missed, a hand the host never settles — and the verdict it puts in words."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import protocol as p
from lanswitch.fairdeal import verify
from lanswitch.host import Host
from lanswitch.session import HEADS_PATIENCE, Session, named
from tests.records import transcript_of
from tests.tablenet import TableNet
from tests.test_host import config, over


def test_a_client_may_leave_the_hands_check_to_its_shell() -> None:
    net = TableNet(config(seats=3, bots=1), seed=7)
    checked, unchecked = net.join("ann"), net.join("bob")
    unchecked.session.verify_hands = False
    net.run(lambda: over(net))
    assert [r.judgement is not None for r in checked.session.history] == [True, True]
    for r in unchecked.session.history:
        assert r.judgement is None
        assert r.proof is not None
        assert verify(transcript_of(r)).fair  # what the shell (a load generator) checks itself
    assert not any(n.kind == "verdict" for n in unchecked.session.news)


def test_a_client_takes_its_seat_from_the_host_not_from_its_key_in_the_lobby() -> None:
    """Before, a client took the first seat showing its key for its own: a seat someone
    else held with a copy of its public key came first, and the client played that seat
    (issue #15, item 2). Its own seat's key is still checked when a hand is dealt."""
    net = TableNet(config(seats=3, bots=0))
    me = Session("ann", key=net.host.key, entropy=net.rng.randbytes)
    mine = me.public_key
    me.receive(p.Welcome(version=p.PROTOCOL_VERSION, table="T", seat=1, token=bytes(16)))
    assert me.seat == 1
    seats = (
        p.LobbySeat(name="mallory", id="seat0", connected=True, key=mine),
        p.LobbySeat(name="ann", id="seat1", connected=True, key=mine),
        p.LobbySeat(name="", id=""),
    )
    me.receive(p.LobbyState(table="T", rules="switch", host=None, seats=seats, you=1))
    assert me.seat == 1
    me.receive(p.LobbyState(table="T", rules="switch", host=None, seats=seats, you=None))
    assert me.seat is None  # stood up, by the host's word
    me.receive(p.LobbyState(table="T", rules="switch", host=None, seats=seats, you=5))
    assert me.seat is None
    assert "seat 6 of a table of 3 seats" in me.news[-2].text  # (then the lobby's own news)


def test_a_client_cleans_its_own_name_before_it_says_hello() -> None:
    me = Session("ann\t\u202eb", key=net_key(), entropy=bytes)
    assert me.hello().name == "ann b"
    p.encode_frame(me.hello())  # a valid hello
    with pytest.raises(ValueError, match="no visible characters"):
        Session("\u200b\u0301", key=net_key(), entropy=bytes)


def net_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def test_a_verdict_on_screen_names_the_players_not_the_fair_deals_ids() -> None:
    names = ("ann", "bob", "")
    assert named("blame @dealer, seat1, seat2 and seat7", names) == (
        "blame the host, bob, seat2 and seat7"  # seat2's name unknown, seat7 past the table
    )
    assert named("seat10 and myseat1", ["x"] * 11) == "x and myseat1"


def test_a_client_that_misses_a_step_resumes_and_catches_up() -> None:
    net = TableNet(config(hands=1), seed=12)
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: a.session.seq >= 3)
    # A step's messages went missing on the way (a bug in some middlebox): the next events
    # show a gap. The session gives nothing up (no bye) and asks its shell to resume.
    gap = p.Events(seq=a.session.seq + 2, events=(), log=())
    assert a.session.receive(gap) == []
    assert a.session.lost_place
    net.drop(a)
    a2 = net.resume(a)
    assert a2.session.seq == b.session.seq
    assert not a2.session.lost_place
    net.run(lambda: over(net))
    (record,) = a2.session.history
    assert record.judgement is not None
    assert record.judgement.fair, record.judgement.text()


class _Unfinishing(Host):
    """Ends each hand but never sends its seeds nor the log heads; ``stall``: and then never
    deals again nor ends the match (the table just goes quiet, answering pings)."""

    stall = False

    def broadcast(self, message: p.Message) -> None:
        if not isinstance(message, p.Reveals | p.LogHeads):
            super().broadcast(message)

    def _between_hands(self) -> bool:
        return False if self.stall and self.match.hand_no else super()._between_hands()


@pytest.mark.parametrize("stall", [False, True])
def test_a_hand_the_host_never_settles_gets_a_verdict_all_the_same(stall: bool) -> None:
    """The host closes the table (or goes quiet for good) after a hand's end without its seeds
    and heads: each seat settles the hand with what it holds — never fair, never no verdict."""
    cfg = config(hands=2 if stall else 1, seats=2, bots=0)
    net = TableNet(cfg, seed=3)
    net.host = type("U", (_Unfinishing,), {"stall": stall})(
        cfg, entropy=net.rng.randbytes, now=net.now
    )
    a = net.join("ann")
    b = net.join("bob")
    net.run(lambda: a.session.hand is not None and a.session.hand.over is not None)
    over = net.now
    net.tick(over + (HEADS_PATIENCE + 5 if stall else 60))
    for link in (a, b):
        (record,) = link.session.history
        assert record.judgement is not None
        assert record.judgement.status == "unfair", record.judgement.text()
        assert record.judgement.culprits == ("@dealer",)
        why = "the host never finished the hand" if stall else "the host closed the table"
        said = [n.text for n in link.session.news if why in n.text]
        assert said, [n.text for n in link.session.news if n.kind == "warning"]
        assert "it never sent the seeds nor its head of the log" in said[0]
    assert link.session.closed is not stall


@pytest.mark.parametrize("paused", [False, True])
def test_a_watcher_whose_token_is_refused_keeps_following_the_hand(paused: bool) -> None:
    """The newcomer pass: a friend waiting for a seat (no seat of its own) while the host
    stopped the table; the host came back (``--resume``) and refused the waiting player's old
    token, and the friend read "the host no longer keeps your seat" (it had none) and "hand 3
    is left unfinished: the host … did not carry it on", and its history kept the hand so,
    while the host had carried it on. A client with no seat in the hand gives nothing up: it
    joins again (the client shell) and goes on following the hand."""
    net = TableNet(config(hands=1), seed=3)
    ann, _ = net.join("ann"), net.join("bob")
    eve = net.join("eve", spectate=True, bot=None)
    net.run(lambda: ann.session.seq > 10)
    s = eve.session
    assert s.hand is not None
    assert not s.hand.done
    assert s.token is not None
    if paused:
        s.receive(p.Error(code=p.ErrorCode.PAUSED, text="the host stopped the table mid-match"))
        assert s.paused is not None
    s.receive(p.Error(code=p.ErrorCode.BAD_TOKEN, text="unknown token"))
    assert s.closed  # the shell joins again as someone new (lanswitch.client)
    assert s.history == []  # nothing recorded of a hand that goes on
    assert not s.hand.done
    said = [n.text for n in s.news if n.kind in ("seat", "warning")]
    assert said[-1] == (
        "the host did not take you back as you were (you had no seat to keep): joining again"
    )
    assert not any("unfinished" in x or "no longer keeps your seat" in x for x in said), said
