"""Fair hands end to end: the engine dealt by commit-reveal rounds, every move signed, each
seat's transcript as a file, and its offline verification (``lanswitch.fairdeal``). Real
crypto, real engine, every seat in this process (``lanswitch.fairdeal.local``)."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from lanswitch.cards import deck_cards
from lanswitch.fairdeal import (
    BY_BOT,
    BY_SEAT,
    DEALER,
    Dealer,
    Draw,
    Fault,
    Move,
    Shuffle,
    Transcript,
    TranscriptError,
    TurnUp,
    VoidTally,
    card_events,
    decode_event,
    verify,
    verify_all,
)
from lanswitch.fairdeal import primitives as pr
from lanswitch.fairdeal.tally import VoidEntry
from lanswitch.game import BLUNDER_FLAG, Game, Match
from lanswitch.narrate import won_how
from lanswitch.rules import PRESETS
from tests.fairplay import (
    GAME,
    bad_reveal,
    heuristic_mover,
    ids_for,
    no_reveal,
    play,
    reshuffling,
    stock_model,
)

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
            assert v.outcome == f"{winner} won ({won_how(hand.result.reason)})"
            assert v.away == ()
            assert v.unconfirmed == ()
            assert t.cards == tuple(hand.dealer.cards[t.seat])
        # Every seat was sent the same log, the host's.
        assert {t.log for t in hand.transcripts} == {tuple(hand.dealer.log.events)}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_hands_with_reshuffle_rounds_verify_fair_on_every_preset(preset: str) -> None:
    hand = play(preset, 2, reshuffling(preset, 2, rounds=3))
    assert hand.rounds >= 3
    shuffles = [e for e in hand.dealer.log.events if isinstance(e, Shuffle)]
    assert [e.round for e in shuffles] == list(range(hand.rounds))
    for v in verify_all(hand.transcripts):
        assert v.fair, v.text()
        assert v.rounds == hand.rounds


def test_every_move_is_signed_by_its_maker_and_bots_are_the_hosts() -> None:
    hand = play("switch", 4, seed=3, bots=[1, 3])
    moves = [e for e in hand.dealer.log.events if isinstance(e, Move)]
    assert {e.by for e in moves if e.seat in (1, 3)} == {BY_BOT}
    assert {e.by for e in moves if e.seat in (0, 2)} == {BY_SEAT}
    # A bot has no key, no transcript, and takes no part in any round.
    assert [t.seat for t in hand.transcripts] == [0, 2]
    for t in hand.transcripts:
        assert set(t.setup.keys) == {"seat-1", "seat-3", DEALER}
        for rec in t.rounds:
            assert set(rec.seeds) == {"seat-1", "seat-3", DEALER}
        assert verify(t).fair


@pytest.mark.parametrize(("preset", "players"), [("switch", 2), ("irish", 5)])
def test_the_log_follows_the_spec_stock_model(preset: str, players: int) -> None:
    """Checked from the SPEC alone, without the engine: the log's card events are possible in
    the stock model and deal every seat exactly the cards it holds in its transcript."""
    hand = play(preset, players, reshuffling(preset, players))
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
    assert obj["version"] == 3
    assert obj["protocol"] == "lanswitch/v2"
    assert bytes.fromhex(obj["game_id"]) == GAME
    assert obj["hand_no"] == 1
    assert obj["seat"] == 1
    assert obj["seats"] == ["seat-1", "seat-2", "seat-3"]
    assert obj["dealer"] == 1
    assert obj["out"] == []
    assert obj["turn_timer_ms"] == 0
    assert obj["rules"].startswith("# lanswitch rules: switch\n")
    assert set(obj["public_keys"]) == {"seat-1", "seat-2", "seat-3", DEALER}
    assert [decode_event(bytes.fromhex(e)) for e in obj["log"]] == list(t.log)
    assert obj["log"][0] == t.setup.note.encode().hex()
    assert obj["cards"] == list(t.cards)
    assert len(bytes.fromhex(obj["cards_signature"])) == 64
    assert set(obj["log_heads"]) == {"seat-1", "seat-2", "seat-3", DEALER}
    assert obj["void"] is None
    assert obj["disputes"] == []
    r0 = obj["rounds"][0]
    assert r0["round"] == 0
    assert r0["at"] == 1  # the setup note, then the round
    stage1, stage3 = r0["announces"]
    assert (stage1["fixed"], stage3["fixed"]) == (False, True)
    assert list(stage1["commitments"]) == [DEALER]  # the host commits first
    assert list(stage3["commitments"]) == ["seat-1", "seat-2", "seat-3", DEALER]
    assert stage1["cards"] == deck_cards(1, 0)
    assert stage1["seats"] == [0, 1, 2]
    assert r0["own_seed_sent"] is True
    ctx = bytes.fromhex(stage1["ctx"])
    assert pr.commitment(ctx, "seat-2", bytes.fromhex(r0["own_seed"])) == bytes.fromhex(
        stage3["commitments"]["seat-2"]["commitment"]
    )
    assert set(r0["reveals"]) == set(stage3["commitments"])


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
    assert hand.dealer.setup.out == (0, 3)
    for t in hand.transcripts:
        assert verify(t).fair
        assert set(t.rounds[0].seeds) == {*ids_for(5), DEALER}
    assert hand.transcripts[0].cards == hand.transcripts[3].cards == ()
    # The seats out are bound into the log: a transcript claiming others is not this hand.
    t = hand.transcripts[1]
    setup = dataclasses.replace(t.setup, out=(0,))
    assert not verify(dataclasses.replace(t, setup=setup)).fair


def test_blunders_are_logged_signed_and_replayed() -> None:
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
    blunders = [e for e in hand.dealer.log.events if isinstance(e, Move) and e.move & BLUNDER_FLAG]
    assert blunders
    assert {e.by for e in blunders} == {BY_SEAT}  # the player signed the move it tried
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
    assert card_events(events) == [Draw(1, 1), Draw(2, 1), Draw(1, 1), TurnUp(8), TurnUp(9)]
    # A pick-up: the take, the draws (unlogged events between them do not split them).
    events = [("take", 2, 3), ("draw", 2, 10), ("penalty", 2, 1), ("draw", 2, 11)]
    assert card_events(events) == [Draw(2, 2)]
    assert card_events([("reshuffle", -1, 30), ("draw", 0, 4), ("draw", 3, 5)]) == [
        Draw(0, 1),
        Draw(3, 1),
    ]


def test_a_turn_timer_is_bound_into_the_setup() -> None:
    hand = play("switch", 3, seed=2, turn_timer_ms=20_000)
    t = hand.transcripts[0]
    assert t.setup.turn_timer_ms == 20_000
    at = 34 + len(t.setup.out)  # after SHA-256(rules), u8(dealer), u8(k) and the seats out
    assert t.setup.note.data[at : at + 4] == (20_000).to_bytes(4, "big")
    assert verify(t).fair
    without = dataclasses.replace(
        t, setup=dataclasses.replace(t.setup, turn_timer_ms=0)
    )  # the same hand claimed without its timer: another setup note
    assert not verify(without).fair


# ---------------------------------------------------------------------------------------------
# Void hands, forfeits and the tally


@pytest.mark.parametrize("round_no", [0, 1])
def test_a_seat_whose_seed_does_not_open_is_blamed_and_the_hand_is_void(round_no: int) -> None:
    seed = reshuffling() if round_no else 1
    hand = play("switch", 2, seed, reveal=bad_reveal("seat-2", round_no))
    assert hand.void is not None
    assert (hand.void.round, hand.void.fault, hand.void.culprits) == (
        round_no,
        Fault.BAD_REVEAL,
        ("seat-2",),
    )
    # The culprit forfeits, at the deal as at a reshuffle (issue 25, item 7: before, a void
    # at the deal was plain, so the host's own seat, which sees every other seed first, could
    # trade a deal it disliked for a free redeal).
    assert hand.result.reason == "forfeit"
    assert hand.result.placings[-1] == 1
    assert hand.rounds == round_no + 1
    for t in hand.transcripts:
        t = Transcript.from_json(t.to_json())
        assert t.void == hand.void
        v = verify(t)
        assert v.status == "void", v.text()
        assert v.culprits == ("seat-2",)
        assert v.proven
        assert v.forfeit == ("seat-2",)
        assert "does not open its commitment" in v.reason
        assert v.text().startswith("VOID: ")
    assert verify_all(hand.transcripts)[0].status == "void"


def test_a_forfeit_at_the_deal_is_a_hand_lost_by_its_culprit() -> None:
    """A seat whose seed does not open at the deal forfeits: placed last, charged the worst
    hand a deal could give, and the match counts the hand (before: a plain void, free)."""
    match = Match(PRESETS["two-four-jack"], 3, max_hands=1)
    game = match.new_hand()
    hand = play(game=game, seed=2, reveal=bad_reveal("seat-3", 0))
    assert hand.void is not None
    match.record(game)
    result = match.results[-1]
    assert result.reason == "forfeit"
    assert result.placings[-1] == 2
    assert match.totals[result.placings[0]] == game.forfeit_charge() > 0
    assert match.over  # the match's one hand was played, and lost by seat 3
    assert match.winner != 2


def test_a_void_hand_does_not_count_and_the_next_hand_takes_a_new_number() -> None:
    match = Match(PRESETS["two-four-jack"], 3, max_hands=1)
    game = match.new_hand()
    assert game.hand_no == 1
    void = play(game=game, seed=2, dealer_cls=Withholding)  # the host's own abort
    assert void.void is not None
    match.record(game)
    assert match.results[-1].reason == "void"
    assert match.totals == [0, 0, 0]
    assert match.wins == [0, 0, 0]
    assert not match.over  # a void hand is not one of the match's hands
    nxt = match.new_hand()
    assert nxt.hand_no == 2
    hand = play(game=nxt, seed=2)
    assert hand.dealer.setup.ctx0 != void.dealer.setup.ctx0
    assert all(v.fair for v in verify_all(hand.transcripts))
    match.record(nxt)
    assert sum(match.wins) == 1
    assert match.over


def test_a_forfeit_scores_the_hand_as_it_stands_with_the_culprit_last() -> None:
    seed = reshuffling("switch", 3, rounds=2)
    hand = play("switch", 3, seed, reveal=no_reveal("seat-1", 1))
    assert hand.result.reason == "forfeit"
    assert hand.result.placings[-1] == 0
    placed = hand.result.placings[:-1]
    assert sorted(placed) == [1, 2]
    for t in hand.transcripts[1:]:
        v = verify(t)
        assert v.status == "void"
        assert v.forfeit == ("seat-1",)
        assert not v.proven
        assert "seat-1 forfeits the hand" in v.text()


class Withholding(Dealer):
    def own_reveal(self, round_no: int, seed: bytes) -> bytes | None:
        return None


def test_the_last_revealer_abort_blames_the_host_and_is_counted() -> None:
    """The host reveals last: it can see the order and refuse to reveal. That voids the hand,
    blames the host, and is counted; it is never a silent redeal."""
    hand = play("switch", 4, 3, dealer_cls=Withholding)
    assert hand.void is not None
    assert (hand.void.fault, hand.void.culprits) == (Fault.MISSING_REVEAL, (DEALER,))
    for t in hand.transcripts:
        v = verify(t)
        assert v.status == "void"
        assert v.culprits == (DEALER,)
        assert v.proven
        assert "last-revealer" in v.reason
    tally = VoidTally(warning=2)
    tally.record(VoidEntry(1, (DEALER,), True))
    assert not tally.warned
    tally.record(VoidEntry(4, ("bob",), False))
    assert tally.count == 2
    assert tally.by_host == 2  # its own abort, and a blame on its word alone
    assert tally.warned
    assert tally.by_culprit() == {DEALER: (1, 0), "bob": (0, 1)}
    assert tally.describe() == "void hands: 2 — the host 1, bob 1 on the host's word"
    text = tally.warning_text()
    assert text is not None
    assert "caused or claimed by the host" in text
    assert VoidTally().describe() == "no void hands"
    tally.record(VoidEntry(4, ("bob",), True))  # the verdict settles hand 4: bob, proven
    assert tally.by_host == 1
    # Still warned: bob's own bad seed may be the host's own seat choosing the deal.
    assert tally.warned
    proven_only = VoidTally.of([VoidEntry(1, ("bob",), True), VoidEntry(2, ("ann",), True)])
    assert proven_only.by_host == 0
    assert proven_only.warned
    assert "a seed of its own seat that does not open" in (proven_only.warning_text() or "")


def test_a_missing_seed_of_a_seat_voids_the_hand_on_the_hosts_word() -> None:
    hand = play("irish", 3, 1, reveal=no_reveal("seat-1", 0))
    assert hand.void is not None
    assert (hand.void.fault, hand.void.culprits) == (Fault.MISSING_REVEAL, ("seat-1",))
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
        (_set("version", 1), "version 1 is not supported.*older lanswitch"),
        (_set("version", 2), "version 2 is not supported.*older lanswitch.*names"),
        (_set("version", 4), "version 4 is not supported"),
        (_set("protocol", "lanswitch/v1"), "protocol"),
        (_set("game_id", "00ff"), "game_id"),
        (_set("game_id", "zz" * 16), "game_id: not hex"),
        (_set("hand_no", -1), "hand_no"),
        (_set("seats", ["a", "a"]), "setup"),
        (_set("seats", ["seat-1"]), "setup"),
        (_set("dealer", 7), "setup"),
        (_set("turn_timer_ms", -1), "turn_timer_ms"),
        (_set("rules", "name = ["), "rules: not valid TOML"),
        (_set("rules", 'draw = "sometimes"'), "rules"),
        (_set("seat", 2), "seat"),
        (_set("names", ["ann"]), "names"),
        (_set("public_keys/@dealer", KeyError), "setup"),
        (_set("public_keys/seat-1", "00" * 31), "public_keys.seat-1"),
        (_set("log/3", "ff"), "log[3]"),
        (_set("log/2", "0101"), "log[2]"),
        (_set("cards/0", 200), "cards[0]"),
        (_set("cards", "5H"), "cards: must be a list"),
        (_set("rounds/0/announces/0/cards", [3, 2]), "rounds[0].announces[0].cards"),
        (_set("rounds/0/announces", []), "rounds[0].announces"),
        (_set("rounds/0/reveals/nobody", {"seed": "00", "signature": "00"}), "rounds[0].reveals"),
        (_set("rounds/0/own_seed_sent", "yes"), "own_seed_sent"),
        (_set("log_heads/nobody", {}), "log_heads"),
        (_set("log_heads/seat-1", KeyError), "contradicts itself: its own signed log head"),
        (_set("log_heads/seat-1/count", 3), "its own log-head signature does not verify"),
        (_set("log_heads/seat-1/signature", "00" * 64), "its own log-head signature does not"),
        (_set("void", {"round": 0, "fault": "tired", "culprits": []}), "void.fault"),
        (_set("disputes", [{"event": "x", "text": "t"}]), "disputes"),
    ],
)
def test_what_is_not_a_valid_transcript_says_which_field(edit: Any, message: str) -> None:
    obj = _obj()
    edit(obj)
    pattern = (
        message.replace("[", r"\[")
        .replace("]", r"\]")
        .replace(".*", "@@")
        .replace(".", r"\.")
        .replace("@@", ".*")
    )
    with pytest.raises(TranscriptError, match=pattern):
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


def test_verify_all_settles_an_unconfirmed_verdict_with_the_missing_transcript() -> None:
    """One transcript alone cannot show that a player who kept no head to the end saw this
    log; that player's own transcript can."""
    hand = play("switch", 3, seed=4)
    a, b, c = hand.transcripts
    heads = {p: h for p, h in a.log_heads.items() if p != b.id}
    lone = dataclasses.replace(a, log_heads=heads)
    v = verify(lone)
    assert v.status == "unconfirmed", v.text()
    assert [p for p, _ in v.unconfirmed] == [b.id]
    assert "nobody is blamed" in v.text()
    assert [x.status for x in verify_all([lone, c])] == ["unconfirmed", "fair"]
    assert [x.status for x in verify_all([lone, b, c])] == ["fair", "fair", "fair"]


