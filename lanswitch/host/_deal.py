"""A hand as the table holds it: the one interface both deals implement.

A table (:class:`lanswitch.host.Host`) deals its hands one way or the other — by commit-reveal
(:class:`~lanswitch.host._commit.CommitHand`) or dealer-blind
(:class:`~lanswitch.host._blind.BlindHand`) — and never tells them apart. It *holds* the hand
in progress as a :class:`HandDriver`: it passes it the hand's messages, asks it to run forward
and when it next needs the clock, has it catch a (re)joining client up, and, once the hand is
settled, scores its game. The driver in turn asks the table only what :class:`Tableside` offers:
the time, who sits where and who is gone, and a way to send. Neither half imports the other's
module; a third deal would be one more driver.

What is written once, above the two deals, holds for both: when a hand starts and who is in it
(the table), how a settled hand is scored and the match goes on (``Match``, from the driver's
``game``: a void, a forfeit, the placings), the liveness of connections, and the journal — a
driver draws its randomness from the table's ``entropy`` and reads the time from the table, so
that a journal's replay rebuilds either kind of hand exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, get_args

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .. import protocol as p
from ..bots import Bot
from ..fairdeal.setup import HandSetup
from ..game import Game
from ..rules import RuleSet
from ._config import HostConfig

__all__ = [
    "HAND_MESSAGES",
    "Deal",
    "HandDriver",
    "HandMessage",
    "HandStart",
    "Tableside",
    "Watch",
    "hand_message",
    "not_taken",
]

HandMessage = (
    p.Move
    | p.Commit
    | p.Reveal
    | p.LogHead
    | p.BlindPass
    | p.BlindShare
    | p.BlindRelease
    | p.BlindMove
    | p.BlindSeeds
)
"""The messages a client sends about the hand in play (either deal's): the table passes each
to the hand it holds, or refuses it with :func:`not_taken` when it holds none."""
HAND_MESSAGES: tuple[type[HandMessage], ...] = get_args(HandMessage)

Watch = tuple[float, int | None, float]
"""How closely the host watches its connections (``Host._conn_due``): the silence after which
it pings each, the one connection it waits on more closely (or None), and since when."""


class Tableside(Protocol):
    """What a hand may ask of the table that holds it."""

    config: HostConfig
    rules: RuleSet
    away: dict[int, float]  # seat → since when its player is away (link lost or goodbye)
    quit: set[int]  # seats whose players said goodbye during this hand

    @property
    def entropy(self) -> Callable[[int], bytes]:
        """The shell's randomness, as the journal records it."""
        ...

    @property
    def now(self) -> float: ...

    @property
    def quiet(self) -> bool:
        """Replaying a journal: nothing is sent (a driver that writes its own fan-out
        skips it)."""
        ...

    def bot_move(self, bot: Bot, game: Game, seat: int) -> int | None:
        """``bot``'s move for ``seat``: the table draws its randomness and journals it. None:
        the move is a search the table has asked its shell for (``_decide``); every driver
        then makes no step for that seat, and holds no deadline for it
        (:meth:`awaits_move`), until the answer comes and the table advances the hand."""
        ...

    def think_ahead(self, bot: Bot, game: Game, seat: int) -> None:
        """``bot``'s turn at ``seat`` has begun, its move not due yet (the bot delay): the
        table may get the move under way (a question out to its shell) meanwhile."""
        ...

    def to_ask(self, bot: Bot, game: Game, seat: int) -> bool:
        """Whether ``bot``'s move at ``seat`` is a question the table has yet to put out (a
        driver makes it due at once, for :meth:`think_ahead`)."""
        ...

    def awaits_move(self, game: Game, seat: int) -> bool:
        """Whether ``seat``'s move in ``game`` as it stands is asked of the shell, unanswered."""
        ...

    def say(self, line: str) -> None: ...

    def send(self, cid: int, message: p.Message) -> None: ...

    def broadcast(self, message: p.Message) -> None: ...

    def broadcast_lobby(self) -> None: ...

    def viewers(self, first: int | None = None) -> list[tuple[int, int | None]]:
        """Every welcomed connection with the seat its client holds (None: it watches),
        ``first`` (the mover, who hears first) at the front."""
        ...

    def seat_of(self, cid: int) -> int | None: ...

    def cid_of_seat(self, seat: int) -> int | None: ...

    def conn_key(self, cid: int) -> bytes | None:
        """The session key connection ``cid`` said hello with."""
        ...

    def gone_for_good(self, seat: int) -> bool:
        """Its player's link has been down past the grace, or it said goodbye."""
        ...

    def seat_names(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class HandStart:
    """What the table decided of a new hand, for its driver to deal: the match's ``game`` of
    it, each seat's participant id, the session key of every seated person by id (the host's,
    ``@dealer``, is the driver's to add), the host's bots, each seat's name as the lobby shows
    it."""

    game: Game
    game_id: bytes
    pids: tuple[str, ...]
    keys: dict[str, bytes]
    bots: dict[int, Bot]
    names: tuple[str, ...]
    key: Ed25519PrivateKey  # the host's: it signs as ``@dealer``


class HandDriver(Protocol):
    """One hand, however it is dealt (module docstring). The table calls it between its own
    work; it never calls the table back but through :class:`Tableside`."""

    @property
    def game(self) -> Game:
        """The match's game of this hand: scored once :attr:`settled`."""
        ...

    @property
    def seq(self) -> int:
        """The public steps taken so far, as every client counts them (where a resumed
        host says the hand stopped)."""
        ...

    @property
    def settled(self) -> bool:
        """Over, its end sent, and every proof the table waits for in: the table scores
        :attr:`game` and opens the lobby."""
        ...

    def receive(self, cid: int, message: HandMessage) -> None:
        """A message of the hand from connection ``cid`` (one of the other deal's is
        refused as :func:`not_taken` says)."""
        ...

    def advance(self, moves: bool) -> bool:
        """One step forward if one can be taken now (``moves``: including the host's own
        moves — its bots, stand-ins, the timer); False when the hand waits."""
        ...

    def deadline(self) -> float | None:
        """When the hand next needs the clock (None: only a message moves it)."""
        ...

    def watch(self) -> Watch | None:
        """How the table should watch its connections now (None: the default, everyone
        closely — the hand waits on anyone)."""
        ...

    def catch_up(self, cid: int) -> None:
        """Bring a client that (re)joined up to date on this hand (SPEC § Resuming)."""
        ...


Deal = Callable[[Tableside, HandStart], HandDriver]
"""A way to deal: given the table and the hand it starts, the driver that runs the hand
(announcing it: the ``hand`` message goes out as it is made)."""


def hand_message(setup: HandSetup, *, blind: bool) -> p.Hand:
    """The ``hand`` message that deals ``setup`` (either deal: ``blind``), as it starts the
    hand and as a client that (re)joins is caught up on it."""
    return p.Hand(
        game_id=setup.game_id,
        hand_no=setup.hand_no,
        seats=setup.seats,
        dealer=setup.dealer,
        out=setup.out,
        rules=setup.rules_toml,
        keys=setup.keys,
        turn_timer_ms=setup.turn_timer_ms,
        blind=blind,
        names=setup.names,
    )


def not_taken(message: HandMessage) -> p.Reject:
    """The refusal of a hand message that no hand in play takes from its sender (no hand,
    a hand of the other deal, a hand it has no seat in) — SPEC § Moves and § What the host
    does with the blind messages it receives."""
    if isinstance(message, p.Move):
        return p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="no hand", seq=message.seq)
    if isinstance(message, p.Commit | p.Reveal):
        return p.Reject(code=p.ErrorCode.FAIR_DEAL, text=f"round {message.round} is not open")
    if isinstance(message, p.LogHead):
        return p.Reject(code=p.ErrorCode.FAIR_DEAL, text="no log head is wanted now")
    return p.Reject(code=p.ErrorCode.FAIR_DEAL, text="no blind hand of yours")
