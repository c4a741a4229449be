"""The key bar at the foot of every screen: the hints of the keys that act now (``keys.py``),
those of the highest rank giving way where the window is narrow, ``? help`` always there
and saying in words how many gave way; the host's lobby takes two lines where one cannot hold
its hints. And what ``q`` asks in the bar's place."""

from __future__ import annotations

from .keys import hints
from .model import TuiModel
from .render import StyledText, clip, fit_parts, fitting, width

__all__ = ["HELP", "PAGES", "TWO_LINE_ROWS", "key_bar", "leave_question"]

PAGES = ("help", "details", "match")
"""The overlays drawn as a full-screen page that scrolls (``app.py`` binds their keys)."""


def leave_question(model: TuiModel, cols: int = 200) -> str:
    """What ``q`` asks, in ``cols`` columns. The host's own player stops the table by
    leaving: mid-hand, that keeps back the seeds and the signed log every player's check needs
    until ``lanswitch play --resume`` carries the table on (without it, each friend's verdict
    of the hand says it cannot be checked: docs/fairness.md) — asked plainly, and shorter
    where the window is narrow, never cut before its "y / n" (a newcomer at 60 columns saw a
    blank bar: the question's first word, a space, was all that was drawn)."""
    h = model.session.hand
    if model.powers is not None and h is not None and h.over is None:
        for text in (
            " Stop the table mid-hand? Nobody can check this hand until play --resume. y / n ",
            " Stop the table mid-hand? play --resume carries it on. y / n ",
            " Stop the table mid-hand? y / n ",
            " Stop mid-hand? y / n ",
        ):
            if len(text) <= cols:
                return text
        return " Stop? y/n "
    return " Leave the table? y / n " if cols >= 24 else " Leave? y/n "


def key_bar(model: TuiModel, cols: int, rows: int = 0) -> list[StyledText]:
    """The key bar: one line, or two in the host's lobby where one cannot hold every hint
    and the window has the rows (:data:`TWO_LINE_ROWS`): the table's settings (``b/x``,
    ``k``, ``g``, ``f``, ``H``) above, what every player presses below it."""
    if model.overlay == "quit":
        asked = clip([("", leave_question(model, cols))], cols)
        return [[("class:warn", fragment[1]) for fragment in asked]]
    sep: StyledText = [("class:hint", model.look.g.sep)]
    if model.overlay in PAGES:
        lines = [[(0, f"{model.look.g.updown} scroll"), (0, "Esc close")]]
    elif model.overlay == "chat":
        lines = [[(0, "Enter send"), (0, "Esc close")]]
    else:
        lines = [hints(model)]
        settings = hints(model, settings=True)
        if settings and rows >= TWO_LINE_ROWS and _hint_lines(lines, cols - 2, sep)[0]:
            # Two lines only where the lower one keeps every key of its own: a narrower
            # window keeps one, where the settings give way first.
            two = [settings, hints(model, settings=False)]
            if not _hint_lines(two[1:], cols - 2, sep)[0]:
                lines = two
    _, shown = _hint_lines(lines, cols - 2, sep)
    return [
        [("class:hint", " "), *line, ("class:hint", " " * max(1, cols - 1 - width(line)))]
        for line in shown
    ]


TWO_LINE_ROWS = 15
"""The fewest rows at which the host's lobby spends a second line on the key bar (at 40×10
its rules, seats and notes come first; ``? help`` lists every key)."""


def _hint_lines(
    lines: list[list[tuple[int, str]]], cols: int, sep: StyledText
) -> tuple[int, list[StyledText]]:
    """The hints of each line that fit in ``cols``, the least important giving way first,
    and how many gave way in all; "? help" stays and says in words how many gave way ("?
    help: 3 more keys", or "? help: 3 more" where the words would push out one more)."""
    best: tuple[int, list[StyledText]] | None = None
    for form in (more_keys, more_short):
        hidden = 0
        for _ in range(3):  # the help's own length may push out one more
            shown: list[list[tuple[int, StyledText]]] = [
                [
                    (rank, [("class:hint", form(hidden) if text == HELP else text)])
                    for rank, text in items
                ]
                for items in lines
            ]
            gone = sum(
                len(items) - len(fitting(parts, cols, sep))
                for items, parts in zip(lines, shown, strict=True)
            )
            if gone == hidden:
                break
            hidden = gone
        if best is None or hidden < best[0]:
            best = (hidden, [fit_parts(parts, cols, sep) for parts in shown])
    assert best is not None
    return best


def more_keys(hidden: int) -> str:
    """The help key's hint when ``hidden`` hints gave way: "? help: 3 more keys"."""
    if not hidden:
        return HELP
    return f"{HELP}: {hidden} more key{'s' if hidden != 1 else ''}"


def more_short(hidden: int) -> str:
    """The same, short, where the long form does not fit: "? help: 3 more"."""
    return f"{HELP}: {hidden} more" if hidden else HELP


HELP = "? help"
"""The help key's hint: it always stays in the bar (rank 0), so every key can be found."""