def test_dealers_stage_table_refuses_a_call_out_of_stage() -> None:
    hand = play("switch", 2, seed=1)
    assert hand.dealer.stage.name == "OVER"
    with pytest.raises(pr.UsageError, match="not taken while the hand is at OVER"):
        hand.dealer.open_round(bytes(32))
    fresh = Dealer(
        Game(PRESETS["switch"], 2),
        game_id=GAME,
        seats=ids_for(2),
        key=bytes(32),
        keys={DEALER: pr.public_bytes(bytes(32))},
    )
    with pytest.raises(pr.UsageError, match="act is not taken while the hand is at CHANCE"):
        fresh.act(0, 1, b"")


# ---------------------------------------------------------------------------------------------
# Everything a reader of a saved hand sees is signed (issue 25, item 5): names, seats, who is a
# bot, the rules, the placings. A saved file is edited as anyone could (its JSON); `verify`
# must not say FAIR of it. Before protocol v4 the names were "for people to read; nothing is
# checked by them" and a renamed winner verified FAIR (the name rows below, on the old code);
# the dealer-blind file bound neither names nor its rules, hand number or game
# (test_a_doctored_blind_file_is_never_fair).

NAMES = ("Ann", "Bob", "Robo")  # seat 2 is the host's bot


def _named_hand() -> Any:
    return play("switch", 3, seed=3, bots=[2], names=NAMES)


