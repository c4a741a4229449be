"""A dealer-blind hand: its public record, and the engine that follows it on public
information.

Theory of operation
-------------------
Everyone at a blind table — the host and each player — runs a :class:`Follower`: the rules
engine in its blind form (:mod:`.positions`) fed the hand's public steps, checking each as it
comes. The steps are a shuffle's passes (:meth:`Follower.on_pass`: its author's signature,
and the points it gave — the right count, valid, distinct), a position opened to everyone
(:meth:`Follower.open_public`: every participant's signed key of it, and the card under it
must be one this shuffle holds and not yet opened), and a move (:meth:`Follower.on_move`: the
mover's signature; a card laid comes with every key of its position, must open to that card,
and must be a hidden card of the mover's own hand). Everything else a move does is the
engine's to judge, on what it can see; what it cannot see — "I have nothing I can lay" — is
judged after the hand, when every seed is revealed (:mod:`.check`).

One participant's secret side, which runs a follower of its own, is :mod:`.holder`'s
(:class:`~.holder.Holder`).

Pure: seeds and keys come in as bytes; no clock, no socket.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from ...errors import RemoteError
from ...game import HIDDEN_BASE, MAX_CARD, Event, Game, IllegalMove
from ...rules import RuleSet
from ..log import log_start, log_step
from ..primitives import (
    DEALER,
    HASH_BYTES,
    FairnessError,
    UsageError,
    check_id,
    enc,
    need_bytes,
    u8,
    u16,
    u32,
)
from ..primitives import verify as verify_signature
from ..setup import HandSetup
from . import crypto
from .positions import Positions, apply_opened, drawn_positions, next_turn_up

__all__ = [
    "BlindFault",
    "BlindSetup",
    "Cheat",
    "Follower",
    "MoveRecord",
    "Opening",
    "Share",
    "ShuffleRecord",
    "blind_setup",
    "claim_message",
    "move_message",
    "shuffle_context",
]

_NO_HIDDEN: Final = 0xFFFFFFFF


class BlindFault(enum.Enum):
    """How a participant broke the blind deal. The value is the text a player reads."""

    BAD_PASS = "gave a shuffle pass that is not its input locked and reordered"
    BAD_KEY = "released a position key that its seed does not make"
    BAD_SIGNATURE = "sent a message whose signature does not verify"
    NOT_ITS_CARD = "laid a card that was never in its hand"
    WRONG_CARD = "laid a card its position's keys do not open to"
    ILLEGAL_MOVE = "made a move the rules do not allow"
    WITHHELD = "withheld what the blind deal needs from it"
    UNFOUNDED_CLAIM = "stopped the hand saying another broke the deal, which nothing bears out"
    """A participant's signed claim (``blind_seeds`` with a fault, mid-hand) that the check
    after the hand, with every seed, does not bear out: the stop is the claimant's, proven by
    its own signature (issue 25: a claim needs proof, or it costs the claimant)."""
    FALSE_CLAIM = "said you withheld your part of the deal, but your client had sent it"
    NOT_THE_TABLE = "dealt a hand that is not the table it showed"
    """Only a participant's own record can say so: the ``hand`` message disagreed with the
    lobby its client held (``handcheck``: keys, names, timer, who the match puts out) — the
    host said two things at once, and the hand's public file cannot show it."""
    """Only a participant's own record can say so (a client's verdict, never the host's):
    the host stopped the hand blaming this participant for a step its client had sent."""


class Cheat(FairnessError, RemoteError):  # noqa: N818  (what it is: a participant caught cheating)
    """A participant broke the blind deal: ``culprit`` (``@dealer`` = the host), and whether
    its own signatures prove it to anyone (``proven``) or it is this follower's finding."""

    def __init__(self, fault: BlindFault, culprit: str, detail: str = "", *, proven: bool = True):
        self.fault = fault
        self.culprit = culprit
        self.detail = detail
        self.proven = proven
        who = culprit or "a participant"  # keys that open nothing: whose, only seeds tell
        super().__init__(f"{who} {fault.value}" + (f": {detail}" if detail else ""))


# ---------------------------------------------------------------------------------------------
# Setup and the public record


