"""The rules engine on a dealer-blind deck (``lanswitch.fairdeal.blind.positions``).

The property that lets a blind host run a hand on public information only: for every preset,
a hand played with every card known (``blind=True``, as a player's own engine and the check
after the hand run it) and the same moves given to an engine that knows only the cards laid
or turned up — revealed just before they are laid, as the host does — agree on every public
event, every turn and every legal move a hidden card cannot change.
"""

from __future__ import annotations

import random

import pytest

from lanswitch.fairdeal.blind.positions import Positions, apply_blind_chance, drawn_positions
from lanswitch.game import DRAW, HIDDEN_BASE, MAX_CARD, PASS, Game, IllegalMove
from lanswitch.rules import PRESETS, preset

PRESET_NAMES = sorted(PRESETS)


def _public(events: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Events with every drawn or dealt card blanked: what the host may see of them."""
    return [(k, s, -1 if k in ("deal", "draw") else c) for k, s, c in events]


def _pick(legal: list[int], rng: random.Random) -> int:
    cards = [m for m in legal if m < HIDDEN_BASE and m not in (DRAW, PASS)]
    if cards and rng.random() < 0.8:
        return rng.choice(cards)
    return rng.choice(legal)


def play_mirrored(name: str, players: int, seed: int, *, blind: bool = True) -> tuple[Game, Game]:
    """One hand: ``exact`` knows every card, ``host`` only the public ones. Returns both."""
    rules = preset(name)
    rng = random.Random(seed)
    exact = Game(rules, players, dealer=seed % players, blind=blind)
    host = Game(rules, players, dealer=seed % players, blind=True)
    positions = Positions()
    for _ in range(rules.play.safety_limit * 2 + 200):
        if exact.over:
            break
        req = exact.chance_request()
        if req is not None:
            _kind, cards = req
            order = list(cards)
            rng.shuffle(order)
            base = positions.add(len(order))
            ev_exact = exact.apply_chance(order)
            ev_host = apply_blind_chance(host, base, len(order), order.__getitem__)
            assert _public(ev_exact) == _public(ev_host)
            # Every hidden card went where its real card went.
            for (seat, hidden), (_k, seat2, _c) in zip(
                drawn_positions(ev_host),
                [e for e in ev_exact if e[0] in ("deal", "draw")],
                strict=True,
            ):
                assert seat == seat2
                assert hidden >= HIDDEN_BASE
            continue
        seat = exact.to_act()
        assert host.to_act() == seat
        legal = exact.legal_moves()
        move = _pick(legal, rng)
        if move < MAX_CARD:
            # The card is opened as it is laid: the host learns which hidden card it was.
            laid = _hidden_of(host, exact, seat, move, positions)
            if laid is not None:
                assert host.reveal(laid, move) == seat
        ev_exact = exact.apply(seat, move)
        ev_host = host.apply(seat, move)  # the host accepts what the exact engine did
        assert _public(ev_exact) == _public(ev_host), (name, seed, move)
        assert host.counts == exact.counts
        assert host.turn == exact.turn
        assert host.phase == exact.phase
        assert host.cards_conserved()
        assert exact.cards_conserved()
    assert exact.over
    assert host.over
    return exact, host


def _hidden_of(host: Game, exact: Game, seat: int, card: int, positions: Positions) -> int | None:
    """The hidden card of ``host`` that is ``card``: found through the shared history (the
    exact engine's log of chance orders gives each card's position)."""
    base_index = 0
    for entry in exact.log:
        _s, e = entry
        if isinstance(e, tuple):
            if card in e and base_index < len(positions.bases):
                candidate = positions.bases[base_index] + e.index(card)
                if (host.hands[seat] >> candidate) & 1:
                    return candidate
            base_index += 1
    return None


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_host_that_sees_no_card_follows_every_hand(name: str) -> None:
    for seed in range(12):
        play_mirrored(name, 2 + seed % 5, seed)


def test_without_the_blind_form_the_host_loses_the_thread() -> None:
    """The test can fail: with the ordinary engine as the players' (a turn ended because only
    PASS was left, decided on a card the host cannot see), some hand diverges."""
    failures = 0
    for seed in range(30):
        try:
            play_mirrored("switch", 4, seed, blind=False)
        except (AssertionError, IllegalMove):
            failures += 1
    assert failures > 0


def test_reveal_refuses_what_is_not_there() -> None:
    g = Game(preset("switch"), 3, blind=True)
    order = [HIDDEN_BASE + j for j in range(52)]
    g.apply_chance(order, hidden=True)
    hidden_in_hand = next(c for c in range(HIDDEN_BASE, HIDDEN_BASE + 52) if g.hands[1] >> c & 1)
    with pytest.raises(ValueError, match="no hidden card"):
        g.reveal(HIDDEN_BASE + 500, 3)
    with pytest.raises(ValueError, match="cannot reveal"):
        g.reveal(hidden_in_hand, 200)  # not a card
    assert g.reveal(hidden_in_hand, 7) == 1
    other = next(c for c in range(HIDDEN_BASE, HIDDEN_BASE + 52) if g.hands[2] >> c & 1)
    with pytest.raises(ValueError, match="already in a hand"):
        g.reveal(other, 7)
    assert g.cards_conserved()


def test_a_hidden_order_must_be_the_awaited_cards_or_hidden_ones() -> None:
    g = Game(preset("switch"), 2, blind=True)
    with pytest.raises(ValueError, match="or a hidden one, once"):
        g.apply_chance([HIDDEN_BASE] * 52, hidden=True)
    with pytest.raises(ValueError, match="or a hidden one, once"):
        g.apply_chance([HIDDEN_BASE + j for j in range(51)] + [107], hidden=True)
    with pytest.raises(ValueError, match="permutation"):
        g.apply_chance([HIDDEN_BASE + j for j in range(52)])  # hidden cards need hidden=True
