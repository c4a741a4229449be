"""Terminal client speed (issue #5), each figure beside a bare prompt_toolkit app measured in
the same run (the anchor: ``../shared/notes/tui.md`` measured a bare prototype's first frame
at 111 ms on this kind of machine).

(1) **Time to first frame**: from starting the process to the first frame on its terminal (a
    pseudo-terminal here), for ``lanswitch play --interface 127.0.0.1`` and for a bare
    full-screen app. Target ≤ 200 ms. ``play`` draws a splash first and then starts the host,
    its TLS identity, its server and the client's connection behind it, so the time until the
    lobby is usable (``Press r``) is printed too.
(2) **Keypress to redraw**: from a key written to the client's input to the end of the frame
    it causes (the output flushed), on the table screen mid-hand, for the lanswitch client and
    for a bare app whose key changes one line. Target ≤ 30 ms.
(3) **Esc to a closed page**: from Esc written to the input to the frame without the help
    page (issue 14: it took 1.5 s), for the lanswitch client and for a bare app with an Esc
    binding and prompt_toolkit's defaults. Target ≤ 100 ms.

Usage: ``python benchmarks/tui.py [--runs N] [--keys N] [--json]``. Every wait is bounded;
the children are ours, ended by their own pid; traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import select
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output.vt100 import Vt100_Output

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch.host import HostConfig
from lanswitch.journal import journal_dir
from lanswitch.tui.app import TuiApp
from lanswitch.tui.model import TuiModel
from tests.tablenet import TableNet

BARE = """
from prompt_toolkit.application import Application
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
Application(layout=Layout(Window(FormattedTextControl("bare prototype ready"))),
            full_screen=True).run()
"""


def first_frame(argv: list[str], marker: bytes, env: dict[str, str], limit: float = 10.0) -> float:
    """Seconds from fork to ``marker`` appearing on the child's terminal."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the program
        os.execvpe(argv[0], argv, env)
    seen = b""
    try:
        deadline = start + limit
        while marker not in seen:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no {marker!r} within {limit} s: {seen[-200:]!r}")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    break
        return time.perf_counter() - start
    finally:
        os.kill(pid, signal.SIGTERM)  # our own child
        for _ in range(100):
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.02)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)


class Stamped:
    """A terminal stream that notes when each frame ends (prompt_toolkit flushes per frame)."""

    def __init__(self) -> None:
        self.flushed = 0.0
        self.frames = 0

    def write(self, data: str) -> int:
        return len(data)

    def flush(self) -> None:
        self.flushed = time.perf_counter()
        self.frames += 1

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("not a file")

    @property
    def encoding(self) -> str:
        return "utf-8"


async def frame_latencies(
    make_app: Callable[[], Application[None]], keys: Sequence[str], stream: Stamped
) -> list[float]:
    """Milliseconds from each of ``keys`` written to the input to the frame it caused."""
    out: list[float] = []
    with create_pipe_input() as pipe:
        output = Vt100_Output(stream, lambda: Size(rows=30, columns=100), term="xterm-256color")  # type: ignore[arg-type]
        with create_app_session(input=pipe, output=output):
            app = make_app()
            task = asyncio.create_task(app.run_async())
            for _ in range(200):  # the first frame
                if stream.frames:
                    break
                await asyncio.sleep(0.01)
            for key in keys:
                frames = stream.frames
                sent = time.perf_counter()
                pipe.send_text(key)
                for _ in range(4000):  # up to 2 s
                    if stream.frames > frames:
                        break
                    await asyncio.sleep(0.0005)
                out.append((stream.flushed - sent) * 1000)
                await asyncio.sleep(0.005)
            app.exit()
            await task
    return out


async def key_latencies(
    make_app: Callable[[], Application[None]], keys: int, stream: Stamped
) -> list[float]:
    """Milliseconds from each key written to the frame it caused, alternating → and ←."""
    arrows = ["\x1b[C" if i % 2 == 0 else "\x1b[D" for i in range(keys)]
    return await frame_latencies(make_app, arrows, stream)


async def esc_latencies(
    make_app: Callable[[], Application[None]], presses: int, stream: Stamped
) -> list[float]:
    """Milliseconds from Esc written to the frame it caused, after ``?`` opened a page."""
    both = await frame_latencies(make_app, ["?", "\x1b"] * presses, stream)
    return both[1::2]


def bare_app() -> Application[None]:
    count = [0]
    kb = KeyBindings()

    @kb.add("right")
    @kb.add("left")
    @kb.add("?")
    @kb.add("escape")
    def _move(event: KeyPressEvent) -> None:
        count[0] += 1

    return Application(
        layout=Layout(Window(FormattedTextControl(lambda: f"pressed {count[0]}"))),
        key_bindings=kb,
        full_screen=True,
    )


