"""The host's settings and constants, and the small records it keeps per connection."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import protocol as p
from ..bots import BOTS
from ..fairdeal.setup import MIN_TURN_TIMER_MS
from ..rules import PRESETS, RuleSet
from ..table import Refusal

__all__ = [
    "CHAT_BURST",
    "CHAT_WINDOW",
    "DROP_AFTER",
    "HANDSHAKE_TIMEOUT",
    "HOST_ID",
    "IDLE_PING_AFTER",
    "LOG_KEEP",
    "MAX_CLIENTS",
    "PING_AFTER",
    "PONG_WAIT",
    "RATE_LIMIT",
    "HostConfig",
]

HOST_ID = "@host"
"""The table's client id for the host itself (its powers are local calls, never messages)."""

PING_AFTER = 2.0
"""Seconds of silence from a client the table waits on before the host pings it: anyone in the
lobby or in a fair-deal round, and in play the seat to act (counted from the turn's start) —
or everyone, all hand long, at a dealer-blind table, where each participant owes keys."""
IDLE_PING_AFTER = 20.0
"""Seconds of silence before the host pings a client the table is not waiting on: in a
commit-reveal hand's play, every viewer but the seat to act. They hear of every step and need
not speak; pinged after two seconds each, at a host of 250 tables their pings and pongs
outnumbered the moves (issue #17). One of them who vanished is pinged at once when its turn
comes."""
DROP_AFTER = 8.0
"""Seconds of silence after which the host drops a connection it waits on (the seat is
kept): ``PING_AFTER``, then ``PONG_WAIT`` for the answer."""
PONG_WAIT = DROP_AFTER - PING_AFTER
"""Seconds the host waits for a ``pong`` (or anything) after its ``ping`` before it drops the
connection."""
MAX_CLIENTS = 32
"""Connections a table takes; the next gets ``error`` ``table_full``."""
HANDSHAKE_TIMEOUT = 5.0
"""Seconds a new connection has to send its ``hello``."""
RATE_LIMIT = 500
"""Requests a connection may send per second — ``chat``, ``move``, ``sit``, ``stand``,
``ready``, ``ping``, ``hello`` (a person sends a few; a headless bot at a table of bots with no
delays, a few hundred; a flood, thousands). Beyond it requests are refused with ``reject``
``rate_limited`` (the fair deal's messages and pongs never are: refusing them would cost a
player its part in the deal); at three times it, or at ten times it in messages of any kind,
the connection is closed with ``error`` ``rate_limited``."""
CHAT_BURST = 5
CHAT_WINDOW = 5.0
"""At most ``CHAT_BURST`` chat lines per client per ``CHAT_WINDOW`` seconds."""
LOG_KEEP = 50
"""The host keeps its latest ``LOG_KEEP``..``2 × LOG_KEEP`` log lines: a shell prints them as
they come (``log_since``), and a table that runs for days would otherwise keep every join and
leave."""
ADVANCE_BOUND = 100_000
"""Engine steps one call may run (bots with no delay play whole hands in one call)."""

LIMITED = (p.Chat, p.Move, p.Sit, p.Stand, p.Ready, p.Ping, p.Hello)
"""The messages the rate limit drops (with a ``reject``) rather than lets through."""

REFUSAL_CODES = {
    Refusal.BAD_PASSWORD: p.ErrorCode.BAD_PASSWORD,
    Refusal.BAD_TOKEN: p.ErrorCode.BAD_TOKEN,
    Refusal.KEY_IN_USE: p.ErrorCode.BAD_TOKEN,  # the key is bound to a token it did not bring
    Refusal.TABLE_FULL: p.ErrorCode.TABLE_FULL,
    Refusal.SEAT_TAKEN: p.ErrorCode.SEAT_TAKEN,
}


@dataclass(frozen=True, slots=True)
class HostConfig:
    """How a table is set up (``lanswitch host`` options)."""

    name: str = "lanswitch"
    rules: RuleSet = PRESETS["switch"]
    rules_name: str = ""  # what the lobby calls the rules; default: the rule set's name
    seats: int = 4
    bots: int = 0  # seats the host fills with bots, counted from the last seat
    bot_strategy: str = "heuristic"  # how every bot plays at first (the host may change it)
    password: str | None = None
    hands: int | None = None  # the match ends after this many hands (None: the rules decide)
    turn_timer: float = 0.0  # seconds a seat has to act; 0: no timer
    bot_delay: float = 0.6  # seconds a host bot waits before it acts, so people can follow
    away_grace: float = 5.0  # seconds an away player is waited for mid-hand (then: a stand-in)
    seat_limit: float = 60.0  # seconds a seat is kept for an away player (then: given up)
    round_timeout: float = 30.0  # seconds a fair-deal round waits for commitments / seeds
    heads_timeout: float = 30.0  # seconds the host waits for the seats' log heads
    blind: bool = False  # dealer-blind hands: the host cannot see a card it is not dealt
    hints: bool = True  # the players may ask their program for a suggested move (``h``)

    def __post_init__(self) -> None:
        # The table's name goes out in every welcome and lobby as a ``name``: cleaned as a
        # joiner's name is (a tab in ``--name`` made every welcome fail its own check, so
        # nobody could join: issue #15).
        object.__setattr__(self, "name", p.clean_name(self.name, "the table's name"))
        if not 0 <= self.bots <= self.seats:
            raise ValueError(f"bots must be 0..{self.seats}, not {self.bots}")
        if self.bot_strategy not in BOTS:
            raise ValueError(f"no bot {self.bot_strategy!r}; bots are {', '.join(BOTS)}")
        if self.hands is not None and self.hands < 1:
            raise ValueError("hands must be at least 1")
        for name in (
            "turn_timer",
            "bot_delay",
            "away_grace",
            "seat_limit",
            "round_timeout",
            "heads_timeout",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if self.blind and self.turn_timer:
            raise ValueError(
                "a dealer-blind table has no turn timer: the host cannot move for a player "
                "whose cards it cannot see"
            )
        if 0 < self.turn_timer < MIN_TURN_TIMER_MS / 1000:
            raise ValueError(
                f"turn_timer must be 0 (none) or at least {MIN_TURN_TIMER_MS // 1000} s"
            )


@dataclass(slots=True)
class Conn:
    """One open connection as the host sees it."""

    cid: int
    heard: float  # when the host last heard from it
    opened: float = 0.0  # when it connected
    key: bytes = b""  # the client's session key (after hello)
    welcomed: bool = False
    pinged: float | None = None  # when the host pinged it, unanswered so far
    chat_times: list[float] = field(default_factory=list)
    window: float = 0.0  # the start of the current second, for the rate limit
    count: int = 0  # messages received in that second
    requests: int = 0  # of which requests the rate limit counts (moves, chat, seats, pings)
