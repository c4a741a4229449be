"""What a client checks of a ``hand`` message against the lobby (``lanswitch/handcheck.py``),
on messages (pure): who is dealt out of a penalty-scoring match by the host's word, and what
the hands the client saw scored say of it. The same cheats played over real TLS are in
``tests/scenarios/test_cheat_penalty.py``."""

from __future__ import annotations

from lanswitch import protocol as p
from lanswitch.handcheck import MatchSeats, lobby_problems, out_of_match

KEYS = {f"seat{i}": bytes([i + 1]) * 32 for i in range(3)}


def _hand(hand_no: int, out: tuple[int, ...] = ()) -> p.Hand:
    seats = tuple(f"seat{i}" for i in range(3))
    keys = {pid: k for pid, k in KEYS.items() if int(pid[-1]) not in out}
    return p.Hand(
        game_id=bytes(16), hand_no=hand_no, seats=seats, dealer=0, out=out, rules="x",
        keys=keys, names=("ann", "bob", "cat"),
    )  # fmt: skip


def _lobby(hands: int, scores: tuple[int, ...]) -> p.LobbyState:
    seats = tuple(
        p.LobbySeat(name=n, id=f"seat{i}", connected=True, key=KEYS[f"seat{i}"])
        for i, n in enumerate(("ann", "bob", "cat"))
    )
    return p.LobbyState(
        table="T", rules="black5", host=None, seats=seats, hands=hands, scores=scores
    )


def _over(*scores: int) -> p.HandOver:
    return p.HandOver(
        reason="finished", placings=(0, 1, 2), scores=scores, hand_points=scores,
        head=(0, bytes(32), b""),
    )  # fmt: skip


NAMES = ("ann", "bob", "cat")


def test_one_made_up_total_is_one_line_not_two() -> None:
    """Review finding: out_of_match and lobby_problems each checked the lobby's totals, and a
    made-up total for bob was told twice — "out of the match by its word" and "who sits at the
    table". One pass, one line; lobby_problems leaves the seat to it."""
    m = _hand(2, out=(1,))
    lobby = _lobby(1, (0, 301, 40))
    found = out_of_match(m, lobby, 301, NAMES, [(1, _over(0, 12, 40), (0, 12, 40))])
    assert found.problems == (
        "the host deals hand 2 without bob, out of the match by its word (301 points); the "
        "hands played give bob 12, under the 301 that puts a player out",
    )
    assert lobby_problems(m, lobby, NAMES, None, found.out) == []


def test_a_lobby_that_already_counts_the_hand_dealt_is_not_compared() -> None:
    """A client that resumes between hands may hold a lobby that already counts the hand it is
    brought (``hands`` says so): cat crossed the target in hand 3 and was rightly dealt in it.
    Nothing is said — comparing that lobby would accuse an honest host."""
    m = _hand(3)
    lobby = _lobby(3, (0, 20, 310))
    seen = [(1, _over(0, 10, 100), (0, 10, 100)), (2, _over(0, 5, 150), (0, 5, 150))]
    found = out_of_match(m, lobby, 301, NAMES, seen)
    assert found == MatchSeats()


def test_missed_hands_leave_the_hosts_word_but_not_its_contradictions() -> None:
    """Hand 1's end never came (a record settled "unfinished") and hand 2 was void: the
    client cannot add up — bob dealt out by the scoreboard's word is unconfirmed, nobody
    blamed —, but cat dealt in while that same scoreboard puts her out is the host saying two
    things at once."""
    unfinished = p.HandOver(
        reason="unfinished", placings=(), scores=(), hand_points=(), head=(0, bytes(32), b"")
    )
    void = p.HandOver(
        reason="void", placings=(), scores=(), hand_points=(), head=(0, bytes(32), b"")
    )
    m = _hand(3, out=(1,))
    lobby = _lobby(2, (0, 301, 302))
    found = out_of_match(m, lobby, 301, NAMES, [(1, unfinished, ()), (2, void, ())])
    assert found.out == {1}
    assert found.unconfirmed == (
        "hand 3 is dealt without bob, out of the match by the host's word (301 points): you "
        "missed hand 1 of the match, so this cannot be confirmed",
    )
    assert found.problems == (
        "the host deals hand 3 with cat, who is out of the match by its word (302 points): 301 "
        "puts a player out",
    )
