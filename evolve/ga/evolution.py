"""The genetic algorithm, on DEAP.

A population is a (population, bits) uint8 matrix of 0/1; the hall of fame holds DEAP individuals
(``creator.MimicOrganism``, a numpy bit-string with a minimising ``creator.MimicFitness``). The
toolbox holds only what a generation calls, each operator working on the whole matrix at once
(pairs (0, 1), (2, 3), …), which is what makes 300 generations of 100 organisms take well under a
second:

* ``population_bits``: uniformly random chromosomes (or, given an ``initial`` chromosome, generation 0
  is that chromosome and ``population − 1`` copies of it, each mutated once by ``mutate_population``);
* ``select``: tournament (default, size 3) or roulette on the losses (fitness-proportional to
  ``max loss − loss``), returning parent indices;
* ``mate_population``: one-point, two-point or uniform crossover, *copy-safe*: DEAP's ``cxTwoPoint``
  swaps slices with ``a[i:j], b[i:j] = b[i:j], a[i:j]``, which on numpy arrays copies a view that
  has just been overwritten and leaves both children with the same slice. Ours swaps through
  ``np.where``;
* ``mutate_population``: independent bit flips (``mutation_kind="bit"``, DEAP's ``mutFlipBit``), or
  per gene (``mutate_genes``): with probability ``mutation`` a gene gets a new value, either a Gaussian
  step in value space (``"gaussian"``, DEAP's ``mutGaussian``: standard deviation ``mutation_sigma`` ×
  the gene's range, at least one grid step, reflected at the range's ends) or a uniformly random other
  value (``"uniform"``, DEAP's ``mutUniformInt``), re-encoded into the gene's bits (Gray or binary);
* ``evaluate``: the objective's loss of every organism at once (decode to a weight matrix, one
  matrix product).

A ``HallOfFame(similar=numpy.array_equal)`` keeps the best organisms seen.

One generation: the ``elite`` best organisms pass unchanged; the rest are chosen by ``select``,
paired and crossed with probability ``crossover``, and mutated with probability ``mutation`` (per
bit or, for the gene kinds, per gene). A fresh sample of ``sample`` training rows is drawn every
generation and the whole new population (elites included) is scored on it. The held-out rows are
never sampled; the error of each generation's best organism on them is logged.

Everything random comes from two numpy generators (operators, samples) seeded from ``seed``; a
checkpoint stores the population, the hall of fame, the logbook, the generation and both generator
states, so a resumed run ends bit-identical to an uninterrupted one.
"""

from __future__ import annotations

import json
import math
import os
import time
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from deap import base, creator, tools

from evolve.ga.objectives import Objective
from organisms.features import layout_of
from organisms.genome import Genome

