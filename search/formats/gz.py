"""Gzip-compressed text files, read and appended transparently: a file is gzip when its bytes start with gzip's
magic number (``1f 8b``), whatever its name; a file mimic writes is gzip when its name ends with ``.gz``.

A file appended to as it grows (a label file) is a sequence of gzip members, one per write (RFC 1952 lets members
follow each other; ``gzip``, ``zcat`` and python's :mod:`gzip` read them as one stream). Each member is written
whole in one ``write`` and holds whole lines, with ``mtime`` 0, so the same lines give the same bytes. A run killed
in the middle of a write leaves a torn last member: :func:`repair` cuts it off (the lines in it were never
acknowledged), as :func:`mentor.labels.repair_partial_line` cuts a torn last line of a plain file.

Imports the standard library only.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

MAGIC = b"\x1f\x8b"


def is_gzip_name(path: str | Path) -> bool:
    """Whether mimic writes ``path`` gzip-compressed (its name ends with ``.gz``)."""
    return str(path).lower().endswith(".gz")


def is_gzip(path: str | Path) -> bool:
    """Whether the file at ``path`` is gzip (its first two bytes); ``False`` for a missing or empty file."""
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == MAGIC
    except OSError:
        return False


def member(data: bytes) -> bytes:
    """``data`` as one gzip member (level 6, ``mtime`` 0: the same data, the same bytes)."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def complete_length(path: str | Path, chunk: int = 1 << 20) -> int:
    """The length in bytes of the whole gzip members at the start of ``path`` (the rest is a torn member, or
    not gzip)."""
    end = 0  # offset of the end of the last whole member
    pos = 0  # offset of the next byte fed to the decompressor
    d = zlib.decompressobj(wbits=31)
    with open(path, "rb") as fh:
        data = b""
        while True:
            if not data:
                data = fh.read(chunk)
                if not data:
                    return end
            try:
                d.decompress(data)
            except zlib.error:
                return end
            if d.eof:
                consumed = len(data) - len(d.unused_data)
                pos += consumed
                end = pos
                data = d.unused_data
                d = zlib.decompressobj(wbits=31)
            else:
                pos += len(data)
                data = b""


def repair(path: str | Path) -> bool:
    """Cut a torn last member off the gzip file ``path`` (a run killed mid-write); True when something was cut."""
    p = Path(path)
    if not p.exists() or p.stat().st_size == 0:
        return False
    keep = complete_length(p)
    if keep == p.stat().st_size:
        return False
    with open(p, "rb+") as fh:
        fh.truncate(keep)
        os.fsync(fh.fileno())
    return True
