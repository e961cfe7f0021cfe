"""The organism's raw terms: per-side counts computed with bitboard arithmetic (int masks, ``bit_count``).

Step 1 of :mod:`organisms.features`: a *term* is a raw count for one side (say, White's doubled pawns);
Black's terms are White's terms of the vertically flipped position, so colour symmetry holds by
construction. :func:`raw_terms` gives White's count minus Black's (White's view) and the game phase
(non-pawn material: knight and bishop 1, rook 2, queen 4; capped at :data:`PHASE_MAX`); the terms are
in ``organisms.features.TERM_NAMES`` order. Used by the feature matrix, the organism's evaluation and
the built-in expert alike. The compiled core repeats them line for line from its bitboards
(:mod:`search.core.eval_terms`): a change here is made there too (``tests/test_core_eval.py`` compares the two).

May import: chess only.
"""

from __future__ import annotations

import chess

PHASE_MAX = 24
"""The phase of the opening position (and the cap of every phase): 4 minor pieces × 1 + 4 rooks × 2 + 2 queens × 4."""

M64 = chess.BB_ALL
FILE_A, FILE_H = chess.BB_FILE_A, chess.BB_FILE_H
NOT_A, NOT_H = M64 & ~FILE_A, M64 & ~FILE_H
FILES = chess.BB_FILES
RANKS = chess.BB_RANKS
KNIGHT_ATT = chess.BB_KNIGHT_ATTACKS
KING_ATT = chess.BB_KING_ATTACKS
DIAG_ATT, DIAG_MASK = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
RANK_ATT, RANK_MASK = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
FILE_ATT, FILE_MASK = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS

# Centricity rings: 3 for the four centre squares, 2 for the ring around them, 1 for the next, 0 on the edge.
CENTRE_3 = chess.BB_D4 | chess.BB_E4 | chess.BB_D5 | chess.BB_E5
CENTRE_2 = (chess.BB_C3 | chess.BB_D3 | chess.BB_E3 | chess.BB_F3 | chess.BB_C4 | chess.BB_F4 | chess.BB_C5
            | chess.BB_F5 | chess.BB_C6 | chess.BB_D6 | chess.BB_E6 | chess.BB_F6)
CENTRE_1 = M64 & ~(FILE_A | FILE_H | chess.BB_RANK_1 | chess.BB_RANK_8) & ~CENTRE_2 & ~CENTRE_3
CENTRALITY = [3 if CENTRE_3 >> s & 1 else 2 if CENTRE_2 >> s & 1 else 1 if CENTRE_1 >> s & 1 else 0
              for s in range(64)]
DISTANCE = [[max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) for b in range(64)] for a in range(64)]
RANKS_4_TO_6 = RANKS[3] | RANKS[4] | RANKS[5]


def _shield(sq: int) -> int:
    """Squares one and two ranks in front of a king on ``sq``, on its file and the adjacent ones."""
    f, r = sq & 7, sq >> 3
    mask = 0
    for df in (-1, 0, 1):
        for dr in (1, 2):
            if 0 <= f + df < 8 and r + dr < 8:
                mask |= 1 << ((r + dr) * 8 + f + df)
    return mask


SHIELD = [_shield(s) for s in range(64)]
KING_FILES = [[FILES[f] for f in ((s & 7) - 1, s & 7, (s & 7) + 1) if 0 <= f < 8] for s in range(64)]


def _flip(bb: int) -> int:
    """Mirror a bitboard vertically (rank 1 <-> rank 8)."""
    return int.from_bytes(bb.to_bytes(8, "big"), "little")


