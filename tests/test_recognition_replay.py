"""``mimic recognize classify --method replay``: candidate engines replayed on a query's positions (issue 25, 3)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.players import PLAYERS
from evolve.recognition.replay import replay_sides
from evolve.recognition.replay_candidates import Candidate, parse_candidates
from organisms import Organism
from search.base import Limit
from search.games.game import Adjudication, TimeControl, play_game
from search.games.openings import Opening
from search.players.player import ExternalPlayer
from search.players.spec import SpecError

from .conftest import debian_engine, run_mimic

SPECS = {"Expert": "expert@depth=1", "Material": "material@depth=1"}
OPENINGS = ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2")


def trained_dir(folder: Path) -> Path:
    """A ``recognize train`` folder as classify checks it (manifest and clone files), skipping no plies: replay
    reads only its settings."""
    folder.mkdir()
    for name in SPECS:
        Organism.random(1).save(folder / f"clone-{name}.json")
    (folder / "recognize.json").write_text(json.dumps({
        "format": "mimic-recognize", "version": 1, "players": list(SPECS),
        "clones": {n: {"organism": f"clone-{n}.json", "beta": 1.0, "normalisation": 0.0} for n in SPECS},
        "settings": {"skip_plies": 0, "genome": "paper", "score": "likelihood", "aliases": [], "exclude": []}}))
    return folder


@pytest.fixture(scope="module")
def query(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Expert against Material at depth 1, each opening (a FEN: every move in the PGN is an engine's) twice with
    colours swapped: 4 games, 8 game sides."""
    text = ""
    for i, fen in enumerate(OPENINGS):
        for white, black in (("Expert", "Material"), ("Material", "Expert")):
            text += play_game(SPECS[white], SPECS[black], Opening(f"o{i}", fen), TimeControl(depth=1),
                              Adjudication(max_plies=30), PLAYERS, f"{i}", white_name=white, black_name=black).pgn
    path = tmp_path_factory.mktemp("replay") / "query.pgn"
    path.write_text(text)
    return path


def test_each_side_is_attributed_to_the_deterministic_engine_that_played_it(query: Path, tmp_path: Path) -> None:
    # Derived: our engine at a fixed depth is deterministic; replayed at the same depth on the same positions, in
    # the same order from a new game (the same hash), it plays the same moves. So the true player's matching share
    # is exactly 1.0 on every side, and the two evaluations (PeSTO tables vs material only) differ on many moves.
    folder = trained_dir(tmp_path / "dir")
    cache = tmp_path / "cache"
    out = tmp_path / "q.csv"
    args = ["recognize", "classify", folder, query, "--method", "replay", "--no-progress", "--csv", out,
            "--candidates", ",".join(f"{n}={s}" for n, s in SPECS.items())]
    run = run_mimic(*args, env={"MIMIC_CACHE": str(cache)})
    assert run.returncode == 0, run.stderr
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 8 and {r["player"] for r in rows} == set(SPECS)
    # The default ranking is normalised: a candidate's share minus its share over all 8 sides. Each matches its
    # own 4 sides fully and the other's partly, so its overall share is below 1 and above its share on the
    # other's sides: positive on its own sides, negative on the other's.
    for r in rows:
        other = next(n for n in SPECS if n != r["player"])
        assert r["predicted"] == r["player"] and r["rank"] == "1", r
        assert float(r[f"score:{r['player']}"]) > 0 > float(r[f"score:{other}"]), r
    assert "ranked by each candidate's score minus its score over every replayed position" in run.stdout
    assert "top-1 accuracy on the 8 queries whose header names a candidate: 100.0%" in run.stdout
    assert len(list((cache / "replay").glob("replay-*.npz"))) == 16  # a cache file per candidate and side
    again = run_mimic(*args, env={"MIMIC_CACHE": str(cache)})  # read back from the cache: the same answer
    assert again.returncode == 0 and again.stdout == run.stdout and out.read_text().count("\n") == 9
    raw = run_mimic(*args, "--ranking", "raw", env={"MIMIC_CACHE": str(cache)})  # matching shares themselves
    assert raw.returncode == 0, raw.stderr
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        other = next(n for n in SPECS if n != r["player"])
        assert float(r[f"score:{r['player']}"]) == 1.0 and float(r[f"score:{other}"]) < 0.8, r
    assert len(list((cache / "replay").glob("replay-*.npz"))) == 16  # the ranking replays nothing again


