"""Fair-deal speed: one commit-reveal round, the shuffle alone, and its parts.

Targets (issue #3): one round for 8 players + host with 104 cards within 1 ms (the host's work:
take 9 commitments and 9 seeds, check each opens, derive the key, shuffle), and verifying a
whole hand within 10 ms. Every case is timed ``--runs`` times after a warm-up; the table gives
the median, the 99th percentile and the minimum, in microseconds.

Each case is a name and a zero-argument callable in :func:`cases`, built from inputs prepared
outside the timing (seeds and signatures are made on each player's own machine). A new case —
such as verifying a whole hand once transcripts exist — is one more entry there.

Usage: ``python benchmarks/fairness.py [--runs N] [--json]``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch import fairness as fz
from lanswitch.cards import deck_cards

Case = Callable[[], object]

TARGETS_US = {"round: 8 players + host, 104 cards": 1000.0}


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


def cases() -> dict[str, Case]:
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
    }


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
    args = ap.parse_args()

    results = {name: measure(fn, args.runs) for name, fn in cases().items()}
    if args.json:
        print(json.dumps({"results": results, "targets_us": TARGETS_US}, indent=2))
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
    print(f"({args.runs} runs per case; Python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
