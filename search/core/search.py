"""The compiled search: today's depth-limited alpha-beta (:mod:`search.engine`, :mod:`search.root`) in numba.

Feature for feature as :class:`search.engine.Engine`, with its constants: fail-soft principal-variation search,
mate-distance pruning, draws by the search's rules (:func:`search.core.movegen.is_draw`: a repetition since the last
irreversible or null move, the 50-move rule unless it is mate, material that cannot mate), check extensions, the
transposition table (:mod:`search.core.tt`, mate scores relative to the node), null-move pruning (R = 2, 3 from
depth 6), late-move reductions (today's table), the TT move searched first, then :mod:`search.core.order`'s order
(MVV-LVA, killers, history), and quiescence (stand pat, captures and queen promotions with delta pruning; every
evasion in check in its first :data:`search.engine.QS_EVASION_PLIES` plies). :func:`search_root` is one pass of the
root loop (:meth:`search.root.RootSearch._search_root`); iterative deepening and aspiration windows are the Python
driver's (:mod:`search.core.engine`), one call per pass, never per node. An incremental evaluator (the perspective
net) is refreshed at the start of every pass and told of every move just before it is made
(:func:`search.core.evaluate.follow_move`); unmaking needs nothing.

Nodes are counted as today's engine counts them, so a node limit means the same thing: one per pass over the root,
one per node of the tree (a node at the horizon once more when it opens its quiescence search) and one per
quiescence node. The search state is ``ss`` (``int64``, the slots below), shared with the driver, which may raise
``ss[STOP]`` (the caller's stop flag) or ``ss[TIMEUP]`` (the hard time budget) from another thread while a pass runs
(the search releases the GIL): both are read every :data:`POLL_EVERY` nodes and exactly at a node limit; a node limit
or the clock never cuts the first iteration (the clock does once a root move has a score), the stop flag does.
A pass cut short sets ``ss[ABORT]`` and returns at once (every move unmade). Scores: centipawns from the side to
move's view; mates ``±(MATE - plies from the root)``.

:func:`negamax` and :func:`quiesce` are recursive. numba loads a cached caller of a recursive function safely only
when every call passes the same argument types (numba issues 6061 and 6713: a literal ``True`` or ``0`` beside an
``int64`` makes a second signature, and the cached code then segfaults): every call passes ``int64`` values, flags
included (``np.int64(1)``, never a bare literal).
"""

from __future__ import annotations

import math

import numpy as np

from search.conventions import INFINITE, MATE, MATE_BOUND
from search.core.board import KIDX, SIDE, make_move, make_null, unmake_move, unmake_null
from search.core.evaluate import evaluate, follow_move, follow_null, refresh
from search.core.jit import njit, raw_view
from search.core.movegen import gen_captures, gen_moves, in_check, is_draw
from search.core.order import TAKEN, is_capture, pick, reward, score_evasions, score_quiescence, score_tree
from search.core.tt import D_DEPTH, D_FLAG, D_MOVE, D_SCORE, EXACT, LOWER, UPPER, tt_probe, tt_store
from search.engine import QS_EVASION_PLIES
from search.ordering import CAPTURE, KILLER_2
from search.root import MAX_PLY

__all__ = ["EVAL_SLOTS", "MAX_MOVES", "POLL_EVERY", "SS_SIZE", "search_root"]

POLL_EVERY = 1024
"""Nodes between looks at the stop flag, the clock's flag and the node limit (exact at the limit)."""
MAX_MOVES = 256
"""Room for the moves of one position."""
EVAL_SLOTS = 1 << 18
"""Slots of the evaluation cache (:data:`search.evaluation.EVAL_CACHE_SLOTS`), indexed by the key's low bits."""

# Slots of the search state ``ss``.
NODES, NEXT_CHECK, NODE_LIMIT, STOP, TIMEUP, ABORT, ABORTABLE, SELDEPTH = 0, 1, 2, 3, 4, 5, 6, 7
ROOT_BEST, ROOT_BEST_SCORE, AGE, NULL_MIN, LMR_MIN, DELTA, TT_CUTOFFS, USE_TT, KIND = 8, 9, 10, 11, 12, 13, 14, 15, 16
SS_SIZE = 17

