"""Generate ``protocol/vectors/frames.json``: known-answer frames of the wire protocol.

``python protocol/vectors/gen_frames.py`` prints the JSON, ``--write`` updates the file and
``--check`` exits 1 if it is stale. ``tests/test_protocol.py`` checks every vector both ways
(encoding the message gives the bytes, decoding the bytes gives the message) and that the
file is current.

``frames``: one message of every type, as the frame's hex and the payload's map in JSON
(binary values as ``{"bin": "<hex>"}``), so another implementation can check its encoder and
decoder without reading Python. Every payload is computed twice: by ``lanswitch.protocol``
and by plain ``msgpack.packb`` of the JSON map; the script stops if they differ.
``rejects``: frames a receiver must refuse, with the error code it must report.
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

OUT = Path(__file__).resolve().parent / "frames.json"

KEY = bytes(range(32))
KEY2 = bytes(range(32, 64))
DEALER_KEY = bytes(range(64, 96))
TOKEN = bytes.fromhex("00112233445566778899aabbccddeeff")
HASH = bytes.fromhex("ab" * 32)
SIG = bytes.fromhex("5a" * 64)
SEED = bytes.fromhex("c3" * 32)
GAME_ID = bytes(range(16))

SAMPLES: list[tuple[str, p.Message]] = [
    ("hello", p.Hello(version=1, name="Ann", key=KEY)),
    (
        "hello_resume",
        p.Hello(version=1, name="Bo", key=KEY2, spectate=False, password="tea", token=TOKEN),
    ),
    ("welcome", p.Welcome(version=1, table="Kitchen", seat=1, token=TOKEN)),
    ("welcome_spectator", p.Welcome(version=1, table="Kitchen", seat=None, token=TOKEN)),
    ("error", p.Error(code=p.ErrorCode.VERSION_MISMATCH, text="this host speaks version 1")),
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
        ),
    ),
    (
        "hand",
        p.Hand(
            game_id=GAME_ID,
            hand_no=3,
            seats=("ann", "bot-1"),
            dealer=1,
            out=(),
            rules='name = "switch"\n',
            keys={"ann": KEY, "bot-1": KEY2, "@dealer": DEALER_KEY},
        ),
    ),
    (
        "view",
        p.SeatView(
            seq=12,
            seat=0,
            hand=(1, 14, 40, 104),
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
            log=(bytes.fromhex("03011b"), bytes.fromhex("010101")),
        ),
    ),
    ("move", p.Move(seq=12, move=14)),
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
            head=(57, HASH, SIG),
            cards_signature=SIG,
        ),
    ),
    ("announce_commit", p.Announce(round=1, ctx=HASH, cards=(3, 17, 29))),
    (
        "announce_reveal",
        p.Announce(
            round=1,
            ctx=HASH,
            cards=(3, 17, 29),
            commitments={"ann": (HASH, SIG), "bot-1": (HASH, SIG), "@dealer": (HASH, SIG)},
        ),
    ),
    ("commit", p.Commit(round=1, commitment=HASH, signature=SIG)),
    ("reveal", p.Reveal(round=1, seed=SEED, signature=SIG)),
    ("reveals", p.Reveals(round=0, seeds={"ann": (SEED, SIG), "@dealer": (SEED, SIG)})),
    ("abort", p.Abort(round=1, fault="missing_reveal", culprits=("bot-1",))),
    ("log_head", p.LogHead(count=57, head=HASH, signature=SIG)),
    ("log_heads", p.LogHeads(heads={"ann": (57, HASH, SIG), "@dealer": (57, HASH, SIG)})),
]


def _frame(obj: object) -> str:
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    return (len(payload).to_bytes(4, "big") + payload).hex()


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
        "version_mismatch",
        _frame({"type": "hello", "version": 2, "name": "Ann", "future": 1}),
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
