"""Crash recovery, the pure half: a host's journal (``Host.inputs``) replays into a host in
exactly the state the first one was in (``Host.restore``), and a table whose host "dies"
mid-hand goes on from the restored one, its clients resuming with their tokens, every
transcript still verifying. The sqlite journal and ``--resume`` are in ``test_crash.py``."""

from __future__ import annotations

from collections.abc import Callable

import msgpack
import pytest

from lanswitch import protocol as p
from lanswitch.blindsession import BlindPart
from lanswitch.fairdeal.blind import file as blindfile
from lanswitch.fairdeal.primitives import public_bytes
from lanswitch.host import Host, HostConfig, ReplayError
from lanswitch.host._blind import BlindHand
from lanswitch.host._commit import CommitHand
from lanswitch.hosting import owner_session
from lanswitch.rules import PRESETS
from lanswitch.search import HardBot
from lanswitch.session import Session
from tests.records import blind_file_of
from tests.tablenet import Link, TableNet


def config(**kw: object) -> HostConfig:
    base: dict[str, object] = {"name": "T", "seats": 4, "bots": 2, "bot_delay": 0.3, "hands": 3}
    base.update(kw)
    return HostConfig(**base)  # type: ignore[arg-type]


def state(h: Host) -> str:
    """Everything the host knows that matters to the table (all but its outbox), written out
    (so a later change to a list it holds does not change a state taken earlier)."""
    hand = h.hand
    hand_state: object = None
    if isinstance(hand, BlindHand):
        hand_state = blind_state(hand)
    elif isinstance(hand, CommitHand):
        dealer = hand.dealer
        rounds = [
            (
                (o.number, o.cards, o.mask, o.at, o.announces, o.round.ctx, o.round.state),
                (o.round.commitments, o.round.seeds, o.round.blame),
            )
            for o in dealer.rounds
        ]
        seats = range(len(hand.pids))
        hand_state = (
            hand.steps,
            hand.published,
            rounds,
            [hand.game.view(s) for s in seats],
            hand.game.view(None),
            dealer.stage,
            sorted(dealer.presence.away),
            hand.round_deadline,
            hand.turn_since,
            hand.goodbyes,
            hand.over_messages,
            hand.reveals,
            hand.heads,
            hand.heads_deadline,
            hand.heads_message,
            dealer.log.head,
            dealer.void,
        )
    m = h.match
    return repr(
        (
            repr(h.table.seats),
            sorted(repr(c) for c in h.table.clients.values()),
            h.table.in_play,
            h.keys,
            h.away,
            h.finished,
            h.game_id,
            public_bytes(h.key),
            sorted(h.quit),
            sorted(h.freed),
            (m.dealer, m.hand_no, m.totals, m.wins, [r.placings for r in m.results], m.over),
            hand_state,
            {cid: repr(c) for cid, c in h.conns.items()},
            h.next_deadline(),
            h.rules_name,
            h.owner_key,
            h.now,
        )
    )


def blind_state(b: BlindHand) -> object:
    """A dealer-blind hand's part of :func:`state`: what the host relayed and keeps for
    catching up, what it waits for and when, its own secrets (seeds, the keys released to it,
    its cards) and its follower's record — every shuffle's passes, the turn-ups, the moves,
    who left — and the engine's view of every seat."""
    part, f = b.part, b.part.follower
    holder = part.holder
    seats = range(len(b.setup.seats))
    return (
        b.message,
        b.published,
        b.sealed,
        b.shares,
        b.owed,
        sorted(b.delivered),
        b.abort,
        b.leaving,
        b.seeds,
        b.complaints,
        b.deadline_at,
        b.turn_since,
        b.seeds_deadline,
        repr(b.outcome),
        b.over,
        sorted(b.bots),
        (holder.seeds, holder.received, holder.cards),
        (part._owed, sorted(part._passed), sorted(part._shared)),
        (f.shuffles, f.moves, f.steps, f.openings, f.drawn, f.leaves, f.gone, f.stopped),
        [f.game.view(s) for s in seats],
        f.game.view(None),
        b.game.view(None),
        b.awaited(),
        b.seq,
    )


