"""The organism: a chromosome decoded into the weights of a linear evaluation.

``Organism.evaluate(board)`` is ``round(weights · features(board))`` in centipawns from the side to
move's view, computed straight from the raw bitboard terms (no feature vector is built). It keeps no
cache of its own: the engine caches every evaluation by position key (``search.Engine``).

An organism has one of two layouts (``organisms.features.LAYOUTS``), told by its genome's gene names:
``paper`` (49 genes) or ``rich`` (those plus 368 signed piece-square genes). A rich organism folds its
piece-square weights, once, into 64-entry middle-game and endgame tables per piece type and colour
(White's view), and its evaluation adds the tables' entries over the set bits of each piece bitboard,
tapered by the phase, to the paper part. Organism files name their layout; a file without one is paper.

A user's layout (``--genome myterms.py``, :mod:`organisms.userlayout`) is named by the genome's
:class:`~organisms.genome.LayoutRef`: its built-in features are evaluated as above (the features it left out
weigh 0) and its own terms are called on the board (:class:`organisms.userfeatures.UserTerms`). Its file records
``layout`` (the term file's absolute path, or ``MODULE:NAME``) and ``layout_sha256`` (of the file's bytes); loading
it takes the recorded file or, failing that, the file of the same name beside the organism file, whichever has the
recorded digest, and refuses the organism when neither has (:mod:`organisms.userfiles`).
Loading such an organism runs that term file: it is Python code, to be trusted as any program is.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import chess
import numpy as np

from organisms.features import (
    FEATURE_VERSION,
    LAYOUTS,
    N_FEATURES,
    PST_EG_SHIFT,
    PST_MG_COLUMN,
    RICH_FEATURE_NAMES,
    feature_names,
    layout_of,
)
from organisms.genome import Genome, LayoutRef, default_genome
from organisms.linear import TermWeights, square_table_sum
from organisms.terms import PHASE_MAX, raw_terms
from organisms.userfeatures import UserTerms
from organisms.userfiles import recorded_layout
from organisms.userlayout import load_checked
from search.base import NativeForm
from search.runtime.atomic import write_atomic
from search.runtime.readback import ReadbackError, number, parse_json, read_text

MAX_FILE_BYTES = 1 << 20
"""Organism files are a few kilobytes; a larger file (1 MiB) is refused rather than read."""
FORMAT = "mimic-organism"
FORMAT_VERSION = 1
READ_VERSIONS = (1,)
"""The organism file versions this mimic reads (it writes :data:`FORMAT_VERSION`); a file of another is refused."""
RANDOM_ENCODING = "binary"
"""How :meth:`Organism.random` reads its random bits when given no genome (kept binary, so that
``random:SEED`` names the same weights it named before Gray codes became the default)."""


class OrganismFileError(ReadbackError):
    """An organism file that is not one (a ``ValueError`` too): one line naming the file and what is wrong."""


class Organism:
    """A chromosome (``bits``, uint8 0/1) read through a ``genome`` into feature weights."""

    name = "organism"

    def __init__(self, genome: Genome | None = None, bits: np.ndarray | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        self.genome = genome or default_genome()
        ref = self.genome.layout
        user = load_checked(ref.source, ref.sha256) if ref is not None else None
        layout = ref.source if ref is not None else layout_of(self.genome.names)
        if layout is None or (user is not None and user.names != self.genome.names):
            raise ValueError("the genome's genes must be the features of a layout "
                             f"({', '.join(LAYOUTS)} or the user's {layout}), in feature_names() order")
        self.layout: str = layout
        """``paper``, ``rich``, or a user layout's source (``genome.layout``)."""
        if bits is None:
            bits = np.zeros(self.genome.total_bits, dtype=np.uint8)
        bits = np.asarray(bits, dtype=np.uint8).reshape(-1)
        if bits.shape != (self.genome.total_bits,) or np.any(bits > 1):
            raise ValueError(f"expected {self.genome.total_bits} bits of 0/1, got shape {bits.shape}")
        self.bits = bits
        self.meta: dict[str, Any] = dict(meta or {})
        self.weights: np.ndarray = self.genome.decode(bits[None, :])[0]
        """Centipawns per unit of each feature, ``feature_names(layout)`` order (the paper's genes are
        non-negative magnitudes, piece-square genes signed offsets)."""
        base = self.weights
        self._user: UserTerms | None = None
        self._needs_terms = True
        if user is not None:  # the built-in features it has, the others at 0; then its own terms
            base = np.zeros(len(RICH_FEATURE_NAMES))
            base[list(user.builtin)] = self.weights[:len(user.builtin)]
            self._user = UserTerms(user, self.weights)
            self._needs_terms = user.needs_terms
        self._linear = TermWeights(base[:N_FEATURES].tolist())
        self._pst = _pst_tables(base[N_FEATURES:]) if layout == "rich" or (user and user.has_pst) else None

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, board: chess.Board) -> int:
        """Centipawns from the side to move's view: ``round(weights · features(board))``."""
        occupied = board.occupied_co
        if self._user is not None:
            return self._evaluate_user(board)
        if self._pst is not None:
            return self._evaluate_rich(board)
        return self.evaluate_terms(*raw_terms(board.pawns, board.knights, board.bishops, board.rooks,
                                              board.queens, board.kings, occupied[chess.WHITE],
                                              occupied[chess.BLACK]), board.turn)

    def evaluate_terms(self, phase: int, terms: list[int], white_to_move: bool) -> int:
        """The evaluation from raw terms (see :func:`organisms.features.raw_terms`), side to move's view."""
        return math.floor(self._linear.side_to_move(phase, terms, white_to_move) + 0.5)

    def _evaluate_rich(self, board: chess.Board) -> int:
        """The rich layout's evaluation: the paper part plus the piece-square tables, side to move's view."""
        assert self._pst is not None
        pieces = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
        white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
        phase, terms = raw_terms(*pieces, white, black)
        v = square_table_sum(self._pst[phase], pieces, white, black) / PHASE_MAX + self._linear.white_view(phase, terms)
        return math.floor((v if board.turn else -v) + self._linear.tempo + 0.5)

    def _evaluate_user(self, board: chess.Board) -> int:
        """A user layout's evaluation: its built-in part (paper terms and tables, as chosen) plus its own terms,
        side to move's view."""
        assert self._user is not None
        pieces = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
        white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
        if self._needs_terms:
            phase, terms = raw_terms(*pieces, white, black)
            v = self._linear.white_view(phase, terms)
        else:
            phase = min((board.knights | board.bishops).bit_count() + 2 * board.rooks.bit_count()
                        + 4 * board.queens.bit_count(), PHASE_MAX)
            v = 0.0
        if self._pst is not None:
            v += square_table_sum(self._pst[phase], pieces, white, black) / PHASE_MAX
        v += self._user.white_view(board, phase)
        return math.floor((v if board.turn else -v) + self._linear.tempo + 0.5)

    def native_form(self) -> NativeForm | None:
        """The compiled core's form of this organism (:class:`search.base.NativeForm`, kind ``paper`` or ``rich``);
        ``None`` for a user's layout, whose own terms only Python evaluates."""
        if self._user is not None:
            return None
        lin = self._linear
        return NativeForm.linear(self.layout, lin.mg, lin.eg, lin.tempo, self._pst)

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
        ref = self.genome.layout
        return {"format": FORMAT, "version": FORMAT_VERSION, "feature_version": FEATURE_VERSION,
                "units": "centipawns per unit of feature; features are side-to-move, oriented non-negative",
                "layout": self.layout, **({"layout_sha256": ref.sha256} if ref is not None else {}),
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
        ``chromosome``), or a gene with no ``chromosome``, is re-encoded to the nearest bit pattern.
        A file without ``layout`` is ``paper`` (it predates the rich layout)."""
        items = _items(data, source)
        layout = data.get("layout", "paper")
        sha = data.get("layout_sha256")
        ref = None
        if layout not in LAYOUTS:
            if not isinstance(layout, str) or not isinstance(sha, str):
                raise OrganismFileError(f"{source}: unknown 'layout' {str(layout)[:40]!r} (one of "
                                        f"{', '.join(LAYOUTS)}, or a user's term file with its 'layout_sha256')")
            user = recorded_layout(layout, sha, source)
            ref, layout, names = user.ref, user.source, user.names
        else:
            names = feature_names(layout)
        genome = _genome(items, data, source, ref)
        if genome.names != names:
            raise OrganismFileError(f"{source}: the genes must be the {layout} layout's features of version "
                             f"{FEATURE_VERSION}, in order ({len(names)} genes from {names[0]!r} to {names[-1]!r})")
        meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
        return cls(genome, _bits(items, genome, source), meta)

    @classmethod
    def from_json(cls, text: str, source: str = "<organism>") -> Organism:
        """An organism from its JSON text (:func:`search.runtime.readback.parse_json`: nesting bounded);
        ``ValueError`` names ``source`` and what is wrong."""
        return cls.from_dict(parse_json(text, source, "the organism file", top=object, error=OrganismFileError),
                             source)

    def save(self, path: str | Path) -> None:
        """Write the organism file whole or not at all (:func:`search.runtime.atomic.write_atomic`: a file
        beside it, fsynced, moved into place; the folder is created). An ``OSError`` names ``path``."""
        try:
            write_atomic(path, self.to_json() + "\n")
        except OSError as exc:  # name the file asked for, not the one beside it
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc

    @classmethod
    def load(cls, path: str | Path) -> Organism:
        """Read an organism file. Only a regular file of at most ``MAX_FILE_BYTES`` is read (a FIFO or
        ``/dev/stdin`` would block); ``ValueError`` names the file and what is wrong with it, and
        ``OSError`` reports a file that cannot be opened."""
        return cls.from_json(read_text(path, MAX_FILE_BYTES, "organism file", error=OrganismFileError), str(path))

    def values(self) -> dict[str, float]:
        """Decoded gene values by name."""
        return dict(zip(self.genome.names, self.weights.tolist(), strict=True))


def _items(data: object, source: str) -> list[dict[str, Any]]:
    """The ``genes`` of an organism file's object, each an object with a name, bits and a range (checked)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise OrganismFileError(f"{source}: not a {FORMAT} file")
    version = data.get("version")
    if type(version) is not int or version not in READ_VERSIONS:
        raise OrganismFileError(f"{source}: a {FORMAT} file of version {str(version)[:40]}; this mimic reads version "
                                f"{', '.join(map(str, READ_VERSIONS))} (a newer mimic's file, or not one mimic wrote)")
    if data.get("feature_version") != FEATURE_VERSION:
        raise OrganismFileError(f"{source}: made for feature version {str(data.get('feature_version'))[:40]}, "
                                f"this is {FEATURE_VERSION}")
    items = data.get("genes")
    if not isinstance(items, list):
        raise OrganismFileError(f"{source}: 'genes' must be a list")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise OrganismFileError(f"{source}: gene {i} must be an object, got {type(item).__name__}")
        missing = [k for k in ("name", "bits", "low", "high") if k not in item]
        if missing:
            raise OrganismFileError(f"{source}: gene {i} lacks {', '.join(missing)}")
    return items