def _verdict_of_text(text: str) -> str:
    """What ``lanswitch verify`` makes of a transcript file's text: its verdict's status, or
    "unreadable" (a file that is not a valid transcript gets none)."""
    try:
        t = Transcript.from_json(text)
    except TranscriptError:
        return "unreadable"
    return verify_all([t])[0].status


def _swap(i: int, j: int) -> Any:
    def edit(obj: dict[str, Any]) -> None:
        names = obj["names"]
        names[i], names[j] = names[j], names[i]

    return edit


def _rename(obj: dict[str, Any]) -> None:
    obj["names"][1] = "Mallory"  # Bob's seat, now shown as someone else's


def _winner_renamed(obj: dict[str, Any]) -> None:
    """The winner's seat shown under another player's name: the file "names another winner"."""
    winner = obj["__winner"]
    other = next(i for i in range(len(obj["names"])) if i != winner)
    obj["names"][winner] = obj["names"][other] + " "


def _seat_ids_swapped(obj: dict[str, Any]) -> None:
    seats = obj["seats"]
    seats[0], seats[1] = seats[1], seats[0]
    keys = obj["public_keys"]
    keys[seats[0]], keys[seats[1]] = keys[seats[1]], keys[seats[0]]


def _kept_by_another_seat(obj: dict[str, Any]) -> None:
    obj["seat"] = 1 - obj["seat"]


