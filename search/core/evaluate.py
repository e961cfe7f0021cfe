"""The compiled core's static evaluation: the one table of native kinds and the one dispatch.

:func:`evaluate` is what the compiled search calls at every leaf: ``evaluate(bb, mb, st, kind, wi, wf)``, centipawns
from the side to move's view, equal to the Python evaluator's ``evaluate(board)`` to the centipawn. ``kind`` is an
id of :data:`KINDS`; ``wi`` (int64) and ``wf`` (float64) are the evaluator's parameters as its
:class:`search.base.NativeForm` lays them out. :func:`native_args` turns a form into these three arguments, checked.

The kinds: ``material`` (:mod:`search.core.eval_material`); ``paper``, an organism of the paper layout, and
``expert`` and ``rich``, the tapered piece-square tables plus the paper terms (:mod:`search.core.eval_linear`, the
terms of :mod:`search.core.eval_terms`): a full evaluation from the bitboards at every call; ``pnet``, a perspective
net (:mod:`search.core.eval_pnet`), whose accumulators the search keeps on a stack in ``wi``: it calls
:func:`refresh` at the root and :func:`follow_move` / :func:`follow_null` just before making a move (no-ops for
the other kinds); ``giraffe``, a Giraffe net (:mod:`search.core.eval_giraffe`: its 363 features from the bitboards
and its forward pass at every call, within a centipawn of numpy's float32 inference).
"""

from __future__ import annotations

import numpy as np

from search.base import NativeForm
from search.core.board import SIDE
from search.core.eval_giraffe import giraffe_eval, giraffe_sizes, scratch_slots
from search.core.eval_linear import TABLES, linear_eval
from search.core.eval_material import material_eval
from search.core.eval_pnet import pnet_eval, pnet_make, pnet_null, pnet_refresh, pnet_sizes
from search.core.eval_terms import PHASE_MAX
from search.core.jit import njit

__all__ = ["EXPERT", "GIRAFFE", "KINDS", "MATERIAL", "PAPER", "PNET", "RICH", "evaluate", "evaluate_afresh",
           "follow_move", "follow_null", "native_args", "refresh"]

MATERIAL, PAPER, EXPERT, RICH, PNET, GIRAFFE = 0, 1, 2, 3, 4, 5
KINDS: dict[str, int] = {"material": MATERIAL, "paper": PAPER, "expert": EXPERT, "rich": RICH, "pnet": PNET,
                         "giraffe": GIRAFFE}
"""The one table of native kinds: :attr:`search.base.NativeForm.kind` -> the id :func:`evaluate` dispatches on."""
_WI_SIZE = {MATERIAL: 7, PAPER: 0, EXPERT: 0, RICH: 0}
_WF_SIZE = {MATERIAL: 0, PAPER: TABLES, EXPERT: TABLES + (PHASE_MAX + 1) * 12 * 64,
            RICH: TABLES + (PHASE_MAX + 1) * 12 * 64}


def native_args(form: NativeForm) -> tuple[int, np.ndarray, np.ndarray]:
    """``(kind, wi, wf)`` for :func:`evaluate` from an evaluator's native form: the kind's id, and its parameters as
    contiguous int64 and float64 arrays of the kind's sizes (a ``ValueError`` names what does not fit)."""
    kind = KINDS.get(form.kind)
    if kind is None:
        raise ValueError(f"no native evaluator of kind {form.kind!r} (one of {', '.join(KINDS)})")
    wi = np.ascontiguousarray(form.wi, dtype=np.int64).reshape(-1)
    wf = np.ascontiguousarray(form.wf, dtype=np.float64).reshape(-1)
    if kind == PNET:  # sized by its units; the accumulator stack appended (a copy: each engine its own)
        size, stack = pnet_sizes(int(wi[0])) if wi.size else (-1, 0)
        if wi.size != size or wf.size != 2:
            raise ValueError(f"a native pnet evaluator takes {size} integers and 2 floats, got {wi.size} and "
                             f"{wf.size}")
        return kind, np.concatenate([wi, np.zeros(stack, dtype=np.int64)]), wf
    if kind == GIRAFFE:
        size_i, size_f = giraffe_sizes(wi)
        if wi.size != size_i or wf.size != size_f:
            raise ValueError(f"a native giraffe evaluator takes 5 integers (four widths, a 0/1 flag) and as many "
                             f"floats as they ask ({size_f}), got {wi.size} and {wf.size}")
        return kind, wi, np.concatenate([wf, np.zeros(scratch_slots(wi))])  # its scratch (a copy: each engine its own)
    if wi.size != _WI_SIZE[kind] or wf.size != _WF_SIZE[kind]:
        raise ValueError(f"a native {form.kind} evaluator takes {_WI_SIZE[kind]} integers and {_WF_SIZE[kind]} "
                         f"floats, got {wi.size} and {wf.size}")
    return kind, wi, wf


@njit(cache=True, inline="always")
def evaluate(bb, mb, st, kind, wi, wf):  # type: ignore[no-untyped-def]
    """Centipawns from the side to move's view of the position ``bb``/``mb``/``st`` (:mod:`search.core.board`) by
    the native evaluator ``kind`` (:data:`KINDS`) with parameters ``wi``, ``wf``. Inlined where it is called (numba
    then drops the reference counting of the arrays that a call would cost: 60 ns of the 70 a material evaluation
    took as a call)."""
    white_to_move = st[SIDE] == 1
    if kind == MATERIAL:
        return material_eval(bb, white_to_move, wi)
    if kind == GIRAFFE:
        return giraffe_eval(bb, st, wi, wf)
    if kind == PNET:
        return pnet_eval(bb, st, wi, wf)
    return linear_eval(bb, white_to_move, wf, kind != PAPER)


@njit(cache=True)
def evaluate_afresh(bb, mb, st, kind, wi, wf):  # type: ignore[no-untyped-def]
    """:func:`evaluate` of a position the search has not followed (an incremental evaluator refreshed first): what
    Python calls, one position at a time."""
    refresh(bb, st, kind, wi)
    return evaluate(bb, mb, st, kind, wi, wf)


@njit(cache=True, inline="always")
def refresh(bb, st, kind, wi):  # type: ignore[no-untyped-def]
    """At the search's root (and before a static evaluation): an incremental evaluator's state computed afresh."""
    if kind == PNET:
        pnet_refresh(bb, st, wi)


@njit(cache=True, inline="always")
def follow_move(mb, st, m, kind, wi):  # type: ignore[no-untyped-def]
    """Just before the search makes ``m``: an incremental evaluator's state for the position after it."""
    if kind == PNET:
        pnet_make(mb, st, m, wi)


@njit(cache=True, inline="always")
def follow_null(st, kind, wi):  # type: ignore[no-untyped-def]
    """Just before the search makes a null move."""
    if kind == PNET:
        pnet_null(st, wi)
