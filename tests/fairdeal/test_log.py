"""The public log (``lanswitch/fairdeal/log.py``): each event's encoding, round trips and field
checks, junk refused, and the hash chain catching any change."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lanswitch.cards import MAX_CARD
from lanswitch.fairdeal import (
    BY_SEAT,
    BY_TIMEOUT,
    LEFT,
    LOST,
    Away,
    Back,
    Draw,
    Log,
    LogEvent,
    Move,
    Note,
    Shuffle,
    TurnUp,
    UsageError,
    decode_event,
)
from lanswitch.fairdeal.log import log_step
from tests.fairdeal.handkit import EVENTS, HEAD, SIG, S, _label, _next_head, _sha, setup

# =============================================================================================
# The public log


def test_event_encodings() -> None:
    assert [e.encode().hex() for e in EVENTS] == [
        "05000573657475700020" + "00" * 32,
        "04000000022800" + "0b",
        "010307",
        "0268",
        "03000000000033" + SIG.hex(),
        "0302010001" + "00c8" + SIG.hex(),
        "06010000000003" + HEAD.hex() + SIG.hex(),
        "030102000000c9" + SIG.hex(),
        "060301",
        "0701",
        "05000a61626f72742f766f69640000",
    ]
    for e in EVENTS:
        assert decode_event(e.encode()) == e


SEATS_ST = st.integers(0, 15)
ANY_EVENT = st.one_of(
    st.builds(Draw, seat=SEATS_ST, n=st.integers(1, 255)),
    st.builds(TurnUp, card=st.integers(0, MAX_CARD - 1)),
    st.builds(
        Move,
        seat=SEATS_ST,
        by=st.integers(BY_SEAT, BY_TIMEOUT),
        move=st.integers(0, 2**32 - 1),
        signature=st.binary(min_size=64, max_size=64),
    ),
    st.builds(
        Shuffle, round=st.integers(0, 2**32 - 1), n=st.integers(1, 255), mask=st.integers(0, 0xFFFF)
    ),
    st.builds(
        Note,
        label=st.from_regex(r"[a-z0-9][a-z0-9._/-]{0,63}", fullmatch=True),
        data=st.binary(max_size=100),
    ),
    st.builds(
        Away,
        seat=SEATS_ST,
        how=st.just(LEFT),
        count=st.integers(0, 2**32 - 1),
        head=st.binary(min_size=32, max_size=32),
        signature=st.binary(min_size=64, max_size=64),
    ),
    st.builds(Away, seat=SEATS_ST, how=st.just(LOST)),
    st.builds(Back, seat=SEATS_ST),
)


@given(ANY_EVENT)
def test_event_round_trip(event: LogEvent) -> None:
    data = event.encode()
    assert decode_event(data) == event
    # No encoding is a prefix of another's (they are framed by enc() in the chain anyway).
    for cut in range(len(data)):
        with pytest.raises(UsageError):
            decode_event(data[:cut])
    with pytest.raises(UsageError):
        decode_event(data + b"\0")


@pytest.mark.parametrize(
    "make",
    [
        lambda: Draw(seat=0, n=0),
        lambda: Draw(seat=16, n=1),
        lambda: Draw(seat=True, n=1),
        lambda: TurnUp(card=MAX_CARD),
        lambda: Move(seat=-1, by=0, move=0, signature=SIG),
        lambda: Move(seat=0, by=4, move=0, signature=SIG),
        lambda: Move(seat=0, by=0, move=2**32, signature=SIG),
        lambda: Move(seat=0, by=0, move=0, signature=SIG[:-1]),
        lambda: Move(seat=0, by=0, move=0, signature=b""),
        lambda: Shuffle(round=-1, n=1, mask=0),
        lambda: Shuffle(round=0, n=0, mask=0),
        lambda: Shuffle(round=0, n=1, mask=1 << 16),
        lambda: Note(label="Rules"),
        lambda: Note(label=""),
        lambda: Note(label="x", data=bytes(0x10000)),
        lambda: Away(seat=0, how=2),
        lambda: Away(seat=0, how=LEFT),  # no head, no signature
        lambda: Away(seat=0, how=LEFT, count=1, head=HEAD, signature=b""),
        lambda: Away(seat=0, how=LOST, count=1),
        lambda: Away(seat=0, how=LOST, head=HEAD),
        lambda: Back(seat=16),
    ],
)
def test_event_field_checks(make: Callable[[], LogEvent]) -> None:
    with pytest.raises(UsageError):
        make()


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "00",
        "ff",
        "08",
        "0101",
        "01010100",
        "010100",  # Draw of 0 cards
        "026c",  # TurnUp of card 108
        "0300000000000e",  # a Move without its signature
        "0300040000000e" + "00" * 64,  # a Move by an unknown maker
        "040000000100",  # a Shuffle cut short
        "04000000010000" + "01",  # a Shuffle of 0 cards
        "0500",
        "050001",
        "05000141",
        "0500015200",  # label "R": not a note label
        "060100",  # Away LEFT without its head
        "060102",  # Away of an unknown kind
        "06010100000000",  # Away LOST with a count
        "06010000000001" + "00" * 95,  # Away LEFT one byte short
        "07",
        "070100",
    ],
)
def test_decode_rejects_junk(junk: str) -> None:
    with pytest.raises(UsageError):
        decode_event(bytes.fromhex(junk))


def test_log_chain_detects_any_change() -> None:
    ctx = S.ctx0
    log = Log(ctx)
    heads = [log.head] + [log.append(e) for e in EVENTS]
    assert heads == log.heads
    assert len(set(heads)) == len(heads)
    assert log.count == len(EVENTS)
    assert heads[0] == _sha(_label("log"), ctx)
    for k, e in enumerate(EVENTS):
        assert heads[k + 1] == _next_head(heads[k], e.encode()) == log_step(heads[k], e.encode())
        assert log.head_at(k) == heads[k]
    assert log.head_at(len(EVENTS) + 1) is None
    assert log.head_at(-1) is None

    def head_of(events: Sequence[LogEvent], c: bytes = ctx) -> bytes:
        return Log(c, events).head

    assert head_of(EVENTS) == log.head
    assert head_of([EVENTS[1], EVENTS[0], *EVENTS[2:]]) != log.head
    assert head_of(EVENTS[:-1]) != log.head
    assert head_of([*EVENTS[:4], Move(0, BY_SEAT, 50, SIG), *EVENTS[5:]]) != log.head
    assert head_of([*EVENTS[:4], Move(0, BY_TIMEOUT, 51, SIG), *EVENTS[5:]]) != log.head
    flipped = bytes([SIG[0] ^ 1]) + SIG[1:]
    assert head_of([*EVENTS[:4], Move(0, BY_SEAT, 51, flipped), *EVENTS[5:]]) != log.head
    assert head_of([*EVENTS[:8], Away(3, LOST), Back(3), *EVENTS[9:]]) != log.head
    assert head_of(EVENTS, setup(hand_no=2).ctx0) != log.head
    assert Log(ctx, EVENTS[:3]).extend(EVENTS[3:]) == log.head
