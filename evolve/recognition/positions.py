"""The positions of game sides: where each side moved, its resolved children and their features, cached.

A side's positions start at ply ``skip_plies`` + 1; positions with one legal move are left out. Each position's
children are resolved (:mod:`evolve.data.moves`: capture quiescence) and their organism features extracted
(:func:`organisms.features.feature_matrix`); both are cached on disk, keyed by what they are made of, so a second
``train``, ``classify`` or ``experiment`` on the same sides reads them back.

May import numpy, :mod:`organisms`, :mod:`search.runtime` and :mod:`evolve.data`, :mod:`evolve.ga.objectives`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evolve.data.moves import CHUNK_GAMES, extract_games
from evolve.data.moves import FORMAT_VERSION as MOVES_FORMAT
from evolve.ga.objectives import MoveAgreement
from evolve.recognition.caches import cache_folder, features_dir
from evolve.recognition.gameset import GameSet, Progress
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from organisms.features import feature_matrix
from organisms.genome import layout_genome
from search.runtime.workers import parallel_map

POSITIONS = "positions"
"""The stage of resolving the sides' children; its units are chunks of :data:`evolve.data.moves.CHUNK_GAMES` sides
(all done at once when the cache holds them)."""

FEATURES = "features"
"""The stage of extracting the children's features (cached); one unit."""


@dataclass
class Positions:
    """The positions where the given game sides moved (from ply ``skip_plies`` + 1, one-move positions
    left out), each with its resolved children (see :mod:`evolve.data.moves`) and their features."""

    features: np.ndarray  # (children, genes) float32
    sign: np.ndarray
    fixed: np.ndarray
    offsets: np.ndarray
    played: np.ndarray
    side: np.ndarray  # (positions,) index of the position's side in the sides given

    @property
    def n(self) -> int:
        return len(self.played)

    def objective(self) -> MoveAgreement:
        return MoveAgreement(self.features, self.sign, self.fixed, self.offsets, self.played)


_RESOLVED = ("rows", "sign", "fixed", "lengths", "played", "side")
"""The arrays of a cached extraction (:func:`resolve_sides`)."""


def resolved_key(entries: Sequence[tuple[int, str, list[str], list[bool]]], skip_plies: int) -> str:
    """The cache key of the resolved children of some game sides: each side's start, moves and colour, in
    order, the skipped plies and :data:`evolve.data.moves.FORMAT_VERSION`."""
    digest = hashlib.blake2b(digest_size=20)
    for _, fen, moves, colors in entries:
        digest.update(f"{fen}|{' '.join(moves)}|{''.join('w' if c else 'b' for c in colors)}\n".encode())
    digest.update(f"|skip={skip_plies}|moves-v{MOVES_FORMAT}|sides-v2".encode())
    return digest.hexdigest()


def resolve_sides(entries: Sequence[tuple[int, str, list[str], list[bool]]], skip_plies: int, jobs: int = 1,
                  cache: Path | None = None, on_progress: Progress | None = None) -> dict[str, np.ndarray]:
    """The resolved children of game sides given as (index, FEN, UCI moves, [colour]) (see
    :func:`evolve.data.moves.extract_games`): ``rows``, ``sign``, ``fixed``, segment ``lengths``, ``played``
    (within its segment) and ``side`` (the entry's index), from ``cache`` (a folder) when it holds them.
    Resolving is the slow part (about 0.3 ms a child, some 35 children a position): a second ``train``,
    ``classify`` or ``experiment`` on the same sides reads it back. ``on_progress``: stage :data:`POSITIONS`."""
    chunks = [list(entries[i:i + CHUNK_GAMES]) for i in range(0, len(entries), CHUNK_GAMES)]
    if on_progress is not None:
        on_progress(POSITIONS, 0, len(chunks))
    path = key = None
    if cache is not None:
        key = resolved_key(entries, skip_plies)
        path = cache / f"sides-{key}.npz"
        got = load_keyed_npz(path, _RESOLVED, key)
        if got is not None:
            if on_progress is not None:
                on_progress(POSITIONS, len(chunks), len(chunks))
            return got
    parts = []
    for part in parallel_map(extract_games, chunks, jobs, args=(skip_plies,)):
        parts.append(part)
        if on_progress is not None:
            on_progress(POSITIONS, len(parts), len(chunks))
    if not parts:
        parts = [extract_games([], skip_plies)]
    out = {"rows": np.concatenate([p[0] for p in parts]).reshape(-1, 9).astype(np.uint64),
           "sign": np.concatenate([p[1] for p in parts]).astype(np.float64),
           "fixed": np.concatenate([p[2] for p in parts]).astype(np.float64),
           "lengths": np.concatenate([p[3] for p in parts]).astype(np.int64),
           "played": np.concatenate([p[4] for p in parts]).astype(np.int64),
           "side": np.concatenate([p[5] for p in parts]).astype(np.int64)}
    if path is not None and key is not None:
        save_keyed_npz(path, out, _RESOLVED, key)
    return out


def extract_positions(gs: GameSet, sides: Sequence[int], skip_plies: int, layout: str, jobs: int = 1,
                      cache_dir: str | Path | None = None, use_cache: bool = True,
                      on_progress: Progress | None = None) -> Positions:
    """:class:`Positions` of the game sides ``gs.sides[i]`` for ``i`` in ``sides`` (in that order). The
    features are cached under ``cache_dir`` (default ``$MIMIC_CACHE/features``), the resolved children in
    ``moves/`` beside it (:func:`evolve.recognition.caches.cache_folder`). ``on_progress``: stages
    :data:`POSITIONS` then :data:`FEATURES`."""
    entries = [(j, gs.games[gs.sides[i].game][0], gs.games[gs.sides[i].game][1], [gs.sides[i].color])
               for j, i in enumerate(sides)]
    r = resolve_sides(entries, skip_plies, jobs, cache_folder("moves", cache_dir) if use_cache else None, on_progress)
    offsets = np.concatenate([[0], np.cumsum(r["lengths"])]).astype(np.int64)
    if on_progress is not None:
        on_progress(FEATURES, 0, 1)
    features = (feature_matrix(r["rows"], n_jobs=jobs, cache_dir=features_dir(cache_dir), use_cache=use_cache,
                               layout=layout) if len(r["rows"])
                else np.zeros((0, len(layout_genome(layout).names)), dtype=np.float32))
    if on_progress is not None:
        on_progress(FEATURES, 1, 1)
    return Positions(np.asarray(features, dtype=np.float32), r["sign"], r["fixed"], offsets,
                     r["played"] + offsets[:-1], r["side"])


def subset(pos: Positions, rows: np.ndarray) -> Positions:
    """The positions ``rows`` (sorted) of ``pos`` with their children only (what a worker is sent)."""
    starts, ends = pos.offsets[rows], pos.offsets[rows + 1]
    lengths = ends - starts
    idx = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends, strict=True)]) if len(rows) else \
        np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return Positions(pos.features[idx], pos.sign[idx], pos.fixed[idx], offsets,
                     pos.played[rows] - starts + offsets[:-1], pos.side[rows])
