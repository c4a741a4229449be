"""A short join/leave soak (``benchmarks/soak.py`` runs the 5-minute, 1,000-client one): 40
client slots on 10 tables keep joining, playing, leaving cleanly or abruptly and resuming for
12 s against a host process with real TLS on loopback. Every error the script counts (client
side, host log, host loop, hangs) must be 0, the population must really have churned, and the
fair deal v2's targets hold: no hand void because someone left, no UNFAIR verdict.

The script runs as a subprocess through its command line, as a person would run it; it prints
its report as JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_soak(*args: str, timeout: float = 120.0) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "soak.py"), "--json", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )
    assert proc.stdout.strip(), f"no report (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    report: dict[str, Any] = json.loads(proc.stdout)
    report["exit_code"] = proc.returncode
    return report


def test_a_short_soak_churns_with_no_errors() -> None:
    rep = run_soak("--quick", "--duration", "12")
    counts = rep["counts"]
    clients = rep["sizes"]["clients"]
    # The population really churned: more joins than slots, every way of leaving, resumes.
    assert counts["joins"] > clients, counts
    assert counts.get("leaves", 0) > 0, counts
    assert counts.get("drops", 0) > 0, counts
    assert counts.get("resumes", 0) > 0, counts
    assert counts.get("moves_answered", 0) > 0, counts
    assert counts.get("seated_visits", 0) > 0, counts
    # Every wait was bounded and the hosts let go of everyone after the clients left.
    after = rep["host_after"]
    held = (after["conns"], after["clients"], after["keys"], after["away"])
    assert held == (0, 0, 0, 0), "\n".join([*rep["first_errors"], *rep.get("held", [])])
    # The fair deal v2's accounting: hands verified by players who stayed; no UNFAIR verdict
    # (honest parties only: it is also an error, below); every UNCONFIRMED verdict has a cause
    # (one without is an error). A hand void because someone left is issue #13's target (0):
    # the full soak judges it, and exits 1 when it is missed; protocol v2 still voids a hand
    # whose player goes between its commitment and its seed (SPEC § Going away), a window of a
    # round trip that a 12 s soak of 40 clients rarely hits, so here each such void must only
    # be counted with its cause, and the verdict and exit status must agree with the counts.
    v = rep["verdicts"]
    assert v["fair"] + v["unconfirmed"] > 0, v
    assert v["unfair"] == 0, v
    assert sum(v["unconfirmed_causes"].values()) >= v["unconfirmed"], v
    assert sum(v["void_hands_leaver_causes"].values()) >= v["void_hands_leaver"], v
    assert set(rep["targets"]) == {"void_because_someone_left", "unfair"}, rep["targets"]
    assert rep["targets"]["void_because_someone_left"]["got"] == v["void_hands_leaver"]
    # 0 errors: every kind the script counts, printed with the first lines if any.
    assert rep["errors"] == {}, "\n".join(rep["first_errors"])
    assert rep["error_total"] == 0
    met = all(t["met"] for t in rep["targets"].values())
    assert rep["passed"] == met, rep["targets"]
    assert rep["exit_code"] == (0 if met else 1)


def test_the_soak_can_fail() -> None:
    """A soak whose clients cannot all get in (40 slots at one table, past the host's 32
    connections) must count the refusals as errors and fail."""
    rep = run_soak("--quick", "--duration", "2", "--clients", "40", "--tables", "1")
    assert rep["errors"].get("error:table_full", 0) > 0, rep["errors"]
    assert rep["error_total"] > 0
    assert not rep["passed"]
    assert rep["exit_code"] == 1
