"""Reading PGN files game by game, with errors that name the file and line.

A game with a parse error (an illegal or unreadable move, a bad FEN header) or of another variant is
reported as ``FILE:LINE: reason`` through ``on_error`` and skipped; reading goes on. UTF-8 with or
without a byte-order mark and UTF-16/32 with one are read transparently (:mod:`search.formats.textfile`); a
file that cannot be decoded as text is reported once and yields nothing.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import chess
import chess.pgn

from search.formats.textfile import EncodingError, open_text


class _LineCounter:
    """A text handle that counts the lines read through it (python-chess reads PGN line by line)."""

    def __init__(self, fh: TextIO) -> None:
        self.fh = fh
        self.lines = 0
        self.first_text: int | None = None  # line number of the first non-blank line since mark()

    def mark(self) -> None:
        self.first_text = None

    def readline(self) -> str:
        line = self.fh.readline()
        if line:
            self.lines += 1
            if self.first_text is None and line.strip():
                self.first_text = self.lines
        return line


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)


def read_games(path: str | Path, on_error: Callable[[str], None] | None = None
               ) -> Iterator[tuple[int, chess.pgn.Game]]:
    """``(first line, game)`` for every well-formed standard-chess game of a PGN file."""
    report = on_error or _warn
    try:
        fh = open_text(path, "PGN file")
    except EncodingError as exc:
        report(f"{path}:1: {exc.reason}")
        return
    pgn_logger = logging.getLogger("chess.pgn")  # python-chess logs each error; we report it ourselves
    level = pgn_logger.level
    pgn_logger.setLevel(logging.CRITICAL)
    try:
        with fh:
            counter = _LineCounter(fh)
            while True:
                counter.mark()
                try:
                    game = chess.pgn.read_game(counter)  # type: ignore[call-overload]
                except (ValueError, IndexError) as exc:
                    report(f"{path}:{counter.first_text or counter.lines}: unreadable game: {exc}")
                    continue
                if game is None:
                    return
                start = counter.first_text or counter.lines
                reason = None
                if game.errors:
                    reason = f"{game.errors[0]}"
                elif game.headers.get("Variant", "Standard").lower() not in ("standard", "chess", "normal"):
                    reason = f"variant {game.headers.get('Variant')!r} is not standard chess"
                else:
                    try:
                        game.board()
                    except ValueError as exc:
                        reason = f"bad FEN header: {exc}"
                if reason is not None:
                    report(f"{path}:{start}: game skipped: {reason}")
                    continue
                yield start, game
    finally:
        pgn_logger.setLevel(level)
