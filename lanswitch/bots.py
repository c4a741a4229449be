"""The bots: one interface (:class:`Bot`), three levels a person picks, a registry (:data:`BOTS`).

A person picks a level (:data:`LEVELS`): ``easy`` plays like a beginner (:class:`EasyBot`: any
card that plays, a pick-up answered when it can be), ``normal`` is the heuristic, a real,
simple strategy (:mod:`lanswitch.heuristic`; also named ``heuristic``), ``hard`` searches
(:mod:`lanswitch.search`). ``random`` plays any legal move, calls included: the baseline the
others are measured against (``simulate``, ``benchmarks/winshare.py``). A bot decides
from what its seat may know: the view — or, for the search, the engine's determinizations,
which deal the cards out of the seat's sight again — never the cards it cannot see.
Randomness comes in as ``rng`` (anything with ``random() -> float``); no bot imports a random
source of its own, so they stay in the pure core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .cards import MAX_CARD
from .game import CALL_LAST, CALL_TWO, DRAW, MIMIC_BASE, PASS, SUIT_BASE, Game, Phase, Rng, View
from .heuristic import HeuristicBot
from .rules import RuleSet
from .search import HardBot

__all__ = [
    "BOTS",
    "LEVELS",
    "Bot",
    "EasyBot",
    "HardBot",
    "HeuristicBot",
    "RandomBot",
    "Rng",
    "level_of",
    "make_bot",
]


class Bot(Protocol):
    """A strategy. Drivers that hold the hand (the host, ``simulate``) call :meth:`act`;
    one that holds only a seat's view (a client) calls :meth:`choose`."""

    name: str
    #: False when the bot needs only the legal moves, so drivers may skip building a view.
    needs_view: bool
    #: True when a decision is a search (a tenth of a second, up to a second on a slow
    #: laptop): a host's shell has it made in a worker process, off the event loop that
    #: answers key presses and connections (:class:`lanswitch.host.Decision`). The others
    #: take microseconds and are made where they are asked for.
    searches: bool

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
    searches = False

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        return self.choose_legal(game.legal_moves(), rng)

    def choose(self, view: View, rng: Rng) -> int:
        return self.choose_legal(list(view.legal), rng)

    def choose_legal(self, legal: list[int], rng: Rng) -> int:
        return legal[int(rng.random() * len(legal))]


class EasyBot:
    """A beginner: half its turns begin with the heuristic's move, the other half with any card
    that plays (a wild card only when nothing else does; a pick-up answered when it can be),
    and it draws only when nothing plays; it names the suit it holds most, and makes its calls
    as a person does (the heuristic's, :meth:`HeuristicBot.call_before`): an easy opponent,
    not a silly one (``random`` calls "last card" on five cards). Half and half, not all at
    random: four bots laying at random leave the suits bunched in hands, and a short stock can
    then go round for thousands of moves, nobody holding the suit named."""

    name = "easy"
    needs_view = True
    searches = False
    #: The share of its turns begun with a card at random.
    BLUNDERS = 0.5

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.caller = HeuristicBot(rules)

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        return self.choose(game.view(seat), rng)

    def choose(self, view: View, rng: Rng) -> int:
        # A blunder is the turn's first move only: once the turn is under way, or a call made
        # for the move the heuristic meant, it keeps to that (a call for one move, then
        # another move, is a wrong call).
        first = view.phase == Phase.PLAY and not (view.called_last or view.called_two)
        if not first or rng.random() >= self.BLUNDERS:
            return self.caller.choose(view, rng)
        move = self._any_card(view, rng)
        call = self.caller.call_before(move, view)
        move = move if call is None else call
        return move if move in view.legal or not view.legal else view.legal[0]

    def choose_legal(self, legal: list[int], rng: Rng) -> int:
        raise TypeError("the easy bot needs the view")

    def _any_card(self, view: View, rng: Rng) -> int:
        legal = view.legal
        if view.phase == Phase.NAME_SUIT:
            return SUIT_BASE + self.caller.best_suit(view.hand)
        moves = [m for m in legal if m not in (CALL_LAST, CALL_TWO)]
        cards = [m for m in moves if m < DRAW or m >= MIMIC_BASE]
        if not cards:
            return DRAW if DRAW in moves else PASS if PASS in moves else moves[0]
        wild = self.caller.t.wild_mask
        plain = [m for m in cards if m >= MAX_CARD or not (wild >> m) & 1]
        cards = plain or cards
        return cards[int(rng.random() * len(cards))]


BOTS: dict[str, Callable[[RuleSet], Bot]] = {
    "easy": EasyBot,
    "normal": HeuristicBot,
    "hard": HardBot,
    "heuristic": HeuristicBot,
    "random": RandomBot,
}

#: The levels a person picks from (``play --level``, the lobby's ``k``), weakest first.
LEVELS = ("easy", "normal", "hard")


def level_of(name: str) -> str:
    """The level a bot's name is shown as: ``heuristic`` is ``normal``; ``random`` stays."""
    return "normal" if name == "heuristic" else name


def make_bot(name: str, rules: RuleSet) -> Bot:
    try:
        return BOTS[name](rules)
    except KeyError:
        raise ValueError(f"no bot {name!r}; bots are {', '.join(BOTS)}") from None
