"""The host's dealer-blind hands (``--blind``): it relays what it cannot read.

Theory of operation
-------------------
At a blind table the host holds no deck. It is one participant among the players —
``@dealer``, owning its bots' seats — with a :class:`~lanswitch.fairdeal.blind.seat.Participant`
like every client's, and otherwise a relay that keeps time (SPEC § Dealer-blind on the wire):

* a pass, a position's public keys, a move: checked by the host's own follower and relayed
  to everyone, who check it again on their own records (a point outside the group in a pass
  is refused by the next pass's author, whose scalar multiplication will not take it: it
  stops the hand, naming the pass);
* a sealed key: relayed to its drawer alone, if it is one the sender owes that drawer — the
  host's engine says which hidden cards each step gave to whom;
* its own pass, key or move (its bots'), made when its own follower says it is due.

The host waits ``round_timeout`` for what someone owes (a pass, a public key, a sealed key);
past that, or once a person who owes something (or whose move is due) is gone for good, it
stops the hand (``blind_abort``, WITHHELD): the positions only that person's keys open stay
locked. A person who says goodbye publishes its seeds instead (``blind_leave``): its keys are
anyone's to make, its seat the host's, and the hand goes on. A cheat its follower catches
stops the hand too, after the offending step is relayed so that every client sees it; so does
a participant that caught one (it sends its seeds mid-hand, saying why). Either way, and at
the hand's end, every participant reveals its seeds; the host relays them
(``blind_reveal``), checks the hand itself (:func:`~lanswitch.fairdeal.blind.check.check_hand`)
— the real scores come only from that replay, since nobody saw every hand during play — and
sends ``hand_over``.
"""

from __future__ import annotations

from typing import Final

from .. import protocol as p
from ..bots import make_bot
from ..fairdeal import DEALER, HandSetup
from ..fairdeal.blind import crypto
from ..fairdeal.blind.check import BlindOutcome, check_hand, judgement
from ..fairdeal.blind.hand import (
    BlindFault,
    BlindSetup,
    Cheat,
    MoveRecord,
    Share,
    blind_setup,
    claim_message,
)
from ..fairdeal.blind.holder import Holder
from ..fairdeal.blind.positions import drawn_positions
from ..fairdeal.blind.seat import (
    Complaint,
    Participant,
    PassOut,
    ReleaseOut,
    ShareOut,
    complaint_shares,
    opening_of,
    share_map,
)
from ..fairdeal.judgement import Judgement
from ..fairdeal.primitives import UsageError, named, public_bytes
from ..fairdeal.primitives import verify as verify_signature
from ..game import MAX_CARD, Event
from ._deal import HandMessage, HandStart, Tableside, Watch, hand_message, not_taken

__all__ = ["BlindHand"]

_NO_HEAD: Final = (0, bytes(32), b"")
"""``hand_over.head`` of a blind hand: it has no commit-reveal log."""


