"""Which engine runs the depth-limited search for an evaluator: the compiled core or today's engine in Python.

The one place the choice is made (issue 62, item 3): :func:`depth_engine` gives the compiled core's
:class:`~search.core.engine.CoreEngine` to an evaluator with a native form (:func:`search.base.native_form_of`:
material, the expert, organisms of the paper and rich layouts, perspective nets without hidden layers, Giraffe nets),
the comparison alpha-beta to a DeepChess comparator, and today's :class:`~search.engine.Engine` to anything else (a
user's layout, the other nets, any Python object with ``evaluate``); :func:`python_engine` is today's engine whatever
the evaluator (``@search=python``); :func:`prob_engine` makes the same choice for Giraffe's probability-limited search
(``@search=prob``). The core, and with it numba, is imported only when chosen. :func:`engine_label` is
how the choice is printed, once (the match header, the UCI server's ``info string``). The table of searches
(:data:`search.prob.SEARCH_KINDS`) names these functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from search.base import Comparator, Evaluator, native_form_of
from search.compare import CompareEngine
from search.engine import Engine

if TYPE_CHECKING:
    from search.core.engine import CoreEngine

AnyEngine: TypeAlias = "Engine | CoreEngine"
"""An engine :func:`search.prob.make_engine` builds: today's (or one of its variants) or the compiled core's."""
EngineClass: TypeAlias = "type[Engine] | type[CoreEngine]"
"""The class of one."""

def depth_engine(evaluator: Evaluator) -> EngineClass:
    """The depth-limited search's engine class for ``evaluator`` (module docstring)."""
    if isinstance(evaluator, Comparator):
        return CompareEngine
    if native_form_of(evaluator) is not None:
        from search.core.engine import CoreEngine

        return CoreEngine
    return Engine


def prob_engine(evaluator: Evaluator) -> EngineClass:
    """The probability-limited search's engine class: compiled (:class:`search.core.prob_engine.ProbCoreEngine`) when
    the evaluator has a native form, else :class:`search.prob.ProbEngine` (a comparator plays it through its derived
    score)."""
    if native_form_of(evaluator) is not None:
        from search.core.prob_engine import ProbCoreEngine

        return ProbCoreEngine
    from search.prob import ProbEngine

    return ProbEngine


def python_engine(evaluator: Evaluator) -> type[Engine]:
    """Today's depth-limited search in Python whatever the evaluator (the comparison alpha-beta for a comparator)."""
    return CompareEngine if isinstance(evaluator, Comparator) else Engine


def engine_label(engine: object) -> str:
    """How an engine or engine class runs: ``compiled core`` or ``python``."""
    return "compiled core" if getattr(engine, "compiled", False) else "python"
