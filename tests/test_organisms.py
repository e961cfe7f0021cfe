"""Features, genome decoding, the organism evaluator and the expert."""

from __future__ import annotations

import json
import os
import random
import threading
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
from organisms.features import N_FEATURES, TEMPO, read_cached_features, write_cached_features
from search.players.spec import SpecError
from tests.conftest import random_positions


def playout_positions(seed: int, n: int, keep: float = 1.0) -> list[chess.Board]:
    """``n`` positions along random playouts of up to 160 plies (varied phases), each position a playout passes
    through kept with probability ``keep``, none of them game over: about 1 / ``keep`` legal-move generations a
    position, where :func:`random_positions` plays a whole playout (80 plies on average) for each."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(160):
            moves = list(board.legal_moves)
            if not moves or len(out) == n:
                break
            board.push(rng.choice(moves))
            if rng.random() < keep and not board.is_game_over():
                out.append(board.copy(stack=False))
    return out


def feat(fen: str) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, features(chess.Board(fen)).tolist(), strict=True))


# 100 examples, each a playout of 0-200 plies (300 took 5 s; tests/test_rich.py checks the same symmetry of the
# features, whose first 49 columns are these, on 300 more positions).
@settings(max_examples=100, deadline=None)
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
    # The identity holds position by position: 1,000 positions from playouts (an eighth of the positions each passes
    # through, so ~120 playouts, every phase) check it as the 1,000 one-playout-each positions did, in a tenth the time.
    boards = playout_positions(seed=11, n=1000, keep=1 / 8)
    matrix = feature_matrix(boards, use_cache=False)
    for seed in (1, 2):
        organism = Organism.random(seed)
        expected = matrix.astype(np.float64) @ organism.weights
        got = np.array([organism.evaluate(b) for b in boards])
        assert np.all(np.abs(got - expected) <= 0.5 + 1e-3)  # evaluate is the rounded dot product
        assert np.abs(got - expected).max() > 0.01  # (and the dot product is not trivially integral)


def test_feature_matrix_parallel_and_cache(tmp_path: Path) -> None:
    # Positions along playouts, not one playout each: serial = parallel and the cache hits do not depend on how the
    # 2,500 positions (above the 2,000 rows that go to workers) were drawn; drawing them was 7 of this test's 7.5 s.
    boards = playout_positions(seed=5, n=2500)
    serial = feature_matrix(boards, n_jobs=1, use_cache=False)
    assert serial.shape == (2500, len(FEATURE_NAMES)) and serial.dtype == np.float32
    assert np.array_equal(serial[17], features(boards[17]))
    parallel = feature_matrix(boards, n_jobs=2, cache_dir=tmp_path)
    assert np.array_equal(serial, parallel)
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1
    # A cache hit reads the file: store recognisably different values through the cache's own writer
    # (key and keyed digest consistent) and read them back.
    with np.load(files[0]) as data:
        stored, key = data["features"].copy(), str(data["key"])
    stored[0, 0] = 12345.0
    assert write_cached_features(files[0], key, stored)
    assert feature_matrix(boards, n_jobs=2, cache_dir=tmp_path)[0, 0] == 12345.0
    # Other positions have another key.
    feature_matrix(boards[:10], cache_dir=tmp_path)
    assert len(list(tmp_path.glob("*.npz"))) == 2


def test_feature_cache_with_other_values_or_truncated_is_recomputed(tmp_path: Path) -> None:
    # Values of the right shape written over the cache without their digest (the defect: an L1 fit of
    # 48 cp became 502 cp), a truncated file, a file for other positions, and an empty file are all
    # recomputed, and the cache is rewritten whole.
    # Which 300 positions does not matter to the cache (any positions, one key): drawn along playouts, cheaply.
    boards = playout_positions(seed=6, n=300, keep=1 / 8)
    truth = feature_matrix(boards, use_cache=False)
    feature_matrix(boards, cache_dir=tmp_path)
    (path,) = tmp_path.glob("*.npz")
    good = path.read_bytes()
    with np.load(path) as data:
        key, digest = str(data["key"]), str(data["digest"])
    other = truth[::-1].copy()
    np.savez(path, features=other, key=np.array(key), digest=np.array(digest))
    assert np.array_equal(feature_matrix(boards, cache_dir=tmp_path), truth)
    assert read_cached_features(path, key, len(boards), N_FEATURES) is not None  # rewritten with the true values
    for broken in (good[: len(good) // 2], b"", b"not a zip"):
        path.write_bytes(broken)
        assert np.array_equal(feature_matrix(boards, cache_dir=tmp_path), truth)
        rewritten = read_cached_features(path, key, len(boards), N_FEATURES)
        assert rewritten is not None and np.array_equal(rewritten, truth)
    np.savez(path, features=truth, key=np.array("0" * 40), digest=np.array(digest))
    assert read_cached_features(path, key, len(boards), N_FEATURES) is None  # made for other positions


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


def _crafted_organisms(good: dict) -> dict[str, object]:
    """Name -> the JSON data of an organism file broken in one way (``good`` is a valid file's data)."""
    genes = good["genes"]

    def with_gene0(**changes: object) -> dict:
        return {**good, "genes": [{**genes[0], **changes}, *genes[1:]]}

    return {
        "genes as ints": {**good, "genes": list(range(len(genes)))},
        "genes as lists": {**good, "genes": [list(g.values()) for g in genes]},
        "genes a dict": {**good, "genes": {"pawn": 1}},
        "gene without bits": {**good, "genes": [{k: v for k, v in genes[0].items() if k != "bits"}, *genes[1:]]},
        "bits a string": with_gene0(bits="10"),
        "bits true": with_gene0(bits=True),
        "bits 0": with_gene0(bits=0),
        "infinite high": with_gene0(high=float("inf")),
        "NaN low": with_gene0(low=float("nan")),
        "huge range": with_gene0(low=-1e308, high=1e308),
        "NaN value": with_gene0(value=float("nan"), chromosome=None),
        "infinite value": with_gene0(value=float("inf")),
        "value a string": with_gene0(value="100", chromosome=None),
        "chromosome too short": with_gene0(chromosome="0"),
        "genes missing one": {**good, "genes": genes[:-1]},
        "genes in another order": {**good, "genes": [genes[1], genes[0], *genes[2:]]},
        "encoding a number": {**good, "encoding": 3},
        "encoding unknown": {**good, "encoding": "octal"},
        "format other": {**good, "format": "something"},
        "feature version other": {**good, "feature_version": 99},
        "a list": [1, 2, 3],
    }


def test_crafted_organism_files_are_refused_with_one_clear_line(tmp_path: Path) -> None:
    good = json.loads(Organism.random(3).to_json())
    cases = _crafted_organisms(good)
    texts = {name: json.dumps(data) for name, data in cases.items()}  # NaN and Infinity as Python writes them
    texts["deep nesting"] = "[" * 100_000 + "]" * 100_000
    texts["deep nesting in meta"] = json.dumps(good)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    for i, (name, text) in enumerate(texts.items()):
        path = tmp_path / f"case{i}.json"
        path.write_text(text)
        with pytest.raises(ValueError) as info:
            Organism.load(path)
        message = str(info.value)
        assert message.startswith(str(path)) and "\n" not in message and len(message) < 400, (name, message)
        # The same file as a player spec: one SpecError line, never a traceback from deeper down.
        with pytest.raises(SpecError):
            make_evaluator(f"organism:{path}")
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"format": "mimic-organism", "meta": "\xe9"}')
    with pytest.raises(ValueError, match="not UTF-8"):
        Organism.load(path)
    path = tmp_path / "big.json"
    path.write_text(" " * (2 << 20))
    with pytest.raises(ValueError, match="too large"):
        Organism.load(path)
    assert len(texts) == 23


def test_organism_load_refuses_a_fifo_and_stdin_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    outcome: dict[str, str] = {}

    def load(path: str) -> None:
        try:
            Organism.load(path)
            outcome[path] = "loaded"
        except (ValueError, OSError) as exc:
            outcome[path] = str(exc)

    for path in (str(fifo), "/dev/stdin", str(tmp_path)):
        t = threading.Thread(target=load, args=(path,), daemon=True)
        t.start()
        t.join(timeout=5)
        assert not t.is_alive(), f"Organism.load({path}) blocks"
    assert "not a regular file" in outcome[str(fifo)]
    assert outcome["/dev/stdin"].startswith("/dev/stdin")
    assert "not a regular file" in outcome[str(tmp_path)] or "directory" in outcome[str(tmp_path)]


def test_organism_save_is_whole_or_nothing(tmp_path: Path) -> None:
    # A failed save (here: the target is a directory) leaves no half-written file and nothing beside it.
    (tmp_path / "o.json").mkdir()
    with pytest.raises(OSError):
        Organism.random(1).save(tmp_path / "o.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json"]
