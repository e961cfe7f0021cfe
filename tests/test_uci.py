"""``mimic uci`` driven by python-chess, and by hand with malformed input."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evolve.players import make_evaluator
from search.uci import UciFrontEnd

from .conftest import mimic_uci_command, run_mimic

# `mimic uci` runs as a real process here: the protocol is its stdin and stdout.


@pytest.fixture(scope="module")
def engine() -> Iterator[chess.engine.SimpleEngine]:
    eng = chess.engine.SimpleEngine.popen_uci(mimic_uci_command(), timeout=30)
    yield eng
    eng.quit()


def test_identification_and_options(engine: chess.engine.SimpleEngine) -> None:
    assert engine.id["name"].startswith("mimic")
    assert {"Hash", "Clear Hash", "Eval", "Move Overhead"} <= set(engine.options)
    assert engine.options["Eval"].default == "material"
    engine.configure({"Hash": 8, "Move Overhead": 10})


def test_every_limit_plays_a_legal_move(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    limits = [
        chess.engine.Limit(depth=3),
        chess.engine.Limit(nodes=3000),
        chess.engine.Limit(time=0.2),
        chess.engine.Limit(white_clock=2, black_clock=2, white_inc=0.05, black_inc=0.05),
        chess.engine.Limit(white_clock=5, black_clock=5, remaining_moves=10),
        chess.engine.Limit(mate=2),
    ]
    for limit in limits:
        t0 = time.monotonic()
        result = engine.play(board, limit, info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves, limit
        assert time.monotonic() - t0 < 3, limit
    # Info lines carry every field the protocol defines for a search report.
    result = engine.play(board, chess.engine.Limit(depth=4), info=chess.engine.INFO_ALL)
    info = result.info
    for key in ("depth", "seldepth", "score", "nodes", "nps", "time", "pv"):
        assert key in info, key
    assert info["depth"] == 4 and info["pv"][0] == result.move
    assert result.ponder == (info["pv"][1] if len(info["pv"]) > 1 else None)


def test_mate_score_reported_as_mate(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    assert info["score"].relative == chess.engine.Mate(3)
    assert info["pv"][0] == chess.Move.from_uci("d6d1")


def test_infinite_analysis_until_stop(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    with engine.analysis(board) as analysis:
        time.sleep(0.5)
        reached = analysis.info.get("depth", 0)
        analysis.stop()
        best = analysis.wait()
    assert reached >= 3  # it kept deepening while nobody asked it to stop
    assert best.move in board.legal_moves


def test_searchmoves_and_game_history(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6"]:
        board.push_uci(uci)
    only = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h3")]
    result = engine.play(board, chess.engine.Limit(depth=3), root_moves=only)
    assert result.move in only


def test_a_short_game_between_two_sessions() -> None:
    white = chess.engine.SimpleEngine.popen_uci(mimic_uci_command(), timeout=30)
    black = chess.engine.SimpleEngine.popen_uci(mimic_uci_command("--eval", "material@depth=2"), timeout=30)
    try:
        board = chess.Board()
        game = object()
        while not board.is_game_over() and board.ply() < 40:
            eng = white if board.turn == chess.WHITE else black
            result = eng.play(board, chess.engine.Limit(nodes=500), game=game)
            assert result.move in board.legal_moves
            board.push(result.move)
        assert board.ply() >= 10
    finally:
        white.quit()
        black.quit()


def test_eval_option_switches_evaluator(engine: chess.engine.SimpleEngine) -> None:
    engine.configure({"Eval": "material@depth=1"})
    try:
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=5))
        assert info["depth"] == 1  # the spec's limit now caps every go
    finally:
        engine.configure({"Eval": "material"})
    assert engine.analyse(chess.Board(), chess.engine.Limit(depth=3))["depth"] == 3


# ---------------------------------------------------------------------- in-process, exact replies
def _session(*lines: str) -> list[str]:
    out = io.StringIO()
    front = UciFrontEnd(make_evaluator, "material", out=out)
    front.run(lines)
    return out.getvalue().splitlines()


def test_malformed_lines_get_info_string_with_reason() -> None:
    replies = _session(
        "position fen not/a/fen w - - 0 1", "position startpos moves e2e4 e7e9", "position",
        "go depth banana", "frobnicate", "setoption name Hash value -5", "setoption name Nope value 1",
        "setoption name Eval value chessmaster", "isready")
    strings = [r for r in replies if r.startswith("info string")]
    assert any("bad FEN" in r for r in strings)
    assert any("'e7e9' is not legal" in r for r in strings)
    assert any("banana" in r for r in strings)
    assert any("unknown command: frobnicate" in r for r in strings)
    assert any("Hash must be within" in r for r in strings)
    assert any("no option named 'Nope'" in r for r in strings)
    assert any("chessmaster" in r for r in strings)
    assert replies[-1] == "readyok" or "readyok" in replies
    assert any(r.startswith("bestmove ") for r in replies)  # go depth banana still searched


def test_illegal_move_keeps_position_before_it() -> None:
    out = io.StringIO()
    front = UciFrontEnd(make_evaluator, "material", out=out)
    front.handle("position startpos moves e2e4 e7e5 e1e3 g1f3")
    assert front.board.move_stack == [chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5")]


def test_bestmove_none_when_no_legal_move() -> None:
    replies = _session("position fen k7/8/1Q6/8/8/8/8/7K b - - 0 1", "go depth 3", "isready")
    assert "bestmove (none)" in replies


def test_eval_spec_limit_caps_go() -> None:
    out = io.StringIO()
    front = UciFrontEnd(make_evaluator, "material@depth=2", out=out)
    front.run(["position startpos", "go depth 9"])
    depths = [int(line.split()[2]) for line in out.getvalue().splitlines() if line.startswith("info depth")]
    assert max(depths) == 2


# ---------------------------------------------------------------------- hypothesis: a process that lives
class _Process:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(mimic_uci_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, wanted: str, count: int = 1, timeout: float = 10) -> None:
        """Wait until ``wanted`` has been read ``count`` times (other lines are skipped)."""
        deadline = time.monotonic() + timeout
        while count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{count} more {wanted!r} expected within {timeout}s")
            try:
                if self.lines.get(timeout=left) == wanted:
                    count -= 1
            except queue.Empty:
                continue


WORDS = ["uci", "isready", "ucinewgame", "position", "startpos", "fen", "moves", "go", "depth", "nodes",
         "movetime", "wtime", "btime", "winc", "binc", "movestogo", "infinite", "searchmoves", "ponder",
         "stop", "ponderhit", "setoption", "name", "value", "Hash", "Eval", "Clear", "Move", "Overhead",
         "debug", "on", "register", "e2e4", "e7e5", "a1a8", "e1g1", "0000", "-1", "0", "3", "99999999999",
         "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "w", "b", "KQkq", "-", "material", "random:x",
         "8/8/8/8/8/8/8/8", "k7/8/8/8/8/8/8/K7", "\x00", "é", ""]
token_lines = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
garbage_lines = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
                        max_size=80)


@pytest.fixture(scope="module")
def live() -> Iterator[_Process]:
    p = _Process()
    p.send("uci")
    p.expect("uciok")
    yield p
    p.send("quit")
    try:
        p.proc.wait(timeout=10)
    finally:
        p.proc.kill()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(token_lines, garbage_lines), min_size=1, max_size=6))
def test_malformed_lines_leave_the_process_answering(live: _Process, lines: list[str]) -> None:
    readies = 1
    for line in lines:
        first = line.split()[:1]
        if first == ["quit"]:
            continue
        readies += first == ["isready"]
        live.send(line)
    live.send("isready")
    live.expect("readyok", count=readies)  # one answer per isready, none lost, none extra yet
    live.send("stop")
    assert live.proc.poll() is None


# ---------------------------------------------------------------------- hardening (issue 10, item 8)
def test_position_without_startpos_or_fen_is_a_clear_info_string() -> None:
    replies = _session("position moves e2e4", "isready")
    assert replies == ["info string error in position: expected startpos or fen before 'moves'", "readyok"]


def test_null_move_in_check_is_refused_and_position_kept() -> None:
    # After 1.e4 f6 2.Qh5+ Black is in check: "0000" would leave the king en prise.
    out = io.StringIO()
    front = UciFrontEnd(make_evaluator, "material", out=out)
    front.handle("position startpos moves e2e4 f7f6 d1h5 0000 e8f7")
    assert [m.uci() for m in front.board.move_stack] == ["e2e4", "f7f6", "d1h5"]
    assert out.getvalue().splitlines() == [
        "info string error in position: move 4 '0000' (a null move) is not allowed in check; "
        "position kept before it"]
    # Out of check a null move is still accepted (some GUIs send it).
    front.handle("position startpos moves e2e4 0000")
    assert front.board.move_stack[-1] == chess.Move.null() and front.board.turn == chess.WHITE


def test_error_replies_do_not_echo_huge_input() -> None:
    huge = "x" * 400_000
    replies = _session(huge, f"position fen {huge}", f"position startpos moves {huge}",
                       f"setoption name {huge} value 1", f"go depth 1 {huge}", "isready")
    strings = [r for r in replies if r.startswith("info string")]
    assert len(strings) == 5
    for r in strings:
        # The echo is the first 80 characters of the bad text and "..."; the reason stays whole.
        assert "x" * 80 + "..." in r and "x" * 81 not in r and len(r) < 300, r[:300]


def test_failing_eval_option_keeps_the_old_evaluator(tmp_path: Path) -> None:
    out = io.StringIO()
    front = UciFrontEnd(make_evaluator, "material", out=out)
    old = front.engine.evaluator
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes: it must be refused, not read
    bad_specs = [f"organism:{bad}" for bad in (str(tmp_path), str(tmp_path / "missing.json"), str(fifo), "/dev/stdin")]
    bad_specs += [f"{kind}:{fifo}" for kind in ("pnet", "net", "cmp")]  # issue 36: these hung the reader
    for spec in bad_specs:
        out.seek(0)
        out.truncate()
        front.handle(f"setoption name Eval value {spec}")
        lines = out.getvalue().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"info string error in setoption: cannot load Eval '{spec.split(':')[0]}:/")
        assert lines[0].endswith("; keeping 'material'")
        assert front.engine.evaluator is old and front.eval_spec == "material"


@pytest.mark.parametrize("mb", ["100000000", "0", "-3", "lots"])
def test_uci_hash_out_of_range_is_one_line(mb: str) -> None:
    # In this process (the flag is refused before the protocol starts; a process each took 0.5 s of CPU).
    proc = run_mimic("uci", "--hash", mb)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [f"mimic uci: --hash must be a whole number of MiB within 1..4096, got {mb!r}"]
