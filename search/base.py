"""Shared types of the search package: the evaluator and comparator contracts, search limits and results.

Scores are centipawns from the point of view of the side to move, unless a name says otherwise.
Mate scores are ``±(MATE - plies)`` (:mod:`search.conventions`): ``MATE - 3`` means the side to move mates in 3 plies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

import chess
import numpy as np

from search.conventions import INFINITE, MATE, MATE_BOUND, mate_moves

__all__ = ["INFINITE", "MATE", "MATE_BOUND", "Comparator", "Evaluator", "IncrementalEvaluator", "Limit", "MovePolicy",
           "NativeForm", "SearchResult", "native_form_of"]


@runtime_checkable
class Evaluator(Protocol):
    """Anything that scores a position statically.

    ``evaluate`` returns centipawns from the side to move's point of view. It is never called on a
    position that is checkmate or stalemate (the search scores those itself), and it must not change
    the board.
    """

    def evaluate(self, board: chess.Board) -> int: ...


@dataclass(frozen=True, eq=False)
class NativeForm:
    """An evaluator's parameters in the form the compiled core evaluates natively (``search/core/evaluate.py``).

    An evaluator that has one offers it through ``native_form() -> NativeForm | None`` (the material evaluator, the
    expert, organisms of the ``paper`` and ``rich`` layouts; ``None`` for a user's layout), so that ``search/`` never
    imports ``organisms/``. The core's evaluation of it equals the evaluator's ``evaluate(board)`` to the centipawn.
    ``kind`` names an entry of the core's one table of native kinds (``search.core.evaluate.KINDS``); ``wi``
    (int64) and ``wf`` (float64) are its parameters, laid out by kind:

    * ``material``: ``wi`` = the centipawn values by piece type, none, pawn to queen, king (7); ``wf`` empty;
    * ``paper``: ``wf`` = the 31 raw terms' middle-game weights, their endgame weights, ``tempo``
      (:class:`organisms.linear.TermWeights`'s ``mg``, ``eg``, ``tempo``; 63 numbers); ``wi`` empty;
    * ``expert`` and ``rich``: those, then the tapered tables ``[phase 0..24][piece][square]`` (24 times the tapered
      value, White's view; pieces White's pawn to king, then Black's) flattened (63 + 25 × 12 × 64 numbers).
    * ``giraffe`` (a Giraffe net, :meth:`organisms.net.NetEvaluator.native_form`): ``wi`` its widths, ``wf`` its scale,
      clip and output bias, then its float32 weights packed two to a float64 (``search/core/eval_giraffe.py``).
    * ``pnet``: a perspective net without hidden layers (:mod:`organisms.pnet`): ``wi`` = its integer weights laid out
      as :mod:`search.core.eval_pnet` says (a header, the first layer's rows by piece and square as int32 packed two
      to a slot, the PSQT weights, the bias row, the output weights), ``wf`` = centipawns per output unit and the
      evaluation limit; the core keeps its accumulators.
    """

    kind: str
    wi: np.ndarray
    wf: np.ndarray

    @classmethod
    def material(cls, values: Sequence[int]) -> NativeForm:
        """The material evaluator's form: ``values`` by piece type (index 0 and 6 unused, 0)."""
        return cls("material", np.array(values, dtype=np.int64).reshape(7), np.zeros(0))

    @classmethod
    def linear(cls, kind: str, mg: Sequence[float], eg: Sequence[float], tempo: float,
               tables: Sequence[Sequence[Sequence[float]]] | np.ndarray | None = None) -> NativeForm:
        """A linear evaluator's form (``paper`` without ``tables``; ``expert``, ``rich`` with them)."""
        parts = [np.asarray(mg, dtype=np.float64), np.asarray(eg, dtype=np.float64), np.array([float(tempo)])]
        if tables is not None:
            parts.append(np.asarray(tables, dtype=np.float64).reshape(-1))
        return cls(kind, np.zeros(0, dtype=np.int64), np.concatenate(parts))

def native_form_of(evaluator: object) -> NativeForm | None:
    """``evaluator.native_form()``, or ``None`` when it has none (no such method, or the method says ``None``): the
    one test of whether the compiled core can play an evaluator (:func:`search.prob.make_engine`)."""
    method = getattr(evaluator, "native_form", None)
    return method() if callable(method) else None


@runtime_checkable
class IncrementalEvaluator(Evaluator, Protocol):
    """An evaluator that follows the moves the search makes and unmakes (ARCHITECTURE.md, Contracts), e.g. a net
    whose first layer's sums are updated incrementally. The engine checks once, when it is given the evaluator,
    whether it is one (an evaluator without these methods pays nothing), then, in every search:

    * ``refresh(board)`` with the root position (the state of any earlier search is dropped);
    * ``push(board, move)`` just *before* it makes ``move`` on ``board`` (a legal move, or ``chess.Move.null()``);
    * ``pop()`` just after it unmakes the last move pushed;
    * ``evaluate_current(board)`` instead of ``evaluate(board)``: the score of the position reached, ``board``
      being that position (for its side to move). It must equal ``evaluate(board)`` exactly.

    A search that stops early leaves pushes unpopped; the next search's ``refresh`` starts over.
    """

    def refresh(self, board: chess.Board) -> None: ...

    def push(self, board: chess.Board, move: chess.Move) -> None: ...

    def pop(self) -> None: ...

    def evaluate_current(self, board: chess.Board) -> int: ...


@runtime_checkable
class Comparator(Protocol):
    """Anything that tells which of two positions is better (DeepChess style), with no numbers.

    ``better(a, b)`` is true when position ``a`` is better than position ``b`` for **White** (DeepChess's
    convention: the comparator is trained on White-win/Black-win pairs); a search from Black's side negates it.
    It must not change either board. A comparison search keeps positions, not scores, as its bounds.
    """

    def better(self, a: chess.Board, b: chess.Board) -> bool: ...


@runtime_checkable
class MovePolicy(Protocol):
    """Anything that says how likely each legal move is to be the best (a learned source of the
    probability-limited search's move probabilities, ``@search=prob-net:PATH``).

    ``move_weights(board, moves)`` returns one positive weight per move of ``moves`` (all legal in ``board``), in
    their order; a move's probability is its weight over their sum. It must not change the board.
    """

    def move_weights(self, board: chess.Board, moves: Sequence[chess.Move]) -> list[float]: ...


class MoveChooser(Protocol):
    """A source of moves played without a search: an experience book (``SPEC+book:PATH``, ``deepred:PATH``;
    :class:`search.book.chooser.BookChooser`), opened by the player registry
    (:meth:`search.players.spec.PlayerRegistry.book`).

    ``choose(board)`` is a legal move of ``board`` or ``None`` where it knows none (it must not change the board);
    ``new_game()`` starts a game; ``close()`` releases what it holds open.
    """

    def choose(self, board: chess.Board) -> chess.Move | None: ...

    def new_game(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, kw_only=True)
class Limit:
    """When a search stops. Every field left as ``None`` is no limit.

    ``movetime``, ``wtime``, ``btime``, ``winc`` and ``binc`` are in seconds. A clock (``wtime``/``btime``)
    is turned into a time budget by :mod:`search.timeman`. With no field set and ``infinite`` false the
    search is unlimited too: it runs until its stop flag is raised (:meth:`search.root.RootSearch.search`).
    """

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float | None = None
    binc: float | None = None
    movestogo: int | None = None
    mate: int | None = None
    infinite: bool = False

    def capped(self, cap: Limit | None) -> Limit:
        """This limit, with every field that ``cap`` sets taken as an upper bound."""
        if cap is None:
            return self

        def lower(mine: float | None, theirs: float | None) -> float | None:
            return mine if theirs is None else (theirs if mine is None else min(mine, theirs))

        depth, nodes = lower(self.depth, cap.depth), lower(self.nodes, cap.nodes)
        return replace(self, depth=None if depth is None else int(depth),
                       nodes=None if nodes is None else int(nodes),
                       movetime=lower(self.movetime, cap.movetime))

    @property
    def has_clock(self) -> bool:
        return self.wtime is not None or self.btime is not None


@dataclass
class SearchResult:
    """What a search found.

    ``score`` is centipawns from the root side to move's view; for a forced mate it is
    ``±(MATE - plies)`` and ``mate`` gives the distance in moves (positive: the side to move mates).
    ``time`` is wall seconds. ``move`` is ``None`` only when the root has no legal move.
    """

    move: chess.Move | None
    score: int
    depth: int
    seldepth: int
    nodes: int
    time: float
    pv: list[chess.Move] = field(default_factory=list)
    bound: str = "exact"  # "exact", "lower" (fail high) or "upper" (fail low); set on aspiration reports

    @property
    def mate(self) -> int | None:
        """Moves to mate (positive when the side to move mates, negative when it is mated), or None."""
        return mate_moves(self.score)

    @property
    def nps(self) -> int:
        """Nodes per second over the whole search."""
        return int(self.nodes / self.time) if self.time > 0 else 0
