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
        screen = ""
        for _ in range(100):  # the lobby, within 10 s
            screen = tmux.screen()
            if "Press r" in screen:
                break
            time.sleep(0.1)
        assert "Press r" in screen, screen + log.read_text()
        assert "r ready" in screen  # the hint bar
        tmux.keys("r")
        presses = 0
        seen = ""  # the table as drawn (with escapes) at each of our turns
        for _ in range(600):  # a hand, by keys, within about two minutes
            screen = tmux.screen()
            if "is over" in screen:
                break
            if TURN.search(screen):
                seen += tmux.screen(escapes=True)
                tmux.keys("Enter")
                presses += 1
                time.sleep(0.15)
                after = tmux.screen()
                if "not a legal move" in after:
                    tmux.keys("d")
                    time.sleep(0.15)
                    if "cannot draw" in tmux.screen():
                        tmux.keys("p")
            time.sleep(0.05)
        for _ in range(100):  # the verdict follows the result
            screen = tmux.screen()
            if "deal verified" in screen or "UNFAIR" in screen:
                break
            time.sleep(0.1)
        assert "Hand 1 is over" in screen, screen
        assert "deal verified: fair, every card legal" in screen, screen
        assert presses > 0
        # Suits are drawn as symbols, red ones in red (SGR 31), the cursor in reverse video.
        assert re.search("[♣♦♥♠]", seen)
        assert re.search(r"\x1b\[(?:[0-9;]*;)?31m[^\x1b]*[♥♦]", seen), "no red heart or diamond"
        assert "\x1b[7m" in seen
        tmux.keys("Enter")  # ready for the next hand
        for _ in range(50):
            if "hand 2" in tmux.screen():
                break
            time.sleep(0.1)
        tmux.keys("q")
        time.sleep(0.3)
        assert "Leave the table?" in tmux.screen()
        tmux.keys("y")
        for _ in range(100):
            screen = tmux.screen()
            if "EXITED" in screen:
                break
            time.sleep(0.1)
        assert "EXITED 0" in screen, screen + log.read_text()
        assert "closed" in screen
    finally:
        tmux.kill()
