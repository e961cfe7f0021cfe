"""DeepRed's experience tree in SQLite: every game seen is a path of edges that count its results.

Owns the book file (:class:`Book`), adding games to it (:meth:`Book.add_games`, used by ``mimic book import``
and by a match's ``--learn``), and choosing a move from it (:class:`BookChooser`: the book layer
``SPEC+book:PATH`` and the pure DeepRed player ``deepred:PATH``). Imports chess and the standard library only.

**Store.** A SQLite file in WAL mode (readers in other processes go on while a match writes). As DeepRed
shards it, White's moves and Black's moves are two tables, ``white`` and ``black``, of the same shape::

    parent INTEGER, move INTEGER, child INTEGER, wins INTEGER, draws INTEGER, losses INTEGER,
    PRIMARY KEY (parent, move)  -- WITHOUT ROWID: the rows are the primary key's B-tree

one row per edge; ``wins``/``draws``/``losses`` count the games through the edge from the point of view of
the side that made the move. ``parent`` and ``child`` are position keys: ``chess.polyglot.zobrist_hash`` (an
unsigned 64-bit integer) stored as the signed 64-bit integer with the same bits (two's complement,
:func:`signed_key`), since SQLite integers are signed. ``move`` is :func:`move_code`: from-square
+ 64 x to-square + 4096 x promotion piece type (0 for none); castling is the king's move (``e1g1``).
A table ``games`` holds the id of every game added (:func:`game_id`), so that a game is never counted
twice: the same file imported again, or an import killed and run again, adds nothing for the games
already in. Games are added in batches, one transaction each (ids and edges together): a kill loses at
most the batch in flight, and nothing of it is half-counted.
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
import random
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TextIO

import chess
import chess.pgn
import chess.polyglot

from search.players.spec import PlayerKind, PlayerSpec

FORMAT = 1
"""The book file's format version (``PRAGMA user_version``)."""

TABLES = {chess.WHITE: "white", chess.BLACK: "black"}
"""The edge table of each mover."""

_SCHEMA = [
    *(f"CREATE TABLE IF NOT EXISTS {t} (parent INTEGER NOT NULL, move INTEGER NOT NULL, child INTEGER NOT NULL, "
      "wins INTEGER NOT NULL DEFAULT 0, draws INTEGER NOT NULL DEFAULT 0, losses INTEGER NOT NULL DEFAULT 0, "
      "PRIMARY KEY (parent, move)) WITHOUT ROWID" for t in TABLES.values()),
    "CREATE TABLE IF NOT EXISTS games (id BLOB PRIMARY KEY) WITHOUT ROWID",
]

Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval: the ``z`` of :func:`wilson_lower`."""

DEFAULT_MIN_GAMES = 3
"""A book move is played only when it has been seen in at least this many games (``?min=N``)."""

_SIGN = 1 << 63


def signed_key(key: int) -> int:
    """An unsigned 64-bit key as the signed 64-bit integer with the same bits (two's complement).

    >>> signed_key(5), signed_key(2**64 - 1), signed_key(2**63)
    (5, -1, -9223372036854775808)
    """
    return (key ^ _SIGN) - _SIGN


def position_key(board: chess.Board) -> int:
    """The book's key of a position: its polyglot Zobrist hash as a signed 64-bit integer."""
    return signed_key(chess.polyglot.zobrist_hash(board))


def move_code(move: chess.Move) -> int:
    """A move as a small integer: from + 64 x to + 4096 x promotion (piece type, 0 for none).

    >>> move_code(chess.Move.from_uci("e2e4")), move_code(chess.Move.from_uci("a7a8q"))
    (1804, 24112)
    """
    return move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)


def code_move(code: int) -> chess.Move:
    """The move of a :func:`move_code`.

    >>> code_move(24112).uci()
    'a7a8q'
    """
    return chess.Move(code & 63, (code >> 6) & 63, (code >> 12) or None)


