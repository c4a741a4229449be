"""Fair-deal speed: one commit-reveal round, verifying a whole hand, and their parts.

Targets (issue #3): one round for 8 players + host with 104 cards within 1 ms (the host's work:
take 9 commitments and 9 seeds, check each opens, derive the key, shuffle), and verifying a
whole hand within 10 ms. Every case is timed ``--runs`` times after a warm-up; the table gives
the median, the 99th percentile and the minimum, in microseconds.

Each case is a name and a zero-argument callable in :func:`cases`, built from inputs prepared
outside the timing (seeds and signatures are made on each player's own machine).

Verifying a hand is :func:`lanswitch.transcript.verify` on one seat's transcript: every signed
log head, the host's signature over the seat's cards, every round re-opened (a reveal signature
per participant per round) and re-derived, and the whole hand replayed through the engine. The
hands are played by heuristic bots (the default bot) through the real fair deal; "typical" is
the hand with the median number of log events among 15, and the longest of the 15 is timed too,
since the cost grows with the number of reshuffle rounds (one Ed25519 verification per
participant per round). ``--verify-only`` skips the round cases.

Usage: ``python benchmarks/fairness.py [--runs N] [--json] [--verify-only]``.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import random

import lanswitch
from lanswitch import fairness as fz
from lanswitch import transcript as tr
from lanswitch.bots import HeuristicBot
from lanswitch.cards import deck_cards
from lanswitch.game import Game
from lanswitch.rules import PRESETS

Case = Callable[[], object]

TARGETS_US = {
    "round: 8 players + host, 104 cards": 1000.0,
    "verify hand: switch, 4 players, 52 cards, typical": 10_000.0,
    "verify hand: switch, 8 players, 104 cards, typical": 10_000.0,
}


def _setup(players: int, hand_no: int = 1) -> tuple[list[str], bytes, dict[str, bytes]]:
    ids = [f"player{i}" for i in range(players)]
    ctx = fz.hand_context(bytes(16), hand_no, 2, 0, ids)
    seeds = {p: hashlib.sha256(p.encode()).digest() for p in fz.participants(ids)}
    return ids, ctx, seeds


def round_case(players: int, cards: list[int], *, signed: bool) -> Case:
    """The host's side of one round, from the first commitment to the derived order."""
    ids, ctx, seeds = _setup(players)
    ps = fz.participants(ids)
    commits = {p: fz.commitment(ctx, p, s) for p, s in seeds.items()}
    keys = {p: fz.private_key(hashlib.sha256(b"key " + p.encode()).digest()) for p in ps}
    pubs = {p: fz.public_bytes(k) for p, k in keys.items()} if signed else None
    csig = {p: fz.sign_commitment(keys[p], ctx, p, commits[p]) if signed else None for p in ps}
    rsig = {
        p: fz.sign_reveal(keys[p], ctx, p, commits[p], seeds[p]) if signed else None for p in ps
    }

    def run() -> list[int]:
        rnd = fz.Round(ctx, ids, public_keys=pubs)
        for p in ps:
            rnd.commit(p, commits[p], csig[p])
        for p in ps:
            rnd.reveal(p, seeds[p], rsig[p])
        return rnd.order(cards)

    return run


def open_round_case(players: int, *, check: str) -> Case:
    """A client re-checking one finished round from a transcript (no shuffle).

    ``check``: ``"openings"`` (seeds open commitments, own seed unchanged), ``"reveal-sigs"``
    (also every reveal signature, which covers the commitment) or ``"all-sigs"`` (also every
    commitment signature).
    """
    ids, ctx, seeds = _setup(players)
    ps = fz.participants(ids)
    commits = {p: fz.commitment(ctx, p, s) for p, s in seeds.items()}
    keys = {p: fz.private_key(hashlib.sha256(b"key " + p.encode()).digest()) for p in ps}
    pubs = {p: fz.public_bytes(k) for p, k in keys.items()}
    csig = {p: fz.sign_commitment(keys[p], ctx, p, commits[p]) for p in ps}
    rsig = {p: fz.sign_reveal(keys[p], ctx, p, commits[p], seeds[p]) for p in ps}
    own = (ids[0], seeds[ids[0]])
    if check == "openings":
        return lambda: fz.open_round(ctx, ids, commits, seeds, own=own)
    return lambda: fz.open_round(
        ctx,
        ids,
        commits,
        seeds,
        own=own,
        public_keys=pubs,
        commit_signatures=csig if check == "all-sigs" else None,
        reveal_signatures=rsig,
    )


