"""The client's history (``lanswitch.history``): real sqlite files in tmp_path, the real command
line in process (``lanswitch history``, ``lanswitch verify --hand``), hands recorded by real
sessions (``tests/tablenet.py``), by a headless ``join --bot`` against a real ``lanswitch
host`` process on loopback TLS, and by the terminal client with keys through a pipe."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lanswitch import history as hist
from lanswitch.cli import main
from lanswitch.fairdeal import Transcript, verify
from lanswitch.fairdeal.judgement import DEALER_BLIND
from lanswitch.history import (
    History,
    HistoryError,
    HistoryWriter,
    history_path,
    result_text,
    row_of,
    verdict_text,
)
from lanswitch.host import HostConfig
from lanswitch.session import HandRecord
from lanswitch.tls import Identity
from tests.records import blind_file_of, transcript_of
from tests.scenarios.test_cli_net import LOOPBACK, host_factory
from tests.scenarios.test_cli_net import Host as HostProcess
from tests.tablenet import Link, TableNet
from tests.test_tui import Screen, identity, terminal, until

__all__ = ["host_factory", "identity"]  # fixtures, imported for pytest to find here


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Hands played by real sessions, in one process


def a_match(hands: int = 2, *, seed: int = 3) -> tuple[Link, Link, Link]:
    """ann and bob play ``hands`` hands (bots choose their moves) while eve watches."""
    net = TableNet(
        HostConfig(name="Kitchen", seats=2, bots=0, bot_delay=0.0, hands=hands), seed=seed
    )
    ann, bob = net.join("ann"), net.join("bob")
    eve = net.join("eve", spectate=True, bot=None)
    net.run(lambda: net.host.finished)
    for link in (ann, bob, eve):
        assert len(link.session.history) == hands
    return ann, bob, eve


def record_all(writer: HistoryWriter, link: Link, host: str = "10.0.0.2:4000") -> list[str]:
    """What the client shell does with each finished hand: the warnings it would show."""
    s = link.session
    warnings = []
    for record in s.history:
        w = writer.record(record, name=s.name, table=s.table, host=host, client=s.public_key.hex())
        if w is not None:
            warnings.append(w)
    return warnings


@pytest.fixture(scope="module")
def match() -> tuple[Link, Link, Link]:
    return a_match()


def test_a_seat_keeps_each_hand_with_its_verdict_and_transcript(
    tmp_path: Path, match: tuple[Link, Link, Link]
) -> None:
    ann = match[0]
    writer = HistoryWriter(tmp_path / "data")
    assert record_all(writer, ann) == []
    assert writer.close() is None
    with History(history_path(tmp_path / "data")) as h:
        rows = h.rows()
    assert [r.hand_no for r in rows] == [2, 1]  # newest first
    assert [r.id for r in rows] == [2, 1]
    for row, record in zip(reversed(rows), ann.session.history, strict=True):
        assert row.table == "Kitchen"
        assert row.host == "10.0.0.2:4000"
        assert row.name == "ann"
        assert row.seat == 0
        assert row.rules == "switch"
        assert row.game_id == record.game_id.hex()
        assert len(row.game_id) == 32
        assert row.status == "fair"
        assert verdict_text(row) == "fair, every card legal"
        assert record.judgement is not None
        assert row.verdict == record.judgement.text()
        assert set(row.placings) == {"ann", "bob"}
        assert row.place == row.placings.index("ann") + 1
        assert result_text(row) in ("you won", "bob won, you 2nd")
        # The transcript is the file `lanswitch verify FILE` reads, byte for byte.
        assert record.proof is not None
        assert row.transcript == transcript_of(record).to_json().encode("utf-8")
        assert verify(Transcript.from_json(row.transcript)).fair


def test_a_hand_kept_unfinished_gives_way_to_the_same_hand_finished(
    tmp_path: Path, match: tuple[Link, Link, Link]
) -> None:
    """The newcomer pass (issue 26): a host stopped the table mid-hand, its player's client
    kept the hand unfinished; after --resume the hand was finished and checked fair on screen,
    but the history still said unfinished (INSERT OR IGNORE kept the first row). The finished
    hand takes the row; an unfinished one never displaces a finished one."""
    from dataclasses import replace

    from lanswitch.session import _UNFINISHED

    ann = match[0].session
    done = ann.history[0]
    stopped = replace(done, over=_UNFINISHED, judgement=None, proof=None)
    data = tmp_path / "data"
    writer = HistoryWriter(data)
    key = ann.public_key.hex()
    for record in (stopped, done, stopped):  # stopped, resumed and finished, a late repeat
        assert writer.record(record, name="ann", table="Kitchen", host="h", client=key) is None
    assert writer.close() is None
    with History(history_path(data)) as h:
        (row,) = h.rows()
    assert row.status == "fair", row.status
    assert row.id == 1  # the unfinished row's number: `history` shows no gap
    assert result_text(row) in ("you won", "bob won, you 2nd")
    # A spectator's hand stopped the same way: watched, and no result — not "void".
    eve = match[2].session
    watched = replace(eve.history[0], over=_UNFINISHED)
    writer = HistoryWriter(tmp_path / "eve")
    assert writer.record(watched, name="eve", table="Kitchen", host="h", client="e") is None
    writer.close()
    with History(history_path(tmp_path / "eve")) as h:
        (row,) = h.rows()
    assert row.status == "watched"
    assert result_text(row) == "unfinished: no result"
    writer = HistoryWriter(tmp_path / "eve")  # carried on and finished: the row is the result
    assert writer.record(eve.history[0], name="eve", table="Kitchen", host="h", client="e") is None
    writer.close()
    with History(history_path(tmp_path / "eve")) as h:
        (row,) = h.rows()
    assert result_text(row) in ("ann won", "bob won")


def test_verify_of_a_played_hand_without_its_file_does_not_say_it_was_watched(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26: ``verify --hand N`` of a hand the player played, whose deal's file the
    history did not keep, said "you watched this hand". It says the player played it."""
    from dataclasses import replace

    data = tmp_path / "data"
    assert record_all(HistoryWriter(data), match[0]) == []
    with History(history_path(data)) as h:
        played = h.rows()[0]
        assert played.seat is not None
        (kept,) = h.add([replace(played, transcript=None, game_id="ab" * 16)])
    code, out, err = run(capsys, "--data-dir", str(data), "verify", "--hand", str(kept))
    assert code == 2
    assert "watched" not in err, err
    assert f"history:{kept}: you played this hand (seat {played.seat + 1})" in err, err
    assert out == ""


