"""The ``lanswitch`` command line (a shell: it does the I/O the core never does).

Exit codes: 0 success, 1 a failure the command reports (``verify``: a hand that is not fair),
2 bad usage or bad input (unknown preset, bad rules file, bad option value, a file that is
unreadable or not a transcript).

Past 700 lines, one parser per command and each command's body side by side: issue 27 splits
it into a package by command; until then it stays whole, so that issue 26's changes to its
commands could be reviewed in place.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from . import __version__
from .settings import Hosting, Join, Play, Screen, Watch, parse_target

# Parser limits and names, as literals so that `lanswitch play` can draw its first frame before
# the rules engine is loaded; tests/test_cli.py checks they agree with rules.py and bots.py.
MIN_PLAYERS, MAX_PLAYERS = 2, 8
BOTS = ("heuristic", "random")
PRESET_NAMES = (
    "switch",
    "irish",
    "two-four-jack",
    "blackjack",
    "j28",
    "take-two",
    "black5",
    "peanuckle",
    "turbo",
)

if TYPE_CHECKING:
    from .fairdeal.judgement import Judgement
    from .history import HandRow
    from .simulate import SimStats

# The commands import what they need when they run: `lanswitch play` draws its first frame
# sooner without the simulator and the transcript checker loaded first.

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


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _players(text: str) -> int:
    n = _whole(text)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    return n


def _positive(text: str) -> int:
    n = _whole(text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 600 seconds")
    return value


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
    s.add_argument("--seed", type=_whole, metavar="S", help="seed for a reproducible run")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--verbose", action="store_true", help="narrate every move")
    s.add_argument(
        "--transcripts",
        metavar="DIR",
        help="deal by the fair deal (fresh random seeds and keys; --seed then only drives the "
        "bots) and write every seat's transcript of every hand into DIR, e.g. "
        "hand-0001-seat-2.json; check them with lanswitch verify",
    )

    v = sub.add_parser(
        "verify",
        help="check hand transcripts: was the deal fair and every card legal?",
        description="Check each transcript offline: every commitment opens, your seeds are "
        "unchanged, every signature is valid, and the whole hand replays through the rules "
        "engine to exactly the cards you were given and the public log everyone signed. "
        "Transcripts of the same hand are also compared with each other. Prints one verdict "
        "per file with the reason and who is to blame. Exit status: 0 all fair, 1 any not fair "
        "(unconfirmed, unfair or void), 2 a file unreadable or not a transcript. With --hand "
        "ID instead of files: the transcript kept in the history for hand ID (see lanswitch "
        "history).",
    )
    v.add_argument("files", nargs="*", metavar="FILE", help="transcript files (.json)")
    v.add_argument(
        "--hand",
        type=_hand_id,
        metavar="ID",
        help="check the transcript the history keeps for hand ID (an id lanswitch history shows)",
    )
    v.add_argument("--json", action="store_true", help="print one JSON object")
    _data_dir_option(v)

    hi = sub.add_parser(
        "history",
        help="list the hands you played, with the verdict of each",
        description="List the hands this computer's clients played or watched, newest first: "
        "when, the table, the hand number, the rules, the result and the verdict of checking "
        "the deal. With an ID, show that hand in full: its placings, its verdict and the hand "
        "as you were told it, every play and draw. The transcripts are kept too: lanswitch "
        "verify --hand ID checks one again. The history is DATA_DIR/history.sqlite (see "
        "lanswitch paths).",
    )
    hi.add_argument("id", nargs="?", type=_hand_id, metavar="ID", help="show this hand in full")
    hi.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="with ID: write your transcript of that hand to FILE (a new file), the file "
        "lanswitch verify FILE checks — to check it elsewhere, or to give to someone",
    )
    hi.add_argument("--json", action="store_true", help="one JSON array of hands")
    hi.add_argument(
        "--limit", type=_positive, default=20, metavar="N", help="the newest N hands (default 20)"
    )
    _data_dir_option(hi)

    st = sub.add_parser(  # issue 26: statistics from the history (lanswitch/stats.py)
        "stats",
        help="your games in figures: win rate, per player, per rules, over time",
        description="Count the hands in the history: hands and matches played, the hands you "
        "won, how you fared against each player you met (by name), per set of rules, and per "
        "month (or week). A hand watched, or void, has no result and counts in no rate.",
    )
    st.add_argument("--json", action="store_true", help="one JSON object")
    st.add_argument(
        "--by", choices=("month", "week"), default="month", help="group over time (default month)"
    )
    _data_dir_option(st)

    rp = sub.add_parser(  # issue 26: a saved hand step by step (lanswitch/tui/replay.py)
        "replay",
        help="step through a saved hand in the terminal, as you saw it",
        description="Show a hand from your transcript or dealer-blind hand's file (the file "
        "lanswitch verify reads, or the one the history keeps: --hand ID) on the table screen, "
        "one deal or move at a time: right, Enter or Space steps on, left steps back, Home and "
        "End go to the first and the last, q leaves. You see what you saw at the table: your "
        "hand, the cards laid, how many each player holds; the last step shows the verdict of "
        "the file's check.",
    )
    rp.add_argument(
        "file", nargs="?", metavar="FILE", help="a hand's transcript or dealer-blind file (.json)"
    )
    rp.add_argument("--hand", type=_hand_id, metavar="ID", help="the hand the history keeps as ID")
    rp.add_argument("--ascii", action="store_true", help="letters for suits, no symbols")
    rp.add_argument("--four-colour", action="store_true", help="a colour per suit")
    _data_dir_option(rp)

    t = sub.add_parser(
        "tables",
        help="list the tables on the local network",
        description="Listen for lanswitch tables on the local network (zeroconf) and list them.",
    )
    t.add_argument("--json", action="store_true", help="one JSON array of tables")
    t.add_argument(
        "--timeout", type=_seconds, default=2.0, metavar="S", help="listen this long (default 2)"
    )
    t.add_argument(
        "--interface", metavar="ADDR", help="listen only on this IPv4 address (default: all)"
    )

    h = sub.add_parser(
        "host",
        help="host a table on the local network",
        description="Host a table: listen with TLS, advertise it by zeroconf, fill the last "
        "--bots seats with bots, and start each hand when every seat is filled and every "
        "player is ready. Players join with lanswitch join. Ctrl-C closes the table (mid-match "
        "it stops it: lanswitch host --resume carries it on).",
    )
    h.add_argument("--rules", default="switch", metavar="NAME|FILE", help="preset or TOML file")
    h.add_argument(
        "--table", metavar="T", help="the table's name (default: USER's table), as in play"
    )
    # ``host --name`` named the table before ``--table`` did (in ``play``, --name is the
    # player's own): still taken, with a note, so that older scripts keep working.
    h.add_argument("--name", dest="old_table_name", metavar="T", help=argparse.SUPPRESS)
    h.add_argument("--port", type=_port, default=0, metavar="P", help="TCP port (default: any)")
    h.add_argument("--seats", type=_players, default=4, metavar="N", help="2..8 (default 4)")
    h.add_argument("--bots", type=_count, default=0, metavar="N", help="bots (default 0)")
    h.add_argument("--hands", type=_positive, metavar="H", help="end the match after H hands")
    h.add_argument("--password", metavar="PW", help="players must give this password")
    h.add_argument(
        "--interface", metavar="ADDR", help="serve and advertise on this IPv4 address only"
    )
    h.add_argument(
        "--turn-timer",
        type=_turn_timer,
        default=0.0,
        metavar="S",
        help="seconds a player has to act (at least 5); then the safest move is made for them "
        "(default: none)",
    )
    _blind_option(h)
    h.add_argument(
        "--bot-delay",
        type=_duration,
        default=0.6,
        metavar="S",
        help="seconds a bot waits before it acts (default 0.6)",
    )
    h.add_argument(
        "--headless",
        action="store_true",
        help="print a log of the table (what host always does; to host and play at the "
        "table in the terminal client, use lanswitch play)",
    )
    h.add_argument(
        "--resume",
        action="store_true",
        help="carry on the table a crashed host left (the newest, or the one --table names): "
        "same settings, same port, the hand where it stopped; its players come back by "
        "themselves",
    )
    _data_dir_option(h)

    j = sub.add_parser(
        "join",
        help="join a table on the local network",
        description="Join a table by its name (found by zeroconf) or by HOST:PORT. With no "
        "table named, the terminal client opens the table browser (the tables heard on the "
        "network, live); with --headless or --bot, the only table on the network is joined. "
        "Names are matched as people read them (KITCHEN is Kitchen). When tables with "
        "different fingerprints answer to one name, join refuses to guess and lists them: "
        "pick one with --fingerprint WORDS (the six words lanswitch tables shows; ask the "
        "host which its screen shows). The host's certificate is pinned on first use, per "
        "table name, or per HOST:PORT. After every hand your transcript is checked: was the "
        "deal fair and every card legal?",
    )
    j.add_argument("table", nargs="?", metavar="HOST:PORT|TABLE-NAME")
    j.add_argument("--name", metavar="N", help="your display name (default: your user name)")
    j.add_argument(
        "--bot",
        choices=sorted(BOTS),
        metavar="STRATEGY",
        help=f"a bot ({' or '.join(sorted(BOTS))}) plays your seat; print a log, no screen",
    )
    j.add_argument("--spectate", action="store_true", help="watch instead of taking a seat")
    j.add_argument("--transcripts", metavar="DIR", help="save each hand's transcript in DIR")
    j.add_argument("--password", metavar="PW", help="the table's password")
    j.add_argument("--interface", metavar="ADDR", help="look for tables on this IPv4 address")
    j.add_argument(
        "--timeout", type=_seconds, default=5.0, metavar="S", help="discovery time (default 5)"
    )
    j.add_argument(
        "--think", type=_duration, default=0.0, metavar="S", help="a bot's pause before moving"
    )
    j.add_argument(
        "--fingerprint",
        metavar="WORDS",
        help="join only the table with this fingerprint: its six words as lanswitch tables "
        "shows them (or 12 or more of its hex digits), when more than one answers to the name",
    )
    j.add_argument(
        "--accept-new-fingerprint",
        action="store_true",
        help="trust the host even though its certificate changed since last time",
    )
    j.add_argument("--headless", action="store_true", help="no terminal client: print what happens")
    _data_dir_option(j)
    _no_history_option(j)
    _look_options(j)

    pl = sub.add_parser(
        "play",
        help="host a table on the LAN and play at it (friends join with lanswitch join)",
        description="Host a table on the local network, sit at it in the terminal client, and "
        "fill the other seats with bots. Friends on the same network see the table with "
        "lanswitch tables and take a seat with lanswitch join.",
    )
    pl.add_argument("--rules", default="switch", metavar="NAME|FILE", help="preset or TOML file")
    pl.add_argument(
        "--bots",
        type=_count,
        default=None,
        metavar="N",
        help="bots in the other seats (default 3, or every other seat of a smaller --seats); "
        "fewer keep seats free for friends",
    )
    pl.add_argument(
        "--seats",
        type=_players,
        default=None,
        metavar="N",
        help="2..8 (default 4, or one more than --bots)",
    )
    pl.add_argument("--name", metavar="NAME", help="your name (default: your user name)")
    pl.add_argument("--table", metavar="T", help="the table's name (default: NAME's table)")
    pl.add_argument(
        "--password",
        metavar="PW",
        help="players must give this password to join (friends: lanswitch join --password PW, "
        "or type it when asked)",
    )
    pl.add_argument("--interface", metavar="ADDR", help="serve on this IPv4 address only")
    pl.add_argument("--port", type=_port, default=0, metavar="P", help="TCP port (default any)")
    pl.add_argument("--bot-delay", type=_duration, default=0.6, metavar="S", help=argparse.SUPPRESS)
    pl.add_argument(
        "--turn-timer",
        type=_turn_timer,
        default=0.0,
        metavar="S",
        help="seconds a player has to act (0: none; else at least 5)",
    )
    _blind_option(pl)
    pl.add_argument("--hands", type=_positive, metavar="H", help="end the match after H hands")
    pl.add_argument(
        "--resume",
        action="store_true",
        help="carry on the table a crashed lanswitch play left, with you back in your seat",
    )
    _no_history_option(pl)
    _look_options(pl)
    _data_dir_option(pl)

    sub.add_parser(
        "paths",
        help="show where lanswitch keeps its files",
        description="Show every place lanswitch writes, with what each holds: the data dir "
        "(--data-dir DIR, else $LANSWITCH_DATA_DIR, else the platform's user data directory) "
        "and in it the history, the journals of tables you host (tables/), your tables' "
        "certificate and key, and the pins of the tables you joined.",
    )
    for command in sub.choices.values():
        # Each command's own usage for what is wrong after it (``main``): argparse hands an
        # unknown option to the top-level parser, whose usage names no command.
        command.set_defaults(command_parser=command)
    return p


def _data_dir_option(parser: argparse.ArgumentParser) -> None:
    """``--data-dir`` after the command as well (``lanswitch history --data-dir D``). SUPPRESS:
    when it is not given here, the one given before the command (or none) stands."""
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="where lanswitch keeps its files (as lanswitch --data-dir DIR COMMAND)",
    )


def _blind_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--blind",
        action="store_true",
        help="deal every hand dealer-blind: the host cannot see any card it is not dealt "
        "(docs/fairness.md); no turn timer then",
    )


def _no_history_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-history",
        action="store_true",
        help="do not keep this session's hands in the history (DATA_DIR/history.sqlite)",
    )


def _hand_id(text: str) -> int:
    n = _whole(text)
    if n < 1:
        raise argparse.ArgumentTypeError("a hand's id is 1 or more (see lanswitch history)")
    return n


def _look_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true", help="letters for suits, no symbols")
    parser.add_argument(
        "--four-colour", action="store_true", help="a colour per suit (clubs green, diamonds blue)"
    )
    parser.add_argument("--bell", action="store_true", help="ring the terminal bell on your turn")


def _port(text: str) -> int:
    n = _whole(text)
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError("a port is 0..65535 (0: any free port)")
    return n


def _count(text: str) -> int:
    n = _whole(text)
    if not 0 <= n <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"must be 0..{MAX_PLAYERS}")
    return n


def _duration(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError("must be 0..3600 seconds")
    return value


def _turn_timer(text: str) -> float:
    from .fairdeal.setup import MIN_TURN_TIMER_MS  # (the fair deal's imports: only when asked)

    value = _duration(text)
    if 0 < value < MIN_TURN_TIMER_MS / 1000:
        raise argparse.ArgumentTypeError(
            f"must be 0 (no timer) or at least {MIN_TURN_TIMER_MS // 1000} seconds"
        )
    return value


def _cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    if args.name is None:
        from .rules import PRESETS

        width = max(len(n) for n in PRESETS)
        for name, rules in PRESETS.items():
            out.write(f"{name:<{width}}  {rules.description}\n")
        return 0
    from .rules import dump_toml, load_rules
    from .textsafe import escape

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
    from .rules import load_rules
    from .simulate import simulate, verbose_printer

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
    if not args.json and not args.verbose and args.games >= 200 and sys.stderr.isatty():
        progress = _Progress(args.games, sys.stderr)  # its own \r, and numbers only
    directory = None
    if args.transcripts is not None:
        directory = Path(args.transcripts)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _UsageError(f"--transcripts: cannot create {directory}: {e.strerror or e}") from e
    stats = simulate(
        rules, args.players, args.games, names, seed, on_move, progress, transcripts=directory
    )
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
        f"\n{stats.rules}, {stats.players} players, {stats.games} "
        f"hand{'s' if stats.games != 1 else ''} (seed {seed}) in "
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
    if stats.aborts is not None:
        w(
            f"Fair deal: {stats.rounds} commit-reveal rounds; {stats.aborts.describe()}.\n"
            f"Wrote {stats.transcripts} transcripts to {stats.transcript_dir}; check them with: "
            f"lanswitch verify {Path(stats.transcript_dir) / '*.json'}\n"
        )


def _cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .fairdeal import Transcript, TranscriptError, VoidTally, blindfile, verify_all

    # Each source is a name to show and its bytes, or why there are none: the files, or the
    # transcript the history keeps for --hand ID (then shown as "history:ID").
    sources: list[tuple[str, bytes | str]] = []
    if args.hand is not None:  # main() made sure there are no files then
        sources.append(_stored_transcript(args.hand, data_dir(args.data_dir)))
    for name in args.files:
        try:
            sources.append((name, Path(name).read_bytes()))
        except OSError as e:
            sources.append((name, f"cannot read it: {e.strerror or e}"))
    names = [name for name, _ in sources]
    # Every file's judgement, whichever deal it holds: commit-reveal transcripts together, and
    # dealer-blind files together (each deal compares files of one hand in its own terms).
    judged: dict[int, Judgement] = {}
    loaded: dict[int, Transcript] = {}
    blind: dict[int, bytes] = {}
    errors: dict[int, str] = {}
    for i, (_, data) in enumerate(sources):
        if isinstance(data, str):
            errors[i] = data
            continue
        if _is_blind_file(data):
            blind[i] = data
            continue
        try:
            loaded[i] = Transcript.from_json(data)
        except TranscriptError as e:
            errors[i] = str(e)
    for i, v in zip(loaded, verify_all(list(loaded.values())), strict=True):
        judged[i] = v.judgement()
    for i, got in zip(blind, blindfile.judge_all(list(blind.values())), strict=True):
        if isinstance(got, blindfile.BlindFileError):
            errors[i] = str(got)
        else:
            judged[i] = got
    judged = dict(sorted(judged.items()))  # in the files' order
    counts = {"fair": 0, "unconfirmed": 0, "unfair": 0, "void": 0, "error": len(errors)}
    aborts = VoidTally()
    hands: dict[bytes, set[int]] = {}
    for j in judged.values():
        counts[j.status] += 1
        hands.setdefault(j.game_id, set()).add(j.hand_no)
        if j.status == "void":  # one entry per hand, however many of its files
            aborts.record(j.void_entry())
    gaps = {gid: sorted(set(range(min(ns), max(ns) + 1)) - ns) for gid, ns in hands.items()}
    gaps = {gid: ns for gid, ns in gaps.items() if ns}
    code = 2 if errors else 1 if counts["fair"] < len(judged) else 0
    if args.json:
        files: list[dict[str, object]] = []
        for i, name in enumerate(names):
            if i in errors:
                files.append({"file": name, "status": "error", "error": errors[i]})
            else:
                files.append({"file": name, **judged[i].as_json()})
        summary = {
            **counts,
            "aborted_hands": [
                {"hand_no": e.hand_no, "culprits": list(e.culprits), "proven": e.proven}
                for e in aborts.entries
            ],
            "missing_hands": {gid.hex(): ns for gid, ns in gaps.items()},
        }
        out.write(json.dumps({"files": files, "summary": summary, "exit": code}) + "\n")
        return code
    for i, name in enumerate(names):
        if i in errors:
            err.write(f"lanswitch: {name}: {errors[i]}\n")
        else:
            out.write(f"{name}: {judged[i].text()}\n")
    if len(names) > 1:
        parts = [f"{counts[k]} {k}" for k in ("fair", "unconfirmed", "unfair", "void") if counts[k]]
        if errors:
            parts.append(f"{len(errors)} unreadable")
        out.write(f"{len(names)} files: {', '.join(parts)}\n")
    if aborts.count:
        out.write(f"Aborted hands: {aborts.describe(_namer(list(judged.values())))}\n")
    for gid, ns in gaps.items():
        listed = ", ".join(map(str, ns))
        out.write(
            f"Game {gid.hex()[:8]}: no transcript here for hand{'s' if len(ns) > 1 else ''} "
            f"{listed} (not kept, or dealt and never finished?)\n"
        )
    return code


def _read_or_why(path: Path) -> bytes | str:
    """The file's bytes, or why it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as e:
        return f"cannot read it: {e.strerror or e}"


