"""The dealer-blind deal (issue 16), in one process: its cryptography, whole hands, the host
that records everything and still sees no one's cards, and every kind of cheating participant
caught with the right blame.

Each cheat is a :class:`Holder` subclass doing what a modified client (or host, as
``@dealer``) would; the honest participants' own checks must name it.
"""

from __future__ import annotations

import collections

import nacl.bindings as sodium
import pytest

from lanswitch.fairdeal.blind import crypto as blind
from lanswitch.fairdeal.blind.hand import BlindFault, Follower, MoveRecord, move_message
from lanswitch.fairdeal.blind.holder import Holder
from lanswitch.fairdeal.blind.local import Withheld, play_blind_hand
from lanswitch.fairdeal.primitives import DEALER, UsageError, sign
from lanswitch.game import DRAW, HIDDEN_BASE, MAX_CARD, Game
from tests import fairplay
from tests.blindtable import blind_table

CTX0 = bytes(range(32))
CTX = bytes(range(32, 64))


# ---------------------------------------------------------------------------------------------
# The cryptography


def test_locks_commute_and_a_position_opens_to_its_card() -> None:
    points = blind.CardPoints(CTX0, range(52))
    order = ("a", "b", DEALER)
    seeds = {p: bytes([i + 1]) * 32 for i, p in enumerate(order)}
    keys = {p: blind.BlindKeys.derive(CTX, p, seeds[p], 52) for p in order}
    cur = points.deck(range(52))
    for p in order:
        cur = blind.lock_pass(cur, keys[p])
    for p in order:
        cur = blind.key_pass(cur, keys[p])
    dealt = blind.dealt_order(CTX, range(52), order, seeds)
    assert sorted(dealt) == list(range(52))
    assert dealt != list(range(52))
    for j in (0, 17, 51):
        # In any order of the keys: the layers commute.
        for ks in (
            [keys[p].positions[j] for p in order],
            [keys[p].positions[j] for p in order[::-1]],
        ):
            assert points.card(blind.open_position(cur[j], ks)) == dealt[j]
        # One key short opens nothing.
        short = blind.open_position(cur[j], [keys[p].positions[j] for p in order[:2]])
        assert points.card(short) is None


def test_a_pass_that_copies_or_swaps_a_card_is_caught() -> None:
    points = blind.CardPoints(CTX0, range(20))
    order = ("a", DEALER)
    seeds = {"a": b"\x01" * 32, DEALER: b"\x02" * 32}
    passes: dict[tuple[str, int], list[bytes]] = {}
    cur = points.deck(range(20))
    for number in (1, 2):
        for p in order:
            keys = blind.BlindKeys.derive(CTX, p, seeds[p], 20)
            cur = blind.lock_pass(cur, keys) if number == 1 else blind.key_pass(cur, keys)
            passes[(p, number)] = cur
    deck = points.deck(range(20))
    assert blind.check_passes(CTX, deck, order, passes, seeds) is None
    # A copied point: seen by anyone, live.
    copied = list(passes[("a", 1)])
    copied[5] = copied[6]
    assert blind.check_points(copied, 20) == "position 6 repeats a point given before it"
    # A card swapped for another (its point locked: distinct, valid): only the seed shows it.
    swapped = list(passes[("a", 1)])
    swapped[5] = sodium.crypto_scalarmult_ed25519_noclamp(
        blind.BlindKeys.derive(CTX, "a", seeds["a"], 20).lock, blind.card_point(CTX0, 40)
    )
    assert blind.check_points(swapped, 20) is None
    fault = blind.check_passes(CTX, deck, order, {**passes, ("a", 1): swapped}, seeds)
    assert fault == blind.PassFault("a", 1, "position 5 is not what its seed makes of its input")
    # A point of small order is no point of the group.
    small = bytes([1]) + bytes(31)  # the identity
    assert "prime-order" in (blind.check_points([small, *swapped[1:]], 20) or "")
    assert blind.find_invalid([*swapped[:3], small]) == (3, "the identity")


