"""A minimal lanswitch **v2** client written only from ``protocol/SPEC.md`` (issue #4).

Nothing here imports :mod:`lanswitch`: the wire (TLS 1.3, framing, msgpack messages and their
field types) and the fair deal (the hand context with its keys, round contexts bound to the log
and the mask, commitments, deck key, keystream, shuffle, the public log and its events, the seven
signed statements, the stock model, the checks a seat makes as the hand goes and its own
verification afterwards) are rebuilt from the text of the specification alone, with the
standard library, ``msgpack`` and ``cryptography`` (Ed25519). It does not know the rules of
Switch: it plays from ``view.legal`` and checks the hand with the stock model, the signatures
and the rounds — everything the spec lets a client check without the rules engine. If this
module and the reference implementation ever disagree while both pass their vectors, the spec
is ambiguous; if this module cannot be written from the spec, the spec is insufficient. Each
function names the section it follows so that a disagreement points at a paragraph.

The client (:class:`RawClient`) takes a seat, readies, takes part in every fair-deal round
(committing after the host, revealing once after a checked stage 3), signs every move over the
log it holds, signs its log head at the end (or before a ``bye`` when it leaves mid-hand), may
drop its connection and resume by its token, and verifies the hand on its own
(:func:`verify_hand`); :class:`Report` says what it saw. Where the spec leaves a choice open
the client makes the choice written in :data:`INTERPRETATIONS`; where the spec is silent or
wrong and the client follows the reference's behaviour, :data:`SPEC_NOTES` says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import random
import re
import secrets
import socket
import ssl
import time
import tomllib
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

PROTOCOL_VERSION = 8
MAX_PAYLOAD = 65536
DEALER = "@dealer"
PREFIX = b"lanswitch/v2/"

#: § Conventions: every label of the protocol (without the prefix).
LABELS = (
    "hand",
    "round",
    "commit",
    "deck-key",
    "stream",
    "log",
    "log-event",
    "sign/commit",
    "sign/reveal",
    "sign/announce",
    "sign/abort",
    "sign/move",
    "sign/log",
    "sign/cards",
)

#: Choices the spec leaves to the reader; the test prints them with its findings.
INTERPRETATIONS = (
    "a reshuffle round's cards D are recomputed from the public log with the stock model "
    "(TurnUp and a Move of a card id go on the pile, a later Shuffle keeps the pile's top card) "
    "and compared with announce.cards at once, as § Fair deal on the wire allows",
    "a client's own cards are the values of 'deal' and 'draw' engine events for its seat "
    "(§ Fair deal on the wire), and view.hand is those minus its own Move events of a card id",
    "a leaving player sends its goodbye head right after the view of a step, of every event it "
    "holds (§ Going away: 'the log so far')",
    "events and announces first received while catching up after a resume are 'replayed by a "
    "resume': the own-seat Away/timeout disputes are not raised for them (§ Moves, § Going away)",
)

#: Where the spec was silent, ambiguous or wrong for writing this client; the client follows
#: the reference's behaviour in each case (the test prints these with its findings).
SPEC_NOTES = (
    "§ The hand's setup vs § Resuming: 'a client refuses a hand whose (game_id, hand_no) it has "
    "already seen', yet a resume resends the hand's `hand` (§ Resuming 1); the client must "
    "accept an identical `hand` for the hand it holds as the start of a catch-up. The host "
    "resends the identical message; lanswitch's session keeps what it has on any `hand` of the "
    "(game_id, hand_no) it is in, without comparing; this client checks it is identical.",
    "§ A hand's log / § Round states (withdrawal): presence steps come 'only while no round is "
    "open (... the previous round dealt from or withdrawn)', but nothing on the wire says a "
    "round was withdrawn before the next stage 1: the `Away` that withdraws a round reaches the "
    "client while that round is, to it, still ANNOUNCED. The SPEC should say a client takes an "
    "Away/Back over an ANNOUNCED round as its withdrawal (the host withdraws, then logs the "
    "Away: host/_commit.py `_advance_round`); this client accepts it and marks the round "
    "withdrawn at the next stage 1.",
    "§ Announcements are kept and compared, reference note: 'check_same_round compares each "
    "later announcement with the round's first one only' is stale: commit a4d7092 compares "
    "every announcement with every earlier one.",
    "§ Round states, reference note: 'lanswitch's host withdraws a round only when a "
    "participant that has not yet committed is gone' is stale: commit a4d7092 withdraws the "
    "round when any participant goes before the commitments are fixed.",
    "§ Moves, reference note: 'lanswitch's host does not yet refuse a blunder of a legal move "
    "cleanly (error internal)' is stale: the host answers `reject` `illegal_move`.",
    "§ Connection states / `bye` / § Going away (leaving): the SPEC does not say that the end "
    "sending `bye` must let its last frames arrive: a client that closes its socket right "
    "after `log_head` and `bye`, with the host's frames still unread, makes TCP reset the "
    "connection, and the host may lose both unread: it then logs `Away(LOST)`, not the LEFT "
    "goodbye. lanswitch's client closes through asyncio's TLS shutdown; this client reads "
    "until the host closes (the host closes a connection once it has read its `bye`).",
    "§ Vectors: frames.json's scenario gives one log position (log_count, log_head) but not "
    "which frames are signed over it: the `move` frame and the bot's Move in the `events` "
    "frame are both signed over that same position (impossible in one log, fine 'as if'); "
    "found by trying. (hand_over.cards_signature: over the scenario's `cards`, now given.)",
    "§ Moves / § Sequence numbers / `move`: the SPEC says the host accepts a blunder (65536 + m) "
    "of a move m not legal now, and checks the signature (fair_deal) before the rules "
    "(illegal_move). The host refuses every blunder-flagged move with `illegal_move` 'not a "
    "move', after seq and before the signature (host/_commit.py `_move`): a blunder of an "
    "illegal move is refused, and one with a stranger's signature gets illegal_move, not "
    "fair_deal.",
)


class SpecViolationError(Exception):
    """The peer did something the spec rules out (or this client's reading of it does)."""


# --------------------------------------------------------------------------------------------
# Fair deal § Conventions


def u8(x: int) -> bytes:
    """One unsigned byte (Conventions)."""
    return x.to_bytes(1, "big")


def u16(x: int) -> bytes:
    """Two bytes, big-endian (Conventions)."""
    return x.to_bytes(2, "big")


def u32(x: int) -> bytes:
    """Four bytes, big-endian (Conventions)."""
    return x.to_bytes(4, "big")


def enc(b: bytes | str) -> bytes:
    """``u16(len(b)) ‖ b``; a text is ASCII first (Conventions)."""
    raw = b.encode("ascii") if isinstance(b, str) else b
    if len(raw) > 0xFFFF:
        raise ValueError("enc() takes at most 65535 bytes")
    return u16(len(raw)) + raw


def label(name: str) -> bytes:
    """The domain-separation label ``lanswitch/v2/<name>``."""
    if name not in LABELS:
        raise ValueError(f"no label {name!r}")
    return PREFIX + name.encode("ascii")


def h(name: str, x: bytes) -> bytes:
    """``H(name, x) = SHA-256(enc("lanswitch/v2/" ‖ name) ‖ x)``."""
    return hashlib.sha256(enc(label(name)) + x).digest()


# --------------------------------------------------------------------------------------------
# § Card ids, § Participants, § The hand's setup


def setup_cards(decks: int, jokers: int) -> list[int]:
    """The cards of a setup, ascending: ``0 .. 52·decks − 1`` then ``104 .. 104 + jokers − 1``."""
    if decks not in (1, 2) or not 0 <= jokers <= 4:
        raise SpecViolationError(f"no such setup: {decks} decks, {jokers} jokers")
    return list(range(52 * decks)) + list(range(104, 104 + jokers))


PID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def mask_of(seats: Sequence[int]) -> int:
    """A mask: ``u16`` with bit ``s`` for seat number ``s``."""
    m = 0
    for s in seats:
        m |= 1 << s
    return m


def seats_of(mask: int) -> list[int]:
    """The seat numbers of a mask, ascending."""
    return [s for s in range(16) if mask >> s & 1]


def participants_of(mask: int, seat_ids: Sequence[str]) -> list[str]:
    """``participants_of(mask)``: the ids of the seats in mask, in seat order, then ``@dealer``."""
    return [seat_ids[s] for s in seats_of(mask) if s < len(seat_ids)] + [DEALER]


def _preset_deal(spec: str) -> dict[str, tuple[Any, int]]:
    """§ The hand's setup, the presets' decks: per preset, ``decks`` (a table from each player
    count ``"2".."8"``) and ``jokers``, read from the SPEC's own table (a cell is ``|D| ·
    hand_size``, ``decks = (|D| − jokers) / 52``)."""
    out: dict[str, tuple[Any, int]] = {}
    for m in re.finditer(r"^\| `([a-z0-9-]+)` \| (\d+) \| (.+) \|$", spec, re.MULTILINE):
        jokers = int(m.group(2))
        cells = [c.split("·")[0].strip() for c in m.group(3).split(" | ")]
        if len(cells) != 7:
            continue
        decks = {str(n): (int(c) - jokers) // 52 for n, c in enumerate(cells, 2)}
        out[m.group(1)] = (decks, jokers)
    return out


#: § The hand's setup: a house-rules text leaves out keys that keep the preset's value; every
#: preset's deck is in the SPEC's generated table, read from SPEC.md itself.
PRESET_DEAL: dict[str, tuple[Any, int]] = _preset_deal(
    (Path(__file__).resolve().parent.parent / "protocol" / "SPEC.md").read_text(encoding="utf-8")
)


def deck_setup(rules: str, players: int) -> tuple[int, int]:
    """``decks`` and ``jokers`` of the rules' ``[deal]`` for ``players`` seats dealt in.

    A table of decks maps a player count ``"2".."8"`` (``"2"`` required) to the decks from that
    many players up: the entry with the largest key not above ``players``.
    """
    try:
        doc = tomllib.loads(rules)
    except tomllib.TOMLDecodeError as exc:
        raise SpecViolationError(f"hand.rules is not TOML: {exc}") from exc
    base = doc.get("base", doc.get("name", "switch"))
    if not isinstance(base, str) or base not in PRESET_DEAL:
        base = "switch"
    default_decks, default_jokers = PRESET_DEAL[base]
    deal = doc.get("deal", {})
    if not isinstance(deal, dict):
        raise SpecViolationError("[deal] is not a table")
    decks: Any = deal.get("decks", default_decks)
    if isinstance(decks, dict):
        keys = {int(k): v for k, v in decks.items() if str(k) in {str(n) for n in range(2, 9)}}
        if len(keys) != len(decks) or 2 not in keys:
            raise SpecViolationError(f"deal.decks {decks} is not a table of '2'..'8'")
        decks = keys[max(k for k in keys if k <= players)]
    jokers: Any = deal.get("jokers", default_jokers)
    if isinstance(decks, bool) or isinstance(jokers, bool):
        raise SpecViolationError("deal.decks/jokers are booleans")
    if not isinstance(decks, int) or not isinstance(jokers, int):
        raise SpecViolationError(f"deal.decks/jokers not numbers: {decks!r}, {jokers!r}")
    return decks, jokers


def hand_context(
    game_id: bytes,
    hand_no: int,
    decks: int,
    jokers: int,
    seat_ids: Sequence[str],
    keys: Mapping[str, bytes],
) -> bytes:
    """``ctx_0``: the game, the hand, the deck, the seats and who holds which key."""
    return h("hand", hand_context_preimage(game_id, hand_no, decks, jokers, seat_ids, keys))


def hand_context_preimage(
    game_id: bytes,
    hand_no: int,
    decks: int,
    jokers: int,
    seat_ids: Sequence[str],
    keys: Mapping[str, bytes],
) -> bytes:
    """What ``H("hand", ·)`` hashes; a seat of the host's has the empty key."""
    body = game_id + u32(hand_no) + u8(decks) + u8(jokers) + u8(len(seat_ids) + 1)
    for pid in [*seat_ids, DEALER]:
        body += enc(pid) + enc(keys.get(pid, b""))
    return body


def setup_note(
    rules: str, dealer: int, out: Sequence[int], turn_timer_ms: int, names: Sequence[str]
) -> bytes:
    """Event 0: ``Note("setup", SHA-256(rules) ‖ u8(dealer) ‖ u8(k) ‖ outs ‖ u32(timer)
    ‖ u8(m) ‖ enc(name_0) ‖ … ‖ enc(name_{m−1}))``, the names as UTF-8."""
    data = hashlib.sha256(rules.encode("utf-8")).digest() + u8(dealer) + u8(len(out))
    data += bytes(sorted(out)) + u32(turn_timer_ms) + u8(len(names))
    data += b"".join(enc(n.encode("utf-8")) for n in names)
    return encode_event(Event("note", label="setup", data=data))


# --------------------------------------------------------------------------------------------
# § Rounds and contexts, § Commitments, § Deck key, § Keystream, § Unbiased shuffle


def round_context_preimage(
    ctx0: bytes, r: int, count: int, head: bytes, mask: int, cards: Sequence[int]
) -> bytes:
    """What ``H("round", ·)`` hashes (the cards sorted here, as the spec says)."""
    d = sorted(cards)
    return ctx0 + u32(r) + u32(count) + head + u16(mask) + u16(len(d)) + bytes(d)


def round_context(
    ctx0: bytes, r: int, count: int, head: bytes, mask: int, cards: Sequence[int]
) -> bytes:
    """``ctx_r``: bound to the hand, the round's number, the log so far, the mask and ``D``."""
    return h("round", round_context_preimage(ctx0, r, count, head, mask, cards))


def commitment(ctx: bytes, pid: str, seed: bytes) -> bytes:
    """``C_p = H("commit", ctx_r ‖ enc(p) ‖ seed_p)`` (Commitments)."""
    return h("commit", ctx + enc(pid) + seed)


def deck_ikm(seeds: Mapping[str, bytes]) -> bytes:
    """``ikm``: ``enc(q) ‖ seed_q`` for the ids sorted by their ASCII bytes."""
    return b"".join(enc(p) + seeds[p] for p in sorted(seeds, key=lambda p: p.encode("ascii")))


def deck_key(ctx: bytes, seeds: Mapping[str, bytes]) -> bytes:
    """``K_r = HKDF-SHA256(salt = ctx_r, ikm, info = enc(label deck-key), L = 32)``."""
    prk = hmac.new(ctx, deck_ikm(seeds), hashlib.sha256).digest()
    return hmac.new(prk, enc(label("deck-key")) + b"\x01", hashlib.sha256).digest()


def stream_block(key: bytes, k: int) -> bytes:
    """``block_k`` of the keystream (Keystream)."""
    return hmac.new(key, enc(label("stream")) + u32(k), hashlib.sha256).digest()


def stream_words(key: bytes) -> Iterator[int]:
    """The keystream as big-endian u32 words, each produced once (bounded: 2^16 blocks)."""
    for k in range(1 << 16):
        block = stream_block(key, k)
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
    raise SpecViolationError("the keystream ran out (2^19 words rejected)")


def uniform(n: int, words: Iterator[int]) -> int:
    """A uniform integer in ``0 .. n−1`` by rejection (Unbiased shuffle)."""
    limit = 2**32 - (2**32 % n)
    for w in words:
        if w < limit:
            return w % n
    raise SpecViolationError("no word left")


def shuffle(cards: Sequence[int], words: Iterator[int]) -> list[int]:
    """Fisher–Yates over the sorted cards; ``order[0]`` is the top of the stock."""
    a = sorted(cards)
    for i in range(len(a) - 1, 0, -1):
        j = uniform(i + 1, words)
        a[i], a[j] = a[j], a[i]
    return a


def round_order(ctx: bytes, seeds: Mapping[str, bytes], cards: Sequence[int]) -> list[int]:
    """A round's order from its context, every participant's seed and its cards."""
    return shuffle(cards, stream_words(deck_key(ctx, seeds)))


# --------------------------------------------------------------------------------------------
# § Public log

LOG_LABEL = re.compile(r"[a-z0-9][a-z0-9._/-]{0,63}")
BY_PLAYER, BY_BOT, BY_STAND_IN, BY_TIMEOUT = 0, 1, 2, 3
LEFT, LOST = 0, 1


@dataclass(frozen=True)
class Event:
    """A public-log event: ``kind`` and its fields (those it does not have are 0 or empty)."""

    kind: str  # draw, turnup, move, shuffle, note, away, back
    seat: int = 0
    n: int = 0
    card: int = 0
    by: int = 0
    move: int = 0
    signature: bytes = b""
    round: int = 0
    mask: int = 0
    label: str = ""
    data: bytes = b""
    how: int = 0
    count: int = 0
    head: bytes = b""


def encode_event(ev: Event) -> bytes:
    """An event's one encoding (the § Public log table)."""
    if ev.kind == "draw":
        return b"\x01" + u8(ev.seat) + u8(ev.n)
    if ev.kind == "turnup":
        return b"\x02" + u8(ev.card)
    if ev.kind == "move":
        if len(ev.signature) != 64:
            raise ValueError("a Move carries a 64-byte signature")
        return b"\x03" + u8(ev.seat) + u8(ev.by) + u32(ev.move) + ev.signature
    if ev.kind == "shuffle":
        return b"\x04" + u32(ev.round) + u8(ev.n) + u16(ev.mask)
    if ev.kind == "note":
        return b"\x05" + enc(ev.label) + enc(ev.data)
    if ev.kind == "away":
        out = b"\x06" + u8(ev.seat) + u8(ev.how)
        if ev.how == LEFT:
            out += u32(ev.count) + ev.head + ev.signature
        return out
    if ev.kind == "back":
        return b"\x07" + u8(ev.seat)
    raise ValueError(ev.kind)


def decode_event(e: bytes) -> Event:
    """Parse one event's encoding; any other length or value is refused (Public log)."""

    def bad(why: str) -> SpecViolationError:
        return SpecViolationError(f"log event {e.hex()}: {why}")

    if not e:
        raise bad("empty")
    tag, body = e[0], e[1:]
    fixed = {1: 2, 2: 1, 3: 70, 4: 7, 7: 1}
    if tag in fixed and len(body) != fixed[tag]:
        raise bad(f"wrong length for tag {tag}")
    ev: Event
    if tag == 1:
        if body[1] == 0:
            raise bad("Draw of 0 cards")
        ev = Event("draw", seat=body[0], n=body[1])
    elif tag == 2:
        if body[0] > 107:
            raise bad("no such card")
        ev = Event("turnup", card=body[0])
    elif tag == 3:
        if body[1] > 3:
            raise bad(f"no maker {body[1]}")
        ev = Event(
            "move",
            seat=body[0],
            by=body[1],
            move=int.from_bytes(body[2:6], "big"),
            signature=body[6:],
        )
    elif tag == 4:
        if body[4] == 0:
            raise bad("Shuffle of 0 cards")
        ev = Event(
            "shuffle",
            round=int.from_bytes(body[:4], "big"),
            n=body[4],
            mask=int.from_bytes(body[5:7], "big"),
        )
    elif tag == 5:
        if len(body) < 2:
            raise bad("truncated Note")
        ln = int.from_bytes(body[:2], "big")
        lab, rest = body[2 : 2 + ln], body[2 + ln :]
        if len(lab) != ln or len(rest) < 2:
            raise bad("truncated Note")
        data = rest[2:]
        if len(data) != int.from_bytes(rest[:2], "big"):
            raise bad("Note data of the wrong length")
        text = lab.decode("ascii", errors="replace")
        if not LOG_LABEL.fullmatch(text):
            raise bad(f"bad Note label {text!r}")
        ev = Event("note", label=text, data=data)
    elif tag == 6:
        if len(body) < 2 or body[1] not in (LEFT, LOST):
            raise bad("Away of no known kind")
        if len(body) != (2 + 4 + 32 + 64 if body[1] == LEFT else 2):
            raise bad("wrong length for Away")
        if body[1] == LOST:
            ev = Event("away", seat=body[0], how=LOST)
        else:
            ev = Event(
                "away",
                seat=body[0],
                how=LEFT,
                count=int.from_bytes(body[2:6], "big"),
                head=body[6:38],
                signature=body[38:],
            )
    elif tag == 7:
        ev = Event("back", seat=body[0])
    else:
        raise bad(f"unknown tag {tag}")
    if encode_event(ev) != e:  # pragma: no cover - a bug of this decoder
        raise bad("not the canonical encoding")
    return ev


def log_head0(ctx0: bytes) -> bytes:
    """``head_0 = H("log", ctx_0)``."""
    return h("log", ctx0)


def log_next(head: bytes, event: bytes) -> bytes:
    """``head_{k+1} = H("log-event", head_k ‖ enc(e_k))``."""
    return h("log-event", head + enc(event))


def log_heads(ctx0: bytes, events: Sequence[bytes]) -> list[bytes]:
    """``head_0 … head_n`` of a log of ``n`` events."""
    heads = [log_head0(ctx0)]
    for e in events:
        heads.append(log_next(heads[-1], e))
    return heads


# --------------------------------------------------------------------------------------------
# § Signatures: the seven statements


def commit_statement(ctx: bytes, pid: str, c: bytes) -> bytes:
    """``enc(sign/commit) ‖ ctx_r ‖ enc(p) ‖ C_p``."""
    return enc(label("sign/commit")) + ctx + enc(pid) + c


def reveal_statement(ctx: bytes, pid: str, c: bytes, seed: bytes) -> bytes:
    """``enc(sign/reveal) ‖ ctx_r ‖ enc(p) ‖ C_p ‖ enc(seed_p)``."""
    return enc(label("sign/reveal")) + ctx + enc(pid) + c + enc(seed)


def _commitment_list(commitments: Sequence[tuple[str, bytes]]) -> bytes:
    """``u8(k) ‖ enc(q_1) ‖ enc(C_1) ‖ …`` in the order given."""
    return u8(len(commitments)) + b"".join(enc(q) + enc(c) for q, c in commitments)


def announce_statement(
    ctx0: bytes, r: int, fixed: bool, ctx: bytes, commitments: Sequence[tuple[str, bytes]]
) -> bytes:
    """The host's announce signature's message, stage 1 (``fixed`` false) or 3."""
    return (
        enc(label("sign/announce"))
        + ctx0
        + u32(r)
        + u8(3 if fixed else 1)
        + ctx
        + _commitment_list(commitments)
    )


def abort_statement(
    ctx0: bytes,
    r: int,
    fault: str,
    culprits: Sequence[str],
    commitments: Sequence[tuple[str, bytes]],
) -> bytes:
    """The host's abort signature's message."""
    return (
        enc(label("sign/abort"))
        + ctx0
        + u32(r)
        + enc(fault)
        + u8(len(culprits))
        + b"".join(enc(b) for b in culprits)
        + _commitment_list(commitments)
    )


def move_statement(ctx0: bytes, count: int, head: bytes, seat: int, by: int, move: int) -> bytes:
    """``enc(sign/move) ‖ ctx_0 ‖ u32(count) ‖ head ‖ u8(seat) ‖ u8(by) ‖ u32(move)``."""
    return enc(label("sign/move")) + ctx0 + u32(count) + head + u8(seat) + u8(by) + u32(move)


def log_statement(ctx0: bytes, signer: str, count: int, head: bytes) -> bytes:
    """``enc(sign/log) ‖ ctx_0 ‖ enc(signer) ‖ u32(count) ‖ head``."""
    return enc(label("sign/log")) + ctx0 + enc(signer) + u32(count) + head


def cards_statement(ctx0: bytes, seat_id: str, cards: Sequence[int]) -> bytes:
    """``enc(sign/cards) ‖ ctx_0 ‖ enc(s) ‖ u16(count) ‖ u8(c_1) ‖ …``."""
    return enc(label("sign/cards")) + ctx0 + enc(seat_id) + u16(len(cards)) + bytes(cards)


def verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Pure Ed25519 verification; any malformed key or signature is simply invalid."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def pairs(commitments: Mapping[str, Sequence[bytes]]) -> list[tuple[str, bytes]]:
    """``(id, C)`` of a ``commitments`` map, in the order the entries came."""
    return [(pid, bytes(v[0])) for pid, v in commitments.items()]


# --------------------------------------------------------------------------------------------
# A hand as one seat keeps it (§ Transcript), and its verification (§ Verification)


@dataclass
class RoundRecord:
    """One round as this seat saw it (a § Transcript round)."""

    round: int
    at: int
    announces: list[dict[str, Any]] = field(default_factory=list)  # announce fields, no type
    own_seed: bytes | None = None
    own_seed_sent: bool = False
    reveals: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)


@dataclass
class HandRecord:
    """Everything one person's seat keeps of a hand (§ Transcript's members)."""

    game_id: bytes
    hand_no: int
    seat: int | None  # None: a spectator's record (no transcript of its own, § Transcript)
    seats: list[str]
    dealer: int
    out: list[int]
    turn_timer_ms: int
    rules: str
    public_keys: dict[str, bytes]
    names: list[str] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    log: list[bytes] = field(default_factory=list)
    cards: list[int] = field(default_factory=list)
    cards_signature: bytes = b""
    log_heads: dict[str, tuple[int, bytes, bytes]] = field(default_factory=dict)
    void: dict[str, Any] | None = None
    disputes: list[tuple[int, str]] = field(default_factory=list)

    def context0(self) -> bytes:
        """``ctx_0`` of this hand."""
        decks, jokers = deck_setup(self.rules, len(self.seats) - len(self.out))
        return hand_context(self.game_id, self.hand_no, decks, jokers, self.seats, self.public_keys)

    def deck(self) -> list[int]:
        """The setup's cards."""
        return setup_cards(*deck_setup(self.rules, len(self.seats) - len(self.out)))


def _unhex_commitments(m: Mapping[str, Any]) -> dict[str, list[bytes]]:
    return {
        p: [bytes.fromhex(x["commitment"]), bytes.fromhex(x["signature"])] for p, x in m.items()
    }


def record_from_transcript(t: Mapping[str, Any]) -> HandRecord:
    """Read a § Transcript JSON object (version 3) into a :class:`HandRecord`."""
    if t.get("format") != "lanswitch-transcript" or t.get("version") != 3:
        raise SpecViolationError("not a version 3 transcript")
    if t.get("protocol") != "lanswitch/v2":
        raise SpecViolationError("not a lanswitch/v2 transcript")
    rec = HandRecord(
        game_id=bytes.fromhex(t["game_id"]),
        hand_no=t["hand_no"],
        seat=t["seat"],
        seats=list(t["seats"]),
        dealer=t["dealer"],
        out=list(t["out"]),
        turn_timer_ms=t["turn_timer_ms"],
        rules=t["rules"],
        public_keys={p: bytes.fromhex(k) for p, k in t["public_keys"].items()},
        names=list(t["names"]),
        log=[bytes.fromhex(e) for e in t["log"]],
        cards=list(t["cards"]),
        cards_signature=bytes.fromhex(t["cards_signature"]),
        log_heads={
            p: (x["count"], bytes.fromhex(x["head"]), bytes.fromhex(x["signature"]))
            for p, x in t["log_heads"].items()
        },
        disputes=[(d["event"], d["text"]) for d in t["disputes"]],
    )
    for r in t["rounds"]:
        rec.rounds.append(
            RoundRecord(
                round=r["round"],
                at=r["at"],
                announces=[
                    {
                        "round": r["round"],
                        "fixed": a["fixed"],
                        "ctx": bytes.fromhex(a["ctx"]),
                        "cards": list(a["cards"]),
                        "seats": list(a["seats"]),
                        "commitments": _unhex_commitments(a["commitments"]),
                        "signature": bytes.fromhex(a["signature"]),
                    }
                    for a in r["announces"]
                ],
                own_seed=None if r["own_seed"] is None else bytes.fromhex(r["own_seed"]),
                own_seed_sent=r["own_seed_sent"],
                reveals={
                    p: (bytes.fromhex(x["seed"]), bytes.fromhex(x["signature"]))
                    for p, x in r["reveals"].items()
                },
            )
        )
    if t["void"] is not None:
        v = t["void"]
        rec.void = {
            "round": v["round"],
            "fault": v["fault"],
            "culprits": list(v["culprits"]),
            "commitments": _unhex_commitments(v["commitments"]),
            "signature": bytes.fromhex(v["signature"]),
        }
    return rec


@dataclass
class Verdict:
    """The outcome of :func:`verify_hand`: § Verdicts' first that applies."""

    status: str  # fair, unconfirmed, unfair, void
    problems: list[str] = field(default_factory=list)  # every failed check (unfair)
    left: list[str] = field(default_factory=list)  # who went away, and how far it confirmed
    unconfirmed: list[str] = field(default_factory=list)
    orders: list[list[int]] = field(default_factory=list)  # every round dealt from
    seat_cards: list[int] = field(default_factory=list)  # what the seeds dealt this seat
    moves_by: dict[int, int] = field(default_factory=dict)  # how many Move events per maker


def move_maker_ok(
    by: int, seat: int, persons: set[int], away: set[int], turn_timer_ms: int
) -> bool:
    """§ Moves, who may make a move: the table of ``by`` as the log says at that point."""
    if by == BY_PLAYER:
        return seat in persons and seat not in away
    if by == BY_BOT:
        return seat not in persons
    if by == BY_STAND_IN:
        return seat in persons and seat in away
    if by == BY_TIMEOUT:
        return seat in persons and seat not in away and turn_timer_ms != 0
    return False


def move_signer(by: int, seat_id: str) -> str:
    """Whose key signs a Move of maker ``by``."""
    return seat_id if by == BY_PLAYER else DEALER


def verify_hand(rec: HandRecord) -> Verdict:
    """§ Verification, the raw client's own: everything but the rules of play.

    The checks in § Verification's order — the host's head, the cards signature, the setup
    note, then a walk of the log with the stock model (rounds reached and their announcements,
    presence, every Shuffle from the revealed seeds, every Move's maker and signature, every
    card event), the end of the replay, the abort, confirmations and disputes. Legality under
    the rules is the engine's and is not checked here (a card must still be in the hand that
    lays it). The first problem makes the verdict unfair; every problem is listed.
    """
    v = Verdict("fair")
    problems = v.problems
    keys = rec.public_keys
    ctx0 = rec.context0()
    n_log = len(rec.log)
    heads = log_heads(ctx0, rec.log)
    me = rec.seats[rec.seat] if rec.seat is not None else None
    persons = {s for s, pid in enumerate(rec.seats) if pid in keys}
    dkey = keys.get(DEALER, b"")
    # 1. the host's head
    dh = rec.log_heads.get(DEALER)
    if dh is None or not verify(dkey, dh[2], log_statement(ctx0, DEALER, dh[0], dh[1])):
        problems.append("log-heads: @dealer's head missing or not validly signed")
    elif (dh[0], dh[1]) != (n_log, heads[-1]):
        problems.append("log-heads: the host signed another log than the one it sent")
    # 2. cards
    if me is None:
        if rec.cards or rec.cards_signature:
            problems.append("cards: a spectator was given cards")
    elif not verify(dkey, rec.cards_signature, cards_statement(ctx0, me, rec.cards)):
        problems.append("cards: the cards signature does not verify over our cards")
    # 3. the setup
    note = setup_note(rec.rules, rec.dealer, rec.out, rec.turn_timer_ms, rec.names)
    if not rec.log or rec.log[0] != note:
        problems.append("log: log[0] is not the setup note")
    # 4. the replay, with the stock model
    deck = rec.deck()
    stock: list[int] = []
    pile: list[int] = []
    hands: dict[int, list[int]] = {s: [] for s in range(len(rec.seats))}
    given_me: list[int] = []
    away: set[int] = set()
    by_at: dict[int, list[RoundRecord]] = {}
    for rr in rec.rounds:
        by_at.setdefault(rr.at, []).append(rr)
    expected_round = 0
    last: RoundRecord | None = None  # the round announced last
    last_state = ""  # announced, fixed, dealt
    dealt_any = False
    last_shuffle_round = -1
    i = 1
    while i <= n_log:
        for rr in sorted(by_at.get(i, []), key=lambda x: x.round):
            if rr.round != expected_round:
                problems.append(f"round: round {rr.round} out of turn (expected {expected_round})")
            expected_round = rr.round + 1
            if last is not None and last_state == "fixed":
                problems.append(f"round: round {rr.round} announced over fixed round {last.round}")
            cards = sorted(pile[:-1]) if dealt_any else deck
            present = [s for s in sorted(persons) if s not in away]
            problems.extend(
                f"round: {x}"
                for x in check_round_record(ctx0, rec, rr, i, heads[i], present, cards)
            )
            last = rr
            last_state = "fixed" if any(a["fixed"] for a in rr.announces) else "announced"
        if i == n_log:
            break
        raw = rec.log[i]
        try:
            ev = decode_event(raw)
        except SpecViolationError as exc:
            problems.append(f"log: {exc}")
            break
        where = f"event {i}"
        if ev.kind in ("draw", "move", "away", "back") and ev.seat >= len(rec.seats):
            problems.append(f"log: {where} names seat {ev.seat}, not a seat of the hand")
            break
        if ev.kind == "shuffle":
            if stock:
                problems.append(f"log: {where} reshuffles a stock of {len(stock)} cards")
            if last is None or last.at != i or last_state != "fixed":
                problems.append(f"round: {where} deals no fixed round announced here")
            elif ev.round != last.round or ev.round <= last_shuffle_round:
                problems.append(f"round: {where} deals round {ev.round}, not {last.round}")
            d = sorted(pile[:-1]) if dealt_any else list(deck)
            if ev.n != len(d):
                problems.append(f"log: {where} Shuffle of {ev.n} cards, D holds {len(d)}")
            if last is not None and ev.mask != mask_of(last.announces[0]["seats"]):
                problems.append(f"round: {where} Shuffle's mask is not the round's")
            order = None
            if last is not None:
                order, found = round_order_of(ctx0, rec, last, i, heads[i], ev.mask, d)
                problems.extend(f"round: {x}" for x in found)
            if order is None:
                break
            v.orders.append(order)
            stock = list(order)
            if dealt_any:
                pile = pile[-1:]
            dealt_any = True
            last_state = "dealt"
            last_shuffle_round = ev.round
        elif ev.kind == "draw":
            if ev.n > len(stock):
                problems.append(f"log: {where} Draw of {ev.n} from a stock of {len(stock)}")
                break
            taken, stock = stock[: ev.n], stock[ev.n :]
            hands[ev.seat].extend(taken)
            if ev.seat == rec.seat:
                given_me.extend(taken)
        elif ev.kind == "turnup":
            if not stock or stock[0] != ev.card:
                problems.append(f"log: {where} TurnUp {ev.card} is not the stock's top")
                break
            pile.append(stock.pop(0))
        elif ev.kind == "move":
            v.moves_by[ev.by] = v.moves_by.get(ev.by, 0) + 1
            if not move_maker_ok(ev.by, ev.seat, persons, away, rec.turn_timer_ms):
                problems.append(f"move: {where} by {ev.by} for seat {ev.seat} is not allowed")
            signer = move_signer(ev.by, rec.seats[ev.seat])
            statement = move_statement(ctx0, i, heads[i], ev.seat, ev.by, ev.move)
            if not verify(keys.get(signer, b""), ev.signature, statement):
                problems.append(f"move: {where}'s signature is not {signer}'s over this log")
            if ev.move < 108:
                if ev.move not in hands[ev.seat]:
                    problems.append(f"log: {where} seat {ev.seat} lays {ev.move} it lacks")
                    break
                hands[ev.seat].remove(ev.move)
                pile.append(ev.move)
        elif ev.kind == "note":
            if ev.label == "setup":
                problems.append(f"log: {where} is a second setup note")
        elif ev.kind in ("away", "back"):
            why = presence_problem(ev, rec.seats, persons, away, ctx0, keys, i, heads)
            if why:
                problems.append(f"presence: {where} {why}")
            elif ev.kind == "away":
                away.add(ev.seat)
                pid = rec.seats[ev.seat]
                how = f"left (goodbye head of {ev.count})" if ev.how == LEFT else "lost"
                v.left.append(f"{pid} {how} at event {i}")
            else:
                away.discard(ev.seat)
        i += 1
    # 5. the abort
    if rec.void is not None:
        problems.extend(f"abort: {x}" for x in check_abort(ctx0, rec, rec.void, last))
    # 6. the end of the replay
    if expected_round != len(rec.rounds):
        problems.append("round: a round record was never reached (a redeal)")
    if last is not None and last_state == "fixed" and rec.void is None:
        problems.append(f"round: round {last.round} was fixed and neither dealt nor aborted")
    if given_me != rec.cards:
        problems.append("cards: the seeds did not deal this seat exactly the cards it was shown")
    v.seat_cards = given_me
    # 7. confirmations
    for s in sorted(persons):
        pid = rec.seats[s]
        if s == rec.seat:
            continue
        got = rec.log_heads.get(pid)
        if got is not None:
            if not verify(keys[pid], got[2], log_statement(ctx0, pid, got[0], got[1])):
                problems.append(f"log-heads: {pid}'s head is not validly signed")
            elif got[0] > n_log or heads[got[0]] != got[1]:
                problems.append(f"log-heads: {pid} signed another log (the host forked it)")
        if s not in away and (got is None or got[0] < n_log):
            v.unconfirmed.append(f"{pid} from event {0 if got is None else got[0]}")
    # 8. disputes
    problems.extend(f"dispute: at event {e}: {text}" for e, text in rec.disputes)
    if problems:
        v.status = "unfair"
    elif rec.void is not None:
        v.status = "void"
    elif v.unconfirmed:
        v.status = "unconfirmed"
    return v


def check_round_record(
    ctx0: bytes,
    rec: HandRecord,
    rr: RoundRecord,
    count: int,
    head: bytes,
    present: Sequence[int],
    cards: Sequence[int],
) -> list[str]:
    """A round reached at ``count``: its first announcement, the later ones, its own seed."""
    out: list[str] = []
    if not rr.announces:
        return [f"round {rr.round} has no announcement"]
    first = rr.announces[0]
    if first["fixed"]:
        out.append(f"round {rr.round}'s first announcement is not stage 1")
    out.extend(
        stage1_problems(
            ctx0, rec.public_keys, rec.seats, rr.round, first, count, head, present, cards
        )
    )
    fixed: dict[str, Any] | None = None
    for a in rr.announces[1:]:
        out.extend(contradiction(first, a))
        if a["fixed"]:
            if fixed is None:
                fixed = a
                out.extend(stage3_problems(ctx0, rec.public_keys, rec.seats, a))
            elif fixed != a:
                out.append(f"round {rr.round}: two different stage-3 announcements")
    if rr.own_seed is not None and fixed is not None and rec.seat is not None:
        me = rec.seats[rec.seat]
        mine = fixed["commitments"].get(me)
        if mine is None or mine[0] != commitment(fixed["ctx"], me, rr.own_seed):
            out.append(f"round {rr.round}: the host changed or dropped our commitment")
    return out


def stage1_problems(
    ctx0: bytes,
    keys: Mapping[str, bytes],
    seat_ids: Sequence[str],
    r: int,
    a: Mapping[str, Any],
    count: int,
    head: bytes,
    present: Sequence[int],
    cards: Sequence[int] | None,
) -> list[str]:
    """§ The round, step by step, 1: what a seat checks of a stage-1 announcement."""
    out: list[str] = []
    dkey = keys.get(DEALER, b"")
    statement = announce_statement(ctx0, r, False, a["ctx"], pairs(a["commitments"]))
    if not verify(dkey, a["signature"], statement):
        out.append(f"round {r}: the host's stage-1 signature does not verify")
    if a["seats"] != sorted(set(a["seats"])):
        out.append(f"round {r}: announce.seats is not ascending")
    if list(a["seats"]) != list(present):
        missing = sorted(set(present) - set(a["seats"]))
        extra = sorted(set(a["seats"]) - set(present))
        out.append(
            f"round {r}: the mask is not the people present "
            f"(leaves out seats {missing}, takes in seats {extra})"
        )
    if a["cards"] != sorted(set(a["cards"])) or not a["cards"]:
        out.append(f"round {r}: announce.cards is not ascending")
    if cards is not None and list(a["cards"]) != list(cards):
        out.append(f"round {r}: announce.cards {a['cards']} is not D {list(cards)}")
    mask = mask_of(a["seats"]) if all(0 <= s < 16 for s in a["seats"]) else -1
    if mask < 0 or a["ctx"] != round_context(ctx0, r, count, head, mask, a["cards"]):
        out.append(f"round {r}: ctx is not the context of our log, the mask and the cards")
    cs = a["commitments"]
    if list(cs) != [DEALER]:
        out.append(f"round {r}: stage 1 holds {list(cs)}, not @dealer's commitment alone")
    else:
        c, sig = cs[DEALER]
        if not verify(dkey, sig, commit_statement(a["ctx"], DEALER, c)):
            out.append(f"round {r}: @dealer's commitment signature does not verify")
    return out


def stage3_problems(
    ctx0: bytes, keys: Mapping[str, bytes], seat_ids: Sequence[str], a: Mapping[str, Any]
) -> list[str]:
    """Step 3: the host's signature, every participant's commitment in participant order."""
    out: list[str] = []
    r = a["round"]
    statement = announce_statement(ctx0, r, True, a["ctx"], pairs(a["commitments"]))
    if not verify(keys.get(DEALER, b""), a["signature"], statement):
        out.append(f"round {r}: the host's stage-3 signature does not verify")
    parts = participants_of(mask_of(a["seats"]), seat_ids)
    if list(a["commitments"]) != parts:
        out.append(f"round {r}: stage 3 lists {list(a['commitments'])}, not {parts}")
    for pid, (c, sig) in a["commitments"].items():
        if not verify(keys.get(pid, b""), sig, commit_statement(a["ctx"], pid, c)):
            out.append(f"round {r}: {pid}'s commitment signature does not verify")
    return out


def contradiction(first: Mapping[str, Any], a: Mapping[str, Any]) -> list[str]:
    """Two announcements of one round tell the same round (ctx, cards, mask, @dealer's C)."""
    r = first["round"]
    out = []
    for name in ("round", "ctx", "cards", "seats"):
        if first[name] != a[name]:
            out.append(f"round {r}: a later announcement changes {name} (host contradiction)")
    if first["commitments"].get(DEALER) != a["commitments"].get(DEALER):
        out.append(f"round {r}: a later announcement changes @dealer's commitment")
    return out


def round_order_of(
    ctx0: bytes,
    rec: HandRecord,
    rr: RoundRecord,
    count: int,
    head: bytes,
    mask: int,
    cards: Sequence[int],
) -> tuple[list[int] | None, list[str]]:
    """A due Shuffle: every participant's seed revealed, signed and opening; the order."""
    out: list[str] = []
    fixed = next((a for a in rr.announces if a["fixed"]), None)
    if fixed is None:
        return None, [f"round {rr.round} dealt without a stage 3"]
    ctx = round_context(ctx0, rr.round, count, head, mask, cards)
    if ctx != fixed["ctx"]:
        out.append(f"round {rr.round}: the Shuffle's context is not the announced one")
    parts = participants_of(mask, rec.seats)
    me = rec.seats[rec.seat] if rec.seat is not None else None
    if me is not None and me in parts:
        got = rr.reveals.get(me)
        if rr.own_seed is None or got is None or got[0] != rr.own_seed:
            out.append(f"round {rr.round}: our own seed is not the one revealed")
    seeds: dict[str, bytes] = {}
    for pid in parts:
        got = rr.reveals.get(pid)
        c = fixed["commitments"].get(pid, [b""])[0]
        if got is None:
            out.append(f"round {rr.round}: {pid}'s seed was never revealed")
            continue
        seed, sig = got
        if not verify(rec.public_keys.get(pid, b""), sig, reveal_statement(ctx, pid, c, seed)):
            out.append(f"round {rr.round}: {pid}'s reveal signature does not verify")
        if commitment(ctx, pid, seed) != c:
            out.append(f"round {rr.round}: {pid}'s seed does not open its commitment")
        seeds[pid] = seed
    if set(rr.reveals) - set(parts):
        out.append(f"round {rr.round}: seeds revealed for non-participants")
    if len(seeds) != len(parts):
        return None, out
    return round_order(ctx, seeds, cards), out


def presence_problem(
    ev: Event,
    seat_ids: Sequence[str],
    persons: set[int],
    away: set[int],
    ctx0: bytes,
    keys: Mapping[str, bytes],
    position: int,
    heads: Sequence[bytes],
) -> str:
    """§ Going away and coming back: an Away or Back at log position ``position``."""
    if ev.seat not in persons:
        return f"{ev.kind} of seat {ev.seat}, a seat of the host's"
    if ev.kind == "back":
        return "" if ev.seat in away else f"Back of seat {ev.seat}, which is not away"
    if ev.seat in away:
        return f"Away of seat {ev.seat}, already away"
    if ev.how == LEFT:
        pid = seat_ids[ev.seat]
        if ev.count > position or heads[ev.count] != ev.head:
            return f"{pid}'s goodbye head is not of this log's first {ev.count} events"
        if not verify(keys[pid], ev.signature, log_statement(ctx0, pid, ev.count, ev.head)):
            return f"{pid}'s goodbye head is not validly signed"
    return ""


def check_abort(
    ctx0: bytes, rec: HandRecord, void: Mapping[str, Any], last: RoundRecord | None
) -> list[str]:
    """§ Verification 5, the parts that need no engine: the abort is the host's and fits."""
    out: list[str] = []
    statement = abort_statement(
        ctx0, void["round"], void["fault"], void["culprits"], pairs(void["commitments"])
    )
    if not verify(rec.public_keys.get(DEALER, b""), void["signature"], statement):
        out.append("the abort is not validly signed by @dealer")
    if last is None or void["round"] != last.round:
        out.append("the abort does not name the round announced last")
    elif void["fault"] not in ("bad_reveal", "missing_reveal", "missing_commitment"):
        out.append(f"no such fault {void['fault']!r}")
    return out


# --------------------------------------------------------------------------------------------
# Network § Framing and § Messages

SEAT_ENTRY_FIELDS = ("name", "id", "bot", "ready", "connected", "key", "grace_ms")

#: Who may send what in the ``open`` state (Connection states).
CLIENT_OPEN = frozenset(
    {"sit", "stand", "ready", "chat", "move", "commit", "reveal", "log_head", "ping", "pong"}
    | {"blind_pass", "blind_share", "blind_release", "blind_move", "blind_seeds"}
)
HOST_OPEN = frozenset(
    {
        "lobby",
        "chat",
        "hand",
        "view",
        "events",
        "reject",
        "hand_over",
        "announce",
        "reveals",
        "abort",
        "log_heads",
        "ping",
        "pong",
        "blind_pass",
        "blind_open",
        "blind_release",
        "blind_move",
        "blind_reveal",
        "blind_leave",
        "blind_abort",
    }
)
ERROR_CODES = frozenset(
    {
        "bad_frame",
        "too_big",
        "bad_message",
        "unexpected",
        "version_mismatch",
        "bad_password",
        "bad_token",
        "table_full",
        "seat_taken",
        "not_now",
        "not_your_turn",
        "illegal_move",
        "stale_view",
        "fair_deal",
        "rate_limited",
        "kicked",
        "shutdown",
        "paused",
        "internal",
    }
)

# Field types, in the spec's notation (§ Messages, "Field types"): a name ("bool", "pid", …) or
# a tuple ("int", lo, hi), ("list", T, lo, hi) … The notation is recursive and heterogeneous, so
# it is typed as Any rather than as a union mypy would make every use of unwrap.
T = Any
U32: T = ("int", 0, 2**32 - 1)
I32: T = ("int", -(2**31), 2**31 - 1)
CARD: T = ("int", 0, 107)
SEAT: T = ("int", 0, 7)
SIG: T = ("bin", 0, 256)
BIN32: T = ("bin", 32, 32)
TEXT: T = ("str", 0, 500)


def opt(t: T) -> T:
    """``T?``."""
    return ("opt", t)


def arr(t: T, lo: int, hi: int) -> T:
    """``[T; a..b]``."""
    return ("list", t, lo, hi)


def mapping(k: T, v: T, n: int) -> T:
    """``{K: V; ≤ n}``."""
    return ("map", k, v, n)


SEAT_ENTRY: T = (
    "record",
    {
        "name": "name_or_empty",
        "id": "pid_or_empty",
        "bot": "bool",
        "ready": "bool",
        "connected": "bool",
        "key": ("bin", 0, 32),
        "grace_ms": U32,
    },
)
COMMITMENTS: T = mapping("pid+", ("tuple", (SIG, SIG)), 9)
BLIND_SHARES: T = mapping("pid+", ("tuple", (BIN32, SIG)), 9)
COMPLAINT: T = ("tuple", (U32, ("int", 0, 107), "pid+", BIN32, SIG))

TYPES: dict[str, dict[str, T]] = {
    "hello": {
        "version": U32,
        "name": "name",
        "key": BIN32,
        "spectate": "bool",
        "password": opt(("str", 0, 128)),
        "token": opt(("bin", 16, 64)),
    },
    "welcome": {"version": U32, "table": "name", "seat": opt(SEAT), "token": ("bin", 16, 64)},
    "error": {"code": "code", "text": TEXT},
    "bye": {"reason": TEXT},
    "ping": {"nonce": U32},
    "pong": {"nonce": U32},
    "sit": {"seat": opt(SEAT)},
    "stand": {},
    "ready": {"ready": "bool"},
    "chat": {"text": ("str", 1, 500), "sender": "name_or_empty"},
    "lobby": {
        "table": "name",
        "rules": ("str", 1, 64),
        "host": opt(SEAT),
        "seats": arr(SEAT_ENTRY, 2, 8),
        "spectators": U32,
        "playing": "bool",
        "hands": U32,
        "scores": arr(I32, 0, 8),
        "turn_timer": U32,
        "you": opt(SEAT),
        "blind": "bool",
        "bot_level": "word",
        "hints": "bool",
    },
    "hand": {
        "game_id": ("bin", 16, 16),
        "hand_no": U32,
        "seats": arr("pid", 2, 8),
        "dealer": SEAT,
        "out": arr(SEAT, 0, 8),
        "rules": ("str", 1, 32768),
        "keys": mapping("pid+", BIN32, 9),
        "turn_timer_ms": U32,
        "blind": "bool",
        "names": arr("name_or_empty", 0, 8),
    },
    "view": {
        "seq": U32,
        "seat": opt(SEAT),
        "hand": arr(CARD, 0, 108),
        "counts": arr(("int", 0, 108), 2, 8),
        "active": arr("bool", 2, 8),
        "top": ("int", -1, 107),
        "top_face": I32,
        "named_suit": ("int", -1, 3),
        "free": "bool",
        "direction": ("int", -1, 1),
        "turn": ("int", -1, 7),
        "phase": ("int", 0, 7),
        "pending_kind": ("str", 0, 8),
        "pending_amount": I32,
        "pending_target": ("int", -2, 7),
        "missed": arr(I32, 0, 8),
        "declared": arr("bool", 0, 8),
        "called_last": "bool",
        "called_two": "bool",
        "stock": ("int", 0, 108),
        "discard": ("int", 0, 108),
        "dealer": SEAT,
        "finished": arr(SEAT, 0, 8),
        "legal": arr(U32, 0, 1024),
        "timer_ms": U32,
    },
    "events": {
        "seq": U32,
        "events": arr(("tuple", (("str", 1, 16), ("int", -1, 7), I32)), 0, 2048),
        "log": arr(("bin", 1, 1024), 0, 512),
    },
    "move": {"seq": U32, "move": U32, "signature": SIG},
    "reject": {"code": "code", "text": TEXT, "seq": U32},
    "hand_over": {
        "reason": ("str", 1, 16),
        "placings": arr(SEAT, 0, 8),
        "scores": arr(I32, 0, 8),
        "hand_points": arr(I32, 0, 8),
        "head": ("tuple", (U32, BIN32, SIG)),
        "cards_signature": SIG,
    },
    "announce": {
        "round": U32,
        "fixed": "bool",
        "ctx": BIN32,
        "cards": arr(CARD, 0, 108),
        "seats": arr(SEAT, 0, 8),
        "commitments": COMMITMENTS,
        "signature": SIG,
    },
    "commit": {"round": U32, "commitment": SIG, "signature": SIG},
    "reveal": {"round": U32, "seed": SIG, "signature": SIG},
    "reveals": {"round": U32, "seeds": COMMITMENTS},
    "abort": {
        "round": U32,
        "fault": ("str", 1, 32),
        "culprits": arr("pid+", 1, 9),
        "commitments": COMMITMENTS,
        "signature": SIG,
    },
    "log_head": {"count": U32, "head": BIN32, "signature": SIG},
    "log_heads": {"heads": mapping("pid+", ("tuple", (U32, BIN32, SIG)), 9)},
    # § Dealer-blind on the wire (this client takes no part in blind hands: it checks the
    # messages' shape only).
    "blind_pass": {
        "shuffle": U32,
        "number": ("int", 1, 2),
        "points": arr(BIN32, 1, 108),
        "signature": SIG,
        "by": "pid+_or_empty",
    },
    "blind_share": {"shuffle": U32, "position": ("int", 0, 107), "key": BIN32, "signature": SIG},
    "blind_open": {"shuffle": U32, "position": ("int", 0, 107), "shares": BLIND_SHARES},
    "blind_release": {
        "to": "pid+",
        "hidden": U32,
        "sealed": ("bin", 0, 256),
        "by": "pid+_or_empty",
    },
    "blind_move": {
        "seq": U32,
        "seat": SEAT,
        "move": U32,
        "hidden": ("int", -1, 2**31 - 1),
        "signature": SIG,
        "shares": BLIND_SHARES,
        "by": "pid+_or_empty",
    },
    "blind_seeds": {
        "seeds": arr(BIN32, 0, 1024),
        "fault": ("str", 0, 32),
        "detail": TEXT,
        "complaint": arr(COMPLAINT, 0, 9),
        "signature": SIG,
    },
    "blind_reveal": {
        "seeds": mapping("pid+", arr(BIN32, 0, 1024), 9),
        "complaints": mapping("pid+", arr(COMPLAINT, 0, 9), 9),
        "claims": mapping("pid+", ("tuple", (("str", 1, 32), TEXT, SIG)), 9),
    },
    "blind_leave": {"by": "pid", "seeds": arr(BIN32, 0, 1024)},
    "blind_abort": {"culprit": "pid+_or_empty", "fault": ("str", 1, 32), "detail": TEXT},
}

#: Every message's fields in the order the spec lists them (and lanswitch writes them).
FIELDS: dict[str, tuple[str, ...]] = {kind: tuple(fields) for kind, fields in TYPES.items()}

#: § Messages, the ``name`` type: the characters a name never holds, as the spec lists them
#: (controls, Unicode 15's format characters, the line and paragraph separators).
NOT_IN_NAMES = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)


