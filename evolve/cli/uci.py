"""``mimic uci``: our alpha-beta engine as a UCI engine on stdin/stdout. May import :mod:`search` and
:mod:`evolve.players`."""

from __future__ import annotations

import argparse

from evolve.cli.options import Parents, player_spec, spec_help
from evolve.cli.playing import check_book
from evolve.cli.table import command_parser
from search.runtime.errors import SettingsError

NAME = "uci"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    p = command_parser(subparsers, NAME, [], epilog=spec_help(),
                       description="Run our alpha-beta engine as a UCI engine on stdin/stdout.")
    p.add_argument("--eval", default="material", type=player_spec, metavar="SPEC",
                   help="evaluator player spec, e.g. material or material@depth=4")
    p.add_argument("--hash", default="16", metavar="MB", help="transposition table size, 1-4096")


def run(args: argparse.Namespace) -> int:
    from evolve.players import PLAYERS, make_evaluator
    from search import uci

    try:
        hash_mb = int(args.hash)
    except ValueError:
        hash_mb = 0
    if not 1 <= hash_mb <= uci.MAX_HASH_MB:
        raise SettingsError(f"--hash must be a whole number of MiB within 1..{uci.MAX_HASH_MB}, got {args.hash!r}")
    check_book(PLAYERS.parse(args.eval))
    return uci.main(make_evaluator, args.eval, hash_mb=hash_mb)
