"""The shared alpha-beta engine.

:class:`Engine` searches a :class:`chess.Board` with any :class:`~search.base.Evaluator`:
iterative deepening, principal-variation search with aspiration windows, a bounded transposition
table, quiescence search (captures, queen promotions, check evasions), move ordering by TT move,
MVV-LVA, killers and history, null-move pruning, late-move reductions and check extensions.

All scores are centipawns from the side to move's point of view; mate scores are
``±(MATE - plies from the root)``.  Repetitions, the 50-move rule and insufficient material score 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from math import log

import chess

from search.base import INFINITE, MATE, MATE_BOUND, Evaluator, Limit, SearchResult
from search.conventions import PIECE_VALUES
from search.timeman import Budget, budget
from search.tt import EXACT, LOWER, UPPER, NullTable, TranspositionTable, position_key

MAX_PLY = 100
"""Deepest ply the search reaches, extensions and quiescence included."""
QS_EVASION_PLIES = 6
"""Quiescence plies in which a side in check searches every evasion (beyond them it stands pat)."""
CHECK_EVERY = 512
"""Nodes between checks of the clock and of :meth:`Engine.stop`."""
ASPIRATION = 35
"""Half-width of the first aspiration window, centipawns."""
DELTA_MARGIN = 200
"""Quiescence delta pruning: a capture is skipped when even winning the victim plus this margin
cannot raise alpha."""
EVAL_CACHE_SLOTS = 1 << 18

_VALUE = PIECE_VALUES  # by piece type; delta pruning only
_NULL = chess.Move.null()
_BB_SQUARES = chess.BB_SQUARES
_PAWN = chess.PAWN
_QUEEN = chess.QUEEN
_BB_ALL = chess.BB_ALL
_RANK_7 = (chess.BB_RANK_2, chess.BB_RANK_7)  # by colour: the rank a pawn promotes from
_LAST_RANK = (chess.BB_RANK_1, chess.BB_RANK_8)  # by colour: the rank it promotes on

# Late-move reduction in plies, by remaining depth and move number.
_LMR = [[0] * 64 for _ in range(MAX_PLY + 2)]
for _d in range(1, MAX_PLY + 2):
    for _i in range(1, 64):
        _LMR[_d][_i] = int(0.6 + log(_d) * log(_i) / 2.2)


class _Abort(Exception):
    """Raised inside the search when the limit is reached or :meth:`Engine.stop` is called."""


InfoCallback = Callable[[SearchResult], None]


class Engine:
    """Alpha-beta searcher around one evaluator.

    ``evaluator.evaluate(board)`` gives centipawns from the side to move's view. The engine never
    imports a concrete evaluator; anything with that method plays.
    """

    def __init__(self, evaluator: Evaluator, hash_mb: float = 16, *, null_move: bool = True, lmr: bool = True,
                 aspiration: bool = True, delta_pruning: bool = True, tt_cutoffs: bool = True,
                 use_tt: bool = True) -> None:
        """``hash_mb`` sizes the transposition table (MiB). The switches (all on by default) exist for
        tests and experiments; turned off they make the search closer to plain minimax:

        * ``null_move``: null-move pruning;
        * ``lmr``: late-move reductions;
        * ``aspiration``: aspiration windows around the previous iteration's score (from depth 4);
        * ``delta_pruning``: skipping quiescence captures that cannot raise alpha by ``DELTA_MARGIN``
          (the engine's only futility-style pruning);
        * ``tt_cutoffs``: returning a stored score instead of searching (the TT move still orders moves);
        * ``use_tt``: the transposition table at all (off: nothing is stored or probed; ``hash_mb`` is
          ignored and ``set_hash`` has no effect).

        With the first five off the root score at a fixed depth is the minimax value of the tree the
        engine defines (check extensions, quiescence search, draws and mate distances as in the module
        docstring); mate-distance pruning and principal-variation search stay, as they never change it.
        """
        self.evaluator = evaluator
        self.tt: TranspositionTable = TranspositionTable(hash_mb) if use_tt else NullTable()
        self.null_move = null_move
        self.lmr = lmr
        self.aspiration = aspiration
        self.delta_pruning = delta_pruning
        self.tt_cutoffs = tt_cutoffs
        # Read by the recursive search, where a failing comparison is cheaper than a flag test.
        self._null_min_depth = 3 if null_move else MAX_PLY * 4
        self._lmr_min_depth = 3 if lmr else MAX_PLY * 4
        self._delta_margin = DELTA_MARGIN if delta_pruning else 4 * INFINITE
        self._stop = False
        self.nodes = 0
        self._ekeys: list[int] = [0] * EVAL_CACHE_SLOTS
        self._evals: list[int] = [0] * EVAL_CACHE_SLOTS
        self._history: list[list[int]] = [[0] * 4096, [0] * 4096]
        self._killers: list[list[chess.Move | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self._pv: list[list[chess.Move]] = [[] for _ in range(MAX_PLY + 2)]
        self._board = chess.Board()
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
        self.evaluator = evaluator
        self._ekeys = [0] * EVAL_CACHE_SLOTS
        self._evals = [0] * EVAL_CACHE_SLOTS
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

    def stop(self) -> None:
        """Ask a running search to stop as soon as possible; safe to call from another thread."""
        self._stop = True

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, board: chess.Board) -> int:
        """The static evaluation the search uses (cached, clamped inside the mate band)."""
        return self._eval(board, position_key(board))

    def _eval(self, board: chess.Board, key: int) -> int:
        slot = key & (EVAL_CACHE_SLOTS - 1)
        if self._ekeys[slot] == key:
            return self._evals[slot]
        v = self.evaluator.evaluate(board)
        if v >= MATE_BOUND:
            v = MATE_BOUND - 1
        elif v <= -MATE_BOUND:
            v = 1 - MATE_BOUND
        self._ekeys[slot] = key
        self._evals[slot] = v
        return v

    # ------------------------------------------------------------------ driver
    def search(
        self,
        board: chess.Board,
        limit: Limit | None = None,
        *,
        root_moves: Iterable[chess.Move] | None = None,
        on_iteration: InfoCallback | None = None,
    ) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limit`` and return the best move found.

        ``root_moves`` restricts the moves considered at the root (UCI ``searchmoves``).
        ``on_iteration`` is called with the result of every completed iteration (and with bound
        results when an aspiration window fails), e.g. to print UCI ``info`` lines.
        The first iteration always completes unless :meth:`stop` is called, so a legal move is
        returned whenever one exists.
        """
        limit = limit or Limit()
        self._start = time.perf_counter()
        self._stop = False
        self.nodes = 0
        self._seldepth = 0
        b: Budget = budget(limit, board.turn == chess.WHITE, self.overhead)
        self._deadline = None if b.hard is None else self._start + b.hard
        self._node_limit = limit.nodes if limit.nodes is not None and limit.nodes > 0 else 1 << 62
        self._next_check = min(CHECK_EVERY, self._node_limit)
        self._abortable = False
        self.tt.age = (self.tt.age + 1) & 0xFFFF
        self._history = [[v >> 2 for v in h] for h in self._history]

        self._board = board.copy(stack=False)
        self._keys = _history_keys(board)
        self._null_floor = 0

        legal = list(board.legal_moves)
        if root_moves is not None:
            wanted = set(root_moves)
            legal = [m for m in legal if m in wanted] or legal
        if not legal:
            in_check = board.is_check()
            return SearchResult(None, -MATE if in_check else 0, 0, 0, 0, self._elapsed())
        root = self._order_root(legal)

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
                if self._stop:
                    break
                if limit.mate is not None and score >= MATE_BOUND and MATE - score <= 2 * limit.mate - 1:
                    break
                if timed:
                    if len(root) == 1 or (b.soft is not None and self._elapsed() >= b.soft * 0.55):
                        break
                    if abs(score) >= MATE_BOUND and depth >= MATE - abs(score) + 2:
                        break
        except _Abort:
            if self._root_best is not None and self._root_best != result.move:
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

    def _checkpoint(self) -> None:
        """Called every CHECK_EVERY nodes (and exactly at a node limit): raise _Abort when done."""
        if self._stop:
            raise _Abort
        if self._abortable:
            if self.nodes >= self._node_limit:
                raise _Abort
            if self._deadline is not None and time.perf_counter() >= self._deadline:
                raise _Abort
        self._next_check = min(self.nodes + CHECK_EVERY, max(self._node_limit, self.nodes + 1))

    def _order_root(self, moves: list[chess.Move]) -> list[chess.Move]:
        board = self._board
        e = self.tt.probe(position_key(board))
        tt_move = e[4] if e is not None else None
        scored = []
        for m in moves:
            if m == tt_move:
                s = 1 << 30
            elif board.is_capture(m):
                victim = board.piece_type_at(m.to_square) or _PAWN
                s = (1 << 20) + victim * 10 - (board.piece_type_at(m.from_square) or 0)
            elif m.promotion:
                s = (1 << 19) + m.promotion
            else:
                s = 0
            scored.append((s, m))
        scored.sort(key=lambda t: t[0], reverse=True)
        return [m for _, m in scored]

    def _aspirate(self, root: list[chess.Move], depth: int, prev: int,
                  on_iteration: InfoCallback | None) -> int:
        """One iteration at ``depth``, with an aspiration window around ``prev`` from depth 4 on."""
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

    def _search_root(self, root: list[chess.Move], depth: int, alpha: int, beta: int) -> int:
        """Search every root move; the best one is moved to the front of ``root``."""
        board = self._board
        keys = self._keys
        key = position_key(board)
        self.nodes += 1
        self._pv[0] = []
        self._root_best = None
        self._root_best_score = -INFINITE
        self._root_best_pv = []
        best = -INFINITE
        best_i = 0
        keys.append(key)
        for i, move in enumerate(root):
            board.push(move)
            if i == 0:
                score = -self._negamax(depth - 1, -beta, -alpha, 1, True)
            else:
                score = -self._negamax(depth - 1, -alpha - 1, -alpha, 1, True)
                if alpha < score < beta:
                    score = -self._negamax(depth - 1, -beta, -alpha, 1, True)
            board.pop()
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
        self.tt.store(key, depth, flag, best, root[0])
        return best

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

    # ------------------------------------------------------------------ the recursive search
    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, null_ok: bool) -> int:
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._checkpoint()
        pvt = self._pv
        pvt[ply] = []
        board = self._board
        ep = board.ep_square
        key = hash((
            board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[True], board.occupied_co[False], board.turn, board.castling_rights,
            -1 if ep is None or not board.has_legal_en_passant() else ep,
        ))

        if self._drawn(board, key):
            return 0
        keys = self._keys
        if ply >= MAX_PLY:
            return self._eval(board, key)

        # Mate-distance pruning.
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha

        in_check = board.is_check()
        if in_check:
            depth += 1
        if depth <= 0:
            return self._quiesce(alpha, beta, ply, 0)

        pv_node = beta - alpha > 1
        tt = self.tt
        entry = tt.slots[key & tt.mask]
        tt_move = None
        if entry is not None and entry[0] == key:
            tt_move = entry[4]
            if not pv_node and entry[1] >= depth and self.tt_cutoffs:
                s = entry[3]
                if s >= MATE_BOUND:
                    s -= ply
                elif s <= -MATE_BOUND:
                    s += ply
                flag = entry[2]
                if flag == EXACT or (flag == LOWER and s >= beta) or (flag == UPPER and s <= alpha):
                    return s

        turn = board.turn
        # Null move: give the opponent a free move; if we still beat beta, cut.
        if (null_ok and not pv_node and not in_check and depth >= self._null_min_depth
                and -MATE_BOUND < beta < MATE_BOUND and (board.occupied_co[turn] & ~board.pawns & ~board.kings)
                and self._eval(board, key) >= beta):
            r = 3 if depth >= 6 else 2
            board.push(_NULL)
            keys.append(key)
            floor = self._null_floor
            self._null_floor = len(keys)
            score = -self._negamax(depth - 1 - r, -beta, 1 - beta, ply + 1, False)
            self._null_floor = floor
            keys.pop()
            board.pop()
            if score >= beta:
                return beta if score >= MATE_BOUND else score

        alpha0 = alpha
        best = -INFINITE
        best_move = None
        keys.append(key)
        history = self._history[turn]
        killers = self._killers[ply]
        n = 0

        # The TT move is searched before any move is generated: a cutoff saves the generation.
        if tt_move is not None and board.is_legal(tt_move):
            n = 1
            board.push(tt_move)
            score = -self._negamax(depth - 1, -beta, -alpha, ply + 1, True)
            board.pop()
            best = score
            best_move = tt_move
            if score > alpha:
                if pv_node:
                    pvt[ply] = [tt_move, *pvt[ply + 1]]
                if score >= beta:
                    keys.pop()
                    if not board.is_capture(tt_move):
                        self._reward(history, killers, tt_move, depth)
                    tt.store(key, depth, LOWER, score + ply if score >= MATE_BOUND else
                             (score - ply if score <= -MATE_BOUND else score), tt_move)
                    return score
                alpha = score

        # Order the rest: captures by MVV-LVA, queen promotions, killers, then history.
        occ_them = board.occupied_co[not turn]
        piece_type_at = board.piece_type_at
        k1, k2 = killers
        scored = []
        for m in board.generate_legal_moves():
            if m == tt_move:
                continue
            to = m.to_square
            if _BB_SQUARES[to] & occ_them:
                s = 50_000_000 + (piece_type_at(to) or 0) * 16 - (piece_type_at(m.from_square) or 0)
            elif m.promotion:
                s = 49_000_000 + m.promotion if m.promotion == _QUEEN else -1
            elif to == ep and piece_type_at(m.from_square) == _PAWN:
                s = 50_000_000 + 15
            elif m == k1:
                s = 40_000_002
            elif m == k2:
                s = 40_000_001
            else:
                s = history[(m.from_square << 6) | to]
            scored.append((s, m))

        if not scored and n == 0:
            keys.pop()
            return -MATE + ply if in_check else 0
        scored.sort(key=_first, reverse=True)

        lmr_ok = depth >= self._lmr_min_depth and not in_check
        lmr_row = _LMR[depth]
        negamax = self._negamax
        for s, move in scored:
            board.push(move)
            if n == 0:
                score = -negamax(depth - 1, -beta, -alpha, ply + 1, True)
            else:
                r = 0
                if lmr_ok and n >= 3 and s < 40_000_000 and s >= 0 and not board.is_check():
                    r = lmr_row[n if n < 64 else 63]
                    if pv_node and r:
                        r -= 1
                    if r >= depth - 1:
                        r = depth - 2
                score = -negamax(depth - 1 - r, -alpha - 1, -alpha, ply + 1, True)
                if score > alpha and r:
                    score = -negamax(depth - 1, -alpha - 1, -alpha, ply + 1, True)
                if alpha < score < beta:
                    score = -negamax(depth - 1, -beta, -alpha, ply + 1, True)
            board.pop()
            n += 1
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    if pv_node:
                        pvt[ply] = [move, *pvt[ply + 1]]
                    if score >= beta:
                        if s < 50_000_000:
                            self._reward(history, killers, move, depth)
                        break
                    alpha = score
        keys.pop()

        flag = LOWER if best >= beta else (EXACT if best > alpha0 else UPPER)
        stored = best + ply if best >= MATE_BOUND else (best - ply if best <= -MATE_BOUND else best)
        tt.store(key, depth, flag, stored, best_move if best > alpha0 else tt_move)
        return best

    @staticmethod
    def _reward(history: list[int], killers: list[chess.Move | None], move: chess.Move, depth: int) -> None:
        """A quiet move caused a beta cutoff: make it a killer and raise its history score."""
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        i = (move.from_square << 6) | move.to_square
        v = history[i] + depth * depth
        history[i] = v if v < 30_000_000 else 30_000_000

    def _quiesce(self, alpha: int, beta: int, ply: int, qply: int) -> int:
        """Captures and queen promotions from a stand-pat score; every evasion when in check."""
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._checkpoint()
        if ply > self._seldepth:
            self._seldepth = ply
        pvt = self._pv
        pvt[ply] = []
        board = self._board
        turn = board.turn
        piece_type_at = board.piece_type_at
        if ply >= MAX_PLY:
            return self.evaluate(board)

        if qply < QS_EVASION_PLIES and board.is_check():
            scored = []
            occ_them = board.occupied_co[not turn]
            for m in board.generate_legal_moves():
                to = m.to_square
                if _BB_SQUARES[to] & occ_them:
                    s = 1000 + (piece_type_at(to) or 0) * 16 - (piece_type_at(m.from_square) or 0)
                else:
                    s = 0
                scored.append((s, m))
            if not scored:
                return -MATE + ply
            scored.sort(key=_first, reverse=True)
            best = -INFINITE
            stand = -INFINITE
        else:
            ep = board.ep_square
            key = hash((
                board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
                board.occupied_co[True], board.occupied_co[False], turn, board.castling_rights,
                -1 if ep is None or not board.has_legal_en_passant() else ep,
            ))
            stand = self._eval(board, key)
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            scored = []
            futile = alpha - stand - self._delta_margin
            for m in board.generate_legal_captures():
                victim = piece_type_at(m.to_square) or _PAWN
                if _VALUE[victim] < futile and not m.promotion:
                    continue
                scored.append((victim * 16 - (piece_type_at(m.from_square) or 0), m))
            promoting = board.pawns & board.occupied_co[turn] & _RANK_7[turn]
            if promoting:
                for m in board.generate_legal_moves(promoting, _LAST_RANK[turn] & ~board.occupied):
                    if m.promotion == _QUEEN:
                        scored.append((90, m))
            if not scored:
                return best
            scored.sort(key=_first, reverse=True)

        quiesce = self._quiesce
        for _, move in scored:
            board.push(move)
            score = -quiesce(-beta, -alpha, ply + 1, qply + 1)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    if score >= beta:
                        return score
                    alpha = score
        return best


def _first(t: tuple[int, chess.Move]) -> int:
    return t[0]


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
