"""Comparing saved hands blames only on signed statements (issue 25, item 6;
``lanswitch.fairdeal.compare``).

Each test plays an honest hand in one process (``tests/fairplay.play``), then doctors ONE
player's file with that player's own key — what a player can do to the file on his own laptop
after the hand — and verifies it alone and beside an honest player's file, through the JSON
files and through ``lanswitch verify`` itself. Before (a173ae3), every case below blamed the
host "proven by signatures" ("the host showed alice and bob different logs"), and the pair of
a hand whose host said a seed never came got "VOID, blame bob" for one file and "UNFAIR, blame
the host" for the other.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from lanswitch.fairdeal import (
    BY_SEAT,
    DEALER,
    Move,
    SignedHead,
    Transcript,
    Verdict,
    verify,
    verify_all,
)
from lanswitch.fairdeal import primitives as pr
from lanswitch.game import DRAW, PASS
from tests.fairplay import heads_of, key_of, no_reveal, play

ALICE, BOB = "seat-1", "seat-2"


def _files(*ts: Transcript) -> list[Transcript]:
    return [Transcript.from_json(t.to_json()) for t in ts]


def _honest() -> tuple[Transcript, Transcript]:
    hand = play("switch", 3, seed=3)
    alice, bob = hand.transcripts[0], hand.transcripts[1]
    assert (alice.id, bob.id) == (ALICE, BOB)
    assert all(v.fair for v in verify_all(_files(alice, bob)))
    return alice, bob


def _own_head(t: Transcript) -> Transcript:
    """``t`` with its keeper's own head signed again, with its own key, over the log it holds
    now (what makes a doctored file read: a file whose own head is not of its log is refused)."""
    count, head = len(t.log), heads_of(t)[-1]
    sig = pr.sign(key_of(t.id), pr.log_head_message(t.setup.ctx0, t.id, count, head))
    return dataclasses.replace(t, log_heads={**t.log_heads, t.id: SignedHead(count, head, sig)})


def _cut_short(bob: Transcript) -> Transcript:
    """Bob's file, its log cut to half and his own head signed again."""
    return _own_head(dataclasses.replace(bob, log=bob.log[: len(bob.log) // 2]))


def _second_move(bob: Transcript) -> tuple[Transcript, int]:
    """Bob's file with another move in place of one he made, signed by Bob at the same step
    (the log ends with it), and his own head signed again; and that step."""
    heads = heads_of(bob)
    k = next(
        i
        for i, ev in enumerate(bob.log)
        if isinstance(ev, Move) and ev.seat == bob.seat and ev.by == BY_SEAT and i > 10
    )
    first = bob.log[k]
    assert isinstance(first, Move)
    other = PASS if first.move == DRAW else DRAW
    msg = pr.move_message(bob.setup.ctx0, k, heads[k], bob.seat, BY_SEAT, other)
    again = Move(bob.seat, BY_SEAT, other, pr.sign(key_of(bob.id), msg))
    return _own_head(dataclasses.replace(bob, log=(*bob.log[:k], again))), k


def _not_proven_against_the_host(v: Verdict) -> bool:
    return not (DEALER in v.culprits and v.proven)


# ---------------------------------------------------------------------------------------------
# A file alone


def test_a_file_its_player_cut_short_alone_proves_nothing_against_the_host() -> None:
    """Before: "UNFAIR: blame the host (proven by signatures): the host signed a log of N
    events …, not the one it sent you"."""
    _alice, bob = _honest()
    (v,) = verify_all(_files(_cut_short(bob)))
    assert not v.fair
    assert _not_proven_against_the_host(v), v.text()
    assert "never sent you the rest, or the file was cut short" in v.reason
    assert "proven by signatures" not in v.text()


def test_a_file_with_a_second_move_its_player_signed_alone_proves_nothing_against_the_host() -> (
    None
):
    _alice, bob = _honest()
    doctored, _k = _second_move(bob)
    v = verify(_files(doctored)[0])
    assert not v.fair
    assert _not_proven_against_the_host(v), v.text()


# ---------------------------------------------------------------------------------------------
# An honest file beside a doctored one


def test_an_honest_file_beside_one_its_player_cut_short_blames_that_player() -> None:
    """Bob signed the whole log (his head, which Alice's file holds); his own file ends half
    way: he cut it. Alice's stays fair. Before: both "UNFAIR, blame the host (proven by
    signatures): the host showed seat-1 and seat-2 different logs"."""
    alice, bob = _honest()
    cut = _cut_short(bob)
    va, vb = verify_all(_files(alice, cut))
    assert va.fair, va.text()
    assert (vb.status, vb.culprits, vb.proven, vb.check) == ("unfair", (BOB,), True, "compare")
    assert f"ends at event {len(cut.log)}: it was cut short after the hand" in vb.reason
    assert "blame seat-2 (proven by signatures)" in vb.text()
    # The other way round, the same.
    vb2, va2 = verify_all(_files(cut, alice))
    assert (vb2, va2) == (vb, va)


def test_an_honest_file_beside_one_with_a_second_move_blames_that_player() -> None:
    """Two moves Bob signed at one step — his file's and the one in everyone's log — are
    Bob's equivocation, proven by his own signatures. Before: the host was blamed."""
    alice, bob = _honest()
    doctored, k = _second_move(bob)
    va, vb = verify_all(_files(alice, doctored))
    assert va.fair, va.text()
    assert (vb.status, vb.culprits, vb.proven) == ("unfair", (BOB,), True), vb.text()
    assert f"{BOB} signed two different logs of hand 1: they part at log event {k}" in vb.reason


def test_the_host_showing_two_logs_it_signed_is_still_proven_against_it() -> None:
    """The defence keeps the old proof: the host signs a second log for Bob (one event
    less) and Bob signs what he was shown — the host's two final heads differ."""
    alice, bob = _honest()
    shown = dataclasses.replace(bob, log=bob.log[:-1])
    count, head = len(shown.log), heads_of(shown)[-1]
    heads = dict(shown.log_heads)
    for p in (BOB, DEALER):
        sig = pr.sign(key_of(p), pr.log_head_message(shown.setup.ctx0, p, count, head))
        heads[p] = SignedHead(count, head, sig)
    shown = dataclasses.replace(shown, log_heads=heads)
    verdicts = verify_all(_files(alice, shown))
    for v in verdicts:
        assert (v.status, v.culprits, v.proven) == ("unfair", (DEALER,), True), v.text()
    # (Bob's alone already proves it: the host signed a log that ends before the hand does.)
    assert verdicts[0].reason == (
        "the host showed seat-1 and seat-2 different logs of hand 1 (it signed both)"
    )


# ---------------------------------------------------------------------------------------------
# One verdict per hand for a seed that "never came"


def test_files_that_disagree_about_who_withheld_get_one_verdict() -> None:
    """The host says Bob's seed of round 0 never came; Bob's file says he sent it (his own
    record: the same file whether the host dropped it or Bob lies). Alone, Bob's file says
    what Bob knows (unfair, on his own record) and Alice's blames Bob on the host's word.
    Together: one verdict, VOID, nothing proven, the host and Bob both named (word against
    word), Bob's dispute said. Before: "VOID, blame seat-2" for Alice's and "UNFAIR, blame the
    host" for Bob's."""
    hand = play("switch", 3, seed=5, reveal=no_reveal(BOB, 0))
    assert hand.void is not None
    alice, bob = hand.transcripts[0], hand.transcripts[1]
    rec = bob.rounds[0]
    bob = dataclasses.replace(bob, rounds=(dataclasses.replace(rec, own_seed_sent=True),))
    alone = [verify(t) for t in _files(alice, bob)]
    assert [(v.status, v.culprits) for v in alone] == [("void", (BOB,)), ("unfair", (DEALER,))]
    assert not alone[1].proven
    together = verify_all(_files(alice, bob))
    assert len({(v.status, v.culprits, v.proven, v.reason) for v in together}) == 1, together
    v = together[0]
    assert (v.status, v.culprits, v.proven) == ("void", (DEALER, BOB), False)
    assert "seat-2 says, on its own record, that it was sent" in v.reason
    assert "nothing signed settles it" in v.reason


# ---------------------------------------------------------------------------------------------
# lanswitch verify, the command


def test_lanswitch_verify_blames_the_player_who_cut_his_file(tmp_path: Path) -> None:
    alice, bob = _honest()
    a, b = tmp_path / "alice.json", tmp_path / "bob.json"
    a.write_text(alice.to_json(), encoding="utf-8")
    b.write_text(_cut_short(bob).to_json(), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "lanswitch", "verify", "--json", str(a), str(b)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": ""},
    )
    report = json.loads(run.stdout)
    files = report["files"]
    assert files[0]["status"] == "fair"
    assert (files[1]["status"], files[1]["culprits"], files[1]["proven"]) == (
        "unfair",
        [BOB],
        True,
    )
    assert run.returncode == 1
