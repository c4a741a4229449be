"""``benchmarks/fairness.py --blind-net`` runs whole with tiny counts: every table (a real
server and host in one process, real client bots in another, on 127.0.0.1 over TLS) plays its
hand out, every verdict is fair, and every figure the report is made of comes back.

Its figures say nothing at these counts; this only keeps the benchmark working."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.scripts import ROOT


def test_the_blind_net_benchmark_plays_every_table_and_reports_each_figure() -> None:
    args = ["--blind-net", "--json", "--hands", "1", "--whole-hands", "1", "--net-players", "2"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fairness.py"), *args, "--limit", "60"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(proc.stdout)["blind_net"]
    assert report["problems"] == []
    tables = report["tables"]
    assert set(tables) == {"switch 2", "big 2", "switch 1+3"}
    for key, pair in tables.items():
        assert set(pair) == {"cr", "blind"}, key
        for mode, r in pair.items():
            assert r["hands"] == 1, (key, mode)
            assert r["verdicts"] == ["fair"], (key, mode, r["error"])
            assert r["deal_ms"] is not None, (key, mode)
            assert r["deal_ms"] > 0, (key, mode)
            assert r["hand_to_verdict_ms"] >= r["hand_to_over_ms"] > 0, (key, mode)
    figures = {row["figure"] for row in report["rows"]}
    assert "deal: 2 people + host, 52 cards" in figures
    assert any(f.startswith("whole hand, 1 client + 3 host bots") for f in figures)