@dataclass(frozen=True)
class BlindSetup:
    """What everyone at a blind table agrees before a hand: ``ctx0`` binds every signature and
    card point to the hand; ``people`` are the seats with a person (and a key of its own); the
    other seats are the host's bots, owned by ``@dealer``."""

    ctx0: bytes
    rules: RuleSet
    seats: tuple[str, ...]
    people: frozenset[int]
    keys: Mapping[str, bytes]
    dealer: int = 0
    out: tuple[int, ...] = ()
    hand_no: int = 1
    hand: HandSetup | None = field(default=None, compare=False, repr=False)
    """The setup it was made from (:func:`blind_setup`): what the hand's file keeps, so that a
    reader recomputes ``ctx0`` from everything it shows."""

    def __post_init__(self) -> None:
        need_bytes("ctx0", self.ctx0, HASH_BYTES)
        for s in self.seats:
            check_id(s)
        for p in (*self.participants,):
            need_bytes(f"the key of {p}", self.keys.get(p, b""), 32)

    @property
    def players(self) -> int:
        return len(self.seats)

    def new_game(self) -> Game:
        """The rules engine for this hand, in its blind form, awaiting the deal."""
        return Game(
            self.rules,
            self.players,
            dealer=self.dealer,
            out=self.out,
            hand_no=self.hand_no,
            blind=True,
        )

    @property
    def participants(self) -> tuple[str, ...]:
        """The people in seat order, then ``@dealer``: the order of every pass."""
        return (*(self.seats[s] for s in sorted(self.people)), DEALER)

    def owner(self, seat: int) -> str:
        """Who holds ``seat``'s cards: its person, or ``@dealer`` for a bot."""
        return self.seats[seat] if seat in self.people else DEALER


def blind_setup(setup: HandSetup) -> BlindSetup:
    """The blind setup of a hand set up as the commit-reveal deal sets one up (the ``hand``
    message): its ``ctx_0`` is ``H("ctx0", ctx_0 ‖ head_1)`` of the setup — ``head_1`` the head
    of the commit-reveal log after its setup note —, so that everything the setup binds — the
    game, the hand, the seats, their keys and names, the rules, the dealer, the seats out, the
    timer — binds the blind hand, and no blind signature is one of the commit-reveal deal's."""
    head1 = log_step(log_start(setup.ctx0), setup.note)
    return BlindSetup(
        crypto._h("ctx0", setup.ctx0, head1),
        setup.rules,
        setup.seats,
        setup.humans,
        setup.keys,
        dealer=setup.dealer,
        out=setup.out,
        hand_no=setup.hand_no,
        hand=setup,
    )


def shuffle_context(ctx0: bytes, index: int, cards: Sequence[int]) -> bytes:
    """``H("shuffle", ctx_0 ‖ u32(k) ‖ u16(n) ‖ u8(card)…)``: the ``k``-th shuffle of the
    hand, of these cards (sorted): what every pass, key and release of it is bound to."""
    return crypto._h("shuffle", ctx0, u32(index), u16(len(cards)), bytes(sorted(cards)))


def move_message(ctx0: bytes, seq: int, seat: int, by: str, move: int, hidden: int) -> bytes:
    """``enc("sign/move") ‖ ctx_0 ‖ u32(seq) ‖ u8(seat) ‖ enc(by) ‖ u32(move) ‖ u32(hidden)``:
    the ``seq``-th move of the hand (``hidden``: the hidden card a laid card was, or
    ``0xFFFFFFFF``), signed by the seat's owner."""
    return (
        crypto._label("sign/move")
        + need_bytes("ctx0", ctx0, HASH_BYTES)
        + u32(seq)
        + u8(seat)
        + enc(check_id(by, dealer_ok=True))
        + u32(move)
        + u32(_NO_HIDDEN if hidden < 0 else hidden)
    )


def claim_message(ctx0: bytes, pid: str, fault: str, detail: str) -> bytes:
    """``enc("sign/claim") ‖ ctx_0 ‖ enc(id) ‖ enc(fault) ‖ enc(utf-8 detail)``: ``id`` stops
    the hand mid-play, saying another broke the deal (``fault``, a ``BlindFault`` name in lower
    case; ``detail``, its words). Signed, so that a claim nothing in the hand's record bears
    out is proven its claimant's to anyone (``UNFOUNDED_CLAIM``), and the host cannot make one
    up in another's name."""
    return (
        crypto._label("sign/claim")
        + need_bytes("ctx0", ctx0, HASH_BYTES)
        + enc(check_id(pid, dealer_ok=True))
        + enc(fault)
        + enc(detail.encode("utf-8"))
    )


