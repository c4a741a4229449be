"""The command line, run for real: in-process through ``main`` and as ``python -m lanswitch``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from lanswitch.cli import data_dir, main
from lanswitch.rules import PRESETS, load_rules


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_lists_every_preset_one_per_line_name_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(PRESETS)


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_name_prints_a_loadable_toml_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    code, out, _ = run(capsys, "rules", name)
    assert code == 0
    tomllib.loads(out)
    f = tmp_path / f"{name}.toml"
    f.write_text(out, encoding="utf-8")
    assert load_rules(str(f)) == PRESETS[name]


def test_rules_file_with_a_bad_key_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "house.toml"
    f.write_text('base = "switch"\n[play]\ndraw = "sometimes"\n', encoding="utf-8")
    code, out, err = run(capsys, "rules", str(f))
    assert code == 2
    assert out == ""
    assert str(f) in err
    assert "play.draw" in err
    assert "'until_playable'" in err


def test_unknown_preset_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "simulate", "--rules", "snap")
    assert code == 2
    assert "no such preset or file" in err
    assert "switch" in err


def test_simulate_json_has_the_promised_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--rules",
        "irish",
        "--players",
        "3",
        "--games",
        "20",
        "--bots",
        "heuristic,random,random",
        "--seed",
        "5",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 20
    assert data["actions"] > 20 * 3
    assert data["elapsed_s"] > 0
    assert len(data["wins"]) == 3
    assert sum(data["wins"]) == 20
    assert data["seed"] == 5
    # Each seat's bot's time per decision: as many decisions as its seat made.
    timing = data["decision_time"]
    assert len(timing) == 3
    assert sum(t["decisions"] for t in timing) == data["actions"]
    assert all(0 <= t["median_ms"] <= t["p99_ms"] for t in timing)


def test_simulate_is_reproducible_by_seed(capsys: pytest.CaptureFixture[str]) -> None:
    args = (
        "simulate",
        "--rules",
        "j28",
        "--games",
        "30",
        "--bots",
        "random",
        "--seed",
        "9",
        "--json",
    )
    _, first, _ = run(capsys, *args)
    _, second, _ = run(capsys, *args)
    a, b = json.loads(first), json.loads(second)
    for key in ("actions", "wins", "endings", "power_fired", "mean_turns"):
        assert a[key] == b[key]


def test_simulate_summary_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--games",
        "50",
        "--seed",
        "1",
        "--bots",
        "heuristic,random,random,random",
    )
    assert code == 0
    assert "hands/s" in out
    assert "Per hand:" in out
    assert "Wins by seat" in out
    assert "Power cards fired per hand: 2: " in out  # switch's first row, "two"


def test_simulate_names_the_power_cards_as_a_player_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The newcomer pass: ``simulate --rules blackjack`` printed "black_jack 0.85", the rules
    file's name of the row. The summary names each row by its cards, in the help's words
    ("black Jack: 0.85"); the JSON keeps the rows' names, for scripts."""
    argv = ("simulate", "--rules", "blackjack", "--games", "20", "--seed", "1")
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert "_" not in out, out
    fired = out.split("Power cards fired per hand: ", 1)[1].splitlines()[0]
    assert fired.split(", ")[0].startswith("Ace: "), fired
    assert "black Jack: " in fired, fired
    assert "red Jack: " in fired, fired
    assert out.startswith("\nblackjack, 4 players"), out  # the preset as the user typed it
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    assert {"black_jack", "red_jack"} <= set(json.loads(out)["power_fired"])