def test_stockfish_multipv_gives_the_played_moves_rank_and_likelihood(tmp_path: Path) -> None:
    # A back-rank mate: White (Ra1, Kg1, pawns f2 g2 h2) against Kg8 (pawns f7 g7 h7); 20 legal moves, Ra8# the
    # only mate. Side 0 plays Ra8#, side 1 plays h3. Stockfish at 2000 nodes finds the mate in 1: it plays Ra8
    # (a match on side 0, a miss on side 1), and its one MultiPV line is Ra8 with a mate score, capped at 1500 cp.
    # With beta 2 per pawn the 19 other moves are scored 100 cp lower: logits 30 and 19 x 28, so
    # log p(Ra8) = 2 - log(e^2 + 19) and log p(h3) = -log(e^2 + 19); ranks 1 and 0 (outside the list).
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    entries = [(0, fen, ["a1a8"], True), (1, fen, ["h2h3"], True)]
    sf = Candidate("SF", "uci:/usr/games/stockfish?Threads=1&Hash=16@nodes=2000", "likelihood")
    got = replay_sides(entries, [sf], PLAYERS, multipv=1, cache=tmp_path)["SF"]
    assert got["side"].tolist() == [0, 1] and got["match"].tolist() == [1, 0] and got["error"].tolist() == [0, 0]
    assert got["rank"].tolist() == [1, 0]
    z = math.log(math.exp(2) + 19)
    assert got["loglik"] == pytest.approx([2 - z, -z], abs=1e-9)
    # Our engine gives no MultiPV: a match counted, no likelihood, rank -1.
    mine = replay_sides(entries[:1], [Candidate("E", "expert@depth=2", "likelihood")], PLAYERS, multipv=1,
                        use_cache=False)["E"]
    assert mine["match"].tolist() == [1] and mine["rank"].tolist() == [-1] and math.isnan(mine["loglik"][0])
    assert chess.Board(fen).legal_moves.count() == 20


@pytest.mark.parametrize(("engine", "suffix"), [
    ("stockfish", "?Threads=1&Hash=16@nodes=5000"),
    ("ethereal-chess", "@depth=8"),  # Ethereal 12 stops go nodes after depth 1
    ("toga2", "@depth=4"),  # Toga II ignores go nodes: depth is its deterministic limit
    # Glaurung at a node limit may stop inside depth 1 and answer `bestmove (none)`; its default 2 threads race
    ("glaurung", "?Threads=1&Hash=16@depth=5"),
])
def test_a_deterministic_engine_replays_its_own_game(engine: str, suffix: str, tmp_path: Path) -> None:
    # A Debian engine at its deterministic limit plays itself for 40 plies under the match's 0.1 s a move (what
    # `mimic games --movetime 0.1` gives it); replayed at the same settings (one process, a new game per side, the
    # positions in game order) it must play >= 95 % of its own moves. Before an engine was sent its own limit
    # alone, Ethereal searched by the match's 0.1 s (it ignores a limit beside movetime): 76 % on such games.
    spec = f"uci:{debian_engine(engine)}{suffix}"
    game = play_game(spec, spec, Opening("o", OPENINGS[0]), TimeControl(movetime=0.1), Adjudication(max_plies=40),
                     PLAYERS, "1")
    played = chess.pgn.read_game(io.StringIO(game.pgn))
    assert played is not None and played.headers["Termination"] in ("adjudication", "normal"), game.pgn[-300:]
    moves = [m.uci() for m in played.mainline_moves()]
    assert len(moves) >= 24, game.pgn[-300:]
    entries = [(0, OPENINGS[0], moves, True), (1, OPENINGS[0], moves, False)]
    got = replay_sides(entries, [Candidate("E", spec)], PLAYERS, movetime=0.1, cache=tmp_path)["E"]
    assert len(got["match"]) >= 20 and got["error"].sum() == 0
    assert got["match"].mean() >= 0.95, (engine, int(got["match"].sum()), len(got["match"]))


