"""Labelling throughput: our mentor pool against a raw UCI pipe and python-chess, on the same positions.

    python benchmarks/label.py [--positions 400] [--depth 10] [--seed 1] [--stockfish PATH]

Prints positions/s for:

* a raw UCI pipe: one Stockfish process, the same commands we send (``ucinewgame``, ``position fen``,
  ``go depth D``), reading until ``bestmove`` and nothing else: the ceiling for one process;
* python-chess's ``SimpleEngine.analyse`` (a new game per position, so the hash is cleared as well);
* ``mentor.label_samples`` (what ``mimic label`` runs) with ``--jobs 1`` and ``--jobs 2``, writing the
  label file;
* two raw pipes side by side, each on all the positions: the most two processes reach on this
  machine, against which ``--jobs 2`` is judged;
* the built-in mentor at depth 2, for the record.

Every figure includes starting its engine processes. Goals (issue 4): ours/raw ≥ 0.95, jobs 2/jobs 1 ≥ 1.8.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import chess
import chess.engine

from mentor.labeller import MentorConfig, find_stockfish, label_samples
from mentor.samplers import Sample, random_playouts


def raw_pipe(stockfish: str, fens: list[str], depth: int) -> float:
    t0 = time.perf_counter()
    p = subprocess.Popen([stockfish], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write("uci\nsetoption name Threads value 1\nsetoption name Hash value 16\nisready\n")
    p.stdin.flush()
    for line in p.stdout:
        if line.startswith("readyok"):
            break
    for fen in fens:
        p.stdin.write(f"ucinewgame\nposition fen {fen}\ngo depth {depth}\n")
        p.stdin.flush()
        for line in p.stdout:
            if line.startswith("bestmove"):
                break
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait()
    return len(fens) / (time.perf_counter() - t0)


def raw_pipes_side_by_side(stockfish: str, fens: list[str], depth: int) -> float:
    """Two raw pipes at once, each on every position: what two engine processes can do here."""
    rates: list[float] = []
    threads = [threading.Thread(target=lambda: rates.append(raw_pipe(stockfish, fens, depth))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(rates)


def python_chess(stockfish: str, boards: list[chess.Board], depth: int) -> float:
    t0 = time.perf_counter()
    with chess.engine.SimpleEngine.popen_uci(stockfish) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        for b in boards:
            engine.analyse(b, chess.engine.Limit(depth=depth), game=object())
    return len(boards) / (time.perf_counter() - t0)


def ours(samples: list[Sample], config: MentorConfig, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        summary = label_samples(samples, config, Path(tmp) / "labels.epd", jobs=jobs)
        elapsed = time.perf_counter() - t0
    assert summary.labelled == len(samples), summary
    return len(samples) / elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stockfish", default=find_stockfish())
    ap.add_argument("--builtin-positions", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5,
                    help="rounds, each measuring everything in a rotated order; ratios are medians of per-round ratios")
    args = ap.parse_args()
    if not args.stockfish:
        print("Stockfish not found (apt-get install stockfish)", file=sys.stderr)
        return 2
    samples = list(random_playouts(args.positions, args.seed))
    fens = [s.board.fen() for s in samples]
    config = MentorConfig("uci", command=(args.stockfish,), depth=args.depth)
    print(f"# benchmarks/label.py: {len(samples)} random-playout positions, Stockfish at depth {args.depth}, "
          f"{args.repeat} rounds (order rotated each round), medians")
    measure = {
        "raw": lambda: raw_pipe(args.stockfish, fens, args.depth),
        "raw2": lambda: raw_pipes_side_by_side(args.stockfish, fens, args.depth),
        "pc": lambda: python_chess(args.stockfish, [s.board for s in samples], args.depth),
        "one": lambda: ours(samples, config, 1),
        "two": lambda: ours(samples, config, 2),
    }
    runs: dict[str, list[float]] = {k: [] for k in measure}
    order = list(measure)
    for r in range(args.repeat):
        for k in order[r % len(order):] + order[: r % len(order)]:  # rotated each round: drift hits all alike
            runs[k].append(measure[k]())

    def paired(a: str, b: str) -> str:
        """Median of the per-round ratios a/b (each round measures both at nearly the same time)."""
        ratios = [x / y for x, y in zip(runs[a], runs[b], strict=True)]
        unit = "raw" if b == "raw" else "jobs 1"
        return f"{statistics.median(ratios):5.2f} x {unit} (rounds {min(ratios):.2f}-{max(ratios):.2f})"

    raw, raw2, pc, one, two = (statistics.median(runs[k]) for k in ("raw", "raw2", "pc", "one", "two"))
    print(f"raw UCI pipe (1 process)      {raw:8.1f} positions/s")
    print(f"python-chess analyse          {pc:8.1f} positions/s   {paired('pc', 'raw')}")
    print(f"mimic label --jobs 1          {one:8.1f} positions/s   {paired('one', 'raw')}")
    print(f"mimic label --jobs 2          {two:8.1f} positions/s   {paired('two', 'one')}")
    print(f"2 raw pipes side by side      {raw2:8.1f} positions/s   {paired('raw2', 'raw')}"
          "  <- this machine's ceiling for 2 processes")
    builtin = samples[: args.builtin_positions]
    b1 = ours(builtin, MentorConfig("builtin", depth=2), 1)
    b2 = ours(builtin, MentorConfig("builtin", depth=2), 2)
    print(f"built-in mentor, depth 2      {b1:8.1f} positions/s (jobs 1), {b2:.1f} (jobs 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
