"""``lanswitch stats`` (lanswitch/stats.py) over a real sqlite history: hands played by real
sessions (tests/tablenet.py), kept by the client's own writer, counted by the command."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from lanswitch.history import HistoryWriter, history_path
from lanswitch.host import HostConfig
from lanswitch.rules import PRESETS
from lanswitch.session import HandRecord
from tests.tablenet import Link, TableNet
from tests.terminal import Tmux
from tests.test_history import run


def a_match(table: str, rules: str, hands: int, seed: int) -> tuple[Link, Link, Link]:
    """ann, bob and bot 1 play ``hands`` hands of ``rules`` at ``table``; eve watches."""
    net = TableNet(
        HostConfig(name=table, rules=PRESETS[rules], seats=3, bots=1, bot_delay=0.0, hands=hands),
        seed=seed,
    )
    ann, bob = net.join("ann"), net.join("bob")
    eve = net.join("eve", spectate=True, bot=None)
    net.run(lambda: net.host.finished)
    for link in (ann, bob, eve):
        assert len(link.session.history) == hands
    return ann, bob, eve


def keep(data: Path, link: Link, when: list[str]) -> None:
    """What the client does with each finished hand, at the times ``when`` (UTC)."""
    clock = iter(when)
    writer = HistoryWriter(data, clock=lambda: next(clock))
    s = link.session
    for record in s.history:
        writer.record(record, name=s.name, table=s.table, host="h:1", client=s.public_key.hex())
    assert writer.close() is None


@pytest.fixture(scope="module")
def evening() -> tuple[tuple[Link, Link, Link], tuple[Link, Link, Link]]:
    return a_match("Kitchen", "switch", 3, seed=3), a_match("Attic", "two-four-jack", 2, seed=5)


def name_of(record: HandRecord, seat: int) -> str:
    return record.names[seat]


def test_stats_counts_hands_matches_wins_per_player_per_rules_and_per_month(
    tmp_path: Path,
    evening: tuple[tuple[Link, Link, Link], tuple[Link, Link, Link]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    kitchen, attic = evening
    data = tmp_path / "data"
    nov = ["2026-11-20T20:00:00+00:00", "2026-11-20T20:10:00+00:00", "2026-11-20T20:20:00+00:00"]
    dec = ["2026-12-03T19:00:00+00:00", "2026-12-03T19:15:00+00:00"]
    keep(data, kitchen[0], nov)
    keep(data, attic[0], dec)
    records = [*kitchen[0].session.history, *attic[0].session.history]
    scored = [r for r in records if r.over.reason != "void" and r.over.placings]
    won = [r for r in scored if r.over.placings[0] == r.seat]
    assert 0 < len(won) < len(scored)  # ann won some and lost some: the figures mean something

    code, out, err = run(capsys, "--data-dir", str(data), "stats")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "You played 5 hands in 2 matches, 2026-11-20 to 2026-12-03.", out
    pct = round(100 * len(won) / len(scored))
    assert lines[1] == f"You won {len(won)} of the {len(scored)} hands that had a result ({pct}%)."

    def section(title: str) -> dict[str, list[str]]:
        start = lines.index(title) + 2  # the title, the columns' head
        rows: dict[str, list[str]] = {}
        for line in lines[start:]:
            if not line:
                break
            *name, a, b, c = line.split()
            rows[" ".join(name)] = [a, b, c]
        return rows

    players = section("Against each player (hands with a result together, who won them):")
    assert set(players) == {"bob", "bot 1"}
    for other in ("bob", "bot 1"):
        together = [r for r in scored if other in r.names]
        theirs = [r for r in together if name_of(r, r.over.placings[0]) == other]
        assert players[other] == [str(len(together)), str(len(won)), str(len(theirs))]
    per_rules = section("Per set of rules:")
    for rules, recs in (
        ("switch", kitchen[0].session.history),
        ("two-four-jack", attic[0].session.history),
    ):
        mine = [r for r in recs if r in scored]
        mine_won = [r for r in mine if r in won]
        assert per_rules[rules][:2] == [str(len(mine)), str(len(mine_won))]
    months = section("Per month:")
    assert list(months) == ["2026-11", "2026-12"]  # (a UTC evening: the same month here)
    assert months["2026-11"][0] == str(sum(1 for r in kitchen[0].session.history if r in scored))

    code, out, _ = run(capsys, "--data-dir", str(data), "stats", "--json")
    assert code == 0
    got = json.loads(out)
    assert (got["played"], got["watched"], got["matches"]) == (5, 0, 2)
    assert got["you"] == {
        "hands": len(scored),
        "won": len(won),
        "win_rate": len(won) / len(scored),
    }
    assert got["players"]["bob"]["hands"] == int(players["bob"][0])
    assert set(got["rules"]) == {"switch", "two-four-jack"}
    assert list(got["periods"]) == ["2026-11", "2026-12"]

    code, out, _ = run(capsys, "--data-dir", str(data), "stats", "--by", "week", "--json")
    assert code == 0
    assert list(json.loads(out)["periods"]) == ["2026-W47", "2026-W49"]


def test_a_history_of_hands_only_watched_says_so(
    tmp_path: Path,
    evening: tuple[tuple[Link, Link, Link], tuple[Link, Link, Link]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = tmp_path / "data"
    keep(data, evening[0][2], ["2026-11-20T20:00:00+00:00"] * 3)  # eve, watching
    code, out, _ = run(capsys, "--data-dir", str(data), "stats")
    assert code == 0
    assert out == "You only watched: 3 hands, none played.\n"
    code, out, _ = run(capsys, "--data-dir", str(data), "stats", "--json")
    got = json.loads(out)
    assert (got["played"], got["watched"], got["you"]["win_rate"]) == (0, 3, None)


def test_an_empty_history_says_so_and_makes_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "nothing-yet"
    code, out, err = run(capsys, "--data-dir", str(data), "stats")
    assert code == 0, err
    assert out.startswith(f"No hands in the history yet ({history_path(data)}), so no stats.")
    assert not data.exists()
    code, out, _ = run(capsys, "--data-dir", str(data), "stats", "--json")
    assert code == 0
    got = json.loads(out)
    assert (got["hands"], got["players"], got["first"]) == (0, {}, None)


def test_a_history_that_is_not_a_database_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    history_path(data).write_bytes(b"this is not sqlite" * 100)
    code, out, err = run(capsys, "--data-dir", str(data), "stats")
    assert (code, out) == (2, "")
    assert err.startswith("lanswitch: error: ")
    assert "Traceback" not in err
    assert str(history_path(data)) in err


# ---------------------------------------------------------------------------------------------
# Issue 26's newcomer pass: stats read on a history of several presets, with a dealer-blind
# match, a void hand and hands only watched, in a terminal at 80 and at 60 columns.


class Night(NamedTuple):
    """ann's games night: her data dir, and the hands she won at each table (as her client
    recorded them: who wins depends on the seeds and the bots, not on what is tested)."""

    data: Path
    kitchen: int
    attic: int
    blind: int


def won(link: Link) -> int:
    """The hands ``link``'s player won, by its client's records."""
    return sum(1 for r in link.session.history if r.over.placings[:1] == (r.seat,))


def pct(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%"


@pytest.fixture(scope="module")
def games_night(
    tmp_path_factory: pytest.TempPathFactory,
    evening: tuple[tuple[Link, Link, Link], tuple[Link, Link, Link]],
) -> Night:
    """ann's history: Kitchen (switch, 3 hands; eve's watching kept too), Attic
    (two-four-jack, 2), Blind den (switch dealt dealer-blind, 2) and T (switch: bob never
    commits, so the hand is void)."""
    from lanswitch import protocol as p
    from tests.test_history import a_blind_match

    kitchen, attic = evening
    blind = a_blind_match(2, seed=7)
    net = TableNet(
        HostConfig(name="T", seats=3, bots=0, bot_delay=0.0, hands=2, round_timeout=5.0), seed=2
    )
    a, c = net.join("ann"), net.join("cy")
    b = net.join("bob", auto_ready=False)
    b.withhold = (p.Commit,)
    net.send(b, p.Ready(ready=True))
    net.run(lambda: bool(a.session.history) and bool(c.session.history))
    assert [r.over.reason for r in a.session.history] == ["void"]
    data = tmp_path_factory.mktemp("night") / "data"
    nov = ["2026-11-20T20:00:00+00:00", "2026-11-20T20:10:00+00:00", "2026-11-20T20:20:00+00:00"]
    keep(data, kitchen[0], nov)
    keep(data, kitchen[2], nov)  # this computer's spectator, eve
    keep(data, attic[0], ["2026-12-03T19:00:00+00:00", "2026-12-03T19:15:00+00:00"])
    keep(data, blind[0], ["2026-12-03T20:00:00+00:00", "2026-12-03T20:15:00+00:00"])
    keep(data, a, ["2026-12-03T21:00:00+00:00"])
    return Night(data, won(kitchen[0]), won(attic[0]), won(blind[0]))


def _rows(lines: list[str], title: str) -> dict[str, list[str]]:
    """A table of the output: its first column → the figures, by the head's names."""
    start = lines.index(title)
    head = lines[start + 1].split()
    rows: dict[str, list[str]] = {"": head[1:]}
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        cells = line.split()
        figures = cells[-(len(head) - 1) :]
        rows[" ".join(cells[: -(len(head) - 1)])] = figures
    return rows


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("cols", [80, 60])
def test_stats_of_a_games_night_read_whole_in_a_terminal(games_night: Night, cols: int) -> None:
    """The newcomer's reading: the void hand vanished from every table (the rules' and the
    months' hands added up to 7 of the 8 played), the dealer-blind hands went unsaid, "3
    watched" sat in the sentence about your wins as if among them, and at 60 columns the
    terminal cut that sentence mid-word."""
    night = games_night
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(night.data), "TERM": "xterm-256color"}
    tmux = Tmux(f"{sys.executable} -m lanswitch stats; echo EXITED $?; sleep 30", env, (cols, 40))
    try:
        screen = tmux.wait_for("EXITED", 20)
        # The screen's lines with the terminal's own wrapping undone (``-J``): the same lines,
        # if stats wrapped its sentences to the window itself (at a space, never mid-word).
        unwrapped = tmux.run("capture-pane", "-p", "-J", "-t", "main")
    finally:
        tmux.kill()
    assert "EXITED 0" in screen, screen
    lines = [line.rstrip() for line in screen.splitlines()]
    assert [line.rstrip() for line in unwrapped.splitlines()] == lines, screen
    text = " ".join(" ".join(lines).split())
    assert "You played 8 hands in 4 matches, 2026-11-20 to 2026-12-03" in text, screen
    assert "2 of them dealt dealer-blind" in text, screen
    total = night.kitchen + night.attic + night.blind
    said = f"You won {total} of the 7 hands that had a result ({pct(total, 7)}); 1 was void"
    assert f"{said} (no result)." in text, screen
    assert "You also watched 3 hands." in text, screen
    rules = _rows(lines, "Per set of rules:")
    assert rules[""] == ["hands", "void", "won", "rate"], screen
    switch = night.kitchen + night.blind  # Kitchen, Blind den, T (void)
    assert rules["switch"] == ["6", "1", str(switch), pct(switch, 5)], screen
    assert rules["two-four-jack"] == ["2", "0", str(night.attic), pct(night.attic, 2)], screen
    months = _rows(lines, "Per month:")
    assert months["2026-11"] == ["3", "0", str(night.kitchen), pct(night.kitchen, 3)], screen
    december = night.attic + night.blind
    assert months["2026-12"] == ["5", "1", str(december), pct(december, 4)], screen
    assert "(the rate counts only the hands with a result)" in text, screen


