"""``mimic fit``: the exact-fit ceiling, the organism's linear model solved by LP or least squares on a label
file. May import :mod:`evolve.data`, :mod:`evolve.ga` and :mod:`organisms`."""

from __future__ import annotations

import argparse
from pathlib import Path

from evolve.cli.common import command_line, fail, os_error, warn
from evolve.cli.options import Parents
from evolve.cli.table import command_parser

NAME = "fit"
EXITS = ((ValueError, 2),)
"""Labels that cannot be used: 2."""


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    p = command_parser(subparsers, NAME, [parents.data(), parents.wdl(), parents.seed()],
                       description="Solve the organism's linear model exactly on a label file (bounded L1 by "
                                   "linear programming, bounded L2 by least squares, the win-probability loss by "
                                   "L-BFGS-B from the L1 fit) and report its errors.")
    p.add_argument("labels", help="EPD label file (from mimic label)")
    p.add_argument("--loss", choices=("l1", "l2", "wdl"), action="append", default=None,
                   help="l1, l2 or wdl (the win-probability loss of mimic evolve --loss wdl, its K fitted as there); "
                        "repeatable; when not given, l1 (the default stays l1 until the study of issue 24 picks one)")
    p.add_argument("--out", default=None, help="write the nearest organism to this JSON file")


def run(args: argparse.Namespace) -> int:
    from evolve.data.dataset import load_dataset
    from evolve.ga.fit_cache import cached_exact_fit, cached_wdl_fit
    from evolve.ga.wdl import check_loss_power, wdl_loss, wdl_target
    from organisms import Organism
    from organisms.genome import layout_genome

    prog = "mimic fit"
    args.loss = list(dict.fromkeys(args.loss or ["l1"]))  # each loss once, in the order given
    if "wdl" in args.loss:
        check_loss_power(args.loss_power)  # before the labels are read
    try:
        ds = load_dataset(args.labels, args.target, args.cap, args.held_out, args.seed, n_jobs=args.jobs,
                          layout=args.genome, quiet=args.quiet_labels)
    except OSError as exc:
        fail(prog, os_error(exc, args.labels))
        return 2
    genome = layout_genome(args.genome)
    if args.out and Path(args.out).is_dir():
        fail(prog, f"{args.out}: is a directory (--out names the organism file to write)")
        return 2
    print(ds.describe())
    for line in ds.malformed_report():
        warn(line)
    target = None
    if "wdl" in args.loss:
        target = wdl_target(ds.y, ds.result, ds.ply, ds.train, args.wdl_model, args.loss_power, args.lambda_result)
        unknown = f", {target.unknown_ply} labels without a move number read at ply 64" if target.unknown_ply else ""
        print(f"win-probability loss: |sigmoid(eval/K) - p|^{target.power:g}, model {target.model}{unknown}, "
              f"lambda-result {target.lambda_result:g} ({target.blended} labels blended with their game result), "
              f"K {target.k:.2f} cp (fitted on the training rows)")
    for loss in args.loss:
        if loss == "wdl":
            assert target is not None
            l1 = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l1")
            fit = cached_wdl_fit(ds.features, ds.y, ds.train, ds.held, genome, target, l1.weights, data_key=l1.key)
        else:
            fit = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, loss)
        nearest = Organism.from_weights(fit.weights, genome)
        q_train = float(abs(ds.features[ds.train] @ nearest.weights - ds.y[ds.train]).mean())
        q_held = float(abs(ds.features[ds.held] @ nearest.weights - ds.y[ds.held]).mean())
        cached = ", from the cache" if fit.cached else ""
        print(f"{loss.upper()} fit ({fit.method}, {fit.seconds:.2f} s{cached}): mean absolute error "
              f"{fit.train_mae:.2f} cp training, {fit.held_mae:.2f} cp held out; nearest organism "
              f"{q_train:.2f} / {q_held:.2f}")
        if target is not None and loss == "wdl":
            rows = (ds.train, ds.held)
            q = [wdl_loss(ds.features[r], target.p[r], nearest.weights, target.k, target.power) for r in rows]
            print(f"  win-probability loss {fit.train_loss:.6f} training, {fit.held_loss:.6f} held out; nearest "
                  f"organism {q[0]:.6f} / {q[1]:.6f}")
        if args.out:
            path = args.out if len(args.loss) == 1 else args.out.replace(".json", f"-{loss}.json")
            nearest.meta = {"fit": loss, "labels": args.labels, "train_error": fit.train_mae,
                            "held_out_error": fit.held_mae, "command": command_line(),
                            "exact_weights": dict(zip(genome.names, fit.weights.tolist(), strict=True))}
            try:
                nearest.save(path)
            except OSError as exc:
                fail(prog, f"cannot write the organism: {os_error(exc, path)}")
                return 1
            print(f"  nearest organism written to {path}")
    return 0
