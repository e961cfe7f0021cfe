"""Two terms on top of mimic's rich layout: pawns that attack pieces, and pawns on a bishop's colour.

    mimic fit labels.epd --genome docs/examples/threats.py --out threats.json
"""

import chess
import numpy as np

from organisms.userterms import BISHOPS, BLACK, KNIGHTS, PAWNS, QUEENS, ROOKS, WHITE, Layout, Term, bb, popcount

NOT_A, NOT_H = bb(~chess.BB_FILE_A & chess.BB_ALL), bb(~chess.BB_FILE_H & chess.BB_ALL)
SEVEN, NINE = np.uint64(7), np.uint64(9)


def pawn_threat(board: chess.Board) -> tuple[int, int]:
    """Knights, bishops, rooks and queens attacked by the other side's pawns: (White's threats, Black's)."""
    pieces = board.knights | board.bishops | board.rooks | board.queens
    white_pawns = board.pawns & board.occupied_co[chess.WHITE]
    black_pawns = board.pawns & board.occupied_co[chess.BLACK]
    white_attacks = (white_pawns << 7 & ~chess.BB_FILE_H | white_pawns << 9 & ~chess.BB_FILE_A) & chess.BB_ALL
    black_attacks = black_pawns >> 9 & ~chess.BB_FILE_H | black_pawns >> 7 & ~chess.BB_FILE_A
    return ((white_attacks & pieces & board.occupied_co[chess.BLACK]).bit_count(),
            (black_attacks & pieces & board.occupied_co[chess.WHITE]).bit_count())


def pawn_threat_batch(rows: np.ndarray) -> np.ndarray:
    """pawn_threat on many positions at once: the same bitboard arithmetic on numpy's uint64 columns."""
    pieces = rows[:, KNIGHTS] | rows[:, BISHOPS] | rows[:, ROOKS] | rows[:, QUEENS]
    white_pawns = rows[:, PAWNS] & rows[:, WHITE]
    black_pawns = rows[:, PAWNS] & rows[:, BLACK]
    white_attacks = (white_pawns << SEVEN) & NOT_H | (white_pawns << NINE) & NOT_A  # uint64: bits past h8 fall off
    black_attacks = (black_pawns >> NINE) & NOT_H | (black_pawns >> SEVEN) & NOT_A
    return np.stack([popcount(white_attacks & pieces & rows[:, BLACK]),
                     popcount(black_attacks & pieces & rows[:, WHITE])], axis=1)


def bishop_pawns(board: chess.Board) -> tuple[int, int]:
    """Own pawns on the colour of each own bishop, summed over bishops: (White's, Black's)."""
    counts = []
    for color in (chess.WHITE, chess.BLACK):
        pawns = board.pawns & board.occupied_co[color]
        total = 0
        for square in board.pieces(chess.BISHOP, color):
            light = chess.BB_SQUARES[square] & chess.BB_LIGHT_SQUARES
            total += (pawns & (chess.BB_LIGHT_SQUARES if light else chess.BB_DARK_SQUARES)).bit_count()
        counts.append(total)
    return counts[0], counts[1]


LAYOUT = Layout(
    builtins=["rich"],
    terms=[
        Term("pawn_threat", board=pawn_threat, batch=pawn_threat_batch, bits=7, low=0, high=120, taper="mg+eg"),
        Term("bishop_pawns", board=bishop_pawns, bits=6, low=0, high=20, sign=-1, taper="mg+eg"),
    ],
    description="rich + pawns attacking pieces + own pawns on a bishop's colour",
)
