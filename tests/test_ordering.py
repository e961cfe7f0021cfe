"""The search package's shared pieces: the one move scorer (search.ordering) and that the depth-limited,
probability-limited and comparison searches all order their moves with it.

Expected orders are derived by hand from the ranks in search.ordering's docstring (TT move, captures by MVV-LVA
with en passant as a pawn taken, queen promotion, killers, history, under-promotions); where several moves share a
score the sort is stable, so they keep python-chess's generation order (printed in the comments).
"""

from __future__ import annotations

import chess
import pytest

import search.compare
import search.engine
import search.ordering
import search.prob
import search.root
from evolve.players import make_evaluator
from search import Engine, Limit, ProbEngine
from search.compare import CompareEngine, EvalComparator
from search.ordering import (
    CAPTURE,
    KILLER_1,
    KILLER_2,
    NO_HISTORY,
    QS_QUEEN_PROMOTION,
    QUEEN_PROMOTION,
    TT_MOVE,
    UNDER_PROMOTION,
    capture_order,
    evasion_order,
    mvv_lva,
    order_moves,
    reward,
)

# White: Ke1, Rh1, pawns b7 and e5; Black: Kg6, Nh4, pawn d5 that has just come from d7 (en passant on d6).
# Generation order: h1h4 h1h3 h1h2 h1g1 h1f1 e1f2 e1e2 e1d2 e1f1 e1d1 b7b8q b7b8r b7b8b b7b8n e5e6 e5d6.
TREE = "8/1P6/6k1/3pP3/7n/8/8/4K2R w - d6 0 1"


def _uci(scored: list[tuple[int, chess.Move]]) -> list[str]:
    return [m.uci() for _, m in scored]


def test_the_tree_order_by_hand() -> None:
    board = chess.Board(TREE)
    history = list(NO_HISTORY)
    history[chess.E1 * 64 + chess.E2] = 100
    killers = [chess.Move.from_uci("e1d1"), chess.Move.from_uci("e1f1")]
    scored = order_moves(board, board.generate_legal_moves(), chess.Move.from_uci("h1h2"), killers, history)
    # h1h2 is the TT move (a quiet move, first anyway); Rxh4 takes a knight (2 * 16 - 4 = 28) and exd6 e.p. a pawn
    # (1 * 16 - 1 = 15): the winning capture first, both before b8=Q; then the killers (newest first), e1e2 by its
    # history 100, the quiet moves of history 0 in generation order, and the three under-promotions last.
    assert _uci(scored) == ["h1h2", "h1h4", "e5d6", "b7b8q", "e1d1", "e1f1", "e1e2",
                            "h1h3", "h1g1", "h1f1", "e1f2", "e1d2", "e5e6", "b7b8r", "b7b8b", "b7b8n"]
    scores = {m.uci(): s for s, m in scored}
    assert scores["h1h2"] == TT_MOVE
    assert scores["h1h4"] == CAPTURE + mvv_lva(chess.KNIGHT, chess.ROOK) == CAPTURE + 28
    # en passant is scored as the capture it is: a pawn taking a pawn.
    assert scores["e5d6"] == CAPTURE + mvv_lva(chess.PAWN, chess.PAWN) == CAPTURE + 15
    assert scores["b7b8q"] == QUEEN_PROMOTION + chess.QUEEN
    assert (scores["e1d1"], scores["e1f1"], scores["e1e2"]) == (KILLER_1, KILLER_2, 100)
    assert scores["b7b8r"] == scores["b7b8b"] == scores["b7b8n"] == UNDER_PROMOTION


def test_a_promotion_is_never_a_killer_and_a_capture_never_one_either() -> None:
    board = chess.Board(TREE)
    # Killers are looked at after captures and promotions: a capture or an under-promotion that is also a killer
    # keeps its own rank (the under-promotion stays last, Rxh4 stays the best capture).
    killers = [chess.Move.from_uci("b7b8n"), chess.Move.from_uci("h1h4")]
    order = _uci(order_moves(board, board.generate_legal_moves(), None, killers))
    assert order[:3] == ["h1h4", "e5d6", "b7b8q"]
    assert order[-3:] == ["b7b8r", "b7b8b", "b7b8n"]


def test_the_root_order_ranks_every_promotion_by_piece_and_knows_no_killer() -> None:
    board = chess.Board(TREE)
    # At the root: the same captures, then b8=Q, b8=R, b8=B, b8=N (by piece), then every quiet move at 0, in
    # generation order (no killers, no history).
    order = _uci(order_moves(board, board.generate_legal_moves(), root=True))
    assert order == ["h1h4", "e5d6", "b7b8q", "b7b8r", "b7b8b", "b7b8n", "h1h3", "h1h2", "h1g1", "h1f1",
                     "e1f2", "e1e2", "e1d2", "e1f1", "e1d1", "e5e6"]


