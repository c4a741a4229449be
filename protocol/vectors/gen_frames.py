"""Generate ``protocol/vectors/frames.json``: known-answer frames of the wire protocol.

``python protocol/vectors/gen_frames.py`` prints the JSON, ``--write`` updates the file and
``--check`` exits 1 if it is stale. ``tests/test_protocol.py`` checks every vector both ways
(encoding the message gives the bytes, decoding the bytes gives the message) and that the
file is current.

``frames``: one message of every type, as the frame's hex and the payload's map in JSON
(binary values as ``{"bin": "<hex>"}``), so another implementation can check its encoder and
decoder without reading Python. Every payload is computed twice: by ``lanswitch.protocol``
and by plain ``msgpack.packb`` of the JSON map; the script stops if they differ.
``rejects``: frames a receiver must refuse, with the error code it must report (a protocol v1
peer's ``hello`` among them, and maps that repeat a key, written byte by byte). ``scenario``:
what the fair-deal frames are signed over (keys, contexts, the log position), so that every
commitment and signature in them can be checked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgpack

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from lanswitch import protocol as p  # noqa: E402
from lanswitch.fairdeal import BY_BOT, BY_SEAT, DEALER, Draw, HandSetup, Move  # noqa: E402
from lanswitch.fairdeal import primitives as fp  # noqa: E402
from lanswitch.fairdeal.blind.hand import blind_setup, move_message  # noqa: E402
from lanswitch.fairdeal.blind.holder import Holder  # noqa: E402
from lanswitch.game import HIDDEN_BASE  # noqa: E402

OUT = Path(__file__).resolve().parent / "frames.json"

# -- a small scenario, so that every signature in the fair-deal frames is real ----------------
#
# ann (seat 0, a person) and bot-1 (seat 1, the host's bot: no key) play hand 3 of a game; the
# log stands at LOG_COUNT events ending in LOG_HEAD (as if: the frames do not carry the log),
# the stock ran out, and round 1 orders the discard pile under its top card among ann and
# @dealer. The statements are lanswitch.fairdeal's; tests/test_protocol.py checks them again.

ANN_PRIVATE = bytes(range(32))
DEALER_PRIVATE = bytes(range(64, 96))
KEY = fp.public_bytes(ANN_PRIVATE)
KEY2 = bytes(range(32, 64))  # another client's key, in a hello
DEALER_KEY = fp.public_bytes(DEALER_PRIVATE)
TOKEN = bytes.fromhex("00112233445566778899aabbccddeeff")
GAME_ID = bytes(range(16))
RULES = 'base = "switch"\n'
TIMER_MS = 30_000
SETUP = HandSetup.from_toml(
    GAME_ID,
    3,
    RULES,
    ("ann", "bot-1"),
    {"ann": KEY, DEALER: DEALER_KEY},
    dealer=1,
    turn_timer_ms=TIMER_MS,
    names=("Ann", "bot-1"),
)
CTX0 = SETUP.ctx0
LOG_COUNT = 57
LOG_HEAD = bytes.fromhex("ab" * 32)
ROUND = 1
ROUND_CARDS = (3, 17, 29)
ROUND_MASK = 0b01  # ann
CTX = fp.round_context(CTX0, ROUND, LOG_COUNT, LOG_HEAD, ROUND_MASK, ROUND_CARDS)
SEED = bytes.fromhex("c3" * 32)
DEALER_SEED = bytes.fromhex("d4" * 32)
C_ANN = fp.commitment(CTX, "ann", SEED)
C_DEALER = fp.commitment(CTX, DEALER, DEALER_SEED)
SIG_C_ANN = fp.sign(ANN_PRIVATE, fp.commitment_message(CTX, "ann", C_ANN))
SIG_C_DEALER = fp.sign(DEALER_PRIVATE, fp.commitment_message(CTX, DEALER, C_DEALER))
SIG_R_ANN = fp.sign(ANN_PRIVATE, fp.reveal_message(CTX, "ann", C_ANN, SEED))
SIG_R_DEALER = fp.sign(DEALER_PRIVATE, fp.reveal_message(CTX, DEALER, C_DEALER, DEALER_SEED))
STAGE_1 = {DEALER: (C_DEALER, SIG_C_DEALER)}
STAGE_3 = {"ann": (C_ANN, SIG_C_ANN), DEALER: (C_DEALER, SIG_C_DEALER)}
SIG_ANNOUNCE_1 = fp.sign(
    DEALER_PRIVATE, fp.announce_message(CTX0, ROUND, False, CTX, {DEALER: C_DEALER})
)
SIG_ANNOUNCE_3 = fp.sign(
    DEALER_PRIVATE,
    fp.announce_message(CTX0, ROUND, True, CTX, {"ann": C_ANN, DEALER: C_DEALER}),
)
SIG_ABORT = fp.sign(
    DEALER_PRIVATE,
    fp.abort_message(CTX0, ROUND, "missing_reveal", ("ann",), {"ann": C_ANN, DEALER: C_DEALER}),
)
ANN_MOVE = 14
SIG_MOVE = fp.sign(ANN_PRIVATE, fp.move_message(CTX0, LOG_COUNT, LOG_HEAD, 0, BY_SEAT, ANN_MOVE))
BOT_MOVE = 27
SIG_BOT_MOVE = fp.sign(
    DEALER_PRIVATE, fp.move_message(CTX0, LOG_COUNT, LOG_HEAD, 1, BY_BOT, BOT_MOVE)
)
SIG_HEAD_ANN = fp.sign(ANN_PRIVATE, fp.log_head_message(CTX0, "ann", LOG_COUNT, LOG_HEAD))
SIG_HEAD_DEALER = fp.sign(DEALER_PRIVATE, fp.log_head_message(CTX0, DEALER, LOG_COUNT, LOG_HEAD))

# A dealer-blind hand of the same setup (SPEC § Dealer-blind): ann's lock pass of shuffle 0,
# the public keys of position 0, ann's key of position 1 sealed to @dealer, and position 1
# laid by ann as if it were hers (every signature real; seeds as above).
BLIND = blind_setup(SETUP)
_ANN_BLIND = Holder(BLIND, "ann", ANN_PRIVATE, lambda _k: SEED)
_DEALER_BLIND = Holder(BLIND, DEALER, DEALER_PRIVATE, lambda _k: DEALER_SEED)
_ANN_BLIND.follower.begin_shuffle()
_DEALER_BLIND.follower.begin_shuffle()
BLIND_PASS, SIG_BLIND_PASS = _ANN_BLIND.make_pass(1)
BLIND_SHARE = _ANN_BLIND.share(0, 0)
DEALER_SHARE = _DEALER_BLIND.share(0, 0)
BLIND_HIDDEN = HIDDEN_BASE + 1
BLIND_CARD = 5
BLIND_SEALED = _ANN_BLIND.seal(0, 1, DEALER)
LAID_SHARES = {"ann": _ANN_BLIND.share(0, 1, "ann"), DEALER: _DEALER_BLIND.share(0, 1, "ann")}
DEALER_LAID = LAID_SHARES[DEALER]
SIG_BLIND_MOVE = fp.sign(
    ANN_PRIVATE, move_message(BLIND.ctx0, 0, 0, "ann", BLIND_CARD, BLIND_HIDDEN)
)
ANN_CARDS = (1, 14, 40, 51)
SIG_CARDS = fp.sign(DEALER_PRIVATE, fp.cards_message(CTX0, "ann", ANN_CARDS))

SAMPLES: list[tuple[str, p.Message]] = [
    ("hello", p.Hello(version=p.PROTOCOL_VERSION, name="Ann", key=KEY)),
    (
        "hello_resume",
        p.Hello(
            version=p.PROTOCOL_VERSION,
            name="Bo",
            key=KEY2,
            spectate=False,
            password="tea",
            token=TOKEN,
        ),
    ),
    ("welcome", p.Welcome(version=p.PROTOCOL_VERSION, table="Kitchen", seat=1, token=TOKEN)),
    (
        "welcome_spectator",
        p.Welcome(version=p.PROTOCOL_VERSION, table="Kitchen", seat=None, token=TOKEN),
    ),
    (
        "error",
        p.Error(
            code=p.ErrorCode.VERSION_MISMATCH,
            text=f"this host speaks protocol {p.PROTOCOL_VERSION}, you sent 2",
        ),
    ),
    ("bye", p.Bye(reason="goodnight")),
    ("ping", p.Ping(nonce=7)),
    ("pong", p.Pong(nonce=7)),
    ("sit", p.Sit(seat=2)),
    ("sit_any", p.Sit()),
    ("stand", p.Stand()),
    ("ready", p.Ready(ready=True)),
    ("chat_from_client", p.Chat(text="gl hf")),
    ("chat_from_host", p.Chat(text="gl hf", sender="Ann")),
    (
        "lobby",
        p.LobbyState(
            table="Kitchen",
            rules="switch",
            host=0,
            seats=(
                p.LobbySeat(name="Ann", id="ann", ready=True, connected=True, key=KEY),
                p.LobbySeat(name="bot-1", id="bot-1", bot=True, ready=True, connected=True),
                p.LobbySeat(name="", id=""),
            ),
            spectators=1,
            playing=False,
            hands=2,
            scores=(10, -3, 0),
            turn_timer=30,
            you=0,
            bot_level="hard",
            hints=False,
        ),
    ),
    (
        "lobby_mid_hand_with_a_player_away",
        p.LobbyState(
            table="Kitchen",
            rules="switch",
            host=0,
            seats=(
                p.LobbySeat(name="Ann", id="seat0", ready=True, connected=True, key=KEY),
                p.LobbySeat(name="Bob", id="seat1", ready=True, key=KEY, grace_ms=4200),
            ),
            playing=True,
            hands=1,
            scores=(0, 0),
            you=0,
        ),
    ),
    (
        "lobby_to_a_spectator",
        p.LobbyState(
            table="Kitchen",
            rules="switch",
            host=None,
            seats=(p.LobbySeat(name="Zoë", id="zoe"), p.LobbySeat(name="", id="")),
        ),
    ),
    (
        "hand",
        p.Hand(
            game_id=GAME_ID,
            hand_no=SETUP.hand_no,
            seats=SETUP.seats,
            dealer=SETUP.dealer,
            out=SETUP.out,
            rules=RULES,
            keys={"ann": KEY, DEALER: DEALER_KEY},  # bot-1 is the host's: no key
            turn_timer_ms=TIMER_MS,
            names=SETUP.names,
        ),
    ),
    (
        "view",
        p.SeatView(
            seq=12,
            seat=0,
            hand=ANN_CARDS,
            counts=(4, 6),
            active=(True, True),
            top=27,
            top_face=1,
            named_suit=-1,
            free=False,
            direction=1,
            turn=0,
            phase=1,
            pending_kind="pickup",
            pending_amount=2,
            pending_target=0,
            missed=(0, 0),
            declared=(False, False),
            called_last=False,
            called_two=False,
            stock=38,
            discard=4,
            dealer=1,
            finished=(),
            legal=(1, 14, 200),
            timer_ms=25000,
        ),
    ),
    (
        "events",
        p.Events(
            seq=12,
            events=(("play", 1, 27), ("pickup", 1, 2), ("draw", 1, -1), ("turn", 0, -1)),
            log=(Move(1, BY_BOT, BOT_MOVE, SIG_BOT_MOVE).encode(), Draw(1, 1).encode()),
        ),
    ),
    ("move", p.Move(seq=12, move=ANN_MOVE, signature=SIG_MOVE)),
    (
        "reject",
        p.Reject(code=p.ErrorCode.ILLEGAL_MOVE, text="that card is not in your hand", seq=12),
    ),
    (
        "hand_over",
        p.HandOver(
            reason="finished",
            placings=(0, 1),
            scores=(0, 23),
            hand_points=(0, 23),
            head=(LOG_COUNT, LOG_HEAD, SIG_HEAD_DEALER),
            cards_signature=SIG_CARDS,
        ),
    ),
    (
        "hand_over_forfeit",
        p.HandOver(
            reason="forfeit",
            placings=(1, 0),
            scores=(0, 0),
            hand_points=(0, 0),
            head=(LOG_COUNT, LOG_HEAD, SIG_HEAD_DEALER),
            cards_signature=SIG_CARDS,
        ),
    ),
    (
        "announce_commit",
        p.Announce(
            round=ROUND,
            fixed=False,
            ctx=CTX,
            cards=ROUND_CARDS,
            seats=fp.seats_of(ROUND_MASK),
            commitments=STAGE_1,
            signature=SIG_ANNOUNCE_1,
        ),
    ),
    (
        "announce_reveal",
        p.Announce(
            round=ROUND,
            fixed=True,
            ctx=CTX,
            cards=ROUND_CARDS,
            seats=fp.seats_of(ROUND_MASK),
            commitments=STAGE_3,
            signature=SIG_ANNOUNCE_3,
        ),
    ),
    ("commit", p.Commit(round=ROUND, commitment=C_ANN, signature=SIG_C_ANN)),
    ("reveal", p.Reveal(round=ROUND, seed=SEED, signature=SIG_R_ANN)),
    (
        "reveals",
        p.Reveals(
            round=ROUND, seeds={"ann": (SEED, SIG_R_ANN), DEALER: (DEALER_SEED, SIG_R_DEALER)}
        ),
    ),
    (
        "abort",
        p.Abort(
            round=ROUND,
            fault="missing_reveal",
            culprits=("ann",),
            commitments=STAGE_3,
            signature=SIG_ABORT,
        ),
    ),
    ("log_head", p.LogHead(count=LOG_COUNT, head=LOG_HEAD, signature=SIG_HEAD_ANN)),
    (
        "log_heads",
        p.LogHeads(
            heads={
                "ann": (LOG_COUNT, LOG_HEAD, SIG_HEAD_ANN),
                DEALER: (LOG_COUNT, LOG_HEAD, SIG_HEAD_DEALER),
            }
        ),
    ),
    (
        "blind_pass",
        p.BlindPass(shuffle=0, number=1, points=BLIND_PASS, signature=SIG_BLIND_PASS),
    ),
    (
        "blind_pass_relayed",
        p.BlindPass(shuffle=0, number=1, points=BLIND_PASS, signature=SIG_BLIND_PASS, by="ann"),
    ),
    (
        "blind_share",
        p.BlindShare(shuffle=0, position=0, key=BLIND_SHARE.key, signature=BLIND_SHARE.signature),
    ),
    (
        "blind_open",
        p.BlindOpen(
            shuffle=0,
            position=0,
            shares={
                "ann": (BLIND_SHARE.key, BLIND_SHARE.signature),
                DEALER: (DEALER_SHARE.key, DEALER_SHARE.signature),
            },
        ),
    ),
    ("blind_release", p.BlindRelease(to=DEALER, hidden=BLIND_HIDDEN, sealed=BLIND_SEALED)),
    (
        "blind_move",
        p.BlindMove(
            seq=0,
            seat=0,
            move=BLIND_CARD,
            hidden=BLIND_HIDDEN,
            signature=SIG_BLIND_MOVE,
            shares={q: (s.key, s.signature) for q, s in LAID_SHARES.items()},
            by="ann",
        ),
    ),
    ("blind_seeds", p.BlindSeeds(seeds=(SEED,))),
    (
        "blind_seeds_stopping",
        p.BlindSeeds(
            seeds=(SEED,),
            fault="bad_key",
            detail="the keys open no card of this shuffle",
            complaint=((0, 1, DEALER, DEALER_LAID.key, DEALER_LAID.signature),),
        ),
    ),
    (
        "blind_reveal",
        p.BlindReveal(
            seeds={"ann": (SEED,), DEALER: (DEALER_SEED,)},
            complaints={"ann": ((0, 1, DEALER, DEALER_LAID.key, DEALER_LAID.signature),)},
        ),
    ),
    ("blind_leave", p.BlindLeave(by="ann", seeds=(SEED,))),
    (
        "blind_abort",
        p.BlindAbort(culprit="ann", fault="withheld", detail="its part of the deal never came"),
    ),
]


def scenario() -> dict[str, Any]:
    """What the fair-deal frames' signatures are over, for checking them."""
    return {
        "note": (
            "ann (seat 0) and bot-1 (seat 1, the host's bot: no key) play hand 3; the log "
            "stands at log_count events ending in log_head (as if), and round 1 orders cards "
            "among ann and @dealer. Every commitment and signature in the frames is real."
        ),
        "private_keys": {"ann": ANN_PRIVATE.hex(), DEALER: DEALER_PRIVATE.hex()},
        "game_id": GAME_ID.hex(),
        "hand_no": SETUP.hand_no,
        "rules": RULES,
        "seats": list(SETUP.seats),
        "dealer": SETUP.dealer,
        "turn_timer_ms": TIMER_MS,
        "hand_context": CTX0.hex(),
        "log_count": LOG_COUNT,
        "log_head": LOG_HEAD.hex(),
        "round": ROUND,
        "round_mask": ROUND_MASK,
        "round_cards": list(ROUND_CARDS),
        "round_context": CTX.hex(),
        "seeds": {"ann": SEED.hex(), DEALER: DEALER_SEED.hex()},
        "cards": list(ANN_CARDS),
        "cards_note": (
            "the cards the host gave ann (seat 0), dealt and drawn, in the order given: "
            "hand_over.cards_signature is @dealer's signature of the cards message "
            "(SPEC § Signatures) for seat id ann over them; hand_over.head is @dealer's "
            "log-head signature over log_count and log_head"
        ),
        "blind_context": BLIND.ctx0.hex(),
        "blind_note": (
            "the blind_* frames: the same hand dealt blind (SPEC § Dealer-blind), ann's seed "
            "and @dealer's above as their seeds of shuffle 0; blind_move lays position 1 as "
            "card 5 (as if it were: the frame's signature and keys are real, the card is not)"
        ),
    }


