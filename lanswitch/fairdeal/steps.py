"""A hand from one seat's transcript, step by step, as that seat saw it (``lanswitch replay``).

Theory of operation
-------------------
The steps are the verifier's own replay (:mod:`.replay`): the same walk through the signed log
that ``lanswitch verify`` makes — every shuffle re-derived from the revealed seeds, every
move's signature checked and applied to the rules engine — recording, after each deal and each
move, the engine's view for the transcript's seat (:meth:`~lanswitch.game.Game.view`) and the
events of that step as that seat may see them (:func:`~lanswitch.game.redact`: other seats'
dealt and drawn cards hidden). So a replay shows nothing the file's owner was not shown at the
table — its own hand, the cards laid, how many each holds — even though the seeds revealed
after the hand let the verifier derive every hand: what the owner could not see then is not
shown now either.

A file the verifier finds unfair stops where the check failed: the steps up to that point,
and the verdict that says why.

A dealer-blind hand's file (:mod:`.blind.file`) is walked the same way by :func:`blind_walk`:
the follower its owner ran at the table (:class:`~.blind.hand.Follower`, every live check
again) fed the file's steps — each shuffle dealt with the keys of the cards it turned up, each
move with its signature (and a laid card's keys) — and after each step the owner's own hidden
cards opened as its client opened them: with the keys the others released to it alone (the
file's ``received``) and its own key, made from its own seed. What the owner saw is then what
the file shows it: its own cards, every card laid or turned up, how many each player drew. The
others' hidden cards are never opened here (the check after the hand derives them from every
participant's revealed seed; the replay, like the table, does not show them). The verdict is
the file's own check (:func:`.blind.file.judge`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from ..game import HIDDEN_BASE, PRIVATE_KINDS, Event, Game, View, redact
from ..rules import RuleSet
from .blind import crypto
from .blind.file import BlindFileError, judge
from .blind.hand import Follower, Share, blind_setup
from .judgement import Judgement
from .primitives import DEALER, FairnessError
from .replay import _Unfair, _Verifier, verify
from .transcript import Transcript, load_json

__all__ = ["BLIND_NOTE", "Step", "Walk", "blind_walk", "walk"]

BLIND_NOTE = (
    "dealt dealer-blind: you see what you saw at the table, your own cards, every card laid "
    "or turned up and how many each player drew; the others' hidden cards are not shown"
)
"""What a blind hand's replay says of itself (the screen's first step)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the hand: the owner's view after it, and its events as the owner saw them."""

    view: View
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Walk:
    """A hand step by step, for the transcript's ``seat``; ``verdict``, the verifier's;
    ``note``: what the replay says of what it can show (a dealer-blind hand's)."""

    seat: int
    names: tuple[str, ...]
    rules: RuleSet
    hand_no: int
    steps: tuple[Step, ...]
    verdict: Judgement
    note: str = ""


class _Recorder(_Verifier):
    """The verifier, keeping the owner's view after each step (see the module docstring)."""

    def __init__(self, t: Transcript) -> None:
        super().__init__(t)
        self.steps: list[Step] = []
        self._game: Game | None = None

    def chance_step(self, game: Game) -> None:
        self._game = game
        super().chance_step(game)

    def move_step(self, game: Game) -> None:
        self._game = game
        super().move_step(game)

    def check_own(self, events: Sequence[Event]) -> None:
        super().check_own(events)  # called once after every deal and every move
        assert self._game is not None
        seat = self.t.seat
        shown = tuple(redact(e, seat) for e in events)
        self.steps.append(Step(self._game.view(seat), shown))


def walk(t: Transcript) -> Walk:
    """The hand of ``t`` step by step (see the module docstring)."""
    recorder = _Recorder(t)
    with suppress(_Unfair):  # the steps up to the failure; the verdict below says what failed
        recorder.run()
    names = tuple(n or f"seat {i + 1}" for i, n in enumerate(t.names or ("",) * len(t.setup.seats)))
    return Walk(
        seat=t.seat,
        names=names,
        rules=t.setup.rules,
        hand_no=t.setup.hand_no,
        steps=tuple(recorder.steps),
        verdict=verify(t).judgement(),
    )


