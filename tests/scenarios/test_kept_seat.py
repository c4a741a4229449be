"""A ``join`` killed mid-hand takes its seat back when run again (``lanswitch/seatkeep.py``):
real processes over TLS on 127.0.0.1 — ``lanswitch host`` with one bot, and a friend's
``join --bot`` in a data dir of its own, killed with SIGKILL (our own child, by its pid) during
hand 1 and started again with the same data dir. It takes back the same seat in the same hand
(not "bob 2", watching while the host's stand-in plays the seat), plays the hand to its end,
and its verdict — and ``lanswitch verify`` of its transcript — is fair: the kept seat held
the deal's round, written before the seed went, and the hand was replayed with the very
commitments of it. Before, the new run joined as a new player and watched.

Every wait is bounded."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.terminal import bot_friend, stop_friend


def wait_for(path: Path, pattern: str, limit: float) -> re.Match[str]:
    """The first match of ``pattern`` in the file ``path`` (AssertionError after ``limit`` s)."""
    deadline = time.monotonic() + limit
    text = ""
    while time.monotonic() < deadline:
        text = path.read_text("utf-8") if path.exists() else ""
        found = re.search(pattern, text, re.M)
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{pattern!r} not in {path.name} within {limit:g} s:\n{text}")


def test_a_join_killed_mid_hand_takes_its_seat_back_in_the_same_hand_and_ends_fair(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("LANSWITCH_DATA_DIR", None)
    host_out = tmp_path / "host.out"
    files = tmp_path / "bob-files"
    files.mkdir()
    host = subprocess.Popen(
        [
            *(sys.executable, "-m", "lanswitch", "--data-dir", str(tmp_path / "host")),
            *("host", "--interface", "127.0.0.1", "--table", "Kitchen"),
            *("--seats", "2", "--bots", "1", "--hands", "1", "--bot-delay", "0.15"),
        ],
        stdout=host_out.open("w"),
        stderr=(tmp_path / "host.err").open("w"),
        env=env,
    )
    friend: subprocess.Popen[bytes] | None = None
    try:
        port = wait_for(host_out, r'^table "Kitchen" listening on 127\.0\.0\.1:(\d+)', 20)[1]
        think = ("--think", "0.15", "--transcripts", str(files))
        friend = bot_friend(tmp_path, port, env, *think)
        wait_for(tmp_path / "bob.out", r"^hand 1 started$", 30)
        time.sleep(1.0)  # a few moves into the hand (each player waits 0.15 s a move)
        os.kill(friend.pid, signal.SIGKILL)  # our own child, by its pid
        assert friend.wait(10) == -signal.SIGKILL
        before = (tmp_path / "bob.out").read_text("utf-8")
        assert "hand 1 over" not in before, "the hand ended before the kill: " + before
        assert re.search(r"^joined seat 1 at Kitchen$", before, re.M), before
        wait_for(host_out, r"^bob is away$", 15)
        kept = list((tmp_path / "bob" / "seats").glob("*.json"))  # (checked below)
        record = json.loads(kept[0].read_text("utf-8"))["revealed"] if kept else None
        (tmp_path / "bob.out").rename(tmp_path / "bob-killed.out")

        friend = bot_friend(tmp_path, port, env, *think)  # the same data dir: bob's
        assert friend.wait(120) == 0, (tmp_path / "bob.err").read_text("utf-8")  # (a loaded CI)
        assert host.wait(20) == 0
    finally:
        stop_friend(friend)
        if host.poll() is None:
            host.kill()  # our own child
        host.wait(10)
    said = (tmp_path / "bob.out").read_text("utf-8")
    lines = said.splitlines()
    assert "joined, watching Kitchen" not in said, said  # (before: bob 2, watching)
    assert lines[0] == f"taking your seat back at 127.0.0.1:{port}", said  # its first line
    assert "resumed seat 1 at Kitchen" in lines, said
    assert len(kept) == 1  # the seat was kept while no join ran
    # ... with the deal's round, its seed sent (the fixed announcement it went in with)
    assert record is not None
    assert record["hand_no"] == 1, record
    assert [r["round"] for r in record["rounds"]][:1] == [0], record
    assert all(r["fixed"] for r in record["rounds"]), record
    verdicts = re.findall(r"^hand (\d+) verified ([^,\n]+)", said, re.M)
    assert verdicts == [("1", "fair")], said
    assert (tmp_path / "bob.err").read_text("utf-8") == ""
    logged = host_out.read_text("utf-8")
    assert "bob 2" not in logged, logged
    assert re.search(r"^bob is back$", logged, re.M), logged
    assert re.search(r"^hand 1 over: (bob|bot 1) went out$", logged, re.M), logged
    assert list((tmp_path / "bob" / "seats").glob("*.json")) == []  # the match ended: given up

    (transcript,) = files.glob("*hand001*.json")
    checked = subprocess.run(
        [sys.executable, "-m", "lanswitch", "verify", str(transcript)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "FAIR" in checked.stdout, checked.stdout
