"""Feature extraction (organisms/features.py): the cache under ``MIMIC_CACHE``, extraction in workers equal to
extraction here, and the names callers import from where they were."""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest

from organisms.feature_cache import default_cache_dir
from organisms.features import bitboard_row, feature_matrix, feature_set_id
from organisms.giraffe import GIRAFFE_FEATURE_VERSION, giraffe_matrix


def _rows(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = []
    board = chess.Board()
    while len(rows) < n:
        moves = list(board.legal_moves)
        if not moves or board.ply() > 80:
            board = chess.Board()
            continue
        board.push(moves[int(rng.integers(len(moves)))])
        rows.append(bitboard_row(board))
    return np.array(rows, dtype=np.uint64)


def test_the_feature_cache_lives_under_mimic_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIMIC_CACHE", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine" / "features"
    rows = _rows(30, seed=3)
    first = feature_matrix(rows)
    files = list((tmp_path / "mine" / "features").iterdir())
    assert len(files) == 1 and files[0].suffix == ".npz"
    with np.load(files[0], allow_pickle=False) as data:
        assert np.array_equal(data["features"], first) and len(str(data["key"])) == 40
    assert np.array_equal(feature_matrix(rows), first)  # read back from the file
    # The Giraffe features share the folder (another key: GIRAFFE_FEATURE_VERSION instead of the layout's).
    boards = [chess.Board(), chess.Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")]
    giraffe_matrix(boards)
    assert len(list((tmp_path / "mine" / "features").iterdir())) == 2
    assert feature_set_id("paper") != GIRAFFE_FEATURE_VERSION


def test_feature_extraction_in_workers_equals_extraction_here() -> None:
    # 2,400 rows: above the 2,000 below which extraction stays in this process, so n_jobs=2 uses workers
    # (8 chunks through search.runtime.workers.parallel_map); the rows come back in their order.
    rows = _rows(2400, seed=5)
    here = feature_matrix(rows, n_jobs=1, use_cache=False)
    assert np.array_equal(feature_matrix(rows, n_jobs=2, use_cache=False), here)
    assert np.array_equal(feature_matrix(rows, n_jobs=2, use_cache=False, layout="rich")[:, :49], here)


def test_names_callers_import_are_still_where_they_were() -> None:
    from mentor.labeller import BUILTIN_NAME, MentorConfig, find_stockfish, label_samples  # noqa: F401
    from mentor.pool import BUILTIN_NAME as pool_name
    from mentor.pool import MentorConfig as PoolConfig
    from organisms.features import default_cache_dir as features_cache_dir
    from organisms.features import read_cached_features, save_npz_atomic, write_cached_features  # noqa: F401

    assert pool_name == BUILTIN_NAME and MentorConfig is PoolConfig and features_cache_dir is default_cache_dir
