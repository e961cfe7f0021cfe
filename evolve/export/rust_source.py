"""An organism as one Rust source file (``mimic export --format rust``): a module of ``pub const`` items (every
gene a named constant, the tables) and an evaluation function, free of warnings under ``rustc -D warnings``.

``mimic`` layout: ``evaluate(board, white_to_move, terms)`` is mimic's ``Organism.evaluate`` step for step in f64
(Rust never fuses a multiply and an add), so it returns mimic's centipawns. ``pesto`` layout: PeSTO's names in
capitals (``MG_VALUE``, ``MG_PAWN_TABLE``, ...) in its square order and whole centipawns, with ``pesto_eval``.
Use it as a module (``mod organism;``) or ``include!`` it (plain ``//`` comments at its head, so either works).
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


def _number(x: float) -> str:
    """An f64 literal that reads back to exactly ``x`` (Python's shortest round-trip repr)."""
    return repr(float(x))


def _weight(w: Weight) -> str:
    if w.gene is None:
        return "0.0"
    return w.gene.upper() if w.sign > 0 else f"-{w.gene.upper()}"


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


def _head(t: OrganismTables, layout: str) -> list[str]:
    genes = [f"pub const {g.upper()}: f64 = {_number(t.genes[g])};" for g in scalar_genes(t)]
    names = [f'    "{n}", // {TERM_DEFINITIONS[n]}' for n in TERMS]
    weights = []
    for phase, row in (("MG", t.term_mg), ("EG", t.term_eg)):
        weights += [f"pub const TERM_{phase}: [f64; N_TERMS] = [",
                    *(f"    {_weight(w)}, // {n}" for w, n in zip(row, TERMS, strict=True)), "];"]
    return [*_comment(t, layout), "",
            "// Every gene of the organism but the piece-square ones (those are the tables below): cp per unit.",
            *genes, "", f"pub const N_TERMS: usize = {len(TERMS)};",
            "/// The positional terms, in the order the evaluation sums them: what each counts for one side.",
            "pub const TERM_NAMES: [&str; N_TERMS] = [", *names, "];",
            "/// Their weights, cp per unit of White's count minus Black's, middle game (MG) and endgame (EG).",
            *weights, ""]


MIMIC_FUNCTIONS = f"""
/// The game phase: min({PHASE_MAX}, knights + bishops + 2 * rooks + 4 * queens) of both colours.
pub fn phase(board: &[i32; 64]) -> i32 {{
    const WEIGHT: [i32; 7] = [0, 0, 1, 1, 2, 4, 0];
    let phase: i32 = board.iter().map(|&piece| WEIGHT[piece.unsigned_abs() as usize]).sum();
    phase.min({PHASE_MAX})
}}

/// Centipawns from the side to move's view, as mimic's Organism.evaluate. `board[s]`, s = a1 0 .. h8 63: 0 empty,
/// 1..6 a White pawn, knight, bishop, rook, queen, king, -1..-6 a Black one; `terms[t]`: White's count of
/// `TERM_NAMES[t]` minus Black's.
pub fn evaluate(board: &[i32; 64], white_to_move: bool, terms: &[i32; N_TERMS]) -> i32 {{
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
    for t in 0..N_TERMS {{
        mg += TERM_MG[t] * terms[t] as f64;
    }}
    for p in 0..5 {{
        eg += MATERIAL[p] * count[p] as f64;
    }}
    for t in 0..N_TERMS {{
        eg += TERM_EG[t] * terms[t] as f64;
    }}
    let v = psq / {PHASE_MAX}.0 + (mg * phi + eg * (1.0 - phi));
    ((if white_to_move {{ v }} else {{ -v }}) + TEMPO + 0.5).floor() as i32
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
    """The Rust file of ``t`` in table ``layout`` (``mimic`` or ``pesto``; module docstring)."""
    head = _head(t, layout)
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
    material = ", ".join([*(g.upper() for g in MATERIAL), "0.0"])
    tables = ["/// Material, cp per piece in both phases, pawn to king.",
              f"pub const MATERIAL: [f64; 6] = [{material}];"]
    for phase, rows in (("MG", t.psq_mg), ("EG", t.psq_eg)):
        which = "middle-game" if phase == "MG" else "endgame"
        tables += [f"/// [piece pawn..king][square a1..h8]: the {which} offset added to the piece's material value.",
                   f"pub const PSQ_{phase}: [[f64; 64]; 6] = [\n"
                   + _rows([[_number(x) for x in row] for row in rows], "    ") + ",\n];"]
    return "\n".join([*head, *tables, MIMIC_FUNCTIONS])
