"""``mimic fit``: the exact-fit ceiling, the organism's linear model solved by LP or least squares on a label
file. May import :mod:`evolve.data`, :mod:`evolve.ga` and :mod:`organisms`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from evolve.cli.common import command_line, fail, os_error, warn
from evolve.cli.options import Parents
from evolve.cli.table import command_parser

if TYPE_CHECKING:
    import numpy as np

    from organisms.genome import Genome

NAME = "fit"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.ga.fit import EXACT_LOSSES
    from evolve.ga.losses import DEFAULT_LOSS, LOSSES

    p = command_parser(subparsers, NAME, [parents.data(), parents.wdl(), parents.score(), parents.seed()],
                       description="Solve the organism's linear model exactly on a label file (bounded L1 by "
                                   "linear programming, bounded L2 by least squares, the win-probability loss by "
                                   "L-BFGS-B from the L1 fit) and report its errors.")
    p.add_argument("labels", help="EPD label file (from mimic label)")
    names = list(dict.fromkeys([*EXACT_LOSSES, *LOSSES]))  # the exact fits, then every loss of mimic evolve
    p.add_argument("--loss", choices=names, action="append", default=None,
                   help=f"{', '.join(names[:-1])} or {names[-1]} (the exact fits, and the ceiling of each loss of "
                        f"mimic evolve --loss, the win-probability loss's K fitted as there); repeatable; when not "
                        f"given, {DEFAULT_LOSS}")
    p.add_argument("--out", default=None,
                   help="write the nearest organism to this JSON file (with --genome FILE.py, the term file is copied "
                        "beside it)")
    p.add_argument("--init", default=None, metavar="FILE.json",
                   help="an engine's existing values (an organism file or its mimic export JSON, gene values by "
                        "name or PeSTO-layout tables; "
                        "see mimic evolve --init): the win-probability fit's L-BFGS-B starts from them (the L1 and "
                        "L2 fits are convex: the same optimum from any start), and each fit's change from them is "
                        "shown term by term (with --out, every gene's in NAME-changes.csv beside the organism)")


def run(args: argparse.Namespace) -> int:
    from evolve.data.dataset import load_dataset
    from evolve.ga.changes import changes_section, write_changes_csv
    from evolve.ga.fit import Fit
    from evolve.ga.fit_cache import cached_exact_fit
    from evolve.ga.losses import DEFAULT_LOSS, LOSSES
    from evolve.ga.objective_api import Objective
    from organisms import Organism
    from organisms.genome import layout_genome
    from organisms.imported import read_start
    from organisms.userfiles import ship_term_file

    prog = "mimic fit"
    args.loss = list(dict.fromkeys(args.loss or [DEFAULT_LOSS]))  # each loss once, in the order given
    for loss in args.loss:
        if loss in LOSSES:
            LOSSES[loss].check(args)  # before the labels are read
    genome = layout_genome(args.genome)
    if genome.layout is not None and args.out:  # a different file where the term file's copy goes: refused now
        ship_term_file(genome.layout, Path(args.out).parent, write=False)
    start = read_start(args.init, genome) if args.init else None  # before the labels: a bad file fails at once
    if start is not None and start.warning is not None:
        warn(start.warning)
    try:
        ds = load_dataset(args.labels, args.target, args.cap, args.held_out, args.seed, n_jobs=args.jobs,
                          layout=args.genome, quiet=args.quiet_labels, score=args.score)
    except OSError as exc:
        fail(prog, os_error(exc, args.labels))
        return 2
    if args.out and Path(args.out).is_dir():
        fail(prog, f"{args.out}: is a directory (--out names the organism file to write)")
        return 2
    print(ds.describe())
    for line in ds.malformed_report():
        warn(line)
    objectives: dict[str, Objective] = {loss: LOSSES[loss].build(ds, args) for loss in args.loss if loss in LOSSES}
    for built in objectives.values():
        for line in built.describe():
            print(line)
    if start is not None:
        print(f"--init {args.init}: a fit that starts somewhere (the win-probability fit's L-BFGS-B) starts from these "
              "values; the L1 and L2 fits are convex (the same optimum from any start)")
        for line in start.lines():
            print(line)
    shipped = False
    for loss in args.loss:
        objective = objectives.get(loss)
        fit: Fit | None
        if objective is None:  # an exact fit that is no loss of mimic evolve (l2)
            fit = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, loss)
        else:
            fit = objective.ceiling(ds, genome, cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l1"),
                                    start=None if start is None else start.given)
        if fit is None:
            print(f"{loss.upper()}: this loss has no exact fit")
            continue
        nearest = Organism.from_weights(fit.weights, genome)
        q_train = float(abs(ds.features[ds.train] @ nearest.weights - ds.y[ds.train]).mean())
        q_held = float(abs(ds.features[ds.held] @ nearest.weights - ds.y[ds.held]).mean())
        cached = ", from the cache" if fit.cached else ""
        print(f"{loss.upper()} fit ({fit.method}, {fit.seconds:.2f} s{cached}): mean absolute error "
              f"{fit.train_mae:.2f} cp training, {fit.held_mae:.2f} cp held out; nearest organism "
              f"{q_train:.2f} / {q_held:.2f}")
        for line in objective.fit_lines(fit, ds, nearest.weights) if objective is not None else []:
            print(line)
        for line in user_gene_lines(genome, fit.weights, nearest.weights):
            print(line)
        path = (args.out if len(args.loss) == 1 else args.out.replace(".json", f"-{loss}.json")) if args.out else None
        changes = None if path is None else Path(path).with_name(Path(path).stem + "-changes.csv")
        if start is not None:
            print(f"\n{loss.upper()}: the change from --init to this fit's nearest organism\n")
            for line in changes_section(start, nearest.weights, changes.name if changes else None,
                                        "this fit's nearest organism", imported=False):
                print(line)
            print()
        if path is not None:
            nearest.meta = {"fit": loss, "labels": args.labels, "train_error": fit.train_mae,
                            "held_out_error": fit.held_mae, "command": command_line(),
                            **({"init": args.init} if start is not None else {}),
                            "exact_weights": dict(zip(genome.names, fit.weights.tolist(), strict=True))}
            try:
                nearest.save(path)
            except OSError as exc:
                fail(prog, f"cannot write the organism: {os_error(exc, path)}")
                return 1
            if start is not None and changes is not None:
                try:
                    write_changes_csv(changes, start, nearest.weights)
                except OSError as exc:
                    fail(prog, f"cannot write the changes: {os_error(exc, changes)}")
                    return 1
            print(f"  nearest organism written to {path}" + (f", its changes to {changes}" if start else ""))
            if genome.layout is not None and not shipped:
                copy = ship_term_file(genome.layout, Path(path).parent)
                shipped = True
                if copy is not None:
                    print(f"  the term file beside it: {copy} (the organism loads from its folder wherever it goes)")
    return 0


def user_gene_lines(genome: Genome, exact: np.ndarray, nearest: np.ndarray) -> list[str]:
    """The fitted values of a user layout's own terms' genes (none for paper and rich): per gene its nearest
    organism's value and the exact fit's, centipawns per unit of its feature, its range, and whether its term is a
    bonus or a penalty."""
    if genome.layout is None:
        return []
    from organisms.userlayout import load_checked

    layout = load_checked(genome.layout.source, genome.layout.sha256)
    rows = [(layout.names[c], group.term.sign, c) for group in layout.groups for c in group.columns]
    if not rows:
        return []
    width = max(4, *(len(name) for name, _, _ in rows))
    lines = ["  your terms' genes, centipawns per unit of the feature:",
             f"    {'gene':<{width}}  {'organism':>9}  {'exact fit':>10}  range, counts as"]
    for name, sign, c in rows:
        gene = genome.genes[c]
        lines.append(f"    {name:<{width}}  {nearest[c]:9.3f}  {exact[c]:10.4f}  [{gene.low:g}, {gene.high:g}], "
                     f"{'a bonus' if sign > 0 else 'a penalty'}")
    return lines
