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

**What the earlier run revealed in** (:class:`RevealedRounds`). A round's context is the same
in any replay of the same hand up to that round, and a new run remembers nothing the earlier
one saw: so a host that knows the seat's seed — the earlier run revealed it — could deal the
hand again to the new run with the seat's genuine commitment and a new one of its own, chosen
after it knew that seed, and so choose the deal. So before this seat's seed for a round leaves
its program, the round's fixed announcement — the host's signed statement of every commitment
the seed went in with — is kept on disk (the session's :attr:`~lanswitch.session.Session.keep`,
written by the client shell before the ``reveal`` is sent), and a new run gets the kept rounds
(``earlier``). A round whose context is among them must be replayed with exactly those
commitments: the new run draws no seed for it, and takes its seed back from the reveals only
if the fixed announcement is the kept one. Any other announcement of it is the host's signed
contradiction of what it announced before: the kept announcement goes into the round's
record, so the transcript proves it (UNFAIR, the host to blame) to ``lanswitch verify`` too.
A round not among them was never revealed in by the earlier run of this hand (the record is
written before the seed leaves, and it holds the last hand the seat revealed in): its
commitment is still the seat's, but its seed is never taken back — the host cannot honestly
hold it, and a seed it shows there is one it kept from another hand (an older one, dealt
again: an honest host replays only the hand in play, or the one just ended).
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
from .transcript import (
    Dispute,
    RoundRecord,
    SignedHead,
    Transcript,
    TranscriptError,
    announcement_from_json,
    announcement_json,
)

__all__ = ["Commit", "Reveal", "RevealedRounds", "SeatRecorder"]


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


@dataclass(frozen=True, slots=True)
class RevealedRounds:
    """The rounds of one hand in which this seat's program revealed its seed: each one's fixed
    announcement (stage 3, signed by the host), which its seed went in with. Kept on disk
    before each seed leaves (module docstring), only for the last hand the seat revealed in."""

    game_id: bytes
    hand_no: int
    rounds: tuple[Announcement, ...] = ()

    def with_round(self, fixed: Announcement) -> RevealedRounds:
        """These and ``fixed`` (itself, if a round of that context is here already)."""
        if any(a.ctx == fixed.ctx for a in self.rounds):
            return self
        return RevealedRounds(self.game_id, self.hand_no, (*self.rounds, fixed))

    def to_json(self) -> dict[str, object]:
        return {
            "game_id": self.game_id.hex(),
            "hand_no": self.hand_no,
            "rounds": [announcement_json(a) for a in self.rounds],
        }

    @classmethod
    def from_json(cls, obj: object) -> RevealedRounds:
        """What :meth:`to_json` wrote (ValueError if it is not that)."""
        if not isinstance(obj, dict):
            raise ValueError("revealed rounds: must be an object")
        game_id, hand_no, rounds = obj.get("game_id"), obj.get("hand_no"), obj.get("rounds")
        if not isinstance(game_id, str) or not isinstance(rounds, list):
            raise ValueError("revealed rounds: a game id and a list of rounds")
        if not isinstance(hand_no, int) or isinstance(hand_no, bool) or not 0 <= hand_no < 2**32:
            raise ValueError("revealed rounds: a hand number")
        try:
            fixed = tuple(announcement_from_json(a, f"rounds[{i}]") for i, a in enumerate(rounds))
        except TranscriptError as e:
            raise ValueError(f"revealed rounds: {e}") from None
        return cls(bytes.fromhex(game_id), hand_no, fixed)


def _same_statement(a: Announcement, b: Announcement) -> bool:
    """Whether two announcements state the same thing (what the host's signature covers: the
    round, its stage and context, every commitment in order), whatever their signatures."""
    return (a.round, a.fixed, a.ctx) == (b.round, b.fixed, b.ctx) and [
        (p, c) for p, (c, _) in a.commitments.items()
    ] == [(p, c) for p, (c, _) in b.commitments.items()]


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
    kept: bool = False  # ... which revealed its seed in it, by its record: the seed comes back

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

    def __init__(
        self,
        setup: HandSetup,
        seat: int,
        key: PrivateKeyLike,
        earlier: Iterable[Announcement] = (),
    ) -> None:
        """``earlier``: the rounds an earlier run of this seat's program revealed its seed in
        (:class:`RevealedRounds`; those of another hand are no matter, nor any not signed by
        this hand's host)."""
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
        self.earlier: dict[bytes, Announcement] = {
            a.ctx: a
            for a in earlier
            if a.fixed and self.id in a.commitments and a.signed_by(setup.keys[DEALER], setup.ctx0)
        }
        """The rounds of this hand an earlier run revealed its seed in, by context."""

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
        kept = self.earlier.get(ann.ctx)
        if kept is not None:
            # A round an earlier run of this program revealed its seed in (module docstring):
            # the seat's part in it is that run's, and no new seed goes in. The host may only
            # announce it as it did then.
            rec.earlier, rec.own_commitment = True, kept.commitments[self.id][0]
            if check_same_round(kept, ann) is not None:
                self._contradicted(rec, kept)
            return None
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
        kept = self.earlier.get(rec.first.ctx)
        if kept is not None and rec.earlier:
            # Revealed in by an earlier run: its seed comes back only with the very commitments
            # it went in with.
            if _same_statement(kept, ann):
                rec.kept = True
            else:
                self._contradicted(rec, kept)
            return None
        if rec.own_seed is None:
            return None  # not a participant (or committed to by an earlier run: no seed here)
        mine = ann.commitments.get(self.id)
        if mine is not None and mine[0] != rec.own_commitment and self._signed_by_us(rec, mine):
            # Not the commitment this recorder made, but one our key signed for this round: an
            # earlier run of this seat's program made it (module docstring), and never revealed
            # its seed here by its record. It stands; the seed this recorder drew was never
            # taken, and the earlier one is not known here, nor taken back.
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

    def _contradicted(self, rec: _Round, kept: Announcement) -> None:
        """The host announced round ``rec`` otherwise than it did to the earlier run of this
        program that revealed its seed in it: its kept announcement goes into the round's
        record beside the new one — the host's two signed statements of one round that
        contradict each other, which every check of the transcript finds — and the seat takes
        no further part in it."""
        if kept not in rec.announces:
            rec.announces.append(kept)
        rec.refused, rec.kept = True, False
        self._problem(
            f"the host replayed round {rec.round} of this hand with other commitments than "
            "the ones your earlier run revealed its seed in: it changed the deal (its own two "
            "signed announcements show it)"
        )

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
        earlier run of this seat revealed its seed in, by its kept record, and that the host
        replayed with the very commitments it went in with, its own seed is taken back from
        them, if it opens that commitment under this seat's own signature (module docstring).
        A seed of this seat's in a round an earlier run only committed to is never taken."""
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
        if not verify(self.setup.keys[self.id], message, signature):
            return
        if rec.kept:
            rec.own_seed = seed
            rec.revealed = Reveal(rec.round, seed, signature)
        elif not rec.refused:
            self._problem(
                f"round {round_no}: the host revealed a seed of yours that your earlier run "
                "never revealed in this hand, by its own record: it dealt again a hand that run "
                "had played, where it knew your seed"
            )

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
