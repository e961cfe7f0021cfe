"""Replay's failing candidates (issue 61, item 7): a candidate engine that answers no move, an illegal or null move,
too late, or crashes on a position fails there. Its failures are counted per candidate in what ``mimic recognize
classify --method replay`` prints and in its CSV, left out of its scores, and never cached: a rerun with the
engine healthy asks those positions again. The engines are small UCI scripts written here."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

from .conftest import run_mimic
from .test_recognition_replay import trained_dir

GAME = ("e2e4", "e7e5", "g1f3", "b8c6")
"""The query's one game: White (Fake) plays e4 and Nf3, Black (Other) e5 and Nc6; every position has 20 or more
legal moves, so each side has 2 counted positions."""

ENGINE = """#!{python}
import sys, time
from pathlib import Path

MODE = Path(__file__).with_name("mode")  # read at every go: the engine file (its cache stamp) never changes
GAME = {game!r}
plies = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name fake\\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        plies = len(words) - words.index("moves") - 1 if "moves" in words else 0
    elif words[0] == "go":  # MODE: how it answers, one word for both colours or two (White's, Black's)
        modes = MODE.read_text().split()
        mode = modes[plies % 2 if len(modes) == 2 else 0]
        if mode == "crash":
            sys.exit(3)
        if mode == "slow":
            time.sleep(3)
        move = dict(null="0000", none="(none)", illegal="a1a1", d4="d2d4").get(mode, GAME[plies])
        print("bestmove " + move, flush=True)
    elif words[0] == "quit":
        break
