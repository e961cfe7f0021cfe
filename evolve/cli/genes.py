"""``mimic genes``: a genome layout's genes, the names an ``--init`` file of gene values uses (``mimic evolve --init``,
``mimic fit --init``). May import :mod:`organisms`."""

from __future__ import annotations

import argparse
import json

from evolve.cli.common import default
from evolve.cli.options import Parents, genome_layout
from evolve.cli.table import command_parser

NAME = "genes"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.ga.run import RunSettings
    from organisms.features import LAYOUTS

    p = command_parser(subparsers, NAME, [],
                       description="List a genome layout's genes: name, bits, range and grid step (centipawns per "
                                   "unit of the feature of the same name), in chromosome order. These are the names "
                                   "an --init file of gene values uses, e.g. {\"pawn\": 100, \"pst_knight_c3_mg\": "
                                   "12}; a gene it does not name takes 0.")
    p.add_argument("--genome", type=genome_layout, default=default(RunSettings, "genome"),
                   metavar="{" + ",".join(LAYOUTS) + ",FILE.py[:NAME],MODULE:NAME}",
                   help="the genome layout: paper (49 genes), rich (417: those plus signed middle-game and endgame "
                        "piece-square genes, files mirrored), or your own term file or module (docs/terms.md)")
    p.add_argument("--json", action="store_true",
                   help="print an --init template instead: a JSON object of every gene at the value it takes when "
                        "an --init file leaves it out (0)")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from organisms.genome import layout_genome
    from organisms.imported import DEFAULT_VALUE

    genome = layout_genome(args.genome)
    if args.json:
        defaults = np.clip(DEFAULT_VALUE, genome.low, genome.high)
        print(json.dumps(dict(zip(genome.names, defaults.tolist(), strict=True)), indent=1))
        return 0
    width = max(len(n) for n in genome.names)
    print(f"# the {args.genome} genome: {len(genome)} genes, {genome.total_bits} bits; values in centipawns per unit "
          "of the feature of the same name")
    print(f"{'gene':<{width}}  bits       low      high      step")
    for g in genome.genes:
        print(f"{g.name:<{width}}  {g.bits:>4}  {g.low:>8g}  {g.high:>8g}  {g.step:>8.4g}")
    return 0