class BlindHand:
    """A dealer-blind hand in progress, and after it until its seeds are in: one of the two
    :class:`~lanswitch.host._deal.HandDriver` implementations (module docstring)."""

    __slots__ = (
        "abort",
        "bots",
        "claims",
        "complaints",
        "deadline_at",
        "delivered",
        "game",
        "host",
        "judgement",
        "leaving",
        "message",
        "outcome",
        "over",
        "owed",
        "part",
        "published",
        "sealed",
        "seeds",
        "seeds_deadline",
        "setup",
        "shares",
        "turn_since",
        "unchecked",
    )

    holder_cls: type[Holder] = Holder
    """What keeps the host's own secrets (a dishonest host, in the tests that play one
    against untouched clients, plugs in one that cheats)."""

    def __init__(self, host: Tableside, start: HandStart) -> None:
        self.host = host
        game = start.game
        # Only the seats dealt in take part (a seat sitting the hand out holds no keys).
        keys = {q: k for q, k in start.keys.items() if game.active[start.pids.index(q)]}
        keys[DEALER] = public_bytes(start.key)
        out = tuple(s for s in range(game.players) if not game.active[s])
        hs = HandSetup.create(
            start.game_id,
            game.hand_no,
            game.rules,
            start.pids,
            keys,
            dealer=game.dealer,
            out=out,
            names=start.names,
        )
        self.message = hand_message(hs, blind=True)
        self.setup: BlindSetup = blind_setup(hs)
        holder = self.holder_cls(
            self.setup, DEALER, start.key.private_bytes_raw(), lambda _k: host.entropy(32)
        )
        self.part = Participant(holder)
        self.bots = start.bots
        self.game = game  # the match's game of this hand: scored from the check's replay
        self.deadline_at = host.now + host.config.round_timeout  # when what is owed is overdue
        self.turn_since = host.now
        self.published: list[p.Message] = [self.message]
        self.sealed: dict[str, list[tuple[int, p.BlindRelease]]] = {}
        """Per drawer, every sealed key passed on to it, each with how many messages had been
        relayed to all by then (a drawer catching up gets each at the same point)."""
        self.shares: dict[tuple[int, int], dict[str, Share]] = {}
        self.owed: dict[tuple[str, int], str] = {}  # (sender, hidden) → to
        self.delivered: set[tuple[str, int, str]] = set()  # (sender, hidden, to)
        self.abort: p.BlindAbort | None = None
        self.leaving: dict[str, tuple[bytes, ...]] = {}  # until no shuffle is open
        self.seeds: dict[str, tuple[bytes, ...]] = {}
        self.complaints: dict[str, tuple[Complaint, ...]] = {}
        self.claims: dict[str, tuple[str, str, bytes]] = {}  # claimant → fault, detail, sig
        self.seeds_deadline = 0.0
        self.unchecked: list[tuple[int, str, int]] = []
        """Passes relayed whose points still await the host's group test (``_check``):
        ``(shuffle, author, pass)``, in the order they came."""
        self.outcome: BlindOutcome | None = None
        self.judgement: Judgement | None = None
        """The hand as every reader judges it, once it is checked (the host scores it so)."""
        self.over: p.HandOver | None = None
        dealer = host.seat_names()[game.dealer]
        host.say(f"hand {game.hand_no} started (dealer-blind), {dealer} deals")
        host.broadcast_lobby()
        host.broadcast(self.message)

    # -- what the table asks (HandDriver) ------------------------------------------------------

    @property
    def seq(self) -> int:
        """Public steps taken so far — passes that dealt, turn-ups, moves — as every client
        counts them (``BlindPart.steps``): what a resumed host says of where the hand stopped,
        as a commit-reveal hand's ``seq`` is its step count."""
        f = self.part.follower
        return len(f.steps) + len(f.openings)

    @property
    def ended(self) -> bool:
        """Play has stopped: the hand is over or the host stopped it."""
        return self.abort is not None or self.part.follower.game.over

    @property
    def settled(self) -> bool:
        return self.over is not None

    def receive(self, cid: int, message: HandMessage) -> None:
        pid = self._participant(cid)
        if pid is None:
            self.host.send(cid, not_taken(message))
        elif isinstance(message, p.BlindPass):
            self._pass(cid, pid, message)
        elif isinstance(message, p.BlindShare):
            self._share(cid, pid, message)
        elif isinstance(message, p.BlindRelease):
            self._release(cid, pid, message)
        elif isinstance(message, p.BlindMove):
            self._move(cid, pid, message)
        elif isinstance(message, p.BlindSeeds):
            self._seeds(cid, pid, message)
        else:  # a commit-reveal hand's message
            self.host.send(cid, not_taken(message))

    def advance(self, moves: bool) -> bool:
        if self.ended:
            return self._end()
        if moves and self._check():  # (a tick's work: after what came went out)
            return True
        try:
            if self._duties():
                return True
        except Cheat as c:  # the host's own pass found the pass before it broken
            self._cheat(c)
            return True
        if self._open():
            return True
        if self._leave():
            return True
        if moves and self._bot():
            return True
        return self._overdue()

    def deadline(self) -> float | None:
        host = self.host
        times = [since + host.config.away_grace for since in host.away.values()]
        if self.ended:
            return min([self.seeds_deadline, *times])
        if self.unchecked:
            times.append(host.now)
        if [q for q in self.awaited() if q != DEALER]:
            times.append(self.deadline_at)
        else:
            seat = self.part.to_move()
            if seat is not None and not host.awaits_move(self.part.follower.game, seat):
                times.append(self.turn_since + host.config.bot_delay)
        return min(times) if times else None

    def watch(self) -> Watch | None:
        """Everyone, closely (the table's default): each participant may owe keys at any
        step."""
        return None

    def catch_up(self, cid: int) -> None:
        """Everything relayed so far, in order, with the sealed keys meant for it each at the
        point it was passed on (a key of a card laid since must come before the lay). Whose
        keys they are goes by the session key it said hello with, as the hand dealt them:
        between hands (a player caught up on the hand whose end it missed, or the host's own
        player in a restarted process) no seat is in play, and one may have moved since."""
        host = self.host
        key = host.conn_key(cid)
        mine = next((got for q, got in self.sealed.items() if self.setup.keys.get(q) == key), [])
        keys = iter(mine)
        pending = next(keys, None)
        for i, message in enumerate(self.published):
            while pending is not None and pending[0] <= i:
                host.send(cid, pending[1])
                pending = next(keys, None)
            host.send(cid, message)
        while pending is not None:
            host.send(cid, pending[1])
            pending = next(keys, None)

    def awaited(self) -> list[str]:
        """Who owes a step now (the pass, public keys or sealed keys the hand waits for)."""
        f = self.part.follower
        rec = f.open_shuffle
        if rec is not None:
            nxt = rec.next_pass()
            if nxt is not None:
                return [nxt[0]]
            j = f.pending_turn_up()
            if j is not None:
                got = self.shares.get((rec.index, j), {})
                return [q for q in rec.order if q not in got]
        return sorted({sender for sender, _ in self.owed})

    # -- relaying ------------------------------------------------------------------------------

    def _relay(self, message: p.Message) -> None:
        self.published.append(message)
        self.host.broadcast(message)

    def _progress(self) -> None:
        self.deadline_at = self.host.now + self.host.config.round_timeout

    def _gave(self, events: list[Event]) -> None:
        """Note the sealed keys each participant (but the host, whose own are its duty) owes
        for the hidden cards a step gave out."""
        for seat, hidden in drawn_positions(events):
            self._owe(seat, hidden)
        if events:
            self.turn_since = self.host.now

    def _owe(self, seat: int, hidden: int) -> None:
        """Every person of the card's shuffle still here but the seat's owner owes it a key."""
        f = self.part.follower
        to = f.owner(seat)
        rec = f.shuffles[f.positions.locate(hidden)[0]]
        for q in rec.order:
            if q != to and q != DEALER and q not in f.gone:
                self.owed[(q, hidden)] = to

    def _stop(self, culprit: str, fault: BlindFault, detail: str) -> None:
        """Stop the hand: everyone is told, and reveals its seeds."""
        if self.abort is not None:
            return
        self.abort = p.BlindAbort(culprit=culprit, fault=fault.name.lower(), detail=detail[:500])
        said = f"{culprit} {fault.value}" if culprit else detail or "nobody known yet"
        self.host.say(named(f"hand {self.game.hand_no} stopped: {said}", self.host.seat_names()))
        self._relay(self.abort)
        self.seeds_deadline = self.host.now + self.host.config.heads_timeout

    def _cheat(self, c: Cheat) -> None:
        self._stop(c.culprit, c.fault, c.detail)

    def _participant(self, cid: int) -> str | None:
        """``cid``'s participant id, if it holds a person's seat dealt into this hand."""
        seat = self.host.seat_of(cid)
        if seat is None or seat not in self.setup.people:
            return None
        return self.setup.seats[seat]

    def _refuse(self, cid: int, text: str) -> None:
        self.host.send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text=text[:500]))

    def _pass(self, cid: int, pid: str, m: p.BlindPass) -> None:
        f = self.part.follower
        rec = f.open_shuffle
        if (
            self.ended
            or rec is None
            or rec.index != m.shuffle
            or rec.next_pass() != (pid, m.number)
        ):
            had = m.shuffle < len(f.shuffles) and (pid, m.number) in f.shuffles[m.shuffle].passes
            if not had:  # (one it has: sent again after a resume)
                self._refuse(cid, f"shuffle {m.shuffle} takes no pass {m.number} from you now")
            return
        relay = p.BlindPass(
            shuffle=m.shuffle, number=m.number, points=m.points, signature=m.signature, by=pid
        )
        try:
            events = self.part.take_pass(pid, m.shuffle, m.number, m.points, m.signature)
        except Cheat as c:
            if c.fault is not BlindFault.BAD_SIGNATURE:
                self._relay(relay)  # everyone sees the pass that broke the deal
            self._cheat(c)
            return
        self._relay(relay)
        self.unchecked.append((m.shuffle, pid, m.number))
        self._gave(events)
        self._progress()

    def _check(self) -> bool:
        """The group test (:func:`~lanswitch.fairdeal.blind.crypto.point_problem`, ~40 µs a point)
        of a pass already relayed, its encoding checked as it came (``Follower``): at the next
        tick, so that the pass is on its way to the next author — whose lock refuses such a
        point too — while the host checks it, rather than the deal waiting for both checks one
        after the other. A point that fails stops the hand, in the pass's author's name,
        proven by its signed pass."""
        if not self.unchecked:
            return False
        k, pid, number = self.unchecked.pop(0)
        points = self.part.follower.shuffles[k].passes.get((pid, number))
        bad = None if points is None else crypto.find_invalid(points)
        if bad is not None:
            j, why = bad
            detail = f"pass {number}: position {j} is not a point of the prime-order group: {why}"
            self._cheat(Cheat(BlindFault.BAD_PASS, pid, detail))
        return True

    def _share(self, cid: int, pid: str, m: p.BlindShare) -> None:
        f = self.part.follower
        rec = f.open_shuffle
        if self.ended or rec is None or rec.index != m.shuffle or f.pending_turn_up() != m.position:
            had = m.shuffle < len(f.shuffles) and m.position in f.shuffles[m.shuffle].opened
            if not had:
                text = f"position {m.position} of shuffle {m.shuffle} is not being opened"
                self._refuse(cid, text)
            return
        message = crypto.release_message(rec.ctx, pid, "", m.position, m.key)
        if not verify_signature(self.setup.keys[pid], message, m.signature):
            self._refuse(cid, "that key is not signed with your key")
            return
        self.shares.setdefault((m.shuffle, m.position), {})[pid] = Share(
            pid, "", m.key, m.signature
        )
        self._progress()

    def _release(self, cid: int, pid: str, m: p.BlindRelease) -> None:
        if self.owed.get((pid, m.hidden)) != m.to:
            if (pid, m.hidden, m.to) not in self.delivered:
                self._refuse(cid, f"you owe {m.to} no key of hidden card {m.hidden}")
            return
        del self.owed[(pid, m.hidden)]
        self.delivered.add((pid, m.hidden, m.to))
        self._progress()
        self._deliver(p.BlindRelease(to=m.to, hidden=m.hidden, sealed=m.sealed, by=pid))

    def _deliver(self, r: p.BlindRelease) -> None:
        """A sealed key to its drawer (the host's own: taken; a person's: sent, and kept for
        the drawer's catch-up)."""
        if r.to == DEALER:
            try:
                self.part.take_release(r.by, r.hidden, r.sealed)
            except Cheat as c:
                self._cheat(c)
            return
        self.sealed.setdefault(r.to, []).append((len(self.published), r))
        seat = self.setup.seats.index(r.to)
        target = self.host.cid_of_seat(seat)
        if target is not None:
            self.host.send(target, r)

    def _move(self, cid: int, pid: str, m: p.BlindMove) -> None:
        seat = self.setup.seats.index(pid)
        f = self.part.follower
        if m.seq < len(f.moves) and f.moves[m.seq].signature == m.signature:
            return  # one it has: sent again after a resume
        if f.owner(seat) != pid:
            # It left mid-hand (its leave relayed): the host's stand-in plays the seat now.
            # Taken, its move would fail the owner's signature check and stop the hand as the
            # host's doing (bad_signature, blamed on the owner, @dealer): a leaver's way to
            # void a hand in the host's name.
            text = "you left this hand: the host plays your seat now"
            self.host.send(cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text=text, seq=m.seq))
            return
        if self.ended or m.seat != seat or f.game.to_act() != seat or f.open_shuffle is not None:
            self.host.send(
                cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="not your turn", seq=m.seq)
            )
            return
        if m.seq != len(f.moves):
            text = f"that is move {m.seq}; the hand is at move {len(f.moves)}"
            self.host.send(cid, p.Reject(code=p.ErrorCode.STALE_VIEW, text=text, seq=m.seq))
            return
        self._take_move(m, pid)

    def _take_move(self, m: p.BlindMove, pid: str) -> None:
        f = self.part.follower
        opening = None
        if m.move < MAX_CARD and m.hidden >= 0:
            try:
                opening = opening_of(f, pid, m.hidden, m.move, m.shares)
            except UsageError:
                opening = None  # the follower names the mover: no such hidden card
        record = MoveRecord(m.seq, m.seat, pid, m.move, m.hidden, m.signature, opening)
        relay = p.BlindMove(
            seq=m.seq,
            seat=m.seat,
            move=m.move,
            hidden=m.hidden,
            signature=m.signature,
            shares=m.shares,
            by=pid,
        )
        try:
            events = self.part.take_move(record)
        except Cheat as c:
            if c.fault is not BlindFault.BAD_SIGNATURE:
                self._relay(relay)
            self._cheat(c)
            return
        except UsageError as e:
            self._refuse(self.host.cid_of_seat(m.seat) or -1, str(e))
            return
        self._relay(relay)
        self._gave(events)
        self._progress()

    def _seeds(self, cid: int, pid: str, m: p.BlindSeeds) -> None:
        if self.seeds.get(pid) == m.seeds or self.leaving.get(pid) == m.seeds:
            return  # sent again after a resume
        if self.over is not None or pid in self.seeds:
            self._refuse(cid, "no seeds are wanted now")
            return
        if not self.ended and not m.fault:
            # Seeds mid-hand, no fault: the person leaves. Between steps — once the shuffle in
            # progress, if any, is dealt — everyone is told, and the hand goes on without it.
            self.leaving[pid] = m.seeds
            return
        self.seeds[pid] = m.seeds
        if m.complaint:
            self.complaints[pid] = m.complaint
        if self.ended:
            return
        # Seeds mid-hand with a fault: the participant caught a cheat, it says, and stops
        # following, so the hand cannot go on. Signed, the claim is relayed with the seeds and
        # the check after the hand settles it: the culprit it proves, or else the claimant,
        # proven by its own signature. Unsigned, the stop is the claimant's at once.
        claim = claim_message(self.setup.ctx0, pid, m.fault, m.detail)
        if m.fault and verify_signature(self.setup.keys[pid], claim, m.signature):
            self.claims[pid] = (m.fault, m.detail, m.signature)
            self._stop("", BlindFault.WITHHELD, f"{pid} says: {m.detail}")
        else:
            self._stop(pid, BlindFault.WITHHELD, f"stopped the hand unsigned: {m.detail}")

    # -- running the hand forward --------------------------------------------------------------

    def _duties(self) -> bool:
        done = False
        for out in self.part.due():
            done = True
            if isinstance(out, PassOut):
                relay = p.BlindPass(
                    shuffle=out.shuffle,
                    number=out.number,
                    points=out.points,
                    signature=out.signature,
                    by=DEALER,
                )
                self._relay(relay)
                events = self.part.take_pass(
                    DEALER, out.shuffle, out.number, out.points, out.signature
                )
                self._gave(events)
            elif isinstance(out, ShareOut):
                self.shares.setdefault((out.shuffle, out.position), {})[DEALER] = out.share
            elif isinstance(out, ReleaseOut):
                release = p.BlindRelease(to=out.to, hidden=out.hidden, sealed=out.sealed, by=DEALER)
                self._deliver(release)
        if done:
            self._progress()
        return done

    def _open(self) -> bool:
        """Open the position the deal turns up, once everyone's key of it is in."""
        f = self.part.follower
        rec = f.open_shuffle
        j = f.pending_turn_up()
        if rec is None or j is None:
            return False
        got = self.shares.get((rec.index, j), {})
        if len(got) < len(rec.order):
            return False
        shares = tuple(got[q] for q in rec.order)
        relay = p.BlindOpen(shuffle=rec.index, position=j, shares=share_map(shares))
        self._relay(relay)
        try:
            events = self.part.take_open(rec.index, j, shares)
        except Cheat as c:
            self._cheat(c)
            return True
        self._gave(events)
        self._progress()
        return True

    def _leave(self) -> bool:
        """A person who said it leaves, between steps: its seeds go to everyone (its keys are
        anyone's to make now) and its seat is the host's, whose keys of the seat's cards the
        others now owe."""
        f = self.part.follower
        if not self.leaving or f.open_shuffle is not None:
            return False
        pid, seeds = next(iter(self.leaving.items()))
        seat = self.setup.seats.index(pid)
        if len(seeds) < len(f.shuffles) and self.host.cid_of_seat(seat) is not None:
            # Its goodbye crossed a shuffle begun here: it made its passes, and (still here)
            # sends its seeds again with that shuffle's.
            return False
        del self.leaving[pid]
        seeds = seeds[: len(f.shuffles)]  # (one it drew for a shuffle not begun here: unused)
        try:
            self.part.take_leave(pid, dict(enumerate(seeds)))
        except Cheat as c:
            self._cheat(c)
            return True
        except UsageError as e:
            self._stop(pid, BlindFault.WITHHELD, f"left without its seeds: {e}")
            return True
        self.seeds[pid] = seeds
        self._relay(p.BlindLeave(by=pid, seeds=seeds))
        for key in [key for key in self.owed if key[0] == pid]:
            del self.owed[key]
        for hidden in f.positions.hidden_in(f.game.hands[seat]):
            self._owe(seat, hidden)
        self.host.say(f"{self.host.seat_names()[seat]} left: the host plays the seat")
        self._progress()
        return True

    def _bot(self) -> bool:
        seat = self.part.to_move()
        if seat is None or self.host.now < self.turn_since + self.host.config.bot_delay:
            return False
        game = self.part.follower.game
        bot = self.bots.get(seat) or make_bot("heuristic", self.host.rules)
        move = self.host.bot_move(bot, game, seat)
        if move is None:  # asked of the shell: its answer advances the hand
            return False
        record = self.part.move(seat, move)
        shares = {} if record.opening is None else share_map(record.opening.shares)
        m = p.BlindMove(
            seq=record.seq,
            seat=seat,
            move=move,
            hidden=record.hidden,
            signature=record.signature,
            shares=shares,
        )
        self._take_move(m, DEALER)
        return True

    def _overdue(self) -> bool:
        """Stop the hand when what is owed is overdue, or owed by a person gone for good."""
        owing = [q for q in self.awaited() if q != DEALER]
        gone = [
            q
            for q in owing
            if q not in self.leaving and self.host.gone_for_good(self.setup.seats.index(q))
        ]
        f = self.part.follower
        seat = f.game.to_act() if not f.game.over else -1
        mine = seat >= 0 and f.owner(seat) == DEALER
        if not owing and not mine and seat >= 0 and self.host.gone_for_good(seat):
            gone = [self.setup.seats[seat]]  # its move: nobody else can make it
        if gone:
            self._stop(gone[0], BlindFault.WITHHELD, "left the table during the hand")
            return True
        if owing and self.host.now >= self.deadline_at:
            self._stop(owing[0], BlindFault.WITHHELD, "its part of the deal never came")
            return True
        return False

    # -- the end -------------------------------------------------------------------------------

    def _end(self) -> bool:
        """Collect every participant's seeds (the host's own at once), then reveal, check and
        score the hand."""
        if not self.seeds_deadline:
            self.seeds_deadline = self.host.now + self.host.config.heads_timeout
        for q, left in self.leaving.items():  # a goodbye the hand's end overtook: its seeds
            self.seeds.setdefault(q, left)
        holder = self.part.holder
        self.seeds.setdefault(DEALER, tuple(holder.seeds[k] for k in sorted(holder.seeds)))
        waiting = [
            q
            for q in self.setup.participants
            if q not in self.seeds and not self.host.gone_for_good(self.setup.seats.index(q))
        ]
        if waiting and self.host.now < self.seeds_deadline:
            return False
        reveal = p.BlindReveal(
            seeds=dict(self.seeds), complaints=dict(self.complaints), claims=dict(self.claims)
        )
        self._relay(reveal)
        seeds = {q: dict(enumerate(s)) for q, s in self.seeds.items()}
        finished = self.abort is None
        f = self.part.follower
        received = [*self.part.received(), *complaint_shares(f, self.complaints)]
        outcome = check_hand(f, seeds, received, finished=finished, claims=self.claims)
        if self.abort is not None and outcome.status != "unfair" and not outcome.culprit:
            # The check names nobody (a hand cut short is void, as far as it went): the stop
            # is then as the host's abort says — who withheld, on its word — as every client
            # judges it (``BlindPart._judge``); a seat blamed forfeits below, as at a
            # commit-reveal table (before, a blind withholder forfeited nothing).
            try:
                fault = BlindFault[self.abort.fault.upper()]
            except KeyError:
                fault = BlindFault.WITHHELD
            outcome = BlindOutcome(
                "void", self.abort.culprit, fault, self.abort.detail, proven=False
            )
        self.outcome = outcome
        people = self.setup.seats
        self.judgement = judgement(
            outcome,
            game_id=self.message.game_id,
            hand_no=self.game.hand_no,
            names=self.host.seat_names(),
            seats=people,
            dealt=("shuffle", 0) in self.part.follower.steps,
        )
        game = outcome.game
        if outcome.status != "fair" or game is None:
            # Scored as every reader judges it: a void, the seats it blames forfeiting by the
            # rule both deals score by (``fairdeal.forfeit``; a blind withholder too, once
            # the cards were dealt).
            game = self.game
            game.void([people.index(q) for q in self.judgement.forfeit])
        result = game.result
        assert result is not None
        self.game = game
        self.over = p.HandOver(
            reason=result.reason,
            placings=result.placings,
            scores=result.scores,
            hand_points=result.hand_points,
            head=_NO_HEAD,
        )
        self._relay(self.over)
        self.host.say(f"hand {game.hand_no}: {self.judgement.text()}")
        return True