def blind_walk(text: str | bytes) -> Walk:
    """The dealer-blind hand of the file ``text`` step by step, as its owner saw it (module
    docstring); BlindFileError if the file cannot be read, or its owner held no seat."""
    from .blind.file import _hex, _load_move, _load_opening, _load_share, _setup, _turned_up

    verdict = judge(text)  # reads the whole file, or says why it cannot
    data: dict[str, Any] = load_json(text)
    pid = str(data["id"])
    try:
        hs = _setup(data["setup"])
        if pid not in hs.seats:
            raise BlindFileError(
                "the file is the host's, whose bots' cards were its own: there is no seat to "
                "replay it from"
                if pid == DEALER
                else "the file is of someone who held no seat at this hand"
            )
        seat = hs.seats.index(pid)
        f = Follower(blind_setup(hs))
        own_seeds = {int(k): _hex(v, "a seed") for k, v in data["seeds"].get(pid, {}).items()}
        received: dict[tuple[int, int], list[Share]] = {}
        for k, j, *share in data["received"]:
            received.setdefault((int(k), int(j)), []).append(_load_share(share))
        turned_up = {(o.shuffle, o.position): o for o in map(_load_opening, data["turned_up"])}
        opened: dict[int, int] = {}  # the owner's hidden cards → the cards they opened to
        steps: list[Step] = []
        for step in data["steps"]:
            try:
                if step[0] == "shuffle":
                    k = int(step[1])
                    f.begin_shuffle()
                    for who, number, points, sig in data["shuffles"][k]:
                        f.on_pass(
                            str(who),
                            int(number),
                            [bytes.fromhex(x) for x in points],
                            bytes.fromhex(sig),
                        )
                    events = f.deal(functools.partial(_turned_up, turned_up, k))
                elif step[0] == "leave":
                    f.on_leave(
                        str(step[1]), {int(k): _hex(v, "a seed") for k, v in step[2].items()}
                    )
                    events = []
                else:
                    events = f.on_move(_load_move(step[1]))
            except ValueError:  # a Cheat, a step out of order, a key or a point that is not one
                break  # the steps up to where the file's record fails; the verdict says why
            _open_own(f, seat, pid, own_seeds, received, opened)
            view = f.game.view(seat)
            hand = tuple(c for c in view.hand if c < HIDDEN_BASE)
            shown = tuple(_shown(e, seat, opened) for e in events)
            steps.append(Step(dataclasses.replace(view, hand=hand), shown))
    except (KeyError, TypeError, ValueError, IndexError) as e:
        if isinstance(e, BlindFileError):
            raise
        raise BlindFileError(f"malformed: {type(e).__name__}: {e}") from None
    names = tuple(n or f"seat {i + 1}" for i, n in enumerate(hs.names or ("",) * len(hs.seats)))
    return Walk(
        seat=seat,
        names=names,
        rules=hs.rules,
        hand_no=hs.hand_no,
        steps=tuple(steps),
        verdict=verdict,
        note=BLIND_NOTE,
    )


def _open_own(
    f: Follower,
    seat: int,
    pid: str,
    own_seeds: Mapping[int, bytes],
    received: Mapping[tuple[int, int], Sequence[Share]],
    opened: dict[int, int],
) -> None:
    """Open every hidden card of ``seat`` that its owner ``pid`` holds every key of: the
    keys released to it (``received``), those made from the seeds of participants who left,
    and its own, from its own seed. A card some key of is missing stays hidden."""
    hand = f.game.hands[seat]
    for hidden in f.positions.hidden_in(hand):
        k, position = f.positions.locate(hidden)
        rec = f.shuffles[k]
        if k not in own_seeds:
            continue
        own = crypto.BlindKeys.derive(rec.ctx, pid, own_seeds[k], rec.n).positions[position]
        shares = {s.sender: s for s in received.get((k, position), ()) if s.to == pid}
        for q in rec.order:
            if q in f.gone and q != pid and q not in shares:
                shares[q] = Share(q, pid, f.gone_key(rec, position, q), b"")
        shares[pid] = Share(pid, pid, own, b"")
        try:
            card = f.open_with(rec, position, list(shares.values()), own=pid)
        except FairnessError:  # (a Cheat too) the keys open no card: the verdict says whose
            continue
        f.know(hidden, card)
        opened[hidden] = card


def _shown(event: Event, seat: int, opened: Mapping[int, int]) -> Event:
    """An event of the blind engine as the owner of ``seat`` saw it: its own cards as they
    opened, any other hidden card (and another seat's deal or draw) as an unknown one."""
    kind, who, card = event
    if card >= HIDDEN_BASE:
        card = opened.get(card, -1) if who == seat else -1
    elif kind in PRIVATE_KINDS and who != seat:
        card = -1
    return (kind, who, card)
