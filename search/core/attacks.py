"""Attack sets as ``uint64`` bitboards: leaper tables and magic bitboards for the sliders, built once at import.

Squares are python-chess's (a1 = 0, h1 = 7, h8 = 63), colours too (BLACK = 0, WHITE = 1). Every function here is
an ``njit`` function returning a ``uint64`` bitboard: :func:`knight_attacks`, :func:`king_attacks`,
:func:`pawn_attacks` (the squares a pawn of ``colour`` on ``sq`` attacks), :func:`bishop_attacks`,
:func:`rook_attacks` and :func:`queen_attacks` (given the occupancy ``occ``, a ``uint64``; the first blocker in
each direction is included, whoever owns it). The sliders use "fancy" magic bitboards with fixed shifts: the
relevant occupancy times the square's magic, shifted right by 64 minus the mask's bit count, indexes the square's
slice of one table (102,400 rook and 5,248 bishop entries). The magics come from ``tools/core_magics.py``; the
tables are built at import by a cached ``njit`` builder that raises if a magic maps two occupancies with different
attack sets to one slot. ``BETWEEN[a, b]`` is the squares strictly between two aligned squares (else 0) and
``LINE[a, b]`` the whole line through them, both ends included (else 0): the pins and checks of move generation.

All tables are module-level numpy arrays, which numba freezes into the compiled code as constants.
"""

from __future__ import annotations

import numpy as np

from search.core.jit import njit

__all__ = ["BETWEEN", "KING_ATTACKS", "KNIGHT_ATTACKS", "LINE", "PAWN_ATTACKS", "bishop_attacks",
           "king_attacks", "knight_attacks", "pawn_attacks", "queen_attacks", "rook_attacks"]

ROOK_MAGICS = np.array([
    0x9080001184204004, 0x00C01008A0004000, 0x0500081100C12000, 0x4700090084203000,
    0x9200060068210410, 0x0080020014000980, 0x00801A0001005080, 0x0900018021450002,
    0x3000800220400480, 0x2000400042201000, 0x2201001020010940, 0x8000801000800800,
    0x09010008020C1100, 0x0602001012000884, 0x0441002402000100, 0x0140800244802100,
    0x9220608000C00090, 0x0090054000C82000, 0x0001010010406001, 0x4801848018003000,
    0x0404050010080100, 0x0001010006040008, 0x0900040048900621, 0x000102000A81004C,
    0x1C0440008004208C, 0x1020100340042040, 0x8D02002200348040, 0x0000080080100080,
    0x1084240080080280, 0x14890C0080020080, 0x0081284400223001, 0x0100884600108114,
    0x0002400020800880, 0x0002814000802000, 0x0020806000801004, 0x800A002112004008,
    0x02C2800400800803, 0x0040800400800200, 0x08408A2804000110, 0x040280C582000104,
    0x0080044460044004, 0x6200A01000404001, 0x0101002000450010, 0x408A00C008120020,
    0x0201002800110004, 0x2002008084008002, 0x0813000600110004, 0x0801000040810002,
    0xA001014024800500, 0x02C0A08240090100, 0x0C0A20001106C100, 0x00A8000880100480,
    0x200908020C008080, 0x020200504804C200, 0x01010042000C1100, 0x000580010000D080,
    0x0400209201048042, 0x4A01015080400721, 0x0702091020010045, 0x0888100100082045,
    0x0013001004080023, 0xC022000425081002, 0xC201000200008401, 0xC0000510E4440082,
], dtype=np.uint64)
BISHOP_MAGICS = np.array([
    0x0088A00C04420420, 0x0002840902021000, 0x0008008102002000, 0x0114124200105200,
    0x00051040400910C0, 0x0042051008231410, 0x00184C0444C01000, 0x0000420050080400,
    0x0000102018430442, 0x1080200444104440, 0x0003280805002000, 0x000108060B480010,
    0x0608011040800024, 0x00020D1016500040, 0x100904040C040601, 0x0C04410900900400,
    0x4108000C08081842, 0x4402001010021088, 0x101000080081A228, 0x0008094882044040,
    0x0084000081A00050, 0x0001002210008401, 0x0001002044022000, 0x0600271100821000,
    0x4108200040840104, 0x1004A00042080B00, 0x80910100100408A2, 0x220500C00C004200,
    0x08410040A4054000, 0x0848060110C10088, 0x10A4008704088C00, 0x0423120001098980,
    0x0041041002202000, 0x0284100C11488104, 0x2012034040240100, 0xA020120080080080,
    0x8802008400020160, 0x0A05014200010500, 0x0202020050040444, 0x4304108028328410,
    0x0204090C40101001, 0x0182008420004404, 0x0000082088013000, 0x7000204200806800,
    0x2033400811400202, 0x0001100102000110, 0x0345412602002400, 0x0031240400810048,
    0x014300D004200480, 0x0202048601108000, 0x0018305200901080, 0x0880058105882002,
    0x0008045082020000, 0x1004303010012000, 0x204002821C01000A, 0x0804108400408144,
    0x0001008210030400, 0x00001A0A12120611, 0x0081008042080C00, 0x1002002044840400,
    0x2820040010020202, 0x2008024052041101, 0x8000206002888100, 0x0028020400440100,
], dtype=np.uint64)


