"""In-process search speed: today's engine and the compiled core side by side, nodes/s per evaluator.

    python benchmarks/search_nps.py [--depth 4 | --movetime S]
                                    [--evals material,random:1,rich-random:1,expert,pnet:results/sf-pnet/pnet.npz,
                                             net:results/giraffe-selfplay/boot-all/net.npz]
                                    [--positions benchmarks/data/bk.epd] [--core-seconds 2] [--search depth|prob]

For each evaluator, today's engine in Python (``search.Engine``, what ``@search=python`` plays) and the engine the
default search builds (``search.make_engine``: the compiled core, ``search/core/``, for an evaluator with a native
form) search every position in turn at a fixed depth (``new_game`` before each, as a GUI sends ``ucinewgame``: the
transposition table is cleared, the evaluation cache stays), with no UCI pipes in the way, so the figure is the
search and the evaluation alone. The same depth gives both the same kind of tree (the node counts are printed:
they differ only by move order, the core's generation order not being python-chess's). The core's pass over the
positions takes milliseconds, so it is repeated until it has run ``--core-seconds`` (every repetition the same
tree). nodes/s = total nodes / total seconds, by the wall clock and by the CPU time of this process (the CPU figure
holds better on a shared machine); the last column is the core's CPU nodes/s over Python's. The first call of the
core in a process loads it from numba's cache (or compiles it, once a machine: ``make`` does that); one warm-up
search keeps that out of the figures. With ``--movetime S`` each engine searches each position once for S seconds
instead, and the lines give the nodes and the depth a move each reaches (issue 62's "what it buys": at 0.1 s a
move, as the tournament plays). ``--search prob`` measures Giraffe's probability-limited search instead (the compiled
one against ``@search=prob-python``; ``--depth`` then counts its iterations). Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import chess

from evolve.players import make_evaluator
from search import Limit, make_engine
from search.choose import engine_label
from search.formats.epd import read_epd

DATA = Path(__file__).parent / "data"
PYTHON_OF = {"depth": "python", "prob": "prob-python"}
"""The search measured (``--search``) -> the same search in today's engine."""
SF_PNET = os.path.relpath(Path(__file__).parent.parent / "results" / "sf-pnet" / "pnet.npz")
"""The perspective net of ``results/sf-pnet`` (its path from the working folder, so the spec prints short)."""
GIRAFFE = os.path.relpath(Path(__file__).parent.parent / "results" / "giraffe-selfplay" / "boot-all" / "net.npz")
"""The self-play Giraffe net (issue 63: at least 10x today's nodes/s and 0.3x the expert's in the core)."""


def run(engine: object, boards: list[chess.Board], depth: int, movetime: float | None = None,
        depths: list[int] | None = None) -> tuple[int, float, float]:
    """Total nodes, wall seconds and CPU seconds of depth-``depth`` searches (or ``movetime``-second ones, their
    depths appended to ``depths``) of ``boards`` by ``engine``."""
    nodes, wall, cpu = 0, 0.0, 0.0
    limit = Limit(depth=depth) if movetime is None else Limit(movetime=movetime)
    for board in boards:
        engine.new_game()  # type: ignore[attr-defined]
        t0, c0 = time.perf_counter(), time.process_time()
        result = engine.search(board, limit)  # type: ignore[attr-defined]
        if depths is not None:
            depths.append(result.depth)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        nodes += result.nodes
    return nodes, wall, cpu


def run_for(engine: object, boards: list[chess.Board], depth: int, seconds: float) -> tuple[int, int, float, float]:
    """:func:`run` repeated until ``seconds`` of wall time have passed: (nodes of one pass, passes, total wall seconds,
    total CPU seconds)."""
    passes, nodes, wall, cpu = 0, 0, 0.0, 0.0
    while passes == 0 or wall < seconds:
        n, w, c = run(engine, boards, depth)
        passes, nodes, wall, cpu = passes + 1, n, wall + w, cpu + c
    return nodes, passes, wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=4, help="plies per position (default 4)")
    ap.add_argument("--movetime", type=float, default=None,
                    help="search each position this many seconds instead: nodes and depth a move")
    ap.add_argument("--evals", default=f"material,random:1,rich-random:1,expert,pnet:{SF_PNET},net:{GIRAFFE}",
                    help="player specs, comma-separated (random:1 is an organism of the paper layout, rich-random:1 "
                         "of the rich one; the perspective net taught by Stockfish, the mean of five members, by "
                         "default, and the self-play Giraffe net)")
    ap.add_argument("--positions", type=Path, default=DATA / "bk.epd", help="EPD position set (default Bratko-Kopec)")
    ap.add_argument("--core-seconds", type=float, default=2.0,
                    help="repeat the core's pass over the positions for at least this long (default 2)")
    ap.add_argument("--search", choices=tuple(PYTHON_OF), default="depth",
                    help="the search measured: depth-limited (default) or probability-limited (--depth: iterations)")
    args = ap.parse_args()
    boards = [r.board for r in read_epd(args.positions)]
    what = f"depth {args.depth}" if args.movetime is None else f"{args.movetime:g} s a position"
    print(f"{what} on {len(boards)} positions of {args.positions.name}")
    for spec in args.evals.split(","):
        evaluator = make_evaluator(spec)
        core = make_engine(evaluator, args.search)
        core.search(boards[0], Limit(depth=2))  # load (or compile) the core outside the figures
        if args.movetime is not None:
            python = make_engine(evaluator, PYTHON_OF[args.search])
            for name, engine in (("python", python), (engine_label(core), core)):
                depths: list[int] = []
                nodes, wall, _ = run(engine, boards, 0, args.movetime, depths)
                mean_depth = sum(depths) / len(depths)
                print(f"{spec:14s} {name:13s}: {nodes / len(boards):9.0f} nodes a move, depth {mean_depth:4.1f} "
                      f"(min {min(depths)}, max {max(depths)}), {nodes / wall:9.0f} nodes/s", flush=True)
            continue
        c_nodes, passes, c_wall, c_cpu = run_for(core, boards, args.depth, args.core_seconds)
        p_nodes, p_wall, p_cpu = run(make_engine(evaluator, PYTHON_OF[args.search]), boards, args.depth)
        c_total = c_nodes * passes
        ratio = (c_total / c_cpu) / (p_nodes / p_cpu)
        print(f"{spec:14s} python: {p_nodes:8d} nodes in {p_wall:7.2f} s = {p_nodes / p_wall:9.0f} nodes/s "
              f"(CPU {p_nodes / p_cpu:9.0f})   {engine_label(core)}: {c_nodes:8d} nodes x {passes} in "
              f"{c_wall:5.2f} s = {c_total / c_wall:9.0f} nodes/s (CPU {c_total / c_cpu:9.0f})   x{ratio:.1f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
