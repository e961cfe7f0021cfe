"""Turn player specs (DESIGN.md) into evaluators: the one place that knows every concrete evaluator."""

from __future__ import annotations

from organisms import Expert, Material, Organism
from search import Evaluator
from search.spec import PlayerSpec, SpecError, parse_spec


def make_evaluator(spec: str | PlayerSpec) -> Evaluator:
    """The evaluator a spec names (its ``@`` limit, if any, is the caller's business).

    ``material``, ``expert``, ``random[:SEED]`` (a random organism) and ``organism:PATH.json``.
    Raises :class:`~search.spec.SpecError` for a spec that names no evaluator (``uci:`` engines are
    separate processes), one this version cannot build yet, or an organism file that does not load.
    """
    s = parse_spec(spec) if isinstance(spec, str) else spec
    if s.kind == "material":
        return Material()
    if s.kind == "expert":
        return Expert()
    if s.kind == "random":
        return Organism.random(s.seed)
    if s.kind == "organism":
        assert s.arg is not None
        try:
            return Organism.load(s.arg)
        except OSError as exc:
            raise SpecError(f"{s.text!r}: cannot read {s.arg}: {exc.strerror}") from exc
        except ValueError as exc:
            raise SpecError(f"{s.text!r}: {exc}") from exc
    if s.is_external:
        raise SpecError(f"{s.text!r} is an external engine, not an evaluator")
    raise SpecError(f"{s.text!r}: the {s.kind} evaluator is not available in this version")
