"""The one check on every path mimic reads: a regular file, opened without blocking.

Opening a FIFO for reading blocks until something writes to it, and reading a device (``/dev/zero``,
``/dev/stdin``, a terminal) may never end, so a player spec, a label file, a net or a PGN that names one would
hang the run with no word. :func:`open_regular` opens the path with ``O_NONBLOCK`` (which returns at once for a
FIFO), checks with ``fstat`` that the open file is a regular one (a check of the path before opening it could be
raced), and only then hands back an ordinary blocking binary file. Every reader of a user's or mimic's own
files goes through it: :func:`search.formats.textfile.open_text` (EPD, PGN, CSV), :func:`search.runtime.readback.
read_text` (JSON, organisms) and :class:`search.runtime.readback.NpzFile` (nets, checkpoints, caches).

Imports the standard library and ``search.runtime.errors`` only.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import BinaryIO

from search.runtime.errors import MimicError

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # absent on Windows, where opening a named pipe does not block this way
_BINARY = getattr(os, "O_BINARY", 0)


class NotRegularFile(MimicError, ValueError):
    """A path to read that is not a regular file (a FIFO, a device, a folder, a socket): ``FILE: not a regular
    file (a WHAT must be one)``."""


def _not_regular(path: str | Path, what: str) -> str:
    article = "an" if what[:1].lower() in "aeiou" else "a"
    return f"{path}: not a regular file ({article} {what} must be one)"


def open_regular(path: str | Path, what: str = "file", *, error: type[MimicError] = NotRegularFile) -> BinaryIO:
    """``path`` opened for reading bytes, once it is known to be a regular file; otherwise ``error`` (a
    :class:`~search.runtime.errors.MimicError`) naming ``path`` and ``what`` it should be, with nothing read.
    Failing to open it at all (missing, no permission) raises ``OSError`` as ``open`` does.

    >>> import tempfile
    >>> open_regular(tempfile.gettempdir(), "label file")
    Traceback (most recent call last):
    search.runtime.files.NotRegularFile: ...: not a regular file (a label file must be one)
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _BINARY)
    except IsADirectoryError:
        raise error(_not_regular(path, what)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(_not_regular(path, what))
        if _NONBLOCK:
            import fcntl  # POSIX only, like O_NONBLOCK

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path, what: str = "file", *, error: type[MimicError] = NotRegularFile) -> bytes:
    """The bytes of the regular file ``path`` (:func:`open_regular`)."""
    with open_regular(path, what, error=error) as fh:
        return fh.read()


def sha256_of(path: str | Path, what: str = "file", *, error: type[MimicError] = NotRegularFile) -> str:
    """The SHA-256 (hex) of the bytes of the regular file ``path`` (:func:`open_regular`), read in chunks."""
    digest = hashlib.sha256()
    with open_regular(path, what, error=error) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
