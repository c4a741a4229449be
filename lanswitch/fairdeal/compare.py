"""Comparing transcripts of the same hand kept by different seats (or twice by one).

Theory of operation
-------------------
Each transcript is verified alone first. Then every two of one hand are compared, and blame
follows only what is **signed**: a file is its keeper's word, and its keeper holds a key of
its own — it can cut its log short, change an event nobody signed, or sign a second move at a
step, and sign its own head of the result again. So:

* **The host showed two logs** only where the host signed both sides: its two final heads
  (``log_heads`` of ``@dealer``) differ — an honest host signs one per hand —, or statements
  of the host (its head, the moves it made, its announcements) reach past the event where the
  two logs part on both sides. Every transcript involved is then unfair, the host to blame,
  proven. Two contradicting announcements or aborts of one round, each signed by the host, too.
* **A player signed two logs**: its two final heads differ, or its statements (its head, its
  own moves) reach past where the logs part on both sides — two different moves it signed at
  one step among them. That player is to blame, proven by its own signatures, in the file the
  host did not sign past that point (the doctored one); the other file keeps its verdict.
* **A file cut short**: one log is the start of the other, and the keeper of the short one
  signed past its end (its head in the other file, or a move after it): blame that keeper,
  proven. Without such a signature the short file proves nothing against anyone: it keeps its
  own verdict, which is never proven against the host (:func:`.replay.verify`).
* **Two files of one hand with different host keys**: at least one is not of this hand;
  nobody is to blame on them, and neither is fair.

A disagreement that nothing signed settles changes no verdict against anyone, but neither file
confirms the other. A transcript that agrees with another in everything settles that its keeper
confirmed the log: an unconfirmed verdict whose missing confirmations all come with agreeing
files is fair.

**One verdict per hand for a withheld message.** When the host's signed abort blames a player
for a commitment or seed that "never came" and that player's own file says it sent it, the
files disagree about who withheld — the host's word against the player's, and neither is
signed. Every file of the hand then gets the same verdict: **void** (the abort is signed: the
hand has no result), blamed as the abort says **on the host's word**, with the player's dispute
named. (Alone, the player's file keeps what the player knows: unfair, on its own record.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .checks import check_same_round
from .log import BY_SEAT, Move
from .primitives import (
    DEALER,
    UsageError,
    log_head_message,
    move_message,
    round_context,
)
from .primitives import verify as verify_signature
from .replay import verify
from .round import Announcement
from .transcript import Transcript
from .verdict import Verdict, disputes_abort, verdict_of

__all__ = ["verify_all"]


@dataclass(frozen=True, slots=True)
class _Finding:
    """What two transcripts of one hand prove: ``culprits`` to blame (none: nobody can be),
    ``proven`` by signatures, and the transcripts (by index) whose verdict it becomes."""

    reason: str
    culprits: tuple[str, ...]
    proven: bool
    files: tuple[int, ...]


class _Chain:
    """One transcript's log as a hash chain, and what each participant signed of it."""

    def __init__(self, t: Transcript) -> None:
        self.t = t
        self.heads = t.heads()

    def final_head(self, pid: str, of: Transcript | None = None) -> tuple[int, bytes] | None:
        """``pid``'s final head as ``of`` (default: this transcript) holds it, if it is validly
        signed over this transcript's setup."""
        h = (of or self.t).log_heads.get(pid)
        key = self.t.setup.keys.get(pid)
        if h is None or key is None:
            return None
        msg = log_head_message(self.t.setup.ctx0, pid, h.count, h.head)
        return (h.count, h.head) if verify_signature(key, msg, h.signature) else None

    def on_chain(self, pin: tuple[int, bytes] | None) -> bool:
        return pin is not None and pin[0] < len(self.heads) and self.heads[pin[0]] == pin[1]

    def reach(self, pid: str, others: Iterable[Transcript]) -> tuple[int, str]:
        """How far ``pid`` signed this log — the largest ``count`` such that ``pid`` signed the
        first ``count`` events exactly as they are here — and by what, in words. Its final
        head (as this file or another holds it), the moves it made here (each signs the log
        before it and itself), and, for the host, its announcements (each binds the log)."""
        best, how = 0, ""
        for of in (self.t, *others):
            pin = self.final_head(pid, of)
            if self.on_chain(pin) and pin is not None and pin[0] > best:
                whose = "its head of the log" + (
                    "" if of is self.t else f" in {of.name(of.id)}'s file"
                )
                best, how = pin[0], whose
        key = self.t.setup.keys.get(pid)
        if key is None:
            return best, how
        ctx0, seats = self.t.setup.ctx0, self.t.setup.seats
        for i, ev in enumerate(self.t.log):
            if not isinstance(ev, Move) or i + 1 <= best:
                continue
            mine = ev.by != BY_SEAT if pid == DEALER else ev.by == BY_SEAT and seats[ev.seat] == pid
            if not mine:
                continue
            try:
                msg = move_message(ctx0, i, self.heads[i], ev.seat, ev.by, ev.move)
            except UsageError:
                continue
            if verify_signature(key, msg, ev.signature):
                best, how = i + 1, f"its move at log event {i}"
        if pid == DEALER:
            for rec in self.t.rounds:
                for a in rec.announces:
                    if rec.at > best and self._announced_here(a, rec.at):
                        best, how = rec.at, f"its announcement of round {rec.round}"
        return best, how

    def _announced_here(self, a: Announcement, at: int) -> bool:
        setup = self.t.setup
        if at >= len(self.heads) or not a.signed_by(setup.keys[DEALER], setup.ctx0):
            return False
        try:
            ctx = round_context(setup.ctx0, a.round, at, self.heads[at], a.mask, a.cards)
        except UsageError:
            return False
        return ctx == a.ctx


