"""Who comes and goes, as the terminal client tells it: the lobby's seats (a person takes a
seat, goes away, comes back, leaves) and the hand's log (the host plays an away player's seat,
and the player is back).

Two messages tell the same return — the lobby's seat connected again ("bob is back"), and,
where the log had the host play the seat, the log's ``Back`` ("bob is back and plays again",
:mod:`lanswitch.commitseat`) — in either order; the screen says the first and not the second.
A lost link is a stand-in until the player is back (:meth:`Presence.away` counts down to it);
only a goodbye (the log's ``Away`` with ``LEFT``) gives the seat up for the rest of the hand
(:meth:`Presence.left_seats`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .. import protocol as p
from ..fairdeal.log import LEFT, Away, Back

__all__ = ["Presence", "comings_and_goings"]


class Presence:
    """What the model keeps between messages to say who comes and goes (module docstring)."""

    def __init__(self) -> None:
        self.seats: tuple[p.LobbySeat, ...] | None = None  # the lobby last seen
        self.since = 0.0  # when it came (the model's clock): its seats' grace_ms count from then
        self.stood_in: dict[int, int] = {}  # seats the hand's log says the host plays: how
        self.return_said: set[int] = set()  # seats whose return one line has told

    def new_hand(self) -> None:
        self.stood_in.clear()
        self.return_said.clear()

    def lobby(self, lobby: p.LobbyState, now: float, me: bytes) -> list[str]:
        """A lobby came at ``now``: the lines to say of the other players (``me``: our key)."""
        before, self.seats, self.since = self.seats, lobby.seats, now
        if before is None:
            return []
        return [
            line
            for seat, line in comings_and_goings(before, lobby.seats, me, playing=lobby.playing)
            if (not line.endswith(" is back") or self._back(seat, lobby=True, mine=False))
            # (whose goodbye the hand's log told, the seat freed as it ends: said already)
            and not (line.endswith(" left") and self.stood_in.get(seat) == LEFT)
        ]

    def logged(self, ev: object, my_seat: int | None) -> bool:
        """The log said ``ev`` (an ``Away`` or ``Back``): whether to say its line."""
        if isinstance(ev, Away):
            self.stood_in[ev.seat] = ev.how
            self.return_said.discard(ev.seat)
        elif isinstance(ev, Back):
            return self._back(ev.seat, lobby=False, mine=ev.seat == my_seat)
        return True

    def _back(self, seat: int, *, lobby: bool, mine: bool) -> bool:
        """Whether to say that the player of ``seat`` is back: the first of the two messages
        that tell it is said, the second not."""
        if not lobby:
            self.stood_in.pop(seat, None)
        if seat in self.return_said:
            self.return_said.discard(seat)
            return False
        if lobby:
            if seat in self.stood_in:  # the log's return is still to come
                self.return_said.add(seat)
        else:
            seats = self.seats
            waiting = seats is not None and seat < len(seats) and not seats[seat].connected
            if waiting and not mine:  # the lobby's line is still to come (never of our own)
                self.return_said.add(seat)
        return True

    def away(self, lobby: p.LobbyState, now: float) -> list[tuple[str, int | None]]:
        """The players away mid-hand by ``lobby``: each name with the seconds left before the
        host stands in for it (the host's deadline, counted from the lobby's arrival), None
        once its grace is over. Not a player who said goodbye (:meth:`left_seats`)."""
        out: list[tuple[str, int | None]] = []
        for i, st in enumerate(lobby.seats):
            if st.name and not st.bot and not st.connected and self.stood_in.get(i) != LEFT:
                left = st.grace_ms / 1000 - (now - self.since)
                out.append((st.name, math.ceil(left) if left > 0 else None))
        return out

    def left_seats(self) -> frozenset[int]:
        """The seats whose players said goodbye in this hand: the host plays them to its end."""
        return frozenset(i for i, how in self.stood_in.items() if how == LEFT)


def comings_and_goings(
    before: Sequence[p.LobbySeat],
    after: Sequence[p.LobbySeat],
    me: bytes,
    *,
    playing: bool = False,
) -> list[tuple[int, str]]:
    """What the other players did between two lobby states, a line each with its seat: took a
    seat (a bot's, a person's first), went away (their connection dropped), came back, left.
    Bots coming and going are the host's business, and shown in the seat list.

    Mid-hand (``playing``), a player gone with no grace left (a goodbye, or a table whose
    grace is 0) is not said to be "away": the hand's log says at once, in its own line, that
    the host plays the seat and why ("bob left the table: …"), and "bob is away" just before
    it told the same twice, the first time wrongly for a goodbye."""
    lines: list[tuple[int, str]] = []
    for i, (old, new) in enumerate(zip(before, after, strict=False)):
        if new.key == me and new.key:
            continue
        was = bool(old.name) and not old.bot
        now = bool(new.name) and not new.bot
        if was and (not now or old.key != new.key):
            lines.append((i, f"{old.name} left"))
        if now and (not was or old.key != new.key):
            took = f"{old.name}'s seat (seat {i + 1})" if old.bot else f"seat {i + 1}"
            lines.append((i, f"{new.name} takes {took}"))
        elif now and old.connected and not new.connected:
            if not (playing and new.grace_ms == 0):
                lines.append((i, f"{new.name} is away"))
        elif now and not old.connected and new.connected:
            lines.append((i, f"{new.name} is back"))
    return lines