def _namer(judged: Sequence[Judgement]) -> Callable[[str], str]:
    """What people call a fair deal's id across the files judged: the name a hand's setup
    gives it (``seat0`` is ann), "the host" for ``@dealer``, else the seat as people count it
    ("seat 1") — never the id itself (issue 26: ``verify`` said "seat0 1")."""
    from .fairdeal.primitives import named

    def name(pid: str) -> str:
        for j in judged:
            said = j.name(pid)
            if said != pid:
                return said
        return named(pid, tuple(f"seat {i + 1}" for i in range(16)))

    return name


def _is_blind_file(data: bytes) -> bool:
    """Whether ``data`` is a dealer-blind hand's file (``lanswitch.fairdeal.blindfile``)."""
    from .fairdeal.blindfile import FORMAT

    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(obj, dict) and obj.get("format") == FORMAT


def _history_row(hand: int, path: Path, what: str) -> HandRow:
    """Hand ``hand`` of the history at ``path``; a usage error if there is none (to
    ``what``: check, show)."""
    from .history import History, HistoryError

    if not path.exists():
        raise _UsageError(f"no history at {path} yet: no hand {hand} to {what}")
    try:
        with History(path) as history:
            row = history.get(hand)
    except HistoryError as e:
        raise _UsageError(str(e)) from None
    if row is None:
        raise _UsageError(f"no hand {hand} in the history {path}; lanswitch history lists them")
    return row


