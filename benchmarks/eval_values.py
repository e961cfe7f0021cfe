"""What an evaluation says a pawn, a knight and a queen are worth, and its score of the start position (issue 26).

    python benchmarks/eval_values.py SPEC [SPEC ...] [--openings search/data/openings.epd]

For each evaluator (a player spec whose kind has an evaluation: ``expert``, ``organism:PATH``, ``pnet:PATH``,
``net:PATH``, ``material``): its static score of the start position (cp, White to move), then "a piece up": for
each of the shipped balanced openings' positions (50, 4-8 plies in) and each of the other side's pieces of the
type, the position with that piece taken off the board, kept when it is legal and quiet (:func:`mentor.samplers.
is_quiet`: the side to move not in check and no capture that wins material by static exchange, so the extra piece
is not about to be lost or won back); the value is the mean, over the kept positions, of the score of the position
a piece up minus the score of the position itself (cp, the side to move's view: the side that is a piece up).
Then each value's ratio to the first spec's (the reference, e.g. ``expert``). Goal (issue 26): the net within 25 %
of the expert's for each, the start position within +-30 cp. Prints a Markdown table; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import mean

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.players import PLAYERS
from mentor.samplers import is_quiet
from search.base import Evaluator
from search.games.openings import default_openings_path, load_openings

PIECES = (("pawn", chess.PAWN), ("knight", chess.KNIGHT), ("queen", chess.QUEEN))


def piece_up_positions(boards: list[chess.Board], piece_type: chess.PieceType) -> list[tuple[chess.Board,
                                                                                          chess.Board]]:
    """(position, the position without one of the other side's ``piece_type``) pairs that are legal and quiet."""
    out = []
    for board in boards:
        for square in board.pieces(piece_type, not board.turn):
            up = board.copy(stack=False)
            up.remove_piece_at(square)
            if up.is_valid() and is_quiet(up):
                out.append((board, up))
    return out


def values(ev: Evaluator, boards: list[chess.Board]) -> tuple[int, dict[str, tuple[float, int]]]:
    """The start position's score and, per piece, (mean score gain a piece up, positions)."""
    out = {}
    for name, pt in PIECES:
        pairs = piece_up_positions(boards, pt)
        out[name] = (mean(ev.evaluate(up) - ev.evaluate(b) for b, up in pairs) if pairs else float("nan"),
                     len(pairs))
    return ev.evaluate(chess.Board()), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", help="player specs with an evaluation; the first is the reference")
    ap.add_argument("--openings", default=str(default_openings_path()), help="EPD or PGN of balanced positions")
    args = ap.parse_args()
    boards = [o.board() for o in load_openings(args.openings)]
    rows = [(spec, *values(PLAYERS(spec), boards)) for spec in args.specs]
    ref = rows[0][2]
    print(f"Positions: {len(boards)} openings of {args.openings}; pairs kept (legal, quiet): "
          + ", ".join(f"{name} {ref[name][1]}" for name, _ in PIECES) + ".\n")
    print("| evaluator | start position (cp) | " + " | ".join(f"{n} up (cp)" for n, _ in PIECES) + " | "
          + " | ".join(f"{n} / reference" for n, _ in PIECES) + " |")
    print("|---" * (2 + 2 * len(PIECES)) + "|")
    for spec, start, vals in rows:
        print(f"| `{spec}` | {start:+d} | " + " | ".join(f"{vals[n][0]:.0f}" for n, _ in PIECES) + " | "
              + " | ".join(f"{vals[n][0] / ref[n][0]:.2f}" for n, _ in PIECES) + " |")


if __name__ == "__main__":
    main()
