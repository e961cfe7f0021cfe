"""A million labels (issue 11, item 3): the label cache, its invalidation, and the L1 fit at scale."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from evolve.data import cache as label_cache
from evolve.data.cache import read_cached_labels, resolve_labels, write_cached_labels
from evolve.data.dataset import load_dataset
from evolve.ga.fit import fit_l1, fit_l1_irls
from mentor.labels import read_labels
from mentor.target import target_with_plies
from organisms.features import bitboard_row, feature_matrix, write_cached_features

features_module = importlib.import_module("organisms.features")  # the package re-exports a function of that name
REPO = Path(__file__).resolve().parent.parent
LABELS = REPO / "results" / "paper-builtin" / "labels.epd"  # 5,000 labels of the built-in expert, depth 2


def _labels(tmp_path: Path, n: int = 120, bad_line: bool = True) -> Path:
    """The first ``n`` labels of the reference run, plus (third line) one malformed line."""
    lines = LABELS.read_text().splitlines()[:n]
    if bad_line:
        lines.insert(2, "not a position; ce 12;")
    path = tmp_path / "labels.epd"
    path.write_text("\n".join(lines) + "\n")
    return path


def _truth(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Rows and scores computed label by label, without the cache or the chunks."""
    rows, ys = [], []
    for label in read_labels(path, on_error=lambda e: None):
        if abs(label.ce) > 1500:
            continue
        board, score, _ = target_with_plies(label, "leaf")
        rows.append(bitboard_row(board))
        ys.append(score)
    return np.array(rows, dtype=np.uint64), np.array(ys, dtype=np.float64)


def test_cache_is_reused_for_the_same_file(tmp_path: Path) -> None:
    path = _labels(tmp_path)
    cache = tmp_path / "cache"
    first = resolve_labels(path, cache_dir=cache)
    assert not first.cached
    (stored,) = cache.glob("*.npz")
    mtime = stored.stat().st_mtime_ns
    second = resolve_labels(path, cache_dir=cache)
    # Read from the file, not parsed again, and the file was not rewritten.
    assert second.cached and stored.stat().st_mtime_ns == mtime
    rows, ys = _truth(path)
    for r in (first, second):
        assert np.array_equal(r.rows, rows) and np.array_equal(r.y, ys)
        # 121 lines: 1 malformed, 120 labels.
        assert (r.total, r.malformed) == (120, 1)
        assert len(r.errors) == 1 and r.errors[0].startswith(f"{path}:3: ")


def test_cache_hit_returns_what_the_cache_holds(tmp_path: Path) -> None:
    # Recognisably different values written through the cache's own writer (key and keyed digest consistent)
    # come back: the second load reads the cache and does no target work.
    path = _labels(tmp_path, bad_line=False)
    cache = tmp_path / "cache"
    first = resolve_labels(path, cache_dir=cache)
    (stored,) = cache.glob("*.npz")
    first.y = first.y.copy()
    first.y[0] = 12345.0
    assert write_cached_labels(stored, stored.stem, first)
    assert resolve_labels(path, cache_dir=cache).y[0] == 12345.0


def test_a_one_byte_change_of_the_label_file_is_not_reused(tmp_path: Path) -> None:
    path = _labels(tmp_path, bad_line=False)
    cache = tmp_path / "cache"
    before = resolve_labels(path, cache_dir=cache)
    text = path.read_text()
    first_line = text.splitlines()[0]
    assert " ce 845;" in first_line  # the reference file's first label; the target is 2 plies deep
    path.write_text(text.replace(" ce 845;", " ce 846;", 1))  # one byte
    after = resolve_labels(path, cache_dir=cache)
    assert not after.cached and len(list(cache.glob("*.npz"))) == 2
    # The first label's target score follows the file: 845 -> 846 (same sign, even plies or not).
    assert abs(after.y[0]) == abs(before.y[0]) + 1
    assert np.array_equal(after.y, _truth(path)[1])


def test_target_mode_and_cap_have_their_own_entries(tmp_path: Path) -> None:
    path = _labels(tmp_path, bad_line=False)
    cache = tmp_path / "cache"
    leaf = resolve_labels(path, "leaf", cache_dir=cache)
    root = resolve_labels(path, "root", cache_dir=cache)
    assert not root.cached
    capped = resolve_labels(path, "leaf", cap=100, cache_dir=cache)
    assert not capped.cached and len(capped.y) < len(leaf.y)
    assert len(list(cache.glob("*.npz"))) == 3


