"""The probability-limited search (search.prob): mates, legality, the budget arithmetic by hand, the spec suffix,
the command line."""

from __future__ import annotations

import doctest
import io
import time
from pathlib import Path

import chess
import pytest

import search.prob
from evolve.players import PLAYERS, make_evaluator
from organisms import Expert, Material
from search import MATE, Limit, ProbEngine, make_engine
from search.base import SearchResult
from search.core.engine import CoreEngine
from search.core.prob_engine import ProbCoreEngine
from search.games.roundrobin import default_name
from search.games.suite import run_suite
from search.players.player import EnginePlayer, make_player
from search.players.spec import SEARCHES, SpecError
from search.prob import (
    EVEN_WEIGHT,
    HASH_WEIGHT,
    KILLER_WEIGHT,
    LOSING_WEIGHT,
    QUIET_WEIGHT,
    WINNING_WEIGHT,
    move_weights,
)
from search.uci import UciFrontEnd

from .conftest import TickingClock, run_mimic
from .test_engine import MATES, _random_playout_positions
from .test_search_correctness import INF, _iterations, _quiesce, _victim_first, positions

# WAC positions whose best move mates in 2 (the bm move; our depth search at depth 4 agrees that it mates in 2).
WAC_MATES_IN_2 = [
    ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", "g3g6"),  # WAC.001
    ("r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1", "h6h7"),  # WAC.004
    ("5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1", "c6c4"),  # WAC.005
    ("4k1r1/2p3r1/1pR1p3/3pP2p/3P2qP/P4N2/1PQ4P/5R1K b - - 0 1", "g4f3"),  # WAC.012
    ("7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1", "a3f8"),  # WAC.027
    ("r3kr2/1pp4p/1p1p4/7q/4P1n1/2PP2Q1/PP4P1/R1BB2K1 b q - 0 1", "h5h1"),  # WAC.054
    ("r1bq1r1k/1pp1Np1p/p2p2pQ/4R3/n7/8/PPPP1PPP/R1B3K1 w - - 0 1", "e5h5"),  # WAC.099
    ("r1b2rk1/2p2ppp/p7/1p6/3P3q/1BP3bP/PP3QP1/RNB1R1K1 w - - 0 1", "f2f7"),  # WAC.154
]
PAWN_WALL = "k7/Pp6/1P6/3p4/8/6P1/6PP/7K w - - 0 1"
"""White to move has 4 moves, and Black one reply to each (test_budget_arithmetic_with_uniform_probabilities)."""
ALL_MATES = [(fen, move, mate) for fen, move, mate in MATES] + [(fen, move, 2) for fen, move in WAC_MATES_IN_2]


def test_doctests() -> None:
    failures, tried = doctest.testmod(search.prob)
    assert tried >= 2 and failures == 0


@pytest.mark.parametrize("probabilities", ["heuristic", "uniform"])
@pytest.mark.parametrize(("fen", "move", "mate"), ALL_MATES)
def test_forced_mates_are_found_with_their_distance(fen: str, move: str, mate: int, probabilities: str) -> None:
    board = chess.Board(fen)
    result = ProbEngine(Material(), hash_mb=4, probabilities=probabilities).search(
        board, Limit(mate=mate, nodes=200_000))
    assert result.move == chess.Move.from_uci(move)
    assert result.mate == mate and result.score == MATE - (2 * mate - 1)
    assert board.fen() == fen
    b = board.copy()
    for m in result.pv:  # the principal variation is legal and ends in checkmate
        assert m in b.legal_moves
        b.push(m)
    assert b.is_checkmate() and len(result.pv) == 2 * mate - 1


