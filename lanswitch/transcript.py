"""Fair hands: the engine dealt by the fair deal, each seat's transcript, and its verification.

Theory of operation
-------------------
:mod:`lanswitch.fairness` is the cryptography of one commit-reveal round. This module puts a
whole hand of the rules engine on top of it, in three pure parts:

1. **The host** (:class:`FairHost`) runs the :class:`~lanswitch.game.Game`. Every chance
   request of the engine — the deal, and each reshuffle, which waits for its round — is
   answered by a full commit-reveal :class:`~lanswitch.fairness.Round` among all participants
   (the seat ids, then ``@dealer``); a reshuffle's context binds the exact discard pile and the
   public log head so far. Every public thing that happens goes into the hash-chained
   :class:`~lanswitch.fairness.Log`: the hand's setup first, then turn-ups, plays, draws (as
   counts), suit calls, other moves (as ``Action``), reshuffles. Each seat's own cards go to
   that seat alone. After the hand the host reveals every seed of every round, signs the log
   head and each seat's cards.

2. **A seat** (:class:`SeatRecorder`) keeps what it is told and what it made itself — its
   seeds, its signatures — and turns that into a :class:`Transcript`: rules, game id, hand
   number, dealer, seats and their ids, public keys, every round's commitments as broadcast and
   seeds as revealed (with signatures), its own seeds, the public log, its own cards, and every
   participant's signed log head. :meth:`Transcript.to_json` writes it as a versioned,
   self-describing JSON file (``protocol/SPEC.md``, "Transcript").

3. **Verification** (:func:`verify`, :func:`verify_all`) needs the transcript alone. It checks
   the signed log heads and the host's signature over the seat's cards, re-opens every round,
   re-derives every order and **replays the whole hand through the engine**, comparing every
   public log event and every one of the seat's own cards with what the engine produces. The
   answer is a :class:`Verdict`: fair, unfair with a reason and who is to blame, or void.

:func:`play_fair_hand` wires a host and every seat together in one process (the simulator,
the tests and the benchmark use it); over a network the same objects sit at both ends.

Seeds and signing keys are **inputs** (the shells draw them with ``secrets`` and
``Ed25519PrivateKey.generate()``); nothing here reads a clock, the OS's randomness or a file.

A round that fails — a seed that does not open its commitment, or a participant that does not
commit or reveal — makes the hand **void**: :meth:`Game.void <lanswitch.game.Game.void>`,
no result, the blame recorded in every transcript, and the next hand takes a new number. The
host is the last to reveal, so aborting is its one lever over the deal: every abort is counted
(:class:`Aborts`) and shown, never redealt silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from .cards import MAX_CARD, SUIT_NAMES, format_card
from .fairness import (
    DEALER,
    GAME_ID_BYTES,
    HASH_BYTES,
    Action,
    Blame,
    Draw,
    Fault,
    Log,
    LogEvent,
    Note,
    Play,
    PrivateKeyLike,
    PublicKeyLike,
    Reshuffle,
    Round,
    RoundState,
    Suit,
    TurnUp,
    UsageError,
    commitment,
    decode_event,
    hand_context,
    log_start,
    log_step,
    open_round,
    participants,
    private_key,
    public_bytes,
    reshuffle_context,
    shuffle,
    sign_cards,
    sign_commitment,
    sign_log_head,
    sign_reveal,
    verify_cards,
    verify_commitment,
    verify_log_head,
    verify_reveal,
)
from .game import (
    BLUNDER_FLAG,
    SUIT_BASE,
    Event,
    Game,
    HandResult,
    IllegalMove,
    Reason,
    format_move,
)
from .rules import MAX_PLAYERS, MIN_PLAYERS, RulesError, RuleSet, dump_toml, rules_from_mapping

__all__ = [
    "FORMAT",
    "PROTOCOL",
    "VERSION",
    "Aborts",
    "FairHand",
    "FairHost",
    "HandSetup",
    "RoundRecord",
    "SeatRecorder",
    "SignedHead",
    "Transcript",
    "TranscriptError",
    "Verdict",
    "VoidRecord",
    "card_events",
    "json_text",
    "move_event",
    "play_fair_hand",
    "public_keys_of",
    "verify",
    "verify_all",
]

FORMAT: Final = "lanswitch-transcript"
VERSION: Final = 1
PROTOCOL: Final = "lanswitch/v1"

SeedSource = Callable[[str, int], bytes]
"""``(participant id, round) → 32 fresh bytes``: where a participant's seed for a round comes
from (``secrets.token_bytes(32)`` in the shells)."""

RevealHook = Callable[[str, int, bytes], "bytes | None"]
"""``(participant id, round, committed seed) → the seed it sends, or None to send none``.
Honest participants send the seed they committed to; tests model the others with this."""

MoveSource = Callable[[Game], int]
"""``game → move`` for the seat ``game.to_act()`` (a bot, or a player's input)."""

StepHook = Callable[[Game, int, int, list[Event]], None]
"""Called after every engine step with ``(game, seat, move, events)``; ``seat`` is -1 for a
chance step (the same shape as :data:`lanswitch.simulate.HandLog`)."""


class TranscriptError(ValueError):
    """Not a (valid) transcript: unreadable, another format or version, a malformed field, or a
    record that contradicts itself. Says which field."""


def _who(pid: str) -> str:
    return "the host (@dealer)" if pid == DEALER else pid


def _whos(pids: Iterable[str]) -> str:
    return ", ".join(_who(p) for p in pids) or "nobody"


# ---------------------------------------------------------------------------------------------
# The hand's setup


@lru_cache(maxsize=32)
def _parse_rules(text: str) -> RuleSet:
    try:
        return rules_from_mapping(tomllib.loads(text), source="transcript rules")
    except tomllib.TOMLDecodeError as e:
        raise TranscriptError(f"rules: not valid TOML: {e}") from None
    except RulesError as e:
        raise TranscriptError(f"rules: {e}") from None


@dataclass(frozen=True, slots=True)
class HandSetup:
    """What every participant agrees to before a hand.

    ``game_id``, ``hand_no``, the deck setup and the seat ids make the deal's context
    ``ctx0``; the rules (as TOML text), the dealer and the seats sitting out are bound into the
    log's first event, the ``setup`` note (``protocol/SPEC.md``, "Transcript"). Build one with
    :meth:`create` from a rule set, or :meth:`from_toml` from a transcript's rules text.
    """

    game_id: bytes
    hand_no: int
    rules: RuleSet
    rules_toml: str
    seats: tuple[str, ...]
    dealer: int = 0
    out: tuple[int, ...] = ()
    decks: int = field(init=False)
    jokers: int = field(init=False)
    ctx0: bytes = field(init=False)
    note: Note = field(init=False)

    def __post_init__(self) -> None:
        ps = participants(self.seats)  # checks the ids
        n = len(ps) - 1
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise UsageError(f"a hand has {MIN_PLAYERS}..{MAX_PLAYERS} seats, not {n}")
        if not 0 <= self.dealer < n:
            raise UsageError(f"the dealer must be a seat 0..{n - 1}, not {self.dealer}")
        out = tuple(self.out)
        if any(not 0 <= s < n for s in out) or list(out) != sorted(set(out)):
            raise UsageError(f"seats out must be distinct seats 0..{n - 1}, ascending: {out}")
        if self.dealer in out:
            raise UsageError(f"the dealer (seat {self.dealer}) is sitting this hand out")
        active = n - len(out)
        if active < MIN_PLAYERS:
            raise UsageError("a hand needs at least two players")
        decks = self.rules.decks_for(active)
        jokers = self.rules.deal.jokers
        ctx0 = hand_context(self.game_id, self.hand_no, decks, jokers, self.seats)
        digest = hashlib.sha256(self.rules_toml.encode("utf-8")).digest()
        note = Note("setup", digest + bytes((self.dealer, len(out), *out)))
        for name, value in (("decks", decks), ("jokers", jokers), ("ctx0", ctx0), ("note", note)):
            object.__setattr__(self, name, value)

    @classmethod
    def create(
        cls,
        game_id: bytes,
        hand_no: int,
        rules: RuleSet,
        seats: Sequence[str],
        *,
        dealer: int = 0,
        out: Iterable[int] = (),
    ) -> HandSetup:
        """A setup for ``rules``, written out as ``dump_toml(rules)``."""
        return cls(
            game_id, hand_no, rules, dump_toml(rules), tuple(seats), dealer, tuple(sorted(out))
        )

    @classmethod
    def from_toml(
        cls,
        game_id: bytes,
        hand_no: int,
        rules_toml: str,
        seats: Sequence[str],
        *,
        dealer: int = 0,
        out: Iterable[int] = (),
    ) -> HandSetup:
        """A setup whose rules are parsed from ``rules_toml`` (TranscriptError if they are bad)."""
        rules = _parse_rules(rules_toml)
        return cls(game_id, hand_no, rules, rules_toml, tuple(seats), dealer, tuple(out))

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def participants(self) -> tuple[str, ...]:
        return (*self.seats, DEALER)

    def new_game(self) -> Game:
        """A fresh engine for this hand, waiting for the deal."""
        return Game(
            self.rules, self.players, dealer=self.dealer, out=self.out, hand_no=self.hand_no
        )


# ---------------------------------------------------------------------------------------------
# Engine events → public log events


def move_event(seat: int, move: int) -> LogEvent:
    """The log event of a move: ``Play`` for a card, ``Suit`` for a named suit, else ``Action``
    (blunders included, as ``BLUNDER_FLAG | move``)."""
    if 0 <= move < MAX_CARD:
        return Play(seat, move)
    if SUIT_BASE <= move < SUIT_BASE + 4:
        return Suit(seat, move - SUIT_BASE)
    return Action(seat, move)


def card_events(events: Iterable[Event], round_no: int = 0) -> list[LogEvent]:
    """The log events for the cards one engine step moved from the stock.

    Dealt and drawn cards become ``Draw(seat, n)`` — consecutive ones to the same seat merge
    into one, whatever unlogged events lie between them —, turned-up starters ``TurnUp``, and
    the engine's reshuffle ``Reshuffle(round_no, n)``. Everything else the engine reports is
    a consequence of the rules, which the replay recomputes, so it is not logged.
    """
    out: list[LogEvent] = []
    seat_run, n_run = -1, 0
    for kind, seat, value in events:
        if kind == "deal" or kind == "draw":
            if seat == seat_run and n_run < 255:
                n_run += 1
                continue
            if n_run:
                out.append(Draw(seat_run, n_run))
            seat_run, n_run = seat, 1
        elif kind == "starter" or kind == "reshuffle":
            if n_run:
                out.append(Draw(seat_run, n_run))
                seat_run, n_run = -1, 0
            out.append(TurnUp(value) if kind == "starter" else Reshuffle(round_no, value))
    if n_run:
        out.append(Draw(seat_run, n_run))
    return out


def _own_cards(events: Iterable[Event], seat: int) -> list[int]:
    return [v for k, s, v in events if s == seat and (k == "deal" or k == "draw")]


# ---------------------------------------------------------------------------------------------
# Records shared by the host, the seats and the transcript


@dataclass(frozen=True, slots=True)
class SignedHead:
    """A participant's signed statement that the hand's log has ``count`` events ending in
    ``head``."""

    count: int
    head: bytes
    signature: bytes


@dataclass(frozen=True, slots=True)
class VoidRecord:
    """The host's announcement that round ``round`` failed: the hand is void."""

    round: int
    fault: Fault
    culprits: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One commit-reveal round as a seat keeps it.

    ``cards``: the round's cards as the host announced them, sorted. ``own_seed``: the seed
    this seat committed to (None if it never committed); ``own_seed_sent``: whether it sent
    that seed to the host. The rest is what the host broadcast (commitments, during the hand)
    and revealed (seeds, after it), each with its participant's signature.
    """

    round: int
    cards: tuple[int, ...]
    own_seed: bytes | None
    own_seed_sent: bool
    commitments: Mapping[str, bytes]
    commit_signatures: Mapping[str, bytes]
    seeds: Mapping[str, bytes]
    reveal_signatures: Mapping[str, bytes]


def public_keys_of(keys: Mapping[str, PrivateKeyLike]) -> dict[str, bytes]:
    """The raw public keys of a mapping id → private key."""
    return {p: public_bytes(k) for p, k in keys.items()}


# ---------------------------------------------------------------------------------------------
# The host


class FairHost:
    """The host's side of one hand: the engine, its rounds, the public log, the seats' cards.

    Pure: the shell (or :func:`play_fair_hand`) carries messages. A chance step is
    :meth:`open_round` → the participants commit and reveal into the returned
    :class:`~lanswitch.fairness.Round` → :meth:`close_round` (or :meth:`fail_round`). A move is
    :meth:`act`. Both return the public log events the step added; :attr:`cards` holds what
    each seat was given. :meth:`order` and :meth:`announced_cards` are the two places where
    the host's choice could enter: an honest host returns what it is given (a test overrides
    them to play a dishonest host).
    """

    def __init__(
        self,
        game: Game,
        *,
        game_id: bytes,
        seats: Sequence[str],
        key: PrivateKeyLike,
        public_keys: Mapping[str, PublicKeyLike],
    ) -> None:
        req = game.chance_request()
        if req is None or req[0] != "deal":
            raise UsageError("the host needs a game that waits for its deal")
        if len(seats) != game.players:
            raise UsageError(f"{game.players} seats need {game.players} ids, got {len(seats)}")
        out = tuple(s for s in range(game.players) if not game.active[s])
        self.setup = HandSetup.create(
            game_id, game.hand_no, game.rules, seats, dealer=game.dealer, out=out
        )
        self.game = game
        self.key = private_key(key)
        missing = [p for p in self.setup.participants if p not in public_keys]
        if missing:
            raise UsageError(f"no public key for {missing}")
        self.public_keys = {p: _raw_key(public_keys[p]) for p in self.setup.participants}
        if self.public_keys[DEALER] != public_bytes(self.key):
            raise UsageError("the host's key does not match @dealer's public key")
        self.log = Log(self.setup.ctx0)
        self.log.append(self.setup.note)
        self.rounds: list[tuple[tuple[int, ...], Round]] = []
        self.cards: list[list[int]] = [[] for _ in seats]
        self.void: VoidRecord | None = None

    # -- the two levers a dishonest host would pull ------------------------------------------

    def announced_cards(self, round_no: int, cards: list[int]) -> list[int]:
        """The cards the host announces for round ``round_no``: the engine's, honestly."""
        return cards

    def order(self, round_no: int, derived: list[int]) -> list[int]:
        """The order the host deals from: the derived one, honestly."""
        return derived

    # -- chance ------------------------------------------------------------------------------

    def open_round(self) -> tuple[int, tuple[int, ...], Round]:
        """Start the next round: its number, its (announced) cards and the host's Round."""
        if self.void is not None:
            raise UsageError("the hand is void")
        req = self.game.chance_request()
        if req is None:
            raise UsageError("the engine waits for no shuffle now")
        if self.rounds and self.rounds[-1][1].state != RoundState.DONE:
            raise UsageError("the previous round is still open")
        r = len(self.rounds)
        cards = tuple(sorted(self.announced_cards(r, req[1])))
        ctx = (
            self.setup.ctx0
            if r == 0
            else reshuffle_context(self.setup.ctx0, r, self.log.head, cards)
        )
        rnd = Round(ctx, self.setup.seats, public_keys=self.public_keys)
        self.rounds.append((cards, rnd))
        return r, cards, rnd

    def close_round(self) -> tuple[list[LogEvent], list[Event]]:
        """Deal from the finished round's order: the log events added and the engine's."""
        r = len(self.rounds) - 1
        cards, rnd = self.rounds[r]
        if rnd.state != RoundState.DONE:
            raise UsageError(f"round {r} is {rnd.state.name}, not DONE")
        order = self.order(r, rnd.order(cards))
        return self.record(self.game.apply_chance(order), round_no=r)

    def fail_round(self, blame: Blame) -> VoidRecord:
        """The open round failed: the hand is void, ``blame`` says whose fault it was."""
        r = len(self.rounds) - 1
        if r < 0:
            raise UsageError("no round is open")
        self.void = VoidRecord(r, blame.fault, blame.culprits)
        self.game.void()
        return self.void

    # -- moves -------------------------------------------------------------------------------

    def act(self, seat: int, move: int) -> tuple[list[LogEvent], list[Event]]:
        """Apply ``seat``'s move (IllegalMove if it is not legal)."""
        return self.record(self.game.apply(seat, move), move=(seat, move))

    def blunder(self, seat: int, move: int) -> tuple[list[LogEvent], list[Event]]:
        """Charge ``seat`` for an illegal ``move`` (logged as ``Action`` with BLUNDER_FLAG)."""
        return self.record(self.game.blunder(seat, move), move=(seat, BLUNDER_FLAG | move))

    def record(
        self, events: list[Event], *, move: tuple[int, int] | None = None, round_no: int = 0
    ) -> tuple[list[LogEvent], list[Event]]:
        """Log one engine step — the move (if any), then the cards it moved — and hand out the
        cards it dealt or drew. Returns the log events and the engine events."""
        logged = [move_event(*move)] if move is not None else []
        logged += card_events(events, round_no)
        self.log.extend(logged)
        for kind, seat, value in events:
            if kind == "deal" or kind == "draw":
                self.cards[seat].append(value)
        return logged, events

    # -- after the hand ------------------------------------------------------------------------

    def reveals(self, round_no: int) -> tuple[dict[str, bytes], dict[str, bytes]]:
        """The seeds (and reveal signatures) round ``round_no`` received, a failed one's bad
        seed included: what the host reveals after the hand."""
        _, rnd = self.rounds[round_no]
        seeds = rnd.seeds
        if rnd.bad_seed is not None and rnd.blame is not None:
            seeds[rnd.blame.pid] = rnd.bad_seed
        return seeds, rnd.reveal_signatures

    def sign_head(self) -> SignedHead:
        head, count = self.log.head, self.log.count
        return SignedHead(
            count, head, sign_log_head(self.key, self.setup.ctx0, DEALER, count, head)
        )

    def sign_cards(self, seat: int) -> bytes:
        return sign_cards(self.key, self.setup.ctx0, self.setup.seats[seat], self.cards[seat])