def verify_all(transcripts: Sequence[Transcript]) -> list[Verdict]:
    """:func:`verify` each transcript, then compare those of the same hand with each other
    (module docstring): blame only on signed statements, and one verdict per hand where the
    files disagree about who withheld a message."""
    verdicts = [verify(t) for t in transcripts]
    groups: dict[tuple[bytes, int], list[int]] = {}
    for i, t in enumerate(transcripts):
        groups.setdefault((t.setup.game_id, t.setup.hand_no), []).append(i)
    for members in groups.values():
        chains = {i: _Chain(transcripts[i]) for i in members}
        differ: set[int] = set()
        for a_i, a in enumerate(members):
            for b in members[a_i + 1 :]:
                ta, tb = transcripts[a], transcripts[b]
                if ta == tb or (ta.seat != tb.seat and not _differ(ta, tb)):
                    continue
                differ |= {a, b}
                found = _finding(chains[a], chains[b], a, b)
                if found is None:
                    continue
                for i in found.files:
                    if _outweighs(found, verdicts[i]):
                        verdicts[i] = verdict_of(
                            transcripts[i],
                            "unfair",
                            found.reason,
                            culprits=found.culprits,
                            check="compare",
                            proven=found.proven,
                            rounds=verdicts[i].rounds,
                        )
        _one_withholding_verdict([transcripts[i] for i in members], members, verdicts)
        kept = {transcripts[i].id for i in members if i not in differ}
        for i in members:
            v = verdicts[i]
            if v.status == "unconfirmed" and i not in differ:
                left = tuple((p, n) for p, n in v.unconfirmed if p not in kept)
                verdicts[i] = replace(v, unconfirmed=left, status="unconfirmed" if left else "fair")
    return verdicts


def _outweighs(found: _Finding, v: Verdict) -> bool:
    """Whether a comparison's finding replaces a transcript's own verdict: a proven one
    replaces anything but a proven unfair verdict; an unproven one only a fair or unconfirmed
    verdict (it may not soften what the file alone shows)."""
    if found.proven:
        return not (v.status == "unfair" and v.proven)
    return v.status in ("fair", "unconfirmed")


def _differ(a: Transcript, b: Transcript) -> bool:
    """Whether two transcripts of one hand by different seats disagree on anything both were
    shown (everything but the seat's own: its seat, cards, own seeds, disputes)."""
    sa, sb = a.setup, b.setup
    if (sa.ctx0, sa.note) != (sb.ctx0, sb.note) or a.log != b.log or a.void != b.void:
        return True
    ra = {r.round: r for r in a.rounds}
    rb = {r.round: r for r in b.rounds}
    if set(ra) != set(rb):
        return True
    return any(
        (ra[r].at, ra[r].seeds) != (rb[r].at, rb[r].seeds)
        or any(x not in rb[r].announces for x in ra[r].announces)
        or any(x not in ra[r].announces for x in rb[r].announces)
        for r in ra
    )


