"""Issue 40, import: ``--init FILE`` of ``mimic evolve`` and ``mimic fit`` from gene values by name or PeSTO-layout
tables (beside organism files), the projection of tables onto the rich genome, the refusals, and the change term by
term in the run's summary and ``mimic fit``'s output.

Expected values are derived by hand: a gene's nearest value from its bits and range, PeSTO's evaluation from its
published definition (written out below over python-chess's pieces), a clipped projection's level by solving its
least squares on paper."""

from __future__ import annotations

import csv
import hashlib
import json
import math
import shutil
from pathlib import Path

import chess
import numpy as np
import pytest

from organisms import Organism
from organisms.features import features
from organisms.genome import layout_genome
from organisms.imported import InitFileError, read_start
from organisms.pst_import import Tables, distances, project
from search.runtime.errors import SettingsError

from .conftest import CliRunner, write_expert_labels

PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """150 random positions labelled by the built-in expert's static evaluation."""
    path = tmp_path_factory.mktemp("init") / "labels.epd"
    write_expert_labels(path, 150, seed=5)
    return path


def nearest(value: float, bits: int, low: float, high: float) -> float:
    """A gene's nearest value, from the genome's definition: low + (high - low) * round(...) / (2^bits - 1)."""
    top = (1 << bits) - 1
    return low + (high - low) * round((value - low) / (high - low) * top) / top


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


# ------------------------------------------------------------------ named values


def test_named_values_take_each_gene_s_nearest_value_and_the_rest_zero(tmp_path: Path) -> None:
    paper = layout_genome("paper")
    start = read_start(write(tmp_path / "v.json", {"pawn": 100, "knight": 320, "tempo": 12.5}), paper)
    assert start.form == "values" and len(start.defaulted) == 49 - 3
    w = start.values()
    # pawn: 10 bits over [0, 400]: round(100 * 1023 / 400) = 256 -> 256 * 400 / 1023 = 100.0978 cp.
    assert w["pawn"] == pytest.approx(256 * 400 / 1023) == pytest.approx(nearest(100, 10, 0, 400))
    # knight: round(320 * 1023 / 1200) = 273 -> 320.2346 cp; tempo: 7 bits over [0, 50]: round(12.5 * 127 / 50) = 32.
    assert w["knight"] == pytest.approx(273 * 1200 / 1023) and w["tempo"] == pytest.approx(32 * 50 / 127)
    assert all(w[n] == 0.0 for n in start.defaulted)  # every paper gene's range starts at 0: exactly 0
    assert start.given[paper.names.index("pawn")] == 100.0  # the file's own value is kept beside it


def test_a_value_beyond_its_range_by_more_than_half_a_step_is_refused(tmp_path: Path, cli: CliRunner,
                                                                      labels: Path) -> None:
    paper = layout_genome("paper")
    # pawn's range is [0, 400], its step 400 / 1023 = 0.391 cp: 400.19 is within half a step (400.196), 400.2 not.
    assert read_start(write(tmp_path / "a.json", {"pawn": 400.19}), paper).values()["pawn"] == 400.0
    done = cli("fit", labels, "--init", write(tmp_path / "b.json", {"pawn": 400.2, "queen": -5}))
    assert done.returncode == 2 and done.stdout == "", done.stderr  # refused before the labels are read
    assert done.stderr.strip().splitlines() == [
        f"mimic fit: --init {tmp_path / 'b.json'}: gene pawn is 400.2, outside this run's range [0, 400] (2 gene(s) "
        "outside; mimic refuses rather than clamps them)"]


def test_unknown_names_are_refused_naming_the_name_and_the_file(tmp_path: Path, cli: CliRunner, labels: Path) -> None:
    done = cli("fit", labels, "--init", write(tmp_path / "t.json", {"pawn": 100, "knigth": 300}))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"{tmp_path / 't.json'}: 'knigth' is not a gene of the paper genome (did you mean 'knight'?)" in done.stderr
    # A rich genome's gene in a paper run says which genome has it.
    done = cli("evolve", labels, "--out", tmp_path / "o", "--no-progress", "--init",
               write(tmp_path / "r.json", {"pst_knight_c3_mg": 10}))
    assert done.returncode == 2 and "(a rich genome's gene: --genome rich)" in done.stderr, done.stderr


