"""Labelling throughput on a Dask cluster against the local backend, and whether the label files agree.

    python benchmarks/dask_label.py [--positions 240] [--depth 2] [--repeats 2] [--seed 0]

Labels the same random positions with the built-in mentor (our engine with the built-in expert, fixed
depth) four ways: the local backend with one worker (``jobs=1``, in this process), the local backend
with 2 loky workers (started by the run, as ``mimic label --jobs 2`` does), and joblib's Dask backend on a
``distributed.LocalCluster`` of 2 worker processes of one thread each, and on one of a single worker
process with 2 threads (the clusters start before the clock runs, as a real cluster is). "One worker" is
the local ``jobs=1`` run: joblib runs the work of a one-thread cluster in the calling process (``n_jobs ==
1`` is sequential); the one-process, two-thread Dask worker is the Dask measure of one worker (the mentor
computes in Python, so its two threads share one interpreter lock).
Each way runs ``--repeats`` times, in turn; the best time counts (the least disturbed by other load).
Prints positions per second, the ratios the goal names (2 Dask workers against one worker, and against
local with 2 jobs) and whether every run wrote the same label file, byte for byte (the labeller writes the
results in the order of its batches on every backend).
Prints figures; passes or fails nothing. Needs the 'cluster' extra.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=240)
    ap.add_argument("--depth", type=int, default=2, help="built-in mentor's depth (plies)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from distributed import LocalCluster

    from mentor.labeller import MentorConfig, label_samples
    from mentor.samplers import random_playouts
    from search.runtime.provenance import describe
    from search.runtime.workers import use_backend

    samples = list(random_playouts(args.positions, seed=args.seed, skip_check=True))
    config = MentorConfig("builtin", depth=args.depth)
    best: dict[str, float] = {}
    lines: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp, \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                         worker_dashboard_address=":0") as cluster, \
            LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0",
                         worker_dashboard_address=":0") as single:

        def run(name: str, jobs: int, scheduler: str | None, k: int) -> None:
            out = Path(tmp) / f"{name.replace(' ', '_')}-{k}.epd"
            with use_backend("dask" if scheduler else "local", scheduler):
                t0 = time.perf_counter()
                summary = label_samples(samples, config, out, jobs=jobs)
                seconds = time.perf_counter() - t0
            assert summary.labelled == len(samples), summary.lines()
            best[name] = min(best.get(name, float("inf")), seconds)
            got = out.read_text()
            if lines.setdefault(name, got) != got:
                print(f"warning: {name}: run {k} wrote different labels from run 0", file=sys.stderr)

        for k in range(args.repeats):
            run("local, 1 worker", 1, None, k)
            run("local, 2 jobs", 2, None, k)
            run("dask, 2 workers", 2, cluster.scheduler_address, k)
            run("dask, 1 worker (2 threads)", 2, single.scheduler_address, k)
    n = len(samples)
    print(f"labelling {n} random positions, built-in mentor at depth {args.depth}, best of {args.repeats}; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; {describe()}")
    print("| backend | seconds | positions/s |")
    print("|---|---:|---:|")
    for name, s in best.items():
        print(f"| {name} | {s:.2f} | {n / s:.1f} |")
    one, local2, dask2 = (best[k] for k in ("local, 1 worker", "local, 2 jobs", "dask, 2 workers"))
    print(f"dask 2 workers / one worker: {one / dask2:.2f}x (goal >= 1.7)")
    print(f"dask 2 workers / local 2 jobs: {local2 / dask2:.2f}x (goal >= 0.9)")
    print(f"dask 2 workers / dask 1 worker (2 threads): {best['dask, 1 worker (2 threads)'] / dask2:.2f}x")
    same = all(v == lines["local, 1 worker"] for v in lines.values())
    print(f"identical label files in every run: {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
