"""``mimic book import``: add the games of PGN files to DeepRed's experience tree (SQLite). May import
:mod:`search.book`."""

from __future__ import annotations

import argparse
from pathlib import Path

from evolve.cli.common import make_folder_for, positive_int, warn
from evolve.cli.options import Parents
from evolve.cli.table import command_parser
from search.runtime.errors import InputError

NAME = "book"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.cli.common import HelpFormatter

    p = command_parser(subparsers, NAME, [],
                       description="The experience book (SQLite, one table of edges per colour, W/D/L from the "
                                   "mover's view) that the +book: layer and the deepred: player choose from.")
    acts = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    a = acts.add_parser("import", help="add every game of PGN files to a book", formatter_class=HelpFormatter,
                        parents=[parents.jobs(), parents.progress()],
                        description="Add every game of the PGN files to the book, each as its path from its start "
                                    "position. Resumable: a game already in the book (same seven-tag roster, start "
                                    "and moves) is skipped, so a killed import run again, or the same files "
                                    "imported twice, count every game once. The same book whatever --jobs.")
    a.add_argument("games", nargs="+", metavar="GAMES.pgn")
    a.add_argument("--out", required=True, metavar="BOOK.sqlite", help="the book (created when missing)")
    a.add_argument("--max-plies", type=positive_int, default=None, metavar="N",
                   help="only the first N plies of each game; when not given, the whole game")
    a.add_argument("--batch", type=positive_int, default=1000, metavar="N",
                   help="games per transaction: a kill loses at most this many")


def run(args: argparse.Namespace) -> int:
    import sqlite3
    import time

    from search.book.importer import ImportCounts, import_games
    from search.book.tree import Book

    missing = [f for f in args.games if not Path(f).is_file()]
    if missing:
        f = missing[0]
        raise InputError(f"{f}: not a regular file (a PGN file must be one)" if Path(f).exists() else
                         f"no such file: {f}")
    last = [0.0]

    def progress(c: ImportCounts) -> None:
        now = time.perf_counter()
        if args.no_progress or now - last[0] < 2.0:
            return
        last[0] = now
        print(f"  {c.file}: {c.read.read} games read, {c.added.games} added, {c.added.edges} edges "
              f"({c.edges_per_second:,.0f} edges/s)", flush=True)

    try:
        make_folder_for(args.out)
        book = Book(args.out)
    except (OSError, sqlite3.Error) as exc:  # a BookError (not mimic's book, damaged) names the file itself
        raise InputError(f"cannot open the book {args.out}: {exc}") from exc
    with book:
        before = book.game_count()
        print(f"{args.out}: {before} games in the book; importing {len(args.games)} file(s)"
              + (f", the first {args.max_plies} plies of each game" if args.max_plies else ""), flush=True)
        c = import_games(book, args.games, batch=args.batch, max_plies=args.max_plies, jobs=args.jobs,
                         on_error=warn, on_batch=progress)
        edges = book.edge_count()
    r, a = c.read, c.added
    print(f"games: {r.read} read, {a.games} added, {a.duplicates} skipped as duplicates (already in the book or "
          f"read twice), {r.malformed} malformed (skipped, reported above), {r.unfinished} without a result")
    print(f"edges: {a.edges} visits counted, {a.new} new edges, {a.updated} edges updated; the book holds "
          f"{edges} edges of {before + a.games} games")
    print(f"{c.seconds:.1f} s, {c.edges_per_second:,.0f} edges/s ({a.edges} edges), "
          f"{Path(args.out).stat().st_size:,} bytes")
    return 0