LMR = np.zeros((MAX_PLY + 2, 64), dtype=np.int64)
"""Late-move reduction in plies by remaining depth and move number (:mod:`search.engine`'s table)."""
for _d in range(1, MAX_PLY + 2):
    for _i in range(1, 64):
        LMR[_d, _i] = int(0.6 + math.log(_d) * math.log(_i) / 2.2)

_PV_ROWS = MAX_PLY + 3
ROOT_PV = MAX_PLY + 2
"""The row of ``pv`` keeping the principal variation of the root's best move proved so far (for a cut pass)."""


@njit(cache=True, inline="always")
def _to_tt(score, ply):  # type: ignore[no-untyped-def]
    return score + ply if score >= MATE_BOUND else (score - ply if score <= -MATE_BOUND else score)


@njit(cache=True, inline="always")
def _from_tt(stored, ply):  # type: ignore[no-untyped-def]
    return stored - ply if stored >= MATE_BOUND else (stored + ply if stored <= -MATE_BOUND else stored)


@njit(cache=True)
def _checkpoint(ss):  # type: ignore[no-untyped-def]
    """Every :data:`POLL_EVERY` nodes and at the node limit: set ``ss[ABORT]`` when the search must end."""
    nodes = ss[NODES]
    if ss[STOP] != 0 or (ss[ABORTABLE] != 0 and nodes >= ss[NODE_LIMIT]) or (
            ss[TIMEUP] != 0 and (ss[ABORTABLE] != 0 or ss[ROOT_BEST] != 0)):
        ss[ABORT] = 1
        return True
    ss[NEXT_CHECK] = min(nodes + POLL_EVERY, max(ss[NODE_LIMIT], nodes + 1))
    return False


@njit(cache=True, inline="always")
def _visit(ss, pv, ply):  # type: ignore[no-untyped-def]
    """Count a node ``ply`` plies from the root and empty its principal variation; True when the search must end."""
    ss[NODES] += 1
    pv[ply, 0] = 0
    if ss[NODES] >= ss[NEXT_CHECK]:
        return _checkpoint(ss)
    return False


@njit(cache=True, inline="always")
def _pv_update(pv, ply, m):  # type: ignore[no-untyped-def]
    """The principal variation of ``ply``: ``m`` then the child's."""
    n = pv[ply + 1, 0]
    pv[ply, 1] = m
    for i in range(n):
        pv[ply, 2 + i] = pv[ply + 1, 1 + i]
    pv[ply, 0] = n + 1


@njit(cache=True)
def static_eval(bb, mb, st, ss, ek, ev, wi, wf, key):  # type: ignore[no-untyped-def]
    """The evaluator's score of the position (``key`` its key), cached, clamped inside the mate band."""
    slot = np.int64(key & np.uint64(EVAL_SLOTS - 1))
    if ek[slot] == key:
        return np.int64(ev[slot])
    v = np.int64(evaluate(bb, mb, st, ss[KIND], wi, wf))
    if v >= MATE_BOUND:
        v = np.int64(MATE_BOUND - 1)
    elif v <= -MATE_BOUND:
        v = np.int64(1 - MATE_BOUND)
    ek[slot] = key
    ev[slot] = v
    return v


@njit(cache=True)
def quiesce(  # type: ignore[no-untyped-def]
        bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
        alpha, beta, ply, qply):
    """The quiescence score of the position, ``ply`` plies from the root, ``qply`` of them in quiescence; fail-soft
    (:meth:`search.engine.Engine._quiesce`). Nothing goes through the table."""
    if _visit(ss, pv, ply):
        return 0
    if ply > ss[SELDEPTH]:
        ss[SELDEPTH] = ply
    key = keys[st[KIDX]]
    if ply >= MAX_PLY:
        return static_eval(bb, mb, st, ss, ek, ev, wi, wf, key)
    mv = moves[ply]
    sc = scores[ply]
    if qply < QS_EVASION_PLIES and in_check(bb, st):
        n = gen_moves(bb, mb, st, mv)
        if n == 0:
            return ply - MATE
        score_evasions(mb, mv, sc, n)
        best = -INFINITE
    else:
        stand = static_eval(bb, mb, st, ss, ek, ev, wi, wf, key)
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        n = gen_captures(bb, mb, st, mv)
        n = score_quiescence(mb, st, mv, sc, n, alpha - stand - ss[DELTA])
        if n == 0:
            return best
    for _ in range(n):
        j = pick(sc, n)
        m = mv[j]
        sc[j] = TAKEN
        follow_move(mb, st, m, ss[KIND], wi)
        make_move(bb, mb, st, keys, undo, m)
        score = -quiesce(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
                         -beta, -alpha, ply + 1, qply + 1)
        unmake_move(bb, mb, st, keys, undo, m)
        if ss[ABORT] != 0:
            return 0
        if score > best:
            best = score
            if score > alpha:
                if score >= beta:
                    return score
                alpha = score
    return best


