"""Verifying a hand from one seat's transcript alone.

Theory of operation
-------------------
:func:`verify` needs nothing but the :class:`~.transcript.Transcript`. It checks the host's
signed head and its signature over the seat's cards, then **replays the whole hand through
the rules engine**, event by event: every round is checked where it was announced (the
host's signature, the context this log gives, the people present, the commitments of its
stage, every later announcement of it against the first — all through
:data:`.round.ROUND_FLOW` and :mod:`.checks`, the code the seat ran live), every shuffle is
re-derived from the revealed seeds, every move's maker and signature checked and the move
applied, and every public event and every card of the seat compared with what the engine
makes of them. Then it asks who confirmed the log: every other person's signed head, or how
far its signed moves and its goodbye reach.

The verdicts and what each proves are :mod:`.verdict`'s (with the verdict made from a
transcript, and what a transcript says of its own keeper); comparing several transcripts of
one hand is :mod:`.compare`'s.

Why one module of some 750 lines: nearly all of it is one class, ``_Verifier``, whose single
walk through the log carries the state every check reads — the engine, the round in progress,
who is present, what has been dealt — and :mod:`.steps` walks the same class step by step for
``lanswitch replay``. Its parts are its methods, in the order the walk meets them (the host's
head, rounds, presence and moves, who confirmed the log); cutting them across files would
spread one state over several, as the host's classes once were.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..cards import SUIT_NAMES, format_card
from ..errors import RemoteError
from ..game import BLUNDER_FLAG, SUIT_BASE, Event, Game, IllegalMove, Reason, format_move
from ..narrate import won_how
from .checks import Presence, check_announcement, check_move, check_same_round, timeout_move
from .dealer import card_events
from .forfeit import forfeiters
from .keystream import shuffle
from .log import (
    BY_SEAT,
    BY_TIMEOUT,
    LEFT,
    Away,
    Back,
    Draw,
    LogEvent,
    Move,
    Note,
    Shuffle,
    TurnUp,
)
from .primitives import (
    DEALER,
    SEED_BYTES,
    Fault,
    cards_message,
    commitment,
    commitment_message,
    deck_key,
    log_head_message,
    participants_of,
    reveal_message,
)
from .primitives import (
    verify as verify_signature,
)
from .round import Announcement, RoundEvent, RoundFlowError, RoundState, next_state
from .transcript import RoundRecord, Transcript
from .verdict import Absence, Status, Verdict, keeper_sent, own_absence, verdict_of

__all__ = ["verify"]


class _Unfair(RemoteError):  # noqa: N818
    def __init__(
        self, check: str, reason: str, culprits: Sequence[str] = (DEALER,), proven: bool = True
    ) -> None:
        super().__init__(reason)
        self.check = check
        self.reason = reason
        self.culprits = tuple(culprits)
        self.proven = proven


@dataclass(frozen=True, slots=True)
class _Void:
    reason: str
    culprits: tuple[str, ...]
    proven: bool
    forfeit: tuple[str, ...]


_ORDINAL_SUFFIX: Final = {1: "st", 2: "nd", 3: "rd"}


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else _ORDINAL_SUFFIX.get(n % 10, "th")
    return f"{n}{suffix}"


def _cards_text(cards: Iterable[int]) -> str:
    return " ".join(format_card(c) for c in cards)


@dataclass
class _Current:
    """The round the replay has reached, and where it stands in ROUND_FLOW."""

    rec: RoundRecord
    state: RoundState
    fixed: Announcement | None = None


class _Verifier:
    """One transcript's verification (see the module docstring)."""

    def __init__(self, t: Transcript) -> None:
        self.t = t
        self.heads = t.heads()
        self.setup = t.setup
        self.log = t.log
        self.presence = Presence(t.setup)
        self.i = 0  # the next log event to read
        self.own = 0  # how many of the seat's own cards are checked
        self.rounds = sorted(t.rounds, key=lambda r: r.round)
        self.next_round = 0  # the next round record to reach
        self.current: _Current | None = None
        self.dealt = 0  # rounds dealt from
        self.moved: dict[str, int] = {}  # person → the log count its last own move signed
        self.void: _Void | None = None

    # -- words ---------------------------------------------------------------------------------

    def name(self, seat: int) -> str:
        seats = self.setup.seats
        return self.t.name(seats[seat]) if 0 <= seat < len(seats) else f"seat {seat}"

    def describe(self, ev: LogEvent) -> str:
        if isinstance(ev, Draw):
            return f"{self.name(ev.seat)} takes {ev.n} card{'s' if ev.n != 1 else ''}"
        if isinstance(ev, TurnUp):
            return f"{format_card(ev.card)} is turned up"
        if isinstance(ev, Move):
            m = ev.move
            if SUIT_BASE <= m < SUIT_BASE + 4:
                what = f"names {SUIT_NAMES[m - SUIT_BASE]}"
            elif m & BLUNDER_FLAG:
                what = f"blunders ({format_move(m & ~BLUNDER_FLAG)})"
            else:
                what = f"plays {format_move(m)}" if m < 108 else format_move(m)
            return f"{self.name(ev.seat)} {what}"
        if isinstance(ev, Shuffle):
            return f"round {ev.round} is dealt ({ev.n} cards)"
        if isinstance(ev, Away):
            return f"{self.name(ev.seat)} is away"
        if isinstance(ev, Back):
            return f"{self.name(ev.seat)} is back"
        return f"the note {ev.label!r}"

    # -- the run -------------------------------------------------------------------------------

    def run(self) -> Game | None:
        self.check_host_head()
        self.check_cards_signature()
        return self.replay()

    def check_host_head(self) -> None:
        t, ctx0 = self.t, self.setup.ctx0
        h = t.log_heads.get(DEALER)
        count, final = len(self.log), self.heads[-1]
        if h is None:
            # A host that stops short of its head keeps back what the hand would be checked
            # by: the same to every player whether it crashed, quit or stacked the deck.
            raise _Unfair(
                "log-heads",
                "the host never signed the log it sent you: it did not finish the hand, so the "
                "hand cannot be checked",
                proven=False,
            )
        if not verify_signature(
            self.setup.keys[DEALER], log_head_message(ctx0, DEALER, h.count, h.head), h.signature
        ):
            raise _Unfair("log-heads", "the host did not sign the log it sent you", proven=False)
        if (h.count, h.head) != (count, final):
            # Not proof: the file's log is its keeper's word, and its keeper could have cut it
            # short or changed it (signing its own head again) after the hand. Only two of the
            # host's own statements that disagree prove it showed two logs (.compare).
            if h.count > count:
                raise _Unfair(
                    "log-heads",
                    f"the host signed a log of {h.count} events, but this record holds only "
                    f"{count}: the host never sent you the rest, or the file was cut short",
                    proven=False,
                )
            raise _Unfair(
                "log-heads",
                f"the host signed a log of {h.count} events ending {h.head.hex()[:12]}, not the "
                f"one it sent you ({count} events ending {final.hex()[:12]})",
                proven=False,
            )

    def check_cards_signature(self) -> None:
        t = self.t
        msg = cards_message(self.setup.ctx0, t.id, t.cards)
        if not verify_signature(self.setup.keys[DEALER], msg, t.cards_signature):
            raise _Unfair(
                "cards",
                "the host's signature over the cards it gave you does not verify",
                proven=False,
            )

    def replay(self) -> Game | None:
        setup, log = self.setup, self.log
        game = setup.new_game()
        if not log or log[0] != setup.note:
            raise _Unfair(
                "log",
                "the log does not start with this hand's setup (rules, dealer, seats out, timer)",
            )
        self.i = 1
        bound = 3 * len(log) + 3 * len(self.rounds) + 8
        for _ in range(bound):
            self.reach_rounds(game)
            if self.i < len(log) and isinstance(log[self.i], Away | Back | Note):
                self.presence_event(game)
                continue
            if game.result is not None:
                break
            if game.chance_request() is not None:
                if self.i >= len(log) and self.t.void is not None:
                    self.void = self.void_round(game)
                    break
                self.chance_step(game)
            else:
                self.move_step(game)
        self.reach_rounds(game)
        if self.i < len(log):
            raise _Unfair(
                "log", f"the log goes on after the hand is over: {self.describe(log[self.i])}"
            )
        if self.t.void is not None and self.void is None:
            raise _Unfair(
                "abort",
                f"the host announced that round {self.t.void.round} failed, but the hand was "
                "played to its end",
            )
        if self.next_round < len(self.rounds):
            rec = self.rounds[self.next_round]
            raise _Unfair("round", f"round {rec.round} was announced where the log never was")
        if self.current is not None and self.current.state is RoundState.FIXED and not self.void:
            raise _Unfair(
                "round",
                f"round {self.current.rec.round}'s commitments were all shown, yet it was never "
                "dealt from nor aborted (a redeal)",
            )
        if self.own < len(self.t.cards):
            extra = self.t.cards[self.own :]
            raise _Unfair(
                "cards",
                f"the host gave you {len(extra)} card{'s' if len(extra) != 1 else ''} more than "
                f"the hand dealt you ({_cards_text(extra)})",
            )
        return game

    # -- rounds --------------------------------------------------------------------------------

    def reach_rounds(self, game: Game) -> None:
        """Check every round announced with the log at this point (``at == i``)."""
        while self.next_round < len(self.rounds) and self.rounds[self.next_round].at <= self.i:
            rec = self.rounds[self.next_round]
            if rec.round != self.next_round:
                raise _Unfair("round", f"round {rec.round} was announced out of turn")
            if rec.at != self.i:
                raise _Unfair("round", f"round {rec.round} was announced in the middle of a step")
            self.announced(game, rec)
            self.next_round += 1

    def announced(self, game: Game, rec: RoundRecord) -> None:
        r, setup = rec.round, self.setup
        req = game.chance_request()
        if req is None or game.result is not None:
            raise _Unfair("round", f"round {r} was announced when no shuffle was due")
        prev = self.current
        if prev is not None and prev.state is not RoundState.DEALT:
            try:
                prev.state = next_state(prev.state, RoundEvent.WITHDRAW)
            except RoundFlowError:
                raise _Unfair(
                    "round",
                    f"round {r} was announced while round {prev.rec.round}'s commitments were "
                    "all fixed: a redeal",
                ) from None
        first = rec.first
        for ann in rec.announces:
            # Every announcement speaks against the host only under its signature: one the
            # host never signed is this file's word alone (a keeper who doctored its own file
            # could otherwise frame an honest host "by signatures" with a contradiction).
            if not ann.signed_by(setup.keys[DEALER], setup.ctx0):
                raise _Unfair(
                    "round",
                    f"round {r} was announced without the host's valid signature (as this file "
                    "has it: nothing the host signed shows it)",
                    proven=False,
                )
        if first.fixed:
            raise _Unfair("round", f"round {r} was first announced with every commitment")
        problem = check_announcement(
            setup, first, self.i, self.heads[self.i], self.presence.present_mask()
        )
        if problem is not None:
            raise _Unfair("round", problem)
        if list(first.cards) != req[1]:
            left_out = sorted(set(req[1]) - set(first.cards))
            added = sorted(set(first.cards) - set(req[1]))
            pile = "the deck" if self.dealt == 0 else "the discard pile under its top card"
            diff = "; ".join(
                part
                for part in (
                    f"left out {_cards_text(left_out)}" if left_out else "",
                    f"added {_cards_text(added)}" if added else "",
                )
                if part
            )
            raise _Unfair("round", f"round {r} was announced for other cards than {pile}: {diff}")
        cur = _Current(rec, RoundState.ANNOUNCED)
        for k, ann in enumerate(rec.announces[1:], 1):
            problem = next(
                (x for x in (check_same_round(e, ann) for e in rec.announces[:k]) if x is not None),
                None,
            )
            if problem is None and ann.fixed and cur.fixed is None:
                problem = check_announcement(setup, ann, self.i, self.heads[self.i], first.mask)
                cur.fixed = ann
                cur.state = next_state(cur.state, RoundEvent.FIX)
            if problem is not None:
                raise _Unfair("round", problem)
        if cur.fixed is not None:
            mine = cur.fixed.commitments.get(self.t.id)
            if rec.own_seed is not None:
                own = (
                    commitment(first.ctx, self.t.id, rec.own_seed)
                    if len(rec.own_seed) == SEED_BYTES
                    else b""
                )
                if mine is None or mine[0] != own:
                    raise _Unfair(
                        "round", f"round {r}: the host changed or dropped your commitment"
                    )
        self.current = cur

    def chance_step(self, game: Game) -> None:
        log, cur = self.log, self.current
        what = "the deal" if self.dealt == 0 else "a reshuffle"
        if self.i >= len(log):
            raise _Unfair("log", f"{what} is due, but the log ends")
        ev = log[self.i]
        if not isinstance(ev, Shuffle):
            raise _Unfair("log", f"{what} is due, but the log has: {self.describe(ev)}")
        if cur is None or cur.rec.round != ev.round or cur.rec.at != self.i:
            raise _Unfair(
                "round",
                f"{what} was dealt from round {ev.round}, not from the round announced here",
            )
        if cur.state is not RoundState.FIXED or cur.fixed is None:
            raise _Unfair(
                "round", f"round {ev.round} was dealt from before all its commitments were shown"
            )
        first = cur.rec.first
        if (ev.mask, ev.n) != (first.mask, len(first.cards)):
            raise _Unfair("round", f"the log deals round {ev.round} for other seats or cards")
        order = self.derive(cur)
        cur.state = next_state(cur.state, RoundEvent.DEAL)
        self.i += 1
        self.dealt += 1
        events = game.apply_chance(order)
        self.expect(card_events(events), f"round {ev.round}")
        self.check_own(events)

    def derive(self, cur: _Current) -> list[int]:
        """Open the round from the seeds revealed after the hand; its order."""
        rec, t = cur.rec, self.t
        assert cur.fixed is not None
        ctx, r = rec.first.ctx, rec.round
        ps = participants_of(self.setup.seats, rec.first.mask)
        commitments = cur.fixed.commitments
        if t.id in ps:
            if rec.own_seed is None:
                raise _Unfair("round", f"round {r} went ahead without your commitment")
            got = rec.seeds.get(t.id)
            if got is None or got[0] != rec.own_seed:
                raise _Unfair(
                    "round",
                    f"round {r}: the host revealed a seed of yours you never had",
                    proven=False,  # the seeds after the hand are the host's unsigned word
                )
        missing = [p for p in ps if p not in rec.seeds]
        if missing:
            raise _Unfair(
                "round",
                f"round {r}: the host did not reveal the seed of {self.whos(missing)}",
                proven=False,
            )
        seeds = {}
        bad = []
        for p in ps:
            seed, sig = rec.seeds[p]
            c = commitments[p][0]
            if not verify_signature(self.setup.keys[p], reveal_message(ctx, p, c, seed), sig):
                raise _Unfair(
                    "round",
                    f"round {r}: the host passed on a seed of {self.t.name(p)} without its "
                    "valid signature",
                    proven=False,
                )
            if len(seed) != SEED_BYTES or commitment(ctx, p, seed) != c:
                bad.append(p)
            seeds[p] = seed
        if bad:
            culprits = tuple(dict.fromkeys((*bad, DEALER)))
            reason = f"round {r}: {self.whos(bad)} {Fault.BAD_REVEAL.value}"
            if bad != [DEALER]:
                reason += ", and the host dealt on instead of voiding the hand"
            raise _Unfair("round", reason, culprits)
        return shuffle(deck_key(ctx, seeds), rec.first.cards)

    def whos(self, pids: Iterable[str]) -> str:
        return ", ".join(self.t.name(p) for p in pids) or "nobody"

    def void_round(self, game: Game) -> _Void:
        """The log ends where a round was due and the host says it failed: check its account."""
        t, cur, setup = self.t, self.current, self.setup
        void = t.void
        assert void is not None
        r = void.round
        if cur is None or cur.rec.round != r or cur.rec.at != self.i:
            raise _Unfair(
                "abort", f"the host says round {r} failed, but it is not the round open here"
            )
        if not void.signed_by(setup.keys[DEALER], setup.ctx0):
            raise _Unfair("abort", "the host's abort is not signed by the host", proven=False)
        try:
            cur.state = next_state(cur.state, RoundEvent.FAIL)
        except RoundFlowError as e:  # pragma: no cover - a current round is never final here
            raise _Unfair("abort", f"round {r}: {e}") from None
        rec, first = cur.rec, cur.rec.first
        ctx = first.ctx
        ps = participants_of(setup.seats, first.mask)
        shown = dict(cur.fixed.commitments) if cur.fixed is not None else dict(void.commitments)
        for p, (c, sig) in void.commitments.items():
            if p not in ps or not verify_signature(
                setup.keys[p], commitment_message(ctx, p, c), sig
            ):
                raise _Unfair(
                    "abort",
                    f"round {r}: the host's abort shows a commitment of {self.t.name(p)} that is "
                    "not its own",
                )
            if p in shown and shown[p][0] != c:
                raise _Unfair(
                    "abort",
                    f"round {r}: the host's abort shows another commitment of {self.t.name(p)} "
                    "than its announcement",
                )
        if shown.get(DEALER, (b"",))[0] != first.commitments[DEALER][0]:
            raise _Unfair("abort", f"round {r}: the host's abort changes its own commitment")
        for p, (seed, sig) in rec.seeds.items():
            cp = shown.get(p)
            if (
                p not in ps
                or cp is None
                or not verify_signature(setup.keys[p], reveal_message(ctx, p, cp[0], seed), sig)
            ):
                raise _Unfair(
                    "abort",
                    f"round {r}: the host passed on a seed of {self.t.name(p)} without its "
                    "valid signature",
                )
        bad = [
            p
            for p, (seed, _) in rec.seeds.items()
            if len(seed) != SEED_BYTES or commitment(ctx, p, seed) != shown[p][0]
        ]
        claimed, fault = void.culprits, void.fault
        forfeit = self.forfeiters(claimed, proven=fault is Fault.BAD_REVEAL)
        if bad:
            if fault is not Fault.BAD_REVEAL or set(claimed) != set(bad):
                raise _Unfair(
                    "abort",
                    f"round {r}: the host blamed {self.whos(claimed)} ({fault.value}), but the "
                    f"seed of {self.whos(bad)} is what does not open its commitment",
                )
            return _Void(
                f"round {r}: {self.whos(bad)} {Fault.BAD_REVEAL.value} (its own signature "
                "proves it)",
                tuple(bad),
                True,
                forfeit,
            )
        if fault is Fault.BAD_REVEAL:
            raise _Unfair(
                "abort",
                f"round {r}: the host voided the hand blaming {self.whos(claimed)} for a bad seed, "
                "but every revealed seed opens its commitment",
            )
        if fault is Fault.MISSING_COMMITMENT:
            if cur.fixed is not None:
                raise _Unfair(
                    "abort",
                    f"round {r}: the host says a commitment is missing, but it showed them all",
                )
            missing = [p for p in ps if p not in void.commitments]
            own_did = keeper_sent(rec, fault)
        elif fault is Fault.MISSING_REVEAL:
            if cur.fixed is None:
                raise _Unfair("abort", f"round {r}: not every commitment of the round was shown")
            missing = [p for p in ps if p not in rec.seeds]
            own_did = keeper_sent(rec, fault)
        else:
            raise _Unfair(
                "abort",
                f"round {r}: the host voided the hand for a reason of its own: {fault.value}",
            )
        if not claimed or set(claimed) != set(missing):
            raise _Unfair(
                "abort",
                f"round {r}: the host blamed {self.whos(claimed)} ({fault.value}), but what is "
                f"missing is from {self.whos(missing)}",
            )
        if t.id in claimed and own_did:
            what = "commit" if fault is Fault.MISSING_COMMITMENT else "reveal your seed"
            raise _Unfair(
                "abort",
                f"round {r}: the host says you did not {what}, but you did",
                proven=False,
            )
        if claimed == (DEALER,):
            return _Void(
                f"round {r}: the host {fault.value}: it aborted the hand itself (the last-revealer "
                "abort, which every player counts)",
                claimed,
                True,
                (),
            )
        return _Void(
            f"round {r}: {self.whos(claimed)} {fault.value}, says the host (a message that never "
            "came cannot be proven)",
            claimed,
            False,
            forfeit,
        )

    def forfeiters(self, culprits: Iterable[str], *, proven: bool) -> tuple[str, ...]:
        """The culprits who forfeit: players, once the cards were dealt, and at the deal for
        a seed proven bad (:mod:`~lanswitch.fairdeal.forfeit`, as the host scores it)."""
        return forfeiters(culprits, self.setup.seats, dealt=bool(self.dealt), proven=proven)

    # -- presence and moves --------------------------------------------------------------------

    def presence_event(self, game: Game) -> None:
        ev = self.log[self.i]
        if isinstance(ev, Note):
            if ev.label == "setup":
                raise _Unfair("log", "the log holds a second setup note")
            self.i += 1
            return
        problem = self.presence.feed(self.i, ev, self.heads)
        if problem is not None:
            raise _Unfair("presence", problem)
        if game.result is not None:
            raise _Unfair("log", f"the log goes on after the hand is over: {self.describe(ev)}")
        if isinstance(ev, Away) and ev.how == LEFT:
            pid = self.setup.seats[ev.seat]
            self.moved[pid] = max(self.moved.get(pid, 0), ev.count)
        self.i += 1

    def move_step(self, game: Game) -> None:
        log = self.log
        if self.i >= len(log):
            raise _Unfair(
                "log", f"the log ends before the hand does ({self.name(game.to_act())} is to act)"
            )
        ev = log[self.i]
        if isinstance(ev, Shuffle):
            raise _Unfair(
                "log",
                f"the log deals round {ev.round} while the stock still holds "
                f"{len(game.stock)} cards: the rules reshuffle only an empty stock",
            )
        if not isinstance(ev, Move):
            who = self.name(game.to_act())
            raise _Unfair("log", f"{self.describe(ev)} where a move was due ({who} was to act)")
        problem = check_move(self.setup, self.presence, self.i, self.heads[self.i], ev)
        if problem is not None:
            raise _Unfair("move", problem)
        seat, move = ev.seat, ev.move
        name = self.name(seat)
        if ev.by == BY_TIMEOUT and seat == game.to_act():
            due = timeout_move(game.legal_moves())
            if move != due:
                raise _Unfair(
                    "move",
                    f"the host moved for {name} on a timeout with {format_move(move)}; a "
                    f"timeout makes the move that gives nothing away ({format_move(due)})",
                )
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
        if ev.by == BY_SEAT:
            self.moved[self.setup.seats[seat]] = self.i
        self.i += 1
        self.expect(card_events(events), ev)
        self.check_own(events)

    def expect(self, want: list[LogEvent], step: LogEvent | str) -> None:
        """The next events of the log are ``want``, which the rules give for ``step``."""
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

    def check_own(self, events: Sequence[Event]) -> None:
        mine = self.t.cards
        seat = self.t.seat
        for kind, s, c in events:
            if s != seat or (kind != "deal" and kind != "draw"):
                continue
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

    # -- who confirmed the log -----------------------------------------------------------------

    def confirmations(self) -> tuple[list[Absence], list[tuple[str, int]]]:
        """Every other person's confirmation of the log: who went away (and how far it
        confirmed), and who, there to the end, confirmed only a prefix. A head that is not of
        this log is the host's doing (it checks every head it passes on)."""
        t, setup = self.t, self.setup
        count = len(self.log)
        away: list[Absence] = []
        short: list[tuple[str, int]] = []
        for seat in sorted(setup.humans):
            pid = setup.seats[seat]
            if pid == t.id:
                continue
            confirmed = self.moved.get(pid, 0)
            h = t.log_heads.get(pid)
            if h is not None:
                msg = log_head_message(setup.ctx0, pid, h.count, h.head)
                if not verify_signature(setup.keys[pid], msg, h.signature):
                    raise _Unfair(
                        "log-heads",
                        f"the host passed on a log head of {t.name(pid)} without its valid "
                        "signature",
                        proven=False,
                    )
                if h.count > count or self.heads[h.count] != h.head:
                    raise _Unfair(
                        "log-heads",
                        f"the host showed {t.name(pid)} a different log: {t.name(pid)} signed "
                        f"{h.count} events ending {h.head.hex()[:12]}; yours has "
                        f"{count} events ending {self.heads[-1].hex()[:12]}",
                    )
                confirmed = max(confirmed, h.count)
            gone = self.presence.away.get(seat)
            if gone is not None:
                how = "left" if gone.how == LEFT else "lost"
                away.append(Absence(pid, self.presence.since[seat], how, confirmed))
            elif confirmed < count:
                short.append((pid, confirmed))
        return away, short


