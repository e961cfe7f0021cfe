"""The ceiling: the same linear model solved exactly, with the genes' ranges as bounds.

* L1 (least absolute deviations): ``min Σ|F·w − y|`` subject to ``low ≤ w ≤ high``, as a linear
  programme (HiGHS through ``scipy.optimize.linprog``): variables ``w`` and one ``t_i ≥ |F_i·w − y_i|`` per
  row. Its training error is the lowest mean absolute error any organism of this genome can reach on
  those rows, so no GA run beats it there.
* L2 (least squares): the normal equations' box-constrained quadratic with the same bounds, solved by
  L-BFGS-B (:func:`bounded_lsq`).

Above :data:`LP_MAX_ROWS` training rows the LP is slow (HiGHS: 2.8 s on 3,959 rows, 34 s on 16,000;
two constraint rows and a variable per label), so L1 is solved by iteratively reweighted least
squares (:func:`fit_l1_irls`): each step minimises ``Σ (F_i·w − y_i)² / max(|r_i|, δ)`` within the
bounds, a quadratic that touches ``Σ|r_i|`` at the current residuals ``r`` and lies above it, so the
L1 error never rises; the step's normal equations are a genes × genes system (one pass over the rows).
Above :data:`IRLS_MAX_ROWS` training rows IRLS runs on a seeded subsample of that many rows (at
800,000 rows each IRLS step costs seconds and a full-data run took 211 s with L2).
``Fit.method`` says which solver ran. Measured against the LP (benchmarks/million.py data, 16,000
rows): 0.79 s against 34 s, mean absolute error 116.4144 against 116.4137 cp (+0.0007%); on the
reference run's 3,959 rows 36.3992 against 36.3989 cp. tests/test_scale.py bounds the gap at 0.5%.

Both use the training rows; the held-out error is reported beside it. Weights are continuous (finer than
any gene can express); ``Organism.from_weights`` turns them into the nearest organism.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evolve.ga.errors import FitError
from organisms.genome import Genome


@dataclass
class Fit:
    loss: str
    weights: np.ndarray  # (genes,) centipawns per unit of feature
    train_mae: float
    held_mae: float
    seconds: float
    method: str = ""  # "lp", "irls" or "lsq"; for "wdl", how L-BFGS-B ended
    cached: bool = False  # read from the fit cache (evolve.ga.fit_cache), not solved now
    train_loss: float | None = None  # "wdl" only: the fit's own loss (evolve.ga.wdl), training rows
    held_loss: float | None = None  # "wdl" only: the same on the held-out rows
    key: str = ""  # the fit cache's key (evolve.ga.fit_cache), when it went through the cache


EXACT_LOSSES = ("l1", "l2")
"""The losses :func:`exact_fit` solves (``mimic fit --loss``, beside the ceilings of the GA's losses)."""

LP_MAX_ROWS = 2_000
"""Above this many training rows, L1 is fitted by :func:`fit_l1_irls` instead of the LP."""

IRLS_MAX_ROWS = 100_000
"""Above this many training rows, IRLS runs on a seeded random subsample of this many (its errors are
still measured on every training and held-out row)."""


def mean_abs_error(features: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Mean ``|F·w − y|`` over the rows (centipawns); NaN when there are none."""
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
        raise FitError(f"the L1 fit failed: {res.message}")
    return np.clip(res.x[:p], low, high)


def bounded_lsq(features: np.ndarray, y: np.ndarray, low: np.ndarray, high: np.ndarray,
                row_weights: np.ndarray | None = None, start: np.ndarray | None = None) -> np.ndarray:
    """``argmin Σ ω_i (F_i·w − y_i)²`` within the bounds (``ω`` = ``row_weights``, 1 when omitted).

    One pass over the rows builds the genes × genes normal equations ``A = Fᵀ Ω F``, ``b = Fᵀ Ω y``; the
    box-constrained quadratic ``min ½ wᵀAw − bᵀw`` is then solved by L-BFGS-B (scipy) on the variables
    scaled by ``1/√A_jj`` (a diagonal preconditioner), from ``start`` when given (IRLS warm-starts each
    step from the last), however many rows there are. Measured on the rich genome's 3,959 training rows
    (417 genes): the same objective to 7 significant digits as BVLS on the Cholesky factor, 0.3–0.9 s
    against 3.6–6.0 s; BVLS's active-set steps cost O(genes³) each, minutes per IRLS run at 417 genes.
    """
    from scipy.optimize import minimize

    f = np.asarray(features, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    fw = f if row_weights is None else f * row_weights[:, None]
    a = fw.T @ f
    b = fw.T @ y
    diag = np.diag(a).copy()
    d = 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0))  # a feature constantly zero keeps scale 1
    a_s, b_s = a * d[:, None] * d[None, :], b * d
    lo_s, hi_s = lo / d, hi / d
    w0 = np.clip((lo + hi) / 2, lo, hi) if start is None else np.asarray(start, dtype=np.float64)

    def objective(v: np.ndarray) -> tuple[float, np.ndarray]:
        av = a_s @ v
        return 0.5 * float(v @ av) - float(b_s @ v), av - b_s

    res = minimize(objective, np.clip(w0 / d, lo_s, hi_s), jac=True, method="L-BFGS-B",
                   bounds=list(zip(lo_s, hi_s, strict=True)),
                   options={"maxiter": 50_000, "maxcor": 30, "ftol": 1e-15, "gtol": 1e-10})
    return np.clip(res.x * d, lo, hi)


def fit_l1_irls(features: np.ndarray, y: np.ndarray, low: np.ndarray, high: np.ndarray,
                max_iter: int = 60, tol: float = 1e-5, delta: float = 1e-3) -> np.ndarray:
    """Bounded least-absolute-deviations weights by iteratively reweighted least squares.

    Starts from the bounded least-squares weights; each step weights row ``i`` by ``1 / max(|r_i|, δ)``
    (``δ`` in centipawns) and solves that bounded weighted least squares (:func:`bounded_lsq`). Stops
    when the mean absolute error improves by less than ``tol`` (relative) or after ``max_iter`` steps;
    returns the best weights seen.
    """
    f = np.asarray(features, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = bounded_lsq(f, y, low, high)
    best_w, best = w, float(np.abs(f @ w - y).mean())
    for _ in range(max_iter):
        r = np.abs(f @ w - y)
        w = bounded_lsq(f, y, low, high, 1.0 / np.maximum(r, delta), start=w)
        mae = float(np.abs(f @ w - y).mean())
        if mae < best:
            improved = (best - mae) / max(best, 1e-12)
            best_w, best = w, mae
            if improved < tol:
                break
        else:
            break
    return best_w


def fit_l2(features: np.ndarray, y: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Bounded least-squares weights (:func:`bounded_lsq`)."""
    return bounded_lsq(features, y, low, high)


def exact_fit(features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray, genome: Genome,
              loss: str = "l1", lp_max_rows: int = LP_MAX_ROWS, irls_max_rows: int = IRLS_MAX_ROWS) -> Fit:
    """Fit on the training rows; mean absolute errors (cp) on training and held-out rows. L1 is the
    exact LP up to ``lp_max_rows`` training rows, IRLS above, on a seeded subsample of
    ``irls_max_rows`` rows beyond that (see the module docstring)."""
    import time

    t0 = time.perf_counter()
    if loss not in EXACT_LOSSES:
        raise ValueError(f"loss must be one of {', '.join(EXACT_LOSSES)}")
    method = "lsq" if loss == "l2" else ("lp" if len(train) <= lp_max_rows else "irls")
    solver = {"lsq": fit_l2, "lp": fit_l1, "irls": fit_l1_irls}[method]
    rows = train
    if method == "irls" and len(train) > irls_max_rows:
        rows = np.sort(np.random.default_rng([len(train), 0x1A5]).choice(train, irls_max_rows, replace=False))
        method = f"irls on {irls_max_rows} of {len(train)} rows"
    w = solver(features[rows], y[rows], genome.low, genome.high)
    return Fit(loss, w, mean_abs_error(features[train], y[train], w), mean_abs_error(features[held], y[held], w),
               time.perf_counter() - t0, method)