def test_being_mated_and_terminal_roots() -> None:
    # Black's only move is Ka7, and then Ra1 mates: Black is mated in one.
    r = ProbEngine(Material()).search(chess.Board("k7/2K5/8/8/8/8/8/1R6 b - - 0 1"), Limit(depth=3))
    assert r.move == chess.Move.from_uci("a8a7") and r.mate == -1 and r.score == -(MATE - 2)
    mated = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    mated.push_uci("d1d8")
    r = ProbEngine(Material()).search(mated, Limit(depth=3))
    assert r.move is None and r.score == -MATE
    r = ProbEngine(Material()).search(chess.Board("k7/8/1Q6/8/8/8/8/7K b - - 0 1"), Limit(depth=3))
    assert r.move is None and r.score == 0


def test_never_returns_an_illegal_move_at_tiny_budgets() -> None:
    # 240 positions, each (engine, limit) pair on 24 of them (3 playouts, 360 positions, until this test took 10 s).
    positions = _random_playout_positions(seed=11, games=2, max_plies=120)
    # Positions with exactly one legal move, some of them in check, on top of the playouts.
    forced = [chess.Board(f) for f in ("k7/2K5/8/8/8/8/8/1R6 b - - 0 1", "R6k/8/5K2/8/8/8/8/8 b - - 0 1",
                                       "8/8/8/8/8/5k2/7p/7K w - - 0 1")]
    assert [b.legal_moves.count() for b in forced] == [1, 1, 1] and forced[1].is_check()
    positions += forced
    assert len(positions) > 200
    engines = [ProbEngine(Material(), hash_mb=1), ProbEngine(Expert(), hash_mb=1, probabilities="uniform")]
    limits = [Limit(nodes=1), Limit(nodes=20), Limit(depth=1), Limit(depth=3), Limit(nodes=200)]
    for i, board in enumerate(positions):
        r = engines[i % 2].search(board, limits[i % len(limits)])
        if board.is_game_over():
            assert r.move is None
            continue
        assert r.move in board.legal_moves, board.fen()
        b = board.copy()
        for m in r.pv:
            assert m in b.legal_moves, (board.fen(), r.pv)
            b.push(m)


def test_budget_arithmetic_with_uniform_probabilities_by_hand() -> None:
    # White to move has 4 legal moves: Kg1, g4, h3, h4 (the black king on a8 is walled in by the pawns on a7,
    # b6 and b7). After each, Black has exactly one legal move, d5-d4, so the position after it has probability
    # 1/4 x 1 = 1/4. White then has k = 6, 5, 4, 4 moves (after Kg1, g4, h3, h4), and after each of those Black
    # again has the one move d4-d3. No move anywhere gives check, so no node is raised to the threshold.
    board = chess.Board(PAWN_WALL)
    # Iteration k has threshold 4^-(k-1): 1, 1/4, 1/16, 1/64. The table is off, so nothing is cut by it.
    expected = {
        1: [1, 0],  # t = 1: the root only; its children (p = 1/4 < 1) are leaves.
        2: [1, 4, 4, 0],  # t = 1/4: the 4 children (p = 1/4, a tie: expanded) and their forced replies (1/4);
        # the grandchildren's children have p = 1/(4k) <= 1/16 < 1/4.
        3: [1, 4, 4, 8, 8, 0],  # t = 1/16: p = 1/(4k) >= 1/16 only for k = 4 (after h3 and h4): 4 + 4 nodes,
        # and their forced replies d4-d3 (same p); the next children have p = 1/(16 k') < 1/16.
        4: [1, 4, 4, 19, 19],  # t = 1/64: p = 1/(4k) >= 1/64 for every k: 6 + 5 + 4 + 4 = 19, and the replies.
    }
    for iteration, counts in expected.items():
        engine = ProbEngine(Material(), probabilities="uniform", use_tt=False)
        r = engine.search(board, Limit(depth=iteration))
        assert r.depth == iteration
        assert engine.expanded[:len(counts)] == counts, iteration
    # Every node is counted, the leaves twice (the node, then its quiescence search, as the depth-limited search
    # counts them): in iteration 1 that is the root and 2 x 4 leaves.
    engine = ProbEngine(Material(), probabilities="uniform", use_tt=False)
    assert engine.search(board, Limit(depth=1)).nodes == 1 + 2 * 4


