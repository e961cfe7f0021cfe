"""``mimic label``: sample positions and label them with a mentor at a fixed depth (an EPD label file).
May import :mod:`mentor`."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from evolve.cli import common
from evolve.cli.options import Parents
from evolve.cli.table import command_parser
from search.runtime.errors import InputError, MimicError, SettingsError

if TYPE_CHECKING:
    from mentor.pool import MentorConfig
    from mentor.uci_client import EngineError

NAME = "label"

UCI_DEPTH = {"label": 1, "datagen": 8}
"""A UCI mentor's depth when neither ``--depth`` nor ``--nodes`` (nor ``@depth``/``@nodes``) is given, by command (the
built-in mentor's: :data:`BUILTIN_DEPTH`). ``label``'s is the pupil study's (results/pupil-study/study.md): on the
same self-play positions Stockfish at depth 1 taught the organism and the perspective net as well as depth 8 or
better (organism 51.7 % against 44.3 % on 200,000; net 59.5 % against 54.0 % on all 2,000,000), at about ten times
the labels a second. ``datagen``'s is the depth the study's self-play games were played at: the games choose the
positions, and a shallower player's games are weaker ones."""
BUILTIN_DEPTH = 2
"""The built-in mentor's depth when none is given: the paper's 2-ply search."""


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from mentor.labeller import DEFAULT_CAP
    from mentor.samplers import SamplerOptions

    p = command_parser(subparsers, NAME, [parents.parallel(), parents.seed(), parents.progress(), mentor_options(NAME)],
                       description="Sample positions and label them with a mentor engine at a fixed depth, "
                                   "writing an EPD label file as it goes (ce, acd, pv, c9).")
    p.add_argument("--positions", type=common.positive_int, default=1000, help="positions to sample")
    p.add_argument("--source", action="append", default=None, metavar="random|FILE.pgn|FILE.epd|search:SPEC",
                   help="where positions come from; repeat to mix sources (split evenly); when not given, random. "
                        "FILE.pgn.gz, FILE.epd.gz: gzip, read as the plain ones. "
                        "search:SPEC: positions where that player's search evaluates while it plays itself from "
                        "the shipped openings (its spec's limit, @nodes=2000 when none), one in --tree-every")
    p.add_argument("--out", required=True, help="label file to write (EPD)")
    p.add_argument("--resume", action="store_true", help="continue an existing label file, skipping "
                   "positions already labelled")
    p.add_argument("--repair", action="store_true", help="only repair --out, a label file --resume refused as "
                   "damaged, keeping every readable line (the damaged file is kept as OUT.damaged)")
    p.add_argument("--cap", type=common.non_negative_int, default=DEFAULT_CAP,
                   help="scores beyond this many cp are flagged")
    p.add_argument("--fill", action="store_true",
                   help="when a source runs out before its share of --positions (a PGN file of few games), take the "
                        "rest from the sources that have more; without it the run has fewer positions, and says so")
    g = p.add_argument_group("random playouts")
    common.add_setting_options(g, SamplerOptions, (
        ("--min-plies", "min_plies", common.non_negative_int, "plies of a random playout at least"),
        ("--max-plies", "max_plies", common.non_negative_int, "plies of a random playout at most")))
    g.add_argument("--no-check", action="store_true", help="drop positions where the side to move is in check")
    g = p.add_argument_group("PGN games")
    common.add_setting_options(g, SamplerOptions, (
        ("--skip-plies", "skip_plies", common.non_negative_int, "skip the first N plies of each game"),
        ("--per-game", "per_game", common.positive_int, "positions taken per game")))
    g.add_argument("--random-move", action="store_true", help="play one random legal move from each position")
    g.add_argument("--quiet", action="store_true", help="keep only quiet positions (no check, no winning capture)")
    g = p.add_argument_group("search trees (search:SPEC)")
    g.add_argument("--tree-every", type=common.positive_int, default=50, metavar="M",
                   help="keep one in M of the positions the player's search evaluates (chosen by a seeded hash of "
                        "the position)")
    p.set_defaults(argv=None)


