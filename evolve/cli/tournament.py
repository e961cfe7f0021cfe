"""``mimic tournament``: a round robin or gauntlet (played as ``mimic games`` plays it) with jointly fitted Elo
ratings written beside the PGN. May import :mod:`evolve.tournament`, :mod:`search.games` and
:mod:`evolve.cli.games`."""

from __future__ import annotations

import argparse
from pathlib import Path

from evolve.cli.common import command_line, non_negative_float, non_negative_int, os_error, seed_value
from evolve.cli.games import game_set_options, play_games
from evolve.cli.options import Parents, spec_help
from evolve.cli.playing import games_line, learned
from evolve.cli.table import command_parser
from search.runtime.errors import RunError

NAME = "tournament"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    out = ("the PGN to write (appended as games finish; its folder is created when missing); the summary, "
           "ratings.json and ratings.png go to its folder")
    p = command_parser(subparsers, NAME, [game_set_options("mimic tournament", out)], epilog=spec_help(),
                       description="Play a round robin (or, with --gauntlet, the first player against each other) "
                                   "between player specs at one time control, as mimic games does (one PGN, "
                                   "resumable with --resume), then fit every player's Elo jointly from all games "
                                   "(Bradley-Terry maximum likelihood, a draw half a win and half a loss, as Ordo) "
                                   "with 95% bootstrap intervals, and write summary.md, ratings.json and "
                                   "ratings.png beside the PGN.")
    p.add_argument("--gauntlet", action="store_true", help="only the first player's pairings")
    p.add_argument("--anchor", default=None, metavar="NAME=ELO",
                   help="fix this player's rating (its header name); when not given, the ratings' mean is 0")
    p.add_argument("--nominal", action="append", default=[], metavar="NAME=ELO",
                   help="a player's nominal rating (e.g. a second anchor engine's UCI_Elo), checked against its "
                        "fitted 95%% interval in summary.md; repeatable")
    p.add_argument("--prior-draws", type=non_negative_float, default=0.2, metavar="D",
                   help="virtual draws added to every pair that met, so that a perfect score has a finite rating; "
                        "0: the plain maximum likelihood")
    p.add_argument("--bootstrap", type=non_negative_int, default=1000,
                   help="bootstrap resamples of the games for the 95%% intervals (0: none)")
    p.add_argument("--bootstrap-seed", type=seed_value, default=0, help="seed of the resampling")


def run(args: argparse.Namespace) -> int:
    from evolve.tournament import nominal_checks, nominal_lines, parse_anchor, rate_games, write_outputs
    from search.games.ratings import RatingError

    anchor = parse_anchor(args.anchor) if args.anchor is not None else None
    nominal = [parse_anchor(text, "--nominal") for text in args.nominal]

    def check(names: tuple[str, ...]) -> str | None:
        for option, name in ([("--anchor", anchor[0])] if anchor else []) + [("--nominal", n) for n, _ in nominal]:
            if name not in names:
                return f"{option} {name!r} is not a player's name (names: {', '.join(names)})"
        return None

    summary, sidecar = play_games(args, gauntlet=args.gauntlet, check=check)
    print(f"{games_line(summary)}; settings in {sidecar}")
    try:
        ratings = rate_games(summary, anchor=anchor, prior_draws=args.prior_draws, bootstrap=args.bootstrap,
                             seed=args.bootstrap_seed)
    except RatingError as exc:
        raise RunError(f"no ratings from the games in {args.out}: {exc}") from exc
    try:
        written = write_outputs(Path(args.out), ratings, summary, command=command_line(), nominal=nominal)
    except OSError as exc:
        raise RunError(f"cannot write {os_error(exc)}") from exc
    for line in [*ratings.table_lines(), *nominal_lines(ratings, nominal_checks(ratings, nominal)), "",
                 "Crosstable (points/games of the row's player against the column's):", *ratings.crosstable_lines()]:
        print(line)
    print("written: " + ", ".join(str(p) for p in written))
    learned(args)
    return 0
