"""The argument parser: one function per command, each adding its subparser, in the order
``lanswitch --help`` lists them (``_COMMANDS``); the value types that check an option as it is
parsed (a bad one is a usage error naming the option, exit 2); and the options several commands
share (``--data-dir`` after the command, ``--blind``, ``--no-history``, the looks)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from .common import BOTS, DATA_DIR_ENV, LEVELS, MAX_PLAYERS, MIN_PLAYERS, SEAT_BOTS


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"lanswitch: error: {message}\n")


if TYPE_CHECKING:
    _Commands = argparse._SubParsersAction[_Parser]  # what each command adds its parser to


# ---------------------------------------------------------------------------------------------
# Option values, checked as they are parsed: argparse names the option in its error.


@dataclass(frozen=True)
class _Number:
    """An option's value: a whole number (or, with ``seconds``, a number of seconds) from
    ``lo`` (above it, with ``above``) to ``hi``; else ``why``, which argparse shows after the
    option's name."""

    why: str = ""
    lo: float | None = None
    hi: float | None = None
    seconds: bool = False
    above: bool = False

    def __call__(self, text: str) -> float:
        try:
            value = float(text) if self.seconds else int(text)
        except ValueError:
            kind = "a number of seconds" if self.seconds else "a whole number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}") from None
        # Each bound as "within" (not "outside"), so that nan is outside every bound.
        above_lo = self.lo is None or (value > self.lo if self.above else value >= self.lo)
        if not (above_lo and (self.hi is None or value <= self.hi)):
            raise argparse.ArgumentTypeError(self.why)
        return value


_whole = _Number()
_players = _Number(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}", MIN_PLAYERS, MAX_PLAYERS)
_positive = _Number("must be at least 1", 1)
_hand_id = _Number("a hand's id is 1 or more (see lanswitch history)", 1)
_port = _Number("a port is 0..65535 (0: any free port)", 0, 65535)
_count = _Number(f"must be 0..{MAX_PLAYERS}", 0, MAX_PLAYERS)
_seconds = _Number("must be more than 0 and at most 600 seconds", 0, 600, seconds=True, above=True)
_duration = _Number("must be 0..3600 seconds", 0, 3600, seconds=True)


def _turn_timer(text: str) -> float:
    from ..fairdeal.setup import MIN_TURN_TIMER_MS  # (the fair deal's imports: only when asked)

    value = _duration(text)
    if 0 < value < MIN_TURN_TIMER_MS / 1000:
        raise argparse.ArgumentTypeError(
            f"must be 0 (no timer) or at least {MIN_TURN_TIMER_MS // 1000} seconds"
        )
    return value


# ---------------------------------------------------------------------------------------------
# Options several commands share.


def _data_dir_option(parser: argparse.ArgumentParser) -> None:
    """``--data-dir`` after the command as well (``lanswitch history --data-dir D``). SUPPRESS:
    when it is not given here, the one given before the command (or none) stands."""
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="where lanswitch keeps its files (as lanswitch --data-dir DIR COMMAND)",
    )


def _level_option(parser: argparse.ArgumentParser) -> None:
    """``--level`` and ``--no-hints``: how the table's bots play, and whether its players may
    ask for a suggested move (both changed in the lobby too: k and H)."""
    parser.add_argument(
        "--no-hints",
        action="store_true",
        help="turn hints off at this table: h at the table then suggests no move (the host "
        "may turn them on in the lobby with H)",
    )
    parser.add_argument(
        "--level",
        choices=LEVELS,
        default="normal",
        help="how the bots play: easy (a beginner), normal or hard (it thinks ahead, up to "
        "about a third of a second a move); the host may change it in the lobby with k "
        "(default normal)",
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


def _look_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true", help="letters for suits, no symbols")
    parser.add_argument(
        "--four-colour", action="store_true", help="a colour per suit (clubs green, diamonds blue)"
    )
    parser.add_argument("--bell", action="store_true", help="ring the terminal bell on your turn")


def _rules_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules", default="switch", metavar="NAME|FILE", help="preset or TOML file"
    )


