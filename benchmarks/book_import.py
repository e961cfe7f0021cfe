"""How fast games go into the experience book, and how big the book is per edge.

    python benchmarks/book_import.py                      # the ten champions' files of data/player-games
    python benchmarks/book_import.py A.pgn B.pgn --jobs 2

Imports the files into a fresh book (``search.book.importer.import_games``, as ``mimic book import``) and prints games,
edge visits, distinct edges, seconds, edges/s and the file's bytes per edge (the file after the last
connection closed, so the WAL is checkpointed into it). Then the size against DeepRed's format: the same
edges of one file (``--compare``, default Fischer.pgn) stored once with our keys and once with DeepRed's
run-length board strings as keys, in the same SQLite layout (two colour tables, primary key (parent, move),
``WITHOUT ROWID``). DeepRed's string is taken to be the FEN piece placement (``board.board_fen()``: pieces
as letters, runs of empty squares as digits, ranks split by ``/``), the side to move being the table, and its
move the UCI text: the issue describes DeepRed's keys as run-length board strings and no DeepRed source
was found to say more. Passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess

from search.book.importer import import_games
from search.book.reader import ReadCounts, read_paths
from search.book.tree import Book
from search.formats.pgn import read_games
from search.runtime.provenance import describe

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "data" / "player-games"


def _deepred_size(pgn: Path, folder: Path) -> tuple[int, int, float]:
    """(file bytes, edges, mean board-string length) of the edges of ``pgn`` keyed by board strings."""
    path = folder / "deepred.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    for t in ("white", "black"):
        db.execute(f"CREATE TABLE {t} (parent TEXT NOT NULL, move TEXT NOT NULL, child TEXT NOT NULL, "
                   "wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL, "
                   "PRIMARY KEY (parent, move)) WITHOUT ROWID")
    totals: dict[tuple[bool, str, str], list[object]] = {}
    lengths = 0
    for _, game in read_games(pgn, lambda msg: None):
        result = game.headers.get("Result", "*")
        if result not in ("1-0", "0-1", "1/2-1/2"):
            continue
        white = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
        board = game.board()
        parent = board.board_fen()
        for move in game.mainline_moves():
            mover = board.turn
            board.push(move)
            child = board.board_fen()
            lengths += len(parent)
            mine = white if mover == chess.WHITE else 1.0 - white
            row = totals.setdefault((mover, parent, move.uci()), [child, 0, 0, 0])
            row[1 if mine == 1.0 else 2 if mine == 0.5 else 3] += 1  # type: ignore[operator]
            parent = child
    visits = sum(int(r[1]) + int(r[2]) + int(r[3]) for r in totals.values())  # type: ignore[call-overload]
    db.execute("BEGIN")
    for mover, table in ((chess.WHITE, "white"), (chess.BLACK, "black")):
        db.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?)",
                       [(p, m, *r) for (c, p, m), r in totals.items() if c == mover])
    db.execute("COMMIT")
    db.close()
    return path.stat().st_size, len(totals), lengths / max(visits, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="PGN files (default: every .pgn of data/player-games)")
    ap.add_argument("--jobs", type=int, default=1, help="files read at once in worker processes (default 1)")
    ap.add_argument("--batch", type=int, default=1000, help="games per transaction (default 1000)")
    ap.add_argument("--max-plies", type=int, default=None)
    ap.add_argument("--compare", default=str(GAMES / "Fischer.pgn"),
                    help="the file whose edges are stored both ways for the size comparison (default Fischer.pgn)")
    ap.add_argument("--no-compare", action="store_true")
    args = ap.parse_args()
    files = [Path(f) for f in args.games] or sorted(GAMES.glob("*.pgn"))
    print(f"# book import: {len(files)} files, jobs {args.jobs}, batch {args.batch}; {describe()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "book.sqlite"
        errors: list[str] = []
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        with Book(path) as book:
            c = import_games(book, files, batch=args.batch, max_plies=args.max_plies, jobs=args.jobs,
                             on_error=errors.append)
            seconds = time.perf_counter() - t0
            cpu = time.process_time() - cpu0
            edges = book.edge_count()
        size = path.stat().st_size
        a, r = c.added, c.read
        print(f"games: {r.read} read, {a.games} added, {a.duplicates} duplicates, {r.malformed} malformed, "
              f"{r.unfinished} without a result")
        print(f"edges: {a.edges:,} visits (plies), {edges:,} distinct edges")
        print(f"time: {seconds:.1f} s wall ({cpu:.1f} s CPU in this process), {a.edges / seconds:,.0f} edges/s "
              f"({a.games / seconds:,.0f} games/s)")
        print(f"file: {size:,} bytes, {size / edges:.1f} bytes per distinct edge")
        if args.no_compare:
            return 0
        sample = Path(args.compare)
        ours_path = folder / "ours.sqlite"
        with Book(ours_path) as ours:
            ours.add_games(list(read_paths(sample, ReadCounts(), lambda msg: None)))
            ours_edges = ours.edge_count()
        ours_size = ours_path.stat().st_size
        theirs_size, theirs_edges, mean_len = _deepred_size(sample, folder)
        print(f"size per edge on {sample.name} ({ours_edges:,} edges): ours {ours_size / ours_edges:.1f} bytes "
              f"(two 64-bit keys, a move code, three counts); DeepRed-style board strings "
              f"{theirs_size / theirs_edges:.1f} bytes ({theirs_edges:,} edges, board strings of "
              f"{mean_len:.1f} characters on average): {theirs_size / theirs_edges / (ours_size / ours_edges):.1f}x")
        if theirs_edges != ours_edges:
            print(f"  (board strings merge positions that differ only in castling or en-passant rights: "
                  f"{ours_edges - theirs_edges} fewer edges)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
