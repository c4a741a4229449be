"""The compiled engine (mypyc) and the source engine are the same engine, and a stale build
never runs."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import lanswitch
from lanswitch import _native
from lanswitch import game as loaded
from lanswitch.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent


def pure_engine() -> ModuleType:
    """``lanswitch/game.py`` loaded from source under another name, beside whatever runs."""
    spec = importlib.util.spec_from_file_location(
        "lanswitch._pure_game_for_tests", _native.HERE / "game.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_engine_in_use_is_reported() -> None:
    assert lanswitch.ENGINE == "compiled" or lanswitch.ENGINE.startswith("pure")
    compiled = str(loaded.__file__).endswith((".so", ".pyd"))
    assert compiled == (lanswitch.ENGINE == "compiled")


def test_a_compiled_build_present_is_current() -> None:
    if not _native.compiled_files():
        pytest.skip("no compiled engine here (make builds it)")
    stamp = _native.STAMP.read_text(encoding="ascii").strip()
    assert stamp == _native.source_digest(), "the compiled engine is stale: run make"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_source_and_loaded_engines_play_the_same_hands(preset: str) -> None:
    pure = pure_engine()
    rules = PRESETS[preset]
    for seed in range(6):
        players = 2 + seed
        games = [
            pure.Game(rules, players, dealer=seed % players),
            loaded.Game(rules, players, dealer=seed % players),
        ]
        rng = random.Random(seed)
        for _ in range(20_000):
            if games[0].over:
                break
            legal = [list(g.legal_moves()) for g in games]
            assert legal[0] == legal[1]
            if not legal[0]:
                req = [g.chance_request() for g in games]
                assert req[0] == req[1]
                assert req[0] is not None
                order = req[0][1]
                rng.shuffle(order)
                events = [g.apply_chance(order) for g in games]
            else:
                move = legal[0][int(rng.random() * len(legal[0]))]
                events = [g.apply(g.turn, move) for g in games]
            assert events[0] == events[1]
        assert games[0].over
        assert games[1].over
        r0, r1 = games[0].result, games[1].result
        assert r0 is not None
        assert r1 is not None
        assert (r0.reason, r0.placings, r0.scores) == (r1.reason, r1.placings, r1.scores)


def test_the_source_engine_replays_the_golden_hands() -> None:
    from tests.golden.gen import events_digest

    pure = pure_engine()
    for path in sorted((ROOT / "tests" / "golden").glob("*.json")):
        for hand in json.loads(path.read_text(encoding="utf-8")):
            game = pure.Game(
                PRESETS[hand["preset"]],
                hand["players"],
                dealer=hand["dealer"],
                hand_no=hand["hand_no"],
            )
            events = []
            for seat, entry in hand["log"]:
                events += (
                    game.apply_chance(entry) if isinstance(entry, list) else game.apply(seat, entry)
                )
            assert events_digest(events) == hand["events_sha256"], path.name


def _import_in(directory: Path, env: dict[str, str]) -> list[str]:
    """The engine lanswitch says it runs, and the file each compiled module came from (the
    search imported first, as the bots' registry does: it must bring the same engine)."""
    code = (
        "import lanswitch, lanswitch.search as s, lanswitch.heuristic as h, lanswitch.game as g"
        "; print(lanswitch.ENGINE); print(g.__file__); print(h.__file__); print(s.__file__)"
        "; assert s.Game is g.Game and h.View is g.View"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return proc.stdout.splitlines()


def test_a_stale_or_refused_build_falls_back_to_the_source(tmp_path: Path) -> None:
    if not _native.compiled_files():
        pytest.skip("no compiled engine here (make builds it)")
    shutil.copytree(
        _native.HERE, tmp_path / "lanswitch", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LANSWITCH_PURE")}
    env["PYTHONPATH"] = str(tmp_path)
    engine, *paths = _import_in(tmp_path, env)
    assert engine == "compiled"
    assert all(p.endswith(".so") for p in paths), paths
    # Forced off.
    engine, *paths = _import_in(tmp_path, env | {"LANSWITCH_PURE": "1"})
    assert engine.startswith("pure")
    assert [Path(p).name for p in paths] == ["game.py", "heuristic.py", "search.py"]
    # The bots' search edited after the build: stale, and every compiled module runs from
    # its source (a compiled search over a source engine, or the other way, would not run).
    search = tmp_path / "lanswitch" / "search.py"
    kept = search.read_text(encoding="utf-8")
    search.write_text(kept + "\n# edited\n", encoding="utf-8")
    engine, *paths = _import_in(tmp_path, env)
    assert "stale" in engine
    assert [Path(p).name for p in paths] == ["game.py", "heuristic.py", "search.py"]
    search.write_text(kept, encoding="utf-8")
    # The rule table the engine was compiled against changed (a module of the rules
    # package): stale too. Then put back, the build is current again.
    table = tmp_path / "lanswitch" / "rules" / "table.py"
    before = table.read_text(encoding="utf-8")
    table.write_text(before + "\n# edited\n", encoding="utf-8")
    engine, path, *_ = _import_in(tmp_path, env)
    assert "stale" in engine
    assert path.endswith("game.py")
    table.write_text(before, encoding="utf-8")
    engine, *_ = _import_in(tmp_path, env)
    assert engine == "compiled"
    # The source changed after the build: the build is stale and must not run.
    src = tmp_path / "lanswitch" / "game.py"
    src.write_text(src.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    engine, path, *_ = _import_in(tmp_path, env)
    assert "stale" in engine
    assert path.endswith("game.py")
