"""A real terminal for tests: a tmux server on a private socket with one window running a
command, its screen read as text (as a person reads it) and keys sent to it.

Used by ``tests/scenarios/test_tmux.py`` (lanswitch play as a person plays it),
``tests/scenarios/test_lan.py``
(a friend's laptop, the server started inside a node's network namespace) and
``tests/scenarios/test_portable.py``. Each test kills its own server by its socket (never ``tmux
kill-server`` on the default one), and the socket file goes with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

__all__ = ["Tmux", "bot_friend", "stop_friend"]


class Tmux:
    """One tmux server on a private socket, with one window of ``size`` running ``command``;
    with ``netns``, started by ``ip netns exec NETNS`` (the command sees only that network)."""

    def __init__(
        self,
        command: str,
        env: dict[str, str],
        size: tuple[int, int] = (100, 30),
        *,
        netns: str | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.socket = f"lsw-{uuid.uuid4().hex[:8]}"
        cols, rows = size
        # The program reads its window's size, as it would in a person's terminal. COLUMNS and
        # LINES would win over the window (``shutil.get_terminal_size`` reads them first), and
        # pytest-xdist sets them (80×24) in its workers: a 60-column window then got 80-column
        # lines, cut mid-word by the terminal.
        env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}
        inside = ("ip", "netns", "exec", netns) if netns is not None else ()
        subprocess.run(
            [
                *inside,
                *("tmux", "-L", self.socket, "new-session", "-d", "-x", str(cols), "-y"),
                *(str(rows), "-s", "main", command),
            ],
            env=env,
            cwd=cwd,
            timeout=10,
            check=True,
        )
        self.run("set-option", "-s", "escape-time", "0")  # tmux passes Esc on at once

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "main", *keys)

    def screen(self, *, escapes: bool = False) -> str:
        return self.run("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "main")

    def wait_for(self, text: str, seconds: float) -> str:
        """The screen once it shows ``text`` (or as it is after ``seconds``)."""
        screen = ""
        for _ in range(int(seconds / 0.1)):
            screen = self.screen()
            if text in screen:
                break
            time.sleep(0.1)
        return screen

    def kill(self) -> None:
        """End this tmux server, and remove its socket file (tmux leaves it behind)."""
        path = self.run("display-message", "-p", "#{socket_path}").strip()
        self.run("kill-server")
        tmpdir = os.environ.get("TMUX_TMPDIR", "/tmp")
        Path(path or f"{tmpdir}/tmux-{os.getuid()}/{self.socket}").unlink(missing_ok=True)


def bot_friend(tmp: Path, port: str, env: dict[str, str], *extra: str) -> subprocess.Popen[bytes]:
    """A friend at the table a terminal hosts: ``lanswitch join 127.0.0.1:PORT --bot heuristic
    --name bob`` in a process of its own, with its own data folder under ``tmp``, its output in
    ``tmp/bob.out`` and ``tmp/bob.err``; ``extra``: more of join's options."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "lanswitch", "--data-dir", str(tmp / "bob")),
            *("join", f"127.0.0.1:{port}", "--bot", "heuristic", "--name", "bob", *extra),
        ],
        stdout=(tmp / "bob.out").open("w"),
        stderr=(tmp / "bob.err").open("w"),
        env={**env, "PYTHONUNBUFFERED": "1"},
    )


def stop_friend(friend: subprocess.Popen[bytes] | None) -> None:
    """End :func:`bot_friend`'s process if it still runs (our own child, by its handle)."""
    if friend is None:
        return
    if friend.poll() is None:
        friend.kill()
    friend.wait(10)
