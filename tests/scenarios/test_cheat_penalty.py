"""Deliberate cheats on who a penalty-scoring match deals in, over real TLS (issue 26).

Under penalty scoring (Black 5) a player whose total reaches the rules' target is out of the
match: the host deals the next hands without them (no cards, no key), by the totals the lobby
shows (the host's word). A modified host — a ``Host`` whose ``Match`` keeps other totals or
puts other seats out, as ``tests/scenarios/test_cheats.py`` modifies hosts — plays at a table of
untouched clients over TLS on loopback (``tests/cheats.py``), in both deals. Each test reads
what every untouched client said: its warnings on screen (news) and the verdict in its record.

What a client can check is the totals against the hands it saw scored: where it saw every hand
of the match, a seat dealt out under the target, a seat dealt in past it, or a lobby total that
is not the sum of the hands, is the host saying two things at once — a dispute naming the host.
Where it missed a hand, it cannot tell, and says so without blaming anyone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanswitch import protocol as p
from lanswitch.fairdeal import DEALER
from lanswitch.game import Game, Match
from lanswitch.host import Host
from lanswitch.rules import PRESETS, RuleSet
from tests.cheats import Outcome, Person, make_host, play_over_tls

PEOPLE = [Person("ann"), Person("bob")]
BLACK5 = PRESETS["black5"]

Cheat = Callable[["CheatingHost", Match, Game], None]
"""What the host does to its match after it scores a hand (before the lobby shows it)."""


def black5(target: int) -> RuleSet:
    return dataclasses.replace(BLACK5, scoring=dataclasses.replace(BLACK5.scoring, target=target))


class CheatingMatch:
    """The host's match, with its ``cheat`` applied after each hand is scored. (The engine's
    ``Match`` is compiled, and a compiled class takes no Python subclass: this wraps one.)"""

    def __init__(self, match: Match, host: CheatingHost) -> None:
        object.__setattr__(self, "_match", match)
        object.__setattr__(self, "_host", host)

    def record(self, game: Game) -> None:
        self._match.record(game)
        self._host.cheat(self._match, game)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._match, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._match, name, value)


class CheatingHost(Host):
    """A host that changes its match's totals or who is out, after each hand it scores: the
    lobby then shows those totals and the next hand is dealt without those out (the real
    ``_start_hand``, from ``Match.new_hand``)."""

    def _new_match(self, first_dealer: int = 0) -> Match:
        return CheatingMatch(super()._new_match(first_dealer), self)  # type: ignore[return-value]

    def cheat(self, match: Match, game: Game) -> None:
        raise NotImplementedError

    def seat_named(self, name: str) -> int:
        return next(s.index for s in self.table.seats if s.name == name)

    def bot_seat(self) -> int:
        return next(s.index for s in self.table.seats if s.kind == "bot")


def redecide(match: Match) -> None:
    """Decide again whether the match is over, after the cheat changed who is out."""
    match.over, match.winner = False, None
    match._decide([s for s in range(match.players) if s not in match.out])


class InventsATotal(CheatingHost):
    """(a) After hand 1, bob is out: the lobby shows him at the target, and hand 2 is dealt
    without him — whatever hand 1 gave him."""

    def cheat(self, match: Match, game: Game) -> None:
        if game.hand_no == 1:
            bob = self.seat_named("bob")
            match.totals[bob] = max(match.totals[bob], match.rules.scoring.target)
            match.out.add(bob)
            redecide(match)


class KeepsAFriendIn(CheatingHost):
    """(b) At a target of 1, every player who loses hand 1 is out. The host keeps one of them
    in — its bot if the bot lost, else the first person who did — and shows their total as 0
    (``lower``) or as it is."""

    lower = True

    def cheat(self, match: Match, game: Game) -> None:
        if game.hand_no != 1:
            return
        assert game.result is not None
        losers = [s for s in game.dealt_in if s in match.out]
        bot = self.bot_seat()
        friend = bot if bot in losers else losers[0]
        self.friend = friend
        match.out.discard(friend)
        if self.lower:
            match.totals[friend] = 0
        redecide(match)


class KeepsAFriendInShown(KeepsAFriendIn):
    lower = False


class OwnTarget(CheatingHost):
    """(c) The totals are right, but after hand 1 the host puts a person out at its own
    target: the first person hand 1 gave any points (the rules say 301)."""

    def cheat(self, match: Match, game: Game) -> None:
        if game.hand_no == 1:
            victim = next(
                s.index for s in self.table.seats if s.kind == "human" and match.totals[s.index] > 0
            )
            self.victim = victim
            match.out.add(victim)
            redecide(match)


class AwayOut(OwnTarget):
    """(c) as :class:`OwnTarget`, and from then on the lobby shows the person it put out as
    away (they are connected): a person away is dealt in — a stand-in plays for them —, but
    the lobby's word "away" excused a person dealt out."""

    def _lobby(self) -> p.LobbyState:
        lobby = super()._lobby()
        victim = getattr(self, "victim", None)
        if victim is None:
            return lobby
        seats = list(lobby.seats)
        seats[victim] = dataclasses.replace(seats[victim], connected=False)
        return dataclasses.replace(lobby, seats=tuple(seats))