def _side_terms(pawns: int, knights: int, bishops: int, rooks: int, queens: int, king: int,
                their_pawns: int, their_king: int, ours: int, occupied: int) -> list[int]:
    """Raw terms of the side whose pawns move north (towards rank 8), in ``TERM_NAMES`` order.

    ``king``/``their_king`` are squares; the others are bitboards of *our* pieces except
    ``their_pawns``, ``ours`` (all our pieces) and ``occupied`` (all pieces).
    """
    # Pawn attacks and spans.
    our_patt = ((pawns << 7) & NOT_H | (pawns << 9) & NOT_A) & M64
    their_patt = (their_pawns >> 9) & NOT_H | (their_pawns >> 7) & NOT_A
    area = M64 & ~ours & ~their_patt  # where our pieces' mobility counts
    zone = KING_ATT[their_king] | (1 << their_king)
    dist_k = DISTANCE[their_king]

    mob_n = centre_n = att = trop = outposts = 0
    bb = knights
    if bb:
        fill = their_patt
        fill |= fill >> 8
        fill |= fill >> 16
        fill |= fill >> 32
        outpost_sq = RANKS_4_TO_6 & our_patt & ~fill
        outposts = (knights & outpost_sq).bit_count()
        centre_n = (3 * (bb & CENTRE_3).bit_count() + 2 * (bb & CENTRE_2).bit_count()
                    + (bb & CENTRE_1).bit_count())
        while bb:
            low = bb & -bb
            s = low.bit_length() - 1
            bb ^= low
            a = KNIGHT_ATT[s]
            mob_n += (a & area).bit_count()
            att += (a & zone).bit_count()
            trop += 7 - dist_k[s]
    mob_b = centre_b = 0
    bb = bishops
    if bb:
        centre_b = (3 * (bb & CENTRE_3).bit_count() + 2 * (bb & CENTRE_2).bit_count()
                    + (bb & CENTRE_1).bit_count())
        while bb:
            low = bb & -bb
            s = low.bit_length() - 1
            bb ^= low
            a = DIAG_ATT[s][DIAG_MASK[s] & occupied]
            mob_b += (a & area).bit_count()
            att += (a & zone).bit_count()
            trop += 7 - dist_k[s]
    mob_r = open_f = half_f = 0
    all_pawns = pawns | their_pawns
    bb = rooks
    while bb:
        low = bb & -bb
        s = low.bit_length() - 1
        bb ^= low
        a = RANK_ATT[s][RANK_MASK[s] & occupied] | FILE_ATT[s][FILE_MASK[s] & occupied]
        mob_r += (a & area).bit_count()
        att += (a & zone).bit_count()
        trop += 7 - dist_k[s]
        f = FILES[s & 7]
        if not f & all_pawns:
            open_f += 1
        elif not f & pawns:
            half_f += 1
    mob_q = 0
    bb = queens
    while bb:
        low = bb & -bb
        s = low.bit_length() - 1
        bb ^= low
        a = (DIAG_ATT[s][DIAG_MASK[s] & occupied] | RANK_ATT[s][RANK_MASK[s] & occupied]
             | FILE_ATT[s][FILE_MASK[s] & occupied])
        mob_q += (a & area).bit_count()
        att += (a & zone).bit_count()
        trop += 7 - dist_k[s]

    # Pawn structure.
    north = pawns << 8
    north |= north << 8
    north |= north << 16
    north |= north << 32
    north &= M64  # squares strictly in front of our pawns
    doubled = (pawns & north).bit_count()
    files = pawns | north
    files |= files >> 8
    files |= files >> 16
    files |= files >> 32  # full files that hold one of our pawns
    neighbours = (files << 1) & NOT_A | (files >> 1) & NOT_H
    isolated = (pawns & ~neighbours).bit_count()
    support = our_patt
    support |= support << 8
    support |= support << 16
    support |= support << 32  # squares our pawns defend now or after advancing
    backward = ((pawns << 8) & their_patt & ~support).bit_count()
    south = their_pawns >> 8
    south |= south >> 8
    south |= south >> 16
    south |= south >> 32  # squares in front of their pawns
    blocked = south | (south << 1) & NOT_A | (south >> 1) & NOT_H
    passed = pawns & ~blocked
    if passed:
        p2, p3, p4, p5, p6, p7 = ((passed & RANKS[r]).bit_count() for r in range(1, 7))
    else:
        p2 = p3 = p4 = p5 = p6 = p7 = 0
    phalanx = (pawns << 1) & NOT_A | (pawns >> 1) & NOT_H
    connected = (pawns & (our_patt | phalanx)).bit_count()

    # King safety (our king).
    shield = (pawns & SHIELD[king]).bit_count()
    open_k = 0
    for f in KING_FILES[king]:
        if not f & pawns:
            open_k += 1

    return [
        pawns.bit_count(), knights.bit_count(), bishops.bit_count(), rooks.bit_count(), queens.bit_count(),
        mob_n, mob_b, mob_r, mob_q,
        centre_n, centre_b, CENTRALITY[king],
        doubled, isolated, backward, p2, p3, p4, p5, p6, p7, connected,
        shield, open_k, att, trop,
        open_f, half_f, (rooks & RANKS[6]).bit_count(),
        1 if bishops & (bishops - 1) else 0,
        outposts,
    ]


def raw_terms(pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int,
              white: int, black: int) -> tuple[int, list[int]]:
    """Game phase (0–24) and the terms, White's count minus Black's (White's view), from bitboards."""
    occupied = white | black
    wk = (kings & white).bit_length() - 1
    bk = (kings & black).bit_length() - 1
    if wk < 0 or bk < 0:
        raise ValueError("a position needs both kings")
    w = _side_terms(pawns & white, knights & white, bishops & white, rooks & white, queens & white, wk,
                    pawns & black, bk, white, occupied)
    fp, fn, fb, fr, fq = (_flip(x & black) for x in (pawns, knights, bishops, rooks, queens))
    fwhite = _flip(pawns & white)
    b = _side_terms(fp, fn, fb, fr, fq, bk ^ 56, fwhite, wk ^ 56, _flip(black), _flip(occupied))
    phase = ((knights | bishops).bit_count() + 2 * rooks.bit_count() + 4 * queens.bit_count())
    return (phase if phase < PHASE_MAX else PHASE_MAX), [x - y for x, y in zip(w, b, strict=True)]


def board_terms(board: chess.Board) -> tuple[int, list[int]]:
    """:func:`raw_terms` of a board."""
    return raw_terms(board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
                     board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK])