@dataclass(frozen=True, slots=True)
class Share:
    """``sender``'s key of one position, signed (``to``: the drawer it was released to, or
    ``""`` when made public)."""

    sender: str
    to: str
    key: bytes
    signature: bytes


@dataclass
class ShuffleRecord:
    """One shuffle as everyone sees it: its context, cards (sorted), the pass order, the
    hidden-card base of its positions, and every pass given so far."""

    index: int
    ctx: bytes
    cards: tuple[int, ...]
    order: tuple[str, ...]
    base: int
    passes: dict[tuple[str, int], tuple[bytes, ...]] = field(default_factory=dict)
    signatures: dict[tuple[str, int], bytes] = field(default_factory=dict)
    opened: dict[int, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.cards)

    def next_pass(self) -> tuple[str, int] | None:
        """``(participant, pass)`` awaited next, or None when both passes are done."""
        for number in (1, 2):
            for pid in self.order:
                if (pid, number) not in self.passes:
                    return pid, number
        return None

    def last_output(self, points: crypto.CardPoints) -> list[bytes]:
        """The input of the next pass (the card points, before any)."""
        done = [(p, k) for k in (1, 2) for p in self.order if (p, k) in self.passes]
        return list(self.passes[done[-1]]) if done else points.deck(self.cards)

    def deck(self) -> tuple[bytes, ...]:
        """The shuffled, locked deck: the last key pass's output."""
        return self.passes[(self.order[-1], 2)]


@dataclass(frozen=True, slots=True)
class Opening:
    """A position opened to everyone: the starter, or a card as it was laid."""

    shuffle: int
    position: int
    card: int
    shares: tuple[Share, ...]


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """A move as signed: ``hidden`` is the hidden card a laid card was (-1 otherwise)."""

    seq: int
    seat: int
    by: str
    move: int
    hidden: int
    signature: bytes
    opening: Opening | None = None


Step = tuple[str, int]
"""A step of the hand in order: ``("shuffle", k)`` or ``("move", seq)``."""


# ---------------------------------------------------------------------------------------------
# The follower: the engine on public information, every step checked


