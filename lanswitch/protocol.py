"""The wire protocol: messages, their msgpack codec, framing, and a sans-I/O connection.

Theory of operation
-------------------
Like h11, this module never touches a socket. A :class:`Connection` is fed the bytes that
arrived (:meth:`Connection.receive_data`) and returns the messages they completed; it turns
a message we want to send into the bytes to write (:meth:`Connection.send`). The shells
(``server.py``, ``client.py``) own the TLS streams and pass bytes in and out.

Three layers, each checked on its own (``protocol/SPEC.md`` specifies all three):

1. **Frames.** ``u32 big-endian length ‖ payload``; ``1 ≤ length ≤`` :data:`MAX_FRAME`. A
   length outside that range is rejected as soon as its four bytes arrive, so a peer cannot
   make us buffer more than one maximum frame.
2. **Payloads.** One msgpack map per frame, decoded with explicit size limits and no map
   that repeats a key, with a string ``"type"`` and exactly the fields of that message type.
   Every field is present (optional ones as nil) and has its type and bounds; anything else
   is a :class:`RemoteProtocolError`.
   We check what we send against the same schema (a :class:`LocalProtocolError`), so every
   frame we write decodes at the peer.
3. **The connection's state machine** (:data:`HANDSHAKE`, :data:`CLIENT_SENDS`,
   :data:`SERVER_SENDS`): the client's first message is ``hello``, the server's first
   ``welcome`` (or ``error``/``bye``); after that each role sends its own set; ``bye`` or
   ``error`` from either side closes the connection.

Errors split as in h11: :class:`LocalProtocolError` when our side misuses the API,
:class:`RemoteProtocolError` when the peer misbehaved. Both carry an :class:`ErrorCode`, and
:meth:`ProtocolError.error_message` is the ``error`` message to send back (wsproto style).
"""

from __future__ import annotations

import dataclasses
import enum
import re
import reprlib
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeVar

import msgpack

from .game import Phase, View

__all__ = [
    "CLIENT_SENDS",
    "HANDSHAKE",
    "MAX_FRAME",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "SERVER_SENDS",
    "Abort",
    "Announce",
    "BlindAbort",
    "BlindLeave",
    "BlindMove",
    "BlindOpen",
    "BlindPass",
    "BlindRelease",
    "BlindReveal",
    "BlindSeeds",
    "BlindShare",
    "Bye",
    "Chat",
    "Commit",
    "Connection",
    "Error",
    "ErrorCode",
    "Events",
    "Hand",
    "HandOver",
    "Hello",
    "LobbySeat",
    "LobbyState",
    "LocalProtocolError",
    "LogHead",
    "LogHeads",
    "Message",
    "Move",
    "Ping",
    "Pong",
    "ProtocolError",
    "Ready",
    "Reject",
    "RemoteProtocolError",
    "Reveal",
    "Reveals",
    "Role",
    "SeatView",
    "Sit",
    "Stand",
    "State",
    "Welcome",
    "clean_name",
    "clean_text",
    "decode_frame_payload",
    "encode_frame",
    "encode_message",
]

PROTOCOL_VERSION: Final = 7
"""The version ``hello`` and ``welcome`` carry; peers of different versions do not talk."""

MAX_FRAME: Final = 64 * 1024
"""The largest payload a frame may carry, in bytes (the length prefix not counted)."""

HEADER: Final = 4

_T = TypeVar("_T")

# msgpack limits: nothing in a frame may claim more than the frame could hold.
_UNPACK_LIMITS: Final = {
    "max_str_len": MAX_FRAME,
    "max_bin_len": MAX_FRAME,
    "max_array_len": 8192,
    "max_map_len": 1024,
    "max_ext_len": 0,
}

# ---------------------------------------------------------------------------------------------
# Errors


class ErrorCode(enum.Enum):
    """Why a connection ends (``error``) or a request is refused (``reject``). The value is the
    wire string."""

    BAD_FRAME = "bad_frame"
    """A frame's length is 0, or its payload is not one well-formed msgpack value (a map
    that repeats a key included)."""
    TOO_BIG = "too_big"
    """A frame's length is above :data:`MAX_FRAME`."""
    BAD_MESSAGE = "bad_message"
    """A payload is not a known message: unknown type, a missing, extra or ill-typed field."""
    UNEXPECTED = "unexpected"
    """A well-formed message that its sender may not send now (before the handshake, a
    server-only message from a client, a second hello, …)."""
    VERSION_MISMATCH = "version_mismatch"
    """``hello`` or ``welcome`` names another protocol version."""
    BAD_PASSWORD = "bad_password"
    """The table has a password and ``hello`` gave none or another."""
    BAD_TOKEN = "bad_token"
    """``hello`` carried a resume token the host does not know (or no longer honours)."""
    TABLE_FULL = "table_full"
    """No seat is free (``sit``), or the host takes no more connections."""
    SEAT_TAKEN = "seat_taken"
    """``sit`` asked for a seat someone else holds."""
    NOT_NOW = "not_now"
    """A lobby request the table cannot grant in its current state (``sit``/``stand``
    during a hand, ``ready`` while not seated)."""
    NOT_YOUR_TURN = "not_your_turn"
    """A ``move`` from a seat that is not to act (or from a spectator)."""
    ILLEGAL_MOVE = "illegal_move"
    """A ``move`` the rules do not allow now."""
    STALE_VIEW = "stale_view"
    """A ``move`` that answers a view older than the latest one sent."""
    FAIR_DEAL = "fair_deal"
    """A ``commit``, ``reveal`` or ``log_head`` the fair deal does not accept (wrong round,
    sent twice, too early)."""
    RATE_LIMITED = "rate_limited"
    """The peer sends more than the host accepts (messages or chat per second)."""
    KICKED = "kicked"
    """The host removed this player from the table."""
    SHUTDOWN = "shutdown"
    """The host is shutting the table down."""
    PAUSED = "paused"
    """The host stopped the table mid-match and keeps it to carry on (``--resume``): the
    client keeps its resume token and the hand in play, and connects again (protocol v7)."""
    INTERNAL = "internal"
    """The sender hit a bug of its own; the connection cannot go on."""


class ProtocolError(Exception):
    """A protocol violation, with the :class:`ErrorCode` to tell the peer."""

    def __init__(self, text: str, code: ErrorCode = ErrorCode.BAD_MESSAGE) -> None:
        super().__init__(text)
        self.text = text
        self.code = code

    def error_message(self) -> Error:
        """The ``error`` message that tells the peer what went wrong."""
        return Error(code=self.code, text=self.text[:MAX_TEXT])


