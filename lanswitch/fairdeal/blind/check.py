"""After a dealer-blind hand: every seed revealed, every pass, key and move checked again.

Theory of operation
-------------------
Live, a follower (:mod:`.hand`) checks what needs no secret. Once the hand is over every
participant reveals its seed of every shuffle, and :func:`check_hand` recomputes the rest from
one participant's record alone:

1. every shuffle's passes, position by position, from its revealed seeds
   (:func:`~.crypto.check_passes`): a pass its seed does not make is its author's fault, proven
   by the author's signature over the pass;
2. every key the record holds — the public ones of each card laid or turned up, and the ones
   released to this participant alone — against the key its sender's seed makes: a wrong one
   is its sender's fault, proven by its signature;
3. the whole hand replayed through the rules engine with every card known: every move must be
   legal with the mover's real hand — so "I cannot lay anything, so I draw" by a player who
   could lay is caught here, proven by its own signed move — and the replay must end where
   the hand did.

A participant who reveals no seed leaves its passes unchecked: the hand is void and it is to
blame, as for a seed withheld in the commit-reveal deal. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from ...game import Game, HandResult, IllegalMove
from ..forfeit import forfeiters
from ..judgement import DEALER_BLIND, Judgement
from ..primitives import DEALER, UsageError, named, verify
from . import crypto
from .hand import BlindFault, BlindSetup, Cheat, Follower, Share, claim_message

__all__ = ["BlindOutcome", "Status", "caught", "check_hand", "judgement"]

Status = Literal["fair", "unfair", "void"]


@dataclass(frozen=True, slots=True)
class BlindOutcome:
    """What a participant found of a blind hand: ``fair`` (with the hand's real result),
    ``unfair`` (``culprit`` broke the deal; ``proven`` by its own signatures) or ``void`` (the
    hand could not be played or checked; ``culprit`` is to blame)."""

    status: Status
    culprit: str = ""
    fault: BlindFault | None = None
    detail: str = ""
    proven: bool = True
    result: HandResult | None = None
    game: Game | None = field(default=None, compare=False, repr=False)
    """A fair hand's replay with every card known (the host scores the match on it)."""
    outcome: str = ""
    """Who won, as the replay has it, by the names the setup binds (a file's check says it)."""

    def __str__(self) -> str:
        if self.status == "fair":
            return "FAIR (dealer-blind)" + (f": {self.outcome}" if self.outcome else "")
        word = "UNFAIR" if self.status == "unfair" else "VOID"
        if self.fault is None:  # nothing anyone did: why the hand cannot be checked
            return f"{word} (dealer-blind): {self.detail or 'the hand cannot be checked'}"
        if self.culprit:
            said = f"{self.culprit} {self.fault.value}"
        else:
            said = f"a participant {self.fault.value}, and this record cannot tell which"
        return f"{word} (dealer-blind): {said}" + (f" ({self.detail})" if self.detail else "")

    def reason(self) -> str:
        """Why the hand is not fair, in a few words: the fault, and where (``""`` if fair)."""
        if self.status == "fair":
            return ""
        why = self.fault.value if self.fault is not None else ""
        if self.detail:
            why = f"{why} ({self.detail})" if why else self.detail
        return why


CHECKED: Final = (
    "the hand was dealt dealer-blind (the host saw no card it was not dealt); every pass, key "
    "and move checked again after the seeds were revealed"
)
"""What a details page adds to a fair blind hand's line: what was checked, and when."""


def judgement(
    outcome: BlindOutcome,
    *,
    game_id: bytes,
    hand_no: int,
    names: Sequence[str],
    seats: Sequence[str] = (),
    dealt: bool = False,
) -> Judgement:
    """``outcome`` as every reader sees a hand's verdict (:mod:`.judgement`), for hand
    ``hand_no`` of game ``game_id`` whose seats are called ``names``: its line with people
    named, the blame (one culprit at most), who forfeits, and what it found, for ``verify
    --json``.

    The culprit forfeits the hand by the rule both deals score by (:mod:`.forfeit`: a seat's,
    one of ``seats``, the hand's ids — the host is none —, and on the host's word only once
    the cards were ``dealt``: a player cannot choose a deal it never saw); the host scores the
    hand from this very judgement (``host/_blind.py``)."""
    text = named(str(outcome), names)
    culprit = outcome.culprit
    forfeit: tuple[str, ...] = ()
    if outcome.status != "fair" and culprit:
        forfeit = forfeiters((culprit,), seats, dealt=dealt, proven=outcome.proven)
    if forfeit:
        text += f"; {named(culprit, names)} forfeits the hand"
    headline, _, said = text.partition(": ")
    return Judgement(
        status=outcome.status,
        deal=DEALER_BLIND,
        headline=headline,
        said=said,
        reason=outcome.reason(),
        culprits=(culprit,) if culprit else (),
        proven=outcome.proven,
        forfeit=forfeit,
        details=f"{text}: {CHECKED}" if outcome.status == "fair" else "",
        game_id=game_id,
        hand_no=hand_no,
        names=tuple(names),
        scores=() if outcome.result is None else tuple(outcome.result.scores),
        extra={
            "dealer_blind": True,
            "fault": None if outcome.fault is None else outcome.fault.name.lower(),
            "detail": outcome.detail,
        },
        found=outcome,
    )


def _check_keys(
    follower: Follower,
    shares: Iterable[tuple[int, int, Share, str]],
    seeds: Mapping[str, Mapping[int, bytes]],
) -> BlindOutcome | None:
    """Every key against its sender's seed. A wrong key signed by its sender is its sender's
    fault, proven; one not signed by it is the fault of ``passer``, who passed it on (the
    mover of a laid card), or else the sender's on this participant's word (a sealed key:
    only the sender could seal it)."""
    derived: dict[tuple[int, str], crypto.BlindKeys] = {}
    for k, position, share, passer in shares:
        if not 0 <= k < len(follower.shuffles):
            continue  # a shuffle the record stopped before (a hand cut short is checked so far)
        rec = follower.shuffles[k]
        keys = derived.get((k, share.sender))
        if keys is None:
            seed = seeds[share.sender][k]
            keys = derived[(k, share.sender)] = crypto.BlindKeys.derive(
                rec.ctx, share.sender, seed, rec.n
            )
        made = keys.positions[position]
        if share.key == made:
            continue
        where = f"shuffle {k}, position {position}"
        if follower.signed(rec, position, share):
            return BlindOutcome("unfair", share.sender, BlindFault.BAD_KEY, where)
        return BlindOutcome(
            "unfair", passer or share.sender, BlindFault.BAD_SIGNATURE, where, proven=False
        )
    return None


def caught(c: Cheat, *, own_proof: bool = True) -> BlindOutcome:
    """The outcome of a cheat caught while following the hand (live, or replaying a file):
    unfair for its culprit — void when nobody is named (keys that open no card: only the seeds
    tell whose) or for a bad signature (the relay may have broken it). ``own_proof``: keep the
    cheat's word on whether signatures prove it (a file's replay claims no proof)."""
    status: Status = "unfair" if c.culprit and c.fault is not BlindFault.BAD_SIGNATURE else "void"
    proven = own_proof and bool(c.culprit) and c.proven
    return BlindOutcome(status, c.culprit, c.fault, c.detail, proven=proven)


def own_verdict(
    found: BlindOutcome,
    *,
    pid: str,
    disputed: bool = False,
    live: BlindOutcome | None = None,
    abort: tuple[str, str, str] | None = None,
    disputes: Sequence[str] = (),
) -> BlindOutcome:
    """What participant ``pid``'s own record makes of the check's finding ``found`` — written
    once, for its client live (``BlindPart``) and for ``verify`` of its file (``file``),
    so that the two say the same. A finding that names a cheat or the fair result stands.
    Else, in order: ``disputed`` (the host stopped the hand blaming ``pid``, whose client had
    sent every pass and key the hand asked of it, over one link) — unless the seeds prove a
    fault of its own, unfair, the host to blame, on its own record; what it caught ``live``
    (the step that broke the deal as it came); the host's ``abort`` (culprit, fault, detail)
    when the check names nobody — void, on the host's word. ``disputes``: where the hand, as
    the host dealt it, was not the table its client's lobby showed (``handcheck``) — a fair
    deal of such a hand is unfair on its own record, the host to blame on its word, as a
    commit-reveal seat's dispute at the setup note makes its transcript's."""
    if found.status == "fair" and disputes:
        return BlindOutcome(
            "unfair",
            DEALER,
            BlindFault.NOT_THE_TABLE,
            "on your own record: " + "; ".join(disputes),
            proven=False,
            result=found.result,  # the hand was played: its scores stand
        )
    if found.status != "void":
        return found
    if disputed and found.culprit != pid and not found.proven:
        # The check proves nothing against this participant — nobody named, or a blame
        # resting on the host's word alone (a seed it left out of the reveal, say) —; the
        # host named it, and its client had sent all the hand asked of it.
        return BlindOutcome(
            "unfair",
            DEALER,
            BlindFault.FALSE_CLAIM,
            "on your own record: your client sent every pass and key the hand asked of it",
            proven=False,
        )
    if live is not None and live.culprit:
        return live
    if not found.culprit and abort is not None:
        culprit, fault_name, detail = abort
        try:
            fault = BlindFault[fault_name.upper()]
        except KeyError:
            fault = BlindFault.WITHHELD
        # The host's word: who went silent is not something this record can prove.
        return BlindOutcome("void", culprit, fault, detail, proven=False)
    return found


def check_hand(
    follower: Follower,
    seeds: Mapping[str, Mapping[int, bytes]],
    received: Iterable[tuple[int, int, Share]] = (),
    *,
    finished: bool = True,
    claims: Mapping[str, tuple[str, str, bytes]] | None = None,
) -> BlindOutcome:
    """Check a blind hand from one participant's ``follower`` and everyone's revealed
    ``seeds`` (participant → shuffle → seed), with the keys ``received`` by this participant
    alone (``(shuffle, position, share)``). ``finished``: the hand was played to its end (a
    hand cut short is checked as far as it went, and is void). ``claims``: the signed claims
    participants stopped the hand with (claimant → fault, detail, signature, as
    ``blind_reveal`` relays them): one that nothing above bears out is its claimant's stop
    (:func:`unfounded_claim`)."""
    setup = follower.setup
    for rec in follower.shuffles:
        # A shuffle cut short needs the seeds of those whose passes it holds, no others'.
        authors = rec.order if rec.next_pass() is None else {p for p, _n in rec.passes}
        for pid in [p for p in rec.order if p in authors]:
            if rec.index not in seeds.get(pid, {}):
                return BlindOutcome(
                    "void",
                    pid,
                    BlindFault.WITHHELD,
                    f"no seed for shuffle {rec.index}",
                    proven=False,
                )
    for rec in follower.shuffles:
        known = {p: seeds[p][rec.index] for p in rec.order if rec.index in seeds.get(p, {})}
        fault = _first_pass_fault(follower, rec.index, known)
        if fault is not None:
            return fault
    laid_by = {
        (m.opening.shuffle, m.opening.position): m.by
        for m in follower.moves
        if m.opening is not None
    }
    public = [
        (o.shuffle, o.position, s, laid_by.get((o.shuffle, o.position), ""))
        for o in follower.openings
        for s in o.shares
    ]
    private = [(k, j, s, "") for k, j, s in received]
    bad = _check_keys(follower, [*public, *private], seeds)
    if bad is not None:
        return bad
    # The replay with every card known, in the blind engine's form (the form everyone played).
    orders = {
        rec.index: crypto.dealt_order(
            rec.ctx, rec.cards, rec.order, {p: seeds[p][rec.index] for p in rec.order}
        )
        for rec in follower.shuffles
        if ("shuffle", rec.index) in follower.steps
    }
    g = setup.new_game()
    for kind, index in follower.steps:
        if kind == "shuffle":
            g.apply_chance(orders[index])
            continue
        if kind == "leave":
            continue  # who holds a seat's cards changes; the cards do not
        move = follower.moves[index]
        owner = move.by  # its signer, checked live to be the seat's owner then
        try:
            g.apply(move.seat, move.move)
        except IllegalMove as e:
            return BlindOutcome(
                "unfair", owner, BlindFault.ILLEGAL_MOVE, f"move {index}: {e.reason.value}"
            )
    if (
        g.counts != follower.game.counts
        or g.turn != follower.game.turn
        or g.over != follower.game.over
    ):
        # Never seen (tests/test_blind_engine.py): the engine's two forms disagree.
        return BlindOutcome(
            "void", "", None, "the replay with every card known ends elsewhere", proven=False
        )
    if not finished or g.result is None:
        claimed = unfounded_claim(setup, claims or {})
        if claimed is not None:
            return claimed
        return BlindOutcome("void", "", None, "the hand was not finished", proven=False)
    return BlindOutcome("fair", result=g.result, game=g)


def unfounded_claim(
    setup: BlindSetup, claims: Mapping[str, tuple[str, str, bytes]]
) -> BlindOutcome | None:
    """A hand every check passed, as far as it went, that a participant stopped saying another
    broke the deal: the stop is the claimant's (the first in seat order, ``@dealer`` last),
    proven by its signature over the claim (SPEC § After the hand, a claim needs proof). A
    claim whose signature does not verify is no claim: None for it (whoever relayed it may
    have made it up)."""
    for pid in setup.participants:
        got = claims.get(pid)
        if got is None:
            continue
        fault, detail, signature = got
        key = setup.keys.get(pid)
        try:
            message = claim_message(setup.ctx0, pid, fault, detail)
        except UsageError:
            continue
        if key is not None and verify(key, message, signature):
            said = f'it said: "{detail}"' if detail else f"it said: {fault}"
            return BlindOutcome("void", pid, BlindFault.UNFOUNDED_CLAIM, said, proven=True)
    return None


def _first_pass_fault(
    follower: Follower, k: int, seeds: Mapping[str, bytes]
) -> BlindOutcome | None:
    rec = follower.shuffles[k]
    complete = rec.next_pass() is None
    if complete and crypto.deck_matches(
        rec.ctx, follower.points, rec.cards, rec.order, seeds, rec.deck()
    ):
        return None  # the deal is the one the seeds make: its passes need no recomputing
    deck = follower.points.deck(rec.cards)
    fault = crypto.check_passes(rec.ctx, deck, rec.order, rec.passes, seeds, complete=complete)
    if fault is None:
        return None
    return BlindOutcome("unfair", fault.pid, BlindFault.BAD_PASS, f"shuffle {k}: {fault.detail}")