SELECTIONS = ("tournament", "roulette")
CROSSOVERS = ("one-point", "two-point", "uniform")
MUTATIONS = ("bit", "gaussian", "uniform")
"""``bit``: flip each bit with probability ``mutation`` (the paper's); ``gaussian`` / ``uniform``: give each
gene a new value with probability ``mutation`` (see :func:`mutate_genes`)."""
NEW_SETTINGS = {"mutation_kind": "bit", "mutation_sigma": 0.1, "mutation_sigma_final": None}
"""Settings added after checkpoints were first written: a checkpoint without them ran with these values."""
CHECKPOINT_FORMAT = 2
"""2: one ``.npz`` holding the arrays and the JSON metadata; 1: ``.npz`` arrays + ``.json`` beside."""


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
    seed: int = 0

    def __post_init__(self) -> None:
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}")
        if self.crossover_kind not in CROSSOVERS:
            raise ValueError(f"crossover kind must be one of {CROSSOVERS}")
        if self.mutation_kind not in MUTATIONS:
            raise ValueError(f"mutation kind must be one of {MUTATIONS}")
        if not (math.isfinite(self.mutation_sigma) and self.mutation_sigma > 0):
            raise ValueError("the mutation sigma is a positive share of a gene's range")
        final = self.mutation_sigma_final
        if final is not None and not (math.isfinite(final) and 0 < final <= self.mutation_sigma):
            raise ValueError("the final mutation sigma is a positive share of a gene's range, at most the first")
        if self.population < 2 or not 0 <= self.elite < self.population:
            raise ValueError("need a population of at least 2 and 0 <= elite < population")
        if not (0 <= self.crossover <= 1 and 0 <= self.mutation <= 1):
            raise ValueError("crossover and mutation are probabilities")
        if self.generations < 0 or self.sample < 1 or self.tournament < 1 or self.hall_of_fame < 0:
            raise ValueError("need generations >= 0, sample >= 1, tournament >= 1 and hall of fame >= 0")
        if self.seed < 0:
            raise ValueError("the seed must be a non-negative integer")

    def sigma_at(self, generation: int) -> float:
        """The gaussian mutation's sigma when making generation ``generation`` (1 … ``generations``):
        ``mutation_sigma``, shrinking geometrically to ``mutation_sigma_final`` at the last generation when
        that is set."""
        final = self.mutation_sigma_final
        if final is None or self.generations <= 1:
            return self.mutation_sigma
        t = min(max((generation - 1) / (self.generations - 1), 0.0), 1.0)
        return float(self.mutation_sigma * (final / self.mutation_sigma) ** t)


def _creator() -> tuple[type, type]:
    if not hasattr(creator, "MimicFitness"):
        creator.create("MimicFitness", base.Fitness, weights=(-1.0,))
    if not hasattr(creator, "MimicOrganism"):
        creator.create("MimicOrganism", np.ndarray, fitness=creator.MimicFitness)
    return creator.MimicFitness, creator.MimicOrganism


def as_individual(bits: np.ndarray, loss: float | None = None) -> Any:
    """A DEAP individual viewing ``bits`` (no copy), with its fitness set when ``loss`` is given."""
    fitness_cls, organism_cls = _creator()
    ind: Any = np.asarray(bits, dtype=np.uint8).view(organism_cls)
    ind.fitness = fitness_cls()
    if loss is not None:
        ind.fitness.values = (float(loss),)
    return ind