class LocalProtocolError(ProtocolError):
    """Our side misused the connection: a message not allowed now, a bad field, too big."""


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol. ``received`` holds the messages that the same call to
    :meth:`Connection.receive_data` decoded before the violation."""

    def __init__(
        self,
        text: str,
        code: ErrorCode = ErrorCode.BAD_MESSAGE,
        received: tuple[Message, ...] = (),
    ) -> None:
        super().__init__(text, code)
        self.received = received


# ---------------------------------------------------------------------------------------------
# Field schemas: each checks a decoded msgpack value and returns the Python value


class _Check:
    """A field's wire type. ``check`` raises RemoteProtocolError; the result is the Python
    value (arrays become tuples, maps dicts, nested maps their dataclass)."""

    def check(self, v: object, path: str) -> Any:
        raise NotImplementedError


_REPR: Final = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 2, 30, 30, 3, 3


def _bad(path: str, want: str, v: object) -> RemoteProtocolError:
    shown = _REPR.repr(v)  # bounded in depth and length, whatever the peer sent
    return RemoteProtocolError(f"{path}: expected {want}, got {type(v).__name__} {shown}")


@dataclass(frozen=True, slots=True)
class Int(_Check):
    lo: int
    hi: int

    def check(self, v: object, path: str) -> Any:
        if type(v) is not int or not self.lo <= v <= self.hi:
            raise _bad(path, f"an integer in {self.lo}..{self.hi}", v)
        return v


@dataclass(frozen=True, slots=True)
class Bool(_Check):
    def check(self, v: object, path: str) -> Any:
        if type(v) is not bool:
            raise _bad(path, "a boolean", v)
        return v


@dataclass(frozen=True, slots=True)
class Str(_Check):
    lo: int
    hi: int
    pattern: str | None = None
    _match: Any = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if self.pattern is not None:
            object.__setattr__(self, "_match", re.compile(self.pattern).fullmatch)

    def check(self, v: object, path: str) -> Any:
        if type(v) is not str or not self.lo <= len(v) <= self.hi:
            raise _bad(path, f"a string of {self.lo}..{self.hi} characters", v)
        if self._match is not None and self._match(v) is None:
            raise _bad(path, f"a string matching {self.pattern}", v)
        return v


NOT_IN_NAMES: Final = (
    "\x00-\x1f\x7f-\x9f"  # C0 and C1 controls, DEL
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"  # format characters (Cf)
    "\u2028\u2029"  # line and paragraph separators
)
"""The characters a ``name`` never holds, as a regular-expression class body: controls, every
format character of Unicode 15 (general category Cf: the bidi embeddings, overrides,
isolates and marks, zero-width spaces and joiners, the BOM, invisible operators, tags) and
the line and paragraph separators. A fixed list rather than a lookup in the running
Python's Unicode tables, so that a host and a client on different Pythons agree on it."""


@dataclass(frozen=True, slots=True)
class Name(_Check):
    """A display name (a player's, a seat's, the table's): ``lo..hi`` characters, none of
    :data:`NOT_IN_NAMES`, and not beginning with a combining mark (Unicode category M) —
    so never marks alone, which stack onto whatever a terminal printed before them.

    Names are printed on other people's screens: a bidi override or a C1 control in one
    would reorder or rewrite what is printed after it (issue #15)."""

    lo: int
    hi: int

    def fault(self, v: str) -> str | None:
        """Why ``v`` (a string) is not a name, or None."""
        if not self.lo <= len(v) <= self.hi:
            return f"a name of {self.lo}..{self.hi} characters"
        if _NOT_A_NAME(v) is not None:
            return "a name without control, format or bidi characters"
        if v and unicodedata.category(v[0])[0] == "M":
            return "a name that does not begin with a combining mark"
        return None

    def check(self, v: object, path: str) -> Any:
        if type(v) is not str:
            raise _bad(path, f"a name of {self.lo}..{self.hi} characters", v)
        why = self.fault(v)
        if why is not None:
            raise _bad(path, why, v)
        return v


_NOT_A_NAME: Final = re.compile(f"[{NOT_IN_NAMES}]").search


def clean_text(text: str, limit: int) -> str:
    """``text`` made fit to print in a line among others: without control, format or other
    invisible characters (Unicode category C), white space folded to single spaces, without
    a combining mark that begins it or follows a space (marks alone), at most ``limit``
    characters. A non-empty result of at most 32 characters is a ``name``: the host cleans
    every name it shows with this — a joiner's, its own table's (issue #15)."""
    kept: list[str] = []
    for ch in text:
        if ch.isspace():
            ch = " "
        elif unicodedata.category(ch)[0] == "C":
            continue
        elif unicodedata.category(ch)[0] == "M" and (not kept or kept[-1] == " "):
            continue  # a mark with nothing to sit on
        kept.append(ch)
    return " ".join("".join(kept).split())[:limit]


def clean_name(text: str, what: str = "the name") -> str:
    """``text`` cleaned (:func:`clean_text`) into a ``name``: a player's, the table's.
    ValueError, naming ``what``, if nothing visible is left of it."""
    name = clean_text(text, NAME.hi)
    if not name:
        raise ValueError(
            f"{what} {text!r} has no visible characters: give one of 1 to {NAME.hi} characters"
        )
    return name


@dataclass(frozen=True, slots=True)
class Bytes(_Check):
    lo: int
    hi: int

    def check(self, v: object, path: str) -> Any:
        if type(v) is not bytes or not self.lo <= len(v) <= self.hi:
            want = f"{self.lo} bytes" if self.lo == self.hi else f"{self.lo}..{self.hi} bytes"
            raise _bad(path, f"binary of {want}", v)
        return v


@dataclass(frozen=True, slots=True)
class Opt(_Check):
    inner: _Check

    def check(self, v: object, path: str) -> Any:
        return None if v is None else self.inner.check(v, path)


_INT_ONLY: Final = frozenset({int})
_BOOL_ONLY: Final = frozenset({bool})
_BYTES_ONLY: Final = frozenset({bytes})

# Arrays and maps check their items under their own path and name the failing item only when
# one fails (by checking it again under its full path): the common case builds no strings.


