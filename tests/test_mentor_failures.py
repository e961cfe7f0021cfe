"""A mentor that misbehaves, and settings that can give nothing (issue 61, items 3, 4 and 8).

A mentor's score beyond every mate bound, not a number or unparsable is that search's failure: counted, the engine
restarted as for a crash, the position retried (or failed and counted), never written. An option the engine does not
list is refused before any labelling. ``datagen`` refuses settings that can give no position before the mentor starts,
and ends a run whose games stop giving labels. The misbehaving mentor is a real process: a small UCI engine written
into ``tmp_path`` that answers ``cp 17`` to its first searches and garbage after them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mentor.labels import parse_label
from tests.conftest import mimic_command, run_mimic, stockfish_path

STOCKFISH = stockfish_path()
pytestmark = pytest.mark.skipif(STOCKFISH is None, reason="Debian's stockfish is not installed")
EPD_MATE_BOUND = 29_000  # a |ce| this large reads back as a mate (search/conventions.py); no centipawn label reaches it

ENGINE = """\
import sys

GOOD, BAD = {good}, {bad!r}
fen, searches = "", 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name Garbage 1\\noption name Hash type spin default 16 min 1 max 64\\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        fen = " ".join(words[2:8])
    elif words[0] == "go":
        searches += 1
        if searches <= GOOD:
            import chess  # only when it answers: a process that only sends garbage starts faster

            move = next(iter(chess.Board(fen).legal_moves)).uci()
            print(f"info depth 1 score cp 17 pv {{move}}\\nbestmove {{move}}", flush=True)
        else:
            print(f"info depth 1 score {{BAD}} pv e2e4\\nbestmove e2e4", flush=True)
    elif words[0] == "eval":  # Stockfish's static evaluation, in pawns from White's view
        print("Final evaluation       +1e30 (white side)", flush=True)
    elif words[0] == "quit":
        break
