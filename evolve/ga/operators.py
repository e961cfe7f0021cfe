"""The GA's operators, DEAP style (``sel*``, ``cx*``/``mate*``, ``mut*``), each working on a whole
(population, bits) uint8 matrix of 0/1 at once (pairs (0, 1), (2, 3), … for crossover), in place, and the
registries that name them (:data:`SELECTIONS`, :data:`CROSSOVERS`, :data:`MUTATIONS`): a name of
``GASettings.selection``, ``crossover_kind`` or ``mutation_kind`` is one entry there, and the loop
(:mod:`evolve.ga.evolution`) calls whatever its toolbox registered, with one signature per role:

* selection, ``sel(losses, k, *, settings, rng) -> indices`` of ``k`` parents: ``tournament`` (lowest loss of
  ``settings.tournament``), ``roulette`` (fitness-proportional to ``max loss − loss``);
* crossover, ``cx(n_pairs, n_bits, rng) -> (pairs, bits) mask`` of the bits each pair swaps (``one-point``,
  ``two-point``, ``uniform``), applied by :func:`mate_population`, *copy-safe*: DEAP's ``cxTwoPoint``
  swaps slices with ``a[i:j], b[i:j] = b[i:j], a[i:j]``, which on numpy arrays copies a view that
  has just been overwritten and leaves both children with the same slice. Ours swaps through
  ``np.where``;
* mutation, ``mut(children, *, genome, settings, generation, rng) -> None``, in place, when making generation
  ``generation``: ``bit``, independent bit flips with probability ``settings.mutation`` (DEAP's ``mutFlipBit``,
  :func:`mutate_population`); ``gaussian`` and ``uniform``, per gene (:func:`mutate_genes`): a Gaussian step in
  value space (DEAP's ``mutGaussian``; its sigma ``settings.sigma_at(generation)``) or a uniformly random other
  value (DEAP's ``mutUniformInt``), re-encoded into the gene's bits (Gray or binary).

Adding an operator is one function of its role's signature and one entry in its registry (the ``mimic evolve``
flag's choices are the registry's names).

:func:`as_individual` views a bit string as a DEAP individual (``creator.MimicOrganism``, a numpy
bit-string with a minimising ``creator.MimicFitness``) for the hall of fame.

May import: numpy, deap, ``organisms.genome``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from deap import base, creator

from organisms.genome import Genome

if TYPE_CHECKING:
    from evolve.ga.settings import GASettings


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


def cx_one_point(n_pairs: int, n_bits: int, rng: np.random.Generator) -> np.ndarray:
    """(pairs, bits) booleans: each pair swaps the bits from one random cut point on."""
    cut = rng.integers(1, n_bits, size=(n_pairs, 1))
    return np.arange(n_bits) >= cut


def cx_two_point(n_pairs: int, n_bits: int, rng: np.random.Generator) -> np.ndarray:
    """(pairs, bits) booleans: each pair swaps the bits between two distinct random cut points."""
    idx = np.arange(n_bits)
    a = rng.integers(1, n_bits, size=n_pairs)
    b = rng.integers(1, n_bits - 1, size=n_pairs)
    b = np.where(b >= a, b + 1, b)  # two distinct cut points, as DEAP draws them
    lo, hi = np.minimum(a, b)[:, None], np.maximum(a, b)[:, None]
    return (idx >= lo) & (idx < hi)


def cx_uniform(n_pairs: int, n_bits: int, rng: np.random.Generator) -> np.ndarray:
    """(pairs, bits) booleans: each pair swaps each bit with probability ½."""
    return rng.random((n_pairs, n_bits)) < 0.5


CrossoverMask = Callable[[int, int, np.random.Generator], np.ndarray]
CROSSOVERS: dict[str, CrossoverMask] = {"one-point": cx_one_point, "two-point": cx_two_point, "uniform": cx_uniform}
"""The crossovers by name (``GASettings.crossover_kind``): each makes the (pairs, bits) mask of the bits each pair
swaps, which :func:`mate_population` applies."""


def crossover_masks(n_pairs: int, n_bits: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """(pairs, bits) booleans: which bits each pair swaps, by the crossover ``kind`` of :data:`CROSSOVERS`."""
    return CROSSOVERS[kind](n_pairs, n_bits, rng)


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


def gaussian_values(ints: np.ndarray, top: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Every gene's integer moved by ``round(N(0, sigma · top))`` grid steps, at least one (a zero step becomes ±1),
    reflected back into ``0..top`` at the ends (never back onto itself)."""
    step = np.rint(rng.normal(0.0, 1.0, ints.shape) * sigma * top).astype(np.int64)
    step = np.where(step == 0, np.where(rng.random(ints.shape) < 0.5, -1, 1), step)
    step = np.clip(step, -top, top)  # one reflection then always lands within range
    new = ints + step
    new = np.where(new < 0, -new, new)
    new = np.where(new > top, 2 * top - new, new)
    return np.where(new == ints, np.where(ints > 0, ints - 1, ints + 1), new)  # a step reflected home


