"""Measures: how well a clone explains the moves of a game side, or of a group of sides.

A clone's *measure* of a position is, by ``score``:

* ``likelihood`` (default): the log-probability (nats) of the move played under softmax(β · score) over
  the position's resolved children, β fitted on the clone's training positions;
* ``agreement``: 1 when the clone's 1-ply choice is the move played, else 0.

The measure of a query (a game side, or a group of ``k`` game sides of one player) is the mean over its
positions. A clone that agrees with everyone (a strong organism, whose evaluation is nearer every strong
player's) would win every query on the raw measure. So the **score** of a clone on a query is the raw
measure *minus the clone's normalisation*, its average over all players' validation game sides (the mean
over players of the clone's mean measure on that player's validation positions: each player weighs the
same). A clone wins a query when it explains the query's moves better than it explains the average
player's. Positions where a move mates are left out (every organism mates there).

May import numpy, :mod:`evolve.ga.objectives` and :mod:`evolve.recognition.positions`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evolve.ga.objectives import Gathered, agrees
from evolve.recognition.positions import Positions

SCORES = ("likelihood", "agreement")
"""What a clone's measure of a position is (see the module docstring)."""


def position_measures(weights: np.ndarray, betas: np.ndarray, pos: Positions, score: str
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(organisms, positions) measures of every position (see the module docstring) and the positions'
    indices (those where no move mates)."""
    objective = pos.objective()
    rows = objective.rows
    w = np.atleast_2d(weights)
    if not len(rows):
        return np.zeros((len(w), 0)), rows
    s, g = objective.scores(w, rows)
    if score == "agreement":
        return agrees(s, g).astype(np.float64), rows
    return _log_probabilities(s, g, np.asarray(betas, dtype=np.float64)), rows


def _log_probabilities(s: np.ndarray, g: Gathered, beta: np.ndarray) -> np.ndarray:
    """(organisms, positions) log softmax(β · score) of the played child, β one per organism."""
    best = np.maximum.reduceat(s, g.starts, axis=1)
    d = (s - np.repeat(best, g.lengths, axis=1)).astype(np.float64) * beta[:, None]
    z = np.add.reduceat(np.exp(d), g.starts, axis=1)
    return d[:, g.played] - np.log(z)


def side_means(values: np.ndarray, side_of: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """(organisms, groups): each organism's mean of ``values`` (organisms, positions) over the positions
    of each group of sides (``side_of``: each position's side; NaN for a group without positions). Sums per
    side once (``bincount``), then per group: linear in positions plus the groups' sizes.

    >>> side_means(np.array([[1.0, 0.0, 1.0, 1.0]]), np.array([0, 0, 1, 2]), [[0], [1, 2], [3]]).tolist()
    [[0.5, 1.0, nan]]
    """
    arrays = [np.asarray(g, dtype=np.int64) for g in groups]
    n_sides = max([int(side_of.max()) + 1 if len(side_of) else 0] + [int(g.max()) + 1 for g in arrays if len(g)])
    counts = np.bincount(side_of, minlength=n_sides).astype(np.float64)
    sums = np.array([np.bincount(side_of, weights=v, minlength=n_sides) for v in values]).reshape(len(values), -1)
    out = np.full((values.shape[0], len(arrays)), np.nan)
    for j, g in enumerate(arrays):
        n = counts[g].sum()
        if n:
            out[:, j] = sums[:, g].sum(axis=1) / n
    return out


def side_counts(side_of: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """The number of positions of each group of sides."""
    n_sides = max([int(side_of.max()) + 1 if len(side_of) else 0] + [max(g) + 1 for g in groups if len(g)])
    counts = np.bincount(side_of, minlength=n_sides)
    return np.array([int(counts[list(g)].sum()) for g in groups], dtype=np.int64)


def score_groups(vals: np.ndarray, side_of: np.ndarray, groups: Sequence[Sequence[int]], normal: np.ndarray
                 ) -> np.ndarray:
    """(groups, clones): each clone's mean measure over each group's positions minus its normalisation."""
    return (side_means(vals, side_of, groups) - np.asarray(normal)[:, None]).T
