"""Reading EPD files, with errors that name the file and line.

A malformed line (a bad FEN, an illegal ``bm`` move, an impossible position) is reported as an
:class:`EpdError` through ``on_error`` and skipped; reading goes on. Blank lines are ignored. EPD has
no comment syntax, but lines starting with ``#`` (old mimic label files began with some) are skipped
and handed to ``on_comment``. Line endings (LF or CRLF) do not matter; UTF-8 with or without a
byte-order mark and UTF-16/32 with one are read transparently (:mod:`search.formats.textfile`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess

from search.formats.textfile import EncodingError, open_text
from search.runtime.errors import MimicError


class EpdError(MimicError, ValueError):
    """A malformed EPD line; ``str()`` reads ``FILE:LINE: reason``."""

    def __init__(self, path: str | Path, line_no: int, reason: str) -> None:
        super().__init__(f"{path}:{line_no}: {reason}")
        self.path = str(path)
        self.line_no = line_no
        self.reason = reason


@dataclass
class EpdRecord:
    """One position of an EPD file with its operations (python-chess's ``set_epd`` result)."""

    path: str
    line_no: int
    board: chess.Board
    ops: dict[str, Any]

    @property
    def id(self) -> str:
        value = self.ops.get("id")
        return str(value) if value is not None else f"{Path(self.path).name}:{self.line_no}"


def parse_epd_line(line: str, path: str | Path = "<string>", line_no: int = 0) -> EpdRecord:
    """Parse one EPD line or raise :class:`EpdError`."""
    board = chess.Board()
    try:
        ops = board.set_epd(line.strip())
    except ValueError as exc:
        raise EpdError(path, line_no, f"{exc}") from exc
    status = board.status()
    if status & ~(chess.STATUS_BAD_CASTLING_RIGHTS | chess.STATUS_INVALID_EP_SQUARE
                  | chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK):
        raise EpdError(path, line_no, f"impossible position ({status!r})")
    return EpdRecord(str(path), line_no, board, ops)


def epd_lines(path: str | Path, on_error: Callable[[EpdError], None] | None = None,
              on_comment: Callable[[int, str], None] | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line of ``path`` that may hold a position: blank lines are left out,
    and each ``#`` line goes to ``on_comment(line_no, text)`` instead (EPD has no comments). A file that cannot
    be decoded as text is reported once, as line 1 (raised when ``on_error`` is None), and yields nothing."""
    try:
        fh = open_text(path, "EPD file")
    except EncodingError as exc:
        err = EpdError(path, 1, exc.reason)
        if on_error is None:
            raise err from exc
        on_error(err)
        return
    with fh:
        for line_no, line in enumerate(fh, 1):
            text = line.strip()
            if not text:
                continue
            if text.startswith("#"):
                if on_comment is not None:
                    on_comment(line_no, text)
                continue
            yield line_no, text


def read_epd(path: str | Path, on_error: Callable[[EpdError], None] | None = None,
             on_comment: Callable[[int, str], None] | None = None) -> Iterator[EpdRecord]:
    """Yield every well-formed position of ``path``; report each malformed line to ``on_error``.

    With ``on_error=None`` a malformed line raises. A file that cannot be decoded as text is reported
    once, as line 1, and yields nothing. ``on_comment(line_no, text)`` receives each ``#`` line.
    """
    for line_no, text in epd_lines(path, on_error, on_comment):
        try:
            yield parse_epd_line(text, path, line_no)
        except EpdError as err:
            if on_error is None:
                raise
            on_error(err)
