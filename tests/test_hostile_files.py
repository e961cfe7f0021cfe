"""Hostile files (issue 23): books and net files crafted by the tests, each refused in one line naming the file.

Every crafted file is read through the command line in-process (``evolve.cli.main``): exit 2, exactly one line
on stderr, naming the file, and the file's bytes unchanged; the good paths are covered by test_book.py and
test_net.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evolve.cli import main
from search.book.schema import FORMAT
from search.book.tree import Book

from .conftest import mimic_command, npy_bytes, npz_of

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
    assert main(["uci", "--eval", f"deepred:{path}"]) == 2  # refused before it reads a command
    _one_line(capsys, path, says)
    suite = tmp_path / "one.epd"
    suite.write_text('4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id "one";\n')
    assert main(["suite", str(suite), "--engine", f"material@depth=1+book:{path}", "--movetime", "0.01"]) == 2
    _one_line(capsys, path, says)
    assert main(["tournament", "expert@depth=1", f"material@depth=1+book:{path}", "--games", "1", "--depth", "1",
                 "--out", str(tmp_path / "t.pgn")]) == 2
    _one_line(capsys, path, says)
    assert not (tmp_path / "t.pgn").exists()
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


def test_a_refused_run_creates_no_learn_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # games --resume with a sidecar that is not a game set's is refused before the --learn book exists; match
    # with a bad time control too. A player reading the --learn book itself plays from the book it creates.
    out = tmp_path / "g.pgn"
    out.write_text("")
    Path(f"{out}.json").write_text("[1, 2]")
    book = tmp_path / "learned.sqlite"
    assert main(["games", "material@depth=1", "expert@depth=1", "--depth", "1", "--out", str(out), "--resume",
                 "--learn", str(book)]) == 2
    assert "sidecar is a list, not an object" in capsys.readouterr().err
    assert main(["match", "material@depth=1", "expert@depth=1", "--tc", "garbage", "--learn", str(book)]) == 2
    capsys.readouterr()
    assert not book.exists()
    assert main(["games", f"material@depth=1+book:{book}", "expert@depth=1", "--depth", "1", "--games", "1",
                 "--max-plies", "8", "--out", str(tmp_path / "h.pgn"), "--learn", str(book)]) == 0
    with Book(book, readonly=True) as b:  # the one game of 8 plies learned: one game, an edge per ply
        assert (b.game_count(), b.edge_count()) == (1, 8)


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


# ---------------------------------------------------------------------- net files
DATA = Path(__file__).parent / "data"


def _net_parts(kind: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and header of a good file of ``kind`` (the shipped test nets; a move net of 8 hidden units)."""
    if kind == "movenet":
        from organisms.movenet import N_MOVE_FEATURES, make_header
        rng = np.random.default_rng(0)
        return ({"w_in": rng.normal(size=(N_MOVE_FEATURES, 8)).astype(np.float32), "b_in": np.zeros(8, np.float32),
                 "w_out": np.ones((8, 1), np.float32), "b_out": np.zeros(1, np.float32)}, make_header(8))
    from organisms.net import read_net_file
    return read_net_file(DATA / ("material_net.npz" if kind == "net" else "material_cmp.npz"))


def _with_header(header: str) -> Callable[[Path, str], None]:
    def make(path: Path, kind: str) -> None:
        arrays, _ = _net_parts(kind)
        npz_of(path, {"header": npy_bytes(np.array(header)), **{n: npy_bytes(a) for n, a in arrays.items()}})
    return make


def _widened(value: object) -> Callable[[Path, str], None]:
    """A good file whose header has ``value`` as a layer width (JSON allows Infinity and NaN, as Python writes)."""
    def make(path: Path, kind: str) -> None:
        arrays, header = _net_parts(kind)
        if kind == "net":
            header["groups"][0][3] = value
        elif kind == "cmp":
            header["pos2vec"][-1] = value
        else:
            header["hidden"] = value
        npz_of(path, {"header": npy_bytes(np.array(json.dumps(header))),
                      **{n: npy_bytes(a) for n, a in arrays.items()}})
    return make


def _claims_huge(path: Path, kind: str) -> None:
    """A good header and first array whose .npy header claims 10^6 x 10^6 float32 (4 TB), over 8 bytes of data."""
    arrays, header = _net_parts(kind)
    first = sorted(arrays)[0]
    fake = io.BytesIO()
    np.lib.format.write_array_header_1_0(fake, {"descr": "<f4", "fortran_order": False, "shape": (10**6, 10**6)})
    members = {n: npy_bytes(a) for n, a in arrays.items()}
    members[first] = fake.getvalue() + b"\0" * 8
    npz_of(path, {"header": npy_bytes(np.array(json.dumps(header))), **members})


def _bare_npy(path: Path, kind: str) -> None:
    path.write_bytes(npy_bytes(np.zeros((3, 3), np.float32)))


def _not_zip(path: Path, kind: str) -> None:
    path.write_bytes(b"PK but not a zip file at all\n" * 50)


