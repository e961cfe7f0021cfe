"""``mimic train-cmp``: a DeepChess comparator (Pos2Vec + siamese) and a distilled one, on positions from
``mimic deepchess-data``. May import :mod:`evolve.nets` (torch is imported there, only when training starts)."""

from __future__ import annotations

import argparse

from evolve.cli import common
from evolve.cli.options import Parents
from evolve.cli.training import add_resume, results_line, training_parser

NAME = "train-cmp"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.nets.deepchess import CmpSettings, CmpShape

    p = training_parser(subparsers, NAME, [parents.seed()],
                        "Train a DeepChess-style comparator on positions from mimic deepchess-data: Pos2Vec "
                        "pretrained layer-wise as autoencoders, the siamese comparator on fresh random (White-win, "
                        "Black-win) pairs every epoch, then a smaller comparator distilled from it. Writes cmp.npz "
                        "and cmp-small.npz (play them as cmp:OUT/cmp.npz), summary.md and curve.png; resumable per "
                        "epoch.", inputs=("data", "folder (or positions.npz) written by mimic deepchess-data"))
    g = p.add_argument_group("nets")
    g.add_argument("--pos2vec", type=common.positive_int, nargs="+", default=list(common.default(CmpShape, "pos2vec")),
                   help="Pos2Vec widths after the 773 bits (the paper's 600 400 200 100)")
    g.add_argument("--top", type=common.positive_int, nargs="+", default=list(common.default(CmpShape, "top")),
                   help="hidden widths of the comparator's top (the paper's 400 200 100)")
    small = common.default(CmpSettings, "small")
    g.add_argument("--small-pos2vec", type=common.positive_int, nargs="+", default=list(small.pos2vec),
                   help="Pos2Vec widths of the distilled comparator")
    g.add_argument("--small-top", type=common.positive_int, nargs="+", default=list(small.top),
                   help="hidden widths of the distilled comparator's top")
    g = p.add_argument_group("training")
    common.add_setting_options(g, CmpSettings, (
        ("--ae-epochs", "ae_epochs", common.non_negative_int, "pretraining epochs a layer"),
        ("--epochs", "epochs", common.non_negative_int, "comparator epochs")))
    g.add_argument("--keep-best", action="store_true",
                   help="keep the comparator epoch with the best validation pair accuracy (else the last); "
                        "distillation starts from it")
    g.add_argument("--patience", type=common.positive_int, default=None, metavar="N",
                   help="early stopping: end the comparator's training after N epochs without a better validation "
                        "pair accuracy, keeping the best epoch (implies --keep-best)")
    common.add_setting_options(g, CmpSettings, (
        ("--distill-epochs", "distill_epochs", common.non_negative_int,
         "distillation epochs (0: no distilled comparator)"),))
    g.add_argument("--pairs", type=common.positive_int, default=None,
                   help="pairs an epoch, each in both orders; when not given, as many as the smaller class")
    common.add_setting_options(g, CmpSettings, (
        ("--batch", "batch", common.positive_int, "minibatch"),
        ("--lr", "lr", common.positive_float, "Adam learning rate"),
        ("--decay", "decay", common.non_negative_float, "learning rate factor an epoch")))
    g.add_argument("--no-mirror", action="store_true",
                   help="train on the positions only, not also on their colour mirrors")
    p.add_argument("--no-speed", action="store_true", help="skip the search-speed measurement")
    add_resume(p)


def run(args: argparse.Namespace) -> int:
    from evolve.nets.deepchess import CmpSettings, CmpShape
    from evolve.nets.deepchess_run import train_cmp

    settings = CmpSettings(shape=CmpShape(pos2vec=tuple(args.pos2vec), top=tuple(args.top)),
                             small=CmpShape(pos2vec=tuple(args.small_pos2vec), top=tuple(args.small_top)),
                             ae_epochs=args.ae_epochs, epochs=args.epochs, distill_epochs=args.distill_epochs,
                             batch=args.batch, lr=args.lr, decay=args.decay, pairs=args.pairs,
                             mirror=not args.no_mirror, keep_best=args.keep_best,
                             patience=args.patience, seed=args.seed)
    outcome = train_cmp(args.data, args.out, settings, common.command_line(), resume=args.resume, report=print,
                        measure_speed=not args.no_speed)
    a = outcome.accuracy
    print(f"pair accuracy: comparator {a['big_validation']:.3f} validation, {a['big_test']:.3f} test"
          + (f"; distilled {a['small_validation']:.3f} validation, {a['small_test']:.3f} test"
             if outcome.small_path else ""))
    if outcome.small_path:
        print(results_line(args.out, ("cmp.npz", "cmp-small.npz", "summary.md", "curve.png"),
                           f"play them as cmp:{outcome.path} or cmp:{outcome.small_path}"))
    else:
        print(results_line(args.out, ("cmp.npz", "summary.md", "curve.png"), f"play it as cmp:{outcome.path}"))
    return 0
