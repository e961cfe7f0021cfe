"""The exact fits of a label file, cached on disk: a second ``mimic evolve`` on the same labels does not solve
them again.

:func:`cached_exact_fit` returns what :func:`evolve.ga.fit.exact_fit` returns for the same arguments, from
``$MIMIC_CACHE/fits/`` (``~/.cache/mimic/fits`` by default, beside the label and feature caches) when an
entry there was made from the same inputs. An entry is one ``.npz`` (no pickle) named by its key, written by
:func:`organisms.feature_cache.save_keyed_npz`: the key is a BLAKE2 hash of everything the fit depends on — the
feature matrix and the mentor's scores themselves (so the label file's bytes, the target mode, the cap, the
genome layout's feature set and its version are all in it), the training and held-out rows (the held-out
share and the seed), the genome's gene names and bounds, the loss, the row limits that pick the solver
(:data:`evolve.ga.fit.LP_MAX_ROWS`, :data:`evolve.ga.fit.IRLS_MAX_ROWS`), :data:`FIT_VERSION` and the
installed scipy's version (the solvers are scipy's).

On reading, an entry must carry that key and a digest of it and of its arrays keyed with the user's secret cache
key (:mod:`search.runtime.cachekey`), hold one weight per gene within the
genes' bounds, and its stored mean absolute errors must be those of its weights on these rows, recomputed;
anything else (another label file, a truncated, tampered or forged file) is ignored, the fit solved again
and the entry rewritten. A cache that cannot be written is skipped.

May import: numpy, ``evolve.ga.fit``, ``organisms``.
"""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

import numpy as np

from evolve.ga.fit import IRLS_MAX_ROWS, LP_MAX_ROWS, Fit, exact_fit, mean_abs_error
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from organisms.features import default_cache_dir
from organisms.genome import Genome

FIT_VERSION = 2
"""Bumped whenever what :func:`evolve.ga.fit.exact_fit` computes or how an entry is stored changes (solvers,
their settings; 2: a keyed digest instead of a checksum)."""

_ARRAYS = ("weights", "maes", "seconds", "method")


def fit_cache_dir() -> Path:
    """``$MIMIC_CACHE/fits`` (``~/.cache/mimic/fits`` by default), beside the label and feature caches."""
    return default_cache_dir().parent / "fits"


def _scipy_version() -> str:
    try:
        return metadata.version("scipy")
    except metadata.PackageNotFoundError:
        return "none"


def fit_key(features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray, genome: Genome, loss: str,
            lp_max_rows: int = LP_MAX_ROWS, irls_max_rows: int = IRLS_MAX_ROWS) -> str:
    """The key of one exact fit: a BLAKE2 hash of everything it depends on (see the module docstring)."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"fit-v{FIT_VERSION}|loss={loss}|lp={lp_max_rows}|irls={irls_max_rows}|"
                  f"scipy={_scipy_version()}|genes={','.join(genome.names)}|".encode())
    for name, array in (("features", features), ("y", y), ("train", train), ("held", held),
                        ("low", genome.low), ("high", genome.high)):
        a = np.ascontiguousarray(array)
        digest.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def _read(path: Path, key: str, features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray,
          genome: Genome, loss: str) -> Fit | None:
    """The fit stored at ``path`` for ``key``, or ``None`` when it is missing or fails a check."""
    arrays = load_keyed_npz(path, _ARRAYS, key)
    if arrays is None:
        return None
    weights, maes, seconds, method = arrays["weights"], arrays["maes"], arrays["seconds"], arrays["method"]
    if (weights.dtype != np.float64 or weights.shape != genome.low.shape or maes.dtype != np.float64
            or maes.shape != (2,) or seconds.shape != () or method.dtype.kind != "U" or method.shape != ()):
        return None
    if not (np.isfinite(weights).all() and (weights >= genome.low).all() and (weights <= genome.high).all()):
        return None
    train_mae = mean_abs_error(features[train], y[train], weights)
    held_mae = mean_abs_error(features[held], y[held], weights)
    if not np.array_equal(maes, np.array([train_mae, held_mae]), equal_nan=True):
        return None
    return Fit(loss, weights, train_mae, held_mae, float(seconds), str(method), cached=True)


def cached_exact_fit(features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray, genome: Genome,
                     loss: str = "l1", *, use_cache: bool = True, cache_dir: str | Path | None = None) -> Fit:
    """:func:`evolve.ga.fit.exact_fit` (default row limits), read from the fit cache when it holds this fit
    and stored there when it did not (see the module docstring). ``cache_dir`` defaults to
    :func:`fit_cache_dir`; ``Fit.cached`` says whether the fit came from the cache (``Fit.seconds`` is then
    the time the solve took when it was made)."""
    if not use_cache:
        return exact_fit(features, y, train, held, genome, loss)
    if loss not in ("l1", "l2"):
        raise ValueError("loss must be l1 or l2")
    key = fit_key(features, y, train, held, genome, loss)
    path = Path(cache_dir or fit_cache_dir()) / f"{key}.npz"
    fit = _read(path, key, features, y, train, held, genome, loss)
    if fit is not None:
        return fit
    fit = exact_fit(features, y, train, held, genome, loss)
    save_keyed_npz(path, {"weights": np.asarray(fit.weights, dtype=np.float64),
                          "maes": np.array([fit.train_mae, fit.held_mae], dtype=np.float64),
                          "seconds": np.array(fit.seconds, dtype=np.float64), "method": np.array(fit.method)},
                   _ARRAYS, key)
    return fit
