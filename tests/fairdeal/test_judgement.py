"""One judgement type for both deals (issue 25, Build 1): whichever deal dealt a hand, its
:class:`~lanswitch.fairdeal.judgement.Judgement` drives the same reader code — the screen's
verdict line and details page, the history's row and listing, the void tally and its warning,
``lanswitch verify``'s line and summary — and the deals differ only in their label."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lanswitch import cli
from lanswitch import protocol as p
from lanswitch.fairdeal import DEALER, Verdict, VoidTally
from lanswitch.fairdeal.blind.check import BlindOutcome
from lanswitch.fairdeal.blind.check import judgement as blind_judgement
from lanswitch.fairdeal.blind.hand import BlindFault
from lanswitch.fairdeal.judgement import COMMIT_REVEAL, DEALER_BLIND, Judgement
from lanswitch.history import row_of, verdict_text
from lanswitch.host import HostConfig
from lanswitch.session import HandRecord
from lanswitch.tui.model import record_fair, verdict_line
from tests.tablenet import TableNet

GAME = bytes(range(16))
NAMES = ("ann", "bob", "carl")
OVER = p.HandOver(reason="void", placings=(), scores=(), hand_points=(), head=(0, bytes(32), b""))


def commit_reveal_void(*, dealt: bool = False) -> Judgement:
    """A commit-reveal hand voided on bob (seat1), on the host's word: his seed never came
    (``dealt``: at a reshuffle, so he forfeits the hand)."""
    return Verdict(
        status="void",
        reason="seat1 did not reveal its seed in round 0",
        game_id=GAME,
        hand_no=4,
        seat=0,
        id="seat0",
        rules="switch",
        players=3,
        events=9,
        rounds=1,
        culprits=("seat1",),
        check="round",
        proven=False,
        forfeit=("seat1",) if dealt else (),
        names=dict(zip(("seat0", "seat1", "seat2"), NAMES, strict=True)),
    ).judgement()


def blind_void(*, dealt: bool = False) -> Judgement:
    """A dealer-blind hand voided on bob (seat1), on the host's word: he withheld his part
    (``dealt``: once the cards were dealt, so he forfeits the hand)."""
    outcome = BlindOutcome(
        "void", "seat1", BlindFault.WITHHELD, "no seed for shuffle 0", proven=False
    )
    seats = ("seat0", "seat1", "seat2")
    return blind_judgement(outcome, game_id=GAME, hand_no=4, names=NAMES, seats=seats, dealt=dealt)


def record_of(j: Judgement) -> HandRecord:
    return HandRecord(
        4, OVER, j, None, game_id=GAME, rules="switch", seat=0, names=NAMES, deal=j.deal
    )


@pytest.mark.parametrize("make", [commit_reveal_void, blind_void], ids=["commit-reveal", "blind"])
def test_a_void_blamed_on_a_player_reads_alike_whichever_deal(make: object) -> None:
    assert callable(make)
    j = make()
    assert isinstance(j, Judgement)
    tag = "" if j.deal is COMMIT_REVEAL else " (dealer-blind)"
    # The judgement: who, on whose word, and who forfeits (nobody: not dealt yet).
    assert (j.status, j.culprits, j.proven, j.forfeit) == ("void", ("seat1",), False, ())
    assert (j.blamed(), j.basis()) == ("bob", "on the host's word")
    assert j.text().startswith(f"VOID{tag}: ")
    assert "bob" in j.text()  # people by name in the line
    assert "seat1" not in j.text()
    # The screen: the same line, the deal's tag after the status.
    record = record_of(j)
    assert record_fair(record) is False
    line = verdict_line(record)
    assert line.startswith(f"hand 4: VOID{tag}: "), line
    assert line.endswith(" (blame bob)"), line
    # The history: the same row, the deal a label.
    row = row_of(record, name="ann", table="t", host="h:1", client="c", at="now")
    assert (row.status, row.culprits, row.proven, row.deal) == (
        "void",
        ("seat1",),
        False,
        j.deal.name,
    )
    # (The row keeps ids, not names: seats as people count them, issue 26 item 6.)
    said = j.reason.replace("seat1", "seat 2")
    assert verdict_text(row) == f"VOID{tag}: {said} (blame seat 2)"
    # The tally: a void on the host's word is one the host caused or claimed.
    tally = VoidTally.of([j.void_entry()])
    assert (tally.count, tally.by_host) == (1, 1)
    assert tally.describe(j.name) == "void hands: 1 — bob 1 on the host's word"


def test_the_two_deals_judgements_of_one_void_differ_only_in_the_deals_own_words() -> None:
    cr, blind = commit_reveal_void(), blind_void()
    same = ("status", "culprits", "proven", "forfeit", "game_id", "hand_no", "names")
    assert {k: getattr(cr, k) for k in same} == {k: getattr(blind, k) for k in same}
    assert (cr.deal, blind.deal) == (COMMIT_REVEAL, DEALER_BLIND)
    assert cr.void_entry() == blind.void_entry()
    # Both counted, one tally: two voids on the host's word, the warning says so.
    tally = VoidTally.of([cr.void_entry(), replace(blind, hand_no=5).void_entry()])
    warning = tally.warning_text(cr.name)
    assert warning is not None
    assert "2 of them caused or claimed by the host" in warning


@pytest.mark.parametrize("make", [commit_reveal_void, blind_void], ids=["commit-reveal", "blind"])
def test_a_player_blamed_once_the_cards_were_dealt_forfeits_whichever_deal(make: object) -> None:
    """On the host's word, a player forfeits only a hand already dealt, in both deals (as the
    host scores it). Before, a blind hand's verdict never said so, though the host scored the
    withholder last."""
    assert callable(make)
    before, after = make(), make(dealt=True)
    assert isinstance(before, Judgement)
    assert isinstance(after, Judgement)
    assert (before.forfeit, after.forfeit) == ((), ("seat1",))
    assert "forfeits" not in before.text()
    assert after.text().endswith("; bob forfeits the hand"), after.text()


def test_a_blind_void_that_names_nobody_says_why_without_a_stray_bracket() -> None:
    """The hand cannot be checked and nobody is to blame: the reason is the detail alone.
    (Before, the screen's line began the reason with a space: "VOID (dealer-blind):  (the hand
    was not finished) (blame nobody)".)"""
    j = blind_judgement(
        BlindOutcome("void", "", None, "the hand was not finished", proven=False),
        game_id=GAME,
        hand_no=4,
        names=NAMES,
    )
    assert verdict_line(record_of(j)) == (
        "hand 4: VOID (dealer-blind): the hand was not finished (blame nobody)"
    )


