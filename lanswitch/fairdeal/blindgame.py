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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from ..game import HIDDEN_BASE, Event, Game
from .primitives import UsageError

__all__ = ["Positions", "apply_blind_chance", "drawn_positions"]

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

    def locate(self, hidden: int) -> tuple[int, int]:
        """``(shuffle, position)`` of a hidden card; UsageError if it is none."""
        for k in range(len(self.bases) - 1, -1, -1):
            if self.bases[k] <= hidden < self.bases[k] + self.sizes[k]:
                return k, hidden - self.bases[k]
        raise UsageError(f"{hidden} is not a hidden card of this hand")


def apply_blind_chance(
    game: Game, base: int, n: int, open_position: Callable[[int], int]
) -> list[Event]:
    """Answer ``game``'s chance request with the hidden cards ``base .. base + n − 1``, having
    every position the step turns up opened first by ``open_position(j) → card`` (in the
    order the engine turns them up). The events of the step, as :meth:`Game.apply_chance`."""
    opened: dict[int, int] = {}
    for _ in range(_MAX_TURN_UPS + 1):
        order = [opened.get(j, base + j) for j in range(n)]
        trial = game.clone()
        events = trial.apply_chance(order, hidden=True)
        up = [c for kind, _seat, c in events if kind == "starter" and c >= HIDDEN_BASE]
        if not up:
            return game.apply_chance(order, hidden=True)
        j = up[0] - base
        opened[j] = open_position(j)
    raise UsageError("a chance step turned up more cards than a deck holds")  # pragma: no cover


def drawn_positions(events: Sequence[Event]) -> list[tuple[int, int]]:
    """``(seat, hidden card)`` of every hidden card an engine step gave to a seat."""
    return [
        (seat, c)
        for kind, seat, c in events
        if (kind == "deal" or kind == "draw") and c >= HIDDEN_BASE
    ]
