"""Who forfeits a void hand — one rule for both deals (docs/fairness.md, "Withholding costs
what it could gain").

A hand that cannot go on is void, and the participants blamed for it forfeit it (scored last,
counted as played: ``Game.void``) — but a player is never charged for a deal it never saw on
the host's word alone. So a culprit forfeits once the cards were dealt (it held a hand: a
void then is a choice it could make for a reason), or at the deal itself when the blame is
proven by its own signature (a seed that does not open its commitment, a pass that breaks
the deal): at the deal the host's own seat holds every other seed before it must reveal, so a
bad one there is a choice of deal too. The host (``@dealer``) has no seat to forfeit; a
player's word that another withheld is no proof.

The host applies it when it scores a hand (:meth:`lanswitch.fairdeal.Dealer.fail`,
:class:`lanswitch.host._blind.BlindHand`), and each client's check applies it again to say
what the hand cost whom (:mod:`lanswitch.fairdeal.replay`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["forfeiters"]


def forfeiters(
    culprits: Iterable[str], seats: Sequence[str], *, dealt: bool, proven: bool
) -> tuple[str, ...]:
    """The ``culprits`` (participant ids) who forfeit the hand: those with a seat among
    ``seats``, once the cards were ``dealt`` or when the blame is ``proven`` (module
    docstring)."""
    if not dealt and not proven:
        return ()
    return tuple(q for q in culprits if q in seats)
