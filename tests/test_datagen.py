"""Self-play data generation (``mimic datagen``, mentor/selfplay.py) with Debian's Stockfish at a shallow depth: the
labels are the games' searched positions in order, the filters hold, a game's labels share its result, the file is
the same for any --jobs and when resumed, and the sidecar records the source and its options."""

from __future__ import annotations

import json
import re
from pathlib import Path

import chess
import pytest

from mentor.labels import parse_label
from tests.conftest import run_mimic, stockfish_path

STOCKFISH = stockfish_path()
pytestmark = pytest.mark.skipif(STOCKFISH is None, reason="Debian's stockfish is not installed")
COMMON = ["datagen", "--mentor", "stockfish", "--depth", "3", "--no-progress", "--seed", "5"]


def _games(path: Path) -> dict[int, list[tuple[int, str]]]:
    """Game number -> [(ply, EPD line)] of a self-play label file, from each label's id ``selfplay:SEED:GAME:PLY``."""
    games: dict[int, list[tuple[int, str]]] = {}
    for line in path.read_text().splitlines():
        m = re.search(r'id "selfplay:5:(\d+):(\d+)"', line)
        assert m is not None, line
        games.setdefault(int(m.group(1)), []).append((int(m.group(2)), line))
    return games


def test_every_searched_position_is_a_label_in_game_order(tmp_path: Path) -> None:
    # No filter and no random move: each game's labels are its positions one ply apart, and the mentor's best move
    # (the PV's first) leads from each to the next. Every line is pure EPD.
    out = tmp_path / "all.epd"
    run = run_mimic(*COMMON, "--positions", "120", "--out", out, "--skip-plies", "0", "--keep-check", "--keep-noisy",
                    "--cap", "100000", "--random-plies", "2", "--game-plies", "60")
    assert run.returncode == 0, run.stderr
    games = _games(out)
    assert len(games) >= 2 and list(games) == sorted(games)  # whole games, in game order
    for g, rows in games.items():
        labels = [parse_label(line) for _, line in rows]
        plies = [p for p, _ in rows]
        assert plies == list(range(plies[0], plies[0] + len(plies))), g  # one label a ply
        assert len({lab.result for lab in labels}) == 1 and labels[0].result in ("1-0", "0-1", "1/2-1/2")
        assert len({p + lab.plies_to_end for p, lab in zip(plies, labels, strict=True)}) == 1  # c2 counts to the end
        for (p, line), lab, nxt in zip(rows, labels, [*labels[1:], None], strict=True):
            chess.Board.from_epd(line)  # pure EPD
            assert lab.root_ply == p and lab.board.ply() == p  # fmvn is the position's move number
            if nxt is not None:
                board = lab.board.copy()
                board.push(lab.pv[0])
                assert board.epd() == nxt.board.epd(), (g, p)
    assert "speed:" in run.stdout and "results:" in run.stdout


def test_the_filters_and_the_per_game_cap(tmp_path: Path) -> None:
    out = tmp_path / "kept.epd"
    run = run_mimic(*COMMON, "--positions", "60", "--out", out, "--skip-plies", "12", "--cap", "400", "--per-game",
                    "5", "--random-rate", "0.1")
    assert run.returncode == 0, run.stderr
    games = _games(out)
    assert all(len(rows) <= 5 for rows in games.values())
    for rows in games.values():
        for p, line in rows:
            lab = parse_label(line)
            assert p >= 12 and not lab.board.is_check() and abs(lab.ce) <= 400
            best = lab.pv[0]
            assert not lab.board.is_capture(best) and best.promotion is None
    side = json.loads(Path(f"{out}.json").read_text())
    settings = side["runs"][-1]["settings"]
    assert settings["sources"] == ["selfplay"] and settings["selfplay"]["per_game"] == 5
    assert settings["selfplay"]["random_rate"] == 0.1 and side["runs"][-1]["mentor"]["depth"] == 3


def test_the_same_file_for_any_jobs_and_when_resumed(tmp_path: Path) -> None:
    args = [*COMMON, "--random-plies", "4", "--game-plies", "80"]
    one = tmp_path / "one.epd"
    assert run_mimic(*args, "--positions", "150", "--out", one, "--jobs", "1").returncode == 0
    two = tmp_path / "two.epd"
    assert run_mimic(*args, "--positions", "150", "--out", two, "--jobs", "2").returncode == 0
    assert one.read_bytes() == two.read_bytes()
    part = tmp_path / "part.epd"
    assert run_mimic(*args, "--positions", "60", "--out", part, "--jobs", "2").returncode == 0
    with part.open("a") as fh:
        fh.write("rnbqkbnr/pppp")  # a torn line, as a killed run leaves
    again = run_mimic(*args, "--positions", "60", "--out", part)
    assert again.returncode == 2 and "--resume" in again.stderr
    assert run_mimic(*args, "--positions", "150", "--out", part, "--resume", "--jobs", "2").returncode == 0
    assert part.read_bytes() == one.read_bytes()
    assert len(json.loads(Path(f"{part}.json").read_text())["runs"]) == 2
