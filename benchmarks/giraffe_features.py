"""Giraffe feature extraction throughput: positions per second on one core (cache off). Prints figures.

    python benchmarks/giraffe_features.py [--positions 20000] [--games data/player-games/Tal.pgn]

Positions are every position of the games of a player file in data/player-games, in game order,
until ``--positions`` are read. Goal (issue 13): at least 5,000 positions/s per core.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from organisms.giraffe import giraffe_matrix, giraffe_row


def game_positions(path: str, n: int) -> list[chess.Board]:
    """The first ``n`` positions (after each move) of the games in the PGN file ``path``."""
    boards: list[chess.Board] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        while len(boards) < n and (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                boards.append(board.copy(stack=False))
                if len(boards) >= n:
                    break
    return boards


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--games", default="data/player-games/Tal.pgn")
    args = ap.parse_args()
    boards = game_positions(args.games, args.positions)
    t0 = time.perf_counter()
    rows = np.array([giraffe_row(b) for b in boards], dtype=np.uint64)
    t1 = time.perf_counter()
    features = giraffe_matrix(rows, use_cache=False)
    t2 = time.perf_counter()
    n = len(boards)
    print(f"{n} positions from {args.games}: features {features.shape}")
    print(f"rows (giraffe_row):      {n / (t1 - t0):10.0f} positions/s")
    print(f"features (giraffe_matrix): {n / (t2 - t1):8.0f} positions/s (1 core)")
    print(f"both:                    {n / (t2 - t0):10.0f} positions/s (1 core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
