"""``mimic games``: a game set, a round robin between player specs written to one PGN; and the round robin
(or gauntlet) that ``mimic tournament`` plays too. May import :mod:`search.games`, :mod:`search.runtime` and
:mod:`evolve.players`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from evolve.cli.common import default, fail, make_folder_for, non_negative_int, os_error, positive_int, warn
from evolve.cli.options import Parents, spec_help
from evolve.cli.playing import (
    adjudication,
    check_book,
    check_learning,
    game_options,
    games_line,
    learned,
    open_learning,
    openings,
    start_engines,
    time_control,
)
from evolve.cli.table import command_parser
from search.runtime.errors import MimicError

if TYPE_CHECKING:
    from search.games.roundrobin import RoundRobinSummary

NAME = "games"


def game_set_options(event: str, out: str) -> argparse.ArgumentParser:
    """The options of a round robin (``games`` and ``tournament``): the players, the PGN, names, games, seed."""
    from search.games.roundrobin import RoundRobinSettings

    p = argparse.ArgumentParser(add_help=False, parents=[game_options(event)])
    p.add_argument("players", nargs="+", metavar="SPEC", help="player specs (at least two)")
    p.add_argument("--out", required=True, help=out)
    p.add_argument("--names", default=None, metavar="A,B,...",
                   help="header names, one per SPEC, comma-separated; when not given, readable names from the specs")
    p.add_argument("--games", type=positive_int, default=default(RoundRobinSettings, "games"),
                   help="games per pairing")
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="shuffle the openings with this seed; when not given, the file's order")
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
    played = play_games(args, "mimic games")
    if isinstance(played, int):
        return played
    summary, sidecar = played
    for line in summary.lines():
        print(line)
    print(f"{games_line(summary)}; settings in {sidecar}")
    learned(args)
    return 0


def _check_players(args: argparse.Namespace, prog: str) -> list[object] | None:
    """The parsed player specs, each checked (organism files read, books opened; the engines were started by
    :func:`play_games`); ``None`` after an error line."""
    from evolve.players import PLAYERS, make_evaluator
    from search.players.spec import SpecError

    specs: list[object] = []
    for text in args.players:
        try:
            spec = PLAYERS.parse(text)
            if not spec.is_external:
                make_evaluator(spec)  # fail now, not in a worker, on a bad organism file
            check_book(spec, args.learn)
        except SpecError as exc:
            fail(prog, f"bad player spec: {exc}")
            return None
        specs.append(spec)
    return specs


class SidecarWriteError(MimicError, OSError):
    """The sidecar ``OUT.json`` could not be written (a full disk); the PGN keeps its whole games."""


#: The keys every sidecar ``OUT.json`` holds (``gauntlet`` only for a gauntlet), and the JSON type of each.
SIDECAR_KEYS: dict[str, type] = {"players": dict, "time_control": str, "adjudication": dict, "openings": dict,
                                 "event": str, "runs": list}


def read_sidecar(path: Path) -> dict[str, object]:
    """The sidecar ``OUT.json`` of a game set, checked (:mod:`search.runtime.readback`): a JSON object of bounded size
    and nesting with every key of :data:`SIDECAR_KEYS` of its type, ``players`` mapping names to specs (strings)
    and ``runs`` a list of objects. Raises :class:`~search.runtime.readback.ReadbackError` (a
    :class:`~search.runtime.errors.MimicError`: one line naming the file and what is wrong) otherwise."""
    from search.runtime.readback import ReadbackError, json_type, read_json, require

    data: dict[str, object] = read_json(path, "game set's sidecar")
    for key, kind in SIDECAR_KEYS.items():
        require(data, key, kind, str(path))
    players = data["players"]
    assert isinstance(players, dict)
    if not all(isinstance(v, str) for v in players.values()):
        raise ReadbackError(f"{path}: players must map names to player specs (strings)")
    runs = data["runs"]
    assert isinstance(runs, list)
    bad = next((i for i, r in enumerate(runs) if not isinstance(r, dict)), None)
    if bad is not None:
        raise ReadbackError(f"{path}: runs[{bad}] is {json_type(runs[bad])}, not an object")
    return data


def _check_pgn_players(pgn: Path, names: tuple[str, ...]) -> None:
    """Refuse to resume a PGN that holds games of players not among ``names`` (their White/Black headers),
    with one line (:class:`~search.runtime.errors.MimicError`): resuming would mix two game sets in one PGN."""
    from search.games.pgnlog import read_pgn_games

    if not pgn.is_file():
        return
    try:
        games = read_pgn_games(pgn)[0]
    except OSError as exc:
        raise MimicError(f"cannot read {os_error(exc, pgn)}") from exc
    others = sorted({h.get(side, "?") for _, h in games for side in ("White", "Black")} - set(names))
    if others:
        shown = ", ".join(others[:4]) + (", ..." if len(others) > 4 else "")
        raise MimicError(f"--resume: {pgn} holds games of other players ({shown}) than those asked for; "
                         "choose another --out")


def play_games(args: argparse.Namespace, prog: str, gauntlet: bool = False,
               check: Callable[[tuple[str, ...]], str | None] | None = None) -> tuple[RoundRobinSummary, Path] | int:
    """The round robin (or gauntlet) of ``mimic games`` and ``mimic tournament``: check the specs, play the
    games the PGN lacks, keep the sidecar ``OUT.json``; the summary and the sidecar's path, or an exit code
    after an error line. ``check`` sees the players' names before any game and may refuse them (its text)."""
    import random
    from dataclasses import asdict

    from evolve.players import make_evaluator
    from search.games.game import GameResult
    from search.games.pgnlog import PgnWriteError
    from search.games.roundrobin import RoundRobinSettings, default_name, run_round_robin
    from search.players.spec import PlayerSpec, SpecError
    from search.runtime.atomic import write_json_atomic
    from search.runtime.provenance import describe, provenance

    if len(args.players) < 2:
        fail(prog, "a round robin needs at least two player specs")
        return 2
    try:  # before the --learn book or any file: an engine that does not answer is one line
        start_engines(args.players)
    except SpecError as exc:
        fail(prog, f"bad player spec: {exc}")
        return 2
    if not check_learning(args, prog):
        return 2
    checked = _check_players(args, prog)
    if checked is None:
        return 2
    specs = [s for s in checked if isinstance(s, PlayerSpec)]
    names = ([n.strip() for n in args.names.split(",")] if args.names is not None
             else [default_name(s) for s in specs])
    found = openings(args, prog)
    if found is None:
        return 2
    if args.seed is not None:
        random.Random(args.seed).shuffle(found)
    tc = time_control(args, prog)
    if tc is None:
        return 2
    try:
        settings = RoundRobinSettings(players=tuple(s.text for s in specs), names=tuple(names), games=args.games,
                                      jobs=args.jobs, openings=found, tc=tc, adjudication=adjudication(args),
                                      event=args.event, hash_mb=args.hash, learn=args.learn, gauntlet=gauntlet)
    except ValueError as exc:
        hint = "; give distinct names with --names" if args.names is None and "name" in str(exc) else ""
        fail(prog, f"{exc}{hint}")
        return 2
    why = check(settings.names) if check is not None else None
    if why is not None:
        fail(prog, why)
        return 2
    # What identifies the game set: a resumed run must play the same players under the same rules.
    identity = {"players": dict(zip(settings.names, settings.players, strict=True)),
                "time_control": tc.pgn(), "adjudication": asdict(settings.adjudication),
                "openings": {"file": str(args.openings) if args.openings else "shipped", "seed": args.seed,
                             "count": len(found), "first": found[0].name},
                "event": settings.event, **({"gauntlet": True} if gauntlet else {})}
    sidecar = Path(f"{args.out}.json")
    runs: list[dict[str, object]] = []
    if args.resume:
        _check_pgn_players(Path(args.out), settings.names)
    if args.resume and sidecar.exists():
        old = read_sidecar(sidecar)
        differ = [k for k, v in identity.items() if old.get(k) != v]
        if differ:
            fail(prog, f"--resume with other {', '.join(differ)} than the games in {args.out} "
                       f"(see {sidecar}); choose another --out")
            return 2
        old_runs = old["runs"]
        assert isinstance(old_runs, list)  # read_sidecar checked it: a list of objects
        runs = list(old_runs)
    if not open_learning(args, prog):  # created only once every check has passed: a refused run makes no book
        return 2
    runs.append({**provenance(), "games_per_pairing": args.games, "jobs": args.jobs, "hash_mb": args.hash})

    def write_sidecar(played: int | None) -> None:
        record = {**identity, "games_per_pairing": args.games, "games_in_pgn": played,
                  "round": "P.K.C: pairing P (players' order" + ("; a gauntlet: the first player against each "
                           "other" if gauntlet else "") + "), opening K of the pairing, C=1 when the pairing's "
                           "first player has White", "runs": runs}
        try:
            write_json_atomic(sidecar, record, indent=2)
        except OSError as exc:  # name the sidecar, not the PGN; the PGN keeps its whole games
            raise SidecarWriteError(f"cannot write {sidecar}: {exc.strerror or exc}; the games in {args.out} are "
                                    "kept, --resume continues the game set") from exc

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
    try:
        if Path(args.out).exists() and Path(args.out).stat().st_size > 0 and not args.resume:
            raise FileExistsError(f"{args.out} exists; pass --resume to continue it, or choose another --out")
        make_folder_for(args.out)
        write_sidecar(None)
        summary = run_round_robin(settings, make_evaluator, args.out, args.resume, on_game=show, on_repair=warn)
        write_sidecar(summary.n)
    except FileExistsError as exc:
        fail(prog, str(exc))
        return 2
    except (PgnWriteError, SidecarWriteError) as exc:
        fail(prog, str(exc))
        return 1
    except OSError as exc:
        fail(prog, f"cannot write {os_error(exc, args.out)}")
        return 2
    return summary, sidecar
