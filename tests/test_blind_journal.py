"""Crash recovery of a dealer-blind table, the pure half (as ``tests/test_journal.py`` for the
commit-reveal deal): the host's journal replays into the host it was — its own blind secrets
included, since they come from the randomness it drew —, the clients resume with their tokens
and what they had sent, and the match completes fair."""

from __future__ import annotations

import pytest

from lanswitch import protocol as p
from lanswitch.fairdeal.judgement import DEALER_BLIND
from lanswitch.host import Host
from lanswitch.host._blind import BlindHand
from lanswitch.rules import PRESETS
from lanswitch.session import HandRecord
from tests.tablenet import TableNet
from tests.test_journal import config, restart_mid_hand


def fair(records: list[HandRecord]) -> list[str]:
    """Each hand's status, dealt dealer-blind (``none``: no judgement, or another deal)."""
    out: list[str] = []
    for r in records:
        judged = r.judgement if r.deal is DEALER_BLIND else None
        out.append("none" if judged is None else judged.status)
    return out


@pytest.mark.parametrize("moment", [3, 25, 70, 140])
def test_after_a_crash_the_clients_resume_and_the_blind_match_completes_fair(moment: int) -> None:
    net = TableNet(config(blind=True, rules=PRESETS["irish"]), seed=moment, journal=True)
    links = [net.join("ann"), net.join("bob")]
    for _ in range(moment):
        net.step()
    crashed_in_a_hand = isinstance(net.host.hand, BlindHand)
    records = list(net.host.inputs)
    restored = Host.restore(records, entropy=net.rng.randbytes)
    assert isinstance(restored.hand, BlindHand) == crashed_in_a_hand
    if crashed_in_a_hand:
        assert isinstance(net.host.hand, BlindHand)
        assert isinstance(restored.hand, BlindHand)
        was, now = net.host.hand.part, restored.hand.part
        assert now.holder.seeds == was.holder.seeds  # its secrets, from the journal
        assert now.follower.steps == was.follower.steps
    links = net.crash()
    assert len(links) == 2
    net.run(lambda: net.host.finished)
    for link in links:
        s = link.session
        assert [r.hand_no for r in s.history] == [1, 2, 3]
        assert fair(list(s.history)) == ["fair"] * 3, [str(r.judgement) for r in s.history]


def test_a_restarted_blind_player_process_takes_its_seat_back() -> None:
    """``lanswitch play --resume`` at a blind table: the host's own player comes back as a new
    process with the key and seed secret the journal kept; it makes the same passes and keys
    again (its seeds come from each shuffle's context), which are no news to the host."""

    def blind_hand_in_play(net: TableNet) -> None:
        assert isinstance(net.host.hand, BlindHand)

    net = TableNet(config(blind=True, hands=2), seed=8, journal=True)
    ann, bob = restart_mid_hand(net, bytes(range(32)), blind_hand_in_play)
    fresh = ann.session
    assert not [m for m in ann.received if isinstance(m, p.Reject)]
    assert [r.hand_no for r in fresh.history] == [1, 2]
    assert fair([*fresh.history, *bob.session.history]) == ["fair"] * 4
