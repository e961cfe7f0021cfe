"""Giraffe's probability-limited search compiled: :class:`search.prob.ProbEngine`'s tree in numba (issue 63).

:func:`prob_node` is :meth:`search.prob.ProbEngine._prob` node for node: a node is opened as the depth-limited search
opens it (counted, draws, :data:`search.root.MAX_PLY`, mate-distance pruning), a node whose probability ``p`` is below
the iteration's threshold (times ``1 - TIE``) is a leaf scored by the compiled quiescence search
(:func:`search.core.search.quiesce`) unless its side is in check (then ``p`` is raised to the threshold), the table is
probed and stored with the node's budget level (``floor(LEVELS_PER_OCTAVE * log2(p / threshold))``, 0 at or below
the threshold) in its depth field, and every legal move is searched, in the compiled search's order (TT move, MVV-LVA,
killers, history), with ``p`` times its probability. Probabilities are heuristic (:func:`move_weights`: hash move,
SEE of captures and promotions, killers, quiet moves; :mod:`search.prob`'s weights) or uniform (``pf[UNIFORM]``),
each weight over their sum, in float64 as Python computes them. No null move, no late-move reductions; fail-soft PVS.
:func:`prob_root` is one pass over the root (:meth:`search.root.RootSearch._search_root` with
:meth:`search.prob.ProbEngine._begin_root`'s root probabilities). An incremental evaluator (the perspective net) is
refreshed at the root and told of every move before it is made, as in :mod:`search.core.search`.

``pf`` (float64, :data:`PF_SIZE`) holds the iteration's threshold, the floor ``threshold * (1 - TIE)`` and the
uniform flag; ``probs`` (float64,
``(MAX_PLY + 2, MAX_MOVES)``) the probabilities of each ply's moves, ``gains`` SEE's scratch. Every call of the
recursive :func:`prob_node` passes the same types (``p`` float64, the rest int64): see :mod:`search.core.search`.
"""

from __future__ import annotations

import math

import numpy as np

from search.conventions import INFINITE, MATE
from search.core.board import KIDX, SIDE, make_move, unmake_move
from search.core.evaluate import follow_move, refresh
from search.core.jit import njit, raw_view
from search.core.movegen import gen_moves, in_check, is_draw
from search.core.order import TAKEN, is_capture, pick, reward, score_tree
from search.core.search import (
    ABORT,
    AGE,
    KIND,
    NODES,
    ROOT_BEST,
    ROOT_BEST_SCORE,
    ROOT_PV,
    TT_CUTOFFS,
    USE_TT,
    _from_tt,
    _pv_update,
    _to_tt,
    _visit,
    quiesce,
    static_eval,
)
from search.core.see import see_into
from search.core.tt import D_DEPTH, D_FLAG, D_MOVE, D_SCORE, EXACT, LOWER, UPPER, tt_probe, tt_store
from search.prob import (
    EVEN_WEIGHT,
    HASH_WEIGHT,
    KILLER_WEIGHT,
    LEVELS_PER_OCTAVE,
    LOSING_WEIGHT,
    QUIET_WEIGHT,
    WINNING_WEIGHT,
)
from search.root import MAX_PLY

__all__ = ["FLOOR", "PF_SIZE", "THRESHOLD", "UNIFORM", "move_weights", "prob_root"]

THRESHOLD, FLOOR, UNIFORM = 0, 1, 2
"""Slots of ``pf``: the iteration's threshold, the floor below which a node is a leaf, and 1.0 when the
probabilities are uniform (0.0: heuristic)."""
PF_SIZE = 3


@njit(cache=True, inline="always")
def _level(p, threshold):  # type: ignore[no-untyped-def]
    """The table level of a node expanded with probability ``p`` (:meth:`search.prob.ProbEngine._level`)."""
    r = p / threshold
    return np.int64(LEVELS_PER_OCTAVE * math.log2(r)) if r > 1.0 else np.int64(0)