def mentor_options(command: str) -> argparse.ArgumentParser:
    """The mentor's options, shared by ``label`` and ``datagen`` (``command``: its default depth, :data:`UCI_DEPTH`):
    who, how deep, its hash, timeout and UCI options (defaults: :class:`mentor.pool.MentorConfig`)."""
    from mentor.pool import MentorConfig

    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--mentor", action="append", default=None,
                   metavar="stockfish|builtin[:SPEC]|PATH[@depth=N|@nodes=N|@eval]",
                   help="the mentor: Debian's Stockfish, our engine with the built-in expert (builtin) or with any of "
                        "mimic's evaluators (builtin:SPEC, e.g. builtin:pnet:results/pnet/pnet.npz@depth=2), or any "
                        "UCI engine executable, optionally at its own depth or nodes, or @eval: no search, the static "
                        "evaluation (Stockfish's eval command; a builtin's evaluator); repeat for a crowd of mentors "
                        "(label only: ce is the crowd's median score, c3 each mentor's); when not given, stockfish")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=common.positive_int, default=None,
                       help="fixed search depth (at most 99); when neither --depth nor --nodes is given, "
                            f"{UCI_DEPTH[command]} for UCI engines, {BUILTIN_DEPTH} for builtin")
    limit.add_argument("--nodes", type=common.positive_int, default=None, help="fixed node count instead of a depth")
    p.add_argument("--hash", type=common.hash_mib, default=common.default(MentorConfig, "hash_mb"), metavar="MB",
                   help="mentor hash size, MiB (at most half this machine's memory)")
    p.add_argument("--timeout", type=common.positive_float, default=common.default(MentorConfig, "timeout"),
                   metavar="S",
                   help="seconds per position before a mentor is restarted")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="UCI option for the mentor (one the engine lists after uci; every UCI mentor of a crowd)")
    return p


def mentor_configs(args: argparse.Namespace) -> list[MentorConfig]:
    """The :class:`mentor.pool.MentorConfig` of each ``--mentor`` (``stockfish``: Debian's, found on the machine;
    ``@depth=N`` or ``@nodes=N`` its own limit, else ``--depth``/``--nodes``, else the command's depth for a UCI
    engine (:data:`UCI_DEPTH`: 1 for ``label``, 8 for ``datagen``) and 2 for the built-in mentor; ``@eval`` its
    static evaluation). ``builtin:SPEC`` is mimic's engine with the
    evaluator a player spec names (:data:`evolve.players.PLAYERS`). The hash and timeout are shared, and the UCI
    options by every UCI mentor (each must list them); options with no UCI mentor to take them are refused."""
    from evolve.players import PLAYERS
    from mentor.pool import MentorConfig, find_stockfish
    from mentor.uci_client import check_option
    from search.players.spec import SpecError

    if any("=" not in o for o in args.option):
        raise SettingsError("--option takes NAME=VALUE")
    options = tuple((name, value) for name, _, value in (o.partition("=") for o in args.option))
    for name, value in options:
        check_option(name, value)  # a line break refused first, whoever the mentors are
    out = []
    for text in args.mentor or ["stockfish"]:
        mentor, depth, nodes, static = text, args.depth, args.nodes, False
        head, at, limit = text.rpartition("@")
        if at and limit == "eval":
            mentor, depth, nodes, static = head, None, None, True
        elif at and limit.partition("=")[0] in ("depth", "nodes"):
            key, _, value = limit.partition("=")
            if not value.isdigit() or int(value) < 1:
                raise SettingsError(f"--mentor {text}: {key} must be a positive whole number")
            mentor, depth, nodes = head, (int(value) if key == "depth" else None), (int(value) if key == "nodes"
                                                                                   else None)
        if mentor == "stockfish":
            path = find_stockfish()
            if path is None:
                raise SettingsError("Stockfish is not installed (apt-get install stockfish), or use --mentor builtin")
            command: tuple[str, ...] = (path,)
        elif mentor == "builtin" or mentor.startswith("builtin:"):
            command = ()
        else:
            command = (mentor,)
        kind = "builtin" if not command else "uci"
        player = mentor[len("builtin:"):] if mentor.startswith("builtin:") else None
        if player is not None:
            try:
                spec = PLAYERS.parse(player)
            except SpecError as exc:
                raise SettingsError(f"--mentor {text}: {exc}") from exc
            if spec.external:
                raise SettingsError(f"--mentor {text}: a built-in mentor is one of mimic's evaluators; give an "
                                    f"engine's path as the mentor itself")
        if depth is None and nodes is None and not static:
            depth = BUILTIN_DEPTH if kind == "builtin" else UCI_DEPTH[args.command]
        out.append(MentorConfig(kind, command=command, depth=depth, nodes=nodes, static=static, hash_mb=args.hash,
                                timeout=args.timeout, options=options if kind == "uci" else (), player=player,
                                make_player=PLAYERS if player is not None else None))
    if options and not any(c.kind == "uci" for c in out):  # nothing would take them: refused, not dropped
        raise SettingsError(f"--option {options[0][0]}: the built-in mentor is mimic's engine, not a UCI engine; it "
                            "has no UCI options")
    return out