def test_a_feature_version_change_recomputes_the_features(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = _labels(tmp_path, bad_line=False)
    cache = tmp_path / "cache"
    ds = load_dataset(path, cache_dir=cache)
    (feature_file,) = cache.glob("*.npz")
    # Poison the version-1 feature cache consistently (its own writer): version 1 reads the poison back...
    with np.load(feature_file) as data:
        stored, key = data["features"].copy(), str(data["key"])
    stored[0, 0] = 12345.0
    assert write_cached_features(feature_file, key, stored)
    assert load_dataset(path, cache_dir=cache).features[0, 0] == 12345.0
    # ...and a new feature version does not: it has a key of its own, and extracts the features again.
    monkeypatch.setattr(features_module, "FEATURE_VERSION", features_module.FEATURE_VERSION + 1)
    assert features_module.feature_key() == f"features-v2-{features_module.N_FEATURES}"
    again = load_dataset(path, cache_dir=cache)
    assert np.array_equal(again.features, ds.features)
    assert len(list(cache.glob("*.npz"))) == 2
    # The parsed labels do not depend on the features: their cache is still used.
    assert resolve_labels(path, cache_dir=cache / "labels").cached


def test_a_truncated_or_tampered_label_cache_is_recomputed(tmp_path: Path) -> None:
    path = _labels(tmp_path)
    cache = tmp_path / "cache"
    truth = resolve_labels(path, cache_dir=cache)
    (stored,) = cache.glob("*.npz")
    good = stored.read_bytes()
    key = stored.stem
    # Truncated.
    stored.write_bytes(good[: len(good) // 2])
    assert read_cached_labels(stored, key) is None
    again = resolve_labels(path, cache_dir=cache)
    assert not again.cached and np.array_equal(again.y, truth.y)
    assert stored.read_bytes() == good  # rewritten whole
    # Values changed without their digest.
    with np.load(stored) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["y"] = arrays["y"] + 1.0
    np.savez(stored, **arrays)
    assert read_cached_labels(stored, key) is None
    assert np.array_equal(resolve_labels(path, cache_dir=cache).y, truth.y)
    # Another file's key.
    assert read_cached_labels(stored, "0" * 40) is None
    # Empty.
    stored.write_bytes(b"")
    assert not resolve_labels(path, cache_dir=cache).cached


def test_parallel_chunks_equal_the_serial_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 7 lines a chunk: 18 chunks over two workers; the rows, counts and the malformed line's number
    # (line 3 of the file) come back in file order.
    path = _labels(tmp_path)
    serial = resolve_labels(path, use_cache=False)
    monkeypatch.setattr(label_cache, "CHUNK", 7)
    done: list[int] = []
    par = resolve_labels(path, use_cache=False, n_jobs=2, on_chunk=done.append)
    assert sum(done) == 121 and len(done) == 18  # ceil(121 / 7)
    assert np.array_equal(par.rows, serial.rows) and np.array_equal(par.y, serial.y)
    assert np.array_equal(par.result, serial.result, equal_nan=True)
    assert (par.total, par.over_cap, par.mates, par.malformed) == (serial.total, serial.over_cap, serial.mates, 1)
    assert par.errors == serial.errors and par.errors[0].startswith(f"{path}:3: ")


def test_feature_matrix_from_cached_rows_equals_boards(tmp_path: Path) -> None:
    path = _labels(tmp_path, n=40, bad_line=False)
    r = resolve_labels(path, cache_dir=tmp_path / "c")
    boards = [target_with_plies(lab, "leaf")[0] for lab in read_labels(path) if abs(lab.ce) <= 1500]
    assert np.array_equal(feature_matrix(r.rows, use_cache=False), feature_matrix(boards, use_cache=False))


@pytest.fixture(scope="module")
def fit_problem(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, np.ndarray]:
    """1,500 real labels: features of the reference run's targets and the mentor's scores (cp), from the training
    split of the file's first 2,000 labels (the whole file's 5,000 took 2.5 times as long to read)."""
    folder = tmp_path_factory.mktemp("fit")
    ds = load_dataset(_labels(folder, n=2000, bad_line=False), cache_dir=folder / "cache")
    assert len(ds.train) >= 1500
    rows = ds.train[:1500]
    return ds.features[rows], ds.y[rows]


def test_irls_l1_agrees_with_the_exact_lp(fit_problem: tuple[np.ndarray, np.ndarray]) -> None:
    # The IRLS solution's mean absolute error is within 0.5% of the LP optimum (which no bounded
    # solution can beat), and never below it by more than rounding.
    from organisms.genome import default_genome

    g = default_genome()
    f, y = fit_problem
    exact = fit_l1(f, y, g.low, g.high)
    approx = fit_l1_irls(f, y, g.low, g.high)
    mae_exact = float(np.abs(f @ exact - y).mean())
    mae_irls = float(np.abs(f @ approx - y).mean())
    assert mae_exact - 1e-6 <= mae_irls <= 1.005 * mae_exact
    assert np.all(approx >= g.low) and np.all(approx <= g.high)


def test_bounded_least_squares_on_the_normal_equations_equals_bvls_on_the_rows(
        fit_problem: tuple[np.ndarray, np.ndarray]) -> None:
    # The same bounded least-squares problem solved by BVLS on the 1,500 rows and through the 49 × 49
    # normal equations: same weights to rounding, so the same squared error to 1e-9 relative.
    from scipy.optimize import lsq_linear

    from evolve.ga.fit import fit_l2
    from organisms.genome import default_genome

    g = default_genome()
    f, y = fit_problem
    direct = np.clip(lsq_linear(f, y, bounds=(g.low, g.high), method="bvls").x, g.low, g.high)
    normal = fit_l2(f, y, g.low, g.high)
    sse = lambda w: float(((f @ w - y) ** 2).sum())  # noqa: E731
    assert abs(sse(normal) - sse(direct)) <= 1e-9 * sse(direct)
    assert np.allclose(normal, direct, rtol=1e-5, atol=1e-4)


def test_malformed_lines_name_the_file_read_not_the_one_cached(tmp_path: Path) -> None:
    # Two files with the same bytes share a cache entry; each one's malformed line is reported under its
    # own name (line 3, see _labels).
    first = _labels(tmp_path)
    second = tmp_path / "copy.epd"
    second.write_bytes(first.read_bytes())
    cache = tmp_path / "cache"
    assert resolve_labels(first, cache_dir=cache).errors[0].startswith(f"{first}:3: ")
    again = resolve_labels(second, cache_dir=cache)
    assert again.cached and len(again.errors) == 1 and again.errors[0].startswith(f"{second}:3: ")
