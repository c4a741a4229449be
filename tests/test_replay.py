"""``lanswitch replay`` (lanswitch/tui/replay.py, lanswitch/fairdeal/steps.py): a saved hand
step by step on the table screen — as text in process, and in a real terminal (tmux) — from
transcripts written by ``lanswitch simulate --transcripts`` (the fair deal, run whole)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from lanswitch.cli import main
from lanswitch.fairdeal import Transcript
from lanswitch.fairdeal.steps import Walk, walk
from lanswitch.tui.render import Look, card_text, width
from lanswitch.tui.replay import ReplayModel, compose_replay
from tests.terminal import Tmux
from tests.test_tui import text


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """One hand of switch for three, dealt by the fair deal: a transcript per seat."""
    out = tmp_path_factory.mktemp("transcripts")
    code = main(
        [
            *("simulate", "--rules", "switch", "--players", "3", "--games", "1", "--seed", "4"),
            *("--transcripts", str(out)),
        ]
    )
    assert code == 0
    found = sorted(out.glob("*.json"))
    assert len(found) == 3
    return found


def walked(path: Path) -> Walk:
    return walk(Transcript.from_json(path.read_bytes()))


def screen(model: ReplayModel, cols: int, rows: int) -> list[str]:
    lines = compose_replay(model, cols, rows)
    assert len(lines) <= rows
    for line in lines:
        assert width(line) <= cols, text(line)
    return [text(line) for line in lines]


def hand_cards(lines: list[str]) -> list[str]:
    """The cards of the "your hand:" line (and its wrapped lines, indented under it)."""
    start = next(i for i, line in enumerate(lines) if line.startswith("  your hand:"))
    words = lines[start].removeprefix("  your hand:").split()
    for line in lines[start + 1 :]:
        if not line.startswith("        ") or not line.strip():
            break
        words += line.split()
    return words


def cards_of(cards: tuple[int, ...]) -> list[str]:
    return [card_text(c, Look()) for c in cards] if cards else ["(no", "cards)"]


@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (60, 15)])
def test_every_step_shows_the_owners_hand_the_step_told_and_the_verdict_at_the_end(
    files: list[Path], cols: int, rows: int
) -> None:
    w = walked(files[0])
    assert w.verdict.status == "fair"
    assert len(w.steps) > 10
    model = ReplayModel(w, files[0].name, Look())
    seen_moves = 0
    for i, step in enumerate(w.steps):
        assert model.at == i
        lines = screen(model, cols, rows)
        assert f"step {i + 1} of {len(w.steps)}" in lines[0]
        assert hand_cards(lines) == cards_of(step.view.hand)
        told = [line for line in lines if line.startswith(" ▶ ")]
        assert told, lines  # the step is told (or says nothing visible changed)
        seen_moves += "play" in told[0]
        if i == len(w.steps) - 1:
            assert any(line.strip().startswith("FAIR: hand 1") for line in lines), lines
        else:
            assert not any("FAIR: hand" in line for line in lines)
        model.forward()
    assert seen_moves > 0
    model.forward()  # past the end: stays on the last step
    assert model.at == len(w.steps) - 1
    model.back()
    assert model.at == len(w.steps) - 2
    model.first_step()
    assert "the starter card is" in " ".join(screen(model, cols, rows))


def test_the_replay_shows_only_what_the_files_owner_was_shown(files: list[Path]) -> None:
    """The verifier derives every hand from the seeds revealed after the hand; the replay still
    shows another player's dealt and drawn cards as the table did: not at all."""
    for path in files:
        w = walked(path)
        own_dealt = 0
        for step in w.steps:
            for kind, seat, value in step.events:
                if kind in ("deal", "draw"):
                    if seat == w.seat:
                        assert value >= 0
                        own_dealt += 1
                    else:
                        assert value == -1, (kind, seat, value)
        assert own_dealt >= 7  # the owner's own cards are there
        # Each seat's replay ends with its own hand as the engine left it, and the others' counts.
        last = w.steps[-1].view
        assert last.seat == w.seat


