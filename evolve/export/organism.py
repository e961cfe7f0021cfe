"""An organism's genes folded into what every export format writes: material, middle-game and endgame
piece-square tables over all 64 squares, the positional terms' weights per phase, the tempo, a user layout's own
terms' weights, and the notes (units, point of view, square order, phase, the evaluation's formula) that a reader
needs to re-implement the evaluation.

Genes are read **by name**, for every layout: ``pawn`` is the pawn's material value, ``knight_mobility_mg`` the
middle-game weight of knight mobility, ``pst_knight_c3_mg`` the knight's middle-game offset on c3 and its file mirror
f3 (the rich layout folds files a-d onto h-e), a user term's ``NAME``, ``NAME_mg`` or ``NAME_eg`` its weight in both
phases, the middle game or the endgame. A built-in feature a layout leaves out weighs 0, as in mimic's evaluation:
a material value, a table entry or the tempo without a gene is 0.0, a phase of a positional term without a gene
weighs 0.0, and a positional term with no gene at all is left out of the list (and of the evaluation's inputs). A
``paper`` organism has no piece-square genes: its tables are zeros.

Everything is from White's point of view and in centipawns, exactly the float64 values mimic's evaluation uses
(:class:`organisms.Organism`): each term's gene with its sign (a penalty subtracts), a user term's too.

Two layouts of the tables (:data:`TABLE_LAYOUTS`): ``mimic`` (squares a1 = 0 .. h8 = 63, the exact float64 values)
and ``pesto`` (PeSTO's names and order, a8 = 0 .. h1 = 63, material and tables rounded to whole centipawns, half to
even, for PeSTO-style integer code).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from organisms import Organism
from organisms.features import (
    ALL,
    EG,
    FEATURE_NAMES,
    FEATURE_SPEC,
    MG,
    PST_EG_SHIFT,
    PST_FEATURE_NAMES,
    PST_MG_COLUMN,
    RICH_FEATURE_NAMES,
    TERM_NAMES,
)
from organisms.terms import PHASE_MAX
from organisms.userlayout import UserLayout, function_name, load_checked
from organisms.userterms import Term
from search.runtime.errors import SettingsError

TABLE_LAYOUTS = ("mimic", "pesto")
"""How the tables are laid out: ``mimic`` (a1 = 0, exact values) or ``pesto`` (PeSTO's a8 = 0, whole centipawns)."""
PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")
MATERIAL = TERM_NAMES[:5]
"""The material genes, pawn to queen: the first five terms (the king has no material value)."""
TERMS = TERM_NAMES[5:]
"""mimic's positional terms, in the order the evaluation sums them (after the material counts)."""
PHASE_WEIGHTS = {"knight": 1, "bishop": 1, "rook": 2, "queen": 4}
_PST = frozenset(PST_FEATURE_NAMES)

DOC_CHARS = 300
"""At most this many characters of a user term's docstring are quoted as its definition."""


@dataclass(frozen=True)
class Weight:
    """A weight as the evaluation uses it: ``sign`` times the gene ``gene`` (``None``: no gene, zero); ``user``: the
    gene is one of a user term's (the formats name its constant apart from mimic's own)."""

    gene: str | None
    sign: int = 1
    user: bool = False


NONE = Weight(None)
"""No gene: a weight of 0.0."""


@dataclass(frozen=True)
class UserTerm:
    """One term of a user's layout as the export writes it: its weights per phase (centipawns per unit of White's
    count minus Black's, White's view: the gene times the term's sign, as ``Organism.evaluate`` applies them; a term
    tapered ``all`` has one gene for both phases, ``mg`` or ``eg`` none for the other), its taper and sign, and
    ``counts``: what counts it (the term file's functions and the first paragraph of the ``board`` function's
    docstring, else the ``batch`` one's)."""

    name: str
    mg: Weight
    eg: Weight
    taper: str
    sign: int
    counts: str


@dataclass(frozen=True)
class UserPart:
    """A user layout's part of an organism: the layout's ``source`` (the term file's absolute path, ``:NAME`` when
    not ``LAYOUT``, or ``MODULE:NAME``), the SHA-256 of that file's bytes as the organism file records it, the
    layout's one-line description, how many of mimic's features it has, and its terms in the evaluation's order."""

    source: str
    sha256: str
    description: str
    builtins: int
    terms: tuple[UserTerm, ...]


@dataclass(frozen=True)
class OrganismTables:
    """An organism's evaluation as tables and constants (module docstring), centipawns, White's point of view."""

    source: str
    sha256: str
    genome: str
    encoding: str
    genes: dict[str, float]
    """Every gene's decoded value by name (the organism file's ``value``), centipawns per unit of its feature."""
    terms: tuple[str, ...]
    """mimic's positional terms the layout has a gene of (all 26 for paper and rich), in the evaluation's order."""
    term_mg: tuple[Weight, ...]
    """Per term of :attr:`terms`, its middle-game weight: cp per unit of White's count minus Black's."""
    term_eg: tuple[Weight, ...]
    material_weights: tuple[Weight, ...]
    """Pawn to queen: cp per piece in both phases (no gene: 0.0)."""
    tempo_weight: Weight
    psq_mg: tuple[tuple[float, ...], ...]
    """[piece pawn..king][square a1 = 0 .. h8 = 63]: the middle-game offset added to the piece's material value."""
    psq_eg: tuple[tuple[float, ...], ...]
    user: UserPart | None = None
    """A user layout's own terms (``None`` for paper and rich)."""

    def value(self, w: Weight) -> float:
        """The weight's centipawns (0.0 without a gene)."""
        return 0.0 if w.gene is None else w.sign * self.genes[w.gene]

    def material(self) -> tuple[float, ...]:
        """The material values, pawn to king (the king 0.0), in both phases: cp per piece."""
        return (*(self.value(w) for w in self.material_weights), 0.0)

    @property
    def tempo(self) -> float:
        """Centipawns for the side to move, added after the score is turned to its view (0.0 without a gene)."""
        return self.value(self.tempo_weight)

    @property
    def user_genes(self) -> tuple[str, ...]:
        """The genes of the user's terms, in the organism's gene order (none for paper and rich)."""
        if self.user is None:
            return ()
        return tuple(g for g in self.genes if g not in _BUILTIN)


_BUILTIN = frozenset(RICH_FEATURE_NAMES)


def scalar_genes(t: OrganismTables) -> list[str]:
    """mimic's own genes that are constants, not table entries, in the organism's gene order: material, the
    positional terms' genes, tempo (the piece-square genes are the tables'; a user term's genes are
    :attr:`OrganismTables.user_genes`)."""
    return [g for g in t.genes if g in _BUILTIN and g not in _PST]


def _definition(term: Term) -> str:
    """What counts a user term: its functions (``name(board)``, ``name(rows)``) and the first paragraph of the
    docstring of the first with one, on one line, at most :data:`DOC_CHARS` characters."""
    forms = [(f, arg) for f, arg in ((term.board, "board"), (term.batch, "rows")) if f is not None]
    names = ", ".join(f"{function_name(f)}({arg})" for f, arg in forms)  # an identifier or <lambda>: checked
    doc = next((d for f, _ in forms if inspect.isfunction(f) and (d := inspect.getdoc(f))), None)
    if not doc:
        return f"{names} (no docstring)"
    text = " ".join(doc.split("\n\n", 1)[0].split())
    return f"{names}: {text if len(text) <= DOC_CHARS else text[:DOC_CHARS - 3] + '...'}"


def _user_part(layout: UserLayout) -> UserPart:
    terms = []
    for group in layout.groups:
        term = group.term
        mg = eg = NONE
        for column, taper in zip(group.columns, group.tapers, strict=True):
            weight = Weight(layout.names[column], term.sign, user=True)
            if taper in (ALL, MG):
                mg = weight
            if taper in (ALL, EG):
                eg = weight
        terms.append(UserTerm(term.name, mg, eg, term.taper, term.sign, _definition(term)))
    return UserPart(layout.source, layout.sha256, layout.description, len(layout.builtin), tuple(terms))


def organism_tables(organism: Organism, source: str, sha256: str) -> OrganismTables:
    """The tables of ``organism`` (read from ``source``, whose bytes hash to ``sha256``), its genes read by name."""
    genes = organism.values()
    mg: dict[int, Weight] = {}
    eg: dict[int, Weight] = {}
    for name, (term, taper, sign) in zip(FEATURE_NAMES, FEATURE_SPEC, strict=True):
        if term < 0 or name not in genes:
            continue  # tempo, or a feature the layout leaves out
        if taper in (ALL, MG):
            mg[term] = Weight(name, sign)
        if taper in (ALL, EG):
            eg[term] = Weight(name, sign)
    present = [i for i in range(len(MATERIAL), len(TERM_NAMES)) if i in mg or i in eg]
    tables: list[list[list[float]]] = [[[0.0] * 64 for _ in PIECES] for _ in range(2)]
    for piece in range(len(PIECES)):
        for square in range(64):
            col = PST_MG_COLUMN[piece][square]
            if col >= 0:
                tables[0][piece][square] = genes.get(PST_FEATURE_NAMES[col], 0.0)
                tables[1][piece][square] = genes.get(PST_FEATURE_NAMES[col + PST_EG_SHIFT[piece]], 0.0)
    ref = organism.genome.layout
    user = _user_part(load_checked(ref.source, ref.sha256)) if ref is not None else None
    return OrganismTables(source, sha256, organism.layout, organism.genome.encoding, genes,
                          tuple(TERM_NAMES[i] for i in present), tuple(mg.get(i, NONE) for i in present),
                          tuple(eg.get(i, NONE) for i in present), tuple(mg.get(i, NONE) for i in range(5)),
                          Weight("tempo") if "tempo" in genes else NONE,
                          tuple(map(tuple, tables[0])), tuple(map(tuple, tables[1])), user)


def identifiers(t: OrganismTables, fmt: str, prefix: str, taken: tuple[str, ...]) -> dict[str, str]:
    """The constant of each user gene in format ``fmt``: ``prefix`` and the gene's name in capitals. A
    :class:`SettingsError` (one line) for a name that is not ASCII (C and Rust identifiers are written from it) or
    whose constant would be another's or one of ``taken`` (the format's own names); JSON has no such limit."""
    out: dict[str, str] = {}
    seen = {name: "the export's own" for name in taken}
    for gene in t.user_genes:
        name = prefix + gene.upper()
        if not gene.isascii():
            raise SettingsError(f"--format {fmt}: the user term gene {gene!r} is not ASCII, and {fmt} constants are "
                                "written from gene names (--format json exports it)")
        if name in seen:
            raise SettingsError(f"--format {fmt}: the user term gene {gene!r} would be the constant {name}, which is "
                                f"{seen[name]} (--format json exports it)")
        seen[name] = f"gene {gene!r}'s"
        out[gene] = name
    return out


def pesto_order(table: tuple[float, ...]) -> list[float]:
    """A 64-square table (a1 = 0) in PeSTO's order (a8 = 0, h8 = 7, a1 = 56): entry ``i`` is square ``i ^ 56``."""
    return [table[i ^ 56] for i in range(64)]


def whole(x: float) -> int:
    """Centipawns rounded to a whole number, half to even (the pesto layout's values)."""
    return round(x)


def _source_note(t: OrganismTables) -> str:
    if t.user is None:
        return (f"{t.source} (SHA-256 {t.sha256}), a mimic organism of the {t.genome} genome layout "
                f"({len(t.genes)} genes, {t.encoding} encoding)")
    u = t.user
    return (f"{t.source} (SHA-256 {t.sha256}), a mimic organism of the user's genome layout {u.source} (a term file, "
            f"SHA-256 {u.sha256}{'; ' + u.description if u.description else ''}): {len(t.genes)} genes, "
            f"{u.builtins} of mimic's own features and {_count(len(t.user_genes), 'gene')} of "
            f"{_count(len(u.terms), 'user term')}; {t.encoding} encoding")


def _count(n: int, noun: str) -> str:
    """``1 gene``, ``3 genes``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _user_notes(t: OrganismTables) -> dict[str, str]:
    """The notes of a user layout (none for paper and rich): which of mimic's features it has, and its terms."""
    u = t.user
    if u is None:
        return {}
    material = sum(1 for w in t.material_weights if w.gene is not None)
    pst = sum(1 for g in t.genes if g in _PST)
    mimic = (f"the layout has {u.builtins} of mimic's {len(RICH_FEATURE_NAMES)} features: {material} of the "
             f"{len(MATERIAL)} material values, {len(t.terms)} of the {len(TERMS)} positional terms, {pst} of the "
             f"{len(PST_FEATURE_NAMES)} piece-square genes, {'the' if t.tempo_weight.gene else 'no'} tempo. A "
             "feature it leaves out weighs 0, as in mimic's evaluation: a material value, a table entry or the tempo "
             "without a gene is 0, a phase of a positional term without a gene weighs 0, and a positional term "
             "without any gene is not listed (nor an input).")
    listed = "; ".join(f"[{k}] {term.name} (taper {term.taper}, {'a bonus' if term.sign > 0 else 'a penalty'}), "
                       f"counted by {term.counts.rstrip('.')}" for k, term in enumerate(u.terms))
    counts = (f"the user terms are counted by the term file {u.source} (SHA-256 {u.sha256}), whose functions "
              f"return each side's count, (White's, Black's). In the order the evaluation sums them (index k from "
              f"0): {listed or 'none'}. Each term's MG and EG weights (its gene times its sign: a penalty's is "
              "negated; a term tapered all has one gene for both phases, mg or eg none for the other phase, 0) "
              "multiply White's count minus Black's, a float64 (a count may be any finite number).")
    return {"mimic_features": mimic, "user_term_counts": counts}


def notes(t: OrganismTables, layout: str) -> dict[str, str]:
    """What a reader needs besides the numbers, one paragraph each: source, units, point of view, squares, phase, term
    counts (a user layout: which of mimic's features it has, what its terms count), evaluation."""
    pesto = layout == "pesto"
    user = t.user is not None
    squares = ("PeSTO's order: index 0 = a8, 1 = b8, ..., 7 = h8, 8 = a7, ..., 56 = a1, ..., 63 = h1 (each table "
               "is listed rank 8 first, as PeSTO prints it). A White piece on square i reads table[i]; a Black piece "
               "on square i reads table[i ^ 56], its square seen from Black's side."
               if pesto else
               "index = 8 * rank + file, both from 0: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (each table "
               "is listed rank 1 first, so it reads upside down against a diagram). A White piece on square s reads "
               "table[s]; a Black piece on square s reads table[s ^ 56], its square seen from Black's side.")
    user_sum = ("u = the sum over the user terms, in the order listed, of U[k] * (UMG[k] * (phase / 24) + UEG[k] * "
                "(1 - phase / 24)), U[k] being White's count of user term k minus Black's; v = v + u; "
                if user else "")
    formula = ("mg[side] = sum over the side's pieces of mg_value[p] + mg_table[p][square] (eg likewise); score = "
               "((mg[us] - mg[them]) * mg_phase + (eg[us] - eg[them]) * (24 - mg_phase)) / 24 with mg_phase = "
               "min(phase, 24) and integer division (truncated towards zero): PeSTO's evaluation, centipawns from "
               f"the side to move's view. The organism's positional terms{', its user terms' if user else ''} and "
               "tempo are not part of it; they are given as exact constants, each multiplying White's count of its "
               "term minus Black's (the mimic layout's formula adds them)." if pesto else
               "psq = the sum over the pieces on the board (White's pawns, knights, ..., king, then Black's, each "
               "by ascending square) of psq_mg[p][s] * phase + psq_eg[p][s] * (24 - phase), negated for Black's "
               "pieces (s as above); d = White's count minus Black's of each term: the pawn, knight, bishop, rook "
               "and queen counts (weighted by the material values), then the positional terms in the order "
               "listed; mg_sum = the sum of MG[t] * d[t] and eg_sum of EG[t] * d[t] over the terms in that order; "
               "v = psq / 24 + (mg_sum * (phase / 24) + eg_sum * (1 - phase / 24)) (White's view); " + user_sum +
               "score = floor((v if White is to move, else -v) + TEMPO + 0.5), centipawns from the side to move's "
               "view. This is mimic's Organism.evaluate step for step, in float64: an implementation in float64 in "
               "this order returns its centipawns exactly.")
    term_counts = ("each positional term is a count for one side (definitions beside the names; organisms/terms.py "
                   "is the reference), Black's counted on the board flipped vertically, from its own side; its MG "
                   "and EG weights multiply White's count minus Black's. A penalty's weight is its gene negated."
                   if t.terms else "the layout has none of mimic's positional terms.")
    return {
        "source": _source_note(t),
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
        "term_counts": term_counts,
        **_user_notes(t),
        "evaluation": formula,
    }
