"""The tamper suite in one process: a dishonest host, every way v1's issue named, each caught.

Each dishonest host cheats in one way and is otherwise as careful as it can be: it deals
consistently from what it cheated with, signs with its own key whatever it shows (it holds
``@dealer``'s key), and cannot sign for a player. Some cheat during play (subclasses of
:class:`~lanswitch.fairdeal.Dealer` pulling its levers, or reaching into its own engine);
others change what they show after the hand, modelled by editing the host-controlled parts of
the transcripts while every honest seat signs what it was shown (``resign``/``everyone_sees``).

"Caught" means: every transcript that can see the cheat verifies unfair, and every verdict
that is not fair blames exactly the host — never a player. Every tamper runs over several
presets and table sizes, and every transcript goes through its JSON file first. The same
cheats, played over real TLS against untouched clients, are ``test_cheats.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Sequence
from typing import Any, TypeVar, cast

import pytest

from lanswitch.fairdeal import (
    DEALER,
    Announcement,
    Dealer,
    FairHand,
    Fault,
    LogEvent,
    Move,
    Note,
    Shuffle,
    Step,
    Transcript,
    Verdict,
    VoidRecord,
    verify,
    verify_all,
)
from lanswitch.fairdeal import keystream as ks
from lanswitch.fairdeal import primitives as pr
from lanswitch.fairdeal.dealer import card_events
from lanswitch.fairdeal.log import BY_TIMEOUT
from lanswitch.game import BLUNDER_FLAG, DRAW, PASS, Phase
from tests.fairplay import (
    bad_reveal,
    everyone_sees,
    ids_for,
    key_of,
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

D = TypeVar("D", bound=Dealer)


def variant(cls: type[D], **attrs: Any) -> type[D]:
    """``cls`` with some class attributes changed (a dishonest host's settings)."""
    return cast("type[D]", type(cls.__name__, (cls,), attrs))


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
            assert "blame the host" in v.text()
    for i in range(len(transcripts)) if must is None else must:
        assert verdicts[i].status == "unfair", f"seat {i} missed it"
        if check is not None:
            assert verdicts[i].check == check, verdicts[i].text()
    return verdicts


# ---------------------------------------------------------------------------------------------
# (a) the host swaps two cards a player then sees


class SwapHost(Dealer):
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
    hand = play(preset, players, seed, dealer_cls=SwapHost)
    victim = (hand.dealer.setup.dealer + 1) % players  # dealt the top card first
    verdicts = caught(hand.transcripts, must=[victim], check="cards")
    assert "the 1st card the host gave you is" in verdicts[victim].reason
    # It is provable to a third party: the host signed the cards it gave.
    t = hand.transcripts[victim]
    msg = pr.cards_message(t.setup.ctx0, t.id, t.cards)
    assert pr.verify(t.setup.keys[DEALER], msg, t.cards_signature)


class CoverUpHost(SwapHost):
    """Swaps a card, then signs the cards the seeds would have given, not those it gave."""

    def sign_cards(self, seat: int) -> bytes:
        derived = list(self.cards[seat])
        if seat == (self.setup.dealer + 1) % self.setup.players:
            opened = self.rounds[0]
            derived[0] = opened.round.order(opened.cards)[0]
        msg = pr.cards_message(self.setup.ctx0, self.setup.seats[seat], derived)
        return pr.sign(self.key, msg)


@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:3])
def test_a_cards_signature_over_other_cards_than_those_given_is_caught(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, dealer_cls=CoverUpHost)
    victim = (hand.dealer.setup.dealer + 1) % players
    verdicts = caught(hand.transcripts, must=[victim], check="cards")
    assert "signature over the cards it gave you does not verify" in verdicts[victim].reason


