"""Every screen of the terminal client, composed for the window's size.

:func:`compose` turns the model into exactly the lines a ``cols`` × ``rows`` window shows. Each
screen is built from fixed parts — the title, the hand, the prompt, the keys that matter — and
parts that give way when the window is small: the log shrinks first (to nothing), then the
seat grid (to one line, then none; the prompt still says whose turn it is), then the rules'
description. Nothing is cut mid-word (:func:`~lanswitch.tui.render.wrap`); below
:data:`MIN_COLS` × :data:`MIN_ROWS` the screen asks for a bigger window instead.

Pure over the model: ``tests/test_tui.py`` checks every screen at several sizes as text, and
``tests/scenarios/test_tmux.py`` in a real terminal.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from .. import protocol as p
from ..game import View
from ..handcheck import lone_person
from ..narrate import ending
from ..rules import PRESETS
from ..table import waiting_line
from ..tls import fingerprint_words
from .keybar import PAGES, key_bar
from .log import record_fair, verdict_line
from .model import TuiModel
from .pages import details_lines, help_lines
from .prompts import prompt
from .render import (
    Look,
    StyledText,
    card_style,
    card_text,
    clip,
    fit_parts,
    line_text,
    move_text,
    plain,
    seat_cells,
    suit_text,
    trim,
    width,
    wrap,
)
from .scoreboard import match_lines, result_lines

__all__ = ["MIN_COLS", "MIN_ROWS", "PAGES", "compose", "key_bar"]

MIN_COLS = 40
MIN_ROWS = 10
"""The smallest window every screen fits: the hand, the prompt and the keys that matter."""


def compose(
    model: TuiModel, cols: int, rows: int, *, title: str = "lanswitch", where: str = ""
) -> list[StyledText]:
    """The lines of the screen (at most ``rows``, none wider than ``cols``)."""
    if cols < MIN_COLS or rows < MIN_ROWS:
        return _too_small(cols, rows)
    footer = key_bar(model, cols, rows)
    if model.overlay in PAGES:
        return _pager(model, cols, rows)
    header = [_header(model, cols, title, where)]
    room = rows - 1 - len(footer)
    screen = model.screen
    if screen == "table":
        body = _table(model, cols, room)
    elif screen == "over":
        body = _over(model, cols, room)
    elif screen == "lobby":
        body = _lobby(model, cols, room, where)
    elif screen == "closed":
        body = _closed(model, cols, room)
    else:
        body = [[], [("", "  Connecting to the table…")]]
    body = body[:room]
    body += [[] for _ in range(room - len(body))]
    return [*header, *body, *footer]


# ---------------------------------------------------------------------------------------------
# Fixed parts


def _too_small(cols: int, rows: int) -> list[StyledText]:
    text: StyledText = [
        ("class:warn", f"Make the window at least {MIN_COLS}x{MIN_ROWS}"),
        ("", f" (it is {cols}x{rows})."),
    ]
    return wrap(text, max(cols, 1))[: max(rows, 1)]


def _header(model: TuiModel, cols: int, title: str, where: str) -> StyledText:
    s = model.session
    lobby = s.lobby
    # Where the window is narrow the least needed part gives way first (the highest rank):
    # the program's name, the rules, the table's name before the address a host reads out
    # to a friend (the newcomer pass: at 60 columns the host lost its address in a hand).
    parts: list[tuple[int, StyledText]] = [(6, [("class:title", title)])]
    if where:
        parts.append((2, [("class:title", f"hosting on {where}")]))
    if lobby is not None:
        parts.append((3, [("class:title", lobby.table)]))
        parts.append((4, [("class:title", lobby.rules)]))
        if lobby.blind:
            parts.append((4, [("class:title", "dealer-blind")]))
    h = s.hand
    if h is not None and h.over is None:
        parts.append((1, [("class:title", f"hand {h.message.hand_no}")]))
    elif lobby is not None and lobby.hands:
        n = lobby.hands
        parts.append((2, [("class:title", f"{n} hand{'s' if n != 1 else ''} played")]))
    left = model.seconds_left()
    if left is not None and model.screen == "table" and model.session.paused is None:
        turn = "your" if s.my_turn() else "their"
        parts.append((0, [("class:warn", f"{turn} time: {left}s")]))
    lost = model.lost_for()
    if lost is not None:
        paused = model.session.paused is not None
        what = "host stopped the table, waiting" if paused else "host lost, reconnecting"
        parts.append((0, [("class:bad", f"{what}{model.look.g.more} ({lost} s)")]))
    sep: StyledText = [("class:title", model.look.g.sep)]
    line = fit_parts(parts, cols, sep)
    return [*line, ("class:title", " " * max(0, cols - width(line)))]


def _log_lines(model: TuiModel, cols: int, room: int) -> list[StyledText]:
    """The newest lines of the log that fit in ``room`` rows (long lines wrap)."""
    if room <= 0:
        return []
    out: list[StyledText] = []
    for entry in reversed(model.log):
        rows = wrap([("", "  "), *entry.text], cols, indent=4)
        if len(out) + len(rows) > room:  # only whole lines: never the tail of one
            if not out:  # the newest alone is too long: its start
                out = trim(rows, room, cols, model.look.g.more)
            break
        out[:0] = rows
    return out


def _squeeze(
    top: list[StyledText],
    seats: Sequence[list[StyledText]],
    bottom: list[StyledText],
    model: TuiModel,
    cols: int,
    room: int,
) -> list[StyledText]:
    """``top`` (may lose lines from its end if it must), the first of the ``seats`` forms that
    fits (the grid, one line, none), the log in what is left, then ``bottom`` (never cut)."""
    room_above = room - len(bottom)
    chosen: list[StyledText] = []
    for form in seats:
        if len(top) + len(form) <= room_above:
            chosen = list(form)
            break
    head = (top + chosen)[: max(0, room_above)]
    log = _log_lines(model, cols, room_above - len(head))
    gap: list[StyledText] = [[] for _ in range(room_above - len(head) - len(log))]
    return [*head, *gap, *log, *bottom]  # the log's newest line just above the hand


# ---------------------------------------------------------------------------------------------
# The table


def _table(model: TuiModel, cols: int, room: int) -> list[StyledText]:
    s = model.session
    v = s.view
    assert v is not None
    look = model.look
    names = model.hand_names()
    me = v.seat
    left = model.left_seats()
    grid = seat_grid(seat_cells(v, s.lobby, look, me, names, rules=s.rules, left=left), cols)
    compact: StyledText = [("", " ")]
    for seat in range(len(v.counts)):
        mark = look.g.turn if v.turn == seat else ""
        style = "class:turn" if v.turn == seat else ("class:me" if seat == me else "")
        name = names[seat] if seat < len(names) else f"seat {seat + 1}"
        if seat:
            compact.append(("class:dim", look.g.sep))
        compact.append((style, f"{mark}{name[:10]} {v.counts[seat]}"))
    seats_forms = [grid, [clip(compact, cols)], []]

    top: list[StyledText] = [_table_line(model, cols)]
    bottom: list[StyledText] = []
    if not model.watching:
        bottom += _hand_lines(model, cols)
    if model.watching:
        bottom += _watching_lines(model, cols)
    else:
        spot = model.spot()
        assert spot is not None
        asked = wrap([("", "  "), *prompt(spot)], cols, indent=4)
        bottom += asked[:2] if len(asked) <= 2 else [*asked[:1], clip(asked[1] + asked[2], cols)]
    for said in _away_lines(model):
        bottom.append(clip([("class:warn", f"  {said}")], cols))
    if model.hint is not None and not model.status:  # h: the move and why, in two lines
        words = [("class:advice", "  hint: "), *line_text(model.hint, look, "class:advice")]
        advice = wrap(words, cols, indent=4)
        bottom += advice[:1] if len(advice) == 1 else [advice[0], clip(advice[1], cols)]
    else:
        reason = plain(model.status or model.pointed_reason(), model.look)
        if reason:
            bottom.append(clip([("class:warn", f"  {reason}")], cols))
    return _squeeze(top, seats_forms, bottom, model, cols, room)


def seat_grid(cells: list[StyledText], cols: int) -> list[StyledText]:
    """The seats' cells in rows of up to four (the table's, and ``lanswitch replay``'s)."""
    cell_w = max(width(c) for c in cells) + 3 if cells else 1
    per_row = max(1, min(len(cells), (cols - 2) // cell_w, 4))
    grid: list[StyledText] = []
    for i in range(0, len(cells), per_row):
        line: StyledText = [("", " ")]
        for cell in cells[i : i + per_row]:
            line += [*cell, ("", " " * (cell_w - width(cell)))]
        grid.append(clip(line, cols))
    return grid


def _away_lines(model: TuiModel) -> list[str]:
    """A line per player away mid-hand, counting down to what the host does when its grace
    runs out: a stand-in plays the seat (commit-reveal), or the hand stops when it needs the
    player (dealer-blind: the host cannot play cards it cannot see)."""
    h = model.session.hand
    blind = h is not None and h.message.blind
    lines = []
    for name, left in model.away():
        if blind:
            then = f"the hand stops when it needs {name}"
            said = f"back within {left} s, or {then}" if left else then
            lines.append(f"{name} is away: {said}")
        elif left is not None:
            lines.append(f"{name} is away: a stand-in plays in {left} s unless {name} is back")
        else:
            lines.append(f"{name} is away: the host plays the seat until {name} is back")
    # A goodbye is not repeated here: the log said it ("bob left the table: the host plays
    # the seat for the rest of the hand") and the seat's cell says "quit" to the hand's end.
    return lines


def _table_line(model: TuiModel, cols: int) -> StyledText:
    v = model.session.view
    assert v is not None
    return table_line(v, model.look, cols)


def table_line(v: View, look: Look, cols: int) -> StyledText:
    """The top card, the named suit, the stock, the pile and the direction, as fits (the
    table's, and ``lanswitch replay``'s: tui/replay.py)."""
    top: StyledText = [("", " top ")]
    if v.top >= 0:
        shown = v.top_face if v.top_face >= 0 else v.top
        top.append((card_style(shown, look) + " class:legal", f"[{card_text(v.top, look)}]"))
        if v.top_face >= 0 and v.top_face != v.top:
            top.append(("class:dim", f" as {card_text(v.top_face, look)}"))
    parts: list[tuple[int, StyledText]] = [(0, top)]
    if v.named_suit >= 0:
        parts.append(
            (
                0,
                [
                    ("", "suit "),
                    (card_style(13 * v.named_suit, look), suit_text(v.named_suit, look)),
                ],
            )
        )
    if v.free:
        parts.append((1, [("class:dim", "any card")]))
    parts.append((2, [("class:dim", f"stock {v.stock}")]))
    parts.append((4, [("class:dim", f"pile {v.discard}")]))
    way = "clockwise" if v.direction >= 0 else "anticlockwise"
    parts.append((3, [("class:dim", way)]))
    return fit_parts(parts, cols, [("class:dim", look.g.sep)])


def _hand_lines(model: TuiModel, cols: int) -> list[StyledText]:
    """The hand (or the choices a card asks for), wrapped: never cut, whatever the width."""
    s = model.session
    v = s.view
    assert v is not None
    look = model.look
    legal = model.legal()
    choices = model.choices()
    out: StyledText = []
    if choices:
        out.append(("class:turn", "  choose: "))
        for i, m in enumerate(choices):
            style = "class:cursor" if i == model.cursor else "class:legal"
            out += [(style, f" {move_text(m, look)} "), ("", " ")]
        return wrap(out, cols, indent=4)
    out.append(("", "  hand: "))
    mine = s.my_turn()
    for i, c in enumerate(v.hand):
        style = card_style(c, look)
        style += " class:legal" if c in legal else (" class:illegal" if legal else "")
        if i == model.cursor and mine:
            style += " class:cursor"
        if c in model.selected:
            style += " class:selected"
        # The order a marked card is laid in, in brackets: "(1)3♣", never "13♣" (a rank).
        mark = f"({model.selected.index(c) + 1})" if c in model.selected else " "
        out += [("class:turn", mark), (style, card_text(c, look)), ("", " ")]
    if not v.hand:
        out.append(("class:dim", "(no cards)"))
    return wrap(out, cols, indent=8)


def _watching_lines(model: TuiModel, cols: int) -> list[StyledText]:
    """A spectator's, or a waiting player's, line in place of the hand and the prompt."""
    spot = model.spot()
    turn = prompt(spot) if spot is not None else []
    sep = model.look.g.sep
    return wrap([("class:dim", f"  {_seatless(model)}{sep}"), *turn], cols, indent=4)[:2]


def _seatless(model: TuiModel) -> str:
    """Why this client has no seat, and when it gets one."""
    s = model.session
    if s.spectate:
        return "you are watching"
    lobby = s.lobby
    seats = lobby.seats if lobby is not None else ()
    # The seat the host gives when the hand ends (``Table.seat_for_person``): a free one,
    # else — unless a player who is away may give one up — its last bot's; in the host's own
    # line's words (``table.waiting_line``).
    bots = [st.name for st in seats if st.bot]
    free = next((i for i, st in enumerate(seats) if not st.name), None)
    away = any(st.name and not st.bot and not st.connected for st in seats)
    then = None
    if lobby is not None and lobby.playing:
        if free is not None:
            then = f"seat {free + 1}"
        elif bots and not away:
            then = f"{bots[-1]}'s seat"
    return waiting_line("you", then=then, away=away, you=True)


# ---------------------------------------------------------------------------------------------
# The end of a hand


def _ended(model: TuiModel) -> tuple[int, p.HandOver, list[str], int | None]:
    """The hand that is over: its number, how it ended, the seats' names, this seat."""
    s = model.session
    h = s.hand
    assert h is not None
    assert h.over is not None
    me = s.view.seat if s.view is not None else None
    return h.message.hand_no, h.over, model.hand_names(), me


def _over(model: TuiModel, cols: int, room: int) -> list[StyledText]:
    s = model.session
    hand_no, over, names, me = _ended(model)
    told = plain(ending(over.reason, names, over.placings, me=me), model.look)
    top: list[StyledText] = wrap([("class:title", f"  Hand {hand_no} is over: {told}")], cols)
    top.append([])
    top += result_lines(model, cols)  # the placings and the match so far: tui/scoreboard.py
    record = s.history[-1] if s.history and s.history[-1].hand_no == hand_no else None
    top.append([])
    if record is None:
        top.append([("class:dim", "  checking the deal…")])
    else:
        fair = record_fair(record) is True
        line = plain(verdict_line(record).split(": ", 1)[-1], model.look)
        top += wrap([("class:good" if fair else "class:bad", f"  {line}")], cols, indent=4)[:3]
    return _squeeze(top, [[]], [], model, cols, room)


# ---------------------------------------------------------------------------------------------
# The lobby


def _lobby(model: TuiModel, cols: int, room: int, where: str) -> list[StyledText]:
    s = model.session
    lobby = s.lobby
    assert lobby is not None
    rules = (
        s.rules if s.rules is not None and s.rules.name == lobby.rules else PRESETS.get(lobby.rules)
    )
    sep = model.look.g.sep
    blind = f"{sep}dealer-blind" if lobby.blind else ""
    # How the bots play and whether hints are allowed: the host's to set (with the keys its
    # lobby names here), every player's to know before the hand.
    k, h = (" (k)", " (H)") if model.powers is not None else ("", "")
    allowed = "allowed" if lobby.hints else "off"
    table = f"bots play: {lobby.bot_level}{k}{sep}hints: {allowed}{h}"
    title: StyledText = [("class:title", f"  Rules: {lobby.rules}{blind}")]
    beside = [*title, ("class:dim", f"{sep}{table}")]
    top: list[StyledText] = [beside if width(beside) <= cols else title]
    about: list[StyledText] = []
    if lobby.blind:  # what it means, before the rules' description (both give way alike)
        about += wrap(
            [("class:dim", "  Dealer-blind: the host cannot see any card it is not dealt.")],
            cols,
            indent=4,
        )
        lone = lone_person(lobby)
        if lone is not None:  # what it does not hide here, said before the hand (fairness.md)
            who = "you are" if lone == s.seat else f"{lobby.seats[lone].name} is"
            whose = "your" if lone == s.seat else f"{lobby.seats[lone].name}'s"
            about += wrap(
                [
                    (
                        "class:warn",
                        f"  But {who} the only player the host does not seat, so it can tell "
                        f"{whose} cards by elimination whenever the stock runs out.",
                    )
                ],
                cols,
                indent=4,
            )
    if top[0] is title:  # no room beside the rules: a line of its own, that gives way
        about += wrap([("class:dim", f"  {table[:1].upper()}{table[1:]}")], cols, indent=4)
    # The description: whole where the window has room (Black Jack's takes four lines at 80
    # columns, and three cut it mid-list: issue 26), six lines at most.
    most = len(about) + 6
    if rules is not None and rules.description:
        described = plain(rules.description, model.look)  # the preset files write K♥: KH in ASCII
        about += wrap([("class:dim", f"  {described}")], cols, indent=2)
    seats = _seat_rows(model, cols)
    notes = _lobby_notes(model, cols)
    words = _fingerprint_lines(model, cols)
    join = _join_lines(model, cols, where, room)
    # The description gives way before the seats and the notes do (cut, it ends after a
    # whole word with an ellipsis).
    fixed = 1 + 1 + len(seats) + 1 + len(notes) + len(words) + len(join)
    top += trim(about, min(most, room - fixed - 2), cols, model.look.g.more)
    top += [[], *seats, [], *notes]
    if len(top) + len(words) <= room:  # the fingerprint's words whole, or not at all
        top += words
    top += _join_lines(model, cols, where, room - len(top))  # whole, in a form that fits
    return _squeeze(top, [[]], [], model, cols, room)


def _seat_rows(model: TuiModel, cols: int) -> list[StyledText]:
    s = model.session
    lobby = s.lobby
    assert lobby is not None
    # The rules in play: the hand's, else the preset the lobby names (a friend who joined
    # between hands has seen no hand yet); None: a rules file's, its unit unknown here.
    rules = s.rules if s.rules is not None else PRESETS.get(lobby.rules)
    # The match so far is the host's word (the lobby's scores: points, or hands won under
    # rules that keep no points), not the hands this client happened to see: counted from its
    # own history, a spectator who came after hand 1 saw wrong win counts.
    by_wins = rules is not None and rules.scoring.mode == "none"
    name_w = min(max((len(st.name) for st in lobby.seats), default=6), 24)
    name_w = max(name_w, 6)
    out: list[StyledText] = []
    for i, seat in enumerate(lobby.seats):
        me = i == s.seat
        name = seat.name or "(free)"
        state = "bot" if seat.bot else ("ready" if seat.ready else "not ready")
        if seat.name and not seat.bot and not seat.connected:
            state = "away"
        if not seat.name:
            state = ""
        tally = ""
        if i < len(lobby.scores) and rules is not None and not by_wins:
            tally = f"{lobby.scores[i]:>5} pts"
        elif i < len(lobby.scores) and by_wins and seat.name:
            tally = f"{lobby.scores[i]:>3} won"
        style = "class:me" if me else ("class:dim" if not seat.name else "")
        text = f"   {i + 1}  {name[:name_w]:<{name_w}}  {state:<9}  {tally}".rstrip()
        out.append(clip([(style, text + ("  (you)" if me else ""))], cols))
    return out


def _lobby_notes(model: TuiModel, cols: int) -> list[StyledText]:
    """What to do now, who waits: a few lines under the seats."""
    s = model.session
    lobby = s.lobby
    assert lobby is not None
    out: list[StyledText] = []
    empty = sum(1 for st in lobby.seats if not st.name)

    def say(text: str, style: str = "") -> None:
        out.extend(wrap([(style, f"  {text}")], cols, indent=4))

    last = s.history[-1] if s.history else None
    if last is not None and model.watching and last.over.placings:
        names = list(last.names)
        say(
            plain(
                f"Hand {last.hand_no}: {ending(last.over.reason, names, last.over.placings)}.",
                model.look,
            ),
            "class:dim",
        )
    if s.seat is None:
        say(_seatless(model)[0].upper() + _seatless(model)[1:] + ".", "class:warn")
    elif not lobby.seats[s.seat].ready:
        say("Press r when you are ready to play.", "class:warn")
    else:
        say(
            "Ready. The hand starts when every seat is filled and every player is ready.",
            "class:good",
        )
    if empty:
        more = (
            f"{empty} seat{'s' if empty != 1 else ''} wait{'s' if empty == 1 else ''} for friends"
        )
        say(
            more + ("; s starts now with bots in them." if model.powers is not None else "."),
            "class:dim",
        )
    if lobby.spectators:
        say(f"{lobby.spectators} watching.", "class:dim")
    if model.powers is not None:
        said, hands = model.power_said
        if said and hands == lobby.hands:  # what the last b, x, g or f did, or why not
            say(said[0].upper() + said[1:] + ".", "class:dim")
        for line in model.powers.waiting():
            say(line + ".", "class:warn")
    return out


def _join_lines(model: TuiModel, cols: int, where: str, room: int) -> list[StyledText]:
    """How friends join (the host's screen), in the longest form that fits ``room`` lines:
    ``lanswitch join`` lists the tables on the network to pick from; the table's name or its
    address go straight to it; at a table with a password, join asks for it — said in every
    form, for a friend who is not told is refused (at 60x15 the long form lost its last line,
    the password's)."""
    lobby = model.session.lobby
    if model.powers is None or not where or lobby is None:
        return []
    name = _shell_word(lobby.table)
    asked = " It asks them for the table's password." if model.powers.locked() else ""
    forms = (
        f"  Friends join with: lanswitch join, then pick {lobby.table} from the list "
        f"(or: lanswitch join {name}, or: lanswitch join {where}).{asked}",
        f"  Friends join with: lanswitch join, then pick {lobby.table} (or: lanswitch join "
        f"{where}).{asked}",
        f"  Friends join with: lanswitch join, then pick {lobby.table}.{asked}",
    )
    lines: list[StyledText] = []
    for text in forms:
        lines = wrap([("class:dim", text)], cols, indent=4)
        if len(lines) <= room:
            return lines
    return []  # no room for the shortest: the seats and notes come first


def _shell_word(text: str) -> str:
    """``text`` as one word for a shell: in double quotes (``"ann's table"``, as a person
    types it) unless it holds a character a shell reads inside them, else quoted by shlex."""
    if text and not any(c in text for c in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def _fingerprint_lines(model: TuiModel, cols: int) -> list[StyledText]:
    """The words of the table's certificate fingerprint (the ones friends compare), every word
    shown whole: the explanation after them shortens, then goes, as the window narrows."""
    if not model.fingerprint:
        return []
    words = fingerprint_words(model.fingerprint)
    own = model.powers is not None  # our own table: friends joining see these words
    head = "Table fingerprint" if own else "Host fingerprint"
    whys = (
        ("(friends joining see the same words)", "(friends see the same)", "")
        if own
        else ("(the words the host's screen shows)", "(as the host's screen shows)", "")
    )
    for why in whys:  # on one line, if it fits
        line: StyledText = [("class:dim", f"  {head}: "), ("", words)]
        line += [("class:dim", f" {why}")] if why else []
        if width(line) <= cols:
            return [line]
    for why in whys:  # else the words on a line of their own (wrapped only if they must)
        first: StyledText = [("class:dim", f"  {head}" + (f" {why}" if why else "") + ":")]
        if width(first) <= cols:
            break
    return [*wrap(first, cols, indent=4), *wrap([("", f"    {words}")], cols, indent=4)]


# ---------------------------------------------------------------------------------------------
# Closed, help, verdict


def _closed(model: TuiModel, cols: int, room: int) -> list[StyledText]:
    s = model.session
    reason = s.close_reason
    if model.failure is not None:  # one sentence: the cause, and what to do
        said = model.failure.rstrip(".")
        text = f"{said[:1].upper()}{said[1:]}."
    else:
        said = getattr(reason, "reason", "") or getattr(reason, "text", "")
        text = f"The host ended the table: {said}" if said else "The table is closed."
        if isinstance(reason, p.Error) and reason.code is p.ErrorCode.SHUTDOWN and said:
            text = said[0].upper() + said[1:]  # a whole line of the host's (hosting.py)
    top: list[StyledText] = [
        [],
        *wrap([("class:warn", f"  {text}")], cols, indent=4),
        [],
        [("", "  Press Enter to leave.")],
    ]
    return _squeeze(top, [[]], [], model, cols, room)


def _pager(model: TuiModel, cols: int, rows: int) -> list[StyledText]:
    """A full-screen page of text (help, the verdict) that wraps to the width and scrolls."""
    if model.overlay == "help":
        heading, source = "Keys", help_lines(model)  # tui/pages.py
    elif model.overlay == "match":
        heading, source = "The match", match_lines(model)  # tui/scoreboard.py
    else:
        s = model.session
        n = s.history[-1].hand_no if s.history else 0
        heading, source = f"The verdict of hand {n}", details_lines(model)
    body: list[StyledText] = []
    for line in source:
        body += wrap(line, cols, indent=4) if line else [[]]
    room = rows - 2
    model.scroll = max(0, min(model.scroll, len(body) - room))
    shown = body[model.scroll : model.scroll + room]
    more = len(body) - model.scroll - room
    title = f" {heading}" + (f" ({more} more lines below)" if more > 0 else "")
    header = clip([("class:title", title)], cols)
    header.append(("class:title", " " * max(0, cols - width(header))))
    shown += [[] for _ in range(room - len(shown))]
    return [header, *shown, *key_bar(model, cols)]