def test_an_engine_that_ignores_its_node_limit_is_told_to_stop(tmp_path: Path) -> None:
    # Toga II does not stop at `go nodes` (it searches on, as if told `go infinite`): sent its spec's 5,000 nodes
    # alone, it is told to stop at 0.8 of the request's 1 s timeout and its move is taken, counted as an overrun
    # instead of a forfeit. Stockfish stops at its 5,000 nodes by itself: no overrun.
    board = chess.Board(OPENINGS[0])
    toga = ExternalPlayer("toga", debian_engine("toga2"), cap=Limit(nodes=5000))
    sf = ExternalPlayer("sf", debian_engine("stockfish"), {"Threads": "1", "Hash": "16"}, cap=Limit(nodes=5000))
    try:
        assert toga.sent_limit(Limit(movetime=0.1)) == Limit(nodes=5000)
        report = toga.play(board, Limit(movetime=0.1), timeout=1.0)
        assert report.move in board.legal_moves and toga.overruns == 1
        report = sf.play(board, Limit(movetime=0.1), timeout=1.0)
        assert report.move in board.legal_moves and sf.overruns == 0 and 0 < report.nodes <= 6000
    finally:
        toga.close()
        sf.close()


@pytest.mark.parametrize(("candidates", "says"), [
    ("X=nonsense:1", "nonsense"),
    ("X=uci:/nonexistent/engine", "no executable /nonexistent/engine"),
    ("expert@depth=1", "expected NAME=SPEC"),
    ("A=expert@depth=1,A=material", "named twice"),
])
def test_a_bad_candidate_is_refused_in_one_line(candidates: str, says: str, query: Path, tmp_path: Path) -> None:
    folder = trained_dir(tmp_path / "dir")
    out = tmp_path / "q.csv"
    run = run_mimic("recognize", "classify", folder, query, "--method", "replay", "--candidates", candidates,
                    "--csv", out, "--no-progress", env={"MIMIC_CACHE": str(tmp_path / "cache")})
    assert run.returncode == 2 and not out.exists()
    assert len(run.stderr.strip().splitlines()) == 1 and run.stderr.startswith("mimic recognize classify:"), run.stderr
    assert says in run.stderr
    with pytest.raises(SpecError, match=says.split()[0]):
        parse_candidates([candidates], PLAYERS)


