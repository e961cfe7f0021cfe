"""A user's own terms (issue 40, docs/terms.md): a term file or module declares genes and terms, and mimic extracts
their features (in parallel, cached by the file's content), evolves and fits them, plays the organism (whose file
records the layout's source and digest, and is refused against a changed or missing file), and reports a bad term
in one line naming it and the position, exit 2."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import uuid
from pathlib import Path

import chess
import numpy as np
import pytest

from evolve.ga.run import initial_chromosome
from organisms import Organism
from organisms.features import RICH_FEATURE_NAMES, bitboard_row, feature_matrix, feature_names, feature_set_id, features
from organisms.genome import layout_genome, rich_genome
from organisms.userfeatures import TermError
from organisms.userlayout import LayoutError
from organisms.userterms import flip_rows
from tests.conftest import CliRunner, random_positions, write_expert_labels

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "threats.py"
REDECLARED = ROOT / "benchmarks" / "data" / "redeclared_terms.py"

OPEN_ROOKS = '''
import chess
import numpy as np
from organisms.userterms import BLACK, PAWNS, ROOKS, WHITE, Layout, Term, bb, popcount

def open_rook(board):
    counts = []
    for color in (chess.WHITE, chess.BLACK):
        rooks = board.rooks & board.occupied_co[color]
        counts.append(sum(1 for s in chess.scan_forward(rooks) if not chess.BB_FILES[s & 7] & board.pawns))
    return counts[0], counts[1]

def open_rook_batch(rows):
    out = np.zeros((len(rows), 2), dtype=np.int64)
    for side, colour in enumerate((WHITE, BLACK)):
        for f in chess.BB_FILES:
            out[:, side] += popcount(rows[:, ROOKS] & rows[:, colour] & bb(f)) * ((rows[:, PAWNS] & bb(f)) == 0)
    return out

def c_pawns_batch(rows):
    c = bb(chess.BB_FILE_C)
    return np.stack([popcount(rows[:, PAWNS] & rows[:, WHITE] & c), popcount(rows[:, PAWNS] & rows[:, BLACK] & c)], 1)

LAYOUT = Layout(builtins=["rook_open_file", "tempo"], terms=[
    Term("open_rook", board=open_rook, batch=open_rook_batch, bits=7, low=0, high=127, taper="mg+eg"),
    Term("c_pawns", batch=c_pawns_batch, bits=7, low=0, high=127, sign=-1),
])
'''
# White: rooks d1 e1, king g1, pawns a2 b2 f2 g2 h2. Black: rooks a8 e8, king g8, pawns a7 b7 c7 f7 g7 h7.
HAND = "r3r1k1/ppp2ppp/8/8/8/8/PP3PPP/3RR1K1 {} - - 0 1"


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("labels") / "labels.epd"
    write_expert_labels(path, 120, seed=3)
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _genes(path: Path) -> dict[str, float]:
    return {g["name"]: g["value"] for g in json.loads(path.read_text())["genes"]}


def test_a_term_counted_by_hand(tmp_path: Path) -> None:
    terms = tmp_path / "rooks.py"
    terms.write_text(OPEN_ROOKS)
    layout = str(terms)
    assert feature_names(layout) == ("rook_open_file", "tempo", "open_rook_mg", "open_rook_eg", "c_pawns")
    # Pawns on files a, b, f, g, h (both), c (Black's c7); d and e hold none. White's rooks d1 and e1 are on open
    # files: 2; Black's e8 is, a8 is not: 1. White minus Black = 1. Phase: four rooks x 2 = 8, phi = 8/24 = 1/3.
    # c_pawns: White 0, Black 1: -1, a penalty (sign -1): +1 for White.
    white = features(chess.Board(HAND.format("w")), layout)
    assert white.tolist() == pytest.approx([1, 1, 1 / 3, 2 / 3, 1])
    black = features(chess.Board(HAND.format("b")), layout)  # the side to move's view: negated, tempo aside
    assert black.tolist() == pytest.approx([-1, 1, -1 / 3, -2 / 3, -1])
    # Weights (each range's high end, or a whole number on a step of 1): rook_open_file 60, tempo 50,
    # open_rook 30 (mg) and 60 (eg), c_pawns 12. White to move: 60 + 50 + 30/3 + 60*2/3 + 12 = 172;
    # Black to move: -(60 + 10 + 40 + 12) + 50 = -72. The organism evaluates on the board (c_pawns, batch only,
    # on its one row), not from the feature vector.
    genome = layout_genome(layout)
    weights = {"rook_open_file": 60.0, "tempo": 50.0, "open_rook_mg": 30.0, "open_rook_eg": 60.0, "c_pawns": 12.0}
    organism = Organism.from_weights(weights, genome)
    assert organism.values() == weights
    assert organism.evaluate(chess.Board(HAND.format("w"))) == 172
    assert organism.evaluate(chess.Board(HAND.format("b"))) == -72


def test_redeclared_builtin_terms_make_the_builtin_columns() -> None:
    # benchmarks/data/redeclared_terms.py writes three built-in terms again, in both forms; an independent
    # implementation must give the very same columns on varied positions (and the mirror gives Black's view).
    boards = random_positions(11, 300)
    rich = feature_matrix(boards, use_cache=False, layout="rich")
    for layout in (str(REDECLARED), f"{REDECLARED}:BATCH"):
        names = feature_names(layout)
        assert len(names) == 417 and names[-4:] == ("my_rook_open_file", "my_rook_half_open_file",
                                                    "my_bishop_pair_mg", "my_bishop_pair_eg")
        matrix = feature_matrix(boards, use_cache=False, layout=layout)
        for j, name in enumerate(names):
            assert np.array_equal(matrix[:, j], rich[:, RICH_FEATURE_NAMES.index(name.removeprefix("my_"))]), name
    rows = np.array([bitboard_row(b) for b in boards[:50]], dtype=np.uint64)
    assert np.array_equal(flip_rows(rows), np.array([bitboard_row(b.mirror()) for b in boards[:50]], dtype=np.uint64))


def test_the_organism_evaluates_its_features(tmp_path: Path) -> None:
    # The engine's path (built-in part folded, user terms on the board) equals the rounded dot product of the
    # extraction's path (rows, batch forms), on random positions, for the docs' example layout.
    boards = random_positions(5, 300)
    layout = str(EXAMPLE)
    matrix = feature_matrix(boards, use_cache=False, layout=layout).astype(np.float64)
    assert matrix.shape == (300, 421)
    organism = Organism.random(4, layout_genome(layout))
    got = np.array([organism.evaluate(b) for b in boards])
    assert np.all(np.abs(got - matrix @ organism.weights) <= 0.5 + 1e-3)
    assert np.abs(matrix[:, -4:] @ organism.weights[-4:]).max() > 10  # the two terms move the evaluation
    assert np.array_equal(matrix[:, :417], feature_matrix(boards, use_cache=False, layout="rich"))


def test_features_in_workers_and_cached_by_content(tmp_path: Path) -> None:
    terms = tmp_path / "threats.py"
    shutil.copy(EXAMPLE, terms)
    some = np.array([bitboard_row(b) for b in random_positions(8, 300)], dtype=np.uint64)
    rows = np.concatenate([some] * 7)  # 2,100 rows: at least 2,000 go to workers
    serial = feature_matrix(rows, use_cache=False, layout=str(terms))
    cache = tmp_path / "cache"
    assert np.array_equal(feature_matrix(rows, n_jobs=2, cache_dir=cache, layout=str(terms)), serial)
    assert _sha(terms) in feature_set_id(str(terms)) and len(list(cache.glob("*.npz"))) == 1
    assert np.array_equal(feature_matrix(rows, cache_dir=cache, layout=str(terms)), serial)  # read back
    assert len(list(cache.glob("*.npz"))) == 1
    terms.write_text(terms.read_text() + "# another version\n")  # new content, new key
    feature_matrix(rows[:100], cache_dir=cache, layout=str(terms))
    assert len(list(cache.glob("*.npz"))) == 2
    # A term that fails in a worker is the same one line as in this process, naming the line of the term file that
    # raised: the assert goes where the example's `return ((white_attacks` was (1-based), which moves down one.
    bad = tmp_path / "bad.py"
    failing = "assert board.turn\n    return ((white_attacks"  # the board form fails with Black to move
    bad.write_text(EXAMPLE.read_text().replace("return ((white_attacks", failing))
    line = 1 + next(i for i, text in enumerate(EXAMPLE.read_text().splitlines()) if "return ((white_attacks" in text)
    with pytest.raises(TermError, match=rf"^term 'pawn_threat' of .*bad\.py: raised AssertionError \(line {line}\), "
                                        r"at \S+ b - - 0 1$"):
        feature_matrix(rows, n_jobs=2, use_cache=False, layout=str(bad))


def test_evolve_fit_play_and_refuse_a_changed_layout(cli: CliRunner, labels: Path, tmp_path: Path) -> None:
    terms = tmp_path / "threats.py"
    shutil.copy(EXAMPLE, terms)
    data = ["--genome", str(terms), "--target", "root"]
    fitted = cli("fit", labels, *data, "--out", tmp_path / "fit.json")
    assert fitted.returncode == 0, fitted.stderr
    assert sorted(p.name for p in tmp_path.glob("*.py")) == ["threats.py"]  # beside the term file itself: no copy
    # The fit prints each user gene's value: the organism file's (to the 3 decimals printed).
    values = _genes(tmp_path / "fit.json")
    for gene in ("pawn_threat_mg", "pawn_threat_eg", "bishop_pawns_mg", "bishop_pawns_eg"):
        row = re.search(rf"^    {gene} +(\S+) +(\S+) +\[", fitted.stdout, re.M)
        assert row is not None, fitted.stdout
        assert float(row[1]) == pytest.approx(values[gene], abs=5e-4)
    evolved = cli("evolve", labels, *data, "--generations", "2", "--population", "8", "--sample", "40",
                  "--out", tmp_path / "run", "--no-progress")
    assert evolved.returncode == 0, evolved.stderr
    organism = tmp_path / "run" / "organism.json"
    copy = tmp_path / "run" / "threats.py"
    assert copy.read_bytes() == EXAMPLE.read_bytes() and "threats.py (the term file)" in evolved.stdout
    for path in (tmp_path / "fit.json", organism):
        data_ = json.loads(path.read_text())
        assert data_["layout"] == str(terms.resolve()) and data_["layout_sha256"] == _sha(terms)
        assert [g["name"] for g in data_["genes"]][-4:] == ["pawn_threat_mg", "pawn_threat_eg", "bishop_pawns_mg",
                                                              "bishop_pawns_eg"]
    pgn = tmp_path / "m.pgn"
    played = cli("match", f"organism:{organism}@depth=1", f"organism:{tmp_path / 'fit.json'}@depth=1", "--games", "2",
                 "--jobs", "1", "--max-plies", "8", "--pgn", pgn)
    assert played.returncode == 0, played.stderr
    assert pgn.read_text().count("[Result ") == 2

    # The term file edited: the evolved organism loads from the copy beside it; fit.json, beside the edited file
    # itself, is refused in one line.
    terms.write_text(terms.read_text() + "# edited\n")
    assert Organism.load(organism).layout == str(copy.resolve())
    refused = cli("match", f"organism:{tmp_path / 'fit.json'}@depth=1", "material@depth=1", "--games", "2")
    assert refused.returncode == 2
    (line,) = refused.stderr.strip().splitlines()
    assert re.fullmatch(rf"mimic match: .*fit\.json: its genome layout {re.escape(str(terms.resolve()))} has changed "
                        r"since the organism was made \(SHA-256 [0-9a-f]{12}… recorded, [0-9a-f]{12}… now\): restore "
                        r"the file, or make the organism again with this one", line), line
    # The copy edited too: refused, naming both files.
    shutil.copy(terms, copy)
    with pytest.raises(LayoutError, match=rf"has changed since .* now; {re.escape(str(copy))} beside the organism is "
                                          r"not it either"):
        Organism.load(organism)
    # The original gone: refused, unless a file of the recorded bytes sits beside the organism.
    terms.unlink()
    with pytest.raises(LayoutError, match=rf"its genome layout .*threats\.py is missing, and {re.escape(str(copy))} "
                                          r"beside the organism is not it"):
        Organism.load(organism)
    copy.unlink()
    with pytest.raises(LayoutError, match=r"its genome layout .*threats\.py is missing \(and no threats\.py beside"):
        Organism.load(organism)
    shutil.copy(EXAMPLE, copy)
    assert Organism.load(organism).layout == str(copy.resolve())


def test_a_different_file_where_the_copy_goes_is_refused_before_any_work(cli: CliRunner, labels: Path,
                                                                         tmp_path: Path) -> None:
    terms = tmp_path / "threats.py"
    shutil.copy(EXAMPLE, terms)
    (tmp_path / "out").mkdir()
    other = tmp_path / "out" / "threats.py"
    other.write_text("# another file of the same name\n")
    for command in (["fit", labels, "--out", tmp_path / "out" / "fit.json"],
                    ["evolve", labels, "--out", tmp_path / "out", "--generations", "1", "--no-progress"]):
        done = cli(*command, "--genome", terms)
        assert done.returncode == 2 and done.stdout == "", done.stdout  # before the labels are read
        assert done.stderr.splitlines() == [
            f"mimic {command[0]}: {other} exists and is not the term file {terms.resolve()}, whose copy goes beside "
            "the organism: move it away, or choose another --out"]
    assert other.read_text() == "# another file of the same name\n" and not (tmp_path / "out" / "fit.json").exists()


def test_a_term_whose_genes_are_0_is_not_computed_in_play(tmp_path: Path) -> None:
    # docs/terms.md, "What runs when": extraction runs every term; the engine only the terms it weighs.
    terms = tmp_path / "zero.py"
    terms.write_text("from organisms.userterms import Layout, Term\n"
                     "def boom(board):\n    raise RuntimeError('ran')\n"
                     "LAYOUT = Layout(builtins=['paper'], terms=[Term('boom', board=boom, taper='mg+eg')])\n")
    genome = layout_genome(str(terms))
    weights = dict.fromkeys(genome.names, 0.0) | {"pawn": 100.0}
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    assert Organism.from_weights(weights, genome).evaluate(board) > 0  # boom never ran
    with pytest.raises(TermError, match=r"raised RuntimeError: ran \(line 3\)"):
        Organism.from_weights(weights | {"boom_eg": 1.0}, genome).evaluate(board)
    with pytest.raises(TermError, match=r"raised RuntimeError: ran \(line 3\)"):
        features(board, str(terms))


def test_a_rich_organism_starts_a_user_layout_run(tmp_path: Path) -> None:
    # --init with a rich organism: its 417 values carried over, the two new terms' genes at 0 (their range's low end).
    rich = Organism.random(2, rich_genome())
    rich.save(tmp_path / "rich.json")
    genome = layout_genome(str(EXAMPLE))
    start = Organism(genome, initial_chromosome(tmp_path / "rich.json", genome))
    assert np.allclose(start.weights[:417], rich.weights, atol=genome.scale.max())
    assert start.weights[417:].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_a_layout_from_a_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = f"userterms_{uuid.uuid4().hex[:8]}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    module = tmp_path / package / "mine.py"
    module.write_text(OPEN_ROOKS.replace("LAYOUT =", "ROOKS ="))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = f"{package}.mine:ROOKS"
    genome = layout_genome(spec)
    assert genome.layout is not None and genome.layout.source == spec and genome.layout.sha256 == _sha(module)
    organism = Organism.random(1, genome)
    organism.save(tmp_path / "o.json")
    assert json.loads((tmp_path / "o.json").read_text())["layout"] == spec
    assert Organism.load(tmp_path / "o.json").evaluate(chess.Board(HAND.format("w"))) == organism.evaluate(
        chess.Board(HAND.format("w")))
    module.write_text(module.read_text() + "# edited\n")
    with pytest.raises(LayoutError, match=rf"o\.json: its genome layout {spec} has changed"):
        Organism.load(tmp_path / "o.json")


BAD_TERMS = {
    # name: (the term's code, a test the position named must pass)
    "raises": ("def t(board):\n    if not board.turn:\n        raise KeyError('black')\n    return 1, 0\n"
               "TERM = Term('t', board=t)", lambda b: b.turn == chess.BLACK),
    "pair": ("TERM = Term('t', board=lambda board: (1, 2, 3))", lambda b: True),
    "strings": ("TERM = Term('t', board=lambda board: ('1', '0'))", lambda b: True),
    "nan": ("TERM = Term('t', board=lambda board: (float('nan') if board.turn else 0, 0))", lambda b: b.turn),
    "changes": ("def t(board):\n    board.turn = not board.turn\n    return 0, 0\nTERM = Term('t', board=t)",
                lambda b: True),
    "batch_raises": ("def t(rows):\n    if (rows[:, TURN] == 0).any():\n        raise ValueError('black')\n"
                     "    return np.zeros((len(rows), 2))\nTERM = Term('t', batch=t)", lambda b: b.turn == chess.BLACK),
    "batch_shape": ("TERM = Term('t', batch=lambda rows: np.zeros((len(rows), 3)))", lambda b: True),
    "batch_inf": ("def t(rows):\n    out = np.zeros((len(rows), 2))\n"
                  "    out[popcount(rows[:, PAWNS]) < 16, 1] = np.inf\n    return out\nTERM = Term('t', batch=t)",
                  lambda b: len(b.pieces(chess.PAWN, chess.WHITE)) + len(b.pieces(chess.PAWN, chess.BLACK)) < 16),
    "disagree": ("TERM = Term('t', board=lambda board: (1, 0), batch=lambda rows: np.zeros((len(rows), 2)))",
                 lambda b: True),
}


@pytest.mark.parametrize("case", BAD_TERMS)
def test_a_bad_term_is_one_line_naming_it_and_the_position(cli: CliRunner, labels: Path, tmp_path: Path,
                                                           case: str) -> None:
    code, holds = BAD_TERMS[case]
    terms = tmp_path / "bad.py"
    terms.write_text("import numpy as np\nfrom organisms.userterms import PAWNS, TURN, Layout, Term, popcount\n"
                     f"{code}\nLAYOUT = Layout(builtins=['paper'], terms=[TERM])\n")
    run = cli("fit", labels, "--genome", terms, "--target", "root")
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    found = re.fullmatch(rf"mimic fit: term 't' of {re.escape(str(terms.resolve()))}: (.+), at (.+)", line)
    assert found, line
    assert holds(chess.Board(found[2])), line  # a real position, one the term fails on
    # The position as the term was given it: one of the labels' (for "changes", not the board it left behind).
    given = {(b.board_fen(), b.turn) for b in (chess.Board.from_epd(t)[0] for t in labels.read_text().splitlines())}
    named = chess.Board(found[2])
    assert (named.board_fen(), named.turn) in given, line
    if "raise " in code:  # the line of the file that raised (1-based; the file's two import lines come first)
        raised = 1 + next(i for i, text in enumerate(terms.read_text().splitlines()) if "raise " in text)
        assert found[1].endswith(f" (line {raised})"), line


BAD_LAYOUTS = {
    "LAYOUT = 3": r"LAYOUT must be an organisms\.userterms\.Layout \(the file binds int to it\)",
    "LAYOUT = Layout(terms=[Term('x', board=f, taper='middle')])": r"term 'x': taper must be one of all, mg, eg",
    "LAYOUT = Layout(terms=[Term('rook_open_file', board=f)])": r"term 'rook_open_file': feature 'rook_open_file' is "
                                                                r"a built-in feature's name",
    "LAYOUT = Layout(terms=[Term('x', board=f), Term('x', board=f)])": r"term 'x': feature 'x' is declared twice",
    "LAYOUT = Layout(builtins=['knights'])": r"builtins: 'knights' is no built-in name",
    "LAYOUT = Layout(terms=[Term('x', board=f, bits=0)])": r"term 'x': gene x: bits must be within 1\.\.52",
    "LAYOUT = Layout(terms=[Term('x')])": r"term 'x': give board=",
    "LAYOUT = Layout(terms=[Term('x', board=f, sign=2)])": r"term 'x': sign must be 1",
    "x = 1 / 0": r"the term file raised ZeroDivisionError: division by zero \(line 4\)$",
    "x = (1 +": r"the term file raised SyntaxError: '\(' was never closed \(line 4\)$",  # the line once
    "x = 1 +": r"the term file raised SyntaxError: invalid syntax \(line 4\)$",
}


@pytest.mark.parametrize("code", BAD_LAYOUTS)
def test_a_bad_layout_names_its_file_and_term(tmp_path: Path, code: str) -> None:
    terms = tmp_path / f"layout_{len(code)}.py"
    terms.write_text(f"from organisms.userterms import Layout, Term\ndef f(board):\n    return 0, 0\n{code}\n")
    with pytest.raises(LayoutError, match=rf"^{re.escape(str(terms.resolve()))}: {BAD_LAYOUTS[code]}"):
        feature_names(str(terms))


def test_the_command_line_refuses_a_bad_layout_in_one_line(cli: CliRunner, labels: Path, tmp_path: Path) -> None:
    run = cli("evolve", labels, "--genome", tmp_path / "absent.py", "--out", tmp_path / "run")
    assert run.returncode == 2
    assert run.stderr.strip() == f"mimic evolve: {tmp_path / 'absent.py'}: cannot read the term file: No such file " \
                                 "or directory"
    run = cli("fit", labels, "--genome", "no-layout")
    assert run.returncode == 2 and "argument --genome: unknown genome layout 'no-layout'" in run.stderr


def test_a_term_error_in_the_engine_names_the_position(tmp_path: Path) -> None:
    terms = tmp_path / "late.py"
    terms.write_text("from organisms.userterms import Layout, Term\n"
                     "def t(board):\n    return (float('inf') if board.fullmove_number > 1 else 0), 0\n"
                     "LAYOUT = Layout(builtins=['paper'], terms=[Term('late', board=t, low=1, high=2)])\n")
    organism = Organism.random(0, layout_genome(str(terms)))
    assert isinstance(organism.evaluate(chess.Board()), int)
    board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 9")
    with pytest.raises(TermError, match=r"^term 'late' of .*late\.py: returned \(inf, 0\), not finite, at "
                                        r"4k3/8/8/8/8/8/8/4K3 w - - 0 9$"):
        organism.evaluate(board)


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_docs_term_files_work_as_written(tmp_path: Path) -> None:
    docs = (ROOT / "docs" / "terms.md").read_text()
    # The worked example is the shipped file, byte for byte.
    example = docs.split("<!-- example: docs/examples/threats.py -->\n", 1)[1]
    assert _python_blocks(example)[0] == EXAMPLE.read_text()
    first, *_ = _python_blocks(docs)
    (tmp_path / "myterms.py").write_text(first)
    layout = str(tmp_path / "myterms.py")
    assert feature_names(layout)[-2:] == ("rook_seventh_king_eighth_mg", "rook_seventh_king_eighth_eg")
    # White's rook a7 with Black's king e8: White 1, Black (no rook) 0. Phase: one rook, 2, phi = 2/24 = 1/12.
    got = features(chess.Board("4k3/R7/8/8/8/8/8/4K3 w - - 0 1"), layout)[-2:]
    assert got.tolist() == pytest.approx([1 / 12, 11 / 12])
    # With the king on d7 instead, the rook's rank does not count: 0.
    assert features(chess.Board("8/R2k4/8/8/8/8/8/4K3 w - - 0 1"), layout)[-2:].tolist() == [0, 0]


def test_the_ga_defaults_follow_the_layout(tmp_path: Path) -> None:
    # A layout with piece-square genes evolves with the rich genome's defaults; one without, with the paper's.
    import argparse

    from evolve.cli.options import ga_settings
    from evolve.ga.settings import GASettings, rich_defaults

    paper_based = tmp_path / "small.py"
    paper_based.write_text(EXAMPLE.read_text().replace('builtins=["rich"]', 'builtins=["paper"]'))
    assert ga_settings(argparse.Namespace(genome=str(EXAMPLE))) == rich_defaults(GASettings())
    assert ga_settings(argparse.Namespace(genome=str(paper_based))) == GASettings()