@pytest.mark.parametrize(("preset", "players"), [("switch", 2), ("blackjack", 3), ("irish", 2)])
def test_a_swapped_card_in_a_reshuffle_is_caught_by_the_seat_that_draws_it(
    preset: str, players: int
) -> None:
    seed = reshuffling(preset, players, rounds=2)
    hand = play(preset, players, seed, dealer_cls=variant(SwapHost, swap_round=1))
    events = hand.dealer.log.events
    at = events.index(next(e for e in events if isinstance(e, Shuffle) and e.round == 1))
    drawer = next(e for e in events[at:] if hasattr(e, "n") and hasattr(e, "seat")).seat
    caught(hand.transcripts, must=[drawer])


# ---------------------------------------------------------------------------------------------
# (b) the host deals from a stacked deck


class StackedHost(Dealer):
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
    hand = play(preset, players, seed, dealer_cls=variant(StackedHost, own_shuffle=own_shuffle))
    caught(hand.transcripts)


# ---------------------------------------------------------------------------------------------
# (c) the host forges a reveal


class GrindingHost(Dealer):
    """Sees every seed, then picks its own anew to get a deal it likes, deals from that and
    reveals it, signed with its own key: a seed that does not open its (earlier) commitment."""

    ground = hashlib.sha256(b"a seed the host likes").digest()

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        if round_no:
            return derived
        opened = self.rounds[0]
        seeds = {p: s for p, (s, _) in opened.round.seeds.items()}
        seeds[DEALER] = self.ground
        return ks.derive_order(opened.round.ctx, seeds, opened.cards)

    def reveals(self, round_no: int) -> dict[str, tuple[bytes, bytes]]:
        seeds = super().reveals(round_no)
        if round_no == 0:
            rnd = self.rounds[0].round
            c = rnd.commitments[DEALER][0]
            msg = pr.reveal_message(rnd.ctx, DEALER, c, self.ground)
            seeds[DEALER] = (self.ground, pr.sign(self.key, msg))
        return seeds


class ForgingHost(Dealer):
    """Replaces a player's seed with one of its own choosing, deals from that, and passes the
    forged seed on with the player's real signature (it cannot make the player's)."""

    victim = "seat-2"
    forged = hashlib.sha256(b"not seat-2's seed").digest()

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        if round_no:
            return derived
        opened = self.rounds[0]
        seeds = {p: s for p, (s, _) in opened.round.seeds.items()}
        seeds[self.victim] = self.forged
        return ks.derive_order(opened.round.ctx, seeds, opened.cards)

    def reveals(self, round_no: int) -> dict[str, tuple[bytes, bytes]]:
        seeds = super().reveals(round_no)
        if round_no == 0:
            seeds[self.victim] = (self.forged, seeds[self.victim][1])
        return seeds


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_host_reveal_that_does_not_open_blames_the_host(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, dealer_cls=GrindingHost)
    for v in caught(hand.transcripts, check="round"):
        assert "the host revealed a seed that does not open its commitment" in v.reason


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_forged_player_reveal_blames_the_host_not_the_player(
    preset: str, players: int, seed: int
) -> None:
    hand = play(preset, players, seed, dealer_cls=ForgingHost)
    verdicts = caught(hand.transcripts, check="round")
    assert "a seed of yours you never had" in verdicts[1].reason  # seat-2 knows its own seed
    for v in verdicts[:1] + verdicts[2:]:
        assert "seed of seat-2 without its valid signature" in v.reason


class Withholding(Dealer):
    def own_reveal(self, round_no: int, seed: bytes) -> bytes | None:
        return None


