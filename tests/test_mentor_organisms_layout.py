"""The rooms of mentor/ and organisms/ after issue 22: small modules, one atomic writer, one parallel map,
a cache folder that ``MIMIC_CACHE`` moves, doctests that run."""

from __future__ import annotations

import doctest
import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

import chess
import numpy as np
import pytest

import mentor.uci_client
import organisms.giraffe
import organisms.movenet
from organisms.feature_cache import default_cache_dir, save_npz_atomic
from organisms.features import bitboard_row, feature_matrix, feature_set_id
from organisms.genome import rich_genome
from organisms.giraffe import GIRAFFE_FEATURE_VERSION, giraffe_matrix
from organisms.net import read_net_file, write_net_file
from organisms.organism import Organism

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_of_the_two_rooms_is_above_400_lines() -> None:
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for room in ("mentor", "organisms") for p in (ROOT / room).glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 400} == {}
    assert "mentor/pool.py" in sizes and "organisms/feature_cache.py" in sizes and "organisms/terms.py" in sizes


def test_the_doctests_of_the_two_rooms_run() -> None:
    # Counted by hand from the modules' docstrings: parse_info has 2 examples, pawn_slots 1, move_indices 2.
    for module, examples in ((mentor.uci_client, 2), (organisms.giraffe, 1), (organisms.movenet, 2)):
        failed, tried = doctest.testmod(module)
        assert (failed, tried) == (0, examples), module.__name__


def _limited(limit: int, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a Python process whose files may not grow past ``limit`` bytes: a write past it fails
    with EFBIG ("File too large") midway, as on a full disk."""
    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          preexec_fn=limit_files)


def test_a_failing_organism_save_leaves_the_old_file_and_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "o.json"
    old = Organism.random(1)
    old.save(path)
    before = path.read_bytes()
    # The same bytes as before the one writer: the JSON text and one newline, UTF-8.
    assert before == (old.to_json() + "\n").encode("utf-8")
    rich = Organism.random(2, rich_genome())
    assert len(rich.to_json()) > 2 * len(before)  # so a limit of 1.5 x the old file fails the new one midway
    run = _limited(len(before) * 3 // 2, "from organisms.organism import Organism\n"
                   "from organisms.genome import rich_genome\n"
                   f"Organism.random(2, rich_genome()).save({str(path)!r})\n")
    assert run.returncode != 0 and "File too large" in run.stderr and str(path) in run.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json"]
    assert Organism.load(path).values() == old.values()


class _Unreadable:
    """An object numpy cannot turn into an array: ``np.savez`` fails when it reaches it."""

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        raise ValueError("this array cannot be serialised")


def test_a_failing_net_write_leaves_the_old_file_and_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "net.npz"
    arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(4, dtype=np.float32)}
    write_net_file(path, arrays, {"format": "test", "z": 1, "a": [1, 2]})
    before = path.read_bytes()
    read, header = read_net_file(path)
    assert header == {"format": "test", "z": 1, "a": [1, 2]}
    assert read.keys() == arrays.keys() and all(np.array_equal(read[k], arrays[k]) for k in arrays)
    with np.load(path, allow_pickle=False) as data:  # the header is stored as JSON with sorted keys, as before
        assert str(data["header"]) == json.dumps({"format": "test", "z": 1, "a": [1, 2]}, sort_keys=True)
    # "a" is written into the archive, then "b" fails: the half-written file is removed, the old one kept.
    with pytest.raises(ValueError, match="cannot be serialised"):
        write_net_file(path, {"a": np.zeros((300, 300), dtype=np.float32), "b": _Unreadable()}, {"format": "x"})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]


def test_a_cache_file_that_cannot_be_written_is_skipped_whole(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "k.npz"
    assert save_npz_atomic(path, {"features": np.zeros((2, 3), dtype=np.float32)})
    before = path.read_bytes()
    # Its folder replaced by a file: nothing can be written there, and nothing is left half-written.
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    assert not save_npz_atomic(blocked / "k.npz", {"features": np.ones(3)})
    # A write that fails midway (the file may not grow past 4 KB; 40 KB of zeros do not compress below it
    # in an uncompressed .npz): False, the old file unchanged, no temporary file.
    run = _limited(4096, "import numpy as np\nfrom pathlib import Path\n"
                   "from organisms.feature_cache import save_npz_atomic\n"
                   f"print(save_npz_atomic(Path({str(path)!r}), {{'features': np.zeros(10000, dtype=np.float32)}}))\n")
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["k.npz"]


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
