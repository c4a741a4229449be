"""A seat's part in one hand, as a session holds it: the one interface both deals implement.

A client's :class:`~lanswitch.session.Session` follows its hands one way or the other — by
commit-reveal (:class:`~lanswitch.commitseat.CommitPart`) or dealer-blind
(:class:`~lanswitch.blindsession.BlindPart`) — and, once it has picked the part for a hand
(from the ``hand`` message's ``blind``, in one place), never tells them apart. It *holds* the
part as a :class:`SeatPart`: it passes it the hand's messages and the host's refusals, asks it
for a move and whose turn it is, what to send on leaving mid-hand or on coming back, whether it
is settled, and then for the hand's :class:`~lanswitch.fairdeal.judgement.Judgement` and
:class:`~lanswitch.fairdeal.judgement.Proof`. The part in turn asks the session only what
:class:`Seatside` offers: the clock, randomness, the step counter and the view on screen, a way
to tell the screen (news), and the void tally. This mirrors the host's side
(:mod:`lanswitch.host._deal`): there the table holds a ``HandDriver``.

What is written once, above the two deals, stays in the session: the lobby and the hand's
setup, a hand the host kept this seat out of (its refusal verdict), disputes of the setup
against the lobby (kept on the part's own record where its deal keeps one), when a hand is
settled and its record made, the void tally and its warning, the news and the history.
A third deal would be one more part.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, get_args

from . import protocol as p
from .fairdeal.judgement import Deal, Judgement, Proof
from .fairdeal.round import Announcement
from .fairdeal.seat import RevealedRounds
from .fairdeal.tally import VoidEntry
from .game import View

__all__ = ["PART_MESSAGES", "PartMessage", "SeatPart", "Seatside"]

PartMessage = (
    p.Announce
    | p.Events
    | p.SeatView
    | p.HandOver
    | p.Abort
    | p.Reveals
    | p.LogHeads
    | p.BlindPass
    | p.BlindOpen
    | p.BlindRelease
    | p.BlindMove
    | p.BlindReveal
    | p.BlindAbort
    | p.BlindLeave
)
"""The messages the host sends about the hand in play (either deal's): the session passes each
to the part it holds. A part ignores the other deal's."""
PART_MESSAGES: tuple[type[PartMessage], ...] = get_args(PartMessage)


class Seatside(Protocol):
    """What a seat part may ask of the session that holds it."""

    clock: Callable[[], float] | None
    entropy: Callable[[int], bytes]
    seed_for: Callable[[bytes], bytes] | None
    verify_hands: bool
    seat: int | None  # by the host's word (welcome, lobby)
    seq: int  # the public steps seen, as the host numbers them
    catching_up: bool  # between a ``welcome`` and the next view: the host replays
    lost_place: bool  # a gap in the steps: the shell resumes
    timer_ms: int
    restored: bool  # a new run of the program, its seat taken back (``lanswitch.seatkeep``)
    keep: RevealedRounds | None  # the rounds this seat revealed its seed in (the last hand's)

    @property
    def view(self) -> View | None: ...

    @view.setter
    def view(self, value: View | None) -> None: ...

    def show(self, m: p.SeatView) -> None:
        """The host's view ``m`` is the one on screen now."""
        ...

    def shown(self) -> p.SeatView | View | None:
        """The view on screen, as it came (not yet converted)."""
        ...

    def live(self) -> bool:
        """The hand in play came whole over this one link (no resume since it began)."""
        ...

    def note(self, kind: str, text: str, data: object = None) -> None:
        """News for the screen (``session.News``)."""
        ...

    def fair_deal_problems(self, found: Sequence[str]) -> None:
        """What the part's checks found, told as warnings."""
        ...

    def seat_names(self) -> tuple[str, ...]: ...

    def hosting(self) -> bool:
        """This client is the host's own player (the lobby's ``host`` is its seat): what the
        host says is its own knowledge here, not "says the host"."""
        ...

    def count_void(self, entry: VoidEntry) -> None:
        """A void hand, counted in the table's tally (and the warning said once it is due)."""
        ...

    def keep_reveal(self, hand: p.Hand, fixed: Announcement) -> None:
        """This seat reveals its seed in the round ``fixed`` announced, of ``hand``: it goes on
        :attr:`keep`, which the shell writes to disk before it sends the reveal."""
        ...


class SeatPart(Protocol):
    """One seat's (or a spectator's) part in one hand, however it is dealt (module docstring).
    The session calls it between its own work; it never calls the session back but through
    :class:`Seatside`."""

    deal: Deal
    """Which deal, as a label for the record and the screens."""
    hides_from_host: bool
    """The deal keeps the cards from the host (dealer-blind): then a person alone among seats
    the host runs is told what elimination still gives away."""

    @property
    def seat(self) -> int | None:
        """The seat it takes part as, and judges from (None: watching)."""
        ...

    @property
    def finished(self) -> bool:
        """Its own part is done: from here the host owes the hand's end (the session's wait
        for it, ``HEADS_PATIENCE``, runs from now)."""
        ...

    @property
    def settled(self) -> bool:
        """Every proof it waits for is in: once the hand is over, the session records it."""
        ...

    def view(self) -> View | None:
        """The view it makes itself as the hand begins (None: the host sends the views)."""
        ...

    def start(self, playing: bool) -> list[p.Message]:
        """What to send as the hand begins. ``playing``: the host is playing it (else it is one
        it ended, caught up on between hands: followed, never answered)."""
        ...

    def resume(self, playing: bool) -> list[p.Message]:
        """The same hand again after a resume: what may have been lost with the link."""
        ...

    def take(self, m: PartMessage) -> list[p.Message]:
        """One message of the hand from the host: the replies, in order (news through the
        session)."""
        ...

    def rejected(self, m: p.Reject) -> None:
        """The host refused something this client sent."""
        ...

    def move(self, move: int) -> p.Move | p.BlindMove:
        """The message making ``move`` on the view on screen."""
        ...

    def my_turn(self) -> bool: ...

    def begin_leaving(self) -> list[p.Message]:
        """What to send first to leave mid-hand (then wait while :meth:`busy`)."""
        ...

    def leave(self) -> list[p.Message]:
        """What to send just before ``bye`` mid-hand."""
        ...

    def busy(self) -> bool:
        """Something of this seat's is owed to the hand now: a shell about to leave waits."""
        ...

    def dispute_setup(self, text: str) -> None:
        """A dispute of the hand's setup, kept on its own record where its deal keeps one."""
        ...

    def settle(self, why: str) -> str | None:
        """The hand is settled now with what it holds (the host went on, the table closed, the
        end never came): what to say (``why``, and what never came), or None when there is
        nothing of its own to judge (watching)."""
        ...

    def judgement(self, game_id: bytes, hand_no: int, names: Sequence[str]) -> Judgement | None:
        """Its judgement of the hand, once (None: nothing of its own to judge)."""
        ...

    def proof(self) -> Proof | None:
        """The hand's saved file, after :meth:`judgement` (None: none was kept)."""
        ...
