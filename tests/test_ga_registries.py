"""The GA's tables (issue 37): a loss of the mentor objective is one entry of evolve.ga.losses.LOSSES, an operator one
entry of its registry in evolve.ga.operators; the run, the summary and the command line read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evolve.data.dataset import load_dataset
from evolve.ga.evolution import GASettings
from evolve.ga.objective_api import ObjectiveDefaults, cp_errors
from evolve.ga.run import RunOutcome, RunSettings, evolve
from organisms.genome import default_genome
from tests.conftest import write_expert_labels


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("labels") / "labels.epd"
    write_expert_labels(path, 200)
    return path


class _SquaredLoss(ObjectiveDefaults):
    """A loss of the mentor objective written for the test below: the mean squared cp error, cp reported beside;
    no ceiling (the defaults')."""

    name, unit, reports_cp = "mentor", "cp²", True

    def __init__(self, features: np.ndarray, y: np.ndarray) -> None:
        self.features, self.y, self.rows = features, y, np.arange(len(y))

    def losses_and_cp(self, weights: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        miss = self.features[rows] @ np.atleast_2d(weights).T - self.y[rows, None]
        return (miss * miss).mean(axis=0), np.abs(miss).mean(axis=0)

    def losses(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return self.losses_and_cp(weights, rows)[0]

    def winner_cp(self, weights: np.ndarray, train: np.ndarray, held: np.ndarray) -> tuple[float, float]:
        return cp_errors(self.features, self.y, weights, train, held)

    def summary_errors(self, settings: RunSettings, o: RunOutcome) -> list[str]:
        return ["the squared loss's own section"]


def test_a_loss_is_one_entry_of_the_table(labels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 37: RunSettings, the run, the summary and the --loss choices all read evolve.ga.losses.LOSSES.
    from evolve.cli import build_parser
    from evolve.ga.losses import LOSSES, Loss

    monkeypatch.setitem(LOSSES, "squared", Loss("mean squared cp error", lambda ds, s: _SquaredLoss(ds.features, ds.y)))
    args = build_parser(["evolve"]).parse_args(["evolve", str(labels), "--out", "x", "--loss", "squared"])
    assert args.loss == "squared"
    settings = RunSettings(labels=str(labels), out=str(tmp_path / "sq"), ga=GASettings(population=10, generations=3,
                           sample=50, seed=1), target="root", loss="squared")
    o = evolve(settings, "test")
    assert o.ceiling is None and o.ratio is None and o.cp_errors is not None and o.cp_errors[1] > 0
    header = (tmp_path / "sq" / "logbook.csv").read_text().splitlines()[0]
    assert header == "gen,best,mean,std,held_out,seconds,held_out_cp"
    summary = (tmp_path / "sq" / "summary.md").read_text()
    assert "## Errors\n\nthe squared loss's own section\n" in summary
    with pytest.raises(ValueError, match="unknown loss 'cubed'"):
        RunSettings(labels="x", out="y", ga=GASettings(), loss="cubed")


def test_an_operator_is_one_entry_of_its_registry(labels: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 37: the loop calls toolbox.mutate_population(children, generation=g) whatever the kind registered.
    from evolve.ga.evolution import Evolution
    from evolve.ga.objectives import MentorLoss
    from evolve.ga.operators import MUTATIONS

    made: list[int] = []

    def mut_invert(children: np.ndarray, *, genome: object, settings: GASettings, generation: int,
                   rng: np.random.Generator) -> None:
        made.append(generation)
        children ^= (rng.random(children.shape) < settings.mutation).astype(np.uint8)

    monkeypatch.setitem(MUTATIONS, "invert", mut_invert)
    ds = load_dataset(labels, target="root")
    ga = GASettings(population=8, generations=4, sample=40, mutation_kind="invert", mutation=0.05)
    Evolution(default_genome(), MentorLoss(ds.features, ds.y), ds.train, ds.held, ga).run()
    assert made == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="mutation kind must be one of"):
        GASettings(mutation_kind="swap")
