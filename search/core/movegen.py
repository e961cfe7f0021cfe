"""Legal move generation on the core's arrays (:mod:`search.core.board`), checks, attacks and the draw rules.

:func:`gen_moves` writes every legal move of the side to move into ``out`` (an ``int32`` array of at least
:data:`MAX_MOVES`) and returns how many: pins and checks are worked out first (a pinned piece moves along its
pin line, a side in check only blocks, captures the checker or moves the king; two checkers leave only king moves),
so no move needs a legality test after it is made. :func:`gen_captures` writes the legal quiescence moves: every
capture (en passant and capturing promotions to any piece included) and the promotions to a queen that capture
nothing. Moves are packed as :mod:`search.core.board` says; :func:`move_to_chess` and :func:`move_from_chess`
convert at the Python edge.
"""

from __future__ import annotations

import chess
import numpy as np

from search.core.attacks import (
    BETWEEN,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    LINE,
    PAWN_ATTACKS,
    bishop_attacks,
    rook_attacks,
)
from search.core.board import (
    CASTLE,
    EP,
    F_CAPTURE,
    F_CASTLE,
    F_DOUBLE,
    F_EP,
    HALFMOVE,
    ONE,
    SIDE,
    ZERO,
    is_insufficient,
    is_repetition,
)
from search.core.jit import lsb, njit, popcount

MAX_MOVES = 256
"""Room for every legal move of any position (the most known is 218)."""
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_RANK_1_8 = np.uint64(0xFF000000000000FF)
_F1G1, _B1C1D1 = np.uint64(0x60), np.uint64(0x0E)
_F8G8, _B8C8D8 = np.uint64(0x60) << np.uint64(56), np.uint64(0x0E) << np.uint64(56)


@njit(cache=True)
def attackers_to(sq, occ, bb):  # type: ignore[no-untyped-def]
    """Every piece, of either colour, attacking ``sq`` through the occupancy ``occ`` (``uint64``)."""
    diag = bishop_attacks(sq, occ) & (bb[0, 3] | bb[1, 3] | bb[0, 5] | bb[1, 5])
    line = rook_attacks(sq, occ) & (bb[0, 4] | bb[1, 4] | bb[0, 5] | bb[1, 5])
    return (diag | line | (KNIGHT_ATTACKS[sq] & (bb[0, 2] | bb[1, 2])) | (KING_ATTACKS[sq] & (bb[0, 6] | bb[1, 6]))
            | (PAWN_ATTACKS[1, sq] & bb[0, 1]) | (PAWN_ATTACKS[0, sq] & bb[1, 1]))


@njit(cache=True)
def attacked_by(bb, colour, sq, occ):  # type: ignore[no-untyped-def]
    """Whether a piece of ``colour`` attacks ``sq`` through the occupancy ``occ``."""
    if KNIGHT_ATTACKS[sq] & bb[colour, 2] or PAWN_ATTACKS[1 - colour, sq] & bb[colour, 1]:
        return True
    if KING_ATTACKS[sq] & bb[colour, 6]:
        return True
    if bishop_attacks(sq, occ) & (bb[colour, 3] | bb[colour, 5]):
        return True
    return (rook_attacks(sq, occ) & (bb[colour, 4] | bb[colour, 5])) != ZERO


@njit(cache=True)
def in_check(bb, st):  # type: ignore[no-untyped-def]
    """Whether the side to move is in check."""
    us = st[SIDE]
    return attacked_by(bb, 1 - us, lsb(bb[us, 6]), bb[0, 0] | bb[1, 0])


@njit(cache=True)
def _add_promotions(out, n, frm, to, flags, all_pieces):  # type: ignore[no-untyped-def]
    base = frm | (to << 6) | flags
    out[n] = base | (5 << 12)
    n += 1
    if all_pieces:
        out[n] = base | (4 << 12)
        out[n + 1] = base | (3 << 12)
        out[n + 2] = base | (2 << 12)
        n += 3
    return n


