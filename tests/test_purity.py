"""The core stays pure: no I/O, clocks, randomness, threads or shells below the shells.

Checked on the source with :mod:`ast`, not by importing: every ``import`` and ``from … import``
at any depth (inside functions, ``if TYPE_CHECKING:`` blocks, ``try`` blocks), relative
imports resolved against the module's package, and ``__import__("x")`` /
``importlib.import_module("x")`` with a literal name. Randomness and time come in as inputs
(a bot takes a ``random.Random`` instance as a parameter; it does not import ``random``: type
it with a Protocol if it needs a type).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lanswitch

PACKAGE = "lanswitch"
PACKAGE_DIR = Path(lanswitch.__file__).parent

# The core is every module and package of lanswitch/ that is not a shell below: a new module
# is checked as core from the day it is written (by where it lives, not by a list it must be
# added to), and becomes a shell only by being named one here, in review. These must exist.
CORE_REQUIRED = ("cards", "rules", "game", "fairdeal", "protocol", "host", "session")

FORBIDDEN_STDLIB = frozenset(
    {
        "asyncio",
        "socket",
        "ssl",
        "selectors",
        "random",
        "time",
        "secrets",
        "os",
        "threading",
        "subprocess",
        "sqlite3",
    }
)
FORBIDDEN_THIRD_PARTY = frozenset({"zeroconf", "prompt_toolkit"})
SHELLS = frozenset(
    {
        f"{PACKAGE}.{m}"
        for m in (
            "cli",
            "netcmd",
            "server",
            "gcpolicy",  # the server's garbage-collector policy: tunes the process's gc
            "client",
            "discovery",
            "tls",
            "tui",
            "simulate",
            "journal",
            "datadir",
            "seatkeep",  # the seats kept for joins run again: files and an OS lock
            "decider",  # the server's worker process for the bots' searches
            "hosting",
            "history",
            "_build",
            # the program's entry points and its terminal-side helpers
            "__main__",
            "_native",  # finds and loads the compiled engine (reads files, os.environ)
            "admission",  # asks for a table's password at the terminal
            "preflight",  # checks the terminal and the data folder before a game
            "stats",  # reads the history database
        )
    }
)


def module_files(name: str) -> list[Path]:
    """The source files of ``lanswitch.<name>``: a module, or every file of a package."""
    single = PACKAGE_DIR / f"{name}.py"
    if single.is_file():
        return [single]
    package = PACKAGE_DIR / name
    if (package / "__init__.py").is_file():
        return sorted(package.rglob("*.py"))
    return []


def dotted_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in ``source`` of module ``module``.

    ``from x import y`` yields both ``x`` and ``x.y`` (y may be a submodule); relative imports
    are resolved against ``module``'s package.
    """
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                up = node.level - 1
                if up > len(parts):
                    raise ImportError(f"{module}:{node.lineno}: relative import beyond top")
                base_parts = parts[: len(parts) - up] if up else parts
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            if base:
                found.append((node.lineno, base))
            for alias in node.names:
                if alias.name != "*":
                    found.append((node.lineno, f"{base}.{alias.name}" if base else alias.name))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            fname = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            arg = node.args[0]
            if (
                fname in ("__import__", "import_module")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
            ):
                found.append((node.lineno, arg.value))
    return found


def violations(imports: list[tuple[int, str]]) -> list[str]:
    bad = []
    for line, name in imports:
        top = name.split(".")[0]
        if top in FORBIDDEN_STDLIB or top in FORBIDDEN_THIRD_PARTY:
            bad.append(f"line {line}: imports {name}")
        elif any(name == s or name.startswith(s + ".") for s in SHELLS):
            bad.append(f"line {line}: imports the shell {name}")
    return bad


def top_level_names() -> list[str]:
    """Every module and package directly in lanswitch/ (``__init__`` aside)."""
    names = [p.stem for p in PACKAGE_DIR.glob("*.py") if p.stem != "__init__"]
    names += [p.name for p in PACKAGE_DIR.iterdir() if (p / "__init__.py").is_file()]
    return sorted(names)


