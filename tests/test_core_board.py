"""The compiled core's board (search/core/): perft, make/unmake, the polyglot key, move generation, draws and SEE,
each checked against python-chess or against published counts, never against the core itself.

Every compiled function is called with the same argument types in every test (the data vary, not the code), so a
test process compiles or loads each one once.
"""

from __future__ import annotations

import queue
import random
import subprocess
import threading

import chess
import chess.polyglot
import chess.variant
import numpy as np
import pytest

from search.core.board import (
    CASTLE,
    EP,
    FULLMOVE,
    HALFMOVE,
    SIDE,
    Unsupported,
    from_board,
    is_insufficient,
    is_repetition,
    make_move,
    make_null,
    unmake_move,
    unmake_null,
)
from search.core.movegen import (
    MAX_MOVES,
    gen_captures,
    gen_moves,
    in_check,
    is_draw,
    move_from_chess,
    move_to_chess,
)
from search.core.perft import divide, perft
from search.core.see import see
from search.see import see as python_see

from .conftest import mimic_uci_command

# The six positions of the Chess Programming Wiki's "Perft Results" page
# (https://www.chessprogramming.org/Perft_Results), with the page's published leaf counts at the deepest depth that
# stays under about a million leaves.
CPW = [
    ("startpos", chess.STARTING_FEN, 4, 197_281),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97_862),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422_333),
    ("position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62_379),
    ("position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89_890),
]


@pytest.mark.parametrize(("fen", "depth", "leaves"), [c[1:] for c in CPW], ids=[c[0] for c in CPW])
def test_perft_of_the_six_cpw_positions(fen: str, depth: int, leaves: int) -> None:
    assert perft(chess.Board(fen), depth) == leaves


def _python_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _python_perft(board, depth - 1)
        board.pop()
    return total


def test_divide_counts_each_root_move_as_python_chess() -> None:
    # Kiwipete to depth 2: every root move's count is python-chess's perft 1 after it.
    board = chess.Board(CPW[1][1])
    rows = divide(board, 2)
    expected = {}
    for move in board.legal_moves:
        board.push(move)
        expected[move] = _python_perft(board, 1)
        board.pop()
    assert dict(rows) == expected and len(rows) == len(expected)


def test_go_perft_through_mimic_uci() -> None:
    # Stockfish's format: "move: leaves" per root move, a blank line, "Nodes searched: N", a blank line; the counts are
    # python-chess's perft 2 after each of Black's replies to 1. e4.
    board = chess.Board()
    board.push_uci("e2e4")
    expected = []
    for move in board.legal_moves:
        board.push(move)
        expected.append(f"{move.uci()}: {_python_perft(board, 2)}")
        board.pop()
    total = sum(int(line.split(": ")[1]) for line in expected)
    proc = subprocess.Popen(mimic_uci_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x.rstrip("\n")) for x in proc.stdout or ()], daemon=True).start()
    try:
        assert proc.stdin is not None
        proc.stdin.write("position startpos moves e2e4\ngo perft 3\n")
        proc.stdin.flush()
        got: list[str] = []
        while not got or not got[-1].startswith("Nodes searched"):
            got.append(lines.get(timeout=60))
        assert lines.get(timeout=30) == ""
        proc.stdin.write("isready\n")
        proc.stdin.flush()
        assert lines.get(timeout=30) == "readyok"
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    assert got[-1] == f"Nodes searched: {total}"
    assert got[-2] == ""
    assert sorted(got[-2 - len(expected):-2]) == sorted(expected)