def _raw_key(key: PublicKeyLike) -> bytes:
    if isinstance(key, bytes):
        return key
    return key.public_bytes_raw()


# ---------------------------------------------------------------------------------------------
# A seat


@dataclass
class _OpenRecord:
    round: int
    cards: tuple[int, ...]
    ctx: bytes
    own_seed: bytes | None = None
    own_commitment: bytes | None = None
    own_seed_sent: bool = False
    commitments: dict[str, bytes] = field(default_factory=dict)
    commit_signatures: dict[str, bytes] = field(default_factory=dict)
    seeds: dict[str, bytes] = field(default_factory=dict)
    reveal_signatures: dict[str, bytes] = field(default_factory=dict)


class SeatRecorder:
    """One seat's side of a hand: it computes, signs and keeps; :meth:`transcript` at the end.

    The seat computes every round's context itself (a reshuffle's from the log it holds and
    the cards announced), commits and reveals with its own key, and signs the head of the
    log it was sent.
    """

    def __init__(
        self,
        setup: HandSetup,
        seat: int,
        key: PrivateKeyLike,
        public_keys: Mapping[str, PublicKeyLike],
    ) -> None:
        if not 0 <= seat < setup.players:
            raise UsageError(f"no seat {seat}")
        self.setup = setup
        self.seat = seat
        self.id = setup.seats[seat]
        self.key = private_key(key)
        self.public_keys = {p: _raw_key(public_keys[p]) for p in setup.participants}
        self.log = Log(setup.ctx0)
        self.rounds: list[_OpenRecord] = []
        self.cards: list[int] = []
        self.cards_signature = b""
        self.heads: dict[str, SignedHead] = {}
        self.void: VoidRecord | None = None

    def _round(self, r: int) -> _OpenRecord:
        for rec in reversed(self.rounds):
            if rec.round == r:
                return rec
        raise UsageError(f"round {r} was never announced")

    # -- during the hand ------------------------------------------------------------------------

    def on_round(self, r: int, cards: Sequence[int]) -> None:
        """The host announced round ``r`` over ``cards``."""
        cards_t = tuple(sorted(cards))
        ctx0 = self.setup.ctx0
        ctx = ctx0 if r == 0 else reshuffle_context(ctx0, r, self.log.head, cards_t)
        self.rounds.append(_OpenRecord(r, cards_t, ctx))

    def commit(self, r: int, seed: bytes) -> tuple[bytes, bytes]:
        """This seat's commitment to ``seed`` for round ``r`` and its signature."""
        rec = self._round(r)
        c = commitment(rec.ctx, self.id, seed)
        rec.own_seed, rec.own_commitment = seed, c
        return c, sign_commitment(self.key, rec.ctx, self.id, c)

    def on_commitments(
        self, r: int, commitments: Mapping[str, bytes], signatures: Mapping[str, bytes]
    ) -> None:
        rec = self._round(r)
        rec.commitments, rec.commit_signatures = dict(commitments), dict(signatures)

    def reveal(self, r: int, seed: bytes) -> bytes:
        """Send ``seed`` (to the host only); returns its reveal signature."""
        rec = self._round(r)
        if rec.own_commitment is None:
            raise UsageError(f"{self.id} did not commit in round {r}")
        rec.own_seed_sent = True
        return sign_reveal(self.key, rec.ctx, self.id, rec.own_commitment, seed)

    def on_events(self, events: Iterable[LogEvent]) -> None:
        self.log.extend(events)

    def on_cards(self, cards: Iterable[int]) -> None:
        self.cards.extend(cards)

    # -- after the hand -------------------------------------------------------------------------

    def on_abort(self, record: VoidRecord) -> None:
        self.void = record

    def on_reveals(
        self, r: int, seeds: Mapping[str, bytes], signatures: Mapping[str, bytes]
    ) -> None:
        rec = self._round(r)
        rec.seeds, rec.reveal_signatures = dict(seeds), dict(signatures)

    def on_cards_signature(self, signature: bytes) -> None:
        self.cards_signature = signature

    def sign_head(self) -> SignedHead:
        """This seat's signature over the head of the log it holds."""
        head, count = self.log.head, self.log.count
        sig = sign_log_head(self.key, self.setup.ctx0, self.id, count, head)
        return SignedHead(count, head, sig)

    def on_heads(self, heads: Mapping[str, SignedHead]) -> None:
        """The heads the host passed on. This seat's own is the one it signs itself: the host
        may not have it (it came too late, or never reached the host) or pass on another."""
        self.heads = dict(heads)
        self.heads[self.id] = self.sign_head()

    def transcript(self) -> Transcript:
        rounds = tuple(
            RoundRecord(
                rec.round,
                rec.cards,
                rec.own_seed,
                rec.own_seed_sent,
                rec.commitments,
                rec.commit_signatures,
                rec.seeds,
                rec.reveal_signatures,
            )
            for rec in self.rounds
        )
        return Transcript(
            setup=self.setup,
            seat=self.seat,
            public_keys=self.public_keys,
            rounds=rounds,
            log=tuple(self.log.events),
            cards=tuple(self.cards),
            cards_signature=self.cards_signature,
            log_heads=self.heads,
            void=self.void,
        )


