"""The engine against a plain minimax written here, its pruning switches, mates, and PeSTO's tables.

What the engine's depth-``d`` score means (``search/engine.py``), and what :func:`reference` below
computes with nothing but python-chess:

* the root searches every legal move to depth ``d - 1``;
* an inner node is a draw (0) on a repetition (one earlier occurrence), on the 50-move rule (unless it is
  checkmate) or on insufficient material; a side in check gets one more ply (check extension); at depth
  0 the quiescence search takes over; no legal move is mate (``-(MATE - ply)``) or stalemate (0);
* quiescence: in check (within its first 6 plies) every evasion is searched and there is no stand-pat;
  otherwise the static evaluation stands pat and captures (all promotions included) plus non-capturing
  queen promotions are tried.

The reference uses alpha-beta only to be affordable: with the full window at the root, alpha-beta
returns exactly the minimax value (Knuth & Moore 1975), whatever the move order;
``test_reference_is_plain_minimax`` checks that on positions small enough for the unpruned tree.
The engine is compared with its switches ``null_move``, ``lmr``, ``aspiration``, ``delta_pruning`` and
``tt_cutoffs`` off, once without a transposition table (``use_tt=False``) and once with it (then the TT
only orders moves). Mate-distance pruning and principal-variation search stay on: they never change the
value.

Positions: 30 random playouts (``mentor.samplers.random_playouts``, seed 10) and the 24 Bratko-Kopec
positions. Cost (the reference is the slow part): depth 1 on all 54, depth 2 on every other one (and on those
searched deeper), depth 3 on every sixth (9), depth 4 on the 3 with the fewest legal moves; evaluator
``organisms.Material`` (cheap), plus the expert at depths 1-2 on 7 positions, so that a non-trivial evaluation goes
through the engine's cache and clamp.
(Depth 3 on every third position and depth 4 on a fourth one, with 17 legal moves, cost as much again as all
the rest.)
The engine searches each position once, to the deepest of its depths, and every iteration of that search is
compared (iteration ``k`` of a search is what a search to depth ``k`` returns; see ``_iterations``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import chess
import pytest

from mentor.samplers import random_playouts
from organisms import Expert, Material
from organisms.expert import EXPERT_WEIGHTS
from search import MATE, Engine, Limit
from search.base import MATE_BOUND, Evaluator, SearchResult
from search.formats.epd import read_epd

ROOT = Path(__file__).resolve().parent.parent
INF = MATE + 1
QS_EVASION_PLIES = 6
NO_PRUNING = {"null_move": False, "lmr": False, "aspiration": False, "delta_pruning": False,
              "tt_cutoffs": False}


# ---------------------------------------------------------------------- the reference
def _victim_first(board: chess.Board) -> Callable[[chess.Move], int]:
    """Captures of bigger pieces first: only speeds alpha-beta up, never changes its value."""
    return lambda m: -8 * (board.piece_type_at(m.to_square) or (1 if board.is_en_passant(m) else 0))


def _quiesce(board: chess.Board, ev: Evaluator, ply: int, qply: int, alpha: int, beta: int,
             window: bool) -> int:
    if qply < QS_EVASION_PLIES and board.is_check():
        moves = list(board.legal_moves)
        if not moves:
            return -MATE + ply
        best = -INF
    else:
        stand = ev.evaluate(board)
        best = stand
        if window:
            if stand >= beta:
                return beta
            alpha = max(alpha, stand)
        moves = sorted(board.generate_legal_captures(), key=_victim_first(board))
        # Non-capturing queen promotions: pushes of a pawn on its seventh rank to the empty last rank.
        seventh = board.pawns & board.occupied_co[board.turn] & (chess.BB_RANK_7 if board.turn else chess.BB_RANK_2)
        if seventh:
            moves += [m for m in board.generate_legal_moves(seventh, chess.BB_BACKRANKS & ~board.occupied)
                      if m.promotion == chess.QUEEN]
    for m in moves:
        board.push(m)
        v = -_quiesce(board, ev, ply + 1, qply + 1, -beta, -alpha, window)
        board.pop()
        best = max(best, v)
        if window:
            if v >= beta:
                return beta
            alpha = max(alpha, v)
    return alpha if window else best


def _node(board: chess.Board, ev: Evaluator, depth: int, ply: int, alpha: int, beta: int, window: bool) -> int:
    if (board.is_repetition(2) or (board.halfmove_clock >= 100 and not board.is_checkmate())
            or board.is_insufficient_material()):
        return 0
    in_check = board.is_check()
    if in_check:
        depth += 1
    if depth <= 0:
        return _quiesce(board, ev, ply, 0, alpha, beta, window)
    moves = sorted(board.legal_moves, key=_victim_first(board))
    if not moves:
        return -MATE + ply if in_check else 0
    best = -INF
    for m in moves:
        board.push(m)
        v = -_node(board, ev, depth - 1, ply + 1, -beta, -alpha, window)
        board.pop()
        best = max(best, v)
        if window:
            if v >= beta:
                return beta
            alpha = max(alpha, v)
    return alpha if window else best


class _Remembered:
    """``ev`` with each position's value remembered: the evaluators here read only where the pieces stand and
    whose turn it is, so a position reached again (a transposition) has the same value."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self.seen: dict[tuple[int, ...], int] = {}

    def evaluate(self, board: chess.Board) -> int:
        key = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
               board.occupied_co[chess.WHITE], board.turn)
        if key not in self.seen:
            self.seen[key] = self.ev.evaluate(board)
        return self.seen[key]


