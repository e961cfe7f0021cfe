"""The one game-set loop (search/games/gameset.py) under a match and a round robin: the same games either way, the
PGN log's repair through the one atomic writer, the SPRT's stop inside the loop.

Real players (``material@depth=1`` against ``expert@depth=1``, fixed depth, so the games are deterministic) and
real files; nothing is mocked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evolve.players import make_evaluator
from search.games.game import Adjudication, GameResult, TimeControl
from search.games.match import MatchSettings, MatchSummary, run_match
from search.games.openings import Opening, default_openings_path, load_openings
from search.games.pgnlog import read_pgn_games, read_pgn_text, repair_pgn
from search.games.roundrobin import RoundRobinSettings, run_round_robin
from search.games.stats import SPRT_MIN_GAMES

A, B = "material@depth=1", "expert@depth=1"
"""Two cheap players whose games do not depend on time (fixed depth)."""


def _openings() -> list[Opening]:
    return load_openings(default_openings_path())[:2]


MATCH = MatchSettings(A, B, games=4, openings=_openings(), tc=TimeControl(depth=1), event="same")
"""Four games, each of the first two shipped openings twice (colours swapped)."""


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> tuple[MatchSummary, Path]:
    """One MATCH played into a PGN, shared by the tests below (they only read the file, or copy it): its games are
    the reference a round robin, a resumed match and the repair are checked against."""
    pgn = tmp_path_factory.mktemp("match") / "m.pgn"
    return run_match(MATCH, make_evaluator, pgn), pgn


def _game_key(g: GameResult, drop_pairing: bool) -> tuple[str, str, str, str, str, str, int]:
    rnd = g.round.split(".", 1)[1] if drop_pairing else g.round  # a round robin's "P.K.C" is a match's "K.C"
    return (rnd, g.white, g.black, g.result, g.termination, g.reason, g.plies)


def _movetext(pgn: str) -> str:
    """A game's moves and comments without the time each move took (``0.01s``), the one part that varies."""
    body = pgn.split("\n\n", 1)[1]
    return re.sub(r" \d+\.\d\ds", "", body)


def test_the_shipped_openings_are_found() -> None:
    # search/data/openings.epd: the folder the package data ships (pyproject's package-data).
    path = default_openings_path()
    assert path.is_file() and path.parent.name == "data" and path.parent.parent.name == "search"
    assert len(load_openings(path)) >= 2


def test_the_500_openings_extend_the_default_set() -> None:
    # tools/make_openings.py with --min-games 2 --count 500 ranks the same positions first (most frequent first, the
    # same balance check), so its first 50 are the default 50: a match from either plays the same first 100 games.
    default = load_openings(default_openings_path())
    more = load_openings(default_openings_path().with_name("openings-500.epd"))
    assert len(more) == 500 and len({o.fen for o in more}) == 500
    assert [o.fen for o in more[: len(default)]] == [o.fen for o in default] and len(default) == 50


def test_a_match_and_a_two_player_round_robin_play_the_same_games(match: tuple[MatchSummary, Path],
                                                                   tmp_path: Path) -> None:
    # Both run the one game-set loop: the same schedule (each opening twice, colours swapped) under the same
    # settings gives the same games, move for move; only the round robin's pairing prefix "1." differs.
    summary, pgn = match
    rr = run_round_robin(RoundRobinSettings(players=(A, B), names=(A, B), games=4, openings=_openings(), tc=MATCH.tc,
                                            event="same"), make_evaluator, tmp_path / "r.pgn")
    assert summary.n == rr.n == 4 and summary.resumed == rr.resumed == 0
    assert [_game_key(g, False) for g in summary.games] == [_game_key(g, True) for g in rr.games]
    assert [_movetext(g.pgn) for g in summary.games] == [_movetext(g.pgn) for g in rr.games]
    assert [g.round for g in rr.games] == ["1.1.1", "1.1.2", "1.2.1", "1.2.2"]
    # The tallies agree: A's points in the match are A's points in the round robin.
    assert summary.wins + summary.draws / 2 == rr.points[A]
    # Each PGN holds its games whole, in the order played.
    for path, games in ((pgn, summary.games), (tmp_path / "r.pgn", rr.games)):
        whole, torn = read_pgn_games(path)
        assert torn == 0 and [h["Round"] for _, h in whole] == [g.round for g in games]


