"""``mimic deepchess-data``: DeepChess training positions from the decisive games of PGN files and of self-play label
files (``mimic datagen``). May import :mod:`evolve.nets.deepchess` (no torch)."""

from __future__ import annotations

import argparse

from evolve.cli.common import add_setting_options, command_line, non_negative_int, positive_int, probability, warn
from evolve.cli.options import Parents
from evolve.cli.training import training_parser

NAME = "deepchess-data"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.nets.deepchess_data import DataSettings

    p = training_parser(subparsers, NAME, [parents.jobs(), parents.seed()],
                        "Draw DeepChess training positions from games with a decisive result: up to --per-game "
                        "random positions a game, none from the first --skip-moves moves and none whose next move is "
                        "a capture, labelled with the result; draws unused; games split into training/validation/test "
                        "(seeded), each part balanced between White and Black wins. Writes OUT/positions.npz (773 bits "
                        "a position, packed) and OUT/positions.json (provenance). A source is a PGN file, or a label "
                        "file of self-play games (mimic datagen; a name ending .epd or .epd.gz), and both may be "
                        "mixed. A label line belongs to the game its id names (the id without its last ':' field), "
                        "whose result is its c9; its move is fmvn (move 1 without one); its next move, which a label "
                        "does not know, is taken to be the mentor's best move, the first of its pv (a line without a "
                        "pv is kept). Label lines without such an id or a c9 of 1-0, 0-1 or 1/2-1/2, or malformed, "
                        "are skipped and counted.", needs_torch=False,
                        inputs=("games", "PGN files, or label files (.epd, .epd.gz) of self-play games"), nargs="+",
                        out_help="folder to write positions.npz and positions.json into")
    add_setting_options(p, DataSettings, (
        ("--per-game", "per_game", positive_int, "positions a game at most"),
        ("--skip-moves", "skip_moves", non_negative_int, "moves at the start of a game never drawn"),
        ("--validation", "validation", probability, "share of games for validation"),
        ("--test", "test", probability, "share of games for test")))

def run(args: argparse.Namespace) -> int:
    from evolve.nets.deepchess_data import DataSettings, extract_positions

    settings = DataSettings(per_game=args.per_game, skip_moves=args.skip_moves, validation=args.validation,
                            test=args.test, seed=args.seed)
    summary = extract_positions(args.games, args.out, settings, jobs=args.jobs, command=command_line())
    for line in summary.errors[:5]:
        warn(line)
    print(f"{summary.positions} balanced positions ({', '.join(f'{v} {k}' for k, v in summary.per_part.items())}) "
          f"from {summary.decisive} decisive of {summary.games} games in {summary.seconds:.1f} s "
          f"({summary.rate:.0f} positions/s); written to {args.out}/positions.npz and positions.json")
    if summary.skipped_lines:
        print(f"{summary.skipped_lines} label lines skipped (malformed, or no game id or result): counted by source "
              f"in {args.out}/positions.json")
    return 0
