"""The host and the client mirror together, in one process (``tests/tablenet.py``): whole
matches over real framing, the fair deal over the wire, what each seat may see, the refusals,
resuming, the timers and the host's policies for away players."""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

import pytest

from lanswitch import protocol as p
from lanswitch.commitseat import CommitPart
from lanswitch.fairdeal import BY_STAND_IN, LEFT, Away, Move
from lanswitch.fairdeal.primitives import log_head_message, sign
from lanswitch.game import DRAW
from lanswitch.host import (
    DROP_AFTER,
    IDLE_PING_AFTER,
    LOG_KEEP,
    MAX_CLIENTS,
    PING_AFTER,
    PONG_WAIT,
    HostConfig,
)
from lanswitch.host._commit import CommitHand
from lanswitch.rules import PRESETS
from lanswitch.session import Session
from lanswitch.table import Refusal, Refused
from lanswitch.tui.model import verdict_line
from tests.records import transcript_of, verdict_of
from tests.tablenet import Link, TableNet

M = TypeVar("M", bound=p.Message)


def config(**kw: object) -> HostConfig:
    base: dict[str, object] = {"name": "T", "seats": 4, "bots": 2, "bot_delay": 0.0, "hands": 2}
    base.update(kw)
    return HostConfig(**base)  # type: ignore[arg-type]


def of(link: Link, cls: type[M]) -> list[M]:
    return [m for m in link.received if isinstance(m, cls)]


def over(net: TableNet) -> bool:
    return net.host.finished


# ---------------------------------------------------------------------------------------------
# Whole matches


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_match_over_the_wire_verifies_fair_for_every_seat(preset: str) -> None:
    net = TableNet(config(rules=PRESETS[preset], seats=3, bots=1), seed=len(preset))
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: over(net))
    for link in (a, b):
        s = link.session
        assert [r.hand_no for r in s.history] == [1, 2]
        for r in s.history:
            assert r.judgement is not None
            assert r.judgement.fair, r.judgement.text()
        assert isinstance(s.close_reason, p.Bye)
        assert s.close_reason.reason.startswith("match over")
    # The two seats hold transcripts of the same hands with the same public log.
    for ra, rb in zip(a.session.history, b.session.history, strict=True):
        assert ra.proof is not None
        assert rb.proof is not None
        assert transcript_of(ra).log == transcript_of(rb).log
        assert transcript_of(ra).seat != transcript_of(rb).seat


def test_events_are_numbered_and_each_view_follows_its_events() -> None:
    net = TableNet(config(hands=1))
    a, _ = net.join("ann"), net.join("bob")
    net.run(lambda: over(net))
    seqs: list[int] = []
    last_events = 0
    for m in a.received:
        if isinstance(m, p.Hand):
            seqs, last_events = [], 0
        elif isinstance(m, p.Events):
            seqs.append(m.seq)
            last_events = m.seq
        elif isinstance(m, p.SeatView):
            assert m.seq == last_events
    assert seqs == list(range(1, len(seqs) + 1))
    assert len(seqs) > 5


def test_no_client_ever_receives_another_seats_cards() -> None:
    net = TableNet(config(hands=2), seed=7)
    a, b = net.join("ann"), net.join("bob")
    watcher = net.join("eve", spectate=True, bot=None)
    net.run(lambda: over(net))
    for link, seat in ((a, 0), (b, 1), (watcher, None)):
        for ev in of(link, p.Events):
            for kind, s, value in ev.events:
                if kind in ("deal", "draw") and s != seat:
                    assert value == -1, (link.session.name, kind, s, value)
        for v in of(link, p.SeatView):
            assert v.seat == seat
            if seat is None:
                assert v.hand == ()
                assert v.legal == ()
            else:
                assert len(v.hand) == v.counts[seat]
    assert len(watcher.session.history) == 2
    assert all(r.proof is None for r in watcher.session.history)  # a spectator has none
    assert of(watcher, p.HandOver)
    assert all(m.cards_signature == b"" for m in of(watcher, p.HandOver))


def test_the_first_events_carry_the_setup_note_and_reveals_come_after_the_hand() -> None:
    net = TableNet(config(hands=1))
    a, _ = net.join("ann"), net.join("bob")
    net.run(lambda: over(net))
    kinds = [type(m).__name__ for m in a.received]
    assert kinds.index("Hand") < kinds.index("Announce") < kinds.index("Events")
    assert kinds.index("HandOver") < kinds.index("Reveals") < kinds.index("LogHeads")
    first = of(a, p.Events)[0]
    assert first.log[0][0:1] == b"\x07" or len(first.log) > 1  # the setup note leads


# ---------------------------------------------------------------------------------------------
# Refusals: each leaves the table as it was


def ready_table(**kw: object) -> tuple[TableNet, Link, Link]:
    net = TableNet(config(**kw))
    a = net.join("ann", bot=None)
    b = net.join("bob", bot=None)
    net.run(lambda: a.session.view is not None and a.session.view.turn >= 0)
    return net, a, b


def to_act(net: TableNet, a: Link, b: Link) -> tuple[Link, Link]:
    """(the link whose turn it is, the other), after bots have moved."""
    net.run(lambda: a.session.my_turn() or b.session.my_turn())
    return (a, b) if a.session.my_turn() else (b, a)


def test_a_move_out_of_turn_is_refused() -> None:
    net, a, b = ready_table()
    _me, other = to_act(net, a, b)
    seq = net.host.hand.seq if net.host.hand else -1
    net.send(other, other.session.move(DRAW))
    assert of(other, p.Reject)[-1].code is p.ErrorCode.NOT_YOUR_TURN
    assert net.host.hand is not None
    assert net.host.hand.seq == seq


