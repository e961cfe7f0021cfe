"""Where parallel work runs: local worker processes that leave with their parent, or a Dask cluster.

joblib's loky workers wait for work for ``idle_worker_timeout`` seconds (300 by default), then up to 30
more for the parent's permission to exit. When the parent is killed (SIGKILL: it cannot clean up), a
worker finishes the task it holds and then lingers for those five and a half minutes, holding its
memory and any engine it started. :func:`parallel` gives a joblib ``Parallel`` whose workers each run
:func:`exit_with_parent` first: a daemon thread that ends the worker (``os._exit``) as soon as its
parent process is gone, mid-task included.

The same calls run on a Dask cluster instead (``mimic ... --backend dask --scheduler ADDRESS``): inside
:func:`use_backend` ``("dask", address)`` a ``distributed.Client`` is connected and joblib's Dask backend
is made the default (``joblib.parallel_config(backend="dask")``), so every ``Parallel`` built by
:func:`parallel`, or with :func:`pool_options`, sends its tasks to the cluster's workers; the code that
runs the work is the same. Tasks name their engines by spec or configuration (strings), and each worker
process starts its own engines (never pickled). ``dask[distributed]`` is the optional extra ``cluster``.
May import: the standard library and joblib (``distributed`` only inside :func:`use_backend`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from search.runtime.errors import MimicError

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


BACKENDS = ("local", "dask")
"""The places parallel work can run: ``local`` (loky processes on this machine) or ``dask`` (a cluster)."""

BACKEND_ENV = "MIMIC_BACKEND"
"""Environment variable naming the backend when ``--backend`` is not given."""

SCHEDULER_ENV = "MIMIC_SCHEDULER"
"""Environment variable holding the Dask scheduler's address when ``--scheduler`` is not given."""

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the scheduler to answer, then for a first worker to join it."""

_CLIENT: Any = None
"""The ``distributed.Client`` while :func:`use_backend` runs the dask backend; ``None`` otherwise."""


class BackendError(MimicError):
    """The backend cannot run: dask is not installed, the scheduler is unreachable or has no worker.
    The message is one line, meant for the user."""


def distributed() -> bool:
    """Whether parallel work goes to a Dask cluster now (inside :func:`use_backend` ``("dask", ...)``)."""
    return _CLIENT is not None


def cluster_threads() -> int:
    """Tasks the cluster runs at once (the sum of its workers' threads); 0 on the local backend."""
    return 0 if _CLIENT is None else int(sum(_CLIENT.nthreads().values()))


SCHEDULER_PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
"""The protocols of a Dask scheduler address (``tcp`` when the address names none)."""


def check_address(address: str) -> str:
    """``address`` when it is a Dask scheduler address, ``[PROTOCOL://]HOST:PORT`` (a protocol of
    :data:`SCHEDULER_PROTOCOLS`, a host name or address, ``[...]`` around an IPv6 one, a port within 1..65535);
    else :class:`BackendError` saying what is wrong. Whether a scheduler answers there is :func:`use_backend`'s."""
    protocol, sep, location = address.partition("://")
    if not sep:
        protocol, location = "tcp", address
    if protocol not in SCHEDULER_PROTOCOLS:
        raise BackendError(f"scheduler address {address!r}: unknown protocol {protocol!r} "
                           f"(expected {', '.join(SCHEDULER_PROTOCOLS)})")
    host, colon, port = location.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host or not port.isdigit() or not 1 <= int(port) <= 65535 or not host.isprintable() \
            or any(c in host for c in " /?#@"):
        raise BackendError(f"scheduler address {address!r} is not [PROTOCOL://]HOST:PORT "
                           "(e.g. tcp://10.0.0.1:8786, a port within 1..65535)")
    return address


def resolve_backend(backend: str | None, scheduler: str | None) -> tuple[str, str | None]:
    """The backend and scheduler address to use: the arguments given, else :data:`BACKEND_ENV` and
    :data:`SCHEDULER_ENV`; a scheduler alone means ``dask``. Raises :class:`BackendError` on an unknown
    backend name or a malformed scheduler address (:func:`check_address`)."""
    scheduler = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if scheduler is not None:
        check_address(scheduler)
    backend = backend or os.environ.get(BACKEND_ENV) or ("dask" if scheduler else "local")
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (choose {' or '.join(BACKENDS)})")
    return backend, scheduler


@contextlib.contextmanager
def use_backend(backend: str = "local", scheduler: str | None = None, *,
                timeout: float = CONNECT_TIMEOUT) -> Iterator[None]:
    """Run the parallel work of the block on ``backend``: ``local`` changes nothing; ``dask`` connects a
    ``distributed.Client`` to ``scheduler`` (an address such as ``tcp://10.0.0.1:8786``), waits up to
    ``timeout`` seconds for it and for a first worker, and makes joblib's Dask backend the default for
    the block (the client is closed at its end; the cluster keeps running). Raises :class:`BackendError`
    with a one-line reason when dask is not installed, no address is given, the scheduler does not answer
    or no worker joins it."""
    global _CLIENT
    if backend == "local":
        yield
        return
    if backend != "dask":
        raise BackendError(f"unknown backend {backend!r} (choose {' or '.join(BACKENDS)})")
    if not scheduler:
        raise BackendError(f"the dask backend needs a scheduler address: --scheduler ADDRESS or {SCHEDULER_ENV}")
    if _CLIENT is not None:
        raise BackendError("a dask backend is already in use in this process")
    try:
        from distributed import Client
        from joblib import parallel_config
    except ImportError:
        raise BackendError("the dask backend needs dask[distributed]: pip install 'mimic[cluster]'") from None
    try:
        client = Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BackendError(f"cannot reach the Dask scheduler at {scheduler}: {reason}") from None
    except Exception as exc:  # e.g. an HTTP server's answer read as a frame length: MemoryError
        reason = f"the server there does not speak Dask's protocol ({type(exc).__name__} reading its answer)"
        raise BackendError(f"cannot reach the Dask scheduler at {scheduler}: {reason}") from None
    try:
        if not client.nthreads():
            try:
                client.wait_for_workers(1, timeout=timeout)
            except (OSError, TimeoutError):
                raise BackendError(f"no Dask worker joined the scheduler at {scheduler} within {timeout:g} s "
                                   "(start one: dask worker ADDRESS)") from None
        _CLIENT = client
        with parallel_config(backend="dask", client=client):
            yield
    finally:
        _CLIENT = None
        client.close()


def on_every_worker(function: Callable[[], Any]) -> dict[str, Any]:
    """Call ``function()`` once in every worker process of the Dask cluster (``distributed.Client.run``)
    and return each worker's answer by its address; ``{}`` on the local backend, whose workers are
    this process's own. ``function`` must be importable on the workers (a module-level function)."""
    if _CLIENT is None:
        return {}
    return dict(_CLIENT.run(function))


def parallel(n_jobs: int, *, scatter: Sequence[Any] = (), **options: Any) -> Any:
    """``joblib.Parallel(n_jobs, **options)``. On the local backend: loky workers that exit with this
    process (see the module docstring) and after :data:`IDLE_WORKER_TIMEOUT` idle seconds. On the dask
    backend (:func:`use_backend`): the cluster's workers (``n_jobs`` is then the cluster's: the sum of
    its threads), with the objects of ``scatter`` (large arrays every task receives) sent once to every
    worker and replaced by references in the tasks' arguments. Locally ``scatter`` changes nothing: loky
    already memory-maps large arrays for its workers."""
    from joblib import Parallel

    if _CLIENT is not None:
        if scatter:
            from joblib import parallel_config

            with parallel_config(backend="dask", client=_CLIENT, scatter=list(scatter)):
                return Parallel(n_jobs=n_jobs, **options)
        return Parallel(n_jobs=n_jobs, **options)
    return Parallel(n_jobs=n_jobs, backend="loky", initializer=exit_with_parent, initargs=(os.getpid(),),
                    idle_worker_timeout=IDLE_WORKER_TIMEOUT, **options)


def pool_options() -> dict[str, Any]:
    """The keyword arguments :func:`parallel` adds, for a package that may not import this one and
    builds its own ``joblib.Parallel`` (``organisms.features.feature_matrix(parallel_options=...)``): none
    on the dask backend (the active ``parallel_config`` sends the work to the cluster)."""
    if _CLIENT is not None:
        return {}
    return {"backend": "loky", "initializer": exit_with_parent, "initargs": (os.getpid(),),
            "idle_worker_timeout": IDLE_WORKER_TIMEOUT}


def parallel_map(function: Callable[..., Any], items: Sequence[Any], jobs: int, *, args: Sequence[Any] = (),
                 scatter: Sequence[Any] = (), ordered: bool = True, **options: Any) -> Iterator[Any]:
    """``function(item, *args)`` for every item, yielded in the items' order as each is done: in this
    process when ``jobs == 1`` or there is at most one item, otherwise through :func:`parallel` (local
    workers or the Dask cluster; ``jobs`` ``-1`` is every core), where ``ordered=False`` yields each result
    as soon as it is done instead. The one "serial or joblib" branch of mimic; ``options`` go to
    ``joblib.Parallel`` (e.g. ``batch_size=1``).

    >>> list(parallel_map(divmod, [7, 9], 1, args=(4,)))
    [(1, 3), (2, 1)]
    """
    if jobs == 1 or len(items) <= 1:
        return (function(item, *args) for item in items)
    from joblib import delayed

    pool = parallel(jobs, scatter=scatter, return_as="generator" if ordered else "generator_unordered", **options)
    return iter(pool(delayed(function)(item, *args) for item in items))


@contextlib.contextmanager
def dropping_results() -> Iterator[None]:
    """Silence joblib's warnings that tasks were cancelled or their results not used, for a caller that stops
    reading :func:`parallel_map`'s results on purpose (it had enough; the work ahead was speculative)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(still being processed|executed +but not used).*")
        yield
