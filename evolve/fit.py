"""The ceiling: the same linear model solved exactly, with the genes' ranges as bounds.

* L1 (least absolute deviations): ``min Σ|F·w − y|`` subject to ``low ≤ w ≤ high``, as a linear
  programme (HiGHS through ``scipy.optimize.linprog``): variables ``w`` and one ``t_i ≥ |F_i·w − y_i|`` per
  row. Its training error is the lowest mean absolute error any organism of this genome can reach on
  those rows, so no GA run beats it there.
* L2 (least squares): ``scipy.optimize.lsq_linear`` with the same bounds.

Both use the training rows; the held-out error is reported beside it. Weights are continuous (finer than
any gene can express); ``Organism.from_weights`` turns them into the nearest organism.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from organisms.genome import Genome


@dataclass
class Fit:
    loss: str
    weights: np.ndarray  # (genes,) centipawns per unit of feature
    train_mae: float
    held_mae: float
    seconds: float


def _mae(features: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    return float(np.abs(features @ w - y).mean()) if len(y) else float("nan")


def fit_l1(features: np.ndarray, y: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Bounded least-absolute-deviations weights."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix, hstack, identity, vstack

    n, p = features.shape
    f = csr_matrix(features)
    eye = identity(n, format="csr")
    # F w - t <= y  and  -F w - t <= -y
    a_ub = vstack([hstack([f, -eye]), hstack([-f, -eye])], format="csr")
    b_ub = np.concatenate([y, -y])
    c = np.concatenate([np.zeros(p), np.ones(n) / n])
    bounds = [(float(lo), float(hi)) for lo, hi in zip(low, high, strict=True)] + [(0, None)] * n
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if not res.success:
        raise RuntimeError(f"the L1 fit failed: {res.message}")
    return np.clip(res.x[:p], low, high)


def fit_l2(features: np.ndarray, y: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Bounded least-squares weights."""
    from scipy.optimize import lsq_linear

    res = lsq_linear(features, y, bounds=(low, high), method="bvls" if features.shape[1] <= 200 else "trf")
    return np.clip(res.x, low, high)


def exact_fit(features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray, genome: Genome,
              loss: str = "l1") -> Fit:
    """Fit on the training rows; mean absolute errors (cp) on training and held-out rows."""
    import time

    t0 = time.perf_counter()
    solver = {"l1": fit_l1, "l2": fit_l2}.get(loss)
    if solver is None:
        raise ValueError("loss must be l1 or l2")
    w = solver(features[train], y[train], genome.low, genome.high)
    return Fit(loss, w, _mae(features[train], y[train], w), _mae(features[held], y[held], w),
               time.perf_counter() - t0)

