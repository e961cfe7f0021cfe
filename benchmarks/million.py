"""A million labels: write a synthetic label file, then time ``mimic evolve`` and ``mimic fit`` on it.

    python benchmarks/million.py [--labels 1000000] [--out /tmp/million] [--jobs 2] [--generations 300]
    python benchmarks/million.py --labels 1000000 --write-only      # only the label file

Labels (seeded, nothing here is committed): positions of the games in ``data/player-games/*.pgn`` from
ply 8 on, plus 2% from ``mentor.samplers.random_playouts`` (more when the games hold too few: they hold about
1.45 million); ``ce`` = the evaluation of a fixed
organism (``results/paper-builtin/organism.json``, side to move's view, centipawns) plus Gaussian noise
(σ = 40 cp), ``acd 0``, and a ``pv`` of 0–3 random legal moves (so the PV walk and quiescence of
``--target leaf`` do real work). Then, each in a fresh process with ``MIMIC_CACHE`` in ``OUT/cache``
(emptied first):

1. ``mimic evolve`` with an empty cache (first run: parse, resolve, extract features, fit, evolve);
2. ``mimic evolve`` again (everything cached);
3. ``mimic fit`` (cached);
4. ``mimic train-pnet --epochs 1`` (labels cached): its log's epoch seconds against the whole process's time;
5. feature extraction alone on the cached target rows, cache off: positions/s on ``--jobs`` cores.

It prints each wall time and the process's peak resident memory (``getrusage`` of the child).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import numpy as np

REPO = Path(__file__).resolve().parent.parent
GAMES = sorted((REPO / "data" / "player-games").glob("*.pgn"))
ORGANISM = REPO / "results" / "paper-builtin" / "organism.json"
NOISE_CP = 40.0


def _lines(boards: list[chess.Board], rng: random.Random, seed: int, source: str) -> list[str]:
    """EPD label lines of ``boards``: a fixed organism's score plus noise, ``acd 0``, a short PV."""
    from organisms import Organism
    from organisms.features import bitboard_row, feature_matrix

    organism = Organism.load(ORGANISM)
    rows = np.array([bitboard_row(b) for b in boards], dtype=np.uint64).reshape(-1, 9)
    scores = feature_matrix(rows, use_cache=False).astype(np.float64) @ organism.weights
    scores += np.random.default_rng([seed, 11]).normal(0.0, NOISE_CP, len(scores))
    out = []
    for board, ce in zip(boards, scores, strict=True):
        pv: list[chess.Move] = []
        b = board.copy(stack=False)
        for _ in range(rng.randint(0, 3)):
            moves = list(b.legal_moves)
            if not moves:
                break
            pv.append(rng.choice(moves))
            b.push(pv[-1])
        ops: dict[str, object] = {"ce": round(float(ce)), "acd": 0}
        if pv:
            ops["pv"] = pv
        ops["c0"] = source
        out.append(board.epd(**ops))  # type: ignore[arg-type]
    return out


def _games_task(path: str, seed: int, limit: int) -> list[str]:
    """Labels of the positions of one PGN file's games, from ply 8 on (at most ``limit``)."""
    rng = random.Random(seed)
    boards = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        while len(boards) < limit and (game := chess.pgn.read_game(fh)) is not None:
            board = game.board()
            for ply, move in enumerate(game.mainline_moves(), 1):
                board.push(move)
                if ply >= 8 and not board.is_game_over():
                    boards.append(board.copy(stack=False))
    return _lines(boards, rng, seed, Path(path).name)


def _playouts_task(n: int, seed: int) -> list[str]:
    from mentor.samplers import random_playouts

    return _lines([s.board for s in random_playouts(n, seed=seed)], random.Random(seed), seed, "random")


