"""Reading and writing a house-rules file: the validator and the TOML printer.

:func:`build` turns a TOML-shaped mapping into a :class:`~lanswitch.rules.table.RuleSet`
over a base rule set, checking every key against the schema in :mod:`.table`; a bad value
fails with a :class:`~lanswitch.rules.table.RulesError` naming the file, the key and what is
allowed. :func:`parse_toml` is the one place text becomes such a mapping, for a user's file
and for the presets shipped in ``presets/`` alike. :func:`dump_toml` prints a rule set as a
file that loads back to the same rule set (``lanswitch rules NAME``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from typing import Any, Final

from ..cards import RANK_NAMES, CardError, parse_rank
from .table import (
    _FACE_POINTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTIONS,
    POWER_KEYS,
    ByPlayers,
    Calls,
    Deal,
    Play,
    Power,
    RulesError,
    RuleSet,
    Scoring,
    compile_predicate,
)

__all__ = ["build", "dump_toml", "parse_toml"]

# --------------------------------------------------------------------------------------------
# Building rule sets from mappings (TOML files and the presets use the same path).

_SECTION_CLASSES: Final = {"deal": Deal, "play": Play, "calls": Calls, "scoring": Scoring}
_TOP_KEYS: Final = ("base", "name", "description", "sources", "power", *_SECTION_CLASSES)


def _err(source: str, key: str, msg: str) -> RulesError:
    return RulesError(f"{source}: {key}: {msg}")


def _check_bool(source: str, key: str, v: object) -> bool:
    if not isinstance(v, bool):
        raise _err(source, key, f"must be true or false, not {v!r}")
    return v


def _check_int(source: str, key: str, v: object, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _err(source, key, f"must be a whole number from {lo} to {hi}, not {v!r}")
    return v


def _check_enum(source: str, key: str, v: object, choices: Sequence[str]) -> str:
    if v not in choices:
        raise _err(source, key, f"must be one of {', '.join(map(repr, choices))}, not {v!r}")
    assert isinstance(v, str)
    return v


def _check_str_list(source: str, key: str, v: object) -> tuple[str, ...]:
    if isinstance(v, str):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _err(source, key, f"must be a string or a list of strings, not {v!r}")
    return tuple(v)


def _check_by_players(source: str, key: str, v: object, lo: int, hi: int) -> ByPlayers:
    """``7`` or ``{2 = 9, 5 = 7}`` (the value from that many players up) → one per count."""
    if isinstance(v, int) and not isinstance(v, bool):
        n = _check_int(source, key, v, lo, hi)
        return (n,) * (MAX_PLAYERS - MIN_PLAYERS + 1)
    if not isinstance(v, dict) or not v:
        raise _err(source, key, f"must be a number or a table like {{ 2 = 9, 5 = 7 }}, not {v!r}")
    steps: dict[int, int] = {}
    for k, n in v.items():
        if not (isinstance(k, str) and k.isdigit() and MIN_PLAYERS <= int(k) <= MAX_PLAYERS):
            raise _err(
                source,
                f"{key}.{k}",
                f"keys are player counts {MIN_PLAYERS}..{MAX_PLAYERS} (the value holds from "
                "that many players up)",
            )
        steps[int(k)] = _check_int(source, f"{key}.{k}", n, lo, hi)
    if MIN_PLAYERS not in steps:
        raise _err(source, key, f"the table must start at {MIN_PLAYERS} players")
    out = []
    current = steps[MIN_PLAYERS]
    for p in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        current = steps.get(p, current)
        out.append(current)
    return tuple(out)


def _check_points(source: str, key: str, v: object) -> tuple[int, ...]:
    if not isinstance(v, dict):
        raise _err(source, key, f"must be a table like {{ A = 20, 2 = 15 }}, not {v!r}")
    points = list(_FACE_POINTS)
    for k, n in v.items():
        if str(k).lower() == "joker":
            idx = 13
        else:
            try:
                idx = parse_rank(str(k))
            except CardError:
                raise _err(
                    source, f"{key}.{k}", "keys are ranks A 2 3 4 5 6 7 8 9 10 J Q K or joker"
                ) from None
        points[idx] = _check_int(source, f"{key}.{k}", n, 0, 1000)
    return tuple(points)


def _section(source: str, name: str, data: object, base: Any) -> Any:
    if not isinstance(data, dict):
        raise _err(source, name, f"must be a table ([{name}]), not {data!r}")
    opts = {o.key: o for o in OPTIONS if o.section == name}
    values: dict[str, object] = {}
    for key, v in data.items():
        opt = opts.get(key)
        full = f"{name}.{key}"
        if opt is None:
            raise _err(source, full, f"unknown key; [{name}] takes {', '.join(opts)}")
        if opt.kind == "bool":
            values[key] = _check_bool(source, full, v)
        elif opt.kind == "int":
            values[key] = _check_int(source, full, v, opt.lo, opt.hi)
        elif opt.kind == "enum":
            values[key] = _check_enum(source, full, v, opt.choices)
        elif opt.kind == "by_players":
            values[key] = _check_by_players(source, full, v, opt.lo, opt.hi)
        elif opt.kind == "predicates":
            preds = _check_str_list(source, full, v)
            for p in preds:
                try:
                    compile_predicate(p)
                except CardError as e:
                    raise _err(source, full, str(e)) from None
            values[key] = preds
        else:  # points
            values[key] = _check_points(source, full, v)
    return replace(base, **values)


def _power_row(source: str, i: int, data: object) -> Power:
    where = f"power[{i}]"
    if not isinstance(data, dict):
        raise _err(source, where, "each [[power]] entry must be a table")
    unknown = set(data) - set(POWER_KEYS)
    if unknown:
        raise _err(
            source,
            f"{where}.{sorted(unknown)[0]}",
            f"unknown key; a power row takes {', '.join(POWER_KEYS)}",
        )
    if "name" not in data or not isinstance(data["name"], str) or not data["name"]:
        raise _err(source, f"{where}.name", "every power row needs a name")
    if "cards" not in data:
        raise _err(source, f"{where}.cards", "every power row needs cards (a predicate)")
    where = f"power.{data['name']}"
    kw: dict[str, Any] = {"name": data["name"]}
    kw["cards"] = _check_str_list(source, f"{where}.cards", data["cards"])
    for p in kw["cards"]:
        if p.strip().lower() == "power":
            raise _err(source, f"{where}.cards", "'power' cannot define a power row")
        try:
            compile_predicate(p)
        except CardError as e:
            raise _err(source, f"{where}.cards", str(e)) from None
    for key, v in data.items():
        if key in ("name", "cards"):
            continue
        full = f"{where}.{key}"
        if key == "pickup":
            if v == "deal":
                kw["pickup_deal"] = True
            else:
                kw["pickup"] = _check_int(source, full, v, 0, 52)
        elif key in ("skip",):
            kw[key] = _check_int(source, full, v, 0, 8)
        elif key in ("stacks_on", "cancels", "returns"):
            kw[key] = _check_str_list(source, full, v)
        elif key == "cancel":
            kw[key] = _check_enum(source, full, v, ("one", "all"))
        elif key == "cover":
            kw[key] = _check_enum(source, full, v, ("none", "suit", "any"))
        else:
            kw[key] = _check_bool(source, full, v)
    return Power(**kw)


def _check_power_table(source: str, rows: Sequence[Power]) -> None:
    by_name: dict[str, Power] = {}
    for r in rows:
        if r.name in by_name:
            raise _err(source, f"power.{r.name}", "two power rows have this name")
        by_name[r.name] = r
    for r in rows:
        is_pickup = r.pickup > 0 or r.pickup_deal
        if is_pickup and r.skip:
            raise _err(source, f"power.{r.name}", "a row may pick up or skip, not both")
        if r.cover != "none" and (r.names_suit or r.mimic):
            raise _err(source, f"power.{r.name}.cover", "a wild card cannot also need a cover")
        for key in ("stacks_on", "cancels", "returns"):
            for target in getattr(r, key):
                t = by_name.get(target)
                if t is None:
                    raise _err(
                        source,
                        f"power.{r.name}.{key}",
                        f"no power row is named {target!r} (rows: {', '.join(by_name)})",
                    )
                t_pickup = t.pickup > 0 or t.pickup_deal
                if key == "stacks_on":
                    if not (is_pickup or r.skip):
                        raise _err(
                            source,
                            f"power.{r.name}.stacks_on",
                            "only a pick-up or skip row can stack",
                        )
                    if is_pickup != t_pickup or bool(r.skip) != bool(t.skip):
                        raise _err(
                            source,
                            f"power.{r.name}.stacks_on",
                            f"{target!r} is not the same kind (pick-up or skip) as this row",
                        )
                elif not t_pickup:
                    raise _err(source, f"power.{r.name}.{key}", f"{target!r} is not a pick-up row")
        if r.continue_in_suit and not r.names_suit:
            raise _err(
                source,
                f"power.{r.name}.continue_in_suit",
                "only a row that names a suit (names_suit = true) has it",
            )
        if r.answer_only and not is_pickup:
            raise _err(source, f"power.{r.name}.answer_only", "only a pick-up row has it")
        if not r.adds and not r.stacks_on:
            raise _err(source, f"power.{r.name}.adds", "only a row that stacks (stacks_on) has it")


def _check_deck_fits(source: str, rules: RuleSet) -> None:
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        need = players * rules.hand_size_for(players) + 1
        have = rules.deck_size_for(players)
        if need > have:
            raise _err(
                source,
                "deal.hand_size",
                f"{players} players × {rules.hand_size_for(players)} cards + a starter need "
                f"{need} cards, but deal.decks and deal.jokers give {have}; lower the hand "
                "size or add a deck for that many players",
            )


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """A rules file's text as a mapping; bad TOML fails as a :class:`RulesError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"{source}: not valid TOML: {e}") from None