def play(
    host_cls: type[Host], tmp: Path, *, blind: bool, target: int, hands: int, **kw: Any
) -> Outcome:
    host = make_host(host_cls, rules=black5(target), blind=blind, hands=hands, **kw)
    return play_over_tls(host, PEOPLE, tmp, limit=120.0)


def warnings(out: Outcome, name: str) -> list[str]:
    return [n.text for n in out.news(name)]


def record_of(out: Outcome, name: str, hand_no: int) -> Any:
    (record,) = [r for r in out.sessions[name].history if r.hand_no == hand_no]
    return record


DEALS = pytest.mark.parametrize("blind", [False, True], ids=["commit-reveal", "blind"])


class MissedEnd(InventsATotal):
    """(d) The lie of (a), and ann's client is never sent the end of hand 1 (its scores): she
    cannot add the totals up, bob can."""

    def send(self, cid: int, message: p.Message) -> None:
        if not self._kept_from_ann(cid, message):
            super().send(cid, message)

    def broadcast(self, message: p.Message) -> None:  # (a dealer-blind hand's end)
        for cid, conn in self.conns.items():
            if conn.welcomed and not self._kept_from_ann(cid, message):
                self.outbox.append((cid, message))

    def _kept_from_ann(self, cid: int, message: p.Message) -> bool:
        ann = self.cid_of_seat(self.seat_named("ann"))
        return isinstance(message, p.HandOver) and self.match.hand_no == 1 and cid == ann


def check_disputed(out: Outcome, hand_no: int, says: str, *, who: tuple[str, ...]) -> None:
    """Every one of ``who`` said ``says`` once on screen before hand ``hand_no``, and nothing
    else about the match's totals; the one(s) dealt in have an UNFAIR record of that hand,
    the host to blame on its word — live and by ``lanswitch verify`` of the saved file."""
    dealt_in = 0
    for name in who:
        said = [w for w in warnings(out, name) if f"hand {hand_no}" in w and "the fair deal" in w]
        assert said == [f"the fair deal: {says}"], (name, warnings(out, name))
        record = record_of(out, name, hand_no)
        j = record.judgement
        if j is None:
            continue  # dealt out (the person wronged, or put out rightly): watched
        dealt_in += 1
        assert (j.status, j.culprits, j.proven) == ("unfair", (DEALER,), False), j.text()
        assert says in j.text(), j.text()
        assert "fair" not in out.cli_statuses(name)[hand_no - 1 :], out.alone[name]
        assert out.cli_statuses(name)[hand_no - 1] == "unfair", out.alone[name]
    assert dealt_in >= 1


