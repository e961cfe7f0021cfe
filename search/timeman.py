"""Time management: turn a :class:`~search.base.Limit` into a soft and a hard time budget.

The *hard* budget is a deadline the search checks every few hundred nodes and never passes.
The *soft* budget is checked between iterations of iterative deepening: once it is spent (or so
much of it that the next, deeper iteration cannot finish), the search stops and plays.
All times are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from search.base import Limit

DEFAULT_MOVES_TO_GO = 30
"""Moves assumed to remain when a clock has no ``movestogo`` (sudden death)."""


@dataclass(frozen=True)
class Budget:
    soft: float | None  # seconds; stop starting iterations after this
    hard: float | None  # seconds; abort the search at this point


def budget(limit: Limit, white_to_move: bool, overhead: float = 0.03) -> Budget:
    """Soft and hard budgets (seconds) for one move.

    ``overhead`` is what each move costs outside the search (process pipes, the GUI), subtracted so
    that the clock never falls to zero.

    ``movetime`` gives a hard budget of that time less the overhead (at least half of it) and no soft
    budget: the search uses all of it.
    A clock gives ``soft = time / movestogo + 3/4 · increment`` and ``hard = 4 · soft``, both capped
    well inside the remaining time; with ``movestogo`` unknown, 30 moves are assumed.
    """
    if limit.infinite:
        return Budget(None, None)
    hard: float | None = None
    soft: float | None = None
    if limit.movetime is not None:
        t = max(limit.movetime - overhead, limit.movetime * 0.5)
        hard = max(t, 0.001)
    if limit.has_clock:
        remaining = limit.wtime if white_to_move else limit.btime
        inc = (limit.winc if white_to_move else limit.binc) or 0.0
        if remaining is not None:
            remaining = max(remaining - overhead, 0.0)
            mtg = limit.movestogo if limit.movestogo and limit.movestogo > 0 else DEFAULT_MOVES_TO_GO
            mtg = min(mtg, DEFAULT_MOVES_TO_GO)
            base = remaining / mtg + 0.75 * inc
            cap = remaining * (0.8 if mtg == 1 else 0.4)
            c_soft = max(min(base, cap), 0.001)
            c_hard = max(min(4 * base, remaining * (0.9 if mtg == 1 else 0.5)), c_soft)
            soft = c_soft if soft is None else min(soft, c_soft)
            hard = c_hard if hard is None else min(hard, c_hard)
    return Budget(soft, hard)
