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

``wi`` (int64) is laid out as follows (``N`` units; "int32 rows" are ``2N`` int32 numbers packed two to an int64 slot,
read through ``wi.view(np.int32)``: White's perspective's N sums, then Black's; int32 halves the memory the hot loops
touch and doubles their SIMD lanes, and cannot overflow: every weight and bias of a net file is within +-1000, so a
quantised one within +-255,000 and a sum of 33 within +-8.5 million):

* the header, :data:`HEADER` slots: ``wi[UNITS] = N``, ``wi[PSQT]`` 1 with a PSQT path else 0, ``wi[BIAS_OUT]`` the
  quantised output bias, ``wi[CHECK]`` 1 to check every evaluation against a fresh accumulator (tests; counts in
  ``wi[CHECKED]`` and ``wi[MISMATCHES]``);
* the first-layer table, ``12 × 64`` int32 rows: row ``(colour * 6 + piece_type - 1) * 64 + square`` is what a piece
  of that colour and type on that square adds to the accumulators (python-chess's colours and piece types);
* the PSQT table, ``12 × 64`` pairs of int64 in the same order: what the piece adds to the PSQT sums of White's
  perspective and of Black's (zero without PSQT; int64: a quantised PSQT weight may reach 2.6e8);
* the bias row (an int32 row: the first-layer biases twice);
* the output weights (``2N`` int64: those of the side to move's accumulator first);
* the stack: :data:`STACK_ROWS` int32 rows, row ``st[PLY]`` the accumulators of the current position, then one scratch
  row (the checks' fresh accumulators); then as many int64 pairs, the PSQT sums. The Python form
  (:meth:`organisms.pnet.PNet.native_form`) stops before the stack; :func:`search.core.evaluate.native_args` appends
  it (each engine its own).

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
    """``(form, stack)``: the int64 slots of a ``units``-unit net's form, and of its stack (scratch row included)."""
    return HEADER + 12 * 64 * units + 12 * 64 * 2 + units + 2 * units, (STACK_ROWS + 1) * (units + 2)


@njit(cache=True, inline="always")
def _offsets(n):  # type: ignore[no-untyped-def]
    """Where the parts begin (int64 slots; an int32 row is ``n`` slots, ``2n`` int32 numbers): the first-layer table,
    the PSQT table, the bias row, the output weights, the int32 stack, the PSQT stack."""
    table = HEADER
    psqt = table + 12 * 64 * n
    bias = psqt + 12 * 64 * 2
    out = bias + n
    stack = out + 2 * n
    pstack = stack + (STACK_ROWS + 1) * n
    return table, psqt, bias, out, stack, pstack


@njit(cache=True, inline="always")
def _row(w32, start, k, n):  # type: ignore[no-untyped-def]
    """The int32 row ``k`` of the part beginning at int64 slot ``start`` (a view: loops over it index from 0, which
    lets LLVM vectorise them; ``w32[base + i]`` would keep numba's check for a negative index in every step)."""
    return w32[2 * (start + k * n):2 * (start + k * n + n)]


@njit(cache=True)
def _fresh(bb, wi, row):  # type: ignore[no-untyped-def]
    """The accumulators of the position ``bb`` computed afresh into the stack's row ``row``."""
    n = wi[UNITS]
    table, psqt, bias, _, stack, pstack = _offsets(n)
    w32 = wi.view(np.int32)
    m = 2 * n
    d = _row(w32, stack, row, n)
    d[:] = _row(w32, bias, 0, n)
    pw = np.int64(0)
    pb = np.int64(0)
    for colour in range(2):
        for pt in range(1, 7):
            b = bb[colour, pt]
            while b:
                k = (colour * 6 + pt - 1) * 64 + lsb(b)
                r = _row(w32, table, k, n)
                for i in range(m):
                    d[i] += r[i]
                pw += wi[psqt + 2 * k]
                pb += wi[psqt + 2 * k + 1]
                b &= b - np.uint64(1)
    wi[pstack + 2 * row] = pw
    wi[pstack + 2 * row + 1] = pb


@njit(cache=True)
def pnet_refresh(bb, st, wi):  # type: ignore[no-untyped-def]
    """Compute the accumulators of the position afresh into the row of ``st[PLY]`` (the search's root)."""
    _fresh(bb, wi, st[PLY])


@njit(cache=True)
def pnet_null(st, wi):  # type: ignore[no-untyped-def]
    """Before a null move: the next row is a copy of the current one (no piece moves)."""
    n = wi[UNITS]
    _, _, _, _, stack, pstack = _offsets(n)
    ply = st[PLY]
    for i in range(n):
        wi[stack + (ply + 1) * n + i] = wi[stack + ply * n + i]
    wi[pstack + 2 * ply + 2] = wi[pstack + 2 * ply]
    wi[pstack + 2 * ply + 3] = wi[pstack + 2 * ply + 1]


@njit(cache=True)
def pnet_make(mb, st, m, wi):  # type: ignore[no-untyped-def]
    """Before ``m`` (a move the generator made) is made: the next row is the current one plus the rows of the pieces
    it puts down, minus those of the pieces it lifts (castling's king and rook, a capture, en passant, promotion)."""
    n = wi[UNITS]
    table, psqt, _, _, stack, pstack = _offsets(n)
    w32 = wi.view(np.int32)
    width = 2 * n
    ply = st[PLY]
    o = _row(w32, stack, ply, n)
    d = _row(w32, stack, ply + 1, n)
    frm = m & 63
    to = (m >> 6) & 63
    code = mb[frm]
    colour = code >> 3
    pt = code & 7
    base = colour * 6 * 64
    promo = (m >> 12) & 7
    cap = -1
    if m & F_CASTLE:
        rank = frm & 56
        if to > frm:
            rook_from, rook_to = rank + 7, rank + 5
        else:
            rook_from, rook_to = rank, rank + 3
        add, sub = base + 5 * 64 + to, base + 5 * 64 + frm
        add2, sub2 = base + 3 * 64 + rook_to, base + 3 * 64 + rook_from
        a, s, a2, s2 = _row(w32, table, add, n), _row(w32, table, sub, n), _row(w32, table, add2, n), \
            _row(w32, table, sub2, n)
        for i in range(width):
            d[i] = o[i] + a[i] - s[i] + a2[i] - s2[i]
        dw = wi[psqt + 2 * add] - wi[psqt + 2 * sub] + wi[psqt + 2 * add2] - wi[psqt + 2 * sub2]
        db = wi[psqt + 2 * add + 1] - wi[psqt + 2 * sub + 1] + wi[psqt + 2 * add2 + 1] - wi[psqt + 2 * sub2 + 1]
    else:
        add = base + ((promo if promo else pt) - 1) * 64 + to
        sub = base + (pt - 1) * 64 + frm
        a, s = _row(w32, table, add, n), _row(w32, table, sub, n)
        if m & F_EP:
            cap = (1 - colour) * 6 * 64 + (to - 8 if colour == 1 else to + 8)
        elif m & F_CAPTURE:
            victim = mb[to]
            cap = ((victim >> 3) * 6 + (victim & 7) - 1) * 64 + to
        dw = wi[psqt + 2 * add] - wi[psqt + 2 * sub]
        db = wi[psqt + 2 * add + 1] - wi[psqt + 2 * sub + 1]
        if cap < 0:
            for i in range(width):
                d[i] = o[i] + a[i] - s[i]
        else:
            c = _row(w32, table, cap, n)
            for i in range(width):
                d[i] = o[i] + a[i] - s[i] - c[i]
            dw -= wi[psqt + 2 * cap]
            db -= wi[psqt + 2 * cap + 1]
    wi[pstack + 2 * ply + 2] = wi[pstack + 2 * ply] + dw
    wi[pstack + 2 * ply + 3] = wi[pstack + 2 * ply + 1] + db


@njit(cache=True)
def _score(st, wi, wf, row):  # type: ignore[no-untyped-def]
    """The net's output from the stack's row ``row``, centipawns from the side to move's view."""
    n = wi[UNITS]
    _, _, _, out, stack, pstack = _offsets(n)
    w32 = wi.view(np.int32)
    white = st[SIDE] == 1
    acc = 2 * (stack + row * n)
    us = w32[acc:acc + n] if white else w32[acc + n:acc + 2 * n]
    them = w32[acc + n:acc + 2 * n] if white else w32[acc:acc + n]
    w_us = wi[out:out + n]
    w_them = wi[out + n:out + 2 * n]
    s = np.int64(0)
    for i in range(n):
        s += np.int64(min(max(us[i], 0), 255)) * w_us[i] + np.int64(min(max(them[i], 0), 255)) * w_them[i]
    psqt2 = np.int64(0)
    if wi[PSQT] != 0:
        psqt2 = wi[pstack + 2 * row] - wi[pstack + 2 * row + 1]
        if not white:
            psqt2 = -psqt2
    v = (np.float64(s + wi[BIAS_OUT]) + psqt2 / 2) * wf[UNIT]
    return np.int64(np.rint(min(max(v, -wf[LIMIT]), wf[LIMIT])))


@njit(cache=True)
def pnet_eval(bb, st, wi, wf):  # type: ignore[no-untyped-def]
    """Centipawns from the side to move's view, from the accumulators of the row ``st[PLY]`` (with ``wi[CHECK]``
    set, also computed afresh: a difference is counted in ``wi[MISMATCHES]``)."""
    n = wi[UNITS]
    _, _, _, _, stack, pstack = _offsets(n)
    row = st[PLY]
    v = _score(st, wi, wf, row)
    if wi[CHECK] != 0:
        _fresh(bb, wi, STACK_ROWS)
        wi[CHECKED] += 1
        same = wi[pstack + 2 * row] == wi[pstack + 2 * STACK_ROWS] and \
            wi[pstack + 2 * row + 1] == wi[pstack + 2 * STACK_ROWS + 1]
        for i in range(n):
            if wi[stack + STACK_ROWS * n + i] != wi[stack + row * n + i]:
                same = False
        if not same or _score(st, wi, wf, STACK_ROWS) != v:
            wi[MISMATCHES] += 1
    return v