def wilson_lower(wins: int, draws: int, losses: int, z: float = Z_95) -> float:
    """The lower bound of the Wilson score interval of a move's score ``(wins + draws / 2) / n`` (the mover's
    view), ``z`` = 1.96 by default (95% two-sided); 0 for a move never played. A draw counts as half a
    win in ``p``, and ``n`` is every game.

    >>> round(wilson_lower(3, 0, 0), 3), round(wilson_lower(30, 0, 0), 3), round(wilson_lower(5, 10, 5), 3)
    (0.439, 0.886, 0.299)
    """
    n = wins + draws + losses
    if n == 0:
        return 0.0
    p = (wins + draws / 2) / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (centre - spread) / (1 + z2 / n)


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
class Edge:
    """One known move of a position: its counts from the mover's view."""

    move: chess.Move
    child: int
    wins: int
    draws: int
    losses: int

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / n``, the mover's view."""
        return (self.wins + self.draws / 2) / self.n if self.n else 0.0

    @property
    def lower(self) -> float:
        """The Wilson lower bound of :attr:`score` (:func:`wilson_lower`)."""
        return wilson_lower(self.wins, self.draws, self.losses)


@dataclass(frozen=True)
class GamePath:
    """A game reduced to what the book needs: its id, White's points (1, 0.5 or 0) and its edges
    ``(mover, parent key, move code, child key)`` from its start position."""

    id: bytes
    white_points: float
    edges: list[tuple[bool, int, int, int]]


@dataclass
class AddCounts:
    """What adding games did."""

    games: int = 0  # games added
    duplicates: int = 0  # games already in the book (or twice in the input): skipped
    edges: int = 0  # edge visits counted (a game of n plies counts n)
    new: int = 0  # edges the book did not have before
    updated: int = 0  # existing edges whose counts grew


def _piece_part(board: chess.Board) -> tuple[int, ...]:
    """The 12 piece bitboards in polyglot's order: black pawns, white pawns, black knights, ..."""
    b, w = board.occupied_co
    p, n, bi, r, q, k = board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings
    return (p & b, p & w, n & b, n & w, bi & b, bi & w, r & b, r & w, q & b, q & w, k & b, k & w)


_ARRAY = chess.polyglot.POLYGLOT_RANDOM_ARRAY
_HASHER = chess.polyglot.ZobristHasher(_ARRAY)


def _rest_hash(board: chess.Board) -> int:
    """The castling, en-passant and turn parts of the polyglot hash (the piece part is kept incrementally)."""
    return _HASHER.hash_castling(board) ^ _HASHER.hash_ep_square(board) ^ _HASHER.hash_turn(board)


_CASTLING_SQUARES = ((chess.BB_H1, 768), (chess.BB_A1, 769), (chess.BB_H8, 770), (chess.BB_A8, 771))
_CASTLING: dict[int, int] = {}


def _castling_hash(rights: int) -> int:
    """The castling part of the polyglot hash from standard castling rights (rooks on a1/h1/a8/h8, the kings
    on e1/e8, rights clean): what ``ZobristHasher.hash_castling`` gives for them, without looking at the board."""
    value = _CASTLING.get(rights)
    if value is None:
        value = 0
        for bb, index in _CASTLING_SQUARES:
            if rights & bb:
                value ^= _ARRAY[index]
        _CASTLING[rights] = value
    return value


def _fast_rest_hash(board: chess.Board) -> int:
    """:func:`_rest_hash` for a board whose castling rights are clean and map square by square onto polyglot's
    four flags (see :func:`_castling_hash`; the reader checks this on a game's start position, and
    ``board.push`` keeps it so: a right goes when its rook moves or is taken, both when the king moves)."""
    value = _castling_hash(board.castling_rights)
    if board.ep_square is not None:
        value ^= _HASHER.hash_ep_square(board)
    return value ^ _ARRAY[780] if board.turn else value


