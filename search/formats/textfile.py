"""Opening text files whatever their byte-order mark: UTF-8 (with or without BOM), UTF-16, UTF-32.

Editors on Windows save "Unicode" text as UTF-16 with a byte-order mark, or UTF-8 with one; read as
plain UTF-8 the first loses every line and the second its first. :func:`open_text` decodes all of
them transparently, and gzip-compressed UTF-8 too (:mod:`search.formats.gz`). A file without a BOM
that holds NUL bytes (UTF-16 without a BOM, or not text at all) cannot be read line by line:
:class:`EncodingError` names the file and says so in one line.
"""

from __future__ import annotations

import codecs
import gzip
import io
import zlib
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from search.formats import gz
from search.runtime.errors import MimicError
from search.runtime.files import open_regular

_BOMS = (  # longest first: the UTF-32 LE mark begins with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class EncodingError(MimicError, ValueError):
    """A file we cannot decode as text; ``str()`` reads ``FILE: reason``."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


def detect_encoding(path: str | Path, what: str = "text file") -> str:
    """The codec that reads ``path``: from its byte-order mark, else ``utf-8``.

    Raises :class:`EncodingError` when a file without a BOM has NUL bytes in its first 4 KB, and
    :class:`~search.runtime.files.NotRegularFile` for a FIFO, a device or a folder (nothing is read).
    """
    with open_regular(path, what) as fh:
        head = fh.read(4096)
    return _encoding_of(head, path)


def _encoding_of(head: bytes, path: str | Path) -> str:
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec
    if b"\x00" in head:
        raise EncodingError(path, "holds NUL bytes: UTF-16 without a byte-order mark, or not a text file; "
                                  "save it as UTF-8")
    return "utf-8"


def open_text(path: str | Path, what: str = "text file") -> TextIO:
    """``path`` opened for reading text in its encoding (see :func:`detect_encoding`).

    Undecodable bytes become U+FFFD, so a damaged line is reported by the parser that reads it. Only a regular
    file is opened (:func:`search.runtime.files.open_regular`; ``what`` names it in the error).
    """
    fh = open_regular(path, what)
    try:
        head = fh.read(4096)
        fh.seek(0)
        if head.startswith(gz.MAGIC):  # gzip (search/formats/gz.py): UTF-8 inside, with or without a BOM
            return io.TextIOWrapper(io.BufferedReader(_Gunzip(fh, path)), encoding="utf-8-sig", errors="replace")
        return io.TextIOWrapper(fh, encoding=_encoding_of(head, path), errors="replace")
    except BaseException:
        fh.close()
        raise


class _Gunzip(io.RawIOBase):
    """The decompressed bytes of a gzip file; a stream cut short or damaged is an :class:`EncodingError` naming the
    file (one line), not a traceback."""

    def __init__(self, raw: BinaryIO, path: str | Path) -> None:
        super().__init__()
        self.raw, self.path = raw, path
        self.gz = gzip.GzipFile(fileobj=raw, mode="rb")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.gz.read(len(buffer))
        except (EOFError, OSError, zlib.error) as exc:
            raise EncodingError(self.path, f"a gzip stream cut short or damaged ({exc}); a killed run's file is "
                                           "repaired by resuming it") from exc
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.gz.close()
            self.raw.close()
        super().close()