def test_a_stale_move_is_refused_and_a_current_one_lands() -> None:
    net, a, b = ready_table()
    me, _ = to_act(net, a, b)
    s = me.session
    seq = s.seq
    net.send(me, p.Move(seq=seq - 1, move=s.view.legal[0] if s.view else DRAW))
    reject = of(me, p.Reject)[-1]
    assert reject.code is p.ErrorCode.STALE_VIEW
    assert reject.seq == seq - 1
    assert s.seq == seq
    net.send(me, s.move(s.view.legal[0] if s.view else DRAW))
    assert s.seq > seq


def test_an_illegal_move_is_refused_with_the_engines_reason() -> None:
    net, a, b = ready_table()
    me, _ = to_act(net, a, b)
    s = me.session
    assert s.view is not None
    illegal = next(c for c in range(52) if c not in s.view.legal)
    seq = s.seq
    net.send(me, s.move(illegal))
    reject = of(me, p.Reject)[-1]
    assert reject.code is p.ErrorCode.ILLEGAL_MOVE
    assert reject.text
    assert s.seq == seq


def test_lobby_requests_during_a_hand_are_refused() -> None:
    net, a, _ = ready_table()
    for message in (p.Sit(seat=None), p.Stand()):
        net.send(a, message)
        assert of(a, p.Reject)[-1].code is p.ErrorCode.NOT_NOW


def test_a_commitment_out_of_its_round_is_refused() -> None:
    net, a, _ = ready_table()
    net.send(a, p.Commit(round=5, commitment=bytes(32), signature=bytes(64)))
    assert of(a, p.Reject)[-1].code is p.ErrorCode.FAIR_DEAL


def test_a_wrong_password_ends_the_connection() -> None:
    net = TableNet(config(password="hunter2"))
    bad = net.join("ann", password="nope")
    assert of(bad, p.Error)[-1].code is p.ErrorCode.BAD_PASSWORD
    assert not bad.alive
    good = net.join("bob", password="hunter2")
    assert of(good, p.Welcome)


def test_names_are_made_unique_and_the_table_takes_a_bounded_number_of_clients() -> None:
    net = TableNet(config(seats=2, bots=0))
    a, b = net.join("ann"), net.join("ann")
    assert a.session.seat == 0
    assert b.session.seat == 1
    lobby = of(b, p.LobbyState)[-1]
    assert [s.name for s in lobby.seats] == ["ann", "ann 2"]
    links = [net.join(f"w{i}", spectate=True) for i in range(MAX_CLIENTS)]
    refused = [link for link in links if of(link, p.Error)]
    assert len(refused) == 2  # ann and bob hold two of the places
    assert all(of(link, p.Error)[0].code is p.ErrorCode.TABLE_FULL for link in refused)


def test_chat_is_passed_on_with_the_senders_name_and_a_flood_is_refused() -> None:
    net = TableNet(config())
    a, b = net.join("ann"), net.join("bob")
    for i in range(7):
        net.send(a, p.Chat(text=f"hello {i}"))
    lines = of(b, p.Chat)
    assert [c.sender for c in lines] == ["ann"] * 5
    assert lines[0].text == "hello 0"
    assert of(a, p.Reject)[-1].code is p.ErrorCode.RATE_LIMITED
    net.tick(net.now + 6)
    net.send(a, p.Chat(text="again"))
    assert of(b, p.Chat)[-1].text == "again"


def test_a_ready_refused_as_too_fast_is_said_again_after_the_refusal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ready the rate limit drops is refused every time (as a move is), and a session that
    said it by itself says it again when its shell retries: else the next hand would wait for
    this seat for ever."""
    from lanswitch.host import _core

    monkeypatch.setattr(_core, "RATE_LIMIT", 2)
    net = TableNet(config(seats=2, bots=0))
    net.join("ann", auto_ready=False)
    bob = net.join("bob", auto_ready=False)
    seat = bob.session.seat
    assert seat is not None
    for text in ("one", "two", "three"):  # bob's window is spent
        net.send(bob, p.Chat(text=text), at_once=True)
    refused = len(of(bob, p.Reject))
    bob.session.auto_ready = True
    for _ in range(2):  # said by the session and by hand: both refused, both told
        net.send(bob, p.Ready(ready=True), at_once=True)
    rejects = of(bob, p.Reject)[refused:]
    assert [r.code for r in rejects] == [p.ErrorCode.RATE_LIMITED] * 2
    assert bob.session.lobby is not None
    assert not bob.session.lobby.seats[seat].ready
    net.now += 1.0  # the shell waits out the limit, then asks what to say again
    again = bob.session.retry()
    assert again == [p.Ready(ready=True)]
    net.send(bob, again[0])
    assert bob.session.lobby.seats[seat].ready
    assert bob.session.retry() == []  # said, and shown: nothing more to say


def test_the_host_can_kick_a_player() -> None:
    net = TableNet(config(hands=None, seats=3, bots=0))
    a = net.join("ann", auto_ready=False)
    net.join("bob", auto_ready=False)
    net.host.kick(0)
    net.pump()
    assert of(a, p.Error)[-1].code is p.ErrorCode.KICKED
    assert net.host.table.seats[0].kind == "empty"


# ---------------------------------------------------------------------------------------------
# Resuming and away players


def test_a_player_who_loses_the_link_resumes_the_same_seat_and_hand() -> None:
    net = TableNet(config(hands=1), seed=3)
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: a.session.seq >= 6)
    hand_no = a.session.hand.message.hand_no if a.session.hand else -1
    seat = a.session.seat
    net.drop(a)
    lobby = of(b, p.LobbyState)[-1]
    assert lobby.seats[0].connected is False
    net.run(lambda: b.session.seq >= a.session.seq + 3)  # the table goes on (bots, bob)
    a2 = net.resume(a)
    welcome = of(a2, p.Welcome)[-1]
    assert welcome.seat == seat
    assert of(a2, p.Hand)[-1].hand_no == hand_no
    assert a2.session.seq == b.session.seq  # caught up
    assert not of(a2, p.Reject)  # the replayed rounds raise no complaint
    net.run(lambda: over(net))
    (record,) = a2.session.history
    assert record.judgement is not None
    assert record.judgement.fair, record.judgement.text()


def test_a_resume_with_another_key_is_refused() -> None:
    net = TableNet(config())
    a = net.join("ann")
    token = a.session.token
    assert token is not None
    other = Session("mallory", key=net.host.key, entropy=net.rng.randbytes)
    other.token = token
    link = net._open(other)
    assert of(link, p.Error)[-1].code is p.ErrorCode.BAD_TOKEN


def _thief(net: TableNet, key: bytes, name: str = "mallory", *, spectate: bool = False) -> Link:
    """A client that says hello with another player's public session key (read off the
    lobby, where every seat's key is shown): it has not the private key, only the name."""
    thief = Session(name, key=net.host.key, entropy=net.rng.randbytes, spectate=spectate)
    thief.public_key = key
    return net._open(thief)