@dataclass(frozen=True, slots=True)
class Array(_Check):
    inner: _Check
    lo: int
    hi: int

    def check(self, v: object, path: str) -> Any:
        if (type(v) is not list and type(v) is not tuple) or not self.lo <= len(v) <= self.hi:
            raise _bad(path, f"an array of {self.lo}..{self.hi} items", v)
        inner = self.inner
        # Arrays of ints and of bools (hands, counts, legal moves) are checked at C speed: the
        # item types as a set, then the bounds by min and max. Anything else falls through
        # to the item-by-item check, which also names the bad item.
        if type(inner) is Int:
            if not v:
                return ()
            if set(map(type, v)) == _INT_ONLY and inner.lo <= min(v) and max(v) <= inner.hi:
                return tuple(v)
        elif type(inner) is Bool and (not v or set(map(type, v)) == _BOOL_ONLY):
            return tuple(v)
        elif type(inner) is Bytes:  # a step's log events
            if not v:
                return ()
            if (
                set(map(type, v)) == _BYTES_ONLY
                and inner.lo <= min(map(len, v))
                and max(map(len, v)) <= inner.hi
            ):
                return tuple(v)
        elif type(inner) is Tuple:  # a step's engine events: (kind, seat, value) each
            fast = _tuple_checker(inner)
            if fast is not None:
                items = [fast(x) for x in v]
                if None not in items:
                    return tuple(items)
        check = inner.check
        try:
            return tuple([check(x, path) for x in v])
        except RemoteProtocolError:
            for i, x in enumerate(v):
                check(x, f"{path}[{i}]")
            raise


@dataclass(frozen=True, slots=True)
class Tuple(_Check):
    items: tuple[_Check, ...]

    def check(self, v: object, path: str) -> Any:
        if (type(v) is not list and type(v) is not tuple) or len(v) != len(self.items):
            raise _bad(path, f"an array of exactly {len(self.items)} items", v)
        try:
            return tuple([c.check(x, path) for c, x in zip(self.items, v, strict=True)])
        except RemoteProtocolError:
            for i, (c, x) in enumerate(zip(self.items, v, strict=True)):
                c.check(x, f"{path}[{i}]")
            raise


_TupleChecker = Callable[[object], tuple[Any, ...] | None]
_TUPLE_CHECKERS: dict[Tuple, _TupleChecker | None] = {}


def _tuple_checker(spec: Tuple) -> _TupleChecker | None:
    """For an array of fixed tuples of scalars (a step's events, each ``(kind, seat,
    value)``), a function generated once that checks one tuple inline — the same rules as
    :meth:`Tuple.check` — and gives the tuple, or None where that check would fail (then the
    array is checked item by item again, for the error). None: no such function (an item
    that is not a scalar). A client decodes every step's events: the method call per item
    showed in issue #17's profile of the load's clients."""
    if spec in _TUPLE_CHECKERS:
        return _TUPLE_CHECKERS[spec]
    env: dict[str, Any] = {}
    names = [f"a{i}" for i in range(len(spec.items))]
    conds = ["(type(x) is list or type(x) is tuple)", f"len(x) == {len(spec.items)}"]
    tests = []
    for i, item in enumerate(spec.items):
        a = names[i]
        if isinstance(item, Int):
            tests.append(f"type({a}) is int and {item.lo} <= {a} <= {item.hi}")
        elif isinstance(item, Bool):
            tests.append(f"type({a}) is bool")
        elif isinstance(item, Str | Bytes):
            kind = "str" if isinstance(item, Str) else "bytes"
            tests.append(f"type({a}) is {kind} and {item.lo} <= len({a}) <= {item.hi}")
            if isinstance(item, Str) and item._match is not None:
                env[f"m{i}"] = item._match
                tests.append(f"m{i}({a}) is not None")
        else:
            _TUPLE_CHECKERS[spec] = None
            return None
    unpack = ", ".join(names) + ("," if len(names) == 1 else "")
    lines = [
        "def fast(x):",
        f"    if {' and '.join(conds)}:",
        f"        {unpack} = x",
        f"        if {' and '.join(tests)}:",
        f"            return ({unpack})",
        "    return None",
    ]
    exec("\n".join(lines), env)
    fast: _TupleChecker = env["fast"]
    _TUPLE_CHECKERS[spec] = fast
    return fast


@dataclass(frozen=True, slots=True)
class Map(_Check):
    key: _Check
    value: _Check
    hi: int

    def check(self, v: object, path: str) -> Any:
        if type(v) is not dict or len(v) > self.hi:
            raise _bad(path, f"a map of at most {self.hi} entries", v)
        kc, vc = self.key.check, self.value.check
        try:
            return {kc(k, path): vc(x, path) for k, x in v.items()}
        except RemoteProtocolError:
            for k, x in v.items():
                kc(k, f"{path} key")
                vc(x, f"{path}[{_REPR.repr(k)}]")
            raise


@dataclass(frozen=True, slots=True)
class Choice(_Check):
    enum_type: type[enum.Enum]

    def check(self, v: object, path: str) -> Any:
        try:
            return self.enum_type(v)
        except (ValueError, TypeError):
            names = ", ".join(str(m.value) for m in self.enum_type)
            raise _bad(path, f"one of {names}", v) from None


@dataclass(frozen=True, slots=True)
class Struct(_Check):
    cls: type[Any]

    def check(self, v: object, path: str) -> Any:
        if type(v) is not dict:
            raise _bad(path, "a map", v)
        return _check_fields(self.cls, v, path, ())


# Shared field types and bounds
U32: Final = Int(0, 2**32 - 1)
I32: Final = Int(-(2**31), 2**31 - 1)
MAX_SEATS: Final = 8
MAX_TEXT: Final = 500
CARD: Final = Int(0, 107)
CARDS: Final = Array(CARD, 0, 108)
SEAT: Final = Int(0, MAX_SEATS - 1)
NAME: Final = Name(1, 32)  # a display name (§ Messages, field types)
NAME_OR_EMPTY: Final = Name(0, 32)  # a seat's name: empty for a free seat
PID_RE: Final = r"[A-Za-z0-9_-]{1,32}"
PID: Final = Str(1, 32, PID_RE)  # a seat's participant id (§ Fair deal, Participants)
ANY_PID: Final = Str(1, 32, PID_RE + "|@dealer")
TOKEN: Final = Bytes(16, 64)
KEY: Final = Bytes(32, 32)
HASH: Final = Bytes(32, 32)
SIG: Final = Bytes(0, 256)  # a signature as received: a wrong length is blamed, not refused
TEXT: Final = Str(0, MAX_TEXT)
EVENT: Final = Tuple((Str(1, 16, r"[a-z_]+"), Int(-1, MAX_SEATS - 1), I32))
HEAD: Final = Tuple((U32, HASH, SIG))


def _wire(spec: _Check, **kw: Any) -> Any:
    """A dataclass field with its wire type in the metadata."""
    return field(metadata={"wire": spec}, **kw)


def _schema(cls: type[Any]) -> tuple[tuple[str, _Check], ...]:
    """(name, wire type) of every field of a message or nested map, in order."""
    return tuple((f.name, f.metadata["wire"]) for f in dataclasses.fields(cls))


_Plan = tuple[tuple[tuple[str, Any, str], ...], frozenset[str]]
_PLANS: dict[tuple[type[Any], str], _Plan] = {}


