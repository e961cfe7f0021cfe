"""Worker processes that leave with their parent.

joblib's loky workers wait for work for ``idle_worker_timeout`` seconds (300 by default), then up to 30
more for the parent's permission to exit. When the parent is killed (SIGKILL: it cannot clean up), a
worker finishes the task it holds and then lingers for those five and a half minutes, holding its
memory and any engine it started. :func:`parallel` gives a joblib ``Parallel`` whose workers each run
:func:`exit_with_parent` first: a daemon thread that ends the worker (``os._exit``) as soon as its
parent process is gone, mid-task included.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

POLL_SECONDS = 0.2
"""How often a worker looks for its parent."""

IDLE_WORKER_TIMEOUT = 30
"""Seconds an idle worker waits for more work before it exits (joblib's default is 300)."""


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_SECONDS)
    os._exit(1)


def exit_with_parent(parent_pid: int) -> None:
    """Worker initializer: exit this process as soon as ``parent_pid`` is no longer its parent."""
    if os.getpid() == parent_pid:  # run in the parent itself (a backend without processes): nothing to watch
        return
    threading.Thread(target=_watch, args=(parent_pid,), name="exit-with-parent", daemon=True).start()


def parallel(n_jobs: int, **options: Any) -> Any:
    """``joblib.Parallel(n_jobs, **options)`` on loky workers that exit with this process (see the
    module docstring) and after :data:`IDLE_WORKER_TIMEOUT` idle seconds."""
    from joblib import Parallel

    return Parallel(n_jobs=n_jobs, backend="loky", initializer=exit_with_parent, initargs=(os.getpid(),),
                    idle_worker_timeout=IDLE_WORKER_TIMEOUT, **options)


def pool_options() -> dict[str, Any]:
    """The keyword arguments :func:`parallel` adds, for a package that may not import this one and
    builds its own ``joblib.Parallel`` (``organisms.features.feature_matrix(parallel_options=...)``)."""
    return {"backend": "loky", "initializer": exit_with_parent, "initargs": (os.getpid(),),
            "idle_worker_timeout": IDLE_WORKER_TIMEOUT}
