"""Gray-coded genes are the default; binary organisms and ``random:SEED`` keep their old weights."""

from __future__ import annotations

import json
import math
from pathlib import Path

import chess
import numpy as np

from evolve.cli import build_parser
from evolve.ga.run import RunSettings
from evolve.players import make_evaluator
from organisms import Organism, features
from organisms.genome import DEFAULT_ENCODING, Gene, Genome, default_genome

ROOT = Path(__file__).resolve().parent.parent
BINARY_ORGANISM = ROOT / "results" / "paper-stockfish-binary" / "organism.json"
FENS = [chess.STARTING_FEN, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "8/5pk1/6p1/8/3R4/6P1/5PK1/r7 b - - 0 40"]


def _binary_value(gene: dict, chromosome: str) -> float:
    """A gene's value with its bits read as a plain binary number: low + (high − low) · int / (2^bits − 1)."""
    return gene["low"] + (gene["high"] - gene["low"]) * int(chromosome, 2) / ((1 << gene["bits"]) - 1)


def test_gray_is_the_default_everywhere() -> None:
    assert DEFAULT_ENCODING == "gray"
    assert default_genome().encoding == "gray" and Genome([Gene("a", 3, 0.0, 7.0)]).encoding == "gray"
    assert Organism().genome.encoding == "gray"
    assert RunSettings(labels="l.epd", out="o", ga=None).encoding == "gray"  # type: ignore[arg-type]
    args = build_parser().parse_args(["evolve", "labels.epd", "--out", "x"])
    assert args.encoding == "gray"
    assert build_parser().parse_args(["evolve", "l.epd", "--out", "x", "--encoding", "binary"]).encoding == "binary"


def test_gray_decoding_by_hand() -> None:
    genome = default_genome()  # the default reading, Gray
    small = Genome([Gene("a", 3, 0.0, 7.0), Gene("b", 4, -10.0, 20.0)])
    # a: Gray 111 -> binary 1, 1^1=0, 0^1=1 = 101 = 5 -> 5.0.
    # b: Gray 0110 -> binary 0, 0^1=1, 1^1=0, 0^0=0 = 0100 = 4 -> -10 + 4 * 30/15 = -2.0.
    bits = np.array([[1, 1, 1, 0, 1, 1, 0]], dtype=np.uint8)
    assert small.decode(bits).tolist() == [[5.0, -2.0]]
    assert np.array_equal(small.encode(np.array([5.0, -2.0])), bits[0])
    # In the default layout all zeros still read as every gene's low end; all ones no longer read as the
    # high end: Gray 1111111111 is binary 1010101010 = 682 for a 10-bit gene, 1010101 = 85 for a 7-bit one.
    assert genome.decode(np.zeros((1, genome.total_bits), np.uint8))[0].tolist() == genome.low.tolist()
    ones = genome.decode(np.ones((1, genome.total_bits), np.uint8))[0]
    assert genome.genes[0].low == genome.genes[5].low == 0
    assert math.isclose(ones[0], 400 * 682 / 1023) and math.isclose(ones[5], genome.genes[5].high * 85 / 127)


def test_a_binary_organism_file_loads_and_evaluates_as_before(tmp_path: Path) -> None:
    data = json.loads(BINARY_ORGANISM.read_text())
    assert data["encoding"] == "binary"
    organism = Organism.load(BINARY_ORGANISM)
    assert organism.genome.encoding == "binary"
    # Every weight is its chromosome read as plain binary (and the value the old code wrote beside it).
    by_hand = [_binary_value(g, g["chromosome"]) for g in data["genes"]]
    assert np.allclose(organism.weights, by_hand, rtol=0, atol=1e-9)
    assert np.allclose(organism.weights, [g["value"] for g in data["genes"]], rtol=0, atol=1e-9)
    # Read as Gray (the new default) the same bits would be another organism.
    data_gray = dict(data, encoding="gray")
    data_gray["genes"] = [{k: v for k, v in g.items() if k != "value"} for g in data["genes"]]
    assert not np.allclose(Organism.from_dict(data_gray).weights, organism.weights)
    # Evaluations: round(weights · features), side to move; the numbers are what the code before Gray
    # became the default (commit bbb054f) printed for this file: 0, -8 and 2 centipawns.
    for fen, old in zip(FENS, [0, -8, 2], strict=True):
        board = chess.Board(fen)
        assert organism.evaluate(board) == old == math.floor(float(organism.weights @ features(board)) + 0.5)
    # A file from before organism files named their encoding is binary too.
    del data["encoding"]
    assert np.array_equal(Organism.from_dict(data).weights, organism.weights)
    # Saved again, it stays binary and loads with the same weights.
    organism.save(tmp_path / "again.json")
    again = Organism.load(tmp_path / "again.json")
    assert again.genome.encoding == "binary" and np.array_equal(again.weights, organism.weights)


def test_random_seed_names_the_same_weights_as_before() -> None:
    organism = Organism.random(1)
    assert organism.genome == default_genome()  # the default genome, Gray-coded
    # The weights are numpy's default_rng(1) draw of 0/1 bits read as plain binary: the pawn gene is
    # the first 10 of them onto [0, 400]. The organism's own bits are the Gray code of that integer.
    drawn = np.random.default_rng(1).integers(0, 2, size=(1, organism.genome.total_bits), dtype=np.uint8)[0]
    pawn_int = int("".join(map(str, drawn[:10])), 2)
    assert math.isclose(organism.weights[0], 400 * pawn_int / 1023, rel_tol=1e-12)
    assert "".join(map(str, organism.bits[:10])) == format(pawn_int ^ (pawn_int >> 1), "010b")
    # The code before Gray became the default printed these weights for pawn..queen, and these
    # evaluations (1, -79 and 5 centipawns) of FENS.
    assert np.allclose(organism.weights[:5], [321.0166177908113, 556.0117302052786, 1106.158357771261,
                                              1650.4398826979473, 187.683284457478], rtol=0, atol=1e-9)
    spec = make_evaluator("random:1")
    for fen, old in zip(FENS, [1, -79, 5], strict=True):
        assert spec.evaluate(chess.Board(fen)) == old