class Follower:
    """The hand as one participant follows it (module docstring). ``known`` cards of its own
    are revealed in its engine by :meth:`know`; everything else stays hidden."""

    def __init__(
        self,
        setup: BlindSetup,
        points: crypto.CardPoints | None = None,
        *,
        every: bool = True,
    ) -> None:
        """``every``: put every point of every pass through the group test
        (:func:`.crypto.point_problem`, ~40 µs a point) as it comes — a file's replay. Else
        (a live participant or spectator) every point's encoding, and the group test of each
        shuffle's last pass only, whose points are the cards everyone opens: the others are
        group-tested by the host, which checks every pass it relays just after relaying it
        (``host._blind``, off the deal's critical path), and by the next pass's author, whose
        lock refuses a point outside the group (:meth:`Holder.make_pass`). Group-testing every
        pass at every follower as it came made a 4-person deal 1.3x and an 8-person one 1.4x
        as long, and the host's test before relaying sat on the critical path
        (``benchmarks/fairness.py --blind-net``)."""
        self.setup = setup
        self.every = every
        self.game = setup.new_game()
        self.points = points or crypto.CardPoints(setup.ctx0, self.game.deck)
        self.positions = Positions()
        self.shuffles: list[ShuffleRecord] = []
        self.moves: list[MoveRecord] = []
        self.steps: list[Step] = []
        self.openings: list[Opening] = []
        self.drawn: dict[int, int] = {}  # hidden card → the seat it was given to (public)
        self.leaves: list[tuple[str, dict[int, bytes]]] = []
        """People who left mid-hand, in order, each with the seeds it published
        (:meth:`on_leave`); the step ``("leave", i)`` is the ``i``-th."""
        self._owners: dict[int, str] = {}  # a seat whose person left: the host's from then on
        self._turn_up: tuple[tuple[int, int], int | None] | None = None  # pending_turn_up's
        self.stopped: tuple[str, object] | None = None
        """The step that broke the deal, as it came (``("pass", (shuffle, pid, number, points,
        signature))``, ``("open", Opening)`` or ``("move", MoveRecord)``): a hand's file keeps
        it, so that its check finds what this follower found."""

    # -- shuffles ----------------------------------------------------------------------------

    def begin_shuffle(self) -> ShuffleRecord:
        """The shuffle the engine awaits now, opened (its passes are still to come)."""
        req = self.game.chance_request()
        if req is None:
            raise UsageError("no shuffle is awaited now")
        cards = tuple(req[1])
        k = len(self.shuffles)
        rec = ShuffleRecord(
            k,
            shuffle_context(self.setup.ctx0, k, cards),
            cards,
            self.present,
            self.positions.add(len(cards)),
        )
        self.shuffles.append(rec)
        return rec

    def on_pass(self, pid: str, number: int, points: Sequence[bytes], signature: bytes) -> None:
        """A pass of the open shuffle; :class:`Cheat` if it is not its author's, or shows a
        fault anyone can see (then kept as :attr:`stopped`)."""
        try:
            self._on_pass(pid, number, points, signature)
        except Cheat:
            k = self.shuffles[-1].index
            self.stopped = ("pass", (k, pid, number, tuple(points), signature))
            raise

    def _on_pass(self, pid: str, number: int, points: Sequence[bytes], signature: bytes) -> None:
        rec = self.shuffles[-1]
        if rec.next_pass() != (pid, number):
            raise UsageError(f"{pid}'s pass {number} is not the one awaited")
        pts = tuple(points)
        message = crypto.pass_message(rec.ctx, pid, number, pts)
        if not verify_signature(self.setup.keys[pid], message, signature):
            raise Cheat(BlindFault.BAD_SIGNATURE, pid, f"pass {number}", proven=False)
        # Every point's encoding, count and copies, before the pass is kept; the group test
        # too for the last pass (whose points everyone opens), or for every pass (``every``).
        last = (pid, number) == (rec.order[-1], 2)
        problem = crypto.check_points(list(pts), rec.n, each=self.every or last)
        if problem is not None:
            raise Cheat(BlindFault.BAD_PASS, pid, problem)
        # An honest pass maps distinct points to distinct points, so two equal points are a
        # copied card, caught here; a card swapped for another point waits for the seeds.
        rec.passes[(pid, number)] = pts
        rec.signatures[(pid, number)] = signature

    def signed(self, rec: ShuffleRecord, position: int, share: Share) -> bool:
        """Whether ``share`` is signed by its sender."""
        message = crypto.release_message(rec.ctx, share.sender, share.to, position, share.key)
        return share.sender in rec.order and verify_signature(
            self.setup.keys[share.sender], message, share.signature
        )

    def open_with(
        self,
        rec: ShuffleRecord,
        position: int,
        shares: Sequence[Share],
        *,
        blame: str = "",
        own: str = "",
    ) -> int:
        """The card under ``position`` given one key of every participant.

        The signatures are checked only if the keys open no card of this shuffle (or one
        opened before): a key that opens its card right is the right key, whoever signed it,
        and the check after the hand compares every key with its sender's seed, checking the
        signature of any that differs. So a lay costs one scalar multiplication, not one
        signature check per participant. On a failure, a share not signed by its sender is
        :class:`Cheat` BAD_SIGNATURE against ``blame`` (who passed the shares on: the mover
        of a laid card) or else that sender; ``own``'s share is this participant's own,
        unsigned. Otherwise UsageError: only the seeds can tell whose key was wrong.
        """
        senders = sorted(s.sender for s in shares)
        if senders != sorted(rec.order):
            raise UsageError(f"position {position} needs one key from each of {rec.order}")
        point = crypto.open_position(rec.deck()[position], [s.key for s in shares])
        card = self.points.card(point)
        problem = ""
        if card is None or card not in rec.cards:
            problem = "the keys open no card of this shuffle"
        elif card in rec.opened.values() and rec.opened.get(position) != card:
            problem = "the keys open a card of this shuffle opened before"
        if not problem and card is not None:
            return card
        for sh in shares:
            if sh.sender != own and not self.signed(rec, position, sh):
                raise Cheat(
                    BlindFault.BAD_SIGNATURE, blame or sh.sender, "a position key", proven=False
                )
        raise UsageError(problem)

    def open_public(self, position: int, shares: Sequence[Share]) -> int:
        """A position of the current shuffle opened to everyone (a card turned up)."""
        rec = self.shuffles[-1]
        if position != self.pending_turn_up():
            raise UsageError(f"position {position} is not one the deal turns up now")
        try:
            card = self.open_with(rec, position, shares)
        except UsageError as e:
            # Every key was signed by its sender and none opens: only the seeds can tell whose
            # key was wrong, after the hand.
            self.stopped = ("open", Opening(rec.index, position, -1, tuple(shares)))
            raise Cheat(BlindFault.BAD_KEY, "", str(e), proven=False) from None
        except Cheat:
            self.stopped = ("open", Opening(rec.index, position, -1, tuple(shares)))
            raise
        rec.opened[position] = card
        self.openings.append(Opening(rec.index, position, card, tuple(shares)))
        return card

    @property
    def open_shuffle(self) -> ShuffleRecord | None:
        """The shuffle begun and not yet dealt from, if any."""
        if self.shuffles and ("shuffle", self.shuffles[-1].index) not in self.steps:
            return self.shuffles[-1]
        return None

    def pending_turn_up(self) -> int | None:
        """The position of the open shuffle its deal must turn up next (everyone's public key
        of it is due: :meth:`open_public`), or None: the passes are not all in, or nothing
        more is to be turned up (:meth:`finish_deal`)."""
        rec = self.open_shuffle
        if rec is None or rec.next_pass() is not None:
            return None
        # Asked after every message while a deal turns cards up (what is due, who is awaited,
        # whether to open): the answer changes only when a position is opened, and each
        # asking plays the deal through a copy of the engine.
        key = (rec.index, len(rec.opened))
        if self._turn_up is None or self._turn_up[0] != key:
            self._turn_up = (key, next_turn_up(self.game, rec.base, rec.n, rec.opened))
        return self._turn_up[1]

    def finish_deal(self) -> list[Event]:
        """Apply the open shuffle to the engine: its passes are in and every position its deal
        turns up is open. The step's events."""
        rec = self.open_shuffle
        if rec is None or rec.next_pass() is not None:
            raise UsageError("the shuffle's passes are not all in")
        if self.pending_turn_up() is not None:
            raise UsageError("a position the deal turns up is not open yet")
        events = apply_opened(self.game, rec.base, rec.n, rec.opened)
        self.steps.append(("shuffle", rec.index))
        self._note_drawn(events)
        return events

    def deal(self, turn_up: Callable[[int], Sequence[Share]]) -> list[Event]:
        """Apply the open shuffle to the engine once both passes are in; ``turn_up(j)`` gives
        every participant's public key of each position the step turns up."""
        rec = self.shuffles[-1]
        if rec.next_pass() is not None:
            raise UsageError("the shuffle's passes are not all in")
        for _ in range(rec.n + 1):
            j = self.pending_turn_up()
            if j is None:
                break
            self.open_public(j, turn_up(j))
        return self.finish_deal()

    def _note_drawn(self, events: Sequence[Event]) -> None:
        for seat, hidden in drawn_positions(events):
            self.drawn[hidden] = seat

    # -- who is here ------------------------------------------------------------------------

    def owner(self, seat: int) -> str:
        """Who holds ``seat``'s cards now: its person, or ``@dealer`` for a bot — and for a
        person's seat after the person left (the host's stand-in plays it)."""
        return self._owners.get(seat) or self.setup.owner(seat)

    @property
    def gone(self) -> dict[str, dict[int, bytes]]:
        """Who left mid-hand, with the seeds it published."""
        return dict(self.leaves)

    @property
    def present(self) -> tuple[str, ...]:
        """The participants of a shuffle begun now: those who have not left, in pass order."""
        gone = self.gone
        return tuple(q for q in self.setup.participants if q not in gone)

    def gone_key(self, rec: ShuffleRecord, position: int, pid: str) -> bytes:
        """A departed participant's key of a position, from the seed it published."""
        seed = self.gone[pid][rec.index]
        return crypto.BlindKeys.derive(rec.ctx, pid, seed, rec.n).positions[position]

    def on_leave(self, pid: str, seeds: Mapping[int, bytes]) -> list[tuple[int, int]]:
        """Person ``pid`` leaves mid-hand, between steps (no shuffle open), publishing its seed of
        every shuffle so far: anyone can now make its key of any position, so nobody waits for
        one, and its seat is the host's from here on. Returns ``(seat, hidden card)`` for every
        hidden card the seat holds: its owner now needs their keys. :class:`Cheat` if a seed
        does not make the passes ``pid`` gave (its published seed must be its real one)."""
        if pid not in self.present or pid == DEALER:
            raise UsageError(f"{pid} is no person of this hand still here")
        if self.open_shuffle is not None:
            raise UsageError("a person leaves between steps, not during a shuffle")
        if sorted(seeds) != list(range(len(self.shuffles))):
            raise UsageError(
                f"{pid} must publish its seed of each of {len(self.shuffles)} shuffles"
            )
        for rec in self.shuffles:
            if pid not in rec.order:
                continue
            seed = need_bytes("a seed", seeds[rec.index], 32)
            keys = crypto.BlindKeys.derive(rec.ctx, pid, seed, rec.n)
            made_by = [(q, n) for n in (1, 2) for q in rec.order]
            for i, (q, number) in enumerate(made_by):
                if q != pid:
                    continue
                source = self.points.deck(rec.cards) if i == 0 else rec.passes[made_by[i - 1]]
                made = (
                    crypto.lock_pass(source, keys) if number == 1 else crypto.key_pass(source, keys)
                )
                if tuple(made) != rec.passes[(pid, number)]:
                    raise Cheat(
                        BlindFault.BAD_PASS,
                        pid,
                        f"its published seed does not make its pass {number} of shuffle "
                        f"{rec.index}",
                    )
        seat = self.setup.seats.index(pid)
        self.leaves.append((pid, dict(seeds)))
        self._owners[seat] = DEALER
        self.steps.append(("leave", len(self.leaves) - 1))
        held = self.game.hands[seat]
        return [(seat, h) for h in self.positions.hidden_in(held)]

    # -- moves -----------------------------------------------------------------------------

    def on_move(self, record: MoveRecord) -> list[Event]:
        """A move, checked and played. :class:`Cheat` names the mover if it is not its
        owner's, or lays a card that was not its own or that its keys do not open to (the
        move is then kept as :attr:`stopped`)."""
        try:
            return self._on_move(record)
        except Cheat:
            self.stopped = ("move", record)
            raise

    def _on_move(self, record: MoveRecord) -> list[Event]:
        seat = record.seat
        setup = self.setup
        if record.seq != len(self.moves) or seat != self.game.to_act():
            raise UsageError(f"move {record.seq} by seat {seat} is not the one awaited")
        owner = self.owner(seat)
        message = move_message(setup.ctx0, record.seq, seat, record.by, record.move, record.hidden)
        if record.by != owner or not verify_signature(setup.keys[owner], message, record.signature):
            raise Cheat(BlindFault.BAD_SIGNATURE, owner, f"move {record.seq}", proven=False)
        move = record.move
        if move < MAX_CARD:
            self._lay(record)
        try:
            events = self.game.apply(seat, move)
        except IllegalMove as e:
            raise Cheat(BlindFault.ILLEGAL_MOVE, owner, str(e.reason.value)) from None
        self.moves.append(record)
        self.steps.append(("move", record.seq))
        self._note_drawn(events)
        return events

    def _lay(self, record: MoveRecord) -> None:
        """A laid card's position opened to everyone: checked, recorded, and revealed in the
        engine (a follower that already knew it — its own card — only checks it)."""
        owner = self.owner(record.seat)
        opening = record.opening
        if opening is None or record.hidden < HIDDEN_BASE:
            raise Cheat(BlindFault.NOT_ITS_CARD, owner, "no hidden card named")
        try:
            k, position = self.positions.locate(record.hidden)
        except UsageError:
            raise Cheat(BlindFault.NOT_ITS_CARD, owner, "no such hidden card") from None
        if (opening.shuffle, opening.position) != (k, position):
            raise Cheat(BlindFault.NOT_ITS_CARD, owner, "the keys are for another position")
        hand = self.game.hands[record.seat]
        known = bool((hand >> record.move) & 1)
        if not known and not (hand >> record.hidden) & 1:
            raise Cheat(BlindFault.NOT_ITS_CARD, owner, f"position {position} is not its own")
        rec = self.shuffles[k]
        try:
            card = self.open_with(rec, position, opening.shares, blame=owner)
        except UsageError as e:
            raise Cheat(BlindFault.WRONG_CARD, owner, str(e)) from None
        if card != record.move or opening.card != card:
            raise Cheat(BlindFault.WRONG_CARD, owner, "its keys open another card")
        rec.opened[position] = card
        self.openings.append(opening)
        if not known:
            self.game.reveal(record.hidden, card)

    def know(self, hidden: int, card: int) -> None:
        """A card of this participant's own, opened privately: revealed in its engine."""
        self.game.reveal(hidden, card)