def _frame(obj: object) -> str:
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    return (len(payload).to_bytes(4, "big") + payload).hex()


def _hello_named(name: str) -> str:
    """A ``hello`` frame valid in all but its ``name``."""
    hello = {"type": "hello", "version": p.PROTOCOL_VERSION, "name": name, "key": KEY}
    return _frame(hello | {"spectate": False, "password": None, "token": None})


def _map(*pairs: tuple[str, object]) -> bytes:
    """A msgpack map of ``pairs`` in order, a key given twice kept twice (``msgpack.packb`` of
    a dict cannot write one); a ``bytes`` value is a packed value already."""
    assert len(pairs) < 16  # a fixmap
    out = bytes([0x80 | len(pairs)])
    for k, v in pairs:
        out += msgpack.packb(k) + (v if isinstance(v, bytes) else msgpack.packb(v))
    return out


def _raw_frame(payload: bytes) -> str:
    return (len(payload).to_bytes(4, "big") + payload).hex()


def _share(s: Any) -> bytes:
    return msgpack.packb([s.key, s.signature], use_bin_type=True)  # type: ignore[no-any-return]


REJECTS: list[tuple[str, str, p.ErrorCode]] = [
    ("empty_frame", "00000000", p.ErrorCode.BAD_FRAME),
    ("too_big", f"{p.MAX_FRAME + 1:08x}", p.ErrorCode.TOO_BIG),
    ("not_msgpack", "00000001c1", p.ErrorCode.BAD_FRAME),
    ("two_values_in_one_frame", "000000020101", p.ErrorCode.BAD_FRAME),
    ("not_a_map", _frame([1, 2]), p.ErrorCode.BAD_MESSAGE),
    ("unknown_type", _frame({"type": "teleport"}), p.ErrorCode.BAD_MESSAGE),
    ("missing_field", _frame({"type": "ping"}), p.ErrorCode.BAD_MESSAGE),
    ("extra_field", _frame({"type": "ping", "nonce": 1, "x": 0}), p.ErrorCode.BAD_MESSAGE),
    ("wrong_type", _frame({"type": "ping", "nonce": "1"}), p.ErrorCode.BAD_MESSAGE),
    ("bool_is_not_int", _frame({"type": "ping", "nonce": True}), p.ErrorCode.BAD_MESSAGE),
    (
        "repeated_key",
        _raw_frame(_map(("type", "ping"), ("nonce", 1), ("nonce", 2))),
        p.ErrorCode.BAD_FRAME,
    ),
    (
        "repeated_key_in_a_nested_map",
        _raw_frame(
            _map(
                ("type", "blind_open"),
                ("shuffle", 0),
                ("position", 0),
                ("shares", _map(("ann", _share(BLIND_SHARE)), ("ann", _share(DEALER_SHARE)))),
            )
        ),
        p.ErrorCode.BAD_FRAME,
    ),
    (
        "name_with_a_bidi_override",
        _hello_named("Ann\u202e"),
        p.ErrorCode.BAD_MESSAGE,
    ),
    (
        "name_with_a_c1_control",
        _hello_named("Ann\u009b2J"),
        p.ErrorCode.BAD_MESSAGE,
    ),
    (
        "name_of_combining_marks",
        _hello_named("\u0301\u0301"),
        p.ErrorCode.BAD_MESSAGE,
    ),
    (
        "version_mismatch_v1",
        _frame({"type": "hello", "version": 1, "name": "Ann", "key": KEY}),
        p.ErrorCode.VERSION_MISMATCH,
    ),
    (
        "version_mismatch_v2",
        _frame({"type": "hello", "version": 2, "name": "Ann", "key": KEY}),
        p.ErrorCode.VERSION_MISMATCH,
    ),
    (
        "version_mismatch_v3",
        _frame({"type": "hello", "version": 3, "name": "Ann", "key": KEY}),
        p.ErrorCode.VERSION_MISMATCH,
    ),
    (
        "version_mismatch_future",
        _frame({"type": "hello", "version": p.PROTOCOL_VERSION + 1, "name": "Ann", "future": 1}),
        p.ErrorCode.VERSION_MISMATCH,
    ),
]


