"""An organism's genes folded into what every export format writes: material, middle-game and endgame
piece-square tables over all 64 squares, the positional terms' weights per phase, the tempo, and the notes (units,
point of view, square order, phase, the evaluation's formula) that a reader needs to re-implement the evaluation.

Everything is from White's point of view and in centipawns, exactly the float64 values mimic's evaluation uses
(:class:`organisms.Organism`): the material genes (pawn to queen; the king has none), each piece-square gene of the
``rich`` layout on its square and on its file mirror (the layout folds files a-d onto h-e), each term's gene with
its sign (a penalty subtracts). A ``paper`` organism has no piece-square genes: its tables are zeros.

Two layouts of the tables (:data:`TABLE_LAYOUTS`): ``mimic`` (squares a1 = 0 .. h8 = 63, the exact float64 values)
and ``pesto`` (PeSTO's names and order, a8 = 0 .. h1 = 63, material and tables rounded to whole centipawns, half to
even, for PeSTO-style integer code).
"""

from __future__ import annotations

from dataclasses import dataclass

from organisms import Organism
from organisms.features import ALL, EG, FEATURE_SPEC, MG, N_FEATURES, PST_EG_SHIFT, PST_MG_COLUMN, TERM_NAMES
from organisms.terms import PHASE_MAX

TABLE_LAYOUTS = ("mimic", "pesto")
"""How the tables are laid out: ``mimic`` (a1 = 0, exact values) or ``pesto`` (PeSTO's a8 = 0, whole centipawns)."""
PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")
MATERIAL = TERM_NAMES[:5]
"""The material genes, pawn to queen: the first five terms (the king has no material value)."""
TERMS = TERM_NAMES[5:]
"""The positional terms, in the order the evaluation sums them (after the material counts)."""
PHASE_WEIGHTS = {"knight": 1, "bishop": 1, "rook": 2, "queen": 4}

TERM_DEFINITIONS: dict[str, str] = {
    "knight_mobility": "squares the side's knights attack that hold none of its pieces and no enemy pawn attacks",
    "bishop_mobility": "the same for its bishops (diagonals, stopped by any piece)",
    "rook_mobility": "the same for its rooks (ranks and files, stopped by any piece)",
    "queen_mobility": "the same for its queens",
    "knight_center": "its knights' centrality: 3 on d4-e5, 2 on the ring c3-f6 around them, 1 on the next ring, 0 on "
                     "the edge",
    "bishop_center": "the same for its bishops",
    "king_center": "its king's centrality (the same rings)",
    "doubled_pawn": "its pawns with one of its pawns behind them on the same file",
    "isolated_pawn": "its pawns with none of its pawns on a neighbouring file",
    "backward_pawn": "its pawns whose stop square an enemy pawn attacks and none of its pawns can ever defend",
    **{f"passed_pawn_rank{r}": f"its passed pawns (no enemy pawn in front on the same or a neighbouring file) on "
                               f"rank {r} (its own side's view)" for r in range(2, 8)},
    "connected_pawn": "its pawns defended by one of its pawns or beside one on the same rank",
    "king_shield": "its pawns one or two ranks in front of its king, on the king's file or a neighbouring one",
    "king_open_file": "files (the king's and its neighbours) with none of its pawns",
    "king_attack": "squares of the enemy king's zone (its square and neighbours) attacked, counted per knight, "
                   "bishop, rook and queen",
    "king_tropism": "7 minus the distance (king steps) to the enemy king, summed over its knights to queens",
    "rook_open_file": "its rooks on a file without pawns",
    "rook_half_open_file": "its rooks on a file with enemy pawns but none of its own",
    "rook_seventh": "its rooks on the seventh rank (its own side's view)",
    "bishop_pair": "1 when it has two bishops or more",
    "knight_outpost": "its knights on ranks 4-6 (its view) that one of its pawns defends and no enemy pawn can ever "
                      "attack",
}
"""What each positional term counts for one side (organisms/terms.py is the definition; Black's is counted on the
board flipped vertically, from its own side)."""


@dataclass(frozen=True)
class Weight:
    """A weight as the evaluation uses it: ``sign`` times the gene ``gene`` (``None``: no gene, zero)."""

    gene: str | None
    sign: int = 1


@dataclass(frozen=True)
class OrganismTables:
    """An organism's evaluation as tables and constants (module docstring), centipawns, White's point of view."""

    source: str
    sha256: str
    genome: str
    encoding: str
    genes: dict[str, float]
    """Every gene's decoded value by name (the organism file's ``value``), centipawns per unit of its feature."""
    term_mg: tuple[Weight, ...]
    """Per positional term (:data:`TERMS`), its middle-game weight: cp per unit of White's count minus Black's."""
    term_eg: tuple[Weight, ...]
    psq_mg: tuple[tuple[float, ...], ...]
    """[piece pawn..king][square a1 = 0 .. h8 = 63]: the middle-game offset added to the piece's material value."""
    psq_eg: tuple[tuple[float, ...], ...]

    def value(self, w: Weight) -> float:
        """The weight's centipawns (0.0 without a gene)."""
        return 0.0 if w.gene is None else w.sign * self.genes[w.gene]

    def material(self) -> tuple[float, ...]:
        """The material values, pawn to king (the king 0.0), in both phases: cp per piece."""
        return (*(self.genes[g] for g in MATERIAL), 0.0)

    @property
    def tempo(self) -> float:
        """Centipawns for the side to move, added after the score is turned to its view."""
        return self.genes["tempo"]


def scalar_genes(t: OrganismTables) -> list[str]:
    """The genes that are constants, not table entries, in the organism's gene order: material, the positional
    terms' genes, tempo (the ``rich`` layout's piece-square genes are the tables')."""
    return [g for g in t.genes if not g.startswith("pst_")]


