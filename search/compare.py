"""The comparison alpha-beta search (DeepChess): bounds are positions, and a comparator orders them.

:class:`CompareEngine` searches with any :class:`~search.base.Comparator` (``better(a, b)``: ``a`` is better for
**White**). It is :class:`~search.engine.Engine`'s driver (iterative deepening, limits, clock, ``stop``,
``searchmoves``) around its own recursive search, in which a node's value is not a number but a :class:`Leaf`:
the position the line ends in (a copy of the board), a draw, or a mate in a number of plies. White maximises and
Black minimises the order :meth:`CompareEngine.gt` defines on leaves:

* a mate for White beats everything else, sooner mates beat later ones (and symmetrically for Black);
* two positions are ordered by the comparator; a position with the same key as another is not better than it;
* a draw is compared with a position ``p`` through ``p``'s colour mirror (colours swapped, board flipped), whose
  value for White is the opposite of ``p``'s: ``p`` beats a draw when ``better(p, p.mirror())``, a draw beats
  ``p`` when ``better(p.mirror(), p)``. With a comparator derived from an evaluator this is exactly "a draw is 0".

The tree is the ordinary engine's with its pruning switched off (:class:`~search.engine.Engine` with
``null_move``, ``lmr``, ``aspiration``, ``delta_pruning`` off): check extensions, repetition and 50-move draws,
a quiescence search of captures and queen promotions from the standing position (every evasion when in check,
for :data:`~search.engine.QS_EVASION_PLIES` plies). Moves are ordered as in the ordinary search
(:mod:`search.ordering`: the table's move, MVV-LVA captures, queen promotions, killers and history). The
transposition table stores, per position key, the leaf (a position, not a score), its bound flag, the depth and
the best move; a mate leaf counted from the node, as the ordinary engine stores mate scores
(:func:`search.tt.score_to_tt`). The leaves' boards live beside the table's slots, so the table takes a few times
the memory ``hash_mb`` names (a board copy is some hundreds of bytes).

The score a :class:`~search.base.SearchResult` reports (UCI needs one) is derived from the principal
variation's leaf: for a mate, the usual ``±(MATE - plies)``; for a draw, 0; for a position, the comparator's
``evaluate`` of that position (when it has one: :class:`organisms.comparator.ComparatorNet` derives it by
comparing the position with its own mirror) turned to the root side to move's view, else 0.
"""

from __future__ import annotations

import chess

from search.base import INFINITE, MATE, MATE_BOUND, Comparator, Evaluator
from search.conventions import position_key
from search.engine import QS_EVASION_PLIES, Engine
from search.ordering import CAPTURE, capture_order, evasion_order, order_moves, reward
from search.root import MAX_PLY
from search.tt import EXACT, LOWER, UPPER, score_from_tt, score_to_tt

__all__ = ["CompareEngine", "EvalComparator", "EvalCompareEngine", "Leaf", "as_comparator"]


class Leaf:
    """The value of a node: a position (``board``, a copy), a draw (``board`` and ``mate`` both empty), or a mate
    (``mate``: ``+(MATE - plies)`` when White mates, ``-(MATE - plies)`` when Black does, plies from the root)."""

    __slots__ = ("board", "key", "mate")

    def __init__(self, board: chess.Board | None = None, key: int = 0, mate: int = 0) -> None:
        self.board = board
        self.key = key
        self.mate = mate

    def __repr__(self) -> str:
        if self.mate:
            return f"Leaf(mate={self.mate})"
        return "Leaf(draw)" if self.board is None else f"Leaf({self.board.fen()!r})"


DRAW = Leaf()


