"""Opening text files whatever their byte-order mark: UTF-8 (with or without BOM), UTF-16, UTF-32.

Editors on Windows save "Unicode" text as UTF-16 with a byte-order mark, or UTF-8 with one; read as
plain UTF-8 the first loses every line and the second its first. :func:`open_text` decodes all of
them transparently. A file without a BOM that holds NUL bytes (UTF-16 without a BOM, or not text at
all) cannot be read line by line: :class:`EncodingError` names the file and says so in one line.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import TextIO

from search.runtime.errors import MimicError

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


def detect_encoding(path: str | Path) -> str:
    """The codec that reads ``path``: from its byte-order mark, else ``utf-8``.

    Raises :class:`EncodingError` when a file without a BOM has NUL bytes in its first 4 KB.
    """
    with open(path, "rb") as fh:
        head = fh.read(4096)
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec
    if b"\x00" in head:
        raise EncodingError(path, "holds NUL bytes: UTF-16 without a byte-order mark, or not a text file; "
                                  "save it as UTF-8")
    return "utf-8"


def open_text(path: str | Path) -> TextIO:
    """``path`` opened for reading text in its encoding (see :func:`detect_encoding`).

    Undecodable bytes become U+FFFD, so a damaged line is reported by the parser that reads it.
    """
    return open(path, encoding=detect_encoding(path), errors="replace")
