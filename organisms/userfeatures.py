"""A user layout's features (:mod:`organisms.userlayout`): its built-in columns and its own terms' counts, made from
bitboard rows (cached and in parallel by ``organisms.features.feature_matrix``), and the organism's evaluation of
its terms in the engine.

A user term's feature is made as a built-in term's (``organisms.features``, steps 2-4): its count for White minus
its count for Black, turned to the side to move's view (negated when Black is to move), times the term's ``sign``,
times φ (``_mg``), 1 − φ (``_eg``) or 1, φ = min(non-pawn material, 24) / 24 (knight and bishop 1, rook 2, queen 4).
Counts are what the term returns (squares, pieces, or any finite number); weights multiply features into
centipawns.

A term's form: with ``batch``, the rows (read-only, ``(N, 9)`` uint64) go to it in one call per chunk of positions;
``board`` is called once per position on a :class:`chess.Board` built from the row (pieces and side to move; no
castling rights, en passant or clocks), the same board for every term of that position: for a term without
``batch``, and for one with both, whose two counts are compared on every position (the engine plays ``board``).
A term that raises, returns anything but a pair of finite numbers within :data:`MAX_COUNT` (``(N, 2)`` for
``batch``), changes its board, or whose two forms disagree is a :class:`TermError`: one line naming the term, its
file, for an exception the line of the term file it was at, and the position as the term was given it (FEN), exit 2.
Whatever a term raises is its failure (``SystemExit``, ``GeneratorExit``, its own ``KeyboardInterrupt``), but the
user's Ctrl-C, which goes through as everywhere in mimic (:func:`organisms.userlayout.interrupted`). In the engine,
``board`` gets the engine's own board, and only the terms the organism weighs run (:class:`UserTerms`).

May import: chess, numpy; ``organisms.features``, ``organisms.terms``, ``organisms.userlayout``,
``organisms.userterms``, ``search.runtime``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import chess
import numpy as np

from organisms.features import ALL, EG, MG, N_FEATURES, TEMPO, _rows_to_features, bitboard_row, pst_features
from organisms.terms import PHASE_MAX
from organisms.userlayout import UserLayout, interrupted, line_of, load_checked, one_line
from organisms.userterms import Term
from search.runtime.errors import MimicError

MAX_COUNT = 1_000_000
"""The largest count (absolute value) a term may return for a side. No count of a position comes near it (squares,
pieces, distances, even material in centipawns), and White's minus Black's, at most twice it, stays an exact integer
in the float32 features (exact to 2**24) and a sane coefficient for the fit's solvers; a term returning 1e300 is a
bug, refused here rather than met as infinities in a fit."""

_REAL = (int, float, np.integer, np.floating, np.bool_)
"""What a count may be (bool is an int)."""


class TermError(MimicError, ValueError):
    """A user term that failed on a position: ``term NAME of FILE: what happened, at FEN``. Exit 2."""


def board_of_row(row: Sequence[int]) -> chess.Board:
    """The board of a bitboard row (``organisms.features.bitboard_row``): its pieces and side to move, no castling
    rights, no en-passant square, clocks 0 and 1."""
    board = chess.Board.empty()
    board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings = map(int, row[:6])
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = int(row[6]), int(row[7])
    board.occupied = int(row[6]) | int(row[7])
    board.turn = bool(row[8])
    return board


def _failure(term: Term, source: str, problem: str, fen: str) -> TermError:
    return TermError(f"term {term.name!r} of {source}: {problem}, at {fen}")


def _raised(exc: BaseException, file: str) -> str:
    """``raised Type: message (line N)``: the exception on one line and the line of the term file (``file``) the
    innermost frame in it was at."""
    return f"raised {one_line(exc)}{line_of(exc, file)}"


_State = tuple[int, int, int, int, int, int, int, int, bool, int, int | None, int, int]


def _state(board: chess.Board) -> _State:
    """What a term must leave as it found it: the pieces, the side to move, castling rights, the en-passant square and
    the clocks."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.turn, board.castling_rights,
            board.ep_square, board.halfmove_clock, board.fullmove_number)


def _fen(state: _State) -> str:
    """The FEN of a board in ``state`` (:func:`_state`): the position a term was given, after it changed it."""
    board = chess.Board.empty()
    board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings = state[:6]
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = state[6], state[7]
    board.occupied = state[6] | state[7]
    board.turn, board.castling_rights, board.ep_square, board.halfmove_clock, board.fullmove_number = state[8:]
    return board.fen()