def test_a_hello_with_a_session_key_someone_at_the_table_holds_is_refused() -> None:
    """Issue #15, item 2: the host let a second client in with a key already at the table;
    now only the token the key came with brings it back (and the owner's seat is untouched,
    in the lobby, away, and back)."""
    net = TableNet(config(seats=3, bots=1, hands=None))
    a = net.join("ann", auto_ready=False)
    b = net.join("bob", auto_ready=False)
    key = a.session.public_key
    before = of(b, p.LobbyState)[-1]
    for spectate in (False, True):
        thief = _thief(net, key, spectate=spectate)
        (error,) = of(thief, p.Error)
        assert error.code is p.ErrorCode.BAD_TOKEN
        assert error.text == Refusal.KEY_IN_USE.value
        assert not of(thief, p.Welcome)
        assert not thief.alive
    assert of(b, p.LobbyState)[-1] == before  # nobody came, nobody moved
    assert a.session.seat == 0
    net.drop(a)  # away: the seat and the key are kept for ann's resume
    assert of(_thief(net, key), p.Error)[-1].code is p.ErrorCode.BAD_TOKEN
    a2 = net.resume(a)
    assert of(a2, p.Welcome)[-1].seat == 0
    assert of(a2, p.LobbyState)[-1].you == 0
    a3 = net.resume(a2)  # with the old connection still open: the host closes that one
    assert of(a3, p.Welcome)[-1].seat == 0
    assert of(a3, p.LobbyState)[-1].you == 0
    a2 = a3
    net.send(b, p.Chat(text="still here"))
    assert of(a2, p.Chat)[-1].sender == "bob"


def test_a_stranger_without_the_password_learns_nothing_of_the_keys() -> None:
    net = TableNet(config(password="tea"))
    a = net.join("ann", password="tea")
    assert of(a, p.Welcome)
    thief = Session("mallory", key=net.host.key, entropy=net.rng.randbytes, password="nope")
    thief.public_key = a.session.public_key
    assert of(net._open(thief), p.Error)[-1].code is p.ErrorCode.BAD_PASSWORD


def test_each_client_is_told_its_own_seat_in_the_lobby() -> None:
    """``lobby.you``: the host's word on the seat of the client it is sent to."""
    net = TableNet(config(seats=3, bots=0, hands=None))
    a = net.join("ann", auto_ready=False)
    b = net.join("bob", auto_ready=False)
    w = net.join("wes", spectate=True)
    assert [of(link, p.LobbyState)[-1].you for link in (a, b, w)] == [0, 1, None]
    net.send(b, p.Sit(seat=2))  # moves
    assert of(b, p.LobbyState)[-1].you == 2
    assert [link.session.seat for link in (a, b, w)] == [0, 2, None]
    # One lobby, alike but for ``you``.
    assert replace(of(a, p.LobbyState)[-1], you=None) == of(w, p.LobbyState)[-1]


def test_the_hosts_own_name_is_cleaned_as_a_joiners_is() -> None:
    """Issue #15, item 7: a tab in ``--name`` went out raw, the host's every welcome failed
    its own check of what it sends, and nobody could join."""
    assert HostConfig(name="Kitchen\ttable").name == "Kitchen table"
    assert HostConfig(name="\u202eKitchen\u200b\u0085").name == "Kitchen"
    assert HostConfig(name="x" * 40).name == "x" * 32
    for nothing in ("\t", "\u200b\u202e", "\u0301\u0301"):
        with pytest.raises(ValueError, match="no visible characters"):
            HostConfig(name=nothing)
    net = TableNet(config(name="Kitchen\ttable"))
    a = net.join("ann\tb")
    assert of(a, p.Welcome)[-1].table == "Kitchen table"
    assert of(a, p.LobbyState)[-1].table == "Kitchen table"
    assert of(a, p.LobbyState)[-1].seats[0].name == "ann b"


def test_a_stand_in_plays_for_an_away_player_after_the_grace_period() -> None:
    net = TableNet(config(hands=1, away_grace=10.0), seed=5)
    a, _b = net.join("ann"), net.join("bob")
    net.run(lambda: a.session.my_turn())
    net.drop(a)
    t0 = net.now
    hand = net.host.hand
    assert hand is not None
    seq = hand.seq
    net.tick(t0 + 9.0)
    assert hand.seq == seq  # still waiting for ann
    net.run(lambda: hand.seq > seq)
    assert net.now >= t0 + 10.0
    net.run(lambda: over(net) or net.host.hand is None)


