"""The rich genome: piece-square features, the rich organism's evaluation, files, and --genome on the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import numpy as np
import pytest

from evolve.ga.run import RunSettings
from evolve.players import make_evaluator
from organisms import Organism, feature_matrix, features
from organisms.features import (
    FEATURE_NAMES,
    N_FEATURES,
    PST_FEATURE_NAMES,
    RICH_FEATURE_NAMES,
    feature_names,
    feature_set_id,
)
from organisms.genome import layout_genome, rich_genome
from search import Engine, Limit
from tests.conftest import run_mimic
from tests.test_organisms import playout_positions

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "results" / "paper-builtin" / "labels.epd"


@pytest.fixture(scope="module")
def boards() -> list[chess.Board]:
    # The tests below check identities position by position: 1,000 positions from ~120 playouts (an eighth of each
    # playout's positions, every phase) check them as 1,000 one-playout-each positions did, in a tenth the time.
    return playout_positions(seed=23, n=1000, keep=1 / 8)


def test_rich_layout_size_and_names() -> None:
    # 6 piece types, files mirrored (a-d): pawns ranks 2-7 = 6 x 4 = 24 squares, the others 8 x 4 = 32;
    # mg and eg each: (24 + 5 * 32) * 2 = 368 piece-square genes, plus the paper's 49 = 417 < 822.
    assert len(PST_FEATURE_NAMES) == 368 and len(RICH_FEATURE_NAMES) == 417
    assert RICH_FEATURE_NAMES[:N_FEATURES] == FEATURE_NAMES
    assert feature_names("paper") == FEATURE_NAMES and feature_names("rich") == RICH_FEATURE_NAMES
    genome = rich_genome()
    assert genome.names == RICH_FEATURE_NAMES
    # the paper's 49 genes (5 x 10 + 44 x 7 = 358 bits) + 368 x 6 bits = 2566 bits
    assert genome.total_bits == 358 + 368 * 6
    pst = genome.low[N_FEATURES:] < 0  # every piece-square gene is signed
    assert pst.all() and (genome.low[:N_FEATURES] >= 0).all()
    assert feature_set_id("paper") == "features-v1-49" and feature_set_id("rich") == "features-v1-rich-417"
    with pytest.raises(ValueError, match="unknown genome layout"):
        feature_names("huge")


def test_pst_features_of_a_hand_built_position() -> None:
    # White: Ke1, Rh1, Ne4, Pb2; Black: Ke8, Ra8; Black to move.
    # Phase = knight 1 + two rooks 2 x 2 = 5, so phi = 5/24; Black to move turns White's view to -1.
    # - rook: White's h1 folds onto a1 (+1); Black's a8 flipped is a1 (-1): 0.
    # - king: White's e1 folds onto d1 (+1); Black's e8 flipped is e1, folded d1 (-1): 0.
    # - knight e4 folds onto d4: +1 from White's view -> -1 for Black: mg -5/24, eg -19/24.
    # - pawn b2: +1 -> mg -5/24, eg -19/24. Every other piece-square feature is 0.
    board = chess.Board("r3k3/8/8/8/4N3/8/1P6/4K2R b - - 0 1")
    got = dict(zip(RICH_FEATURE_NAMES, features(board, "rich").tolist(), strict=True))
    expected = {"pst_knight_d4_mg": -5 / 24, "pst_knight_d4_eg": -19 / 24,
                "pst_pawn_b2_mg": -5 / 24, "pst_pawn_b2_eg": -19 / 24}
    for name in PST_FEATURE_NAMES:
        assert got[name] == pytest.approx(expected.get(name, 0.0), abs=1e-6), name
    # the paper's part is unchanged by the layout
    assert np.array_equal(features(board, "rich")[:N_FEATURES], features(board))


def test_rich_evaluate_equals_weights_dot_features(boards: list[chess.Board]) -> None:
    matrix = feature_matrix(boards, use_cache=False, layout="rich").astype(np.float64)
    assert matrix.shape == (1000, 417)
    assert np.array_equal(matrix[:, :N_FEATURES], feature_matrix(boards, use_cache=False))
    assert np.array_equal(matrix[7], features(boards[7], "rich"))
    for seed in (1, 2):
        organism = Organism.random(seed, genome=rich_genome())
        assert organism.layout == "rich"
        expected = matrix @ organism.weights
        got = np.array([organism.evaluate(b) for b in boards])
        assert np.all(np.abs(got - expected) <= 0.5 + 1e-3)  # evaluate is the rounded dot product
        # the piece-square part is not trivially zero: it moves the evaluation
        assert np.abs(matrix[:, N_FEATURES:] @ organism.weights[N_FEATURES:]).max() > 50


def test_rich_features_and_evaluation_are_colour_symmetric(boards: list[chess.Board]) -> None:
    mirrored = [b.mirror() for b in boards[:300]]
    assert np.array_equal(feature_matrix(boards[:300], use_cache=False, layout="rich"),
                          feature_matrix(mirrored, use_cache=False, layout="rich"))
    organism = Organism.random(5, genome=rich_genome())
    assert [organism.evaluate(b) for b in boards[:300]] == [organism.evaluate(b) for b in mirrored]


def test_feature_cache_is_keyed_by_layout(boards: list[chess.Board], tmp_path: Path) -> None:
    paper = feature_matrix(boards[:50], cache_dir=tmp_path)
    rich = feature_matrix(boards[:50], cache_dir=tmp_path, layout="rich")
    assert paper.shape == (50, 49) and rich.shape == (50, 417)
    assert len(list(tmp_path.glob("*.npz"))) == 2  # two files: one per layout, neither reused for the other
    assert np.array_equal(feature_matrix(boards[:50], cache_dir=tmp_path, layout="rich"), rich)


def test_random_rich_organism_plays() -> None:
    # A random chromosome is a playable evaluation: seeded self-play at depth 2 makes legal moves and
    # scores that are not mates (material is a magnitude; a piece-square offset is at most 100 cp).
    player = make_evaluator("rich-random:7")
    assert isinstance(player, Organism) and player.layout == "rich"
    engine = Engine(player)
    board = chess.Board()
    for _ in range(16):
        result = engine.search(board, Limit(depth=2))
        assert result.move in board.legal_moves
        assert abs(result.score) < 10_000
        board.push(result.move)


def test_organism_files_round_trip_and_name_their_layout(tmp_path: Path) -> None:
    for layout in ("paper", "rich"):
        organism = Organism.random(3, genome=layout_genome(layout))
        organism.save(tmp_path / f"{layout}.json")
        data = json.loads((tmp_path / f"{layout}.json").read_text())
        assert data["layout"] == layout
        back = Organism.load(tmp_path / f"{layout}.json")
        assert back.layout == layout and np.array_equal(back.bits, organism.bits)
    # a file written before layouts existed (no "layout" key) is paper
    data = json.loads((tmp_path / "paper.json").read_text())
    del data["layout"]
    assert Organism.from_dict(data).layout == "paper"
    # a rich file that claims to be paper, or an unknown layout, is refused with one line naming the file
    data = json.loads((tmp_path / "rich.json").read_text())
    data["layout"] = "paper"
    with pytest.raises(ValueError, match=r"^x\.json: the genes must be the paper layout's features"):
        Organism.from_dict(data, "x.json")
    data["layout"] = "huge"
    with pytest.raises(ValueError, match=r"^x\.json: unknown 'layout'"):
        Organism.from_dict(data, "x.json")


def test_run_settings_refuse_an_unknown_genome() -> None:
    from evolve.ga.evolution import GASettings

    with pytest.raises(ValueError, match="unknown genome layout 'huge'"):
        RunSettings(labels="x", out="y", ga=GASettings(), genome="huge")


def _head(path: Path, n: int, out: Path) -> Path:
    out.write_text("".join(path.read_text().splitlines(keepends=True)[:n]))
    return out


def test_fit_rich_has_lower_training_error_than_paper(tmp_path: Path) -> None:
    # The rich genome holds the paper's genes and more, so its exact L1 fit's training error can only be
    # lower or equal; on expert-depth-2 labels the piece-square genes lower it by far (5,000 labels:
    # 36.40 cp paper, 20.39 cp rich). Here: the file's first 600 labels (48.41 cp paper, 18.68 cp rich when
    # written; 800 labels, 46.06 and 20.60, took twice the time).
    labels = _head(LABELS, 600, tmp_path / "labels.epd")
    errors = {}
    for layout in ("paper", "rich"):
        run = run_mimic("fit", str(labels), "--genome", layout, "--out", str(tmp_path / f"{layout}.json"),
                        check=True, env={"MIMIC_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}, cwd=ROOT)
        errors[layout] = float(run.stdout.split("L1 fit")[1].split("error ")[1].split(" cp")[0])
        assert Organism.load(tmp_path / f"{layout}.json").layout == layout
    assert errors["rich"] < errors["paper"] - 5, errors


def test_resume_with_another_genome_is_refused_in_one_line(tmp_path: Path) -> None:
    # A paper run resumed as rich (the other way round drew a rich run's heat maps, 6 s of CPU; a rich run's summary
    # and heat maps are checked by tests/test_moves.py::test_evolve_moves_command).
    labels = _head(LABELS, 300, tmp_path / "labels.epd")
    common = ["evolve", str(labels), "--no-progress", "--generations", "3", "--population", "10", "--sample", "100",
              "--out", str(tmp_path / "run")]
    env = {"MIMIC_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    run_mimic(*common, "--generations", "2", check=True, env=env, cwd=ROOT)
    assert "| genome | paper |" in (tmp_path / "run" / "summary.md").read_text()
    run = run_mimic(*common, "--genome", "rich", "--resume", env=env, cwd=ROOT)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if not line.startswith("warning:")]
    assert errors == [f"mimic evolve: {tmp_path / 'run' / 'checkpoint.npz'}: the checkpoint evolves the paper "
                      "genome layout, not rich (resume with --genome paper)"], run.stderr


def test_pst_boards_read_material_plus_mirrored_square_genes() -> None:
    from evolve.ga.report import expert_pst_boards, pst_boards

    genome = rich_genome()
    w = np.zeros(len(genome.names))
    names = list(genome.names)
    w[names.index("knight")] = 300.0
    w[names.index("pst_knight_b1_mg")] = -20.0
    w[names.index("pst_pawn_d7_eg")] = 50.0
    boards = pst_boards(genome, w)
    # Rows are ranks 8..1, columns files a..h: b1 is row 7, column 1; its file mirror g1 is column 6.
    assert boards["knight", "mg"][7, 1] == boards["knight", "mg"][7, 6] == 280.0
    assert boards["knight", "mg"][5, 2] == 300.0 and boards["knight", "eg"][7, 1] == 300.0  # c3; eg untouched
    assert boards["pawn", "eg"][1, 4] == boards["pawn", "eg"][1, 3] == 50.0  # e7 and its mirror d7
    assert np.isnan(boards["pawn", "mg"][0]).all() and np.isnan(boards["pawn", "mg"][7]).all()
    # PeSTO by hand: a white knight on a8 in the middle game is 337 - 167 = 170; a king on h1 (eg) 0 - 43.
    expert = expert_pst_boards()
    assert expert["knight", "mg"][0, 0] == 170 and expert["king", "eg"][7, 7] == -43
