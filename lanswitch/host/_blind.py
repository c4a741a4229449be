"""The host's dealer-blind hands (``--blind``): it relays what it cannot read.

Theory of operation
-------------------
At a blind table the host holds no deck. It is one participant among the players —
``@dealer``, owning its bots' seats — with a :class:`~lanswitch.fairdeal.blindseat.Participant`
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
(``blind_reveal``), checks the hand itself (:func:`~lanswitch.fairdeal.blindcheck.check_hand`)
— the real scores come only from that replay, since nobody saw every hand during play — and
sends ``hand_over``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .. import protocol as p
from ..bots import Bot, make_bot
from ..fairdeal import DEALER, HandSetup
from ..fairdeal import blind as crypto
from ..fairdeal.blindcheck import BlindOutcome, check_hand
from ..fairdeal.blindgame import drawn_positions
from ..fairdeal.blindhand import (
    BlindFault,
    BlindSetup,
    Cheat,
    Holder,
    MoveRecord,
    Share,
    blind_setup,
)
from ..fairdeal.blindseat import (
    Complaint,
    Participant,
    PassOut,
    ReleaseOut,
    ShareOut,
    complaint_shares,
    opening_of,
    share_map,
)
from ..fairdeal.primitives import UsageError, named, public_bytes
from ..fairdeal.primitives import verify as verify_signature
from ..game import MAX_CARD, Event, Game
from ._core import HostBase

__all__ = ["BlindHand", "BlindHost"]

_NO_HEAD: Final = (0, bytes(32), b"")
"""``hand_over.head`` of a blind hand: it has no commit-reveal log."""


@dataclass(slots=True)
class BlindHand:
    """A blind hand in progress, and after it until its seeds are in."""

    message: p.Hand
    setup: BlindSetup
    part: Participant
    bots: dict[int, Bot]
    game: Game  # the match's game of this hand: scored from the check's replay
    deadline: float = 0.0  # when whatever is owed now is overdue
    turn_since: float = 0.0
    published: list[p.Message] = field(default_factory=list)
    sealed: dict[str, list[tuple[int, p.BlindRelease]]] = field(default_factory=dict)
    """Per drawer, every sealed key passed on to it, each with how many messages had been
    relayed to all by then (a drawer catching up gets each at the same point)."""
    shares: dict[tuple[int, int], dict[str, Share]] = field(default_factory=dict)
    owed: dict[tuple[str, int], str] = field(default_factory=dict)  # (sender, hidden) → to
    delivered: set[tuple[str, int, str]] = field(default_factory=set)  # (sender, hidden, to)
    abort: p.BlindAbort | None = None
    leaving: dict[str, tuple[bytes, ...]] = field(default_factory=dict)  # until no shuffle is open
    seeds: dict[str, tuple[bytes, ...]] = field(default_factory=dict)
    complaints: dict[str, tuple[Complaint, ...]] = field(default_factory=dict)
    seeds_deadline: float = 0.0
    unchecked: list[tuple[int, str, int]] = field(default_factory=list)
    """Passes relayed whose points still await the host's group test (``_blind_check``):
    ``(shuffle, author, pass)``, in the order they came."""
    outcome: BlindOutcome | None = None
    over: p.HandOver | None = None

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


class BlindHost(HostBase):
    """The blind half of :class:`lanswitch.host.Host` (module docstring)."""

    blind_holder_cls: type[Holder] = Holder
    """What keeps the host's own secrets in a blind hand (a dishonest host, in the tests that
    play one against untouched clients, plugs in one that cheats)."""

    def _start_blind_hand(self, game: Game, pids: tuple[str, ...], bots: dict[int, Bot]) -> None:
        keys: dict[str, bytes] = {DEALER: public_bytes(self.key)}
        for s in self.table.seats:
            if s.kind == "human" and game.active[s.index]:
                entry = self.table.clients[s.client or ""]
                keys[pids[s.index]] = self.keys[entry.token]
        out = tuple(s for s in range(game.players) if not game.active[s])
        hs = HandSetup.create(
            self.game_id,
            game.hand_no,
            game.rules,
            pids,
            keys,
            dealer=game.dealer,
            out=out,
            names=tuple(s.name[:32] for s in self.table.seats),  # as the lobby shows them
        )
        message = p.Hand(
            game_id=hs.game_id,
            hand_no=hs.hand_no,
            seats=pids,
            dealer=hs.dealer,
            out=hs.out,
            rules=hs.rules_toml,
            keys=hs.keys,
            blind=True,
            names=hs.names,
        )
        setup = blind_setup(hs)
        assert isinstance(self.key, Ed25519PrivateKey)
        holder = self.blind_holder_cls(
            setup,
            DEALER,
            self.key.private_bytes_raw(),
            lambda _k: self.entropy(32),
        )
        b = BlindHand(message, setup, Participant(holder), bots, game)
        b.deadline = self._now + self.config.round_timeout
        b.turn_since = self._now
        b.published.append(message)
        self.hand = b
        dealer = self.table.seats[game.dealer].name
        self._say(f"hand {game.hand_no} started (dealer-blind), {dealer} deals")
        self._broadcast_lobby()
        self._broadcast(message)

    # -- relaying ------------------------------------------------------------------------------

    def _relay(self, b: BlindHand, message: p.Message) -> None:
        b.published.append(message)
        self._broadcast(message)

    def _progress(self, b: BlindHand) -> None:
        b.deadline = self._now + self.config.round_timeout

    def _gave(self, b: BlindHand, events: list[Event]) -> None:
        """Note the sealed keys each participant (but the host, whose own are its duty) owes
        for the hidden cards a step gave out."""
        for seat, hidden in drawn_positions(events):
            self._owe(b, seat, hidden)
        if events:
            b.turn_since = self._now

    def _owe(self, b: BlindHand, seat: int, hidden: int) -> None:
        """Every person of the card's shuffle still here but the seat's owner owes it a key."""
        f = b.part.follower
        to = f.owner(seat)
        rec = f.shuffles[f.positions.locate(hidden)[0]]
        for q in rec.order:
            if q != to and q != DEALER and q not in f.gone:
                b.owed[(q, hidden)] = to

    def _stop(self, b: BlindHand, culprit: str, fault: BlindFault, detail: str) -> None:
        """Stop the hand: everyone is told, and reveals its seeds."""
        if b.abort is not None:
            return
        b.abort = p.BlindAbort(culprit=culprit, fault=fault.name.lower(), detail=detail[:500])
        said = f"{culprit} {fault.value}" if culprit else detail or "nobody known yet"
        self._say(named(f"hand {b.game.hand_no} stopped: {said}", self._seat_names()))
        self._relay(b, b.abort)
        b.seeds_deadline = self._now + self.config.heads_timeout

    def _cheat(self, b: BlindHand, c: Cheat) -> None:
        self._stop(b, c.culprit, c.fault, c.detail)

    def _blind_participant(self, cid: int) -> tuple[BlindHand | None, str]:
        h = self.hand
        seat = self._seat_of(cid)
        if not isinstance(h, BlindHand) or seat is None or seat not in h.setup.people:
            self._send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text="no blind hand of yours"))
            return None, ""
        return h, h.setup.seats[seat]

    def _refuse(self, cid: int, text: str) -> None:
        self._send(cid, p.Reject(code=p.ErrorCode.FAIR_DEAL, text=text[:500]))

    def _blind_pass(self, cid: int, m: p.BlindPass) -> None:
        b, pid = self._blind_participant(cid)
        if b is None:
            return
        f = b.part.follower
        rec = f.open_shuffle
        if b.ended or rec is None or rec.index != m.shuffle or rec.next_pass() != (pid, m.number):
            had = m.shuffle < len(f.shuffles) and (pid, m.number) in f.shuffles[m.shuffle].passes
            if not had:  # (one it has: sent again after a resume)
                self._refuse(cid, f"shuffle {m.shuffle} takes no pass {m.number} from you now")
            return
        relay = p.BlindPass(
            shuffle=m.shuffle, number=m.number, points=m.points, signature=m.signature, by=pid
        )
        try:
            events = b.part.take_pass(pid, m.shuffle, m.number, m.points, m.signature)
        except Cheat as c:
            if c.fault is not BlindFault.BAD_SIGNATURE:
                self._relay(b, relay)  # everyone sees the pass that broke the deal
            self._cheat(b, c)
            return
        self._relay(b, relay)
        b.unchecked.append((m.shuffle, pid, m.number))
        self._gave(b, events)
        self._progress(b)

    def _blind_check(self, b: BlindHand) -> bool:
        """The group test (:func:`~lanswitch.fairdeal.blind.point_problem`, ~40 µs a point)
        of a pass already relayed, its encoding checked as it came (``Follower``): at the next
        tick, so that the pass is on its way to the next author — whose lock refuses such a
        point too — while the host checks it, rather than the deal waiting for both checks one
        after the other. A point that fails stops the hand, in the pass's author's name,
        proven by its signed pass."""
        if not b.unchecked:
            return False
        k, pid, number = b.unchecked.pop(0)
        points = b.part.follower.shuffles[k].passes.get((pid, number))
        bad = None if points is None else crypto.find_invalid(points)
        if bad is not None:
            j, why = bad
            detail = f"pass {number}: position {j} is not a point of the prime-order group: {why}"
            self._cheat(b, Cheat(BlindFault.BAD_PASS, pid, detail))
        return True

    def _blind_share(self, cid: int, m: p.BlindShare) -> None:
        b, pid = self._blind_participant(cid)
        if b is None:
            return
        f = b.part.follower
        rec = f.open_shuffle
        if b.ended or rec is None or rec.index != m.shuffle or f.pending_turn_up() != m.position:
            had = m.shuffle < len(f.shuffles) and m.position in f.shuffles[m.shuffle].opened
            if not had:
                text = f"position {m.position} of shuffle {m.shuffle} is not being opened"
                self._refuse(cid, text)
            return
        message = crypto.release_message(rec.ctx, pid, "", m.position, m.key)
        if not verify_signature(b.setup.keys[pid], message, m.signature):
            self._refuse(cid, "that key is not signed with your key")
            return
        b.shares.setdefault((m.shuffle, m.position), {})[pid] = Share(pid, "", m.key, m.signature)
        self._progress(b)

    def _blind_release(self, cid: int, m: p.BlindRelease) -> None:
        b, pid = self._blind_participant(cid)
        if b is None:
            return
        if b.owed.get((pid, m.hidden)) != m.to:
            if (pid, m.hidden, m.to) not in b.delivered:
                self._refuse(cid, f"you owe {m.to} no key of hidden card {m.hidden}")
            return
        del b.owed[(pid, m.hidden)]
        b.delivered.add((pid, m.hidden, m.to))
        self._progress(b)
        self._deliver(b, p.BlindRelease(to=m.to, hidden=m.hidden, sealed=m.sealed, by=pid))

    def _deliver(self, b: BlindHand, r: p.BlindRelease) -> None:
        """A sealed key to its drawer (the host's own: taken; a person's: sent, and kept for
        the drawer's catch-up)."""
        if r.to == DEALER:
            try:
                b.part.take_release(r.by, r.hidden, r.sealed)
            except Cheat as c:
                self._cheat(b, c)
            return
        b.sealed.setdefault(r.to, []).append((len(b.published), r))
        seat = b.setup.seats.index(r.to)
        target = self._cid_of_seat(seat)
        if target is not None:
            self._send(target, r)

    def _blind_move(self, cid: int, m: p.BlindMove) -> None:
        b, pid = self._blind_participant(cid)
        if b is None:
            return
        seat = b.setup.seats.index(pid)
        f = b.part.follower
        if m.seq < len(f.moves) and f.moves[m.seq].signature == m.signature:
            return  # one it has: sent again after a resume
        if f.owner(seat) != pid:
            # It left mid-hand (its leave relayed): the host's stand-in plays the seat now.
            # Taken, its move would fail the owner's signature check and stop the hand as the
            # host's doing (bad_signature, blamed on the owner, @dealer): a leaver's way to
            # void a hand in the host's name.
            text = "you left this hand: the host plays your seat now"
            self._send(cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text=text, seq=m.seq))
            return
        if b.ended or m.seat != seat or f.game.to_act() != seat or f.open_shuffle is not None:
            self._send(
                cid, p.Reject(code=p.ErrorCode.NOT_YOUR_TURN, text="not your turn", seq=m.seq)
            )
            return
        if m.seq != len(f.moves):
            text = f"that is move {m.seq}; the hand is at move {len(f.moves)}"
            self._send(cid, p.Reject(code=p.ErrorCode.STALE_VIEW, text=text, seq=m.seq))
            return
        self._take_move(b, m, pid)

    def _take_move(self, b: BlindHand, m: p.BlindMove, pid: str) -> None:
        f = b.part.follower
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
            events = b.part.take_move(record)
        except Cheat as c:
            if c.fault is not BlindFault.BAD_SIGNATURE:
                self._relay(b, relay)
            self._cheat(b, c)
            return
        except UsageError as e:
            self._refuse(self._cid_of_seat(m.seat) or -1, str(e))
            return
        self._relay(b, relay)
        self._gave(b, events)
        self._progress(b)

    def _blind_seeds(self, cid: int, m: p.BlindSeeds) -> None:
        b, pid = self._blind_participant(cid)
        if b is None:
            return
        if b.seeds.get(pid) == m.seeds or b.leaving.get(pid) == m.seeds:
            return  # sent again after a resume
        if b.over is not None or pid in b.seeds:
            self._refuse(cid, "no seeds are wanted now")
            return
        if not b.ended and not m.fault:
            # Seeds mid-hand, no fault: the person leaves. Between steps — once the shuffle in
            # progress, if any, is dealt — everyone is told, and the hand goes on without it.
            b.leaving[pid] = m.seeds
            return
        b.seeds[pid] = m.seeds
        if m.complaint:
            b.complaints[pid] = m.complaint
        if not b.ended:
            # Seeds mid-hand with a fault: the participant caught a cheat (its word) and stops
            # following, so the hand cannot go on.
            self._stop(b, "", BlindFault.WITHHELD, f"{pid} says: {m.detail}")

    # -- running the hand forward --------------------------------------------------------------

    def _blind_advance(self, b: BlindHand, moves: bool) -> bool:
        if b.over is not None:
            self._blind_finish(b)
            return True
        if b.ended:
            return self._blind_end(b)
        if moves and self._blind_check(b):  # (a tick's work: after what came went out)
            return True
        try:
            if self._blind_duties(b):
                return True
        except Cheat as c:  # the host's own pass found the pass before it broken
            self._cheat(b, c)
            return True
        if self._blind_open(b):
            return True
        if self._blind_leave(b):
            return True
        if moves and self._blind_bot(b):
            return True
        return self._blind_overdue(b)

    def _blind_duties(self, b: BlindHand) -> bool:
        done = False
        for out in b.part.due():
            done = True
            if isinstance(out, PassOut):
                relay = p.BlindPass(
                    shuffle=out.shuffle,
                    number=out.number,
                    points=out.points,
                    signature=out.signature,
                    by=DEALER,
                )
                self._relay(b, relay)
                events = b.part.take_pass(
                    DEALER, out.shuffle, out.number, out.points, out.signature
                )
                self._gave(b, events)
            elif isinstance(out, ShareOut):
                b.shares.setdefault((out.shuffle, out.position), {})[DEALER] = out.share
            elif isinstance(out, ReleaseOut):
                release = p.BlindRelease(to=out.to, hidden=out.hidden, sealed=out.sealed, by=DEALER)
                self._deliver(b, release)
        if done:
            self._progress(b)
        return done

    def _blind_open(self, b: BlindHand) -> bool:
        """Open the position the deal turns up, once everyone's key of it is in."""
        f = b.part.follower
        rec = f.open_shuffle
        j = f.pending_turn_up()
        if rec is None or j is None:
            return False
        got = b.shares.get((rec.index, j), {})
        if len(got) < len(rec.order):
            return False
        shares = tuple(got[q] for q in rec.order)
        relay = p.BlindOpen(shuffle=rec.index, position=j, shares=share_map(shares))
        self._relay(b, relay)
        try:
            events = b.part.take_open(rec.index, j, shares)
        except Cheat as c:
            self._cheat(b, c)
            return True
        self._gave(b, events)
        self._progress(b)
        return True

    def _blind_leave(self, b: BlindHand) -> bool:
        """A person who said it leaves, between steps: its seeds go to everyone (its keys are
        anyone's to make now) and its seat is the host's, whose keys of the seat's cards the
        others now owe."""
        f = b.part.follower
        if not b.leaving or f.open_shuffle is not None:
            return False
        pid, seeds = next(iter(b.leaving.items()))
        seat = b.setup.seats.index(pid)
        if len(seeds) < len(f.shuffles) and self._cid_of_seat(seat) is not None:
            # Its goodbye crossed a shuffle begun here: it made its passes, and (still here)
            # sends its seeds again with that shuffle's.
            return False
        del b.leaving[pid]
        seeds = seeds[: len(f.shuffles)]  # (one it drew for a shuffle not begun here: unused)
        try:
            b.part.take_leave(pid, dict(enumerate(seeds)))
        except Cheat as c:
            self._cheat(b, c)
            return True
        except UsageError as e:
            self._stop(b, pid, BlindFault.WITHHELD, f"left without its seeds: {e}")
            return True
        b.seeds[pid] = seeds
        self._relay(b, p.BlindLeave(by=pid, seeds=seeds))
        for key in [key for key in b.owed if key[0] == pid]:
            del b.owed[key]
        for hidden in f.positions.hidden_in(f.game.hands[seat]):
            self._owe(b, seat, hidden)
        self._say(f"{self.table.seats[seat].name} left: the host plays the seat")
        self._progress(b)
        return True

    def _blind_bot(self, b: BlindHand) -> bool:
        seat = b.part.to_move()
        if seat is None or self._now < b.turn_since + self.config.bot_delay:
            return False
        game = b.part.follower.game
        bot = b.bots.get(seat) or make_bot("heuristic", self.rules)
        move = bot.choose(game.view(seat), self._rng)
        record = b.part.move(seat, move)
        shares = {} if record.opening is None else share_map(record.opening.shares)
        m = p.BlindMove(
            seq=record.seq,
            seat=seat,
            move=move,
            hidden=record.hidden,
            signature=record.signature,
            shares=shares,
        )
        self._take_move(b, m, DEALER)
        return True

    def _blind_overdue(self, b: BlindHand) -> bool:
        """Stop the hand when what is owed is overdue, or owed by a person gone for good."""
        owing = [q for q in b.awaited() if q != DEALER]
        gone = [
            q for q in owing if q not in b.leaving and self._gone_for_good(b.setup.seats.index(q))
        ]
        f = b.part.follower
        seat = f.game.to_act() if not f.game.over else -1
        mine = seat >= 0 and f.owner(seat) == DEALER
        if not owing and not mine and seat >= 0 and self._gone_for_good(seat):
            gone = [b.setup.seats[seat]]  # its move: nobody else can make it
        if gone:
            self._stop(b, gone[0], BlindFault.WITHHELD, "left the table during the hand")
            return True
        if owing and self._now >= b.deadline:
            self._stop(b, owing[0], BlindFault.WITHHELD, "its part of the deal never came")
            return True
        return False

    def _blind_deadline(self, b: BlindHand) -> float | None:
        if b.over is not None:
            return self._now
        times = [since + self.config.away_grace for since in self.away.values()]
        if b.ended:
            return min([b.seeds_deadline, *times])
        if b.unchecked:
            times.append(self._now)
        if [q for q in b.awaited() if q != DEALER]:
            times.append(b.deadline)
        elif b.part.to_move() is not None:
            times.append(b.turn_since + self.config.bot_delay)
        return min(times) if times else None

    # -- the end -------------------------------------------------------------------------------

    def _blind_end(self, b: BlindHand) -> bool:
        """Collect every participant's seeds (the host's own at once), then reveal, check and
        score the hand."""
        if not b.seeds_deadline:
            b.seeds_deadline = self._now + self.config.heads_timeout
        for q, left in b.leaving.items():  # a goodbye the hand's end overtook: its seeds
            b.seeds.setdefault(q, left)
        holder = b.part.holder
        b.seeds.setdefault(DEALER, tuple(holder.seeds[k] for k in sorted(holder.seeds)))
        waiting = [
            q
            for q in b.setup.participants
            if q not in b.seeds and not self._gone_for_good(b.setup.seats.index(q))
        ]
        if waiting and self._now < b.seeds_deadline:
            return False
        reveal = p.BlindReveal(seeds=dict(b.seeds), complaints=dict(b.complaints))
        self._relay(b, reveal)
        seeds = {q: dict(enumerate(s)) for q, s in b.seeds.items()}
        finished = b.abort is None
        f = b.part.follower
        received = [*b.part.received(), *complaint_shares(f, b.complaints)]
        outcome = check_hand(f, seeds, received, finished=finished)
        if b.abort is not None and outcome.status != "unfair" and not outcome.culprit:
            # The check names nobody (a hand cut short is void, as far as it went): the stop
            # is then as the host's abort says — who withheld, on its word — as every client
            # judges it (``BlindPart._judge``); a seat blamed forfeits below, as at a
            # commit-reveal table (before, a blind withholder forfeited nothing).
            try:
                fault = BlindFault[b.abort.fault.upper()]
            except KeyError:
                fault = BlindFault.WITHHELD
            outcome = BlindOutcome("void", b.abort.culprit, fault, b.abort.detail, proven=False)
        b.outcome = outcome
        game = outcome.game
        if outcome.status != "fair" or game is None:
            game = b.game
            people = b.setup.seats
            culprit = outcome.culprit
            # As at a commit-reveal table (``Dealer.fail``): on the host's word alone, only
            # once the cards were dealt (a player cannot choose a deal it never saw).
            dealt = ("shuffle", 0) in b.part.follower.steps
            forfeit = [people.index(culprit)] if culprit in people else []
            if not outcome.proven and not dealt:
                forfeit = []
            game.void(forfeit)
        result = game.result
        assert result is not None
        b.game = game
        b.over = p.HandOver(
            reason=result.reason,
            placings=result.placings,
            scores=result.scores,
            hand_points=result.hand_points,
            head=_NO_HEAD,
        )
        self._relay(b, b.over)
        verdict = str(outcome)
        self._say(named(f"hand {game.hand_no}: {verdict}", self._seat_names()))
        return True

    def _blind_finish(self, b: BlindHand) -> None:
        self._hand_done(b.game)
        self.last_hand = b

    def _blind_catch_up(self, cid: int, b: BlindHand) -> None:
        """Everything relayed so far, in order, with the sealed keys meant for it each at the
        point it was passed on (a key of a card laid since must come before the lay). Whose
        keys they are goes by the session key it said hello with, as the hand dealt them:
        between hands (a player caught up on the hand whose end it missed, or the host's own
        player in a restarted process) no seat is in play, and one may have moved since."""
        conn = self.conns.get(cid)
        key = None if conn is None else conn.key
        mine = next((got for q, got in b.sealed.items() if b.setup.keys.get(q) == key), [])
        keys = iter(mine)
        pending = next(keys, None)
        for i, message in enumerate(b.published):
            while pending is not None and pending[0] <= i:
                self._send(cid, pending[1])
                pending = next(keys, None)
            self._send(cid, message)
        while pending is not None:
            self._send(cid, pending[1])
            pending = next(keys, None)
