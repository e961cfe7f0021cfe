"""Engine speed with a perspective net (``pnet:``) against the rich organism, in the same run (issue 26).

    python benchmarks/pnet_speed.py [--pnet results/x/pnet.npz] [--units 32] [--nodes 20000 | --depth D]
                                    [--organism results/rich-stockfish/organism.json]
                                    [--positions benchmarks/data/bk.epd] [--limit 8] [--rounds 2]

One engine per evaluator searches each position for a fixed number of nodes (or to a fixed depth with ``--depth``;
``new_game`` before each, as ``benchmarks/search_nps.py``), the organism and the net alternating, ``--rounds``
times, in this process; nodes/s is total nodes over total CPU seconds of this process (the wall clock is printed
too; the CPU figure holds better on a loaded machine). The two evaluators search different trees (a random net's
is many times larger at a fixed depth), so equal nodes is the default: nodes/s compares the cost per node.
Without ``--pnet``, a net of ``--units`` first-layer units, no hidden layer, with seeded random weights is
written to a temporary file (the cost of an evaluation does not depend on the weights). Also prints the
evaluator alone: evaluations/s afresh (``evaluate``) on the positions' legal children, and the incremental path
(``push`` + ``evaluate_current`` + ``pop``) over the same moves.
Goal (issue 26): the net's engine at least 0.7x the rich organism's nodes/s. Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.players import make_evaluator
from organisms.pnet import PNet, random_pnet, save_pnet
from search import Engine, Limit
from search.formats.epd import read_epd

ROOT = Path(__file__).resolve().parents[1]


def run(engine: Engine, boards: list[chess.Board], limit: Limit) -> tuple[int, float, float]:
    """Total nodes, wall seconds and CPU seconds of searches of ``boards`` within ``limit`` by ``engine``."""
    total, wall, cpu = 0, 0.0, 0.0
    for board in boards:
        engine.new_game()
        t0, c0 = time.perf_counter(), time.process_time()
        result = engine.search(board, limit)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        total += result.nodes
    return total, wall, cpu


def evaluator_alone(net: PNet, boards: list[chess.Board]) -> tuple[float, float]:
    """Evaluations/s of ``net`` afresh and incrementally over every legal move of ``boards`` (CPU time)."""
    pairs = [(b, m) for b in boards for m in b.legal_moves]
    children = []
    for b, m in pairs:
        c = b.copy(stack=False)
        c.push(m)
        children.append(c)
    c0 = time.process_time()
    for c in children:
        net.evaluate(c)
    fresh = len(children) / (time.process_time() - c0)
    c0 = time.process_time()
    for board in boards:
        b = board.copy(stack=False)
        net.refresh(b)
        for m in list(b.legal_moves):
            net.push(b, m)
            b.push(m)
            net.evaluate_current(b)
            b.pop()
            net.pop()
    incremental = len(pairs) / (time.process_time() - c0)
    return fresh, incremental


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pnet", type=Path, default=None, help="pnet file (default: random weights, --units wide)")
    ap.add_argument("--units", type=int, default=32, help="first-layer units of the random net (default 32)")
    ap.add_argument("--organism", default=str(ROOT / "results" / "rich-stockfish" / "organism.json"))
    ap.add_argument("--nodes", type=int, default=20000, help="nodes a search (default 20000)")
    ap.add_argument("--depth", type=int, default=None, help="search to this depth in plies instead of --nodes")
    ap.add_argument("--positions", type=Path, default=ROOT / "benchmarks" / "data" / "bk.epd")
    ap.add_argument("--limit", type=int, default=8, help="only the first N positions (default 8)")
    ap.add_argument("--rounds", type=int, default=2, help="times each engine searches the positions (default 2)")
    args = ap.parse_args()
    boards = [r.board for r in read_epd(args.positions)][:args.limit]
    limit = Limit(depth=args.depth) if args.depth is not None else Limit(nodes=args.nodes)
    what = f"depth {args.depth}" if args.depth is not None else f"{args.nodes} nodes"
    with tempfile.TemporaryDirectory() as tmp:
        path = args.pnet
        if path is None:
            path = Path(tmp) / "random-pnet.npz"
            arrays, header = random_pnet(args.units, seed=0, note="random weights (benchmarks/pnet_speed.py)")
            save_pnet(path, arrays, header)
        specs = (f"organism:{args.organism}", f"pnet:{path}")
        engines = {spec: Engine(make_evaluator(spec)) for spec in specs}
        sums = {spec: [0, 0.0, 0.0] for spec in specs}
        for _ in range(args.rounds):
            for spec, engine in engines.items():
                for i, v in enumerate(run(engine, boards, limit)):
                    sums[spec][i] += v
        for spec, (nodes, wall, cpu) in sums.items():
            print(f"{spec}: {what} on {len(boards)} positions x {args.rounds}: {nodes} nodes in "
                  f"{wall:.2f} s = {nodes / wall:.0f} nodes/s; CPU {cpu:.2f} s = {nodes / cpu:.0f} nodes/s", flush=True)
        fresh, incremental = evaluator_alone(PNet.load(path), boards)
        print(f"pnet evaluator alone: {fresh:.0f} evaluations/s afresh, {incremental:.0f}/s incrementally "
              "(push + evaluate_current + pop)")
    (n_org, _, c_org), (n_net, _, c_net) = sums.values()
    print(f"pnet / organism nodes/s (CPU): {(n_net / c_net) / (n_org / c_org):.3f} (goal >= 0.7)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
