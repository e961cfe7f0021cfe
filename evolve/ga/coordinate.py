"""GreKo's coordinate descent, the classic baseline for tuning on game results.

Start from a weight vector (by default the middle of every gene's range); for each gene in turn try one
gene step up and one down, keep a move that lowers the loss on the training rows, and repeat passes until
one changes nothing (or ``max_passes``). Weights stay on the genes' grids and within their ranges, so the
result is an organism.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from evolve.ga.objective_api import Objective
from organisms.genome import Genome


@dataclass
class DescentResult:
    weights: np.ndarray
    train_loss: float
    held_loss: float
    passes: int
    evaluations: int
    seconds: float


def coordinate_descent(genome: Genome, objective: Objective, train: np.ndarray, held: np.ndarray,
                       start: np.ndarray | None = None, max_passes: int = 200) -> DescentResult:
    t0 = time.perf_counter()
    train = np.intersect1d(train, objective.rows)
    held = np.intersect1d(held, objective.rows)
    ints = genome.integers(genome.encode((genome.low + genome.high) / 2 if start is None else start)[None, :])[0]
    w = genome.low + ints * genome.scale

    def loss(weights: np.ndarray) -> float:
        return float(objective.losses(weights[None, :], train)[0])

    best = loss(w)
    evaluations, passes = 1, 0
    while passes < max_passes:
        passes += 1
        improved = False
        for j in range(len(genome)):
            for delta in (1, -1):
                k = ints[j] + delta
                if not 0 <= k <= genome.max_int[j]:
                    continue
                trial = w.copy()
                trial[j] = genome.low[j] + k * genome.scale[j]
                value = loss(trial)
                evaluations += 1
                if value < best:
                    best, w, ints[j] = value, trial, k
                    improved = True
                    break
        if not improved:
            break
    held_loss = float(objective.losses(w[None, :], held)[0]) if len(held) else float("nan")
    return DescentResult(w, best, held_loss, passes, evaluations, time.perf_counter() - t0)