def verify(t: Transcript) -> Verdict:
    """Check one seat's transcript of one hand, offline (module docstring;
    ``protocol/SPEC.md``, "Verification"). Raises TranscriptError only if the transcript
    contradicts itself (never for one read by :meth:`Transcript.from_json`)."""
    v = _Verifier(t)
    game = None
    try:
        game = v.run()
        away, short = v.confirmations()
        if t.disputes:
            d = t.disputes[0]
            raise _Unfair("dispute", f"at log event {d.event}: {d.text}", proven=False)
    except _Unfair as u:
        # A hand played to its end and disputed still has the replay's scores.
        scores = () if game is None or game.result is None else tuple(game.result.scores)
        return verdict_of(
            t,
            "unfair",
            u.reason,
            culprits=u.culprits,
            check=u.check,
            proven=u.proven,
            scores=scores,
        )
    kw: dict[str, Any] = {
        "rounds": v.dealt,
        "away": tuple(away),
        "unconfirmed": tuple(short),
        "own_away": own_absence(t),
    }
    if v.void is not None:
        vd = v.void
        return verdict_of(
            t,
            "void",
            vd.reason,
            culprits=vd.culprits,
            check="abort",
            proven=vd.proven,
            forfeit=vd.forfeit,
            **kw,
        )
    assert game is not None
    assert game.result is not None
    # Who won is the replay's: the signed log through the rules engine, named by the names
    # the setup note binds (a file holds no result of its own to believe).
    placings = tuple(t.setup.seats[s] for s in game.result.placings)
    winner = t.name(placings[0])
    outcome = f"{winner} won ({won_how(game.result.reason)})"
    status: Status = "unconfirmed" if short else "fair"
    scores = tuple(game.result.scores)
    return verdict_of(t, status, "", outcome=outcome, placings=placings, scores=scores, **kw)
