"""The Giraffe net compiled: its 363 features from the core's bitboards and its forward pass (issue 63).

:func:`giraffe_features` computes exactly the features of :func:`organisms.giraffe.giraffe_features` (the side to
move's view, the board flipped vertically when Black is to move; the same slots, attack maps, safe mobility and free
rays; every value rounded to ``float32`` as the Python side stores it, then held in a ``float64``), and
:func:`giraffe_eval` runs the net of :class:`organisms.net.NetEvaluator` on them: centipawns from the side to move's
view, rounded half to even (Python's ``round``) and clipped. Both sides multiply in ``float32`` but sum in other
orders (numpy's BLAS, here input by input), so the two agree within a centipawn (a rounding can move an output
across a half-centipawn); the features themselves are equal exactly.

The native form (:class:`search.base.NativeForm`, kind ``giraffe``): ``wi`` = ``[u_global, u_piece, u_square,
hidden, linear]`` (the first layer's units per feature group, the hidden layer's units, 1 with the linear path);
``wf`` = ``scale`` (centipawns per output unit), the clip (centipawns), ``b_out`` (three float64), then the net's
float32 weights packed two to a float64 slot (the last padded with a zero; the search reads them through a float32
view, twice as many multiplications a vector instruction as in float64): each group's weights (inputs x units,
row-major, ``x @ w``) followed by its biases (global 19 inputs, piece 216, square 128), the hidden layer's weights
((u_global + u_piece + u_square) x hidden) and biases, the output weights (hidden), and with the linear path its
363 weights (:func:`n_weights` of them). :func:`giraffe_sizes` gives both lengths from ``wi``;
:func:`search.core.evaluate.native_args` appends :func:`scratch_slots` to a copy of ``wf``, the evaluation's scratch.
"""

from __future__ import annotations

import numpy as np

from search.core.attacks import bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks
from search.core.board import CASTLE, SIDE
from search.core.eval_terms import DISTANCE, NOT_A, NOT_H, flip
from search.core.jit import lsb, msb, njit, popcount

__all__ = ["N_FEATURES", "giraffe_eval", "giraffe_features", "giraffe_sizes", "n_weights", "scratch_slots"]

N_FEATURES = 363
N_GLOBAL, N_SIDE = 19, 108
PIECES = N_GLOBAL
"""First column of our piece-centric block (theirs follows at ``PIECES + N_SIDE``)."""
SQUARES = N_GLOBAL + 2 * N_SIDE
"""First column of our lowest attackers by square (theirs follows at ``SQUARES + 64``)."""
HEAD = 3
"""``wf``'s scale, clip and output bias come first."""

_U = np.uint64
LOWEST = np.array([0, 1, 3, 3, 5, 9, 10], dtype=np.float32) / np.float32(10)
"""A lowest attacker's column by piece type (pawn 1 ... king 10, over 10, in float32 as numpy divides them)."""

# Directions e, w, n, s, ne, nw, se, sw (organisms.giraffe.DIRECTIONS): rooks 0-3, bishops 4-7, the queen all 8.
_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))


def _rays() -> tuple[np.ndarray, np.ndarray]:
    rays = np.zeros((8, 64), np.uint64)
    lengths = np.zeros((8, 64), np.int64)
    for d, (df, dr) in enumerate(_STEPS):
        for s in range(64):
            f, r, n, mask = (s & 7) + df, (s >> 3) + dr, 0, 0
            while 0 <= f < 8 and 0 <= r < 8:
                mask |= 1 << (r * 8 + f)
                f, r, n = f + df, r + dr, n + 1
            rays[d, s], lengths[d, s] = mask, n
    return rays, lengths


RAYS, RAY_LENGTH = _rays()
RAY_UP = np.array([8 * dr + df > 0 for df, dr in _STEPS], dtype=np.bool_)
"""A ray runs towards higher squares (its first blocker is its lowest bit)."""


def giraffe_sizes(wi: np.ndarray) -> tuple[int, int]:
    """The lengths of ``wi`` and ``wf`` of a native Giraffe net whose ``wi`` is ``wi`` (module docstring); ``wf``'s
    length is -1 when ``wi`` is not five positive widths and a 0/1 flag."""
    if wi.size != 5 or min(int(v) for v in wi[:4]) < 1 or int(wi[4]) not in (0, 1):
        return 5, -1
    return 5, HEAD + (n_weights(*(int(v) for v in wi)) + 1) // 2


def n_weights(u0: int, u1: int, u2: int, hidden: int, linear: int) -> int:
    """The float32 weights of a Giraffe net of these widths, in ``wf``'s order (module docstring)."""
    return ((N_GLOBAL + 1) * u0 + (216 + 1) * u1 + (128 + 1) * u2 + (u0 + u1 + u2 + 1) * hidden + hidden
            + linear * N_FEATURES)


