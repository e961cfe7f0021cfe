"""The mentor objective in win-probability space (``--loss wdl``): targets, the loss, its scale K and its
ceiling.

Texel tuning, Ethereal's tuner, nnue-pytorch and bullet compare *expected scores*, not centipawns: an
organism's evaluation ``e`` (cp, side to move at the target) is read as ``σ(e / K)`` and compared with a
target ``p`` in [0, 1], and the error is ``|σ(e / K) − p|^P`` (``P`` = ``--loss-power``, 2 by default;
nnue-pytorch uses 2.5). Large scores saturate, so the few tactical labels where the mentor's score and
the position's material disagree stop dragging the material values.

**The target** ``p`` of a label is the mentor's score ``y`` (cp, side to move at the target) through a
win-probability model (:data:`MODELS`), blended with the game's result where the label has one:

* ``sf15.1``: Stockfish 15.1's WDL model, as python-chess computes it
  (``chess.engine.Cp(y).wdl(model="sf15.1", ply=ply).expectation()``), vectorised here
  (:func:`sf15_1_expectation`; tests/test_wdl_loss.py checks it equals python-chess on a grid). The ply is
  the target position's: the labelled position's (from the EPD's ``fmvn`` opcode) plus the plies of the
  PV walk and the capture resolution. Labels without ``fmvn`` (every label mimic wrote so far: EPD drops
  the move counters) take :data:`UNKNOWN_PLY` = 64, the move-32 point at which Stockfish 15.1 normalises
  its centipawns (``NormalizeToPawnValue`` 361 ≈ the model's ``a`` at ply 64, so 100 cp reads as a 50 %
  win chance there).
* ``logistic``: ``σ(y / LOGISTIC_SCALE)``, :data:`LOGISTIC_SCALE` = 400 / ln 10 ≈ 173.7 cp (the Elo
  curve: 400 cp of advantage is 10:1 odds; Texel's original tuner with K = 1).

A mate score (``|y| ≥ 29000``, kept only when ``--cap`` lets it through) is exactly 1 or 0 under either
model. Over-cap labels are left out by the data's cap before any of this, as for the L1 loss (the
default cap, 1500 cp, also leaves out every mate); with a higher cap their targets saturate
(``sf15.1`` clips at ±4000 internal units, ±1108 cp).

With ``lambda_result`` λ < 1, ``p = λ · p_mentor + (1 − λ) · result`` on labels whose game result is
known (``c9``; 1, ½, 0 for the side to move at the target); labels without a result keep
``p_mentor`` alone (:attr:`WdlTarget.blended` counts those that were blended).

**K** (cp) is fitted once, before the evolution, on the training rows (Texel's step): the K minimising
``mean |σ(y / K) − p|^P`` — the mentor's own scores against the targets the loss uses. Fitting against
``p`` rather than against game results because ``p`` is what the organism is compared with (random
positions have no result at all): an organism that reproduced the mentor's centipawns exactly then
scores as well as any K allows, and the loss's optimum stays on the mentor's centipawn scale, so the
centipawn error of a wdl run means what it means for an L1 run. With ``logistic`` and λ = 1 the fit
gives back :data:`LOGISTIC_SCALE` exactly.

The loss of a population (:class:`evolve.ga.wdl_loss.WdlLoss`, the ``wdl`` entry of
:data:`evolve.ga.losses.LOSSES`) and what a run reports of it live in :mod:`evolve.ga.wdl_loss`.

**The ceiling** (:func:`fit_wdl`): the linear model's weights minimising the same loss on the training
rows within the genes' bounds, by L-BFGS-B with the analytic gradient, started from the exact L1 fit's
weights. The loss is smooth and bounded but not convex (a sigmoid inside a power), so this is a local
optimum from a good start, not a certified one.

May import: numpy, scipy (inside functions), ``evolve.ga.objectives``, ``evolve.ga.fit``, ``search.conventions``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from evolve.ga.fit import Fit, mean_abs_error
from evolve.ga.objectives import fit_k, sigmoid
from search.conventions import EPD_MATE_BOUND
from search.runtime.errors import SettingsError

MODELS = ("sf15.1", "logistic")
UNKNOWN_PLY = 64
"""The ply given to the ``sf15.1`` model when a label does not say its move number (see the module docstring)."""
LOGISTIC_SCALE = 400.0 / math.log(10.0)
"""The ``logistic`` model's scale (cp): σ(y / 173.7…) = 1 / (1 + 10^(−y / 400))."""


