"""Hostile files (issue 23): books and net files crafted by the tests, each refused in one line naming the file.

Every crafted file is read through the command line in-process (``evolve.cli.main``): exit 2, exactly one line
on stderr, naming the file, and the file's bytes unchanged; the good paths are covered by test_book.py and
test_net.py.
"""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from evolve.cli import main
from search.book.schema import FORMAT
from search.book.tree import Book

from .conftest import mimic_command

GAME = '[Event "t"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n'
EDGE = "parent INTEGER, move INTEGER, child INTEGER, wins INTEGER, draws INTEGER, losses INTEGER"


def _sql(*statements: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        db = sqlite3.connect(path)
        for s in statements:
            db.execute(s)
        db.commit()
        db.close()
    return make


def _book_with(row: str) -> Callable[[Path], None]:
    """A mimic book (made by mimic) with one more edge row of ``white`` as given (SQLite keeps any value)."""
    def make(path: Path) -> None:
        with Book(path):
            pass
        _sql(f"INSERT INTO white VALUES {row}", "PRAGMA journal_mode = DELETE")(path)
    return make


def _garbage(path: Path) -> None:
    path.write_bytes(b"this is not SQLite at all\n" * 200)


def _malformed(path: Path) -> None:
    """A real book whose pages after the first (the schema) are overwritten: SQLite finds it out when it reads."""
    (path.parent / "g.pgn").write_text(GAME * 3)
    with Book(path) as book:
        from search.book.importer import import_games
        import_games(book, [path.parent / "g.pgn"])
    _sql("PRAGMA journal_mode = DELETE")(path)
    data = bytearray(path.read_bytes())
    page = 4096
    data[page:] = b"\xff" * (len(data) - page)
    path.write_bytes(bytes(data))


# (name, how to make it, what the one line says)
BOOKS: list[tuple[str, Callable[[Path], None], str]] = [
    ("garbage", _garbage, "file is not a database"),
    ("foreign-games", _sql(f"CREATE TABLE white ({EDGE})", f"CREATE TABLE black ({EDGE})",
                           "CREATE TABLE games (x TEXT)", f"PRAGMA user_version = {FORMAT}"),
     "table games has no column id"),
    ("foreign-v0", _sql("CREATE TABLE games (id BLOB PRIMARY KEY)", "CREATE TABLE white (a, b)"),
     f"user_version 0, expected {FORMAT}"),
    ("version-7", _sql("PRAGMA user_version = 7"), f"user_version 7, expected {FORMAT}"),
    ("version-no-tables", _sql(f"PRAGMA user_version = {FORMAT}"), "no table white"),
    ("wrong-type", _sql("CREATE TABLE white (parent INTEGER, move INTEGER, child INTEGER, wins TEXT, draws INTEGER, "
                        "losses INTEGER)", f"CREATE TABLE black ({EDGE})", "CREATE TABLE games (id BLOB)",
                        f"PRAGMA user_version = {FORMAT}"), "column white.wins is TEXT, expected INTEGER"),
    ("text-count", _book_with("(1, 1804, 2, 'many', 0, 0)"), "table white has the row"),
    ("negative-count", _book_with("(1, 1804, 2, -3, 0, 0)"), "table white has the row"),
    ("huge-count", _book_with("(1, 1804, 2, 9223372036854775807, 0, 0)"), "table white has the row"),
    ("illegal-move", _book_with("(1, 99999, 2, 1, 0, 0)"), "table white has the row"),
    ("malformed", _malformed, "database disk image is malformed"),
]


def _one_line(capsys: pytest.CaptureFixture[str], path: Path, says: str) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0] and says in lines[0], lines[0]
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(("name", "make", "says"), BOOKS, ids=[b[0] for b in BOOKS])
def test_a_foreign_or_damaged_book_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          name: str, make: Callable[[Path], None], says: str) -> None:
    path = tmp_path / f"{name}.sqlite"
    make(path)
    before = path.read_bytes()
    pgn = tmp_path / "x.pgn"
    pgn.write_text(GAME)
    assert main(["book", "import", str(pgn), "--out", str(path), "--no-progress"]) == 2
    _one_line(capsys, path, says)
    assert path.read_bytes() == before
    for spec in (f"material@depth=1+book:{path}", f"deepred:{path}"):
        assert main(["match", "material@depth=1", spec, "--games", "2", "--depth", "1"]) == 2
        _one_line(capsys, path, says)
        assert path.read_bytes() == before
    assert main(["match", "material@depth=1", "material@depth=1", "--games", "2", "--depth", "1",
                 "--learn", str(path)]) == 2
    _one_line(capsys, path, says)
    assert path.read_bytes() == before


@pytest.mark.parametrize(("name", "says"), [("missing", "no such book"), ("empty", "an empty file")])
def test_a_missing_or_empty_book_to_read_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     name: str, says: str) -> None:
    path = tmp_path / f"{name}.sqlite"
    if name == "empty":
        path.write_bytes(b"")
    for spec in (f"material@depth=1+book:{path}", f"deepred:{path}"):
        assert main(["match", "material@depth=1", spec, "--games", "2", "--depth", "1"]) == 2
        _one_line(capsys, path, says)
    assert not path.exists() or path.read_bytes() == b""


def test_a_book_is_read_row_by_row_too(tmp_path: Path) -> None:
    # A bad row written after the book was opened (by another process) is caught where it is read: the move
    # e2e4 (code 1804 = 12 + 64 x 28) of the start position, counts 'many'.
    import chess

    from search.book.keys import book_key
    from search.book.schema import BookError

    path = tmp_path / "b.sqlite"
    with Book(path) as book:
        _sql(f"INSERT INTO white VALUES ({book_key(chess.Board())}, 1804, 2, 'many', 0, 0)")(path)
        with pytest.raises(BookError, match=f"{path}: not a mimic book: table white has the row"):
            book.edges(chess.Board())


def test_disk_full_during_import_rolls_back_in_one_line(tmp_path: Path) -> None:
    # A book made first, then an import that may not grow any file past 48 KiB (RLIMIT_FSIZE, in a child process:
    # the limit would stop pytest's writes too): the batch's transaction fails and is rolled back; one line, exit 2.
    import resource
    import signal

    from .test_book import fischer_games

    path = tmp_path / "full.sqlite"
    with Book(path):
        pass
    pgn = tmp_path / "f.pgn"
    pgn.write_text(fischer_games(1, 60))
    limit = 48 * 1024

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run = subprocess.run(mimic_command("book", "import", str(pgn), "--out", str(path), "--no-progress",
                                       "--batch", "100"), capture_output=True, text=True, timeout=120,
                         preexec_fn=small_files)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "nothing of this batch was added" in lines[0], run.stderr
    with Book(path, readonly=True) as book:  # rolled back: still a good book, without the failed batch
        assert book.game_count() == 0 and book.edge_count() == 0
