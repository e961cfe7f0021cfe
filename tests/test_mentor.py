"""The mentor: samplers, labelling with real Stockfish and the built-in mentor, kill and resume."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from mentor.labeller import MentorConfig, label_samples
from mentor.labels import Label, LabelWriter, read_labels, repair_partial_line
from mentor.samplers import Sample, SamplerOptions, collect, is_quiet, random_playouts
from mentor.target import target
from mentor.uci_client import parse_info
from organisms import Expert
from search import Limit, make_engine
from search.conventions import ce_from_mate_moves
from search.see import see

from .conftest import DATA, mimic_command, run_mimic, sigkill_at_line


def _by_key(path: Path) -> dict[str, tuple[int, int, str]]:
    """Labels of a file by position (EPD without opcodes): (ce, acd, pv as UCI)."""
    out: dict[str, tuple[int, int, str]] = {}
    for label in read_labels(path):
        key = label.board.epd()
        assert key not in out, f"{key} labelled twice"
        out[key] = (label.ce, label.acd, " ".join(m.uci() for m in label.pv))
    return out


def test_labels_agree_with_a_direct_analyse(stockfish: str, tmp_path: Path) -> None:
    samples = list(random_playouts(12, seed=3))
    out = tmp_path / "l.epd"
    config = MentorConfig("uci", command=(stockfish,), depth=8)
    summary = label_samples(samples, config, out, jobs=1)
    assert summary.labelled == 12 and summary.failed == 0
    labels = {lab.board.epd(): lab for lab in read_labels(out)}
    with chess.engine.SimpleEngine.popen_uci(stockfish) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        for s in samples:
            info = engine.analyse(s.board, chess.engine.Limit(depth=8), game=object())
            score = info["score"].relative
            expected = ce_from_mate_moves(score.mate()) if score.is_mate() else score.score()
            lab = labels[s.board.epd()]
            assert lab.ce == expected, s.board.fen()
            assert lab.acd == info["depth"]
            assert lab.pv[:3] == info["pv"][:3]


def test_side_to_move_sign_for_both_colours(stockfish: str, tmp_path: Path) -> None:
    white_up = chess.Board("4k3/8/8/8/8/8/3PPP2/3QK3 w - - 0 1")  # White a queen up
    black_to_move = white_up.copy()
    black_to_move.turn = chess.BLACK
    mirrored = white_up.mirror()  # Black a queen up, Black to move
    samples = [Sample(b, "test") for b in (white_up, black_to_move, mirrored)]
    out = tmp_path / "sign.epd"
    label_samples(samples, MentorConfig("uci", command=(stockfish,), depth=6), out)
    ce = {lab.board.epd(): lab.ce for lab in read_labels(out)}
    assert ce[white_up.epd()] > 500
    assert ce[black_to_move.epd()] < -500
    assert ce[mirrored.epd()] > 500


def test_kill_and_resume_matches_an_uninterrupted_run(stockfish: str, tmp_path: Path) -> None:
    # 80 positions (150 took 2 s of labelling a run, three runs): a kill at line 40 at the latest leaves 40 (5
    # batches of 8, ~0.5 s) to label.
    common = ["label", "--mentor", stockfish, "--depth", "9", "--positions", "80", "--seed", "5",
              "--jobs", "2", "--no-progress"]
    full = tmp_path / "full.epd"
    run_mimic(*common, "--out", str(full), check=True)

    part = tmp_path / "part.epd"
    # A real process: the test SIGKILLs it.
    proc = subprocess.Popen(mimic_command(*common, "--out", str(part)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    # Kill at a random point of the labelling: once the file holds a random number of lines.
    sigkill_at_line(proc, part, random.randint(3, 40))
    killed_with = len(_by_key(part))
    assert 0 < killed_with < 80
    done = run_mimic(*common, "--out", str(part), "--resume", check=True)
    assert f"{killed_with} already labelled" in done.stdout, done.stdout
    assert _by_key(part) == _by_key(full)  # every position exactly once, each label identical


def _children(pid: int) -> list[int]:
    """All descendants of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        frontier += kids
    return out


