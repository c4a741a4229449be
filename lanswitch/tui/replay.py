"""``lanswitch replay FILE``: a saved hand, step by step, on the table screen.

The hand comes from a commit-reveal transcript or a dealer-blind hand's file (the file
``lanswitch verify`` reads, or the one the history keeps: ``--hand ID``), walked by the
checker itself (``fairdeal.steps.walk``, ``blind_walk``: its first step says what a blind
file shows): each step is a deal or a move, with the view of the file's owner after it —
its own hand, the cards laid, how many each holds, never another player's cards (the owner
was not shown them at the table) — and the step told in the words of the table's log
(:mod:`lanswitch.narrate`). → (or Enter, Space) goes a step on, ← a step back, Home and End
to the first and the last, q leaves. The last step shows the verdict of the file's check; a
file that fails it stops where it failed.

The screen is drawn from the table's own pieces (:func:`.layout.table_line`,
:func:`.layout.seat_grid`, :func:`.render.seat_cells`, the cards of :mod:`.render`), fitted to
the window like every screen: the log of the steps before gives way first, then the seats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TextIO

from ..fairdeal.steps import Walk
from ..narrate import Line, describe
from .layout import MIN_COLS, MIN_ROWS, seat_grid, table_line
from .log import TONES
from .render import (
    Look,
    StyledText,
    card_style,
    card_text,
    clip,
    fit_parts,
    line_text,
    plain,
    seat_cells,
    width,
    wrap,
)

__all__ = ["ReplayModel", "cmd_replay", "compose_replay", "run_replay"]


@dataclass
class ReplayModel:
    """Where the replay stands: the hand, the step shown (0: the deal), how it is drawn."""

    walk: Walk
    label: str  # the file's name, or "history:ID"
    look: Look = field(default_factory=Look)
    at: int = 0
    told: list[list[Line]] = field(init=False)

    def __post_init__(self) -> None:
        w = self.walk
        self.told = [describe(s.events, w.names, me=w.seat) for s in w.steps]

    @property
    def last(self) -> int:
        return max(0, len(self.walk.steps) - 1)

    def forward(self) -> None:
        self.at = min(self.last, self.at + 1)

    def back(self) -> None:
        self.at = max(0, self.at - 1)

    def first_step(self) -> None:
        self.at = 0

    def last_step(self) -> None:
        self.at = self.last


def _told(model: ReplayModel, i: int) -> StyledText:
    out: StyledText = []
    for n, line in enumerate(model.told[i]):
        if n:
            out.append(("", "; "))
        out += line_text(line, model.look, TONES[line.tone])
    return out


def compose_replay(model: ReplayModel, cols: int, rows: int) -> list[StyledText]:
    """The lines of the replay's screen (at most ``rows``, none wider than ``cols``)."""
    look = model.look
    if cols < MIN_COLS or rows < MIN_ROWS:
        text = f"Make the window at least {MIN_COLS}x{MIN_ROWS} (it is {cols}x{rows})."
        return wrap([("class:warn", text)], max(cols, 1))[: max(rows, 1)]
    w = model.walk
    n = len(w.steps)
    sep: StyledText = [("class:title", look.g.sep)]
    head = fit_parts(
        [
            (0, [("class:title", "replay")]),
            (3, [("class:title", plain(model.label, look))]),
            (2, [("class:title", w.rules.name)]),
            (1, [("class:title", f"hand {w.hand_no}")]),
            (0, [("class:title", f"step {model.at + 1} of {n}")]),
        ],
        cols,
        sep,
    )
    header = [*head, ("class:title", " " * max(0, cols - width(head)))]
    keys = fit_parts(
        [
            (0, [("class:hint", f"{look.g.arrows} step")]),
            (2, [("class:hint", "Enter/Space next")]),
            (3, [("class:hint", "Home/End first/last")]),
            (0, [("class:hint", "q quit")]),
        ],
        cols - 2,
        [("class:hint", look.g.sep)],
    )
    footer = [("class:hint", " "), *keys, ("class:hint", " " * max(1, cols - 1 - width(keys)))]
    room = rows - 2
    if not w.steps:
        body = wrap([("class:bad", f"  Nothing to replay: {plain(w.verdict.text(), look)}")], cols)
        body = body[:room]
        return [header, *body, *([[]] * (room - len(body))), footer]

    step = w.steps[model.at]
    v = step.view
    me = w.seat
    # What stays whatever the window: the step told, the owner's hand, the verdict at the end.
    said = _told(model, model.at) or [("class:dim", "(nothing anyone could see changed)")]
    mark = look.g.turn
    bottom = wrap([("class:turn", f" {mark} "), *said], cols, indent=3)[:3]
    hand: StyledText = [("", "  your hand: ")]
    for c in v.hand:
        hand += [(card_style(c, look), card_text(c, look)), ("", " ")]
    if not v.hand:
        hand.append(("class:dim", "(no cards)"))
    bottom += wrap(hand, cols, indent=8)
    if w.note and model.at == 0:
        bottom += wrap([("class:dim", f"  {w.note}")], cols, indent=2)[:3]
    if model.at == model.last:
        verdict = w.verdict
        style = "class:good" if verdict.status == "fair" else "class:bad"
        bottom += wrap([(style, f"  {plain(verdict.text(), look)}")], cols, indent=4)[:2]
    top = [table_line(v, look, cols)]
    grid = seat_grid(seat_cells(v, None, look, me, w.names, rules=w.rules), cols)
    above = room - len(bottom)
    if len(top) + len(grid) <= above:
        top += grid
    top = top[: max(0, above)]
    # The steps before, newest last, as many whole lines as fit above the step shown.
    log: list[StyledText] = []
    for i in range(model.at - 1, -1, -1):
        told = _told(model, i)
        if not told:
            continue
        lines = wrap([("", "   "), *told], cols, indent=5)
        if len(log) + len(lines) > above - len(top):
            break
        log[:0] = lines
    gap: list[StyledText] = [[] for _ in range(above - len(top) - len(log))]
    body = [*top, *gap, *log, *bottom][:room]
    body += [[] for _ in range(room - len(body))]
    return [header, *[clip(line, cols) for line in body], footer]


