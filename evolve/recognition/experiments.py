"""The experiment (``mimic recognize experiment``): train, classify the held-out test game sides at each k of
:data:`KS`, and run the baselines on the same split.

**Baselines**: chance (1 / players); the *shared organism*: its measure of a query beside each player's mean
measure on their validation sides, the nearest wins (one number per query: strength, not style); the
*centipawn-loss profile* (:mod:`evolve.recognition.baselines`), classified by the nearest centroid (Euclidean) of
the players' training histograms. **The classifier** (when ``train`` fitted one): over every feature family
alone and all together (:func:`family_log_probabilities`). Every method's top-1 and top-3 at each k has its exact
binomial 95 % interval (:func:`rated`; ``results["k"][K]["methods"]``). The results go to ``summary.md``,
``confusion.png``, ``accuracy.png`` (:mod:`evolve.recognition.summary`) and ``queries-kK.csv`` in the run's folder.

May import numpy, scipy (the intervals), :mod:`search.runtime` and the other recognition modules.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evolve.recognition.baselines import CHUNK_SIDES, CP_BINS, CP_LOSS, cp_histogram, cp_losses
from evolve.recognition.caches import cache_folder
from evolve.recognition.classification import Query, group_sides, write_csv
from evolve.recognition.classifier import fit_classifier, group_scores
from evolve.recognition.families import FAMILIES, StyleSettings
from evolve.recognition.gameset import Progress
from evolve.recognition.measures import position_measures, score_groups, side_counts, side_means
from evolve.recognition.replay import replay_queries
from evolve.recognition.replay_candidates import Candidate
from evolve.recognition.summary import plot_accuracy, plot_confusion, write_summary
from evolve.recognition.training import RecognizeSettings, Trained, train
from search.players.spec import PlayerRegistry
from search.runtime.workers import parallel_map

KS: tuple[int | None, ...] = (1, 4, 16, None)
"""The group sizes of an experiment; ``None`` is all of a player's test game sides in one group."""

QUERIES = "queries"
"""The stage of classifying the test queries; its units are the group sizes of :data:`KS`."""


@dataclass(frozen=True, kw_only=True)
class ExperimentSettings:
    """``mimic recognize experiment``: the training settings, the centipawn-loss mentor and how many
    positions a side it looks at (``None``: all); the candidates replayed on the test sides (with their
    ``movetime`` and ``multipv``: :func:`evolve.recognition.replay.replay_queries`), none by default, on each
    player's first ``replay_sides`` test sides (in file order) and each side's first ``replay_positions``
    positions (``None``: all; replaying is the slow part)."""

    train: RecognizeSettings
    mentor: str = "expert@depth=1"
    cp_positions: int | None = None
    candidates: tuple[Candidate, ...] = ()  # replay for engines (evolve.recognition.replay), when given
    movetime: float = 0.1
    multipv: int = 4
    replay_sides: int | None = None  # replay: each player's first that many test sides (None: all)
    replay_positions: int | None = None  # replay: each side's first that many positions (None: all)


def _k_name(k: int | None) -> str:
    return "all" if k is None else str(k)


