"""One commit-reveal round: its states as one table, its announcements, and the host's side.

Theory of operation
-------------------
Every order of cards a hand uses — the deal, and each reshuffle of the discard pile — comes
from one **round** among its participants: the seats of the people present, and the host as
``@dealer``. The round's life is the table :data:`ROUND_FLOW` (h11's ``_state.py`` is the
model): the host, each seat and the offline verifier all move a round through this one table,
so they cannot disagree on what may follow what.

1. ``ANNOUNCED``. The host announces the round with its context and **its own commitment**,
   signed (stage 1): it is fixed before the host sees anyone else's. Each participant commits.
2. ``FIXED``. When every commitment is in, the host announces them all, signed (stage 3).
   Each participant checks its own is there unchanged, and reveals its seed to the host alone,
   once. From here the round can only be dealt from or fail: no seed was asked for before.
3. ``DEALT``. Every seed opened: the order is derived and becomes the stock (the log's
   ``Shuffle`` event). Or ``FAILED``: a seed that does not open, or one that never came —
   the hand is void, with blame.

A round still ``ANNOUNCED`` when a participant goes away (its link lost past the grace, or it
said goodbye) is ``WITHDRAWN`` and a new round, with a new number and without that seat, is
announced in its place: no seed of it was ever asked for, so giving it up tells the host
nothing it could choose by. Two announcements of one round and stage that differ are the
host's own signed contradiction, and every client keeps both.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from ..errors import LocalError
from .keystream import shuffle
from .primitives import (
    DEALER,
    HASH_BYTES,
    LABELS,
    SEED_BYTES,
    Blame,
    FairnessError,
    Fault,
    PrivateKeyLike,
    PublicKeyLike,
    UsageError,
    abort_message,
    announce_message,
    commitment_message,
    deck_key,
    enc,
    need_bytes,
    public_key,
    reveal_message,
    sign,
    verify,
)

__all__ = [
    "ROUND_FLOW",
    "Announcement",
    "Round",
    "RoundEvent",
    "RoundFlowError",
    "RoundState",
    "VoidRecord",
    "next_state",
]


class RoundState(enum.Enum):
    """Where a round stands (see the module docstring)."""

    ANNOUNCED = "announced: the participants commit"
    FIXED = "every commitment fixed: the participants reveal their seeds to the host"
    DEALT = "every seed opened: its order is the stock"
    FAILED = "a seed did not open or never came: the hand is void"
    WITHDRAWN = "given up before any seed was asked for, and announced anew"


class RoundEvent(enum.Enum):
    """What moves a round on."""

    FIX = "every commitment is in: the host announces them all (stage 3)"
    DEAL = "every seed opened: the host deals from the order (a Shuffle event)"
    FAIL = "a seed did not open, or one never came: the host aborts (the hand is void)"
    WITHDRAW = "a participant went away before all had committed: the round is announced anew"


ROUND_FLOW: Final[Mapping[tuple[RoundState, RoundEvent], RoundState]] = {
    (RoundState.ANNOUNCED, RoundEvent.FIX): RoundState.FIXED,
    (RoundState.ANNOUNCED, RoundEvent.FAIL): RoundState.FAILED,
    (RoundState.ANNOUNCED, RoundEvent.WITHDRAW): RoundState.WITHDRAWN,
    (RoundState.FIXED, RoundEvent.DEAL): RoundState.DEALT,
    (RoundState.FIXED, RoundEvent.FAIL): RoundState.FAILED,
}
"""Every transition a round may take; anything else is a protocol violation. A round is born
``ANNOUNCED``; ``DEALT``, ``FAILED`` and ``WITHDRAWN`` are final."""


class RoundFlowError(FairnessError, LocalError):
    """A round was asked to take a transition :data:`ROUND_FLOW` does not have."""


def next_state(state: RoundState, event: RoundEvent) -> RoundState:
    """The state ``event`` takes a round in ``state`` to (RoundFlowError if none)."""
    try:
        return ROUND_FLOW[state, event]
    except KeyError:
        raise RoundFlowError(
            f"a round that is {state.name.lower()} cannot {event.name.lower()}"
        ) from None


# ---------------------------------------------------------------------------------------------
# What the host publishes about a round


Commitments = Mapping[str, tuple[bytes, bytes]]
"""``participant → (commitment, its commit signature)``, in participant order."""


def _values(commitments: Commitments) -> dict[str, bytes]:
    return {p: c for p, (c, _) in commitments.items()}


class _Signed:
    """A statement the host signs: ``message(ctx0)`` is what its ``signature`` covers."""

    __slots__ = ()
    signature: bytes

    def message(self, ctx0: bytes) -> bytes:  # pragma: no cover - each statement has its own
        raise NotImplementedError

    def signed_by(self, key: PublicKeyLike, ctx0: bytes) -> bool:
        try:
            return verify(key, self.message(ctx0), self.signature)
        except UsageError:  # a malformed field: no valid signature covers it
            return False


@dataclass(frozen=True, slots=True)
class Announcement(_Signed):
    """A round as the host announced it, with the host's signature over the statement.

    ``fixed`` false: stage 1, ``commitments`` holds ``@dealer``'s alone; true: stage 3, every
    participant's. ``mask`` names the seats taking part; ``cards`` are what it orders.
    """

    round: int
    fixed: bool
    ctx: bytes
    cards: tuple[int, ...]
    mask: int
    commitments: Commitments
    signature: bytes

    def message(self, ctx0: bytes) -> bytes:
        return announce_message(ctx0, self.round, self.fixed, self.ctx, _values(self.commitments))

    @classmethod
    def make(
        cls,
        key: PrivateKeyLike,
        ctx0: bytes,
        round_no: int,
        fixed: bool,
        ctx: bytes,
        cards: Sequence[int],
        mask: int,
        commitments: Commitments,
    ) -> Announcement:
        unsigned = cls(round_no, fixed, ctx, tuple(cards), mask, dict(commitments), b"")
        return replace(unsigned, signature=sign(key, unsigned.message(ctx0)))


@dataclass(frozen=True, slots=True)
class VoidRecord(_Signed):
    """The host's signed announcement that round ``round`` failed: the hand is void.

    ``commitments``: those it had when the round failed (for ``missing_commitment``, what
    shows who was missing).
    """

    round: int
    fault: Fault
    culprits: tuple[str, ...]
    commitments: Commitments
    signature: bytes

    def message(self, ctx0: bytes) -> bytes:
        return abort_message(
            ctx0, self.round, self.fault.name.lower(), self.culprits, _values(self.commitments)
        )

    @classmethod
    def make(
        cls,
        key: PrivateKeyLike,
        ctx0: bytes,
        round_no: int,
        blame: Blame,
        commitments: Commitments,
    ) -> VoidRecord:
        unsigned = cls(round_no, blame.fault, blame.culprits, dict(commitments), b"")
        return replace(unsigned, signature=sign(key, unsigned.message(ctx0)))


# ---------------------------------------------------------------------------------------------
# The host's side of one round


class Round:
    """The host's side of one round: it collects signed commitments, then signed seeds.

    ``Round(ctx, participants, keys)`` expects a commitment, then a seed, from each of
    ``participants`` (seat ids in seat order, then ``@dealer``); ``keys`` maps each to its
    Ed25519 public key, and every message must carry its participant's valid signature.
    ``@dealer`` commits first (the host's own commitment goes out in stage 1).

    A rejected message raises :class:`Blame` (:class:`UsageError` for a call out of order:
    a commit or reveal the round's state does not take, one before ``@dealer``'s) and changes
    nothing, except a validly signed
    reveal that does not open its commitment: that fails the round for good (``state``
    ``FAILED``, ``blame`` set, the seed kept as evidence). Time is not an input here: when the
    shell's wait runs out, the host calls :meth:`abandon` (or :meth:`withdraw`).
    """

    def __init__(
        self,
        ctx: bytes,
        participants: Sequence[str],
        keys: Mapping[str, PublicKeyLike],
    ) -> None:
        if not participants or participants[-1] != DEALER:
            raise UsageError("a round's participants end with @dealer")
        if len(set(participants)) != len(participants):
            raise UsageError("a round's participants are distinct")
        missing = [q for q in participants if q not in keys]
        if missing:
            raise UsageError(f"no public key for {missing}")
        ctx = need_bytes("ctx", ctx, HASH_BYTES)
        self.ctx: Final = ctx
        self.participants: Final = tuple(participants)
        self.state = RoundState.ANNOUNCED
        self.blame: Blame | None = None
        self._keys = {p: public_key(keys[p]) for p in self.participants}
        self._commitments: dict[str, tuple[bytes, bytes]] = {}
        self._seeds: dict[str, tuple[bytes, bytes]] = {}
        self._key: bytes | None = None
        self.bad_seed: tuple[bytes, bytes] | None = None
        """The seed that did not open (and its signature), kept as evidence."""
        self._prefix = enc(LABELS["commit"]) + ctx  # commitment()'s hash input, up to the id
        self._encoded = {p: enc(p) for p in self.participants}

    def _to(self, event: RoundEvent) -> None:
        self.state = next_state(self.state, event)

    # -- inspection --------------------------------------------------------------------------

    @property
    def commitments(self) -> dict[str, tuple[bytes, bytes]]:
        """The commitments received with their signatures, in participant order."""
        return {p: self._commitments[p] for p in self.participants if p in self._commitments}

    @property
    def seeds(self) -> dict[str, tuple[bytes, bytes]]:
        """The seeds revealed with their signatures, in participant order (a bad one too)."""
        out = {p: self._seeds[p] for p in self.participants if p in self._seeds}
        if self.bad_seed is not None and self.blame is not None:
            out[self.blame.pid] = self.bad_seed
        return out

    def waiting_for(self) -> tuple[str, ...]:
        """Who has yet to commit (``ANNOUNCED``) or to reveal (``FIXED``); else ``()``."""
        if self.state is RoundState.ANNOUNCED:
            return tuple(p for p in self.participants if p not in self._commitments)
        if self.state is RoundState.FIXED:
            return tuple(p for p in self.participants if p not in self._seeds)
        return ()

    @property
    def key(self) -> bytes:
        """The round's deck key (once every seed opened)."""
        if self._key is None:
            raise UsageError(f"no key while the round is {self.state.name}")
        return self._key

    def order(self, cards: Iterable[int]) -> list[int]:
        """The derived order of ``cards``; ``order[0]`` is the top of the stock."""
        return shuffle(self.key, cards)

    # -- input -------------------------------------------------------------------------------

    def _participant(self, pid: str) -> None:
        if pid not in self._encoded:
            raise Blame(Fault.UNKNOWN_PARTICIPANT, (str(pid),))

    def commit(self, pid: str, commitment_: bytes, signature: bytes) -> bool:
        """Take ``pid``'s commitment; True when it was the last (the round is ``FIXED``)."""
        if self.state is not RoundState.ANNOUNCED:
            raise UsageError(f"no commitments are taken while the round is {self.state.name}")
        self._participant(pid)
        if pid in self._commitments:
            raise Blame(Fault.DUPLICATE_COMMITMENT, (pid,))
        if pid != DEALER and DEALER not in self._commitments:
            raise UsageError("@dealer commits first")
        if not isinstance(commitment_, bytes) or len(commitment_) != HASH_BYTES:
            raise Blame(Fault.BAD_COMMITMENT, (pid,))
        if not verify(self._keys[pid], commitment_message(self.ctx, pid, commitment_), signature):
            raise Blame(Fault.BAD_SIGNATURE, (pid,), "on its commitment")
        for other, (c, _) in self._commitments.items():
            if c == commitment_:
                raise Blame(Fault.COPIED_COMMITMENT, (pid,), f"copied from {other}")
        self._commitments[pid] = (commitment_, signature)
        if len(self._commitments) == len(self.participants):
            self._to(RoundEvent.FIX)
            return True
        return False

    def reveal(self, pid: str, seed: bytes, signature: bytes) -> bool:
        """Take ``pid``'s seed; True when it was the last to open (the key is derived)."""
        if self.state is RoundState.ANNOUNCED:
            self._participant(pid)
            raise Blame(Fault.EARLY_REVEAL, (pid,))
        if self.state is not RoundState.FIXED:
            raise UsageError(f"no seeds are taken while the round is {self.state.name}")
        self._participant(pid)
        if pid in self._seeds:
            raise Blame(Fault.DUPLICATE_REVEAL, (pid,))
        if not isinstance(seed, bytes) or len(seed) > 0xFFFF:
            raise Blame(Fault.BAD_REVEAL, (pid,), "not a seed")
        c = self._commitments[pid][0]
        if not verify(self._keys[pid], reveal_message(self.ctx, pid, c, seed), signature):
            raise Blame(Fault.BAD_SIGNATURE, (pid,), "on its seed")
        opens = (
            len(seed) == SEED_BYTES
            and hashlib.sha256(self._prefix + self._encoded[pid] + seed).digest() == c
        )
        if not opens:
            self.bad_seed = (seed, signature)
            self.blame = Blame(Fault.BAD_REVEAL, (pid,))
            self._to(RoundEvent.FAIL)
            raise self.blame
        self._seeds[pid] = (seed, signature)
        if len(self._seeds) < len(self.participants):
            return False
        self._key = deck_key(self.ctx, {p: s for p, (s, _) in self._seeds.items()})
        return True

    @property
    def complete(self) -> bool:
        """Every seed is in and opened: the order can be derived and dealt."""
        return self._key is not None

    def deal(self) -> None:
        """The host deals from the order (its Shuffle event): ``DEALT``."""
        if self._key is None:
            raise UsageError("a round is dealt from once every seed opened")
        self._to(RoundEvent.DEAL)

    def abandon(self) -> Blame:
        """Give up waiting (the shell's timeout): ``FAILED``, blaming whoever is missing."""
        if self.state is RoundState.FAILED:
            assert self.blame is not None
            return self.blame
        failed = next_state(self.state, RoundEvent.FAIL)  # RoundFlowError if final
        if not self.waiting_for():
            raise UsageError("every participant is in: the round cannot be abandoned")
        fault = (
            Fault.MISSING_COMMITMENT if self.state is RoundState.ANNOUNCED else Fault.MISSING_REVEAL
        )
        self.blame = Blame(fault, self.waiting_for())
        self.state = failed
        return self.blame

    def withdraw(self) -> None:
        """Give the round up before all have committed (a participant went away)."""
        self._to(RoundEvent.WITHDRAW)