def run_replay(model: ReplayModel) -> None:
    """Show the replay full-screen until q (prompt_toolkit)."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import Layout, Window

    from .app import ESCAPE_WAIT, ScreenControl, build_style

    kb = KeyBindings()

    @kb.add("right")
    @kb.add("enter")
    @kb.add("space")
    def _forward(event: KeyPressEvent) -> None:
        model.forward()

    @kb.add("left")
    @kb.add("backspace")
    def _back(event: KeyPressEvent) -> None:
        model.back()

    @kb.add("home")
    def _first(event: KeyPressEvent) -> None:
        model.first_step()

    @kb.add("end")
    def _last(event: KeyPressEvent) -> None:
        model.last_step()

    @kb.add("q")
    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    screen = Window(ScreenControl(lambda cols, rows: compose_replay(model, cols, rows)))
    app: Application[None] = Application(
        layout=Layout(screen),
        key_bindings=kb,
        style=build_style(colour=model.look.colour, four_colour=model.look.four_colour),
        full_screen=True,
        mouse_support=False,
        color_depth=None,
    )
    app.ttimeoutlen = ESCAPE_WAIT
    app.timeoutlen = ESCAPE_WAIT
    app.run()


def cmd_replay(
    name: str, data: bytes | str, err: TextIO, *, blind: bool, ascii: bool, four: bool
) -> int:
    """``lanswitch replay``: the hand in ``data`` (a transcript's bytes, or why there are none)
    from the source called ``name``; 2 with a line on ``err`` when there is nothing to show."""
    from ..fairdeal import Transcript, TranscriptError
    from ..fairdeal.steps import walk
    from .app import colour_wanted

    if isinstance(data, str):
        err.write(f"lanswitch: {name}: {data}\n")
        return 2
    if blind:
        from ..fairdeal.blind.file import BlindFileError
        from ..fairdeal.steps import blind_walk

        try:
            walked = blind_walk(data)
        except BlindFileError as e:
            err.write(
                f"lanswitch: {name}: this dealer-blind hand's file cannot be replayed: {e} "
                f"(lanswitch verify {name} says what its check finds)\n"
            )
            return 2
    else:
        try:
            walked = walk(Transcript.from_json(data))
        except TranscriptError as e:
            err.write(f"lanswitch: {name}: {e}\n")
            return 2
    from ..preflight import no_terminal

    said = no_terminal("replay")  # (after the file: what is wrong with it is said first)
    if said is not None:
        err.write(f"lanswitch: error: {said}\n")
        return 2
    look = Look(ascii=ascii, four_colour=four, colour=colour_wanted())
    run_replay(ReplayModel(walked, name, look))
    return 0
