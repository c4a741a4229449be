"""Generate ``protocol/vectors/fair-deal.json``, the fair deal's known-answer vectors, and
``protocol/vectors/hand-transcript.json``, a whole small hand's transcript.

``python protocol/vectors/gen_fair_deal.py`` prints the JSON, ``--write`` updates both files and
``--check`` exits 1 if either is stale. ``tests/test_fairness.py`` checks every vector against
``lanswitch.fairness`` and that the files are current; ``tests/test_transcript.py`` verifies the
hand's transcript.

Every value is computed twice: once by the small from-the-spec implementation below (plain
``hashlib``/``hmac``/``struct``, HKDF written out as in RFC 5869, the textbook shuffle), once by
``lanswitch.fairness``; the script stops if they differ. The preimages (the exact bytes that
are hashed or signed) are in the file too, for whoever writes another implementation.
All inputs are fixed, so the output is the same on every run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import random
import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from lanswitch import fairness as fz  # noqa: E402
from lanswitch import transcript as tr  # noqa: E402
from lanswitch.cards import deck_cards  # noqa: E402
from lanswitch.game import Game  # noqa: E402
from lanswitch.rules import PRESETS  # noqa: E402

OUT = Path(__file__).resolve().parent / "fair-deal.json"
HAND_OUT = Path(__file__).resolve().parent / "hand-transcript.json"

# ---------------------------------------------------------------------------------------------
# A second implementation, straight from protocol/SPEC.md


def enc(b: bytes) -> bytes:
    return struct.pack(">H", len(b)) + b


def label(name: str) -> bytes:
    return enc(b"lanswitch/v1/" + name.encode())


def sha(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def hkdf_sha256(salt: bytes, ikm: bytes, info: bytes) -> bytes:
    prk = hmac.new(salt, ikm, "sha256").digest()  # extract
    return hmac.new(prk, info + b"\x01", "sha256").digest()  # expand, one block = 32 bytes


def words(key: bytes) -> Iterator[int]:
    k = 0
    while True:
        block = hmac.new(key, label("stream") + struct.pack(">I", k), "sha256").digest()
        yield from struct.unpack(">8I", block)
        k += 1


def textbook_shuffle(key: bytes, cards: list[int]) -> list[int]:
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
    game_id: bytes, hand_no: int, decks: int, jokers: int, participants: list[str]
) -> bytes:
    return (
        label("hand")
        + game_id
        + struct.pack(">IBBB", hand_no, decks, jokers, len(participants))
        + b"".join(enc(p.encode()) for p in participants)
    )


def reshuffle_preimage(ctx0: bytes, r: int, head: bytes, discard: list[int]) -> bytes:
    d = sorted(discard)
    return (
        label("reshuffle")
        + ctx0
        + struct.pack(">I", r)
        + head
        + struct.pack(">H", len(d))
        + bytes(d)
    )


def commit_preimage(ctx: bytes, pid: str, seed: bytes) -> bytes:
    return label("commit") + ctx + enc(pid.encode()) + seed


def ikm(seeds: dict[str, bytes]) -> bytes:
    return b"".join(enc(p.encode()) + seeds[p] for p in sorted(seeds, key=str.encode))


def same(a: object, b: object, what: str) -> None:
    if a != b:
        raise SystemExit(f"gen_fair_deal: {what}: the spec implementation and lanswitch differ")


# ---------------------------------------------------------------------------------------------
# The vectors


def seed_of(i: int, pid: str) -> bytes:
    """Seat ``i``'s seed: bytes 32i … 32i+31 (mod 256); @dealer's: 32 bytes of 0xff."""
    return b"\xff" * 32 if pid == fz.DEALER else bytes((32 * i + b) % 256 for b in range(32))


def hand_vector(
    game_id: bytes, hand_no: int, decks: int, jokers: int, seats: list[str]
) -> dict[str, Any]:
    ps = [*seats, fz.DEALER]
    pre = hand_preimage(game_id, hand_no, decks, jokers, ps)
    ctx = sha(pre)
    same(ctx, fz.hand_context(game_id, hand_no, decks, jokers, seats), "hand context")
    seeds = {p: seed_of(i, p) for i, p in enumerate(ps)}
    commits = {}
    for p in ps:
        c = sha(commit_preimage(ctx, p, seeds[p]))
        same(c, fz.commitment(ctx, p, seeds[p]), f"commitment of {p}")
        commits[p] = c
    km = ikm(seeds)
    key = hkdf_sha256(ctx, km, label("deck-key"))
    same(key, fz.deck_key(ctx, seeds), "deck key")
    block0 = hmac.new(key, label("stream") + bytes(4), "sha256").digest()
    block1 = hmac.new(key, label("stream") + b"\0\0\0\1", "sha256").digest()
    same(block0, fz.stream_block(key, 0), "stream block 0")
    cards = deck_cards(decks, jokers)
    order = textbook_shuffle(key, cards)
    same(order, fz.shuffle(key, cards), "shuffle")
    same(order, fz.derive_order(ctx, seeds, cards), "derived order")
    return {
        "game_id": game_id.hex(),
        "hand_no": hand_no,
        "decks": decks,
        "jokers": jokers,
        "seats": seats,
        "participants": ps,
        "context_preimage": pre.hex(),
        "context": ctx.hex(),
        "seeds": {p: s.hex() for p, s in seeds.items()},
        "commitment_preimages": {p: commit_preimage(ctx, p, seeds[p]).hex() for p in ps},
        "commitments": {p: c.hex() for p, c in commits.items()},
        "ikm_order": sorted(ps, key=str.encode),
        "ikm": km.hex(),
        "deck_key_info": label("deck-key").hex(),
        "deck_key": key.hex(),
        "stream_block_0": block0.hex(),
        "stream_words_0": list(struct.unpack(">8I", block0)),
        "stream_block_1": block1.hex(),
        "cards": cards,
        "order": order,
    }


def log_vector(ctx0: bytes, order: list[int]) -> tuple[dict[str, Any], bytes]:
    """A deal of 5 cards to each of 4 seats, the turn-up, and a few turns.

    The cards laid are those the 52-card vector's order deals, so the log is consistent with it.
    Returns the vector and the head after the last event.
    """
    hands = {s: order[5 * s : 5 * s + 5] for s in range(4)}
    starter = order[20]
    events: list[fz.LogEvent] = [fz.Draw(seat=s, n=5) for s in range(4)]
    events += [
        fz.TurnUp(card=starter),
        fz.Play(seat=0, card=hands[0][0]),
        fz.Suit(seat=0, suit=2),
        fz.Draw(seat=1, n=1),
        fz.Action(seat=1, move=201),
        fz.Play(seat=2, card=hands[2][3]),
        fz.Note(label="rules", data=sha(b"switch")),
        fz.Reshuffle(round=1, n=3),
    ]
    head = sha(label("log") + ctx0)
    head0 = head
    rows = []
    for ev in events:
        data = fz.encode_event(ev)
        same(fz.decode_event(data), ev, "event round trip")
        head = sha(label("log-event") + head + enc(data))
        rows.append({"event": _event_json(ev), "encoding": data.hex(), "head": head.hex()})
    same(head, fz.log_head(ctx0, events), "log head")
    return {
        "note": "Events are illustrative: they exercise every encoding, not a legal hand.",
        "context": ctx0.hex(),
        "head_0": head0.hex(),
        "events": rows,
        "final_head": head.hex(),
        "count": len(events),
    }, head


def _event_json(ev: fz.LogEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": type(ev).__name__.lower()}
    for f in dataclasses.fields(ev):
        v = getattr(ev, f.name)
        out[f.name] = v.hex() if isinstance(v, bytes) else v
    return out


def reshuffle_vector(
    ctx0: bytes, seats: list[str], head: bytes, discard: list[int]
) -> dict[str, Any]:
    pre = reshuffle_preimage(ctx0, 1, head, discard)
    ctx = sha(pre)
    same(ctx, fz.reshuffle_context(ctx0, 1, head, discard), "reshuffle context")
    ps = [*seats, fz.DEALER]
    # Fresh seeds for the fresh round: the hand's seeds with every byte inverted.
    seeds = {p: bytes(b ^ 0xFF for b in seed_of(i, p)) for i, p in enumerate(ps)}
    commits = {p: sha(commit_preimage(ctx, p, seeds[p])) for p in ps}
    key = hkdf_sha256(ctx, ikm(seeds), label("deck-key"))
    same(key, fz.deck_key(ctx, seeds), "reshuffle key")
    order = textbook_shuffle(key, discard)
    same(order, fz.shuffle(key, discard), "reshuffle order")
    return {
        "context_0": ctx0.hex(),
        "round": 1,
        "log_head": head.hex(),
        "discard": sorted(discard),
        "context_preimage": pre.hex(),
        "context": ctx.hex(),
        "seeds": {p: s.hex() for p, s in seeds.items()},
        "commitments": {p: c.hex() for p, c in commits.items()},
        "deck_key": key.hex(),
        "order": order,
    }


def signature_vector(
    ctx: bytes, seeds: dict[str, bytes], head: bytes, count: int, seat: str, cards: list[int]
) -> Any:
    sk = bytes(range(32))
    pk = fz.public_bytes(sk)
    pid = fz.DEALER
    c = sha(commit_preimage(ctx, pid, seeds[pid]))
    msgs = {
        "commitment": label("sign/commit") + ctx + enc(pid.encode()) + c,
        "reveal": label("sign/reveal") + ctx + enc(pid.encode()) + c + enc(seeds[pid]),
        "log_head": label("sign/log") + ctx + enc(pid.encode()) + struct.pack(">I", count) + head,
        "cards": label("sign/cards")
        + ctx
        + enc(seat.encode())
        + struct.pack(">H", len(cards))
        + bytes(cards),
    }
    same(msgs["commitment"], fz.commitment_message(ctx, pid, c), "commitment message")
    same(msgs["reveal"], fz.reveal_message(ctx, pid, c, seeds[pid]), "reveal message")
    same(msgs["log_head"], fz.log_head_message(ctx, pid, count, head), "log head message")
    same(msgs["cards"], fz.cards_message(ctx, seat, cards), "cards message")
    return {
        "private_key": sk.hex(),
        "public_key": pk.hex(),
        "signer": pid,
        "context": ctx.hex(),
        "commitment": c.hex(),
        "seed": seeds[pid].hex(),
        "count": count,
        "head": head.hex(),
        "cards_seat": seat,
        "cards": cards,
        "messages": {k: m.hex() for k, m in msgs.items()},
        "signatures": {k: fz.sign(sk, m).hex() for k, m in msgs.items()},
    }


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
    it = iter(w)
    order = fz.shuffle_words(cards, it)
    return {
        "cards": cards,
        "words": w,
        "order": order,
        "limits": {str(n): fz.rejection_limit(n) for n in (2, 3, 5, 7, 52, 104, 108)},
    }


# The whole small hand: switch, alice and bob, one reshuffle; random moves from a fixed seed.
HAND_SEED = 58


def hand_keys() -> dict[str, bytes]:
    """Raw Ed25519 private keys: alice 01…01, bob 02…02, @dealer 03…03."""
    return {p: bytes([i + 1]) * 32 for i, p in enumerate(fz.participants(["alice", "bob"]))}


def hand_seed(pid: str, round_no: int) -> bytes:
    return sha(f"vector seed {pid} {round_no}".encode())


def play_hand() -> tr.FairHand:
    keys = hand_keys()
    game = Game(PRESETS["switch"], 2, dealer=0, hand_no=1)
    host = tr.FairHost(
        game,
        game_id=bytes(range(16)),
        seats=["alice", "bob"],
        key=keys[fz.DEALER],
        public_keys=tr.public_keys_of(keys),
    )
    rng = random.Random(HAND_SEED)

    def move(g: Game) -> int:
        legal = g.legal_moves()
        return legal[int(rng.random() * len(legal))]

    return tr.play_fair_hand(host, move, seeds=hand_seed, keys=keys)


def stock_model(t: tr.Transcript) -> tuple[list[list[int]], list[int]]:
    """The spec's stock model over the transcript's log, with the textbook shuffle: every
    round's order, and the cards it deals the transcript's seat."""
    ctx0 = t.setup.ctx0
    seeds = {r.round: r.seeds for r in t.rounds}
    deck = deck_cards(t.setup.decks, t.setup.jokers)
    stock = textbook_shuffle(hkdf_sha256(ctx0, ikm(dict(seeds[0])), label("deck-key")), deck)
    orders, mine, pile = [list(stock)], [], []
    head = sha(label("log") + ctx0)
    for ev in t.log:
        if isinstance(ev, fz.Draw):
            if ev.seat == t.seat:
                mine += stock[: ev.n]
            del stock[: ev.n]
        elif isinstance(ev, fz.TurnUp):
            same(stock[0], ev.card, "turn-up")
            pile.append(stock.pop(0))
        elif isinstance(ev, fz.Play):
            pile.append(ev.card)
        elif isinstance(ev, fz.Reshuffle):
            same(stock, [], "reshuffle on an empty stock")
            ctx = sha(reshuffle_preimage(ctx0, ev.round, head, pile[:-1]))
            key = hkdf_sha256(ctx, ikm(dict(seeds[ev.round])), label("deck-key"))
            stock = textbook_shuffle(key, pile[:-1])
            orders.append(list(stock))
            pile = pile[-1:]
        head = sha(label("log-event") + head + enc(ev.encode()))
    return orders, mine


def whole_hand_vector() -> tuple[dict[str, Any], str]:
    """The summary that goes into fair-deal.json, and the transcript file's text."""
    hand = play_hand()
    t = hand.transcripts[0]
    verdict = tr.verify(t)
    same(verdict.status, "fair", "the vector hand's verdict")
    orders, mine = stock_model(t)
    same(mine, list(t.cards), "alice's cards by the stock model")
    head = fz.log_head(t.setup.ctx0, t.log)
    same(t.log_heads[fz.DEALER].head, head, "final head")
    return {
        "file": HAND_OUT.name,
        "note": (
            "The transcript of seat alice (seat 0) of a whole hand of switch between alice and "
            "bob, dealt by the fair deal with one reshuffle; it verifies fair. Keys are raw "
            "Ed25519 private keys; seeds are SHA-256('vector seed <id> <round>')."
        ),
        "private_keys": {p: k.hex() for p, k in hand_keys().items()},
        "rules_sha256": sha(t.setup.rules_toml.encode()).hex(),
        "setup_note": t.setup.note.encode().hex(),
        "orders": orders,
        "seat_cards": mine,
        "count": len(t.log),
        "final_head": head.hex(),
        "outcome": verdict.outcome,
    }, t.to_json()