def _plan(cls: type[Any], where: str) -> _Plan:
    """The fields' (name, check, path) and names of ``cls`` read at ``where``, computed once."""
    plan = _PLANS.get((cls, where))
    if plan is None:
        schema = _schema(cls)
        fields = tuple((n, spec.check, f"{where}.{n}") for n, spec in schema)
        plan = _PLANS[cls, where] = (fields, frozenset(n for n, _ in schema))
    return plan


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


def _check_fields(cls: type[_T], obj: dict[Any, Any], where: str, skip: tuple[str, ...]) -> _T:
    """The ``cls`` a decoded map holds (every field present, each of its wire type, nothing
    else but the names in ``skip``); RemoteProtocolError naming the first fault if not."""
    fields, names = _plan(cls, where)
    if len(obj) != len(fields) + len(skip) or not names.issubset(obj.keys()):
        extra = sorted(_REPR.repr(k) for k in obj if k not in names and k not in skip)
        if extra:
            more = f" and {len(extra) - 5} more" if len(extra) > 5 else ""
            raise RemoteProtocolError(f"{where}: unexpected field(s) {', '.join(extra[:5])}{more}")
        missing = [n for n, _, _ in fields if n not in obj]
        raise RemoteProtocolError(f"{where}: missing field(s) {', '.join(missing)}")
    checker = _CHECKERS.get((cls, where))
    if checker is None:
        checker = _CHECKERS[cls, where] = _compile_checker(cls, where)
    return checker(obj)  # type: ignore[no-any-return]


_CHECKERS: dict[tuple[type[Any], str], Callable[[dict[Any, Any]], Any]] = {}


def _builder_lines(cls: type[Any], values: list[str], *, init: bool = False) -> list[str]:
    """Source lines (of a function body) that make a ``cls`` from the expressions ``values``
    (one per field, in order) and return it.

    The messages are frozen, slotted dataclasses whose ``__init__`` only stores each field
    (``object.__setattr__``, as frozen dataclasses do): the generated code stores them the
    same way, without building a keyword dict for ``__init__`` to take apart again. A class
    with a ``__post_init__`` (or any class, with ``init``) gets its ``__init__`` called with
    each field by name instead.
    """
    names = [f.name for f in dataclasses.fields(cls)]
    if init or hasattr(cls, "__post_init__"):
        args = ", ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))
        return [f"    return cls({args})"]
    lines = ["    m = _new(cls)"]
    lines += [f"    _set(m, {n!r}, {v})" for n, v in zip(names, values, strict=True)]
    return [*lines, "    return m"]


_BUILD_ENV: Final[dict[str, Any]] = {"_new": object.__new__, "_set": object.__setattr__}


def _compile_checker(cls: type[Any], where: str) -> Callable[[dict[Any, Any]], Any]:
    """A function checking every field of ``cls`` in a map whose keys are already right,
    and returning the ``cls`` it holds.

    Checking a ``view`` field by field through the ``_Check`` objects costs a method call per
    field, and the host sends a view per seat per step: the scalar checks are generated
    inline here instead (as attrs and pydantic generate their ``__init__``), with the same
    rules and the same error texts. Compound fields still call their ``_Check``.
    """
    env: dict[str, Any] = {
        "_bad": _bad,
        "_INT_ONLY": _INT_ONLY,
        "_BOOL_ONLY": _BOOL_ONLY,
        "cls": cls,
        **_BUILD_ENV,
    }
    lines = ["def check(obj):"]
    for i, (name, spec) in enumerate(_schema(cls)):
        path = f"{where}.{name}"
        env[f"p{i}"] = path
        lines.append(f"    v{i} = obj[{name!r}]")
        indent = "    "
        inner = spec
        if isinstance(spec, Opt) and isinstance(spec.inner, Int | Bool | Str | Bytes):
            lines.append(f"    if v{i} is not None:")
            indent, inner = "        ", spec.inner
        if isinstance(inner, Int):
            env[f"w{i}"] = f"an integer in {inner.lo}..{inner.hi}"
            lines.append(
                f"{indent}if type(v{i}) is not int or not {inner.lo} <= v{i} <= {inner.hi}:"
                f" raise _bad(p{i}, w{i}, v{i})"
            )
        elif isinstance(inner, Bool):
            lines.append(f"{indent}if type(v{i}) is not bool: raise _bad(p{i}, 'a boolean', v{i})")
        elif isinstance(inner, Str | Bytes):
            kind = "str" if isinstance(inner, Str) else "bytes"
            if isinstance(inner, Str):
                env[f"w{i}"] = f"a string of {inner.lo}..{inner.hi} characters"
            else:
                n = f"{inner.lo}" if inner.lo == inner.hi else f"{inner.lo}..{inner.hi}"
                env[f"w{i}"] = f"binary of {n} bytes"
            lines.append(
                f"{indent}if type(v{i}) is not {kind} or not {inner.lo} <= len(v{i}) <= "
                f"{inner.hi}: raise _bad(p{i}, w{i}, v{i})"
            )
            if isinstance(inner, Str) and inner.pattern is not None:
                env[f"m{i}"], env[f"x{i}"] = inner._match, f"a string matching {inner.pattern}"
                lines.append(f"{indent}if m{i}(v{i}) is None: raise _bad(p{i}, x{i}, v{i})")
        elif isinstance(spec, Array) and isinstance(spec.inner, Int | Bool):
            # The common case at C speed; anything odd goes to the full check for its error.
            env[f"c{i}"] = spec.check
            item = spec.inner
            if isinstance(item, Int):
                fast = (
                    f"set(map(type, v{i})) == _INT_ONLY and {item.lo} <= min(v{i}) "
                    f"and max(v{i}) <= {item.hi}"
                )
            else:
                fast = f"set(map(type, v{i})) == _BOOL_ONLY"
            lines.append(
                f"    if (type(v{i}) is list or type(v{i}) is tuple) and "
                f"{spec.lo} <= len(v{i}) <= {spec.hi} and (not v{i} or {fast}):"
            )
            lines.append(f"        v{i} = tuple(v{i})")
            lines.append("    else:")
            lines.append(f"        v{i} = c{i}(v{i}, p{i})")
        else:
            env[f"c{i}"] = spec.check
            lines.append(f"    v{i} = c{i}(v{i}, p{i})")
    lines += _builder_lines(cls, [f"v{i}" for i in range(len(_schema(cls)))])
    exec("\n".join(lines), env)
    return env["check"]  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# Messages


class Message:
    """A protocol message. ``TYPE`` is its wire ``type``; the fields are the dataclass's."""

    __slots__ = ()
    TYPE: ClassVar[str]


