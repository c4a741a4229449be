"""The host's table, before and between hands: seats, names, bots, rules, readiness, chat.

Pure, like the engine (issue #4 builds the rest on it): no sockets, no clock, no randomness.
The server shell turns each protocol message into one call here, passing the client's id and
the time; what the call decides comes back as a value or a :class:`Refused` with a typed
:class:`Refusal` the shell sends back as an error. Resume tokens come from a ``token_source``
the shell provides (``secrets.token_urlsafe``), so tests can pass a counter.

Who may do what:

* anyone joins as a player or as a spectator. **People before bots**: a player takes a free
  seat, else a bot's seat (the bot stands up), at once in the lobby and, for a player who
  arrives during a hand, when that hand ends (:meth:`Table.seat_for_person`). The seat's
  score so far goes with it: the match adds up scores per seat. A player waits seatless only
  when every seat has a person, or when a player who is away may soon give a seat up (their
  own is kept for a while; the newcomer takes it then rather than a bot's);
* a seated player sets itself ready or not, stands up, chats;
* the host (the client that created the table) also picks the rules, adds and removes bots,
  sets how every bot plays (its level), kicks, and starts the hand once every seated human is
  ready and at least two seats are filled;
* a player whose connection drops keeps the seat: its resume token brings it back to it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .errors import RemoteError
from .protocol import clean_text
from .rules import MAX_PLAYERS, MIN_PLAYERS, RuleSet

__all__ = [
    "MAX_CHAT",
    "MAX_NAME",
    "ChatLine",
    "Client",
    "LobbyState",
    "Refusal",
    "Refused",
    "Seat",
    "Table",
    "clean_text",
]

MAX_NAME = 24
_RESERVED = re.compile(r"the host( \d+)?|@.*|seat ?\d+|bot \d+")
"""Names a verdict or the lobby uses for someone else ("the host", "@dealer", "seat3",
"bot 2"): a player who took one could pass its own doing off as another's."""
MAX_CHAT = 300


class Refusal(enum.Enum):
    """Why the table refused a request. The value is the text a player sees."""

    BAD_PASSWORD = "wrong table password"
    BAD_NAME = "choose a name of 1 to 24 visible characters"
    NAME_TAKEN = "that name is taken at this table"
    NAME_RESERVED = "that name is how lanswitch speaks of the host or a seat: choose another"
    TABLE_FULL = "every seat is taken"
    NO_SUCH_SEAT = "there is no such seat"
    SEAT_TAKEN = "that seat is taken"
    NOT_SEATED = "take a seat first"
    NOT_HOST = "only the host may do that"
    NO_SUCH_CLIENT = "there is no such player"
    BAD_TOKEN = "that resume token is not known here"
    KEY_IN_USE = (
        "that session key is already at this table: its player comes back with its resume "
        "token; anyone else joins with a key of their own"
    )
    IN_PLAY = "not while a hand is being played"
    NOT_READY = "every seated player must be ready"
    TOO_FEW = "at least two seats must be filled"
    EMPTY_CHAT = "say something"
    UNKNOWN_BOT = "there is no such bot"
    TIMED_BLIND = (
        "a table with a turn timer cannot deal dealer-blind: the host cannot move for a "
        "player whose cards it cannot see"
    )


class Refused(RemoteError):  # noqa: N818  (a refusal, not a failure of ours)
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.value)
        self.refusal = refusal


@dataclass(frozen=True, slots=True)
class Seat:
    index: int
    kind: str = "empty"  # "empty" | "human" | "bot"
    name: str = ""
    client: str | None = None  # the client in it (humans)
    ready: bool = False
    bot: str = ""  # the strategy (bots)


@dataclass(slots=True)
class Client:
    id: str
    name: str
    token: str
    spectator: bool = False
    seat: int | None = None
    connected: bool = True
    since: float = 0.0  # when it joined or last (re)connected
    took_from: str = ""  # the bot whose seat it took when it last sat down ("" none)


@dataclass(frozen=True, slots=True)
class ChatLine:
    at: float
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class LobbyState:
    """What every client is shown of the table between hands."""

    name: str
    rules: str
    host: str
    seats: tuple[Seat, ...]
    spectators: tuple[str, ...]
    waiting: tuple[str, ...]  # players without a seat
    in_play: bool
    can_start: bool