# ---------------------------------------------------------------------- operators on matrices
def crossover_masks(n_pairs: int, n_bits: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """(pairs, bits) booleans: which bits each pair swaps."""
    idx = np.arange(n_bits)
    if kind == "one-point":
        cut = rng.integers(1, n_bits, size=(n_pairs, 1))
        return idx >= cut
    if kind == "two-point":
        a = rng.integers(1, n_bits, size=n_pairs)
        b = rng.integers(1, n_bits - 1, size=n_pairs)
        b = np.where(b >= a, b + 1, b)  # two distinct cut points, as DEAP draws them
        lo, hi = np.minimum(a, b)[:, None], np.maximum(a, b)[:, None]
        return (idx >= lo) & (idx < hi)
    if kind == "uniform":
        return rng.random((n_pairs, n_bits)) < 0.5
    raise ValueError(kind)


def mate_population(children: np.ndarray, cxpb: float, kind: str, rng: np.random.Generator) -> None:
    """Cross pairs (0, 1), (2, 3), … of ``children`` in place, each with probability ``cxpb``."""
    n_pairs = len(children) // 2
    if n_pairs == 0:
        return
    a, b = children[0:2 * n_pairs:2], children[1:2 * n_pairs:2]
    masks = crossover_masks(n_pairs, children.shape[1], kind, rng)
    masks &= (rng.random(n_pairs) < cxpb)[:, None]
    new_a = np.where(masks, b, a)
    new_b = np.where(masks, a, b)
    children[0:2 * n_pairs:2] = new_a
    children[1:2 * n_pairs:2] = new_b


def mutate_population(children: np.ndarray, indpb: float, rng: np.random.Generator) -> None:
    """Flip every bit of ``children`` independently with probability ``indpb`` (in place)."""
    children ^= (rng.random(children.shape) < indpb).astype(np.uint8)


def integers_to_bits(genome: Genome, ints: np.ndarray) -> np.ndarray:
    """(population, genes) integers within each gene's ``0..2^bits − 1`` -> (population, total_bits)
    uint8, each gene's bits most significant first in the genome's encoding (inverse of
    ``Genome.integers``)."""
    widths = np.array([g.bits for g in genome.genes])
    gene_of_bit = np.repeat(np.arange(len(widths)), widths)
    shift = (genome.offsets[1:][gene_of_bit] - 1 - np.arange(genome.total_bits)).astype(np.int64)
    codes = ints ^ (ints >> 1) if genome.encoding == "gray" else ints
    return ((codes[:, gene_of_bit] >> shift) & 1).astype(np.uint8)


def mutate_genes(children: np.ndarray, genome: Genome, indpb: float, kind: str, sigma: float,
                 rng: np.random.Generator) -> np.ndarray:
    """Give each gene of ``children`` a new value with probability ``indpb`` (in place); return the
    (population, genes) mask of the genes changed.

    ``gaussian``: the gene's integer moves by ``round(N(0, sigma · (2^bits − 1)))`` grid steps, at least
    one (a zero step becomes ±1), reflected back into ``0..2^bits − 1`` at the ends; ``uniform``: the
    gene takes a uniformly random value other than its own. Either way every chosen gene changes and
    no other bit moves. A one-bit gene simply flips."""
    ints = genome.integers(children)
    top = genome.max_int[None, :]
    chosen = rng.random(ints.shape) < indpb
    if kind == "gaussian":
        step = np.rint(rng.normal(0.0, 1.0, ints.shape) * sigma * top).astype(np.int64)
        step = np.where(step == 0, np.where(rng.random(ints.shape) < 0.5, -1, 1), step)
        step = np.clip(step, -top, top)  # one reflection then always lands within range
        new = ints + step
        new = np.where(new < 0, -new, new)
        new = np.where(new > top, 2 * top - new, new)
        new = np.where(new == ints, np.where(ints > 0, ints - 1, ints + 1), new)  # a step reflected home
    elif kind == "uniform":
        new = (ints + rng.integers(1, top + 1, size=ints.shape)) % (top + 1)
    else:
        raise ValueError(kind)
    new = np.where(chosen, new, ints)
    widths = np.array([g.bits for g in genome.genes])
    bit_mask = np.repeat(chosen, widths, axis=1)
    children[...] = np.where(bit_mask, integers_to_bits(genome, new), children)
    return chosen


def select_tournament(losses: np.ndarray, k: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of ``k`` tournament winners (lowest loss of ``size`` drawn with replacement)."""
    contenders = rng.integers(0, len(losses), size=(k, size))
    return contenders[np.arange(k), np.argmin(losses[contenders], axis=1)]


def select_roulette(losses: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Indices drawn with probability proportional to ``max(loss) − loss`` (uniform if all equal)."""
    w = losses.max() - losses
    total = w.sum()
    p = w / total if total > 0 else np.full(len(losses), 1 / len(losses))
    return rng.choice(len(losses), size=k, p=p)


def make_toolbox(genome: Genome, settings: GASettings, objective: Objective,
                 rng: np.random.Generator) -> base.Toolbox:
    """The DEAP toolbox of a run (see the module docstring)."""
    tb = base.Toolbox()
    tb.register("population_bits", lambda n: genome.random_bits(rng, n))
    if settings.selection == "tournament":
        tb.register("select", select_tournament, size=settings.tournament, rng=rng)
    else:
        tb.register("select", select_roulette, rng=rng)
    tb.register("mate_population", mate_population, cxpb=settings.crossover, kind=settings.crossover_kind,
                rng=rng)
    if settings.mutation_kind == "bit":
        tb.register("mutate_population", mutate_population, indpb=settings.mutation, rng=rng)
    else:
        tb.register("mutate_population", mutate_genes, genome=genome, indpb=settings.mutation,
                    kind=settings.mutation_kind, rng=rng)
    tb.register("evaluate", lambda bits, rows: objective.losses(genome.decode(bits), rows))
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
            raise ValueError(f"the initial chromosome has {self.initial.size} bits, the genome {genome.total_bits}")
        self.objective = objective
        self.settings = settings
        self.train_rows = np.intersect1d(train_rows, objective.rows)
        self.held_rows = np.intersect1d(held_rows, objective.rows)
        if len(self.train_rows) == 0:
            raise ValueError("no training rows for this objective")
        seeds = np.random.SeedSequence(settings.seed).spawn(2)
        self.rng_ops = np.random.default_rng(seeds[0])
        self.rng_sample = np.random.default_rng(seeds[1])
        self.toolbox = make_toolbox(genome, settings, objective, self.rng_ops)
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
        if len(self.held_rows):
            held = float(self.objective.losses(self.genome.decode(self.population[best:best + 1]),
                                               self.held_rows)[0])
        self.elapsed += time.perf_counter() - t0
        rec = GenerationRecord(self.generation, float(self.losses[best]), float(self.losses.mean()),
                               float(self.losses.std()), held, self.elapsed)
        self.logbook.record(**asdict(rec))
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
            if s.mutation_kind == "bit":
                self.toolbox.mutate_population(copies)
            else:
                self.toolbox.mutate_population(copies, sigma=s.sigma_at(1))
            self.population = np.concatenate([self.initial[None, :], copies])
        else:
            order = np.argsort(self.losses, kind="stable")
            elites = self.population[order[: s.elite]]
            chosen = self.toolbox.select(self.losses, s.population - s.elite)
            children = self.population[chosen].copy()
            self.toolbox.mate_population(children)
            if s.mutation_kind == "bit":
                self.toolbox.mutate_population(children)
            else:
                self.toolbox.mutate_population(children, sigma=s.sigma_at(self.generation + 1))
            self.population = np.concatenate([elites, children])
        self.generation += 1
        self._score(self._sample())
        return self._log(t0)

    def run(self, until: int | None = None, checkpoint: Path | None = None, every: int = 10,
            on_generation: Callable[[GenerationRecord], None] | None = None) -> None:
        """Run up to generation ``until`` (default ``settings.generations``), checkpointing every
        ``every`` generations and at the end."""
        last = self.settings.generations if until is None else until
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
        """The candidate with the lowest loss on the whole training split: (bits, training loss,
        held-out loss)."""
        cands = self.candidates()
        w = self.genome.decode(cands)
        train = self.objective.losses(w, self.train_rows)
        i = int(np.argmin(train))
        held = float(self.objective.losses(w[i:i + 1], self.held_rows)[0]) if len(self.held_rows) else float("nan")
        return cands[i], float(train[i]), held

    # .................................................................. checkpoints (one npz, no pickle)
    def save(self, path: Path) -> None:
        """Write the checkpoint ``path.npz`` as one unit: the arrays and, as a JSON string in the array
        ``meta``, everything else (generation, settings, genome, generator states, logbook). The file
        is written beside, fsynced and moved into place with ``os.replace``, so a kill at any moment
        leaves either the previous checkpoint or this one, never a mix."""
        path = Path(path)
        hof_bits = np.array([np.asarray(i, dtype=np.uint8) for i in self.hof]).reshape(-1, self.genome.total_bits)
        hof_losses = np.array([i.fitness.values[0] for i in self.hof], dtype=np.float64)
        meta = {
            "format": CHECKPOINT_FORMAT, "generation": self.generation, "elapsed": self.elapsed,
            "settings": asdict(self.settings), "genome": self.genome.to_list(), "encoding": self.genome.encoding,
            "rng_ops": _jsonable(self.rng_ops.bit_generator.state),
            "rng_sample": _jsonable(self.rng_sample.bit_generator.state),
            "logbook": [dict(r) for r in self.logbook],
        }
        target = path.with_suffix(".npz")
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp.npz")
        try:
            with open(tmp, "wb") as fh:
                np.savez(fh, population=self.population, losses=self.losses, hof_bits=hof_bits,
                         hof_losses=hof_losses, meta=np.array(json.dumps(meta)))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(target.parent)
        # A checkpoint of the first format (npz + JSON pair) left by an older version is now stale.
        path.with_suffix(".json").unlink(missing_ok=True)

    def load(self, path: Path, allow_more_generations: bool = True) -> None:
        """Restore a checkpoint written by :meth:`save` with the same settings (``generations`` may grow).

        Everything is validated before anything is restored: a malformed, truncated or foreign file, or
        one written with other settings, raises ``ValueError`` naming the file and what is wrong, and
        leaves this run untouched. A checkpoint of the first format (``path.npz`` + ``path.json``) loads too.
        """
        state = read_checkpoint(path)
        # The layout first: another genome's checkpoint also has that genome's default settings.
        if state.genome != self.genome:
            theirs, ours = layout_of(state.genome.names), layout_of(self.genome.names)
            if theirs is not None and theirs != ours:
                raise ValueError(f"{state.source}: the checkpoint evolves the {theirs} genome layout, not "
                                 f"{ours} (resume with --genome {theirs})")
            raise ValueError(f"{state.source}: the checkpoint has another genome layout")
        saved = dict(state.settings)
        mine = asdict(self.settings)
        if allow_more_generations:
            saved.pop("generations")
            mine.pop("generations")
        if saved != mine:
            diff = {k: (saved.get(k), v) for k, v in mine.items() if saved.get(k) != v}
            raise ValueError(f"{state.source}: settings differ from the checkpoint's (checkpoint, now): {diff}")
        rng_ops = np.random.default_rng()
        rng_sample = np.random.default_rng()
        for rng, key in ((rng_ops, "rng_ops"), (rng_sample, "rng_sample")):
            try:
                rng.bit_generator.state = state.rng[key]
            except (KeyError, TypeError, ValueError, OverflowError) as exc:
                raise ValueError(f"{state.source}: {key} is not a {type(rng.bit_generator).__name__} "
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


def checkpoint_exists(path: Path) -> bool:
    """Whether a checkpoint (either format) lies at ``path`` (without suffix)."""
    path = Path(path)
    return path.with_suffix(".npz").exists() or path.with_suffix(".json").exists()


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass
class CheckpointState:
    """A checkpoint read and validated by :func:`read_checkpoint` (nothing restored yet)."""

    source: str
    generation: int
    elapsed: float  # seconds
    settings: dict[str, Any]
    genome: Genome
    rng: dict[str, Any]
    logbook: list[dict[str, float]]
    population: np.ndarray  # (population, bits) uint8
    losses: np.ndarray  # (population,) float64
    hof_bits: np.ndarray  # (k, bits) uint8
    hof_losses: np.ndarray  # (k,) float64


_LOGBOOK_KEYS = ("gen", "best", "mean", "std", "held_out", "seconds")
_ARRAYS = ("population", "losses", "hof_bits", "hof_losses")
MAX_CHECKPOINT_BYTES = 1 << 30
"""A checkpoint larger than this (1 GiB) is refused rather than read."""


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read_checkpoint(path: Path) -> CheckpointState:
    """Read and validate the checkpoint at ``path`` (without suffix); ``ValueError`` names the file and
    the first thing wrong. The schema: see :meth:`Evolution.save`."""
    path = Path(path)
    npz = path.with_suffix(".npz")
    legacy = path.with_suffix(".json")
    source = str(npz)
    if not npz.is_file():
        raise ValueError(f"{npz}: no checkpoint file" + (" (its JSON half is there)" if legacy.exists() else ""))
    if npz.stat().st_size > MAX_CHECKPOINT_BYTES:
        raise ValueError(f"{npz}: too large for a checkpoint ({npz.stat().st_size} bytes)")
    arrays: dict[str, np.ndarray] = {}
    meta_text: str | None = None
    try:
        with np.load(npz, allow_pickle=False) as data:
            names = set(data.files)
            for name in _ARRAYS:
                if name not in names:
                    raise ValueError(f"{npz}: not a checkpoint (no array {name!r})")
                arrays[name] = np.asarray(data[name])
            if "meta" in names:
                meta_arr = data["meta"]
                if meta_arr.dtype.kind != "U" or meta_arr.shape != ():
                    raise ValueError(f"{npz}: 'meta' must be one JSON string")
                meta_text = str(meta_arr)
    except ValueError as exc:
        if str(exc).startswith(str(npz)):
            raise
        raise ValueError(f"{npz}: not a readable checkpoint ({exc})") from exc
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{npz}: not a readable checkpoint ({exc})") from exc
    if meta_text is None:  # the first format: the rest in path.json
        source = str(legacy)
        try:
            meta_text = legacy.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"{legacy}: cannot read the checkpoint's JSON half ({exc})") from exc
    try:
        meta = json.loads(meta_text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: the checkpoint's JSON is malformed ({exc})") from exc
    except RecursionError as exc:
        raise ValueError(f"{source}: the checkpoint's JSON is nested too deeply") from exc
    return _validate(source, meta, arrays, legacy=source == str(legacy))


def _validate(source: str, meta: object, arrays: dict[str, np.ndarray], legacy: bool) -> CheckpointState:
    def bad(what: str) -> ValueError:
        return ValueError(f"{source}: {what}")

    if not isinstance(meta, dict):
        raise bad("the checkpoint's metadata must be a JSON object")
    required = ["format", "generation", "elapsed", "settings", "genome", "rng_ops", "rng_sample", "logbook"]
    for key in required if legacy else [*required, "encoding"]:
        if key not in meta:
            raise bad(f"missing {key!r}")
    expected_format = 1 if legacy else CHECKPOINT_FORMAT
    if meta["format"] != expected_format or isinstance(meta["format"], bool):
        raise bad(f"unknown checkpoint format {meta['format']!r} (expected {expected_format})")
    # Settings: exactly GASettings' fields, accepted by its own checks.
    settings = meta["settings"]
    field_names = {f.name for f in fields(GASettings)}
    if isinstance(settings, dict):
        settings = {**{k: v for k, v in NEW_SETTINGS.items() if k not in settings}, **settings}
    if not isinstance(settings, dict) or set(settings) != field_names:
        raise bad(f"'settings' must be an object with the keys {sorted(field_names)}")
    for f in fields(GASettings):
        v = settings[f.name]
        ok = isinstance(v, str) if f.type == "str" else (
            isinstance(v, int) and not isinstance(v, bool) if f.type == "int" else
            (v is None or _number(v)) if f.type == "float | None" else _number(v))
        if not ok:
            raise bad(f"settings.{f.name} must be {'a string' if f.type == 'str' else 'a number'}, got {v!r}")
    try:
        ga = GASettings(**settings)
    except (TypeError, ValueError) as exc:
        raise bad(f"invalid settings ({exc})") from exc
    # Genome.
    encoding = meta.get("encoding", "binary")
    genes = meta["genome"]
    if not isinstance(genes, list) or not all(isinstance(g, dict) for g in genes) or not isinstance(encoding, str):
        raise bad("'genome' must be a list of gene objects and 'encoding' a string")
    try:
        genome = Genome.from_list(genes, encoding)
    except (KeyError, TypeError, ValueError) as exc:
        raise bad(f"invalid genome ({exc})") from exc
    # Generation, time, logbook: generations 0..generation, one record each.
    gen = meta["generation"]
    if not isinstance(gen, int) or isinstance(gen, bool) or not 0 <= gen <= ga.generations:
        raise bad(f"generation must be an integer within 0..{ga.generations}, got {gen!r}")
    elapsed = meta["elapsed"]
    if not _number(elapsed) or not math.isfinite(elapsed) or elapsed < 0:
        raise bad(f"elapsed must be a non-negative number of seconds, got {elapsed!r}")
    logbook = meta["logbook"]
    if not isinstance(logbook, list) or len(logbook) != gen + 1:
        raise bad(f"the logbook must hold one record per generation 0..{gen}")
    for i, rec in enumerate(logbook):
        if (not isinstance(rec, dict) or set(rec) != set(_LOGBOOK_KEYS) or rec["gen"] != i
                or not all(_number(rec[k]) for k in _LOGBOOK_KEYS)):
            raise bad(f"logbook record {i} must be {{gen: {i}, best, mean, std, held_out, seconds}} (numbers)")
    for key in ("rng_ops", "rng_sample"):
        if not isinstance(meta[key], dict):
            raise bad(f"{key} must be a bit-generator state object")
    # Arrays: shapes, types and ranges.
    n, bits = ga.population, genome.total_bits
    pop, losses = arrays["population"], arrays["losses"]
    hof_bits, hof_losses = arrays["hof_bits"], arrays["hof_losses"]
    for name, arr in arrays.items():
        if arr.dtype.kind not in "biuf":
            raise bad(f"array {name!r} must be numeric, got {arr.dtype}")
    if pop.shape != (n, bits) or not np.isin(pop, (0, 1)).all():
        raise bad(f"population must be {n} x {bits} bits of 0/1, got shape {pop.shape}")
    if losses.shape != (n,) or not np.isfinite(losses).all():
        raise bad(f"losses must be {n} finite numbers, got shape {losses.shape}")
    k = hof_losses.shape[0] if hof_losses.ndim == 1 else -1
    if (k < 0 or k > ga.hall_of_fame or hof_bits.shape != (k, bits) or not np.isin(hof_bits, (0, 1)).all()
            or not np.isfinite(hof_losses).all()):
        raise bad(f"the hall of fame must be at most {ga.hall_of_fame} rows of {bits} bits of 0/1 with one "
                  f"finite loss each, got shapes {hof_bits.shape} and {hof_losses.shape}")
    if float(logbook[-1]["best"]) != float(losses.min()):
        # The first format could be torn between its two files: new arrays beside an older generation.
        raise bad(f"the losses are not those of generation {gen} (its logbook's best is {logbook[-1]['best']}, "
                  f"the losses' least {float(losses.min())}): a checkpoint mixed from two generations")
    return CheckpointState(source, gen, float(elapsed), settings, genome,
                           {"rng_ops": meta["rng_ops"], "rng_sample": meta["rng_sample"]},
                           [{k: rec[k] for k in _LOGBOOK_KEYS} for rec in logbook],
                           pop.astype(np.uint8), losses.astype(np.float64),
                           hof_bits.astype(np.uint8), hof_losses.astype(np.float64))


def _jsonable(state: Mapping[str, Any]) -> dict[str, Any]:
    """A bit-generator state with numpy scalars turned into Python numbers."""
    out: dict[str, Any] = {}
    for k, v in state.items():
        if isinstance(v, dict):
            out[k] = _jsonable(v)
        elif isinstance(v, np.integer):
            out[k] = int(v)
        elif isinstance(v, np.ndarray):
            out[k] = v.tolist()
        else:
            out[k] = v
    return out


RICH_DEFAULTS: dict[str, Any] = {"generations": 3000, "crossover_kind": "uniform", "mutation_kind": "gaussian",
                                 "mutation": 0.01, "mutation_sigma_final": 0.005}
"""The GA settings of the rich genome (``--genome rich``) that differ from the paper's, picked from
``results/ga-study/study.md``; every other setting is the paper's."""


def rich_defaults(settings: GASettings) -> GASettings:
    """``settings`` with :data:`RICH_DEFAULTS` in place of the corresponding fields."""
    from dataclasses import replace

    return replace(settings, **RICH_DEFAULTS)