@pytest.mark.parametrize("blind", [False, True], ids=["commit-reveal", "dealer-blind"])
def test_a_journal_restores_the_exact_state_at_every_point_of_a_match(blind: bool) -> None:
    # (A blind table has no turn timer: the host cannot know a turn's cards to play one.)
    timer = {"blind": True} if blind else {"turn_timer": 5.0}
    net = TableNet(config(**timer), seed=11, journal=True)
    a, b = net.join("ann"), net.join("bob")
    net.send(b, p.Chat(text="hello"))
    checkpoints: list[tuple[int, str]] = []
    mid_blind = 0  # checkpoints taken in a dealer-blind hand
    for i in range(20_000):
        if net.host.finished:
            break
        if i == 40:
            net.drop(a)  # a lost link: away, then back with its token
        if i == 41:
            a = net.resume(a)
        if i % 7 == 0:
            checkpoints.append((len(net.host.inputs), state(net.host)))
            mid_blind += isinstance(net.host.hand, BlindHand)
        if not net.step():
            break
    assert net.host.finished
    checkpoints.append((len(net.host.inputs), state(net.host)))
    assert len(checkpoints) > 20
    records = list(net.host.inputs)
    for n, expected in checkpoints:
        restored = Host.restore(records[:n], entropy=net.rng.randbytes)
        assert state(restored) == expected, f"after {n} records"
        assert restored.outbox == []
        assert restored.closing == []
    deal = "dealer-blind" if blind else "commit-reveal"
    for link in (a, b):
        fair = [
            r.judgement is not None and r.judgement.fair and r.deal.name == deal
            for r in link.session.history
        ]
        assert fair == [True] * 3, [str(r.judgement) for r in link.session.history]
    if blind:  # every hand was dealt blind, and most checkpoints fell in one
        assert all(r.judgement is not None for r in a.session.history)
        assert mid_blind > len(checkpoints) // 2, (mid_blind, len(checkpoints))


@pytest.mark.parametrize("moment", [3, 25, 70, 140])
def test_after_a_crash_the_clients_resume_and_the_match_completes_fair(moment: int) -> None:
    net = TableNet(config(rules=PRESETS["irish"]), seed=moment, journal=True)
    links = [net.join("ann"), net.join("bob")]
    for _ in range(moment):
        net.step()
    seen = {link.session.name: link.session.seq for link in links}
    links = net.crash()
    assert len(links) == 2
    for link in links:  # nothing a client was shown is missing from the restored host
        assert link.session.seq >= seen[link.session.name]
        assert isinstance(link.received[0], p.Welcome)
    net.run(lambda: net.host.finished)
    for link in links:
        s = link.session
        assert [r.hand_no for r in s.history] == [1, 2, 3]
        for r in s.history:
            assert r.judgement is not None
            assert r.judgement.fair, r.judgement.text()


def test_the_hosts_own_powers_are_journaled_too() -> None:
    net = TableNet(config(bots=0, hands=1), seed=5, journal=True)
    net.host.owner_key = b"k" * 32
    net.host.add_bot(3)
    net.host.set_rules(PRESETS["turbo"], "turbo")
    a = net.join("ann")
    net.host.kick(0)
    net.pump()
    with pytest.raises(Exception, match="no"):
        net.host.kick(2)  # no one there: refused, and the refusal replays as a refusal
    assert not a.alive
    restored = Host.restore(list(net.host.inputs), entropy=net.rng.randbytes)
    assert state(restored) == state(net.host)
    assert restored.rules_name == "turbo"
    assert restored.owner_key == b"k" * 32


def test_a_seat_given_up_by_the_host_is_journaled() -> None:
    """``give_up`` is a call the journal replays: a host restored after it has bob's seat
    freed and a bot in it, as the crashed one had."""
    net = TableNet(config(hands=None), seed=6, journal=True)
    net.join("ann", auto_ready=False)
    bob = net.join("bob", auto_ready=False)
    net.send(bob, p.Ready(ready=True))
    net.drop(bob)  # in the lobby, seated: away, the seat kept for seat_limit
    away = next(iter(net.host.away))
    with pytest.raises(Exception, match="no such player"):
        net.host.give_up(away + 1)  # not away: refused, and replayed as a refusal
    net.host.give_up(away)
    assert away not in net.host.away
    net.pump()
    restored = Host.restore(list(net.host.inputs), entropy=net.rng.randbytes)
    assert state(restored) == state(net.host)
    assert away not in restored.away


