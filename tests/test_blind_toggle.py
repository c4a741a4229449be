"""The host's player switches a table between dealer-blind and commit-reveal deals from the
lobby (``Host.set_blind``): between hands only, never at a table with a turn timer; the
lobby says so at once, the next hand is dealt as set, and a resumed host comes back in the
mode its journal says."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanswitch import protocol as p
from lanswitch.fairdeal.judgement import COMMIT_REVEAL, DEALER_BLIND
from lanswitch.host import Host, HostConfig
from lanswitch.hosting import advertiser_for, new_table, resume_table
from lanswitch.session import Session
from lanswitch.table import Refusal, Refused
from lanswitch.tls import load_or_create_identity
from tests.tablenet import Link, TableNet


def config(**kw: object) -> HostConfig:
    base: dict[str, object] = {"name": "T", "seats": 3, "bots": 1, "bot_delay": 0, "hands": 3}
    base.update(kw)
    return HostConfig(**base)  # type: ignore[arg-type]


def lobby(link: Link) -> p.LobbyState:
    assert link.session.lobby is not None
    return link.session.lobby


def between_hands(net: TableNet, s: Session, n: int) -> bool:
    return len(s.history) == n and net.host.hand is None


def test_the_host_switches_the_deal_between_hands_and_each_hand_is_dealt_as_set() -> None:
    net = TableNet(config(blind=False), seed=3)
    ann = net.join("ann", auto_ready=False)
    bob = net.join("bob")  # says ready by itself, again after every change
    assert not net.host.blind
    assert not lobby(ann).blind
    net.host.set_blind(True)
    assert net.host.blind
    assert not net.host.table.seats[1].ready  # everyone confirms the new deal again
    net.pump()
    assert lobby(ann).blind  # the lobby went out again at once
    assert lobby(bob).blind
    assert lobby(bob).seats[1].ready  # bob's client confirmed again
    assert "the next hands are dealt dealer-blind" in net.host.log

    net.send(ann, p.Ready(ready=True))
    assert net.host.hand is not None
    with pytest.raises(Refused) as refused:
        net.host.set_blind(False)  # not while a hand is in play
    assert refused.value.refusal is Refusal.IN_PLAY
    assert net.host.blind
    net.run(lambda: between_hands(net, ann.session, 1))
    for link in (ann, bob):
        record = link.session.history[-1]
        assert record.deal is DEALER_BLIND, "hand 1 was not dealt dealer-blind"
        assert record.judgement is not None
        assert record.judgement.status == "fair", str(record.judgement)

    net.host.set_blind(False)
    net.pump()
    assert not lobby(ann).blind
    net.send(ann, p.Ready(ready=True))
    net.run(lambda: between_hands(net, ann.session, 2))
    for link in (ann, bob):
        record = link.session.history[-1]
        assert record.deal is COMMIT_REVEAL, "hand 2 was dealt dealer-blind"
        assert record.judgement is not None
        assert record.judgement.fair, record.judgement.text()
    net.host.set_blind(False)  # already so: nothing changes, no one confirms again
    assert net.host.table.seats[1].ready


def test_a_table_with_a_turn_timer_cannot_be_made_dealer_blind() -> None:
    net = TableNet(config(turn_timer=30), seed=4)
    ann = net.join("ann", auto_ready=False)
    with pytest.raises(Refused) as refused:
        net.host.set_blind(True)
    assert refused.value.refusal is Refusal.TIMED_BLIND
    assert "turn timer" in str(refused.value)
    net.host.set_blind(False)  # commit-reveal it is already
    assert not net.host.blind
    assert not lobby(ann).blind


def test_a_restored_host_deals_in_the_mode_its_journal_says() -> None:
    net = TableNet(config(blind=False), seed=6, journal=True)
    net.host.set_blind(True)
    net.join("ann")
    net.join("bob")
    restored = Host.restore(list(net.host.inputs), entropy=net.rng.randbytes)
    assert restored.blind
    assert not restored.config.blind
    assert restored._lobby().blind
    for _ in range(40):  # into the first hand, then the host dies
        net.step()
    assert net.host.hand is not None
    links = net.crash()
    assert net.host.blind
    net.run(lambda: net.host.finished)
    for link in links:
        s = link.session
        assert [r.hand_no for r in s.history] == [1, 2, 3]
        for r in s.history:
            assert r.deal is DEALER_BLIND
            assert r.judgement is not None
            assert r.judgement.status == "fair", str(r.judgement)


def test_a_refused_switch_replays_as_refused() -> None:
    net = TableNet(config(turn_timer=30), seed=7, journal=True)
    with pytest.raises(Refused):
        net.host.set_blind(True)
    net.join("ann")
    restored = Host.restore(list(net.host.inputs), entropy=net.rng.randbytes)
    assert not restored.blind


def test_a_table_switched_to_blind_resumes_blind_and_advertises_so(tmp_path: Path) -> None:
    """``--resume`` after a crash: the journal replays the switch, so the table that was
    started plain comes back dealer-blind, and its advertisement says ``blind=1``; switched
    back, it comes back plain."""
    config = HostConfig(name="Toggled den", seats=3, bots=1, bot_delay=0.0)
    identity = load_or_create_identity(tmp_path)
    table = new_table(config, tmp_path, address="127.0.0.1", port=0)
    for on in (True, False):
        assert table.journal is not None
        table.host.set_blind(on)
        table.journal.write(table.host.inputs)  # as the server shell does after each call
        table.host.inputs.clear()
        table.journal.set("port", 40998)
        table.journal.close()  # the process dies: the journal stays
        table = resume_table(tmp_path)
        assert table.host.blind is on
        assert not table.host.config.blind
        advertiser = advertiser_for(table, 40998, identity)
        assert advertiser.blind is on
        assert ("blind" in advertiser._properties()) is on
    assert table.journal is not None
    table.journal.finish()
