"""Giraffe's position features: the 363 inputs of Matthew Lai's evaluation net (2015), numpy only.

After Giraffe's ``features_conv.cpp`` (read, not copied), in three groups: global (19), piece-centric
(216) and square-centric (128). ``GIRAFFE_FEATURE_NAMES`` gives the column order, ``GIRAFFE_RANGES``
each column's range, ``GIRAFFE_FEATURE_VERSION`` keys every cache of these features.

**Point of view.** Giraffe's ``features_conv.cpp`` is absolute: White's block first, then Black's,
plus a side-to-move bit. We choose the *side to move's view* (the Evaluator contract's): "our" is the
side to move, "their" the other side, and when Black is to move the board is read vertically flipped
(own-view rank 1 is Black's rank 8; files are kept, a stays a). Every feature is then identical for a
position and its ``board.mirror()`` except ``white_to_move``, the one colour-dependent column, which
becomes ``1 - value`` (:data:`WHITE_TO_MOVE`). Every coordinate, square name and direction, for
both sides' pieces, is in this one frame (the side to move's view): at the start their pawns have
y = 6/7 whoever is to move, and ``free_n`` points towards our opponent's back rank.

**Values.** Pieces are worth pawn 1, knight 3, bishop 3, rook 5, queen 9, king 10, divided by 10
(:data:`PAWN_V` ... :data:`KING_V` over :data:`VALUE_SCALE`): the king's 1.0 is the largest. A "lowest
attacker" column holds the value of the lowest-valued piece of that side attacking the square (pins
ignored, as Giraffe's maps), 0 when none attacks it; a slot's *defender* is its own side's lowest
attacker of its square.

**Global (19)**, in order: our queens /1, rooks /2, bishops /2, knights /2, pawns /8, the same for
theirs (10; above 1 only with promoted pieces), ``white_to_move`` (1), our kingside and queenside
castling rights, theirs (4), our king's x/7 and y/7, theirs (4). Kings always exist, so their slot
has no "exists" bit (as in Giraffe, whose king coordinates are pushed with ``mustExist``).

**Piece-centric (216)**: 108 columns for our side, then the same 108 for theirs. A side's slots:

==========  =====  ====================================================================  =======
slot        count  columns per slot                                                      columns
==========  =====  ====================================================================  =======
pawn0-7     8      exists, x, y, attacker, defender                                      40
knight0-1   2      exists, x, y, attacker, defender, mobility                            12
bishop0-1   2      exists, x, y, attacker, defender, mobility, free_ne/nw/se/sw          20
rook0-1     2      exists, x, y, attacker, defender, mobility, free_e/w/n/s              20
queen       1      exists, x, y, attacker, defender, mobility, free_e/w/n/s/ne/nw/se/sw  14
king        1      attacker, defender (its coordinates are global)                        2
==========  =====  ====================================================================  =======

x = file/7, y = rank/7 (side to move's view). An empty slot is all zeros. ``free_D`` is the number
of empty squares from the piece in direction D before the board's edge or the first piece, /7 (a rook in the
corner at the start: 0 everywhere; Giraffe counted the blocking square too, we do not).
``mobility`` is the number of *safe* moves /16 (a queen can reach 27/16): moves onto empty or enemy
squares that are safe by Giraffe's rule (``AttackMaps::IsSafe``): a square is safe for a piece of
value v when the opponent does not attack it, or when the opponent's lowest attacker is worth at
least v and another of our pieces also attacks it (attacks as they stand: no pins, no x-rays
through the moving piece).

Slot assignment (pieces of either side taken in order of square in the side to move's view, a1, b1,
..., h8):

- pawns (Giraffe's rule): each pawn goes to its file's slot; a pawn whose file slot is taken (a
  doubled pawn, after a capture) goes to the nearest free slot, the lower one on a tie;
- knights, bishops, rooks: one piece goes to slot 0 on files a-d and to slot 1 on files e-h; of two
  or more, the first two take the slots, the one on the lower file in slot 0 (a third is counted in
  the globals only);
- queen: the first queen.

En passant, the move counters and repetitions are not features (nor are they in Giraffe's).

**Square-centric (128)**: for squares (side to move's view) a1, b1, ..., h8, our lowest attacker
(64), then theirs (64): the control map.

May import: chess, numpy and :mod:`organisms.feature_cache` (the feature cache and its worker pool).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import chess
import numpy as np

from organisms.feature_cache import cached_matrix

GIRAFFE_FEATURE_VERSION = "giraffe-v1-363"
"""Names the definition of every column: it keys the caches; change it when any definition changes."""

Bitboard = int
Square = int

PAWN_V, KNIGHT_V, BISHOP_V, ROOK_V, QUEEN_V, KING_V = 1, 3, 3, 5, 9, 10
"""Piece values in the attacker/defender columns, before the division by :data:`VALUE_SCALE`."""
VALUE_SCALE = 10
"""The attacker/defender columns hold a value / 10 (a pawn 0.1; the king's 1.0 is the largest)."""
MOBILITY_SCALE = 16
"""Giraffe's "reasonable maximum" of safe moves (a queen can reach 27)."""

M64 = chess.BB_ALL
NOT_A, NOT_H = M64 & ~chess.BB_FILE_A, M64 & ~chess.BB_FILE_H
KNIGHT_ATT, KING_ATT = chess.BB_KNIGHT_ATTACKS, chess.BB_KING_ATTACKS
DIAG_ATT, DIAG_MASK = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
RANK_ATT, RANK_MASK = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
FILE_ATT, FILE_MASK = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS

# Directions: (name, file step, rank step). Rooks use the first four, bishops the last four.
DIRECTIONS = (("e", 1, 0), ("w", -1, 0), ("n", 0, 1), ("s", 0, -1),
              ("ne", 1, 1), ("nw", -1, 1), ("se", 1, -1), ("sw", -1, -1))
ROOK_DIRS, BISHOP_DIRS, QUEEN_DIRS = (0, 1, 2, 3), (4, 5, 6, 7), tuple(range(8))


def _ray(square: Square, df: int, dr: int) -> Bitboard:
    f, r, mask = (square & 7) + df, (square >> 3) + dr, 0
    while 0 <= f < 8 and 0 <= r < 8:
        mask |= 1 << (r * 8 + f)
        f, r = f + df, r + dr
    return mask


RAYS = tuple(tuple(_ray(s, df, dr) for s in range(64)) for _, df, dr in DIRECTIONS)
RAY_LENGTH = tuple(tuple(m.bit_count() for m in ray) for ray in RAYS)
# A ray runs towards higher square indices (its first blocker is its lowest bit) when 8*dr + df > 0.
RAY_UP = tuple(8 * dr + df > 0 for _, df, dr in DIRECTIONS)
DISTANCE = tuple(tuple(max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) for b in range(64))
                 for a in range(64))