class EvalComparator:
    """A comparator made from an evaluator: ``better(a, b)`` is ``eval(a) > eval(b)``, both from White's view.

    Also an Evaluator (its ``evaluate`` is the wrapped one), so a comparison search with it reports the same
    scores as the ordinary search would. Used to check the comparison search against the ordinary one."""

    name = "eval-cmp"

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator

    def white(self, board: chess.Board) -> int:
        """The evaluation of ``board`` from White's view, centipawns."""
        v = self.evaluator.evaluate(board)
        return v if board.turn == chess.WHITE else -v

    def better(self, a: chess.Board, b: chess.Board) -> bool:
        return self.white(a) > self.white(b)

    def evaluate(self, board: chess.Board) -> int:
        return self.evaluator.evaluate(board)


class CompareEngine(Engine):
    """The comparison alpha-beta (module docstring) around one comparator. ``hash_mb`` sizes the table (MiB);
    ``tt_cutoffs`` off keeps the table for move ordering only (tests)."""

    def __init__(self, comparator: Comparator, hash_mb: float = 16, *, tt_cutoffs: bool = True) -> None:
        super().__init__(_NoEval(), hash_mb, null_move=False, lmr=False, aspiration=False, delta_pruning=False,
                         tt_cutoffs=tt_cutoffs)
        self.comparator = comparator
        self.comparisons = 0
        self._leaves: list[Leaf] = []

    def set_evaluator(self, evaluator: object) -> None:
        """Play with another comparator from now on (clears the table, killers and history)."""
        if not isinstance(evaluator, Comparator):
            raise TypeError(f"{type(evaluator).__name__} is not a comparator (no better(a, b))")
        self.comparator = evaluator
        self.new_game()

    # ------------------------------------------------------------------ the order on leaves
    def gt(self, x: Leaf, y: Leaf) -> bool:
        """True when ``x`` is better than ``y`` for White (module docstring)."""
        if x.mate or y.mate:
            return x.mate > y.mate
        xb, yb = x.board, y.board
        if xb is None:
            if yb is None:
                return False
            self.comparisons += 1
            return self.comparator.better(yb.mirror(), yb)
        if yb is None:
            self.comparisons += 1
            return self.comparator.better(xb, xb.mirror())
        if x.key == y.key:
            return False
        self.comparisons += 1
        return self.comparator.better(xb, yb)

    def score_of(self, leaf: Leaf, root_turn: chess.Color) -> int:
        """The score a leaf reports (module docstring): centipawns from the view of ``root_turn``."""
        if leaf.mate:
            return leaf.mate if root_turn == chess.WHITE else -leaf.mate
        if leaf.board is None:
            return 0
        evaluate = getattr(self.comparator, "evaluate", None)
        if evaluate is None:
            return 0
        v = int(evaluate(leaf.board))
        v = max(min(v, MATE_BOUND - 1), 1 - MATE_BOUND)
        return v if leaf.board.turn == root_turn else -v

    # ------------------------------------------------------------------ the driver's hooks
    def _aspirate(self, root: list[chess.Move], depth: int, prev: int, on_iteration: object) -> int:
        """One iteration at ``depth`` with open bounds (leaves have no window to aspirate to): the best root
        move's exact score, :meth:`score_of` its leaf, from the root side to move's view."""
        return self._search_root(root, depth, -INFINITE, INFINITE)

    def _search_root(self, root: list[chess.Move], depth: int, alpha: int, beta: int) -> int:
        """Search every root move with open bounds (``alpha`` and ``beta`` are not used); the best is moved to the
        front of ``root`` and stored in the table as an exact leaf. Returns the score of the best move's leaf
        (:meth:`score_of`; exact, as nothing was cut at the root), from the root side to move's view."""
        board = self._board
        white = board.turn == chess.WHITE
        keys = self._keys
        key = position_key(board)
        self.nodes += 1
        self._pv[0] = []
        self._root_best = None
        self._root_best_pv = []
        best: Leaf | None = None
        best_i = 0
        bound: Leaf | None = None
        keys.append(key)
        for i, move in enumerate(root):
            board.push(move)
            v = self._cmp(depth - 1, bound if white else None, None if white else bound, 1)
            board.pop()
            if best is None or (self.gt(v, best) if white else self.gt(best, v)):
                best, best_i = v, i
                bound = v
                self._pv[0] = [move, *self._pv[1]]
                self._root_best = move
                self._root_best_pv = self._pv[0]
                self._root_best_score = self.score_of(v, board.turn)
        keys.pop()
        assert best is not None
        if best_i:
            root.insert(0, root.pop(best_i))
        self._store(key, depth, EXACT, best, root[0], 0)
        return self.score_of(best, board.turn)

    # ------------------------------------------------------------------ the recursive search
    def _store(self, key: int, depth: int, flag: int, leaf: Leaf, move: chess.Move | None, ply: int) -> None:
        if leaf.mate:  # mates are stored relative to the node, as the ordinary engine stores mate scores
            leaf = Leaf(mate=score_to_tt(leaf.mate, ply))
        i = key & self.tt.mask
        if self.tt.store(key, depth, flag, i, move):  # the score field points at the leaf's slot
            self._leaves_slot(i, leaf)

    def _leaves_slot(self, i: int, leaf: Leaf) -> None:
        if len(self._leaves) != len(self.tt.slots):
            self._leaves = [DRAW] * len(self.tt.slots)
        self._leaves[i] = leaf

    def _probe(self, key: int, ply: int) -> tuple[int, int, Leaf, chess.Move | None] | None:
        """(depth, flag, leaf, move) stored for ``key``, the leaf's mate made relative to the root again."""
        e = self.tt.probe(key)
        if e is None:
            return None
        leaf = self._leaves[e[3]]
        if leaf.mate:
            leaf = Leaf(mate=score_from_tt(leaf.mate, ply))
        return e[1], e[2], leaf, e[4]

    def _position(self, key: int) -> Leaf:
        return Leaf(self._board.copy(stack=False), key)

    def _cmp(self, depth: int, alpha: Leaf | None, beta: Leaf | None, ply: int) -> Leaf:
        """The value of the current position searched ``depth`` plies deep, as a leaf, within the bounds
        ``alpha`` (what White is sure of; ``None``: nothing yet) and ``beta`` (what Black is sure of).

        Fail-soft: a result not better than ``alpha`` is only an upper bound on the true value, one not worse
        than ``beta`` only a lower bound; between them it is exact. Mates are ``±(MATE - ply)`` from the root,
        stored in the table relative to the node (as the ordinary engine stores mate scores)."""
        key = self._enter(ply)
        if key is None:
            return DRAW
        pvt = self._pv
        board = self._board
        keys = self._keys
        if ply >= MAX_PLY:
            return self._position(key)
        in_check = board.is_check()
        if in_check:
            depth += 1
        if depth <= 0:
            return self._quiesce_cmp(alpha, beta, ply, 0)

        white = board.turn == chess.WHITE
        gt = self.gt
        tt_move = None
        hit = self._probe(key, ply)
        if hit is not None:
            tt_move = hit[3]
            if self.tt_cutoffs and hit[0] >= depth:
                _, flag, leaf, _ = hit
                if flag == EXACT:
                    return leaf
                if flag == LOWER and beta is not None and not gt(beta, leaf):
                    return leaf
                if flag == UPPER and alpha is not None and not gt(leaf, alpha):
                    return leaf

        history = self._history[board.turn]
        killers = self._killers[ply]
        scored = order_moves(board, board.generate_legal_moves(), tt_move, killers, history)
        if not scored:
            if in_check:
                return Leaf(mate=-(MATE - ply) if white else MATE - ply)
            return DRAW

        best: Leaf | None = None
        best_move = None
        cut = False
        keys.append(key)
        for s, move in scored:
            board.push(move)
            v = self._cmp(depth - 1, alpha, beta, ply + 1)
            board.pop()
            if best is None or (gt(v, best) if white else gt(best, v)):
                best, best_move = v, move
                if white:
                    if alpha is None or gt(v, alpha):
                        alpha = v
                        pvt[ply] = [move, *pvt[ply + 1]]
                        if beta is not None and not gt(beta, v):
                            cut = True
                else:
                    if beta is None or gt(beta, v):
                        beta = v
                        pvt[ply] = [move, *pvt[ply + 1]]
                        if alpha is not None and not gt(v, alpha):
                            cut = True
                if cut:
                    if s < CAPTURE:  # a quiet move (the table's move, scored above the captures, never is)
                        reward(history, killers, move, depth)
                    break
        keys.pop()
        assert best is not None
        improved = best is alpha if white else best is beta
        if cut:  # White's true value is at least best (Black's at most best)
            flag = LOWER if white else UPPER
        elif improved:
            flag = EXACT
        else:  # nothing reached the bound: White's true value is at most best (Black's at least best)
            flag = UPPER if white else LOWER
        self._store(key, depth, flag, best, best_move if improved else tt_move, ply)
        return best

    def _quiesce_cmp(self, alpha: Leaf | None, beta: Leaf | None, ply: int, qply: int) -> Leaf:
        """Captures and queen promotions from the standing position; every evasion when in check (for
        ``QS_EVASION_PLIES`` plies). Same bounds and fail-soft contract as :meth:`_cmp`."""
        self._visit(ply)
        if ply > self._seldepth:
            self._seldepth = ply
        board = self._board
        white = board.turn == chess.WHITE
        gt = self.gt
        if ply >= MAX_PLY:
            return self._position(position_key(board))
        best: Leaf | None
        if qply < QS_EVASION_PLIES and board.is_check():
            scored = evasion_order(board)
            if not scored:
                return Leaf(mate=-(MATE - ply) if white else MATE - ply)
            best = None
        else:
            stand = self._position(position_key(board))
            if white:
                if beta is not None and not gt(beta, stand):
                    return stand
                if alpha is None or gt(stand, alpha):
                    alpha = stand
            else:
                if alpha is not None and not gt(stand, alpha):
                    return stand
                if beta is None or gt(beta, stand):
                    beta = stand
            best = stand
            scored = capture_order(board, -INFINITE)  # no delta pruning: there is no score to prune by
            if not scored:
                return best

        for _, move in scored:
            board.push(move)
            v = self._quiesce_cmp(alpha, beta, ply + 1, qply + 1)
            board.pop()
            if best is None or (gt(v, best) if white else gt(best, v)):
                best = v
                if white:
                    if alpha is None or gt(v, alpha):
                        if beta is not None and not gt(beta, v):
                            return v
                        alpha = v
                else:
                    if beta is None or gt(beta, v):
                        if alpha is not None and not gt(v, alpha):
                            return v
                        beta = v
        assert best is not None
        return best


