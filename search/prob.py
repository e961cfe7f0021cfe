"""The probability-limited search (Matthew Lai's Giraffe, 2015): alpha-beta that spends nodes by move probability.

:class:`ProbEngine` is :class:`~search.engine.Engine` with another tree shape. Every node carries a probability
``p``: the root has 1 and a child has its parent's ``p`` times the probability of the move that leads to it
(the probabilities of a node's legal moves sum to 1). A node is *expanded* (its moves are searched) while
``p >= threshold``; below the threshold it is a leaf, scored by the engine's quiescence search exactly as a
depth-limited leaf is. Iterative deepening divides the threshold by :data:`ITERATION_FACTOR` each iteration:
iteration ``k`` (1, 2, ...) searches with ``threshold = ITERATION_FACTOR ** -(k - 1)``, so iteration 1 expands
the root alone (a one-ply search and quiescence). The iteration number is the ``depth`` the engine reports
(:class:`~search.base.SearchResult`, UCI ``info depth``) and what ``Limit.depth`` caps; nodes, movetime, clocks,
``stop`` and ``searchmoves`` work as in the depth-limited search.

Move probabilities (:func:`move_weights`, normalised to sum to 1 over the legal moves):

* ``uniform``: ``1 / n`` for each of ``n`` legal moves;
* ``heuristic`` (Giraffe's static move heuristics): each move has a weight, :data:`HASH_WEIGHT` for the hash
  move, then by static exchange evaluation (:func:`search.see.see`) for captures and promotions
  (:data:`WINNING_WEIGHT` when SEE > 0, :data:`EVEN_WEIGHT` when SEE = 0, :data:`LOSING_WEIGHT` when SEE < 0),
  :data:`KILLER_WEIGHT` for a killer, :data:`QUIET_WEIGHT` for any other move; the probability of a move is its
  weight over the sum of the weights;
* ``net`` (Giraffe's optional third source): a :class:`~search.base.MovePolicy`, e.g. a move-probability net
  (:mod:`organisms.movenet`), gives each move a weight; the search's own knowledge keeps its factors on top: the
  hash move's weight is multiplied by :data:`HASH_WEIGHT` and a quiet killer's by :data:`KILLER_WEIGHT`
  (relative to a quiet move's 1, as in the heuristic). The policy's weights are cached by position key (up to
  :data:`POLICY_CACHE_SIZE` positions): iterative deepening expands the same nodes again.

As in the depth-limited search: fail-soft alpha-beta, principal-variation search (the first move with the full
window, the rest with a null window and a re-search when one lands inside it), aspiration windows from
iteration 4, a transposition table, the move order of :mod:`search.ordering`
(the hash move, captures, queen promotion, killers, history, under-promotions), mate-distance pruning, draws by
repetition, the 50-move rule and insufficient material. Like Giraffe, a side in check is always expanded (its
``p`` is raised to the threshold: the check extension of this search). Not here: null-move pruning and late-move
reductions (a late move already gets a small share of the budget).

Transposition-table entries store, in the ``depth`` field, the node's budget level
``floor(LEVELS_PER_OCTAVE * log2(p / threshold))`` (0 for a node expanded at the threshold itself); an entry
answers a later visit whose level is not higher, so a stored result was searched with at least the budget
asked for, up to rounding of ``1 / LEVELS_PER_OCTAVE`` octave (4%). Mate scores go through the table as in the
engine: relative to the node (``score + ply`` for a mate it gives, ``score - ply`` for one it suffers).

The module ends with the one table of the searches our engine runs (:data:`SEARCH_KINDS`: the ``@search=`` names,
their help, engines and files) and :func:`make_engine`, which builds the engine a name asks for. This module imports
only python-chess and the rest of :mod:`search`'s top (never :mod:`search.players`, which reads the table).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from math import log2
from typing import Any

import chess

from search.base import INFINITE, MATE, Evaluator, Limit, MovePolicy
from search.choose import AnyEngine, EngineClass, depth_engine, prob_engine, python_engine
from search.compare import EvalCompareEngine
from search.engine import Engine
from search.ordering import order_moves, reward
from search.root import MAX_PLY
from search.see import see

ITERATION_FACTOR = 4.0
"""Each iteration divides the threshold by this (Giraffe multiplies its node budget by 4 each iteration): with
some 30 legal moves a ply, 2.5 iterations a ply."""
MAX_ITERATIONS = 60
"""The last iteration of an unlimited search (threshold ``4^-59``, about ``1e-36``: never reached in practice)."""
LEVELS_PER_OCTAVE = 16
"""Resolution of the budget level stored in the transposition table (levels per doubling of ``p / threshold``)."""
TIE = 1e-9
"""Relative tolerance of ``p >= threshold``: a product of move probabilities that equals the threshold in exact
arithmetic (1/3 x 1/3 against 1/9) is expanded whatever the float rounding."""

HASH_WEIGHT = 8.0
"""Weight of the hash (transposition-table) move: the best move of an earlier search of the node."""
WINNING_WEIGHT = 4.0
"""Weight of a capture or promotion that wins material by static exchange evaluation (SEE > 0)."""
EVEN_WEIGHT = 2.0
"""Weight of a capture or promotion that breaks even (SEE = 0)."""
KILLER_WEIGHT = 2.0
"""Weight of a quiet killer move (one of the two last quiet moves that caused a cutoff at this ply)."""
QUIET_WEIGHT = 1.0
"""Weight of any other move."""
LOSING_WEIGHT = 0.5
"""Weight of a capture or promotion that loses material (SEE < 0)."""

POLICY_CACHE_SIZE = 1 << 16
"""Positions whose move-policy weights a :class:`ProbEngine` keeps (emptied when full; they are the policy's own
answers, so a new game keeps them too)."""

PROBABILITIES = ("heuristic", "uniform", "net")
"""How :class:`ProbEngine` gives moves their probabilities (see the module docstring)."""

_BB_SQUARES = chess.BB_SQUARES
_PAWN = chess.PAWN


def move_weights(board: chess.Board, moves: list[chess.Move], tt_move: chess.Move | None,
                 killers: list[chess.Move | None]) -> list[float]:
    """The heuristic weight of each of ``moves`` (legal in ``board``), in their order; divide by the sum for
    probabilities. The first rule that applies: hash move, capture/promotion by SEE, killer, quiet.

    >>> board = chess.Board("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")  # exd5 wins a pawn; e5 and the king are quiet
    >>> moves = [chess.Move.from_uci(u) for u in ("e4d5", "e4e5", "e1d1")]
    >>> move_weights(board, moves, None, [chess.Move.from_uci("e1d1"), None])
    [4.0, 1.0, 2.0]
    """
    occ_them = board.occupied_co[not board.turn]
    ep = board.ep_square
    out = []
    for m in moves:
        if m == tt_move:
            w = HASH_WEIGHT
        elif (_BB_SQUARES[m.to_square] & occ_them or m.promotion
              or (m.to_square == ep and board.piece_type_at(m.from_square) == _PAWN)):
            gain = see(board, m)
            w = WINNING_WEIGHT if gain > 0 else (EVEN_WEIGHT if gain == 0 else LOSING_WEIGHT)
        elif m == killers[0] or m == killers[1]:
            w = KILLER_WEIGHT
        else:
            w = QUIET_WEIGHT
        out.append(w)
    return out


class ProbEngine(Engine):
    """The engine with Giraffe's probability-limited search instead of the depth-limited one.

    ``probabilities`` is ``"heuristic"`` (default), ``"uniform"`` or ``"net"`` with ``policy`` the
    :class:`~search.base.MovePolicy` (module docstring); the other arguments are
    :class:`~search.engine.Engine`'s (``null_move`` and ``lmr`` have no effect here: this search does neither).
    :meth:`search` is the engine's driver; its ``depth`` counts iterations.
    """

    def __init__(self, evaluator: Evaluator, hash_mb: float = 16, *, probabilities: str = "heuristic",
                 policy: MovePolicy | None = None, aspiration: bool = True, delta_pruning: bool = True,
                 tt_cutoffs: bool = True, use_tt: bool = True) -> None:
        if probabilities not in PROBABILITIES:
            raise ValueError(f"probabilities must be one of {PROBABILITIES}, got {probabilities!r}")
        if (probabilities == "net") != (policy is not None):
            raise ValueError("a move policy goes with probabilities='net', and only there")
        super().__init__(evaluator, hash_mb, null_move=False, lmr=False, aspiration=aspiration,
                         delta_pruning=delta_pruning, tt_cutoffs=tt_cutoffs, use_tt=use_tt)
        self.probabilities = probabilities
        self.policy = policy
        self._policy_cache: dict[int, dict[chess.Move, float]] = {}
        self._uniform = probabilities == "uniform"
        self._threshold = 1.0
        self._floor = 1.0 - TIE  # p is expanded when p >= self._threshold * (1 - TIE)
        self.expanded: list[int] = [0] * (MAX_PLY + 2)
        """Nodes expanded in the last iteration, by ply (0: the root), for tests and measurements."""
        self._root_probs: dict[chess.Move, float] = {}

    @staticmethod
    def threshold(iteration: int) -> float:
        """The threshold of iteration ``iteration`` (1, 2, ...): ``ITERATION_FACTOR ** -(iteration - 1)``.

        >>> ProbEngine.threshold(1), ProbEngine.threshold(3)
        (1.0, 0.0625)
        """
        return float(ITERATION_FACTOR ** -(iteration - 1))

    def _max_iterations(self, limit: Limit) -> int:
        """The last iteration: ``limit.depth`` (iterations), else :data:`MAX_ITERATIONS`. A ``limit.mate``
        does not cap it (iterations are not plies): the driver stops once the mate is found."""
        if limit.depth is not None:
            return max(1, min(limit.depth, MAX_ITERATIONS))
        return MAX_ITERATIONS

    def _level(self, p: float) -> int:
        """The transposition-table level of a node expanded with probability ``p`` (>= 0; module docstring)."""
        r = p / self._threshold
        return int(LEVELS_PER_OCTAVE * log2(r)) if r > 1.0 else 0

    def _policy_weights(self, board: chess.Board, moves: list[chess.Move], key: int | None) -> list[float]:
        """The policy's weights of ``moves`` in ``board`` (position key ``key``), from the cache when it holds
        every one of them (``key`` ``None``: not cached)."""
        assert self.policy is not None
        if key is None:
            return list(self.policy.move_weights(board, moves))
        cached = self._policy_cache.get(key)
        if cached is not None and len(cached) == len(moves):
            try:
                return [cached[m] for m in moves]
            except KeyError:  # another position with the same key
                pass
        w = list(self.policy.move_weights(board, moves))
        if len(self._policy_cache) >= POLICY_CACHE_SIZE:
            self._policy_cache.clear()
        self._policy_cache[key] = dict(zip(moves, w, strict=True))
        return w

    def _probabilities(self, board: chess.Board, moves: list[chess.Move], tt_move: chess.Move | None,
                       ply: int, key: int | None = None) -> list[float]:
        """The probability of each of ``moves`` (all the legal moves searched at this node), summing to 1; ``key``
        (the position key) lets a move policy's weights come from the cache."""
        if self._uniform:
            return [1.0 / len(moves)] * len(moves)
        if self.policy is not None:
            w = self._policy_weights(board, moves, key)
            killers = self._killers[ply]  # quiet moves only: a cutoff by a capture records no killer
            for i, m in enumerate(moves):
                if m == tt_move:
                    w[i] *= HASH_WEIGHT
                elif m in killers:
                    w[i] *= KILLER_WEIGHT
        else:
            w = move_weights(board, moves, tt_move, self._killers[ply])
        total = sum(w)
        return [x / total for x in w]

    # ------------------------------------------------------------------ the root (the loop is RootSearch's)
    def _begin_root(self, root: list[chess.Move], depth: int, key: int) -> None:
        """Set iteration ``depth``'s threshold (:meth:`threshold`) and the probabilities of the root moves
        ``root`` (the root's position key ``key``)."""
        self._threshold = self.threshold(depth)
        self._floor = self._threshold * (1.0 - TIE)
        self.expanded = [0] * (MAX_PLY + 2)
        self.expanded[0] = 1
        e = self.tt.probe(key)
        probs = self._probabilities(self._board, root, e[4] if e is not None else None, 0, key)
        self._root_probs = dict(zip(root, probs, strict=True))

    def _root_child(self, move: chess.Move, depth: int, alpha: int, beta: int) -> int:
        """The root move ``move`` (made) searched with its probability: :meth:`_prob` at ply 1."""
        return self._prob(self._root_probs[move], alpha, beta, 1)

    def _root_tt_depth(self, depth: int) -> int:
        """The root's budget level (:meth:`_level` of probability 1), what the table's ``depth`` field holds."""
        return self._level(1.0)

    # ------------------------------------------------------------------ the recursive search
    def _prob(self, p: float, alpha: int, beta: int, ply: int) -> int:
        """The score of the current position (side to move's view) searched with probability ``p``; fail-soft.

        ``p`` is the product of the move probabilities from the root. With ``p`` below the iteration's threshold
        (and the side to move not in check) the node is a leaf: the quiescence search's score. Otherwise every
        legal move is searched with ``p`` times its probability. The result ``s`` is exact when
        ``alpha < s < beta``; ``s <= alpha`` is an upper bound and ``s >= beta`` a lower bound on the value of
        this tree. Mates are ``±(MATE - plies from the root)``; draws (repetition, 50 moves, insufficient
        material) are 0. The table stores mate scores relative to this node and the node's budget level.
        """
        key, alpha, beta = self._open(ply, alpha, beta)
        if alpha >= beta:
            return alpha
        pvt = self._pv
        board = self._board
        keys = self._keys

        threshold = self._threshold
        if p < self._floor:
            if not board.is_check():  # a leaf (counted twice, as the depth-limited search counts its leaves)
                return self._quiesce(alpha, beta, ply, 0)
            p = threshold  # a side in check is expanded once (Giraffe's check extension)

        level = self._level(p)
        pv_node = beta - alpha > 1
        tt_move, hit = self._probe_score(key, level, alpha, beta, ply)
        if hit is not None:
            return hit

        moves = list(board.generate_legal_moves())
        if not moves:
            return -MATE + ply if board.is_check() else 0
        self.expanded[ply] += 1
        probs = self._probabilities(board, moves, tt_move, ply, key)

        # The search order is the engine's (search.ordering); probability breaks no ties here (the order only
        # changes how soon alpha-beta cuts, not the tree's value).
        history = self._history[board.turn]
        killers = self._killers[ply]
        prob_of = dict(zip(moves, probs, strict=True))
        scored = order_moves(board, moves, tt_move, killers, history)

        alpha0 = alpha
        best = -INFINITE
        best_move = None
        keys.append(key)
        search = self._prob
        push, pop = self._push, self._pop
        for n, (_, move) in enumerate(scored):
            child = p * prob_of[move]
            push(move)
            if n == 0:
                score = -search(child, -beta, -alpha, ply + 1)
            else:
                score = -search(child, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -search(child, -beta, -alpha, ply + 1)
            pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    if pv_node:
                        pvt[ply] = [move, *pvt[ply + 1]]
                    if score >= beta:
                        if not move.promotion and not board.is_capture(move):
                            reward(history, killers, move, 1 + level // LEVELS_PER_OCTAVE)
                        break
                    alpha = score
        keys.pop()

        self._store_score(key, level, best, alpha0, beta, ply, best_move, tt_move)
        return best


# ---------------------------------------------------------------------- the table of searches
@dataclass(frozen=True)
class SearchKind:
    """One search our engine runs: the single entry that defines its ``@search=`` name, its help text, its engine
    and whether the name takes a file.

    ``engine(evaluator)`` is the engine class that runs it with ``evaluator``; ``options`` the keyword arguments
    the class takes beside ``evaluator`` and ``hash_mb``; ``takes_file``: the name is ``NAME:PATH[?t=T]``, a
    move-probability net that the player registry loads (:meth:`search.players.spec.PlayerRegistry.policy`) and
    the engine takes as ``policy``.
    """

    name: str
    summary: str
    engine: Callable[[Evaluator], EngineClass]
    options: Mapping[str, Any] = field(default_factory=dict)
    takes_file: bool = False


SEARCH_KINDS: dict[str, SearchKind] = {k.name: k for k in (
    SearchKind("depth", "depth-limited alpha-beta (the default): iterative deepening one ply at a time, compiled "
                        "(search/core) when the evaluator has a native form (material, expert, paper and rich "
                        "organisms, perspective nets, Giraffe nets), else in Python", depth_engine),
    SearchKind("python", "the same alpha-beta in Python whatever the evaluator: the engine before the compiled core, "
                         "for comparisons", python_engine),
    SearchKind("prob", "probability-limited alpha-beta (Giraffe): expands a node while the product of the move "
                       "probabilities from the root is at least a threshold (divided by 4 each iteration); "
                       "moves weighted by hash move, SEE, killers; compiled (search/core) when the evaluator has a "
                       "native form", prob_engine, {"probabilities": "heuristic"}),
    SearchKind("prob-python", "the same probability-limited search in Python whatever the evaluator, for comparisons",
               lambda _: ProbEngine, {"probabilities": "heuristic"}),
    SearchKind("prob-uniform", "the same probability-limited search with every legal move equally likely",
               prob_engine, {"probabilities": "uniform"}),
    SearchKind("prob-net", "the same probability-limited search with move probabilities from a move-probability "
                           "net (mimic train-moves): @search=prob-net:PATH.npz[?t=T], T a softmax temperature "
                           "(default 1; above 1 flattens them)", lambda _: ProbEngine, {"probabilities": "net"},
               takes_file=True),
    SearchKind("plain", "the depth-limited alpha-beta without null-move pruning, late-move reductions, aspiration "
                        "windows or delta pruning: the tree the comparison search walks", lambda _: Engine,
               {"null_move": False, "lmr": False, "aspiration": False, "delta_pruning": False}),
    SearchKind("compare", "DeepChess's comparison alpha-beta (the search of a cmp: comparator) with an evaluation "
                          "made a comparator (a is better than b when its evaluation is higher, White's view): what "
                          "the comparison search alone gives or costs", lambda _: EvalCompareEngine),
)}
"""The searches our engine runs, by the name ``@search=NAME`` gives, in the order help texts list them: the one
table of searches (:mod:`search.players.searches` reads its names, help and files from it). Adding a search is one
entry here (and the module of its engine). With a probability-limited search, ``@depth=N`` caps the number of
iterations (iteration ``k`` searches with threshold ``4^-(k-1)``), which is also the ``depth`` it reports."""
DEFAULT_SEARCH = "depth"
"""The search of a spec without ``@search=`` (and the one a spec's default name leaves out)."""


def search_parts(search: str) -> tuple[str, str | None]:
    """A search option's name and file: ``"prob-net:x.npz"`` is ``("prob-net", "x.npz")``, ``"prob"`` is
    ``("prob", None)``."""
    name, sep, path = search.partition(":")
    return name, (path if sep else None)


def search_kind(search: str) -> SearchKind:
    """The entry of the search ``search`` names (``NAME`` or ``NAME:PATH``); ``ValueError`` for an unknown name."""
    name = search_parts(search)[0]
    kind = SEARCH_KINDS.get(name)
    if kind is None:
        raise ValueError(f"unknown search {name!r} (expected one of {', '.join(SEARCH_KINDS)})")
    return kind


def engine_class(evaluator: Evaluator, search: str = DEFAULT_SEARCH) -> EngineClass:
    """The engine class :func:`make_engine` builds for ``evaluator`` and the search named ``search``."""
    return search_kind(search).engine(evaluator)


def make_engine(evaluator: Evaluator, search: str = DEFAULT_SEARCH, hash_mb: float = 16,
                policy: MovePolicy | None = None) -> AnyEngine:
    """Our engine around ``evaluator`` with the search named ``search`` (a key of :data:`SEARCH_KINDS`,
    ``NAME:PATH`` for a search that takes a file): the entry's engine class with its options, and ``policy`` (the
    loaded net, :meth:`search.players.spec.PlayerRegistry.policy`) for a search that takes a file, and only there.
    ``depth`` is :func:`search.choose.depth_engine`'s (the core, the comparison alpha-beta or the engine), ``python``
    today's engine whatever the evaluator; ``prob``, ``prob-uniform`` and ``prob-net`` are :class:`ProbEngine` with
    heuristic, uniform and ``policy``'s move probabilities; ``plain`` the engine with its pruning off, ``compare``
    :class:`~search.compare.EvalCompareEngine`."""
    kind = search_kind(search)
    if kind.takes_file != (policy is not None):
        with_file = " or ".join(k.name for k in SEARCH_KINDS.values() if k.takes_file)
        raise ValueError(f"search {search!r}: a move policy goes with {with_file}, and only there")
    options = dict(kind.options)
    if kind.takes_file:
        options["policy"] = policy
    return kind.engine(evaluator)(evaluator, hash_mb=hash_mb, **options)