# ---------------------------------------------------------------------------------------------------
# Names and ranges.

_COUNT_NAMES = ("queens", "rooks", "bishops", "knights", "pawns")
# Largest count /scale: a side has at most 9 queens, 10 rooks/bishops/knights, 8 pawns.
_COUNT_MAX = (9.0, 5.0, 5.0, 5.0, 1.0)
SIDES = ("our", "their")

_SLOTS: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    *((f"pawn{i}", chess.PAWN, ()) for i in range(8)),
    ("knight0", chess.KNIGHT, ()), ("knight1", chess.KNIGHT, ()),
    ("bishop0", chess.BISHOP, BISHOP_DIRS), ("bishop1", chess.BISHOP, BISHOP_DIRS),
    ("rook0", chess.ROOK, ROOK_DIRS), ("rook1", chess.ROOK, ROOK_DIRS),
    ("queen", chess.QUEEN, QUEEN_DIRS),
)
"""A side's piece slots (the king's two columns follow them): (name, piece type, slider directions)."""
_MAX_MOBILITY = {chess.KNIGHT: 8, chess.BISHOP: 13, chess.ROOK: 14, chess.QUEEN: 27}


def _names_and_ranges() -> tuple[tuple[str, ...], tuple[tuple[float, float], ...]]:
    names: list[str] = []
    highs: list[float] = []
    for side in SIDES:
        for n, hi in zip(_COUNT_NAMES, _COUNT_MAX, strict=True):
            names.append(f"{side}_{n}")
            highs.append(hi)
    names.append("white_to_move")
    highs.append(1.0)
    for side in SIDES:
        names += [f"{side}_castle_kingside", f"{side}_castle_queenside"]
        highs += [1.0, 1.0]
    for side in SIDES:
        names += [f"{side}_king_x", f"{side}_king_y"]
        highs += [1.0, 1.0]
    for side in SIDES:
        for slot, piece, dirs in _SLOTS:
            cols = ["exists", "x", "y", "attacker", "defender"]
            slot_highs = [1.0] * 5
            if piece != chess.PAWN:
                cols.append("mobility")
                slot_highs.append(_MAX_MOBILITY[piece] / MOBILITY_SCALE)
            cols += [f"free_{DIRECTIONS[d][0]}" for d in dirs]
            slot_highs += [1.0] * len(dirs)
            names += [f"{side}_{slot}_{c}" for c in cols]
            highs += slot_highs
        names += [f"{side}_king_attacker", f"{side}_king_defender"]
        highs += [1.0, 1.0]
    for side in SIDES:
        names += [f"{side}_attacker_{chess.square_name(s)}" for s in range(64)]
        highs += [1.0] * 64
    return tuple(names), tuple((0.0, h) for h in highs)