def test_a_silent_connection_is_pinged_then_dropped() -> None:
    net = TableNet(config(hands=None))
    a = net.join("ann", auto_ready=False)
    a.mute = True
    net.tick(PING_AFTER + 0.1)
    assert of(a, p.Ping)
    net.tick(DROP_AFTER + 0.2)
    assert not a.alive
    assert 0 in net.host.away  # the seat is kept for a resume


def test_in_play_a_spectator_is_pinged_late_and_every_seated_player_soon() -> None:
    """Issue #17: a host of many tables pinged every viewer after two seconds of silence,
    though in play a viewer only listens: a spectator is pinged only after
    ``IDLE_PING_AFTER``, and dropped if it does not answer. A seated player is not left to
    that pace (issue 26): its seat goes to a stand-in once its link is down past the grace,
    so the host must notice a dead link within seconds whoever's turn it is."""
    net = TableNet(config(seats=2, bots=0, hands=None))
    a, b = net.join("ann", bot=None), net.join("bob", bot=None)  # neither moves by itself
    eve = net.join("eve", spectate=True)
    net.run(lambda: a.session.my_turn() or b.session.my_turn())
    actor, viewer = (a, b) if a.session.my_turn() else (b, a)
    viewer.mute = eve.mute = True
    eve_heard = net.host.conns[eve.cid].heard
    net.tick(net.now + PING_AFTER + 0.5)
    assert of(actor, p.Ping), "the seat to act is pinged after PING_AFTER"
    assert of(viewer, p.Ping), "so is a seated player who is not to act"
    assert not of(eve, p.Ping), "a spectator is not pinged as soon"
    net.tick(net.now + PONG_WAIT + 0.5)
    assert not viewer.alive, "a seated player that does not answer is dropped"
    net.tick(eve_heard + IDLE_PING_AFTER + 0.1)
    assert of(eve, p.Ping)
    assert eve.alive
    net.tick(net.now + PONG_WAIT + 0.5)
    assert not eve.alive


def test_a_player_whose_link_dies_while_another_acts_is_away_at_once_with_a_countdown() -> None:
    """Issue 26 item 5: bob's link died while ann was to act, and nobody heard of it until
    bob resumed ("bob is away" and "bob is back" in one instant). Now within ``DROP_AFTER``
    every other client gets a lobby that says bob is away, with the grace left before the
    stand-in (``grace_ms``, from the host's own deadline) — counting down, lobby by lobby."""
    net = TableNet(config(seats=3, bots=0, hands=None, away_grace=5.0))
    people = [net.join(n, bot=None) for n in ("ann", "bob", "cid")]
    net.run(lambda: any(x.session.my_turn() for x in people))
    actor = next(x for x in people if x.session.my_turn())
    dead, watcher = [x for x in people if x is not actor]
    seat = dead.session.seat
    assert seat is not None
    dead.mute = True  # its link is cut: it says nothing, and nothing it says arrives
    t0 = net.now
    net.tick(t0 + DROP_AFTER + 0.5)
    assert not dead.alive
    gone_at = net.host.away[seat]
    assert gone_at <= t0 + DROP_AFTER + 0.5
    told = [m.seats[seat] for m in of(watcher, p.LobbyState) if not m.seats[seat].connected]
    assert told, "the others are told bob is away"
    assert told[-1].grace_ms == 5000  # the host's whole grace, from the moment it dropped him
    assert watcher.session.lobby is not None
    assert not watcher.session.lobby.seats[seat].connected


def test_at_a_dealer_blind_table_everyone_is_pinged_soon_in_play() -> None:
    """A dealer-blind hand waits on every participant (each owes keys as cards are drawn and
    laid), so in play a silent viewer there is pinged after ``PING_AFTER`` as in the lobby."""
    net = TableNet(config(seats=2, bots=0, hands=None, blind=True))
    a, b = net.join("ann", bot=None), net.join("bob", bot=None)
    net.run(lambda: a.session.my_turn() or b.session.my_turn())
    viewer = b if a.session.my_turn() else a
    viewer.mute = True
    net.tick(net.now + PING_AFTER + 0.5)
    assert of(viewer, p.Ping)


def test_the_turn_timer_plays_the_safe_move_and_the_view_shows_the_time_left() -> None:
    net = TableNet(config(hands=1, turn_timer=20.0), seed=11)
    a = net.join("ann", bot=None)
    b = net.join("bob", bot=None)
    net.run(lambda: a.session.my_turn() or b.session.my_turn())
    me = a if a.session.my_turn() else b
    assert 0 < me.session.timer_ms <= 20_000
    assert of(me, p.LobbyState)[-1].turn_timer == 20
    seq = me.session.seq
    events_before = len(of(me, p.Events))
    net.tick(net.now + 20.0)
    assert me.session.seq > seq
    made = of(me, p.Events)[events_before].events
    assert any(kind in ("draw", "play", "pass") for kind, _, _ in made)
    net.run(lambda: bool(a.session.history and b.session.history))
    for link in (a, b):  # a timeout that ran its course is not disputed
        (record,) = link.session.history
        assert record.judgement is not None
        assert record.judgement.status == "fair"
        assert record.proof is not None
        assert not transcript_of(record).disputes


