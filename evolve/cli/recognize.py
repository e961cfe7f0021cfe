"""``mimic recognize train|classify|experiment``: clone players from their games and tell who played a game.
Every error a user can cause reaches the command line as a ``MimicError`` (exit 2) or, writing a file, an
``OSError`` (exit 1). The feature families' flags (``--features`` and each family's parameters) come from
:data:`evolve.recognition.families.TABLE`. May import :mod:`evolve.recognition`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from evolve.cli.common import HelpFormatter, command_line, default, non_negative_int, positive_int, probability, warn
from evolve.cli.options import Parents, ga_settings
from evolve.cli.table import command_parser

NAME = "recognize"


def _max_games(text: str) -> int | None:
    if text == "equal":
        return None
    if text == "all":
        return 0
    return positive_int(text)


def _k(text: str) -> int | None:
    return None if text == "all" else positive_int(text)


def _families(text: str) -> tuple[str, ...]:
    return () if text == "none" else tuple(f.strip() for f in text.split(",") if f.strip())


def _flag_type(parse: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """A family parameter's ``parse`` as an argparse type: its ``ValueError`` becomes the flag's usage error."""
    def flag_type(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc

    flag_type.__name__ = name
    return flag_type


def _add_family_options(a: argparse.ArgumentParser) -> None:
    """``--features`` and every family parameter's flag (:data:`evolve.recognition.families.PARAMS`)."""
    from evolve.recognition.families import FAMILIES, PARAMS, flag

    a.add_argument("--features", type=_families, default=FAMILIES, metavar="F,...|none",
                   help=f"the classifier's feature families, of {', '.join(FAMILIES)} (none: no classifier)")
    for key, p in PARAMS.items():
        a.add_argument(flag(key), type=_flag_type(p.parse, key), default=None if p.auto is not None else p.default,
                       metavar=p.metavar, help=p.help)


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from evolve.cli.recognize_replay import add_ranking_option, add_replay_options
    from evolve.recognition import ExperimentSettings, RecognizeSettings

    p = command_parser(subparsers, NAME, [],
                       description="Player recognition: train one move-agreement organism per player (train), "
                                   "rank the players for each game side of a PGN file (classify), or train and "
                                   "measure on held-out games beside baselines (experiment).")
    acts = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action in ("train", "experiment"):
        a = acts.add_parser(action, formatter_class=HelpFormatter,
                            parents=[parents.parallel(), parents.progress(), parents.ga(data=False)],
                            help="train the clones" if action == "train" else
                            "train, classify the held-out test game sides at k = 1, 4, 16, all, with baselines")
        a.add_argument("games", nargs="+", metavar="GAMES.pgn", help="PGN files (a game in two files counts once)")
        a.add_argument("--players", required=True, metavar="A,B,...",
                       help="the players: a header equal to a name, or whose surname (before the comma) is it")
        a.add_argument("--out", required=True, metavar="DIR", help="folder for the clones (results/NAME)")
        a.add_argument("--alias", action="append", default=[], metavar="NAME=Header text",
                       help="a header that also names the player NAME (repeatable)")
        a.add_argument("--exclude", action="append", default=[], metavar="Header text",
                       help="a header that names no player, e.g. a namesake sharing a surname (repeatable)")
        a.add_argument("--max-games", type=_max_games, default=None, metavar="N|equal|all",
                       help="training game sides kept per player; when not given, equal: as many as the player "
                            "with the fewest has; all: no cap")
        a.add_argument("--max-held", type=positive_int, default=None, metavar="N",
                       help="validation and test game sides kept per player, each; when not given, all (bounds "
                            "the work on a large game set)")
        a.add_argument("--validation", type=probability, default=default(RecognizeSettings, "validation"),
                       help="share of the games for validation")
        a.add_argument("--test", type=probability, default=None,
                       help=f"share of the games held out for testing; when not given, "
                            f"{default(RecognizeSettings, 'test')}, or 0 with --test-games")
        a.add_argument("--test-games", nargs="+", default=[], metavar="TEST.pgn",
                       help="PGN files whose games are the test games (e.g. other openings than the training "
                            "games'); GAMES.pgn are then split into training and validation only")
        a.add_argument("--skip-plies", type=non_negative_int, default=default(RecognizeSettings, "skip_plies"),
                       metavar="N", help="leave out each game's first N plies")
        a.add_argument("--moves-loss", choices=("agreement", "likelihood"),
                       default=default(RecognizeSettings, "moves_loss"), help="what each clone's GA minimises")
        a.add_argument("--score", choices=("likelihood", "agreement"), default=default(RecognizeSettings, "score"),
                       help="what classification compares: the mean log-likelihood of the played moves "
                            "or the agreement rate, minus the clone's average on all players' validation games")
        a.add_argument("--no-shared", action="store_true", help="do not train the shared organism (a baseline)")
        a.add_argument("--genome", choices=("paper", "rich"), default=default(RecognizeSettings, "genome"),
                       help="genome layout")
        _add_family_options(a)
        if action == "experiment":
            a.add_argument("--mentor", default=default(ExperimentSettings, "mentor"), metavar="SPEC",
                           help="centipawn-loss baseline's mentor: one of our evaluators with @depth=N")
            a.add_argument("--cp-positions", type=positive_int, default=None, metavar="N",
                           help="centipawn-loss baseline: at most N positions a game side; when not given, all")
            add_replay_options(a, "replay for engines on the test sides")
            a.add_argument("--replay-sides", type=positive_int, default=None, metavar="N",
                           help="replay: each player's first N test game sides (file order); when not given, all")
            a.add_argument("--replay-positions", type=positive_int, default=None, metavar="N",
                           help="replay: each game side's first N positions; when not given, all")
    a = acts.add_parser("classify", help="rank the trained players for each game side of a PGN file",
                        formatter_class=HelpFormatter, parents=[parents.parallel(), parents.progress()])
    a.add_argument("dir", metavar="DIR", help="a folder made by recognize train")
    a.add_argument("query", metavar="QUERY.pgn", help="the games whose sides are classified")
    a.add_argument("--k", type=_k, default=1, metavar="N|all",
                   help="game sides a query: groups of N sides with the same player, in file order")
    a.add_argument("--csv", default=None, metavar="FILE",
                   help="one row per query: player, predicted, one score column per player")
    a.add_argument("--norm", choices=("validation", "query"), default=None,
                   help="--method clones: subtract each clone's average on the trained players' validation sides "
                        "(when not given) or on the query file's players (for queries from another population: other "
                        "openings, another era)")
    a.add_argument("--method", choices=("features", "clones", "replay"), default=None,
                   help="features: the classifier over the style features; clones: the clones' ranking; replay: "
                        "each of --candidates (engines that can be run) is asked to play the query's positions "
                        "again, ranked by the moves it matches; when not given, features when DIR has a classifier, "
                        "else clones")
    a.add_argument("--held-out", action="store_true",
                   help="only the games DIR's split did not train or validate on (its test games, and new ones)")
    add_replay_options(a)
    add_ranking_option(a)


