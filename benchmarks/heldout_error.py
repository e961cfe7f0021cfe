"""Held-out error of evaluators: our engine's depth-N score against a mentor's labels, per evaluator.

    python benchmarks/heldout_error.py LABELS.epd [--depth 2] [--evals material,expert,...] [--cap 1500]

For every label whose ``|ce|`` is within the cap (mates and runaway scores left out, as fitness does), each
evaluator searches the labelled position to ``--depth`` plies in our alpha-beta engine (a fresh search per
position: the transposition table is cleared); the error is ``|score - ce|`` in centipawns, both from the side
to move's view. Prints a Markdown table (mean, median, 90th percentile) and where the labels came from.
Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from evolve.players import PLAYERS
from mentor.labels import read_labels
from mentor.sidecar import read_sidecar
from search import Engine, Limit
from search.runtime.provenance import describe


def errors(spec: str, labels: list[tuple[object, int]], depth: int) -> tuple[np.ndarray, float]:
    """``|depth-N score - ce|`` for each label (cp), and the seconds it took."""
    engine = Engine(PLAYERS(spec), hash_mb=1)
    out = np.empty(len(labels))
    t0 = time.perf_counter()
    for i, (board, ce) in enumerate(labels):
        engine.new_game()
        result = engine.search(board, Limit(depth=depth))  # type: ignore[arg-type]
        out[i] = abs(result.score - ce)
    return out, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labels", type=Path)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--evals", default="material,expert,random:1")
    ap.add_argument("--cap", type=int, default=1500)
    ap.add_argument("--limit", type=int, default=None, help="use only the first N labels")
    ap.add_argument("--jobs", type=int, default=1, help="evaluators measured in parallel (one process each)")
    args = ap.parse_args()
    labels = [(lab.board, lab.ce) for lab in read_labels(args.labels) if abs(lab.ce) <= args.cap]
    if args.limit:
        labels = labels[: args.limit]
    runs = read_sidecar(args.labels).get("runs") or [{}]
    print(f"# Depth-{args.depth} error against `{args.labels}`\n")
    print(f"{len(labels)} labels within ±{args.cap} cp; labelled by `{runs[-1].get('command', '?')}` "
          f"(mentor {runs[-1].get('mentor', {}).get('id_name', '?')}); measured with {describe()} by "
          f"`python benchmarks/heldout_error.py {args.labels} --depth {args.depth} --evals {args.evals} "
          f"--jobs {args.jobs}`.\n")
    print("| evaluator | mean abs error (cp) | median | 90th percentile | seconds |")
    print("|---|---|---|---|---|")
    from joblib import delayed

    from search.runtime.workers import parallel

    specs = args.evals.split(",")
    # Each evaluator runs in its own process (one search at a time, so its seconds are comparable).
    measured = parallel(args.jobs)(delayed(errors)(spec, labels, args.depth) for spec in specs)
    for spec, (e, seconds) in zip(specs, measured, strict=True):
        print(f"| `{spec}` | {e.mean():.1f} | {statistics.median(e):.1f} | {np.percentile(e, 90):.1f} | "
              f"{seconds:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