def _stored_transcript(hand: int, data: Path) -> tuple[str, bytes | str]:
    """``history:ID`` and the transcript the history keeps for hand ``hand`` (or why there is
    none: a hand watched has no transcript). A hand not in the history is a usage error."""
    from .history import history_path

    row = _history_row(hand, history_path(data), "check")
    name = f"history:{hand}"
    if row.transcript is not None:
        return name, row.transcript
    if row.seat is None:
        return name, "you watched this hand: there is no transcript of yours to check"
    if row.status == "unfinished":
        return name, (
            "the host stopped the table during this hand and never carried it on: it was not "
            "finished, so there is nothing to check"
        )
    # Played, but no file of its deal was kept: not "you watched this hand" (issue 26).
    return name, (
        f"you played this hand (seat {row.seat + 1}), but the history kept no file of its "
        "deal to check"
    )


def _cmd_history(args: argparse.Namespace, out: TextIO) -> int:
    from datetime import datetime

    from .history import History, HistoryError, history_path, result_text, verdict_text
    from .textsafe import escape

    path = history_path(data_dir(args.data_dir))
    if args.save is not None:
        if args.id is None:
            raise _UsageError("history --save FILE saves one hand: give its ID as well")
        return _save_hand(args.id, path, args.save, out)
    if args.id is not None:
        return _show_hand(args.id, path, args.json, out)
    rows = []
    total = 0
    if path.exists():  # reading never makes the file
        try:
            with History(path) as history:
                rows, total = history.rows(args.limit), history.count()
        except HistoryError as e:
            raise _UsageError(str(e)) from None
    if args.json:
        out.write(json.dumps([r.as_json() for r in rows]) + "\n")
        return 0
    if not rows:
        out.write(
            f"No hands in the history yet ({path}). Every hand you play or watch with "
            "lanswitch play or lanswitch join is kept there.\n"
        )
        return 0

    def when(at: str) -> str:
        try:
            return datetime.fromisoformat(at).astimezone().strftime("%Y-%m-%d %H:%M")
        except ValueError:
            return at[:16]

    table = [("id", "when", "table", "hand", "rules", "result", "verdict")]
    table += [
        (
            str(r.id),
            escape(when(r.at)),
            escape(r.table[:24]),
            str(r.hand_no),
            escape(r.rules[:16]),
            result_text(r),
            verdict_text(r),
        )
        for r in rows
    ]
    widths = [max(len(row[c]) for row in table) for c in range(len(table[0]) - 1)]
    right = {0, 3}  # numbers line up on the right
    for row in table:
        cells = [
            cell.rjust(widths[c]) if c in right else cell.ljust(widths[c])
            for c, cell in enumerate(row[:-1])
        ]
        out.write("  ".join([*cells, row[-1]]) + "\n")
    if total > len(rows):
        out.write(f"({len(rows)} of {total} hands; --limit N shows more)\n")
    out.write("lanswitch verify --hand ID checks a hand's transcript again.\n")
    return 0


