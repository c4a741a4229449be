"""The fair deal: every shuffle fixed jointly by everyone at the table, every move signed by
whoever made it, and each hand checked afterwards by each player on its own. Two deals share
this home: commit-reveal (protocol v2) and dealer-blind (protocol v3 and up).

The map, in layers (a module imports only modules listed above it):

Shared by both deals
``primitives``  encodings, contexts, commitments, the deck key, and every signed statement
                (``protocol/SPEC.md``, "Fair deal")
``keystream``   the keystream and the unbiased shuffle: a deck key to a stock's order
``log``         the public log's events and their hash chain
``setup``       what everyone agrees to before a hand (``ctx_0`` and the setup note)
``forfeit``     who forfeits a void hand: one rule the host scores by and every check states
``tally``       void hands counted per culprit, with the warning threshold
``judgement``   a hand's judgement whichever deal dealt it: what every reader uses

Commit-reveal
``round``       one commit-reveal round: its states as one table (``ROUND_FLOW``), its signed
                announcements, the host's side of it
``checks``      the checks a seat makes live and the verifier makes again: presence, moves,
                announcements
``transcript``  what one seat keeps of a hand, and its JSON file (whose reader the blind
                hand's file uses too)
``dealer``      the host's side of a hand, and the hand's stages as one table (``HAND_CALLS``)
``seat``        a seat's side of a hand
``verdict``     a replay's verdict: fair, unconfirmed, unfair or void, and what each proves
``replay``      a transcript replayed and checked, offline: ``verify``
``compare``     several transcripts of one hand against each other
``local``       a whole hand in one process (the simulator, the tests, the benchmarks)

Dealer-blind
``blind/``      a package: its cryptography, the engine on hidden cards, the public record, a
                participant's part, the check after the hand, the hand's file (its
                ``__init__`` is its map). Not re-exported here: importers name the module.

Both, on top
``steps``       a hand step by step from one seat's record, for ``lanswitch replay``: a
                transcript (through ``replay``) or a blind hand's file (through ``blind/``)

Pure: nothing here reads a clock, the network or the OS's randomness; seeds and keys come in
as bytes. ``docs/fairness.md`` is the threat model in plain words.
"""

from .compare import verify_all
from .dealer import HAND_CALLS, BadMove, Dealer, HandStage, Step, card_events
from .local import FairHand, play_fair_hand, public_keys_of
from .log import (
    BY_BOT,
    BY_SEAT,
    BY_STAND_IN,
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
    decode_event,
)
from .primitives import DEALER, Blame, FairnessError, Fault, UsageError
from .replay import verify
from .round import ROUND_FLOW, Announcement, Round, RoundEvent, RoundState, VoidRecord
from .seat import Commit, Reveal, SeatRecorder
from .setup import HandSetup, SetupError
from .tally import VoidTally
from .transcript import Dispute, RoundRecord, SignedHead, Transcript, TranscriptError
from .verdict import Absence, Verdict

__all__ = [
    "BY_BOT",
    "BY_SEAT",
    "BY_STAND_IN",
    "BY_TIMEOUT",
    "DEALER",
    "HAND_CALLS",
    "LEFT",
    "LOST",
    "ROUND_FLOW",
    "Absence",
    "Announcement",
    "Away",
    "Back",
    "BadMove",
    "Blame",
    "Commit",
    "Dealer",
    "Dispute",
    "Draw",
    "FairHand",
    "FairnessError",
    "Fault",
    "HandSetup",
    "HandStage",
    "Log",
    "LogEvent",
    "Move",
    "Note",
    "Reveal",
    "Round",
    "RoundEvent",
    "RoundRecord",
    "RoundState",
    "SeatRecorder",
    "SetupError",
    "Shuffle",
    "SignedHead",
    "Step",
    "Transcript",
    "TranscriptError",
    "TurnUp",
    "UsageError",
    "Verdict",
    "VoidRecord",
    "VoidTally",
    "card_events",
    "decode_event",
    "play_fair_hand",
    "public_keys_of",
    "verify",
    "verify_all",
]
