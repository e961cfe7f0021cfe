"""feature_matrix throughput: positions per second, one core and all cores (cache off). Prints figures.

    python benchmarks/features.py [--positions 20000] [--seed 1]

Positions come from seeded random playouts (0–160 plies), so every game phase is represented.
Goal (issue 3): at least 20,000 positions/s per core.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import chess
import numpy as np

from organisms.features import bitboard_row, feature_matrix


def playout_rows(n: int, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    rows = []
    while len(rows) < n:
        board = chess.Board()
        for _ in range(rng.randrange(0, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            rows.append(bitboard_row(board))
    return np.array(rows[:n], dtype=np.uint64)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="runs per setting; the median is printed")
    args = ap.parse_args()
    rows = playout_rows(args.positions, args.seed)
    cores = os.cpu_count() or 1
    print(f"# benchmarks/features.py: {len(rows)} positions from random playouts, {cores} cores")
    for jobs in sorted({1, cores}):
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            feature_matrix(rows, n_jobs=jobs, use_cache=False)
            times.append(time.perf_counter() - t0)
        rate = len(rows) / float(np.median(times))
        print(f"n_jobs={jobs}: {rate:10.0f} positions/s   ({rate / jobs:8.0f} per core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
