"""The power cards in a player's words (``lanswitch/powers.py``): every field of a power row
has its words, the help's card of the table's power cards (``?``, issue 26 item 10) fits the
screen at 80×24 and 60×15 for every preset, and the game log on the screen tells a Queen that
must be covered — and whether it was (issue 26 item 7)."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import pytest

from lanswitch.host import HostConfig
from lanswitch.powers import EFFECT_FIELDS, QUALIFIERS, effect_words, power_card, row_words
from lanswitch.rules import PRESETS, Power
from lanswitch.tui.model import TuiModel
from lanswitch.tui.render import Look, plain
from tests.tablenet import TableNet
from tests.test_tui import log_text, screen_text, tui_at


def test_every_field_of_a_power_row_has_words() -> None:
    """A row is told by the clauses of its fields, so a new row of known fields is explained
    without new words; a new field is either an effect with words or qualifies one."""
    names = {f.name for f in fields(Power)}
    assert names == set(EFFECT_FIELDS) | set(QUALIFIERS), names ^ (
        set(EFFECT_FIELDS) | set(QUALIFIERS)
    )
    rules = PRESETS["switch"]
    plain = Power(name="x", cards=("3",))
    assert row_words(plain, rules) == []
    setting: dict[str, Any] = {"pickup": 3, "skip": 1, "cover": "suit", "stacks_on": ("two",)}
    setting |= {"cancels": ("black_jack",), "returns": ("two",)}
    for name in EFFECT_FIELDS:
        row = replace(plain, **{name: setting.get(name, True)})
        assert effect_words(row, name, rules), name
    for name, told_with in QUALIFIERS.items():
        assert told_with in ("", *EFFECT_FIELDS), name


def test_the_card_of_power_cards_in_words() -> None:
    """One line per row, its cards then what they do: the Queen the games night met."""
    lines = power_card(PRESETS["blackjack"])
    assert len(lines) == len(PRESETS["blackjack"].power)
    assert (
        "A Queen: must be covered by a card of its suit in the same turn, or its player "
        "draws a card" in lines
    )
    assert "A red Jack: it cancels a pick-up from a 2 or a black Jack" in lines
    switch = power_card(PRESETS["switch"])
    assert switch[0] == "A 2: the next player picks up 2; it adds to a pick-up from a 2"
    assert (
        "A red Jack: it cancels 5 of a pick-up from a black Jack; several may be laid in "
        "one turn" in switch
    )
    irish = power_card(PRESETS["irish"])
    assert "A 7: the next player misses a turn; it passes on a skip from a 7" in irish
    assert "Q♥: it sends a pick-up from K♥ back to whoever laid it" in power_card(PRESETS["black5"])


def _help_pages(model: TuiModel, cols: int, rows: int) -> str:
    """Every page of the help at ``cols``×``rows`` (each checked to fit), as one text."""
    model.open("help")
    seen: list[str] = []
    for page in range(40):
        model.scroll = page * (rows - 2)
        screen = screen_text(model, cols, rows)
        seen += screen[1:-1]
        if "more lines below" not in screen[0]:
            break
    else:
        pytest.fail("the help did not end within 40 pages")
    model.overlay = None
    return " ".join(" ".join(seen).split())


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_help_shows_the_tables_power_cards_at_80x24_and_60x15(preset: str) -> None:
    rules = PRESETS[preset]
    net = TableNet(HostConfig(name="T", rules=rules, seats=3, bots=2, hands=None), seed=2)
    for look in (Look(), Look(ascii=True)):
        model, _ = tui_at(net, name="ann" if not look.ascii else "bob", look=look)
        for cols, rows in ((80, 24), (60, 15)):
            shown = _help_pages(model, cols, rows)
            assert f"Power cards ({preset})" in shown
            for line in power_card(rules):
                words = plain(line, look)  # K♥ as KH with --ascii
                assert words in shown, (preset, cols, rows, words)
            assert "r ready" in shown  # the lobby's keys are still there (not a hand's d)
            assert "d draw" not in shown


def test_the_log_tells_a_queen_to_cover_and_whether_it_was() -> None:
    """Issue 26, item 7: a Black Jack table's log read "bot 1 plays Q♦ / bot 1 draws a card".
    On the screen of a player at a table of bots, every Queen laid is now followed by the
    must-cover line, and then by the card that covered it or the draw that did not."""
    net = TableNet(
        HostConfig(name="T", rules=PRESETS["blackjack"], seats=3, bots=2, bot_delay=0.0),
        seed=4,
    )
    link = net.join("ann", auto_ready=True)  # ann's seat is played by a bot too
    model = TuiModel(link.session, send=lambda m: net.send(link, m))
    covered = uncovered = 0
    for _ in range(400):  # the first hand, reading the log as it grows
        for _ in range(200):
            if not net.step():
                break
        model.update()
        if link.session.history:
            break
    assert link.session.history, "the hand did not end"
    log = log_text(model)
    for i, line in enumerate(log):
        if " plays Q" not in line or "covering" in line:
            continue
        queen = line.split(" plays ")[1].split()[0]
        assert log[i + 1].startswith(f"{queen} must be covered by a {queen[-1]}"), log[i : i + 3]
        after = log[i + 2 :]
        outcome = next(x for x in after if f"covering {queen}" in x or f"cover {queen} " in x)
        covered += "covering" in outcome
        uncovered += "did not cover" in outcome
    assert covered, log
    assert uncovered, log