def uniform_values(ints: np.ndarray, top: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Every gene's integer replaced by a uniformly random other value of ``0..top`` (``sigma`` unused)."""
    return (ints + rng.integers(1, top + 1, size=ints.shape)) % (top + 1)


GENE_VALUES: dict[str, Callable[[np.ndarray, np.ndarray, float, np.random.Generator], np.ndarray]] = {
    "gaussian": gaussian_values, "uniform": uniform_values}
"""The new values of the gene mutations (:func:`mutate_genes`), by kind."""


def mutate_genes(children: np.ndarray, genome: Genome, indpb: float, kind: str, sigma: float,
                 rng: np.random.Generator) -> np.ndarray:
    """Give each gene of ``children`` a new value with probability ``indpb`` (in place); return the
    (population, genes) mask of the genes changed.

    ``gaussian``: the gene's integer moves by ``round(N(0, sigma · (2^bits − 1)))`` grid steps, at least
    one (a zero step becomes ±1), reflected back into ``0..2^bits − 1`` at the ends; ``uniform``: the
    gene takes a uniformly random value other than its own (:data:`GENE_VALUES`). Either way every chosen gene
    changes and no other bit moves. A one-bit gene simply flips."""
    ints = genome.integers(children)
    top = genome.max_int[None, :]
    chosen = rng.random(ints.shape) < indpb
    new = np.where(chosen, GENE_VALUES[kind](ints, top, sigma, rng), ints)
    widths = np.array([g.bits for g in genome.genes])
    bit_mask = np.repeat(chosen, widths, axis=1)
    children[...] = np.where(bit_mask, integers_to_bits(genome, new), children)
    return chosen


class Mutation(Protocol):
    """The mutation role: change ``children`` in place when making generation ``generation`` (1 …)."""

    def __call__(self, children: np.ndarray, *, genome: Genome, settings: GASettings, generation: int,
                 rng: np.random.Generator) -> None: ...


def mut_bit(children: np.ndarray, *, genome: Genome, settings: GASettings, generation: int,
            rng: np.random.Generator) -> None:
    """``bit`` (the paper's): flip every bit with probability ``settings.mutation``."""
    mutate_population(children, settings.mutation, rng)


def mut_gaussian(children: np.ndarray, *, genome: Genome, settings: GASettings, generation: int,
                 rng: np.random.Generator) -> None:
    """``gaussian``: each gene, with probability ``settings.mutation``, a Gaussian step of
    ``settings.sigma_at(generation)`` × its range (:func:`mutate_genes`)."""
    mutate_genes(children, genome, settings.mutation, "gaussian", settings.sigma_at(generation), rng)


def mut_uniform(children: np.ndarray, *, genome: Genome, settings: GASettings, generation: int,
                rng: np.random.Generator) -> None:
    """``uniform``: each gene, with probability ``settings.mutation``, a uniformly random other value."""
    mutate_genes(children, genome, settings.mutation, "uniform", settings.sigma_at(generation), rng)


MUTATIONS: dict[str, Mutation] = {"bit": mut_bit, "gaussian": mut_gaussian, "uniform": mut_uniform}
"""The mutations by name (``GASettings.mutation_kind``); ``mutation`` is a probability per bit for ``bit``, per gene
for the others."""


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


class Selection(Protocol):
    """The selection role: the indices of ``k`` parents, given every organism's loss (lower is better)."""

    def __call__(self, losses: np.ndarray, k: int, *, settings: GASettings, rng: np.random.Generator
                 ) -> np.ndarray: ...


def sel_tournament(losses: np.ndarray, k: int, *, settings: GASettings, rng: np.random.Generator) -> np.ndarray:
    """``tournament``: :func:`select_tournament` of size ``settings.tournament``."""
    return select_tournament(losses, k, settings.tournament, rng)


def sel_roulette(losses: np.ndarray, k: int, *, settings: GASettings, rng: np.random.Generator) -> np.ndarray:
    """``roulette``: :func:`select_roulette`."""
    return select_roulette(losses, k, rng)


SELECTIONS: dict[str, Selection] = {"tournament": sel_tournament, "roulette": sel_roulette}
"""The selections by name (``GASettings.selection``)."""