def test_a_spectator_keeps_the_hands_it_watched_without_a_transcript(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    eve = match[2]
    data = tmp_path / "data"
    assert record_all(HistoryWriter(data), eve) == []
    with History(history_path(data)) as h:
        rows = h.rows()
    assert len(rows) == 2
    for row in rows:
        assert row.seat is None
        assert row.place is None
        assert row.transcript is None
        assert row.status == "watched"
        assert result_text(row) in ("ann won", "bob won")
        assert "no transcript" in verdict_text(row)
    code, out, err = run(capsys, "--data-dir", str(data), "verify", "--hand", str(rows[0].id))
    assert code == 2
    assert f"lanswitch: history:{rows[0].id}: you watched this hand" in err
    assert out == ""
    code, out, _ = run(capsys, "--data-dir", str(data), "history", str(rows[0].id))
    assert code == 0
    assert out.splitlines()[0].endswith(" UTC, eve watching"), out  # not "eve in watching"


def test_result_and_verdict_in_words() -> None:
    base = hist.HandRow(
        at="2026-12-01T05:00:00+00:00",
        table="t",
        host="h:1",
        client="c",
        game_id="00" * 16,
        hand_no=1,
        seat=2,
        name="me",
        rules="switch",
        ending="out",
        placings=("Alice", "Bob", "me"),
        place=3,
        status="unfair",
        verdict="UNFAIR: …",
        why="the host's signature over the cards it gave you does not verify",
        culprits=("@dealer",),
        transcript=None,
    )
    from dataclasses import replace

    assert result_text(base) == "Alice won, you 3rd"
    assert result_text(replace(base, place=1, placings=("me", "Alice"))) == "you won"
    assert result_text(replace(base, place=None)) == "Alice won"
    assert result_text(replace(base, ending="void", placings=())) == "void: no result"
    assert verdict_text(base) == (
        "UNFAIR: the host's signature over the cards it gave you does not verify (blame the host)"
    )
    assert verdict_text(replace(base, status="fair")) == "fair, every card legal"
    # Issue 26: people, not the fair deal's ids ("(blame @dealer)", "(blame seat1)").
    void = replace(base, status="void", why="seat1 never revealed", culprits=("seat1",))
    assert verdict_text(void) == "VOID: seat 2 never revealed (blame seat 2)"


# ---------------------------------------------------------------------------------------------
# Dealer-blind hands (a table hosted with --blind): no transcript, but the blind check's outcome
# and the hand's file


def a_blind_match(hands: int = 2, *, seed: int = 5) -> tuple[Link, Link, Link]:
    """As :func:`a_match`, at a table that deals every hand dealer-blind."""
    net = TableNet(
        HostConfig(name="Blind den", seats=2, bots=0, bot_delay=0.0, hands=hands, blind=True),
        seed=seed,
    )
    ann, bob = net.join("ann"), net.join("bob")
    eve = net.join("eve", spectate=True, bot=None)
    net.run(lambda: net.host.finished)
    for link in (ann, bob, eve):
        assert len(link.session.history) == hands
        assert all(r.deal is DEALER_BLIND for r in link.session.history)
    return ann, bob, eve


@pytest.fixture(scope="module")
def blind_match() -> tuple[Link, Link, Link]:
    return a_blind_match()


def test_a_blind_hand_is_kept_with_its_verdict_and_its_file(
    tmp_path: Path, blind_match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, a blind hand's record (no transcript, no commit-reveal verdict) was stored as
    if it had been watched: "watched: no transcript of yours to check", and no file."""
    ann = blind_match[0]
    data = tmp_path / "data"
    assert record_all(HistoryWriter(data), ann) == []
    with History(history_path(data)) as h:
        rows = h.rows()
    assert [r.hand_no for r in rows] == [2, 1]
    for row, record in zip(reversed(rows), ann.session.history, strict=True):
        assert record.judgement is not None
        assert record.judgement.status == "fair"
        assert row.deal == "dealer-blind"
        assert row.seat == 0
        assert row.status == "fair"
        assert row.verdict == "FAIR (dealer-blind)"
        assert verdict_text(row) == "fair (dealer-blind), every card legal"
        assert row.transcript == blind_file_of(record).encode("utf-8")  # what verify FILE reads
        assert set(row.placings) == {"ann", "bob"}
        assert row.as_json()["dealer_blind"] is True
    # lanswitch history lists them, with the verdict and "dealer-blind" ...
    code, out, _ = run(capsys, "--data-dir", str(data), "history")
    assert code == 0
    assert out.count("fair (dealer-blind), every card legal") == 2, out
    assert "watched" not in out
    code, out, _ = run(capsys, "--data-dir", str(data), "history", "1")
    assert code == 0
    assert "verdict: fair (dealer-blind), every card legal" in out
    assert "lanswitch verify --hand 1 checks its transcript again" in out
    assert "lanswitch history 1 --save FILE writes it to a file." in out
    code, out, _ = run(capsys, "--data-dir", str(data), "history", "--json")
    assert [r["dealer_blind"] for r in json.loads(out)] == [True, True]
    # ... and lanswitch verify --hand checks the stored file, as verify FILE does.
    # (who won: the file's replay's, by the names its setup binds — the history's agree)
    for hand, row in zip((2, 1), rows, strict=True):
        code, out, err = run(capsys, "--data-dir", str(data), "verify", "--hand", str(hand))
        said = f"history:{hand}: FAIR (dealer-blind): {row.placings[0]} won ("
        assert (code, out[: len(said)], err) == (0, said, "")
    file = tmp_path / "hand.json"
    file.write_bytes(rows[0].transcript or b"")
    code, out, _ = run(capsys, "verify", str(file))
    assert (code, out.startswith(f"{file}: FAIR (dealer-blind): {rows[0].placings[0]} won (")) == (
        0,
        True,
    )


def other_dealer_seed(blob: bytes) -> bytes:
    obj = json.loads(blob)
    seed = obj["seeds"]["@dealer"]["0"]
    obj["seeds"]["@dealer"]["0"] = ("1" if seed[0] == "0" else "0") + seed[1:]
    return json.dumps(obj).encode()


def test_a_tampered_stored_blind_file_fails_verify_hand(
    tmp_path: Path, blind_match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    record_all(HistoryWriter(data), blind_match[1])
    code, out, _ = run(capsys, "--data-dir", str(data), "verify", "--hand", "2")
    assert (code, out.startswith("history:2: FAIR (dealer-blind): ")) == (0, True), out
    # The host's seed changed in the stored file: its shuffle pass no longer follows from it,
    # and the check says so (exit 1), as for a file.
    tamper(data, 2, other_dealer_seed)
    code, out, _ = run(capsys, "--data-dir", str(data), "verify", "--hand", "2")
    assert code == 1
    # (People by name, as in a commit-reveal hand's line — before: "@dealer gave".)
    assert out.startswith("history:2: UNFAIR (dealer-blind): the host gave a shuffle pass"), out
    tamper(data, 1, b"\x00 not json")
    code, _, err = run(capsys, "--data-dir", str(data), "verify", "--hand", "1")
    assert code == 2
    assert "lanswitch: history:1: not JSON" in err


def test_a_blind_hand_watched_is_kept_as_watched(
    tmp_path: Path, blind_match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    eve = blind_match[2]
    data = tmp_path / "data"
    assert record_all(HistoryWriter(data), eve) == []
    with History(history_path(data)) as h:
        rows = h.rows()
    assert [(r.status, r.transcript, r.deal) for r in rows] == [
        ("watched", None, "dealer-blind")
    ] * 2
    assert verdict_text(rows[0]) == "watched (dealer-blind): no transcript of yours to check"
    code, _, err = run(capsys, "--data-dir", str(data), "verify", "--hand", "1")
    assert code == 2
    assert "you watched this hand" in err


def test_a_blind_hand_that_is_not_fair_is_kept_with_its_blame() -> None:
    """The row of an unfair blind hand: the fault as the reason, the culprit's id kept as the
    blame (as for any hand: the ids the verifier uses), said as people count seats."""
    from dataclasses import replace

    from lanswitch.fairdeal.blind.check import BlindOutcome, judgement
    from lanswitch.fairdeal.blind.hand import BlindFault

    record = a_blind_match(1, seed=7)[0].session.history[0]
    cheat = BlindOutcome("unfair", "seat1", BlindFault.ILLEGAL_MOVE, "move 12")
    judged = judgement(cheat, game_id=record.game_id, hand_no=1, names=record.names)
    row = row_of(
        replace(record, judgement=judged), name="ann", table="t", host="h:1", client="c", at="now"
    )
    assert row.status == "unfair"
    assert row.deal == "dealer-blind"
    assert (row.culprits, row.proven, row.forfeit) == (("seat1",), True, ())
    # The line names people, as a commit-reveal hand's has always done (before: "seat1 made").
    assert row.verdict == "UNFAIR (dealer-blind): bob made a move the rules do not allow (move 12)"
    assert verdict_text(row) == (
        "UNFAIR (dealer-blind): made a move the rules do not allow (move 12) (blame seat 2)"
    )


# ---------------------------------------------------------------------------------------------
# The command line


def test_history_lists_hands_newest_first_and_as_json(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    writer = HistoryWriter(data)
    record_all(writer, match[0])
    record_all(writer, match[1])  # another client (a second terminal) on this laptop
    code, out, err = run(capsys, "--data-dir", str(data), "history")
    assert code == 0, err
    lines = out.splitlines()
    assert all(len(line) < 80 for line in lines), out  # each hand's verdict under its row
    head = ["id", "when", "table", "hand", "rules", "result", "verdict"]
    assert (lines[0] + lines[1]).split() == head
    body = lines[2:10]
    assert [line.split()[0] for line in body[::2]] == ["4", "3", "2", "1"]
    for line, verdict in zip(body[::2], body[1::2], strict=True):
        assert "Kitchen" in line
        assert "switch" in line
        assert "you won" in line or "won, you 2nd" in line
        assert verdict.strip() == "fair, every card legal"
    assert "verify --hand ID" in lines[-1]

    # --data-dir after the command works too.
    assert run(capsys, "history", "--data-dir", str(data)) == (0, out, "")
    code, out, _ = run(capsys, "--data-dir", str(data), "history", "--limit", "3")
    assert code == 0
    assert "(3 of 4 hands; --limit N shows more)" in out

    code, out, _ = run(capsys, "--data-dir", str(data), "history", "--json", "--limit", "2")
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [4, 3]
    assert rows[0]["name"] == "bob"
    assert rows[0]["seat"] == 2
    assert rows[0]["fair"] is True
    assert rows[0]["status"] == "fair"
    assert rows[0]["verdict"] == "fair, every card legal"
    assert rows[0]["verdict_line"].startswith("FAIR: hand ")
    assert rows[0]["transcript"] is True
    assert rows[0]["host"] == "10.0.0.2:4000"
    assert {"when", "table", "game_id", "hand_no", "rules", "result", "placings"} <= set(rows[0])


def test_history_lines_fit_in_80_columns_with_who_won_when_and_where(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    """The newcomer pass: ``lanswitch history``'s rows ran to 85 columns (103 for a hand
    watched). Every line is shorter than 80 now: the verdict goes under its hand's row, whole
    (wrapped where it is long), and where a row is still too long its rules, table name and
    result are cut at the end, so the table, when and who won stay on the row."""
    from dataclasses import replace

    data = tmp_path / "data"
    record_all(HistoryWriter(data), match[0])
    with History(history_path(data)) as h:
        played = h.rows()[0]
        long = replace(
            played,
            game_id="cd" * 16,
            table="The Long Kitchen Table 42",  # 25: kept to 24
            rules="my-house-rules-with-a-long-name",  # kept to 16
            placings=("Alexandra-the-Great-of-Leeds-99", "ann"),
            place=2,
            status="unfair",
            why="the host's signature over the cards it gave you does not verify, twice over",
            culprits=("@dealer",),
        )
        h.add([long])
    code, out, err = run(capsys, "--data-dir", str(data), "history")
    assert code == 0, err
    lines = out.splitlines()
    assert all(len(line) < 80 for line in lines), "\n".join(f"{len(x)}: {x}" for x in lines)
    row = next(line for line in lines if line.lstrip().startswith("3 "))
    assert "The Long Kitchen" in row  # which table
    assert row.split()[1].count("-") == 2  # when: the date, and the time after it
    assert "Alexandra" in row  # who won
    at = lines.index(row)
    assert lines[at + 1].startswith("    UNFAIR: "), out  # its verdict, under it, whole
    assert " ".join(" ".join(lines[at + 1 : at + 3]).split()) == (
        "UNFAIR: the host's signature over the cards it gave you does not verify, twice over"
        " (blame the host)"
    ), out


def test_paths_shows_where_the_history_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--data-dir", str(tmp_path), "paths")
    assert code == 0
    assert f"history:  {history_path(tmp_path)}" in out


def test_an_empty_history_says_so_and_makes_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "nothing-yet"
    code, out, err = run(capsys, "--data-dir", str(data), "history")
    assert code == 0, err
    assert out.startswith("No hands in the history yet (")
    assert not data.exists()
    code, out, _ = run(capsys, "--data-dir", str(data), "history", "--json")
    assert (code, json.loads(out)) == (0, [])


def test_verify_hand_checks_the_stored_transcript_like_verify_file(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    record_all(HistoryWriter(data), match[0])
    with History(history_path(data)) as h:
        row = h.get(1)
    assert row is not None
    assert row.transcript is not None
    file = tmp_path / "hand.json"
    file.write_bytes(row.transcript)
    code_f, out_f, _ = run(capsys, "verify", str(file))
    code_h, out_h, err_h = run(capsys, "--data-dir", str(data), "verify", "--hand", "1")
    assert code_f == code_h == 0, err_h
    assert out_h.startswith("history:1: FAIR: hand 1 of game ")
    assert out_h.removeprefix("history:1") == out_f.removeprefix(str(file))
    code, out, _ = run(capsys, "--data-dir", str(data), "verify", "--hand", "1", "--json")
    got = json.loads(out)
    assert code == got["exit"] == 0
    assert got["files"][0]["file"] == "history:1"
    assert got["files"][0]["status"] == "fair"


def test_history_saves_a_hands_transcript_to_a_file_verify_checks(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand played at the terminal is in the history only: ``history ID --save FILE``
    writes its transcript byte for byte, and ``verify FILE`` finds what ``--hand`` finds. It
    never writes over a file, and every wrong use is a usage error that writes nothing."""
    data = tmp_path / "data"
    record_all(HistoryWriter(data), match[0])
    file = tmp_path / "hand 1.json"
    code, out, err = run(capsys, "--data-dir", str(data), "history", "1", "--save", str(file))
    assert (code, err) == (0, "")
    assert out == (
        f"saved the transcript of hand 1 at {match[0].session.table} to {file}; "
        f"lanswitch verify '{file}' checks it\n"
    )
    with History(history_path(data)) as h:
        row = h.get(1)
    assert row is not None
    assert file.read_bytes() == row.transcript
    code_f, out_f, _ = run(capsys, "verify", str(file))
    code_h, out_h, _ = run(capsys, "--data-dir", str(data), "verify", "--hand", "1")
    assert code_f == code_h == 0
    assert out_f.removeprefix(str(file)) == out_h.removeprefix("history:1")
    before = file.read_bytes()
    for argv, said in [
        (("history", "1", "--save", str(file)), "exists already"),
        (("history", "--save", str(tmp_path / "b.json")), "give its ID as well"),
        (("history", "9", "--save", str(tmp_path / "c.json")), "no hand 9 in the history"),
        (("history", "1", "--save", str(tmp_path / "no" / "d.json")), "cannot write"),
    ]:
        code, out, err = run(capsys, "--data-dir", str(data), *argv)
        assert (code, out) == (2, ""), argv
        assert said in err, err
    assert file.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "hand 1.json"]


