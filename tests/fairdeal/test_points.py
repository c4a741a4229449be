"""Points on the curve (issue 25, Build 6): every point a participant of a dealer-blind hand
receives from another — each point of each pass — is checked by one function,
:func:`lanswitch.fairdeal.blind.crypto.point_problem`, before it is kept, relayed or locked again.

Four kinds of bad point, each built here by plain arithmetic on the curve (a small model of
Ed25519 below, independent of libsodium): a non-canonical encoding, a point of small order, a
mixed-order point ``Q + T`` (the kind CVE-2025-69277 let through libsodium's own subgroup test,
for ``T`` of order 2), and the identity. Each is refused by the check, by a follower as the
pass comes (blamed on its author, with the position and the reason), and — a modified client
sending one in its pass, over real TLS against untouched clients — by the host as the pass
arrives, and by every honest client's live verdict and ``lanswitch verify`` of its file.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lanswitch.fairdeal.blind import crypto as blind
from lanswitch.fairdeal.blind import file as blindfile
from lanswitch.fairdeal.blind.file import BlindFileError
from lanswitch.fairdeal.blind.hand import BlindFault, Cheat, Follower
from lanswitch.fairdeal.blind.holder import Holder
from lanswitch.fairdeal.primitives import sign
from lanswitch.fairdeal.transcript import Transcript, TranscriptError
from lanswitch.host._blind import BlindHand
from lanswitch.session import Session
from tests.blindtable import blind_table
from tests.cheats import Outcome, Person, make_host, play_over_tls

# ---------------------------------------------------------------------------------------------
# A small model of Ed25519 (affine twisted Edwards arithmetic, RFC 8032 § 5.1), to build the
# points without the library under test.

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, -1, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
Point = tuple[int, int]
IDENTITY: Point = (0, 1)


def add(a: Point, b: Point) -> Point:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return (x1 * y2 + x2 * y1) * pow(1 + t, -1, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, -1, P) % P


def mul(k: int, a: Point) -> Point:
    out = IDENTITY
    while k:
        if k & 1:
            out = add(out, a)
        a, k = add(a, a), k >> 1
    return out


def decode(b: bytes) -> Point | None:
    """RFC 8032's decoding, canonical only (None for y ≥ p, off the curve, or -0)."""
    y = int.from_bytes(b, "little")
    sign_bit, y = y >> 255, y & ((1 << 255) - 1)
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    if x2 == 0:
        return None if sign_bit else (0, y)
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    return (P - x if x & 1 != sign_bit else x), y


def encode(a: Point) -> bytes:
    x, y = a
    return (y | (x & 1) << 255).to_bytes(32, "little")


def order(a: Point) -> int:
    return next(o for o in (1, 2, 4, 8, L, 2 * L, 4 * L, 8 * L) if mul(o, a) == IDENTITY)


def in_the_group(b: bytes) -> bool:
    """The definition: the canonical encoding of a point ``P``, not the identity, whose
    ``ℓ·P`` is the identity."""
    a = decode(b)
    return a is not None and a != IDENTITY and mul(L, a) == IDENTITY


