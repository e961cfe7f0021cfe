"""perft: the number of leaf positions of the legal move tree to a depth, the move generator's standard test.

A plain recursion: every move at every node, leaves included, is made and taken back (no bulk counting of the
last ply's moves), so perft also times make/unmake. :func:`perft` and :func:`divide` take a ``chess.Board`` (one
Python call for the whole count); ``divide`` gives each root move's count, as ``go perft`` prints them.
"""

from __future__ import annotations

import chess
import numpy as np

from search.core.board import MAX_PLY, from_board, make_move, unmake_move
from search.core.jit import njit
from search.core.movegen import MAX_MOVES, gen_moves, move_to_chess


@njit(cache=True)
def perft_arrays(bb, mb, st, keys, undo, moves, ply, depth, counts):  # type: ignore[no-untyped-def]
    """The leaves ``depth`` plies below the position; ``moves[ply]`` is this node's move list (``int32``). At
    ``ply`` 0 each root move's leaves go into ``counts[i]`` (``int64``), the root moves stay in ``moves[0]``.

    The one recursive function is also the Python entry point: numba (0.68) crashes when a function loaded from
    its cache calls a recursive one, so no other compiled function calls it."""
    if depth == 0:
        return 1
    out = moves[ply]
    n = gen_moves(bb, mb, st, out)
    total = 0
    for i in range(n):
        m = out[i]
        make_move(bb, mb, st, keys, undo, m)
        if depth == 1:
            leaves = 1
        else:
            leaves = perft_arrays(bb, mb, st, keys, undo, moves, ply + 1, depth - 1, counts)
        unmake_move(bb, mb, st, keys, undo, m)
        if ply == 0:
            counts[i] = leaves
        total += leaves
    return total


def _moves() -> np.ndarray:
    return np.zeros((MAX_PLY, MAX_MOVES), np.int32)


def _check_depth(depth: int) -> None:
    if not 0 <= depth < MAX_PLY:
        raise ValueError(f"perft depth {depth} is outside 0..{MAX_PLY - 1}")


def perft(board: chess.Board, depth: int) -> int:
    """The leaves of ``board``'s legal move tree ``depth`` plies deep (1 at depth 0)."""
    _check_depth(depth)
    p = from_board(board)
    return int(perft_arrays(p.bb, p.mb, p.st, p.keys, p.undo, _moves(), 0, depth, np.zeros(MAX_MOVES, np.int64)))


def divide(board: chess.Board, depth: int) -> list[tuple[chess.Move, int]]:
    """Each legal move of ``board`` with the leaves ``depth - 1`` plies below it (``depth`` >= 1), in generation
    order; the counts sum to :func:`perft` at ``depth``."""
    _check_depth(depth)
    if depth < 1:
        raise ValueError("divide needs a depth of at least 1")
    p = from_board(board)
    counts = np.zeros(MAX_MOVES, np.int64)
    moves = _moves()
    perft_arrays(p.bb, p.mb, p.st, p.keys, p.undo, moves, 0, depth, counts)
    n = int(gen_moves(p.bb, p.mb, p.st, moves[0]))
    return [(move_to_chess(moves[0, i]), int(counts[i])) for i in range(n)]
