"""What protocol/SPEC.md says the host does with the ``blind_*`` messages it receives, checked
against the real host over real TLS (``tests/cheats.py``): a client built from the spec alone
counts on these answers (SPEC § Dealer-blind on the wire, "What the host does with the blind
messages it receives").

The prober is an untouched client shell whose session sends, beside its honest messages, a few
the host must refuse: a sealed key of the deal sent before the deal's last turn-up is open
(refused and dropped — the drawer never gets it; the honest one sent once the deal is applied
goes through, and the hand is fair), and ``blind_move``s out of turn or at the wrong ``seq``
(refused in the order the spec gives — the seat before the ``seq`` —, each ``reject`` carrying
the move's ``seq``).
"""

from __future__ import annotations

from pathlib import Path

from lanswitch import protocol as p
from lanswitch.blindsession import BlindPart
from lanswitch.fairdeal import DEALER
from lanswitch.fairdeal.blind.positions import apply_opened, drawn_positions
from lanswitch.host._blind import BlindHand
from lanswitch.session import Session
from tests.cheats import Person, make_host, play_over_tls

NO_SIGNATURE = bytes(64)


class Prober(Session):
    """An honest client that also sends what the host must refuse (module docstring)."""

    early: tuple[str, int] | None = None  # (drawer, hidden card) of the key sent too soon
    out_of_turn: int | None = None  # the seq of its blind_move sent when not its turn
    wrong_seq: int | None = None  # the seq of its blind_move sent in its turn, one ahead
    rejects: list[p.Reject]

    def receive(self, message: p.Message) -> list[p.Message]:
        if not hasattr(self, "rejects"):
            self.rejects = []
        if isinstance(message, p.Reject):
            self.rejects.append(message)
        replies = super().receive(message)
        h = self.hand
        part = None if h is None or not isinstance(h.part, BlindPart) else h.part
        if part is None or part.part is None or part.seat is None or part.ended:
            return replies
        f = part.follower
        rec = f.open_shuffle
        extra: list[p.Message] = []
        if (
            self.early is None
            and rec is not None
            and rec.index == 0
            and rec.next_pass() is None
            and f.pending_turn_up() is not None
        ):
            # Every pass of the deal is in, its starter not yet open: the positions it deals
            # are known (the engine says which seat each goes to), the deal is not applied.
            dealt = drawn_positions(apply_opened(f.game.clone(), rec.base, rec.n, rec.opened))
            others = [(s, hd) for s, hd in dealt if f.owner(s) not in (part.pid, DEALER)]
            seat, hidden = others[0]
            to = f.owner(seat)
            sealed = part.part.holder.seal(0, hidden - rec.base, to)
            extra.append(p.BlindRelease(to=to, hidden=hidden, sealed=sealed))
            self.early = (to, hidden)
        elif rec is None and not f.game.over:
            moves = len(f.moves)
            to_act = f.game.to_act()
            if self.out_of_turn is None and to_act >= 0 and to_act != part.seat:
                # For the seat to act, not its own, at a seq the hand is not at either: the
                # seat is checked first. (Its own seat would race the other seats' moves.)
                self.out_of_turn = moves + 5
                extra.append(self._move(self.out_of_turn, to_act))
            elif self.wrong_seq is None and part.my_turn():
                self.wrong_seq = moves + 1  # its turn, one move ahead: stale, nothing changes
                extra.append(self._move(self.wrong_seq, part.seat))
        return extra + replies

    @staticmethod
    def _move(seq: int, seat: int) -> p.BlindMove:
        return p.BlindMove(seq=seq, seat=seat, move=200, hidden=-1, signature=NO_SIGNATURE)


def test_the_host_refuses_early_keys_and_misplaced_moves_as_the_spec_says(tmp_path: Path) -> None:
    host = make_host(blind=True, seats=3, bots=1, hands=1)
    out = play_over_tls(host, [Person("ann", Prober), Person("bob")], tmp_path)
    ann = out.sessions["ann"]
    assert isinstance(ann, Prober)
    assert ann.early is not None
    assert ann.out_of_turn is not None
    assert ann.wrong_seq is not None
    # The hand went on and was fair for both, live and by lanswitch verify of each file.
    for name in ("ann", "bob"):
        assert [o.status for o in out.blind(name)] == ["fair"], [str(o) for o in out.blind(name)]
        assert out.cli_statuses(name) == ["fair"], out.alone[name]
    by_text = [(r.code, r.seq, r.text) for r in ann.rejects]
    to, hidden = ann.early
    # The key sent before the deal was applied: refused, seq 0 ...
    assert (p.ErrorCode.FAIR_DEAL, 0, f"you owe {to} no key of hidden card {hidden}") in by_text
    # ... and dropped: the drawer got ann's key of that card once, the one sent after the deal.
    b = host.last_hand
    assert isinstance(b, BlindHand)
    sent = [r for _at, r in b.sealed[to] if r.hidden == hidden and r.by == f"seat{ann.seat}"]
    assert len(sent) == 1
    # The blind_moves: out of turn (with a wrong seq too) is not_your_turn; in its turn one
    # move ahead is stale_view; each reject carries the move's seq.
    assert (p.ErrorCode.NOT_YOUR_TURN, ann.out_of_turn, "not your turn") in by_text
    stale = [r for r in ann.rejects if r.code is p.ErrorCode.STALE_VIEW]
    assert [r.seq for r in stale] == [ann.wrong_seq]
    assert len(ann.rejects) == 3, by_text
