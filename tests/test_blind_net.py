"""Dealer-blind hands over real TLS: the real server shell around a blind host, untouched
client shells as the players (``tests/cheats.py``), and ``lanswitch verify`` on their files."""

from __future__ import annotations

from pathlib import Path

from tests.cheats import Person, make_host, play_over_tls

PEOPLE = [Person("ann"), Person("bob")]


def test_a_blind_match_is_fair_for_everyone_over_tls(tmp_path: Path) -> None:
    host = make_host(blind=True, hands=2)
    out = play_over_tls(host, PEOPLE, tmp_path)
    for name in ("ann", "bob"):
        found = out.blind(name)
        assert [o.status for o in found] == ["fair", "fair"], [str(o) for o in found]
        assert out.cli_statuses(name) == ["fair", "fair"], out.alone[name]
    assert len(host.match.results) == 2