GIRAFFE_FEATURE_NAMES, GIRAFFE_RANGES = _names_and_ranges()
"""The 363 column names in order, and each column's (low, high) range."""
N_GIRAFFE = len(GIRAFFE_FEATURE_NAMES)
N_GLOBAL, N_PIECE, N_SQUARE = 19, 216, 128
WHITE_TO_MOVE = GIRAFFE_FEATURE_NAMES.index("white_to_move")
"""The column that is ``1 - value`` for ``board.mirror()``; every other column is unchanged."""
assert N_GIRAFFE == N_GLOBAL + N_PIECE + N_SQUARE == 363

# ---------------------------------------------------------------------------------------------------
# Extraction.


def giraffe_row(board: chess.Board) -> tuple[int, ...]:
    """The ten integers the features depend on: the six piece bitboards, the two colour bitboards,
    the side to move (1 White) and the castling rights as bits (1 White kingside, 2 White queenside,
    4 Black kingside, 8 Black queenside)."""
    castling = (board.has_kingside_castling_rights(chess.WHITE)
                | board.has_queenside_castling_rights(chess.WHITE) << 1
                | board.has_kingside_castling_rights(chess.BLACK) << 2
                | board.has_queenside_castling_rights(chess.BLACK) << 3)
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], int(board.turn), castling)


def _squares_of(bb: Bitboard) -> list[Square]:
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


def _attacks(piece: int, s: Square, occupied: Bitboard) -> Bitboard:
    if piece == chess.KNIGHT:
        return KNIGHT_ATT[s]
    if piece == chess.BISHOP:
        return DIAG_ATT[s][DIAG_MASK[s] & occupied]
    if piece == chess.ROOK:
        return RANK_ATT[s][RANK_MASK[s] & occupied] | FILE_ATT[s][FILE_MASK[s] & occupied]
    return (DIAG_ATT[s][DIAG_MASK[s] & occupied] | RANK_ATT[s][RANK_MASK[s] & occupied]
            | FILE_ATT[s][FILE_MASK[s] & occupied])


_VALUE_COLUMN = np.array([PAWN_V, KNIGHT_V, BISHOP_V, ROOK_V, QUEEN_V, KING_V], dtype=np.float32)[:, None]


def _lowest_attackers(masks: list[Bitboard]) -> np.ndarray:
    """(12,) attack bitboards (ours P N B R Q K, theirs P N B R Q K) -> (2, 64) lowest attacker values /10."""
    bits = np.unpackbits(np.array(masks, dtype="<u8").view(np.uint8).reshape(12, 8), axis=1,
                         bitorder="little").reshape(2, 6, 64).astype(bool)
    values = np.where(bits, _VALUE_COLUMN, np.float32(99)).min(axis=1)
    values[values == 99] = 0
    return values / np.float32(VALUE_SCALE)


