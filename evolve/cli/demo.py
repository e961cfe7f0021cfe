"""``mimic demo``: the main job on embedded defaults (label, evolve, report). May import :mod:`evolve.demo`."""

from __future__ import annotations

import argparse
import contextlib

from evolve.cli.common import GenerationBar, ProgressBar, positive_int
from evolve.cli.options import Parents
from evolve.cli.table import command_parser

NAME = "demo"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    p = command_parser(subparsers, NAME, [parents.jobs(), parents.progress()],
                       description="Label random positions with the built-in mentor, evolve an organism with the "
                                   "paper's settings, and write results/demo/. Needs nothing installed.")
    p.add_argument("--out", default="results/demo",
                   help="results folder (labels.epd, organism.json, summary.md, logbook.csv, curve.png, match.pgn)")
    p.add_argument("--positions", type=positive_int, default=2000, help="random positions the built-in mentor labels")
    p.add_argument("--match-games", type=positive_int, default=10, help="games of the closing match")
    p.set_defaults(jobs=-1)


def run(args: argparse.Namespace) -> int:
    from evolve.demo import run_demo

    with contextlib.ExitStack() as stack:
        bar = None if args.no_progress else stack.enter_context(ProgressBar("labelling", "pos"))
        gens = None if args.no_progress else stack.enter_context(GenerationBar())
        return run_demo(print, args.out, jobs=args.jobs, positions=args.positions, match_games=args.match_games,
                        on_progress=bar, on_generation=gens)
