"""Three of mimic's built-in terms declared again as a user's terms, for benchmarks/user_terms.py: the rich layout
without rook_open_file, rook_half_open_file and bishop_pair, then those three as user terms (``my_`` names), in the
scalar form (``LAYOUT``) and in the batch form (``BATCH``). Their features equal the built-in ones."""

import chess
import numpy as np

from organisms.userterms import BISHOPS, BLACK, PAWNS, ROOKS, WHITE, Layout, Term, bb, popcount

DROPPED = ["rook_open_file", "rook_half_open_file", "bishop_pair"]
FILES = [bb(f) for f in chess.BB_FILES]


def _rook_files(board: chess.Board, color: chess.Color) -> tuple[int, int]:
    """(rooks on files without pawns, rooks on files with only the other side's pawns) of ``color``."""
    own = board.pawns & board.occupied_co[color]
    open_files = half_open = 0
    for square in chess.scan_forward(board.rooks & board.occupied_co[color]):
        file = chess.BB_FILES[square & 7]
        if not file & board.pawns:
            open_files += 1
        elif not file & own:
            half_open += 1
    return open_files, half_open


def rook_open_file(board: chess.Board) -> tuple[int, int]:
    return _rook_files(board, chess.WHITE)[0], _rook_files(board, chess.BLACK)[0]


def rook_half_open_file(board: chess.Board) -> tuple[int, int]:
    return _rook_files(board, chess.WHITE)[1], _rook_files(board, chess.BLACK)[1]


def bishop_pair(board: chess.Board) -> tuple[int, int]:
    return (int((board.bishops & board.occupied_co[chess.WHITE]).bit_count() >= 2),
            int((board.bishops & board.occupied_co[chess.BLACK]).bit_count() >= 2))


def _rook_files_batch(rows: np.ndarray, open_files: bool) -> np.ndarray:
    counts = np.zeros((len(rows), 2), dtype=np.int64)
    for side, colour in enumerate((WHITE, BLACK)):
        rooks, own = rows[:, ROOKS] & rows[:, colour], rows[:, PAWNS] & rows[:, colour]
        for file in FILES:
            no_pawn = (rows[:, PAWNS] & file) == 0
            chosen = no_pawn if open_files else ~no_pawn & ((own & file) == 0)
            counts[:, side] += popcount(rooks & file) * chosen
    return counts


def rook_open_file_batch(rows: np.ndarray) -> np.ndarray:
    return _rook_files_batch(rows, True)


def rook_half_open_file_batch(rows: np.ndarray) -> np.ndarray:
    return _rook_files_batch(rows, False)


def bishop_pair_batch(rows: np.ndarray) -> np.ndarray:
    return np.stack([popcount(rows[:, BISHOPS] & rows[:, WHITE]) >= 2,
                     popcount(rows[:, BISHOPS] & rows[:, BLACK]) >= 2], axis=1).astype(np.int64)


LAYOUT = Layout(builtins=["rich"], drop=DROPPED, terms=[
    Term("my_rook_open_file", board=rook_open_file, bits=7, low=0, high=60),
    Term("my_rook_half_open_file", board=rook_half_open_file, bits=7, low=0, high=40),
    Term("my_bishop_pair", board=bishop_pair, bits=7, low=0, high=100, taper="mg+eg"),
])
BATCH = Layout(builtins=["rich"], drop=DROPPED, terms=[
    Term("my_rook_open_file", batch=rook_open_file_batch, bits=7, low=0, high=60),
    Term("my_rook_half_open_file", batch=rook_half_open_file_batch, bits=7, low=0, high=40),
    Term("my_bishop_pair", batch=bishop_pair_batch, bits=7, low=0, high=100, taper="mg+eg"),
])
