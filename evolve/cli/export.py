"""``mimic export``: an organism as C, Rust or JSON (tables and named constants), or a perspective net as raw
little-endian integers. May import :mod:`evolve.export` (the library writes; this module parses and prints)."""

from __future__ import annotations

import argparse
from pathlib import Path

from evolve.cli.common import fail, os_error
from evolve.cli.options import Parents
from evolve.cli.table import command_parser

NAME = "export"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.export.organism import TABLE_LAYOUTS
    from evolve.export.table import DEFAULT_FORMAT, FORMATS

    formats = "; ".join(f"{name}: {spec.help}" for name, spec in FORMATS.items())
    defaults = ", ".join(f"{fmt} for {'an' if kind[0] in 'aeiou' else 'a'} {kind} file"
                         for kind, fmt in DEFAULT_FORMAT.items())
    p = command_parser(subparsers, NAME, [],
                       description="Write an organism (organism.json: paper, rich or a user's layout, whose own terms "
                                   "are exported as named weights and further inputs) as C, Rust or JSON: every "
                                   "gene a named constant, material and middle-game/endgame piece-square tables over "
                                   "64 squares, the units, point of view, square order and phase formula stated, and "
                                   "an evaluation function that returns mimic's centipawns; or a perspective net "
                                   "(pnet.npz) as raw little-endian integers, the ones mimic's evaluator computes "
                                   "with (docs/export.md gives the layout byte by byte; tools/pnet_reference.py "
                                   "reads it in plain Python).")
    p.add_argument("source", help="an organism file (JSON) or a perspective net file (.npz), told by its content")
    p.add_argument("--format", choices=list(FORMATS), default=None, help=f"{formats} (default: {defaults})")
    p.add_argument("--layout", choices=list(TABLE_LAYOUTS), default=None,
                   help="an organism's tables: mimic (squares a1 = 0 .. h8 = 63, the exact values, mimic's "
                        "evaluation) or pesto (PeSTO's names and order, a8 = 0, whole centipawns, PeSTO's "
                        "evaluation) (default: mimic)")
    p.add_argument("--out", default=None,
                   help="write here (its folder is created); without it, text goes to standard output (a net's "
                        "binary export needs --out)")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument("--explain", default=None, metavar="FEN",
                   help="instead of exporting, print an organism's evaluation of the position FEN input by input, in "
                        "the order the exported evaluation (mimic layout) takes them: each term's count (White's "
                        "minus Black's), its weights and what it adds, then the sums and the score, so that a port "
                        "can be checked term by term")


def run(args: argparse.Namespace) -> int:
    from evolve.export.table import FORMATS, export_file
    from search.runtime.atomic import write_atomic

    prog = "mimic export"
    if args.explain is not None:
        given = [flag for flag, value in (("--out", args.out), ("--format", args.format), ("--layout", args.layout))
                 if value is not None]
        if given:
            fail(prog, f"--explain prints one position's evaluation and exports nothing: drop {', '.join(given)}")
            return 2
        from evolve.export.explain import explain_file

        for line in explain_file(args.source, args.explain).lines():
            print(line)
        return 0
    if args.out is not None:
        out = Path(args.out)
        if out.is_dir():
            fail(prog, f"{args.out}: is a directory (--out names the file to write)")
            return 2
        if out.exists() and not args.force:
            fail(prog, f"{args.out} exists; pass --force to replace it, or choose another --out")
            return 2
    elif args.format is not None and not FORMATS[args.format].text:
        fail(prog, f"--format {args.format} is binary: name the file to write with --out")
        return 2
    done = export_file(args.source, args.format, args.layout)
    if args.out is None:
        if isinstance(done.data, bytes):
            fail(prog, f"--format {done.format} is binary: name the file to write with --out")
            return 2
        print(done.data, end="")
        return 0
    try:
        write_atomic(args.out, done.data)
    except OSError as exc:
        fail(prog, f"cannot write the export: {os_error(exc, args.out)}")
        return 1
    print(f"{done.summary} -> {args.out}")
    return 0
