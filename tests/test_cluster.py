"""The dask backend, for real: a two-process ``distributed.LocalCluster`` runs labelling, a match and
feature extraction, and every result equals the local backend's (search.runtime.workers.use_backend)."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.players import make_evaluator
from mentor.labeller import MentorConfig, label_samples
from mentor.samplers import random_playouts
from organisms.features import bitboard_row, feature_matrix
from search.games.game import TimeControl
from search.games.match import MatchSettings, run_match
from search.games.openings import default_openings_path, load_openings
from search.runtime.workers import BackendError, cluster_threads, distributed, parallel, pool_options, use_backend

from .conftest import run_mimic

NO_DASK = "the dask backend needs the 'cluster' extra (dask[distributed])"


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a local cluster: 2 worker processes of one thread each, as the brief's 2 cores."""
    pytest.importorskip("distributed", reason=NO_DASK)
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      worker_dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def _worker_mentors(address: str) -> list[int]:
    """How many mentors each worker process of the cluster holds (started by its tasks)."""
    from distributed import Client

    def count() -> int:
        from mentor import pool

        return len(pool._ALL)

    with Client(address, set_as_default=False) as client:
        return sorted(client.run(count).values())


def _cluster_tasks(address: str, function: str) -> int:
    """How many joblib batches calling ``function`` the cluster's scheduler has seen (joblib names a
    batch ``batch_of_FUNCTION_N_calls``)."""
    from distributed import Client

    def prefixes(dask_scheduler: object) -> dict[str, int]:
        return {k: sum(v.state_counts.values()) for k, v in dask_scheduler.task_prefixes.items()}  # type: ignore

    with Client(address, set_as_default=False) as client:
        seen = client.run_on_scheduler(prefixes)
    return sum(n for k, n in seen.items() if k.startswith(f"batch_of_{function}_"))


def test_labels_on_the_cluster_equal_the_local_ones(scheduler: str, tmp_path: Path) -> None:
    samples = list(random_playouts(12, seed=15, skip_check=True))
    config = MentorConfig("builtin", depth=2)
    local, remote = tmp_path / "local.epd", tmp_path / "dask.epd"
    assert label_samples(samples, config, local, jobs=1).labelled == 12
    with use_backend("dask", scheduler):
        assert distributed() and cluster_threads() == 2  # 2 workers x 1 thread
        summary = label_samples(samples, config, remote, jobs=2, batch_size=2)
    assert not distributed()
    assert summary.labelled == 12 and summary.failed == 0
    # The same file: the same 12 lines in the same order (results are written in the order of the batches)
    assert remote.read_text() == local.read_text()
    # 6 batches of 2 went to the workers, and the mentors they started were closed at the end of the run
    assert _cluster_tasks(scheduler, "label_batch") > 0 and _worker_mentors(scheduler) == [0, 0]


def _moves(pgn: Path) -> dict[str, tuple[str, str, str, str]]:
    """Round -> (White, Black, result, moves in UCI) of every game of ``pgn``."""
    out = {}
    fh = io.StringIO(pgn.read_text())
    while (g := chess.pgn.read_game(fh)) is not None:
        out[g.headers["Round"]] = (g.headers["White"], g.headers["Black"], g.headers["Result"],
                                   " ".join(m.uci() for m in g.mainline_moves()))
    return out


def test_a_match_on_the_cluster_equals_the_local_one(scheduler: str, tmp_path: Path) -> None:
    openings = load_openings(default_openings_path())[:2]

    def settings(jobs: int) -> MatchSettings:  # fixed depth: every game is deterministic
        return MatchSettings("expert@depth=1", "material@depth=1", games=4, jobs=jobs, openings=openings,
                             tc=TimeControl(depth=1))

    # The local games in this process (as the labels above): a local pool of two workers cost ~3 s of CPU to
    # start and plays the same deterministic games.
    local = run_match(settings(1), make_evaluator, tmp_path / "local.pgn")
    with use_backend("dask", scheduler):
        remote = run_match(settings(2), make_evaluator, tmp_path / "dask.pgn")
    assert (remote.wins, remote.draws, remote.losses) == (local.wins, local.draws, local.losses)
    a, b = _moves(tmp_path / "local.pgn"), _moves(tmp_path / "dask.pgn")
    assert sorted(a) == ["1.1", "1.2", "2.1", "2.2"] and a == b  # each opening twice, colours swapped
    assert _cluster_tasks(scheduler, "_play_scheduled") > 0  # the task that plays one game of a schedule


