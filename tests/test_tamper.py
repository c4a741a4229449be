"""The tamper suite: a dishonest host, every way issue #3 names, each caught with the right blame.

Each dishonest host cheats in one way and is otherwise as careful as it can be: it deals
consistently from what it cheated with, signs with its own key whatever it shows (it holds
``@dealer``'s key), and cannot sign for a player. Some cheat during play (subclasses of
:class:`FairHost` pulling its levers, or reaching into its own engine); others change what
they send after the hand, modelled by editing the host-controlled parts of the transcripts
while every honest seat signs what it was shown (``resign``/``everyone_sees``).

"Caught" means: every transcript that can see the cheat verifies unfair, and every verdict
that is not fair blames exactly the host (``@dealer``) — never a player. Every tamper runs
over several seeds, presets and table sizes, and every transcript goes through its JSON file
text first.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Sequence
from typing import Any, TypeVar, cast

import pytest

from lanswitch import fairness as fz
from lanswitch.fairness import DEALER, Fault, LogEvent
from lanswitch.game import Event, Phase
from lanswitch.transcript import (
    FairHand,
    FairHost,
    Transcript,
    Verdict,
    VoidRecord,
    verify,
    verify_all,
)
from tests.test_transcript import (
    bad_reveal,
    everyone_sees,
    ids_for,
    keys_for,
    no_reveal,
    play,
    reshuffling,
    resign,
)

# (preset, players, seed): one-deck and two-deck tables, 2 to 8 seats, random and heuristic bots.
CASES = [
    ("switch", 4, 1),
    ("irish", 3, 2),
    ("blackjack", 2, 3),
    ("two-four-jack", 5, 4),
    ("black5", 6, 5),
    ("take-two", 8, 7),
]
ONE_DECK = [c for c in CASES if c[1] <= 5]

H = TypeVar("H", bound=FairHost)


def variant(cls: type[H], **attrs: Any) -> type[H]:
    """``cls`` with some class attributes changed (a dishonest host's settings)."""
    return cast("type[H]", type(cls.__name__, (cls,), attrs))


def through_files(transcripts: Sequence[Transcript]) -> list[Transcript]:
    return [Transcript.from_json(t.to_json()) for t in transcripts]


def caught(
    transcripts: Sequence[Transcript], must: Sequence[int] | None = None, check: str | None = None
) -> list[Verdict]:
    """Verify (through the files, and across transcripts): the seats in ``must`` (default all)
    are unfair; every verdict that is not fair blames the host alone."""
    verdicts = verify_all(through_files(transcripts))
    for v in verdicts:
        if not v.fair:
            assert v.status == "unfair", v.text()
            assert v.culprits == (DEALER,), v.text()
            assert "blame the host (@dealer)" in v.text()
    for i in range(len(transcripts)) if must is None else must:
        assert verdicts[i].status == "unfair", f"seat {i} missed it"
        if check is not None:
            assert verdicts[i].check == check, verdicts[i].text()
    return verdicts


# ---------------------------------------------------------------------------------------------
# (a) the host swaps two cards a player then sees


class SwapHost(FairHost):
    """Deals from the derived order with two cards swapped in round ``swap_round``: the top card
    (the next card someone is dealt or draws) and the bottom one."""

    swap_round = 0

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        if round_no != self.swap_round:
            return derived
        o = list(derived)
        o[0], o[-1] = o[-1], o[0]
        return o


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_swapped_card_in_the_deal_is_caught_by_the_seat_that_sees_it(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, host_cls=SwapHost)
    victim = (hand.host.setup.dealer + 1) % players  # dealt the top card first
    verdicts = caught(hand.transcripts, must=[victim], check="cards")
    assert "the 1st card the host gave you is" in verdicts[victim].reason
    # It is provable to a third party: the host signed the cards it gave.
    t = hand.transcripts[victim]
    assert fz.verify_cards(t.public_keys[DEALER], t.setup.ctx0, t.id, t.cards, t.cards_signature)


class CoverUpHost(SwapHost):
    """Swaps a card, then signs the cards the seeds would have given, not those it gave."""

    def sign_cards(self, seat: int) -> bytes:
        given = self.cards[seat]
        derived = list(given)
        if seat == (self.setup.dealer + 1) % self.setup.players:
            derived[0] = self.rounds[0][1].order(self.rounds[0][0])[0]
        return fz.sign_cards(self.key, self.setup.ctx0, self.setup.seats[seat], derived)


@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:3])
def test_a_cards_signature_over_other_cards_than_those_given_is_caught(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, host_cls=CoverUpHost)
    victim = (hand.host.setup.dealer + 1) % players
    verdicts = caught(hand.transcripts, must=[victim], check="cards")
    assert "signature over the cards it gave you does not verify" in verdicts[victim].reason


