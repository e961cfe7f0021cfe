"""The genetic algorithm, on DEAP: the toolbox and the generation loop (:class:`Evolution`).

A population is a (population, bits) uint8 matrix of 0/1; the hall of fame holds DEAP individuals
(``creator.MimicOrganism``, a numpy bit-string with a minimising ``creator.MimicFitness``). The
toolbox holds only what a generation calls, each operator working on the whole matrix at once
(pairs (0, 1), (2, 3), …), which is what makes 300 generations of 100 organisms take well under a
second:

* ``population_bits``: uniformly random chromosomes (or, given an ``initial`` chromosome, generation 0
  is that chromosome and ``population − 1`` copies of it, each mutated once by ``mutate_population``);
* ``select(losses, k)``: the selection named by ``settings.selection`` (tournament by default, size 3, or
  roulette), returning parent indices;
* ``mate_population(children)``: the crossover named by ``settings.crossover_kind`` (one-point, two-point or
  uniform), copy-safe;
* ``mutate_population(children, generation=g)``: the mutation named by ``settings.mutation_kind`` (bit flips, or a
  Gaussian or uniform new value per gene), when making generation ``g``;
* ``evaluate``: the objective's loss of every organism at once (decode to a weight matrix, one
  matrix product), plus the prior's pull toward the start when ``settings.prior`` is set (:func:`prior_penalty`).

The operators come from the registries of :mod:`evolve.ga.operators`, by name; as in DEAP's own loop
(``algorithms.varAnd``), the loop below never knows which one is registered.

A ``HallOfFame(similar=numpy.array_equal)`` keeps the best organisms seen.

One generation: the ``elite`` best organisms pass unchanged; the rest are chosen by ``select``,
paired and crossed with probability ``crossover``, and mutated with probability ``mutation`` (per
bit or, for the gene kinds, per gene). A fresh sample of ``sample`` training rows is drawn every
generation and the whole new population (elites included) is scored on it. The held-out rows are
never sampled; the error of each generation's best organism on them is logged (and, for an objective that
reports centipawns beside its loss, ``Objective.reports_cp``, its mean absolute centipawn error too,
``held_out_cp``).

Everything random comes from two numpy generators (operators, samples) seeded from ``seed``; a
checkpoint stores the population, the hall of fame, the logbook, the generation and both generator
states, so a resumed run ends bit-identical to an uninterrupted one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from deap import base, tools

from evolve.ga.blas import one_blas_thread
from evolve.ga.checkpoint import (
    CheckpointError,
    CheckpointState,
    checkpoint_exists,
    jsonable_state,
    read_checkpoint,
    write_checkpoint,
)
from evolve.ga.errors import ObjectiveError
from evolve.ga.objective_api import Objective
from evolve.ga.operators import (
    as_individual,
    integers_to_bits,
    mate_population,
    mutate_genes,
    mutate_population,
    select_roulette,
    select_tournament,
)
from evolve.ga.settings import CROSSOVERS, MUTATIONS, RICH_DEFAULTS, SELECTIONS, GASettings, rich_defaults
from organisms.features import layout_of
from organisms.genome import Genome
from search.runtime.errors import SettingsError

__all__ = ["CROSSOVERS", "MUTATIONS", "RICH_DEFAULTS", "SELECTIONS", "Evolution", "GASettings", "GenerationRecord",
           "as_individual", "checkpoint_exists", "integers_to_bits", "make_toolbox", "mate_population",
           "mutate_genes", "mutate_population", "prior_penalty", "rich_defaults", "select_roulette",
           "select_tournament"]
"""The GA's public names; the operators, settings and checkpoint functions are re-exported from their modules
(:mod:`evolve.ga.operators`, :mod:`evolve.ga.settings`, :mod:`evolve.ga.checkpoint`)."""


def prior_penalty(genome: Genome, values: np.ndarray, start: np.ndarray | None, prior: float) -> np.ndarray:
    """The prior's pull toward the start, added to each organism's loss (in the loss's own unit): ``prior`` x the
    mean over genes of (gene - the start's gene)^2, each gene in shares of its range; (population, genes) gene
    values -> (population,). A gene the training rows hardly see no longer drifts freely under mutation, while one
    the loss needs moves as far as the loss gains. Zeros without a prior or a start."""
    if prior == 0 or start is None:
        return np.zeros(len(values))
    return prior * np.mean(((values - start) / (genome.high - genome.low)) ** 2, axis=1)


def make_toolbox(genome: Genome, settings: GASettings, objective: Objective, rng: np.random.Generator,
                 start: np.ndarray | None = None) -> base.Toolbox:
    """The DEAP toolbox of a run (see the module docstring); ``start``: the start's gene values (``--init``), the
    centre of the prior."""
    tb = base.Toolbox()
    tb.register("population_bits", lambda n: genome.random_bits(rng, n))
    tb.register("select", SELECTIONS[settings.selection], settings=settings, rng=rng)
    tb.register("mate_population", mate_population, cxpb=settings.crossover, kind=settings.crossover_kind,
                rng=rng)
    tb.register("mutate_population", MUTATIONS[settings.mutation_kind], genome=genome, settings=settings, rng=rng)
    def evaluate(bits: np.ndarray, rows: np.ndarray) -> np.ndarray:
        values = genome.decode(bits)
        return objective.losses(values, rows) + prior_penalty(genome, values, start, settings.prior)

    tb.register("evaluate", evaluate)
    return tb


# ---------------------------------------------------------------------- the run
@dataclass
class GenerationRecord:
    gen: int
    best: float
    mean: float
    std: float
    held_out: float
    seconds: float


class Evolution:
    """One GA run: ``train_rows`` may be sampled, ``held_rows`` only measured."""

    def __init__(self, genome: Genome, objective: Objective, train_rows: np.ndarray, held_rows: np.ndarray,
                 settings: GASettings, initial: np.ndarray | None = None) -> None:
        self.genome = genome
        self.initial = None if initial is None else np.asarray(initial, dtype=np.uint8).reshape(-1)
        """A chromosome to start from (``--init``): generation 0 is it and mutated copies of it."""
        if self.initial is not None and self.initial.shape != (genome.total_bits,):
            raise SettingsError(f"the initial chromosome has {self.initial.size} bits, the genome {genome.total_bits}")
        self.objective = objective
        self.settings = settings
        self.start = None if self.initial is None else genome.decode(self.initial[None, :])[0]
        """The start's gene values, the centre of the prior (:func:`prior_penalty`)."""
        if settings.prior > 0 and self.start is None:
            raise SettingsError("a prior pulls toward the start: it needs one (--init)")
        self.train_rows = np.intersect1d(train_rows, objective.rows)
        self.held_rows = np.intersect1d(held_rows, objective.rows)
        if len(self.train_rows) == 0:
            raise ObjectiveError("no training rows for this objective")
        seeds = np.random.SeedSequence(settings.seed).spawn(2)
        self.rng_ops = np.random.default_rng(seeds[0])
        self.rng_sample = np.random.default_rng(seeds[1])
        self.toolbox = make_toolbox(genome, settings, objective, self.rng_ops, self.start)
        self.hof = tools.HallOfFame(settings.hall_of_fame, similar=np.array_equal)
        self.logbook = tools.Logbook()
        self.logbook.header = ["gen", "best", "mean", "std", "held_out", "seconds"]
        self.generation = -1
        self.population = np.zeros((0, genome.total_bits), dtype=np.uint8)
        self.losses = np.zeros(0)
        self.elapsed = 0.0  # seconds spent in generations, over all sessions of this run

    # .................................................................. one generation
    def _sample(self) -> np.ndarray:
        k = min(self.settings.sample, len(self.train_rows))
        return np.sort(self.rng_sample.choice(self.train_rows, size=k, replace=False))

    def _score(self, rows: np.ndarray) -> None:
        self.losses = self.toolbox.evaluate(self.population, rows)
        # Offer the hall of fame only organisms that can enter it (DEAP would turn the rest away).
        keep = np.arange(len(self.losses))
        if len(self.hof) >= self.settings.hall_of_fame > 0:
            keep = np.flatnonzero(self.losses < self.hof[-1].fitness.values[0])
        self.hof.update([as_individual(self.population[i], self.losses[i]) for i in keep])

    def _log(self, t0: float) -> GenerationRecord:
        best = int(np.argmin(self.losses))
        held = float("nan")
        extra: dict[str, float] = {}
        reports_cp = self.objective.reports_cp  # a loss not in cp also reports cp (loss wdl): held_out_cp
        if len(self.held_rows):
            w = self.genome.decode(self.population[best:best + 1])
            if not reports_cp:
                held = float(self.objective.losses(w, self.held_rows)[0])
            else:
                loss, cp = self.objective.losses_and_cp(w, self.held_rows)
                held, extra["held_out_cp"] = float(loss[0]), float(cp[0])
        elif reports_cp:
            extra["held_out_cp"] = float("nan")
        self.elapsed += time.perf_counter() - t0
        rec = GenerationRecord(self.generation, float(self.losses[best]), float(self.losses.mean()),
                               float(self.losses.std()), held, self.elapsed)
        self.logbook.record(**asdict(rec), **extra)
        return rec

    def step(self) -> GenerationRecord:
        """Run one generation (the first call makes and scores generation 0)."""
        t0 = time.perf_counter()
        s = self.settings
        if self.generation < 0 and self.initial is None:
            self.population = self.toolbox.population_bits(s.population)
        elif self.generation < 0:
            assert self.initial is not None
            copies = np.repeat(self.initial[None, :], s.population - 1, axis=0)
            self.toolbox.mutate_population(copies, generation=1)
            self.population = np.concatenate([self.initial[None, :], copies])
        else:
            order = np.argsort(self.losses, kind="stable")
            elites = self.population[order[: s.elite]]
            chosen = self.toolbox.select(self.losses, s.population - s.elite)
            children = self.population[chosen].copy()
            self.toolbox.mate_population(children)
            self.toolbox.mutate_population(children, generation=self.generation + 1)
            self.population = np.concatenate([elites, children])
        self.generation += 1
        self._score(self._sample())
        return self._log(t0)

    def run(self, until: int | None = None, checkpoint: Path | None = None, every: int = 10,
            on_generation: Callable[[GenerationRecord], None] | None = None) -> None:
        """Run up to generation ``until`` (default ``settings.generations``), checkpointing every
        ``every`` generations and at the end. The generations' small matrix products run on one BLAS
        thread (:func:`evolve.ga.blas.one_blas_thread`: faster, the same bits)."""
        last = self.settings.generations if until is None else until
        with one_blas_thread():
            while self.generation < last:
                rec = self.step()
                if on_generation is not None:
                    on_generation(rec)
                if checkpoint is not None and (self.generation % every == 0 or self.generation == last):
                    self.save(checkpoint)

    # .................................................................. the winner
    def candidates(self) -> np.ndarray:
        """Bit strings of the hall of fame and the current population, without duplicates."""
        rows = [np.asarray(ind, dtype=np.uint8) for ind in self.hof] + list(self.population)
        return np.unique(np.array(rows), axis=0)

    def winner(self) -> tuple[np.ndarray, float, float]:
        """The candidate with the lowest fitness (loss plus :func:`prior_penalty`) on the whole training split: (bits,
        training loss, held-out loss), both losses without the penalty."""
        cands = self.candidates()
        w = self.genome.decode(cands)
        train = self.objective.losses(w, self.train_rows)
        i = int(np.argmin(train + prior_penalty(self.genome, w, self.start, self.settings.prior)))
        held = float(self.objective.losses(w[i:i + 1], self.held_rows)[0]) if len(self.held_rows) else float("nan")
        return cands[i], float(train[i]), held


    # .................................................................. checkpoints (one npz, no pickle)
    def save(self, path: Path) -> None:
        """Write the checkpoint ``path.npz`` as one unit (:func:`evolve.ga.checkpoint.write_checkpoint`): the
        arrays and, as JSON, everything else (generation, settings, genome, generator states, logbook)."""
        hof_bits = np.array([np.asarray(i, dtype=np.uint8) for i in self.hof]).reshape(-1, self.genome.total_bits)
        hof_losses = np.array([i.fitness.values[0] for i in self.hof], dtype=np.float64)
        meta = {
            "generation": self.generation, "elapsed": self.elapsed,
            "settings": asdict(self.settings), "genome": self.genome.to_list(), "encoding": self.genome.encoding,
            "rng_ops": jsonable_state(self.rng_ops.bit_generator.state),
            "rng_sample": jsonable_state(self.rng_sample.bit_generator.state),
            "logbook": [dict(r) for r in self.logbook],
        }
        write_checkpoint(path, meta, population=self.population, losses=self.losses, hof_bits=hof_bits,
                         hof_losses=hof_losses)

    def _check_objective(self, state: CheckpointState) -> None:
        """Raise :class:`CheckpointError` when this run's objective is not the checkpoint's: its last generation's
        best organism, scored on this run's held-out rows, must have the held-out loss its logbook recorded (to
        a relative 1e-9). Another label file, objective, loss, win-probability model, K, λ, power, quiet filter,
        target or split changes it; the GA settings are compared by :meth:`load` itself."""
        recorded = float(state.logbook[-1]["held_out"]) if state.logbook else float("nan")
        if not len(self.held_rows) or not np.isfinite(recorded):
            return
        best = int(np.argmin(state.losses))
        now = float(self.objective.losses(self.genome.decode(state.population[best:best + 1]), self.held_rows)[0])
        if not np.isclose(now, recorded, rtol=1e-9, atol=1e-12):
            raise CheckpointError(f"{state.source}: the checkpoint was evolved against another objective (its best "
                                  f"organism's held-out loss was {recorded:.6g}, against this run's labels and "
                                  f"loss {now:.6g}): resume with the same labels and objective flags, or choose "
                                  f"another --out")

    def load(self, path: Path, allow_more_generations: bool = True) -> None:
        """Restore a checkpoint written by :meth:`save` with the same settings (``generations`` may grow).

        Everything is validated before anything is restored: a malformed, truncated or foreign file, or
        one written with other settings, raises :class:`~evolve.ga.checkpoint.CheckpointError` (a ``ValueError``)
        naming the file and what is wrong, and leaves this run untouched. A checkpoint of the first format
        (``path.npz`` + ``path.json``) loads too.
        """
        state = read_checkpoint(path)
        # The layout first: another genome's checkpoint also has that genome's default settings.
        if state.genome != self.genome:
            theirs, ours = layout_of(state.genome.names), layout_of(self.genome.names)
            if theirs is not None and theirs != ours:
                raise CheckpointError(f"{state.source}: the checkpoint evolves the {theirs} genome layout, not "
                                      f"{ours} (resume with --genome {theirs})")
            raise CheckpointError(f"{state.source}: the checkpoint has another genome layout")
        saved = dict(state.settings)
        mine = asdict(self.settings)
        if allow_more_generations:
            saved.pop("generations")
            mine.pop("generations")
        if saved != mine:
            diff = {k: (saved.get(k), v) for k, v in mine.items() if saved.get(k) != v}
            raise CheckpointError(f"{state.source}: settings differ from the checkpoint's (checkpoint, now): {diff}")
        self._check_objective(state)
        rng_ops = np.random.default_rng()
        rng_sample = np.random.default_rng()
        for rng, key in ((rng_ops, "rng_ops"), (rng_sample, "rng_sample")):
            try:
                rng.bit_generator.state = state.rng[key]
            except (KeyError, TypeError, ValueError, OverflowError) as exc:
                raise CheckpointError(f"{state.source}: {key} is not a {type(rng.bit_generator).__name__} "
                                      f"state ({exc})") from exc
        # Validated: now restore (the generators keep their identity: the toolbox holds rng_ops).
        self.population, self.losses = state.population, state.losses
        self.hof.clear()
        self.hof.update([as_individual(b.copy(), loss)
                         for b, loss in zip(state.hof_bits, state.hof_losses, strict=True)])
        self.rng_ops.bit_generator.state = rng_ops.bit_generator.state
        self.rng_sample.bit_generator.state = rng_sample.bit_generator.state
        self.generation = state.generation
        self.elapsed = state.elapsed
        self.logbook = tools.Logbook()
        self.logbook.header = ["gen", "best", "mean", "std", "held_out", "seconds"]
        for rec in state.logbook:
            self.logbook.record(**rec)