def test_a_sealed_key_opens_only_for_its_drawer_and_position() -> None:
    t = blind_table(2, 1)
    a, b = t.private["p0"], t.private["p1"]
    ka, kb, kd = (t.setup.keys[p] for p in ("p0", "p1", DEALER))
    key = blind.BlindKeys.derive(CTX, "p0", b"\x07" * 32, 10).positions[3]
    sig = sign(a, blind.release_message(CTX, "p0", "p1", 3, key))
    sealed = blind.seal_release(a, kb, CTX, "p0", "p1", 3, key, sig)
    assert blind.unseal_release(b, ka, CTX, "p0", "p1", 3, sealed) == (key, sig)
    assert blind.unseal_release(b, ka, CTX, "p0", "p1", 4, sealed) is None  # another position
    assert blind.unseal_release(t.private[DEALER], ka, CTX, "p0", DEALER, 3, sealed) is None
    assert blind.unseal_release(b, kd, CTX, DEALER, "p1", 3, sealed) is None  # another sender
    flipped = bytes([sealed[0] ^ 1]) + sealed[1:]
    assert blind.unseal_release(b, ka, CTX, "p0", "p1", 3, flipped) is None


def test_bad_inputs_are_refused_with_a_usage_error() -> None:
    with pytest.raises(UsageError):
        blind.card_point(CTX0, MAX_CARD)
    with pytest.raises(UsageError):
        blind.BlindKeys.derive(CTX, "not an id!", b"\x00" * 32, 5)
    with pytest.raises(UsageError):
        blind.open_position(blind.card_point(CTX0, 1), [bytes(32)])  # zero is no key
    with pytest.raises(UsageError):
        blind.lock_pass(
            [blind.card_point(CTX0, 1)], blind.BlindKeys.derive(CTX, "a", b"\x00" * 32, 2)
        )


# ---------------------------------------------------------------------------------------------
# Whole hands


@pytest.mark.parametrize(
    ("people", "bots", "rules"),
    [
        (2, 0, "switch"),
        (3, 1, "switch"),
        (1, 3, "irish"),
        (4, 0, "j28"),
        (3, 3, "two-four-jack"),
        (2, 6, "blackjack"),
    ],
)
def test_a_blind_hand_plays_to_its_end_and_everyone_finds_it_fair(
    people: int, bots: int, rules: str
) -> None:
    t = blind_table(people, bots, rules, seed=people * 10 + bots)
    hand = t.play()
    assert hand.live is None
    assert not hand.withheld
    results = {o.result for o in hand.outcomes.values()}
    assert [o.status for o in hand.outcomes.values()] == ["fair"] * (people + 1)
    assert len(results) == 1  # every participant found the same result
    host_game = hand.holders[DEALER].follower.game
    assert host_game.over
    (result,) = results
    assert result is not None
    assert result.placings[0] == host_game.result.placings[0]  # type: ignore[union-attr]


