"""In-process search speed: our engine at a fixed depth on a fixed position set, nodes/s per evaluator.

    python benchmarks/search_nps.py [--depth 4] [--evals random:1,rich-random:1,expert]
                                    [--positions benchmarks/data/bk.epd]

One ``search.Engine`` per evaluator plays every position in turn (``new_game`` before each, as a GUI
sends ``ucinewgame``: the transposition table is cleared, the evaluation cache stays), with no UCI
pipes in the way, so the figure is the search and the evaluation alone. A fixed depth makes the node
count the same on every run (it is printed: compare it between two versions before comparing their
speed). nodes/s = total nodes / total seconds, both by the wall clock and by the CPU time of this
process (the CPU figure holds better on a shared machine). Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess

from evolve.players import make_evaluator
from search import Engine, Limit
from search.formats.epd import read_epd

DATA = Path(__file__).parent / "data"


def run(spec: str, boards: list[chess.Board], depth: int) -> tuple[int, float, float]:
    """Total nodes, wall seconds and CPU seconds of depth-``depth`` searches of ``boards`` by one engine
    with ``spec``."""
    engine = Engine(make_evaluator(spec))
    nodes, wall, cpu = 0, 0.0, 0.0
    for board in boards:
        engine.new_game()
        t0, c0 = time.perf_counter(), time.process_time()
        result = engine.search(board, Limit(depth=depth))
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        nodes += result.nodes
    return nodes, wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=4, help="plies per position (default 4)")
    ap.add_argument("--evals", default="random:1,rich-random:1,expert", help="player specs, comma-separated")
    ap.add_argument("--positions", type=Path, default=DATA / "bk.epd", help="EPD position set (default Bratko-Kopec)")
    args = ap.parse_args()
    boards = [r.board for r in read_epd(args.positions)]
    for spec in args.evals.split(","):
        nodes, wall, cpu = run(spec, boards, args.depth)
        print(f"{spec:12s} depth {args.depth} on {len(boards)} positions: {nodes} nodes in {wall:.2f} s = "
              f"{nodes / wall:.0f} nodes/s; CPU {cpu:.2f} s = {nodes / cpu:.0f} nodes/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