@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:4])
def test_the_host_cannot_pass_its_own_abort_off_as_a_players(
    preset: str, players: int, seed: int
) -> None:
    """The host withheld its seed (its last-revealer abort) and then blames seat-2, signing its
    abort anew: with a forged bad seed, with seat-2's real seed, or as a seed that never came."""
    hand = play(preset, players, seed, dealer_cls=Withholding)
    assert hand.void is not None
    assert hand.void.culprits == (DEALER,)
    r0 = hand.transcripts[0].rounds[0]
    forged = {**r0.seeds, "seat-2": (bytes(32), r0.seeds["seat-2"][1])}
    key, ctx0 = key_of(DEALER), hand.dealer.setup.ctx0
    stories = [
        (Fault.BAD_REVEAL, forged),
        (Fault.BAD_REVEAL, dict(r0.seeds)),
        (Fault.MISSING_REVEAL, dict(r0.seeds)),
    ]
    for fault, seeds in stories:
        void = VoidRecord.make(key, ctx0, 0, pr.Blame(fault, ("seat-2",)), hand.void.commitments)
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
    caught(told, check="round")


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_silent_reshuffle_is_caught(preset: str, players: int) -> None:
    """No round and no Shuffle in the log: the stock just goes on after it ran out."""
    hand = _reshuffled(preset, players)
    last = hand.rounds - 1
    told = []
    for t in hand.transcripts:
        log = [e for e in t.log if not (isinstance(e, Shuffle) and e.round == last)]
        t = dataclasses.replace(t, rounds=t.rounds[:-1])
        told.append(everyone_sees(t, log))
    for v in caught(told, check="log"):
        assert "a reshuffle is due, but the log has" in v.reason


class WrongPileHost(Dealer):
    """Announces reshuffle rounds without the lowest card of the pile, which it keeps back and
    puts on top of the new stock for whoever draws next. (A pile of one card it reshuffles
    honestly: a round must order at least one card, and the host's own code says so.)"""

    def announced_cards(self, round_no: int, cards: list[int]) -> list[int]:
        return cards[1:] if round_no and len(cards) > 1 else cards

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        kept = set(self.game.discard[:-1]) - set(derived)
        return [min(kept), *derived] if round_no and kept else derived


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_round_bound_to_another_pile_is_caught(preset: str, players: int) -> None:
    seed = reshuffling(preset, players, rounds=2)
    hand = play(preset, players, seed, dealer_cls=WrongPileHost)
    for v in caught(hand.transcripts, check="round"):
        assert "round 1 was announced for other cards than the discard pile" in v.reason
        assert "left out" in v.reason


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_reshuffle_ordered_by_an_earlier_round_is_caught(preset: str, players: int) -> None:
    """The host orders the pile with the deal's seeds (it knows them by then) and shows round
    0's announcements and seeds as round 1's."""
    hand = _reshuffled(preset, players)
    told = []
    for t in hand.transcripts:
        r0, r1 = t.rounds[0], t.rounds[1]
        fake = dataclasses.replace(r0, round=1, at=r1.at)
        told.append(dataclasses.replace(t, rounds=(r0, fake, *t.rounds[2:])))
    caught(told, check="round")


@pytest.mark.parametrize(("preset", "players"), RESHUFFLE_CASES)
def test_a_reshuffle_of_a_stock_not_yet_empty_is_caught(preset: str, players: int) -> None:
    """The host slips in a shuffle while the stock still holds cards."""
    hand = _reshuffled(preset, players)
    told = []
    for t in hand.transcripts:
        first = next(i for i, e in enumerate(t.log) if isinstance(e, Move) and e.move < 108)
        log = [*t.log[: first + 1], Shuffle(1, 1, 0), *t.log[first + 1 :]]
        told.append(everyone_sees(t, log))
    for v in caught(told, check="log"):
        assert "while the stock still holds" in v.reason


# ---------------------------------------------------------------------------------------------
# (e) the host sends two players different logs, after the hand


def _a_play_hidden(log: tuple[LogEvent, ...]) -> list[LogEvent]:
    out = list(log)
    last = max(i for i, e in enumerate(out) if isinstance(e, Move))
    out[last] = Note("chat", b"nothing happened here")
    return out


ALTERATIONS = {
    "one event more": lambda log: [*log, Note("chat", b"good game")],
    "one event less": lambda log: list(log[:-1]),
    "a move hidden": _a_play_hidden,
}


