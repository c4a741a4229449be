"""People before bots (issue 14, item 1), through the real host and clients in one process
(``tests/tablenet.py``): a friend who joins ``lanswitch play``'s table of three bots sits
down — at once in the lobby, when the hand ends during one — and the host says so."""

from __future__ import annotations

import dataclasses
from typing import TypeVar

import pytest

from lanswitch import protocol as p
from lanswitch.host import Host, HostConfig
from lanswitch.rules import PRESETS
from tests.tablenet import Link, TableNet

M = TypeVar("M", bound=p.Message)


def of(link: Link, kind: type[M]) -> list[M]:
    return [m for m in link.received if isinstance(m, kind)]


def play_table(**kw: object) -> TableNet:
    """The table ``lanswitch play`` makes: four seats, three bots, no end."""
    config = HostConfig(name="T", seats=4, bots=3, bot_delay=0.0, hands=None, **kw)  # type: ignore[arg-type]
    return TableNet(config, seed=11)


def test_a_friend_joining_in_the_lobby_takes_a_bots_seat_and_the_hand_deals_them_in() -> None:
    net = play_table()
    ann = net.join("ann", auto_ready=False)
    assert ann.session.seat == 0
    bob = net.join("bob", auto_ready=False)
    assert bob.session.seat == 3  # not "watching": the last bot stood up for him
    lobby = ann.session.lobby
    assert lobby is not None
    assert [(s.name, s.bot) for s in lobby.seats] == [
        ("ann", False),
        ("bot 1", True),
        ("bot 2", True),
        ("bob", False),
    ]
    assert net.host.log[-2:] == ["bob joined", "bob takes bot 3's seat (seat 4)"]
    assert net.host.table.open_seats() == 2  # advertised: the two bots' seats
    net.send(ann, p.Ready(ready=True))
    assert net.host.hand is None  # bob is not ready yet
    net.send(bob, p.Ready(ready=True))
    assert net.host.hand is not None
    hand = of(bob, p.Hand)[-1]
    assert bob.session.public_key in hand.keys.values()  # dealt in, with his own key


def test_a_friend_joining_during_a_hand_waits_then_takes_a_bots_seat() -> None:
    net = play_table()
    ann = net.join("ann")
    net.run(lambda: ann.session.seq >= 3)
    carol = net.join("carol")
    assert carol.session.seat is None  # this hand is dealt: she watches it
    assert "carol waits for this hand to end, then takes bot 3's seat" in net.host.log
    net.run(lambda: carol.session.seat is not None, steps=50_000)
    assert carol.session.seat == 3
    assert "carol takes bot 3's seat (seat 4)" in net.host.log
    net.run(lambda: any(v.seat == 3 for v in of(carol, p.SeatView)), steps=50_000)


def test_the_seat_keeps_its_score_when_a_person_takes_over_from_a_bot() -> None:
    """docs/hosting.md: the match adds up scores per seat, so a friend who takes a bot's seat
    between hands takes over its score too."""
    rules = PRESETS["two-four-jack"]
    net = TableNet(
        HostConfig(name="T", rules=rules, seats=3, bots=2, bot_delay=0.0, hands=None), seed=5
    )
    ann = net.join("ann", auto_ready=False)
    net.send(ann, p.Ready(ready=True))  # one hand; then the table waits for her again
    net.run(lambda: len(ann.session.history) >= 1, steps=100_000)
    assert net.host.hand is None
    scores = net.host.match.totals[:]
    assert any(scores)
    carol = net.join("carol", auto_ready=False)
    assert carol.session.seat == 2
    lobby = carol.session.lobby
    assert lobby is not None
    assert list(lobby.scores) == scores