@njit(cache=True)
def move_weights(bb, mb, st, pf, mv, pr, n, tt_move, k1, k2, gains):  # type: ignore[no-untyped-def]
    """``pr[:n]``: the probabilities of the ``n`` moves ``mv`` (:func:`search.prob.move_weights` over their sum, or
    ``1 / n`` each when ``pf[UNIFORM]``)."""
    if pf[UNIFORM] != 0.0:
        for i in range(n):
            pr[i] = 1.0 / n
        return
    total = 0.0
    for i in range(n):
        m = mv[i]
        if m == tt_move:
            w = HASH_WEIGHT
        elif is_capture(mb, st, m) or (m >> 12) & 7 != 0:
            gain = see_into(bb, mb, st, m, gains)
            w = WINNING_WEIGHT if gain > 0 else (EVEN_WEIGHT if gain == 0 else LOSING_WEIGHT)
        elif m in (k1, k2):
            w = KILLER_WEIGHT
        else:
            w = QUIET_WEIGHT
        pr[i] = w
        total += w
    for i in range(n):
        pr[i] = pr[i] / total


@njit(cache=True)
def prob_node(  # type: ignore[no-untyped-def]
        bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf, probs, gains, pf,
        p, alpha, beta, ply):
    """The score of the position searched with probability ``p``, ``ply`` plies from the root; fail-soft
    (:meth:`search.prob.ProbEngine._prob`)."""
    if _visit(ss, pv, ply):
        return 0
    key = keys[st[KIDX]]
    if is_draw(bb, mb, st, keys):
        return 0
    if ply >= MAX_PLY:
        return static_eval(bb, mb, st, ss, ek, ev, wi, wf, key)
    alpha = max(alpha, ply - MATE)
    beta = min(beta, MATE - ply - 1)
    if alpha >= beta:
        return alpha
    threshold = pf[THRESHOLD]
    checked = in_check(bb, st)
    if p < pf[FLOOR]:
        if not checked:  # a leaf (counted twice, as the depth-limited search counts its leaves)
            return quiesce(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
                           alpha, beta, ply, np.int64(0))
        p = threshold
    level = _level(p, threshold)
    pv_node = beta - alpha > 1
    tt_move = 0
    if ss[USE_TT] != 0:
        e = tt_probe(ttk, ttd, key)
        if e >= 0:
            tt_move = ttd[e, D_MOVE]
            if not pv_node and ttd[e, D_DEPTH] >= level and ss[TT_CUTOFFS] != 0:
                s = _from_tt(np.int64(ttd[e, D_SCORE]), ply)
                flag = ttd[e, D_FLAG]
                if flag == EXACT or (flag == LOWER and s >= beta) or (flag == UPPER and s <= alpha):
                    return s
    mv = moves[ply]
    sc = scores[ply]
    pr = probs[ply]
    n = gen_moves(bb, mb, st, mv)
    if n == 0:
        return ply - MATE if checked else 0
    side = st[SIDE]
    move_weights(bb, mb, st, pf, mv, pr, n, tt_move, killers[ply, 0], killers[ply, 1], gains)
    score_tree(mb, st, mv, sc, n, tt_move, killers[ply, 0], killers[ply, 1], history[side], False)

    alpha0 = alpha
    best = -INFINITE
    best_move = 0
    for k in range(n):
        j = pick(sc, n)
        m = mv[j]
        sc[j] = TAKEN
        child = p * pr[j]
        follow_move(mb, st, m, ss[KIND], wi)
        make_move(bb, mb, st, keys, undo, m)
        if k == 0:
            score = -prob_node(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                               wf, probs, gains, pf, child, -beta, -alpha, ply + 1)
        else:
            score = -prob_node(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                               wf, probs, gains, pf, child, -alpha - 1, -alpha, ply + 1)
            if ss[ABORT] == 0 and alpha < score < beta:
                score = -prob_node(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev,
                                   wi, wf, probs, gains, pf, child, -beta, -alpha, ply + 1)
        unmake_move(bb, mb, st, keys, undo, m)
        if ss[ABORT] != 0:
            return 0
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                if pv_node:
                    _pv_update(pv, ply, m)
                if score >= beta:
                    if (m >> 12) & 7 == 0 and not is_capture(mb, st, m):
                        reward(history[side], killers, ply, m, 1 + level // LEVELS_PER_OCTAVE)
                    break
                alpha = score
    if ss[USE_TT] != 0:
        flag = LOWER if best >= beta else (EXACT if best > alpha0 else UPPER)
        tt_store(ttk, ttd, key, level, flag, _to_tt(best, ply), best_move if best > alpha0 else tt_move, ss[AGE])
    return best


@njit(cache=True, nogil=True)
def prob_root(  # type: ignore[no-untyped-def]
        bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf, probs, gains, pf,
        root, n, alpha, beta):
    """One pass of an iteration (threshold ``pf[THRESHOLD]``) over the ``n`` root moves ``root`` within
    ``(alpha, beta)``: :func:`search.core.search.search_root` with the root's moves searched with their probabilities
    (the hash move and ply 0's killers weighted as at any node). The table holds the root's level
    (:func:`_level` of 1) with its result."""
    bb, mb, st, keys, undo, ss = raw_view(bb), raw_view(mb), raw_view(st), raw_view(keys), raw_view(undo), raw_view(ss)
    killers, history, pv, moves, scores = raw_view(killers), raw_view(history), raw_view(pv), raw_view(moves), \
        raw_view(scores)
    ttk, ttd, ek, ev, wi, wf, root = raw_view(ttk), raw_view(ttd), raw_view(ek), raw_view(ev), raw_view(wi), \
        raw_view(wf), raw_view(root)
    probs, gains, pf = raw_view(probs), raw_view(gains), raw_view(pf)
    key = keys[st[KIDX]]
    refresh(bb, st, ss[KIND], wi)
    ss[NODES] += 1
    pv[0, 0] = 0
    ss[ROOT_BEST] = 0
    ss[ROOT_BEST_SCORE] = -INFINITE
    pv[ROOT_PV, 0] = 0
    tt_move = 0
    if ss[USE_TT] != 0:
        e = tt_probe(ttk, ttd, key)
        if e >= 0:
            tt_move = ttd[e, D_MOVE]
    rp = probs[MAX_PLY + 1]
    move_weights(bb, mb, st, pf, root, rp, n, tt_move, killers[0, 0], killers[0, 1], gains)
    best = -INFINITE
    best_i = 0
    for i in range(n):
        m = root[i]
        follow_move(mb, st, m, ss[KIND], wi)
        make_move(bb, mb, st, keys, undo, m)
        if i == 0:
            score = -prob_node(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                               wf, probs, gains, pf, rp[i], -beta, -alpha, np.int64(1))
        else:
            score = -prob_node(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                               wf, probs, gains, pf, rp[i], -alpha - 1, -alpha, np.int64(1))
            if ss[ABORT] == 0 and alpha < score < beta:
                score = -prob_node(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev,
                                   wi, wf, probs, gains, pf, rp[i], -beta, -alpha, np.int64(1))
        unmake_move(bb, mb, st, keys, undo, m)
        if ss[ABORT] != 0:
            return 0
        if score > best:
            best = score
            best_i = i
            if score > alpha:
                _pv_update(pv, 0, m)
                ss[ROOT_BEST] = m
                ss[ROOT_BEST_SCORE] = score
                pv[ROOT_PV, : pv[0, 0] + 1] = pv[0, : pv[0, 0] + 1]
                if score >= beta:
                    break
                alpha = score
    if best_i:
        m = root[best_i]
        for i in range(best_i, 0, -1):
            root[i] = root[i - 1]
        root[0] = m
    if ss[USE_TT] != 0:
        flag = LOWER if best >= beta else (EXACT if ss[ROOT_BEST] != 0 else UPPER)
        tt_store(ttk, ttd, key, _level(1.0, pf[THRESHOLD]), flag, best, root[0], ss[AGE])
    return best
