"""What the terminal client draws: cards, seats, the table, the lobby, as styled text.

Every function here takes plain values (a :class:`~lanswitch.game.View`, the lobby message, the
client's options) and returns prompt_toolkit *formatted text* — a list of ``(style, text)``
pairs — so the screens can be tested as text, without a terminal. Style classes are lowercase
(prompt_toolkit lowercases them; ``suit.S`` would not match).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ..cards import JOKER_BASE, MAX_CARD, SUIT_LETTERS, SUIT_SYMBOLS, format_card
from ..game import CALL_LAST, MIMIC_BASE, SUIT_BASE, Phase, View, format_move
from ..protocol import LobbyState

__all__ = [
    "Look",
    "StyledText",
    "card_style",
    "card_text",
    "move_text",
    "seat_line",
    "suit_text",
]

StyledText = StyleAndTextTuples

SUIT_CLASSES = ("clubs", "diamonds", "hearts", "spades")


@dataclass(frozen=True, slots=True)
class Look:
    """How cards are drawn: ``ascii`` (letters for suits: no UTF-8 needed), ``four_colour``
    (each suit its own colour, not red/black only), ``colour`` (off with ``NO_COLOR``)."""

    ascii: bool = False
    four_colour: bool = False
    colour: bool = True


def suit_text(suit: int, look: Look) -> str:
    return SUIT_LETTERS[suit] if look.ascii else SUIT_SYMBOLS[suit]


def card_text(card: int, look: Look) -> str:
    """``10♥`` (or ``10H`` in ASCII), ``JK`` for a joker (narrow enough for a hand row)."""
    if card >= JOKER_BASE:
        return "JK"
    return format_card(card, symbols=not look.ascii)


def card_style(card: int, look: Look) -> str:
    """The style class of a card: its suit (the stylesheet colours them), or ``joker``."""
    if card >= JOKER_BASE:
        return "class:joker"
    suit = SUIT_CLASSES[(card % 52) // 13]
    return f"class:{suit}" + (" class:four" if look.four_colour else "")


def move_text(move: int, look: Look) -> str:
    """A move as the player reads it: the engine's :func:`~lanswitch.game.format_move`, but
    with this screen's cards and suits, and whole words for the choices."""
    if 0 <= move < MAX_CARD:
        return card_text(move, look)
    if SUIT_BASE <= move < SUIT_BASE + 4:
        return f"name {suit_text(move - SUIT_BASE, look)}"
    if move == CALL_LAST:
        return "call last card"
    if MIMIC_BASE <= move < MIMIC_BASE + 52:
        return f"as {card_text(move - MIMIC_BASE, look)}"
    return format_move(move)


def seat_line(
    view: View, lobby: LobbyState | None, seat: int, look: Look, me: int | None
) -> StyledText:
    """One player in the seats row: a turn marker, the name, the card count, what they owe."""
    name = lobby.seats[seat].name if lobby is not None and seat < len(lobby.seats) else ""
    name = name or f"seat {seat + 1}"
    turn = view.turn == seat
    marker = ("> " if look.ascii else "▶ ") if turn else "  "
    style = "class:turn" if turn else ("class:me" if seat == me else "")
    out: StyledText = [(style, marker + name[:14])]
    if not view.active[seat]:
        out.append(("class:dim", " out"))
        return out
    if seat in view.finished:
        out.append(("class:good", f" done #{view.finished.index(seat) + 1}"))
        return out
    out.append(("", f" {view.counts[seat]} card{'s' if view.counts[seat] != 1 else ''}"))
    if seat < len(view.declared) and view.declared[seat]:
        out.append(("class:warn", " LAST"))
    if seat < len(view.missed) and view.missed[seat]:
        out.append(("class:dim", f" misses {view.missed[seat]}"))
    if lobby is not None and seat < len(lobby.seats) and not lobby.seats[seat].connected:
        out.append(("class:warn", " away"))
    return out


def pending_text(view: View, names: Sequence[str]) -> str:
    """The pick-up or skip hanging over the next player, in words."""
    if not view.pending_kind:
        return ""
    who = names[view.pending_target] if 0 <= view.pending_target < len(names) else "the next player"
    if view.pending_kind == "pickup":
        return f"{who} must pick up {view.pending_amount} (or answer it)"
    return f"{who} misses {view.pending_amount} turn{'s' if view.pending_amount != 1 else ''}"


PHASE_HINTS = {
    Phase.PLAY: "your turn: play a card or draw",
    Phase.FOLLOW: "you may lay more, call, or pass",
    Phase.NAME_SUIT: "name a suit",
    Phase.NAME_CARD: "name the card your joker stands for",
    Phase.AFTER_DRAW: "play the card you drew, or pass",
}
