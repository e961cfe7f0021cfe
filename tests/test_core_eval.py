"""The compiled core's native evaluators (search/core/evaluate.py) equal their Python evaluations to the centipawn.

Every evaluator with a native form (material, the expert, organisms of the paper and rich layouts: the shipped
results/paper-stockfish and results/rich-stockfish organisms and random ones) is evaluated by Python and by the
core on the same positions, 10,000 and more: both held-out label sets (6,000 positions of real games), the positions
today's engine evaluates in short searches from ten of them (quiescence captures, evasions), seeded random playouts
from the start position (castling rights, en passant, both sides to move), random placements with every
material imbalance (up to four queens a side, no queen, bare kings, lone minors), and random playouts from positions
with pawns about to promote (every promotion). The expected value of each position is the Python evaluator's own
(``evaluate(board)``, the reference the core must reproduce), computed once per position. Three cases derived by hand
pin what the reference does that a plausible native evaluator could do otherwise: its rounding (``floor(x + 0.5)``,
not Python's ``round``) and the order and kind of its float sums (Python's ``sum``, not a reordered or exact one;
the tables White's pieces first).
"""

from __future__ import annotations

import math
import random
from functools import cache
from pathlib import Path

import chess
import numpy as np
import pytest

from organisms.expert import Expert
from organisms.features import FEATURE_NAMES
from organisms.genome import rich_genome
from organisms.linear import TermWeights
from organisms.material import Material
from organisms.organism import Organism
from search import Engine
from search.base import Limit, NativeForm
from search.core.board import from_board
from search.core.eval_linear import COMPENSATED_SUM, term_sums
from search.core.evaluate import KINDS, evaluate, native_args

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = [ROOT / "results" / "heldout-mixed" / "labels.epd", ROOT / "results" / "heldout-tcec" / "labels.epd"]


def _heldout() -> list[chess.Board]:
    boards = []
    for path in HELDOUT:
        for line in path.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 4:
                boards.append(chess.Board(" ".join(fields[:4]) + " 0 1"))
    return boards


def _playouts(rng: random.Random, starts: list[chess.Board], plies: int, games: int,
              promotions: set[int]) -> list[chess.Board]:
    """Every position of ``games`` random games of up to ``plies`` plies from the ``starts`` (taken in turn); the
    promotion pieces played go into ``promotions``."""
    out = []
    for g in range(games):
        board = starts[g % len(starts)].copy(stack=False)
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            if move.promotion:
                promotions.add(move.promotion)
            board.push(move)
            out.append(board.copy(stack=False))
    return out


def _imbalances(rng: random.Random, n: int) -> list[chess.Board]:
    """``n`` valid positions with random material on random squares: 0-4 queens, 0-3 rooks, bishops, knights and
    0-8 pawns a side, chosen independently (so every imbalance, and bare kings, occur), either side to move."""
    out: list[chess.Board] = []
    while len(out) < n:
        board = chess.Board(None)
        squares = rng.sample(range(64), 64)
        for colour in (chess.WHITE, chess.BLACK):
            board.set_piece_at(squares.pop(), chess.Piece(chess.KING, colour))
            counts = {chess.QUEEN: rng.choice((0, 0, 1, 1, 1, 2, 3, 4)), chess.ROOK: rng.randrange(4),
                      chess.BISHOP: rng.randrange(4), chess.KNIGHT: rng.randrange(4), chess.PAWN: rng.randrange(9)}
            for piece_type, count in counts.items():
                for _ in range(count):
                    sq = squares.pop()
                    if piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
                        continue
                    board.set_piece_at(sq, chess.Piece(piece_type, colour))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            out.append(board)
    return out