def _arrays(board: chess.Board) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The board's arrays as python-chess's board says (bb, mb) and its game scalars (side, castling rights,
    ep square (python-chess's, set after every double push), halfmove clock, fullmove number)."""
    bb = np.zeros((2, 7), np.uint64)
    mb = np.zeros(64, np.int8)
    for sq, piece in board.piece_map().items():
        bb[int(piece.color), piece.piece_type] |= np.uint64(1 << sq)
        bb[int(piece.color), 0] |= np.uint64(1 << sq)
        mb[sq] = 8 * int(piece.color) + piece.piece_type
    rights = board.castling_rights
    castle = sum(bit for bit, sq in ((1, chess.H1), (2, chess.A1), (4, chess.H8), (8, chess.A8)) if rights & (1 << sq))
    ep = -1 if board.ep_square is None else board.ep_square
    return bb, mb, [int(board.turn), castle, ep, board.halfmove_clock, board.fullmove_number]


def _weight(board: chess.Board, move: chess.Move) -> int:
    """How much the random mover prefers ``move``: castling and en passant most, then promotions, checks, pawns."""
    if board.is_castling(move) or board.is_en_passant(move):
        return 40
    if move.promotion is not None:
        return 10
    if board.gives_check(move):
        return 4
    return 3 if board.piece_type_at(move.from_square) == chess.PAWN else 1


def test_make_unmake_over_random_games_matches_python_chess() -> None:
    """A random mover that prefers castling, en passant, promotions, checks and pawn moves plays games of up to 150
    plies from the start, Kiwipete and CPW positions 4 and 5; at every step the legal moves, the arrays and the key
    must equal python-chess's (its board, its polyglot key), a null move now and then must too, and taking every
    move back must restore each earlier state exactly."""
    rng = random.Random(20261205)
    out = np.zeros(MAX_MOVES, np.int32)
    seen = {"castle": 0, "ep": 0, "check": 0, 2: 0, 3: 0, 4: 0, 5: 0}
    plies = 0
    starts = [chess.STARTING_FEN, CPW[1][1], CPW[3][1], CPW[4][1]]  # castling, ep and promotions come soon in these
    while plies < 3000:
        board = chess.Board(starts[plies % len(starts)])
        p = from_board(board)
        bb, mb, st, keys, undo = p
        trail: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, int]] = []
        for _ in range(150):
            legal = list(board.legal_moves)
            n = gen_moves(bb, mb, st, out)
            assert sorted(move_to_chess(m).uci() for m in out[:n]) == sorted(m.uci() for m in legal), board.fen()
            assert int(keys[st[6]]) == chess.polyglot.zobrist_hash(board), board.fen()
            fresh_bb, fresh_mb, scalars = _arrays(board)
            assert (bb == fresh_bb).all() and (mb == fresh_mb).all(), board.fen()
            assert [int(st[i]) for i in (SIDE, CASTLE, EP, HALFMOVE, FULLMOVE)] == scalars, board.fen()
            assert bool(in_check(bb, st)) == board.is_check()
            if not legal:
                break
            if rng.random() < 0.05 and not board.is_check():
                make_null(bb, mb, st, keys, undo)
                board.push(chess.Move.null())
                assert int(keys[st[6]]) == chess.polyglot.zobrist_hash(board)
                unmake_null(bb, mb, st, keys, undo)
                board.pop()
            move = rng.choices(legal, weights=[_weight(board, m) for m in legal])[0]
            seen["castle"] += board.is_castling(move)
            seen["ep"] += board.is_en_passant(move)
            seen["check"] += board.gives_check(move)
            if move.promotion:
                seen[move.promotion] += 1
            m = np.int32(move_from_chess(board, move))
            assert m in out[:n]
            trail.append((m, bb.copy(), mb.copy(), st.copy(), int(keys[st[6]])))
            make_move(bb, mb, st, keys, undo, m)
            board.push(move)
            plies += 1
        while trail:
            m, bb0, mb0, st0, key0 = trail.pop()
            unmake_move(bb, mb, st, keys, undo, m)
            assert (bb == bb0).all() and (mb == mb0).all() and (st == st0).all() and int(keys[st[6]]) == key0
    assert min(seen.values()) >= 5, seen