def test_the_waiting_friend_is_told_what_the_host_is_told() -> None:
    """The newcomer pass: the host's screen said "carol waits for this hand to end, then
    takes bot 3's seat" and carol's own "you wait for a seat: bot 3's, when this hand ends"
    — two wordings of one fact, made apart, that could drift. Both are one function's now
    (``table.waiting_line``), hers from the lobby she was sent."""
    from lanswitch.tui.model import TuiModel
    from tests.test_tui import screen_text

    net = play_table()
    ann = net.join("ann")
    net.run(lambda: ann.session.seq >= 3)
    carol = net.join("carol", auto_ready=False, bot=None)
    model = TuiModel(carol.session, send=lambda m: net.send(carol, m))
    model.update()
    (host_line,) = [line for line in net.host.log if line.startswith("carol waits")]
    hers = host_line.replace("carol waits", "you wait").replace("then takes", "then take")
    assert hers == "you wait for this hand to end, then take bot 3's seat"
    screen = " ".join(" ".join(screen_text(model, 100, 30)).split())
    assert hers in screen, screen


@pytest.mark.parametrize("blind", [False, True], ids=["commit-reveal", "dealer-blind"])
def test_a_seat_taken_as_a_hand_ended_does_not_make_that_hand_unfair_to_a_rejoiner(
    blind: bool,
) -> None:
    """The newcomer pass: dave watched hand 1 and took the bot's seat as it ended; ann's
    ``play`` was then stopped and resumed, and its screen called hand 1 UNFAIR, blaming the
    host ("the host deals hand 1 naming dave's seat 'bot 1'"), while the history and
    ``verify`` said FAIR. A hand the host ended, caught up on between hands, was compared
    with the lobby as it is now. And dave, his program run again, was caught up as the bot's
    seat of a hand he watched ("no key at your seat … not taking part"). Both deals."""
    net = TableNet(
        HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=None, blind=blind), seed=4
    )
    ann = net.join("ann", auto_ready=False)
    net.send(ann, p.Ready(ready=True))
    net.run(lambda: ann.session.seq >= 3)
    dave = net.join("dave", auto_ready=False)
    assert dave.session.seat is None
    net.run(lambda: bool(ann.session.history) and dave.session.seat == 1, steps=50_000)
    (first,) = ann.session.history
    assert first.judgement is not None
    assert first.judgement.fair, first.judgement.text()
    ann = net.restart(ann)  # a new run of her program, between hands
    dave = net.restart(dave)
    net.run(lambda: bool(ann.session.history) and bool(dave.session.history), steps=5_000)
    (again,) = ann.session.history
    # (A dealer-blind hand's locking keys went with the run that played it: the new run
    # follows it and judges nothing of its own. Commit-reveal judges it again: fair.)
    assert blind or again.judgement is not None
    assert again.judgement is None or again.judgement.fair, again.judgement.text()
    (watched,) = dave.session.history
    assert watched.judgement is None or watched.judgement.fair, watched.judgement.text()
    for s in (ann.session, dave.session):
        said = [n.text for n in s.news if n.kind in ("warning", "verdict")]
        assert not [t for t in said if "the host deals hand" in t or "UNFAIR" in t], said


class _SaysNotPlaying(Host):
    """A host whose lobby says no hand is in play while ``lie`` is set."""

    lie = False

    def _lobby(self) -> p.LobbyState:
        lobby = super()._lobby()
        return dataclasses.replace(lobby, playing=False) if self.lie else lobby


def test_a_hand_called_over_at_a_catch_up_and_played_on_is_compared_then() -> None:
    """The rule above lets a hand caught up on between hands pass the lobby's comparison. A
    host that told a returning client "no hand in play" of a hand it goes on playing would
    slip the comparison past it: once the hand goes on after the catch-up, it is compared
    then, and the client is told the host said two things."""
    net = TableNet(HostConfig(name="T", seats=2, bots=1, bot_delay=0.0, hands=None), seed=4)
    net.host = _SaysNotPlaying(net.host.config, entropy=net.rng.randbytes, now=net.now)
    ann = net.join("ann")
    net.run(lambda: ann.session.seq >= 4)
    host = net.host
    assert isinstance(host, _SaysNotPlaying)
    host.lie = True
    ann = net.restart(ann)  # a new run of her program comes back mid-hand, and is lied to
    host.lie = False
    net.run(lambda: bool(ann.session.history), steps=20_000)
    said = [n.text for n in ann.session.news if n.kind == "warning"]
    assert any("as over, and plays it on" in t for t in said), said