def tamper(data: Path, hand_id: int, change: object) -> None:
    """Change the stored transcript of hand ``hand_id`` behind lanswitch's back."""
    with sqlite3.connect(history_path(data)) as db:
        (blob,) = db.execute("SELECT transcript FROM hands WHERE id = ?", (hand_id,)).fetchone()
        new = change(blob) if callable(change) else change
        db.execute("UPDATE hands SET transcript = ? WHERE id = ?", (new, hand_id))
    db.close()


def swap_two_cards(blob: bytes) -> bytes:
    obj = json.loads(blob)
    obj["cards"][0], obj["cards"][1] = obj["cards"][1], obj["cards"][0]
    return json.dumps(obj).encode()


def test_a_tampered_stored_transcript_fails_verify_hand(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    record_all(HistoryWriter(data), match[0])
    tamper(data, 2, swap_two_cards)
    code, out, _ = run(capsys, "--data-dir", str(data), "verify", "--hand", "2")
    assert code == 1
    assert out.startswith("history:2: UNFAIR: hand 2 of game ")
    assert "blame the host" in out
    # What is stored is no transcript at all: unreadable, as for a file (exit 2).
    tamper(data, 1, b"\x00 not json")
    code, out, err = run(capsys, "--data-dir", str(data), "verify", "--hand", "1")
    assert code == 2
    assert "lanswitch: history:1: not JSON" in err
    # The listing still shows what was recorded when the hand ended.
    code, out, _ = run(capsys, "--data-dir", str(data), "history")
    assert code == 0
    assert out.count("fair, every card legal") == 2


def test_verify_hand_usage_errors_exit_2(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    record_all(HistoryWriter(data), match[0])
    code, out, err = run(capsys, "--data-dir", str(data), "verify", "--hand", "7")
    assert code == 2
    assert f"no hand 7 in the history {history_path(data)}; lanswitch history lists them" in err
    assert out == ""
    for argv, needle in (
        (
            ["verify", "--hand", "1", "x.json"],
            "FILEs, or --hand ID (see lanswitch history), not both",
        ),
        (["verify"], "give transcript FILEs to check, or --hand ID"),
    ):
        with pytest.raises(SystemExit) as e:
            main(["--data-dir", str(data), *argv])
        assert e.value.code == 2
        _, err = capsys.readouterr()
        assert needle in err
        assert err.startswith("usage: lanswitch")


def test_verify_hand_without_a_history_or_with_a_bad_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--data-dir", str(tmp_path / "none"), "verify", "--hand", "1")
    assert code == 2
    assert "no history at" in err
    assert not (tmp_path / "none").exists()
    for bad in ("0", "x"):
        with pytest.raises(SystemExit) as e:
            main(["verify", "--hand", bad])
        assert e.value.code == 2


# ---------------------------------------------------------------------------------------------
# Failures: never a crash, never a lost hand


def test_a_corrupt_file_is_one_warning_and_play_goes_on(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = history_path(data)
    path.write_bytes(b"this is not an sqlite database, it is garbage " * 100)
    writer = HistoryWriter(data)
    warnings = record_all(writer, match[0])
    assert len(warnings) == 1  # reported once, though both hands failed
    assert warnings[0].startswith("history: 1 hand not saved yet (")
    assert "not a readable lanswitch history" in warnings[0]
    assert len(writer.pending) == 2  # nothing lost: queued
    code, _, err = run(capsys, "--data-dir", str(data), "history")
    assert code == 2
    assert "not a readable lanswitch history" in err
    assert str(path) in err
    # The user moves the damaged file aside: the queued hands are written with the next one.
    path.rename(tmp_path / "damaged.sqlite")
    record_all(writer, match[0], host="again:1")  # the same hands again: no second rows
    assert writer.pending == []
    with History(path) as h:
        assert h.count() == 2
    assert writer.close() is None


def test_a_data_dir_that_cannot_be_made_is_a_warning(
    tmp_path: Path, match: tuple[Link, Link, Link]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the data dir should be")
    writer = HistoryWriter(blocker / "data")
    warnings = record_all(writer, match[0])
    assert len(warnings) == 1
    assert "cannot make the data dir" in warnings[0]
    message = writer.close()
    assert message is not None
    assert "2 hands could not be saved" in message


def test_a_newer_schema_is_a_clear_error_not_a_crash(
    tmp_path: Path, match: tuple[Link, Link, Link], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    record_all(HistoryWriter(data), match[0])
    with sqlite3.connect(history_path(data)) as db:
        db.execute("UPDATE schema_version SET version = 99")
    db.close()
    with pytest.raises(HistoryError, match=r"newer lanswitch .*version 99"):
        History(history_path(data))
    code, _, err = run(capsys, "--data-dir", str(data), "history")
    assert code == 2
    assert "written by a newer lanswitch" in err
    code, _, err = run(capsys, "--data-dir", str(data), "verify", "--hand", "1")
    assert code == 2
    assert "written by a newer lanswitch" in err
    warnings = record_all(HistoryWriter(data), match[1])
    assert len(warnings) == 1
    assert "newer lanswitch" in warnings[0]


def test_an_older_schema_is_migrated_and_keeps_its_hands(
    tmp_path: Path, match: tuple[Link, Link, Link]
) -> None:
    """A history written by the lanswitch before issue 14 (schema 1: no narrated log) is
    migrated when next opened: its hands stay, with an empty log, and new hands keep theirs."""
    data = tmp_path / "data"
    data.mkdir()
    path = history_path(data)
    with sqlite3.connect(path) as db:  # version 1, as that lanswitch made it
        for statement in hist._MIGRATIONS[0]:
            db.execute(statement)
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (1)")
        db.execute(
            "INSERT INTO hands (at, tbl, host, client, game_id, hand_no, seat, name, rules, "
            "ending, placings, place, status, verdict, why, culprits, transcript) VALUES "
            "('2026-12-01T21:14:00+00:00', 'Old', 'h:1', 'ab', '00', 1, NULL, 'me', "
            "'switch', 'finished', '[\"bob\"]', NULL, 'watched', '', '', '[]', NULL)"
        )
    db.close()
    with History(path) as h:
        (old,) = h.rows()
    assert (old.table, old.log) == ("Old", ())
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [
            (hist.SCHEMA_VERSION,)
        ]
    db.close()
    record_all(HistoryWriter(data), match[0])
    with History(path) as h:
        rows = h.rows()
    assert len(rows) == 3


def test_a_version_2_history_gains_the_blind_column_and_its_hands_are_not_blind(
    tmp_path: Path, match: tuple[Link, Link, Link], blind_match: tuple[Link, Link, Link]
) -> None:
    """A history written before dealer-blind tables (schema 2) is migrated: its hands read as
    not blind, and a blind hand recorded afterwards is kept as one."""
    data = tmp_path / "data"
    data.mkdir()
    path = history_path(data)
    with sqlite3.connect(path) as db:  # version 2, as that lanswitch made it
        for step in hist._MIGRATIONS[:2]:
            for statement in step:
                db.execute(statement)
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (2)")
    db.close()
    record_all(HistoryWriter(data), match[0])  # into the old file: migrated first
    record_all(HistoryWriter(data), blind_match[0])
    with History(path) as h:
        rows = h.rows()
    assert [r.deal for r in rows] == ["dealer-blind"] * 2 + ["commit-reveal"] * 2


def test_a_version_3_history_still_reads_its_hands_with_their_deal(
    tmp_path: Path,
    match: tuple[Link, Link, Link],
    blind_match: tuple[Link, Link, Link],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A history written before the judgement was stored whole (schema 3: a ``blind`` flag,
    no deal, proof of blame nor forfeits) is migrated: each hand reads with its deal — a blind
    one listed as dealer-blind and checked again as one —, its proof of blame unknown (None,
    not a guess), and new hands are kept whole beside them."""
    data = tmp_path / "data"
    data.mkdir()
    path = history_path(data)
    v3 = "at, tbl, host, client, game_id, hand_no, seat, name, rules, ending, placings, place, "
    v3 += "status, verdict, why, culprits, transcript, log, blind"
    with sqlite3.connect(path) as db:  # version 3, as that lanswitch made it, with two hands
        for step in hist._MIGRATIONS[:3]:
            for statement in step:
                db.execute(statement)
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (3)")
        for link, blind in ((match[0], 0), (blind_match[0], 1)):
            r = row_of(link.session.history[0], name="ann", table="t", host="h", client="c", at="a")
            db.execute(
                f"INSERT INTO hands ({v3}) VALUES ({', '.join('?' * 19)})",
                (
                    *(r.at, r.table, r.host, r.client, r.game_id, r.hand_no, r.seat, r.name),
                    *(r.rules, r.ending, json.dumps(list(r.placings)), r.place, r.status),
                    *(r.verdict, r.why, json.dumps(list(r.culprits)), r.transcript, "[]", blind),
                ),
            )
    db.close()
    with History(path) as h:
        old = h.rows()
    assert [(r.id, r.deal, r.proven, r.forfeit) for r in old] == [
        (2, "dealer-blind", None, ()),
        (1, "commit-reveal", None, ()),
    ]
    assert verdict_text(old[0]) == "fair (dealer-blind), every card legal"
    assert old[0].as_json()["dealer_blind"] is True
    code, out, _ = run(capsys, "--data-dir", str(data), "verify", "--hand", "2")
    assert (code, out.startswith("history:2: FAIR (dealer-blind): ")) == (0, True), out
    record_all(HistoryWriter(data), match[0])
    with History(path) as h:
        rows = h.rows()
    assert [(r.deal, r.proven) for r in rows[:2]] == [("commit-reveal", True)] * 2


def test_a_lock_held_briefly_is_waited_for_and_a_long_one_loses_nothing(
    tmp_path: Path, match: tuple[Link, Link, Link]
) -> None:
    data = tmp_path / "data"
    path = history_path(data)
    History.in_dir(data).close()
    # Another client, in the middle of a write (the timer thread ends it).
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    ann = match[0]
    s = ann.session
    first, second = s.history

    def keep(record: HandRecord, writer: HistoryWriter) -> str | None:
        return writer.record(record, name=s.name, table=s.table, host="h:1", client="k")

    # Held for 0.3 s: the writer's busy timeout (2 s) waits it out.
    other.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    timer.start()
    started = time.monotonic()
    try:
        assert keep(first, HistoryWriter(data)) is None
    finally:
        timer.join(5)
    assert time.monotonic() - started >= 0.25
    # Held past a short timeout: one warning, the hand queued, written once the lock is gone.
    writer = HistoryWriter(data, timeout=0.1)
    other.execute("BEGIN IMMEDIATE")
    try:
        warning = keep(second, writer)
        # Reading never waits for a writer (WAL): the history lists what is committed.
        with History(path, timeout=0.1) as h:
            assert [r.hand_no for r in h.rows()] == [1]
    finally:
        other.execute("COMMIT")
    assert warning is not None
    assert "database is locked" in warning
    assert len(writer.pending) == 1
    assert writer.close() is None  # the last try at close writes it
    other.close()
    with History(path) as h:
        assert [r.hand_no for r in h.rows()] == [2, 1]


WRITER = """
import sys
import time
from pathlib import Path
from lanswitch.history import HistoryWriter
from tests.test_history import a_match

data, who, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
ann = a_match(1)[0]
record = ann.session.history[0]
writer = HistoryWriter(data)
Path(sys.argv[4]).write_text("ready")
for _ in range(60_000):  # both start together: at most a minute
    if (data / "go").exists():
        break
    time.sleep(0.001)
for i in range(n):
    # Each a different client (a new key per session), so none is a duplicate of another.
    w = writer.record(record, name=who, table="t", host="h:1", client=f"{who}-{i}")
    assert w is None, w
print(writer.saved)
"""


def test_two_clients_write_at_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    n = 40
    procs = []
    for who in ("ann", "bob"):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WRITER, str(data), who, str(n), str(tmp_path / who)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=Path(__file__).parent.parent,
            )
        )
    try:
        deadline = time.monotonic() + 60
        while not all((tmp_path / w).exists() for w in ("ann", "bob")):
            assert time.monotonic() < deadline, [p.poll() for p in procs]
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.01)
        data.mkdir(exist_ok=True)
        (data / "go").write_text("")
        outs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()  # our own children, by their handles
                p.wait(10)
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert out.strip() == str(n)
    with History(history_path(data)) as h:
        rows = h.rows()
    assert len(rows) == 2 * n
    assert {r.client for r in rows} == {f"{w}-{i}" for w in ("ann", "bob") for i in range(n)}
    with sqlite3.connect(history_path(data)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    db.close()


def test_a_row_written_twice_is_kept_once(tmp_path: Path, match: tuple[Link, Link, Link]) -> None:
    record = match[0].session.history[0]
    row = row_of(record, name="ann", table="t", host="h:1", client="k", at="2026-01-01T00:00:00")
    with History.in_dir(tmp_path) as h:
        assert h.add([row]) == [1]
        assert h.add([row]) == [0]
        assert h.count() == 1


# ---------------------------------------------------------------------------------------------
# Recorded by the real clients


def test_a_headless_join_records_a_match_and_verify_hand_rechecks_it(
    tmp_path: Path,
    host_factory: Callable[..., HostProcess],
    capsys: pytest.CaptureFixture[str],
) -> None:
    host = host_factory(
        "--name", "Loop History", "--seats", "2", "--bots", "1", "--hands", "2", "--bot-delay", "0"
    )
    data = tmp_path / "ann-data"
    address = f"{LOOPBACK}:{host.port}"
    code, out, err = run(
        capsys, "--data-dir", str(data), "join", address, "--bot", "heuristic", "--name", "ann"
    )
    assert code == 0, (out, err)
    assert out.count("verified fair") == 2
    assert host.proc.wait(30) == 0

    code, out, err = run(capsys, "--data-dir", str(data), "history", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["hand_no"] for r in rows] == [2, 1]
    for r in rows:
        assert r["table"] == "Loop History"
        assert r["host"] == address
        assert r["name"] == "ann"
        assert r["seat"] == 1
        assert r["verdict"] == "fair, every card legal"
        assert r["result"] in ("you won", "bot 1 won, you 2nd"), r["result"]
    code, out, _ = run(capsys, "--data-dir", str(data), "history")
    assert code == 0
    assert out.count("fair, every card legal") == 2

    ids = [str(r["id"]) for r in rows]
    code, out, err = run(capsys, "--data-dir", str(data), "verify", "--hand", ids[-1])
    assert code == 0, err
    assert out.startswith(f"history:{ids[-1]}: FAIR: hand 1 of game ")
    tamper(data, int(ids[0]), swap_two_cards)
    code, out, _ = run(capsys, "--data-dir", str(data), "verify", "--hand", ids[0])
    assert code == 1
    assert "UNFAIR" in out
    assert "blame the host" in out


def test_join_with_no_history_keeps_nothing(
    tmp_path: Path,
    host_factory: Callable[..., HostProcess],
    capsys: pytest.CaptureFixture[str],
) -> None:
    host = host_factory("--seats", "2", "--bots", "1", "--hands", "1", "--bot-delay", "0")
    data = tmp_path / "bob-data"
    code, out, err = run(
        capsys,
        "--data-dir",
        str(data),
        "join",
        f"{LOOPBACK}:{host.port}",
        "--bot",
        "random",
        "--no-history",
    )
    assert code == 0, (out, err)
    assert "verified fair" in out
    assert (data / "pins.json").exists()  # the join did use this data dir
    assert not history_path(data).exists()


def test_a_join_whose_history_is_damaged_warns_once_and_plays_on(
    tmp_path: Path,
    host_factory: Callable[..., HostProcess],
    capsys: pytest.CaptureFixture[str],
) -> None:
    host = host_factory("--seats", "2", "--bots", "1", "--hands", "2", "--bot-delay", "0")
    data = tmp_path / "data"
    data.mkdir()
    history_path(data).write_bytes(b"garbage, not sqlite " * 200)
    code, out, err = run(
        capsys, "--data-dir", str(data), "join", f"{LOOPBACK}:{host.port}", "--bot", "random"
    )
    assert code == 0, (out, err)
    assert out.count("verified fair") == 2  # both hands played and checked
    assert err.count("lanswitch: history: 1 hand not saved yet (") == 1
    assert "not a readable lanswitch history" in err
    assert err.count("lanswitch: history:") == 2  # and, at the end, what is still unsaved
    assert f"lanswitch: history: 2 hands could not be saved to {history_path(data)}" in err


def test_the_terminal_client_records_the_hands_it_plays(
    identity: Identity, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    screen = Screen()
    data = tmp_path / "data"
    history = HistoryWriter(data)

    async def main() -> None:
        config = HostConfig(name="Keys", seats=2, bots=1, bot_delay=0.0, hands=1)
        async with terminal(identity, config, screen, history=history) as t:
            t.keys.send_text("r")
            await t.play_by_keys(lambda: bool(t.session.history))
            await until(lambda: bool(t.session.history))

    asyncio.run(asyncio.wait_for(main(), 60))
    assert history.close() is None
    with History(history_path(data)) as h:
        rows = h.rows()
    assert len(rows) == 1
    (row,) = rows
    assert (row.table, row.name, row.seat, row.hand_no) == ("Keys", "ann", 0, 1)
    assert row.host.startswith(f"{LOOPBACK}:")
    assert row.status == "fair"
    assert row.transcript is not None
    assert verify(Transcript.from_json(row.transcript)).fair
    # The hand as the client was told it, in the words of its screen (lanswitch.narrate):
    # every play, ann's own cards by name, the others' draws as counts.
    assert any(line.startswith("you play ") for line in row.log), row.log
    assert any(line.startswith("bot 1 plays ") for line in row.log), row.log
    assert all("-1" not in line for line in row.log)
    code, out, _ = run(capsys, "--data-dir", str(data), "history", str(row.id))
    assert code == 0
    assert out.splitlines()[0].endswith(" UTC, ann in seat 1"), out
    assert "the hand as it was told to you:" in out
    assert f"  {row.log[-1]}" in out
    assert "result: " in out


def test_play_and_the_terminal_join_give_the_client_a_history_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wiring: what ``play`` and ``join`` (terminal) give the client that records (the
    client itself is run for real in the test above; here it neither connects nor runs)."""
    from lanswitch import client as client_module
    from lanswitch import preflight
    from lanswitch.tui import run as tui_run
    from lanswitch.tui.model import TuiModel

    given: list[HistoryWriter | None] = []

    async def fake_run_client(client: client_module.Client, **kw: object) -> object:
        assert client.history is None or isinstance(client.history, HistoryWriter)
        given.append(client.history)
        return TuiModel(client.session, send=client.send)

    async def connected(self: client_module.Client) -> None:
        return None

    monkeypatch.setattr(tui_run, "run_client", fake_run_client)
    monkeypatch.setattr(client_module.Client, "connect", connected)
    # No screen starts here, so no terminal is needed: the check that says so (issue 26:
    # ``join`` without one) is taken out, as connect and run_client are.
    monkeypatch.setattr(preflight, "no_terminal", lambda command, stdin=None: None)
    data = tmp_path / "data"
    for extra in ([], ["--no-history"]):
        args = ["--data-dir", str(data), "join", f"{LOOPBACK}:9", *extra]
        assert run(capsys, *args)[0] == 0
    assert isinstance(given[0], HistoryWriter)
    assert given[0].data == data
    assert given[1] is None
    from lanswitch.rules import PRESETS
    from lanswitch.settings import Hosting, Play

    for keep in (True, False):
        table = Hosting(interface=LOOPBACK, data=data, bots=3)
        settings = Play(table=table, player="ann", history=keep)
        code, _ = asyncio.run(tui_run.play(settings, PRESETS["switch"]))
        assert code == 0
    assert isinstance(given[2], HistoryWriter)
    assert given[2].data == data
    assert given[3] is None


def test_a_seat_is_kept_under_the_name_the_table_gave_it(match: tuple[Link, Link, Link]) -> None:
    """The newcomer pass: a friend who joined as "root" where a "root" sat already played as
    "root 2", and ``history ID`` said "root in seat 4" beside "placings: … 2. root, 3. root
    2", which reads as if the friend came 2nd. The row keeps the name the hand's seat had."""
    from dataclasses import replace

    from lanswitch.history import row_of

    record = match[1].session.history[0]  # bob's
    assert record.seat is not None
    names = list(record.names)
    names[record.seat] = "root 2"
    asked = replace(record, names=tuple(names))
    row = row_of(asked, name="root", table="T", host="h", client="c", at="now")
    assert row.name == "root 2"
    watched = replace(asked, seat=None)
    assert row_of(watched, name="root", table="T", host="h", client="c", at="now").name == "root"
