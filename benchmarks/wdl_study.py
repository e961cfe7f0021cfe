"""The win-probability study's table (results/wdl-study/run.sh): one row per evolved organism.

    python benchmarks/wdl_study.py results/wdl-study > results/wdl-study/study.md

For each row folder (``l1``, ``wdl``, ...) it reads what run.sh wrote: the match against the expert at 2,000 nodes
(``vs-expert-2000n.log``: score, Elo, games), STS at 10,000 nodes (``sts-10000n.log``: points of 15,000), the GA's
summary (held-out error in centipawns and, for a wdl run, in the loss) and the winner's material genes (centipawns)
against PeSTO's (the mean of its middle-game and endgame values), both as genes and as *effective* values (the gene
plus the mean of the piece's piece-square genes over its squares and both phases, which a piece carries wherever it
stands). A row not measured yet shows dashes. Passes or fails nothing.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from organisms.pesto import EG_VALUE, MG_VALUE
from search.runtime.provenance import describe

ROWS = ("l1", "fit-l1", "wdl", "fit-wdl", "wdl-init", "wdl-fit-s10k", "fit-wdl-quiet", "fit-wdl-result",
        "fit-wdl-self", "fit-wdl-50k")
PIECES = ("pawn", "knight", "bishop", "rook", "queen")
PESTO = {p: (MG_VALUE[i] + EG_VALUE[i]) / 2 for i, p in enumerate(PIECES)}


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    found = list(matches)
    return found[-1] if found else None


def match_line(folder: Path) -> str:
    log = folder / "vs-expert-2000n.log"
    text = log.read_text() if log.exists() else ""
    # run.sh appends a rerun's log: the last summary counts every game
    score = _last(re.finditer(r"^Score of .* vs expert: (\d+) - (\d+) - (\d+)\s+\[([\d.]+)\] (\d+)", text, re.M))
    elo = _last(re.finditer(r"^Elo difference: (\S+) \+/- (\S+)", text, re.M))
    if not score:
        games = re.findall(r"\[([\d.]+)\]\s*$", text, re.M)
        return f"{float(games[-1]):.1%} after {len(games)} games (running)" if games else "–"
    w, l_, d, s, n = score.groups()
    return f"{float(s):.1%} ({w}-{l_}-{d}, {n} games; Elo {elo.group(1)} ± {elo.group(2)})" if elo else f"{s} ({n})"


def sts_points(folder: Path) -> str:
    log = folder / "sts-10000n.log"
    m = _last(re.finditer(r"points (\d+) / (\d+)", log.read_text())) if log.exists() else None
    return m.group(1) if m else "–"


def played(folder: Path) -> Path:
    """The organism file the row played, as its match names it (``organism.json`` before the match)."""
    log = folder / "vs-expert-2000n.log"
    named = re.match(r"organism:(\S+) vs expert", log.read_text()) if log.exists() else None
    return Path(named.group(1)) if named else folder / "organism.json"


def errors(folder: Path) -> str:
    """The GA winner's errors from its summary; for an exact fit's nearest organism (no GA), its errors from the
    fit's log beside it (cp, then the wdl loss for a wdl fit)."""
    summary = folder / "summary.md"
    if summary.exists():
        for line in summary.read_text().splitlines():
            if line.startswith("| GA winner |"):
                return " / ".join(c.strip() for c in line.strip("|").split("|")[1:])
        return "–"
    path = played(folder)
    log = path.parent / "fit.log"
    kind = {"ceiling-l1.json": "L1", "ceiling-wdl.json": "WDL"}.get(path.name)
    if kind is None or not log.exists():
        return "–"
    lines = log.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{kind} fit ("):
            cp = re.search(r"nearest organism (\S+) / (\S+)$", line)
            loss = re.search(r"nearest organism (\S+) / (\S+)$", lines[i + 1]) if kind == "WDL" else None
            text = f"fit: {cp.group(1)} / {cp.group(2)} cp" if cp else "–"
            return text + (f"; loss {loss.group(1)} / {loss.group(2)}" if loss else "")
    return "–"


def material(folder: Path) -> tuple[str, str]:
    path = played(folder)
    if not path.exists():
        return "–", "–"
    genes = {g["name"]: float(g["value"]) for g in json.loads(path.read_text())["genes"]}
    plain, effective = [], []
    for p in PIECES:
        pst = [v for k, v in genes.items() if k.startswith(f"pst_{p}_")]
        plain.append(genes[p] / PESTO[p])
        effective.append((genes[p] + (sum(pst) / len(pst) if pst else 0.0)) / PESTO[p])
    show = ", ".join(f"{round(genes[p])}" for p in PIECES)
    return (f"{show} ({sum(plain) / len(plain):.2f} of PeSTO)",
            f"{sum(effective) / len(effective):.2f} of PeSTO")


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "results/wdl-study")
    print(f"# Win-probability study: one factor at a time\n\nMade by `benchmarks/wdl_study.py {root}`; {describe()}.\n")
    print("Score against the expert at 2,000 nodes a move (the organism's view); STS points of 15,000 at 10,000 nodes;")
    print("the error (training / held out) of the GA winner as its summary gives it (a wdl run: loss, then cp), or of")
    print("an exact fit's nearest organism from its fit.log (cp, and a wdl fit's loss; each row on its own split);")
    print("material genes in cp (pawn, knight, bishop, rook, queen) and their mean ratio to PeSTO's (mg+eg)/2, plain")
    print("and effective (gene + the piece's mean piece-square gene).\n")
    print("| row | vs expert, 2,000 nodes | STS (10,000 nodes) | error | material genes | effective |")
    print("|---|---|---|---|---|---|")
    for name in ROWS:
        folder = root / name
        plain, effective = material(folder)
        print(f"| {name} | {match_line(folder)} | {sts_points(folder)} | {errors(folder)} | {plain} | {effective} |")


if __name__ == "__main__":
    main()
