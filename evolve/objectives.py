"""What the GA minimises. Each objective scores a whole population at once.

``losses(W, rows)`` takes a (population, genes) weight matrix and the row indices of a sample and
returns one loss per organism, computed with one matrix product ``F[rows] · Wᵀ``.

* :class:`MentorError` (``--objective mentor``, the paper's): the mean absolute difference, in
  centipawns, between the organism's evaluation of each target position and the mentor's score.
* :class:`ResultError` (``--objective result``, the Texel/GreKo seed): the squared error between the
  game result (1, ½, 0 for the side to move) and the prediction σ(eval / K), weighted by
  exp(−n/λ) where n is the number of plies to the game's end (GreKo's λ-forgetting). K is fitted first,
  on the mentor's scores of the training rows.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Objective(Protocol):
    name: str
    unit: str
    rows: np.ndarray  # the rows this objective can use (a subset of the dataset)

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray: ...


class MentorError:
    """Mean |evaluation − mentor score| in centipawns, per organism."""

    name = "mentor"
    unit = "cp"

    GATHER_MIN = 10_000
    """Row sets at least this large (the held-out rows, measured every generation) are gathered once
    and kept: at a million labels, copying 200,000 rows each generation cost more than the GA."""

    def __init__(self, features: np.ndarray, y: np.ndarray) -> None:
        self.features = np.ascontiguousarray(features, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        self.rows = np.arange(len(y))
        self._kept: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # rows, features[rows], y[rows]

    def _gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(rows) < self.GATHER_MIN:
            return self.features[rows], self.y[rows]
        kept = self._kept
        if kept is None or not np.array_equal(kept[0], rows):
            kept = self._kept = (np.array(rows), self.features[rows], self.y[rows])
        return kept[1], kept[2]

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        f, y = self._gather(rows)
        pred = f @ np.atleast_2d(weights).T  # (rows, population)
        return np.abs(pred - y[:, None]).mean(axis=0)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def fit_k(scores: np.ndarray, results: np.ndarray, weights: np.ndarray) -> float:
    """The K (centipawns) minimising the weighted squared error of σ(score / K) against results."""
    from scipy.optimize import minimize_scalar

    def err(log_k: float) -> float:
        return float(np.sum(weights * (results - sigmoid(scores / np.exp(log_k))) ** 2))

    best = minimize_scalar(err, bounds=(np.log(5.0), np.log(5000.0)), method="bounded",
                           options={"xatol": 1e-6})
    return float(np.exp(best.x))


class ResultError:
    """Weighted squared error of σ(eval / K) against the game result, per organism (dimensionless)."""

    name = "result"
    unit = "squared error"

    def __init__(self, features: np.ndarray, mentor: np.ndarray, results: np.ndarray, plies: np.ndarray,
                 train_rows: np.ndarray, lam: float = 60.0, k: float | None = None) -> None:
        known = ~np.isnan(results)
        if not known.any():
            raise ValueError("the result objective needs labels with a game result (c9)")
        self.features = np.ascontiguousarray(features, dtype=np.float64)
        self.results = np.where(known, results, 0.0)
        n = np.where(np.isnan(plies), 0.0, plies)
        self.lam = lam
        self.weight = np.where(known, np.exp(-n / lam), 0.0)
        self.rows = np.flatnonzero(known)
        fit_rows = np.intersect1d(train_rows, self.rows)
        self.k = k if k is not None else fit_k(mentor[fit_rows], self.results[fit_rows], self.weight[fit_rows])

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        pred = sigmoid((self.features[rows] @ np.atleast_2d(weights).T) / self.k)
        w = self.weight[rows, None]
        return (w * (self.results[rows, None] - pred) ** 2).sum(axis=0) / max(float(w.sum()), 1e-12)
