"""A match or a suite run that stops (killed, its disk full, a game torn) and resumes, with real engines: the
other half of tests/test_match.py, in a file of its own so that two test workers share the match tests."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from evolve.players import make_evaluator
from search.games.game import Adjudication, TimeControl
from search.games.match import MatchSettings, run_match
from search.games.openings import default_openings_path, load_openings
from search.games.pgnlog import read_pgn_text
from search.games.suite import SuiteCsv, SuiteRow, read_csv, write_csv

from .conftest import limited_disk, mimic_command, run_mimic, sigkill_at_line, whole_games

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "data"
SHORT = Adjudication(max_plies=40)
"""Games cut at 40 plies (a draw by maximum length unless a rule or resignation came first): material against
random:1 otherwise wanders on to 100-220 plies, and only the number of games matters to a resume."""


def test_a_match_resumes_from_its_pgn(tmp_path: Path) -> None:
    pgn = tmp_path / "r.pgn"
    ops = load_openings(default_openings_path())[:2]

    def settings(games: int) -> MatchSettings:
        return MatchSettings("material@depth=1", "random:1@depth=1", games=games, openings=ops,
                             tc=TimeControl(depth=1), adjudication=SHORT)

    first = run_match(settings(2), make_evaluator, pgn)
    with pytest.raises(FileExistsError):
        run_match(settings(4), make_evaluator, pgn)
    played: list[str] = []
    second = run_match(settings(4), make_evaluator, pgn, resume=True, on_game=lambda g, s: played.append(g.round))
    # 2 games (rounds 1.1, 1.2) on file; 4 asked for: only the second opening's pair is played.
    assert sorted(played) == ["2.1", "2.2"] and second.n == 4
    assert second.wins + second.draws / 2 >= first.wins + first.draws / 2
    assert len(read_pgn_text(pgn.read_text())) == 4


def test_a_killed_suite_run_resumes_from_its_csv(tmp_path: Path) -> None:
    # Depth 4 (half depth 5's CPU): positions 9-12, which a kill at line 9 at the latest leaves, still take ~1 s.
    common = ["suite", str(BENCH / "wac.epd"), "--engine", "material@depth=4", "--limit", "12"]
    full = tmp_path / "full.csv"
    run_mimic(*common, "--csv", str(full), check=True)
    reference = {r.id: r.played for r in read_csv(full)}
    assert len(reference) == 12

    part = tmp_path / "part.csv"
    # A real process: the test SIGKILLs it.
    proc = subprocess.Popen(mimic_command(*common, "--csv", str(part)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    sigkill_at_line(proc, part, random.randint(2, 9))  # the header and 1 to 8 rows
    kept = len(read_csv(part))
    assert 0 < kept < 12
    again = run_mimic(*common, "--csv", str(part))
    assert again.returncode == 2 and "--resume" in again.stderr  # never overwrites results
    done = run_mimic(*common, "--csv", str(part), "--resume", check=True)
    assert f"resuming: {kept} positions" in done.stdout
    rows = read_csv(part)
    assert [r.id for r in rows] == [f"WAC.{i:03d}" for i in range(1, 13)]  # each position exactly once
    assert {r.id: r.played for r in rows} == reference
    assert f"solved {sum(r.solved for r in rows)} / 12" in done.stdout


def test_a_match_whose_disk_fills_up_loses_and_duplicates_no_game(tmp_path: Path) -> None:
    # material vs random:1 at depth 1 is deterministic. Cut at 40 plies, its six games (rounds 1.1 .. 3.2)
    # take 1,430 + 1,438 + 1,344 + 1,426 + 1,425 + 1,438 bytes today, so a 3,000-byte disk holds two games
    # (2,868 bytes) and a 6,000-byte one four (5,638). The exact sizes do not matter: each run stops
    # at a full disk with one line, keeping only whole games, and the run after it with more room
    # plays on; the end result must equal an uninterrupted match game for game.
    args = ["match", "material@depth=1", "random:1@depth=1", "--games", "6", "--depth", "1", "--max-plies", "40"]
    run_mimic(*args, "--pgn", str(tmp_path / "full.pgn"), check=True)
    pgn = tmp_path / "m.pgn"
    for room in (3_000, 6_000):  # a real process: a file size limit would stop pytest's writes too
        run = subprocess.run(mimic_command(*args, "--pgn", str(pgn), *(["--resume"] if pgn.exists() else [])),
                             capture_output=True, text=True, preexec_fn=limited_disk(room))
        assert run.returncode != 0 and "Traceback" not in run.stderr
        errors = [line for line in run.stderr.splitlines() if not line.startswith("warning")]
        assert len(errors) == 1 and str(pgn) in errors[0], run.stderr
        assert pgn.stat().st_size <= room
        whole_games(pgn)  # what is on disk after a full disk is whole games only
    # The last run, with room to spare, needs no limit: in this process.
    run_mimic(*args, "--pgn", str(pgn), "--resume", check=True)
    assert whole_games(pgn) == whole_games(tmp_path / "full.pgn")


def test_resume_drops_a_torn_game_at_the_end(tmp_path: Path) -> None:
    # The PGN an older version left after a full disk: the third game cut inside a move comment, its
    # Result header already written. Resume must play round 2.1 again, not count it.
    ops = load_openings(default_openings_path())[:2]

    def settings(games: int) -> MatchSettings:
        return MatchSettings("material@depth=1", "random:1@depth=1", games=games, openings=ops,
                             tc=TimeControl(depth=1), adjudication=SHORT)

    run_match(settings(3), make_evaluator, tmp_path / "full.pgn")
    text = (tmp_path / "full.pgn").read_text()
    third = text.index("[Event", text.index("[Round \"1.2\"]"))
    cut = text.index("{", text.index("\n\n", third) + 2) + 4  # inside the first move comment
    pgn = tmp_path / "torn.pgn"
    pgn.write_text(text[:cut])
    repaired: list[str] = []
    played: list[str] = []
    summary = run_match(settings(4), make_evaluator, pgn, resume=True, on_game=lambda g, s: played.append(g.round),
                        on_repair=repaired.append)
    assert played == ["2.1", "2.2"] and summary.n == 4
    assert len(repaired) == 1 and "1 torn" in repaired[0]
    assert list(whole_games(pgn)) == ["1.1", "1.2", "2.1", "2.2"]
    assert pgn.read_text().startswith(text[:third])


def test_a_suite_csv_with_a_torn_last_line_is_cut_back_whole(tmp_path: Path) -> None:
    # Two rows written, then half of a third (a killed run): resuming keeps the two rows, drops the torn line
    # by rewriting the file through the one atomic writer (no temporary file left), and appends after them.
    rows = [SuiteRow(id=f"p{i}", fen=chess.STARTING_FEN, best="e4", avoid="", played="e4", solved=True, points=0,
                     max_points=0, depth=1, nodes=20, time=0.01, score=30, mate=None) for i in range(3)]
    path = tmp_path / "suite.csv"
    write_csv(rows[:2], path)
    whole = path.read_bytes()
    path.write_bytes(whole + b"p2,rnbqkbnr/pppp")
    with SuiteCsv(path, resume=True) as out:
        assert [r.id for r in out.done] == ["p0", "p1"]
        assert path.read_bytes() == whole
        out.append(rows[2])
    assert [r.id for r in read_csv(path)] == ["p0", "p1", "p2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.csv"]


def test_a_match_at_fixed_depth_warns_when_its_openings_repeat(tmp_path: Path) -> None:
    # One opening is one pair of games (colours swapped); at a fixed depth both players search the same way every
    # time, so games 3 and 4 replay games 1 and 2 move for move: what the warning says, checked on the games.
    ops = tmp_path / "one.epd"
    ops.write_text(chess.Board().epd() + ' id "start";\n')
    pgn = tmp_path / "m.pgn"
    r = run_mimic("match", "material@depth=1", "expert@depth=1", "--openings", ops, "--depth", "1", "--games", "4",
                  "--jobs", "1", "--max-plies", "30", "--pgn", pgn)
    assert r.returncode == 0, r.stderr
    assert "4 games at a fixed depth from 1 openings" in r.stderr and "at most 2 games are distinct" in r.stderr
    games = whole_games(pgn)  # round -> (white, black, result, termination, moves)
    assert sorted(games) == ["1.1", "1.2", "2.1", "2.2"]
    assert games["2.1"] == games["1.1"] and games["2.2"] == games["1.2"] and games["1.1"][4] != games["1.2"][4]
    r = run_mimic("match", "material@depth=1", "expert@depth=1", "--openings", ops, "--depth", "1", "--games", "2",
                  "--jobs", "1", "--max-plies", "30")
    assert r.returncode == 0 and "distinct" not in r.stderr  # two games from one opening: nothing repeats
    # tools/drop_replays.py keeps the first game of each opening and colours (rounds 1.x), byte for byte; the match
    # resumed with a second opening then plays rounds 2.x from it: four distinct games.
    first = pgn.read_text()
    drop = [sys.executable, str(ROOT / "tools" / "drop_replays.py"), str(pgn)]
    done = subprocess.run(drop, capture_output=True, text=True)
    assert done.returncode == 3 and "4 games, 2 replaying" in done.stdout and sorted(whole_games(pgn)) == ["1.1", "1.2"]
    assert first.startswith(pgn.read_text())  # rounds 1.x were written first (one worker), kept as they were
    second = chess.Board()
    second.push_uci("d2d4")
    ops.write_text(chess.Board().epd() + ' id "start";\n' + second.epd() + ' id "d4";\n')
    r = run_mimic("match", "material@depth=1", "expert@depth=1", "--openings", ops, "--depth", "1", "--games", "4",
                  "--jobs", "1", "--max-plies", "30", "--pgn", pgn, "--resume")
    assert r.returncode == 0 and "distinct" not in r.stderr
    again = {rnd: g.headers.get("FEN", "start") for g in read_pgn_text(pgn.read_text()) for rnd in [g.headers["Round"]]}
    assert sorted(again) == ["1.1", "1.2", "2.1", "2.2"] and again["2.1"] == again["2.2"] == second.fen()
    assert subprocess.run(drop, capture_output=True).returncode == 0  # nothing replays now


def test_match_seed_shuffles_the_openings(tmp_path: Path) -> None:
    # Three openings, one game each (--games 1 plays round 1.1 from the first opening of the order): without
    # --seed always the file's first; over ten seeds a shuffle of three must start from another at least once
    # (all ten starting from the first has probability (1/3)^10), and one seed always gives the same order.
    boards = [chess.Board(), chess.Board(), chess.Board()]
    for board, move in zip(boards, ("e2e4", "d2d4", "c2c4"), strict=True):
        board.push_uci(move)
    ops = tmp_path / "three.epd"
    ops.write_text("".join(f'{b.epd()} id "o{i}";\n' for i, b in enumerate(boards)))

    def first_fen(*seed: object) -> str:
        pgn = tmp_path / f"s{len(list(tmp_path.iterdir()))}.pgn"
        r = run_mimic("match", "material@depth=1", "material@depth=1", "--openings", ops, "--depth", "1",
                      "--games", "1", "--jobs", "1", "--max-plies", "12", "--pgn", pgn, *seed)
        assert r.returncode == 0, r.stderr
        return read_pgn_text(pgn.read_text())[0].headers["FEN"]

    assert first_fen() == boards[0].fen()
    firsts = {first_fen("--seed", s) for s in range(10)}
    assert firsts <= {b.fen() for b in boards} and len(firsts) > 1
    assert first_fen("--seed", 3) == first_fen("--seed", 3)
