"""The shared alpha-beta engine: the depth-limited search.

:class:`Engine` searches a :class:`chess.Board` with any :class:`~search.base.Evaluator`: the driver of
:class:`search.root.RootSearch` (iterative deepening, principal-variation search with aspiration windows at the
root) around a recursive principal-variation search with a bounded transposition table, quiescence search
(captures, queen promotions, check evasions), move ordering by :mod:`search.ordering` (TT move, MVV-LVA, killers
and history), null-move pruning, late-move reductions and check extensions.

All scores are centipawns from the side to move's point of view; mate scores are
``±(MATE - plies from the root)``.  Repetitions, the 50-move rule and insufficient material score 0.
This module imports only python-chess and the rest of :mod:`search`.
"""

from __future__ import annotations

from math import log

import chess

from search.base import INFINITE, MATE, MATE_BOUND, Evaluator
from search.conventions import position_key
from search.evaluation import EVAL_CACHE_SLOTS
from search.ordering import CAPTURE, KILLER_2, TT_MOVE, capture_order, evasion_order, order_moves, reward
from search.root import ASPIRATION, CHECK_EVERY, MAX_PLY, InfoCallback, RootSearch
from search.tt import EXACT, LOWER, UPPER, score_from_tt, score_to_tt

__all__ = ["ASPIRATION", "CHECK_EVERY", "DELTA_MARGIN", "EVAL_CACHE_SLOTS", "MAX_PLY", "QS_EVASION_PLIES", "Engine",
           "InfoCallback"]

QS_EVASION_PLIES = 6
"""Quiescence plies in which a side in check searches every evasion (beyond them it stands pat)."""
DELTA_MARGIN = 200
"""Quiescence delta pruning: a capture is skipped when even winning the victim plus this margin
cannot raise alpha."""

_NULL = chess.Move.null()

# Late-move reduction in plies, by remaining depth and move number.
_LMR = [[0] * 64 for _ in range(MAX_PLY + 2)]
for _d in range(1, MAX_PLY + 2):
    for _i in range(1, 64):
        _LMR[_d][_i] = int(0.6 + log(_d) * log(_i) / 2.2)


