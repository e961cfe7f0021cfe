"""Engine speed with the Giraffe-style net (``net:``) against the organism, in the same run.

    python benchmarks/net_nps.py [--net results/x/net.npz] [--nodes 5000]
                                 [--organism results/paper-stockfish/organism.json]
                                 [--positions benchmarks/data/bk.epd] [--limit N]

One engine per evaluator searches each position for a fixed number of nodes (``new_game`` before each, as
in ``benchmarks/search_nps.py``), for the organism and for the net, one after the other in this process:
equal nodes, so nodes/s compares the cost per node even though the two evaluators search different trees
(at a fixed depth a poor or random net's tree can be many times larger). Without ``--net``, a net of the
default architecture (19/44/26 group units, 64 hidden) with seeded random weights is written to a temporary
file: the cost of an evaluation does not depend on the weights. Also prints the evaluator alone:
evaluations per second of the net on the positions' legal children (features + forward pass, cache off).
Goal (issue 13): the net's engine at least 0.15x the organism's nodes/s. Prints figures; passes or fails nothing.
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
from evolve.players import make_evaluator
from organisms.net import DEFAULT_HIDDEN, DEFAULT_UNITS, NetEvaluator, expected_shapes, make_header, save_net
from search import Engine, Limit
from search.formats.epd import read_epd

ROOT = Path(__file__).resolve().parents[1]


def run(spec: str, boards: list[chess.Board], nodes: int) -> tuple[int, float, float]:
    """Total nodes, wall seconds and CPU seconds of ``nodes``-node searches of ``boards`` by one engine."""
    engine = Engine(make_evaluator(spec))
    total, wall, cpu = 0, 0.0, 0.0
    for board in boards:
        engine.new_game()
        t0, c0 = time.perf_counter(), time.process_time()
        result = engine.search(board, Limit(nodes=nodes))
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        total += result.nodes
    return total, wall, cpu


def random_net(path: Path, seed: int = 0) -> None:
    """A default-shaped net with seeded random weights (He-style scale), written to ``path``."""
    rng = np.random.default_rng(seed)
    arrays = {n: (rng.standard_normal(s) * (np.sqrt(2 / s[0]) if len(s) == 2 else 0.01)).astype(np.float32)
              for n, s in expected_shapes(DEFAULT_UNITS, DEFAULT_HIDDEN).items()}
    save_net(path, arrays, make_header(note="random weights (benchmarks/net_nps.py)"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", type=Path, default=None, help="net file (default: random weights, default shape)")
    ap.add_argument("--organism", default=str(ROOT / "results" / "paper-stockfish" / "organism.json"))
    ap.add_argument("--nodes", type=int, default=5000, help="nodes per position (default 5000)")
    ap.add_argument("--positions", type=Path, default=ROOT / "benchmarks" / "data" / "bk.epd")
    ap.add_argument("--limit", type=int, default=None, help="only the first N positions")
    args = ap.parse_args()
    boards = [r.board for r in read_epd(args.positions)][:args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        net = args.net
        if net is None:
            net = Path(tmp) / "random-net.npz"
            random_net(net)
        figures = {}
        for spec in (f"organism:{args.organism}", f"net:{net}"):
            nodes, wall, cpu = run(spec, boards, args.nodes)
            figures[spec] = nodes / cpu
            print(f"{spec}: {args.nodes} nodes a position on {len(boards)} positions: {nodes} nodes in {wall:.2f} s = "
                  f"{nodes / wall:.0f} nodes/s; CPU {cpu:.2f} s = {nodes / cpu:.0f} nodes/s", flush=True)
        evaluator = NetEvaluator.load(net)
        children = []
        for b in boards:
            for m in b.legal_moves:
                c = b.copy(stack=False)
                c.push(m)
                children.append(c)
        c0 = time.process_time()
        for c in children:
            evaluator._cache.clear()
            evaluator.evaluate(c)
        cpu = time.process_time() - c0
        print(f"net evaluator alone: {len(children)} positions in {cpu:.2f} s CPU = {len(children) / cpu:.0f} "
              f"evaluations/s (features and forward pass, no cache)")
    org, nn = figures.values()
    print(f"net / organism nodes/s (CPU): {nn / org:.3f} (goal >= 0.15)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
