"""Engine benchmark: our nodes/s against sunfish's, and WAC solved at a fixed time per position.

Run ``make bench-engine`` (it installs sunfish into .venv-sunfish), or::

    python benchmarks/engine.py --sunfish .venv-sunfish/bin/sunfish-uci [--nps-time 1] [--movetime 1]

Every engine, ours included, is driven over UCI by python-chess, so pipes and protocol cost the same
on both sides. nodes/s = total nodes / total time over the fixed position set (Bratko-Kopec, 24
positions), taken from each engine's last ``info`` line. WAC counts a position solved when the
move played is a ``bm`` move and not an ``am`` move. Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import chess.engine

from search.formats.epd import read_epd
from search.games.suite import solve_engine

HERE = Path(__file__).parent
DATA = HERE / "data"


def ours(spec: str) -> list[str]:
    return [sys.executable, "-m", "evolve.cli", "uci", "--eval", spec]


def nodes_per_second(cmd: list[str], boards: list[chess.Board], seconds: float) -> tuple[float, list[float]]:
    """Aggregate nodes/s (total nodes / total time) and the per-position figures."""
    total_nodes, total_time, each = 0, 0.0, []
    with chess.engine.SimpleEngine.popen_uci(cmd, timeout=60) as engine:
        for board in boards:
            info = engine.analyse(board, chess.engine.Limit(time=seconds), game=object())
            nodes, spent = int(info.get("nodes", 0)), float(info.get("time", 0.0))
            if spent > 0:
                total_nodes += nodes
                total_time += spent
                each.append(nodes / spent)
    return (total_nodes / total_time if total_time else 0.0), each


def run_suite(cmd: list[str], path: Path, movetime: float, limit: int | None) -> tuple[int, int, list[str]]:
    records = list(read_epd(path))[:limit]
    solved_ids = []
    with chess.engine.SimpleEngine.popen_uci(cmd, timeout=60) as engine:
        for rec in records:
            row = solve_engine(engine, rec, movetime)
            if row.solved:
                solved_ids.append(row.id)
    return len(solved_ids), len(records), solved_ids


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sunfish", default=".venv-sunfish/bin/sunfish-uci", help="sunfish's UCI executable")
    ap.add_argument("--evals", default=None,
                    help="our evaluators to time, comma-separated (default: material and expert)")
    ap.add_argument("--positions", type=Path, default=DATA / "bk.epd", help="fixed position set for nodes/s")
    ap.add_argument("--nps-time", type=float, default=1.0, help="seconds per position for nodes/s")
    ap.add_argument("--suite", type=Path, default=DATA / "wac.epd", help="tactical suite (default WAC)")
    ap.add_argument("--movetime", type=float, default=1.0, help="seconds per suite position")
    ap.add_argument("--limit", type=int, default=None, help="only the first N suite positions")
    ap.add_argument("--jobs", type=int, default=1, choices=(1, 2),
                    help="2 runs our suite and sunfish's side by side (one core each)")
    ap.add_argument("--skip-suite", action="store_true")
    args = ap.parse_args()

    richest = "expert"  # the richest evaluator: it plays the suite
    evals = args.evals.split(",") if args.evals else ["material", richest]
    sunfish = [args.sunfish]
    if not Path(args.sunfish).exists():
        print(f"sunfish not found at {args.sunfish}: run `make sunfish` or pass --sunfish", file=sys.stderr)
        return 2
    boards = [r.board for r in read_epd(args.positions)]
    print(f"# benchmarks/engine.py  {time.strftime('%Y-%m-%d %H:%M')}  python {platform.python_version()}  "
          f"{platform.machine()}")
    print(f"# nodes/s: {len(boards)} positions of {args.positions.name}, {args.nps_time:g} s each, over UCI")
    figures: dict[str, float] = {}
    for name, cmd in [*((f"mimic[{e}]", ours(e)) for e in evals), ("sunfish", sunfish)]:
        nps, each = nodes_per_second(cmd, boards, args.nps_time)
        figures[name] = nps
        print(f"{name:24s} {nps:10.0f} nodes/s   (median position {statistics.median(each):8.0f})")
    for e in evals:
        print(f"ratio mimic[{e}] / sunfish: {figures[f'mimic[{e}]'] / figures['sunfish']:.2f}")

    if args.skip_suite:
        return 0
    print(f"# {args.suite.name} at {args.movetime:g} s/position (mimic with {richest})")
    jobs = [("mimic[" + richest + "]", ours(richest)), ("sunfish", sunfish)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_suite, cmd, args.suite, args.movetime, args.limit) for _, cmd in jobs]
        results = [f.result() for f in futures]
    for (name, _), (solved, total, _) in zip(jobs, results, strict=True):
        print(f"{name:24s} solved {solved:4d} / {total}")
    only_ours = sorted(set(results[0][2]) - set(results[1][2]))
    only_sunfish = sorted(set(results[1][2]) - set(results[0][2]))
    print(f"solved by mimic only: {len(only_ours)}; by sunfish only: {len(only_sunfish)}")
    print(f"# suite wall time {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