EDGES = ["4k3/8/8/8/8/8/8/4K3 w - - 0 1", "7k/8/8/8/8/8/8/K7 b - - 0 1", "k7/8/8/8/8/8/8/7K w - - 0 1",
         "4k3/8/8/8/8/8/8/4KN2 b - - 0 1", "4k3/8/8/8/8/8/8/4KB2 w - - 0 1", "4kb2/8/8/8/8/8/8/4KB2 w - - 0 1",
         "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
         "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "QQQQ4/7k/8/8/8/8/8/K3qqqq w - - 0 1"]
"""Positions the random ones may miss: bare kings in the middle and in corners, a lone minor, castling rights of
both sides to move, en passant, four queens a side."""
class _Recorder:
    """An evaluator that keeps every position today's engine evaluates (and scores it as the expert does)."""

    def __init__(self) -> None:
        self.expert = Expert()
        self.seen: list[chess.Board] = []

    def evaluate(self, board: chess.Board) -> int:
        self.seen.append(board.copy(stack=False))
        return self.expert.evaluate(board)


def _searched(starts: list[chess.Board]) -> list[chess.Board]:
    """The positions today's engine evaluates in a 400-node search of each start (quiescence captures, evasions)."""
    recorder = _Recorder()
    engine = Engine(recorder)
    for board in starts:
        engine.search(board, Limit(nodes=400))
    return recorder.seen


PROMOTION_STARTS = ["8/PPPk4/8/8/8/8/4Kppp/8 w - - 0 1", "r3k3/1P4P1/8/8/8/8/1p4p1/4K2R b Kq - 0 1",
                    "n1n1k3/PPPP4/8/8/8/8/4pppp/3K1N1N w - - 0 1"]


@cache
def mix() -> tuple[list[chess.Board], frozenset[int]]:
    """The positions of every test here (built once; a seeded mix, see the module docstring) and the promotion
    pieces played on the way."""
    rng = random.Random(62)
    promotions: set[int] = set()
    heldout = _heldout()
    boards = [chess.Board(f) for f in EDGES] + heldout + _searched(heldout[::600])
    boards += _playouts(rng, [chess.Board()], 120, 25, promotions)
    boards += _imbalances(rng, 1000)
    boards += _playouts(rng, [chess.Board(f) for f in PROMOTION_STARTS], 30, 40, promotions)
    return boards, frozenset(promotions)


def positions() -> list[chess.Board]:
    return mix()[0]


@cache
def native_positions() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    return [_arrays(b) for b in positions()]


def _arrays(board: chess.Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pos = from_board(board)
    return pos.bb, pos.mb, pos.st


def _check(evaluator: object, boards: list[chess.Board], arrays: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
           ) -> None:
    form = evaluator.native_form()  # type: ignore[attr-defined]
    kind, wi, wf = native_args(form)
    wrong = []
    for board, (bb, mb, st) in zip(boards, arrays, strict=True):
        expected = evaluator.evaluate(board)  # type: ignore[attr-defined]
        got = evaluate(bb, mb, st, kind, wi, wf)
        if got != expected:
            wrong.append(f"{board.fen()}: {got} != {expected}")
    assert not wrong, f"{len(wrong)} of {len(boards)} differ, e.g. " + "; ".join(wrong[:3])


def test_the_positions_cover_the_cases() -> None:
    """The mix has the size and the variety the module docstring promises."""
    boards = positions()
    assert len(boards) >= 10_000
    assert sum(b.turn == chess.BLACK for b in boards) > 3_000 and sum(b.turn for b in boards) > 3_000
    assert sum(b.castling_rights != 0 for b in boards) > 500
    assert sum(b.ep_square is not None for b in boards) > 20
    assert sum(len(b.pieces(chess.QUEEN, chess.WHITE)) >= 3 for b in boards) > 100
    assert sum(not (b.occupied & ~b.kings) for b in boards) >= 1  # bare kings
    assert mix()[1] == {chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN}


EVALUATORS = {
    "material": lambda: Material(),
    "material-custom": lambda: Material({chess.PAWN: 87, chess.KNIGHT: 301, chess.BISHOP: 333, chess.ROOK: 479,
                                         chess.QUEEN: 1013}),
    "expert": lambda: Expert(),
    "paper-stockfish": lambda: Organism.load(ROOT / "results" / "paper-stockfish" / "organism.json"),
    "rich-stockfish": lambda: Organism.load(ROOT / "results" / "rich-stockfish" / "organism.json"),
}


@pytest.mark.parametrize("name", list(EVALUATORS))
def test_native_equals_python_on_every_position(name: str) -> None:
    _check(EVALUATORS[name](), positions(), native_positions())


@pytest.mark.parametrize("layout", ["paper", "rich"])
def test_random_organisms_equal_python(layout: str) -> None:
    """Twelve random chromosomes of each layout, each on its own 500 positions of the mix (6,000 in all)."""
    boards, arrays = positions(), native_positions()
    for seed in range(12):
        organism = Organism.random(seed, genome=rich_genome() if layout == "rich" else None)
        start = seed * 1100 % (len(boards) - 500)
        _check(organism, boards[start:start + 500], arrays[start:start + 500])


def _weights(**nonzero: float) -> TermWeights:
    return TermWeights([nonzero.get(name, 0.0) for name in FEATURE_NAMES])


def _native_linear(weights: TermWeights, board: chess.Board) -> int:
    kind, wi, wf = native_args(NativeForm.linear("paper", weights.mg, weights.eg, weights.tempo))
    bb, mb, st = _arrays(board)
    return int(evaluate(bb, mb, st, kind, wi, wf))


def test_rounding_is_floor_of_x_plus_a_half() -> None:
    """A pawn weighs 2.5 and nothing else counts: White a pawn up scores +2.5, from White's view 3 (floor(3.0)) and
    from Black's -2 (floor(-2.0)); Python's round() would give 2 and -2, truncation 2 and -2."""
    weights = _weights(pawn=2.5)
    assert _native_linear(weights, chess.Board("8/8/4k3/8/8/8/4P3/4K3 w - - 0 1")) == 3
    assert _native_linear(weights, chess.Board("8/8/4k3/8/8/8/4P3/4K3 b - - 0 1")) == -2


@pytest.mark.parametrize(("pawn", "knight", "bishop", "plain", "compensated"), [
    (1e16, 1.0, -1e16, 0, 1), (1.0, 1e16, -1e16, 0, 1), (1e16, -1e16, 1.0, 1, 1)])
def test_float_sums_follow_pythons_sum(pawn: float, knight: float, bishop: float, plain: int, compensated: int
                                       ) -> None:
    """White a pawn, a knight and a bishop up, and those three weights (nothing else counts): the exact sum is 1 each
    time, but Python's ``sum`` adds left to right (pawn, knight, bishop), and before 3.12 1e16 + 1 and -1e16 + 1 round
    back to ±1e16 (the spacing of doubles there is 2; a tie goes to the even 1e16), so the three sums are 0, 0 and 1
    (and 0, 1 and 0 right to left); from 3.12 ``sum`` compensates (Neumaier) and gets 1. The phase is 2 (a knight and
    a bishop): the score is S * 1/12 + S * 11/12, rounded: S."""
    weights = _weights(pawn=pawn, knight=knight, bishop=bishop)
    board = chess.Board("4k3/8/8/8/8/8/P7/1NB1K3 w - - 0 1")
    assert _native_linear(weights, board) == (compensated if sum([0.1] * 10) == 1.0 else plain)


def _sum_311(values: list[float]) -> float:
    """Python 3.11's ``sum`` of floats: the int start 0 plus each item in turn."""
    total = 0.0
    for x in values:
        total += x
    return total


def _sum_312(values: list[float]) -> float:
    """Python 3.12's ``sum`` of floats, transcribed from CPython's ``builtin_sum_impl`` (Objects/bltinmodule.c): the
    int start 0 plus the first item, then Neumaier's compensation over the rest, added at the end if non-zero and
    finite."""
    total, c = 0.0 + values[0], 0.0
    for x in values[1:]:
        t = total + x
        c += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
        total = t
    return total + c if c and math.isfinite(c) else total


def test_both_ways_of_summing_equal_pythons() -> None:
    """The core sums the weighted terms as this interpreter's ``sum`` does (left to right before 3.12, compensated
    from 3.12): both ways, checked here on any interpreter against transcriptions of 3.11's and 3.12's ``sum`` (the
    running interpreter's ``sum`` equals its own), on the three hand-made cases above (3.12's sum is 1 on each, 3.11's
    0, 0 and 1) and on random weights of every magnitude and terms."""
    rng = np.random.default_rng(62)
    cases = [([1e16, 1.0, -1e16], [1, 1, 1])]
    cases += [([1.0, 1e16, -1e16], [1, 1, 1]), ([1e16, -1e16, 1.0], [1, 1, 1])]
    for _ in range(300):
        n = int(rng.integers(1, 32))
        cases.append(((rng.standard_normal(n) * 10.0 ** rng.integers(-3, 17, n)).tolist(),
                      rng.integers(-12, 13, n).tolist()))
    assert [_sum_312([w * t for w, t in zip(*c, strict=True)]) for c in cases[:3]] == [1.0, 1.0, 1.0]
    assert [_sum_311([w * t for w, t in zip(*c, strict=True)]) for c in cases[:3]] == [0.0, 0.0, 1.0]
    for weights, terms in cases:
        mg = np.zeros(31)
        mg[:len(weights)] = weights
        wf = np.concatenate([mg, mg[::-1], [0.0]])
        t = np.zeros(31, np.int64)
        t[:len(terms)] = terms
        for w in (mg, mg[::-1]):
            products = [float(a) * float(b) for a, b in zip(w, t, strict=True)]
            assert sum(products) == (_sum_312 if COMPENSATED_SUM else _sum_311)(products)  # this interpreter's
        plain = tuple(_sum_311([float(a) * float(b) for a, b in zip(w, t, strict=True)]) for w in (mg, mg[::-1]))
        compensated = tuple(_sum_312([float(a) * float(b) for a, b in zip(w, t, strict=True)]) for w in (mg, mg[::-1]))
        assert term_sums(wf, t, False) == plain
        assert term_sums(wf, t, True) == compensated


def test_table_sums_follow_pythons_order() -> None:
    """Tables that count only White's pawn on a2 (2^58), White's knight on b1 (36) and Black's pawn on a7 (-2^58), at
    phase 1 (one knight). Python adds White's pieces before Black's, from 0.0: 2^58 + 36 rounds to 2^58 + 64 (the
    spacing of doubles there is 64), minus 2^58 leaves 64; over 24 that is 2.67, which rounds to 3. Black first would
    leave 36, 1.5 and round to 2."""
    tables = np.zeros((25, 12, 64))
    tables[1, 0, chess.A2], tables[1, 1, chess.B1], tables[1, 6, chess.A7] = 2.0 ** 58, 36.0, -(2.0 ** 58)
    kind, wi, wf = native_args(NativeForm.linear("rich", [0.0] * 31, [0.0] * 31, 0.0, tables))
    bb, mb, st = _arrays(chess.Board("4k3/p7/8/8/8/8/P7/1N2K3 w - - 0 1"))
    assert evaluate(bb, mb, st, kind, wi, wf) == 3


def test_every_kind_has_its_form() -> None:
    """Material, the expert and both organism layouts have a native form of a kind of the core's table (the nets'
    kinds are tested with them); a form of another kind, or of the wrong size, is refused with a message naming it."""
    assert {Material().native_form().kind, Expert().native_form().kind, Organism.random(0).native_form().kind,
            Organism.random(0, genome=rich_genome()).native_form().kind} <= set(KINDS)
    with pytest.raises(ValueError, match="no native evaluator of kind 'deepchess'"):
        native_args(NativeForm("deepchess", np.zeros(0, np.int64), np.zeros(0)))
    with pytest.raises(ValueError, match="native paper evaluator takes 0 integers and 63 floats, got 0 and 62"):
        native_args(NativeForm("paper", np.zeros(0, np.int64), np.zeros(62)))
    assert Organism.load(ROOT / "results" / "user-terms" / "threats.json").native_form() is None
