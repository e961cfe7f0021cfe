"""The organism's position features.

One fixed, named feature set (``FEATURE_NAMES``, version ``FEATURE_VERSION``) covers what the paper
evolves (material, mobility, centricity, pawn structure, king safety) plus terms strong engines add
(rooks on open/half-open files and the 7th rank, the bishop pair, knight outposts, tempo).

How a feature is made:

1. A *term* is a raw count for one side (say, White's doubled pawns), computed with bitboard
   arithmetic (:mod:`organisms.terms`). Black's terms are White's terms of the vertically flipped
   position, so colour symmetry holds by construction.
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
multiply them into centipawns. Matrices of features are cached on disk by :mod:`organisms.feature_cache`.

May import: chess, numpy, and search's leaf modules (through :mod:`organisms.feature_cache`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import chess
import numpy as np

from organisms.feature_cache import cached_matrix
from organisms.feature_cache import default_cache_dir as default_cache_dir  # re-exported: evolve.data imports it
from organisms.feature_cache import read_cached_features as read_cached_features  # re-exported (tests)
from organisms.feature_cache import save_npz_atomic as save_npz_atomic  # re-exported (tests)
from organisms.feature_cache import write_cached_features as write_cached_features  # re-exported (tests)
from organisms.terms import PHASE_MAX, board_terms, raw_terms

FEATURE_VERSION = 1
"""Bumped whenever a feature's definition changes (it keys the on-disk feature cache)."""

ALL, MG, EG = 0, 1, 2

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
TERM_DEFINITIONS: dict[str, str] = {
    **{piece: f"its {piece}s (material: the gene is a {piece}'s value)"
       for piece in ("pawn", "knight", "bishop", "rook", "queen")},
    "knight_mobility": "squares the side's knights attack that hold none of its pieces and no enemy pawn attacks",
    "bishop_mobility": "the same for its bishops (diagonals, stopped by any piece)",
    "rook_mobility": "the same for its rooks (ranks and files, stopped by any piece)",
    "queen_mobility": "the same for its queens",
    "knight_center": "its knights' centrality: 3 on d4-e5, 2 on the ring c3-f6 around them, 1 on the next ring, 0 on "
                     "the edge",
    "bishop_center": "the same for its bishops",
    "king_center": "its king's centrality (the same rings)",
    "doubled_pawn": "its pawns with one of its pawns behind them on the same file",
    "isolated_pawn": "its pawns with none of its pawns on a neighbouring file",
    "backward_pawn": "its pawns whose stop square an enemy pawn attacks and none of its pawns can ever defend",
    **{f"passed_pawn_rank{r}": f"its passed pawns (no enemy pawn in front on the same or a neighbouring file) on "
                               f"rank {r} (its own side's view)" for r in range(2, 8)},
    "connected_pawn": "its pawns defended by one of its pawns or beside one on the same rank",
    "king_shield": "its pawns one or two ranks in front of its king, on the king's file or a neighbouring one",
    "king_open_file": "files (the king's and its neighbours) with none of its pawns",
    "king_attack": "squares of the enemy king's zone (its square and neighbours) attacked, counted per knight, "
                   "bishop, rook and queen",
    "king_tropism": "7 minus the distance (king steps) to the enemy king, summed over its knights to queens",
    "rook_open_file": "its rooks on a file without pawns",
    "rook_half_open_file": "its rooks on a file with enemy pawns but none of its own",
    "rook_seventh": "its rooks on the seventh rank (its own side's view)",
    "bishop_pair": "1 when it has two bishops or more",
    "knight_outpost": "its knights on ranks 4-6 (its view) that one of its pawns defends and no enemy pawn can ever "
                      "attack",
}
"""What each term counts for one side, by name (:data:`TERM_NAMES`; :mod:`organisms.terms` is the definition, Black's
count is made on the board flipped vertically, from its own side). docs/terms.md's table of built-in terms and
``mimic export``'s comments are written from it."""
TEMPO_DEFINITION = "+1 for the side to move (the feature is the side to move's: no count of each side)"
"""What the ``tempo`` feature is."""
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
"""mimic's own feature layouts: ``paper`` (the 49 features above) and ``rich`` (those plus piece-square ones). Every
function here that takes a layout takes a user's too: a term file ``myterms.py[:NAME]`` or a module
``package.module:NAME`` (:mod:`organisms.userlayout`)."""
PST_PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")
PST_RANKS: tuple[range, ...] = (range(1, 7), *(range(8),) * 5)
"""Ranks (0 = rank 1, own point of view) each piece type has piece-square features for."""
PST_FEATURE_NAMES: tuple[str, ...] = tuple(
    f"pst_{piece}_{chess.square_name(r * 8 + f)}_{phase}"
    for piece, ranks in zip(PST_PIECES, PST_RANKS, strict=True) for phase in ("mg", "eg")
    for r in ranks for f in range(4))
