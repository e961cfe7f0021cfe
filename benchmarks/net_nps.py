"""Engine speed with the Giraffe-style net (``net:``) against the organism, in the same run.

    python benchmarks/net_nps.py [--net results/x/net.npz] [--depth 4]
                                 [--organism results/paper-stockfish/organism.json]
                                 [--positions benchmarks/data/bk.epd]

The same fixed-depth searches as ``benchmarks/search_nps.py`` (one engine per evaluator, ``new_game``
before each position), for the organism and for the net, one after the other in this process. Without
``--net``, a net of the default architecture (19/44/26 group units, 64 hidden) with seeded random weights is
written to a temporary file: the cost of an evaluation does not depend on the weights, though the searched
tree does (the node counts are printed). Also prints the evaluator alone: evaluations per second of the net
on the positions' legal children (features + forward pass, cache off). Goal (issue 13): the net's engine at
least 0.15x the organism's nodes/s. Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.search_nps import run
from organisms.net import DEFAULT_HIDDEN, DEFAULT_UNITS, NetEvaluator, expected_shapes, make_header, save_net
from search.epd import read_epd

ROOT = Path(__file__).resolve().parents[1]


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
    ap.add_argument("--depth", type=int, default=4, help="plies per position (default 4)")
    ap.add_argument("--positions", type=Path, default=ROOT / "benchmarks" / "data" / "bk.epd")
    args = ap.parse_args()
    boards = [r.board for r in read_epd(args.positions)]
    with tempfile.TemporaryDirectory() as tmp:
        net = args.net
        if net is None:
            net = Path(tmp) / "random-net.npz"
            random_net(net)
        figures = {}
        for spec in (f"organism:{args.organism}", f"net:{net}"):
            nodes, wall, cpu = run(spec, boards, args.depth)
            figures[spec] = nodes / cpu
            print(f"{spec}: depth {args.depth} on {len(boards)} positions: {nodes} nodes in {wall:.2f} s = "
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
