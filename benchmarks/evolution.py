"""Paper-scale evolution speed: 5,000 labels, population 100, 300 generations, 1,000 positions per
generation, excluding labelling and feature extraction. Prints wall seconds (median of --repeat runs).

    python benchmarks/evolution.py [--labels FILE.epd] [--repeat 3] [--encoding gray|binary]

Without --labels, 5,000 random-playout positions are labelled by a known organism plus noise.
Goal (issue 5): at most 1 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from evolve.data.dataset import load_dataset, split
from evolve.ga.evolution import Evolution, GASettings
from evolve.ga.objectives import MentorLoss
from mentor.samplers import random_playouts
from organisms import Organism, feature_matrix
from organisms.genome import DEFAULT_ENCODING, default_genome


def synthetic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    boards = [sample.board for sample in random_playouts(n, seed, min_plies=4, max_plies=119)]
    f = feature_matrix(boards, use_cache=False).astype(np.float64)
    y = f @ Organism.random(seed).weights + np.random.default_rng(seed).normal(0, 50, n)
    return f, y


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", default=None)
    ap.add_argument("--positions", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--encoding", choices=("gray", "binary"), default=DEFAULT_ENCODING)
    args = ap.parse_args()
    if args.labels:
        ds = load_dataset(args.labels)
        features, y, train, held = ds.features, ds.y, ds.train, ds.held
        what = f"{args.labels} ({ds.n} usable labels)"
    else:
        features, y = synthetic(args.positions, 1)
        train, held = split(len(y), 0.2, 0)
        what = f"{len(y)} synthetic labels"
    genome = default_genome(args.encoding)
    objective = MentorLoss(features, y)
    times = []
    for seed in range(args.repeat):
        ev = Evolution(genome, objective, train, held, GASettings(seed=seed))
        t0 = time.perf_counter()
        ev.run()
        times.append(time.perf_counter() - t0)
    print(f"# benchmarks/evolution.py: {what}, population 100, 300 generations, 1,000 positions per generation")
    print(f"evolution wall time: median {statistics.median(times):.3f} s (runs: "
          + ", ".join(f"{t:.3f}" for t in times) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
