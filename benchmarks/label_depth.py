"""How much a mentor's score moves with depth: justifies the reference run's labelling depth.

    python benchmarks/label_depth.py [--positions 300] [--depths 6,8,10,12,14] [--reference 18]

Positions: random playouts and the champion games (data/player-games), split evenly between the
sources as in the reference run. For each depth, prints the mean absolute difference (cp, side to
move) between the score at that depth and at the reference depth, over positions where both are below
the 1,500 cp cap, and the labelling speed (one process).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from mentor.labeller import find_stockfish
from mentor.samplers import SamplerOptions, collect
from mentor.uci_client import UciEngine
from search.conventions import ce_from_mate_moves

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--depths", default="6,8,10,12,14")
    ap.add_argument("--reference", type=int, default=18)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    stockfish = find_stockfish()
    if stockfish is None:
        print("Stockfish not found", file=sys.stderr)
        return 2
    games = sorted(str(p) for p in (ROOT / "data" / "player-games").glob("*.pgn"))
    samples, _ = collect(["random", *games], args.positions, args.seed, SamplerOptions())
    fens = [s.board.fen() for s in samples]
    depths = [int(d) for d in args.depths.split(",")]
    engine = UciEngine([stockfish])
    scores: dict[int, np.ndarray] = {}
    speed: dict[int, float] = {}
    for depth in [*depths, args.reference]:
        t0 = time.perf_counter()
        out = []
        for fen in fens:
            a = engine.analyse(fen, depth=depth)
            out.append(ce_from_mate_moves(a.mate) if a.mate is not None else a.score)
        speed[depth] = len(fens) / (time.perf_counter() - t0)
        scores[depth] = np.array(out, dtype=np.float64)
    engine.close()
    ref = scores[args.reference]
    print(f"# benchmarks/label_depth.py: {len(fens)} positions (random playouts and champion games), "
          f"Stockfish ({engine.name}), reference depth {args.reference}")
    print(f"| depth | mean abs. difference from depth {args.reference} (cp) | median (cp) | positions/s (1 process) |")
    print("|---|---|---|---|")
    for depth in depths:
        ok = (np.abs(scores[depth]) <= 1500) & (np.abs(ref) <= 1500)
        diff = np.abs(scores[depth][ok] - ref[ok])
        print(f"| {depth} | {diff.mean():.1f} | {np.median(diff):.1f} | {speed[depth]:.1f} |")
    print(f"| {args.reference} | 0 | 0 | {speed[args.reference]:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