def test_a_torn_game_is_repaired_and_replayed_by_the_one_loop(match: tuple[MatchSummary, Path],
                                                              tmp_path: Path) -> None:
    first, played = match
    pgn = tmp_path / "m.pgn"
    whole = played.read_bytes()
    chunks = [c for c, _ in read_pgn_games(played)[0]]
    assert b"".join(chunks) == whole and len(chunks) == 4
    # A kill in the middle of the fourth game: three whole games and half of the fourth.
    pgn.write_bytes(b"".join(chunks[:3]) + chunks[3][: len(chunks[3]) // 2])
    told: list[str] = []
    seen: list[tuple[str, int]] = []
    again = run_match(MATCH, make_evaluator, pgn, resume=True, on_repair=told.append,
                      on_game=lambda g, s: seen.append((g.round, s.n)))
    assert len(told) == 1 and "dropped 1 torn game" in told[0]
    assert again.resumed == 3 and again.n == 4 and seen == [("2.2", 4)]  # only the torn game is played again
    # Games read back from the PGN keep their headers (round, names, result, termination); the replayed one
    # is the game played the first time, move for move.
    assert [_game_key(g, False)[:5] for g in again.games] == [_game_key(g, False)[:5] for g in first.games]
    assert _game_key(again.games[3], False) == _game_key(first.games[3], False)
    assert _movetext(again.games[3].pgn) == _movetext(first.games[3].pgn)
    assert [_movetext(c.decode()) for c in (c for c, _ in read_pgn_games(pgn)[0])] == \
        [_movetext(c.decode()) for c in chunks]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.pgn"]  # no temporary file left beside it


def test_repair_keeps_the_whole_games_and_leaves_no_temporary_file(match: tuple[MatchSummary, Path],
                                                                   tmp_path: Path) -> None:
    # The shared match's first two games (the first opening, each colour): a PGN of two whole games.
    played, played_pgn = match
    pgn = tmp_path / "log.pgn"
    pgn.write_bytes(b"".join(c for c, _ in read_pgn_games(played_pgn)[0][:2]))
    games = played.games[:2]
    whole = pgn.read_bytes()
    assert repair_pgn(pgn) == 0 and pgn.read_bytes() == whole  # nothing torn: the file is not rewritten
    # A game cut at every fifth byte of its text: the repair gives back exactly the first game's bytes.
    first = games[0].pgn.encode()
    assert whole.startswith(first)
    for cut in range(len(first) + 1, len(whole) - 1, max(1, (len(whole) - len(first)) // 5)):
        pgn.write_bytes(whole[:cut])
        assert repair_pgn(pgn) == 1
        assert pgn.read_bytes() == first
        assert [g.headers["Round"] for g in read_pgn_text(pgn.read_text())] == ["1.1"]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["log.pgn"]


def test_the_sprt_stops_the_match_inside_the_one_loop(tmp_path: Path) -> None:
    # elo0 = -400, elo1 = -300 (A much weaker), alpha = beta = 0.5: the bounds are log(0.5/0.5) = 0 on both
    # sides, so any log-likelihood ratio decides as soon as the SPRT may: after SPRT_MIN_GAMES (10) games.
    # Games cut at 16 plies (a draw; whole games, 34 plies on average, took 4 s): whatever the results, the SPRT
    # decides at game 10.
    seen: list[str | None] = []  # the decision after each game (the summary is one object, updated)
    summary = run_match(MatchSettings(A, B, games=14, openings=_openings(), tc=TimeControl(depth=1),
                                      adjudication=Adjudication(max_plies=16), sprt=(-400.0, -300.0, 0.5, 0.5)),
                        make_evaluator, tmp_path / "s.pgn",
                        on_game=lambda g, s: seen.append(s.sprt_result.decision if s.sprt_result else "none"))
    assert summary.n == SPRT_MIN_GAMES == 10 and summary.stopped_early and len(seen) == 10
    assert seen[:-1] == [None] * 9 and seen[-1] in ("H0", "H1")
    assert summary.sprt_result is not None and summary.sprt_result.decision is not None
    assert len(read_pgn_games(tmp_path / "s.pgn")[0]) == 10
