"""One participant's part in a dealer-blind hand played over a network: what it owes after
each public step, worked out from its own record.

Theory of operation
-------------------
Every participant — a player's client, and the host for ``@dealer`` (its bots) — holds a
:class:`~.holder.Holder`. The host relays four kinds of step: a shuffle's pass, a position
opened to all (a card the deal turns up), a move, and — to the drawer alone — a sealed key.
After each, the participant asks :meth:`Participant.due` what it must send now:

* its pass, when the open shuffle awaits it (every follower begins a shuffle the moment its
  engine asks for one, so all agree which shuffle and which pass without being told);
* its public key of the position the deal turns up next (the engine says which, on public
  information: :meth:`~.hand.Follower.pending_turn_up`);
* the sealed key it owes each drawer of a hidden card the last step gave out.

A shuffle is dealt from as soon as its passes are in and its turn-ups are open, by every
follower alike. So the host orders nothing it could bend: a step out of order is refused by
each follower, and a key is released only for a hidden card the participant's own engine
gave to that seat. Pure: the seeds come from the holder's ``seed_for``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...game import HIDDEN_BASE, Event
from ..primitives import UsageError
from .hand import Follower, MoveRecord, Opening, Share
from .holder import Holder
from .positions import drawn_positions

__all__ = [
    "Complaint",
    "Out",
    "Participant",
    "PassOut",
    "ReleaseOut",
    "ShareOut",
    "complaint_shares",
    "opening_of",
    "share_map",
]

Complaint = tuple[int, int, str, bytes, bytes]
"""A key a drawer was sent for a card that did not open: ``(shuffle, position, sender, key,
signature)``, the signature the sender's over the release to the drawer."""


@dataclass(frozen=True, slots=True)
class PassOut:
    """This participant's pass ``number`` of shuffle ``shuffle``."""

    shuffle: int
    number: int
    points: tuple[bytes, ...]
    signature: bytes


@dataclass(frozen=True, slots=True)
class ShareOut:
    """Its public key of a position the deal turns up."""

    shuffle: int
    position: int
    share: Share


@dataclass(frozen=True, slots=True)
class ReleaseOut:
    """Its key of hidden card ``hidden``'s position, sealed to the drawer ``to``."""

    to: str
    hidden: int
    sealed: bytes


Out = PassOut | ShareOut | ReleaseOut


def opening_of(
    follower: Follower,
    mover: str,
    hidden: int,
    card: int,
    shares: Mapping[str, tuple[bytes, bytes]],
) -> Opening:
    """A laid card's opening as the wire carries it: each share signed to the mover, the
    position the hidden card's. UsageError if ``hidden`` is no hidden card of the hand."""
    k, position = follower.positions.locate(hidden)
    got = tuple(Share(pid, mover, key, sig) for pid, (key, sig) in sorted(shares.items()))
    return Opening(k, position, card, got)


def share_map(shares: Sequence[Share]) -> dict[str, tuple[bytes, bytes]]:
    """Shares as the wire carries them: sender → ``(key, signature)``."""
    return {s.sender: (s.key, s.signature) for s in shares}


def complaint_shares(
    follower: Follower, complaints: Mapping[str, Sequence[Complaint]]
) -> list[tuple[int, int, Share]]:
    """The keys drawers show of cards that did not open for them (drawer → complaint), each
    only if its sender signed it to that drawer: the check after the hand compares them with
    their senders' seeds, so a wrong one is proven its sender's to everyone — and a drawer
    cannot make anyone answer for a key it did not sign."""
    found: list[tuple[int, int, Share]] = []
    keys = follower.setup.keys
    for to, shown in complaints.items():
        for k, j, sender, key, signature in shown:
            if not 0 <= k < len(follower.shuffles) or sender not in keys:
                continue
            rec = follower.shuffles[k]
            if not 0 <= j < rec.n or sender not in rec.order:
                continue
            share = Share(sender, to, key, signature)
            if follower.signed(rec, j, share):
                found.append((k, j, share))
    return found


