"""The experience book (``search.book``): import, resumability, choosing, the book layer, DeepRed, ``--learn``."""

from __future__ import annotations

import io
import random
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import chess.polyglot
import pytest

from evolve.cli import main
from evolve.players import PLAYERS, make_evaluator
from search.base import Limit
from search.book.importer import ImportCounts, import_games
from search.book.keys import book_key, piece_part, pieces_hash, signed_key, update_pieces_hash
from search.book.reader import GamePath, ReadCounts, read_paths
from search.book.tree import Book, wilson_lower
from search.players.player import BookPlayer, EnginePlayer, make_player
from search.players.spec import SpecError

from .conftest import mimic_command, mimic_uci_command

FISCHER = Path(__file__).parent.parent / "data" / "player-games" / "Fischer.pgn"


def fischer_games(first: int, last: int) -> str:
    """Games ``first``..``last`` (1-based, inclusive) of Fischer.pgn, byte for byte (CRLF kept)."""
    text = FISCHER.read_bytes().decode("utf-8")
    games = [g for g in re.split(r"(?m)^(?=\[Event )", text) if g.strip()]
    return "".join(games[first - 1:last])


def counts(book: Book, board: chess.Board) -> dict[str, tuple[int, int, int]]:
    return {e.move.uci(): (e.wins, e.draws, e.losses) for e in book.edges(board)}


def test_import_counts_by_hand(tmp_path: Path) -> None:
    # Games 2-4 of Fischer.pgn, all 1.e4 by Fischer: Warner 1...c5 0-1, Pupols 1...e5 0-1, Ames 1...e5 1/2-1/2.
    pgn = tmp_path / "three.pgn"
    pgn.write_text(fischer_games(2, 4), newline="")
    book_path = tmp_path / "b.sqlite"
    with Book(book_path) as book:
        c = import_games(book, [pgn])
        assert (c.read.read, c.added.games, c.added.duplicates, c.read.malformed) == (3, 3, 0, 0)
        board = chess.Board()
        # White's 1.e4 was played in all three: lost twice, drawn once (White's view).
        assert counts(book, board) == {"e2e4": (0, 1, 2)}
        board.push_uci("e2e4")
        # Black's replies, Black's view: 1...c5 won once; 1...e5 won once (Pupols) and drawn once (Ames).
        assert counts(book, board) == {"c7c5": (1, 0, 0), "e7e5": (1, 1, 0)}
        board.push_uci("e7e5")
        assert counts(book, board) == {"g1f3": (0, 1, 1)}  # 2.Nf3 in both, White's view
        assert book.game_count() == 3
        plies = sum(len(list(g.mainline_moves())) for g in _games(pgn.read_text()))
        assert c.added.edges == plies  # every ply of every game counted once
        assert c.added.new == book.edge_count()


def _games(text: str) -> list[chess.pgn.Game]:
    fh, out = io.StringIO(text), []
    while (g := chess.pgn.read_game(fh)) is not None:
        out.append(g)
    return out


def test_reimport_adds_nothing_and_malformed_is_reported(tmp_path: Path) -> None:
    good = fischer_games(2, 3)
    broken = '[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 Nc6 1-0\n\n'  # 2.Ke3 is illegal
    pgn = tmp_path / "g.pgn"
    pgn.write_text(broken + good + fischer_games(4, 4))
    errors: list[str] = []
    with Book(tmp_path / "b.sqlite") as book:
        first = import_games(book, [pgn], on_error=errors.append)
        assert (first.read.read, first.added.games, first.read.malformed) == (4, 3, 1)
        assert len(errors) == 1 and errors[0].startswith(f"{pgn}:1: game skipped:")
        edges, table = book.edge_count(), counts(book, chess.Board())
        again = import_games(book, [pgn, pgn], on_error=errors.append)  # the same file, twice more
        assert (again.added.games, again.added.duplicates, again.added.edges) == (0, 6, 0)
        assert book.edge_count() == edges and counts(book, chess.Board()) == table
        assert book.game_count() == 3


