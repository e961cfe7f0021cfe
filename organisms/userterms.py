"""What a term file imports: :class:`Term` and :class:`Layout`, a user's own genome layout (docs/terms.md).

A term file is a Python file (``--genome myterms.py``) or module (``--genome package.module:LAYOUT``) that binds
a :class:`Layout` to a name (``LAYOUT`` unless the spec names another). A layout is mimic's own features chosen
by name (``builtins``: a whole layout, a term, a piece's piece-square table or one feature; ``drop`` takes some
out again) followed by the user's :class:`Term`\\ s, in that order; every feature is one gene.

A term is a count for each side: ``board(b) -> (white, black)`` on a :class:`chess.Board`, or, vectorised,
``batch(rows) -> (N, 2)`` on an ``(N, 9)`` uint64 array of bitboard rows (:data:`PAWNS` ... :data:`TURN`, the
columns of ``organisms.features.bitboard_row``). Its feature is made as every built-in term's is
(``organisms.features``): White's count minus Black's, turned to the side to move's view, times ``sign``
(``-1``: a penalty), tapered by the phase φ (non-pawn material / 24) when ``taper`` asks: ``"all"`` one
feature ``NAME``; ``"mg"`` ``NAME_mg`` (× φ); ``"eg"`` ``NAME_eg`` (× (1 − φ)); ``"mg+eg"`` both. Each feature's
gene is ``bits`` wide over ``[low, high]``, centipawns per unit of the feature.

A term sees a position's pieces and side to move only (no castling rights, en-passant square or clocks: label
files' positions are cached as bitboard rows) and must not change the board it is given.

May import: chess, numpy (this module is the term files' API; it runs none of their code).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import chess
import numpy as np

PAWNS, KNIGHTS, BISHOPS, ROOKS, QUEENS, KINGS, WHITE, BLACK, TURN = range(9)
"""Columns of a bitboard row (a batch term's ``rows[:, k]``): six piece bitboards of both colours, White's and
Black's pieces, and 1 when White is to move."""

TAPERS = ("all", "mg", "eg", "mg+eg")
"""How a term's count becomes features: one untapered, middle game (× φ), endgame (× (1 − φ)), or both."""

BoardTerm = Callable[[chess.Board], Any]
"""``board(b)``: a pair of finite numbers, White's count and Black's."""
BatchTerm = Callable[[np.ndarray], Any]
"""``batch(rows)``: an (N, 2) array of finite numbers, White's counts and Black's, one row per position."""


@dataclass(frozen=True)
class Term:
    """One term of a user's layout (checked when the layout is loaded: errors name the file and the term).

    ``name``: a Python identifier, unlike any built-in feature's name. ``board`` and ``batch``: the scalar and
    the vectorised form (at least one; given both, mimic uses ``batch`` to extract features, ``board`` in the
    engine, and checks they agree on the first positions of every extraction). ``bits``: 1..52. ``low``,
    ``high``: the gene's range, centipawns per unit (a non-negative magnitude with ``sign`` saying which way
    it counts is the convention; a signed range is allowed). ``sign``: +1 a bonus, -1 a penalty. ``taper``:
    one of :data:`TAPERS`."""

    name: str
    board: BoardTerm | None = None
    batch: BatchTerm | None = None
    bits: int = 7
    low: float = 0.0
    high: float = 50.0
    sign: int = 1
    taper: str = "all"

    def feature_names(self) -> tuple[str, ...]:
        """The feature (and gene) names this term adds, in order: ``NAME``, ``NAME_mg``, ``NAME_eg``."""
        if self.taper == "all":
            return (self.name,)
        return tuple(f"{self.name}_{part}" for part in self.taper.split("+"))


@dataclass(frozen=True)
class Layout:
    """A user's genome layout: mimic's features named in ``builtins`` (minus those named in ``drop``), in
    mimic's own order, then the ``terms``' features in the order given.

    A name in ``builtins`` or ``drop`` is a layout (``"paper"``: the 49 terms of the paper, ``"rich"``: those
    plus the 368 piece-square features), a built-in term (``"rook_open_file"``, ``"passed_pawn_rank7"``: all
    of its features), ``"pst"`` (every piece-square feature) or ``"pst_knight"`` (one piece's), ``"tempo"``,
    or one feature's name (``"king_center_eg"``). Built-in features keep their genes' bits and ranges."""

    builtins: Sequence[str] = ()
    terms: Sequence[Term] = ()
    drop: Sequence[str] = ()
    description: str = ""
    """One line saying what the layout adds (shown nowhere mimic decides anything; for its readers)."""


def flip_rows(rows: np.ndarray) -> np.ndarray:
    """Bitboard rows of the mirrored positions (``chess.Board.mirror``: the board flipped vertically, colours
    and the side to move swapped), so a batch term can count Black's pieces as White's: ``count(flip_rows(r))``.
    """
    rows = np.asarray(rows, dtype=np.uint64)
    out = rows.byteswap()  # reversing a bitboard's eight bytes flips its ranks
    out[:, WHITE], out[:, BLACK] = rows[:, BLACK].byteswap(), rows[:, WHITE].byteswap()
    out[:, TURN] = 1 - rows[:, TURN]
    return out


def popcount(bitboards: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 bitboard, as int64 (a batch term's count of squares or pieces)."""
    return np.bitwise_count(np.asarray(bitboards, dtype=np.uint64)).astype(np.int64)


def bb(mask: int) -> np.uint64:
    """A python-chess bitboard (``chess.BB_FILE_A``, ``chess.BB_RANK_7``) as a numpy uint64, for batch terms."""
    return np.uint64(mask)