class StageBars:
    """A tqdm bar on stderr for each stage the recognition library reports (``on_progress(stage, done,
    total)``: a stage starts at ``done == 0`` and ends at ``done == total``); one bar at a time."""

    def __init__(self) -> None:
        from tqdm import tqdm

        self.tqdm = tqdm
        self.bar: Any = None
        self.stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.bar is None or stage != self.stage:
            self.close()
            self.stage = stage
            self.bar = self.tqdm(total=total, desc=stage, unit="", file=sys.stderr, dynamic_ncols=True, leave=False)
        self.bar.total = total
        self.bar.n = done
        self.bar.refresh()
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def progress_callback(args: argparse.Namespace) -> StageBars | None:
    """The callback handed to the recognition library: bars on stderr, or ``None`` with ``--no-progress``."""
    return None if args.no_progress else StageBars()


def _train_settings(args: argparse.Namespace) -> Any:
    from evolve.recognition import RecognizeSettings
    from evolve.recognition.families import PARAMS

    players = tuple(p.strip() for p in args.players.split(",") if p.strip())
    return RecognizeSettings(games=tuple(args.games), players=players, out=args.out, ga=ga_settings(args),
                             aliases=tuple(args.alias), exclude=tuple(args.exclude), max_games=args.max_games,
                             max_held=args.max_held, validation=args.validation,
                             test=(0.0 if args.test_games else default(RecognizeSettings, "test")) if args.test is None
                             else args.test, test_games=tuple(args.test_games),
                             skip_plies=args.skip_plies, genome=args.genome, encoding=args.encoding,
                             moves_loss=args.moves_loss, score=args.score, shared=not args.no_shared,
                             features=args.features, family_params={k: getattr(args, k) for k in PARAMS},
                             jobs=args.jobs)


