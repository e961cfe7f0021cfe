"""Positions from a search tree (issue 38, mentor/treesample.py, ``mimic label --source search:SPEC``): the sampler
sees exactly what the search evaluates and changes nothing it answers, keeps one in M by a hash of the position
(whatever the order), works for incremental evaluators, and the source labels the same positions for any --jobs."""

from __future__ import annotations

import json
from pathlib import Path

import chess

from evolve.players import PLAYERS
from mentor.treesample import Sampler, sampler, splitmix64, tree_game
from organisms.expert import Expert
from organisms.pnet import PNet, random_pnet
from search import Engine, Limit
from search.conventions import position_key
from search.games.openings import default_openings_path, load_openings
from tests.conftest import run_mimic

FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


class Recording:
    """The expert, noting every position it is asked about (to compare with what the sampler kept)."""

    name = "recording"

    def __init__(self) -> None:
        self.inner, self.asked = Expert(), []

    def evaluate(self, board: chess.Board) -> int:
        self.asked.append(board.fen())
        return self.inner.evaluate(board)


def test_the_sampler_keeps_what_the_search_evaluates_and_changes_nothing() -> None:
    board = chess.Board(FEN)
    plain = Engine(Expert()).search(board, Limit(depth=3))
    every_one = sampler(Recording(), 1, seed=0)
    watched = Engine(every_one).search(board, Limit(depth=3))
    assert (watched.move, watched.score, watched.nodes) == (plain.move, plain.score, plain.nodes)
    recording = every_one.inner
    assert isinstance(every_one, Sampler) and isinstance(recording, Recording)
    assert every_one.seen == len(recording.asked) > 100
    # M = 1 keeps every position evaluated, each once (the engine's cache asks about a position once per search).
    assert sorted(every_one.kept.values()) == sorted(set(recording.asked))
    # M = 7 keeps those whose hash of (key, seed) is 0 mod 7, whatever the order they came in.
    seven = sampler(Expert(), 7, seed=3)
    for fen in reversed(recording.asked):
        seven.evaluate(chess.Board(fen))
    salt = seven.salt
    expected = {fen for fen in recording.asked if splitmix64(position_key(chess.Board(fen)) ^ salt) % 7 == 0}
    assert set(seven.kept.values()) == expected and 0 < len(expected) < len(set(recording.asked)) / 3


def test_an_incremental_evaluator_is_sampled_with_its_updates() -> None:
    arrays, header = random_pnet(16, seed=2)
    board = chess.Board(FEN)
    plain = Engine(PNet(arrays, header)).search(board, Limit(nodes=800))
    watch = sampler(PNet(arrays, header), 5, seed=1)
    assert hasattr(watch, "evaluate_current")
    watched = Engine(watch).search(board, Limit(nodes=800))
    assert (watched.move, watched.score, watched.nodes) == (plain.move, plain.score, plain.nodes)
    assert watch.seen > 0 and watch.kept


def test_a_game_is_the_same_game_whoever_plays_it() -> None:
    starts = [o.fen for o in load_openings(default_openings_path())]
    a = tree_game(3, "expert@nodes=200", PLAYERS, starts, seed=4, every=9)
    b = tree_game(3, "expert@nodes=200", PLAYERS, starts, seed=4, every=9)
    assert a == b and a[0] and a[1] > len(a[0])


def test_the_label_source_for_any_jobs(tmp_path: Path) -> None:
    common = ["label", "--mentor", "builtin", "--depth", "1", "--source", "search:material@nodes=150", "--positions",
              "40", "--tree-every", "8", "--no-progress"]
    one, two = tmp_path / "one.epd", tmp_path / "two.epd"
    assert run_mimic(*common, "--out", one, "--jobs", "1").returncode == 0
    assert run_mimic(*common, "--out", two, "--jobs", "2").returncode == 0
    lines = one.read_text().splitlines()
    assert one.read_bytes() == two.read_bytes() and len(lines) == 40
    assert all('c0 "search:material@nodes=150"' in line and 'id "search:' in line for line in lines)
    for line in lines:
        chess.Board.from_epd(line)
    settings = json.loads(Path(f"{one}.json").read_text())["runs"][0]["settings"]
    assert settings["sources"] == ["search:material@nodes=150"] and settings["search_trees"]["every"] == 8
    bad = run_mimic(*common, "--out", tmp_path / "x.epd", "--source", "search:nosuchkind")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
