"""A game side's cheap style features, from its moves alone: *habits* and *repertoire* (python-chess only).

**Habits** (:func:`habits`, names :data:`HABIT_NAMES`): over the side's moves from ply ``skip_plies`` + 1 on, the
shares of captures, of checks given, and of moves of each piece type (pawn to king); over the whole game, the
ply (1-based, of the game) at which the side castled (NaN when it did not) and whether it castled king- or
queen-side or not at all, the ply after which both queens were off the board (NaN when they never were, with a
flag), and the game's length in plies. A share is NaN when the side made no move from ``skip_plies`` on.

**Repertoire** (:func:`repertoire`, names :func:`repertoire_names`): the side's own moves in the game's first
:data:`OPENING_PLIES` plies as n-grams (n = 1 .. 3) of consecutive own moves, each tagged with the ply its first
move was played at (``"3:g1f3"``, ``"3:g1f3 5:f1c4"``), hashed into :data:`BUCKETS` buckets by BLAKE2 (stable
across processes and runs, unlike Python's ``hash``); the feature is how many of the side's n-grams fell in each
bucket. It ignores ``skip_plies``: the opening is the point.

May import chess and numpy.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import chess
import numpy as np

OPENING_PLIES = 12
"""The repertoire looks at the game's first this many plies."""

BUCKETS = 256
"""Hash buckets of the repertoire's n-grams."""

NGRAMS = (1, 2, 3)
"""The n-gram lengths of the repertoire."""

PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")

HABIT_NAMES: tuple[str, ...] = ("habits:captures", "habits:checks", *(f"habits:{p}_moves" for p in PIECES),
                                "habits:castle_ply", "habits:castle_none", "habits:castle_king",
                                "habits:castle_queen", "habits:queens_off_ply", "habits:queens_on",
                                "habits:game_plies")
"""The habits' feature names, in order (see the module docstring)."""


def habits(fen: str, moves: Sequence[str], color: bool, skip_plies: int) -> np.ndarray:
    """The habit features (:data:`HABIT_NAMES`) of the side ``color`` of the game from ``fen`` with UCI ``moves``
    (see the module docstring), float64.

    >>> v = habits(chess.STARTING_FEN, ["e2e4", "d7d5", "e4d5", "d8d5"], chess.WHITE, 0)
    >>> dict(zip(HABIT_NAMES[:3], v[:3].tolist()))
    {'habits:captures': 0.5, 'habits:checks': 0.0, 'habits:pawn_moves': 1.0}
    """
    board = chess.Board(fen)
    counts = np.zeros(2 + len(PIECES))
    mine = 0
    castle_ply, castle_side, queens_off = float("nan"), 0, float("nan")
    for ply, uci in enumerate(moves):
        move = chess.Move.from_uci(uci)
        if board.turn == color:
            if board.is_castling(move) and castle_side == 0:
                castle_ply, castle_side = float(ply + 1), 1 if board.is_kingside_castling(move) else 2
            if ply >= skip_plies:
                mine += 1
                piece = board.piece_type_at(move.from_square)
                counts[0] += board.is_capture(move)
                counts[1] += board.gives_check(move)
                if piece is not None:
                    counts[1 + piece] += 1
        board.push(move)
        if math.isnan(queens_off) and not board.pieces(chess.QUEEN, chess.WHITE) \
                and not board.pieces(chess.QUEEN, chess.BLACK):
            queens_off = float(ply + 1)
    shares = counts / mine if mine else np.full(len(counts), np.nan)
    castle = [1.0 if castle_side == s else 0.0 for s in (0, 1, 2)]
    return np.array([*shares, castle_ply, *castle, queens_off, float(math.isnan(queens_off)), float(len(moves))])


def ngrams(fen: str, moves: Sequence[str], color: bool) -> list[str]:
    """The side's repertoire n-grams (see the module docstring), shortest first.

    >>> ngrams(chess.STARTING_FEN, ["e2e4", "e7e5", "g1f3"], chess.WHITE)
    ['1:e2e4', '3:g1f3', '1:e2e4 3:g1f3']
    """
    first_white = chess.Board(fen).turn == chess.WHITE
    own = [f"{ply + 1}:{uci}" for ply, uci in enumerate(moves[:OPENING_PLIES])
           if (ply % 2 == 0) == (first_white == color)]
    return [" ".join(own[i:i + n]) for n in NGRAMS for i in range(len(own) - n + 1)]


def bucket(text: str, buckets: int = BUCKETS) -> int:
    """The hash bucket of one n-gram: BLAKE2 (8 bytes, little-endian) modulo ``buckets``; the same in every
    process and run.

    >>> bucket("1:e2e4") == bucket("1:e2e4") and 0 <= bucket("1:e2e4") < BUCKETS
    True
    """
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") % buckets


def repertoire(fen: str, moves: Sequence[str], color: bool, buckets: int = BUCKETS) -> np.ndarray:
    """The repertoire features of one side: the count of its n-grams in each hash bucket, float64."""
    out = np.zeros(buckets)
    for gram in ngrams(fen, moves, color):
        out[bucket(gram, buckets)] += 1
    return out


def repertoire_names(buckets: int = BUCKETS) -> tuple[str, ...]:
    """The repertoire's feature names, ``repertoire:B`` for each bucket B."""
    return tuple(f"repertoire:{b}" for b in range(buckets))