def path_keys(board: chess.Board, moves: Iterable[chess.Move]) -> Iterator[tuple[bool, int, int, int]]:
    """``(mover, parent key, move code, child key)`` for each move played from ``board`` (which is changed:
    the moves are pushed). Keys are :func:`position_key`, the piece part of the hash updated from the squares
    that changed rather than recomputed (as the PGN reader of :func:`paths_from` does)."""
    before = _piece_part(board)
    pieces = _pieces_hash(before)
    parent = signed_key(pieces ^ _rest_hash(board))
    for move in moves:
        mover = board.turn
        board.push(move)
        after = _piece_part(board)
        for index in range(12):
            changed = before[index] ^ after[index]
            while changed:
                low = changed & -changed
                pieces ^= _ARRAY[64 * index + low.bit_length() - 1]
                changed ^= low
        before = after
        child = signed_key(pieces ^ _rest_hash(board))
        yield mover, parent, move_code(move), child
        parent = child


def white_points(result: str) -> float | None:
    """White's points of a PGN result, ``None`` for an unfinished game (``*``)."""
    return {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result.strip())


def game_path(headers: dict[str, str] | chess.pgn.Headers, board: chess.Board, moves: Sequence[chess.Move],
              max_plies: int | None = None) -> GamePath | None:
    """The :class:`GamePath` of a game from ``board`` (its start; changed), at most ``max_plies`` plies of
    it; ``None`` for a game without a final result."""
    points = white_points(headers.get("Result", "*"))
    if points is None:
        return None
    gid = game_id(headers, board.fen(), [m.uci() for m in moves])
    kept = moves if max_plies is None else moves[:max_plies]
    return GamePath(gid, points, list(path_keys(board, kept)))


def _outcome_columns(mover: bool, white: float) -> tuple[int, int, int]:
    mine = white if mover == chess.WHITE else 1.0 - white
    return (mine == 1.0, mine == 0.5, mine == 0.0)


