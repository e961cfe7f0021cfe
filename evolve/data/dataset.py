"""From a label file to the arrays the GA and the exact fits work on.

Each label becomes its target position (:mod:`mentor.target`: the quiet leaf of the mentor's PV by
default) with the mentor's score from that position's side to move (centipawns), the game result from
the same side's view when the label carries ``c9`` (1 win, 0.5 draw, 0 loss), and the number of plies
to the game's end, and the target's ply from the game's start (when the label has ``fmvn``). Features are
parsed, resolved and extracted once (in parallel) and cached on disk (:mod:`evolve.data.cache`). Labels whose
``|ce|`` exceeds the cap (mates included) are left out and counted. With ``quiet``, labels that are not quiet
(:meth:`mentor.labels.Label.quiet`: the labelled position in check, or the mentor's best move a capture or a
promotion, or no PV) are left out too, and counted. A fixed share is held out: it is never sampled for
fitness, and its error is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evolve.data.cache import ResolvedLabels, resolve_labels
from mentor.labels import DEFAULT_CAP
from organisms.features import feature_matrix
from search.runtime.errors import MimicError, SettingsError


class LabelsError(MimicError, ValueError):
    """A label file that leaves nothing to learn from (no usable labels, no quiet ones): the message names it."""


@dataclass
class Dataset:
    """Rows are labelled positions that passed the cap. ``y`` is centipawns, target side to move."""

    features: np.ndarray  # (N, P) float64
    y: np.ndarray  # (N,) mentor score at the target
    result: np.ndarray  # (N,) 1 / 0.5 / 0 for the target's side to move; NaN when unknown
    plies_to_end: np.ndarray  # (N,) NaN when unknown
    train: np.ndarray  # row indices used for fitness
    held: np.ndarray  # row indices never sampled
    source: str = ""
    target: str = "leaf"
    total: int = 0
    over_cap: int = 0
    mates: int = 0
    malformed: int = 0
    errors: list[str] = field(default_factory=list)
    ply: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (N,) target's ply from the start; NaN unknown
    quiet_only: bool = False  # labels that are not quiet were left out
    not_quiet: int = 0  # how many (counted only with quiet_only)

    @property
    def n(self) -> int:
        return len(self.y)

    def describe(self) -> str:
        return (f"{self.total} labels in {self.source}: {self.n} used ({len(self.train)} training, "
                f"{len(self.held)} held out), {self.over_cap} beyond the cap left out ({self.mates} of them "
                f"mates), " + (f"{self.not_quiet} not quiet left out, " if self.quiet_only else "")
                + f"{self.malformed} malformed lines skipped; target: {self.target}")


    def malformed_report(self, limit: int = 5) -> list[str]:
        """For the console: how many label lines were skipped as malformed, and the first ``limit``
        of them as ``FILE:LINE: reason`` (empty when none were)."""
        if not self.malformed:
            return []
        more = f" (first {limit} shown)" if self.malformed > limit else ""
        return [f"{self.source}: {self.malformed} malformed label lines skipped{more}:",
                *(f"  {e}" for e in self.errors[:limit])]


def split(n: int, held_out: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded random split of ``range(n)`` into (training, held-out) index arrays, each sorted."""
    if not 0.0 <= held_out < 1.0:
        raise SettingsError("the held-out share must be within [0, 1)")
    perm = np.random.default_rng([seed, 0x5EED]).permutation(n)
    k = round(n * held_out)
    return np.sort(perm[k:]), np.sort(perm[:k])


def kept_split(resolved: ResolvedLabels, path: str | Path, quiet: bool, held_out: float, seed: int, cap: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The labels kept (all, or with ``quiet`` the quiet ones: a bool mask over ``resolved``'s rows) and the
    seeded split of the kept rows (:func:`split`): the one home of the held-out rows of a label file, shared by
    the GA (:func:`load_dataset`) and the perspective net's training (:mod:`evolve.nets.pnet_data`)."""
    if not len(resolved.y):
        raise LabelsError(f"{path}: no usable labels (of {resolved.total}, {resolved.over_cap} beyond the cap of "
                         f"{cap} cp)")
    keep = resolved.quiet if quiet else np.ones(len(resolved.y), dtype=bool)
    if not keep.any():
        raise LabelsError(f"{path}: no quiet labels (of {len(resolved.y)} within the cap)")
    train, held = split(int(keep.sum()), held_out, seed)
    return keep, train, held


def load_dataset(path: str | Path, target: str = "leaf", cap: int = DEFAULT_CAP, held_out: float = 0.2,
                 seed: int = 0, n_jobs: int = 1, cache_dir: str | Path | None = None,
                 use_cache: bool = True, layout: str = "paper", quiet: bool = False, score: int = 0) -> Dataset:
    """Read ``path``, resolve targets, extract the features of ``layout`` (``paper`` or ``rich``, see
    ``organisms.features.feature_names``), and split; see the module docstring.

    The resolved labels are cached by :func:`evolve.data.cache.resolve_labels` (keyed by the file's bytes,
    the target mode and the cap) and the features by :func:`organisms.features.feature_matrix` (keyed by
    the target positions and the feature set's version). ``cache_dir`` holds the feature cache, and the
    label cache in its ``labels/`` folder (default: ``$MIMIC_CACHE``, see ``default_cache_dir``). With
    ``quiet``, only quiet labels are kept (the features are those of every label, cached as without it, then
    cut), before the split. ``score`` ``i`` ≥ 1: a crowd's file, trained on its ``i``-th mentor's scores (0: ``ce``).
    """
    resolved = resolve_labels(path, target, cap, n_jobs=n_jobs, use_cache=use_cache,
                              cache_dir=Path(cache_dir) / "labels" if cache_dir is not None else None, score=score)
    keep, train, held = kept_split(resolved, path, quiet, held_out, seed, cap)
    matrix = feature_matrix(resolved.rows, n_jobs=n_jobs, cache_dir=cache_dir, use_cache=use_cache,
                            layout=layout)
    features = matrix.astype(np.float64) if keep.all() else matrix[keep].astype(np.float64)
    return Dataset(features, resolved.y[keep], resolved.result[keep], resolved.plies[keep], train, held, str(path),
                   target, resolved.total, resolved.over_cap, resolved.mates, resolved.malformed, resolved.errors,
                   resolved.ply[keep], quiet, int((~keep).sum()))