def _save_hand(hand: int, path: Path, target: Path, out: TextIO) -> int:
    """``lanswitch history ID --save FILE``: the hand's transcript as it is kept, byte for
    byte, in a new file (never over another: a transcript is evidence)."""
    import shlex

    from .fairdeal.judgement import deal_named
    from .textsafe import escape

    row = _history_row(hand, path, "save")
    if row.transcript is None:
        raise _UsageError(
            f"hand {hand} was watched, not played: there is no transcript of yours to save"
        )
    try:
        with target.open("xb") as f:
            f.write(row.transcript)
    except FileExistsError:
        raise _UsageError(f"{target} exists already: give a new file's name") from None
    except OSError as e:
        raise _UsageError(f"cannot write {target}: {e.strerror or e}") from None
    kind = deal_named(row.deal).proof_name()
    out.write(
        f"saved the {kind} of hand {row.hand_no} at {escape(row.table)} to {escape(str(target))}"
        f"; lanswitch verify {escape(shlex.quote(str(target)))} checks it\n"
    )
    return 0


def _show_hand(hand: int, path: Path, as_json: bool, out: TextIO) -> int:
    """``lanswitch history ID``: one hand in full, as this client saw it."""
    from .history import result_text, verdict_text
    from .textsafe import escape

    row = _history_row(hand, path, "show")
    if as_json:
        out.write(json.dumps(row.as_json()) + "\n")
        return 0
    where = "watching" if row.seat is None else f"seat {row.seat + 1}"
    at = escape(row.at[:16].replace("T", " "))
    out.write(
        f"hand {row.hand_no} at {escape(row.table)} ({escape(row.rules)}), {at} UTC,"
        f" {escape(row.name)} in {where}\n"
    )
    out.write(f"result: {result_text(row)}\n")
    if row.placings:
        placed = (f"{i}. {escape(n)}" for i, n in enumerate(row.placings, 1))
        out.write("placings: " + ", ".join(placed) + "\n")
    out.write(f"verdict: {verdict_text(row)}\n")
    if row.log:
        out.write("the hand as it was told to you:\n")
        for line in row.log:
            out.write(f"  {escape(line)}\n")
    else:
        out.write("(no log kept for this hand: an older lanswitch recorded it)\n")
    if row.transcript is not None:
        out.write(
            f"lanswitch verify --hand {row.id} checks its transcript again; "
            f"lanswitch history {row.id} --save FILE writes it to a file.\n"
        )
    return 0


