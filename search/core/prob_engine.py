"""The compiled probability-limited search's engine: :class:`ProbCoreEngine`, :class:`search.prob.ProbEngine` with its
tree in numba (:mod:`search.core.prob_search`).

The same interface and driver as :class:`search.core.engine.CoreEngine` (iterative deepening, aspiration windows,
limits, the stop flag, the clock), with :class:`search.prob.ProbEngine`'s iterations: iteration ``k`` searches with
the threshold ``ITERATION_FACTOR ** -(k - 1)`` (:meth:`search.prob.ProbEngine.threshold`), ``k`` is the ``depth`` it
reports and what ``Limit.depth`` caps (at most :data:`search.prob.MAX_ITERATIONS`). Probabilities ``heuristic`` or
``uniform``; a move policy (``prob-net``) is Python's alone. A board the core does not play is searched by
:class:`~search.prob.ProbEngine` with the same evaluator and switches. Scores: centipawns, the side to move's view.
"""

from __future__ import annotations

import threading

import chess
import numpy as np

from search.base import Evaluator, Limit, SearchResult
from search.core.engine import CoreEngine, _Cut
from search.core.movegen import MAX_MOVES
from search.core.prob_search import FLOOR, PF_SIZE, THRESHOLD, UNIFORM, prob_root
from search.core.search import ABORT
from search.core.see import GAINS_LEN
from search.prob import MAX_ITERATIONS, TIE, ProbEngine
from search.root import MAX_PLY, InfoCallback

__all__ = ["ProbCoreEngine"]

_loaded = False
"""Whether this process has run the compiled probability-limited search once."""


class ProbCoreEngine(CoreEngine):
    """Giraffe's probability-limited search around an evaluator with a native form, compiled (module docstring).

    ``probabilities`` is ``"heuristic"`` (default) or ``"uniform"``; the switches are :class:`search.prob.ProbEngine`'s
    (this search has no null move and no late-move reductions)."""

    def __init__(self, evaluator: Evaluator, hash_mb: float = 16, *, probabilities: str = "heuristic",
                 aspiration: bool = True, delta_pruning: bool = True, tt_cutoffs: bool = True,
                 use_tt: bool = True) -> None:
        if probabilities not in ("heuristic", "uniform"):
            raise ValueError(f"the compiled probability-limited search takes heuristic or uniform probabilities, "
                             f"not {probabilities!r}")
        self.probabilities = probabilities
        self._pf = np.zeros(PF_SIZE, np.float64)
        self._pf[UNIFORM] = float(probabilities == "uniform")
        self._probs = np.zeros((MAX_PLY + 2, MAX_MOVES), np.float64)
        self._gains = np.zeros(GAINS_LEN, np.int64)
        self._prob_python: ProbEngine | None = None
        super().__init__(evaluator, hash_mb, null_move=False, lmr=False, aspiration=aspiration,
                         delta_pruning=delta_pruning, tt_cutoffs=tt_cutoffs, use_tt=use_tt)
        global _loaded
        if not _loaded:  # load the compiled search now, not inside the first timed move
            self.search(chess.Board(), Limit(depth=1))
            self.new_game()
            _loaded = True

    def new_game(self) -> None:
        super().new_game()
        if self._prob_python is not None:
            self._prob_python.new_game()

    def _max_iterations(self, limit: Limit) -> int:
        """The last iteration: ``limit.depth`` (iterations), else :data:`search.prob.MAX_ITERATIONS`; ``limit.mate``
        does not cap it (:meth:`search.prob.ProbEngine._max_iterations`)."""
        if limit.depth is not None:
            return max(1, min(limit.depth, MAX_ITERATIONS))
        return MAX_ITERATIONS

    def _pass(self, depth: int, alpha: int, beta: int) -> int:
        """One pass of iteration ``depth`` over the root (:func:`search.core.prob_search.prob_root`)."""
        threshold = ProbEngine.threshold(depth)
        self._pf[THRESHOLD] = threshold
        self._pf[FLOOR] = threshold * (1.0 - TIE)
        p = self._pos
        score = prob_root(p.bb, p.mb, p.st, p.keys, p.undo, self.ss, self.killers, self.history, self.pv,
                          self.moves, self.scores, self.tt.keys, self.tt.data, self._ekeys, self._evals, self._wi,
                          self._wf, self._probs, self._gains, self._pf, self._root, len(self._root), alpha, beta)
        if self.ss[ABORT]:
            raise _Cut
        return int(score)

    def _in_python(self, board: chess.Board, limit: Limit, legal: list[chess.Move], on_iteration: InfoCallback | None,
                   halt: threading.Event) -> SearchResult:
        """Search a board the core does not play with :class:`search.prob.ProbEngine` (same evaluator, switches)."""
        if self._prob_python is None:
            sw = self._switches
            self._prob_python = ProbEngine(self.evaluator, self._hash_mb, probabilities=self.probabilities,
                                           aspiration=sw["aspiration"], delta_pruning=sw["delta_pruning"],
                                           tt_cutoffs=sw["tt_cutoffs"], use_tt=sw["use_tt"])
        self._prob_python.overhead = self.overhead
        return self._prob_python.search(board, limit, root_moves=legal, on_iteration=on_iteration, stop=halt)
