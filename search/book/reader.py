"""Reading games for the experience book: a game becomes its id, its result and its edges.

Owns :class:`GamePath` (what the book needs of a game), :func:`game_id` (what tells one game from another, so
a game is never counted twice) and the fast PGN reader (:func:`read_paths`, :func:`paths_from`): a light
``chess.pgn`` visitor that keys every position once, from the reader's own board. Imports chess and
:mod:`search.book.keys`, :mod:`search.formats` only.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TextIO

import chess
import chess.pgn

from search.book.keys import (
    fast_rest_hash,
    move_code,
    piece_part,
    pieces_hash,
    rest_hash,
    signed_key,
    update_pieces_hash,
)


def game_id(headers: dict[str, str] | chess.pgn.Headers, fen: str, moves: Sequence[str]) -> bytes:
    """What tells one game from another: the seven-tag roster (Event, Site, Date, Round, White, Black,
    Result), the starting position and the moves (UCI), BLAKE2 of 16 bytes. The same game in two files
    with the same roster (two players' files of one collection) counts once; a game's comments and other
    tags do not matter."""
    roster = [str(headers.get(tag, "?")).strip() for tag in ("Event", "Site", "Date", "Round", "White", "Black",
                                                             "Result")]
    text = "|".join([*roster, fen, " ".join(moves)])
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


@dataclass(frozen=True)
class GamePath:
    """A game reduced to what the book needs: its id, White's points (1, 0.5 or 0) and its edges
    ``(mover, parent key, move code, child key)`` from its start position."""

    id: bytes
    white_points: float
    edges: list[tuple[bool, int, int, int]]


def white_points(result: str) -> float | None:
    """White's points of a PGN result, ``None`` for an unfinished game (``*``)."""
    return {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result.strip())


MEMO_PLIES = 16
"""SAN moves of the first this many plies are parsed once per position and file (openings repeat)."""


class _PathVisitor(chess.pgn.BaseVisitor["_PathVisitor"]):
    """A light visitor for ``chess.pgn.read_game`` that builds a game's :class:`GamePath` as the reader goes:
    headers, the start position, the mainline's moves and their keys (variations skipped, no game tree built).

    Every position's key is computed once, from the reader's own board (no second replay of the game), the
    piece part of the hash updated from the squares that changed; the SAN of an opening move is parsed once
    per position (``memo``). Subclassed per file by :func:`paths_from` (``limit``, ``memo``)."""

    limit: ClassVar[int] = 1 << 30
    memo: ClassVar[dict[tuple[int, str], chess.Move]] = {}

    def begin_game(self) -> None:
        self.headers: dict[str, str] = {}
        self.uci: list[str] = []
        self.fen: str | None = None
        self.errors: list[str] = []
        self.edges: list[tuple[bool, int, int, int]] = []
        self._before: tuple[int, ...] = ()
        self._pieces = 0
        self._key = 0
        self._pending: tuple[bool, int, int] | None = None
        self._rest: Callable[[chess.Board], int] = rest_hash

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def visit_board(self, board: chess.Board) -> None:
        """Called with the start position, then after every move pushed (and once more at the end)."""
        if self.fen is None:  # the start position
            self.fen = board.fen()
            self._before = piece_part(board)
            self._pieces = pieces_hash(self._before)
            self._rest = fast_rest_hash if (board.castling_rights == board.clean_castling_rights()
                                            and fast_rest_hash(board) == rest_hash(board)) else rest_hash
            self._key = signed_key(self._pieces ^ self._rest(board))
        elif self._pending is not None:  # the position after the move just pushed: the edge's child
            mover, parent, code = self._pending
            after = piece_part(board)
            pieces = update_pieces_hash(self._pieces, self._before, after)
            self._before, self._pieces = after, pieces
            self._key = child = signed_key(pieces ^ self._rest(board))
            self.edges.append((mover, parent, code, child))
            self._pending = None

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        if len(self.uci) >= MEMO_PLIES or len(self.uci) >= self.limit:
            return board.parse_san(san)
        move = self.memo.get((self._key, san))
        if move is None:
            move = self.memo[(self._key, san)] = board.parse_san(san)
        return move

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if len(self.uci) < self.limit:
            self._pending = (board.turn, self._key, move_code(move))
        self.uci.append(move.uci())

    def handle_error(self, error: Exception) -> None:
        self.errors.append(str(error))

    def result(self) -> _PathVisitor:
        return self


@dataclass
class ReadCounts:
    """What reading PGN files found besides the games."""

    read: int = 0  # games read (well-formed or not)
    malformed: int = 0  # reported FILE:LINE and skipped
    unfinished: int = 0  # no final result (``*``): skipped


def read_paths(path: str | Path, counts: ReadCounts, on_error: Callable[[str], None],
               max_plies: int | None = None) -> Iterator[GamePath]:
    """The :class:`GamePath` of every well-formed, finished, standard-chess game of a PGN file; a malformed
    game is reported ``FILE:LINE: reason`` through ``on_error`` and skipped (as :mod:`search.formats.pgn` does)."""
    from search.formats.textfile import EncodingError, open_text

    try:
        fh = open_text(path, "PGN file")
    except EncodingError as exc:
        on_error(f"{path}:1: {exc.reason}")
        return
    with fh:
        yield from paths_from(fh, str(path), counts, on_error, max_plies)


def paths_from(fh: TextIO, name: str, counts: ReadCounts, on_error: Callable[[str], None],
               max_plies: int | None = None) -> Iterator[GamePath]:
    """:func:`read_paths` on an open text handle; ``name`` is the file's name in the reports."""
    from search.formats.pgn import _LineCounter

    visitor = type("_FileVisitor", (_PathVisitor,), {"limit": max_plies if max_plies is not None else 1 << 30,
                                                     "memo": {}})
    logger = logging.getLogger("chess.pgn")  # python-chess logs each error; we report it ourselves
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        counter = _LineCounter(fh)
        while True:
            counter.mark()
            try:
                v = chess.pgn.read_game(counter, Visitor=visitor)  # type: ignore[call-overload]
            except (ValueError, IndexError) as exc:
                counts.read += 1
                counts.malformed += 1
                on_error(f"{name}:{counter.first_text or counter.lines}: unreadable game: {exc}")
                continue
            if v is None:
                return
            counts.read += 1
            start = counter.first_text or counter.lines
            reason = None
            if v.errors:
                reason = v.errors[0]
            elif v.headers.get("Variant", "Standard").lower() not in ("standard", "chess", "normal"):
                reason = f"variant {v.headers.get('Variant')!r} is not standard chess"
            elif v.fen is None:
                reason = "no start position"
            if reason is not None:
                counts.malformed += 1
                on_error(f"{name}:{start}: game skipped: {reason}")
                continue
            assert v.fen is not None
            points = white_points(v.headers.get("Result", "*"))
            if points is None:
                counts.unfinished += 1
                continue
            yield GamePath(game_id(v.headers, v.fen, v.uci), points, v.edges)
    finally:
        logger.setLevel(level)


