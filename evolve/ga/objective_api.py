"""What a run, the exact-fit ceiling, the summary and the command line need from an objective (:class:`Objective`),
and :class:`ObjectiveDefaults`, the answers of an objective that has nothing more to say than its loss.

Every objective (the mentor objective with each loss of :data:`evolve.ga.losses.LOSSES`, the result objective, the
moves objective) answers these questions itself, so nothing in ``evolve/`` asks which objective it holds: the
evolution loop, :mod:`evolve.ga.run`, :mod:`evolve.ga.summary` and ``mimic fit`` only call these methods.

Units: a loss is in the objective's :attr:`~Objective.unit` (centipawns for ``l1``); a *cp error* is a mean absolute
difference, in centipawns (side to move at the target), between an organism's evaluation and the mentor's score.

May import: numpy, ``evolve.ga.fit`` (the :class:`~evolve.ga.fit.Fit` record); the rest only for type checking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from evolve.ga.fit import Fit

if TYPE_CHECKING:
    from evolve.data.dataset import Dataset
    from evolve.ga.run import RunOutcome, RunSettings
    from organisms.genome import Genome


class Objective(Protocol):
    """What the GA minimises, and what it says about itself in a run's files."""

    name: str
    """The objective's name (``mentor``, ``result``, ``moves``), in the curve's title."""
    unit: str
    """The loss's unit (``cp``, ``|σ(eval/K) − p|^2``, ``nats``, ...)."""
    rows: np.ndarray
    """The rows this objective can use (a subset of the dataset)."""
    reports_cp: bool
    """Whether its loss is not in centipawns but it reports its cp error beside it: the logbook's ``held_out_cp``
    column (:meth:`losses_and_cp`) and the winner's cp errors (:meth:`winner_cp`)."""
    summary_heading: str
    """The heading of its section of ``summary.md`` (``Errors``, ``Move agreement``)."""
    ceiling_label: str
    """The curve's legend of its ceiling (:meth:`ceiling`)."""

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """One loss per organism of the (population, genes) ``weights`` on ``rows``, one matrix product."""
        ...

    def losses_and_cp(self, weights: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`losses` and each organism's cp error, from one product (when :attr:`reports_cp`)."""
        ...

    def ceiling(self, ds: Dataset, genome: Genome, l1: Fit, start: np.ndarray | None = None) -> Fit | None:
        """The same linear model solved for this loss on the training rows within the genes' bounds (cached like
        the labels; ``l1``: the exact L1 fit of the same rows, already solved), or None when it has none. A solver
        that starts somewhere (a loss that is not convex) starts from ``start`` when given (``mimic fit --init``),
        else from the L1 fit's weights; a convex loss's optimum does not depend on it."""
        ...

    def ceiling_loss(self, fit: Fit) -> float | None:
        """The held-out loss of its ceiling ``fit``, in :attr:`unit` (what a GA run's held-out loss is divided by)."""
        ...

    def winner_cp(self, weights: np.ndarray, train: np.ndarray, held: np.ndarray) -> tuple[float, float] | None:
        """The cp errors of one organism on the training and held-out rows when :attr:`reports_cp`, else None."""
        ...

    def winner_measures(self, weights: np.ndarray, train: np.ndarray, held: np.ndarray) -> dict[str, float] | None:
        """Measures of the winner beside its loss (the moves objective's agreement and likelihood), or None."""
        ...

    def organism_meta(self) -> dict[str, Any]:
        """What ``organism.json``'s meta records of this loss beyond the run's settings (a wdl loss's K, ...)."""
        ...

    def settings_json(self) -> dict[str, Any]:
        """What ``settings.json`` records of what was fitted (a wdl loss's K, ...), beside the settings."""
        ...

    def describe(self) -> list[str]:
        """Console lines saying what was fitted before the work (``mimic fit``: a wdl loss's K)."""
        ...

    def fit_lines(self, fit: Fit, ds: Dataset, weights: np.ndarray) -> list[str]:
        """``mimic fit``'s lines on its ceiling ``fit`` in this loss's unit, beside the nearest organism's
        ``weights``, after the common centipawn line."""
        ...

    def settings_rows(self, settings: RunSettings) -> list[str]:
        """The rows it adds to ``summary.md``'s settings table."""
        ...

    def summary_errors(self, settings: RunSettings, o: RunOutcome) -> list[str]:
        """Its section of ``summary.md`` (under :attr:`summary_heading`): the winner's errors beside the ceilings."""
        ...

    def outcome_lines(self, o: RunOutcome) -> list[str]:
        """The console lines of a finished run, after the winner's loss and its cp errors."""
        ...


class ObjectiveDefaults:
    """The answers of an objective whose loss is all it reports: no cp column, no ceiling, nothing more to write.
    An objective class inherits these and overrides what it says more about."""

    reports_cp = False
    summary_heading = "Errors"
    ceiling_label = "ceiling (held out)"

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def losses_and_cp(self, weights: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        losses = self.losses(weights, rows)
        return losses, np.full(len(losses), np.nan)

    def ceiling(self, ds: Dataset, genome: Genome, l1: Fit, start: np.ndarray | None = None) -> Fit | None:
        return None

    def ceiling_loss(self, fit: Fit) -> float | None:
        return None

    def winner_cp(self, weights: np.ndarray, train: np.ndarray, held: np.ndarray) -> tuple[float, float] | None:
        return None

    def winner_measures(self, weights: np.ndarray, train: np.ndarray, held: np.ndarray) -> dict[str, float] | None:
        return None

    def organism_meta(self) -> dict[str, Any]:
        return {}

    def settings_json(self) -> dict[str, Any]:
        return {}

    def describe(self) -> list[str]:
        return []

    def fit_lines(self, fit: Fit, ds: Dataset, weights: np.ndarray) -> list[str]:
        return []

    def settings_rows(self, settings: RunSettings) -> list[str]:
        return []

    def summary_errors(self, settings: RunSettings, o: RunOutcome) -> list[str]:
        return []

    def outcome_lines(self, o: RunOutcome) -> list[str]:
        return []


METHODS = {"lp": "HiGHS LP", "irls": "IRLS", "lsq": "bounded least squares"}
"""The exact fits' solvers (``Fit.method``) as the summary names them."""


def cp_errors(features: np.ndarray, y: np.ndarray, weights: np.ndarray, train: np.ndarray, held: np.ndarray
              ) -> tuple[float, float]:
    """Mean ``|F·w − y|`` (cp) of one organism on the training and held-out rows (NaN for none), from one product
    over every row (no copy of the rows' features)."""
    miss = np.abs(features @ weights - y)
    train_cp, held_cp = (float(miss[r].mean()) if len(r) else float("nan") for r in (train, held))
    return train_cp, held_cp
