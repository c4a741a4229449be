"""A dealer-blind participant written from ``protocol/SPEC.md`` alone (issue 25, Build 7).

:class:`BlindRawClient` is :class:`tests.rawclient.RawClient` (the wire, the handshake, the
lobby and the hand context, all from the spec) taking part in a dealer-blind hand: every
formula of § Dealer-blind (labels, card points, locks, permutations, position keys, passes,
releases sealed with X25519 and ChaCha20-Poly1305, openings, move signatures) is rebuilt here
from the text, with PyNaCl's libsodium for the group operations the spec names; what is due
when comes from § Dealer-blind on the wire and § The rules engine on hidden cards ("What a
follower takes from the engine"). It imports nothing of lanswitch's deal: only the rules
engine, ``lanswitch.game`` and the rule-set reader ``lanswitch.rules``, which the spec names as
the reference for the rules (§ Moves) — a blind client needs it to know whose turn it is, what
is turned up and which hidden cards a step gives to whom.

It plays its own seat at random among the legal moves (cards first), checks what it can as the
hand goes (signatures of passes and openings, each opened card one of the shuffle's), reveals
its seeds at the end, and records what it saw in its :class:`~tests.rawclient.Report`.
"""

from __future__ import annotations

import hashlib
import secrets
import tomllib
from dataclasses import dataclass, field
from typing import Any

import nacl.bindings as sodium
from nacl.exceptions import CryptoError

from lanswitch.game import Game  # the rules engine: the reference for the rules (SPEC § Moves)
from lanswitch.rules import rules_from_mapping
from tests.rawclient import (
    DEALER,
    RawClient,
    SpecViolationError,
    enc,
    shuffle,
    stream_words,
    u8,
    u16,
    u32,
    verify,
)

ELL = 2**252 + 27742317777372353535851937790883648493  # § Group and card points
HIDDEN_BASE = 512  # § A shuffle
NO_HIDDEN = 0xFFFFFFFF  # § Opening a position: a move that lays no card
MAX_CARD = 108


def label(name: str) -> bytes:
    """``enc("lanswitch/v2/blind/" + name)`` (§ Group and card points)."""
    return enc("lanswitch/v2/blind/" + name)


def bh(name: str, *x: bytes) -> bytes:
    """``H(name, x…)``: SHA-256 of the label and ``x…``."""
    return hashlib.sha256(label(name) + b"".join(x)).digest()


def bs(name: str, *x: bytes) -> int:
    """``S(name, x…)``: SHA-512 of the label and ``x…`` read little-endian, mod ℓ (not 0)."""
    v = int.from_bytes(hashlib.sha512(label(name) + b"".join(x)).digest(), "little") % ELL
    if v == 0:
        raise SpecViolationError(f"S({name}) is zero")
    return v


def sb(k: int) -> bytes:
    """A scalar as 32 bytes little-endian."""
    return k.to_bytes(32, "little")


def mult(k: int, point: bytes) -> bytes:
    """``k·P``, no clamping (so that locks commute)."""
    out: bytes = sodium.crypto_scalarmult_ed25519_noclamp(sb(k), point)
    return out


def card_point(bctx0: bytes, card: int) -> bytes:
    """``P_c = from_uniform(H("card", ctx_0' ‖ u8(c)))``."""
    out: bytes = sodium.crypto_core_ed25519_from_uniform(bh("card", bctx0, u8(card)))
    return out