# ---------------------------------------------------------------------------------------------
# One hand in one process


@dataclass(frozen=True, slots=True)
class FairHand:
    """A hand played through the fair deal: its result, its rounds, every seat's transcript."""

    host: FairHost
    result: HandResult
    void: VoidRecord | None
    transcripts: tuple[Transcript, ...]

    @property
    def rounds(self) -> int:
        return len(self.host.rounds)


def play_fair_hand(
    host: FairHost,
    choose: MoveSource,
    *,
    seeds: SeedSource,
    keys: Mapping[str, PrivateKeyLike],
    reveal: RevealHook | None = None,
    on_step: StepHook | None = None,
) -> FairHand:
    """Play ``host``'s hand to its end with every seat in this process.

    ``keys`` holds every participant's signing key (the seats' and ``@dealer``'s), ``seeds``
    gives each participant's seed per round, ``choose`` the move of the seat to act (a move
    with ``BLUNDER_FLAG`` set is an illegal move it tried, charged as a blunder).
    ``reveal`` lets a participant send another seed than it committed to, or none (the default
    sends the committed one). Seats reveal in seat order, ``@dealer`` last. A round that fails
    voids the hand (``FairHand.void``). After the hand every round's seeds are revealed to
    every seat, the host signs each seat's cards and the log head, and every seat's signed head
    is passed to every seat.
    """
    setup = host.setup
    game = host.game
    ps = setup.participants
    recorders = [
        SeatRecorder(setup, s, keys[pid], host.public_keys) for s, pid in enumerate(setup.seats)
    ]

    def publish(logged: list[LogEvent]) -> None:
        for rec in recorders:
            rec.on_events(logged)
            rec.on_cards(host.cards[rec.seat][len(rec.cards) :])

    publish(list(host.log.events))  # the setup note
    bound = game.rules.play.safety_limit * 2 + 1000
    for _ in range(bound):
        if game.result is not None:
            break
        if game.chance_request() is None:
            seat = game.to_act()
            move = choose(game)
            if move & BLUNDER_FLAG:
                logged, events = host.blunder(seat, move & ~BLUNDER_FLAG)
            else:
                logged, events = host.act(seat, move)
            publish(logged)
            if on_step is not None:
                on_step(game, seat, move, events)
            continue
        # A chance step: one commit-reveal round.
        r, cards, rnd = host.open_round()
        for rec in recorders:
            rec.on_round(r, cards)
        committed: dict[str, bytes] = {}
        for pid in ps:
            seed = seeds(pid, r)
            committed[pid] = seed
            if pid == DEALER:
                c = commitment(rnd.ctx, DEALER, seed)
                sig = sign_commitment(host.key, rnd.ctx, DEALER, c)
            else:
                c, sig = recorders[setup.seats.index(pid)].commit(r, seed)
            with contextlib.suppress(Blame):  # rejected: as if it had not committed
                rnd.commit(pid, c, sig)
        for rec in recorders:
            rec.on_commitments(r, rnd.commitments, rnd.commit_signatures)
        if rnd.state == RoundState.REVEAL:
            for pid in ps:
                seed = committed[pid]
                sent = seed if reveal is None else reveal(pid, r, seed)
                if sent is None:
                    continue
                if pid == DEALER:
                    sig = sign_reveal(host.key, rnd.ctx, DEALER, rnd.commitments[DEALER], sent)
                else:
                    sig = recorders[setup.seats.index(pid)].reveal(r, sent)
                try:
                    rnd.reveal(pid, sent, sig)
                except Blame:
                    if rnd.blame is not None:  # a seed that does not open: the round failed
                        break
        if rnd.state != RoundState.DONE:
            record = host.fail_round(rnd.blame or rnd.abandon())
            for rec in recorders:
                rec.on_abort(record)
            break
        logged, events = host.close_round()
        publish(logged)
        if on_step is not None:
            on_step(game, -1, -1, events)
    if game.result is None:
        raise RuntimeError("a fair hand did not end within its bound")
    # After the hand: reveal every round, sign the cards and the log.
    for r in range(len(host.rounds)):
        seeds_r, sigs_r = host.reveals(r)
        for rec in recorders:
            rec.on_reveals(r, seeds_r, sigs_r)
    for rec in recorders:
        rec.on_cards_signature(host.sign_cards(rec.seat))
    heads = {rec.id: rec.sign_head() for rec in recorders}
    heads[DEALER] = host.sign_head()
    for rec in recorders:
        rec.on_heads(heads)
    return FairHand(host, game.result, host.void, tuple(rec.transcript() for rec in recorders))


