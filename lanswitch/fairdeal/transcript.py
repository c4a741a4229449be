"""What one seat keeps of one hand — everything :mod:`.replay` needs — and its JSON file.

A :class:`Transcript` holds the hand's setup, every announcement the seat received (all of
them: two that contradict each other are the evidence), its own seeds, the seeds the host
revealed after the hand, the public log as received, its own cards with the host's signature
over them, every participant's signed log head, the host's signed abort if the hand was void,
and the seat's own disputes — what it saw that no signature can show, such as the host moving
for it while it was there. ``protocol/SPEC.md`` ("Transcript") is the file format.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..cards import MAX_CARD
from ..errors import InvalidInput
from ..rules import MAX_PLAYERS
from .log import LogEvent, decode_event, log_start, log_step
from .primitives import (
    DEALER,
    GAME_ID_BYTES,
    HASH_BYTES,
    Fault,
    UsageError,
    log_head_message,
    mask_of,
    seats_of,
    verify,
)
from .round import Announcement, Commitments, VoidRecord
from .setup import HandSetup, SetupError

__all__ = [
    "FORMAT",
    "PROTOCOL",
    "VERSION",
    "Dispute",
    "RepeatedKey",
    "RoundRecord",
    "SignedHead",
    "Transcript",
    "TranscriptError",
    "announcement_from_json",
    "announcement_json",
    "json_text",
    "load_json",
]

FORMAT: Final = "lanswitch-transcript"
VERSION: Final = 3
PROTOCOL: Final = "lanswitch/v2"
"""The labels' prefix (unchanged since protocol v2); ``VERSION`` is the file's format: 3 since
protocol v4, whose setup note binds the seats' names."""


class TranscriptError(InvalidInput):
    """Not a (valid) transcript: unreadable, another format or version, a malformed field, or a
    record that contradicts itself. Says which field."""


class RepeatedKey(InvalidInput):
    """A JSON object that gives one key twice (``args[0]``: the key)."""


def _object_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _v in pairs:  # pragma: no branch  (a key repeats)
            if k in seen:
                raise RepeatedKey(k)
            seen.add(k)
    return d


def load_json(text: str | bytes) -> Any:
    """A saved hand's JSON, refused (:class:`RepeatedKey`) if any object in it gives a key
    twice: Python's reader keeps the last value, another reader may keep the first, and a
    file read two ways could verify as two hands. (ValueError and UnicodeDecodeError as
    ``json.loads``'s.)"""
    return json.loads(text, object_pairs_hook=_object_once)


