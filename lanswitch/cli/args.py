"""The arguments as plain settings (``lanswitch/settings.py``), checked once, here: a bad
address, port, interface, name or seat count is one line before anything starts (exit 2).
Also what is settled before a table starts: a preset named in any case, ``host``'s old
``--name``, a terminal for the screen, and the offer to carry on an interrupted table."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

from ..settings import Hosting, Join, Play, Screen, Watch, parse_target
from .common import MAX_PLAYERS, PRESET_NAMES, _Quit, _UsageError, data_dir
from .parser import build_parser


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
    from .. import protocol as p

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
    name = args.table or ("" if args.resume else f"{default_name()}'s table"[:32])
    return _table(args, name, args.seats, args.bots)


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
    return Play(
        table=_table(args, args.table or "", seats, bots),
        player=_player_name(args.name),
        screen=_screen(args),
        history=not args.no_history,
    )


def _table(args: argparse.Namespace, name: str, seats: int, bots: int) -> Hosting:
    """The table ``host`` and ``play`` set up alike (the name and the seats each settle)."""
    return Hosting(
        rules=args.rules,
        name=name,
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
        level=args.level,
        hints=not args.no_hints,
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
    from ..tls import parse_fingerprint_choice

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


# ---------------------------------------------------------------------------------------------
# Before a table starts.

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
    "level",
    "no_hints",
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
    from ..preflight import no_terminal

    said = no_terminal(args.command)
    if said is not None:
        raise _UsageError(said)


def _offer_resume(args: argparse.Namespace, err: TextIO) -> None:
    from ..preflight import Declined, offer_resume

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
            err.write(f"the table carried on keeps its own settings ({names} not used)\n")
