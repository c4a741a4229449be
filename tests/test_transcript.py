"""Fair hands end to end: the engine dealt by commit-reveal rounds, each seat's transcript as a
file, and its offline verification (``lanswitch.transcript``). Real crypto, real engine.

The helpers at the top (``play``, ``keys_for``, ``resign``, ``stock_model``) are shared with
``tests/test_tamper.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Iterable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import fairness as fz
from lanswitch.bots import HeuristicBot
from lanswitch.cards import deck_cards
from lanswitch.fairness import DEALER, Fault
from lanswitch.game import BLUNDER_FLAG, DRAW, Game, Match
from lanswitch.rules import PRESETS, RuleSet
from lanswitch.transcript import (
    Aborts,
    FairHand,
    FairHost,
    SignedHead,
    Transcript,
    TranscriptError,
    VoidRecord,
    card_events,
    move_event,
    play_fair_hand,
    public_keys_of,
    verify,
    verify_all,
)

GAME = bytes(range(16))

# ---------------------------------------------------------------------------------------------
# Helpers (also used by test_tamper.py)


def ids_for(players: int) -> list[str]:
    return [f"seat-{i + 1}" for i in range(players)]


def keys_for(ids: Iterable[str]) -> dict[str, Ed25519PrivateKey]:
    """Every participant's signing key, fixed per id (so a test can sign as anyone)."""
    return {
        p: fz.private_key(hashlib.sha256(b"test key " + p.encode()).digest())
        for p in fz.participants(list(ids))
    }


def random_mover(seed: int) -> Any:
    rng = random.Random(seed)

    def choose(game: Game) -> int:
        legal = game.legal_moves()
        return legal[int(rng.random() * len(legal))]

    return choose


def heuristic_mover(rules: RuleSet, seed: int) -> Any:
    rng = random.Random(seed)
    bot = HeuristicBot(rules)
    return lambda game: bot.choose(game.view(game.turn), rng)


def play(
    preset: str = "switch",
    players: int = 4,
    seed: int = 0,
    *,
    host_cls: type[FairHost] = FairHost,
    game: Game | None = None,
    rules: RuleSet | None = None,
    game_id: bytes = GAME,
    hand_no: int = 1,
    reveal: Any = None,
    mover: Any = None,
) -> FairHand:
    """One hand dealt by the fair deal, every seat in this process; seeds fixed by the args."""
    rules = rules or PRESETS[preset]
    if game is None:
        game = Game(rules, players, dealer=seed % players, hand_no=hand_no)
    ids = ids_for(game.players)
    keys = keys_for(ids)
    host = host_cls(
        game, game_id=game_id, seats=ids, key=keys[DEALER], public_keys=public_keys_of(keys)
    )

    def seeds(pid: str, round_no: int) -> bytes:
        tag = f"{game_id.hex()}/{game.hand_no}/{seed}/{pid}/{round_no}"
        return hashlib.sha256(tag.encode()).digest()

    if mover is None:
        mover = random_mover(seed) if seed % 2 else heuristic_mover(game.rules, seed)
    return play_fair_hand(host, mover, seeds=seeds, keys=keys, reveal=reveal)


def resign(t: Transcript, signers: Iterable[str]) -> Transcript:
    """``t`` with the log heads of ``signers`` signed over ``t``'s own log, as if each of them
    had received exactly this log (the host signs whatever it shows; each seat signs what it
    was shown)."""
    keys = keys_for(t.setup.seats)
    ctx0, count = t.setup.ctx0, len(t.log)
    head = fz.log_head(ctx0, t.log)
    heads = dict(t.log_heads)
    for p in signers:
        heads[p] = SignedHead(count, head, fz.sign_log_head(keys[p], ctx0, p, count, head))
    return dataclasses.replace(t, log_heads=heads)


def everyone_sees(t: Transcript, log: Iterable[fz.LogEvent]) -> Transcript:
    """``t`` if the host had sent every seat ``log``: every participant signs that log."""
    t = dataclasses.replace(t, log=tuple(log))
    return resign(t, t.setup.participants)


