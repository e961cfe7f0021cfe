"""A pawn, knight, bishop, rook and queen up: what an evaluation says each is worth; its start position (issue 26).

    python benchmarks/eval_values.py SPEC [SPEC ...] [--openings search/data/openings.epd]

For each evaluator (a player spec whose kind has an evaluation: ``expert``, ``organism:PATH``, ``pnet:PATH``,
``net:PATH``, ``material``): its static score of the start position (cp, White to move), then "a piece up": for
each of the shipped balanced openings' positions and each of the other side's pieces of the type, the position
with that piece taken off, kept when legal and quiet; the value is the mean gain of the evaluation, side to move
(:mod:`evolve.nets.pnet_unit`, which sets a trained net's output unit from the same measure).
Then each value's ratio to the first spec's (the reference, e.g. ``expert``). Goal (issue 26): the net within 25 %
of the expert's for each, the start position within +-30 cp. Prints a Markdown table; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.nets.pnet_unit import PIECES, piece_values, probe_positions
from evolve.players import PLAYERS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", help="player specs with an evaluation; the first is the reference")
    ap.add_argument("--openings", default=None, help="EPD or PGN of balanced positions (default: the shipped openings)")
    args = ap.parse_args()
    boards = probe_positions(args.openings)
    rows = [(spec, PLAYERS(spec).evaluate(chess.Board()), piece_values(PLAYERS(spec), boards)) for spec in args.specs]
    ref = rows[0][2]
    print(f"Positions: {len(boards)} openings of {args.openings or 'search/data/openings.epd'}; pairs kept "
          "(legal, quiet): "
          + ", ".join(f"{name} {ref[name][1]}" for name in PIECES) + ".\n")
    print("| evaluator | start position (cp) | " + " | ".join(f"{n} up (cp)" for n in PIECES) + " | "
          + " | ".join(f"{n} / reference" for n in PIECES) + " |")
    print("|---" * (2 + 2 * len(PIECES)) + "|")
    for spec, start, vals in rows:
        print(f"| `{spec}` | {start:+d} | " + " | ".join(f"{vals[n][0]:.0f}" for n in PIECES) + " | "
              + " | ".join(f"{vals[n][0] / ref[n][0]:.2f}" for n in PIECES) + " |")


if __name__ == "__main__":
    main()