def _bot_made_a_person(obj: dict[str, Any]) -> None:
    obj["public_keys"][obj["seats"][2]] = obj["public_keys"][obj["seats"][1 - obj["seat"]]]


def _person_made_a_bot(obj: dict[str, Any]) -> None:
    del obj["public_keys"][obj["seats"][1 - obj["seat"]]]


def _rules_changed(obj: dict[str, Any]) -> None:
    obj["rules"] += "# house rules, as the file now says\n"


def _dealer_changed(obj: dict[str, Any]) -> None:
    obj["dealer"] = (obj["dealer"] + 1) % len(obj["seats"])


def _placings_claimed(obj: dict[str, Any]) -> None:
    """A placing written into the file (it holds none): verify's placings stay the replay's."""
    winner = obj["__winner"]
    obj["placings"] = [obj["seats"][(winner + 1) % 3], obj["seats"][winner]]


DOCTORED = {
    "a name changed": _rename,
    "the winner shown under another's name": _winner_renamed,
    "two names swapped between seats": _swap(0, 1),
    "the seat ids swapped": _seat_ids_swapped,
    "the file's own seat changed": _kept_by_another_seat,
    "a bot shown as a person": _bot_made_a_person,
    "a person shown as a bot": _person_made_a_bot,
    "the rules changed": _rules_changed,
    "the dealer changed": _dealer_changed,
}