@dataclass
class Table:
    name: str
    rules: RuleSet
    host: str  # the client id of the host
    host_name: str
    token_source: Callable[[], str]
    seats_total: int = 4
    password: str | None = None
    bots: tuple[str, ...] = ("heuristic", "random")
    clients: dict[str, Client] = field(default_factory=dict)
    seats: list[Seat] = field(default_factory=list)
    chat_log: list[ChatLine] = field(default_factory=list)
    in_play: bool = False

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.seats_total <= MAX_PLAYERS:
            raise ValueError(f"a table has {MIN_PLAYERS}..{MAX_PLAYERS} seats")
        self.seats = [Seat(i) for i in range(self.seats_total)]

    # -- joining and leaving ---------------------------------------------------------------

    def join(
        self,
        client: str,
        name: str,
        now: float,
        *,
        password: str | None = None,
        spectate: bool = False,
        resume: str | None = None,
        key_in_use: bool = False,
    ) -> Client:
        """A client arrives. With ``resume``, it comes back as whoever held that token.

        ``key_in_use``: the host found the client's session key held by someone at the table
        already (the table does not keep keys). Every seat's key is public in the lobby, and
        a seat held with a copy of another's key passes for that player's — to their own
        client, which then commits for the wrong seat and is blamed for the void —, so it is
        refused, after the password (which keeps a stranger from learning whose key is at
        the table). The player it belongs to comes back with its resume token instead."""
        if resume is not None:
            return self._resume(client, resume, now)
        if self.password is not None and password != self.password and client != self.host:
            raise Refused(Refusal.BAD_PASSWORD)
        if key_in_use:
            raise Refused(Refusal.KEY_IN_USE)
        clean = clean_text(name, MAX_NAME)
        if not clean:
            raise Refused(Refusal.BAD_NAME)
        if _RESERVED.fullmatch(clean.casefold()):
            raise Refused(Refusal.NAME_RESERVED)
        if any(c.name.casefold() == clean.casefold() for c in self.clients.values()) or any(
            s.kind == "bot" and s.name.casefold() == clean.casefold() for s in self.seats
        ):
            raise Refused(Refusal.NAME_TAKEN)
        entry = Client(client, clean, self.token_source(), spectate, None, True, now)
        self.clients[client] = entry
        if not spectate:
            index = self.seat_for_person()
            if index is not None:
                self._seat(entry, index)
        return entry

    def _resume(self, client: str, token: str, now: float) -> Client:
        old = next((c for c in self.clients.values() if c.token == token), None)
        if old is None:
            raise Refused(Refusal.BAD_TOKEN)
        del self.clients[old.id]
        fresh = replace(old, id=client, connected=True, since=now)
        self.clients[client] = fresh
        if fresh.seat is not None:
            seat = self.seats[fresh.seat]
            self.seats[fresh.seat] = replace(seat, client=client)
        if old.id == self.host:
            self.host = client
        return fresh

    def disconnect(self, client: str, now: float) -> None:
        """The connection dropped: the seat (and the token) are kept for a resume."""
        entry = self._client(client)
        entry.connected = False
        entry.since = now

    def leave(self, client: str) -> None:
        """The client left for good: its seat is freed."""
        entry = self._client(client)
        if entry.seat is not None:
            self._free(entry.seat)
        del self.clients[client]

    # -- seats -----------------------------------------------------------------------------

    def seat_for_person(self, *, after_hand: bool = False) -> int | None:
        """The seat a person who wants to play takes now (``after_hand``: once the hand in
        play is over): a free seat, else the last bot's — people before bots. None while a
        hand is in play, when every seat has a person, or when a player who is away may soon
        give a seat up (the host frees it after a grace period): then that one is taken, and
        the bots play on for nobody's loss (no hand starts while a player is away)."""
        if self.in_play and not after_hand:
            return None
        free = next((s.index for s in self.seats if s.kind == "empty"), None)
        if free is not None:
            return free
        if any(c.seat is not None and not c.connected for c in self.clients.values()):
            return None
        bots = [s.index for s in self.seats if s.kind == "bot"]
        return bots[-1] if bots else None

    def seat_waiting(self) -> Client | None:
        """Between hands: the first connected player who waits for a seat sits down in the
        seat :meth:`seat_for_person` gives; that player (None: nobody could be seated)."""
        if self.in_play:
            return None
        for entry in self.clients.values():
            if entry.spectator or entry.seat is not None or not entry.connected:
                continue
            index = self.seat_for_person()
            if index is None:
                return None
            self._seat(entry, index)
            return entry
        return None

    def seating_line(self, entry: Client) -> str | None:
        """What the table says about where a player who just arrived (or was just seated)
        sits: "bob takes seat 2", "bob takes bot 3's seat (seat 4)", "bob waits: …"."""
        if entry.spectator:
            return None
        if entry.seat is not None:
            where = f"seat {entry.seat + 1}"
            if entry.took_from:
                return f"{entry.name} takes {entry.took_from}'s seat ({where})"
            return f"{entry.name} takes {where}"
        then = self.seat_for_person(after_hand=True)
        mine = None
        if self.in_play and then is not None:
            seat = self.seats[then]
            mine = f"{seat.name}'s seat" if seat.kind == "bot" else f"seat {then + 1}"
        away = any(c.seat is not None and not c.connected for c in self.clients.values())
        return waiting_line(entry.name, then=mine, away=away)

    def sit(self, client: str, seat: int) -> None:
        """``client`` sits in ``seat``: a free one, or a bot's (people before bots)."""
        entry = self._client(client)
        if self.in_play:
            raise Refused(Refusal.IN_PLAY)
        if not 0 <= seat < len(self.seats):
            raise Refused(Refusal.NO_SUCH_SEAT)
        if self.seats[seat].kind == "human":
            raise Refused(Refusal.SEAT_TAKEN)
        if entry.seat is not None:
            self._free(entry.seat)
        entry.spectator = False
        self._seat(entry, seat)

    def stand(self, client: str) -> None:
        entry = self._client(client)
        if self.in_play:
            raise Refused(Refusal.IN_PLAY)
        if entry.seat is None:
            raise Refused(Refusal.NOT_SEATED)
        self._free(entry.seat)
        entry.seat = None

    def set_ready(self, client: str, ready: bool) -> None:
        entry = self._client(client)
        if entry.seat is None:
            raise Refused(Refusal.NOT_SEATED)
        self.seats[entry.seat] = replace(self.seats[entry.seat], ready=ready)

    def _seat(self, entry: Client, index: int) -> None:
        old = self.seats[index]
        entry.seat = index
        entry.took_from = old.name if old.kind == "bot" else ""  # the bot stands up
        self.seats[index] = Seat(index, "human", entry.name, entry.id, False)

    def _free(self, index: int) -> None:
        self.seats[index] = Seat(index)

    # -- the host's powers -----------------------------------------------------------------

    def _as_host(self, client: str) -> None:
        # The host need not be a connected client: a headless host acts through local calls.
        if client != self.host:
            self._client(client)
            raise Refused(Refusal.NOT_HOST)
        if self.in_play:
            raise Refused(Refusal.IN_PLAY)

    def add_bot(self, client: str, seat: int, strategy: str = "heuristic") -> None:
        self._as_host(client)
        if strategy not in self.bots:
            raise Refused(Refusal.UNKNOWN_BOT)
        if not 0 <= seat < len(self.seats):
            raise Refused(Refusal.NO_SUCH_SEAT)
        if self.seats[seat].kind != "empty":
            raise Refused(Refusal.SEAT_TAKEN)
        taken = {c.name.casefold() for c in self.clients.values()} | {
            s.name.casefold() for s in self.seats
        }
        n = 1
        while f"bot {n}" in taken:
            n += 1
        self.seats[seat] = Seat(seat, "bot", f"bot {n}", None, True, strategy)

    def fill_with_bots(self, client: str, strategy: str = "heuristic") -> int:
        """Put a bot in every empty seat; how many were added."""
        empty = [s.index for s in self.seats if s.kind == "empty"]
        for index in empty:
            self.add_bot(client, index, strategy)
        return len(empty)

    def remove_bot(self, client: str, seat: int) -> None:
        self._as_host(client)
        if not 0 <= seat < len(self.seats) or self.seats[seat].kind != "bot":
            raise Refused(Refusal.NO_SUCH_SEAT)
        self._free(seat)

    def set_rules(self, client: str, rules: RuleSet) -> None:
        self._as_host(client)
        self.rules = rules
        for s in self.seats:  # new rules: everyone confirms again
            if s.kind == "human":
                self.seats[s.index] = replace(s, ready=False)

    def set_deal(self, client: str) -> None:
        """The host changes how the next hands are dealt: everyone confirms again."""
        self._as_host(client)
        for s in self.seats:
            if s.kind == "human":
                self.seats[s.index] = replace(s, ready=False)

    def set_bot_level(self, client: str, strategy: str) -> None:
        """The host has every bot seat play ``strategy`` from the next hand (a bot added
        later is given its strategy by the host): everyone confirms again, as after new rules —
        they agreed to play against the bots as they were."""
        self._as_host(client)
        if strategy not in self.bots:
            raise Refused(Refusal.UNKNOWN_BOT)
        for s in self.seats:
            if s.kind == "bot":
                self.seats[s.index] = replace(s, bot=strategy)
            elif s.kind == "human":
                self.seats[s.index] = replace(s, ready=False)

    def kick(self, client: str, target: str) -> None:
        self._as_host(client)
        if target == self.host or target not in self.clients:
            raise Refused(Refusal.NO_SUCH_CLIENT)
        self.leave(target)

    def start(self, client: str) -> tuple[Seat, ...]:
        """Start a hand; the seats as they are (the engine's seats 0..n-1 are the filled ones
        in order)."""
        self._as_host(client)
        filled = [s for s in self.seats if s.kind != "empty"]
        if len(filled) < MIN_PLAYERS:
            raise Refused(Refusal.TOO_FEW)
        if any(s.kind == "human" and not s.ready for s in filled):
            raise Refused(Refusal.NOT_READY)
        self.in_play = True
        return tuple(filled)

    def hand_over(self) -> None:
        """Back to the lobby: players confirm again before the next hand."""
        self.in_play = False
        for s in self.seats:
            if s.kind == "human":
                self.seats[s.index] = replace(s, ready=False)

    # -- chat and state --------------------------------------------------------------------

    def chat(self, client: str, text: str, now: float) -> ChatLine:
        entry = self._client(client)
        clean = clean_text(text, MAX_CHAT)
        if not clean:
            raise Refused(Refusal.EMPTY_CHAT)
        line = ChatLine(now, entry.name, clean)
        self.chat_log.append(line)
        del self.chat_log[:-200]  # the table keeps the last 200 lines
        return line

    def can_start(self) -> bool:
        filled = [s for s in self.seats if s.kind != "empty"]
        return (
            not self.in_play
            and len(filled) >= MIN_PLAYERS
            and all(s.ready for s in filled if s.kind == "human")
        )

    def state(self) -> LobbyState:
        return LobbyState(
            name=self.name,
            rules=self.rules.name,
            host=self.clients[self.host].name if self.host in self.clients else self.host_name,
            seats=tuple(self.seats),
            spectators=tuple(c.name for c in self.clients.values() if c.spectator),
            waiting=tuple(
                c.name for c in self.clients.values() if not c.spectator and c.seat is None
            ),
            in_play=self.in_play,
            can_start=self.can_start(),
        )

    def free_seats(self) -> int:
        """Seats with nobody in them."""
        return sum(1 for s in self.seats if s.kind == "empty")

    def open_seats(self) -> int:
        """Seats a person who arrives could take: free ones and bots' (what the table
        advertises as free on the network)."""
        return sum(1 for s in self.seats if s.kind != "human")

    def _client(self, client: str) -> Client:
        entry = self.clients.get(client)
        if entry is None:
            raise Refused(Refusal.NO_SUCH_CLIENT)
        return entry


def waiting_line(who: str, *, then: str | None, away: bool, you: bool = False) -> str:
    """Where a person waiting for a seat stands, in the words both screens use — the host's
    of them ("bob waits …") and their own (``you``: "you wait …", made from the lobby), so
    the two cannot tell it differently: ``then``, the seat they take when the hand in play
    ends ("bot 3's seat", "seat 4"; None: none is sure to free); ``away``, whether a player
    who is away holds a seat (and may give it up)."""
    wait, take = ("wait", "take") if you else ("waits", "takes")
    if then is not None:
        return f"{who} {wait} for this hand to end, then {take} {then}"
    if away:
        return f"{who} {wait} for a seat: a player who is away may give one up"
    return f"{who} {wait} for a seat: every seat has a player"
