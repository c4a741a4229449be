"""A claim that stops a dealer-blind hand needs proof (issue 25, item 3; SPEC § After the
hand). The check after the hand, with every seed, settles a claim: what it proves against
another stands; a claim it does not bear out is its claimant's stop, proven by the claimant's
own signature over it — so the host cannot make one up in a player's name, and a file whose
claim was changed proves nothing against anyone. (Over real TLS, with a modified player:
``tests/scenarios/test_blind_net.py``.)"""

from __future__ import annotations

import json

from lanswitch.fairdeal.blind import file as blindfile
from lanswitch.fairdeal.blind.check import unfounded_claim
from lanswitch.fairdeal.blind.hand import BlindFault, claim_message
from lanswitch.fairdeal.blind.holder import Holder
from lanswitch.fairdeal.primitives import DEALER, sign
from tests.blindtable import blind_table


def _holder(pid: str) -> tuple[Holder, bytes]:
    t = blind_table(2, 1, seed=5)
    key = t.private[pid]
    return Holder(t.setup, pid, key, t.seeds(pid)), key


def test_a_signed_claim_nothing_bears_out_is_the_claimants_stop() -> None:
    holder, _ = _holder("p1")
    setup = holder.setup
    said = "p0's key opened nothing"
    claims = {"p1": ("bad_key", said, holder.claim("bad_key", said))}
    found = unfounded_claim(setup, claims)
    assert found is not None
    assert (found.status, found.culprit, found.fault, found.proven) == (
        "void",
        "p1",
        BlindFault.UNFOUNDED_CLAIM,
        True,
    )
    assert "p0's key opened nothing" in found.detail


def test_a_claim_not_signed_by_its_claimant_is_no_claim() -> None:
    """The host (or anyone) making up p1's claim, or changing its words: nobody is blamed by
    it — the signature is over the claimant, the fault and the detail."""
    holder, _ = _holder("p1")
    setup = holder.setup
    dealer, _ = _holder(DEALER)
    forged = dealer.claim("bad_key", "made up")  # signed by the host, in p1's name
    assert unfounded_claim(setup, {"p1": ("bad_key", "made up", forged)}) is None
    signed = holder.claim("bad_key", "its key opened nothing")
    assert unfounded_claim(setup, {"p1": ("bad_key", "it said something else", signed)}) is None
    assert unfounded_claim(setup, {"p1": ("bad_pass", "its key opened nothing", signed)}) is None
    assert unfounded_claim(setup, {"p1": ("bad_key", "its key opened nothing", b"")}) is None
    assert unfounded_claim(setup, {"p1": ("bad_key", "its key opened nothing", signed)}) is not None


def test_the_claim_message_binds_the_hand() -> None:
    """A claim signed in one hand is no claim in another (its context differs)."""
    one, key = _holder("p1")
    other = blind_table(2, 1, seed=6)
    msg = claim_message(one.setup.ctx0, "p1", "bad_key", "x")
    signature = sign(key, msg)
    assert unfounded_claim(other.setup, {"p1": ("bad_key", "x", signature)}) is None
    assert claim_message(one.setup.ctx0, "p1", "bad_key", "ü") != claim_message(
        one.setup.ctx0, "p1", "bad_key", "u"
    )


def test_a_version_2_file_still_reads_as_one_with_no_claims() -> None:
    """Files written under protocol v4 (blind file version 2) keep their verdicts."""
    hand = blind_table(2, 1, seed=3).play()
    h = hand.holders["p0"]
    seeds = {q: dict(x.seeds) for q, x in hand.holders.items()}
    text = blindfile.dump(h.follower, "p0", seeds, h.received)
    now = blindfile.judge(text)
    data = json.loads(text)
    assert data["version"] == blindfile.VERSION == 3
    assert data["claims"] == {}
    data["version"] = 2
    del data["claims"]
    old = blindfile.judge(json.dumps(data))
    assert (old.status, old.culprits) == (now.status, now.culprits) == ("fair", ())
