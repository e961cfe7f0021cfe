"""The material-only evaluator: pawn 100, knight 320, bishop 330, rook 500, queen 900 centipawns."""

from __future__ import annotations

import chess

PIECE_VALUES: dict[int, int] = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500,
                                chess.QUEEN: 900}
"""Centipawns per piece type (the values of Tomasz Michniewski's Simplified Evaluation Function)."""


class Material:
    """Counts material with bitboard popcounts; centipawns from the side to move's view."""

    name = "material"

    def __init__(self, values: dict[int, int] | None = None) -> None:
        v = values or PIECE_VALUES
        self.p, self.n, self.b, self.r, self.q = (v[t] for t in (chess.PAWN, chess.KNIGHT, chess.BISHOP,
                                                                  chess.ROOK, chess.QUEEN))

    def evaluate(self, board: chess.Board) -> int:
        """Material balance in centipawns, positive when the side to move is ahead."""
        w = board.occupied_co[chess.WHITE]
        b = board.occupied_co[chess.BLACK]
        pawns, knights, bishops, rooks, queens = (board.pawns, board.knights, board.bishops, board.rooks,
                                                  board.queens)
        score = (self.p * ((pawns & w).bit_count() - (pawns & b).bit_count())
                 + self.n * ((knights & w).bit_count() - (knights & b).bit_count())
                 + self.b * ((bishops & w).bit_count() - (bishops & b).bit_count())
                 + self.r * ((rooks & w).bit_count() - (rooks & b).bit_count())
                 + self.q * ((queens & w).bit_count() - (queens & b).bit_count()))
        return score if board.turn else -score