@njit(cache=True)
def negamax(  # type: ignore[no-untyped-def]
        bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
        depth, alpha, beta, ply, null_ok):
    """The score of the position searched ``depth`` plies deep, ``ply`` plies from the root; fail-soft PVS
    (:meth:`search.engine.Engine._negamax`: its pruning, extensions, table and order, in its order)."""
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
    checked = in_check(bb, st)
    if checked:
        depth += 1
    if depth <= 0:
        return quiesce(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
                       alpha, beta, ply, np.int64(0))
    pv_node = beta - alpha > 1
    tt_move = 0
    if ss[USE_TT] != 0:
        e = tt_probe(ttk, ttd, key)
        if e >= 0:
            tt_move = ttd[e, D_MOVE]
            if not pv_node and ttd[e, D_DEPTH] >= depth and ss[TT_CUTOFFS] != 0:
                s = _from_tt(np.int64(ttd[e, D_SCORE]), ply)
                flag = ttd[e, D_FLAG]
                if flag == EXACT or (flag == LOWER and s >= beta) or (flag == UPPER and s <= alpha):
                    return s
    side = st[SIDE]
    if (null_ok != 0 and not pv_node and not checked and depth >= ss[NULL_MIN] and -MATE_BOUND < beta < MATE_BOUND
            and (bb[side, 0] & ~bb[side, 1] & ~bb[side, 6]) != 0
            and static_eval(bb, mb, st, ss, ek, ev, wi, wf, key) >= beta):
        r = 3 if depth >= 6 else 2
        follow_null(st, ss[KIND], wi)
        make_null(bb, mb, st, keys, undo)
        score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
                         depth - 1 - r, -beta, 1 - beta, ply + 1, np.int64(0))
        unmake_null(bb, mb, st, keys, undo)
        if ss[ABORT] != 0:
            return 0
        if score >= beta:
            return beta if score >= MATE_BOUND else score

    alpha0 = alpha
    best = -INFINITE
    best_move = 0
    mv = moves[ply]
    sc = scores[ply]
    n = gen_moves(bb, mb, st, mv)
    searched = 0
    if tt_move != 0:
        for i in range(n):
            if mv[i] == tt_move:
                searched = 1
                break
    if searched:  # the TT move first (today's engine searches it before generating the others)
        follow_move(mb, st, tt_move, ss[KIND], wi)
        make_move(bb, mb, st, keys, undo, tt_move)
        score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
                         depth - 1, -beta, -alpha, ply + 1, np.int64(1))
        unmake_move(bb, mb, st, keys, undo, tt_move)
        if ss[ABORT] != 0:
            return 0
        best = score
        best_move = tt_move
        if score > alpha:
            if pv_node:
                _pv_update(pv, ply, tt_move)
            if score >= beta:
                if not is_capture(mb, st, tt_move):
                    reward(history[side], killers, ply, tt_move, depth)
                if ss[USE_TT] != 0:
                    tt_store(ttk, ttd, key, depth, LOWER, _to_tt(score, ply), tt_move, ss[AGE])
                return score
            alpha = score
    if n == 0:
        return ply - MATE if checked else 0

    score_tree(mb, st, mv, sc, n, tt_move, killers[ply, 0], killers[ply, 1], history[side], False)
    if searched:
        sc[pick(sc, n)] = TAKEN  # the TT move ranks first
    lmr_ok = depth >= ss[LMR_MIN] and not checked
    lmr_row = min(depth, MAX_PLY + 1)
    for _ in range(n - searched):
        j = pick(sc, n)
        m = mv[j]
        s = sc[j]
        sc[j] = TAKEN
        follow_move(mb, st, m, ss[KIND], wi)
        make_move(bb, mb, st, keys, undo, m)
        if searched == 0:
            score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                             wf, depth - 1, -beta, -alpha, ply + 1, np.int64(1))
        else:
            r = 0
            if lmr_ok and searched >= 3 and 0 <= s < KILLER_2 and not in_check(bb, st):
                r = LMR[lmr_row, min(searched, 63)]
                if pv_node and r:
                    r -= 1
                if r >= depth - 1:
                    r = depth - 2
            score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                             wf, depth - 1 - r, -alpha - 1, -alpha, ply + 1, np.int64(1))
            if ss[ABORT] == 0 and score > alpha and r:
                score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev,
                                 wi, wf, depth - 1, -alpha - 1, -alpha, ply + 1, np.int64(1))
            if ss[ABORT] == 0 and alpha < score < beta:
                score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev,
                                 wi, wf, depth - 1, -beta, -alpha, ply + 1, np.int64(1))
        unmake_move(bb, mb, st, keys, undo, m)
        if ss[ABORT] != 0:
            return 0
        searched += 1
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                if pv_node:
                    _pv_update(pv, ply, m)
                if score >= beta:
                    if s < CAPTURE:
                        reward(history[side], killers, ply, m, depth)
                    break
                alpha = score

    if ss[USE_TT] != 0:
        flag = LOWER if best >= beta else (EXACT if best > alpha0 else UPPER)
        tt_store(ttk, ttd, key, depth, flag, _to_tt(best, ply), best_move if best > alpha0 else tt_move, ss[AGE])
    return best