def test_a_journal_that_is_not_one_is_refused_with_a_reason() -> None:
    net = TableNet(config(), seed=2, journal=True)
    net.join("ann")
    records = list(net.host.inputs)
    entropy = net.rng.randbytes
    with pytest.raises(ReplayError, match="empty"):
        Host.restore([], entropy=entropy)
    with pytest.raises(ReplayError, match="settings"):
        Host.restore(records[1:], entropy=entropy)
    with pytest.raises(ReplayError, match="does not decode"):
        Host.restore([records[0], b"\xc1"], entropy=entropy)
    odd = msgpack.packb(["reboot", [], False, b""])
    with pytest.raises(ReplayError, match="reboot"):
        Host.restore([records[0], odd], entropy=entropy)
    # A record whose outcome differs from the one journaled (here: said to have raised).
    name, values, _, drawn, moves = msgpack.unpackb(records[1])
    flipped = msgpack.packb([name, values, True, drawn, moves])
    with pytest.raises(ReplayError, match="does not replay"):
        Host.restore([records[0], flipped, *records[2:]], entropy=entropy)
    # Randomness cut short: the replay would draw different bytes.
    init = msgpack.unpackb(records[0])
    short = msgpack.packb([*init[:3], init[3][:-1], init[4]])
    with pytest.raises(ReplayError, match="randomness"):
        Host.restore([short, *records[1:]], entropy=entropy)


def test_a_host_without_a_journal_keeps_no_records() -> None:
    net = TableNet(config(hands=1, seats=3), seed=4)
    net.join("ann")
    net.run(lambda: net.host.finished)
    assert net.host.inputs == []
    assert not net.host._entropy.drawn


def restart_mid_hand(
    net: TableNet, raw: bytes, before: Callable[[TableNet], None] | None = None
) -> tuple[Link, Link]:
    """``lanswitch play --resume`` on ``net``: ann, the host's own player (from the journal's
    32 bytes ``raw``), and bob play until ann is 30 steps into the match; then the host is
    restored from its journal, bob resumes by his token, and ann comes back as a new process
    (a new Session) with the key, seed secret and token the journal kept. The match is played
    to its end; ann's new link and bob's are returned. ``before`` looks at the table just
    before the restart."""
    ann = net._open(owner(raw))
    ann.chooser = net.bot("heuristic")
    bob = net.join("bob")
    net.run(lambda: ann.session.seq > 30)
    if before is not None:
        before(net)
    # (the token: what the journal tells the restarted play process)
    ann, bob, _ = restart_play(net, ann, bob, raw, ann.session.token)
    ann.chooser = net.bot("heuristic")
    net.run(lambda: net.host.finished)
    return ann, bob


def test_a_restarted_player_process_with_its_key_and_seeds_takes_its_seat_back() -> None:
    """The host's own player comes back as a new process; in a hand whose rounds it had
    answered before, it sends the same commitments and seeds again, which are no news."""
    ann, bob = restart_mid_hand(TableNet(config(hands=2), seed=8, journal=True), bytes(range(32)))
    fresh = ann.session
    assert not [m for m in ann.received if isinstance(m, p.Reject)]
    assert [r.hand_no for r in fresh.history] == [1, 2]
    for r in [*fresh.history, *bob.session.history]:
        assert r.judgement is not None
        assert r.judgement.fair, r.judgement.text()


def test_a_client_that_comes_back_after_a_void_hears_of_the_abort() -> None:
    """Catching up a void hand includes its ``abort``: a player whose process restarted
    between the abort and the log heads still has a transcript that says why the hand ended
    (without it, its check found a log that stops short: UNFAIR)."""
    raw = bytes(range(1, 33))

    net = TableNet(config(seats=3, bots=1, round_timeout=5.0, heads_timeout=30.0), seed=12)
    ann = net._open(owner(raw))
    ann.withhold = (p.LogHead,)  # the process dies before it signs
    bob = net.join("bob", auto_ready=False)
    bob.withhold = (p.Commit,)
    net.send(bob, p.Ready(ready=True))
    net.run(lambda: any(isinstance(m, p.Abort) for m in ann.received))
    token = ann.session.token
    ann.alive = False
    net.links.pop(ann.cid)
    net.host.disconnected(ann.cid, net.now)
    fresh = owner(raw)
    fresh.token = token
    ann = net._open(fresh)
    net.run(lambda: bool(fresh.history))
    (record,) = fresh.history
    assert record.judgement is not None
    assert record.judgement.status == "void", record.judgement.text()
    assert record.judgement.culprits == ("seat1",)


