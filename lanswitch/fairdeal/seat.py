"""A seat's side of a hand: it checks what it is sent as it arrives, commits, reveals and
signs, and keeps its transcript.

:class:`SeatRecorder` is what a client holds for the hand it sits in. It computes every
round's context from the log it holds, moves each round through :data:`.round.ROUND_FLOW`,
checks every announcement and every step with :mod:`.checks` (so a forged move, a fork of the
log or a changed commitment shows the moment it arrives, not only after the hand), commits to
a seed it is given and reveals it once, signs its moves and the head of its log, and writes
the :class:`~.transcript.Transcript` at the end. What it finds wrong is kept in
:attr:`SeatRecorder.problems` for the screen; the verdict finds the same things again from the
transcript. Seeds and keys are inputs: nothing here reads a clock or the OS's randomness.

A recorder may begin in the middle of a hand its seat has been playing: the seat's program
ended (a crash, a closed terminal) and a new one took the seat back with the same session key
(``lanswitch.seatkeep``), and the host replays the hand to it. A round committed to by the
earlier run shows, once fixed, a commitment this recorder did not make but its key signed:
that commitment is the seat's own (:meth:`SeatRecorder._fixed`). Its seed went with the
earlier run; if that run revealed it, the host reveals it with everyone's after the hand,
under the seat's own signature, and the recorder takes it back from there
(:meth:`SeatRecorder.on_reveals`) — so its transcript holds its own seed for every round it
took part in, as one kept by a single run does. A round the earlier run committed to and never
revealed fails, blamed on this seat, as it would have without the restart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .checks import Presence, check_announcement, check_move, check_same_round
from .log import BY_SEAT, Log, LogEvent, Move, Shuffle
from .primitives import (
    DEALER,
    HASH_BYTES,
    SEED_BYTES,
    PrivateKeyLike,
    commitment,
    commitment_message,
    log_head_message,
    move_message,
    private_key,
    public_bytes,
    reveal_message,
    sign,
    sign_own,
    verify,
)
from .round import Announcement, RoundEvent, RoundFlowError, RoundState, VoidRecord, next_state
from .setup import HandSetup
from .transcript import Dispute, RoundRecord, SignedHead, Transcript

__all__ = ["Commit", "Reveal", "SeatRecorder"]


@dataclass(frozen=True, slots=True)
class Commit:
    """What the seat sends for a round's stage 1: its commitment and commit signature."""

    round: int
    commitment: bytes
    signature: bytes


@dataclass(frozen=True, slots=True)
class Reveal:
    """What the seat sends the host alone for a round's stage 3: its seed, signed."""

    round: int
    seed: bytes
    signature: bytes


@dataclass
class _Round:
    """A round as the seat follows it (see :class:`~.transcript.RoundRecord`)."""

    round: int
    at: int
    first: Announcement
    announces: list[Announcement]
    state: RoundState = RoundState.ANNOUNCED
    own_seed: bytes | None = None
    own_commitment: bytes | None = None
    revealed: Reveal | None = None
    seeds: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)
    refused: bool = False  # the seat found this round wrong and takes no part in it
    earlier: bool = False  # committed to by an earlier run of this seat's program (module doc)

    def record(self) -> RoundRecord:
        return RoundRecord(
            self.round,
            self.at,
            tuple(self.announces),
            self.own_seed,
            self.revealed is not None,
            dict(self.seeds),
        )


