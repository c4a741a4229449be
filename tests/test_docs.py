"""The documentation says what the code does: options, power keys, presets, generated tables."""

from __future__ import annotations

import re
from pathlib import Path

from lanswitch.rules import OPTIONS, POWER_KEYS, PRESETS
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_generated_tables_are_current() -> None:
    gen = load_script("docs/gen_rules_tables.py", "gen")
    assert gen.current(RULES_MD) == RULES_MD, "run: python docs/gen_rules_tables.py --write"


def test_every_option_is_explained() -> None:
    for opt in OPTIONS:
        section = RULES_MD.split(f"### `[{opt.section}]`", 1)[1].split("\n### ", 1)[0]
        assert re.search(rf"^\| `{opt.key}` \|", section, re.M), f"{opt.section}.{opt.key}"


def test_every_power_key_is_explained() -> None:
    rows = RULES_MD.split("### `[[power]]` rows", 1)[1].split("\n## ", 1)[0]
    for key in POWER_KEYS:
        assert f"`{key}`" in rows, key


def test_every_preset_has_a_section_naming_its_sources() -> None:
    for name, rules in PRESETS.items():
        m = re.search(rf"^### `{re.escape(name)}` — (.+)$", RULES_MD, re.M)
        assert m, name
        for src in rules.sources:
            assert src.split()[0] in m.group(1), (name, src)


def test_readme_shows_the_two_commands_and_links_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make play" in readme
    assert "make test" in readme
    for doc in ("docs/architecture.md", "docs/rules.md"):
        assert doc in readme
        assert (ROOT / doc).exists()
