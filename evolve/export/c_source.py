"""An organism as one C99 file (``mimic export --format c``): every gene a named constant, the tables, and an
evaluation function, compiling cleanly with ``cc -std=c99 -Wall -Wextra -pedantic -Werror`` (no libm needed).

``mimic`` layout: ``mimic_evaluate(board, white_to_move, terms)`` is mimic's ``Organism.evaluate`` step for step in
double precision, given the position and the 26 positional terms' counts (White's minus Black's), so it returns
mimic's centipawns. ``pesto`` layout: PeSTO's names (``mg_value``, ``mg_pawn_table``, ...) in its square order and
whole centipawns, with ``pesto_eval(board, white_to_move)``, PeSTO's own integer evaluation of material and tables.
"""

from __future__ import annotations

from evolve.export.organism import (
    MATERIAL,
    PIECES,
    TERM_DEFINITIONS,
    TERMS,
    OrganismTables,
    Weight,
    notes,
    pesto_order,
    scalar_genes,
    whole,
)
from organisms.terms import PHASE_MAX


def constant(gene: str) -> str:
    """The C name of a gene's constant: ``MIMIC_`` and its name in capitals."""
    return "MIMIC_" + gene.upper()


def _number(x: float, macro: bool = False) -> str:
    """A double literal that reads back to exactly ``x`` (Python's shortest round-trip repr); in a ``macro``,
    bracketed if negative (so that ``-MACRO`` stays one negation)."""
    text = repr(float(x))
    return f"({text})" if macro and text.startswith("-") else text


def _weight(w: Weight) -> str:
    if w.gene is None:
        return "0.0"
    return constant(w.gene) if w.sign > 0 else f"-{constant(w.gene)}"


def _comment(t: OrganismTables, layout: str) -> list[str]:
    lines = ["/*"]
    for key, text in notes(t, layout).items():
        words, line = text.split(), f" * {key.replace('_', ' ').capitalize()}:"
        for word in words:
            if len(line) + 1 + len(word) > 116:
                lines.append(line)
                line = " *  "
            line += " " + word
        lines.append(line)
    return [*lines, " */"]


def _table(name: str, kind: str, rows: list[list[str]], per_line: int = 8, note: str = "") -> list[str]:
    """``const KIND NAME[len(rows)][64]`` (or ``[64]`` for one row), ``per_line`` entries a line."""
    out = []
    for row in rows:
        body = [", ".join(row[i:i + per_line]) for i in range(0, len(row), per_line)]
        out.append("    {\n        " + ",\n        ".join(body) + "\n    }" if len(rows) > 1 else
                   "    " + ",\n    ".join(body))
    dims = f"[{len(rows)}][64]" if len(rows) > 1 else "[64]"
    return [f"const {kind} {name}{dims} = {{{note}", ",\n".join(out), "};"]


def _constants(t: OrganismTables) -> list[str]:
    return ["/* Every gene of the organism but the piece-square ones (those are the tables below): cp per unit. */",
            *(f"#define {constant(gene)} {_number(t.genes[gene], macro=True)}" for gene in scalar_genes(t))]


def _terms(t: OrganismTables) -> list[str]:
    names = [f'    "{n}", /* {TERM_DEFINITIONS[n]} */' for n in TERMS]
    weights = []
    for phase, row in (("mg", t.term_mg), ("eg", t.term_eg)):
        weights += [f"const double mimic_term_{phase}[MIMIC_N_TERMS] = {{",
                    *(f"    {_weight(w)}, /* {n} */" for w, n in zip(row, TERMS, strict=True)), "};"]
    return [f"#define MIMIC_N_TERMS {len(TERMS)}",
            "/* The positional terms, in the order the evaluation sums them: what each counts for one side. */",
            "const char *const mimic_term_names[MIMIC_N_TERMS] = {", *names, "};",
            "/* Their weights, cp per unit of White's count minus Black's, middle game (mg) and endgame (eg). */",
            *weights]