# -- handshake and closing --------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Message):
    """Client → host, first message. ``token`` resumes an earlier seat; ``key`` is the
    client's Ed25519 session public key (§ Signatures)."""

    TYPE: ClassVar[str] = "hello"
    version: int = _wire(U32)
    name: str = _wire(NAME)
    key: bytes = _wire(KEY)
    spectate: bool = _wire(Bool(), default=False)
    password: str | None = _wire(Opt(Str(0, 128)), default=None)
    token: bytes | None = _wire(Opt(TOKEN), default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(Message):
    """Host → client, answer to ``hello``: the client's seat (None: a spectator) and the
    token that resumes it."""

    TYPE: ClassVar[str] = "welcome"
    version: int = _wire(U32)
    table: str = _wire(NAME)
    seat: int | None = _wire(Opt(SEAT))
    token: bytes = _wire(TOKEN)


@dataclass(frozen=True, slots=True, kw_only=True)
class Error(Message):
    """Either side: the sender ends the connection because of ``code``."""

    TYPE: ClassVar[str] = "error"
    code: ErrorCode = _wire(Choice(ErrorCode))  # noqa: RUF009
    text: str = _wire(TEXT, default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class Bye(Message):
    """Either side: the sender ends the connection normally."""

    TYPE: ClassVar[str] = "bye"
    reason: str = _wire(TEXT, default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Message):
    """Either side: asks for a ``pong`` with the same ``nonce`` (liveness, round trips)."""

    TYPE: ClassVar[str] = "ping"
    nonce: int = _wire(U32)


@dataclass(frozen=True, slots=True, kw_only=True)
class Pong(Message):
    """Either side: the answer to ``ping``."""

    TYPE: ClassVar[str] = "pong"
    nonce: int = _wire(U32)


# -- lobby ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Sit(Message):
    """Client → host: take ``seat`` (None: any free seat)."""

    TYPE: ClassVar[str] = "sit"
    seat: int | None = _wire(Opt(SEAT), default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand(Message):
    """Client → host: leave the seat and watch."""

    TYPE: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready(Message):
    """Client → host: this seat is (or is no longer) ready for the next hand."""

    TYPE: ClassVar[str] = "ready"
    ready: bool = _wire(Bool(), default=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Chat(Message):
    """Both ways: a chat line. Clients send ``sender=""``; the host fills in the name."""

    TYPE: ClassVar[str] = "chat"
    text: str = _wire(Str(1, MAX_TEXT))
    sender: str = _wire(NAME_OR_EMPTY, default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbySeat:
    """One seat as the lobby shows it. A free seat has ``name == ""``."""

    name: str = _wire(NAME_OR_EMPTY)
    id: str = _wire(Str(0, 32, f"(?:{PID_RE})?"))
    bot: bool = _wire(Bool(), default=False)
    ready: bool = _wire(Bool(), default=False)
    connected: bool = _wire(Bool(), default=False)
    key: bytes = _wire(Bytes(0, 32), default=b"")
    grace_ms: int = _wire(U32, default=0)
    """A player away mid-hand: the milliseconds, counted from this message, until its grace
    runs out and the host stands in for it (0: not away, between hands, or already past)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyState(Message):
    """Host → every client, whenever the lobby changes: seats, who hosts, the rules, the
    match so far — and ``you``, the seat of the client it is sent to (None: it has none).

    A client knows its seat by ``you``, the host's word, not by looking for its own key
    among the seats: a key is public (every seat's is shown here), and a seat another
    client took with it would read as its own (issue #15)."""

    TYPE: ClassVar[str] = "lobby"
    table: str = _wire(NAME)
    rules: str = _wire(Str(1, 64))
    host: int | None = _wire(Opt(SEAT))
    seats: tuple[LobbySeat, ...] = _wire(Array(Struct(LobbySeat), 2, MAX_SEATS))
    spectators: int = _wire(U32, default=0)
    playing: bool = _wire(Bool(), default=False)
    hands: int = _wire(U32, default=0)
    scores: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS), default=())
    turn_timer: int = _wire(U32, default=0)
    you: int | None = _wire(Opt(SEAT), default=None)
    blind: bool = _wire(Bool(), default=False)


# -- play -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand(Message):
    """Host → every client: a hand begins. Everything ``ctx_0`` and the setup note need.
    ``keys``: the public key of every person's seat and of ``@dealer``; a seat without one is
    the host's (a bot). ``turn_timer_ms``: the time a seat has to act (0: no timer).
    ``blind``: a dealer-blind hand (§ Dealer-blind on the wire): no ``announce`` rounds, views
    nor events follow, but the ``blind_*`` messages. ``names``: every seat's display name as
    the lobby shows it ("" for an empty seat), bound by the setup note (protocol v4)."""

    TYPE: ClassVar[str] = "hand"
    game_id: bytes = _wire(Bytes(16, 16))
    hand_no: int = _wire(U32)
    seats: tuple[str, ...] = _wire(Array(PID, 2, MAX_SEATS))
    dealer: int = _wire(SEAT)
    out: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS), default=())
    rules: str = _wire(Str(1, 32 * 1024))
    keys: Mapping[str, bytes] = _wire(Map(ANY_PID, KEY, MAX_SEATS + 1))
    turn_timer_ms: int = _wire(U32, default=0)
    blind: bool = _wire(Bool(), default=False)
    names: tuple[str, ...] = _wire(Array(NAME_OR_EMPTY, 0, MAX_SEATS), default=())


_VIEW_FIELDS: Final = tuple(f.name for f in dataclasses.fields(View))


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView(Message):
    """Host → one client: that seat's view after step ``seq`` (a spectator's: ``seat`` None,
    no hand). Never another seat's cards. ``timer_ms``: time left for the seat to act, 0 if
    there is no turn timer."""

    TYPE: ClassVar[str] = "view"
    seq: int = _wire(U32)
    seat: int | None = _wire(Opt(SEAT))
    hand: tuple[int, ...] = _wire(CARDS)
    counts: tuple[int, ...] = _wire(Array(Int(0, 108), 2, MAX_SEATS))
    active: tuple[bool, ...] = _wire(Array(Bool(), 2, MAX_SEATS))
    top: int = _wire(Int(-1, 107))
    top_face: int = _wire(I32)
    named_suit: int = _wire(Int(-1, 3))
    free: bool = _wire(Bool())
    direction: int = _wire(Int(-1, 1))
    turn: int = _wire(Int(-1, MAX_SEATS - 1))
    phase: int = _wire(Int(0, 7))
    pending_kind: str = _wire(Str(0, 8, r"|pickup|skip"))
    pending_amount: int = _wire(I32)
    pending_target: int = _wire(Int(-2, MAX_SEATS - 1))
    missed: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS))
    declared: tuple[bool, ...] = _wire(Array(Bool(), 0, MAX_SEATS))
    called_last: bool = _wire(Bool())
    called_two: bool = _wire(Bool())
    stock: int = _wire(Int(0, 108))
    discard: int = _wire(Int(0, 108))
    dealer: int = _wire(SEAT)
    finished: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS))
    legal: tuple[int, ...] = _wire(Array(U32, 0, 1024))
    timer_ms: int = _wire(U32, default=0)

    @classmethod
    def from_view(cls, view: View, seq: int, timer_ms: int = 0) -> SeatView:
        """The message for an engine :class:`~lanswitch.game.View`."""
        return _FROM_VIEW(view, seq, timer_ms)  # type: ignore[no-any-return]

    def to_view(self) -> View:
        """The engine :class:`~lanswitch.game.View` this message carries."""
        return _TO_VIEW(self)  # type: ignore[no-any-return]


