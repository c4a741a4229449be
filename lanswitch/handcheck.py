"""What a client checks of a ``hand`` message before it takes part: the hand against the lobby.

The ``hand`` message fixes who plays with which key, and the turn timer (``ctx_0`` and the
setup note bind them). The fair deal then holds the host to them — but it cannot tell whether
they are the table everyone sat down at: a host could deal a person's seat with no key (and
play it as its own bot), put another key there, or deal a timer the lobby never showed. The
lobby is the host's word too, but it is what the players see and agree to; a ``hand`` that
contradicts it is a host saying two things at once. Pure functions of the two messages.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from . import protocol as p
from .fairdeal.blind.crypto import point_problem

__all__ = [
    "MatchSeats",
    "dealt_alone",
    "key_problem",
    "lobby_problems",
    "lone_person",
    "out_of_match",
    "own_seat_problem",
]


def own_seat_problem(m: p.Hand, seat: int | None, key: bytes) -> str | None:
    """Why this client, sitting at ``seat`` (None: it watches) with public ``key``, cannot
    take its part in hand ``m`` — the host would play its seat as its own —, or None."""
    if seat is None or seat >= len(m.seats) or seat in m.out:
        return None  # not dealt in (an empty seat sits the hand out; see lobby_problems)
    given = m.keys.get(m.seats[seat])
    if given == key:
        return None
    if given is None:
        return (
            f"the host deals hand {m.hand_no} with no key at your seat: it would play your "
            "seat as its own bot; not taking part"
        )
    return (
        f"the host deals hand {m.hand_no} with another key than yours at your seat: it would "
        "play your seat itself; not taking part"
    )


def key_problem(m: p.Hand) -> str | None:
    """Why this client cannot take part in hand ``m`` because a key it deals is not a point of
    Ed25519's prime-order group (``protocol/SPEC.md`` § Points received: no key made from a
    private key fails), or None. The host refuses such a key at ``hello``, so dealing one is
    the host's doing; at a blind table nobody could seal a card's key to it."""
    if any(point_problem(key) is not None for key in m.keys.values()):
        return (
            f"the host deals hand {m.hand_no} with a key that is not an Ed25519 public key: "
            "not taking part"
        )
    return None


def lobby_problems(
    m: p.Hand,
    lobby: p.LobbyState,
    names: Sequence[str],
    since: p.Hand | None = None,
    out_of_match: Collection[int] = (),
) -> list[str]:
    """Where hand ``m`` is not the table ``lobby`` shows (``names``: the seats' names): a
    person's seat dealt with no key or another key, a bot's with a key, a person left out,
    another turn timer, a seat given another name than the lobby's (the setup note binds the
    names a saved hand shows). Compared when the hand begins.

    ``since``: the hand this client was in before a resume brought it ``m``. The lobby it
    has then came after ``m`` began and may have changed since (a player came back, or left
    and a bot took the seat), so only what cannot have changed in a hand is compared: the
    turn timer, and each seat the lobby shows as ``since`` had it — the same person's key,
    or a bot's seat with none, and its name if unchanged since ``since``. (A host that drops
    every link just before it deals cannot skip the comparison so.)

    ``out_of_match``: the seats the match has put out (:func:`out_of_match`), dealt out of
    every hand after; a person there sits at the table and is rightly left out."""
    found: list[str] = []
    for i, seat in enumerate(lobby.seats[: len(m.seats)]):
        who = names[i] if i < len(names) and names[i] else f"seat {i + 1}"
        pid = m.seats[i]
        given = m.keys.get(pid)
        person = bool(seat.name) and not seat.bot
        if since is not None:
            before = since.keys.get(since.seats[i]) if i < len(since.seats) else b"?"
            if (seat.key if person else None) != before:
                continue  # the seat changed since: the lobby no longer says how it was dealt
            if i < len(since.names) and since.names[i] != seat.name:
                continue  # renamed since (a bot took the seat, its person came back)
        if m.names and i < len(m.names) and m.names[i] != seat.name:
            found.append(
                f'the host deals hand {m.hand_no} naming {who}\'s seat "{m.names[i]}": '
                "a saved hand would show that name"
            )
        if i in m.out and i in out_of_match:
            continue  # out of the match: dealt no cards and no key, rightly
        if since is None and person and seat.connected and i in m.out:
            found.append(f"the host deals hand {m.hand_no} without {who}, who sits at the table")
        elif person and seat.key and given != seat.key:
            how = "no key" if given is None else "another key than the lobby's"
            found.append(
                f"the host deals hand {m.hand_no} with {how} at {who}'s seat: it can play "
                f"{who}'s turns as its own"
            )
        elif seat.bot and given is not None:
            found.append(f"the host deals hand {m.hand_no} with a key at its bot {who}'s seat")
    if not m.names and any(seat.name for seat in lobby.seats):
        found.append(f"the host deals hand {m.hand_no} without the seats' names")
    shown = lobby.turn_timer * 1000  # whole seconds in the lobby
    if abs(m.turn_timer_ms - shown) > 500:
        found.append(
            f"the host deals hand {m.hand_no} with a {_seconds(m.turn_timer_ms)} turn timer; "
            f"the table shows {_seconds(shown)}"
        )
    return found


@dataclass(frozen=True, slots=True)
class MatchSeats:
    """What this client makes of who hand ``m`` deals, under penalty scoring
    (:func:`out_of_match`).

    ``out``: the seats whose being dealt out this check accounts for — rightly out of the
    match, or already reported here — so :func:`lobby_problems` says nothing more of them.
    ``problems``: where the host's word cannot be right (each a dispute, one line per seat).
    ``unconfirmed``: where this client missed a hand of the match and so cannot tell whether a
    seat the host deals out is out of the match — said, and blamed on nobody."""

    out: frozenset[int] = frozenset()
    problems: tuple[str, ...] = ()
    unconfirmed: tuple[str, ...] = ()


def out_of_match(
    m: p.Hand,
    lobby: p.LobbyState,
    target: int,
    names: Sequence[str],
    seen: Sequence[tuple[int, p.HandOver, Sequence[int]]],
) -> MatchSeats:
    """Who the match puts out of hand ``m``, the lobby's totals against the hands this client
    saw scored, in one pass over the seats (one report per seat).

    Under penalty scoring (``target`` > 0) a player whose match total reaches the target is
    out: the host deals every later hand without them. The totals the lobby shows are the
    host's word (protocol v6 ``scores``; ``lobby.hands`` scored so far). A host could make one
    up to keep a person out of the hands, lower one to keep its own bot or a friend in, or put
    a person out at a target of its own. Where this client has the end of every hand of the
    match before ``m`` (``seen``: each hand's number, its ``hand_over`` and the scores this
    client's own check of the hand gives, if it has them; a void scores nothing) it adds the
    scores up itself, and then:

    - a seat dealt out whose own total is under the target — but the host's word puts out — is
      a person dealt out with no reason;
    - a seat dealt in whose own total has reached the target (or the lobby's has: the host
      says two things at once) plays a match it is out of;
    - a lobby total that is not the sum of the hands misleads the scoreboard;
    - a hand whose ``hand_over`` gives a seat other points than the hand as this client's check
      replayed it was scored with made-up points (the sums are the replay's; said at the
      hand after it, as the totals it misleads say it at every hand).

    A hand this client missed (it was away, or joined late) or saw no end of leaves the totals
    the host's word: a seat dealt out by them is then unconfirmed, not disputed — a client
    that cannot know accuses nobody. (A hand this client watched, or whose check found no
    result of its own, counts by its ``hand_over``: the host's word.)"""
    n = len(m.seats)
    # The lobby's totals, if they are those of the hands before ``m`` (a client that resumes
    # between hands may hold a lobby that already counts ``m``).
    before = lobby.hands == m.hand_no - 1 and len(lobby.scores) >= n
    shown = list(lobby.scores[:n]) if before else None
    claimed = {i for i, total in enumerate(lobby.scores[:n]) if total >= target and i in m.out}
    # A hand whose end this client never had (settled "unfinished", or no scores) is missed.
    scored = {
        hand: (over, checked)
        for hand, over, checked in seen
        if hand < m.hand_no and (over.reason == "void" or over.scores)
    }
    missed = [k for k in range(1, m.hand_no) if k not in scored]
    if missed:
        said = _hands(missed)
        unconfirmed = tuple(
            f"hand {m.hand_no} is dealt without {_who(names, i)}, out of the match by the "
            f"host's word ({lobby.scores[i]} points): you missed {said} of the match, so "
            "this cannot be confirmed"
            for i in sorted(claimed)
        )
        # Its own word against itself needs no hands: a seat its scoreboard puts out, dealt in.
        both = tuple(
            f"the host deals hand {m.hand_no} with {_who(names, i)}, who is out of the match "
            f"by its word ({total} points): {target} puts a player out"
            for i, total in enumerate(shown or ())
            if total >= target and i not in m.out
        )
        return MatchSeats(frozenset(claimed), both, unconfirmed)
    mine = [0] * n
    found: list[str] = []
    for hand, (over, checked) in sorted(scored.items()):
        if over.reason == "void":
            continue
        for i, points in enumerate(checked[:n] if checked else over.scores[:n]):
            mine[i] += points
            told = over.scores[i] if i < len(over.scores) else 0
            if checked and told != points and hand == m.hand_no - 1:  # said once
                who = _who(names, i)
                found.append(
                    f"the host scored hand {hand} giving {who} {told} points; the hand as "
                    f"played gives {who} {points}"
                )
    accounted: set[int] = set()
    for i in range(n):
        who = _who(names, i)
        says = None if shown is None else shown[i]  # the lobby's total, if of these hands
        wrong = says is not None and says != mine[i]
        seat = lobby.seats[i] if i < len(lobby.seats) else None
        person = seat is not None and bool(seat.name) and not seat.bot
        if i in m.out and i in claimed and mine[i] < target:
            found.append(
                f"the host deals hand {m.hand_no} without {who}, out of the match by its "
                f"word ({lobby.scores[i]} points); the hands played give {who} {mine[i]}, "
                f"under the {target} that puts a player out"
            )
        elif i in m.out and person and mine[i] < target:
            # A person at the table is dealt in, away or not (a stand-in plays for the
            # away): only the match puts one out — so the lobby's "away" does not excuse it.
            table = f" (the table shows {says})" if wrong else ""
            found.append(
                f"the host deals hand {m.hand_no} without {who}, who sits at the table and "
                f"is not out of the match: the hands played give {who} {mine[i]} "
                f"points{table}, under the {target} that puts a player out"
            )
        elif i not in m.out and (mine[i] >= target or (says is not None and says >= target)):
            table = f" (the table shows {says})" if wrong else ""
            found.append(
                f"the host deals hand {m.hand_no} with {who}, who is out of the match: the "
                f"hands played give {who} {mine[i]} points{table}, and {target} puts a "
                "player out"
            )
        elif wrong:
            found.append(
                f"the table shows {who} with {says} points as hand {m.hand_no} begins; the "
                f"hands played give {who} {mine[i]}"
            )
        if i in m.out and (i in claimed or person or mine[i] >= target):
            accounted.add(i)  # rightly out of the match, or reported above
    return MatchSeats(frozenset(accounted), tuple(found))


def _who(names: Sequence[str], i: int) -> str:
    return names[i] if i < len(names) and names[i] else f"seat {i + 1}"


def _hands(numbers: Sequence[int]) -> str:
    """``hand 2``, ``hands 2 and 3``, ``hands 2, 3 and 5``."""
    if len(numbers) == 1:
        return f"hand {numbers[0]}"
    return "hands " + ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"


def _seconds(ms: int) -> str:
    return "no" if ms == 0 else f"{ms / 1000:g} s"


def lone_person(lobby: p.LobbyState) -> int | None:
    """At a dealer-blind table, the seat of the one person whose cards the host can work out
    by elimination, or None.

    Dealer-blind keeps every card the host is not dealt from it — but the host holds the
    cards of every seat it runs (its bots, and ``lanswitch play``'s own seat, ``lobby.host``)
    and sees every card laid or turned up. The cards it cannot see are the stock's and the
    other people's. When the stock runs out, those are the people's hands alone: with one
    person among seats the host runs, that is that person's whole hand, read by elimination
    with no key. (A player can do the same arithmetic; the host can do it for a seat it does
    not play, which is what dealer-blind otherwise takes away.) With two or more people the
    host learns only the cards they hold between them.

    An empty seat counts as the host's: a hand started now deals a bot into it. A person who
    leaves mid-hand leaves their seat to the host's stand-in, which can make someone else the
    lone person during the hand; the lobby cannot foresee that (``docs/fairness.md``)."""
    if not lobby.blind:
        return None
    people = [i for i, s in enumerate(lobby.seats) if s.name and not s.bot and i != lobby.host]
    return people[0] if len(people) == 1 else None


def dealt_alone(m: p.Hand, host_seat: int | None) -> int | None:
    """The lone person of :func:`lone_person`, as a dealer-blind hand is actually dealt: the
    one seat dealt in with a key of its own that is not the host's player's (``host_seat``,
    the lobby's word), when there is exactly one. The lobby may say two people sit, and the
    host deal one of them out (its link cut just before): what counts is the hand."""
    if not m.blind:
        return None
    people = [
        s for s, pid in enumerate(m.seats) if s not in m.out and pid in m.keys and s != host_seat
    ]
    return people[0] if len(people) == 1 else None
