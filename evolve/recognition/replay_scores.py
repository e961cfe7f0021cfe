"""Replay's scores (``mimic recognize classify --method replay``): how a candidate's replay of a game side is
scored and ranked (one table each, :data:`SCORES` and :data:`RANKINGS`), the MultiPV likelihood of a played move, and
which positions tell candidates apart. Pure functions of the replayed arrays (:mod:`evolve.recognition.replay`).

May import chess and numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import chess
import numpy as np

BETA = 2.0
"""The softmax's inverse temperature per pawn: a move one pawn worse is ``e^-2`` ≈ 0.14 times as likely."""

OUTSIDE_CP = 100
"""Centipawns below the worst MultiPV line that each legal move outside the list is scored at."""

SCORE_CAP = 1500
"""Scores (mates included) are capped at ± this many centipawns before the softmax."""

SCORES = {
    "match": "the share of the positions where the candidate plays the played move",
    "likelihood": "the played move's mean probability under softmax(BETA x score / 100) over the candidate's MultiPV "
                  "lines (its expected matching share, were it to draw its moves from them)",
}
"""How a candidate's score of a query is taken, by name (:attr:`Candidate.score`): both are a share of positions in
[0, 1], so candidates scored either way rank together. A deterministic engine is scored by ``match``; a randomised
one (:data:`RANDOMISING`) plays the played move only by chance and is scored by ``likelihood``."""

FAILURES = {
    1: ("answer without a move", "answers without a move"),
    2: ("illegal or null move", "illegal or null moves"),
    3: ("timeout", "timeouts"),
    4: ("crash", "crashes"),
}
"""How a candidate failed on a position, by its code in the replay's ``error`` array (0: a legal move in time;
singular and plural): no move (``bestmove (none)``), an illegal or null move (``0000``) or one the protocol
refuses, no move within the deadline of ``mimic games --movetime``
(:func:`search.games.game.movetime_deadline`; an engine searching by its own depth or nodes is told to stop first
and killed later), the process dead. A failed position says nothing of how the candidate plays: it is left out of
that candidate's score (its mean is over the positions it answered), counted, and never cached."""

RANKINGS = {
    "normalised": "each candidate's score minus its score over every replayed position of the query file",
    "raw": "each candidate's score",
}
"""How candidates are ranked, by name: ``normalised`` keeps a candidate that agrees with everyone (a strong engine,
whose moves are the common ones) from taking the queries of those it merely agrees with; it needs a query file with
the games of several players (with one query it ranks as ``raw``)."""


def log_likelihood(lines: Sequence[tuple[chess.Move, int | None]], played: chess.Move, legal: int,
                   beta: float = BETA) -> float:
    """The played move's log-probability (nats) under ``softmax(beta × score / 100)`` over the ``legal`` moves,
    from MultiPV ``lines`` (move, centipawns from the side to move's view) capped at ±:data:`SCORE_CAP`; a move
    outside the lines scores :data:`OUTSIDE_CP` below the worst line. NaN when a line has no score.

    >>> a, b = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
    >>> round(log_likelihood([(a, 100), (b, 0)], b, 2), 4)  # log(e^0 / (e^2 + e^0))
    -2.1269
    """
    if not lines or any(s is None for _, s in lines):
        return math.nan
    scores = {m: beta * max(-SCORE_CAP, min(SCORE_CAP, s)) / 100 for m, s in lines if s is not None}
    outside = min(scores.values()) - beta * OUTSIDE_CP / 100
    values = [*scores.values(), *([outside] * max(legal - len(scores), 0))]
    top = max(values)
    return scores.get(played, outside) - top - math.log(sum(math.exp(v - top) for v in values))


def decisive_plies(replayed: dict[str, dict[str, np.ndarray]]) -> dict[int, frozenset[int]]:
    """The positions that tell candidates apart, by the exact candidates' replays (``replayed``, two or more, on
    the same positions): each side's plies where one of them or more did not play the played move. Where all of
    them played it (an obvious move), a position tells none of them apart and says little of anyone else.

    >>> r = {n: {"side": np.array([0, 0, 1]), "ply": np.array([4, 6, 5]), "match": np.array(m)}
    ...      for n, m in (("a", [1, 1, 0]), ("b", [1, 0, 1]))}
    >>> decisive_plies(r)  # ply 4 of side 0 both matched: left out
    {0: frozenset({6}), 1: frozenset({5})}
    """
    arrays = list(replayed.values())
    agree = np.logical_and.reduce([a["match"].astype(bool) for a in arrays])
    out: dict[int, set[int]] = {}
    for side, ply, all_matched in zip(arrays[0]["side"].tolist(), arrays[0]["ply"].tolist(), agree.tolist(),
                                      strict=True):
        plies = out.setdefault(int(side), set())
        if not all_matched:
            plies.add(int(ply))
    return {side: frozenset(plies) for side, plies in out.items()}


