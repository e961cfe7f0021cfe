"""A mentor's limit and who it is (issue 39's mentors): ``@eval`` labels a position with a static evaluation and no
search (Stockfish's ``eval`` command; the built-in mentor's evaluator's own), and ``builtin:SPEC`` labels with
mimic's engine searching with any of mimic's evaluators (the perspective net searching 2 plies, say)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from mentor.labels import parse_label
from tests.conftest import run_mimic, stockfish_path

REPO = Path(__file__).resolve().parent.parent
STOCKFISH = stockfish_path()
QUEEN_UP = "4k2r/8/8/8/8/8/P7/3QK3 {} - - 0 1"  # White: K, Q, P; Black: K, R (neither side in check)
HANGING = "6k1/8/8/3q4/8/8/8/3Q2K1 w - - 0 1"  # either queen takes the other along the d-file; White moves first
IN_CHECK = "4k3/8/8/8/8/8/4q3/3QK3 w - - 0 1"  # the black queen on e2 checks the white king


def _epd(path: Path, *fens: str) -> Path:
    path.write_text("".join(" ".join(f.split()[:4]) + "\n" for f in fens))
    return path


def _labels(path: Path) -> dict[str, int]:
    return {" ".join(lab.board.fen().split()[:4]): lab.ce for lab in map(parse_label, path.read_text().splitlines())}


def test_a_builtin_static_mentor_scores_without_searching(tmp_path: Path) -> None:
    src = _epd(tmp_path / "p.epd", QUEEN_UP.format("w"), QUEEN_UP.format("b"), HANGING)
    static, searched = tmp_path / "static.epd", tmp_path / "d1.epd"
    for mentor, out in (("builtin:material@eval", static), ("builtin:material@depth=1", searched)):
        run = run_mimic("label", "--mentor", mentor, "--source", src, "--positions", "3", "--out", out,
                        "--no-progress")
        assert run.returncode == 0, run.stderr
    got = _labels(static)
    # By hand, material only (pawn 100, queen 900, rook 500), side to move's view: White Q+P against a rook is
    # +500 for White to move and -500 for Black to move; the two queens cancel where one hangs.
    assert got[" ".join(QUEEN_UP.format("w").split()[:4])] == 500
    assert got[" ".join(QUEEN_UP.format("b").split()[:4])] == -500
    assert got[" ".join(HANGING.split()[:4])] == 0
    assert all(parse_label(line).acd == 0 for line in static.read_text().splitlines())
    # One ply of search sees Qxd5 (nothing recaptures): a queen up, +900.
    assert _labels(searched)[" ".join(HANGING.split()[:4])] == 900
    mentor = json.loads(Path(f"{static}.json").read_text())["runs"][0]["mentor"]
    assert mentor["static"] is True and mentor["player"] == "material" and mentor["depth"] is None


@pytest.mark.skipif(STOCKFISH is None, reason="Debian's stockfish is not installed")
def test_stockfish_static_evaluation_in_centipawns_for_the_side_to_move(tmp_path: Path) -> None:
    src = _epd(tmp_path / "p.epd", QUEEN_UP.format("w"), QUEEN_UP.format("b"), IN_CHECK)
    out = tmp_path / "eval.epd"
    run = run_mimic("label", "--mentor", "stockfish@eval", "--source", src, "--positions", "3", "--out", out,
                    "--no-progress")
    assert run.returncode == 0, run.stderr
    got = _labels(out)
    # A queen and a pawn against a rook: far ahead for White (Stockfish's scale: a pawn about 100), so clearly
    # positive with White to move and clearly negative with Black to move (the side to move's view).
    assert got[" ".join(QUEEN_UP.format("w").split()[:4])] > 300
    assert got[" ".join(QUEEN_UP.format("b").split()[:4])] < -300
    # Stockfish has no static evaluation in check: that position is left out while sampling and counted.
    assert len(got) == 2 and "in check 1" in run.stdout
    lines = out.read_text().splitlines()
    assert all(parse_label(line).acd == 0 and parse_label(line).pv == [] for line in lines)


@pytest.mark.skipif(STOCKFISH is None, reason="Debian's stockfish is not installed")
def test_self_play_needs_a_searching_mentor(tmp_path: Path) -> None:
    run = run_mimic("datagen", "--mentor", "stockfish@eval", "--positions", "10", "--out", tmp_path / "x.epd")
    assert run.returncode == 2 and "needs a search" in run.stderr
    assert not (tmp_path / "x.epd").exists()


def test_a_net_searching_in_mimics_engine_is_a_mentor_named_by_its_file(tmp_path: Path) -> None:
    net = tmp_path / "pnet.npz"
    shutil.copyfile(REPO / "results/pnet/pnet.npz", net)
    src = _epd(tmp_path / "p.epd", QUEEN_UP.format("w"), HANGING)
    out = tmp_path / "net.epd"
    run = run_mimic("label", "--mentor", f"builtin:pnet:{net}@depth=2", "--source", src, "--positions", "2",
                    "--out", out, "--no-progress")
    assert run.returncode == 0, run.stderr
    labels = [parse_label(line) for line in out.read_text().splitlines()]
    assert len(labels) == 2 and all(lab.acd == 2 for lab in labels)
    # The net (trained on Stockfish's labels) sees White's queen-for-rook lead and the free queen after Qxd5.
    assert all(lab.ce > 300 for lab in labels)
    mentor = json.loads(Path(f"{out}.json").read_text())["runs"][0]["mentor"]
    digest = hashlib.sha256(net.read_bytes()).hexdigest()[:16]  # the file's own SHA-256, computed here
    assert mentor["player"] == f"pnet:{net}" and digest in mentor["id_name"] and mentor["depth"] == 2
    for bad, why in (("builtin:uci:/bin/true", "one of mimic's evaluators"), ("builtin:nope:x", "unknown player kind")):
        refused = run_mimic("label", "--mentor", bad, "--positions", "2", "--out", tmp_path / "r.epd")
        assert refused.returncode == 2 and why in refused.stderr


def test_relabelling_a_game_position_keeps_its_result_plies_and_move_number(tmp_path: Path) -> None:
    # The pupil study labels the same self-play positions at several depths: each relabelled line keeps what the
    # game said of it (c9 the result, c2 the plies to its end, fmvn its move number) for the result blend and the
    # win-probability model's ply; a position from no game (no c2) still gets no fmvn.
    src = tmp_path / "games.epd"
    src.write_text(f'{" ".join(QUEEN_UP.format("w").split()[:4])} ce 0; c9 "1-0"; c2 "12"; fmvn 30;\n'
                   f'{" ".join(HANGING.split()[:4])} ce 0;\n')
    out = tmp_path / "again.epd"
    run = run_mimic("label", "--mentor", "builtin:material@eval", "--source", src, "--positions", "2", "--out", out,
                    "--no-progress")
    assert run.returncode == 0, run.stderr
    first, second = (parse_label(line) for line in out.read_text().splitlines())
    assert (first.result, first.plies_to_end, first.board.fullmove_number, first.ce) == ("1-0", 12, 30, 500)
    assert second.result is None and second.plies_to_end is None and " fmvn " not in out.read_text().splitlines()[1]


@pytest.mark.skipif(STOCKFISH is None, reason="Stockfish is not installed (apt-get install stockfish)")
def test_each_command_has_its_own_default_depth_for_a_uci_mentor(tmp_path: Path) -> None:
    # The pupil study's defaults: label asks a UCI mentor for depth 1, datagen plays at depth 8, the built-in mentor
    # searches 2 plies in both, and a depth given (flag or @depth) wins. Read from the label files themselves (acd,
    # the depth the engine searched), not from the code that chose it.
    src = _epd(tmp_path / "p.epd", QUEEN_UP.format("w"), HANGING)
    for mentor, flags, depth in (("stockfish", [], 1), ("stockfish", ["--depth", "3"], 3), ("stockfish@depth=4", [], 4),
                                 ("builtin", [], 2)):
        out = tmp_path / f"{mentor.replace('@', '-')}-{len(flags)}.epd"
        run = run_mimic("label", "--mentor", mentor, *flags, "--source", src, "--positions", "2", "--out", out,
                        "--no-progress")
        assert run.returncode == 0, run.stderr
        assert {lab.acd for lab in map(parse_label, out.read_text().splitlines())} == {depth}, (mentor, flags)
    out = tmp_path / "selfplay.epd"
    run = run_mimic("datagen", "--mentor", "stockfish", "--positions", "1", "--seed", "1", "--out", out,
                    "--no-progress")
    assert run.returncode == 0, run.stderr
    labels = [parse_label(line) for line in out.read_text().splitlines()]
    assert labels and {lab.acd for lab in labels} == {8}
    assert "8 for UCI engines" in run_mimic("datagen", "--help").stdout
    assert "1 for UCI engines" in run_mimic("label", "--help").stdout
