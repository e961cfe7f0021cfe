"""Move ordering, in one place for the three searches (depth-limited, probability-limited, comparison).

:func:`order_moves` is the one move scorer of the tree and of the root: each legal move gets a score and the
moves are sorted best first (a stable sort, so equal scores keep python-chess's generation order). The ranks,
highest first:

1. the transposition-table move (:data:`TT_MOVE`);
2. captures, en passant included, by MVV-LVA (:data:`CAPTURE` + :func:`mvv_lva`: the most valuable victim
   first, then the least valuable attacker); a capture that promotes is a capture;
3. a queen promotion (:data:`QUEEN_PROMOTION`);
4. the two killers of the ply (:data:`KILLER_1`, :data:`KILLER_2`: quiet moves that last caused a cutoff there);
5. the other quiet moves by their history score (0 to :data:`HISTORY_MAX`, raised by :func:`reward`);
6. under-promotions (:data:`UNDER_PROMOTION`), last. At the root, where the search knows no killer and no
   history yet (``root=True``), every promotion ranks by its piece just below the captures and every quiet
   move scores 0.

The quiescence search has two orders of its own: :func:`capture_order` (captures by MVV-LVA after the queen
promotions, with delta pruning) and :func:`evasion_order` (a side in check: captures by MVV-LVA, then the rest).

The scores are ranks, not centipawns. This module imports only python-chess and :mod:`search.conventions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import chess

from search.conventions import PIECE_VALUES

TT_MOVE = 1 << 30
"""Score of the transposition-table move: above every other score."""
CAPTURE = 50_000_000
"""Base score of a capture (plus :func:`mvv_lva`, at most 79): above a queen promotion."""
QUEEN_PROMOTION = 49_000_000
"""Base score of a promotion that captures nothing (plus the promoted piece type): above the killers."""
KILLER_1 = 40_000_002
"""Score of the newer killer of the ply."""
KILLER_2 = 40_000_001
"""Score of the older killer of the ply."""
HISTORY_MAX = 30_000_000
"""Ceiling of a history score (below the killers)."""
UNDER_PROMOTION = -1
"""Score of an under-promotion that captures nothing, in the tree: below every quiet move."""
QS_QUEEN_PROMOTION = 90
"""Quiescence score of a queen promotion that captures nothing: above every capture's :func:`mvv_lva` (<= 79)."""

NO_KILLERS: tuple[None, None] = (None, None)
"""The killers of a ply that has none (the root)."""
NO_HISTORY: tuple[int, ...] = (0,) * 4096
"""A history table in which every quiet move scores 0 (the root)."""

_BB_SQUARES = chess.BB_SQUARES
_PAWN = chess.PAWN
_QUEEN = chess.QUEEN
_RANK_7 = (chess.BB_RANK_2, chess.BB_RANK_7)  # by colour: the rank a pawn promotes from
_LAST_RANK = (chess.BB_RANK_1, chess.BB_RANK_8)  # by colour: the rank it promotes on
_EN_PASSANT = _PAWN * 16 - _PAWN  # mvv_lva of a pawn taking a pawn

ScoredMove = tuple[int, chess.Move]
"""A move and its ordering score."""


def mvv_lva(victim: int, attacker: int) -> int:
    """The capture rank of ``attacker`` (a piece type) taking ``victim``: the victim first, the attacker breaks ties.

    >>> mvv_lva(chess.QUEEN, chess.PAWN) > mvv_lva(chess.QUEEN, chess.ROOK) > mvv_lva(chess.ROOK, chess.PAWN)
    True
    """
    return victim * 16 - attacker


def _first(t: ScoredMove) -> int:
    return t[0]