def test_the_recording_host_sees_only_its_bots_cards() -> None:
    """Everything the host holds or relays during a blind hand of three people and one bot
    (its follower's record, its own seeds and keys, every key released to it, every sealed key
    it relays, which it tries to open) gives no card a person held that was not laid; the
    same recording of a commit-reveal host holds every hand."""
    t = blind_table(3, 1, seed=5)
    relayed: list[tuple[str, str, int, bytes]] = []
    hand = t.play(relay=lambda s, to, h, sealed: relayed.append((s, to, h, sealed)))
    assert hand.outcomes["p0"].status == "fair"
    host = hand.holders[DEALER]
    f = host.follower
    setup = t.setup
    # Every key the host has per (shuffle, position), from everything it saw.
    known: dict[tuple[int, int], dict[str, bytes]] = collections.defaultdict(dict)
    for rec in f.shuffles:
        mine = host.keys(rec)
        for j in range(rec.n):
            known[(rec.index, j)][DEALER] = mine.positions[j]
    for o in f.openings:
        for s in o.shares:
            known[(o.shuffle, o.position)][s.sender] = s.key
    for (k, j), shares in host.received.items():
        for s in shares.values():
            known[(k, j)][s.sender] = s.key
    opened_by_host = 0
    for sender, to, hidden, sealed in relayed:
        k, j = f.positions.locate(hidden)
        rec = f.shuffles[k]
        for as_to in {to, DEALER}:
            opened = blind.unseal_release(
                t.private[DEALER], setup.keys[sender], rec.ctx, sender, as_to, j, sealed
            )
            if opened is not None:
                assert to == DEALER  # only what was sealed to the host opens for it
                known[(k, j)][sender] = opened[0]
                opened_by_host += 1
    assert opened_by_host > 0  # its bot's draws
    derivable: dict[tuple[int, int], int] = {}
    for (k, j), keys in known.items():
        rec = f.shuffles[k]
        if set(keys) == set(rec.order):
            card = f.points.card(blind.open_position(rec.deck()[j], keys.values()))
            assert card is not None
            derivable[(k, j)] = card
    # The truth, from the seeds revealed after the hand.
    truth = {}
    for rec in f.shuffles:
        seeds = {p: hand.holders[p].seeds[rec.index] for p in rec.order}
        for j, c in enumerate(blind.dealt_order(rec.ctx, rec.cards, rec.order, seeds)):
            truth[(rec.index, j)] = c
    # Who drew each position: public, from the steps the host followed.
    drawn_by = {f.positions.locate(h): seat for h, seat in f.drawn.items()}
    laid = {(o.shuffle, o.position) for o in f.openings}
    people_positions = [pos for pos, seat in drawn_by.items() if seat in setup.people]
    bot_positions = [pos for pos, seat in drawn_by.items() if seat not in setup.people]
    assert people_positions
    for pos in people_positions:
        if pos not in laid:
            assert pos not in derivable, f"the host could read position {pos}"
    for pos in bot_positions:
        assert derivable.get(pos) == truth[pos]  # its own bot's cards: it sees them
    for pos, card in derivable.items():
        assert truth[pos] == card
    # The same question of a commit-reveal host: its record (its engine's log) holds the
    # whole deck's order, so every card each person was dealt.
    fair = fairplay.play("switch", 4, seed=5, bots=[3])
    game = fair.dealer.game
    order = next(e for _s, e in game.log if isinstance(e, tuple))
    dealt = Game(game.rules, 4, dealer=game.dealer).apply_chance(order)
    person_cards = [c for k, s, c in dealt if k == "deal" and s < 3]
    assert len(person_cards) == 3 * game.hand_size


# ---------------------------------------------------------------------------------------------
# Cheating participants


class DuplicatingPass(Holder):
    """Its lock pass copies one locked card over another: two of a card, one card gone."""

    def make_pass(self, number: int) -> tuple[tuple[bytes, ...], bytes]:
        out, _sig = super().make_pass(number)
        if number != 1 or len(self.follower.shuffles) > 1:
            return out, _sig
        bad = (out[1], *out[1:])
        rec = self.follower.shuffles[-1]
        return bad, sign(self._sk, blind.pass_message(rec.ctx, self.pid, number, bad))


class InvalidPointPass(Holder):
    """Puts a point of small order (the identity) into its pass ``bad_pass``."""

    bad_pass = 1

    def make_pass(self, number: int) -> tuple[tuple[bytes, ...], bytes]:
        out, sig = super().make_pass(number)
        if number != self.bad_pass:
            return out, sig
        bad = (bytes([1]) + bytes(31), *out[1:])
        rec = self.follower.shuffles[-1]
        return bad, sign(self._sk, blind.pass_message(rec.ctx, self.pid, number, bad))