def test_simulate_gives_each_bots_win_share_with_its_95_percent_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The newcomer pass read "hard 24.0%, normal 25.3%" over 200 hands as "hard is no
    stronger": the summary now gives each bot's share with its Wilson 95% interval, the
    interval of a seat-hand count (textbook values: 5 of 10 is [23.7%, 76.3%], 0 of 10 is
    [0.0%, 27.8%]), and the share inside it."""
    from lanswitch.cli.commands import _share

    assert _share("x", 5, 10) == "x 50.0% [23.7%, 76.3%]"
    assert _share("x", 0, 10) == "x 0.0% [0.0%, 27.8%]"
    argv = ("simulate", "--games", "40", "--bots", "normal,random,random,random", "--seed", "2")
    code, out, _ = run(capsys, *argv)
    assert code == 0
    line = out.split("Win share per seat, by bot (95% interval): ", 1)[1].splitlines()[0]
    for part in line.split("], "):
        name, share, lo, hi = part.replace("[", "").replace("]", "").replace(",", "").split()
        assert name in ("normal", "random"), line
        assert float(lo[:-1]) <= float(share[:-1]) <= float(hi[:-1]), line


def test_simulate_verbose_narrates_a_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--games", "1", "--verbose", "--seed", "3")
    assert code == 0
    assert "deals." in out
    assert " plays " in out
    assert "Hand over" in out
    assert "1. Seat" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["simulate", "--bots", "genius"], "no bot 'genius'"),
        (["simulate", "--bots", "random,random"], "need one bot each"),
        (["simulate", "--players", "9"], "players must be 2..8"),
        (["simulate", "--games", "0"], "must be at least 1"),
        (["simulate", "--seed", "x"], "not a whole number"),
        # A name the host would clean to nothing (issue 15): said before anything starts, not
        # a traceback once a table is chosen.
        (["play", "--name", "\u200b"], "has nothing visible to show"),
        (["join", "127.0.0.1:1", "--name", "\t \u202e"], "has nothing visible to show"),
        (["join", "127.0.0.1:1", "--name", "\u0301"], "has nothing visible to show"),
    ],
)
def test_bad_options_exit_2_with_the_reason(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    try:
        code = main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    _, err = capsys.readouterr()
    assert code == 2
    assert needle in err


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["play", "--bogus"], "usage: lanswitch play "),
        (["verify", "x.json", "--jsn"], "usage: lanswitch verify "),
        (["history", "1", "2"], "usage: lanswitch history "),
        (["--bogus"], "usage: lanswitch [-h]"),
    ],
)
def test_an_unknown_option_shows_the_usage_of_its_command(
    capsys: pytest.CaptureFixture[str], argv: list[str], usage: str
) -> None:
    """argparse hands what a command does not know to the top-level parser, whose usage names
    no command: a newcomer who mistyped an option of ``play`` was shown ``lanswitch [-h]
    [--version] … COMMAND``."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    _, err = capsys.readouterr()
    assert e.value.code == 2
    assert err.startswith(usage), err
    assert f"lanswitch: error: unrecognized arguments: {argv[-1]}" in err


def test_data_dir_option_then_env_then_platform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LANSWITCH_DATA_DIR", str(tmp_path / "env"))
    assert data_dir(str(tmp_path / "opt")) == tmp_path / "opt"
    assert data_dir(None) == tmp_path / "env"
    monkeypatch.delenv("LANSWITCH_DATA_DIR")
    assert "lanswitch" in str(data_dir(None))


def test_paths_shows_the_data_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "--data-dir", str(tmp_path), "paths")
    assert code == 0
    assert str(tmp_path) in out


