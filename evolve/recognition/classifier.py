"""The classifier over game sides' feature vectors: a regularised multinomial logistic regression, and its file.

Fitting (:func:`fit_classifier`): the features are standardised by the training sides' means and standard
deviations (a feature without spread keeps scale 1; a missing value, NaN, becomes the mean, 0 once standardised),
and each family's features are divided by the square root of their number, so that every family brings the same
total variance (256 repertoire buckets do not drown a handful of clone likelihoods under one L2 penalty);
scikit-learn's ``LogisticRegression`` (L2, lbfgs, multinomial; the players weighted to count the same,
``class_weight="balanced"``) is fitted on the training sides for each strength ``C`` of :data:`GRID`, and the ``C``
whose model gives the validation sides the highest mean log-probability of their player is kept (``C`` = 1 when
there is no validation side). A side's *log-probabilities* are the log-softmax of its standardised vector times
the coefficients plus the intercepts; a query of ``k`` sides is scored by the sum of its sides' log-probabilities
(:func:`group_scores`), and its players' probabilities are the softmax of those sums (the sides independent, the
players equally likely beforehand).

The file (``DIR/classifier.npz``, :data:`CLASSIFIER`) holds no pickle: arrays ``coef`` (players, features),
``intercept``, ``mean``, ``scale``, ``names`` (the features' names) and a JSON ``header`` (format, version,
players, ``C`` and the validation figures, the style settings). It is read back through
:class:`search.runtime.readback.NpzFile` and checked against the clone folder's players and the names its style
settings give (:func:`load_classifier`); scikit-learn is needed to fit, never to classify.

May import numpy, scikit-learn (fitting only), :mod:`search.runtime` and :mod:`evolve.recognition.families`.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evolve.recognition.families import StyleSettings, feature_names, style_of
from evolve.recognition.gameset import Progress
from search.runtime.atomic import atomic_path
from search.runtime.readback import NpzFile, ReadbackError, finite, require, strings

CLASSIFIER = "classifier.npz"
FORMAT = "mimic-recognize-classifier"
VERSION = 1
GRID = (0.001, 0.01, 0.1, 1.0, 10.0)
"""The strengths ``C`` (inverse L2 penalty) tried on the validation split."""

FIT = "classifier"
"""The stage of fitting the classifier; its units are the strengths of :data:`GRID`."""

MAX_FEATURES = 1 << 16
"""A classifier file holds at most this many features (a real one: a few hundred)."""


class ClassifierFileError(ReadbackError):
    """A classifier file that cannot be used: one line naming the file and what is wrong."""


@dataclass
class Classifier:
    """A fitted classifier (see the module docstring)."""

    players: list[str]
    names: list[str]
    coef: np.ndarray  # (players, features)
    intercept: np.ndarray  # (players,)
    mean: np.ndarray  # (features,)
    scale: np.ndarray  # (features,)
    header: dict[str, Any] = field(default_factory=dict)

    def standardise(self, x: np.ndarray) -> np.ndarray:
        """(sides, features) standardised; a missing value (NaN) becomes 0, the training mean."""
        return np.nan_to_num((np.asarray(x, dtype=np.float64) - self.mean) / self.scale, nan=0.0)

    def log_probabilities(self, x: np.ndarray) -> np.ndarray:
        """(sides, players): each side's log-probability (nats) of each player."""
        z = self.standardise(x) @ self.coef.T + self.intercept
        z -= z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def group_scores(logp: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """(groups, players): the sum of each group's sides' log-probabilities.

    >>> group_scores(np.log(np.array([[0.5, 0.5], [0.2, 0.8]])), [[0, 1], [1]]).round(3).tolist()
    [[-2.303, -0.916], [-1.609, -0.223]]
    """
    return np.array([logp[list(g)].sum(axis=0) for g in groups]).reshape(len(groups), logp.shape[1])


def probabilities(scores: np.ndarray) -> np.ndarray:
    """Each row of summed log-probabilities as the players' probabilities (softmax)."""
    z = scores - np.max(scores, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _scaler(x: np.ndarray, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The training sides' mean of every feature and its scale: its standard deviation times the square root of
    the number of features of its family (NaN ignored; a feature without spread: 1 instead of the deviation)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a feature missing on every side: NaN, then 0 and 1
        mean, std = np.nanmean(x, axis=0), np.nanstd(x, axis=0)
    families = [n.split(":")[0] for n in names]
    size = np.array([families.count(f) for f in families], dtype=np.float64)
    return np.nan_to_num(mean, nan=0.0), np.where(np.nan_to_num(std, nan=0.0) > 1e-12, std, 1.0) * np.sqrt(size)


def _fit_one(xs: np.ndarray, y: np.ndarray, players: int, c: float) -> tuple[np.ndarray, np.ndarray]:
    """(coef (players, F), intercept (players,)) of one L2 logistic regression of strength ``c``."""
    if players == 1:
        return np.zeros((1, xs.shape[1])), np.zeros(1)
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    model.fit(xs, y)
    coef, intercept = np.zeros((players, xs.shape[1])), np.zeros(players)
    if coef.shape[0] == 2 and model.coef_.shape[0] == 1:  # binary: one row; as softmax, ±half of it
        coef[1], coef[0] = model.coef_[0] / 2, -model.coef_[0] / 2
        intercept[1], intercept[0] = model.intercept_[0] / 2, -model.intercept_[0] / 2
    else:
        coef[model.classes_] = model.coef_
        intercept[model.classes_] = model.intercept_
    return coef, intercept


def fit_classifier(x_train: np.ndarray, y_train: np.ndarray, x_val: np.ndarray, y_val: np.ndarray,
                   players: Sequence[str], names: Sequence[str], style: StyleSettings,
                   on_progress: Progress | None = None) -> Classifier:
    """Fit on the training sides (``y``: player indices), pick ``C`` of :data:`GRID` on the validation sides
    (see the module docstring). ``on_progress``: stage :data:`FIT`."""
    mean, scale = _scaler(x_train, names)
    base = Classifier(list(players), list(names), np.zeros((len(players), len(names))), np.zeros(len(players)),
                      mean, scale)
    xs = base.standardise(x_train)
    grid = GRID if len(y_val) else (1.0,)
    tried: dict[str, dict[str, float]] = {}
    best: tuple[float, float, np.ndarray, np.ndarray] | None = None
    if on_progress is not None:
        on_progress(FIT, 0, len(grid))
    for done, c in enumerate(grid, 1):
        base.coef, base.intercept = _fit_one(xs, np.asarray(y_train), len(players), c)
        if len(y_val):
            logp = base.log_probabilities(x_val)
            mean_logp = float(logp[np.arange(len(y_val)), y_val].mean())
            tried[f"{c:g}"] = {"mean_log_probability": mean_logp, "top1": float(np.mean(logp.argmax(axis=1) == y_val))}
        else:
            mean_logp = 0.0
        if best is None or mean_logp > best[0]:
            best = (mean_logp, c, base.coef.copy(), base.intercept.copy())
        if on_progress is not None:
            on_progress(FIT, done, len(grid))
    assert best is not None
    header = {"format": FORMAT, "version": VERSION, "players": list(players), "C": best[1], "grid": list(grid),
              "validation": tried, "train_sides": len(y_train), "validation_sides": len(y_val),
              "style": style.header()}
    return Classifier(list(players), list(names), best[2], best[3], mean, scale, header)


def save_classifier(path: str | Path, clf: Classifier) -> None:
    """Write ``clf`` as one ``.npz`` (arrays and a JSON header, no pickle), whole or absent."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, header=np.array(json.dumps(clf.header, sort_keys=True)), coef=clf.coef,
                 intercept=clf.intercept, mean=clf.mean, scale=clf.scale, names=np.array(clf.names, dtype=str))


def load_classifier(path: str | Path, players: Sequence[str]) -> Classifier:
    """The classifier of ``path``, every array's header checked before it is read, the header's players equal
    to ``players`` (the clone folder's), its features' names those its style settings give, every number finite
    (``scale`` positive); :class:`ClassifierFileError` otherwise, one line naming the file."""
    src = str(path)
    with NpzFile(path, "classifier file", error=ClassifierFileError) as npz:
        npz.require(("header", "coef", "intercept", "mean", "scale", "names"))
        header = npz.json("header", 1 << 20)
        if header.get("format") != FORMAT or header.get("version") != VERSION:
            raise ClassifierFileError(f"{src}: not a {FORMAT} of version {VERSION}")
        mine = strings(require(header, "players", list, src, error=ClassifierFileError), "players", src,
                       error=ClassifierFileError)
        if mine != list(players):
            raise ClassifierFileError(f"{src}: its players {', '.join(mine)[:80]} are not the clone folder's "
                                      f"{', '.join(players)[:80]}")
        finite(require(header, "C", (int, float), src, error=ClassifierFileError), "C", src, 0, math.inf,
               error=ClassifierFileError)
        style = style_of(header, src, ClassifierFileError)
        expected = feature_names(players, style)
        f = len(expected)
        if f > MAX_FEATURES:
            raise ClassifierFileError(f"{src}: {f} features, more than {MAX_FEATURES}")
        names = npz.array("names", (f,), kinds="U", max_elements=f)
        if names.tolist() != expected:
            raise ClassifierFileError(f"{src}: its feature names are not those of the families "
                                      f"{','.join(style.families)} (expected {f} names)")
        p = len(players)
        coef = npz.array("coef", (p, f), kinds="f", finite=True)
        intercept = npz.array("intercept", (p,), kinds="f", finite=True)
        mean = npz.array("mean", (f,), kinds="f", finite=True)
        scale = npz.array("scale", (f,), kinds="f", finite=True)
    if not np.all(scale > 0):
        raise ClassifierFileError(f"{src}: scale must be positive")
    return Classifier(list(players), expected, coef, intercept, mean, scale, header)