@njit(cache=True, inline="always")
def _f32(v):  # type: ignore[no-untyped-def]
    """``v`` rounded to float32 (as the Python features are stored), held as a float64."""
    return np.float64(np.float32(v))


@njit(cache=True)
def _type_attacks(p, n, b, r, q, k, occ, north):  # type: ignore[no-untyped-def]
    """A side's attacks by piece type (pawn ... king) and the squares it attacks twice or more
    (:func:`organisms.giraffe._type_attacks`)."""
    if north:
        left = (p << 7) & NOT_H
        right = (p << 9) & NOT_A
    else:
        left = (p >> 9) & NOT_H
        right = (p >> 7) & NOT_A
    once = left | right
    twice = left & right
    ap = once
    an = _U(0)
    while n:
        a = knight_attacks(lsb(n))
        n &= n - _U(1)
        twice |= once & a
        once |= a
        an |= a
    ab = _U(0)
    while b:
        a = bishop_attacks(lsb(b), occ)
        b &= b - _U(1)
        twice |= once & a
        once |= a
        ab |= a
    ar = _U(0)
    while r:
        a = rook_attacks(lsb(r), occ)
        r &= r - _U(1)
        twice |= once & a
        once |= a
        ar |= a
    aq = _U(0)
    while q:
        a = queen_attacks(lsb(q), occ)
        q &= q - _U(1)
        twice |= once & a
        once |= a
        aq |= a
    ak = king_attacks(lsb(k))
    twice |= once & ak
    return ap, an, ab, ar, aq, ak, twice


@njit(cache=True)
def _lowest(x, o, ap, an, ab, ar, aq, ak):  # type: ignore[no-untyped-def]
    """``x[o + s]``: the value of the lowest piece attacking square ``s`` (0 when none)."""
    left = ~_U(0)
    for t in range(1, 7):
        a = ap if t == 1 else (an if t == 2 else (ab if t == 3 else (ar if t == 4 else (aq if t == 5 else ak))))
        m = a & left
        left &= ~a
        v = np.float64(LOWEST[t])
        while m:
            x[o + lsb(m)] = v
            m &= m - _U(1)


@njit(cache=True, inline="always")
def _basic(x, o, s, opp_low, own_low):  # type: ignore[no-untyped-def]
    """A slot's exists, x, y, attacker and defender columns."""
    x[o] = 1.0
    x[o + 1] = _f32((s & 7) / 7)
    x[o + 2] = _f32((s >> 3) / 7)
    x[o + 3] = x[opp_low + s]
    x[o + 4] = x[own_low + s]


@njit(cache=True)
def _piece(x, o, s, kind, occ, mobile, opp_low, own_low):  # type: ignore[no-untyped-def]
    """A knight's (``kind`` 2), bishop's (3), rook's (4) or queen's (5) slot at ``x[o]``: the basic columns, the safe
    mobility (attacks within ``mobile``) over 16, then the free squares in each of its directions over 7."""
    _basic(x, o, s, opp_low, own_low)
    if kind == 2:
        a = knight_attacks(s)
        d0, d1 = 0, 0
    elif kind == 3:
        a = bishop_attacks(s, occ)
        d0, d1 = 4, 8
    elif kind == 4:
        a = rook_attacks(s, occ)
        d0, d1 = 0, 4
    else:
        a = queen_attacks(s, occ)
        d0, d1 = 0, 8
    x[o + 5] = _f32(popcount(a & mobile) / 16)
    for d in range(d0, d1):
        blockers = RAYS[d, s] & occ
        if blockers == 0:
            x[o + 6 + d - d0] = _f32(RAY_LENGTH[d, s] / 7)
        else:
            b = lsb(blockers) if RAY_UP[d] else msb(blockers)
            x[o + 6 + d - d0] = _f32((DISTANCE[s, b] - 1) / 7)


@njit(cache=True)
def _pair(x, o, width, pieces, kind, occ, mobile, opp_low, own_low):  # type: ignore[no-untyped-def]
    """The two slots of a side's knights (bishops, rooks) at ``x[o]`` and ``x[o + width]``
    (:func:`organisms.giraffe.pair_slots`)."""
    if pieces == 0:
        return
    a = lsb(pieces)
    rest = pieces & (pieces - _U(1))
    if rest == 0:
        _piece(x, o if (a & 7) < 4 else o + width, a, kind, occ, mobile, opp_low, own_low)
        return
    b = lsb(rest)
    if (a & 7) > (b & 7):
        a, b = b, a
    _piece(x, o, a, kind, occ, mobile, opp_low, own_low)
    _piece(x, o + width, b, kind, occ, mobile, opp_low, own_low)


