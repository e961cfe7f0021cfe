"""A markdown page of match and suite results, taken from the logs of ``mimic match`` and ``mimic suite``.

    python tools/match_table.py --title "..." LOG [LOG ...] > OUT.md

For every log (named by its file name without ``.log``): a match log's score, Elo, pentanomial and speed lines,
or a suite log's last ``solved`` line, as the commands printed them. Nothing is recomputed or edited: the page
gathers in one place what the logs beside it say.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from search.runtime.provenance import describe

KEEP = ("Score of", "Elo difference", "Pentanomial")


def section(path: Path) -> list[str]:
    """The lines of one log worth a table: a match's result lines, or a suite's last ``solved`` line."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    kept = [ln for ln in lines if ln.startswith(KEEP) or " games in " in ln]
    solved = [ln for ln in lines if ": solved " in ln]
    return kept or solved[-1:] or ["(not finished: no result line in the log)"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", required=True)
    ap.add_argument("logs", nargs="+", type=Path)
    args = ap.parse_args()
    out = [f"# {args.title}", "", f"Gathered from the logs here by `tools/match_table.py` ({describe()}).", ""]
    for path in args.logs:
        out += [f"## {path.stem}", "", "```", *section(path), "```", ""]
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
