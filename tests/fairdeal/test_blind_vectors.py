"""``protocol/vectors/blind.json`` against the code: the dealer-blind deal's card points, keys,
passes, opening, sealed release and signed messages (``protocol/SPEC.md``, "Dealer-blind");
``blind-engine.json`` against the rules engine (whose turn, what is turned up, which hidden
cards each step gives out) and SPEC.md's table of deck sizes against the presets; and every
file is what ``gen_blind.py`` writes, so the spec, the vectors and the code agree."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from lanswitch.fairdeal import DEALER
from lanswitch.fairdeal.blind import crypto as blind
from lanswitch.fairdeal.blind import file as blindfile
from lanswitch.fairdeal.blind.hand import move_message, shuffle_context
from lanswitch.fairdeal.blind.positions import apply_opened, drawn_positions, next_turn_up
from lanswitch.game import Game
from lanswitch.rules import PRESETS, rules_from_mapping
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
PATH = ROOT / "protocol" / "vectors" / "blind.json"
V: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
B = bytes.fromhex


def test_the_file_is_what_the_generator_writes() -> None:
    gen = load_script("protocol/vectors/gen_blind.py", "gen_blind")
    assert PATH.read_text(encoding="utf-8") == gen.render(), (
        "run: python protocol/vectors/gen_blind.py --write"
    )


def test_the_whole_hand_is_what_the_generator_writes_and_checks_fair() -> None:
    """A whole small blind hand's file (``blind-hand.json``): the untouched check of a blind
    hand's file finds it fair, and a changed move in it is caught."""
    gen = load_script("protocol/vectors/gen_blind.py", "gen_blind")
    path = ROOT / "protocol" / "vectors" / "blind-hand.json"
    text = path.read_text(encoding="utf-8")
    assert text == gen.render_hand(), "run: python protocol/vectors/gen_blind.py --write"
    who, outcome = blindfile.check(text)
    assert (who, outcome.status) == ("alice", "fair")
    assert outcome.result is not None
    data = json.loads(text)
    moves = [s for s in data["steps"] if s[0] == "move" and s[1]["opening"] is None]
    moves[0][1]["move"] = 201 if moves[0][1]["move"] == 200 else 200  # a draw for a pass
    assert blindfile.check(json.dumps(data))[1].status != "fair"


def test_card_points_and_the_order_of_the_group() -> None:
    assert int(V["ell"]) == blind.ELL
    for card, point in V["card_points"].items():
        assert blind.card_point(B(V["ctx0"]), int(card)).hex() == point


def test_keys_passes_and_the_dealt_order() -> None:
    s = V["shuffle"]
    ctx = shuffle_context(B(V["ctx0"]), s["index"], s["cards"])
    assert ctx.hex() == s["ctx"]
    cur = [B(p) for p in s["input"]]
    keys = {}
    for p in s["participants"]:
        k = blind.BlindKeys.derive(ctx, p["id"], B(p["seed"]), len(s["cards"]))
        assert k.lock.hex() == p["lock"]
        assert list(k.perm) == p["perm"]
        assert [c.hex() for c in k.positions] == p["position_keys"]
        keys[p["id"]] = k
    for number in (1, 2):
        for pid in s["order"]:
            step = blind.lock_pass if number == 1 else blind.key_pass
            cur = step(cur, keys[pid])
            assert [p.hex() for p in cur] == s["outputs"][f"{pid}/{number}"]
    seeds = {p["id"]: B(p["seed"]) for p in s["participants"]}
    assert blind.dealt_order(ctx, s["cards"], s["order"], seeds) == s["dealt_order"]
    o = V["open"]
    j = o["position"]
    got = blind.open_position(B(o["point"]), [keys[p].positions[j] for p in s["order"]])
    assert got.hex() == o["card_point"] == V["card_points"][str(o["card"])]
    lock = V["lock"]
    assert blind._mult(B(lock["scalar"]), B(lock["point"])).hex() == lock["locked"]


