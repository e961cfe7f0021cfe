"""Whether a mentor's scores lean toward the side to move at the labelled position, seen from the leaf targets.

    python benchmarks/leaf_parity.py LABELS [LABELS ...] --evals SPEC [SPEC ...] [--lines 6000]

The learners fit a label's score at its target, by default the quiet leaf of the mentor's PV (mentor/target.py),
with the score's sign fixed for the leaf's side to move: kept when an even number of plies separates the leaf from
the labelled position, negated when odd. A depth-limited search's score leans toward one side (the side to move at
the root, by a few centipawns or tens); carried to the leaf, that lean is for the leaf's side to move after an even
walk and against it after an odd one, which no static evaluation of the leaf can see. For the first ``--lines``
labels of each file (``|score|`` at most 1,500 cp), this prints the mean and median of (the mentor's score at the
leaf − each evaluation's static score there, both from the leaf's side to move) separately for even and odd walks:
half the gap between the two is the lean in centipawns, whatever the evaluation. Passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.players import PLAYERS
from mentor.labels import read_labels
from mentor.target import target_with_plies


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", nargs="+", type=Path, help="label files (mimic label or datagen)")
    ap.add_argument("--evals", nargs="+", default=["expert"], help="player specs with a static evaluation")
    ap.add_argument("--lines", type=int, default=6000, help="the first N labels of each file (default 6000)")
    args = ap.parse_args()
    evals = [PLAYERS(s) for s in args.evals]
    print("| labels | walk | labels | mean plies | " + " | ".join(f"{s}: mean, median (cp)" for s in args.evals)
          + " |")
    print("|---|---|---|---|" + "---|" * len(evals))
    for path in args.labels:
        rows: dict[int, list[tuple[int, int, list[int]]]] = {0: [], 1: []}
        for i, label in enumerate(read_labels(path)):
            if i >= args.lines:
                break
            if abs(label.ce) > 1500:
                continue
            leaf, score, plies = target_with_plies(label)
            rows[plies % 2].append((score, plies, [e.evaluate(leaf) for e in evals]))
        lean = []
        for parity, name in ((0, "even"), (1, "odd")):
            r = rows[parity]
            if not r:
                continue
            y = np.array([a[0] for a in r], dtype=np.float64)
            gaps = [y - np.array([a[2][j] for a in r], dtype=np.float64) for j in range(len(evals))]
            lean.append([g.mean() for g in gaps])
            print(f"| {path} | {name} | {len(r)} | {np.mean([a[1] for a in r]):.1f} | "
                  + " | ".join(f"{g.mean():+.1f}, {np.median(g):+.1f}" for g in gaps) + " |")
        if len(lean) == 2:
            print(f"| {path} | lean (half the gap of the means) | | | "
                  + " | ".join(f"{(a - b) / 2:+.1f}" for a, b in zip(*lean, strict=True)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
