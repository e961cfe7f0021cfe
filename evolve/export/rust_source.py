"""An organism as one Rust source file (``mimic export --format rust``): a module of ``pub const`` items (every
gene a named constant, the tables) and an evaluation function, free of warnings under ``rustc -D warnings``.

``mimic`` layout: ``evaluate(board, white_to_move, terms[, user_terms])`` is mimic's ``Organism.evaluate`` step for
step in f64 (Rust never fuses a multiply and an add), so it returns mimic's centipawns; a user layout's own terms'
counts (f64) come after the positional terms' (the genes ``USER_<GENE>``, the weights ``USER_TERM_MG``,
``USER_TERM_EG``). ``pesto`` layout: PeSTO's names in capitals (``MG_VALUE``, ``MG_PAWN_TABLE``, ...) in its square
order and whole centipawns, with ``pesto_eval``.
Use it as a module (``mod organism;``) or ``include!`` it (plain ``//`` comments at its head, so either works).
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

USER_PREFIX = "USER_"
"""A user term's gene's constant: this and the gene's name in capitals."""
USER_ARRAYS = ("USER_TERM_NAMES", "USER_TERM_MG", "USER_TERM_EG")
"""The export's own names a user gene's constant could take."""


def _number(x: float) -> str:
    """An f64 literal that reads back to exactly ``x`` (Python's shortest round-trip repr)."""
    return repr(float(x))


def _weight(w: Weight, ids: dict[str, str]) -> str:
    """The Rust expression of a weight: its gene's constant, negated for a penalty; ``0.0`` without a gene."""
    if w.gene is None:
        return "0.0"
    name = ids[w.gene] if w.user else w.gene.upper()
    return name if w.sign > 0 else f"-{name}"


def _comment(t: OrganismTables, layout: str) -> list[str]:
    lines = []
    for key, text in notes(t, layout).items():
        line = f"// {key.replace('_', ' ').capitalize()}:"
        for word in text.split():
            if len(line) + 1 + len(word) > 116:
                lines.append(line)
                line = "//   "
            line += " " + word
        lines.append(line)
    return lines


def _rows(rows: list[list[str]], indent: str, per_line: int = 8) -> str:
    """Rows of 64 entries as Rust array literals, ``per_line`` entries a line."""
    out = []
    for row in rows:
        body = [", ".join(row[i:i + per_line]) for i in range(0, len(row), per_line)]
        out.append(f"{indent}[\n{indent}    " + f",\n{indent}    ".join(body) + f",\n{indent}]")
    return ",\n".join(out)


def _head(t: OrganismTables, layout: str, ids: dict[str, str]) -> list[str]:
    genes = [f"pub const {g.upper()}: f64 = {_number(t.genes[g])};" for g in scalar_genes(t)]
    if t.user is not None and ids:
        genes += ["// The genes of the user's terms (their term file is named above): cp per unit.",
                  *(f"pub const {name}: f64 = {_number(t.genes[gene])};" for gene, name in ids.items())]
    if t.terms:
        names = [f'    "{n}", // {TERM_DEFINITIONS[n]}' for n in t.terms]
        weights = []
        for phase, row in (("MG", t.term_mg), ("EG", t.term_eg)):
            weights += [f"pub const TERM_{phase}: [f64; N_TERMS] = [",
                        *(f"    {_weight(w, ids)}, // {n}" for w, n in zip(row, t.terms, strict=True)), "];"]
        terms = [f"pub const N_TERMS: usize = {len(t.terms)};",
                 "/// The positional terms, in the order the evaluation sums them: what each counts for one side.",
                 "pub const TERM_NAMES: [&str; N_TERMS] = [", *names, "];",
                 "/// Their weights, cp per unit of White's count minus Black's, middle game (MG) and endgame (EG).",
                 *weights]
    else:
        terms = ["/// The layout has none of mimic's positional terms: `evaluate` takes no `terms`.",
                 "pub const N_TERMS: usize = 0;"]
    if t.user is not None and t.user.terms:
        weights = []
        for phase in ("MG", "EG"):
            weights += [f"pub const USER_TERM_{phase}: [f64; N_USER_TERMS] = [",
                        *(f"    {_weight(getattr(u, phase.lower()), ids)}, // {u.name}" for u in t.user.terms), "];"]
        terms += [f"pub const N_USER_TERMS: usize = {len(t.user.terms)};",
                  "/// The user's terms, in the order the evaluation sums them after the positional terms: what "
                  "counts each",
                  "/// for one side (the term file's functions; the file and its SHA-256 are named above).",
                  "pub const USER_TERM_NAMES: [&str; N_USER_TERMS] = [",
                  *(f'    "{u.name}", // {u.counts}' for u in t.user.terms), "];",
                  "/// Their weights, cp per unit of White's count minus Black's, middle game (MG) and endgame (EG): "
                  "the",
                  "/// gene times the term's sign (a penalty's is negated); 0.0 in a phase the term has no gene for.",
                  *weights]
    elif t.user is not None:
        terms += ["/// The layout has no terms of its own: `evaluate` takes no `user_terms`.",
                  "pub const N_USER_TERMS: usize = 0;"]
    if scalar_genes(t):
        genes.insert(0, "// Every gene of the organism but the piece-square ones (those are the tables below): cp "
                        "per unit.")
    return [*_comment(t, layout), "", *genes, "", *terms, ""]


