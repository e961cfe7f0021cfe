"""Classification (``mimic recognize classify``): score game sides, or groups of ``k`` sides, for every player.

Two methods (:data:`METHODS`). ``features`` (the default when the folder has a classifier): a query's score for a
player is the sum of its sides' log-probabilities of that player under the folder's classifier
(:mod:`evolve.recognition.classifier`) over the sides' style features (:mod:`evolve.recognition.vectors`).
``clones``: a query's score by a clone is its measure minus the clone's normalisation
(:mod:`evolve.recognition.measures`). The players are ranked by score, best first (:class:`Query`). One row a
query goes to a CSV (:func:`write_csv`) that keeps the columns ``player``, ``predicted``, ``rank`` and one
``score:NAME`` column per player, and the accuracy is recounted from that CSV (:func:`read_csv_accuracy`).

May import numpy, :mod:`organisms`, :mod:`search.runtime` and the recognition modules below it (caches, gameset,
positions, measures, families, vectors, classifier, training's file names). A clone folder is checked before it is used
(:func:`load_clones`, :func:`used_games`).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evolve.data.moves import normal_name
from evolve.recognition.caches import cache_folder
from evolve.recognition.classifier import group_scores, load_classifier
from evolve.recognition.families import style_of
from evolve.recognition.gameset import Progress, parse_aliases, read_game_set
from evolve.recognition.measures import SCORES, position_measures, score_groups, side_counts, side_means
from evolve.recognition.positions import extract_positions
from evolve.recognition.training import MANIFEST, PARTS, SPLIT
from evolve.recognition.vectors import side_vectors
from organisms import Organism
from organisms.features import LAYOUTS, feature_names
from search.runtime.atomic import atomic_open
from search.runtime.errors import MimicError, SettingsError
from search.runtime.readback import ReadbackError, finite, json_type, read_json, require, strings, whole

METHODS = ("features", "clones")
"""How ``classify`` scores a query: the classifier over style features, or the clones' ranking."""

NORMS = ("validation", "query")
"""What ``classify`` subtracts from a clone's measure: its average on the validation sides or on the query file's."""


@dataclass
class Query:
    """One query: game sides (their sources), the true player when known, each clone's score."""

    sides: list[str]  # FILE:LINE colour
    player: str  # the trained player the sides' header names, "" when none
    header: str
    positions: int
    scores: dict[str, float]

    @property
    def ranking(self) -> list[str]:
        """Players by score, best first (ties: the order of the players)."""
        names = list(self.scores)
        return sorted(names, key=lambda n: (-self.scores[n] if np.isfinite(self.scores[n]) else np.inf,
                                            names.index(n)))

    @property
    def predicted(self) -> str:
        """The top-ranked player; "" when the query has no positions or no player a score (every replayed
        candidate failed on it)."""
        top = self.ranking[0] if self.positions and self.scores else ""
        return top if top and np.isfinite(self.scores[top]) else ""

    def rank_of(self, player: str) -> int | None:
        """1-based rank of ``player`` (``None`` when no positions)."""
        return self.ranking.index(player) + 1 if self.positions and player in self.scores else None


def group_sides(labels: Sequence[str], k: int | None) -> list[list[int]]:
    """Groups of ``k`` indices with the same label, in order; an incomplete last group of a label is
    dropped unless ``k`` is 1; ``None``: one group per label.

    >>> group_sides(["a", "b", "a", "a", "b"], 2)
    [[0, 2], [1, 4]]
    >>> group_sides(["a", "b", "a"], None)
    [[0, 2], [1]]
    """
    by: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by.setdefault(label, []).append(i)
    out: list[list[int]] = []
    for members in by.values():
        if k is None:
            out.append(members)
        else:
            out += [members[i:i + k] for i in range(0, len(members) - k + 1, k)]
    return out


class NoQueries(MimicError, ValueError):
    """A classification with nothing to classify: ``QUERY: why`` (no game sides in it, or none left after the
    held-out filter, or no player with ``k`` sides)."""