def sf15_1_wins(cp: np.ndarray, ply: np.ndarray) -> np.ndarray:
    """Stockfish 15.1's win chance in permille (an integer, as a float) of ``cp`` (centipawns, side to move)
    reached at ``ply``: python-chess's ``_sf15_1_wins``, the same operations on arrays."""
    m = np.clip(ply, 0, 240) / 64
    a = (((-0.58270499 * m + 2.68512549) * m + 15.24638015) * m) + 344.49745382
    b = (((-2.65734562 * m + 15.96509799) * m + -20.69040836) * m) + 73.61029937
    x = np.clip(cp * 361 / 100, -4000, 4000)
    return np.floor(0.5 + 1000 / (1 + np.exp((a - x) / b)))


def sf15_1_expectation(cp: np.ndarray, ply: np.ndarray) -> np.ndarray:
    """``Cp(cp).wdl(model="sf15.1", ply=ply).expectation()`` of python-chess, element by element; a mate score
    (``|cp| ≥ 29000``) is 1 or 0, as python-chess's ``Mate(n).wdl`` is."""
    cp = np.asarray(cp, dtype=np.float64)
    ply = np.broadcast_to(np.asarray(ply, dtype=np.float64), cp.shape)
    wins, losses = sf15_1_wins(cp, ply), sf15_1_wins(-cp, ply)
    e = (wins + 0.5 * (1000 - wins - losses)) / 1000
    return np.where(np.abs(cp) >= EPD_MATE_BOUND, (cp > 0).astype(np.float64), e)


def mentor_expectation(cp: np.ndarray, ply: np.ndarray, model: str) -> np.ndarray:
    """The mentor's expected score (0…1) of ``cp`` (centipawns, side to move) at ``ply`` (NaN: unknown, read
    as :data:`UNKNOWN_PLY`) under ``model``; mates are 1 or 0."""
    cp = np.asarray(cp, dtype=np.float64)
    if model == "sf15.1":
        known = np.where(np.isnan(ply), UNKNOWN_PLY, ply)
        return sf15_1_expectation(cp, np.floor(known))
    if model == "logistic":
        return np.where(np.abs(cp) >= EPD_MATE_BOUND, (cp > 0).astype(np.float64), sigmoid(cp / LOGISTIC_SCALE))
    raise SettingsError(f"unknown win-probability model {model!r} (one of {', '.join(MODELS)})")


def power_error(d: np.ndarray, power: float) -> np.ndarray:
    """``|d|^power`` element by element (``d · d`` at power 2, the same bits as a square)."""
    return d * d if power == 2 else np.abs(d) ** power


@dataclass
class WdlTarget:
    """The targets of a label file's rows in win-probability space, and the loss's settings."""

    p: np.ndarray  # (N,) the target expected score, 0…1, side to move at the target
    k: float  # cp: the organism's evaluation is read as σ(eval / k)
    power: float
    model: str
    lambda_result: float
    blended: int  # rows whose target blends the game result (c9 known and λ < 1)
    unknown_ply: int  # rows the sf15.1 model read at UNKNOWN_PLY


MAX_LOSS_POWER = 8.0
"""The largest ``--loss-power``: every error ``|σ(e/K) − p|`` is at most 1, and a typical one about 0.1, so a larger
power drives the loss (in float32, the nets') to 0: an untrained organism or net would be written."""


def check_loss_power(power: float) -> float:
    """``power`` when it is a usable loss power, above 1 (the loss must be smooth) and at most
    :data:`MAX_LOSS_POWER`; :class:`~search.runtime.errors.SettingsError` naming ``--loss-power`` otherwise."""
    if not (math.isfinite(power) and 1 < power <= MAX_LOSS_POWER):
        raise SettingsError(f"--loss-power must be above 1 (the loss must be smooth) and at most {MAX_LOSS_POWER:g} "
                            f"(beyond, the loss underflows to 0: each error is at most 1), got {power:g}")
    return power