# ------------------------------------------------------------------ bad files: one line, the file and the key

TABLES = {"mg_value": [82, 337, 365, 477, 1025, 0], "eg_value": [94, 281, 297, 512, 936, 0],
          "mg_table": {p: [0] * 64 for p in PIECES}, "eg_table": [[0] * 64 for _ in PIECES]}


def _with(**changes: object) -> dict[str, object]:
    data = json.loads(json.dumps(TABLES))
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


BAD = [
    ("{not json", "the --init file is not JSON"),
    ("[1, 2]", "the --init file is a list, not an object"),
    ("{}", "no gene values (an empty object)"),
    ('{"pawn": "100"}', "pawn is '100', expected a finite number"),
    ('{"pawn": NaN}', "pawn is nan, expected a finite number"),
    ('{"knight": Infinity}', "knight is inf, expected a finite number"),
    ('{"pawn": true}', "pawn is True, expected a finite number"),
    ('{"format": "something-else", "genes": []}', "format is 'something-else'"),
    (json.dumps(_with(eg_table=None)), "eg_table is missing"),
    (json.dumps(_with(mg_table={**TABLES["mg_table"], "knight": [0] * 63})),  # type: ignore[dict-item]
     "mg_table.knight is 63 values, expected a list of 64"),
    (json.dumps(_with(eg_table=[[0] * 64] * 5)), "eg_table has 5 entries, expected 6"),
    (json.dumps(_with(mg_table={**TABLES["mg_table"], "kinght": [0] * 64})),  # type: ignore[dict-item]
     "mg_table.kinght is not a piece"),
    (json.dumps(_with(mg_value=[82, 337, 365])), "mg_value has 3 entries, expected 6"),
    (json.dumps(_with(eg_value={"pawn": 94})), "eg_value.knight is missing"),
    (json.dumps(_with(square_order="h1")), "square_order is 'h1', expected one of a8, a1"),
    (json.dumps(_with(extra=1)), "'extra' is not a key of PeSTO-layout tables"),
    (json.dumps(_with(genes={"pawn": 100})), "genes.pawn is set by the tables"),
    (json.dumps(_with(genes={"tempo": "ten"})), "genes.tempo is 'ten', expected a finite number"),
    (json.dumps(_with(genes=[1])), "genes is a list, expected an object"),
    (json.dumps(_with(mg_value=[82, 337, 365, 477, 1e400, 0])).replace("Infinity", "1e999"),
     "mg_value.queen is inf, expected a finite number"),
    (json.dumps(_with(eg_table={p: [0] * 63 + ["x"] for p in PIECES})), "eg_table.pawn[63] is 'x'"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m for _, m in BAD])
def test_a_bad_file_is_one_line_naming_the_file_and_the_key(tmp_path: Path, cli: CliRunner, labels: Path,
                                                            text: str, message: str) -> None:
    path = tmp_path / "init.json"
    path.write_text(text)
    done = cli("fit", labels, "--genome", "rich", "--init", path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"mimic fit: {path}") and message in lines[0], lines[0]
    assert done.stdout == ""  # refused before the labels are read


def test_a_missing_file_and_tables_for_the_paper_genome_are_refused(tmp_path: Path, cli: CliRunner,
                                                                    labels: Path) -> None:
    with pytest.raises(InitFileError, match=r"nothing\.json: cannot read the --init file"):
        read_start(tmp_path / "nothing.json", layout_genome("paper"))
    done = cli("fit", labels, "--init", write(tmp_path / "t.json", TABLES))
    assert done.returncode == 2, done.stderr
    assert "PeSTO-layout tables need a genome with every material and piece-square gene (--genome rich)" in done.stderr


# ------------------------------------------------------------------ tables


