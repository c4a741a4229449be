"""Cards of one's own told once they can be read (dealer-blind).

A dealer-blind draw deals a card its holder cannot read until the others' keys for it come, a
step or more later: the log said "you pick up 2" where commit-reveal says "you pick up 2: J♠
2♦". :class:`Faces` keeps each line of ours that drew such cards waiting, and finishes it with
the cards the session says opened (its ``opened`` news: the cards each message opened, in
order), oldest line first. A run of single draws merged into one line (``narrate.merge``)
waits for all its cards as one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from ..narrate import Cards, Line

__all__ = ["Faces"]


class Logged(Protocol):
    """A line of the log, as the model keeps it: the narration behind it, if any."""

    @property
    def source(self) -> Line | None: ...


class Faces:
    """The lines of ours waiting for the faces of cards drawn hidden."""

    def __init__(self) -> None:
        self.waiting: list[tuple[Logged, int, list[int]]] = []
        """Oldest first: the line, how many cards it waits for, those opened so far."""

    def clear(self) -> None:
        self.waiting = []

    def wait(self, log: Sequence[Logged], hidden: int) -> None:
        """The newest line of ours in ``log`` drew ``hidden`` cards not yet readable."""
        target = next((x for x in reversed(log[-8:]) if x.source and _ours(x.source)), None)
        if target is None:
            return
        merged = [w for w in self.waiting if not _kept(w[0], log)]
        got: list[int] = []
        if merged:  # the line waiting before was merged into this one: one wait for both
            hidden += sum(n - len(seen) for _, n, seen in merged)
            got = [c for _, _, seen in merged for c in seen]
            self.waiting = [w for w in self.waiting if _kept(w[0], log)]
        self.waiting.append((target, hidden, got))

    def opened(self, log: Sequence[Logged], cards: Sequence[int]) -> list[tuple[int, Line]]:
        """Cards of ours now readable, given to the lines waiting for them: each line they
        finish, with its place in ``log``, to be shown instead."""
        done: list[tuple[int, Line]] = []
        for card in cards:
            self.waiting = [w for w in self.waiting if _kept(w[0], log)]
            if not self.waiting:
                break
            target, hidden, got = self.waiting[0]
            got.append(card)
            if len(got) < hidden:
                continue
            self.waiting.pop(0)
            line = target.source
            assert line is not None
            faces = tuple(got)
            if line.drawer >= 0:  # a run of draws: "you draw J♠ 2♦"
                faces = (*line.seen, *faces)
                finished = replace(line, parts=(line.lead + " ", Cards(faces)), seen=faces)
            else:  # a pick-up or a penalty: "you pick up 2: J♠ 2♦"
                words = "".join(x for x in line.parts if isinstance(x, str))
                finished = replace(line, parts=(words + ": ", Cards(faces)))
            done.append((next(i for i, x in enumerate(log) if x is target), finished))
        return done


def _kept(line: Logged, log: Sequence[Logged]) -> bool:
    """``line`` itself is still in ``log`` (not an equal one: "you pick up 2" comes often)."""
    return any(x is line for x in log)


def _ours(line: Line) -> bool:
    """A line of this seat's drawing cards: a draw, a pick-up, a penalty paid in cards."""
    said = "".join(x for x in line.parts if isinstance(x, str))
    return said.startswith("you ") and (" draw" in said or " pick up" in said)
