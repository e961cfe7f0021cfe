"""The shared alpha-beta engine, its UCI front end, players, the match and test-suite runners, and the chess
conventions every package shares (:mod:`search.conventions`).

Evaluators arrive as objects with ``evaluate(board) -> int`` (centipawns, side to move) and comparators as
objects with ``better(a, b) -> bool``; this package never imports a concrete evaluator.
"""

from search.base import MATE, MATE_BOUND, Comparator, Evaluator, Limit, SearchResult
from search.engine import Engine
from search.prob import ProbEngine, make_engine
from search.tt import position_key

__all__ = ["MATE", "MATE_BOUND", "Comparator", "Engine", "Evaluator", "Limit", "ProbEngine", "SearchResult",
           "make_engine", "position_key"]
