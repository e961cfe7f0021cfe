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
installed scipy's version (the solvers are scipy's). The win-probability ceiling (``loss="wdl"``,
:func:`cached_wdl_fit`) adds its targets (which carry the model, the ply and the result blend), its model's
name, K, λ and the loss's power to the key, and its start (the L1 fit's weights).

On reading, an entry must carry that key and a digest of it and of its arrays keyed with the user's secret cache
key (:mod:`search.runtime.cachekey`), hold one weight per gene within the
genes' bounds, and its stored mean absolute errors (and a wdl fit's losses) must be those of its weights on
these rows, recomputed (to :data:`RECHECK_RTOL`);
anything else (another label file, a truncated, tampered or forged file) is ignored, the fit solved again
and the entry rewritten. A cache that cannot be written is skipped.

May import: numpy, ``evolve.ga.fit``, ``evolve.ga.wdl``, ``organisms``.
"""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

import numpy as np

from evolve.ga.fit import EXACT_LOSSES, IRLS_MAX_ROWS, LP_MAX_ROWS, Fit, exact_fit
from evolve.ga.objectives import sigmoid
from evolve.ga.wdl import WdlTarget, exact_wdl_fit, power_error
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from organisms.genome import Genome
from search.runtime.cachekey import cache_root

FIT_VERSION = 2
"""Bumped whenever what :func:`evolve.ga.fit.exact_fit` computes or how an entry is stored changes (solvers,
their settings; 2: a keyed digest instead of a checksum)."""

_ARRAYS = ("weights", "maes", "seconds", "method")

RECHECK_RTOL = 1e-9
"""How closely a read entry's stored errors must match those recomputed from its weights: the product over every
row, then the rows taken, differs from the product over the rows in the last bits (BLAS blocks them otherwise)."""


def fit_cache_dir() -> Path:
    """``$MIMIC_CACHE/fits`` (``~/.cache/mimic/fits`` by default), beside the label and feature caches."""
    return cache_root() / "fits"


def _scipy_version() -> str:
    try:
        return metadata.version("scipy")
    except metadata.PackageNotFoundError:
        return "none"


def _update(digest: hashlib.blake2b, arrays: list[tuple[str, np.ndarray]]) -> None:
    for name, array in arrays:
        a = np.ascontiguousarray(array)
        digest.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        digest.update(a.data if a.size else b"")  # the array's own bytes: tobytes() copied 0.7 GB at 200,000 rows


def fit_key(features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray, genome: Genome, loss: str,
            lp_max_rows: int = LP_MAX_ROWS, irls_max_rows: int = IRLS_MAX_ROWS) -> str:
    """The key of one exact fit: a BLAKE2 hash of everything it depends on (see the module docstring)."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"fit-v{FIT_VERSION}|loss={loss}|lp={lp_max_rows}|irls={irls_max_rows}|"
                  f"scipy={_scipy_version()}|genes={','.join(genome.names)}|".encode())
    _update(digest, [("features", features), ("y", y), ("train", train), ("held", held), ("low", genome.low),
                     ("high", genome.high)])
    return digest.hexdigest()


