"""``mimic train-moves``: a move-probability net for the probability-limited search, trained on the mentor's
best moves. May import :mod:`evolve.nets.movenet` (torch is imported there, only when training starts)."""

from __future__ import annotations

import argparse

from evolve.cli.common import add_setting_options, command_line, positive_float, positive_int, probability
from evolve.cli.options import Parents
from evolve.cli.training import add_limit, results_line, training_parser

NAME = "train-moves"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.nets.movenet import MoveTrainSettings

    p = training_parser(subparsers, NAME, [parents.jobs(), parents.seed()],
                        "Train a move-probability net (Giraffe's optional source of move probabilities) on the "
                        "mentor's best moves (the first PV move of every label): softmax over the legal moves, "
                        "cross-entropy. Writes movenet.npz (search with it as SPEC@search=prob-net:OUT/movenet.npz), "
                        "summary.md (top-1, top-3 and log-likelihood of the mentor's move for the net, the static "
                        "heuristic and the uniform distribution) and curve.png.",
                        inputs=("labels", "label file (EPD with pv), e.g. results/x/labels.epd"))
    p.add_argument("--test", default=None, help="another label file to measure on (e.g. positions of other games)")
    add_setting_options(p, MoveTrainSettings, (
        ("--hidden", "hidden", positive_int, "hidden units"), ("--epochs", "epochs", positive_int, "epochs"),
        ("--batch", "batch", positive_int, "positions a minibatch"),
        ("--lr", "lr", positive_float, "Adam learning rate"),
        ("--held-out", "held_out", probability, "share of positions held out")))
    add_limit(p)


def run(args: argparse.Namespace) -> int:
    from evolve.nets.movenet import MoveTrainSettings, train_move_net

    settings = MoveTrainSettings(hidden=args.hidden, epochs=args.epochs, batch=args.batch, lr=args.lr,
                                 held_out=args.held_out, limit=args.limit, jobs=args.jobs, seed=args.seed)
    outcome = train_move_net(args.labels, args.out, settings, command_line(), test=args.test, report=print)
    m = outcome.metrics["held-out"]
    print("held-out top-1: " + ", ".join(f"{k} {v['top1']:.3f}" for k, v in m.items()))
    print(results_line(args.out, ("movenet.npz", "summary.md", "curve.png"),
                       f"search with it as SPEC@search=prob-net:{outcome.path}"))
    return 0