@dataclass(frozen=True, slots=True)
class SignedHead:
    """A participant's signed statement that the hand's log has ``count`` events ending in
    ``head``."""

    count: int
    head: bytes
    signature: bytes


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One round as a seat keeps it: ``at`` — how many log events the seat held when the round
    was first announced; every announcement of it received, in order (duplicates that are
    identical once); its own seed (None if it never committed) and whether it sent it; and the
    seeds the host revealed after the hand, with their reveal signatures."""

    round: int
    at: int
    announces: tuple[Announcement, ...]
    own_seed: bytes | None = None
    own_seed_sent: bool = False
    seeds: Mapping[str, tuple[bytes, bytes]] = ()  # type: ignore[assignment]

    @property
    def first(self) -> Announcement:
        return self.announces[0]

    def fixed(self) -> Announcement | None:
        """The stage-3 announcement (every commitment), if it came."""
        return next((a for a in self.announces if a.fixed), None)


@dataclass(frozen=True, slots=True)
class Dispute:
    """Something the seat saw itself that no signature can show (the host moved for it while
    it was there, or said it was away while its link was up): its own record, at log event
    ``event``."""

    event: int
    text: str


@dataclass(frozen=True, slots=True)
class Transcript:
    """What one seat keeps of one hand (see the module docstring). The seats' display names
    are the setup's (:attr:`names`): bound by its setup note like the rest of the setup."""

    setup: HandSetup
    seat: int
    rounds: tuple[RoundRecord, ...]
    log: tuple[LogEvent, ...]
    cards: tuple[int, ...]
    cards_signature: bytes
    log_heads: Mapping[str, SignedHead]
    void: VoidRecord | None = None
    disputes: tuple[Dispute, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' display names, as the setup binds them (none: the seats' ids)."""
        return self.setup.names

    @property
    def id(self) -> str:
        """This seat's id."""
        return self.setup.seats[self.seat]

    def name(self, pid: str) -> str:
        """What a person calls participant ``pid``: the seat's display name, "the host"."""
        if pid == DEALER:
            return "the host"
        seats = self.setup.seats
        if pid in seats:
            i = seats.index(pid)
            if i < len(self.names) and self.names[i]:
                return self.names[i]
        return pid

    # -- self-consistency ------------------------------------------------------------------------

    def heads(self) -> list[bytes]:
        """The head of the log after each prefix of it (``heads()[k]`` after ``k`` events).

        Also checks what the seat recorded itself: its own signed head is valid and is that of
        the log it holds (a seat signs the log it was sent). TranscriptError otherwise: such a
        file was not written by an honest seat, or was changed since.
        """
        out = [log_start(self.setup.ctx0)]
        for ev in self.log:
            out.append(log_step(out[-1], ev))
        own = self.log_heads.get(self.id)
        key = self.setup.keys.get(self.id)
        if own is None or key is None:
            raise TranscriptError(
                f"this transcript contradicts itself: its own signed log head ({self.id}) is "
                "missing"
            )
        msg = log_head_message(self.setup.ctx0, self.id, own.count, own.head)
        if not verify(key, msg, own.signature):
            raise TranscriptError(
                "this transcript contradicts itself: its own log-head signature does not verify"
            )
        if (own.count, own.head) != (len(self.log), out[-1]):
            raise TranscriptError(
                "this transcript contradicts itself: its own signed log head is not that of the "
                "log it holds"
            )
        return out

    # -- JSON ------------------------------------------------------------------------------------

    def to_json_obj(self) -> dict[str, Any]:
        s = self.setup
        return {
            "format": FORMAT,
            "version": VERSION,
            "protocol": PROTOCOL,
            "game_id": s.game_id.hex(),
            "hand_no": s.hand_no,
            "seat": self.seat,
            "seats": list(s.seats),
            "names": list(self.names),
            "dealer": s.dealer,
            "out": list(s.out),
            "turn_timer_ms": s.turn_timer_ms,
            "rules": s.rules_toml,
            "public_keys": {p: k.hex() for p, k in s.keys.items()},
            "rounds": [_round_json(rec) for rec in self.rounds],
            "log": [ev.encode().hex() for ev in self.log],
            "cards": list(self.cards),
            "cards_signature": self.cards_signature.hex(),
            "log_heads": {
                p: {"count": h.count, "head": h.head.hex(), "signature": h.signature.hex()}
                for p, h in self.log_heads.items()
            },
            "void": None if self.void is None else _void_json(self.void),
            "disputes": [{"event": d.event, "text": d.text} for d in self.disputes],
        }

    def to_json(self) -> str:
        """The transcript file's text (UTF-8): JSON, lists of numbers kept on one line."""
        return json_text(self.to_json_obj()) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> Transcript:
        """Read a transcript file's text; :class:`TranscriptError` says what is wrong."""
        try:
            obj = load_json(text)
        except RepeatedKey as e:
            raise TranscriptError(
                f"an object in the file gives the key {e.args[0][:40]!r} twice"
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise TranscriptError(f"not JSON ({e})") from None
        except RecursionError:
            raise TranscriptError("not JSON (nested too deeply)") from None
        return cls.from_json_obj(obj)

    @classmethod
    def from_json_obj(cls, obj: object) -> Transcript:
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise TranscriptError(f'not a lanswitch transcript (no "format": "{FORMAT}")')
        version = obj.get("version")
        if version != VERSION:
            hint = (
                {
                    1: " (it was written by an older lanswitch, protocol v1)",
                    2: " (it was written by an older lanswitch, protocol v2 or v3, whose setup did "
                    "not bind the seats' names)",
                }.get(version, "")
                if type(version) is int
                else ""
            )
            raise TranscriptError(
                f"transcript version {version!r} is not supported: this lanswitch reads "
                f"version {VERSION}{hint}"
            )
        try:
            t = cls._from_fields(obj)
        except TranscriptError as e:
            raise TranscriptError(f"a malformed transcript: {e}") from None
        t.heads()  # a transcript must agree with itself
        return t

    @classmethod
    def _from_fields(cls, obj: dict[str, Any]) -> Transcript:
        if obj.get("protocol") != PROTOCOL:
            raise TranscriptError(f"protocol: {obj.get('protocol')!r} is not {PROTOCOL!r}")
        seats = _list(obj, "seats", _str)
        names = tuple(_list(obj, "names", _str))
        keys_obj = _dict(obj, "public_keys")
        keys = {p: _hex(keys_obj, p, 32, "public_keys") for p in keys_obj}
        try:
            setup = HandSetup.from_toml(
                _hex(obj, "game_id", GAME_ID_BYTES),
                _int(obj, "hand_no", 0, 2**32 - 1),
                _str(obj.get("rules"), "rules"),
                seats,
                keys,
                dealer=_int(obj, "dealer", 0, 255),
                out=_list(obj, "out", lambda v, p: _int_value(v, p, 0, 255)),
                turn_timer_ms=_int(obj, "turn_timer_ms", 0, 2**32 - 1),
                names=names,
            )
        except (SetupError, UsageError) as e:
            raise TranscriptError(f"setup: {e}") from None
        ps = (*setup.seats, DEALER)
        seat = _int(obj, "seat", 0, setup.players - 1)
        if seat not in setup.humans:
            raise TranscriptError("seat: a transcript is kept by a person's seat, which has a key")
        rounds = tuple(
            _round_from(r, f"rounds[{i}]", ps) for i, r in enumerate(_list(obj, "rounds", _any))
        )
        log = tuple(_event_from(v, f"log[{i}]") for i, v in enumerate(_list(obj, "log", _str)))
        cards = tuple(_list(obj, "cards", lambda v, p: _int_value(v, p, 0, MAX_CARD - 1)))
        heads_obj = _dict(obj, "log_heads")
        heads = {}
        for p, h in heads_obj.items():
            where = f"log_heads.{p}"
            if p not in ps or not isinstance(h, dict):
                raise TranscriptError(f"{where}: must be a participant's head")
            heads[p] = SignedHead(
                _int(h, "count", 0, 2**32 - 1, where),
                _hex(h, "head", HASH_BYTES, where),
                _hex(h, "signature", None, where),
            )
        void_obj = obj.get("void")
        void = None if void_obj is None else _void_from(void_obj, ps)
        disputes = tuple(
            Dispute(_int(d, "event", 0, 2**32 - 1, f"disputes[{i}]"), _str(d.get("text"), "text"))
            for i, d in enumerate(_list(obj, "disputes", _obj))
        )
        return cls(
            setup=setup,
            seat=seat,
            rounds=rounds,
            log=log,
            cards=cards,
            cards_signature=_hex(obj, "cards_signature", None),
            log_heads=heads,
            void=void,
            disputes=disputes,
        )


# -- writing ------------------------------------------------------------------------------------


def _commitments_json(commitments: Commitments) -> dict[str, Any]:
    return {p: {"commitment": c.hex(), "signature": s.hex()} for p, (c, s) in commitments.items()}


def _announce_json(a: Announcement) -> dict[str, Any]:
    return {
        "fixed": a.fixed,
        "ctx": a.ctx.hex(),
        "cards": list(a.cards),
        "seats": list(seats_of(a.mask)),
        "commitments": _commitments_json(a.commitments),
        "signature": a.signature.hex(),
    }


def announcement_json(a: Announcement) -> dict[str, Any]:
    """An announcement as a transcript writes it (SPEC § Transcript), with its round number:
    for a record kept outside a transcript (``lanswitch.seatkeep``)."""
    return {"round": a.round, **_announce_json(a)}


def _round_json(rec: RoundRecord) -> dict[str, Any]:
    return {
        "round": rec.round,
        "at": rec.at,
        "announces": [_announce_json(a) for a in rec.announces],
        "own_seed": None if rec.own_seed is None else rec.own_seed.hex(),
        "own_seed_sent": rec.own_seed_sent,
        "reveals": {p: {"seed": s.hex(), "signature": g.hex()} for p, (s, g) in rec.seeds.items()},
    }


def _void_json(v: VoidRecord) -> dict[str, Any]:
    return {
        "round": v.round,
        "fault": v.fault.name.lower(),
        "culprits": list(v.culprits),
        "commitments": _commitments_json(v.commitments),
        "signature": v.signature.hex(),
    }


def json_text(obj: object, indent: int = 0) -> str:
    """JSON with lists of scalars on one line, so card lists and the log stay readable (also
    the layout of the files in protocol/vectors/)."""
    pad = " " * (indent + 2)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {json_text(v, indent + 2)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(obj, list) and any(isinstance(v, dict | list) for v in obj):
        items = [pad + json_text(v, indent + 2) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return json.dumps(obj, ensure_ascii=False)


# -- reading JSON, field by field, naming the field on error ------------------------------------


def _path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _any(value: object, path: str) -> object:
    return value


def _obj(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TranscriptError(f"{path}: must be an object")
    return value


def _str(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise TranscriptError(f"{path}: must be a string")
    return value


def _int_value(value: object, path: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise TranscriptError(f"{path}: must be a whole number {lo}..{hi}")
    return value


def _int(obj: Mapping[str, object], key: str, lo: int, hi: int, where: str = "") -> int:
    return _int_value(obj.get(key), _path(where, key), lo, hi)


def _hex(obj: Mapping[str, object], key: str, n: int | None, where: str = "") -> bytes:
    path = _path(where, key)
    value = obj.get(key)
    if not isinstance(value, str):
        raise TranscriptError(f"{path}: must be a hex string")
    try:
        b = bytes.fromhex(value)
    except ValueError:
        raise TranscriptError(f"{path}: not hex") from None
    if len(value) != 2 * len(b) or (n is not None and len(b) != n):
        raise TranscriptError(f"{path}: must be {n} bytes as hex, without spaces")
    return b


def _list(
    obj: Mapping[str, object], key: str, item: Callable[[object, str], Any], where: str = ""
) -> list[Any]:
    path = _path(where, key)
    value = obj.get(key)
    if not isinstance(value, list):
        raise TranscriptError(f"{path}: must be a list")
    return [item(v, f"{path}[{i}]") for i, v in enumerate(value)]


def _dict(obj: Mapping[str, object], key: str, where: str = "") -> dict[str, Any]:
    return _obj(obj.get(key), _path(where, key))


def _pairs(
    obj: Mapping[str, object], key: str, ps: tuple[str, ...], names: tuple[str, str], where: str
) -> dict[str, tuple[bytes, bytes]]:
    out = {}
    for p, entry in _dict(obj, key, where).items():
        at = f"{where}.{key}.{p}"
        if p not in ps or not isinstance(entry, dict):
            raise TranscriptError(f"{at}: must be a participant's entry")
        out[p] = (_hex(entry, names[0], None, at), _hex(entry, names[1], None, at))
    return out


def _cards(obj: Mapping[str, object], where: str) -> tuple[int, ...]:
    cards = _list(obj, "cards", lambda v, p: _int_value(v, p, 0, MAX_CARD - 1), where)
    if cards != sorted(set(cards)):
        raise TranscriptError(f"{where}.cards: must be distinct card ids, ascending")
    return tuple(cards)


def _announce_from(
    obj: object, path: str, round_no: int, ps: tuple[str, ...], players: int | None = None
) -> Announcement:
    """``ps``: the hand's participant ids (its seats' and ``@dealer``); ``players``: its seats
    (default: those of ``ps``)."""
    o = _obj(obj, path)
    fixed = o.get("fixed")
    if not isinstance(fixed, bool):
        raise TranscriptError(f"{path}.fixed: must be true or false")
    top = (len(ps) - 1 if players is None else players) - 1
    seats = _list(o, "seats", lambda v, p: _int_value(v, p, 0, top), path)
    return Announcement(
        round_no,
        fixed,
        _hex(o, "ctx", HASH_BYTES, path),
        _cards(o, path),
        mask_of(seats),
        _pairs(o, "commitments", ps, ("commitment", "signature"), path),
        _hex(o, "signature", None, path),
    )


def announcement_from_json(obj: object, path: str = "announcement") -> Announcement:
    """What :func:`announcement_json` wrote (TranscriptError if it is not that). Its ids are
    not checked against a hand's: a reader checks the announcement against the hand it is
    used in (its context, the host's signature)."""
    o = _obj(obj, path)
    number = _int(o, "round", 0, 2**32 - 1, path)
    ids = tuple(p for p in _dict(o, "commitments", path) if isinstance(p, str))
    return _announce_from(o, path, number, ids, MAX_PLAYERS)


def _round_from(obj: object, path: str, ps: tuple[str, ...]) -> RoundRecord:
    o = _obj(obj, path)
    number = _int(o, "round", 0, 2**32 - 1, path)
    announces = tuple(
        _announce_from(a, f"{path}.announces[{i}]", number, ps)
        for i, a in enumerate(_list(o, "announces", _any, path))
    )
    if not announces:
        raise TranscriptError(f"{path}.announces: a round is recorded with its announcements")
    own = o.get("own_seed")
    sent = o.get("own_seed_sent")
    if not isinstance(sent, bool):
        raise TranscriptError(f"{path}.own_seed_sent: must be true or false")
    return RoundRecord(
        number,
        _int(o, "at", 0, 2**32 - 1, path),
        announces,
        None if own is None else _hex(o, "own_seed", None, path),
        sent,
        _pairs(o, "reveals", ps, ("seed", "signature"), path),
    )


def _void_from(obj: object, ps: tuple[str, ...]) -> VoidRecord:
    o = _obj(obj, "void")
    name = _str(o.get("fault"), "void.fault")
    try:
        fault = Fault[name.upper()]
    except KeyError:
        raise TranscriptError(f"void.fault: {name!r} is not a fault") from None
    culprits = _list(o, "culprits", _str, "void")
    if not culprits or any(c not in ps for c in culprits):
        raise TranscriptError("void.culprits: must be participants")
    return VoidRecord(
        _int(o, "round", 0, 2**32 - 1, "void"),
        fault,
        tuple(culprits),
        _pairs(o, "commitments", ps, ("commitment", "signature"), "void"),
        _hex(o, "signature", None, "void"),
    )


def _event_from(value: object, path: str) -> LogEvent:
    text = _str(value, path)
    try:
        data = bytes.fromhex(text)
        ev = decode_event(data)
    except (ValueError, UsageError):
        raise TranscriptError(f"{path}: not the hex of one log event") from None
    if ev.encode() != data or len(text) != 2 * len(data):
        raise TranscriptError(f"{path}: not the canonical hex of a log event")
    return ev
