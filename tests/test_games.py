"""``mimic games``: a round robin between player specs into one PGN, with real players and files.

material, expert and random:1 at depth 1 play deterministic games (no clock, no threads), so a run
that is interrupted and resumed must end with the same games as one that was not.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import pytest

from evolve.players import PLAYERS
from search.games.openings import Opening, default_openings_path, load_openings
from search.games.pgnlog import read_pgn_text
from search.games.roundrobin import RoundRobinSettings, default_name, schedule

from .conftest import CliRunner, mimic_command, run_mimic, sigkill_at_line

THREE = ["material@depth=1", "expert@depth=1", "random:1@depth=1"]
SHORT = ["--max-plies", "40"]
"""Games cut at 40 plies (a draw by maximum length unless a rule or resignation came first): the one long game
of these players, random:1 against material, otherwise runs to 172 plies; a game set's resume counts games."""
COMMON = [*THREE, "--names", "Mat,Exp,Rnd", "--depth", "1", *SHORT]


def _by_round(path: Path) -> dict[str, tuple[object, ...]]:
    """Round -> (White, Black, Result, Termination, Opening, moves) of every game, each parsed without
    error and its round seen once (times in comments and the date are left out)."""
    out: dict[str, tuple[object, ...]] = {}
    for game in read_pgn_text(path.read_text()):
        h = game.headers
        assert not game.errors, game.errors
        assert h["Round"] not in out, f"round {h['Round']} twice"
        out[h["Round"]] = (h["White"], h["Black"], h["Result"], h["Termination"], h["Opening"],
                           [m.uci() for m in game.mainline_moves()])
    return out


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The PGN and the console output of one uninterrupted game set of THREE at depth 1, 3 games a pairing
    (9 games), shared by the tests of this file (they only read it). The players are deterministic: its rounds
    P.1.1 and P.1.2 are the games of a 2-game set."""
    out = tmp_path_factory.mktemp("full") / "full.pgn"
    run = run_mimic("games", *COMMON, "--games", "3", "--out", str(out), check=True)
    return out, run.stdout


def test_schedule_is_opening_major_with_colours_swapped() -> None:
    # 3 players -> pairings 1 = (A, B), 2 = (A, C), 3 = (B, C); 3 games a pairing -> openings 1, 1, 2
    # (match's schedule: k.1 first player White, k.2 colours swapped). Opening-major order: every
    # pairing's opening-1 games, then every pairing's opening-2 game.
    s = RoundRobinSettings(players=("a", "b", "c"), names=("A", "B", "C"), games=3,
                           openings=[Opening("o1"), Opening("o2", moves=("e2e4",))])
    assert [(r, w, b, o.name) for r, w, b, o in schedule(s)] == [
        ("1.1.1", "a", "b", "o1"), ("2.1.1", "a", "c", "o1"), ("3.1.1", "b", "c", "o1"),
        ("1.1.2", "b", "a", "o1"), ("2.1.2", "c", "a", "o1"), ("3.1.2", "c", "b", "o1"),
        ("1.2.1", "a", "b", "o2"), ("2.2.1", "a", "c", "o2"), ("3.2.1", "b", "c", "o2")]


def test_default_names_are_readable_and_have_no_comma() -> None:
    cases = {
        "expert": "expert",
        "random:1@depth=1": "random-1 depth=1",
        "organism:results/demo/organism.json": "demo",
        "organism:champs/tal.json@nodes=500": "tal nodes=500",
        "uci:/usr/games/stockfish?Skill%20Level=3@movetime=0.05": "stockfish Skill Level=3 movetime=0.05",
        "xboard:/usr/games/phalanx": "phalanx",
        "uci:/x/eng?A=1,2": "eng A=1;2",
    }
    assert {text: default_name(PLAYERS.parse(text)) for text in cases} == cases


def test_games_writes_every_pairing_to_one_pgn(full: tuple[Path, str]) -> None:
    out, stdout = full
    games = read_pgn_text(out.read_text())
    # 3 players -> 3 pairings x 3 games = 9 games: each pairing plays the first shipped opening once with each
    # colour, rounds P.1.1 (first-named player White) and P.1.2 (colours swapped), then the second opening with
    # the first-named player White, P.2.1.
    assert len(games) == 9
    openings = load_openings(default_openings_path())[:2]
    pairs: Counter[tuple[str, str]] = Counter()
    for game in games:
        h = game.headers
        assert not game.errors
        pairs[(h["White"], h["Black"])] += 1
        opening = openings[int(h["Round"].split(".")[1]) - 1]
        assert h["Opening"] == opening.name and h["FEN"] == opening.fen
        board = game.board()
        for move in game.mainline_moves():
            assert move in board.legal_moves, f"round {h['Round']}: {move} illegal"
            board.push(move)
        outcome = board.outcome(claim_draw=True)
        if h["Termination"] == "normal":  # the game ended on the board: the result is the board's
            assert outcome is not None and outcome.result() == h["Result"], h["Round"]
        else:  # adjudicated (resign rule, or max plies): the result comes from the players' scores
            assert h["Termination"] == "adjudication", h["Round"]
        if board.is_checkmate():  # the side to move is mated, whatever ended the game
            assert h["Result"] == ("0-1" if board.turn == chess.WHITE else "1-0"), h["Round"]
    assert pairs == {("Mat", "Exp"): 2, ("Exp", "Mat"): 1, ("Mat", "Rnd"): 2, ("Rnd", "Mat"): 1, ("Exp", "Rnd"): 2,
                     ("Rnd", "Exp"): 1}
    assert sorted(_by_round(out)) == [f"{p}.{r}" for p in (1, 2, 3) for r in ("1.1", "1.2", "2.1")]
    # The score table recounts from the PGN: 9 games give 9 points in all, 6 games a player (2 pairings x 3).
    points: Counter[str] = Counter()
    for game in games:
        white = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[game.headers["Result"]]
        points[game.headers["White"]] += white
        points[game.headers["Black"]] += 1 - white
    table = {line.split()[1]: line.split() for line in stdout.splitlines() if line[:4].strip().isdigit()}
    assert set(table) == {"Mat", "Exp", "Rnd"}
    for name, row in table.items():
        assert int(row[2]) == 6 and float(row[3]) == points[name]
    assert sum(points.values()) == 9
    assert "Mat - Exp: 3 games" in stdout
    sidecar = json.loads(Path(f"{out}.json").read_text())
    assert sidecar["players"] == dict(zip(["Mat", "Exp", "Rnd"], THREE, strict=True))
    assert sidecar["games_in_pgn"] == 9 and sidecar["time_control"] == "depth=1"
    assert {"mimic_version", "git_commit", "time_utc"} <= set(sidecar["runs"][0])


def test_more_games_with_resume_plays_only_the_missing_ones(cli: CliRunner, full: tuple[Path, str],
                                                             tmp_path: Path) -> None:
    part = tmp_path / "part.pgn"
    assert cli("games", *COMMON, "--games", "1", "--out", str(part)).returncode == 0
    assert len(_by_round(part)) == 3  # rounds 1.1.1, 2.1.1, 3.1.1
    again = cli("games", *COMMON, "--games", "3", "--out", str(part))
    assert again.returncode == 2 and "--resume" in again.stderr and len(_by_round(part)) == 3
    more = cli("games", *COMMON, "--games", "3", "--out", str(part), "--resume")
    assert more.returncode == 0, more.stderr
    # 3 pairings x 3 games = 9: the 3 games already there count, 6 are played (P.1.2 and P.2.1).
    assert more.stdout.count("round ") == 6
    assert _by_round(part) == _by_round(full[0])
    sidecar = json.loads((tmp_path / "part.pgn.json").read_text())
    assert [r["games_per_pairing"] for r in sidecar["runs"]] == [1, 3] and sidecar["games_in_pgn"] == 9
    other = cli("games", "material@depth=1", "expert@depth=1", "--depth", "1", "--games", "3", "--out", str(part),
                   "--resume")
    assert other.returncode == 2 and "players" in other.stderr  # another game set: refused, file untouched
    assert _by_round(part) == _by_round(full[0])


def test_a_killed_run_resumes_without_losing_or_doubling_a_game(cli: CliRunner, full: tuple[Path, str],
                                                                 tmp_path: Path) -> None:
    common = [*COMMON, "--games", "2"]
    # The uninterrupted 2-game set: the first opening's games (P.1.1, P.1.2) of the shared 3-game one.
    reference = {r: g for r, g in _by_round(full[0]).items() if r.split(".")[1] == "1"}
    assert len(reference) == 6
    pgn = tmp_path / "killed.pgn"
    # SIGKILL once the PGN holds 20 lines. A game is appended in one write (25-30 lines at 40 plies), so the kill
    # lands between games, after the first or so; then the end of the file is torn by hand as a kill
    # inside a write (or a full disk) would leave it: half of a game the killed run had not written.
    # A real process: the test SIGKILLs it.
    proc = subprocess.Popen(mimic_command("games", *common, "--out", str(pgn)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    sigkill_at_line(proc, pgn, 20, timeout=60)
    kept = _by_round(pgn)
    assert 1 <= len(kept) < 6
    missing = next(g for g in read_pgn_text(full[0].read_text()) if g.headers["Round"] in set(reference) - set(kept))
    text = str(missing)
    with open(pgn, "a") as fh:
        fh.write(text[: len(text) // 2])
    done = cli("games", *common, "--out", str(pgn), "--resume")
    assert done.returncode == 0, done.stderr
    assert "dropped 1 torn game" in done.stderr
    assert done.stdout.count("round ") == 6 - len(kept)  # only the games the PGN lacked were played
    assert _by_round(pgn) == reference


def test_a_bad_spec_is_one_line_naming_it_and_exit_2(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "x.pgn"
    for bad in ("bogus:3", "random:x", "organism:/nonexistent/o.json", "uci:/nonexistent/engine"):
        run = cli("games", "material@depth=1", bad, "--out", str(out))
        assert run.returncode == 2, bad
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and bad in lines[0] and "Traceback" not in run.stderr, run.stderr
        assert not out.exists()
    run = cli("games", "material", "expert", "--names", "A,B,C", "--out", str(out))
    assert run.returncode == 2 and "3 names for 2 players" in run.stderr
    run = cli("games", "material", "material", "--out", str(out))
    assert run.returncode == 2 and "given twice" in run.stderr


def test_external_engines_play_under_their_default_names(cli: CliRunner, stockfish: str, phalanx: str,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "ext.pgn"
    players = [f"uci:{stockfish}?Skill%20Level=0@nodes=200", f"xboard:{phalanx}", "material@depth=1"]
    run = cli("games", *players, "--games", "1", "--movetime", "0.02", "--max-plies", "16", "--out", str(out))
    assert run.returncode == 0, run.stderr
    # 3 pairings x 1 game, the first-named player of each pairing White (rounds P.1.1).
    names = {r: (w, b, t) for r, (w, b, _, t, _, _) in _by_round(out).items()}
    assert names == {"1.1.1": ("stockfish Skill Level=0 nodes=200", "phalanx", names["1.1.1"][2]),
                     "2.1.1": ("stockfish Skill Level=0 nodes=200", "material depth=1", names["2.1.1"][2]),
                     "3.1.1": ("phalanx", "material depth=1", names["3.1.1"][2])}
    assert all(t in ("normal", "adjudication") for _, _, t in names.values())  # nobody crashed or hung