def lanswitch_app() -> Application[None]:
    """The real client on the table screen, mid-hand, its seat to play (no sockets: the
    table runs in process, ``tests/tablenet.py``)."""
    net = TableNet(HostConfig(name="Bench", seats=4, bots=3, bot_delay=0.0, hands=None), seed=3)
    link = net.join("ann", auto_ready=True, bot=None)
    net.run(lambda: link.session.my_turn())
    model = TuiModel(link.session, send=lambda m: None)
    tui = TuiApp(model)
    tui.refresh()
    return tui.app


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="first-frame runs of each (default 7)")
    ap.add_argument("--keys", type=int, default=200, help="keys per app (default 200)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "LANSWITCH_DATA_DIR": data, "TERM": "xterm-256color"}
        env.pop("NO_COLOR", None)
        play = [py, "-m", "lanswitch", "play", "--interface", "127.0.0.1", "--name", "bench"]
        # The first run makes the host's identity; it is not counted.
        first_frame(play, b"lanswitch", env)
        ours, bare, lobby = [], [], []
        for _ in range(args.runs):  # interleaved, so both meet the same noise
            bare.append(first_frame([py, "-c", BARE], b"bare prototype", env))
            # A `play` stopped (SIGTERM) once its table had opened leaves the table's journal,
            # and the next would ask to carry it on instead of opening: each starts afresh.
            shutil.rmtree(journal_dir(Path(data)), ignore_errors=True)
            ours.append(first_frame(play, b"lanswitch", env))
            shutil.rmtree(journal_dir(Path(data)), ignore_errors=True)
            lobby.append(first_frame(play, b"Press r", env))
    f_ours, f_bare = statistics.median(ours) * 1000, statistics.median(bare) * 1000
    f_lobby = statistics.median(lobby) * 1000

    async def keys() -> tuple[list[float], list[float]]:
        k_bare = await key_latencies(bare_app, args.keys, Stamped())
        k_ours = await key_latencies(lanswitch_app, args.keys, Stamped())
        return k_ours, k_bare

    k_ours, k_bare = asyncio.run(keys())

    async def escapes() -> tuple[list[float], list[float]]:
        presses = max(3, args.keys // 20)
        return (
            await esc_latencies(lanswitch_app, presses, Stamped()),
            await esc_latencies(bare_app, presses, Stamped()),
        )

    e_ours, e_bare = asyncio.run(escapes())
    figures = {
        "first_frame_ms": {"lanswitch": f_ours, "bare": f_bare, "ratio": f_ours / f_bare},
        "lobby_ready_ms": f_lobby,
        "key_to_redraw_ms": {
            "lanswitch_p50": pct(k_ours, 0.5),
            "lanswitch_p99": pct(k_ours, 0.99),
            "bare_p50": pct(k_bare, 0.5),
            "bare_p99": pct(k_bare, 0.99),
        },
        "esc_to_closed_page_ms": {
            "lanswitch_p50": pct(e_ours, 0.5),
            "bare_defaults_p50": pct(e_bare, 0.5),
        },
        "targets": {
            "first_frame_le_200ms": f_ours <= 200,
            "key_to_redraw_le_30ms": pct(k_ours, 0.5) <= 30,
            "esc_le_100ms": pct(e_ours, 0.5) <= 100,
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"time to first frame, median of {args.runs} (ms):")
    print(
        f"  lanswitch play  {f_ours:7.1f}   bare app {f_bare:7.1f}   ratio {f_ours / f_bare:.2f}x"
    )
    print(f"  target <= 200 ms: {'met' if f_ours <= 200 else 'NOT MET'}")
    print(f"  the lobby ready (host, TLS, server and connection up): {f_lobby:.1f}")
    print(f"keypress to redraw, {args.keys} keys (ms):")
    print(
        f"  lanswitch table p50 {pct(k_ours, 0.5):6.2f}  p99 {pct(k_ours, 0.99):6.2f}   "
        f"bare app p50 {pct(k_bare, 0.5):6.2f}  p99 {pct(k_bare, 0.99):6.2f}   "
        f"ratio p50 {pct(k_ours, 0.5) / pct(k_bare, 0.5):.2f}x"
    )
    print(f"  target <= 30 ms: {'met' if pct(k_ours, 0.5) <= 30 else 'NOT MET'}")
    print(f"Esc to a closed help page, {len(e_ours)} presses (ms):")
    print(
        f"  lanswitch p50 {pct(e_ours, 0.5):6.1f}   bare app with prompt_toolkit's defaults "
        f"p50 {pct(e_bare, 0.5):6.1f}"
    )
    print(f"  target <= 100 ms: {'met' if pct(e_ours, 0.5) <= 100 else 'NOT MET'}")


if __name__ == "__main__":
    main()
