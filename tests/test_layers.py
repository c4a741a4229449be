"""The shells import one way too: one owner of "join a table" (issue 14).

Before, ``netcmd`` and ``tui/run`` imported each other, and ``join``'s argparse namespace
travelled through ``tui/run``, ``client`` and back into ``netcmd``. Now the command line
(``cli/``) turns its arguments into plain settings (``lanswitch/settings.py``) once; below it
the headless commands (``netcmd``) and the terminal client (``tui``) sit side by side and never
import each other; and both join a table through ``client``, which imports neither of them.
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
    "seatkeep": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
    "discovery": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
    "server": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
    "door": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
    "gcpolicy": ("lanswitch.netcmd", "lanswitch.tui", "lanswitch.cli", "lanswitch.client"),
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
    """The settings are plain values: nothing below cli/ takes the parser's namespace."""
    for shell in ("netcmd", "tui", "client", "hosting", "history"):
        for path in module_files(shell):
            assert "argparse" not in path.read_text("utf-8"), path


def _import_graph() -> dict[str, set[str]]:
    """Each module of the package → the modules of it that it imports (at module level, in
    a function, or for type checking alike: a loop a reader must follow is one either way).
    A package's ``__init__`` is left out as a target: importing a submodule runs it."""
    files = module_files("")
    modules = {dotted_name(f): f for f in files}
    packages = {dotted_name(f) for f in files if f.stem == "__init__"}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        found = imported_modules(path.read_text("utf-8"), module, path.stem == "__init__")
        graph[module] = {
            name for _, name in found if name in modules and name not in packages | {module}
        }
    return graph


def _loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, with an
    explicit stack: bounded by the graph's size)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    loops.append(sorted(component))
    return loops


def test_no_module_imports_one_that_imports_it_back() -> None:
    """Issue 25: the host was one class over three files by inheritance, and the package's one
    import loop, ``host/_core ⇄ _blind ⇄ _play ⇄ _journal``. Now the table holds its hand as a
    driver (``host/_deal``), and imports run one way everywhere."""
    graph = _import_graph()
    assert graph.get("lanswitch.host._core")
    assert _loops(graph) == []


def test_the_loop_finder_finds_a_loop() -> None:
    """(So that the test above can fail.)"""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _loops(graph) == [["a", "b", "c"]]
