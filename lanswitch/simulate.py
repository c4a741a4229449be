"""Offline bot games: the rule lab behind ``lanswitch simulate`` and the engine benchmark.

This is a shell: it owns the random source (a seeded ``random.Random``, which is also the
deck source of every simulated hand) and the clock. The engine and the bots stay pure.

With ``transcripts`` (``simulate --transcripts DIR``) the hands are dealt by the fair deal
instead: every participant's seed comes from ``secrets``, every seat (and the host) gets a
fresh Ed25519 key per run, and each seat's transcript of each hand is written to ``DIR`` —
the whole path of :mod:`lanswitch.fairdeal`, offline. The seeded RNG then only drives the
bots. Without it nothing changes: the fast seeded shuffle stays the deck source.
"""

from __future__ import annotations

import math
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .bots import Bot, RandomBot, make_bot
from .cards import MAX_CARD, format_cards
from .fairdeal import DEALER, Dealer, VoidTally, play_fair_hand, public_keys_of
from .fairdeal.primitives import GAME_ID_BYTES, SEED_BYTES
from .fairdeal.tally import VoidEntry
from .game import Event, Game, HandResult, Rng, View
from .narrate import Line, Story, describe, ending, merge
from .rules import RuleSet

__all__ = [
    "FairDeal",
    "HandLog",
    "SimStats",
    "play_hand",
    "simulate",
    "verbose_printer",
]