def failure_text(codes: np.ndarray) -> str:
    """The failures among ``codes`` (:data:`FAILURES`), counted by kind.

    >>> failure_text(np.array([0, 2, 3, 2]))
    '2 illegal or null moves, 1 timeout'
    """
    counts = np.bincount(np.asarray(codes, dtype=np.int64), minlength=max(FAILURES) + 1)
    return ", ".join(f"{n} {FAILURES[code][n != 1]}" for code in FAILURES if (n := int(counts[code])))


def failed_counts(replayed: dict[str, dict[str, np.ndarray]], groups: Sequence[Sequence[int]]) -> np.ndarray:
    """(groups, candidates) positions each candidate failed on (:data:`FAILURES`) in each group of side indices."""
    n = 1 + max([int(r["side"].max()) for r in replayed.values() if len(r["side"])]
                + [i for g in groups for i in g] + [0])
    out = np.zeros((len(groups), len(replayed)), dtype=np.int64)
    for c, r in enumerate(replayed.values()):
        per = np.bincount(r["side"].astype(np.int64), weights=(r["error"] != 0).astype(float), minlength=n)
        out[:, c] = [int(per[list(g)].sum()) for g in groups]
    return out


def position_scores(replayed: dict[str, np.ndarray], score: str) -> np.ndarray:
    """One candidate's score of each replayed position (:data:`SCORES`): ``match`` 1 or 0; ``likelihood`` the
    played move's probability under the MultiPV softmax (``exp(loglik)``), NaN where the position has none."""
    if score == "likelihood":
        return np.exp(replayed["loglik"].astype(np.float64))
    if score != "match":
        raise ValueError(f"unknown score {score!r}: one of {', '.join(SCORES)}")
    return replayed["match"].astype(np.float64)


def score_replay(replayed: dict[str, dict[str, np.ndarray]], groups: Sequence[Sequence[int]],
                 scores: dict[str, str] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For groups of side indices: positions a group, and (groups, candidates) scores (each candidate's
    :data:`SCORES` entry named by ``scores``, default ``match``: matching shares) and mean log-likelihoods over the
    positions the candidate did not fail on (:data:`FAILURES`; NaN where a group has none, or a position of it no
    MultiPV likelihood)."""
    names = list(replayed)
    n = 1 + max([int(r["side"].max()) for r in replayed.values() if len(r["side"])]
                + [i for g in groups for i in g] + [0])
    counts = np.zeros(len(groups), dtype=np.int64)
    share = np.full((len(groups), len(names)), np.nan)
    loglik = np.full((len(groups), len(names)), np.nan)
    for c, name in enumerate(names):
        r = replayed[name]
        side = r["side"].astype(np.int64)
        ll = r["loglik"].astype(np.float64)
        value = position_scores(r, (scores or {}).get(name, "match"))
        ok = (r["error"] == 0).astype(float) if "error" in r else np.ones(len(side))
        per = [np.bincount(side, weights=w, minlength=n) for w in
               (np.ones(len(side)), ok, ok * np.nan_to_num(value), ok * ~np.isfinite(value), ok * np.nan_to_num(ll),
                ok * ~np.isfinite(ll))]
        for j, g in enumerate(groups):
            npos, answered, total, unscored, llsum, missing = (float(a[list(g)].sum()) for a in per)
            counts[j] = int(npos)
            if answered:
                share[j, c] = total / answered if unscored == 0 else np.nan
                loglik[j, c] = llsum / answered if missing == 0 else np.nan
    return counts, share, loglik


def score_offsets(replayed: dict[str, dict[str, np.ndarray]], scores: dict[str, str]) -> dict[str, float]:
    """Each candidate's score (``scores``: its :data:`SCORES` name) over every replayed position, whoever played
    it, failed positions left out (:data:`FAILURES`): what the normalised ranking subtracts (:data:`RANKINGS`). No
    label is used.

    >>> r = {"a": {"match": np.array([1, 1, 0, 1]), "loglik": np.log([0.5, 0.5, 0.25, 0.25])}}
    >>> score_offsets(r, {"a": "match"}), score_offsets(r, {"a": "likelihood"})  # 3 / 4; (0.5+0.5+0.25+0.25) / 4
    ({'a': 0.75}, {'a': 0.375})
    """
    out = {}
    for name, r in replayed.items():
        value = position_scores(r, scores.get(name, "match"))
        if "error" in r:
            value = value[r["error"] == 0]
        out[name] = float(np.nanmean(value)) if np.isfinite(value).any() else math.nan
    return out