def owner(raw: bytes) -> Session:
    """The host's own player as ``lanswitch play`` makes it from the journal's 32 bytes (a
    restarted process makes the same one), ready by itself as a test player is."""
    session = owner_session("ann", raw)
    session.auto_ready = True
    return session


def restart_play(
    net: TableNet, ann: Link, bob: Link, raw: bytes, token: bytes | None
) -> tuple[Link, Link, Session]:
    """``lanswitch play``'s process dies and comes back: the host restored from its journal,
    bob resuming by his token, ann a new session of the host's own player (``owner``) with
    the token it had. The links, and ann's new session."""
    net.host = Host.restore(list(net.host.inputs), entropy=net.rng.randbytes)
    net.host.drop_connections(net.now)
    for link in (ann, bob):
        link.alive = False
    net.links.clear()
    bob = net.resume(bob)
    fresh = owner(raw)
    fresh.token = token
    return net._open(fresh), bob, fresh


@pytest.mark.parametrize(
    "lost",
    [p.BlindPass, p.BlindShare, p.BlindRelease, p.BlindMove, p.BlindSeeds],
    ids=["pass", "turn-up-key", "sealed-key", "move", "seeds"],
)
def test_a_blind_host_that_dies_before_it_kept_what_a_player_sent_gets_it_again(
    lost: type[p.Message],
) -> None:
    """The moments of a dealer-blind hand a kill can cut: bob has sent his first ``lost``
    (a pass of the deck, his key of a card being turned up, a sealed key for ann's draw, a
    move, his seeds after the hand), and the host dies before it has it — the message is lost
    with the link. The host restored from its journal waits for it still; bob, back by his
    token, is caught up and sends it again; the hand goes on, and both players' verdicts and
    the files ``lanswitch verify`` reads are fair."""
    net = TableNet(config(blind=True, hands=2, seats=3, bots=1), seed=21, journal=True)
    net.join("ann")
    bob = net.join("bob", auto_ready=False)
    bob.withhold = (lost,)
    bob.session.auto_ready = True  # (ready for the hands after this one by itself)
    net.send(bob, p.Ready(ready=True))  # hand 1 begins

    def sent() -> bool:
        h = bob.session.hand
        return (
            h is not None
            and isinstance(h.part, BlindPart)
            and any(isinstance(m, lost) for m in h.part.sent)
        )

    if lost is p.BlindMove:  # a move is the player's to send (TableNet.step): made, and lost
        net.run(bob.session.my_turn)
        assert bob.chooser is not None
        bob.session.move(bob.chooser(bob.session))
    net.run(sent)
    h = net.host.hand
    part = (
        bob.session.hand.part
        if bob.session.hand is not None and isinstance(bob.session.hand.part, BlindPart)
        else None
    )
    assert isinstance(h, BlindHand)
    assert part is not None
    assert not bob.session.history  # in hand 1, which waits for what bob sent
    pid = part.pid
    if lost is p.BlindSeeds:
        assert h.ended
        assert pid not in h.seeds
    elif lost is p.BlindMove:
        (move,) = [m for m in part.sent if isinstance(m, p.BlindMove)]
        assert len(h.part.follower.moves) == move.seq  # the host waits for it
    else:
        assert pid in h.awaited()
    links = net.crash()
    assert [link.session.name for link in links] == ["ann", "bob"]
    net.run(lambda: net.host.finished)
    for link in links:
        s = link.session
        verdicts = [(r.hand_no, str(r.judgement)) for r in s.history]
        assert verdicts == [(1, "FAIR (dealer-blind)"), (2, "FAIR (dealer-blind)")]
        for r in s.history:
            assert blindfile.check(blind_file_of(r))[1].status == "fair"
        assert not [m for m in link.received if isinstance(m, p.Reject)]