def query_groups(labels: Sequence[str], k: int | None, query: str | Path, held_out: bool = False,
                 plies: Sequence[int] | None = None, skip_plies: int = 0) -> list[list[int]]:
    """:func:`group_sides` of a query file's sides, refusing (:class:`NoQueries`) to classify nothing: a file with
    no game sides (empty, no well-formed standard games), none left out of the clones' training and validation
    games (``held_out``), no side's game longer than the ``skip_plies`` skipped (``plies``: each side's game's
    length; a file of comments reads as one game of no moves), or no label with ``k`` sides.

    >>> query_groups(["a", "a", "b"], 3, "q.pgn")
    Traceback (most recent call last):
    evolve.recognition.classification.NoQueries: q.pgn: no player has 3 game sides (--k 3; the most any has is 2)
    """
    if not labels:
        why = "none outside the clones' training and validation games (--held-out)" if held_out else \
            "no well-formed standard-chess games in it"
        raise NoQueries(f"{query}: no game sides to classify ({why})")
    if plies is not None and max(plies) <= skip_plies:
        raise NoQueries(f"{query}: no positions to classify (no game in it is longer than the {skip_plies} plies "
                        f"skipped)")
    groups = group_sides(labels, k)
    if not groups:
        most = max(labels.count(label) for label in set(labels))
        raise NoQueries(f"{query}: no player has {k} game sides (--k {k}; the most any has is {most})")
    return groups


class CloneFolderError(ReadbackError):
    """A clone folder (``recognize.json``, ``split.json``, the clones' organism files) that cannot be used: one line
    naming the file and what is wrong."""


