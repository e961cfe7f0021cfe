"""``mimic book import``: add every game of PGN files to a book, in batches, resumably, files read in parallel.

Owns :func:`import_games` and its counts (:class:`ImportCounts`). Imports chess, :mod:`search.book` and
:mod:`search.runtime` only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from search.book.reader import GamePath, ReadCounts, read_paths
from search.book.tree import AddCounts, Book
from search.runtime.workers import parallel_map


@dataclass
class ImportCounts:
    """What :func:`import_games` did so far."""

    read: ReadCounts
    added: AddCounts
    seconds: float = 0.0
    file: str = ""  # the file being read

    @property
    def edges_per_second(self) -> float:
        return self.added.edges / self.seconds if self.seconds > 0 else 0.0


def _read_file(path: str, max_plies: int | None) -> tuple[list[GamePath], ReadCounts, list[str]]:
    """Every :class:`GamePath` of one PGN file, what reading it found, and its error reports (a worker's task)."""
    counts, errors = ReadCounts(), list[str]()
    paths = list(read_paths(path, counts, errors.append, max_plies))
    return paths, counts, errors


def import_games(book: Book, files: Sequence[str | Path], *, batch: int = 1000, max_plies: int | None = None,
                 jobs: int = 1, on_error: Callable[[str], None] | None = None,
                 on_batch: Callable[[ImportCounts], None] | None = None) -> ImportCounts:
    """Add every game of the PGN ``files`` to ``book``, ``batch`` games a transaction (``on_batch`` is told
    after each). Resumable: the games already in the book are skipped, so an import killed and run again
    (or run twice) counts every game once. With ``jobs`` > 1 the files are read (parsed, keyed) in that many
    worker processes (:func:`~search.runtime.workers.parallel_map`), a file a task, while this process writes;
    otherwise each file is streamed here, a batch at a time. The book is the same either way (files are added
    in the order given)."""
    t0 = time.perf_counter()
    out = ImportCounts(ReadCounts(), AddCounts())
    report = on_error or (lambda msg: None)

    def flush(pending: list[GamePath]) -> None:
        c = book.add_games(pending)
        a = out.added
        a.games += c.games
        a.duplicates += c.duplicates
        a.edges += c.edges
        a.new += c.new
        a.updated += c.updated
        pending.clear()
        out.seconds = time.perf_counter() - t0
        if on_batch is not None:
            on_batch(out)

    pending: list[GamePath] = []
    if jobs == 1 or len(files) <= 1:  # streamed here, a batch at a time: bounded memory, progress within a file
        for f in files:
            out.file = str(f)
            for p in read_paths(f, out.read, report, max_plies):
                pending.append(p)
                if len(pending) >= batch:
                    flush(pending)
            flush(pending)
        out.seconds = time.perf_counter() - t0
        return out
    for f, (paths, counts, errors) in zip(files, parallel_map(_read_file, [str(f) for f in files], jobs,
                                                              args=(max_plies,)), strict=True):
        out.file = str(f)
        for msg in errors:
            report(msg)
        out.read.read += counts.read
        out.read.malformed += counts.malformed
        out.read.unfinished += counts.unfinished
        for i in range(0, len(paths), batch):
            pending.extend(paths[i:i + batch])
            flush(pending)
    out.seconds = time.perf_counter() - t0
    return out

