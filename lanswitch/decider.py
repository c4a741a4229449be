"""The host's bots' thinking, off the table's event loop: :class:`Decider` makes the moves a
host asks for (``lanswitch/host/_decide.py`` says why a host asks) in one worker process.

A shell (it starts a process, reads no clock of its own): the server holds one per table
(``Server.decider``) and hands each answer back to the host with ``Host.decided``.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor

from .host._decide import Decision, decide

__all__ = ["DECIDE_WAIT", "Decider"]

log = logging.getLogger(__name__)

DECIDE_WAIT = 30.0  # seconds a worker has for a bot's move before the server makes it itself


def _worker_start() -> None:
    """A decision worker leaves Ctrl-C to the program that started it (the terminal sends
    SIGINT to the whole process group, and a worker that took it printed a traceback over
    the table before the program could end it), and ends with it however it ends: a thread
    waits on the parent's sentinel and exits the worker when the parent is gone. (The pool's
    own queue cannot tell it: the worker holds a write end of that pipe itself, and a
    ``play`` killed with -9 left its worker running, waiting for work forever.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover - a worker always has one
        return

    def orphaned() -> None:
        parent.join()
        os._exit(0)

    threading.Thread(target=orphaned, name="lanswitch parent watch", daemon=True).start()


class Decider:
    """Makes the bots' asked moves (:class:`~lanswitch.host._decide.Decision`) in one worker
    process, started as a hand with searching bots is dealt (:meth:`warm`) or at the first
    question, and kept for the next: a search then holds that process, not the event loop.

    ``spawn``, not ``fork``, on every platform: a fork of a process whose threads (zeroconf's,
    the loop's executor) hold locks can deadlock, and ``spawn`` is what macOS and Windows do
    anyway. Where no worker can be had (the pool broke, the platform refused a process, a
    worker took past :data:`DECIDE_WAIT`), the move is made here, as a host that does not ask
    makes it: the table never waits on a worker that is not there. Once a worker failed it is
    not tried again for this table (a platform that cannot start one would otherwise try, and
    wait, at every move)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.failed = False  # a worker failed: every move is made here from now on
        self.made_apart = 0  # moves a worker made
        self.made_here = 0  # moves made on the loop, no worker to be had

    async def move(self, decision: Decision) -> int:
        """The move ``decision`` asks for, made in the worker if one can be had."""
        if self.failed:
            move = decide(decision)
            self.made_here += 1
            return move
        try:
            job = asyncio.get_running_loop().run_in_executor(self.pool(), decide, decision)
            async with asyncio.timeout(DECIDE_WAIT):
                move = await job
        except asyncio.CancelledError:
            raise
        except Exception as e:  # no worker to be had: make it here (the loop waits this once)
            log.warning("the bots think on the table's loop from now on (no worker: %r)", e)
            self.close()
            self.failed = True
            move = decide(decision)
            self.made_here += 1
            return move
        self.made_apart += 1
        return move

    @property
    def started(self) -> bool:
        """Whether the worker was started (and not let go since)."""
        return self._pool is not None

    def warm(self) -> None:
        """Start the worker now (its imports take some 0.4 s), so that the first move asked
        does not wait for them."""
        if self.failed:
            return
        try:
            self.pool().submit(int)
        except Exception as e:  # the first move will find out, and make it here
            log.warning("no worker for the bots: %r", e)

    def pool(self) -> ProcessPoolExecutor:
        """The worker's pool, started at the first call."""
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_worker_start)
        return self._pool

    def close(self) -> None:
        """Let the worker go (a search under way is not waited for)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
