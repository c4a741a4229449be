"""Void hands, counted per culprit where every player sees them, with a warning threshold.

Aborting is the host's one lever over the deal: it reveals last, so it alone can see the
order a round would give and refuse it — by withholding its own seed (a void blamed on the
host, proven), or by saying a player's seed never came (a void blamed on that player, on the
host's word alone, which nobody can prove or disprove). And through a seat it plays itself:
``lanswitch play``'s own player sits in the host's process, which holds every other seed before
that seat must reveal, so it can work out the deal and send a seed that does not open its
commitment — a void proven against that seat, by its own signature, which no honest program
ever sends (and which any player the host shares the seeds with can send too). So every void
counts, whoever is blamed: one is bad luck; several at a table are a host choosing its deals.
:class:`VoidTally` counts them during play — over every hand a client sees at the table,
whatever game the host says each belongs to (a new game id must not wipe the count) — and once
they reach :data:`VOID_WARNING`, or the rules' ``scoring.void_warning`` if lower, every client
warns (and a headless one leaves). The rules are the host's text: they may make the warning come
sooner, never later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .primitives import DEALER, Fault

__all__ = ["VOID_WARNING", "VoidEntry", "VoidTally"]

VOID_WARNING = 2
"""Void hands (of any kind: the module docstring) at which a client warns, whatever the rules
say."""


@dataclass(frozen=True, slots=True)
class VoidEntry:
    """One void hand: who was blamed, and whether signatures prove it (else: the host's word)."""

    hand_no: int
    culprits: tuple[str, ...]
    proven: bool
    fault: Fault | None = None
    game_id: bytes = b""

    @property
    def hosts(self) -> bool:
        """Caused or claimed by the host: its own abort, or blame resting on its word alone.
        (Not the only voids the host can choose: see the module docstring.)"""
        return DEALER in self.culprits or not self.proven


def _who(pid: str) -> str:
    return "the host" if pid == DEALER else pid


class VoidTally:
    """The void hands of one table (see the module docstring). ``warning``: how many caused or
    claimed by the host make every player warned."""

    def __init__(self, warning: int = VOID_WARNING) -> None:
        self.warning = warning
        self.entries: list[VoidEntry] = []

    def heed(self, rules_warning: int) -> None:
        """A hand's rules set ``void_warning``: warn sooner if they ask to, never later."""
        self.warning = min(self.warning, rules_warning)

    def record(self, entry: VoidEntry) -> None:
        """Count a void hand; a later entry for the same hand (the verdict, after the abort)
        replaces the earlier one."""
        same = (entry.game_id, entry.hand_no)
        self.entries = [e for e in self.entries if (e.game_id, e.hand_no) != same]
        self.entries.append(entry)

    @property
    def count(self) -> int:
        return len(self.entries)

    @property
    def by_host(self) -> int:
        """Void hands the host caused or claimed."""
        return sum(e.hosts for e in self.entries)

    @property
    def warned(self) -> bool:
        """Every void counts, whoever is blamed (module docstring): a seed proven not to open
        may be the host's own seat choosing the deal."""
        return self.count >= self.warning

    def by_culprit(self) -> dict[str, tuple[int, int]]:
        """culprit → (voids proven against it, voids blamed on it on the host's word)."""
        out: dict[str, tuple[int, int]] = {}
        for e in self.entries:
            for p in e.culprits:
                proven, said = out.get(p, (0, 0))
                out[p] = (proven + e.proven, said + (not e.proven))
        return out

    def describe(self, name: Callable[[str], str] = _who) -> str:
        """``void hands: 3 — the host 1, bob 2 on the host's word`` (or ``no void hands``)."""
        if not self.entries:
            return "no void hands"
        parts = []
        for pid, (proven, said) in self.by_culprit().items():
            bits = []
            if proven:
                bits.append(f"{proven}")
            if said:
                bits.append(f"{said} on the host's word")
            parts.append(f"{name(pid)} " + " + ".join(bits))
        return f"void hands: {self.count} — " + ", ".join(parts)

    def warning_text(self, name: Callable[[str], str] = _who) -> str | None:
        """What every player is told once the threshold is reached, else None."""
        if not self.warned:
            return None
        return (
            f"{self.count} void hands at this table (the table warns at {self.warning}), "
            f"{self.by_host} of them caused or claimed by the host: a host that voids hands "
            f"until it likes the deal is using its one lever over it — by its own abort, by "
            f"blaming a player for a seed that never came, or by a seed of its own seat that "
            f"does not open. {self.describe(name)}. Think about leaving."
        )

    @classmethod
    def of(cls, entries: Iterable[VoidEntry], warning: int = VOID_WARNING) -> VoidTally:
        tally = cls(warning)
        for e in entries:
            tally.record(e)
        return tally