def stock_model(t: Transcript) -> list[int]:
    """protocol/SPEC.md, "The stock model", written from the spec alone (no engine): replay the
    log's card events against the orders the revealed seeds give; every event must be
    possible. Returns the cards the model deals this seat, in order."""
    rounds = {r.round: r for r in t.rounds}
    ctx0 = t.setup.ctx0
    stock = fz.derive_order(ctx0, rounds[0].seeds, deck_cards(t.setup.decks, t.setup.jokers))
    pile: list[int] = []
    hands: dict[int, list[int]] = {s: [] for s in range(t.setup.players)}
    mine: list[int] = []
    last_round = 0
    head = fz.log_start(ctx0)
    assert t.log[0] == t.setup.note
    for ev in t.log:
        if isinstance(ev, fz.Draw):
            assert ev.seat < t.setup.players
            assert ev.n <= len(stock)
            hands[ev.seat] += stock[: ev.n]
            if ev.seat == t.seat:
                mine += stock[: ev.n]
            del stock[: ev.n]
        elif isinstance(ev, fz.TurnUp):
            assert stock
            assert stock[0] == ev.card
            pile.append(stock.pop(0))
        elif isinstance(ev, fz.Play):
            assert ev.card in hands[ev.seat]
            hands[ev.seat].remove(ev.card)
            pile.append(ev.card)
        elif isinstance(ev, fz.Reshuffle):
            assert not stock
            assert ev.round == last_round + 1
            assert len(pile) == ev.n + 1
            d = pile[:-1]
            ctx = fz.reshuffle_context(ctx0, ev.round, head, d)
            stock = fz.derive_order(ctx, rounds[ev.round].seeds, d)
            pile = pile[-1:]
            last_round = ev.round
        head = fz.log_step(head, ev)
    assert last_round == len(t.rounds) - 1
    return mine


def bad_reveal(who: str, round_no: int) -> Any:
    """A reveal hook: ``who`` sends a seed other than its committed one in ``round_no``."""

    def reveal(pid: str, r: int, seed: bytes) -> bytes | None:
        return bytes(b ^ 1 for b in seed) if (pid, r) == (who, round_no) else seed

    return reveal


def no_reveal(who: str, round_no: int) -> Any:
    def reveal(pid: str, r: int, seed: bytes) -> bytes | None:
        return None if (pid, r) == (who, round_no) else seed

    return reveal


def reshuffling(preset: str = "switch", players: int = 2, rounds: int = 2) -> int:
    """A seed whose honest hand (random bots) runs at least ``rounds`` rounds."""
    for seed in range(1, 200, 2):
        if play(preset, players, seed).rounds >= rounds:
            return seed
    raise AssertionError("no hand reshuffles")


# ---------------------------------------------------------------------------------------------
# Honest hands


@pytest.mark.parametrize("preset", list(PRESETS))
def test_honest_hands_verify_fair_on_every_preset_with_2_to_8_players(preset: str) -> None:
    for players in range(2, 9):
        hand = play(preset, players, seed=players, mover=heuristic_mover(PRESETS[preset], players))
        assert hand.void is None
        assert hand.result.reason != "void"
        assert [t.seat for t in hand.transcripts] == list(range(players))
        verdicts = verify_all(hand.transcripts)
        winner = ids_for(players)[hand.result.placings[0]]
        for t, v in zip(hand.transcripts, verdicts, strict=True):
            assert v.status == "fair", v.text()
            assert v.fair
            assert v.culprits == ()
            assert v.rounds == hand.rounds
            assert v.outcome == f"{winner} won ({hand.result.reason})"
            assert t.cards == tuple(hand.host.cards[t.seat])
        # Every seat was sent the same log, the host's.
        assert {t.log for t in hand.transcripts} == {tuple(hand.host.log.events)}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_hands_with_reshuffle_rounds_verify_fair_on_every_preset(preset: str) -> None:
    hand = play(preset, 2, reshuffling(preset, 2, rounds=3))
    assert hand.rounds >= 3
    reshuffles = [e for e in hand.host.log.events if isinstance(e, fz.Reshuffle)]
    assert [e.round for e in reshuffles] == list(range(1, hand.rounds))
    for v in verify_all(hand.transcripts):
        assert v.fair, v.text()
        assert v.rounds == hand.rounds


@pytest.mark.parametrize(("preset", "players", "seed"), [("switch", 2, 3), ("irish", 5, 7)])
def test_the_log_follows_the_spec_stock_model(preset: str, players: int, seed: int) -> None:
    """Checked from the SPEC alone, without the engine: the log's card events are possible in
    the stock model and deal every seat exactly the cards it holds in its transcript."""
    hand = play(preset, players, seed)
    assert hand.rounds >= 2
    for t in hand.transcripts:
        assert stock_model(t) == list(t.cards)


def test_a_transcript_survives_its_file_unchanged() -> None:
    hand = play("j28", 3, seed=5)
    for t in hand.transcripts:
        text = t.to_json()
        back = Transcript.from_json(text)
        assert back == t
        assert back.to_json() == text
        assert Transcript.from_json(text.encode("utf-8")) == t
        assert verify(back).fair


