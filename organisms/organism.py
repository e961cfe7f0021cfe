"""The organism: a chromosome decoded into the weights of a linear evaluation.

``Organism.evaluate(board)`` is ``round(weights · features(board))`` in centipawns from the side to
move's view, computed straight from the raw bitboard terms (no feature vector is built). It keeps no
cache of its own: the engine caches every evaluation by position key (``search.Engine``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import chess
import numpy as np

from .features import FEATURE_NAMES, FEATURE_VERSION, raw_terms
from .genome import Genome, default_genome
from .linear import TermWeights

FORMAT = "mimic-organism"
FORMAT_VERSION = 1
RANDOM_ENCODING = "binary"
"""How :meth:`Organism.random` reads its random bits when given no genome (kept binary, so that
``random:SEED`` names the same weights it named before Gray codes became the default)."""


class Organism:
    """A chromosome (``bits``, uint8 0/1) read through a ``genome`` into feature weights."""

    name = "organism"

    def __init__(self, genome: Genome | None = None, bits: np.ndarray | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        self.genome = genome or default_genome()
        if tuple(self.genome.names) != FEATURE_NAMES:
            raise ValueError("the genome's genes must be the features, in FEATURE_NAMES order")
        if bits is None:
            bits = np.zeros(self.genome.total_bits, dtype=np.uint8)
        bits = np.asarray(bits, dtype=np.uint8).reshape(-1)
        if bits.shape != (self.genome.total_bits,) or np.any(bits > 1):
            raise ValueError(f"expected {self.genome.total_bits} bits of 0/1, got shape {bits.shape}")
        self.bits = bits
        self.meta: dict[str, Any] = dict(meta or {})
        self.weights: np.ndarray = self.genome.decode(bits[None, :])[0]
        """Centipawns per unit of each feature, ``FEATURE_NAMES`` order (all non-negative magnitudes)."""
        self._linear = TermWeights(self.weights.tolist())

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, board: chess.Board) -> int:
        """Centipawns from the side to move's view: ``round(weights · features(board))``."""
        occupied = board.occupied_co
        return self.evaluate_terms(*raw_terms(board.pawns, board.knights, board.bishops, board.rooks,
                                              board.queens, board.kings, occupied[chess.WHITE],
                                              occupied[chess.BLACK]), board.turn)

    def evaluate_terms(self, phase: int, terms: list[int], white_to_move: bool) -> int:
        """The evaluation from raw terms (see :func:`organisms.features.raw_terms`), side to move's view."""
        return math.floor(self._linear.side_to_move(phase, terms, white_to_move) + 0.5)

    # ------------------------------------------------------------------ construction
    @classmethod
    def random(cls, seed: int = 0, genome: Genome | None = None) -> Organism:
        """A uniformly random chromosome (reproducible from ``seed``).

        With a ``genome``, its bits are drawn at random. Without one, the organism has the default
        genome, and its weights are the random bits read as plain binary (:data:`RANDOM_ENCODING`),
        re-encoded into the default genome: ``random:SEED`` names the same weights it named before Gray
        codes became the default, so earlier results against it stay reproducible.
        """
        meta = {"origin": f"random:{seed}"}
        rng = np.random.default_rng(seed)
        if genome is not None:
            return cls(genome, genome.random_bits(rng)[0], meta=meta)
        drawn = default_genome(RANDOM_ENCODING)
        weights = drawn.decode(drawn.random_bits(rng))[0]
        genome = default_genome()
        return cls(genome, genome.encode(weights), meta=meta)

    @classmethod
    def from_weights(cls, weights: np.ndarray | dict[str, float], genome: Genome | None = None,
                     meta: dict[str, Any] | None = None) -> Organism:
        """The organism whose chromosome is nearest to ``weights`` (clipped to the gene ranges)."""
        genome = genome or default_genome()
        if isinstance(weights, dict):
            missing = set(genome.names) - set(weights)
            if missing:
                raise ValueError(f"weights missing for {sorted(missing)}")
            weights = np.array([weights[n] for n in genome.names], dtype=np.float64)
        return cls(genome, genome.encode(np.asarray(weights, dtype=np.float64)), meta)

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        genes = []
        for j, g in enumerate(self.genome.genes):
            start = int(self.genome.offsets[j])
            genes.append({
                "name": g.name, "bits": g.bits, "low": g.low, "high": g.high,
                "chromosome": "".join(map(str, self.bits[start:start + g.bits].tolist())),
                "value": float(self.weights[j]),
            })
        return {"format": FORMAT, "version": FORMAT_VERSION, "feature_version": FEATURE_VERSION,
                "units": "centipawns per unit of feature; features are side-to-move, oriented non-negative",
                "encoding": self.genome.encoding, "meta": self.meta, "genes": genes}

    def to_json(self) -> str:
        """Readable JSON: per gene (one a line) its layout, its bits (``chromosome``) and its ``value``."""
        data = self.to_dict()
        genes = data.pop("genes")
        head = [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in data.items()]
        body = ",\n".join("    " + json.dumps(g) for g in genes)
        return "{\n" + "\n".join(head) + '\n  "genes": [\n' + body + "\n  ]\n}"

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<organism>") -> Organism:
        """Inverse of :meth:`to_dict`. A ``value`` edited by hand (so that it no longer matches its
        ``chromosome``), or a gene with no ``chromosome``, is re-encoded to the nearest bit pattern."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{source}: not a {FORMAT} file")
        if data.get("feature_version") != FEATURE_VERSION:
            raise ValueError(f"{source}: made for feature version {data.get('feature_version')}, "
                             f"this is {FEATURE_VERSION}")
        items = data.get("genes")
        if not isinstance(items, list):
            raise ValueError(f"{source}: 'genes' must be a list")
        try:
            genome = Genome.from_list(items, str(data.get("encoding", "binary")))
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{source}: {exc}") from exc
        bits = np.zeros(genome.total_bits, dtype=np.uint8)
        for j, (g, item) in enumerate(zip(genome.genes, items, strict=True)):
            start = int(genome.offsets[j])
            chrom = item.get("chromosome")
            value = item.get("value")
            if chrom is not None:
                if not isinstance(chrom, str) or len(chrom) != g.bits or set(chrom) - {"0", "1"}:
                    raise ValueError(f"{source}: gene {g.name}: chromosome must be {g.bits} 0/1 characters")
                gene_bits = np.array([int(c) for c in chrom], dtype=np.uint8)
                probe = np.zeros((1, genome.total_bits), dtype=np.uint8)
                probe[0, start:start + g.bits] = gene_bits
                decoded = genome.decode(probe)[0, j]
                if value is None or abs(float(value) - decoded) <= genome.scale[j] / 2:
                    bits[start:start + g.bits] = gene_bits
                    continue
            if not isinstance(value, int | float):
                raise ValueError(f"{source}: gene {g.name} has neither chromosome nor numeric value")
            one = genome.low.copy()
            one[j] = float(value)
            bits[start:start + g.bits] = genome.encode(one)[start:start + g.bits]
        meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
        return cls(genome, bits, meta)

    @classmethod
    def from_json(cls, text: str, source: str = "<organism>") -> Organism:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}:{exc.lineno}: {exc.msg}") from exc
        return cls.from_dict(data, source)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Organism:
        return cls.from_json(Path(path).read_text(encoding="utf-8"), str(path))

    def values(self) -> dict[str, float]:
        """Decoded gene values by name."""
        return dict(zip(self.genome.names, self.weights.tolist(), strict=True))
