"""The host process's garbage-collector policy: long-lived objects frozen, a valve that sweeps
after churn (issue #17; the theory of operation is :class:`CollectorPolicy`'s docstring).

A concern of its own, beside the server shell: it is one per process, not per table, and
whoever serves installs it once set up (``lanswitch host``: ``netcmd``; the benchmarks' host
processes). The servers only tell it when they let a connection go
(:func:`connection_closed`), which the valve counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import sys

__all__ = ["CollectorPolicy", "collector_policy", "connection_closed"]


class CollectorPolicy:
    """How a host process keeps the cyclic garbage collector's pauses short (issue #17).

    Theory of operation. CPython's collector walks every object of the generations it
    collects; a full (generation 2) collection walks them all. A host's objects are mostly
    long-lived — the program itself (modules, classes, functions: tens of thousands), each
    connection's asyncio and TLS state for as long as it is open, a hand's log for as long as
    the hand lasts — and on the 2-core machines measured they cost ~0.7 µs each to walk
    (they lie scattered over hundreds of MiB: cache and TLB misses), so a process serving 250
    tables (~130k objects) stopped for 70–110 ms at each full collection, every few seconds
    under load, and every one of them found nothing: over minutes of play every collection of
    such a host collected 0 objects — what a host makes in steady play dies by reference
    counting (``benchmarks/latency.py``, ``--profile``; the report of issue #17).

    So the policy moves long-lived objects where the collector never walks them:

    1. :meth:`install` collects once and freezes what is alive (``gc.freeze``: the program,
       and whatever the process set up before serving).
    2. After every collection of generation 1 (or 2), the objects that survived it — now all
       of generation 2 — are frozen too (``gc.freeze`` moves lists: O(1)). The collector then
       only ever walks objects younger than two collections, so its pauses are those of the
       young collections. Those cost ~1 µs an object too (each reference out of a young object
       is looked up in its referent's header, scattered as well): generation 1 is collected
       after every ``young`` (3) collections of generation 0, not 10, so it holds a third as
       many objects. A frozen object is still freed by reference counting the moment nothing
       refers to it; only garbage *cycles* among frozen objects stay.
    3. The valve, which bounds those. Steady play leaves no cycles, but a closed connection
       does: asyncio's socket transport refers to itself (a bound method it keeps), and a
       stream that ended on an error keeps the exception, whose traceback's frames refer to
       the stream (measured: ~20 objects per connection, and for about one in ten its TLS
       state with its 256 KiB buffer). So every ``check_every`` seconds the event loop
       sweeps — unfreeze, a full collection, freeze again: one pause of the old length —
       if ``closes`` connections have closed since the last sweep (the servers report
       them), or if the memory in use (the interpreter's allocated blocks; on Linux also the
       resident set) has grown past ``growth`` times that after the last sweep plus a slack
       (500k blocks, 512 MiB: a process that takes on its clients after set-up grows that
       much legitimately — 1,000 TLS connections are ~300 MiB). Counting the frozen objects
       instead would walk them all (``gc.get_freeze_count`` is as slow as a collection).
       Steady play sweeps never; churn sweeps about as often as the collector's own full
       collections did.

    A host of one LAN table has a small heap whatever the policy; the policy matters for a
    process with many connections (the benchmarks' 250 tables). ``uninstall`` restores the
    collector's defaults (tests). Installed outside an event loop, there is no valve.
    """

    def __init__(
        self,
        *,
        young: int = 3,
        growth: float = 2.0,
        slack_blocks: int = 500_000,
        slack_rss: int = 512 << 20,
        closes: int = 500,
        check_every: float = 5.0,
    ) -> None:
        self.young = young
        self.growth = growth
        self.slack_blocks = slack_blocks
        self.slack_rss = slack_rss
        self.closes = closes
        self.check_every = check_every
        self.installed = False
        self.closed_since_sweep = 0
        self.sweeps = 0  # valve openings so far
        self._base = (0, 0)  # (allocated blocks, RSS bytes) after the last sweep
        self._thresholds = gc.get_threshold()
        self._timer: asyncio.TimerHandle | None = None

    def install(self) -> None:
        """Collect and freeze now, freeze the survivors of every generation-1 collection from
        now on, and check the valve every ``check_every`` s on the running event loop (if
        any). Idempotent."""
        if self.installed:
            return
        global _INSTALLED
        if _INSTALLED is not None:
            _INSTALLED.uninstall()
        _INSTALLED = self
        self.installed = True
        self._thresholds = gc.get_threshold()
        first, _, third = self._thresholds
        gc.set_threshold(first, self.young, third)
        self.sweep()
        self.sweeps = 0
        gc.callbacks.append(self._after_collection)
        with contextlib.suppress(RuntimeError):  # no running loop: no valve
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.check_every, self._check)

    def uninstall(self) -> None:
        """Back to the collector's defaults: nothing frozen, no callback, no valve."""
        global _INSTALLED
        if not self.installed:
            return
        self.installed = False
        if _INSTALLED is self:
            _INSTALLED = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._after_collection)
        gc.set_threshold(*self._thresholds)
        gc.unfreeze()

    def _after_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info.get("generation", 0) >= 1:
            gc.freeze()  # generations 0 and 1 were just emptied: generation 2 survived

    def connection_closed(self) -> None:
        """A server let a connection go (the valve counts them)."""
        self.closed_since_sweep += 1

    def check(self) -> bool:
        """Sweep if the valve says so (see the class docstring); True if it swept."""
        if not self.installed:
            return False
        blocks, rss = _memory_in_use()
        base_blocks, base_rss = self._base
        if (
            self.closed_since_sweep >= self.closes
            or blocks > base_blocks * self.growth + self.slack_blocks
            or (rss and base_rss and rss > base_rss * self.growth + self.slack_rss)
        ):
            self.sweep()
            return True
        return False

    def _check(self) -> None:
        self._timer = None
        if not self.installed:
            return
        self.check()
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.check_every, self._check)

    def sweep(self) -> int:
        """Unfreeze, collect everything, freeze the survivors: the valve. The objects
        collected (cycles that were left among the frozen)."""
        self.sweeps += 1
        self.closed_since_sweep = 0
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self._base = _memory_in_use()
        return found


def _memory_in_use() -> tuple[int, int]:
    """(the interpreter's allocated memory blocks, the process's resident bytes — 0 where
    ``/proc/self/statm`` is not to be had)."""
    rss = 0
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/self/statm", "rb") as f:
        rss = int(f.read().split()[1]) * _PAGE
    return sys.getallocatedblocks(), rss


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


_POLICY = CollectorPolicy()
_INSTALLED: CollectorPolicy | None = None  # the one the servers report closed connections to


def collector_policy() -> CollectorPolicy:
    """The process's :class:`CollectorPolicy` (installed by whoever serves: ``lanswitch host``
    and the benchmarks' host processes call ``collector_policy().install()`` once set up)."""
    return _POLICY


def connection_closed() -> None:
    """A server let a connection go: the installed policy (if any) counts it."""
    if _INSTALLED is not None:
        _INSTALLED.connection_closed()