def write_labels(path: Path, n: int, seed: int, jobs: int) -> float:
    """Write ``n`` labels to ``path``; seconds taken."""
    from joblib import delayed

    from search.runtime.workers import parallel

    t0 = time.perf_counter()
    parts = parallel(jobs)(delayed(_games_task)(str(p), seed * 1000 + i, n) for i, p in enumerate(GAMES))
    games = [line for part in parts for line in part]
    n_random = max(n // 50, n - len(games))  # 2%, or what the games lack (the champions' games hold ~1.45 million)
    quarter = -(-n_random // 4)
    parts = parallel(jobs)(delayed(_playouts_task)(quarter, seed * 1000 + 100 + i) for i in range(4))
    randoms = [line for part in parts for line in part][:n_random]
    if len(games) + len(randoms) < n:
        sys.exit(f"only {len(games) + len(randoms)} positions available, fewer than {n}")
    lines = games[:n - len(randoms)] + randoms
    random.Random(seed).shuffle(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return time.perf_counter() - t0


def measure(command: list[str], env: dict[str, str], log: Path) -> tuple[float, float, int]:
    """Run ``command`` (its output to ``log``): wall seconds, peak RSS MiB of the process, exit code.
    One child per call through a fresh interpreter, so RUSAGE_CHILDREN's peak is this command's."""
    probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1], 'w'), stderr=subprocess.STDOUT); "
             "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)")
    out = subprocess.run([sys.executable, "-c", probe, str(log), *command], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024, int(out[2])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", type=int, default=1_000_000)
    ap.add_argument("--out", type=Path, default=Path("/tmp/million"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--generations", type=int, default=300)
    ap.add_argument("--write-only", action="store_true")
    ap.add_argument("--skip-write", action="store_true", help="reuse OUT/labels-N.epd")
    args = ap.parse_args()

    labels = args.out / f"labels-{args.labels}.epd"
    if not args.skip_write or not labels.exists():
        secs = write_labels(labels, args.labels, args.seed, args.jobs)
        print(f"wrote {args.labels} labels to {labels} ({labels.stat().st_size / 1e6:.0f} MB) in {secs:.1f} s")
    if args.write_only:
        return 0
    cache = args.out / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, "MIMIC_CACHE": str(cache)}
    mimic = [sys.executable, "-m", "evolve.cli"]
    evolve = [*mimic, "evolve", str(labels), "--jobs", str(args.jobs), "--no-progress", "--seed", "1",
              "--generations", str(args.generations)]
    runs = [("evolve, first run (empty cache)", [*evolve, "--out", str(args.out / "run1")]),
            ("evolve, second run (cached)", [*evolve, "--out", str(args.out / "run2")]),
            ("fit l1 + l2 (cached)",
             [*mimic, "fit", str(labels), "--jobs", str(args.jobs), "--loss", "l1", "--loss", "l2"]),
            ("train-pnet, one epoch (labels cached)",
             [*mimic, "train-pnet", str(labels), "--jobs", str(args.jobs), "--epochs", "1",
              "--out", str(args.out / "pnet")])]
    for name, command in runs:
        shutil.rmtree(args.out / "run1", ignore_errors=True) if "first" in name else None
        shutil.rmtree(args.out / "run2", ignore_errors=True) if "second" in name else None
        shutil.rmtree(args.out / "pnet", ignore_errors=True) if "pnet" in name else None
        log = args.out / (name.split(",")[0].split()[0] + ("-1" if "first" in name else "-2") + ".log")
        secs, rss, rc = measure(command, env, log)
        print(f"{name}: {secs:.1f} s, peak RSS {rss:.0f} MiB, exit {rc} (log {log})")
        for line in log.read_text().splitlines()[-4:]:
            print(f"    {line}")

    os.environ["MIMIC_CACHE"] = str(cache)
    from evolve.data.cache import resolve_labels
    from organisms.features import feature_matrix

    rows = resolve_labels(labels).rows
    t0 = time.perf_counter()
    feature_matrix(rows, n_jobs=args.jobs, use_cache=False)
    secs = time.perf_counter() - t0
    print(f"feature extraction alone: {len(rows)} positions in {secs:.1f} s = {len(rows) / secs:,.0f} positions/s "
          f"on {args.jobs} workers; this process's peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
