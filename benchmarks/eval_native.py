"""Evaluations per second of each native evaluator of the compiled core against its Python form, same positions.

    python benchmarks/eval_native.py [--positions 20000] [--seed 1] [--repeat 3]

Positions come from seeded random playouts (0-160 plies from the start), so every game phase is represented. For
each evaluator with a native form (material, the expert, the shipped paper and rich organisms of results/): the
Python ``evaluate(board)`` over the positions; the core's ``search.core.evaluate.evaluate`` called from a compiled
loop (as the compiled search calls it: no Python between evaluations); and the same called once per position from
Python (what a Python caller pays per call). The native sums are checked against Python's. The best of
``--repeat`` runs (the machine is shared: the fastest run is the one least disturbed); one core. Passes or fails
nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess
import numpy as np

from organisms.expert import Expert
from organisms.material import Material
from organisms.organism import Organism
from search.core.board import from_board
from search.core.evaluate import evaluate, native_args
from search.core.jit import njit

ROOT = Path(__file__).resolve().parents[1]


def playouts(n: int, seed: int) -> list[chess.Board]:
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    while len(boards) < n:
        board = chess.Board()
        for _ in range(rng.randrange(0, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.copy(stack=False))
    return boards[:n]


@njit(cache=True)
def _loop(bbs, mbs, sts, kind, wi, wf):  # type: ignore[no-untyped-def]
    total = 0
    for i in range(bbs.shape[0]):
        total += evaluate(bbs[i], mbs[i], sts[i], kind, wi, wf)
    return total


def _best_rate(n: int, run: Callable[[], int], repeat: int) -> tuple[float, int]:
    times, result = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t0)
    return n / min(times), result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="runs per figure; the best is printed")
    args = ap.parse_args()
    boards = playouts(args.positions, args.seed)
    arrays = [from_board(b) for b in boards]
    bbs = np.stack([p.bb for p in arrays])
    mbs = np.stack([p.mb for p in arrays])
    sts = np.stack([p.st for p in arrays])
    evaluators = {"material": Material(), "expert": Expert(),
                  "paper (results/paper-stockfish)": Organism.load(ROOT / "results/paper-stockfish/organism.json"),
                  "rich (results/rich-stockfish)": Organism.load(ROOT / "results/rich-stockfish/organism.json")}
    print(f"# benchmarks/eval_native.py: {len(boards)} positions from random playouts (seed {args.seed}), one core, "
          f"best of {args.repeat}")
    print(f"{'evaluator':34s} {'python/s':>10s} {'native/s':>12s} {'x':>7s} {'per call from python/s':>24s}")
    for name, ev in evaluators.items():
        kind, wi, wf = native_args(ev.native_form())
        _loop(bbs[:1], mbs[:1], sts[:1], kind, wi, wf)  # loaded (or compiled) before timing
        py_rate, py_sum = _best_rate(len(boards), lambda ev=ev: sum(ev.evaluate(b) for b in boards), args.repeat)
        nat_rate, nat_sum = _best_rate(len(boards), lambda k=kind, i=wi, f=wf: int(_loop(bbs, mbs, sts, k, i, f)),
                                         args.repeat)
        call_rate, call_sum = _best_rate(len(boards), lambda k=kind, i=wi, f=wf: sum(
            int(evaluate(p.bb, p.mb, p.st, k, i, f)) for p in arrays), args.repeat)
        if not py_sum == nat_sum == call_sum:
            print(f"{name}: sums differ: python {py_sum}, native {nat_sum}, per call {call_sum}")
            return 1
        print(f"{name:34s} {py_rate:10.0f} {nat_rate:12.0f} {nat_rate / py_rate:7.1f} {call_rate:24.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
