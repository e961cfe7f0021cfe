"""PeSTO-layout piece-square tables projected onto a genome's material and piece-square genes (``--init`` of
``mimic evolve`` and ``mimic fit``), and how far the projection lies from the tables.

**The tables** (:class:`Tables`): per piece (pawn, knight, bishop, rook, queen, king) a middle-game and an
endgame material value and 64-entry table, centipawns for a White piece (Black's pieces read the vertically
flipped square and count against White), the middle-game and endgame sums tapered by PeSTO's phase (knight and
bishop 1, rook 2, queen 4, out of 24), which is the rich layout's φ (:mod:`organisms.features`). The squares are
listed in ``square_order`` ``a8`` (PeSTO's own arrays as printed: index 0 is a8, 7 is h8, 56 is a1) or ``a1``
(index 0 is a1, 7 is h1, 63 is h8: python-chess's square numbers). A pawn's entries on ranks 1 and 8 are never
used (no pawn stands there) and are ignored.

**The genes** a piece on a square is worth in the rich layout: its material gene (untapered; the king has none)
plus its square's piece-square gene of the phase, the square's file mirrored onto files a-d (a<->h, b<->g, c<->f,
d<->e). So the given value ``T(phase, s) = value + table[s]`` becomes ``m + o(phase, fold(s))``:

* each piece-square gene's least-squares value is the mean of its two squares (a square and its mirror) minus the
  piece's level ``m``, clipped to the gene's range;
* ``m`` (the material gene) is the level minimising the squared distance left by that clipping (a convex function
  of ``m``, its minimisers found by bisection), and among equally near levels the one nearest the mean of the
  piece's given values over both phases (so that, when nothing is clipped, the piece-square genes have the
  smallest offsets and the material gene holds the tables' level); then clipped to the material gene's range;
* the king's level is free in each phase: each side has one king, so a constant added to the king's middle-game
  (or endgame) table changes no evaluation. It is chosen as above, per phase, and dropped.

The result is the nearest genes to the tables in the least-squares sense over squares (each square and phase
weighted alike), exactly when no gene is clipped. :func:`distances` measures how far an organism's values lie
from the tables, per piece and phase (centipawns, RMS and largest, the king up to its free level).

May import: chess, numpy, ``organisms.features``, ``organisms.genome``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import chess
import numpy as np

from organisms.features import PST_PIECES, PST_RANKS
from organisms.genome import MATERIAL_GENES, Genome

SQUARE_ORDERS = ("a8", "a1")
"""How a table lists its 64 squares: ``a8`` (PeSTO's printed order: a8..h8, a7..h7, ..., a1..h1) or ``a1``
(a1..h1, ..., a8..h8, python-chess's square numbers). Both are White's view."""
PHASES = ("mg", "eg")
KING = PST_PIECES.index("king")


@dataclass(frozen=True)
class Tables:
    """Given piece-square values: ``values[phase, piece, square]`` = material + table (cp, a White piece on
    python-chess square ``square``, phase 0 middle game, 1 endgame, pieces in :data:`PST_PIECES` order)."""

    values: np.ndarray  # (2, 6, 64) float64

    @classmethod
    def from_lists(cls, mg_value: Sequence[float], eg_value: Sequence[float], mg_table: Sequence[Sequence[float]],
                   eg_table: Sequence[Sequence[float]], order: str = "a8") -> Tables:
        """From six material values per phase and six 64-entry tables per phase (:data:`PST_PIECES` order, squares
        in ``order``, :data:`SQUARE_ORDERS`)."""
        if order not in SQUARE_ORDERS:
            raise ValueError(f"square order must be one of {', '.join(SQUARE_ORDERS)}, got {order!r}")
        index = np.arange(64) ^ 56 if order == "a8" else np.arange(64)  # the list's entry of python-chess square s
        out = np.empty((2, len(PST_PIECES), 64))
        for ph, (value, table) in enumerate(((mg_value, mg_table), (eg_value, eg_table))):
            for k in range(len(PST_PIECES)):
                out[ph, k] = float(value[k]) + np.asarray(table[k], dtype=np.float64)[index]
        return cls(out)


def _cells(piece: int) -> list[tuple[int, int, int]]:
    """The piece's piece-square cells, own view: (gene square a-d, square, its mirror) for each rank it has."""
    return [(r * 8 + f, r * 8 + f, r * 8 + 7 - f) for r in PST_RANKS[piece] for f in range(4)]


def gene_name(piece: int, square: int, phase: str) -> str:
    """The piece-square gene of a piece (index into :data:`PST_PIECES`) on a square of files a-d, in a phase."""
    return f"pst_{PST_PIECES[piece]}_{chess.square_name(square)}_{phase}"


def _level(f: np.ndarray, lo: np.ndarray, hi: np.ndarray, target: float, low: float, high: float) -> float:
    """The level ``m`` (cp) within [``low``, ``high``] minimising ``Σ (excess of f − m beyond [lo, hi])²`` over
    the cells, the nearest to ``target`` among the minimisers. ``h(m)`` below (minus half the derivative) is
    nonincreasing in ``m``, so its zero set, the minimisers, is found by bisection from both sides."""

    def h(m: float) -> float:
        d = f - m
        return float(np.sum(d - np.clip(d, lo, hi)))

    left, right = float(np.min(f - hi)) - 1.0, float(np.max(f - lo)) + 1.0  # h > 0 at left, h < 0 at right

    def bisect(nonpositive: bool) -> float:
        """The smallest m with h(m) <= 0 (``nonpositive``), else the largest m with h(m) >= 0."""
        a, b = left, right
        for _ in range(200):
            mid = (a + b) / 2
            if mid in (a, b):
                break
            value = h(mid)
            if value < 0 or (nonpositive and value == 0):
                b = mid
            else:
                a = mid
        return b if nonpositive else a

    first, last = bisect(True), bisect(False)  # the smallest m with h <= 0, the largest with h >= 0
    first, last = min(max(first, low), high), min(max(last, low), high)
    return min(max(target, first), last)


@dataclass(frozen=True)
class Projection:
    """The genes nearest to :class:`Tables`: ``values`` by gene name (the material genes pawn to queen and every
    piece-square gene), ``clipped`` the piece-square genes whose least-squares value lay beyond their range, with
    that value (cp)."""

    values: dict[str, float]
    clipped: tuple[tuple[str, float], ...]


def pst_gene_names() -> tuple[str, ...]:
    """Every gene a projection sets: the material genes (pawn to queen) and the piece-square genes."""
    return (*MATERIAL_GENES, *(gene_name(k, g, ph) for k in range(len(PST_PIECES)) for ph in PHASES
                               for g, _, _ in _cells(k)))


def project(tables: Tables, genome: Genome) -> Projection:
    """The genes of ``genome`` nearest to ``tables`` (see the module docstring); ``genome`` must hold every gene of
    :func:`pst_gene_names` (``KeyError`` names the first it lacks)."""
    where = {n: j for j, n in enumerate(genome.names)}
    values: dict[str, float] = {}
    clipped: list[tuple[str, float]] = []
    for k in range(len(PST_PIECES)):
        cells = _cells(k)
        names = [[gene_name(k, g, ph) for g, _, _ in cells] for ph in PHASES]
        cols = np.array([[where[n] for n in row] for row in names])  # (2, cells)
        folded = np.array([[(tables.values[ph, k, s] + tables.values[ph, k, t]) / 2 for _, s, t in cells]
                           for ph in range(2)])
        lo, hi = genome.low[cols], genome.high[cols]
        if k == KING:  # a free level per phase (it cancels), dropped
            levels = [_level(folded[ph], lo[ph], hi[ph], float(folded[ph].mean()), -math.inf, math.inf)
                      for ph in range(2)]
        else:
            j = where[MATERIAL_GENES[k]]
            m = _level(folded.ravel(), lo.ravel(), hi.ravel(), float(folded.mean()), float(genome.low[j]),
                       float(genome.high[j]))
            values[MATERIAL_GENES[k]] = m
            levels = [m, m]
        for ph in range(2):
            raw = folded[ph] - levels[ph]
            kept = np.clip(raw, lo[ph], hi[ph])
            for name, r, v in zip(names[ph], raw, kept, strict=True):
                values[name] = float(v)
                if r != v:
                    clipped.append((name, float(r)))
    return Projection(values, tuple(clipped))


@dataclass(frozen=True)
class Distance:
    """How far an organism's values for one piece and phase lie from the given tables: RMS and largest absolute
    difference over the squares the piece can stand on (cp), and the square of the largest (White's view)."""

    piece: str
    phase: str
    rms: float
    largest: float
    square: str


def distances(tables: Tables, values: Mapping[str, float]) -> list[Distance]:
    """Per piece and phase, the distance between ``values`` (gene values by name: material and piece-square) read as
    a White piece's value on each square (material + the mirrored square's gene) and the given ``tables``. The
    king's level is free (see the module docstring): its difference is measured after taking out its mean."""
    out = []
    for k, piece in enumerate(PST_PIECES):
        squares = [s for _, a, b in _cells(k) for s in (a, b)]
        for ph, phase in enumerate(PHASES):
            level = values.get(MATERIAL_GENES[k], 0.0) if k != KING else 0.0
            mine = np.array([level + values[gene_name(k, chess.square_rank(s) * 8 + min(chess.square_file(s),
                                                                                     7 - chess.square_file(s)),
                                                            phase)] for s in squares])
            diff = mine - tables.values[ph, k, squares]
            if k == KING:
                diff = diff - diff.mean()
            worst = int(np.argmax(np.abs(diff)))
            out.append(Distance(piece, phase, float(np.sqrt(np.mean(diff * diff))), float(abs(diff[worst])),
                                chess.square_name(squares[worst])))
    return out
