"""The compiled core's static evaluation: the one table of native kinds and the one dispatch.

:func:`evaluate` is what the compiled search calls at every leaf: ``evaluate(bb, mb, st, kind, wi, wf)``, centipawns
from the side to move's view, equal to the Python evaluator's ``evaluate(board)`` to the centipawn. ``kind`` is an
id of :data:`KINDS`; ``wi`` (int64) and ``wf`` (float64) are the evaluator's parameters as its
:class:`search.base.NativeForm` lays them out. :func:`native_args` turns a form into these three arguments, checked.

The kinds: ``material`` (:mod:`search.core.eval_material`); ``paper``, an organism of the paper layout, and
``expert`` and ``rich``, the tapered piece-square tables plus the paper terms (:mod:`search.core.eval_linear`, the
terms of :mod:`search.core.eval_terms`). A full evaluation from the bitboards at every call: nothing is kept between
calls, so make/unmake need not tell the evaluator anything.
"""

from __future__ import annotations

import numpy as np

from search.base import NativeForm
from search.core.board import SIDE
from search.core.eval_linear import TABLES, linear_eval
from search.core.eval_material import material_eval
from search.core.eval_terms import PHASE_MAX
from search.core.jit import njit

__all__ = ["EXPERT", "KINDS", "MATERIAL", "PAPER", "RICH", "evaluate", "native_args"]

MATERIAL, PAPER, EXPERT, RICH = 0, 1, 2, 3
KINDS: dict[str, int] = {"material": MATERIAL, "paper": PAPER, "expert": EXPERT, "rich": RICH}
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
    return linear_eval(bb, white_to_move, wf, kind != PAPER)
