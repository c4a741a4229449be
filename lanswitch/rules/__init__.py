"""Rule sets: every behaviour of every Switch system as data, and the presets as files.

A :class:`RuleSet` is plain data in four sections (``[deal]``, ``[play]``, ``[calls]``,
``[scoring]``) plus a table of power cards (``[[power]]``). The same schema is used for the
built-in presets (:data:`PRESETS`), for ``lanswitch rules NAME`` (which prints a preset as a
loadable TOML file) and for house-rules files, so all three are checked by one validator.
A bad file fails with a :class:`RulesError` that names the file, the key and what is allowed.

The modules, one concern each:

- :mod:`.table`    the rule table: options and power keys described once, the frozen data
  classes, card predicates compiled to bitmasks (all the engine needs)
- :mod:`.files`    a rules file: TOML text to mapping, the validator, the TOML printer
- :mod:`.builtin`  the presets (read from ``presets/*.toml``), a preset name or a file path
  to a rule set
- ``presets/``     one house-rules file per preset, shipped in the package

Which seed text each preset follows, and every choice made where the seeds disagree, is in
``docs/rules.md``.
"""

from __future__ import annotations

from .builtin import PRESET_NAMES, PRESETS, load_rules, preset, rules_from_mapping
from .files import dump_toml
from .table import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTIONS,
    POWER_KEYS,
    Calls,
    Deal,
    Option,
    Play,
    Power,
    RulesError,
    RuleSet,
    Scoring,
    compile_predicate,
)

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPTIONS",
    "POWER_KEYS",
    "PRESETS",
    "PRESET_NAMES",
    "Calls",
    "Deal",
    "Option",
    "Play",
    "Power",
    "RuleSet",
    "RulesError",
    "Scoring",
    "compile_predicate",
    "dump_toml",
    "load_rules",
    "preset",
    "rules_from_mapping",
]