@pytest.mark.parametrize("what", list(DOCTORED))
@pytest.mark.parametrize("keeper", [0, 1])
def test_a_saved_hand_with_a_changed_name_seat_bot_or_rules_is_never_fair(
    what: str, keeper: int
) -> None:
    """Before v4 the three name rows verified FAIR (on a173ae3: "a name changed", "the winner
    shown under another's name", "two names swapped between seats" — the file named another
    winner); seats, bots and rules were already bound by ctx_0 and the setup note."""
    hand = _named_hand()
    t = hand.transcripts[keeper]
    assert t.names == NAMES
    honest = json.loads(t.to_json())
    assert _verdict_of_text(json.dumps(honest)) == "fair"
    obj = json.loads(t.to_json())
    obj["__winner"] = hand.result.placings[0]
    DOCTORED[what](obj)
    del obj["__winner"]
    assert obj != honest
    assert _verdict_of_text(json.dumps(obj)) != "fair"


def test_the_placings_verify_shows_are_the_replays_never_the_files() -> None:
    """The transcript holds no placing: who won is the signed log replayed through the rules
    engine, said with the names the setup note binds. A placing written into the file changes
    nothing verify says."""
    hand = _named_hand()
    t = hand.transcripts[0]
    winner = hand.result.placings[0]
    obj = json.loads(t.to_json())
    obj["__winner"] = winner
    _placings_claimed(obj)
    del obj["__winner"]
    v = verify_all([Transcript.from_json(json.dumps(obj))])[0]
    assert v.fair
    assert v.placings == tuple(t.setup.seats[s] for s in hand.result.placings)
    assert v.outcome.startswith(f"{NAMES[winner]} won (")
    assert v.as_json()["placings"] == list(v.placings)


