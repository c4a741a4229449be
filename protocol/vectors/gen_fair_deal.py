"""Generate ``protocol/vectors/fair-deal.json``, the fair deal's known-answer vectors (protocol
v2), and ``protocol/vectors/hand-transcript.json``, a whole small hand's transcript.

``python protocol/vectors/gen_fair_deal.py`` prints the JSON, ``--write`` updates both files and
``--check`` exits 1 if either is stale. ``tests/fairdeal/test_vectors.py`` checks every vector
against
``lanswitch.fairdeal`` (and recomputes the hashes, the HKDF and the keystream on its own) and
that the files are what this script writes.

Every value is computed twice: once by the small from-the-spec implementation below (plain
``hashlib``/``hmac``/``struct``, HKDF written out as in RFC 5869, the textbook shuffle, every
signed statement and log event spelled out byte by byte, Ed25519 straight from
``cryptography``), once by ``lanswitch.fairdeal``; the script stops if they differ. The
preimages (the exact bytes that are hashed or signed) are in the file too, for whoever writes
another implementation. All inputs are fixed — keys, seeds, the moves of the whole hand — and
Ed25519 signatures are deterministic, so the output is the same on every run.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import struct
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from lanswitch import fairdeal as fd  # noqa: E402
from lanswitch.cards import deck_cards  # noqa: E402
from lanswitch.fairdeal import keystream as ks  # noqa: E402
from lanswitch.fairdeal import primitives as fp  # noqa: E402
from lanswitch.fairdeal.log import (  # noqa: E402
    BY_BOT,
    BY_SEAT,
    BY_STAND_IN,
    BY_TIMEOUT,
    LEFT,
    LOST,
)
from lanswitch.fairdeal.round import Announcement, VoidRecord  # noqa: E402
from lanswitch.fairdeal.transcript import json_text  # noqa: E402
from lanswitch.game import BLUNDER_FLAG, DRAW, MAX_CARD, PASS, Game  # noqa: E402
from lanswitch.rules import PRESETS  # noqa: E402

OUT = Path(__file__).resolve().parent / "fair-deal.json"
HAND_OUT = Path(__file__).resolve().parent / "hand-transcript.json"

DEALER: Final = "@dealer"

# ---------------------------------------------------------------------------------------------
# A second implementation, straight from protocol/SPEC.md


def u8(x: int) -> bytes:
    return struct.pack(">B", x)


def u16(x: int) -> bytes:
    return struct.pack(">H", x)


def u32(x: int) -> bytes:
    return struct.pack(">I", x)


def enc(b: bytes | str) -> bytes:
    if isinstance(b, str):
        b = b.encode("ascii")
    return u16(len(b)) + b


def label(name: str) -> bytes:
    """``enc("lanswitch/v2/" + name)``: what every hash and signed statement begins with."""
    return enc("lanswitch/v2/" + name)


def sha(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def hkdf_sha256(salt: bytes, ikm: bytes, info: bytes) -> bytes:
    prk = hmac.new(salt, ikm, "sha256").digest()  # extract
    return hmac.new(prk, info + b"\x01", "sha256").digest()  # expand, one block = 32 bytes


def words(key: bytes) -> Iterator[int]:
    k = 0
    while True:
        block = hmac.new(key, label("stream") + u32(k), "sha256").digest()
        yield from struct.unpack(">8I", block)
        k += 1


def textbook_shuffle(key: bytes, cards: Sequence[int]) -> list[int]:
    a = sorted(cards)
    w = words(key)
    for i in range(len(a) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next(w)
        while x >= limit:
            x = next(w)
        j = x % n
        a[i], a[j] = a[j], a[i]
    return a


def hand_preimage(
    game_id: bytes,
    hand_no: int,
    decks: int,
    jokers: int,
    seats: Sequence[str],
    keys: Mapping[str, bytes],
) -> bytes:
    ps = [*seats, DEALER]
    return (
        label("hand")
        + game_id
        + u32(hand_no)
        + u8(decks)
        + u8(jokers)
        + u8(len(ps))
        + b"".join(enc(p) + enc(keys.get(p, b"")) for p in ps)
    )


def setup_note_data(
    rules_toml: str, dealer: int, out: Sequence[int], timer_ms: int, names: Sequence[str]
) -> bytes:
    return (
        sha(rules_toml.encode())
        + u8(dealer)
        + u8(len(out))
        + bytes(out)
        + u32(timer_ms)
        + u8(len(names))
        + b"".join(enc(n.encode("utf-8")) for n in names)
    )


def round_preimage(
    ctx0: bytes, r: int, count: int, head: bytes, mask: int, cards: Sequence[int]
) -> bytes:
    d = sorted(cards)
    return label("round") + ctx0 + u32(r) + u32(count) + head + u16(mask) + u16(len(d)) + bytes(d)


def commit_preimage(ctx: bytes, pid: str, seed: bytes) -> bytes:
    return label("commit") + ctx + enc(pid) + seed


def ikm(seeds: Mapping[str, bytes]) -> bytes:
    return b"".join(enc(p) + seeds[p] for p in sorted(seeds, key=str.encode))


def participants(seats: Sequence[str], mask: int) -> list[str]:
    return [p for s, p in enumerate(seats) if mask >> s & 1] + [DEALER]


def head_0(ctx0: bytes) -> bytes:
    return sha(label("log") + ctx0)


def next_head(head: bytes, event: bytes) -> bytes:
    return sha(label("log-event") + head + enc(event))


# -- the log's events, from their JSON form ---------------------------------------------------


def event_bytes(e: Mapping[str, Any]) -> bytes:
    """An event's encoding from its JSON form (``kind`` and its fields; bytes as hex)."""
    kind = e["kind"]
    if kind == "draw":
        return u8(1) + u8(e["seat"]) + u8(e["n"])
    if kind == "turnup":
        return u8(2) + u8(e["card"])
    if kind == "move":
        sig = bytes.fromhex(e["signature"])
        return u8(3) + u8(e["seat"]) + u8(e["by"]) + u32(e["move"]) + sig
    if kind == "shuffle":
        return u8(4) + u32(e["round"]) + u8(e["n"]) + u16(e["mask"])
    if kind == "note":
        return u8(5) + enc(e["label"]) + enc(bytes.fromhex(e["data"]))
    if kind == "away":
        base = u8(6) + u8(e["seat"]) + u8(e["how"])
        if e["how"] == 0:
            return base + u32(e["count"]) + bytes.fromhex(e["head"] + e["signature"])
        return base
    if kind == "back":
        return u8(7) + u8(e["seat"])
    raise ValueError(kind)


