"""Player recognition (``mimic recognize``): clone each player from their games, then tell who played a game.

The rooms, bottom up: :mod:`~evolve.recognition.caches` (the cache folders, one name each),
:mod:`~evolve.recognition.gameset` (reading game sets: games once each, the trained players' game sides; the
:data:`Progress` callback), :mod:`~evolve.recognition.positions` (the sides' positions, resolved children and
features, cached), :mod:`~evolve.recognition.measures` (how well a clone explains a side's moves),
:mod:`~evolve.recognition.families` (the feature families: one spec each, one table),
:mod:`~evolve.recognition.vectors` (a side's feature vector, cached), :mod:`~evolve.recognition.settings` (a
``train``'s settings), :mod:`~evolve.recognition.training` (the split and the clones: ``train``),
:mod:`~evolve.recognition.classification` (``classify`` and its CSV), :mod:`~evolve.recognition.baselines` (the
centipawn-loss profile), :mod:`~evolve.recognition.summary` (an experiment's charts and summary.md) and
:mod:`~evolve.recognition.experiments` (``experiment``). This package gives the names the command line uses.

May import everything below ``evolve`` and ``evolve``'s own modules; nothing imports it but the
command line and the tools.
"""

from evolve.recognition.classification import NORMS, Query, classify, load_clones, read_csv_accuracy, write_csv
from evolve.recognition.classifier import probabilities
from evolve.recognition.experiments import KS, ExperimentSettings, experiment
from evolve.recognition.gameset import Progress
from evolve.recognition.measures import SCORES
from evolve.recognition.training import MANIFEST, SHARED, SPLIT, RecognizeSettings, Trained, train

__all__ = ["KS", "MANIFEST", "NORMS", "SCORES", "SHARED", "SPLIT", "ExperimentSettings",
           "Progress", "Query", "RecognizeSettings", "Trained", "classify", "experiment", "load_clones",
           "probabilities", "read_csv_accuracy", "train", "write_csv"]
