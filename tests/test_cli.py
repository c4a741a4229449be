"""The command line, run for real: in-process through ``main`` and as ``python -m lanswitch``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

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
    assert "Power cards fired per hand: two" in out


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
