"""Binary against Gray gene encoding: the GA's held-out error over several seeds, as a ratio to the exact
L1 fit's held-out error, on one label file (paper settings otherwise). Prints a markdown table.

    python benchmarks/encoding.py LABELS.epd [--seeds 5] [--split-seed 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from evolve.data.dataset import load_dataset
from evolve.ga.evolution import Evolution, GASettings
from evolve.ga.fit import exact_fit
from evolve.ga.objectives import MentorLoss
from organisms.genome import default_genome


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--split-seed", type=int, default=1, help="seed of the held-out split (as mimic evolve --seed)")
    args = ap.parse_args()
    ds = load_dataset(args.labels, seed=args.split_seed)
    objective = MentorLoss(ds.features, ds.y)
    fit = exact_fit(ds.features, ds.y, ds.train, ds.held, default_genome(), "l1")
    print(f"# {args.labels}: {ds.n} labels; exact L1 fit held-out error {fit.held_mae:.2f} cp")
    print("| encoding | " + " | ".join(f"seed {s}" for s in range(args.seeds)) + " | median |")
    print("|---|" + "---|" * (args.seeds + 1))
    for encoding in ("binary", "gray"):
        genome = default_genome(encoding)
        ratios = []
        for seed in range(args.seeds):
            ev = Evolution(genome, objective, ds.train, ds.held, GASettings(seed=seed))
            ev.run()
            ratios.append(ev.winner()[2] / fit.held_mae)
        print(f"| {encoding} | " + " | ".join(f"{r:.3f}" for r in ratios) + f" | {statistics.median(ratios):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
