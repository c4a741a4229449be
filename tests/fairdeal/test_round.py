"""The round of commitments and reveals (``lanswitch/fairdeal/round.py``): ``ROUND_FLOW`` as
designed, every transition and every forbidden one, the host's ``Round`` through its happy path
and every way a participant can fail it, and announcements and aborts as signed records."""

from __future__ import annotations

import dataclasses

import pytest

from lanswitch.fairdeal import (
    ROUND_FLOW,
    Blame,
    Fault,
    Round,
    RoundEvent,
    RoundState,
    UsageError,
    VoidRecord,
)
from lanswitch.fairdeal import keystream as ks
from lanswitch.fairdeal import primitives as fp
from lanswitch.fairdeal.primitives import DEALER
from lanswitch.fairdeal.round import RoundFlowError, next_state
from tests.fairdeal.handkit import (
    DECK,
    PRIV,
    PUB,
    R0,
    S,
    announcement,
    committed,
    inputs,
    new_round,
    revealed,
    setup,
    state,
)

# =============================================================================================
# The round: ROUND_FLOW and the host's Round


FLOW = {
    (RoundState.ANNOUNCED, RoundEvent.FIX): RoundState.FIXED,
    (RoundState.ANNOUNCED, RoundEvent.FAIL): RoundState.FAILED,
    (RoundState.ANNOUNCED, RoundEvent.WITHDRAW): RoundState.WITHDRAWN,
    (RoundState.FIXED, RoundEvent.DEAL): RoundState.DEALT,
    (RoundState.FIXED, RoundEvent.FAIL): RoundState.FAILED,
}


def test_round_flow_is_the_designed_table() -> None:
    assert dict(ROUND_FLOW) == FLOW
    final = {RoundState.DEALT, RoundState.FAILED, RoundState.WITHDRAWN}
    assert not any(state in final for state, _ in ROUND_FLOW)
    # Every state is reachable from ANNOUNCED.
    reached, frontier = {RoundState.ANNOUNCED}, [RoundState.ANNOUNCED]
    while frontier:
        now = frontier.pop()
        for (s, _), t in ROUND_FLOW.items():
            if s is now and t not in reached:
                reached.add(t)
                frontier.append(t)
    assert reached == set(RoundState)


ALL_PAIRS = [(s, e) for s in RoundState for e in RoundEvent]


@pytest.mark.parametrize(("state_", "event"), ALL_PAIRS, ids=lambda x: x.name)
def test_every_transition_and_every_forbidden_one(state_: RoundState, event: RoundEvent) -> None:
    if (state_, event) in FLOW:
        assert next_state(state_, event) is FLOW[state_, event]
    else:
        with pytest.raises(RoundFlowError, match=event.name.lower()):
            next_state(state_, event)


def test_round_happy_path() -> None:
    rnd = new_round()
    assert rnd.participants == ("alice", "bob", "dave", DEALER)
    assert state(rnd) is RoundState.ANNOUNCED
    assert rnd.waiting_for() == rnd.participants
    assert rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER]) is False  # the host first
    for p in ("dave", "alice"):  # then any order
        assert rnd.commit(p, R0.commits[p], R0.csig[p]) is False
    assert rnd.waiting_for() == ("bob",)
    assert rnd.commit("bob", R0.commits["bob"], R0.csig["bob"]) is True
    assert state(rnd) is RoundState.FIXED
    assert list(rnd.commitments) == list(rnd.participants)  # in participant order
    assert rnd.commitments == {p: (R0.commits[p], R0.csig[p]) for p in R0.ps}
    assert rnd.waiting_for() == rnd.participants
    with pytest.raises(UsageError):
        _ = rnd.key
    with pytest.raises(UsageError):
        rnd.deal()  # no seed yet
    for p in ("bob", DEALER, "alice"):
        assert rnd.reveal(p, R0.seeds[p], R0.rsig[p]) is False
        assert not rnd.complete
    assert rnd.reveal("dave", R0.seeds["dave"], R0.rsig["dave"]) is True
    assert rnd.complete
    assert state(rnd) is RoundState.FIXED  # complete, but not dealt until the host deals
    assert rnd.waiting_for() == ()
    assert rnd.key == fp.deck_key(R0.ctx, R0.seeds)
    assert rnd.seeds == {p: (R0.seeds[p], R0.rsig[p]) for p in R0.ps}
    assert rnd.order(DECK) == ks.derive_order(R0.ctx, R0.seeds, DECK)
    assert sorted(rnd.order(DECK)) == DECK
    rnd.deal()
    assert state(rnd) is RoundState.DEALT
    assert rnd.waiting_for() == ()
    assert rnd.order(DECK) == ks.derive_order(R0.ctx, R0.seeds, DECK)
    with pytest.raises(UsageError):
        rnd.reveal("alice", R0.seeds["alice"], R0.rsig["alice"])
    with pytest.raises(UsageError):
        rnd.commit("alice", R0.commits["alice"], R0.csig["alice"])
    with pytest.raises(RoundFlowError):
        rnd.deal()
    with pytest.raises(RoundFlowError):
        rnd.abandon()
    with pytest.raises(RoundFlowError):
        rnd.withdraw()
    assert state(rnd) is RoundState.DEALT


