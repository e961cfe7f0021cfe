"""Clocks and adjudication: ``TimeControl`` periods, ``timeman.budget``, resign/draw rules in ``play_game``.

Every game here is played by real engine players (``search.players.player.EnginePlayer`` with the material
evaluator) through ``search.games.game.play_game``; nothing is simulated.
"""

from __future__ import annotations

import re

import pytest

from evolve.players import make_evaluator
from search.base import Limit
from search.games.game import Adjudication, TimeControl, _limit_for, play_game
from search.games.openings import Opening
from search.timeman import budget

NO_ADJUDICATION = Adjudication(resign_moves=0, draw_moves=0, max_plies=0)


# ---------------------------------------------------------------------- TimeControl
def test_parse_moves_per_period() -> None:
    assert TimeControl.parse("40/60") == TimeControl(base=60.0, increment=0.0, moves=40)
    assert TimeControl.parse("10+0.1") == TimeControl(base=10.0, increment=0.1, moves=None)
    assert TimeControl.parse("40/60").pgn() == "40/60" and TimeControl.parse("10+0.1").pgn() == "10+0.1"
    for bad in ("0", "-5", "10+-1", "40/", "x/60"):
        with pytest.raises(ValueError):
            TimeControl.parse(bad)


def test_forty_moves_in_sixty_seconds_counts_down_and_starts_again() -> None:
    # Moves to go for moves 1..81: 40, 39, ..., 1 (move 40 is the last of the period), then 40 again
    # at move 41 (the clocks get another 60 s after Black's 40th move) and 1 again at move 80.
    tc = TimeControl.parse("40/60")
    togo = [_limit_for(tc, [60.0, 60.0], n).movestogo for n in range(1, 82)]
    assert togo == list(range(40, 0, -1)) * 2 + [40]
    limit = _limit_for(tc, [12.5, 7.25], 3)  # clocks are indexed by colour: [Black, White]
    assert (limit.wtime, limit.btime, limit.winc, limit.binc) == (7.25, 12.5, 0.0, 0.0)


def _spent(pgn: str) -> list[float]:
    """The seconds each move took, from the PGN comments ``{ +0.25/5 0.12s }``."""
    return [float(s) for s in re.findall(r"/\d+ (\d+\.\d+)s\b", pgn)]


def test_clock_gets_its_time_back_after_each_period() -> None:
    # One move per 0.3 s period. Each move the engine sees 0.3 - 0.03 (overhead) = 0.27 s with one move to
    # go: soft budget 0.8 * 0.27 = 0.216 s, and it starts no new iteration after 0.55 * 0.216 = 0.119 s,
    # so a move takes at least 0.119 s. Were the period not renewed, the second move would see at most
    # 0.3 - 0.119 - 0.03 = 0.151 s and its hard limit would be 0.9 * 0.151 = 0.136 s, the third less still.
    # A forfeit waits for 0.5 s over (time_margin): a process starved of CPU for a moment by the other tests
    # (a move once took 0.44 s under the full suite) is not what this test is about; the spent times are.
    tc = TimeControl.parse("1/0.3")
    g = play_game("material", "material", Opening("start"), tc, Adjudication(resign_moves=0, draw_moves=0,
                  max_plies=8), make_evaluator, "1.1", time_margin=0.5)
    assert g.termination == "adjudication" and g.plies == 8, g.reason
    spent = _spent(g.pgn)
    assert len(spent) == 8, spent
    # Replay each side's clock by hand: it starts at 0.3, loses what a move spent and gains 0.3 after each
    # move. A move that overran (0.55 s once, starved under the full suite) leaves the next period short, so
    # the bound holds only for moves begun with at least the full 0.3 s, which must be at least half of them.
    clocks, checked = [0.3, 0.3], 0
    for i, s in enumerate(spent):
        if clocks[i % 2] >= 0.3:
            assert s >= 0.11, (i, spent)
            checked += 1
        clocks[i % 2] += 0.3 - s
    assert checked >= 4, spent


# ---------------------------------------------------------------------- timeman.budget
def test_budget_sudden_death() -> None:
    # 60 s, no increment, no moves to go: 30 moves assumed. remaining = 60 - 0.03 = 59.97;
    # soft = 59.97 / 30 = 1.999; hard = min(4 * 1.999, 0.5 * 59.97) = 7.996.
    b = budget(Limit(wtime=60.0, btime=60.0), white_to_move=True)
    assert b.soft == pytest.approx(1.999) and b.hard == pytest.approx(7.996)


def test_budget_increment_uses_the_movers_clock() -> None:
    # Black to move with 20 s + 1 s: remaining 19.97; soft = 19.97 / 30 + 0.75 * 1 = 1.41567;
    # hard = min(4 * 1.41567, 0.5 * 19.97) = 5.66267. White's 10 s + 0.5 s play no part.
    b = budget(Limit(wtime=10.0, btime=20.0, winc=0.5, binc=1.0), white_to_move=False)
    assert b.soft == pytest.approx(19.97 / 30 + 0.75) and b.hard == pytest.approx(4 * (19.97 / 30 + 0.75))


