"""DeepRed's experience tree in SQLite: every game seen is a path of edges that count its results.

Owns the book file (:class:`Book`) and adding games to it (:meth:`Book.add_games`, used by ``mimic book import``
(:mod:`search.book.importer`) and by a match's ``--learn``); the keys are :mod:`search.book.keys`, the games
are read by :mod:`search.book.reader`, and a move is chosen from the book by :mod:`search.book.chooser`.
Imports chess, the standard library and :mod:`search.book` only.

**Store.** A SQLite file in WAL mode (readers in other processes go on while a match writes). As DeepRed
shards it, White's moves and Black's moves are two tables, ``white`` and ``black``, of the same shape::

    parent INTEGER, move INTEGER, child INTEGER, wins INTEGER, draws INTEGER, losses INTEGER,
    PRIMARY KEY (parent, move)  -- WITHOUT ROWID: the rows are the primary key's B-tree

one row per edge; ``wins``/``draws``/``losses`` count the games through the edge from the point of view of
the side that made the move. ``parent`` and ``child`` are book keys (:func:`search.book.keys.book_key`):
``chess.polyglot.zobrist_hash`` (an unsigned 64-bit integer) stored as the signed 64-bit integer with the same
bits (two's complement), since SQLite integers are signed. ``move`` is :func:`search.book.keys.move_code`:
from-square + 64 x to-square + 4096 x promotion piece type (0 for none); castling is the king's move (``e1g1``).
A table ``games`` holds the id of every game added (:func:`search.book.reader.game_id`), so that a game is never
counted twice: the same file imported again, or an import killed and run again, adds nothing for the games
already in. Games are added in batches, one transaction each (ids and edges together): a kill loses at
most the batch in flight, and nothing of it is half-counted.
"""

from __future__ import annotations

import contextlib
import io
import math
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import chess

from search.book.keys import book_key, code_move
from search.book.reader import GamePath, ReadCounts, paths_from
from search.book.schema import FORMAT, TABLES, BookError, bad_row, check_book_file, check_book_rows
from search.runtime.files import open_regular

_SCHEMA = [
    *(f"CREATE TABLE IF NOT EXISTS {t} (parent INTEGER NOT NULL, move INTEGER NOT NULL, child INTEGER NOT NULL, "
      "wins INTEGER NOT NULL DEFAULT 0, draws INTEGER NOT NULL DEFAULT 0, losses INTEGER NOT NULL DEFAULT 0, "
      "PRIMARY KEY (parent, move)) WITHOUT ROWID" for t in TABLES.values()),
    "CREATE TABLE IF NOT EXISTS games (id BLOB PRIMARY KEY) WITHOUT ROWID",
]

Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval: the ``z`` of :func:`wilson_lower`."""


def wilson_lower(wins: int, draws: int, losses: int, z: float = Z_95) -> float:
    """The lower bound of the Wilson score interval of a move's score ``(wins + draws / 2) / n`` (the mover's
    view), ``z`` = 1.96 by default (95% two-sided); 0 for a move never played. A draw counts as half a
    win in ``p``, and ``n`` is every game.

    >>> round(wilson_lower(3, 0, 0), 3), round(wilson_lower(30, 0, 0), 3), round(wilson_lower(5, 10, 5), 3)
    (0.439, 0.886, 0.299)
    """
    n = wins + draws + losses
    if n == 0:
        return 0.0
    p = (wins + draws / 2) / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (centre - spread) / (1 + z2 / n)

@dataclass(frozen=True)
class Edge:
    """One known move of a position: its counts from the mover's view."""

    move: chess.Move
    child: int
    wins: int
    draws: int
    losses: int

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / n``, the mover's view."""
        return (self.wins + self.draws / 2) / self.n if self.n else 0.0

    @property
    def lower(self) -> float:
        """The Wilson lower bound of :attr:`score` (:func:`wilson_lower`)."""
        return wilson_lower(self.wins, self.draws, self.losses)

@dataclass
class AddCounts:
    """What adding games did."""

    games: int = 0  # games added
    duplicates: int = 0  # games already in the book (or twice in the input): skipped
    edges: int = 0  # edge visits counted (a game of n plies counts n)
    new: int = 0  # edges the book did not have before
    updated: int = 0  # existing edges whose counts grew

def _outcome_columns(mover: bool, white: float) -> tuple[int, int, int]:
    mine = white if mover == chess.WHITE else 1.0 - white
    return (mine == 1.0, mine == 0.5, mine == 0.0)