def build() -> dict[str, Any]:
    seats4 = ["alice", "bob", "carol", "dave"]
    seats8 = ["alice", "Bob", "carol_9", "dave-2", "Eve", "frank", "0scar", "_heidi"]
    h52 = hand_vector(bytes(range(16)), 1, 1, 0, seats4)
    h104 = hand_vector(bytes(range(16, 32)), 7, 2, 0, seats8)
    ctx0 = bytes.fromhex(h52["context"])
    log, head = log_vector(ctx0, h52["order"])
    # Pretend the log before its Reshuffle event stands at the reshuffle: the head before it.
    head_before = bytes.fromhex(log["events"][-2]["head"])
    discard = sorted(h52["order"][20:23])
    reshuffle = reshuffle_vector(ctx0, seats4, head_before, discard)
    seeds52 = {p: bytes.fromhex(s) for p, s in h52["seeds"].items()}
    return {
        "name": "lanswitch fair deal, protocol v1: known-answer vectors",
        "spec": "protocol/SPEC.md, section Fair deal",
        "generator": "protocol/vectors/gen_fair_deal.py",
        "conventions": (
            "Bytes are lowercase hex; card ids and integers are JSON numbers; orders list the "
            "top of the stock first; seeds are fixed test values, never use them for play."
        ),
        "labels": dict(fz.LABELS),
        "hand_52": h52,
        "hand_104": h104,
        "log": log,
        "reshuffle": reshuffle,
        # The cards message: five cards of the 52-card order, as if dealt to the first seat.
        "signature": signature_vector(
            ctx0, seeds52, head, log["count"], seats4[0], h52["order"][0:5]
        ),
        "rejection": rejection_vector(),
        "hand": whole_hand_vector()[0],
    }


def render() -> str:
    return tr.json_text(build()) + "\n"


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
