"""lanswitch without the Linux-only parts (``tests/nolinux.py``): no signal handlers on the
event loop, no glibc ``mallopt``, no POSIX file modes — as on Windows or macOS, where CI has
no runner here. A host and a client play a hand that verifies, Ctrl-C still closes a host,
and ``play`` opens and leaves in a real terminal. Loopback only."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.terminal import Tmux

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = "127.0.0.1"


def nolinux(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "tests.nolinux", "--data-dir", str(data), *args]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def start_host(tmp: Path, *args: str) -> tuple[subprocess.Popen[bytes], int, Path]:
    out = tmp / "host.out"
    proc = subprocess.Popen(
        nolinux(tmp / "host", "host", "--headless", "--interface", LOOPBACK, *args),
        stdout=out.open("w"),
        stderr=subprocess.STDOUT,
        env=env(),
        cwd=ROOT,
    )
    for _ in range(200):
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", out.read_text())
        if m:
            return proc, int(m.group(1)), out
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    proc.wait(10)
    raise AssertionError(out.read_text())


def test_a_host_and_a_client_without_the_linux_only_parts_play_a_hand_that_verifies(
    tmp_path: Path,
) -> None:
    host, port, out = start_host(
        tmp_path, "--seats", "2", "--bots", "1", "--hands", "1", "--bot-delay", "0"
    )
    try:
        joined = subprocess.run(
            nolinux(tmp_path / "join", "join", f"{LOOPBACK}:{port}", "--bot", "random"),
            capture_output=True,
            text=True,
            timeout=60,
            env=env(),
            cwd=ROOT,
        )
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert re.search(r"^hand 1 verified fair", joined.stdout, re.M), joined.stdout
        assert host.wait(30) == 0, out.read_text()
        assert "match over after 1 hand" in out.read_text()
        # The key was written, and is read back, with no file modes to set.
        assert (tmp_path / "host" / "host-key.pem").is_file()
    finally:
        if host.poll() is None:
            host.kill()  # our own child
        host.wait(10)


def test_ctrl_c_closes_a_host_whose_event_loop_takes_no_signal_handlers(tmp_path: Path) -> None:
    """On Windows Ctrl-C reaches the host as KeyboardInterrupt, not through the loop."""
    host, _, out = start_host(tmp_path, "--seats", "2", "--bots", "1")
    try:
        host.send_signal(signal.SIGINT)  # what Ctrl-C sends; no handler takes it in the loop
        assert host.wait(20) == 0, out.read_text()
        assert out.read_text().splitlines()[-1] == "table closed", out.read_text()
    finally:
        if host.poll() is None:
            host.kill()
        host.wait(10)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_play_opens_and_closes_in_a_terminal_without_the_linux_only_parts(tmp_path: Path) -> None:
    command = (
        " ".join(nolinux(tmp_path / "play", "play", "--interface", LOOPBACK, "--name", "ann"))
        + f" 2>{tmp_path / 'play.err'}; echo EXITED $?; sleep 30"
    )
    tmux = Tmux(command, {**env(), "TERM": "xterm-256color"}, (80, 24), cwd=ROOT)
    try:
        screen = tmux.wait_for("Press r", 15)
        assert "Press r" in screen, screen + (tmp_path / "play.err").read_text()
        tmux.keys("q")
        time.sleep(0.3)
        tmux.keys("y")
        screen = tmux.wait_for("EXITED", 10)
        assert "EXITED 0" in screen, screen + (tmp_path / "play.err").read_text()
    finally:
        tmux.kill()
