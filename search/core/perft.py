"""perft: the number of leaf positions of the legal move tree to a depth, the move generator's standard test.

A plain recursion: every move at every node, leaves included, is made and taken back (no bulk counting of the
last ply's moves), so perft also times make/unmake. :func:`perft` and :func:`divide` take a ``chess.Board`` (one
Python call for the whole count); ``divide`` gives each root move's count, as ``go perft`` prints them.
"""

from __future__ import annotations

import chess
import numpy as np

from search.core.board import MAX_PLY, from_board, make_move, unmake_move
from search.core.jit import njit, raw_view
from search.core.movegen import MAX_MOVES, gen_moves, move_to_chess

_make = njit(inline="always")(make_move.py_func)
_unmake = njit(inline="always")(unmake_move.py_func)
"""make/unmake inlined into perft's loop (only there: inlining costs compile time in every function that does it),
where the raw views' null reference counts are constants and numba's counting disappears."""


@njit(cache=True)
def perft_arrays(bb, mb, st, keys, undo, moves, depth, counts):  # type: ignore[no-untyped-def]
    """The leaves ``depth`` plies below the position; ``moves[ply]`` is the move list of the node ``ply`` plies
    down (``int32``); each root move's leaves go into ``counts[i]`` (``int64``), the root moves stay in
    ``moves[0]``. Written with an explicit stack, not recursion (numba 0.68 cannot cache a recursive call safely:
    numba issue 6061), on raw views of the arrays made here, in the function of the loop: make/unmake, inlined
    (:data:`_make`), then see arrays without reference counts (:func:`search.core.jit.raw_view`)."""
    if depth == 0:
        return 1
    bb, mb, st, keys, undo = raw_view(bb), raw_view(mb), raw_view(st), raw_view(keys), raw_view(undo)
    moves, counts = raw_view(moves), raw_view(counts)
    count = np.zeros(depth, np.int64)
    index = np.zeros(depth, np.int64)
    count[0] = gen_moves(bb, mb, st, moves[0])
    total = 0
    root_start = 0
    ply = 0
    while True:
        if index[ply] == count[ply]:
            if ply == 0:
                return total
            ply -= 1
            m = moves[ply, index[ply]]
            _unmake(bb, mb, st, keys, undo, m)
            if ply == 0:
                counts[index[0]] = total - root_start
                root_start = total
            index[ply] += 1
            continue
        m = moves[ply, index[ply]]
        _make(bb, mb, st, keys, undo, m)
        if ply + 1 == depth:
            total += 1
            _unmake(bb, mb, st, keys, undo, m)
            if ply == 0:
                counts[index[0]] = 1
                root_start = total
            index[ply] += 1
        else:
            ply += 1
            count[ply] = gen_moves(bb, mb, st, moves[ply])
            index[ply] = 0


def _moves() -> np.ndarray:
    return np.zeros((MAX_PLY, MAX_MOVES), np.int32)


def _check_depth(depth: int) -> None:
    if not 0 <= depth < MAX_PLY:
        raise ValueError(f"perft depth {depth} is outside 0..{MAX_PLY - 1}")


def perft(board: chess.Board, depth: int) -> int:
    """The leaves of ``board``'s legal move tree ``depth`` plies deep (1 at depth 0)."""
    _check_depth(depth)
    p = from_board(board)
    return int(perft_arrays(p.bb, p.mb, p.st, p.keys, p.undo, _moves(), depth, np.zeros(MAX_MOVES, np.int64)))


def divide(board: chess.Board, depth: int) -> list[tuple[chess.Move, int]]:
    """Each legal move of ``board`` with the leaves ``depth - 1`` plies below it (``depth`` >= 1), in generation
    order; the counts sum to :func:`perft` at ``depth``."""
    _check_depth(depth)
    if depth < 1:
        raise ValueError("divide needs a depth of at least 1")
    p = from_board(board)
    counts = np.zeros(MAX_MOVES, np.int64)
    moves = _moves()
    perft_arrays(p.bb, p.mb, p.st, p.keys, p.undo, moves, depth, counts)
    n = int(gen_moves(p.bb, p.mb, p.st, moves[0]))
    return [(move_to_chess(moves[0, i]), int(counts[i])) for i in range(n)]