def _cmd_tables(args: argparse.Namespace, out: TextIO) -> int:
    import asyncio

    from .discovery import conflicts, list_tables
    from .textsafe import escape
    from .tls import fingerprint_words, parse_fingerprint

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


class _UsageError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# The arguments as plain settings (lanswitch/settings.py), checked once, here: a bad address,
# port, interface or seat count is one line before anything starts (exit 2).


def default_name() -> str:
    """The player's name when none is given: the user name, at most 24 characters."""
    import getpass

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "player"
    return user[:24] or "player"


def _player_name(given: str | None) -> str:
    """``--name`` as the host will show it (cleaned as the host cleans every name), or the
    user name; a name with nothing visible left is a usage error before anything starts."""
    from . import protocol as p

    if given is None:
        return p.clean_text(default_name(), p.NAME.hi) or "player"
    try:
        return p.clean_name(given)
    except ValueError:
        raise _UsageError(
            f"--name {given!r} has nothing visible to show: give another name"
        ) from None


def _interface(addr: str | None) -> str | None:
    """``--interface``: an IPv4 address of this machine (loopback included)."""
    if addr is None:
        return None
    octets = addr.split(".")
    if len(octets) != 4 or not all(o.isdigit() and len(o) <= 3 and int(o) < 256 for o in octets):
        raise _UsageError(
            f"--interface wants an IPv4 address of this machine, e.g. 192.168.1.20; not {addr!r}"
        )
    ip = ".".join(str(int(o)) for o in octets)
    if octets[0] == "127":  # loopback: this machine's, whatever its interfaces
        return ip
    import ifaddr  # the interfaces' addresses (zeroconf's own dependency; light to load)

    mine = [
        str(a.ip) for adapter in ifaddr.get_adapters() for a in adapter.ips if isinstance(a.ip, str)
    ]
    if ip not in mine:
        listed = ", ".join(mine) or "none found"
        raise _UsageError(
            f"--interface {addr} is not an address of this machine (its IPv4 addresses: {listed})"
        )
    return ip