def test_paths_lists_every_place_lanswitch_writes_with_what_it_holds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``paths`` named the data dir and the history only; the journals of interrupted tables
    (``tables/``), the host's identity and the pins went unsaid. Each is made here by the code
    that makes it in play, and everything then in the data dir must be listed, with a word on
    what it holds."""
    from lanswitch.history import History
    from lanswitch.tls import PinStore, load_or_create_identity, table_pin_key
    from tests.scenarios.test_crash import _left_unfinished

    History.in_dir(tmp_path).close()
    identity = load_or_create_identity(tmp_path)
    PinStore.in_dir(tmp_path).check(table_pin_key("Kitchen"), identity.fingerprint)
    _left_unfinished(tmp_path, "Kitchen")
    code, out, _ = run(capsys, "--data-dir", str(tmp_path), "paths")
    assert code == 0
    made = {p.name.split(".sqlite")[0] for p in tmp_path.iterdir()}  # (sqlite's -wal, -shm)
    assert made >= {"history", "tables", "host-cert.pem", "host-key.pem", "pins.json"}, made
    for name in made:
        assert str(tmp_path / name) in out, (name, out)
    said = " ".join(out.split())
    assert "journals of tables you host" in said, out
    assert "lanswitch play --resume" in said, out
    assert "the hands you played" in said, out
    assert "fingerprints of the tables you joined" in said, out
    assert "--save FILE" in said, out
    assert "--transcripts DIR" in said, out
    assert max(map(len, out.replace(str(tmp_path), "DATA").splitlines())) <= 80, out


def test_python_dash_m_runs_the_same_cli() -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.run(
        [sys.executable, "-m", "lanswitch", "rules"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0].startswith("switch")


# ---------------------------------------------------------------------------------------------
# The fair deal on the command line: simulate --transcripts, then verify the real files


def _transcripts(capsys: pytest.CaptureFixture[str], directory: Path, *extra: str) -> list[Path]:
    code, _, _ = run(
        capsys,
        "simulate",
        "--rules",
        "blackjack",
        "--players",
        "3",
        "--games",
        "3",
        "--seed",
        "2",
        "--transcripts",
        str(directory),
        *extra,
    )
    assert code == 0
    return sorted(directory.glob("*.json"))


def test_simulate_writes_one_transcript_per_seat_per_hand(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    directory = tmp_path / "new" / "dir"  # created, parents too
    files = _transcripts(capsys, directory, "--json")
    assert [f.name for f in files] == [
        f"hand-{h:04d}-seat-{s}.json" for h in (1, 2, 3) for s in (1, 2, 3)
    ]
    for f in files:
        obj = json.loads(f.read_text(encoding="utf-8"))
        assert obj["format"] == "lanswitch-transcript"
        assert f.name == f"hand-{obj['hand_no']:04d}-{obj['seats'][obj['seat']]}.json"
    # Fresh seeds and keys per run: the same --seed deals differently, keys differ.
    again = _transcripts(capsys, tmp_path / "again")
    one, two = (json.loads(p[0].read_text(encoding="utf-8")) for p in (files, again))
    assert one["game_id"] != two["game_id"]
    assert one["public_keys"] != two["public_keys"]


def test_simulate_with_transcripts_reports_the_fair_deal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(
        capsys, "simulate", "--games", "2", "--seed", "1", "--transcripts", str(tmp_path), "--json"
    )
    assert code == 0
    fair = json.loads(out)["fair_deal"]
    assert fair["transcripts"] == 8
    assert fair["directory"] == str(tmp_path)
    assert fair["rounds"] >= 2
    assert fair["aborted_hands"] == 0
    code, out, _ = run(
        capsys, "simulate", "--games", "2", "--seed", "1", "--transcripts", str(tmp_path)
    )
    assert "Fair deal:" in out
    assert "no void hands" in out
    assert "lanswitch verify" in out
    # Without --transcripts the report is as before.
    code, out, _ = run(capsys, "simulate", "--games", "2", "--seed", "1", "--json")
    assert "fair_deal" not in json.loads(out)


def test_simulate_transcripts_dir_that_cannot_be_made_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    code, _, err = run(capsys, "simulate", "--transcripts", str(blocker / "sub"))
    assert code == 2
    assert "--transcripts: cannot create" in err
    assert str(blocker / "sub") in err


def test_verify_fair_files_exits_0(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    files = _transcripts(capsys, tmp_path)
    code, out, err = run(capsys, "verify", *map(str, files))
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    for f, line in zip(files, lines, strict=False):
        assert line.startswith(f"{f}: FAIR: hand ")
        assert re.search(r": \d+ moves and \d+ shuffles? checked; ", line), line
        assert " won (" in line
    assert lines[-1] == "9 files: 9 fair"


def _write(path: Path, t: Any) -> Path:
    path.write_text(t.to_json(), encoding="utf-8")
    return path


def test_verify_a_tampered_file_exits_1_and_blames_the_host(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.fairplay import play
    from tests.scenarios.test_tamper import StackedHost

    hand = play("switch", 3, seed=1, dealer_cls=StackedHost)
    files = [_write(tmp_path / f"{t.id}.json", t) for t in hand.transcripts]
    code, out, _ = run(capsys, "verify", *map(str, files))
    assert code == 1
    for f, line in zip(files, out.splitlines(), strict=False):
        assert line.startswith(f"{f}: UNFAIR: ")
        assert "blame the host (proven by signatures)" in line
    code, out, _ = run(capsys, "verify", "--json", str(files[0]))
    assert code == 1
    data = json.loads(out)
    entry = data["files"][0]
    assert entry["file"] == str(files[0])
    assert entry["status"] == "unfair"
    assert entry["culprits"] == ["@dealer"]
    assert entry["reason"]
    assert data["exit"] == 1
    assert data["summary"]["unfair"] == 1


def test_verify_names_the_people_a_real_tables_void_hand_blames(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 26: ``verify`` of a real table's files said "Aborted hands: void hands: 1 —
    seat1 1": the fair deal's id, not the person. bob never commits; ann's file of the void
    hand blames bob, in every line ``verify`` prints."""
    from lanswitch import protocol as p
    from lanswitch.host import HostConfig
    from tests.records import transcript_of
    from tests.tablenet import TableNet

    config = HostConfig(name="T", seats=3, bots=0, bot_delay=0.0, hands=2, round_timeout=5.0)
    net = TableNet(config, seed=2)
    a, c = net.join("ann"), net.join("cy")
    b = net.join("bob", auto_ready=False)
    b.withhold = (p.Commit,)
    net.send(b, p.Ready(ready=True))
    net.run(lambda: bool(a.session.history) and bool(c.session.history))
    files = [
        _write(tmp_path / f"{who}.json", transcript_of(link.session.history[0]))
        for who, link in (("ann", a), ("cy", c))
    ]
    code, out, _ = run(capsys, "verify", *map(str, files))
    assert code == 1
    assert "Aborted hands: void hands: 1 — bob 1 on the host's word" in out, out
    assert "seat1" not in out, out
    assert "@dealer" not in out, out