def test_the_host_commits_first() -> None:
    rnd = new_round()
    with pytest.raises(UsageError, match="@dealer commits first"):
        rnd.commit("alice", R0.commits["alice"], R0.csig["alice"])
    assert rnd.commitments == {}
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    rnd.commit("alice", R0.commits["alice"], R0.csig["alice"])
    # Only the host: fixed at once (everyone is away).
    alone = inputs(mask=0)
    rnd = Round(alone.ctx, alone.ps, PUB)
    assert rnd.commit(DEALER, alone.commits[DEALER], alone.csig[DEALER]) is True
    assert state(rnd) is RoundState.FIXED
    assert rnd.reveal(DEALER, alone.seeds[DEALER], alone.rsig[DEALER]) is True


def test_duplicate_commit_is_rejected_and_changes_nothing() -> None:
    rnd = new_round()
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    rnd.commit("alice", R0.commits["alice"], R0.csig["alice"])
    other = fp.commitment(R0.ctx, "alice", bytes(32))
    with pytest.raises(Blame) as e:
        rnd.commit(
            "alice", other, fp.sign(PRIV["alice"], fp.commitment_message(R0.ctx, "alice", other))
        )
    assert e.value.fault is Fault.DUPLICATE_COMMITMENT
    assert e.value.culprits == ("alice",)
    with pytest.raises(Blame) as e:
        rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    assert e.value.fault is Fault.DUPLICATE_COMMITMENT
    assert rnd.commitments == {p: (R0.commits[p], R0.csig[p]) for p in ("alice", DEALER)}
    assert state(rnd) is RoundState.ANNOUNCED


def test_unknown_id_and_bad_length() -> None:
    rnd = new_round()
    for pid in ("mallory", "carol", "not valid", "@host"):  # carol is a bot: no participant
        with pytest.raises(Blame) as e:
            rnd.commit(pid, R0.commits["alice"], R0.csig["alice"])
        assert e.value.fault is Fault.UNKNOWN_PARTICIPANT
        assert e.value.culprits == (pid,)
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    for bad in (b"", bytes(31), bytes(33), "0" * 32):
        with pytest.raises(Blame) as e:
            rnd.commit("alice", bad, R0.csig["alice"])  # type: ignore[arg-type]
        assert e.value.fault is Fault.BAD_COMMITMENT
    assert list(rnd.commitments) == [DEALER]
    rnd = committed()
    with pytest.raises(Blame) as e:
        rnd.reveal("mallory", R0.seeds["alice"], R0.rsig["alice"])
    assert e.value.fault is Fault.UNKNOWN_PARTICIPANT


def test_commitment_signatures() -> None:
    rnd = new_round()
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    flipped = bytes([R0.csig["alice"][0] ^ 1]) + R0.csig["alice"][1:]
    for sig in (R0.csig["bob"], flipped, b"", bytes(64)):  # bob's signature is not alice's
        with pytest.raises(Blame) as e:
            rnd.commit("alice", R0.commits["alice"], sig)
        assert e.value.fault is Fault.BAD_SIGNATURE
        assert e.value.culprits == ("alice",)
    # A commitment signed for another round is no signature for this one.
    other = inputs(round_no=1)
    with pytest.raises(Blame) as e:
        rnd.commit(
            "alice",
            R0.commits["alice"],
            fp.sign(PRIV["alice"], fp.commitment_message(other.ctx, "alice", R0.commits["alice"])),
        )
    assert e.value.fault is Fault.BAD_SIGNATURE
    assert list(rnd.commitments) == [DEALER]


