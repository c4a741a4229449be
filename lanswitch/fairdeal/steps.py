"""A hand from one seat's transcript, step by step, as that seat saw it (``lanswitch replay``).

Theory of operation
-------------------
The steps are the verifier's own replay (:mod:`.replay`): the same walk through the signed log
that ``lanswitch verify`` makes — every shuffle re-derived from the revealed seeds, every
move's signature checked and applied to the rules engine — recording, after each deal and each
move, the engine's view for the transcript's seat (:meth:`~lanswitch.game.Game.view`) and the
events of that step as that seat may see them (:func:`~lanswitch.game.redact`: other seats'
dealt and drawn cards hidden). So a replay shows nothing the file's owner was not shown at the
table — its own hand, the cards laid, how many each holds — even though the seeds revealed
after the hand let the verifier derive every hand: what the owner could not see then is not
shown now either.

A file the verifier finds unfair stops where the check failed: the steps up to that point,
and the verdict that says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass

from ..game import Event, Game, View, redact
from ..rules import RuleSet
from .replay import _Unfair, _Verifier, verify
from .transcript import Transcript
from .verdict import Verdict

__all__ = ["Step", "Walk", "walk"]


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the hand: the owner's view after it, and its events as the owner saw them."""

    view: View
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Walk:
    """A hand step by step, for the transcript's ``seat``; ``verdict``, the verifier's."""

    seat: int
    names: tuple[str, ...]
    rules: RuleSet
    hand_no: int
    steps: tuple[Step, ...]
    verdict: Verdict


class _Recorder(_Verifier):
    """The verifier, keeping the owner's view after each step (see the module docstring)."""

    def __init__(self, t: Transcript) -> None:
        super().__init__(t)
        self.steps: list[Step] = []
        self._game: Game | None = None

    def chance_step(self, game: Game) -> None:
        self._game = game
        super().chance_step(game)

    def move_step(self, game: Game) -> None:
        self._game = game
        super().move_step(game)

    def check_own(self, events: Sequence[Event]) -> None:
        super().check_own(events)  # called once after every deal and every move
        assert self._game is not None
        seat = self.t.seat
        shown = tuple(redact(e, seat) for e in events)
        self.steps.append(Step(self._game.view(seat), shown))


def walk(t: Transcript) -> Walk:
    """The hand of ``t`` step by step (see the module docstring)."""
    recorder = _Recorder(t)
    with suppress(_Unfair):  # the steps up to the failure; the verdict below says what failed
        recorder.run()
    names = tuple(n or f"seat {i + 1}" for i, n in enumerate(t.names or ("",) * len(t.setup.seats)))
    return Walk(
        seat=t.seat,
        names=names,
        rules=t.setup.rules,
        hand_no=t.setup.hand_no,
        steps=tuple(recorder.steps),
        verdict=verify(t),
    )