def test_a_batch_dies_whole(tmp_path: Path) -> None:
    """A batch interrupted inside its transaction leaves the book as it was; the rerun counts each game once."""
    pgn = tmp_path / "g.pgn"
    pgn.write_text(fischer_games(1, 30))
    with Book(tmp_path / "b.sqlite") as book, pytest.raises(KeyboardInterrupt):  # stopped after batch 1's commit
        import_games(book, [pgn], batch=10, on_batch=_stop_after(1))
    with Book(tmp_path / "b.sqlite") as book:
        assert book.game_count() == 10
        paths = list(read_paths(pgn, ReadCounts(), lambda m: None))

        def dying() -> Iterator[GamePath]:
            yield from paths[10:15]
            raise KeyboardInterrupt  # the process is stopped in the middle of a batch's transaction

        with pytest.raises(KeyboardInterrupt):
            book.add_games(dying())
        assert book.game_count() == 10  # nothing of the dead batch
        rest = import_games(book, [pgn], batch=10)
        assert (rest.added.games, rest.added.duplicates) == (20, 10)
        resumed = (book.edge_count(), counts(book, chess.Board()))
    with Book(tmp_path / "fresh.sqlite") as fresh:
        import_games(fresh, [pgn])
        assert (fresh.edge_count(), counts(fresh, chess.Board())) == resumed


def _stop_after(batches: int) -> Callable[[ImportCounts], None]:
    seen = [0]

    def on_batch(c: ImportCounts) -> None:
        seen[0] += 1
        if seen[0] >= batches:
            raise KeyboardInterrupt

    return on_batch