def test_copied_commitment_is_caught() -> None:
    rnd = new_round()
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    rnd.commit("alice", R0.commits["alice"], R0.csig["alice"])
    # bob copies alice's commitment and signs it himself: refused on arrival.
    copy_sig = fp.sign(PRIV["bob"], fp.commitment_message(R0.ctx, "bob", R0.commits["alice"]))
    with pytest.raises(Blame) as e:
        rnd.commit("bob", R0.commits["alice"], copy_sig)
    assert e.value.fault is Fault.COPIED_COMMITMENT
    assert e.value.culprits == ("bob",)
    assert "alice" in str(e.value)
    # Copying the host's is as bad.
    copy_sig = fp.sign(PRIV["bob"], fp.commitment_message(R0.ctx, "bob", R0.commits[DEALER]))
    with pytest.raises(Blame) as e:
        rnd.commit("bob", R0.commits[DEALER], copy_sig)
    assert e.value.fault is Fault.COPIED_COMMITMENT
    # Even knowing alice's seed, bob cannot open alice's commitment: it is bound to her id.
    assert fp.commitment(R0.ctx, "bob", R0.seeds["alice"]) != R0.commits["alice"]


def test_commitment_from_another_hand_or_round_does_not_open() -> None:
    other = inputs(hand_no=2)
    assert other.ctx != R0.ctx
    # dave replays his commitment and seed from hand 2 in hand 1 (signing them anew).
    rnd = new_round()
    for p in (DEALER, "alice", "bob"):
        rnd.commit(p, R0.commits[p], R0.csig[p])
    c = other.commits["dave"]
    rnd.commit("dave", c, fp.sign(PRIV["dave"], fp.commitment_message(R0.ctx, "dave", c)))
    for p in ("alice", "bob", DEALER):
        rnd.reveal(p, R0.seeds[p], R0.rsig[p])
    sd = other.seeds["dave"]
    with pytest.raises(Blame) as e:
        rnd.reveal("dave", sd, fp.sign(PRIV["dave"], fp.reveal_message(R0.ctx, "dave", c, sd)))
    assert e.value.fault is Fault.BAD_REVEAL
    assert e.value.culprits == ("dave",)
    # A later round of the same hand, or the same round among other people, is another context.
    for i in (inputs(round_no=1), inputs(mask=0b0011), inputs(cards=DECK[:-1])):
        assert fp.commitment(i.ctx, "dave", R0.seeds["dave"]) != R0.commits["dave"]


def test_early_and_duplicate_reveals() -> None:
    rnd = new_round()
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    rnd.commit("alice", R0.commits["alice"], R0.csig["alice"])
    with pytest.raises(Blame) as e:  # before every commitment is in
        rnd.reveal("alice", R0.seeds["alice"], R0.rsig["alice"])
    assert e.value.fault is Fault.EARLY_REVEAL
    assert e.value.culprits == ("alice",)
    with pytest.raises(Blame) as e:  # the host may not jump the gun either
        rnd.reveal(DEALER, R0.seeds[DEALER], R0.rsig[DEALER])
    assert e.value.fault is Fault.EARLY_REVEAL
    with pytest.raises(Blame) as e:
        rnd.reveal("mallory", R0.seeds["alice"], R0.rsig["alice"])
    assert e.value.fault is Fault.UNKNOWN_PARTICIPANT
    assert state(rnd) is RoundState.ANNOUNCED
    for p in ("bob", "dave"):
        rnd.commit(p, R0.commits[p], R0.csig[p])
    rnd.reveal("alice", R0.seeds["alice"], R0.rsig["alice"])
    with pytest.raises(Blame) as e:
        rnd.reveal("alice", R0.seeds["alice"], R0.rsig["alice"])
    assert e.value.fault is Fault.DUPLICATE_REVEAL
    assert state(rnd) is RoundState.FIXED
    assert list(rnd.seeds) == ["alice"]