def _difference(value: object, term: Term, source: str, fen: Callable[[], str]) -> float:
    """White's count minus Black's of a ``board`` term's ``value``; a :class:`TermError` unless it is a pair (a
    tuple, a list or a one-dimensional numpy array) of finite numbers."""
    pair: Sequence[object] = value if isinstance(value, tuple | list) else (
        list(value) if isinstance(value, np.ndarray) and value.ndim == 1 else ())
    if len(pair) != 2:
        raise _failure(term, source, f"returned {str(value)[:60]!r}, not a pair (white, black)", fen())
    white, black = pair
    if not (isinstance(white, _REAL) and isinstance(black, _REAL)):
        raise _failure(term, source, f"returned {str(value)[:60]!r}, not a pair of numbers", fen())
    try:
        w, b = float(white), float(black)
    except OverflowError:  # an int beyond any float
        w = b = 2.0 * MAX_COUNT
    if not (math.isfinite(w) and math.isfinite(b)):
        raise _failure(term, source, f"returned {str(value)[:60]}, not finite", fen())
    if abs(w) > MAX_COUNT or abs(b) > MAX_COUNT:
        raise _failure(term, source, f"returned {str(value)[:60]}, {_BEYOND}", fen())
    return w - b


_BEYOND = f"beyond ±{MAX_COUNT:,} (a count's bound)"


def board_difference(term: Term, board: chess.Board, source: str, file: str) -> float:
    """White's count minus Black's of a ``board`` term on ``board`` (checked: see the module docstring); ``source``
    names the layout in errors, ``file`` is its term file (an error names the line of it that raised)."""
    assert term.board is not None
    before = _state(board)
    try:
        value = term.board(board)
    except BaseException as exc:  # the user's code: whatever it raises is the term's (sys.exit too), but a Ctrl-C
        if interrupted(exc):
            raise
        raise _failure(term, source, _raised(exc, file), _fen(before)) from exc
    if _state(board) != before:
        raise _failure(term, source, "changed the board it was given (a term may only read it)", _fen(before))
    return _difference(value, term, source, board.fen)