def test_a_blind_judgement_names_the_host_as_a_commit_reveal_one_does() -> None:
    j = blind_judgement(
        BlindOutcome("unfair", DEALER, BlindFault.BAD_PASS, "shuffle 0"),
        game_id=GAME,
        hand_no=1,
        names=NAMES,
    )
    assert j.text().startswith("UNFAIR (dealer-blind): the host gave a shuffle pass"), j.text()
    assert (j.blamed(), j.basis()) == ("the host", "proven by signatures")


def a_table_that_switches_deal(tmp_path: Path) -> list[Path]:
    """Three hands of one game: commit-reveal, dealer-blind, commit-reveal; ann's saved file
    of each (the proof her record keeps), as ``lanswitch join --transcripts`` writes them."""
    net = TableNet(HostConfig(name="T", seats=2, bots=0, bot_delay=0, hands=3), seed=3)
    ann = net.join("ann", auto_ready=False)
    net.join("bob")  # says ready by itself, again after every change
    for n, blind in ((1, True), (2, False)):
        net.send(ann, p.Ready(ready=True))

        def between(n: int = n) -> bool:
            return len(ann.session.history) == n and net.host.hand is None

        net.run(between)
        net.host.set_blind(blind)
        net.pump()
    net.send(ann, p.Ready(ready=True))
    net.run(lambda: net.host.finished)
    files = []
    for record in ann.session.history:
        assert record.proof is not None
        assert record.judgement is not None
        assert record.judgement.fair, record.judgement.text()
        path = tmp_path / f"hand{record.hand_no}-{record.proof.stem}.json"
        path.write_text(record.proof.text(), encoding="utf-8")
        files.append(path)
    assert [r.deal for r in ann.session.history] == [COMMIT_REVEAL, DEALER_BLIND, COMMIT_REVEAL]
    assert len({r.game_id for r in ann.session.history}) == 1
    return files


def test_verify_counts_a_blind_hand_among_the_games_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lanswitch verify`` of a game's three files — commit-reveal, dealer-blind,
    commit-reveal — judges each, and misses no hand. (Before, the blind file stood apart from
    the summary: "Game …: no transcript here for hand 2" for the hand it had just checked.)"""
    files = a_table_that_switches_deal(tmp_path)
    code = cli.main(["verify", *map(str, files)])
    said, err = capsys.readouterr()
    assert code == 0, said + err
    lines = said.splitlines()
    assert lines[1].startswith(f"{files[1]}: FAIR (dealer-blind)"), said
    assert lines[3] == "3 files: 3 fair", said
    assert "not among these files" not in said, said