def test_a_seat_that_never_commits_voids_the_hand_and_is_blamed() -> None:
    """Bob's client answers pings but never commits: after the round's wait the hand is void,
    blaming bob on the host's word; once the cards were dealt, bob forfeits it. (At the deal a
    message "that never came" is the host's word: it must not cost bob a hand he never saw.)"""
    net = TableNet(config(hands=2, round_timeout=5.0), seed=2)
    a = net.join("ann")
    b = net.join("bob", auto_ready=False)
    b.withhold = (p.Commit,)
    net.send(b, p.Ready(ready=True))
    net.run(lambda: bool(of(a, p.Abort)))
    abort = of(a, p.Abort)[-1]
    assert abort.round == 0
    assert abort.fault == "missing_commitment"
    assert abort.culprits == ("seat1",)
    net.run(lambda: bool(a.session.history))
    record = a.session.history[0]
    assert record.over.reason == "void"  # before the deal, on the host's word: no forfeit
    assert record.judgement is not None
    assert record.judgement.status == "void"
    assert record.judgement.culprits == ("seat1",)
    assert not record.judgement.proven
    assert record.judgement.forfeit == ()
    assert a.session.voids.count == 1
    assert a.session.voids.by_host == 1  # blame on the host's word alone is counted as its


def test_a_void_hands_culprit_that_never_signs_the_log_leaves_it_void() -> None:
    """The culprit of a void (here: it never commits) is often a player whose link died, so
    its log head never comes either; the other seats' verdict stays VOID, blaming it."""
    net = TableNet(config(hands=1, round_timeout=5.0, heads_timeout=5.0), seed=3)
    a = net.join("ann")
    b = net.join("bob", auto_ready=False)
    b.withhold = (p.Commit, p.LogHead)
    net.send(b, p.Ready(ready=True))
    net.run(lambda: bool(a.session.history))
    record = a.session.history[0]
    assert record.judgement is not None
    assert record.judgement.status == "void", record.judgement.text()
    assert record.judgement.culprits == ("seat1",)


def test_a_hand_void_in_its_first_round_is_void_for_the_others() -> None:
    """Void before any step was sent: the setup note the host signed still reaches every
    seat (it used to travel only with the first step, so the seats' logs were one short)."""
    net = TableNet(config(seats=3, bots=1, round_timeout=5.0, heads_timeout=5.0), seed=3)
    a = net.join("ann")
    b = net.join("bob", auto_ready=False)
    b.withhold = (p.Commit,)
    net.send(b, p.Ready(ready=True))
    net.run(lambda: bool(a.session.history), steps=2000)
    assert of(a, p.Abort)[0].round == 0
    record = a.session.history[0]
    assert record.judgement is not None
    assert record.judgement.status == "void", record.judgement.text()
    assert record.judgement.culprits == ("seat1",)


def test_a_long_sessions_log_keeps_the_latest_lines_and_loses_none_a_shell_reads() -> None:
    net = TableNet(config(seats=3, bots=2, hands=None), seed=6)
    printed: list[str] = []
    shown = 0
    for k in range(1500):  # 3,000 lines: joined, left
        link = net.join(f"p{k}", spectate=True)
        net.send(link, p.Bye(reason="bye"))
        lines, shown = net.host.log_since(shown)
        printed += lines
    assert len(net.host.log) <= 2 * LOG_KEEP
    assert len(printed) == shown == net.host.log_start + len(net.host.log)
    assert printed[:2] == ["p0 joined to watch", "p0 left"]
    assert printed[-1] == "p1499 left"


@pytest.mark.parametrize("seed", [4, 9])
def test_a_player_who_leaves_mid_hand_is_logged_away_and_the_hand_goes_on(seed: int) -> None:
    """Bob says bye mid-hand after signing the log he saw: the log says he left (with that
    signed head), the host plays his seat from then on, later rounds run without him, nobody
    waits, and the others' verdict is fair, naming him. Never void (v1 voided the hand at the
    next reshuffle, which needed his seed)."""
    net = TableNet(config(hands=1, heads_timeout=30.0), seed=seed)
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: b.session.seq > 10)
    leaving = b.session.leave()
    assert [type(m) for m in leaving] == [p.LogHead, p.Bye]
    for m in leaving:
        net.send(b, m)
    b.alive = False  # bob's program has gone
    net.links.pop(b.cid)
    start = net.now
    net.run(lambda: over(net))
    assert net.now - start < 30.0  # nobody waited for a head that could not come
    (record,) = a.session.history
    assert record.judgement is not None
    assert record.judgement.fair, record.judgement.text()
    (gone,) = verdict_of(record).away
    assert (gone.pid, gone.how) == ("seat1", "left")
    log = transcript_of(record).log
    made = sum(isinstance(e, Move) for e in log[: gone.since])  # every seat's moves before
    total = sum(isinstance(e, Move) for e in log)
    assert made > 0
    assert (
        f"bob left after move {made} of {total} (had confirmed every move before that; the "
        "host played the seat after)"
    ) in record.judgement.text()  # moves, as a player counts them: not log events
    assert record.proof is not None
    away = [e for e in transcript_of(record).log if isinstance(e, Away)]
    assert [(e.seat, e.how) for e in away] == [(1, LEFT)]
    assert gone.confirmed == away[0].count
    later = [
        r for r in transcript_of(record).rounds if r.at > transcript_of(record).log.index(away[0])
    ]
    assert all(not r.first.mask >> 1 & 1 for r in later)  # later rounds ran without bob
    moves = [e for e in transcript_of(record).log if isinstance(e, Move) and e.seat == 1]
    after = transcript_of(record).log.index(away[0])
    assert moves
    assert all(
        e.by == BY_STAND_IN for e in moves if transcript_of(record).log.index(e) > after
    )  # the host played his seat, and said so