class _NoEval:
    """The evaluator slot of the driver: a comparison search never evaluates (it is never called)."""

    def evaluate(self, board: chess.Board) -> int:
        raise RuntimeError("the comparison search compares positions; it has no evaluator")


class EvalCompareEngine(CompareEngine):
    """The comparison alpha-beta around an *evaluator*, made a comparator (:class:`EvalComparator`): the search
    ``@search=compare`` names. It walks the tree a DeepChess comparator walks, with numbers behind the comparisons,
    so a match of it against the ordinary engine with the same evaluator measures the comparison search alone."""

    def __init__(self, evaluator: Evaluator, hash_mb: float = 16) -> None:
        super().__init__(as_comparator(evaluator), hash_mb)

    def set_evaluator(self, evaluator: object) -> None:
        """Play with another evaluator (or comparator) from now on (clears the table, killers and history)."""
        super().set_evaluator(as_comparator(evaluator))


def as_comparator(evaluator: object) -> Comparator:
    """``evaluator`` itself when it is a comparator already, else :class:`EvalComparator` around it."""
    if isinstance(evaluator, Comparator):
        return evaluator
    if not isinstance(evaluator, Evaluator):
        raise TypeError(f"{type(evaluator).__name__} is neither an evaluator nor a comparator")
    return EvalComparator(evaluator)
