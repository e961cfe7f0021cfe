"""The bit-string genome: an ordered list of genes ``(name, bits, low, high)``.

A gene's bits, most significant first, are read as an unsigned integer ``int`` that is mapped
linearly onto ``[low, high]``: ``value = low + (high − low) · int / (2^bits − 1)``. Every gene is the
weight of the feature with the same name (centipawns per unit of feature), and every feature is
oriented so that its weight is a non-negative magnitude, so any random bit string is a valid evaluation.

How the bits become ``int`` is the genome's encoding. The default (``encoding="gray"``, ARCHITECTURE.md)
reads them as a reflected Gray code: neighbouring values differ in one bit, so there are no "Hamming
cliffs" (binary 0111111 → 1000000) to stall a bit-flip GA near an optimum; over 5 seeds the GA ended
at a median 1.009 × the exact fit's held-out error with Gray against 1.101 with binary.
``encoding="binary"`` reads them as a plain binary number, the paper's reading. Organism files and
checkpoints record their encoding; files without one are binary (they predate Gray).

A genome of a user's layout (``--genome myterms.py``, :mod:`organisms.userlayout`) carries a :class:`LayoutRef`:
the layout's source and its file's SHA-256, which the organism made of it records.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from organisms.features import FEATURE_NAMES, PST_FEATURE_NAMES
from search.runtime.errors import MimicError, SettingsError


class GenomeError(MimicError, ValueError):
    """A gene or genome that cannot be (bits, range, duplicate or malformed names): names the gene."""


@dataclass(frozen=True)
class Gene:
    name: str
    bits: int
    low: float
    high: float

    def __post_init__(self) -> None:
        if not 1 <= self.bits <= 52:
            raise GenomeError(f"gene {self.name}: bits must be within 1..52, got {self.bits}")
        if not (math.isfinite(self.low) and math.isfinite(self.high) and math.isfinite(self.high - self.low)):
            raise GenomeError(f"gene {self.name}: low and high must be finite numbers, got {self.low}, {self.high}")
        if not self.high > self.low:
            raise GenomeError(f"gene {self.name}: high ({self.high}) must exceed low ({self.low})")

    @property
    def step(self) -> float:
        """The value between two neighbouring bit patterns."""
        return (self.high - self.low) / ((1 << self.bits) - 1)


@dataclass(frozen=True)
class LayoutRef:
    """A user's genome layout as genomes and organism files record it: ``source``, the canonical spec (an
    absolute path to the term file, ``:NAME`` when its layout is not ``LAYOUT``, or ``MODULE:NAME``), and
    ``sha256``, the hex SHA-256 of the file's bytes (:mod:`organisms.userlayout`)."""

    source: str
    sha256: str


ENCODINGS = ("binary", "gray")
DEFAULT_ENCODING = "gray"
"""How genes are read unless a file or a flag says otherwise (``binary`` is the paper's reading)."""


