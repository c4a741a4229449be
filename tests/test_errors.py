"""``lanswitch/errors.py``: one root for every exception, and its docstring's tree is the truth.

Issue 27 counted 31 exception classes under 23 separate roots. Now each class lanswitch
defines derives from :class:`~lanswitch.errors.LanswitchError`, and the tree drawn in the
module's docstring is checked against the classes both ways, so that it cannot drift.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import lanswitch
from lanswitch import errors
from lanswitch.cards import CardError
from lanswitch.cli import main
from lanswitch.cli.commands import COMMANDS
from lanswitch.errors import InvalidInput, LanswitchError, StateError


def _all_modules() -> list[str]:
    found = [lanswitch.__name__]
    for info in pkgutil.walk_packages(lanswitch.__path__, prefix=f"{lanswitch.__name__}."):
        if not info.name.endswith("__main__"):  # importing it runs the program
            found.append(info.name)
    return sorted(found)


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in lanswitch (by the module that defines it)."""
    classes: dict[str, type[BaseException]] = {}
    for name in _all_modules():
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseException)
                and obj.__module__ == module.__name__
            ):
                classes[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return classes


def _drawn(doc: str) -> list[tuple[str, str | None]]:
    """(class name, its parent's name) for each line of the docstring's tree."""
    block = doc.split("::", 1)[1]
    pairs: list[tuple[str, str | None]] = []
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        m = re.fullmatch(r"( *)([A-Z]\w*)", line)
        if not m:
            if pairs and line.strip():
                break  # the prose after the tree
            continue
        depth, name = len(m.group(1)), m.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        pairs.append((name, stack[-1][1] if stack else None))
        stack.append((depth, name))
    return pairs


def _faults(doc: str) -> list[str]:
    """Where the tree drawn in ``doc`` and the package's exception classes disagree."""
    public = {c.__name__: c for c in _exception_classes().values() if c.__name__[0] != "_"}
    pairs = _drawn(doc)
    drawn = {name for name, _ in pairs}
    faults = [f"{n} is not drawn" for n in sorted(set(public) - drawn)]
    faults += [f"{n} is drawn but not defined" for n in sorted(drawn - set(public))]
    if pairs[:1] != [("LanswitchError", None)]:
        faults.append("the tree does not start at LanswitchError")
    parents: dict[str, set[str]] = {}
    for name, parent in pairs:
        if parent is not None and name in public and parent in public:
            parents.setdefault(name, set()).add(parent)
    for name, cls in sorted(public.items()):
        bases = {b.__name__ for b in cls.__bases__ if b.__name__ in public}
        if name in drawn and bases != parents.get(name, set()):
            faults.append(
                f"{name}: drawn under {sorted(parents.get(name, set()))}, "
                f"its bases are {sorted(bases)}"
            )
    return faults


def test_every_exception_lanswitch_defines_has_the_one_root() -> None:
    classes = _exception_classes()
    assert len(classes) >= 30, sorted(classes)  # the walk found the package's classes
    outside = sorted(name for name, cls in classes.items() if not issubclass(cls, LanswitchError))
    assert outside == []


def test_the_tree_drawn_is_the_classes_own() -> None:
    assert _faults(errors.__doc__ or "") == []


def test_the_tree_check_sees_a_class_drawn_under_a_wrong_parent() -> None:
    """(So that the test above can fail.)"""
    doc = errors.__doc__ or ""
    wrong = doc.replace("                CardError\n", "").replace(
        "                HistoryError\n",
        "                HistoryError\n                    CardError\n",
    )
    assert wrong != doc
    assert _faults(wrong) == [
        "CardError: drawn under ['HistoryError'], its bases are ['InvalidInput']"
    ]
    undrawn = doc.replace("\n                    JournalFull\n", "\n")
    assert _faults(undrawn) == ["JournalFull is not drawn"]


@pytest.mark.parametrize("name", ["CardError", "IllegalMove", "TranscriptError", "SetupError"])
def test_bad_input_is_still_a_value_error(name: str) -> None:
    """Callers that caught ``ValueError`` before the root existed still catch these."""
    cls = next(c for c in _exception_classes().values() if c.__name__ == name)
    assert issubclass(cls, InvalidInput)
    assert issubclass(cls, ValueError)


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (StateError("the history file is from a newer lanswitch"), 1, "lanswitch: the history"),
        (CardError("no card 'Zx'"), 2, "lanswitch: error: no card 'Zx'"),
    ],
)
def test_the_command_line_says_any_lanswitch_error_in_its_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: LanswitchError,
    code: int,
    line: str,
) -> None:
    """Whatever a command lets through that lanswitch raised on purpose reaches the person as
    its sentence, never a traceback (before the root, only a RulesError was caught there). The
    command is swapped for one that raises: no command is known to leak one today, and that is
    the point of a last line of defence."""

    def raising(*_: object) -> int:
        raise error

    monkeypatch.setitem(COMMANDS, "stats", raising)
    assert main(["stats"]) == code
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert err.startswith(line), err
    assert "Traceback" not in err