@dataclass
class Keys:
    """One participant's secrets of one shuffle, from its seed (§ A shuffle)."""

    lock: int
    perm: list[int]
    positions: list[int]

    @classmethod
    def derive(cls, ctx: bytes, pid: str, seed: bytes, n: int) -> Keys:
        who = enc(pid)
        lock = bs("lock", ctx, who, seed)
        perm = shuffle(list(range(n)), stream_words(bh("permute", ctx, who, seed)))
        positions = [bs("position", ctx, who, seed, u16(j)) for j in range(n)]
        return cls(lock, perm, positions)

    def lock_pass(self, inp: list[bytes]) -> list[bytes]:
        """``out[t] = k · in[π[t]]``."""
        return [mult(self.lock, inp[src]) for src in self.perm]

    def key_pass(self, inp: list[bytes]) -> list[bytes]:
        """``out[j] = (c_j · k⁻¹) · in[j]``."""
        inv = pow(self.lock, -1, ELL)
        return [mult(c * inv % ELL, p) for c, p in zip(self.positions, inp, strict=True)]


def pass_message(ctx: bytes, pid: str, number: int, points: list[bytes]) -> bytes:
    return (
        label("sign/pass") + ctx + enc(pid) + u8(number) + bh("points", u16(len(points)), *points)
    )


def release_message(ctx: bytes, sender: str, to: str, j: int, key: bytes) -> bytes:
    return label("sign/release") + ctx + enc(sender) + enc(to) + u16(j) + key


def move_message(bctx0: bytes, seq: int, seat: int, owner: str, move: int, hidden: int) -> bytes:
    return (
        label("sign/move")
        + bctx0
        + u32(seq)
        + u8(seat)
        + enc(owner)
        + u32(move)
        + u32(NO_HIDDEN if hidden < 0 else hidden)
    )


def _seal_parts(ctx: bytes, sender: str, to: str, j: int, shared: bytes) -> tuple[bytes, ...]:
    who = enc(sender) + enc(to)
    key = bh("seal", shared, ctx, who)
    nonce = u32(0) + u32(0) + u32(j)
    aad = label("sealed") + ctx + who + u16(j)
    return key, nonce, aad


def _shared(my_seed: bytes, their_public: bytes) -> bytes:
    _pk, sk64 = sodium.crypto_sign_seed_keypair(my_seed)
    mine = sodium.crypto_sign_ed25519_sk_to_curve25519(sk64)
    theirs = sodium.crypto_sign_ed25519_pk_to_curve25519(their_public)
    out: bytes = sodium.crypto_scalarmult(mine, theirs)
    return out


def seal(
    my_seed: bytes, to_public: bytes, ctx: bytes, sender: str, to: str, j: int, body: bytes
) -> bytes:
    """A key and its release signature (``body``), sealed to ``to`` alone."""
    key, nonce, aad = _seal_parts(ctx, sender, to, j, _shared(my_seed, to_public))
    out: bytes = sodium.crypto_aead_chacha20poly1305_ietf_encrypt(body, aad, nonce, key)
    return out


def unseal(
    my_seed: bytes, sender_public: bytes, ctx: bytes, sender: str, to: str, j: int, sealed: bytes
) -> bytes | None:
    key, nonce, aad = _seal_parts(ctx, sender, to, j, _shared(my_seed, sender_public))
    try:
        out: bytes = sodium.crypto_aead_chacha20poly1305_ietf_decrypt(sealed, aad, nonce, key)
    except CryptoError:
        return None
    return out


@dataclass
class Shuffle:
    """One shuffle as this participant follows it."""

    index: int
    ctx: bytes
    cards: list[int]
    order: list[str]
    base: int
    points: dict[bytes, int]  # card point → card
    deck: list[bytes]  # the card points of ``cards``, ascending: the first pass's input
    passes: dict[tuple[str, int], list[bytes]] = field(default_factory=dict)
    opened: dict[int, int] = field(default_factory=dict)
    dealt: bool = False

    @property
    def n(self) -> int:
        return len(self.cards)

    def next_pass(self) -> tuple[str, int] | None:
        """Every lock pass in pass order, then every key pass (§ A shuffle)."""
        for number in (1, 2):
            for pid in self.order:
                if (pid, number) not in self.passes:
                    return pid, number
        return None

    def last_output(self) -> list[bytes]:
        done = [(p, k) for k in (1, 2) for p in self.order if (p, k) in self.passes]
        return self.passes[done[-1]] if done else self.deck

    def open(self, j: int, keys: list[bytes]) -> int | None:
        """The card under position ``j``: ``(∏ c_j)⁻¹ · D_j`` (§ Opening a position)."""
        product = 1
        for k in keys:
            product = product * int.from_bytes(k, "little") % ELL
        point = mult(pow(product, -1, ELL), self.passes[(self.order[-1], 2)][j])
        card = self.points.get(point)
        if card is None or (card in self.opened.values() and self.opened.get(j) != card):
            return None
        return card