def order_moves(board: chess.Board, moves: Iterable[chess.Move], tt_move: chess.Move | None = None,
                killers: Sequence[chess.Move | None] = NO_KILLERS, history: Sequence[int] = NO_HISTORY, *,
                root: bool = False) -> list[ScoredMove]:
    """``moves`` (legal in ``board``) with their scores (module docstring), best first.

    ``killers`` are the ply's two killers (newest first), ``history`` the side to move's history table indexed by
    ``from_square * 64 + to_square``. ``root=True`` ranks under-promotions with the queen promotion, by piece.

    >>> board = chess.Board("4k3/1P6/8/3p4/4P3/8/8/4K3 w - - 0 1")  # exd5, b8=Q/R/B/N, king moves, e5
    >>> killers = [chess.Move.from_uci("e1f1"), None]
    >>> [m.uci() for _, m in order_moves(board, board.generate_legal_moves(), killers=killers)]
    ['e4d5', 'b7b8q', 'e1f1', 'e1f2', 'e1e2', 'e1d2', 'e1d1', 'e4e5', 'b7b8r', 'b7b8b', 'b7b8n']
    """
    occ_them = board.occupied_co[not board.turn]
    ep = board.ep_square
    piece_type_at = board.piece_type_at
    k1, k2 = killers
    scored = []
    for m in moves:
        to = m.to_square
        if m == tt_move:
            s = TT_MOVE
        elif _BB_SQUARES[to] & occ_them:
            s = CAPTURE + (piece_type_at(to) or 0) * 16 - (piece_type_at(m.from_square) or 0)
        elif m.promotion:
            s = QUEEN_PROMOTION + m.promotion if m.promotion == _QUEEN or root else UNDER_PROMOTION
        elif to == ep and piece_type_at(m.from_square) == _PAWN:
            s = CAPTURE + _EN_PASSANT
        elif m == k1:
            s = KILLER_1
        elif m == k2:
            s = KILLER_2
        else:
            s = history[(m.from_square << 6) | to]
        scored.append((s, m))
    scored.sort(key=_first, reverse=True)
    return scored


def reward(history: list[int], killers: list[chess.Move | None], move: chess.Move, depth: int) -> None:
    """A quiet ``move`` caused a beta cutoff ``depth`` plies from the horizon: make it the ply's newest killer and
    raise its history score by ``depth²`` (at most :data:`HISTORY_MAX`)."""
    if killers[0] != move:
        killers[1] = killers[0]
        killers[0] = move
    i = (move.from_square << 6) | move.to_square
    v = history[i] + depth * depth
    history[i] = v if v < HISTORY_MAX else HISTORY_MAX


def capture_order(board: chess.Board, futile: int) -> list[ScoredMove]:
    """The quiescence moves of ``board`` (side to move not in check), best first: the queen promotions that capture
    nothing (:data:`QS_QUEEN_PROMOTION`), then the captures by :func:`mvv_lva` (en passant as a pawn taken).
    A capture whose victim is worth less than ``futile`` centipawns is left out (delta pruning), unless it promotes.
    """
    piece_type_at = board.piece_type_at
    turn = board.turn
    scored = []
    for m in board.generate_legal_captures():
        victim = piece_type_at(m.to_square) or _PAWN
        if PIECE_VALUES[victim] < futile and not m.promotion:
            continue
        scored.append((victim * 16 - (piece_type_at(m.from_square) or 0), m))
    promoting = board.pawns & board.occupied_co[turn] & _RANK_7[turn]
    if promoting:
        for m in board.generate_legal_moves(promoting, _LAST_RANK[turn] & ~board.occupied):
            if m.promotion == _QUEEN:
                scored.append((QS_QUEEN_PROMOTION, m))
    scored.sort(key=_first, reverse=True)
    return scored


def evasion_order(board: chess.Board) -> list[ScoredMove]:
    """Every legal move of ``board`` (side to move in check), best first: the captures of a piece by
    :func:`mvv_lva`, then the other moves (en passant among them) in generation order."""
    occ_them = board.occupied_co[not board.turn]
    piece_type_at = board.piece_type_at
    scored = []
    for m in board.generate_legal_moves():
        to = m.to_square
        if _BB_SQUARES[to] & occ_them:
            s = CAPTURE + (piece_type_at(to) or 0) * 16 - (piece_type_at(m.from_square) or 0)
        else:
            s = 0
        scored.append((s, m))
    scored.sort(key=_first, reverse=True)
    return scored
