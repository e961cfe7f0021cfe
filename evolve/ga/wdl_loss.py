"""The ``wdl`` loss of the mentor objective (:class:`WdlLoss`, an entry of :data:`evolve.ga.losses.LOSSES`): mean
``|σ(eval / K) − p|^P`` per organism against the targets of :mod:`evolve.ga.wdl`, its error also in centipawns,
its ceiling (L-BFGS-B from the exact L1 fit, cached) and what a run and ``mimic fit`` report of it.

May import: numpy, ``evolve.ga`` (objectives, objective_api, wdl, fit, fit_cache).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from evolve.ga.fit import Fit
from evolve.ga.objective_api import METHODS, ObjectiveDefaults, cp_errors
from evolve.ga.objectives import MentorLoss, sigmoid
from evolve.ga.wdl import LOGISTIC_SCALE, UNKNOWN_PLY, WdlTarget, power_error, wdl_loss

if TYPE_CHECKING:
    from evolve.data.dataset import Dataset
    from evolve.ga.run import RunOutcome, RunSettings
    from organisms.genome import Genome


class WdlLoss(ObjectiveDefaults):
    """Mean ``|σ(eval / K) − p|^P`` per organism (``--loss wdl``; see :mod:`evolve.ga.wdl`): one matrix
    product ``F[rows] · Wᵀ`` and elementwise work, like :class:`evolve.ga.objectives.MentorLoss`, whose
    gathering of large row sets it shares. It reports its mean absolute centipawn error beside its loss."""

    name = "mentor"
    loss_name = "wdl"
    reports_cp = True
    ceiling_label = "win-probability ceiling (held out)"

    def __init__(self, features: np.ndarray, y: np.ndarray, target: WdlTarget) -> None:
        self._rows = MentorLoss(features, np.column_stack([target.p, y]))  # gathers (F, [p, y]) by rows
        self.features = self._rows.features
        self.y = np.asarray(y, dtype=np.float64)
        self.target = target
        self.rows = np.arange(len(y))
        self.unit = f"|σ(eval/K) − p|^{target.power:g}"

    def _predict(self, weights: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f, py = self._rows._gather(rows)
        return f @ np.atleast_2d(weights).T, py  # (rows, population) cp, (rows, 2)

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        pred, py = self._predict(weights, rows)
        return power_error(sigmoid(pred / self.target.k) - py[:, :1], self.target.power).mean(axis=0)

    def losses_and_cp(self, weights: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per organism, this loss and the mean absolute centipawn error, from one product."""
        pred, py = self._predict(weights, rows)
        wdl = power_error(sigmoid(pred / self.target.k) - py[:, :1], self.target.power).mean(axis=0)
        return wdl, np.abs(pred - py[:, 1:]).mean(axis=0)

    both_units = losses_and_cp

    def ceiling(self, ds: Dataset, genome: Genome, l1: Fit, start: np.ndarray | None = None) -> Fit | None:
        from evolve.ga.fit_cache import cached_wdl_fit

        return cached_wdl_fit(ds.features, ds.y, ds.train, ds.held, genome, self.target,
                              l1.weights if start is None else start, data_key=l1.key)

    def ceiling_loss(self, fit: Fit) -> float | None:
        return fit.held_loss

    def winner_cp(self, weights: np.ndarray, train: np.ndarray, held: np.ndarray) -> tuple[float, float] | None:
        return cp_errors(self.features, self.y, weights, train, held)

    def organism_meta(self) -> dict[str, Any]:
        t = self.target
        return {"loss": self.loss_name, "wdl_model": t.model, "wdl_k": t.k, "loss_power": t.power,
                "lambda_result": t.lambda_result}

    def settings_json(self) -> dict[str, Any]:
        t = self.target
        return {"wdl_fitted": {"k_cp": t.k, "blended_with_result": t.blended, "read_at_unknown_ply": t.unknown_ply,
                               "unknown_ply": UNKNOWN_PLY}}

    def describe(self) -> list[str]:
        t = self.target
        unknown = f", {t.unknown_ply} labels without a move number read at ply 64" if t.unknown_ply else ""
        return [f"win-probability loss: |sigmoid(eval/K) - p|^{t.power:g}, model {t.model}{unknown}, "
                f"lambda-result {t.lambda_result:g} ({t.blended} labels blended with their game result), "
                f"K {t.k:.2f} cp (fitted on the training rows)"]

    def fit_lines(self, fit: Fit, ds: Dataset, weights: np.ndarray) -> list[str]:
        t = self.target
        q = [wdl_loss(ds.features[r], t.p[r], weights, t.k, t.power) for r in (ds.train, ds.held)]
        return [f"  win-probability loss {fit.train_loss:.6f} training, {fit.held_loss:.6f} held out; nearest "
                f"organism {q[0]:.6f} / {q[1]:.6f}"]

    def settings_rows(self, settings: RunSettings) -> list[str]:
        """The settings table's rows of a win-probability loss."""
        t = self.target
        model = (f"sf15.1 (Stockfish 15.1's WDL model; {t.unknown_ply} labels without a move number read at ply "
                 f"{UNKNOWN_PLY})" if t.model == "sf15.1" else f"logistic, σ(cp / {LOGISTIC_SCALE:.1f})")
        return [f"| loss | wdl: mean \\|σ(eval/K) − p\\|^{t.power:g} |", f"| win-probability model | {model} |",
                f"| lambda_result | {t.lambda_result:g} ({t.blended} labels blended with their game result) |",
                f"| K (fitted on the training rows, cp) | {t.k:.2f} |"]

    def summary_errors(self, settings: RunSettings, o: RunOutcome) -> list[str]:
        """The errors table of a win-probability loss: the loss and the centipawn error, beside both ceilings."""
        t = self.target
        cp = o.cp_errors or (float("nan"), float("nan"))
        lines = [f"Win-probability loss {self.unit} (p: the mentor's score through its model, K = {t.k:.2f} cp) "
                 "and mean absolute difference from the mentor's score in centipawns (side to move at the target).",
                 "", "| | training loss | held-out loss | training cp | held-out cp |", "|---|---|---|---|---|",
                 f"| GA winner | {o.train_loss:.6f} | {o.held_loss:.6f} | {cp[0]:.2f} | {cp[1]:.2f} |"]
        fit = o.ceiling
        if fit is not None:
            lines.append(f"| win-probability ceiling, bounded ({fit.method}, from the L1 fit) | {fit.train_loss:.6f} | "
                         f"{fit.held_loss:.6f} | {fit.train_mae:.2f} | {fit.held_mae:.2f} |")
        l1 = o.fit_l1
        if l1 is not None:
            lines.append(f"| exact L1 fit, bounded ({METHODS.get(l1.method, l1.method)}) | – | – | "
                         f"{l1.train_mae:.2f} | {l1.held_mae:.2f} |")
        if o.polished is not None:
            lines.append(f"| GA winner + memetic polish ({o.polished.passes} coordinate-descent passes) | "
                         f"{o.polished.train_loss:.6f} | {o.polished.held_loss:.6f} | – | – |")
        if o.ratio is not None:
            lines += ["", f"**GA held-out loss ÷ win-probability ceiling's held-out loss: {o.ratio:.3f}** (pure GA)"]
        if o.polished_ratio is not None:
            lines += ["", f"GA + memetic polish held-out loss ÷ ceiling's: {o.polished_ratio:.3f}"]
        return lines

    def outcome_lines(self, o: RunOutcome) -> list[str]:
        lines = []
        fit = o.ceiling
        if fit is not None and fit.held_loss is not None:
            lines.append(f"win-probability ceiling ({fit.method}, K {self.target.k:.1f} cp): training "
                         f"{fit.train_loss:.4g}, held out {fit.held_loss:.4g} ({fit.held_mae:.4g} cp)"
                         + (f"; GA held-out / ceiling held-out = {o.ratio:.3f}" if o.ratio is not None else ""))
        if o.fit_l1 is not None and fit is not None:
            lines.append(f"exact L1 fit ({o.fit_l1.method}): training {o.fit_l1.train_mae:.4g} cp, "
                         f"held out {o.fit_l1.held_mae:.4g} cp")
        return lines
