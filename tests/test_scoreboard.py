"""The match scoreboard (lanswitch/tui/scoreboard.py): each player's total against the target,
who leads and how far from the target — under a hand's result and on ``m`` — checked on the
screen as text (the in-process table of tests/tablenet.py) and in a real terminal (tmux)."""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from lanswitch import protocol as p
from lanswitch.game import DRAW
from lanswitch.host import HostConfig
from lanswitch.rules import PRESETS
from lanswitch.tui.keys import KEYS, hints
from lanswitch.tui.model import TuiModel
from lanswitch.tui.pages import help_lines
from lanswitch.tui.scoreboard import board
from tests.scenarios.test_tmux import play_by_keys
from tests.tablenet import TableNet
from tests.terminal import Tmux
from tests.test_tui import play_out_the_hand, screen_text, text, tui_at


def a_hand_over(preset: str, seed: int = 6) -> tuple[TableNet, TuiModel]:
    """ann and two bots play one hand of ``preset``; ann's model on the result screen."""
    net = TableNet(
        HostConfig(name="T", rules=PRESETS[preset], seats=3, bots=2, bot_delay=0.0), seed=seed
    )
    model, _ = tui_at(net)
    net.send(net.links[1], p.Ready(ready=True))
    play_out_the_hand(net, model)
    assert model.screen == "over"
    return net, model


def play_hand(net: TableNet, model: TuiModel, hand_no: int) -> None:
    """Play ann's seat by the model's keys until hand ``hand_no`` is over and checked (as
    tests/test_tui.py's play_out_the_hand, for a hand after the first)."""
    s = model.session

    def checked() -> bool:
        return bool(s.history) and s.history[-1].hand_no == hand_no

    for _ in range(3000):
        net.run(lambda: s.my_turn() or checked(), steps=20_000)
        model.update()
        if model.screen == "over" and checked():
            return
        legal = model.legal()
        cards = [c for c in model.hand() if c in legal]
        if cards:
            model.cursor = list(model.hand()).index(cards[0])
            model.enter()
        elif model.choices():
            model.enter()
        else:
            model.draw() if DRAW in legal else model.pass_turn()
    raise AssertionError(f"hand {hand_no} did not end")


def page_row(page: list[str], name: str) -> str:
    """The row of the match page for the player ``name`` (it begins with the place)."""
    return next(line for line in page if re.match(rf"\s+(\d+(st|nd|rd|th)|out) {name} ", line))


def result_rows(lines: list[str]) -> tuple[str, list[str]]:
    """The placings table's head and rows, as drawn."""
    head = next(line for line in lines if "cards left" in line)
    rows = [line for line in lines if line.strip()[:2].rstrip(".").isdigit()]
    return head, rows


def column(head: str, row: str, label: str) -> int:
    """The right-aligned figure under ``label`` in ``row``."""
    end = head.index(label) + len(label)
    return int(row[:end].split()[-1])


@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (60, 15)])
def test_the_result_of_a_scored_hand_shows_the_match_total_and_the_target(
    cols: int, rows: int
) -> None:
    """Issue 26 item 9: two-four-jack's end screen showed "points" (the hand's) and no match
    total or target. Now: what the hand scored, the match total, and the match in a sentence."""
    _, model = a_hand_over("two-four-jack")
    s = model.session
    over = s.hand.over  # type: ignore[union-attr]
    assert over is not None
    lobby = s.lobby
    assert lobby is not None
    lines = screen_text(model, cols, rows)
    head, table = result_rows(lines)
    assert "scored" in head
    assert "match" in head
    names = model.hand_names()
    for row, seat in zip(table, over.placings, strict=True):
        assert names[seat] in row
        assert column(head, row, "scored") == over.scores[seat]
        assert column(head, row, "match") == lobby.scores[seat]
    leader = max(range(3), key=lambda i: lobby.scores[i])
    said = " ".join(line.strip() for line in lines)
    assert f"Match to 500: {names[leader]} leads with {lobby.scores[leader]}," in said, lines
    assert f"{500 - lobby.scores[leader]} to go" in said, lines