class Participant:
    """One participant's side of a networked blind hand (module docstring)."""

    def __init__(self, holder: Holder) -> None:
        self.holder = holder
        self.follower = holder.follower
        self._owed: list[ReleaseOut] = []
        self._passed: set[tuple[int, int]] = set()
        self._shared: set[tuple[int, int]] = set()

    @property
    def pid(self) -> str:
        return self.holder.pid

    def _sync(self) -> None:
        """Begin the shuffle the engine awaits, if it awaits one and none is open."""
        f = self.follower
        if f.open_shuffle is None and not f.game.over and f.game.chance_request() is not None:
            f.begin_shuffle()

    def due(self) -> list[Out]:
        """What this participant must send now (each thing once)."""
        out: list[Out] = [*self._owed]
        self._owed.clear()
        self._sync()
        rec = self.follower.open_shuffle
        if rec is None:
            return out
        nxt = rec.next_pass()
        if nxt is not None:
            pid, number = nxt
            if pid == self.pid and (rec.index, number) not in self._passed:
                self._passed.add((rec.index, number))
                points, signature = self.holder.make_pass(number)
                out.append(PassOut(rec.index, number, points, signature))
            return out
        j = self.follower.pending_turn_up()
        if j is not None and (rec.index, j) not in self._shared:
            self._shared.add((rec.index, j))
            out.append(ShareOut(rec.index, j, self.holder.share(rec.index, j)))
        return out

    # -- the public steps, as relayed ----------------------------------------------------------

    def take_pass(
        self, pid: str, shuffle: int, number: int, points: Sequence[bytes], signature: bytes
    ) -> list[Event]:
        """A pass of the open shuffle; the deal's events if it completes the shuffle (and no
        card is to be turned up first)."""
        self._sync()
        rec = self.follower.open_shuffle
        if rec is None or rec.index != shuffle:
            raise UsageError(f"shuffle {shuffle} is not the one open")
        self.follower.on_pass(pid, number, points, signature)
        return self._maybe_deal()

    def take_open(self, shuffle: int, position: int, shares: Sequence[Share]) -> list[Event]:
        """A position the deal turns up, opened to all; the deal's events once it is dealt."""
        rec = self.follower.open_shuffle
        if rec is None or rec.index != shuffle:
            raise UsageError(f"shuffle {shuffle} is not the one open")
        self.follower.open_public(position, shares)
        return self._maybe_deal()

    def _maybe_deal(self) -> list[Event]:
        f = self.follower
        rec = f.open_shuffle
        if rec is None or rec.next_pass() is not None or f.pending_turn_up() is not None:
            return []
        events = f.finish_deal()
        self._gave(events)
        return events

    def take_move(self, record: MoveRecord) -> list[Event]:
        """A move, checked and played; its events."""
        events = self.follower.on_move(record)
        self._gave(events)
        return events

    def take_leave(self, pid: str, seeds: Mapping[int, bytes]) -> None:
        """Person ``pid`` left, publishing its seeds: its seat's cards are the host's now —
        their keys are owed to ``@dealer`` —, and its keys of cards still on their way to this
        participant are made from its seeds."""
        f = self.follower
        for seat, hidden in f.on_leave(pid, seeds):
            self._release(seat, hidden)
        for seat in range(f.setup.players):
            if f.owner(seat) == self.pid:
                for hidden in f.positions.hidden_in(f.game.hands[seat]):
                    self.holder.derive_gone(hidden)

    def take_release(self, sender: str, hidden: int, sealed: bytes) -> int | None:
        """A key released to this participant; the card once every key of it is in."""
        return self.holder.receive(hidden, sender, sealed)

    def _gave(self, events: Sequence[Event]) -> None:
        for seat, hidden in drawn_positions(events):
            self._release(seat, hidden)

    def _release(self, seat: int, hidden: int) -> None:
        """What it owes for a hidden card given to ``seat``: its key sealed to the seat's owner,
        or — its own — the keys of those who left, made from their seeds."""
        got = self.holder.release_to(seat, hidden)
        if got is not None:
            self._owed.append(ReleaseOut(got[0], hidden, got[1]))
        elif self.follower.gone:
            self.holder.derive_gone(hidden)

    # -- its own moves -------------------------------------------------------------------------

    def to_move(self) -> int | None:
        """The seat this participant moves for now — its turn, no shuffle open and every card
        of the seat known to it — or None."""
        f = self.follower
        game = f.game
        if game.over or f.open_shuffle is not None or game.chance_request() is not None:
            return None
        seat = game.to_act()
        if seat < 0 or f.owner(seat) != self.pid:
            return None
        if game.hands[seat] >> HIDDEN_BASE:
            return None  # a key of a card it drew is still on its way
        return seat

    def move(self, seat: int, move: int) -> MoveRecord:
        """Its signed move for ``seat`` (played when the host relays it back)."""
        return self.holder.move(len(self.follower.moves), seat, move)

    def received(self) -> list[tuple[int, int, Share]]:
        """Every key released to it alone, for the check after the hand."""
        return [(k, j, s) for (k, j), got in self.holder.received.items() for s in got.values()]
