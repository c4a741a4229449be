"""Helpers for tests of whole fair hands in one process: a hand played with fixed seeds and
keys (:func:`play`), a dishonest host's edits signed as the parties would (:func:`resign`),
the SPEC's stock model written from the spec alone (:func:`stock_model`), and hooks that make a
seat send a bad seed or none. Shared by ``test_transcript.py``, ``test_tamper.py`` and
``test_cli.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable, Iterable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch.bots import HeuristicBot
from lanswitch.cards import deck_cards
from lanswitch.fairdeal import (
    DEALER,
    Dealer,
    Draw,
    FairHand,
    LogEvent,
    Move,
    Shuffle,
    SignedHead,
    Transcript,
    TurnUp,
    play_fair_hand,
    public_keys_of,
)
from lanswitch.fairdeal import keystream as ks
from lanswitch.fairdeal import primitives as pr
from lanswitch.fairdeal.log import log_start, log_step
from lanswitch.game import Game
from lanswitch.rules import PRESETS, RuleSet

GAME = bytes(range(16))


def ids_for(players: int) -> list[str]:
    return [f"seat-{i + 1}" for i in range(players)]


def key_of(pid: str) -> Ed25519PrivateKey:
    """Every participant's signing key, fixed per id (so a test can sign as anyone)."""
    return pr.private_key(hashlib.sha256(b"test key " + pid.encode()).digest())


def keys_for(ids: Iterable[str]) -> dict[str, Ed25519PrivateKey]:
    return {p: key_of(p) for p in [*ids, DEALER]}


def random_mover(seed: int) -> Callable[[Game], int]:
    rng = random.Random(seed)

    def choose(game: Game) -> int:
        legal = game.legal_moves()
        return legal[int(rng.random() * len(legal))]

    return choose


def heuristic_mover(rules: RuleSet, seed: int) -> Callable[[Game], int]:
    rng = random.Random(seed)
    bot = HeuristicBot(rules)
    return lambda game: bot.choose(game.view(game.turn), rng)


def play(
    preset: str = "switch",
    players: int = 4,
    seed: int = 0,
    *,
    dealer_cls: type[Dealer] = Dealer,
    game: Game | None = None,
    rules: RuleSet | None = None,
    game_id: bytes = GAME,
    hand_no: int = 1,
    reveal: Any = None,
    mover: Any = None,
    bots: Iterable[int] = (),
    turn_timer_ms: int = 0,
    names: Iterable[str] = (),
) -> FairHand:
    """One hand dealt by the fair deal, every seat in this process; seeds fixed by the args.
    Every seat is a person's (with a key and a transcript) except the seats in ``bots``;
    ``names``: the seats' display names (the setup note binds them), or none."""
    rules = rules or PRESETS[preset]
    if game is None:
        game = Game(rules, players, dealer=seed % players, hand_no=hand_no)
    ids = ids_for(game.players)
    host_run = set(bots)
    keys = {p: k for p, k in keys_for(ids).items() if p not in {ids[s] for s in host_run}}
    dealer = dealer_cls(
        game,
        game_id=game_id,
        seats=ids,
        key=keys[DEALER],
        keys=public_keys_of(keys),
        turn_timer_ms=turn_timer_ms,
        names=tuple(names),
    )

    def seeds(pid: str, round_no: int) -> bytes:
        tag = f"{game_id.hex()}/{game.hand_no}/{seed}/{pid}/{round_no}"
        return hashlib.sha256(tag.encode()).digest()

    if mover is None:
        mover = random_mover(seed) if seed % 2 else heuristic_mover(game.rules, seed)
    people = {p: k for p, k in keys.items() if p != DEALER}
    return play_fair_hand(dealer, mover, seeds=seeds, keys=people, reveal=reveal)


def heads_of(t: Transcript) -> list[bytes]:
    out = [log_start(t.setup.ctx0)]
    for ev in t.log:
        out.append(log_step(out[-1], ev))
    return out


def resign(t: Transcript, signers: Iterable[str]) -> Transcript:
    """``t`` with the log heads of ``signers`` signed over ``t``'s own log, as if each of them
    had received exactly this log (the host signs whatever it shows; each seat signs what it
    was shown)."""
    ctx0, count = t.setup.ctx0, len(t.log)
    head = heads_of(t)[-1]
    heads = dict(t.log_heads)
    for p in signers:
        sig = pr.sign(key_of(p), pr.log_head_message(ctx0, p, count, head))
        heads[p] = SignedHead(count, head, sig)
    return dataclasses.replace(t, log_heads=heads)


def everyone_sees(t: Transcript, log: Iterable[LogEvent]) -> Transcript:
    """``t`` if the host had sent every seat ``log``: every person and the host sign that
    log's head (the moves in it keep whatever signatures they carry)."""
    t = dataclasses.replace(t, log=tuple(log))
    return resign(t, [*(t.setup.seats[s] for s in t.setup.humans), DEALER])


def stock_model(t: Transcript) -> list[int]:
    """protocol/SPEC.md, "The stock model", written from the spec alone (no engine): replay the
    log's card events against the orders the revealed seeds give; every event must be
    possible. Returns the cards the model deals this seat, in order."""
    rounds = {r.round: r for r in t.rounds}
    ctx0, setup = t.setup.ctx0, t.setup
    stock: list[int] = []
    pile: list[int] = []
    hands: dict[int, list[int]] = {s: [] for s in range(setup.players)}
    mine: list[int] = []
    dealt = False
    heads = heads_of(t)
    assert t.log[0] == setup.note
    for k, ev in enumerate(t.log):
        if isinstance(ev, Draw):
            assert ev.seat < setup.players
            assert ev.n <= len(stock)
            hands[ev.seat] += stock[: ev.n]
            if ev.seat == t.seat:
                mine += stock[: ev.n]
            del stock[: ev.n]
        elif isinstance(ev, TurnUp):
            assert stock
            assert stock[0] == ev.card
            pile.append(stock.pop(0))
        elif isinstance(ev, Move) and ev.move < 108:
            assert ev.move in hands[ev.seat]
            hands[ev.seat].remove(ev.move)
            pile.append(ev.move)
        elif isinstance(ev, Shuffle):
            assert not stock
            cards = pile[:-1] if dealt else deck_cards(setup.decks, setup.jokers)
            assert len(cards) == ev.n
            ctx = pr.round_context(ctx0, ev.round, k, heads[k], ev.mask, cards)
            seeds = {p: s for p, (s, _) in rounds[ev.round].seeds.items()}
            assert set(seeds) == set(pr.participants_of(setup.seats, ev.mask))
            stock = ks.derive_order(ctx, seeds, cards)
            pile = pile[-1:] if dealt else []
            dealt = True
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