@pytest.mark.parametrize(("preset", "players"), [("switch", 2), ("blackjack", 3), ("irish", 2)])
def test_a_swapped_card_in_a_reshuffle_is_caught_by_the_seat_that_draws_it(
    preset: str, players: int
) -> None:
    seed = reshuffling(preset, players, rounds=2)

    class LaterSwap(SwapHost):
        swap_round = 1

    hand = play(preset, players, seed, host_cls=LaterSwap)
    events = hand.host.log.events
    at = events.index(next(e for e in events if isinstance(e, fz.Reshuffle)))
    drawer = next(e for e in events[at:] if isinstance(e, fz.Draw)).seat
    caught(hand.transcripts, must=[drawer])


# ---------------------------------------------------------------------------------------------
# (b) the host deals from a stacked deck


class StackedHost(FairHost):
    """Ignores the seeds for the deal: a new deck's order, or its own shuffle."""

    own_shuffle = False

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        if round_no:
            return derived
        stacked = sorted(derived)
        if self.own_shuffle:
            random.Random(round_no).shuffle(stacked)
        return stacked


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
@pytest.mark.parametrize("own_shuffle", [False, True])
def test_a_stacked_deck_is_caught_by_every_seat(
    preset: str, players: int, seed: int, own_shuffle: bool
) -> None:
    hand = play(preset, players, seed, host_cls=variant(StackedHost, own_shuffle=own_shuffle))
    caught(hand.transcripts)


# ---------------------------------------------------------------------------------------------
# (c) the host forges a reveal


class GrindingHost(FairHost):
    """Sees every seed, then picks its own anew to get a deal it likes, deals from that and
    reveals it, signed with its own key: a seed that does not open its commitment."""

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        if round_no:
            return derived
        cards, rnd = self.rounds[0]
        seeds = rnd.seeds
        seeds[DEALER] = self.ground = hashlib.sha256(b"a seed the host likes").digest()
        return fz.derive_order(rnd.ctx, seeds, cards)

    def reveals(self, round_no: int) -> tuple[dict[str, bytes], dict[str, bytes]]:
        seeds, sigs = super().reveals(round_no)
        if round_no == 0:
            _, rnd = self.rounds[0]
            c = rnd.commitments[DEALER]
            seeds[DEALER] = self.ground
            sigs[DEALER] = fz.sign_reveal(self.key, rnd.ctx, DEALER, c, self.ground)
        return seeds, sigs


class ForgingHost(FairHost):
    """Replaces a player's seed with one of its own choosing, deals from that, and passes the
    forged seed on with the player's real signature (it cannot make the player's)."""

    victim = "seat-2"

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        if round_no:
            return derived
        cards, rnd = self.rounds[0]
        seeds = rnd.seeds
        seeds[self.victim] = self.forged = hashlib.sha256(b"not seat-2's seed").digest()
        return fz.derive_order(rnd.ctx, seeds, cards)

    def reveals(self, round_no: int) -> tuple[dict[str, bytes], dict[str, bytes]]:
        seeds, sigs = super().reveals(round_no)
        if round_no == 0:
            seeds[self.victim] = self.forged
        return seeds, sigs


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_host_reveal_that_does_not_open_blames_the_host(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, host_cls=GrindingHost)
    for v in caught(hand.transcripts, check="round"):
        assert "the host (@dealer) revealed a seed that does not open its commitment" in v.reason


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_forged_player_reveal_blames_the_host_not_the_player(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, host_cls=ForgingHost)
    verdicts = caught(hand.transcripts, check="round")
    assert Fault.ALTERED_SEED.value in verdicts[1].reason  # seat-2 knows its own seed
    for v in verdicts[:1] + verdicts[2:]:
        assert Fault.FORGED_SIGNATURE.value in v.reason


