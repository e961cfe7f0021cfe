"""The compiled search (search/core/search.py, search/core/engine.py) against today's engine: the same tree, mates
and WAC at fixed depth, node/time limits and the stop flag honoured, and the UCI lifecycle with the core searching.

Today's engine (search/engine.py) is an independent implementation of the same algorithm: with its pruning off, the
root score at a fixed depth is the minimax value of the tree both define, whatever the move order, so the two must
agree exactly; with the pruning on they differ only by move order (generation orders differ).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import chess
import pytest

from evolve.players import PLAYERS
from organisms import Expert, Material
from search import MATE, Engine, Limit, make_engine
from search.core.engine import CoreEngine
from search.formats.epd import read_epd
from search.uci import UciFrontEnd

from .test_engine import MATES
from .uci_bursts import HANG

NO_PRUNING = {"null_move": False, "lmr": False, "aspiration": False, "delta_pruning": False, "tt_cutoffs": False}
WAC_IDS = ("WAC.001", "WAC.003", "WAC.004", "WAC.010", "WAC.013", "WAC.021")
"""WAC positions today's engine solves at depth 4 with the expert (their EPD's ``bm``)."""
WAC = {r.id: r for r in read_epd(Path(__file__).parent.parent / "benchmarks" / "data" / "wac.epd") if r.id in WAC_IDS}


def _tree_positions() -> list[chess.Board]:
    return [chess.Board(fen) for fen, _, _ in MATES[:3]] + [WAC["WAC.001"].board, WAC["WAC.004"].board]


@pytest.mark.parametrize(("evaluator", "depth"), [(Material(), 3), (Expert(), 2)], ids=["material", "expert"])
def test_unpruned_core_equals_todays_engine(evaluator: Material | Expert, depth: int) -> None:
    # The minimax value of the tree (check extensions, quiescence, draws, mate distances) is the same number in both
    # engines, with the table storing only moves and without it.
    for board in _tree_positions():
        for kw in ({"use_tt": False, **NO_PRUNING}, NO_PRUNING):
            core = CoreEngine(evaluator, **kw).search(board, Limit(depth=depth))  # type: ignore[arg-type]
            today = Engine(evaluator, **kw).search(board, Limit(depth=depth))  # type: ignore[arg-type]
            assert core.score == today.score, (board.fen(), kw)


@pytest.mark.parametrize(("fen", "move", "mate"), MATES)
def test_core_finds_every_mate_with_its_distance(fen: str, move: str, mate: int) -> None:
    # Stockfish 15.1 (tests/test_engine.py): one mating move at this distance, 2 x mate - 1 plies.
    board = chess.Board(fen)
    r = CoreEngine(Material()).search(board, Limit(depth=2 * mate + 1))
    assert (r.move, r.mate, r.score) == (chess.Move.from_uci(move), mate, MATE - (2 * mate - 1))
    assert board.fen() == fen
    b = board.copy()
    for m in r.pv:
        assert m in b.legal_moves
        b.push(m)
    assert b.is_checkmate()


def test_core_solves_wac_at_depth_4_as_todays_engine() -> None:
    # The EPD's best moves; today's engine finds each at depth 4 with the expert, and so must the same algorithm.
    engine = CoreEngine(Expert())
    assert sorted(WAC) == list(WAC_IDS)
    for record in WAC.values():
        engine.new_game()
        assert engine.search(record.board, Limit(depth=4)).move in record.ops["bm"], record.id


def test_nodes_are_counted_as_today() -> None:
    # By hand: 6 legal moves (Kd1 Kd2 Kf1 Kf2 e3 e4), no capture anywhere. Depth 1 is the root (1 node) and, per
    # move, the child at the horizon (1) opening its quiescence search (1 more), which stands pat: 1 + 6 x 2 = 13.
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    assert CoreEngine(Material()).search(board, Limit(depth=1)).nodes == 13
    assert Engine(Material()).search(board, Limit(depth=1)).nodes == 13
    # A node limit stops the search at exactly that node once the first iteration is done (it took 41 here).
    start = chess.Board()
    for n in (2_000, 12_345):
        assert CoreEngine(Material()).search(start, Limit(nodes=n)).nodes == n
        assert CoreEngine(Material()).search(start, Limit(nodes=n), stop=threading.Event()).nodes == n
    # The first iteration is never cut: 1 root + 20 moves x 2 = 41 nodes; the second counts its root (42) and stops
    # at its first node (43), in both engines.
    for engine in (CoreEngine(Material()), Engine(Material())):
        first = engine.search(start, Limit(nodes=5))
        assert (first.depth, first.nodes) == (1, 43)


def test_time_limit_and_stop_flag_are_honoured() -> None:
    board = WAC["WAC.013"].board
    engine = CoreEngine(Expert())
    t0 = time.perf_counter()
    r = engine.search(board, Limit(movetime=0.25))
    spent = time.perf_counter() - t0
    assert 0.15 < spent < 0.6 and r.depth >= 4 and r.move in board.legal_moves, (spent, r)
    # A flag raised before the search: it ends at its first node with a legal move.
    stop = threading.Event()
    stop.set()
    t0 = time.perf_counter()
    r = engine.search(board, Limit(infinite=True), stop=stop)
    assert time.perf_counter() - t0 < 0.25 and r.move in board.legal_moves and r.nodes <= 2 and stop.is_set()
    # Raised by another thread during an infinite search: it ends within milliseconds of it, with a deep move.
    stop = threading.Event()
    timer = threading.Timer(0.2, stop.set)
    t0 = time.perf_counter()
    timer.start()
    r = engine.search(board, Limit(infinite=True), stop=stop)
    spent = time.perf_counter() - t0
    assert 0.2 <= spent < 0.5 and r.depth >= 4 and r.move in board.legal_moves, (spent, r)


def test_the_default_search_is_the_core_when_the_evaluator_has_a_native_form() -> None:
    class Plain:  # any object with evaluate: no native form
        def evaluate(self, board: chess.Board) -> int:
            return 0

    assert type(make_engine(Expert())) is CoreEngine and type(make_engine(Material(), "depth")) is CoreEngine
    assert type(make_engine(Expert(), "python")) is Engine and type(make_engine(Plain())) is Engine
    # A board the core does not play (chess960) is searched by today's engine inside the core's.
    board = chess.Board.from_chess960_pos(0)
    r = make_engine(Material()).search(board, Limit(depth=2))
    assert r.move in board.legal_moves and r.depth == 2


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.extend(text.splitlines())

    def flush(self) -> None:
        pass


def test_uci_lifecycle_with_the_core_searching() -> None:
    out = _Lines()
    front = UciFrontEnd(PLAYERS, "expert", out=out)  # type: ignore[arg-type]
    assert type(front.engine) is CoreEngine
    front.handle("uci")
    assert "info string search depth: compiled core" in out.lines and out.lines[-1] == "uciok"
    front.handle("position startpos moves e2e4 e7e5")
    front.handle("go infinite")
    deadline = time.perf_counter() + HANG
    while not any(line.startswith("info depth 4 ") for line in out.lines) and time.perf_counter() < deadline:
        time.sleep(0.01)
    t0 = time.perf_counter()
    front.handle("isready")  # answered at once while the compiled search runs (it releases the GIL)
    assert out.lines[-1] == "readyok" and time.perf_counter() - t0 < 0.25
    assert front.searching and any(line.startswith("info depth 4 ") for line in out.lines)
    t0 = time.perf_counter()
    front.handle("stop")
    assert front.wait(HANG) and time.perf_counter() - t0 < 0.25
    assert sum(line.startswith("bestmove ") for line in out.lines) == 1
    front.handle("go ponder")
    assert not front.wait(0.1)
    front.handle("ponderhit")  # a ponder search without a limit runs on, its bestmove waits for stop
    front.handle("stop")
    assert front.wait(HANG) and sum(line.startswith("bestmove ") for line in out.lines) == 2
    front.handle("setoption name Eval value expert@search=python")
    assert type(front.engine) is Engine
    front.handle("go infinite")
    t0 = time.perf_counter()
    assert front.handle("quit") is False and time.perf_counter() - t0 < 1.0