def is_name(v: str, lo: int = 1) -> bool:
    """§ Messages: ``lo..32`` characters, none of those, the first not a combining mark."""
    if not lo <= len(v) <= 32 or NOT_IN_NAMES.search(v):
        return False
    return not v or unicodedata.category(v[0])[0] != "M"


class WireError(Exception):
    """A frame or message the spec says the receiver answers with ``error`` ``code``."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(f"{code}: {text}")
        self.code = code
        self.text = text


def check_value(t: T, v: Any, where: str) -> None:
    """Raise :class:`WireError` ``bad_message`` unless ``v`` has the spec type ``t``."""

    def bad(why: str) -> WireError:
        return WireError("bad_message", f"{where}: {why}")

    if t == "bool":
        if not isinstance(v, bool):
            raise bad("not a bool")
        return
    if t == "word":  # str 1..16 of the letters a-z only (lobby.bot_level)
        if not isinstance(v, str) or not 1 <= len(v) <= 16 or not v.isascii() or not v.isalpha():
            raise bad("not a str of 1..16 letters a-z")
        if v != v.lower():
            raise bad(f"{v!r} is not lowercase")
        return
    if t in ("name", "name_or_empty", "pid", "pid+", "pid_or_empty", "pid+_or_empty", "code"):
        if not isinstance(v, str):
            raise bad("not a str")
        ok = {
            "name": is_name(v),
            "name_or_empty": is_name(v, 0),
            "pid": PID.fullmatch(v) is not None,
            "pid+": v == DEALER or PID.fullmatch(v) is not None,
            "pid_or_empty": v == "" or PID.fullmatch(v) is not None,
            "pid+_or_empty": v in ("", DEALER) or PID.fullmatch(v) is not None,
            "code": v in ERROR_CODES,
        }[t]
        if not ok:
            raise bad(f"{v!r} is not a valid {t}")
        return
    kind = t[0]
    if kind == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            raise bad("not an int")
        if not t[1] <= v <= t[2]:
            raise bad(f"{v} out of {t[1]}..{t[2]}")
    elif kind == "str":
        if not isinstance(v, str) or not t[1] <= len(v) <= t[2]:
            raise bad(f"not a str of {t[1]}..{t[2]} characters")
    elif kind == "bin":
        if not isinstance(v, bytes) or not t[1] <= len(v) <= t[2]:
            raise bad(f"not a bin of {t[1]}..{t[2]} bytes")
    elif kind == "opt":
        if v is not None:
            check_value(t[1], v, where)
    elif kind == "list":
        if not isinstance(v, list) or not t[2] <= len(v) <= t[3]:
            raise bad(f"not an array of {t[2]}..{t[3]} items")
        for i, item in enumerate(v):
            check_value(t[1], item, f"{where}[{i}]")
    elif kind == "tuple":
        if not isinstance(v, list) or len(v) != len(t[1]):
            raise bad(f"not an array of exactly {len(t[1])} items")
        for i, (tt, item) in enumerate(zip(t[1], v, strict=True)):
            check_value(tt, item, f"{where}[{i}]")
    elif kind == "map":
        if not isinstance(v, dict) or len(v) > t[3]:
            raise bad(f"not a map of at most {t[3]} entries")
        for k, item in v.items():
            check_value(t[1], k, f"{where} key")
            check_value(t[2], item, f"{where}[{k!r}]")
    elif kind == "record":
        if not isinstance(v, dict) or set(v) != set(t[1]):
            raise bad(f"not a map with exactly {sorted(t[1])}")
        for k, tt in t[1].items():
            check_value(tt, v[k], f"{where}.{k}")
    else:  # pragma: no cover - a typo in TYPES
        raise AssertionError(t)


def check_message(msg: Any) -> dict[str, Any]:
    """Validate a decoded payload as a message (§ Messages); the version goes first."""
    if not isinstance(msg, dict):
        raise WireError("bad_message", "the payload is not a map")
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise WireError("bad_message", f"unknown type {kind!r}")
    if kind in ("hello", "welcome"):
        version = msg.get("version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise WireError("bad_message", f"{kind}.version is not an integer")
        if version != PROTOCOL_VERSION:
            raise WireError("version_mismatch", f"version {version}, not {PROTOCOL_VERSION}")
    fields = TYPES[kind]
    got = set(msg) - {"type"}
    if got != set(fields):
        raise WireError("bad_message", f"{kind}: fields {sorted(got)}, not {sorted(fields)}")
    for name, t in fields.items():
        check_value(t, msg[name], f"{kind}.{name}")
    return msg


def decode_payload(payload: bytes) -> Any:
    """Exactly one msgpack value, decoded with the spec's limits, else ``bad_frame``.

    A map key that is not a ``str`` or ``bin`` is ``bad_frame``; msgpack's own
    ``strict_map_key`` would refuse ``bin`` keys too, so the keys are checked here. A map that
    gives a key twice is ``bad_frame`` (§ Framing): refused as each map is decoded.
    """
    try:
        value = msgpack.unpackb(
            payload,
            raw=False,
            strict_map_key=False,
            object_pairs_hook=_map_without_repeats,
            max_str_len=MAX_PAYLOAD,
            max_bin_len=MAX_PAYLOAD,
            max_array_len=8192,
            max_map_len=1024,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises several unrelated types for malformed input
        raise WireError("bad_frame", f"not one msgpack value: {exc}") from exc
    _check_keys(value)
    return value


def _map_without_repeats(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """One decoded map; ValueError if two of its keys are equal (§ Framing)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a map gives a key twice")
    return out