@pytest.mark.parametrize("alteration", list(ALTERATIONS))
@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:4])
@pytest.mark.parametrize("withheld", [False, True])
def test_different_logs_to_different_players_are_never_fair(
    alteration: str, preset: str, players: int, seed: int, withheld: bool
) -> None:
    """Seat-2 is shown another log, which the host signs for it and which seat-2 signs. The
    host passes seat-2's signed head on to the others (it cannot change it): a head of another
    log is proof (unfair); or withholds it: nobody confirmed seat-2 saw this log (unconfirmed,
    no blame) — never fair."""
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
    verdicts = verify_all(through_files(ts))
    for i, v in enumerate(verdicts):
        assert not v.fair, (i, v.text())
        assert v.status in ("unfair", "unconfirmed"), v.text()
        if v.status == "unfair":
            assert v.culprits == (DEALER,), v.text()
    # Seat-1 alone sees exactly who did not confirm its log, or whose head is of another log.
    alone = verify(through_files(ts)[0])
    if withheld:
        assert alone.status == "unconfirmed"
        assert [p for p, _ in alone.unconfirmed] == [ids[1]]
    elif alteration != "one event less":
        assert alone.status == "unfair"
        assert "showed seat-2 a different log" in alone.reason


def test_a_hand_dealt_twice_under_one_number_is_caught_across_transcripts() -> None:
    """A silent redeal: the host deals hand 1 again with fresh rounds. Each deal alone is
    fair; one seat's two transcripts of hand 1 side by side prove the redeal."""
    first = play("switch", 3, seed=1)
    again = play("switch", 3, seed=4)
    assert first.dealer.setup.ctx0 == again.dealer.setup.ctx0
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


class MiscountHost(Dealer):
    """The first time a seat takes a pick-up, the host's engine hands it ``extra`` cards more
    (or fewer) than the rules say; everything after follows from that."""

    extra = 2
    cheated = False

    def _move(self, seat: int, move: int, by: int, signature: bytes) -> Step:
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
        return self._add([Move(seat, by, move, signature), *card_events(events)], events)


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
@pytest.mark.parametrize("extra", [2, -1])
def test_a_miscounted_pick_up_is_caught(preset: str, players: int, seed: int, extra: int) -> None:
    dealer_cls = variant(MiscountHost, extra=extra)
    for attempt in range(seed, seed + 40, 2):  # a hand in which someone takes a pick-up
        hand = play(preset, players, attempt, dealer_cls=dealer_cls)
        if hand.dealer.cheated:  # type: ignore[attr-defined]
            break
    else:
        pytest.fail("no pick-up was taken")
    for v in caught(hand.transcripts, check="log"):
        assert "cards where the rules give" in v.reason


# ---------------------------------------------------------------------------------------------
# (g) the host reuses commitments from another hand


def _two_hands(preset: str, players: int, seed: int) -> tuple[FairHand, FairHand]:
    return play(preset, players, seed, hand_no=1), play(preset, players, seed, hand_no=2)


@pytest.mark.parametrize(("preset", "players", "seed"), CASES)
def test_a_round_from_another_hand_is_caught(preset: str, players: int, seed: int) -> None:
    """The host replays hand 1's deal as hand 2's: its announcements and seeds, whose context
    is bound to hand 1 (its signatures do not verify over hand 2's, and the context differs)."""
    one, two = _two_hands(preset, players, seed)
    old = one.transcripts[0].rounds[0]
    told = [
        dataclasses.replace(
            t,
            rounds=(
                dataclasses.replace(t.rounds[0], announces=old.announces, seeds=old.seeds),
                *t.rounds[1:],
            ),
        )
        for t in two.transcripts
    ]
    caught(told, check="round")


@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:3])
def test_the_hosts_own_seed_from_another_hand_is_caught(
    preset: str, players: int, seed: int
) -> None:
    """The host deals hand 2 with its seed of hand 1 in place of the one it committed to."""

    class Reuse(Dealer):
        def order(self, round_no: int, derived: list[int]) -> list[int]:
            if round_no:
                return derived
            opened = self.rounds[0]
            seeds = {p: s for p, (s, _) in opened.round.seeds.items()}
            seeds[DEALER] = one.dealer.rounds[0].round.seeds[DEALER][0]
            return ks.derive_order(opened.round.ctx, seeds, opened.cards)

        def reveals(self, round_no: int) -> dict[str, tuple[bytes, bytes]]:
            seeds = super().reveals(round_no)
            if round_no == 0:
                old = one.dealer.rounds[0].round.seeds[DEALER][0]
                rnd = self.rounds[0].round
                c = rnd.commitments[DEALER][0]
                seeds[DEALER] = (old, pr.sign(self.key, pr.reveal_message(rnd.ctx, DEALER, c, old)))
            return seeds

    one = play(preset, players, seed, hand_no=1)
    two = play(preset, players, seed, hand_no=2, dealer_cls=Reuse)
    for v in caught(two.transcripts, check="round"):
        assert "the host revealed a seed that does not open its commitment" in v.reason


