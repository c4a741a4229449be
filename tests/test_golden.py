"""The engine reproduces recorded hands exactly (see tests/golden/gen.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanswitch.game import Event, Game
from lanswitch.rules import PRESETS
from tests.golden.gen import events_digest

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_recorded_hands_replay_event_for_event(preset: str) -> None:
    hands = json.loads((GOLDEN / f"{preset}.json").read_text(encoding="utf-8"))
    assert len(hands) == 3
    for hand in hands:
        game = Game(
            PRESETS[preset], hand["players"], dealer=hand["dealer"], hand_no=hand["hand_no"]
        )
        events: list[Event] = []
        for seat, entry in hand["log"]:
            if isinstance(entry, list):
                events += game.apply_chance(entry)
            else:
                assert entry in game.legal_moves()
                events += game.apply(seat, entry)
        assert game.result is not None
        assert len(events) == hand["events"]
        assert events_digest(events) == hand["events_sha256"]
        expected = hand["result"]
        assert game.result.reason == expected["reason"]
        assert list(game.result.placings) == expected["placings"]
        assert list(game.result.scores) == expected["scores"]
        assert game.result.actions == expected["actions"]