@njit(cache=True)
def _generate(bb, mb, st, out, quiets):  # type: ignore[no-untyped-def]
    """The legal moves (``quiets``) or the quiescence moves (not ``quiets``) into ``out``; their number."""
    us = st[SIDE]
    them = 1 - us
    ours = bb[us, 0]
    theirs = bb[them, 0]
    occ = ours | theirs
    ksq = lsb(bb[us, 6])
    kbit = ONE << np.uint64(ksq)
    n = 0
    # the king
    occ_nok = occ ^ kbit
    targets = KING_ATTACKS[ksq] & ~ours
    if not quiets:
        targets &= theirs
    while targets:
        to = lsb(targets)
        targets &= targets - ONE
        if not attacked_by(bb, them, to, occ_nok):
            out[n] = ksq | (to << 6) | (F_CAPTURE if mb[to] else 0)
            n += 1
    checkers = attackers_to(ksq, occ, bb) & theirs
    if checkers & (checkers - ONE):
        return n
    mask = ALL
    if checkers:
        mask = BETWEEN[ksq, lsb(checkers)] | checkers
    # pins
    pinned = ZERO
    snipers = ((rook_attacks(ksq, ZERO) & (bb[them, 4] | bb[them, 5]))
               | (bishop_attacks(ksq, ZERO) & (bb[them, 3] | bb[them, 5])))
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - ONE
        b = BETWEEN[ksq, s] & occ
        if b and not (b & (b - ONE)) and (b & ours):
            pinned |= b
    piece_targets = ~ours & mask
    if not quiets:
        piece_targets &= theirs
    # knights, bishops, rooks, queens
    for pt in range(2, 6):
        pieces = bb[us, pt]
        if pt == 2:
            pieces &= ~pinned
        while pieces:
            frm = lsb(pieces)
            pieces &= pieces - ONE
            if pt == 2:
                att = KNIGHT_ATTACKS[frm]
            elif pt == 3:
                att = bishop_attacks(frm, occ)
            elif pt == 4:
                att = rook_attacks(frm, occ)
            else:
                att = bishop_attacks(frm, occ) | rook_attacks(frm, occ)
            att &= piece_targets
            if pinned & (ONE << np.uint64(frm)):
                att &= LINE[ksq, frm]
            while att:
                to = lsb(att)
                att &= att - ONE
                out[n] = frm | (to << 6) | (F_CAPTURE if mb[to] else 0)
                n += 1
    # pawns
    up = 8 if us == 1 else -8
    start_lo = 8 if us == 1 else 48
    ep = st[EP]
    pawns = bb[us, 1]
    while pawns:
        frm = lsb(pawns)
        frombit = ONE << np.uint64(frm)
        pawns &= pawns - ONE
        line = LINE[ksq, frm] if pinned & frombit else ALL
        caps = PAWN_ATTACKS[us, frm] & theirs & mask & line
        while caps:
            to = lsb(caps)
            caps &= caps - ONE
            if (ONE << np.uint64(to)) & _RANK_1_8:
                n = _add_promotions(out, n, frm, to, F_CAPTURE, True)
            else:
                out[n] = frm | (to << 6) | F_CAPTURE
                n += 1
        if ep >= 0 and PAWN_ATTACKS[us, frm] & (ONE << np.uint64(ep)):
            capsq = ep - up
            occ2 = (occ ^ frombit ^ (ONE << np.uint64(capsq))) | (ONE << np.uint64(ep))
            hit = ((rook_attacks(ksq, occ2) & (bb[them, 4] | bb[them, 5]))
                   | (bishop_attacks(ksq, occ2) & (bb[them, 3] | bb[them, 5]))
                   | (KNIGHT_ATTACKS[ksq] & bb[them, 2])
                   | (PAWN_ATTACKS[us, ksq] & bb[them, 1] & ~(ONE << np.uint64(capsq))))
            if not hit:
                out[n] = frm | (ep << 6) | F_CAPTURE | F_EP
                n += 1
        to = frm + up
        tobit = ONE << np.uint64(to)
        if not (occ & tobit):
            if tobit & _RANK_1_8:
                if tobit & mask & line:
                    n = _add_promotions(out, n, frm, to, 0, quiets)
            elif quiets:
                if tobit & mask & line:
                    out[n] = frm | (to << 6)
                    n += 1
                if start_lo <= frm < start_lo + 8:
                    to2 = to + up
                    bit2 = ONE << np.uint64(to2)
                    if not (occ & bit2) and bit2 & mask & line:
                        out[n] = frm | (to2 << 6) | F_DOUBLE
                        n += 1
    # castling
    rights = st[CASTLE]
    if quiets and rights and not checkers:
        if us == 1:
            if rights & 1 and not (occ & _F1G1) and not attacked_by(bb, 0, 5, occ) and not attacked_by(bb, 0, 6, occ):
                out[n] = 4 | (6 << 6) | F_CASTLE
                n += 1
            if (rights & 2 and not (occ & _B1C1D1) and not attacked_by(bb, 0, 3, occ)
                    and not attacked_by(bb, 0, 2, occ)):
                out[n] = 4 | (2 << 6) | F_CASTLE
                n += 1
        else:
            if (rights & 4 and not (occ & _F8G8) and not attacked_by(bb, 1, 61, occ)
                    and not attacked_by(bb, 1, 62, occ)):
                out[n] = 60 | (62 << 6) | F_CASTLE
                n += 1
            if (rights & 8 and not (occ & _B8C8D8) and not attacked_by(bb, 1, 59, occ)
                    and not attacked_by(bb, 1, 58, occ)):
                out[n] = 60 | (58 << 6) | F_CASTLE
                n += 1
    return n