def reference(board: chess.Board, ev: Evaluator, depth: int, window: bool = True) -> int:
    """The minimax value of ``board`` at ``depth`` (centipawns, side to move), as defined above."""
    b = board.copy()
    alpha = -INF
    # Captures first at the root too: a strong first move narrows every later move's window (a third less time
    # than in python-chess's order); the value is the same in any order (see the module's docstring).
    for m in sorted(b.legal_moves, key=_victim_first(b)):
        b.push(m)
        alpha = max(alpha, -_node(b, ev, depth - 1, 1, -INF, -alpha if window else INF, window))
        b.pop()
    return alpha


# ---------------------------------------------------------------------- positions
@cache
def positions() -> list[chess.Board]:
    randoms = [s.board for s in random_playouts(30, seed=10)]
    bk = [r.board for r in read_epd(ROOT / "benchmarks" / "data" / "bk.epd")]
    assert len(randoms) == 30 and len(bk) == 24
    return randoms + bk


@cache
def _cases(depth: int) -> tuple[int, ...]:
    """The indices of the positions compared at ``depth`` (computed once a depth: ``_depths`` asks for each)."""
    n = len(positions())
    if depth == 1:
        return tuple(range(n))
    if depth == 2:  # every other one, and those searched deeper (their second iteration comes free)
        return tuple(sorted(set(range(0, n, 2)) | set(_cases(3)) | set(_cases(4))))
    if depth == 3:
        return tuple(range(0, n, 6))
    return tuple(sorted(range(n), key=lambda i: (positions()[i].legal_moves.count(), i))[:3])


def _depths(i: int, deepest: int = 4) -> list[int]:
    """The depths (at most ``deepest``) at which position ``i`` is compared: the ``d`` with ``i`` in ``_cases(d)``."""
    return [d for d in range(1, deepest + 1) if i in _cases(d)]


def _iterations(engine: Engine, board: chess.Board, depth: int) -> dict[int, SearchResult]:
    """Depth -> the result of each iteration of one search of ``board`` to ``depth``.

    A search to depth ``d`` runs iterations 1, 2, ... ``d`` (iterative deepening), each starting from the state
    the previous one left; so iteration ``k`` here is exactly what a fresh engine's search to depth ``k``
    returns, and one search per position gives every depth's score."""
    seen: dict[int, SearchResult] = {}
    final = engine.search(board, Limit(depth=depth), on_iteration=lambda r: seen.setdefault(r.depth, r)
                          if r.bound == "exact" else None)
    assert sorted(seen) == list(range(1, depth + 1)) and final.depth == depth and final.score == seen[depth].score
    return seen


def test_unpruned_engine_equals_minimax() -> None:
    # Every position at each of its depths (_cases: 1 and 2 for all, 3 for every sixth, 4 for three).
    ev = Material()
    mismatches = []
    for i, board in enumerate(positions()):
        depths = _depths(i)
        bare = _iterations(Engine(ev, use_tt=False, **NO_PRUNING), board, depths[-1])
        with_tt = _iterations(Engine(ev, hash_mb=1, **NO_PRUNING), board, depths[-1])
        for depth in depths:
            want = reference(board, ev, depth)
            if not (bare[depth].score == with_tt[depth].score == want):
                mismatches.append((board.fen(), depth, want, bare[depth].score, with_tt[depth].score))
    assert not mismatches