PHASE_FUNCTION = f"""
/// The game phase: min({PHASE_MAX}, knights + bishops + 2 * rooks + 4 * queens) of both colours.
pub fn phase(board: &[i32; 64]) -> i32 {{
    const WEIGHT: [i32; 7] = [0, 0, 1, 1, 2, 4, 0];
    let phase: i32 = board.iter().map(|&piece| WEIGHT[piece.unsigned_abs() as usize]).sum();
    phase.min({PHASE_MAX})
}}
"""


def _evaluate(t: OrganismTables, ids: dict[str, str]) -> str:
    """``evaluate``: the terms argument when the layout has positional terms, the user_terms argument when it has
    terms of its own (each sum exactly where ``Organism.evaluate`` makes it)."""
    terms, user = bool(t.terms), t.user is not None and bool(t.user.terms)
    args = ["board: &[i32; 64]", "white_to_move: bool", *(["terms: &[i32; N_TERMS]"] * terms),
            *(["user_terms: &[f64; N_USER_TERMS]"] * user)]
    params = ", ".join(args)
    if len(params) > 70:  # the line past 100 characters: one argument a line, as rustfmt writes it
        params = "\n" + "".join(f"    {a},\n" for a in args)
    said = ("/// 1..6 a White pawn, knight, bishop, rook, queen, king, -1..-6 a Black one"
            + ("; `terms[t]`: White's count of\n/// `TERM_NAMES[t]` minus Black's" if terms else "")
            + (";\n/// `user_terms[k]`: White's count of `USER_TERM_NAMES[k]` minus Black's" if user else "") + ".")
    loop = ("    for t in 0..N_TERMS {{\n        {0} += TERM_{1}[t] * terms[t] as f64;\n    }}\n" if terms else "")
    user_sum = ("    let mut user = 0.0_f64;\n    for k in 0..N_USER_TERMS {\n        user += user_terms[k] * "
                "(USER_TERM_MG[k] * phi + USER_TERM_EG[k] * (1.0 - phi));\n    }\n    let v = v + user;\n"
                if user else "")
    return f"""
/// Centipawns from the side to move's view, as mimic's Organism.evaluate. `board[s]`, s = a1 0 .. h8 63: 0 empty,
{said}
pub fn evaluate({params}) -> i32 {{
    let phase = phase(board);
    let (ph, rest) = (phase as f64, ({PHASE_MAX} - phase) as f64);
    let phi = ph / {PHASE_MAX}.0;
    let mut psq = 0.0_f64;
    let mut count = [0_i32; 6];
    for black in [false, true] {{
        for p in 0..6 {{
            let code = if black {{ -(p as i32 + 1) }} else {{ p as i32 + 1 }};
            for s in 0..64 {{
                if board[s] != code {{
                    continue;
                }}
                if black {{
                    psq += (-PSQ_MG[p][s ^ 56]) * ph + (-PSQ_EG[p][s ^ 56]) * rest;
                    count[p] -= 1;
                }} else {{
                    psq += PSQ_MG[p][s] * ph + PSQ_EG[p][s] * rest;
                    count[p] += 1;
                }}
            }}
        }}
    }}
    let (mut mg, mut eg) = (0.0_f64, 0.0_f64);
    for p in 0..5 {{
        mg += MATERIAL[p] * count[p] as f64;
    }}
{loop.format("mg", "MG")}    for p in 0..5 {{
        eg += MATERIAL[p] * count[p] as f64;
    }}
{loop.format("eg", "EG")}    let v = psq / {PHASE_MAX}.0 + (mg * phi + eg * (1.0 - phi));
{user_sum}    ((if white_to_move {{ v }} else {{ -v }}) + {_weight(t.tempo_weight, ids)} + 0.5).floor() as i32
}}
"""


