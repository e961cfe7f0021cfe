"""numba's ``njit``, with its cache under mimic's cache root, and the bit intrinsics every core module shares.

The compiled core (ARCHITECTURE.md, Packages and rooms: ``search/core/``) is compiled with numba's ``njit``
(nopython) and ``cache=True``, so only the first process on a machine compiles: the cache lives in
``<cache root>/numba`` (:func:`search.runtime.cachekey.cache_root`: ``$MIMIC_CACHE``, default ``~/.cache/mimic``)
unless the user set ``NUMBA_CACHE_DIR``. This module sets that variable *before* numba is imported, so every core
module imports ``njit`` from here, never numba first.

``popcount``, ``lsb`` and ``msb`` are LLVM's ``ctpop``, ``cttz`` and ``ctlz`` on a ``uint64`` (one instruction
each on x86-64 with POPCNT/BMI); ``lsb``/``msb`` of 0 are undefined, callers test for 0 first.
"""

from __future__ import annotations

import os

from search.runtime.cachekey import cache_root

if not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = str(cache_root() / "numba")

from llvmlite import ir  # (after NUMBA_CACHE_DIR is set)
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["lsb", "msb", "njit", "popcount"]


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


@njit(cache=True, inline="always")
def popcount(b):  # type: ignore[no-untyped-def]
    """The number of set bits of the ``uint64`` ``b`` (an ``int64``)."""
    return _ctpop(b)


@njit(cache=True, inline="always")
def lsb(b):  # type: ignore[no-untyped-def]
    """The index (0..63, an ``int64``) of the lowest set bit of the non-zero ``uint64`` ``b``."""
    return _cttz(b)


@njit(cache=True, inline="always")
def msb(b):  # type: ignore[no-untyped-def]
    """The index (0..63, an ``int64``) of the highest set bit of the non-zero ``uint64`` ``b``."""
    return 63 - _ctlz(b)
