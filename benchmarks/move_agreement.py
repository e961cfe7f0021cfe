"""Move-agreement fitness speed: one generation's losses for a population on a sample of positions.

    python benchmarks/move_agreement.py [GAMES.pgn --player NAME] [--games 40] [--positions 1000]

The first ``--games`` games of the PGN file (default: data/player-games/Carlsen.pgn, player Carlsen) are
replayed and every legal move's child resolved and featurised once (``evolve.data.moves.load_moves``, cached
under ``$MIMIC_CACHE``: not timed as fitness). Then, as the GA does each generation, ``--positions``
positions are drawn at random and ``MoveAgreement.losses`` scores a random population of ``--population``
organisms on them (gather the children, one matrix product, segment arg-max). Prints the median time of
``--repeats`` generations for the agreement loss and the likelihood loss (β fitted per organism). Goal
(issue 12): ≤ 50 ms for 100 organisms on 1,000 positions of about 35 children. Passes or fails nothing.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evolve.data.moves import load_moves
from evolve.ga.objectives import MoveAgreement
from organisms.genome import layout_genome
from search.runtime.provenance import describe

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn", nargs="?", default=str(ROOT / "data" / "player-games" / "Carlsen.pgn"))
    ap.add_argument("--player", default="Carlsen")
    ap.add_argument("--games", type=int, default=40, help="the first N games of the file (default 40)")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--population", type=int, default=100)
    ap.add_argument("--genome", choices=("paper", "rich"), default="paper")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    data = Path(args.pgn).read_bytes()
    starts = [m.start() for m in re.finditer(rb"^\[Event ", data, flags=re.M)]
    end = starts[args.games] if args.games < len(starts) else len(data)
    with tempfile.TemporaryDirectory() as tmp:
        part = Path(tmp) / f"{Path(args.pgn).stem}-first{args.games}.pgn"
        part.write_bytes(data[:end])
        t0 = time.perf_counter()
        moves, features = load_moves(part, args.player, layout=args.genome, n_jobs=args.jobs)
        prepared = time.perf_counter() - t0
    genome = layout_genome(args.genome)
    rng = np.random.default_rng(0)
    print(f"# Move-agreement fitness: {args.population} organisms, {args.genome} genome\n")
    print(f"Made by `python benchmarks/move_agreement.py {args.pgn} --player {args.player} --games {args.games} "
          f"--positions {args.positions} --population {args.population} --genome {args.genome}` ({describe()}).\n")
    print(f"{moves.describe()}; extraction and features {prepared:.1f} s"
          f"{' (from the cache)' if moves.cached else ''}.\n")
    print("| loss | positions | children | median ms a generation | min ms |")
    print("|---|---|---|---|---|")
    for loss in ("agreement", "likelihood"):
        objective = MoveAgreement(features, moves.sign, moves.fixed, moves.offsets, moves.played, loss=loss)
        n = min(args.positions, len(objective.rows))
        times, children = [], []
        for _ in range(args.repeats):
            weights = genome.decode(genome.random_bits(rng, args.population))
            rows = np.sort(rng.choice(objective.rows, size=n, replace=False))
            t0 = time.perf_counter()
            objective.losses(weights, rows)
            times.append(time.perf_counter() - t0)
            children.append(int((objective.offsets[rows + 1] - objective.offsets[rows]).sum()))
        print(f"| {loss} | {n:,} | {np.mean(children):,.0f} | {1000 * np.median(times):.1f} | "
              f"{1000 * np.min(times):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
