"""Static exchange evaluation: what a capture wins when both sides keep recapturing on its square
with their least valuable attacker (x-rays through the exchanging pieces included), in centipawns."""

from __future__ import annotations

import chess

from search.conventions import SEE_VALUES

_KNIGHT, _KING = chess.BB_KNIGHT_ATTACKS, chess.BB_KING_ATTACKS
_PAWN_ATT = chess.BB_PAWN_ATTACKS
_DIAG_ATT, _DIAG_MASK = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
_RANK_ATT, _RANK_MASK = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
_FILE_ATT, _FILE_MASK = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS


def _attackers(board: chess.Board, color: chess.Color, sq: int, occ: int) -> int:
    """Pieces of ``color`` (still on ``occ``) that attack ``sq`` through occupancy ``occ``."""
    diag = _DIAG_ATT[sq][_DIAG_MASK[sq] & occ]
    line = _RANK_ATT[sq][_RANK_MASK[sq] & occ] | _FILE_ATT[sq][_FILE_MASK[sq] & occ]
    return ((_KNIGHT[sq] & board.knights) | (_KING[sq] & board.kings)
            | (_PAWN_ATT[not color][sq] & board.pawns)
            | (diag & (board.bishops | board.queens)) | (line & (board.rooks | board.queens))
            ) & board.occupied_co[color] & occ


def see(board: chess.Board, move: chess.Move) -> int:
    """Material the side to move gains with ``move`` after the best sequence of recaptures (cp).

    0 for a quiet move that cannot be taken back profitably; negative when the moving piece is lost
    for less. Promotions count the promoted piece.
    """
    to, frm = move.to_square, move.from_square
    piece = board.piece_type_at(frm)
    if piece is None:
        raise ValueError(f"no piece on {chess.square_name(frm)}")
    occ = board.occupied ^ (1 << frm)
    if board.is_en_passant(move):
        captured = chess.PAWN
        occ ^= 1 << (to - 8 if board.turn == chess.WHITE else to + 8)
    else:
        captured = board.piece_type_at(to) or 0
    gains = [SEE_VALUES[captured]]
    on_square = piece
    if move.promotion:
        gains[0] += SEE_VALUES[move.promotion] - SEE_VALUES[chess.PAWN]
        on_square = move.promotion
    occ |= 1 << to
    side = not board.turn
    while True:
        attackers = _attackers(board, side, to, occ)
        if not attackers:
            break
        for pt in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING):
            bb = attackers & board.pieces_mask(pt, side)
            if bb:
                break
        if pt == chess.KING and _attackers(board, not side, to, occ):
            break  # the king cannot capture into a defended square
        gains.append(SEE_VALUES[on_square] - gains[-1])
        on_square = pt
        occ ^= bb & -bb
        side = not side
    while len(gains) > 1:
        last = gains.pop()
        gains[-1] = -max(-gains[-1], last)
    return gains[0]
