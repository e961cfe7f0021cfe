"""Static exchange evaluation on the core's arrays: :func:`search.see.see`, the same values and rules, compiled.

What the side to move gains with a move after the best sequence of recaptures on its square, both sides recapturing
with their least valuable attacker (x-rays through the exchanging pieces included), in centipawns, by
:data:`search.conventions.SEE_VALUES`; a king never captures onto a square the other side still attacks, and a
promotion counts the promoted piece (a recapturing pawn is not promoted).
"""

from __future__ import annotations

import numpy as np

from search.conventions import SEE_VALUES as _VALUES
from search.core.attacks import KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, bishop_attacks, rook_attacks
from search.core.board import F_EP, ONE, SIDE, ZERO
from search.core.jit import njit

SEE_VALUES = np.array(_VALUES, np.int64)
"""``SEE_VALUES[piece_type]`` (0 for no piece), as :data:`search.conventions.SEE_VALUES`."""
GAINS_LEN = 40
"""Room for the longest exchange (at most 32 captures on one square, plus the first move)."""


@njit(cache=True)
def _attackers(bb, colour, sq, occ):  # type: ignore[no-untyped-def]
    """Pieces of ``colour`` still on ``occ`` that attack ``sq`` through ``occ``."""
    diag = bishop_attacks(sq, occ)
    line = rook_attacks(sq, occ)
    queens = bb[0, 5] | bb[1, 5]
    return ((KNIGHT_ATTACKS[sq] & (bb[0, 2] | bb[1, 2])) | (KING_ATTACKS[sq] & (bb[0, 6] | bb[1, 6]))
            | (PAWN_ATTACKS[1 - colour, sq] & (bb[0, 1] | bb[1, 1]))
            | (diag & (bb[0, 3] | bb[1, 3] | queens)) | (line & (bb[0, 4] | bb[1, 4] | queens))) & bb[colour, 0] & occ


@njit(cache=True)
def see(bb, mb, st, m):  # type: ignore[no-untyped-def]
    """What the side to move gains with the packed move ``m`` (a legal move), in centipawns (module docstring).
    Allocates its list of gains: a search calls :func:`see_into` with a buffer of its own."""
    return see_into(bb, mb, st, m, np.empty(GAINS_LEN, np.int64))


@njit(cache=True)
def see_into(bb, mb, st, m, gains):  # type: ignore[no-untyped-def]
    """:func:`see`, with ``gains`` (``int64``, at least :data:`GAINS_LEN`) as its scratch list."""
    frm = m & 63
    to = (m >> 6) & 63
    promo = (m >> 12) & 7
    piece = mb[frm] & 7
    occ = (bb[0, 0] | bb[1, 0]) ^ (ONE << np.uint64(frm))
    if m & F_EP:
        captured = 1
        occ ^= ONE << np.uint64(to - 8 if st[SIDE] == 1 else to + 8)
    else:
        captured = mb[to] & 7
    gains[0] = SEE_VALUES[captured]
    n = 1
    on_square = piece
    if promo:
        gains[0] += SEE_VALUES[promo] - SEE_VALUES[1]
        on_square = promo
    occ |= ONE << np.uint64(to)
    side = 1 - st[SIDE]
    while True:
        attackers = _attackers(bb, side, to, occ)
        if not attackers:
            break
        pt = 1
        b = ZERO
        while pt <= 6:
            b = attackers & bb[side, pt]
            if b:
                break
            pt += 1
        if pt == 6 and _attackers(bb, 1 - side, to, occ):
            break
        gains[n] = SEE_VALUES[on_square] - gains[n - 1]
        n += 1
        on_square = pt
        occ ^= b & (~b + ONE)
        side = 1 - side
    while n > 1:
        n -= 1
        last = gains[n]
        gains[n - 1] = -max(-gains[n - 1], last)
    return gains[0]