def _check_keys(value: Any, depth: int = 0) -> None:
    """Every map key, nested ones included, is a ``str`` or ``bin`` (§ Framing)."""
    if depth > 64:
        raise WireError("bad_frame", "nested too deep")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str | bytes):
                raise WireError("bad_frame", f"a map key of type {type(k).__name__}")
            _check_keys(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check_keys(v, depth + 1)


def classify_frame(frame: bytes) -> dict[str, Any]:
    """Decode one whole frame as a receiver must, raising :class:`WireError` on a reject."""
    if len(frame) < 4:
        raise WireError("bad_frame", "the stream ended inside a frame")
    n = int.from_bytes(frame[:4], "big")
    if n == 0:
        raise WireError("bad_frame", "a frame of length 0")
    if n > MAX_PAYLOAD:
        raise WireError("too_big", f"a frame of {n} bytes")
    if len(frame) - 4 != n:
        raise WireError("bad_frame", "the stream ended inside a frame")
    return check_message(decode_payload(frame[4:]))


def encode_message(msg: Mapping[str, Any]) -> bytes:
    """``type`` first, then the fields in the spec's order; ``bytes`` become msgpack bin."""
    kind = msg["type"]
    ordered = {"type": kind} | {k: msg[k] for k in FIELDS[kind]}
    if set(msg) != set(ordered):
        raise ValueError(f"{kind}: fields {sorted(msg)} are not the spec's")
    return bytes(msgpack.packb(ordered, use_bin_type=True))


def frame(payload: bytes) -> bytes:
    """``u32(L) ‖ payload`` (Framing); a sender never writes a frame above the limit."""
    if not 1 <= len(payload) <= MAX_PAYLOAD:
        raise ValueError(f"a payload of {len(payload)} bytes cannot be framed")
    return u32(len(payload)) + payload


# --------------------------------------------------------------------------------------------
# Transport


def fingerprint(der: bytes) -> str:
    """The pin: SHA-256 of the certificate's DER, lowercase hex."""
    return hashlib.sha256(der).hexdigest()


class Connection:
    """One TLS 1.3 connection to a host, pinned, speaking frames with deadlines."""

    def __init__(self, host: str, port: int, pin: str, timeout: float) -> None:
        """Connect, handshake TLS 1.3 and check the pin before anything is sent."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.maximum_version = ssl.TLSVersion.TLSv1_3
        ctx.check_hostname = False  # pinned, not checked against a CA or host name
        ctx.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection((host, port), timeout=timeout)
        try:
            self.sock = ctx.wrap_socket(raw, server_hostname=None)
        except BaseException:
            raw.close()
            raise
        self.tls_version = self.sock.version()
        der = self.sock.getpeercert(binary_form=True)
        self.fingerprint = fingerprint(der) if der else ""
        if self.fingerprint != pin.lower():
            self.sock.close()
            raise SpecViolationError(f"pinned {pin}, the host presented {self.fingerprint}")
        self.buffer = b""

    def close(self) -> None:
        """Close the TLS connection (best effort)."""
        with contextlib.suppress(OSError):
            self.sock.close()

    def drain(self, deadline: float) -> None:
        """Read and drop whatever comes until the host closes (or the deadline): a graceful
        end, so that TCP does not reset the connection over unread data and lose our last
        frames (SPEC_NOTES, leaving)."""
        for _ in range(10_000):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.sock.settimeout(left)
            try:
                if not self.sock.recv(65536):
                    return
            except (OSError, ssl.SSLError):
                return

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (for the tests of rejects)."""
        self.sock.sendall(data)

    def send(self, msg: Mapping[str, Any]) -> None:
        """Encode and frame one message."""
        self.send_raw(frame(encode_message(msg)))

    def _read(self, n: int, deadline: float) -> bytes | None:
        """Exactly ``n`` bytes, or None at the end of the stream; TimeoutError past deadline."""
        while len(self.buffer) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from the host in time")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except (ssl.SSLZeroReturnError, ConnectionResetError):
                chunk = b""
            if not chunk:
                if self.buffer:
                    raise WireError("bad_frame", "the stream ended inside a frame")
                return None
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def recv(self, deadline: float) -> dict[str, Any] | None:
        """The next message, validated; None when the stream ends between frames."""
        head = self._read(4, deadline)
        if head is None:
            return None
        n = int.from_bytes(head, "big")
        if n == 0:
            raise WireError("bad_frame", "a frame of length 0")
        if n > MAX_PAYLOAD:
            raise WireError("too_big", f"a frame of {n} bytes")
        payload = self._read(n, deadline)
        if payload is None:
            raise WireError("bad_frame", "the stream ended inside a frame")
        return check_message(decode_payload(payload))


# --------------------------------------------------------------------------------------------
# The client


@dataclass
class RoundState:
    """A round as the live client follows it (beside its :class:`RoundRecord`)."""

    record: RoundRecord
    state: str = "announced"  # announced, fixed, dealt, failed, withdrawn
    refused: str = ""  # why this seat takes no further part, if it does not
    commit_msg: dict[str, Any] | None = None
    reveal_msg: dict[str, Any] | None = None


#: Moves the client may send on purpose before its honest one (each must be refused).
MOVE_PROBES = (
    "stale_head",  # signed over the log before the last step: not the host's log
    "other_move",  # a valid signature, of another move code
    "foreign_key",  # signed with a key that is not the seat's
    "stale_seq",  # seq of the view before: stale_view (checked before the signature)
    "legal_blunder",  # 65536 + a legal move, correctly signed: illegal_move
    "illegal_blunder",  # 65536 + a move not legal now, correctly signed (SPEC_NOTES)
    "blunder_bad_signature",  # 65536 + a move not legal now, a stranger's signature
)
PROBE_CODES = {
    "stale_head": "fair_deal",
    "other_move": "fair_deal",
    "foreign_key": "fair_deal",
    "stale_seq": "stale_view",
    "legal_blunder": "illegal_move",
    "illegal_blunder": "illegal_move",  # SPEC: accepted, the rules charge it; the host refuses
    "blunder_bad_signature": "illegal_move",  # SPEC: fair_deal (signature before rules)
    "out_of_turn": "not_your_turn",  # sent while a round is open, before our commit
}


@dataclass
class Report:
    """What one session showed: counts for the test's assertions, findings for its message."""

    seat: int | None = None
    my_id: str = ""
    tls_version: str | None = None
    welcome: dict[str, Any] | None = None
    lobby: dict[str, Any] | None = None
    hand: dict[str, Any] | None = None
    record: HandRecord | None = None
    steps: int = 0
    views: int = 0
    moves: int = 0
    moves_by: dict[int, int] = field(default_factory=dict)  # Move events seen, by maker
    rejects: list[dict[str, Any]] = field(default_factory=list)
    probes: list[tuple[str, str]] = field(default_factory=list)  # (probe, code it got)
    commits: int = 0
    reveals_sent: int = 0
    replayed: list[str] = field(default_factory=list)  # replays recognised after a resume
    resumes: int = 0
    hand_over: dict[str, Any] | None = None
    reveals: int = 0
    log_head_sent: tuple[int, bytes] | None = None
    goodbye: tuple[int, bytes] | None = None  # the head sent before a mid-hand bye
    log_heads: dict[str, Any] | None = None
    verdict: Verdict | None = None
    left_mid_hand: bool = False
    aways: list[Event] = field(default_factory=list)
    masks: list[int] = field(default_factory=list)  # every round's mask, as announced
    bye: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    checks: list[str] = field(default_factory=list)  # promises seen kept
    violations: list[str] = field(default_factory=list)  # promises seen broken
    received: list[str] = field(default_factory=list)  # message types in order

    def check(self, ok: bool, what: str) -> bool:
        """Record a promise of the spec as kept or broken."""
        (self.checks if ok else self.violations).append(what)
        return ok


class RawClient:
    """A seated player driven by the spec alone.

    ``probes``: moves sent on purpose before honest ones (:data:`MOVE_PROBES`, and
    ``out_of_turn``), each expected to be refused with :data:`PROBE_CODES`' code.
    ``drop_after_commit``: close the connection (no ``bye``) right after the first ``commit``
    and resume by the token. ``leave_after_moves``: after that many own moves were logged,
    send the goodbye head and ``bye``.
    """

    def __init__(
        self,
        host: str,
        port: int,
        pin: str,
        name: str = "raw",
        seed: int = 4,
        seats: int = 2,
        probes: Sequence[str] = (),
        drop_after_commit: bool = False,
        leave_after_moves: int | None = None,
        spectate: bool = False,
    ) -> None:
        """Make the session key; nothing is sent until :meth:`run`."""
        self.host, self.port, self.pin, self.name = host, port, pin, name
        self.seats = seats
        self.key = Ed25519PrivateKey.generate()
        self.public = self.key.public_key().public_bytes_raw()
        self.rng = random.Random(seed)
        self.report = Report()
        self.conn: Any = None  # a Connection, or a test's stand-in with send()
        self.token: bytes | None = None
        self.probes = list(probes)
        self.drop_after_commit = drop_after_commit
        self.leave_after_moves = leave_after_moves
        self.spectate = spectate
        self.drop_now = False
        self.leave_now = False
        self.catching_up = False
        self.seen_hands: set[tuple[bytes, int]] = set()
        self.ready_sent = False
        self.reset_hand()

    def reset_hand(self) -> None:
        """Forget the hand (a new ``hand`` starts another)."""
        self.rec: HandRecord | None = None
        self.ctx0 = b""
        self.persons: set[int] = set()
        self.away: set[int] = set()
        self.deck: list[int] = []
        self.heads: list[bytes] = []
        self.pile: list[int] = []
        self.played: list[int] = []
        self.dealt = False
        self.rounds: list[RoundState] = []
        self.step_logs: dict[int, list[bytes]] = {}
        self.seq = 0
        self.view: dict[str, Any] | None = None
        self.moved_at: int | None = None
        self.pending_probe: tuple[str, int] | None = None
        self.turn_started: float | None = None
        self.own_moves = 0
        self.reveals_seen: set[int] = set()
        self.over = False
        self.verified = False

    # -- plumbing -----------------------------------------------------------------------------

    def send(self, msg: dict[str, Any]) -> None:
        """Send a client message, checking this client keeps to its own state rules."""
        assert self.conn is not None
        assert msg["type"] in CLIENT_OPEN | {"hello", "bye"}, msg["type"]
        self.conn.send(msg)

    def sign(self, message: bytes) -> bytes:
        """Ed25519 signature with the session key."""
        return self.key.sign(message)

    @property
    def log(self) -> list[bytes]:
        """The public log this seat holds, the setup note first."""
        return self.rec.log if self.rec is not None else []

    def head(self) -> bytes:
        """The head of the whole log held."""
        return self.heads[-1]

    # -- the session --------------------------------------------------------------------------

    def run(self, timeout: float) -> Report:
        """Play until the host says ``bye`` (or errors, or the time is up, or we leave)."""
        deadline = time.monotonic() + timeout
        rep = self.report
        try:
            for _attempt in range(3):  # the first connection and at most two resumes
                self.drop_now = False
                self.session(deadline)
                if not self.drop_now:
                    break
                rep.resumes += 1
        finally:
            if self.conn is not None:
                self.conn.close()
        return rep

    def session(self, deadline: float) -> None:
        """One connection: hello, welcome, then the open state until it ends."""
        rep = self.report
        self.conn = Connection(
            self.host, self.port, self.pin, max(1.0, deadline - time.monotonic())
        )
        rep.tls_version = self.conn.tls_version
        rep.check(rep.tls_version == "TLSv1.3", f"TLS version is {rep.tls_version}")
        try:
            self.send(
                {
                    "type": "hello",
                    "version": PROTOCOL_VERSION,
                    "name": self.name,
                    "key": self.public,
                    "spectate": self.spectate,
                    "password": None,
                    "token": self.token,
                }
            )
            first = self.conn.recv(deadline)
            if first is None or first["type"] != "welcome":
                raise SpecViolationError(f"the first answer to hello is {first!r}, not welcome")
            rep.received.append("welcome")
            if self.token is not None:
                rep.check(first["seat"] == rep.seat, "a resume gets the same seat back")
                self.catching_up = self.rec is not None
            rep.welcome = first
            rep.check(
                first["version"] == PROTOCOL_VERSION, "welcome.version is the protocol version"
            )
            rep.seat = first["seat"]
            self.token = first["token"]
            if (rep.seat is None) != self.spectate:
                raise SpecViolationError(f"welcome.seat is {rep.seat}, spectating {self.spectate}")
            for _ in range(100_000):  # bounded: far more messages than a hand has
                msg = self.conn.recv(deadline)
                if msg is None:
                    rep.check(False, "the host closed without bye")
                    break
                rep.received.append(msg["type"])
                if msg["type"] == "bye":
                    rep.bye = msg
                    break
                if msg["type"] == "error":
                    rep.error = msg
                    break
                self.handle(msg)
                if self.drop_now:
                    break
                if self.leave_now:
                    self.conn.drain(min(deadline, time.monotonic() + 3.0))
                    break
        finally:
            self.conn.close()

    def handle(self, msg: dict[str, Any]) -> None:
        """Dispatch one host message of the ``open`` state."""
        if msg["type"] not in HOST_OPEN:
            raise SpecViolationError(f"the host sent {msg['type']} in the open state")
        getattr(self, "on_" + msg["type"])(msg)

    # -- lobby ---------------------------------------------------------------------------------

    def on_lobby(self, msg: dict[str, Any]) -> None:
        """Check our seat entry and the bots' (no key); say ``ready`` between hands."""
        rep = self.report
        rep.lobby = msg
        rep.check(len(msg["seats"]) == self.seats, f"lobby lists {self.seats} seats")
        for s, entry in enumerate(msg["seats"]):
            if entry["bot"]:
                rep.check(entry["key"] == b"", f"the lobby shows no key for bot seat {s}")
        # § lobby: ``you`` is our seat by the host's word, as ``welcome`` gave it (this
        # client neither sits nor stands, and a host seats nobody twice).
        rep.check(msg["you"] == rep.seat, "lobby.you is the seat welcome gave us")
        if rep.seat is None:
            return  # a spectator: no seat entry, no ready
        if rep.seat >= len(msg["seats"]):
            raise SpecViolationError(f"lobby has no seat {rep.seat}")
        entry = msg["seats"][rep.seat]
        rep.my_id = entry["id"]
        if entry["key"]:
            rep.check(entry["key"] == self.public, "the lobby shows our session key")
        if not entry["ready"] and not msg["playing"] and (self.rec is None or self.over):
            if not self.ready_sent:
                self.send({"type": "ready", "ready": True})
                self.ready_sent = True
        elif entry["ready"]:
            self.ready_sent = False

    def on_chat(self, msg: dict[str, Any]) -> None:
        """Chat is not this client's business."""

    def on_ping(self, msg: dict[str, Any]) -> None:
        """Answer a ping."""
        self.send({"type": "pong", "nonce": msg["nonce"]})

    def on_pong(self, msg: dict[str, Any]) -> None:
        """This client sends no ping; an unasked pong is harmless."""

    def on_reject(self, msg: dict[str, Any]) -> None:
        """A probe's refusal is expected (then the honest move goes); anything else is not."""
        rep = self.report
        rep.rejects.append(msg)
        if self.pending_probe is not None:
            probe, seq = self.pending_probe
            self.pending_probe = None
            rep.probes.append((probe, msg["code"]))
            rep.check(
                msg["code"] == PROBE_CODES[probe],
                f"probe {probe} refused with {msg['code']} ({msg['text']}), "
                f"not {PROBE_CODES[probe]}",
            )
            rep.check(msg["seq"] == seq, f"probe {probe}'s reject carries the move's seq")
            if self.view is not None:
                self.maybe_move(self.view)
            return
        if msg["code"] == "stale_view":
            return
        rep.check(False, f"reject {msg['code']}: {msg['text']}")

    # -- the hand ------------------------------------------------------------------------------

    def on_hand(self, msg: dict[str, Any]) -> None:
        """Compute ``ctx_0`` with every key; start the log with the setup note."""
        rep = self.report
        ident = (msg["game_id"], msg["hand_no"])
        if self.rec is not None and rep.hand is not None and ident in self.seen_hands:
            # SPEC_NOTES[0]: a resume resends the hand it holds.
            rep.check(msg == rep.hand, "a resumed hand is the same hand")
            rep.replayed.append("hand")
            return
        if not rep.check(ident not in self.seen_hands, "a new hand takes a new number"):
            return
        self.seen_hands.add(ident)
        self.reset_hand()
        rep.hand = msg
        seats = msg["seats"]
        rep.check(len(set(seats)) == len(seats), "hand.seats are distinct")
        keys = dict(msg["keys"])
        rep.check(DEALER in keys, "hand.keys holds @dealer's key")
        if rep.seat is not None:
            if rep.my_id:
                rep.check(seats[rep.seat] == rep.my_id, "hand.seats names our seat as the lobby")
            rep.my_id = seats[rep.seat]
            rep.check(keys.get(rep.my_id) == self.public, "hand.keys holds our session key")
        rep.check(set(keys) <= {*seats, DEALER}, "hand.keys names only seats and @dealer")
        if rep.lobby is not None:
            for s, entry in enumerate(rep.lobby["seats"]):
                if entry["bot"] and s < len(seats):
                    rep.check(seats[s] not in keys, f"bot seat {s} has no key in hand.keys")
        rep.check(msg["dealer"] not in msg["out"], "the dealer is not sitting out")
        rep.check(msg["out"] == sorted(set(msg["out"])), "hand.out is ascending")
        self.rec = HandRecord(
            game_id=msg["game_id"],
            hand_no=msg["hand_no"],
            seat=rep.seat,
            seats=list(seats),
            dealer=msg["dealer"],
            out=list(msg["out"]),
            turn_timer_ms=msg["turn_timer_ms"],
            rules=msg["rules"],
            public_keys=keys,
            names=list(msg["names"]),
        )
        rep.record = self.rec
        self.ctx0 = self.rec.context0()
        self.deck = self.rec.deck()
        self.persons = {s for s, pid in enumerate(seats) if pid in keys}
        names = msg["names"]
        rep.check(len(names) in (0, len(seats)), "hand.names: one per seat, or none")
        if rep.lobby is not None:
            shown = [e["name"] for e in rep.lobby["seats"]][: len(seats)]
            rep.check(names == shown, "hand.names are the lobby's names")
        note = setup_note(msg["rules"], msg["dealer"], msg["out"], msg["turn_timer_ms"], names)
        self.rec.log.append(note)  # § A hand's log: not sent, put there by each end
        self.heads = log_heads(self.ctx0, self.rec.log)

    # -- rounds --------------------------------------------------------------------------------

    def round_cards(self) -> list[int]:
        """``D`` as the stock model says: the deck before any Shuffle, else the pile's under."""
        return sorted(self.pile[:-1]) if self.dealt else list(self.deck)

    def present(self) -> list[int]:
        """The people present by our log: persons' seats not away, ascending."""
        return [s for s in sorted(self.persons) if s not in self.away]

    def on_announce(self, msg: dict[str, Any]) -> None:
        """Steps 1 and 3, with every announcement kept and compared (§ The round, step by step)."""
        rep = self.report
        rec = self.rec
        if not rep.check(rec is not None, "announce comes during a hand"):
            return
        assert rec is not None
        a = {k: msg[k] for k in FIELDS["announce"]}
        r = a["round"]
        state = next((x for x in self.rounds if x.record.round == r), None)
        if state is not None:
            kept = state.record.announces
            if a in kept:  # a replay after a resume: answer as the first time
                rep.replayed.append(f"announce {r} stage {3 if a['fixed'] else 1}")
                if not a["fixed"] and state.commit_msg is not None:
                    self.send(state.commit_msg)
                elif a["fixed"] and state.reveal_msg is not None:
                    self.send(state.reveal_msg)  # the same reveal, byte for byte
                return
            kept.append(a)
            problems: list[str] = []
            for earlier in kept[:-1]:
                problems.extend(contradiction(earlier, a))
                if earlier["fixed"] == a["fixed"]:
                    problems.append(f"round {r}: two different stage-{3 if a['fixed'] else 1}")
            if problems:
                for p in problems:
                    rep.check(False, p + " (the host's signed contradiction)")
                state.refused = "contradiction"
                return
            if not a["fixed"]:
                rep.check(False, f"round {r}: stage 1 again, not identical")
                return
            self.stage3(state, a)
            return
        self.stage1(a)

    def stage1(self, a: dict[str, Any]) -> None:
        """Step 1: a new round; check it, then commit if this seat is in its mask."""
        rep = self.report
        rec = self.rec
        assert rec is not None
        r = a["round"]
        count = len(rec.log)
        rr = RoundRecord(round=r, at=count, announces=[a])
        state = RoundState(rr)
        rec.rounds.append(rr)
        self.rounds.append(state)
        rep.masks.append(mask_of(a["seats"]) if all(s < 16 for s in a["seats"]) else -1)
        ok = rep.check(
            r == len(self.rounds) - 1, f"round {r} is the number after the last announced"
        )
        ok &= rep.check(not a["fixed"], f"round {r}'s first announcement is stage 1")
        if len(self.rounds) > 1:
            prev = self.rounds[-2]
            ok &= rep.check(prev.state != "fixed", f"round {r} does not redeal fixed round")
            if prev.state == "announced":
                prev.state = "withdrawn"
        problems = stage1_problems(
            self.ctx0,
            rec.public_keys,
            rec.seats,
            r,
            a,
            count,
            self.heads[-1],
            self.present(),
            self.round_cards(),
        )
        for p in problems:
            rep.check(False, p)
        ok &= not problems
        if not ok:
            state.refused = "stage 1 failed its checks"
            return
        if a["fixed"]:
            return
        if rep.seat is None:
            return  # a spectator takes no part
        if "out_of_turn" in self.probes:  # a round is open: no seat is to act (§ Sequence)
            self.probes.remove("out_of_turn")
            self.pending_probe = ("out_of_turn", self.seq)
            sig = self.sign(move_statement(self.ctx0, count, self.head(), rep.seat, 0, 200))
            self.send({"type": "move", "seq": self.seq, "move": 200, "signature": sig})
        if rep.seat in a["seats"]:
            seed = secrets.token_bytes(32)
            c = commitment(a["ctx"], rep.my_id, seed)
            rr.own_seed = seed
            state.commit_msg = {
                "type": "commit",
                "round": r,
                "commitment": c,
                "signature": self.sign(commit_statement(a["ctx"], rep.my_id, c)),
            }
            self.send(state.commit_msg)
            rep.commits += 1
            if self.drop_after_commit:
                self.drop_after_commit = False
                self.drop_now = True

    def stage3(self, state: RoundState, a: dict[str, Any]) -> None:
        """Step 3: every commitment fixed; check it, then reveal our seed once."""
        rep = self.report
        rec = self.rec
        assert rec is not None
        r = a["round"]
        if state.refused:
            return
        if not rep.check(state.state == "announced", f"round {r}: stage 3 of a committing round"):
            return
        problems = stage3_problems(self.ctx0, rec.public_keys, rec.seats, a)
        me = rep.my_id
        seed = state.record.own_seed
        if seed is not None:
            mine = a["commitments"].get(me)
            if mine is None or mine[0] != commitment(a["ctx"], me, seed):
                problems.append(f"round {r}: our commitment is not in stage 3 unchanged")
        for p in problems:
            rep.check(False, p)
        if problems:
            state.refused = "stage 3 failed its checks"
            return
        state.state = "fixed"
        if seed is not None:
            self.reveal(state)

    def reveal(self, state: RoundState) -> None:
        """Step 4: our seed with its reveal signature, to the host only, once."""
        rep = self.report
        rr = state.record
        seed = rr.own_seed
        assert seed is not None
        fixed = next(a for a in rr.announces if a["fixed"])
        c = commitment(fixed["ctx"], rep.my_id, seed)
        state.reveal_msg = {
            "type": "reveal",
            "round": rr.round,
            "seed": seed,
            "signature": self.sign(reveal_statement(fixed["ctx"], rep.my_id, c, seed)),
        }
        rr.own_seed_sent = True
        rep.reveals_sent += 1
        self.send(state.reveal_msg)

    # -- steps ---------------------------------------------------------------------------------

    def on_events(self, msg: dict[str, Any]) -> None:
        """Extend the log with every event checked as it arrives; track cards and the pile."""
        rep = self.report
        rec = self.rec
        if not rep.check(rec is not None, "events come during a hand"):
            return
        assert rec is not None
        seq = msg["seq"]
        if seq <= self.seq:  # a resume's replay: we have it
            rep.replayed.append(f"events {seq}")
            rep.check(self.step_logs.get(seq) == msg["log"], f"replayed step {seq}'s log is ours")
            return
        rep.check(seq == self.seq + 1, f"events.seq {seq} follows {self.seq}")
        self.seq = seq
        self.step_logs[seq] = list(msg["log"])
        rep.steps += 1
        for raw in msg["log"]:
            self.take_event(raw)
        for kind, who, value in msg["events"]:
            if kind in ("deal", "draw"):
                if who == rep.seat:
                    rep.check(0 <= value <= 107, f"our own {kind} event shows the card")
                    rec.cards.append(value)
                else:
                    rep.check(value == -1, f"seat {who}'s {kind} event is redacted")

    def take_event(self, raw: bytes) -> None:
        """§ Checks during the hand: one log event, checked and appended."""
        rep = self.report
        rec = self.rec
        assert rec is not None
        k = len(rec.log)
        try:
            ev = decode_event(raw)
        except SpecViolationError as exc:
            rep.check(False, str(exc))
            rec.log.append(raw)
            self.heads.append(log_next(self.heads[-1], raw))
            return
        where = f"event {k}"
        if ev.kind in ("draw", "move", "away", "back"):
            rep.check(ev.seat < len(rec.seats), f"{where} names a seat of the hand")
        if ev.kind == "shuffle":
            last = self.rounds[-1] if self.rounds else None
            ok = last is not None and last.state == "fixed" and last.record.at == k
            rep.check(ok, f"{where}: Shuffle deals the fixed round announced here")
            if last is not None:
                a = last.record.announces[0]
                rep.check(ev.round == last.record.round, f"{where}: Shuffle's round number")
                rep.check(ev.mask == mask_of(a["seats"]), f"{where}: Shuffle's mask")
                rep.check(ev.n == len(a["cards"]), f"{where}: Shuffle's |D|")
                last.state = "dealt"
            if self.dealt:
                self.pile = self.pile[-1:]
            self.dealt = True
        elif ev.kind == "turnup":
            self.pile.append(ev.card)
        elif ev.kind == "move":
            rep.moves_by[ev.by] = rep.moves_by.get(ev.by, 0) + 1
            rep.check(
                move_maker_ok(ev.by, ev.seat, self.persons, self.away, rec.turn_timer_ms),
                f"{where}: a move by {ev.by} for seat {ev.seat} is allowed now",
            )
            signer = move_signer(ev.by, rec.seats[ev.seat] if ev.seat < len(rec.seats) else "")
            statement = move_statement(self.ctx0, k, self.heads[-1], ev.seat, ev.by, ev.move)
            rep.check(
                verify(rec.public_keys.get(signer, b""), ev.signature, statement),
                f"{where}: the Move's signature is {signer}'s over our log",
            )
            if ev.seat == rep.seat and ev.by == BY_PLAYER:
                self.own_moves += 1
            if ev.seat == rep.seat and ev.by == BY_TIMEOUT and not self.catching_up:
                started = self.turn_started
                took = 0.0 if started is None else time.monotonic() - started
                if took * 1000 < rec.turn_timer_ms - 500:  # SPEC: 0.5 s of slack
                    rec.disputes.append((k - 1, "the host moved for us before our time was up"))
            if ev.move < 108:
                self.pile.append(ev.move)
                if ev.seat == rep.seat:
                    self.played.append(ev.move)
        elif ev.kind in ("away", "back"):
            why = presence_problem(
                ev, rec.seats, self.persons, self.away, self.ctx0, rec.public_keys, k, self.heads
            )
            rep.check(not why, f"{where}: {why or ev.kind + ' checks out'}")
            if ev.kind == "away":
                rep.aways.append(ev)
                self.away.add(ev.seat)
                if ev.seat == rep.seat and not self.catching_up:
                    rec.disputes.append((k - 1, "the host logged us away while we were here"))
            else:
                self.away.discard(ev.seat)
        elif ev.kind == "note":
            rep.check(ev.label != "setup", f"{where}: no second setup note")
        rec.log.append(raw)
        self.heads.append(log_next(self.heads[-1], raw))

    def on_view(self, msg: dict[str, Any]) -> None:
        """Check the view against the events; move when it is our turn; maybe leave."""
        rep = self.report
        seat = rep.seat
        rep.views += 1
        self.catching_up = False
        rep.check(msg["seq"] == self.seq, f"view.seq {msg['seq']} is the last events' {self.seq}")
        rep.check(msg["seat"] == seat, "view.seat is our seat (nil for a spectator)")
        counts = msg["counts"]
        rep.check(
            len(msg["hand"]) == (0 if seat is None else counts[seat] if seat < len(counts) else -1),
            "view.hand holds exactly counts[seat] cards (none for a spectator)",
        )
        rep.check(msg["hand"] == sorted(msg["hand"]), "view.hand is ascending")
        held = list(self.rec.cards) if self.rec is not None else []
        for c in self.played:
            if c in held:
                held.remove(c)
        rep.check(
            sorted(held) == msg["hand"], "view.hand = cards dealt/drawn to us minus cards laid"
        )
        if msg["turn"] != seat or seat is None:
            rep.check(not msg["legal"], "view.legal is empty when it is not our turn")
            self.turn_started = None
        elif self.turn_started is None:
            self.turn_started = time.monotonic()
        self.view = msg
        if (
            self.leave_after_moves is not None
            and self.own_moves >= self.leave_after_moves
            and not self.over
        ):
            self.leave()
            return
        self.maybe_move(msg)

    def maybe_move(self, view: dict[str, Any]) -> None:
        """Our turn: the next probe if any, else a legal move signed over our log."""
        rep = self.report
        seat = rep.seat
        if seat is None or self.rec is None:
            return  # a spectator does not move
        if view["turn"] != seat or not view["legal"] or self.pending_probe is not None:
            return
        if self.moved_at == view["seq"] or view["seq"] != self.seq:
            return
        cards = [m for m in view["legal"] if m < 108]
        move = self.rng.choice(cards) if cards else view["legal"][0]
        count, head = len(self.rec.log), self.head()
        seq = view["seq"]
        while self.probes and self.probes[0] in PROBE_CODES and self.probes[0] != "out_of_turn":
            probe = self.probes.pop(0)
            sent_move, sig, sent_seq = move, b"", seq
            if probe == "stale_head":
                if count < 2:
                    continue
                sig = self.sign(
                    move_statement(self.ctx0, count - 1, self.heads[-2], seat, BY_PLAYER, move)
                )
            elif probe == "other_move":
                other = 201 if move != 201 else 200
                sig = self.sign(move_statement(self.ctx0, count, head, seat, BY_PLAYER, other))
            elif probe == "foreign_key":
                stranger = Ed25519PrivateKey.generate()
                sig = stranger.sign(move_statement(self.ctx0, count, head, seat, BY_PLAYER, move))
            elif probe == "stale_seq":
                if seq == 0:
                    continue
                sent_seq = seq - 1
                sig = self.sign(move_statement(self.ctx0, count, head, seat, BY_PLAYER, move))
            elif probe == "legal_blunder":
                sent_move = 65536 + move
                sig = self.sign(move_statement(self.ctx0, count, head, seat, BY_PLAYER, sent_move))
            elif probe in ("illegal_blunder", "blunder_bad_signature"):
                illegal = [m for m in (201, 200, 220, 221, *range(108)) if m not in view["legal"]]
                sent_move = 65536 + illegal[0]
                statement = move_statement(self.ctx0, count, head, seat, BY_PLAYER, sent_move)
                if probe == "illegal_blunder":
                    sig = self.sign(statement)
                else:
                    sig = Ed25519PrivateKey.generate().sign(statement)
            self.pending_probe = (probe, sent_seq)
            self.send({"type": "move", "seq": sent_seq, "move": sent_move, "signature": sig})
            return
        self.moved_at = seq
        rep.moves += 1
        sig = self.sign(move_statement(self.ctx0, count, head, seat, BY_PLAYER, move))
        self.send({"type": "move", "seq": seq, "move": move, "signature": sig})

    def leave(self) -> None:
        """§ Going away, leaving: our signed head of the log so far, then ``bye``."""
        rep = self.report
        assert self.rec is not None
        count, head = len(self.rec.log), self.head()
        self.send(
            {
                "type": "log_head",
                "count": count,
                "head": head,
                "signature": self.sign(log_statement(self.ctx0, rep.my_id, count, head)),
            }
        )
        self.send({"type": "bye", "reason": "leaving mid-hand"})
        rep.goodbye = (count, head)
        rep.left_mid_hand = True
        self.leave_now = True

    def on_abort(self, msg: dict[str, Any]) -> None:
        """Check the host's abort; keep it (a void hand is a finding with honest players)."""
        rep = self.report
        rec = self.rec
        if not rep.check(rec is not None, "abort comes during a hand"):
            return
        assert rec is not None
        void = {k: msg[k] for k in FIELDS["abort"]}
        if rec.void is not None:
            rep.check(rec.void == void, "a replayed abort is the same abort")
            return
        rec.void = void
        state = self.rounds[-1] if self.rounds else None
        rep.check(
            state is not None and state.record.round == msg["round"],
            "the abort names the round announced last",
        )
        if state is not None:
            state.state = "failed"
        rep.check(False, f"a void hand: {msg['fault']} blaming {msg['culprits']}")
        for problem in check_abort(self.ctx0, rec, void, state.record if state else None):
            rep.check(False, f"abort: {problem}")

    # -- after the hand ------------------------------------------------------------------------

    def on_hand_over(self, msg: dict[str, Any]) -> None:
        """Check the host's signed head against our log and its cards signature."""
        rep = self.report
        rec = self.rec
        if not rep.check(rec is not None, "hand_over comes during a hand"):
            return
        assert rec is not None
        replay = self.over
        self.over = True
        rep.hand_over = msg
        reasons = ("finished", "one_left", "blocked", "limit", "void", "forfeit")
        rep.check(msg["reason"] in reasons, f"hand_over.reason {msg['reason']!r} is the spec's")
        count, head, sig = msg["head"]
        rep.check(count == len(rec.log), f"hand_over.head count {count} = {len(rec.log)} events")
        rep.check(head == self.head(), "hand_over.head is the head of our log")
        dkey = rec.public_keys.get(DEALER, b"")
        rep.check(
            verify(dkey, sig, log_statement(self.ctx0, DEALER, count, head)),
            "hand_over.head's signature verifies with @dealer's key",
        )
        rec.log_heads[DEALER] = (count, head, sig)
        rec.cards_signature = msg["cards_signature"]
        if rep.seat is None:
            rep.check(msg["cards_signature"] == b"", "a spectator's cards_signature is empty")
            return
        rep.check(
            verify(dkey, msg["cards_signature"], cards_statement(self.ctx0, rep.my_id, rec.cards)),
            "hand_over.cards_signature verifies over our cards",
        )
        if replay and rep.log_head_sent is not None:
            self.send_log_head()  # § Resuming: after hand_over, the head again

    def on_reveals(self, msg: dict[str, Any]) -> None:
        """One round's seeds; once every round's are in, verify and send our head."""
        rep = self.report
        rec = self.rec
        if not rep.check(rec is not None and self.over, "reveals come after hand_over"):
            return
        assert rec is not None
        r = msg["round"]
        state = next((x for x in self.rounds if x.record.round == r), None)
        if not rep.check(state is not None, f"reveals for announced round {r}"):
            return
        assert state is not None
        rr = state.record
        seeds = {pid: (bytes(s), bytes(sig)) for pid, (s, sig) in msg["seeds"].items()}
        if r in self.reveals_seen:  # a resume after hand_over replays them
            rep.replayed.append(f"reveals {r}")
            rep.check(rr.reveals == seeds, f"replayed reveals of round {r} are the same")
            return
        rep.reveals += 1
        rep.check(r == len(self.reveals_seen), f"reveals come in round order (round {r})")
        self.reveals_seen.add(r)
        rr.reveals = seeds
        if state.state == "withdrawn":
            rep.check(not seeds, f"withdrawn round {r} reveals no seed")
        elif rr.own_seed_sent:
            mine = seeds.get(rep.my_id)
            rep.check(mine is not None and mine[0] == rr.own_seed, f"round {r}: our seed kept")
        if r == self.rounds[-1].record.round and rep.seat is not None:
            self.send_log_head()

    def send_log_head(self) -> None:
        """Our signed head of the whole log, after hand_over and every round's reveals."""
        rep = self.report
        rec = self.rec
        assert rec is not None
        count, head = len(rec.log), self.head()
        sig = self.sign(log_statement(self.ctx0, rep.my_id, count, head))
        rec.log_heads[rep.my_id] = (count, head, sig)
        self.send({"type": "log_head", "count": count, "head": head, "signature": sig})
        rep.log_head_sent = (count, head)

    def on_log_heads(self, msg: dict[str, Any]) -> None:
        """Every head passed on; then the transcript is whole: verify it."""
        rep = self.report
        rec = self.rec
        if not rep.check(rec is not None and self.over, "log_heads come after hand_over"):
            return
        assert rec is not None
        rep.log_heads = msg
        own = rec.log_heads.get(rep.my_id)
        for pid, (count, head, sig) in msg["heads"].items():
            if pid == rep.my_id and own is not None:
                rep.check((count, head) == own[:2], "log_heads carries the head we signed")
                continue  # § Transcript: our own replaced by the one we signed
            rec.log_heads[pid] = (count, head, sig)
        rep.check(DEALER in msg["heads"], "log_heads holds @dealer's head")
        if rep.seat is not None:
            rep.check(rep.my_id in msg["heads"], "log_heads holds our head")
        verdict = verify_hand(rec)
        rep.verdict = verdict
        self.verified = True
        for p in verdict.problems:
            rep.check(False, f"verification: {p}")
