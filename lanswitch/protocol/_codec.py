"""The codec: frames (``u32 big-endian length ‖ payload``) and their msgpack payloads.

Decoding: msgpack with explicit size limits (nothing may claim more than a frame could hold)
and no map that repeats a key, then the message's schema (``_fields``); anything else is a
:class:`RemoteProtocolError`. Encoding: the message's wire map (generated once per class), checked
against the same schema — a :class:`LocalProtocolError` — so every frame we write decodes at the
peer.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any, Final

import msgpack

from ..errors import RemoteError
from ._errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from ._fields import (
    _REPR,
    MAX_TEXT,
    Array,
    Choice,
    Map,
    Opt,
    Struct,
    Tuple,
    _bad,
    _Check,
    _check_fields,
    _schema,
)
from ._messages import MESSAGES, Hello, Message, Welcome

PROTOCOL_VERSION: Final = 8
"""The version ``hello`` and ``welcome`` carry; peers of different versions do not talk."""

MAX_FRAME: Final = 64 * 1024
"""The largest payload a frame may carry, in bytes (the length prefix not counted)."""

HEADER: Final = 4

# msgpack limits: nothing in a frame may claim more than the frame could hold.
_UNPACK_LIMITS: Final = {
    "max_str_len": MAX_FRAME,
    "max_bin_len": MAX_FRAME,
    "max_array_len": 8192,
    "max_map_len": 1024,
    "max_ext_len": 0,
}


def _needs_wire(spec: _Check) -> bool:
    """Whether a field's Python value needs converting before msgpack can pack it (an enum,
    a nested dataclass); tuples pack as arrays as they are, and the checks accept them."""
    if isinstance(spec, Choice | Struct):
        return True
    if isinstance(spec, Opt | Array):
        return _needs_wire(spec.inner)
    if isinstance(spec, Tuple):
        return any(_needs_wire(s) for s in spec.items)
    if isinstance(spec, Map):
        return _needs_wire(spec.key) or _needs_wire(spec.value)
    return False


_WIRERS: dict[type[Any], Callable[[Any], dict[str, object]]] = {}


def _wirer(cls: type[Any]) -> Callable[[Any], dict[str, object]]:
    """A function giving a message's wire map: ``type`` first, then every field in declared
    order, converted where msgpack cannot pack it as it is (:func:`_needs_wire`).

    Generated once per class, like the checkers: a host encodes a view and events per seat
    per step, and reading two dozen fields by name in a loop was most of that cost.
    """
    wirer = _WIRERS.get(cls)
    if wirer is None:
        items = [f"'type': {cls.TYPE!r}"]
        for name, spec in _schema(cls):
            value = f"m.{name}"
            items.append(
                f"{name!r}: _to_wire({value})" if _needs_wire(spec) else f"{name!r}: {value}"
            )
        env: dict[str, Any] = {"_to_wire": _to_wire}
        exec(f"def wire(m):\n    return {{{', '.join(items)}}}", env)
        wirer = _WIRERS[cls] = env["wire"]
    return wirer


_SCALARS: Final = frozenset({int, str, bytes, bool, type(None)})


def _to_wire(v: object) -> object:
    if type(v) in _SCALARS:
        return v
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, tuple | list):
        return [_to_wire(x) for x in v]
    if isinstance(v, Mapping):
        return {k: _to_wire(x) for k, x in v.items()}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _to_wire(getattr(v, f.name)) for f in dataclasses.fields(v)}
    return v


def _version_check(obj: dict[Any, Any], t: str) -> None:
    """``hello`` and ``welcome`` are checked for their version before anything else, so a
    peer of another version gets ``version_mismatch`` whatever else those messages hold."""
    v = obj.get("version")
    if type(v) is not int:
        raise _bad(f"{t}.version", "an integer", v)
    if v != PROTOCOL_VERSION:
        raise RemoteProtocolError(
            f"the peer speaks protocol version {v}; this program speaks {PROTOCOL_VERSION}",
            ErrorCode.VERSION_MISMATCH,
        )


def _checked(obj: object) -> Message:
    if type(obj) is not dict:
        raise _bad("message", "a map", obj)
    t = obj.get("type")
    if type(t) is not str:
        raise _bad("message.type", "a string", t)
    cls = MESSAGES.get(t)
    if cls is None:
        raise RemoteProtocolError(f"unknown message type {_REPR.repr(t)}")
    if cls is Hello or cls is Welcome:
        _version_check(obj, t)
    return _check_fields(cls, obj, t, ("type",))


def decode_message(obj: object) -> Message:
    """The message a decoded msgpack value holds; RemoteProtocolError if it holds none."""
    return _checked(obj)


class _RepeatedKey(RemoteError):  # noqa: N818  (what it carries: the key a map repeats)
    pass


def _map_once(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """A decoded map, refused if a key comes twice: msgpack itself keeps the last value, so
    two readers of one frame could disagree on it (msgpack's ``object_pairs_hook``, called
    for every map of the payload, nested ones included)."""
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        for k, _v in pairs:  # pragma: no branch  (a key repeats)
            if k in seen:
                raise _RepeatedKey(k)
            seen.add(k)
    return d


def decode_frame_payload(payload: bytes) -> Message:
    """The message one frame's payload holds."""
    try:
        obj = msgpack.unpackb(
            payload, raw=False, strict_map_key=True, object_pairs_hook=_map_once, **_UNPACK_LIMITS
        )
    except _RepeatedKey as e:
        raise RemoteProtocolError(
            f"a map in the frame repeats the key {_REPR.repr(e.args[0])}"[:MAX_TEXT],
            ErrorCode.BAD_FRAME,
        ) from None
    except Exception as e:  # msgpack raises several types for garbage; all mean "bad frame"
        raise RemoteProtocolError(
            f"the frame is not one msgpack value ({type(e).__name__}: {e})"[:MAX_TEXT],
            ErrorCode.BAD_FRAME,
        ) from None
    return decode_message(obj)