def load_clones(folder: str | Path) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The manifest of a trained DIR, the clones' weights (players, genes) and their β, everything checked
    (:mod:`search.runtime.readback`) before it is used: the manifest a ``mimic-recognize`` object of version 1;
    ``players`` distinct names; a ``clones`` entry for each, naming an organism file in DIR (a plain file name),
    with a finite ``beta`` and a numeric ``normalisation``; ``settings`` with ``skip_plies``, ``genome`` (a
    layout), ``score``, ``aliases`` and ``exclude``; each clone's organism file readable and of that layout.
    :class:`CloneFolderError` otherwise."""
    folder = Path(folder)
    path = folder / MANIFEST
    src = str(path)

    def need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str = "") -> Any:
        return require(data, key, kind, src, where, error=CloneFolderError)

    manifest: dict[str, Any] = read_json(path, "recognize manifest", error=CloneFolderError)
    if manifest.get("format") != "mimic-recognize" or manifest.get("version", 1) != 1:
        raise CloneFolderError(f"{path}: not a mimic recognize manifest of version 1 (format "
                               f"{str(manifest.get('format'))[:40]!r}, version {str(manifest.get('version'))[:20]})")
    players = strings(need(manifest, "players", list), "players", src, error=CloneFolderError)
    if not players or len(set(players)) != len(players):
        raise CloneFolderError(f"{path}: players must be distinct names, at least one")
    clones = need(manifest, "clones", dict)
    st = need(manifest, "settings", dict)
    whole(need(st, "skip_plies", int, "settings."), "settings.skip_plies", src, 0, 1 << 20, error=CloneFolderError)
    if need(st, "genome", str, "settings.") not in LAYOUTS or need(st, "score", str, "settings.") not in SCORES:
        raise CloneFolderError(f"{path}: settings.genome {st['genome'][:40]!r} or settings.score "
                               f"{st['score'][:40]!r} is not one of {', '.join(LAYOUTS)} and {', '.join(SCORES)}")
    strings(st.get("exclude", []), "settings.exclude", src, error=CloneFolderError)
    try:
        parse_aliases(strings(st.get("aliases", []), "settings.aliases", src, error=CloneFolderError))
    except ValueError as exc:
        raise CloneFolderError(f"{path}: settings.aliases: {exc}") from exc
    entry = manifest.get("classifier")
    if entry is not None:
        if not isinstance(entry, dict):
            raise CloneFolderError(f"{path}: classifier is {json_type(entry)}, not an object")
        file = require(entry, "file", str, src, "classifier.", error=CloneFolderError)
        if Path(file).name != file or file in ("", ".", ".."):
            raise CloneFolderError(f"{path}: classifier.file is {file[:60]!r}, expected a file name in {folder}")
    organisms = []
    for p in players:
        entry = need(clones, p, dict, "clones.")
        name = need(entry, "organism", str, f"clones.{p}.")
        finite(need(entry, "beta", (int, float), f"clones.{p}."), f"clones.{p}.beta", src, error=CloneFolderError)
        need(entry, "normalisation", (int, float), f"clones.{p}.")  # NaN when no side measured it
        if Path(name).name != name or name in ("", ".", ".."):
            raise CloneFolderError(f"{path}: clones.{p}.organism is {name[:60]!r}, expected a file name in {folder}")
        try:
            organism = Organism.load(folder / name)
        except OSError as exc:
            raise CloneFolderError(f"{folder / name}: cannot read the clone of {p}: {exc.strerror or exc}") from exc
        if organism.genome.names != feature_names(st["genome"]):
            raise CloneFolderError(f"{folder / name}: the clone of {p} is not of the {st['genome']} layout")
        organisms.append(organism)
    return (manifest, np.array([o.weights for o in organisms]),
            np.array([clones[p]["beta"] for p in players], dtype=np.float64))


def classify(folder: str | Path, query: str | Path, k: int | None = 1, jobs: int = 1,
             on_error: Callable[[str], None] | None = None, cache_dir: str | Path | None = None,
             held_out: bool = False, norm: str = "validation", on_progress: Progress | None = None,
             method: str | None = None) -> list[Query]:
    """Score every game side of ``query`` (or every group of ``k`` sides with the same header player; see
    :func:`group_sides`) by every clone of ``folder``; with ``held_out``, only the sides of games that the
    split of ``folder`` did not use for training or validation (its test games, and games it never saw).

    ``norm``: what each clone's measure is measured against (see the module docstring). ``validation``: its
    average over all trained players' validation game sides (``recognize.json``). ``query``: its average over
    the query file's own players (the sides grouped by header, each header weighing the same), for a query
    file from another population than the training games (other openings, another era), where the
    validation averages do not carry over; it needs a query file with several players' games in it.

    ``method`` (:data:`METHODS`): ``features``, the classifier of ``folder`` over the sides' style features (a
    query's score by a player: the sum of its sides' log-probabilities of that player; ``norm`` plays no part), or
    ``clones``, the clones' scores above; ``None``: ``features`` when ``folder`` has a classifier.

    ``on_progress`` (stage, done, total) is called as work completes, stage by stage: ``games`` (one unit: the
    query file read), ``positions`` (chunks of game sides resolved), ``features`` (one unit), and for
    ``features`` ``style`` (chunks of game sides)."""
    if norm not in NORMS:
        raise SettingsError(f"unknown normalisation {norm!r} (one of {', '.join(NORMS)})")
    manifest, weights, betas = load_clones(folder)
    method = method_of(manifest, method, folder)
    players = manifest["players"]
    clf = load_classifier(Path(folder) / manifest["classifier"]["file"], players) if method == "features" else None
    style = style_of(clf.header, str(folder), CloneFolderError) if clf is not None else None
    if style is not None:
        style.check()
    st = manifest["settings"]
    aliases = parse_aliases(st.get("aliases", []))
    gs = read_game_set([query], players, aliases, dedupe=False, all_sides=True, exclude=st.get("exclude", []),
                       on_error=on_error, on_progress=on_progress,
                       cache=cache_folder("games", cache_dir))
    used = used_games(folder)
    if held_out:
        gs.sides = [sd for sd in gs.sides if gs.keys[sd.game] not in used]
    labels = [s.player or f"?{normal_name(s.header)}" for s in gs.sides]
    groups = query_groups(labels, k, query, held_out, [len(gs.games[s.game][1]) for s in gs.sides],
                          st["skip_plies"])  # before any work: refuse to classify nothing
    seen = len({sd.game for sd in gs.sides if gs.keys[sd.game] in used})  # queried games the clones trained on
    if seen and on_error is not None:
        on_error(f"{query}: {seen} of its {len(gs.games)} games were training or validation games of these clones "
                 f"({Path(folder) / SPLIT}): their scores are not held-out figures")
    order = list(range(len(gs.sides)))
    pos = extract_positions(gs, order, st["skip_plies"], st["genome"], jobs, cache_dir, on_progress=on_progress)
    vals, rows = position_measures(weights, betas, pos, st["score"])
    if norm == "query":
        normal = np.nanmean(side_means(vals, pos.side[rows], group_sides(labels, None)), axis=1)
    else:
        normal = np.array([manifest["clones"][p]["normalisation"] for p in players])
    if clf is not None and style is not None:
        x = side_vectors(gs, order, style, pos, weights, betas, jobs, cache_folder("style", cache_dir), on_progress)
        scores = group_scores(clf.log_probabilities(x), groups)
    else:
        scores = score_groups(vals, pos.side[rows], groups, normal)
    counts = side_counts(pos.side[rows], groups)
    out = []
    for j, group in enumerate(groups):
        first = gs.sides[group[0]]
        out.append(Query([f"{gs.sources[gs.sides[i].game]} {'white' if gs.sides[i].color else 'black'}"
                          for i in group], first.player or "", first.header, int(counts[j]),
                         {p: float(scores[j, c]) for c, p in enumerate(players)}))
    return out


def method_of(manifest: dict[str, Any], method: str | None, folder: str | Path) -> str:
    """The method a classification of ``folder`` uses: ``method``, or ``features`` when the folder has a classifier
    and ``clones`` otherwise; :class:`CloneFolderError` for ``features`` without a classifier."""
    if method is not None and method not in METHODS:
        raise SettingsError(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    if method == "features" and not manifest.get("classifier"):
        raise CloneFolderError(f"{Path(folder) / MANIFEST}: no classifier (trained without --features); "
                               "use --method clones")
    return method or ("features" if manifest.get("classifier") else "clones")


def used_games(folder: str | Path) -> set[str]:
    """The keys of the games that the split of ``folder`` (``split.json``) put in training or validation;
    :class:`CloneFolderError` when it is missing or not a split (``games``: objects with a ``key`` and a ``part``
    of ``train``, ``validation``, ``test``)."""
    path = Path(folder) / SPLIT
    split = read_json(path, "split of the clones' games", error=CloneFolderError)
    games = require(split, "games", list, str(path), error=CloneFolderError)
    for i, g in enumerate(games):
        if not isinstance(g, dict) or not isinstance(g.get("key"), str) or g.get("part") not in PARTS:
            raise CloneFolderError(f"{path}: games[{i}] is {repr(g)[:80]}, expected {{key, part}} with a part of "
                                   f"{', '.join(PARTS)}")
    return {g["key"] for g in games if g["part"] != "test"}


def write_csv(path: str | Path, queries: Sequence[Query], players: Sequence[str], k: int | None = 1) -> None:
    """One row per query: ``query``, ``k``, ``player`` (the trained player the header names, empty when
    none), ``header``, ``predicted``, ``rank`` (the true player's), ``positions``, ``sides``, then one
    ``score:NAME`` column per player (empty when it has none), and for replayed queries one ``failed:NAME`` column
    per candidate (the positions it failed on, :data:`evolve.recognition.replay_scores.FAILURES`)."""
    failed = bool(queries) and all(hasattr(q, "failed") for q in queries)
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["query", "k", "player", "header", "predicted", "rank", "positions", "sides",
                    *(f"score:{p}" for p in players), *(f"failed:{p}" for p in players if failed)])
        for i, q in enumerate(queries):
            rank = q.rank_of(q.player) if q.player else None
            w.writerow([i + 1, "all" if k is None else k, q.player, q.header, q.predicted,
                        "" if rank is None else rank, q.positions, "; ".join(q.sides),
                        *(f"{q.scores[p]:.6f}" if np.isfinite(q.scores[p]) else "" for p in players),
                        *(getattr(q, "failed", {}).get(p, 0) for p in players if failed)])


def read_csv_accuracy(path: str | Path) -> tuple[float, float, int]:
    """Top-1 and top-3 accuracy recounted from a query CSV (rows with a known player and positions), and
    the number of such rows. The top-3 is recounted from the score columns."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["player"] and int(r["positions"]) > 0]
    top1 = top3 = 0
    for r in rows:
        scores = {k[6:]: float(v) for k, v in r.items() if k.startswith("score:") and v}
        ranked = sorted(scores, key=lambda n: -scores[n])
        top1 += r["predicted"] == r["player"]
        top3 += r["player"] in ranked[:3]
    n = len(rows)
    return (top1 / n if n else float("nan"), top3 / n if n else float("nan"), n)