def _view_converters() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``SeatView.from_view`` and ``to_view``, generated: a host makes a view per seat per
    step and a client reads each, so copying two dozen fields by name in a loop showed up."""

    def value(name: str, source: str) -> str:
        if name == "phase":
            return f"int({source}.phase)" if source == "view" else f"Phase({source}.phase)"
        return f"{source}.{name}"

    env: dict[str, Any] = {"Phase": Phase, **_BUILD_ENV}
    names = [f.name for f in dataclasses.fields(SeatView)]
    given = {"seq": "seq", "timer_ms": "timer_ms"}
    from_values = [given.get(n) or value(n, "view") for n in names]
    from_lines = [
        "def from_view(view, seq, timer_ms):",
        "    cls = SeatView",
        *_builder_lines(SeatView, from_values),
    ]
    to_values = [value(n, "m") for n in _VIEW_FIELDS]
    to_lines = ["def to_view(m):", "    cls = View", *_builder_lines(View, to_values, init=True)]
    env.update(SeatView=SeatView, View=View)
    exec("\n".join(from_lines + to_lines), env)
    return env["from_view"], env["to_view"]


_FROM_VIEW, _TO_VIEW = _view_converters()


@dataclass(frozen=True, slots=True, kw_only=True)
class Events(Message):
    """Host → one client: what step ``seq`` of the hand did, as this client may see it.

    ``events``: the engine's events ``(kind, seat, value)``, redacted for this client
    (:func:`lanswitch.game.redact`); ``log``: the public log events the step appended, each in
    its § Public log encoding (the same for every client)."""

    TYPE: ClassVar[str] = "events"
    seq: int = _wire(U32)
    events: tuple[tuple[str, int, int], ...] = _wire(Array(EVENT, 0, 2048))
    log: tuple[bytes, ...] = _wire(Array(Bytes(1, 1024), 0, 512), default=())


@dataclass(frozen=True, slots=True, kw_only=True)
class Move(Message):
    """Client → host: the seat's move (an engine move code), answering view ``seq``, with the
    seat's signature of it over the log as the seat holds it (§ Moves)."""

    TYPE: ClassVar[str] = "move"
    seq: int = _wire(U32)
    move: int = _wire(U32)
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class Reject(Message):
    """Host → client: a request was refused; the connection goes on. ``seq``: the view seq
    of a refused ``move``, else 0."""

    TYPE: ClassVar[str] = "reject"
    code: ErrorCode = _wire(Choice(ErrorCode))  # noqa: RUF009
    text: str = _wire(TEXT, default="")
    seq: int = _wire(U32, default=0)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandOver(Message):
    """Host → every client: the hand is over (``reason`` ``void`` after an abort).
    ``head``: the host's signed log head ``(count, head, signature)``; ``cards_signature``:
    the host's signature of the cards message for this client's seat (empty for spectators).
    """

    TYPE: ClassVar[str] = "hand_over"
    reason: str = _wire(Str(1, 16, r"[a-z_]+"))
    placings: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS))
    scores: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS))
    hand_points: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS))
    head: tuple[int, bytes, bytes] = _wire(HEAD)
    cards_signature: bytes = _wire(SIG, default=b"")


