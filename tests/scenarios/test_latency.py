"""``benchmarks/latency.py --quick`` runs whole: every phase connects, times round trips and
counts no error, and the lanswitch clients check every hand that ends fair.

The figures of a quick run say nothing (seconds of load on a shared machine); this only keeps
the benchmark working, so that the issue's figures can be measured again at any time. Traffic
stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.scripts import ROOT


def test_the_quick_latency_benchmark_runs_every_phase_without_an_error() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "latency.py"), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(proc.stdout)
    sessions = report["sessions"]
    expected = {"echo_one#1", "ours_one#1", "echo_b2b", "echo_load", "fan_load", "ours_load"}
    expected |= {"echo_ramp", "fan_ramp", "ours_ramp"}
    assert set(sessions) == expected
    clients = report["sizes"]["clients"]
    for name, session in sessions.items():
        assert session["failure"] is None, (name, session["failure"])
        one = name.endswith("#1") or name == "echo_b2b"
        assert session["connected"] == (1 if one else clients), name
        assert not session["outside_errors"], (name, session["outside_errors"])
        assert session["steps"], name
        for step in session["steps"]:
            assert step["errors"] == 0, (name, step["error_kinds"])
            assert step["round_trips"] > 0, name
            assert math.isfinite(step["p99_ms"]), name
            # The load's client processes run without their collector (a thousand clients'
            # young collections stalled them for milliseconds), and say what they hold.
            assert step["client_loop_lag_ms"]["gc_total"] == 0, name
            assert step["client_rss_kib"] > 0, name
            assert math.isfinite(step["server_loop_lag_ms"]["off_cpu_p99"]), name
    # With two cores or more the server has one to itself (the load cannot put it off it).
    cores = report["sizes"]["cores"]
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2:
        assert cores is not None
        assert not set(cores["server"]) & set(cores["clients"])
    else:
        assert cores is None
    # Hands end during the run, and every one a client checked was fair (an unfair verdict
    # would be an error above): the checks, moved off the clients' loop, still happen.
    checked = sum(
        step["checked_per_s"]
        for name in ("ours_one#1", "ours_ramp")
        for step in sessions[name]["steps"]
    )
    assert checked > 0
    a = report["a_one_client"]
    assert a["ours_p50_ms"] is not None
    # Protocol v2: the client signs each move (timed inside its round trip, and alone).
    assert a["ours_sign_us"] is not None
    assert 0 < a["ours_sign_us"] < a["ours_p50_ms"] * 1000
    assert a["echo_back_to_back_p50_ms"] is not None
    # The floors: one signature check, timed in the parent once the phases are over.
    assert a["verify_us"] > 0
    assert a["floor_ratio"] > 1
    assert report["b_paced_load"]["cpu_floor_ratio_to_fanout"] > 1
    b = report["b_paced_load"]
    for key in ("ours_p99_ms", "echo_p99_ms", "fanout_p99_ms"):
        assert b[key] is not None, key
        assert b[key] > 0, key
    assert isinstance(b["fanout_meets_target"], bool)
    assert b["ours_sign_us"] is not None
    assert b["ours_sign_us"] > 0
    for who in ("ours_cpu", "fanout_cpu"):  # the CPU an action costs, server and clients
        assert b[who]["server_ms_per_action"] > 0, who
        assert b[who]["clients_ms_per_action"] > 0, who
        assert b[who]["cores_at_offered_rate"] > 0, who
    assert report["c_highest_rate"]["fanout_per_s"] is not None


def test_the_load_generator_decodes_a_payload_its_clients_share_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``share_decodes`` (issue #17): the first of a table's clients decodes a frame the others
    are sent too, and they get that same message; a bad frame is refused every time."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from _latency_harness import _SharedDecodes
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from lanswitch import protocol as p
    from lanswitch.host import HostConfig
    from tests.tablenet import TableNet

    shared = _SharedDecodes(p.decode_frame_payload)
    calls: list[bytes] = []

    def decode(payload: bytes) -> p.Message:
        calls.append(payload)
        message: p.Message = shared(payload)
        return message

    monkeypatch.setattr(p, "decode_frame_payload", decode)
    net = TableNet(HostConfig(name="T", seats=4, bots=0, bot_delay=0.0, hands=1))
    links = [net.join(name) for name in ("ann", "bob", "cat", "dan")]
    net.run(lambda: net.host.finished)
    monkeypatch.undo()
    # The sessions fed shared messages still play the hand through and find it fair.
    for link in links:
        assert [r.judgement is not None and r.judgement.fair for r in link.session.history] == [
            True
        ]
    # Every view is a seat's own, but a step's public events, the deal's messages and the
    # lobby go to all four: about a third of what the clients received was decoded before.
    assert shared.hits >= len(calls) // 4
    assert shared.hits + len(shared.memo) == len(calls)
    payload = p.encode_message(p.Ping(nonce=7))
    assert shared(payload) is shared(payload)
    for _ in range(2):
        with pytest.raises(p.RemoteProtocolError):
            shared(b"\xc1")
    assert b"\xc1" not in shared.memo


def test_the_host_move_benchmark_runs() -> None:
    """``benchmarks/host_move.py`` (issue #17's per-move cost without sockets) runs whole."""
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "host_move.py"),
            "--moves",
            "40",
            "--tables",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("one signature check (the anchor):")
    assert sum("table(s): receive" in line for line in lines) == 4
