"""Accuracy tables recounted from the query CSVs of ``mimic recognize classify --csv``, as markdown.

    python tools/recognition_table.py --title "..." --command "..." k1=FILE.csv k4=FILE.csv ... > OUT.md

For every CSV (one value of k): the queries whose header names a trained player, top-1 and top-3 accuracy,
and chance (1 / players, 3 / players); then top-1 per player. Every number is recounted from the CSV's rows
(``predicted`` against ``player``, the top 3 from the ``score:NAME`` columns) by
``evolve.recognition.classification.read_csv_accuracy`` and the same rule per player; nothing is copied from a log.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from evolve.recognition.classification import read_csv_accuracy
from search.runtime.provenance import describe


def per_player(path: Path) -> tuple[list[str], dict[str, tuple[int, int]]]:
    """The players (the score columns, in order) and each one's (right, queries) at top-1."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        players = [c[6:] for c in reader.fieldnames or [] if c.startswith("score:")]
        out = {p: (0, 0) for p in players}
        for r in reader:
            if r["player"] in out and int(r["positions"]) > 0:
                right, n = out[r["player"]]
                out[r["player"]] = (right + (r["predicted"] == r["player"]), n + 1)
    return players, out


def table(files: list[tuple[str, Path]], title: str, command: str) -> str:
    """The markdown page (see the module docstring)."""
    lines = [f"# {title}", "", f"Recounted from the query CSVs by `tools/recognition_table.py` ({describe()}).", ""]
    if command:
        lines += ["Made by:", "", "```", command, "```", ""]
    lines += ["| k | queries | top-1 | top-3 | chance top-1 | chance top-3 | CSV |", "|---|---|---|---|---|---|---|"]
    columns: list[tuple[str, dict[str, tuple[int, int]]]] = []
    players: list[str] = []
    for k, path in files:
        top1, top3, n = read_csv_accuracy(path)
        players, mine = per_player(path)
        columns.append((k, mine))
        p = len(players)
        lines.append(f"| {k} | {n} | {top1:.1%} | {top3:.1%} | {1 / p:.1%} | {min(3, p) / p:.1%} | `{path.name}` |")
    lines += ["", "Top-1 per player (right / queries):", "",
              "| player | " + " | ".join(f"k = {k}" for k, _ in columns) + " |",
              "|---|" + "---|" * len(columns)]
    for name in players:
        cells = []
        for _, mine in columns:
            right, n = mine.get(name, (0, 0))
            cells.append(f"{right / n:.0%} ({right}/{n})" if n else "–")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", default="Recognition accuracy")
    ap.add_argument("--command", default="", help="the command that made the CSVs (shown in a code block)")
    ap.add_argument("csvs", nargs="+", metavar="K=FILE.csv")
    args = ap.parse_args(argv)
    files = []
    for item in args.csvs:
        k, eq, name = item.partition("=")
        if not eq:
            print(f"recognition_table: expected K=FILE.csv, got {item!r}", file=sys.stderr)
            return 2
        files.append((k, Path(name)))
    sys.stdout.write(table(files, args.title, args.command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
