"""The material-only evaluator: pawn 100, knight 320, bishop 330, rook 500, queen 900 centipawns
(:data:`search.conventions.PIECE_VALUES`, the one home of the piece values)."""

from __future__ import annotations

from collections.abc import Mapping

import chess

from search.base import NativeForm
from search.conventions import PIECE_VALUES, material_balance


class Material:
    """Counts material with bitboard popcounts; centipawns from the side to move's view. ``values``: centipawns by
    piece type (pawn to queen) instead of :data:`search.conventions.PIECE_VALUES`."""

    name = "material"

    def __init__(self, values: Mapping[int, int] | None = None) -> None:
        self.values = PIECE_VALUES if values is None else (
            0, *(values[t] for t in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)), 0)

    def evaluate(self, board: chess.Board) -> int:
        """Material balance in centipawns, positive when the side to move is ahead."""
        return material_balance(board, self.values)

    def native_form(self) -> NativeForm:
        """The compiled core's form of this evaluator (:class:`search.base.NativeForm`, kind ``material``)."""
        return NativeForm.material(self.values)