# -- the signed statements --------------------------------------------------------------------


def commit_msg(ctx: bytes, pid: str, c: bytes) -> bytes:
    return label("sign/commit") + ctx + enc(pid) + c


def reveal_msg(ctx: bytes, pid: str, c: bytes, seed: bytes) -> bytes:
    return label("sign/reveal") + ctx + enc(pid) + c + enc(seed)


def commitment_list(commitments: Sequence[tuple[str, bytes]]) -> bytes:
    return u8(len(commitments)) + b"".join(enc(p) + enc(c) for p, c in commitments)


def announce_msg(
    ctx0: bytes, r: int, stage: int, ctx: bytes, commitments: Sequence[tuple[str, bytes]]
) -> bytes:
    return label("sign/announce") + ctx0 + u32(r) + u8(stage) + ctx + commitment_list(commitments)


def abort_msg(
    ctx0: bytes,
    r: int,
    fault: str,
    culprits: Sequence[str],
    commitments: Sequence[tuple[str, bytes]],
) -> bytes:
    return (
        label("sign/abort")
        + ctx0
        + u32(r)
        + enc(fault)
        + u8(len(culprits))
        + b"".join(enc(c) for c in culprits)
        + commitment_list(commitments)
    )


def move_msg(ctx0: bytes, count: int, head: bytes, seat: int, by: int, move: int) -> bytes:
    return label("sign/move") + ctx0 + u32(count) + head + u8(seat) + u8(by) + u32(move)


def log_head_msg(ctx0: bytes, signer: str, count: int, head: bytes) -> bytes:
    return label("sign/log") + ctx0 + enc(signer) + u32(count) + head


def cards_msg(ctx0: bytes, pid: str, cards: Sequence[int]) -> bytes:
    return label("sign/cards") + ctx0 + enc(pid) + u16(len(cards)) + bytes(cards)


def ed_public(private: bytes) -> bytes:
    return Ed25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()


def ed_sign(private: bytes, message: bytes) -> bytes:
    return Ed25519PrivateKey.from_private_bytes(private).sign(message)


