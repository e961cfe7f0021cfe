"""The root of every search: the state the searches share, the driver and the one root loop.

:class:`RootSearch` owns what the depth-limited (:class:`search.engine.Engine`), probability-limited
(:class:`search.prob.ProbEngine`) and comparison (:class:`search.compare.CompareEngine`) searches have in common:
the evaluator and its cache, the transposition table, killers and history, the repetition keys, the driver
(iterative deepening within a :class:`~search.base.Limit`, the clock, a stop flag, ``searchmoves``),
aspiration windows and the principal-variation loop over the root moves. A subclass supplies the tree below the
root (:meth:`RootSearch._root_child`).

All scores are centipawns from the side to move's point of view; mate scores are ``±(MATE - plies from the
root)``. This module imports only python-chess and the rest of :mod:`search` (never a concrete evaluator).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import chess

from search.base import INFINITE, MATE, MATE_BOUND, Evaluator, Limit, SearchResult
from search.conventions import position_key
from search.evaluation import Evaluation
from search.ordering import order_moves
from search.timeman import Budget, budget
from search.tt import EXACT, LOWER, UPPER, NullTable, TranspositionTable

MAX_PLY = 100
"""Deepest ply the search reaches, extensions and quiescence included."""
CHECK_EVERY = 512
"""Nodes between checks of the clock and of the node limit (the stop flag is looked at on every node)."""
ASPIRATION = 35
"""Half-width of the first aspiration window, centipawns."""


class _Abort(Exception):
    """Raised inside the search when the limit is reached or its stop flag is raised."""


InfoCallback = Callable[[SearchResult], None]


class RootSearch(Evaluation):
    """The shared state and the driver of a search around one evaluator (module docstring).

    ``evaluator.evaluate(board)`` gives centipawns from the side to move's view. ``hash_mb`` sizes the
    transposition table (MiB); ``aspiration``, ``tt_cutoffs`` and ``use_tt`` are :class:`search.engine.Engine`'s
    switches of the same names.

    The tree searches make and unmake moves only through ``self._push(move)`` and ``self._pop()`` and evaluate
    through ``self._eval`` (:class:`search.evaluation.Evaluation`: the evaluator, its cache, the incremental hook).
    """

    def __init__(self, evaluator: Evaluator, hash_mb: float = 16, *, aspiration: bool = True,
                 tt_cutoffs: bool = True, use_tt: bool = True) -> None:
        super().__init__(evaluator)
        self.tt: TranspositionTable = TranspositionTable(hash_mb) if use_tt else NullTable()
        self.aspiration = aspiration
        self.tt_cutoffs = tt_cutoffs
        self._halt = threading.Event()
        self.nodes = 0
        self._history: list[list[int]] = [[0] * 4096, [0] * 4096]
        self._killers: list[list[chess.Move | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self._pv: list[list[chess.Move]] = [[] for _ in range(MAX_PLY + 2)]
        self._keys: list[int] = []
        self._null_floor = 0
        self._seldepth = 0
        self._next_check = CHECK_EVERY
        self._node_limit = 1 << 62
        self._deadline: float | None = None
        self._start = 0.0
        self._abortable = False
        self._root_best: chess.Move | None = None
        self._root_best_score = 0
        self._root_best_pv: list[chess.Move] = []
        self.overhead = 0.03
        """Seconds each move costs outside the search (pipes, GUI), kept off the clock."""

    # ------------------------------------------------------------------ state
    def set_evaluator(self, evaluator: Evaluator) -> None:
        """Play with another evaluator from now on (clears everything that depends on it)."""
        self._use(evaluator)
        self.new_game()

    def set_hash(self, megabytes: float) -> None:
        """Resize (and clear) the transposition table."""
        self.tt.resize(megabytes)

    def new_game(self) -> None:
        """Forget everything learnt in earlier searches that could change a result: the TT, killers
        and history. (The evaluation cache stays: it only remembers the evaluator's own answers.)"""
        self.tt.clear()
        self._history = [[0] * 4096, [0] * 4096]
        self._killers = [[None, None] for _ in range(MAX_PLY + 2)]

    # ------------------------------------------------------------------ driver
    def search(
        self,
        board: chess.Board,
        limit: Limit | None = None,
        *,
        root_moves: Iterable[chess.Move] | None = None,
        on_iteration: InfoCallback | None = None,
        stop: threading.Event | None = None,
    ) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limit`` and return the best move found.

        The result's score is the last completed iteration's exact score (centipawns or ``±(MATE - plies)``, the
        root side to move's view), or, when a search stops inside an iteration, the score of the best move that
        iteration had proved better than the previous one's. ``root_moves`` restricts the moves considered at the
        root (UCI ``searchmoves``). ``on_iteration`` is called with the result of every completed iteration (and
        with bound results when an aspiration window fails), e.g. to print UCI ``info`` lines.

        ``stop`` is the caller's flag, one per search: the search only reads it (on every node) and never clears
        it, so a flag raised before the search starts, or from another thread while it runs, is never lost. The
        search then ends at once with the best move found so far (the first root move when even the first
        iteration was cut short). A node limit never cuts the first iteration; the time budget cuts it only once
        its first root move has a score (with a slow evaluator its quiescence searches can take many times a
        0.1 s budget). A first iteration cut by either returns the best move it has scored, as depth 1 with a
        ``lower`` bound (the iteration's score is at least that move's), also given to ``on_iteration``. A legal
        move is returned whenever one exists.
        """
        limit = limit or Limit()
        self._start = time.perf_counter()
        self._halt = stop if stop is not None else threading.Event()
        self.nodes = 0
        self._seldepth = 0
        b: Budget = budget(limit, board.turn == chess.WHITE, self.overhead)
        self._deadline = None if b.hard is None else self._start + b.hard
        self._node_limit = limit.nodes if limit.nodes is not None and limit.nodes > 0 else 1 << 62
        self._next_check = min(CHECK_EVERY, self._node_limit)
        self._abortable = False
        self.tt.age = (self.tt.age + 1) & 0xFFFF
        self._history = [[v >> 2 for v in h] for h in self._history]

        self._follow(board.copy(stack=False))
        self._keys = _history_keys(board)
        self._null_floor = 0

        legal = list(board.legal_moves)
        if root_moves is not None:
            wanted = set(root_moves)
            legal = [m for m in legal if m in wanted] or legal
        if not legal:
            in_check = board.is_check()
            return SearchResult(None, -MATE if in_check else 0, 0, 0, 0, self._elapsed())
        e = self.tt.probe(position_key(board))
        root = [m for _, m in order_moves(self._board, legal, e[4] if e is not None else None, root=True)]

        max_depth = self._max_iterations(limit)
        timed = b.soft is not None or b.hard is not None
        result = SearchResult(root[0], 0, 0, 0, 0, 0.0, [root[0]])
        score = 0
        try:
            for depth in range(1, max_depth + 1):
                self._abortable = depth > 1
                score = self._aspirate(root, depth, score, on_iteration)
                result = self._result(root[0], score, depth, list(self._pv[0]) or [root[0]])
                if on_iteration is not None:
                    on_iteration(result)
                if self._halt.is_set():
                    break
                if limit.mate is not None and score >= MATE_BOUND and MATE - score <= 2 * limit.mate - 1:
                    break
                if timed:
                    if len(root) == 1 or (b.soft is not None and self._elapsed() >= b.soft * 0.55):
                        break
                    if abs(score) >= MATE_BOUND and depth >= MATE - abs(score) + 2:
                        break
        except _Abort:
            if self._root_best is not None and result.depth == 0:
                # The first iteration, cut: its best scored move, whose score bounds the iteration's from below.
                result = self._result(self._root_best, self._root_best_score, 1, self._root_best_pv)
                result.bound = "lower"
                if on_iteration is not None:
                    on_iteration(result)
            elif self._root_best is not None and self._root_best != result.move:
                result = self._result(self._root_best, self._root_best_score, result.depth,
                                      self._root_best_pv)
        result.time = self._elapsed()
        result.nodes = self.nodes
        result.seldepth = max(result.seldepth, self._seldepth)
        return result

    def _max_iterations(self, limit: Limit) -> int:
        """The last iteration :meth:`search` may start: here the depth in plies (``limit.depth``, at most
        ``MAX_PLY - 1``; no deeper than a ``limit.mate`` needs). A subclass whose iterations are not plies
        (:class:`search.prob.ProbEngine`) says its own."""
        max_depth = MAX_PLY - 1
        if limit.depth is not None:
            max_depth = max(1, min(limit.depth, max_depth))
        if limit.mate is not None and limit.mate > 0:
            max_depth = min(max_depth, 2 * limit.mate - 1)
        return max_depth

    def _elapsed(self) -> float:
        return time.perf_counter() - self._start

    def _result(self, move: chess.Move, score: int, depth: int, pv: list[chess.Move]) -> SearchResult:
        return SearchResult(move, score, depth, self._seldepth, self.nodes, self._elapsed(), pv)

    def _visit(self, ply: int) -> None:
        """Count a node ``ply`` plies from the root (checking the stop flag on every node, the other limits every
        :data:`CHECK_EVERY` nodes) and empty its principal variation."""
        self.nodes += 1
        if self.nodes >= self._next_check or self._halt.is_set():
            self._checkpoint()
        self._pv[ply] = []

    def _checkpoint(self) -> None:
        """Called every CHECK_EVERY nodes (and exactly at a node limit) and once the stop flag is up: raise _Abort
        when done."""
        if self._halt.is_set():
            raise _Abort
        if self._abortable and self.nodes >= self._node_limit:
            raise _Abort
        # Time: from the second iteration on, or in the first once it has scored a root move.
        if (self._abortable or self._root_best is not None) and self._deadline is not None \
                and time.perf_counter() >= self._deadline:
            raise _Abort
        self._next_check = min(self.nodes + CHECK_EVERY, max(self._node_limit, self.nodes + 1))

    def _aspirate(self, root: list[chess.Move], depth: int, prev: int,
                  on_iteration: InfoCallback | None) -> int:
        """One iteration at ``depth``, with an aspiration window around ``prev`` from depth 4 on.

        Returns the root's exact score (centipawns or a mate score, the root side to move's view): a window the
        score falls outside of is widened (and reported to ``on_iteration`` as a bound) until the score lands
        inside it, or the window is the whole range ``(-INFINITE, INFINITE)``."""
        if depth >= 4 and abs(prev) < MATE_BOUND and self.aspiration:
            delta = ASPIRATION
            alpha, beta = prev - delta, prev + delta
        else:
            delta = INFINITE
            alpha, beta = -INFINITE, INFINITE
        while True:
            score = self._search_root(root, depth, alpha, beta)
            if score <= alpha and alpha > -INFINITE:
                if on_iteration is not None:
                    r = self._result(root[0], score, depth, [root[0]])
                    r.bound = "upper"
                    on_iteration(r)
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INFINITE)
            elif score >= beta and beta < INFINITE:
                if on_iteration is not None:
                    r = self._result(root[0], score, depth, list(self._pv[0]) or [root[0]])
                    r.bound = "lower"
                    on_iteration(r)
                beta = min(score + delta, INFINITE)
            else:
                return score
            delta += delta
            if delta > 600:
                alpha, beta = -INFINITE, INFINITE

    # ------------------------------------------------------------------ the root loop
    def _begin_root(self, root: list[chess.Move], depth: int, key: int) -> None:
        """Prepare iteration ``depth`` over ``root`` (the root's position key ``key``); here nothing."""

    def _root_child(self, move: chess.Move, depth: int, alpha: int, beta: int) -> int:
        """The score of the position after root move ``move`` (just made), searched for iteration ``depth`` within
        ``(alpha, beta)``, from that position's side to move's view, fail-soft (the subclass's tree search)."""
        raise NotImplementedError

    def _root_tt_depth(self, depth: int) -> int:
        """What the table's ``depth`` field holds for the root after iteration ``depth``: here ``depth`` itself."""
        return depth

    def _search_root(self, root: list[chess.Move], depth: int, alpha: int, beta: int) -> int:
        """Iteration ``depth`` over the root moves ``root`` (principal-variation search); fail-soft.

        Returns the best score (centipawns or a mate score, the root side to move's view): exact when inside
        ``(alpha, beta)``, else an upper bound (``<= alpha``: no move reached alpha) or a lower bound (``>= beta``:
        the loop stopped at the first such move). The first move is searched with the full window, the others with
        a null window and again with the full one when they land inside it. The best move is moved to the front
        of ``root`` and stored in the table (a root score is never a mate relative to a deeper node, so it is
        stored as it is); ``self._root_best`` keeps the best move proved above alpha, for an aborted search.
        """
        board = self._board
        push, pop = self._push, self._pop
        keys = self._keys
        key = position_key(board)
        self.nodes += 1
        self._pv[0] = []
        self._root_best = None
        self._root_best_score = -INFINITE
        self._root_best_pv = []
        self._begin_root(root, depth, key)
        child = self._root_child
        best = -INFINITE
        best_i = 0
        keys.append(key)
        for i, move in enumerate(root):
            push(move)
            if i == 0:
                score = -child(move, depth, -beta, -alpha)
            else:
                score = -child(move, depth, -alpha - 1, -alpha)
                if alpha < score < beta:
                    score = -child(move, depth, -beta, -alpha)
            pop()
            if score > best:
                best = score
                best_i = i
                if score > alpha:
                    self._pv[0] = [move, *self._pv[1]]
                    self._root_best, self._root_best_score = move, score
                    self._root_best_pv = self._pv[0]
                    if score >= beta:
                        break
                    alpha = score
        keys.pop()
        if best_i:
            root.insert(0, root.pop(best_i))
        flag = LOWER if best >= beta else (EXACT if self._root_best is not None else UPPER)
        self.tt.store(key, self._root_tt_depth(depth), flag, best, root[0])
        return best

    # ------------------------------------------------------------------ the opening of every node
    def _enter(self, ply: int) -> int | None:
        """Open a node of any tree search, ``ply`` plies from the root: count it (:meth:`_visit`) and return its
        position key, or ``None`` when the position is a draw by the search's rules (:meth:`_drawn`). The score
        searches open their nodes with :meth:`search.engine.Engine._open`, which calls this first."""
        self._visit(ply)
        board = self._board
        key = position_key(board)
        return None if self._drawn(board, key) else key

    def _drawn(self, board: chess.Board, key: int) -> bool:
        """Whether the current position (``key``, its :func:`position_key`) is a draw by the search's rules: an
        earlier occurrence since the last irreversible move (and since the last null move; one repetition is
        enough), the 50-move rule (unless it is mate), or material that cannot mate. ``self._keys`` holds the keys
        of the positions before this one, the game's and the search's, oldest first."""
        hmc = board.halfmove_clock
        if hmc >= 4:
            keys = self._keys
            i = len(keys) - 4
            lo = max(len(keys) - hmc, self._null_floor)
            while i >= lo:
                if keys[i] == key:
                    return True
                i -= 2
            if hmc >= 100 and not board.is_checkmate():
                return True
        return board.occupied.bit_count() <= 4 and board.is_insufficient_material()


def _history_keys(board: chess.Board) -> list[int]:
    """Keys of the positions before ``board`` that a repetition could return to, oldest first."""
    n = min(board.halfmove_clock, len(board.move_stack))
    if n == 0:
        return []
    b = board.copy()
    keys = []
    for _ in range(n):
        b.pop()
        keys.append(position_key(b))
    keys.reverse()
    return keys
