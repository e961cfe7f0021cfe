"""What the GA minimises. Each objective scores a whole population at once.

``losses(W, rows)`` takes a (population, genes) weight matrix and the row indices of a sample and
returns one loss per organism, computed with one matrix product ``F[rows] · Wᵀ``.

* :class:`MentorLoss` (``--objective mentor``, the paper's): the mean absolute difference, in
  centipawns, between the organism's evaluation of each target position and the mentor's score.
* :class:`ResultLoss` (``--objective result``, the Texel/GreKo seed): the squared error between the
  game result (1, ½, 0 for the side to move) and the prediction σ(eval / K), weighted by
  exp(−n/λ) where n is the number of plies to the game's end (GreKo's λ-forgetting). K is fitted first,
  on the mentor's scores of the training rows.
* :class:`MoveAgreement` (``--objective moves``, the paper's grandmaster objective): how often the
  organism's 1-ply choice over capture-resolved children (:mod:`evolve.data.moves`) is the player's move, or
  the likelihood of the player's moves under a softmax of the organism's scores. Its rows are positions,
  each with its segment of children.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evolve.ga.errors import ObjectiveError
from evolve.ga.fit import Fit
from evolve.ga.move_agreement import AGREEMENTS, MATE_FIXED, MOVE_LOSSES, Gathered, MoveAgreement, agrees
from evolve.ga.objective_api import METHODS, Objective, ObjectiveDefaults

if TYPE_CHECKING:
    from evolve.data.dataset import Dataset
    from evolve.ga.run import RunOutcome, RunSettings
    from organisms.genome import Genome

__all__ = ["AGREEMENTS", "MATE_FIXED", "MOVE_LOSSES", "Gathered", "MentorLoss", "MoveAgreement", "Objective",
           "ResultLoss", "agrees", "fit_k", "sigmoid"]
"""The objectives' names; the moves objective is re-exported from :mod:`evolve.ga.move_agreement`, the protocol
from :mod:`evolve.ga.objective_api`."""


class MentorLoss(ObjectiveDefaults):
    """Mean |evaluation − mentor score| in centipawns, per organism (the ``l1`` loss of the mentor objective; its
    ceiling is the exact L1 fit)."""

    name = "mentor"
    unit = "cp"
    ceiling_label = "exact L1 fit (held out)"

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

    def ceiling(self, ds: Dataset, genome: Genome, l1: Fit, start: np.ndarray | None = None) -> Fit | None:
        return l1  # the L1 fit is a linear programme: its optimum does not depend on a start

    def ceiling_loss(self, fit: Fit) -> float | None:
        return fit.held_mae

    def summary_errors(self, settings: RunSettings, o: RunOutcome) -> list[str]:
        lines = ["Mean absolute difference from the mentor's score, centipawns (side to move at the target).", "",
                 "| | training | held out |", "|---|---|---|",
                 f"| GA winner | {o.train_loss:.2f} | {o.held_loss:.2f} |"]
        for fit in (o.fit_l1, o.fit_l2):
            if fit is not None:
                lines.append(f"| exact {fit.loss.upper()} fit, bounded ({METHODS.get(fit.method, fit.method)}) | "
                             f"{fit.train_mae:.2f} | {fit.held_mae:.2f} |")
        if o.polished is not None:
            lines.append(f"| GA winner + memetic polish ({o.polished.passes} coordinate-descent passes, "
                         f"{o.polished.evaluations} evaluations) | {o.polished.train_loss:.2f} | "
                         f"{o.polished.held_loss:.2f} |")
        if o.ratio is not None:
            lines += ["", f"**GA held-out error ÷ exact L1 fit held-out error: {o.ratio:.3f}** (pure GA)"]
        if o.polished_ratio is not None:
            lines += ["", f"GA + memetic polish held-out error ÷ exact L1 fit held-out error: "
                          f"{o.polished_ratio:.3f}"]
        return lines

    def outcome_lines(self, o: RunOutcome) -> list[str]:
        if o.fit_l1 is None or o.ratio is None:
            return []
        return [f"exact L1 fit ({o.fit_l1.method}): training {o.fit_l1.train_mae:.4g}, held out "
                f"{o.fit_l1.held_mae:.4g}; GA held-out / exact held-out = {o.ratio:.3f}"]


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def fit_k(scores: np.ndarray, results: np.ndarray, weights: np.ndarray, power: float = 2.0) -> float:
    """The K (centipawns) minimising the weighted error ``|σ(score / K) − result|^power`` (squared by default)
    against results (game results, or any targets in [0, 1])."""
    from scipy.optimize import minimize_scalar

    def err(log_k: float) -> float:
        d = results - sigmoid(scores / np.exp(log_k))
        return float(np.sum(weights * (d ** 2 if power == 2 else np.abs(d) ** power)))

    best = minimize_scalar(err, bounds=(np.log(5.0), np.log(5000.0)), method="bounded",
                           options={"xatol": 1e-6})
    return float(np.exp(best.x))


class ResultLoss(ObjectiveDefaults):
    """Weighted squared error of σ(eval / K) against the game result, per organism (dimensionless)."""

    name = "result"
    unit = "squared error"

    def __init__(self, features: np.ndarray, mentor: np.ndarray, results: np.ndarray, plies: np.ndarray,
                 train_rows: np.ndarray, lam: float = 60.0, k: float | None = None) -> None:
        known = ~np.isnan(results)
        if not known.any():
            raise ObjectiveError("the result objective needs labels with a game result (c9)")
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

    def settings_rows(self, settings: RunSettings) -> list[str]:
        return [f"| lambda (plies) | {settings.lam:g} |", f"| K (fitted, cp) | {self.k:.1f} |"]

    def summary_errors(self, settings: RunSettings, o: RunOutcome) -> list[str]:
        cd = o.descent
        assert cd is not None  # computed by evolve() for the result objective
        lines = ["Weighted squared error of σ(eval/K) against the game result.", "",
                 "| | training | held out | time |", "|---|---|---|---|",
                 f"| GA winner | {o.train_loss:.5f} | {o.held_loss:.5f} | {o.seconds['evolution']:.1f} s |",
                 f"| GreKo coordinate descent ({cd.passes} passes, {cd.evaluations} evaluations) | "
                 f"{cd.train_loss:.5f} | {cd.held_loss:.5f} | {cd.seconds:.1f} s |"]
        if o.polished is not None:
            lines.append(f"| GA winner + memetic polish ({o.polished.passes} coordinate-descent passes) | "
                         f"{o.polished.train_loss:.5f} | {o.polished.held_loss:.5f} | {o.polished.seconds:.1f} s |")
        return lines
