"""The ``hard`` bot: information-set Monte Carlo tree search over the engine.

A card game's next move depends on cards nobody at the seat can see. The search therefore
does not search one deal but many: each iteration asks the engine for a *determinization*
(:meth:`~lanswitch.game.Game.determinize`: the cards out of the seat's sight dealt again,
honouring what the table saw each hand lack), walks one tree shared by every iteration —
single-observer ISMCTS (Cowling, Powley and Whitehouse, IEEE TCIAIG 2012): a node is a
sequence of moves as the searching seat sees them, and a move is only chosen among those
legal in this iteration's deal —, plays the hand on with heuristic bots for a bounded number
of moves, and scores where it got to: the winner takes 1; a hand not over yet is scored by
its card counts. Every seat's own moves maximise its own score (max-n).

The search's noise is kept from costing games: the heuristic's move stands unless the
search rates another clearly better (``margin``), and calls are made as the heuristic makes
them, as a person would say "last card".

Pure: the random source comes in as ``rng``; the budget is a count of iterations and of the
moves they play, never a clock, so a seed replays the same choice. The count of moves bounds a
decision's time whatever the hand (a long play-out is a long iteration): at about 1.6 µs a
move compiled (a play-out's determinization included), ``move_budget`` moves take about a
quarter of a second.
"""

from __future__ import annotations

import math

from .game import CALL_LAST, CALL_TWO, DeterminizeError, Game, Rng, View
from .heuristic import HeuristicBot, knock_ready
from .rules import RuleSet

__all__ = ["HardBot", "Node", "SeededRng"]

#: Moves a play-out runs before its position is scored by the card counts.
ROLLOUT_MOVES = 48
#: How sharply the card counts decide a position's score (per card).
COUNT_WEIGHT = 0.45
#: UCB's exploration constant (rewards lie in [0, 1]).
EXPLORE = 0.7
#: Iterations a decision runs, at most (docs/performance.md, Bots, has this default's
#: figures: win shares over 2,000 paired hands, and the time a decision takes).
ITERATIONS = 1200
#: Moves (down the tree and in play-outs) a decision plays, at most: the bound on a long
#: hand's decision (about 1.6 µs a move compiled: some 0.25 s).
MOVE_BUDGET = 150_000
#: How often (in iterations) the search asks whether the standing move is settled.
CHECK_EVERY = 25


_MASK32 = 0xFFFFFFFF


class SeededRng:
    """A random source that is a function of its seed: ``random()`` in [0, 1) with 53 bits,
    as :class:`random.Random` gives, from Marsaglia's xorshift128 (J. Stat. Softw. 8(14),
    2003) — shifts and exclusive ors of 32-bit words, which stay small integers in the
    compiled code (a 64-bit multiply would make every draw a big integer).

    The host's bots draw a decision's randomness from one of these, seeded by 16 bytes of
    the host's entropy: the journal keeps those 16 bytes, where drawing every number from the
    entropy kept 7 bytes a draw — some 350 KB a decision of the ``hard`` bot, which draws
    about 50,000 numbers — and spent a third of the decision's time drawing them.
    """

    __slots__ = ("w", "x", "y", "z")

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 16:
            raise ValueError("a seed is 16 bytes")
        words = [int.from_bytes(seed[i : i + 4], "big") for i in range(0, 16, 4)]
        if not any(words):
            words[0] = 1  # the one state xorshift never leaves
        self.x, self.y, self.z, self.w = words

    def _next(self) -> int:
        x = self.x
        t = x ^ ((x << 11) & _MASK32)
        self.x, self.y, self.z = self.y, self.z, self.w
        w = self.w
        self.w = w = w ^ (w >> 19) ^ t ^ (t >> 8)
        return w

    def random(self) -> float:
        a = self._next() >> 5  # 27 bits and 26 bits: 53, as CPython's random() makes them
        b = self._next() >> 6
        return (a * 67108864 + b) * (1.0 / 9007199254740992)


