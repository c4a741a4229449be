"""The checks a seat makes live and the verifier makes again offline: one code for both.

Each function answers with the problem it found, in words (the host is to blame: it is the one
that put the thing in the log or announced it), or None. A seat runs them as each step and
announcement arrives, so a fork or a forged move shows at once; :mod:`.replay` runs them over
the transcript, so the verdict rests on the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..game import BLUNDER_FLAG, DRAW, PASS
from .log import (
    BY_BOT,
    BY_SEAT,
    BY_STAND_IN,
    BY_TIMEOUT,
    LEFT,
    Away,
    Back,
    LogEvent,
    Move,
)
from .primitives import (
    DEALER,
    UsageError,
    commitment_message,
    log_head_message,
    mask_of,
    move_message,
    participants_of,
    round_context,
    seats_of,
    verify,
)
from .round import Announcement
from .setup import HandSetup

__all__ = [
    "Presence",
    "check_announcement",
    "check_move",
    "check_same_round",
    "timeout_move",
]


def timeout_move(legal: Sequence[int]) -> int:
    """The move the host makes for a present player whose turn timer ran out: the one that
    gives nothing away — draw if it may, else pass, else the first legal move. A rule of the
    protocol, not a choice: the verifier holds the host to it, so a timeout cannot play a
    player's best card for it."""
    return next((m for m in (DRAW, PASS) if m in legal), legal[0])


class Presence:
    """Which people are away, as the log says: fed the log's events in order.

    A seat is away from its ``Away`` event until its ``Back`` event. Only a person's seat can be
    away (a seat the host runs has no one to go), a seat cannot go twice or come back without
    having gone, and a player who left signs its head of the log so far, which must be the
    head of this log's first ``count`` events.
    """

    __slots__ = ("away", "setup", "since")

    def __init__(self, setup: HandSetup) -> None:
        self.setup = setup
        self.away: dict[int, Away] = {}  # seat → the event that took it away
        self.since: dict[int, int] = {}

    def feed(self, index: int, event: LogEvent, heads: Sequence[bytes]) -> str | None:
        """Take log event ``index`` (``heads[k]`` is the head after ``k`` events); the problem
        with it, if it is a presence event that cannot be."""
        setup = self.setup
        if isinstance(event, Away):
            seat = event.seat
            if seat >= setup.players or setup.host_runs(seat):
                return f"the log has seat {seat} go away, but no person sits there"
            if seat in self.away:
                return f"the log has {setup.seats[seat]} go away twice"
            if event.how == LEFT:
                pid = setup.seats[seat]
                msg = log_head_message(setup.ctx0, pid, event.count, event.head)
                if not verify(setup.keys[pid], msg, event.signature):
                    return f"the log says {pid} left, without {pid}'s valid signature"
                if event.count > index or heads[event.count] != event.head:
                    return (
                        f"the log says {pid} left, with a head {pid} signed of another log "
                        f"than this one"
                    )
            self.away[seat] = event
            self.since[seat] = index
        elif isinstance(event, Back):
            seat = event.seat
            if seat not in self.away:
                return f"the log has seat {seat} come back, but it was not away"
            del self.away[seat]
            del self.since[seat]
        return None

    def present_mask(self) -> int:
        """The seats of the people present: who takes part in a round announced now."""
        return mask_of(s for s in sorted(self.setup.humans) if s not in self.away)