class LastPassInvalid(InvalidPointPass):
    bad_pass = 2


class DroppingPass(Holder):
    """Its lock pass (the first: it knows where each plain card went) drops a card and puts in
    a card of a second deck, locked with its own key: every point still valid and distinct,
    so nothing shows until that position is opened or the seeds are revealed."""

    def make_pass(self, number: int) -> tuple[tuple[bytes, ...], bytes]:
        out, sig = super().make_pass(number)
        rec = self.follower.shuffles[-1]
        if number != 1 or rec.index > 0 or self.pid != self.setup.participants[0]:
            return out, sig
        keys = self.keys(rec)
        stranger = sodium.crypto_scalarmult_ed25519_noclamp(
            keys.lock, blind.card_point(self.setup.ctx0, 52)
        )
        t = keys.perm.index(1)  # where the plain card 1 went
        bad = (*out[:t], stranger, *out[t + 1 :])
        return bad, sign(self._sk, blind.pass_message(rec.ctx, self.pid, number, bad))


class DroppingAnyPass(Holder):
    """Its lock pass of the deal drops the first locked card for a card of another deck,
    locked with its own key: every point valid and distinct, so only its seed can show it.
    Unlike :class:`DroppingPass`, any participant may use it, and where the stranger lands is
    left to the shuffle: in a hand, or turned up in the deal (where it stops the hand)."""

    def make_pass(self, number: int) -> tuple[tuple[bytes, ...], bytes]:
        out, sig = super().make_pass(number)
        rec = self.follower.shuffles[-1]
        if number != 1 or rec.index > 0:
            return out, sig
        stranger = sodium.crypto_scalarmult_ed25519_noclamp(
            self.keys(rec).lock, blind.card_point(self.setup.ctx0, 52)
        )
        bad = (stranger, *out[1:])
        return bad, sign(self._sk, blind.pass_message(rec.ctx, self.pid, number, bad))


class WrongRelease(Holder):
    """Releases a wrong key (signed) to the first person who draws."""

    armed = True

    def signature(self, message: bytes) -> bytes:
        return sign(self._sk, message)

    def seal(self, shuffle: int, position: int, to: str) -> bytes:
        if not self.armed or to == DEALER:
            return super().seal(shuffle, position, to)
        type(self).armed = False
        rec = self.follower.shuffles[shuffle]
        wrong = blind._scalar("wrong", bytes([position]))
        message = blind.release_message(rec.ctx, self.pid, to, position, wrong)
        return blind.seal_release(
            self._sk,
            self.setup.keys[to],
            rec.ctx,
            self.pid,
            to,
            position,
            wrong,
            self.signature(message),
        )


class WrongUnsigned(WrongRelease):
    """Seals a wrong key to the first person who draws, with a signature that is not one."""

    armed = True

    def signature(self, message: bytes) -> bytes:
        return bytes(64)


class LaysAnother(Holder):
    """Lays a card it never held: the ace of spades, naming one of its hidden cards — the
    keys it shows open another card."""

    def move(self, seq: int, seat: int, move: int) -> MoveRecord:
        rec = super().move(seq, seat, move)
        if rec.opening is None:
            return rec
        fake = next(c for c in range(52) if c != move and c not in self.follower.game.discard)
        message = move_message(self.setup.ctx0, seq, seat, self.pid, fake, rec.hidden)
        return MoveRecord(
            seq, seat, self.pid, fake, rec.hidden, sign(self._sk, message), rec.opening
        )


class SelfTrusting(Follower):
    """A cheater's own follower: it hides its own cards again for its own moves, so its
    engine takes what the host's does (a modified client does not check itself)."""

    cards: dict[int, int]
    seat = -1

    def on_move(self, record: MoveRecord) -> list[tuple[str, int, int]]:
        if record.seat != self.seat:
            return super().on_move(record)
        hands = self.game.hands
        mine = {h: c for h, c in self.cards.items() if (hands[self.seat] >> c) & 1}
        for h, c in mine.items():
            hands[self.seat] ^= (1 << c) | (1 << h)
        self.game._legal = None
        events = super().on_move(record)
        for h, c in mine.items():
            if (hands[self.seat] >> h) & 1:
                self.game.reveal(h, c)
        return events


