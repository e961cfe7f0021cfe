"""Recognition's progress (issue 22): the callback of ``train``, ``classify`` and ``experiment`` reports every
stage with totals that match the work, alike in parallel."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

import evolve.recognition.positions
from evolve.ga.evolution import GASettings
from evolve.recognition import ExperimentSettings, Trained, classify, experiment, train
from evolve.recognition import RecognizeSettings as TrainSettings
from evolve.recognition.classifier import GRID

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ("White, Will", "Black, Bea")
GAMES = 12
CHUNK = 5
"""Game sides per chunk of resolved positions in these tests (the library's is 50): several chunks of few sides."""


def random_games(n: int, plies: int = 12, seed: int = 7) -> list[chess.pgn.Game]:
    """``n`` games of seeded random legal moves, White's seat always ``PLAYERS[0]``'s."""
    rng = np.random.default_rng(seed)
    games = []
    for g in range(n):
        board, game = chess.Board(), chess.pgn.Game()
        game.headers.update(Event="layout", Date=f"2026.02.{g + 1:02d}", Round=str(g + 1), White=PLAYERS[0],
                            Black=PLAYERS[1], Result="*")
        node: chess.pgn.GameNode = game
        for _ in range(plies):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = legal[int(rng.integers(len(legal)))]
            node = node.add_variation(move)
            board.push(move)
        games.append(game)
    return games


@pytest.fixture(scope="module")
def pgns(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The 12 games in two files of 6."""
    folder = tmp_path_factory.mktemp("layout")
    games = random_games(GAMES)
    paths = [folder / "a.pgn", folder / "b.pgn"]
    for path, part in zip(paths, (games[:6], games[6:]), strict=True):
        path.write_text("".join(f"{g}\n\n" for g in part))
    return paths


def settings(pgns: list[Path], out: Path, jobs: int = 1) -> TrainSettings:
    return TrainSettings(games=tuple(map(str, pgns)), players=("White", "Black"), out=str(out),
                         ga=GASettings(population=8, generations=2, sample=60, seed=1), skip_plies=4,
                         validation=0.25, test=0.25, features=("clones", "habits"), jobs=jobs)


class Calls:
    """Every call of an ``on_progress`` callback, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def __call__(self, stage: str, done: int, total: int) -> None:
        self.calls.append((stage, done, total))

    def stages(self) -> list[str]:
        return list(dict.fromkeys(s for s, _, _ in self.calls))

    def of(self, stage: str) -> list[tuple[int, int]]:
        return [(d, t) for s, d, t in self.calls if s == stage]


def check_stage(calls: Calls, stage: str, total: int) -> None:
    """A stage starts at 0, counts up by whole units (or in one step, from a cache), never changes its total and
    ends at done == total."""
    seen = calls.of(stage)
    assert seen[0] == (0, total) and seen[-1] == (total, total), seen
    assert all(t == total for _, t in seen)
    assert all(b[0] > a[0] for a, b in itertools.pairwise(seen)), seen


Shared = tuple[Path, Path, Trained, Calls]
"""The shared training: its clones folder, its cache, its result, its progress calls."""


@pytest.fixture(scope="module")
def trained(pgns: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Shared:
    """One serial ``train`` (chunks of :data:`CHUNK` sides, a fresh cache) and its progress calls: its clones
    folder, its cache, its result. Shared by the tests below, which only read it (one training instead of three)."""
    folder = tmp_path_factory.mktemp("trained")
    calls = Calls()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evolve.recognition.positions, "CHUNK_GAMES", CHUNK)
        tr = train(settings(pgns, folder / "clones"), "test", cache_dir=folder / "cache" / "features",
                   on_progress=calls)
    return folder / "clones", folder / "cache" / "features", tr, calls


def test_train_reports_every_stage_with_totals_that_match_the_work(
        pgns: list[Path], trained: Shared, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evolve.recognition.positions, "CHUNK_GAMES", CHUNK)
    _, cache, tr, calls = trained  # the first training on a fresh cache, as before sharing it
    assert calls.stages() == ["games", "positions", "features", "clones", "style", "classifier"]
    # By hand: 2 files; 12 games of 2 named sides = 24 sides; split by game 6 / 3 / 3, so both players have
    # 6 training sides (equal already: no cap drops one) and every side is kept: 24 sides in chunks of 5 = 5
    # chunks; one organism a player and the shared one = 3.
    assert len(tr.order) == 2 * GAMES
    check_stage(calls, "games", 2)
    assert calls.of("games") == [(0, 2), (1, 2), (2, 2)]
    check_stage(calls, "positions", math.ceil(2 * GAMES / CHUNK))
    assert len(calls.of("positions")) == 1 + 5  # one call a chunk
    assert calls.of("features") == [(0, 1), (1, 1)]
    assert calls.of("clones") == [(0, 3), (1, 3), (2, 3), (3, 3)]
    # The style features of the 24 sides in tasks of 8 = 3; the classifier's strengths tried, one a unit.
    check_stage(calls, "style", 3)
    check_stage(calls, "classifier", len(GRID))
    # Again: the resolved children come from the cache, all 5 chunks at once.
    again = Calls()
    train(settings(pgns, tmp_path / "again"), "test", cache_dir=cache, on_progress=again)
    assert again.of("positions") == [(0, 5), (5, 5)]


def test_parallel_training_trains_the_same_clones_and_reports_the_same(
        pgns: list[Path], trained: Shared, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # --jobs 2 goes through joblib workers (search.runtime.workers.parallel_map): the clones, the manifest's
    # figures and the progress calls are those of the serial run (the shared one: same chunks of 5 sides, so the
    # parallel run resolves 5 chunks in its workers, not one; a fresh cache for each run, as before).
    monkeypatch.setattr(evolve.recognition.positions, "CHUNK_GAMES", CHUNK)
    clones, _, one, serial = trained
    parallel = Calls()
    two = train(settings(pgns, tmp_path / "two", jobs=2), "test", cache_dir=tmp_path / "cache2" / "features",
                on_progress=parallel)
    np.testing.assert_array_equal(one.weights, two.weights)
    assert one.shared_weights is not None and two.shared_weights is not None
    np.testing.assert_array_equal(one.shared_weights, two.shared_weights)
    assert serial.calls == parallel.calls
    for p in ("White", "Black"):
        for key in ("train_loss", "held_out_loss", "beta", "normalisation"):
            assert one.manifest["clones"][p][key] == two.manifest["clones"][p][key]
    split_one = json.loads((clones / "split.json").read_text())
    assert split_one == json.loads((tmp_path / "two" / "split.json").read_text())


def test_classify_reports_its_stages(pgns: list[Path], trained: Shared,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evolve.recognition.positions, "CHUNK_GAMES", CHUNK)
    clones, cache, _, _ = trained  # the shared clones, trained with this cache (as the test trained its own)
    calls = Calls()
    queries = classify(clones, pgns[1], k=1, cache_dir=cache, on_progress=calls)
    # By hand: one query file of 6 games, every side a query (12), resolved in chunks of 5 = 3 chunks.
    assert len(queries) == 12
    assert calls.stages() == ["games", "positions", "features", "style"]  # style: the classifier's features
    assert calls.of("games") == [(0, 1), (1, 1)]
    check_stage(calls, "positions", 3)
    assert calls.of("features") == [(0, 1), (1, 1)]


def test_experiment_reports_training_then_the_baseline_then_the_queries(pgns: list[Path], trained: Shared,
                                                                         tmp_path: Path) -> None:
    calls = Calls()  # the shared training's cache: its resolved sides are read back (the stages are still reported)
    results = experiment(ExperimentSettings(train=settings(pgns, tmp_path / "exp"), cp_positions=2), "test",
                         cache_dir=trained[1], on_progress=calls)
    assert calls.stages() == ["games", "positions", "features", "clones", "style", "classifier", "cp_loss", "queries"]
    # By hand: the centipawn losses are measured on the training and test sides, 6 + 3 a player = 18 sides, in
    # tasks of 10 sides = 2; the queries are classified for k = 1, 4, 16 and all = 4 group sizes.
    check_stage(calls, "cp_loss", 2)
    assert calls.of("queries") == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert list(results["k"]) == ["1", "4", "16", "all"]
    assert calls.calls[-1] == ("queries", 4, 4)
    for name in ("summary.md", "confusion.png", "accuracy.png", "queries-k1.csv", "recognize.json", "split.json"):
        assert (tmp_path / "exp" / name).stat().st_size > 0
    assert not [p.name for p in (tmp_path / "exp").iterdir() if p.name.startswith(".")]  # no temporary file left