def test_the_file_is_versioned_and_self_describing() -> None:
    hand = play("switch", 3, seed=1)
    t = hand.transcripts[1]
    obj = json.loads(t.to_json())
    assert obj["format"] == "lanswitch-transcript"
    assert obj["version"] == 1
    assert obj["protocol"] == "lanswitch/v1"
    assert bytes.fromhex(obj["game_id"]) == GAME
    assert obj["hand_no"] == 1
    assert obj["seat"] == 1
    assert obj["seats"] == ["seat-1", "seat-2", "seat-3"]
    assert obj["dealer"] == 1
    assert obj["out"] == []
    assert obj["rules"].startswith("# lanswitch rules: switch\n")
    assert set(obj["public_keys"]) == {"seat-1", "seat-2", "seat-3", DEALER}
    assert [fz.decode_event(bytes.fromhex(e)) for e in obj["log"]] == list(t.log)
    assert obj["cards"] == list(t.cards)
    assert len(bytes.fromhex(obj["cards_signature"])) == 64
    assert set(obj["log_heads"]) == {"seat-1", "seat-2", "seat-3", DEALER}
    assert obj["void"] is None
    r0 = obj["rounds"][0]
    assert r0["round"] == 0
    assert r0["cards"] == deck_cards(1, 0)
    assert r0["own_seed_sent"] is True
    assert fz.commitment(t.setup.ctx0, "seat-2", bytes.fromhex(r0["own_seed"])) == bytes.fromhex(
        r0["commitments"]["seat-2"]["commitment"]
    )
    assert set(r0["reveals"]) == set(r0["commitments"]) == set(obj["public_keys"])


def test_the_same_inputs_make_the_same_transcripts() -> None:
    """Ed25519 is deterministic and seeds and keys are inputs: a hand replays byte for byte."""
    a = play("blackjack", 4, seed=3)
    b = play("blackjack", 4, seed=3)
    assert [t.to_json() for t in a.transcripts] == [t.to_json() for t in b.transcripts]
    c = play("blackjack", 4, seed=3, hand_no=2)
    assert a.transcripts[0].to_json() != c.transcripts[0].to_json()


def test_seats_sitting_out_take_part_in_every_round_but_get_no_cards() -> None:
    rules = PRESETS["black5"]
    game = Game(rules, 5, dealer=1, out=[0, 3])
    hand = play(game=game, seed=4)
    assert hand.host.setup.out == (0, 3)
    for t in hand.transcripts:
        assert verify(t).fair
        assert set(t.rounds[0].seeds) == set(fz.participants(ids_for(5)))
    assert hand.transcripts[0].cards == hand.transcripts[3].cards == ()
    # The seats out are bound into the log: a transcript claiming others is not this hand.
    t = hand.transcripts[1]
    setup = dataclasses.replace(t.setup, out=(0,))
    assert not verify(dataclasses.replace(t, setup=setup)).fair


def test_blunders_are_logged_and_replayed() -> None:
    base = PRESETS["switch"]
    rules = dataclasses.replace(base, play=dataclasses.replace(base.play, blunder_penalty=2))
    rng = random.Random(9)

    def blundering(game: Game) -> int:
        legal = game.legal_moves()
        if rng.random() < 0.1:
            illegal = [c for c in range(52) if c not in legal]
            return BLUNDER_FLAG | illegal[int(rng.random() * len(illegal))]
        return legal[int(rng.random() * len(legal))]

    hand = play(rules=rules, players=3, seed=2, mover=blundering)
    blunders = [
        e for e in hand.host.log.events if isinstance(e, fz.Action) and e.move & BLUNDER_FLAG
    ]
    assert blunders
    for t in hand.transcripts:
        assert verify(t).fair


def test_card_events_merge_consecutive_draws_of_one_seat() -> None:
    events = [
        ("deal", 1, 5),
        ("deal", 2, 6),
        ("deal", 1, 7),
        ("starter", -1, 8),
        ("starter", -1, 9),
        ("turn", 1, -1),
    ]
    assert card_events(events) == [
        fz.Draw(1, 1),
        fz.Draw(2, 1),
        fz.Draw(1, 1),
        fz.TurnUp(8),
        fz.TurnUp(9),
    ]
    # A pick-up: the take, the draws (unlogged events between them do not split them).
    events = [("take", 2, 3), ("draw", 2, 10), ("penalty", 2, 1), ("draw", 2, 11)]
    assert card_events(events) == [fz.Draw(2, 2)]
    assert card_events([("reshuffle", -1, 30), ("draw", 0, 4), ("draw", 3, 5)], 2) == [
        fz.Reshuffle(2, 30),
        fz.Draw(0, 1),
        fz.Draw(3, 1),
    ]
    assert move_event(1, 17) == fz.Play(1, 17)
    assert move_event(2, 212) == fz.Suit(2, 2)
    assert move_event(0, DRAW) == fz.Action(0, DRAW)
    assert move_event(0, BLUNDER_FLAG | 5) == fz.Action(0, BLUNDER_FLAG | 5)


