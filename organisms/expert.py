"""The built-in expert: a much richer evaluation than an organism's, with fixed, sensible weights.

It is the embedded mentor's evaluation and a match opponent. It adds, tapered by the same game phase
as the organism's features (knight/bishop 1, rook 2, queen 4, out of 24):

* PeSTO's material values and tapered piece-square tables (Ronald Friederich's Rofchade values,
  https://www.chessprogramming.org/PeSTO%27s_Evaluation_Function; see :mod:`organisms.pesto`):
  2 × 6 × 64 squares and 2 × 5 material values;
* the organism's positional terms (mobility, pawn structure, king safety, rooks, bishop pair,
  outposts, tempo) with hand-set weights (``EXPERT_WEIGHTS``). Material and centricity are left to
  the tables.

That is 768 + 10 + 44 parameters. Centipawns from the side to move's point of view. No cache of its
own: the engine caches every evaluation by position key (``search.Engine``).
"""

from __future__ import annotations

import math

import chess

from organisms.features import FEATURE_NAMES
from organisms.linear import TermWeights, square_table_sum
from organisms.pesto import EG_TABLES, EG_VALUE, MG_TABLES, MG_VALUE
from organisms.terms import PHASE_MAX, raw_terms
from search.base import NativeForm

EXPERT_WEIGHTS: dict[str, float] = {
    # material and centricity come from the piece-square tables
    "pawn": 0, "knight": 0, "bishop": 0, "rook": 0, "queen": 0, "knight_center": 0, "bishop_center": 0,
    "king_center_mg": 0, "king_center_eg": 0,
    "knight_mobility_mg": 4, "knight_mobility_eg": 4, "bishop_mobility_mg": 5, "bishop_mobility_eg": 5,
    "rook_mobility_mg": 2, "rook_mobility_eg": 4, "queen_mobility_mg": 1, "queen_mobility_eg": 2,
    "doubled_pawn_mg": 10, "doubled_pawn_eg": 20, "isolated_pawn_mg": 10, "isolated_pawn_eg": 15,
    "backward_pawn_mg": 8, "backward_pawn_eg": 10,
    "passed_pawn_rank2_mg": 0, "passed_pawn_rank2_eg": 10, "passed_pawn_rank3_mg": 5,
    "passed_pawn_rank3_eg": 15, "passed_pawn_rank4_mg": 10, "passed_pawn_rank4_eg": 25,
    "passed_pawn_rank5_mg": 20, "passed_pawn_rank5_eg": 45, "passed_pawn_rank6_mg": 35,
    "passed_pawn_rank6_eg": 75, "passed_pawn_rank7_mg": 60, "passed_pawn_rank7_eg": 120,
    "connected_pawn_mg": 5, "connected_pawn_eg": 5,
    "king_shield_mg": 10, "king_open_file_mg": 15, "king_attack_mg": 6, "king_tropism_mg": 2,
    "rook_open_file": 20, "rook_half_open_file": 10, "rook_seventh_mg": 10, "rook_seventh_eg": 20,
    "bishop_pair_mg": 30, "bishop_pair_eg": 50, "knight_outpost": 15, "tempo": 10,
}
"""Centipawns per unit of each organism feature (all non-negative magnitudes, as genes are)."""


def _tapered_tables() -> list[list[list[int]]]:
    """``[phase][piece][square]`` = 24 × the tapered value, white pieces 0–5, black 6–11 (negated)."""
    out = []
    for phase in range(PHASE_MAX + 1):
        rows = []
        for sign in (1, -1):
            for pt in range(6):
                mg_t, eg_t = MG_TABLES[pt], EG_TABLES[pt]
                row = []
                for s in range(64):
                    i = s ^ 56 if sign == 1 else s
                    mg = MG_VALUE[pt] + mg_t[i]
                    eg = EG_VALUE[pt] + eg_t[i]
                    row.append(sign * (mg * phase + eg * (PHASE_MAX - phase)))
                rows.append(row)
        out.append(rows)
    return out


class Expert:
    """PeSTO tables plus the organism's positional terms with fixed weights (centipawns, side to move)."""

    name = "expert"

    def __init__(self, weights: dict[str, float] | None = None) -> None:
        w = dict(EXPERT_WEIGHTS if weights is None else weights)
        missing = set(FEATURE_NAMES) - set(w)
        if missing:
            raise ValueError(f"expert weights missing for {sorted(missing)}")
        self.weights = w
        self._linear = TermWeights([w[n] for n in FEATURE_NAMES])
        self._tables = _tapered_tables()

    @property
    def n_parameters(self) -> int:
        """Tunable numbers: piece-square entries, material values and positional weights."""
        return 2 * 6 * 64 + 2 * 5 + sum(1 for v in self.weights.values() if v)

    def evaluate(self, board: chess.Board) -> int:
        """Centipawns from the side to move's view."""
        pawns, knights, bishops, rooks = board.pawns, board.knights, board.bishops, board.rooks
        queens, kings = board.queens, board.kings
        white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
        phase, terms = raw_terms(pawns, knights, bishops, rooks, queens, kings, white, black)
        total = square_table_sum(self._tables[phase], (pawns, knights, bishops, rooks, queens, kings), white, black)
        white_view = total / PHASE_MAX + self._linear.white_view(phase, terms)
        score = (white_view if board.turn else -white_view) + self._linear.tempo
        return math.floor(score + 0.5)

    def native_form(self) -> NativeForm:
        """The compiled core's form of this evaluator (:class:`search.base.NativeForm`, kind ``expert``)."""
        lin = self._linear
        return NativeForm.linear("expert", lin.mg, lin.eg, lin.tempo, self._tables)
