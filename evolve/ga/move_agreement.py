"""The moves objective (``--objective moves``, the paper's grandmaster objective): how often an organism's 1-ply
choice over capture-resolved children (:mod:`evolve.data.moves`) is the player's move, or the likelihood of the
player's moves under a softmax of the organism's scores; and what a run reports of it (both measures of the
winner, beside chance). Re-exported by :mod:`evolve.ga.objectives`.

May import: numpy, ``evolve.ga.objective_api``, ``evolve.ga.errors``, ``search.runtime.errors``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evolve.ga.objective_api import ObjectiveDefaults
from search.runtime.errors import SettingsError

if TYPE_CHECKING:
    from evolve.ga.run import RunOutcome, RunSettings

MOVE_LOSSES = ("agreement", "likelihood")
AGREEMENTS = ("count", "squared")


class MoveAgreement(ObjectiveDefaults):
    """How often each organism chooses the player's move (``--objective moves``; see :mod:`evolve.data.moves`).

    ``features`` (children, genes) are those of every resolved child; ``sign`` turns a child's evaluation
    into the mover's score; ``fixed`` holds the mover's fixed score of a mating or stalemating move (NaN
    elsewhere); position ``i``'s children are ``offsets[i]:offsets[i + 1]``, in legal-move order, and
    ``played[i]`` is the child of the move made. An organism's choice is the first child of best score
    (a segment arg-max). Positions where a move mates are left out of ``rows``: every organism mates there.

    Speed: the features are stored once multiplied by their sign, in float32 (scores to about 0.001 cp);
    a generation gathers the sampled positions' children, computes every organism's score of every child
    with one product ``W · Fᵀ`` (population, children), and takes segment maxima with ``np.maximum.reduceat``
    along each organism's contiguous row.

    The loss is, by ``loss``:

    * ``agreement`` (the paper's): 1 − the share of positions where the choice is the played move
      (``agreement="count"``), or 1 − that share squared (``"squared"``, the paper's squared count: it
      changes nothing under tournament selection, which ranks, but weighs good organisms more under
      roulette selection);
    * ``likelihood``: the mean negative log-likelihood (nats) of the played move under
      softmax(β · score) over each position's children, with β (per cp) fitted for each organism on the
      same positions by :data:`NEWTON_STEPS` Newton steps on the (convex) negative log-likelihood, from
      β₀ = 1 / the mean gap between a child's score and its position's best. Fitting β makes the loss
      blind to the scale of the weights, as the agreement is.
    """

    name = "moves"
    summary_heading = "Move agreement"
    NEWTON_STEPS = 4

    def __init__(self, features: np.ndarray, sign: np.ndarray, fixed: np.ndarray, offsets: np.ndarray,
                 played: np.ndarray, loss: str = "agreement", agreement: str = "count") -> None:
        if loss not in MOVE_LOSSES:
            raise SettingsError(f"unknown move loss {loss!r} (one of {', '.join(MOVE_LOSSES)})")
        if agreement not in AGREEMENTS:
            raise SettingsError(f"unknown agreement {agreement!r} (one of {', '.join(AGREEMENTS)})")
        self.signed = np.ascontiguousarray(np.asarray(features, dtype=np.float32)
                                           * np.asarray(sign, dtype=np.float32)[:, None])
        self.fixed = np.asarray(fixed, dtype=np.float64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.played = np.asarray(played, dtype=np.int64)
        self.loss = loss
        self.agreement_kind = agreement
        self.unit = "1 − agreement" if loss == "agreement" else "nats"
        mates = self.fixed == MATE_FIXED
        has_mate = (np.add.reduceat(mates.astype(np.int64), self.offsets[:-1]) > 0 if len(self.played)
                    else np.zeros(0, dtype=bool))
        self.mate_positions = int(has_mate.sum())
        self.rows = np.flatnonzero(~has_mate)
        self._kept: tuple[np.ndarray, Gathered] | None = None

    def _gather(self, rows: np.ndarray) -> Gathered:
        """The children of ``rows`` (kept while the same rows are asked for, as the held-out rows are)."""
        kept = self._kept
        if kept is not None and np.array_equal(kept[0], rows):
            return kept[1]
        starts, ends = self.offsets[rows], self.offsets[rows + 1]
        lengths = ends - starts
        local = np.cumsum(lengths) - lengths  # each row's first child among the gathered ones
        idx = np.repeat(starts - local, lengths) + np.arange(int(lengths.sum()))
        fixed = self.fixed[idx]
        fixed_at = np.flatnonzero(~np.isnan(fixed))
        played = self.played[rows] - starts + local
        g = Gathered(self.signed[idx], fixed_at, fixed[fixed_at].astype(np.float32), local, lengths, played,
                      np.stack([local, played], axis=1).reshape(-1), idx)
        self._kept = (np.array(rows), g)
        return g

    def scores(self, weights: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, Gathered]:
        """The mover's score (cp, float32) of every child of ``rows`` by every organism, (population,
        children), and the gathered rows."""
        g = self._gather(np.asarray(rows, dtype=np.int64))
        s = np.atleast_2d(weights).astype(np.float32) @ g.features.T
        if len(g.fixed_at):
            s[:, g.fixed_at] = g.fixed_values
        return s, g

    def choices(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(population, positions): the index (into all children) of each organism's choice at each row."""
        s, g = self.scores(weights, rows)
        best = np.maximum.reduceat(s, g.starts, axis=1)
        first = np.where(s == np.repeat(best, g.lengths, axis=1), np.arange(s.shape[1]), s.shape[1])
        return g.idx[np.minimum.reduceat(first, g.starts, axis=1)]

    def agreement(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Per organism, the share of ``rows`` where its choice is the played move."""
        s, g = self.scores(weights, rows)
        return agrees(s, g).mean(axis=1)

    def log_likelihood(self, weights: np.ndarray, rows: np.ndarray, beta: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
        """Per organism, the mean log-likelihood of the played moves (nats) at its β fitted on ``rows``,
        and that β; or at the given ``beta`` (one per organism, e.g. fitted on the training rows)."""
        s, g = self.scores(weights, rows)
        return _log_likelihood(s, g, self.NEWTON_STEPS, beta)

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        s, g = self.scores(weights, rows)
        if self.loss == "likelihood":
            return -_log_likelihood(s, g, self.NEWTON_STEPS)[0]
        rate = agrees(s, g).mean(axis=1)
        return 1.0 - (rate ** 2 if self.agreement_kind == "squared" else rate)


    def winner_measures(self, weights: np.ndarray, train: np.ndarray, held: np.ndarray) -> dict[str, float] | None:
        """Both measures of one organism on the training and held-out positions, whichever drives the GA:
        the agreement rate, the mean log-likelihood of the played moves at β fitted on the training positions
        (and that β), chance's agreement (the mean of 1 / legal moves) and a uniform choice's likelihood."""
        out: dict[str, float] = {}
        beta: np.ndarray | None = None
        for part, subset in (("train", train), ("held", held)):
            rows = np.intersect1d(subset, self.rows)
            if not len(rows):
                continue
            w = np.atleast_2d(weights)
            out[f"{part}_agreement"] = float(self.agreement(w, rows)[0])
            ll, beta = self.log_likelihood(w, rows, beta)  # fitted on the training rows, kept for the held out
            out[f"{part}_log_likelihood"] = float(ll[0])
            out["beta"] = float(beta[0])
            lengths = self.offsets[rows + 1] - self.offsets[rows]
            out[f"{part}_chance"] = float(np.mean(1.0 / lengths))
            out[f"{part}_uniform_log_likelihood"] = float(np.mean(-np.log(lengths)))
            out[f"{part}_positions"] = float(len(rows))
        return out

    def summary_errors(self, settings: RunSettings, o: RunOutcome) -> list[str]:
        """The summary's table of the moves objective: both measures of the winner, beside chance."""
        m = o.measures or {}
        drives = ("the agreement" + (" (squared)" if settings.agreement == "squared" else "")
                  if settings.moves_loss == "agreement" else "the log-likelihood")

        def cell(key: str, fmt: str) -> str:
            return format(m[key], fmt) if key in m else "–"

        return [f"The organism's choice at a position is the legal move whose child, resolved by a capture-only "
                f"quiescence (material values), scores best under its evaluation; it agrees when that is the move "
                f"{settings.player!r} played. The split is by game. {drives.capitalize()} drove the GA (loss: "
                f"{self.unit}). Positions where a move mates ({self.mate_positions}) are left out: "
                "every organism mates there.", "",
                "| | training | held out |", "|---|---|---|",
                f"| positions | {cell('train_positions', '.0f')} | {cell('held_positions', '.0f')} |",
                f"| agreement of the GA winner | {cell('train_agreement', '.2%')} | {cell('held_agreement', '.2%')} |",
                f"| agreement by chance (mean 1 / legal moves) | {cell('train_chance', '.2%')} | "
                f"{cell('held_chance', '.2%')} |",
                f"| log-likelihood of the played move, GA winner (nats a move) | "
                f"{cell('train_log_likelihood', '.4f')} | {cell('held_log_likelihood', '.4f')} |",
                f"| log-likelihood of a uniform choice (nats a move) | {cell('train_uniform_log_likelihood', '.4f')} | "
                f"{cell('held_uniform_log_likelihood', '.4f')} |",
                f"| GA loss ({self.unit}) | {o.train_loss:.4f} | {o.held_loss:.4f} |", "",
                f"β = {cell('beta', '.4g')} per cp, fitted on the training positions by {self.NEWTON_STEPS} "
                "Newton steps on the convex negative log-likelihood of softmax(β · score), from β₀ = 1 / the mean "
                "gap between a child's score and its position's best; the held-out likelihood uses the same β. "
                "(While the GA runs, the likelihood loss fits β for each organism on the positions it is measured "
                "on: the logbook's held-out column fits that one parameter on the held-out positions.)"]

    def outcome_lines(self, o: RunOutcome) -> list[str]:
        m = o.measures
        if not m:
            return []
        return ["move agreement: " + ", ".join(
            f"{name} {m[f'{p}_agreement']:.2%} (chance {m[f'{p}_chance']:.2%}), log-likelihood "
            f"{m[f'{p}_log_likelihood']:.4f} nats a move (uniform {m[f'{p}_uniform_log_likelihood']:.4f})"
            for p, name in (("train", "training"), ("held", "held out")) if f"{p}_agreement" in m)
            + (f"; beta {m['beta']:.3g}/cp (fitted on the training positions)" if "beta" in m else "")]

MATE_FIXED = 30_000.0
"""The mover's score of a mating move (:data:`evolve.data.moves.MATE_SCORE`; repeated here, as this module
imports nothing of the package)."""


@dataclass
class Gathered:
    """The children of some training positions, gathered for scoring (:meth:`MoveAgreement.scores`):
    their signed features, the children whose score is fixed (mates, draws), and each position's
    segment of children (start, length, played child) as :func:`agrees` and the log-likelihood read it."""

    features: np.ndarray  # (m, genes) float32, signed: the children of the rows asked for
    fixed_at: np.ndarray  # indices (within m) of children with a fixed score
    fixed_values: np.ndarray
    starts: np.ndarray  # (n,) each row's first child, within m
    lengths: np.ndarray  # (n,)
    played: np.ndarray  # (n,) the played child, within m
    bounds: np.ndarray  # (2n,) starts and played interleaved (the two halves of each segment)
    idx: np.ndarray  # (m,) the children's indices among all children


def agrees(s: np.ndarray, g: Gathered) -> np.ndarray:
    """(population, positions) bool: the first best child is the played one. One ``reduceat`` over the
    halves [start, played) and [played, next start) of each segment: the played child's score must be
    the best of the second half and beat every score of the first (empty when the played move is first)."""
    halves = np.maximum.reduceat(s, g.bounds, axis=1)
    ps = s[:, g.played]
    return (halves[:, 1::2] <= ps) & ((g.played == g.starts) | (halves[:, 0::2] < ps))


def _log_likelihood(s: np.ndarray, g: Gathered, steps: int, given: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Mean log softmax(β · s) of the played children per organism, β fitted per organism (see
    :class:`MoveAgreement`) unless ``given``. Returns (log-likelihood, β), float64."""
    best = np.maximum.reduceat(s, g.starts, axis=1)
    d = s - np.repeat(best, g.lengths, axis=1)  # <= 0; 0 at each position's best
    dp = d[:, g.played].astype(np.float64)  # (population, n)
    beta = 1.0 / np.maximum(-d.mean(axis=1, dtype=np.float64), 1e-6)
    if given is not None:
        beta, steps = np.broadcast_to(np.asarray(given, dtype=np.float64), beta.shape).copy(), 0
    for _ in range(steps):  # segment sums in float32: at most a few hundred terms of at most 1 each
        e = np.exp(d * beta.astype(np.float32)[:, None])
        z = np.add.reduceat(e, g.starts, axis=1).astype(np.float64)
        e *= d
        a = np.add.reduceat(e, g.starts, axis=1) / z
        e *= d
        b = np.add.reduceat(e, g.starts, axis=1) / z
        grad = (a - dp).mean(axis=1)
        hess = np.maximum((b - a * a).mean(axis=1), 1e-18)
        step = beta - grad / hess
        beta = np.where(step > 0, step, beta / 2)
    z = np.add.reduceat(np.exp(d * beta.astype(np.float32)[:, None]), g.starts, axis=1).astype(np.float64)
    return (beta[:, None] * dp - np.log(z)).mean(axis=1), beta
