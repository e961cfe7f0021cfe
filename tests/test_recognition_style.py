"""Recognition's style features (habits, repertoire, mentor profile) and the classifier over them (issue 25)."""

from __future__ import annotations

import hashlib
import io
import json
import random
import shutil
import zipfile
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.recognition.classifier import (
    ClassifierFileError,
    fit_classifier,
    group_scores,
    load_classifier,
    probabilities,
    save_classifier,
)
from evolve.recognition.families import StyleSettings, feature_names
from evolve.recognition.gameset import read_game_set
from evolve.recognition.profile import STOCKFISH, profile_names, profiles
from evolve.recognition.style import BUCKETS, HABIT_NAMES, habits, ngrams, repertoire
from evolve.recognition.vectors import game_entries, style_features

from .conftest import run_mimic


def moves_of(pgn: str) -> list[str]:
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None
    return [m.uci() for m in game.mainline_moves()]


# 16 plies. White: e4 (pawn), Nf3 (knight), Bb5 (bishop), Bxc6 (bishop, capture), d4 (pawn), Qxd4 (queen, capture),
# Nxd4 (knight, capture), O-O (king; castles at ply 15). Black: e5, Nc6, a6, dxc6 (capture), exd4 (capture), Qxd4
# (queen, capture), Bd7, O-O-O (ply 16). Black's Qxd4 (ply 12) takes White's queen, White's Nxd4 (ply 13) Black's.
OPEN = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. d4 exd4 6. Qxd4 Qxd4 7. Nxd4 Bd7 8. O-O O-O-O *"
MATE = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"


def test_habits_counted_by_hand() -> None:
    h = dict(zip(HABIT_NAMES, habits(chess.STARTING_FEN, moves_of(OPEN), chess.WHITE, 0).tolist(), strict=True))
    # White's 8 moves (see OPEN): 3 captures, no check, 2 pawn, 2 knight, 2 bishop, 0 rook, 1 queen, 1 king move.
    assert [h[n] for n in HABIT_NAMES[:8]] == [3 / 8, 0, 2 / 8, 2 / 8, 2 / 8, 0, 1 / 8, 1 / 8]
    assert (h["habits:castle_ply"], h["habits:castle_king"], h["habits:castle_queen"], h["habits:castle_none"]) \
        == (15, 1, 0, 0)
    assert (h["habits:queens_off_ply"], h["habits:queens_on"], h["habits:game_plies"]) == (13, 0, 16)
    b = dict(zip(HABIT_NAMES, habits(chess.STARTING_FEN, moves_of(OPEN), chess.BLACK, 0).tolist(), strict=True))
    # Black: 3 captures of 8, 4 pawn moves (e5, a6, dxc6, exd4), castles queen-side at ply 16.
    assert (b["habits:captures"], b["habits:pawn_moves"], b["habits:castle_ply"], b["habits:castle_queen"]) \
        == (3 / 8, 4 / 8, 16, 1)
    # --skip-plies 8: White's moves from ply 9 on are d4, Qxd4, Nxd4, O-O: 2 captures of 4, one of each piece.
    s = dict(zip(HABIT_NAMES, habits(chess.STARTING_FEN, moves_of(OPEN), chess.WHITE, 8).tolist(), strict=True))
    assert [s[n] for n in HABIT_NAMES[:8]] == [2 / 4, 0, 1 / 4, 1 / 4, 0, 0, 1 / 4, 1 / 4]
    assert s["habits:castle_ply"] == 15  # castling and the queens are the whole game's, whatever is skipped
    # The scholar's mate: White's 4 moves give one check (the mate), one capture; 2 queen moves; never castles,
    # the queens stay on.
    m = dict(zip(HABIT_NAMES, habits(chess.STARTING_FEN, moves_of(MATE), chess.WHITE, 0).tolist(), strict=True))
    assert (m["habits:checks"], m["habits:captures"], m["habits:queen_moves"]) == (1 / 4, 1 / 4, 2 / 4)
    assert m["habits:castle_none"] == 1 and np.isnan(m["habits:castle_ply"]) and m["habits:queens_on"] == 1
    assert np.isnan(habits(chess.STARTING_FEN, moves_of(MATE), chess.WHITE, 20)[0])  # no move from ply 21 on


def test_repertoire_hashing_is_stable() -> None:
    moves = moves_of(OPEN)
    grams = ngrams(chess.STARTING_FEN, moves, chess.WHITE)
    # White's own moves in the first 12 plies: e4, Nf3, Bb5, Bxc6, d4, Qxd4: 6 + 5 + 4 n-grams of 1, 2, 3 moves.
    assert len(grams) == 15 and grams[0] == "1:e2e4" and grams[6] == "1:e2e4 3:g1f3"
    v = repertoire(chess.STARTING_FEN, moves, chess.WHITE)
    assert v.shape == (BUCKETS,) and v.sum() == 15
    # The bucket is BLAKE2's, recomputed here from hashlib (Python's salted hash() would differ between runs).
    b = int.from_bytes(hashlib.blake2b(b"1:e2e4", digest_size=8).digest(), "little") % BUCKETS
    assert v[b] >= 1
    # Black's moves in plies 13-16 are beyond the opening: the repertoire ignores them.
    assert np.array_equal(repertoire(chess.STARTING_FEN, moves[:12], chess.BLACK),
                          repertoire(chess.STARTING_FEN, moves, chess.BLACK))


