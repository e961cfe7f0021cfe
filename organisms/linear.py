"""The linear part shared by organisms and the expert: feature weights folded onto raw terms."""

from __future__ import annotations

from collections.abc import Sequence

from organisms.features import ALL, EG, FEATURE_SPEC, MG, N_FEATURES, N_TERMS
from organisms.terms import PHASE_MAX


class TermWeights:
    """Feature weights (``FEATURE_NAMES`` order, centipawns per unit) folded per raw term.

    ``white_view(phase, terms)`` equals the part of ``weights · features`` that is not tempo, from
    White's point of view; the side-to-move score is that, negated for Black, plus ``tempo``.
    """

    __slots__ = ("eg", "mg", "tempo")

    def __init__(self, weights: Sequence[float]) -> None:
        if len(weights) != N_FEATURES:
            raise ValueError(f"expected {N_FEATURES} weights, got {len(weights)}")
        mg = [0.0] * N_TERMS
        eg = [0.0] * N_TERMS
        tempo = 0.0
        for w, (t, taper, orient) in zip(map(float, weights), FEATURE_SPEC, strict=True):
            if t < 0:
                tempo += w
                continue
            if taper in (ALL, MG):
                mg[t] += orient * w
            if taper in (ALL, EG):
                eg[t] += orient * w
        self.mg, self.eg, self.tempo = mg, eg, tempo

    def white_view(self, phase: int, terms: list[int]) -> float:
        """Centipawns from White's view, tempo excluded."""
        phi = phase / PHASE_MAX
        t = list(map(float, terms))
        return sum(map(float.__mul__, self.mg, t)) * phi + sum(map(float.__mul__, self.eg, t)) * (1.0 - phi)

    def side_to_move(self, phase: int, terms: list[int], white_to_move: bool) -> float:
        """Centipawns from the side to move's view, tempo included."""
        v = self.white_view(phase, terms)
        return (v if white_to_move else -v) + self.tempo


def square_table_sum(tables: Sequence[Sequence[float]], pieces: Sequence[int], white: int, black: int) -> float:
    """Sum of per-square table entries over every piece on the board, from White's point of view.

    ``tables[i][square]`` for piece slot ``i``: White's pawn, knight, bishop, rook, queen, king (0-5), then
    Black's (6-11); ``pieces`` are the six piece-type bitboards, ``white``/``black`` the colour masks. The
    tapered piece-square tables of the expert and of the rich organism are summed this way (bit by bit).
    """
    total = 0.0
    for i, bb in enumerate([p & white for p in pieces] + [p & black for p in pieces]):
        t = tables[i]
        while bb:
            low = bb & -bb
            total += t[low.bit_length() - 1]
            bb ^= low
    return total