def _batch_differences(term: Term, rows: np.ndarray, source: str, file: str) -> np.ndarray:
    """White's counts minus Black's of a ``batch`` term on ``rows`` (checked: see the module docstring; ``source`` and
    ``file`` as for :func:`board_difference`)."""
    assert term.batch is not None
    n = len(rows)
    view = rows.view()
    view.flags.writeable = False

    def fen(i: int) -> str:
        return board_of_row(rows[i].tolist()).fen()

    try:
        value = term.batch(view)
    except BaseException as exc:  # the user's code (as for board_difference): the first position it fails on alone
        if interrupted(exc):
            raise
        first = next((i for i in range(n) if _raises(term.batch, view[i:i + 1])), 0)
        raise _failure(term, source, _raised(exc, file), fen(first)) from exc
    raw = np.asarray(value)
    if raw.dtype.kind not in "biuf":
        raise _failure(term, source, f"returned {raw.dtype} values, not numbers", fen(0))
    if raw.shape != (n, 2):
        raise _failure(term, source, f"returned shape {raw.shape} for {n} positions, not ({n}, 2)", fen(0))
    counts = raw.astype(np.float64)
    bad = ~np.isfinite(counts).all(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise _failure(term, source, f"returned ({counts[i, 0]}, {counts[i, 1]}), not finite", fen(i))
    big = (np.abs(counts) > MAX_COUNT).any(axis=1)
    if big.any():
        i = int(np.argmax(big))
        raise _failure(term, source, f"returned ({counts[i, 0]:g}, {counts[i, 1]:g}), {_BEYOND}", fen(i))
    return counts[:, 0] - counts[:, 1]


def _raises(function: Callable[[np.ndarray], object], rows: np.ndarray) -> bool:
    try:
        function(rows)
    except BaseException as exc:  # the user's code
        if interrupted(exc):
            raise
        return True
    return False


def term_differences(layout: UserLayout, rows: np.ndarray) -> np.ndarray:
    """(terms, N) float64: each user term's White count minus Black count on each row (White's view). A term with
    both forms has its ``board`` form run on every row too (the board the engine will give it) and compared with its
    ``batch`` form's count, one board a row for every ``board`` form."""
    out = np.zeros((len(layout.groups), len(rows)), dtype=np.float64)
    boards: list[tuple[int, Term]] = []
    checked = []
    for g, group in enumerate(layout.groups):
        term = group.term
        if term.batch is not None:
            out[g] = _batch_differences(term, rows, layout.source, layout.file)
        if term.board is not None:
            boards.append((g, term))
            checked.append(term.batch is not None)
    if boards:
        for i, row in enumerate(rows.tolist()):
            board = board_of_row(row)
            for (g, term), check in zip(boards, checked, strict=True):
                d = board_difference(term, board, layout.source, layout.file)
                if not check:
                    out[g, i] = d
                elif not math.isclose(d, out[g, i], rel_tol=1e-9, abs_tol=1e-9):
                    raise _failure(term, layout.source, f"its board and batch forms disagree (White minus Black: "
                                   f"{d:g} and {out[g, i]:g})", board.fen())
    return out


def phase_of_rows(rows: np.ndarray) -> np.ndarray:
    """(N,) int64: each row's game phase, non-pawn material (knight and bishop 1, rook 2, queen 4) capped at 24."""
    phase = sum((np.bitwise_count(rows[:, k]).astype(np.int64) * w for k, w in ((1, 1), (2, 1), (3, 2), (4, 4))),
                np.zeros(len(rows), dtype=np.int64))
    return np.minimum(phase, PHASE_MAX)


def builtin_features(rows: np.ndarray, columns: Sequence[int]) -> np.ndarray:
    """(N, len(columns)) float32: the built-in features of ``organisms.features.RICH_FEATURE_NAMES``'s ``columns``
    (ascending), computing only the parts they need (the raw terms, the piece-square block)."""
    paper = [j for j in columns if j < N_FEATURES]
    pst = [j - N_FEATURES for j in columns if j >= N_FEATURES]
    parts = []
    if paper:
        if any(j != TEMPO for j in paper):
            parts.append(_rows_to_features(rows, "paper")[:, paper])
        else:
            parts.append(np.ones((len(rows), 1), dtype=np.float32))
    if pst:
        parts.append(pst_features(rows)[:, pst])
    return np.concatenate(parts, axis=1) if parts else np.zeros((len(rows), 0), dtype=np.float32)


def user_rows_to_features(rows: np.ndarray, source: str, sha256: str) -> np.ndarray:
    """(N, P) float32 features of the user layout ``source`` (its file's digest must be ``sha256``) of bitboard rows,
    in its ``names`` order, side to move's view (see the module docstring)."""
    layout = load_checked(source, sha256)
    rows = np.ascontiguousarray(rows, dtype=np.uint64).reshape(-1, 9)
    out = np.empty((len(rows), len(layout.names)), dtype=np.float32)
    nb = len(layout.builtin)
    out[:, :nb] = builtin_features(rows, layout.builtin)
    if layout.groups:
        diffs = term_differences(layout, rows)
        phi = phase_of_rows(rows).astype(np.float64) / PHASE_MAX
        to_move = np.where(rows[:, 8].astype(bool), 1.0, -1.0)
        factor = {ALL: np.ones(len(rows)), MG: phi, EG: 1.0 - phi}
        for g, group in enumerate(layout.groups):
            signed = diffs[g] * to_move * group.term.sign
            for col, taper in zip(group.columns, group.tapers, strict=True):
                out[:, col] = signed * factor[taper]
    return out


class UserTerms:
    """An organism's user terms in the engine: per term with a non-zero weight, its middle-game and endgame weight
    (centipawns per count, White's view, the term's sign folded in)."""

    def __init__(self, layout: UserLayout, weights: Sequence[float]) -> None:
        """``weights``: the organism's, one per feature of ``layout.names``."""
        self.source, self.file = layout.source, layout.file
        self.terms: list[tuple[Term, float, float]] = []
        for group in layout.groups:
            mg = eg = 0.0
            for col, taper in zip(group.columns, group.tapers, strict=True):
                w = float(weights[col]) * group.term.sign
                mg += w if taper in (ALL, MG) else 0.0
                eg += w if taper in (ALL, EG) else 0.0
            if mg or eg:
                self.terms.append((group.term, mg, eg))

    def white_view(self, board: chess.Board, phase: int) -> float:
        """The user terms' part of the evaluation, centipawns from White's view, at ``phase`` (0-24)."""
        phi = phase / PHASE_MAX
        total = 0.0
        for term, mg, eg in self.terms:
            total += term_difference(term, board, self.source, self.file) * (mg * phi + eg * (1.0 - phi))
        return total


def term_difference(term: Term, board: chess.Board, source: str, file: str) -> float:
    """White's count minus Black's of ``term`` on one board, as the engine takes it: its ``board`` form, else its
    ``batch`` form on the board's one row (checked; ``source`` and ``file`` as for :func:`board_difference`)."""
    if term.board is not None:
        return board_difference(term, board, source, file)
    return float(_batch_differences(term, np.array([bitboard_row(board)], dtype=np.uint64), source, file)[0])