def core_files() -> list[Path]:
    """The files of every module and package of lanswitch/ that is not a shell."""
    names = top_level_names()
    for name in CORE_REQUIRED:
        assert name in names, f"core module {PACKAGE}.{name} is missing"
    files: list[Path] = []
    for name in names:
        if f"{PACKAGE}.{name}" not in SHELLS:
            files += module_files(name)
    return files


def test_every_shell_named_exists() -> None:
    """A shell renamed or removed leaves no stale exemption behind."""
    names = set(top_level_names())
    assert sorted(s for s in SHELLS if s.removeprefix(f"{PACKAGE}.") not in names) == []


@pytest.mark.parametrize("path", core_files(), ids=lambda p: dotted_name(p))
def test_core_module_imports_nothing_impure(path: Path) -> None:
    module = dotted_name(path)
    imports = imported_modules(path.read_text(encoding="utf-8"), module, path.stem == "__init__")
    bad = violations(imports)
    assert not bad, (
        f"{module} must stay pure (time and randomness come in as inputs, I/O lives in the "
        f"shells): " + "; ".join(bad)
    )


def test_the_package_root_is_pure() -> None:
    """The root may import one shell: ``_native``, which picks the compiled engine before the
    engine is first imported (it reads the build's digest from disk). Nothing else."""
    path = PACKAGE_DIR / "__init__.py"
    found = imported_modules(path.read_text(encoding="utf-8"), PACKAGE, True)
    native = f"{PACKAGE}._native"
    assert not violations([(n, m) for n, m in found if m.split(".")[:2] != native.split(".")])


# ---------------------------------------------------------------------------------------------
# The checker itself catches each way of importing.


@pytest.mark.parametrize(
    "source",
    [
        "import random",
        "import os.path",
        "import asyncio as aio",
        "import json, socket",
        "from time import monotonic",
        "from os import path",
        "from secrets import token_bytes as tb",
        "from concurrent import futures\nimport threading",
        "def f():\n    import subprocess\n    return subprocess",
        "class C:\n    def m(self):\n        from selectors import DefaultSelector",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import random",
        "try:\n    import ssl\nexcept ImportError:\n    ssl = None",
        "import zeroconf",
        "from prompt_toolkit.application import Application",
        "from . import cli",
        "from .tui import app",
        "from .server import serve",
        "from .client.conn import Conn",
        "from lanswitch import discovery",
        "import lanswitch.cli",
        "from lanswitch.tui.app import run",
        "__import__('random')",
        "import importlib\nimportlib.import_module('socket')",
        "from importlib import import_module\nimport_module('lanswitch.server')",
    ],
)
def test_checker_catches(source: str) -> None:
    found = imported_modules(source, "lanswitch.game")
    assert violations(found), f"missed an impure import in {source!r}: {found}"


@pytest.mark.parametrize(
    "source",
    [
        "import tomllib",
        "from .cards import parse_card",
        "from . import rules",
        "from .rules import RuleSet, compile_predicate",
        "from lanswitch.game import Game",
        "import randomness_helpers",  # a name that only starts like a forbidden one
        "from .timer import Clock",
        "def f(rng):\n    return rng.random()",  # using an injected Random is fine
        "from dataclasses import field",
    ],
)
def test_checker_allows(source: str) -> None:
    found = imported_modules(source, "lanswitch.game")
    assert not violations(found), f"false alarm on {source!r}: {violations(found)}"


def test_relative_imports_resolve_against_the_package() -> None:
    assert (1, "lanswitch.tui") in imported_modules("from .. import tui", "lanswitch.table.seats")
    assert (1, "lanswitch.cli") in imported_modules("from . import cli", "lanswitch", True)
    found = imported_modules("from .conn import C", "lanswitch.client", True)
    assert (1, "lanswitch.client.conn") in found
    assert violations(imported_modules("from ..server import x", "lanswitch.table.seats"))