def _no_person(seats: int, bots: int) -> str:
    return (
        f"--bots {bots} fills all {seats} seats, and a hand needs at least one person: "
        f"give --bots {seats - 1} or fewer, or more --seats"
    )


def _no_timer_when_blind(args: argparse.Namespace) -> None:
    """``--blind`` with ``--turn-timer``: a usage error before anything starts. HostConfig
    refuses the pair too, but only once ``play`` has drawn its splash, and from there its
    ValueError would reach the player as a traceback."""
    if args.blind and args.turn_timer:
        raise _UsageError(
            "--blind and --turn-timer cannot go together: at a dealer-blind table the host "
            "cannot see a player's cards, so it cannot move for one whose time ran out; "
            "drop one of them"
        )


def _hosting(args: argparse.Namespace) -> Hosting:
    """``lanswitch host``'s table."""
    _no_timer_when_blind(args)
    if not args.resume:
        if args.bots > args.seats:
            raise _UsageError(f"--bots {args.bots} is more than --seats {args.seats}")
        if args.bots == args.seats:
            raise _UsageError(_no_person(args.seats, args.bots))
    return Hosting(
        rules=args.rules,
        name=args.table or ("" if args.resume else f"{default_name()}'s table"[:32]),
        port=args.port,
        seats=args.seats,
        bots=args.bots,
        hands=args.hands,
        password=args.password,
        interface=_interface(args.interface),
        turn_timer=args.turn_timer,
        bot_delay=args.bot_delay,
        resume=args.resume,
        data=data_dir(args.data_dir),
        blind=args.blind,
    )