def test_features_on_the_cluster_equal_the_local_ones(scheduler: str) -> None:
    rng = random.Random(4)
    rows = []
    board = chess.Board()
    while len(rows) < 2400:  # feature_matrix works in parallel from 2000 positions up
        moves = list(board.legal_moves)
        if not moves or board.ply() > 60:
            board = chess.Board()
            continue
        board.push(rng.choice(moves))
        rows.append(bitboard_row(board))
    matrix = np.array(rows, dtype=np.uint64)
    local = feature_matrix(matrix, n_jobs=1, use_cache=False)
    with use_backend("dask", scheduler):
        assert pool_options() == {}  # the active parallel_config (dask) decides where the work goes
        remote = feature_matrix(matrix, n_jobs=2, use_cache=False)
    assert remote.shape == (2400, 49) and remote.dtype == np.float32
    assert np.array_equal(remote, local) and _cluster_tasks(scheduler, "_rows_to_features") > 0


def test_a_scattered_array_is_on_every_worker_before_the_tasks(scheduler: str) -> None:
    from distributed import Client
    from joblib import delayed

    big = np.arange(50_000, dtype=np.int64)  # 400 kB: every task reads it
    with use_backend("dask", scheduler):
        pool = parallel(2, scatter=[big])
        with Client(scheduler, set_as_default=False) as client:
            held = client.has_what()  # before any task: broadcast to both workers
            assert len(held) == 2 and all(any(k.startswith("ndarray-") for k in keys) for keys in held.values())
        out = pool(delayed(np.take)(big, i) for i in (0, 7, 49_999))
    assert [int(x) for x in out] == [0, 7, 49_999]  # np.take(arange, i) == i


def test_the_command_line_switch(scheduler: str, tmp_path: Path) -> None:
    common = ("label", "--mentor", "builtin", "--depth", "1", "--positions", "8", "--seed", "3", "--no-progress")
    run_mimic(*common, "--out", str(tmp_path / "l.epd"), check=True)
    run = run_mimic(*common, "--scheduler", scheduler, "--out", str(tmp_path / "d.epd"), check=True)
    assert f"Dask cluster at {scheduler} (2 worker threads)" in run.stderr
    assert "8 labelled now" in run.stdout
    local, remote = ((tmp_path / f).read_text() for f in ("l.epd", "d.epd"))
    assert len(local.splitlines()) == 8 and remote == local


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason=NO_DASK)
    with pytest.raises(BackendError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"), \
            use_backend("dask", "tcp://127.0.0.1:9", timeout=1):
        pass
    run = run_mimic("label", "--backend", "dask", "--positions", "2", "--out", str(tmp_path / "x.epd"))
    assert run.returncode == 2 and not (tmp_path / "x.epd").exists()
    assert run.stderr.strip() == "mimic label: the dask backend needs a scheduler address: --scheduler ADDRESS or " \
                                 "MIMIC_SCHEDULER"


def test_without_dask_the_switch_is_one_clear_error(tmp_path: Path) -> None:
    # distributed made unimportable in a fresh interpreter (as where the extra is not installed)
    code = ("import sys; sys.modules['distributed'] = None; from evolve.cli import main; "
            f"sys.exit(main(['match', 'material', 'random', '--games', '2', '--scheduler', 'tcp://127.0.0.1:9', "
            f"'--pgn', {str(tmp_path / 'm.pgn')!r}]))")
    # A real process: a fresh interpreter where distributed cannot be imported (this one has imported it).
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parent.parent)
    assert run.returncode == 2 and not (tmp_path / "m.pgn").exists()
    assert run.stderr.strip() == "mimic match: the dask backend needs dask[distributed]: pip install 'mimic[cluster]'"
