"""DeepChess speed: the data extraction (positions/s) and the comparison search (nodes/s, comparisons/s).

    python benchmarks/deepchess.py [--pgn data/player-games/Capablanca.pgn ...] [--cmp DIR/cmp.npz ...]
                                   [--nodes 3000] [--positions benchmarks/data/bk.epd] [--limit N]

1. ``evolve.nets.deepchess_data.extract_positions`` on the PGN files (one process; a temporary output folder): stored
   (balanced) positions per wall second and per CPU second, games per second.
2. The comparison alpha-beta (``search.compare.CompareEngine``) at a fixed node count on each position
   (``new_game`` before each), for every comparator given (default: a comparator of the default widths,
   773-100-100-100 / 200-100-50-2, with seeded random weights, and the distilled widths 773-64-32 / 64-32-2:
   the cost of a comparison does not depend on the weights), beside the ordinary engine with the material
   evaluator and the comparison search with the material evaluator made a comparator (the search's own cost,
   with comparisons that cost almost nothing). Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import chess
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.nets.deepchess_data import DataSettings, extract_positions
from organisms import Material
from organisms.comparator import ComparatorNet, expected_shapes, make_header
from search import Engine, Limit
from search.compare import CompareEngine, EvalComparator
from search.formats.epd import read_epd

ROOT = Path(__file__).resolve().parents[1]


def random_cmp(pos2vec: tuple[int, ...], top: tuple[int, ...], seed: int = 0) -> ComparatorNet:
    rng = np.random.default_rng(seed)
    arrays = {n: (rng.standard_normal(s) * (np.sqrt(2 / s[0]) if len(s) == 2 else 0.01)).astype(np.float32)
              for n, s in expected_shapes(pos2vec, top).items()}
    return ComparatorNet(arrays, make_header(pos2vec, top, note="random weights (benchmarks/deepchess.py)"))


def search(engine: Engine, boards: list[chess.Board], nodes: int) -> tuple[int, float]:
    total, cpu = 0, 0.0
    for board in boards:
        engine.new_game()
        c0 = time.process_time()
        total += engine.search(board, Limit(nodes=nodes)).nodes
        cpu += time.process_time() - c0
    return total, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgn", nargs="*", default=[str(ROOT / "data" / "player-games" / "Capablanca.pgn")])
    ap.add_argument("--cmp", nargs="*", default=None, help="comparator files (default: random weights)")
    ap.add_argument("--nodes", type=int, default=3000, help="nodes per position (default 3000)")
    ap.add_argument("--positions", type=Path, default=ROOT / "benchmarks" / "data" / "bk.epd")
    ap.add_argument("--limit", type=int, default=8, help="only the first N positions (default 8)")
    args = ap.parse_args()
    if args.pgn:
        with tempfile.TemporaryDirectory() as tmp:
            w0, c0 = time.perf_counter(), time.process_time()
            s = extract_positions(args.pgn, tmp, DataSettings())
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        print(f"data: {s.positions} positions from {s.decisive} decisive of {s.games} games in {wall:.1f} s wall "
              f"({s.positions / wall:.0f} positions/s, {s.games / wall:.0f} games/s), {cpu:.1f} s CPU "
              f"({s.positions / cpu:.0f} positions/s)", flush=True)
    boards = [r.board for r in read_epd(args.positions)][:args.limit]
    nets = ([(p, ComparatorNet.load(p)) for p in args.cmp] if args.cmp is not None else
            [("random 773-100-100-100 / 200-100-50-2", random_cmp((773, 100, 100, 100), (200, 100, 50, 2))),
             ("random 773-64-32 / 64-32-2", random_cmp((773, 64, 32), (64, 32, 2)))])
    nodes, cpu = search(Engine(Material()), boards, args.nodes)
    print(f"ordinary engine, material: {nodes} nodes, {nodes / cpu:.0f} nodes/s (CPU)", flush=True)
    cmp = EvalComparator(Material())
    nodes, cpu = search(CompareEngine(cmp), boards, args.nodes)
    print(f"comparison search, material as a comparator: {nodes} nodes, {nodes / cpu:.0f} nodes/s (CPU)", flush=True)
    for name, net in nets:
        engine = CompareEngine(net)
        nodes, cpu = search(engine, boards, args.nodes)
        print(f"comparison search, {name}: {nodes} nodes, {nodes / cpu:.0f} nodes/s, "
              f"{net.comparisons / cpu:.0f} comparisons/s (CPU; {net.comparisons / nodes:.2f} a node)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