def _leaper_table(steps: tuple[tuple[int, int], ...]) -> np.ndarray:
    """For each square, the bitboard of the squares one of ``steps`` (file, rank deltas) away on the board."""
    out = np.zeros(64, np.uint64)
    for sq in range(64):
        f, r = sq % 8, sq // 8
        b = 0
        for df, dr in steps:
            if 0 <= f + df < 8 and 0 <= r + dr < 8:
                b |= 1 << (8 * (r + dr) + f + df)
        out[sq] = b
    return out


KNIGHT_ATTACKS = _leaper_table(((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)))
KING_ATTACKS = _leaper_table(((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)))
PAWN_ATTACKS = np.stack([_leaper_table(((-1, -1), (1, -1))), _leaper_table(((-1, 1), (1, 1)))])
"""``PAWN_ATTACKS[colour, sq]``: the squares a pawn of ``colour`` (BLACK 0, WHITE 1) on ``sq`` attacks."""

_ROOK_DF = np.array([1, -1, 0, 0], np.int64)
_ROOK_DR = np.array([0, 0, 1, -1], np.int64)
_BISHOP_DF = np.array([1, 1, -1, -1], np.int64)
_BISHOP_DR = np.array([1, -1, 1, -1], np.int64)


@njit(cache=True)
def _ray_attacks(sq, occ, dfs, drs):  # type: ignore[no-untyped-def]
    """The slow reference: the attack set of a slider on ``sq`` moving along ``dfs``/``drs`` through ``occ``."""
    f0, r0 = sq % 8, sq // 8
    att = np.uint64(0)
    for d in range(dfs.shape[0]):
        f, r = f0 + dfs[d], r0 + drs[d]
        while 0 <= f < 8 and 0 <= r < 8:
            bit = np.uint64(1) << np.uint64(8 * r + f)
            att |= bit
            if occ & bit:
                break
            f += dfs[d]
            r += drs[d]
    return att


@njit(cache=True)
def _build_magic(dfs, drs, magics):  # type: ignore[no-untyped-def]
    """The masks, shifts, offsets and attack table of one slider kind; -1 in ``offsets[0]`` if a magic fails."""
    masks = np.zeros(64, np.uint64)
    shifts = np.zeros(64, np.uint64)
    offsets = np.zeros(64, np.uint64)
    total = 0
    for sq in range(64):
        f0, r0 = sq % 8, sq // 8
        m = np.uint64(0)
        bits = 0
        for d in range(dfs.shape[0]):
            f, r = f0 + dfs[d], r0 + drs[d]
            while 0 <= f + dfs[d] < 8 and 0 <= r + drs[d] < 8:
                m |= np.uint64(1) << np.uint64(8 * r + f)
                bits += 1
                f += dfs[d]
                r += drs[d]
        masks[sq] = m
        shifts[sq] = np.uint64(64 - bits)
        offsets[sq] = np.uint64(total)
        total += 1 << bits
    table = np.zeros(total, np.uint64)
    filled = np.zeros(total, np.bool_)
    ok = True
    for sq in range(64):
        m = masks[sq]
        sub = np.uint64(0)
        while True:
            att = _ray_attacks(sq, sub, dfs, drs)
            idx = offsets[sq] + ((sub * magics[sq]) >> shifts[sq])
            if filled[idx] and table[idx] != att:
                ok = False
            table[idx] = att
            filled[idx] = True
            sub = (sub - m) & m
            if sub == 0:
                break
    return masks, shifts, offsets, table, ok


