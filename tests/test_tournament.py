"""``mimic tournament``: the joint rating fit (search.games.ratings) on hand-derived cases, and real short runs.

Expected ratings are derived by hand from the model of :mod:`search.games.ratings`: a player of rating ``r``
scores ``E(d) = 1 / (1 + 10^(−d/400))`` against one of rating ``r − d``, a draw counts half, and the
maximum-likelihood ratings make every player's expected points equal to its points.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from search.games.openings import Opening
from search.games.pgnlog import read_pgn_text
from search.games.ratings import GameRecord, RatingError, fit_ratings, rate, tally
from search.games.roundrobin import RoundRobinSettings, schedule
from search.games.stats import elo as match_elo

from .conftest import CliRunner

THREE = ["material@nodes=200", "random:1@nodes=200", "expert@nodes=200"]
SHORT = ["--max-plies", "40", "--bootstrap", "50"]
"""Games cut at 40 plies (a draw by maximum length unless a rule or resignation came first; random:1 against
material ran to 172) and 50 bootstrap resamples (200 took 1.2 s a run): the runs' files and resume are the point."""


def _record(a: str, b: str, wins: int, draws: int, losses: int) -> list[GameRecord]:
    """``a``'s wins, draws and losses against ``b``, colours alternating (a has White in the even games)."""
    out: list[GameRecord] = []
    for k, pts in enumerate([1.0] * wins + [0.5] * draws + [0.0] * losses):
        out.append((a, b, pts) if k % 2 == 0 else (b, a, 1.0 - pts))
    return out


def test_two_players_reproduce_the_match_formula() -> None:
    # 10 wins, 4 draws, 6 losses: s = (10 + 4/2) / 20 = 0.6; the match formula gives a difference of
    # -400 log10(1/0.6 - 1) = -400 log10(2/3) = 70.437 Elo, so (mean 0) A = +35.218 and B = -35.218.
    games = _record("A", "B", 10, 4, 6)
    r = rate(games, ["A", "B"], bootstrap=0)
    assert r.elo == pytest.approx([35.218, -35.218], abs=1e-3)
    assert r.elo[0] - r.elo[1] == pytest.approx(match_elo(10, 4, 6).elo, abs=1e-6)
    assert r.elo[0] - r.elo[1] == pytest.approx(-400 * math.log10(1 / 0.6 - 1), abs=1e-6)
    # One virtual draw: s = (12 + 0.5) / 21 = 12.5/21, 1/s - 1 = 8.5/12.5 = 0.68: -400 log10 0.68 = 66.997.
    r1 = rate(games, ["A", "B"], prior_draws=1.0, bootstrap=0)
    assert r1.elo[0] - r1.elo[1] == pytest.approx(-400 * math.log10(0.68), abs=1e-6)
    assert r1.elo[0] - r1.elo[1] == pytest.approx(66.997, abs=1e-3)


def test_three_players_with_known_expected_scores() -> None:
    # Strengths γ = 10^(r/400) of 9, 3 and 1 (ratings 400 log10 9, 400 log10 3, 0) expect A to score
    # γA/(γA+γB) = 9/12 = 0.75 against B, B 3/4 = 0.75 against C and A 9/10 = 0.9 against C. Games that
    # score exactly that (20 a pair, with draws counted as halves) satisfy the score equations, so the
    # fit returns those ratings: A - B = B - C = 400 log10 3 = 190.849, A - C = 381.697; mean 0 -> B = 0.
    games = (_record("A", "B", 12, 6, 2)  # 12 + 3 = 15/20
             + _record("B", "C", 15, 0, 5)  # 15/20
             + _record("A", "C", 17, 2, 1))  # 17 + 1 = 18/20
    r = rate(games, ["A", "B", "C"], bootstrap=0)
    d = 400 * math.log10(3)
    assert d == pytest.approx(190.849, abs=1e-3)
    assert r.elo == pytest.approx([d, 0.0, -d], abs=1e-6)
    assert r.points.sum(axis=1) == pytest.approx([33.0, 20.0, 7.0])  # 15+18, 5+15, 5+2
    # Pairs that disagree with one scale (A-B 15/20, B-C 15/20 but A-C 10/20): no rating reproduces
    # every pair, the joint fit makes each player's expected points equal its points (A 25, B 20, C 15
    # of 40) and, by the symmetry of the results, gives B 0 and A = -C, here less than 190.8.
    games = _record("A", "B", 15, 0, 5) + _record("B", "C", 15, 0, 5) + _record("A", "C", 10, 0, 10)
    r = rate(games, ["A", "B", "C"], bootstrap=0)
    expected = [sum(20 / (1 + 10 ** (-(r.elo[i] - r.elo[j]) / 400)) for j in range(3) if j != i) for i in range(3)]
    assert expected == pytest.approx([25.0, 20.0, 15.0], abs=1e-6)
    assert r.elo[1] == pytest.approx(0.0, abs=1e-6) and r.elo[0] == pytest.approx(-r.elo[2], abs=1e-6)
    assert 0 < r.elo[0] < d


