"""The linear evaluators compiled: an organism of the ``paper`` layout, and the tapered piece-square tables plus the
paper terms of the ``rich`` layout and of the expert.

Each equals its Python evaluation (:meth:`organisms.organism.Organism.evaluate`, :meth:`organisms.expert.Expert.
evaluate`) to the centipawn, because it performs the same floating-point operations in the same order:

* ``white_view`` (:meth:`organisms.linear.TermWeights.white_view`): ``sum(mg[i] * t[i]) * phi + sum(eg[i] * t[i]) *
  (1 - phi)``, ``phi = phase / 24``, each sum over the 31 terms in order, as Python's ``sum`` adds floats: left to
  right, and, from Python 3.12, with Neumaier's compensation (:data:`COMPENSATED_SUM`, the running interpreter's);
* the tables (:func:`organisms.linear.square_table_sum`): entry by entry, White's pawns to king then Black's, each
  piece's squares from a1 up, from 0.0, uncompensated (``+=``), then divided by 24 and added to ``white_view``;
* the side to move's view: negated for Black, plus ``tempo``, then ``floor(x + 0.5)``.

No fused multiply-add (numba does not contract without ``fastmath``). The parameters (``wf``, float64) are laid out
by :class:`search.base.NativeForm`: ``mg`` (31), ``eg`` (31), ``tempo``, then for the tables ``[phase][piece][square]``
(25 × 12 × 64: 24 times the tapered value, White's view).
"""

from __future__ import annotations

import math

import numpy as np

from search.core.eval_terms import N_TERMS, PHASE_MAX, both_sides, phase
from search.core.jit import lsb, njit

__all__ = ["COMPENSATED_SUM", "linear_eval", "term_sums"]

COMPENSATED_SUM = sum([0.1] * 10) == 1.0
"""Whether this interpreter's ``sum`` of floats is compensated (Neumaier's, Python 3.12 and later): numba freezes it
into the compiled code, whose cache is per Python version."""

MG, EG, TEMPO, TABLES = 0, N_TERMS, 2 * N_TERMS, 2 * N_TERMS + 1
"""Offsets in ``wf``."""


@njit(cache=True, inline="always")
def _python_sums(w, white, black, compensated):  # type: ignore[no-untyped-def]
    """``sum(map(float.__mul__, mg, terms))`` and the same of ``eg``, exactly as Python computes them, the terms being
    ``white[i] - black[i]`` (integers, exact in a float): left to right, and with ``compensated`` as Python 3.12's
    ``sum`` does (CPython's ``builtin_sum_impl``: Neumaier's compensation, added at the end when non-zero and
    finite). The two sums run side by side (independent chains)."""
    smg = 0.0
    seg = 0.0
    if compensated:
        cmg = 0.0
        ceg = 0.0
        for i in range(N_TERMS):
            t = np.float64(white[i] - black[i])
            x = w[MG + i] * t
            s = smg + x
            if abs(smg) >= abs(x):
                cmg += (smg - s) + x
            else:
                cmg += (x - s) + smg
            smg = s
            x = w[EG + i] * t
            s = seg + x
            if abs(seg) >= abs(x):
                ceg += (seg - s) + x
            else:
                ceg += (x - s) + seg
            seg = s
        if cmg != 0.0 and math.isfinite(cmg):
            smg += cmg
        if ceg != 0.0 and math.isfinite(ceg):
            seg += ceg
    else:
        for i in range(N_TERMS):
            t = np.float64(white[i] - black[i])
            smg += w[MG + i] * t
            seg += w[EG + i] * t
    return smg, seg


@njit(cache=True)
def term_sums(wf, terms, compensated):  # type: ignore[no-untyped-def]
    """The ``mg`` and ``eg`` sums of :func:`linear_eval` for the terms ``terms`` (int64, 31), Python 3.12's way when
    ``compensated``, else 3.11's: both ways can be checked on either interpreter."""
    return _python_sums(wf, terms, np.zeros(N_TERMS, dtype=np.int64), compensated)


@njit(cache=True, inline="always")
def _table_sum(bb, wf, phase):  # type: ignore[no-untyped-def]
    """The tables' entries over every piece, White's view, in :func:`organisms.linear.square_table_sum`'s order."""
    total = 0.0
    for colour in (1, 0):
        for pt in range(1, 7):
            row = TABLES + (phase * 12 + (1 - colour) * 6 + pt - 1) * 64
            b = bb[colour, pt]
            while b:
                total += wf[row + lsb(b)]
                b &= b - np.uint64(1)
    return total


@njit(cache=True, inline="always")
def linear_eval(bb, white_to_move, wf, tables):  # type: ignore[no-untyped-def]
    """Centipawns from the side to move's view: the paper terms weighted by ``wf``'s ``mg``/``eg``/``tempo``, plus
    (``tables`` true) the tapered tables."""
    white, black = both_sides(bb)
    ph = phase(bb)
    phi = ph / PHASE_MAX
    smg, seg = _python_sums(wf, white, black, COMPENSATED_SUM)
    v = smg * phi + seg * (1.0 - phi)
    if tables:
        v = _table_sum(bb, wf, ph) / PHASE_MAX + v
    v = (v if white_to_move else -v) + wf[TEMPO]
    return math.floor(v + 0.5)