def test_killed_import_resumes(tmp_path: Path) -> None:
    """``mimic book import`` killed (SIGKILL) after some batches, then run again: the same book as one import."""
    pgn = tmp_path / "g.pgn"
    pgn.write_text(fischer_games(1, 300))
    book_path = tmp_path / "b.sqlite"
    # A real process: the test SIGKILLs it.
    proc = subprocess.Popen(mimic_command("book", "import", str(pgn), "--out", str(book_path), "--batch", "20",
                                          "--no-progress"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    while True:
        assert proc.poll() is None and time.monotonic() - t0 < 60, "the import ended before it could be killed"
        if book_path.exists():
            try:
                with Book(book_path, readonly=True) as b:
                    if b.game_count() >= 40:
                        break
            except Exception:
                pass
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Book(book_path, readonly=True) as b:
        assert 40 <= b.game_count() < 300
    assert main(["book", "import", str(pgn), "--out", str(book_path), "--no-progress"]) == 0
    with Book(book_path) as b, Book(tmp_path / "fresh.sqlite") as fresh:
        import_games(fresh, [pgn])
        assert b.game_count() == fresh.game_count() == 300
        assert b.edge_count() == fresh.edge_count()
        board = chess.Board()
        assert counts(b, board) == counts(fresh, board)
        board.push_uci("e2e4")
        assert counts(b, board) == counts(fresh, board)


def _hand_book(tmp_path: Path) -> Path:
    """From the start: 1.e4 won 3 of 3 (score 1, Wilson lower bound 0.44); 1.d4 won 9, lost 1 (score 0.9, bound
    0.60); 1.c4 won 2 of 2 (seen too rarely for min=3). The book must play 1.d4: the best bound, not the best score."""
    games = ([("e4 e5", "1-0")] * 3 + [("d4 d5", "1-0")] * 9 + [("d4 d5", "0-1")] + [("c4 c5", "1-0")] * 2)
    text = "".join(f'[Event "hand"]\n[Round "{i}"]\n[Result "{r}"]\n\n1. {m.split()[0]} {m.split()[1]} {r}\n\n'
                   for i, (m, r) in enumerate(games))
    pgn = tmp_path / "hand.pgn"
    pgn.write_text(text)
    path = tmp_path / "hand.sqlite"
    with Book(path) as book:
        import_games(book, [pgn])
    return path


def test_the_book_player_picks_the_best_lower_bound_and_falls_back(tmp_path: Path) -> None:
    path = _hand_book(tmp_path)
    assert wilson_lower(9, 0, 1) > wilson_lower(3, 0, 0) > wilson_lower(2, 0, 0)
    with Book(path, readonly=True) as book:
        assert counts(book, chess.Board()) == {"e2e4": (3, 0, 0), "d2d4": (9, 0, 1), "c2c4": (2, 0, 0)}
    player = make_player(f"material@depth=1+book:{path}", make_evaluator)
    assert isinstance(player, BookPlayer)
    try:
        assert player.play(chess.Board(), Limit(depth=1)).move == chess.Move.from_uci("d2d4")
        # After 1.d4 the book knows Black's 1...d5 (1 win, 9 losses for Black: 10 games, so it qualifies).
        board = chess.Board()
        board.push_uci("d2d4")
        report = player.play(board, Limit(depth=1))
        assert report.move == chess.Move.from_uci("d7d5") and report.depth == 0
        # 1.a3 is not in the book: the wrapped engine moves, the same move as the engine alone.
        board = chess.Board()
        board.push_uci("a2a3")
        report = player.play(board, Limit(depth=2))
        alone = EnginePlayer("material", make_evaluator("material"))
        assert report.depth >= 1 and report.move == alone.play(board, Limit(depth=2)).move
    finally:
        player.close()
    # With min=11 no move of the start qualifies (1.d4 has 10 games): the engine moves.
    player = make_player(f"material@depth=1+book:{path}?min=11", make_evaluator)
    try:
        assert player.play(chess.Board(), Limit(depth=1)).depth >= 1
    finally:
        player.close()


def test_spec_grammar() -> None:
    s = PLAYERS.parse("organism:x.json+book:b.sqlite?min=5@depth=3")
    assert (s.kind, s.arg, s.book and s.book.path, s.book and s.book.min_games, s.limit and s.limit.depth) == \
        ("organism", "x.json", "b.sqlite", 5, 3)
    assert PLAYERS.parse("material@depth=2+book:b.sqlite").book == PLAYERS.parse("material+book:b.sqlite@depth=2").book
    d = PLAYERS.parse("deepred:b.sqlite?seed=7&min=2")
    assert d.book is not None and (d.book.path, d.book.min_games, d.book.seed) == ("b.sqlite", 2, 7)
    assert PLAYERS.parse("deepred:b.sqlite").book.seed == 0  # type: ignore[union-attr]
    for bad in ("material+book:", "material+book:b?min=0", "material+book:b?depth=3", "deepred:b@depth=2",
                "deepred:b+book:c", "material+book:a+book:b", "deepred:"):
        with pytest.raises(SpecError):
            PLAYERS.parse(bad)
    assert "+book:PATH[?min=N]" in PLAYERS.help() and "deepred:PATH[?min=N&seed=N&explore=0|1]" in PLAYERS.help()


def test_deepred_plays_legal_moves_reproducibly(tmp_path: Path) -> None:
    path = _hand_book(tmp_path)

    def game(seed: int) -> list[str]:
        player = make_player(f"deepred:{path}?seed={seed}", make_evaluator)
        board, moves = chess.Board(), []
        try:
            player.new_game()
            while not board.is_game_over() and len(moves) < 40:
                move = player.play(board, Limit(depth=1)).move
                assert move in board.legal_moves
                moves.append(move.uci())
                board.push(move)
        finally:
            player.close()
        return moves

    a, b, c = game(1), game(1), game(2)
    assert a == b and a != c
    assert a[:2] == c[:2] == ["d2d4", "d7d5"]  # the book's moves, then random ones


def test_deepred_explore_leaves_moves_that_only_lost(tmp_path: Path) -> None:
    """In the hand book Black lost all 3 games after 1.e4 e5 (0 wins, 0 draws) and won 1 of 10 after 1.d4 d5.
    Without explore, 1...e5 (seen 3 times) is Black's move after 1.e4 whatever the seed; with explore=1 a move that
    only lost does not count as known, so the player moves at random there (20 legal moves: over 8 seeds at least
    one differs from e5); 1...d5 scored once, so it is still played after 1.d4."""
    path = _hand_book(tmp_path)

    def reply(first: str, seed: int, explore: int) -> str:
        player = make_player(f"deepred:{path}?seed={seed}&explore={explore}", make_evaluator)
        try:
            player.new_game()
            board = chess.Board()
            board.push_uci(first)
            move = player.play(board, Limit(depth=1)).move
            assert move in board.legal_moves
            return move.uci()
        finally:
            player.close()

    assert {reply("e2e4", seed, 0) for seed in range(8)} == {"e7e5"}
    assert {reply("e2e4", seed, 1) for seed in range(8)} - {"e7e5"}
    assert {reply("d2d4", seed, 1) for seed in range(8)} == {"d7d5"}
    with pytest.raises(SpecError):
        PLAYERS.parse(f"deepred:{path}?explore=2")
    with pytest.raises(SpecError):
        PLAYERS.parse(f"material+book:{path}?explore=1")  # exploring is the pure DeepRed player's


def test_uci_answers_with_the_book_move(tmp_path: Path) -> None:
    path = _hand_book(tmp_path)
    engine = chess.engine.SimpleEngine.popen_uci(mimic_uci_command("--eval", f"material+book:{path}"), timeout=30)
    try:
        assert engine.play(chess.Board(), chess.engine.Limit(depth=2)).move == chess.Move.from_uci("d2d4")
        board = chess.Board()
        board.push_uci("a2a3")
        assert engine.play(board, chess.engine.Limit(depth=2)).move in board.legal_moves  # searched
    finally:
        engine.quit()


def test_match_learn_adds_the_played_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book, pgn = tmp_path / "learn.sqlite", tmp_path / "m.pgn"
    argv = ["match", f"deepred:{book}?seed=3", "material", "--depth", "1", "--games", "3", "--learn", str(book),
            "--pgn", str(pgn), "--max-plies", "30"]
    assert main(argv) == 0  # the book does not exist before: --learn creates it, DeepRed reads it
    games = _games(pgn.read_text())
    assert len(games) == 3
    with Book(book) as b:
        assert b.game_count() == 3
        for g in games:  # every edge of every played game is in the book, from the game's start position
            board = g.board()
            for move in g.mainline_moves():
                assert move in {e.move for e in b.edges(board)}
                board.push(move)
        edges = b.edge_count()
        again = import_games(b, [pgn])  # importing the match PGN adds nothing: the games are the same
        assert (again.added.games, again.added.duplicates) == (0, 3) and b.edge_count() == edges
    # A resumed match with more games adds only the new ones.
    argv[argv.index("--games") + 1] = "4"
    assert main([*argv, "--resume"]) == 0
    with Book(book) as b:
        assert b.game_count() == 4


def test_keys_read_from_pgn_are_zobrist_hashes() -> None:
    """The keys the fast reader computes (piece part updated incrementally, cached castling part) are exactly
    ``chess.polyglot.zobrist_hash`` as signed integers, on random games full of castling, en passant and
    promotions, from the start and from a FEN with partial castling rights."""
    import random

    from search.book.keys import book_key, code_move, signed_key
    from search.book.reader import paths_from

    rng = random.Random(5)
    starts = [chess.STARTING_FEN, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Kq - 0 1",
              "4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1"]
    games = []
    for i in range(30):  # 10 games from each start (was 60): 3 castlings, 2 en passant captures, 35 promotions
        board = chess.Board(starts[i % len(starts)])
        for _ in range(rng.randint(1, 160)):
            legal = list(board.legal_moves)
            if not legal:
                break
            board.push(rng.choice(legal))
        game = chess.pgn.Game.from_board(board)
        game.headers["Round"] = str(i)
        game.headers["Result"] = "1/2-1/2"
        games.append(str(game))
    read = list(paths_from(io.StringIO("\n\n".join(games)), "random", ReadCounts(), pytest.fail))
    assert len(read) == len(games)
    for text, path in zip(games, read, strict=True):
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None
        board = game.board()
        assert len(path.edges) == len(list(game.mainline_moves()))
        for (mover, parent, code, child), move in zip(path.edges, game.mainline_moves(), strict=True):
            assert (mover, parent, code_move(code)) == (board.turn, book_key(board), move)
            board.push(move)
            assert child == book_key(board) == signed_key(chess.polyglot.zobrist_hash(board))


def test_parallel_import_gives_the_same_book(tmp_path: Path) -> None:
    files = [tmp_path / "a.pgn", tmp_path / "b.pgn"]
    files[0].write_text(fischer_games(1, 40))
    files[1].write_text(fischer_games(31, 60))  # 10 games in both files: counted once either way
    books = []
    for jobs in (1, 2):
        with Book(tmp_path / f"{jobs}.sqlite") as b:
            c = import_games(b, files, jobs=jobs, batch=7)
            assert (c.added.games, c.added.duplicates) == (60, 10)
            board = chess.Board()
            books.append((b.edge_count(), counts(b, board), c.added.edges, c.added.new))
    assert books[0] == books[1]


def test_games_learn_with_workers(tmp_path: Path) -> None:
    """``mimic games --learn`` (the round robin shares the match runner), games in 2 worker processes that read
    the book while this process writes it."""
    book, out = tmp_path / "rr.sqlite", tmp_path / "rr.pgn"
    argv = ["games", f"deepred:{book}?seed=1", "material", "random:2", "--games", "2", "--depth", "1", "--jobs", "2",
            "--learn", str(book), "--out", str(out), "--max-plies", "20"]
    assert main(argv) == 0
    games = _games(out.read_text())
    assert len(games) == 6  # 3 pairings x 2 games
    with Book(book, readonly=True) as b:
        assert b.game_count() == 6
        assert sum(e.n for e in b.edges(games[0].board())) >= 1


def test_the_incremental_piece_hash_is_the_polyglot_hash_along_random_games() -> None:
    # book_key is the polyglot hash as a signed 64-bit integer; updating its piece part from the squares that
    # changed must give the hash computed from scratch after every move (captures, castling, promotions).
    rng = random.Random(7)
    for _ in range(20):
        board = chess.Board()
        before = piece_part(board)
        pieces = pieces_hash(before)
        while not board.is_game_over() and board.ply() < 200:
            board.push(rng.choice(list(board.legal_moves)))
            after = piece_part(board)
            pieces = update_pieces_hash(pieces, before, after)
            before = after
            assert pieces == pieces_hash(after)
            assert book_key(board) == signed_key(chess.polyglot.zobrist_hash(board))
