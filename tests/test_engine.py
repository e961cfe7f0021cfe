"""The alpha-beta engine: mates, legality, draws, limits, stop, resets."""

from __future__ import annotations

import random
import threading
import time

import chess
import pytest

from organisms import Material
from search import MATE, Engine, Limit
from search.base import SearchResult
from search.root import CHECK_EVERY

from .conftest import TickingClock

# Each position has exactly one mating move at the given distance (checked with Stockfish 15.1 at
# depth 20: the second-best move is not a mate that short).
MATES = [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8", 1),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "d5f6", 2),
    ("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", "g2g1", 2),
    ("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1", "d6d1", 3),  # Bratko-Kopec 1
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", "f8c5", 3),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", "f6a6", 3),
]


class WhiteView:
    """A fixed verdict: ``white`` centipawns from White's view in every position."""

    def __init__(self, white: int) -> None:
        self.white = white

    def evaluate(self, board: chess.Board) -> int:
        return self.white if board.turn == chess.WHITE else -self.white


@pytest.mark.parametrize(("fen", "move", "mate"), MATES)
def test_mates_are_found_with_their_distance(fen: str, move: str, mate: int) -> None:
    board = chess.Board(fen)
    result = Engine(Material()).search(board, Limit(depth=2 * mate + 1))
    assert result.move == chess.Move.from_uci(move)
    assert result.mate == mate
    assert result.score == MATE - (2 * mate - 1)
    assert board.fen() == fen  # the caller's board is left alone
    # The principal variation is legal and ends in checkmate.
    b = board.copy()
    for m in result.pv:
        assert m in b.legal_moves
        b.push(m)
    assert b.is_checkmate() and len(result.pv) == 2 * mate - 1


def test_being_mated_is_scored_negative_with_distance() -> None:
    # Black's only move is Ka7, and then Ra1 mates: Black is mated in one.
    board = chess.Board("k7/2K5/8/8/8/8/8/1R6 b - - 0 1")
    result = Engine(Material()).search(board, Limit(depth=4))
    assert result.move == chess.Move.from_uci("a8a7")
    assert result.mate == -1 and result.score == -(MATE - 2)


def test_checkmated_and_stalemated_roots() -> None:
    mated = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    mated.push_uci("d1d8")
    r = Engine(Material()).search(mated, Limit(depth=3))
    assert r.move is None and r.score == -MATE
    stalemated = chess.Board("k7/8/1Q6/8/8/8/8/7K b - - 0 1")
    r = Engine(Material()).search(stalemated, Limit(depth=3))
    assert r.move is None and r.score == 0


def test_winning_side_avoids_stalemate() -> None:
    # White to move: Qf7 stalemates; Qe8# and Qf8# mate. A queen up, the engine must not stalemate.
    board = chess.Board("7k/4Q3/6K1/8/8/8/8/8 w - - 0 1")
    r = Engine(Material()).search(board, Limit(depth=3))
    assert r.move is not None
    board.push(r.move)
    assert board.is_checkmate()


def test_stalemate_is_scored_as_a_draw_in_the_tree() -> None:
    # White is a queen down by our verdict; its only hope is the stalemate trick, and the engine's
    # score for the stalemating line must be 0 rather than the -900 of the position.
    board = chess.Board("7k/4Q3/6K1/8/8/8/8/8 w - - 0 1")
    engine = Engine(WhiteView(-900))
    r = engine.search(board, Limit(depth=2))
    after = board.copy()
    assert r.move is not None
    after.push(r.move)
    # With every non-terminal position worth -900 to White, stalemate (0) or mate are the best.
    assert after.is_stalemate() or after.is_checkmate()


def test_repetition_is_a_draw_sought_when_losing_and_avoided_when_winning() -> None:
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"]:
        board.push_uci(uci)
    back = chess.Move.from_uci("f3g1")  # returns to the position after 1.Nf3 Nf6 2.Ng1
    losing = Engine(WhiteView(-500)).search(board, Limit(depth=3))
    assert losing.move == back and losing.score == 0
    winning = Engine(WhiteView(500)).search(board, Limit(depth=3))
    assert winning.move != back and winning.score == 500


def test_fifty_move_rule_and_insufficient_material() -> None:
    # Half-move clock 99: any quiet move draws. White, losing by the verdict, takes the draw.
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K2R w - - 99 80")
    r = Engine(WhiteView(-300)).search(board, Limit(depth=2))
    assert r.score == 0
    assert r.move is not None and not board.is_zeroing(r.move)
    # ...but a mate delivered on the 100th half-move is still a mate.
    mate = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 99 80")
    assert Engine(Material()).search(mate, Limit(depth=3)).mate == 1
    # King and bishop against king: every line is a dead draw.
    r = Engine(WhiteView(700)).search(chess.Board("8/8/8/4k3/8/8/8/4K2B w - - 0 1"), Limit(depth=4))
    assert r.score == 0