@pytest.mark.parametrize("seed", [4, 5, 11])
def test_a_player_whose_program_vanishes_mid_hand_leaves_the_others_a_fair_verdict(
    seed: int,
) -> None:
    """Bob's program dies mid-hand: no bye, no head. After the grace the host logs him away
    (his link lost, on its word) and plays his seat; the hand goes on and the others' verdict
    is fair, naming him and how far he confirmed the log (his last signed move)."""
    net = TableNet(config(hands=1, heads_timeout=30.0, away_grace=2.0), seed=seed)
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: b.session.seq > 10)
    net.drop(b)  # bob's laptop dies for good
    net.run(lambda: over(net))
    (record,) = a.session.history
    assert record.judgement is not None
    assert record.proof is not None
    assert record.judgement.fair, record.judgement.text()
    (gone,) = verdict_of(record).away
    assert (gone.pid, gone.how) == ("seat1", "lost")
    assert gone.confirmed <= gone.since
    log = transcript_of(record).log
    made = sum(isinstance(e, Move) for e in log[: gone.since])
    seen = sum(isinstance(e, Move) for e in log[: gone.confirmed])
    total = sum(isinstance(e, Move) for e in log)
    assert 0 < seen <= made
    confirmed = "every move before that" if seen == made else f"the moves to move {seen}"
    assert (
        f"bob lost the link, says the host, after move {made} of {total} (had confirmed "
        f"{confirmed}; the host played the seat after)"
    ) in verdict_line(record)
    assert verdict_of(record).as_json()["away"][0]["how"] == "lost"
    said = [n.text for n in a.session.news if n.kind == "presence"]  # live, not only after
    assert said == ["bob lost the link, says the host: the host plays the seat until bob is back"]


def test_a_log_head_that_is_not_of_the_hosts_log_is_refused() -> None:
    """A client cannot make the others' checks blame the host by signing a log it was not
    sent: the host compares every head with its own log."""
    net = TableNet(config(hands=1), seed=10)
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: b.session.seq > 5)
    h = b.session.hand
    rec = h.part.recorder if h is not None and isinstance(h.part, CommitPart) else None
    assert rec is not None
    signed = rec.sign_head()
    bogus = bytes(32)
    sig = sign(b.session.key, log_head_message(rec.setup.ctx0, rec.id, signed.count, bogus))
    net.send(b, p.LogHead(count=signed.count, head=bogus, signature=sig))
    assert of(b, p.Reject)[-1].code is p.ErrorCode.FAIR_DEAL
    net.send(b, p.LogHead(count=signed.count + 99, head=signed.head, signature=signed.signature))
    assert len(of(b, p.Reject)) == 2
    net.run(lambda: over(net))
    for link in (a, b):
        (record,) = link.session.history
        assert record.judgement is not None
        assert record.judgement.fair, record.judgement.text()


def test_the_hand_waits_for_every_seated_player_to_be_ready() -> None:
    net = TableNet(config(hands=1))
    a = net.join("ann", auto_ready=False)
    b = net.join("bob", auto_ready=False)
    net.send(a, p.Ready(ready=True))
    assert net.host.hand is None
    assert of(b, p.LobbyState)[-1].seats[0].ready is True
    net.send(b, p.Ready(ready=True))
    assert net.host.hand is not None
    assert of(a, p.LobbyState)[-1].playing is True


def test_a_match_won_on_points_is_followed_by_a_rematch_with_fresh_scores() -> None:
    base = PRESETS["two-four-jack"]
    quick = replace(base, scoring=replace(base.scoring, mode="winner_collects", target=1))
    net = TableNet(config(rules=quick, hands=None, seats=2, bots=0), seed=4)
    a, _ = net.join("ann"), net.join("bob")
    net.run(lambda: len(a.session.history) >= 3)
    hands = [m.hand_no for m in of(a, p.Hand)]
    games = [m.game_id for m in of(a, p.Hand)]
    assert hands[:3] == [1, 1, 1]  # each match won in one hand; the next starts afresh
    assert len(set(games[:3])) == 3  # a new game id per match
    scores = [m.scores for m in of(a, p.LobbyState) if m.hands == 1 and not m.playing]
    assert scores
    assert all(max(sc) >= 1 for sc in scores)
    assert not net.host.finished  # without --hands the table stays open
    dealers = [m.dealer for m in of(a, p.Hand)]
    assert dealers[1] != dealers[0] or dealers[2] != dealers[1]  # the deal moves on


def test_a_player_who_joins_during_a_hand_watches_it_then_takes_a_free_seat() -> None:
    net = TableNet(config(hands=None, seats=3, bots=1, away_grace=5.0), seed=8)
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: a.session.seq >= 3)
    net.drop(b)  # bob's laptop dies for good
    carol = net.join("carol")
    assert carol.session.seat is None
    assert of(carol, p.Hand)  # she is caught up on the hand, as a spectator
    assert all(v.seat is None for v in of(carol, p.SeatView))
    net.run(lambda: carol.session.seat is not None, steps=50_000)
    assert carol.session.seat == 1  # bob's seat, given up after the grace period
    net.run(lambda: any(m.seat == 1 for m in of(carol, p.SeatView)), steps=50_000)


def test_a_flood_of_messages_is_refused_then_cut_off() -> None:
    from lanswitch.host import RATE_LIMIT

    net = TableNet(config(hands=None))
    a, b = net.join("ann", auto_ready=False), net.join("bob", auto_ready=False)
    net.tick(net.now + 1.0)  # a fresh second
    for _ in range(RATE_LIMIT - 5):  # within the limit: every ping is answered
        net.send(a, p.Ping(nonce=1), at_once=True)
    assert len(of(a, p.Pong)) == RATE_LIMIT - 5
    for _ in range(3 * RATE_LIMIT):  # the same second
        if not a.alive:
            break
        net.send(a, p.Ping(nonce=2), at_once=True)
    assert [r.code for r in of(a, p.Reject)] == [p.ErrorCode.RATE_LIMITED]
    assert of(a, p.Error)[-1].code is p.ErrorCode.RATE_LIMITED
    assert not a.alive
    net.send(b, p.Ping(nonce=3))  # the others are unaffected
    assert of(b, p.Pong)[-1].nonce == 3
    net.tick(net.now + 1.5)  # a new second: a new allowance for a polite client
    c = net.join("carol", auto_ready=False)
    net.send(c, p.Ping(nonce=4))
    assert of(c, p.Pong)[-1].nonce == 4


