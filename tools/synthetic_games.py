"""Write the synthetic game set of ``mimic recognize``'s example in docs/recognition.md: the tests' games.

    python tools/synthetic_games.py OUT.pgn [--games 32] [--plies 36] [--seed 0]

Alpha (random organism 1) against Beta (random organism 2), colours alternating, 6 random plies (seeded) and
then each side's 1-ply moves (``evolve.recognition.synthetic``): docs/recognition.md's example. The tests' shipped
``tests/data/synthetic.pgn`` is ``--games 35 --plies 26``. About 10 s for 32 games.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.recognition.synthetic import pgn_text, synthetic_games
from search.runtime.atomic import write_atomic


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the PGN file to write (its folder is created)")
    ap.add_argument("--games", type=int, default=32, help="games (default: 32)")
    ap.add_argument("--plies", type=int, default=36, help="plies a game at most (default: 36)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random opening plies (default: 0)")
    args = ap.parse_args(argv)
    games = synthetic_games(args.games, plies=args.plies, seed=args.seed)
    write_atomic(args.out, pgn_text(games))
    print(f"{len(games)} games between Alpha and Beta written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
