"""Run lanswitch as on a machine without the Linux-only parts: ``python -m tests.nolinux
ARGS`` is ``python -m lanswitch ARGS`` with

* no signal handlers on the event loop (``loop.add_signal_handler`` raises
  NotImplementedError, as on Windows: Ctrl-C arrives as KeyboardInterrupt instead), and no
  ``SIGWINCH`` (Windows has none; prompt_toolkit then asks the console for its size);
* no glibc ``mallopt`` (the C library loads, but has no such function, as on macOS or musl;
  on Windows there is no ``libc.so.6`` at all);
* no POSIX file modes to set (``os.fchmod`` absent and ``os.chmod`` doing nothing, as on
  Windows before Python 3.13, where ACLs and not modes protect a file).

What lanswitch does where each is missing is in ``hosting.steady_memory`` (nothing), the
host's main loop in ``netcmd`` (KeyboardInterrupt closes the table) and ``tls``
(``_write_private``). ``tests/scenarios/test_portable.py`` runs a host and a client this way.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import sys
from typing import Any


def _no_signals(self: asyncio.AbstractEventLoop, *args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("this event loop takes no signal handlers (as on Windows)")


def _no_chmod(path: Any, mode: int, *args: Any, **kwargs: Any) -> None:
    return None  # modes do not protect files here


_real_cdll = ctypes.CDLL


class _NoGlibc(_real_cdll):
    """A C library without glibc's allocator tuning (other libraries' lookups unchanged)."""

    def __getattr__(self, name: str) -> Any:
        if name == "mallopt":
            raise AttributeError(f"{self._name}: undefined symbol: mallopt (not glibc)")
        return super().__getattr__(name)


def disable() -> None:
    """Take the Linux-only parts away from this process."""
    loop = asyncio.new_event_loop()
    loop_class = type(loop)
    loop.close()
    patches: list[tuple[object, str, object]] = [
        (loop_class, "add_signal_handler", _no_signals),
        (loop_class, "remove_signal_handler", _no_signals),
        (ctypes, "CDLL", _NoGlibc),
        (os, "chmod", _no_chmod),
    ]
    for owner, name, value in patches:
        setattr(owner, name, value)
    if hasattr(os, "fchmod"):
        del os.fchmod
    if hasattr(signal, "SIGWINCH"):
        del signal.SIGWINCH


if __name__ == "__main__":
    disable()
    from lanswitch.cli import main

    sys.exit(main(sys.argv[1:]))
