"""The perspective net compiled (:mod:`organisms.pnet`, issue 63): its integer accumulators kept on a stack, one row
a ply, updated when the search makes a move, and its output computed from the row of the current ply.

Equal to :meth:`organisms.pnet.PNet.evaluate` to the integer, for nets without hidden layers (those with hidden
layers compute in float32 through numpy's BLAS, whose order of summation cannot be reproduced: they have no native
form and play in today's engine). The accumulators are int64 sums of the quantised first-layer rows (exact in any
order: the incremental row equals a fresh one to the last bit); the output is the int64 dot product of the clamped
accumulators (side to move first) with the quantised output weights, plus the output bias, plus half the quantised
PSQT difference as a float, times ``scale / (QA * QA_OUT)``, clipped to the evaluation limit and rounded half to
even: :meth:`organisms.pnet.PNet._score`'s operations in its order. ``wf`` holds that factor and the limit (both
computed by Python).

``wi`` (int64) is laid out as follows (``N`` units, ``W = 2N + 2`` the width of an accumulator row: White's
perspective's N sums, Black's N, then the two PSQT sums, White's perspective's then Black's, zero without PSQT):

* the header, :data:`HEADER` slots: ``wi[UNITS] = N``, ``wi[PSQT]`` 1 with a PSQT path else 0, ``wi[BIAS_OUT]`` the
  quantised output bias, ``wi[CHECK]`` 1 to check every evaluation against a fresh accumulator (tests; counts in
  ``wi[CHECKED]`` and ``wi[MISMATCHES]``);
* the table, ``12 × 64`` rows of ``W``: row ``(colour * 6 + piece_type - 1) * 64 + square`` is what a piece of that
  colour and type on that square adds to an accumulator row (python-chess's colours and piece types);
* the bias row (``W``: the first-layer biases twice, then 0, 0);
* the output weights (``2N``: those of the side to move's accumulator first);
* the stack: :data:`STACK_ROWS` rows of ``W``, row ``st[PLY]`` the accumulators of the current position, then one
  scratch row (the checks' fresh accumulator). The Python form (:meth:`organisms.pnet.PNet.native_form`) stops
  before it; :func:`search.core.evaluate.native_args` appends it (each engine its own).

The search calls :func:`pnet_refresh` at the root, :func:`pnet_make` just before it makes a move and
:func:`pnet_null` before a null move; unmaking a move only lowers ``st[PLY]``: the parent's row is intact.
"""

from __future__ import annotations

import numpy as np

from search.core.board import F_CAPTURE, F_CASTLE, F_EP, MAX_PLY, PLY, SIDE
from search.core.jit import lsb, njit

__all__ = ["HEADER", "STACK_ROWS", "pnet_eval", "pnet_make", "pnet_null", "pnet_refresh", "pnet_sizes"]

UNITS, PSQT, BIAS_OUT, CHECK, CHECKED, MISMATCHES = range(6)
HEADER = 8
"""Slots of ``wi``'s header."""
STACK_ROWS = MAX_PLY + 2
"""Accumulator rows: one a ply the board holds, plus one."""
UNIT, LIMIT = 0, 1
"""Slots of ``wf``: centipawns per integer output unit, the evaluation limit (centipawns)."""


def pnet_sizes(units: int) -> tuple[int, int]:
    """``(form, stack)``: the integers of a ``units``-unit net's form, and of its stack (scratch row included)."""
    w = 2 * units + 2
    return HEADER + 12 * 64 * w + w + 2 * units, (STACK_ROWS + 1) * w


@njit(cache=True, inline="always")
def _offsets(n):  # type: ignore[no-untyped-def]
    """Row width, and where the table, the bias row, the output weights and the stack begin."""
    w = 2 * n + 2
    table = HEADER
    bias = table + 12 * 64 * w
    out = bias + w
    stack = out + 2 * n
    return w, table, bias, out, stack


@njit(cache=True)
def _fresh(bb, wi, dst):  # type: ignore[no-untyped-def]
    """The accumulators of the position ``bb`` computed afresh into ``wi[dst:dst + W]``."""
    w, table, bias, _, _ = _offsets(wi[UNITS])
    for i in range(w):
        wi[dst + i] = wi[bias + i]
    for colour in range(2):
        for pt in range(1, 7):
            b = bb[colour, pt]
            while b:
                row = table + ((colour * 6 + pt - 1) * 64 + lsb(b)) * w
                for i in range(w):
                    wi[dst + i] += wi[row + i]
                b &= b - np.uint64(1)


