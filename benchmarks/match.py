"""Match runner throughput: games/hour with --jobs 2 against --jobs 1, on the same games.

    python benchmarks/match.py [--games 8] [--depth 3]

Plays the same fixed-depth games (expert against material, paired openings) once with one worker and
once with two, and prints games/hour and the ratio. Fixed depth makes every game the same work in both
runs. Goal (issue 6): ratio >= 1.8.
"""

from __future__ import annotations

import argparse
import sys
import time

from evolve.players import make_evaluator
from search.games.game import TimeControl
from search.games.match import MatchSettings, run_match
from search.games.openings import default_openings_path, load_openings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--depth", type=int, default=3)
    args = ap.parse_args()
    openings = load_openings(default_openings_path())[: args.games // 2]
    rates = {}
    for jobs in (1, 2):
        settings = MatchSettings("expert", "material", games=args.games, jobs=jobs, openings=openings,
                                 tc=TimeControl(depth=args.depth))
        t0 = time.perf_counter()
        summary = run_match(settings, make_evaluator)
        elapsed = time.perf_counter() - t0
        rates[jobs] = 3600 * summary.n / elapsed
        print(f"--jobs {jobs}: {summary.n} games in {elapsed:.1f} s = {rates[jobs]:.0f} games/hour "
              f"(+{summary.wins} ={summary.draws} -{summary.losses})", flush=True)
    print(f"ratio jobs 2 / jobs 1: {rates[2] / rates[1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