# ---------------------------------------------------------------------------------------------
# Void hands and aborts


@pytest.mark.parametrize("round_no", [0, 1])
def test_a_seat_whose_seed_does_not_open_is_blamed_and_the_hand_is_void(round_no: int) -> None:
    seed = reshuffling() if round_no else 1
    hand = play("switch", 2, seed, reveal=bad_reveal("seat-2", round_no))
    assert hand.void == VoidRecord(round_no, Fault.BAD_REVEAL, ("seat-2",))
    assert hand.result.reason == "void"
    assert hand.result.placings == ()
    assert hand.rounds == round_no + 1
    for t in hand.transcripts:
        t = Transcript.from_json(t.to_json())
        assert t.void == hand.void
        v = verify(t)
        assert v.status == "void", v.text()
        assert v.culprits == ("seat-2",)
        assert v.proven
        assert "does not open its commitment" in v.reason
        assert v.text().startswith("VOID: ")
    assert verify_all(hand.transcripts)[0].status == "void"


def test_a_void_hand_scores_nothing_and_the_next_hand_takes_a_new_number() -> None:
    match = Match(PRESETS["two-four-jack"], 3)
    game = match.new_hand()
    assert game.hand_no == 1
    void = play(game=game, seed=2, reveal=bad_reveal("seat-3", 0))
    assert void.void is not None
    match.record(game)
    assert match.results[-1].reason == "void"
    assert match.totals == [0, 0, 0]
    assert match.wins == [0, 0, 0]
    aborts = Aborts()
    aborts.record(game.hand_no, void.void)
    nxt = match.new_hand()
    assert nxt.hand_no == 2
    hand = play(game=nxt, seed=2)
    assert hand.host.setup.ctx0 != void.host.setup.ctx0
    assert all(v.fair for v in verify_all(hand.transcripts))
    match.record(nxt)
    assert sum(match.wins) == 1
    assert aborts.count == 1
    assert aborts.by_culprit() == {"seat-3": 1}
    assert "hand 1: round 0, seat-3 revealed a seed" in aborts.describe()


def test_the_last_revealer_abort_blames_the_host_and_is_counted() -> None:
    """The host reveals last: it can see the order and refuse to reveal. That voids the hand,
    blames the host, and is counted; it is never a silent redeal."""
    hand = play("switch", 4, 3, reveal=no_reveal(DEALER, 0))
    assert hand.void == VoidRecord(0, Fault.MISSING_REVEAL, (DEALER,))
    for t in hand.transcripts:
        v = verify(t)
        assert v.status == "void"
        assert v.culprits == (DEALER,)
        assert "last-revealer" in v.reason
    aborts = Aborts()
    aborts.record(1, hand.void)
    aborts.record(4, VoidRecord(1, Fault.BAD_REVEAL, ("seat-2",)))
    assert aborts.count == 2
    assert aborts.by_culprit() == {DEALER: 1, "seat-2": 1}
    assert aborts.describe().startswith("2 hands aborted (blame: the host (@dealer) 1, seat-2 1)")
    assert Aborts().describe() == "no hand was aborted"


def test_a_missing_seed_of_a_seat_voids_the_hand_on_the_hosts_word() -> None:
    hand = play("irish", 3, 1, reveal=no_reveal("seat-1", 0))
    assert hand.void == VoidRecord(0, Fault.MISSING_REVEAL, ("seat-1",))
    for t in hand.transcripts[1:]:
        v = verify(t)
        assert v.status == "void"
        assert v.culprits == ("seat-1",)
        assert not v.proven  # a message that never came cannot be shown
    # seat-1 itself knows whether it sent its seed: it did not, so it agrees.
    assert verify(hand.transcripts[0]).status == "void"


# ---------------------------------------------------------------------------------------------
# Reading files: what is not a transcript says why


def _obj() -> dict[str, Any]:
    hand = play("switch", 2, seed=1)
    obj: dict[str, Any] = json.loads(hand.transcripts[0].to_json())
    return obj


