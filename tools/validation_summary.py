"""Write results/validation/summary.md from the PGNs, CSVs and logs that results/validation/run.sh made.

    python tools/validation_summary.py

Every number comes from those files, read by the library's own readers: match records are recounted from
the PGNs by ``search.games.pgnlog.rounds_in_pgn`` and ``MatchSummary`` (rounds k.1 have player A as White; Elo
and intervals from ``search.games.stats``), suite counts from the CSVs by ``search.games.suite.read_csv``.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

from search.games.match import MatchSummary
from search.games.pgnlog import rounds_in_pgn
from search.games.suite import SuiteSummary, read_csv, summarize
from search.runtime.provenance import describe

ROOT = Path(__file__).resolve().parent.parent
V = ROOT / "results" / "validation"
PLAYERS = {"evolved": "evolved organism (results/paper-stockfish)", "expert": "expert",
           "random": "random organism (seed 1)"}


def record(pgn: Path) -> MatchSummary | None:
    """Player A's record in a match PGN (rounds k.1 have A as White), read by the library's own readers;
    ``None`` when the match was not run."""
    if not pgn.exists():
        return None
    summary = MatchSummary("A", "B")  # names unused: only the counts are read
    for g in rounds_in_pgn(pgn):
        summary.add(g)
    return summary


def terminations(summary: MatchSummary) -> Counter[str]:
    """How the games ended, by the PGN's ``Termination`` header."""
    return Counter(g.termination for g in summary.games)


def elo_cell(s: MatchSummary) -> str:
    e = s.elo
    if not math.isfinite(e.elo) or not math.isfinite(e.error):
        return f"{e.elo:+.0f} (no finite interval: the 95% interval reaches a 0% or 100% score)"
    return f"{e.elo:+.0f} ± {e.error:.0f}"


def match_row(label: str, name: str, folder: Path = V) -> str:
    s = record(folder / f"{name}.pgn")
    if s is None:
        return f"| {label} | (not run) | | | |"
    e = s.elo
    t = ", ".join(f"{k} {v}" for k, v in sorted(terminations(s).items()))
    return (f"| {label} | {s.n} | +{s.wins} ={s.draws} -{s.losses} | {100 * e.score:.1f}% | {elo_cell(s)} | "
            f"{100 * e.los:.1f}% | {t} |")


def suite(name: str, folder: Path = V) -> SuiteSummary | None:
    """Counts of a suite CSV ``folder/NAME.csv``; ``None`` when the suite was not run."""
    path = folder / f"{name}.csv"
    if not path.exists():
        return None
    return summarize(read_csv(path))


def goals() -> list[str]:
    """Issue 6's goals beside the measured scores."""
    out = ["Goals:", "", "| goal | measured | met |", "|---|---|---|"]
    for text, pgn, need in (("evolved vs random ≥ 95%", V / "evolved-vs-random.pgn", 0.95),
                            ("evolved vs expert ≥ 50% at equal time", V / "evolved-vs-expert.pgn", 0.50),
                            ("the same, mentor = expert (results/paper-builtin)",
                             ROOT / "results" / "paper-builtin" / "evolved-vs-expert.pgn", 0.50),
                            ("evolved vs sunfish ≥ 50% at equal time", V / "evolved-vs-sunfish.pgn", 0.50)):
        s = record(pgn)
        if s is None:
            out.append(f"| {text} | (not run) | |")
            continue
        score = s.elo.score
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
           "likelihood of superiority.", "", f"Recounted by {describe()}.", "",
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
            m = record(V / f"{who}-vs-{opp}.pgn")
            if m is None:
                cells.append("(not run)")
            else:
                cells.append(f"{m.n} games, +{m.wins} ={m.draws} -{m.losses}, {100 * m.elo.score:.1f}%, "
                             f"Elo {elo_cell(m)}")
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
            t = suite(f"{s}-{who}")
            cells.append("(not run)" if t is None else f"{t.solved} ({100 * t.solved / max(t.total, 1):.1f}%)")
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    sts = suite("sts-evolved")
    out += ["", "## STS (1 s a position)", ""]
    if sts is None:
        out.append("(not run)")
    else:
        out.append(f"The evolved organism scores **{sts.points:,} of {sts.max_points:,}** STS points "
                   f"({sts.solved} best moves of {sts.total}); "
                   "Giraffe reported 8,400 of 15,000 (Lai, 2015).")
    (V / "summary.md").write_text("\n".join(out) + "\n")
    print(f"wrote {V / 'summary.md'}")

    return 0


if __name__ == "__main__":
    sys.exit(main())
