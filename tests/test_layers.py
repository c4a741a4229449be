"""The shells import one way too: one owner of "join a table" (issue 14).

Before, ``netcmd`` and ``tui/run`` imported each other, and ``join``'s argparse namespace
travelled through ``tui/run``, ``client`` and back into ``netcmd``. Now the command line turns
its arguments into plain settings (``lanswitch/settings.py``) once; below it the headless
commands (``netcmd``) and the terminal client (``tui``) sit side by side and never import
each other; and both join a table through ``client``, which imports neither of them.
Checked on the source, with the import parser of ``tests/test_purity.py``.
"""

from __future__ import annotations

import pytest

from tests.test_purity import dotted_name, imported_modules, module_files

#: Each shell, and the shells it must never import (at any depth).
NEVER = {
    "netcmd": ("lanswitch.tui", "lanswitch.cli"),
    "tui": ("lanswitch.netcmd", "lanswitch.cli"),
    "client": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.hosting"),
    "hosting": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
    "history": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
    "discovery": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
    "server": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
}


@pytest.mark.parametrize("shell", sorted(NEVER))
def test_a_shell_imports_no_shell_above_or_beside_it(shell: str) -> None:
    files = module_files(shell)
    assert files, shell
    bad = []
    for path in files:
        module = dotted_name(path)
        for line, name in imported_modules(
            path.read_text("utf-8"), module, path.stem == "__init__"
        ):
            if any(name == x or name.startswith(x + ".") for x in NEVER[shell]):
                bad.append(f"{module}:{line} imports {name}")
    assert not bad, bad


def test_no_argparse_namespace_below_the_command_line() -> None:
    """The settings are plain values: nothing below cli.py takes the parser's namespace."""
    for shell in ("netcmd", "tui", "client", "hosting", "history"):
        for path in module_files(shell):
            assert "argparse" not in path.read_text("utf-8"), path