def pesto_eval(board: chess.Board, mg: np.ndarray, eg: np.ndarray) -> float:
    """PeSTO's evaluation as its author defines it, from the side to move's view: per piece its middle-game and
    endgame value (material + table, ``mg[piece][i]`` with squares listed a8 first: a White piece on python-chess
    square s reads entry s ^ 56, a Black one entry s, counting against White), tapered by the phase (knight and
    bishop 1, rook 2, queen 4, at most 24): (mg * phase + eg * (24 - phase)) / 24."""
    phase = min(24, sum(len(board.pieces(t, c)) * w for t, w in ((2, 1), (3, 1), (4, 2), (5, 4)) for c in chess.COLORS))
    total = 0.0
    for s, piece in board.piece_map().items():
        k, white = piece.piece_type - 1, piece.color == chess.WHITE
        i = s ^ 56 if white else s
        total += (1 if white else -1) * (mg[k][i] * phase + eg[k][i] * (24 - phase)) / 24
    return total if board.turn == chess.WHITE else -total


def random_positions(n: int, seed: int) -> list[chess.Board]:
    from mentor.samplers import random_playouts

    return [s.board for s in random_playouts(n, seed, min_plies=4, max_plies=90)]


@pytest.mark.parametrize("order", ["a8", "a1"])
def test_symmetric_tables_within_range_are_imported_exactly(tmp_path: Path, order: str) -> None:
    # Tables whose files mirror (a = h, b = g, ...) and whose values lie within the genes' ranges once each piece's
    # level is taken out: the projection loses nothing, so the imported weights evaluate every position as PeSTO's
    # definition does (before the genes' grid rounds them).
    rng = np.random.default_rng(3)
    mg_value, eg_value = [90, 320, 330, 480, 950, 0], [110, 300, 310, 520, 960, 0]
    tables: dict[str, dict[str, list[float]]] = {"mg_table": {}, "eg_table": {}}
    for key in tables:
        for k, piece in enumerate(PIECES):
            half = rng.integers(-35, 36, size=(8, 4)).astype(float)
            table = np.concatenate([half, half[:, ::-1]], axis=1)  # row 0 = rank 8, as PeSTO prints
            if k == 0:
                table[[0, 7]] = 0  # no pawn on ranks 8 and 1
            tables[key][piece] = (table if order == "a8" else table[::-1]).ravel().tolist()
    data = {"mg_value": mg_value, "eg_value": eg_value, **tables, "square_order": order}
    rich = layout_genome("rich")
    start = read_start(write(tmp_path / "t.json", data), rich)
    assert start.form == "tables" and start.clipped == ()
    a8 = {key: np.array([np.array(value[k]) + np.array(tables[key][p]).reshape(8, 8)[:: 1 if order == "a8" else -1]
                         .ravel() for k, p in enumerate(PIECES)]) for key, value in (("mg_table", mg_value),
                                                                                    ("eg_table", eg_value))}
    for board in random_positions(40, 9):
        mine = float(features(board, "rich").astype(np.float64) @ start.given)
        assert mine == pytest.approx(pesto_eval(board, a8["mg_table"], a8["eg_table"]), abs=1e-3)
    # Every distance is 0 before the grid (the king's table up to its level, which cancels).
    assert start.tables is not None
    assert max(d.largest for d in distances(start.tables, dict(zip(rich.names, start.given, strict=True)))) < 1e-9