# ---------------------------------------------------------------------------------------------
# (h) the host lets a seat play a card it was never dealt


class CheatHost(Dealer):
    """At seat 2's first ordinary turn, its engine slips it a card that matches the top card —
    one from the stock, which nobody was dealt (``steal`` False), or one taken from another
    seat's hand — and seat 2 plays it (signing it: the seat cheats with the host)."""

    steal = False
    cheated = False

    def _move(self, seat: int, move: int, by: int, signature: bytes) -> Step:
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
                    msg = self.move_message(seat, by, move)
                    signature = pr.sign(key_of(self.setup.seats[seat]), msg)
        return super()._move(seat, move, by, signature)


@pytest.mark.parametrize(
    ("preset", "players", "seed", "steal"),
    [(*c, False) for c in ONE_DECK] + [(*c, True) for c in CASES],
)
def test_a_card_never_dealt_is_caught_when_it_is_played(
    preset: str, players: int, seed: int, steal: bool
) -> None:
    dealer_cls = variant(CheatHost, steal=steal)
    for attempt in range(seed, seed + 40, 2):
        hand = play(preset, players, attempt, dealer_cls=dealer_cls)
        if hand.dealer.cheated:  # type: ignore[attr-defined]
            break
    else:
        pytest.fail("seat 2 never had an ordinary turn")
    for v in caught(hand.transcripts, check="move"):
        assert "seat-2 played" in v.reason
        assert "which is not in its hand as the seeds dealt it" in v.reason


# ---------------------------------------------------------------------------------------------
# (g) the host's own moves for a player: held to what the protocol lets it do


class BestCardTimeout(Dealer):
    """At a table with a turn timer, the host's "timeouts" for seat 2 play a card (its first
    legal one) rather than the move that gives nothing away: the host plays the player's hand
    for it, as a timeout that ran out looks like."""

    timed_out = 0

    def act(self, seat: int, move: int, signature: bytes) -> Step:
        cards = [m for m in self.game.legal_moves() if m not in (DRAW, PASS)]
        if seat == 1 and cards and self.timed_out < 3 and DRAW in self.game.legal_moves():
            self.timed_out += 1
            return self.host_move(seat, cards[0], by=BY_TIMEOUT)
        return super().act(seat, move, signature)


class MadeUpBlunders(Dealer):
    """Charges seat 2 a blunder on a "timeout" (penalty cards, out of its turn) while seat 1
    is to act — three times: a player can own up to a blunder; the host cannot make one up."""

    charged = 0

    def act(self, seat: int, move: int, signature: bytes) -> Step:
        if seat == 0 and self.charged < 3:
            self.charged += 1
            return self.host_move(1, BLUNDER_FLAG | move, by=BY_TIMEOUT)
        return super().act(seat, move, signature)


@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:3])
def test_a_timeout_that_plays_a_card_for_the_player_is_caught(
    preset: str, players: int, seed: int
) -> None:
    for attempt in range(seed, seed + 40, 2):
        hand = play(preset, players, attempt, dealer_cls=BestCardTimeout, turn_timer_ms=30_000)
        if hand.dealer.timed_out:  # type: ignore[attr-defined]
            break
    else:
        pytest.fail("seat 2 never had a card to play with a draw allowed")
    for v in caught(hand.transcripts, check="move"):
        assert "the host moved for seat-2 on a timeout with" in v.reason
        assert "gives nothing away (draw)" in v.reason
        assert v.proven


