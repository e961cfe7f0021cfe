"""The organism's raw terms and the game phase, computed from the core's bitboards (:mod:`organisms.terms` compiled).

:func:`raw_terms` fills the 31 terms of ``organisms.features.TERM_NAMES`` (White's count minus Black's, integers)
and returns the phase (knight and bishop 1, rook 2, queen 4, capped at :data:`PHASE_MAX`), exactly as
:func:`organisms.terms.raw_terms` does: the same masks, the same counts, Black's terms made on the board flipped
vertically. ``bb`` is the core's ``(2, 7)`` uint64 array (``bb[colour, piece_type]``, BLACK 0, WHITE 1, ``bb[c, 0]``
all of colour ``c``'s pieces; :mod:`search.core.board`). Every bitboard here is a ``uint64``: shifts wrap at 64 bits
where the Python side masks with ``M64``, which gives the same bits.
"""

from __future__ import annotations

import chess
import numpy as np

from search.core.attacks import bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks
from search.core.jit import lsb, njit, popcount

__all__ = ["N_TERMS", "PHASE_MAX", "raw_terms"]

PHASE_MAX = 24
"""The phase of the opening position and the cap of every phase (:data:`organisms.terms.PHASE_MAX`)."""
N_TERMS = 31
"""Raw terms, in ``organisms.features.TERM_NAMES`` order."""

_U = np.uint64
NOT_A = _U(chess.BB_ALL & ~chess.BB_FILE_A)
NOT_H = _U(chess.BB_ALL & ~chess.BB_FILE_H)
FILES = np.array(chess.BB_FILES, dtype=np.uint64)
RANKS = np.array(chess.BB_RANKS, dtype=np.uint64)
_C3 = chess.BB_D4 | chess.BB_E4 | chess.BB_D5 | chess.BB_E5
_C2 = (chess.BB_C3 | chess.BB_D3 | chess.BB_E3 | chess.BB_F3 | chess.BB_C4 | chess.BB_F4 | chess.BB_C5
       | chess.BB_F5 | chess.BB_C6 | chess.BB_D6 | chess.BB_E6 | chess.BB_F6)
_C1 = chess.BB_ALL & ~(chess.BB_FILE_A | chess.BB_FILE_H | chess.BB_RANK_1 | chess.BB_RANK_8) & ~_C2 & ~_C3
CENTRE_3, CENTRE_2, CENTRE_1 = _U(_C3), _U(_C2), _U(_C1)
CENTRALITY = np.array([3 if _C3 >> s & 1 else 2 if _C2 >> s & 1 else 1 if _C1 >> s & 1 else 0 for s in range(64)],
                      dtype=np.int64)
DISTANCE = np.array([[max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) for b in range(64)] for a in range(64)],
                    dtype=np.int64)
RANKS_4_TO_6 = _U(chess.BB_RANKS[3] | chess.BB_RANKS[4] | chess.BB_RANKS[5])
RANK_7 = _U(chess.BB_RANKS[6])


def _shield(sq: int) -> int:
    """Squares one and two ranks in front of a king on ``sq``, on its file and the adjacent ones."""
    f, r = sq & 7, sq >> 3
    return sum(1 << ((r + dr) * 8 + f + df) for df in (-1, 0, 1) for dr in (1, 2) if 0 <= f + df < 8 and r + dr < 8)


SHIELD = np.array([_shield(s) for s in range(64)], dtype=np.uint64)
KING_FILES = np.array([[chess.BB_FILES[f] if 0 <= f < 8 else 0 for f in ((s & 7) - 1, s & 7, (s & 7) + 1)]
                       for s in range(64)], dtype=np.uint64)
"""The king's file and its neighbours (0 where there is none: such a slot is skipped, not counted as open)."""

_ZERO = _U(0)
_M8 = _U(0x00FF00FF00FF00FF)
_M16 = _U(0x0000FFFF0000FFFF)


@njit(cache=True, inline="always")
def flip(x):  # type: ignore[no-untyped-def]
    """The bitboard ``x`` mirrored vertically (rank 1 <-> rank 8): its bytes reversed."""
    x = ((x >> 8) & _M8) | ((x & _M8) << 8)
    x = ((x >> 16) & _M16) | ((x & _M16) << 16)
    return (x >> 32) | (x << 32)


@njit(cache=True, inline="always")
def _centre(b):  # type: ignore[no-untyped-def]
    return 3 * popcount(b & CENTRE_3) + 2 * popcount(b & CENTRE_2) + popcount(b & CENTRE_1)