def test_quiescence_orders() -> None:
    # White: Kg1, Qd1, pawns a7 and c5; Black: Ke8, Qd8, Nb6, pawn d5 just pushed (en passant on d6). Captures:
    # cxb6 (a knight by a pawn, 2 * 16 - 1 = 31), cxd6 e.p. (a pawn by a pawn, 15), Qxd5 (a pawn by the queen,
    # 16 - 5 = 11); a8=Q promotes without capturing (90, first of all).
    board = chess.Board("3qk3/P7/1n6/2Pp4/8/8/8/3Q2K1 w - d6 0 1")
    assert _uci(capture_order(board, -10_000)) == ["a7a8q", "c5b6", "c5d6", "d1d5"]
    assert capture_order(board, -10_000)[0][0] == QS_QUEEN_PROMOTION
    # Delta pruning: victims worth less than 200 cp (the pawns) are left out, the knight (320) stays.
    assert _uci(capture_order(board, 200)) == ["a7a8q", "c5b6"]
    # Black (Ke8, Nd3, pawn h7) in check by the rook on e1: Nxe1 first, then the other evasions (king moves, Ne5)
    # in generation order.
    check = chess.Board("4k3/7p/8/8/8/3n4/8/4R1K1 b - - 0 1")
    order = _uci(evasion_order(check))
    assert order == ["d3e1"] + [m.uci() for m in check.generate_legal_moves() if m.uci() != "d3e1"]
    assert len(order) == 6  # Nxe1, Ne5, Kd8, Kd7, Kf8, Kf7


def test_reward_makes_a_killer_and_raises_history_by_depth_squared() -> None:
    history = [0] * 4096
    killers: list[chess.Move | None] = [None, None]
    a, b = chess.Move.from_uci("e1e2"), chess.Move.from_uci("e1d1")
    reward(history, killers, a, 3)
    reward(history, killers, b, 2)
    reward(history, killers, b, 2)  # already the newest killer: the killers stay
    assert killers == [b, a]
    assert history[chess.E1 * 64 + chess.E2] == 9 and history[chess.E1 * 64 + chess.D1] == 8


# White: Kc1, Na3, pawn e2; Black: Ka8, Ra4, pawns d4 and g2. After 1. e4 Black has Rxa3 (28), dxe3 e.p. (15),
# g1=Q, the quiet moves, and g1=R/B/N: the position every search below must order exactly so.
ROOT = "k7/8/8/8/r2p4/N7/4P1p1/2K5 w - - 0 1"
AFTER_E4_FRONT = ["a4a3", "d4e3", "g2g1q"]
AFTER_E4_BACK = ["g2g1r", "g2g1b", "g2g1n"]


@pytest.mark.parametrize("kind", ["depth", "prob", "compare"])
def test_the_three_searches_order_with_the_shared_scorer(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool, list[str]]] = []
    real = search.ordering.order_moves

    def watched(board: chess.Board, *args: object, **kwargs: object) -> list[tuple[int, chess.Move]]:
        out = real(board, *args, **kwargs)  # type: ignore[arg-type]
        seen.append((board.fen(), bool(kwargs.get("root", False)), _uci(out)))
        return out

    for module in (search.engine, search.prob, search.compare, search.root):
        monkeypatch.setattr(module, "order_moves", watched)
    material = make_evaluator("material")
    engine: Engine
    if kind == "depth":
        engine, limit = Engine(material), Limit(depth=2)
    elif kind == "prob":  # iteration 4 (threshold 1/64) expands 1. e4 (probability 1/18 with a hash move of 8)
        engine, limit = ProbEngine(material), Limit(depth=4)
    else:
        engine, limit = CompareEngine(EvalComparator(material)), Limit(depth=2)
    board = chess.Board(ROOT)
    engine.search(board, limit)
    board.push_uci("e2e4")
    visits = [order for fen, root, order in seen if fen == board.fen() and not root]
    assert visits, f"the {kind} search never ordered the moves after 1. e4 through search.ordering"
    # The first visit knows no table move; killers and history only move quiet moves, between g1=Q and g1=R.
    assert visits[0][:3] == AFTER_E4_FRONT
    assert visits[0][-3:] == AFTER_E4_BACK
    assert sorted(visits[0]) == sorted(m.uci() for m in board.legal_moves)
    assert seen[0][1], "the root is ordered first, with root=True"
