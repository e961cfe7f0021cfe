"""Giraffe's 363 features (organisms/giraffe.py): sizes, ranges, hand-derived values, colour symmetry,
pawn slots and the cache. Real positions come from data/player-games."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from organisms.giraffe import (
    GIRAFFE_FEATURE_NAMES,
    GIRAFFE_FEATURE_VERSION,
    GIRAFFE_RANGES,
    N_GIRAFFE,
    WHITE_TO_MOVE,
    giraffe_features,
    giraffe_matrix,
    pair_slots,
    pawn_slots,
)

GAMES = Path(__file__).resolve().parents[1] / "data" / "player-games"


def real_positions(n: int = 1000) -> list[chess.Board]:
    """Every 3rd position of the games of three players' files, ``n`` in all (openings to endgames)."""
    boards: list[chess.Board] = []
    per_file = -(-n // 3)
    for name in ("Capablanca.pgn", "Tal.pgn", "Carlsen.pgn"):
        taken = 0
        with open(GAMES / name, encoding="utf-8", errors="replace") as f:
            while taken < per_file and (game := chess.pgn.read_game(f)) is not None:
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    board.push(move)
                    if ply % 3 == 0 and taken < per_file:
                        boards.append(board.copy(stack=False))
                        taken += 1
    return boards[:n]


@pytest.fixture(scope="module")
def positions() -> list[chess.Board]:
    return real_positions(1000)


def value(board: chess.Board, name: str) -> float:
    return float(giraffe_features(board)[GIRAFFE_FEATURE_NAMES.index(name)])


def test_sizes_and_names() -> None:
    assert N_GIRAFFE == len(GIRAFFE_FEATURE_NAMES) == len(GIRAFFE_RANGES) == 363
    assert len(set(GIRAFFE_FEATURE_NAMES)) == 363
    # Global 19, piece-centric 216 (108 a side), square-centric 128.
    assert GIRAFFE_FEATURE_NAMES[18] == "their_king_y"
    assert GIRAFFE_FEATURE_NAMES[19] == "our_pawn0_exists"
    assert GIRAFFE_FEATURE_NAMES[19 + 107] == "our_king_defender"
    assert GIRAFFE_FEATURE_NAMES[19 + 108] == "their_pawn0_exists"
    assert GIRAFFE_FEATURE_NAMES[19 + 216] == "our_attacker_a1"
    assert GIRAFFE_FEATURE_NAMES[-1] == "their_attacker_h8"
    assert GIRAFFE_FEATURE_VERSION.endswith("363")


def test_ranges_on_real_positions(positions: list[chess.Board]) -> None:
    x = giraffe_matrix(positions, use_cache=False)
    assert x.shape == (1000, 363) and x.dtype == np.float32
    low = np.array([lo for lo, _ in GIRAFFE_RANGES], dtype=np.float32)
    high = np.array([hi for _, hi in GIRAFFE_RANGES], dtype=np.float32)
    assert np.all(x >= low) and np.all(x <= high + 1e-6)
    assert np.isfinite(x).all()
    # Real games have both sides to move and every slot filled somewhere.
    assert 0 < x[:, WHITE_TO_MOVE].mean() < 1


def test_start_position_by_hand() -> None:
    f = dict(zip(GIRAFFE_FEATURE_NAMES, giraffe_features(chess.Board()).tolist(), strict=True))
    # Counts: 1 queen /1, 2 rooks /2, ..., 8 pawns /8 for each side.
    for side in ("our", "their"):
        for piece in ("queens", "rooks", "bishops", "knights", "pawns"):
            assert f[f"{side}_{piece}"] == 1.0
    assert f["white_to_move"] == 1.0
    assert f["our_castle_kingside"] == f["our_castle_queenside"] == 1.0
    assert f["their_castle_kingside"] == f["their_castle_queenside"] == 1.0
    # Kings on e1 and e8: x = 4/7; y = 0 and 7/7 (White to move: White's view).
    assert f["our_king_x"] == f["their_king_x"] == pytest.approx(4 / 7)
    assert f["our_king_y"] == 0.0 and f["their_king_y"] == 1.0
    # Rooks a1 (slot 0) and h1 (slot 1): boxed in, free distance 0 everywhere, no moves.
    for slot in ("rook0", "rook1"):
        assert f[f"our_{slot}_exists"] == 1.0
        for d in "ewns":
            assert f[f"our_{slot}_free_{d}"] == 0.0
        assert f[f"our_{slot}_mobility"] == 0.0
    assert f["our_rook1_x"] == 1.0 and f["their_rook0_y"] == 1.0
    # Knight b1: moves a3 and c3, neither attacked by Black: 2 safe moves /16. Defended by Ra1 (5/10).
    assert f["our_knight0_x"] == pytest.approx(1 / 7)
    assert f["our_knight0_mobility"] == pytest.approx(2 / 16)
    assert f["our_knight0_defender"] == pytest.approx(0.5)
    # Bishop c1: defended by Qd1 (9/10), not attacked; all four diagonals blocked or at the edge.
    assert f["our_bishop0_defender"] == pytest.approx(0.9) and f["our_bishop0_attacker"] == 0.0
    assert all(f[f"our_bishop0_free_{d}"] == 0.0 for d in ("ne", "nw", "se", "sw"))
    # Queen d1 defended by Ke1 (1.0); Ke1 defended by Qd1 (0.9); pawn a2 by Ra1, pawn f2 by Ke1.
    assert f["our_queen_defender"] == 1.0
    assert f["our_king_defender"] == pytest.approx(0.9)
    assert f["our_pawn0_defender"] == pytest.approx(0.5) and f["our_pawn5_defender"] == 1.0
    # Pawn slots by file: slot 3 is d2 (x 3/7, y 1/7); their slot 3 is d7 (y 6/7).
    assert f["our_pawn3_x"] == pytest.approx(3 / 7) and f["our_pawn3_y"] == pytest.approx(1 / 7)
    assert f["their_pawn3_y"] == pytest.approx(6 / 7)
    # Control map: e3 by the d2/f2 pawns (1/10); f3 by e2/g2 pawns before Ng1; a1 by nobody;
    # d1 by Ke1 only (a piece does not attack its own square); f6 by Black's e7/g7 pawns; e4 by nobody.
    assert f["our_attacker_e3"] == pytest.approx(0.1)
    assert f["our_attacker_f3"] == pytest.approx(0.1)
    assert f["our_attacker_a1"] == 0.0
    assert f["our_attacker_d1"] == 1.0
    assert f["their_attacker_f6"] == pytest.approx(0.1)
    assert f["their_attacker_e4"] == 0.0 and f["our_attacker_e4"] == 0.0


def test_black_to_move_is_read_from_blacks_side() -> None:
    # After 1.e4 Black is "our" side: Black's king e8 is at own-view e1 (y 0), White's e4 pawn sits
    # on own-view e5 (y 4/7); White's slots are "their" slots.
    board = chess.Board()
    board.push_san("e4")
    f = dict(zip(GIRAFFE_FEATURE_NAMES, giraffe_features(board).tolist(), strict=True))
    assert f["white_to_move"] == 0.0
    assert f["our_king_y"] == 0.0 and f["their_king_y"] == 1.0
    assert f["their_pawn4_y"] == pytest.approx(4 / 7) and f["their_pawn4_x"] == pytest.approx(4 / 7)
    # Own-view d4 is White's d5, attacked by the e4 pawn: their lowest attacker there is a pawn.
    assert f["their_attacker_d4"] == pytest.approx(0.1)


def test_hanging_piece() -> None:
    # White to move; Black's knight d5 is attacked by Pe4 (and Rd1 behind d2-d4) and defended by
    # nobody (Ke8 reaches d7, d8, e7, f7, f8). It is their only knight, on file d: slot knight0.
    board = chess.Board("4k3/8/8/3n4/4P3/8/8/3RK3 w - - 0 1")
    f = dict(zip(GIRAFFE_FEATURE_NAMES, giraffe_features(board).tolist(), strict=True))
    assert f["their_knight0_exists"] == 1.0 and f["their_knight1_exists"] == 0.0
    assert f["their_knight0_attacker"] == pytest.approx(0.1)  # Pe4, lower than Rd1
    assert f["their_knight0_defender"] == 0.0
    # Its eight knight moves b4 b6 c3 c7 e3 e7 f4 f6: White attacks none of them -> 8/16.
    assert f["their_knight0_mobility"] == pytest.approx(8 / 16)
    # Rd1 (file d: slot rook0): e1 is our king -> free_e 0; c1 b1 a1 -> 3/7; d2 d3 d4 then d5 -> 3/7;
    # rank 1 below -> 0. Moves a1 b1 c1 d2 d3 d4 and the capture d5, none attacked by Black: 7/16.
    assert f["our_rook0_exists"] == 1.0 and f["our_rook1_exists"] == 0.0
    assert (f["our_rook0_free_e"], f["our_rook0_free_w"], f["our_rook0_free_n"], f["our_rook0_free_s"]) == (
        0.0, pytest.approx(3 / 7), pytest.approx(3 / 7), 0.0)
    assert f["our_rook0_mobility"] == pytest.approx(7 / 16)
    # The e4 pawn (slot 4): not attacked (the knight hits c3 e3 f4 ..., not e4), not defended.
    assert f["our_pawn4_attacker"] == 0.0 and f["our_pawn4_defender"] == 0.0
    assert f["our_attacker_d5"] == pytest.approx(0.1) and f["their_attacker_d5"] == 0.0
    # No queens: the queen slots are all zeros.
    assert f["our_queens"] == f["their_queens"] == 0.0
    assert not any(v for k, v in f.items() if "_queen_" in k)


def test_unsafe_moves_are_not_mobility() -> None:
    # White rook a1, Black pawn b3 (attacks a2, c2) and knight c4 (attacks a3 a5 b2 b6 d2 d6 e3 e5):
    # the rook's moves a2..a8 (a-file, empty) and b1..d1 (Ke1 stops it at e1). a2 (pawn attacks,
    # 1 < 5) and a3, a5 (knight, 3 < 5) are unsafe; the other moves are not attacked: a4 a6 a7 a8
    # b1 c1 d1 -> 7 safe moves. Black's king h8 attacks nothing the rook reaches.
    board = chess.Board("7k/8/8/8/2n5/1p6/8/R3K3 w - - 0 1")
    assert value(board, "our_rook0_mobility") == pytest.approx(7 / 16)
    assert value(board, "our_rook0_free_n") == pytest.approx(7 / 7)
    assert value(board, "our_rook0_free_e") == pytest.approx(3 / 7)


def test_colour_symmetry(positions: list[chess.Board]) -> None:
    x = giraffe_matrix(positions, use_cache=False)
    y = giraffe_matrix([b.mirror() for b in positions], use_cache=False)
    assert np.array_equal(x[:, WHITE_TO_MOVE], 1 - y[:, WHITE_TO_MOVE])
    keep = np.arange(N_GIRAFFE) != WHITE_TO_MOVE
    assert np.array_equal(x[:, keep], y[:, keep])


def test_pawn_slots_after_captures() -> None:
    # Rule: a pawn takes its file's slot; a pawn left over (in square order) takes the nearest free
    # slot, the lower on a tie. White pawns c2 g2 h2 c3 g3 (c3 and g3 came by captures): c2 -> 2,
    # g2 -> 6, h2 -> 7; c3: slots 1 and 3 are both 1 away -> 1; g3: slot 5 (7 is taken) -> 5.
    board = chess.Board("4k3/8/8/8/8/2P3P1/2P3PP/4K3 w - - 0 1")
    assert pawn_slots(board.pieces_mask(chess.PAWN, chess.WHITE)) == [
        None, chess.C3, chess.C2, None, None, chess.G3, chess.G2, chess.H2]
    f = dict(zip(GIRAFFE_FEATURE_NAMES, giraffe_features(board).tolist(), strict=True))
    assert f["our_pawn1_exists"] == 1.0
    assert (f["our_pawn1_x"], f["our_pawn1_y"]) == (pytest.approx(2 / 7), pytest.approx(2 / 7))
    assert (f["our_pawn5_x"], f["our_pawn5_y"]) == (pytest.approx(6 / 7), pytest.approx(2 / 7))
    assert f["our_pawn0_exists"] == f["our_pawn3_exists"] == f["our_pawn4_exists"] == 0.0
    assert f["our_pawns"] == pytest.approx(5 / 8)
    # The same pawns for Black, Black to move (the mirror): the same slots in Black's view.
    assert np.array_equal(giraffe_features(board.mirror())[WHITE_TO_MOVE + 1:],
                          giraffe_features(board)[WHITE_TO_MOVE + 1:])


def test_pair_slots_and_promoted_pieces() -> None:
    # One knight: slot 0 on files a-d, slot 1 on e-h. Two: the lower file in slot 0.
    assert pair_slots(chess.BB_G1) == (None, chess.G1)
    assert pair_slots(chess.BB_B1) == (chess.B1, None)
    assert pair_slots(chess.BB_G1 | chess.BB_B3) == (chess.B3, chess.G1)
    # Three white knights (one promoted) and no queens: the count says 3/2, the slots hold the first
    # two in square order (b1 = 1, g1 = 6; h5 = 39 is left out).
    board = chess.Board("4k3/8/8/7N/8/8/8/1N2K1N1 w - - 0 1")
    f = dict(zip(GIRAFFE_FEATURE_NAMES, giraffe_features(board).tolist(), strict=True))
    assert f["our_knights"] == pytest.approx(1.5)
    assert (f["our_knight0_x"], f["our_knight1_x"]) == (pytest.approx(1 / 7), pytest.approx(6 / 7))
    assert f["our_queens"] == 0.0 and f["our_queen_exists"] == 0.0


def test_cache(tmp_path: Path, positions: list[chess.Board]) -> None:
    boards = positions[:50]
    first = giraffe_matrix(boards, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("*.npz"))) == 1
    again = giraffe_matrix(boards, cache_dir=tmp_path)
    assert np.array_equal(first, again)
    assert np.array_equal(first, np.stack([giraffe_features(b) for b in boards]))
    assert giraffe_matrix([], use_cache=False).shape == (0, 363)


def test_control_map_matches_python_chess(positions: list[chess.Board]) -> None:
    # Differential: the control map against python-chess's board.attackers (pins ignored by both),
    # the squares read in the side to move's view (Black to move: rank flipped).
    worth = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 10}
    start = GIRAFFE_FEATURE_NAMES.index("our_attacker_a1")
    for board in positions[::5]:
        f = giraffe_features(board)
        us = board.turn
        for view in range(64):
            square = view if us == chess.WHITE else chess.square_mirror(view)
            for k, colour in enumerate((us, not us)):
                attackers = board.attackers(colour, square)
                expected = min((worth[board.piece_type_at(s) or 0] for s in attackers), default=0) / 10
                assert f[start + 64 * k + view] == pytest.approx(expected), (board.fen(), view, k)
