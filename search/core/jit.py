"""numba's ``njit``, with its cache under mimic's cache root, and the bit intrinsics every core module shares.

The compiled core (ARCHITECTURE.md, Packages and rooms: ``search/core/``) is compiled with numba's ``njit``
(nopython) and ``cache=True``, so only the first process on a machine compiles. The cache lives in
``<base>/core-<digest>``: ``<base>`` is ``$NUMBA_CACHE_DIR`` when the user set it, else ``<cache root>/numba``
(:func:`search.runtime.cachekey.cache_root`: ``$MIMIC_CACHE``, default ``~/.cache/mimic``), and ``<digest>`` is a
BLAKE2 digest of the source of every module of ``search/core/`` and of the modules of ``search/`` it reads
constants from (:data:`CONSTANT_MODULES`). numba checks only a function's own file before it reuses a cached
function, so a cached caller would keep running the old code of an edited callee in another file; one folder per
state of the sources rules that out (an edit costs one full compilation; older folders are left for the user to
delete). Every core module imports ``njit`` from here, so the folder is set (numba's ``config.CACHE_DIR``, read
when a function is decorated) before any core function exists.

:func:`raw_view` is the speed of a compiled entry point: numba counts references to every array a compiled function
receives (an atomic increment and decrement per array per call, which its pruning pass often fails to remove), and
that cost more than the work in make/unmake (115 ns a move made and taken back, 40 ns on raw views). An entry point
(perft, the search's root) turns its arrays into raw views once; every call below it then passes arrays without a
reference count (numba skips the count of an array that has none).

``popcount``, ``lsb`` and ``msb`` are LLVM's ``ctpop``, ``cttz`` and ``ctlz`` on a ``uint64`` (one instruction
each on x86-64 with POPCNT/BMI); ``lsb``/``msb`` of 0 are undefined, callers test for 0 first.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

from search.runtime.cachekey import cache_root

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

_SEARCH = Path(__file__).resolve().parent.parent
CONSTANT_MODULES = ("conventions.py", "base.py", "engine.py", "root.py", "ordering.py", "tt.py", "prob.py")
"""The modules of ``search/`` whose constants compiled code freezes (the compiled search's come from the Python
engine's ``engine``, ``root``, ``ordering`` and ``tt``, the probability-limited search's weights from ``prob``)."""


def source_digest() -> str:
    """16 hex digits of BLAKE2b over the names and bytes of the core's modules and the constants' modules."""
    h = hashlib.blake2b(digest_size=8)
    for path in [*sorted((_SEARCH / "core").glob("*.py")), *(_SEARCH / name for name in CONSTANT_MODULES)]:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


CACHE_DIR = os.path.join(os.environ.get("NUMBA_CACHE_DIR") or str(cache_root() / "numba"), f"core-{source_digest()}")
"""The folder of this state of the core's compiled functions (module docstring)."""
config.CACHE_DIR = CACHE_DIR  # type: ignore[attr-defined]  # numba reads it when a function is decorated

__all__ = ["CACHE_DIR", "CONSTANT_MODULES", "compiling", "lsb", "msb", "njit", "popcount", "raw_view"]


@contextlib.contextmanager
def compiling() -> Iterator[None]:
    """Hold the machine's compile lock (a blocking ``flock`` on ``CACHE_DIR.lock``) around a process's first calls of
    the core's entry points: on a cold cache the first process compiles and saves, and the others (``--jobs N``
    workers, Dask workers on one machine) wait, then load what it saved instead of compiling it again. Without
    ``fcntl`` (Windows) it holds nothing."""
    if fcntl is None:
        yield
        return
    os.makedirs(os.path.dirname(CACHE_DIR), exist_ok=True)
    with open(CACHE_DIR + ".lock", "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):  # type: ignore[no-untyped-def]
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@intrinsic
def _ctlz(typingctx, x):  # type: ignore[no-untyped-def]
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@njit(cache=True)
def popcount(b):  # type: ignore[no-untyped-def]
    """The number of set bits of the ``uint64`` ``b`` (an ``int64``)."""
    return _ctpop(b)  # type: ignore[call-arg]


@njit(cache=True)
def lsb(b):  # type: ignore[no-untyped-def]
    """The index (0..63, an ``int64``) of the lowest set bit of the non-zero ``uint64`` ``b``."""
    return _cttz(b)  # type: ignore[call-arg]


@njit(cache=True)
def msb(b):  # type: ignore[no-untyped-def]
    """The index (0..63, an ``int64``) of the highest set bit of the non-zero ``uint64`` ``b``."""
    return 63 - _ctlz(b)  # type: ignore[call-arg]


@intrinsic
def _as_pointer(typingctx, address):  # type: ignore[no-untyped-def]
    sig = types.voidptr(types.uintp)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@njit(cache=True, inline="always")
def raw_view(a):  # type: ignore[no-untyped-def]
    """A view of the C-contiguous array ``a`` without numba's reference count (module docstring). Valid only while
    ``a`` lives: use it inside the compiled call that received ``a``, never return or store it."""
    return carray(_as_pointer(a.ctypes.data), a.shape, a.dtype)  # type: ignore[call-arg]