@pytest.mark.parametrize("bad", ["zeros", "short", "empty", "tampered", "long"])
def test_reveal_that_does_not_open_fails_the_round(bad: str) -> None:
    rnd = committed()
    rnd.reveal("alice", R0.seeds["alice"], R0.rsig["alice"])
    sd = R0.seeds["dave"]
    wrong = {
        "zeros": bytes(32),
        "short": sd[:31],
        "empty": b"",
        "tampered": bytes([sd[0] ^ 1]) + sd[1:],
        "long": sd + b"\0",
    }[bad]
    sig = fp.sign(PRIV["dave"], fp.reveal_message(R0.ctx, "dave", R0.commits["dave"], wrong))
    with pytest.raises(Blame) as e:
        rnd.reveal("dave", wrong, sig)
    assert e.value.fault is Fault.BAD_REVEAL
    assert e.value.culprits == ("dave",)
    assert state(rnd) is RoundState.FAILED
    assert rnd.blame is e.value
    assert rnd.bad_seed == (wrong, sig)  # kept as evidence, with dave's own signature
    assert rnd.seeds["dave"] == (wrong, sig)
    assert fp.verify(PUB["dave"], fp.reveal_message(R0.ctx, "dave", R0.commits["dave"], wrong), sig)
    # The round is over: no more seeds, no key, no deal; abandoning it gives the same blame.
    with pytest.raises(UsageError):
        rnd.reveal("bob", R0.seeds["bob"], R0.rsig["bob"])
    with pytest.raises(UsageError):
        rnd.order([1, 2, 3])
    with pytest.raises(UsageError):
        rnd.deal()
    assert rnd.abandon() is e.value
    with pytest.raises(RoundFlowError):
        rnd.withdraw()


def test_badly_signed_reveal_changes_nothing() -> None:
    rnd = committed()
    flipped = bytes([R0.rsig["bob"][0] ^ 1]) + R0.rsig["bob"][1:]
    for sig in (flipped, R0.rsig["alice"], b""):
        with pytest.raises(Blame) as e:
            rnd.reveal("bob", R0.seeds["bob"], sig)
        assert e.value.fault is Fault.BAD_SIGNATURE
        assert e.value.culprits == ("bob",)
    # A wrong seed under a signature that does not verify is no evidence against bob.
    with pytest.raises(Blame) as e:
        rnd.reveal("bob", bytes(32), R0.rsig["bob"])
    assert e.value.fault is Fault.BAD_SIGNATURE
    with pytest.raises(Blame) as e:
        rnd.reveal("bob", "seed", R0.rsig["bob"])  # type: ignore[arg-type]
    assert e.value.fault is Fault.BAD_REVEAL
    assert state(rnd) is RoundState.FIXED
    assert rnd.blame is None
    assert rnd.seeds == {}
    for p in R0.ps:
        rnd.reveal(p, R0.seeds[p], R0.rsig[p])
    assert rnd.complete


def test_abandon_blames_whoever_is_missing() -> None:
    rnd = new_round()
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    rnd.commit("bob", R0.commits["bob"], R0.csig["bob"])
    blame = rnd.abandon()
    assert blame.fault is Fault.MISSING_COMMITMENT
    assert blame.culprits == ("alice", "dave")
    assert state(rnd) is RoundState.FAILED
    assert rnd.blame is blame
    assert rnd.abandon() is blame

    rnd = committed()
    for p in ("alice", DEALER):
        rnd.reveal(p, R0.seeds[p], R0.rsig[p])
    assert rnd.waiting_for() == ("bob", "dave")
    blame = rnd.abandon()
    assert blame.fault is Fault.MISSING_REVEAL
    assert blame.culprits == ("bob", "dave")
    assert "bob, dave did not reveal" in str(blame)
    assert state(rnd) is RoundState.FAILED


def test_a_complete_round_cannot_be_abandoned() -> None:
    """LIBRARY BUG (fails today): once every seed is in, nobody is missing, yet
    ``Round.abandon`` fails the round with a blame that names nobody (``MISSING_REVEAL``,
    culprits ``()``) — a void that an ``abort`` message cannot even carry (culprits: 1..17).
    Only the Dealer's stage table (DEALING takes ``deal`` alone) keeps this from happening;
    the round itself should refuse, as it refuses to be dealt before it is complete."""
    rnd = revealed()
    assert rnd.complete
    with pytest.raises((UsageError, RoundFlowError)):
        rnd.abandon()
    assert state(rnd) is RoundState.FIXED