@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:4])
def test_the_host_cannot_pass_its_own_abort_off_as_a_players(
    preset: str, players: int, seed: int
) -> None:
    """The host withheld its seed (its last-revealer abort) and then blames seat-2: with a
    forged bad seed, with seat-2's real seed, or as a seed that never came."""
    hand = play(preset, players, seed, reveal=no_reveal(DEALER, 0))
    assert hand.void == VoidRecord(0, Fault.MISSING_REVEAL, (DEALER,))
    r0 = hand.transcripts[0].rounds[0]
    forged = {**r0.seeds, "seat-2": bytes(32)}
    stories = [
        (VoidRecord(0, Fault.BAD_REVEAL, ("seat-2",)), forged),
        (VoidRecord(0, Fault.BAD_REVEAL, ("seat-2",)), dict(r0.seeds)),
        (VoidRecord(0, Fault.MISSING_REVEAL, ("seat-2",)), dict(r0.seeds)),
    ]
    for void, seeds in stories:
        told = []
        for t in hand.transcripts:
            rounds = (dataclasses.replace(t.rounds[0], seeds=seeds),)
            told.append(dataclasses.replace(t, void=void, rounds=rounds))
        caught(told, check=None)


# ---------------------------------------------------------------------------------------------
# (d) the host skips or fakes a reshuffle round


def _reshuffled(preset: str, players: int) -> FairHand:
    return play(preset, players, reshuffling(preset, players, rounds=3))


RESHUFFLE_CASES = [("switch", 2), ("blackjack", 3), ("black5", 2), ("irish", 4)]


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_reshuffle_without_its_round_is_caught(preset: str, players: int) -> None:
    """The host reshuffled as it liked and never ran round 1 (nor shows one)."""
    hand = _reshuffled(preset, players)
    told = [
        dataclasses.replace(t, rounds=tuple(r for r in t.rounds if r.round != 1))
        for t in hand.transcripts
    ]
    for v in caught(told, check="round"):
        assert "reshuffle round 1 was dealt without its commit-reveal round" in v.reason


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_silent_reshuffle_is_caught(preset: str, players: int) -> None:
    """No round and no Reshuffle in the log: the stock just goes on after it ran out."""
    hand = _reshuffled(preset, players)
    last = hand.rounds - 1
    told = []
    for t in hand.transcripts:
        log = [e for e in t.log if not (isinstance(e, fz.Reshuffle) and e.round == last)]
        t = dataclasses.replace(t, rounds=t.rounds[:-1])
        told.append(everyone_sees(t, log))
    for v in caught(told, check="log"):
        assert f"the stock is empty and must be reshuffled (round {last})" in v.reason


class WrongPileHost(FairHost):
    """Announces reshuffle rounds without the lowest card of the pile, which it keeps back and
    puts on top of the new stock for whoever draws next."""

    def announced_cards(self, round_no: int, cards: list[int]) -> list[int]:
        return cards[1:] if round_no else cards

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        if not round_no:
            return derived
        kept = min(set(self.game.discard[:-1]) - set(derived))
        return [kept, *derived]


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_round_bound_to_another_pile_is_caught(preset: str, players: int) -> None:
    seed = reshuffling(preset, players, rounds=2)
    hand = play(preset, players, seed, host_cls=WrongPileHost)
    for v in caught(hand.transcripts, check="round"):
        assert "round 1 was announced for other cards than the discard pile" in v.reason
        assert "left out" in v.reason


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_reshuffle_ordered_by_an_earlier_round_is_caught(preset: str, players: int) -> None:
    """The host orders the pile with the deal's seeds (it knows them by then) and shows round
    0's commitments, seeds and signatures as round 1's."""
    hand = _reshuffled(preset, players)
    told = []
    for t in hand.transcripts:
        r0, r1 = t.rounds[0], t.rounds[1]
        fake = dataclasses.replace(r0, round=1, cards=r1.cards)
        told.append(dataclasses.replace(t, rounds=(r0, fake, *t.rounds[2:])))
    caught(told, check="round")


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_reshuffle_of_a_stock_not_yet_empty_is_caught(preset: str, players: int) -> None:
    """The host slips in a reshuffle (with a round of its own) while the stock still holds
    cards."""
    hand = _reshuffled(preset, players)
    told = []
    for t in hand.transcripts:
        at = t.log.index(next(e for e in t.log if isinstance(e, fz.Play)))
        log = [*t.log[: at + 1], fz.Reshuffle(1, 1), *t.log[at + 1 :]]
        told.append(everyone_sees(t, log))
    for v in caught(told, check="log"):
        assert "while the stock still holds" in v.reason