def test_stats_json_of_a_games_night_counts_void_and_blind_hands(
    games_night: Night, capsys: pytest.CaptureFixture[str]
) -> None:
    night = games_night
    code, out, _ = run(capsys, "--data-dir", str(night.data), "stats", "--json")
    assert code == 0
    got = json.loads(out)
    assert (got["played"], got["watched"], got["void"], got["dealer_blind"]) == (8, 3, 1, 2)
    won_switch = night.kitchen + night.blind
    switch = {"hands": 5, "won": won_switch, "win_rate": won_switch / 5, "void": 1, "unfinished": 0}
    assert got["rules"]["switch"] == switch
    assert got["rules"]["two-four-jack"] == {
        "hands": 2,
        "won": night.attic,
        "win_rate": night.attic / 2,
        "void": 0,
        "unfinished": 0,
    }
    assert got["periods"]["2026-12"]["void"] == 1


def test_a_hand_its_host_stopped_is_counted_unfinished_not_void(games_night: Night) -> None:
    """A hand left when its host stopped the table mid-hand and never carried it on is kept
    as ``unfinished`` (no result, not checked): played, in no rate, and not called void."""
    from dataclasses import replace

    from lanswitch.history import History
    from lanswitch.stats import format_stats, gather

    with History(history_path(games_night.data)) as h:
        rows = h.rows()
    kitchen = next(r for r in rows if r.table == "Kitchen" and r.seat is not None)
    stopped = replace(
        kitchen,
        id=0,
        hand_no=4,
        ending="unfinished",
        placings=(),
        place=None,
        status="unfinished",
        verdict="",
        why="",
        culprits=(),
    )
    st = gather([*rows, stopped])
    assert (st.played, st.void, st.unfinished) == (9, 1, 1)
    lines = format_stats(st, width=80).splitlines()
    text = " ".join(" ".join(lines).split())
    total = games_night.kitchen + games_night.attic + games_night.blind
    said = f"You won {total} of the 7 hands that had a result ({pct(total, 7)}); 1 was void, 1"
    assert f"{said} unfinished (no result)." in text, lines
    stopped_said = (
        "(Unfinished: the host stopped the table during the hand and never carried it on.)"
    )
    assert stopped_said in text, lines
    start = lines.index("Per set of rules:")
    assert lines[start + 1].split() == ["rules", "hands", "void", "unfinished", "won", "rate"]
    switch = games_night.kitchen + games_night.blind
    assert lines[start + 2].split() == ["switch", "7", "1", "1", str(switch), pct(switch, 5)]
    assert lines[-1] == "(the rate counts only the hands with a result)"