def test_the_projection_by_hand() -> None:
    # Flat tables but the knight's: its middle-game a8 and h8 at -200 (one gene, a8, since files are mirrored).
    rich = layout_genome("rich")
    mg_value, eg_value = [100, 300, 300, 500, 900, 0], [120, 270, 300, 500, 900, 0]
    mg = [[0.0] * 64 for _ in PIECES]
    eg = [[30.0] * 64 for _ in PIECES]  # the endgame tables all +30: the king's (a constant) cancels
    mg[1][0] = mg[1][7] = -200.0
    tables = Tables.from_lists(mg_value, eg_value, mg, eg)
    p = project(tables, rich)
    # Pawn: 48 squares at 100 (mg) and 150 (eg); nothing clipped, so the level is the mean, 125, and the genes
    # -25 (mg) and +25 (eg).
    assert p.values["pawn"] == pytest.approx(125) and p.values["pst_pawn_d4_mg"] == pytest.approx(-25)
    assert p.values["pst_pawn_a7_eg"] == pytest.approx(25)
    # King: its level is free per phase, so the +30 goes and every king gene is 0.
    assert all(p.values[f"pst_king_{s}_{ph}"] == pytest.approx(0) for s in ("a1", "d8") for ph in ("mg", "eg"))
    # Knight: 63 genes at 300 (31 mg, 32 eg) and one (mg a8) at 100, each gene within ±60 of the level m. No level
    # keeps them all (300 - m <= 60 needs m >= 240, 100 - m >= -60 needs m <= 160). For m in [160, 240] the squared
    # distance over the squares (two a gene) is 2 * [63 * (m + 60 - 300)^2 + (m - 60 - 100)^2], least where
    # 63 (m - 240) + (m - 160) = 0: m = (63 * 240 + 160) / 64 = 238.75; every knight gene is clipped.
    assert p.values["knight"] == pytest.approx(238.75, abs=1e-6)
    assert p.values["pst_knight_b1_mg"] == 60 and p.values["pst_knight_a8_mg"] == -60
    assert p.values["pst_knight_a1_eg"] == 60 and p.values["bishop"] == pytest.approx(315)
    assert len(p.clipped) == 64 and ("pst_knight_a8_mg", pytest.approx(100 - 238.75)) in p.clipped
    d = {(x.piece, x.phase): x for x in distances(tables, p.values)}
    # Knight mg: a8 and h8 read 238.75 - 60 = 178.75 against 100 (78.75 off), the 62 others 298.75 against 300.
    assert d["knight", "mg"].largest == pytest.approx(78.75) and d["knight", "mg"].square in ("a8", "h8")
    assert d["knight", "mg"].rms == pytest.approx(math.sqrt((2 * 78.75**2 + 62 * 1.25**2) / 64))
    assert d["knight", "eg"].largest == pytest.approx(1.25) and d["king", "eg"].largest == pytest.approx(0)


def test_pesto_s_own_tables_import_and_the_report_bounds_the_evaluation() -> None:
    from organisms import Organism
    from organisms.pesto import EG_TABLES, EG_VALUE, MG_TABLES, MG_VALUE

    # The shipped example docs/examples/pesto.json is PeSTO's tables (organisms/pesto.py, a8 first) in the tables form.
    rich = layout_genome("rich")
    start = read_start(Path(__file__).resolve().parent.parent / "docs" / "examples" / "pesto.json", rich)
    assert start.tables is not None
    for k in range(6):
        for s in range(64):  # python-chess square s is PeSTO's entry s ^ 56
            assert start.tables.values[:, k, s].tolist() == [MG_VALUE[k] + MG_TABLES[k][s ^ 56],
                                                             EG_VALUE[k] + EG_TABLES[k][s ^ 56]]
    assert start.clipped and start.defaulted == tuple(n for n in rich.names[:49] if n not in
                                                      ("pawn", "knight", "bishop", "rook", "queen"))
    largest = {(d.piece, d.phase): d.largest for d in distances(start.tables, start.values())}
    organism = Organism(rich, start.bits)
    mg = np.array([np.array(t) + v for t, v in zip(MG_TABLES, MG_VALUE, strict=True)])
    eg = np.array([np.array(t) + v for t, v in zip(EG_TABLES, EG_VALUE, strict=True)])
    for board in random_positions(40, 4):
        # Each piece is off by at most its reported largest difference in each phase (the kings' levels cancel),
        # plus the half centipawn of the organism's rounding.
        bound = 0.5 + sum(max(largest[p, "mg"], largest[p, "eg"]) for piece in board.piece_map().values()
                          for p in [PIECES[piece.piece_type - 1]])
        assert abs(organism.evaluate(board) - pesto_eval(board, mg, eg)) <= bound
    # The figures docs/evolving.md quotes: 51 genes clipped; the largest difference a knight on f6 in the middle game
    # (PeSTO values its mirror c6 92 cp less, and the folded gene is clipped besides).
    worst = max(distances(start.tables, start.values()), key=lambda d: d.largest)
    assert len(start.clipped) == 51 and (worst.piece, worst.phase, worst.square, round(worst.largest)) == (
        "knight", "mg", "f6", 95)
    text = "\n".join(start.lines())
    assert "| knight |" in text and f"{len(start.clipped)} piece-square genes lay beyond their range" in text