def test_budget_moves_to_go() -> None:
    # 10 s for 5 moves: remaining 9.97; soft = 9.97 / 5 = 1.994; hard = min(4 * 1.994, 0.5 * 9.97) = 4.985.
    b = budget(Limit(wtime=10.0, btime=10.0, movestogo=5), white_to_move=True)
    assert b.soft == pytest.approx(1.994) and b.hard == pytest.approx(4.985)
    # The last move of a period may use more: soft = min(9.97, 0.8 * 9.97) = 7.976, hard = 0.9 * 9.97 = 8.973.
    b = budget(Limit(wtime=10.0, btime=10.0, movestogo=1), white_to_move=True)
    assert b.soft == pytest.approx(7.976) and b.hard == pytest.approx(8.973)
    # More than 30 moves to go counts as 30 (the same as sudden death).
    assert budget(Limit(wtime=60.0, btime=60.0, movestogo=100), True) == budget(Limit(wtime=60.0, btime=60.0), True)


def test_budget_movetime_empty_clock_and_infinite() -> None:
    # movetime 1 s: hard = max(1 - 0.03, 0.5) = 0.97, no soft budget; 0.04 s: max(0.01, 0.02) = 0.02.
    assert budget(Limit(movetime=1.0), True) == budget(Limit(movetime=1.0), False)
    b = budget(Limit(movetime=1.0), True)
    assert b.soft is None and b.hard == pytest.approx(0.97)
    assert budget(Limit(movetime=0.04), True).hard == pytest.approx(0.02)
    # 10 ms left (less than the overhead): both budgets fall to their 1 ms floor.
    b = budget(Limit(wtime=0.01, btime=5.0), True)
    assert (b.soft, b.hard) == (0.001, 0.001)
    b = budget(Limit(wtime=5.0, btime=5.0, infinite=True), True)
    assert (b.soft, b.hard) == (None, None)


# ---------------------------------------------------------------------- adjudication in play_game
# White: king and all eight pawns and pieces; Black: a bare king. Material says +3900 for White.
CRUSHING = Opening("crushing", "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1")
# Kings and a blocked pair of pawns: Material says 0, and no capture is possible within six plies.
DEAD = Opening("dead", "4k3/8/8/3p4/3P4/8/8/4K3 w - - 0 1")
DEPTH2 = TimeControl(depth=2)


def test_resign_adjudication() -> None:
    # Both players' scores favour White by >= 800 for 2 moves each: after ply 4 White wins. No mate is
    # possible that soon (the black king has room and White needs several moves).
    g = play_game("material", "material", CRUSHING, DEPTH2, Adjudication(resign_moves=2, resign_score=800),
                  make_evaluator, "1.1")
    assert (g.result, g.termination, g.plies) == ("1-0", "adjudication", 4), g.reason
    assert g.reason == "White wins by adjudication (resign)"
    assert '[Termination "adjudication"]' in g.pgn
    # With Black to move in the same kind of position the winner is still White, from Black's scores too.
    flipped = Opening("crushing-b", "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR b KQ - 0 1")
    g = play_game("material", "material", flipped, DEPTH2, Adjudication(resign_moves=2, resign_score=800),
                  make_evaluator, "1.2")
    assert (g.result, g.termination) == ("1-0", "adjudication"), g.reason
    # Four moves were played (one comment each), and that is what the game counts (board.ply() would say 5:
    # it starts at 1 for a root with Black to move, which once made such games longer than they were).
    assert len(_spent(g.pgn)) == 4 and g.plies == 4 and '[PlyCount "4"]' in g.pgn


def test_resign_needs_the_score_threshold() -> None:
    # The same game with a threshold above +3900 never resigns; it runs to the length limit (6 plies).
    g = play_game("material", "material", CRUSHING, DEPTH2,
                  Adjudication(resign_moves=2, resign_score=5000, draw_moves=0, max_plies=6), make_evaluator, "1.1")
    assert (g.result, g.termination, g.plies) == ("1/2-1/2", "adjudication", 6)
    assert g.reason == "draw by maximum length (6 plies)"


def test_draw_adjudication() -> None:
    # From move 1 on, 3 moves each with |score| <= 10: a draw after ply 6.
    adj = Adjudication(resign_moves=0, draw_movenumber=1, draw_moves=3, draw_score=10, max_plies=0)
    g = play_game("material", "material", DEAD, DEPTH2, adj, make_evaluator, "1.1")
    assert (g.result, g.termination, g.reason, g.plies) == ("1/2-1/2", "adjudication", "draw by adjudication", 6)
    # Not before draw_movenumber: a move counts when the move number after it is >= 5. The first is
    # Black's 4th move (ply 8, after which move 5 begins); with plies 9-13 that makes 6 in a row at ply 13.
    adj = Adjudication(resign_moves=0, draw_movenumber=5, draw_moves=3, draw_score=10, max_plies=0)
    g = play_game("material", "material", DEAD, DEPTH2, adj, make_evaluator, "1.1")
    assert g.termination == "adjudication" and g.plies == 13, (g.reason, g.plies)


def test_no_adjudication_plays_on_to_the_end() -> None:
    # With every rule off, the dead position is played out: it ends by a rule of chess, not by us.
    g = play_game("material", "material", DEAD, DEPTH2, NO_ADJUDICATION, make_evaluator, "1.1")
    assert g.result == "1/2-1/2" and g.termination == "normal", g.reason
    assert g.plies > 6
