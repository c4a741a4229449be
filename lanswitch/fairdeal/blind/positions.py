"""The rules engine on a dealer-blind deck: a shuffle's positions stand in for its cards until
they are opened.

Theory of operation
-------------------
At a blind table nobody running the engine knows every card: the host knows only what is
public (cards laid and turned up), each player that and its own cards. So everybody runs the
same :class:`~lanswitch.game.Game` in its ``blind`` form, where a shuffle's position ``j`` is
the hidden card ``base + j`` (``base`` from :data:`~lanswitch.game.HIDDEN_BASE` up, one range
per shuffle, :class:`Positions`). A hidden card matches nothing, so it is never a legal move;
it becomes its card by :meth:`~lanswitch.game.Game.reveal` when its position is opened — for
the player who drew it, privately; for everyone, when it is laid or turned up. In its blind
form the engine decides no outcome on a card in the mover's hand (see ``Game.__init__``), so
the host's engine and each player's follow the same turns with different knowledge.

A chance step may turn cards up (the starter, and under ``skip_power`` every power card turned
up before it): :func:`apply_blind_chance` asks the engine itself which position is turned up
next, has it opened, and asks again, so no rule of the deal is written twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from ...game import HIDDEN_BASE, Event, Game
from ..primitives import UsageError

__all__ = [
    "Positions",
    "apply_blind_chance",
    "apply_opened",
    "drawn_positions",
    "next_turn_up",
]

_MAX_TURN_UPS: Final = 108


@dataclass
class Positions:
    """The hidden-card ranges of one hand's shuffles: shuffle ``k`` of ``sizes[k]`` cards has
    hidden cards ``bases[k] .. bases[k] + sizes[k] − 1``."""

    bases: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)

    def add(self, n: int) -> int:
        """Number the positions of the next shuffle, of ``n`` cards; its base."""
        base = self.bases[-1] + self.sizes[-1] if self.bases else HIDDEN_BASE
        self.bases.append(base)
        self.sizes.append(n)
        return base

    def hidden_in(self, mask: int) -> list[int]:
        """The hidden cards of this hand's shuffles in a hand's ``mask``."""
        end = self.bases[-1] + self.sizes[-1] if self.bases else HIDDEN_BASE
        return [h for h in range(HIDDEN_BASE, end) if (mask >> h) & 1]

    def locate(self, hidden: int) -> tuple[int, int]:
        """``(shuffle, position)`` of a hidden card; UsageError if it is none."""
        for k in range(len(self.bases) - 1, -1, -1):
            if self.bases[k] <= hidden < self.bases[k] + self.sizes[k]:
                return k, hidden - self.bases[k]
        raise UsageError(f"{hidden} is not a hidden card of this hand")


def next_turn_up(game: Game, base: int, n: int, opened: Mapping[int, int]) -> int | None:
    """The position of ``game``'s awaited chance step (hidden cards ``base .. base + n − 1``)
    that the step turns up next, given the positions ``opened`` so far (position → card);
    None when the step turns up nothing more and can be applied."""
    order = [opened.get(j, base + j) for j in range(n)]
    events = game.clone().apply_chance(order, hidden=True)
    up = [c for kind, _seat, c in events if kind == "starter" and c >= HIDDEN_BASE]
    return up[0] - base if up else None


def apply_opened(game: Game, base: int, n: int, opened: Mapping[int, int]) -> list[Event]:
    """Answer ``game``'s chance request with the hidden cards ``base .. base + n − 1``, the
    positions in ``opened`` as their cards. The events, as :meth:`Game.apply_chance`."""
    return game.apply_chance([opened.get(j, base + j) for j in range(n)], hidden=True)


def apply_blind_chance(
    game: Game, base: int, n: int, open_position: Callable[[int], int]
) -> list[Event]:
    """Answer ``game``'s chance request with the hidden cards ``base .. base + n − 1``, having
    every position the step turns up opened first by ``open_position(j) → card`` (in the
    order the engine turns them up). The events of the step, as :meth:`Game.apply_chance`.
    (Over a network the openings come one message at a time: :func:`next_turn_up` says which
    is due, :func:`apply_opened` applies the step once none is.)"""
    opened: dict[int, int] = {}
    for _ in range(_MAX_TURN_UPS + 1):
        j = next_turn_up(game, base, n, opened)
        if j is None:
            return apply_opened(game, base, n, opened)
        opened[j] = open_position(j)
    raise UsageError("a chance step turned up more cards than a deck holds")  # pragma: no cover


def drawn_positions(events: Sequence[Event]) -> list[tuple[int, int]]:
    """``(seat, hidden card)`` of every hidden card an engine step gave to a seat."""
    return [
        (seat, c)
        for kind, seat, c in events
        if (kind == "deal" or kind == "draw") and c >= HIDDEN_BASE
    ]