def _set(path: str, value: Any) -> Any:
    def edit(obj: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        target: Any = obj
        for p in parents:
            target = target[int(p)] if isinstance(target, list) else target[p]
        if isinstance(target, list):
            target[int(last)] = value
        elif value is KeyError:
            del target[last]
        else:
            target[last] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set("format", "something-else"), "not a lanswitch transcript"),
        (_set("version", 2), "version 2 is not supported"),
        (_set("protocol", "lanswitch/v2"), "protocol"),
        (_set("game_id", "00ff"), "game_id"),
        (_set("game_id", "zz" * 16), "game_id: not hex"),
        (_set("hand_no", -1), "hand_no"),
        (_set("seats", ["a", "a"]), "setup"),
        (_set("seats", ["seat-1"]), "setup"),
        (_set("dealer", 7), "setup"),
        (_set("rules", "name = ["), "rules: not valid TOML"),
        (_set("rules", 'draw = "sometimes"'), "rules"),
        (_set("seat", 2), "seat"),
        (_set("public_keys/@dealer", KeyError), "public_keys"),
        (_set("public_keys/seat-1", "00" * 31), "public_keys.seat-1"),
        (_set("log/3", "ff"), "log[3]"),
        (_set("log/2", "0101"), "log[2]"),
        (_set("cards/0", 200), "cards[0]"),
        (_set("cards", "5H"), "cards: must be a list"),
        (_set("rounds/0/cards", [3, 2]), "rounds[0].cards"),
        (_set("rounds/0/reveals/nobody", {"seed": "00", "signature": "00"}), "rounds[0].reveals"),
        (_set("rounds/0/own_seed_sent", "yes"), "own_seed_sent"),
        (_set("log_heads/nobody", {}), "log_heads"),
        (_set("log_heads/seat-1", KeyError), "contradicts itself: its own signed log head"),
        (_set("log_heads/seat-1/count", 3), "its own log-head signature does not verify"),
        (_set("log_heads/seat-1/signature", "00" * 64), "its own log-head signature does not"),
        (_set("void", {"round": 0, "fault": "tired", "culprits": []}), "void.fault"),
    ],
)
def test_what_is_not_a_valid_transcript_says_which_field(edit: Any, message: str) -> None:
    obj = _obj()
    edit(obj)
    with pytest.raises(TranscriptError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Transcript.from_json(json.dumps(obj))


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '"a transcript"', "\ud800", "null"])
def test_garbage_is_not_a_transcript(text: str) -> None:
    with pytest.raises(TranscriptError):
        Transcript.from_json(text)
    with pytest.raises(TranscriptError):
        Transcript.from_json(b"\xff\xfe" + text.encode("utf-8", "replace"))


def test_a_changed_own_log_is_caught_before_any_verdict() -> None:
    """A seat signs the log it was sent: a transcript whose log was edited afterwards (by
    anyone) contradicts itself and is refused, not blamed on the host."""
    t = play("switch", 2, seed=1).transcripts[0]
    edited = dataclasses.replace(t, log=t.log[:-1])
    with pytest.raises(
        TranscriptError, match="own signed log head is not that of the log it holds"
    ):
        verify(edited)


# ---------------------------------------------------------------------------------------------
# The known-answer hand: protocol/vectors/hand-transcript.json


def test_the_vector_hand_transcript_verifies_and_matches_its_summary() -> None:
    from tests.scripts import load_script
    from tests.test_fairness import ROOT, V

    v = V["hand"]
    path = ROOT / "protocol" / "vectors" / v["file"]
    text = path.read_text(encoding="utf-8")
    gen = load_script("protocol/vectors/gen_fair_deal.py", "gen_fair_deal")
    assert gen.render_hand() == text, "run: python protocol/vectors/gen_fair_deal.py --write"
    t = Transcript.from_json(text)
    verdict = verify(t)
    assert verdict.fair, verdict.text()
    assert verdict.outcome == v["outcome"]
    assert len(t.log) == v["count"]
    assert fz.log_head(t.setup.ctx0, t.log).hex() == v["final_head"]
    assert t.setup.note.encode().hex() == v["setup_note"]
    assert hashlib.sha256(t.setup.rules_toml.encode()).hexdigest() == v["rules_sha256"]
    assert stock_model(t) == v["seat_cards"] == list(t.cards)
    deck = deck_cards(t.setup.decks, t.setup.jokers)
    assert fz.derive_order(t.setup.ctx0, t.rounds[0].seeds, deck) == v["orders"][0]
    assert len(v["orders"]) == len(t.rounds) == 2
    for p, k in v["private_keys"].items():
        assert fz.public_bytes(bytes.fromhex(k)) == t.public_keys[p]