def _genome(items: list[dict[str, Any]], data: dict[str, Any], source: str, ref: LayoutRef | None) -> Genome:
    encoding = data.get("encoding", "binary")
    if not isinstance(encoding, str):
        raise OrganismFileError(f"{source}: 'encoding' must be a string")
    try:
        return Genome.from_list(items, encoding, ref)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise OrganismFileError(f"{source}: {exc}") from exc


def _bits(items: list[dict[str, Any]], genome: Genome, source: str) -> np.ndarray:
    """The chromosome of an organism file's genes: each gene's ``chromosome``, or its ``value`` re-encoded to the
    nearest bit pattern when the two disagree by more than half a step (edited by hand) or there is no chromosome.
    A ``value`` the gene's bits cannot hold (beyond ``[low, high]`` by more than half a step) is refused, not
    clamped: one line naming the file, the gene, the value and the range."""
    bits = np.zeros(genome.total_bits, dtype=np.uint8)
    for j, (g, item) in enumerate(zip(genome.genes, items, strict=True)):
        start = int(genome.offsets[j])
        chrom = item.get("chromosome")
        value = item.get("value")
        if chrom is not None:
            if not isinstance(chrom, str) or len(chrom) != g.bits or set(chrom) - {"0", "1"}:
                raise OrganismFileError(f"{source}: gene {g.name}: chromosome must be {g.bits} 0/1 characters")
            gene_bits = np.array([int(c) for c in chrom], dtype=np.uint8)
            probe = np.zeros((1, genome.total_bits), dtype=np.uint8)
            probe[0, start:start + g.bits] = gene_bits
            decoded = genome.decode(probe)[0, j]
            if value is not None and (not number(value) or not math.isfinite(value)):
                raise OrganismFileError(f"{source}: gene {g.name}: value must be a finite number, got "
                                        f"{repr(value)[:40]}")
            if value is None or abs(float(value) - decoded) <= genome.scale[j] / 2:
                bits[start:start + g.bits] = gene_bits
                continue
        if not number(value) or not math.isfinite(value):
            raise OrganismFileError(f"{source}: gene {g.name} has neither a chromosome nor a finite numeric value")
        if not g.low - genome.scale[j] / 2 <= value <= g.high + genome.scale[j] / 2:
            raise OrganismFileError(f"{source}: gene {g.name} is {value:g}, outside its range [{g.low:g}, {g.high:g}] "
                                    f"(its {g.bits} bits cannot hold it; mimic refuses rather than clamps it)")
        one = genome.low.copy()
        one[j] = float(value)
        bits[start:start + g.bits] = genome.encode(one)[start:start + g.bits]
    return bits