def _classify(args: argparse.Namespace) -> int:
    import numpy as np

    import evolve.recognition as rec
    from evolve.cli.recognize_replay import report_queries
    from evolve.recognition.classification import method_of
    from search.runtime.errors import SettingsError

    if args.method == "replay":
        from evolve.cli.recognize_replay import classify_replay

        return classify_replay(args, progress_callback(args))
    manifest = rec.load_clones(args.dir)[0]
    players = manifest["players"]
    method = method_of(manifest, args.method, args.dir)
    if args.norm is not None and method != "clones":
        raise SettingsError("--norm goes with --method clones (the classifier's probabilities are not normalised)")
    args.norm = args.norm or "validation"
    queries = rec.classify(args.dir, args.query, k=args.k, jobs=args.jobs, on_error=warn, held_out=args.held_out,
                           norm=args.norm, on_progress=progress_callback(args), method=method)
    against = ("all players' validation game sides" if args.norm == "validation" else
               "the query file's players (--norm query)")
    print(f"{len(queries)} queries of {args.query} ({'all' if args.k is None else args.k} game sides each), "
          f"{len(players)} players; "
          + (f"each player's probability by the classifier over {', '.join(manifest['classifier']['features'])}"
             if method == "features" else f"score: {manifest['settings']['score']} minus each clone's average on "
             f"{against} (higher is more like the player)"))
    def ranked(q: Any) -> str:
        if method == "features":
            prob = dict(zip(players, rec.probabilities(np.array([q.scores[p] for p in players])), strict=True))
            return ", ".join(f"{p} {prob[p]:.1%}" for p in q.ranking)
        return ", ".join(f"{p} {q.scores[p]:+.4f}" for p in q.ranking)

    report_queries(args, queries, players, ranked, "--skip-plies", "per-query scores", "a trained player")
    return 0


def _train(args: argparse.Namespace) -> int:
    import evolve.recognition as rec

    trained = rec.train(_train_settings(args), command_line(), on_error=warn, on_progress=progress_callback(args))
    for p in trained.manifest["players"]:
        c = trained.manifest["clones"][p]
        print(f"{p}: {c['train_sides']} training / {c['validation_sides']} validation / {c['test_sides']} "
              f"test game sides, {c['train_positions']} training positions; agreement "
              f"{c['train_agreement']:.1%} training, {c['validation_agreement']:.1%} validation")
    g = trained.manifest["games"]
    print(f"{g['unique']} games ({g['duplicates']} duplicates counted once, {g['malformed']} malformed "
          f"skipped); clones in {args.out}/ ({rec.MANIFEST}, {rec.SPLIT})")
    return 0


def _experiment(args: argparse.Namespace) -> int:
    import evolve.recognition as rec
    from evolve.cli.recognize_replay import candidates
    from evolve.players import PLAYERS

    exp = rec.ExperimentSettings(train=_train_settings(args), mentor=args.mentor, cp_positions=args.cp_positions,
                                 candidates=candidates(args), movetime=args.movetime, multipv=args.multipv,
                                 replay_sides=args.replay_sides, replay_positions=args.replay_positions)
    results = rec.experiment(exp, command_line(), on_error=warn, on_progress=progress_callback(args),
                             registry=PLAYERS)
    for k, row in results["k"].items():
        if not row["queries"]:
            print(f"k = {k}: no queries (no player has {k} test game sides)")
            continue
        print(f"k = {k}: {row['queries']} queries, top-1 clones {row['clones'][0]:.1%} (top-3 "
              f"{row['clones'][1]:.1%}), shared organism {row.get('shared', (float('nan'),))[0]:.1%}, "
              f"centipawn loss {row['cp_loss'][0]:.1%}, chance {row['chance'][0]:.1%}"
              + (f", classifier {row['methods']['features']['top1']:.1%}" if "features" in row["methods"] else "")
              + (f", replay {row['replay'][0]:.1%} (top-3 {row['replay'][1]:.1%})" if "replay" in row else ""))
    print(f"results in {args.out}/ (summary.md, confusion.png, accuracy.png, queries-k*.csv"
          + (", replay-k*.csv)" if exp.candidates else ")"))
    return 0


def run(args: argparse.Namespace) -> int:
    actions: dict[str, Callable[[argparse.Namespace], int]] = {"classify": _classify, "train": _train,
                                                               "experiment": _experiment}
    return actions[args.action](args)