# ------------------------------------------------------------------ runs: the change term by term


def test_evolve_from_named_values_shows_the_change_term_by_term(tmp_path: Path, cli: CliRunner,
                                                                labels: Path) -> None:
    init = write(tmp_path / "engine.json", {"pawn": 100, "knight": 320, "bishop": 330, "rook": 500, "queen": 900})
    done = cli("evolve", labels, "--init", init, "--out", tmp_path / "run", "--generations", "3", "--population", "8",
               "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "warning: --init" in done.stderr and "44 of 49 genes not in the file take 0" in done.stderr
    winner = json.loads((tmp_path / "run" / "organism.json").read_text())
    new = {g["name"]: g["value"] for g in winner["genes"]}
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "## Change from the start (--init)" in summary and "Started from named gene values" in summary
    old_pawn = 256 * 400 / 1023  # the pawn gene's nearest value to 100 (see the first test)
    assert f"| pawn | {old_pawn:.1f} | {new['pawn']:.1f} | {new['pawn'] - old_pawn:+.1f} |" in summary
    assert "Piece-square genes" not in summary  # the paper genome has none
    rows = list(csv.DictReader((tmp_path / "run" / "changes.csv").open()))
    assert [r["gene"] for r in rows] == [g["name"] for g in winner["genes"]]
    pawn = rows[0]
    assert float(pawn["given"]) == 100 and float(pawn["old"]) == pytest.approx(old_pawn, abs=1e-4)
    assert float(pawn["new"]) == pytest.approx(new["pawn"], abs=1e-4) and (pawn["low"], pawn["high"]) == ("0", "400")
    assert "change from the start (--init): pawn 100 -> " in done.stdout


def test_evolve_rich_from_tables_summarises_the_piece_square_genes(tmp_path: Path, cli: CliRunner,
                                                                   labels: Path) -> None:
    data = {**TABLES, "genes": {"tempo": 10}}
    data["mg_table"] = {p: [(i % 8) * 3 - 10.5 for i in range(64)] for p in PIECES}  # files not mirrored: a projection
    done = cli("evolve", labels, "--genome", "rich", "--init", write(tmp_path / "t.json", data), "--out",
               tmp_path / "run", "--generations", "2", "--population", "8", "--no-progress")
    assert done.returncode == 0, done.stderr
    summary = (tmp_path / "run" / "summary.md").read_text()
    for piece in PIECES:
        for phase in ("mg", "eg"):
            assert f"| {piece} {phase} | {24 if piece == 'pawn' else 32} |" in summary
    # The distance table: a file's value v = 3 f - 10.5 and its mirror's 3 (7 - f) - 10.5 fold to their mean, 0, so
    # each square is |3 f - 10.5| off (before the grid): 10.5 on files a and h, 1.5 on d and e; RMS sqrt(mean) =
    # sqrt((10.5² + 7.5² + 4.5² + 1.5²) / 4) = 6.87 cp.
    assert "| piece | mg RMS | mg largest | eg RMS | eg largest |" in summary
    assert "The 10 largest piece-square changes:" in summary
    rows = list(csv.DictReader((tmp_path / "run" / "changes.csv").open()))
    assert len(rows) == 417 and float(next(r for r in rows if r["gene"] == "tempo")["given"]) == 10
    tables = read_start(tmp_path / "t.json", layout_genome("rich")).tables
    assert tables is not None
    d = {(x.piece, x.phase): x for x in distances(tables, {r["gene"]: float(r["given"]) for r in rows})}
    assert d["rook", "mg"].rms == pytest.approx(math.sqrt((10.5**2 + 7.5**2 + 4.5**2 + 1.5**2) / 4))
    assert d["rook", "mg"].largest == pytest.approx(10.5)


def test_fit_starts_the_win_probability_fit_from_init(tmp_path: Path, cli: CliRunner, labels: Path) -> None:
    # The wdl fit from the L1 fit, then again from its own exact weights given as named values: L-BFGS-B starts at
    # its optimum and ends where it started.
    first = cli("fit", labels, "--loss", "wdl", "--out", tmp_path / "a.json")
    assert first.returncode == 0, first.stderr
    exact = json.loads((tmp_path / "a.json").read_text())["meta"]["exact_weights"]
    again = cli("fit", labels, "--loss", "wdl", "--init", write(tmp_path / "w.json", exact), "--out",
                tmp_path / "b.json")
    assert again.returncode == 0, again.stderr
    second = json.loads((tmp_path / "b.json").read_text())["meta"]["exact_weights"]
    np.testing.assert_allclose([second[n] for n in exact], list(exact.values()), atol=1e-6)

    def iterations(out: str) -> int:  # "WDL fit (L-BFGS-B, 57 iterations, 0.09 s): ..."
        line = next(x for x in out.splitlines() if x.startswith("WDL fit ("))
        assert "from the cache" not in line  # another start is another fit (its cache key holds the start)
        return int(line.split("L-BFGS-B, ", 1)[1].split(" ", 1)[0])

    assert iterations(again.stdout) <= 2 < iterations(first.stdout)  # it started at the optimum, not at the L1 fit
    assert "WDL: the change from --init to this fit's nearest organism" in again.stdout
    assert (tmp_path / "b-changes.csv").exists() and "its changes to" in again.stdout
    # The change table of a convex fit too (l1), printed without --out.
    done = cli("fit", labels, "--init", write(tmp_path / "v.json", {"pawn": 100}))
    assert done.returncode == 0 and "| pawn | 100.1 |" in done.stdout and "L1: the change" in done.stdout


def test_genes_lists_the_names_and_its_template_is_an_init_file(tmp_path: Path, cli: CliRunner) -> None:
    listed = cli("genes", "--genome", "rich")
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert len(lines) == 2 + 417 and lines[2].split() == ["pawn", "10", "0", "400", "0.391"]
    template = cli("genes", "--genome", "rich", "--json")
    values = json.loads(template.stdout)
    assert len(values) == 417 and set(values.values()) == {0.0}
    values["knight"] = 300
    start = read_start(write(tmp_path / "t.json", values), layout_genome("rich"))
    assert start.form == "values" and start.defaulted == () and start.values()["knight"] == pytest.approx(
        nearest(300, 10, 0, 1200))


def test_a_user_layout_takes_named_values_and_tables(tmp_path: Path, cli: CliRunner) -> None:
    # docs/examples/threats.py: the rich genes plus pawn_threat_mg/eg (7 bits over [0, 120]) and bishop_pawns_mg/eg.
    spec = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "threats.py")
    listed = cli("genes", "--genome", spec)
    assert listed.returncode == 0 and any(line.split()[:4] == ["pawn_threat_mg", "7", "0", "120"]
                                          for line in listed.stdout.splitlines())
    genome = layout_genome(spec)
    # PeSTO-layout tables with the user's own gene beside them: round(40 * 127 / 120) = 42 -> 42 * 120 / 127.
    start = read_start(write(tmp_path / "t.json", {**TABLES, "genes": {"pawn_threat_mg": 40}}), genome)
    assert start.form == "tables" and start.values()["pawn_threat_mg"] == pytest.approx(42 * 120 / 127)
    assert "pawn_threat_eg" in start.defaulted and start.values()["pawn_threat_eg"] == 0
    # A name it does not have is refused naming the layout.
    with pytest.raises(InitFileError, match=r"'pawn_threats' is not a gene of the .*threats\.py genome \(did you mean"):
        read_start(write(tmp_path / "v.json", {"pawn_threats": 4}), genome)