def build(data: Mapping[str, object], source: str, rules: RuleSet) -> RuleSet:
    """``rules`` with what ``data`` (a rules file's mapping, ``base`` already chosen) changes.

    Each section overrides only the keys it gives; a ``power`` array replaces the whole power
    table. The whole result is then checked (power rows that name each other, the deck
    against the hand size), so a file cannot make a rule set the engine could not play.
    """
    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise _err(source, unknown[0], f"unknown key; a rules file takes {', '.join(_TOP_KEYS)}")
    kw: dict[str, Any] = {}
    if "name" in data:
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            raise _err(source, "name", "must be a non-empty string")
        kw["name"] = name
    if "description" in data:
        if not isinstance(data["description"], str):
            raise _err(source, "description", "must be a string")
        kw["description"] = data["description"]
    if "sources" in data:
        kw["sources"] = _check_str_list(source, "sources", data["sources"])
    for sec in _SECTION_CLASSES:
        if sec in data:
            kw[sec] = _section(source, sec, data[sec], getattr(rules, sec))
    if "power" in data:
        rows = data["power"]
        if not isinstance(rows, list):
            raise _err(source, "power", "must be an array of tables ([[power]])")
        kw["power"] = tuple(_power_row(source, i, r) for i, r in enumerate(rows))
    rules = replace(rules, **kw)
    _check_power_table(source, rules.power)
    _check_deck_fits(source, rules)
    if rules.calls.required_to_finish and not rules.calls.last_card:
        raise _err(
            source,
            "calls.required_to_finish",
            "needs calls.last_card = true: a last card that must be called before it is "
            "laid could never be laid without the call",
        )
    return rules


