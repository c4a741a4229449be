"""``--blind`` on the command line: ``lanswitch host --blind`` and ``lanswitch play --blind``
make a dealer-blind table (``HostConfig.blind``), refuse ``--turn-timer`` beside it as a usage
error, keep it across ``--resume`` (from the journal), advertise it (TXT ``blind=1``) and list
it; a headless ``join`` prints each blind hand's verdict and keeps its file where transcripts
go. Real processes listen on 127.0.0.1 only, and zeroconf is bound to it."""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from lanswitch.cli import build_parser, main
from lanswitch.cli.args import _hosting, _play_settings
from lanswitch.host import HostConfig
from lanswitch.hosting import advertiser_for, new_table, resume_table
from lanswitch.rules import PRESETS
from lanswitch.tls import load_or_create_identity
from lanswitch.tui.run import play_config
from tests.scenarios.test_cli_net import LOOPBACK, env, host_factory, lanswitch
from tests.scenarios.test_cli_net import Host as HostProcess

__all__ = ["host_factory"]  # a fixture, imported for pytest to find here


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse's own errors
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_blind_reaches_the_hosts_config_for_host_and_for_play(tmp_path: Path) -> None:
    parser = build_parser()
    data = ["--data-dir", str(tmp_path)]
    hosting = _hosting(parser.parse_args(["host", "--blind", "--hands", "3", *data]))
    assert hosting.blind
    assert hosting.hands == 3
    assert not _hosting(parser.parse_args(["host", *data])).blind
    play = _play_settings(parser.parse_args(["play", "--blind", "--hands", "2", *data]))
    assert play.table.blind
    config = play_config(play, PRESETS["switch"])
    assert config.blind
    assert config.hands == 2  # play --hands ends the match, as host --hands does
    assert config.turn_timer == 0
    plain = play_config(_play_settings(parser.parse_args(["play", *data])), PRESETS["switch"])
    assert not plain.blind
    assert plain.hands is None


@pytest.mark.parametrize("command", ["host", "play"])
def test_blind_with_a_turn_timer_is_a_usage_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    code, out, err = run(
        capsys, "--data-dir", str(tmp_path), command, "--blind", "--turn-timer", "10"
    )
    assert code == 2
    assert out == ""
    assert "--blind and --turn-timer cannot go together" in err
    assert "Traceback" not in err
    assert not (tmp_path / "tables").exists()  # nothing was started: no journal made
    # Each alone is fine as far as the command line goes (checked without starting).
    parser = build_parser()
    assert parser.parse_args([command, "--turn-timer", "10"]).turn_timer == 10
    assert parser.parse_args([command, "--blind"]).blind


@pytest.mark.parametrize("command", ["host", "play"])
def test_resume_keeps_the_journals_blind_and_refuses_it_given_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    code, _, err = run(capsys, "--data-dir", str(tmp_path), command, "--resume", "--blind")
    assert code == 2
    assert "keeps the table's own settings; drop --blind" in err


def test_a_resumed_blind_table_is_still_blind_and_advertised_so(tmp_path: Path) -> None:
    """A crashed ``--blind`` host, resumed: the table's settings come from its journal, so
    the resumed table deals blind and advertises ``blind=1`` with no option given again."""
    config = HostConfig(name="Blind den", seats=3, bots=1, bot_delay=0.0, blind=True)
    table = new_table(config, tmp_path, address=LOOPBACK, port=0)
    assert table.journal is not None
    table.journal.set("port", 40999)  # as serve() does once it listens
    table.journal.close()  # the process dies: the journal stays
    back = resume_table(tmp_path)
    assert back.host.config.blind
    identity = load_or_create_identity(tmp_path)
    advertiser = advertiser_for(back, 40999, identity)
    assert advertiser.blind
    assert advertiser._properties()["blind"] == "1"
    assert back.journal is not None
    back.journal.finish()


def test_a_blind_table_hosted_listed_and_joined_headless_is_fair_and_verifies(
    tmp_path: Path, host_factory: Callable[..., HostProcess]
) -> None:
    name = f"Blind {uuid.uuid4().hex[:6]}"
    host = host_factory(
        *("--name", name, "--seats", "3", "--bots", "1", "--hands", "2", "--bot-delay", "0.05"),
        "--blind",
    )
    host_out = host.out_path.read_text()
    assert re.search(r"^rules switch, 3 seats, 1 bot, 2 hands, dealer-blind$", host_out, re.M)
    # Heard on the (loopback) network as dealer-blind, as JSON and as text.
    listed = [
        subprocess.run(
            lanswitch(tmp_path / "t", "tables", "--interface", LOOPBACK, "--timeout", "2", *more),
            capture_output=True,
            text=True,
            timeout=30,
            env=env(),
        )
        for more in (("--json",), ())
    ]
    rows = [r for r in json.loads(listed[0].stdout) if r["name"] == name]
    assert [r["dealer_blind"] for r in rows] == [True], listed[0].stdout
    line = next(x for x in listed[1].stdout.splitlines() if x.startswith(name))
    assert "seats free  dealer-blind" in line, listed[1].stdout
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    joins = [
        subprocess.Popen(
            lanswitch(
                tmp_path / f"d{i}",
                *("join", where, "--bot", "heuristic", "--name", who),
                *("--transcripts", str(transcripts), "--interface", LOOPBACK),
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        for i, (where, who) in enumerate(((name, "ann"), (f"{LOOPBACK}:{host.port}", "bob")))
    ]
    for j in joins:
        out, err = j.communicate(timeout=90)
        assert j.returncode == 0, (out, err)
        said = re.findall(r"^hand (\d) verified (.+?)(?:, file (.+))?$", out, re.M)
        fair = "fair (dealer-blind)"
        assert [(n, v) for n, v, _ in said] == [("1", fair), ("2", fair)], out
        assert all(Path(f).is_file() for _, _, f in said), out
        assert "the host ended the match" in out
    assert host.proc.wait(30) == 0
    files = sorted(transcripts.glob("*.json"))
    assert len(files) == 4  # two hands, two seats each
    verify = subprocess.run(
        lanswitch(tmp_path / "v", "verify", *map(str, files)),
        capture_output=True,
        text=True,
        timeout=60,
        env=env(),
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.count("FAIR (dealer-blind)") == 4, verify.stdout
    # Each join kept both hands in its history, with their files: verify --hand checks them.
    history = subprocess.run(
        lanswitch(tmp_path / "d0", "history"), capture_output=True, text=True, timeout=30
    )
    assert history.stdout.count("fair (dealer-blind), every card legal") == 2, history.stdout
    again = subprocess.run(
        lanswitch(tmp_path / "d0", "verify", "--hand", "1"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    # Who won is the file's replay's, said by the names its setup binds.
    assert again.stdout.startswith("history:1: FAIR (dealer-blind): "), again.stdout
    assert " won (" in again.stdout