# ------------------------------------------------------------------ organisms of an edited term file, exports

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "threats.py"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_organism_of_an_edited_term_file_starts_a_run_of_the_new_one(tmp_path: Path, cli: CliRunner,
                                                                        labels: Path) -> None:
    terms = tmp_path / "threats.py"
    shutil.copy(EXAMPLE, terms)
    old_genome = layout_genome(str(terms))
    old = tmp_path / "old" / "organism.json"
    organism = Organism.random(3, old_genome)
    organism.save(old)  # no copy of the term file beside it
    values = organism.values()
    recorded = _sha(terms)
    # A harmless edit and a new term: the old organism's 421 values carried over by name, the new gene at 0.
    terms.write_text(EXAMPLE.read_text().replace("    ],\n    description=", "        Term(\"rim_knights\", "
                                                 "board=lambda b: (0, 0), bits=5, low=0, high=31),\n    ],\n"
                                                 "    description="))
    warning = (f"warning: --init {old}: its genome layout {terms.resolve()} has changed since the organism was made "
               f"(SHA-256 {recorded[:12]}… recorded, {_sha(terms)[:12]}… now); its gene values are taken by name, "
               "without running it")
    done = cli("evolve", labels, "--genome", terms, "--init", old, "--target", "root", "--generations", "1",
               "--population", "4", "--sample", "40", "--out", tmp_path / "new", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == warning
    start = read_start(old, layout_genome(str(terms)))
    assert start.form == "organism" and start.defaulted == ("rim_knights",)
    assert start.values() == {**values, "rim_knights": 0.0}
    fitted = cli("fit", labels, "--genome", terms, "--init", old, "--target", "root")
    assert fitted.returncode == 0 and fitted.stderr.splitlines() == [warning], fitted.stderr
    # The recorded file gone, and replaced by one that would fail if run: still read by name, never run.
    new = tmp_path / "new.py"
    shutil.copy(terms, new)
    terms.write_text("raise SystemExit('the old term file ran')\n")
    start = read_start(old, layout_genome(str(new)))
    assert start.warning is not None and "has changed since the organism was made" in start.warning
    terms.unlink()
    start = read_start(old, layout_genome(str(new)))
    assert start.warning == (f"--init {old}: its genome layout {terms.resolve()} is missing (and no threats.py beside "
                             "the organism); its gene values are taken by name, without running it")
    assert start.values()["pawn_threat_mg"] == values["pawn_threat_mg"]
    # Unchanged (here: a copy beside the organism holds the recorded bytes): no warning.
    shutil.copy(EXAMPLE, old.parent / "threats.py")
    assert read_start(old, layout_genome(str(new))).warning is None


@pytest.mark.parametrize("layout", ["mimic", "pesto"])
def test_an_organisms_json_export_starts_a_run(tmp_path: Path, cli: CliRunner, layout: str) -> None:
    rich = Path(__file__).resolve().parent.parent / "results" / "rich-stockfish" / "organism.json"
    export = tmp_path / "export.json"
    assert cli("export", rich, "--format", "json", "--layout", layout, "--out", export).returncode == 0
    start = read_start(export, layout_genome("rich"))
    # The export's genes are the organism's decoded values (exact in both layouts): each is its own nearest value.
    assert start.form == "export" and start.defaulted == ()
    assert start.values() == pytest.approx(Organism.load(rich).values(), abs=1e-9)
    with pytest.raises(SettingsError, match=r"the organism's genes \(rich layout\) are not this run's genome's"):
        read_start(export, layout_genome("paper"))
    with pytest.raises(InitFileError, match=r"a mimic-export file of kind 'pnet', not an organism's"):
        read_start(write(tmp_path / "net.json", {"format": "mimic-export", "kind": "pnet"}), layout_genome("rich"))