def test_verify_a_void_hand_exits_1_and_shows_the_abort(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.fairplay import bad_reveal, play

    hand = play("switch", 3, seed=1, hand_no=2, reveal=bad_reveal("seat-3", 0))
    files = [_write(tmp_path / f"{t.id}.json", t) for t in hand.transcripts]
    code, out, _ = run(capsys, "verify", *map(str, files))
    assert code == 1
    assert out.count("VOID: hand 2") == 3
    assert "blame seat-3 (proven by signatures)" in out
    assert "Aborted hands: void hands: 1 — seat-3 1" in out


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"\x00\x01 not text", "not JSON"),
        (b'{"hello": "world"}', "not a lanswitch transcript"),
        (b'{"format": "lanswitch-transcript", "version": 9}', "transcript version 9 is not"),
        (b'{"format": "lanswitch-transcript", "version": 1}', "transcript version 1 is not"),
        (b'{"format": "lanswitch-transcript", "version": 3}', "a malformed transcript: protocol"),
        (b"", "not JSON"),
    ],
)
def test_verify_garbage_exits_2_naming_the_file_and_loses_nothing_else(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, needle: str
) -> None:
    fair = _transcripts(capsys, tmp_path / "t")[0]
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    missing = tmp_path / "missing.json"
    code, out, err = run(capsys, "verify", str(bad), str(fair), str(missing))
    assert code == 2
    assert f"lanswitch: {bad}: {needle}" in err
    assert f"lanswitch: {missing}: cannot read it" in err
    assert f"{fair}: FAIR: " in out  # the good file still gets its verdict
    assert "3 files: 1 fair, 2 unreadable" in out
    code, out, _ = run(capsys, "verify", "--json", str(bad), str(fair))
    data = json.loads(out)
    assert code == data["exit"] == 2
    assert [f["status"] for f in data["files"]] == ["error", "fair"]
    assert needle in data["files"][0]["error"]


