"""How many labels a genome needs: the exact L1 fit's error against the number of training rows.

    python benchmarks/label_count.py LABELS.epd --genome rich --counts 2000,4000,8000,16000,32000

The label file's rows are split once (the ``mimic evolve`` split: 20% held out, ``--seed`` as the run's);
each count ``m`` fits the exact bounded L1 model (``evolve.ga.fit.exact_fit``: the LP up to 2,000 rows, IRLS above)
on the
first ``m`` training rows of one seeded shuffle (label files are written source by source, so file order
would fit the small counts on random playouts only) and measures it on the same held-out rows every time. When more
rows stop lowering the held-out error and training and held-out errors meet, the genome has the labels it
needs. Errors: mean |eval − mentor| in centipawns, side to move. Prints a Markdown table; passes or
fails nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from evolve.data.dataset import load_dataset
from evolve.ga.fit import exact_fit
from organisms.genome import layout_genome
from search.runtime.provenance import describe


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels")
    ap.add_argument("--genome", choices=("paper", "rich"), default="rich")
    ap.add_argument("--counts", default="2000,4000,8000,16000,32000",
                    help="comma-separated numbers of training rows (the last may be 'all')")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="seed of the held-out split (as mimic evolve --seed)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    ds = load_dataset(args.labels, layout=args.genome, n_jobs=args.jobs, seed=args.seed)
    genome = layout_genome(args.genome)
    print(f"# Labels needed: {args.genome} genome ({len(genome.genes)} genes)\n")
    print(f"Made by `python benchmarks/label_count.py {args.labels} --genome {args.genome} --counts {args.counts} "
          f"--seed {args.seed}` "
          f"({describe()}).\n")
    print(f"{ds.describe()}. Held out: the same {len(ds.held)} rows for every count (features in "
          f"{time.perf_counter() - t0:.1f} s).\n")
    order = np.random.default_rng([args.seed, 0xC0]).permutation(ds.train)
    print("| training rows | labels per gene | exact L1: training (cp) | held out (cp) | gap | solver | seconds |")
    print("|---|---|---|---|---|---|---|")
    for c in args.counts.split(","):
        m = len(ds.train) if c == "all" else min(int(c), len(ds.train))
        rows = np.sort(order[:m])
        fit = exact_fit(ds.features, ds.y, rows, ds.held, genome, "l1")
        print(f"| {m:,} | {m / len(genome.genes):.0f} | {fit.train_mae:.2f} | {fit.held_mae:.2f} | "
              f"{fit.held_mae - fit.train_mae:+.2f} | {fit.method} | {fit.seconds:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
