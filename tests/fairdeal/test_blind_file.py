"""A dealer-blind hand kept in a file and checked again from it alone
(``lanswitch.fairdeal.blind.file``), as ``lanswitch verify FILE`` does: fair as played, and any
change after the hand — a move, a seed, a pass — caught."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lanswitch.fairdeal.blind import file as blindfile
from lanswitch.fairdeal.blind.check import BlindOutcome
from lanswitch.fairdeal.blind.file import FORMAT, BlindFileError
from lanswitch.fairdeal.blind.hand import BlindFault
from lanswitch.fairdeal.blind.local import BlindHand
from lanswitch.fairdeal.primitives import DEALER
from lanswitch.narrate import won_how
from tests.blindtable import blind_table
from tests.fairdeal.test_blind import DroppingAnyPass


def _file(hand: BlindHand, pid: str) -> dict[str, Any]:
    h = hand.holders[pid]
    seeds = {p: dict(x.seeds) for p, x in hand.holders.items()}
    data: dict[str, Any] = json.loads(blindfile.dump(h.follower, pid, seeds, h.received))
    return data


@pytest.fixture(scope="module")
def hand() -> BlindHand:
    return blind_table(3, 1, seed=11).play()


@pytest.mark.parametrize("pid", ["p0", "p2", DEALER])
def test_a_saved_blind_hand_checks_fair_from_the_file_alone(hand: BlindHand, pid: str) -> None:
    who, outcome = blindfile.check(json.dumps(_file(hand, pid)))
    assert who == pid
    assert outcome.status == "fair", outcome
    assert outcome.result == hand.outcome(pid).result


def test_a_move_changed_after_the_hand_is_caught(hand: BlindHand) -> None:
    data = _file(hand, "p0")
    moves = [s for s in data["steps"] if s[0] == "move"]
    m = next(s[1] for s in moves if s[1]["opening"] is None and s[1]["by"] != "p0")
    m["move"] = 201 if m["move"] == 200 else 200  # a draw made a pass, or the other way
    _who, outcome = blindfile.check(json.dumps(data))
    assert outcome.status != "fair"
    assert outcome.fault is BlindFault.BAD_SIGNATURE


def test_a_seed_changed_after_the_hand_is_caught(hand: BlindHand) -> None:
    data = _file(hand, "p0")
    data["seeds"]["p1"]["0"] = "00" * 32
    _who, outcome = blindfile.check(json.dumps(data))
    assert (outcome.status, outcome.culprit, outcome.fault) == ("unfair", "p1", BlindFault.BAD_PASS)


def test_a_file_that_is_not_a_blind_hand_is_refused_with_a_reason() -> None:
    with pytest.raises(BlindFileError, match="not JSON"):
        blindfile.check(b"\xff not json")
    with pytest.raises(BlindFileError, match="not a dealer-blind hand"):
        blindfile.check('{"format": "something else"}')
    with pytest.raises(BlindFileError, match="malformed"):
        blindfile.check(json.dumps({"format": FORMAT, "version": blindfile.VERSION, "id": "x"}))


def test_lanswitch_verify_checks_a_blind_hand_file(hand: BlindHand, tmp_path: Path) -> None:
    """``lanswitch verify FILE`` (the installed command, in a process of its own) says FAIR
    for the file as saved and UNFAIR, exit 1, for one with a seed changed."""
    good = tmp_path / "blind-hand.json"
    good.write_text(json.dumps(_file(hand, "p0")), encoding="utf-8")
    data = _file(hand, "p0")
    data["seeds"]["p1"]["0"] = "00" * 32
    bad = tmp_path / "blind-hand-changed.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    run = [sys.executable, "-m", "lanswitch", "verify"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    result = hand.outcome("p0").result
    assert result is not None
    hs = hand.holders["p0"].follower.setup.hand
    assert hs is not None
    winner = hs.name(result.placings[0])
    # who won: the replay's, by the name the setup binds
    assert ok.stdout == f"{good}: FAIR (dealer-blind): {winner} won ({won_how(result.reason)})\n"
    caught = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=120)
    assert caught.returncode == 1
    assert "UNFAIR (dealer-blind): p1 gave a shuffle pass" in caught.stdout
    both = subprocess.run(
        [*run, "--json", str(good), str(bad)], capture_output=True, text=True, timeout=120
    )
    report = json.loads(both.stdout)
    assert [f["status"] for f in report["files"]] == ["fair", "unfair"]
    assert report["files"][1]["culprits"] == ["p1"]


def test_a_hand_stopped_by_a_card_that_opens_to_nothing_is_blamed_as_the_seeds_show() -> None:
    """p1's lock pass swaps a card for one of another deck; here (seed 3) it lands on the card
    the deal turns up, so p0's record stops at that opening, which names nobody. The seeds show
    whose pass it was: the file says so, as p0 did live. (Before: the file stopped at the
    opening and said void, naming nobody: 3 runs in 120 of tests/scenarios/test_blind_net.py's.)"""
    hand = blind_table(2, 1, seed=3).play({"p1": DroppingAnyPass})
    data = _file(hand, "p0")
    assert data["stopped"][0] == "open"  # the case: the hand stopped in the deal
    assert data["steps"] == []
    live = hand.outcome("p0")
    assert (live.status, live.culprit, live.fault) == ("unfair", "p1", BlindFault.BAD_PASS)
    _who, outcome = blindfile.check(json.dumps(data))
    assert (outcome.status, outcome.culprit, outcome.fault) == ("unfair", "p1", BlindFault.BAD_PASS)


def test_an_outcome_that_names_nobody_says_so_in_words() -> None:
    """A fault whose author the record cannot tell reads as such, not as "nobody did it"
    (which says the opposite); a void that is nobody's fault says only why."""
    keys = BlindOutcome("void", "", BlindFault.BAD_KEY, "the keys open no card of this shuffle")
    assert str(keys) == (
        "VOID (dealer-blind): a participant released a position key that its seed does not "
        "make, and this record cannot tell which (the keys open no card of this shuffle)"
    )
    cut = BlindOutcome("void", "", None, "the hand was not finished")
    assert str(cut) == "VOID (dealer-blind): the hand was not finished"
    blamed = BlindOutcome("unfair", "p1", BlindFault.BAD_PASS, "shuffle 0")
    assert str(blamed) == (
        "UNFAIR (dealer-blind): p1 gave a shuffle pass that is not its input locked and "
        "reordered (shuffle 0)"
    )
