"""Crash recovery: the host's calls as journal records, and replaying them.

The host is a deterministic function of its calls, their times and the bytes it drew from
``entropy``; with ``journal=True`` every call the shell makes (and every local power) is one
msgpack record — its name, its arguments (a message as its payload, a rule set as TOML),
whether it raised, the randomness it drew and the moves its bots made — and
:meth:`Host.restore` plays them back (a bot's recorded move stands in for its decision: a
``hard`` bot does not search again).

A connection turned away at its ``hello`` is left out: the server shell calls ``connect``
only with the ``hello`` in hand, and ``receive`` of it right after, so their two records are
the last ones; when the host turned the connection away having closed and told nobody else
(a wrong password, an unknown token, another version, a full table), the shell takes them
back out of :attr:`Host.inputs` (``lanswitch.server``, ``Server._admit``). That is exact for
the replay: such a hello changes nothing the host keeps — it returns before advancing the
table (``receive``), ``Table.join`` refuses before it changes anything, and no randomness is
drawn — but the time of the latest call (which every later call that reads the time sets
again first) and ``last_cid`` (a resumed server then numbers from a lower id: the left-out
id is in no record). An attacker guessing passwords thus leaves the journal as it was.
"""

from __future__ import annotations

import functools
import inspect
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import msgpack

from .. import protocol as p
from ..errors import InvalidInput
from ..rules import RulesError, RuleSet, dump_toml, rules_from_mapping
from ._config import HostConfig

__all__ = ["Decisions", "ReplayError"]


class ReplayError(InvalidInput):
    """A journal that cannot be replayed: a record that does not decode, randomness that runs
    out, or a call whose outcome differs from the one recorded (the code changed under it)."""


class Entropy:
    """The shell's randomness as the host draws it. While the host journals, every draw is
    kept until the call that drew it is recorded; a replay swaps in a :class:`Tape`."""

    __slots__ = ("drawn", "keep", "source")

    def __init__(self, source: Callable[[int], bytes]) -> None:
        self.source = source
        self.keep = False
        self.drawn = bytearray()

    def __call__(self, n: int) -> bytes:
        data = self.source(n)
        if len(data) != n:
            raise ReplayError(f"asked for {n} random bytes, got {len(data)}")
        if self.keep:
            self.drawn += data
        return data


class Tape:
    """Randomness played back from one journal record."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def __call__(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise ReplayError("the call drew more randomness than the journal recorded")
        self.at += n
        return self.data[self.at - n : self.at]


class Decisions:
    """The host's bots' moves as the journal keeps them. While the host journals, each move
    a bot makes is kept until the call that made it is recorded; a replay plays the recorded
    moves back instead of deciding again — a ``hard`` bot's decision is a search of a tenth
    of a second, and a resumed match would otherwise run every one it made again."""

    __slots__ = ("at", "keep", "made", "tape")

    def __init__(self) -> None:
        self.keep = False
        self.made: list[int] = []
        self.tape: list[int] | None = None  # replaying a record that kept its bots' moves
        self.at = 0

    def decide(self, decide: Callable[[], int]) -> int:
        """The move ``decide`` makes — or, replaying, the one the journal kept for it."""
        if self.tape is None:
            move = decide()
        elif self.at < len(self.tape):
            move = self.tape[self.at]
            self.at += 1
        else:
            raise ReplayError("the call made more bot moves than the journal recorded")
        if self.keep:
            self.made.append(move)
        return move

    def holds_move(self) -> bool:
        """Replaying a record that kept a bot's move not yet played back."""
        return self.tape is not None and self.at < len(self.tape)

    def play_back(self, moves: list[int] | None) -> None:
        """Replay the next record with ``moves`` (None: a record without them; decide)."""
        self.tape, self.at = moves, 0

    def played_back(self) -> bool:
        """Whether the record replayed made as many bot moves as it kept."""
        return self.tape is None or self.at == len(self.tape)


class Journaling(Protocol):
    """What :func:`journaled` needs of the host whose calls it records."""

    journaling: bool
    _depth: int

    def _record(self, name: str, values: list[object], raised: bool) -> None: ...


