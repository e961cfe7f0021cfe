"""Features, genome decoding, the organism evaluator and the expert."""

from __future__ import annotations

import json
import random
from pathlib import Path

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evolve.players import make_evaluator
from organisms import (
    FEATURE_NAMES,
    Expert,
    Gene,
    Genome,
    Material,
    Organism,
    default_genome,
    feature_matrix,
    features,
)
from organisms.features import TEMPO
from search.spec import SpecError


def random_positions(seed: int, n: int) -> list[chess.Board]:
    """``n`` positions from random playouts (varied phases), none of them game over."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(rng.randrange(0, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            out.append(board.copy(stack=False))
    return out


def feat(fen: str) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, features(chess.Board(fen)).tolist(), strict=True))


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=200))
def test_colour_swap_leaves_features_and_evaluations_unchanged(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    mirrored = board.mirror()
    assert np.array_equal(features(board), features(mirrored))
    for evaluator in (Organism.random(seed % 1000), Expert(), Material()):
        assert evaluator.evaluate(board) == evaluator.evaluate(mirrored)


def test_start_position_features_are_zero_except_tempo() -> None:
    f = features(chess.Board())
    assert f[TEMPO] == 1.0
    assert not np.any(np.delete(f, TEMPO))
    assert f.dtype == np.float32 and f.shape == (len(FEATURE_NAMES),)


@pytest.mark.parametrize(("fen", "expected"), [
    # three isolated passed pawns on rank 2; no pieces, so phase 0 and only endgame halves are non-zero
    ("4k3/8/8/8/8/8/P1P1P3/4K3 w - - 0 1",
     {"pawn": 3, "isolated_pawn_eg": -3, "passed_pawn_rank2_eg": 3, "doubled_pawn_eg": 0}),
    # ...seen from Black, who is to move: every side-to-move feature changes sign
    ("4k3/8/8/8/8/8/P1P1P3/4K3 b - - 0 1",
     {"pawn": -3, "isolated_pawn_eg": 3, "passed_pawn_rank2_eg": -3}),
    # doubled a-pawns: one doubled, both isolated, passed on ranks 2 and 3
    ("4k3/8/8/8/8/P7/P7/4K3 w - - 0 1",
     {"doubled_pawn_eg": -1, "isolated_pawn_eg": -2, "passed_pawn_rank2_eg": 1, "passed_pawn_rank3_eg": 1}),
    # b2 cannot advance safely (b3 is hit by c4) and no pawn can ever support it: backward; Black's
    # c4 is supported from d5, so it is not
    ("4k3/8/8/3p4/2p5/8/1P6/4K3 w - - 0 1", {"backward_pawn_eg": -1}),
    # a rook on an open file, then on a half-open one
    ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", {"rook_open_file": 1, "rook_half_open_file": 0}),
    ("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1", {"rook_open_file": 0, "rook_half_open_file": 1}),
    # the bishop pair, tapered at phase 2/24
    ("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", {"bishop_pair_mg": 2 / 24, "bishop_pair_eg": 22 / 24}),
    # knight centricity: d4 is a centre square (3), a1 a corner (0)
    ("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1", {"knight_center": 3}),
    ("4k3/8/8/8/8/8/8/N3K3 w - - 0 1", {"knight_center": 0}),
    # king safety at phase 8/24: White's king has a full shield and no open file; Black's king has
    # three open files around it
    ("q3k3/8/8/8/8/8/5PPP/Q5K1 w - - 0 1", {"king_shield_mg": 1.0, "king_open_file_mg": 1.0}),
])
def test_features_on_known_positions(fen: str, expected: dict[str, float]) -> None:
    got = feat(fen)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-6), name


def test_organism_evaluate_equals_weights_dot_features() -> None:
    boards = random_positions(seed=11, n=1000)
    matrix = feature_matrix(boards, use_cache=False)
    for seed in (1, 2):
        organism = Organism.random(seed)
        expected = matrix.astype(np.float64) @ organism.weights
        got = np.array([organism.evaluate(b) for b in boards])
        assert np.all(np.abs(got - expected) <= 0.5 + 1e-3)  # evaluate is the rounded dot product
        assert np.abs(got - expected).max() > 0.01  # (and the dot product is not trivially integral)


def test_feature_matrix_parallel_and_cache(tmp_path: Path) -> None:
    boards = random_positions(seed=5, n=2500)
    serial = feature_matrix(boards, n_jobs=1, use_cache=False)
    assert serial.shape == (2500, len(FEATURE_NAMES)) and serial.dtype == np.float32
    assert np.array_equal(serial[17], features(boards[17]))
    parallel = feature_matrix(boards, n_jobs=2, cache_dir=tmp_path)
    assert np.array_equal(serial, parallel)
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1
    # A cache hit reads the file: make the stored copy recognisably different and read it back.
    stored = np.load(files[0])
    stored[0, 0] = 12345.0
    np.save(files[0], stored)
    assert feature_matrix(boards, n_jobs=2, cache_dir=tmp_path)[0, 0] == 12345.0
    # Other positions have another key.
    feature_matrix(boards[:10], cache_dir=tmp_path)
    assert len(list(tmp_path.glob("*.npy"))) == 2


def test_decoding_known_bit_strings() -> None:
    # Plain binary reading (the Gray default is tested in test_encoding.py).
    genome = Genome([Gene("a", 3, 0.0, 7.0), Gene("b", 4, -10.0, 20.0), Gene("c", 10, 0.0, 1023.0)],
                    encoding="binary")
    bits = np.array([
        [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1],
    ], dtype=np.uint8)
    values = genome.decode(bits)
    assert values.tolist() == [[5.0, -10.0, 0.0], [0.0, 20.0, 1023.0], [7.0, 6.0, 515.0]]
    assert np.array_equal(genome.encode(values), bits)
    # The default layout: material genes 10 bits, the rest 7, all zeros at low and all ones at high.
    default = default_genome("binary")
    assert [g.bits for g in default.genes[:5]] == [10] * 5 and {g.bits for g in default.genes[5:]} == {7}
    assert default.decode(np.zeros((1, default.total_bits), np.uint8))[0].tolist() == default.low.tolist()
    assert default.decode(np.ones((1, default.total_bits), np.uint8))[0].tolist() == default.high.tolist()


def test_any_random_bit_string_is_a_valid_evaluation() -> None:
    genome = default_genome()
    population = genome.random_bits(np.random.default_rng(3), population=50)
    weights = genome.decode(population)
    assert weights.shape == (50, len(FEATURE_NAMES)) and np.all(weights >= 0)
    board = random_positions(seed=9, n=1)[0]
    for bits in population[:10]:
        assert isinstance(Organism(genome, bits).evaluate(board), int)


def test_json_round_trip_is_exact_and_values_are_editable(tmp_path: Path) -> None:
    organism = Organism.random(42)
    path = tmp_path / "o.json"
    organism.save(path)
    back = Organism.load(path)
    assert np.array_equal(back.bits, organism.bits)
    assert back.weights.tolist() == organism.weights.tolist()
    data = json.loads(path.read_text())
    by_name = {g["name"]: g for g in data["genes"]}
    assert by_name["queen"]["value"] == organism.values()["queen"]
    # A person edits a value: the loaded organism carries the nearest representable one.
    by_name["queen"]["value"] = 975.0
    edited = Organism.from_dict(data)
    step = edited.genome.genes[4].step
    assert abs(edited.values()["queen"] - 975.0) <= step / 2
    assert edited.values()["pawn"] == organism.values()["pawn"]


def test_player_specs_build_evaluators(tmp_path: Path) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert make_evaluator("random:7").evaluate(board) == Organism.random(7).evaluate(board)
    assert make_evaluator("expert").evaluate(board) == Expert().evaluate(board)
    path = tmp_path / "o.json"
    Organism.random(8).save(path)
    assert make_evaluator(f"organism:{path}").evaluate(board) == Organism.random(8).evaluate(board)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(SpecError, match=r"bad\.json:1"):
        make_evaluator(f"organism:{tmp_path / 'bad.json'}")
    with pytest.raises(SpecError, match="cannot read"):
        make_evaluator(f"organism:{tmp_path / 'missing.json'}")


def test_expert_is_rich_and_sensible() -> None:
    expert = Expert()
    assert expert.n_parameters >= 500
    # A queen up is worth a lot; the side to move's view flips with the turn.
    up = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    assert expert.evaluate(up) > 800
    up.turn = chess.BLACK
    assert expert.evaluate(up) < -800
