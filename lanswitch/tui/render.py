"""What the terminal client draws, as styled text: cards, seats, narration, and the helpers that
fit text to a width without cutting a word.

Every function here takes plain values (a :class:`~lanswitch.game.View`, the lobby message, the
client's :class:`Look`) and returns prompt_toolkit *formatted text* — a list of ``(style,
text)`` pairs — so the screens can be tested as text, without a terminal. Style classes are
lowercase (prompt_toolkit lowercases them; ``suit.S`` would not match).

``--ascii`` means pure ASCII: every glyph the screens use beyond suits (separators, arrows,
rules, the turn marker, the ellipsis) comes from :class:`Glyphs`, so one switch covers them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

from ..cards import JOKER_BASE, MAX_CARD, SUIT_LETTERS, SUIT_SYMBOLS, format_card
from ..game import CALL_LAST, CALL_TWO, DRAW, MIMIC_BASE, PASS, SUIT_BASE, View, format_move
from ..narrate import Cards, Line, SuitName
from ..protocol import LobbyState
from ..rules import RuleSet

__all__ = [
    "Glyphs",
    "Look",
    "StyledText",
    "card_style",
    "card_text",
    "clip",
    "fit_parts",
    "fitting",
    "line_text",
    "move_text",
    "plain",
    "plain_text",
    "seat_cells",
    "suit_text",
    "trim",
    "width",
    "wrap",
]

StyledText = StyleAndTextTuples

SUIT_CLASSES = ("clubs", "diamonds", "hearts", "spades")


@dataclass(frozen=True, slots=True)
class Glyphs:
    """The characters the screens draw with besides text: UTF-8, or ASCII (``--ascii``)."""

    sep: str = " · "
    arrows: str = "←/→"
    updown: str = "↑/↓"
    rule: str = "─"
    turn: str = "▶"
    more: str = "…"
    dash: str = "—"


UNICODE = Glyphs()
ASCII = Glyphs(
    sep=" | ", arrows="<-/->", updown="up/down", rule="-", turn=">", more="...", dash="-"
)


@dataclass(frozen=True, slots=True)
class Look:
    """How cards are drawn: ``ascii`` (letters for suits and ASCII glyphs: no UTF-8 needed),
    ``four_colour`` (each suit its own colour, not red/black only), ``colour`` (off with
    ``NO_COLOR``)."""

    ascii: bool = False
    four_colour: bool = False
    colour: bool = True

    @property
    def g(self) -> Glyphs:
        return ASCII if self.ascii else UNICODE


_TO_ASCII = str.maketrans(
    {
        **dict(zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=True)),
        "–": "-",
        "—": "-",
        "…": "...",
        "·": "|",
        "‘": "'",
        "’": "'",
        "“": '"',
        "”": '"',
        "→": "->",
        "←": "<-",
        "×": "x",
    }
)


def plain(text: str, look: Look) -> str:
    """Text made elsewhere (the rules' descriptions, the narration's card words, the host's
    words) as the look draws it: with ``--ascii``, suit symbols as letters (``K♥`` → ``KH``)
    and dashes, ellipses and quotes as their ASCII kin."""
    return text.translate(_TO_ASCII) if look.ascii else text


def plain_text(fragments: StyledText, look: Look) -> StyledText:
    """:func:`plain` over styled text (a mouse handler, where there is one, is kept)."""
    if not look.ascii:
        return fragments
    out: StyledText = []
    for frag in fragments:
        if len(frag) == 2:
            out.append((frag[0], plain(frag[1], look)))
        else:
            out.append((frag[0], plain(frag[1], look), frag[2]))
    return out


def suit_text(suit: int, look: Look) -> str:
    return SUIT_LETTERS[suit] if look.ascii else SUIT_SYMBOLS[suit]


def card_text(card: int, look: Look) -> str:
    """``10♥`` (or ``10H`` in ASCII), ``JK`` for a joker (narrow enough for a hand row), ``?``
    for a card not known (another's, or at a dealer-blind table one of this seat's own whose
    last key is still on its way: the engine holds it as a hidden id past every card's)."""
    if card < 0 or card >= MAX_CARD:
        return "?"
    if card >= JOKER_BASE:
        return "JK"
    return format_card(card, symbols=not look.ascii)


def card_style(card: int, look: Look) -> str:
    """The style class of a card: its suit (the stylesheet colours them), or ``joker``."""
    if card < 0 or card >= MAX_CARD:
        return "class:dim"
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
    if move == CALL_TWO:
        return "call peanuckle"
    if move == DRAW:
        return "draw"
    if move == PASS:
        return "pass"
    if MIMIC_BASE <= move < MIMIC_BASE + 52:
        return f"as {card_text(move - MIMIC_BASE, look)}"
    return format_move(move)


def line_text(line: Line, look: Look, base: str = "") -> StyledText:
    """A narrated :class:`~lanswitch.narrate.Line` as styled text: cards in their suits'
    colours, ``base`` the style of the words."""
    out: StyledText = []
    for part in line.parts:
        if isinstance(part, Cards):
            for i, c in enumerate(part.ids):
                if i:
                    out.append((base, " "))
                out.append((card_style(c, look), card_text(c, look)))
        elif isinstance(part, SuitName):
            out.append((card_style(13 * part.suit, look), suit_text(part.suit, look)))
        else:
            out.append((base, plain(part, look)))
    return out


# ---------------------------------------------------------------------------------------------
# Fitting text to a width


def width(fragments: StyledText) -> int:
    """Columns ``fragments`` take on a terminal (as prompt_toolkit will draw them)."""
    return sum(get_cwidth(f[1]) for f in fragments)


_TOKENS = re.compile(r"\s+|\S+")


def _words(fragments: StyledText) -> list[tuple[StyledText, bool]]:
    """``fragments`` as a list of (pieces, is_space): a word may span several styles."""
    out: list[tuple[StyledText, bool]] = []
    for frag in fragments:
        style, text = frag[0], frag[1]
        for token in _TOKENS.findall(text):
            space = token[0].isspace()
            if out and out[-1][1] == space and not space:
                out[-1][0].append((style, token))
            else:
                out.append(([(style, token)], space))
    return out


def _cut(pieces: StyledText, room: int) -> tuple[StyledText, StyledText]:
    """``pieces`` split after ``room`` columns (a word too long for any line)."""
    head: StyledText = []
    tail: StyledText = []
    used = 0
    for frag in pieces:
        style, text = frag[0], frag[1]
        for ch in text:
            w = get_cwidth(ch)
            if used + w <= room and not tail:
                head.append((style, ch))
                used += w
            else:
                tail.append((style, ch))
    return head, tail


def wrap(fragments: StyledText, cols: int, indent: int = 0) -> list[StyledText]:
    """``fragments`` as lines of at most ``cols`` columns, broken between words (a single
    word longer than a line is the only thing ever cut); continuation lines start with
    ``indent`` spaces. Newlines in the text start new lines; a line's leading spaces stay."""
    cols = max(1, cols)
    indent = min(indent, cols // 2)
    lines: list[StyledText] = []

    def fresh() -> StyledText:
        return [("", " " * indent)] if indent else []

    for para in _split_lines(fragments):
        line: StyledText = []
        used = 0
        space: StyledText = []
        for pieces, is_space in _words(para):
            if is_space:
                if line:
                    space = pieces
                else:  # leading spaces: an indentation the text asks for
                    line, used = list(pieces), min(width(pieces), cols - 1)
                continue
            w, gap = width(pieces), width(space)
            if used + gap + w > cols and any(f[1].strip() for f in line):
                lines.append(line)
                line, used, space, gap = fresh(), indent, [], 0
            for _ in range(w + 1):  # a word longer than a line: cut where it must be
                if used + gap + w <= cols:
                    break
                head, pieces = _cut(pieces, max(1, cols - used - gap))
                lines.append(line + space + head)
                line, used, space, gap = fresh(), indent, [], 0
                w = width(pieces)
            line += space + pieces
            used += gap + w
            space = []
        lines.append(line)
    return lines


def _split_lines(fragments: StyledText) -> list[StyledText]:
    out: list[StyledText] = [[]]
    for frag in fragments:
        style, text = frag[0], frag[1]
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                out.append([])
            if part:
                out[-1].append((style, part))
    return out


def trim(lines: list[StyledText], count: int, cols: int, more: str = "…") -> list[StyledText]:
    """The first ``count`` of ``lines`` (wrapped text); when some are left out, the last one
    kept ends in ``more``, after a whole word, so the text is never cut mid-sentence unseen."""
    if len(lines) <= count:
        return lines
    if count <= 0:
        return []
    last = lines[count - 1]
    room = max(1, cols - get_cwidth(more))
    if width(last) > room:
        last = wrap(last, room)[0]
    while last and not last[-1][1].strip():  # no space before the ellipsis
        last = last[:-1]
    return [*lines[: count - 1], [*last, ("class:dim", more)]]


def clip(fragments: StyledText, cols: int, more: str = "…") -> StyledText:
    """``fragments`` cut to ``cols`` columns at a word boundary, ending in ``more`` if cut."""
    if width(fragments) <= cols:
        return fragments
    room = max(0, cols - get_cwidth(more))
    first = wrap(fragments, room)[0] if room else []
    return [*first, ("class:dim", more)]


def fitting(parts: Sequence[tuple[int, StyledText]], cols: int, sep: StyledText) -> list[int]:
    """The indices of the ``parts`` :func:`fit_parts` keeps, in order."""
    keep = list(range(len(parts)))
    for _ in range(len(parts)):
        total = sum(width(parts[i][1]) for i in keep) + width(sep) * max(0, len(keep) - 1)
        if total <= cols or len(keep) <= 1:
            break
        worst = max(keep, key=lambda i: (parts[i][0], i))
        keep.remove(worst)
    return keep


def fit_parts(parts: Sequence[tuple[int, StyledText]], cols: int, sep: StyledText) -> StyledText:
    """As many of ``parts`` as fit in ``cols`` columns, joined by ``sep``: each part has a
    rank (lower is more important) and those that do not fit are dropped, least important
    first; the order shown is the order given."""
    keep = fitting(parts, cols, sep)
    out: StyledText = []
    for n, i in enumerate(keep):
        if n:
            out += sep
        out += parts[i][1]
    return clip(out, cols)


# ---------------------------------------------------------------------------------------------
# Seats


def seat_cells(
    view: View,
    lobby: LobbyState | None,
    look: Look,
    me: int | None,
    names: Sequence[str],
    *,
    rules: RuleSet | None = None,
    left: Collection[int] = (),
) -> list[StyledText]:
    """Every player as one cell: a turn marker, the name, the cards held, what they owe. The
    cells of one table have the same width (names padded), so a grid of them lines up. A
    player not connected is "away"; one of ``left`` (a goodbye mid-hand: the host plays the
    seat to the hand's end) "quit" ("left" after the count read as "2 cards left").

    ``LAST``: the seat's call stands. The engine keeps a call through the next turn (where a
    finish needs it, the rules read it then), but to a person "last card" means one card
    held, so the tag goes once its player draws back up — except where the call is Black
    Jack's knock (``calls.timing = "on_finish"``), declared with any number of cards."""
    knock = rules is not None and rules.calls.timing == "on_finish"
    longest = max((len(n) for n in names), default=4)
    name_w = min(max(longest, 4), 14)
    cells = []
    for seat in range(len(view.counts)):
        name = names[seat] if seat < len(names) else f"seat {seat + 1}"
        turn = view.turn == seat
        marker = (look.g.turn + " ") if turn else "  "
        style = "class:turn" if turn else ("class:me" if seat == me else "")
        shown = name if len(name) <= name_w else name[: name_w - 1] + look.g.more[0]
        cell: StyledText = [(style, marker + shown.ljust(name_w))]
        if not view.active[seat]:
            # A seat dealt no cards: "empty" where nobody sits in it (the newcomer pass: "seat 4
            # out" read as a player who had gone out), "out" where its player is out of the
            # match; a seat that finished says so below.
            free = lobby is not None and seat < len(lobby.seats) and not lobby.seats[seat].name
            said = "" if seat in view.finished else "    empty" if free else "      out"
            cell.append(("class:dim", said))
        if seat in view.finished:
            cell.append(("class:good", f" done #{view.finished.index(seat) + 1}"))
        elif view.active[seat]:
            n = view.counts[seat]
            cell.append(("", f" {n:>2} card{'s' if n != 1 else ' '}"))
            if seat < len(view.declared) and view.declared[seat] and (n == 1 or knock):
                cell.append(("class:warn", " LAST"))
            if seat < len(view.missed) and view.missed[seat]:
                cell.append(("class:dim", f" misses {view.missed[seat]}"))
            if lobby is not None and seat < len(lobby.seats) and not lobby.seats[seat].connected:
                cell.append(("class:warn", " quit" if seat in left else " away"))
        cells.append(cell)
    return cells