def test_the_match_total_adds_up_over_two_hands() -> None:
    net, model = a_hand_over("two-four-jack")
    s = model.session
    first = s.hand.over.scores  # type: ignore[union-attr]
    model.enter()  # ready for the next hand
    play_hand(net, model, 2)
    assert s.hand is not None
    assert s.hand.message.hand_no == 2
    second = s.hand.over.scores  # type: ignore[union-attr]
    head, table = result_rows(screen_text(model, 80, 24))
    for row, seat in zip(table, s.hand.over.placings, strict=True):  # type: ignore[union-attr]
        assert column(head, row, "match") == first[seat] + second[seat]
    assert sum(first) > 0  # both hands scored: the sum is a real test
    assert sum(second) > 0


def test_the_result_counts_the_hand_before_the_lobby_that_counts_it_arrives() -> None:
    """The hand's result reaches the client before the lobby with the new totals (the host
    sends that lobby once the hand is settled, after every check): until then the board adds
    the hand itself, so the total never leaves out the hand above it. The client's state in
    that moment: the result, and the lobby the host sent before the first hand (no scores)."""
    _, model = a_hand_over("two-four-jack")
    s = model.session
    over = s.hand.over  # type: ignore[union-attr]
    assert over is not None
    assert s.lobby is not None
    settled = {st.seat: st.total for st in board(model).standings}  # type: ignore[union-attr]
    s.lobby = replace(s.lobby, hands=0, scores=())  # as it was before the hand was settled
    b = board(model)
    assert b is not None
    assert {st.seat: st.total for st in b.standings} == dict(enumerate(over.scores)) == settled
    head, table = result_rows(screen_text(model, 80, 24))
    for row, seat in zip(table, over.placings, strict=True):
        assert column(head, row, "match") == over.scores[seat]


def test_penalty_scoring_leads_with_the_fewest_and_says_what_each_has_to_spare() -> None:
    _, model = a_hand_over("black5")
    lobby = model.session.lobby
    assert lobby is not None
    b = board(model)
    assert b is not None
    assert [st.total for st in b.standings] == sorted(lobby.scores)
    said = " ".join(screen_text(model, 80, 24))
    assert "Match, out at 301:" in said
    model.open("match")
    page = screen_text(model, 80, 24)
    assert page[0].strip() == "The match"
    names = model.hand_names()
    for seat, total in enumerate(lobby.scores):
        row = page_row(page, names[seat])
        assert f"{301 - total} to spare" in row, row


def test_rules_without_scores_count_hands_won() -> None:
    _, model = a_hand_over("switch")
    over = model.session.hand.over  # type: ignore[union-attr]
    assert over is not None
    lines = screen_text(model, 80, 24)
    head, table = result_rows(lines)
    assert "hands won" in head
    assert "scored" not in head
    assert [column(head, r, "hands won") for r in table] == [1, 0, 0]
    winner = model.hand_names()[over.placings[0]]
    assert f"Most hands won: {winner} leads with 1." in " ".join(lines)


