"""What a label file becomes before its features: parsed once, cached on disk, verified on reading.

:func:`resolve_labels` turns a label file into the arrays :func:`evolve.data.dataset.load_dataset` needs
before feature extraction and the split: each usable label's target position as a
:func:`organisms.features.bitboard_row` (uint64), the mentor's score at the target (centipawns, the
target's side to move), the game result and the plies to the end from that side's view (NaN when
unknown), the target's ply from the game's start (NaN unless the label has ``fmvn``), whether the label is
quiet (:meth:`mentor.labels.Label.quiet`: the labelled position not in check, the mentor's best move not a
capture or promotion), the counts (labels, over the cap, mates among them, malformed lines) and the malformed lines'
messages. Parsing (python-chess ``set_epd``) and target resolution (:mod:`mentor.target`: PV walk and
capture quiescence, in Python) are the slow part of a large file: lines are parsed in chunks of
:data:`CHUNK` by worker processes (:func:`evolve.data.chunks.map_label_chunks`).

The result is stored as one ``.npz`` (no pickle) under ``$MIMIC_CACHE/labels/``, named by its key: a
BLAKE2 hash of the label file's bytes, the target mode, the cap and :data:`FORMAT_VERSION`. The file
holds that key and a digest of it and of every array keyed with the user's secret cache key
(:func:`organisms.feature_cache.save_keyed_npz`, :mod:`search.runtime.cachekey`); a file whose key or digest
disagrees (another label file, a truncated, tampered or forged cache) is ignored and rewritten. The features
are cached separately, by :func:`organisms.features.feature_matrix`, keyed by these rows and
:func:`organisms.features.feature_key` (the feature set's name and version), so a new feature version
recomputes the features and keeps the parsed labels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evolve.data.chunks import ChunkTally, map_label_chunks, read_chunk
from mentor.labels import DEFAULT_CAP
from mentor.target import target_with_plies
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from organisms.features import bitboard_row, default_cache_dir
from search.conventions import result_points
from search.runtime.files import open_regular

FORMAT_VERSION = 4
"""Bumped whenever what :func:`resolve_labels` computes or how it is stored changes (target rules, stored
arrays; 3: a keyed digest instead of a checksum; 4: the labels' plies and quiet flags)."""

CHUNK = 5000
"""Label lines per worker task."""

MAX_ERRORS = 1000
"""Malformed lines whose messages are kept (all are counted)."""

_ARRAYS = ("rows", "y", "result", "plies", "ply", "quiet", "counts", "errors")


@dataclass
class ResolvedLabels:
    """A label file's usable labels at their targets (see the module docstring)."""

    rows: np.ndarray  # (N, 9) uint64 bitboard rows of the target positions
    y: np.ndarray  # (N,) float64 mentor score at the target, cp, target's side to move
    result: np.ndarray  # (N,) float64 1 / 0.5 / 0 for the target's side to move; NaN when unknown
    plies: np.ndarray  # (N,) float64 plies from the target to the game's end; NaN when unknown
    ply: np.ndarray  # (N,) float64 the target's ply from the game's start (fmvn + the walk); NaN when unknown
    quiet: np.ndarray  # (N,) bool: the label is quiet (see the module docstring)
    total: int = 0
    over_cap: int = 0
    mates: int = 0
    malformed: int = 0
    errors: list[str] = field(default_factory=list)  # FILE:LINE: reason (the first MAX_ERRORS)
    cached: bool = False  # read from the cache (nothing was parsed)


def label_cache_dir() -> Path:
    """``$MIMIC_CACHE/labels`` (``~/.cache/mimic/labels`` by default), beside the feature cache."""
    return default_cache_dir().parent / "labels"


def file_digest(path: str | Path, chunk: int = 1 << 22) -> str:
    """BLAKE2 of a file's bytes, read in chunks of ``chunk`` bytes."""
    digest = hashlib.blake2b(digest_size=20)
    with open_regular(path, "label file") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def cache_key(path: str | Path, target: str, cap: int) -> str:
    """The key of a label file's resolved labels: its content, the target mode, the cap, the format."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(file_digest(path).encode())
    digest.update(f"|target={target}|cap={cap}|labels-v{FORMAT_VERSION}".encode())
    return digest.hexdigest()


def _resolve_chunk(lines: list[tuple[int, str]], path: str, target: str, cap: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[int],
                              list[str]]:
    """Parse and resolve one chunk of label lines (runs in a worker)."""
    rows: list[tuple[int, ...]] = []
    ys: list[float] = []
    results: list[float] = []
    plies: list[float] = []
    ply: list[float] = []
    quiet: list[bool] = []
    tally = ChunkTally()
    for label in read_chunk(lines, path, tally, cap):
        board, score, k = target_with_plies(label, target)
        rows.append(bitboard_row(board))
        ys.append(score)
        points = result_points(label.result, board.turn)  # the game's result from the target's side to move
        results.append(float("nan") if points is None else points)
        plies.append(float("nan") if label.plies_to_end is None else max(label.plies_to_end - k, 0))
        root = label.root_ply
        ply.append(float("nan") if root is None else root + k)
        quiet.append(label.quiet())
    return (np.array(rows, dtype=np.uint64).reshape(-1, 9), np.array(ys, dtype=np.float64),
            np.array(results, dtype=np.float64), np.array(plies, dtype=np.float64),
            np.array(ply, dtype=np.float64), np.array(quiet, dtype=bool),
            [tally.total, tally.over, tally.mates], [f"{line}:{reason}" for line, reason in tally.errors])


def resolve_labels(path: str | Path, target: str = "leaf", cap: int = DEFAULT_CAP, n_jobs: int = 1,
                   use_cache: bool = True, cache_dir: str | Path | None = None,
                   on_chunk: Callable[[int], None] | None = None) -> ResolvedLabels:
    """The resolved labels of ``path`` (see the module docstring), from the cache when it holds them.

    ``n_jobs`` worker processes (``-1``: every core) parse chunks of :data:`CHUNK` lines; ``cache_dir``
    defaults to :func:`label_cache_dir`; ``on_chunk(lines)`` is called as each chunk is done.
    """
    if target not in ("leaf", "root"):
        raise ValueError(f"unknown target mode {target!r} (leaf or root)")
    cache_path = key = None
    if use_cache:
        key = cache_key(path, target, cap)
        cache_path = Path(cache_dir or label_cache_dir()) / f"{key}.npz"
        cached = read_cached_labels(cache_path, key)
        if cached is not None:
            cached.errors = _with_path(path, cached.errors)
            return cached
    errors: list[str] = []  # "LINE:reason"; the path is added when read (the cache is keyed by content)
    parts, _ = map_label_chunks(path, _resolve_chunk, target, cap, chunk=CHUNK, n_jobs=n_jobs,
                                on_error=lambda e: errors.append(f"{e.line_no}:{e.reason}"), on_chunk=on_chunk)
    total = over = mates = 0
    for part in parts:
        total, over, mates = total + part[6][0], over + part[6][1], mates + part[6][2]
        errors.extend(part[7])
    def joined(i: int, empty: np.ndarray) -> np.ndarray:
        return np.concatenate([p[i] for p in parts]) if parts else empty

    out = ResolvedLabels(
        joined(0, np.zeros((0, 9), dtype=np.uint64)), joined(1, np.zeros(0)), joined(2, np.zeros(0)),
        joined(3, np.zeros(0)), joined(4, np.zeros(0)), joined(5, np.zeros(0, dtype=bool)),
        total, over, mates, len(errors), errors[:MAX_ERRORS])
    if cache_path is not None and key is not None:
        write_cached_labels(cache_path, key, out)
    out.errors = _with_path(path, out.errors)
    return out


def _with_path(path: str | Path, errors: list[str]) -> list[str]:
    """``FILE:LINE: reason`` from the stored ``LINE:reason`` (a cache may have been made for a copy of
    the file under another name)."""
    return [f"{path}:{line}: {reason}" for line, _, reason in (e.partition(":") for e in errors)]


def _arrays(r: ResolvedLabels) -> dict[str, np.ndarray]:
    return {"rows": np.ascontiguousarray(r.rows, dtype=np.uint64), "y": np.asarray(r.y, dtype=np.float64),
            "result": np.asarray(r.result, dtype=np.float64), "plies": np.asarray(r.plies, dtype=np.float64),
            "ply": np.asarray(r.ply, dtype=np.float64), "quiet": np.asarray(r.quiet, dtype=bool),
            "counts": np.array([r.total, r.over_cap, r.mates, r.malformed], dtype=np.int64),
            "errors": np.array(r.errors, dtype=np.str_).reshape(-1)}


def read_cached_labels(path: Path, key: str) -> ResolvedLabels | None:
    """The resolved labels stored in ``path``, or ``None`` when the file is missing, unreadable,
    truncated, made for another key, inconsistent, or its keyed digest does not verify."""
    arrays = load_keyed_npz(path, _ARRAYS, key)
    if arrays is None:
        return None
    rows, counts = arrays["rows"], arrays["counts"]
    n = len(arrays["y"])
    if (rows.dtype != np.uint64 or rows.shape != (n, 9) or counts.shape != (4,)
            or any(arrays[k].shape != (n,) for k in ("result", "plies", "ply", "quiet"))
            or arrays["quiet"].dtype != np.bool_):
        return None
    total, over, mates, malformed = (int(x) for x in counts)
    return ResolvedLabels(rows, arrays["y"], arrays["result"], arrays["plies"], arrays["ply"], arrays["quiet"],
                          total, over, mates, malformed,
                          [str(e) for e in arrays["errors"]], cached=True)


def write_cached_labels(path: Path, key: str, resolved: ResolvedLabels) -> bool:
    """Store ``resolved`` under ``key`` with its keyed digest, written beside ``path`` and moved into place.
    A cache that cannot be written (full disk, read-only, no trusted secret key) is skipped: returns False,
    nothing half-written is left."""
    return save_keyed_npz(path, _arrays(resolved), _ARRAYS, key)