class SeatRecorder:
    """One seat's side of one hand (see the module docstring)."""

    def __init__(self, setup: HandSetup, seat: int, key: PrivateKeyLike) -> None:
        if not 0 <= seat < setup.players or setup.host_runs(seat):
            raise ValueError(f"seat {seat} is not a person's seat of this hand")
        self.setup = setup
        self.seat = seat
        self.id = setup.seats[seat]
        self.key = private_key(key)
        if public_bytes(self.key) != setup.keys[self.id]:
            raise ValueError("the hand gives this seat another key than ours")
        self.log = Log(setup.ctx0, [setup.note])  # both ends begin the log with the setup
        self.presence = Presence(setup)
        self.rounds: list[_Round] = []
        self.cards: list[int] = []
        self.cards_signature = b""
        self.heads: dict[str, SignedHead] = {}
        self.void: VoidRecord | None = None
        self.disputes: list[Dispute] = []
        self.problems: list[str] = []
        """What this seat found wrong, in the order found (the host is to blame for each)."""

    def _problem(self, text: str) -> str:
        self.problems.append(text)
        return text

    # -- rounds ----------------------------------------------------------------------------------

    def on_announcement(
        self, ann: Announcement, fresh_seed: Callable[[], bytes]
    ) -> Commit | Reveal | None:
        """Take an announcement; returns what to send the host (or None). ``fresh_seed`` gives
        this seat's seed for a round it commits to (asked once per round)."""
        r = ann.round
        rec = next((x for x in self.rounds if x.round == r), None)
        if rec is None:
            return self._new_round(ann, fresh_seed)
        earlier = list(rec.announces)
        if ann not in rec.announces:
            rec.announces.append(ann)  # kept whatever it says: a contradiction is evidence
        problem = next(
            (x for x in (check_same_round(e, ann) for e in earlier) if x is not None), None
        )
        if problem is not None:
            rec.refused = True
            self._problem(problem)
            return None
        if rec.refused:
            return None
        if not ann.fixed:  # stage 1 again (a resume): the same commitment again
            return self._commit(rec)
        return self._fixed(rec, ann)

    def _new_round(self, ann: Announcement, fresh_seed: Callable[[], bytes]) -> Commit | None:
        r, log = ann.round, self.log
        last = self.rounds[-1] if self.rounds else None
        rec = _Round(r, log.count, ann, [ann])
        self.rounds.append(rec)
        problem = None
        if r != (0 if last is None else last.round + 1):
            problem = f"the host announced round {r} out of turn"
        elif last is not None and last.state is RoundState.ANNOUNCED:
            last.state = next_state(last.state, RoundEvent.WITHDRAW)
        elif last is not None and last.state is RoundState.FIXED:
            problem = (
                f"the host announced round {r} while round {last.round} waited for seeds: a "
                "round whose commitments are fixed must be dealt from or fail"
            )
        if problem is None:
            problem = check_announcement(
                self.setup, ann, log.count, log.head, self.presence.present_mask()
            )
        if problem is None and ann.fixed:
            problem = f"round {r} was announced with every commitment before anyone committed"
        if problem is not None:
            rec.refused = True
            self._problem(problem)
            return None
        if not ann.mask >> self.seat & 1:
            return None  # away, as the log says: not a participant of this round
        rec.own_seed = fresh_seed()
        rec.own_commitment = commitment(ann.ctx, self.id, rec.own_seed)
        return self._commit(rec)

    def _commit(self, rec: _Round) -> Commit | None:
        if rec.own_seed is None or rec.own_commitment is None:
            return None
        c = rec.own_commitment
        return Commit(rec.round, c, sign(self.key, commitment_message(rec.first.ctx, self.id, c)))

    def _fixed(self, rec: _Round, ann: Announcement) -> Reveal | None:
        if rec.state is RoundState.ANNOUNCED:
            problem = check_announcement(
                self.setup, ann, rec.at, self.log.heads[rec.at], rec.first.mask
            )
            if problem is not None:
                rec.refused = True
                self._problem(problem)
                return None
            rec.state = next_state(rec.state, RoundEvent.FIX)
        if rec.own_seed is None:
            return None  # not a participant (or committed to by an earlier run: no seed here)
        mine = ann.commitments.get(self.id)
        if mine is not None and mine[0] != rec.own_commitment and self._signed_by_us(rec, mine):
            # Not the commitment this recorder made, but one our key signed for this round: an
            # earlier run of this seat's program made it (module docstring). It stands; the
            # seed this recorder drew was never taken, and the earlier one is not known here.
            rec.own_seed, rec.own_commitment, rec.earlier = None, mine[0], True
            return None
        if mine is None or mine[0] != rec.own_commitment:
            rec.refused = True
            self._problem(f"round {rec.round}: the host changed or dropped our commitment")
            return None
        if rec.revealed is None:  # a seed is revealed for a round once (and sent again as is)
            c = rec.own_commitment
            assert c is not None
            msg = reveal_message(rec.first.ctx, self.id, c, rec.own_seed)
            rec.revealed = Reveal(rec.round, rec.own_seed, sign(self.key, msg))
        return rec.revealed

    def _signed_by_us(self, rec: _Round, mine: tuple[bytes, bytes]) -> bool:
        """Whether ``mine`` (a commitment and its signature) is one this seat's key signed for
        round ``rec``."""
        c, signature = mine
        if len(c) != HASH_BYTES:
            return False
        message = commitment_message(rec.first.ctx, self.id, c)
        return verify(self.setup.keys[self.id], message, signature)

    def awaiting_seeds(self) -> bool:
        """Whether a round this seat's seed went into still waits for the hand's seeds (after
        the hand its head of the log follows them). A round committed to by an earlier run
        counts once it was dealt: that run's seed opened it."""
        return any(
            (r.revealed is not None or (r.earlier and r.state is RoundState.DEALT)) and not r.seeds
            for r in self.rounds
        )

    def owes_seed(self) -> bool:
        """Whether this seat has committed in the hand's last round and not yet revealed: its
        seed can come only from this program, so leaving now would fail the round and void the
        hand (blamed on this seat). A client about to leave waits for the round's commitments
        to be shown and its seed to go first — briefly: the host may never show them."""
        rec = self.rounds[-1] if self.rounds and self.void is None else None
        return (
            rec is not None
            and not rec.refused
            and rec.own_seed is not None
            and rec.revealed is None
            and rec.state is RoundState.ANNOUNCED
        )

    def withhold(self, round_no: int) -> None:
        """This seat did not send its seed for round ``round_no`` after all (its program gave
        up, or a test plays a seat that withholds): its transcript must not say it did."""
        for rec in self.rounds:
            if rec.round == round_no:
                rec.revealed = None

    def on_void(self, record: VoidRecord) -> None:
        """The host aborted the hand: round ``record.round`` failed."""
        self.void = record
        rec = next((x for x in self.rounds if x.round == record.round), None)
        if rec is None:
            self._problem(f"the host aborted round {record.round}, which it never announced")
            return
        try:
            rec.state = next_state(rec.state, RoundEvent.FAIL)
        except RoundFlowError as e:
            self._problem(f"round {record.round}: {e}")

    def on_reveals(self, round_no: int, seeds: Mapping[str, tuple[bytes, bytes]]) -> None:
        """After the hand: the seeds the host received in round ``round_no``. In a round an
        earlier run of this seat committed to, its own seed is taken back from them, if it
        opens that commitment under this seat's own signature (module docstring)."""
        rec = next((x for x in self.rounds if x.round == round_no), None)
        if rec is None:
            return
        rec.seeds = dict(seeds)
        got = rec.seeds.get(self.id)
        c = rec.own_commitment
        if not rec.earlier or rec.own_seed is not None or got is None or c is None:
            return
        seed, signature = got
        if len(seed) != SEED_BYTES or commitment(rec.first.ctx, self.id, seed) != c:
            return
        message = reveal_message(rec.first.ctx, self.id, c, seed)
        if verify(self.setup.keys[self.id], message, signature):
            rec.own_seed = seed
            rec.revealed = Reveal(rec.round, seed, signature)

    # -- steps -----------------------------------------------------------------------------------

    def on_step(self, events: Iterable[LogEvent], own_cards: Iterable[int]) -> list[str]:
        """Take one step's log events and the cards it gave this seat; returns the problems
        found in them (also kept in :attr:`problems`)."""
        found: list[str] = []
        log, setup = self.log, self.setup
        for ev in events:
            k = log.count
            problem: str | None = None
            if isinstance(ev, Move):
                problem = check_move(setup, self.presence, k, log.head, ev)
            elif isinstance(ev, Shuffle):
                problem = self._dealt(ev, k)
            else:
                problem = self.presence.feed(k, ev, log.heads)
            log.append(ev)
            if problem is not None:
                found.append(self._problem(f"log event {k}: {problem}"))
        self.cards.extend(own_cards)
        return found

    def _dealt(self, ev: Shuffle, k: int) -> str | None:
        """A Shuffle event: the round it names must be the last announced, fixed, at this
        very position of the log."""
        rec = self.rounds[-1] if self.rounds else None
        if rec is None or rec.round != ev.round:
            return f"the log deals from round {ev.round}, which was not the round announced last"
        if rec.state is not RoundState.FIXED:
            return f"the log deals from round {ev.round} before its commitments were all shown"
        if (rec.at, rec.first.mask, len(rec.first.cards)) != (k, ev.mask, ev.n):
            return f"the log deals from round {ev.round} at another place or for other cards"
        rec.state = next_state(rec.state, RoundEvent.DEAL)
        return None

    def sign_move(self, move: int) -> bytes:
        """This seat's signature of ``move`` on the log as it holds it now."""
        msg = move_message(self.setup.ctx0, self.log.count, self.log.head, self.seat, BY_SEAT, move)
        return sign_own(self.key, msg)

    def dispute(self, event: int, text: str) -> None:
        """Record what this seat saw itself at log event ``event`` (see :class:`Dispute`)."""
        self.disputes.append(Dispute(event, text))
        self._problem(text)

    # -- after the hand --------------------------------------------------------------------------

    def on_cards_signature(self, signature: bytes) -> None:
        self.cards_signature = signature

    def sign_head(self) -> SignedHead:
        """This seat's signature over the head of the log it holds."""
        head, count = self.log.head, self.log.count
        sig = sign(self.key, log_head_message(self.setup.ctx0, self.id, count, head))
        return SignedHead(count, head, sig)

    def on_heads(self, heads: Mapping[str, SignedHead]) -> None:
        """The heads the host passed on. This seat's own is the one it signs itself: the host
        may not have it (it came too late, or never reached the host) or pass on another."""
        self.heads = {p: h for p, h in heads.items() if p == DEALER or p in self.setup.keys}
        self.heads[self.id] = self.sign_head()

    def transcript(self) -> Transcript:
        """What this seat keeps of the hand (its names are the setup's: signed, not kept)."""
        return Transcript(
            setup=self.setup,
            seat=self.seat,
            rounds=tuple(rec.record() for rec in self.rounds),
            log=tuple(self.log.events),
            cards=tuple(self.cards),
            cards_signature=self.cards_signature,
            log_heads=dict(self.heads),
            void=self.void,
            disputes=tuple(self.disputes),
        )