def organism_tables(organism: Organism, source: str, sha256: str) -> OrganismTables:
    """The tables of ``organism`` (read from ``source``, whose bytes hash to ``sha256``)."""
    genes = organism.values()
    mg: list[Weight | None] = [None] * len(TERM_NAMES)
    eg: list[Weight | None] = [None] * len(TERM_NAMES)
    for name, (term, taper, sign) in zip(organism.genome.names[:N_FEATURES], FEATURE_SPEC, strict=True):
        if term < 0:
            continue  # tempo
        if taper in (ALL, MG):
            mg[term] = Weight(name, sign)
        if taper in (ALL, EG):
            eg[term] = Weight(name, sign)
    pst = organism.weights[N_FEATURES:].tolist()
    tables: list[list[list[float]]] = [[[0.0] * 64 for _ in PIECES] for _ in range(2)]
    if pst:
        for piece in range(6):
            for square in range(64):
                col = PST_MG_COLUMN[piece][square]
                if col >= 0:
                    tables[0][piece][square] = pst[col]
                    tables[1][piece][square] = pst[col + PST_EG_SHIFT[piece]]
    return OrganismTables(source, sha256, organism.layout, organism.genome.encoding, genes,
                          tuple(w or Weight(None) for w in mg[5:]), tuple(w or Weight(None) for w in eg[5:]),
                          tuple(map(tuple, tables[0])), tuple(map(tuple, tables[1])))


def pesto_order(table: tuple[float, ...]) -> list[float]:
    """A 64-square table (a1 = 0) in PeSTO's order (a8 = 0, h8 = 7, a1 = 56): entry ``i`` is square ``i ^ 56``."""
    return [table[i ^ 56] for i in range(64)]


def whole(x: float) -> int:
    """Centipawns rounded to a whole number, half to even (the pesto layout's values)."""
    return round(x)


def notes(t: OrganismTables, layout: str) -> dict[str, str]:
    """What a reader needs besides the numbers, one paragraph each: source, units, point of view, squares, phase, term
    counts, evaluation."""
    pesto = layout == "pesto"
    squares = ("PeSTO's order: index 0 = a8, 1 = b8, ..., 7 = h8, 8 = a7, ..., 56 = a1, ..., 63 = h1 (each table "
               "is listed rank 8 first, as PeSTO prints it). A White piece on square i reads table[i]; a Black piece "
               "on square i reads table[i ^ 56], its square seen from Black's side."
               if pesto else
               "index = 8 * rank + file, both from 0: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (each table "
               "is listed rank 1 first, so it reads upside down against a diagram). A White piece on square s reads "
               "table[s]; a Black piece on square s reads table[s ^ 56], its square seen from Black's side.")
    formula = ("mg[side] = sum over the side's pieces of mg_value[p] + mg_table[p][square] (eg likewise); score = "
               "((mg[us] - mg[them]) * mg_phase + (eg[us] - eg[them]) * (24 - mg_phase)) / 24 with mg_phase = "
               "min(phase, 24) and integer division (truncated towards zero): PeSTO's evaluation, centipawns from "
               "the side to move's view. The organism's positional terms and tempo are not part of it; they are "
               "given as exact constants, each multiplying White's count of its term minus Black's (the mimic "
               "layout's formula adds them)." if pesto else
               "psq = the sum over the pieces on the board (White's pawns, knights, ..., king, then Black's, each "
               "by ascending square) of psq_mg[p][s] * phase + psq_eg[p][s] * (24 - phase), negated for Black's "
               "pieces (s as above); d = White's count minus Black's of each term: the pawn, knight, bishop, rook "
               "and queen counts (weighted by the material values), then the positional terms in the order "
               "listed; mg_sum = the sum of MG[t] * d[t] and eg_sum of EG[t] * d[t] over the terms in that order; "
               "v = psq / 24 + (mg_sum * (phase / 24) + eg_sum * (1 - phase / 24)) (White's view); score = "
               "floor((v if White is to move, else -v) + TEMPO + 0.5), centipawns from the side to move's view. "
               "This is mimic's Organism.evaluate step for step, in float64: an implementation in float64 in this "
               "order returns its centipawns exactly.")
    return {
        "source": f"{t.source} (SHA-256 {t.sha256}), a mimic organism of the {t.genome} genome layout "
                  f"({len(t.genes)} genes, {t.encoding} encoding)",
        "units": "centipawns. " + ("Material and tables are the organism's genes rounded to whole centipawns "
                                   "(half to even) for integer code; every other constant is exact." if pesto else
                                   "Every value is the organism's decoded gene, exact (float64, printed to round "
                                   "trip)."),
        "point_of_view": "every table and constant is from White's point of view: a White piece adds its values, a "
                         "Black piece subtracts those of its square seen from Black's side; the score is then "
                         "turned to the side to move's view (negated when Black is to move)"
                         + (" by PeSTO's evaluation, which has no tempo." if pesto else
                            " and the tempo added, as mimic's Organism.evaluate returns it."),
        "squares": squares,
        "phase": f"phase = min({PHASE_MAX}, knights + bishops + 2 * rooks + 4 * queens), both colours' pieces "
                 f"counted ({PHASE_MAX} in the opening, 0 with kings and pawns only); a middle-game (mg) value "
                 f"counts phase / {PHASE_MAX} of itself, an endgame (eg) value ({PHASE_MAX} - phase) / {PHASE_MAX}.",
        "term_counts": "each positional term is a count for one side (definitions beside the names; organisms/terms.py "
                 "is the reference), Black's counted on the board flipped vertically, from its own side; its MG "
                 "and EG weights multiply White's count minus Black's. A penalty's weight is its gene negated.",
        "evaluation": formula,
    }
