"""The documentation says what the code does: options, power keys, presets, generated tables."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

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
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{doc.name})" in readme, doc.name


def test_readme_fits_on_two_screens() -> None:
    """The README is what lanswitch is, the two commands, how to play, and links: the rest of
    what it once held (installing, the keys, history, every command, the figures) lives in
    docs/, and grows there."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 120, len(lines)


def test_readme_command_table_is_the_parsers() -> None:
    """One row per subcommand of ``lanswitch --help``, and no row for a command that is gone."""
    import argparse

    from lanswitch.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `lanswitch ([a-z]+)[^`]*` \|", readme, re.M))
    assert rows == set(sub.choices), (rows, set(sub.choices))


def test_performance_doc_covers_every_benchmark() -> None:
    """Each benchmark script's figures are in docs/performance.md with the command that
    measures them again."""
    perf = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    for script in sorted((ROOT / "benchmarks").glob("[!_]*.py")):
        assert f"benchmarks/{script.name}" in perf, script.name


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _outside_code(text: str) -> list[str]:
    """The lines of a Markdown text outside its fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _anchors(text: str) -> set[str]:
    """The anchors GitHub makes of a Markdown file's headings: lower case, punctuation
    dropped, spaces as hyphens, a repeated heading numbered."""
    seen: dict[str, int] = {}
    for line in _outside_code(text):
        m = re.match(r"#{1,6} (.+)$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            seen[slug] = seen.get(slug, 0) + 1
    return {f"{s}-{i}" if i else s for s, n in seen.items() for i in range(n)}


@pytest.mark.parametrize(
    "doc",
    ["README.md", "protocol/SPEC.md", *(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))],
)
def test_links_lead_somewhere(doc: str) -> None:
    """Every relative link in the README and the docs names a file that exists and, for a
    Markdown file, a heading it has (sections moved between files when the README shrank)."""
    src = ROOT / doc
    broken = []
    for line in _outside_code(src.read_text(encoding="utf-8")):
        for target in _LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (src.parent / path).resolve() if path else src
            if not dest.exists() or (
                anchor
                and dest.suffix == ".md"
                and anchor not in _anchors(dest.read_text(encoding="utf-8"))
            ):
                broken.append(target)
    assert not broken, broken


@pytest.mark.skipif(
    shutil.which("tmux") is None or shutil.which("make") is None, reason="needs tmux and make"
)
def test_make_play_passes_args_to_play(tmp_path: Path) -> None:
    """The README's main command, in a real 80×24 terminal, with ``ARGS`` (``make play``
    offered no way to choose play's options, such as the one address to serve on: a newcomer
    could not keep it off a network): the lobby comes up on loopback alone, named as asked.
    Run after ``make test`` has set the project up, so make only starts it."""
    from tests.terminal import Tmux

    env = {**os.environ, "LANSWITCH_DATA_DIR": str(tmp_path), "TERM": "xterm-256color"}
    args = "--interface 127.0.0.1 --name zoe --bots 3"
    tmux = Tmux(
        f"make --no-print-directory play ARGS='{args}' 2>{tmp_path / 'err'}; echo EXITED $?; "
        "sleep 30",
        env,
        (80, 24),
        cwd=ROOT,
    )
    try:
        screen = tmux.wait_for("Press r", 60)
        assert "Press r" in screen, screen + (tmp_path / "err").read_text()
        assert "hosting on 127.0.0.1:" in screen, screen
        assert "zoe's table" in screen, screen
        tmux.keys("q")
        tmux.wait_for("Leave the table?", 5)
        tmux.keys("y")
        screen = tmux.wait_for("EXITED", 15)
        assert "EXITED 0" in screen, screen
    finally:
        tmux.kill()
