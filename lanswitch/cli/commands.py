"""What each command does, one function per command taking the parsed arguments and the two
(escaped) output streams and giving the exit code; ``COMMANDS`` maps each command's name to
it. The long outputs live beside: ``verify.py`` and ``history.py``; ``stats`` is
``lanswitch/stats.py``, ``replay`` is ``lanswitch/tui/replay.py``.

The commands import what they need when they run: ``lanswitch play`` draws its first frame
sooner without the simulator and the transcript checker loaded first."""

from __future__ import annotations

import argparse
import io
import json
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .args import (
    _hosting,
    _join_settings,
    _needs_terminal,
    _offer_resume,
    _old_table_name,
    _play_settings,
    _screen,
    _watch,
)
from .common import BOTS, _UsageError, data_dir, fitted, terminal_width
from .history import _cmd_history, _stored_transcript
from .verify import _cmd_verify, _is_blind_file, _read_or_why

if TYPE_CHECKING:
    from ..rules import RuleSet
    from ..simulate import SimStats

Command = Callable[[argparse.Namespace, TextIO, TextIO], int]
"""A command: its arguments, stdout and stderr (both escaped), to its exit code."""


def _cmd_rules(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.name is None:
        from ..rules import PRESETS

        width = max(len(n) for n in PRESETS)
        for name, rules in PRESETS.items():
            out.write(f"{name:<{width}}  {rules.description}\n")
        return 0
    from ..rules import dump_toml, load_rules
    from ..textsafe import escape

    # The file's own strings (its name, description, power names) as TOML escapes: the
    # output still loads back to the same rule set, and prints nothing a terminal acts on.
    out.write(escape(dump_toml(load_rules(args.name)), keep="\n", style="toml"))
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
    from ..rules import load_rules
    from ..simulate import simulate, verbose_printer

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
    if not args.json and not args.verbose and sys.stderr.isatty():
        # On a terminal, always: a run's length is not its count of hands (four hard bots
        # take seconds a hand), and the newcomer pass sat before a silent screen. Drawn at 0
        # first, so the wait for the first hand is not silent either.
        progress = _Progress(args.games, sys.stderr)  # its own \r, and numbers only
        progress(0)
    directory = None
    if args.transcripts is not None:
        directory = Path(args.transcripts)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _UsageError(f"--transcripts: cannot create {directory}: {e.strerror or e}") from e
    stats = simulate(
        rules,
        args.players,
        args.games,
        names,
        seed,
        on_move,
        progress,
        transcripts=directory,
        time_decisions=args.json,
    )
    if args.json:
        data = stats.as_json() | {"seed": seed}
        out.write(json.dumps(data) + "\n")
    else:
        # At a terminal, fitted to it: the terminal cut the long lines mid-word.
        _summary(stats, seed, out, rules, width=terminal_width(out))
    return 0


def _rate(per_s: float) -> str:
    """A rate as a person reads it: whole numbers from 10 up, two figures below ("0.07", not
    "0": four hard bots play a hand in some 14 s)."""
    return f"{per_s:,.0f}" if per_s >= 10 else f"{per_s:.2g}"


def _power_names(rules: RuleSet) -> dict[str, str]:
    """Each power row's name (``black_jack``, the rules file's) as a player names its cards,
    the help's words without the article: "black Jack", "2", "K♥"."""
    from ..powers import cards_words
    from ..textsafe import escape

    out = {}
    for row in rules.power:
        words = cards_words(row).removeprefix("an ").removeprefix("a ")
        out[row.name] = escape(words or row.name)
    return out


def _share(name: str, wins: int, n: int) -> str:
    """``name``'s share of ``n`` seat-hands won, with its Wilson 95% interval."""
    from ..simulate import wilson

    lo, hi = wilson(wins, n)
    return f"{name} {wins / n:.1%} [{lo:.1%}, {hi:.1%}]"


def _summary(
    stats: SimStats, seed: int, out: TextIO, rules: RuleSet, *, width: int | None = None
) -> None:
    """The run's summary, written to ``out``; with ``width`` (a terminal's), each line broken
    at spaces to fit it, going on indented by two."""
    if width is not None:
        buf = io.StringIO()
        _summary(stats, seed, buf, rules)
        for line in buf.getvalue().split("\n")[:-1]:
            out.write(fitted(line, width) + "\n")
        return
    g = max(stats.games, 1)
    el = stats.elapsed_s or 1e-9
    w = out.write
    w(
        f"\n{stats.rules}, {stats.players} players, {stats.games} "
        f"hand{'s' if stats.games != 1 else ''} (seed {seed}) in "
        f"{stats.elapsed_s:.2f} s: {_rate(stats.games / el)} hands/s, "
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
        # With the 95% interval: a few hundred hands cannot tell bots apart by a few points
        # (a newcomer read "hard 24.0%, normal 25.3%" over 200 hands as "no stronger").
        w("\nWin share per seat, by bot (95% interval): ")
        w(", ".join(_share(name, v["wins"], v["seats"] * g) for name, v in shares.items()))
    # The rows by their cards ("black Jack: 0.85"), not the rules file's names ("black_jack");
    # the JSON keeps the names, for scripts.
    names = _power_names(rules)
    fired = ", ".join(f"{names.get(k, k)}: {v / g:.2f}" for k, v in stats.fired.items())
    w(f"\nPower cards fired per hand: {fired or 'none'}\n")
    if stats.aborts is not None:
        w(
            f"Fair deal: {stats.rounds} commit-reveal rounds; {stats.aborts.describe()}.\n"
            f"Wrote {stats.transcripts} transcripts to {stats.transcript_dir}; check them with: "
            f"lanswitch verify {Path(stats.transcript_dir) / '*.json'}\n"
        )


def _cmd_stats(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..stats import cmd_stats

    return cmd_stats(data_dir(args.data_dir), out, err, as_json=args.json, by=args.by)


def _cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if (args.file is None) == (args.hand is None):
        raise _UsageError("replay: give a transcript FILE, or --hand ID (not both)")
    from ..tui.replay import cmd_replay

    if args.hand is not None:
        name, kept = _stored_transcript(args.hand, data_dir(args.data_dir))
    else:
        name, kept = args.file, _read_or_why(Path(args.file))
    blind = isinstance(kept, bytes) and _is_blind_file(kept)
    return cmd_replay(name, kept, err, blind=blind, ascii=args.ascii, four=args.four_colour)


def _cmd_tables(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import asyncio

    from ..discovery import conflicts, list_tables
    from ..textsafe import escape
    from ..tls import fingerprint_words, parse_fingerprint

    interfaces = [args.interface] if args.interface else None
    try:
        tables = asyncio.run(list_tables(args.timeout, interfaces=interfaces, probe=True))
    except ValueError as e:  # a bad --interface address
        raise _UsageError(str(e) if "--interface" in str(e) else f"--interface: {e}") from None
    if args.json:
        out.write(json.dumps([t.as_json() for t in tables]) + "\n")
        return 0
    if not tables:
        out.write(
            f"No tables heard in {args.timeout:g} s. Is a host running on this network, "
            "and does it let multicast DNS (UDP port 5353) through?\n"
        )
        return 0
    clashes = conflicts(tables)
    for t in tables:
        try:
            words = fingerprint_words(parse_fingerprint(t.fingerprint or ""))
        except ValueError:
            words = "(no fingerprint)"
        where = ", ".join(f"{a}:{t.port}" for a in t.addresses) or f"port {t.port}"
        free = "?" if t.seats_free is None else t.seats_free
        total = "?" if t.seats_total is None else t.seats_total
        # Every field came from the network: escaped, so a TXT record cannot drive the
        # terminal or disguise one name as another.
        blind = "  dealer-blind" if t.blind else ""
        blind += "  needs a password" if t.locked else ""
        out.write(
            f"{escape(t.name)}  {escape(t.rules)}  {free} of {total} seats free{blind}  "
            f"{where}\n    fingerprint: {words}\n"
        )
    for answers in clashes.values():
        shown = escape(answers[0].name)
        out.write(
            f"\nWARNING: {len({t.fingerprint for t in answers})} different tables answer to "
            f'the name "{shown}": one may be pretending to be another. Ask the host which '
            "fingerprint words its screen shows, and join that one with: lanswitch join "
            f'NAME --fingerprint "WORDS"\n'
        )
    return 0


def _cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..tui import play

    _play_settings(args)  # the options checked first: their errors say more
    _needs_terminal(args)
    if not args.resume:
        _offer_resume(args, err)
    return play(_play_settings(args), out, err)


def _cmd_host(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    _old_table_name(args, err)
    if not args.resume:
        _offer_resume(args, err)
    from .. import netcmd

    return _headless(lambda: netcmd.cmd_host(_hosting(args), out, err), err)


def _cmd_join(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.bot is None and not args.headless:  # the terminal client
        from ..tui import join

        joining = _join_settings(args)
        _needs_terminal(args)
        return join(joining, _screen(args), out, err)
    from .. import netcmd

    return _headless(lambda: netcmd.cmd_join(_join_settings(args), _watch(args), out, err), err)


def _headless(run: Callable[[], int], err: TextIO) -> int:
    """``host``, or ``join`` with no screen (``lanswitch/netcmd.py``): a setting the table
    refuses is a usage error (exit 2), a bad rules file stays the rules' own error, and what
    goes wrong at the table is one line (exit 1)."""
    from .. import netcmd

    try:
        return run()
    except ValueError as e:
        from ..rules import RulesError

        if isinstance(e, RulesError):
            raise
        raise _UsageError(str(e)) from None
    except netcmd.CommandError as e:
        err.write(f"lanswitch: {e}\n")
        return 1


def _cmd_paths(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..datadir import paths_text

    out.write(paths_text(data_dir(args.data_dir)))
    return 0


COMMANDS: dict[str, Command] = {
    "rules": _cmd_rules,
    "simulate": _cmd_simulate,
    "verify": _cmd_verify,
    "history": _cmd_history,
    "stats": _cmd_stats,
    "replay": _cmd_replay,
    "tables": _cmd_tables,
    "host": _cmd_host,
    "join": _cmd_join,
    "play": _cmd_play,
    "paths": _cmd_paths,
}
"""Each command's name (as the parser has it) to what it does."""
