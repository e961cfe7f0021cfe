"""``mimic suite``: solve the positions of an EPD test suite (bm/am successes, STS points, a per-position CSV),
with a progress bar on stderr. May import :mod:`search.games.suite`, :mod:`search.formats` and
:mod:`evolve.players`."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from evolve.cli.common import make_folder_for, os_error, positive_float, positive_int, warn
from evolve.cli.options import Parents, player_spec, spec_help
from evolve.cli.playing import check_book
from evolve.cli.table import command_parser
from search.runtime.errors import InputError, MimicError, RunError, SettingsError
from search.runtime.files import open_regular

NAME = "suite"


class SuiteWriteError(RunError):
    """A row could not be appended to the suite CSV (a full disk): the rows before it are kept. Exit 1."""


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    p = command_parser(subparsers, NAME, [parents.parallel(), parents.progress()], epilog=spec_help(),
                       description="Solve the positions of an EPD test suite: counts bm/am successes, scores STS "
                                   "c0 points, and writes a per-position CSV.")
    p.add_argument("epd", help="the test suite (EPD with bm or am, and c0 for STS points)")
    p.add_argument("--engine", required=True, type=player_spec, metavar="SPEC", help="the player that solves it")
    p.add_argument("--movetime", type=positive_float, default=1.0, help="seconds per position")
    p.add_argument("--limit", type=positive_int, default=None, help="only the first N positions")
    p.add_argument("--csv", default=None, help="per-position results, written as each position is solved")
    p.add_argument("--resume", action="store_true", help="skip the positions already in --csv and append")
    p.add_argument("--verbose", action="store_true", help="print each position's row as it is solved")


def progress_bar(args: argparse.Namespace, skip: set[str] | frozenset[str]) -> Any:
    """The tqdm bar (stderr) over the positions this run will solve, or ``None`` with ``--no-progress``."""
    if args.no_progress:
        return None
    from tqdm import tqdm

    from search.formats.epd import read_epd
    from search.games.suite import row_key

    records = list(read_epd(args.epd, lambda e: None))[:args.limit]  # malformed lines: the run reports them
    total = sum(row_key(r.id, r.board.fen()) not in skip for r in records)
    return tqdm(total=total, unit="pos", desc="solving", file=sys.stderr, dynamic_ncols=True)


def run(args: argparse.Namespace) -> int:
    from evolve.players import PLAYERS, make_evaluator
    from search.games.suite import SuiteCsv, SuiteRow, run_suite, summarize
    from search.players.player import PlayerError, check_engines, make_player
    from search.runtime.provenance import describe

    spec = PLAYERS.parse(args.engine)
    check_book(spec)  # its rows scanned now, not in a worker (SpecError: one line from main)
    try:  # fail now, not in a worker, on an engine that cannot start (SpecError: one line from main)
        if spec.is_external and spec.book is None:
            check_engines([spec], on_warning=warn)
        else:
            make_player(spec, make_evaluator).close()
    except PlayerError as exc:
        raise PlayerError(f"{args.engine}: {exc}") from exc
    if args.resume and not args.csv:
        raise SettingsError("--resume needs --csv (the rows already solved are read from it)")
    try:  # before any output or CSV: a suite that cannot be read is one line and nothing else
        with open_regular(args.epd, "suite file"):
            pass
    except OSError as exc:
        raise InputError(f"cannot read the suite: {os_error(exc, args.epd)}") from exc
    errors: list[str] = []
    try:
        if args.csv:
            make_folder_for(args.csv)
        out = SuiteCsv(args.csv, resume=args.resume) if args.csv else None
    except OSError as exc:
        if isinstance(exc, MimicError):  # RunExists: it names the CSV
            raise
        raise InputError(f"cannot write the CSV: {os_error(exc, args.csv)}") from exc
    print(f"{args.epd}: {args.engine} at {args.movetime:g} s/position; {describe()}", flush=True)
    if out is not None and out.done:
        print(f"resuming: {len(out.done)} positions already in {args.csv}", flush=True)
    skip = out.keys() if out is not None else frozenset()
    bar = progress_bar(args, set(skip))

    def row(r: SuiteRow) -> None:
        if out is not None:
            try:
                out.append(r)
            except OSError as exc:
                raise SuiteWriteError(f"cannot write the CSV: {os_error(exc, args.csv)}; --resume continues") from exc
        if bar is not None:
            bar.update(1)
        if args.verbose:
            print(r, flush=True)

    try:
        rows = run_suite(args.epd, args.engine, args.movetime, make_evaluator, jobs=args.jobs, limit=args.limit,
                         on_error=errors.append, on_row=row, skip=skip)
    except OSError as exc:
        raise InputError(f"cannot read the suite: {os_error(exc, args.epd)}") from exc
    except PlayerError as exc:  # an engine that fails mid-run: the rows so far are kept
        raise RunError(f"{args.engine}: {exc}") from exc
    finally:
        if bar is not None:
            bar.close()
        if out is not None:
            with contextlib.suppress(OSError):
                out.close()
    for msg in errors:
        warn(msg)
    s = summarize((out.done if out is not None else []) + rows)
    print(f"{args.epd}: {args.engine} at {args.movetime:g} s/position: {s.line()}"
          + (f" ({len(errors)} malformed lines skipped)" if errors else ""))
    return 0
