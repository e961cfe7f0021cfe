"""``mimic train-pnet``: a perspective net (NNUE-style) trained on a label file's expected scores.
May import :mod:`evolve.nets` (torch is imported there, only when training starts)."""

from __future__ import annotations

import argparse

from evolve.cli import common
from evolve.cli.options import Parents
from evolve.cli.training import add_out, add_resume, results_line, training_parser

NAME = "train-pnet"


def net_k(text: str) -> str | float:
    """An argparse type: ``expert``, ``mentor`` or a positive number of centipawns."""
    if text in ("expert", "mentor"):
        return text
    try:
        return common.positive_float(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected expert, mentor or a positive number of centipawns, got "
                                         f"{text!r}") from None


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.nets.pnet_run import PNetRunSettings
    from evolve.nets.pnet_train import PNetSettings

    p = training_parser(subparsers, NAME, [parents.seed(), parents.data(genome=False), parents.wdl(), parents.score()],
                        "Train a perspective net ((768 -> N) x 2 -> 1, clipped ReLU, NNUE-style) on a label file: "
                        "sigmoid(eval/K_net) against the mentor's score through a win-probability model (the --loss "
                        "wdl convention of mimic evolve), Adam, mini-batches, the organisms' held-out split; "
                        "checkpoints every epoch (--resume continues to the same weights); writes pnet.npz (play it "
                        "as pnet:OUT/pnet.npz), summary.md and curve.png.", out_help=None)
    p.add_argument("--more-labels", action="append", default=[], metavar="FILE",
                   help="a further label file whose labels join the training rows only (repeatable): the held-out "
                        "rows and their errors stay the first file's, and a label whose position is a held-out "
                        "one is left out")
    add_out(p)
    p.add_argument("--train-rows", type=common.positive_int, default=None,
                   help="train on only this many of the training rows (a seeded choice; the held-out rows "
                        "unchanged): how many positions the net needs")
    p.add_argument("--net-k", type=net_k, default=common.default(PNetRunSettings, "k_mode"),
                   help="the net's K (cp), which sets its scale: expert (fitted Texel-style on the built-in "
                        "expert's scores of the training targets: the net's centipawns are the expert's), mentor "
                        "(the mentor's own K: the net learns the mentor's centipawns) or a number")
    p.add_argument("--unit", choices=("material", "k"), default=common.default(PNetRunSettings, "unit"),
                   help="the output's unit after training: material (rescaled so the net's values of a pawn, "
                        "knight, bishop, rook and queen up in quiet positions match the expert's; the loss, which "
                        "sees eval/K_net only, is unchanged) or k (as --net-k gives it)")
    g = p.add_argument_group("net and training")
    g.add_argument("--units", type=common.positive_int, default=common.default(PNetSettings, "units"),
                   help="first-layer units N per perspective")
    g.add_argument("--hidden", type=common.positive_int, nargs="*",
                   default=list(common.default(PNetSettings, "hidden")),
                   help="widths of hidden layers after the accumulators (none by default)")
    g.add_argument("--psqt", action=argparse.BooleanOptionalAction, default=common.default(PNetSettings, "psqt"),
                   help="add a linear path beside the clipped units (Stockfish NNUE's PSQT: a weight per input, "
                        "started at the piece values, added outside the clipped ReLU) so material counts linearly")
    common.add_setting_options(g, PNetSettings, (
        ("--scale", "scale", common.positive_float, "centipawns per output unit"),
        ("--epochs", "epochs", common.non_negative_int, "epochs"),
        ("--batch", "batch", common.positive_int, "mini-batch"),
        ("--lr", "lr", common.positive_float, "Adam's learning rate at the first epoch"),
        ("--weight-decay", "weight_decay", common.non_negative_float,
         "AdamW's decoupled weight decay on the first and hidden layers' weights (0: plain Adam)"),
        ("--lr-final", "lr_final", common.positive_float, "at the last epoch (geometric decay between)")))
    g.add_argument("--members", type=common.positive_int, default=common.default(PNetRunSettings, "members"),
                   help="train this many nets alike (seeds --seed, --seed+1, ...; the same split) in OUT/member-I/ "
                        "and write their mean as OUT/pnet.npz, one net with their first layers side by side: a "
                        "search exploits an evaluation's position-to-position errors, which the mean of several "
                        "nets has fewer of")
    add_resume(p, "its checkpoint(s)")


def run(args: argparse.Namespace) -> int:
    from evolve.nets.pnet_run import PNetRunSettings, train_pnet
    from evolve.nets.pnet_train import PNetSettings

    settings = PNetRunSettings(
        labels=args.labels, out=args.out,
        net=PNetSettings(units=args.units, hidden=tuple(args.hidden), psqt=args.psqt, scale=args.scale,
                         epochs=args.epochs, batch=args.batch, lr=args.lr, lr_final=args.lr_final,
                         weight_decay=args.weight_decay,
                         power=args.loss_power, seed=args.seed),
        target=args.target, cap=args.cap, held_out=args.held_out, score=args.score, seed=args.seed,
        quiet=args.quiet_labels,
        wdl_model=args.wdl_model, lambda_result=args.lambda_result, k_mode=args.net_k, unit=args.unit,
        train_rows=args.train_rows, jobs=args.jobs, more_labels=tuple(args.more_labels), members=args.members)
    outcome = train_pnet(settings, common.command_line(), resume=args.resume, report=print)
    last = outcome.curve[-1] if outcome.curve else None
    if outcome.members:
        e = outcome.mean_errors
        print(f"the mean of {len(outcome.members)} nets: held-out error {e['held_mae']:.1f} cp, loss "
              f"{e['held_loss']:.6f} (predicting the training median: {outcome.median_mae:.1f} cp)")
    elif last is not None:
        print(f"held-out error {last.held_mae:.1f} cp, loss {last.held_loss:.6f} (predicting the training median: "
              f"{outcome.median_mae:.1f} cp); training {last.train_mae:.1f} cp")
    print(f"start position {outcome.start_cp:+d} cp; " + results_line(args.out, ("pnet.npz", "summary.md", "curve.png"),
                                                                        f"play it as pnet:{outcome.path}"))
    return 0