def pawn_slots(pawns: Bitboard) -> list[Square | None]:
    """The square in each of the 8 pawn slots (``None``: empty), Giraffe's rule: a pawn takes its file's
    slot; pawns left over (in square order) take the nearest free slot, the lower one on a tie.

    >>> pawn_slots(chess.BB_A2 | chess.BB_B2 | chess.BB_B3)  # b3 takes slot 2 (a's is taken; c is nearest)
    [8, 9, 17, None, None, None, None, None]
    """
    slots: list[Square | None] = [None] * 8
    left = []
    for s in _squares_of(pawns):
        if slots[s & 7] is None:
            slots[s & 7] = s
        else:
            left.append(s)
    for s in left:
        f = s & 7
        best = min((i for i in range(8) if slots[i] is None), key=lambda i: (abs(i - f), i))
        slots[best] = s
    return slots


def pair_slots(pieces: Bitboard) -> tuple[Square | None, Square | None]:
    """The squares in a side's two knight (bishop, rook) slots: see the module docstring."""
    squares = _squares_of(pieces)
    if not squares:
        return None, None
    if len(squares) == 1:
        s = squares[0]
        return (s, None) if (s & 7) < 4 else (None, s)
    a, b = squares[0], squares[1]
    return (b, a) if (a & 7) > (b & 7) else (a, b)


def _side(bbs: tuple[Bitboard, ...], own: Bitboard, own_twice: Bitboard, opp_all: Bitboard,
          opp_by_type: tuple[Bitboard, ...], occupied: Bitboard, own_low: list[float], opp_low: list[float],
          out: list[float]) -> None:
    """Append one side's 108 piece-centric columns (bitboards in the side to move's view)."""
    pawns, knights, bishops, rooks, queens, kings = bbs
    opp_p, opp_n, opp_b, opp_r = opp_by_type[:4]
    below = {KNIGHT_V: opp_p, BISHOP_V: opp_p, ROOK_V: opp_p | opp_n | opp_b,
             QUEEN_V: opp_p | opp_n | opp_b | opp_r}
    not_own = M64 & ~own
    for s in pawn_slots(pawns):
        if s is None:
            out += (0.0, 0.0, 0.0, 0.0, 0.0)
        else:
            out += (1.0, (s & 7) / 7, (s >> 3) / 7, opp_low[s], own_low[s])
    queen = queens & -queens
    for piece, value, slots, dirs in (
            (chess.KNIGHT, KNIGHT_V, pair_slots(knights), ()),
            (chess.BISHOP, BISHOP_V, pair_slots(bishops), BISHOP_DIRS),
            (chess.ROOK, ROOK_V, pair_slots(rooks), ROOK_DIRS),
            (chess.QUEEN, QUEEN_V, (queen.bit_length() - 1 if queen else None,), QUEEN_DIRS)):
        safe = (M64 & ~opp_all) | (own_twice & ~below[value])
        for s in slots:
            if s is None:
                out += [0.0] * (6 + len(dirs))
                continue
            moves = _attacks(piece, s, occupied) & not_own & safe
            out += (1.0, (s & 7) / 7, (s >> 3) / 7, opp_low[s], own_low[s], moves.bit_count() / MOBILITY_SCALE)
            for d in dirs:
                blockers = RAYS[d][s] & occupied
                if not blockers:
                    out.append(RAY_LENGTH[d][s] / 7)
                else:
                    b = (blockers & -blockers).bit_length() - 1 if RAY_UP[d] else blockers.bit_length() - 1
                    out.append((DISTANCE[s][b] - 1) / 7)
    k = kings.bit_length() - 1
    out += (opp_low[k], own_low[k]) if kings else (0.0, 0.0)


def _type_attacks(bbs: tuple[Bitboard, ...], occupied: Bitboard, north: bool) -> tuple[list[Bitboard], Bitboard]:
    """A side's attack bitboard per piece type (P N B R Q K) and the squares it attacks twice or more."""
    pawns = bbs[0]
    if north:
        left, right = (pawns << 7) & NOT_H & M64, (pawns << 9) & NOT_A & M64
    else:
        left, right = (pawns >> 9) & NOT_H, (pawns >> 7) & NOT_A
    once, twice = left | right, left & right
    by_type = [once]
    for piece, bb in zip((chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN), bbs[1:5], strict=True):
        union = 0
        while bb:
            low = bb & -bb
            bb ^= low
            a = _attacks(piece, low.bit_length() - 1, occupied)
            twice |= once & a
            once |= a
            union |= a
        by_type.append(union)
    k = bbs[5]
    a = KING_ATT[k.bit_length() - 1] if k else 0
    twice |= once & a
    by_type.append(a)
    return by_type, twice


