"""Fair-deal speed (protocol v2): one commit-reveal round, a move signed and checked, verifying
a whole hand, and their parts.

Targets: one round for 8 people + host with 104 cards within 1 ms (the host's work: take 9
signed commitments and 9 signed seeds, check each opens, derive the key, shuffle — issue #3),
and verifying a whole 4-player hand kept by one of four people within 50 ms (issue #13: v2
checks a signature on every move). Every case is timed ``--runs`` times after a warm-up; the
table gives the median, the 99th percentile and the minimum, in microseconds.

Each case is a name and a zero-argument callable in :func:`cases`, built from inputs prepared
outside the timing (seeds and signatures are made on each player's own machine).

A move in v2 costs its player one Ed25519 signature (``move: sign``) and the host and every
other client one verification (``move: check``, :func:`lanswitch.fairdeal.checks.check_move`).
Verifying a hand is :func:`lanswitch.fairdeal.verify` on one seat's transcript: the host's
signed head and cards, every announcement (the host's signature, every commitment's) where it
was made, every round re-opened (a reveal signature per participant) and re-derived, every
move's signature over the log, every other person's head, and the whole hand replayed through
the engine. The hands are played by heuristic bots through the real fair deal, every seat a
person's; "typical" is the hand with the median number of log events among 15, and the longest
of the 15 is timed too. Each is timed cold, as ``lanswitch verify`` runs it; and once with every
signature already checked (a client checks each move as it arrives, and its verdict at the
hand's end finds them known good: :data:`lanswitch.fairdeal.primitives.VERIFIED`).
``--verify-only`` skips the other cases.

``--blind`` times the dealer-blind deal instead (issue #16, ``lanswitch.fairdeal.blind``),
in one process, beside the commit-reveal deal measured in the same run: a whole blind shuffle
(both passes of every participant: 2, 4 and 8 seats of people, plus the host), one
participant's share of it (what each laptop computes), one draw (every other participant's key
sealed to the drawer, unsealed, checked, opened), a reshuffle of 30 cards, and a whole hand of
four people played by heuristic bots, blind and commit-reveal (every participant's work in this
one process, so the blind figure is the sum of what four laptops and the host would do apart).

Usage: ``python benchmarks/fairness.py [--runs N] [--json] [--verify-only | --blind]``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import random

import lanswitch
from lanswitch import fairdeal as fd
from lanswitch.bots import HeuristicBot
from lanswitch.cards import deck_cards
from lanswitch.fairdeal import primitives as pr
from lanswitch.fairdeal.blindhand import Holder
from lanswitch.fairdeal.checks import Presence, check_move
from lanswitch.game import Game
from lanswitch.rules import PRESETS

Case = Callable[[], object]
T = TypeVar("T")

TARGETS_US = {
    "round: 8 people + host, 104 cards": 1000.0,
    "verify hand: switch, 4 people, 52 cards, typical": 50_000.0,
}


def _key(name: str) -> pr.PrivateKeyLike:
    return pr.private_key(hashlib.sha256(b"key " + name.encode()).digest())


def _setup(people: int) -> tuple[list[str], fd.HandSetup]:
    ids = [f"player{i}" for i in range(people)]
    keys = {p: pr.public_bytes(_key(p)) for p in [*ids, fd.DEALER]}
    return ids, fd.HandSetup.create(bytes(16), 1, PRESETS["switch"], ids, keys)


def round_case(people: int, cards: list[int]) -> Case:
    """The host's side of one round, from the first commitment to the derived order."""
    ids, setup = _setup(people)
    mask = pr.mask_of(range(people))
    ctx = pr.round_context(setup.ctx0, 0, 1, bytes(32), mask, cards)
    ps = pr.participants_of(ids, mask)
    seeds = {p: hashlib.sha256(p.encode()).digest() for p in ps}
    commits = {p: pr.commitment(ctx, p, s) for p, s in seeds.items()}
    csig = {p: pr.sign(_key(p), pr.commitment_message(ctx, p, commits[p])) for p in ps}
    rsig = {p: pr.sign(_key(p), pr.reveal_message(ctx, p, commits[p], seeds[p])) for p in ps}
    order = [fd.DEALER, *ids]  # the host commits first

    def run() -> list[int]:
        pr.VERIFIED.clear()
        rnd = fd.Round(ctx, ps, setup.keys)
        for p in order:
            rnd.commit(p, commits[p], csig[p])
        for p in ps:
            rnd.reveal(p, seeds[p], rsig[p])
        return rnd.order(cards)

    return run