def log_case(events: int) -> Case:
    """Hashing a log of ``events`` typical events into its head."""
    _, ctx, _ = _setup(4)
    kinds: list[fz.LogEvent] = [
        fz.Draw(seat=1, n=1),
        fz.Play(seat=2, card=17),
        fz.Action(seat=3, move=201),
        fz.Suit(seat=0, suit=2),
    ]
    evs = [kinds[i % len(kinds)] for i in range(events)]
    return lambda: fz.log_head(ctx, evs)


def fair_hand(preset: str, players: int, seed: int) -> tr.FairHand:
    """One hand through the fair deal, heuristic bots, fixed seeds and keys."""
    rules = PRESETS[preset]
    ids = [f"seat-{i + 1}" for i in range(players)]
    keys = {p: fz.private_key(hashlib.sha256(b"key " + p.encode()).digest()) for p in ids}
    keys[fz.DEALER] = fz.private_key(hashlib.sha256(b"host key").digest())
    game = Game(rules, players, dealer=seed % players, hand_no=seed)
    host = tr.FairHost(
        game,
        game_id=bytes(16),
        seats=ids,
        key=keys[fz.DEALER],
        public_keys=tr.public_keys_of(keys),
    )
    bot = HeuristicBot(rules)
    rng = random.Random(seed)
    return tr.play_fair_hand(
        host,
        lambda g: bot.choose(g.view(g.turn), rng),
        seeds=lambda p, r: hashlib.sha256(f"{seed} {p} {r}".encode()).digest(),
        keys=keys,
    )


HANDS: dict[str, str] = {}
"""Case name → what the hand is (events, rounds, signatures checked), for the report."""


def verify_cases(preset: str, players: int, sample: int = 15) -> dict[str, Case]:
    hands = sorted(
        (fair_hand(preset, players, seed) for seed in range(1, sample + 1)),
        key=lambda h: len(h.host.log.events),
    )
    cards = len(hands[0].host.game.deck)
    out: dict[str, Case] = {}
    for label, hand in (("typical", hands[len(hands) // 2]), (f"longest of {sample}", hands[-1])):
        t = hand.transcripts[0]
        assert tr.verify(t).fair
        name = f"verify hand: {preset}, {players} players, {cards} cards, {label}"
        sigs = players + 1 + 1 + (players + 1) * hand.rounds
        HANDS[name] = (
            f"{len(t.log)} log events, {hand.rounds} round{'s' * (hand.rounds != 1)}, "
            f"{sigs} signatures"
        )
        out[name] = functools.partial(tr.verify, t)
        if label == "typical":
            out[f"read + verify: {preset}, {players} players, {label}"] = functools.partial(
                _read_and_verify, t.to_json()
            )
    return out


def _read_and_verify(text: str) -> tr.Verdict:
    return tr.verify(tr.Transcript.from_json(text))


def cases(verify_only: bool = False) -> dict[str, Case]:
    hands = verify_cases("switch", 4) | verify_cases("switch", 8)
    if verify_only:
        return hands
    two_decks = deck_cards(2, 0)
    one_deck = deck_cards(1, 0)
    _, ctx, seeds = _setup(8)
    key = fz.deck_key(ctx, seeds)
    sk = fz.private_key(bytes(range(32)))
    pk = sk.public_key()
    msg = fz.log_head_message(ctx, fz.DEALER, 345, bytes(32))
    sig = fz.sign(sk, msg)
    return {
        "round: 8 players + host, 104 cards": round_case(8, two_decks, signed=False),
        "round: 4 players + host, 104 cards": round_case(4, two_decks, signed=False),
        "round: 8 players + host, 104 cards, signed": round_case(8, two_decks, signed=True),
        "shuffle: 52 cards": lambda: fz.shuffle(key, one_deck),
        "shuffle: 104 cards": lambda: fz.shuffle(key, two_decks),
        "deck key: 9 seeds (HKDF)": lambda: fz.deck_key(ctx, seeds),
        "commitment": lambda: fz.commitment(ctx, "player0", seeds["player0"]),
        "open_round: 8 + host, openings": open_round_case(8, check="openings"),
        "open_round: 8 + host, + reveal sigs": open_round_case(8, check="reveal-sigs"),
        "open_round: 8 + host, + all sigs": open_round_case(8, check="all-sigs"),
        "log head: 345 events": log_case(345),
        "Ed25519 sign": lambda: fz.sign(sk, msg),
        "Ed25519 verify": lambda: fz.verify(pk, msg, sig),
    } | hands


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
    args = ap.parse_args()

    results = {name: measure(fn, args.runs) for name, fn in cases(args.verify_only).items()}
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
