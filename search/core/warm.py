"""``python -m search.core.warm``: compile (first run on a machine) or load (every later run) the compiled core.

numba compiles each ``njit(cache=True)`` function on its first call in a process that finds no cache entry, and
loads it from ``<cache root>/numba`` (:mod:`search.core.jit`) otherwise; ``make`` runs this module once after
installing, so the first ``mimic`` command does not pay the compilation. :func:`warm` calls every Python entry
point of the core once, with the argument types the callers use, and prints how long that took. It then deletes
the cache folders of other states of the core's sources (:data:`search.core.jit.CACHE_DIR`'s siblings named
``core-*``) untouched for a day: each edit or upgrade of the core leaves one behind.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import chess
import numpy as np


def warm() -> float:
    """Call every entry point of the core once on small positions; the seconds it took (import included)."""
    start = time.perf_counter()
    from search.core.board import from_board, is_insufficient, is_repetition, make_null, unmake_null
    from search.core.movegen import MAX_MOVES, gen_captures, gen_moves, in_check, is_draw, move_from_chess
    from search.core.perft import divide, perft
    from search.core.see import see

    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    perft(board, 2)
    divide(board, 1)
    p = from_board(board)
    out = np.zeros(MAX_MOVES, np.int32)
    gen_moves(p.bb, p.mb, p.st, out)
    gen_captures(p.bb, p.mb, p.st, out)
    in_check(p.bb, p.st)
    is_draw(p.bb, p.mb, p.st, p.keys)
    is_repetition(p.st, p.keys)
    is_insufficient(p.bb)
    make_null(p.bb, p.mb, p.st, p.keys, p.undo)
    unmake_null(p.bb, p.mb, p.st, p.keys, p.undo)
    see(p.bb, p.mb, p.st, np.int32(move_from_chess(board, chess.Move.from_uci("e5f7"))))
    _warm_search(board)
    return time.perf_counter() - start


class _Native:
    """An evaluator known by its native form alone (material's values): enough for the compiled search, which
    evaluates every kind through one compiled dispatch."""

    def native_form(self) -> object:
        from search.base import NativeForm
        from search.conventions import PIECE_VALUES

        return NativeForm.material(PIECE_VALUES)

    def evaluate(self, board: chess.Board) -> int:
        raise NotImplementedError("the compiled core evaluates it")


def _warm_search(board: chess.Board) -> None:
    """One short search by the compiled engine (its tree, quiescence and every native evaluator's dispatch), its
    static evaluation (:func:`search.core.evaluate.evaluate_afresh`) and one by the probability-limited search."""
    from search.base import Limit
    from search.core.engine import CoreEngine

    engine = CoreEngine(_Native(), hash_mb=1)
    engine.search(board, Limit(depth=2))
    engine.evaluate(board)
    from search.core.prob_engine import ProbCoreEngine

    ProbCoreEngine(_Native(), hash_mb=1).search(board, Limit(depth=3))  # the probability-limited search's entry


def prune(max_age_days: float = 1.0) -> int:
    """Delete the sibling cache folders (``core-*``) of the current one untouched for ``max_age_days``; how many."""
    from search.core.jit import CACHE_DIR

    current = Path(CACHE_DIR)
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    for folder in current.parent.glob("core-*"):
        if folder != current and folder.is_dir() and not folder.is_symlink() and folder.stat().st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def main() -> int:
    seconds = warm()
    from search.core.jit import CACHE_DIR

    removed = prune()
    print(f"search.core: compiled core ready in {seconds:.1f} s ({CACHE_DIR}"
          + (f"; {removed} stale cache folder{'s' * (removed != 1)} removed)" if removed else ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