class FalseCannotLay(Holder):
    """Draws, once, with a card it could lay ("I cannot lay anything")."""

    done = False

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        follower = SelfTrusting(self.setup, self.follower.points)
        follower.cards = self.cards
        follower.seat = self.setup.seats.index(self.pid)
        self.follower = follower

    def move(self, seq: int, seat: int, move: int) -> MoveRecord:
        g = self.follower.game
        legal = g.legal_moves()
        if not type(self).done and move < MAX_CARD and DRAW not in legal and g.stock:
            type(self).done = True
            move = DRAW
        return super().move(seq, seat, move)


class WithholdsKey(Holder):
    """Goes silent when a key of its is owed to a drawer."""

    def seal(self, shuffle: int, position: int, to: str) -> bytes:
        raise Withheld(self.pid)


def _reset(*classes: type[Holder]) -> None:
    for c in classes:
        for name in ("armed", "done"):
            if name in c.__dict__:
                setattr(c, name, name == "armed")


@pytest.mark.parametrize("who", ["p1", DEALER])
def test_a_pass_that_copies_a_card_is_caught_live_and_blamed(who: str) -> None:
    hand = blind_table(3, 1, seed=2).play({who: DuplicatingPass})
    assert hand.live is not None
    assert hand.live.fault is BlindFault.BAD_PASS
    assert hand.live.culprit == who
    for pid in ("p0", "p2"):
        o = hand.outcome(pid)
        assert (o.status, o.culprit, o.fault) == ("unfair", who, BlindFault.BAD_PASS)


@pytest.mark.parametrize(
    ("who", "cheat"), [("p1", InvalidPointPass), (DEALER, LastPassInvalid), ("p0", LastPassInvalid)]
)
def test_a_pass_with_a_point_outside_the_group_is_caught_live_and_blamed(
    who: str, cheat: type[Holder]
) -> None:
    """Caught by everyone as the pass comes (blind.point_problem), blamed on its author."""
    hand = blind_table(3, 1, seed=2).play({who: cheat})
    assert hand.live is not None
    assert (hand.live.fault, hand.live.culprit) == (BlindFault.BAD_PASS, who)
    assert "prime-order group" in hand.live.detail
    for pid in {"p0", "p2", DEALER} - {who}:
        assert (hand.outcome(pid).status, hand.outcome(pid).culprit) == ("unfair", who)


def test_a_pass_that_drops_a_card_is_caught_by_its_seed_after_the_hand() -> None:
    t = blind_table(3, 1, seed=3)
    hand = t.play({"p0": DroppingPass})
    for pid in ("p1", "p2", DEALER):
        o = hand.outcome(pid)
        assert (o.status, o.culprit, o.fault) == ("unfair", "p0", BlindFault.BAD_PASS), o


def test_a_wrong_key_released_to_a_drawer_is_blamed_on_its_sender() -> None:
    _reset(WrongRelease)
    hand = blind_table(3, 1, seed=4).play({DEALER: WrongRelease})
    assert hand.live is not None
    assert hand.live.fault is BlindFault.BAD_KEY
    victims = [p for p in ("p0", "p1", "p2") if hand.holders[p].received]
    assert any(
        (hand.outcome(p).status, hand.outcome(p).culprit) == ("unfair", DEALER) for p in victims
    )
    for p in ("p0", "p1", "p2"):
        assert hand.outcome(p).status != "fair"


