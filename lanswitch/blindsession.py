"""A client's part in one dealer-blind hand, sans I/O: the ``blind_*`` messages in, replies out.

A :class:`~lanswitch.session.Session` holds one :class:`BlindPart` per blind hand (a ``hand``
message with ``blind`` set): one of the two :class:`~lanswitch.seatpart.SeatPart`
implementations, beside :class:`~lanswitch.commitseat.CommitPart`. The part follows the hand on
its own record (:class:`~lanswitch.fairdeal.blind.seat.Participant`): every relayed pass,
opening and move is checked as it arrives, its own pass, public keys and sealed keys go out
when its follower says they are due, and the keys released to it open its own cards — so the
view a player sees is made here, from its own engine, not sent by the host (who does not know
the cards). When the hand ends or the host stops it, it reveals its seeds; when everyone's come
back (``blind_reveal``) it checks the whole hand
(:func:`~lanswitch.fairdeal.blind.check.check_hand`) and keeps the hand's file
(:func:`~lanswitch.fairdeal.blind.file.dump`) for ``lanswitch verify``.

The first cheat its follower catches live stops it following: it sends nothing more but its
seeds, and its verdict names the cheat. Pure: its seeds come from the session's ``entropy``
(:class:`~lanswitch.seatpart.Seatside`), and what it tells the screen goes through the session
too (:meth:`BlindPart.take`); :meth:`BlindPart.follow` is the part's own record of a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import protocol as p
from .fairdeal import DEALER
from .fairdeal.blind.check import BlindOutcome, caught, check_hand, judgement, own_verdict
from .fairdeal.blind.crypto import LIBRARY_SUBGROUP_TEST
from .fairdeal.blind.file import dump
from .fairdeal.blind.hand import BlindFault, Cheat, Follower, MoveRecord, Share, blind_setup
from .fairdeal.blind.holder import Holder
from .fairdeal.blind.seat import (
    Complaint,
    Participant,
    PassOut,
    ReleaseOut,
    ShareOut,
    complaint_shares,
    opening_of,
    share_map,
)
from .fairdeal.judgement import DEALER_BLIND, Deal, Judgement, Proof
from .fairdeal.primitives import UsageError, named
from .fairdeal.setup import HandSetup
from .game import HIDDEN_BASE, MAX_CARD, Event, View
from .seatpart import PartMessage, Seatside

__all__ = ["BlindPart"]

_PRIVATE: Final = frozenset({"deal", "draw"})


class BlindPart:
    """One client's side of one blind hand (module docstring). ``seat`` None: watching."""

    deal: Deal = DEALER_BLIND
    hides_from_host = True

    def __init__(
        self,
        side: Seatside,
        hand: p.Hand,
        setup: HandSetup,
        seat: int | None,
        key: Ed25519PrivateKey,
        holder_cls: type[Holder] = Holder,
    ) -> None:
        """``holder_cls``: what keeps its secrets (a test's cheating client plugs in its own).
        The session's ``seed_for`` (a shuffle's context → its seed) replaces fresh random seeds
        with ones a restarted process makes again: the host's own player."""
        self.side = side
        self.hand = hand
        entropy, seed_for = side.entropy, side.seed_for
        self.setup = blind_setup(setup)
        self.seat = seat if seat is not None and seat in self.setup.people else None
        self.pid = "" if self.seat is None else self.setup.seats[self.seat]
        self.part: Participant | None = None
        if self.seat is not None:

            def seed(k: int) -> bytes:
                if seed_for is None:
                    return entropy(32)
                return seed_for(holder.follower.shuffles[k].ctx)

            holder = holder_cls(self.setup, self.pid, key.private_bytes_raw(), seed)
            self.part = Participant(holder)
            self.follower: Follower = holder.follower
        else:
            self.follower = Follower(self.setup, every=not LIBRARY_SUBGROUP_TEST)
        self.cheat: Cheat | None = None
        self.abort: p.BlindAbort | None = None
        self.over: p.HandOver | None = None  # the host's end of the hand
        self.disputed = False
        """The host stopped the hand, live, saying this participant withheld its part, when its
        client had sent everything the hand asked of it: a dispute on its own record, as a
        commit-reveal seat disputes a seed "that never came" (``_judge``)."""
        self.seeds_sent = False
        self.leaving = False  # said goodbye mid-hand: it stays until the host relays its leave
        self._seeds_told = 0  # how many shuffles' seeds its goodbye has published
        self.outcome: BlindOutcome | None = None
        self.file = ""
        self.problems: list[str] = []
        self.disputes: list[str] = []  # where the hand is not the table its lobby showed
        self.complaint: list[Complaint] = []  # the keys of a card of its that did not open
        self.sent: list[p.Message] = []  # everything it sent in this hand, to send again
        self.answers = True
        """False: it follows a hand the host has already ended — caught up on between hands,
        after a lost link or a restarted process — to check it and keep its file, and sends
        nothing: the host takes nothing more for that hand, and what it sent would reach the
        next one, whose blind messages look the same (a pass is "shuffle 0, pass 1" in every
        hand, and a stale one would stop that hand, blamed on this player)."""

    # -- what the session asks -----------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """Its part is over (it revealed its seeds): from here the host owes the reveal and
        the hand's end, waited for as long as a commit-reveal hand's (``Session.expire``)."""
        return self.seeds_sent

    @property
    def settled(self) -> bool:
        return self.outcome is not None

    def resume(self, playing: bool) -> list[p.Message]:
        """The hand again after a resume: answer it if the host still plays it, and send again
        what may have been lost with the link (:meth:`resend`)."""
        self.answers = playing
        return self.resend()

    def rejected(self, m: p.Reject) -> None:
        pass  # the host's refusals of blind messages change nothing this client holds

    def dispute_setup(self, text: str) -> None:
        self.disputes.append(text)  # its own record: the verdict and its file keep it

    def begin_leaving(self) -> list[p.Message]:
        """Its seeds first: the shell then waits while :meth:`busy`, answering what the hand
        asks of it, until the host relays its leave; then ``bye``."""
        return self.leave()

    def settle(self, why: str) -> str | None:
        return None if self.seat is None else why

    def judgement(self, game_id: bytes, hand_no: int, names: Sequence[str]) -> Judgement | None:
        """This seat's judgement of the hand, once it is over or settled without its end
        (:mod:`lanswitch.fairdeal.judgement`; ``names``: the seats' names), or None for a
        spectator, which took no part to judge. A hand whose seeds never came cannot be
        checked: void, blamed on the host, on its word (it alone held them back)."""
        if self.seat is None:
            return None
        outcome = self.outcome
        if outcome is None:
            outcome = BlindOutcome(
                "void", DEALER, BlindFault.WITHHELD, "no seeds after the hand", proven=False
            )
        dealt = ("shuffle", 0) in self.follower.steps
        return judgement(
            outcome,
            game_id=game_id,
            hand_no=hand_no,
            names=names,
            seats=self.setup.seats,
            dealt=dealt,
        )

    def proof(self) -> Proof | None:
        """The hand's file, as ``lanswitch verify`` reads it (None: none was written)."""
        if not self.file:
            return None
        file = self.file
        return Proof(DEALER_BLIND, f"blind-seat{self.seat}", lambda: file, source=file)

    @property
    def steps(self) -> int:
        """Public steps taken so far (the turn on screen is told apart by it)."""
        return len(self.follower.steps) + len(self.follower.openings)

    def view(self) -> View:
        return self.follower.game.view(self.seat)

    def my_turn(self) -> bool:
        return (
            self.part is not None
            and self.cheat is None
            and self.abort is None
            and self.part.to_move() == self.seat
        )

    def move(self, move: int) -> p.BlindMove:
        """The message making ``move`` for this seat (ValueError if it is not its turn)."""
        if self.part is None or self.seat is None or not self.my_turn():
            raise ValueError("it is not this seat's turn")
        record = self.part.move(self.seat, move)
        shares = {} if record.opening is None else share_map(record.opening.shares)
        message = p.BlindMove(
            seq=record.seq,
            seat=self.seat,
            move=record.move,
            hidden=record.hidden,
            signature=record.signature,
            shares=shares,
        )
        self.sent.append(message)
        return message

    def leave(self) -> list[p.Message]:
        """What to send before ``bye`` mid-hand: its seeds, so that the hand goes on without it
        (§ Dealer-blind on the wire); nothing once it has sent them."""
        if self.part is None or self.seeds_sent or self.follower.game.over or self.over:
            return []
        self.seeds_sent = self.leaving = True
        return self._sending([self._goodbye_seeds()])

    def _goodbye_seeds(self) -> p.BlindSeeds:
        assert self.part is not None
        seeds = self.part.holder.seeds
        self._seeds_told = len(seeds)
        return p.BlindSeeds(seeds=tuple(seeds[k] for k in sorted(seeds)), detail="left")

    def busy(self) -> bool:
        """Whether a person about to leave must stay a moment: a shuffle is in progress (its
        passes are in it), as a seat of the commit-reveal deal waits to send its seed — or it
        has said goodbye and the host has not yet relayed its leave. The host takes a leave
        between steps, once no shuffle is open; one it had begun as the goodbye crossed it
        still needs this participant's passes, and then the seed of that shuffle too."""
        if self.part is None:
            return False
        if self.follower.open_shuffle is not None:
            return True
        return self.leaving and not self.ended and self.pid not in self.follower.gone

    @property
    def ended(self) -> bool:
        return self.follower.game.over or self.abort is not None or self.cheat is not None

    def start(self, playing: bool) -> list[p.Message]:
        """What it sends as the hand begins (the first pass, if it is first). ``playing``
        False: a hand the host has ended, followed, never answered (:attr:`answers`)."""
        self.answers = playing
        return self._due()

    def resend(self) -> list[p.Message]:
        """Everything it sent in this hand, again: after its link dropped and it came back by
        its token, what it sent just before (or while the link was down) may never have
        arrived. The host takes each at most once and lets the rest pass without a word.
        Nothing once the host has ended the hand (``answers``)."""
        if not self.answers:
            return []
        return [*self.sent, *self._due()]

    # -- what the host relays ------------------------------------------------------------------

    def take(self, m: PartMessage) -> list[p.Message]:
        """A message of the hand from the host: followed (:meth:`follow`), and what came of it
        told through the session — the steps, the view it makes, a card of its own opened, the
        host's stop. The commit-reveal deal's messages are not for it."""
        if isinstance(m, p.HandOver):
            self.over = m
            return []
        if not isinstance(
            m,
            p.BlindPass
            | p.BlindOpen
            | p.BlindRelease
            | p.BlindMove
            | p.BlindReveal
            | p.BlindAbort
            | p.BlindLeave,
        ):
            return []
        s = self.side
        before = len(self.problems)
        held = len(self.part.holder.cards) if self.part is not None else 0
        # Live: the whole hand came over this one link. (A blind catch-up has no end that a
        # client can see, so after a resume nothing of the hand is judged as live.)
        replies, events = self.follow(m, live=s.live())
        s.fair_deal_problems(self.problems[before:])
        if self.steps != s.seq:
            s.seq = self.steps
        s.view = self.view()  # its own engine's (a spectator's: the public one)
        if events:
            s.note("events", f"step {s.seq}", tuple(events))
        if self.part is not None and len(self.part.holder.cards) > held:
            # The cards opened by this message, in the order they opened: the screen finishes
            # "you pick up 2" with them ("you pick up 2: J♠ 2♦", as commit-reveal says it).
            opened = tuple(self.part.holder.cards.values())[held:]
            s.note("opened", "a card you drew is open to you", opened)
        if isinstance(m, p.BlindAbort):
            said = f"the host stopped the hand: {_abort_text(m)}"
            s.note("warning", named(said, s.seat_names()), m)
        return replies

    def follow(self, m: p.Message, *, live: bool = True) -> tuple[list[p.Message], list[Event]]:
        """One relayed message: the replies, and the engine events it made (redacted: a
        hidden card is -1 until it is this seat's and open). ``live``: not the catch-up of a
        resume (what was due while the link was down was not this client's to send then)."""
        events: list[Event] = []
        if isinstance(m, p.BlindAbort):
            if self.abort is None and live and m.culprit == self.pid and self.pid:
                # Whatever fault the host names (its abort's word may be any), this client's
                # own record answers it; the seeds after the hand settle a fault they can show.
                self.disputed = self._sent_all()
            self.abort = self.abort or m
        elif isinstance(m, p.BlindReveal):
            self._reveal(m)
        elif self.cheat is None:
            try:
                events = self._step(m)
            except Cheat as c:
                if c.fault is BlindFault.BAD_SIGNATURE and not isinstance(m, p.BlindRelease):
                    # The host checks every signature before it relays a step (its follower
                    # does): one that does not verify is its own doing, or it let it through.
                    c = Cheat(
                        BlindFault.BAD_SIGNATURE,
                        DEALER,
                        f"relayed {c.culprit}'s {c.detail} with a signature that does not verify",
                        proven=False,
                    )
                self.cheat = c
                self.problems.append(f"caught live: {c}")
            except UsageError as e:
                # A step out of order, or one it already has (a resume replays the hand).
                if not _repeated(self, m):
                    self.problems.append(f"the host relayed a step out of order: {e}")
        return self._due(), [_redact(e, self.seat) for e in events]

    def _sent_all(self) -> bool:
        """Whether this client had sent every pass and key the hand asked of it: each is sent
        as soon as it is due (``take`` answers with ``_due``), so nothing is due now unless it
        held something back (or stopped answering, or caught a cheat and stopped following)."""
        if self.part is None or not self.answers or self.cheat is not None or self.leaving:
            return False
        try:
            return not self.part.due()  # (the abort ends the hand: nothing due is sent now)
        except Cheat:
            return False

    def _sending(self, messages: list[p.Message]) -> list[p.Message]:
        self.sent += messages
        return messages

    def _step(self, m: p.Message) -> list[Event]:
        part, f = self.part, self.follower
        if isinstance(m, p.BlindPass):
            if part is not None:
                return part.take_pass(m.by, m.shuffle, m.number, m.points, m.signature)
            _begin(f)
            f.on_pass(m.by, m.number, m.points, m.signature)
            return _deal(f)
        if isinstance(m, p.BlindOpen):
            shares = tuple(Share(q, "", key, sig) for q, (key, sig) in sorted(m.shares.items()))
            if part is not None:
                return part.take_open(m.shuffle, m.position, shares)
            f.open_public(m.position, shares)
            return _deal(f)
        if isinstance(m, p.BlindMove):
            if m.seq < len(f.moves):
                return []  # replayed on a resume
            opening = None
            if m.move < MAX_CARD and m.hidden >= 0:
                try:
                    opening = opening_of(f, m.by, m.hidden, m.move, m.shares)
                except UsageError:
                    opening = None
            record = MoveRecord(m.seq, m.seat, m.by, m.move, m.hidden, m.signature, opening)
            if part is None:
                return f.on_move(record)
            events = part.take_move(record)
            if m.by == self.pid:
                # A card of its own laid by a move its holder did not make here — an earlier
                # process of this player's (``play --resume`` restarted it mid-hand) — is
                # held no more: left listed, a reshuffle that brings the same card back
                # would have it laid by its old position, one it no longer holds.
                part.holder.cards.pop(m.hidden, None)
            return events
        if isinstance(m, p.BlindLeave):
            if m.by in f.gone:
                return []  # replayed on a resume
            seeds = dict(enumerate(m.seeds))
            if part is not None:
                part.take_leave(m.by, seeds)
            else:
                f.on_leave(m.by, seeds)
            return []
        if isinstance(m, p.BlindRelease) and part is not None:
            if m.to != self.pid:
                raise UsageError("a sealed key for someone else")
            k, j = f.positions.locate(m.hidden)
            if m.by in part.holder.received.get((k, j), {}):
                return []  # replayed on a resume
            try:
                part.take_release(m.by, m.hidden, m.sealed)  # its card shows in the view
            except Cheat:
                got = part.holder.received.get((k, j), {})
                self.complaint = [(k, j, q, s.key, s.signature) for q, s in sorted(got.items())]
                raise
        return []

    def _due(self) -> list[p.Message]:
        out: list[p.Message] = []
        if self.part is None or not self.answers:
            return out
        if self.cheat is None and self.abort is None:
            try:
                for d in self.part.due():
                    out.append(_message(d))
            except Cheat as e:  # its own pass found the pass before it broken
                self.cheat = e
                self.problems.append(f"caught live: {e}")
        if (
            self.leaving
            and not self.ended
            and self.follower.open_shuffle is None
            and self.pid not in self.follower.gone
            and len(self.part.holder.seeds) > self._seeds_told
        ):
            out.append(self._goodbye_seeds())  # a shuffle dealt since its goodbye: its seed too
        if self.ended and not self.seeds_sent:
            # Once the hand is over or stopped — or, mid-hand, to stop it: a cheat caught.
            self.seeds_sent = True
            holder = self.part.holder
            c = self.cheat
            fault = "" if c is None else c.fault.name.lower()
            detail = "" if c is None else str(c)[:500]
            out.append(
                p.BlindSeeds(
                    seeds=tuple(holder.seeds[k] for k in sorted(holder.seeds)),
                    fault=fault,
                    detail=detail,
                    complaint=tuple(self.complaint),
                    # Its claim, signed: the stop is its own, and costs it unless the check
                    # after the hand bears the claim out (SPEC § After the hand).
                    signature=holder.claim(fault, detail) if fault else b"",
                )
            )
        return self._sending(out)

    # -- after the hand ------------------------------------------------------------------------

    def _reveal(self, m: p.BlindReveal) -> None:
        if self.outcome is not None:
            return
        seeds = {q: dict(enumerate(s)) for q, s in m.seeds.items()}
        if self.part is not None:  # its own, as it holds them (not as the host relays them)
            seeds[self.pid] = dict(self.part.holder.seeds)
        received = [] if self.part is None else self.part.received()
        others = {q: c for q, c in m.complaints.items() if q != self.pid}
        received += complaint_shares(self.follower, others)
        finished = self.cheat is None and self.abort is None and self.follower.game.over
        found = check_hand(self.follower, seeds, received, finished=finished, claims=dict(m.claims))
        self.outcome = self._judge(found)
        if self.part is None:
            return  # a spectator keeps no file: it took no part to answer for
        try:
            held = self.part.holder.received
            a = self.abort
            self.file = dump(
                self.follower,
                self.pid,
                seeds,
                held,
                others,
                dict(m.claims),
                abort=None if a is None else (a.culprit, a.fault, a.detail),
                disputed=self.disputed,
                disputes=self.disputes,
            )
        except (UsageError, ValueError) as e:  # a record it cannot write out: say so
            self.problems.append(f"the hand's file could not be written: {e}")

    def _judge(self, found: BlindOutcome) -> BlindOutcome:
        """The check's finding as this participant's own record makes it (``own_verdict``:
        the same rules ``verify`` of its file applies)."""
        a = self.abort
        return own_verdict(
            found,
            pid=self.pid,
            disputed=self.disputed,
            live=None if self.cheat is None else caught(self.cheat),
            abort=None if a is None else (a.culprit, a.fault, a.detail),
            disputes=self.disputes,
        )


def _abort_text(m: p.BlindAbort) -> str:
    """What a ``blind_abort`` says, as a sentence: whom the host blames and for what, or (when
    it blames nobody) its detail, which says who stopped the hand and why."""
    try:
        fault = BlindFault[m.fault.upper()].value
    except KeyError:
        fault = m.fault
    if not m.culprit:
        return m.detail or fault
    return f"{m.culprit} {fault}" + (f" ({m.detail})" if m.detail else "")


def _message(d: PassOut | ShareOut | ReleaseOut) -> p.Message:
    if isinstance(d, PassOut):
        return p.BlindPass(
            shuffle=d.shuffle, number=d.number, points=d.points, signature=d.signature
        )
    if isinstance(d, ShareOut):
        return p.BlindShare(
            shuffle=d.shuffle, position=d.position, key=d.share.key, signature=d.share.signature
        )
    return p.BlindRelease(to=d.to, hidden=d.hidden, sealed=d.sealed)


def _begin(f: Follower) -> None:
    if f.open_shuffle is None and not f.game.over and f.game.chance_request() is not None:
        f.begin_shuffle()


def _deal(f: Follower) -> list[Event]:
    rec = f.open_shuffle
    if rec is None or rec.next_pass() is not None or f.pending_turn_up() is not None:
        return []
    return f.finish_deal()


def _repeated(part: BlindPart, m: p.Message) -> bool:
    """Whether ``m`` is a step this part already took (a resume replays them)."""
    f = part.follower
    if isinstance(m, p.BlindPass):
        return m.shuffle < len(f.shuffles) and (m.by, m.number) in f.shuffles[m.shuffle].passes
    if isinstance(m, p.BlindOpen):
        return m.shuffle < len(f.shuffles) and m.position in f.shuffles[m.shuffle].opened
    return False


def _redact(event: Event, seat: int | None) -> Event:
    """A blind step's event as the narration takes it: a hidden card is an unknown one."""
    kind, who, card = event
    if card >= HIDDEN_BASE or (kind in _PRIVATE and who != seat and card >= 0):
        return (kind, who, -1)
    return event