_P = ParamSpec("_P")
_R = TypeVar("_R")
_H = TypeVar("_H", bound=Journaling)


def journaled(
    method: Callable[Concatenate[_H, _P], _R],
) -> Callable[Concatenate[_H, _P], _R]:
    """Record each outermost call of ``method`` to :attr:`Host.inputs` (see the module
    docstring); a call made by another recorded call is part of that one."""
    signature = inspect.signature(method)
    name = method.__name__

    def call(self: _H, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not self.journaling or self._depth:
            return method(self, *args, **kwargs)
        self._depth += 1
        raised = True
        try:
            result = method(self, *args, **kwargs)
            raised = False
            return result
        finally:
            self._depth -= 1
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            values = list(bound.arguments.values())[1:]
            self._record(name, values, raised)

    functools.update_wrapper(call, method)
    return call


def to_record(value: object) -> object:
    if isinstance(value, p.Message):
        return p.encode_message(value, check=False)
    if isinstance(value, RuleSet):
        return dump_toml(value)
    return value


def config_record(config: HostConfig) -> dict[str, Any]:
    out = {f.name: getattr(config, f.name) for f in fields(config)}
    out["rules"] = dump_toml(config.rules)
    return out


def config_from_record(data: object) -> HostConfig:
    if not isinstance(data, dict):
        raise ReplayError("the journal's first record holds no table settings")
    known = {f.name for f in fields(HostConfig)}
    unknown = set(data) - known
    if unknown:
        raise ReplayError(f"unknown table settings in the journal: {', '.join(sorted(unknown))}")
    try:
        rules = parse_rules(data.get("rules", ""))
        return HostConfig(**{**data, "rules": rules})
    except (TypeError, ValueError) as e:
        raise ReplayError(f"the journal's table settings are not valid: {e}") from None


def parse_rules(text: object) -> RuleSet:
    if not isinstance(text, str):
        raise ReplayError("rules in the journal are not text")
    try:
        return rules_from_mapping(tomllib.loads(text), source="journal rules")
    except (tomllib.TOMLDecodeError, RulesError) as e:
        raise ReplayError(f"rules in the journal are not valid: {e}") from None


def unpack_record(raw: object, n: int) -> tuple[str, list[Any], bool, bytes, list[int] | None]:
    """Record ``n``: the call's name, its arguments, whether it raised, the randomness it
    drew and the moves its bots made (None: a record of four fields, which kept none; its
    bots decide again, from the seeds the record's randomness holds)."""
    if not isinstance(raw, bytes):
        raise ReplayError("the journal is empty" if raw is None else f"record {n} is not bytes")
    try:
        record = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except (ValueError, msgpack.UnpackException) as e:
        raise ReplayError(f"record {n} does not decode: {e}") from None
    if (
        not isinstance(record, list)
        or len(record) not in (4, 5)
        or not isinstance(record[0], str)
        or not isinstance(record[1], list)
        or not isinstance(record[2], bool)
        or not isinstance(record[3], bytes)
    ):
        raise ReplayError(f"record {n} is not a journal record")
    moves = record[4] if len(record) == 5 else None
    if moves is not None and (
        not isinstance(moves, list) or not all(type(m) is int and m >= 0 for m in moves)
    ):
        raise ReplayError(f"record {n}'s bot moves are not moves")
    return record[0], record[1], record[2], record[3], moves


def replay_call(
    calls: Mapping[str, Callable[..., object]], name: str, values: list[Any], n: int
) -> Callable[[], object]:
    """Record ``n``'s call, one of ``calls`` (the host's, by the name a record gives), with
    its arguments decoded."""
    method = calls.get(name)
    if method is None:
        raise ReplayError(f"record {n} is a call the host does not take: {name!r}")
    args = list(values)
    try:
        if name == "receive":
            args[1] = p.decode_frame_payload(args[1])
        elif name == "set_rules":
            args[0] = parse_rules(args[0])
    except (IndexError, TypeError, p.ProtocolError) as e:
        raise ReplayError(f"record {n} ({name}) does not decode: {e}") from None
    return lambda: method(*args)
