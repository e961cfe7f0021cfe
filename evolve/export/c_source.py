"""An organism as one C99 file (``mimic export --format c``): every gene a named constant, the tables, and an
evaluation function, compiling cleanly with ``cc -std=c99 -Wall -Wextra -pedantic -Werror`` (no libm needed).

``mimic`` layout: ``mimic_evaluate(board, white_to_move, terms[, user_terms])`` is mimic's ``Organism.evaluate``
step for step in double precision, given the position, the positional terms' counts (White's minus Black's: the 26
of paper and rich, those a user layout has) and, for a user layout, its own terms' counts (doubles), so it returns
mimic's centipawns. ``pesto`` layout: PeSTO's names (``mg_value``, ``mg_pawn_table``, ...) in its square order and
whole centipawns, with ``pesto_eval(board, white_to_move)``, PeSTO's own integer evaluation of material and tables.

A user term's genes are the macros ``MIMIC_USER_<GENE>`` (apart from mimic's own ``MIMIC_<GENE>``), its weights
``mimic_user_term_mg[]`` and ``mimic_user_term_eg[]``.
"""

from __future__ import annotations

from evolve.export.organism import (
    PIECES,
    OrganismTables,
    Weight,
    identifiers,
    notes,
    pesto_order,
    scalar_genes,
    whole,
)
from organisms.features import TERM_DEFINITIONS
from organisms.terms import PHASE_MAX

USER_PREFIX = "MIMIC_USER_"
"""A user term's gene's macro: this and the gene's name in capitals."""


def constant(gene: str) -> str:
    """The C name of a gene's constant: ``MIMIC_`` and its name in capitals."""
    return "MIMIC_" + gene.upper()


def _number(x: float, macro: bool = False) -> str:
    """A double literal that reads back to exactly ``x`` (Python's shortest round-trip repr); in a ``macro``,
    bracketed if negative (so that ``-MACRO`` stays one negation)."""
    text = repr(float(x))
    return f"({text})" if macro and text.startswith("-") else text


def _weight(w: Weight, ids: dict[str, str]) -> str:
    """The C expression of a weight: its gene's macro, negated for a penalty; ``0.0`` without a gene."""
    if w.gene is None:
        return "0.0"
    name = ids[w.gene] if w.user else constant(w.gene)
    return name if w.sign > 0 else f"-{name}"


def _safe(text: str) -> str:
    """``text`` inside a C comment: a ``*/`` in it (a path, a docstring) would end the comment."""
    return text.replace("*/", "* /")


def _comment(t: OrganismTables, layout: str) -> list[str]:
    lines = ["/*"]
    for key, text in notes(t, layout).items():
        words, line = _safe(text).split(), f" * {key.replace('_', ' ').capitalize()}:"
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


def _constants(t: OrganismTables, ids: dict[str, str]) -> list[str]:
    genes = scalar_genes(t)
    lines = ["/* Every gene of the organism but the piece-square ones (those are the tables below): cp per unit. */",
             *(f"#define {constant(gene)} {_number(t.genes[gene], macro=True)}" for gene in genes)] if genes else []
    if t.user is not None and ids:
        lines += ["/* The genes of the user's terms (their term file is named above): cp per unit. */",
                  *(f"#define {name} {_number(t.genes[gene], macro=True)}" for gene, name in ids.items())]
    return lines


def _terms(t: OrganismTables, ids: dict[str, str]) -> list[str]:
    if not t.terms:
        lines = ["#define MIMIC_N_TERMS 0 /* the layout has none of mimic's positional terms: no terms argument */"]
    else:
        names = [f'    "{n}", /* {TERM_DEFINITIONS[n]} */' for n in t.terms]
        weights = []
        for phase, row in (("mg", t.term_mg), ("eg", t.term_eg)):
            weights += [f"const double mimic_term_{phase}[MIMIC_N_TERMS] = {{",
                        *(f"    {_weight(w, ids)}, /* {n} */" for w, n in zip(row, t.terms, strict=True)), "};"]
        lines = [f"#define MIMIC_N_TERMS {len(t.terms)}",
                 "/* The positional terms, in the order the evaluation sums them: what each counts for one side. */",
                 "const char *const mimic_term_names[MIMIC_N_TERMS] = {", *names, "};",
                 "/* Their weights, cp per unit of White's count minus Black's, middle game (mg) and endgame (eg). */",
                 *weights]
    if t.user is None:
        return lines
    terms = t.user.terms
    if not terms:
        return [*lines, "#define MIMIC_N_USER_TERMS 0 /* the layout has no terms of its own: no user_terms argument */"]
    weights = []
    for phase in ("mg", "eg"):
        weights += [f"const double mimic_user_term_{phase}[MIMIC_N_USER_TERMS] = {{",
                    *(f"    {_weight(getattr(u, phase), ids)}, /* {u.name} */" for u in terms), "};"]
    return [*lines, f"#define MIMIC_N_USER_TERMS {len(terms)}",
            "/* The user's terms, in the order the evaluation sums them after the positional terms: what counts each",
            " * for one side (the term file's functions; the file and its SHA-256 are named above). */",
            "const char *const mimic_user_term_names[MIMIC_N_USER_TERMS] = {",
            *(f'    "{u.name}", /* {_safe(u.counts)} */' for u in terms), "};",
            "/* Their weights, cp per unit of White's count minus Black's, middle game (mg) and endgame (eg): the",
            " * gene times the term's sign (a penalty's is negated); 0.0 in a phase the term has no gene for. */",
            *weights]


