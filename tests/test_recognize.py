"""``mimic recognize`` (train / classify / experiment) on games whose players are known organisms."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.recognition.classification import group_sides, read_csv_accuracy
from evolve.recognition.gameset import read_game_set, side_player
from evolve.recognition.measures import position_measures, score_groups, side_means
from evolve.recognition.positions import Positions, extract_positions
from evolve.recognition.synthetic import NAMES, SKIP, pgn_text, synthetic_games
from organisms import Organism

from .conftest import run_mimic


def write_pgn(path: Path, games: list[chess.pgn.Game]) -> Path:
    path.write_text("".join(f"{g}\n\n" for g in games))
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("recognize")


SHIPPED = Path(__file__).parent / "data" / "synthetic.pgn"
"""``synthetic_games(35, plies=26)`` as ``pgn_text`` writes it (``python tools/synthetic_games.py
tests/data/synthetic.pgn --games 35 --plies 26``: 10 positions a side after the 6 random plies; generating them
takes seconds, reading them a few ms; the test below checks the file is theirs)."""


@pytest.fixture(scope="module")
def made() -> list[chess.pgn.Game]:
    """35 synthetic games: the first 32 are the training file, the other 3 new games."""
    games = []
    with SHIPPED.open() as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            games.append(game)
    assert len(games) == 35
    return games


def test_the_shipped_synthetic_games_are_the_generators() -> None:
    # The generator is seeded and each game draws from one generator in turn, so its first 2 games are the file's
    # first 2 (tests/test_readme_examples.py checks that a shorter run is a prefix of a longer one).
    text = SHIPPED.read_text()
    first_two = pgn_text(synthetic_games(2, plies=26))
    assert text.startswith(first_two) and text.count("[Event ") == 35


@pytest.fixture(scope="module")
def games(folder: Path, made: list[chess.pgn.Game]) -> Path:
    return write_pgn(folder / "synthetic.pgn", made[:32])


def env(folder: Path) -> dict[str, str]:
    return {"MIMIC_CACHE": str(folder / "cache"), "PATH": "/usr/bin:/bin"}


GA = ["--population", "24", "--generations", "25", "--sample", "400", "--seed", "3", "--no-progress"]


@pytest.fixture(scope="module")
def experiment(folder: Path, games: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One ``recognize experiment`` on the synthetic games (its folder is also a trained DIR)."""
    out = folder / "exp"
    run = run_mimic("recognize", "experiment", str(games), "--players", "Alpha,Beta", "--out", str(out),
                    "--skip-plies", str(SKIP), "--test", "0.3", "--validation", "0.2", "--cp-positions", "4",
                    "--features", "clones,habits,repertoire", *GA,
                    env=env(folder))
    assert run.returncode == 0, run.stderr
    return out, run


def test_the_generating_organisms_are_clearly_different(games: Path, folder: Path) -> None:
    # Alpha's own organism, scored by the vectorised choice the clones use, agrees with Alpha's moves (it made
    # them; only rounding of Organism.evaluate to whole cp can differ): >= 95%. It agrees with Beta's moves far
    # less: the two random organisms weigh every term differently.
    gs = read_game_set([games], ["Alpha", "Beta"])
    assert len(gs.games) == 32 and len(gs.sides) == 64
    alpha = [i for i, s in enumerate(gs.sides) if s.player == "Alpha"]
    beta = [i for i, s in enumerate(gs.sides) if s.player == "Beta"]
    w = np.array([Organism.random(1).weights, Organism.random(2).weights])
    for sides, own in ((alpha[:8], 0), (beta[:8], 1)):  # 8 sides (80 positions) each: enough, and quick
        pos = extract_positions(gs, sides, SKIP, "paper", cache_dir=folder / "cache")
        vals, _ = position_measures(w, np.ones(2), pos, "agreement")
        rates = vals.mean(axis=1)
        assert rates[own] >= 0.95 and rates[1 - own] <= 0.6, rates


