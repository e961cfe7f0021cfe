"""``mimic train-net``: a Giraffe-style evaluation net trained on mentor labels, then by TD-Leaf self-play.
May import :mod:`evolve.nets` (torch is imported there, only when training starts)."""

from __future__ import annotations

import argparse

from evolve.cli import common
from evolve.cli.options import Parents
from evolve.cli.training import GameBar, add_limit, add_resume, results_line, training_parser

NAME = "train-net"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.nets.giraffe import BOOT_LOSSES, NetShape, SupervisedSettings
    from evolve.nets.giraffe_run import NetRunSettings
    from evolve.nets.tdleaf import TDSettings

    p = training_parser(subparsers, NAME, [parents.seed(), parents.data(genome=False), parents.progress()],
                        "Train a Giraffe-style evaluation net (363 Giraffe features, a per-group first layer, a hidden "
                        "layer, one output in centipawns) on a label file's mentor scores, then optionally by "
                        "TD-Leaf(lambda) self-play with our engine; writes net.npz (play it as net:OUT/net.npz), "
                        "summary.md and curve.png.")
    add_limit(p)
    g = p.add_argument_group("net")
    g.add_argument("--units", type=common.positive_int, nargs=3, default=list(common.default(NetShape, "units")),
                   metavar=("GLOBAL", "PIECE", "SQUARE"),
                   help="first-layer units per feature group (Giraffe's 1.0x, 0.2x, 0.2x)")
    common.add_setting_options(g, NetShape, (("--hidden", "hidden", common.positive_int, "hidden units (Giraffe's)"),))
    g.add_argument("--linear", action="store_true",
                   help="add a linear path from the features to the output, started at the piece values on the "
                        "material counts, so that material adds up linearly at any imbalance (not Giraffe's)")
    g.add_argument("--members", type=common.positive_int, default=common.default(NetRunSettings, "members"),
                   help="train this many nets alike from consecutive seeds (one split), each in OUT/member-I/, and "
                        "play their mean as one net (bootstrap only, no TD-Leaf): a mean of nets plays with less "
                        "seed-to-seed noise; N times the training")
    g = p.add_argument_group("supervised bootstrap")
    common.add_setting_options(g, SupervisedSettings, (
        ("--epochs", "epochs", common.non_negative_int, "epochs"),
        ("--batch", "batch", common.positive_int, "minibatch"),
        ("--lr", "lr", common.positive_float, "Adam learning rate")))
    g.add_argument("--loss", choices=list(BOOT_LOSSES), default=common.default(SupervisedSettings, "loss"),
                   help="the bootstrap's loss: " + "; ".join(f"{k}: {v.summary}" for k, v in BOOT_LOSSES.items()))
    g = p.add_argument_group("TD-Leaf self-play (off unless --td-iterations)")
    g.add_argument("--td-iterations", type=common.non_negative_int, default=0, help="iterations (0: none)")
    common.add_setting_options(g, TDSettings, (
        ("--td-games", "games", common.positive_int, "games per iteration"),
        ("--td-plies", "plies", common.positive_int, "half-moves per game (Giraffe's)"),
        ("--td-nodes", "nodes", common.positive_int, "nodes per search"),
        ("--td-lambda", "lam", common.probability, "lambda (Giraffe's)"),
        ("--td-lr", "lr", common.positive_float, "SGD learning rate"),
        ("--td-snapshot-every", "snapshot_every", common.non_negative_int,
         "every N iterations, keep the net as OUT/td-nets/iter-NNNN.npz too, to measure the curve of play in games "
         "(0: never)")))
    g.add_argument("--openings", default=None,
                   help="start positions: an EPD file, or a PGN game set (a random point of a random game); "
                        "when not given, the shipped balanced openings")
    add_resume(p, "its checkpoints")


def run(args: argparse.Namespace) -> int:
    from evolve.nets.giraffe import NetShape, SupervisedSettings
    from evolve.nets.giraffe_run import NetRunSettings, train_net
    from evolve.nets.tdleaf import TDSettings

    settings = NetRunSettings(
        labels=args.labels, out=args.out,
        shape=NetShape(units=tuple(args.units), hidden=args.hidden, linear=args.linear),
        supervised=SupervisedSettings(epochs=args.epochs, batch=args.batch, lr=args.lr, seed=args.seed,
                                      loss=args.loss),
        td=TDSettings(iterations=args.td_iterations, games=args.td_games, plies=args.td_plies,
                      nodes=args.td_nodes, lam=args.td_lambda, lr=args.td_lr, cap=args.cap, seed=args.seed,
                      snapshot_every=args.td_snapshot_every),
        target=args.target, cap=args.cap, held_out=args.held_out, seed=args.seed, jobs=args.jobs,
        openings=args.openings, limit=args.limit, members=args.members)
    with GameBar(not args.no_progress) as bar:
        outcome = train_net(settings, common.command_line(), resume=args.resume, report=bar.say, on_game=bar.on_game)
    if outcome.members:
        print(f"the mean of {len(outcome.members)} nets (members: "
              + ", ".join(f"{e:.1f}" for e in outcome.members_held_mae) + " cp held out)")
    print(f"held-out error {outcome.held_mae:.1f} cp (predicting the training median: "
          f"{outcome.baselines['median']:.1f} cp); training {outcome.train_mae:.1f} cp")
    print(results_line(args.out, ("net.npz", "summary.md", "curve.png"), f"play it as net:{outcome.path}"))
    return 0
