"""UCI control is never lost (issue 27): seeded bursts of commands against every search kind and player layer.

Every ``isready`` gets its ``readyok``, every ``go`` exactly one ``bestmove``, ``quit`` ends the session within a
second, whatever the interleaving: the in-process front end on real pipes for each kind (one session per kind, many
bursts), and a real ``mimic uci`` process with a book layer, the case of the report (a position out of the book,
``go infinite``, ``stop``, ``isready`` in one write).
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import chess
import pytest

from evolve.players import PLAYERS
from search.base import Limit
from search.engine import Engine
from search.games.game import Adjudication, TimeControl, play_game
from search.games.openings import Opening
from search.players.player import make_player
from search.players.spec import PlayerKind, PlayerRegistry, PlayerSpec
from search.uci import UciFrontEnd

from .conftest import mimic_uci_command
from .uci_bursts import HANG, Session, Tally, player_specs

BURSTS = 30
"""Bursts per player kind (7 kinds in process, and the process with a book: 240 in all)."""


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return player_specs(tmp_path_factory.mktemp("uci-lifecycle"))


@pytest.mark.parametrize("kind", ["depth", "prob", "prob-net", "cmp", "net", "book", "deepred"])
def test_bursts_never_lose_control(specs: dict[str, str], kind: str) -> None:
    rng = random.Random(f"issue 27 {kind}")
    session = Session(specs[kind])
    try:
        tally = Tally()
        for _ in range(BURSTS):
            session.run_burst(rng, tally)
        assert tally.hung == []
        assert session.drain(), (session.readyoks, len(session.readies), session.bestmoves, session.gos)
        assert session.gos >= BURSTS  # the bursts did search (about 3 go lines in 10)
        assert session.quit(rng) < 1.0
    finally:
        session.close()


def test_a_process_with_a_book_never_loses_control(specs: dict[str, str]) -> None:
    session = Session(specs["book"], mimic_uci_command("--eval", specs["book"]))
    try:
        # The report's case, by hand: a position out of the book, then go infinite, stop and isready in one write.
        for _ in range(5):
            session.write(["position startpos moves a2a3 h7h6", "go infinite", "stop", "isready"])
            slowest, ok = session.settle()
            assert ok and slowest < HANG
        rng = random.Random("issue 27 process")
        tally = Tally()
        for _ in range(BURSTS):
            session.run_burst(rng, tally)
        assert tally.hung == [] and session.drain()
        assert session.quit(rng) < 1.0
        assert session.proc is not None and session.proc.returncode == 0
    finally:
        session.close()


def test_a_stop_raised_before_the_search_starts_is_kept() -> None:
    # The engine reads the caller's flag and never clears it: an infinite search whose flag is already up ends at
    # its first node with the first root move (a legal move), instead of running for ever.
    stop = threading.Event()
    stop.set()
    board = chess.Board()
    t0 = time.perf_counter()
    r = Engine(PLAYERS("material")).search(board, Limit(infinite=True), stop=stop)
    assert time.perf_counter() - t0 < 1.0 and r.move in board.legal_moves and stop.is_set()


def test_stop_before_the_engine_thread_starts_and_after_the_search_ended(specs: dict[str, str]) -> None:
    lines: list[str] = []

    class Out:
        def write(self, text: str) -> None:
            lines.extend(text.splitlines())

        def flush(self) -> None:
            pass

    front = UciFrontEnd(PLAYERS, specs["book"], out=Out())  # type: ignore[arg-type]
    # Out of the book: go infinite then stop at once, before the engine thread has even begun.
    front.handle("position startpos moves a2a3 h7h6")
    front.handle("go infinite")
    front.handle("stop")
    assert front.wait(HANG)
    assert sum(line.startswith("bestmove ") for line in lines) == 1
    # In the book: go infinite is answered by the book at once, but its bestmove waits for the stop.
    front.handle("position startpos")
    front.handle("go infinite")
    assert not front.wait(0.2) and front.searching
    front.handle("isready")
    assert lines[-1] == "readyok"  # answered while the search is held
    front.handle("stop")
    assert front.wait(HANG) and lines[-1] == "bestmove d2d4"
    # A stop after the bestmove changes nothing; ucinewgame during a search stops it and says so.
    front.handle("stop")
    front.handle("go infinite")
    front.handle("ucinewgame")
    assert front.wait(HANG)
    assert "info string ucinewgame during a search: the search was stopped" in lines
    assert sum(line.startswith("bestmove ") for line in lines) == 3
    # ponderhit lets out a go ponder's bestmove, not a go infinite's.
    front.handle("position startpos")
    front.handle("go infinite")
    front.handle("ponderhit")
    assert not front.wait(0.1)
    front.handle("stop")
    front.handle("go ponder")
    assert not front.wait(0.1)
    front.handle("ponderhit")
    assert front.wait(HANG) and [line for line in lines if line.startswith("bestmove")][-2:] == ["bestmove d2d4"] * 2
    # position during a search: the search keeps its own position (1.a3 h6, out of the book, searched), the
    # next go has the new one (the start, in the book).
    front.handle("position startpos moves a2a3 h7h6")
    front.handle("go infinite")
    front.handle("position startpos")
    front.handle("stop")
    assert front.wait(HANG)
    played = chess.Move.from_uci(lines[-1].split()[1])
    assert played in chess.Board("rnbqkbnr/ppppppp1/7p/8/8/P7/1PPPPPPP/RNBQKBNR w KQkq - 0 2").legal_moves
    front.run(["go depth 1"])  # the end of the input: a go with a limit runs to it
    assert lines[-1] == "bestmove d2d4" and sum(line.startswith("bestmove ") for line in lines) == 7


class Slow:
    """An evaluator that takes 0.2 s a position: a depth-1 search of the start (20 root moves) takes over 4 s."""

    def evaluate(self, board: chess.Board) -> int:
        time.sleep(0.2)
        return 0


def _slow(spec: PlayerSpec) -> Slow:
    return Slow()


MATERIAL = PLAYERS.get("material")
assert MATERIAL is not None
SLOW_PLAYERS = PlayerRegistry([PlayerKind("slow", "none", "sleeps 0.2 s a position", _slow), MATERIAL],
                              open_book=PLAYERS.open_book)


def test_a_move_request_of_our_engine_is_stopped_at_its_timeout(specs: dict[str, str]) -> None:
    # The timeout raises the search's own flag, even inside the first iteration: the player answers with a legal
    # move soon after 0.3 s, behind a book layer too (out of the book), instead of after the whole iteration.
    player = make_player(f"slow+book:{Path(specs['book'].split(':', 1)[1])}", SLOW_PLAYERS)
    board = chess.Board()
    board.push_uci("a2a3")
    t0 = time.perf_counter()
    report = player.play(board, Limit(depth=6), timeout=0.3)
    spent = time.perf_counter() - t0
    player.close()
    assert report.move in board.legal_moves and 0.3 <= spent < 1.5, spent  # one 0.2 s evaluation may be under way


def test_a_slow_player_loses_on_the_clock_without_hanging_the_game() -> None:
    # A 0.05 s clock: the request is stopped at its deadline, 0.05 + 1 + 0.005 s (game.py: the clock, a second,
    # a tenth of the clock), and the clock decides: White lost on time, the game over in well under the 4 s the
    # first iteration alone would take.
    result = play_game("slow", "material", Opening("start"), TimeControl(base=0.05), Adjudication(), SLOW_PLAYERS,
                       "1.1")
    assert (result.result, result.termination) == ("0-1", "time forfeit")
    assert "White lost on time" in result.reason and result.seconds < 3.0, (result.reason, result.seconds)