class Book:
    """An experience tree on disk (see the module docstring). ``Book(path)`` creates the file when missing (or
    empty); ``readonly`` opens an existing one for choosing only (several processes may read while one writes).
    Any other file is refused with a :class:`~search.book.schema.BookError` naming it
    (:func:`~search.book.schema.check_book_file`), and left as it was."""

    def __init__(self, path: str | Path, *, readonly: bool = False, timeout: float = 60.0) -> None:
        self.path = Path(path)
        if readonly and not self.path.exists():
            raise BookError(f"{self.path}: no such book")
        if self.path.exists():  # a FIFO or a device would hang SQLite: the one check on a path mimic reads
            open_regular(self.path, "book", error=BookError).close()
        if readonly and self.path.stat().st_size == 0:
            raise BookError(f"{self.path}: an empty file, not a mimic book")
        try:
            self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise BookError(f"{self.path}: cannot open the book: {exc}") from exc
        try:
            if readonly:
                self.db.execute("PRAGMA query_only = 1")
            elif self._fresh():
                self._create()
            check_book_file(self.db, self.path)
            if not readonly:  # a writer would add to a bad row; a reader checks the rows it reads (edges_at)
                check_book_rows(self.db, self.path)
            if not readonly:  # only once the file is known to be mimic's book: WAL rewrites the header
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a commit survives a killed process
                self.db.execute("CREATE TEMP TABLE batch (parent INTEGER, move INTEGER, child INTEGER, wins INTEGER, "
                                "draws INTEGER, losses INTEGER, PRIMARY KEY (parent, move)) WITHOUT ROWID")
        except BaseException as exc:
            self.db.close()
            if isinstance(exc, sqlite3.OperationalError):  # locked, or an I/O error: the file may be fine
                raise BookError(f"{self.path}: cannot open the book: {exc}") from exc
            if isinstance(exc, sqlite3.Error):  # "file is not a database", "database disk image is malformed"
                raise BookError(f"{self.path}: not a mimic book: {exc}") from exc
            raise
        self._upsert = {mover: (f"INSERT INTO {t} (parent, move, child, wins, draws, losses) "
                                "SELECT parent, move, child, wins, draws, losses FROM batch WHERE true "
                                "ON CONFLICT (parent, move) DO UPDATE SET wins = wins + excluded.wins, "
                                "draws = draws + excluded.draws, losses = losses + excluded.losses")
                        for mover, t in TABLES.items()}

    def check_rows(self) -> None:
        """Raise :class:`~search.book.schema.BookError` at the first row mimic could not have written (a scan of
        the whole book: a command does it once for each book it reads, before it plays)."""
        try:
            check_book_rows(self.db, self.path)
        except sqlite3.Error as exc:
            raise BookError(f"{self.path}: not a mimic book: {exc}") from exc

    def _fresh(self) -> bool:
        """True for a new file (no tables and ``user_version`` 0): the one kind of file a writer initialises."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        return bool(version == 0 and tables == 0)

    def _create(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA:
                self.db.execute(statement)
            self.db.execute(f"PRAGMA user_version = {FORMAT}")
            self.db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        """Roll the open transaction back, if SQLite has not already (it does itself on a full disk)."""
        if self.db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reading
    def edges(self, board: chess.Board) -> list[Edge]:
        """The known moves of ``board``'s position (any order)."""
        return self.edges_at(book_key(board), board.turn)

    def edges_at(self, key: int, mover: bool) -> list[Edge]:
        """The known moves of the position with book key ``key`` and ``mover`` to move."""
        try:
            rows = self.db.execute(f"SELECT move, child, wins, draws, losses FROM {TABLES[mover]} WHERE parent = ?",
                                   (key,)).fetchall()
        except sqlite3.Error as exc:
            raise BookError(f"{self.path}: cannot read the book: {exc}") from exc
        for row in rows:
            if bad_row(row):
                raise BookError(f"{self.path}: not a mimic book: table {TABLES[mover]} has the row {row!r} "
                                "(counts must be non-negative integers, the move a move code)")
        return [Edge(code_move(m), c, w, d, lo) for m, c, w, d, lo in rows]

    def game_count(self) -> int:
        """Games in the book."""
        return int(self.db.execute("SELECT count(*) FROM games").fetchone()[0])

    def edge_count(self) -> int:
        """Edges in the book (both tables)."""
        return sum(int(self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in TABLES.values())

    def has_game(self, gid: bytes) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ?", (gid,)).fetchone() is not None

    # ------------------------------------------------------------------ writing
    def add_games(self, paths: Iterable[GamePath]) -> AddCounts:
        """Add the games of ``paths`` not in the book yet, all in one transaction (a batch): either every
        new game of the batch is counted or, if the process dies first, none is."""
        counts = AddCounts()
        seen: set[bytes] = set()
        totals: dict[tuple[bool, int, int], list[int]] = {}  # (mover, parent, move) -> child, w, d, l
        self.db.execute("BEGIN IMMEDIATE")
        try:
            fresh: list[tuple[bytes]] = []
            for p in paths:
                if p.id in seen or self.has_game(p.id):
                    counts.duplicates += 1
                    continue
                seen.add(p.id)
                fresh.append((p.id,))
                counts.games += 1
                for mover, parent, move, child in p.edges:
                    w, d, lo = _outcome_columns(mover, p.white_points)
                    row = totals.get((mover, parent, move))
                    if row is None:
                        totals[(mover, parent, move)] = [child, w, d, lo]
                    else:
                        row[1] += w
                        row[2] += d
                        row[3] += lo
                    counts.edges += 1
            self.db.executemany("INSERT INTO games (id) VALUES (?)", fresh)
            for mover, table in TABLES.items():
                rows = [(parent, move, row[0], row[1], row[2], row[3])
                        for (m, parent, move), row in totals.items() if m == mover]
                if not rows:
                    continue
                self.db.execute("DELETE FROM batch")
                self.db.executemany("INSERT INTO batch VALUES (?, ?, ?, ?, ?, ?)", rows)
                known = self.db.execute(f"SELECT count(*) FROM batch JOIN {table} USING (parent, move)").fetchone()[0]
                counts.new += len(rows) - known
                counts.updated += known
                self.db.execute(self._upsert[mover])
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise BookError(f"{self.path}: cannot add the games (nothing of this batch was added): {exc}") from exc
        except BaseException:
            self._rollback()
            raise
        return counts

    def add_pgn(self, text: str, max_plies: int | None = None,
                on_error: Callable[[str], None] | None = None) -> AddCounts:
        """Add the games of a PGN text (a match's finished game, for ``--learn``), each from its start
        position, in one transaction; games already in the book add nothing."""
        counts = ReadCounts()
        paths = list(paths_from(io.StringIO(text), "<game>", counts, on_error or (lambda msg: None), max_plies))
        return self.add_games(paths)