def test_repetition_follows_the_engine_rule_and_python_chess() -> None:
    # 1. Nf3 Nf6 2. Ng1 Ng8 returns to the start: python-chess's is_repetition(2) says so, and so must the core at
    # each step (only the last position repeats); 3. Nf3 repeats the position after 1. Nf3.
    board = chess.Board()
    p = from_board(board)
    bb, mb, st, keys, undo = p
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3"):
        move = chess.Move.from_uci(uci)
        make_move(bb, mb, st, keys, undo, np.int32(move_from_chess(board, move)))
        board.push(move)
        assert bool(is_repetition(st, keys)) == board.is_repetition(2), uci
    assert board.is_repetition(2)
    # The game's history comes in through from_board: the same repetition seen from a converted board.
    q = from_board(board)
    assert is_repetition(q.st, q.keys) and is_draw(q.bb, q.mb, q.st, q.keys)


def test_a_null_move_is_a_floor_for_repetitions() -> None:
    # White passes at once; then the black king shuffles e8-d8-e8-d8-e8 while the white rook goes a1-a4-a2-a1 (a
    # three-move cycle along the file): after eight plies the start (White to move) is back. python-chess walks back
    # through the null move and sees the repetition; mimic's engine looks no further back than the position after
    # the null move (search/root.py's _null_floor), so the core must not.
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    bb, mb, st, keys, undo = from_board(board)
    make_null(bb, mb, st, keys, undo)
    board.push(chess.Move.null())
    for uci in ("e8d8", "a1a4", "d8e8", "a4a2", "e8d8", "a2a1", "d8e8"):
        move = chess.Move.from_uci(uci)
        make_move(bb, mb, st, keys, undo, np.int32(move_from_chess(board, move)))
        board.push(move)
        assert not is_repetition(st, keys), uci
    assert board.is_repetition(2)
    assert int(keys[st[6]]) == int(keys[0])  # the same key as the start: only the floor keeps it from counting


@pytest.mark.parametrize(("fen", "drawn"), [
    ("7k/8/6K1/8/8/8/8/R7 w - - 99 80", False),  # Ra8 is mate on the 100th half-move: mate outranks the rule
    ("7k/8/5K2/8/8/8/8/R7 w - - 99 80", True),  # Ra8+ Kh7 escapes: the 100th half-move draws
])
def test_fifty_moves_as_python_chess(fen: str, drawn: bool) -> None:
    board = chess.Board(fen)
    bb, mb, st, keys, undo = from_board(board)
    move = chess.Move.from_uci("a1a8")
    make_move(bb, mb, st, keys, undo, np.int32(move_from_chess(board, move)))
    board.push(move)
    assert board.is_fifty_moves() == drawn
    assert bool(is_draw(bb, mb, st, keys)) == drawn


@pytest.mark.parametrize(("fen", "insufficient"), [
    ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", True),  # K v K
    ("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1", True),  # KB v K
    ("8/8/8/4k3/8/8/8/2N1K3 w - - 0 1", True),  # KN v K
    ("8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1", False),  # KNN v K: python-chess counts it as a possible mate
    ("8/8/8/2b1k3/8/8/8/2B1K3 w - - 0 1", True),  # KB v KB, bishops on dark squares both (c1, c5)
    ("8/8/8/3bk3/8/8/8/2B1K3 w - - 0 1", False),  # KB v KB on opposite colours (c1 dark, d5 light)
    ("8/8/8/3nk3/8/8/8/2B1K3 w - - 0 1", False),  # KB v KN
    ("8/8/8/4k3/8/8/8/4K2Q w - - 0 1", False),  # KQ v K
    ("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", False),  # KP v K
    ("8/8/8/4k3/8/8/8/2B1K1B1 w - - 0 1", True),  # KBB v K, both bishops on dark squares (c1, g1)
])
def test_insufficient_material_as_python_chess(fen: str, insufficient: bool) -> None:
    board = chess.Board(fen)
    assert board.is_insufficient_material() == insufficient
    assert bool(is_insufficient(from_board(board).bb)) == insufficient