# -- fair deal --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Announce(Message):
    """Host → every client: round ``round`` over ``cards`` (ascending) among the people in
    ``seats`` (and ``@dealer``). ``fixed`` false — stage 1: ``commitments`` holds the host's
    own, commit now; true — stage 3: every participant's ``(commitment, signature)``, send
    your seed. ``ctx``: the round's context as the host computed it (each client computes its
    own and refuses the round if they differ); ``signature``: the host's over the announcement.
    """

    TYPE: ClassVar[str] = "announce"
    round: int = _wire(U32)
    fixed: bool = _wire(Bool(), default=False)
    ctx: bytes = _wire(HASH)
    cards: tuple[int, ...] = _wire(CARDS)
    seats: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS), default=())
    commitments: Mapping[str, tuple[bytes, bytes]] = _wire(
        Map(ANY_PID, Tuple((SIG, SIG)), MAX_SEATS + 1), default_factory=dict
    )
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit(Message):
    """Client → host (step 2): this seat's commitment for ``round`` and its signature."""

    TYPE: ClassVar[str] = "commit"
    round: int = _wire(U32)
    commitment: bytes = _wire(SIG)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveal(Message):
    """Client → host only (step 4): this seat's seed for ``round`` and its reveal signature."""

    TYPE: ClassVar[str] = "reveal"
    round: int = _wire(U32)
    seed: bytes = _wire(SIG)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveals(Message):
    """Host → every client, after the hand: every seed of ``round`` with its reveal
    signature (the seeds the host got, a bad one too)."""

    TYPE: ClassVar[str] = "reveals"
    round: int = _wire(U32)
    seeds: Mapping[str, tuple[bytes, bytes]] = _wire(Map(ANY_PID, Tuple((SIG, SIG)), MAX_SEATS + 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort(Message):
    """Host → every client: round ``round`` failed; the hand is void (§ Transcript, abort).
    ``commitments``: those the host had; ``signature``: the host's over the abort."""

    TYPE: ClassVar[str] = "abort"
    round: int = _wire(U32)
    fault: str = _wire(Str(1, 32, r"bad_reveal|missing_reveal|missing_commitment"))
    culprits: tuple[str, ...] = _wire(Array(ANY_PID, 1, MAX_SEATS + 1))
    commitments: Mapping[str, tuple[bytes, bytes]] = _wire(
        Map(ANY_PID, Tuple((SIG, SIG)), MAX_SEATS + 1), default_factory=dict
    )
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class LogHead(Message):
    """Client → host: this seat's signed head of the log it holds — after ``hand_over``, of
    the whole log; just before a ``bye`` mid-hand, of the log so far (its goodbye)."""

    TYPE: ClassVar[str] = "log_head"
    count: int = _wire(U32)
    head: bytes = _wire(HASH)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class LogHeads(Message):
    """Host → every client: every participant's signed log head ``(count, head, signature)``,
    ``@dealer``'s included."""

    TYPE: ClassVar[str] = "log_heads"
    heads: Mapping[str, tuple[int, bytes, bytes]] = _wire(Map(ANY_PID, HEAD, MAX_SEATS + 1))


# -- dealer-blind ----------------------------------------------------------------------------

POINT: Final = Bytes(32, 32)
SHARES: Final = Map(ANY_PID, Tuple((KEY, SIG)), MAX_SEATS + 1)
SEEDS: Final = Array(HASH, 0, 1024)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindPass(Message):
    """Both ways: pass ``number`` (1: lock, 2: keys) of shuffle ``shuffle`` by ``by`` — a
    client sends its own with ``by`` empty; the host relays every pass to everyone with ``by``
    filled in (its own as ``@dealer``)."""

    TYPE: ClassVar[str] = "blind_pass"
    shuffle: int = _wire(U32)
    number: int = _wire(Int(1, 2))
    points: tuple[bytes, ...] = _wire(Array(POINT, 1, 108))
    signature: bytes = _wire(SIG)
    by: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"), default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindShare(Message):
    """Client → host: this participant's public key of ``position`` of ``shuffle`` — a card
    the deal turns up — and its signature (to ``""``)."""

    TYPE: ClassVar[str] = "blind_share"
    shuffle: int = _wire(U32)
    position: int = _wire(Int(0, 107))
    key: bytes = _wire(KEY)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindOpen(Message):
    """Host → every client: ``position`` of ``shuffle`` opened to all — every participant's
    signed public key of it (``pid → (key, signature)``)."""

    TYPE: ClassVar[str] = "blind_open"
    shuffle: int = _wire(U32)
    position: int = _wire(Int(0, 107))
    shares: Mapping[str, tuple[bytes, bytes]] = _wire(SHARES)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindRelease(Message):
    """Both ways: a key of the position of hidden card ``hidden`` for its drawer ``to``,
    signed and sealed to the drawer alone. A client sends its own with ``by`` empty; the host
    passes it on to ``to`` alone with ``by`` filled in."""

    TYPE: ClassVar[str] = "blind_release"
    to: str = _wire(ANY_PID)
    hidden: int = _wire(U32)
    sealed: bytes = _wire(Bytes(0, 256))
    by: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"), default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindMove(Message):
    """Both ways: move ``seq`` of the hand, for ``seat``, signed by the seat's owner.
    ``hidden``: the hidden card a laid card was (else -1); ``shares``: every participant's
    key of its position, each signed to the mover. The host relays each move it takes to
    everyone with ``by`` filled in."""

    TYPE: ClassVar[str] = "blind_move"
    seq: int = _wire(U32)
    seat: int = _wire(SEAT)
    move: int = _wire(U32)
    hidden: int = _wire(Int(-1, 2**31 - 1), default=-1)
    signature: bytes = _wire(SIG)
    shares: Mapping[str, tuple[bytes, bytes]] = _wire(SHARES, default_factory=dict)
    by: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"), default="")


COMPLAINT: Final = Array(Tuple((U32, Int(0, 107), ANY_PID, KEY, SIG)), 0, MAX_SEATS + 1)
CLAIM: Final = Tuple((Str(1, 32, r"[a-z_]+"), TEXT, SIG))
"""A signed claim as ``blind_reveal`` relays it: ``[fault, detail, signature]``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindSeeds(Message):
    """Client → host, once the hand is over or stopped — or, mid-hand, to stop it: this
    participant's seed of every shuffle so far, in order. A participant that caught a cheat
    says what (``fault``, a ``BlindFault`` name in lower case, and ``detail``; empty when the
    hand just ended) and signs it (``signature``, over ``claim_message``: the stop is its own,
    and costs it if nothing bears it out); a drawer whose card did not open shows the keys it
    was sent for it (``complaint``: ``[shuffle, position, sender, key, signature]`` each, signed
    to it)."""

    TYPE: ClassVar[str] = "blind_seeds"
    seeds: tuple[bytes, ...] = _wire(SEEDS)
    fault: str = _wire(Str(0, 32, r"[a-z_]*"), default="")
    detail: str = _wire(TEXT, default="")
    complaint: tuple[tuple[int, int, str, bytes, bytes], ...] = _wire(COMPLAINT, default=())
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindReveal(Message):
    """Host → every client: every participant's seeds as the host got them (``@dealer``'s
    too; a participant that sent none is missing), every drawer's ``complaint``, and every
    signed claim a participant stopped the hand with (``claims``: ``[fault, detail,
    signature]`` by claimant)."""

    TYPE: ClassVar[str] = "blind_reveal"
    seeds: Mapping[str, tuple[bytes, ...]] = _wire(Map(ANY_PID, SEEDS, MAX_SEATS + 1))
    complaints: Mapping[str, tuple[tuple[int, int, str, bytes, bytes], ...]] = _wire(
        Map(ANY_PID, COMPLAINT, MAX_SEATS + 1), default_factory=dict
    )
    claims: Mapping[str, tuple[str, str, bytes]] = _wire(
        Map(ANY_PID, CLAIM, MAX_SEATS + 1), default_factory=dict
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindLeave(Message):
    """Host → every client: person ``by`` left mid-hand, between steps, publishing its seed of
    every shuffle so far (``seeds``): anyone can make its keys from now on, and its seat is the
    host's (a stand-in plays it)."""

    TYPE: ClassVar[str] = "blind_leave"
    by: str = _wire(PID)
    seeds: tuple[bytes, ...] = _wire(SEEDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindAbort(Message):
    """Host → every client: the host stops the blind hand — ``culprit`` (or nobody) broke the
    deal or went silent (``fault``: a :class:`~lanswitch.fairdeal.blindhand.BlindFault` name,
    lower case). The host's word: each client judges the hand itself from the seeds."""

    TYPE: ClassVar[str] = "blind_abort"
    culprit: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"))
    fault: str = _wire(Str(1, 32, r"[a-z_]+"))
    detail: str = _wire(TEXT, default="")


MESSAGES: Final[Mapping[str, type[Message]]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Welcome,
        Error,
        Bye,
        Ping,
        Pong,
        Sit,
        Stand,
        Ready,
        Chat,
        LobbyState,
        Hand,
        SeatView,
        Events,
        Move,
        Reject,
        HandOver,
        Announce,
        Commit,
        Reveal,
        Reveals,
        Abort,
        LogHead,
        LogHeads,
        BlindPass,
        BlindShare,
        BlindOpen,
        BlindRelease,
        BlindMove,
        BlindSeeds,
        BlindReveal,
        BlindLeave,
        BlindAbort,
    )
}
"""Every message type by its wire ``type``."""

# ---------------------------------------------------------------------------------------------
# Codec


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


class _RepeatedKey(Exception):  # noqa: N818  (what it carries: the key a map repeats)
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


# ---------------------------------------------------------------------------------------------
# The connection


class Role(enum.Enum):
    """Which end of the connection we are."""

    CLIENT = "client"
    """We joined a table: we send ``hello`` first."""
    SERVER = "server"
    """We host the table: we wait for ``hello`` and answer ``welcome`` or ``error``."""


class State(enum.Enum):
    """Where the connection is; the same at both ends once the bytes in flight arrive."""

    HELLO = "hello"
    """Nothing yet: the client's ``hello`` is next."""
    WELCOME = "welcome"
    """``hello`` done: the server's ``welcome`` is next."""
    OPEN = "open"
    """The handshake is done: lobby, play and fair-deal messages flow."""
    CLOSED = "closed"
    """A ``bye`` or ``error`` was sent or received (or a protocol error or the end of the
    stream was seen): nothing more is accepted; we may still send one ``error`` or ``bye``
    if we have sent neither."""


_CLOSING: Final = frozenset({"error", "bye"})
_EITHER: Final = frozenset({"ping", "pong"})

HANDSHAKE: Final[Mapping[tuple[State, Role], Mapping[str, State]]] = {
    (State.HELLO, Role.CLIENT): {"hello": State.WELCOME},
    (State.WELCOME, Role.SERVER): {"welcome": State.OPEN},
}
"""The handshake's transitions: (state, the role that sends) → {message type: next state}.
``error`` and ``bye`` are allowed from either role in every state but CLOSED and lead to it;
nothing else is allowed before OPEN."""

CLIENT_SENDS: Final = frozenset(
    {"sit", "stand", "ready", "chat", "move", "commit", "reveal", "log_head"}
    | {"blind_pass", "blind_share", "blind_release", "blind_move", "blind_seeds"}
    | _EITHER
)
"""What a client may send once the connection is OPEN (besides ``error`` and ``bye``)."""

SERVER_SENDS: Final = frozenset(
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
        "blind_pass",
        "blind_open",
        "blind_release",
        "blind_move",
        "blind_reveal",
        "blind_leave",
        "blind_abort",
    }
    | _EITHER
)
"""What the server may send once the connection is OPEN (besides ``error`` and ``bye``)."""


