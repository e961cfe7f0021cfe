"""The exact fits' cache (evolve.ga.fit_cache): a hit returns the fit solved before,
a changed label file or a forged or corrupt entry is solved again, and the organism a run writes is the same
with and without the cache."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evolve.data.dataset import load_dataset
from evolve.ga.evolution import GASettings
from evolve.ga.fit import exact_fit
from evolve.ga.fit_cache import cached_exact_fit, fit_key
from evolve.ga.run import RunSettings, evolve
from organisms.feature_cache import save_keyed_npz
from organisms.genome import default_genome
from tests.conftest import write_expert_labels


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("labels") / "labels.epd"
    write_expert_labels(path, 200)
    return path


def test_fit_cache_hit_returns_the_fit_solved_before(labels: Path, tmp_path: Path) -> None:
    ds = load_dataset(labels, target="root", cache_dir=tmp_path / "features")
    genome = default_genome()
    folder = tmp_path / "fits"
    for loss in ("l1", "l2"):
        solved = exact_fit(ds.features, ds.y, ds.train, ds.held, genome, loss)
        miss = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, loss, cache_dir=folder)
        hit = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, loss, cache_dir=folder)
        assert not miss.cached and hit.cached
        # The solvers are deterministic: solving twice, or reading the stored solve, gives the same bits.
        for fit in (miss, hit):
            assert np.array_equal(fit.weights, solved.weights)
            assert (fit.train_mae, fit.held_mae, fit.method, fit.loss) == (solved.train_mae, solved.held_mae,
                                                                          solved.method, loss)
    assert len(list(folder.glob("*.npz"))) == 2  # one entry per loss, nothing else left beside
    # The key covers the rows: another split is another fit.
    other = fit_key(ds.features, ds.y, ds.held, ds.train, genome, "l1")
    assert other != fit_key(ds.features, ds.y, ds.train, ds.held, genome, "l1")


def test_a_changed_label_file_is_fitted_again(tmp_path: Path) -> None:
    path = tmp_path / "labels.epd"
    write_expert_labels(path, 120, seed=3)
    genome = default_genome()
    folder = tmp_path / "fits"
    ds = load_dataset(path, target="root", cache_dir=tmp_path / "features")
    assert not cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, cache_dir=folder).cached
    # One mentor score changed by 50 cp: the fit must be solved again, from the new scores.
    lines = path.read_text().splitlines()
    ce = int(lines[0].split(" ce ")[1].split(";")[0])
    lines[0] = lines[0].replace(f" ce {ce};", f" ce {ce + 50};")
    path.write_text("\n".join(lines) + "\n")
    changed = load_dataset(path, target="root", cache_dir=tmp_path / "features")
    assert not np.array_equal(changed.y, ds.y)
    fit = cached_exact_fit(changed.features, changed.y, changed.train, changed.held, genome, cache_dir=folder)
    assert not fit.cached
    assert np.array_equal(fit.weights, exact_fit(changed.features, changed.y, changed.train, changed.held,
                                                 genome).weights)
    assert len(list(folder.glob("*.npz"))) == 2


def test_a_forged_or_corrupt_entry_is_solved_again(labels: Path, tmp_path: Path) -> None:
    ds = load_dataset(labels, target="root", cache_dir=tmp_path / "features")
    genome = default_genome()
    folder = tmp_path / "fits"
    good = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2", cache_dir=folder)
    [entry] = folder.glob("*.npz")
    key = entry.stem
    # Forged: other weights within the bounds, under the right key and with a valid keyed digest; the stored
    # errors no longer are those of the weights, so the entry is refused.
    forged = np.clip(good.weights + 1.0, genome.low, genome.high)
    save_keyed_npz(entry, {"weights": forged, "maes": np.array([good.train_mae, good.held_mae]),
                           "seconds": np.array(0.0), "method": np.array("lsq")},
                   ("weights", "maes", "seconds", "method"), key)
    again = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2", cache_dir=folder)
    assert not again.cached and np.array_equal(again.weights, good.weights)
    # The entry was rewritten with the solved fit: the next call reads it.
    assert cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2", cache_dir=folder).cached
    # Corrupt: the file cut in half is ignored and rewritten.
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    cut = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2", cache_dir=folder)
    assert not cut.cached and np.array_equal(cut.weights, good.weights)
    assert cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2", cache_dir=folder).cached


def test_the_organism_is_the_same_with_and_without_the_fit_cache(labels: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIMIC_CACHE", str(tmp_path / "cache"))
    outcomes = []
    for name in ("cold", "warm"):  # cold: the fits are solved; warm: read from the cache the cold run filled
        settings = RunSettings(labels=str(labels), out=str(tmp_path / name), target="root",
                               ga=GASettings(population=30, generations=8, sample=100, seed=4))  # any size
        outcomes.append(evolve(settings, "test"))
    cold, warm = outcomes
    assert cold.fit_l1 is not None and not cold.fit_l1.cached
    assert warm.fit_l1 is not None and warm.fit_l1.cached and warm.fit_l2 is not None and warm.fit_l2.cached
    assert len(list((tmp_path / "cache" / "fits").glob("*.npz"))) == 2
    for name in ("organism.json", "fit-l1.json"):
        assert json.loads((tmp_path / "cold" / name).read_text()) == json.loads((tmp_path / "warm" / name).read_text())
    cold_log = [line.split(",")[:5] for line in (tmp_path / "cold" / "logbook.csv").read_text().splitlines()]
    warm_log = [line.split(",")[:5] for line in (tmp_path / "warm" / "logbook.csv").read_text().splitlines()]
    assert cold_log == warm_log  # every column but the seconds
    assert warm.ratio == cold.ratio