# White to move: Qd8 is mate along the back rank; any other move leaves the queen to e5xd4.
BLUNDER = "6k1/5ppp/8/4p3/3Q4/8/5PPP/6K1 w - - 0 1"


@pytest.mark.parametrize("engine,depths", [(STOCKFISH, (1, 2)), ("expert", (1,))])
def test_profile_ranks_a_blunder_and_a_mate(engine: str, depths: tuple[int, ...]) -> None:
    names = profile_names(depths)
    got = dict(profiles([(0, BLUNDER, ["h2h3"], chess.WHITE), (1, BLUNDER, ["d4d8"], chess.WHITE)], 0, engine,
                        depths))
    blunder, mate = (dict(zip(names, got[i].tolist(), strict=True)) for i in (0, 1))
    # One queen and nothing else but pawns: 4 units, the endgame (<= 8). h3 is not among the 3 lines (rank 4 =
    # "beyond them") and costs the mate it missed, capped at 1,000 cp (10 pawns); it is no first nor top-3 choice.
    assert blunder["profile:endgame:share"] == 1 and blunder["profile:endgame:rank"] == 4
    assert blunder["profile:endgame:cp_loss"] == 10.0 and blunder["profile:cp_bin:400"] == 1
    assert all(blunder[f"profile:d{d}:{m}"] == 0 for d in depths for m in ("first", "top3"))
    # Qd8# is the engine's first choice at every depth: rank 1, no loss.
    assert mate["profile:endgame:rank"] == 1 and mate["profile:endgame:cp_loss"] == 0
    assert all(mate[f"profile:d{d}:first"] == 1 for d in depths)
    assert np.isnan(mate["profile:opening:cp_loss"])  # no opening position


def play(rng: random.Random, white: str, black: str, plies: int = 30) -> chess.pgn.Game:
    """A game of two made-up players: a *grabber* takes when it can, a *pusher* pushes a pawn when it can;
    otherwise each plays a random legal move (seeded)."""
    board, game = chess.Board(), chess.pgn.Game()
    game.headers.update(White=white, Black=black, Date=f"2026.01.{rng.randint(1, 28):02d}", Round=str(rng.random()))
    node: chess.pgn.GameNode = game
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        style = white if board.turn == chess.WHITE else black
        liked = [m for m in legal if (board.is_capture(m) if style == "Grabber" else
                                      board.piece_type_at(m.from_square) == chess.PAWN)]
        move = rng.choice(liked or legal)
        node = node.add_variation(move)
        board.push(move)
    game.headers["Result"] = "*"
    return game


@pytest.fixture(scope="module")
def made_up(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(7)
    games = [play(rng, *(("Grabber", "Pusher") if g % 2 else ("Pusher", "Grabber"))) for g in range(24)]
    path = tmp_path_factory.mktemp("style") / "made-up.pgn"
    path.write_text("".join(f"{g}\n\n" for g in games))
    return path


def test_the_classifier_tells_two_players_apart_on_held_out_sides(made_up: Path, tmp_path: Path) -> None:
    players = ["Grabber", "Pusher"]
    gs = read_game_set([made_up], players)
    style = StyleSettings(("repertoire", "habits"), skip_plies=0)
    got = style_features(game_entries(gs, range(len(gs.sides))), style, cache=tmp_path)
    x = np.concatenate([got["repertoire"], got["habits"]], axis=1)
    y = np.array([players.index(s.player or "") for s in gs.sides])
    game = np.array([s.game for s in gs.sides])
    train, val, test = game < 12, (game >= 12) & (game < 16), game >= 16  # by game: 24, 8 and 16 sides
    names = feature_names(players, style)
    clf = fit_classifier(x[train], y[train], x[val], y[val], players, names, style)
    logp = clf.log_probabilities(x[test])
    assert np.allclose(np.exp(logp).sum(axis=1), 1)
    # The grabber's share of captures is far above the pusher's and the pusher's share of pawn moves far above
    # the grabber's (they do what they like whenever they can), so every held-out side is told apart; chance is 8
    # of 16. At least 15: a short side of random moves may be ambiguous.
    assert (logp.argmax(axis=1) == y[test]).sum() >= 15
    # A query of 4 sides sums their log-probabilities; its probabilities sum to 1.
    scores = group_scores(logp, [[0, 2, 4, 6]])
    assert np.isclose(scores[0].sum(), logp[[0, 2, 4, 6]].sum()) and np.isclose(probabilities(scores).sum(), 1)
    # The file: written without pickles, read back the same (the cache too: a second call reads it back).
    save_classifier(tmp_path / "classifier.npz", clf)
    back = load_classifier(tmp_path / "classifier.npz", players)
    assert back.names == names and np.allclose(back.log_probabilities(x[test]), logp)
    again = style_features(game_entries(gs, range(len(gs.sides))), style, cache=tmp_path)
    assert np.array_equal(again["habits"], got["habits"], equal_nan=True)
    with zipfile.ZipFile(tmp_path / "classifier.npz") as z:
        assert sorted(z.namelist()) == sorted(f"{n}.npy" for n in ("header", "coef", "intercept", "mean", "scale",
                                                                     "names"))


def hostile(path: Path, good: Path, **change: object) -> Path:
    """A copy of the classifier file ``good`` with arrays replaced (``header`` given as a dict)."""
    with np.load(good, allow_pickle=False) as npz:
        arrays: dict[str, object] = {k: npz[k] for k in npz.files}
    for k, v in change.items():
        arrays[k] = np.array(json.dumps(v)) if k == "header" else v
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]
    return path


