"""The searches a player spec may name (``@search=NAME``) and the spec's error: the lowest part of the
spec grammar (:mod:`search.players.spec`), which re-exports every name here.

May import the standard library and :mod:`search.runtime`.
"""

from __future__ import annotations

import math
from urllib.parse import parse_qsl

from search.runtime.errors import MimicError


class SpecError(MimicError, ValueError):
    """A player spec that does not follow the grammar, names no known kind, or cannot be built."""


SEARCHES: dict[str, str] = {
    "depth": "depth-limited alpha-beta (the default): iterative deepening one ply at a time",
    "prob": "probability-limited alpha-beta (Giraffe): expands a node while the product of the move "
            "probabilities from the root is at least a threshold (divided by 4 each iteration); "
            "moves weighted by hash move, SEE, killers",
    "prob-uniform": "the same probability-limited search with every legal move equally likely",
    "prob-net": "the same probability-limited search with move probabilities from a move-probability net "
                "(mimic train-moves): @search=prob-net:PATH.npz[?t=T], T a softmax temperature (default 1; "
                "above 1 flattens them)",
}
"""The searches our engine runs, by the name ``@search=NAME`` gives (the one home of these names and their help).
With a probability-limited search, ``@depth=N`` caps the number of iterations (iteration ``k`` searches with
threshold ``4^-(k-1)``), which is also the ``depth`` it reports."""
DEFAULT_SEARCH = "depth"
"""The search of a spec without ``@search=`` (and the one a spec's default name leaves out)."""
SEARCHES_WITH_FILE = ("prob-net",)
"""The searches whose name takes a file, ``NAME:PATH`` (the move-probability net of ``prob-net``)."""


def search_parts(search: str) -> tuple[str, str | None]:
    """A search option's name and file: ``"prob-net:x.npz"`` is ``("prob-net", "x.npz")``, ``"prob"`` is
    ``("prob", None)``."""
    name, sep, path = search.partition(":")
    return name, (path if sep else None)


def net_argument(text: str) -> tuple[str, float]:
    """The file and temperature of ``prob-net:PATH[?t=T]``'s argument: ``"x.npz?t=2"`` is ``("x.npz", 2.0)``
    (temperature 1 when absent); :class:`SpecError` for another option or a temperature that is not a positive
    number."""
    path, _, query = text.partition("?")
    temperature = 1.0
    if query:
        try:
            pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
        except ValueError as exc:
            raise SpecError(f"prob-net:{text}: bad options {query!r} (use ?t=T)") from exc
        for key, value in pairs:
            if key != "t":
                raise SpecError(f"prob-net:{text}: unknown option {key!r} (expected t, the temperature)")
            try:
                temperature = float(value)
            except ValueError:
                temperature = math.nan
            if not math.isfinite(temperature) or temperature <= 0:
                raise SpecError(f"prob-net:{text}: the temperature t must be a positive number, got {value!r}")
    if not path:
        raise SpecError(f"prob-net:{text}: no net file")
    return path, temperature
