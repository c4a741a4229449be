"""Generate ``protocol/vectors/blind.json``, the dealer-blind deal's known-answer vectors
(``protocol/SPEC.md``, "Dealer-blind"), ``blind-hand.json``, a whole small blind hand's
file (alice and the host's bot, played to its end by heuristic bots from fixed seeds) as
``lanswitch verify`` reads it, ``blind-engine.json``, what the rules engine tells everyone
following a blind hand (SPEC "The rules engine on hidden cards": whose turn, what is turned up,
which hidden cards each step gives to whom) step by step for three whole hands, and the table
of deck sizes in protocol/SPEC.md ("The hand's setup").

``python protocol/vectors/gen_blind.py`` prints the JSON of the first, ``--write`` updates the
files and SPEC.md's table, and ``--check`` exits 1 if any is stale.
``tests/fairdeal/test_blind_vectors.py``
checks every vector against ``lanswitch.fairdeal.blind.crypto`` and the rules engine, and that the
files and the table are what this script writes.

The scalars are computed here from the spec alone (SHA-512 reduced mod ℓ, inverses and products
mod ℓ in plain integers, the permutation by the fair deal's textbook shuffle); the group
operations (Elligator 2 onto the prime-order subgroup, scalar multiplication without clamping)
are libsodium's, through PyNaCl, as the spec names them. All inputs are fixed, so the output
is the same on every run.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path
from typing import Any

import nacl.bindings as sodium
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from lanswitch.fairdeal import keystream as ks  # noqa: E402
from lanswitch.fairdeal import primitives as fp  # noqa: E402
from lanswitch.fairdeal.blind import crypto as blind  # noqa: E402
from lanswitch.fairdeal.blind.hand import move_message, shuffle_context  # noqa: E402
from lanswitch.fairdeal.setup import HandSetup  # noqa: E402

OUT = ROOT / "protocol" / "vectors" / "blind.json"
HAND_OUT = ROOT / "protocol" / "vectors" / "blind-hand.json"
ENGINE_OUT = ROOT / "protocol" / "vectors" / "blind-engine.json"
SPEC = ROOT / "protocol" / "SPEC.md"
TABLE_BEGIN = "<!-- BEGIN GENERATED TABLE (protocol/vectors/gen_blind.py) -->"
TABLE_END = "<!-- END GENERATED TABLE -->"
ELL = 2**252 + 27742317777372353535851937790883648493
PREFIX = "lanswitch/v2/blind/"


def enc(s: str | bytes) -> bytes:
    b = s.encode("ascii") if isinstance(s, str) else s
    return struct.pack(">H", len(b)) + b


def h(name: str, *parts: bytes) -> bytes:
    return hashlib.sha256(enc(PREFIX + name) + b"".join(parts)).digest()


def scalar(name: str, *parts: bytes) -> int:
    return (
        int.from_bytes(hashlib.sha512(enc(PREFIX + name) + b"".join(parts)).digest(), "little")
        % ELL
    )


def sb(k: int) -> bytes:
    return k.to_bytes(32, "little")


def textbook_shuffle(key: bytes, n: int) -> list[int]:
    """The fair deal's unbiased Fisher-Yates over HMAC-SHA256 keystream words (SPEC, "Keystream"
    and "Unbiased shuffle"), here through lanswitch's own words for brevity: the words are
    checked against the fair-deal vectors already."""
    a = list(range(n))
    words = ks.stream_words(key)
    for i in range(n - 1, 0, -1):
        j = ks.uniform(i + 1, words)
        a[i], a[j] = a[j], a[i]
    return a


def mult(k: int, p: bytes) -> bytes:
    out: bytes = sodium.crypto_scalarmult_ed25519_noclamp(sb(k), p)
    return out


def build() -> dict[str, Any]:
    ctx0 = hashlib.sha256(b"blind vectors ctx0").digest()
    cards = [0, 1, 12, 25, 51]
    points = {}
    for c in cards:
        r = h("card", ctx0, bytes([c]))
        points[c] = sodium.crypto_core_ed25519_from_uniform(r)
        assert points[c] == blind.card_point(ctx0, c)
    ctx = shuffle_context(ctx0, 0, cards)
    assert ctx == h("shuffle", ctx0, struct.pack(">IH", 0, len(cards)), bytes(cards))
    order = ["alice", "@dealer"]
    seeds = {"alice": bytes([0xA1]) * 32, "@dealer": bytes([0xD0]) * 32}
    participants = []
    cur = [points[c] for c in cards]
    deck_in = list(cur)
    outputs: dict[str, Any] = {}
    keys = {}
    for pid in order:
        who = enc(pid)
        lock = scalar("lock", ctx, who, seeds[pid])
        perm = textbook_shuffle(h("permute", ctx, who, seeds[pid]), len(cards))
        pos = [
            scalar("position", ctx, who, seeds[pid], struct.pack(">H", j))
            for j in range(len(cards))
        ]
        mine = blind.BlindKeys.derive(ctx, pid, seeds[pid], len(cards))
        assert (sb(lock), tuple(perm), tuple(sb(c) for c in pos)) == (
            mine.lock,
            mine.perm,
            mine.positions,
        )
        keys[pid] = (lock, perm, pos)
        participants.append(
            {
                "id": pid,
                "seed": seeds[pid].hex(),
                "lock": sb(lock).hex(),
                "perm": perm,
                "position_keys": [sb(c).hex() for c in pos],
            }
        )
    for pid in order:
        lock, perm, _pos = keys[pid]
        cur = [mult(lock, cur[src]) for src in perm]
        outputs[f"{pid}/1"] = [p.hex() for p in cur]
    for pid in order:
        lock, _perm, pos = keys[pid]
        inv = pow(lock, -1, ELL)
        cur = [mult(c * inv % ELL, p) for c, p in zip(pos, cur, strict=True)]
        outputs[f"{pid}/2"] = [p.hex() for p in cur]
    dealt = blind.dealt_order(ctx, cards, order, seeds)
    # Opening position 2 with both keys: (c_a · c_d)⁻¹ · D_2.
    j = 2
    m = keys["alice"][2][j] * keys["@dealer"][2][j] % ELL
    opened = mult(pow(m, -1, ELL), cur[j])
    assert opened == points[dealt[j]]
    # One release: alice's key of position 2, signed and sealed to the host.
    alice_sk = hashlib.sha256(b"blind vectors alice key").digest()
    host_sk = hashlib.sha256(b"blind vectors host key").digest()
    alice_pk = Ed25519PrivateKey.from_private_bytes(alice_sk).public_key().public_bytes_raw()
    host_pk = Ed25519PrivateKey.from_private_bytes(host_sk).public_key().public_bytes_raw()
    key = sb(keys["alice"][2][j])
    rmsg = (
        enc(PREFIX + "sign/release")
        + ctx
        + enc("alice")
        + enc("@dealer")
        + struct.pack(">H", j)
        + key
    )
    assert rmsg == blind.release_message(ctx, "alice", "@dealer", j, key)
    rsig = fp.sign(alice_sk, rmsg)
    _pk, alice_full = sodium.crypto_sign_seed_keypair(alice_sk)
    shared = sodium.crypto_scalarmult(
        sodium.crypto_sign_ed25519_sk_to_curve25519(alice_full),
        sodium.crypto_sign_ed25519_pk_to_curve25519(host_pk),
    )
    who = enc("alice") + enc("@dealer")
    aead_key = h("seal", shared, ctx, who)
    nonce = bytes(8) + struct.pack(">I", j)
    aad = enc(PREFIX + "sealed") + ctx + who + struct.pack(">H", j)
    sealed = sodium.crypto_aead_chacha20poly1305_ietf_encrypt(key + rsig, aad, nonce, aead_key)
    assert sealed == blind.seal_release(alice_sk, host_pk, ctx, "alice", "@dealer", j, key, rsig)
    pmsg = (
        enc(PREFIX + "sign/pass")
        + ctx
        + enc("alice")
        + bytes([1])
        + h(
            "points", struct.pack(">H", len(cards)), *[bytes.fromhex(x) for x in outputs["alice/1"]]
        )
    )
    assert pmsg == blind.pass_message(
        ctx, "alice", 1, [bytes.fromhex(x) for x in outputs["alice/1"]]
    )
    mmsg = move_message(ctx0, 3, 1, "alice", 25, blind_hidden := 512 + j)
    return {
        "about": "protocol/SPEC.md, Dealer-blind; generated by protocol/vectors/gen_blind.py",
        "ell": str(ELL),
        "label_prefix": PREFIX,
        "ctx0": ctx0.hex(),
        "card_points": {str(c): points[c].hex() for c in cards},
        "shuffle": {
            "index": 0,
            "cards": cards,
            "ctx": ctx.hex(),
            "order": order,
            "participants": participants,
            "input": [p.hex() for p in deck_in],
            "outputs": outputs,
            "dealt_order": dealt,
        },
        "lock": {
            "scalar": participants[0]["lock"],
            "point": points[0].hex(),
            "locked": mult(keys["alice"][0], points[0]).hex(),
        },
        "open": {
            "position": j,
            "point": cur[j].hex(),
            "card": dealt[j],
            "card_point": opened.hex(),
        },
        "release": {
            "sender": "alice",
            "to": "@dealer",
            "position": j,
            "sender_private": alice_sk.hex(),
            "sender_public": alice_pk.hex(),
            "to_private": host_sk.hex(),
            "to_public": host_pk.hex(),
            "key": key.hex(),
            "message": rmsg.hex(),
            "signature": rsig.hex(),
            "aead_key": aead_key.hex(),
            "nonce": nonce.hex(),
            "aad": aad.hex(),
            "sealed": sealed.hex(),
        },
        "pass_message": {"pid": "alice", "number": 1, "bytes": pmsg.hex()},
        "move_message": {
            "seq": 3,
            "seat": 1,
            "by": "alice",
            "move": 25,
            "hidden": blind_hidden,
            "bytes": mmsg.hex(),
        },
    }


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


def render_hand() -> str:
    """A whole blind hand of alice (seat 0) and the host's bot (seat 1), Switch, as alice's
    file: fixed keys, seeds ``SHA-256("blind hand/<id>/<shuffle>")``, heuristic bots."""
    import random

    from lanswitch.bots import make_bot
    from lanswitch.fairdeal.blind.file import dump
    from lanswitch.fairdeal.blind.hand import blind_setup
    from lanswitch.fairdeal.blind.holder import Holder
    from lanswitch.fairdeal.blind.local import play_blind_hand
    from lanswitch.game import Game
    from lanswitch.rules import preset

    private = {
        "alice": hashlib.sha256(b"blind hand alice key").digest(),
        fp.DEALER: hashlib.sha256(b"blind hand host key").digest(),
    }
    rules = preset("switch")
    # The setup a ``hand`` message gives (game id SHA-256("blind hand game")[:16], hand 1);
    # the blind ctx_0 is H("ctx0", ctx_0 ‖ head_1) of it (SPEC § Dealer-blind).
    setup = blind_setup(
        HandSetup.create(
            hashlib.sha256(b"blind hand game").digest()[:16],
            1,
            rules,
            ("alice", "bot"),
            {p: fp.public_bytes(k) for p, k in private.items()},
            names=("Alice", "Bot 1"),
        )
    )

    def seeds(pid: str) -> Any:
        return lambda k: hashlib.sha256(f"blind hand/{pid}/{k}".encode()).digest()

    holders = {p: Holder(setup, p, private[p], seeds(p)) for p in setup.participants}
    bot = make_bot("heuristic", rules)
    rng = random.Random(7)

    def choose(game: Game, seat: int) -> int:
        return bot.choose(game.view(seat), rng)

    hand = play_blind_hand(setup, holders, choose, check=False)
    assert hand.live is None
    assert holders["alice"].follower.game.over
    alice = holders["alice"]
    everyone = {p: dict(h.seeds) for p, h in holders.items()}
    return dump(alice.follower, "alice", everyone, alice.received)


# -- the rules engine on a blind hand, as every follower runs it ------------------------------

# (preset, seat ids, the seats with a person, dealer, seats sitting out, the tag its keys and
# seeds are made from): each hand reshuffles at least once; the switch hand's deal turns up
# three cards (skip_power), take-two's draws take two, j28's first player is on the dealer's
# right and draws are one_then_play, with a seat sitting the hand out.
EngineHand = tuple[str, tuple[str, ...], tuple[int, ...], int, tuple[int, ...], str]
ENGINE_HANDS: tuple[EngineHand, ...] = (
    ("switch", ("alice", "bot"), (0,), 1, (), "engine switch 12"),
    ("take-two", ("alice", "bob", "bot"), (0, 1), 1, (), "engine take-two 10"),
    ("j28", ("alice", "bot", "bob", "carol"), (0, 2), 1, (3,), "engine j28 1"),
)


def _engine_hand(
    name: str,
    seats: tuple[str, ...],
    people: tuple[int, ...],
    dealer: int,
    out: tuple[int, ...],
    tag: str,
) -> dict[str, Any]:
    """One blind hand played to its end by heuristic bots (keys and seeds from ``tag``), then
    followed again from its public steps alone, as a spectator's engine follows it: what that
    engine says at every step."""
    import random

    from lanswitch.bots import make_bot
    from lanswitch.fairdeal.blind.hand import BlindSetup, Follower
    from lanswitch.fairdeal.blind.holder import Holder
    from lanswitch.fairdeal.blind.local import play_blind_hand
    from lanswitch.fairdeal.blind.positions import drawn_positions
    from lanswitch.game import Game
    from lanswitch.rules import dump_toml, preset

    rules = preset(name)
    pids = [*(seats[s] for s in people), fp.DEALER]
    private = {q: hashlib.sha256(f"{tag} {q} key".encode()).digest() for q in pids}
    setup = BlindSetup(
        hashlib.sha256(f"{tag} ctx0".encode()).digest(),
        rules,
        seats,
        frozenset(people),
        {q: fp.public_bytes(k) for q, k in private.items()},
        dealer=dealer,
        out=out,
    )

    def seeds(q: str) -> Any:
        return lambda k: hashlib.sha256(f"{tag}/{q}/{k}".encode()).digest()

    holders = {q: Holder(setup, q, private[q], seeds(q)) for q in setup.participants}
    bot = make_bot("heuristic", rules)
    rng = random.Random(0)

    def choose(game: Game, seat: int) -> int:
        return bot.choose(game.view(seat), rng)

    played = play_blind_hand(setup, holders, choose, check=False)
    assert played.live is None
    host = holders[fp.DEALER].follower
    public = {(o.shuffle, o.position): o for o in host.openings}
    f = Follower(setup)  # the public engine: no card known that was not opened to all
    steps: list[dict[str, Any]] = []
    for kind, index in host.steps:
        if kind == "shuffle":
            req = f.game.chance_request()
            assert req is not None
            rec = f.begin_shuffle()
            done = host.shuffles[index]
            for number in (1, 2):
                for q in done.order:
                    f.on_pass(q, number, done.passes[(q, number)], done.signatures[(q, number)])
            ups: list[int] = []

            def turn_up(j: int, k: int = index, ups: list[int] = ups) -> Any:
                ups.append(j)
                return public[(k, j)].shares

            events = f.deal(turn_up)
            step: dict[str, Any] = {
                "shuffle": index,
                "kind": req[0],
                "cards": list(rec.cards),
                "base": rec.base,
                "order": list(rec.order),
                "turned_up": [[j, rec.opened[j]] for j in ups],
            }
        else:
            m = host.moves[index]
            events = f.on_move(m)
            step = {"move": m.seq, "seat": m.seat, "by": m.by, "code": m.move, "hidden": m.hidden}
        g = f.game
        step["events"] = [list(e) for e in events]
        step["gives"] = [[seat, h, f.owner(seat)] for seat, h in drawn_positions(events)]
        step["to_act"] = g.to_act()
        step["counts"] = list(g.counts)
        step["stock"] = len(g.stock)
        step["discard"] = len(g.discard)
        step["top"] = g.top
        steps.append(step)
    assert f.game.over
    result = holders[fp.DEALER].follower.game.result
    assert result is not None
    return {
        "preset": name,
        "rules": dump_toml(rules),
        "seats": list(seats),
        "people": list(people),
        "dealer": dealer,
        "out": list(out),
        "owners": [setup.owner(s) for s in range(len(seats))],
        "steps": steps,
        "over": {"reason": result.reason, "placings": list(result.placings)},
    }


def _plain(v: Any) -> bool:
    """A list of plain values, or a step: written on one line."""
    if isinstance(v, dict):
        return "events" in v
    return not any(isinstance(x, (dict, list)) for x in v)


def _compact(v: Any, pad: str = "") -> str:
    """JSON text of ``v`` with every list of plain values and every step (a map with
    ``events``) on one line: a hand has hundreds of steps."""
    if isinstance(v, dict) and "events" not in v:
        items = [f"{pad} {json.dumps(k)}: {_compact(x, pad + ' ')}" for k, x in v.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(v, list) and any(
        isinstance(x, dict) or (isinstance(x, list) and not _plain(x)) for x in v
    ):
        items = [f"{pad} {_compact(x, pad + ' ')}" for x in v]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(v, ensure_ascii=False)


def deck_sizes() -> dict[str, list[list[int]]]:
    """Per preset, per number of players dealt in (2..8): ``[decks, jokers, cards, hand size]``."""
    from lanswitch.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS

    return {
        name: [
            [r.decks_for(n), r.deal.jokers, r.deck_size_for(n), r.hand_size_for(n)]
            for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
        ]
        for name, r in PRESETS.items()
    }


def deck_table() -> str:
    """SPEC.md's table of the presets' deck sizes (``|D|`` of the deal) and hand sizes."""
    from lanswitch.rules import MAX_PLAYERS, MIN_PLAYERS

    counts = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    out = [
        TABLE_BEGIN,
        "",
        "| preset | jokers | " + " | ".join(f"{n} players" for n in counts) + " |",
        "|---|---|" + "---|" * len(counts),
    ]
    for name, rows in deck_sizes().items():
        cells = [f"{cards} · {hand}" for _decks, _jokers, cards, hand in rows]
        jokers = {j for _d, j, _c, _h in rows}
        assert len(jokers) == 1  # (the rules' [deal] jokers: one number for every count)
        out.append(f"| `{name}` | {jokers.pop()} | " + " | ".join(cells) + " |")
    out += ["", TABLE_END]
    return "\n".join(out)


def spec_with_table(spec: str) -> str:
    """``spec`` with its generated table replaced by :func:`deck_table`."""
    before, rest = spec.split(TABLE_BEGIN, 1)
    _old, after = rest.split(TABLE_END, 1)
    return before + deck_table() + after


def render_engine() -> str:
    return (
        _compact(
            {
                "about": (
                    "protocol/SPEC.md, The rules engine on hidden cards; generated by "
                    "protocol/vectors/gen_blind.py. Each hand as a follower that knows no card "
                    "but those opened to all sees it: per step (a shuffle, or a move) the engine "
                    "events, the hidden cards it gave to seats (gives: [seat, hidden card, "
                    "drawer]), whose move is next (to_act, -1: none) and the piles after it."
                ),
                "hidden_base": 512,
                "deck_sizes": {
                    "about": "per preset, for 2..8 players dealt in: "
                    "[decks, jokers, cards, hand size]",
                    **deck_sizes(),
                },
                "hands": [_engine_hand(*h) for h in ENGINE_HANDS],
            }
        )
        + "\n"
    )


def main() -> int:
    text = render()
    spec = SPEC.read_text(encoding="utf-8")
    if "--write" in sys.argv:
        OUT.write_text(text, encoding="utf-8")
        HAND_OUT.write_text(render_hand(), encoding="utf-8")
        ENGINE_OUT.write_text(render_engine(), encoding="utf-8")
        SPEC.write_text(spec_with_table(spec), encoding="utf-8")
    elif "--check" in sys.argv:
        if (
            OUT.read_text(encoding="utf-8") != text
            or HAND_OUT.read_text(encoding="utf-8") != render_hand()
            or ENGINE_OUT.read_text(encoding="utf-8") != render_engine()
            or spec_with_table(spec) != spec
        ):
            print("a blind vector is stale: run python protocol/vectors/gen_blind.py --write")
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
