"""summary.md of an engine set's replay run (results/replay-engines/run.sh): for each ranking, top-1 and top-3
accuracy at k = 1 over the game sides whose header names a candidate, each player's sides recognised, how often
each candidate is predicted against its share of the sides (the issue's bound: 1.5 times), and the time a side.

Usage: python tools/replay_summary.py DIR  (reads DIR/replay-RANKING.csv and .log; prints markdown)
"""

from __future__ import annotations

import argparse
import csv
import re
from collections import Counter
from pathlib import Path

RANKINGS = ("normalised", "raw")
BOUND = 1.5
"""A candidate predicted more than this many times its share of the sides is over-predicted."""


def table(folder: Path, ranking: str) -> list[str]:
    """The markdown lines of one ranking's run (nothing when its CSV is missing)."""
    path = folder / f"replay-{ranking}.csv"
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["player"] and int(r["positions"]) > 0]
    log = (folder / f"replay-{ranking}.log").read_text(encoding="utf-8")
    seconds = re.search(r"^seconds: ([0-9.]+)", log, re.M)
    players = [k[6:] for k in rows[0] if k.startswith("score:")] if rows else []
    truth = Counter(r["player"] for r in rows)
    predicted = Counter(r["predicted"] for r in rows)
    right = Counter(r["player"] for r in rows if r["predicted"] == r["player"])
    top3 = 0
    for r in rows:
        scores = {p: float(r[f"score:{p}"]) for p in players if r[f"score:{p}"]}
        top3 += r["player"] in sorted(scores, key=lambda p: -scores[p])[:3]
    n = len(rows)
    out = [f"## Ranking: {ranking}", "",
           f"- top-1 accuracy at k = 1: **{sum(right.values()) / n:.1%}** of {n} game sides; top-3 {top3 / n:.1%}"]
    if seconds and ranking == RANKINGS[0]:
        out.append(f"- time: {float(seconds.group(1)):.0f} s for {n} sides on 2 cores (`--jobs 2`, an empty cache), "
                   f"**{float(seconds.group(1)) / n:.1f} s a side**")
    elif seconds:
        out.append(f"- time: {float(seconds.group(1)):.0f} s (every replay read back from the cache)")
    over = [p for p in players if truth[p] and predicted[p] > BOUND * truth[p]]
    out.append(f"- predicted more than {BOUND:g} x its share: {', '.join(over) if over else 'none'}")
    out += ["", "| player | sides | recognised | predicted |", "|---|---|---|---|"]
    out += [f"| {p} | {truth[p]} | {right[p]} | {predicted[p]} |" for p in players]
    return [*out, ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    args = ap.parse_args()
    lines = ["# Replay on an engine set off the reference set's openings and settings", "",
             f"Made by `{args.folder}/run.sh`; the games' settings in `games.pgn.json`, each run's output in "
             "`replay-RANKING.log`, its queries in `replay-RANKING.csv`.", ""]
    for ranking in RANKINGS:
        lines += table(args.folder, ranking)
    print("\n".join(lines).rstrip())


if __name__ == "__main__":
    main()