MIMIC_FUNCTIONS = f"""
/* The game phase: min({PHASE_MAX}, knights + bishops + 2 * rooks + 4 * queens) of both colours. */
int mimic_phase(const int board[64])
{{
    static const int weight[7] = {{0, 0, 1, 1, 2, 4, 0}};
    int phase = 0;
    for (int s = 0; s < 64; s++)
        phase += weight[board[s] < 0 ? -board[s] : board[s]];
    return phase < {PHASE_MAX} ? phase : {PHASE_MAX};
}}

static int mimic_floor(double x)
{{
    const int i = (int)x;
    return (double)i > x ? i - 1 : i;
}}

/* Centipawns from the side to move's view, as mimic's Organism.evaluate. board[s], s = a1 0 .. h8 63: 0 empty,
 * 1..6 a White pawn, knight, bishop, rook, queen, king, -1..-6 a Black one; terms[t]: White's count of
 * mimic_term_names[t] minus Black's. */
int mimic_evaluate(const int board[64], int white_to_move, const int terms[MIMIC_N_TERMS])
{{
    const int phase = mimic_phase(board);
    const double ph = (double)phase, rest = (double)({PHASE_MAX} - phase), phi = ph / {PHASE_MAX}.0;
    double psq = 0.0, mg = 0.0, eg = 0.0, v;
    int count[6] = {{0, 0, 0, 0, 0, 0}};
    for (int black = 0; black < 2; black++)
        for (int p = 0; p < 6; p++)
            for (int s = 0; s < 64; s++) {{
                if (board[s] != (black ? -(p + 1) : p + 1))
                    continue;
                if (black) {{
                    psq += (-mimic_psq_mg[p][s ^ 56]) * ph + (-mimic_psq_eg[p][s ^ 56]) * rest;
                    count[p]--;
                }} else {{
                    psq += mimic_psq_mg[p][s] * ph + mimic_psq_eg[p][s] * rest;
                    count[p]++;
                }}
            }}
    for (int p = 0; p < 5; p++)
        mg += mimic_material[p] * (double)count[p];
    for (int t = 0; t < MIMIC_N_TERMS; t++)
        mg += mimic_term_mg[t] * (double)terms[t];
    for (int p = 0; p < 5; p++)
        eg += mimic_material[p] * (double)count[p];
    for (int t = 0; t < MIMIC_N_TERMS; t++)
        eg += mimic_term_eg[t] * (double)terms[t];
    v = psq / {PHASE_MAX}.0 + (mg * phi + eg * (1.0 - phi));
    return mimic_floor((white_to_move ? v : -v) + MIMIC_TEMPO + 0.5);
}}
"""

PESTO_FUNCTION = f"""
/* PeSTO's evaluation of material and tables, centipawns from the side to move's view. board[i], i = a8 0 .. h1 63
 * (PeSTO's order): 0 empty, 1..6 a White pawn, knight, bishop, rook, queen, king, -1..-6 a Black one. */
int pesto_eval(const int board[64], int white_to_move)
{{
    int mg[2] = {{0, 0}}, eg[2] = {{0, 0}}, phase = 0;
    for (int i = 0; i < 64; i++) {{
        const int piece = board[i];
        if (piece == 0)
            continue;
        const int p = (piece > 0 ? piece : -piece) - 1, side = piece > 0 ? 0 : 1, s = side ? i ^ 56 : i;
        mg[side] += mg_value[p] + mg_pesto_table[p][s];
        eg[side] += eg_value[p] + eg_pesto_table[p][s];
        phase += gamephase_inc[p];
    }}
    const int us = white_to_move ? 0 : 1, mg_phase = phase < {PHASE_MAX} ? phase : {PHASE_MAX};
    return ((mg[us] - mg[1 - us]) * mg_phase + (eg[us] - eg[1 - us]) * ({PHASE_MAX} - mg_phase)) / {PHASE_MAX};
}}
"""


def c_source(t: OrganismTables, layout: str = "mimic") -> str:
    """The C file of ``t`` in table ``layout`` (``mimic`` or ``pesto``; module docstring)."""
    head = [*_comment(t, layout), "", *_constants(t), "", *_terms(t), ""]
    if layout == "pesto":
        mg_value = ", ".join(str(whole(x)) for x in t.material())
        tables: list[str] = [f"const int mg_value[6] = {{{mg_value}}};", f"const int eg_value[6] = {{{mg_value}}};"]
        for phase, rows in (("mg", t.psq_mg), ("eg", t.psq_eg)):
            for piece, row in zip(PIECES, rows, strict=True):
                tables += _table(f"{phase}_{piece}_table", "int", [[str(whole(x)) for x in pesto_order(row)]])
        for phase in ("mg", "eg"):
            names = ", ".join(f"{phase}_{p}_table" for p in PIECES)
            tables.append(f"const int *const {phase}_pesto_table[6] = {{{names}}};")
        tables.append("const int gamephase_inc[6] = {0, 1, 1, 2, 4, 0};")
        return "\n".join([*head, *tables, PESTO_FUNCTION])
    material = ", ".join([*(constant(g) for g in MATERIAL), "0.0"])
    tables = [f"/* Material, cp per piece in both phases, pawn to king. */\nconst double mimic_material[6] = "
              f"{{{material}}};"]
    for phase, rows in (("mg", t.psq_mg), ("eg", t.psq_eg)):
        note = f" /* [piece pawn..king][square a1..h8]: the {'middle-game' if phase == 'mg' else 'endgame'} offset */"
        tables += _table(f"mimic_psq_{phase}", "double", [[_number(x) for x in row] for row in rows], note=note)
    return "\n".join([*head, *tables, MIMIC_FUNCTIONS])
