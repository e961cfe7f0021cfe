"""The position a label's score applies to, for fitness.

Why not the labelled position itself: the mentor *searched* it. A static evaluation cannot see a
hanging piece that a 2-ply search sees, so asking an organism to reproduce a searched score on the
root position asks it to see tactics it has no features for, and the GA then bends material values to
fit tactics. Texel-style tuners avoid this by scoring quiet positions. So, by default (``leaf``), the
target is the **leaf of the mentor's principal variation**, further resolved by a capture-only
quiescence search (material values, MVV-LVA, stand pat), which is where the mentor's score actually
comes from. The score's sign is then fixed for the side to move at the target: negated when an odd
number of plies separates it from the root. ``root`` keeps the labelled position as it is.

Scores are centipawns from the target position's side to move's view.
"""

from __future__ import annotations

import chess

from mentor.labels import Label
from search.conventions import PIECE_VALUES as _VALUES
from search.conventions import legal_prefix, material_balance


def _quiesce(board: chess.Board, alpha: int, beta: int, depth: int) -> tuple[int, list[chess.Move]]:
    stand = material_balance(board)
    if stand >= beta or depth == 0:
        return stand, []
    best, line = stand, []
    if stand > alpha:
        alpha = stand
    captures = sorted(board.generate_legal_captures(),
                      key=lambda m: (_VALUES[board.piece_type_at(m.to_square) or 1],
                                     -_VALUES[board.piece_type_at(m.from_square) or 1]), reverse=True)
    for m in captures:
        board.push(m)
        score, sub = _quiesce(board, -beta, -alpha, depth - 1)
        board.pop()
        score = -score
        if score > best:
            best, line = score, [m, *sub]
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best, line


def quiet_leaf(board: chess.Board, max_captures: int = 8) -> tuple[chess.Board, int]:
    """The end of the capture-only quiescence line from ``board`` and its length in plies."""
    b = board.copy(stack=False)
    if b.is_check():  # captures alone do not resolve a check; stop here
        return b, 0
    _, line = _quiesce(b, -100_000, 100_000, max_captures)
    for m in line:
        b.push(m)
    return b.copy(stack=False), len(line)


def target(label: Label, mode: str = "leaf") -> tuple[chess.Board, int]:
    """The target position of ``label`` and the label's score from its side to move's view (cp)."""
    board, score, _ = target_with_plies(label, mode)
    return board, score


def target_with_plies(label: Label, mode: str = "leaf") -> tuple[chess.Board, int, int]:
    """:func:`target`, plus the number of plies from the labelled position to the target."""
    if mode == "root":
        return label.board, label.ce, 0
    if mode != "leaf":
        raise ValueError(f"unknown target mode {mode!r} (leaf or root)")
    b = label.board.copy(stack=False)
    plies = 0
    for m in legal_prefix(b, label.pv):
        b.push(m)
        if b.is_game_over():  # the search scores a finished game itself: stop before it
            b.pop()
            break
        plies += 1
    leaf, extra = quiet_leaf(b)
    plies += extra
    return leaf, (label.ce if plies % 2 == 0 else -label.ce), plies

