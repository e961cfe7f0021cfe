"""The searches a player spec may name (``@search=NAME``) and the spec's error: the lowest part of the
spec grammar (:mod:`search.players.spec`), which re-exports every name here. The names, their help and which take a
file are read from the core's one table of searches (:data:`search.prob.SEARCH_KINDS`); this module adds what the
grammar alone knows: :class:`SpecError` and the ``PATH[?t=T]`` argument of a search that takes a net.

May import the standard library, :mod:`search.runtime` and the table (:mod:`search.prob`).
"""

from __future__ import annotations

import math
from urllib.parse import parse_qsl

from search.prob import DEFAULT_SEARCH, SEARCH_KINDS, search_parts
from search.runtime.errors import MimicError

__all__ = ["DEFAULT_SEARCH", "SEARCHES", "SEARCHES_WITH_FILE", "SpecError", "net_argument", "search_parts"]


class SpecError(MimicError, ValueError):
    """A player spec that does not follow the grammar, names no known kind, or cannot be built."""


SEARCHES: dict[str, str] = {kind.name: kind.summary for kind in SEARCH_KINDS.values()}
"""The help text of each search our engine runs, by the name ``@search=NAME`` gives: read from the one table,
:data:`search.prob.SEARCH_KINDS`."""
SEARCHES_WITH_FILE = tuple(kind.name for kind in SEARCH_KINDS.values() if kind.takes_file)
"""The searches whose name takes a file, ``NAME:PATH`` (the move-probability net of ``prob-net``)."""


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