def _next_state(state: State, sender: Role, t: str) -> State | None:
    """The state after ``sender`` sends a ``t`` in ``state``; None if that is not allowed."""
    if state is State.CLOSED:
        return None
    if t in _CLOSING:
        return State.CLOSED
    if state is State.OPEN:
        allowed = CLIENT_SENDS if sender is Role.CLIENT else SERVER_SENDS
        return State.OPEN if t in allowed else None
    return HANDSHAKE.get((state, sender), {}).get(t)


class Connection:
    """One end of one connection, sans I/O.

    ``receive_data(bytes)`` → the messages those bytes completed; ``send(message)`` → the
    bytes to write. ``receive_data(b"")`` means the stream ended.
    """

    def __init__(self, role: Role) -> None:
        self.role = role
        self.peer = Role.SERVER if role is Role.CLIENT else Role.CLIENT
        self.state = State.HELLO
        self._buffer = bytearray()
        self._sent_close = False

    @property
    def closed(self) -> bool:
        return self.state is State.CLOSED

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buffer)

    def send(self, message: Message, *, frame: bytes | None = None) -> bytes:
        """The frame for ``message``. LocalProtocolError if our side may not send it now or it
        is not a valid message (the state is unchanged then). ``frame``: the message already
        encoded (:func:`encode_frame`), when one message goes to many connections."""
        t = getattr(type(message), "TYPE", "")
        if MESSAGES.get(t) is not type(message):
            raise LocalProtocolError(f"not a protocol message: {_REPR.repr(message)}")
        if self.state is State.CLOSED:
            if self._sent_close or t not in _CLOSING:
                raise LocalProtocolError(
                    f"cannot send {t}: the connection is closed", ErrorCode.UNEXPECTED
                )
            nxt: State | None = State.CLOSED
        else:
            nxt = _next_state(self.state, self.role, t)
        if nxt is None:
            raise LocalProtocolError(
                f"a {self.role.value} cannot send {t} in state {self.state.value}",
                ErrorCode.UNEXPECTED,
            )
        data = encode_frame(message) if frame is None else frame
        self.state = nxt
        if t in _CLOSING:
            self._sent_close = True
        return data

    def send_all(self, messages: Iterable[Message]) -> bytes:
        """The frames of several messages, in order."""
        return b"".join(self.send(m) for m in messages)

    def receive_data(self, data: bytes) -> list[Message]:
        """The messages completed by ``data``; ``b""`` is the end of the stream.

        Raises RemoteProtocolError — and the connection is CLOSED — on a bad frame, a bad
        message or a message the peer may not send now. Data arriving after the connection
        closed is discarded.
        """
        if self.state is State.CLOSED:
            return []
        if not data:
            self.state = State.CLOSED
            if self._buffer:
                n = len(self._buffer)
                self._buffer.clear()
                raise RemoteProtocolError(
                    f"the stream ended inside a frame ({n} bytes pending)", ErrorCode.BAD_FRAME
                )
            return []
        self._buffer += data
        out: list[Message] = []
        try:
            while not self.closed:
                message = self._next_message()
                if message is None:
                    break
                out.append(message)
        except RemoteProtocolError as e:
            self.state = State.CLOSED
            self._buffer.clear()
            e.received = tuple(out)
            raise
        if self.closed:
            self._buffer.clear()
        return out

    def _next_message(self) -> Message | None:
        buf = self._buffer
        if len(buf) < HEADER:
            return None
        n = int.from_bytes(buf[:HEADER], "big")
        if n == 0:
            raise RemoteProtocolError("a frame of length 0", ErrorCode.BAD_FRAME)
        if n > MAX_FRAME:
            raise RemoteProtocolError(
                f"a frame of {n} bytes is above the {MAX_FRAME}-byte limit", ErrorCode.TOO_BIG
            )
        if len(buf) < HEADER + n:
            return None
        payload = bytes(buf[HEADER : HEADER + n])
        del buf[: HEADER + n]
        message = decode_frame_payload(payload)
        nxt = _next_state(self.state, self.peer, message.TYPE)
        if nxt is None:
            raise RemoteProtocolError(
                f"a {self.peer.value} may not send {message.TYPE} in state {self.state.value}",
                ErrorCode.UNEXPECTED,
            )
        self.state = nxt
        return message