# ---------------------------------------------------------------------------------------------
# The transcript


@dataclass(frozen=True, slots=True)
class Transcript:
    """What one seat keeps of one hand; everything :func:`verify` needs.

    ``log`` is the public log as the seat received it (the ``setup`` note first); ``cards``
    the seat's own cards in the order it was given them, with the host's ``cards_signature``;
    ``log_heads`` every participant's signed log head, its own included; ``void`` the host's
    announcement of a failed round, if the hand was void.
    """

    setup: HandSetup
    seat: int
    public_keys: Mapping[str, bytes]
    rounds: tuple[RoundRecord, ...]
    log: tuple[LogEvent, ...]
    cards: tuple[int, ...]
    cards_signature: bytes
    log_heads: Mapping[str, SignedHead]
    void: VoidRecord | None = None

    @property
    def id(self) -> str:
        """This seat's id."""
        return self.setup.seats[self.seat]

    # -- JSON ------------------------------------------------------------------------------------

    def to_json_obj(self) -> dict[str, Any]:
        s = self.setup
        return {
            "format": FORMAT,
            "version": VERSION,
            "protocol": PROTOCOL,
            "game_id": s.game_id.hex(),
            "hand_no": s.hand_no,
            "seat": self.seat,
            "seats": list(s.seats),
            "dealer": s.dealer,
            "out": list(s.out),
            "rules": s.rules_toml,
            "public_keys": {p: self.public_keys[p].hex() for p in s.participants},
            "rounds": [_round_json(rec) for rec in self.rounds],
            "log": [ev.encode().hex() for ev in self.log],
            "cards": list(self.cards),
            "cards_signature": self.cards_signature.hex(),
            "log_heads": {
                p: {"count": h.count, "head": h.head.hex(), "signature": h.signature.hex()}
                for p, h in self.log_heads.items()
            },
            "void": None
            if self.void is None
            else {
                "round": self.void.round,
                "fault": self.void.fault.name.lower(),
                "culprits": list(self.void.culprits),
            },
        }

    def to_json(self) -> str:
        """The transcript file's text (UTF-8): JSON, lists of numbers kept on one line."""
        return json_text(self.to_json_obj()) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> Transcript:
        """Read a transcript file's text; :class:`TranscriptError` says what is wrong."""
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise TranscriptError(f"not JSON ({e})") from None
        except RecursionError:
            raise TranscriptError("not JSON (nested too deeply)") from None
        return cls.from_json_obj(obj)

    @classmethod
    def from_json_obj(cls, obj: object) -> Transcript:
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise TranscriptError(f'not a lanswitch transcript (no "format": "{FORMAT}")')
        version = obj.get("version")
        if version != VERSION:
            raise TranscriptError(
                f"transcript version {version!r} is not supported (this lanswitch reads "
                f"version {VERSION})"
            )
        try:
            t = cls._from_fields(obj)
        except TranscriptError as e:
            raise TranscriptError(f"a malformed transcript: {e}") from None
        t.heads()  # a transcript must agree with itself
        return t

    @classmethod
    def _from_fields(cls, obj: dict[str, Any]) -> Transcript:
        if obj.get("protocol") != PROTOCOL:
            raise TranscriptError(f"protocol: {obj.get('protocol')!r} is not {PROTOCOL!r}")
        seats = _list(obj, "seats", _str)
        try:
            setup = HandSetup.from_toml(
                _hex(obj, "game_id", GAME_ID_BYTES),
                _int(obj, "hand_no", 0, 2**32 - 1),
                _str(obj.get("rules"), "rules"),
                seats,
                dealer=_int(obj, "dealer", 0, 255),
                out=_list(obj, "out", lambda v, p: _int_value(v, p, 0, 255)),
            )
        except UsageError as e:
            raise TranscriptError(f"setup: {e}") from None
        ps = setup.participants
        seat = _int(obj, "seat", 0, setup.players - 1)
        keys = _dict(obj, "public_keys")
        if set(keys) != set(ps):
            raise TranscriptError(f"public_keys: must name exactly {list(ps)}")
        public_keys = {p: _hex(keys, p, 32, "public_keys") for p in ps}
        rounds = tuple(
            _round_from(r, f"rounds[{i}]", ps) for i, r in enumerate(_list(obj, "rounds", _any))
        )
        log = tuple(_event_from(v, f"log[{i}]") for i, v in enumerate(_list(obj, "log", _str)))
        cards = tuple(_list(obj, "cards", lambda v, p: _int_value(v, p, 0, MAX_CARD - 1)))
        heads_obj = _dict(obj, "log_heads")
        unknown = [p for p in heads_obj if p not in ps]
        if unknown:
            raise TranscriptError(f"log_heads: {unknown[0]!r} is not a participant")
        heads = {}
        for p in ps:
            if p in heads_obj:
                h = _dict(heads_obj, p, "log_heads")
                where = f"log_heads.{p}"
                heads[p] = SignedHead(
                    _int(h, "count", 0, 2**32 - 1, where),
                    _hex(h, "head", HASH_BYTES, where),
                    _hex(h, "signature", None, where),
                )
        void_obj = obj.get("void")
        void = None
        if void_obj is not None:
            if not isinstance(void_obj, dict):
                raise TranscriptError("void: must be null or an object")
            name = _str(void_obj.get("fault"), "void.fault")
            try:
                fault = Fault[name.upper()]
            except KeyError:
                raise TranscriptError(f"void.fault: {name!r} is not a fault") from None
            culprits = _list(void_obj, "culprits", _str, "void")
            if any(c not in ps for c in culprits):
                raise TranscriptError("void.culprits: must be participants")
            void = VoidRecord(_int(void_obj, "round", 0, 2**32 - 1, "void"), fault, tuple(culprits))
        return cls(
            setup=setup,
            seat=seat,
            public_keys=public_keys,
            rounds=rounds,
            log=log,
            cards=cards,
            cards_signature=_hex(obj, "cards_signature", None),
            log_heads=heads,
            void=void,
        )

    # -- self-consistency ------------------------------------------------------------------------

    def heads(self) -> list[bytes]:
        """The head of the log after each prefix of it (``heads()[k]`` after ``k`` events).

        Also checks what the seat recorded itself: its own signed head is valid and is that of
        the log it holds (a seat signs the log it was sent). TranscriptError otherwise: such a
        file was not written by an honest seat, or was changed since.
        """
        out = [log_start(self.setup.ctx0)]
        head = out[0]
        for ev in self.log:
            head = log_step(head, ev)
            out.append(head)
        own = self.log_heads.get(self.id)
        if own is None:
            raise TranscriptError(
                f"this transcript contradicts itself: its own signed log head ({self.id}) is "
                "missing"
            )
        if not verify_log_head(
            self.public_keys[self.id], self.setup.ctx0, self.id, own.count, own.head, own.signature
        ):
            raise TranscriptError(
                "this transcript contradicts itself: its own log-head signature does not verify"
            )
        if (own.count, own.head) != (len(self.log), head):
            raise TranscriptError(
                "this transcript contradicts itself: its own signed log head is not that of the "
                "log it holds"
            )
        return out


