"""What ``lanswitch play`` says before its screen opens (``lanswitch/preflight.py``), read as
a person reads it: in tmux at 80×24 and 60×15, keys sent as a person sends them.

Issue 26's newcomer pass: a damaged journal's note was printed and at once hidden behind the
lobby (nobody could read it), and Ctrl-C at "Carry it on now?" printed only ``^C``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from lanswitch.journal import unfinished
from tests.scenarios.test_crash import _left_unfinished
from tests.terminal import Tmux
from tests.test_server import LOOPBACK

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _play(data: Path, size: tuple[int, int]) -> Tmux:
    """``lanswitch play`` on loopback in a fresh tmux window, its exit status said after it."""
    env = {
        **os.environ,
        "LANSWITCH_DATA_DIR": str(data),
        "HOME": str(data / "home"),
        "TERM": "xterm-256color",
    }
    command = (
        f"{sys.executable} -m lanswitch play --interface {LOOPBACK} --name ann; "
        "echo EXITED $?; sleep 30"
    )
    return Tmux(command, env, size=size)


def _says(screen: str, words: str) -> bool:
    """Whether ``screen`` shows ``words``, wherever the terminal wrapped them (a line of
    stderr breaks at the window's edge, mid-word)."""
    return "".join(words.split()) in "".join(screen.split())


def _damaged(data: Path) -> Path:
    folder = data / "tables"
    folder.mkdir(parents=True)
    junk = folder / "Kitchen-20261203-201500-4242.sqlite"
    junk.write_bytes(b"half a journal, copied from a full disk " * 40)
    return junk


@pytest.mark.parametrize("size", [(80, 24), (60, 15)])
def test_the_damaged_journal_note_waits_to_be_read_before_the_lobby_opens(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """The note used to flash by: printed, then the lobby drew over it at once. Now ``play``
    waits for Enter under it; Enter opens the new table, whose lobby then shows."""
    _damaged(tmp_path)
    tmux = _play(tmp_path, size)
    try:
        screen = tmux.wait_for("Enter", 15)
        assert _says(screen, "Press Enter to start a new table"), screen
        assert _says(screen, "is damaged (it is not a journal lanswitch can read)"), screen
        assert _says(screen, "cannot be resumed"), screen
        assert _says(screen, "Kitchen-20261203-201500-4242.sqlite"), screen
        tmux.keys("Enter")
        screen = tmux.wait_for("ready", 15)  # the new table's lobby: "r ready" in its foot
        assert "Press Enter" not in screen, screen
        assert "ready" in screen, screen
        tmux.keys("q")
        tmux.wait_for("y / n", 5)
        tmux.keys("y")
        screen = tmux.wait_for("EXITED", 15)
        assert "EXITED 0" in screen, screen
    finally:
        tmux.kill()


def test_ctrl_c_at_the_damaged_note_stops_before_any_table(tmp_path: Path) -> None:
    junk = _damaged(tmp_path)
    tmux = _play(tmp_path, (80, 24))
    try:
        tmux.wait_for("Press Enter", 15)
        tmux.keys("C-c")
        screen = tmux.wait_for("EXITED", 15)
        assert "EXITED 0" in screen, screen
        assert _says(screen, "no table was started"), screen
        assert "Traceback" not in screen, screen
    finally:
        tmux.kill()
    assert junk.exists()  # left as it was: deleting it is the person's choice


@pytest.mark.parametrize("size", [(80, 24), (60, 15)])
def test_ctrl_c_at_carry_it_on_says_nothing_was_lost_and_keeps_the_journal(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Ctrl-C at "Carry it on now?" printed only ``^C`` and ended. Now it ends with a line
    saying nothing was lost and how to carry the table on later; the journal stays."""
    _left_unfinished(tmp_path, "Kitchen")
    tmux = _play(tmp_path, size)
    try:
        tmux.wait_for("Carry it on now?", 15)
        tmux.keys("C-c")
        screen = tmux.wait_for("EXITED", 15)
        # Each sentence broken at spaces to the window, none cut mid-word by the terminal:
        # the screen is the same with the terminal's own wrapping undone (``-J``).
        unwrapped = tmux.run("capture-pane", "-p", "-J", "-t", "main")
        assert unwrapped.splitlines() == screen.splitlines(), screen
        assert "EXITED 0" in screen, screen
        assert _says(screen, "nothing was lost"), screen
        assert _says(screen, "lanswitch play --resume carries it on later"), screen
        assert "Traceback" not in screen, screen
    finally:
        tmux.kill()
    (kept,) = unfinished(tmp_path)
    assert kept.name == "Kitchen"


def test_ctrl_d_at_carry_it_on_says_the_same(tmp_path: Path) -> None:
    _left_unfinished(tmp_path, "Kitchen")
    tmux = _play(tmp_path, (80, 24))
    try:
        tmux.wait_for("Carry it on now?", 15)
        tmux.keys("C-d")
        screen = tmux.wait_for("EXITED", 15)
        assert "EXITED 0" in screen, screen
        assert _says(screen, "nothing was lost"), screen
        assert _says(screen, "lanswitch play --resume carries it on later"), screen
    finally:
        tmux.kill()
    assert len(unfinished(tmp_path)) == 1