def test_the_fit_agrees_with_choix_on_a_five_player_round_robin() -> None:
    """choix (a maintained Bradley-Terry library) fits the same model from (winner, loser) pairs: a game
    counted as two comparisons, a win as (winner, loser) twice and a draw as one each way, makes choix's
    likelihood ours (draw = half a win and half a loss) raised to the power 2, with the same maximum.
    choix's strengths θ are natural-log odds: Elo = θ · 400 / ln 10, centred to mean 0 as ours are."""
    choix = pytest.importorskip("choix", reason="choix is a dev extra (pip install choix)")
    rng = np.random.default_rng(7)
    names = ["A", "B", "C", "D", "E"]
    true = [300.0, 150.0, 0.0, -100.0, -350.0]
    games: list[GameRecord] = []
    for i in range(5):
        for j in range(i + 1, 5):
            e = 1 / (1 + 10 ** (-(true[i] - true[j]) / 400))
            for g in range(20):
                u = rng.random()
                s = 1.0 if u < e - 0.1 else (0.5 if u < e + 0.1 else 0.0)  # about 20% draws
                games.append((names[i], names[j], s) if g % 2 == 0 else (names[j], names[i], 1.0 - s))
    pairs: list[tuple[int, int]] = []
    for white, black, s in games:
        w, b = names.index(white), names.index(black)
        pairs += [(w, b), (w, b)] if s == 1.0 else [(b, w), (b, w)] if s == 0.0 else [(w, b), (b, w)]
    theta = choix.ilsr_pairwise(5, pairs, alpha=0.0, tol=1e-12, max_iter=10_000)
    theirs = (theta - theta.mean()) * 400 / math.log(10)
    p, n = tally(games, names)
    assert fit_ratings(p, n) == pytest.approx(theirs, abs=0.01)


def test_bootstrap_interval_contains_the_estimate_and_narrows_with_more_games() -> None:
    games = _record("A", "B", 10, 4, 6) + _record("B", "C", 9, 6, 5) + _record("A", "C", 11, 5, 4)
    few = rate(games, ["A", "B", "C"], bootstrap=100, seed=1)
    many = rate(games * 4, ["A", "B", "C"], bootstrap=100, seed=1)
    # four copies of every game: the same point estimate (the same score shares), about half the width
    # (the standard error falls as 1/sqrt(n)). 100 resamples (300 took 4 s): width ratios 0.43-0.47 today.
    assert many.elo == pytest.approx(few.elo, abs=1e-6)
    for r in (few, many):
        assert np.all(r.low < r.elo) and np.all(r.elo < r.high)
    width_few, width_many = few.high - few.low, many.high - many.low
    assert np.all(width_many < 0.7 * width_few) and np.all(width_many > 0.3 * width_few)
    # seeded: the same seed gives the same interval
    again = rate(games, ["A", "B", "C"], bootstrap=100, seed=1)
    assert np.array_equal(again.low, few.low) and np.array_equal(again.high, few.high)


def test_the_anchor_shifts_every_rating() -> None:
    games = _record("A", "B", 12, 6, 2) + _record("B", "C", 15, 0, 5) + _record("A", "C", 17, 2, 1)
    free = rate(games, ["A", "B", "C"], bootstrap=50)
    fixed = rate(games, ["A", "B", "C"], anchor=("C", 1500.0), bootstrap=50)
    # mean 0: (190.849, 0, -190.849); C fixed at 1500 adds 1690.849 to all: (1881.697, 1690.849, 1500).
    assert fixed.elo == pytest.approx(free.elo + 1500.0 + 400 * math.log10(3), abs=1e-6)
    assert fixed.elo == pytest.approx([1881.697, 1690.849, 1500.0], abs=1e-3)
    # the anchor's interval has no width; the others' are relative to it
    assert fixed.low[2] == fixed.high[2] == 1500.0
    assert np.all(fixed.low[:2] < fixed.elo[:2]) and np.all(fixed.elo[:2] < fixed.high[:2])
    with pytest.raises(ValueError, match="anchor 'D' is not a player"):
        rate(games, ["A", "B", "C"], anchor=("D", 0.0))