def test_withdraw_only_while_announced() -> None:
    rnd = new_round()
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    rnd.withdraw()
    assert state(rnd) is RoundState.WITHDRAWN
    assert rnd.waiting_for() == ()
    with pytest.raises(UsageError):
        rnd.commit("alice", R0.commits["alice"], R0.csig["alice"])
    with pytest.raises(UsageError):
        rnd.reveal("alice", R0.seeds["alice"], R0.rsig["alice"])
    for call in (rnd.withdraw, rnd.abandon, rnd.deal):
        with pytest.raises((RoundFlowError, UsageError)):
            call()
    assert state(rnd) is RoundState.WITHDRAWN
    # Once fixed, a round is dealt from or fails: it cannot be withdrawn.
    rnd = committed()
    with pytest.raises(RoundFlowError):
        rnd.withdraw()
    assert state(rnd) is RoundState.FIXED
    rnd.reveal("alice", R0.seeds["alice"], R0.rsig["alice"])
    with pytest.raises(RoundFlowError):
        rnd.withdraw()
    # A failed round neither.
    rnd = new_round()
    rnd.abandon()
    with pytest.raises(RoundFlowError):
        rnd.withdraw()


def test_round_rejects_bad_setup() -> None:
    with pytest.raises(UsageError):
        Round(R0.ctx, ["alice", "bob"], PUB)  # @dealer last
    with pytest.raises(UsageError):
        Round(R0.ctx, [DEALER, "alice"], PUB)
    with pytest.raises(UsageError):
        Round(R0.ctx, ["alice", "alice", DEALER], PUB)
    with pytest.raises(UsageError):
        Round(R0.ctx, [], PUB)
    with pytest.raises(UsageError):
        Round(R0.ctx, ["alice", DEALER], dict(PUB, alice=bytes(31)))


def test_round_refuses_a_participant_without_a_key() -> None:
    """LIBRARY BUG (fails today; v1's Round raised UsageError here): ``Round`` looks each
    participant's key up with ``keys[p]``, so a missing key escapes as a bare KeyError rather
    than the UsageError the fair deal raises for a caller's mistake."""
    with pytest.raises(UsageError):
        Round(R0.ctx, ["alice", "carol", DEALER], PUB)  # carol has no key


def test_round_refuses_a_context_that_is_not_32_bytes() -> None:
    """LIBRARY BUG (fails today; v1's Round raised UsageError here): ``Round`` takes any
    context; with a short one no commitment can ever open and no statement can be signed over
    it (``commitment_message`` refuses it), so the round could only fail later, blaming the
    participants."""
    with pytest.raises(UsageError):
        Round(bytes(31), R0.ps, PUB)


# -- announcements and aborts as records ------------------------------------------------------


def test_announcement_and_void_record_signatures() -> None:
    for fixed in (False, True):
        ann = announcement(fixed)
        assert ann.signed_by(PUB[DEALER], S.ctx0)
        assert not ann.signed_by(PUB["alice"], S.ctx0)
        assert not ann.signed_by(PUB[DEALER], setup(hand_no=2).ctx0)  # another hand
        assert not dataclasses.replace(ann, round=1).signed_by(PUB[DEALER], S.ctx0)
        # A malformed field is no valid signature, not an exception.
        bad = dataclasses.replace(ann, commitments={"a b": (bytes(32), b"")})
        assert not bad.signed_by(PUB[DEALER], S.ctx0)
    rnd = new_round()
    rnd.commit(DEALER, R0.commits[DEALER], R0.csig[DEALER])
    blame = rnd.abandon()
    void = VoidRecord.make(PRIV[DEALER], S.ctx0, 0, blame, rnd.commitments)
    assert void.fault is Fault.MISSING_COMMITMENT
    assert void.culprits == ("alice", "bob", "dave")
    assert void.message(S.ctx0) == fp.abort_message(
        S.ctx0, 0, "missing_commitment", ["alice", "bob", "dave"], {DEALER: R0.commits[DEALER]}
    )
    assert void.signed_by(PUB[DEALER], S.ctx0)
    assert not dataclasses.replace(void, culprits=("bob",)).signed_by(PUB[DEALER], S.ctx0)
    assert not dataclasses.replace(void, fault=Fault.BAD_REVEAL).signed_by(PUB[DEALER], S.ctx0)
    assert not dataclasses.replace(void, commitments={}).signed_by(PUB[DEALER], S.ctx0)
    assert not dataclasses.replace(void, culprits=("a b",)).signed_by(PUB[DEALER], S.ctx0)