def _blind_file() -> tuple[dict[str, Any], Any]:
    from lanswitch.fairdeal.blind import file as blindfile
    from tests.blindtable import blind_table

    hand = blind_table(2, 1, seed=5).play()
    h = hand.holders["p0"]
    seeds = {p: dict(x.seeds) for p, x in hand.holders.items()}
    return json.loads(blindfile.dump(h.follower, "p0", seeds, h.received)), hand


def _blind_verdict(data: dict[str, Any]) -> str:
    from lanswitch.fairdeal.blind import file as blindfile

    try:
        return blindfile.check(json.dumps(data))[1].status
    except blindfile.BlindFileError:
        return "unreadable"


def _in_setup(edit: Any) -> Any:
    def apply(data: dict[str, Any]) -> None:
        edit(data["setup"])

    return apply


def _blind_seats_swapped(s: dict[str, Any]) -> None:
    s["seats"][0], s["seats"][1] = s["seats"][1], s["seats"][0]


BLIND_DOCTORED = {
    "a name changed": _in_setup(lambda s: s["names"].__setitem__(1, "Mallory")),
    "two names swapped between seats": _in_setup(lambda s: s["names"].reverse()),
    "the seat ids swapped": _in_setup(_blind_seats_swapped),
    "a person shown as a bot": _in_setup(lambda s: s.__setitem__("people", [0])),
    "a bot shown as a person": _in_setup(lambda s: s.__setitem__("people", [0, 1, 2])),
    "a person's key dropped (a bot)": _in_setup(lambda s: s["keys"].pop("p1")),
    "the rules changed": _in_setup(lambda s: s.__setitem__("rules", s["rules"] + "# mine\n")),
    "the hand number changed": _in_setup(lambda s: s.__setitem__("hand_no", 9)),
    "the game changed": _in_setup(lambda s: s.__setitem__("game_id", "ab" * 16)),
    "the dealer changed": _in_setup(lambda s: s.__setitem__("dealer", (s["dealer"] + 1) % 3)),
    "the context replaced": _in_setup(lambda s: s.__setitem__("ctx0", "00" * 32)),
}


@pytest.mark.parametrize("what", list(BLIND_DOCTORED))
def test_a_doctored_blind_file_is_never_fair(what: str) -> None:
    """The dealer-blind hand's file, changed as the commit-reveal transcript is above. Before
    v4 the file gave its blind context as it was (``ctx0``) and held no names: its rules,
    hand number and game could be anything and still check FAIR (on a173ae3, a file with
    ``# mine`` appended to its rules or hand_no 9 checked FAIR); now the context is recomputed
    from the setup the file shows, names included."""
    data, _hand = _blind_file()
    assert _blind_verdict(data) == "fair"
    BLIND_DOCTORED[what](data)
    assert _blind_verdict(data) != "fair"


def test_a_blind_files_winner_is_the_replays_by_the_signed_names() -> None:
    from lanswitch.fairdeal.blind import file as blindfile

    data, hand = _blind_file()
    result = hand.outcome("p0").result
    assert result is not None
    data["placings"] = list(reversed(result.placings))  # the file's word: not believed
    outcome = blindfile.check(json.dumps(data))[1]
    assert outcome.result == result
    name = data["setup"]["names"][result.placings[0]]
    assert str(outcome) == f"FAIR (dealer-blind): {name} won ({won_how(result.reason)})"
