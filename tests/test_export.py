"""mimic export (issue 40): an organism as C, Rust and JSON, compiled and run against mimic's own evaluation; a
perspective net as raw little-endian integers, read by the plain-Python reference reader, scoring 1,000 positions
exactly as mimic does. Real files throughout: the shipped organisms and net, committed labels, a real compiler.

Expected values are derived here, independently of the exporter: the tables and constants from the organism file's
genes by their names (``pst_knight_c3_mg`` is the knight's middle-game offset on c3 and its file mirror f3; a penalty
gene is subtracted), the net's integers from its float32 arrays times 255 or 1024 rounded half to even (the
arithmetic docs/export.md states), its header by ``struct`` as docs/export.md lays it out byte by byte.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import chess
import pytest

from evolve.export.explain import explain
from evolve.export.organism import organism_tables
from organisms import Organism
from organisms.features import TERM_NAMES
from organisms.genome import layout_genome
from organisms.terms import board_terms
from organisms.userlayout import LayoutError

from .conftest import run_mimic

ROOT = Path(__file__).resolve().parents[1]
RICH = ROOT / "results/rich-stockfish/organism.json"
PAPER = ROOT / "results/paper-stockfish/organism.json"
NET = ROOT / "results/pnet/pnet.npz"
LABELS = ROOT / "results/heldout-mixed/labels.epd"
EXAMPLE = ROOT / "docs/examples/threats.py"
CC = shutil.which("cc")
RUSTC = shutil.which("rustc") or next((p for p in (Path.home() / ".cargo/bin/rustc",) if p.exists()), None)
PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")
PENALTIES = {"doubled_pawn", "isolated_pawn", "backward_pawn", "king_open_file"}  # features.py's orientation -1
N_TERMS = 26


def _positions(n: int) -> list[chess.Board]:
    with LABELS.open(encoding="utf-8") as fh:
        return [chess.Board.from_epd(next(fh))[0] for _ in range(n)]


BOARDS = _positions(1000)


def _genes(path: Path) -> dict[str, float]:
    return {g["name"]: g["value"] for g in json.loads(path.read_text())["genes"]}


def _expected(genes: dict[str, float], user: frozenset[str] = frozenset()) -> dict[str, object]:
    """Tables (a1 = 0, White's view), material and term weights from the gene names alone (``user``: a user term's
    genes, left out here). A material value, a table entry or the tempo without a gene is 0; a positional term is
    listed when it has a gene, in the order its genes come."""
    psq = {phase: [[0.0] * 64 for _ in PIECES] for phase in ("mg", "eg")}
    mg: dict[str, float] = {}
    eg: dict[str, float] = {}
    terms: list[str] = []
    for name, value in genes.items():
        if name in user:
            continue
        m = re.fullmatch(r"pst_(\w+)_([a-h])([1-8])_(mg|eg)", name)
        if m:
            file, rank = ord(m[2]) - ord("a"), int(m[3]) - 1
            for f in (file, 7 - file):
                psq[m[4]][PIECES.index(m[1])][8 * rank + f] = value
            continue
        if name in ("pawn", "knight", "bishop", "rook", "queen", "tempo"):
            continue
        term, phase = (name[:-3], name[-2:]) if name.endswith(("_mg", "_eg")) else (name, "both")
        if term not in terms:
            terms.append(term)
        sign = -1.0 if term in PENALTIES or name == "king_center_mg" else 1.0
        for p, row in (("mg", mg), ("eg", eg)):
            if phase in (p, "both"):
                row[term] = sign * value
    material = [genes.get(p, 0.0) for p in PIECES[:5]] + [0.0]
    return {"psq": psq, "term_mg": [mg.get(t, 0.0) for t in terms], "term_eg": [eg.get(t, 0.0) for t in terms],
            "terms": terms, "material": material, "tempo": genes.get("tempo", 0.0)}


def _code(board: chess.Board, square: int) -> int:
    piece = board.piece_at(square)
    return 0 if piece is None else piece.piece_type * (1 if piece.color else -1)


def _rows(boards: list[chess.Board]) -> str:
    """One line per position: 64 piece codes (a1 .. h8), White to move (1/0), the 26 positional terms (mimic's
    counts, White's minus Black's: the input the exported function takes, not what is tested)."""
    lines = []
    for b in boards:
        _, terms = board_terms(b)
        lines.append(" ".join(map(str, [*(_code(b, s) for s in range(64)), int(b.turn), *terms[5:]])))
    return "\n".join(lines) + "\n"


def _export(tmp_path: Path, source: Path, *flags: str) -> Path:
    out = tmp_path / f"export-{len(list(tmp_path.iterdir()))}"
    done = run_mimic("export", source, *flags, "--out", out)
    assert done.returncode == 0, done.stderr
    assert str(source) in done.stdout and str(out) in done.stdout
    return out


C_HARNESS = """#include <stdio.h>
#include "{export}"
int main(void)
{{
    int board[64], white, terms[MIMIC_N_TERMS];
    for (int p = 0; p < 6; p++) printf("%.17g ", mimic_material[p]);
    for (int t = 0; t < MIMIC_N_TERMS; t++) printf("%.17g %.17g ", mimic_term_mg[t], mimic_term_eg[t]);
    for (int p = 0; p < 6; p++) for (int s = 0; s < 64; s++) printf("%.17g %.17g ", mimic_psq_mg[p][s],
                                                                     mimic_psq_eg[p][s]);
    printf("%.17g\\n", MIMIC_TEMPO);
    for (;;) {{
        for (int s = 0; s < 64; s++) if (scanf("%d", &board[s]) != 1) return 0;
        if (scanf("%d", &white) != 1) return 1;
        for (int t = 0; t < MIMIC_N_TERMS; t++) if (scanf("%d", &terms[t]) != 1) return 1;
        printf("%d\\n", mimic_evaluate(board, white, terms));
    }}
}}
"""


def _compile_c(tmp_path: Path, export: Path, harness: str) -> Path:
    """The export compiled alone with every warning an error, then the harness (which includes it) with issue 40's
    flags, ``cc -std=c99 -Wall -Werror``."""
    strict = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]
    done = subprocess.run([CC, *strict, "-c", "-x", "c", str(export), "-o", str(tmp_path / "alone.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    source = tmp_path / "harness.c"
    source.write_text(harness.format(export=export))
    done = subprocess.run([CC, "-std=c99", "-Wall", "-Werror", str(source), "-o", str(tmp_path / "harness")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return tmp_path / "harness"


def _check_dump(first_line: str, genes: dict[str, float]) -> None:
    """The harness's dump of the exported values equals the tables and constants derived from the genes."""
    want = _expected(genes)
    got = [float(x) for x in first_line.split()]
    assert got[:6] == want["material"]
    pairs = got[6:6 + 2 * N_TERMS]
    assert pairs[0::2] == want["term_mg"] and pairs[1::2] == want["term_eg"]
    psq = got[6 + 2 * N_TERMS:-1]
    assert psq[0::2] == [x for row in want["psq"]["mg"] for x in row]  # type: ignore[index]
    assert psq[1::2] == [x for row in want["psq"]["eg"] for x in row]  # type: ignore[index]
    assert got[-1] == want["tempo"]


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")
@pytest.mark.parametrize("source", [RICH, PAPER], ids=["rich", "paper"])
def test_exported_c_compiles_and_returns_mimics_evaluation(tmp_path: Path, source: Path) -> None:
    export = _export(tmp_path, source, "--format", "c")
    harness = _compile_c(tmp_path, export, C_HARNESS)
    run = subprocess.run([str(harness)], input=_rows(BOARDS), capture_output=True, text=True, check=True)
    first, *scores = run.stdout.splitlines()
    _check_dump(first, _genes(source))
    organism = Organism.load(source)
    want = [organism.evaluate(b) for b in BOARDS]
    assert [int(s) for s in scores] == want  # 0 cp difference on 1,000 positions
    assert len(set(want)) > 300  # the positions are varied