def _magic_tables(dfs: np.ndarray, drs: np.ndarray, magics: np.ndarray) -> tuple[np.ndarray, ...]:
    masks, shifts, offsets, table, ok = _build_magic(dfs, drs, magics)
    if not ok:
        raise RuntimeError("search/core/attacks.py: a magic multiplier maps two attack sets to one slot")
    return masks, shifts, offsets, table


ROOK_MASKS, ROOK_SHIFTS, ROOK_OFFSETS, ROOK_TABLE = _magic_tables(_ROOK_DF, _ROOK_DR, ROOK_MAGICS)
BISHOP_MASKS, BISHOP_SHIFTS, BISHOP_OFFSETS, BISHOP_TABLE = _magic_tables(_BISHOP_DF, _BISHOP_DR, BISHOP_MAGICS)


@njit(cache=True)
def knight_attacks(sq):  # type: ignore[no-untyped-def]
    """The squares a knight on ``sq`` attacks (``uint64``)."""
    return KNIGHT_ATTACKS[sq]


@njit(cache=True)
def king_attacks(sq):  # type: ignore[no-untyped-def]
    """The squares a king on ``sq`` attacks (``uint64``)."""
    return KING_ATTACKS[sq]


@njit(cache=True)
def pawn_attacks(colour, sq):  # type: ignore[no-untyped-def]
    """The squares a pawn of ``colour`` (BLACK 0, WHITE 1) on ``sq`` attacks (``uint64``)."""
    return PAWN_ATTACKS[colour, sq]


@njit(cache=True)
def bishop_attacks(sq, occ):  # type: ignore[no-untyped-def]
    """The squares a bishop on ``sq`` attacks through the occupancy ``occ`` (``uint64``)."""
    return BISHOP_TABLE[BISHOP_OFFSETS[sq] + (((occ & BISHOP_MASKS[sq]) * BISHOP_MAGICS[sq]) >> BISHOP_SHIFTS[sq])]


@njit(cache=True)
def rook_attacks(sq, occ):  # type: ignore[no-untyped-def]
    """The squares a rook on ``sq`` attacks through the occupancy ``occ`` (``uint64``)."""
    return ROOK_TABLE[ROOK_OFFSETS[sq] + (((occ & ROOK_MASKS[sq]) * ROOK_MAGICS[sq]) >> ROOK_SHIFTS[sq])]


@njit(cache=True)
def queen_attacks(sq, occ):  # type: ignore[no-untyped-def]
    """The squares a queen on ``sq`` attacks through the occupancy ``occ`` (``uint64``)."""
    return bishop_attacks(sq, occ) | rook_attacks(sq, occ)


@njit(cache=True)
def _build_lines():  # type: ignore[no-untyped-def]
    between = np.zeros((64, 64), np.uint64)
    line = np.zeros((64, 64), np.uint64)
    empty = np.uint64(0)
    for a in range(64):
        for b in range(64):
            if a == b:
                continue
            bit_a = np.uint64(1) << np.uint64(a)
            bit_b = np.uint64(1) << np.uint64(b)
            for kind in range(2):
                dfs = _ROOK_DF if kind == 0 else _BISHOP_DF
                drs = _ROOK_DR if kind == 0 else _BISHOP_DR
                if _ray_attacks(a, empty, dfs, drs) & bit_b:
                    between[a, b] = _ray_attacks(a, bit_b, dfs, drs) & _ray_attacks(b, bit_a, dfs, drs)
                    line[a, b] = (_ray_attacks(a, empty, dfs, drs) & _ray_attacks(b, empty, dfs, drs)) | bit_a | bit_b
    return between, line


BETWEEN, LINE = _build_lines()
