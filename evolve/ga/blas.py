"""One BLAS thread while the GA runs.

A generation's matrix products are small (a sample of 1,000 rows × 49 features × 100 organisms): split over
BLAS threads they wait on each other more than they compute, and on a busy machine far more (5,000 labels,
300 generations, 2 cores under load: the evolution took 10.6 s with two BLAS threads, 1.2 s with one).
:func:`one_blas_thread` limits the BLAS libraries loaded in this process to one thread with threadpoolctl
and gives the old counts back afterwards. The results are the same bits: OpenBLAS splits a product's
output between its threads, and each output element is summed by one thread in the same order.

May import: the standard library and threadpoolctl.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from threadpoolctl import threadpool_limits


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with one BLAS thread (see the module docstring)."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield
