"""How the GA's settings move its held-out error toward the exact fit (issue 11 item 2).

Features are extracted once; every run uses the same labels, the same held-out split (seed 0) and the
``Evolution`` class directly. The grid is one factor at a time around a baseline (the paper's settings:
population 100, 300 generations, sample 1,000, two-point crossover 0.75, 0.005 flips per bit, Gray
genes), plus the settings picked as the rich genome's defaults. Each row: held-out mean absolute error
(centipawns, side to move) of the run's winner, its ratio to the exact L1 fit's held-out error, and the
GA's wall time. With ``--polish P`` every run is followed by up to P passes of GreKo's coordinate descent
from its winner on the training rows (the memetic option), reported in its own columns beside the pure
GA's figure.

    .venv/bin/python benchmarks/ga_study.py results/paper-builtin/labels.epd --genome rich \\
        --out results/ga-study/study.md
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evolve.data.dataset import load_dataset
from evolve.ga.coordinate import coordinate_descent
from evolve.ga.evolution import Evolution, GASettings, rich_defaults
from evolve.ga.fit import exact_fit
from evolve.ga.objectives import MentorLoss
from organisms.genome import layout_genome

BASE = GASettings()
FIRST_RICH: dict[str, object] = {"generations": 1000, "crossover_kind": "uniform", "mutation_kind": "gaussian",
                                 "mutation": 0.01}
"""The rich genome's defaults picked by the first study (parts 1 and 2), before the shrinking step."""
GRID: list[tuple[str, dict[str, object]]] = [
    ("baseline (paper settings)", {}),
    ("encoding binary", {"encoding": "binary"}),
    ("crossover uniform", {"crossover_kind": "uniform"}),
    ("mutation bit 0.002", {"mutation": 0.002}),
    ("mutation gaussian 0.01/gene, sigma 0.1", {"mutation_kind": "gaussian", "mutation": 0.01}),
    ("mutation gaussian 0.02/gene, sigma 0.05", {"mutation_kind": "gaussian", "mutation": 0.02,
                                                "mutation_sigma": 0.05}),
    ("mutation uniform 0.01/gene", {"mutation_kind": "uniform", "mutation": 0.01}),
    ("sample all training rows", {"sample": 1_000_000}),
    ("population 200", {"population": 200}),
    ("generations 1000", {"generations": 1000}),
    ("uniform crossover + gaussian 0.01/gene", {"crossover_kind": "uniform", "mutation_kind": "gaussian",
                                                "mutation": 0.01}),
    ("rich defaults of the first study (1000 generations)", dict(FIRST_RICH)),
    ("the first rich defaults, sigma shrinking 0.1 -> 0.005", {**FIRST_RICH, "mutation_sigma_final": 0.005}),
    ("the first rich defaults, sigma shrinking 0.1 -> 0.005, 3000 generations",
     {**FIRST_RICH, "mutation_sigma_final": 0.005, "generations": 3000}),
    ("the first rich defaults, 3000 generations", {**FIRST_RICH, "generations": 3000}),
    ("rich defaults (evolve.ga.evolution.RICH_DEFAULTS)", {"rich": True}),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels")
    ap.add_argument("--genome", choices=("paper", "rich"), default="rich")
    ap.add_argument("--seeds", type=int, default=1, help="seeds per row (0, 1, …)")
    ap.add_argument("--polish", type=int, default=2, help="coordinate-descent passes after each run (0: none)")
    ap.add_argument("--only", default=None, help="comma-separated row numbers to run (default all)")
    ap.add_argument("--out", default=None, help="write the markdown table here")
    args = ap.parse_args()

    t0 = time.perf_counter()
    ds = load_dataset(args.labels, layout=args.genome)
    load_s = time.perf_counter() - t0
    objective = MentorLoss(ds.features, ds.y)
    rows = GRID if args.only is None else [GRID[int(i)] for i in args.only.split(",")]
    lines = [f"# GA study: {args.genome} genome on {args.labels}", "",
             f"Labels: {ds.describe()} (features in {load_s:.1f} s). Held-out rows never sampled; "
             "errors are mean |eval − mentor| in centipawns, side to move.", ""]
    # The exact fit depends on the genes' ranges only, not on their encoding.
    fit = exact_fit(ds.features, ds.y, ds.train, ds.held, layout_genome(args.genome), "l1")
    fits = {"gray": fit, "binary": fit}
    lines += [f"Exact bounded L1 fit: training {fit.train_mae:.2f}, held out **{fit.held_mae:.2f}** cp "
              f"({fit.seconds:.1f} s).", "",
              "One factor at a time around the baseline (the paper's GA settings, Gray genes); "
              f"seeds 0..{args.seeds - 1}, upper median over seeds shown first, then every seed.", "",
              "| # | setting | held out (cp) | ratio to exact L1 | GA time (s) | "
              f"+ {args.polish} coordinate-descent passes: held out | ratio | polish time (s) |",
              "|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for i, (name, change) in enumerate(rows):
        change = dict(change)
        encoding = str(change.pop("encoding", "gray"))
        base = rich_defaults(BASE) if change.pop("rich", False) else BASE
        helds, ratios, secs, p_helds, p_ratios, p_secs = [], [], [], [], [], []
        for seed in range(args.seeds):
            settings = replace(base, **change, seed=seed)  # type: ignore[arg-type]
            genome = layout_genome(args.genome, encoding)
            ev = Evolution(genome, objective, ds.train, ds.held, settings)
            t = time.perf_counter()
            ev.run()
            secs.append(time.perf_counter() - t)
            bits, _, held = ev.winner()
            helds.append(held)
            ratios.append(held / fits[encoding].held_mae)
            if args.polish:
                cd = coordinate_descent(genome, objective, ds.train, ds.held, start=genome.decode(bits[None, :])[0],
                                        max_passes=args.polish)
                p_helds.append(cd.held_loss)
                p_ratios.append(cd.held_loss / fits[encoding].held_mae)
                p_secs.append(cd.seconds)

        def cell(xs: list[float], fmt: str) -> str:
            if not xs:
                return "–"
            med = sorted(xs)[len(xs) // 2]
            return format(med, fmt) + (" (" + ", ".join(format(x, fmt) for x in xs) + ")" if len(xs) > 1 else "")

        shown = {k: v for k, v in asdict(replace(base, **change)).items()  # type: ignore[arg-type]
                 if v != getattr(BASE, k)}
        label = name + (f" [{', '.join(f'{k}={v}' for k, v in shown.items())}]" if shown else "")
        line = (f"| {i if args.only is None else args.only.split(',')[i]} | {label}"
                + ("" if encoding == "gray" else " [binary genes]")
                + f" | {cell(helds, '.2f')} | {cell(ratios, '.3f')} | {cell(secs, '.0f')} | "
                f"{cell(p_helds, '.2f')} | {cell(p_ratios, '.3f')} | {cell(p_secs, '.0f')} |")
        lines.append(line)
        print(line, flush=True)
    total = time.perf_counter() - t0
    lines += ["", f"Whole study: {total:.0f} s wall time on the shared 2-core machine.", ""]
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