@njit(cache=True)
def gen_moves(bb, mb, st, out):  # type: ignore[no-untyped-def]
    """Every legal move of the side to move into ``out`` (``int32``, at least :data:`MAX_MOVES`); their number."""
    return _generate(bb, mb, st, out, True)


@njit(cache=True)
def gen_captures(bb, mb, st, out):  # type: ignore[no-untyped-def]
    """The legal captures (en passant and capturing promotions to any piece included) and the promotions to a
    queen that capture nothing, into ``out``; their number. In check, only those of them that answer the check."""
    return _generate(bb, mb, st, out, False)


@njit(cache=True)
def is_checkmate(bb, mb, st):  # type: ignore[no-untyped-def]
    """Whether the side to move is checkmated (allocates a move list: not for every node)."""
    if not in_check(bb, st):
        return False
    out = np.empty(MAX_MOVES, np.int32)
    return _generate(bb, mb, st, out, True) == 0


@njit(cache=True)
def is_draw(bb, mb, st, keys):  # type: ignore[no-untyped-def]
    """mimic's engine's draw (``search/root.py``'s ``_drawn``): a repetition (:func:`is_repetition`), the fifty-move
    rule unless the side to move is checkmated, or at most four men and python-chess's insufficient material."""
    if st[HALFMOVE] >= 4:
        if is_repetition(st, keys):
            return True
        if st[HALFMOVE] >= 100 and not is_checkmate(bb, mb, st):
            return True
    return popcount(bb[0, 0] | bb[1, 0]) <= 4 and is_insufficient(bb)


def move_to_chess(m: int) -> chess.Move:
    """The ``chess.Move`` of the packed move ``m`` (castling as the king's move, e1g1)."""
    m = int(m)
    promo = (m >> 12) & 7
    return chess.Move(m & 63, (m >> 6) & 63, promo or None)


def move_from_chess(board: chess.Board, move: chess.Move) -> int:
    """The packed move of ``move``, a legal move of ``board`` (not chess960); castling written as the king taking
    its rook (e1h1) becomes the king's move (e1g1)."""
    frm, to = move.from_square, move.to_square
    if board.is_castling(move):
        to = (frm & ~7) + (6 if to > frm else 2)
        return frm | to << 6 | F_CASTLE
    m = frm | to << 6 | (move.promotion or 0) << 12
    if board.is_en_passant(move):
        return m | F_CAPTURE | F_EP
    if board.piece_at(to) is not None:
        m |= F_CAPTURE
    if board.piece_type_at(frm) == chess.PAWN and abs(to - frm) == 16:
        m |= F_DOUBLE
    return m