def wdl_target(y: np.ndarray, result: np.ndarray, ply: np.ndarray, train: np.ndarray, model: str = "sf15.1",
               power: float = 2.0, lambda_result: float = 1.0, k: float | None = None) -> WdlTarget:
    """The targets of rows with mentor scores ``y`` (cp), game results ``result`` (NaN unknown) and target
    plies ``ply`` (NaN unknown), and K fitted on the ``train`` rows unless given (see the module docstring)."""
    check_loss_power(power)
    if not 0.0 <= lambda_result <= 1.0:
        raise SettingsError(f"lambda-result is the mentor's share of the target, within [0, 1], got {lambda_result}")
    p = mentor_expectation(y, ply, model)
    blend = ~np.isnan(result) & (lambda_result < 1.0)
    p = np.where(blend, lambda_result * p + (1.0 - lambda_result) * np.nan_to_num(result), p)
    unknown = int(np.isnan(ply).sum()) if model == "sf15.1" else 0
    if k is None:
        k = fit_k(np.asarray(y, dtype=np.float64)[train], p[train], np.ones(len(train)), power)
    return WdlTarget(p, float(k), float(power), model, float(lambda_result), int(blend.sum()), unknown)


def wdl_loss(features: np.ndarray, p: np.ndarray, w: np.ndarray, k: float, power: float) -> float:
    """Mean ``|σ(F·w / k) − p|^power`` over the rows; NaN when there are none."""
    return float(power_error(sigmoid(features @ w / k) - p, power).mean()) if len(p) else float("nan")


def wdl_loss_and_gradient(features: np.ndarray, p: np.ndarray, w: np.ndarray, k: float, power: float
                          ) -> tuple[float, np.ndarray]:
    """:func:`wdl_loss` and its gradient in ``w``: ``(1/n) Σ P |d|^(P−1) sign(d) · s(1 − s) / k · F_i`` with
    ``s = σ(F_i·w / k)`` and ``d = s − p_i``."""
    s = sigmoid(features @ w / k)
    d = s - p
    n = max(len(p), 1)
    loss = float(power_error(d, power).sum()) / n
    dl = (2 * d if power == 2 else power * np.abs(d) ** (power - 1) * np.sign(d)) * s * (1 - s) / k
    return loss, features.T @ dl / n


def fit_wdl(features: np.ndarray, p: np.ndarray, low: np.ndarray, high: np.ndarray, k: float, power: float,
            start: np.ndarray | None = None) -> tuple[np.ndarray, str]:
    """The weights minimising :func:`wdl_loss` within ``[low, high]`` (L-BFGS-B, analytic gradient, on the
    variables scaled by each feature's root mean square), from ``start`` (default: the bounds' middle);
    and a line saying how the solver ended."""
    from scipy.optimize import minimize

    f = np.asarray(features, dtype=np.float64)
    lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    rms = np.sqrt((f * f).mean(axis=0)) if len(f) else np.ones(f.shape[1])
    scale = 1.0 / np.where(rms > 0, rms, 1.0)  # a feature constantly zero keeps scale 1
    w0 = np.clip((lo + hi) / 2 if start is None else np.asarray(start, dtype=np.float64), lo, hi)

    def objective(v: np.ndarray) -> tuple[float, np.ndarray]:
        loss, grad = wdl_loss_and_gradient(f, p, v * scale, k, power)
        return loss, grad * scale

    res = minimize(objective, w0 / scale, jac=True, method="L-BFGS-B",
                   bounds=list(zip(lo / scale, hi / scale, strict=True)),
                   options={"maxiter": 5000, "maxcor": 20, "ftol": 1e-13, "gtol": 1e-12})
    return np.clip(res.x * scale, lo, hi), f"L-BFGS-B, {res.nit} iterations"


def exact_wdl_fit(features: np.ndarray, y: np.ndarray, target: WdlTarget, train: np.ndarray, held: np.ndarray,
                  low: np.ndarray, high: np.ndarray, start: np.ndarray | None = None) -> Fit:
    """The wdl ceiling on the training rows (:func:`fit_wdl`), with its loss and its mean absolute
    centipawn error on the training and held-out rows."""
    t0 = time.perf_counter()
    w, method = fit_wdl(features[train], target.p[train], low, high, target.k, target.power, start)
    return Fit("wdl", w, mean_abs_error(features[train], y[train], w), mean_abs_error(features[held], y[held], w),
               time.perf_counter() - t0, method,
               train_loss=wdl_loss(features[train], target.p[train], w, target.k, target.power),
               held_loss=wdl_loss(features[held], target.p[held], w, target.k, target.power))
