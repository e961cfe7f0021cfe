"""The Giraffe net in the compiled core (search/core/eval_giraffe.py) equals today's numpy inference.

The positions are test_core_eval's mix (over 10,000: both held-out label sets, positions today's engine evaluates in
short searches, random playouts with castling, en passant and every promotion, random material imbalances). On each,
the core's 363 features equal :func:`organisms.giraffe.giraffe_features` exactly, and the core's evaluation by the
shipped nets (the self-play net, a net with the linear path, a mean of five nets) is within a centipawn of
:meth:`organisms.net.NetEvaluator.evaluate` (both multiply in float32, summing in other orders). Cases derived by
hand pin the features of one position, the rounding (half to even, Python's ``round``) and the clip.

Giraffe's probability-limited search compiled (search/core/prob_search.py) against today's (search/prob.py): with
aspiration, delta pruning and the table off, an iteration's root score is the minimax value of the tree the
probabilities define, whatever the move order; both engines then agree on the score (exactly with the expert, within
the evaluations' centipawn with the net). What may differ, and why: the nodes (the core generates moves in another
order, so quiescence cuts and the order of equal moves differ) and, with heuristic probabilities, the tree itself
where killers (set by cutoffs, so by the order) change a quiet move's weight; at these budgets they agree.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import chess
import numpy as np
import pytest

from organisms.expert import Expert
from organisms.giraffe import GIRAFFE_FEATURE_NAMES, giraffe_features
from organisms.net import EVAL_LIMIT, NetEvaluator, expected_shapes, make_header
from organisms.pnet import PNet
from search import Engine, Limit, make_engine
from search.base import NativeForm
from search.choose import engine_label
from search.core.board import from_board
from search.core.engine import CoreEngine
from search.core.eval_giraffe import N_FEATURES
from search.core.eval_giraffe import giraffe_features as native_features
from search.core.evaluate import KINDS, evaluate, native_args
from search.core.prob_engine import ProbCoreEngine
from search.prob import ProbEngine
from tests.test_core_eval import native_positions, positions

ROOT = Path(__file__).resolve().parent.parent
NETS = ROOT / "results" / "giraffe-selfplay"


@cache
def net(name: str) -> NetEvaluator:
    return NetEvaluator.load(NETS / name / "net.npz")


def _native(board: chess.Board) -> np.ndarray:
    pos = from_board(board)
    x = np.empty(N_FEATURES, np.float32)
    native_features(pos.bb, pos.st, x)
    return x


def test_features_equal_python_on_every_position() -> None:
    boards = positions()
    assert len(boards) >= 10_000
    wrong = [b.fen() for b in boards if not np.array_equal(_native(b), giraffe_features(b))]
    assert not wrong, f"{len(wrong)} of {len(boards)} differ, e.g. {wrong[:3]}"


def test_features_by_hand() -> None:
    """A lone rook on a1 beside its king on e1, White to move with O-O-O, Black's king on e8. Rook slot 0 (file a):
    exists, x 0, y 0, nobody attacks or defends a1; its moves b1-d1 and a2-a8 (10; e1 is its own king's) are all
    safe (Black's king reaches only d7-f7, d8, f8): 10/16; free squares east b1-d1 (3/7), west 0, north a2-a8 (7/7),
    south 0. Globals: one rook (1/2), our queenside right, our king at x 4/7, y 0; theirs at 4/7, 7/7. The same
    position with Black to move and colours swapped reads the same but for white_to_move."""
    x = dict(zip(GIRAFFE_FEATURE_NAMES, _native(chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")).tolist(), strict=True))
    f32 = np.float32
    assert [x[f"our_rook0_{c}"] for c in ("exists", "x", "y", "attacker", "defender", "mobility")] == [
        1.0, 0.0, 0.0, 0.0, 0.0, 0.625]
    assert [x[f"our_rook0_free_{d}"] for d in "ewns"] == [f32(3 / 7), 0.0, 1.0, 0.0]
    assert x["our_rook1_exists"] == 0.0 and x["our_rooks"] == 0.5 and x["white_to_move"] == 1.0
    assert (x["our_castle_kingside"], x["our_castle_queenside"], x["their_castle_queenside"]) == (0.0, 1.0, 0.0)
    assert (x["our_king_x"], x["our_king_y"], x["their_king_x"], x["their_king_y"]) == (f32(4 / 7), 0.0, f32(4 / 7),
                                                                                          1.0)
    mirrored = _native(chess.Board("r3k3/8/8/8/8/8/8/4K3 b q - 0 1"))
    assert mirrored[GIRAFFE_FEATURE_NAMES.index("white_to_move")] == 0.0
    same = np.array([n != "white_to_move" for n in GIRAFFE_FEATURE_NAMES])
    assert np.array_equal(mirrored[same], _native(chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"))[same])


@pytest.mark.parametrize(("name", "every"), [("boot-all", 1), ("boot-200000-linear", 5), ("boot-200000-mean5", 9)])
def test_native_net_within_a_centipawn(name: str, every: int) -> None:
    """The self-play net on every position, the linear-path net and the mean of five on every 5th and 9th."""
    evaluator = net(name)
    kind, wi, wf = native_args(evaluator.native_form())
    boards, arrays = positions()[::every], native_positions()[::every]
    diffs = np.array([int(evaluate(bb, mb, st, kind, wi, wf)) - evaluator.evaluate(b)
                      for b, (bb, mb, st) in zip(boards, arrays, strict=True)])
    assert np.abs(diffs).max() <= 1, f"{np.count_nonzero(np.abs(diffs) > 1)} of {len(boards)} differ by more"
    assert np.count_nonzero(diffs) <= len(boards) // 100  # almost always the same integer


def _constant_net(b_out: float) -> NetEvaluator:
    """A net whose weights are all zero: it scores every position ``b_out * 2`` centipawns (scale 2)."""
    arrays = {k: np.zeros(s, np.float32) for k, s in expected_shapes((19, 44, 26), 64).items()}
    arrays["b_out"][0] = b_out
    return NetEvaluator(arrays, make_header(scale=2.0))


@pytest.mark.parametrize(("b_out", "expected"), [(0.25, 0), (0.75, 2), (-0.25, 0), (-0.75, -2), (1e5, EVAL_LIMIT),
                                                 (-1e5, -EVAL_LIMIT)])
def test_rounding_half_to_even_and_the_clip(b_out: float, expected: int) -> None:
    """0.5 cp rounds to 0 and 1.5 to 2 (half to even, as Python's round: floor(x + 0.5) would give 1 and 2), -0.5 to
    0 and -1.5 to -2; 200,000 cp is clipped to the evaluation limit."""
    evaluator = _constant_net(b_out)
    kind, wi, wf = native_args(evaluator.native_form())
    p = from_board(chess.Board())
    assert evaluate(p.bb, p.mb, p.st, kind, wi, wf) == expected == evaluator.evaluate(chess.Board())


def test_form_and_engine_choice() -> None:
    """The net's form is a kind of the core's table, its size checked; the default search plays it in the core,
    ``@search=python`` in today's engine."""
    form = net("boot-all").native_form()
    assert form.kind in KINDS and list(form.wi) == [19, 44, 26, 64, 0]
    with pytest.raises(ValueError, match="native giraffe evaluator takes 5 integers"):
        native_args(NativeForm("giraffe", form.wi, form.wf[:-1]))
    core = make_engine(net("boot-all"))
    assert isinstance(core, CoreEngine) and engine_label(core) == "compiled core"
    assert type(make_engine(net("boot-all"), "python")) is Engine


@pytest.mark.parametrize("fen", ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                                 "6k1/5ppp/8/8/3n4/8/5PPP/3R2K1 b - - 0 1"])
def test_core_search_is_pythons_minimax(fen: str) -> None:
    """With pruning, aspiration and the table off, a depth-2 search's root score is the minimax value of the same
    tree (quiescence included) in either engine: equal within the evaluations' centipawn."""
    switches = {"null_move": False, "lmr": False, "aspiration": False, "delta_pruning": False, "tt_cutoffs": False,
                "use_tt": False}
    board = chess.Board(fen)
    core = CoreEngine(net("boot-all"), **switches).search(board, Limit(depth=2))
    python = Engine(net("boot-all"), **switches).search(board, Limit(depth=2))
    assert abs(core.score - python.score) <= 1


KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
UNPRUNED = {"aspiration": False, "delta_pruning": False, "tt_cutoffs": False, "use_tt": False}


@pytest.mark.parametrize(("evaluator", "probabilities", "fen", "iterations"), [
    ("expert", "uniform", KIWIPETE, 4), ("expert", "heuristic", KIWIPETE, 4),
    ("expert", "uniform", "6k1/5ppp/8/8/3n4/8/5PPP/3R2K1 b - - 0 1", 5),
    ("expert", "heuristic", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 5),
    ("net", "heuristic", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 4),
    ("pnet", "heuristic", KIWIPETE, 4)])
def test_compiled_prob_search_is_pythons(evaluator: str, probabilities: str, fen: str, iterations: int) -> None:
    """The same root score as today's probability-limited search, iteration by iteration (module docstring); the
    perspective net too (its accumulators follow the compiled tree's moves; it equals numpy to the integer)."""
    ev = {"expert": Expert, "net": lambda: net("boot-all"),
          "pnet": lambda: PNet.load(ROOT / "results" / "sf-pnet" / "pnet.npz")}[evaluator]()
    core = ProbCoreEngine(ev, probabilities=probabilities, **UNPRUNED)
    python = ProbEngine(ev, probabilities=probabilities, **UNPRUNED)
    board = chess.Board(fen)
    for k in range(1, iterations + 1):
        a, b = core.search(board, Limit(depth=k)), python.search(board, Limit(depth=k))
        assert abs(a.score - b.score) <= (1 if evaluator == "net" else 0), k
        assert a.depth == b.depth == k


def test_prob_search_choice_and_default_play() -> None:
    """``@search=prob`` plays a native evaluator in the core, ``@search=prob-python`` in today's engine; with every
    switch on both find the same move from the start at 6 iterations (b1c3, derived by running today's)."""
    core = make_engine(Expert(), "prob")
    assert isinstance(core, ProbCoreEngine) and engine_label(core) == "compiled core"
    python = make_engine(Expert(), "prob-python")
    assert type(python) is ProbEngine
    assert type(make_engine(net("boot-all"), "prob")) is ProbCoreEngine
    a, b = core.search(chess.Board(), Limit(depth=6)), python.search(chess.Board(), Limit(depth=6))
    assert a.move == b.move and a.depth == b.depth == 6


def test_prob_search_of_a_board_the_core_does_not_play() -> None:
    """A Chess960 board (the core refuses it) is searched by today's probability-limited search, with a legal move."""
    engine = ProbCoreEngine(Expert())
    board = chess.Board.from_chess960_pos(518 - 1)
    result = engine.search(board, Limit(depth=3))
    assert result.move in board.legal_moves and result.depth == 3
    assert type(engine._prob_python) is ProbEngine
