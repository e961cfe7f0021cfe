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


def _cmd_label(args: argparse.Namespace) -> int:
    import shlex

    from mentor.labeller import MentorConfig, find_stockfish, label_samples, write_settings
    from mentor.samplers import SamplerOptions, SourceError, collect

    mentor = args.mentor
    if mentor == "stockfish":
        path = find_stockfish()
        if path is None:
            print("mimic label: Stockfish is not installed (apt-get install stockfish), "
                  "or use --mentor builtin", file=sys.stderr)
            return 2
        command: tuple[str, ...] = (path,)
    elif mentor == "builtin":
        command = ()
    else:
        command = (mentor,)
    kind = "builtin" if mentor == "builtin" else "uci"
    depth = args.depth
    if depth is None and args.nodes is None:
        depth = 2 if kind == "builtin" else 10
    if any("=" not in o for o in args.option):
        print("mimic label: --option takes NAME=VALUE", file=sys.stderr)
        return 2
    options = tuple((name, value) for name, _, value in (o.partition("=") for o in args.option))
    config = MentorConfig(kind, command, depth, args.nodes, args.hash, args.timeout, options=options)
    sampler = SamplerOptions(args.min_plies, args.max_plies, args.no_check, args.skip_plies, args.per_game,
                             args.random_move, args.quiet)
    errors: list[str] = []

    def warn(msg: str) -> None:
        errors.append(msg)
        print(f"warning: {msg}", file=sys.stderr)

    try:
        samples, stats = collect(args.source, args.positions, args.seed, sampler, warn)
    except (SourceError, OSError) as exc:
        print(f"mimic label: {exc}", file=sys.stderr)
        return 2
    argv = " ".join(shlex.quote(a) for a in sys.argv[1:]) if args.argv is None else args.argv
    header = (f"mimic {argv}\nmentor: {config.describe()}; sources: {', '.join(args.source)}; "
              f"seed {args.seed}; {len(samples)} positions")
    try:
        summary = label_samples(samples, config, args.out, jobs=args.jobs, resume=args.resume, header=header,
                                cap=args.cap, progress=not args.no_progress, sampling=stats.as_dict())
    except FileExistsError as exc:
        print(f"mimic label: {exc}", file=sys.stderr)
        return 2
    settings = {k: v for k, v in vars(args).items() if k not in ("func", "argv")}
    settings["mentor_command"] = list(command)
    write_settings(args.out, settings, summary)
    for line in summary.lines():
        print(line)
    for msg in summary.failures[:10]:
        print(f"failed: {msg}", file=sys.stderr)
    return 0 if summary.failed == 0 else 1


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

    p = sub.add_parser("label", help="sample positions and label them with a mentor at a fixed depth",
                       description="Sample positions and label them with a mentor engine at a fixed depth, "
                                   "writing an EPD label file as it goes (ce, acd, pv, c9).")
    p.add_argument("--mentor", default="stockfish", metavar="stockfish|builtin|PATH",
                   help="the mentor: Debian's Stockfish (default), our engine with the built-in expert, "
                        "or any UCI engine executable")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, default=None,
                       help="fixed search depth (default 10 for UCI engines, 2 for builtin)")
    limit.add_argument("--nodes", type=int, default=None, help="fixed node count instead of a depth")
    p.add_argument("--positions", type=int, default=1000, help="positions to sample (default 1000)")
    p.add_argument("--source", action="append", default=None, metavar="random|FILE.pgn|FILE.epd",
                   help="where positions come from; repeat to mix sources (split evenly). Default random")
    p.add_argument("--out", required=True, help="label file to write (EPD)")
    p.add_argument("--jobs", type=int, default=1, help="parallel mentor processes (default 1)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--resume", action="store_true", help="continue an existing label file, skipping "
                   "positions already labelled")
    p.add_argument("--hash", type=int, default=16, metavar="MB", help="mentor hash size (default 16)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds per position before a mentor is restarted (default 120)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="UCI option for the mentor")
    p.add_argument("--cap", type=int, default=1500, help="scores beyond this many cp are flagged (default 1500)")
    g = p.add_argument_group("random playouts")
    g.add_argument("--min-plies", type=int, default=8)
    g.add_argument("--max-plies", type=int, default=100)
    g.add_argument("--no-check", action="store_true", help="drop positions where the side to move is in check")
    g = p.add_argument_group("PGN games")
    g.add_argument("--skip-plies", type=int, default=10, help="skip the first N plies of each game (default 10)")
    g.add_argument("--per-game", type=int, default=3, help="positions taken per game (default 3)")
    g.add_argument("--random-move", action="store_true", help="play one random legal move from each position")
    g.add_argument("--quiet", action="store_true", help="keep only quiet positions (no check, no winning capture)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_label, argv=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "source", "unset") is None:
        args.source = ["random"]
    try:
        return int(args.func(args))
    except SpecError as exc:
        print(f"mimic: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
