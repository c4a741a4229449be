"""Kill the host with ``kill -9`` at random moments and check that every match still ends well.

Each trial is a real table on loopback: ``lanswitch host`` (two bot seats, ``--hands H``) and
two headless players (``lanswitch join --bot``), each a process of its own. At a random
moment the host is killed with SIGKILL — no goodbye, no flush, the journal as the kernel has
it — and after a random pause ``lanswitch host --resume`` starts it again from its journal.
The players notice the lost link, keep reconnecting with their resume tokens, and the match
goes on. A trial passes when

* the resumed host ends the match and exits 0, and both players exit 0;
* each player has a transcript of every hand, and every transcript verifies FAIR
  (``lanswitch.fairdeal.verify``, protocol v2; UNCONFIRMED, VOID or UNFAIR fail the trial). A
  hand's transcript is this player's own record of every event it was shown — every move
  signed by whoever made it, over the log as the signer held it — checked against the host's
  signed log head and the other player's: had the resumed host lost an action a player had
  already been shown, they would disagree and the hand would fail — so "0 actions lost" is
  checked for every hand, the one cut by the kill included. A player whose link stayed down
  past the host's grace is logged away and its seat played by a stand-in (the verdict is
  still FAIR, naming it: that is v2 working, not a lost action);
* nothing hangs: every wait is bounded.

The kill moments are spread evenly at random over a calibration run's length (a match played
without a kill, first), counted from the moment both players have sat down, so they fall in
the lobby, during the fair deal's rounds, mid-hand, between hands, and while the log heads are
collected. (A host killed before anyone reached it has no one to bring back: `join` stops
after three refused first attempts, by design.)

Network safety: everything listens on 127.0.0.1 (zeroconf too, with ``--interface``). Only the
processes this script started are ever signalled, by their own process ids.

With ``--blind`` every hand is dealt dealer-blind: each player's hand files are checked by
``lanswitch verify`` (as a player would), and each player's own verdict must say fair too.

    .venv/bin/python benchmarks/crash.py            # 50 trials
    .venv/bin/python benchmarks/crash.py --trials 5 --jobs 2
    .venv/bin/python benchmarks/crash.py --blind --hands 2 --trials 16 --jobs 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanswitch.fairdeal import Transcript, verify

LANSWITCH = Path(sys.executable).with_name("lanswitch")
HANDS = 3
BOT_DELAY = 0.03
THINK = 0.02
MATCH_TIMEOUT = 150.0  # seconds a trial's match may take, the kill and the restart included
LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
JOINED = re.compile(r"joined seat")
LATE = re.compile(r"is over: nothing to resume|no unfinished table")
FAIR = re.compile(r"hand (\d+) verified fair\b")


@dataclass
class Trial:
    """One trial's outcome (``problems`` empty: it passed)."""

    number: int
    kill_at: float  # seconds after the players started
    pause: float  # seconds between the kill and the restart
    port: int = 0
    late: bool = False  # the kill came after the match had ended: the trial is run again
    attempts: int = 1
    replay: str = ""  # what the resumed host said about its journal
    seconds: float = 0.0  # the whole trial
    seconds_to_sit: float = 0.0  # from the host's start until both players sat
    hands_verified: int = 0
    problems: list[str] = field(default_factory=list)