@njit(cache=True)
def _side(x, o, p, n, b, r, q, k, own, own_twice, opp_all, opp_p, opp_n, opp_b, opp_r, occ,  # type: ignore[no-untyped-def]
          own_low, opp_low):
    """One side's 108 piece-centric columns from ``x[o]`` (:func:`organisms.giraffe._side`); ``own_low`` and
    ``opp_low`` are where the two sides' lowest attackers by square are in ``x``."""
    # Pawns: each to its file's slot, the rest (in square order) to the nearest free slot, the lower one on a tie.
    taken = 0
    placed = _U(0)
    m = p
    while m:
        s = lsb(m)
        m &= m - _U(1)
        f = s & 7
        if not (taken >> f) & 1:
            taken |= 1 << f
            placed |= _U(1) << _U(s)
            _basic(x, o + 5 * f, s, opp_low, own_low)
    m = p & ~placed
    while m:
        s = lsb(m)
        m &= m - _U(1)
        f = s & 7
        for d in range(8):
            g = f - d
            if g >= 0 and not (taken >> g) & 1:
                break
            g = f + d
            if g < 8 and not (taken >> g) & 1:
                break
        taken |= 1 << g
        _basic(x, o + 5 * g, s, opp_low, own_low)
    not_own = ~own
    free = ~opp_all
    _pair(x, o + 40, 6, n, 2, occ, not_own & (free | (own_twice & ~opp_p)), opp_low, own_low)
    _pair(x, o + 52, 10, b, 3, occ, not_own & (free | (own_twice & ~opp_p)), opp_low, own_low)
    _pair(x, o + 72, 10, r, 4, occ, not_own & (free | (own_twice & ~(opp_p | opp_n | opp_b))), opp_low, own_low)
    if q:
        _piece(x, o + 92, lsb(q), 5, occ, not_own & (free | (own_twice & ~(opp_p | opp_n | opp_b | opp_r))), opp_low,
               own_low)
    ks = lsb(k)
    x[o + 106] = x[opp_low + ks]
    x[o + 107] = x[own_low + ks]


@njit(cache=True)
def giraffe_features(bb, st, x):  # type: ignore[no-untyped-def]
    """Fill ``x`` (float64, at least :data:`N_FEATURES`) with the 363 Giraffe features of the position
    (:func:`organisms.giraffe.giraffe_features`, each value the float32 the Python side stores)."""
    for i in range(N_FEATURES):
        x[i] = 0.0
    white = st[SIDE] == 1
    us = 1 if white else 0
    them = 1 - us
    if white:
        p, n, b, r, q, k = bb[us, 1], bb[us, 2], bb[us, 3], bb[us, 4], bb[us, 5], bb[us, 6]
        tp, tn, tb, tr, tq, tk = bb[them, 1], bb[them, 2], bb[them, 3], bb[them, 4], bb[them, 5], bb[them, 6]
        own, opp = bb[us, 0], bb[them, 0]
        c_ours, c_theirs = st[CASTLE] & 3, (st[CASTLE] >> 2) & 3
    else:
        p, n, b, r, q, k = flip(bb[us, 1]), flip(bb[us, 2]), flip(bb[us, 3]), flip(bb[us, 4]), flip(bb[us, 5]), \
            flip(bb[us, 6])
        tp, tn, tb, tr, tq, tk = flip(bb[them, 1]), flip(bb[them, 2]), flip(bb[them, 3]), flip(bb[them, 4]), \
            flip(bb[them, 5]), flip(bb[them, 6])
        own, opp = flip(bb[us, 0]), flip(bb[them, 0])
        c_ours, c_theirs = (st[CASTLE] >> 2) & 3, st[CASTLE] & 3
    occ = own | opp
    ap, an, ab, ar, aq, ak, our_twice = _type_attacks(p, n, b, r, q, k, occ, True)
    tap, tan, tab, tar, taq, tak, their_twice = _type_attacks(tp, tn, tb, tr, tq, tk, occ, False)
    _lowest(x, SQUARES, ap, an, ab, ar, aq, ak)
    _lowest(x, SQUARES + 64, tap, tan, tab, tar, taq, tak)

    x[0], x[1], x[2], x[3], x[4] = popcount(q), popcount(r) / 2, popcount(b) / 2, popcount(n) / 2, popcount(p) / 8
    x[5], x[6], x[7], x[8], x[9] = popcount(tq), popcount(tr) / 2, popcount(tb) / 2, popcount(tn) / 2, \
        popcount(tp) / 8
    x[10] = 1.0 if white else 0.0
    x[11], x[12], x[13], x[14] = c_ours & 1, c_ours >> 1, c_theirs & 1, c_theirs >> 1
    ks, tks = lsb(k), lsb(tk)
    x[15], x[16] = _f32((ks & 7) / 7), _f32((ks >> 3) / 7)
    x[17], x[18] = _f32((tks & 7) / 7), _f32((tks >> 3) / 7)
    our_all = ap | an | ab | ar | aq | ak
    their_all = tap | tan | tab | tar | taq | tak
    _side(x, PIECES, p, n, b, r, q, k, own, our_twice, their_all, tap, tan, tab, tar, occ, SQUARES, SQUARES + 64)
    _side(x, PIECES + N_SIDE, tp, tn, tb, tr, tq, tk, opp, their_twice, our_all, ap, an, ab, ar, occ, SQUARES + 64,
          SQUARES)


