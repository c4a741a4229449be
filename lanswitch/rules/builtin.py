"""The presets, and what a ``--rules`` argument means: a preset's name or a house-rules file.

Each preset is a house-rules file shipped in the package (``presets/<name>.toml``), read by
the same :func:`~.files.parse_toml` and :func:`~.files.build` as a user's file; a test loads
each file as a user would (``--rules path/to/irish.toml``) and gets the preset back.
``docs/rules.md`` explains every choice in them with its seed source.

This is the one place the core reads files. The presets are read once, at import, with
:mod:`importlib.resources` (package data, the same bytes on every machine, no path the user
chose: as pure as the source code beside them, and it works from a wheel or a zip); a user's
file is read only when :func:`load_rules` is asked for one. Nothing else here touches the
disk, so the rest of the core stays sans-I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import Final

from .files import _err, build, parse_toml
from .table import RulesError, RuleSet

__all__ = ["PRESETS", "PRESET_NAMES", "load_rules", "preset", "rules_from_mapping"]

#: The presets in the order they are listed (``lanswitch rules``, the docs' tables, the
#: lobby): ``presets/<name>.toml`` for each. A preset's ``base``, if it has one, comes first.
PRESET_NAMES: Final = (
    "switch",
    "irish",
    "two-four-jack",
    "blackjack",
    "j28",
    "take-two",
    "black5",
    "peanuckle",
    "turbo",
)


def _read_presets() -> dict[str, RuleSet]:
    """Every preset file, built as a house-rules file is.

    One difference, and only for a file without ``base``: it starts from the schema's
    defaults, not from Switch (Switch's own file cannot start from itself). The presets state
    all that differs from the defaults, so each loads to the same rule set either way.
    """
    out: dict[str, RuleSet] = {}
    folder = files(__package__).joinpath("presets")
    for name in PRESET_NAMES:
        source = f"preset {name}"
        data = parse_toml(folder.joinpath(f"{name}.toml").read_text(encoding="utf-8"), source)
        base = data.get("base")
        start = RuleSet() if base is None else out[str(base)]
        out[name] = build(data, source, start)
    return out


PRESETS: Final[dict[str, RuleSet]] = _read_presets()


def rules_from_mapping(data: Mapping[str, object], source: str = "<rules>") -> RuleSet:
    """Build and validate a rule set from a TOML-shaped mapping.

    ``base`` (default ``switch``) names the preset to start from; each section then overrides
    only the keys it gives; a ``power`` array replaces the whole power table.
    """
    base_name = data.get("base", "switch")
    if base_name not in PRESETS:
        raise _err(source, "base", f"must be one of {', '.join(PRESETS)}, not {base_name!r}")
    assert isinstance(base_name, str)
    rules = build(data, source, PRESETS[base_name])
    if "name" not in data and "base" in data:
        rules = replace(rules, name=f"{base_name}+house")
    return rules


def load_rules(spec: str) -> RuleSet:
    """A preset name or the path of a TOML house-rules file."""
    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if not path.suffix and not path.exists():
        raise RulesError(
            f"{spec}: no such preset or file; presets are {', '.join(PRESETS)}, "
            "or give the path of a .toml file"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RulesError(f"{spec}: cannot read the rules file: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{spec}: not a text (UTF-8) file") from None
    return rules_from_mapping(parse_toml(text, spec), source=str(path))


def preset(name: str) -> RuleSet:
    """The preset called ``name``; an unknown name fails with the list of presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"no preset {name!r}; presets are {', '.join(PRESETS)}") from None