def ed_verify(public: bytes, message: bytes, signature: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except Exception:
        return False
    return True


def same(a: object, b: object, what: str) -> None:
    if a != b:
        raise SystemExit(f"gen_fair_deal: {what}: the spec implementation and lanswitch differ")


# ---------------------------------------------------------------------------------------------
# The vectors

RULES_52: Final = 'base = "switch"\n'
RULES_106: Final = 'base = "switch"\n\n[deal]\njokers = 2\n'


def seed_of(i: int, pid: str) -> bytes:
    """Seat ``i``'s seed: bytes 32i … 32i+31 (mod 256); @dealer's: 32 bytes of 0xff."""
    return b"\xff" * 32 if pid == DEALER else bytes((32 * i + b) % 256 for b in range(32))


def private_keys(seats: Sequence[str], bots: Sequence[str]) -> dict[str, bytes]:
    """Raw Ed25519 private keys: seat ``s`` has 32 bytes of ``s + 1``, @dealer 32 of 0xdd; a
    bot (a seat the host runs) has none."""
    keys = {p: bytes([s + 1]) * 32 for s, p in enumerate(seats) if p not in bots}
    keys[DEALER] = b"\xdd" * 32
    return keys


class Setup:
    """A hand's setup by the spec: ctx_0, the setup note and the head after it."""

    def __init__(
        self,
        *,
        game_id: bytes,
        hand_no: int,
        rules: str,
        seats: list[str],
        bots: list[str],
        decks: int,
        jokers: int,
        dealer: int = 0,
        out: tuple[int, ...] = (),
        timer_ms: int = 0,
        names: Sequence[str] = (),
    ) -> None:
        self.game_id, self.hand_no, self.rules, self.seats = game_id, hand_no, rules, seats
        self.names = list(names)
        self.decks, self.jokers, self.dealer, self.out = decks, jokers, dealer, out
        self.timer_ms = timer_ms
        self.private = private_keys(seats, bots)
        self.public = {p: ed_public(k) for p, k in self.private.items()}
        self.preimage = hand_preimage(game_id, hand_no, decks, jokers, seats, self.public)
        self.ctx0 = sha(self.preimage)
        data = setup_note_data(rules, dealer, out, timer_ms, names)
        self.note = u8(5) + enc("setup") + enc(data)
        self.heads = [head_0(self.ctx0), next_head(head_0(self.ctx0), self.note)]
        self.events = [self.note]
        lib = fd.HandSetup.from_toml(
            game_id,
            hand_no,
            rules,
            seats,
            {p: fp.public_bytes(k) for p, k in self.private.items()},
            dealer=dealer,
            out=out,
            turn_timer_ms=timer_ms,
            names=names,
        )
        same((lib.decks, lib.jokers), (decks, jokers), "the deck the rules give")
        same(lib.ctx0, self.ctx0, "hand context")
        same(lib.note.encode(), self.note, "setup note")
        self.lib = lib

    def add(self, event: bytes) -> bytes:
        self.events.append(event)
        self.heads.append(next_head(self.heads[-1], event))
        return self.heads[-1]

    def json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id.hex(),
            "hand_no": self.hand_no,
            "rules": self.rules,
            "rules_sha256": sha(self.rules.encode()).hex(),
            "decks": self.decks,
            "jokers": self.jokers,
            "seats": self.seats,
            "dealer": self.dealer,
            "out": list(self.out),
            "turn_timer_ms": self.timer_ms,
            "names": self.names,
            "private_keys": {p: k.hex() for p, k in self.private.items()},
            "keys": {p: self.public[p].hex() if p in self.public else "" for p in self.ids},
            "hand_context_preimage": self.preimage.hex(),
            "hand_context": self.ctx0.hex(),
            "setup_note": self.note.hex(),
            "head_0": self.heads[0].hex(),
            "head_1": self.heads[1].hex(),
        }

    @property
    def ids(self) -> list[str]:
        return [*self.seats, DEALER]


