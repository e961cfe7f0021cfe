"""Move ordering in the compiled search: :mod:`search.ordering`'s ranks and rules on packed moves, in numba.

The ranks are :mod:`search.ordering`'s constants (the one home of them): the transposition-table move, captures by
MVV-LVA (en passant as a pawn taking a pawn), a queen promotion, the two killers of the ply, quiet moves by history,
under-promotions last. :func:`score_tree` scores a node's moves, :func:`score_quiescence` the quiescence moves
(:func:`search.ordering.capture_order`'s: queen promotions, then captures by MVV-LVA, delta pruning) and
:func:`score_evasions` a side in check's (:func:`search.ordering.evasion_order`'s). :func:`pick` takes the best
remaining move, the first of equals, so moves of equal rank keep the order they were generated in (the stable sort
of :mod:`search.ordering`); :func:`reward` is :func:`search.ordering.reward`. Scores are ranks, not centipawns.

Moves are packed as :mod:`search.core.movegen` packs them (from | to << 6 | promotion << 12 | flags); a move is a
capture when its target square holds a piece, en passant when a pawn moves to the en-passant square.
"""

from __future__ import annotations

import numpy as np

from search.conventions import PIECE_VALUES
from search.core.board import EP
from search.core.jit import njit
from search.ordering import (
    CAPTURE,
    HISTORY_MAX,
    KILLER_1,
    KILLER_2,
    QS_QUEEN_PROMOTION,
    QUEEN_PROMOTION,
    TT_MOVE,
    UNDER_PROMOTION,
)

__all__ = ["TAKEN", "m_from", "m_promo", "m_to", "pick", "reward", "score_evasions", "score_quiescence",
           "score_tree"]

TAKEN = -(1 << 62)
"""The score of a move already searched (below every rank)."""
_VALUES = np.array(PIECE_VALUES, dtype=np.int64)
_PAWN, _QUEEN = 1, 5
_EP_RANK = 1 * 16 - 1  # mvv_lva of a pawn taking a pawn


@njit(cache=True, inline="always")
def m_from(m):  # type: ignore[no-untyped-def]
    return np.int64(m) & 63


@njit(cache=True, inline="always")
def m_to(m):  # type: ignore[no-untyped-def]
    return (np.int64(m) >> 6) & 63


@njit(cache=True, inline="always")
def m_promo(m):  # type: ignore[no-untyped-def]
    return (np.int64(m) >> 12) & 7


@njit(cache=True, inline="always")
def is_capture(mb, st, m):  # type: ignore[no-untyped-def]
    """Whether ``m`` takes a piece, en passant included."""
    to = m_to(m)
    return mb[to] != 0 or (to == st[EP] and (mb[m_from(m)] & 7) == _PAWN)


@njit(cache=True)
def score_tree(mb, st, mv, sc, n, tt_move, k1, k2, hist, root):  # type: ignore[no-untyped-def]
    """Rank the ``n`` moves ``mv`` into ``sc`` (:func:`search.ordering.order_moves`): ``k1``/``k2`` the ply's killers
    (0 for none), ``hist`` the side to move's history row; ``root`` ranks under-promotions with the queen's."""
    ep = st[EP]
    for i in range(n):
        m = mv[i]
        fr, to, promo = m_from(m), m_to(m), m_promo(m)
        if m == tt_move:
            s = TT_MOVE
        elif mb[to] != 0:
            s = CAPTURE + (mb[to] & 7) * 16 - (mb[fr] & 7)
        elif promo != 0:
            s = QUEEN_PROMOTION + promo if promo == _QUEEN or root else UNDER_PROMOTION
        elif to == ep and (mb[fr] & 7) == _PAWN:
            s = CAPTURE + _EP_RANK
        elif m == k1:
            s = KILLER_1
        elif m == k2:
            s = KILLER_2
        else:
            s = hist[(fr << 6) | to]
        sc[i] = s


@njit(cache=True)
def score_quiescence(mb, st, mv, sc, n, futile):  # type: ignore[no-untyped-def]
    """Keep, ranked, the quiescence moves among the ``n`` legal moves ``mv`` (compacted to the front; their number is
    returned): captures by MVV-LVA (en passant as a pawn taken) unless the victim is worth less than ``futile``
    centipawns and the move does not promote (delta pruning), and queen promotions that take nothing
    (:data:`search.ordering.QS_QUEEN_PROMOTION`)."""
    ep = st[EP]
    k = 0
    for i in range(n):
        m = mv[i]
        fr, to, promo = m_from(m), m_to(m), m_promo(m)
        victim = mb[to] & 7
        if victim == 0 and to == ep and (mb[fr] & 7) == _PAWN:
            victim = _PAWN
        if victim != 0:
            if _VALUES[victim] < futile and promo == 0:
                continue
            s = victim * 16 - (mb[fr] & 7)
        elif promo == _QUEEN:
            s = QS_QUEEN_PROMOTION
        else:
            continue
        mv[k] = m
        sc[k] = s
        k += 1
    return k


@njit(cache=True)
def score_evasions(mb, mv, sc, n):  # type: ignore[no-untyped-def]
    """Rank the ``n`` evasions ``mv`` into ``sc``: captures of a piece by MVV-LVA, then the rest (en passant among
    them) in generation order."""
    for i in range(n):
        m = mv[i]
        to = m_to(m)
        sc[i] = CAPTURE + (mb[to] & 7) * 16 - (mb[m_from(m)] & 7) if mb[to] != 0 else 0


@njit(cache=True, inline="always")
def pick(sc, n):  # type: ignore[no-untyped-def]
    """The index of the best-ranked move not yet taken among the first ``n`` (the first of equals)."""
    j = 0
    best = sc[0]
    for i in range(1, n):
        if sc[i] > best:
            best = sc[i]
            j = i
    return j


@njit(cache=True, inline="always")
def reward(hist, killers, ply, m, depth):  # type: ignore[no-untyped-def]
    """A quiet move ``m`` caused a cutoff ``depth`` plies from the horizon, ``ply`` plies from the root: the ply's
    newest killer, and its history score raised by ``depth²`` (at most :data:`search.ordering.HISTORY_MAX`)."""
    if killers[ply, 0] != m:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = m
    i = (m_from(m) << 6) | m_to(m)
    v = hist[i] + depth * depth
    hist[i] = v if v < HISTORY_MAX else HISTORY_MAX
