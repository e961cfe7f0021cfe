"""The organism's position features.

One fixed, named feature set (``FEATURE_NAMES``, version ``FEATURE_VERSION``) covers what the paper
evolves (material, mobility, centricity, pawn structure, king safety) plus terms strong engines add
(rooks on open/half-open files and the 7th rank, the bishop pair, knight outposts, tempo).

How a feature is made:

1. A *term* is a raw count for one side (say, White's doubled pawns), computed with bitboard
   arithmetic. Black's terms are White's terms of the vertically flipped position, so colour
   symmetry holds by construction.
2. The term's value is White's count minus Black's count, turned to the side to move's view
   (negated when Black is to move).
3. Where strong engines taper a term by game phase, it becomes a middle-game feature
   ``term × φ`` and an endgame feature ``term × (1 − φ)``, with φ = non-pawn material phase / 24
   (knight and bishop 1, rook 2, queen 4; capped at 24; φ = 1 in the opening). An evaluation
   ``weights · features`` stays linear in the weights.
4. Each feature is oriented so that its weight (gene) is a non-negative magnitude: a penalty
   (doubled pawns, an open file by one's king) is a feature counting *against* the side that has
   it, i.e. its sign is flipped.

``tempo`` is +1 for the side to move. In the start position every feature is 0 except ``tempo``.
Units: features are counts (squares, pawns, pieces) or fractions of counts when tapered; weights
multiply them into centipawns.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np

FEATURE_VERSION = 1
"""Bumped whenever a feature's definition changes (it keys the on-disk feature cache)."""

ALL, MG, EG = 0, 1, 2
PHASE_MAX = 24

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

# The terms, in order: (name, taper, orientation). taper ALL makes one feature, MG one feature
# (× φ), MG+EG two. Orientation −1 marks a penalty. king_center is a penalty in the middle game and a
# bonus in the endgame, so it is given per phase.
_TERMS: list[tuple[str, tuple[tuple[int, int], ...]]] = [
    ("pawn", ((ALL, 1),)),
    ("knight", ((ALL, 1),)),
    ("bishop", ((ALL, 1),)),
    ("rook", ((ALL, 1),)),
    ("queen", ((ALL, 1),)),
    ("knight_mobility", ((MG, 1), (EG, 1))),
    ("bishop_mobility", ((MG, 1), (EG, 1))),
    ("rook_mobility", ((MG, 1), (EG, 1))),
    ("queen_mobility", ((MG, 1), (EG, 1))),
    ("knight_center", ((ALL, 1),)),
    ("bishop_center", ((ALL, 1),)),
    ("king_center", ((MG, -1), (EG, 1))),
    ("doubled_pawn", ((MG, -1), (EG, -1))),
    ("isolated_pawn", ((MG, -1), (EG, -1))),
    ("backward_pawn", ((MG, -1), (EG, -1))),
    *((f"passed_pawn_rank{r}", ((MG, 1), (EG, 1))) for r in range(2, 8)),
    ("connected_pawn", ((MG, 1), (EG, 1))),
    ("king_shield", ((MG, 1),)),
    ("king_open_file", ((MG, -1),)),
    ("king_attack", ((MG, 1),)),
    ("king_tropism", ((MG, 1),)),
    ("rook_open_file", ((ALL, 1),)),
    ("rook_half_open_file", ((ALL, 1),)),
    ("rook_seventh", ((MG, 1), (EG, 1))),
    ("bishop_pair", ((MG, 1), (EG, 1))),
    ("knight_outpost", ((ALL, 1),)),
]
TERM_NAMES: tuple[str, ...] = tuple(name for name, _ in _TERMS)
N_TERMS = len(TERM_NAMES)
_SUFFIX = {ALL: "", MG: "_mg", EG: "_eg"}

# One row per feature: (term index or -1 for tempo, taper, orientation).
FEATURE_SPEC: tuple[tuple[int, int, int], ...] = (
    *((i, taper, sign) for i, (_, parts) in enumerate(_TERMS) for taper, sign in parts),
    (-1, ALL, 1),
)
FEATURE_NAMES: tuple[str, ...] = (
    *(name + _SUFFIX[taper] for name, parts in _TERMS for taper, _ in parts),
    "tempo",
)
N_FEATURES = len(FEATURE_NAMES)
TEMPO = N_FEATURES - 1