class Genome:
    """An ordered gene layout; decodes whole populations of chromosomes at once. ``layout``: the user's layout
    the genes are of (``None`` for mimic's own layouts, told by the genes' names); it is not part of equality
    (a checkpoint records genes only; a changed layout file is caught by its features)."""

    def __init__(self, genes: Iterable[Gene], encoding: str = DEFAULT_ENCODING,
                 layout: LayoutRef | None = None) -> None:
        if encoding not in ENCODINGS:
            raise SettingsError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
        self.encoding = encoding
        self.layout = layout
        self.genes: tuple[Gene, ...] = tuple(genes)
        names = [g.name for g in self.genes]
        if len(set(names)) != len(names):
            raise GenomeError("gene names must be unique")
        self.names: tuple[str, ...] = tuple(names)
        self.offsets = np.cumsum([0] + [g.bits for g in self.genes])
        self.total_bits = int(self.offsets[-1])
        n = len(self.genes)
        # (total_bits, n_genes) int64: place values of every bit within its gene.
        self._place = np.zeros((self.total_bits, n), dtype=np.int64)
        for j, g in enumerate(self.genes):
            start = int(self.offsets[j])
            self._place[start:start + g.bits, j] = 1 << np.arange(g.bits - 1, -1, -1, dtype=np.int64)
        self._place_f = self._place.astype(np.float64)
        self.low = np.array([g.low for g in self.genes], dtype=np.float64)
        self.high = np.array([g.high for g in self.genes], dtype=np.float64)
        self.scale = np.array([g.step for g in self.genes], dtype=np.float64)
        self.max_int = np.array([(1 << g.bits) - 1 for g in self.genes], dtype=np.int64)
        # For Gray decoding: the column just before each bit's gene (-1 for the genome's first gene).
        starts = np.repeat(self.offsets[:-1], [g.bits for g in self.genes])
        self._prev_col = np.maximum(starts - 1, 0)
        self._has_prev = starts > 0

    def __len__(self) -> int:
        return len(self.genes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Genome) and self.genes == other.genes and self.encoding == other.encoding

    def __hash__(self) -> int:
        return hash((self.genes, self.encoding))

    def integers(self, bits: np.ndarray) -> np.ndarray:
        """(population, total_bits) 0/1 array -> (population, genes) int64, in one matrix product."""
        bits = np.asarray(bits)
        if bits.ndim != 2 or bits.shape[1] != self.total_bits:
            raise ValueError(f"expected (population, {self.total_bits}) bits, got {bits.shape}")
        if self.encoding == "gray":
            # Binary bit k of a gene is the XOR of its Gray bits 0..k: a running XOR along the whole
            # row, with the running value just before the gene taken out again.
            run = np.bitwise_xor.accumulate(bits.astype(np.uint8), axis=1)
            bits = run ^ np.where(self._has_prev, run[:, self._prev_col], 0).astype(np.uint8)
        # A float matrix product (BLAS) is exact here: every partial sum is an integer below 2**53.
        return np.rint(bits.astype(np.float64) @ self._place_f).astype(np.int64)

    def decode(self, bits: np.ndarray) -> np.ndarray:
        """(population, total_bits) uint8 bits -> (population, genes) float64 weights, vectorised."""
        return self.low + self.integers(bits) * self.scale

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Weights -> the nearest bit strings (values are clipped to each gene's range).

        Accepts (genes,) or (population, genes); returns uint8 bits of the matching shape.
        """
        v = np.atleast_2d(np.asarray(values, dtype=np.float64))
        ints = np.rint((np.clip(v, self.low, self.high) - self.low) / self.scale).astype(np.int64)
        ints = np.clip(ints, 0, self.max_int)
        if self.encoding == "gray":
            ints = ints ^ (ints >> 1)
        out = np.zeros((v.shape[0], self.total_bits), dtype=np.uint8)
        for j, g in enumerate(self.genes):
            start = int(self.offsets[j])
            for k in range(g.bits):
                out[:, start + k] = (ints[:, j] >> (g.bits - 1 - k)) & 1
        return out if np.ndim(values) == 2 else out[0]

    def random_bits(self, rng: np.random.Generator, population: int = 1) -> np.ndarray:
        """Uniformly random chromosomes, (population, total_bits) uint8."""
        return rng.integers(0, 2, size=(population, self.total_bits), dtype=np.uint8)

    def to_list(self) -> list[dict[str, object]]:
        return [{"name": g.name, "bits": g.bits, "low": g.low, "high": g.high} for g in self.genes]

    @classmethod
    def from_list(cls, items: Iterable[Mapping[str, object]], encoding: str = DEFAULT_ENCODING,
                  layout: LayoutRef | None = None) -> Genome:
        genes = []
        for item in items:
            name, bits, low, high = item["name"], item["bits"], item["low"], item["high"]
            if (not isinstance(name, str) or not isinstance(bits, int) or isinstance(bits, bool)
                    or not isinstance(low, int | float) or not isinstance(high, int | float)
                    or isinstance(low, bool) or isinstance(high, bool)):
                raise GenomeError(f"malformed gene {str(item)[:200]}: name must be a string, bits an integer, "
                                 f"low and high numbers")
            genes.append(Gene(name, bits, float(low), float(high)))
        return cls(genes, encoding, layout)


MATERIAL_BITS = 10
"""Width of a material gene (the paper's material values are wider than the rest)."""
OTHER_BITS = 7
"""Width of every other gene (the paper: 7 bits each)."""

# Gene ranges, centipawns per unit of the feature of the same name.
_RANGES: dict[str, tuple[float, float]] = {
    "pawn": (0, 400), "knight": (0, 1200), "bishop": (0, 1200), "rook": (0, 1800), "queen": (0, 3000),
    "knight_center": (0, 30), "bishop_center": (0, 30),
    "king_shield_mg": (0, 40), "king_open_file_mg": (0, 60), "king_attack_mg": (0, 30),
    "king_tropism_mg": (0, 20), "rook_open_file": (0, 60), "rook_half_open_file": (0, 40),
    "knight_outpost": (0, 60), "tempo": (0, 50),
}
_PREFIX_RANGES: list[tuple[str, tuple[float, float]]] = [
    ("knight_mobility", (0, 20)), ("bishop_mobility", (0, 20)), ("rook_mobility", (0, 20)),
    ("queen_mobility", (0, 20)), ("king_center", (0, 40)), ("doubled_pawn", (0, 60)),
    ("isolated_pawn", (0, 60)), ("backward_pawn", (0, 60)), ("passed_pawn", (0, 300)),
    ("connected_pawn", (0, 40)), ("rook_seventh", (0, 60)), ("bishop_pair", (0, 100)),
]
MATERIAL_GENES = ("pawn", "knight", "bishop", "rook", "queen")


def gene_range(name: str) -> tuple[float, float]:
    """The default ``(low, high)`` of the gene weighting feature ``name``."""
    if name in _RANGES:
        return _RANGES[name]
    for prefix, r in _PREFIX_RANGES:
        if name.startswith(prefix):
            return r
    raise KeyError(name)


def default_genome(encoding: str = DEFAULT_ENCODING) -> Genome:
    """The paper's layout: one gene per feature, material 10 bits wide, every other gene 7; genes read
    as Gray codes unless ``encoding="binary"`` (the paper's reading)."""
    return Genome((Gene(n, MATERIAL_BITS if n in MATERIAL_GENES else OTHER_BITS, *map(float, gene_range(n)))
                   for n in FEATURE_NAMES), encoding)


PST_BITS = 6
"""Width of a piece-square gene (64 values; a step of about 2 cp)."""
PST_RANGE = (-60.0, 60.0)
"""Range of a piece-square gene of a piece (knight to king), centipawns: a signed offset added to the
piece's material gene. PeSTO's tables, files folded and each table's mean taken out (that part is the
material gene's), lie within it from their 10th to their 90th percentile in both phases (the widest
are the knight's middle game, -50..+65, and the rook's, -33..+32); only the knight's corners (-136)
reach beyond."""
PST_PAWN_RANGE = (-50.0, 100.0)
"""Range of a pawn's piece-square gene, centipawns: PeSTO's folded pawn tables run from -50 to +140
(the endgame's seventh rank; the passed-pawn genes carry most of that), so the range leans upward."""


def rich_genome(encoding: str = DEFAULT_ENCODING) -> Genome:
    """The rich layout: the paper's 49 genes, then one signed :data:`PST_BITS`-bit gene per
    piece-square feature (368; ``organisms.features.PST_FEATURE_NAMES``), 417 genes in all.

    A random chromosome stays a playable evaluation: material is still a non-negative magnitude and a
    piece-square offset moves a piece's value by at most 60 cp (pawns -50..+100)."""
    pst = (Gene(n, PST_BITS, *(PST_PAWN_RANGE if n.startswith("pst_pawn_") else PST_RANGE))
           for n in PST_FEATURE_NAMES)
    return Genome((*default_genome(encoding).genes, *pst), encoding)


def layout_genome(layout: str = "paper", encoding: str = DEFAULT_ENCODING) -> Genome:
    """The genome of a layout (``paper``: :func:`default_genome`; ``rich``: :func:`rich_genome`; a user's term
    file or module, ``myterms.py`` or ``package.module:LAYOUT``: its genes, :mod:`organisms.userlayout`)."""
    if layout == "paper":
        return default_genome(encoding)
    if layout == "rich":
        return rich_genome(encoding)
    from organisms.userlayout import load_layout

    user = load_layout(layout)
    return Genome(user.genes, encoding, user.ref)
