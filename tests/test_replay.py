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
from lanswitch.fairdeal.steps import BLIND_NOTE, Walk, blind_walk, walk
from lanswitch.game import HIDDEN_BASE
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


# ---------------------------------------------------------------------------------------------
# Dealer-blind hands (issue 26's newcomer pass: a blind hand's file was refused). The file holds
# the public steps, the keys the others released to its owner alone, and every revealed seed:
# the replay opens the owner's own cards with its keys, as its client did, and no one else's.


@pytest.fixture(scope="module")
def blind_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One hand of switch dealt dealer-blind: ann, bob and the host's bot 1; each person's file
    as the client kept it."""
    from lanswitch.host import HostConfig
    from tests.records import blind_file_of
    from tests.tablenet import TableNet

    out = tmp_path_factory.mktemp("blind")
    net = TableNet(
        HostConfig(name="Blind den", seats=3, bots=1, bot_delay=0.0, hands=1, blind=True),
        seed=11,
    )
    ann, bob = net.join("ann"), net.join("bob")
    net.run(lambda: net.host.finished)
    from tests.test_stats import keep

    files = {}
    for link in (ann, bob):
        path = out / f"{link.session.name}.json"
        path.write_text(blind_file_of(link.session.history[0]))
        files[link.session.name] = path
    keep(out / "data", ann, ["2026-12-03T20:00:00+00:00"])  # ann's history: hand 1
    files["data"] = out / "data"
    return files


def _known_hand(w: Walk) -> list[int]:
    """The owner's cards at the end, by the check's own replay with every card known."""
    from lanswitch.fairdeal.blind.check import BlindOutcome

    found = w.verdict.found
    assert isinstance(found, BlindOutcome)
    assert found.game is not None
    mask = found.game.hands[w.seat]
    return [c for c in range(HIDDEN_BASE) if (mask >> c) & 1]


@pytest.mark.parametrize("who", ["ann", "bob"])
def test_a_dealer_blind_file_steps_through_what_its_owner_saw(
    blind_files: dict[str, Path], who: str
) -> None:
    w = blind_walk(blind_files[who].read_bytes())
    assert w.names[w.seat] == who
    assert w.verdict.status == "fair"
    assert len(w.steps) > 10
    assert w.note == BLIND_NOTE
    own: set[int] = set()  # every card the owner was dealt or drew, as the steps showed them
    for step in w.steps:
        v = step.view
        # Every card of the owner's hand open to it, as at the table: none left hidden.
        assert len(v.hand) == v.counts[w.seat], (v.hand, v.counts)
        assert all(0 <= c < HIDDEN_BASE for c in v.hand), v.hand
        for kind, seat, card in step.events:
            if kind in ("deal", "draw"):
                if seat == w.seat:
                    assert 0 <= card < HIDDEN_BASE, (kind, seat, card)
                    own.add(card)
                else:
                    assert card == -1, (kind, seat, card)  # another's: by count only
            elif kind == "play":
                assert 0 <= card < HIDDEN_BASE  # every card laid, whoever laid it
        assert set(v.hand) <= own, (v.hand, own)  # each card in hand came as the steps said
    dealt = sum(1 for e in w.steps[0].events if e[0] == "deal" and e[1] == w.seat)
    assert len(own) > dealt  # it drew, and each card it drew was shown to it
    assert sorted(w.steps[-1].view.hand) == _known_hand(w)


@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (60, 15)])
def test_a_dealer_blind_replay_says_what_its_file_shows(
    blind_files: dict[str, Path], cols: int, rows: int
) -> None:
    w = blind_walk(blind_files["bob"].read_bytes())
    model = ReplayModel(w, "bob.json", Look())
    first = " ".join(" ".join(screen(model, cols, rows)).split())
    assert "dealt dealer-blind: you see what you saw at the table" in first
    assert "the others' hidden cards are not shown" in first
    assert hand_cards(screen(model, cols, rows)) == cards_of(w.steps[0].view.hand)
    model.last_step()
    last = " ".join(screen(model, cols, rows))
    assert "FAIR (dealer-blind)" in last, last
    assert "hidden cards are not shown" not in last


def test_a_dealer_blind_file_with_a_forged_move_stops_where_it_fails(
    blind_files: dict[str, Path], tmp_path: Path
) -> None:
    obj = json.loads(blind_files["ann"].read_text())
    moves = [i for i, s in enumerate(obj["steps"]) if s[0] == "move"]
    at = moves[len(moves) // 2]
    sig = obj["steps"][at][1]["signature"]
    obj["steps"][at][1]["signature"] = ("1" if sig[0] == "0" else "0") + sig[1:]
    w = blind_walk(json.dumps(obj))
    assert w.verdict.status != "fair", w.verdict.text()
    assert len(w.steps) == at  # the steps before the forged move, and no more
    model = ReplayModel(w, "forged.json", Look())
    model.last_step()
    assert "(dealer-blind)" in " ".join(screen(model, 80, 24))


def test_a_dealer_blind_file_that_cannot_be_read_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "half.json"
    bad.write_text('{"format": "lanswitch-blind-hand", "version": 3, "id": "x"}')
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lanswitch: {bad}: this dealer-blind hand's file cannot be replayed: ")
    assert f"(lanswitch verify {bad} says what its check finds)" in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_a_dealer_blind_file_of_no_seat_is_refused_saying_why(
    blind_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    obj = json.loads(blind_files["ann"].read_text())
    obj["id"] = "@dealer"  # as the host's own record would be: its bots' seats, no seat of its own
    hosts = tmp_path / "host.json"
    hosts.write_text(json.dumps(obj))
    assert main(["replay", str(hosts)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"lanswitch: {hosts}: this dealer-blind hand's file cannot be replayed: the file is the "
        "host's, whose bots' cards were its own: there is no seat to replay it from "
        f"(lanswitch verify {hosts} says what its check finds)\n"
    )


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (60, 15)])
def test_replay_a_dealer_blind_file_in_a_real_terminal(
    blind_files: dict[str, Path], tmp_path: Path, cols: int, rows: int
) -> None:
    """``lanswitch replay FILE`` of a blind hand's file said "replay reads commit-reveal
    transcripts for now" and ended (exit 2). Now it steps through it."""
    path = blind_files["ann"]
    w = blind_walk(path.read_bytes())
    n = len(w.steps)
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(tmp_path), "TERM": "xterm-256color"}
    log = tmp_path / "replay.err"
    command = f"{sys.executable} -m lanswitch replay {path} 2>{log}; echo EXITED $?; sleep 30"
    tmux = Tmux(command, env, (cols, rows))
    try:
        shown = tmux.wait_for(f"step 1 of {n}", 10)
        assert f"step 1 of {n}" in shown, shown + log.read_text()
        flat = " ".join(shown.split())
        assert f"your hand: {' '.join(cards_of(w.steps[0].view.hand))}" in flat, shown
        assert "dealt dealer-blind" in flat, shown
        tmux.keys("Right", "Right")
        shown = tmux.wait_for(f"step 3 of {n}", 5)
        assert f"your hand: {' '.join(cards_of(w.steps[2].view.hand))}" in " ".join(
            shown.split()
        ), shown
        tmux.keys("End")
        shown = tmux.wait_for("FAIR (dealer-blind)", 5)
        assert f"step {n} of {n}" in shown, shown
        tmux.keys("q")
        shown = tmux.wait_for("EXITED", 5)
        assert "EXITED 0" in shown, shown + log.read_text()
    finally:
        tmux.kill()