_Y3 = decode((3).to_bytes(32, "little"))  # a point of order 8ℓ
assert _Y3 is not None
T8 = mul(L, _Y3)
TORSION = {o: mul(8 // o, T8) for o in (2, 4, 8)}  # a point of each small order
_Q = decode(blind.card_point(bytes(32), 7))
assert _Q is not None
Q: Point = _Q  # a point of the group (a card point)


def noncanonical() -> dict[str, bytes]:
    """Encodings no canonical encoder writes: ``y ≥ p`` (``y + p`` for ``y < 19``: the
    identity and the points of order 4, 2ℓ, 4ℓ and 8ℓ there), and ``x = 0`` with the sign bit
    set (the identity and the point of order 2)."""
    return {
        "the identity as y = p + 1": (P + 1).to_bytes(32, "little"),
        "y = p + 9 (order 2ℓ)": (P + 9).to_bytes(32, "little"),
        "y = p (order 4)": P.to_bytes(32, "little"),
        "the identity, x = 0 signed": (1 | 1 << 255).to_bytes(32, "little"),
        "order 2, x = 0 signed": (P - 1 | 1 << 255).to_bytes(32, "little"),
    }


KINDS: dict[str, list[tuple[str, bytes, str]]] = {
    "noncanonical": [(n, b, "not a canonical encoding") for n, b in noncanonical().items()],
    "small_order": [
        (f"order {o}", encode(mul(m, t)), "outside the prime-order subgroup")
        for o, t in TORSION.items()
        for m in range(1, o)
        if order(mul(m, t)) == o
    ],
    "mixed_order": [
        (f"Q + T, T of order {o}", encode(add(Q, t)), "outside the prime-order subgroup")
        for o, t in TORSION.items()
    ],
    "identity": [("the identity", encode(IDENTITY), "the identity")],
}


def test_the_kinds_are_what_they_say() -> None:
    """The model's points: 7 of small order, 3 mixed of order 2ℓ, 4ℓ, 8ℓ, none in the group,
    and every non-canonical encoding refused by the model's decoder."""
    assert sorted(order(decode(b) or IDENTITY) for _n, b, _w in KINDS["small_order"]) == [
        2,
        4,
        4,
        8,
        8,
        8,
        8,
    ]
    assert [order(decode(b) or IDENTITY) for _n, b, _w in KINDS["mixed_order"]] == [
        2 * L,
        4 * L,
        8 * L,
    ]
    assert all(decode(b) is None for _n, b, _w in KINDS["noncanonical"])
    for group in KINDS.values():
        for name, b, _why in group:
            assert not in_the_group(b), name
    assert order(Q) == L
    assert in_the_group(encode(Q))


# ---------------------------------------------------------------------------------------------
# The check itself


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_bad_point_of_each_kind_is_refused_with_its_reason(kind: str) -> None:
    for name, b, why in KINDS[kind]:
        got = blind.point_problem(b)
        assert got is not None, name
        if kind == "small_order" or kind == "mixed_order":
            # Off the curve and outside the group read the same when libsodium refuses first.
            assert got in (why, "not on the curve, or outside the prime-order subgroup"), name
        else:
            assert got.startswith(why), (name, got)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_arithmetic_subgroup_check_refuses_every_kind_on_the_curve(kind: str) -> None:
    """The check a libsodium without the CVE-2025-69277 fix would get: ``(ℓ+1)·P = P``."""
    for name, b, _why in KINDS[kind]:
        assert blind.in_subgroup_by_arithmetic(b) is not None, name
    assert blind.in_subgroup_by_arithmetic(encode(Q)) is None


def test_the_library_in_use_has_the_fix() -> None:
    """PyNaCl ≥ 1.6.2 (pyproject.toml) bundles a libsodium whose own subgroup test refuses
    ``Q + T``, ``T`` of order 2: the check uses it (the faster way)."""
    assert blind.LIBRARY_SUBGROUP_TEST


def test_good_points_pass_and_the_check_agrees_with_the_definition() -> None:
    """Card points, locked points, and a sweep of encodings (every small y, both signs, and
    each y + p) agree with the model: accepted exactly when the definition says so."""
    ctx0 = hashlib.sha256(b"points").digest()
    cards = blind.CardPoints(ctx0, range(52))
    keys = blind.BlindKeys.derive(bytes(32), "p0", bytes(32), 52)
    for p in [*cards.deck(range(52)), *blind.lock_pass(cards.deck(range(52)), keys)[:8]]:
        assert blind.point_problem(p) is None
        assert in_the_group(p)
    for y in range(64):
        for s in (0, 1):
            for base in (0, P):
                if base + y >= 1 << 255:
                    continue
                b = (base + y | s << 255).to_bytes(32, "little")
                assert (blind.point_problem(b) is None) == in_the_group(b), (base, y, s)
                if blind.point_problem(b) is None or decode(b) not in (None, IDENTITY):
                    by_arithmetic = blind.in_subgroup_by_arithmetic(b) is None
                    assert by_arithmetic == in_the_group(b), (base, y, s)
    assert blind.point_problem(bytes(31)) == "not 32 bytes"
    assert blind.point_problem("a point") == "not 32 bytes"


# ---------------------------------------------------------------------------------------------
# A follower refuses the pass as it comes


def _bad_first_pass(kind: str, j: int) -> tuple[Follower, tuple[bytes, ...], bytes, str]:
    """A follower of a fresh blind table and the first pass of its first participant with
    position ``j`` replaced by the first point of ``kind``, signed by its author."""
    t = blind_table(2, 1, seed=5)
    holders = t.holders()
    first = t.setup.participants[0]
    author = holders[first]
    author.follower.begin_shuffle()
    points, _sig = author.make_pass(1)
    bad = (*points[:j], KINDS[kind][0][1], *points[j + 1 :])
    rec = author.follower.shuffles[-1]
    signature = sign(t.private[first], blind.pass_message(rec.ctx, first, 1, bad))
    other = holders[t.setup.participants[1]].follower
    other.begin_shuffle()
    return other, bad, signature, first


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_follower_refuses_a_pass_with_a_bad_point_and_blames_its_author(kind: str) -> None:
    """Not the next pass's author's lock, nor the locked deck's check: the first pass of the
    hand, refused by a follower that makes no pass after it — a file's replay, which tests
    every point of every pass (``Follower(every=True)``)."""
    follower, bad, signature, author = _bad_first_pass(kind, 3)
    follower = Follower(follower.setup)  # as a file's checker follows the hand
    follower.begin_shuffle()
    with pytest.raises(Cheat) as caught:
        follower.on_pass(author, 1, bad, signature)
    c = caught.value
    assert (c.fault, c.culprit, c.proven) == (BlindFault.BAD_PASS, author, True)
    assert c.detail.startswith("position 3 is not a point of the prime-order group: ")
    assert (author, 1) not in follower.shuffles[-1].passes  # never kept
    assert follower.stopped is not None
    assert follower.stopped[0] == "pass"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_live_every_point_is_checked_by_someone_before_it_is_used(kind: str) -> None:
    """A live follower checks every point's encoding as it comes (a non-canonical one, the
    identity: refused at once, by everyone); the group test of a pass that is not a shuffle's
    last is the host's, just after relaying it (tests over TLS below), and the next author's,
    whose lock refuses the point and names the pass's author."""
    follower, bad, signature, author = _bad_first_pass(kind, 3)
    if kind in ("noncanonical", "identity"):
        with pytest.raises(Cheat) as caught:
            follower.on_pass(author, 1, bad, signature)
        assert (caught.value.fault, caught.value.culprit) == (BlindFault.BAD_PASS, author)
        return
    follower.on_pass(author, 1, bad, signature)  # its encoding is sound: kept
    t = blind_table(2, 1, seed=5)
    nxt = t.holders()[t.setup.participants[1]]
    nxt.follower.begin_shuffle()
    nxt.follower.on_pass(author, 1, bad, signature)
    with pytest.raises(Cheat) as caught:
        nxt.make_pass(1)  # the next author's lock
    c = caught.value
    assert (c.fault, c.culprit) == (BlindFault.BAD_PASS, author)
    assert "position 3 is not a point of the prime-order group" in c.detail


# ---------------------------------------------------------------------------------------------
# Over real TLS: a modified client sends one in its pass, untouched clients judge


def bad_point_pass(kind: str) -> type[Holder]:
    """A holder whose first lock pass carries a bad point of ``kind`` at position 0, signed."""

    class BadPointPass(Holder):
        def make_pass(self, number: int) -> tuple[tuple[bytes, ...], bytes]:
            out, sig = super().make_pass(number)
            rec = self.follower.shuffles[-1]
            if number != 1 or rec.index != 0:
                return out, sig
            bad = (KINDS[kind][0][1], *out[1:])
            return bad, sign(self._sk, blind.pass_message(rec.ctx, self.pid, number, bad))

    BadPointPass.__name__ = f"BadPointPass_{kind}"
    return BadPointPass


def _pid(out: Outcome, name: str) -> str:
    seat = out.sessions[name].seat
    assert seat is not None
    return f"seat{seat}"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_bad_point_in_a_clients_pass_is_refused_as_it_arrives_and_blamed_over_tls(
    kind: str, tmp_path: Path
) -> None:
    """ann (modified) sends a bad point in her first lock pass; bob and cy are untouched.
    Every follower checks every point's encoding as it comes, so a non-canonical point or the
    identity is refused there by everyone, the host first, before it relays it. A point outside
    the group passes that, and the host relays it — then tests it at once, off the deal's
    critical path, and stops the hand in ann's name; bob, the next pass's author, cannot lock
    it either. Nobody makes a pass over it, and every honest verdict — live and ``verify`` of
    each file — blames ann, proven."""
    cheat = type("Cheating", (Session,), {"blind_holder": bad_point_pass(kind)})
    people = [Person("ann", cheat, honest=False), Person("bob"), Person("cy")]
    out = play_over_tls(make_host(blind=True, seats=3, bots=0, hands=1), people, tmp_path)
    ann = _pid(out, "ann")
    encoding = kind in ("identity", "noncanonical")
    for name in ("bob", "cy"):
        o = out.blind(name)[0]
        assert (o.status, o.culprit, o.fault) == ("unfair", ann, BlindFault.BAD_PASS), name
        assert o.proven, name
        if encoding:  # refused as it came, by every follower: the live catch is the verdict
            assert o.detail.startswith("position 0 is not a point of the prime-order group: ")
        f = out.alone[name][0]
        assert (f["status"], f["culprits"]) == ("unfair", [ann]), name
    said = f"hand 1 stopped: ann {BlindFault.BAD_PASS.value}"
    assert said in out.host.log, out.host.log
    hand = out.host.last_hand
    assert isinstance(hand, BlindHand)
    (rec,) = hand.part.follower.shuffles
    # Refused on arrival (encoding), or relayed and then refused (the group): nobody made a
    # pass over it either way.
    assert ((ann, 1) in rec.passes) is not encoding
    assert len(rec.passes) == rec.order.index(ann) + (not encoding)


# ---------------------------------------------------------------------------------------------
# A saved hand whose JSON repeats a key (Python's reader keeps the last value; another may keep
# the first) is refused, nested objects included.

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def test_a_transcript_that_repeats_a_key_is_refused() -> None:
    text = (VECTORS / "hand-transcript.json").read_text(encoding="utf-8")
    Transcript.from_json(text)  # the vector as it is reads
    assert text.count('\n  "seat": 0,\n') == 1
    twice = text.replace('\n  "seat": 0,\n', '\n  "seat": 1,\n  "seat": 0,\n')
    assert json.loads(twice) == json.loads(text)  # what a plain reader makes of it
    with pytest.raises(TranscriptError, match="an object in the file gives the key 'seat' twice"):
        Transcript.from_json(twice)


def test_a_blind_hand_file_that_repeats_a_key_is_refused(tmp_path: Path) -> None:
    text = (VECTORS / "blind-hand.json").read_text(encoding="utf-8")
    assert blindfile.check(text)[1].status == "fair"
    key = json.loads(text)["setup"]["keys"]["alice"]
    other = json.loads(text)["setup"]["keys"]["@dealer"]
    assert text.count(f'"alice": "{key}"') == 1
    twice = text.replace(f'"alice": "{key}"', f'"alice": "{other}", "alice": "{key}"')
    assert json.loads(twice) == json.loads(text)  # a plain reader keeps the last: fair
    with pytest.raises(BlindFileError, match="gives the key 'alice' twice"):
        blindfile.check(twice)
    # And `lanswitch verify` (in a process of its own) says why it cannot read the file.
    path = tmp_path / "hand.json"
    path.write_text(twice, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "lanswitch", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2  # (before: 0, "FAIR (dealer-blind)")
    assert done.stdout == ""
    assert f"{path}: an object in the file gives the key 'alice' twice" in done.stderr


# ---------------------------------------------------------------------------------------------
# Session keys are points of the same curve: a player's must be one of the group


@pytest.mark.parametrize("kind", ["mixed_order", "small_order", "noncanonical"])
def test_a_player_whose_key_is_no_point_of_the_group_is_refused_at_hello(kind: str) -> None:
    """ann's hello carries a key that is a bad point (her real key plus a point of order 2,
    or a bad point of another kind). The host refuses her at once (bad_message) and she never
    sits; bob and the host's bot (a table of two seats) play the blind hand out, fair.
    Before, ann sat and the hand began: her signatures did not verify under that key, and
    every hand was stopped, blamed on her (bad_signature, pass 1) — and a key her signatures
    did verify under could not have been sealed to (the sealer's libsodium refuses such a
    point: an untyped error in the middle of a deal)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from lanswitch import protocol as p
    from lanswitch.host import HostConfig
    from tests.tablenet import TableNet

    net = TableNet(HostConfig(seats=2, bots=1, hands=1, blind=True, bot_delay=0), seed=3)
    key = Ed25519PrivateKey.from_private_bytes(net.rng.randbytes(32))
    ann = Session("ann", key=key, entropy=net.rng.randbytes, auto_ready=True, clock=lambda: net.now)
    if kind == "mixed_order":
        real = decode(ann.public_key)
        assert real is not None
        ann.public_key = encode(add(real, TORSION[2]))
    else:
        ann.public_key = KINDS[kind][0][1]
    link = net._open(ann)
    net.pump()
    assert any(
        isinstance(m, p.Error)
        and m.code is p.ErrorCode.BAD_MESSAGE
        and m.text == "your key is not an Ed25519 public key"
        for m in link.received
    ), link.received
    assert not link.alive
    assert ann.seat is None
    bob = net.join("bob")
    net.run(lambda: net.host.finished)
    assert [(r.judgement.status if r.judgement else None) for r in bob.session.history] == ["fair"]
    assert not any(line.startswith("ann") for line in net.host.log), net.host.log


def test_a_client_takes_no_part_in_a_hand_dealt_with_a_key_that_is_no_point() -> None:
    """A modified host deals a blind hand in which bob's key is his real key plus the point of
    order 2 (a key it would refuse at hello). ann's client refuses the hand before using any
    of it — a warning, and its verdict on its own record: unfair, the host's doing. Before,
    ann took part with that key in her setup (nothing she could seal to bob)."""
    from dataclasses import replace

    from lanswitch import protocol as p
    from lanswitch.fairdeal import DEALER
    from lanswitch.host import Host, HostConfig
    from tests.tablenet import TableNet

    class BadKeyHost(Host):
        keep = b""  # ann's key, dealt as it is

        def broadcast(self, message: p.Message) -> None:
            if isinstance(message, p.Hand):
                bob = next(q for q, k in message.keys.items() if q != DEALER and k != self.keep)
                real = decode(message.keys[bob])
                assert real is not None
                bad = encode(add(real, TORSION[2]))
                message = replace(message, keys={**message.keys, bob: bad})
            super().broadcast(message)

    net = TableNet(HostConfig(seats=3, bots=1, hands=1, blind=True, bot_delay=0), seed=4)
    net.host = BadKeyHost(net.host.config, entropy=net.rng.randbytes, now=net.now)
    ann = net.join("ann")
    BadKeyHost.keep = ann.session.public_key
    bob = net.join("bob")
    net.run(lambda: bool(ann.session.history), steps=5000)
    said = "the host deals hand 1 with a key that is not an Ed25519 public key: not taking part"
    assert said in [n.text for n in ann.session.news if n.kind == "warning"]
    record = ann.session.history[0]
    assert record.judgement is not None
    assert (record.judgement.status, record.judgement.culprits) == ("unfair", (DEALER,))
    assert record.judgement.reason == said
    assert bob.session.history