PHASE_FUNCTION = f"""
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
"""


def _evaluate(t: OrganismTables, ids: dict[str, str]) -> str:
    """``mimic_evaluate``: the terms argument when the layout has positional terms, the user_terms argument when it
    has terms of its own (each sum exactly where ``Organism.evaluate`` makes it)."""
    terms, user = bool(t.terms), t.user is not None and bool(t.user.terms)
    params = ", ".join(["const int board[64]", "int white_to_move", *(["const int terms[MIMIC_N_TERMS]"] * terms),
                        *(["const double user_terms[MIMIC_N_USER_TERMS]"] * user)])
    if len(params) > 100:
        params = params.replace(", const double user_terms", ",\n                   const double user_terms")
    said = (" * 1..6 a White pawn, knight, bishop, rook, queen, king, -1..-6 a Black one"
            + ("; terms[t]: White's count of\n * mimic_term_names[t] minus Black's" if terms else "")
            + (";\n * user_terms[k]: White's count of mimic_user_term_names[k] minus Black's" if user else "") + ". */")
    loop = ("    for (int t = 0; t < MIMIC_N_TERMS; t++)\n        {0} += mimic_term_{0}[t] * (double)terms[t];\n"
            if terms else "")
    user_sum = ("    for (int k = 0; k < MIMIC_N_USER_TERMS; k++)\n        user += user_terms[k] * "
                "(mimic_user_term_mg[k] * phi + mimic_user_term_eg[k] * (1.0 - phi));\n    v += user;\n"
                if user else "")
    return f"""
/* Centipawns from the side to move's view, as mimic's Organism.evaluate. board[s], s = a1 0 .. h8 63: 0 empty,
{said}
int mimic_evaluate({params})
{{
    const int phase = mimic_phase(board);
    const double ph = (double)phase, rest = (double)({PHASE_MAX} - phase), phi = ph / {PHASE_MAX}.0;
    double psq = 0.0, mg = 0.0, eg = 0.0, {'user = 0.0, ' if user else ''}v;
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
{loop.format('mg')}    for (int p = 0; p < 5; p++)
        eg += mimic_material[p] * (double)count[p];
{loop.format('eg')}    v = psq / {PHASE_MAX}.0 + (mg * phi + eg * (1.0 - phi));
{user_sum}    return mimic_floor((white_to_move ? v : -v) + {_weight(t.tempo_weight, ids)} + 0.5);
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
    """The C file of ``t`` in table ``layout`` (``mimic`` or ``pesto``; module docstring). A
    :class:`~search.runtime.errors.SettingsError` for user genes that cannot be C macros
    (:func:`evolve.export.organism.identifiers`)."""
    ids = identifiers(t, "c", USER_PREFIX, ())
    head = [*_comment(t, layout), "", *_constants(t, ids), "", *_terms(t, ids), ""]
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
    material = ", ".join([*(_weight(w, ids) for w in t.material_weights), "0.0"])
    tables = [f"/* Material, cp per piece in both phases, pawn to king. */\nconst double mimic_material[6] = "
              f"{{{material}}};"]
    for phase, rows in (("mg", t.psq_mg), ("eg", t.psq_eg)):
        note = f" /* [piece pawn..king][square a1..h8]: the {'middle-game' if phase == 'mg' else 'endgame'} offset */"
        tables += _table(f"mimic_psq_{phase}", "double", [[_number(x) for x in row] for row in rows], note=note)
    return "\n".join([*head, *tables, PHASE_FUNCTION + _evaluate(t, ids)])