# ---------------------------------------------------------------------------------------------
# (e) the host sends two players different logs


def _a_play_hidden(log: tuple[LogEvent, ...]) -> list[LogEvent]:
    out = list(log)
    last = max(i for i, e in enumerate(out) if isinstance(e, fz.Play))
    out[last] = fz.Note("chat", b"nothing happened here")
    return out


ALTERATIONS = {
    "one event more": lambda log: [*log, fz.Note("chat", b"good game")],
    "one event less": lambda log: list(log[:-1]),
    "a play hidden": _a_play_hidden,
}


@pytest.mark.parametrize("alteration", list(ALTERATIONS))
@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:4])
@pytest.mark.parametrize("withheld", [False, True])
def test_different_logs_to_different_players_are_caught(
    alteration: str, preset: str, players: int, seed: int, withheld: bool
) -> None:
    """Seat-2 is shown another log, which the host signs for it and which seat-2 signs. The
    host passes seat-2's signed head on to the others (it cannot change it), or withholds it."""
    hand = play(preset, players, seed)
    ids = ids_for(players)
    ts = list(hand.transcripts)
    b = ts[1]
    b = resign(dataclasses.replace(b, log=tuple(ALTERATIONS[alteration](b.log))), [ids[1], DEALER])
    ts[1] = b
    for i in range(players):
        if i != 1:
            heads = dict(ts[i].log_heads)
            if withheld:
                del heads[ids[1]]
            else:
                heads[ids[1]] = b.log_heads[ids[1]]
            ts[i] = dataclasses.replace(ts[i], log_heads=heads)
    reason = "did not pass on seat-2's log head" if withheld else "showed seat-2 a different log"
    if alteration == "one event more":
        # Seat-1's log is a prefix of seat-2's, so to seat-2 seat-1's head reads as that of a
        # player who left the hand there (SPEC § Signatures). The extra event can only be a
        # note after the hand's end (both logs replay as whole hands), and the others still
        # catch it by the heads; side by side, the transcripts show seat-2 it too.
        verdicts = caught(ts, must=[i for i in range(players) if i != 1], check="log-heads")
        assert reason in verdicts[0].reason
        assert verdicts[1].status == "unfair"
        assert verdicts[1].check == "compare", verdicts[1].text()
        return
    if alteration == "one event less" and not withheld:
        # The mirror case: seat-2's head is of a prefix of the others' log, which reads to
        # them as a player who left there; seat-2, shown less, catches it by the heads, and
        # the transcripts side by side show the others.
        verdicts = caught(ts, must=[1], check="log-heads")
        assert "showed seat-1 a different log" in verdicts[1].reason
        for i in range(players):
            if i != 1:
                assert verdicts[i].status == "unfair"
                assert verdicts[i].check == "compare", verdicts[i].text()
        return
    verdicts = caught(ts, check="log-heads")
    assert reason in verdicts[0].reason
    assert "showed seat-1 a different log" in verdicts[1].reason