def features_from_row(pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int,
                      white: int, black: int, turn: int, castling: int) -> np.ndarray:
    """The 363 features (float32, :data:`GIRAFFE_FEATURE_NAMES` order) of a :func:`giraffe_row`."""
    pieces = (pawns, knights, bishops, rooks, queens, kings)
    if turn:
        ours = tuple(p & white for p in pieces)
        theirs = tuple(p & black for p in pieces)
        own, opp = white, black
        c_ours, c_theirs = castling & 3, castling >> 2 & 3
    else:
        flip = chess.flip_vertical
        ours = tuple(flip(p & black) for p in pieces)
        theirs = tuple(flip(p & white) for p in pieces)
        own, opp = flip(black), flip(white)
        c_ours, c_theirs = castling >> 2 & 3, castling & 3
    occupied = own | opp
    our_att, our_twice = _type_attacks(ours, occupied, True)
    their_att, their_twice = _type_attacks(theirs, occupied, False)
    low = _lowest_attackers(our_att + their_att)
    our_low, their_low = low[0].tolist(), low[1].tolist()

    out: list[float] = []
    for bbs in (ours, theirs):
        out += (bbs[4].bit_count(), bbs[3].bit_count() / 2, bbs[2].bit_count() / 2, bbs[1].bit_count() / 2,
                bbs[0].bit_count() / 8)
    out.append(float(turn))
    out += (c_ours & 1, c_ours >> 1, c_theirs & 1, c_theirs >> 1)
    for bbs in (ours, theirs):
        k = bbs[5].bit_length() - 1
        out += ((k & 7) / 7, (k >> 3) / 7) if k >= 0 else (0.0, 0.0)
    our_all = our_att[0] | our_att[1] | our_att[2] | our_att[3] | our_att[4] | our_att[5]
    their_all = their_att[0] | their_att[1] | their_att[2] | their_att[3] | their_att[4] | their_att[5]
    _side(ours, own, our_twice, their_all, tuple(their_att), occupied, our_low, their_low, out)
    _side(theirs, opp, their_twice, our_all, tuple(our_att), occupied, their_low, our_low, out)
    result = np.empty(N_GIRAFFE, dtype=np.float32)
    result[:N_GLOBAL + N_PIECE] = out
    result[N_GLOBAL + N_PIECE:] = low.reshape(-1)
    return result


def giraffe_features(board: chess.Board) -> np.ndarray:
    """The 363 Giraffe features of ``board`` (float32, :data:`GIRAFFE_FEATURE_NAMES` order, side to
    move's view; see the module docstring)."""
    return features_from_row(*giraffe_row(board))


def _rows_to_giraffe(rows: np.ndarray) -> np.ndarray:
    out = np.empty((len(rows), N_GIRAFFE), dtype=np.float32)
    for i, r in enumerate(rows.tolist()):
        out[i] = features_from_row(*r)
    return out


def giraffe_matrix(boards: Sequence[chess.Board] | np.ndarray, n_jobs: int = 1, *,
                   cache_dir: str | Path | None = None, use_cache: bool = True) -> np.ndarray:
    """Giraffe features of many positions: an (N, 363) float32 array.

    ``boards`` is a sequence of boards or an (N, 10) uint64 array of :func:`giraffe_row` rows.
    Extraction runs in ``n_jobs`` workers of ``search.runtime.workers`` (``-1``: all cores) and is cached
    on disk like :func:`organisms.features.feature_matrix` (same directory and file format,
    :func:`organisms.feature_cache.cached_matrix`), keyed by a BLAKE2 hash of the rows and
    :data:`GIRAFFE_FEATURE_VERSION`.
    """
    rows = boards if isinstance(boards, np.ndarray) else np.array(
        [giraffe_row(b) for b in boards], dtype=np.uint64).reshape(-1, 10)
    rows = np.ascontiguousarray(rows, dtype=np.uint64)
    return cached_matrix(rows, GIRAFFE_FEATURE_VERSION, N_GIRAFFE, _rows_to_giraffe, n_jobs, cache_dir=cache_dir,
                         use_cache=use_cache)
