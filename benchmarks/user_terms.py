"""Feature extraction with a user's terms against the same terms built in (issue 40). Prints figures.

    python benchmarks/user_terms.py [--positions 20000] [--seed 1] [--repeat 5] [--jobs 1]

Three of mimic's built-in terms (rook_open_file, rook_half_open_file, bishop_pair: four features) are declared
again as a user's terms in benchmarks/data/redeclared_terms.py, after the rich layout without them: once in the
scalar form (a function of a chess.Board, ``LAYOUT``) and once in the batch form (numpy on bitboard rows, ``BATCH``).
Each layout's whole feature matrix (417 features) is made from the same positions, cache off, and timed against
the built-in rich layout's; the re-declared columns are checked equal to the built-in ones first. The docs' worked
example (docs/examples/threats.py: rich plus two terms) is timed too. Goal: a user's layout within 2x the time of
the same terms built in.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from mentor.samplers import random_playouts
from organisms.features import RICH_FEATURE_NAMES, bitboard_row, feature_matrix, feature_names

ROOT = Path(__file__).resolve().parent.parent
REDECLARED = ROOT / "benchmarks" / "data" / "redeclared_terms.py"
EXAMPLE = ROOT / "docs" / "examples" / "threats.py"


def timed(rows: np.ndarray, layout: str, jobs: int) -> tuple[float, np.ndarray]:
    """Seconds of one extraction of ``layout``'s features (this process's CPU time when ``jobs`` is 1, so that other
    work on the machine counts less; else wall time), and the matrix."""
    clock = time.process_time if jobs == 1 else time.perf_counter
    t0 = clock()
    matrix = feature_matrix(rows, n_jobs=jobs, use_cache=False, layout=layout)
    return clock() - t0, matrix


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="runs per layout; the least time is printed")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1: the per-core comparison)")
    args = ap.parse_args()
    rows = np.array([bitboard_row(s.board) for s in random_playouts(args.positions, args.seed)], dtype=np.uint64)
    scalar, batch = str(REDECLARED), f"{REDECLARED}:BATCH"
    reference = feature_matrix(rows[:2000], use_cache=False, layout="rich")
    for layout in (scalar, batch):  # the re-declared terms make the built-in columns
        matrix = feature_matrix(rows[:2000], use_cache=False, layout=layout)
        names = feature_names(layout)
        for name in names:
            mine = matrix[:, names.index(name)]
            if not np.array_equal(mine, reference[:, RICH_FEATURE_NAMES.index(name.removeprefix("my_"))]):
                print(f"{layout}: {name} differs from the built-in feature", file=sys.stderr)
                return 1
    layouts = {"rich (built in)": "rich", "rich, 3 terms re-declared: board form": scalar,
               "rich, 3 terms re-declared: batch form": batch,
               "docs example: rich + 2 terms (board and batch)": str(EXAMPLE)}
    best = dict.fromkeys(layouts, float("inf"))
    width = {}
    for _ in range(args.repeat):  # the layouts in turn, so that a busy spell of the machine hits them alike
        for label, layout in layouts.items():
            seconds, matrix = timed(rows, layout, args.jobs)
            best[label], width[label] = min(best[label], seconds), matrix.shape[1]
    clock = "CPU seconds" if args.jobs == 1 else "seconds"
    print(f"# benchmarks/user_terms.py: {len(rows)} positions from random playouts (seed {args.seed}), n_jobs "
          f"{args.jobs}, the least {clock} of {args.repeat} runs, the layouts taking turns\n")
    print(f"| layout | features | {clock} | positions/s | × built-in rich |")
    print("|---|---|---|---|---|")
    for label, seconds in best.items():
        print(f"| {label} | {width[label]} | {seconds:.2f} | {len(rows) / seconds:,.0f} | "
              f"{seconds / best['rich (built in)']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