def move_cases() -> dict[str, Case]:
    """A move signed by its player, and checked by the host and every other client."""
    _, setup = _setup(4)
    log = fd.Log(setup.ctx0, [setup.note])
    key = _key("player1")
    msg = pr.move_message(setup.ctx0, log.count, log.head, 1, fd.BY_SEAT, 17)
    move = fd.Move(1, fd.BY_SEAT, 17, pr.sign(key, msg))
    presence = Presence(setup)
    assert check_move(setup, presence, log.count, log.head, move) is None
    return {
        "move: sign (its player)": lambda: pr.sign(key, msg),
        "move: check (the host, each client)": lambda: _cold(
            lambda m: check_move(setup, presence, log.count, log.head, m), move
        ),
    }


def log_case(events: int) -> Case:
    """Hashing a log of ``events`` typical events (moves signed) into its head."""
    _, setup = _setup(4)
    kinds: list[fd.LogEvent] = [
        fd.Draw(seat=1, n=1),
        fd.Move(seat=2, by=fd.BY_SEAT, move=17, signature=bytes(64)),
        fd.Move(seat=3, by=fd.BY_BOT, move=201, signature=bytes(64)),
        fd.TurnUp(card=5),
    ]
    evs = [kinds[i % len(kinds)] for i in range(events)]
    return lambda: fd.Log(setup.ctx0, evs).head


def fair_hand(preset: str, players: int, seed: int) -> fd.FairHand:
    """One hand through the fair deal, heuristic bots, every seat a person's, fixed seeds."""
    rules = PRESETS[preset]
    ids = [f"seat-{i + 1}" for i in range(players)]
    keys = {p: _key(p) for p in ids}
    host_key = pr.private_key(hashlib.sha256(b"host key").digest())
    public = fd.public_keys_of({**keys, fd.DEALER: host_key})
    game = Game(rules, players, dealer=seed % players, hand_no=seed)
    dealer = fd.Dealer(game, game_id=bytes(16), seats=ids, key=host_key, keys=public)
    bot = HeuristicBot(rules)
    rng = random.Random(seed)
    return fd.play_fair_hand(
        dealer,
        lambda g: bot.choose(g.view(g.turn), rng),
        seeds=lambda p, r: hashlib.sha256(f"{seed} {p} {r}".encode()).digest(),
        keys=keys,
    )


HANDS: dict[str, str] = {}
"""Case name → what the hand is (events, rounds, signatures checked), for the report."""