def _play_settings(args: argparse.Namespace) -> Play:
    """``lanswitch play``'s table (the player takes a seat: at most seats - 1 bots)."""
    _no_timer_when_blind(args)
    bots = args.bots
    if bots is None:  # not given: 3, or every other seat of a table of fewer (--seats 2: 1)
        bots = 3 if args.seats is None else min(3, args.seats - 1)
    seats = args.seats if args.seats is not None else max(4, bots + 1)
    if seats > MAX_PLAYERS:
        raise _UsageError(
            f"--bots {bots} leaves no seat for you: a table has at most {MAX_PLAYERS} seats, "
            f"so give --bots {MAX_PLAYERS - 1} or fewer"
        )
    if bots >= seats:
        raise _UsageError(
            f"--bots {bots} leaves no seat for you at {seats} seats: give --bots {seats - 1} "
            "or fewer, or more --seats"
        )
    table = Hosting(
        rules=args.rules,
        name=args.table or "",
        port=args.port,
        seats=seats,
        bots=bots,
        hands=args.hands,
        password=args.password,
        interface=_interface(args.interface),
        turn_timer=args.turn_timer,
        bot_delay=args.bot_delay,
        resume=args.resume,
        data=data_dir(args.data_dir),
        blind=args.blind,
    )
    return Play(
        table=table,
        player=_player_name(args.name),
        screen=_screen(args),
        history=not args.no_history,
    )


def _screen(args: argparse.Namespace) -> Screen:
    return Screen(
        ascii=args.ascii,
        four_colour=args.four_colour,
        colour="NO_COLOR" not in os.environ,
        bell=args.bell,
    )


def _join_settings(args: argparse.Namespace) -> Join:
    """``lanswitch join``: where, and as whom."""
    address = None
    table = args.table
    if table is not None:
        try:
            address = parse_target(table)
        except ValueError as e:
            raise _UsageError(str(e)) from None
        if address is not None:
            table = None
    return Join(
        name=_player_name(args.name),
        data=data_dir(args.data_dir),
        table=table,
        address=address,
        spectate=args.spectate,
        password=args.password,
        interface=_interface(args.interface),
        timeout=args.timeout,
        accept_new_fingerprint=args.accept_new_fingerprint,
        history=not args.no_history,
        fingerprint=_fingerprint_choice(args.fingerprint, address is not None),
    )


def _fingerprint_choice(text: str | None, by_address: bool) -> str | None:
    """``--fingerprint``, checked: the six words (or hex digits) of one table's fingerprint."""
    if text is None:
        return None
    from .tls import parse_fingerprint_choice

    if by_address:
        raise _UsageError(
            "--fingerprint picks among the tables answering to a NAME; joining by HOST:PORT "
            "pins that address's certificate on first use"
        )
    try:
        return parse_fingerprint_choice(text).text
    except ValueError as e:
        raise _UsageError(f"--fingerprint: {e}") from None


def _watch(args: argparse.Namespace) -> Watch:
    """The headless ``join``: a bot plays the seat, or it watches."""
    if args.bot is None and not args.spectate:
        raise _UsageError(
            "--headless needs --bot STRATEGY (a bot plays your seat) or --spectate (you watch)"
        )
    transcripts: Path | None = None
    if args.transcripts:
        transcripts = Path(args.transcripts).expanduser()
        if not transcripts.is_dir():
            raise _UsageError(f"--transcripts: {transcripts} is not a directory")
    return Watch(bot=args.bot, think=args.think, transcripts=transcripts)


_TABLE_SETTINGS = (
    "rules",
    "seats",
    "bots",
    "hands",
    "password",
    "turn_timer",
    "bot_delay",
    "port",
    "blind",
)
"""The options that set a table up (``--resume`` takes them from the journal instead; the
port too, since it is where the table's players are trying to come back)."""


def _preset_spelling(spec: str) -> str:
    """A preset named in any case is that preset (``--rules Irish`` is irish); anything else
    stays as given (a rules file's path, or a name the rules loader will refuse)."""
    low = spec.lower()
    if spec not in PRESET_NAMES and low in PRESET_NAMES and not Path(spec).exists():
        return low
    return spec


def _old_table_name(args: argparse.Namespace, err: TextIO) -> None:
    """``host --name T``, from before ``--table``: still the table's name, with a note."""
    old = getattr(args, "old_table_name", None)
    if old is None:
        return
    if args.table is not None:
        raise _UsageError("give the table's name once: --table T (host --name is its old name)")
    args.table = old
    err.write(
        "lanswitch: note: the table's name is --table now (as in lanswitch play, where --name "
        "is your own); host --name still works for now\n"
    )


