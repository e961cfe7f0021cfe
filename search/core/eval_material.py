"""The material evaluator compiled: :func:`search.conventions.material_balance` from the core's bitboards.

``wi`` holds the centipawn values by piece type (index 0 and 6 unused; :class:`search.base.NativeForm`); integers
throughout, so the sum is exact whatever its order.
"""

from __future__ import annotations

from search.core.jit import njit, popcount

__all__ = ["material_eval"]


@njit(cache=True)
def material_eval(bb, white_to_move, wi):  # type: ignore[no-untyped-def]
    """Material of the side to move minus the opponent's, centipawns."""
    s = 0
    for pt in range(1, 6):
        s += wi[pt] * (popcount(bb[1, pt]) - popcount(bb[0, pt]))
    return s if white_to_move else -s
