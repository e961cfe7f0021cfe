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
from search.runtime.errors import SettingsError


def _legal_captures(board: chess.Board) -> list[chess.Move]:
    """``list(board.generate_legal_captures())``, in the same order, in about two thirds of its time: only the
    captures are generated (no castling or pawn pushes to filter out) and only they are checked for a pin."""
    turn = board.turn
    if board.is_check() or not board.kings & board.occupied_co[turn]:
        return list(board.generate_legal_captures())  # python-chess's own (its evasions come in another order)
    theirs, ours, king = board.occupied_co[not turn], board.occupied_co[turn], board.king(turn)
    out = []
    for f in chess.scan_reversed(ours & ~board.pawns):  # pieces first, then pawns, as python-chess does
        for t in chess.scan_reversed(board.attacks_mask(f) & theirs):
            if (not board.is_attacked_by(not turn, t)) if f == king else board.pin_mask(turn, f) & chess.BB_SQUARES[t]:
                out.append(chess.Move(f, t))
    for f in chess.scan_reversed(board.pawns & ours):
        for t in chess.scan_reversed(chess.BB_PAWN_ATTACKS[turn][f] & theirs):
            if board.pin_mask(turn, f) & chess.BB_SQUARES[t]:
                if chess.square_rank(t) in (0, 7):
                    out += [chess.Move(f, t, p) for p in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)]
                else:
                    out.append(chess.Move(f, t))
    if board.ep_square:
        out += board.generate_legal_ep()
    return out


def _quiesce(board: chess.Board, alpha: int, beta: int, depth: int,
             stand: int | None = None) -> tuple[int, list[chess.Move]]:
    """The capture-only quiescence value of ``board`` (material, side to move's view, cp; fail-soft) and its line.

    ``stand`` is ``board``'s material balance when the caller knows it. A child that would stop at once (stand
    pat at or above its beta, or no depth left) is scored from the capture's gain without being made: the same
    value and line as making it, at a fraction of the cost (making a move is most of python-chess's time here)."""
    if stand is None:
        stand = material_balance(board)
    if stand >= beta or depth == 0:
        return stand, []
    best, line = stand, []
    if stand > alpha:
        alpha = stand
    captures = sorted(_legal_captures(board),
                      key=lambda m: (_VALUES[board.piece_type_at(m.to_square) or 1],
                                     -_VALUES[board.piece_type_at(m.from_square) or 1]), reverse=True)
    sub: list[chess.Move]
    for m in captures:
        gain = _VALUES[board.piece_type_at(m.to_square) or chess.PAWN]  # en passant takes a pawn
        if m.promotion:
            gain += _VALUES[m.promotion] - _VALUES[chess.PAWN]
        child = -(stand + gain)  # the child's material balance, from its side to move's view
        if child >= -alpha or depth == 1:  # the child stands pat at once (see _quiesce's first test)
            score, sub = child, []
        else:
            board.push(m)
            score, sub = _quiesce(board, -beta, -alpha, depth - 1, child)
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
        raise SettingsError(f"unknown target mode {mode!r} (leaf or root)")
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

