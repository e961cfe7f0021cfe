"""The static evaluation inside a search: the evaluator, its cache by position key, and the incremental-evaluator
hook (ARCHITECTURE.md, Contracts).

:class:`Evaluation` is the part of :class:`search.root.RootSearch` that owns them. The tree searches make and
unmake moves only through ``self._push(move)`` and ``self._pop()``: the board's own bound methods, or, for an
:class:`~search.base.IncrementalEvaluator` (checked once, when the evaluator is given), the same with the evaluator
told of each move first (on a push) or last (on a pop), so that an evaluator without the hook pays nothing. They
evaluate through ``self._eval(board, key)``: the evaluator's ``evaluate`` (or the incremental evaluator's
``evaluate_current``), cached and clamped inside the mate band. Scores are centipawns from the side to move's view.
This module imports only python-chess and the rest of :mod:`search`.
"""

from __future__ import annotations

from collections.abc import Callable

import chess

from search.base import MATE_BOUND, Evaluator, IncrementalEvaluator
from search.conventions import position_key

EVAL_CACHE_SLOTS = 1 << 18
"""Slots of the evaluation cache (indexed by the low bits of the position key)."""


class Evaluation:
    """The evaluator of a search, its cache and the board the search follows (module docstring)."""

    def __init__(self, evaluator: Evaluator) -> None:
        self._board = chess.Board()
        self._push: Callable[[chess.Move], None] = self._board.push
        self._pop: Callable[[], object] = self._board.pop
        self._use(evaluator)

    def _use(self, evaluator: Evaluator) -> None:
        """Take ``evaluator`` (its cache emptied), and check once whether it follows the moves."""
        self.evaluator = evaluator
        self._ekeys: list[int] = [0] * EVAL_CACHE_SLOTS
        self._evals: list[int] = [0] * EVAL_CACHE_SLOTS
        self._incremental: IncrementalEvaluator | None = None
        self._static: Callable[[chess.Board], int] = evaluator.evaluate
        if isinstance(evaluator, IncrementalEvaluator):
            self._incremental = evaluator
            self._static = evaluator.evaluate_current

    def _follow(self, board: chess.Board) -> None:
        """Search ``board`` from now on: ``self._push`` and ``self._pop`` make and unmake its moves, telling an
        incremental evaluator of each (refreshed here, at the root)."""
        self._board = board
        ev = self._incremental
        if ev is None:
            self._push, self._pop = board.push, board.pop
            return
        ev.refresh(board)
        epush, epop, bpush, bpop = ev.push, ev.pop, board.push, board.pop

        def push(move: chess.Move) -> None:
            epush(board, move)
            bpush(move)

        def pop() -> None:
            bpop()
            epop()

        self._push, self._pop = push, pop

    def evaluate(self, board: chess.Board) -> int:
        """The static evaluation the search uses of any ``board`` (cached, clamped inside the mate band)."""
        key = position_key(board)
        slot = key & (EVAL_CACHE_SLOTS - 1)
        if self._ekeys[slot] == key:
            return self._evals[slot]
        return self._remember(key, self.evaluator.evaluate(board))

    def _eval(self, board: chess.Board, key: int) -> int:
        """The static evaluation of the search's own board (``key`` its position key), as :meth:`evaluate`."""
        slot = key & (EVAL_CACHE_SLOTS - 1)
        if self._ekeys[slot] == key:
            return self._evals[slot]
        return self._remember(key, self._static(board))

    def _remember(self, key: int, v: int) -> int:
        """Clamp ``v`` inside the mate band and cache it as the evaluation of ``key``."""
        slot = key & (EVAL_CACHE_SLOTS - 1)
        if v >= MATE_BOUND:
            v = MATE_BOUND - 1
        elif v <= -MATE_BOUND:
            v = 1 - MATE_BOUND
        self._ekeys[slot] = key
        self._evals[slot] = v
        return v