N_PST = len(PST_FEATURE_NAMES)  # (24 + 5 * 32) * 2 = 368
RICH_FEATURE_NAMES: tuple[str, ...] = FEATURE_NAMES + PST_FEATURE_NAMES  # 49 + 368 = 417


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


def pst_definition(piece: str) -> str:
    """What a piece-square feature ``pst_PIECE_SQUARE_PHASE`` of ``piece`` (a name of :data:`PST_PIECES`) counts for
    one side, and what its gene is."""
    whose = "its king" if piece == "king" else f"its {piece}s"
    gene = ("the gene is the king's value there (it has no material value)" if piece == "king" else
            f"the gene is a signed offset added to a {piece}'s material value")
    return (f"{whose} on the square or on its file mirror (c3 counts c3 and f3), each side's squares seen from its "
            f"own side (Black's flipped vertically); {gene}")


def feature_names(layout: str = "paper") -> tuple[str, ...]:
    """The feature (and gene) names of a layout, in column order (a user's term file or module: its own,
    :mod:`organisms.userlayout`)."""
    if layout == "paper":
        return FEATURE_NAMES
    if layout == "rich":
        return RICH_FEATURE_NAMES
    from organisms.userlayout import load_layout

    return load_layout(layout).names


def has_pst(layout: str) -> bool:
    """Whether a layout has piece-square features (``rich``, or a user's layout that chose some)."""
    return any(name.startswith("pst_") for name in feature_names(layout))


def layout_of(names: Sequence[str]) -> str | None:
    """The layout whose feature names are exactly ``names`` (in order), or ``None``."""
    names = tuple(names)
    for layout in LAYOUTS:
        if names == feature_names(layout):
            return layout
    return None


def feature_set_id(layout: str = "paper") -> str:
    """The name and version of a layout's feature set, as the feature cache keys it:
    ``features-v1-49`` (paper) and ``features-v1-rich-417`` (rich); a user's layout: the SHA-256 of its file
    (:attr:`organisms.userlayout.UserLayout.feature_set`)."""
    if layout not in LAYOUTS:
        from organisms.userlayout import load_layout

        return f"features-v{FEATURE_VERSION}-" + load_layout(layout).feature_set
    n = len(feature_names(layout))
    return f"features-v{FEATURE_VERSION}-{n}" if layout == "paper" else f"features-v{FEATURE_VERSION}-{layout}-{n}"



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
    if layout not in LAYOUTS:
        return _user_matrix(np.array([bitboard_row(board)], dtype=np.uint64), layout)[0]
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


def feature_matrix(boards: Sequence[chess.Board] | np.ndarray, n_jobs: int = 1,
                   cache_dir: str | Path | None = None, use_cache: bool = True, layout: str = "paper") -> np.ndarray:
    """Features of many positions, an (N, P) float32 array in :func:`feature_names` order of ``layout``
    (``paper``: P = 49; ``rich``: P = 417, the piece-square columns computed vectorised from the rows).

    ``boards`` is a sequence of boards or an (N, 9) uint64 array of :func:`bitboard_row` rows.
    Extraction runs in ``n_jobs`` workers of ``search.runtime.workers`` (``-1``: all cores; fewer than
    2,000 rows in this process) and is cached on disk as ``.npz`` under ``cache_dir`` (default
    :func:`default_cache_dir`), keyed by a BLAKE2 hash of the positions and :func:`feature_set_id` of the
    layout, with that key and a digest of both keyed with the user's secret cache key stored inside: a cache hit
    whose key and digest agree returns without extracting anything; any other file is recomputed
    (:func:`organisms.feature_cache.cached_matrix`).
    """
    rows = boards if isinstance(boards, np.ndarray) else np.array(
        [bitboard_row(b) for b in boards], dtype=np.uint64).reshape(-1, 9)
    rows = np.ascontiguousarray(rows, dtype=np.uint64)
    if layout not in LAYOUTS:
        return _user_matrix(rows, layout, n_jobs, cache_dir, use_cache)
    return cached_matrix(rows, feature_set_id(layout), len(feature_names(layout)), _rows_to_features, n_jobs,
                         args=(layout,), cache_dir=cache_dir, use_cache=use_cache)


def _user_matrix(rows: np.ndarray, layout: str, n_jobs: int = 1, cache_dir: str | Path | None = None,
                 use_cache: bool = False) -> np.ndarray:
    """:func:`feature_matrix` of a user's layout (:mod:`organisms.userfeatures`): the workers get its source and
    digest, and rebuild it (its cache key holds the digest)."""
    from organisms.userfeatures import user_rows_to_features
    from organisms.userlayout import load_layout

    user = load_layout(layout)
    return cached_matrix(rows, feature_set_id(layout), len(user.names), user_rows_to_features, n_jobs,
                         args=(user.source, user.sha256), cache_dir=cache_dir, use_cache=use_cache)
