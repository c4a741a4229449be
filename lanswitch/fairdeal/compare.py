"""Comparing transcripts of the same hand kept by different seats (or twice by one).

Each transcript is verified alone first; then two of one hand must agree on everything the
host showed both — the setup, the log, every round's announcements and seeds, the abort —
or the host showed them different things. And a transcript that agrees with another settles
that its keeper confirmed the log, which one transcript alone could not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .primitives import DEALER
from .replay import verdict_of, verify
from .transcript import Transcript
from .verdict import Verdict

__all__ = ["verify_all"]


def verify_all(transcripts: Sequence[Transcript]) -> list[Verdict]:
    """:func:`verify` each transcript, then compare those of the same hand with each other.

    Different setups, logs, rounds or aborts shown to different seats, or two different
    transcripts of one seat for one hand number (a hand dealt twice under one number), make
    every transcript involved unfair, blaming the host — unless it already has a verdict
    against someone. A transcript that agrees with this one settles that its keeper confirmed
    the log: an unconfirmed verdict whose missing confirmations all come with the files is fair.
    """
    verdicts = [verify(t) for t in transcripts]
    groups: dict[tuple[bytes, int], list[int]] = {}
    for i, t in enumerate(transcripts):
        groups.setdefault((t.setup.game_id, t.setup.hand_no), []).append(i)
    for members in groups.values():
        bad: set[int] = set()
        for a_i, a in enumerate(members):
            for b in members[a_i + 1 :]:
                reason = _disagreement(transcripts[a], transcripts[b])
                if reason is None:
                    continue
                bad |= {a, b}
                for i in (a, b):
                    if verdicts[i].status != "unfair":
                        verdicts[i] = verdict_of(
                            transcripts[i],
                            "unfair",
                            reason,
                            culprits=(DEALER,),
                            check="compare",
                            rounds=verdicts[i].rounds,
                        )
        kept = {transcripts[i].id for i in members if i not in bad}
        for i in members:
            v = verdicts[i]
            if v.status == "unconfirmed" and i not in bad:
                left = tuple((p, n) for p, n in v.unconfirmed if p not in kept)
                verdicts[i] = replace(v, unconfirmed=left, status="unconfirmed" if left else "fair")
    return verdicts


def _disagreement(a: Transcript, b: Transcript) -> str | None:
    """Why two transcripts of the same hand number cannot both be true, or None."""
    hand = f"hand {a.setup.hand_no}"
    if a.seat == b.seat:
        if a == b:
            return None
        return f"{hand} was dealt twice under one number: {a.id} holds two different transcripts"
    sa, sb = a.setup, b.setup
    if (sa.seats, sa.dealer, sa.out, sa.rules_toml, sa.ctx0, sa.turn_timer_ms) != (
        sb.seats,
        sb.dealer,
        sb.out,
        sb.rules_toml,
        sb.ctx0,
        sb.turn_timer_ms,
    ):
        return f"the host gave {a.name(a.id)} and {b.name(b.id)} different setups for {hand}"
    if a.log != b.log:
        return f"the host showed {a.name(a.id)} and {b.name(b.id)} different logs of {hand}"
    ra = {r.round: r for r in a.rounds}
    for r in b.rounds:
        other = ra.get(r.round)
        if other is None:
            return f"the host ran round {r.round} for {b.name(b.id)} but not for {a.name(a.id)}"
        same = all(x in other.announces for x in r.announces) and all(
            x in r.announces for x in other.announces
        )
        if (other.at, other.seeds) != (r.at, r.seeds) or not same:
            return (
                f"the host showed {a.name(a.id)} and {b.name(b.id)} different announcements or "
                f"seeds in round {r.round}"
            )
    if len(ra) != len(b.rounds) or a.void != b.void:
        return (
            f"the host told {a.name(a.id)} and {b.name(b.id)} different things about {hand}'s "
            "rounds"
        )
    return None