def test_a_hand_dealt_twice_under_one_number_is_caught_across_transcripts() -> None:
    """A silent redeal: the host deals hand 1 again with fresh rounds. Each deal alone is
    fair; one seat's two transcripts of hand 1 side by side prove the redeal."""
    first = play("switch", 3, seed=1)
    again = play("switch", 3, seed=4)
    assert first.host.setup.ctx0 == again.host.setup.ctx0
    assert verify(first.transcripts[0]).fair
    assert verify(again.transcripts[0]).fair
    verdicts = caught([first.transcripts[0], again.transcripts[0]], check="compare")
    assert "hand 1 was dealt twice under one number" in verdicts[0].reason
    # Transcripts of different hands, or one transcript twice, are no disagreement.
    later = play("switch", 3, seed=4, hand_no=2)
    pair = [first.transcripts[0], later.transcripts[0], first.transcripts[0]]
    assert all(v.fair for v in verify_all(pair))


# ---------------------------------------------------------------------------------------------
# (f) the host miscounts a pick-up


class MiscountHost(FairHost):
    """The first time a seat takes a pick-up, the host's engine hands it ``extra`` cards more
    (or fewer) than the rules say; everything after follows from that."""

    extra = 2
    cheated = False

    def act(self, seat: int, move: int) -> tuple[list[LogEvent], list[Event]]:
        g = self.game
        events = g.apply(seat, move)
        if not self.cheated and any(k == "take" for k, _, _ in events):
            drawn = [i for i, (k, s, _) in enumerate(events) if k == "draw" and s == seat]
            if self.extra > 0 and len(g.stock) > self.extra:
                for _ in range(self.extra):
                    c = g.stock.pop()
                    g.hands[seat] |= 1 << c
                    g.counts[seat] += 1
                    events.append(("draw", seat, c))
                self.cheated = True
            elif self.extra < 0 and len(drawn) >= 2 and g.chance_request() is None:
                c = events[drawn[-1]][2]
                g.hands[seat] ^= 1 << c
                g.counts[seat] -= 1
                g.stock.append(c)
                del events[drawn[-1]]
                self.cheated = True
        return self.record(events, move=(seat, move))


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
@pytest.mark.parametrize("extra", [2, -1])
def test_a_miscounted_pick_up_is_caught(preset: str, players: int, seed: int, extra: int) -> None:
    host_cls = variant(MiscountHost, extra=extra)
    for attempt in range(seed, seed + 40, 2):  # a hand in which someone takes a pick-up
        hand = play(preset, players, attempt, host_cls=host_cls)
        if hand.host.cheated:  # type: ignore[attr-defined]
            break
    else:
        pytest.fail("no pick-up was taken")
    for v in caught(hand.transcripts, check="log"):
        assert "cards where the rules give" in v.reason


# ---------------------------------------------------------------------------------------------
# (g) the host reuses a commitment from another hand


def _two_hands(preset: str, players: int, seed: int) -> tuple[FairHand, FairHand]:
    return play(preset, players, seed, hand_no=1), play(preset, players, seed, hand_no=2)


def _with_round0(t: Transcript, **changes: Any) -> Transcript:
    return dataclasses.replace(
        t, rounds=(dataclasses.replace(t.rounds[0], **changes), *t.rounds[1:])
    )


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_players_commitment_from_another_hand_is_caught(
    preset: str, players: int, seed: int
) -> None:
    """Hand 2 shows seat-2's commitment, seed and signatures of hand 1 (whose seed the host
    learnt when it revealed hand 1), so the host knew seat-2's part of hand 2 in advance."""
    one, two = _two_hands(preset, players, seed)
    old = one.transcripts[0].rounds[0]
    p = "seat-2"
    told = []
    for t in two.transcripts:
        r0 = t.rounds[0]
        told.append(
            _with_round0(
                t,
                commitments={**r0.commitments, p: old.commitments[p]},
                commit_signatures={**r0.commit_signatures, p: old.commit_signatures[p]},
                seeds={**r0.seeds, p: old.seeds[p]},
                reveal_signatures={**r0.reveal_signatures, p: old.reveal_signatures[p]},
            )
        )
    verdicts = caught(told, check="round")
    assert Fault.ALTERED_SEED.value in verdicts[1].reason or (
        Fault.ALTERED_COMMITMENT.value in verdicts[1].reason
    )


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_the_hosts_own_commitment_from_another_hand_is_caught(
    preset: str, players: int, seed: int
) -> None:
    """The host reuses its own commitment and seed of hand 1, freshly signed for hand 2."""
    one, two = _two_hands(preset, players, seed)
    old = one.transcripts[0].rounds[0]
    key = keys_for(ids_for(players))[DEALER]
    ctx = two.host.setup.ctx0
    c, s = old.commitments[DEALER], old.seeds[DEALER]
    told = []
    for t in two.transcripts:
        r0 = t.rounds[0]
        told.append(
            _with_round0(
                t,
                commitments={**r0.commitments, DEALER: c},
                commit_signatures={
                    **r0.commit_signatures,
                    DEALER: fz.sign_commitment(key, ctx, DEALER, c),
                },
                seeds={**r0.seeds, DEALER: s},
                reveal_signatures={
                    **r0.reveal_signatures,
                    DEALER: fz.sign_reveal(key, ctx, DEALER, c, s),
                },
            )
        )
    for v in caught(told, check="round"):
        assert "the host (@dealer) revealed a seed that does not open its commitment" in v.reason


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_whole_round_from_another_hand_is_caught(preset: str, players: int, seed: int) -> None:
    """The host replays hand 1's deal as hand 2's: every commitment, seed and signature."""
    one, two = _two_hands(preset, players, seed)
    old = one.transcripts[0].rounds[0]
    told = [
        _with_round0(
            t,
            commitments=old.commitments,
            commit_signatures=old.commit_signatures,
            seeds=old.seeds,
            reveal_signatures=old.reveal_signatures,
        )
        for t in two.transcripts
    ]
    caught(told, check="round")


