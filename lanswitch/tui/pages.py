"""The texts of the terminal client's full-screen pages: the help (``?``: the keys that act on
this screen, the table's power cards, how to read the screen) and the last hand's verdict in
full (``v``). :mod:`lanswitch.tui.layout` pages them (wrapped to the window, scrolled); the
match's page is :mod:`lanswitch.tui.scoreboard`'s."""

from __future__ import annotations

from ..session import named
from .log import record_fair
from .model import TuiModel
from .render import StyledText, plain

__all__ = ["details_lines", "help_lines"]


def help_lines(model: TuiModel) -> list[StyledText]:
    """The keys that act on this screen (:func:`.keys.help_keys`, the test the key bindings
    use too), the table's power cards, and how to read the screen."""
    from .keys import help_keys
    from .powers import call_lines, power_lines

    g = model.look.g
    lines: list[StyledText] = [[("", f"  {hint}")] for hint in help_keys(model)]
    lines += power_lines(model)  # the table's power cards, in a player's words
    lines += call_lines(model)  # and its calls: when to say them, what missing one costs
    notes: tuple[str, ...] = (f"{g.updown} scroll this, Esc closes it.",)
    if model.screen == "table" and not model.watching:  # how to lay, where one lays cards
        notes += (
            "",
            "Cards you may lay are bright; the cursor is reversed. The line under the prompt "
            "says why the card under the cursor cannot be laid.",
            "Space marks cards to lay one after another in this turn (the number in brackets "
            "before a marked card shows the order: (1) is laid first) and Enter lays them (a "
            "card that names a suit asks for it, then the rest follow); a card that could not "
            "be laid after the ones marked before it is not marked, and the line under the "
            "prompt says why.",
        )
        lobby = model.session.lobby
        if lobby is None or lobby.hints:
            notes += (
                "",
                "h on your turn suggests a move: the one the normal bot would make from what "
                "you see (your cards, the table, the rules), with one line of why. The cursor "
                "goes to the card; Enter lays it, if you agree.",
            )
        else:
            notes += ("", "The host has turned hints off at this table: h suggests no move.")
    notes += (
        "",
        "The log tells every play, draw, pick-up and pass, who comes and goes, and the "
        "verdict of each hand's check of the deal.",
    )
    lines += [[("", f"  {note}")] if note else [] for note in notes]
    return lines


def details_lines(model: TuiModel) -> list[StyledText]:
    """The verdict of the last hand, in full (``v``)."""
    s = model.session
    record = s.history[-1] if s.history else None
    fair = None if record is None else record_fair(record)
    if record is None or fair is None:
        return [
            [("", "  No verdict: you watched this hand (a spectator takes no part in the deal).")]
        ]
    assert record.judgement is not None  # (record_fair says None without one)
    text = named(record.judgement.long(), record.names)
    return [[("class:good" if fair else "class:bad", f"  {plain(text, model.look)}")]]
