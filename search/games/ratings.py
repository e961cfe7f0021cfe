"""Tournament ratings: one Elo scale fitted jointly from every game, with bootstrap intervals.

Owns the joint rating fit behind ``mimic tournament`` (the two-player match formulas live in
:mod:`search.games.stats`), the crosstable and the rating table's text. Imports numpy and, inside the fit,
scipy (``scipy.optimize``, ``scipy.sparse.csgraph``), a dependency of mimic; nothing of ours but
:mod:`search.games.stats`.

The model is Bradley-Terry on the logistic Elo scale, as Ordo fits it: player ``i`` of rating ``rᵢ``
(Elo) is expected to score ``E(rᵢ − rⱼ) = 1 / (1 + 10^(−(rᵢ − rⱼ)/400))`` against player ``j``, and a
draw counts as half a win and half a loss. The log-likelihood of the ratings is

    ``L(r) = Σ_{i≠j} Pᵢⱼ · log E(rᵢ − rⱼ)``

with ``Pᵢⱼ`` the points ``i`` scored against ``j`` (``Pᵢⱼ + Pⱼᵢ = Nᵢⱼ`` games). Its maximum solves, for
every player, *expected points = points scored*: ``Σⱼ Nᵢⱼ E(rᵢ − rⱼ) = Σⱼ Pᵢⱼ``. So two players who
met ``n`` times and scored ``s`` give exactly the match formula ``rᵢ − rⱼ = −400 · log10(1/s − 1)`` of
:func:`search.games.stats.elo_from_score` (and of cutechess-cli), which is why draws count as half points
here rather than through a draw parameter (Davidson's or Rao-Kupper's model, as BayesElo's
``drawelo``): with one, a drawn game would move two players' difference differently from the match
figures mimic prints everywhere else, and the scale would depend on the draw rate.

The maximum is finite only when no group of players lost every game to the rest (the comparison
graph, an edge ``i → j`` when ``i`` scored against ``j``, is strongly connected). A weak prior makes it
finite always: ``prior_draws`` virtual draws added to every pair that met (BayesElo's prior is of
this kind, with 2 by default), which adds ``prior_draws / 2`` points to each side of a pair and shrinks its
difference (15/20 = 190.8 Elo becomes 15.1/20.2 = 188.6 with 0.2 virtual draws, 15.5/21 = 180.0 with one).
``mimic tournament`` adds 0.2 by default: in simulated round robins of 8 players over 1000 Elo with 20
decisive games a pair (``benchmarks/ratings_prior.py``, 20 seeds) the fitted top-bottom difference was
off by +24 Elo on average with no prior, −14 with 0.2, −134 with 1 and −241 with 2, and the top player's
95% interval held its true rating in 19, 20 and 12 of 20 runs with 0, 0.2 and 1 virtual draws.

Ratings are defined up to a constant: they are reported with mean 0, or with one player (the
anchor) fixed at a given Elo. The 95% interval of each rating is the 2.5-97.5 percentile of
bootstrap refits over the games (resampled with replacement, seeded), each refit normalised the
same way (so an anchored table has a zero-width interval at the anchor and every other interval is
relative to it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from search.runtime.errors import MimicError, SettingsError

LOG_SCALE = math.log(10.0) / 400.0
"""Natural-log strength units per Elo: ``E(d) = 1 / (1 + exp(−LOG_SCALE · d))`` for a difference ``d`` in Elo."""

GameRecord = tuple[str, str, float]
"""One game: (White's name, Black's name, White's points: 1, ½ or 0)."""


class RatingError(MimicError, ValueError):
    """The games do not determine the ratings (players never connected, or an unbounded fit)."""


def tally(games: Sequence[GameRecord], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(P, N)``: ``P[i, j]`` the points player ``names[i]`` scored against ``names[j]``, ``N[i, j]``
    the games they played (symmetric; ``P + Pᵀ = N``). Raises ``ValueError`` for a name not in ``names``,
    a game of a player against itself, or points other than 1, ½ or 0."""
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    p, n = np.zeros((k, k)), np.zeros((k, k))
    for white, black, s in games:
        if white not in index or black not in index:
            raise RatingError(f"game {white!r} - {black!r}: a player not among {list(names)}")
        if white == black:
            raise RatingError(f"game {white!r} - {black!r}: a player against itself")
        if s not in (0.0, 0.5, 1.0):
            raise RatingError(f"game {white!r} - {black!r}: White's points must be 1, 0.5 or 0, got {s!r}")
        i, j = index[white], index[black]
        p[i, j] += s
        p[j, i] += 1.0 - s
        n[i, j] += 1.0
        n[j, i] += 1.0
    return p, n


def _check_connected(p: np.ndarray, n: np.ndarray, names: Sequence[str], prior_draws: float) -> None:
    """Raise :class:`RatingError` when the ratings are not determined by ``(p, n)``."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    k = len(names)
    count, label = connected_components(csr_matrix(n > 0), directed=False)
    if count > 1:
        groups = [[names[i] for i in range(k) if label[i] == c] for c in range(count)]
        raise RatingError("the games do not connect every player: no games between the groups "
                          + " | ".join(", ".join(g) for g in groups))
    if prior_draws > 0:
        return
    count, label = connected_components(csr_matrix(p > 0), directed=True, connection="strong")
    if count > 1:
        # a component that never scored against any other component: its ratings run to minus infinity
        scored_out = {int(label[i]) for i in range(k) for j in range(k) if p[i, j] > 0 and label[i] != label[j]}
        losers = [names[i] for i in range(k) if int(label[i]) not in scored_out]
        raise RatingError(f"the ratings are unbounded: {', '.join(losers)} scored no point against the other "
                          "players they met (a perfect score); add a prior (virtual draws)")


def fit_ratings(p: np.ndarray, n: np.ndarray, names: Sequence[str] | None = None, *,
                prior_draws: float = 0.0) -> np.ndarray:
    """Maximum-likelihood Elo ratings (mean 0) of the players of a tally ``(p, n)`` (see :func:`tally`).

    ``prior_draws`` virtual draws are added to every pair with ``n > 0`` first. Raises
    :class:`RatingError` when the games leave the ratings undetermined (see the module's docstring);
    ``names`` only serve its message. The fit is ``scipy.optimize.minimize`` (trust-exact, with the
    exact gradient and Hessian of the concave log-likelihood) on the strengths ``θ = LOG_SCALE · r``
    with ``θ₀ = 0``; the result is re-centred to mean 0. Score equations hold to about 1e-9 points.
    Not choix: it takes games as whole (winner, loser) pairs, so neither half points nor 0.2 virtual
    draws are data to it, and its ``alpha`` is a Gaussian prior pulling every θ toward 0, not
    virtual draws between the players that met; the tests check this fit against choix's on integer
    data.
    """
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    k = p.shape[0]
    if p.shape != (k, k) or n.shape != (k, k):
        raise ValueError(f"a tally is two square matrices of one size, got {p.shape} and {n.shape}")
    labels = list(names) if names is not None else [str(i) for i in range(k)]
    if k < 2:
        raise RatingError("ratings need at least two players")
    if prior_draws < 0:
        raise SettingsError(f"prior_draws must be at least 0, got {prior_draws}")
    met = n > 0
    p = p + 0.5 * prior_draws * met
    n = n + prior_draws * met
    _check_connected(p, n, labels, prior_draws)

    def full(x: np.ndarray) -> np.ndarray:
        return np.concatenate([[0.0], x])

    def neg_log_likelihood(x: np.ndarray) -> float:
        t = full(x)
        d = t[:, None] - t[None, :]
        return -float(np.sum(p * log_expit(d)))

    def gradient(x: np.ndarray) -> np.ndarray:
        t = full(x)
        e = expit(t[:, None] - t[None, :])
        g = (p - n * e).sum(axis=1)  # dL/dθᵢ = points − expected points
        return np.asarray(-g[1:])

    def hessian(x: np.ndarray) -> np.ndarray:
        t = full(x)
        e = expit(t[:, None] - t[None, :])
        w = n * e * (1.0 - e)
        h = np.diag(w.sum(axis=1)) - w  # −d²L/dθ²: a weighted graph Laplacian
        return np.asarray(h[1:, 1:])

    done = minimize(neg_log_likelihood, np.zeros(k - 1), jac=gradient, hess=hessian, method="trust-exact",
                    options={"gtol": 1e-10, "maxiter": 1000})
    theta = full(done.x)
    if not np.all(np.isfinite(theta)) or float(np.max(np.abs(gradient(done.x)))) > 1e-6:
        raise RatingError(f"the rating fit did not converge: {done.message}")
    r = theta / LOG_SCALE
    return np.asarray(r - r.mean())


def normalise(r: np.ndarray, names: Sequence[str], anchor: tuple[str, float] | None) -> np.ndarray:
    """``r`` shifted to mean 0, or so that the anchor ``(name, elo)`` has that rating."""
    if anchor is None:
        return np.asarray(r - r.mean())
    name, elo = anchor
    return np.asarray(r - r[list(names).index(name)] + elo)


@dataclass(frozen=True)
class Ratings:
    """Jointly fitted ratings of a tournament, Elo, each player's from its own point of view.

    ``elo[i]`` is the point estimate of ``names[i]``; ``low[i]``/``high[i]`` bound its 95% bootstrap
    interval (NaN without bootstrap); ``points[i, j]``/``games[i, j]`` are the crosstable (points of
    ``i`` against ``j``). ``failed`` counts bootstrap resamples whose fit was undetermined (left out)."""

    names: tuple[str, ...]
    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    points: np.ndarray
    games: np.ndarray
    anchor: tuple[str, float] | None = None
    prior_draws: float = 0.0
    bootstrap: int = 0
    seed: int = 0
    failed: int = 0
    n_games: int = 0
    model: str = field(default="Bradley-Terry, logistic Elo scale, draw = half a win and half a loss")

    def order(self) -> list[int]:
        """Player indices, best rating first (ties in the players' order)."""
        return sorted(range(len(self.names)), key=lambda i: (-self.elo[i], i))

    def score(self, i: int) -> tuple[float, float]:
        """(points, games) of player ``i`` over the tournament."""
        return float(self.points[i].sum()), float(self.games[i].sum())

    def table_lines(self) -> list[str]:
        """The rating table, best first: rating, 95% interval, points, games, score share."""
        width = max(4, *(len(n) for n in self.names))
        out = [f"{'rank':>4}  {'player':<{width}}  {'elo':>7}  {'95% interval':>17}  {'points':>7}  "
               f"{'games':>5}  {'score':>6}"]
        for rank, i in enumerate(self.order(), start=1):
            pts, n = self.score(i)
            interval = (f"[{self.low[i]:7.1f}, {self.high[i]:7.1f}]" if math.isfinite(self.low[i])
                        else f"{'-':>17}")
            share = f"{100 * pts / n:5.1f}%" if n else f"{'-':>6}"
            out.append(f"{rank:>4}  {self.names[i]:<{width}}  {self.elo[i]:7.1f}  {interval:>17}  {pts:7.1f}  "
                       f"{int(n):5d}  {share:>6}")
        return out

    def crosstable_lines(self) -> list[str]:
        """Points of each row's player against each column's (``points/games``), best first; columns
        numbered by rank."""
        order = self.order()
        width = max(4, *(len(n) for n in self.names))
        cells = {(i, j): (f"{self.points[i, j]:g}/{int(self.games[i, j])}" if self.games[i, j] else "-")
                 for i in order for j in order if i != j}
        col = max(5, *(len(c) for c in cells.values()))
        out = [f"{'':>4}  {'player':<{width}}  " + "  ".join(f"{r:>{col}}" for r in range(1, len(order) + 1))]
        for rank, i in enumerate(order, start=1):
            row = "  ".join(f"{'x' if i == j else cells[(i, j)]:>{col}}" for j in order)
            out.append(f"{rank:>4}  {self.names[i]:<{width}}  {row}")
        return out

    def to_json(self) -> dict[str, object]:
        """A JSON-ready record: the model, the settings of the fit, and each player's rating and tallies."""
        def num(x: float) -> float | None:
            return round(float(x), 2) if math.isfinite(x) else None

        return {
            "model": self.model, "scale": "Elo: E(d) = 1 / (1 + 10^(-d/400))",
            "normalisation": (f"{self.anchor[0]} fixed at {self.anchor[1]:g}" if self.anchor else "mean 0"),
            "anchor": {"name": self.anchor[0], "elo": self.anchor[1]} if self.anchor else None,
            "prior_draws": self.prior_draws, "interval": "95%, percentile bootstrap over games",
            "bootstrap": self.bootstrap, "bootstrap_seed": self.seed, "bootstrap_failed": self.failed,
            "games": self.n_games,
            "players": [{"rank": rank, "name": self.names[i], "elo": num(self.elo[i]), "low": num(self.low[i]),
                         "high": num(self.high[i]), "points": self.score(i)[0], "games": int(self.score(i)[1])}
                        for rank, i in enumerate(self.order(), start=1)],
            "crosstable": {a: {b: [float(self.points[i, j]), int(self.games[i, j])]
                               for j, b in enumerate(self.names) if i != j and self.games[i, j]}
                           for i, a in enumerate(self.names)},
        }


def rate(games: Sequence[GameRecord], names: Sequence[str], *, anchor: tuple[str, float] | None = None,
         prior_draws: float = 0.0, bootstrap: int = 1000, seed: int = 0) -> Ratings:
    """Fit the ratings of ``names`` from ``games`` (see the module's docstring), with ``bootstrap``
    resamples of the games (a ``numpy`` generator seeded with ``seed``) for the 95% intervals.

    Raises :class:`RatingError` when the games leave the point estimate undetermined, ``ValueError`` for
    an anchor not among ``names`` or a bad game. A resample whose fit is undetermined (possible only
    without a prior) is left out and counted in ``failed``; the interval is NaN when none is left."""
    names = tuple(names)
    if anchor is not None and anchor[0] not in names:
        raise SettingsError(f"anchor {anchor[0]!r} is not a player (players: {', '.join(names)})")
    p, n = tally(games, names)
    elo = normalise(fit_ratings(p, n, names, prior_draws=prior_draws), names, anchor)
    k = len(names)
    low, high = np.full(k, np.nan), np.full(k, np.nan)
    failed = 0
    if bootstrap > 0 and games:
        index = {name: i for i, name in enumerate(names)}
        wi = np.array([index[w] for w, _, _ in games])
        bi = np.array([index[b] for _, b, _ in games])
        ws = np.array([s for _, _, s in games], dtype=float)
        met = n > 0  # the prior goes to the pairs of the tournament, not to those a resample happens to keep
        rng = np.random.default_rng(seed)
        fits = []
        for _ in range(bootstrap):
            pick = rng.integers(0, len(games), size=len(games))
            flat_w, flat_b = wi[pick] * k + bi[pick], bi[pick] * k + wi[pick]
            pp = (np.bincount(flat_w, ws[pick], k * k) + np.bincount(flat_b, 1.0 - ws[pick], k * k)).reshape(k, k)
            nn = (np.bincount(flat_w, None, k * k) + np.bincount(flat_b, None, k * k)).reshape(k, k)
            try:
                r = _fit_resample(pp, nn, met, names, prior_draws)
            except RatingError:
                failed += 1
                continue
            fits.append(normalise(r, names, anchor))
        if fits:
            low, high = np.percentile(np.array(fits), [2.5, 97.5], axis=0)
    return Ratings(names, elo, np.asarray(low), np.asarray(high), p, n, anchor=anchor, prior_draws=prior_draws,
                   bootstrap=bootstrap, seed=seed, failed=failed, n_games=len(games))


def _fit_resample(p: np.ndarray, n: np.ndarray, met: np.ndarray, names: Sequence[str],
                  prior_draws: float) -> np.ndarray:
    """The fit of one resample, with the prior on the tournament's pairs (``met``) even where the
    resample drew none of their games."""
    if prior_draws > 0:
        return fit_ratings(p + 0.5 * prior_draws * met, n + prior_draws * met, names)
    return fit_ratings(p, n, names)
