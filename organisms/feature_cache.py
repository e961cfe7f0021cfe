"""The on-disk cache of feature matrices, and their extraction in parallel.

A feature matrix (organism features, :mod:`organisms.features`; Giraffe features, :mod:`organisms.giraffe`)
is computed once per set of positions and kept as one ``.npz`` under :func:`default_cache_dir`
(``$MIMIC_CACHE/features``, else ``~/.cache/mimic/features``), keyed by a BLAKE2 hash of the positions' rows
and the name and version of the feature set, with that key and a checksum of the values stored inside.
The label cache of ``evolve.data.cache`` and the move cache of ``evolve.data.moves`` sit beside it
(``default_cache_dir().parent``), so ``MIMIC_CACHE`` moves all three.

May import: numpy and search's leaf modules (``search.runtime.atomic``, the worker pool), never the engine.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from search.runtime.atomic import atomic_path
from search.runtime.readback import NpzFile, ReadbackError
from search.runtime.workers import parallel_map

CACHE_ENV = "MIMIC_CACHE"
"""Environment variable naming the cache's root folder (default ``~/.cache/mimic``)."""

SERIAL_BELOW = 2000
"""Fewer rows than this are extracted in this process whatever ``n_jobs`` says (workers cost more)."""


def default_cache_dir() -> Path:
    """``$MIMIC_CACHE`` or ``~/.cache/mimic``, plus ``features/``."""
    root = os.environ.get(CACHE_ENV) or os.path.join(os.path.expanduser("~"), ".cache", "mimic")
    return Path(root) / "features"


def cached_matrix(rows: np.ndarray, feature_set: str, n_cols: int, extract: Callable[..., np.ndarray],
                  n_jobs: int = 1, *, args: Sequence[Any] = (), cache_dir: str | Path | None = None,
                  use_cache: bool = True) -> np.ndarray:
    """``extract(rows, *args)``, an (N, ``n_cols``) float32 matrix, read from the cache when a file there
    has the same key (a BLAKE2 hash of ``rows`` and ``feature_set``) and checksum, else computed and
    stored. Computed in this process for fewer than :data:`SERIAL_BELOW` rows or ``n_jobs == 1``, else in
    ``4 × workers`` chunks through :func:`search.runtime.workers.parallel_map` (``-1``: every core)."""
    path = key = None
    if use_cache:
        digest = hashlib.blake2b(rows.tobytes(), digest_size=20)
        digest.update(feature_set.encode())
        key = digest.hexdigest()
        path = Path(cache_dir or default_cache_dir()) / f"{key}.npz"
        cached = read_cached_features(path, key, len(rows), n_cols)
        if cached is not None:
            return cached
    if len(rows) == 0:
        result = np.zeros((0, n_cols), dtype=np.float32)
    elif n_jobs == 1 or len(rows) < SERIAL_BELOW:
        result = extract(rows, *args)
    else:
        from joblib import cpu_count

        workers = cpu_count() if n_jobs < 0 else n_jobs
        chunks = [c for c in np.array_split(rows, max(workers * 4, 1)) if len(c)]
        result = np.concatenate(list(parallel_map(extract, chunks, workers, args=args)))
    if path is not None and key is not None:
        write_cached_features(path, key, result)
    return result


def _checksum(features: np.ndarray) -> str:
    """BLAKE2 of a feature matrix's shape and bytes (what the cache stores beside it)."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(repr(features.shape).encode())
    digest.update(np.ascontiguousarray(features, dtype=np.float32).tobytes())
    return digest.hexdigest()


def read_cached_features(path: Path, key: str, n: int, n_cols: int) -> np.ndarray | None:
    """The cached (n, n_cols) float32 features in ``path``, or ``None`` when the file is missing, truncated,
    unreadable, made for other positions (``key``), of another shape, or its values do not match the
    checksum stored with them: the caller then recomputes (and rewrites) them."""
    try:
        with NpzFile(path, "feature cache") as data:
            if data.names != {"features", "key", "checksum"}:
                return None
            stored_key, checksum = (str(data.array(k, (), kinds="U", max_elements=1)) for k in ("key", "checksum"))
            if stored_key != key:
                return None
            features = data.array("features", (n, n_cols), kinds="f", max_elements=max(n * n_cols, 1))
    except ReadbackError:
        return None
    if (features.dtype != np.float32
            or checksum != _checksum(features)):
        return None
    return features


def write_cached_features(path: Path, key: str, features: np.ndarray) -> bool:
    """Store ``features`` for the positions ``key`` names, with their checksum, in one ``.npz`` written
    beside and moved into place. A cache that cannot be written (full disk, read-only) is skipped:
    returns False, and nothing half-written is left."""
    return save_npz_atomic(path, {"features": features, "key": np.array(key),
                                  "checksum": np.array(_checksum(features))})


def save_npz_atomic(path: Path, arrays: dict[str, Any]) -> bool:
    """Write ``arrays`` as one ``.npz`` at ``path`` through :func:`search.runtime.atomic.atomic_path` (a cache
    file: whole or absent). A file that cannot be written (full disk, read-only) is skipped: returns False,
    nothing half-written is left. Shared by the feature cache and ``evolve.data.cache``'s label cache."""
    try:
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
    except OSError:
        return False
    return True