class Proc:
    """A child process whose output lines are collected by a thread (never blocking it)."""

    def __init__(self, args: Sequence[str], name: str) -> None:
        self.name = name
        self.lines: list[str] = []
        self.popen = subprocess.Popen(
            [str(LANSWITCH), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_line(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str] | None:
        deadline = time.monotonic() + timeout
        for _ in range(int(timeout / 0.02) + 1):
            for line in list(self.lines):
                m = pattern.search(line)
                if m:
                    return m
            if self.popen.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        return next((m for line in self.lines if (m := pattern.search(line))), None)

    def wait(self, timeout: float) -> int | None:
        try:
            code = self.popen.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return None
        self._reader.join(timeout=2.0)
        return code

    def kill(self) -> None:
        if self.popen.poll() is None:
            os.kill(self.popen.pid, signal.SIGKILL)  # only our own child, by its pid
            self.popen.wait(timeout=10)
        self._reader.join(timeout=2.0)

    def tail(self, n: int = 6) -> str:
        return " | ".join(self.lines[-n:])


def _host_args(data: Path, name: str) -> list[str]:
    return ["host", "--data-dir", str(data), "--name", name, "--interface", "127.0.0.1"]


def run_trial(
    number: int,
    work: Path,
    kill_at: float | None,
    pause: float,
    hands: int = HANDS,
    blind: bool = False,
    kill_from: re.Pattern[str] | None = None,
) -> Trial:
    """One match; with ``kill_at``, the host is killed that many seconds in and resumed —
    counted from when both players sit, or (``kill_from``) from the host's first line that
    matches. ``blind``: every hand dealt dealer-blind, each player's hand files checked by
    ``lanswitch verify`` (the command a player runs)."""
    trial = Trial(number, kill_at or 0.0, pause)
    base = work / f"trial{number:03d}"
    data = base / "host"
    name = f"crash trial {number}"
    procs: list[Proc] = []
    t0 = time.monotonic()
    try:
        host = Proc(
            [
                *_host_args(data, name),
                "--seats",
                "4",
                "--bots",
                "2",
                "--hands",
                str(hands),
                "--bot-delay",
                str(BOT_DELAY),
                *(["--blind"] if blind else []),
            ],
            "host",
        )
        procs.append(host)
        m = host.wait_line(LISTENING, 30.0)
        if m is None:
            trial.problems.append(f"the host did not start: {host.tail()}")
            return trial
        trial.port = int(m.group(1))
        players = []
        for who in ("ann", "bob"):
            folder = base / who
            (folder / "transcripts").mkdir(parents=True)
            args = [
                "join",
                f"127.0.0.1:{trial.port}",
                "--bot",
                "heuristic",
                "--name",
                who,
                "--think",
                str(THINK),
                "--transcripts",
                str(folder / "transcripts"),
                "--data-dir",
                str(folder),
            ]
            players.append(Proc(args, who))
        procs += players
        # The clock starts once both players sit: a host killed before anyone reached it has
        # no one to bring back (a player whose very first connection is refused stops at
        # once and is started again by hand, as `join` documents).
        for player in players:
            if player.wait_line(JOINED, 30.0) is None:
                trial.problems.append(f"{player.name} did not join: {player.tail()}")
                return trial
        started = time.monotonic()
        trial.seconds_to_sit = started - t0
        if kill_at is not None and kill_from is not None:
            if host.wait_line(kill_from, 30.0) is None:
                trial.problems.append(f"the host never said {kill_from.pattern!r}: {host.tail()}")
                return trial
            started = time.monotonic()
        if kill_at is not None:
            time.sleep(max(0.0, started + kill_at - time.monotonic()))
            if host.popen.poll() is not None:
                trial.late = True
                return trial
            host.kill()
            time.sleep(pause)
            host = Proc([*_host_args(data, name), "--resume"], "resumed host")
            procs.append(host)
            resumed = host.wait_line(re.compile(r"resumed .*"), 30.0)
            if resumed is None:
                if host.wait(10.0) is not None and any(map(LATE.search, host.lines)):
                    trial.late = True  # the match had ended (its last moves were journaled)
                    return trial
                trial.problems.append(f"the host did not resume: {host.tail()}")
                return trial
            trial.replay = resumed.group(0)
        deadline = started + MATCH_TIMEOUT
        for proc in (host, *players):
            code = proc.wait(deadline - time.monotonic())
            if code is None:
                trial.problems.append(f"{proc.name} hung: {proc.tail()}")
            elif code != 0:
                trial.problems.append(f"{proc.name} exited {code}: {proc.tail()}")
        for who in ("ann", "bob"):
            files = sorted((base / who / "transcripts").glob("*.json"))
            hands_seen = {_hand_no(json.loads(f.read_text())) for f in files}
            if len(hands_seen) != hands:
                trial.problems.append(f"{who} has transcripts of hands {sorted(hands_seen)}")
            player = next(p for p in players if p.name == who)
            said_fair = {int(m.group(1)) for line in player.lines if (m := FAIR.match(line))}
            if said_fair != set(range(1, hands + 1)):  # its own verdict, live
                trial.problems.append(f"{who} said fair of hands {sorted(said_fair)}")
            if blind:
                trial.hands_verified += _verify_blind(files, trial.problems, who)
                continue
            for f in files:
                verdict = verify(Transcript.from_json(f.read_text()))
                if verdict.status == "fair":
                    trial.hands_verified += 1
                else:
                    trial.problems.append(f"{who} {f.name}: {verdict.text()}")
        return trial
    finally:
        for proc in procs:
            proc.kill()
        trial.seconds = time.monotonic() - t0


def _hand_no(data: dict[str, Any]) -> int:
    """The hand a saved file is of (a blind hand's file keeps it in its setup)."""
    return int(data["hand_no"] if "hand_no" in data else data["setup"]["hand_no"])


def _verify_blind(files: list[Path], problems: list[str], who: str) -> int:
    """``lanswitch verify --json`` of a player's dealer-blind hand files: how many say fair
    (every other file's verdict is a problem, and so is a file that is not a blind one)."""
    if not files:
        return 0
    done = subprocess.run(
        [str(LANSWITCH), "verify", "--json", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    try:
        report = json.loads(done.stdout)
    except ValueError:
        problems.append(f"{who}: lanswitch verify said {done.stdout!r} {done.stderr!r}")
        return 0
    fair = 0
    for entry in report["files"]:
        if entry["status"] == "fair" and entry.get("dealer_blind"):
            fair += 1
        else:
            problems.append(f"{who} {Path(entry['file']).name}: {entry}")
    return fair


def attempt(
    number: int,
    kill_at: float,
    pause: float,
    work: Path,
    hands: int = HANDS,
    blind: bool = False,
    kill_from: re.Pattern[str] | None = None,
) -> Trial:
    """Trial ``number``. A match can be shorter than the calibration's: a kill that comes
    after it ended tests nothing, so the trial is run again with the kill twice as early."""
    for n in range(1, 6):
        trial = run_trial(number, work / f"attempt{n}", kill_at, pause, hands, blind, kill_from)
        trial.attempts = n
        if not trial.late:
            break
        kill_at /= 2
    return trial


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2, help="trials run at once")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--hands", type=int, default=HANDS)
    ap.add_argument("--blind", action="store_true", help="deal every hand dealer-blind")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    t_start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lanswitch-crash-") as tmp:
        work = Path(tmp)
        calibration = run_trial(0, work, None, 0.0, args.hands, args.blind)
        if calibration.problems:
            print("calibration failed:", *calibration.problems, sep="\n  ")
            return 1
        length = calibration.seconds - calibration.seconds_to_sit
        print(f"seed {seed}; a match of {args.hands} hands takes {length:.1f} s without a kill")
        plans = [
            (k, rng.uniform(0.03, 0.9) * length, rng.choice([0.0, 0.5, 1.0, 3.0]))
            for k in range(1, args.trials + 1)
        ]
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            trials = list(
                pool.map(lambda p: attempt(p[0], p[1], p[2], work, args.hands, args.blind), plans)
            )
    failed = [t for t in trials if t.problems or t.late]
    for t in trials:
        if t.late:
            t.problems.append("every attempt's kill came after the match had ended")
    for t in trials:
        mark = "ok  " if not t.problems else "FAIL"
        again = f" (attempt {t.attempts})" if t.attempts > 1 else ""
        print(
            f"{mark} trial {t.number:2d}: killed at {t.kill_at:5.2f} s{again}, "
            f"down {t.pause:.1f} s; {t.replay}; {t.hands_verified} transcripts fair, "
            f"{t.seconds:.1f} s"
        )
        for problem in t.problems:
            print(f"       {problem}")
    verified = sum(t.hands_verified for t in trials)
    print(
        f"\n{len(trials)} kill -9 trials in {time.monotonic() - t_start:.0f} s: "
        f"{len(trials) - len(failed)} matches resumed and completed, {len(failed)} failed; "
        f"{verified} transcripts verified fair (of {len(trials) * 2 * args.hands} expected); "
        f"actions lost: {'0' if not failed else 'see the failures'}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
