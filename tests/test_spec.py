"""The player-spec grammar and the one registry of player kinds; the shared chess conventions."""

from __future__ import annotations

import doctest
import pickle

import chess
import pytest

import search.conventions
from evolve.players import PLAYERS
from organisms import Material
from search import Evaluator, Limit
from search.conventions import (
    MATE,
    ce_from_mate_moves,
    from_ce,
    from_engine_score,
    legal_prefix,
    mate_moves,
    result_from_points,
    result_points,
    score_from_mate_moves,
    to_ce,
    to_engine_score,
)
from search.players.spec import BookLayer, PlayerKind, PlayerRegistry, PlayerSpec, SpecError


def test_conventions_doctests() -> None:
    failures, tried = doctest.testmod(search.conventions)
    assert tried >= 15 and failures == 0


def test_mate_conversions_round_trip() -> None:
    # Every mate distance up to 60 plies, both signs, through EPD and back.
    for plies in range(1, 61):
        for score in (MATE - plies, -(MATE - plies)):
            assert from_ce(to_ce(score)) == score
            assert mate_moves(score) is not None
    # UCI and python-chess count whole moves: a side mates in an odd number of plies (2k - 1) and is mated in an
    # even number (2k), and those survive the round trip exactly.
    for k in range(1, 31):
        for score in (MATE - (2 * k - 1), -(MATE - 2 * k)):
            moves = mate_moves(score)
            assert moves == (k if score > 0 else -k)
            assert score_from_mate_moves(moves) == score
            assert from_engine_score(to_engine_score(score)) == score
    # By hand: "mate 3" is 5 plies, EPD writes 30000 - 5; "mate -2" is 4 plies against the side to move.
    assert ce_from_mate_moves(3) == 29995 and ce_from_mate_moves(-2) == -29996
    for cp in (-1500, -1, 0, 1, 812, 28999):
        assert to_ce(cp) == from_ce(cp) == cp


def test_results_from_each_side() -> None:
    assert [result_points(r, chess.WHITE) for r in ("1-0", "0-1", "1/2-1/2", "*")] == [1.0, 0.0, 0.5, None]
    assert [result_points(r, chess.BLACK) for r in ("1-0", "0-1", "1/2-1/2")] == [0.0, 1.0, 0.5]
    for points in (0.0, 0.5, 1.0):
        for side in chess.COLORS:
            assert result_points(result_from_points(points, side), side) == points
    with pytest.raises(ValueError):
        result_from_points(0.25)


def test_legal_prefix_stops_at_the_first_bad_move() -> None:
    board = chess.Board()
    moves = ["e2e4", "e7e5", "g1f3", "xx", "b8c6"]
    assert [m.uci() for m in legal_prefix(board, moves)] == ["e2e4", "e7e5", "g1f3"]
    assert legal_prefix(board, [chess.Move.null(), chess.Move.from_uci("e2e4")]) == []
    assert board == chess.Board()  # left unchanged