@DEALS
def test_a_made_up_total_that_puts_a_person_out_is_the_hosts_dispute(
    tmp_path: Path, blind: bool
) -> None:
    """(a) After hand 1 the lobby shows bob at the target (301) and hand 2 is dealt without
    him. ann and bob saw hand 1 scored: each says, once, that the hands played give bob less;
    ann's record of hand 2 is UNFAIR, the host to blame. (Before: the same seat was told
    twice — out of the match by the host's word, and "who sits at the table" —; and a
    dealer-blind record said FAIR, the warning kept nowhere.)"""
    out = play(InventsATotal, tmp_path, blind=blind, target=301, hands=2)
    assert isinstance(out.host, InventsATotal)
    bob = out.host.seat_named("bob")
    (first,) = [r for r in out.sessions["ann"].history if r.hand_no == 1]
    given = first.over.scores[bob]
    assert given < 301
    says = (
        "the host deals hand 2 without bob, out of the match by its word (301 points); the "
        f"hands played give bob {given}, under the 301 that puts a player out"
    )
    check_disputed(out, 2, says, who=("ann", "bob"))
    assert record_of(out, "bob", 2).judgement is None  # bob was dealt out: he watched


@pytest.mark.parametrize("lower", [True, False], ids=["lowered", "shown"])
@DEALS
def test_a_player_kept_in_past_the_target_is_the_hosts_dispute(
    tmp_path: Path, blind: bool, lower: bool
) -> None:
    """(b) At a target of 1, every loser of hand 1 is out; the host keeps its bot in (or, if
    the bot won, the first person who lost), its total shown as 0 (``lowered``) or as it is
    (``shown``). Everyone who saw hand 1 says so; the record of hand 2 is UNFAIR. (Before:
    nothing was checked of a seat dealt in — FAIR everywhere, the scoreboard's 0 believed.)"""
    host_cls = KeepsAFriendIn if lower else KeepsAFriendInShown
    out = play(host_cls, tmp_path, blind=blind, target=1, hands=3)
    host = out.host
    assert isinstance(host, KeepsAFriendIn)
    friend = host.friend
    name = host.table.seats[friend].name
    (first,) = [r for r in out.sessions["ann"].history if r.hand_no == 1]
    given = first.over.scores[friend]
    assert given >= 1
    table = " (the table shows 0)" if lower else ""
    says = (
        f"the host deals hand 2 with {name}, who is out of the match: the hands played give "
        f"{name} {given} points{table}, and 1 puts a player out"
    )
    check_disputed(out, 2, says, who=("ann", "bob"))


@pytest.mark.parametrize("away", [False, True], ids=["seated", "shown-away"])
@DEALS
def test_a_person_put_out_at_the_hosts_own_target_is_its_dispute(
    tmp_path: Path, blind: bool, away: bool
) -> None:
    """(c) The lobby's totals are right, but after hand 1 the host puts out the first person
    hand 1 gave any points, as if the target were that low (the rules say 301). The lobby
    shows them under the target and seated: everyone says the host dealt them out, and the
    record of hand 2 is UNFAIR. (Before: so in a commit-reveal hand, without the figures; a
    dealer-blind record said FAIR, its warning kept nowhere.) ``away``: the lobby also shows
    the victim away; before, that was told as another thing — a seat dealt with no key, "it
    can play bob's turns as its own" — though the host played no turn of theirs."""
    out = play(AwayOut if away else OwnTarget, tmp_path, blind=blind, target=301, hands=2)
    host = out.host
    assert isinstance(host, OwnTarget)
    name = host.table.seats[host.victim].name
    (first,) = [r for r in out.sessions["ann"].history if r.hand_no == 1]
    given = first.over.scores[host.victim]
    says = (
        f"the host deals hand 2 without {name}, who sits at the table and is not out of the "
        f"match: the hands played give {name} {given} points, under the 301 that puts a "
        "player out"
    )
    check_disputed(out, 2, says, who=("ann", "bob"))
    assert record_of(out, name, 2).judgement is None


@DEALS
def test_a_client_that_missed_a_hand_says_it_cannot_confirm_and_blames_nobody(
    tmp_path: Path, blind: bool
) -> None:
    """(d) The lie of (a), but ann never had the end of hand 1 (the host kept it from her):
    she cannot add bob's total up. She says so, and blames nobody for dealing bob out; bob,
    who saw hand 1 scored, disputes it. (Before: ann counted the hand she never saw the end
    of as no points for anyone, and accused the host with a made-up figure — "the hands
    played give bob 0" — that would have blamed an honest host alike.)"""
    out = play(MissedEnd, tmp_path, blind=blind, target=301, hands=2)
    ann = warnings(out, "ann")
    assert not [w for w in ann if "without bob" in w and "fair deal" in w], ann
    assert (
        "hand 2 is dealt without bob, out of the match by the host's word (301 points): you "
        "missed hand 1 of the match, so this cannot be confirmed"
    ) in ann
    j = record_of(out, "ann", 2).judgement
    assert j is not None
    assert "bob" not in j.text(), j.text()  # her record of hand 2 does not accuse
    bob = [w for w in warnings(out, "bob") if "hand 2 without bob" in w]
    assert len(bob) == 1, bob
    assert "the hands played give bob" in bob[0], bob


