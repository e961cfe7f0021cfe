"""The linear part shared by organisms and the expert: feature weights folded onto raw terms."""

from __future__ import annotations

from collections.abc import Sequence

from .features import ALL, EG, FEATURE_SPEC, MG, N_FEATURES, N_TERMS, PHASE_MAX


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
