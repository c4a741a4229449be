"""A hand's verdict, in words a player can show someone else: :class:`Verdict`.

Verdicts, from worst:

* **unfair** — the host broke the protocol (or a player did, and the host passed it on).
  ``proven`` when the transcript's signatures show it to anyone (``lanswitch verify``);
  otherwise it rests on this seat's own record (a dispute, a signature the host passed on
  that does not verify).
* **void** — a round failed: the hand has no result of its own, ``culprits`` are to blame,
  ``proven`` by their own signatures (a bad seed, the host's own abort) or on the host's word
  (a message that never came); players blamed once the cards were dealt ``forfeit`` it.
* **unconfirmed** — everything checks, but a person who was there to the end did not confirm
  the log (no head, or a head of only its start): nobody is blamed, the verdict says whose
  confirmation is missing and from which event. Comparing transcripts settles it.
* **fair** — every check passed and everyone present confirmed the log; a person who went away
  mid-hand (said goodbye, or lost its link, as the host says) is named with how far it
  confirmed the log.

:func:`verdict_of` makes a verdict from a transcript; :func:`own_absence`,
:func:`keeper_sent` and :func:`disputes_abort` read what a transcript says of its own keeper
(its absences, whether its record says it sent what an abort says it did not).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .judgement import COMMIT_REVEAL, Judgement, seat_names, split_line
from .log import BY_STAND_IN, LEFT, Away, Back, Move, Shuffle
from .primitives import DEALER, Fault
from .transcript import RoundRecord, Transcript

__all__ = [
    "Absence",
    "OwnAbsence",
    "Status",
    "Verdict",
    "disputes_abort",
    "keeper_sent",
    "own_absence",
    "verdict_of",
]

Status = Literal["fair", "unconfirmed", "unfair", "void"]


@dataclass(frozen=True, slots=True)
class Absence:
    """A person who went away mid-hand: from log event ``since``, ``how`` (``left``: it said
    goodbye, signing the log so far; ``lost``: its link was lost, as the host says), having
    confirmed the log up to event ``confirmed``."""

    pid: str
    since: int
    how: str
    confirmed: int


@dataclass(frozen=True, slots=True)
class OwnAbsence:
    """This seat's own absences in the log, on the host's word: the log events at which it
    was logged away with its link lost (``since``), the moves the host made for it as its
    stand-in, and the rounds dealt without it. Nobody else can tell whether its link was
    really down each time; the player can, so the verdict says it."""

    since: tuple[int, ...]
    moves: int
    rounds: tuple[int, ...]
    after: tuple[int, ...] = ()
    """For each of ``since``: the moves of the hand made before it (what the text says: a
    player counts moves, not log events)."""

    def text(self) -> str:
        n = len(self.since)
        times = "once" if n == 1 else "twice" if n == 2 else f"{n} times"
        when = _after(self.after) or f"log event{'s' if n != 1 else ''} " + _and(
            [str(k) for k in self.since]
        )
        played = f"{self.moves} move{'s' if self.moves != 1 else ''}"
        dealt = (
            f" and dealt round{'s' if len(self.rounds) != 1 else ''} "
            + ", ".join(str(r) for r in self.rounds)
            + " without you"
            if self.rounds
            else ""
        )
        return (
            f"the host says you lost the link {times} ({when}): "
            f"it made {played} for you{dealt} — if your link never dropped, it lied"
        )


@dataclass(frozen=True, slots=True)
class Verdict:
    """What :func:`verify` found, in words a player can show someone else (module docstring).

    ``culprits`` are ids (``@dealer`` is the host); ``names`` maps ids to what people call them.
    ``unconfirmed``: ``(id, event)`` — that person confirmed the log only up to that event.
    """

    status: Status
    reason: str
    game_id: bytes
    hand_no: int
    seat: int
    id: str
    rules: str
    players: int
    events: int
    rounds: int
    culprits: tuple[str, ...] = ()
    check: str = ""
    proven: bool = True
    outcome: str = ""
    away: tuple[Absence, ...] = ()
    unconfirmed: tuple[tuple[str, int], ...] = ()
    forfeit: tuple[str, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    own_away: OwnAbsence | None = None
    move_events: tuple[int, ...] = ()
    """The log's events that are moves, by index: what turns the log's event numbers into
    the moves a player counts ("after move 12 of 30") in :meth:`caveats`."""
    placings: tuple[str, ...] = ()
    """The seats' ids, first place first, as the replay of the signed log gives them (never a
    file's word); empty for a hand without a result."""
    scores: tuple[int, ...] = ()
    """Each seat's points in the hand (index: seat), as the replay gives them — also of a hand
    played to its end and disputed; empty for a hand without a result."""

    @property
    def fair(self) -> bool:
        return self.status == "fair"

    def name(self, pid: str) -> str:
        if pid == DEALER:
            return "the host"
        return self.names.get(pid) or pid

    def _names(self, pids: Iterable[str]) -> str:
        return ", ".join(self.name(p) for p in pids) or "nobody"

    def caveats(self) -> list[str]:
        """One line per person who went away mid-hand, and per person whose confirmation of
        the log is missing; and this seat's own absences, as the host logged them."""
        out = [] if self.own_away is None else [self.own_away.text()]
        total = len(self.move_events)
        for a in self.away:
            how = "left" if a.how == "left" else "lost the link, says the host,"
            gone, seen = self._moves(a.since), self._moves(a.confirmed)
            when = f"after move {gone} of {total}" if gone else "before the first move"
            confirmed = (
                "every move before that"
                if seen >= gone
                else f"the moves to move {seen}"
                if seen
                else "none of the moves"
            )
            out.append(
                f"{self.name(a.pid)} {how} {when} (had confirmed {confirmed}; the host played "
                "the seat after)"
            )
        for p, n in self.unconfirmed:
            seen = self._moves(n)
            out.append(
                f"{self.name(p)} confirmed the hand only to move {seen} of {total}"
                if seen
                else f"{self.name(p)} confirmed none of the hand's {total} moves"
            )
        return out

    def _moves(self, events: int) -> int:
        """The moves among the log's first ``events`` events."""
        return bisect_left(self.move_events, events)

    def _hand(self) -> str:
        return (
            f"hand {self.hand_no} of game {self.game_id.hex()[:8]}, "
            f"{self.name(self.id)}'s record, {self.rules}"
        )

    def judgement(self) -> Judgement:
        """This verdict as every reader sees a hand's (:mod:`.judgement`): the line split after
        ``STATUS: hand …``, the blame and its basis, and this verdict's own fields for
        ``verify --json``."""
        headline = f"{self.status.upper()}: {self._hand()}"
        return Judgement(
            status=self.status,
            deal=COMMIT_REVEAL,
            headline=headline,
            said=split_line(self.text(), headline),
            reason=self.reason,
            culprits=self.culprits,
            proven=self.proven,
            forfeit=self.forfeit,
            caveats=tuple(self.caveats()),
            game_id=self.game_id,
            hand_no=self.hand_no,
            names=seat_names(self.names, self.players),
            scores=self.scores,
            extra=self.as_json(),
            found=self,
        )

    def text(self) -> str:
        """One plain line: the verdict, who is to blame, why (clauses joined by "; ")."""
        hand = self._hand()
        if self.status == "fair":
            # Moves and shuffles, as a player counts the hand (each round of the fair deal
            # shuffles the deck: the deal, then each reshuffle of the discards); the log's
            # other events (presence, confirmations) are checked too, and `verify --json`
            # counts them all ("events").
            moves = len(self.move_events)
            checked = (
                f"{moves} move{'s' if moves != 1 else ''} and {self.rounds} "
                f"shuffle{'s' if self.rounds != 1 else ''} checked"
            )
            return "; ".join([f"FAIR: {hand}: {checked}", self.outcome, *self.caveats()])
        if self.status == "unconfirmed":
            return "; ".join(
                [
                    f"UNCONFIRMED: {hand}: the deal and every move check out, but not everyone "
                    "confirmed the log (nobody is blamed: compare transcripts to settle it)",
                    self.outcome,
                    *self.caveats(),
                ]
            )
        if self.status == "void":
            how = "proven by signatures" if self.proven else "on the host's word"
            parts = [f"VOID: {hand}: blame {self._names(self.culprits)} ({how}): {self._said()}"]
            if self.forfeit:
                parts.append(
                    f"{self._names(self.forfeit)} "
                    f"forfeit{'s' if len(self.forfeit) == 1 else ''} the hand"
                )
            return "; ".join([*parts, *self.caveats()])
        how = "proven by signatures" if self.proven else "on your client's own record"
        return f"UNFAIR: {hand}: blame {self._names(self.culprits)} ({how}): {self._said()}"

    def _said(self) -> str:
        """The reason, with the fair deal's ids as people read them (the checks that found it
        speak of seats by id)."""
        if not self.names:
            return self.reason
        ids = "|".join(re.escape(p) for p in sorted(self.names, key=len, reverse=True))
        return re.sub(rf"(?<![\w@-])({ids})(?![\w-])", lambda m: self.name(m[1]), self.reason)

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "fair": self.fair,
            "culprits": list(self.culprits),
            "reason": self.reason,
            "check": self.check,
            "proven": self.proven,
            "game_id": self.game_id.hex(),
            "hand_no": self.hand_no,
            "seat": self.seat,
            "id": self.id,
            "rules": self.rules,
            "players": self.players,
            "events": self.events,
            "rounds": self.rounds,
            "outcome": self.outcome,
            "away": [
                {"id": a.pid, "since": a.since, "how": a.how, "confirmed": a.confirmed}
                for a in self.away
            ],
            "unconfirmed": dict(self.unconfirmed),
            "forfeit": list(self.forfeit),
            "names": dict(self.names),
            "placings": list(self.placings),
            "own_away": None
            if self.own_away is None
            else {
                "since": list(self.own_away.since),
                "moves": self.own_away.moves,
                "rounds": list(self.own_away.rounds),
            },
        }


