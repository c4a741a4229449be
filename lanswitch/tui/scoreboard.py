"""The match so far: each player's total against the rules' target, who leads, how far each is
from the target — under a hand's result, and on request (``m``) from any screen of a match.

Theory of operation
-------------------
The host keeps the match (:class:`~lanswitch.game.Match`) and sends its totals in every lobby
message (``LobbyState.scores``, one per seat, once a hand of the match is scored; ``hands``,
the hands of the match played, void ones included). The rules the client holds say how a
match is won (``scoring.mode`` and ``scoring.target``, the ``[scoring]`` table):

- ``winner_collects`` — the winner of a hand scores the cards left in the others' hands; the
  first to reach the target wins the match. Most points leads.
- ``penalty`` — each player scores the cards left in their own hand; reaching the target puts
  a player out, and the last one left wins. Fewest points leads.
- ``none`` — hands stand alone; the match is a series, and most hands won leads. The lobby's
  scores are then the hands each seat won (protocol v6), so a spectator who came late counts
  them right.

The hand's result (``HandOver``) reaches the client before the lobby that counts it: until the
lobby's ``hands`` reaches the hand's number, the board adds the hand's own scores to the
totals, so the result screen never shows a total that leaves out the hand above it.

Pure over the model, like :mod:`lanswitch.tui.layout`, which draws these lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..narrate import nth
from .model import TuiModel
from .render import StyledText, clip, wrap

__all__ = ["Board", "Standing", "board", "match_lines", "result_lines", "summary"]


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat in the match: its name, its total (points, or hands won where the rules keep
    no score), whether the target put it out (``penalty``), whether it is this client's."""

    seat: int
    name: str
    total: int
    out: bool = False
    me: bool = False


@dataclass(frozen=True, slots=True)
class Board:
    """The match so far, best placed first (see the module docstring)."""

    mode: str  # "winner_collects", "penalty", "none"
    target: int  # 0: no target
    standings: tuple[Standing, ...]
    hands: int  # hands of the match played (void ones included)
    winner: int | None  # the seat that won the match, once it is won

    @property
    def unit(self) -> str:
        return "hands won" if self.mode == "none" else "points"

    def short_unit(self) -> str:
        return "won" if self.mode == "none" else "pts"

    def to_go(self, s: Standing) -> int | None:
        """How far ``s`` is from the target: points still to score (``winner_collects``), or
        still to spare before the target puts it out (``penalty``). None: no target."""
        if not self.target or self.mode == "none":
            return None
        return max(0, self.target - s.total)

    def of(self, seat: int) -> Standing:
        return next(s for s in self.standings if s.seat == seat)

    def named(self, seat: int) -> str:
        for s in self.standings:
            if s.seat == seat:
                return "you" if s.me else s.name
        return f"seat {seat + 1}"


def board(model: TuiModel) -> Board | None:
    """The match so far, or None when there is none to show (no rules yet, or no seats)."""
    s = model.session
    rules = s.rules
    lobby = s.lobby
    if rules is None or lobby is None:
        return None
    mode, target = rules.scoring.mode, rules.scoring.target
    names = model.hand_names()
    seats = [i for i, st in enumerate(lobby.seats) if st.name or (i < len(names) and names[i])]
    totals = [lobby.scores[i] if i < len(lobby.scores) else 0 for i in range(len(lobby.seats))]
    hands = lobby.hands
    h = s.hand
    if h is not None and h.over is not None and hands < h.message.hand_no:
        # The hand's result came before the lobby that counts it: count it here.
        if h.over.reason != "void" and mode == "none":
            if h.over.placings and h.over.placings[0] < len(totals):
                totals[h.over.placings[0]] += 1
        elif h.over.reason != "void":
            for i, points in enumerate(h.over.scores[: len(totals)]):
                totals[i] += points
        hands = h.message.hand_no
    me = s.seat if s.seat is not None else (s.view.seat if s.view is not None else None)
    standing = [
        Standing(
            seat=i,
            name=names[i] if i < len(names) and names[i] else f"seat {i + 1}",
            total=totals[i],
            out=mode == "penalty" and bool(target) and totals[i] >= target,
            me=i == me,
        )
        for i in seats
    ]
    latest = _latest_placings(model)

    def key(st: Standing) -> tuple[int, int, int]:
        # Best first: most points (fewest under penalty, those still in before those out);
        # a tie goes to the seat placed best in the latest hand, as the host's Match decides.
        placed = latest.index(st.seat) if st.seat in latest else len(latest) + st.seat
        if mode == "penalty":
            return (int(st.out), st.total, placed)
        return (-st.total, placed, 0)

    standing.sort(key=key)
    return Board(mode, target, tuple(standing), hands, _winner(mode, target, standing))


def _latest_placings(model: TuiModel) -> tuple[int, ...]:
    """The placings of the latest scored hand this client saw (ties are broken by them)."""
    for record in reversed(model.session.history):
        if record.over.placings and record.over.reason != "void":
            return record.over.placings
    h = model.session.hand
    if h is not None and h.over is not None:
        return h.over.placings
    return ()


