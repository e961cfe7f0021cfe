"""The material-only evaluator: pawn 100, knight 320, bishop 330, rook 500, queen 900 centipawns."""

from __future__ import annotations

import chess

from search.conventions import PIECE_VALUES as _BY_TYPE
from search.conventions import material_balance

PIECE_VALUES: dict[int, int] = {pt: _BY_TYPE[pt] for pt in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK,
                                                          chess.QUEEN)}
"""Centipawns per piece type (:data:`search.conventions.PIECE_VALUES`, Michniewski's Simplified Evaluation
Function values), as a dictionary."""


class Material:
    """Counts material with bitboard popcounts; centipawns from the side to move's view."""

    name = "material"

    def __init__(self, values: dict[int, int] | None = None) -> None:
        v = values or PIECE_VALUES
        self.values = (0, *(v[t] for t in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)), 0)

    def evaluate(self, board: chess.Board) -> int:
        """Material balance in centipawns, positive when the side to move is ahead."""
        return material_balance(board, self.values)