RUST_HARNESS = """#![allow(dead_code)]
include!("{export}");
use std::io::Read;
fn main() {{
    let mut dump: Vec<String> = MATERIAL.iter().map(|x| format!("{{:?}}", x)).collect();
    for t in 0..N_TERMS {{ dump.push(format!("{{:?}} {{:?}}", TERM_MG[t], TERM_EG[t])); }}
    for p in 0..6 {{ for s in 0..64 {{ dump.push(format!("{{:?}} {{:?}}", PSQ_MG[p][s], PSQ_EG[p][s])); }} }}
    dump.push(format!("{{:?}}", TEMPO));
    println!("{{}}", dump.join(" "));
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let n: Vec<i32> = text.split_whitespace().map(|x| x.parse().unwrap()).collect();
    for row in n.chunks(64 + 1 + N_TERMS) {{
        let board: [i32; 64] = row[..64].try_into().unwrap();
        let terms: [i32; N_TERMS] = row[65..].try_into().unwrap();
        println!("{{}}", evaluate(&board, row[64] == 1, &terms));
    }}
}}
"""


@pytest.mark.skipif(RUSTC is None, reason="no Rust compiler (rustc) on PATH or in ~/.cargo/bin")
@pytest.mark.parametrize("source", [RICH, PAPER], ids=["rich", "paper"])
def test_exported_rust_compiles_and_returns_mimics_evaluation(tmp_path: Path, source: Path) -> None:
    export = _export(tmp_path, source, "--format", "rust")
    lib = subprocess.run([str(RUSTC), "--edition", "2021", "--crate-type", "lib", "-D", "warnings", str(export),
                          "--crate-name", "organism", "--out-dir", str(tmp_path)], capture_output=True, text=True)
    assert lib.returncode == 0, lib.stderr
    (tmp_path / "main.rs").write_text(RUST_HARNESS.format(export=export))
    main = subprocess.run([str(RUSTC), "--edition", "2021", str(tmp_path / "main.rs"), "-o",
                           str(tmp_path / "harness")], capture_output=True, text=True)
    assert main.returncode == 0, main.stderr
    boards = BOARDS[:300]
    run = subprocess.run([str(tmp_path / "harness")], input=_rows(boards), capture_output=True, text=True, check=True)
    first, *scores = run.stdout.splitlines()
    _check_dump(first, _genes(source))  # Rust's {:?} prints an f64 so that it reads back exactly
    organism = Organism.load(source)
    assert [int(s) for s in scores] == [organism.evaluate(b) for b in boards]