# ---------------------------------------------------------------------------------------------------
# The rich layout: the paper's features followed by piece-square features.
#
# Symmetry: files are mirrored (a<->h, b<->g, c<->f, d<->e) and each side's squares are read from its
# own point of view (Black's vertically flipped), so a piece type has 32 squares (a1-d8), pawns 24
# (ranks 2-7). The feature of (piece, square, phase) is the number of White's pieces of that type on
# the square or its file mirror, minus Black's on the vertically flipped ones, turned to the side to
# move's view, times phi (``_mg``) or 1 - phi (``_eg``). Its weight is a signed offset in centipawns
# added to the material gene. Feature names read ``pst_knight_c3_mg``.
LAYOUTS = ("paper", "rich")
"""The feature layouts: ``paper`` (the 49 features above) and ``rich`` (those plus piece-square ones)."""
PST_PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")
PST_RANKS: tuple[range, ...] = (range(1, 7), *(range(8),) * 5)
"""Ranks (0 = rank 1, own point of view) each piece type has piece-square features for."""
PST_FEATURE_NAMES: tuple[str, ...] = tuple(
    f"pst_{piece}_{chess.square_name(r * 8 + f)}_{phase}"
    for piece, ranks in zip(PST_PIECES, PST_RANKS, strict=True) for phase in ("mg", "eg")
    for r in ranks for f in range(4))
N_PST = len(PST_FEATURE_NAMES)  # (24 + 5 * 32) * 2 = 368
RICH_FEATURE_NAMES: tuple[str, ...] = FEATURE_NAMES + PST_FEATURE_NAMES
N_RICH = len(RICH_FEATURE_NAMES)  # 49 + 368 = 417


def _pst_column(piece: int, square: int) -> int:
    """Column within the PST block of the ``_mg`` feature of a piece (0 = pawn .. 5 = king) of the side
    whose own-view square is ``square``; the ``_eg`` column follows its piece's mg block. -1 when none
    (a pawn on rank 1 or 8)."""
    rank, file = square >> 3, min(square & 7, 7 - (square & 7))
    ranks = PST_RANKS[piece]
    if rank not in ranks:
        return -1
    start = sum(2 * 4 * len(r) for r in PST_RANKS[:piece])
    return start + (rank - ranks.start) * 4 + file


PST_MG_COLUMN: tuple[tuple[int, ...], ...] = tuple(tuple(_pst_column(p, s) for s in range(64)) for p in range(6))
"""``PST_MG_COLUMN[piece][own-view square]``: the mg column in the PST block (eg: plus ``4 * ranks``)."""
PST_EG_SHIFT: tuple[int, ...] = tuple(4 * len(r) for r in PST_RANKS)


def feature_names(layout: str = "paper") -> tuple[str, ...]:
    """The feature (and gene) names of a layout, in column order."""
    if layout == "paper":
        return FEATURE_NAMES
    if layout == "rich":
        return RICH_FEATURE_NAMES
    raise ValueError(f"unknown genome layout {layout!r} (one of {', '.join(LAYOUTS)})")


def layout_of(names: Sequence[str]) -> str | None:
    """The layout whose feature names are exactly ``names`` (in order), or ``None``."""
    names = tuple(names)
    for layout in LAYOUTS:
        if names == feature_names(layout):
            return layout
    return None


def feature_set_id(layout: str = "paper") -> str:
    """The name and version of a layout's feature set, as the feature cache keys it:
    ``features-v1-49`` (paper) and ``features-v1-rich-417`` (rich)."""
    n = len(feature_names(layout))
    return f"features-v{FEATURE_VERSION}-{n}" if layout == "paper" else f"features-v{FEATURE_VERSION}-{layout}-{n}"


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


