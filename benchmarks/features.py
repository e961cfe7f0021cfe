"""feature_matrix throughput: positions per second, one core and all cores (cache off). Prints figures.

    python benchmarks/features.py [--positions 20000] [--seed 1] [--layout paper|rich] [--jobs 1,2]

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

from organisms.features import LAYOUTS, bitboard_row, feature_matrix, pst_features


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
    ap.add_argument("--layout", choices=LAYOUTS, default="paper", help="feature layout (default paper)")
    ap.add_argument("--jobs", help="worker counts, comma-separated (default: 1 and every core)")
    args = ap.parse_args()
    rows = playout_rows(args.positions, args.seed)
    cores = os.cpu_count() or 1
    print(f"# benchmarks/features.py: {len(rows)} positions from random playouts, {cores} cores, "
          f"layout {args.layout}")
    jobs_list = [int(j) for j in args.jobs.split(",")] if args.jobs else sorted({1, cores})
    for jobs in jobs_list:
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            feature_matrix(rows, n_jobs=jobs, use_cache=False, layout=args.layout)
            times.append(time.perf_counter() - t0)
        rate = len(rows) / float(np.median(times))
        print(f"n_jobs={jobs}: {rate:10.0f} positions/s   ({rate / jobs:8.0f} per core)")
    if args.layout == "rich":
        t0 = time.perf_counter()
        pst_features(rows)
        rate = len(rows) / (time.perf_counter() - t0)
        print(f"piece-square columns alone (one core): {rate:10.0f} positions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
