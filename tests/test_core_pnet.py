"""The perspective net in the compiled core (search/core/eval_pnet.py) equals its numpy inference to the integer.

The nets are the shipped ones (``results/sf-pnet/pnet.npz`` and ``results/pnet/pnet.npz``: each the mean of five
members, 320 units, with PSQT; ``results/pnet/member-1``: one member, 64 units; ``results/pnet/no-psqt``) and a
seeded random one. The positions (over 10,000): both held-out label sets (real games), the positions today's engine
evaluates in short searches from some of them (quiescence captures, evasions), seeded random playouts from the start
(castling, en passant, both sides to move) and from positions with pawns about to promote (every promotion). The
expected value of each position is the Python evaluator's own (``PNet.evaluate``: the reference the core must
reproduce); one case is derived by hand (the rounding). The accumulators the search keeps are checked against fresh
ones at every step of random walks (moves made and taken back, null moves) and at every evaluation of real searches.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from pathlib import Path

import chess
import numpy as np
import pytest

from organisms.pnet import PNet, make_header, random_pnet
from search import Engine, Limit
from search.core.board import F_CASTLE, F_EP, from_board, make_move, make_null, unmake_move, unmake_null
from search.core.engine import CoreEngine
from search.core.eval_pnet import CHECK, CHECKED, MISMATCHES, pnet_sizes
from search.core.evaluate import PNET, evaluate, evaluate_afresh, follow_move, follow_null, native_args
from search.core.movegen import MAX_MOVES, gen_moves, move_to_chess
from search.prob import make_engine

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = [ROOT / "results" / "heldout-mixed" / "labels.epd", ROOT / "results" / "heldout-tcec" / "labels.epd"]
NETS = {
    "sf-pnet (mean of 5)": ROOT / "results" / "sf-pnet" / "pnet.npz",
    "pnet (mean of 5)": ROOT / "results" / "pnet" / "pnet.npz",
    "member-1": ROOT / "results" / "pnet" / "member-1" / "pnet.npz",
    "no-psqt": ROOT / "results" / "pnet" / "no-psqt" / "pnet.npz",
}
PROMOTION_STARTS = ["8/PPPk4/8/8/8/8/4Kppp/8 w - - 0 1", "r3k3/1P4P1/8/8/8/8/1p4p1/4K2R b Kq - 0 1",
                    "n1n1k3/PPP5/8/8/8/8/5ppp/3K1N1N w - - 0 1"]
SEARCH_STARTS = ["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                 "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", *PROMOTION_STARTS,
                 chess.STARTING_FEN, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"]
"""Kiwipete (castling both ways, captures), en passant, promotions, the start, CPW's position 3 (en passant pins)."""
WALK_STARTS = [*SEARCH_STARTS, "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",
               "4k3/8/8/8/2pPp3/8/8/4K3 b - d3 0 1"]
"""Those, and two with Black's en passant (one with two ways to take)."""


@cache
def load(name: str) -> PNet:
    if name == "random":
        arrays, header = random_pnet(units=16, seed=3, psqt=True)
        return PNet(arrays, header)
    return PNet.load(NETS[name])


class _Recorder:
    """An evaluator that keeps every position today's engine evaluates (scored by a shipped net)."""

    def __init__(self, net: PNet) -> None:
        self.net, self.seen = net, []  # type: ignore[var-annotated]

    def evaluate(self, board: chess.Board) -> int:
        self.seen.append(board.copy(stack=False))
        return self.net.evaluate(board)


@cache
def mix() -> tuple[list[chess.Board], frozenset[int]]:
    """The positions (module docstring), built once, and the promotion pieces played in the playouts."""
    rng = random.Random(63)
    boards = []
    for path in HELDOUT:
        for line in path.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 4:
                boards.append(chess.Board(" ".join(fields[:4]) + " 0 1"))
    recorder = _Recorder(load("member-1"))
    engine = Engine(recorder)
    for board in boards[::1000]:
        engine.search(board, Limit(nodes=300))
    boards += recorder.seen
    promotions: set[int] = set()
    starts = [chess.Board()] * 30 + [chess.Board(f) for f in PROMOTION_STARTS] * 10
    for start in starts:
        board = start.copy()
        for _ in range(100 if start == chess.Board() else 30):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            if move.promotion:
                promotions.add(move.promotion)
            board.push(move)
            boards.append(board.copy(stack=False))
    return boards, frozenset(promotions)


@cache
def arrays() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    out = []
    for board in mix()[0]:
        pos = from_board(board)
        out.append((pos.bb, pos.mb, pos.st))
    return out


def test_the_positions_cover_the_cases() -> None:
    boards, promotions = mix()
    assert len(boards) >= 10_000
    assert sum(b.turn == chess.BLACK for b in boards) > 3_000 and sum(b.turn for b in boards) > 3_000
    assert sum(b.castling_rights != 0 for b in boards) > 500
    assert sum(b.ep_square is not None for b in boards) > 20
    assert promotions == {chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN}


@pytest.mark.parametrize("name", [*NETS, "random"])
def test_native_equals_numpy_on_every_position(name: str) -> None:
    net = load(name)
    kind, wi, wf = native_args(net.native_form())  # type: ignore[arg-type]
    wrong = []
    for board, (bb, mb, st) in zip(mix()[0], arrays(), strict=True):
        expected = net.evaluate(board)
        got = evaluate_afresh(bb, mb, st, kind, wi, wf)
        if got != expected:
            wrong.append(f"{board.fen()}: {got} != {expected}")
    assert not wrong, f"{len(wrong)} of {len(mix()[0])} differ, e.g. " + "; ".join(wrong[:3])


