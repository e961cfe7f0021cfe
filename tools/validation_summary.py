"""Write results/validation/summary.md from the PGNs, CSVs and logs that results/validation/run.sh made.

    python tools/validation_summary.py

Every number comes from those files: match records are recounted from the PGNs (rounds k.1 have player A
as White), Elo and intervals with search.stats, suite counts from the CSVs.
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import chess.pgn

from search.stats import elo

ROOT = Path(__file__).resolve().parent.parent
V = ROOT / "results" / "validation"
PLAYERS = {"evolved": "evolved organism (results/paper-stockfish)", "expert": "expert",
           "random": "random organism (seed 1)"}


def record(pgn: Path) -> tuple[int, int, int, dict[str, int]] | None:
    """Player A's wins, draws, losses in a match PGN, and its terminations."""
    if not pgn.exists():
        return None
    w = d = lo = 0
    terms: dict[str, int] = {}
    with open(pgn) as fh:
        while (h := chess.pgn.read_headers(fh)) is not None:
            res = h.get("Result")
            if res not in ("1-0", "0-1", "1/2-1/2"):
                continue
            a_white = h.get("Round", "").endswith(".1")
            score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[res]
            a = score if a_white else 1 - score
            w += a == 1
            d += a == 0.5
            lo += a == 0
            terms[h.get("Termination", "?")] = terms.get(h.get("Termination", "?"), 0) + 1
    return w, d, lo, terms


def elo_cell(w: int, d: int, lo: int) -> str:
    e = elo(w, d, lo)
    if not math.isfinite(e.elo) or not math.isfinite(e.error):
        return f"{e.elo:+.0f} (no finite interval: the 95% interval reaches a 0% or 100% score)"
    return f"{e.elo:+.0f} ± {e.error:.0f}"


def match_row(label: str, name: str, folder: Path = V) -> str:
    r = record(folder / f"{name}.pgn")
    if r is None:
        return f"| {label} | (not run) | | | |"
    w, d, lo, terms = r
    n = w + d + lo
    e = elo(w, d, lo)
    t = ", ".join(f"{k} {v}" for k, v in sorted(terms.items()))
    return (f"| {label} | {n} | +{w} ={d} -{lo} | {100 * e.score:.1f}% | {elo_cell(w, d, lo)} | "
            f"{100 * e.los:.1f}% | {t} |")


def suite(name: str) -> tuple[int, int, int, int] | None:
    path = V / f"{name}.csv"
    if not path.exists():
        return None
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    return (sum(r["solved"] == "True" for r in rows), len(rows), sum(int(r["points"]) for r in rows),
            sum(int(r["max_points"]) for r in rows))


def goals() -> list[str]:
    """Issue 6's goals beside the measured scores."""
    out = ["Goals:", "", "| goal | measured | met |", "|---|---|---|"]
    for text, pgn, need in (("evolved vs random ≥ 95%", V / "evolved-vs-random.pgn", 0.95),
                            ("evolved vs expert ≥ 50% at equal time", V / "evolved-vs-expert.pgn", 0.50),
                            ("the same, mentor = expert (results/paper-builtin)",
                             ROOT / "results" / "paper-builtin" / "evolved-vs-expert.pgn", 0.50),
                            ("evolved vs sunfish ≥ 50% at equal time", V / "evolved-vs-sunfish.pgn", 0.50)):
        r = record(pgn)
        if r is None:
            out.append(f"| {text} | (not run) | |")
            continue
        score = elo(*r[:3]).score
        out.append(f"| {text} | {100 * score:.1f}% | {'yes' if score >= need else 'no'} |")
    return out


def commands() -> list[str]:
    text = (V / "run.sh").read_text()
    return [line for line in text.splitlines() if line.startswith(("run ", "  run ", "M=", "V=", "EVOLVED=", "RND=",
                                                                      "SUNFISH=", "SFWEAK=", "MT=", "for ", "done",
                                                                      "  case"))]


def main() -> int:
    out = ["# Validation: does the evolved evaluation play better?", "",
           "Made by `bash results/validation/run.sh` (then `python tools/validation_summary.py`, which recounts "
           "every figure below from the PGNs and CSVs in this folder). The evolved organism is "
           "`results/paper-stockfish/organism.json`. All matches: 0.2 s a move for both players (equal time), "
           "the 50 shipped balanced openings each played twice with colours swapped, cutechess-style "
           "adjudication (`mimic match` defaults), our engines and the opponents one process each, two games at "
           "a time on a 2-core machine. Elo: logistic, ± the 95% interval (cutechess's formula); LOS: "
           "likelihood of superiority.", "",
           "```", *commands(), "```", "",
           "## The paper's matches", "",
           "| match (player A first) | games | A's W/D/L | A's score | Elo of A | LOS | terminations |",
           "|---|---|---|---|---|---|---|",
           match_row("evolved vs random organism", "evolved-vs-random"),
           match_row("evolved vs expert", "evolved-vs-expert"),
           match_row("evolved by the built-in mentor (results/paper-builtin) vs expert, its mentor's evaluation",
                     "evolved-vs-expert", ROOT / "results" / "paper-builtin"), "",
           "The last row is the paper's own setting: there the mentor's evaluation is the expert, and the organism "
           "learnt from the expert's depth-2 scores (`bash results/paper-builtin/run.sh`; its labels, evolution "
           "summary and match log are in that folder). The other rows use the Stockfish-taught reference organism.",
           "", *goals(), "",
           "## Against engines nobody here wrote", "",
           "| player | vs sunfish (PyPI 2026.1) | vs Stockfish 15.1, UCI_Elo 1350 |", "|---|---|---|"]
    for who, label in PLAYERS.items():
        cells = []
        for opp in ("sunfish", "stockfish1350"):
            r = record(V / f"{who}-vs-{opp}.pgn")
            if r is None:
                cells.append("(not run)")
            else:
                w, d, lo, _ = r
                cells.append(f"{w + d + lo} games, +{w} ={d} -{lo}, {100 * elo(w, d, lo).score:.1f}%, "
                             f"Elo {elo_cell(w, d, lo)}")
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    out += ["", "Detailed per-match lines:", "", "| match | games | W/D/L | score | Elo | LOS | terminations |",
            "|---|---|---|---|---|---|---|"]
    for who in PLAYERS:
        for opp in ("sunfish", "stockfish1350"):
            out.append(match_row(f"{who} vs {opp}", f"{who}-vs-{opp}"))
    out += ["", "## The tactical table (1 s a position)", "",
            "| player | ECM (879) | WAC (300) |", "|---|---|---|"]
    for who, label in PLAYERS.items():
        cells = []
        for s in ("ecm", "wac"):
            r = suite(f"{s}-{who}")
            cells.append("(not run)" if r is None else f"{r[0]} ({100 * r[0] / max(r[1], 1):.1f}%)")
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    r = suite("sts-evolved")
    out += ["", "## STS (1 s a position)", ""]
    if r is None:
        out.append("(not run)")
    else:
        out.append(f"The evolved organism scores **{r[2]:,} of {r[3]:,}** STS points ({r[0]} best moves of {r[1]}); "
                   "Giraffe reported 8,400 of 15,000 (Lai, 2015).")
    (V / "summary.md").write_text("\n".join(out) + "\n")
    print(f"wrote {V / 'summary.md'}")

    return 0


if __name__ == "__main__":
    sys.exit(main())