@pytest.mark.parametrize("source", [RICH, PAPER], ids=["rich", "paper"])
def test_json_export_holds_the_genes_values(tmp_path: Path, source: Path) -> None:
    genes = _genes(source)
    want = _expected(genes)
    data = json.loads(_export(tmp_path, source, "--format", "json").read_text())
    assert (data["format"], data["version"], data["kind"], data["layout"]) == ("mimic-export", 1, "organism", "mimic")
    assert data["material"]["mg"] == data["material"]["eg"] == want["material"]
    for phase in ("mg", "eg"):
        assert [data["piece_square"][phase][p] for p in PIECES] == want["psq"][phase]  # type: ignore[index]
    assert [t["name"] for t in data["terms"]] == want["terms"]
    assert [t["mg"] for t in data["terms"]] == want["term_mg"] and [t["eg"] for t in data["terms"]] == want["term_eg"]
    assert data["tempo"] == genes["tempo"] and data["genes"] == genes
    assert "a1 = 0" in data["squares"] and "side to move" in data["point_of_view"] and "min(24" in data["phase"]
    pesto = json.loads(_export(tmp_path, source, "--format", "json", "--layout", "pesto").read_text())
    assert pesto["layout"] == "pesto" and "a8" in pesto["squares"]
    for phase in ("mg", "eg"):  # PeSTO's order: entry i is square i ^ 56 (a8 first), whole centipawns
        for p in PIECES:
            table = want["psq"][phase][PIECES.index(p)]  # type: ignore[index]
            assert pesto["piece_square"][phase][p] == [round(table[i ^ 56]) for i in range(64)]
    assert pesto["material"]["mg"] == [round(x) for x in want["material"]]  # type: ignore[attr-defined]