def _round_json(rec: RoundRecord) -> dict[str, Any]:
    return {
        "round": rec.round,
        "cards": list(rec.cards),
        "own_seed": None if rec.own_seed is None else rec.own_seed.hex(),
        "own_seed_sent": rec.own_seed_sent,
        "commitments": {
            p: {"commitment": c.hex(), "signature": rec.commit_signatures.get(p, b"").hex()}
            for p, c in rec.commitments.items()
        },
        "reveals": {
            p: {"seed": s.hex(), "signature": rec.reveal_signatures.get(p, b"").hex()}
            for p, s in rec.seeds.items()
        },
    }


# -- reading JSON, field by field, naming the field on error ------------------------------------


def _path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _any(value: object, path: str) -> object:
    return value


def _str(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise TranscriptError(f"{path}: must be a string")
    return value


def _int_value(value: object, path: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise TranscriptError(f"{path}: must be a whole number {lo}..{hi}")
    return value


def _int(obj: Mapping[str, object], key: str, lo: int, hi: int, where: str = "") -> int:
    return _int_value(obj.get(key), _path(where, key), lo, hi)


def _hex(obj: Mapping[str, object], key: str, n: int | None, where: str = "") -> bytes:
    path = _path(where, key)
    value = obj.get(key)
    if not isinstance(value, str):
        raise TranscriptError(f"{path}: must be a hex string")
    try:
        b = bytes.fromhex(value)
    except ValueError:
        raise TranscriptError(f"{path}: not hex") from None
    if len(value) != 2 * len(b) or (n is not None and len(b) != n):
        raise TranscriptError(f"{path}: must be {n} bytes as hex, without spaces")
    return b


def _list(
    obj: Mapping[str, object], key: str, item: Callable[[object, str], Any], where: str = ""
) -> list[Any]:
    path = _path(where, key)
    value = obj.get(key)
    if not isinstance(value, list):
        raise TranscriptError(f"{path}: must be a list")
    return [item(v, f"{path}[{i}]") for i, v in enumerate(value)]


def _dict(obj: Mapping[str, object], key: str, where: str = "") -> dict[str, Any]:
    path = _path(where, key)
    value = obj.get(key)
    if not isinstance(value, dict):
        raise TranscriptError(f"{path}: must be an object")
    return value


def _round_from(obj: object, path: str, ps: tuple[str, ...]) -> RoundRecord:
    if not isinstance(obj, dict):
        raise TranscriptError(f"{path}: must be an object")
    number = _int(obj, "round", 0, 2**32 - 1, path)
    cards = _list(obj, "cards", lambda v, p: _int_value(v, p, 0, MAX_CARD - 1), path)
    if cards != sorted(set(cards)):
        raise TranscriptError(f"{path}.cards: must be distinct card ids, ascending")
    own = obj.get("own_seed")
    own_seed = None if own is None else _hex(obj, "own_seed", None, path)
    sent = obj.get("own_seed_sent")
    if not isinstance(sent, bool):
        raise TranscriptError(f"{path}.own_seed_sent: must be true or false")
    commitments: dict[str, bytes] = {}
    commit_sigs: dict[str, bytes] = {}
    for p, entry in _dict(obj, "commitments", path).items():
        where = f"{path}.commitments.{p}"
        if p not in ps or not isinstance(entry, dict):
            raise TranscriptError(f"{where}: must be a participant's entry")
        commitments[p] = _hex(entry, "commitment", None, where)
        commit_sigs[p] = _hex(entry, "signature", None, where)
    seeds: dict[str, bytes] = {}
    reveal_sigs: dict[str, bytes] = {}
    for p, entry in _dict(obj, "reveals", path).items():
        where = f"{path}.reveals.{p}"
        if p not in ps or not isinstance(entry, dict):
            raise TranscriptError(f"{where}: must be a participant's entry")
        seeds[p] = _hex(entry, "seed", None, where)
        reveal_sigs[p] = _hex(entry, "signature", None, where)
    return RoundRecord(
        number, tuple(cards), own_seed, sent, commitments, commit_sigs, seeds, reveal_sigs
    )


def _event_from(value: object, path: str) -> LogEvent:
    text = _str(value, path)
    try:
        data = bytes.fromhex(text)
        ev = decode_event(data)
    except (ValueError, UsageError):
        raise TranscriptError(f"{path}: not the hex of one log event") from None
    if ev.encode() != data or len(text) != 2 * len(data):
        raise TranscriptError(f"{path}: not the canonical hex of a log event")
    return ev


def json_text(obj: object, indent: int = 0) -> str:
    """JSON with lists of scalars on one line, so card lists and the log stay readable (also
    the layout of the files in protocol/vectors/)."""
    pad = " " * (indent + 2)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {json_text(v, indent + 2)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(obj, list) and any(isinstance(v, dict | list) for v in obj):
        items = [pad + json_text(v, indent + 2) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return json.dumps(obj, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# Verdicts


@dataclass(frozen=True, slots=True)
class Verdict:
    """What :func:`verify` found, in words a player can show someone else.

    ``status``: ``"fair"``; ``"unfair"`` — ``culprits`` broke the protocol (``@dealer`` is the
    host), ``reason`` says how, ``check`` which check caught it; or ``"void"`` — a round
    failed, the hand has no result, ``culprits`` are to blame (``proven`` says whether signed
    evidence shows it, or only the host's word that a message never came).
    """

    status: str
    reason: str
    game_id: bytes
    hand_no: int
    seat: int
    id: str
    rules: str
    players: int
    events: int
    rounds: int
    culprits: tuple[str, ...] = ()
    check: str = ""
    proven: bool = True
    outcome: str = ""
    partial: tuple[tuple[str, int], ...] = ()

    @property
    def fair(self) -> bool:
        return self.status == "fair"

    def text(self) -> str:
        """One plain line: the verdict, who is to blame, why."""
        hand = (
            f"hand {self.hand_no} of game {self.game_id.hex()[:8]}, {self.id} "
            f"(seat {self.seat + 1} of {self.players}), {self.rules}"
        )
        if self.fair:
            return (
                f"FAIR: {hand}: {self.events} log events and {self.rounds} "
                f"round{'s' if self.rounds != 1 else ''} checked; {self.outcome}"
                + "".join(f"; {c}" for c in self.caveats())
            )
        return f"{self.status.upper()}: {hand}: blame {_whos(self.culprits)}: {self.reason}"

    def caveats(self) -> list[str]:
        """One line for each seat whose signed head is of a prefix of the log: it confirmed
        the log only that far (a player who left, or whose program vanished, mid-hand)."""
        return [
            f"{pid} signed the log only to event {n} of {self.events} (left mid-hand)"
            for pid, n in self.partial
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "fair": self.fair,
            "culprits": list(self.culprits),
            "reason": self.reason,
            "check": self.check,
            "proven": self.proven,
            "game_id": self.game_id.hex(),
            "hand_no": self.hand_no,
            "seat": self.seat,
            "id": self.id,
            "rules": self.rules,
            "players": self.players,
            "events": self.events,
            "rounds": self.rounds,
            "outcome": self.outcome,
            "partial": dict(self.partial),
        }


class _Unfair(Exception):  # noqa: N818
    def __init__(self, check: str, reason: str, culprits: Sequence[str] = (DEALER,)) -> None:
        super().__init__(reason)
        self.check = check
        self.reason = reason
        self.culprits = tuple(culprits)


class _VoidHand(Exception):  # noqa: N818
    def __init__(self, reason: str, culprits: Sequence[str], proven: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.culprits = tuple(culprits)
        self.proven = proven


_ORDINAL_SUFFIX: Final = {1: "st", 2: "nd", 3: "rd"}


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else _ORDINAL_SUFFIX.get(n % 10, "th")
    return f"{n}{suffix}"


def _cards_text(cards: Iterable[int]) -> str:
    return " ".join(format_card(c) for c in cards)


class _Verifier:
    """One transcript's verification: signed heads, the cards' signature, then the replay."""

    def __init__(self, t: Transcript) -> None:
        self.t = t
        self.heads = t.heads()
        self.setup = t.setup
        self.pk = t.public_keys
        self.log = t.log
        self.i = 0  # the next log event to read
        self.own = 0  # how many of the seat's own cards are checked
        self.used = 0  # rounds used
        self.partial: list[tuple[str, int]] = []  # seats whose head is of a prefix, its length
        self.by_round: dict[int, list[RoundRecord]] = {}
        for rec in t.rounds:
            self.by_round.setdefault(rec.round, []).append(rec)

    def name(self, seat: int) -> str:
        seats = self.setup.seats
        return seats[seat] if 0 <= seat < len(seats) else f"seat {seat}"

    def describe(self, ev: LogEvent) -> str:
        if isinstance(ev, Draw):
            return f"{self.name(ev.seat)} takes {ev.n} card{'s' if ev.n != 1 else ''}"
        if isinstance(ev, TurnUp):
            return f"{format_card(ev.card)} is turned up"
        if isinstance(ev, Play):
            return f"{self.name(ev.seat)} plays {format_card(ev.card)}"
        if isinstance(ev, Reshuffle):
            return f"reshuffle round {ev.round} ({ev.n} cards)"
        if isinstance(ev, Suit):
            return f"{self.name(ev.seat)} names {SUIT_NAMES[ev.suit]}"
        if isinstance(ev, Action):
            blunder = " (a blunder)" if ev.move & BLUNDER_FLAG else ""
            return f"{self.name(ev.seat)}: {format_move(ev.move & ~BLUNDER_FLAG)}{blunder}"
        return f"the note {ev.label!r}"

    # -- the checks ------------------------------------------------------------------------------

    def run(self) -> Game:
        self.check_heads()
        self.check_cards_signature()
        return self.replay()

    def check_heads(self) -> None:
        t, ctx0 = self.t, self.setup.ctx0
        count, final = len(self.log), self.heads[-1]
        # In a void hand, a seat the host blames for the void (one that did not commit or
        # reveal: most often one whose link died) may well be gone before it could sign the
        # log. Its head cannot be asked for; the void's blame is then the host's word, which
        # the verdict says. The hand has no result that a different log could have changed.
        excused = set(t.void.culprits) - {DEALER} if t.void is not None else set()
        for p in (DEALER, *(p for p in self.setup.seats if p != t.id)):
            who = "the host" if p == DEALER else p
            h = t.log_heads.get(p)
            if h is None and p in excused:
                continue
            if h is None:
                what = "did not sign the log" if p == DEALER else f"did not pass on {p}'s log head"
                raise _Unfair("log-heads", f"the host {what}")
            if not verify_log_head(self.pk[p], ctx0, p, h.count, h.head, h.signature):
                raise _Unfair(
                    "log-heads", f"the host passed on a log head without {who}'s valid signature"
                )
            if p != DEALER and h.count < count and self.heads[h.count] == h.head:
                self.partial.append((p, h.count))  # p left after h.count events: it saw that far
                continue
            if (h.count, h.head) != (count, final):
                theirs = f"{h.count} events ending {h.head.hex()[:12]}"
                yours = f"{count} events ending {final.hex()[:12]}"
                if p == DEALER:
                    reason = f"the host signed a log of {theirs}, not the one it sent you ({yours})"
                else:
                    reason = (
                        f"the host showed {p} a different log: {p} signed a log of {theirs}; "
                        f"yours has {yours}"
                    )
                raise _Unfair("log-heads", reason)

    def check_cards_signature(self) -> None:
        t = self.t
        if not verify_cards(self.pk[DEALER], self.setup.ctx0, t.id, t.cards, t.cards_signature):
            raise _Unfair(
                "cards", "the host's signature over the cards it gave you does not verify"
            )

    def replay(self) -> Game:
        setup, log = self.setup, self.log
        game = setup.new_game()
        if not log or log[0] != setup.note:
            raise _Unfair(
                "log", "the log does not start with this hand's setup (rules, dealer, seats out)"
            )
        self.i = 1
        bound = 2 * len(log) + 8  # every step reads at least one event, or is a chance step
        for _ in range(bound):
            self.skip_notes()
            req = game.chance_request()
            if req is not None:
                self.chance_step(game, req[1])
                continue
            if game.result is not None:
                break
            self.move_step(game)
        if self.i < len(log):
            raise _Unfair(
                "log",
                f"the log goes on after the hand is over: {self.describe(log[self.i])}",
            )
        if self.t.void is not None:
            raise _Unfair(
                "abort",
                f"the host announced that round {self.t.void.round} failed, but the hand was "
                "played to its end",
            )
        if self.own < len(self.t.cards):
            extra = self.t.cards[self.own :]
            raise _Unfair(
                "cards",
                f"the host gave you {len(extra)} card{'s' if len(extra) != 1 else ''} more than "
                f"the hand dealt you ({_cards_text(extra)})",
            )
        unused = sorted(r for r in self.by_round if r >= self.used)
        if unused:
            raise _Unfair(
                "round", f"round {unused[0]} was run but its cards were never dealt (a redeal)"
            )
        return game

    def skip_notes(self) -> None:
        log = self.log
        while self.i < len(log) and isinstance(log[self.i], Note):
            if log[self.i] == self.setup.note or log[self.i].label == "setup":  # type: ignore[union-attr]
                raise _Unfair("log", "the log holds a second setup note")
            self.i += 1

    def chance_step(self, game: Game, cards: list[int]) -> None:
        k = self.used
        log = self.log
        what = "the deal" if k == 0 else f"reshuffle round {k}"
        head_before = self.heads[self.i]
        void = self.t.void
        if void is not None and void.round == k:
            if self.i != len(log):
                raise _Unfair(
                    "abort",
                    f"the host announced that round {k} failed, yet the log goes on: "
                    f"{self.describe(log[self.i])}",
                )
            self.void_round(k, cards, head_before)
        if k >= 1:
            want = Reshuffle(k, len(cards))
            if self.i >= len(log):
                raise _Unfair(
                    "log",
                    f"the stock is empty and {what} is due, but the log ends"
                    + ("" if void is None else f" (the host announced round {void.round} failed)"),
                )
            got = log[self.i]
            if got != want:
                if isinstance(got, Reshuffle):
                    reason = (
                        f"the log has {self.describe(got)} where the rules give "
                        f"{self.describe(want)}"
                    )
                else:
                    reason = (
                        f"the stock is empty and must be reshuffled (round {k}), but the log has "
                        f"{self.describe(got)}"
                    )
                raise _Unfair("log", reason)
        elif self.i >= len(log) and void is not None:
            raise _Unfair(
                "abort",
                f"the log stops before the deal; the host announced round {void.round} failed",
            )
        order = self.derive(k, cards, head_before)
        if k >= 1:
            self.i += 1  # the Reshuffle event
        self.used += 1
        events = game.apply_chance(order)
        self.expect(card_events(events, k)[1 if k >= 1 else 0 :], what)
        self.check_own(events)

    def derive(self, k: int, cards: list[int], head_before: bytes) -> list[int]:
        t, setup = self.t, self.setup
        recs = self.by_round.get(k, [])
        what = "the deal" if k == 0 else f"reshuffle round {k}"
        if not recs:
            raise _Unfair("round", f"{what} was dealt without its commit-reveal round")
        if len(recs) > 1:
            raise _Unfair("round", f"round {k} was run {len(recs)} times: a silent redeal")
        rec = recs[0]
        if list(rec.cards) != cards:
            left_out = sorted(set(cards) - set(rec.cards))
            added = sorted(set(rec.cards) - set(cards))
            pile = "the deck" if k == 0 else "the discard pile under its top card"
            diff = "; ".join(
                part
                for part in (
                    f"left out {_cards_text(left_out)}" if left_out else "",
                    f"added {_cards_text(added)}" if added else "",
                )
                if part
            )
            raise _Unfair("round", f"round {k} was announced for other cards than {pile}: {diff}")
        ctx = setup.ctx0 if k == 0 else reshuffle_context(setup.ctx0, k, head_before, rec.cards)
        ps = setup.participants
        missing = [p for p in ps if p not in rec.commitments]
        if missing:
            raise _Unfair(
                "round", f"round {k}: the host broadcast no commitment of {_whos(missing)}"
            )
        missing = [p for p in ps if p not in rec.seeds]
        if missing:
            raise _Unfair(
                "round", f"round {k}: the host did not reveal the seed of {_whos(missing)}"
            )
        if rec.own_seed is None:
            raise _Unfair("round", f"round {k} went ahead without your commitment")
        try:
            key = open_round(
                ctx,
                setup.seats,
                rec.commitments,
                rec.seeds,
                own=(t.id, rec.own_seed),
                public_keys=self.pk,
                reveal_signatures=rec.reveal_signatures,
            )
        except Blame as b:
            if b.fault is Fault.BAD_REVEAL:
                culprits = tuple(dict.fromkeys((*b.culprits, DEALER)))
                reason = f"round {k}: {_whos(b.culprits)} {b.fault.value}"
                if b.culprits != (DEALER,):
                    reason += ", and the host dealt on instead of voiding the hand"
                raise _Unfair("round", reason, culprits) from None
            detail = f" ({b.detail})" if b.detail else ""
            raise _Unfair(
                "round", f"round {k}: {_whos(b.culprits)} {b.fault.value}{detail}", b.culprits
            ) from None
        return shuffle(key, rec.cards)

    def void_round(self, k: int, cards: list[int], head_before: bytes) -> None:
        """Round ``k`` failed: check the host's account of it against the evidence."""
        t, setup = self.t, self.setup
        void = t.void
        assert void is not None
        recs = self.by_round.get(k, [])
        if len(recs) != 1:
            raise _Unfair(
                "abort",
                f"the host announced that round {k} failed, but it was run {len(recs)} times",
            )
        rec = recs[0]
        if list(rec.cards) != cards:
            raise _Unfair("round", f"round {k} was announced for other cards than the engine's")
        ctx = setup.ctx0 if k == 0 else reshuffle_context(setup.ctx0, k, head_before, rec.cards)
        ps = setup.participants
        for p, c in rec.commitments.items():
            csig = rec.commit_signatures.get(p, b"")
            if not verify_commitment(self.pk[p], ctx, p, c, csig):
                raise _Unfair(
                    "round",
                    f"round {k}: the host passed on a commitment of {p} without its valid "
                    "signature",
                )
        own_seed = rec.own_seed
        if (
            own_seed is not None
            and t.id in rec.commitments
            and rec.commitments[t.id] != commitment(ctx, t.id, own_seed)
        ):
            raise _Unfair("round", f"round {k}: the host {Fault.ALTERED_COMMITMENT.value} (yours)")
        for p, s in rec.seeds.items():
            cp = rec.commitments.get(p)
            rsig = rec.reveal_signatures.get(p, b"")
            if cp is None or not verify_reveal(self.pk[p], ctx, p, cp, s, rsig):
                raise _Unfair(
                    "round",
                    f"round {k}: the host passed on a seed of {_who(p)} without its valid "
                    "signature",
                )
        bad = [
            p
            for p in ps
            if p in rec.seeds and commitment(ctx, p, rec.seeds[p]) != rec.commitments[p]
        ]
        claimed = void.culprits
        if bad:
            if void.fault is not Fault.BAD_REVEAL or set(claimed) != set(bad):
                raise _Unfair(
                    "abort",
                    f"round {k}: the host blamed {_whos(claimed)} ({void.fault.value}), but the "
                    f"seed of {_whos(bad)} is what does not open its commitment",
                )
            raise _VoidHand(
                f"round {k}: {_whos(bad)} {Fault.BAD_REVEAL.value} (its own signature proves it); "
                "the hand has no result",
                bad,
                proven=True,
            )
        if void.fault is Fault.BAD_REVEAL:
            raise _Unfair(
                "abort",
                f"round {k}: the host voided the hand blaming {_whos(claimed)} for a bad seed, "
                "but every revealed seed opens its commitment",
            )
        if void.fault is Fault.MISSING_COMMITMENT:
            missing = [p for p in ps if p not in rec.commitments]
            own_did = rec.own_seed is not None
        elif void.fault is Fault.MISSING_REVEAL:
            missing = [p for p in ps if p not in rec.seeds]
            own_did = rec.own_seed_sent
            if len(rec.commitments) != len(ps):
                raise _Unfair("abort", f"round {k}: not every commitment of the round was shown")
        else:
            raise _Unfair(
                "abort",
                f"round {k}: the host voided the hand for a reason of its own: {void.fault.value}",
            )
        if not claimed or set(claimed) != set(missing):
            raise _Unfair(
                "abort",
                f"round {k}: the host blamed {_whos(claimed)} ({void.fault.value}), but what is "
                f"missing is from {_whos(missing)}",
            )
        if t.id in claimed and own_did:
            raise _Unfair("abort", f"round {k}: the host says you {void.fault.value}, but you did")
        if claimed == (DEALER,):
            raise _VoidHand(
                f"round {k}: the host (@dealer) {void.fault.value}: it aborted the hand itself "
                "(the last-revealer abort, which every player should count)",
                claimed,
                proven=True,
            )
        raise _VoidHand(
            f"round {k}: {_whos(claimed)} {void.fault.value}, says the host (a message that never "
            "came cannot be proven); the hand has no result",
            claimed,
            proven=False,
        )

    def move_step(self, game: Game) -> None:
        log = self.log
        if self.i >= len(log):
            raise _Unfair(
                "log",
                f"the log ends before the hand does ({self.name(game.to_act())} is to act)",
            )
        ev = log[self.i]
        self.i += 1
        if isinstance(ev, Play):
            seat, move = ev.seat, ev.card
        elif isinstance(ev, Suit):
            seat, move = ev.seat, SUIT_BASE + ev.suit
        elif isinstance(ev, Action):
            seat, move = ev.seat, ev.move
        elif isinstance(ev, Reshuffle):
            raise _Unfair(
                "log",
                f"the log reshuffles (round {ev.round}) while the stock still holds "
                f"{len(game.stock)} cards: the rules reshuffle only an empty stock",
            )
        elif isinstance(ev, Draw):
            raise _Unfair(
                "log",
                f"{self.describe(ev)} that no move gave it ({self.name(game.to_act())} was to act)",
            )
        else:
            raise _Unfair("log", f"{self.describe(ev)} where a move was due")
        if not 0 <= seat < self.setup.players:
            raise _Unfair(
                "move", f"the log has a move of seat {seat}; the hand has {self.setup.players}"
            )
        name = self.name(seat)
        try:
            if move & BLUNDER_FLAG:
                events = game.blunder(seat, move & ~BLUNDER_FLAG)
            else:
                events = game.apply(seat, move)
        except IllegalMove as e:
            if e.reason is Reason.NOT_IN_HAND:
                reason = (
                    f"{name} played {format_card(move)}, which is not in its hand as the seeds "
                    "dealt it"
                )
            elif e.reason is Reason.NOT_YOUR_TURN:
                reason = f"{name} moved ({format_move(move)}) on {self.name(game.turn)}'s turn"
            else:
                reason = f"{name}'s move {format_move(move)} breaks the rules: {e.reason.value}"
            raise _Unfair("move", reason) from None
        except ValueError as e:
            raise _Unfair("move", f"{name}'s blunder cannot be charged: {e}") from None
        self.expect(card_events(events), ev)
        self.check_own(events)

    def expect(self, want: list[LogEvent], step: LogEvent | str) -> None:
        """The next events of the log are ``want``, which the rules give for ``step`` (a move's
        event, or a chance step's name)."""
        log = self.log
        for w in want:
            if self.i < len(log) and log[self.i] == w:
                self.i += 1
                continue
            after = f"after {step if isinstance(step, str) else self.describe(step)}"
            if self.i >= len(log):
                raise _Unfair(
                    "log", f"the log ends where the rules give: {self.describe(w)} ({after})"
                )
            got = log[self.i]
            if isinstance(got, Draw) and isinstance(w, Draw) and got.seat == w.seat:
                reason = f"{self.name(got.seat)} took {got.n} cards where the rules give {w.n}"
            elif isinstance(got, TurnUp) and isinstance(w, TurnUp):
                reason = (
                    f"the card turned up is {format_card(got.card)}, but the derived "
                    f"stock's top card is {format_card(w.card)}"
                )
            else:
                reason = (
                    f"the log has: {self.describe(got)}, where the rules give: {self.describe(w)}"
                )
            raise _Unfair("log", f"{reason} ({after})")

    def check_own(self, events: list[Event]) -> None:
        mine = self.t.cards
        for c in _own_cards(events, self.t.seat):
            j = self.own
            if j >= len(mine):
                raise _Unfair(
                    "cards",
                    f"the seeds give you a {_nth(j + 1)} card, {format_card(c)}, but the host "
                    "never gave it to you",
                )
            if mine[j] != c:
                raise _Unfair(
                    "cards",
                    f"the {_nth(j + 1)} card the host gave you is {format_card(mine[j])}, but the "
                    f"seeds give {format_card(c)}",
                )
            self.own += 1


def _verdict(t: Transcript, status: str, reason: str, **kw: Any) -> Verdict:
    s = t.setup
    return Verdict(
        status=status,
        reason=reason,
        game_id=s.game_id,
        hand_no=s.hand_no,
        seat=t.seat,
        id=t.id,
        rules=s.rules.name,
        players=s.players,
        events=len(t.log),
        rounds=kw.pop("rounds", len(t.rounds)),
        **kw,
    )


def verify(t: Transcript) -> Verdict:
    """Check one seat's transcript of one hand, offline; see ``protocol/SPEC.md``.

    In order: every signed log head (the host's and every seat's) is valid and that of this
    log; the host's signature over this seat's cards is valid; the log starts with the hand's
    setup; then the hand is replayed through the rules engine: each round re-opened from its
    commitments, seeds and signatures (this seat's own seed unchanged) and its order derived,
    each move applied, and every public event and every card of this seat compared with what
    the engine makes of them. The first failure is the verdict. Raises TranscriptError only if
    the transcript contradicts itself (never for one read by :meth:`Transcript.from_json`).
    """
    v = _Verifier(t)
    try:
        game = v.run()
    except _Unfair as u:
        return _verdict(t, "unfair", u.reason, culprits=u.culprits, check=u.check)
    except _VoidHand as vh:
        return _verdict(t, "void", vh.reason, culprits=vh.culprits, check="abort", proven=vh.proven)
    result = game.result
    assert result is not None
    winner = t.setup.seats[result.placings[0]]
    outcome = f"{winner} won ({result.reason})"
    return _verdict(t, "fair", "", rounds=v.used, outcome=outcome, partial=tuple(v.partial))


def verify_all(transcripts: Sequence[Transcript]) -> list[Verdict]:
    """:func:`verify` each transcript, then compare those of the same hand with each other.

    Different logs, setups or rounds shown to different seats, or two different transcripts of
    one seat for one hand number (a hand dealt twice under one number), make every transcript
    involved unfair, blaming the host — unless it already has a verdict against someone.
    """
    verdicts = [verify(t) for t in transcripts]
    groups: dict[tuple[bytes, int], list[int]] = {}
    for i, t in enumerate(transcripts):
        groups.setdefault((t.setup.game_id, t.setup.hand_no), []).append(i)
    for members in groups.values():
        for a_i, a in enumerate(members):
            for b in members[a_i + 1 :]:
                reason = _disagreement(transcripts[a], transcripts[b])
                if reason is None:
                    continue
                for i in (a, b):
                    if verdicts[i].status != "unfair":
                        verdicts[i] = _verdict(
                            transcripts[i],
                            "unfair",
                            reason,
                            culprits=(DEALER,),
                            check="compare",
                            rounds=verdicts[i].rounds,
                        )
    return verdicts


def _disagreement(a: Transcript, b: Transcript) -> str | None:
    """Why two transcripts of the same hand number cannot both be true, or None."""
    hand = f"hand {a.setup.hand_no}"
    if a.seat == b.seat:
        if a == b:
            return None
        return f"{hand} was dealt twice under one number: {a.id} holds two different transcripts"
    sa, sb = a.setup, b.setup
    if (sa.seats, sa.dealer, sa.out, sa.rules_toml, sa.ctx0) != (
        sb.seats,
        sb.dealer,
        sb.out,
        sb.rules_toml,
        sb.ctx0,
    ):
        return f"the host gave {a.id} and {b.id} different setups for {hand}"
    if a.log != b.log:
        return f"the host showed {a.id} and {b.id} different logs of {hand}"
    ra = {r.round: r for r in a.rounds}
    for r in b.rounds:
        other = ra.get(r.round)
        if other is None:
            return f"the host ran round {r.round} for {b.id} but not for {a.id}"
        if (other.cards, other.commitments, other.seeds) != (r.cards, r.commitments, r.seeds):
            return (
                f"the host showed {a.id} and {b.id} different commitments or seeds in round "
                f"{r.round}"
            )
    if len(ra) != len(b.rounds) or a.void != b.void:
        return f"the host told {a.id} and {b.id} different things about {hand}'s rounds"
    return None


# ---------------------------------------------------------------------------------------------
# Aborts: counted and shown


@dataclass
class Aborts:
    """The void hands of a game: counted and shown, never redealt silently.

    The host reveals last, so it alone can see the order a round would give and abort it:
    that is its one lever over the deal, and each use of it shows up here (and as a hand
    number that produced no result).
    """

    hands: list[tuple[int, VoidRecord]] = field(default_factory=list)

    def record(self, hand_no: int, void: VoidRecord) -> None:
        self.hands.append((hand_no, void))

    @property
    def count(self) -> int:
        return len(self.hands)

    def by_culprit(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for _, void in self.hands:
            for p in void.culprits:
                out[p] = out.get(p, 0) + 1
        return out

    def describe(self) -> str:
        if not self.hands:
            return "no hand was aborted"
        who = ", ".join(f"{_who(p)} {n}" for p, n in sorted(self.by_culprit().items()))
        hands = "; ".join(
            f"hand {n}: round {v.round}, {_whos(v.culprits)} {v.fault.value}" for n, v in self.hands
        )
        s = "s" if self.count != 1 else ""
        return f"{self.count} hand{s} aborted (blame: {who}) — {hands}"