@njit(cache=True, nogil=True)
def search_root(  # type: ignore[no-untyped-def]
        bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi, wf,
        root, n, depth, alpha, beta):
    """One pass of iteration ``depth`` over the ``n`` root moves ``root`` within ``(alpha, beta)``
    (:meth:`search.root.RootSearch._search_root`); fail-soft, the root side to move's view.

    The first move with the full window, the others with a null window and again with the full one when they land
    inside it. The best move goes to the front of ``root`` and into the table (its score as it is, depth ``depth``);
    ``ss[ROOT_BEST]``/``ss[ROOT_BEST_SCORE]`` and ``pv[ROOT_PV]`` keep the best move proved above alpha. A pass cut
    short (``ss[ABORT]``) returns 0 with ``root`` unchanged. The tree below gets raw views of the arrays
    (:func:`search.core.jit.raw_view`: no reference counts on the millions of calls)."""
    bb, mb, st, keys, undo, ss = raw_view(bb), raw_view(mb), raw_view(st), raw_view(keys), raw_view(undo), raw_view(ss)
    killers, history, pv, moves, scores = raw_view(killers), raw_view(history), raw_view(pv), raw_view(moves), \
        raw_view(scores)
    ttk, ttd, ek, ev, wi, wf, root = raw_view(ttk), raw_view(ttd), raw_view(ek), raw_view(ev), raw_view(wi), \
        raw_view(wf), raw_view(root)
    key = keys[st[KIDX]]
    refresh(bb, st, ss[KIND], wi)
    ss[NODES] += 1
    pv[0, 0] = 0
    ss[ROOT_BEST] = 0
    ss[ROOT_BEST_SCORE] = -INFINITE
    pv[ROOT_PV, 0] = 0
    best = -INFINITE
    best_i = 0
    for i in range(n):
        m = root[i]
        follow_move(mb, st, m, ss[KIND], wi)
        make_move(bb, mb, st, keys, undo, m)
        if i == 0:
            score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                             wf, depth - 1, -beta, -alpha, np.int64(1), np.int64(1))
        else:
            score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev, wi,
                             wf, depth - 1, -alpha - 1, -alpha, np.int64(1), np.int64(1))
            if ss[ABORT] == 0 and alpha < score < beta:
                score = -negamax(bb, mb, st, keys, undo, ss, killers, history, pv, moves, scores, ttk, ttd, ek, ev,
                                 wi, wf, depth - 1, -beta, -alpha, np.int64(1), np.int64(1))
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
        tt_store(ttk, ttd, key, depth, flag, best, root[0], ss[AGE])
    return best