def next_turn_up(game: Game, rec: Shuffle) -> int | None:
    """§ The rules engine on hidden cards, 2.: the step applied to a copy of the engine, the
    positions opened so far as their cards; the first ``starter`` still hidden."""
    order = [rec.opened.get(j, rec.base + j) for j in range(rec.n)]
    events = game.clone().apply_chance(order, hidden=True)
    up = [v for kind, _seat, v in events if kind == "starter" and v >= HIDDEN_BASE]
    return up[0] - rec.base if up else None


class BlindRawClient(RawClient):
    """A seated player of dealer-blind hands, from the spec (module docstring)."""

    def reset_hand(self) -> None:
        super().reset_hand()
        self.blind = False
        self.game: Game | None = None
        self.bctx0 = b""
        self.seat_ids: list[str] = []
        self.keys: dict[str, bytes] = {}
        self.people: list[int] = []
        self.shuffles: list[Shuffle] = []
        self.seeds: dict[int, bytes] = {}
        self.secret: dict[int, Keys] = {}
        self.received: dict[tuple[int, int], dict[str, tuple[bytes, bytes]]] = {}
        self.my_cards: dict[int, int] = {}  # hidden card → card, for the cards it holds
        self.moves = 0
        self.sent_passes: set[tuple[int, int]] = set()
        self.sent_shares: set[tuple[int, int]] = set()
        self.moved_at = -1
        self.seeds_sent = False
        self.stopped = False
        self.blind_report: dict[str, Any] = {"releases": 0, "opened": 0, "turned_up": 0}

    # -- setup ---------------------------------------------------------------------------------

    def on_hand(self, msg: dict[str, Any]) -> None:
        super().on_hand(msg)
        if not msg["blind"]:
            return
        rep = self.report
        self.blind = True
        rep.check(msg["turn_timer_ms"] == 0, "a blind hand has no turn timer")
        # § Dealer-blind on the wire: ctx_0' = H("ctx0", ctx_0 ‖ head_1), head_1 the log's head
        # holding only the setup note (which super().on_hand has just logged).
        self.bctx0 = bh("ctx0", self.ctx0 + self.head())
        self.seat_ids = list(msg["seats"])
        self.keys = dict(msg["keys"])
        self.people = [s for s, pid in enumerate(self.seat_ids) if pid in self.keys]
        rules = rules_from_mapping(tomllib.loads(msg["rules"]), source="hand.rules")
        self.game = Game(
            rules,
            len(self.seat_ids),
            dealer=msg["dealer"],
            out=msg["out"],
            hand_no=msg["hand_no"],
            blind=True,
        )
        self.pump()

    @property
    def me(self) -> str:
        return self.report.my_id

    @property
    def participants(self) -> list[str]:
        """The people dealt in, in seat order, then ``@dealer`` (nobody leaves here)."""
        return [self.seat_ids[s] for s in self.people] + [DEALER]

    def owner(self, seat: int) -> str:
        return self.seat_ids[seat] if seat in self.people else DEALER

    def open_shuffle(self) -> Shuffle | None:
        if self.shuffles and not self.shuffles[-1].dealt:
            return self.shuffles[-1]
        return None

    def begin_shuffle(self) -> Shuffle:
        assert self.game is not None
        req = self.game.chance_request()
        assert req is not None
        cards = sorted(req[1])
        k = len(self.shuffles)
        ctx = bh("shuffle", self.bctx0, u32(k), u16(len(cards)), bytes(cards))
        base = HIDDEN_BASE + sum(s.n for s in self.shuffles)
        deck = [card_point(self.bctx0, c) for c in cards]
        points = dict(zip(deck, cards, strict=True))
        rec = Shuffle(k, ctx, cards, self.participants, base, points, deck)
        self.shuffles.append(rec)
        return rec

    def locate(self, hidden: int) -> tuple[Shuffle, int]:
        for rec in self.shuffles:
            if rec.base <= hidden < rec.base + rec.n:
                return rec, hidden - rec.base
        raise SpecViolationError(f"{hidden} is no hidden card of this hand")

    def my_keys(self, rec: Shuffle) -> Keys:
        if rec.index not in self.secret:
            seed = self.seeds.setdefault(rec.index, secrets.token_bytes(32))
            self.secret[rec.index] = Keys.derive(rec.ctx, self.me, seed, rec.n)
        return self.secret[rec.index]

    def my_share(self, rec: Shuffle, j: int, to: str) -> tuple[bytes, bytes]:
        key = sb(self.my_keys(rec).positions[j])
        return key, self.sign(release_message(rec.ctx, self.me, to, j, key))

    # -- what is due (§ Dealer-blind on the wire, 1.-5.) ---------------------------------------

    def pump(self) -> None:
        """Send whatever this participant's engine says it owes now, each thing once."""
        g = self.game
        if not self.blind or g is None or self.stopped:
            return
        if g.over:
            self.send_seeds()
            return
        rec = self.open_shuffle()
        if rec is None and g.chance_request() is not None:
            rec = self.begin_shuffle()
        if rec is not None:
            nxt = rec.next_pass()
            if nxt is not None:
                pid, number = nxt
                if pid == self.me and (rec.index, number) not in self.sent_passes:
                    self.sent_passes.add((rec.index, number))
                    self.send_pass(rec, number)
                return
            j = next_turn_up(g, rec)
            if j is not None:
                if (rec.index, j) not in self.sent_shares:
                    self.sent_shares.add((rec.index, j))
                    key, sig = self.my_share(rec, j, "")
                    self.send(
                        {
                            "type": "blind_share",
                            "shuffle": rec.index,
                            "position": j,
                            "key": key,
                            "signature": sig,
                        }
                    )
                return
            # Nothing more to turn up: the step is applied (and its keys are now owed).
            order = [rec.opened.get(j, rec.base + j) for j in range(rec.n)]
            rec.dealt = True
            self.gave(g.apply_chance(order, hidden=True))
            if g.over:
                self.send_seeds()
                return
        self.maybe_blind_move()

    def send_pass(self, rec: Shuffle, number: int) -> None:
        inp = rec.last_output()
        keys = self.my_keys(rec)
        out = keys.lock_pass(inp) if number == 1 else keys.key_pass(inp)
        signature = self.sign(pass_message(rec.ctx, self.me, number, out))
        self.send(
            {
                "type": "blind_pass",
                "shuffle": rec.index,
                "number": number,
                "points": out,
                "signature": signature,
                "by": "",
            }
        )

    def gave(self, events: list[tuple[str, int, int]]) -> None:
        """§ Dealer-blind on the wire, 3.: a sealed key for every hidden card the step gave to
        a seat this participant does not own, in the order given."""
        for kind, seat, hidden in events:
            if kind not in ("deal", "draw") or hidden < HIDDEN_BASE:
                continue
            to = self.owner(seat)
            if to == self.me:
                continue
            rec, j = self.locate(hidden)
            key, sig = self.my_share(rec, j, to)
            sealed = seal(
                self.key.private_bytes_raw(), self.keys[to], rec.ctx, self.me, to, j, key + sig
            )
            self.blind_report["releases"] += 1
            self.send(
                {"type": "blind_release", "to": to, "hidden": hidden, "sealed": sealed, "by": ""}
            )

    def maybe_blind_move(self) -> None:
        """§ Dealer-blind on the wire, 4.: its seat to act, no shuffle due, its cards open."""
        g = self.game
        rep = self.report
        if g is None or rep.seat is None or g.over or self.moved_at == self.moves:
            return
        if self.open_shuffle() is not None or g.chance_request() is not None:
            return
        if g.to_act() != rep.seat or any(c >= HIDDEN_BASE for c in g.hand(rep.seat)):
            return
        legal = g.legal_moves()
        cards = [m for m in legal if m < MAX_CARD]
        move = self.rng.choice(cards or legal)
        hidden = -1
        shares: dict[str, list[bytes]] = {}
        if move < MAX_CARD:
            hidden = next(h for h, c in self.my_cards.items() if c == move)
            rec, j = self.locate(hidden)
            for sender, (key, sig) in self.received[(rec.index, j)].items():
                shares[sender] = [key, sig]
            shares[self.me] = list(self.my_share(rec, j, self.me))  # `to` the owner: itself
        signature = self.sign(move_message(self.bctx0, self.moves, rep.seat, self.me, move, hidden))
        self.moved_at = self.moves
        self.send(
            {
                "type": "blind_move",
                "seq": self.moves,
                "seat": rep.seat,
                "move": move,
                "hidden": hidden,
                "signature": signature,
                "shares": shares,
                "by": "",
            }
        )

    def send_seeds(self) -> None:
        if self.seeds_sent:
            return
        self.seeds_sent = True
        seeds = [self.seeds[k] for k in sorted(self.seeds)]
        self.send(
            {
                "type": "blind_seeds",
                "seeds": seeds,
                "fault": "",
                "detail": "",
                "complaint": [],
                "signature": b"",
            }
        )

    # -- what the host relays ------------------------------------------------------------------

    def on_blind_pass(self, msg: dict[str, Any]) -> None:
        assert self.game is not None
        rec = self.open_shuffle()
        if rec is None:
            rec = self.begin_shuffle()
        pid, number = msg["by"], msg["number"]
        self.report.check(rec.next_pass() == (pid, number), f"{pid}'s pass {number} is next")
        points = list(msg["points"])
        ok = verify(self.keys[pid], msg["signature"], pass_message(rec.ctx, pid, number, points))
        self.report.check(ok, f"{pid}'s pass {number} is signed by {pid}")
        self.report.check(
            len(points) == rec.n and len(set(points)) == rec.n, "a pass gives n distinct points"
        )
        rec.passes[(pid, number)] = points
        self.pump()

    def on_blind_open(self, msg: dict[str, Any]) -> None:
        rec = self.open_shuffle()
        assert rec is not None
        assert self.game is not None
        j = msg["position"]
        shares = msg["shares"]
        self.report.check(sorted(shares) == sorted(rec.order), "an opening has every key")
        for sender, (key, sig) in shares.items():
            ok = verify(self.keys[sender], sig, release_message(rec.ctx, sender, "", j, key))
            self.report.check(ok, f"{sender}'s public key of position {j} is signed")
        card = rec.open(j, [key for key, _sig in shares.values()])
        if not self.report.check(card is not None, f"position {j} opens to a card"):
            return
        assert card is not None
        rec.opened[j] = card
        self.blind_report["turned_up"] += 1
        self.pump()

    def on_blind_release(self, msg: dict[str, Any]) -> None:
        rep = self.report
        rep.check(msg["to"] == self.me, "a sealed key comes to its drawer alone")
        rec, j = self.locate(msg["hidden"])
        sender = msg["by"]
        body = unseal(
            self.key.private_bytes_raw(),
            self.keys[sender],
            rec.ctx,
            sender,
            self.me,
            j,
            msg["sealed"],
        )
        if not rep.check(body is not None and len(body) == 96, f"{sender}'s sealed key opens"):
            return
        assert body is not None
        got = self.received.setdefault((rec.index, j), {})
        got[sender] = (body[:32], body[32:])
        if len(got) == len(rec.order) - 1:
            mine = sb(self.my_keys(rec).positions[j])
            card = rec.open(j, [key for key, _sig in got.values()] + [mine])
            if rep.check(
                card is not None, f"the card at position {j} of shuffle {rec.index} opens"
            ):
                assert card is not None
                assert self.game is not None
                self.game.reveal(msg["hidden"], card)
                self.my_cards[msg["hidden"]] = card
                self.blind_report["opened"] += 1
        self.pump()

    def on_blind_move(self, msg: dict[str, Any]) -> None:
        g = self.game
        assert g is not None
        rep = self.report
        if msg["seq"] < self.moves:
            return
        rep.check(msg["seq"] == self.moves, "moves are relayed in order")
        seat, move, hidden, owner = msg["seat"], msg["move"], msg["hidden"], msg["by"]
        rep.check(owner == self.owner(seat), "a move is relayed with `by` its seat's owner")
        signed = move_message(self.bctx0, msg["seq"], seat, owner, move, hidden)
        rep.check(verify(self.keys[owner], msg["signature"], signed), "a move is its owner's")
        if move < MAX_CARD:
            rec, j = self.locate(hidden)
            shares = msg["shares"]
            rep.check(sorted(shares) == sorted(rec.order), "a laid card carries every key")
            for sender, (key, sig) in shares.items():
                ok = verify(self.keys[sender], sig, release_message(rec.ctx, sender, owner, j, key))
                rep.check(ok, f"{sender}'s key of a laid card is signed with `to` the mover")
            card = rec.open(j, [key for key, _sig in shares.values()])
            rep.check(card == move, "a laid card's keys open it to the card laid")
            rec.opened[j] = move
            if hidden in self.my_cards:
                del self.my_cards[hidden]  # its own: known already
            else:
                g.reveal(hidden, move)
        self.moves += 1
        self.rep_move(g.apply(seat, move))

    def rep_move(self, events: list[tuple[str, int, int]]) -> None:
        self.report.moves += 1
        self.gave(events)
        self.pump()

    def on_blind_leave(self, msg: dict[str, Any]) -> None:
        self.report.check(False, "nobody leaves in this client's hands")

    def on_blind_abort(self, msg: dict[str, Any]) -> None:
        self.report.check(False, f"the host stopped the hand: {msg}")
        self.stopped = True
        self.send_seeds()

    def on_blind_reveal(self, msg: dict[str, Any]) -> None:
        """Every participant's seeds: each makes its passes (§ After the hand, in part)."""
        rep = self.report
        self.blind_report["reveal"] = msg
        for pid, seeds in msg["seeds"].items():
            for rec in self.shuffles:
                keys = Keys.derive(rec.ctx, pid, seeds[rec.index], rec.n)
                made_by = [(q, n) for n in (1, 2) for q in rec.order]
                for number in (1, 2):
                    i = made_by.index((pid, number))
                    source = rec.passes[made_by[i - 1]] if i else rec.deck
                    made = keys.lock_pass(source) if number == 1 else keys.key_pass(source)
                    ok = made == rec.passes[(pid, number)]
                    rep.check(ok, f"{pid}'s seed makes its pass {number} of shuffle {rec.index}")

    def on_hand_over(self, msg: dict[str, Any]) -> None:
        if not self.blind:
            super().on_hand_over(msg)
            return
        rep = self.report
        self.over = True
        rep.hand_over = msg
        rep.check(msg["head"] == [0, bytes(32), b""], "a blind hand_over has no log head")
        rep.check(msg["cards_signature"] == b"", "a blind hand_over has no cards signature")
