"""One BLAS thread while the GA runs.

A generation's matrix products are small (a sample of 1,000 rows × 49 features × 100 organisms): split over
OpenBLAS's threads they wait on each other more than they compute, and on a busy machine far more (5,000
labels, 300 generations, 2 cores under load: the evolution took 10.6 s with two BLAS threads, 1.2 s with
one). :func:`one_blas_thread` asks numpy's OpenBLAS for one thread (``openblas_set_num_threads_local``,
OpenBLAS 0.3.27 and later, which returns the count it replaces) and gives the old count back afterwards.
The results are the same bits: OpenBLAS splits a product's output between its threads, each output element
is summed by one thread in the same order. Where numpy's BLAS is not such an OpenBLAS, it does nothing.

May import: the standard library and numpy.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np


@functools.cache
def _set_threads_local() -> Callable[[int], int] | None:
    """numpy's bundled OpenBLAS's ``openblas_set_num_threads_local`` (returns the previous count), if any."""
    folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(folder.glob("*openblas*.so*")):
        try:
            function = ctypes.CDLL(str(path)).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        function.argtypes = [ctypes.c_int]
        function.restype = ctypes.c_int
        return function
    return None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with one OpenBLAS thread (see the module docstring)."""
    function = _set_threads_local()
    if function is None:
        yield
        return
    previous = function(1)
    try:
        yield
    finally:
        function(max(previous, 1))