# ---------------------------------------------------------------------------------------------
# The commands, one function each.


def _rules(sub: _Commands) -> None:
    r = sub.add_parser(
        "rules",
        help="list the rule presets, or print one as a TOML file",
        description="With no NAME, list the presets (name first). With a preset NAME, print "
        "it as a TOML file you can edit and load with --rules FILE. With a FILE, check it and "
        "print the complete rule set it makes.",
    )
    r.add_argument("name", nargs="?", metavar="NAME|FILE")


def _simulate(sub: _Commands) -> None:
    s = sub.add_parser(
        "simulate",
        help="play bot games offline and report what happened",
        description="Play bot hands offline (the deal rotates each hand) and summarise them.",
    )
    _rules_option(s)
    s.add_argument("--players", type=_players, default=4, metavar="N", help="2..8 (default 4)")
    s.add_argument("--games", type=_positive, default=1, metavar="G", help="hands to play")
    s.add_argument(
        "--bots",
        default="heuristic",
        metavar="B1,B2,…",
        help=f"one bot per seat, or one for all ({', '.join(BOTS)}; heuristic is normal, "
        "random the baseline; default heuristic)",
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


def _verify(sub: _Commands) -> None:
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


def _history(sub: _Commands) -> None:
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


def _stats(sub: _Commands) -> None:
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


def _replay(sub: _Commands) -> None:
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


def _tables(sub: _Commands) -> None:
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


def _host(sub: _Commands) -> None:
    h = sub.add_parser(
        "host",
        help="host a table on the local network",
        description="Host a table: listen with TLS, advertise it by zeroconf, fill the last "
        "--bots seats with bots, and start each hand when every seat is filled and every "
        "player is ready. Players join with lanswitch join. Ctrl-C closes the table (mid-match "
        "it stops it: lanswitch host --resume carries it on).",
    )
    _rules_option(h)
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
    _level_option(h)
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


def _join(sub: _Commands) -> None:
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
        choices=SEAT_BOTS,
        metavar="STRATEGY",
        help=f"a bot ({', '.join(SEAT_BOTS)}) plays your seat; print a log, no screen "
        "(the hard bot plays only in the host's seats: play or host --level hard)",
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


def _play(sub: _Commands) -> None:
    pl = sub.add_parser(
        "play",
        help="host a table on the LAN and play at it (friends join with lanswitch join)",
        description="Host a table on the local network, sit at it in the terminal client, and "
        "fill the other seats with bots. Friends on the same network see the table with "
        "lanswitch tables and take a seat with lanswitch join.",
    )
    _rules_option(pl)
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
    _level_option(pl)
    pl.add_argument("--hands", type=_positive, metavar="H", help="end the match after H hands")
    pl.add_argument(
        "--resume",
        action="store_true",
        help="carry on the table a crashed lanswitch play left, with you back in your seat",
    )
    _no_history_option(pl)
    _look_options(pl)
    _data_dir_option(pl)


def _paths(sub: _Commands) -> None:
    sub.add_parser(
        "paths",
        help="show where lanswitch keeps its files",
        description="Show every place lanswitch writes, with what each holds: the data dir "
        "(--data-dir DIR, else $LANSWITCH_DATA_DIR, else the platform's user data directory) "
        "and in it the history, the journals of tables you host (tables/), your tables' "
        "certificate and key, and the pins of the tables you joined.",
    )


_COMMANDS: tuple[Callable[[_Commands], None], ...] = (
    _rules,
    _simulate,
    _verify,
    _history,
    _stats,
    _replay,
    _tables,
    _host,
    _join,
    _play,
    _paths,
)
"""Each command's subparser, in the order ``lanswitch --help`` lists them."""


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
    for add in _COMMANDS:
        add(sub)
    for command in sub.choices.values():
        # Each command's own usage for what is wrong after it (``main``): argparse hands an
        # unknown option to the top-level parser, whose usage names no command.
        command.set_defaults(command_parser=command)
    return p
