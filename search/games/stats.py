"""Match statistics: Elo difference with a 95% interval, LOS, pentanomial pairs, and the SPRT.

Conventions follow cutechess-cli (``tools/elo.cpp``, ``sprt.cpp``) and fishtest:

* score ``μ = (W + D/2) / N``; Elo difference ``−400 · log10(1/μ − 1)``;
* the interval: the per-game standard deviation of the score, ``σ = sqrt(Σ pᵢ (sᵢ − μ)²) / sqrt(N)``
  over outcomes sᵢ ∈ {1, ½, 0}; ``μ ± 1.95996 σ`` mapped to Elo; the error is half the width;
* LOS (likelihood of superiority) ``½ (1 + erf((W − L) / sqrt(2 (W + L))))``;
* SPRT: the generalised SPRT on the logistic Elo scale with the normal approximation used by fishtest
  (Michel Van den Bergh): ``LLR ≈ N (s₁ − s₀)(2μ − s₀ − s₁) / (2 σ²)`` with ``sᵢ`` the expected scores
  of ``elo0`` and ``elo1`` and ``σ²`` the per-game (or, from pairs, per-pair) score variance. Bounds
  ``log(β / (1 − α))`` and ``log((1 − β) / α)``. Empty outcome classes count as 0.001 (as fishtest
  regularises), so that a one-sided record still has a variance. No decision is taken before
  :data:`SPRT_MIN_GAMES` games: on a handful of games that variance is the regulariser's, not the match's (one
  lost game gave an LLR of −11.9 against bounds of ±2.94), as cutechess waits for wins, draws and losses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z_95 = 1.959963984540054


def expected_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """Elo difference for an expected score in (0, 1); ±inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class EloResult:
    elo: float
    error: float  # half-width of the 95% interval, Elo
    low: float
    high: float
    los: float  # probability in [0, 1]
    score: float
    games: int


def elo(wins: int, draws: int, losses: int) -> EloResult:
    """Elo difference and 95% interval of a W/D/L record (cutechess's formulas)."""
    n = wins + draws + losses
    if n == 0:
        return EloResult(0.0, math.inf, -math.inf, math.inf, 0.5, 0.5, 0)
    w, d, lo = wins / n, draws / n, losses / n
    mu = w + d / 2
    sd = math.sqrt(w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + lo * (0 - mu) ** 2) / math.sqrt(n)
    low, high = elo_from_score(mu - Z_95 * sd), elo_from_score(mu + Z_95 * sd)
    error = (high - low) / 2 if math.isfinite(low) and math.isfinite(high) else math.inf
    return EloResult(elo_from_score(mu), error, low, high, los(wins, losses), mu, n)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority (draws carry no information about it)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def pentanomial(pair_scores: Sequence[float]) -> list[int]:
    """Counts of pair scores 0, ½, 1, 1½, 2 (two games of an opening, colours swapped)."""
    counts = [0] * 5
    for s in pair_scores:
        counts[round(s * 2)] += 1
    return counts


SPRT_MIN_GAMES = 10
"""Games (five opening pairs) before the SPRT may decide (see the module docstring)."""


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float
    upper: float
    games: int = SPRT_MIN_GAMES
    min_games: int = SPRT_MIN_GAMES

    @property
    def decision(self) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or ``None`` (continue, and always before
        ``min_games`` games: :data:`SPRT_MIN_GAMES` unless the match asks for more)."""
        if self.games < self.min_games:
            return None
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr_from_outcomes(outcomes: Sequence[float], counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Normal-approximation GSPRT LLR from a distribution of outcomes (scores ``outcomes`` seen
    ``counts`` times). For games, outcomes are 0, ½, 1; for pairs, 0, ½, 1, 1½, 2 halved to per-game
    scores 0, ¼, ½, ¾, 1."""
    if sum(counts) == 0:
        return 0.0
    weights = [max(float(c), 1e-3) for c in counts]  # as fishtest: no outcome has probability 0 (var > 0)
    n = sum(weights)
    mu = sum(o * c for o, c in zip(outcomes, weights, strict=True)) / n
    var = sum(c * (o - mu) ** 2 for o, c in zip(outcomes, weights, strict=True)) / n
    if var <= 0:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)


def sprt(wins: int, draws: int, losses: int, elo0: float, elo1: float, alpha: float = 0.05,
         beta: float = 0.05, pairs: Sequence[int] | None = None, min_games: int = SPRT_MIN_GAMES) -> SprtResult:
    """The SPRT state of a match. With ``pairs`` (pentanomial counts) the pair model is used, which
    accounts for the correlation of the two games of an opening; otherwise games are independent. No decision
    before ``min_games`` games."""
    lower, upper = sprt_bounds(alpha, beta)
    if pairs is not None and sum(pairs) > 0:
        llr = llr_from_outcomes([0.0, 0.25, 0.5, 0.75, 1.0], pairs, elo0, elo1)
    else:
        llr = llr_from_outcomes([1.0, 0.5, 0.0], [wins, draws, losses], elo0, elo1)
    games = wins + draws + losses or 2 * sum(pairs or ())
    return SprtResult(llr, lower, upper, games, max(min_games, SPRT_MIN_GAMES))