"""
"""A UCI engine that plays the game's own move (healthy), ``bestmove 0000`` (null), ``bestmove (none)`` (none),
``bestmove a1a1`` (illegal), d4 (legal on White's two moves, not the game's), the game's move after 3 s (slow) or
exits (crash), as the file ``mode`` beside it says: one mode, or White's and Black's (``healthy null``)."""


def fake_engine(folder: Path, mode: str) -> Path:
    """The scripted engine in ``folder`` (executable, run by this Python), in ``mode``."""
    folder.mkdir(exist_ok=True)
    path = folder / "fake-engine"
    path.write_text(ENGINE.format(python=sys.executable, game=GAME))
    path.chmod(0o755)
    (folder / "mode").write_text(mode)
    return path


@pytest.fixture
def query(tmp_path: Path) -> Path:
    path = tmp_path / "query.pgn"
    path.write_text('[White "Fake"]\n[Black "Other"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n')
    return path


def _classify(tmp_path: Path, query: Path, engine: Path, *extra: str) -> tuple[object, list[dict[str, str]]]:
    out = tmp_path / "q.csv"
    out.unlink(missing_ok=True)
    folder = tmp_path / "dir" if (tmp_path / "dir").exists() else trained_dir(tmp_path / "dir")
    run = run_mimic("recognize", "classify", folder, query, "--method", "replay", "--no-progress", "--csv", out,
                    "--ranking", "raw", "--multipv", "0", "--candidates", f"Fake=uci:{engine},Other=material@depth=1",
                    *extra, env={"MIMIC_CACHE": str(tmp_path / "cache")})
    rows = []
    if out.exists():
        with open(out, newline="") as fh:
            rows = list(csv.DictReader(fh))
    return run, rows


def test_null_moves_are_counted_never_cached_and_a_healthy_rerun_scores_anew(tmp_path: Path, query: Path) -> None:
    # Derived: the null-move engine answers `bestmove 0000` on all 4 positions (2 a side): 4 failures, each side's
    # query 2. Healthy, the same engine (same file, so the same cache key) plays the game's own move everywhere:
    # 100.0% on both sides. Before the fix the null moves were silent misses (0.0%, exit 0, not a word), cached,
    # and the healthy rerun read them back: 0.0% again.
    engine = fake_engine(tmp_path / "engine", "null")
    run, rows = _classify(tmp_path, query, engine)
    assert run.returncode == 1, run.stderr  # failed on every position: no score at all, a run that could not go on
    assert "candidate Fake: failed on all 4 replayed positions (4 illegal or null moves)" in run.stderr
    assert "Traceback" not in run.stderr and not rows
    (engine.parent / "mode").write_text("healthy")
    again, rows = _classify(tmp_path, query, engine)
    assert again.returncode == 0, again.stderr
    assert "failed" not in again.stderr and "failed" not in again.stdout
    assert [(r["header"], r["score:Fake"], r["failed:Fake"]) for r in rows] == [
        ("Fake", "1.000000", "0"), ("Other", "1.000000", "0")]


@pytest.mark.parametrize(("mode", "says"), [
    ("healthy null", "2 illegal or null moves"),
    ("healthy illegal", "2 illegal or null moves"),
    ("healthy none", "2 answers without a move"),
    ("healthy crash", "2 crashes"),
])
def test_a_candidate_that_fails_on_some_positions_is_scored_on_the_others(tmp_path: Path, query: Path, mode: str,
                                                                           says: str) -> None:
    # The engine fails on Black's positions (an odd number of plies played) and plays the game's own move on
    # White's. Derived: White's query, 2 matched of 2, none failed: 100.0%; Black's, both failed: no score (an
    # empty CSV cell, "failed on 2" on its line), 2 failed. Before the fix: 0.0% on Black's, exit 0, not a word
    # (or "2 replayed positions got no move ... counted as misses"). Healthy again, the same engine file (the same
    # cache key) must be asked Black's side anew: 100.0% on both.
    engine = fake_engine(tmp_path / "engine", mode)
    run, rows = _classify(tmp_path, query, engine)
    assert run.returncode == 0, run.stderr
    assert f"candidate Fake: failed on 2 of 4 replayed positions ({says})" in run.stderr
    assert [(r["header"], r["score:Fake"], r["failed:Fake"], r["score:Other"] != "") for r in rows] == [
        ("Fake", "1.000000", "0", True), ("Other", "", "2", True)]
    lines = [ln for ln in run.stdout.splitlines() if "Other [2 positions" in ln]
    assert len(lines) == 1 and "Fake failed on 2" in lines[0], run.stdout
    (engine.parent / "mode").write_text("healthy")
    again, rows = _classify(tmp_path, query, engine)
    assert again.returncode == 0 and "failed" not in again.stderr + again.stdout, again.stderr
    assert [(r["header"], r["score:Fake"], r["failed:Fake"]) for r in rows] == [("Fake", "1.000000", "0"),
                                                                               ("Other", "1.000000", "0")]


def test_a_candidate_slower_than_the_replays_time_a_move_fails_there(tmp_path: Path, query: Path) -> None:
    # Derived: --movetime 0.05 allows a move 0.05 x 1.5 + 1 = 1.075 s (the deadline of `mimic games --movetime`).
    # The engine sleeps 3 s on White's 2 positions (killed at the deadline and restarted, ~2.2 s in all) and
    # answers the game's own move at once on Black's. White's query: 2 timeouts, no score; Black's: 100.0%.
    # Before the fix the 3 s moves were taken (100.0% on both, exit 0, not a word).
    engine = fake_engine(tmp_path / "engine", "slow healthy")
    run, rows = _classify(tmp_path, query, engine, "--movetime", "0.05")
    assert run.returncode == 0, run.stderr
    assert "candidate Fake: failed on 2 of 4 replayed positions (2 timeouts)" in run.stderr
    assert [(r["header"], r["score:Fake"], r["failed:Fake"]) for r in rows] == [
        ("Fake", "", "2"), ("Other", "1.000000", "0")]


def test_a_query_every_candidate_failed_on_predicts_nobody(tmp_path: Path, query: Path) -> None:
    # Both candidates fail on Black's positions; on White's, Fake plays the game's moves and Other d4 (a miss: so the
    # positions tell them apart and are kept). Black's query has no score for either: it predicts nobody (before,
    # the first candidate in name order: a guess reported as a result). White's: Fake 2 of 2, Other 0 of 2.
    fake, other = fake_engine(tmp_path / "fake", "healthy null"), fake_engine(tmp_path / "other", "d4 null")
    out = tmp_path / "q.csv"
    run = run_mimic("recognize", "classify", trained_dir(tmp_path / "dir"), query, "--method", "replay",
                    "--no-progress", "--csv", out, "--ranking", "raw", "--multipv", "0",
                    "--candidates", f"Fake=uci:{fake},Other=uci:{other}", env={"MIMIC_CACHE": str(tmp_path / "c")})
    assert run.returncode == 0, run.stderr
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["header"], r["predicted"], r["score:Fake"], r["score:Other"], r["failed:Other"]) for r in rows] == [
        ("Fake", "Fake", "1.000000", "0.000000", "0"), ("Other", "", "", "", "2")]