def _finding(ca: _Chain, cb: _Chain, ia: int, ib: int) -> _Finding | None:
    """What transcripts ``ca`` and ``cb`` (indices ``ia``, ``ib``) of one hand prove against
    whom, by signatures only; None: nothing signed settles their disagreement."""
    a, b = ca.t, cb.t
    hand = f"hand {a.setup.hand_no}"
    both = (ia, ib)
    names = f"{a.name(a.id)} and {b.name(b.id)}"
    if a.setup.keys.get(DEALER) != b.setup.keys.get(DEALER):
        return _Finding(
            f"two files of {hand} ({names}'s) name different host keys: one of them is not "
            "a record of this hand",
            (),
            False,
            both,
        )
    # The host's final heads: an honest host signs one per hand.
    ha, hb = ca.final_head(DEALER), cb.final_head(DEALER)
    if ha is not None and hb is not None and (a.setup.ctx0, ha) != (b.setup.ctx0, hb):
        if a.seat == b.seat:
            why = f"{hand} was dealt twice under one number: {a.id} holds two different transcripts"
        elif (a.setup.ctx0, a.setup.note) != (b.setup.ctx0, b.setup.note):
            why = f"the host gave {names} different setups for {hand}"
        else:
            why = f"the host showed {names} different logs of {hand}"
        return _Finding(why + " (it signed both)", (DEALER,), True, both)
    if a.setup.ctx0 != b.setup.ctx0 or a.setup.note != b.setup.note:
        return None  # the host signed at most one of the two setups: no proof against it
    if a.log == b.log:
        return _rounds_finding(a, b, both, hand, names)
    # Where the two logs part (or where the shorter one ends).
    k = next(
        (i for i, (x, y) in enumerate(zip(a.log, b.log, strict=False)) if x != y),
        min(len(a.log), len(b.log)),
    )
    signers = sorted({*(s for s in a.setup.keys), *(s for s in b.setup.keys)})
    reach = {p: (ca.reach(p, (b,)), cb.reach(p, (a,))) for p in signers if p in b.setup.keys}
    host_a, host_b = reach[DEALER]
    if host_a[0] > k and host_b[0] > k:
        return _Finding(
            f"the host showed {names} different logs of {hand}: they part at log event {k}, "
            f"and the host signed both ({host_a[1]} in {a.name(a.id)}'s, {host_b[1]} in "
            f"{b.name(b.id)}'s)",
            (DEALER,),
            True,
            both,
        )
    # The file the host did not sign past k is the one that was changed (or both).
    odd = tuple(i for i, h in ((ia, host_a), (ib, host_b)) if h[0] <= k) or both
    for p, ((ra, how_a), (rb, how_b)) in reach.items():
        if p == DEALER or ra <= k or rb <= k:
            continue
        return _Finding(
            f"{p} signed two different logs of {hand}: they part at log event {k} ({how_a} "
            f"in {a.name(a.id)}'s file, {how_b} in {b.name(b.id)}'s)",
            (p,),
            True,
            odd,
        )
    short, long_, i_short = (a, cb, ia) if len(a.log) < len(b.log) else (b, ca, ib)
    if k == len(short.log):
        got, how = long_.reach(short.id, (short,))
        if got > k:
            return _Finding(
                f"{short.id} signed the log of {hand} to event {got} ({how}), yet its own "
                f"file ends at event {k}: it was cut short after the hand",
                (short.id,),
                True,
                (i_short,),
            )
    return None


def _rounds_finding(
    a: Transcript, b: Transcript, both: tuple[int, int], hand: str, names: str
) -> _Finding | None:
    """The same log, other rounds or aborts: proof against the host only if it signed two
    announcements of one round that contradict each other, or two different aborts."""
    key, ctx0 = a.setup.keys[DEALER], a.setup.ctx0
    shown = {r.round: [x for x in r.announces if x.signed_by(key, ctx0)] for r in (*a.rounds,)}
    for r in b.rounds:
        for x in r.announces:
            if not x.signed_by(key, ctx0):
                continue
            for y in shown.get(r.round, ()):
                problem = check_same_round(y, x)
                if problem is not None:
                    return _Finding(
                        f"the host showed {names} different announcements of round {r.round} "
                        f"of {hand} (it signed both): {problem}",
                        (DEALER,),
                        True,
                        both,
                    )
    va, vb = a.void, b.void
    if (
        va is not None
        and vb is not None
        and va != vb
        and va.signed_by(key, ctx0)
        and vb.signed_by(key, ctx0)
    ):
        return _Finding(
            f"the host told {names} different things about how {hand} failed (it signed both)",
            (DEALER,),
            True,
            both,
        )
    return None


def _one_withholding_verdict(
    group: Sequence[Transcript], members: Sequence[int], verdicts: list[Verdict]
) -> None:
    """Where the host's signed abort blames players for a message that never came and one of
    them says, on its own record, that it sent it: one verdict for every file of the hand —
    void, the host and the players it blamed both named, nothing proven, the dispute said
    (module docstring): word against word clears neither, and the player's own file does not
    come to name only the player (found by review)."""
    voids = [verdicts[i] for i in members if verdicts[i].status == "void"]
    disputers = [t for t in group if disputes_abort(t)]
    if not voids or not disputers or any(t.void != group[0].void for t in group):
        return
    base = voids[0]
    if base.proven:
        return  # a withholding proven by signatures is no word against word
    who = ", ".join(t.name(t.id) for t in disputers)
    reason = (
        f"{base.reason}; {who} says, on {'its' if len(disputers) == 1 else 'their'} own "
        "record, that it was sent: the host's word against the player's, and nothing signed "
        "settles it"
    )
    for i, t in zip(members, group, strict=True):
        v = verdicts[i]
        if v.status == "unfair" and v.proven:
            continue  # a file that proves more keeps it
        verdicts[i] = verdict_of(
            t,
            "void",
            reason,
            culprits=(DEALER, *(c for c in base.culprits if c != DEALER)),
            check="abort",
            proven=False,
            forfeit=base.forfeit,
            rounds=base.rounds,
            away=v.away,
            unconfirmed=v.unconfirmed,
            own_away=v.own_away,
        )