def _random_playout_positions(seed: int, games: int, max_plies: int) -> list[chess.Board]:
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        board = chess.Board()
        for _ in range(max_plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            positions.append(board.copy())
            board.push(rng.choice(moves))
    return positions


def test_never_returns_an_illegal_move_from_random_playouts() -> None:
    engine = Engine(Material(), hash_mb=1)
    # 2 playouts (6 until this test took 11 s, 3 until it took 6 s): one table shared by all, so later searches meet
    # stale entries of earlier positions; the second playout's 120 positions all search a table the first filled.
    positions = _random_playout_positions(seed=7, games=2, max_plies=120)
    assert len(positions) >= 200  # 240: half searched to depth 2, half to 150 nodes
    for i, board in enumerate(positions):
        limit = Limit(nodes=150) if i % 2 else Limit(depth=2)
        r = engine.search(board, limit)
        assert r.move in board.legal_moves, board.fen()
        b = board.copy()
        for m in r.pv:  # the whole principal variation is playable
            assert m in b.legal_moves, (board.fen(), r.pv)
            b.push(m)


def test_self_play_games_only_legal_moves() -> None:
    engine = Engine(Material(), hash_mb=1)
    # Seeds 0 and 2 end in a threefold repetition within 20 plies; seed 1 plays to the cap (100 plies; 160 until
    # this test took 4.5 s).
    for seed in range(3):
        rng = random.Random(seed)
        board = chess.Board()
        for _ in range(4):  # a random opening for variety
            board.push(rng.choice(list(board.legal_moves)))
        engine.new_game()
        while not board.is_game_over(claim_draw=True) and board.ply() < 100:
            r = engine.search(board, Limit(nodes=300))
            assert r.move in board.legal_moves
            board.push(r.move)


def test_fixed_depth_search_is_reproducible_and_new_game_resets() -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    fresh = Engine(Material()).search(board, Limit(depth=5))
    engine = Engine(Material())
    engine.search(chess.Board("8/8/8/4k3/8/8/3PP3/4K3 w - - 0 1"), Limit(depth=6))
    engine.new_game()
    again = engine.search(board, Limit(depth=5))
    assert (again.move, again.score, again.nodes) == (fresh.move, fresh.score, fresh.nodes)
    assert again.pv == fresh.pv


def test_node_limit_is_exact_after_the_first_iteration() -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    for nodes in (2000, 5000):
        r = Engine(Material()).search(board, Limit(nodes=nodes))
        # Depth 1 takes far fewer nodes, so the limit stops a later iteration at exactly that node.
        assert r.depth >= 2 and r.nodes == nodes and r.move in board.legal_moves
    # The first iteration always completes (docs/concepts.md, "The engine"): one node is not enough for it.
    r = Engine(Material()).search(board, Limit(nodes=1))
    assert r.depth == 1 and r.nodes > 1 and r.move in board.legal_moves


def test_movetime_and_clock_are_respected(ticking_clock: TickingClock) -> None:
    # On a clock that advances 15 ms per read (not wall time, so the machine's load cannot matter), the
    # search spends its budget and stops: movetime 0.3 s is a hard budget of 0.27 s (0.3 less the 0.03 s
    # overhead, search.timeman) with no soft one, so it runs until 0.27 and stops at the next read or two.
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    engine = Engine(Material())
    r = engine.search(board, Limit(movetime=0.3))
    assert 0.27 <= r.time <= 0.27 + 2 * ticking_clock.step and r.move in board.legal_moves
    # A 1 s clock, no increment: soft budget 0.97 s / 30 moves = 0.032 s, hard 4 x that = 0.129 s.
    r = engine.search(board, Limit(wtime=1.0, btime=1.0, winc=0.0, binc=0.0))
    assert r.time <= 0.129 + 2 * ticking_clock.step and r.move in board.legal_moves


def test_a_time_budget_cuts_a_long_first_iteration_once_a_move_is_scored(ticking_clock: TickingClock) -> None:
    # Black to move in a tournament game where the Giraffe-style net spent 2.4 s on depth 1 at 0.1 s a move and
    # forfeited: its quiescence searches run 15 plies deep. With material alone depth 1 takes thousands of nodes.
    board = chess.Board("1r3rk1/3n2p1/1qbNN3/p3p1Qp/3P2n1/3B4/PP3PPP/2R1R1K1 b - - 1 16")
    full = Engine(Material()).search(board, Limit(depth=1))  # no time limit: the clock does not matter
    reported: list[SearchResult] = []
    r = Engine(Material()).search(board, Limit(movetime=0.1), on_iteration=reported.append)
    # movetime 0.1 s is a hard budget of 0.07 s (less the 0.03 s overhead, search.timeman). The clock is read at
    # the start (0.015, so the deadline is 0.085) and then once every CHECK_EVERY nodes (0.030, 0.045, 0.060,
    # 0.075, 0.090): the fifth check is the first past the deadline, and the first root move is scored by then.
    assert r.nodes == 5 * CHECK_EVERY < full.nodes
    assert r.move in board.legal_moves and (r.depth, r.bound) == (1, "lower") and reported == [r]
    # The move played is the best one the cut iteration scored, with its exact depth-1 score: a lower bound of the
    # iteration's, the maximum over all root moves.
    alone = Engine(Material()).search(board, Limit(depth=1), root_moves=[r.move])
    assert r.score == alone.score <= full.score and r.pv == [r.move]


def test_stop_from_another_thread() -> None:
    board = chess.Board()
    engine = Engine(Material())
    out = {}
    stop = threading.Event()
    t = threading.Thread(target=lambda: out.setdefault("r", engine.search(board, Limit(infinite=True), stop=stop)))
    t.start()
    time.sleep(0.3)
    assert t.is_alive()  # an infinite search does not end by itself
    stop.set()
    t.join(timeout=2)
    assert not t.is_alive()
    assert out["r"].move in board.legal_moves and out["r"].depth >= 2


def test_searchmoves_restrict_the_root() -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    only = [chess.Move.from_uci("g2g3"), chess.Move.from_uci("h2h3")]
    r = Engine(Material()).search(board, Limit(depth=3), root_moves=only)
    assert r.move in only


def test_quiescence_sees_the_recapture() -> None:
    # Qxd5?? loses the queen to ...Rxd5 (the pawn d5 is defended by a rook): a 1-ply search with a
    # quiescence search must not grab it.
    board = chess.Board("3r2k1/5ppp/8/3p4/8/8/5PPP/3Q2K1 w - - 0 1")
    r = Engine(Material()).search(board, Limit(depth=1))
    assert r.move != chess.Move.from_uci("d1d5")


# White pawn e5, Black pawn d5 just arrived from d7: exd6 e.p. is legal; without the e5 pawn no pawn can take on d6.
EP_LEGAL = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
EP_DEAD = "4k3/8/8/3p4/8/8/8/4K3 w - d6 0 2"


def test_one_position_key_with_the_legal_en_passant_square_only() -> None:
    import search.tt
    from search.conventions import position_key

    assert search.tt.position_key is position_key
    # An en-passant square no pawn can take on is no square at all (python-chess's transposition key agrees).
    assert position_key(chess.Board(EP_DEAD)) == position_key(chess.Board(EP_DEAD.replace(" d6 ", " - ")))
    assert position_key(chess.Board(EP_LEGAL)) != position_key(chess.Board(EP_LEGAL.replace(" d6 ", " - ")))


def test_the_comparator_caches_by_the_one_key() -> None:
    from pathlib import Path

    from organisms.comparator import ComparatorNet

    net = ComparatorNet.load(Path(__file__).parent / "data" / "material_cmp.npz")
    dead, dead_clean = chess.Board(EP_DEAD), chess.Board(EP_DEAD.replace(" d6 ", " - "))
    live, live_clean = chess.Board(EP_LEGAL), chess.Board(EP_LEGAL.replace(" d6 ", " - "))
    v = net.evaluate(dead)
    assert len(net._cache) == 1
    # The same position (its dead en-passant square aside) is a cache hit, with the same score...
    assert net.evaluate(dead_clean) == v and len(net._cache) == 1
    # ... a legal en-passant square makes another position (another entry), whose bits are those of the one without.
    assert net.evaluate(live) == net.evaluate(live_clean) and len(net._cache) == 3
    assert net.score(dead, live) == -net.score(live, dead)


def test_the_table_keeps_a_deeper_entry_of_this_search_and_says_so() -> None:
    from search.tt import EXACT, LOWER, TranspositionTable

    tt = TranspositionTable(0)
    a, b = 5, 5 + len(tt)  # two keys of one slot
    assert tt.store(a, 4, EXACT, 10, chess.Move.from_uci("e2e4"))
    assert not tt.store(b, 3, LOWER, 20, None)  # shallower, same search: the slot is kept
    assert tt.store(a, 2, LOWER, 30, None)  # the same key is always replaced, its move kept
    entry = tt.probe(a)
    assert entry is not None and entry[1:5] == (2, LOWER, 30, chess.Move.from_uci("e2e4"))
    tt.age += 1
    assert tt.store(b, 1, LOWER, 20, None) and tt.probe(a) is None  # an older search's entry gives way
