"""The ``mimic`` command line: the one place that wires every package together."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from search.spec import SpecError, parse_spec


def _cmd_uci(args: argparse.Namespace) -> int:
    from search import uci

    from .players import make_evaluator

    return uci.main(make_evaluator, args.eval, hash_mb=args.hash)


def _spec(text: str) -> str:
    try:
        parse_spec(text)
    except SpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mimic",
        description="Evolve chess evaluation functions by imitating a mentor engine.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("uci", help="run our alpha-beta engine as a UCI engine on stdin/stdout",
                       description="Run our alpha-beta engine as a UCI engine on stdin/stdout.")
    p.add_argument("--eval", default="material", type=_spec, metavar="SPEC",
                   help="evaluator player spec, e.g. material or material@depth=4 (default: material)")
    p.add_argument("--hash", default=16, type=int, metavar="MB", help="transposition table size (default 16)")
    p.set_defaults(func=_cmd_uci)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except SpecError as exc:
        print(f"mimic: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
