"""The ``lanswitch`` command line (a shell: it may do I/O)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    return 0
