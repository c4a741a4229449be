"""The terminal client's log: the lines under the table, and the verdict line of a hand.

Every line is one of the engine's events told by :mod:`lanswitch.narrate` (a run of draws
merged into the line before it), or a line the client says itself: who comes and goes, the
verdicts, chat, the link to the host. Every line is escaped as it is kept (:func:`_logged`):
chat, the host's words and every name in them came over the network. The log keeps the newest
:data:`LOG_LINES`.

:class:`Log` holds the lines and what narrating them needs between steps: the narration's
memory (``Story``) and the lines of ours waiting for the faces of cards drawn hidden
(:mod:`.faces`). The look (ASCII or symbols, colours) is given with each line, since the
screen's look can change while the log lasts. :class:`~.model.TuiModel` decides what to say;
this module only keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..narrate import Line, Story, describe, merge
from ..session import HandRecord, named
from ..textsafe import escape
from .faces import Faces
from .render import Look, StyledText, line_text, plain_text

if TYPE_CHECKING:
    from ..rules import RuleSet

__all__ = ["LOG_LINES", "TONES", "Log", "LogLine", "record_fair", "verdict_line"]

LOG_LINES = 500

TONES = {"plain": "", "notice": "class:warn", "good": "class:good", "quiet": "class:dim"}
"""A narrated line's tone (``narrate.Line.tone``) as the screen's style class."""


@dataclass(slots=True)
class LogLine:
    """One line of the log: its styled text, and the narration behind it (a run of draws
    may still grow)."""

    text: StyledText
    source: Line | None = None


class Log:
    """The log's lines (oldest first, at most :data:`LOG_LINES`) and the narration's memory."""

    def __init__(self) -> None:
        self.lines: list[LogLine] = []
        self._story = Story()  # the narration's memory between steps (lanswitch.narrate)
        self._faces = Faces()  # lines of ours waiting for the faces of hidden draws

    def new_hand(self, text: StyledText, look: Look) -> None:
        """A hand begins: its rule line, and nothing left waiting from the hand before."""
        self.add(text, look)
        self._faces.clear()

    def say(self, text: str, style: str, look: Look) -> None:
        """A line the client says itself, in one style."""
        self.add([(style, text)], look)

    def add(self, text: StyledText, look: Look, source: Line | None = None) -> None:
        self.lines.append(_logged(plain_text(text, look), source))
        del self.lines[:-LOG_LINES]

    def tell(
        self,
        events: Sequence[tuple[str, int, int]],
        names: Sequence[str],
        me: int | None,
        rules: RuleSet | None,
        look: Look,
    ) -> None:
        """The engine's events of one step, narrated; a draw of ours not yet readable
        (dealer-blind) leaves its line waiting for the cards' faces (:meth:`opened`)."""
        hidden = sum(
            1 for kind, seat, value in events if kind == "draw" and seat == me and value < 0
        )
        for line in describe(events, names, me=me, rules=rules, story=self._story):
            self._narrate(line, look)
        if hidden:
            self._faces.wait(self.lines, hidden)

    def opened(self, cards: Sequence[int], look: Look) -> None:
        """Cards of ours now readable (dealer-blind): the lines that drew them show them."""
        for at, line in self._faces.opened(self.lines, cards):
            self.lines[at] = _logged(line_text(line, look, TONES[line.tone]), line)

    def _narrate(self, line: Line, look: Look) -> None:
        """Add a narrated line, joining a run of draws to the line before it."""
        last = self.lines[-1].source if self.lines else None
        joined = merge(last, line) if last is not None else None
        if joined is not None:
            self.lines[-1] = _logged(line_text(joined, look, TONES[joined.tone]), joined)
        else:
            self.add(line_text(line, look, TONES[line.tone]), look, line)


def record_fair(record: HandRecord) -> bool | None:
    """Whether the hand's check found it fair (None: there was nothing of ours to check)."""
    return None if record.judgement is None else record.judgement.fair


def verdict_line(record: HandRecord) -> str:
    """The verdict under a hand's result: a few words, with the players' names — the same
    words whichever deal dealt the hand, its tag (``(dealer-blind)``) after the status."""
    j = record.judgement
    if j is None:
        return f"hand {record.hand_no}: no transcript (watching)"
    if j.fair:
        caveats = "".join(f"; {c}" for c in j.caveats)
        line = f"hand {record.hand_no}: deal verified: {j.word()}, every card legal{caveats}"
    else:
        who = ", ".join(j.culprits) or "nobody"
        line = f"hand {record.hand_no}: {j.word()}: {j.reason} (blame {who})"
    return named(line, record.names)


def _logged(text: StyledText, source: Line | None) -> LogLine:
    """A line of the log, its text escaped (:func:`lanswitch.textsafe.escape`): chat, the
    host's words and every name in them came over the network. prompt_toolkit already shows C0
    and C1 controls as ``^X``; this also shows bidi and zero-width characters, which would
    make a line read otherwise than it is."""
    out: StyledText = []
    for frag in text:  # (style, text) or (style, text, mouse handler)
        if len(frag) == 2:
            out.append((frag[0], escape(frag[1])))
        else:
            out.append((frag[0], escape(frag[1]), frag[2]))
    return LogLine(out, source)
