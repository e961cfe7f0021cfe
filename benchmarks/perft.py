"""The compiled core's move generator and make/unmake: perft speed, exact counts, and a long random walk.

    python benchmarks/perft.py                 # the six CPW positions, 1.56e8 leaves; 100,000 random moves
    python benchmarks/perft.py --quick         # a smaller run (about 1e7 leaves, 10,000 moves)

1. perft of the six positions of the Chess Programming Wiki's "Perft Results" page
   (https://www.chessprogramming.org/Perft_Results) at depths totalling at least 10^8 leaves, each count compared
   with the page's published one, printing leaves/s. ``search.core.perft.perft`` is one Python call per position; it
   makes and unmakes every move down to the leaves (no bulk counting at the last ply). Goal: 3 million leaves/s.
   leaves/s is per second of wall time; "per CPU s" per second of this process's CPU time (the same on a quiet
   machine; on a shared one the wall figure falls and the CPU one holds).
2. A random walk: games of random moves from the start, Kiwipete and CPW positions 4 and 5 (preferring castling,
   en passant, promotions, checks and pawn moves, so the rare kinds are exercised), each move made by the core from
   Python; at every step the core's key must equal ``chess.polyglot.zobrist_hash`` of python-chess's board and its
   legal move count python-chess's, and at the end of each game taking every move back must restore every array
   exactly. python-chess's side (its legal moves, push and hash) dominates the time; both shares are printed.

Also prints how long importing the core and the first call took in this process (a warm cache loads; a fresh one
compiles: ``rm -rf ~/.cache/mimic/numba`` first to time a first process). Fails (exit 1) on any wrong count or
mismatch.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess
import chess.polyglot
import numpy as np

START = time.perf_counter()
from search.core.board import KIDX, from_board, make_move, unmake_move  # noqa: E402
from search.core.movegen import MAX_MOVES, gen_moves, move_from_chess  # noqa: E402
from search.core.perft import perft  # noqa: E402

IMPORTED = time.perf_counter() - START

# The page's published counts (depth: leaves).
POSITIONS = [
    ("startpos", chess.STARTING_FEN, {4: 197_281, 5: 4_865_609, 6: 119_060_324}),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     {3: 97_862, 4: 4_085_603, 5: 193_690_690}),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", {5: 674_624, 6: 11_030_083, 7: 178_633_661}),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
     {4: 422_333, 5: 15_833_292, 6: 706_045_033}),
    ("position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
     {3: 62_379, 4: 2_103_487, 5: 89_941_194}),
    ("position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
     {3: 89_890, 4: 3_894_594, 5: 164_075_551}),
]
FULL = {"startpos": 6, "kiwipete": 4, "position3": 6, "position4": 5, "position5": 4, "position6": 4}
QUICK = {"startpos": 5, "kiwipete": 4, "position3": 5, "position4": 4, "position5": 3, "position6": 3}


def run_perft(depths: dict[str, int]) -> bool:
    ok = True
    total_leaves, total_seconds, total_cpu = 0, 0.0, 0.0
    print(f"{'position':<10} {'depth':>5} {'leaves':>12} {'seconds':>8} {'leaves/s':>12} {'per CPU s':>12}  check")
    for name, fen, counts in POSITIONS:
        depth = depths[name]
        t, c = time.perf_counter(), time.process_time()
        leaves = perft(chess.Board(fen), depth)
        dt, cpu = time.perf_counter() - t, time.process_time() - c
        good = leaves == counts[depth]
        ok &= good
        total_leaves += leaves
        total_seconds += dt
        total_cpu += cpu
        print(f"{name:<10} {depth:>5} {leaves:>12,} {dt:>8.2f} {leaves / dt:>12,.0f} {leaves / cpu:>12,.0f}  "
              f"{'exact' if good else f'WRONG (published {counts[depth]:,})'}")
    print(f"{'all':<10} {'':>5} {total_leaves:>12,} {total_seconds:>8.2f} {total_leaves / total_seconds:>12,.0f} "
          f"{total_leaves / total_cpu:>12,.0f}")
    return ok


def _weight(board: chess.Board, move: chess.Move) -> int:
    """How much the random mover prefers ``move``: castling and en passant most, then promotions, checks, pawns."""
    if board.is_castling(move) or board.is_en_passant(move):
        return 40
    if move.promotion is not None:
        return 10
    if board.gives_check(move):
        return 4
    return 3 if board.piece_type_at(move.from_square) == chess.PAWN else 1


def random_walk(moves: int, seed: int) -> bool:
    rng = random.Random(seed)
    out = np.zeros(MAX_MOVES, np.int32)
    kinds = {"castling": 0, "en passant": 0, "promotions": 0, "checks": 0, "games": 0}
    core_s = python_s = 0.0
    made = 0
    starts = [fen for name, fen, _ in POSITIONS if name in ("startpos", "kiwipete", "position4", "position5")]
    while made < moves:
        board = chess.Board(starts[kinds["games"] % len(starts)])
        bb, mb, st, keys, undo = from_board(board)
        trail = []
        kinds["games"] += 1
        for _ in range(200):
            t0 = time.perf_counter()
            legal = list(board.legal_moves)
            key = chess.polyglot.zobrist_hash(board)
            t1 = time.perf_counter()
            n = gen_moves(bb, mb, st, out)
            core_key = int(keys[st[KIDX]])
            t2 = time.perf_counter()
            python_s += t1 - t0
            core_s += t2 - t1
            if core_key != key or n != len(legal):
                print(f"MISMATCH at {board.fen()}: key {core_key:x} vs {key:x}, moves {n} vs {len(legal)}")
                return False
            if not legal or made >= moves:
                break
            move = rng.choices(legal, weights=[_weight(board, m) for m in legal])[0]
            kinds["castling"] += board.is_castling(move)
            kinds["en passant"] += board.is_en_passant(move)
            kinds["promotions"] += move.promotion is not None
            kinds["checks"] += board.gives_check(move)
            m = np.int32(move_from_chess(board, move))
            trail.append((m, bb.copy(), mb.copy(), st.copy()))
            t0 = time.perf_counter()
            make_move(bb, mb, st, keys, undo, m)
            t1 = time.perf_counter()
            board.push(move)
            python_s += time.perf_counter() - t1
            core_s += t1 - t0
            made += 1
        while trail:
            m, bb0, mb0, st0 = trail.pop()
            unmake_move(bb, mb, st, keys, undo, m)
            if not ((bb == bb0).all() and (mb == mb0).all() and (st == st0).all()):
                print("MISMATCH: unmake did not restore the arrays")
                return False
    print(f"random walk: {made:,} moves in {kinds['games']:,} games, every key equal to python-chess's "
          f"polyglot key, every position restored by unmake; " + ", ".join(
              f"{v:,} {k}" for k, v in kinds.items() if k != "games"))
    print(f"  time: core (generate, key, make) {core_s:.2f} s, python-chess (legal moves, hash, push) {python_s:.2f} s")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths and 10,000 random moves")
    parser.add_argument("--moves", type=int, default=None, help="random-walk moves (default 100,000)")
    parser.add_argument("--seed", type=int, default=62)
    args = parser.parse_args()
    t = time.perf_counter()
    perft(chess.Board(), 1)
    print(f"core imported in {IMPORTED:.2f} s, first perft call {time.perf_counter() - t:.2f} s "
          "(compiled now if the cache was empty)")
    ok = run_perft(QUICK if args.quick else FULL)
    moves = args.moves or (10_000 if args.quick else 100_000)
    ok &= random_walk(moves, args.seed)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