def test_verify_notes_hands_missing_from_a_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    files = _transcripts(capsys, tmp_path)
    kept = [f for f in files if not f.name.startswith("hand-0002")]
    code, out, _ = run(capsys, "verify", *map(str, kept))
    assert code == 0
    assert "hand 2 is not among these files (not given, not kept, or never finished)" in out


def test_verify_needs_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["verify"])
    assert e.value.code == 2


def test_lanswitch_verify_runs_as_a_program(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    files = _transcripts(capsys, tmp_path)
    (tmp_path / "junk.json").write_text("[]", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))

    def verify_cli(*paths: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "lanswitch", "verify", *map(str, paths)],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )

    proc = verify_cli(*files[:3])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(": FAIR: ") == 3
    proc = verify_cli(files[0], tmp_path / "junk.json")
    assert proc.returncode == 2
    assert "junk.json: not a lanswitch transcript" in proc.stderr


def test_long_simulations_show_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """In a real terminal (tmux) a run draws a progress bar on stderr, however few its hands
    (the newcomer pass: 20 hands of hard bots sat silent for minutes, the bar drawn only from
    200 hands up); without a TTY (every other test here) it does not."""
    import shutil
    import time

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    server = f"lsw-progress-{os.getpid()}"
    done = tmp_path / "done"
    root = Path(__file__).resolve().parent.parent
    cmd = (
        f"cd {root} && {sys.executable} -m lanswitch simulate --games 20 --seed 1 "
        f"--bots random > {tmp_path / 'out.txt'}; touch {done}; sleep 30"
    )
    subprocess.run(
        ["tmux", "-L", server, "new-session", "-d", "-x", "100", "-y", "10", cmd],
        check=True,
        timeout=30,
    )
    try:
        deadline = time.monotonic() + 60
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert done.exists()
        screen = subprocess.run(
            ["tmux", "-L", server, "capture-pane", "-p"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
    finally:
        socket_path = subprocess.run(
            ["tmux", "-L", server, "display-message", "-p", "#{socket_path}"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        ).stdout.strip()
        subprocess.run(["tmux", "-L", server, "kill-server"], check=False, timeout=30)
        if socket_path:  # tmux leaves its socket file behind (as tests/terminal.py says)
            Path(socket_path).unlink(missing_ok=True)
    assert "100% (20/20 hands)" in screen
    assert "#########################" in screen
    assert "hands/s" in (tmp_path / "out.txt").read_text(encoding="utf-8")


def test_the_parsers_literals_agree_with_the_rules_and_the_bots() -> None:
    from lanswitch import cli
    from lanswitch.bots import BOTS
    from lanswitch.rules import MAX_PLAYERS, MIN_PLAYERS

    assert (cli.MIN_PLAYERS, cli.MAX_PLAYERS) == (MIN_PLAYERS, MAX_PLAYERS)
    assert sorted(cli.BOTS) == sorted(BOTS)


def test_join_offers_only_the_bots_that_can_play_from_a_seats_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A joined seat's client holds its view, not the hand's engine: ``hard`` would play the
    heuristic's moves there under another name, so ``join --bot`` does not offer it."""
    with pytest.raises(SystemExit) as e:
        main(["join", "--bot", "hard", "127.0.0.1:9"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'hard'" in err
    assert "heuristic" in err


# ---------------------------------------------------------------------------------------------
# Issue 26, item 6: the command line's texts


def test_presets_are_named_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    """``--rules Irish`` was refused ("Irish: no such preset or file")."""
    code, out, err = run(capsys, "rules", "Irish")
    assert code == 0, err
    assert out == run(capsys, "rules", "irish")[1]
    code, out, err = run(capsys, "simulate", "--rules", "TWO-Four-Jack", "--seed", "3", "--json")
    assert code == 0, err
    assert json.loads(out)["rules"] == "two-four-jack"
    code, _, err = run(capsys, "simulate", "--rules", "Irishh")
    assert code == 2
    assert "no such preset or file" in err


def test_the_preset_names_the_parser_knows_are_the_presets() -> None:
    from lanswitch import cli

    assert tuple(PRESETS) == cli.PRESET_NAMES


def test_host_names_its_table_with_table_as_play_does_and_name_still_works(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``play --name`` is the player's name and ``--table`` the table's; ``host --name`` was
    the table's. ``host --table`` now, ``--name`` kept for scripts, with a note."""
    from lanswitch.cli import build_parser
    from lanswitch.cli.args import _hosting, _old_table_name

    parser = build_parser()
    args = parser.parse_args(["host", "--table", "Kitchen"])
    _old_table_name(args, sys.stderr)
    assert _hosting(args).name == "Kitchen"
    args = parser.parse_args(["host", "--name", "Attic"])
    _old_table_name(args, sys.stderr)
    assert _hosting(args).name == "Attic"
    assert "the table's name is --table now" in capsys.readouterr().err
    code, _, err = run(capsys, "host", "--name", "A", "--table", "B")
    assert code == 2
    assert "give the table's name once" in err
    with pytest.raises(SystemExit):
        main(["host", "--help"])
    out = capsys.readouterr().out
    assert "--table T" in out
    assert "--name" not in out


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(
    not (ROOT / ".venv" / "bin" / "lanswitch").exists(), reason="needs make's .venv"
)
def test_make_play_says_the_command_friends_really_have(tmp_path: Path) -> None:
    """It said "friends join with: lanswitch join", which a fresh clone does not have."""
    result = subprocess.run(
        ["make", "--no-print-directory", "play", "ARGS=--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert "friends join with: .venv/bin/lanswitch join" in first, first


def test_make_offline_says_the_first_install_needs_the_package_index(tmp_path: Path) -> None:
    """Offline, the first ``make`` ended in pip's retries and nothing more. The package index
    here is a loopback port nothing listens on (no traffic leaves the machine)."""
    for name in ("Makefile", "pyproject.toml"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    env = {
        **os.environ,
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "PIP_RETRIES": "0",
        "PIP_TIMEOUT": "2",
        "PIP_NO_CACHE_DIR": "1",
        "PIP_FIND_LINKS": "",
    }
    result = subprocess.run(
        ["make", "--no-print-directory", f"PYTHON={sys.executable}", ".venv/.installed"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert result.returncode != 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("make: the first install needs the Python package index"), (
        result.stdout + result.stderr
    )


def test_make_play_installs_what_play_needs_and_not_the_test_tools(tmp_path: Path) -> None:
    """The newcomer pass: ``make play`` installed pytest, hypothesis and ruff, which only
    ``make test`` uses. Read from make's plan (``make -n``: nothing is run or downloaded)
    in a copy of the Makefile: ``play`` installs ``.[build]`` (mypyc, for the compiled
    engine), ``test`` installs ``.[test]``, and a project ``make test`` set up is not
    installed again by ``make play``."""
    for name in ("Makefile", "pyproject.toml"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    for source in ("game", "heuristic", "search", "cards"):
        (tmp_path / "lanswitch").mkdir(exist_ok=True)
        (tmp_path / "lanswitch" / f"{source}.py").touch()

    def make(*args: str) -> str:
        """make's output in the copy (with this Python); it must succeed."""
        result = subprocess.run(
            ["make", "--no-print-directory", f"PYTHON={sys.executable}", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    def plan(target: str) -> str:
        return make("-n", target)

    play, test = plan("play"), plan("test")
    assert "-e '.[build]'" in play
    assert "[test]" not in play
    assert "-e '.[test]'" in test
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    build = set(extras["optional-dependencies"]["build"])
    assert build <= set(extras["optional-dependencies"]["test"])  # test can build, too
    assert not any(tool in " ".join(build) for tool in ("pytest", "hypothesis", "ruff"))
    # After make test: play's stamp is made without pip (PIP=false would fail the recipe).
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # this venv's, with pip
    python.chmod(0o755)
    (tmp_path / ".venv" / ".installed").touch()
    os.utime(tmp_path / "pyproject.toml", (1e9, 1e9))  # older than make test's stamp
    said = make("PIP=false", ".venv/.installed-play")
    assert (tmp_path / ".venv" / ".installed-play").exists()
    assert "installing" not in said


def test_ctrl_c_while_make_compiles_the_engine_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C during ``make``'s compile (``python -m lanswitch._build``) printed a
    traceback from deep inside subprocess."""
    import signal
    import time

    # A person's Ctrl-C reaches a program that takes SIGINT. A test run started in the
    # background of a shell without job control inherits SIGINT ignored (POSIX), and Python
    # keeps an ignored SIGINT ignored: the child takes it back, as a terminal's program has it.
    code = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from lanswitch._build import run; raise SystemExit(run())"
    )
    build = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)  # mypyc is at work (it takes half a minute)
    assert build.poll() is None
    build.send_signal(signal.SIGINT)  # our own child, by its handle
    _, err = build.communicate(timeout=60)
    assert build.returncode == 130, err
    assert "Traceback" not in err, err
    assert err.strip() == (
        "lanswitch: compiling the engine was interrupted; the pure Python engine will run "
        "(make compiles it next time)"
    )


def test_play_with_fewer_seats_fills_them_with_bots_without_being_told() -> None:
    """The newcomer pass: ``play --seats 2`` said "--bots 3 leaves no seat for you at 2
    seats" — the default of 3 bots, never given. Without --bots, the bots fill the other seats
    of a smaller table; given, the number is kept (and checked)."""
    from lanswitch.cli import build_parser
    from lanswitch.cli.args import _play_settings

    parser = build_parser()
    for argv, bots, seats in (
        (["play"], 3, 4),
        (["play", "--seats", "2"], 1, 2),
        (["play", "--seats", "3"], 2, 3),
        (["play", "--seats", "6"], 3, 6),
        (["play", "--bots", "1"], 1, 4),
        (["play", "--seats", "2", "--bots", "0"], 0, 2),
    ):
        table = _play_settings(parser.parse_args(argv)).table
        assert (table.bots, table.seats) == (bots, seats), argv


def test_play_and_host_pick_how_the_bots_play_with_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--level easy|normal|hard`` reaches the table's host as the strategy of every bot it
    seats (normal when not given); another word is refused in a sentence that lists them.
    ``--no-hints`` turns the table's hints off."""
    from lanswitch.cli import build_parser
    from lanswitch.cli.args import _hosting, _play_settings
    from lanswitch.netcmd import host_config
    from lanswitch.tui.run import play_config

    parser = build_parser()
    rules = PRESETS["switch"]
    for level in ("easy", "normal", "hard"):
        play = _play_settings(parser.parse_args(["play", "--level", level]))
        assert play_config(play, rules).bot_strategy == level
        hosting = _hosting(parser.parse_args(["host", "--bots", "2", "--level", level]))
        assert host_config(hosting, rules).bot_strategy == level
    assert _play_settings(parser.parse_args(["play"])).table.level == "normal"
    # Hints: allowed unless --no-hints.
    assert play_config(_play_settings(parser.parse_args(["play"])), rules).hints
    quiet = _play_settings(parser.parse_args(["play", "--no-hints"]))
    assert not play_config(quiet, rules).hints
    assert not host_config(_hosting(parser.parse_args(["host", "--no-hints"])), rules).hints
    with pytest.raises(SystemExit) as e:
        main(["play", "--level", "genius"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'genius' (choose from 'easy', 'normal', 'hard')" in err


def test_a_slow_simulation_says_its_rate_in_figures_not_zero() -> None:
    """Four hard bots play a hand in some 14 s: "0 hands/s" said nothing (the newcomer pass)."""
    from lanswitch.cli.commands import _rate

    assert _rate(0.0714) == "0.071"
    assert _rate(2.5) == "2.5"
    assert _rate(2338.4) == "2,338"


def test_a_table_carried_on_with_other_settings_given_is_not_called_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newcomer pass: ``make play ARGS="--rules blackjack --level hard"`` after ``q``
    mid-match offered the table as "stopped mid-match", and on "y" went on with "the
    interrupted table keeps its own settings" — the word the offer no longer uses for a table
    stopped on purpose. The line says what happens without judging how the table stopped."""
    import argparse
    import io

    import lanswitch.preflight
    from lanswitch.cli.args import _offer_resume
    from lanswitch.cli.parser import build_parser

    monkeypatch.setattr(lanswitch.preflight, "offer_resume", lambda *a, **k: True)
    args: argparse.Namespace = build_parser().parse_args(
        ["--data-dir", str(tmp_path), "play", "--rules", "blackjack", "--level", "hard"]
    )
    err = io.StringIO()
    _offer_resume(args, err)
    assert args.resume is True
    said = err.getvalue()
    assert "interrupted" not in said, said
    assert said == "the table carried on keeps its own settings (--rules, --level not used)\n"


def test_simulate_summary_fits_an_80_column_terminal_without_cutting_words() -> None:
    """The newcomer pass: at an 80-column terminal the summary's lines ran on past the edge
    and the terminal cut them mid-word ("108 play" / "er actions/s", "normal 13." / "3%").
    At a terminal each line is broken at spaces to fit it, and goes on indented."""
    import io

    from lanswitch.cli.commands import _summary
    from lanswitch.rules import PRESETS
    from lanswitch.simulate import simulate

    rules = PRESETS["blackjack"]
    stats = simulate(rules, 4, 5, ["heuristic", "random", "random", "random"], 3)
    whole, fitted = io.StringIO(), io.StringIO()
    _summary(stats, 3, whole, rules)
    _summary(stats, 3, fitted, rules, width=80)
    assert any(len(line) > 79 for line in whole.getvalue().splitlines())  # else no test
    lines = fitted.getvalue().splitlines()
    assert all(len(line) <= 79 for line in lines), lines
    assert fitted.getvalue().split() == whole.getvalue().split()  # no word cut, none lost
    assert any(line.startswith("  ") for line in lines), lines


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_verify_at_a_narrow_terminal_breaks_its_lines_at_spaces(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The newcomer pass: ``verify FILE`` printed its verdict as one line of some 250
    characters (the path, the hand, who kept it, the moves checked, who won), and the
    terminal cut it wherever its edge fell, mid-word. At a terminal each line now breaks at
    spaces and goes on indented; to a pipe it stays one line a file, as scripts read it."""
    from tests.terminal import Tmux

    files = _transcripts(capsys, tmp_path / "t")
    for name, f in zip(("a.json", "b.json"), files, strict=False):
        (tmp_path / name).write_bytes(f.read_bytes())
    verify = f"{sys.executable} -m lanswitch verify a.json b.json gone.json"
    piped = subprocess.run(
        verify + " 2>&1", shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert any(len(line) > 60 for line in piped.stdout.splitlines())  # else no test
    term = Tmux(f"{verify}; echo EXITED $?; sleep 30", {**os.environ}, size=(60, 24), cwd=tmp_path)
    try:
        screen = term.wait_for("EXITED", 30)
    finally:
        term.kill()
    shown = screen[: screen.index("EXITED")]
    assert all(len(line) < 60 for line in shown.splitlines()), shown
    assert shown.split() == piped.stdout.split(), shown  # no word cut, none lost
    assert "\n  " in shown, shown  # a verdict goes on, indented
    assert "EXITED 2" in screen  # gone.json: unreadable


def test_the_resume_line_names_the_command_as_it_can_be_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newcomer pass: after ``make play`` (which runs ``.venv/bin/lanswitch``, on no
    PATH), Ctrl-C said "lanswitch play --resume carries it on", and typing that gave
    "command not found". The line names the program as it was started, unless its name
    alone finds that very program."""
    from lanswitch.tui.run import program

    script = tmp_path / "venv" / "bin" / "lanswitch"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert program(str(script)) == str(script)  # not on PATH: the path
    monkeypatch.setenv("PATH", f"{script.parent}:/usr/bin:/bin")
    assert program(str(script)) == "lanswitch"  # on PATH: the name
    assert program("/somewhere/__main__.py").endswith(" -m lanswitch")