def test_a_wrong_key_without_its_signature_is_caught_when_the_card_does_not_open() -> None:
    """Signatures inside sealed keys are checked only when the card does not open (the seal
    already shows the sender to the drawer); then the unsigned one names its sender, on the
    drawer's word."""
    _reset(WrongUnsigned)
    hand = blind_table(3, 1, seed=4).play({"p1": WrongUnsigned})
    assert hand.live is not None
    assert (hand.live.fault, hand.live.culprit, hand.live.proven) == (
        BlindFault.BAD_SIGNATURE,
        "p1",
        False,
    )


def test_a_laid_card_that_was_never_the_players_is_caught_live() -> None:
    hand = blind_table(3, 1, seed=6).play({"p1": LaysAnother})
    assert hand.live is not None
    assert hand.live.culprit == "p1"
    assert hand.live.fault in (BlindFault.WRONG_CARD, BlindFault.NOT_ITS_CARD)
    for pid in ("p0", "p2", DEALER):
        assert (hand.outcome(pid).status, hand.outcome(pid).culprit) == ("unfair", "p1")


def test_a_false_cannot_lay_is_caught_after_the_hand_by_its_own_signed_move() -> None:
    # The host's engine cannot see the hand, so it takes the draw; the replay cannot be fooled.
    for seed in range(7, 20):
        _reset(FalseCannotLay)
        hand = blind_table(3, 1, seed=seed).play({"p2": FalseCannotLay})
        if not FalseCannotLay.done:
            continue
        assert hand.live is None
        for pid in ("p0", "p1", DEALER):
            o = hand.outcome(pid)
            assert (o.status, o.culprit, o.fault) == ("unfair", "p2", BlindFault.ILLEGAL_MOVE), o
        return
    pytest.fail("no seed gave the cheat a card it could lay")


def test_a_participant_that_withholds_a_key_voids_the_hand_and_is_blamed() -> None:
    hand = blind_table(3, 1, seed=8).play({"p1": WithholdsKey})
    assert hand.withheld == "p1"
    for pid in ("p0", "p2", DEALER):
        o = hand.outcome(pid)
        assert (o.status, o.culprit, o.fault) == ("void", "p1", BlindFault.WITHHELD)


def test_the_host_cannot_ask_for_a_key_to_a_position_the_drawer_does_not_hold() -> None:
    """A host asking a player to release its key of another player's position (to read that
    card itself) is refused: the player checks on its own follower who drew what."""
    t = blind_table(2, 1, seed=9)
    holders = t.holders()
    play_blind_hand(t.setup, holders, t.chooser(), check=False)
    p0 = holders["p0"]
    g = p0.follower.game
    theirs = [c for c in range(HIDDEN_BASE, HIDDEN_BASE + 200) if (g.hands[1] >> c) & 1]
    if theirs:
        with pytest.raises(UsageError, match="holds no hidden card"):
            p0.release_to(2, theirs[0])  # to the bot's seat, i.e. to the host
    with pytest.raises(UsageError):
        p0.release_to(2, HIDDEN_BASE + 9999)


def test_the_locked_deck_is_checked_against_the_seeds_in_one_multiplication_per_position() -> None:
    """After the hand the locked deck is compared with what the seeds make; only a deck that
    differs has every pass recomputed (to find whose pass it was)."""
    t = blind_table(2, 1, seed=12)
    hand = t.play()
    f = hand.holders["p0"].follower
    rec = f.shuffles[0]
    seeds = {p: hand.holders[p].seeds[0] for p in rec.order}
    assert blind.deck_matches(rec.ctx, f.points, rec.cards, rec.order, seeds, rec.deck())
    swapped = [rec.deck()[1], rec.deck()[0], *rec.deck()[2:]]
    assert not blind.deck_matches(rec.ctx, f.points, rec.cards, rec.order, seeds, swapped)
    other = {**seeds, "p1": bytes(32)}
    assert not blind.deck_matches(rec.ctx, f.points, rec.cards, rec.order, other, rec.deck())
