"""mimic export (issue 40): an organism as C, Rust and JSON, compiled and run against mimic's own evaluation; a
perspective net as raw little-endian integers, read by the plain-Python reference reader, scoring 1,000 positions
exactly as mimic does. Real files throughout: the shipped organisms and net, committed labels, a real compiler.

Expected values are derived here, independently of the exporter: the tables and constants from the organism file's
genes by their names (``pst_knight_c3_mg`` is the knight's middle-game offset on c3 and its file mirror f3; a penalty
gene is subtracted), the net's integers from its float32 arrays times 255 or 1024 rounded half to even (the
arithmetic docs/export.md states), its header by ``struct`` as docs/export.md lays it out byte by byte.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import chess
import pytest

from organisms import Organism
from organisms.terms import board_terms

from .conftest import run_mimic

ROOT = Path(__file__).resolve().parents[1]
RICH = ROOT / "results/rich-stockfish/organism.json"
PAPER = ROOT / "results/paper-stockfish/organism.json"
NET = ROOT / "results/pnet/pnet.npz"
LABELS = ROOT / "results/heldout-mixed/labels.epd"
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


def _expected(genes: dict[str, float]) -> dict[str, object]:
    """Tables (a1 = 0, White's view), material and term weights from the gene names alone."""
    psq = {phase: [[0.0] * 64 for _ in PIECES] for phase in ("mg", "eg")}
    mg, eg = [0.0] * N_TERMS, [0.0] * N_TERMS
    terms: list[str] = []
    for name, value in genes.items():
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
                row[terms.index(term)] = sign * value
    material = [genes[p] for p in PIECES[:5]] + [0.0]
    return {"psq": psq, "term_mg": mg, "term_eg": eg, "terms": terms, "material": material, "tempo": genes["tempo"]}


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
