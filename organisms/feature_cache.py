"""The on-disk cache of feature matrices, and their extraction in parallel.

A feature matrix (organism features, :mod:`organisms.features`; Giraffe features, :mod:`organisms.giraffe`)
is computed once per set of positions and kept as one ``.npz`` under :func:`default_cache_dir`
(``$MIMIC_CACHE/features``, else ``~/.cache/mimic/features``), keyed by a BLAKE2 hash of the positions' rows
and the name and version of the feature set, with that key and a keyed digest of the values stored inside.
The label cache of ``evolve.data.cache``, the move cache of ``evolve.data.moves``, the fit cache of
``evolve.ga.fit_cache`` and recognition's cache of resolved sides sit beside it (under
:func:`search.runtime.cachekey.cache_root`), so ``MIMIC_CACHE`` moves them all.

Every one of those caches is one ``.npz`` written by :func:`save_keyed_npz` and read by
:func:`load_keyed_npz` (the one format of a cache keyed by its inputs): the named arrays, their cache key and
a digest of both keyed with the user's secret cache key (:mod:`search.runtime.cachekey`, which also says
what this protects against and what it does not). A file whose digest does not verify is ignored and
recomputed; with no trusted secret key, nothing is read or written.

May import: numpy and search's leaf modules (``search.runtime.atomic``, ``search.runtime.cachekey``, the
worker pool), never the engine.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from search.runtime.atomic import atomic_path
from search.runtime.cachekey import cache_root, cache_secret, keyed_hasher
from search.runtime.readback import NpzFile, ReadbackError
from search.runtime.workers import parallel_map

FORMAT_VERSION = 2
"""Bumped whenever how a feature matrix is stored changes (2: a keyed digest instead of a checksum)."""

SERIAL_BELOW = 2000
"""Fewer rows than this are extracted in this process whatever ``n_jobs`` says (workers cost more)."""


def default_cache_dir() -> Path:
    """``$MIMIC_CACHE`` or ``~/.cache/mimic`` (:func:`search.runtime.cachekey.cache_root`), plus ``features/``."""
    return cache_root() / "features"


def cached_matrix(rows: np.ndarray, feature_set: str, n_cols: int, extract: Callable[..., np.ndarray],
                  n_jobs: int = 1, *, args: Sequence[Any] = (), cache_dir: str | Path | None = None,
                  use_cache: bool = True) -> np.ndarray:
    """``extract(rows, *args)``, an (N, ``n_cols``) float32 matrix, read from the cache when a file there
    has the same key (a BLAKE2 hash of ``rows``, ``feature_set`` and :data:`FORMAT_VERSION`) and a keyed digest
    that verifies, else computed and
    stored. Computed in this process for fewer than :data:`SERIAL_BELOW` rows or ``n_jobs == 1``, else in
    ``4 × workers`` chunks through :func:`search.runtime.workers.parallel_map` (``-1``: every core)."""
    path = key = None
    if use_cache:
        digest = hashlib.blake2b(rows.tobytes(), digest_size=20)
        digest.update(f"{feature_set}|features-cache-v{FORMAT_VERSION}".encode())
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


def read_cached_features(path: Path, key: str, n: int, n_cols: int) -> np.ndarray | None:
    """The cached (n, n_cols) float32 features in ``path``, or ``None`` when the file is missing, truncated,
    unreadable, made for other positions (``key``), of another shape, or its keyed digest does not verify:
    the caller then recomputes (and rewrites) them."""
    arrays = load_keyed_npz(path, ("features",), key)
    if arrays is None:
        return None
    features = arrays["features"]
    if features.dtype != np.float32 or features.shape != (n, n_cols):
        return None
    return features


def write_cached_features(path: Path, key: str, features: np.ndarray) -> bool:
    """Store ``features`` for the positions ``key`` names, with their keyed digest, in one ``.npz`` written
    beside and moved into place. A cache that cannot be written (full disk, read-only, no trusted secret key)
    is skipped: returns False, and nothing half-written is left."""
    return save_keyed_npz(path, {"features": np.ascontiguousarray(features, dtype=np.float32)}, ("features",), key)


def arrays_digest(arrays: dict[str, np.ndarray], names: Sequence[str], key: str, secret: bytes) -> str:
    """The digest, keyed with ``secret`` (:func:`search.runtime.cachekey.keyed_hasher`), of the cache key
    ``key`` and of the named arrays' names, dtypes, shapes and bytes, in that order (hex)."""
    digest = keyed_hasher(secret)
    digest.update(f"key={key}|".encode())
    for name in names:
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def save_keyed_npz(path: Path, arrays: dict[str, np.ndarray], names: Sequence[str], key: str) -> bool:
    """Store the named ``arrays`` with ``key`` and their keyed digest (:func:`arrays_digest`) as one ``.npz``,
    written beside ``path`` and moved into place; False when it cannot be written (see :func:`save_npz_atomic`)
    or no secret key can be trusted (:func:`search.runtime.cachekey.cache_secret`). The one format of every
    cache of ours that is keyed by its inputs (features, labels, fits, moves, recognised sides)."""
    secret = cache_secret()
    if secret is None:
        return False
    return save_npz_atomic(path, {**{n: arrays[n] for n in names}, "key": np.array(key),
                                  "digest": np.array(arrays_digest(arrays, names, key, secret))})


MAX_CACHE_ELEMENTS = 1 << 34
"""An array of a cache holds at most this many elements (its ``.npy`` header is checked against it and against the
bytes the file holds before anything is allocated)."""


def load_keyed_npz(path: Path, names: Sequence[str], key: str) -> dict[str, np.ndarray] | None:
    """The arrays :func:`save_keyed_npz` stored in ``path``, or ``None`` when no secret key can be trusted or
    the file is missing, unreadable, truncated, holds other arrays (or arrays whose ``.npy`` headers claim more
    than :data:`MAX_CACHE_ELEMENTS` elements or than the file holds: :class:`search.runtime.readback.NpzFile`),
    was made for another key, or its keyed digest does not verify (a file forged or altered by anything without
    the key; callers check their arrays' shapes)."""
    secret = cache_secret()
    if secret is None:
        return None
    try:
        with NpzFile(path, "cache") as data:
            if data.names != {*names, "key", "digest"}:
                return None
            stored_key, digest = (str(data.array(k, (), kinds="U", max_elements=1)) for k in ("key", "digest"))
            if stored_key != key:
                return None
            arrays = {name: data.array(name, max_elements=MAX_CACHE_ELEMENTS) for name in names}
    except ReadbackError:
        return None
    expected = arrays_digest(arrays, names, key, secret)
    if not hmac.compare_digest(digest.encode("utf-8", "surrogatepass"), expected.encode()):
        return None
    return arrays


def save_npz_atomic(path: Path, arrays: dict[str, Any]) -> bool:
    """Write ``arrays`` as one ``.npz`` at ``path`` through :func:`search.runtime.atomic.atomic_path` (a cache
    file: whole or absent). A file that cannot be written (full disk, read-only) is skipped: returns False,
    nothing half-written is left. Used by :func:`save_keyed_npz`."""
    try:
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
    except OSError:
        return False
    return True