def test_a_connection_that_never_says_hello_is_dropped() -> None:
    from lanswitch.host import HANDSHAKE_TIMEOUT

    net = TableNet(config(hands=None))
    net.host.connect(99, net.now)  # TLS done, then silence
    net.tick(net.now + HANDSHAKE_TIMEOUT - 1)
    assert 99 in net.host.conns
    net.tick(net.now + 1.5)
    assert 99 not in net.host.conns
    assert 99 in [cid for cid, _ in net.host.outbox] or 99 not in net.host.conns


def test_a_round_whose_committed_player_goes_is_withdrawn_and_announced_anew() -> None:
    """Bob commits, then his laptop dies before the others have committed: nobody has been
    asked for a seed yet, so the host gives the round up, logs bob away and announces a new
    round without him — the hand goes on, and is fair (it used to be void, blaming everyone
    whose seed was not in)."""
    net = TableNet(config(seats=3, bots=1, hands=1, away_grace=2.0), seed=6)
    a = net.join("ann", auto_ready=False)
    b = net.join("bob", auto_ready=False)
    a.withhold = (p.Commit,)  # ann is slow to commit: the round waits for her
    net.send(a, p.Ready(ready=True))
    net.send(b, p.Ready(ready=True))
    assert of(b, p.Announce)
    assert isinstance(net.host.hand, CommitHand)
    assert "seat1" in net.host.hand.dealer.rounds[0].round.commitments  # bob committed
    net.drop(b)
    a.withhold = ()
    net.run(lambda: bool(a.session.history))
    (record,) = a.session.history
    assert record.judgement is not None
    assert record.judgement.fair, record.judgement.text()
    assert record.proof is not None
    first, second = transcript_of(record).rounds[:2]
    assert first.first.mask == 0b011  # ann and bob
    assert second.first.mask == 0b001  # ann alone
    assert len(first.announces) == 1  # withdrawn at stage 1: no seed was asked for
    assert [a.pid for a in verdict_of(record).away] == ["seat1"]


def test_a_player_gone_before_revealing_is_blamed_alone() -> None:
    """Bob goes after the commitments were fixed and before he revealed: his seed cannot be
    replaced, so the hand is void — but only once ann, still here, has had the chance to
    reveal (her seed was slow), so that bob alone is blamed."""
    net = TableNet(config(seats=3, bots=1, hands=1, away_grace=2.0), seed=6)
    a = net.join("ann", auto_ready=False)
    b = net.join("bob", auto_ready=False)
    a.withhold = b.withhold = (p.Reveal,)
    net.send(a, p.Ready(ready=True))
    net.send(b, p.Ready(ready=True))
    net.drop(b)
    net.tick(net.now + 5.0)  # past bob's grace: ann's seed may still come
    assert not of(a, p.Abort)
    a.withhold = ()
    a = net.resume(a)  # her reveal is sent again on the new connection
    net.run(lambda: bool(a.session.history))
    abort = of(a, p.Abort)[-1]
    assert abort.culprits == ("seat1",)
    (record,) = a.session.history
    assert record.judgement is not None
    assert record.judgement.status == "void", record.judgement.text()
    assert record.judgement.culprits == ("seat1",)
    assert not record.judgement.proven


def test_a_host_with_nothing_due_sets_no_deadline_in_the_past() -> None:
    """Once a player who left is logged away, its grace is no deadline any more: a host that
    kept it asked its shell for a tick at once, again and again (the server's ticker spun and
    read no client: every player was dropped after 8 s)."""
    net = TableNet(config(hands=1, away_grace=1.0), seed=4)
    a, b = net.join("ann"), net.join("bob")
    net.run(lambda: b.session.seq > 10)
    for m in b.session.leave():
        net.send(b, m)
    b.alive = False
    net.links.pop(b.cid)
    hand = net.host.hand
    assert isinstance(hand, CommitHand)
    net.run(lambda: hand.dealer.is_away(1) and a.session.my_turn())
    deadline = net.host.next_deadline()
    assert deadline is None or deadline > net.now


def test_the_match_goes_on_without_a_player_whose_program_was_killed() -> None:
    """Three people, no bots: carl's program dies mid-hand and never comes back. The hand goes
    on (the host plays his seat), his seat is given up after ``seat_limit``, and the next hand
    is dealt to ann and bob, his seat sitting it out — the match is not stuck waiting."""
    net = TableNet(config(seats=3, bots=0, hands=2, away_grace=2.0, seat_limit=10.0), seed=7)
    a, _b, c = net.join("ann"), net.join("bob"), net.join("carl")
    net.run(lambda: c.session.seq > 6)
    net.drop(c)
    net.run(lambda: over(net), steps=50_000)
    assert [r.hand_no for r in a.session.history] == [1, 2]
    first, second = (r.judgement for r in a.session.history)
    assert first is not None
    assert second is not None
    assert first.fair, first.text()
    assert second.fair, second.text()
    assert net.host.table.seats[2].kind == "empty"
    assert a.session.history[1].proof is not None
    assert transcript_of(a.session.history[1]).setup.out == (2,)  # carl's seat sat hand 2 out