def check_move(
    setup: HandSetup, presence: Presence, count: int, head: bytes, ev: Move
) -> str | None:
    """Whether ``ev``, at log position ``count`` after ``head``, was made by someone who may make
    it, and signed by them over this very log."""
    seat, by = ev.seat, ev.by
    if seat >= setup.players:
        return f"the log has a move of seat {seat}; the hand has {setup.players}"
    pid = setup.seats[seat]
    human = not setup.host_runs(seat)
    away = seat in presence.away
    if by == BY_SEAT:
        signer, ok = pid, human and not away
        why = "a seat the host runs" if not human else f"{pid} was away"
    elif by == BY_BOT:
        signer, ok, why = DEALER, not human, f"{pid} is a person's seat, not the host's"
    elif by == BY_STAND_IN:
        signer, ok, why = DEALER, human and away, f"{pid} was not away"
    elif by == BY_TIMEOUT:
        signer, ok = DEALER, human and not away and setup.turn_timer_ms > 0
        why = "the table has no turn timer" if not setup.turn_timer_ms else f"{pid} was away"
    else:  # pragma: no cover - Move checks ``by`` when it is made
        return f"a move by an unknown maker ({by})"
    if not ok:
        return f"the log has a move for {pid} marked as made by {_maker(by)}, but {why}"
    if ev.move & BLUNDER_FLAG and by != BY_SEAT:
        # A blunder charges penalty cards for an illegal move the player tried: only the
        # player can own up to one (the host refuses them all from the network).
        return f"the log charges {pid} a blunder that {_maker(by)} made up"
    try:
        msg = move_message(setup.ctx0, count, head, seat, by, ev.move)
    except UsageError:
        return f"the log has a malformed move of {pid}"
    if not verify(setup.keys[signer], msg, ev.signature):
        if signer == DEALER:
            return (
                f"the log has a move of {pid} ({_maker(by)}) that the host did not sign over "
                "this log: the host showed you another log than the one it played"
            )
        return (
            f"the log has a move of {pid} ({_maker(by)}) that {pid} did not sign over this log: "
            f"the host showed {pid} another log, or forged the move"
        )
    return None


def _maker(by: int) -> str:
    return {
        BY_SEAT: "the player",
        BY_BOT: "the host's bot",
        BY_STAND_IN: "the host as a stand-in",
        BY_TIMEOUT: "the host on a timeout",
    }.get(by, "?")


def check_announcement(
    setup: HandSetup, ann: Announcement, count: int, head: bytes, present: int
) -> str | None:
    """Whether ``ann`` is a round the host may announce with the log at ``count`` events ending
    in ``head`` and the people of mask ``present`` there: signed by the host, with the context
    this log gives, every person present taking part, and the commitments of its stage."""
    r = ann.round
    if not ann.signed_by(setup.keys[DEALER], setup.ctx0):
        return f"round {r} was announced without the host's valid signature"
    if ann.mask != present:
        want = ", ".join(setup.seats[s] for s in seats_of(present)) or "nobody"
        got = ", ".join(setup.seats[s] for s in seats_of(ann.mask) if s < setup.players)
        return f"round {r} was announced among {got or 'nobody'}, but the people present are {want}"
    try:
        ctx = round_context(setup.ctx0, r, count, head, ann.mask, ann.cards)
    except UsageError as e:
        return f"round {r} cannot be: {e}"
    if ann.ctx != ctx or list(ann.cards) != sorted(ann.cards):
        return f"round {r} was announced with a context that is not this log's"
    ps = participants_of(setup.seats, ann.mask)
    want_ids = ps if ann.fixed else (DEALER,)
    if tuple(ann.commitments) != want_ids:
        stage = "all its commitments" if ann.fixed else "the host's own commitment alone"
        return (
            f"round {r}'s announcement should list {stage} ({', '.join(want_ids)}), "
            f"not {', '.join(ann.commitments) or 'none'}"
        )
    for p, (c, sig) in ann.commitments.items():
        try:
            ok = verify(setup.keys[p], commitment_message(ann.ctx, p, c), sig)
        except UsageError:
            ok = False
        if not ok:
            return f"round {r}: the host passed on a commitment of {p} without its valid signature"
    return None


def check_same_round(first: Announcement, later: Announcement) -> str | None:
    """Two announcements of the same round must tell the same round: the same context, and
    stage 3 keeps stage 1's ``@dealer`` commitment; the same stage twice must be identical."""
    r = first.round
    if later.fixed == first.fixed:
        if later != first:
            stage = 3 if later.fixed else 1
            return (
                f"the host announced round {r} twice (stage {stage}) and changed it: its two "
                "signed announcements contradict each other"
            )
        return None
    if (later.ctx, later.cards, later.mask) != (first.ctx, first.cards, first.mask):
        return f"the host changed round {r} between its two announcements"
    dealer_then = first.commitments.get(DEALER)
    dealer_now = later.commitments.get(DEALER)
    if dealer_then is None or dealer_now is None or dealer_now[0] != dealer_then[0]:
        return (
            f"the host changed its own commitment to round {r} after the others committed "
            "(its two signed announcements show it)"
        )
    return None