def round_vector(
    s: Setup, r: int, mask: int, cards: Sequence[int], seeds: Mapping[str, bytes]
) -> dict[str, Any]:
    """Round ``r`` announced with the log of ``s`` as it stands: context, commitments, key,
    keystream, order."""
    count, head = len(s.events), s.heads[-1]
    ps = participants(s.seats, mask)
    same(ps, list(fp.participants_of(s.seats, mask)), "participants")
    same(set(ps), set(seeds), "the seeds of the participants")
    pre = round_preimage(s.ctx0, r, count, head, mask, cards)
    ctx = sha(pre)
    same(ctx, fp.round_context(s.ctx0, r, count, head, mask, cards), "round context")
    commits = {}
    for p in ps:
        c = sha(commit_preimage(ctx, p, seeds[p]))
        same(c, fp.commitment(ctx, p, seeds[p]), f"commitment of {p}")
        commits[p] = c
    km = ikm(seeds)
    key = hkdf_sha256(ctx, km, label("deck-key"))
    same(key, fp.deck_key(ctx, seeds), "deck key")
    block0 = hmac.new(key, label("stream") + u32(0), "sha256").digest()
    block1 = hmac.new(key, label("stream") + u32(1), "sha256").digest()
    same(block0, ks.stream_block(key, 0), "stream block 0")
    same(block1, ks.stream_block(key, 1), "stream block 1")
    order = textbook_shuffle(key, cards)
    same(order, ks.shuffle(key, cards), "shuffle")
    same(order, ks.derive_order(ctx, seeds, cards), "derived order")
    return {
        "round": r,
        "count": count,
        "head": head.hex(),
        "mask": mask,
        "participants": ps,
        "cards": sorted(cards),
        "round_context_preimage": pre.hex(),
        "round_context": ctx.hex(),
        "seeds": {p: seeds[p].hex() for p in ps},
        "commitment_preimages": {p: commit_preimage(ctx, p, seeds[p]).hex() for p in ps},
        "commitments": {p: c.hex() for p, c in commits.items()},
        "ikm_order": sorted(ps, key=str.encode),
        "ikm": km.hex(),
        "deck_key_info": label("deck-key").hex(),
        "deck_key": key.hex(),
        "stream_block_0": block0.hex(),
        "stream_words_0": list(struct.unpack(">8I", block0)),
        "stream_block_1": block1.hex(),
        "order": order,
    }


