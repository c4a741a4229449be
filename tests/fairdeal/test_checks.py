"""The live checks a seat runs as the hand comes (``lanswitch/fairdeal/checks.py``): presence
(away and back), each move against the log and the turn timer, the host's announcements of a
round, and that two announcements are of the same round."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from lanswitch.fairdeal import (
    BY_BOT,
    BY_SEAT,
    BY_STAND_IN,
    BY_TIMEOUT,
    LEFT,
    LOST,
    Away,
    Back,
    Draw,
    HandSetup,
    Log,
    LogEvent,
    Move,
)
from lanswitch.fairdeal import primitives as fp
from lanswitch.fairdeal.checks import Presence, check_announcement, check_move, check_same_round
from lanswitch.fairdeal.primitives import DEALER
from tests.fairdeal.handkit import (
    DECK,
    PEOPLE,
    PRIV,
    PUB,
    R0,
    S_TIMER,
    SEATS,
    S,
    announcement,
    inputs,
    says,
    setup,
)

# =============================================================================================
# The live checks: presence, moves, announcements


def fed(s: HandSetup, events: Sequence[LogEvent]) -> tuple[Log, Presence, list[str | None]]:
    """A log of ``s`` with ``events`` after its setup note, fed to a Presence."""
    log = Log(s.ctx0, [s.note])
    presence = Presence(s)
    problems = []
    for ev in events:
        problems.append(presence.feed(log.count, ev, log.heads))
        log.append(ev)
    return log, presence, problems


def left(
    seat: int, count: int, head: bytes, signer: str | None = None, ctx0: bytes = S.ctx0
) -> Away:
    pid = SEATS[seat]
    msg = fp.log_head_message(ctx0, pid, count, head)
    return Away(seat, LEFT, count, head, fp.sign(PRIV[signer or pid], msg))


def test_presence_away_and_back() -> None:
    log, presence, problems = fed(S, [Draw(0, 1), Away(1, LOST)])
    assert problems == [None, None]
    assert set(presence.away) == {1}
    assert presence.since == {1: 2}
    assert presence.present_mask() == 0b1001
    assert presence.feed(log.count, Back(1), log.heads) is None
    assert presence.away == {}
    assert presence.present_mask() == PEOPLE
    # Away with its own signed head of the log so far, which may be any prefix of it.
    log, presence, problems = fed(S, [Draw(0, 1), Draw(1, 1)])
    for count in (0, 1, 3):
        p2 = Presence(S)
        assert p2.feed(log.count, left(3, count, log.heads[count]), log.heads) is None
        assert p2.present_mask() == 0b0011
    # Away, back, away again is fine.
    _, presence, problems = fed(S, [Away(0, LOST), Back(0), Away(0, LOST), Back(0)])
    assert problems == [None] * 4


def test_presence_away_twice() -> None:
    _, _, problems = fed(S, [Away(1, LOST), Draw(0, 1), Away(1, LOST)])
    assert problems[:2] == [None, None]
    says(problems[2], "bob go away twice")
    log, presence, _ = fed(S, [Away(1, LOST)])
    problem = presence.feed(log.count, left(1, 1, log.heads[1]), log.heads)
    says(problem, "twice")


def test_presence_back_without_away() -> None:
    _, _, problems = fed(S, [Back(0)])
    says(problems[0], "not away")
    _, _, problems = fed(S, [Away(0, LOST), Back(0), Back(0)])
    assert problems[:2] == [None, None]
    says(problems[2], "not away")
    _, _, problems = fed(S, [Back(2)])  # the bot never goes anywhere
    assert problems[0] is not None


@pytest.mark.parametrize("how", [LOST, LEFT])
def test_presence_a_bot_or_missing_seat_cannot_go_away(how: int) -> None:
    for seat in (2, 4, 15):  # carol is the host's bot; the hand has 4 seats
        log = Log(S.ctx0, [S.note])
        ev = Away(seat, LOST) if how == LOST else Away(seat, LEFT, 0, log.heads[0], bytes(64))
        problem = Presence(S).feed(1, ev, log.heads)
        says(problem, "no person sits there")


def test_presence_a_left_head_must_be_of_this_log() -> None:
    log, presence, _ = fed(S, [Draw(0, 1), Draw(1, 1)])
    k = log.count
    # A head of another log, validly signed by dave.
    other = Log(S.ctx0, [S.note, Draw(0, 2)]).heads[2]
    problem = presence.feed(k, left(3, 2, other), log.heads)
    says(problem, "another log")
    # A count past the event itself.
    problem = Presence(S).feed(k, left(3, k + 1, bytes(32)), log.heads)
    says(problem, "another log")
    # A head of another hand's log at the same count.
    s2 = setup(hand_no=2)
    log2 = Log(s2.ctx0, [s2.note, Draw(0, 1)])
    problem = Presence(S).feed(k, left(3, 2, log2.head), log.heads)
    says(problem, "another log")
    assert presence.away == {}


def test_presence_a_left_head_must_be_signed_by_who_left() -> None:
    log, _, _ = fed(S, [Draw(0, 1)])
    k, head = log.count, log.head
    for ev in [
        left(3, k, head, signer="alice"),
        left(3, k, head, signer=DEALER),  # the host cannot say dave left: only dave can
        dataclasses.replace(left(3, k, head), signature=bytes(64)),
        left(3, k, head, ctx0=setup(hand_no=2).ctx0),
    ]:
        presence = Presence(S)
        problem = presence.feed(k, ev, log.heads)
        says(problem, "without dave's valid signature")
        assert presence.away == {}


def signed_move(
    s: HandSetup,
    log: Log,
    seat: int,
    by: int,
    move: int,
    signer: str,
    *,
    count: int | None = None,
    head: bytes | None = None,
) -> Move:
    k = log.count if count is None else count
    hd = log.head if head is None else head
    return Move(
        seat, by, move, fp.sign(PRIV[signer], fp.move_message(s.ctx0, k, hd, seat, by, move))
    )


MOVE_CASES = [
    # (setup, seats away, seat, by, signer, problem or None)
    ("no timer", (), 0, BY_SEAT, "alice", None),
    ("no timer", (), 3, BY_SEAT, "dave", None),
    ("no timer", (), 0, BY_SEAT, DEALER, "alice did not sign over this log"),
    ("no timer", (), 0, BY_SEAT, "bob", "alice did not sign over this log"),
    ("no timer", (), 2, BY_SEAT, DEALER, "a seat the host runs"),
    ("no timer", (3,), 3, BY_SEAT, "dave", "dave was away"),
    ("no timer", (), 2, BY_BOT, DEALER, None),
    ("no timer", (), 2, BY_BOT, "alice", "the host did not sign"),
    ("no timer", (), 0, BY_BOT, DEALER, "a person's seat, not the host's"),
    ("no timer", (3,), 3, BY_STAND_IN, DEALER, None),
    ("no timer", (3,), 3, BY_STAND_IN, "dave", "the host did not sign"),
    ("no timer", (), 3, BY_STAND_IN, DEALER, "dave was not away"),
    ("no timer", (), 2, BY_STAND_IN, DEALER, "marked as made by the host as a stand-in"),
    ("no timer", (), 1, BY_TIMEOUT, DEALER, "the table has no turn timer"),
    ("timer", (), 1, BY_TIMEOUT, DEALER, None),
    ("timer", (), 1, BY_TIMEOUT, "bob", "the host did not sign"),
    ("timer", (1,), 1, BY_TIMEOUT, DEALER, "bob was away"),
    ("timer", (), 2, BY_TIMEOUT, DEALER, "marked as made by the host on a timeout"),
    ("timer", (), 0, BY_SEAT, "alice", None),
    ("timer", (1,), 1, BY_STAND_IN, DEALER, None),
    ("timer", (), 2, BY_BOT, DEALER, None),
]


@pytest.mark.parametrize(
    ("table", "away", "seat", "by", "signer", "problem"),
    MOVE_CASES,
    ids=[f"{c[0]}-away{c[1]}-seat{c[2]}-by{c[3]}-{c[4]}" for c in MOVE_CASES],
)
def test_check_move(
    table: str, away: tuple[int, ...], seat: int, by: int, signer: str, problem: str | None
) -> None:
    s = S_TIMER if table == "timer" else S
    log, presence, problems = fed(s, [Draw(0, 7), *(Away(a, LOST) for a in away)])
    assert problems == [None] * (1 + len(away))
    ev = signed_move(s, log, seat, by, 14, signer)
    got = check_move(s, presence, log.count, log.head, ev)
    if problem is None:
        assert got is None
    else:
        says(got, problem)


def test_check_move_signed_over_another_log() -> None:
    """A move's signature covers the signer's log: one signed over another log (another
    count, head or hand) is a fork or a forgery, whoever made it."""
    for s, seat, by, signer in (
        (S, 0, BY_SEAT, "alice"),
        (S, 2, BY_BOT, DEALER),
        (S_TIMER, 1, BY_TIMEOUT, DEALER),
    ):
        log, presence, _ = fed(s, [Draw(0, 7), Draw(1, 7)])
        k, head = log.count, log.head
        assert check_move(s, presence, k, head, signed_move(s, log, seat, by, 14, signer)) is None
        forks = [
            signed_move(s, log, seat, by, 14, signer, count=k - 1),
            signed_move(s, log, seat, by, 14, signer, head=log.heads[k - 1]),
            signed_move(
                s,
                log,
                seat,
                by,
                14,
                signer,
                head=Log(s.ctx0, [s.note, Draw(0, 7), Draw(1, 6)]).head,
            ),
        ]
        other = setup(hand_no=2, turn_timer_ms=s.turn_timer_ms)
        msg = fp.move_message(other.ctx0, k, head, seat, by, 14)
        forks.append(Move(seat, by, 14, fp.sign(PRIV[signer], msg)))
        msg = fp.move_message(s.ctx0, k, head, seat, by, 15)  # signed for another move
        forks.append(Move(seat, by, 14, fp.sign(PRIV[signer], msg)))
        for ev in forks:
            got = check_move(s, presence, k, head, ev)
            says(got, "did not sign over this log")


def test_check_move_of_a_seat_the_hand_does_not_have() -> None:
    log, presence, _ = fed(S, [])
    ev = Move(
        4, BY_BOT, 14, fp.sign(PRIV[DEALER], fp.move_message(S.ctx0, 1, log.head, 4, BY_BOT, 14))
    )
    got = check_move(S, presence, log.count, log.head, ev)
    says(got, "the hand has 4")


def test_check_announcement_accepts_both_stages() -> None:
    log = Log(S.ctx0, [S.note])
    ctx = fp.round_context(S.ctx0, 0, log.count, log.head, PEOPLE, DECK)
    assert ctx == R0.ctx
    for fixed in (False, True):
        assert check_announcement(S, announcement(fixed), log.count, log.head, PEOPLE) is None
    # Everyone away: a round of the host alone.
    alone = inputs(mask=0)
    for fixed in (False, True):
        ann = announcement(fixed, alone, mask=0)
        assert check_announcement(S, ann, log.count, log.head, 0) is None


@pytest.mark.parametrize(
    ("ann_mask", "present"),
    [(0b0011, PEOPLE), (0b1111, PEOPLE), (PEOPLE, 0b0011), (0, PEOPLE), (PEOPLE | 1 << 5, PEOPLE)],
)
def test_check_announcement_wrong_mask(ann_mask: int, present: int) -> None:
    log = Log(S.ctx0, [S.note])
    ctx = fp.round_context(S.ctx0, 0, 1, log.head, ann_mask, DECK)
    for fixed in (False, True):
        ann = announcement(fixed, mask=ann_mask, ctx=ctx, commitments=None if ann_mask < 16 else {})
        says(check_announcement(S, ann, log.count, log.head, present), "the people present are")


def test_check_announcement_wrong_context() -> None:
    log = Log(S.ctx0, [S.note, Draw(0, 1)])
    k, head = log.count, log.head

    def ctx(**kw: Any) -> bytes:
        args: dict[str, Any] = {
            "round_no": 0,
            "count": k,
            "head": head,
            "mask": PEOPLE,
            "cards": DECK,
        }
        args.update(kw)
        return fp.round_context(
            S.ctx0, args["round_no"], args["count"], args["head"], args["mask"], args["cards"]
        )

    assert check_announcement(S, announcement(ctx=ctx()), k, head, PEOPLE) is None
    for other in [
        ctx(round_no=1),
        ctx(count=k - 1),
        ctx(head=log.heads[k - 1]),
        ctx(cards=DECK[:-1]),
        ctx(mask=0b0011),
        fp.round_context(setup(hand_no=2).ctx0, 0, k, head, PEOPLE, DECK),
        R0.ctx,
    ]:
        got = check_announcement(S, announcement(ctx=other), k, head, PEOPLE)
        says(got, "a context that is not this log's")
    # The cards it names are part of it: another set, or the right set out of order.
    got = check_announcement(S, announcement(ctx=ctx(), cards=DECK[:-1]), k, head, PEOPLE)
    says(got, "not this log's")
    got = check_announcement(S, announcement(ctx=ctx(), cards=DECK[::-1]), k, head, PEOPLE)
    says(got, "not this log's")
    got = check_announcement(S, announcement(ctx=ctx(), cards=[1, 1]), k, head, PEOPLE)
    says(got, "cannot be")
    # The round number it claims is part of the context too.
    ann = announcement(ctx=ctx(), round_no=1)
    got = check_announcement(S, ann, k, head, PEOPLE)
    says(got, "not this log's")


def test_check_announcement_stage_1_lists_the_host_alone() -> None:
    log = Log(S.ctx0, [S.note])
    both = {p: (R0.commits[p], R0.csig[p]) for p in ("alice", DEALER)}
    for commitments in (both, {p: (R0.commits[p], R0.csig[p]) for p in R0.ps}, {}):
        ann = announcement(False, commitments=commitments)
        got = check_announcement(S, ann, log.count, log.head, PEOPLE)
        says(got, "the host's own commitment alone")


def test_check_announcement_stage_3_lists_everyone_in_order() -> None:
    log = Log(S.ctx0, [S.note])
    full = {p: (R0.commits[p], R0.csig[p]) for p in R0.ps}
    for commitments in (
        {p: c for p, c in full.items() if p != "bob"},
        {p: full[p] for p in reversed(R0.ps)},
        {DEALER: full[DEALER]},
    ):
        ann = announcement(True, commitments=commitments)
        got = check_announcement(S, ann, log.count, log.head, PEOPLE)
        says(got, "all its commitments")


def test_check_announcement_forged_commitment_signature() -> None:
    log = Log(S.ctx0, [S.note])
    full = {p: (R0.commits[p], R0.csig[p]) for p in R0.ps}
    forged_c = fp.commitment(R0.ctx, "bob", bytes(32))
    for p, entry in [
        ("bob", (forged_c, R0.csig["bob"])),  # bob's signature over another commitment
        ("bob", (forged_c, fp.sign(PRIV[DEALER], fp.commitment_message(R0.ctx, "bob", forged_c)))),
        ("bob", (R0.commits["bob"], R0.csig["alice"])),
        ("dave", (R0.commits["dave"], b"")),
        (DEALER, (R0.commits[DEALER], R0.csig["dave"])),
    ]:
        ann = announcement(True, commitments=dict(full, **{p: entry}))
        assert ann.signed_by(PUB[DEALER], S.ctx0)  # the host signed what it passed on
        got = check_announcement(S, ann, log.count, log.head, PEOPLE)
        says(got, f"a commitment of {p} without its valid signature")
    ann = announcement(False, commitments={DEALER: (R0.commits[DEALER], bytes(64))})
    got = check_announcement(S, ann, log.count, log.head, PEOPLE)
    says(got, "@dealer without its valid signature")


def test_check_announcement_needs_the_host_signature() -> None:
    log = Log(S.ctx0, [S.note])
    for fixed in (False, True):
        good = announcement(fixed)
        for ann in [
            dataclasses.replace(good, signature=b""),
            dataclasses.replace(good, signature=bytes(64)),
            announcement(fixed, key=PRIV["alice"]),
            dataclasses.replace(good, round=1),  # signed for round 0
            dataclasses.replace(good, fixed=not fixed),
        ]:
            got = check_announcement(S, ann, log.count, log.head, PEOPLE)
            says(got, "without the host's valid signature")


def test_check_same_round() -> None:
    a1, a3 = announcement(False), announcement(True)
    assert check_same_round(a1, a1) is None
    assert check_same_round(a1, announcement(False)) is None  # the same, sent again
    assert check_same_round(a1, a3) is None
    assert check_same_round(a3, a3) is None
    # Stage 1 twice, changed: the host chose a new commitment of its own (grinding).
    c = fp.commitment(R0.ctx, DEALER, bytes(32))
    sig = fp.sign(PRIV[DEALER], fp.commitment_message(R0.ctx, DEALER, c))
    regrind = announcement(False, commitments={DEALER: (c, sig)})
    assert regrind.signed_by(PUB[DEALER], S.ctx0)
    got = check_same_round(a1, regrind)
    says(got, "twice (stage 1) and changed it")
    # Stage 3 changing @dealer's commitment from stage 1's.
    full = {p: (R0.commits[p], R0.csig[p]) for p in R0.ps}
    changed = announcement(True, commitments=dict(full, **{DEALER: (c, sig)}))
    got = check_same_round(a1, changed)
    says(got, "changed its own commitment to round 0")
    got = check_same_round(changed, a1)  # whichever came first
    says(got, "changed its own commitment")
    # Stage 3 twice, changed (another commitment of bob's).
    cb = fp.commitment(R0.ctx, "bob", bytes(32))
    sb = fp.sign(PRIV["bob"], fp.commitment_message(R0.ctx, "bob", cb))
    got = check_same_round(a3, announcement(True, commitments=dict(full, bob=(cb, sb))))
    says(got, "twice (stage 3) and changed it")
    # The round itself changed between stage 1 and stage 3.
    other = inputs(cards=DECK[:-1])
    moved = [
        announcement(
            True, other, cards=DECK[:-1], commitments=dict(full, **{DEALER: full[DEALER]})
        ),
        dataclasses.replace(a3, mask=0b0011),
        dataclasses.replace(a3, ctx=other.ctx),
    ]
    for later in moved:
        got = check_same_round(a1, later)
        says(got, "changed round 0 between its two announcements")