class Book:
    """An experience tree on disk (see the module docstring). ``Book(path)`` creates the file when missing;
    ``readonly`` opens an existing one for choosing only (several processes may read while one writes)."""

    def __init__(self, path: str | Path, *, readonly: bool = False, timeout: float = 60.0) -> None:
        self.path = Path(path)
        if readonly:
            if not self.path.is_file():
                raise FileNotFoundError(2, "no such book", str(self.path))
            self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA query_only = 1")
            self._check_format()
        else:
            self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a commit survives a killed process
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    for statement in _SCHEMA:
                        self.db.execute(statement)
                    self.db.execute(f"PRAGMA user_version = {FORMAT}")
                    self.db.execute("COMMIT")
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
            self._check_format()
            self.db.execute("CREATE TEMP TABLE batch (parent INTEGER, move INTEGER, child INTEGER, wins INTEGER, "
                            "draws INTEGER, losses INTEGER, PRIMARY KEY (parent, move)) WITHOUT ROWID")
        self._upsert = {mover: (f"INSERT INTO {t} (parent, move, child, wins, draws, losses) "
                                "SELECT parent, move, child, wins, draws, losses FROM batch WHERE true "
                                "ON CONFLICT (parent, move) DO UPDATE SET wins = wins + excluded.wins, "
                                "draws = draws + excluded.draws, losses = losses + excluded.losses")
                        for mover, t in TABLES.items()}

    def _check_format(self) -> None:
        try:
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise ValueError(f"{self.path}: not a book ({exc})") from exc
        if version != FORMAT:
            self.db.close()
            raise ValueError(f"{self.path}: not a book of format {FORMAT} (user_version {version})")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reading
    def edges(self, board: chess.Board) -> list[Edge]:
        """The known moves of ``board``'s position (any order)."""
        return self.edges_at(position_key(board), board.turn)

    def edges_at(self, key: int, mover: bool) -> list[Edge]:
        """The known moves of the position with book key ``key`` and ``mover`` to move."""
        rows = self.db.execute(f"SELECT move, child, wins, draws, losses FROM {TABLES[mover]} WHERE parent = ?",
                               (key,)).fetchall()
        return [Edge(code_move(m), c, w, d, lo) for m, c, w, d, lo in rows]

    def game_count(self) -> int:
        """Games in the book."""
        return int(self.db.execute("SELECT count(*) FROM games").fetchone()[0])

    def edge_count(self) -> int:
        """Edges in the book (both tables)."""
        return sum(int(self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in TABLES.values())

    def has_game(self, gid: bytes) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ?", (gid,)).fetchone() is not None

    # ------------------------------------------------------------------ writing
    def add_games(self, paths: Iterable[GamePath]) -> AddCounts:
        """Add the games of ``paths`` not in the book yet, all in one transaction (a batch): either every
        new game of the batch is counted or, if the process dies first, none is."""
        counts = AddCounts()
        seen: set[bytes] = set()
        totals: dict[tuple[bool, int, int], list[int]] = {}  # (mover, parent, move) -> child, w, d, l
        self.db.execute("BEGIN IMMEDIATE")
        try:
            fresh: list[tuple[bytes]] = []
            for p in paths:
                if p.id in seen or self.has_game(p.id):
                    counts.duplicates += 1
                    continue
                seen.add(p.id)
                fresh.append((p.id,))
                counts.games += 1
                for mover, parent, move, child in p.edges:
                    w, d, lo = _outcome_columns(mover, p.white_points)
                    row = totals.get((mover, parent, move))
                    if row is None:
                        totals[(mover, parent, move)] = [child, w, d, lo]
                    else:
                        row[1] += w
                        row[2] += d
                        row[3] += lo
                    counts.edges += 1
            self.db.executemany("INSERT INTO games (id) VALUES (?)", fresh)
            for mover, table in TABLES.items():
                rows = [(parent, move, row[0], row[1], row[2], row[3])
                        for (m, parent, move), row in totals.items() if m == mover]
                if not rows:
                    continue
                self.db.execute("DELETE FROM batch")
                self.db.executemany("INSERT INTO batch VALUES (?, ?, ?, ?, ?, ?)", rows)
                known = self.db.execute(f"SELECT count(*) FROM batch JOIN {table} USING (parent, move)").fetchone()[0]
                counts.new += len(rows) - known
                counts.updated += known
                self.db.execute(self._upsert[mover])
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return counts

    def add_pgn(self, text: str, max_plies: int | None = None,
                on_error: Callable[[str], None] | None = None) -> AddCounts:
        """Add the games of a PGN text (a match's finished game, for ``--learn``), each from its start
        position, in one transaction; games already in the book add nothing."""
        counts = ReadCounts()
        paths = list(paths_from(io.StringIO(text), "<game>", counts, on_error or (lambda msg: None), max_plies))
        return self.add_games(paths)

    def add_game(self, game: chess.pgn.Game, max_plies: int | None = None) -> AddCounts:
        """Add one parsed game (a match's finished game, for ``--learn``); its path starts at its start
        position. A game without a final result adds nothing."""
        path = game_path(game.headers, game.board(), list(game.mainline_moves()), max_plies)
        return self.add_games([path] if path is not None else [])


# ---------------------------------------------------------------------- reading PGN fast
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
        self._rest: Callable[[chess.Board], int] = _rest_hash

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def visit_board(self, board: chess.Board) -> None:
        """Called with the start position, then after every move pushed (and once more at the end)."""
        if self.fen is None:  # the start position
            self.fen = board.fen()
            self._before = _piece_part(board)
            self._pieces = _pieces_hash(self._before)
            self._rest = _fast_rest_hash if (board.castling_rights == board.clean_castling_rights()
                                             and _fast_rest_hash(board) == _rest_hash(board)) else _rest_hash
            self._key = signed_key(self._pieces ^ self._rest(board))
        elif self._pending is not None:  # the position after the move just pushed: the edge's child
            mover, parent, code = self._pending
            after = _piece_part(board)
            before, pieces = self._before, self._pieces
            for index in range(12):
                changed = before[index] ^ after[index]
                while changed:
                    low = changed & -changed
                    pieces ^= _ARRAY[64 * index + low.bit_length() - 1]
                    changed ^= low
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


def _pieces_hash(part: tuple[int, ...]) -> int:
    pieces = 0
    for index, bb in enumerate(part):
        for sq in chess.scan_forward(bb):
            pieces ^= _ARRAY[64 * index + sq]
    return pieces


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
        fh = open_text(path)
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
    worker processes, a file a task, while this process writes; the book is the same either way (files are
    added in the order given)."""
    import time

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
    if jobs == 1 or len(files) == 1:
        for f in files:
            out.file = str(f)
            for p in read_paths(f, out.read, report, max_plies):
                pending.append(p)
                if len(pending) >= batch:
                    flush(pending)
            flush(pending)
    else:
        from joblib import delayed

        from search.runtime.workers import parallel

        tasks = parallel(jobs, return_as="generator")(delayed(_read_file)(str(f), max_plies) for f in files)
        for f, (paths, counts, errors) in zip(files, tasks, strict=True):
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


# ---------------------------------------------------------------------- choosing
class BookChooser:
    """Chooses a move from a book: among the moves of the position seen in at least ``min_games`` games,
    the one with the best Wilson lower bound of its score (:func:`wilson_lower`, the mover's view; ties:
    more games, then the move's UCI text). ``None`` where no move qualifies, unless ``seed`` is given: the
    pure DeepRed player then plays a random legal move there.

    ``explore`` (the pure DeepRed player learning by playing): a move qualifies only if it has also scored (a
    win or a draw). Where every move seen has only lost, the player moves at random again instead of repeating
    a lost move, and a line that once won or drew is replayed. Without it, the first move to reach
    ``min_games`` games is played for ever however it fared, and a player that has only lost never learns.

    The random moves are reproducible: a game's moves come from ``random.Random`` seeded with the seed, the
    number of games the book held when the game began, and the FEN of its first position, so two games from
    the same start differ once the book has learned from the first (``--learn``).
    """

    def __init__(self, path: str | Path, min_games: int = DEFAULT_MIN_GAMES, seed: int | None = None,
                 explore: bool = False) -> None:
        self.book = Book(path, readonly=True)
        self.min_games = min_games
        self.seed = seed
        self.explore = explore
        self._rng: random.Random | None = None

    def new_game(self) -> None:
        self._rng = None

    def best(self, board: chess.Board) -> Edge | None:
        """The book's move for ``board`` (see the class docstring), ``None`` when none qualifies."""
        known = [e for e in self.book.edges(board) if e.n >= self.min_games and board.is_legal(e.move)
                 and (e.wins + e.draws > 0 or not self.explore)]
        if not known:
            return None
        return max(known, key=lambda e: (e.lower, e.n, _reverse(e.move.uci())))

    def choose(self, board: chess.Board) -> chess.Move | None:
        edge = self.best(board)
        if edge is not None or self.seed is None:
            return edge.move if edge is not None else None
        legal = list(board.legal_moves)
        if not legal:
            return None
        if self._rng is None:
            self._rng = random.Random(f"{self.seed}|{self.book.game_count()}|{board.fen()}")
        return self._rng.choice(legal)

    def close(self) -> None:
        self.book.close()


def _reverse(text: str) -> tuple[int, ...]:
    """A key that sorts strings in reverse (so that ``max`` prefers the alphabetically first move)."""
    return tuple(-ord(c) for c in text)


# ---------------------------------------------------------------------- the pure DeepRed player
class NoEvaluation:
    """The evaluator under the pure DeepRed player (``deepred:PATH``): never consulted, since DeepRed moves
    from its book or at random; it scores every position 0."""

    def evaluate(self, board: chess.Board) -> int:
        return 0


def _deepred(spec: PlayerSpec) -> NoEvaluation:
    return NoEvaluation()


DEEPRED = PlayerKind("deepred", "book", "the pure DeepRed player: its book's best move (seen in at least N games), "
                     "a random legal move (seeded) where it knows nothing; explore=1: also where every "
                     "move it knows has only lost", _deepred)
"""The ``deepred:PATH[?min=N&seed=N&explore=0|1]`` kind, for the one registry (``evolve.players``)."""
