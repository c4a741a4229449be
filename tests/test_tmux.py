"""``lanswitch play`` as a person plays it: in a real terminal (tmux), by keys alone, reading
the screen. The table is served on 127.0.0.1 only (``--interface``), so zeroconf never touches
the real network; tmux runs on a private socket that only this test uses and kills."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

TURN = re.compile(r"your turn|choose:|you may lay more|play the card you drew|name a suit|name the")


class Tmux:
    """One tmux server on a private socket, with one window running ``command``."""

    def __init__(self, command: str, env: dict[str, str]) -> None:
        self.socket = f"lsw-{uuid.uuid4().hex[:8]}"
        self.run("new-session", "-d", "-x", "100", "-y", "30", "-s", "main", command, env=env)

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            env=env,
            check=False,
        ).stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "main", *keys)

    def screen(self, *, escapes: bool = False) -> str:
        return self.run("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "main")

    def kill(self) -> None:
        self.run("kill-server")


def wait_for(tmux: Tmux, text: str, seconds: float) -> str:
    """The screen once it shows ``text`` (or as it is after ``seconds``)."""
    screen = ""
    for _ in range(int(seconds / 0.1)):
        screen = tmux.screen()
        if text in screen:
            break
        time.sleep(0.1)
    return screen


def play_by_keys(tmux: Tmux, *, until: str = "is over", presses: int = 600) -> tuple[int, str]:
    """Take our turns with Enter (a draw, or a pass, when the card is not legal) until the
    screen shows ``until`` or we pressed ``presses`` times; the presses and the table as drawn
    (with escapes) at each of our turns."""
    pressed = 0
    seen = ""
    for _ in range(600):  # bounded: about two minutes
        screen = tmux.screen()
        if until in screen or pressed >= presses:
            break
        if TURN.search(screen):
            seen += tmux.screen(escapes=True)
            tmux.keys("Enter")
            pressed += 1
            time.sleep(0.15)
            after = tmux.screen()
            if "not a legal move" in after:
                tmux.keys("d")
                time.sleep(0.15)
                if "cannot draw" in tmux.screen():
                    tmux.keys("p")
        time.sleep(0.05)
    return pressed, seen


def test_a_whole_hand_of_lanswitch_play_by_keys(tmp_path: Path) -> None:
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(tmp_path), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    log = tmp_path / "play.err"
    command = (
        f"{sys.executable} -m lanswitch play --interface 127.0.0.1 --name ann --bots 3 "
        f"--bot-delay 0.05 2>{log}; echo EXITED $?; sleep 30"
    )
    tmux = Tmux(command, env)
    try:
        screen = wait_for(tmux, "Press r", 10)  # the lobby
        assert "Press r" in screen, screen + log.read_text()
        assert "r ready" in screen  # the hint bar
        tmux.keys("r")
        presses, seen = play_by_keys(tmux)
        screen = wait_for(tmux, "deal verified", 10)  # the verdict follows the result
        assert "Hand 1 is over" in screen, screen
        assert "deal verified: fair, every card legal" in screen, screen
        assert presses > 0
        # Suits are drawn as symbols, red ones in red (SGR 31), the cursor in reverse video.
        assert re.search("[♣♦♥♠]", seen)
        assert re.search(r"\x1b\[(?:[0-9;]*;)?31m[^\x1b]*[♥♦]", seen), "no red heart or diamond"
        assert "\x1b[7m" in seen
        tmux.keys("Enter")  # ready for the next hand
        wait_for(tmux, "hand 2", 5)
        tmux.keys("q")
        time.sleep(0.3)
        assert "Leave the table?" in tmux.screen()
        tmux.keys("y")
        screen = wait_for(tmux, "EXITED", 10)
        assert "EXITED 0" in screen, screen + log.read_text()
        assert "closed" in screen
    finally:
        tmux.kill()


def test_lanswitch_play_killed_mid_hand_resumes_with_the_player_back_in_the_seat(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(tmp_path), "TERM": "xterm-256color"}
    log = tmp_path / "play.err"
    play = f"{sys.executable} -m lanswitch play --interface 127.0.0.1"
    command = (
        f"{play} --name ann --bots 3 --bot-delay 0.05 2>{log}; echo KILLED $?; "
        f"{play} --resume 2>>{log}; echo EXITED $?; sleep 30"
    )
    tmux = Tmux(command, env)
    try:
        assert "Press r" in wait_for(tmux, "Press r", 10), log.read_text()
        tmux.keys("r")
        presses, _ = play_by_keys(tmux, presses=2)
        assert presses == 2, tmux.screen()
        before = tmux.screen()
        assert "Hand 1" in before or "hand 1" in before
        # kill -9 the play process: the child of the pane's shell, by its own pid.
        shell = tmux.run("display", "-p", "-t", "main", "#{pane_pid}").strip()
        child = subprocess.run(
            ["pgrep", "-P", shell], capture_output=True, text=True, timeout=10, check=False
        ).stdout.split()
        assert len(child) == 1, child
        os.kill(int(child[0]), 9)
        # The same command line starts again with --resume: the same table, the same hand,
        # and ann in her seat (her key is in the table's journal), playing on by keys.
        screen = wait_for(tmux, "ann", 15)
        assert "KILLED 137" not in screen or "ann" in screen, screen + log.read_text()
        more, _ = play_by_keys(tmux)
        assert more > 0, tmux.screen() + log.read_text()
        screen = wait_for(tmux, "deal verified", 15)
        assert "Hand 1 is over" in screen, screen + log.read_text()
        assert "deal verified: fair, every card legal" in screen, screen
        tmux.keys("q")
        time.sleep(0.3)
        tmux.keys("y")
        screen = wait_for(tmux, "EXITED", 10)
        assert "EXITED 0" in screen, screen + log.read_text()
        assert not list((tmp_path / "tables").glob("*.sqlite")), "the journal outlived its table"
    finally:
        tmux.kill()