# ---------------------------------------------------------------------------------------------
# A verdict from a transcript, and what the transcript says of its own keeper: read by the
# replay (:mod:`.replay`) and by the comparison of several files (:mod:`.compare`).


def keeper_sent(rec: RoundRecord, fault: Fault) -> bool:
    """Whether this seat's own record says it sent what an abort of ``fault`` says it did not:
    its commitment (it drew a seed), or its seed (after the round's stage 3)."""
    if fault is Fault.MISSING_COMMITMENT:
        return rec.own_seed is not None
    if fault is Fault.MISSING_REVEAL:
        return any(a.fixed for a in rec.announces) and rec.own_seed_sent
    return False


def disputes_abort(t: Transcript) -> bool:
    """Whether ``t``'s keeper is named by the host's abort for a message that never came, and
    its own record says it sent it: the host's word against the player's (:mod:`.compare`
    makes one verdict of such files)."""
    v = t.void
    if v is None or t.id not in v.culprits:
        return False
    rec = next((r for r in t.rounds if r.round == v.round), None)
    return rec is not None and keeper_sent(rec, v.fault)


def own_absence(t: Transcript) -> OwnAbsence | None:
    """What the log says of this seat's own absences, on the host's word (None: none): each
    time it was logged away with its link lost, the moves the host made for it as its
    stand-in, and the rounds dealt without it. Only the seat can tell whether its link was
    down then; a host that cuts it at every turn or every reshuffle shows up here."""
    seat = t.seat
    since: list[int] = []
    after: list[int] = []
    made = 0  # moves in the log so far, anyone's
    moves = 0
    rounds: list[int] = []
    away = False
    for k, ev in enumerate(t.log):
        if isinstance(ev, Move):
            made += 1
        if isinstance(ev, Away) and ev.seat == seat:
            away = True
            if ev.how != LEFT:
                since.append(k)
                after.append(made)
        elif isinstance(ev, Back) and ev.seat == seat:
            away = False
        elif isinstance(ev, Move) and ev.seat == seat and ev.by == BY_STAND_IN:
            moves += 1
        elif isinstance(ev, Shuffle) and away:
            rounds.append(ev.round)
    if not since:
        return None
    return OwnAbsence(tuple(since), moves, tuple(rounds), tuple(after))


def _names(t: Transcript) -> dict[str, str]:
    return {p: t.names[s] for s, p in enumerate(t.setup.seats) if s < len(t.names) and t.names[s]}


def verdict_of(t: Transcript, status: Status, reason: str, **kw: Any) -> Verdict:
    s = t.setup
    return Verdict(
        status=status,
        reason=reason,
        game_id=s.game_id,
        hand_no=s.hand_no,
        seat=t.seat,
        id=t.id,
        rules=s.rules.name,
        players=s.players,
        events=len(t.log),
        move_events=tuple(k for k, ev in enumerate(t.log) if isinstance(ev, Move)),
        rounds=kw.pop("rounds", len(t.rounds)),
        names=_names(t),
        **kw,
    )


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _after(moves: Iterable[int]) -> str:
    """When, in moves of the hand made before each time: "after moves 10 and 25",
    "before the first move and after move 7"; empty for none."""
    counts = list(moves)
    parts = ["before the first move"] if 0 in counts else []
    later = [str(m) for m in counts if m]
    if later:
        parts.append(("after move " if len(later) == 1 else "after moves ") + _and(later))
    return _and(parts) if parts else ""
