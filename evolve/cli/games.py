"""``mimic games``: a game set, a round robin between player specs written to one PGN; and the round robin
(or gauntlet) that ``mimic tournament`` plays too. May import :mod:`search.games`, :mod:`search.runtime` and
:mod:`evolve.players`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from evolve.cli import playing
from evolve.cli.common import default, make_folder_for, os_error, positive_int, warn
from evolve.cli.options import Parents, spec_help
from evolve.cli.table import command_parser
from search.runtime.errors import InputError, MimicError, RunExists, SettingsError

if TYPE_CHECKING:
    from search.games.roundrobin import RoundRobinSummary
    from search.players.spec import PlayerSpec

NAME = "games"


def game_set_options(event: str, out: str) -> argparse.ArgumentParser:
    """The options of a round robin (``games`` and ``tournament``): the players, the PGN, names, games."""
    from search.games.roundrobin import RoundRobinSettings

    p = argparse.ArgumentParser(add_help=False, parents=[playing.game_options(event)])
    p.add_argument("players", nargs="+", metavar="SPEC", help="player specs (at least two)")
    p.add_argument("--out", required=True, help=out)
    p.add_argument("--names", default=None, metavar="A,B,...",
                   help="header names, one per SPEC, comma-separated; when not given, readable names from the specs")
    p.add_argument("--games", type=positive_int, default=default(RoundRobinSettings, "games"),
                   help="games per pairing")
    p.add_argument("--resume", action="store_true", help="continue a game set whose games are in --out")
    return p


def add_parser(subparsers: argparse._SubParsersAction, parents: Parents) -> None:
    from search.games.roundrobin import RoundRobinSettings

    out = "the PGN to write (appended as games finish; its folder is created when missing)"
    command_parser(subparsers, NAME, [game_set_options(default(RoundRobinSettings, "event"), out)],
                   epilog=spec_help(),
                   description="Play a round robin between player specs (every pairing plays each opening "
                               "twice, colours swapped, as in match) and write every game to one PGN whose "
                               "White/Black headers hold the players' names; settings and provenance go to "
                               "OUT.json beside it. Resumable: rerun with --resume (and more --games) to play "
                               "only the games the PGN lacks.")


def run(args: argparse.Namespace) -> int:
    summary, sidecar = play_games(args)
    for line in summary.lines():
        print(line)
    print(f"{playing.games_line(summary)}; settings in {sidecar}")
    playing.learned(args)
    return 0


def _check_players(args: argparse.Namespace) -> list[PlayerSpec]:
    """The parsed player specs, each checked (organism files read, books opened; the engines were started by
    :func:`play_games`); :class:`~search.players.spec.SpecError` as ``bad player spec: ...`` otherwise."""
    from evolve.players import PLAYERS, make_evaluator
    from search.players.spec import SpecError

    specs = []
    for text in args.players:
        try:
            spec = PLAYERS.parse(text)
            if not spec.is_external:
                make_evaluator(spec)  # fail now, not in a worker, on a bad organism file
            playing.check_book(spec, args.learn)
        except SpecError as exc:
            raise SpecError(f"bad player spec: {exc}") from exc
        specs.append(spec)
    return specs


def play_games(args: argparse.Namespace, gauntlet: bool = False,
               check: Callable[[tuple[str, ...]], str | None] | None = None) -> tuple[RoundRobinSummary, Path]:
    """The round robin (or gauntlet) of ``mimic games`` and ``mimic tournament``: check the specs, play the
    games the PGN lacks, keep the sidecar ``OUT.json`` (:class:`search.games.sidecar.GameSetSidecar`); the summary
    and the sidecar's path. ``check`` sees the players' names before any game and may refuse them (its text: a
    :class:`~search.runtime.errors.SettingsError`)."""
    from dataclasses import asdict

    from evolve.players import make_evaluator
    from search.games.game import GameResult
    from search.games.roundrobin import RoundRobinSettings, default_name, run_round_robin
    from search.games.sidecar import GameSetSidecar
    from search.players.spec import SpecError
    from search.runtime.provenance import describe, provenance

    if len(args.players) < 2:
        raise SettingsError("a round robin needs at least two player specs")
    try:  # before the --learn book or any file: an engine that does not answer is one line
        playing.start_engines(args.players)
    except SpecError as exc:
        raise SpecError(f"bad player spec: {exc}") from exc
    playing.check_learning(args)
    specs = _check_players(args)
    names = ([n.strip() for n in args.names.split(",")] if args.names is not None
             else [default_name(s) for s in specs])
    found = playing.openings(args)  # shuffled by --seed
    tc = playing.time_control(args)
    try:
        settings = RoundRobinSettings(players=tuple(s.text for s in specs), names=tuple(names), games=args.games,
                                      jobs=args.jobs, openings=found, tc=tc, adjudication=playing.adjudication(args),
                                      event=args.event, hash_mb=args.hash, learn=args.learn, gauntlet=gauntlet)
    except SettingsError as exc:
        hint = "; give distinct names with --names" if args.names is None and "name" in str(exc) else ""
        raise SettingsError(f"{exc}{hint}") from exc
    why = check(settings.names) if check is not None else None
    if why is not None:
        raise SettingsError(why)
    # What identifies the game set: a resumed run must play the same players under the same rules.
    identity = {"players": dict(zip(settings.names, settings.players, strict=True)),
                "time_control": tc.pgn(), "adjudication": asdict(settings.adjudication),
                "openings": {"file": str(args.openings) if args.openings else "shipped", "seed": args.seed,
                             "count": len(found), "first": found[0].name},
                "event": settings.event, **({"gauntlet": True} if gauntlet else {})}
    sidecar = GameSetSidecar(Path(args.out), identity, gauntlet)
    sidecar.open(args.resume)
    playing.open_learning(args)  # created only once every check has passed: a refused run makes no book
    sidecar.runs.append({**provenance(), "games_per_pairing": args.games, "jobs": args.jobs, "hash_mb": args.hash})

    pairs = len(settings.pairings)
    total = pairs * args.games

    def show(g: object, summary: object) -> None:
        assert isinstance(g, GameResult)
        n = getattr(summary, "n", 0)
        print(f"game {n:5d}/{total} round {g.round:>8s}: {g.white} - {g.black} {g.result} "
              f"({g.reason}, {g.plies} plies)", flush=True)

    print(f"{len(specs)} players, {pairs} pairings x {args.games} games, time control {tc.pgn()}, "
          f"{len(found)} openings, {args.jobs} workers; {describe()}")
    for name, text in zip(settings.names, settings.players, strict=True):
        print(f"  {name}: {text}")
    if Path(args.out).exists() and Path(args.out).stat().st_size > 0 and not args.resume:
        raise RunExists(f"{args.out} exists; pass --resume to continue it, or choose another --out")
    try:
        make_folder_for(args.out)
        sidecar.write(None, args.games)
        summary = run_round_robin(settings, make_evaluator, args.out, args.resume, on_game=show, on_repair=warn)
        sidecar.write(summary.n, args.games)
    except OSError as exc:
        if isinstance(exc, MimicError):  # PgnWriteError, SidecarWriteError (exit 1), RunExists: they name the file
            raise
        raise InputError(f"cannot write {os_error(exc, args.out)}") from exc
    return summary, sidecar.path
