"""Field schemas: each checks a decoded msgpack value and gives the Python value.

A message's fields carry their wire type (a :class:`_Check`: :class:`Int`, :class:`Str`,
:class:`Name`, :class:`Array`, :class:`Tuple`, :class:`Map`, :class:`Struct`…) in their dataclass
metadata (:func:`_wire`); the shared field types and bounds (``CARD``, ``SEAT``, ``NAME``,
``MAX_TEXT``…) are here too, as ``protocol/SPEC.md`` § Messages lists them.

Checking a map field by field through those objects costs a method call per field, so each
message class (at each place it can be read) gets a checker generated once, on first use
(:func:`_compile_checker`): the scalar checks inline, with the same rules and error texts.
That is the hot path of decoding — a host reads and writes a view per seat per step.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import reprlib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from ._errors import RemoteProtocolError

_T = TypeVar("_T")


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
