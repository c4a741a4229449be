"""Generate the tables in docs/rules.md from the presets themselves.

``python docs/gen_rules_tables.py`` prints them and ``--write`` updates docs/rules.md;
``tests/test_docs.py`` checks that the copy in docs/rules.md is current, so the documentation
cannot drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanswitch.rules import MIN_PLAYERS, OPTIONS, PRESETS, Power, RuleSet

BEGIN = "<!-- BEGIN GENERATED TABLES (docs/gen_rules_tables.py) -->"
END = "<!-- END GENERATED TABLES -->"


def _value(rules: RuleSet, section: str, key: str) -> str:
    v = getattr(getattr(rules, section), key)
    if key in ("decks", "hand_size"):
        steps: list[str] = []
        prev = None
        for i, n in enumerate(v):
            if n != prev:
                steps.append(f"{n}" if not steps else f"{n} from {i + MIN_PLAYERS}")
                prev = n
        return ", ".join(steps)
    if key == "card_points":
        if rules.scoring.mode == "none":
            return "–"
        names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "joker"]
        return " ".join(f"{n}:{p}" for n, p in zip(names, v, strict=True))
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, tuple):
        return ", ".join(v) if v else "–"
    return str(v)


def _effect(row: Power) -> str:
    parts = []
    if row.pickup_deal:
        parts.append("pick up the deal size")
    elif row.pickup:
        parts.append(f"pick up {row.pickup}")
    if row.answer_only:
        parts.append("only as an answer")
    if row.skip:
        parts.append(f"skip {row.skip}")
    if row.stacks_on:
        parts.append("stacks on " + "/".join(row.stacks_on))
        if not row.adds:
            parts.append("passes the pending one on (adds nothing)")
    if row.cancels:
        parts.append(f"cancels {row.cancel} of " + "/".join(row.cancels))
    if row.returns:
        parts.append("returns " + "/".join(row.returns))
    for flag, text in (
        ("reverse", "reverse"),
        ("wild", "wild"),
        ("names_suit", "names a suit"),
        ("continue_in_suit", "the turn goes on in the named suit"),
        ("again", "play again"),
        ("follow_suit", "follow suit"),
        ("run", "10-run"),
        ("together", "several at once"),
        ("mimic", "stands for any card"),
    ):
        if getattr(row, flag):
            parts.append(text)
    if row.cover != "none":
        parts.append(f"must be covered ({row.cover})")
    return "; ".join(parts)


def tables() -> str:
    names = list(PRESETS)
    out = [BEGIN, "", "### Options by preset", ""]
    out.append("| option | " + " | ".join(f"`{n}`" for n in names) + " |")
    out.append("|---" * (len(names) + 1) + "|")
    for opt in OPTIONS:
        cells = [_value(PRESETS[n], opt.section, opt.key) for n in names]
        out.append(f"| `{opt.section}.{opt.key}` | " + " | ".join(cells) + " |")
    out += ["", "### Power cards by preset", ""]
    for n in names:
        out.append(f"**`{n}`**")
        out.append("")
        out.append("| row | cards | effect |")
        out.append("|---|---|---|")
        for row in PRESETS[n].power:
            out.append(f"| `{row.name}` | {', '.join(row.cards)} | {_effect(row)} |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def current(doc: str) -> str:
    """``doc`` with its generated section replaced by the tables as they are now."""
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + tables() + tail


if __name__ == "__main__":
    path = Path(__file__).resolve().parent / "rules.md"
    if sys.argv[1:] == ["--write"]:
        path.write_text(current(path.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(tables())
