"""The ``lanswitch`` command line (a shell: it does the I/O the core never does).

Exit codes: 0 success, 1 a failure the command reports (e.g. an unfair hand, later), 2 bad
usage or bad input (unknown preset, bad rules file, bad option value).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from . import __version__
from .bots import BOTS
from .rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, RulesError, dump_toml, load_rules
from .simulate import SimStats, simulate, verbose_printer

__all__ = ["data_dir", "main"]

DATA_DIR_ENV = "LANSWITCH_DATA_DIR"


def data_dir(option: str | None) -> Path:
    """Where lanswitch keeps files: ``--data-dir``, else $LANSWITCH_DATA_DIR, else the
    platform's user data directory."""
    if option:
        return Path(option).expanduser()
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("lanswitch", appauthor=False))


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"lanswitch: error: {message}\n")


def _players(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    return n


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="lanswitch",
        description="Switch, the card game, with friends on one network.",
        epilog="Docs: README.md and docs/ in the source tree.",
    )
    p.add_argument("--version", action="version", version=f"lanswitch {__version__}")
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"where lanswitch keeps its files (default: ${DATA_DIR_ENV}, else the "
        "platform's user data directory)",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser(
        "rules",
        help="list the rule presets, or print one as a TOML file",
        description="With no NAME, list the presets (name first). With a preset NAME, print "
        "it as a TOML file you can edit and load with --rules FILE. With a FILE, check it and "
        "print the complete rule set it makes.",
    )
    r.add_argument("name", nargs="?", metavar="NAME|FILE")

    s = sub.add_parser(
        "simulate",
        help="play bot games offline and report what happened",
        description="Play bot hands offline (the deal rotates each hand) and summarise them.",
    )
    s.add_argument("--rules", default="switch", metavar="NAME|FILE", help="preset or TOML file")
    s.add_argument("--players", type=_players, default=4, metavar="N", help="2..8 (default 4)")
    s.add_argument("--games", type=_positive, default=1, metavar="G", help="hands to play")
    s.add_argument(
        "--bots",
        default="heuristic",
        metavar="B1,B2,…",
        help=f"one bot per seat, or one for all ({', '.join(BOTS)}; default heuristic)",
    )
    s.add_argument("--seed", type=_seed, metavar="S", help="seed for a reproducible run")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--verbose", action="store_true", help="narrate every move")

    sub.add_parser("paths", help="show where lanswitch keeps its files")
    return p


def _cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    if args.name is None:
        width = max(len(n) for n in PRESETS)
        for name, rules in PRESETS.items():
            out.write(f"{name:<{width}}  {rules.description}\n")
        return 0
    out.write(dump_toml(load_rules(args.name)))
    return 0


class _Progress:
    """A one-line progress bar on stderr, for long runs on a terminal only."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.shown = -1

    def __call__(self, done: int) -> None:
        pct = done * 100 // self.total
        if pct != self.shown:
            self.shown = pct
            bar = "#" * (pct // 4)
            self.stream.write(f"\r[{bar:<25}] {pct:3d}% ({done}/{self.total} hands)")
            if done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def _cmd_simulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rules = load_rules(args.rules)
    names = [b.strip() for b in args.bots.split(",")]
    if len(names) == 1:
        names *= args.players
    unknown = [b for b in names if b not in BOTS]
    if unknown:
        raise _UsageError(f"--bots: no bot {unknown[0]!r}; bots are {', '.join(BOTS)}")
    if len(names) != args.players:
        raise _UsageError(
            f"--bots: {args.players} players need one bot each or one for all (got {len(names)})"
        )
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    on_move = None
    labels = [f"Seat {i + 1} ({n})" for i, n in enumerate(names)]
    if args.verbose:

        def write(line: str) -> None:
            out.write(line + "\n")

        on_move = verbose_printer(labels, write)
        out.write(f"{rules.name}: {rules.description}\n")
    progress = None
    if not args.json and not args.verbose and args.games >= 200 and err.isatty():
        progress = _Progress(args.games, err)
    stats = simulate(rules, args.players, args.games, names, seed, on_move, progress)
    if args.json:
        data = stats.as_json() | {"seed": seed}
        out.write(json.dumps(data) + "\n")
    else:
        _summary(stats, seed, out)
    return 0


def _summary(stats: SimStats, seed: int, out: TextIO) -> None:
    g = max(stats.games, 1)
    el = stats.elapsed_s or 1e-9
    w = out.write
    w(
        f"\n{stats.rules}, {stats.players} players, {stats.games} hands (seed {seed}) in "
        f"{stats.elapsed_s:.2f} s: {stats.games / el:,.0f} hands/s, "
        f"{stats.actions / el:,.0f} player actions/s\n"
    )
    w(
        f"Per hand: {stats.turns / g:.1f} turns, {stats.actions / g:.1f} actions, "
        f"{stats.draws / g:.1f} cards drawn, {stats.reshuffles / g:.2f} reshuffles, "
        f"{stats.penalties / g:.2f} penalties\n"
    )
    endings = ", ".join(f"{k} {v}" for k, v in sorted(stats.endings.items()))
    w(f"Endings: {endings}")
    if stats.endings.get("limit"):
        w("  (limit = stopped by the safety limit, see docs/rules.md)")
    w("\nWins by seat: ")
    w(
        ", ".join(
            f"{i + 1}:{b} {n} ({n / g:.1%})"
            for i, (b, n) in enumerate(zip(stats.bots, stats.wins, strict=True))
        )
    )
    shares = stats.as_json()["per_bot"]
    assert isinstance(shares, dict)
    if len(shares) > 1:
        w("\nWin share per seat, by bot: ")
        w(", ".join(f"{name} {v['wins'] / v['seats'] / g:.1%}" for name, v in shares.items()))
    fired = ", ".join(f"{k} {v / g:.2f}" for k, v in stats.fired.items())
    w(f"\nPower cards fired per hand: {fired or 'none'}\n")


class _UsageError(Exception):
    pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        if args.command == "rules":
            return _cmd_rules(args, out)
        if args.command == "simulate":
            return _cmd_simulate(args, out, err)
        if args.command == "paths":
            out.write(f"data dir: {data_dir(args.data_dir)}\n")
            return 0
        parser.print_help(out)
        return 0
    except (RulesError, _UsageError) as e:
        err.write(f"lanswitch: error: {e}\n")
        return 2
    except BrokenPipeError:
        # `lanswitch rules switch | head` closes the pipe early: not an error.
        sys.stderr.close()
        return 0