def test_a_file_whose_cards_were_changed_is_not_replayed_and_says_why(
    files: list[Path], tmp_path: Path
) -> None:
    obj = json.loads(files[1].read_text())
    obj["cards"][0], obj["cards"][1] = obj["cards"][1], obj["cards"][0]  # not as the host signed
    bad = tmp_path / "changed.json"
    bad.write_text(json.dumps(obj))
    w = walked(bad)
    assert w.verdict.status == "unfair"
    assert w.steps == ()
    lines = screen(ReplayModel(w, bad.name), 80, 24)
    said = " ".join(lines)
    assert "Nothing to replay: UNFAIR" in said, lines


def test_the_command_refuses_what_it_cannot_replay_in_one_line(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay"]) == 2
    assert "give a transcript FILE, or --hand ID" in capsys.readouterr().err
    assert main(["replay", str(files[0]), "--hand", "1"]) == 2
    capsys.readouterr()
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    assert main(["replay", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lanswitch: {junk}: ")
    assert "Traceback" not in err
    assert main(["replay", str(tmp_path / "missing.json")]) == 2
    assert "cannot read it" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (60, 15)])
def test_replay_in_a_real_terminal(files: list[Path], tmp_path: Path, cols: int, rows: int) -> None:
    w = walked(files[2])
    n = len(w.steps)
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(tmp_path), "TERM": "xterm-256color"}
    log = tmp_path / "replay.err"
    command = f"{sys.executable} -m lanswitch replay {files[2]} 2>{log}; echo EXITED $?; sleep 30"
    tmux = Tmux(command, env, (cols, rows))
    try:
        shown = tmux.wait_for(f"step 1 of {n}", 10)
        assert f"step 1 of {n}" in shown, shown + log.read_text()
        first_hand = " ".join(cards_of(w.steps[0].view.hand))
        assert f"your hand: {first_hand}" in shown, shown
        tmux.keys("Right", "Right", "Right")
        shown = tmux.wait_for(f"step 4 of {n}", 5)
        assert f"step 4 of {n}" in shown, shown
        hand = " ".join(cards_of(w.steps[3].view.hand))
        assert f"your hand: {hand}" in " ".join(shown.split()), shown
        tmux.keys("Left")
        shown = tmux.wait_for(f"step 3 of {n}", 5)
        assert f"step 3 of {n}" in shown, shown
        tmux.keys("End")
        shown = tmux.wait_for("FAIR: hand 1", 5)
        assert f"step {n} of {n}" in shown, shown
        tmux.keys("q")
        shown = tmux.wait_for("EXITED", 5)
        assert "EXITED 0" in shown, shown + log.read_text()
    finally:
        tmux.kill()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_replay_a_hand_the_history_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--hand ID``: the transcript the history keeps (as ``verify --hand ID``); a hand only
    watched has none, and says so."""
    from tests.test_stats import a_match, keep

    ann, _, eve = a_match("Kitchen", "switch", 1, seed=3)
    data = tmp_path / "data"
    keep(data, ann, ["2026-12-03T19:00:00+00:00"])
    keep(data, eve, ["2026-12-03T19:00:00+00:00"])  # hand 2 of the history: watched
    assert main(["--data-dir", str(data), "replay", "--hand", "2"]) == 2
    assert "history:2: you watched this hand" in capsys.readouterr().err
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(data), "TERM": "xterm-256color"}
    log = tmp_path / "replay.err"
    command = f"{sys.executable} -m lanswitch replay --hand 1 2>{log}; echo EXITED $?; sleep 30"
    tmux = Tmux(command, env, (80, 24))
    try:
        screen_now = tmux.wait_for("history:1", 10)
        assert "replay · history:1 · switch · hand 1 · step 1 of" in screen_now, (
            screen_now + log.read_text()
        )
        tmux.keys("End")
        screen_now = tmux.wait_for("FAIR: hand 1", 5)
        assert "FAIR: hand 1" in screen_now, screen_now
        tmux.keys("q")
        assert "EXITED 0" in tmux.wait_for("EXITED", 5)
    finally:
        tmux.kill()