def test_rounding_by_hand() -> None:
    """One unit, no first-layer weights, bias 1.0 (255 after quantising: the clipped ReLU's top) on both
    perspectives, output weights 0.5 and 0.5 (512 each), no output bias, scale 2.5: the output is
    255 * 512 * 2 * 2.5 / (255 * 1024) = 2.5 centipawns for either side to move, which rounds half to even: 2
    (``floor(x + 0.5)`` would say 3). Kings only, so nothing else enters."""
    arrays = {"w_in": np.zeros((768, 1), np.float32), "b_in": np.ones(1, np.float32),
              "w_out": np.full((2, 1), 0.5, np.float32), "b_out": np.zeros(1, np.float32)}
    net = PNet(arrays, make_header(1, scale=2.5))
    kind, wi, wf = native_args(net.native_form())  # type: ignore[arg-type]
    for fen in ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/4K3 b - - 0 1"):
        p = from_board(chess.Board(fen))
        assert net.evaluate(chess.Board(fen)) == 2
        assert evaluate_afresh(p.bb, p.mb, p.st, kind, wi, wf) == 2


@pytest.mark.parametrize("name", ["sf-pnet (mean of 5)", "no-psqt"])
def test_accumulators_follow_random_walks(name: str) -> None:
    """A seeded walk of 3,000 steps from the starts: a random legal move (castling, en passant or a promotion half the
    time when there is one; or, one step in ten, a null move) made with the accumulators updated first, or, one step in
    two or nine plies deep, the last one taken back; at every step the incremental score equals the numpy inference of
    the board python-chess follows."""
    net = load(name)
    kind, wi, wf = native_args(net.native_form())  # type: ignore[arg-type]
    assert kind == PNET
    rng = random.Random(7)
    moves = np.zeros(MAX_MOVES, np.int32)
    steps = 0
    kinds: Counter[str] = Counter()
    for fen in WALK_STARTS:
        board = chess.Board(fen)
        p = from_board(board)
        evaluate_afresh(p.bb, p.mb, p.st, kind, wi, wf)  # the root row
        made: list[int] = []
        for _ in range(3_000 // len(WALK_STARTS)):
            n = gen_moves(p.bb, p.mb, p.st, moves)
            if made and (n == 0 or len(made) > 8 or rng.random() < 0.5):
                m = made.pop()
                (unmake_null(p.bb, p.mb, p.st, p.keys, p.undo) if m == 0
                 else unmake_move(p.bb, p.mb, p.st, p.keys, p.undo, m))
                board.pop()
            elif n == 0:
                break
            elif rng.random() < 0.1 and not board.is_check():
                follow_null(p.st, kind, wi)
                make_null(p.bb, p.mb, p.st, p.keys, p.undo)
                board.push(chess.Move.null())
                made.append(0)
            else:
                special = [int(x) for x in moves[:n] if x & (F_CASTLE | F_EP) or x >> 12 & 7]
                m = rng.choice(special) if special and rng.random() < 0.5 else int(moves[rng.randrange(n)])
                kinds["castling" if m & F_CASTLE else "en passant" if m & F_EP else "promotion" if m >> 12 & 7
                      else "other"] += 1
                follow_move(p.mb, p.st, m, kind, wi)
                make_move(p.bb, p.mb, p.st, p.keys, p.undo, m)
                board.push(move_to_chess(m))
                made.append(m)
            assert evaluate(p.bb, p.mb, p.st, kind, wi, wf) == net.evaluate(board), board.fen()
            steps += 1
    assert steps >= 2_900
    assert min(kinds[k] for k in ("castling", "en passant", "promotion")) >= 20, kinds


def test_accumulators_equal_fresh_ones_in_searches() -> None:
    """The compiled search with the check on (``wi[CHECK]``): every evaluation also computes the accumulators afresh
    and counts a difference; none in searches of positions with castling, en passant and promotions."""
    engine = CoreEngine(load("sf-pnet (mean of 5)"))
    engine._wi[CHECK] = 1
    for fen in SEARCH_STARTS:
        engine.new_game()
        engine.search(chess.Board(fen), Limit(nodes=20_000))
    assert engine._wi[CHECKED] > 20_000
    assert engine._wi[MISMATCHES] == 0


def test_the_check_sees_a_wrong_accumulator() -> None:
    """The check of the test above is not vacuous: one unit of the root's row changed, it counts one mismatch."""
    kind, wi, wf = native_args(load("member-1").native_form())  # type: ignore[arg-type]
    p = from_board(chess.Board())
    evaluate_afresh(p.bb, p.mb, p.st, kind, wi, wf)
    wi[pnet_sizes(64)[0] + 3] += 1  # the stack's row 0 begins where the form ends
    wi[CHECK] = 1
    evaluate(p.bb, p.mb, p.st, kind, wi, wf)
    assert wi[CHECKED] == 1 and wi[MISMATCHES] == 1


def test_the_core_plays_the_net_by_default() -> None:
    """A net without hidden layers has a native form: the default search is the compiled core, ``@search=python``
    today's engine; a net with a hidden layer has none and plays in today's engine."""
    net = load("member-1")
    assert isinstance(make_engine(net), CoreEngine)
    assert type(make_engine(net, "python")) is Engine
    arrays, header = random_pnet(units=8, seed=1, hidden=[4])
    assert PNet(arrays, header).native_form() is None
    assert type(make_engine(PNet(arrays, header))) is Engine
