"""Choose the engine: the mypyc-compiled ``game`` when it matches its source, else the source.

``make`` compiles ``lanswitch/game.py`` with mypyc (``python -m lanswitch._build``), which
leaves a C extension beside the source; Python's import system prefers it. The same code then
runs about 2.5 times faster. The extension is only trusted if it was built from exactly the
source files beside it (a digest written at build time): otherwise — an edited ``game.py``, a
half-finished build — the source is loaded instead, so a stale build can never run. Setting
``LANSWITCH_PURE=1`` forces the source too (the tests use it to check both engines agree).
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
SOURCES = ("game.py", "cards.py")
PACKAGES = ("rules",)
STAMP = HERE / "game.build-hash"


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
    return sorted(p for p in HERE.glob("game*.*") if p.suffix in (".so", ".pyd"))


def _load_source() -> None:
    spec = importlib.util.spec_from_file_location("lanswitch.game", HERE / "game.py")
    if spec is None or spec.loader is None:
        raise ImportError("cannot load lanswitch/game.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["lanswitch.game"] = module
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
