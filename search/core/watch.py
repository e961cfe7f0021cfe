"""The compiled search's eyes on the world: the caller's stop flag and the clock, seen from one thread a process.

The compiled search cannot read a ``threading.Event`` or a clock; it reads its state array ``ss`` every
:data:`search.core.search.POLL_EVERY` nodes. :data:`WATCHER` raises ``ss[STOP]`` once a search's stop flag is set
and ``ss[TIMEUP]`` once its deadline (``time.perf_counter()`` seconds) has passed, looking every :data:`WATCH_EVERY`
seconds while any search is watched, asleep otherwise. One daemon thread serves every engine of the process (started
on first use, anew in a forked child); :meth:`Watcher.watch` and :meth:`Watcher.unwatch` cost a lock each, not a
thread each (a thread started and joined a search cost 1-2 ms, more than a 2,000-node search). After ``unwatch``
returns, the search's array is never written again.
"""

from __future__ import annotations

import itertools
import os
import threading
import time

import numpy as np

from search.core.search import STOP, TIMEUP

__all__ = ["WATCHER", "WATCH_EVERY", "Watcher"]

WATCH_EVERY = 0.001
"""Seconds between the watcher's looks at the stop flags and the clock while a search is watched."""


class Watcher:
    """The thread that raises the flags of the searches it watches (module docstring)."""

    def __init__(self) -> None:
        self._ids = itertools.count()
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        """No thread and no searches: at the start, and in a forked child (the parent's thread is not there, and its
        lock may have been held at the fork)."""
        self._cond = threading.Condition()
        self._jobs: dict[int, tuple[np.ndarray, threading.Event, float | None]] = {}
        self._thread: threading.Thread | None = None

    def watch(self, ss: np.ndarray, halt: threading.Event, deadline: float | None) -> int:
        """Watch a search: ``ss[STOP] = 1`` once ``halt`` is set, ``ss[TIMEUP] = 1`` at ``deadline`` (``None``:
        never). Returns the token :meth:`unwatch` takes."""
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="core-watcher", daemon=True)
                self._thread.start()
            token = next(self._ids)
            self._jobs[token] = (ss, halt, deadline)
            self._cond.notify()
        return token

    def unwatch(self, token: int) -> None:
        """Stop watching the search of ``token``: its array is not written after this returns."""
        with self._cond:
            self._jobs.pop(token, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                while not self._jobs:
                    self._cond.wait()
                now = time.perf_counter()
                wait = WATCH_EVERY
                for ss, halt, deadline in self._jobs.values():
                    if halt.is_set():
                        ss[STOP] = 1
                    if deadline is not None:
                        if now >= deadline:
                            ss[TIMEUP] = 1
                        else:
                            wait = min(wait, deadline - now)
                self._cond.wait(wait)


WATCHER = Watcher()
"""The process's watcher."""
