"""Loading the project's scripts (benchmarks, generators) as modules, for the tests that run
them in process. They are files, not packages: each is loaded from its path under a name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_script(relative: str, name: str) -> ModuleType:
    """The script at ``ROOT / relative``, loaded as module ``name`` (registered in
    ``sys.modules`` first, so its dataclasses and pickling can find it)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
