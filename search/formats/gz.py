"""Gzip-compressed text files, read and appended transparently: a file is gzip when its bytes start with gzip's
magic number (``1f 8b``), whatever its name; a file mimic writes is gzip when its name ends with ``.gz``.

A file appended to as it grows (a label file) is a sequence of gzip members, one per write (RFC 1952 lets members
follow each other; ``gzip``, ``zcat`` and python's :mod:`gzip` read them as one stream). Each member is written
whole in one ``write`` and holds whole lines, with ``mtime`` 0, so the same lines give the same bytes.

:func:`regions` walks a file member by member. A run killed in the middle of a write leaves a *torn last member*:
the file ends inside it, every byte of it decompressing without error, and no whole member after it. That, and only
that, :func:`repair` cuts (the lines in it were never acknowledged), as :func:`mentor.labels.repair_partial_line`
cuts a torn last line of a plain file. Anything else (a byte changed, a member cut short with others after it,
bytes that are not gzip after a member) is damage: :func:`check` raises :class:`Damaged` naming the damaged
member's byte offset and leaves the file alone, and :func:`recover` gives the text a damaged stretch still holds
(what decompresses before the damage, byte for byte), for a repair that keeps every readable line.

Imports the standard library only.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

MAGIC = b"\x1f\x8b"
HEADER = MAGIC + b"\x08"
"""The first bytes of every member (the magic number, then the deflate method): where a member may start."""
TORN = "the file ends inside it"
"""A member's problem when the bytes ran out before its end without any error: a torn last member."""
CHUNK = 1 << 16
"""Bytes read and fed at a time."""
_PIECE = 1 << 20
"""Most bytes decompressed by one call (a tiny member may decompress to a great deal)."""


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


@dataclass(frozen=True)
class Region:
    """A stretch ``[start, end)`` of a gzip file (byte offsets): a whole member when ``problem`` is ``None``, else
    bytes that are not one, from a member's start to the next whole member (or the file's end): ``problem`` is
    :data:`TORN` (the file ends inside the member, nothing wrong before) or what is wrong (zlib's reason)."""

    start: int
    end: int
    problem: str | None = None


class Damaged(ValueError):
    """A gzip file damaged elsewhere than a torn last member: ``str()`` reads ``FILE: reason``; ``offset`` is the
    byte where the damaged member starts."""

    def __init__(self, path: str | Path, region: Region) -> None:
        super().__init__(f"{path}: the gzip member at byte {region.start} is damaged ({region.problem})")
        self.path, self.offset, self.region = str(path), region.start, region


def _inflate(d: zlib._Decompress, data: bytes, out: bytearray | None) -> None:
    """Feed ``data`` to ``d`` (stopping at the member's end), adding what it gives to ``out`` when given."""
    while data:
        piece = d.decompress(data, _PIECE)
        if out is not None:
            out += piece
        if d.eof:
            return
        data = d.unconsumed_tail


def _member(fh: BinaryIO, start: int, stop: int, keep: bool = False) -> tuple[int, str | None, bytes]:
    """Decode the member at byte ``start`` of ``fh``, reading no further than ``stop``: ``(end, problem, text)``, with
    ``end`` the byte after the member (or where the reading stopped), ``problem`` ``None`` for a whole member,
    :data:`TORN` or zlib's reason, and ``text`` (when ``keep``) what it decompressed to: exactly what comes before
    the damage, the bytes after the last good one being fed one at a time."""
    d = zlib.decompressobj(wbits=31)
    out = bytearray() if keep else None
    pos = start
    fh.seek(start)
    while pos < stop:
        data = fh.read(min(CHUNK, stop - pos))
        if not data:
            break
        saved, mark = (d.copy(), len(out)) if out is not None else (None, 0)
        try:
            _inflate(d, data, out)
        except zlib.error as exc:
            if out is not None and saved is not None:  # again, a byte at a time: keep what comes before the damage
                del out[mark:]
                for i in range(len(data)):
                    try:
                        _inflate(saved, data[i:i + 1], out)
                    except zlib.error:
                        break
            return pos, str(exc).partition("while decompressing data: ")[2] or str(exc), bytes(out or b"")
        if d.eof:
            return pos + len(data) - len(d.unused_data), None, bytes(out or b"")
        pos += len(data)
    if out is not None:
        with contextlib.suppress(zlib.error):
            out += d.flush()
    return pos, TORN, bytes(out or b"")


def _next_member(fh: BinaryIO, start: int, stop: int) -> int:
    """The offset of the first whole member that starts at or after ``start`` (before ``stop``), else ``stop``."""
    pos = start
    while pos < stop:
        fh.seek(pos)
        data = fh.read(min(CHUNK + len(HEADER) - 1, stop - pos))
        i = data.find(HEADER)
        while i >= 0:
            if _member(fh, pos + i, stop)[1] is None:
                return pos + i
            i = data.find(HEADER, i + 1)
        if len(data) < len(HEADER):
            break
        pos += len(data) - len(HEADER) + 1
    return stop


def regions(path: str | Path) -> Iterator[Region]:
    """The stretches of the gzip file ``path`` in order (:class:`Region`): its whole members, and what lies between
    them that is not one. A member that runs to the end of the file without an error is torn when no whole member
    starts inside it; when one does, it was cut short with others after it (damage)."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        pos = 0
        while pos < size:
            end, problem, _ = _member(fh, pos, size)
            if problem is None:
                yield Region(pos, end)
                pos = end
                continue
            nxt = _next_member(fh, pos + 1, size)
            if problem == TORN and nxt < size:
                problem = f"cut short: a whole member follows at byte {nxt}"
            yield Region(pos, nxt, problem)
            pos = nxt


def check(path: str | Path) -> Region | None:
    """The torn last member of the gzip file ``path`` when there is one, else ``None`` (every member whole);
    :class:`Damaged` for damage anywhere else (the first damaged member). Reads the file, never changes it."""
    for region in regions(path):
        if region.problem is None:
            continue
        if region.problem == TORN:  # the file ends inside it, and no whole member follows: the last
            return region
        raise Damaged(path, region)
    return None


def recover(path: str | Path, region: Region) -> list[bytes]:
    """What the stretch ``region`` of the gzip file ``path`` (not a whole member) still decompresses to, one text per
    member that starts inside it: the first member's bytes up to the damage, then the same for each further one."""
    out: list[bytes] = []
    with open(path, "rb") as fh:
        pos = region.start
        while pos < region.end:
            out.append(_member(fh, pos, region.end, keep=True)[2])
            fh.seek(pos + 1)  # the next member's start may lie inside what this one's decoding swallowed
            i = fh.read(region.end - pos - 1).find(HEADER)
            if i < 0:
                break
            pos = pos + 1 + i
    return out


def complete_length(path: str | Path) -> int:
    """The length in bytes of the whole gzip members at the start of ``path`` (where the first stretch that is not
    a whole member starts, or the file's size)."""
    for region in regions(path):
        if region.problem is not None:
            return region.start
    return os.path.getsize(path)


def repair(path: str | Path) -> Region | None:
    """Cut a torn last member off the gzip file ``path`` (a run killed mid-write): the region cut, or ``None`` when
    there is none; :class:`Damaged`, and the file untouched, when it is damaged anywhere else (:func:`check`)."""
    p = Path(path)
    if not p.exists() or p.stat().st_size == 0:
        return None
    torn = check(p)
    if torn is None:
        return None
    with open(p, "rb+") as fh:
        fh.truncate(torn.start)
        os.fsync(fh.fileno())
    return torn