def test_heuristic_weights_by_hand() -> None:
    # White to move: exd5 wins a pawn (SEE +100: weight 4), Rxa6 loses the rook for a pawn (SEE -400: 0.5),
    # and 9 quiet moves (Kc2, Kb2, Ka2, Kc1, Ra5, Ra4, Ra3, Ra2, e5: 1 each); no move gives check.
    board = chess.Board("7k/1p4pp/p7/3p4/4P3/8/8/RK6 w - - 0 1")
    moves = list(board.legal_moves)
    weights = dict(zip([m.uci() for m in moves], move_weights(board, moves, None, [None, None]), strict=True))
    assert weights.pop("e4d5") == WINNING_WEIGHT == 4.0
    assert weights.pop("a1a6") == LOSING_WEIGHT == 0.5
    assert set(weights.values()) == {QUIET_WEIGHT} and len(weights) == 9
    # Sum 4 + 0.5 + 9 = 13.5: exd5 has p = 4/13.5 = 0.296, a quiet move 1/13.5 = 0.074, Rxa6 0.5/13.5 = 0.037.
    expected_children = {
        1: 0,  # t = 1: none
        2: 1,  # t = 1/4: exd5 only
        3: 10,  # t = 1/16 = 0.0625: exd5 and the 9 quiet moves, not Rxa6
        4: 11,  # t = 1/64 = 0.0156: all of them
    }
    for iteration, n in expected_children.items():
        engine = ProbEngine(Material(), use_tt=False)
        engine.search(board, Limit(depth=iteration))
        assert engine.expanded[1] == n, iteration
    # The hash move and a killer outrank a quiet move; an even exchange sits between.
    e4 = chess.Board("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    ms = [chess.Move.from_uci(u) for u in ("e4d5", "e4e5", "e1d1", "e1f1")]
    assert move_weights(e4, ms, ms[1], [ms[2], None]) == [WINNING_WEIGHT, HASH_WEIGHT, KILLER_WEIGHT, QUIET_WEIGHT]
    even = chess.Board("4k3/8/4p3/3r4/8/8/8/3RK3 w - - 0 1")  # Rxd5 exd5: a rook for a rook, SEE 0
    assert move_weights(even, [chess.Move.from_uci("d1d5")], None, [None, None]) == [EVEN_WEIGHT]


def test_probabilities_sum_to_one_and_depth_counts_iterations() -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    engine = ProbEngine(Expert())
    moves = list(board.legal_moves)
    for probs in (engine._probabilities(board, moves, moves[3], 2),
                  ProbEngine(Expert(), probabilities="uniform")._probabilities(board, moves, None, 2)):
        assert abs(sum(probs) - 1.0) < 1e-12
    seen: list[int] = []
    r = engine.search(board, Limit(depth=5), on_iteration=lambda x: seen.append(x.depth))
    assert r.depth == 5 and sorted(set(seen)) == [1, 2, 3, 4, 5]
    assert [ProbEngine.threshold(k) for k in (1, 2, 3)] == [1.0, 0.25, 0.0625]
    with pytest.raises(ValueError, match="probabilities"):
        ProbEngine(Expert(), probabilities="net")


def test_node_limit_and_movetime() -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    r = ProbEngine(Material()).search(board, Limit(nodes=3000))
    assert r.nodes == 3000 and r.depth >= 3 and r.move in board.legal_moves
    # Time, on a clock that advances 15 ms per read (not wall time: the machine's load cannot matter): the
    # hard budget of movetime 0.3 s is 0.27 s (less the 0.03 s overhead, search.timeman), spent to the end;
    # a 1 s clock with no increment gives soft 0.97 / 30 = 0.032 s and hard 4 x that = 0.129 s.
    with pytest.MonkeyPatch.context() as patch:
        clock = TickingClock(0.015)
        patch.setattr(time, "perf_counter", clock)
        r = ProbEngine(Material()).search(board, Limit(movetime=0.3))
        assert 0.27 <= r.time <= 0.27 + 2 * clock.step and r.move in board.legal_moves
        r = ProbEngine(Material()).search(board, Limit(wtime=1.0, btime=1.0, winc=0.0, binc=0.0))
        assert r.time <= 0.129 + 2 * clock.step and r.move in board.legal_moves


# ---------------------------------------------------------------------- against a plain minimax
def _prob_node(board: chess.Board, ev: Material, p: float, t: float, ply: int, alpha: int, beta: int) -> int:
    """The value of the probability-limited tree with uniform probabilities (search/prob.py's docstring), by
    alpha-beta with nothing but python-chess; leaves go to test_search_correctness's reference quiescence."""
    if (board.is_repetition(2) or (board.halfmove_clock >= 100 and not board.is_checkmate())
            or board.is_insufficient_material()):
        return 0
    in_check = board.is_check()
    if p < t * (1 - 1e-9):
        if not in_check:
            return _quiesce(board, ev, ply, 0, alpha, beta, True)
        p = t
    moves = sorted(board.legal_moves, key=_victim_first(board))
    if not moves:
        return -MATE + ply if in_check else 0
    for m in moves:
        board.push(m)
        v = -_prob_node(board, ev, p / len(moves), t, ply + 1, -beta, -alpha)
        board.pop()
        if v >= beta:
            return beta
        alpha = max(alpha, v)
    return alpha


def _prob_reference(board: chess.Board, ev: Material, t: float) -> int:
    b = board.copy()
    moves = sorted(b.legal_moves, key=_victim_first(b))  # captures first, as in the minimax reference: same value
    alpha = -INF
    for m in moves:
        b.push(m)
        alpha = max(alpha, -_prob_node(b, ev, 1 / len(moves), t, 1, -INF, -alpha))
        b.pop()
    return alpha


def _uniform_cases() -> list[tuple[chess.Board, int]]:
    """Iterations 1-3 on the 54 positions of test_search_correctness (those not game over), 4-6 on the 5 with the
    fewest legal moves and on the pawn position of the budget test (there the tree goes 4 to 6 plies deep). (The
    sixth fewest, 22 legal moves, took more time at iteration 6 than the other six positions together.)"""
    boards = [b for b in positions() if not b.is_game_over()]
    few = [*sorted(boards, key=lambda b: b.legal_moves.count())[:5], chess.Board(PAWN_WALL)]
    return [(b, k) for b in boards for k in (1, 2, 3)] + [(b, k) for b in few for k in (4, 5, 6)]


@pytest.fixture(scope="module")
def uniform_minimax() -> list[tuple[chess.Board, int, int]]:
    """Each case of :func:`_uniform_cases` with its minimax value (centipawns, side to move): computed once for both
    tests below, which only read it (the reference search was three quarters of their time)."""
    ev = Material()
    return [(b, k, _prob_reference(b, ev, ProbEngine.threshold(k))) for b, k in _uniform_cases()]


@pytest.mark.parametrize("use_tt", [False, True])
def test_unpruned_uniform_search_equals_minimax(use_tt: bool, uniform_minimax: list[tuple[chess.Board, int, int]]
                                                ) -> None:
    # Aspiration, delta pruning and table cutoffs off (with the table on, it only orders moves): the score of
    # iteration k is the minimax value of the tree the threshold 4^-(k-1) defines (the cases: _uniform_cases).
    # Each board is searched once, to its last iteration; iteration k of that search is a search to k.
    ev = Material()
    last: dict[int, int] = {}
    for board, iteration, _ in uniform_minimax:
        last[id(board)] = max(iteration, last.get(id(board), 0))
    found: dict[int, dict[int, SearchResult]] = {}
    for board, iteration, want in uniform_minimax:
        if id(board) not in found:
            engine = ProbEngine(ev, probabilities="uniform", aspiration=False, delta_pruning=False,
                                tt_cutoffs=False, use_tt=use_tt)
            found[id(board)] = _iterations(engine, board, last[id(board)])
        assert found[id(board)][iteration].score == want, (board.fen(), iteration)


# ---------------------------------------------------------------------- the spec suffix
@pytest.mark.parametrize(("text", "search", "limit"), [
    ("expert@search=prob", "prob", None),
    ("expert@search=prob@nodes=500", "prob", Limit(nodes=500)),
    ("material@depth=3@search=prob-uniform", "prob-uniform", Limit(depth=3)),
    ("random:3@search=depth", "depth", None),
    ("expert", "depth", None),
    ("organism:dir@search=prob/o.json@search=prob", "prob", None),
])
def test_search_suffix_parses_and_round_trips(text: str, search: str, limit: Limit | None) -> None:
    s = PLAYERS.parse(text)
    assert (s.search, s.limit) == (search, limit)
    assert PLAYERS.parse(str(s)) == s
    if s.kind == "organism":
        assert s.arg == "dir@search=prob/o.json"
    # Material has a native form: the default search and the probability-limited one run it in the compiled core.
    assert type(make_engine(Material(), s.search)) is (ProbCoreEngine if search != "depth" else CoreEngine)


@pytest.mark.parametrize(("text", "message"), [
    ("expert@search=alphabeta", "unknown search 'alphabeta' .expected @search=depth | prob | prob-uniform"),
    ("expert@search=", "unknown search ''"),
    ("expert@search=prob@search=depth", "@search given twice"),
    ("uci:/usr/games/stockfish@search=prob", "external engine"),
])
def test_bad_search_suffix_says_why(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        PLAYERS.parse(text)


def test_help_and_names_show_the_searches() -> None:
    text = PLAYERS.help()
    assert "@search=NAME" in text and all(name in text for name in SEARCHES)
    assert default_name(PLAYERS.parse("expert@search=prob@nodes=500")) == "expert nodes=500 search=prob"
    assert default_name(PLAYERS.parse("expert@search=depth")) == "expert"
    player = make_player("material@search=prob-uniform@depth=2", make_evaluator)
    assert isinstance(player, EnginePlayer) and isinstance(player.engine, ProbCoreEngine)
    assert player.engine.probabilities == "uniform"
    report = player.play(chess.Board(), Limit(depth=9))
    assert report.depth == 2 and report.move in chess.Board().legal_moves


def test_uci_reports_iterations_as_depth_and_switches_search() -> None:
    out = io.StringIO()
    front = UciFrontEnd(make_evaluator, "material@search=prob@depth=4", out=out)
    assert isinstance(front.engine, ProbCoreEngine)
    front.run(["position startpos", "go depth 9"])
    lines = out.getvalue().splitlines()
    depths = [int(line.split()[2]) for line in lines if line.startswith("info depth")]
    assert depths == [1, 2, 3, 4] and any(line.startswith("bestmove ") for line in lines)
    front.handle("setoption name Eval value expert")
    assert type(front.engine) is CoreEngine  # the expert has a native form
    front.handle("setoption name Eval value expert@search=prob-uniform")
    assert isinstance(front.engine, ProbCoreEngine) and front.engine.probabilities == "uniform"
    front.handle("setoption name Eval value expert@search=prob-python")
    assert type(front.engine) is ProbEngine


def test_suite_with_a_probability_limited_player() -> None:
    rows = run_suite(Path(__file__).parent.parent / "benchmarks" / "data" / "wac.epd", "expert@search=prob", 0.2,
                     make_evaluator, limit=2)
    assert [r.id for r in rows] == ["WAC.001", "WAC.002"] and all(r.played and not r.error for r in rows)
    assert all(r.depth >= 1 and r.nodes > 0 for r in rows)  # a move from a search, not a fallback


def test_cli_match_with_a_probability_limited_player(tmp_path: Path) -> None:
    pgn = tmp_path / "m.pgn"
    run = run_mimic("match", "material@search=prob", "material", "--games", "2", "--nodes", "300", "--max-plies", "40",
                    "--pgn", str(pgn))
    assert run.returncode == 0, run.stderr
    assert pgn.read_text().count("[White ") == 2
    assert "material@search=prob" in pgn.read_text()