def encode_message(message: Message, *, check: bool = True) -> bytes:
    """The msgpack payload of ``message``: a map, ``type`` first, then the fields in their
    declared order. Checked against the schema: LocalProtocolError if it would not decode
    (``check=False`` skips that, for :data:`BUILT_FROM_ENGINE` messages)."""
    cls = type(message)
    if MESSAGES.get(getattr(cls, "TYPE", "")) is not cls:
        raise LocalProtocolError(f"not a protocol message: {_REPR.repr(message)}")
    t = message.TYPE
    wire = _wirer(cls)(message)
    if check:
        try:
            _checked(wire)
        except RemoteProtocolError as e:
            raise LocalProtocolError(f"cannot send this {t}: {e.text}", e.code) from None
    return msgpack.packb(wire, use_bin_type=True)  # type: ignore[no-any-return]


BUILT_FROM_ENGINE: Final = frozenset({"view", "events"})
"""The message types a host builds only from the rules engine's own values
(:meth:`SeatView.from_view`, redacted engine events). They are most of a host's output — a view
and events per seat per step — and checking each against the schema before sending was most
of the cost of encoding, so a host may encode them with ``check=False``.
``tests/test_protocol.py`` holds every view and event stream of whole hands of every preset to
the schema, which is what makes skipping the check safe."""


def encode_frame(message: Message, *, check: bool = True) -> bytes:
    """``message`` as one frame: ``u32 length ‖ payload``."""
    payload = encode_message(message, check=check)
    if len(payload) > MAX_FRAME:
        raise LocalProtocolError(
            f"a {message.TYPE} message of {len(payload)} bytes is above the "
            f"{MAX_FRAME}-byte frame limit",
            ErrorCode.TOO_BIG,
        )
    return len(payload).to_bytes(HEADER, "big") + payload