# ---------------------------------------------------------------------------------------------
# (h) the host lets a seat play a card it was never dealt


class CheatHost(FairHost):
    """At seat 2's first ordinary turn, its engine slips it a card that matches the top card —
    a card of a second deck the game does not use (``steal`` False), or one taken from another
    seat's hand — and seat 2 plays it."""

    steal = False
    cheated = False

    def act(self, seat: int, move: int) -> tuple[list[LogEvent], list[Event]]:
        g = self.game
        if (
            not self.cheated
            and seat == 1
            and g.phase == Phase.PLAY
            and not g.pend_kind
            and g.named_suit < 0
            and not g.free
            and g.top < 52
            and g.counts[seat] > 3
        ):
            card = -1
            fits = g.playable_mask()
            if not self.steal:
                # A card from the stock, which nobody was dealt. (A card from outside the
                # deck would not do: the engine never lists one as legal.)
                for c in reversed(g.stock):
                    if (fits >> c) & 1:
                        card = c
                        g.stock.remove(c)
                        break
            else:
                for other in range(g.players):
                    mine = [c for c in g.hand(other) if (fits >> c) & 1 and c < 104]
                    if other != seat and mine:
                        card = mine[0]
                        g.hands[other] ^= 1 << card
                        g.counts[other] -= 1
                        break
            if card >= 0:
                g.hands[seat] |= 1 << card
                g.counts[seat] += 1
                g._legal = None
                if card in g.legal_moves():
                    move = card
                    self.cheated = True
        return super().act(seat, move)


@pytest.mark.parametrize(
    ("preset", "players", "seed", "steal"),
    [(*c, False) for c in ONE_DECK] + [(*c, True) for c in CASES],
)
def test_a_card_never_dealt_is_caught_when_it_is_played(
    preset: str, players: int, seed: int, steal: bool
) -> None:
    host_cls = variant(CheatHost, steal=steal)
    for attempt in range(seed, seed + 40, 2):
        hand = play(preset, players, attempt, host_cls=host_cls)
        if hand.host.cheated:  # type: ignore[attr-defined]
            break
    else:
        pytest.fail("seat 2 never had an ordinary turn")
    for v in caught(hand.transcripts, check="move"):
        assert "seat-2 played" in v.reason
        assert "which is not in its hand as the seeds dealt it" in v.reason


# ---------------------------------------------------------------------------------------------
# And the players: a bad reveal is the player's fault, provably


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_players_bad_reveal_blames_that_player_alone(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, reveal=bad_reveal("seat-1", 0))
    for v in verify_all(through_files(hand.transcripts)):
        assert v.status == "void"
        assert v.culprits == ("seat-1",)
        assert v.proven