def test_unpruned_engine_equals_minimax_with_the_expert() -> None:
    ev = Expert()
    remembered = _Remembered(ev)  # the reference's many evaluations are its cost
    # Random playouts 0, 1, 3 and Bratko-Kopec 1-4. Playout 2 (42 legal moves, a long capture sequence) is left
    # out: its depth-2 reference evaluates 60,000 distinct positions with the expert, three quarters of the
    # test's time; the Material comparison above still goes through it at depths 1 and 2.
    for board in [positions()[i] for i in (0, 1, 3, 30, 31, 32, 33)]:
        bare = _iterations(Engine(ev, use_tt=False, **NO_PRUNING), board, 2)
        with_tt = _iterations(Engine(ev, hash_mb=1, **NO_PRUNING), board, 2)
        for depth in (1, 2):
            want = reference(board, remembered, depth)
            assert bare[depth].score == want, (board.fen(), depth)
            assert with_tt[depth].score == want, (board.fen(), depth)


def test_reference_is_plain_minimax() -> None:
    # Without any window the reference is the textbook max-of-negated-children; with it, the same value.
    # Full-width quiescence explodes on crowded boards, so this runs on small hand-made positions:
    # a pawn capture, a pawn guarded by a rook (Qxd5?? Rxd5), a back-rank mate, queen against rook.
    ev = Material()
    cases = [("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", 3), ("3r2k1/5ppp/8/3p4/8/8/5PPP/3Q2K1 w - - 0 1", 3),
             ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 3), ("8/8/3k4/3r4/8/3QK3/8/8 w - - 0 1", 2)]
    for fen, deepest in cases:
        board = chess.Board(fen)
        for depth in range(1, deepest + 1):
            want = reference(board, ev, depth, window=False)
            assert reference(board, ev, depth) == want, (fen, depth)
            assert Engine(ev, use_tt=False, **NO_PRUNING).search(board, Limit(depth=depth)).score == want


def test_switches_default_on_and_change_the_search() -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    default = Engine(Material())
    assert (default.null_move, default.lmr, default.aspiration, default.delta_pruning, default.tt_cutoffs) == (
        True, True, True, True, True)
    # Depth 4 (4,194 nodes against 9,145 when written): depth 5 showed the same (9,135 against 63,737) in 5x the time.
    pruned = default.search(board, Limit(depth=4)).nodes
    full = Engine(Material(), **NO_PRUNING).search(board, Limit(depth=4)).nodes
    assert pruned < full  # the pruning really prunes
    no_tt = Engine(Material(), use_tt=False)
    no_tt.set_hash(64)  # stays a table that stores nothing
    move = no_tt.search(board, Limit(depth=3)).move
    assert len(no_tt.tt) == 1 and move is not None and move in board.legal_moves


# ---------------------------------------------------------------------- mates, with all pruning on
# Each mate: FEN, the mating first move, mate in N moves. Sources: Win at Chess (WAC, benchmarks/data/wac.epd)
# and Bratko-Kopec (BK.01); the first, third and sixth are composed here. Each has exactly one mating
# move at that distance and no shorter mate (checked with Stockfish 15.1 at depth 20).
MATES = [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8", 1),  # back-rank mate
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "d5f6", 2),  # WAC.001
    ("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", "g2g1", 2),  # WAC.003
    ("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1", "d6d1", 3),  # BK.01
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", "f8c5", 3),  # WAC.004
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", "f6a6", 3),  # WAC.005
]


@pytest.mark.parametrize(("fen", "move", "mate"), MATES)
def test_pruned_engine_finds_every_mate(fen: str, move: str, mate: int) -> None:
    board = chess.Board(fen)
    found = _iterations(Engine(Material()), board, 2 * mate + 1)  # each depth as a fresh search to it
    for depth in range(1, 2 * mate - 1):  # shallower: a mate may be seen (check extensions), never a shorter one
        r = found[depth]
        assert r.mate is None or r.mate == mate, (depth, r.score)
    for depth in range(2 * mate - 1, 2 * mate + 2):  # at the mate's depth and two plies deeper
        r = found[depth]
        assert r.move == chess.Move.from_uci(move) and r.mate == mate, (depth, r.score)
        b = board.copy()
        for m in r.pv:
            b.push(m)
        assert b.is_checkmate() and len(r.pv) == 2 * mate - 1


def _forced_mate(board: chess.Board, plies: int) -> bool:
    """True when the side to move can force checkmate within ``plies`` plies (odd), by brute force."""
    for m in list(board.legal_moves):
        board.push(m)
        if board.is_checkmate():
            board.pop()
            return True
        ok = plies >= 3 and not board.is_game_over(claim_draw=False)
        if ok:
            for reply in list(board.legal_moves):
                board.push(reply)
                ok = _forced_mate(board, plies - 2)
                board.pop()
                if not ok:
                    break
        board.pop()
        if ok:
            return True
    return False