class Node:
    """One node of the search tree: the move that led here, by whom, and its tally."""

    __slots__ = ("children", "mover", "offered", "reward", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover  # the seat that made the move into this node (-1: the root)
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.offered = 1  # times the move was legal when its parent was reached (ISMCTS)
        self.reward = 0.0  # the mover's summed score

    def mean(self) -> float:
        return self.reward / self.visits if self.visits else 0.0


def position_value(game: Game, count_weight: float = COUNT_WEIGHT) -> list[float]:
    """Each seat's score of where the hand stands: 1 to the winner of a hand that is over;
    otherwise a share of 1 by fewest cards (``exp(-count_weight × cards)``, normalised)."""
    players = game.players
    result = game.result
    if result is not None:
        out = [0.0] * players
        if result.placings:
            out[result.placings[0]] = 1.0
        return out
    weights = [
        math.exp(-count_weight * game.counts[s]) if game.active[s] else 0.0 for s in range(players)
    ]
    for s in game.finished:
        weights[s] = 0.0
    total = sum(weights) or 1.0
    return [w / total for w in weights]


class HardBot:
    """ISMCTS with heuristic play-outs (see the module docstring). ``iterations`` and
    ``move_budget``: the search's budget per decision (whichever runs out first); ``margin``:
    how much better (in share of a win) another move must look than the heuristic's to be
    played instead; ``rollout_moves``, ``count_weight``, ``explore``, ``check_every``: as
    the module's constants of those names say; ``calls_in_tree``: whether the seats down the
    tree make their calls as the heuristic does (False: the way before issue 28's fix, for
    measuring it on the same deals)."""

    name = "hard"
    needs_view = True
    searches = True

    def __init__(
        self,
        rules: RuleSet,
        *,
        iterations: int = ITERATIONS,
        margin: float = 0.03,
        move_budget: int = MOVE_BUDGET,
        rollout_moves: int = ROLLOUT_MOVES,
        count_weight: float = COUNT_WEIGHT,
        explore: float = EXPLORE,
        check_every: int = CHECK_EVERY,
        calls_in_tree: bool = True,
    ) -> None:
        self.rules = rules
        self.iterations = iterations
        self.margin = margin
        self.move_budget = move_budget
        self.rollout_moves = rollout_moves
        self.count_weight = count_weight
        self.explore = explore
        self.check_every = check_every
        self.calls_in_tree = calls_in_tree
        self.heuristic = HeuristicBot(rules)
        self.knock = rules.calls.last_card and rules.calls.timing == "on_finish"
        self.moves_played = 0  # by the last search, down the tree and in play-outs

    def choose(self, view: View, rng: Rng) -> int:
        """Without the engine (a view alone), the heuristic's move."""
        return self.heuristic.choose(view, rng)

    def choose_legal(self, legal: list[int], rng: Rng) -> int:
        raise TypeError("the hard bot needs the hand")

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        view = game.view(seat)
        if self.knocks(view):
            return CALL_LAST
        plain = self.heuristic.choose(view, rng)
        legal = view.legal
        if plain in (CALL_LAST, CALL_TWO):
            return plain  # calls are made as a person makes them
        options = [m for m in legal if m not in (CALL_LAST, CALL_TWO)]
        if len(options) <= 1:
            return plain
        try:
            root = self.search(game, seat, rng, stand=plain)
        except DeterminizeError:  # hidden cards of its own (a dealer-blind hand's)
            return plain
        best = max(root.children.values(), key=lambda n: n.visits, default=None)
        if best is None:
            return plain
        choice = next(m for m, n in root.children.items() if n is best)
        known = root.children.get(plain)
        if known is not None and known.visits and known.mean() >= best.mean() - self.margin:
            return plain
        return choice if choice in legal else plain

    def knocks(self, view: View) -> bool:
        """Black Jack's knock ("cards"), as a person makes it
        (:func:`~lanswitch.heuristic.knock_ready`: a hand that could all go down in one
        turn, the last card or a run). The heuristic knocks on its last card only, so it
        never goes out with a run; a call costs nothing, and is not made where nothing but
        luck could finish the hand."""
        return self.knock and knock_ready(view, self.rules, self.heuristic.t)

    def search(self, game: Game, seat: int, rng: Rng, stand: int = -1) -> Node:
        """The tree of ``iterations`` iterations from ``game`` as ``seat`` sees it.

        ``stand``: the move that stands unless the search finds a better one (the
        heuristic's). Once it leads every other move by more visits than the iterations
        left, no outcome of them could make :meth:`act` choose another, and the search stops
        there (checked every ``check_every`` iterations; 0: never): the same choice, sooner
        (6–9% of the moves saved in switch and blackjack).
        """
        root = Node(-1)
        heuristic = self.heuristic
        explore = self.explore
        budget = self.move_budget
        calls = self.calls_in_tree
        iterations = self.iterations
        every = self.check_every
        played = 0
        for done in range(iterations):
            if played >= budget:
                break
            if every and done and done % every == 0 and _settled(root, stand, iterations - done):
                break
            g = game.determinize(seat, rng)
            start = g.actions
            node = root
            path = [root]
            for _depth in range(200):
                mover = g.to_act()
                if mover < 0:
                    if not _chance(g, rng):
                        break
                    continue
                offered = g.legal_moves()
                if calls and (CALL_LAST in offered or CALL_TWO in offered):
                    # A call is not a choice the tree weighs: each seat calls as it does at
                    # the root — this seat as it knocks (:meth:`knocks`), the others as the
                    # heuristic does. (Left out of the tree, a seat laying down to its last
                    # card passed without the call and paid the penalty — or, where going out
                    # needs the call first, Black Jack's knock, could never go out.)
                    seen = g.view(mover)
                    if mover == seat and self.knocks(seen):
                        g.apply(mover, CALL_LAST)
                        continue
                    said = heuristic.choose(seen, rng)
                    if said in (CALL_LAST, CALL_TWO):
                        g.apply(mover, said)
                        continue
                legal = [m for m in offered if m not in (CALL_LAST, CALL_TWO)] or offered
                children = node.children
                untried = []
                for m in legal:
                    child = children.get(m)
                    if child is None:
                        untried.append(m)
                    else:
                        child.offered += 1
                if untried:
                    move = untried[int(rng.random() * len(untried))]
                    child = Node(mover)
                    children[move] = child
                    g.apply(mover, move)
                    path.append(child)
                    break
                best_score = -1.0
                move = legal[0]
                for m in legal:
                    child = children[m]
                    score = child.mean() + explore * math.sqrt(
                        math.log(child.offered) / child.visits
                    )
                    if score > best_score:
                        best_score, move = score, m
                g.apply(mover, move)
                node = children[move]
                path.append(node)
            value = _play_out(g, heuristic, rng, self.rollout_moves, self.count_weight)
            played += g.actions - start + 1
            for n in path:
                n.visits += 1
                if n.mover >= 0:
                    n.reward += value[n.mover]
        self.moves_played = played
        return root


def _settled(root: Node, stand: int, left: int) -> bool:
    """Whether ``stand`` leads every other move at ``root`` by more than ``left`` visits
    (so it stays the most visited, and :meth:`HardBot.act` plays it, however the rest go)."""
    known = root.children.get(stand)
    if known is None:
        return False
    lead = known.visits
    return all(lead - n.visits > left for m, n in root.children.items() if m != stand)


def _chance(g: Game, rng: Rng) -> bool:
    """Resolve a chance step (a reshuffle) in a play-out at random; False at the hand's end."""
    req = g.chance_request()
    if req is None:
        return False
    rand = rng.random
    g.apply_chance([c for _, c in sorted([(rand(), c) for c in req[1]])])
    return True


def _play_out(g: Game, bot: HeuristicBot, rng: Rng, moves: int, count_weight: float) -> list[float]:
    """Play ``g`` on with the heuristic for at most ``moves`` moves; the score."""
    for _ in range(moves):
        seat = g.to_act()
        if seat < 0:
            if not _chance(g, rng):
                break
            continue
        g.apply(seat, bot.choose(g.view(seat), rng))
    return position_value(g, count_weight)