@pytest.mark.parametrize("which", ["transcript", "blind"])
def test_replay_without_a_terminal_says_so_in_one_line(
    files: list[Path], blind_files: dict[str, Path], which: str
) -> None:
    """``lanswitch replay FILE </dev/null`` ended in prompt_toolkit's traceback (EOFError)."""
    import subprocess

    path = files[0] if which == "transcript" else blind_files["bob"]
    done = subprocess.run(
        [sys.executable, "-m", "lanswitch", "replay", str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "lanswitch: error: lanswitch replay needs a terminal to step through the hand in, and "
        "its input is not one: run it in a terminal; lanswitch verify FILE checks the file "
        "without one\n"
    )


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_replay_a_dealer_blind_hand_the_history_keeps(
    blind_files: dict[str, Path], tmp_path: Path
) -> None:
    data = blind_files["data"]
    n = len(blind_walk(blind_files["ann"].read_bytes()).steps)
    env = {**os.environ, "LANSWITCH_DATA_DIR": str(data), "TERM": "xterm-256color"}
    log = tmp_path / "replay.err"
    command = f"{sys.executable} -m lanswitch replay --hand 1 2>{log}; echo EXITED $?; sleep 30"
    tmux = Tmux(command, env, (80, 24))
    try:
        shown = tmux.wait_for("history:1", 10)
        assert f"replay · history:1 · switch · hand 1 · step 1 of {n}" in shown, (
            shown + log.read_text()
        )
        assert "dealt dealer-blind" in shown, shown
        tmux.keys("End")
        assert "FAIR (dealer-blind)" in tmux.wait_for("FAIR (dealer-blind)", 5)
        tmux.keys("q")
        assert "EXITED 0" in tmux.wait_for("EXITED", 5)
    finally:
        tmux.kill()
