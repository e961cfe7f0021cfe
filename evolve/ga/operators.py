"""The GA's operators, DEAP style (``sel*``, ``cx*``/``mate*``, ``mut*``), each working on a whole
(population, bits) uint8 matrix of 0/1 at once (pairs (0, 1), (2, 3), … for crossover), in place:

* ``select_tournament`` / ``select_roulette``: parent indices, by tournament (lowest loss of ``size``) or
  fitness-proportional to ``max loss − loss``;
* ``mate_population``: one-point, two-point or uniform crossover, *copy-safe*: DEAP's ``cxTwoPoint``
  swaps slices with ``a[i:j], b[i:j] = b[i:j], a[i:j]``, which on numpy arrays copies a view that
  has just been overwritten and leaves both children with the same slice. Ours swaps through
  ``np.where``;
* ``mutate_population``: independent bit flips (DEAP's ``mutFlipBit``); ``mutate_genes``: per gene, a
  Gaussian step in value space (DEAP's ``mutGaussian``) or a uniformly random other value (DEAP's
  ``mutUniformInt``), re-encoded into the gene's bits (Gray or binary).

:func:`as_individual` views a bit string as a DEAP individual (``creator.MimicOrganism``, a numpy
bit-string with a minimising ``creator.MimicFitness``) for the hall of fame.

May import: numpy, deap, ``organisms.genome``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from deap import base, creator

from organisms.genome import Genome


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