def test_the_intervals_do_not_depend_on_the_order_games_finished_in() -> None:
    from evolve.tournament import rate_games
    from search.games.game import GameResult
    from search.games.roundrobin import RoundRobinSummary

    rng = np.random.default_rng(5)
    games = [GameResult(f"{p + 1}.{o}.{g}", *(("A", "B"), ("A", "C"), ("B", "C"))[p][::1 if g == 1 else -1],
                        str(rng.choice(["1-0", "0-1", "1/2-1/2"])), "normal", "", 40, "", 1.0)
             for p in range(3) for o in range(1, 6) for g in (1, 2)]
    ratings = []
    for order in (games, games[::-1], [games[i] for i in rng.permutation(len(games))]):
        summary = RoundRobinSummary(("A", "B", "C"), [(0, 1), (0, 2), (1, 2)])
        for g in order:
            summary.add(g)
        ratings.append(rate_games(summary, bootstrap=50))  # 50 resamples: equal or not, whatever the count
    for r in ratings[1:]:
        assert np.array_equal(r.low, ratings[0].low) and np.array_equal(r.high, ratings[0].high)


def test_nominal_ratings_are_checked_against_the_intervals() -> None:
    from evolve.tournament import nominal_checks, nominal_lines

    games = _record("A", "B", 12, 6, 2) + _record("B", "C", 15, 0, 5) + _record("A", "C", 17, 2, 1)
    fixed = rate(games, ["A", "B", "C"], anchor=("C", 1500.0), bootstrap=50)
    # B is fitted at 1690.849 (by hand above), inside its interval; 3000 is far outside any interval of 20 games.
    inside, outside = nominal_checks(fixed, [("B", 1690.0), ("B", 3000.0)])
    assert inside["contains"] is True and outside["contains"] is False
    assert inside["elo"] == pytest.approx(1690.849, abs=1e-3) and inside["low"] == fixed.low[1]
    lines = nominal_lines(fixed, [inside, outside])
    assert "inside the interval" in lines[0] and "anchor C (1500): nominal +190" in lines[0]
    assert "outside the interval (fitted minus nominal: -1309.2)" in lines[1]


def test_a_perfect_score_needs_a_prior_and_unconnected_players_are_refused() -> None:
    games = _record("A", "B", 10, 0, 0)
    with pytest.raises(RatingError, match="unbounded: B scored no point"):
        rate(games, ["A", "B"], bootstrap=0)
    # one virtual draw: s = 10.5/11, 1/s - 1 = 0.5/10.5 = 1/21: a difference of 400 log10 21 = 528.88
    r = rate(games, ["A", "B"], prior_draws=1.0, bootstrap=0)
    assert r.elo[0] - r.elo[1] == pytest.approx(400 * math.log10(21), abs=1e-6)
    apart = _record("A", "B", 5, 0, 5) + _record("C", "D", 5, 0, 5)
    with pytest.raises(RatingError, match="do not connect every player"):
        rate(apart, ["A", "B", "C", "D"], prior_draws=1.0, bootstrap=0)
    with pytest.raises(ValueError, match=r"points must be 1, 0\.5 or 0"):
        tally([("A", "B", 0.25)], ["A", "B"])
    with pytest.raises(ValueError, match="not among"):
        tally([("A", "X", 1.0)], ["A", "B"])
    p, n = tally(_record("A", "B", 1, 1, 0), ["A", "B"])
    assert p.tolist() == [[0.0, 1.5], [0.5, 0.0]] and n.tolist() == [[0.0, 2.0], [2.0, 0.0]]
    assert fit_ratings(p, n, ["A", "B"]) == pytest.approx([95.424, -95.424], abs=1e-3)  # 400 log10 3 / 2


def test_a_gauntlet_pairs_the_first_player_with_each_other() -> None:
    # 4 players, gauntlet: pairings 1 = (A, B), 2 = (A, C), 3 = (A, D); 2 games each, opening-major.
    s = RoundRobinSettings(players=("a", "b", "c", "d"), names=("A", "B", "C", "D"), games=2,
                           openings=[Opening("o1")], gauntlet=True)
    assert s.pairings == [(0, 1), (0, 2), (0, 3)]
    assert [(r, w, b) for r, w, b, _ in schedule(s)] == [
        ("1.1.1", "a", "b"), ("2.1.1", "a", "c"), ("3.1.1", "a", "d"),
        ("1.1.2", "b", "a"), ("2.1.2", "c", "a"), ("3.1.2", "d", "a")]


def test_tournament_doctests() -> None:
    import doctest

    import evolve.tournament

    failures, tried = doctest.testmod(evolve.tournament)
    assert failures == 0 and tried >= 1



