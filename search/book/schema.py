"""The book file's schema and its check on open: a file that is not mimic's book is refused, never repaired.

Owns :data:`FORMAT`, :data:`TABLES`, the expected tables and columns (:data:`COLUMNS`), the bounds of a row
(:data:`MAX_MOVE_CODE`, :data:`MAX_COUNT`), :class:`BookError` and :func:`check_book_file`. Imports chess, the
standard library and :mod:`search.runtime` only (ARCHITECTURE.md, Contracts: Experience tree; Errors).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import chess

from search.runtime.errors import MimicError

FORMAT = 1
"""The book file's format version (``PRAGMA user_version``)."""

TABLES = {chess.WHITE: "white", chess.BLACK: "black"}
"""The edge table of each mover."""

_EDGE_COLUMNS = (("parent", "INTEGER"), ("move", "INTEGER"), ("child", "INTEGER"), ("wins", "INTEGER"),
                 ("draws", "INTEGER"), ("losses", "INTEGER"))
COLUMNS = {"white": _EDGE_COLUMNS, "black": _EDGE_COLUMNS, "games": (("id", "BLOB"),)}
"""Every table of a book and its columns (name, declared type), in order."""

MAX_MOVE_CODE = 6 << 12
"""Move codes (:func:`search.book.keys.move_code`) are below this: promotion piece type 5 (queen) at most."""
MAX_COUNT = 1 << 40
"""A count of games through an edge above this (a trillion games) is not a count mimic wrote."""

_BAD_MOVE = (f"typeof(move) != 'integer' OR move < 0 OR move >= {MAX_MOVE_CODE} OR (move >> 12) = 1 "
             "OR (move & 63) = ((move >> 6) & 63)")
_BAD_COUNT = " OR ".join(f"typeof({c}) != 'integer' OR {c} < 0 OR {c} > {MAX_COUNT}"
                         for c in ("wins", "draws", "losses"))


class BookError(MimicError, ValueError):
    """A book file that cannot be used (not mimic's book, damaged, unwritable); the message names the file."""


def check_book_file(db: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`BookError` naming ``path`` unless the open database ``db`` is a mimic book of
    :data:`FORMAT`: its ``user_version``, its tables and their columns with their types (the rows are
    :func:`check_book_rows`'s; ``sqlite3`` errors of a damaged file propagate, for the caller to name)."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != FORMAT:
        raise BookError(f"{path}: not a mimic book: user_version {version}, expected {FORMAT}")
    for table, columns in COLUMNS.items():
        found = [(str(name), str(kind).upper()) for _, name, kind, *_ in db.execute(f"PRAGMA table_info({table})")]
        if not found:
            raise BookError(f"{path}: not a mimic book: no table {table}")
        for name, kind in columns:
            have = dict(found)
            if name not in have:
                raise BookError(f"{path}: not a mimic book: table {table} has no column {name}")
            if have[name] != kind:
                raise BookError(f"{path}: not a mimic book: column {table}.{name} is {have[name] or 'untyped'}, "
                                f"expected {kind}")
        if len(found) != len(columns):
            raise BookError(f"{path}: not a mimic book: table {table} has the columns "
                            f"{', '.join(n for n, _ in found)}, expected {', '.join(n for n, _ in columns)}")


def check_book_rows(db: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`BookError` naming ``path`` at the first row mimic could not have written: a move code or a
    count out of bounds or not an integer, a game id not bytes. One scan of every table (about 0.2 s a
    million rows): a writer's open does it, and a command checks each book it reads once before it plays."""
    for table in TABLES.values():
        row = db.execute(f"SELECT parent, move, wins, draws, losses FROM {table} WHERE {_BAD_MOVE} OR {_BAD_COUNT} "
                         "OR typeof(parent) != 'integer' OR typeof(child) != 'integer' LIMIT 1").fetchone()
        if row is not None:
            raise BookError(f"{path}: not a mimic book: table {table} has the row (parent, move, wins, draws, "
                            f"losses) {tuple(row)!r}: counts are integers in [0, {MAX_COUNT}], a move is a move code")
    row = db.execute("SELECT id FROM games WHERE typeof(id) != 'blob' LIMIT 1").fetchone()
    if row is not None:
        raise BookError(f"{path}: not a mimic book: table games has the id {row[0]!r}, expected bytes")


def bad_row(row: tuple[object, ...]) -> bool:
    """True for an edge row ``(move, child, wins, draws, losses)`` that :func:`check_book_file` would refuse."""
    if not all(type(v) is int for v in row):
        return True
    move, _, *counts = row
    assert isinstance(move, int)
    return (not 0 <= move < MAX_MOVE_CODE or move >> 12 == 1 or move & 63 == (move >> 6) & 63
            or not all(0 <= c <= MAX_COUNT for c in counts if isinstance(c, int)))