@njit(cache=True)
def pnet_refresh(bb, st, wi):  # type: ignore[no-untyped-def]
    """Compute the accumulators of the position afresh into the row of ``st[PLY]`` (the search's root)."""
    w, _, _, _, stack = _offsets(wi[UNITS])
    _fresh(bb, wi, stack + st[PLY] * w)


@njit(cache=True)
def pnet_null(st, wi):  # type: ignore[no-untyped-def]
    """Before a null move: the next row is a copy of the current one (no piece moves)."""
    w, _, _, _, stack = _offsets(wi[UNITS])
    src = stack + st[PLY] * w
    for i in range(w):
        wi[src + w + i] = wi[src + i]


@njit(cache=True)
def pnet_make(mb, st, m, wi):  # type: ignore[no-untyped-def]
    """Before ``m`` (a move the generator made) is made: the next row is the current one plus the rows of the pieces
    it puts down, minus those of the pieces it lifts (castling's king and rook, a capture, en passant, promotion)."""
    w, table, _, _, stack = _offsets(wi[UNITS])
    src = stack + st[PLY] * w
    dst = src + w
    frm = m & 63
    to = (m >> 6) & 63
    code = mb[frm]
    colour = code >> 3
    pt = code & 7
    base = table + colour * 6 * 64 * w
    if m & F_CASTLE:
        rank = frm & 56
        if to > frm:
            rook_from, rook_to = rank + 7, rank + 5
        else:
            rook_from, rook_to = rank, rank + 3
        k_add, k_sub = base + (5 * 64 + to) * w, base + (5 * 64 + frm) * w
        r_add, r_sub = base + (3 * 64 + rook_to) * w, base + (3 * 64 + rook_from) * w
        for i in range(w):
            wi[dst + i] = wi[src + i] + wi[k_add + i] - wi[k_sub + i] + wi[r_add + i] - wi[r_sub + i]
        return
    promo = (m >> 12) & 7
    add = base + ((promo if promo else pt) - 1) * 64 * w + to * w
    sub = base + (pt - 1) * 64 * w + frm * w
    if m & F_EP:
        cap = table + ((1 - colour) * 6 * 64 + (to - 8 if colour == 1 else to + 8)) * w
    elif m & F_CAPTURE:
        victim = mb[to]
        cap = table + (((victim >> 3) * 6 + (victim & 7) - 1) * 64 + to) * w
    else:
        for i in range(w):
            wi[dst + i] = wi[src + i] + wi[add + i] - wi[sub + i]
        return
    for i in range(w):
        wi[dst + i] = wi[src + i] + wi[add + i] - wi[sub + i] - wi[cap + i]


@njit(cache=True)
def _score(st, wi, wf, row):  # type: ignore[no-untyped-def]
    """The net's output from the accumulators at ``wi[row:]``, centipawns from the side to move's view."""
    n = wi[UNITS]
    _, _, _, out, _ = _offsets(n)
    white = st[SIDE] == 1
    us = row if white else row + n
    them = row + n if white else row
    s = np.int64(0)
    for i in range(n):
        a = min(max(wi[us + i], 0), 255)
        b = min(max(wi[them + i], 0), 255)
        s += a * wi[out + i] + b * wi[out + n + i]
    psqt2 = np.int64(0)
    if wi[PSQT] != 0:
        psqt2 = wi[row + 2 * n] - wi[row + 2 * n + 1]
        if not white:
            psqt2 = -psqt2
    v = (np.float64(s + wi[BIAS_OUT]) + psqt2 / 2) * wf[UNIT]
    return np.int64(np.rint(min(max(v, -wf[LIMIT]), wf[LIMIT])))


@njit(cache=True)
def pnet_eval(bb, st, wi, wf):  # type: ignore[no-untyped-def]
    """Centipawns from the side to move's view, from the accumulators of the row ``st[PLY]`` (with ``wi[CHECK]``
    set, also computed afresh: a difference is counted in ``wi[MISMATCHES]``)."""
    w, _, _, _, stack = _offsets(wi[UNITS])
    row = stack + st[PLY] * w
    v = _score(st, wi, wf, row)
    if wi[CHECK] != 0:
        scratch = stack + STACK_ROWS * w
        _fresh(bb, wi, scratch)
        wi[CHECKED] += 1
        same = True
        for i in range(w):
            if wi[scratch + i] != wi[row + i]:
                same = False
        if not same or _score(st, wi, wf, scratch) != v:
            wi[MISMATCHES] += 1
    return v