def wdl_fit_key(data_key: str, target: WdlTarget, start: np.ndarray | None) -> str:
    """The key of one win-probability ceiling: ``data_key``, the L1 fit's key of the same rows (it covers the
    features, the mentor's scores, the rows, the genome, the solvers' versions), with the targets, the model,
    K, λ, the power and the start. Hashing the feature matrix once more cost 1.3 s at 200,000 rich labels."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"fit-v{FIT_VERSION}|loss=wdl|data={data_key}|model={target.model}|k={target.k!r}|"
                  f"lambda={target.lambda_result!r}|power={target.power!r}|".encode())
    _update(digest, [("p", target.p), ("start", np.zeros(0) if start is None else np.asarray(start, dtype=np.float64))])
    return digest.hexdigest()


def _read(path: Path, key: str, features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray,
          genome: Genome, loss: str, wdl: WdlTarget | None = None) -> Fit | None:
    """The fit stored at ``path`` for ``key``, or ``None`` when it is missing or fails a check (with ``wdl``,
    its stored losses must also be those of its weights, recomputed)."""
    arrays = load_keyed_npz(path, _ARRAYS if wdl is None else (*_ARRAYS, "losses"), key)
    if arrays is None:
        return None
    weights, maes, seconds, method = arrays["weights"], arrays["maes"], arrays["seconds"], arrays["method"]
    if (weights.dtype != np.float64 or weights.shape != genome.low.shape or maes.dtype != np.float64
            or maes.shape != (2,) or seconds.shape != () or method.dtype.kind != "U" or method.shape != ()):
        return None
    if not (np.isfinite(weights).all() and (weights >= genome.low).all() and (weights <= genome.high).all()):
        return None
    pred = features @ weights  # one product over every row: copying the training rows' features cost seconds
    errors = [float(np.abs(pred[r] - y[r]).mean()) if len(r) else float("nan") for r in (train, held)]
    if not np.allclose(maes, errors, rtol=RECHECK_RTOL, atol=0.0, equal_nan=True):
        return None
    fit = Fit(loss, weights, float(maes[0]), float(maes[1]), float(seconds), str(method), cached=True)
    if wdl is not None:
        losses = [float(power_error(sigmoid(pred[r] / wdl.k) - wdl.p[r], wdl.power).mean()) if len(r)
                  else float("nan") for r in (train, held)]
        stored = arrays["losses"]
        if stored.shape != (2,) or not np.allclose(stored, losses, rtol=RECHECK_RTOL, atol=0.0, equal_nan=True):
            return None
        fit.train_loss, fit.held_loss = float(stored[0]), float(stored[1])
    return fit


def cached_exact_fit(features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray, genome: Genome,
                     loss: str = "l1", *, use_cache: bool = True, cache_dir: str | Path | None = None) -> Fit:
    """:func:`evolve.ga.fit.exact_fit` (default row limits), read from the fit cache when it holds this fit
    and stored there when it did not (see the module docstring). ``cache_dir`` defaults to
    :func:`fit_cache_dir`; ``Fit.cached`` says whether the fit came from the cache (``Fit.seconds`` is then
    the time the solve took when it was made)."""
    if not use_cache:
        return exact_fit(features, y, train, held, genome, loss)
    if loss not in EXACT_LOSSES:
        raise ValueError(f"loss must be one of {', '.join(EXACT_LOSSES)}")
    key = fit_key(features, y, train, held, genome, loss)
    path = Path(cache_dir or fit_cache_dir()) / f"{key}.npz"
    fit = _read(path, key, features, y, train, held, genome, loss)
    if fit is not None:
        fit.key = key
        return fit
    fit = exact_fit(features, y, train, held, genome, loss)
    fit.key = key
    save_keyed_npz(path, {"weights": np.asarray(fit.weights, dtype=np.float64),
                          "maes": np.array([fit.train_mae, fit.held_mae], dtype=np.float64),
                          "seconds": np.array(fit.seconds, dtype=np.float64), "method": np.array(fit.method)},
                   _ARRAYS, key)
    return fit


def cached_wdl_fit(features: np.ndarray, y: np.ndarray, train: np.ndarray, held: np.ndarray, genome: Genome,
                   target: WdlTarget, start: np.ndarray | None = None, *, data_key: str = "", use_cache: bool = True,
                   cache_dir: str | Path | None = None) -> Fit:
    """:func:`evolve.ga.wdl.exact_wdl_fit` from ``start``, read from the fit cache when it holds this fit and
    stored there when it did not. ``data_key``: the key of the L1 fit of the same arrays and rows
    (:attr:`Fit.key` of :func:`cached_exact_fit`'s L1 fit; computed when empty). On reading, the stored weights'
    losses and centipawn errors must be those recomputed on these rows."""
    if not use_cache:
        return exact_wdl_fit(features, y, target, train, held, genome.low, genome.high, start)
    key = wdl_fit_key(data_key or fit_key(features, y, train, held, genome, "l1"), target, start)
    path = Path(cache_dir or fit_cache_dir()) / f"{key}.npz"
    fit = _read(path, key, features, y, train, held, genome, "wdl", target)
    if fit is not None:
        fit.key = key
        return fit
    fit = exact_wdl_fit(features, y, target, train, held, genome.low, genome.high, start)
    fit.key = key
    save_keyed_npz(path, {"weights": np.asarray(fit.weights, dtype=np.float64),
                          "maes": np.array([fit.train_mae, fit.held_mae], dtype=np.float64),
                          "seconds": np.array(fit.seconds, dtype=np.float64), "method": np.array(fit.method),
                          "losses": np.array([fit.train_loss, fit.held_loss], dtype=np.float64)},
                   (*_ARRAYS, "losses"), key)
    return fit