NETS: list[tuple[str, Callable[[Path, str], None], str]] = [
    ("deep", _with_header("[" * 100_000 + "]" * 100_000), "nests deeper than"),
    ("inf", _widened(math.inf), "is inf, expected a whole number"),
    ("nan", _widened(math.nan), "is nan, expected a whole number"),
    ("negative", _widened(-4), "is -4, expected a whole number"),
    ("huge", _widened(10**12), "is 1000000000000, expected a whole number"),
    ("fraction", _widened(2.5), "is 2.5, expected a whole number"),
    ("claims-huge", _claims_huge, "claims shape (1000000, 1000000) (1,000,000,000,000 elements)"),
    ("bare-npy", _bare_npy, "a bare .npy array"),
    ("not-zip", _not_zip, "not a net file"),
]
SPECS = {"net": "net:{}", "cmp": "cmp:{}", "movenet": "material@search=prob-net:{}"}


@pytest.mark.parametrize("kind", list(SPECS))
@pytest.mark.parametrize(("name", "make", "says"), NETS, ids=[n[0] for n in NETS])
def test_a_hostile_net_file_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str,
                                                   name: str, make: Callable[[Path, str], None], says: str) -> None:
    path = tmp_path / f"{name}.npz"
    make(path, kind)
    before = path.read_bytes()
    assert main(["match", SPECS[kind].format(path), "material", "--games", "2", "--depth", "1"]) == 2
    _one_line(capsys, path, says)
    assert path.read_bytes() == before


def test_disk_full_while_a_match_learns_is_one_line(tmp_path: Path) -> None:
    # The --learn book made first (16 KiB, its write-ahead log folded in on closing), then a match whose files may
    # not grow past 36 KiB (the WAL index takes 32 KiB): each game's transaction adds a few 4 KiB pages to the
    # log, so one of the 8 games cannot be written; it is rolled back, the match stops with one line and exit 2,
    # and the book is still a good one holding the games before it.
    import resource
    import signal

    path = tmp_path / "learn.sqlite"
    with Book(path):
        pass
    limit = 36 * 1024

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run = subprocess.run(mimic_command("match", "material@depth=1", "material@depth=1", "--games", "8", "--depth",
                                       "1", "--learn", str(path)), capture_output=True, text=True, timeout=120,
                         preexec_fn=small_files)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "nothing of this batch was added" in lines[0], run.stderr
    played = len([line for line in run.stdout.splitlines() if line.startswith("game ")])
    with Book(path, readonly=True) as book:
        assert book.game_count() == played < 8


# Issue 36: a FIFO hung every reader that did not go through the one path check (search/runtime/files.py). Each
# command is run in a thread: one that blocks on opening the FIFO is caught by the join's timeout, then released
# by opening the FIFO's other end. "/dev/zero" (a device that never ends) stands for the other non-regular files.
FIFO_COMMANDS = [
    ("match", "pnet:{fifo}", "expert", "--games", "2", "--nodes", "50"),
    ("match", "net:{fifo}", "expert", "--games", "2", "--nodes", "50"),
    ("match", "cmp:{fifo}", "expert", "--games", "2", "--nodes", "50"),
    ("match", "deepred:{fifo}", "expert", "--games", "2", "--nodes", "50"),
    ("uci", "--eval", "pnet:{fifo}"),
    ("evolve", "{fifo}", "--out", "{tmp}/evolved", "--generations", "1"),
    ("train-pnet", "{labels}", "--more-labels", "{fifo}", "--out", "{tmp}/pnet", "--epochs", "1"),
    ("label", "--source", "{fifo}.pgn", "--mentor", "builtin", "--depth", "1", "--positions", "2", "--out",
     "{tmp}/l.epd"),
    ("book", "import", "{fifo}.pgn", "--out", "{tmp}/book.sqlite"),
    ("suite", "{fifo}.epd", "--engine", "material"),
    ("evolve", "/dev/zero", "--out", "{tmp}/zero", "--generations", "1"),
]


@pytest.mark.parametrize("argv", FIFO_COMMANDS, ids=[" ".join(a[:2]) for a in FIFO_COMMANDS])
def test_a_fifo_or_a_device_is_refused_in_one_line_without_blocking(tmp_path: Path, argv: tuple[str, ...]) -> None:
    import os
    import threading

    from mentor.labels import Label, LabelWriter
    from mentor.samplers import random_playouts

    from .conftest import run_mimic

    fifo = tmp_path / "named"
    for suffix in ("", ".pgn", ".epd"):
        os.mkfifo(f"{fifo}{suffix}")
    labels = tmp_path / "labels.epd"
    with LabelWriter(labels) as w:
        for s in random_playouts(20, 3, min_plies=2, max_plies=20):
            w.write(Label(s.board, 10, 1, [], None, None, "test", None))
    args = [a.format(fifo=fifo, tmp=tmp_path, labels=labels) for a in argv]
    done: list[subprocess.CompletedProcess[str]] = []
    t = threading.Thread(target=lambda: done.append(run_mimic(*args)), daemon=True)
    t.start()
    t.join(timeout=20)
    blocked = t.is_alive()
    if blocked:  # release the reader (opening the write end without blocking fails when none is reading)
        for suffix in ("", ".pgn", ".epd"):
            with contextlib.suppress(OSError):
                os.close(os.open(f"{fifo}{suffix}", os.O_WRONLY | os.O_NONBLOCK))
        t.join(timeout=20)
    assert not blocked, f"mimic {' '.join(args)} blocks on a FIFO"
    proc = done[0]
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "not a regular file" in proc.stderr, proc.stderr
