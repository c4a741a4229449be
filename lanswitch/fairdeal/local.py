"""A whole fair hand in one process: a :class:`~.dealer.Dealer` and every seat's
:class:`~.seat.SeatRecorder`, joined by plain calls.

The simulator (``lanswitch simulate --transcripts``), the benchmarks and the tests use
:func:`play_fair_hand`; over a network the same objects sit at both ends of the wire
(``lanswitch.host`` and ``lanswitch.session``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..game import BLUNDER_FLAG, Event, Game, HandResult
from .dealer import Dealer, HandStage, Step
from .primitives import (
    DEALER,
    Blame,
    PrivateKeyLike,
    private_key,
    public_bytes,
    reveal_message,
    sign,
)
from .round import Announcement, VoidRecord
from .seat import Commit, Reveal, SeatRecorder
from .transcript import Transcript

__all__ = [
    "FairHand",
    "MoveSource",
    "RevealHook",
    "SeedSource",
    "StepHook",
    "play_fair_hand",
    "public_keys_of",
]

SeedSource = Callable[[str, int], bytes]
"""``(participant id, round) → 32 fresh bytes``: where a participant's seed for a round comes
from (``secrets.token_bytes(32)`` in the shells)."""

RevealHook = Callable[[str, int, bytes], "bytes | None"]
"""``(participant id, round, committed seed) → the seed it sends, or None to send none``.
Honest participants send the seed they committed to; tests model the others with this."""

MoveSource = Callable[[Game], int]
"""``game → move`` for the seat ``game.to_act()`` (a bot, or a player's input); a move with
``BLUNDER_FLAG`` set is an illegal move it tried, charged as a blunder."""

StepHook = Callable[[Game, int, int, list[Event]], None]
"""Called after every engine step with ``(game, seat, move, events)``; ``seat`` is -1 for a
chance step (the same shape as :data:`lanswitch.simulate.HandLog`)."""


def public_keys_of(keys: Mapping[str, PrivateKeyLike]) -> dict[str, bytes]:
    """The raw public keys of a mapping id → private key."""
    return {p: public_bytes(k) for p, k in keys.items()}


@dataclass(frozen=True, slots=True)
class FairHand:
    """A hand played through the fair deal: its result, the dealer, every person's
    transcript (in seat order)."""

    dealer: Dealer
    result: HandResult
    void: VoidRecord | None
    transcripts: tuple[Transcript, ...]

    @property
    def rounds(self) -> int:
        return len(self.dealer.rounds)


def play_fair_hand(
    dealer: Dealer,
    choose: MoveSource,
    *,
    seeds: SeedSource,
    keys: Mapping[str, PrivateKeyLike],
    reveal: RevealHook | None = None,
    on_step: StepHook | None = None,
) -> FairHand:
    """Play ``dealer``'s hand to its end with every seat in this process.

    ``keys`` holds the private key of every person's seat (the seats the dealer's setup gives
    a key); the other seats are the host's bots. ``seeds`` gives each participant's seed per
    round (``@dealer``'s too), ``choose`` the move of the seat to act. ``reveal`` lets a person
    send another seed than it committed to, or none. A round that fails voids the hand
    (``FairHand.void``). After the hand every round's seeds are revealed to every seat, the
    host signs each seat's cards and the log head, and every signed head is passed to all.
    """
    setup, game = dealer.setup, dealer.game
    recorders = {
        seat: SeatRecorder(setup, seat, keys[setup.seats[seat]]) for seat in sorted(setup.humans)
    }

    def publish(step: Step) -> None:
        for seat, rec in recorders.items():
            mine = [v for k, s, v in step.events if s == seat and (k == "deal" or k == "draw")]
            rec.on_step(step.log, mine)

    bound = game.rules.play.safety_limit * 2 + 1000
    for _ in range(bound):
        stage = dealer.stage
        if stage is HandStage.OVER:
            break
        if stage is HandStage.PLAY:
            seat = game.to_act()
            move = choose(game)
            if seat in recorders:
                step = dealer.act(seat, move, recorders[seat].sign_move(move))
            else:
                step = dealer.host_move(seat, move)
            publish(step)
            if on_step is not None:
                on_step(game, seat, move & ~BLUNDER_FLAG, list(step.events))
            continue
        if not _run_round(dealer, recorders, seeds, keys, reveal):
            record = dealer.fail()
            for rec in recorders.values():
                rec.on_void(record)
            break
        step = dealer.deal()
        publish(step)
        if on_step is not None:
            on_step(game, -1, -1, list(step.events))
    if game.result is None:
        raise RuntimeError("a fair hand did not end within its bound")
    for r in range(len(dealer.rounds)):
        seeds_r = dealer.reveals(r)
        for rec in recorders.values():
            rec.on_reveals(r, seeds_r)
    for seat, rec in recorders.items():
        rec.on_cards_signature(dealer.sign_cards(seat))
    heads = {rec.id: rec.sign_head() for rec in recorders.values()}
    heads[DEALER] = dealer.sign_head()
    for rec in recorders.values():
        rec.on_heads(heads)
    return FairHand(
        dealer,
        game.result,
        dealer.void,
        tuple(recorders[s].transcript() for s in sorted(recorders)),
    )


def _run_round(
    dealer: Dealer,
    recorders: Mapping[int, SeatRecorder],
    seeds: SeedSource,
    keys: Mapping[str, PrivateKeyLike],
    reveal: RevealHook | None,
) -> bool:
    """One commit-reveal round among everyone present; True if every seed opened."""
    r = len(dealer.rounds)
    seats = dealer.setup.seats
    pending: list[tuple[int, Commit | Reveal]] = []  # first in, first out: commits, then seeds

    def hear(ann: Announcement) -> None:
        for seat, rec in recorders.items():
            got = rec.on_announcement(ann, functools.partial(seeds, rec.id, r))
            if got is not None:
                pending.append((seat, got))

    for ann in dealer.open_round(seeds(DEALER, r)):
        hear(ann)
    for _ in range(2 * len(recorders) + 2):  # each seat commits once and reveals once
        if not pending or dealer.stage not in (HandStage.COMMITTING, HandStage.REVEALING):
            break
        seat, reply = pending.pop(0)
        pid = seats[seat]
        try:
            if isinstance(reply, Commit):
                fixed = dealer.commit(pid, reply.commitment, reply.signature)
                if fixed is not None:
                    hear(fixed)
                continue
            sent = reply.seed if reveal is None else reveal(pid, r, reply.seed)
            if sent is None:
                recorders[seat].withhold(r)
                continue
            sig = reply.signature
            if sent != reply.seed:  # a seat that sends another seed signs that one
                rnd = dealer.rounds[-1].round
                c = rnd.commitments[pid][0]
                sig = sign(private_key(keys[pid]), reveal_message(rnd.ctx, pid, c, sent))
            dealer.reveal(pid, sent, sig)
        except Blame:
            continue  # refused (a seed that does not open has failed the round: see stage)
    return dealer.stage is HandStage.DEALING