PESTO_HARNESS = """#include <stdio.h>
#include "{export}"
int main(void)
{{
    int board[64], white;
    for (int p = 0; p < 6; p++) printf("%d %d ", mg_value[p], eg_value[p]);
    for (int p = 0; p < 6; p++) for (int i = 0; i < 64; i++) printf("%d %d ", mg_pesto_table[p][i],
                                                                     eg_pesto_table[p][i]);
    printf("\\n");
    for (;;) {{
        for (int i = 0; i < 64; i++) if (scanf("%d", &board[i]) != 1) return 0;
        if (scanf("%d", &white) != 1) return 1;
        printf("%d\\n", pesto_eval(board, white));
    }}
}}
"""


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")
def test_pesto_layout_compiles_and_evaluates_as_pesto(tmp_path: Path) -> None:
    want = _expected(_genes(RICH))
    mg_value = [round(x) for x in want["material"]]  # type: ignore[attr-defined]
    tables = {ph: [[round(row[i ^ 56]) for i in range(64)] for row in want["psq"][ph]]  # type: ignore[index]
              for ph in ("mg", "eg")}
    harness = _compile_c(tmp_path, _export(tmp_path, RICH, "--layout", "pesto"), PESTO_HARNESS)
    boards = BOARDS[:300]
    rows = "".join(" ".join(map(str, [*(_code(b, i ^ 56) for i in range(64)), int(b.turn)])) + "\n" for b in boards)
    first, *scores = subprocess.run([str(harness)], input=rows, capture_output=True, text=True,
                                    check=True).stdout.splitlines()
    got = [int(x) for x in first.split()]
    assert got[0:12:2] == mg_value and got[1:12:2] == mg_value
    assert got[12::2] == [x for row in tables["mg"] for x in row] and got[13::2] == [x for row in tables["eg"]
                                                                                     for x in row]
    for board, score in zip(boards, scores, strict=True):  # PeSTO's published arithmetic, written out here
        mg, eg, phase = [0, 0], [0, 0], 0
        for square, piece in board.piece_map().items():
            side, p = (0 if piece.color else 1), piece.piece_type - 1
            i = square ^ 56 if piece.color else square  # PeSTO's index of the square, Black's read flipped
            mg[side] += mg_value[p] + tables["mg"][p][i]
            eg[side] += mg_value[p] + tables["eg"][p][i]
            phase += (0, 1, 1, 2, 4, 0)[p]
        us = 0 if board.turn else 1
        mgp = min(phase, 24)
        total = (mg[us] - mg[1 - us]) * mgp + (eg[us] - eg[1 - us]) * (24 - mgp)
        assert int(score) == (abs(total) // 24) * (1 if total >= 0 else -1)  # C's division truncates towards zero


# ------------------------------------------------------------------ organisms of a user's layout (docs/terms.md)

USER_LAYOUT = '''"""The export tests' layout: rich less the bishop pair, king centrality's endgame gene, the queen's
table and the rook's material value, plus three terms; SMALL: the knight's table and one term, no tempo, none of
mimic's terms."""
import chess

from organisms.userterms import Layout, Term


def pawn_advance(board):
    """Each side's pawns' ranks from its own side (rank 2 = 1 .. rank 7 = 6), summed, over 3: not whole numbers."""
    counts = []
    for color in (chess.WHITE, chess.BLACK):
        ranks = [chess.square_rank(s) if color else 7 - chess.square_rank(s) for s in board.pieces(chess.PAWN, color)]
        counts.append(sum(ranks) / 3)
    return counts[0], counts[1]


def loose_pieces(board):
    """Each side's knights, bishops, rooks and queens that none of its own pieces defends. */ ends no comment."""
    counts = []
    for color in (chess.WHITE, chess.BLACK):
        pieces = board.occupied_co[color] & ~board.pawns & ~board.kings
        counts.append(sum(1 for s in chess.scan_forward(pieces) if not board.is_attacked_by(color, s)))
    return counts[0], counts[1]


def king_rank(board):
    return [chess.square_rank(board.king(chess.WHITE)), 7 - chess.square_rank(board.king(chess.BLACK))]


LAYOUT = Layout(builtins=["rich"], drop=["bishop_pair", "king_center_eg", "pst_queen", "rook"],
                terms=[Term("pawn_advance", board=pawn_advance, bits=8, low=0, high=40, taper="mg+eg"),
                       Term("loose_pieces", board=loose_pieces, bits=7, low=0, high=60, sign=-1),
                       Term("king_rank", board=king_rank, bits=6, low=0, high=30, taper="eg")])
SMALL = Layout(builtins=["pst_knight"], terms=[Term("loose_pieces", board=loose_pieces, bits=7, low=0, high=60,
                                                    sign=-1)])
'''
USER_SPECS = {  # the Term declarations above (and docs/examples/threats.py's): name -> (taper, sign)
    "mine": {"pawn_advance": ("mg+eg", 1), "loose_pieces": ("all", -1), "king_rank": ("eg", 1)},
    "small": {"loose_pieces": ("all", -1)},
    "example": {"pawn_threat": ("mg+eg", 1), "bishop_pawns": ("mg+eg", -1)},
}


def _term_module(path: Path) -> ModuleType:
    """The term file run as a module of its own (its functions are the reference counts, not the exporter's)."""
    spec = importlib.util.spec_from_file_location(f"export_terms_{path.stem}_{path.stat().st_size}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _user_organism(tmp_path: Path, which: str) -> tuple[Path, ModuleType]:
    """An organism file of the layout ``which`` (``mine``, ``small``: :data:`USER_LAYOUT` written here; ``example``:
    docs/examples/threats.py) and its term file's module. Built-in genes take the shipped rich organism's values,
    user genes chosen values within their ranges (the example: random genes, as tests/test_user_terms.py's)."""
    if which == "example":
        organism = Organism.random(4, layout_genome(str(EXAMPLE)))
        module = _term_module(EXAMPLE)
    else:
        terms = tmp_path / "export_terms.py"
        terms.write_text(USER_LAYOUT)
        genome = layout_genome(str(terms) + (":SMALL" if which == "small" else ""))
        rich = _genes(RICH)
        chosen = {"pawn_advance_mg": 11.0, "pawn_advance_eg": 23.5, "loose_pieces": 17.25, "king_rank_eg": 9.0}
        organism = Organism.from_weights({n: rich.get(n, chosen.get(n, 0.0)) for n in genome.names}, genome)
        module = _term_module(terms)
    path = tmp_path / f"{which}.json"
    organism.save(path)
    return path, module


def _user_differences(module: ModuleType, spec: dict[str, tuple[str, int]], board: chess.Board) -> list[float]:
    """Each user term's White count minus Black's, from the term file's own ``board`` functions."""
    return [float(white) - float(black) for white, black in (getattr(module, name)(board) for name in spec)]


def _user_rows(boards: list[chess.Board], terms: list[str], module: ModuleType, spec: dict[str, tuple[str, int]],
               zero_user: bool = False) -> str:
    """One line per position: 64 piece codes (a1 .. h8), White to move, the counts of the positional terms listed
    (by name, White's minus Black's), then the user terms' (exact doubles, or zeros)."""
    lines = []
    for b in boards:
        _, raw = board_terms(b)
        counts = dict(zip(TERM_NAMES, raw, strict=True))
        user = [0.0] * len(spec) if zero_user else _user_differences(module, spec, b)
        lines.append(" ".join([*(str(_code(b, s)) for s in range(64)), str(int(b.turn)),
                               *(str(counts[t]) for t in terms), *map(repr, user)]))
    return "\n".join(lines) + "\n"


def _user_c_harness(terms: bool) -> str:
    """A harness printing the export's names (a line), its values (a line), then the score of each row read; the
    positional terms' array and argument only when the layout has some (``terms``)."""
    def only(line: str) -> list[str]:
        return [line] if terms else []

    return "\n".join([
        "#include <stdio.h>",
        '#include "{export}"',
        "int main(void)",
        "{{",
        "    int board[64], white;",
        "    double user[MIMIC_N_USER_TERMS];",
        *only("    int terms[MIMIC_N_TERMS];"),
        *only('    for (int t = 0; t < MIMIC_N_TERMS; t++) printf("%s ", mimic_term_names[t]);'),
        '    printf("|");',
        '    for (int k = 0; k < MIMIC_N_USER_TERMS; k++) printf(" %s", mimic_user_term_names[k]);',
        '    printf("\\n");',
        '    for (int p = 0; p < 6; p++) printf("%.17g ", mimic_material[p]);',
        *only("    for (int t = 0; t < MIMIC_N_TERMS; t++)"),
        *only('        printf("%.17g %.17g ", mimic_term_mg[t], mimic_term_eg[t]);'),
        "    for (int p = 0; p < 6; p++)",
        '        for (int s = 0; s < 64; s++) printf("%.17g %.17g ", mimic_psq_mg[p][s], mimic_psq_eg[p][s]);',
        "    for (int k = 0; k < MIMIC_N_USER_TERMS; k++)",
        '        printf("%.17g %.17g ", mimic_user_term_mg[k], mimic_user_term_eg[k]);',
        '    printf("\\n");',
        "    for (;;) {{",
        '        for (int s = 0; s < 64; s++) if (scanf("%d", &board[s]) != 1) return 0;',
        '        if (scanf("%d", &white) != 1) return 1;',
        *only('        for (int t = 0; t < MIMIC_N_TERMS; t++) if (scanf("%d", &terms[t]) != 1) return 1;'),
        '        for (int k = 0; k < MIMIC_N_USER_TERMS; k++) if (scanf("%lf", &user[k]) != 1) return 1;',
        f'        printf("%d\\n", mimic_evaluate(board, white, {"terms, " if terms else ""}user));',
        "    }}",
        "}}",
        ""])


def _expected_user(genes: dict[str, float], spec: dict[str, tuple[str, int]]) -> tuple[list[float], list[float]]:
    """Each user term's mg and eg weight from its declaration alone (docs/terms.md: taper ``all`` is one gene NAME
    for both phases, ``mg``/``eg`` one gene NAME_mg/NAME_eg for that phase, none for the other; times ``sign``)."""
    mg, eg = [], []
    for name, (taper, sign) in spec.items():
        mg.append(sign * genes[name] if taper == "all" else sign * genes[f"{name}_mg"] if "mg" in taper else 0.0)
        eg.append(sign * genes[name] if taper == "all" else sign * genes[f"{name}_eg"] if "eg" in taper else 0.0)
    return mg, eg


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")
@pytest.mark.parametrize("which", ["mine", "small", "example"])
def test_a_user_layouts_c_export_returns_mimics_evaluation(tmp_path: Path, which: str) -> None:
    source, module = _user_organism(tmp_path, which)
    spec = USER_SPECS[which]
    genes = _genes(source)
    user_genes = frozenset(g for g in genes if g.split("_mg")[0].split("_eg")[0] in spec or g in spec)
    want = _expected(genes, user_genes)
    terms: list[str] = want["terms"]  # type: ignore[assignment]
    export = _export(tmp_path, source, "--format", "c")
    comment = " ".join(export.read_text().split("*/", 1)[0].replace(" * ", " ").split())  # the head, unwrapped
    term_file = Path(str(module.__file__))
    spec_text = f"{term_file.resolve()}{':SMALL' if which == 'small' else ''}"  # the layout as --genome named it
    assert f"{spec_text} (SHA-256 {hashlib.sha256(term_file.read_bytes()).hexdigest()})" in comment
    for name in spec:  # each term's definition beside its name, in order
        assert re.search(rf"\[\d\] {name} \(taper ", comment), name
    harness = _compile_c(tmp_path, export, _user_c_harness(bool(terms)))
    boards = BOARDS[:400]
    run = subprocess.run([str(harness)], input=_user_rows(boards, terms, module, spec), capture_output=True,
                         text=True, check=True)
    names, values, *scores = run.stdout.splitlines()
    assert names.split() == [*terms, "|", *spec]  # the built-in terms the layout has, then the user's, in order
    got = [float(x) for x in values.split()]
    assert got[:6] == want["material"]
    n = 2 * len(terms)
    assert got[6:6 + n:2] == want["term_mg"] and got[7:6 + n:2] == want["term_eg"]
    psq = got[6 + n:6 + n + 768]
    assert psq[0::2] == [x for row in want["psq"]["mg"] for x in row]  # type: ignore[index]
    assert psq[1::2] == [x for row in want["psq"]["eg"] for x in row]  # type: ignore[index]
    assert (got[6 + n + 768::2], got[7 + n + 768::2]) == _expected_user(genes, spec)
    organism = Organism.load(source)
    want_scores = [organism.evaluate(b) for b in boards]
    assert [int(s) for s in scores] == want_scores  # 0 cp apart on 400 positions
    assert len(set(want_scores)) > 100
    # The user terms' counts are inputs that matter: with them zeroed, many scores move.
    zeroed = subprocess.run([str(harness)], input=_user_rows(boards, terms, module, spec, zero_user=True),
                            capture_output=True, text=True, check=True).stdout.splitlines()[2:]
    assert sum(a != b for a, b in zip(zeroed, scores, strict=True)) > 100


def test_the_mine_layout_drops_what_it_says(tmp_path: Path) -> None:
    # What USER_LAYOUT's drop list takes out, read from the export's values: the rook's material value and the
    # queen's tables are 0, the bishop pair is not listed, king centrality keeps its middle-game weight only.
    source, _ = _user_organism(tmp_path, "mine")
    data = json.loads(_export(tmp_path, source, "--format", "json").read_text())
    rich = _genes(RICH)
    assert data["material"]["mg"] == [rich["pawn"], rich["knight"], rich["bishop"], 0.0, rich["queen"], 0.0]
    assert data["piece_square"]["mg"]["queen"] == [0.0] * 64 == data["piece_square"]["eg"]["queen"]
    assert data["piece_square"]["mg"]["rook"] != [0.0] * 64
    names = [t["name"] for t in data["terms"]]
    assert "bishop_pair" not in names and len(names) == 25
    king = data["terms"][names.index("king_center")]
    assert (king["mg"], king["eg"], king["from"]["eg"]) == (-rich["king_center_mg"], 0.0, None)


@pytest.mark.skipif(RUSTC is None, reason="no Rust compiler (rustc) on PATH or in ~/.cargo/bin")
def test_a_user_layouts_rust_export_returns_mimics_evaluation(tmp_path: Path) -> None:
    source, module = _user_organism(tmp_path, "mine")
    spec = USER_SPECS["mine"]
    terms: list[str] = _expected(_genes(source), frozenset(_genes(source)) - frozenset(_genes(RICH)))["terms"]  # type: ignore[assignment]
    export = _export(tmp_path, source, "--format", "rust")
    lib = subprocess.run([str(RUSTC), "--edition", "2021", "--crate-type", "lib", "-D", "warnings", str(export),
                          "--crate-name", "organism", "--out-dir", str(tmp_path)], capture_output=True, text=True)
    assert lib.returncode == 0, lib.stderr
    (tmp_path / "main.rs").write_text(USER_RUST_HARNESS.format(export=export))
    main = subprocess.run([str(RUSTC), "--edition", "2021", str(tmp_path / "main.rs"), "-o",
                           str(tmp_path / "harness")], capture_output=True, text=True)
    assert main.returncode == 0, main.stderr
    boards = BOARDS[:300]
    run = subprocess.run([str(tmp_path / "harness")], input=_user_rows(boards, terms, module, spec),
                         capture_output=True, text=True, check=True)
    names, *scores = run.stdout.splitlines()
    assert names.split() == [*terms, "|", *spec]
    organism = Organism.load(source)
    assert [int(s) for s in scores] == [organism.evaluate(b) for b in boards]


USER_RUST_HARNESS = """#![allow(dead_code)]
include!("{export}");
use std::io::Read;
fn main() {{
    println!("{{}} | {{}}", TERM_NAMES.join(" "), USER_TERM_NAMES.join(" "));
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let words: Vec<&str> = text.split_whitespace().collect();
    for row in words.chunks(64 + 1 + N_TERMS + N_USER_TERMS) {{
        let n: Vec<i32> = row[..65 + N_TERMS].iter().map(|x| x.parse().unwrap()).collect();
        let user: Vec<f64> = row[65 + N_TERMS..].iter().map(|x| x.parse().unwrap()).collect();
        let board: [i32; 64] = n[..64].try_into().unwrap();
        let terms: [i32; N_TERMS] = n[65..].try_into().unwrap();
        let user: [f64; N_USER_TERMS] = user[..].try_into().unwrap();
        println!("{{}}", evaluate(&board, n[64] == 1, &terms, &user));
    }}
}}
"""


def test_a_user_layouts_json_names_its_terms_and_file(tmp_path: Path) -> None:
    source, _ = _user_organism(tmp_path, "example")
    genes = _genes(source)
    spec = USER_SPECS["example"]
    data = json.loads(_export(tmp_path, source, "--format", "json").read_text())
    recorded = json.loads(source.read_text())
    assert data["user_layout"]["source"] == recorded["layout"] == str(EXAMPLE.resolve())
    digest = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    assert data["user_layout"]["sha256"] == recorded["layout_sha256"] == digest
    mg, eg = _expected_user(genes, spec)
    assert [(u["name"], u["mg"], u["eg"], u["taper"], u["sign"]) for u in data["user_terms"]] == [
        (name, m, e, taper, sign) for (name, (taper, sign)), m, e in zip(spec.items(), mg, eg, strict=True)]
    assert data["user_terms"][1]["from"] == {"mg": {"gene": "bishop_pawns_mg", "sign": -1},
                                             "eg": {"gene": "bishop_pawns_eg", "sign": -1}}
    assert data["user_terms"][0]["counts"].startswith("pawn_threat(board), pawn_threat_batch(rows): Knights, bishops")
    assert data["genes"] == genes and len(data["terms"]) == N_TERMS  # the example keeps all of rich
    assert "user_term_counts" in data and str(EXAMPLE.resolve()) in data["user_term_counts"]
    assert "421 genes, 417 of mimic's own features and 4 genes of 2 user terms;" in data["source"]
    pesto = json.loads(_export(tmp_path, source, "--format", "json", "--layout", "pesto").read_text())
    assert pesto["user_terms"] == data["user_terms"] and "user terms" in pesto["evaluation"]


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")
def test_a_user_layouts_pesto_export_keeps_its_terms_beside(tmp_path: Path) -> None:
    # PeSTO's layout: material and tables only in pesto_eval; the user terms' weights are constants beside it.
    source, _ = _user_organism(tmp_path, "mine")
    export = _export(tmp_path, source, "--layout", "pesto")
    _compile_c(tmp_path, export, PESTO_HARNESS)
    text = export.read_text()
    genes = _genes(source)
    assert f"#define MIMIC_USER_LOOSE_PIECES {genes['loose_pieces']!r}" in text
    assert "    -MIMIC_USER_LOOSE_PIECES, /* loose_pieces */" in text and "int pesto_eval(" in text


def test_a_user_organism_whose_term_file_changed_or_went_is_refused(tmp_path: Path) -> None:
    source, _ = _user_organism(tmp_path, "mine")
    terms = tmp_path / "export_terms.py"
    for change in ("edit", "remove"):
        if change == "edit":
            terms.write_text(terms.read_text() + "# edited\n")
        else:
            terms.unlink()
        with pytest.raises(LayoutError) as loading:
            Organism.load(source)
        out = tmp_path / f"refused-{change}.c"
        done = run_mimic("export", source, "--out", out)
        assert done.returncode == 2 and not out.exists()
        assert done.stderr.splitlines() == [f"mimic export: {loading.value}"]  # as loading it is refused
        assert ("has changed since the organism was made" if change == "edit" else "is missing") in done.stderr


def test_user_genes_that_cannot_be_constants_are_refused_for_c_and_rust(tmp_path: Path) -> None:
    # Two terms whose names differ only in case would be one C macro and one Rust constant; a name Rust's own
    # arrays take (USER_TERM_MG) collides in Rust alone. JSON exports both.
    terms = tmp_path / "cases.py"
    terms.write_text("from organisms.userterms import Layout, Term\ndef f(board):\n    return 1, 0\n"
                     "LAYOUT = Layout(builtins=['tempo'], terms=[Term('threat', board=f), Term('THREAT', board=f)])\n"
                     "ARRAY = Layout(builtins=['tempo'], terms=[Term('term', board=f, taper='mg')])\n")
    for spec, refused in ((str(terms), ("c", "rust")), (f"{terms}:ARRAY", ("rust",))):
        source = tmp_path / f"o{len(spec)}.json"
        Organism.random(1, layout_genome(spec)).save(source)
        for fmt in ("c", "rust", "json"):
            done = run_mimic("export", source, "--format", fmt)
            if fmt in refused:
                assert done.returncode == 2, fmt
                (line,) = done.stderr.splitlines()
                assert re.fullmatch(rf"mimic export: --format {fmt}: the user term gene '\w+' would be the constant "
                                    r"\w+, which is .+ \(--format json exports it\)", line), line
            else:
                assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ checking a port: --explain, reference scores


def test_explain_by_hand_on_a_king_and_pawn_against_king() -> None:
    # White: Ke1, Pe2; Black: Ke8; Black to move. Counted by hand (organisms/terms.py's definitions): the pawn (1);
    # it is isolated (no pawn on d or f: 1) and passed on its rank 2 (no black pawn ahead: 1); White's king shield
    # holds it (e2 is one rank in front of e1: 1, Black's 0); open files by the king: White's d and f (2), Black's
    # d, e and f (3): -1. Everything else 0. Phase 0 (no pieces): phi = 0, so each contribution is count * EG, the
    # king-safety terms (middle game only) add 0, and the paper organism has no tables.
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")
    organism = Organism.load(PAPER)
    genes = _genes(PAPER)
    got = explain(organism_tables(organism, str(PAPER), ""), organism, board)
    counts = {i.name: i.count for i in got.inputs if i.count}
    assert counts == {"pawn": 1, "isolated_pawn": 1, "passed_pawn_rank2": 1, "king_shield": 1, "king_open_file": -1}
    assert [i.where for i in got.inputs[:6]] == ["board"] * 5 + ["terms[0]"]
    v = genes["pawn"] - genes["isolated_pawn_eg"] + genes["passed_pawn_rank2_eg"]
    assert got.phase == 0 and got.psq == 0 and got.white_view == pytest.approx(v)
    assert got.score == math.floor(-v + genes["tempo"] + 0.5) == organism.evaluate(board) == got.mimic
    done = run_mimic("export", PAPER, "--explain", board.fen())
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"score: {got.score} cp from Black's view (mimic's Organism.evaluate: " \
                                           f"{organism.evaluate(board)})"
    refused = run_mimic("export", PAPER, "--explain", board.fen(), "--format", "json")
    assert refused.returncode == 2 and refused.stderr.splitlines() == [
        "mimic export: --explain prints one position's evaluation and exports nothing: drop --format"]


@pytest.mark.parametrize("which", ["rich", "example"])
def test_explain_gives_the_terms_counts_and_mimics_score(tmp_path: Path, which: str) -> None:
    if which == "rich":
        source, module, spec = RICH, None, {}
    else:
        source, module = _user_organism(tmp_path, "example")
        spec = USER_SPECS["example"]
    organism = Organism.load(source)
    tables = organism_tables(organism, str(source), "")
    for board in BOARDS[:300]:
        got = explain(tables, organism, board)
        assert got.score == got.mimic == organism.evaluate(board)
        _, raw = board_terms(board)
        counts = dict(zip(TERM_NAMES, raw, strict=True))
        builtin = [i for i in got.inputs if not i.where.startswith("user")]
        assert [i.count for i in builtin] == [counts[i.name] for i in builtin]  # organisms/terms.py's counts
        user = [i.count for i in got.inputs if i.where.startswith("user")]
        assert user == (_user_differences(module, spec, board) if module is not None else [])
        assert sum(i.contribution for i in got.inputs) + got.psq == pytest.approx(got.white_view, abs=1e-9)


def test_reference_scores_are_mimics_and_leave_positions_in_check_out(tmp_path: Path) -> None:
    # docs/export.md: `mimic label --mentor builtin:organism:ORG@eval --source my.epd` writes Organism.evaluate's
    # score of each position; a position in check (the rook on e2 checks White's king) is left out.
    check = chess.Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    mine = tmp_path / "my.epd"
    mine.write_text("".join(b.epd() + "\n" for b in [*BOARDS[:12], check]))
    out = tmp_path / "ref.epd"
    done = run_mimic("label", "--mentor", f"builtin:organism:{RICH}@eval", "--source", mine, "--out", out)
    assert done.returncode == 0, done.stderr
    labelled = [chess.Board.from_epd(line) for line in out.read_text().splitlines()]
    organism = Organism.load(RICH)
    assert [b.epd() for b, _ in labelled] == [b.epd() for b in BOARDS[:12] if not b.is_check()]
    assert [ops["ce"] for _, ops in labelled] == [organism.evaluate(b) for b, _ in labelled]
    assert f"in check {1 + sum(b.is_check() for b in BOARDS[:12])}" in done.stdout  # this one and the labels' own