@dataclass
class SimStats:
    """Totals over a simulation run."""

    rules: str
    players: int
    bots: list[str]
    games: int = 0
    actions: int = 0
    turns: int = 0
    draws: int = 0
    penalties: int = 0
    reshuffles: int = 0
    elapsed_s: float = 0.0
    wins: list[int] = field(default_factory=list)
    endings: dict[str, int] = field(default_factory=dict)
    fired: dict[str, int] = field(default_factory=dict)
    #: The fair deal (``transcripts``): files written, where, rounds run, aborted hands.
    transcripts: int = 0
    transcript_dir: str = ""
    rounds: int = 0
    aborts: VoidTally | None = None
    #: Each seat's bot's time per decision, in seconds (``simulate(time_decisions=True)``).
    decisions: list[list[float]] = field(default_factory=list)

    def decision_ms(self) -> list[dict[str, float]]:
        """Each seat's time per decision: how many, the median and the 99th percentile (ms)."""
        out = []
        for times in self.decisions:
            ordered = sorted(times)
            n = len(ordered)
            out.append(
                {
                    "decisions": n,
                    "median_ms": round(ordered[n // 2] * 1000, 3) if n else 0.0,
                    "p99_ms": round(ordered[min(n - 1, n * 99 // 100)] * 1000, 3) if n else 0.0,
                }
            )
        return out

    def as_json(self) -> dict[str, object]:
        per_bot: dict[str, dict[str, float]] = {}
        for seat, name in enumerate(self.bots):
            entry = per_bot.setdefault(name, {"seats": 0, "wins": 0})
            entry["seats"] += 1
            entry["wins"] += self.wins[seat]
        for entry in per_bot.values():
            entry["win_share"] = entry["wins"] / self.games if self.games else 0.0
        fair: dict[str, object] = {}
        if self.aborts is not None:
            fair = {
                "fair_deal": {
                    "transcripts": self.transcripts,
                    "directory": self.transcript_dir,
                    "rounds": self.rounds,
                    "aborted_hands": self.aborts.count,
                }
            }
        return (
            {
                "rules": self.rules,
                "players": self.players,
                "bots": self.bots,
                "games": self.games,
                "actions": self.actions,
                "elapsed_s": round(self.elapsed_s, 6),
                "actions_per_s": round(self.actions / self.elapsed_s) if self.elapsed_s else 0,
                "games_per_s": round(self.games / self.elapsed_s, 1) if self.elapsed_s else 0,
                "wins": self.wins,
                "per_bot": per_bot,
                "mean_turns": self.turns / self.games if self.games else 0.0,
                "mean_draws": self.draws / self.games if self.games else 0.0,
                "penalties": self.penalties,
                "reshuffles": self.reshuffles,
                "endings": self.endings,
                "power_fired": self.fired,
            }
            | fair
            | ({"decision_time": self.decision_ms()} if self.decisions else {})
        )


HandLog = Callable[[Game, int, int, list[Event]], None]
"""Called after every applied move with (game, seat, move, events) — for --verbose."""


class _Timed:
    """A bot whose every decision is timed (``simulate --json``: time per decision)."""

    def __init__(self, bot: Bot, times: list[float]) -> None:
        self.bot, self.times = bot, times
        self.name, self.needs_view, self.searches = bot.name, True, bot.searches

    def act(self, game: Game, seat: int, rng: Rng) -> int:
        start = time.perf_counter()
        move = self.bot.act(game, seat, rng)
        self.times.append(time.perf_counter() - start)
        return move

    def choose(self, view: View, rng: Rng) -> int:
        return self.bot.choose(view, rng)

    def choose_legal(self, legal: list[int], rng: Rng) -> int:
        return self.bot.choose_legal(legal, rng)


def shuffled(rng: random.Random, cards: list[int]) -> list[int]:
    """A uniformly random order of ``cards``: sorted by random keys, one C-level sort.

    The simulations' deck source (networked tables use the fair deal instead). Cheaper than
    ``random.shuffle``, which draws each swap in Python; ties between two doubles are too rare
    to matter for a simulation.
    """
    rand = rng.random
    keyed = sorted([(rand(), c) for c in cards])
    return [c for _, c in keyed]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``wins`` in ``n`` (95% by default), within [0, 1] (no
    "-0.0" from rounding at 0 of n)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_hand(
    game: Game,
    bots: Sequence[Bot],
    rng: random.Random,
    on_move: HandLog | None = None,
) -> HandResult:
    """Play one hand to its end with ``bots``; ``rng`` shuffles and drives the bots."""
    apply = game.apply
    # The loop is bounded by the engine's own safety limit (a hand stops itself there);
    # the extra margin covers chance steps, which are not player actions.
    limit = game.rules.play.safety_limit * 2 + 1000
    if on_move is None and all(isinstance(b, RandomBot) for b in bots):
        return _play_random_hand(game, rng, limit)
    for _ in range(limit):
        seat = game.to_act()
        if seat < 0:
            req = game.chance_request()
            if req is None:
                break
            events = game.apply_chance(shuffled(rng, req[1]))
            if on_move is not None:
                on_move(game, -1, -1, events)
            continue
        move = bots[seat].act(game, seat, rng)
        events = apply(seat, move)
        if on_move is not None:
            on_move(game, seat, move, events)
    if game.result is None:
        raise RuntimeError("a simulated hand did not end within its bound")
    return game.result


def _play_random_hand(game: Game, rng: random.Random, limit: int) -> HandResult:
    """:func:`play_hand` for random bots only: RandomBot.choose_legal inlined (the same
    choice, ``legal[int(rng.random() * len(legal))]``), as a benchmark driver would."""
    apply = game.apply
    legal_moves = game.legal_moves
    rand = rng.random
    for _ in range(limit):
        legal = legal_moves()
        if legal:
            apply(game.turn, legal[int(rand() * len(legal))])
            continue
        req = game.chance_request()
        if req is None:
            break
        game.apply_chance(shuffled(rng, req[1]))
    if game.result is None:
        raise RuntimeError("a simulated hand did not end within its bound")
    return game.result


class FairDeal:
    """``simulate``'s fair-deal deck source: one game id and fresh keys per run, seeds from
    ``secrets``, one transcript file per seat per hand (``hand-0001-seat-2.json``)."""

    def __init__(self, players: int, directory: Path) -> None:
        self.directory = directory
        self.ids = [f"seat-{i + 1}" for i in range(players)]
        # Every seat is a person's, with a key of its own, so each writes its transcript.
        self.keys = {p: Ed25519PrivateKey.generate() for p in [*self.ids, DEALER]}
        self.public_keys = public_keys_of(self.keys)
        self.game_id = secrets.token_bytes(GAME_ID_BYTES)
        self.aborts = VoidTally()
        self.written = 0
        self.rounds = 0

    def play(
        self, game: Game, bots: Sequence[Bot], rng: random.Random, on_move: HandLog | None
    ) -> HandResult:
        dealer = Dealer(
            game,
            game_id=self.game_id,
            seats=self.ids,
            key=self.keys[DEALER],
            keys=self.public_keys,
        )

        def choose(g: Game) -> int:
            return bots[g.turn].act(g, g.turn, rng)

        hand = play_fair_hand(
            dealer,
            choose,
            seeds=lambda pid, round_no: secrets.token_bytes(SEED_BYTES),
            keys={p: k for p, k in self.keys.items() if p != DEALER},
            on_step=on_move,
        )
        for t in hand.transcripts:
            path = self.directory / f"hand-{game.hand_no:04d}-{t.id}.json"
            path.write_text(t.to_json(), encoding="utf-8")
            self.written += 1
        self.rounds += hand.rounds
        if hand.void is not None:
            v = hand.void
            proven = v.culprits == (DEALER,)  # the host's own abort; else on its word
            self.aborts.record(VoidEntry(game.hand_no, v.culprits, proven, v.fault))
        return hand.result


def simulate(
    rules: RuleSet,
    players: int,
    games: int,
    bot_names: Sequence[str],
    seed: int,
    on_move: HandLog | None = None,
    progress: Callable[[int], None] | None = None,
    transcripts: Path | None = None,
    time_decisions: bool = False,
) -> SimStats:
    """Play ``games`` hands (the deal rotating) and total what happened.

    With ``transcripts`` (an existing directory) the hands are dealt by the fair deal and every
    seat's transcript of every hand is written there (see :class:`FairDeal`).
    """
    if len(bot_names) != players:
        raise ValueError(f"{players} players need {players} bots, got {len(bot_names)}")
    bots: list[Bot] = [make_bot(name, rules) for name in bot_names]
    rng = random.Random(seed)
    stats = SimStats(rules.name, players, list(bot_names), wins=[0] * players)
    if time_decisions:
        stats.decisions = [[] for _ in range(players)]
        bots = [_Timed(bot, stats.decisions[seat]) for seat, bot in enumerate(bots)]
    fired = [0] * len(rules.power)
    fair = FairDeal(players, transcripts) if transcripts is not None else None
    start = time.perf_counter()
    for g in range(games):
        game = Game(rules, players, dealer=g % players, hand_no=g + 1)
        if fair is None:
            result = play_hand(game, bots, rng, on_move)
        else:
            result = fair.play(game, bots, rng, on_move)
        stats.games += 1
        stats.actions += game.actions
        stats.turns += game.turns
        stats.draws += game.draws
        stats.penalties += game.penalties
        stats.reshuffles += game.reshuffles
        if result.placings:  # a void hand (an aborted fair deal) has no winner
            stats.wins[result.placings[0]] += 1
        stats.endings[result.reason] = stats.endings.get(result.reason, 0) + 1
        for i, n in enumerate(game.fired):
            fired[i] += n
        if progress is not None:
            progress(g + 1)
    stats.elapsed_s = time.perf_counter() - start
    stats.fired = {row.name: fired[i] for i, row in enumerate(rules.power)}
    if fair is not None:
        stats.transcripts = fair.written
        stats.transcript_dir = str(transcripts)
        stats.rounds = fair.rounds
        stats.aborts = fair.aborts
    return stats


# ---------------------------------------------------------------------------------------------
# Human-readable narration of a hand (--verbose): lanswitch.narrate's, every card face up.


def verbose_printer(names: Sequence[str], write: Callable[[str], None]) -> HandLog:
    """An ``on_move`` hook that narrates the hand, all cards face up, through ``write``: the
    same words as the terminal client's log (:func:`lanswitch.narrate.describe`), with the
    hands dealt, the cards each player holds after laying, and the result."""
    last: list[Line] = []  # the line not yet written: a run of draws may grow
    story = Story()  # what the narration carries from one move to the next

    def emit(line: Line | None) -> None:
        if last:
            write(last.pop().text())
        if line is not None:
            last.append(line)

    def on_move(game: Game, seat: int, move: int, events: list[Event]) -> None:
        if seat < 0 and events and events[0][0] == "deal":
            emit(None)
            write(f"Hand {game.hand_no}: {names[game.dealer]} deals.")
            for s in game.dealt_in:
                write(f"  {names[s]}: {format_cards(sorted(game.hand(s)), symbols=True)}")
        for line in describe(events, names, rules=game.rules, story=story):
            joined = merge(last[0], line) if last else None
            if joined is not None:
                last[0] = joined
            else:
                emit(line)
        if seat >= 0 and move < MAX_CARD and game.result is None:
            emit(None)
            write(f"  {names[seat]} holds {game.counts[seat]}")
        if game.result is not None:
            emit(None)
            r = game.result
            how = ending(r.reason, names, r.placings)
            write(f"Hand over after {r.actions} actions: {how}.")
            for place, s in enumerate(r.placings, 1):
                pts = f", {r.scores[s]} points" if game.rules.scoring.mode != "none" else ""
                left = game.counts[s]
                write(f"  {place}. {names[s]} ({left} card{'s' if left != 1 else ''} left{pts})")

    return on_move