def test_a_killed_mentor_engine_is_restarted(stockfish: str, tmp_path: Path) -> None:
    out = tmp_path / "r.epd"
    # A real process: the test finds the mentor among its children in /proc and kills it.
    # 60 positions (120 took 3 s): the kill after 20 lines leaves about 35 (~1 s) for the restarted engine.
    proc = subprocess.Popen(mimic_command("label", "--mentor", stockfish, "--depth", "9", "--positions", "60",
                                   "--jobs", "1", "--no-progress", "--out", str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 20):
        time.sleep(0.05)
    engines = [p for p in _children(proc.pid) if "stockfish" in Path(f"/proc/{p}/cmdline").read_bytes().decode()]
    assert len(engines) == 1
    os.kill(engines[0], signal.SIGKILL)
    stdout, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0
    assert "engine restarts: 1" in stdout
    assert "60 labelled now, 0 failed" in stdout
    assert len(_by_key(out)) == 60


def test_malformed_pgn_and_epd_are_reported_with_file_and_line() -> None:
    errors: list[str] = []
    samples, stats = collect([str(DATA / "malformed.pgn")], 100, 0, SamplerOptions(skip_plies=2), errors.append)
    assert stats.malformed == 2 and stats.games == 2 and len(samples) == 6
    assert errors[0].startswith(f"{DATA / 'malformed.pgn'}:8: ") and "Ke3" in errors[0]
    assert errors[1].startswith(f"{DATA / 'malformed.pgn'}:22: ") and "fen" in errors[1]
    errors.clear()
    samples, stats = collect([str(DATA / "malformed.epd")], 100, 0, None, errors.append)
    assert stats.malformed == 2 and len(samples) == 3
    assert errors[0].startswith(f"{DATA / 'malformed.epd'}:3: ")
    assert errors[1].startswith(f"{DATA / 'malformed.epd'}:5: ")


def test_malformed_inputs_through_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "m.epd"
    run = run_mimic("label", "--mentor", "builtin", "--depth", "1", "--positions", "20", "--source",
                    str(DATA / "malformed.pgn"), "--source", str(DATA / "malformed.epd"), "--skip-plies", "2",
                    "--no-progress", "--out", str(out), check=True)
    assert "malformed.pgn:8:" in run.stderr and "malformed.epd:3:" in run.stderr
    assert "malformed 4" in run.stdout
    # 6 positions from the two good games, 3 from the good EPD lines, less those both sources share
    labelled = _by_key(out)
    duplicates = sum(int(w.split()[-1]) for w in run.stdout.split(",") if "duplicates" in w)
    assert len(labelled) == 9 - duplicates and f"{len(labelled)} labelled now" in run.stdout


def test_builtin_mentor_labels_are_our_engine_with_the_expert(tmp_path: Path) -> None:
    samples = list(random_playouts(10, seed=8, skip_check=True))
    out = tmp_path / "b.epd"
    summary = label_samples(samples, MentorConfig("builtin", depth=2), out, jobs=2)
    assert summary.labelled == 10
    labels = {lab.board.epd(): lab for lab in read_labels(out)}
    engine = make_engine(Expert())  # the default search: the compiled core, as the builtin mentor
    for s in samples:
        engine.new_game()
        r = engine.search(s.board, Limit(depth=2))
        lab = labels[s.board.epd()]
        assert lab.ce == (ce_from_mate_moves(r.mate) if r.mate is not None else r.score)
        assert lab.acd == 2 and lab.pv == r.pv


def test_existing_file_is_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "x.epd"
    out.write_text("# previous work\n")
    with pytest.raises(FileExistsError):
        label_samples(list(random_playouts(2, 1)), MentorConfig("builtin", depth=1), out)


def test_partial_last_line_is_repaired(tmp_path: Path) -> None:
    path = tmp_path / "p.epd"
    board = chess.Board()
    with LabelWriter(path) as w:
        w.write(Label(board, 20, 5, [chess.Move.from_uci("e2e4")], "1-0", None, "random", 40))
    with open(path, "a") as fh:
        fh.write("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - ce 1")  # killed mid-line
    assert repair_partial_line(path)
    (lab,) = list(read_labels(path))
    assert (lab.ce, lab.acd, lab.result, lab.plies_to_end, lab.source) == (20, 5, "1-0", 40, "random")


def test_mate_scores_are_written_and_flagged(tmp_path: Path) -> None:
    path = tmp_path / "m.epd"
    with LabelWriter(path) as w:
        w.write(Label(chess.Board(), ce_from_mate_moves(2), 9))
        w.write(Label(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1"), 2000, 9))
    text = path.read_text()
    assert "ce 29997;" in text and 'c1 "mate"' in text and 'c1 "over-cap"' in text
    assert ce_from_mate_moves(-1) == -29998


def test_uci_info_parsing() -> None:
    a = parse_info("info depth 12 seldepth 17 multipv 1 score mate -3 nodes 100 nps 5 time 1 pv e2e4 e7e5")
    assert a is not None and (a.mate, a.score, a.depth, a.pv) == (-3, None, 12, ["e2e4", "e7e5"])
    assert parse_info("info depth 9 score cp 31 lowerbound nodes 5 pv e2e4") is None
    assert parse_info("info string hello score cp 3") is None


def test_target_is_the_quiet_leaf_with_the_sign_of_its_side_to_move() -> None:
    # White to move. Say the mentor's PV is Qxd5 (one ply): the quiescence search then finds ...Rxd5,
    # so the target is two plies from the root, White to move again, and the score keeps its sign.
    board = chess.Board("3r2k1/5ppp/8/3p4/8/8/5PPP/3Q2K1 w - - 0 1")
    leaf, score = target(Label(board, -700, 4, [chess.Move.from_uci("d1d5")]), "leaf")
    assert leaf.board_fen() == "6k1/5ppp/8/3r4/8/8/5PPP/6K1" and leaf.turn == chess.WHITE
    assert score == -700
    # A quiet one-ply PV (g3) ends with Black to move and nothing to capture: the sign flips.
    leaf, score = target(Label(board, 120, 4, [chess.Move.from_uci("g2g3")]), "leaf")
    assert leaf.turn == chess.BLACK and leaf.board_fen() == "3r2k1/5ppp/8/3p4/8/6P1/5P1P/3Q2K1"
    assert score == -120
    root, root_score = target(Label(board, -700, 4, [chess.Move.from_uci("d1d5")]), "root")
    assert root == board and root_score == -700


def test_quiet_leaf_captures_are_python_chess_legal_captures_in_its_order() -> None:
    # mentor.target generates its captures itself (a third faster); the leaf depends on their order (ties keep
    # it), so they must be python-chess's legal captures, in python-chess's order: checked on the children of
    # 12 random playouts and on hand-made positions whose captures are listed by hand.
    from mentor.target import _legal_captures

    by_hand = {
        "4k3/8/8/1q6/2P5/3K4/8/8 w - - 0 1": ["c4b5"],  # the pawn pinned on b5-d3 takes the pinner
        "4k3/8/2b1n3/3P4/4K3/8/8/8 w - - 0 1": ["d5c6"],  # pinned on c6-e4: not d5xe6 off the pin
        "3rk3/8/8/8/3n4/4K3/8/8 w - - 0 1": [],  # the king may not take the knight the rook defends
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2": ["e5d6"],  # en passant
        "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1": ["a7b8q", "a7b8r", "a7b8b", "a7b8n"],  # capture-promotions
        "4k3/8/8/8/8/5n2/3P2P1/4K3 w - - 0 1": ["g2f3"],  # in check from f3: python-chess's evasions
    }
    for fen, want in by_hand.items():
        assert [m.uci() for m in _legal_captures(chess.Board(fen))] == want, fen
    boards = []
    for s in random_playouts(12, seed=4):
        for m in s.board.legal_moves:
            s.board.push(m)
            boards.append(s.board.copy(stack=False))
            s.board.pop()
    assert sum(next(b.generate_legal_captures(), None) is not None for b in boards) > 100  # many have captures
    for b in boards:
        assert _legal_captures(b) == list(b.generate_legal_captures()), b.fen()


def test_static_exchange_evaluation() -> None:
    # Pawn takes a knight defended by a pawn: +320 - 100.
    b = chess.Board("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1")
    assert see(b, chess.Move.from_uci("d4e5")) == 220
    # Queen takes a pawn defended by a rook: loses the queen for a pawn.
    b = chess.Board("3r2k1/5ppp/8/3p4/8/8/5PPP/3Q2K1 w - - 0 1")
    assert see(b, chess.Move.from_uci("d1d5")) == 100 - 900
    # Rook takes a defended pawn with a rook behind it (x-ray): R×P, R×R, R×R = +100.
    b = chess.Board("3r2k1/8/8/3p4/8/8/3R4/3RK3 w - - 0 1")
    assert see(b, chess.Move.from_uci("d2d5")) == 100
    assert is_quiet(chess.Board())
    assert not is_quiet(chess.Board("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1"))


def test_close_mentors_from_another_thread_makes_every_thread_start_afresh() -> None:
    # A Dask worker labels in its executor thread and is told to close its mentors from another thread
    # (its event loop): the executor thread must not reuse the closed mentor, and the new one must be
    # known to the next close_mentors (else its engine would outlive the command).
    from concurrent.futures import ThreadPoolExecutor

    from mentor import pool

    config = MentorConfig("builtin", depth=1)
    with ThreadPoolExecutor(max_workers=1) as worker:  # one long-lived thread, as a Dask worker's
        first = worker.submit(pool.worker_mentor, config).result()
        assert worker.submit(pool.worker_mentor, config).result() is first  # kept between tasks
        pool.close_mentors()  # from this thread
        second = worker.submit(pool.worker_mentor, config).result()
        assert second is not first and second in [entry[2] for entry in pool._ALL]
    pool.close_mentors()
    assert pool._ALL == []


def test_a_new_thread_adopts_the_mentor_of_a_thread_that_ended() -> None:
    # Each mentor_map call (a datagen round) runs in new threads: they must reuse the engines of the threads that
    # ended, not start more and leave those idle (a 2,000,000-label datagen had started 4 Stockfish processes
    # within 4 minutes, one pair a round; 50 rounds would have left 100 running).
    import threading

    from mentor import pool

    config = MentorConfig("builtin", depth=1)
    got: list[object] = []

    def task() -> None:
        got.append(pool.worker_mentor(config))

    for _ in range(3):  # one after the other: each thread has ended when the next starts
        t = threading.Thread(target=task)
        t.start()
        t.join()
    assert got[0] is got[1] is got[2] and len(pool._ALL) == 1
    ready, done = threading.Event(), threading.Event()
    hold = threading.Thread(target=lambda: (task(), ready.set(), done.wait(10)))  # a thread still running keeps its own
    hold.start()
    assert ready.wait(10)
    task()  # this thread (which had none), while the other is alive
    done.set()
    hold.join()
    assert got[3] is got[0] and got[4] is not got[0] and len(pool._ALL) == 2
    pool.close_mentors()
    assert pool._ALL == []


def test_fill_takes_a_short_sources_shortfall_from_the_others(tmp_path: Path) -> None:
    from .conftest import run_mimic

    # synthetic.pgn's 35 games give at most 35 x 2 = 70 positions at --per-game 2; asked for 200 from it and random
    # playouts (an even share: 100 each), the PGN runs out at <= 70. Without fill: fewer than 200, the same first
    # pass; with fill, the shortfall comes from the random playouts (which never run out): exactly 200, the first
    # pass's positions first and in the same order.
    pgn = str(DATA / "synthetic.pgn")
    opts = SamplerOptions(per_game=2, skip_plies=2)
    short, _ = collect([pgn, "random"], 200, 3, opts)
    filled, _ = collect([pgn, "random"], 200, 3, SamplerOptions(per_game=2, skip_plies=2, fill=True))
    from_pgn = sum(s.source != "random" for s in short)
    assert from_pgn <= 70 and len(short) == from_pgn + 100
    assert len(filled) == 200 and [s.board.fen() for s in filled[:len(short)]] == [s.board.fen() for s in short]
    assert all(s.source == "random" for s in filled[len(short):])
    assert len({s.board.fen() for s in filled}) == 200  # still deduplicated
    # The command says when the sources fell short, and how to fill.
    run = run_mimic("label", "--mentor", "builtin@depth=1", "--source", pgn, "--source", "random", "--positions", "200",
                    "--per-game", "2", "--skip-plies", "2", "--seed", "3", "--no-progress", "--out",
                    str(tmp_path / "l.epd"))
    assert run.returncode == 0, run.stderr
    assert f"the sources gave {len(short)} of the 200 positions asked for" in run.stderr and "--fill" in run.stderr