class Engine(RootSearch):
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
        super().__init__(evaluator, hash_mb, aspiration=aspiration, tt_cutoffs=tt_cutoffs, use_tt=use_tt)
        self.null_move = null_move
        self.lmr = lmr
        self.delta_pruning = delta_pruning
        # Read by the recursive search, where a failing comparison is cheaper than a flag test.
        self._null_min_depth = 3 if null_move else MAX_PLY * 4
        self._lmr_min_depth = 3 if lmr else MAX_PLY * 4
        self._delta_margin = DELTA_MARGIN if delta_pruning else 4 * INFINITE

    def _root_child(self, move: chess.Move, depth: int, alpha: int, beta: int) -> int:
        """The root move ``move`` (made) searched ``depth - 1`` plies deep: :meth:`_negamax` at ply 1."""
        return self._negamax(depth - 1, alpha, beta, 1, True)

    # ------------------------------------------------------------------ the node of a score search
    def _open(self, ply: int, alpha: int, beta: int) -> tuple[int, int, int]:
        """Open a node of a score search (this one and :class:`search.prob.ProbEngine`), ``ply`` plies from the
        root, searched within ``(alpha, beta)``: ``(key, alpha, beta)``, the node's position key and its window.
        The node is settled, with the score ``alpha``, when ``alpha >= beta``: a draw by the search's rules
        (:meth:`~search.root.RootSearch._enter`) is ``(0, 0, 0)``, a node at :data:`MAX_PLY` ``(key, v, v)`` with
        ``v`` its static evaluation; otherwise the window is narrowed to the mate scores still possible here,
        ``ply - MATE`` and ``MATE - ply - 1`` (mate-distance pruning), which may settle it too. Scores: centipawns,
        the node's side to move's view. The comparison search opens its nodes with ``_enter`` alone."""
        key = self._enter(ply)
        if key is None:
            return 0, 0, 0
        if ply >= MAX_PLY:
            v = self._eval(self._board, key)
            return key, v, v
        return key, max(alpha, ply - MATE), min(beta, MATE - ply - 1)

    def _probe_score(self, key: int, depth: int, alpha: int, beta: int,
                     ply: int) -> tuple[chess.Move | None, int | None]:
        """The table's move for the node ``key`` (``ply`` plies from the root) and the stored score that settles
        the window, or ``None``: only a null-window visit (``beta - alpha == 1``) takes a stored score, only one
        searched with at least ``depth`` (the search's own measure of budget) and only with ``tt_cutoffs`` on. The
        score is made relative to the root again (:func:`search.tt.score_from_tt`); an exact score always settles,
        a lower bound when it is ``>= beta``, an upper bound when it is ``<= alpha``."""
        entry = self.tt.probe(key)
        if entry is None:
            return None, None
        if beta - alpha > 1 or entry[1] < depth or not self.tt_cutoffs:
            return entry[4], None
        s = score_from_tt(entry[3], ply)
        flag = entry[2]
        if flag == EXACT or (flag == LOWER and s >= beta) or (flag == UPPER and s <= alpha):
            return entry[4], s
        return entry[4], None

    def _store_score(self, key: int, depth: int, best: int, alpha: int, beta: int, ply: int,
                     best_move: chess.Move | None, tt_move: chess.Move | None) -> None:
        """Store a node's fail-soft result ``best`` of the window ``(alpha, beta)`` (``alpha`` as the node's moves
        found it): a lower bound when ``>= beta``, exact when above ``alpha`` (with ``best_move``), else an upper
        bound (keeping ``tt_move``); a mate counted from the node (:func:`search.tt.score_to_tt`)."""
        flag = LOWER if best >= beta else (EXACT if best > alpha else UPPER)
        self.tt.store(key, depth, flag, score_to_tt(best, ply), best_move if best > alpha else tt_move)

    # ------------------------------------------------------------------ the recursive search
    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, null_ok: bool) -> int:
        """The score of the current position searched ``depth`` plies deep (``ply`` plies from the root), from
        the side to move's view; fail-soft principal-variation search.

        The result ``s`` is exact when ``alpha < s < beta``; ``s <= alpha`` is an upper bound and ``s >= beta`` a
        lower bound on the value of the tree (a null-move cutoff returns ``beta`` itself when its score is a mate,
        which it cannot prove). Mates are ``±(MATE - plies from the root)`` (mate-distance pruning narrows the
        window to them); draws (repetition, 50 moves, insufficient material) are 0. The table stores mate scores
        relative to this node (``s + ply`` for a mate given, ``s - ply`` for one suffered) and converts them back
        on a hit; a stored entry of at least this ``depth`` answers only a null-window visit. ``null_ok`` allows
        a null move here (not right after one). At ``depth <= 0`` (after the check extension) this is
        :meth:`_quiesce`.
        """
        key, alpha, beta = self._open(ply, alpha, beta)
        if alpha >= beta:
            return alpha
        pvt = self._pv
        board = self._board
        push, pop = self._push, self._pop
        keys = self._keys

        in_check = board.is_check()
        if in_check:
            depth += 1
        if depth <= 0:
            return self._quiesce(alpha, beta, ply, 0)

        pv_node = beta - alpha > 1
        tt_move, hit = self._probe_score(key, depth, alpha, beta, ply)
        if hit is not None:
            return hit

        turn = board.turn
        # Null move: give the opponent a free move; if we still beat beta, cut.
        if (null_ok and not pv_node and not in_check and depth >= self._null_min_depth
                and -MATE_BOUND < beta < MATE_BOUND and (board.occupied_co[turn] & ~board.pawns & ~board.kings)
                and self._eval(board, key) >= beta):
            r = 3 if depth >= 6 else 2
            push(_NULL)
            keys.append(key)
            floor = self._null_floor
            self._null_floor = len(keys)
            score = -self._negamax(depth - 1 - r, -beta, 1 - beta, ply + 1, False)
            self._null_floor = floor
            keys.pop()
            pop()
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
            push(tt_move)
            score = -self._negamax(depth - 1, -beta, -alpha, ply + 1, True)
            pop()
            best = score
            best_move = tt_move
            if score > alpha:
                if pv_node:
                    pvt[ply] = [tt_move, *pvt[ply + 1]]
                if score >= beta:
                    keys.pop()
                    if not board.is_capture(tt_move):
                        reward(history, killers, tt_move, depth)
                    self.tt.store(key, depth, LOWER, score_to_tt(score, ply), tt_move)
                    return score
                alpha = score

        # The rest in the shared order (search.ordering); the TT move, first there, was searched above.
        scored = order_moves(board, board.generate_legal_moves(), tt_move, killers, history)
        if n and scored and scored[0][0] == TT_MOVE:
            del scored[0]
        if not scored and n == 0:
            keys.pop()
            return -MATE + ply if in_check else 0

        lmr_ok = depth >= self._lmr_min_depth and not in_check
        lmr_row = _LMR[depth]
        negamax = self._negamax
        for s, move in scored:
            push(move)
            if n == 0:
                score = -negamax(depth - 1, -beta, -alpha, ply + 1, True)
            else:
                r = 0
                if lmr_ok and n >= 3 and 0 <= s < KILLER_2 and not board.is_check():
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
            pop()
            n += 1
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    if pv_node:
                        pvt[ply] = [move, *pvt[ply + 1]]
                    if score >= beta:
                        if s < CAPTURE:
                            reward(history, killers, move, depth)
                        break
                    alpha = score
        keys.pop()

        self._store_score(key, depth, best, alpha0, beta, ply, best_move, tt_move)
        return best

    def _quiesce(self, alpha: int, beta: int, ply: int, qply: int) -> int:
        """The quiescence score of the current position (``ply`` plies from the root, ``qply`` of them in
        quiescence), from the side to move's view; fail-soft.

        Not in check (or beyond :data:`QS_EVASION_PLIES`): the static evaluation stands pat, then the captures
        and queen promotions of :func:`search.ordering.capture_order` may raise it (delta pruning leaves out the
        captures that cannot). In check: every evasion, and a mate scores ``-(MATE - ply)``. The result ``s`` is
        exact when ``alpha < s < beta``, an upper bound when ``s <= alpha``, a lower bound when ``s >= beta``
        (returned at the first move, or stand-pat score, that reaches beta). Nothing goes through the table.
        """
        self._visit(ply)
        if ply > self._seldepth:
            self._seldepth = ply
        board = self._board
        if ply >= MAX_PLY:
            return self.evaluate(board)

        if qply < QS_EVASION_PLIES and board.is_check():
            scored = evasion_order(board)
            if not scored:
                return -MATE + ply
            best = -INFINITE
            stand = -INFINITE
        else:
            stand = self._eval(board, position_key(board))
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            scored = capture_order(board, alpha - stand - self._delta_margin)
            if not scored:
                return best

        quiesce, push, pop = self._quiesce, self._push, self._pop
        for _, move in scored:
            push(move)
            score = -quiesce(-beta, -alpha, ply + 1, qply + 1)
            pop()
            if score > best:
                best = score
                if score > alpha:
                    if score >= beta:
                        return score
                    alpha = score
        return best