def hand_vector(s: Setup, mask: int, before: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A hand's setup and its round 0 (the deal), announced after the setup note and the
    presence events ``before``."""
    for e in before:
        s.add(event_bytes(e))
    ps = participants(s.seats, mask)
    seeds = {p: seed_of(s.seats.index(p) if p in s.seats else 0, p) for p in ps}
    deck = deck_cards(s.decks, s.jokers)
    return {
        **s.json(),
        "before": [
            {"event": e, "encoding": event_bytes(e).hex(), "head": s.heads[2 + i].hex()}
            for i, e in enumerate(before)
        ],
        **round_vector(s, 0, mask, deck, seeds),
    }


def signed(private: bytes, message: bytes, lib_message: bytes, what: str) -> dict[str, str]:
    same(message, lib_message, f"the {what} statement")
    sig = ed_sign(private, message)
    same(sig, fp.sign(private, message), f"the {what} signature")
    return {"message": message.hex(), "signature": sig.hex()}


def log_vector(s: Setup, order: list[int]) -> dict[str, Any]:
    """After the deal of hand_52 (round 0 among alice, bob and dave; carol is the host's bot),
    one event of every kind and every maker of a move, each signed by whoever the spec says.

    Returns the vector; ``s`` holds the log after it. Every encoding, signature and presence
    rule holds (``checks.Presence`` and ``checks.check_move`` accept them all), but the moves
    are illustrative, not a legal hand of the rules.
    """
    keys = s.private
    rows: list[dict[str, Any]] = []

    def add(e: dict[str, Any]) -> None:
        count, head = len(s.events), s.heads[-1]
        if e["kind"] == "move":
            signer = s.seats[e["seat"]] if e["by"] == BY_SEAT else DEALER
            msg = move_msg(s.ctx0, count, head, e["seat"], e["by"], e["move"])
            same(
                msg,
                fp.move_message(s.ctx0, count, head, e["seat"], e["by"], e["move"]),
                "move statement",
            )
            e["signature"] = ed_sign(keys[signer], msg).hex()
            row: dict[str, Any] = {"event": e, "signer": signer, "statement": msg.hex()}
        elif e["kind"] == "away" and e["how"] == LEFT:
            pid = s.seats[e["seat"]]
            msg = log_head_msg(s.ctx0, pid, e["count"], s.heads[e["count"]])
            same(
                msg,
                fp.log_head_message(s.ctx0, pid, e["count"], s.heads[e["count"]]),
                "log head statement",
            )
            e["head"] = s.heads[e["count"]].hex()
            e["signature"] = ed_sign(keys[pid], msg).hex()
            row = {"event": e, "signer": pid, "statement": msg.hex()}
        else:
            row = {"event": e}
        data = event_bytes(e)
        ev = fd.decode_event(data)
        same(ev.encode(), data, "event encoding")
        row["encoding"] = data.hex()
        row["head"] = s.add(data).hex()
        rows.append(row)

    start = len(s.events)
    add({"kind": "shuffle", "round": 0, "n": len(order), "mask": 0b1011})
    for seat in range(4):
        add({"kind": "draw", "seat": seat, "n": 5})
    add({"kind": "turnup", "card": order[20]})
    add({"kind": "move", "seat": 0, "by": BY_SEAT, "move": order[0]})
    add({"kind": "move", "seat": 1, "by": BY_TIMEOUT, "move": DRAW})
    add({"kind": "draw", "seat": 1, "n": 1})
    add({"kind": "move", "seat": 2, "by": BY_BOT, "move": order[10]})
    add({"kind": "away", "seat": 3, "how": LEFT, "count": len(s.events)})
    add({"kind": "move", "seat": 3, "by": BY_STAND_IN, "move": PASS})
    add({"kind": "away", "seat": 1, "how": LOST})
    add({"kind": "back", "seat": 1})
    add({"kind": "move", "seat": 1, "by": BY_SEAT, "move": order[5]})
    heads = s.heads
    lib = fd.Log(s.ctx0, [fd.decode_event(e) for e in s.events])
    same(lib.heads, heads, "log heads")
    return {
        "note": (
            "After hand_52's setup note: one event of every kind and every maker of a move "
            "(seat, host's bot, host's stand-in, host on a timeout), each signed as the spec "
            "says over the log before it. Illustrative: not a legal hand of the rules."
        ),
        "hand_context": s.ctx0.hex(),
        "head_0": heads[0].hex(),
        "first": start,
        "events": rows,
        "final_head": heads[-1].hex(),
        "count": len(s.events),
    }


def flow_vector(
    s: Setup, r: int, mask: int, cards: Sequence[int], seeds: Mapping[str, bytes]
) -> dict[str, Any]:
    """Round ``r`` with its whole signed flow: stage 1 (the host's commitment), every
    commitment, stage 3, every reveal."""
    v = round_vector(s, r, mask, cards, seeds)
    ctx = bytes.fromhex(v["round_context"])
    ps = v["participants"]
    c = {p: bytes.fromhex(v["commitments"][p]) for p in ps}
    k = s.private
    commits = {
        p: signed(k[p], commit_msg(ctx, p, c[p]), fp.commitment_message(ctx, p, c[p]), "commit")
        for p in ps
    }
    reveals = {
        p: signed(
            k[p],
            reveal_msg(ctx, p, c[p], seeds[p]),
            fp.reveal_message(ctx, p, c[p], seeds[p]),
            "reveal",
        )
        for p in ps
    }
    stage1 = [(DEALER, c[DEALER])]
    stage3 = [(p, c[p]) for p in ps]
    ann1 = signed(
        k[DEALER],
        announce_msg(s.ctx0, r, 1, ctx, stage1),
        fp.announce_message(s.ctx0, r, False, ctx, dict(stage1)),
        "stage-1 announce",
    )
    ann3 = signed(
        k[DEALER],
        announce_msg(s.ctx0, r, 3, ctx, stage3),
        fp.announce_message(s.ctx0, r, True, ctx, dict(stage3)),
        "stage-3 announce",
    )
    # The library's Announcement makes the same signed statements.
    with_sigs = {p: (c[p], bytes.fromhex(commits[p]["signature"])) for p in ps}
    for fixed, shown, sig in ((False, stage1, ann1), (True, stage3, ann3)):
        lib = Announcement.make(
            fp.private_key(k[DEALER]),
            s.ctx0,
            r,
            fixed,
            ctx,
            cards,
            mask,
            {p: with_sigs[p] for p, _ in shown},
        )
        same(lib.signature.hex(), sig["signature"], "Announcement.make")
    return {
        **v,
        "announce_1": ann1,
        "commits": commits,
        "announce_3": ann3,
        "reveals": reveals,
    }


def signature_vector(
    s: Setup, log: dict[str, Any], flow: dict[str, Any], cards: list[int]
) -> dict[str, Any]:
    """One signed statement of every kind, spelled out, with its signer and signature."""
    k, ctx0 = s.private, s.ctx0
    ctx = bytes.fromhex(flow["round_context"])
    r = flow["round"]
    ps = flow["participants"]
    c = {p: bytes.fromhex(flow["commitments"][p]) for p in ps}
    seed = bytes.fromhex(flow["seeds"]["alice"])
    count, head = log["count"], bytes.fromhex(log["final_head"])
    move_row = next(row for row in log["events"] if row["event"]["kind"] == "move")
    m = move_row["event"]
    at = log["first"] + log["events"].index(move_row)
    fault, culprits = "missing_reveal", ["bob"]
    stage3 = [(p, c[p]) for p in ps]
    out: dict[str, Any] = {
        "commit": {
            "signer": "alice",
            **signed(
                k["alice"],
                commit_msg(ctx, "alice", c["alice"]),
                fp.commitment_message(ctx, "alice", c["alice"]),
                "commit",
            ),
        },
        "reveal": {
            "signer": "alice",
            **signed(
                k["alice"],
                reveal_msg(ctx, "alice", c["alice"], seed),
                fp.reveal_message(ctx, "alice", c["alice"], seed),
                "reveal",
            ),
        },
        "announce_1": {"signer": DEALER, **flow["announce_1"]},
        "announce_3": {"signer": DEALER, **flow["announce_3"]},
        "abort": {
            "signer": DEALER,
            "round": r,
            "fault": fault,
            "culprits": culprits,
            **signed(
                k[DEALER],
                abort_msg(ctx0, r, fault, culprits, stage3),
                fp.abort_message(ctx0, r, fault, culprits, dict(stage3)),
                "abort",
            ),
        },
        "move": {
            "signer": move_row["signer"],
            "count": at,
            "head": s.heads[at].hex(),
            "seat": m["seat"],
            "by": m["by"],
            "move": m["move"],
            **signed(
                k[move_row["signer"]],
                move_msg(ctx0, at, s.heads[at], m["seat"], m["by"], m["move"]),
                fp.move_message(ctx0, at, s.heads[at], m["seat"], m["by"], m["move"]),
                "move",
            ),
        },
        "log_head": {
            "signer": DEALER,
            "count": count,
            "head": head.hex(),
            **signed(
                k[DEALER],
                log_head_msg(ctx0, DEALER, count, head),
                fp.log_head_message(ctx0, DEALER, count, head),
                "log head",
            ),
        },
        "log_head_alice": {
            "signer": "alice",
            "count": count,
            "head": head.hex(),
            **signed(
                k["alice"],
                log_head_msg(ctx0, "alice", count, head),
                fp.log_head_message(ctx0, "alice", count, head),
                "log head",
            ),
        },
        "cards": {
            "signer": DEALER,
            "seat": "alice",
            "cards": cards,
            **signed(
                k[DEALER],
                cards_msg(ctx0, "alice", cards),
                fp.cards_message(ctx0, "alice", cards),
                "cards",
            ),
        },
    }
    # The library's abort record makes the same statement.
    void = VoidRecord.make(
        fp.private_key(k[DEALER]),
        ctx0,
        r,
        fd.Blame(fd.Fault.MISSING_REVEAL, culprits),
        {p: (c[p], b"") for p in ps},
    )
    same(void.signature.hex(), out["abort"]["signature"], "VoidRecord.make")
    for v in out.values():
        pub = s.public[v["signer"]]
        if not ed_verify(pub, bytes.fromhex(v["message"]), bytes.fromhex(v["signature"])):
            raise SystemExit("gen_fair_deal: a signature does not verify")
    return {"public_keys": {p: s.public[p].hex() for p in ("alice", DEALER)}, **out}


def rejection_vector() -> dict[str, Any]:
    """A hand-made word stream that hits the rejection bound, for testing a sampler."""
    cards = [0, 1, 2, 3, 4]
    w = [
        2**32 - 4,  # i=4, n=5: limit 2^32−1 (2^32 mod 5 = 1) → accepted, j = (2^32−4) mod 5 = 2
        2**32 - 3,  # i=3, n=4: 2^32 mod 4 = 0, limit 2^32 → accepted, j = 1
        2**32 - 1,  # i=2, n=3: limit 2^32−1 → rejected
        2**32 - 3,  # i=2, n=3: accepted, j = (2^32−3) mod 3 = 1
        6,  # i=1, n=2: j = 0
    ]
    order = ks.shuffle_words(cards, iter(w))
    same(order, [4, 0, 3, 1, 2], "the rejection vector's order")  # worked by hand, as above
    return {
        "cards": cards,
        "words": w,
        "order": order,
        "limits": {str(n): 2**32 - 2**32 % n for n in (2, 3, 5, 7, 52, 104, 106, 108)},
    }


# -- the whole small hand -----------------------------------------------------------------------

HAND_SEATS: Final = ["alice", "bob", "bot-1"]
HAND_NAMES: Final = ["Alice", "Bob", "Bot 1"]
HAND_PEOPLE: Final = ["alice", "bob"]
HAND_SEED: Final = 7  # moves from random.Random(7): one reshuffle, 156 events, Alice wins


def hand_keys() -> dict[str, bytes]:
    """Raw Ed25519 private keys: alice 01…01, bob 02…02, @dealer 03…03; bot-1 has none."""
    return {p: bytes([i + 1]) * 32 for i, p in enumerate([*HAND_PEOPLE, DEALER])}


def hand_seed(pid: str, round_no: int) -> bytes:
    return sha(f"vector seed {pid} {round_no}".encode())


def play_hand() -> fd.FairHand:
    keys = hand_keys()
    game = Game(PRESETS["switch"], len(HAND_SEATS), dealer=0, hand_no=1)
    dealer = fd.Dealer(
        game,
        game_id=bytes(range(16)),
        seats=HAND_SEATS,
        key=keys[DEALER],
        keys=fd.public_keys_of(keys),
        names=HAND_NAMES,
    )
    rng = random.Random(HAND_SEED)

    def move(g: Game) -> int:
        legal = g.legal_moves()
        return legal[int(rng.random() * len(legal))]

    people = {p: k for p, k in keys.items() if p != DEALER}
    return fd.play_fair_hand(dealer, move, seeds=hand_seed, keys=people)


def stock_model(t: fd.Transcript) -> dict[str, Any]:
    """The spec's model of the hand, over the transcript's log alone, by the code above: the
    head chain, every round's context and order (the textbook shuffle over the seeds revealed,
    each checked to open its commitment), every move's signature, and the cards it deals the
    transcript's seat."""
    s = t.setup
    ctx0 = s.ctx0
    keys = dict(s.keys)
    head, count = head_0(ctx0), 0
    stock: list[int] = []
    pile: list[int] = []
    mine: list[int] = []
    rounds: list[dict[str, Any]] = []
    by_round = {rec.round: rec for rec in t.rounds}
    for ev in t.log:
        data = ev.encode()
        if isinstance(ev, fd.Draw):
            if ev.seat == t.seat:
                mine += stock[: ev.n]
            del stock[: ev.n]
        elif isinstance(ev, fd.TurnUp):
            same(stock[0], ev.card, "the turned-up card")
            pile.append(stock.pop(0))
        elif isinstance(ev, fd.Move):
            signer = s.seats[ev.seat] if ev.by == BY_SEAT else DEALER
            msg = move_msg(ctx0, count, head, ev.seat, ev.by, ev.move)
            if not ed_verify(keys[signer], msg, ev.signature):
                raise SystemExit(f"gen_fair_deal: the move at {count} is not signed")
            if ev.move < MAX_CARD and not ev.move & BLUNDER_FLAG:
                pile.append(ev.move)
        elif isinstance(ev, fd.Shuffle):
            if ev.round == 0:
                cards = deck_cards(s.decks, s.jokers)
            else:
                same(stock, [], "a reshuffle on an empty stock")
                cards = sorted(pile[:-1])
            same(ev.n, len(cards), "the cards a round orders")
            ctx = sha(round_preimage(ctx0, ev.round, count, head, ev.mask, cards))
            rec = by_round[ev.round]
            fixed = rec.fixed()
            assert fixed is not None
            same(fixed.ctx, ctx, f"round {ev.round}'s context")
            same(rec.at, count, f"where round {ev.round} was announced")
            seeds = {p: sd for p, (sd, _) in rec.seeds.items()}
            same(list(seeds), participants(s.seats, ev.mask), "the seeds revealed")
            for p, sd in seeds.items():
                same(sha(commit_preimage(ctx, p, sd)), fixed.commitments[p][0], "a seed")
            stock = textbook_shuffle(hkdf_sha256(ctx, ikm(seeds), label("deck-key")), cards)
            rounds.append(
                {
                    "round": ev.round,
                    "at": count,
                    "mask": ev.mask,
                    "participants": participants(s.seats, ev.mask),
                    "round_context": ctx.hex(),
                    "order": list(stock),
                }
            )
            pile = pile[-1:]
        head = next_head(head, data)
        count += 1
    return {"rounds": rounds, "seat_cards": mine, "count": count, "final_head": head.hex()}


def whole_hand_vector() -> tuple[dict[str, Any], str]:
    """The summary that goes into fair-deal.json, and the transcript file's text."""
    hand = play_hand()
    t = hand.transcripts[0]
    verdict = fd.verify(t)
    same(verdict.status, "fair", "the vector hand's verdict")
    model = stock_model(t)
    same(model["seat_cards"], list(t.cards), "alice's cards by the stock model")
    same(t.log_heads[DEALER].head.hex(), model["final_head"], "final head")
    same(t.log_heads[DEALER].count, model["count"], "final count")
    same(len(model["rounds"]), len(t.rounds), "every round dealt from")
    same(t.setup.note.encode(), t.log[0].encode(), "the setup note")
    return {
        "file": HAND_OUT.name,
        "note": (
            "The transcript of seat alice (seat 0) of a whole hand of switch among alice, bob "
            "and bot-1 (the host's bot: no key, its moves signed by @dealer), dealt by the fair "
            "deal with one reshuffle; it verifies fair. Keys are raw Ed25519 private keys; "
            "seeds are SHA-256('vector seed <id> <round>')."
        ),
        "private_keys": {p: k.hex() for p, k in hand_keys().items()},
        "rules_sha256": sha(t.setup.rules_toml.encode()).hex(),
        "setup_note": t.setup.note.encode().hex(),
        "hand_context": t.setup.ctx0.hex(),
        "rounds": model["rounds"],
        "orders": [r["order"] for r in model["rounds"]],
        "seat_cards": model["seat_cards"],
        "count": model["count"],
        "final_head": model["final_head"],
        "status": verdict.status,
        "outcome": verdict.outcome,
    }, t.to_json()


def build() -> dict[str, Any]:
    s52 = Setup(
        game_id=bytes(range(16)),
        hand_no=1,
        rules=RULES_52,
        seats=["alice", "bob", "carol", "dave"],
        bots=["carol"],
        decks=1,
        jokers=0,
        timer_ms=30_000,
        names=["Alice", "Bob", "Carol the bot", "Dave"],
    )
    h52 = hand_vector(s52, 0b1011)
    seats8 = ["alice", "Bob", "carol_9", "dave-2", "Eve", "frank", "0scar", "_heidi"]
    s106 = Setup(
        game_id=bytes(range(16, 32)),
        hand_no=7,
        rules=RULES_106,
        seats=seats8,
        bots=[],
        decks=2,
        jokers=2,
        dealer=3,
        names=["Ann", "Bo", "Zoë", "", "Eve", "Frank", "Oscar", "ハイジ"],
    )
    # Eve's link is lost before the deal: round 0 runs without her, after her Away event.
    h106 = hand_vector(s106, 0b11101111, [{"kind": "away", "seat": 4, "how": LOST}])
    log = log_vector(s52, h52["order"])
    # The reshuffle, announced where the log vector ends: dave has left, so alice and bob
    # (and @dealer) order the discard pile under its top card.
    pile: list[int] = []
    for e in (row["event"] for row in log["events"]):
        if e["kind"] == "turnup":
            pile.append(e["card"])
        elif e["kind"] == "move" and e["move"] < MAX_CARD:
            pile.append(e["move"])
    discard = sorted(pile[:-1])
    seeds = {
        p: bytes(b ^ 0xFF for b in seed_of(s52.seats.index(p) if p != DEALER else 0, p))
        for p in ("alice", "bob", DEALER)
    }
    flow = flow_vector(s52, 1, 0b0011, discard, seeds)
    return {
        "name": "lanswitch fair deal, protocol v2: known-answer vectors",
        "spec": "protocol/SPEC.md, section Fair deal",
        "generator": "protocol/vectors/gen_fair_deal.py",
        "conventions": (
            "Bytes are lowercase hex; card ids and integers are JSON numbers; orders list the "
            "top of the stock first; a mask has bit s for seat s; keys and seeds are fixed "
            "test values, never use them for play. hand_52 and hand_106 are a hand's setup "
            "and its round 0 (the deal); log continues hand_52's log; reshuffle is round 1 "
            "of hand_52, announced where log ends, with its whole signed flow."
        ),
        "labels": dict(fp.LABELS),
        "hand_52": h52,
        "hand_106": h106,
        "log": log,
        "reshuffle": flow,
        "signature": signature_vector(s52, log, flow, h52["order"][0:5]),
        "rejection": rejection_vector(),
        "hand": whole_hand_vector()[0],
    }


def render() -> str:
    return json_text(build()) + "\n"


def render_hand() -> str:
    return whole_hand_vector()[1]


def main(argv: list[str]) -> int:
    text = render()
    files = {OUT: text, HAND_OUT: render_hand()}
    if argv == ["--write"]:
        for path, content in files.items():
            path.write_text(content, encoding="utf-8")
        return 0
    if argv == ["--check"]:
        stale = [p for p, content in files.items() if p.read_text(encoding="utf-8") != content]
        for path in stale:
            print(f"{path} is stale: run python {Path(__file__).name} --write", file=sys.stderr)
        return 1 if stale else 0
    if argv:
        print("usage: gen_fair_deal.py [--write | --check]", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
