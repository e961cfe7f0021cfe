"""What an evaluation says a piece is worth, and the perspective net's output unit set from it.

**A piece up** (:func:`piece_values`): for each of the shipped balanced openings' positions (50, 4-8 plies in;
:func:`search.games.openings.default_openings_path`) and each of the other side's pieces of a type, the position
with that piece taken off the board, kept when it is legal and quiet (:func:`mentor.samplers.is_quiet`: the side to
move not in check and no capture winning material by static exchange, so the extra piece is neither about to be lost
nor won back). A piece's value is the mean, over the kept pairs, of the evaluation of the position a piece up minus
that of the position itself (centipawns, the side to move's view: the side a piece up). The kept pairs depend on the
positions only, so two evaluators are measured on the same ones (``benchmarks/eval_values.py`` prints the table).

**The unit** (:func:`material_unit`): the win-probability loss sees the net's evaluation only through
``eval / K_net``, so multiplying the output's scale and K_net by the same factor ``c`` leaves the loss, and every
decision of the net's, unchanged; it changes what the engine's margins and mate bounds, counted in centipawns,
make of it. ``c`` is chosen so the net's values of a pawn, knight, bishop, rook and queen up match the built-in
expert's: the least-squares fit of their ratios, ``c = Σ r_i / Σ r_i²`` with ``r_i = net_i / expert_i`` (minimising
``Σ (c r_i − 1)²``). One factor for five pieces: the net's values relative to one another stay its own.

May import chess, ``mentor.samplers``, ``organisms``, ``search``.
"""

from __future__ import annotations

from statistics import mean

import chess

from mentor.samplers import is_quiet
from search.base import Evaluator
from search.games.openings import default_openings_path, load_openings

PIECES = {"pawn": chess.PAWN, "knight": chess.KNIGHT, "bishop": chess.BISHOP, "rook": chess.ROOK,
          "queen": chess.QUEEN}


def probe_positions(path: str | None = None) -> list[chess.Board]:
    """The positions of the openings file ``path`` (default: the shipped balanced openings)."""
    return [o.board() for o in load_openings(path or default_openings_path())]


def piece_up_pairs(boards: list[chess.Board], piece_type: chess.PieceType) -> list[tuple[chess.Board, chess.Board]]:
    """(position, the position without one of the other side's ``piece_type``) pairs that are legal and quiet."""
    out = []
    for board in boards:
        for square in board.pieces(piece_type, not board.turn):
            up = board.copy(stack=False)
            up.remove_piece_at(square)
            if up.is_valid() and is_quiet(up):
                out.append((board, up))
    return out


def piece_values(ev: Evaluator, boards: list[chess.Board] | None = None) -> dict[str, tuple[float, int]]:
    """Per piece (:data:`PIECES`), (the mean gain of a piece up in centipawns, pairs); NaN without pairs."""
    boards = probe_positions() if boards is None else boards
    out = {}
    for name, pt in PIECES.items():
        pairs = piece_up_pairs(boards, pt)
        out[name] = (mean(ev.evaluate(up) - ev.evaluate(b) for b, up in pairs) if pairs else float("nan"),
                     len(pairs))
    return out


def material_unit(net: Evaluator, reference: Evaluator, boards: list[chess.Board] | None = None) -> float:
    """The factor ``c`` by which the net's scale is multiplied so its piece values match ``reference``'s (see
    the module docstring); 1 when the net's values are not all positive."""
    boards = probe_positions() if boards is None else boards
    ours, theirs = piece_values(net, boards), piece_values(reference, boards)
    ratios = [ours[n][0] / theirs[n][0] for n in PIECES]
    if not all(r > 0 for r in ratios):
        return 1.0
    return sum(ratios) / sum(r * r for r in ratios)
