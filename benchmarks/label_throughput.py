"""Labelling at scale (issue 38): the whole ``mimic label`` and ``mimic datagen`` processes against raw UCI pipes doing
the same searches on the same positions, on 2 cores.

    python benchmarks/label_throughput.py [--positions 2000] [--depth 8] [--jobs 2] [--stockfish PATH]

1. ``label``: ``--positions`` random-playout positions are written to an EPD file; ``mimic label --source FILE.epd
   --depth D --jobs J`` runs as a process (start-up, imports, reading, labelling, the label file and its sidecar);
   then J raw pipes (one Stockfish each, ``ucinewgame``, ``position fen``, ``go depth D``, read until ``bestmove``)
   share the same positions. Goal: the process ≥ 0.85 × the pipes (positions/s).
2. ``datagen``: ``mimic datagen --depth D --jobs J`` with every searched position kept (``--skip-plies 0
   --keep-check --keep-noisy --cap 100000``), so its label file holds every search; then J raw pipes replay the same
   games, each game from ``ucinewgame`` with its hash kept, as datagen searches them. Goal: within 10 % of the
   pipes (searches/s), and the 2,000,000-label figure it implies at the default filters' share of labels.

Every figure includes starting the engine processes. Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mentor.pool import find_stockfish  # noqa: E402
from mentor.samplers import random_playouts  # noqa: E402


def pipe(stockfish: str, games: list[list[str]], depth: int) -> None:
    """One raw pipe: each game's positions in order, ``ucinewgame`` before each game's first."""
    p = subprocess.Popen([stockfish], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write("uci\nsetoption name Hash value 16\nisready\n")
    while p.stdout.readline().strip() != "readyok":
        pass
    for game in games:
        for i, fen in enumerate(game):
            p.stdin.write(("ucinewgame\n" if i == 0 else "") + f"position fen {fen}\ngo depth {depth}\n")
            while not p.stdout.readline().startswith("bestmove"):
                pass
    p.stdin.write("quit\n")
    p.wait()


def pipes(stockfish: str, games: list[list[str]], depth: int, jobs: int) -> float:
    """Seconds for ``jobs`` raw pipes sharing ``games`` (game i to pipe i mod jobs)."""
    t0 = time.perf_counter()
    threads = [threading.Thread(target=pipe, args=(stockfish, games[k::jobs], depth)) for k in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def mimic(*args: str) -> float:
    """Seconds for the whole ``mimic ARGS`` process."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "evolve.cli", *args, "--no-progress"], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def fen_of(line: str) -> str:
    """The FEN of a label line (EPD's four fields, move counters from ``fmvn`` when written)."""
    fields = line.split()
    m = re.search(r"\bfmvn (\d+);", line)
    return " ".join(fields[:4]) + f" 0 {m.group(1) if m else 1}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--stockfish", default=None)
    args = ap.parse_args()
    stockfish = args.stockfish or find_stockfish()
    if stockfish is None:
        print("Stockfish not found (apt-get install stockfish)", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "positions.epd"
        boards = [s.board for s in random_playouts(args.positions, 11)]
        src.write_text("".join(b.epd() + "\n" for b in boards))
        ours = mimic("label", "--mentor", stockfish, "--depth", str(args.depth), "--source", str(src), "--positions",
                     str(args.positions), "--jobs", str(args.jobs), "--out", str(Path(tmp) / "labels.epd"))
        raw = pipes(stockfish, [[b.fen()] for b in boards], args.depth, args.jobs)
        rows.append(("mimic label (whole process)", args.positions, ours, raw))
        out = Path(tmp) / "selfplay.epd"
        ours = mimic("datagen", "--mentor", stockfish, "--depth", str(args.depth), "--positions", str(args.positions),
                     "--jobs", str(args.jobs), "--out", str(out), "--skip-plies", "0", "--keep-check", "--keep-noisy",
                     "--cap", "100000")
        games: dict[str, list[str]] = {}
        for line in out.read_text().splitlines():
            m = re.search(r'id "selfplay:\d+:(\d+):', line)
            assert m is not None
            games.setdefault(m.group(1), []).append(fen_of(line))
        searches = sum(len(g) for g in games.values())
        raw = pipes(stockfish, list(games.values()), args.depth, args.jobs)
        rows.append(("mimic datagen (whole process, every search kept)", searches, ours, raw))
    print(f"# benchmarks/label_throughput.py: Stockfish at depth {args.depth}, {args.jobs} processes or pipes")
    print()
    print("| what | searches | ours (searches/s) | raw pipes (searches/s) | ours ÷ pipes |")
    print("|---|---|---|---|---|")
    for name, n, ours, raw in rows:
        print(f"| {name} | {n} | {n / ours:.1f} | {n / raw:.1f} | {raw / ours:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
