"""The shared alpha-beta engine, its UCI front end and (later) the match and test-suite runners.

Evaluators arrive as objects with ``evaluate(board) -> int`` (centipawns, side to move); this
package never imports a concrete evaluator.
"""

from .base import MATE, MATE_BOUND, Evaluator, Limit, SearchResult
from .engine import Engine
from .tt import position_key

__all__ = ["MATE", "MATE_BOUND", "Engine", "Evaluator", "Limit", "SearchResult", "position_key"]