SEATS, SEED = 3, 1  # a table where ann's first turn of hand 2 is at a step she played in hand 1


def _first_turn_in_hand_2(act_at: int | None) -> tuple[int, bool, bool]:
    """Hands 1 and 2 at a seeded table where ann's moves are chosen by the net, except at
    step ``act_at`` of hand 1, chosen through a headless :class:`~lanswitch.client.Client`;
    that client is asked for ann's first move of hand 2. (ann's step in hand 2, whether the
    client acted at ``act_at`` in hand 1, whether it chose a move in hand 2.)"""
    from lanswitch.client import Client, Target  # (the shell; it sends nothing here)

    net = TableNet(config(hands=2, seats=SEATS, bots=SEATS - 2), seed=SEED)
    a = net.join("ann")
    net.join("bob")
    sent: list[p.Message] = []
    client = Client(
        a.session, Target("T", ("127.0.0.1",), 1, None, "x"), chooser=net.bot("heuristic")
    )
    client.send = sent.append  # type: ignore[method-assign, assignment]
    acted = False
    for _ in range(5000):
        s, h = a.session, a.session.hand
        if h is not None and s.my_turn() and h.message.hand_no == 2:
            client._maybe_act()
            return s.seq, acted, bool(sent)
        if h is not None and s.my_turn() and h.message.hand_no == 1 and s.seq == act_at:
            client._maybe_act()
            acted = True
            net.send(a, sent.pop())
            continue
        if not net.step():
            break
    raise AssertionError("ann never had a turn in hand 2")


def test_a_headless_client_chooses_afresh_in_each_hand() -> None:
    """Each hand counts its steps from 0. A client that remembered only the ``seq`` of the
    turn it last chose a move for took ann's first turn of hand 2 for the one it had played
    at the same step of hand 1, and never moved: the table stalled for good. (Seen over TLS
    after a hand ended void a few steps in.) It keys the turn by the hand too."""
    step, _, _ = _first_turn_in_hand_2(None)
    same_step, acted, moved = _first_turn_in_hand_2(step)  # the same table, seeded
    assert acted, "ann had no turn at that step of hand 1: choose another seed"
    assert same_step == step
    assert moved, f"no move chosen at step {step} of hand 2: taken for hand 1's"


# ---------------------------------------------------------------------------------------------
# The bots' level and hints (issue 28): the host's player sets them in the lobby


def test_the_host_sets_how_every_bot_plays_from_the_next_hand_and_the_lobby_says_so() -> None:
    net = TableNet(config(seats=4, bots=2, hands=3, bot_strategy="normal"), seed=5, journal=True)
    ann = net.join("ann", auto_ready=False)
    bob = net.join("bob", auto_ready=False)
    assert of(ann, p.LobbyState)[-1].bot_level == "normal"
    net.host.set_bot_level("easy")  # before the first hand: no "next" hand to speak of
    assert net.host.log[-1] == "the bots play easy"
    net.host.set_bot_level("normal")
    net.send(ann, p.Ready(ready=True))
    net.send(bob, p.Ready(ready=True))
    assert net.host.hand is not None
    with pytest.raises(Refused) as refused:
        net.host.set_bot_level("hard")  # not while a hand is in play
    assert refused.value.refusal is Refusal.IN_PLAY
    net.run(lambda: len(ann.session.history) == 1 and net.host.hand is None)

    net.send(ann, p.Ready(ready=True))  # ready, then the level changes: ready again
    net.host.set_bot_level("hard")
    net.pump()
    assert [s.bot for s in net.host.table.seats if s.kind == "bot"] == ["hard", "hard"]
    assert of(ann, p.LobbyState)[-1].bot_level == "hard"  # every client is told
    assert not net.host.table.seats[0].ready
    assert "the bots play hard from the next hand" in net.host.log
    with pytest.raises(Refused) as refused:
        net.host.set_bot_level("grandmaster")
    assert refused.value.refusal is Refusal.UNKNOWN_BOT
    net.host.remove_bot(3)
    net.host.add_bot(3)  # a bot added later plays at the table's level
    assert net.host.table.seats[3].bot == "hard"

    # A crashed host comes back with the level its journal says.
    ann, bob = net.crash()
    assert net.host.bot_level == "hard"
    assert [s.bot for s in net.host.table.seats if s.kind == "bot"] == ["hard", "hard"]
    assert of(ann, p.LobbyState)[-1].bot_level == "hard"
    net.send(ann, p.Ready(ready=True))
    net.send(bob, p.Ready(ready=True))
    hand = net.host.hand
    assert isinstance(hand, CommitHand)
    assert {type(bot).__name__ for bot in hand.bots.values()} == {"HardBot"}


def test_the_host_allows_hints_or_not_and_the_lobby_says_so() -> None:
    net = TableNet(config(seats=2, bots=1, hands=2), seed=6, journal=True)
    ann = net.join("ann", auto_ready=False)
    assert of(ann, p.LobbyState)[-1].hints is True  # allowed unless the host says otherwise
    net.host.set_hints(False)
    net.pump()
    assert of(ann, p.LobbyState)[-1].hints is False
    assert "hints are off at this table" in net.host.log
    (ann,) = net.crash()
    assert of(ann, p.LobbyState)[-1].hints is False
    net.send(ann, p.Ready(ready=True))
    with pytest.raises(Refused) as refused:
        net.host.set_hints(True)  # between hands, as every setting of the table
    assert refused.value.refusal is Refusal.IN_PLAY
    off = TableNet(config(hints=False), seed=6)
    assert of(off.join("bob"), p.LobbyState)[-1].hints is False