def verify_cases(preset: str, players: int, sample: int = 15) -> dict[str, Case]:
    hands = sorted(
        (fair_hand(preset, players, seed) for seed in range(1, sample + 1)),
        key=lambda h: len(h.dealer.log.events),
    )
    cards = len(hands[0].dealer.game.deck)
    out: dict[str, Case] = {}
    for label, hand in (("typical", hands[len(hands) // 2]), (f"longest of {sample}", hands[-1])):
        t = hand.transcripts[0]
        assert fd.verify(t).fair
        name = f"verify hand: {preset}, {players} people, {cards} cards, {label}"
        moves = sum(isinstance(e, fd.Move) for e in t.log)
        announces = sum(len(r.announces) for r in t.rounds)
        sigs = (
            1 + 1 + (players - 1) + moves + announces * (players + 2) + hand.rounds * (players + 1)
        )
        HANDS[name] = (
            f"{len(t.log)} log events, {moves} moves, {hand.rounds} "
            f"round{'s' * (hand.rounds != 1)}, about {sigs} signatures"
        )
        out[name] = functools.partial(_cold, fd.verify, t)
        if label == "typical":
            out[f"read + verify: {preset}, {players} people, {label}"] = functools.partial(
                _cold, _read_and_verify, t.to_json()
            )
            out[f"verify hand, its moves checked live: {preset}, {players} people"] = (
                functools.partial(fd.verify, t)
            )
    return out


def _cold(fn: Callable[[T], object], arg: T) -> object:
    """``fn(arg)`` with no signature remembered as good: what ``lanswitch verify`` does."""
    pr.VERIFIED.clear()
    return fn(arg)


def _read_and_verify(text: str) -> fd.Verdict:
    return fd.verify(fd.Transcript.from_json(text))


def cases(verify_only: bool = False) -> dict[str, Case]:
    hands = verify_cases("switch", 4) | verify_cases("switch", 8)
    if verify_only:
        return hands
    two_decks = deck_cards(2, 0)
    one_deck = deck_cards(1, 0)
    _, setup = _setup(8)
    seeds = {p: hashlib.sha256(p.encode()).digest() for p in setup.participants}
    key = pr.deck_key(setup.ctx0, seeds)
    sk = pr.private_key(bytes(range(32)))
    pk = sk.public_key()
    msg = pr.log_head_message(setup.ctx0, fd.DEALER, 345, bytes(32))
    sig = pr.sign(sk, msg)
    return (
        {
            "round: 8 people + host, 104 cards": round_case(8, two_decks),
            "round: 4 people + host, 104 cards": round_case(4, two_decks),
            "round: 4 people + host, 52 cards": round_case(4, one_deck),
            "shuffle: 52 cards": lambda: pr.shuffle(key, one_deck),
            "shuffle: 104 cards": lambda: pr.shuffle(key, two_decks),
            "deck key: 9 seeds (HKDF)": lambda: pr.deck_key(setup.ctx0, seeds),
            "commitment": lambda: pr.commitment(setup.ctx0, "player0", seeds["player0"]),
            "log head: 345 events": log_case(345),
            "Ed25519 sign": lambda: pr.sign(sk, msg),
            "Ed25519 verify": lambda: _cold(lambda m: pr.verify(pk, m, sig), msg),
        }
        | move_cases()
        | hands
    )


def blind_cases() -> dict[str, Case]:
    """The dealer-blind deal's costs (module docstring), with the commit-reveal round and hand
    beside them."""
    from lanswitch.fairdeal import blind
    from lanswitch.fairdeal.blindhand import shuffle_context
    from tests.blindtable import blind_table

    out: dict[str, Case] = {}
    for people in (2, 4, 8):
        t = blind_table(people, 0, "switch", seed=people)
        setup = t.setup
        cards = deck_cards(setup.rules.decks_for(people), setup.rules.deal.jokers)
        n = len(cards)
        points = blind.CardPoints(setup.ctx0, cards)
        ctx = shuffle_context(setup.ctx0, 0, cards)
        seeds = {p: hashlib.sha256(p.encode()).digest() for p in setup.participants}

        def whole(
            points: blind.CardPoints = points,
            ctx: bytes = ctx,
            seeds: dict[str, bytes] = seeds,
            cards: list[int] = cards,
            order: tuple[str, ...] = setup.participants,
        ) -> list[bytes]:
            cur = points.deck(cards)
            keys = [blind.BlindKeys.derive(ctx, p, seeds[p], len(cards)) for p in order]
            for k in keys:
                cur = blind.lock_pass(cur, k)
            for k in keys:
                cur = blind.key_pass(cur, k)
            return cur

        out[f"blind shuffle: {people} people + host, {n} cards, all passes"] = whole

        def one_share(
            points: blind.CardPoints = points, ctx: bytes = ctx, cards: list[int] = cards
        ) -> list[bytes]:
            k = blind.BlindKeys.derive(ctx, "p0", b"\x01" * 32, len(cards))
            return blind.key_pass(blind.lock_pass(points.deck(cards), k), k)

        out[f"blind shuffle: one participant's two passes, {n} cards"] = one_share
        out[f"commit-reveal round: {people} people + host, {n} cards"] = round_case(people, cards)
        # A draw: every other participant seals its key to the drawer, who opens them all.
        holders = t.holders()
        for h in holders.values():
            rec = h.follower.begin_shuffle()
            del rec
        for number in (1, 2):
            for pid in setup.participants:
                got = holders[pid].make_pass(number)
                for h in holders.values():
                    h.follower.on_pass(pid, number, *got)
        out[f"blind draw: keys of {people} others sealed, checked, opened"] = functools.partial(
            _blind_draw, holders, setup.participants
        )
        thirty = cards[:30]
        ctx30 = shuffle_context(setup.ctx0, 1, thirty)
        out[f"blind reshuffle: {people} people + host, 30 cards, all passes"] = functools.partial(
            whole, points, ctx30, seeds, thirty
        )
    # The same hand every time (a fresh table of the same seed), as fair_hand plays it.
    out["whole hand, blind: 4 people, one process"] = lambda: blind_table(
        4, 0, "switch", seed=4
    ).play()
    out["whole hand, commit-reveal: 4 people, one process"] = lambda: fair_hand("switch", 4, 4)
    return out


def _blind_draw(holders: dict[str, Holder], order: tuple[str, ...]) -> int:
    """One draw of position 7 by ``p0``: every other participant's key sealed to it, unsealed,
    its signature checked (cold: the path of a draw whose card does not open, the dearest),
    and the position opened, through the drawer's own follower."""
    from lanswitch.fairdeal import blind
    from lanswitch.fairdeal.blindhand import Share

    pr.VERIFIED.clear()
    drawer = holders["p0"]
    rec = drawer.follower.shuffles[0]
    j = 7
    shares = []
    for pid in order[1:]:
        sealed = holders[pid].seal(0, j, "p0")
        got = blind.unseal_release(
            drawer._sk, drawer.setup.keys[pid], rec.ctx, pid, "p0", j, sealed
        )
        assert got is not None
        share = Share(pid, "p0", *got)
        assert drawer.follower.signed(rec, j, share)
        shares.append(share)
    shares.append(Share("p0", "p0", drawer.keys(rec).positions[j], b""))
    return drawer.follower.open_with(rec, j, shares, own="p0")


def measure(fn: Case, runs: int) -> dict[str, float]:
    """Median, 99th percentile and minimum of ``runs`` timed calls, in µs."""
    for _ in range(max(10, runs // 20)):
        fn()
    times = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(runs):
            t0 = time.perf_counter_ns()
            fn()
            times.append((time.perf_counter_ns() - t0) / 1000)
    finally:
        if gc_was:
            gc.enable()
    times.sort()
    return {
        "runs": runs,
        "median_us": statistics.median(times),
        "p99_us": times[min(len(times) - 1, int(0.99 * len(times)))],
        "min_us": times[0],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000, help="timed calls per case")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verify-only", action="store_true", help="only the whole-hand cases")
    ap.add_argument("--blind", action="store_true", help="the dealer-blind deal's cases")
    args = ap.parse_args()

    chosen = blind_cases() if args.blind else cases(args.verify_only)
    results = {}
    for name, fn in chosen.items():
        slow = args.blind and ("whole hand" in name or "all passes" in name)
        results[name] = measure(fn, max(3, args.runs // 100) if slow else args.runs)
    if args.json:
        report = {"results": results, "targets_us": TARGETS_US, "hands": HANDS}
        print(json.dumps(report | {"engine": lanswitch.ENGINE}, indent=2))
        return 0
    width = max(map(len, results))
    print(f"{'case':<{width}}  {'median µs':>10}  {'p99 µs':>10}  {'min µs':>10}  target")
    for name, r in results.items():
        target = TARGETS_US.get(name)
        verdict = ""
        if target is not None:
            verdict = f"≤ {target:.0f} µs " + ("met" if r["median_us"] <= target else "MISSED")
        print(
            f"{name:<{width}}  {r['median_us']:>10.1f}  {r['p99_us']:>10.1f}  "
            f"{r['min_us']:>10.1f}  {verdict}"
        )
    for name, what in HANDS.items():
        print(f"{name}: {what}")
    print(
        f"({args.runs} runs per case; Python {sys.version.split()[0]}; engine {lanswitch.ENGINE})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
