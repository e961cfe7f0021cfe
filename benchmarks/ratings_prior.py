"""How much the rating fit's prior (virtual draws) shrinks a tournament's spread, and how well the 95%
intervals cover the truth: the measurement behind ``mimic tournament --prior-draws``'s default.

    python benchmarks/ratings_prior.py                              # 8 players 1000 Elo apart, 20 games a pair
    python benchmarks/ratings_prior.py --players 10 --spread 1500 --games 20 --draws 0.3 --seeds 40

Simulates round robins from known ratings (evenly spaced over ``--spread`` Elo; every game decisive, or a
draw with probability ``--draws`` where the expected score allows it, the expected score kept at
``E(d) = 1 / (1 + 10^(−d/400))``), fits them with :func:`search.games.ratings.rate` under each prior, and prints
the mean and standard deviation of the error of the fitted top-bottom difference, the number of runs whose
plain maximum-likelihood fit is unbounded (a perfect score), and, with ``--bootstrap N``, how often the
95% interval of the top player (the bottom one anchored at its true rating) holds its true rating. Passes
or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from search.games.ratings import GameRecord, RatingError, rate


def simulate(true: np.ndarray, games: int, draws: float, rng: np.random.Generator) -> list[GameRecord]:
    """A round robin of ``games`` games a pair between players of ratings ``true`` (Elo), colours alternating."""
    names = [f"P{i}" for i in range(len(true))]
    out: list[GameRecord] = []
    for i in range(len(true)):
        for j in range(i + 1, len(true)):
            e = 1.0 / (1.0 + 10.0 ** (-(true[i] - true[j]) / 400.0))
            d = min(draws, 2 * e, 2 * (1 - e))  # a draw share the expected score allows: P(win) = e - d/2 >= 0
            for g in range(games):
                u = rng.random()
                s = 1.0 if u < e - d / 2 else 0.5 if u < e + d / 2 else 0.0
                out.append((names[i], names[j], s) if g % 2 == 0 else (names[j], names[i], 1.0 - s))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--spread", type=float, default=1000.0, help="Elo between the first and the last player")
    ap.add_argument("--games", type=int, default=20, help="games a pair")
    ap.add_argument("--draws", type=float, default=0.0, help="draw probability where the expected score allows")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--priors", default="0,0.2,0.5,1,2")
    ap.add_argument("--bootstrap", type=int, default=0, help="resamples for the coverage column (0: none)")
    args = ap.parse_args()
    true = np.linspace(-args.spread / 2, args.spread / 2, args.players)
    names = [f"P{i}" for i in range(args.players)]
    print(f"{args.players} players over {args.spread:g} Elo, {args.games} games a pair, draw share {args.draws:g}, "
          f"{args.seeds} seeds")
    head = f"{'prior':>6}  {'unbounded':>9}  {'spread error':>12}  {'sd':>6}"
    print(head + ("  top covered" if args.bootstrap else ""))
    for prior in (float(x) for x in args.priors.split(",")):
        errors, unbounded, covered = [], 0, 0
        for seed in range(args.seeds):
            games = simulate(true, args.games, args.draws, np.random.default_rng(seed))
            try:
                r = rate(games, names, prior_draws=prior, bootstrap=args.bootstrap, seed=seed,
                         anchor=(names[0], float(true[0])))
            except RatingError:
                unbounded += 1
                continue
            errors.append(float(r.elo[-1] - r.elo[0] - args.spread))
            covered += bool(r.low[-1] <= true[-1] <= r.high[-1])
        fitted = len(errors)
        line = (f"{prior:6g}  {unbounded:9d}  {np.mean(errors) if fitted else float('nan'):12.1f}  "
                f"{np.std(errors) if fitted else float('nan'):6.1f}")
        if args.bootstrap:
            line += f"  {covered}/{fitted}"
        print(line)


if __name__ == "__main__":
    main()
