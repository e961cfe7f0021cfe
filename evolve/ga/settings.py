"""The GA's settings (:class:`GASettings`, built by keyword) and the rich genome's defaults. The operator names
it accepts are those of the registries of :mod:`evolve.ga.operators`.

May import: the standard library, ``evolve.ga.operators`` (its registries), ``search.runtime.errors``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from evolve.ga.operators import CROSSOVERS, MUTATIONS, SELECTIONS
from search.runtime.errors import SettingsError

__all__ = ["CROSSOVERS", "MUTATIONS", "RICH_DEFAULTS", "SELECTIONS", "GASettings", "rich_defaults"]


@dataclass(frozen=True, kw_only=True)
class GASettings:
    """Paper defaults: population 100, crossover 0.75, mutation 0.005 per bit, 300 generations,
    1,000 positions per generation. Built by keyword. ``mutation`` is a probability per bit
    (``mutation_kind="bit"``) or per gene (``"gaussian"``, ``"uniform"``). (The genes' encoding is the genome's, see
    ``organisms.genome``; ``mimic evolve`` takes it in ``RunSettings.encoding``.)"""

    population: int = 100
    generations: int = 300
    crossover: float = 0.75
    mutation: float = 0.005
    sample: int = 1000
    selection: str = "tournament"
    tournament: int = 3
    crossover_kind: str = "two-point"
    mutation_kind: str = "bit"
    mutation_sigma: float = 0.1  # gaussian gene mutation: standard deviation as a share of the gene's range
    mutation_sigma_final: float | None = None  # if set, the sigma shrinks geometrically to this by the last generation
    elite: int = 2
    hall_of_fame: int = 10
    prior: float = 0.0  # weight of the pull toward the start (--init): see evolution.prior_penalty; 0: none
    seed: int = 0

    def __post_init__(self) -> None:
        if self.selection not in SELECTIONS:
            raise SettingsError(f"selection must be one of {tuple(SELECTIONS)}")
        if self.crossover_kind not in CROSSOVERS:
            raise SettingsError(f"crossover kind must be one of {tuple(CROSSOVERS)}")
        if self.mutation_kind not in MUTATIONS:
            raise SettingsError(f"mutation kind must be one of {tuple(MUTATIONS)}")
        if not (math.isfinite(self.mutation_sigma) and self.mutation_sigma > 0):
            raise SettingsError("the mutation sigma is a positive share of a gene's range")
        final = self.mutation_sigma_final
        if final is not None and not (math.isfinite(final) and 0 < final <= self.mutation_sigma):
            raise SettingsError("the final mutation sigma is a positive share of a gene's range, at most the first")
        if self.population < 2 or not 0 <= self.elite < self.population:
            raise SettingsError("need a population of at least 2 and 0 <= elite < population")
        if not (0 <= self.crossover <= 1 and 0 <= self.mutation <= 1):
            raise SettingsError("crossover and mutation are probabilities")
        if self.generations < 0 or self.sample < 1 or self.tournament < 1 or self.hall_of_fame < 0:
            raise SettingsError("need generations >= 0, sample >= 1, tournament >= 1 and hall of fame >= 0")
        if self.seed < 0:
            raise SettingsError("the seed must be a non-negative integer")
        if not (math.isfinite(self.prior) and self.prior >= 0):
            raise SettingsError("the prior's weight is a non-negative number")

    def sigma_at(self, generation: int) -> float:
        """The gaussian mutation's sigma when making generation ``generation`` (1 … ``generations``):
        ``mutation_sigma``, shrinking geometrically to ``mutation_sigma_final`` at the last generation when
        that is set."""
        final = self.mutation_sigma_final
        if final is None or self.generations <= 1:
            return self.mutation_sigma
        t = min(max((generation - 1) / (self.generations - 1), 0.0), 1.0)
        return float(self.mutation_sigma * (final / self.mutation_sigma) ** t)



RICH_DEFAULTS: dict[str, Any] = {"generations": 3000, "crossover_kind": "uniform", "mutation_kind": "gaussian",
                                 "mutation": 0.01, "mutation_sigma_final": 0.005}
"""The GA settings of the rich genome (``--genome rich``) that differ from the paper's, picked from
``results/ga-study/study.md``; every other setting is the paper's."""


def rich_defaults(settings: GASettings) -> GASettings:
    """``settings`` with :data:`RICH_DEFAULTS` in place of the corresponding fields."""
    return replace(settings, **RICH_DEFAULTS)