def file_values(data: dict[str, Any], source: str) -> dict[str, float]:
    """An organism file's decoded gene values by name, read as :meth:`Organism.from_dict` reads them but without its
    layout: a user layout's term file is neither looked for nor run (``--init`` needs the values only)."""
    items = _items(data, source)
    genome = _genome(items, data, source, None)
    return dict(zip(genome.names, genome.decode(_bits(items, genome, source)[None, :])[0].tolist(), strict=True))


def _pst_tables(weights: np.ndarray) -> list[list[list[float]]]:
    """Piece-square weights (``PST_FEATURE_NAMES`` order, centipawns) folded into tapered tables:
    ``[phase][piece][square]`` = 24 × (mg · phase + eg · (24 − phase)) / 24, i.e. ``PHASE_MAX`` times the
    tapered value, White's view, indexed by python-chess square; pieces 0–5 are White's pawn to king,
    6–11 Black's (a black piece on ``s`` counts against White on its flipped square ``s ^ 56``)."""
    w = np.asarray(weights, dtype=np.float64)
    mg = np.zeros((12, 64))
    eg = np.zeros((12, 64))
    flipped = np.arange(64) ^ 56
    for piece in range(6):
        cols = np.array(PST_MG_COLUMN[piece])
        has = cols >= 0
        mg[piece, has] = w[cols[has]]
        eg[piece, has] = w[cols[has] + PST_EG_SHIFT[piece]]
        mg[6 + piece] = -mg[piece, flipped]
        eg[6 + piece] = -eg[piece, flipped]
    phases = np.arange(PHASE_MAX + 1, dtype=np.float64)[:, None, None]
    return (mg[None] * phases + eg[None] * (PHASE_MAX - phases)).tolist()
