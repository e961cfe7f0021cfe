"""The command table of ``mimic``: each command's module and one-line help.

A command's module has ``add_parser(subparsers, parents)`` and ``run(args) -> int``; it is imported only when its
command is the one given (``mimic --help`` lists every command from this table alone). May import the standard
library and :mod:`evolve.cli.common` only.
"""

from __future__ import annotations

import argparse
from typing import Any, NamedTuple

from evolve.cli.common import HelpFormatter


class Command(NamedTuple):
    module: str
    help: str


COMMANDS: dict[str, Command] = {
    "uci": Command("evolve.cli.uci", "run our alpha-beta engine as a UCI engine on stdin/stdout"),
    "label": Command("evolve.cli.label", "sample positions and label them with a mentor at a fixed depth"),
    "datagen": Command("evolve.cli.datagen", "self-play data: the mentor plays itself, its searches become labels"),
    "evolve": Command("evolve.cli.evolution",
                      "evolve an organism against a label file, or a player's games (DEAP GA)"),
    "recognize": Command("evolve.cli.recognize", "clone players from their games and tell who played a game"),
    "fit": Command("evolve.cli.fit", "the exact-fit ceiling: the same linear model solved by LP or least squares"),
    "genes": Command("evolve.cli.genes", "a genome layout's genes: the names an --init file of gene values uses"),
    "train-net": Command("evolve.cli.train_net",
                         "train a Giraffe-style evaluation net: from labels, then TD-Leaf self-play"),
    "train-pnet": Command("evolve.cli.train_pnet",
                          "train a perspective net (NNUE-style) on labels' expected scores (win-probability loss)"),
    "deepchess-data": Command("evolve.cli.deepchess_data",
                              "DeepChess training positions from decisive games: PGN or self-play labels"),
    "train-cmp": Command("evolve.cli.train_cmp",
                         "train a DeepChess comparator (Pos2Vec + siamese) and a distilled one"),
    "train-moves": Command("evolve.cli.train_moves",
                           "train a move-probability net for the probability-limited search"),
    "match": Command("evolve.cli.match", "a match between two players, with Elo statistics"),
    "games": Command("evolve.cli.games", "a game set: a round robin between player specs, one PGN"),
    "tournament": Command("evolve.cli.tournament", "a round robin or gauntlet with jointly fitted Elo ratings"),
    "book": Command("evolve.cli.book", "DeepRed's experience tree: import games into a book (SQLite)"),
    "suite": Command("evolve.cli.suite", "solve a test suite (bm/am; STS points)"),
    "export": Command("evolve.cli.export",
                      "an organism as C, Rust or JSON tables and constants; a perspective net as raw integers"),
    "demo": Command("evolve.cli.demo", "the main job on embedded defaults: label, evolve, report"),
}
"""Every command, in the order ``mimic --help`` lists them."""


def command_parser(subparsers: argparse._SubParsersAction, name: str, parents: list[argparse.ArgumentParser],
                   **kwargs: Any) -> argparse.ArgumentParser:
    """The sub-parser of command ``name``: its table help, the shared ``parents``, the defaults-showing formatter."""
    return subparsers.add_parser(name, help=COMMANDS[name].help, parents=parents, formatter_class=HelpFormatter,
                                 **kwargs)
