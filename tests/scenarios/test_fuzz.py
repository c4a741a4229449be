"""A short fuzz soak (``benchmarks/fuzz.py`` runs the long one): random and mutated frames,
inside TLS and as plaintext, against a live host on loopback while a bot game is played there.
The host must not crash or hang, and the game must finish with every hand verified fair."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_fuzz_soak_leaves_the_host_and_its_game_standing() -> None:
    fuzz = load_script("benchmarks/fuzz.py", "lanswitch_fuzz")
    result = asyncio.run(asyncio.wait_for(fuzz.soak(6000, 6, seed=11, tls_share=0.85), 240))
    assert result.frames >= 6000
    assert result.plaintext_frames > 0
    assert result.closed_by_host > 0  # the bad frames were noticed
    assert result.crashes == 0, result.notes
    assert result.hangs == 0, result.notes
    assert result.game_finished, result.notes
    assert result.game_fair
    assert result.game_hands >= 2