def bitboard_row(board: chess.Board) -> tuple[int, ...]:
    """The nine integers features depend on: piece bitboards, colours and the side to move."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], int(board.turn))


def _features_from_terms(phase: np.ndarray, terms: np.ndarray, white_to_move: np.ndarray) -> np.ndarray:
    """Vectorised step 2–4 of the module docstring: (N,), (N, T), (N,) -> (N, P) float32."""
    phi = phase.astype(np.float64) / PHASE_MAX
    sign = np.where(white_to_move, 1.0, -1.0)
    out = np.empty((len(phase), N_FEATURES), dtype=np.float64)
    for j, (t, taper, orient) in enumerate(FEATURE_SPEC):
        if t < 0:
            out[:, j] = 1.0
            continue
        col = terms[:, t] * (sign * orient)
        if taper == MG:
            col = col * phi
        elif taper == EG:
            col = col * (1.0 - phi)
        out[:, j] = col
    return out.astype(np.float32)


def features(board: chess.Board, layout: str = "paper") -> np.ndarray:
    """The feature vector of ``board`` (float32, :func:`feature_names` order, side to move's view)."""
    if layout != "paper":
        return _rows_to_features(np.array([bitboard_row(board)], dtype=np.uint64), layout)[0]
    phase, terms = board_terms(board)
    return _features_from_terms(np.array([phase]), np.array([terms], dtype=np.float64),
                                np.array([board.turn]))[0]


def _squares(bitboards: np.ndarray, flip: bool) -> np.ndarray:
    """(N,) uint64 bitboards -> (N, 8 ranks, 8 files) uint8 0/1, vertically flipped when ``flip``."""
    as_bytes = np.ascontiguousarray(bitboards, dtype="<u8").view(np.uint8).reshape(-1, 8)
    if flip:
        as_bytes = as_bytes[:, ::-1]
    return np.unpackbits(as_bytes, axis=1, bitorder="little").reshape(-1, 8, 8)


def pst_features(rows: np.ndarray) -> np.ndarray:
    """The piece-square features (``PST_FEATURE_NAMES`` order, float32, side to move's view) of
    :func:`bitboard_row` rows, vectorised: each piece bitboard is unpacked to 0/1 squares, Black's
    flipped vertically, White's minus Black's folded onto files a-d, then tapered by the phase."""
    rows = np.asarray(rows, dtype=np.uint64).reshape(-1, 9)
    white, black = rows[:, 6], rows[:, 7]
    pieces = rows[:, :5]
    phase = sum((np.bitwise_count(pieces[:, k]).astype(np.int64) * w for k, w in ((1, 1), (2, 1), (3, 2), (4, 4))),
                np.zeros(len(rows), dtype=np.int64))
    phi = np.minimum(phase, PHASE_MAX).astype(np.float32) / PHASE_MAX
    sign = np.where(rows[:, 8].astype(bool), np.float32(1.0), np.float32(-1.0))
    mg_scale, eg_scale = (sign * phi)[:, None], (sign * (1 - phi))[:, None]
    out = np.empty((len(rows), N_PST), dtype=np.float32)
    col = 0
    for k, ranks in enumerate(PST_RANKS):
        diff = _squares(rows[:, k] & white, False).astype(np.int8) - _squares(rows[:, k] & black, True)
        folded = (diff[:, :, :4] + diff[:, :, 7:3:-1])[:, ranks.start:ranks.stop].reshape(len(rows), -1)
        n = folded.shape[1]
        out[:, col:col + n] = folded * mg_scale
        out[:, col + n:col + 2 * n] = folded * eg_scale
        col += 2 * n
    return out


def _rows_to_features(rows: np.ndarray, layout: str = "paper") -> np.ndarray:
    """Features of many positions given as :func:`bitboard_row` rows (an (N, 9) uint64 array)."""
    phases = np.empty(len(rows), dtype=np.int64)
    terms = np.empty((len(rows), N_TERMS), dtype=np.float64)
    for i, r in enumerate(rows.tolist()):
        phases[i], terms[i] = raw_terms(*r[:8])
    paper = _features_from_terms(phases, terms, rows[:, 8].astype(bool))
    if layout == "paper":
        return paper
    feature_names(layout)  # refuses an unknown layout
    return np.concatenate([paper, pst_features(rows)], axis=1)


def feature_key(layout: str = "paper") -> str:
    """The name and version of a layout's feature set (:func:`feature_set_id`): it keys every cache of
    features (:func:`feature_matrix`'s and ``evolve.data.cache``'s); a change of any feature's definition bumps
    :data:`FEATURE_VERSION`."""
    return feature_set_id(layout)


def default_cache_dir() -> Path:
    """``$MIMIC_CACHE`` or ``~/.cache/mimic``, plus ``features/``."""
    root = os.environ.get("MIMIC_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "mimic")
    return Path(root) / "features"


def feature_matrix(boards: Sequence[chess.Board] | np.ndarray, n_jobs: int = 1,
                   cache_dir: str | Path | None = None, use_cache: bool = True,
                   parallel_options: Mapping[str, Any] | None = None, layout: str = "paper") -> np.ndarray:
    """Features of many positions, an (N, P) float32 array in :func:`feature_names` order of ``layout``
    (``paper``: P = 49; ``rich``: P = 417, the piece-square columns computed vectorised from the rows).

    ``boards`` is a sequence of boards or an (N, 9) uint64 array of :func:`bitboard_row` rows.
    Extraction runs in ``n_jobs`` joblib workers (``-1``: all cores) and is cached on disk as ``.npz``
    under ``cache_dir`` (default :func:`default_cache_dir`), keyed by a BLAKE2 hash of the positions
    and :func:`feature_set_id` of the layout, with that key and a checksum of the values stored inside: a cache hit
    whose key and checksum agree returns without extracting anything; any other file is recomputed.
    ``parallel_options`` go to ``joblib.Parallel`` (``search.runtime.workers.pool_options()`` makes the workers
    exit with their parent).
    """
    rows = boards if isinstance(boards, np.ndarray) else np.array(
        [bitboard_row(b) for b in boards], dtype=np.uint64).reshape(-1, 9)
    rows = np.ascontiguousarray(rows, dtype=np.uint64)
    n_cols = len(feature_names(layout))
    path = key = None
    if use_cache:
        digest = hashlib.blake2b(rows.tobytes(), digest_size=20)
        digest.update(feature_set_id(layout).encode())
        key = digest.hexdigest()
        path = Path(cache_dir or default_cache_dir()) / f"{key}.npz"
        cached = read_cached_features(path, key, len(rows), n_cols)
        if cached is not None:
            return cached
    if len(rows) == 0:
        result = np.zeros((0, n_cols), dtype=np.float32)
    elif n_jobs == 1 or len(rows) < 2000:
        result = _rows_to_features(rows, layout)
    else:
        from joblib import Parallel, cpu_count, delayed

        workers = cpu_count() if n_jobs < 0 else n_jobs
        chunks = np.array_split(rows, max(workers * 4, 1))
        parts = Parallel(n_jobs=workers, **(parallel_options or {}))(
            delayed(_rows_to_features)(c, layout) for c in chunks if len(c))
        result = np.concatenate(parts)
    if path is not None and key is not None:
        write_cached_features(path, key, result)
    return result


def _checksum(features: np.ndarray) -> str:
    """BLAKE2 of a feature matrix's shape and bytes (what the cache stores beside it)."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(repr(features.shape).encode())
    digest.update(np.ascontiguousarray(features, dtype=np.float32).tobytes())
    return digest.hexdigest()


def read_cached_features(path: Path, key: str, n: int, n_cols: int = N_FEATURES) -> np.ndarray | None:
    """The cached (n, n_cols) float32 features in ``path``, or ``None`` when the file is missing, truncated,
    unreadable, made for other positions (``key``), of another shape, or its values do not match the
    checksum stored with them: the caller then recomputes (and rewrites) them."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if set(data.files) != {"features", "key", "checksum"}:
                return None
            features, stored_key, checksum = data["features"], str(data["key"]), str(data["checksum"])
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        return None
    if (stored_key != key or features.dtype != np.float32 or features.shape != (n, n_cols)
            or checksum != _checksum(features)):
        return None
    return features


def write_cached_features(path: Path, key: str, features: np.ndarray) -> bool:
    """Store ``features`` for the positions ``key`` names, with their checksum, in one ``.npz`` written
    beside and moved into place. A cache that cannot be written (full disk, read-only) is skipped:
    returns False, and nothing half-written is left."""
    return save_npz_atomic(path, {"features": features, "key": np.array(key),
                                  "checksum": np.array(_checksum(features))})


def save_npz_atomic(path: Path, arrays: dict[str, Any]) -> bool:
    """Write ``arrays`` as one ``.npz`` beside ``path`` and move it into place (a cache file: whole or absent).
    A file that cannot be written (full disk, read-only) is skipped: returns False, nothing half-written is
    left. Shared by the feature cache and ``evolve.data.cache``'s label cache."""
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True
