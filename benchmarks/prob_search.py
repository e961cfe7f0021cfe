"""Depth-limited against probability-limited search, same evaluator: nodes/s, and WAC positions solved at a fixed
node count.

    python benchmarks/prob_search.py [--eval expert] [--nodes 5000] [--limit 300]
                                     [--searches depth,prob,prob-uniform] [--positions benchmarks/data/wac.epd]

For each search (``@search=`` names, :data:`search.players.spec.SEARCHES`) one engine
(:func:`search.make_engine`) searches
every position in turn with ``Limit(nodes=N)`` after ``new_game`` (the table cleared, as a suite run does), and a
position is solved when the move is a ``bm`` move and no ``am`` move (:func:`search.games.suite.is_solved`). A node
limit makes every run the same on any machine, so the solved counts are exact figures; nodes/s is total nodes
over total seconds, by the wall clock and by this process's CPU time (the CPU figure holds better on a shared
machine). Also printed: the mean iteration reached (``depth``: plies for ``depth``, iterations for the others,
whose threshold is ``4^-(k-1)``). Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from evolve.players import make_evaluator
from search import Limit, make_engine
from search.formats.epd import read_epd
from search.games.suite import is_solved

DATA = Path(__file__).parent / "data"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval", default="expert", help="evaluator spec (default expert)")
    ap.add_argument("--nodes", type=int, default=5000, help="nodes per position (default 5000)")
    ap.add_argument("--limit", type=int, default=300, help="the first N positions (default 300: all of WAC)")
    ap.add_argument("--searches", default="depth,prob,prob-uniform",
                    help="searches to compare, comma-separated (prob-net:PATH for a move net)")
    ap.add_argument("--positions", type=Path, default=DATA / "wac.epd", help="EPD suite with bm/am (default WAC)")
    args = ap.parse_args()
    records = list(read_epd(args.positions))[: args.limit]
    print(f"{args.eval}, {len(records)} positions of {args.positions.name} at {args.nodes} nodes each", flush=True)
    for search in args.searches.split(","):
        spec = make_evaluator.parse(f"{args.eval}@search={search}")  # prob-net:PATH loads its net
        engine = make_engine(make_evaluator(spec), spec.search, policy=make_evaluator.policy(spec))
        solved = nodes = depth = 0
        wall = cpu = 0.0
        for record in records:
            engine.new_game()
            t0, c0 = time.perf_counter(), time.process_time()
            result = engine.search(record.board, Limit(nodes=args.nodes))
            wall += time.perf_counter() - t0
            cpu += time.process_time() - c0
            nodes += result.nodes
            depth += result.depth
            solved += is_solved(record, result.move)
        print(f"@search={search:13s} solved {solved:3d}/{len(records)}  mean depth {depth / len(records):5.2f}  "
              f"{nodes} nodes in {wall:.1f} s = {nodes / wall:.0f} nodes/s; CPU {cpu:.1f} s = {nodes / cpu:.0f} "
              "nodes/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
