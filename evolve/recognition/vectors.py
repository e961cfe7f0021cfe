"""A game side's feature vector: the families of style features side by side, computed once and cached.

The families are those of :data:`evolve.recognition.families.TABLE` (each switchable, ``--features``): their names,
compute functions, parameters and cache-key parts are declared there, one spec a family. The families computed
from the moves (all but ``clones``) depend on the sides' moves and the settings only: they are computed in
parallel (:func:`search.runtime.workers.parallel_map`, :data:`CHUNK_SIDES` sides a task) and cached on disk, one
file a family (:func:`organisms.feature_cache.save_keyed_npz`), keyed by every side's start, moves and colour and
by what the family's spec says its features depend on, so a second ``train``, ``classify`` or ``experiment`` on
the same sides reads them back. The ``clones`` family is computed from the sides' positions (themselves cached),
with the clones given: each clone's mean log-likelihood (nats a move) of the side's moves
(:mod:`evolve.recognition.measures`, ``likelihood``), NaN for a side without positions.

May import numpy, :mod:`organisms.feature_cache`, :mod:`search.runtime` and the recognition modules below it
(gameset, positions, measures, families, caches).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evolve.recognition.families import CLONES, TABLE, Entry, StyleSettings, family_names
from evolve.recognition.gameset import GameSet, Progress
from evolve.recognition.measures import position_measures, side_means
from evolve.recognition.positions import Positions
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from search.runtime.workers import parallel_map

STYLE = "style"
"""The stage of computing the sides' features from their moves (every family but ``clones``); its units are
chunks of :data:`CHUNK_SIDES` sides (all done at once when the cache holds them)."""

CHUNK_SIDES = 8
"""Game sides per task of the style features (the profile's engine starts once a task)."""

FORMAT_VERSION = 1
"""Bumped whenever the cache key's composition changes (a family's own changes go in its spec's ``depends``)."""


def family_key(entries: Sequence[Entry], family: str, settings: StyleSettings) -> str:
    """The cache key of one family's features of some sides: every side's start, moves and colour, in order,
    and what the family depends on (its spec's ``depends``)."""
    digest = hashlib.blake2b(digest_size=20)
    for _, fen, moves, color in entries:
        digest.update(f"{fen}|{' '.join(moves)}|{'w' if color else 'b'}\n".encode())
    digest.update(f"|{family}|{TABLE[family].depends(settings)}|style-v{FORMAT_VERSION}".encode())
    return digest.hexdigest()


def _chunk(entries: Sequence[Entry], families: Sequence[str], settings: StyleSettings) -> dict[str, np.ndarray]:
    """The features of ``families`` (not ``clones``) of some sides (the work of one task): family -> (sides, F),
    each family's rows from its own compute function, as wide as its names."""
    out: dict[str, np.ndarray] = {}
    for family in families:
        compute = TABLE[family].compute
        if compute is None:
            raise ValueError(f"the {family} family is not computed from the moves")
        width = len(family_names(family, (), settings))
        out[family] = np.array(compute(entries, settings), dtype=np.float64).reshape(len(entries), width)
    return out


def style_features(entries: Sequence[Entry], settings: StyleSettings, jobs: int = 1, cache: Path | None = None,
                   on_progress: Progress | None = None) -> dict[str, np.ndarray]:
    """The features of every family of ``settings`` computed from the moves (all but ``clones``), family -> (sides,
    F) float64 in the order of ``entries``: read from ``cache`` (the style features' folder,
    :func:`evolve.recognition.caches.cache_folder`) when it holds them, else computed in ``jobs`` processes and
    stored. ``on_progress``: stage :data:`STYLE`."""
    wanted = [f.name for f in settings.chosen() if f.compute is not None]
    got: dict[str, np.ndarray] = {}
    keys = {f: family_key(entries, f, settings) for f in wanted} if cache is not None else {}
    for f, key in keys.items():
        assert cache is not None
        cached = load_keyed_npz(cache / f"{f}-{key}.npz", ("x",), key)
        if cached is not None and cached["x"].shape == (len(entries), len(family_names(f, (), settings))):
            got[f] = cached["x"]
    missing = [f for f in wanted if f not in got]
    chunks = [list(entries[i:i + CHUNK_SIDES]) for i in range(0, len(entries), CHUNK_SIDES)] if missing else []
    if on_progress is not None:
        on_progress(STYLE, 0, len(chunks))
    parts: list[dict[str, np.ndarray]] = []
    for part in parallel_map(_chunk, chunks, jobs, args=(missing, settings)):
        parts.append(part)
        if on_progress is not None:
            on_progress(STYLE, len(parts), len(chunks))
    for f in missing:
        width = len(family_names(f, (), settings))
        got[f] = np.concatenate([p[f] for p in parts]) if parts else np.zeros((0, width))
        if cache is not None:
            save_keyed_npz(cache / f"{f}-{keys[f]}.npz", {"x": got[f]}, ("x",), keys[f])
    return got


def clone_features(weights: np.ndarray, betas: np.ndarray, pos: Positions, n_sides: int) -> np.ndarray:
    """(sides, clones): each clone's mean log-likelihood (nats) of each side's moves (``pos.side`` indexes the
    sides, ``0 .. n_sides - 1``); NaN for a side without positions (or only positions where a move mates)."""
    vals, rows = position_measures(weights, betas, pos, "likelihood")
    return side_means(vals, pos.side[rows], [[j] for j in range(n_sides)]).T.reshape(n_sides, len(weights))


def side_matrix(settings: StyleSettings, style: dict[str, np.ndarray], clones: np.ndarray | None) -> np.ndarray:
    """A side's vector for every side: the families of ``settings`` in the table's order, side by side
    (``clones`` from :func:`clone_features`, the others from :func:`style_features`)."""
    parts = [clones if f.name == CLONES else style[f.name] for f in settings.chosen()]
    if any(p is None for p in parts):
        raise ValueError("the clones family needs the clones' features")
    return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts], axis=1)


def game_entries(gs: GameSet, sides: Sequence[int]) -> list[Entry]:
    """The game sides ``gs.sides[i]`` for ``i`` in ``sides`` as :data:`Entry` (index ``j``: the position in
    ``sides``)."""
    return [(j, gs.games[gs.sides[i].game][0], gs.games[gs.sides[i].game][1], gs.sides[i].color)
            for j, i in enumerate(sides)]


def side_vectors(gs: GameSet, sides: Sequence[int], settings: StyleSettings, pos: Positions | None,
                 weights: np.ndarray | None, betas: np.ndarray | None, jobs: int = 1, cache: Path | None = None,
                 on_progress: Progress | None = None) -> np.ndarray:
    """(sides, features): the vector of each game side ``gs.sides[i]`` for ``i`` in ``sides``; ``pos`` (the sides'
    positions, ``pos.side`` indexing ``sides``), the clones' ``weights`` and ``betas`` when ``settings`` has the
    ``clones`` family. ``cache``: the style features' folder (see :func:`style_features`)."""
    style = style_features(game_entries(gs, sides), settings, jobs, cache, on_progress)
    clones = None
    if CLONES in settings.families:
        if pos is None or weights is None or betas is None:
            raise ValueError("the clones family needs the sides' positions and the clones")
        clones = clone_features(weights, betas, pos, len(sides))
    return side_matrix(settings, style, clones)