# --------------------------------------------------------------------------------------------
# Printing a rule set as a TOML file that loads back to the same rule set.


_TOML_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_char(ch: str) -> str:
    """One character of a TOML basic string: quotes, backslashes and control characters
    (U+0000–U+001F, U+007F) escaped, everything else as it is."""
    esc = _TOML_ESCAPES.get(ch)
    if esc is not None:
        return esc
    o = ord(ch)
    return f"\\u{o:04X}" if o < 0x20 or o == 0x7F else ch


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + "".join(_toml_char(ch) for ch in v) + '"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(v)


def _by_players_toml(values: ByPlayers) -> str:
    if len(set(values)) == 1:
        return str(values[0])
    steps = []
    prev = None
    for i, n in enumerate(values):
        if n != prev:
            steps.append(f"{i + MIN_PLAYERS} = {n}")
            prev = n
    return "{ " + ", ".join(steps) + " }"


def _points_toml(points: Sequence[int]) -> str:
    names = [*RANK_NAMES, "joker"]
    parts = [
        f'"{n}" = {p}' if n[0].isdigit() else f"{n} = {p}"
        for n, p in zip(names, points, strict=True)
    ]
    return "{ " + ", ".join(parts) + " }"


def dump_toml(rules: RuleSet) -> str:
    """The rule set as a commented TOML file; :func:`load_rules` reads it back unchanged."""
    out = [
        # The name is escaped as in a TOML string: a newline in it must not end the comment.
        "# lanswitch rules: " + _toml_value(rules.name)[1:-1],
        "# Load with --rules FILE. Start a house-rules file from this one, or write only the",
        '# keys you change under base = "<preset>". Options are explained in docs/rules.md.',
        "",
        f"name = {_toml_value(rules.name)}",
        f"description = {_toml_value(rules.description)}",
        f"sources = {_toml_value(list(rules.sources))}",
    ]
    for sec in _SECTION_CLASSES:
        out += ["", f"[{sec}]"]
        obj = getattr(rules, sec)
        for opt in (o for o in OPTIONS if o.section == sec):
            v = getattr(obj, opt.key)
            if opt.kind == "by_players":
                text = _by_players_toml(v)
            elif opt.kind == "points":
                text = _points_toml(v)
            else:
                text = _toml_value(v)
            hint = f"  # {' | '.join(opt.choices)}" if opt.choices else ""
            out.append(f"{opt.key} = {text}{hint}")
    defaults = Power(name="", cards=())
    for row in rules.power:
        out += ["", "[[power]]"]
        for f in fields(Power):
            v = getattr(row, f.name)
            if f.name == "pickup_deal":
                continue
            if f.name == "pickup" and row.pickup_deal:
                out.append('pickup = "deal"')
                continue
            if f.name not in ("name", "cards") and v == getattr(defaults, f.name):
                continue
            out.append(f"{f.name} = {_toml_value(list(v) if isinstance(v, tuple) else v)}")
    return "\n".join(out) + "\n"