@pytest.mark.parametrize(("preset", "players", "seed"), [c for c in CASES if c[0] == "blackjack"])
def test_a_blunder_the_host_makes_up_is_caught(preset: str, players: int, seed: int) -> None:
    hand = play(preset, players, seed, dealer_cls=MadeUpBlunders, turn_timer_ms=30_000)
    assert hand.dealer.charged  # type: ignore[attr-defined]
    for v in caught(hand.transcripts, check="move"):
        assert "the log charges seat-2 a blunder that the host on a timeout made up" in v.reason
        assert v.proven


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


def test_a_players_missing_seed_is_on_the_hosts_word() -> None:
    hand = play("switch", 3, 1, reveal=no_reveal("seat-2", 0))
    for v in verify_all(through_files(hand.transcripts)):
        assert v.status == "void"
        assert v.culprits == ("seat-2",)
        assert not v.proven


@pytest.mark.parametrize(("preset", "players", "seed"), CASES[:3])
def test_a_second_different_stage_3_announcement_is_the_hosts_contradiction(
    preset: str, players: int, seed: int
) -> None:
    """Two stage-3 announcements of round 0, both signed by the host, with another player's
    commitment changed in the second: kept by the seat, and a proof against the host (the
    stage-1 announcement alone cannot show it: @dealer's own commitment is unchanged)."""
    hand = play(preset, players, seed)
    key, ctx0 = key_of(DEALER), hand.dealer.setup.ctx0
    told = []
    for t in hand.transcripts:
        r0 = t.rounds[0]
        fixed = r0.fixed()
        assert fixed is not None
        changed = dict(fixed.commitments)
        other = pr.commitment(fixed.ctx, "seat-2", bytes(32))
        changed["seat-2"] = (
            other,
            pr.sign(key_of("seat-2"), pr.commitment_message(fixed.ctx, "seat-2", other)),
        )
        second = Announcement.make(key, ctx0, 0, True, fixed.ctx, fixed.cards, fixed.mask, changed)
        rounds = (dataclasses.replace(r0, announces=(*r0.announces, second)), *t.rounds[1:])
        told.append(dataclasses.replace(t, rounds=rounds))
    for v in caught(told, check="round"):
        assert "announced round 0 twice (stage 3) and changed it" in v.reason


@pytest.mark.parametrize("signer", ["seat-2", "nobody"])
def test_a_second_announcement_the_host_never_signed_proves_nothing_against_it(
    signer: str,
) -> None:
    """A keeper who doctors its own file to frame the host: the same contradicting stage-3
    announcement as above, but signed by the keeper's own key (or not at all) — something the
    host never said. ``lanswitch verify`` ran the contradiction check before the signature
    check on every announcement after the first, and said "proven by signatures" against an
    honest host. Every announcement a file holds must carry the host's signature before it
    can speak against the host: this one is the file's word alone, never a proof."""
    hand = play("switch", 3, 1)
    ctx0 = hand.dealer.setup.ctx0
    t = hand.transcripts[1]
    r0 = t.rounds[0]
    fixed = r0.fixed()
    assert fixed is not None
    changed = dict(fixed.commitments)
    changed[DEALER] = (bytes(32), changed[DEALER][1])  # "the host changed its commitment"
    forger = key_of("seat-2") if signer == "seat-2" else key_of("seat-3")
    second = Announcement.make(forger, ctx0, 0, True, fixed.ctx, fixed.cards, fixed.mask, changed)
    if signer == "nobody":
        second = dataclasses.replace(second, signature=bytes(64))
    rounds = (dataclasses.replace(r0, announces=(*r0.announces, second)), *t.rounds[1:])
    (v,) = verify_all(through_files([dataclasses.replace(t, rounds=rounds)]))
    assert not v.fair, v.text()
    assert not v.proven, v.text()  # the file's own record: no signature of the host's says it
    assert "proven by signatures" not in v.text()
    assert "without the host's valid signature" in v.reason, v.reason