def test_a_blind_hand_whose_player_does_not_come_back_after_the_hosts_restart_blames_him() -> None:
    """The host dies mid blind hand and comes back; ann comes back, bob does not (his process
    died too). The hand stops once his grace is over and it needs his key: VOID, blamed on
    bob (on the host's word: nobody can prove a silence) — not on the host, whose honest
    restart lost nothing."""
    net = TableNet(config(blind=True, hands=1, seats=3, bots=1), seed=21, journal=True)
    net.join("ann")
    net.join("bob")
    for _ in range(30):
        net.step()
    assert isinstance(net.host.hand, BlindHand)
    links = net.crash()
    (ann,) = [link for link in links if link.session.name == "ann"]
    for link in links:
        if link is not ann:
            net.drop(link)  # bob's process is gone too: he never comes back
    net.run(lambda: bool(ann.session.history))
    (record,) = ann.session.history
    assert record.judgement is not None
    assert record.judgement.status == "void", str(record.judgement)
    assert record.judgement.culprits == ("seat1",)
    assert not record.judgement.proven
    assert any("hand 1 stopped: bob withheld" in line for line in net.host.log)


def _hard_table(moves: int) -> TableNet:
    """A journaled table of ann and three ``hard`` bots, run until the bots have made
    ``moves`` moves (each kept in its call's record)."""
    net = TableNet(config(bots=3, bot_strategy="hard", hands=1), seed=11, journal=True)
    net.join("ann")
    made = 0
    for _ in range(2_000):
        if made >= moves or not net.step():
            break
        made = sum(len(msgpack.unpackb(r)[4]) for r in net.host.inputs)
    assert made >= moves
    return net


def _searched(host: Host) -> list[int]:
    """The moves each hard bot of the hand in play has played in its searches (its last)."""
    hand = host.hand
    assert isinstance(hand, CommitHand)
    return [b.moves_played for b in hand.bots.values() if isinstance(b, HardBot)]


def test_a_bots_decision_costs_the_journal_16_bytes_and_a_replay_does_not_decide_again() -> None:
    """A bot's randomness is a generator seeded by 16 bytes of entropy, so a ``hard`` bot's
    decision — some 50,000 numbers drawn — adds 16 bytes to its call's record (drawing each
    number from the entropy kept about 350 KB a decision); and the move it made is kept
    with the record, so the restored host plays it back: its bots never search."""
    net = _hard_table(12)
    records = list(net.host.inputs)
    assert max(len(r) for r in records) < 4_096
    assert any(_searched(net.host))  # the live bots searched
    restored = Host.restore(records, entropy=net.rng.randbytes)
    assert state(restored) == state(net.host)
    assert _searched(restored) == [0, 0, 0]


def test_a_record_without_its_bots_moves_replays_by_deciding_again() -> None:
    """A record of four fields (no bots' moves kept) replays by deciding again: each bot
    decides from the same 16-byte seed, to the same move. (A journal written before the
    seeds, when every draw came from the entropy, does not replay: that is a different
    lanswitch, as docs/hosting.md says of any.)"""
    net = _hard_table(6)
    old = []
    for raw in net.host.inputs:
        record = msgpack.unpackb(raw)
        old.append(msgpack.packb(record[:4], use_bin_type=True))
    restored = Host.restore(old, entropy=net.rng.randbytes)
    assert state(restored) == state(net.host)
    assert any(_searched(restored))


def test_a_record_whose_bot_moves_do_not_replay_is_refused() -> None:
    """A kept move the hand refuses, or one more kept than the call made, is a journal that
    does not replay as it ran."""
    net = _hard_table(3)
    records = [msgpack.unpackb(r) for r in net.host.inputs]
    at = next(n for n, r in enumerate(records) if r[4])
    for moves in ([9_999] * len(records[at][4]), [*records[at][4], records[at][4][0]], "x"):
        bad = [msgpack.packb(r, use_bin_type=True) for r in records]
        bad[at] = msgpack.packb([*records[at][:4], moves], use_bin_type=True)
        with pytest.raises(ReplayError, match=f"record {at + 1}"):
            Host.restore(bad, entropy=net.rng.randbytes)
