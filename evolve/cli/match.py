"""``mimic match``: a match between two players, with Elo statistics. May import :mod:`search.games` and
:mod:`evolve.players`."""

from __future__ import annotations

import argparse

from evolve.cli import playing
from evolve.cli.common import default, make_folder_for, os_error, positive_int, sprt, warn
from evolve.cli.options import Parents, player_spec, spec_help
from evolve.cli.table import command_parser
from search.runtime.errors import InputError, MimicError

NAME = "match"


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from search.games.match import MatchSettings

    p = command_parser(subparsers, NAME, [playing.game_options(default(MatchSettings, "event"))], epilog=spec_help(),
                       description="Play a match between two player specs: paired openings (each played twice, "
                                   "colours swapped), parallel games, adjudication, PGN, Elo with a 95% interval, "
                                   "LOS, pentanomial pairs and an optional SPRT.")
    p.add_argument("a", type=player_spec, metavar="A", help="player spec, e.g. organism:results/x/organism.json")
    p.add_argument("b", type=player_spec, metavar="B",
                   help="player spec, e.g. uci:/usr/games/stockfish?Skill%%20Level=0")
    p.add_argument("--games", type=positive_int, default=default(MatchSettings, "games"), help="games in all")
    p.add_argument("--pgn", default=None, help="write every game here (appended as games finish; its folder is "
                                               "created when missing)")
    p.add_argument("--resume", action="store_true", help="continue a match whose games are in --pgn")
    p.add_argument("--sprt", type=sprt, default=None, metavar="ELO0,ELO1,ALPHA,BETA", help="stop early on a decision")
    p.add_argument("--sprt-min-games", type=positive_int, default=default(MatchSettings, "sprt_min_games"), metavar="N",
                   help="no SPRT decision before N games (at least the default)")


def run(args: argparse.Namespace) -> int:
    from evolve.players import PLAYERS, make_evaluator
    from search.choose import engine_label
    from search.games.game import GameResult
    from search.games.match import MatchSettings, MatchSummary, run_match
    from search.prob import engine_class
    from search.runtime.provenance import describe

    playing.start_engines((args.a, args.b))  # before the --learn book or the PGN; SpecError: one line from main
    playing.check_learning(args)
    runs = {}  # how our engine runs each player of ours: the compiled core or Python (the header says it once)
    for spec in (args.a, args.b):
        s = PLAYERS.parse(spec)
        if not s.is_external:
            evaluator = make_evaluator(s)  # fail now, not in a worker, on a bad organism file
            runs[spec] = f" [{engine_label(engine_class(evaluator, s.search))}]"
        playing.check_book(s, args.learn)
    found = playing.openings(args)
    tc = playing.time_control(args)
    playing.warn_repeats(tc, args.games, len(found))
    playing.open_learning(args)  # the book is created only once every check has passed
    settings = MatchSettings(args.a, args.b, games=args.games, jobs=args.jobs, openings=found, tc=tc,
                             adjudication=playing.adjudication(args), sprt=args.sprt,
                             sprt_min_games=args.sprt_min_games, event=args.event, hash_mb=args.hash, learn=args.learn)

    def show(g: object, summary: object) -> None:
        assert isinstance(g, GameResult) and isinstance(summary, MatchSummary)
        e = summary.elo
        print(f"game {summary.n:4d}/{args.games} round {g.round:>6s}: {g.white} - {g.black} {g.result} "
              f"({g.reason}, {g.plies} plies)   {summary.wins}-{summary.losses}-{summary.draws} "
              f"[{e.score:.3f}]", flush=True)

    print(f"{args.a}{runs.get(args.a, '')} vs {args.b}{runs.get(args.b, '')}: {args.games} games, "
          f"time control {tc.pgn()}, {len(found)} openings, {args.jobs} workers; {describe()}")
    try:
        if args.pgn is not None:
            make_folder_for(args.pgn)
        summary = run_match(settings, make_evaluator, args.pgn, args.resume, on_game=show, on_repair=warn)
    except OSError as exc:
        if isinstance(exc, MimicError):  # PgnWriteError (exit 1), RunExists (exit 2): they name the file
            raise
        raise InputError(f"cannot write the PGN: {os_error(exc, args.pgn)}") from exc
    for line in summary.lines():
        print(line)
    if summary.stopped_early:
        print(f"stopped early by the SPRT after {summary.n} games")
    print(playing.games_line(summary))
    playing.learned(args)
    return 0