def _needs_terminal(args: argparse.Namespace) -> None:
    from .preflight import no_terminal

    said = no_terminal(args.command)
    if said is not None:
        raise _UsageError(said)


def _offer_resume(args: argparse.Namespace, err: TextIO) -> None:
    from .preflight import Declined, offer_resume

    try:
        resume = offer_resume(args.command, data_dir(args.data_dir), err)
    except Declined:
        raise _Quit from None
    if resume:
        args.resume = True
        defaults = vars(build_parser().parse_args(["play"]))
        given = [k for k in _TABLE_SETTINGS if getattr(args, k, None) != defaults.get(k)]
        if given:
            names = ", ".join("--" + k.replace("_", "-") for k in given)
            err.write(f"the interrupted table keeps its own settings ({names} not used)\n")


class _Quit(Exception):  # noqa: N818  (a choice, not a failure)
    """The person chose to stop before anything started (exit 0, nothing more said)."""


def main(argv: Sequence[str] | None = None) -> int:
    top = build_parser()
    args, unknown = top.parse_known_args(argv)
    parser: argparse.ArgumentParser = getattr(args, "command_parser", None) or top
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "rules", None):
        args.rules = _preset_spelling(args.rules)
    if args.command == "rules" and args.name:
        args.name = _preset_spelling(args.name)
    if args.command == "verify" and bool(args.files) == (args.hand is not None):
        parser.error(
            "verify: give transcript FILEs, or --hand ID (see lanswitch history), not both"
            if args.files
            else "verify: give transcript FILEs to check, or --hand ID (see lanswitch history)"
        )
    if getattr(args, "resume", False):
        # A resumed table keeps the settings it was started with (they are in its journal).
        defaults = vars(top.parse_args([args.command]))
        settings = _TABLE_SETTINGS + (("name",) if args.command == "play" else ())
        given = [k for k in settings if getattr(args, k, None) != defaults.get(k)]
        if given:
            names = ", ".join("--" + k.replace("_", "-") for k in given)
            parser.error(f"{args.command} --resume keeps the table's own settings; drop {names}")
    from .textsafe import safe_stream

    # Every string a command prints may have come from the network, a file or the history:
    # both streams escape what a terminal would act on (lanswitch/textsafe.py).
    out, err = safe_stream(sys.stdout), safe_stream(sys.stderr)
    try:
        if args.command == "host":
            _old_table_name(args, err)
        if args.command == "host" and not args.resume:
            _offer_resume(args, err)
        if args.command == "rules":
            return _cmd_rules(args, out)
        if args.command == "simulate":
            return _cmd_simulate(args, out, err)
        if args.command == "verify":
            return _cmd_verify(args, out, err)
        if args.command == "history":
            return _cmd_history(args, out)
        if args.command == "stats":
            from .stats import cmd_stats

            return cmd_stats(data_dir(args.data_dir), out, err, as_json=args.json, by=args.by)
        if args.command == "replay":
            if (args.file is None) == (args.hand is None):
                raise _UsageError("replay: give a transcript FILE, or --hand ID (not both)")
            from .tui.replay import cmd_replay

            if args.hand is not None:
                name, kept = _stored_transcript(args.hand, data_dir(args.data_dir))
            else:
                name, kept = args.file, _read_or_why(Path(args.file))
            blind = isinstance(kept, bytes) and _is_blind_file(kept)
            return cmd_replay(name, kept, err, blind=blind, ascii=args.ascii, four=args.four_colour)
        if args.command == "tables":
            return _cmd_tables(args, out)
        if args.command == "play":
            from .tui import play

            _play_settings(args)  # the options checked first: their errors say more
            _needs_terminal(args)
            if not args.resume:
                _offer_resume(args, err)
            return play(_play_settings(args), out, err)
        if args.command == "join" and args.bot is None and not args.headless:
            from .tui import join

            joining = _join_settings(args)
            _needs_terminal(args)
            return join(joining, _screen(args), out, err)
        if args.command in ("host", "join"):
            from . import netcmd

            try:
                if args.command == "host":
                    return netcmd.cmd_host(_hosting(args), out, err)
                return netcmd.cmd_join(_join_settings(args), _watch(args), out, err)
            except ValueError as e:
                from .rules import RulesError

                if isinstance(e, RulesError):
                    raise
                raise _UsageError(str(e)) from None
            except netcmd.CommandError as e:
                err.write(f"lanswitch: {e}\n")
                return 1
        if args.command == "paths":
            from .datadir import paths_text

            out.write(paths_text(data_dir(args.data_dir)))
            return 0
        parser.print_help(out)
        return 0
    except _UsageError as e:
        err.write(f"lanswitch: error: {e}\n")
        return 2
    except _Quit:
        return 0
    except ValueError as e:
        from .rules import RulesError  # loaded already if that is what this is

        if not isinstance(e, RulesError):
            raise
        err.write(f"lanswitch: error: {e}\n")
        return 2
    except BrokenPipeError:
        # `lanswitch rules switch | head` closes the pipe early: not an error.
        sys.stderr.close()
        return 0