class ForgedEnd(InventsATotal):
    """(d) The lie of (a), told consistently: the end of hand 1 (``hand_over``) gives bob the
    301 points the lobby then shows, so the totals add up to the hands' ends."""

    def send(self, cid: int, message: p.Message) -> None:
        super().send(cid, self._forged(message))

    def broadcast(self, message: p.Message) -> None:  # (a dealer-blind hand's end)
        super().broadcast(self._forged(message))

    def _forged(self, message: p.Message) -> p.Message:
        if not isinstance(message, p.HandOver) or self.match.hand_no != 1:
            return message
        scores = list(message.scores)
        scores[self.seat_named("bob")] = 301
        return dataclasses.replace(message, scores=tuple(scores))


@DEALS
def test_an_end_of_hand_with_made_up_points_is_the_hosts_dispute(
    tmp_path: Path, blind: bool
) -> None:
    """(d) The host's end of hand 1 gives bob 301 points, the lobby adds them up, and hand 2
    is dealt without him. Each client adds up the scores its own check of hand 1 replayed, not
    the end's: it says the host scored hand 1 with made-up points and dealt bob out under the
    target. (Before: the totals were the ends' figures — FAIR everywhere, bob out.)"""
    out = play(ForgedEnd, tmp_path, blind=blind, target=301, hands=2)
    assert isinstance(out.host, ForgedEnd)
    bob = out.host.seat_named("bob")
    for name in ("ann", "bob"):
        first = record_of(out, name, 1)
        assert first.over.scores[bob] == 301  # what the host told
        given = first.judgement.scores[bob]  # what the hand as played gave
        assert given < 301
        said = [w for w in warnings(out, name) if "the fair deal" in w]
        assert said == [
            "the fair deal: the host scored hand 1 giving bob 301 points; the hand as played "
            f"gives bob {given}",
            "the fair deal: the host deals hand 2 without bob, out of the match by its word "
            f"(301 points); the hands played give bob {given}, under the 301 that puts a "
            "player out",
        ], said
    j = record_of(out, "ann", 2).judgement
    assert (j.status, j.culprits, j.proven) == ("unfair", (DEALER,), False), j.text()
    assert "the host scored hand 1 giving bob 301 points" in j.text()
    assert out.cli_statuses("ann")[1] == "unfair", out.alone["ann"]


class PadsTheScoreboard(CheatingHost):
    """(d) Deals honestly, but after hand 1 its scoreboard gives its bot 50 points more than
    the hand did (still under the target): the standings every screen shows are the host's."""

    def cheat(self, match: Match, game: Game) -> None:
        if game.hand_no == 1:
            match.totals[self.bot_seat()] += 50


@DEALS
def test_a_scoreboard_total_that_is_not_the_hands_is_the_hosts_dispute(
    tmp_path: Path, blind: bool
) -> None:
    """(d) Nobody is dealt in or out wrongly; the lobby's total for the bot is 50 more than
    hand 1 gave it. Every client says so, once, at hand 2. (Before: nothing was said.)"""
    out = play(PadsTheScoreboard, tmp_path, blind=blind, target=301, hands=2)
    assert isinstance(out.host, PadsTheScoreboard)
    bot = out.host.bot_seat()
    given = record_of(out, "ann", 1).over.scores[bot]  # (the host scored hand 1 honestly)
    says = (
        f"the table shows bot 1 with {given + 50} points as hand 2 begins; the hands played give "
        f"bot 1 {given}"
    )
    check_disputed(out, 2, says, who=("ann", "bob"))
