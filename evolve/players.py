"""Turn player specs (DESIGN.md) into evaluators: the one place that knows every concrete evaluator."""

from __future__ import annotations

from organisms import Material
from search import Evaluator
from search.spec import PlayerSpec, SpecError, parse_spec


def make_evaluator(spec: str | PlayerSpec) -> Evaluator:
    """The evaluator a spec names (its ``@`` limit, if any, is the caller's business).

    Raises :class:`~search.spec.SpecError` for a spec that names no evaluator (``uci:`` engines are
    separate processes) or one this version cannot build yet.
    """
    s = parse_spec(spec) if isinstance(spec, str) else spec
    if s.kind == "material":
        return Material()
    if s.kind == "uci":
        raise SpecError(f"{s.text!r} is an external engine, not an evaluator")
    raise SpecError(f"{s.text!r}: the {s.kind} evaluator is not available in this version")
