"""The one label-chunk reader: a label file's lines cut into chunks, each parsed by a worker.

:func:`map_label_chunks` reads the lines of a label file (:func:`mentor.labels.label_lines`), cuts them into
chunks and runs ``work(lines, path, *args)`` on each, in this process or in worker processes
(:func:`search.runtime.workers.parallel_map`), returning the results in file order. Inside ``work``,
:func:`read_chunk` parses a chunk's lines into labels (:func:`mentor.labels.parse_label`), counting them in
a :class:`ChunkTally` and, given a cap (centipawns), leaving out and counting the labels beyond it. Used by
the label cache (:mod:`evolve.data.cache`), through which every trainer reads a label file.

May import: ``mentor.labels``, ``search.conventions``, ``search.runtime.workers``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mentor.labels import EpdError, Label, label_lines, parse_label
from search.conventions import ce_is_mate
from search.runtime.workers import parallel_map

T = TypeVar("T")


@dataclass
class ChunkTally:
    """What :func:`read_chunk` counted in one chunk: labels parsed, those beyond the cap (and the mates among
    them), and the malformed lines as (line number, reason)."""

    total: int = 0
    over: int = 0
    mates: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)


def read_chunk(lines: list[tuple[int, str]], path: str, tally: ChunkTally, cap: int | None = None,
               score: int = 0) -> Iterator[Label]:
    """The labels of ``lines`` (``(line number, text)`` of ``path``), counted in ``tally``; with ``cap``,
    labels whose ``|ce|`` exceeds it are counted and left out. ``score`` ``i`` ≥ 1: a crowd's label file, each label's
    ``ce`` replaced by its ``i``-th mentor's score (``c3``) first; a label without one is a malformed line."""
    for line_no, text in lines:
        try:
            label = parse_label(text, path, line_no)
        except EpdError as err:
            tally.errors.append((err.line_no, err.reason))
            continue
        if score:
            if label.crowd is None or len(label.crowd) < score:
                tally.errors.append((line_no, f"no score of mentor {score} (c3: a crowd's scores)"))
                continue
            label.ce = label.crowd[score - 1]
        tally.total += 1
        if cap is not None and abs(label.ce) > cap:
            tally.over += 1
            tally.mates += ce_is_mate(label.ce)
            continue
        yield label


def map_label_chunks(path: str | Path, work: Callable[..., T], *args: Any, chunk: int, n_jobs: int = 1,
                     limit: int | None = None, on_error: Callable[[EpdError], None] | None = None,
                     on_chunk: Callable[[int], None] | None = None) -> tuple[list[T], int]:
    """``work(lines, str(path), *args)`` on every ``chunk`` label lines of ``path`` (the first ``limit``), in
    ``n_jobs`` worker processes (``-1``: every core), in file order; the results and the number of lines read.
    Lines that are not labels go to ``on_error``; ``on_chunk(lines)`` is called as each chunk is done."""
    lines = list(label_lines(path, on_error=on_error))
    if limit is not None:
        lines = lines[:limit]
    chunks = [lines[i:i + chunk] for i in range(0, len(lines), chunk)]
    parts: list[T] = []
    for part, c in zip(parallel_map(work, chunks, n_jobs, args=(str(path), *args)), chunks, strict=True):
        parts.append(part)
        if on_chunk is not None:
            on_chunk(len(c))
    return parts, len(lines)