def _accuracy(scores: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Top-1 and top-3 of (queries, players) scores (higher is better; ties: the first player)."""
    if not len(truth):
        return float("nan"), float("nan")
    order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), axis=1, kind="stable")
    return float(np.mean(order[:, 0] == truth)), float(np.mean((order[:, :3] == truth[:, None]).any(axis=1)))


def binomial_ci(successes: int, n: int) -> tuple[float, float]:
    """The exact (Clopper-Pearson) 95 % interval of a share of ``successes`` in ``n`` (NaN for none).

    >>> [round(x, 3) for x in binomial_ci(3, 10)]
    [0.067, 0.652]
    """
    if n == 0:
        return float("nan"), float("nan")
    from scipy.stats import binomtest

    ci = binomtest(successes, n).proportion_ci(confidence_level=0.95)
    return float(ci.low), float(ci.high)


def rated(scores: np.ndarray, truth: np.ndarray) -> dict[str, Any]:
    """Top-1 and top-3 of (queries, players) scores with their 95 % intervals and the number of queries; the
    confusion matrix (rows: who played, columns: the top-ranked player; ties: the first) and ``max_share``, the
    largest share of the queries that one player is predicted for (chance: 1 / players).

    >>> m = rated(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([0, 1, 1]))
    >>> m["top1"], m["confusion"], m["max_share"]
    (0.6666666666666666, [[1, 0], [1, 1]], 0.6666666666666666)
    """
    n, players = len(truth), scores.shape[1]
    top1, top3 = _accuracy(scores, truth)
    confusion = np.zeros((players, players), dtype=np.int64)
    if n:
        pred = np.argsort(-np.nan_to_num(scores, nan=-np.inf), axis=1, kind="stable")[:, 0]
        np.add.at(confusion, (truth, pred), 1)
    return {"top1": top1, "top3": top3, "n": n, "top1_ci": binomial_ci(round(top1 * n) if n else 0, n),
            "top3_ci": binomial_ci(round(top3 * n) if n else 0, n), "confusion": confusion.tolist(),
            "max_share": float(confusion.sum(axis=0).max() / n) if n else float("nan")}


def best_method(results: dict[str, Any]) -> str:
    """The method with the highest top-1 at the first k (ties: the first listed; chance never): the one whose
    confusion matrices are drawn."""
    methods = next(iter(results["k"].values()))["methods"]
    ranked = [(m["top1"], -i, name) for i, (name, m) in enumerate(methods.items())
              if name != "chance" and np.isfinite(m["top1"])]
    return max(ranked)[2] if ranked else "clones"


def _replay_scores(queries: list[Any], players: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(queries, players) scores from replayed queries' rankings (higher is better; a player not among the
    candidates ranks last) and the true players, over the queries with positions and a known player."""
    known = [q for q in queries if q.positions and q.player in players]
    scores = np.full((len(known), len(players)), -np.inf)
    for j, q in enumerate(known):
        for r, name in enumerate(q.ranking):
            if name in players:
                scores[j, players.index(name)] = -r
    return scores, np.array([players.index(q.player) for q in known], dtype=np.int64)


def replay_means(queries: list[Any]) -> dict[str, float]:
    """Each candidate's matching share over every position of the replayed ``queries`` it did not fail on (one side
    a query: the k = 1 queries), whoever played them: how often it plays the move played in anybody's game. No label
    is used.

    >>> from evolve.recognition.replay import ReplayQuery
    >>> qs = [ReplayQuery([], "a", "", 4, {"a": 1.0, "b": 0.5}), ReplayQuery([], "b", "", 2, {"a": 0.5, "b": 1.0})]
    >>> replay_means(qs)  # a: (4 x 1 + 2 x 0.5) / 6; b: (4 x 0.5 + 2 x 1) / 6
    {'a': 0.8333333333333334, 'b': 0.6666666666666666}
    """
    known = [q for q in queries if q.positions]
    names = list(known[0].scores) if known else []
    out = {}
    for n in names:  # each over the positions it answered (a failed one is in no score: replay_scores.FAILURES)
        weighed = [(q.positions - getattr(q, "failed", {}).get(n, 0), q.scores[n]) for q in known]
        total = sum(w for w, score in weighed if np.isfinite(score))
        out[n] = sum(w * score for w, score in weighed if np.isfinite(score)) / total if total else float(np.nan)
    return out


def _replay_normalised(queries: list[Any], players: list[str], means: dict[str, float]
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(queries, players) scores of the normalised replay: a candidate's matching share on the query minus its
    share over all replayed positions (:func:`replay_means`), so a candidate that agrees with every engine (a
    strong one, whose moves are the common ones) no longer takes the queries of those it merely agrees with; ties
    broken by the played moves' mean MultiPV log-likelihood (its weight of 1e-6 a nat is below any difference of
    shares, 1 / positions), then by the players' order. The true players as :func:`_replay_scores`."""
    known = [q for q in queries if q.positions and q.player in players]
    scores = np.full((len(known), len(players)), -np.inf)
    for j, q in enumerate(known):
        for c, name in enumerate(players):
            if name in q.scores and np.isfinite(q.scores[name]):
                ll = q.likelihood.get(name, np.nan)
                scores[j, c] = q.scores[name] - means.get(name, 0.0) + (1e-6 * ll if np.isfinite(ll) else 0.0)
    return scores, np.array([players.index(q.player) for q in known], dtype=np.int64)


def family_log_probabilities(tr: Trained, players: list[str], test: list[int]) -> dict[str, np.ndarray]:
    """(test sides, players) log-probabilities of a classifier fitted on the training sides' features of each
    family alone (``features:FAMILY``), of all but one (``features:-FAMILY``, with three families or more: what
    that family adds) and of all of them (``features``), its strength picked on the validation
    sides as ``train`` does; ``test``: indices into ``tr.games.sides``. Empty when no classifier was trained."""
    if tr.vectors is None:
        return {}
    st = tr.manifest["settings"]
    where = {side: j for j, side in enumerate(tr.order)}
    families = list(st["features"])

    def rows(k: str) -> tuple[list[int], np.ndarray]:
        got = [(where[i], c) for c, p in enumerate(players) for i in tr.sides[p][k]]
        return [r for r, _ in got], np.array([c for _, c in got], dtype=np.int64)

    (tr_rows, y_tr), (val_rows, y_val) = rows("train"), rows("validation")
    test_rows = [where[i] for i in test]
    out = {}
    alone = [(f"features:{f}", [f]) for f in families if len(families) > 1]
    all_but = [(f"features:-{f}", [g for g in families if g != f]) for f in families if len(families) > 2]
    for name, chosen in [*alone, *all_but, ("features", families)]:
        cols = [j for j, n in enumerate(tr.vector_names) if n.split(":")[0] in chosen]
        style = StyleSettings(tuple(f for f in FAMILIES if f in chosen), st["skip_plies"])
        x = tr.vectors[:, cols]
        clf = fit_classifier(x[tr_rows], y_tr, x[val_rows], y_val, players, [tr.vector_names[j] for j in cols], style)
        out[name] = clf.log_probabilities(x[test_rows]).reshape(len(test_rows), len(players))
    return out


Histograms = Callable[[Sequence[int]], tuple[np.ndarray, int]]
"""The centipawn-loss histogram of a group of game sides (indices into ``Trained.games.sides``) and its number of
moves."""


def _profile_histograms(tr: Trained) -> Histograms | None:
    """The groups' histograms from the mentor profile's centipawn-loss bins (each side's shares weighted by its
    positions: the histogram of all the group's moves), when the classifier's features have the profile; else
    ``None``. The profile's engine at its deepest depth is then the baseline's mentor, at no extra cost."""
    cols = [j for j, n in enumerate(tr.vector_names) if n.startswith("profile:cp_bin:")]
    if tr.vectors is None or len(cols) != len(CP_BINS):
        return None
    where = {side: j for j, side in enumerate(tr.order)}
    shares = np.nan_to_num(tr.vectors[:, cols])
    moves = np.bincount(tr.positions.side, minlength=len(tr.order)).astype(np.float64)

    def histograms(group: Sequence[int]) -> tuple[np.ndarray, int]:
        rows = [where[i] for i in group]
        n = float(moves[rows].sum())
        return (moves[rows] @ shares[rows] / n if n else np.zeros(len(CP_BINS))), int(n)

    return histograms


def _mentor_histograms(tr: Trained, players: list[str], settings: ExperimentSettings,
                       on_progress: Progress | None) -> Histograms:
    """The groups' histograms of every move's loss against ``settings.mentor``, measured on the training and test
    sides (:func:`evolve.recognition.baselines.cp_losses`, ``jobs`` processes; ``on_progress``: stage ``cp_loss``)."""
    st = settings.train
    cp_sides = sorted({i for p in players for k in ("train", "test") for i in tr.sides[p][k]})
    entries = [(i, tr.games.games[tr.games.sides[i].game][0], tr.games.games[tr.games.sides[i].game][1],
                tr.games.sides[i].color) for i in cp_sides]
    chunks = [entries[i:i + CHUNK_SIDES] for i in range(0, len(entries), CHUNK_SIDES)]
    if on_progress is not None:
        on_progress(CP_LOSS, 0, len(chunks))
    parts = []
    for part in parallel_map(cp_losses, chunks, st.jobs, args=(st.skip_plies, settings.mentor, settings.cp_positions)):
        parts.append(part)
        if on_progress is not None:
            on_progress(CP_LOSS, len(parts), len(chunks))
    losses = {side: ls for part in parts for side, ls in part}

    def histograms(group: Sequence[int]) -> tuple[np.ndarray, int]:
        moves = [x for i in group for x in losses[i]]
        return cp_histogram(moves), len(moves)

    return histograms


def experiment(settings: ExperimentSettings, command: str, on_error: Callable[[str], None] | None = None,
               cache_dir: str | Path | None = None, on_progress: Progress | None = None,
               registry: PlayerRegistry | None = None) -> dict[str, Any]:
    """Train, classify the held-out test game sides at each k of :data:`KS`, run the baselines on the same
    split, and write summary.md, confusion.png, accuracy.png and queries-kK.csv into the folder; with
    ``settings.candidates`` (built by ``registry``), replay them on the test sides too (``replay-kK.csv``).
    ``on_progress`` (stage, done, total) is called as work completes, stage by stage: the stages of
    :func:`evolve.recognition.training.train`, then ``cp_loss`` (chunks of game sides measured), then ``queries``
    (the group sizes classified)."""
    st = settings.train
    tr = train(st, command, on_error=on_error, cache_dir=cache_dir, on_progress=on_progress)
    out = Path(st.out)
    players = list(st.players)
    P = len(players)
    t0 = time.perf_counter()
    where = {side: j for j, side in enumerate(tr.order)}
    vals, rows = position_measures(tr.weights, tr.betas, tr.positions, st.score)
    side_of = tr.positions.side[rows]
    normal = np.array([tr.manifest["clones"][p]["normalisation"] for p in players])
    shared_vals = None
    if tr.shared_weights is not None:
        shared_vals = position_measures(tr.shared_weights, np.array([tr.shared_beta]), tr.positions, st.score)[0]
        shared_centroid = side_means(shared_vals, side_of, [[where[i] for i in tr.sides[p]["validation"]
                                                             or tr.sides[p]["train"]] for p in players])[0]
    # The centipawn-loss profile: each group's histogram, the players' training histograms as centroids.
    cp_histograms = _profile_histograms(tr)
    cp_source = "profile" if cp_histograms is not None else settings.mentor
    if cp_histograms is None:
        cp_histograms = _mentor_histograms(tr, players, settings, on_progress)
    centroids = np.array([cp_histograms(tr.sides[p]["train"])[0] for p in players])
    seconds_cp = time.perf_counter() - t0

    results: dict[str, Any] = {"k": {}, "players": players}
    test_sides = [(i, p) for p in players for i in tr.sides[p]["test"]]
    replayed = None
    if settings.candidates:
        if registry is None:
            raise ValueError("replay needs the registry of player kinds")
        cap = settings.replay_sides
        replay_subset = [(i, p) for p in players for i in tr.sides[p]["test"][:cap]]
        replayed = replay_queries(tr.games, [i for i, _ in replay_subset], [p for _, p in replay_subset],
                                  settings.candidates, registry, KS, st.skip_plies, settings.movetime,
                                  settings.multipv, st.jobs, cache_folder("replay", cache_dir), on_error, on_progress,
                                  settings.replay_positions)
    replay_mean = replay_means(replayed[KS.index(1)]) if replayed is not None else {}
    family_logp = family_log_probabilities(tr, players, [i for i, _ in test_sides])
    if on_progress is not None:
        on_progress(QUERIES, 0, len(KS))
    for done, k in enumerate(KS, 1):
        groups = group_sides([p for _, p in test_sides], k)
        side_groups = [[test_sides[j][0] for j in g] for g in groups]
        truth = np.array([players.index(test_sides[g[0]][1]) for g in groups], dtype=np.int64)
        pos_groups = [[where[i] for i in g] for g in side_groups]
        scores = score_groups(vals, side_of, pos_groups, normal) if groups else np.zeros((0, P))
        npos = side_counts(side_of, pos_groups)
        queries = [Query([f"{tr.games.sources[tr.games.sides[i].game]} "
                          f"{'white' if tr.games.sides[i].color else 'black'}" for i in g],
                         players[truth[j]], tr.games.sides[g[0]].header, int(npos[j]),
                         {p: float(scores[j, c]) for c, p in enumerate(players)})
                    for j, g in enumerate(side_groups)]
        write_csv(out / f"queries-k{_k_name(k)}.csv", queries, players, k)
        keep = npos > 0
        row: dict[str, Any] = {"queries": int(keep.sum())}
        row["clones"] = _accuracy(scores[keep], truth[keep])
        row["chance"] = (1 / P, min(3, P) / P)
        if replayed is not None:
            write_csv(out / f"replay-k{_k_name(k)}.csv", replayed[done - 1], [c.name for c in settings.candidates], k)
            known = [q for q in replayed[done - 1] if q.positions]
            row["replay_failed"] = {c.name: sum(q.failed.get(c.name, 0) for q in replayed[done - 1])
                                    for c in settings.candidates}
            row["replay"] = ((float(np.mean([q.predicted == q.player for q in known])),
                              float(np.mean([q.player in q.ranking[:3] for q in known])))
                             if known else (float("nan"), float("nan")))
        if shared_vals is not None:
            q = side_means(shared_vals, side_of, pos_groups)[0] if groups else np.zeros(0)
            row["shared"] = _accuracy(-np.abs(q[:, None] - shared_centroid[None, :])[keep], truth[keep])
        measured = [cp_histograms(g) for g in side_groups]
        hists = np.array([h for h, _ in measured]).reshape(-1, len(CP_BINS))
        has = np.array([n > 0 for _, n in measured], dtype=bool)
        d = -np.linalg.norm(hists[:, None, :] - centroids[None, :, :], axis=2) if len(side_groups) else np.zeros((0, P))
        row["cp_loss"] = _accuracy(d[has], truth[has])
        methods = {"chance": {"top1": 1 / P, "top3": min(3, P) / P, "n": len(truth)},
                   "cp_loss": rated(d[has], truth[has]), "clones": rated(scores[keep], truth[keep])}
        if shared_vals is not None:
            methods["shared"] = rated(-np.abs(q[:, None] - shared_centroid[None, :])[keep], truth[keep])
        for name, logp in family_logp.items():
            methods[name] = rated(group_scores(logp, groups), truth)
        if "features" in family_logp:
            fscores = group_scores(family_logp["features"], groups)
            write_csv(out / f"features-k{_k_name(k)}.csv",
                      [Query(q.sides, q.player, q.header, q.positions, {p: float(fscores[j, c])
                                                                        for c, p in enumerate(players)})
                       for j, q in enumerate(queries)], players, k)
        if replayed is not None:
            methods["replay"] = rated(*_replay_scores(replayed[done - 1], players))
            methods["replay_norm"] = rated(*_replay_normalised(replayed[done - 1], players, replay_mean))
        row["methods"] = methods
        per_player = {}
        for c, p in enumerate(players):
            mine = keep & (truth == c)
            per_player[p] = (*_accuracy(scores[mine], truth[mine]), int(mine.sum()))
        row["per_player"] = per_player
        confusion = np.zeros((P, P), dtype=np.int64)
        if keep.any():
            pred = np.argsort(-np.nan_to_num(scores[keep], nan=-np.inf), axis=1, kind="stable")[:, 0]
            np.add.at(confusion, (truth[keep], pred), 1)
        row["confusion"] = confusion.tolist()
        results["k"][_k_name(k)] = row
        if on_progress is not None:
            on_progress(QUERIES, done, len(KS))
    results["seconds_cp_loss"] = seconds_cp
    results["cp_source"] = cp_source
    results["best"] = best_method(results)
    plot_confusion(out / "confusion.png", results, players, results["best"])
    plot_accuracy(out / "accuracy.png", results)
    write_summary(out / "summary.md", results, tr, settings, command)
    return results
