"""The bots: one interface (:class:`Bot`), three strengths, a registry (:data:`BOTS`).

``random`` plays any legal move (the baseline), ``heuristic`` a real, simple strategy
(:mod:`lanswitch.heuristic`), ``hard`` searches (:mod:`lanswitch.search`). A bot decides
from what its seat may know: the view — or, for the search, the engine's determinizations,
which deal the cards out of the seat's sight again — never the cards it cannot see.
Randomness comes in as ``rng`` (anything with ``random() -> float``); no bot imports a random
source of its own, so they stay in the pure core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .game import Game, Rng, View
from .heuristic import HeuristicBot
from .rules import RuleSet
from .search import HardBot

__all__ = ["BOTS", "Bot", "HardBot", "HeuristicBot", "RandomBot", "Rng", "make_bot"]


class Bot(Protocol):
    """A strategy. Drivers that hold the hand (the host, ``simulate``) call :meth:`act`;
    one that holds only a seat's view (a client) calls :meth:`choose`."""

    name: str
    #: False when the bot needs only the legal moves, so drivers may skip building a view.
    needs_view: bool

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        """The move for ``seat``, to act in ``game``: what the seat may know of the hand
        decides it (the view; a search, the engine's determinizations), never the cards
        it cannot see."""
        ...

    def choose(self, view: View, rng: Rng) -> int: ...

    def choose_legal(self, legal: list[int], rng: Rng) -> int: ...


class RandomBot:
    """Uniform over the legal moves: the baseline every strategy is measured against."""

    name = "random"
    needs_view = False

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        return self.choose_legal(game.legal_moves(), rng)

    def choose(self, view: View, rng: Rng) -> int:
        return self.choose_legal(list(view.legal), rng)

    def choose_legal(self, legal: list[int], rng: Rng) -> int:
        return legal[int(rng.random() * len(legal))]


BOTS: dict[str, Callable[[RuleSet], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "hard": HardBot,
}


def make_bot(name: str, rules: RuleSet) -> Bot:
    try:
        return BOTS[name](rules)
    except KeyError:
        raise ValueError(f"no bot {name!r}; bots are {', '.join(BOTS)}") from None