@pytest.mark.parametrize("part", ["release", "pass", "move"])
def test_signed_and_sealed_messages(part: str) -> None:
    s = V["shuffle"]
    ctx = B(s["ctx"])
    if part == "release":
        r = V["release"]
        msg = blind.release_message(ctx, r["sender"], r["to"], r["position"], B(r["key"]))
        assert msg.hex() == r["message"]
        sealed = blind.seal_release(
            B(r["sender_private"]),
            B(r["to_public"]),
            ctx,
            r["sender"],
            r["to"],
            r["position"],
            B(r["key"]),
            B(r["signature"]),
        )
        assert sealed.hex() == r["sealed"]
        opened = blind.unseal_release(
            B(r["to_private"]),
            B(r["sender_public"]),
            ctx,
            r["sender"],
            r["to"],
            r["position"],
            sealed,
        )
        assert opened == (B(r["key"]), B(r["signature"]))
    elif part == "pass":
        p = V["pass_message"]
        points = [B(x) for x in s["outputs"][f"{p['pid']}/{p['number']}"]]
        assert blind.pass_message(ctx, p["pid"], p["number"], points).hex() == p["bytes"]
    else:
        m = V["move_message"]
        got = move_message(B(V["ctx0"]), m["seq"], m["seat"], m["by"], m["move"], m["hidden"])
        assert got.hex() == m["bytes"]


# ---------------------------------------------------------------------------------------------
# The rules engine on a blind hand (blind-engine.json) and the presets' deck sizes (SPEC.md)

ENGINE_PATH = ROOT / "protocol" / "vectors" / "blind-engine.json"
E: dict[str, Any] = json.loads(ENGINE_PATH.read_text(encoding="utf-8"))
SPEC = (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8")


def test_the_engine_vectors_and_the_deck_table_are_what_the_generator_writes() -> None:
    gen = load_script("protocol/vectors/gen_blind.py", "gen_blind")
    assert ENGINE_PATH.read_text(encoding="utf-8") == gen.render_engine(), (
        "run: python protocol/vectors/gen_blind.py --write"
    )
    assert gen.deck_table() in SPEC, "run: python protocol/vectors/gen_blind.py --write"


def test_the_deck_sizes_are_the_engines() -> None:
    """Each preset's deck (``|D|`` of the deal: the cards ``chance_request`` awaits) and hand
    size, for every number of players dealt in, as the engine deals them."""
    assert set(E["deck_sizes"]) - {"about"} == set(PRESETS)
    for name, rules in PRESETS.items():
        for players, (decks, jokers, cards, hand) in enumerate(E["deck_sizes"][name], 2):
            game = Game(rules, players)
            req = game.chance_request()
            assert req is not None
            assert req[1] == [*range(52 * decks), *range(104, 104 + jokers)], (name, players)
            assert len(req[1]) == cards
            game.apply_chance(req[1])
            assert game.counts == [hand] * players, (name, players)


@pytest.mark.parametrize("hand", E["hands"], ids=lambda h: h["preset"])
def test_the_engine_vectors_are_what_the_engine_says(hand: dict[str, Any]) -> None:
    """A blind hand followed on public information by the rules engine alone (no keys, no
    seeds), as a second implementation would check its own engine against the vector: each
    shuffle is awaited with its cards, turns up the positions listed in that order, and gives
    the hidden cards listed; each move is the listed seat's, its laid card revealed first; the
    engine's events, the next seat to act and the piles are the vector's at every step."""
    rules = rules_from_mapping(tomllib.loads(hand["rules"]), source="the vector's rules")
    seats = hand["seats"]
    game = Game(rules, len(seats), dealer=hand["dealer"], out=hand["out"], blind=True)
    base = E["hidden_base"]
    owners = hand["owners"]
    assert owners == [seats[s] if s in hand["people"] else DEALER for s in range(len(seats))]
    for step in hand["steps"]:
        if "shuffle" in step:
            assert game.chance_request() == (step["kind"], step["cards"])
            assert step["base"] == base
            n = len(step["cards"])
            opened: dict[int, int] = {}
            for j, card in step["turned_up"]:
                assert next_turn_up(game, base, n, opened) == j
                opened[j] = card
            assert next_turn_up(game, base, n, opened) is None
            events = apply_opened(game, base, n, opened)
            base += n
        else:
            assert game.chance_request() is None
            assert game.to_act() == step["seat"]
            assert step["by"] == owners[step["seat"]]
            if step["hidden"] >= 0:
                assert 0 <= step["code"] < 108
                game.reveal(step["hidden"], step["code"])
            events = game.apply(step["seat"], step["code"])
        assert [list(e) for e in events] == step["events"]
        gives = [[s, h, owners[s]] for s, h in drawn_positions(events)]
        assert gives == step["gives"]
        assert game.to_act() == step["to_act"]
        assert (game.counts, len(game.stock), len(game.discard), game.top) == (
            step["counts"],
            step["stock"],
            step["discard"],
            step["top"],
        )
    assert game.over
    assert game.result is not None
    assert list(game.result.placings) == hand["over"]["placings"]
    assert game.result.reason == hand["over"]["reason"]
