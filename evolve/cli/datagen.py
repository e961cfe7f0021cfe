"""``mimic datagen``: self-play data generation; the mentor plays itself and its searches become labels (an EPD label
file, as ``mimic label`` writes). May import :mod:`mentor` and :mod:`search.games` (the openings).

Its own command rather than a ``--source`` of ``mimic label``: ``label`` samples positions and then asks the mentor
for each, while here the mentor's own search of every position it plays is the label (no second pass), so the unit
of work and of ``--resume`` is a game, not a position, and its options (openings, random plies, the random-move
rate, resignation, labels a game) are a game's. The file and its sidecar are the same as ``label``'s; the sidecar
names the source ``selfplay`` and records these options.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from evolve.cli import common
from evolve.cli.label import mentor_config, mentor_error, mentor_options
from evolve.cli.options import Parents
from evolve.cli.table import command_parser
from search.runtime.errors import InputError, MimicError

NAME = "datagen"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from mentor.selfplay import SelfPlayOptions

    p = command_parser(subparsers, NAME, [parents.parallel(), parents.seed(), parents.progress(), mentor_options(NAME)],
                       description="Self-play data: the mentor plays itself from the openings (plus random plies) "
                                   "at a fixed depth or node count, and the score of every position it searches "
                                   "becomes a label (ce, acd, pv), with the game's result (c9), move number (fmvn) "
                                   "and plies to the end (c2); filters leave out the opening plies, checks, "
                                   "captures and promotions as best move and scores beyond the cap. Resumable.")
    p.add_argument("--positions", type=common.positive_int, default=10_000,
                   help="labels wanted (whole games: the last may go beyond)")
    p.add_argument("--out", required=True, help="label file to write (EPD)")
    p.add_argument("--resume", action="store_true", help="continue the label file: its games are kept, the "
                   "others played")
    p.add_argument("--openings", default=None,
                   help="EPD or PGN file of starts; when not given, the shipped balanced set")
    g = p.add_argument_group("games")
    common.add_setting_options(g, SelfPlayOptions, (
        ("--random-plies", "random_plies", common.non_negative_int, "random legal plies after the opening"),
        ("--random-rate", "random_rate", common.probability, "chance that a move is random instead of the mentor's"),
        ("--game-plies", "max_plies", common.positive_int, "a game this long is a draw"),
        ("--resign-cp", "resign_cp", common.positive_int, "resign when the score is beyond this many cp (or a mate)"),
        ("--resign-plies", "resign_plies", common.positive_int, "... for this many plies in a row")))
    g = p.add_argument_group("which searched positions become labels")
    common.add_setting_options(g, SelfPlayOptions, (
        ("--skip-plies", "skip_plies", common.non_negative_int, "leave out the game's first N plies"),
        ("--cap", "cap", common.positive_int, "leave out scores beyond this many cp (and mates)"),
        ("--per-game", "per_game", common.non_negative_int, "at most this many labels a game (a seeded choice; "
                                                              "0: all)")))
    g.add_argument("--keep-check", action="store_true", help="keep positions where the side to move is in check")
    g.add_argument("--keep-noisy", action="store_true",
                   help="keep positions whose best move is a capture or a promotion")


def _openings(path: str | None) -> list[str]:
    """The start positions (FEN) of ``--openings`` (default: the shipped set): each opening's moves played out. An
    opening that can give no position (:func:`mentor.selfplay.unplayable`) is named in a warning (the run leaves it
    out and counts it)."""
    import chess

    from mentor.selfplay import unplayable
    from search.games.openings import default_openings_path, load_openings

    try:
        found = load_openings(path or default_openings_path(), common.warn)
    except OSError as exc:
        raise InputError(f"cannot read the openings: {common.os_error(exc, path)}") from exc
    fens = []
    for o in found:
        board = chess.Board(o.fen)
        for move in o.moves:
            board.push_uci(move)
        fens.append(board.fen())
        why = unplayable(fens[-1])
        if why is not None:
            common.warn(f"opening {o.name}: {why}, it can give no position; left out")
    if not fens:
        raise InputError("no usable openings")
    return fens


def run(args: argparse.Namespace) -> int:
    from mentor.selfplay import SelfPlayOptions, generate
    from mentor.uci_client import EngineError

    options = SelfPlayOptions(random_plies=args.random_plies, random_rate=args.random_rate, max_plies=args.game_plies,
                              resign_cp=args.resign_cp, resign_plies=args.resign_plies, skip_plies=args.skip_plies,
                              skip_check=not args.keep_check, skip_noisy=not args.keep_noisy, cap=args.cap,
                              per_game=args.per_game)
    config = mentor_config(args)
    starts = _openings(args.openings)
    try:
        with contextlib.ExitStack() as stack:
            bar = None if args.no_progress else stack.enter_context(common.ProgressBar("self-play", "pos"))
            summary = generate(args.out, config, starts, args.positions, seed=args.seed, jobs=args.jobs,
                               options=options, resume=args.resume, command=common.command_line(), on_progress=bar)
    except EngineError as exc:
        raise mentor_error(exc, config) from exc
    except OSError as exc:
        if isinstance(exc, MimicError):  # RunExists: it names the file
            raise
        raise InputError(f"{common.os_error(exc)} (the games written so far are kept; rerun with --resume)") from exc
    s = summary.sampling
    print(f"mentor: {summary.mentor or '(no id name)'}")
    if summary.cut:  # a resume that cut a killed run's torn end: how many lines
        print(summary.cut)
    print(f"labels: {summary.already_labelled} already in {args.out}, {summary.labelled} written now, from "
          f"{s.get('games', 0)} games ({s.get('searched', 0)} positions searched)")
    results = ", ".join(f"{k[7:]} {v}" for k, v in s.items() if k.startswith("result "))
    print(f"results: {results or 'none'}; left out: " + ", ".join(
        f"{k} {v}" for k, v in s.items() if k not in ("games", "searched", "errors") and not k.startswith("result ")))
    refused = (f" ({summary.bad_scores} after a score beyond the mate bound or not a number, refused)"
               if summary.bad_scores else "")
    print(f"engine restarts: {summary.restarts}{refused}; speed: {summary.positions_per_second:.1f} labels/s, "
          f"{s.get('searched', 0) / max(summary.seconds, 1e-9):.1f} searches/s over {summary.seconds:.1f} s")
    for msg in summary.failures[:10]:
        print(f"failed: {msg}", file=sys.stderr)
    return 0 if summary.failed == 0 else 1