"""


def _engine(tmp_path: Path, good: int, bad: str) -> Path:
    """A UCI engine (a process of its own) that answers ``score cp 17`` to its first ``good`` searches, then
    ``score BAD``; its best move is the first legal one, it lists one option, Hash, and its static evaluation
    (Stockfish's ``eval`` command) is 1e30 pawns."""
    path = tmp_path / "garbage-engine"
    path.write_text(f"#!{sys.executable}\n" + ENGINE.format(good=good, bad=bad))
    path.chmod(0o755)
    return path


def _summary(out: Path) -> dict:
    return json.loads(Path(f"{out}.json").read_text())["runs"][-1]["summary"]


@pytest.mark.parametrize("bad", ["cp 1180591620717411303424", "cp nan", "mate 1099511627776"])
def test_a_crowd_mentors_garbage_is_refused_counted_and_never_written(tmp_path: Path, bad: str) -> None:
    # The engine answers three searches, then garbage; each garbage answer restarts it and the position is retried
    # on the fresh process, whose first three searches are good. 12 positions, one worker: process 1 labels 1-3 and
    # refuses 4; process 2 labels 4-6 and refuses 7; process 3 labels 7-9 and refuses 10; process 4 labels 10-12.
    # So 3 refused scores, 3 restarts, 12 labels whose first crowd score (c3) is the engine's 17.
    out = tmp_path / "crowd.epd"
    run = run_mimic("label", "--mentor", _engine(tmp_path, 3, bad), "--mentor", "stockfish", "--depth", "1",
                    "--positions", "12", "--jobs", "1", "--timeout", "10", "--no-progress", "--out", out)
    assert run.returncode == 0, run.stderr
    labels = [parse_label(line) for line in out.read_text().splitlines()]
    assert len(labels) == 12
    assert all(abs(lab.ce) < EPD_MATE_BOUND for lab in labels)
    assert all('c3 "17 ' in line for line in out.read_text().splitlines())
    assert "engine restarts: 3 (3 after a score beyond the mate bound or not a number, refused)" in run.stdout
    summary = _summary(out)
    assert (summary["bad_scores"], summary["restarts"], summary["labelled"]) == (3, 3, 12)


def test_a_mentor_that_only_sends_garbage_fails_its_positions(tmp_path: Path) -> None:
    # Every answer is garbage. A position is tried once in the pipelined loop, then 1 + 3 retries (MentorConfig's
    # retries): 5 refused scores a position, 10 for two; every start but the very first is a restart (9).
    out = tmp_path / "none.epd"
    run = run_mimic("label", "--mentor", _engine(tmp_path, 0, "cp 99999999"), "--depth", "1", "--positions", "2",
                    "--jobs", "1", "--timeout", "10", "--no-progress", "--out", out)
    assert run.returncode == 1, run.stderr  # failed positions: exit 1
    assert out.read_text() == ""  # nothing written
    assert "0 labelled now, 2 failed" in run.stdout and "beyond the mate bound" in run.stderr
    summary = _summary(out)
    assert (summary["failed"], summary["bad_scores"], summary["restarts"]) == (2, 10, 9)


def test_a_static_evaluation_beyond_the_mate_bound_is_refused(tmp_path: Path) -> None:
    # @eval: the engine's "Final evaluation" of 1e30 pawns is refused each time; a static position is asked once and
    # retried 3 times (4 refused scores a position, 8 for two), every start but the first a restart (7); no label.
    out = tmp_path / "static.epd"
    run = run_mimic("label", "--mentor", f"{_engine(tmp_path, 3, 'cp 1')}@eval", "--positions", "2", "--jobs", "1",
                    "--timeout", "10", "--no-progress", "--out", out)
    assert run.returncode == 1, run.stderr
    assert out.read_text() == ""
    summary = _summary(out)
    assert (summary["failed"], summary["bad_scores"], summary["restarts"]) == (2, 8, 7)


def test_datagen_refuses_a_mentors_garbage(tmp_path: Path) -> None:
    # One game of 6 plies (no random ply, no filter): searches 1-3 good, the 4th refused, the engine restarted, and the
    # new process answers the last three. 6 labels, each the engine's cp 17; 1 refused score, 1 restart.
    # In a process of its own with a deadline: before the fix, the garbage scores were beyond the cap, every game
    # gave nothing, and the run never returned.
    out = tmp_path / "sp.epd"
    run = subprocess.run(mimic_command("datagen", "--mentor", str(_engine(tmp_path, 3, "cp 1180591620717411303424")),
                                       "--depth", "1", "--positions", "6", "--game-plies", "6", "--random-plies", "0",
                                       "--skip-plies", "0", "--keep-check", "--keep-noisy", "--cap", "100000",
                                       "--timeout", "10", "--no-progress", "--out", str(out)),
                         capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert [parse_label(line).ce for line in out.read_text().splitlines()] == [17] * 6
    assert "engine restarts: 1 (1 after a score beyond the mate bound" in run.stdout
    assert (_summary(out)["bad_scores"], _summary(out)["restarts"]) == (1, 1)


@pytest.mark.parametrize(("command", "option", "name"), [("label", "Bogus=1", "'Bogus'"),
                                                          ("datagen", "Skil Level=3", "'Skil Level'")])
def test_an_option_the_engine_does_not_have_is_refused(tmp_path: Path, command: str, option: str, name: str) -> None:
    # Stockfish lists "Skill Level", not "Skil Level", and no "Bogus": refused in one line naming the option and the
    # engine, before anything is labelled (no label file).
    out = tmp_path / "opt.epd"
    run = run_mimic(command, "--mentor", "stockfish", "--depth", "1", "--positions", "2", "--option", option,
                    "--no-progress", "--out", out)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and "stockfish" in lines[0] and "Skill Level" in lines[0], run.stderr
    assert not out.exists()


def test_an_option_no_mentor_can_take_is_refused(tmp_path: Path) -> None:
    # The built-in mentor is not a UCI engine: an --option would be dropped without a word. In a crowd with a UCI
    # engine, the option goes to the engine (which lists Skill Level) and the run labels.
    out = tmp_path / "b.epd"
    run = run_mimic("label", "--mentor", "builtin", "--depth", "1", "--positions", "2", "--option", "Skill Level=3",
                    "--no-progress", "--out", out)
    assert run.returncode == 2 and "--option Skill Level" in run.stderr and "built-in mentor" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and not out.exists()
    run = run_mimic("label", "--mentor", "builtin", "--mentor", "stockfish", "--depth", "1", "--positions", "2",
                    "--option", "Skill Level=3", "--no-progress", "--out", out)
    assert run.returncode == 0, run.stderr
    assert len(out.read_text().splitlines()) == 2


def _datagen(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``mimic datagen`` in a process of its own, with a deadline: a run that never returns fails the test."""
    return subprocess.run(mimic_command("datagen", "--mentor", "stockfish", "--positions", "10", "--no-progress",
                                        "--out", str(tmp_path / "dg.epd"), *args),
                          capture_output=True, text=True, timeout=30, cwd=tmp_path)


@pytest.mark.parametrize(("args", "says"), [
    (["--depth", "1000000000"], "1 to 99 plies"),
    # The shipped openings are at ply 0; 6 random plies and a game of 1 ply: the last searched ply is 6 < 8 skipped.
    (["--game-plies", "1"], "at most 6"),
    (["--skip-plies", "10000"], "at most 405"),  # 0 + 6 + 400 - 1
    (["--random-plies", "1000000"], "at most 12000"),  # a random playout that long never ended
])
def test_datagen_refuses_settings_that_give_nothing(tmp_path: Path, args: list[str], says: str) -> None:
    run = _datagen(tmp_path, *args)
    assert run.returncode == 2, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and says in run.stderr
    assert not (tmp_path / "dg.epd").exists()


def test_datagen_leaves_out_dead_openings_and_refuses_when_none_is_left(tmp_path: Path) -> None:
    # Bare kings (insufficient material) and Black checkmated (no legal move): neither can give a position.
    (tmp_path / "dead.epd").write_text("4k3/8/8/8/8/8/8/4K3 w - - id \"bare\";\n"
                                       "7k/6Q1/6K1/8/8/8/8/8 b - - id \"mated\";\n")
    run = _datagen(tmp_path, "--openings", "dead.epd")
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert "bare: insufficient material" in lines[0] and "mated: checkmate" in lines[1]
    assert len(lines) == 3 and "none of the 2 openings" in lines[2]
    assert not (tmp_path / "dg.epd").exists()


def test_datagen_ends_a_run_whose_games_give_nothing(tmp_path: Path) -> None:
    # Four queens up: every score is far beyond --cap 1 (or the game is won and over), so no game keeps a label. The
    # run stops after DRY_GAMES (100) games in a row with none, saying so with the count; the two dead openings are
    # named, left out and counted in the sidecar.
    (tmp_path / "dry.epd").write_text("4k3/8/8/8/8/8/8/4K3 w - - id \"bare\";\n"
                                      "7k/6Q1/6K1/8/8/8/8/8 b - - id \"mated\";\n"
                                      "4k3/8/8/8/8/8/8/QQQQK3 w - - id \"queens\";\n")
    run = subprocess.run(mimic_command("datagen", "--mentor", "builtin", "--depth", "1", "--positions", "10",
                                       "--openings", "dry.epd", "--cap", "1", "--random-plies", "0", "--skip-plies",
                                       "0", "--no-progress", "--out", "dg.epd"),
                         capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("mimic datagen: stopped: the last 100 games gave no label") and "100 games played" in last
    sampling = _summary(tmp_path / "dg.epd")["sampling"]
    assert (sampling["games"], sampling["unplayable openings"]) == (100, 2)


def test_datagen_ends_a_run_whose_mentor_gives_up(tmp_path: Path) -> None:
    # Every answer is garbage: the mentor gives up on each game's first position; after GAVE_UP_GAMES (3) in a row the
    # run stops, naming the refused score.
    run = subprocess.run(mimic_command("datagen", "--mentor", str(_engine(tmp_path, 0, "cp nan")), "--depth", "1",
                                       "--positions", "10", "--jobs", "1", "--no-progress", "--out", "dg.epd"),
                         capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "stopped: the mentor gave up on the last 3 games" in last and "not a whole number" in last
    assert (tmp_path / "dg.epd").read_text() == ""
