"""The compiled core's engine: :class:`CoreEngine`, today's :class:`search.engine.Engine` with its tree in numba.

The same public interface as :class:`search.Engine` (``search(board, limit, *, root_moves, on_iteration, stop)``
returning a :class:`~search.base.SearchResult`, ``new_game``, ``set_hash``, ``set_evaluator``, ``evaluate``,
``overhead``, ``tt.usage_permille()``) and the same driver (:meth:`search.root.RootSearch.search`): iterative
deepening, aspiration windows from depth 4 (:data:`search.root.ASPIRATION`, widened as today), the time budget of
:mod:`search.timeman`, the soft budget between iterations, ``limit.mate``, ``searchmoves``; each pass over the root is
one call of :func:`search.core.search.search_root`, which runs without the GIL. python-chess stays at the edges: the
root's moves are ordered by :func:`search.ordering.order_moves` and the result's moves are ``chess.Move``.

The caller's stop flag (a ``threading.Event``) and the hard time budget reach the compiled search through its state
array: the process's watcher thread (:mod:`search.core.watch`) raises ``ss[STOP]`` when the flag is set and
``ss[TIMEUP]`` at the deadline, and the search reads them every :data:`search.core.search.POLL_EVERY` nodes. The
evaluator must have a native form (:func:`search.base.native_form_of` not ``None``): the engine
then calls only the core's :func:`search.core.evaluate.evaluate`. Scores: centipawns, the side to move's view.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

import chess
import numpy as np

from search.base import INFINITE, MATE, MATE_BOUND, Evaluator, Limit, SearchResult, native_form_of
from search.core.board import KIDX, Unsupported, from_board
from search.core.evaluate import evaluate_afresh, native_args
from search.core.jit import compiling
from search.core.movegen import MAX_MOVES, move_from_chess, move_to_chess
from search.core.search import (
    ABORT,
    ABORTABLE,
    AGE,
    DELTA,
    EVAL_SLOTS,
    KIND,
    LMR_MIN,
    NEXT_CHECK,
    NODE_LIMIT,
    NODES,
    NULL_MIN,
    ROOT_BEST,
    ROOT_BEST_SCORE,
    ROOT_PV,
    SELDEPTH,
    SS_SIZE,
    STOP,
    TIMEUP,
    TT_CUTOFFS,
    USE_TT,
    search_root,
)
from search.core.tt import D_AGE, D_MOVE, CoreTable
from search.core.watch import WATCHER
from search.engine import DELTA_MARGIN, Engine
from search.ordering import order_moves
from search.root import ASPIRATION, MAX_PLY, InfoCallback
from search.timeman import budget

__all__ = ["CoreEngine"]


_loaded = False
"""Whether this process has run the compiled search once (numba loads a cached function at its first call)."""


class _Cut(Exception):
    """A pass over the root was cut short (stop flag, node limit, clock)."""


class CoreEngine:
    """Alpha-beta searcher around an evaluator with a native form, compiled (module docstring).

    ``hash_mb`` sizes the transposition table (MiB); the switches are :class:`search.engine.Engine`'s (all on by
    default; off, the root score at a fixed depth is the minimax value of the tree the engine defines). A board the
    core does not play (chess960, a variant: :class:`search.core.board.Unsupported`) is searched by today's engine
    with the same evaluator and switches, made when first needed."""

    compiled = True
    """This engine runs the compiled core (:func:`search.choose.engine_label`)."""

    def __init__(self, evaluator: Evaluator, hash_mb: float = 16, *, null_move: bool = True, lmr: bool = True,
                 aspiration: bool = True, delta_pruning: bool = True, tt_cutoffs: bool = True,
                 use_tt: bool = True) -> None:
        self.tt = CoreTable(hash_mb if use_tt else 0)
        self._switches = {"null_move": null_move, "lmr": lmr, "aspiration": aspiration, "delta_pruning": delta_pruning,
                          "tt_cutoffs": tt_cutoffs, "use_tt": use_tt}
        self._hash_mb = hash_mb
        self._python: Engine | None = None
        self.aspiration = aspiration
        self.overhead = 0.03
        """Seconds each move costs outside the search (pipes, GUI), kept off the clock."""
        self.nodes = 0
        self.ss = np.zeros(SS_SIZE, np.int64)
        self.ss[NULL_MIN] = 3 if null_move else MAX_PLY * 4
        self.ss[LMR_MIN] = 3 if lmr else MAX_PLY * 4
        self.ss[DELTA] = DELTA_MARGIN if delta_pruning else 4 * INFINITE
        self.ss[TT_CUTOFFS] = int(tt_cutoffs)
        self.ss[USE_TT] = int(use_tt)
        self.killers = np.zeros((MAX_PLY + 2, 2), np.int32)
        self.history = np.zeros((2, 4096), np.int64)
        self.pv = np.zeros((ROOT_PV + 1, ROOT_PV + 1), np.int32)
        self.moves = np.zeros((MAX_PLY + 2, MAX_MOVES), np.int32)
        self.scores = np.zeros((MAX_PLY + 2, MAX_MOVES), np.int64)
        self._ekeys = np.zeros(EVAL_SLOTS, np.uint64)
        self._evals = np.zeros(EVAL_SLOTS, np.int32)
        self._use(evaluator)
        global _loaded
        if not _loaded:  # load the compiled search now (tens of ms), not inside the first timed move
            with compiling():  # on a cold cache one process compiles, the others then load (jit.compiling)
                self.search(chess.Board(), Limit(depth=1))
            self.new_game()
            _loaded = True

    # ------------------------------------------------------------------ state
    def _use(self, evaluator: Evaluator) -> None:
        form = native_form_of(evaluator)
        if form is None:
            raise ValueError(f"{type(evaluator).__name__} has no native form: the compiled core cannot evaluate it")
        self.evaluator = evaluator
        kind, self._wi, self._wf = native_args(form)
        self.ss[KIND] = kind
        self._ekeys[:] = 0
        self._ekeys[0] = 1  # slot 0 would otherwise answer key 0
        self._evals[:] = 0

    def set_evaluator(self, evaluator: Evaluator) -> None:
        """Play with another evaluator (with a native form) from now on; clears everything that depends on it."""
        self._use(evaluator)
        self.new_game()
        if self._python is not None:
            self._python.set_evaluator(evaluator)

    def set_hash(self, megabytes: float) -> None:
        """Resize (and clear) the transposition table (no effect when the engine has none)."""
        self._hash_mb = megabytes
        if self.ss[USE_TT]:
            self.tt.resize(megabytes)
        if self._python is not None:
            self._python.set_hash(megabytes)

    def new_game(self) -> None:
        """Forget the TT, killers and history (the evaluation cache stays: it only holds the evaluator's answers)."""
        self.tt.clear()
        self.history[:] = 0
        self.killers[:] = 0
        if self._python is not None:
            self._python.new_game()

    def evaluate(self, board: chess.Board) -> int:
        """The core's static evaluation of ``board`` (centipawns, side to move), unclamped and uncached."""
        p = from_board(board)
        return int(evaluate_afresh(p.bb, p.mb, p.st, int(self.ss[KIND]), self._wi, self._wf))

    # ------------------------------------------------------------------ driver
    def search(self, board: chess.Board, limit: Limit | None = None, *,
               root_moves: Iterable[chess.Move] | None = None, on_iteration: InfoCallback | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limit``: :meth:`search.root.RootSearch.search`'s contract (the
        last completed iteration's exact score, or the best move a cut iteration proved better; a node limit never
        cuts the first iteration, the clock only once a root move has a score, ``stop`` at once; ``on_iteration``
        hears every iteration and every failed aspiration window; a legal move whenever one exists)."""
        limit = limit or Limit()
        start = time.perf_counter()
        halt = stop if stop is not None else threading.Event()
        b = budget(limit, board.turn == chess.WHITE, self.overhead)
        deadline = None if b.hard is None else start + b.hard
        legal = list(board.legal_moves)
        if root_moves is not None:
            wanted = set(root_moves)
            legal = [m for m in legal if m in wanted] or legal
        if not legal:
            return SearchResult(None, -MATE if board.is_check() else 0, 0, 0, 0, time.perf_counter() - start)
        try:
            pos = from_board(board)
        except Unsupported:
            return self._in_python(board, limit, legal, on_iteration, halt)
        ss = self.ss
        ss[NODES] = 0
        ss[NEXT_CHECK] = 1  # the first node looks at the stop flag
        ss[NODE_LIMIT] = limit.nodes if limit.nodes is not None and limit.nodes > 0 else 1 << 62
        ss[STOP] = int(halt.is_set())
        ss[TIMEUP] = ss[ABORT] = ss[ABORTABLE] = ss[SELDEPTH] = 0
        ss[AGE] = self.tt.next_search()
        self.history >>= 2
        key = pos.keys[pos.st[KIDX]]
        tt_move = self._table_move(key)
        ordered = [m for _, m in order_moves(board, legal, tt_move if tt_move in legal else None, root=True)]
        root = np.array([move_from_chess(board, m) for m in ordered], dtype=np.int32)
        self._pos, self._root = pos, root

        result = SearchResult(ordered[0], 0, 0, 0, 0, 0.0, [ordered[0]])
        token = WATCHER.watch(ss, halt, deadline) if stop is not None or deadline is not None else None
        timed = b.soft is not None or b.hard is not None
        score = 0
        try:
            for depth in range(1, self._max_iterations(limit) + 1):
                ss[ABORTABLE] = int(depth > 1)
                score = self._aspirate(depth, score, on_iteration, start)
                result = self._result(int(root[0]), score, depth, self._pv(0) or [move_to_chess(root[0])], start)
                if on_iteration is not None:
                    on_iteration(result)
                if halt.is_set():
                    break
                if limit.mate is not None and score >= MATE_BOUND and MATE - score <= 2 * limit.mate - 1:
                    break
                if timed:
                    if len(root) == 1 or (b.soft is not None and time.perf_counter() - start >= b.soft * 0.55):
                        break
                    if abs(score) >= MATE_BOUND and depth >= MATE - abs(score) + 2:
                        break
        except _Cut:
            best = int(ss[ROOT_BEST])
            if best != 0 and result.depth == 0:
                # The first iteration, cut: its best scored move, whose score bounds the iteration's from below.
                result = self._result(best, int(ss[ROOT_BEST_SCORE]), 1, self._pv(ROOT_PV), start)
                result.bound = "lower"
                if on_iteration is not None:
                    on_iteration(result)
            elif best != 0 and move_to_chess(best) != result.move:
                result = self._result(best, int(ss[ROOT_BEST_SCORE]), result.depth, self._pv(ROOT_PV), start)
        finally:
            if token is not None:
                WATCHER.unwatch(token)
        self.nodes = int(ss[NODES])
        result.time = time.perf_counter() - start
        result.nodes = self.nodes
        result.seldepth = max(result.seldepth, int(ss[SELDEPTH]))
        return result

    def _in_python(self, board: chess.Board, limit: Limit, legal: list[chess.Move], on_iteration: InfoCallback | None,
                   halt: threading.Event) -> SearchResult:
        """Search a board the core does not play with today's engine (same evaluator, switches, table size)."""
        if self._python is None:
            self._python = Engine(self.evaluator, self._hash_mb, **self._switches)
        self._python.overhead = self.overhead
        return self._python.search(board, limit, root_moves=legal, on_iteration=on_iteration, stop=halt)

    def _max_iterations(self, limit: Limit) -> int:
        """The last iteration to start: ``limit.depth`` (at most ``MAX_PLY - 1``), no deeper than ``limit.mate``
        needs (:meth:`search.root.RootSearch._max_iterations`)."""
        max_depth = MAX_PLY - 1
        if limit.depth is not None:
            max_depth = max(1, min(limit.depth, max_depth))
        if limit.mate is not None and limit.mate > 0:
            max_depth = min(max_depth, 2 * limit.mate - 1)
        return max_depth

    def _table_move(self, key: np.uint64) -> chess.Move | None:
        """The table's move for the position ``key``, or ``None``."""
        i = int(key) & (len(self.tt) - 1)
        if not self.ss[USE_TT] or self.tt.keys[i] != key or self.tt.data[i, D_AGE] < 0:
            return None
        m = int(self.tt.data[i, D_MOVE])
        return move_to_chess(m) if m else None

    def _pass(self, depth: int, alpha: int, beta: int) -> int:
        """One pass over the root (:func:`search.core.search.search_root`); :class:`_Cut` when it was cut short."""
        p = self._pos
        score = search_root(p.bb, p.mb, p.st, p.keys, p.undo, self.ss, self.killers, self.history, self.pv,
                            self.moves, self.scores, self.tt.keys, self.tt.data, self._ekeys, self._evals, self._wi,
                            self._wf, self._root, len(self._root), depth, alpha, beta)
        if self.ss[ABORT]:
            raise _Cut
        return int(score)

    def _aspirate(self, depth: int, prev: int, on_iteration: InfoCallback | None, start: float) -> int:
        """Iteration ``depth`` with an aspiration window around ``prev`` from depth 4 on, widened as
        :meth:`search.root.RootSearch._aspirate` widens it; the root's exact score."""
        if depth >= 4 and abs(prev) < MATE_BOUND and self.aspiration:
            delta = ASPIRATION
            alpha, beta = prev - delta, prev + delta
        else:
            delta = INFINITE
            alpha, beta = -INFINITE, INFINITE
        while True:
            score = self._pass(depth, alpha, beta)
            if score <= alpha and alpha > -INFINITE:
                if on_iteration is not None:
                    r = self._result(int(self._root[0]), score, depth, [move_to_chess(self._root[0])], start)
                    r.bound = "upper"
                    on_iteration(r)
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INFINITE)
            elif score >= beta and beta < INFINITE:
                if on_iteration is not None:
                    r = self._result(int(self._root[0]), score, depth,
                                     self._pv(0) or [move_to_chess(self._root[0])], start)
                    r.bound = "lower"
                    on_iteration(r)
                beta = min(score + delta, INFINITE)
            else:
                return score
            delta += delta
            if delta > 600:
                alpha, beta = -INFINITE, INFINITE

    def _pv(self, row: int) -> list[chess.Move]:
        """The principal variation kept in ``pv[row]`` as moves."""
        n = int(self.pv[row, 0])
        return [move_to_chess(m) for m in self.pv[row, 1:n + 1]]

    def _result(self, move: int, score: int, depth: int, pv: list[chess.Move], start: float) -> SearchResult:
        return SearchResult(move_to_chess(move), score, depth, int(self.ss[SELDEPTH]), int(self.ss[NODES]),
                            time.perf_counter() - start, pv)