def test_pruned_engine_never_claims_a_mate_that_is_not_there() -> None:
    # Every mate score at depths 1-4 (as in the minimax test) on the 54 positions is proved by brute
    # force: a claimed mate in k plies for the side to move is a forced mate within k plies; a claimed
    # mate against it means every move allows a forced mate within k - 1 plies.
    ev = Material()
    claims = 0
    for i, board in enumerate(positions()):
        depths = _depths(i)
        found = _iterations(Engine(ev), board, depths[-1])  # each depth as a fresh search to it
        for depth in depths:
            r = found[depth]
            if abs(r.score) < MATE_BOUND:
                continue
            claims += 1
            plies = MATE - abs(r.score)
            b = board.copy()
            if r.score > 0:
                assert _forced_mate(b, plies), (board.fen(), depth, r.score)
            else:
                for m in list(b.legal_moves):
                    b.push(m)
                    assert b.is_checkmate() or _forced_mate(b, plies - 1), (board.fen(), m, depth, r.score)
                    b.pop()
    assert claims >= 1  # the random positions do contain mates (see the count when this fails)


# ---------------------------------------------------------------------- PeSTO the right way up
def _pesto_only() -> Expert:
    """The expert with every positional weight 0: its score is PeSTO's tapered material + tables only."""
    return Expert({name: 0.0 for name in EXPERT_WEIGHTS})


# Hand computations from the tables as published on the Chess Programming Wiki (a8 is the first entry of
# each printed table, a1 the 57th, so a white piece on e1 reads row 8, column e; a black piece reads the
# square mirrored, i.e. a black piece on e8 also reads row 8, column e, and counts negatively).
# Score = (mg * phase + eg * (24 - phase)) / 24 from White's view, phase = N,B 1, R 2, Q 4; then side to
# move's view, rounded half up.
PESTO_CASES = [
    # 1. White Ke1, Pe2; Black Kd5; phase 0 (endgame tables only).
    #    Pe2: EG value 94 + EG_PAWN row 7 ("13, 8, 8, 10, 13, 0, 2, -7") column e = 13 -> 107.
    #    Ke1: EG_KING row 8 ("-53, -34, -21, -11, -28, -14, -24, -43") column e = -28.
    #    Kd5 (black; mirrored square d4): EG_KING row 5 ("-18, -4, 21, 24, 27, 23, 9, -11") column d = 24 -> -24.
    #    107 - 28 - 24 = 55 for White to move. (Upside down, Pe2 would read 147 and Kd5 27.)
    ("8/8/8/3k4/8/8/4P3/4K3 w - - 0 1", 55),
    # 2. White Ke1, Qd1; Black Ke8; phase 4.
    #    Qd1: MG 1025 + MG_QUEEN row 8 ("-1, -18, -9, 10, ...") column d = 10 -> 1035;
    #         EG 936 + EG_QUEEN row 8 ("-33, -28, -22, -43, ...") column d = -43 -> 893.
    #    Ke1 (mg 8, eg -28) and Ke8 (black, mirrored e1: -8, +28) cancel.
    #    (1035 * 4 + 893 * 20) / 24 = 22000 / 24 = 916.67; Black to move: -916.67 -> -917.
    ("4k3/8/8/8/8/8/8/3QK3 b - - 0 1", -917),
    # 3. White Ke1; Black Ke8, Ra8; phase 2; Black to move.
    #    Ra8 (black; mirrored a1): MG 477 + MG_ROOK row 8 ("-19, -13, 1, 17, ...") column a = -19 -> -458;
    #         EG 512 + EG_ROOK row 8 ("-9, 2, 3, -1, ...") column a = -9 -> -503.
    #    Kings cancel. White's view (-458 * 2 - 503 * 22) / 24 = -11982 / 24 = -499.25; Black to move 499.25
    #    -> 499. (Read as a white rook's square, a8 would give MG_ROOK row 1 = 32 and EG_ROOK row 1 = 13.)
    ("r3k3/8/8/8/8/8/8/4K3 b - - 0 1", 499),
]


@pytest.mark.parametrize(("fen", "score"), PESTO_CASES)
def test_pesto_tables_read_the_right_way_up(fen: str, score: int) -> None:
    assert _pesto_only().evaluate(chess.Board(fen)) == score
    # The same position with colours swapped (mirrored, other side to move) is the same score.
    assert _pesto_only().evaluate(chess.Board(fen).mirror()) == score