@njit(cache=True, fastmath={"contract", "reassoc"})
def _layer(x, lo, hi, w, o, h, c, u):  # type: ignore[no-untyped-def]
    """``h[c:c + u] = relu(x[lo:hi] @ W + b)`` in float32, ``W`` ((hi - lo) x u, row-major) at ``w[o]`` and ``b``
    after it; returns the offset after ``b``. Zero inputs are skipped; the inner loops run over units with unsigned
    indices (numba then has no negative index to wrap, and LLVM vectorises them: 7x faster), and LLVM may fuse and
    reorder the float32 sums (5% faster alone; the net is within a centipawn of numpy's either way)."""
    cu = np.uint64(c)
    uu = np.uint64(u)
    for j in range(uu):
        h[cu + j] = 0.0
    for i in range(lo, hi):
        xi = x[i]
        if xi != 0.0:
            row = np.uint64(o + (i - lo) * u)
            for j in range(uu):
                h[cu + j] += xi * w[row + j]
    bias = np.uint64(o + (hi - lo) * u)
    for j in range(uu):
        v = h[cu + j] + w[bias + j]
        h[cu + j] = v if v > 0.0 else np.float32(0.0)
    return o + (hi - lo) * u + u


@njit(cache=True)
def forward(x, wi, w, h, g):  # type: ignore[no-untyped-def]
    """The net's output (output units, without its bias) of the features ``x`` (float32), the weights ``w`` (the
    float32 view of ``wf`` from :data:`HEAD` on); ``h`` and ``g`` are float32 scratch of at least the first layer's
    units and the hidden layer's (three arrays: a layer reading and writing one kept LLVM from vectorising it)."""
    u0, u1, u2, hidden = wi[0], wi[1], wi[2], wi[3]
    units = u0 + u1 + u2
    o = _layer(x, 0, N_GLOBAL, w, 0, h, 0, u0)
    o = _layer(x, N_GLOBAL, SQUARES, w, o, h, u0, u1)
    o = _layer(x, SQUARES, N_FEATURES, w, o, h, u0 + u1, u2)
    o = _layer(h, 0, units, w, o, g, 0, hidden)
    out = 0.0
    for j in range(hidden):
        out += np.float64(g[j]) * np.float64(w[o + j])
    if wi[4] != 0:
        o += hidden
        for i in range(N_FEATURES):
            out += np.float64(x[i]) * np.float64(w[o + i])
    return out


def scratch_slots(wi: np.ndarray) -> int:
    """The float64 slots :func:`search.core.evaluate.native_args` appends to ``wf`` as the evaluation's scratch (the
    features, the first layer's and the hidden layer's units in float32): an evaluation then allocates nothing."""
    return (N_FEATURES + int(wi[0]) + int(wi[1]) + int(wi[2]) + int(wi[3]) + 1) // 2 + 1


@njit(cache=True)
def giraffe_eval(bb, st, wi, wf):  # type: ignore[no-untyped-def]
    """Centipawns from the side to move's view by the native Giraffe net ``wi``/``wf`` (module docstring; ``wf``
    with :func:`scratch_slots` appended): the output times the scale, clipped, rounded half to even."""
    w = wf[HEAD:].view(np.float32)
    units = wi[0] + wi[1] + wi[2]
    s = w.size - 2 - (N_FEATURES + units + wi[3])  # the scratch at the end, rounded down to an even float32
    s -= s & 1
    x = w[s:s + N_FEATURES]
    h = w[s + N_FEATURES:s + N_FEATURES + units]
    g = w[s + N_FEATURES + units:s + N_FEATURES + units + wi[3]]
    giraffe_features(bb, st, x)
    v = (forward(x, wi, w, h, g) + wf[2]) * wf[0]
    limit = wf[1]
    v = min(max(v, -limit), limit)
    return np.int64(np.rint(v))
