"""``mimic evolve``: evolve an organism against a label file, or a player's games (DEAP GA). May import
:mod:`evolve.ga`."""

from __future__ import annotations

import argparse
import contextlib

from evolve.cli.common import GenerationBar, command_line, default, finite_float, non_negative_int, positive_int, warn
from evolve.cli.options import Parents, ga_settings
from evolve.cli.table import command_parser

NAME = "evolve"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.ga.losses import DEFAULT_LOSS, LOSSES, loss_help
    from evolve.ga.objectives import AGREEMENTS, MOVE_LOSSES
    from evolve.ga.run import OBJECTIVES, RunSettings

    p = command_parser(subparsers, NAME, [parents.ga(), parents.wdl(), parents.score(), parents.progress()],
                       description="Evolve an organism that reproduces the mentor's scores of a label file "
                                   "(--objective mentor or result), or a player's moves in a PGN file (--objective "
                                   "moves --player NAME), and write results (organism.json, logbook.csv, curve.png, "
                                   "summary.md).")
    p.add_argument("labels", help="EPD label file (from mimic label); for --objective moves, a PGN file of games")
    p.add_argument("--out", required=True,
                   help="results folder, e.g. results/NAME (with --genome FILE.py, the term file is copied into it, so "
                        "that the organism loads wherever the folder goes)")
    p.add_argument("--objective", choices=OBJECTIVES, default=default(RunSettings, "objective"),
                   help="mentor: mean |eval - mentor score|; result: sigma(eval/K) against game results; "
                        "moves: agreement with a player's moves (a 1-ply choice over capture-resolved children)")
    p.add_argument("--loss", choices=list(LOSSES), default=default(RunSettings, "loss"),
                   help=f"the mentor objective's loss: {loss_help()}. The default stays {DEFAULT_LOSS} until the "
                        "study of issue 24 picks one")
    m = p.add_argument_group("moves objective", "The positions where --player moved in the PGN file's games.")
    m.add_argument("--player", default=None, metavar="NAME",
                   help="the player: a White/Black header equal to NAME, or whose surname (before the comma) is NAME "
                        "(never a substring; consultation games, 'A/B', only when equal)")
    m.add_argument("--skip-plies", type=non_negative_int, default=default(RunSettings, "skip_plies"), metavar="N",
                   help="leave out each game's first N plies (book moves)")
    m.add_argument("--moves-loss", choices=MOVE_LOSSES, default=default(RunSettings, "moves_loss"),
                   help="what the GA minimises: agreement (1 - the share of positions where the organism chooses the "
                        "played move; the paper's) or likelihood (the mean negative log-likelihood of the "
                        "played move under softmax(beta * score), beta fitted per organism); both are reported")
    m.add_argument("--agreement", choices=AGREEMENTS, default=default(RunSettings, "agreement"),
                   help="agreement loss: 1 - rate (count) or 1 - rate^2 (the paper's squared count; it "
                        "matters only with --selection roulette)")
    p.add_argument("--init", default=None, metavar="FILE.json|fit",
                   help="start from an engine's existing values (the nearest chromosome and population-1 mutated "
                        "copies) instead of random chromosomes: an organism file (its values by gene name; a user "
                        "layout's term file is not run, and may have changed since) or its mimic export JSON; gene "
                        "values by name, "
                        '{"pawn": 100, "pst_knight_c3_mg": 12, ...} (mimic genes lists the names; genes not given '
                        "take 0); or PeSTO-layout tables, {\"mg_value\": [6], \"eg_value\": [6], \"mg_table\": "
                        "{\"pawn\": [64], ...}, \"eg_table\": {...}} (squares a8..h1 as PeSTO prints them, or "
                        "\"square_order\": \"a1\"; --genome rich), projected onto the genes by least squares. The "
                        "summary shows the change term by term (changes.csv: every gene). fit (mentor objective): "
                        "from the nearest organism of the exact fit of the run's --loss")
    p.add_argument("--lambda", dest="lam", type=finite_float, default=default(RunSettings, "lam"),
                   help="result objective: weight exp(-n/lambda), n = plies to the game's end")
    p.add_argument("--checkpoint-every", type=positive_int, default=default(RunSettings, "checkpoint_every"),
                   metavar="N", help="generations between checkpoints")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")


def run(args: argparse.Namespace) -> int:
    from evolve.ga.run import RunSettings, evolve, format_outcome

    settings = RunSettings(labels=args.labels, out=args.out, ga=ga_settings(args), objective=args.objective,
                           target=args.target, cap=args.cap, held_out=args.held_out, score=args.score, lam=args.lam,
                           checkpoint_every=args.checkpoint_every, jobs=args.jobs, encoding=args.encoding,
                           genome=args.genome, polish=args.polish, player=args.player,
                           skip_plies=args.skip_plies, moves_loss=args.moves_loss, agreement=args.agreement,
                           init=args.init, loss=args.loss, loss_power=args.loss_power, wdl_model=args.wdl_model,
                           lambda_result=args.lambda_result, quiet_labels=args.quiet_labels)
    with contextlib.ExitStack() as stack:
        bar = None if args.no_progress else stack.enter_context(GenerationBar())
        outcome = evolve(settings, command_line(), resume=args.resume, report=warn, on_generation=bar)
    for line in format_outcome(outcome):
        print(line)
    shipped = f", {outcome.term_file.name} (the term file)" if outcome.term_file is not None else ""
    print(f"results in {args.out}/ (summary.md, organism.json, logbook.csv, curve.png{shipped})")
    return 0