def test_castling_as_king_takes_rook_packs_as_the_kings_move() -> None:
    # Kiwipete: White may castle both ways; e1h1 and e1a1 (the king taking its rook, as chess960 writes castling)
    # are python-chess's castling moves too, and must pack as the generated e1g1 and e1c1.
    board = chess.Board(CPW[1][1])
    bb, mb, st, _, _ = from_board(board)
    out = np.zeros(MAX_MOVES, np.int32)
    generated = {move_to_chess(m).uci(): int(m) for m in out[:gen_moves(bb, mb, st, out)]}
    assert move_from_chess(board, chess.Move.from_uci("e1h1")) == generated["e1g1"]
    assert move_from_chess(board, chess.Move.from_uci("e1a1")) == generated["e1c1"]


@pytest.mark.parametrize("fen", [
    "4k3/8/8/3P4/8/8/8/4K3 w - e6 0 1",  # no black pawn on e5: python-chess still offers d5xe6 en passant
    "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",  # a real one: d5xe6 takes the pawn on e5
])
def test_a_fens_ep_square_moves_and_keys_as_python_chess(fen: str) -> None:
    board = chess.Board(fen)
    bb, mb, st, keys, undo = from_board(board)
    before = bb.copy(), mb.copy(), st.copy()
    out = np.zeros(MAX_MOVES, np.int32)
    n = gen_moves(bb, mb, st, out)
    assert sorted(move_to_chess(m).uci() for m in out[:n]) == sorted(m.uci() for m in board.legal_moves)
    assert int(keys[st[6]]) == chess.polyglot.zobrist_hash(board)
    move = chess.Move.from_uci("d5e6")
    m = np.int32(move_from_chess(board, move))
    make_move(bb, mb, st, keys, undo, m)
    board.push(move)
    after_bb, after_mb, scalars = _arrays(board)
    assert (bb == after_bb).all() and (mb == after_mb).all()
    assert [int(st[i]) for i in (SIDE, CASTLE, EP, HALFMOVE, FULLMOVE)] == scalars
    assert int(keys[st[6]]) == chess.polyglot.zobrist_hash(board)
    unmake_move(bb, mb, st, keys, undo, m)
    assert all((a == b).all() for a, b in zip((bb, mb, st), before, strict=True))


def test_chess960_and_variants_are_refused() -> None:
    with pytest.raises(Unsupported, match="chess960"):
        from_board(chess.Board(chess.STARTING_FEN, chess960=True))
    with pytest.raises(Unsupported, match="variant"):
        from_board(chess.variant.AtomicBoard())
    with pytest.raises(Unsupported, match="king"):
        from_board(chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"))


def test_see_and_quiescence_moves_equal_python() -> None:
    """On every capture and promotion of 300 positions of random playouts that prefer captures, the core's SEE equals
    search/see.py's, and gen_captures gives exactly python-chess's legal captures and the quiet queen promotions."""
    rng = random.Random(62)
    out = np.zeros(MAX_MOVES, np.int32)
    checked = 0
    for _ in range(300):
        board = chess.Board()
        for _ in range(rng.randrange(8, 90)):
            legal = list(board.legal_moves)
            if not legal:
                break
            captures = [m for m in legal if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.4 else legal))
        bb, mb, st, _, _ = from_board(board)
        wanted = {m.uci() for m in board.legal_moves
                  if board.is_capture(m) or (m.promotion == chess.QUEEN and not board.is_capture(m))}
        n = gen_captures(bb, mb, st, out)
        assert sorted(move_to_chess(m).uci() for m in out[:n]) == sorted(wanted), board.fen()
        for move in board.legal_moves:
            if board.is_capture(move) or move.promotion:
                assert see(bb, mb, st, np.int32(move_from_chess(board, move))) == python_see(board, move), (
                    board.fen(), move)
                checked += 1
    assert checked > 400