def test_a_hostile_classifier_file_is_refused_in_one_line(tmp_path: Path) -> None:
    players = ["A", "B"]
    style = StyleSettings(("habits",), skip_plies=0)
    names = feature_names(players, style)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(20, len(names))), np.arange(20) % 2
    good = tmp_path / "good.npz"
    save_classifier(good, fit_classifier(x, y, x[:0], y[:0], players, names, style))
    header = load_classifier(good, players).header
    cases = {
        "pickle": hostile(tmp_path / "p.npz", good, coef=np.array([{"a": 1}, None], dtype=object)),
        "shape": hostile(tmp_path / "s.npz", good, coef=np.zeros((2, 3))),
        "nan": hostile(tmp_path / "n.npz", good, mean=np.full(len(names), np.nan)),
        "scale": hostile(tmp_path / "z.npz", good, scale=np.zeros(len(names))),
        "players": hostile(tmp_path / "w.npz", good, header={**header, "players": ["A", "C"]}),
        "families": hostile(tmp_path / "f.npz", good, header={**header, "style": {**header["style"],
                                                                                  "families": ["habits", "x"]}}),
        "names": hostile(tmp_path / "m.npz", good, names=np.array([f"{n}!" for n in names])),
    }
    (tmp_path / "t.npz").write_text("not a zip")
    cases["text"] = tmp_path / "t.npz"
    for what, path in cases.items():
        with pytest.raises(ClassifierFileError) as err:
            load_classifier(path, players)
        message = str(err.value)
        assert message.startswith(f"{path}: ") and "\n" not in message, (what, message)


ENGINES = Path(__file__).resolve().parent.parent / "results" / "recognition-engines"


def test_classify_refuses_a_hostile_classifier_in_one_line(tmp_path: Path) -> None:
    # The shipped engines' clone folder, given a classifier over habits (fitted here on made-up vectors), then
    # that file damaged: classify stops in one line naming it, exit 2, before reading the query.
    folder = tmp_path / "clones"
    folder.mkdir()
    for p in ENGINES.glob("*.json"):
        if p.name in ("recognize.json", "split.json") or p.name.startswith("clone-"):
            shutil.copy(p, folder / p.name)
    manifest = json.loads((folder / "recognize.json").read_text())
    players = manifest["players"]
    style = StyleSettings(("habits",), skip_plies=manifest["settings"]["skip_plies"])
    names = feature_names(players, style)
    y = np.arange(4 * len(players)) % len(players)
    x = np.random.default_rng(1).normal(size=(len(y), len(names)))
    save_classifier(folder / "classifier.npz", fit_classifier(x, y, x[:0], y[:0], players, names, style))
    manifest["classifier"] = {"file": "classifier.npz", "features": ["habits"]}
    (folder / "recognize.json").write_text(json.dumps(manifest))
    query = tmp_path / "q.pgn"
    query.write_text(f'[White "{players[0]}"]\n[Black "{players[1]}"]\n[Result "*"]\n\n{OPEN}\n\n')
    run = run_mimic("recognize", "classify", folder, query, "--no-progress", "--k", "1")
    assert run.returncode == 0, run.stderr
    assert f"{players[0]} " in run.stdout and "%" in run.stdout  # the players' probabilities
    hostile(folder / "classifier.npz", folder / "classifier.npz", coef=np.zeros((1, 1)))
    run = run_mimic("recognize", "classify", folder, tmp_path / "missing.pgn", "--no-progress")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"mimic recognize classify: {folder / 'classifier.npz'}: coef has shape (1, 1), expected "
        f"({len(players)}, {len(names)})"]


def test_an_unusable_profile_engine_is_refused_before_any_work(made_up: Path, tmp_path: Path) -> None:
    text = tmp_path / "engine.txt"
    text.write_text("not an engine")
    for engine, says in ((str(text), "not an executable file"),
                         ("/bin/true", "cannot start it as a UCI engine: engine process died unexpectedly")):
        run = run_mimic("recognize", "train", made_up, "--players", "Grabber,Pusher", "--out", tmp_path / "out",
                        "--profile-engine", engine, "--no-progress")
        assert run.returncode == 2
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"mimic recognize train: --profile-engine {engine}: {says}")
        assert not (tmp_path / "out").exists()  # refused before anything was written