def test_train_and_classify_held_out_sides(experiment: tuple[Path, subprocess.CompletedProcess[str]],
                                           made: list[chess.pgn.Game], games: Path, folder: Path) -> None:
    out, _ = experiment
    manifest = json.loads((out / "recognize.json").read_text())
    assert manifest["players"] == ["Alpha", "Beta"]
    assert {"clone-Alpha.json", "clone-Beta.json", "shared.json"} <= {p.name for p in out.iterdir()}
    assert manifest["provenance"]["mimic_version"] and "recognize experiment" in manifest["command"]
    # The held-out test games, as a query file of their own (split.json lists the games in file order).
    split = json.loads((out / "split.json").read_text())
    test_games = [g for g, entry in zip(made[:32], split["games"], strict=True) if entry["part"] == "test"]
    assert len(test_games) == round(32 * 0.3)  # 10 games: 20 game sides
    query = write_pgn(folder / "test-games.pgn", test_games)
    run = run_mimic("recognize", "classify", str(out), str(query), "--csv", str(folder / "q.csv"), "--method",
                    "clones", env=env(folder))  # the clones: the method the bound below reasons about
    assert run.returncode == 0, run.stderr
    with open(folder / "q.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 20 and {r["player"] for r in rows} == {"Alpha", "Beta"}
    right = sum(r["predicted"] == r["player"] for r in rows)
    # The bound: each clone agrees with its player on ~90% of held-out positions and with the other player on
    # far fewer (the test above: the organisms themselves agree <= 60%), so a side of >= ~10 positions is
    # told apart by a wide margin. A side can be short (a random organism blunders into mate a few moves after
    # the random opening): on a handful of positions one unlucky move can flip it. So: at least 17 of 20.
    assert right >= 17, [(r["player"], r["predicted"], r["positions"]) for r in rows]
    for player in ("Alpha", "Beta"):  # and most of each player's
        mine = [r for r in rows if r["player"] == player]
        assert sum(r["predicted"] == player for r in mine) >= 8
    assert "top-1 accuracy on the 20 queries" in run.stdout
    assert "were training or validation games" not in run.stderr
    # The whole file as a query: 22 of its games (16 training, 6 validation) are not held out, and it says so.
    run = run_mimic("recognize", "classify", str(out), str(games), "--k", "all", env=env(folder))
    assert run.returncode == 0, run.stderr
    assert f"{games}: 22 of its 32 games were training or validation games" in run.stderr
    assert "2 queries of" in run.stdout  # --k all: one query per player
    # --held-out on the whole file: only its 10 test games' 20 sides are queried, as from test-games.pgn above.
    run = run_mimic("recognize", "classify", str(out), str(games), "--held-out", "--csv", str(folder / "h.csv"),
                    "--method", "clones", env=env(folder))
    assert run.returncode == 0, run.stderr
    assert "were training or validation games" not in run.stderr
    with open(folder / "h.csv", newline="") as fh:
        held = list(csv.DictReader(fh))
    assert sorted((r["player"], r["predicted"]) for r in held) == sorted((r["player"], r["predicted"]) for r in rows)
    # --norm query: each clone is measured against its own average on the query file's players, so with one query
    # per player (--k all) every clone's scores over the two players average to 0 by construction; and the
    # held-out sides are still told apart (each clone explains its own player's moves best, as above).
    run = run_mimic("recognize", "classify", str(out), str(query), "--k", "all", "--norm", "query", "--csv",
                    str(folder / "n.csv"), "--method", "clones", env=env(folder))
    assert run.returncode == 0, run.stderr
    assert "the query file's players (--norm query)" in run.stdout
    with open(folder / "n.csv", newline="") as fh:
        normed = list(csv.DictReader(fh))
    assert sorted(r["player"] for r in normed) == ["Alpha", "Beta"]
    for clone in ("Alpha", "Beta"):
        assert abs(sum(float(r[f"score:{clone}"]) for r in normed)) < 1e-9
    assert all(r["predicted"] == r["player"] for r in normed)


def test_the_summary_has_a_row_per_method_with_binomial_intervals(
        experiment: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    from scipy.stats import binomtest

    out, run = experiment
    summary = (out / "summary.md").read_text()
    # The experiment asked for the clones, habits and repertoire families: one classifier row for each alone, one
    # for all but each (three families), one for all of them, beside chance, the centipawn-loss profile, the clones
    # and the shared organism.
    start = summary.index("| method |")
    table = summary[start:summary.index("\n\n", start)]
    names = re.findall(r"^\| ([^|]+?) \| ", table, flags=re.M)
    assert names == ["method", "chance", "centipawn-loss profile", "personal clones", "one shared organism",
                     "classifier, clones alone", "classifier, habits alone", "classifier, repertoire alone",
                     "classifier, all but clones", "classifier, all but habits", "classifier, all but repertoire",
                     "classifier, all families"], names
    # The interval of the clones' top-1 at k = 1 is the exact binomial one of its count (20 queries, as above).
    cell = re.search(r"^\| personal clones \| ([\d.]+)% \[(\d+)%–(\d+)%\]", table, flags=re.M)
    assert cell is not None
    share = float(cell.group(1)) / 100
    ci = binomtest(round(share * 20), 20).proportion_ci(confidence_level=0.95)
    assert (int(cell.group(2)), int(cell.group(3))) == (round(ci.low * 100), round(ci.high * 100))
    assert "classifier" in run.stdout


def test_csv_columns_and_accuracy_recount_equal_the_summary(
        experiment: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, run = experiment
    summary = (out / "summary.md").read_text()
    assert "recognize experiment" in summary and "centipawn-loss profile" in summary
    assert (out / "confusion.png").stat().st_size > 0 and (out / "accuracy.png").stat().st_size > 0
    for k in ("1", "4", "16", "all"):
        path = out / f"queries-k{k}.csv"
        with open(path, newline="") as fh:
            reader = csv.DictReader(fh)
            rows = list(reader)
            assert reader.fieldnames is not None
            assert {"player", "predicted", "score:Alpha", "score:Beta"} <= set(reader.fieldnames)
        line = re.search(rf"^\| {k} \| (\d+) \| ([^|]+) \|", summary, flags=re.M)
        assert line is not None, k
        n = int(line.group(1))
        assert n == sum(int(r["positions"]) > 0 for r in rows)
        if not n:
            assert line.group(2).strip() == "– / –"
            continue
        # Top-1 recounted by hand from the columns: the predicted player is the one with the highest score.
        for r in rows:
            scores = {p: float(r[f"score:{p}"]) for p in ("Alpha", "Beta")}
            assert r["predicted"] == max(scores, key=lambda p: (scores[p], p == "Alpha"))
        top1 = sum(r["predicted"] == r["player"] for r in rows) / n
        top3 = 1.0  # two players: the true one is always in the top 3
        assert line.group(2).strip() == f"{top1:.1%} / {top3:.1%}"
        assert read_csv_accuracy(path) == (top1, top3, n)
    # 32 games, 30% test: 10 test games, each with one side of each player -> 10 sides a player:
    # k=1: 20 queries; k=4: 2 full groups a player (the last 2 sides dropped) -> 4; k=16: none; all: 2.
    assert [int(re.search(rf"^\| {k} \| (\d+)", summary, flags=re.M).group(1))  # type: ignore[union-attr]
            for k in ("1", "4", "16", "all")] == [20, 4, 0, 2]
    assert "k = 1: 20 queries" in run.stdout


def test_normalisation_stops_a_clone_that_agrees_with_everyone() -> None:
    # Two players, two game sides each, 10 positions a side; 0/1 agreement of two clones at every position.
    # Clone 0 (a strong organism) agrees with player 0's moves on 8 of 10 and with player 1's on 7 of 10;
    # clone 1 (player 1's own, weaker) agrees with player 0's on 2 of 10 and player 1's on 6 of 10.
    side_of = np.repeat(np.arange(4), 10)  # sides 0, 1: player 0's; sides 2, 3: player 1's

    def agree(k: int) -> list[float]:
        return [1.0] * k + [0.0] * (10 - k)

    vals = np.array([agree(8) * 2 + agree(7) * 2, agree(2) * 2 + agree(6) * 2])
    # Validation sides: side 0 (player 0), side 2 (player 1). Normalisation = mean over players of the clone's
    # mean there: clone 0: (0.8 + 0.7) / 2 = 0.75; clone 1: (0.2 + 0.6) / 2 = 0.4.
    normal = np.nanmean(side_means(vals, side_of, [[0], [2]]), axis=1)
    np.testing.assert_allclose(normal, [0.75, 0.4])
    # Queries: side 1 (player 0) and side 3 (player 1). Raw, clone 0 wins both (0.8 > 0.2 and 0.7 > 0.6).
    raw = side_means(vals, side_of, [[1], [3]]).T
    assert list(raw.argmax(axis=1)) == [0, 0]
    # Normalised: side 1: 0.8 - 0.75 = +0.05 against 0.2 - 0.4 = -0.2 -> clone 0; side 3: 0.7 - 0.75 = -0.05
    # against 0.6 - 0.4 = +0.2 -> clone 1. Each query goes to its player's clone.
    scores = score_groups(vals, side_of, [[1], [3]], normal)
    np.testing.assert_allclose(scores, [[0.05, -0.2], [-0.05, 0.2]], atol=1e-12)
    assert list(scores.argmax(axis=1)) == [0, 1]


def test_normalisation_in_the_manifest_is_the_mean_over_players(
        experiment: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    manifest = json.loads((experiment[0] / "recognize.json").read_text())
    for p in ("Alpha", "Beta"):
        c = manifest["clones"][p]
        by_player = c["validation_measure_by_player"]
        assert c["normalisation"] == pytest.approx(np.mean(list(by_player.values())))
        # Each clone explains its own player's validation moves better than the other's.
        other = "Beta" if p == "Alpha" else "Alpha"
        assert by_player[p] > by_player[other]


def test_names_aliases_and_duplicates(folder: Path, games: Path, made: list[chess.pgn.Game]) -> None:
    assert side_player("Alpha, Ann", ["Alpha", "Beta"], {}) == ["Alpha"]
    assert side_player("Alphabet, Z", ["Alpha"], {}) == []  # never a substring
    assert side_player("A. Alpha", ["Alpha", "Beta"], {"Alpha": ["a.  alpha"]}) == ["Alpha"]  # case, spaces
    assert side_player("A. Alpha", ["Alpha", "Beta"], {}) == []
    # --exclude: a namesake's header (real lines of data/player-games/Anand.pgn) names nobody; the others still do.
    assert side_player("Anand,Vignesh", ["Anand", "Tal"], {}) == ["Anand"]
    assert side_player("Anand,Vignesh", ["Anand", "Tal"], {}, exclude=["anand, vignesh"]) == []
    assert side_player("Anand,V", ["Anand", "Tal"], {}, exclude=["Anand,Vignesh"]) == ["Anand"]
    # A second file holds the first 8 games again (one of them with Alpha renamed "A. Alpha") and 2 new games:
    # the repeated games count once (the key is Date, Result, start and moves, not names): 42 read, 8 duplicates.
    more = made[:8] + made[32:34]
    copy = chess.pgn.read_game(io.StringIO(str(more[0])))
    assert copy is not None
    copy.headers["White" if copy.headers["White"] == NAMES[0] else "Black"] = "A. Alpha"
    other = write_pgn(folder / "other.pgn", [copy, *more[1:]])
    gs = read_game_set([games, other], ["Alpha", "Beta"], {"Alpha": ["A. Alpha"]})
    assert gs.read == 42 and gs.duplicates == 8 and len(gs.games) == 34 and len(gs.sides) == 68
    assert read_game_set([other, games], ["Alpha", "Beta"]).duplicates == 8  # whichever file comes first
    # The alias matters for a new game: with it both sides count, without it only Beta's.
    renamed = chess.pgn.read_game(io.StringIO(str(made[34])))
    assert renamed is not None
    renamed.headers["White" if renamed.headers["White"] == NAMES[0] else "Black"] = "A. Alpha"
    third = write_pgn(folder / "third.pgn", [renamed])
    assert sorted(str(s.player) for s in read_game_set([third], ["Alpha", "Beta"], {"Alpha": ["A. Alpha"]}).sides) \
        == ["Alpha", "Beta"]
    assert [s.player for s in read_game_set([third], ["Alpha", "Beta"]).sides] == ["Beta"]
    # A side that names two of the trained players is left out and counted.
    both = read_game_set([third], ["Beta", "Beta, Bob"])
    assert both.ambiguous == 1 and both.sides == []


def test_the_split_has_no_game_in_two_parts(experiment: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    split = json.loads((experiment[0] / "split.json").read_text())
    part = {g["key"]: g["part"] for g in split["games"]}
    assert len(part) == len(split["games"]) == 32  # each game once
    assert sorted(p for p in part.values()).count("test") == round(32 * 0.3)
    for player, parts in split["sides"].items():
        for name, sides in parts.items():
            assert all(part[s["game"]] == name for s in sides), (player, name)
    # A game's two sides (one Alpha's, one Beta's) are in the same part: no game's positions in two parts.
    seen: dict[str, set[str]] = {}
    for parts in split["sides"].values():
        for name, sides in parts.items():
            for s in sides:
                seen.setdefault(s["game"], set()).add(name)
    assert all(len(v) == 1 for v in seen.values())


def test_group_sides_doctests() -> None:
    import doctest

    from evolve.recognition import baselines, classification, gameset, measures, training

    results = [doctest.testmod(m) for m in (baselines, classification, gameset, measures, training)]
    assert sum(r.attempted for r in results) >= 6 and sum(r.failed for r in results) == 0
    assert group_sides(["a"] * 5, 4) == [[0, 1, 2, 3]]


def truncated(game: chess.pgn.Game, plies: int) -> chess.pgn.Game:
    """A copy of ``game`` (its headers) with its first ``plies`` moves only."""
    out = chess.pgn.Game()
    out.headers.update(game.headers)
    node: chess.pgn.GameNode = out
    for move in list(game.mainline_moves())[:plies]:
        node = node.add_variation(move)
    return out


def with_bad_game(good: list[chess.pgn.Game]) -> tuple[str, int]:
    """Two good games around a malformed one (an illegal king move), as PGN text, and the bad game's first line."""
    text = f"{good[0]}\n\n"
    bad_line = text.count("\n") + 1
    text += '[Event "bad"]\n[White "Alpha, Ann"]\n[Black "Beta, Bob"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n'
    return text + f"{good[1]}\n\n", bad_line


def test_malformed_game_is_reported_and_classification_goes_on(
        experiment: tuple[Path, subprocess.CompletedProcess[str]], folder: Path, made: list[chess.pgn.Game]) -> None:
    out, _ = experiment
    text, bad_line = with_bad_game(made[32:34])
    query = folder / "with-bad.pgn"
    query.write_text(text)
    run = run_mimic("recognize", "classify", str(out), str(query), "--csv", str(folder / "b.csv"), env=env(folder))
    assert run.returncode == 0, run.stderr
    assert f"{query}:{bad_line}: " in run.stderr
    with open(folder / "b.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 4  # both good games' sides, classified


def test_a_player_without_games_is_one_line(folder: Path, games: Path) -> None:
    run = run_mimic("recognize", "train", str(games), "--players", "Alpha,Tal", "--out", str(folder / "none"), *GA,
                    env=env(folder))
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [f"mimic recognize train: no games of player 'Tal' in {games}"]


def test_positions_subset_keeps_children(folder: Path, games: Path) -> None:
    from evolve.recognition.positions import subset

    gs = read_game_set([games], ["Alpha", "Beta"])
    pos = extract_positions(gs, [0, 1, 2], SKIP, "paper", cache_dir=folder / "cache")
    rows = np.array([1, 3, 4])
    sub = subset(pos, rows)
    assert isinstance(sub, Positions) and sub.n == 3
    for j, i in enumerate(rows):
        a, b = pos.offsets[i], pos.offsets[i + 1]
        np.testing.assert_array_equal(sub.features[sub.offsets[j]:sub.offsets[j + 1]], pos.features[a:b])
        assert sub.played[j] - sub.offsets[j] == pos.played[i] - a


QUEEN_HANGS = "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1"
"""White: Ke1, Qd1; Black: Ke8, pawns d5 and e6 (e6 guards d5)."""


def test_centipawn_loss_of_a_hung_queen() -> None:
    from evolve.recognition.baselines import CP_CAP, cp_histogram, cp_losses
    from organisms import Expert
    from search.base import Limit
    from search.engine import Engine

    # Qxd5 wins a pawn and loses the queen to exd5: a safe queen move keeps White about a queen up, Qxd5 leaves
    # K against K+P. The loss is about a queen less a pawn (877 cp measured: the expert's queen and pawn values
    # and their squares), far beyond the last bin's 400 cp, under the 1,000 cp cap.
    [(side, losses)] = cp_losses([(7, QUEEN_HANGS, ["d1d5"], chess.WHITE)], 0, "expert@depth=1")
    assert side == 7 and len(losses) == 1 and 600 <= losses[0] <= CP_CAP
    assert cp_histogram(losses)[-1] == 1.0
    # The mentor's own move loses nothing (the same search, the same depth).
    best = Engine(Expert()).search(chess.Board(QUEEN_HANGS), Limit(depth=1)).move
    assert best is not None
    assert cp_losses([(0, QUEEN_HANGS, [best.uci()], chess.WHITE)], 0, "expert@depth=1") == [(0, [0])]
    # Black's moves are not White's: a side only counts its own colour's moves.
    assert cp_losses([(0, QUEEN_HANGS, ["d1d5"], chess.BLACK)], 0, "expert") == [(0, [])]
    with pytest.raises(ValueError, match="one of our evaluators"):
        cp_losses([], 0, "uci:/usr/games/stockfish")
    # @search= is the mentor's search. In this WAC position the probability-limited search (2 iterations) plays
    # Qc4 where the depth-2 search plays Rg3, which it scores 159 cp better (measured once): with @search=prob the
    # mentor's own move must lose nothing, as under a depth mentor its own move does.
    from search.prob import ProbEngine
    fen = "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1"
    prob = ProbEngine(Expert()).search(chess.Board(fen), Limit(depth=2)).move
    assert prob is not None and Engine(Expert()).search(chess.Board(fen), Limit(depth=2)).move != prob
    assert cp_losses([(0, fen, [prob.uci()], chess.WHITE)], 0, "expert@search=prob@depth=2") == [(0, [0])]
    assert cp_losses([(0, fen, [prob.uci()], chess.WHITE)], 0, "expert@depth=2")[0][1][0] > 0


def test_training_work_pickles_for_workers(folder: Path, games: Path) -> None:
    # --jobs > 1 sends (positions, rows, settings) to loky workers: everything must pickle and train the same.
    import pickle

    from evolve.ga.evolution import GASettings
    from evolve.recognition.training import _train_one

    gs = read_game_set([games], ["Alpha", "Beta"])
    pos = extract_positions(gs, [0, 2, 4], SKIP, "paper", cache_dir=folder / "cache" / "features")
    args = (pos, np.arange(pos.n // 2), np.arange(pos.n // 2, pos.n), "paper", "gray",
            GASettings(population=8, generations=2, sample=50), "agreement")
    again = pickle.loads(pickle.dumps(args))
    a, b = _train_one(*args), _train_one(*again)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1:] == b[1:]


def test_resolved_sides_are_cached(folder: Path, games: Path) -> None:
    gs = read_game_set([games], ["Alpha", "Beta"])
    cache = folder / "cache-sides" / "features"
    first = extract_positions(gs, [5, 6], SKIP, "paper", cache_dir=cache)
    files = list((folder / "cache-sides" / "moves").glob("sides-*.npz"))
    assert len(files) == 1
    again = extract_positions(gs, [5, 6], SKIP, "paper", cache_dir=cache)
    for name in ("features", "sign", "fixed", "offsets", "played", "side"):
        np.testing.assert_array_equal(getattr(again, name), getattr(first, name))
    # Other sides, or the same sides in another order, are another key.
    extract_positions(gs, [6, 5], SKIP, "paper", cache_dir=cache)
    assert len(list((folder / "cache-sides" / "moves").glob("sides-*.npz"))) == 2
    uncached = extract_positions(gs, [5, 6], SKIP, "paper", cache_dir=cache, use_cache=False)
    np.testing.assert_array_equal(uncached.played, first.played)


def test_equal_training_data_per_player(folder: Path, made: list[chess.pgn.Game]) -> None:
    from evolve.ga.evolution import GASettings
    from evolve.recognition.settings import RecognizeSettings as TrainSettings
    from evolve.recognition.training import train

    # 10 games of Alpha against Beta, and 3 where Beta's seat is taken by "Gamma": Alpha has 13 sides, Beta 10 (the
    # caps count sides, not games: 13 games instead of 18 still leave Alpha ahead of Beta, both above the cap of 3,
    # and every player with 2 or more validation and test sides for --max-held 1 to cut; resolving is the time).
    # Each game cut after SKIP + 6 plies (3 positions a side): the caps count sides, and resolving is the time.
    cut = [truncated(g, SKIP + 6) for g in made[:13]]
    extra = cut[10:13]
    for g in extra:
        g.headers["White" if g.headers["White"] == NAMES[1] else "Black"] = "Gamma, Gil"
    pgn = write_pgn(folder / "unequal.pgn", cut)
    ga = GASettings(population=8, generations=2, sample=100)
    common = {"games": (str(pgn),), "players": ("Alpha", "Beta"), "ga": ga, "skip_plies": SKIP, "shared": False,
              "features": ()}
    equal = train(TrainSettings(out=str(folder / "equal"), **common), "test", cache_dir=folder / "cache" / "features")
    c = equal.manifest["clones"]
    before = {p: c[p]["train_sides_before_cap"] for p in ("Alpha", "Beta")}
    assert before["Alpha"] > before["Beta"]  # Alpha plays in the 3 extra games too (some of them in training)
    # Default: as many training sides as the player with the fewest has, for everyone.
    assert c["Alpha"]["train_sides"] == c["Beta"]["train_sides"] == before["Beta"]
    assert equal.manifest["settings"]["max_games_applied"] == before["Beta"]
    everything = train(TrainSettings(out=str(folder / "all"), max_games=0, **common), "test",
                       cache_dir=folder / "cache" / "features")
    assert {p: everything.manifest["clones"][p]["train_sides"] for p in ("Alpha", "Beta")} == before
    capped = train(TrainSettings(out=str(folder / "three"), max_games=3, **common), "test",
                   cache_dir=folder / "cache" / "features")
    assert [capped.manifest["clones"][p]["train_sides"] for p in ("Alpha", "Beta")] == [3, 3]
    split = json.loads((folder / "three" / "split.json").read_text())
    assert [len(split["sides"][p]["train"]) for p in ("Alpha", "Beta")] == [3, 3]
    # --max-held 1: one validation and one test side per player at most, chosen among that player's own
    # validation / test sides of the uncapped run (same seed, same split by game).
    held = train(TrainSettings(out=str(folder / "held"), max_held=1, **common), "test",
                 cache_dir=folder / "cache" / "features")
    split_all = json.loads((folder / "equal" / "split.json").read_text())
    split_held = json.loads((folder / "held" / "split.json").read_text())
    for p in ("Alpha", "Beta"):
        assert held.manifest["clones"][p]["train_sides"] == c[p]["train_sides"]
        for k in ("validation", "test"):
            assert len(split_held["sides"][p][k]) == min(1, len(split_all["sides"][p][k]))
            assert all(s in split_all["sides"][p][k] for s in split_held["sides"][p][k])


def test_evolved_clones_are_cached(folder: Path, made: list[chess.pgn.Game]) -> None:
    # The GA is deterministic in its inputs: a second train on the same sides and settings reads each organism back
    # (the cache files are not written again) and writes the same clones; another seed is another key.
    from evolve.ga.evolution import GASettings
    from evolve.recognition.settings import RecognizeSettings as TrainSettings
    from evolve.recognition.training import train

    games = write_pgn(folder / "short.pgn", [truncated(g, SKIP + 6) for g in made[:32]])  # 3 positions a side
    cache = folder / "cache-clones" / "features"
    common = {"games": (str(games),), "players": ("Alpha", "Beta"), "skip_plies": SKIP, "shared": False,
              "features": (), "max_held": 2, "max_games": 4}
    first = train(TrainSettings(out=str(folder / "c1"), ga=GASettings(population=8, generations=2, sample=100),
                                **common), "test", cache_dir=cache)
    files = sorted((folder / "cache-clones" / "clones").glob("clone-*.npz"))
    assert len(files) == 2
    stamps = [f.stat().st_mtime_ns for f in files]
    again = train(TrainSettings(out=str(folder / "c2"), ga=GASettings(population=8, generations=2, sample=100),
                                **common), "test", cache_dir=cache)
    assert [f.stat().st_mtime_ns for f in files] == stamps
    np.testing.assert_array_equal(again.weights, first.weights)
    for p in ("Alpha", "Beta"):
        assert (folder / "c1" / f"clone-{p}.json").read_text().replace("c1", "") == \
            (folder / "c2" / f"clone-{p}.json").read_text().replace("c2", "")
    train(TrainSettings(out=str(folder / "c3"), ga=GASettings(population=8, generations=2, sample=100, seed=5),
                        **common), "test", cache_dir=cache)
    assert len(list((folder / "cache-clones" / "clones").glob("clone-*.npz"))) == 4


def test_parsed_games_are_cached_and_malformed_ones_reported_again(folder: Path, made: list[chess.pgn.Game]) -> None:
    # Two good games around a malformed one (an illegal king move): the first read parses and stores the file, the
    # second reads it back: the same games, keys, sources and sides, the bad game reported and counted again. A
    # changed file is another key (the third game appears).
    text, bad_line = with_bad_game(made[:2])
    pgn = folder / "cached-games.pgn"
    pgn.write_text(text)
    cache = folder / "cache-games"
    reads, stamps = [], []
    for _ in range(2):
        errors: list[str] = []
        reads.append((read_game_set([pgn], ["Alpha", "Beta"], on_error=errors.append, cache=cache), errors))
        stamps.append([f.stat().st_mtime_ns for f in cache.glob("games-*.npz")])
    assert len(stamps[0]) == 1 and stamps[1] == stamps[0]  # read back, not parsed and written again
    (first, first_errors), (again, again_errors) = reads
    assert first_errors == again_errors and len(again_errors) == 1 and f"{pgn}:{bad_line}: " in again_errors[0]
    assert again.malformed == first.malformed == 1 and again.read == first.read == 2
    assert again.games == first.games and again.keys == first.keys and again.sources == first.sources
    assert again.sides == first.sides and [s.player for s in again.sides] == ["Alpha", "Beta", "Beta", "Alpha"]
    assert again.games[0][1] == [m.uci() for m in made[0].mainline_moves()]
    pgn.write_text(text + f"{made[2]}\n\n")
    assert read_game_set([pgn], ["Alpha", "Beta"], on_error=lambda m: None, cache=cache).read == 3
    assert len(list(cache.glob("games-*.npz"))) == 2


def test_classifying_nothing_is_one_line_and_exit_2(experiment: tuple[Path, subprocess.CompletedProcess[str]],
                                                    folder: Path, games: Path) -> None:
    # Issue 36: an empty PGN, a comment-only one, or --k above every player's sides answered "0 queries", exit 0.
    out, _ = experiment
    empty, comments = folder / "empty.pgn", folder / "comments.pgn"
    empty.write_text("")
    comments.write_text("; a comment line\n{ a brace comment }\n")
    cases = [((empty,), "no game sides to classify"),
             ((comments,), "no positions to classify (no game in it is longer"),  # read as one game of no moves
             ((games, "--k", "40"), "no player has 40 game sides (--k 40; the most any has is 32)")]
    for method in ("clones", "features"):
        for args, says in cases:
            run = run_mimic("recognize", "classify", str(out), *map(str, args), "--method", method, "--no-progress",
                           env=env(folder))
            assert run.returncode == 2 and says in run.stderr, run.stderr
            assert len(run.stderr.strip().splitlines()) == 1 and run.stdout == ""
