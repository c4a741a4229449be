"""Choose the engine: the mypyc-compiled ``game`` (with the bots that search it) when it
matches its source, else the source.

``make`` compiles ``lanswitch/game.py`` with mypyc (``python -m lanswitch._build``), and with
it the two modules the ``hard`` bot runs millions of times a minute, ``heuristic`` (its
play-outs' policy) and ``search``, as one group (:data:`GROUP`: the modules share one C
library); that leaves C extensions beside the sources, which Python's import system prefers.
The same code then runs about 2.5 times faster (the bots' play-outs about 1.5 times). The
extensions are only trusted if they were built from exactly the source files beside them (a
digest written at build time): otherwise — an edited ``game.py``, a half-finished build —
every compiled module is loaded from its source instead, together (a compiled ``search``
over a source ``game`` would not run), so a stale build can never run. Setting
``LANSWITCH_PURE=1`` forces the sources too (the tests use it to check both engines agree).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: What the compiled engine is built from: if any of these change, the build is stale.
#: ``rules`` is a package: the engine imports its rule table, and mypyc compiled against
#: those types (its preset files are data the engine is given, not compiled against).
SOURCES = ("game.py", "heuristic.py", "search.py", "cards.py")
PACKAGES = ("rules",)
STAMP = HERE / "game.build-hash"
#: The modules compiled, in the order they import one another (each only those before it).
COMPILED = ("game", "heuristic", "search")
#: The name of the C library the compiled modules share (``lanswitch/engine__mypyc.*``).
GROUP = "engine"


def source_files() -> list[str]:
    """The engine's sources, relative to the package: :data:`SOURCES` and every module of
    :data:`PACKAGES` (sorted)."""
    names = list(SOURCES)
    for package in PACKAGES:
        names += sorted(p.relative_to(HERE).as_posix() for p in (HERE / package).rglob("*.py"))
    return names


def source_digest() -> str:
    h = hashlib.sha256()
    for name in source_files():
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes() + b"\0")
    return h.hexdigest()


def compiled_files() -> list[Path]:
    """The build's files: an extension per compiled module and their shared library (and a
    library an older build left, ``game__mypyc``, when only the engine was compiled)."""
    names = (*COMPILED, f"{GROUP}__mypyc", "game__mypyc")
    return sorted(
        p
        for p in HERE.iterdir()
        if p.suffix in (".so", ".pyd") and p.name.split(".", 1)[0] in names
    )


def _load_source() -> None:
    """Every compiled module from its source, in import order (an import of one finds those
    before it in ``sys.modules`` and never reaches for an extension)."""
    for name in COMPILED:
        spec = importlib.util.spec_from_file_location(f"lanswitch.{name}", HERE / f"{name}.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load lanswitch/{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"lanswitch.{name}"] = module
        spec.loader.exec_module(module)


def install() -> str:
    """Make ``lanswitch.game`` the right engine; say which: compiled, pure, stale or forced."""
    if not compiled_files():
        return "pure"
    if os.environ.get("LANSWITCH_PURE"):
        _load_source()
        return "pure (LANSWITCH_PURE)"
    try:
        fresh = STAMP.read_text(encoding="ascii").strip() == source_digest()
    except OSError:
        fresh = False
    if not fresh:
        _load_source()
        return "pure (compiled build is stale: run make)"
    return "compiled"
