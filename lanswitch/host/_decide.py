"""A bot's decision the host asks its shell for, and the pure function that makes it.

Why ask
-------
A ``hard`` bot's move is a search: a tenth of a second as a rule, a third at the 99th
percentile, more on a slow laptop. Made where the host needs it — inside a ``tick`` — it held
the shell's event loop for that long, and at ``lanswitch play`` that loop also answers the
host's own player's keys and every connection. So a host built with ``asks=True`` does not
make such a move itself: it puts a :class:`Decision` in :attr:`Host.asking` and waits; the
shell has :func:`decide` run it wherever it likes (the server: a worker process) and hands
the move back with :meth:`Host.decided`, a journaled call like any other, so a replay reads
the move from the journal and never searches again. A bot that decides in microseconds
(``bot.searches`` False), and any bot in a hand it cannot search (a dealer-blind hand, where
the seat's own cards are hidden from the engine), decides in place as before.

The question goes out as the bot's turn begins (:meth:`Host.think_ahead`), not when its move
is due: the search runs while the table's bot delay does, and the move is played once both
are done, so a ``hard`` bot keeps the pace of any other. Whether a host asks is in its
journal (``ask_from_now``): a replay asks from where the host that wrote it began to, and a
journal of a host that made its moves in place replays in place.

A decision is named by its :attr:`Decision.key`: the hand, how many steps its log holds and
the seat. The log only grows, so an answer whose key is not the one asked now (the hand moved
on, or ended) is stale, and is dropped.

The worker rebuilds the hand from its log (:meth:`lanswitch.game.Game.replay`, the very replay
the fair-deal check trusts) and makes the move with the bot the host would have used, seeded
as the host would have seeded it: the same move as the host deciding in place. Pure: it runs
in any process, and the tests run it in place.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..bots import make_bot
from ..game import Game
from ..rules import RuleSet
from ..search import SeededRng

__all__ = ["Decision", "decide"]

LogEntry = tuple[int, int] | tuple[int, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Decision:
    """Everything a process needs to make one bot's move, and the key the answer comes back
    by: the bot's name (``make_bot``), the rules, the hand as :meth:`Game.replay` rebuilds
    it, the seat to move and the 16 bytes of entropy that seed its choice."""

    bot: str
    rules: RuleSet
    players: int
    dealer: int
    out: tuple[int, ...]
    hand_no: int
    log: tuple[LogEntry, ...]
    seat: int
    seed: bytes

    @property
    def key(self) -> tuple[int, int, int]:
        """The hand, the length of its log when asked, the seat: the answer's address."""
        return key_of(self.hand_no, len(self.log), self.seat)

    @classmethod
    def of(cls, bot: str, game: Game, seat: int, seed: bytes) -> Decision:
        """The decision of ``bot`` for ``seat`` in ``game`` as it stands."""
        out = tuple(s for s in range(game.players) if not game.active[s])
        return cls(
            bot=bot,
            rules=game.rules,
            players=game.players,
            dealer=game.dealer,
            out=out,
            hand_no=game.hand_no,
            log=tuple(game.log),
            seat=seat,
            seed=seed,
        )


def key_of(hand_no: int, steps: int, seat: int) -> tuple[int, int, int]:
    return (hand_no, steps, seat)


def decide(decision: Decision) -> int:
    """The move ``decision`` asks for: the hand rebuilt from its log, the named bot's choice
    with the seeded randomness. What a shell runs (in a worker process, or in place)."""
    d = decision
    game = Game.replay(d.rules, d.players, d.log, dealer=d.dealer, out=d.out, hand_no=d.hand_no)
    return make_bot(d.bot, d.rules).act(game, d.seat, SeededRng(d.seed))