@njit(cache=True)
def side_terms(pawns, knights, bishops, rooks, queens, king, their_pawns, their_king, ours, occupied):  # type: ignore[no-untyped-def]
    """The raw terms of the side whose pawns move north, a tuple of 31 ``int64`` in ``TERM_NAMES`` order (a tuple, not
    an array: no allocation at each evaluation).

    ``king``/``their_king`` are squares; the others bitboards of *our* pieces except ``their_pawns``, ``ours`` (all
    our pieces) and ``occupied`` (all pieces): :func:`organisms.terms._side_terms`, line for line."""
    our_patt = ((pawns << 7) & NOT_H) | ((pawns << 9) & NOT_A)
    their_patt = ((their_pawns >> 9) & NOT_H) | ((their_pawns >> 7) & NOT_A)
    area = ~ours & ~their_patt
    zone = king_attacks(their_king) | (_U(1) << _U(their_king))

    mob_n = 0
    centre_n = 0
    att = 0
    trop = 0
    outposts = 0
    b = knights
    if b:
        fill = their_patt
        fill |= fill >> 8
        fill |= fill >> 16
        fill |= fill >> 32
        outposts = popcount(knights & RANKS_4_TO_6 & our_patt & ~fill)
        centre_n = _centre(b)
        while b:
            s = lsb(b)
            b &= b - _U(1)
            a = knight_attacks(s)
            mob_n += popcount(a & area)
            att += popcount(a & zone)
            trop += 7 - DISTANCE[their_king, s]
    mob_b = 0
    centre_b = 0
    b = bishops
    if b:
        centre_b = _centre(b)
        while b:
            s = lsb(b)
            b &= b - _U(1)
            a = bishop_attacks(s, occupied)
            mob_b += popcount(a & area)
            att += popcount(a & zone)
            trop += 7 - DISTANCE[their_king, s]
    mob_r = 0
    open_f = 0
    half_f = 0
    all_pawns = pawns | their_pawns
    b = rooks
    while b:
        s = lsb(b)
        b &= b - _U(1)
        a = rook_attacks(s, occupied)
        mob_r += popcount(a & area)
        att += popcount(a & zone)
        trop += 7 - DISTANCE[their_king, s]
        f = FILES[s & 7]
        if not (f & all_pawns):
            open_f += 1
        elif not (f & pawns):
            half_f += 1
    mob_q = 0
    b = queens
    while b:
        s = lsb(b)
        b &= b - _U(1)
        a = queen_attacks(s, occupied)
        mob_q += popcount(a & area)
        att += popcount(a & zone)
        trop += 7 - DISTANCE[their_king, s]

    # Pawn structure.
    north = pawns << 8
    north |= north << 8
    north |= north << 16
    north |= north << 32  # squares strictly in front of our pawns
    doubled = popcount(pawns & north)
    files = pawns | north
    files |= files >> 8
    files |= files >> 16
    files |= files >> 32  # full files that hold one of our pawns
    neighbours = ((files << 1) & NOT_A) | ((files >> 1) & NOT_H)
    isolated = popcount(pawns & ~neighbours)
    support = our_patt
    support |= support << 8
    support |= support << 16
    support |= support << 32  # squares our pawns defend now or after advancing
    backward = popcount((pawns << 8) & their_patt & ~support)
    south = their_pawns >> 8
    south |= south >> 8
    south |= south >> 16
    south |= south >> 32  # squares in front of their pawns
    blocked = south | ((south << 1) & NOT_A) | ((south >> 1) & NOT_H)
    passed = pawns & ~blocked
    phalanx = ((pawns << 1) & NOT_A) | ((pawns >> 1) & NOT_H)
    connected = popcount(pawns & (our_patt | phalanx))

    # King safety (our king).
    shield = popcount(pawns & SHIELD[king])
    open_k = 0
    for i in range(3):
        f = KING_FILES[king, i]
        if f and not (f & pawns):
            open_k += 1

    p2 = p3 = p4 = p5 = p6 = p7 = 0
    if passed:
        p2 = popcount(passed & RANKS[1])
        p3 = popcount(passed & RANKS[2])
        p4 = popcount(passed & RANKS[3])
        p5 = popcount(passed & RANKS[4])
        p6 = popcount(passed & RANKS[5])
        p7 = popcount(passed & RANKS[6])
    pair = 1 if bishops & (bishops - _U(1)) else 0
    return (popcount(pawns), popcount(knights), popcount(bishops), popcount(rooks), popcount(queens),
            mob_n, mob_b, mob_r, mob_q,
            centre_n, centre_b, CENTRALITY[king],
            doubled, isolated, backward, p2, p3, p4, p5, p6, p7, connected,
            shield, open_k, att, trop,
            open_f, half_f, popcount(rooks & RANK_7),
            pair,
            outposts)


@njit(cache=True, inline="always")
def both_sides(bb):  # type: ignore[no-untyped-def]
    """White's terms and Black's (made on the board flipped vertically, from its own side), two 31-tuples."""
    white = bb[1, 0]
    black = bb[0, 0]
    occupied = white | black
    wk = lsb(bb[1, 6])
    bk = lsb(bb[0, 6])
    w = side_terms(bb[1, 1], bb[1, 2], bb[1, 3], bb[1, 4], bb[1, 5], wk, bb[0, 1], bk, white, occupied)
    b = side_terms(flip(bb[0, 1]), flip(bb[0, 2]), flip(bb[0, 3]), flip(bb[0, 4]), flip(bb[0, 5]), bk ^ 56,
                   flip(bb[1, 1]), wk ^ 56, flip(black), flip(occupied))
    return w, b


@njit(cache=True)
def raw_terms(bb, out):  # type: ignore[no-untyped-def]
    """Fill ``out`` (int64, at least :data:`N_TERMS`) with the terms, White's count minus Black's; return the phase
    (0..24): :func:`organisms.terms.raw_terms`. Both kings must be on the board (the core's positions have them)."""
    w, b = both_sides(bb)
    for i in range(N_TERMS):
        out[i] = w[i] - b[i]
    return phase(bb)


@njit(cache=True, inline="always")
def phase(bb):  # type: ignore[no-untyped-def]
    """The game phase: knights and bishops 1, rooks 2, queens 4, capped at :data:`PHASE_MAX`."""
    p = (popcount(bb[0, 2] | bb[1, 2] | bb[0, 3] | bb[1, 3]) + 2 * popcount(bb[0, 4] | bb[1, 4])
         + 4 * popcount(bb[0, 5] | bb[1, 5]))
    return p if p < PHASE_MAX else PHASE_MAX