PESTO_FUNCTION = f"""
/// PeSTO's evaluation of material and tables, centipawns from the side to move's view. `board[i]`, i = a8 0 .. h1
/// 63 (PeSTO's order): 0 empty, 1..6 a White pawn, knight, bishop, rook, queen, king, -1..-6 a Black one.
pub fn pesto_eval(board: &[i32; 64], white_to_move: bool) -> i32 {{
    let (mut mg, mut eg, mut phase) = ([0_i32; 2], [0_i32; 2], 0_i32);
    for (i, &piece) in board.iter().enumerate() {{
        if piece == 0 {{
            continue;
        }}
        let p = (piece.unsigned_abs() - 1) as usize;
        let (side, s) = if piece > 0 {{ (0, i) }} else {{ (1, i ^ 56) }};
        mg[side] += MG_VALUE[p] + MG_PESTO_TABLE[p][s];
        eg[side] += EG_VALUE[p] + EG_PESTO_TABLE[p][s];
        phase += GAMEPHASE_INC[p];
    }}
    let us = if white_to_move {{ 0 }} else {{ 1 }};
    let mg_phase = phase.min({PHASE_MAX});
    ((mg[us] - mg[1 - us]) * mg_phase + (eg[us] - eg[1 - us]) * ({PHASE_MAX} - mg_phase)) / {PHASE_MAX}
}}
"""


def rust_source(t: OrganismTables, layout: str = "mimic") -> str:
    """The Rust file of ``t`` in table ``layout`` (``mimic`` or ``pesto``; module docstring). A
    :class:`~search.runtime.errors.SettingsError` for user genes that cannot be Rust constants
    (:func:`evolve.export.organism.identifiers`)."""
    ids = identifiers(t, "rust", USER_PREFIX, USER_ARRAYS)
    head = _head(t, layout, ids)
    if layout == "pesto":
        value = ", ".join(str(whole(x)) for x in t.material())
        tables = [f"pub const MG_VALUE: [i32; 6] = [{value}];", f"pub const EG_VALUE: [i32; 6] = [{value}];"]
        for phase, rows in (("MG", t.psq_mg), ("EG", t.psq_eg)):
            for piece, row in zip(PIECES, rows, strict=True):
                body = _rows([[str(whole(x)) for x in pesto_order(row)]], "")
                tables.append(f"pub const {phase}_{piece.upper()}_TABLE: [i32; 64] = {body};")
        for phase in ("MG", "EG"):
            names = ", ".join(f"&{phase}_{p.upper()}_TABLE" for p in PIECES)
            tables.append(f"pub const {phase}_PESTO_TABLE: [&[i32; 64]; 6] = [{names}];")
        tables.append("pub const GAMEPHASE_INC: [i32; 6] = [0, 1, 1, 2, 4, 0];")
        return "\n".join([*head, *tables, PESTO_FUNCTION])
    material = ", ".join([*(_weight(w, ids) for w in t.material_weights), "0.0"])
    tables = ["/// Material, cp per piece in both phases, pawn to king.",
              f"pub const MATERIAL: [f64; 6] = [{material}];"]
    for phase, rows in (("MG", t.psq_mg), ("EG", t.psq_eg)):
        which = "middle-game" if phase == "MG" else "endgame"
        tables += [f"/// [piece pawn..king][square a1..h8]: the {which} offset added to the piece's material value.",
                   f"pub const PSQ_{phase}: [[f64; 64]; 6] = [\n"
                   + _rows([[_number(x) for x in row] for row in rows], "    ") + ",\n];"]
    return "\n".join([*head, *tables, PHASE_FUNCTION + _evaluate(t, ids)])