def to_json(v: Any) -> Any:
    """A decoded msgpack value in JSON: binary as ``{"bin": hex}``."""
    if isinstance(v, bytes):
        return {"bin": v.hex()}
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()}
    return v


def from_json(v: Any) -> Any:
    """The inverse of :func:`to_json`."""
    if isinstance(v, dict):
        if set(v) == {"bin"}:
            return bytes.fromhex(v["bin"])
        return {k: from_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [from_json(x) for x in v]
    return v


def build() -> dict[str, Any]:
    frames = []
    for name, message in SAMPLES:
        frame = p.encode_frame(message)
        payload = frame[4:]
        obj = msgpack.unpackb(payload, raw=False)
        again = msgpack.packb(from_json(to_json(obj)), use_bin_type=True)
        if again != payload:
            raise SystemExit(f"{name}: the payload does not survive plain msgpack")
        frames.append(
            {"name": name, "type": message.TYPE, "payload": to_json(obj), "hex": frame.hex()}
        )
    rejects = [{"name": n, "hex": h, "code": c.value} for n, h, c in REJECTS]
    return {
        "description": "lanswitch wire frames: u32 big-endian length, then a msgpack map "
        "(protocol/SPEC.md, Framing and Messages). Binary values in 'payload' are "
        "{'bin': hex}.",
        "protocol_version": p.PROTOCOL_VERSION,
        "max_frame": p.MAX_FRAME,
        "frames": frames,
        "rejects": rejects,
        "scenario": scenario(),
    }


def text() -> str:
    return json.dumps(build(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    out = text()
    if "--write" in argv:
        OUT.write_text(out, encoding="utf-8")
    elif "--check" in argv:
        if OUT.read_text(encoding="utf-8") != out:
            print("frames.json is stale: run python protocol/vectors/gen_frames.py --write")
            return 1
    else:
        sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