@pytest.mark.parametrize(("text", "kind", "arg", "limit"), [
    ("material", "material", None, None),
    ("expert@depth=3", "expert", None, Limit(depth=3)),
    ("random:12@nodes=500@movetime=0.5", "random", "12", Limit(nodes=500, movetime=0.5)),
    ("organism:dir@x/o.json@depth=2", "organism", "dir@x/o.json", Limit(depth=2)),
    ("uci:/usr/games/stockfish?Skill%20Level=3", "uci", "/usr/games/stockfish", None),
])
def test_specs_parse(text: str, kind: str, arg: str | None, limit: Limit | None) -> None:
    s = PLAYERS.parse(text)
    assert (s.kind, s.arg, s.limit, s.text) == (kind, arg, limit, text)
    assert s.is_external == (kind == "uci")
    if kind == "uci":
        assert s.options == (("Skill Level", "3"),)


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("random:²", "non-negative integer"),  # str.isdigit() says yes, int() says no: once a traceback
    ("random:-1", "non-negative integer"),
    ("random:1@depth=x", "a limit must be"),
    ("expert:x", "takes no argument"),
    ("organism", "needs a path"),
    ("expert@depth=0", "positive"),
    ("expert@depth=2.5", "whole numbers"),
    ("expert@depth=2@depth=3", "given twice"),
    ("nosuch:x.npz", "unknown player kind 'nosuch'"),
    ("net", "needs a path"),
    ("Stockfish", "unknown player kind"),
    ("uci:sf?a=1&&b", "bad option list"),
    ("expert\nquit", "printable"),
])
def test_bad_specs_say_why(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        PLAYERS.parse(text)


def test_unknown_kind_lists_every_kind() -> None:
    with pytest.raises(SpecError) as info:
        PLAYERS.parse("sunfish")
    for kind in PLAYERS:
        assert kind.syntax in str(info.value)


class _Constant:
    """A trivial evaluator for the registry test: always ``value`` centipawns for the side to move."""

    def __init__(self, value: int) -> None:
        self.value = value

    def evaluate(self, board: chess.Board) -> int:
        return self.value


def _constant(spec: PlayerSpec) -> Evaluator:
    return _Constant(spec.seed)


def test_a_new_kind_is_one_entry() -> None:
    # Grammar, help, error text and factory of a new kind all come from its single entry.
    registry = PlayerRegistry([*PLAYERS, PlayerKind("const", "seed", "a constant evaluation", _constant)])
    assert registry("const:42").evaluate(chess.Board()) == 42
    assert "const[:SEED]" in registry.help() and "a constant evaluation" in registry.help()
    assert "const[:SEED]" in registry.grammar
    assert registry.parse("const:7@depth=2").limit == Limit(depth=2)
    assert "const" not in PLAYERS
    with pytest.raises(SpecError, match="const"):
        PLAYERS.parse("const:1")
    with pytest.raises(ValueError, match="twice"):
        PlayerRegistry([*PLAYERS, PlayerKind("expert", "none", "again", _constant)])


def test_registry_builds_evaluators_and_refuses_engines() -> None:
    assert isinstance(PLAYERS("material"), Material)
    with pytest.raises(SpecError, match="external engine"):
        PLAYERS("uci:/usr/games/stockfish")
    # It travels to worker processes by reference to its module-level factories.
    clone = pickle.loads(pickle.dumps(PLAYERS))
    assert [k.name for k in clone] == [k.name for k in PLAYERS]
    assert isinstance(clone("material"), Material)


class _MoreMaterialForWhite:
    """A comparator by material, for the protocol test: ``a`` is better for White when White's balance is larger."""

    def better(self, a: chess.Board, b: chess.Board) -> bool:
        def white(board: chess.Board) -> int:
            return sum(len(board.pieces(pt, chess.WHITE)) - len(board.pieces(pt, chess.BLACK)) for pt in range(1, 6))

        return white(a) > white(b)


def test_comparator_protocol_sits_beside_the_evaluator() -> None:
    from search import Comparator

    assert isinstance(_MoreMaterialForWhite(), Comparator) and not isinstance(Material(), Comparator)
    assert not isinstance(_MoreMaterialForWhite(), Evaluator)
    up = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")  # White has a rook more
    assert _MoreMaterialForWhite().better(up, chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"))


class _FirstMoveBook:
    """A book that knows one move, 1.e4, and records what the players ask of it (a real MoveChooser)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.games = 0
        self.closed = False

    def choose(self, board: chess.Board) -> chess.Move | None:
        return chess.Move.from_uci("e2e4") if board.fullmove_number == 1 and board.turn == chess.WHITE else None

    def new_game(self) -> None:
        self.games += 1

    def close(self) -> None:
        self.closed = True


OPENED: list[_FirstMoveBook] = []


def _open_first_move_book(layer: BookLayer) -> _FirstMoveBook:
    OPENED.append(_FirstMoveBook(layer.path))
    return OPENED[-1]


def test_books_reach_players_and_the_uci_server_through_the_registry() -> None:
    import io

    from search.players.player import BookPlayer, make_player
    from search.uci import UciFrontEnd

    registry = PlayerRegistry(list(PLAYERS), PLAYERS.load_policy, open_book=_open_first_move_book)
    assert registry.book("material") is None
    player = make_player("material@depth=1+book:any.sqlite", registry)
    assert isinstance(player, BookPlayer) and OPENED[-1].path == "any.sqlite"
    player.new_game()
    assert player.play(chess.Board(), Limit()).move == chess.Move.from_uci("e2e4") and OPENED[-1].games == 1
    after = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    assert player.play(after, Limit()).score is not None  # no book move: the engine searched
    player.close()
    assert OPENED[-1].closed
    out = io.StringIO()
    front = UciFrontEnd(registry, "material@depth=1+book:uci.sqlite", out=out)
    front.run(["position startpos", "go depth 1"])
    assert OPENED[-1].path == "uci.sqlite"
    assert out.getvalue().splitlines()[-2:] == ["info string book move e2e4", "bestmove e2e4"]
    assert pickle.loads(pickle.dumps(registry)).open_book is _open_first_move_book
