"""A whole dealer-blind hand in one process: every participant's :class:`~.holder.Holder`
(``@dealer`` the host's, with its bots) joined by plain calls, in the order a host relays
them.

The tests and the benchmarks use :func:`play_blind_hand`; a participant that cheats is a
:class:`~.holder.Holder` subclass, and one that withholds returns None where a message is
due (:class:`Withheld`). After the hand every participant reveals its seeds and each person
checks the hand on its own record (:func:`~.check.check_hand`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...errors import RemoteError
from ...game import Event, Game
from ..primitives import DEALER, UsageError
from .check import BlindOutcome, caught, check_hand
from .hand import BlindFault, BlindSetup, Cheat, Share
from .holder import Holder
from .positions import drawn_positions

__all__ = ["BlindHand", "Chooser", "Withheld", "play_blind_hand"]

Chooser = Callable[[Game, int], int]
"""``(the owner's own engine, seat) → move``: a bot, or a player's input."""

Relay = Callable[[str, str, int, bytes], None]
"""``(sender, drawer, hidden card, sealed key)``: each sealed key as the host relays it."""


class Withheld(RemoteError):  # noqa: N818
    """Raised by a participant's holder that does not send what is due (the tests' model of a
    participant that goes silent)."""


@dataclass(frozen=True)
class BlindHand:
    """A blind hand played: every participant's holder and what each person found."""

    holders: Mapping[str, Holder]
    outcomes: Mapping[str, BlindOutcome]
    live: Cheat | None
    withheld: str

    def outcome(self, pid: str) -> BlindOutcome:
        return self.outcomes[pid]


def play_blind_hand(
    setup: BlindSetup,
    holders: Mapping[str, Holder],
    choose: Chooser,
    *,
    check: bool = True,
    relay: Relay | None = None,
) -> BlindHand:
    """Play a blind hand to its end (or until a participant is caught or goes silent), then
    reveal every seed and, with ``check``, have each person and the host check it. ``relay``
    sees every sealed key on its way, as the host does. The first participant to catch a
    cheat live stops the hand (``BlindHand.live``); every record is the same up to there."""
    if sorted(holders) != sorted(setup.participants):
        raise UsageError("a holder for every participant, and no other")
    everyone = [holders[p] for p in setup.participants]
    host = holders[DEALER]
    live: Cheat | None = None
    withheld = ""
    bound = setup.rules.play.safety_limit * 2 + 1000
    try:
        for _ in range(bound):
            game = host.follower.game
            if game.over:
                break
            if game.chance_request() is not None:
                _shuffle(setup, holders, everyone, relay)
                continue
            seat = game.to_act()
            owner = holders[setup.owner(seat)]
            move = choose(owner.follower.game, seat)
            record = owner.move(len(host.follower.moves), seat, move)
            events: list[Event] = []
            for h in everyone:
                got = h.follower.on_move(record)
                if h is host:
                    events = got
            _deliver(setup, holders, events, relay)
    except Cheat as c:
        live = c
    except Withheld as w:
        withheld = str(w)
    outcomes: dict[str, BlindOutcome] = {}
    if check:
        seeds = {p: dict(h.seeds) for p, h in holders.items() if p != withheld}
        for pid, h in holders.items():
            received = [(k, j, s) for (k, j), got in h.received.items() for s in got.values()]
            outcomes[pid] = _verdict(h, seeds, received, live, withheld)
    return BlindHand(holders, outcomes, live, withheld)


def _verdict(
    holder: Holder,
    seeds: Mapping[str, Mapping[int, bytes]],
    received: Sequence[tuple[int, int, Share]],
    live: Cheat | None,
    withheld: str,
) -> BlindOutcome:
    if withheld:
        return BlindOutcome("void", withheld, BlindFault.WITHHELD, proven=False)
    finished = live is None and holder.follower.game.over
    found = check_hand(holder.follower, seeds, received, finished=finished)
    # With no culprit — keys opened no card and every key this participant can check is
    # right —, the wrong one was released to someone else, whose own check names it.
    return found if found.status != "void" or live is None else caught(live)


def _shuffle(
    setup: BlindSetup, holders: Mapping[str, Holder], everyone: list[Holder], relay: Relay | None
) -> None:
    """A two-pass shuffle by every participant in turn, then the deal from it."""
    for h in everyone:
        h.follower.begin_shuffle()
    for number in (1, 2):
        for pid in setup.participants:
            out, signature = holders[pid].make_pass(number)
            for h in everyone:
                h.follower.on_pass(pid, number, out, signature)
    k = len(everyone[0].follower.shuffles) - 1
    cache: dict[int, list[Share]] = {}

    def turn_up(j: int) -> list[Share]:
        if j not in cache:
            cache[j] = [holders[p].share(k, j) for p in setup.participants]
        return cache[j]

    events: list[Event] = []
    for h in everyone:
        got = h.follower.deal(turn_up)
        if h is holders[DEALER]:
            events = got
    _deliver(setup, holders, events, relay)


def _deliver(
    setup: BlindSetup,
    holders: Mapping[str, Holder],
    events: Sequence[Event],
    relay: Relay | None,
) -> None:
    """Every key owed for the hidden cards an engine step gave out, sealed to the drawer."""
    for seat, hidden in drawn_positions(events):
        for pid in setup.participants:
            got = holders[pid].release_to(seat, hidden)
            if got is None:
                continue
            to, sealed = got
            if relay is not None:
                relay(pid, to, hidden, sealed)
            holders[to].receive(hidden, pid, sealed)
