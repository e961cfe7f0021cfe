"""The losses of the mentor objective, by name (:data:`LOSSES`): the one table from which ``RunSettings``'s check of
``loss``, :func:`evolve.ga.run.build_objective`, the summary (through the objective each entry builds) and the
``--loss`` choices of ``mimic evolve`` and ``mimic fit`` all come.

Adding a loss is one entry here plus its module: a class with :class:`evolve.ga.objective_api.Objective`'s methods
(inherit :class:`~evolve.ga.objective_api.ObjectiveDefaults` and override what it reports: its unit, whether it
also reports centipawns, its ceiling, its summary rows) and a ``build`` making it from a dataset and the settings
it reads.

May import: ``evolve.ga`` (objectives, objective_api, wdl, wdl_loss), ``evolve.data`` (types only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from evolve.ga.objective_api import Objective
from evolve.ga.objectives import MentorLoss
from evolve.ga.wdl import check_loss_power, wdl_target
from evolve.ga.wdl_loss import WdlLoss

if TYPE_CHECKING:
    from evolve.data.dataset import Dataset


class LossSettings(Protocol):
    """The settings a loss may read (``RunSettings``, or ``mimic fit``'s parsed arguments)."""

    @property
    def loss_power(self) -> float: ...

    @property
    def wdl_model(self) -> str: ...

    @property
    def lambda_result(self) -> float: ...


@dataclass(frozen=True)
class Loss:
    """One loss of the mentor objective."""

    help: str
    """What ``--loss NAME`` means, for the commands' help."""
    build: Callable[[Dataset, LossSettings], Objective]
    """The mentor objective of a dataset with this loss (anything fitted first, e.g. a wdl loss's K, fitted here on
    the training rows)."""
    check: Callable[[LossSettings], object] = lambda settings: None
    """Refuse settings this loss cannot use (a :class:`~search.runtime.errors.SettingsError` naming the flag), before
    the labels are read."""
    timing: str | None = None
    """The wall-time line its ``build`` is reported under (None: counted with the labels)."""


def _wdl(ds: Dataset, s: LossSettings) -> Objective:
    return WdlLoss(ds.features, ds.y, wdl_target(ds.y, ds.result, ds.ply, ds.train, s.wdl_model, s.loss_power,
                                                 s.lambda_result))


DEFAULT_LOSS = "l1"
"""The mentor objective's loss when none is named (the paper's)."""

LOSSES: dict[str, Loss] = {
    "l1": Loss("mean |eval - mentor score| in cp, the paper's", lambda ds, s: MentorLoss(ds.features, ds.y)),
    "wdl": Loss("in win-probability space; see the group below", _wdl,
                check=lambda s: check_loss_power(s.loss_power), timing="win-probability targets and K"),
}
"""The mentor objective's losses by name (``--loss``)."""


def loss_help() -> str:
    """``--loss``'s help: every loss and what it means (``l1 (...) or wdl (...)``)."""
    return " or ".join(f"{name} ({entry.help})" for name, entry in LOSSES.items())
