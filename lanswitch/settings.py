"""What the command line asks for, as plain settings: made once by ``cli/args.py`` from its
arguments (after checking them), then passed down to the shells that host and join tables.

No argparse namespace travels below the command line: ``netcmd`` (the headless commands) and
``tui`` (the terminal client) both take these, and both join a table through the one path in
:mod:`lanswitch.client`. Pure and cheap to import: ``lanswitch play`` builds its settings
before its first frame, when nothing heavy is loaded yet (so they are named tuples: the
``dataclasses`` module alone costs some 15 ms to import).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

__all__ = ["Hosting", "Join", "Play", "Screen", "Watch", "parse_target"]


class Screen(NamedTuple):
    """How the terminal client draws: ASCII only, four suit colours, colour at all, the bell."""

    ascii: bool = False
    four_colour: bool = False
    colour: bool = True
    bell: bool = False


class Join(NamedTuple):
    """Joining a table: by ``table`` name (zeroconf), by ``address`` (HOST, PORT), or neither
    (the terminal's table browser; headless, the only table heard)."""

    name: str
    data: Path
    table: str | None = None
    address: tuple[str, int] | None = None
    spectate: bool = False
    password: str | None = None
    interface: str | None = None
    timeout: float = 5.0
    accept_new_fingerprint: bool = False
    history: bool = True
    fingerprint: str | None = None  # --fingerprint: which answer for the name (its words)

    @property
    def interfaces(self) -> list[str] | None:
        return [self.interface] if self.interface else None


class Watch(NamedTuple):
    """The headless ``join``: a bot plays the seat (``bot``), or it watches; transcripts kept
    in ``transcripts`` (a directory), moves sent after ``think`` seconds."""

    bot: str | None = None
    think: float = 0.0
    transcripts: Path | None = None


class Hosting(NamedTuple):
    """A table to host (``lanswitch host``, and ``lanswitch play``'s own)."""

    rules: str = "switch"  # a preset's name or a house-rules file
    name: str = ""  # the table's name ("" : the default, USER's table)
    port: int = 0
    seats: int = 4
    bots: int = 0
    hands: int | None = None
    password: str | None = None
    interface: str | None = None
    turn_timer: float = 0.0
    bot_delay: float = 0.6
    resume: bool = False
    data: Path = Path()
    blind: bool = False  # every hand dealt dealer-blind (HostConfig.blind; no turn timer)
    level: str = "normal"  # how the bots play: easy, normal or hard (HostConfig.bot_strategy)
    hints: bool = True  # the players may ask for a suggested move (HostConfig.hints)


class Play(NamedTuple):
    """``lanswitch play``: a table hosted here, and the player who sits at it."""

    table: Hosting
    player: str
    screen: Screen = Screen()
    history: bool = True


def parse_target(text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (or ``[v6]:PORT``) as a pair; None if ``text`` is a table's name rather
    than an address. ValueError, saying what is wrong, for an address with a bad port."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        return None  # no port: a name (names may hold spaces, dots and dashes)
    import ipaddress  # here: play's first frame does not wait for it

    host = host.strip("[]")
    is_ip = True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        is_ip = False
    plain = all(part.isalnum() or "-" in part for part in host.split(".")) and not host.isdigit()
    if not (is_ip or plain):
        return None
    if not is_ip and all(part.isdigit() for part in host.split(".")):
        raise ValueError(
            f"{host} is not an address: an IPv4 address is four numbers from 0 to 255, as the "
            "host's screen shows it (e.g. 192.168.1.20:4000)"
        )
    if not 0 < int(port) < 65536:
        raise ValueError(f"{text.strip()}: the port must be 1..65535, not {int(port)}")
    return host, int(port)