def _winner(mode: str, target: int, ordered: list[Standing]) -> int | None:
    """The seat that has won the match by the target (``ordered`` best first), else None."""
    if not target or not ordered:
        return None
    if mode == "winner_collects" and ordered[0].total >= target:
        return ordered[0].seat
    if mode == "penalty":
        left = [s for s in ordered if not s.out]
        if len(left) <= 1 and len(ordered) > 1:
            return left[0].seat if left else ordered[0].seat
    return None


def summary(b: Board) -> str:
    """The match in a sentence: how it is won, and who leads (or won) and by how much."""
    lead = b.standings[0]
    who = b.named(lead.seat)
    if b.mode == "none":
        if lead.total == 0:
            return "Most hands won: no hand of this match won yet."
        if len(b.standings) > 1 and b.standings[1].total == lead.total:
            won = "hand" if lead.total == 1 else "hands"
            return f"Most hands won: level at the top on {lead.total} {won}."
        verb = "lead" if who == "you" else "leads"
        return f"Most hands won: {who} {verb} with {lead.total}."
    if b.mode == "winner_collects":
        how = f"Match to {b.target}" if b.target else "Most points leads"
    else:
        how = f"Match, out at {b.target}" if b.target else "Fewest points leads"
    if b.winner is not None:
        won = b.named(b.winner)
        verb = "win" if won == "you" else "wins"
        return f"Match over: {won} {verb} with {_points(b.of(b.winner).total)}."
    if all(s.total == 0 for s in b.standings):
        return f"{how}: nobody has scored yet."
    gap = b.to_go(lead)
    rest = f", {gap} to go" if gap is not None and b.mode == "winner_collects" else ""
    if len(b.standings) > 1 and b.standings[1].total == lead.total:
        return f"{how}: level at the top on {_points(lead.total)}{rest}."
    verb = "lead" if who == "you" else "leads"
    return f"{how}: {who} {verb} with {lead.total}{rest}."


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def result_lines(model: TuiModel, cols: int) -> list[StyledText]:
    """The hand's result, under "Hand N is over": place, name, cards left and, where the
    rules score, the points the hand scored and the match total — in the placings' order
    (fewest cards left, then points), so the columns agree with it — then the match in a
    sentence."""
    s = model.session
    h = s.hand
    assert h is not None
    assert h.over is not None
    over = h.over
    names = model.hand_names()
    v = s.view
    me = v.seat if v is not None else None
    counts = v.counts if v is not None else ()
    b = board(model)
    scoring = b is not None and b.mode != "none"
    totals = {st.seat: st.total for st in b.standings} if b is not None else {}
    name_w = min(max((len(names[i]) for i in over.placings if i < len(names)), default=4), 20)
    head = f"   {'':3} {'':{name_w}}  cards left"
    if scoring:
        head += "  scored   match"
    elif b is not None:
        head += "  hands won"
    out: list[StyledText] = [[("class:dim", head)]]
    for place, seat in enumerate(over.placings, 1):
        name = names[seat] if seat < len(names) else f"seat {seat + 1}"
        left = counts[seat] if seat < len(counts) else 0
        row = f"   {place:>2}. {name[:name_w]:<{name_w}}  {left:>10}"
        if scoring:
            scored = over.scores[seat] if seat < len(over.scores) else 0
            row += f"  {scored:>6}  {totals.get(seat, 0):>6}"
        elif b is not None:
            row += f"  {totals.get(seat, 0):>9}"
        out.append(
            clip(
                [("class:me" if seat == me else "", row + ("  (you)" if seat == me else ""))], cols
            )
        )
    if b is not None and b.standings:
        out += wrap([("class:title", f"  {summary(b)}")], cols, indent=4)
    return out


def match_lines(model: TuiModel) -> list[StyledText]:
    """The page ``m`` opens: how the match is won, then every player, best placed first,
    with the total, and how far from the target (or out)."""
    b = board(model)
    if b is None or not b.standings:
        return [[("", "  No match yet: the scores start with the first hand.")]]
    played = f"{b.hands} hand{'s' if b.hands != 1 else ''} played"
    out: list[StyledText] = [[("class:title", f"  {summary(b)}")], [("class:dim", f"  {played}")]]
    out.append([])
    name_w = min(max(len(st.name) for st in b.standings), 20)
    unit = b.unit
    out.append([("class:dim", f"   {'':3} {'':{name_w}}  {unit:>9}")])
    for place, st in enumerate(b.standings, 1):
        row = f"   {nth(place) if not st.out else 'out':>3} {st.name[:name_w]:<{name_w}}"
        row += f"  {st.total:>9}"
        gap = b.to_go(st)
        if st.out:
            row += f"  reached {b.target}"
        elif gap is not None and b.mode == "winner_collects":
            row += f"  {gap} to go"
        elif gap is not None:
            row += f"  {gap} to spare"
        if b.winner == st.seat:
            row += "  wins the match"
        out.append([("class:me" if st.me else "", row + ("  (you)" if st.me else ""))])
    return out