def test_a_short_tournament_writes_its_files_and_resumes_from_its_pgn(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "t.pgn"
    common = [*THREE, "--names", "Mat,Rnd,Exp", "--nodes", "200", *SHORT, "--out", str(out),
              "--anchor", "Mat=1000", "--nominal", "Exp=1000"]
    first = cli("tournament", *common, "--games", "1")
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("round ") == 3  # 3 pairings x 1 game
    more = cli("tournament", *common, "--games", "2", "--resume")
    assert more.returncode == 0, more.stderr
    assert more.stdout.count("round ") == 3  # only the three P.1.2 games were played
    assert "\n3 games in " in more.stdout and ", 3 more resumed from the PGN: 6 in all" in more.stdout
    pgn = out.read_bytes()
    games = read_pgn_text(pgn.decode())
    assert sorted(g.headers["Round"] for g in games) == ["1.1.1", "1.1.2", "2.1.1", "2.1.2", "3.1.1", "3.1.2"]
    points: Counter[str] = Counter()
    for g in games:
        white = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[g.headers["Result"]]
        points[g.headers["White"]] += white
        points[g.headers["Black"]] += 1 - white
    data = json.loads((tmp_path / "ratings.json").read_text())
    # the ratings recount the PGN: 6 games, 4 per player; Mat is the anchor at 1000 with a zero-width interval
    assert data["games"] == 6 and data["anchor"] == {"name": "Mat", "elo": 1000.0} and data["prior_draws"] == 0.2
    by_name = {p["name"]: p for p in data["players"]}
    assert {n: p["points"] for n, p in by_name.items()} == dict(points)
    assert all(p["games"] == 4 for p in by_name.values())
    assert by_name["Mat"]["elo"] == by_name["Mat"]["low"] == by_name["Mat"]["high"] == 1000.0
    assert data["provenance"]["git_commit"] is None or len(data["provenance"]["git_commit"]) == 40
    # the rating order follows the points (one scale, every pair met equally often)
    ranked = [p["name"] for p in sorted(data["players"], key=lambda p: p["rank"])]
    assert [points[n] for n in ranked] == sorted(points.values(), reverse=True)
    summary = (tmp_path / "summary.md").read_text()
    assert "mimic tournament " in summary and "--anchor Mat=1000" in summary and "## Crosstable" in summary
    assert "95% interval" in summary and "commit" in summary
    assert "## Nominal ratings" in summary and "- Exp: nominal 1000, fitted" in summary
    assert data["nominal"][0]["player"] == "Exp" and data["nominal"][0]["nominal"] == 1000.0
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "95% interval" in more.stdout and "Crosstable" in more.stdout
    # nothing left to play: no game is replayed, the PGN is unchanged, the ratings are the same
    again = cli("tournament", *common, "--games", "2", "--resume")
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("round ") == 0 and out.read_bytes() == pgn
    assert "\n0 games in " in again.stdout and "(0 games/hour), 6 more resumed from the PGN: 6 in all" in again.stdout
    assert json.loads((tmp_path / "ratings.json").read_text())["players"] == data["players"]
    # a gauntlet is another tournament: refused on this PGN, which stays as it was
    other = cli("tournament", *common, "--games", "2", "--resume", "--gauntlet")
    assert other.returncode == 2 and "gauntlet" in other.stderr and out.read_bytes() == pgn


def test_a_bad_anchor_is_refused_before_any_game(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "t.pgn"
    run = cli("tournament", *THREE[:2], "--names", "Mat,Rnd", "--nodes", "200", "--out", str(out), "--anchor", "Exp=0")
    assert run.returncode == 2 and "--anchor 'Exp' is not a player's name (names: Mat, Rnd)" in run.stderr
    assert not out.exists()
    run = cli("tournament", *THREE[:2], "--out", str(out), "--anchor", "Mat")
    assert run.returncode == 2 and "NAME=ELO" in run.stderr
    run = cli("tournament", *THREE[:2], "--names", "Mat,Rnd", "--nodes", "200", "--out", str(out), "--nominal", "Exp=0")
    assert run.returncode == 2 and "--nominal 'Exp' is not a player's name" in run.stderr and not out.exists()


def test_a_gauntlet_rates_players_that_never_met_through_the_first(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    run = cli("tournament", *THREE, "--names", "Mat,Rnd,Exp", "--nodes", "200", "--games", "2", "--gauntlet",
              *SHORT, "--out", str(out))
    assert run.returncode == 0, run.stderr
    # pairings 1 = Mat-Rnd, 2 = Mat-Exp (no Rnd-Exp): 2 x 2 games
    games = read_pgn_text(out.read_text())
    assert sorted(g.headers["Round"] for g in games) == ["1.1.1", "1.1.2", "2.1.1", "2.1.2"]
    data = json.loads((tmp_path / "ratings.json").read_text())
    assert data["games"] == 4 and data["anchor"] is None
    assert "Exp" not in data["crosstable"]["Rnd"] and set(data["crosstable"]["Mat"]) == {"Rnd", "Exp"}
    by_name = {p["name"]: p for p in data["players"]}
    assert [by_name[n]["games"] for n in ("Mat", "Rnd", "Exp")] == [4, 2, 2]
    assert sum(p["elo"] for p in data["players"]) == pytest.approx(0.0, abs=0.05)  # mean 0 (rounded to 0.01)
    assert json.loads((tmp_path / "g.pgn.json").read_text())["gauntlet"] is True
