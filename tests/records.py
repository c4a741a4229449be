"""What a test reads of a hand's record beyond its judgement: the deal's own finding and file.

A :class:`~lanswitch.session.HandRecord` carries a
:class:`~lanswitch.fairdeal.judgement.Judgement` — what every reader in lanswitch uses,
whichever deal dealt the hand — and the deal's proof. A test of one deal looks further, at
what that deal found in its own terms (a commit-reveal
:class:`~lanswitch.fairdeal.Verdict`'s absences, a blind
:class:`~lanswitch.fairdeal.blind.check.BlindOutcome`'s fault) or at the transcript itself;
these helpers reach them, and fail the test if the hand was not dealt so.
"""

from __future__ import annotations

from lanswitch.fairdeal import Transcript, Verdict
from lanswitch.fairdeal.blind.check import BlindOutcome
from lanswitch.session import HandRecord

__all__ = ["blind_file_of", "outcome_of", "transcript_of", "verdict_of"]


def verdict_of(record: HandRecord) -> Verdict:
    """The commit-reveal deal's verdict of ``record`` (the test fails if there is none)."""
    assert record.judgement is not None, f"hand {record.hand_no}: no judgement"
    found = record.judgement.found
    assert isinstance(found, Verdict), f"hand {record.hand_no}: not a commit-reveal verdict"
    return found


def outcome_of(record: HandRecord) -> BlindOutcome:
    """The dealer-blind deal's outcome of ``record`` (the test fails if there is none)."""
    assert record.judgement is not None, f"hand {record.hand_no}: no judgement"
    found = record.judgement.found
    assert isinstance(found, BlindOutcome), f"hand {record.hand_no}: not dealt dealer-blind"
    return found


def transcript_of(record: HandRecord) -> Transcript:
    """The commit-reveal transcript ``record`` keeps (the test fails if there is none)."""
    assert record.proof is not None, f"hand {record.hand_no}: no proof kept"
    source = record.proof.source
    assert isinstance(source, Transcript), f"hand {record.hand_no}: no transcript"
    return source


def blind_file_of(record: HandRecord) -> str:
    """A dealer-blind hand's file as ``record`` keeps it ("" if none was written)."""
    if record.proof is None:
        return ""
    source = record.proof.source
    assert isinstance(source, str), f"hand {record.hand_no}: not a dealer-blind file"
    return source