def test_experiment_reports_replay_as_its_own_row(query: Path, tmp_path: Path) -> None:
    # The 4 games split by game: 2 test games, 4 test sides (2 a player). Each is replayed by both candidates and,
    # as above, matched 100% by its own player: replay is right on every query at k = 1 and all.
    out = tmp_path / "exp"
    run = run_mimic("recognize", "experiment", query, "--players", ",".join(SPECS), "--out", out, "--skip-plies", "0",
                    "--test", "0.5", "--validation", "0.25", "--population", "4", "--generations", "1", "--sample",
                    "50", "--cp-positions", "2", "--no-progress", "--multipv", "0", "--features", "habits",
                    "--candidates", ",".join(f"{n}={s}" for n, s in SPECS.items()),
                    env={"MIMIC_CACHE": str(tmp_path / "cache")})
    assert run.returncode == 0, run.stderr
    assert "k = 1: 4 queries" in run.stdout and "replay 100.0% (top-3 100.0%)" in run.stdout
    with open(out / "replay-k1.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4 and all(r["predicted"] == r["player"] for r in rows)
    summary = (out / "summary.md").read_text()
    assert "| 1 | 100.0% / 100.0% |" in summary and "`Expert=expert@depth=1`" in summary
    assert "a timeout, a crash; left out of its scores): Expert 0, Material 0." in summary  # none failed
    assert all(r["failed:Expert"] == r["failed:Material"] == "0" for r in rows)


def test_experiment_splits_by_file_with_test_games(query: Path, tmp_path: Path) -> None:
    # The split by opening of results/recognition-engines: the games from the first opening train (GAMES.pgn, split
    # into training and validation only), those from the second are the test games (--test-games). Derived: 2 test
    # games of 2 sides, 2 a player; replay on each player's first side (--replay-sides 1), its first 3 positions
    # (--replay-positions 3): 2 queries at k = 1, each of 3 positions, each matched 100% by the engine that played it
    # (deterministic at its depth, as above), so replay is right on both.
    games = chess.pgn.read_game
    by_opening: dict[str, str] = {fen: "" for fen in OPENINGS}
    with open(query) as fh:
        while (game := games(fh)) is not None:
            by_opening[game.headers["FEN"]] += f"{game}\n\n"
    train_pgn, test_pgn = tmp_path / "train.pgn", tmp_path / "test.pgn"
    train_pgn.write_text(by_opening[OPENINGS[0]])
    test_pgn.write_text(by_opening[OPENINGS[1]])
    out = tmp_path / "exp"
    env = {"MIMIC_CACHE": str(tmp_path / "cache")}
    common = ("recognize", "experiment", train_pgn, "--test-games", test_pgn, "--players", ",".join(SPECS),
              "--out", out, "--skip-plies", "0", "--validation", "0.5", "--population", "4", "--generations", "1",
              "--sample", "50", "--cp-positions", "2", "--no-progress", "--features", "repertoire,habits")
    refused = run_mimic(*common, "--test", "0.2", env=env)
    assert refused.returncode == 2 and "--test must be 0" in refused.stderr and not out.exists()
    run = run_mimic(*common, "--multipv", "0", "--replay-sides", "1", "--replay-positions", "3",
                    "--candidates", ",".join(f"{n}={s}" for n, s in SPECS.items()), env=env)
    assert run.returncode == 0, run.stderr
    split = json.loads((out / "split.json").read_text())
    parts = {g["source"].rsplit(":", 1)[0]: set() for g in split["games"]}
    for g in split["games"]:
        parts[g["source"].rsplit(":", 1)[0]].add(g["part"])
    assert parts == {str(train_pgn): {"train", "validation"}, str(test_pgn): {"test"}}
    with open(out / "replay-k1.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 and all(r["predicted"] == r["player"] and r["positions"] == "3" for r in rows)
    with open(out / "features-k1.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 4  # every test side, classified by the classifier
    summary = (out / "summary.md").read_text()
    assert "| replay (engines) | 100.0% [16%–100%] / 100.0% [16%–100%] |" in summary
    assert "| replay, normalised (engines) | 100.0% [16%–100%] / 100.0% [16%–100%] |" in summary
    for row in ("| classifier, repertoire alone |", "| classifier, habits alone |", "| classifier, all families |",
                "| personal clones |", "| centipawn-loss profile |", "| chance |"):
        assert row in summary
    assert "the test games are those of" in summary


def test_normalised_replay_stops_a_candidate_that_agrees_with_everyone() -> None:
    from evolve.recognition.experiments import _replay_normalised, _replay_scores, replay_means
    from evolve.recognition.replay import ReplayQuery

    # By hand: "S" (a strong engine) plays the common move, so it matches A's moves often (0.8) and its own always;
    # A matches its own 0.6 and 0.7 and S's 0.3. Raw shares give A's two queries to S. Over all 30 positions S
    # matches (8 + 10 + 8) / 30 = 0.867 and A (6 + 3 + 7) / 30 = 0.533; minus those, A's queries score
    # +0.067 / +0.167 for A against -0.067 for S, and S's query -0.233 for A against +0.133 for S: all right.
    qs = [ReplayQuery(["q1"], "A", "A", 10, {"A": 0.6, "S": 0.8}),
          ReplayQuery(["q2"], "S", "S", 10, {"A": 0.3, "S": 1.0}),
          ReplayQuery(["q3"], "A", "A", 10, {"A": 0.7, "S": 0.8})]
    raw, truth = _replay_scores(qs, ["A", "S"])
    assert list(raw.argmax(axis=1)) == [1, 1, 1] and list(truth) == [0, 1, 0]
    means = replay_means(qs)
    assert means == pytest.approx({"A": 16 / 30, "S": 26 / 30})
    normed, _ = _replay_normalised(qs, ["A", "S"], means)
    np.testing.assert_allclose(normed, [[0.6 - 16 / 30, 0.8 - 26 / 30], [0.3 - 16 / 30, 1.0 - 26 / 30],
                                        [0.7 - 16 / 30, 0.8 - 26 / 30]])
    assert list(normed.argmax(axis=1)) == [0, 1, 0]


def test_a_randomised_candidate_is_scored_by_the_played_moves_likelihood(stockfish: str) -> None:
    from evolve.recognition.replay_scores import score_replay

    # Stockfish's Skill Level below 20 draws its move at random among its MultiPV lines: scored by likelihood;
    # at 20 (full strength) and without the option, by matching moves; --likelihood names any other.
    chosen = parse_candidates([f"W=uci:{stockfish}?Skill%20Level=3@nodes=1000,F=uci:{stockfish}?Skill%20Level=20,"
                               f"S=uci:{stockfish}@nodes=1000,E=expert@depth=1"], PLAYERS, likelihood=["E"])
    assert [(c.name, c.score) for c in chosen] == [("W", "likelihood"), ("F", "match"), ("S", "match"),
                                                     ("E", "likelihood")]
    with pytest.raises(SpecError, match="not a candidate: Z"):
        parse_candidates(["E=expert@depth=1"], PLAYERS, likelihood=["Z"])
    # By hand: one side, two positions; the candidate misses the first (its softmax gave the played move 0.5)
    # and matches the second (0.25): by match 1/2, by likelihood (0.5 + 0.25) / 2 = 0.375.
    replayed = {"W": {"side": np.array([0, 0]), "match": np.array([0, 1]), "loglik": np.log([0.5, 0.25]),
                      "rank": np.array([2, 1]), "error": np.array([0, 0])}}
    for score, want in (("match", 0.5), ("likelihood", 0.375)):
        counts, share, _ = score_replay(replayed, [[0]], {"W": score})
        assert counts.tolist() == [2] and share[0, 0] == pytest.approx(want)


def test_a_candidate_limited_by_time_is_asked_only_where_the_exact_ones_disagree(query: Path, tmp_path: Path
                                                                                ) -> None:
    from evolve.recognition.gameset import read_game_set

    # Expert and Material at depth 1 are exact (a depth of their own); T (the expert at 0.01 s a move) is not.
    # Replayed on every position, the exact two both play the played move on some positions (obvious moves); those
    # tell no candidate apart. With `decisive` (the default) every candidate is scored on the rest only, and T is
    # asked nothing else: its positions are exactly those where Expert or Material missed.
    gs = read_game_set([query], list(SPECS), dedupe=False, all_sides=True)
    entries = [(j, gs.games[sd.game][0], gs.games[sd.game][1], sd.color) for j, sd in enumerate(gs.sides)]
    cands = [Candidate(n, s) for n, s in SPECS.items()] + [Candidate("T", "expert@movetime=0.01")]
    full = replay_sides(entries, cands[:2], PLAYERS, decisive=False, use_cache=False)
    both = full["Expert"]["match"].astype(bool) & full["Material"]["match"].astype(bool)
    assert 0 < both.sum() < len(both)  # some positions obvious, some not
    got = replay_sides(entries, cands, PLAYERS, cache=tmp_path)
    want = [(s, p) for s, p, b in zip(full["Expert"]["side"], full["Expert"]["ply"], both, strict=True) if not b]
    for name in ("Expert", "Material", "T"):
        assert list(zip(got[name]["side"], got[name]["ply"], strict=True)) == want, name
    assert got["Expert"]["match"].tolist() == full["Expert"]["match"][~both].tolist()
