"""The help's card of the table's power cards: one line per power row, in a player's words.

Made by :func:`lanswitch.powers.power_card` from the rule rows of the rules in play (the
current or last hand's, else the preset the lobby names), the same words the game log uses
for each effect as it happens (:mod:`lanswitch.narrate`). ``help_lines`` (pages.py) shows
it under the keys; the help pager wraps and scrolls it at any size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..powers import calls_words, power_card
from ..rules import PRESETS, RuleSet
from .render import StyledText, plain

if TYPE_CHECKING:
    from .model import TuiModel

__all__ = ["call_lines", "power_lines", "table_rules"]


def table_rules(model: TuiModel) -> RuleSet | None:
    """The rules at this table: the hand's (current or last), else the lobby's preset."""
    s = model.session
    lobby = s.lobby
    if s.rules is not None and (lobby is None or s.rules.name == lobby.rules):
        return s.rules
    return PRESETS.get(lobby.rules) if lobby is not None else None


def power_lines(model: TuiModel) -> list[StyledText]:
    """A blank line, a heading and one line per power card (none where the rules are not
    known yet, or have no power cards)."""
    rules = table_rules(model)
    if rules is None or not rules.power:
        return []
    lines: list[StyledText] = [[], [("class:title", f"  Power cards ({rules.name})")]]
    for line in power_card(rules):
        cards, _, does = line.partition(": ")
        lines.append(
            [("class:title", f"  {plain(cards, model.look)}:"), ("", f" {plain(does, model.look)}")]
        )
    return lines


def call_lines(model: TuiModel) -> list[StyledText]:
    """A blank line, a heading and one line per call the rules have (none where the rules are
    not known yet, or have no calls): :func:`lanswitch.powers.calls_words`."""
    rules = table_rules(model)
    said = [] if rules is None else calls_words(rules)
    if not said:
        return []
    lines: list[StyledText] = [[], [("class:title", "  Calls")]]
    lines += [[("", f"  {line}")] for line in said]
    return lines