def test_m_shows_the_match_at_the_table_and_help_lists_it() -> None:
    net, model = a_hand_over("two-four-jack")
    key = next(k for k in KEYS if k.keys == ("m",))
    assert "m match" in [h for _, h in hints(model)]
    assert any("m match" in text(line) for line in help_lines(model))
    model.enter()  # to the next hand
    s = model.session
    net.run(lambda: s.my_turn(), steps=20_000)
    model.update()
    assert model.screen == "table"
    assert model.screen in key.screens
    key.action(model)
    page = screen_text(model, 60, 15)
    lobby = s.lobby
    assert lobby is not None
    assert page[0].strip() == "The match"
    assert "Esc close" in page[-1]
    names = model.hand_names()
    for seat, total in enumerate(lobby.scores):
        row = page_row(page, names[seat])
        assert f"{total}" in row.split(names[seat])[1]
        assert f"{500 - total} to go" in row


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (60, 15)])
def test_the_scoreboard_in_a_real_terminal(tmp_path: Path, cols: int, rows: int) -> None:
    """lanswitch play, two-four-jack, by keys: the result screen says the match total against
    the target; m opens the match, Esc closes it."""
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(tmp_path), "TERM": "xterm-256color"}
    log = tmp_path / "play.err"
    # Two-four-jack to 5000 (house rules): a first hand can score past the preset's 500
    # (509 was seen), and the match would be over before the screen says how far to go.
    rules = tmp_path / "two-four-jack-long.toml"
    # And a hand stopped (and scored as it stands) after 100 moves: a two-four-jack hand can
    # run to thousands (the engine's limit is 5,000), past the 600 presses of play_by_keys.
    rules.write_text(
        'base = "two-four-jack"\n[scoring]\ntarget = 5000\n[play]\nsafety_limit = 100\n',
        encoding="utf-8",
    )
    command = (
        f"{sys.executable} -m lanswitch play --interface 127.0.0.1 --name ann --bots 3 "
        f"--rules {rules} --bot-delay 0.05 2>{log}; echo EXITED $?; sleep 30"
    )
    tmux = Tmux(command, env, (cols, rows))
    try:
        screen = tmux.wait_for("Press r", 10)
        assert "Press r" in screen, screen + log.read_text()
        tmux.keys("r")
        play_by_keys(tmux)
        screen = tmux.wait_for("Match to 5000", 10)
        assert "Hand 1 is over" in screen, screen
        assert "match" in next(line for line in screen.splitlines() if "cards left" in line)
        assert "to go." in " ".join(screen.split()), screen  # (wrapped at 60 columns)
        tmux.keys("m")
        screen = tmux.wait_for("The match", 5)
        assert screen.splitlines()[0].strip() == "The match", screen
        assert "to go  (you)" in screen, screen  # ann's own distance from the target
        assert "Esc close" in screen, screen
        tmux.keys("Escape")
        screen = tmux.wait_for("Hand 1 is over", 5)
        assert "Hand 1 is over" in screen, screen
    finally:
        tmux.kill()


def test_the_hand_that_reaches_the_target_says_who_won_the_match() -> None:
    """two-four-jack to 50 (house rules): the first hand's winner scores past it."""
    base = PRESETS["two-four-jack"]
    rules = replace(base, scoring=replace(base.scoring, target=50))
    net = TableNet(HostConfig(name="T", rules=rules, seats=3, bots=2, bot_delay=0.0), seed=6)
    model, _ = tui_at(net)
    net.send(net.links[1], p.Ready(ready=True))
    play_out_the_hand(net, model)
    over = model.session.hand.over  # type: ignore[union-attr]
    assert over is not None
    winner = over.placings[0]
    assert over.scores[winner] >= 50  # this hand ends the match: the test means something
    name = model.hand_names()[winner]
    lines = screen_text(model, 80, 24)
    said = " ".join(line.strip() for line in lines)
    assert f"Match over: {name} wins with {over.scores[winner]} points." in said, lines
    model.open("match")
    page = screen_text(model, 80, 24)
    assert "wins the match" in page_row(page, name), page


def test_a_tie_for_most_hands_won_is_said_as_a_tie() -> None:
    """The newcomer pass: "Most hands won: bot 1 leads with 1." when bot 1 and bot 2 had won
    one hand each."""
    from lanswitch.tui.scoreboard import Board, Standing, summary

    tied = Board(
        mode="none",
        target=0,
        standings=(Standing(1, "bot 1", 1), Standing(2, "bot 2", 1), Standing(0, "ann", 0)),
        hands=2,
        winner=None,
    )
    assert summary(tied) == "Most hands won: level at the top on 1 hand."
    ahead = replace(tied, standings=(Standing(1, "bot 1", 2), *tied.standings[1:]))
    assert summary(ahead) == "Most hands won: bot 1 leads with 2."