def mentor_config(args: argparse.Namespace) -> MentorConfig:
    """The one mentor of a command that plays it (``datagen``): :func:`mentor_configs`, refusing a crowd."""
    configs = mentor_configs(args)
    if len(configs) > 1:
        raise SettingsError("--mentor given more than once: a crowd labels positions (mimic label); one mentor plays")
    if configs[0].static:
        raise SettingsError("--mentor ...@eval: a static evaluation chooses no move; self-play needs a search")
    return configs[0]


def mentor_error(exc: EngineError, config: MentorConfig | None) -> EngineError:
    """``exc`` naming the mentor's command when it does not already (a crowd's errors name their mentor)."""
    from mentor.uci_client import EngineError

    who = " ".join(config.command) if config is not None else ""
    return EngineError(str(exc) if who in str(exc) else f"mentor {who}: {exc}")


def run(args: argparse.Namespace) -> int:
    import shlex

    from mentor.labeller import LabelRun, label_samples
    from mentor.samplers import TREE_PREFIX, SamplerOptions, TreeSource, collect
    from mentor.uci_client import EngineError

    if args.repair:
        from mentor.salvage import salvage_label_file

        for line in salvage_label_file(args.out).lines():
            print(line)
        return 0
    if args.source is None:
        args.source = ["random"]
    if args.min_plies > args.max_plies:
        raise SettingsError(f"--min-plies {args.min_plies} is above --max-plies {args.max_plies}: no playout length "
                            "left")
    configs = mentor_configs(args)
    config = configs[0] if len(configs) == 1 else configs
    sampler = SamplerOptions(min_plies=args.min_plies, max_plies=args.max_plies, skip_check=args.no_check,
                             skip_plies=args.skip_plies, per_game=args.per_game, random_move=args.random_move,
                             quiet=args.quiet, fill=args.fill)
    tree = None
    if any(src.startswith(TREE_PREFIX) for src in args.source):
        from evolve.players import PLAYERS
        from search.games.openings import default_openings_path, load_openings

        starts = tuple(o.fen for o in load_openings(default_openings_path()))
        tree = TreeSource(PLAYERS, starts, args.tree_every, args.jobs)
    try:
        samples, stats = collect(args.source, args.positions, args.seed, sampler, common.warn, tree)
    except OSError as exc:  # a source that cannot be read: what the user gave (exit 2)
        raise InputError(common.os_error(exc)) from exc
    if len(samples) < args.positions:
        common.warn(f"the sources gave {len(samples):,} of the {args.positions:,} positions asked for: a source ran "
                    "out before its even share" + ("" if args.fill else " (--fill takes the rest from the others)"))
    if any(c.static for c in configs):  # no static evaluation in check (Stockfish's eval has none): not sampled
        kept = [s for s in samples if not s.board.is_check()]
        stats.in_check += len(samples) - len(kept)
        samples = kept
    argv = " ".join(shlex.quote(a) for a in sys.argv[1:]) if args.argv is None else args.argv
    details = {"search_trees": {"every": args.tree_every, "default_limit": "@nodes=2000", "openings": "shipped",
                                "seed": "the run's seed x 1000 + the source's index; game g: (that, g)"}
               } if tree else {}
    run = LabelRun(f"mimic {argv}", tuple(args.source), args.positions, args.seed, args.jobs, args.resume,
                   args.cap, sampler, details)
    try:
        with contextlib.ExitStack() as stack:
            bar = None if args.no_progress else stack.enter_context(common.ProgressBar("labelling", "pos"))
            summary = label_samples(samples, config, args.out, jobs=args.jobs, resume=args.resume, run=run,
                                    cap=args.cap, on_progress=bar, sampling=stats.as_dict())
    except EngineError as exc:
        raise mentor_error(exc, configs[0] if len(configs) == 1 else None) from exc
    except OSError as exc:
        if isinstance(exc, MimicError):  # RunExists: it names the file
            raise
        raise InputError(f"{common.os_error(exc)} (labels written so far are kept; rerun with --resume)") from exc
    for line in summary.lines():
        print(line)
    for msg in summary.failures[:10]:
        print(f"failed: {msg}", file=sys.stderr)
    return 0 if summary.failed == 0 else 1
