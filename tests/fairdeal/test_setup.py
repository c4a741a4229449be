"""A hand's setup (``lanswitch/fairdeal/setup.py``): its context, note and people, every field
bound into the log, and each bad setup refused in words."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from lanswitch.fairdeal import HandSetup, Log, Note, SetupError, UsageError
from lanswitch.fairdeal import primitives as fp
from lanswitch.fairdeal.primitives import DEALER
from tests.fairdeal.handkit import GAME, PUB, RULES, SEATS, S, _enc, _u32, raw_key, setup

# =============================================================================================
# The setup


def test_setup_context_note_and_people() -> None:
    s = setup(turn_timer_ms=12_345, dealer=1, out=(2,))
    assert s.ctx0 == fp.hand_context(GAME, 1, 1, 0, SEATS, PUB)
    data = hashlib.sha256(RULES.encode()).digest() + bytes([1, 1, 2]) + _u32(12_345) + b"\x00"
    assert s.note == Note("setup", data)
    # Names, when the setup has them: u8(count) then each as enc(UTF-8), after the timer.
    named = setup(turn_timer_ms=12_345, dealer=1, out=(2,), names=("Ann", "Bø", "", "Dave"))
    ann = data[:-1] + b"\x04" + b"".join(_enc(n.encode()) for n in ("Ann", "Bø", "", "Dave"))
    assert named.note == Note("setup", ann)
    assert named.ctx0 == s.ctx0  # ctx_0 is unchanged: the note binds the names
    assert s.note.encode() == b"\x05" + _enc("setup") + _enc(data)
    assert s.humans == {0, 1, 3}
    assert s.participants == ("alice", "bob", "dave", DEALER)
    assert [s.host_runs(i) for i in range(4)] == [False, False, True, False]
    assert s.players == 4
    game = s.new_game()
    assert (game.players, game.dealer, game.active) == (4, 1, [True, True, False, True])
    # create() writes the rules out; from_toml() keeps the text it was given.
    made = HandSetup.create(GAME, 1, s.rules, SEATS, PUB)
    assert made.ctx0 == s.ctx0
    assert made.note != S.note  # another text of the rules (dump_toml), another digest


def test_setup_binds_every_field_into_the_log() -> None:
    """Every field of the setup changes ``ctx_0`` or the setup note, so the head after the
    note (what every round and move signs over) differs."""

    def head(s: HandSetup) -> bytes:
        return Log(s.ctx0, [s.note]).head

    base = head(S)
    variants = [
        HandSetup.from_toml(bytes(16), 1, RULES, SEATS, PUB),
        setup(hand_no=2),
        HandSetup.from_toml(GAME, 1, RULES + "# a comment\n", SEATS, PUB),
        HandSetup.from_toml(GAME, 1, 'base = "switch"\n[deal]\njokers = 1\n', SEATS, PUB),
        HandSetup.from_toml(GAME, 1, RULES, ("alice", "bob", "dave", "carol"), PUB),
        HandSetup.from_toml(GAME, 1, RULES, SEATS, {p: k for p, k in PUB.items() if p != "dave"}),
        HandSetup.from_toml(GAME, 1, RULES, SEATS, dict(PUB, carol=fp.public_bytes(raw_key(2)))),
        setup(dealer=1),
        setup(out=(2,)),
        setup(turn_timer_ms=5000),
    ]
    assert len({base, *(head(s) for s in variants)}) == 1 + len(variants)


@pytest.mark.parametrize(
    ("kw", "error"),
    [
        ({"seats": ("alice",)}, UsageError),
        ({"seats": ("alice", "alice")}, UsageError),
        ({"seats": ("alice", "b c")}, UsageError),
        ({"keys": dict(PUB, eve=PUB["alice"])}, UsageError),
        ({"keys": {p: k for p, k in PUB.items() if p != DEALER}}, UsageError),
        ({"keys": dict(PUB, alice=bytes(31))}, UsageError),
        ({"dealer": 4}, UsageError),
        ({"out": (0,)}, UsageError),  # the dealer sits out
        ({"out": (3, 1)}, UsageError),
        ({"out": (1, 2, 3)}, UsageError),  # one player left
        ({"turn_timer_ms": -1}, UsageError),
        ({"turn_timer_ms": 1}, UsageError),  # a "timer" that lets the host play every turn
        ({"turn_timer_ms": 4999}, UsageError),
        ({"turn_timer_ms": 2**32}, UsageError),
    ],
)
def test_setup_refusals(kw: dict[str, Any], error: type[Exception]) -> None:
    args: dict[str, Any] = {
        "game_id": GAME,
        "hand_no": 1,
        "rules": S.rules,
        "rules_toml": RULES,
        "seats": SEATS,
        "keys": PUB,
    }
    args.update(kw)
    with pytest.raises(error):
        HandSetup(**args)


def test_setup_from_toml_says_what_is_wrong() -> None:
    with pytest.raises(SetupError, match="not valid TOML"):
        HandSetup.from_toml(GAME, 1, "base = ", SEATS, PUB)
    with pytest.raises(SetupError, match="rules"):
        HandSetup.from_toml(GAME, 1, 'base = "no such game"\n', SEATS, PUB)
    with pytest.raises(SetupError):
        HandSetup.from_toml(GAME, 1, RULES, SEATS, PUB, out=(3, 1))
    with pytest.raises(SetupError):
        HandSetup.from_toml(GAME, 1, RULES, ("alice",), PUB)


def test_setup_refuses_an_empty_key() -> None:
    """LIBRARY BUG (fails today): ``HandSetup`` takes ``keys={"carol": b""}``. It counts carol
    as a person (``humans``, ``participants``), while ``ctx_0`` is byte for byte that of a
    hand where carol is the host's bot (an empty key is how ``hand_context`` writes a bot), so
    two setups that disagree on who takes part in every round share one context — and carol
    can sign nothing. A key must be 32 bytes, or absent for a bot."""
    with pytest.raises(UsageError):
        HandSetup.create(GAME, 1, S.rules, SEATS, dict(PUB, carol=b""))
