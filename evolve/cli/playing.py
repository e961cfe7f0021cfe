"""What the game-playing commands (``match``, ``games``, ``tournament``, ``uci``) share: the game options
(declared once, as a parent parser), openings, time control, adjudication, player and book checks.

Defaults come from :class:`~search.games.game.Adjudication` and :class:`~search.games.match.MatchSettings`.
May import :mod:`evolve.cli.common`, :mod:`evolve.cli.options` and, inside functions, :mod:`search` and
:mod:`evolve.players`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

from evolve.cli.common import (
    add_setting_options,
    default,
    hash_mib,
    non_negative_int,
    os_error,
    positive_float,
    positive_int,
    seed_value,
    warn,
)
from evolve.cli.options import Parents
from search.runtime.errors import InputError

if TYPE_CHECKING:
    from search.games.game import Adjudication, TimeControl
    from search.games.match import MatchSummary
    from search.games.openings import Opening
    from search.games.roundrobin import RoundRobinSummary
    from search.players.spec import PlayerSpec

DEFAULT_MOVETIME = 0.1
"""Seconds a move when no ``--tc``, ``--movetime``, ``--nodes`` or ``--depth`` is given."""


def game_options(event: str) -> argparse.ArgumentParser:
    """The options every game-playing command shares: workers, openings, limits, adjudication, hash, event."""
    from search.games.game import Adjudication
    from search.games.match import MatchSettings

    p = argparse.ArgumentParser(add_help=False, parents=[Parents.parallel()])
    p.add_argument("--openings", default=None,
                   help="EPD or PGN file of openings; when not given, the shipped balanced set")
    p.add_argument("--seed", type=seed_value, default=None,
                   help="shuffle the openings with this seed; when not given, the file's order")
    tc = p.add_mutually_exclusive_group()
    tc.add_argument("--tc", default=None, help="clock: [moves/]seconds[+increment], e.g. 10+0.1")
    tc.add_argument("--movetime", type=positive_float, default=None,
                    help=f"seconds per move; {DEFAULT_MOVETIME:g} when no --tc, --nodes or --depth is given")
    tc.add_argument("--nodes", type=positive_int, default=None, help="nodes per move")
    tc.add_argument("--depth", type=positive_int, default=None, help="plies per move")
    g = p.add_argument_group("adjudication (cutechess-style; 0 disables)")
    add_setting_options(g, Adjudication, (
        ("--resign-moves", "resign_moves", non_negative_int, "resign after this many moves in a row beyond "
                                                             "--resign-score"),
        ("--resign-score", "resign_score", int, "centipawns"),
        ("--draw-movenumber", "draw_movenumber", non_negative_int, "no draw adjudication before this move number"),
        ("--draw-moves", "draw_moves", non_negative_int, "draw after this many moves in a row within --draw-score"),
        ("--draw-score", "draw_score", int, "centipawns"),
        ("--max-plies", "max_plies", non_negative_int, "a game this long is a draw")))
    p.add_argument("--hash", type=hash_mib, default=default(MatchSettings, "hash_mb"),
                   help="our engines' hash, MiB (at most half this machine's memory)")
    p.add_argument("--event", default=event, help="the PGN Event tag")
    p.add_argument("--learn", default=None, metavar="BOOK.sqlite",
                   help="add every finished game to this experience book (created when missing), from the game's "
                        "start position; a player with +book: or deepred: on the same file learns as it plays")
    return p


def check_book(spec: PlayerSpec, learn: str | None = None) -> None:
    """Raise :class:`SpecError` when the book of ``spec`` cannot be opened (nothing to check without one). A book
    that is the run's ``--learn`` book (``learn``) and does not exist yet is fine: :func:`open_learning` creates
    it once every check has passed."""
    import sqlite3
    from pathlib import Path

    from search.book.schema import BookError
    from search.book.tree import Book
    from search.players.spec import SpecError

    if spec.book is None:
        return
    if learn is not None and not Path(learn).exists() and Path(spec.book.path).resolve() == Path(learn).resolve():
        return
    try:
        with Book(spec.book.path, readonly=True) as book:
            book.check_rows()
    except BookError as exc:  # it names the file and what is wrong
        raise SpecError(f"{spec.text!r}: {exc}") from exc
    except (OSError, ValueError, sqlite3.Error) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SpecError(f"{spec.text!r}: cannot open the book {spec.book.path}: {why}") from exc


def start_engines(texts: Iterable[str]) -> None:
    """Start each distinct external engine among the player specs ``texts`` once, in this process, and quit it
    (:func:`search.players.player.check_engines`); :class:`SpecError` naming the spec whose engine is missing or
    does not answer ``uci``/``xboard`` in time (or whose text does not parse). Before any game is scheduled."""
    from evolve.cli.common import warn
    from evolve.players import PLAYERS
    from search.players.player import check_engines

    check_engines([PLAYERS.parse(text) for text in texts], on_warning=warn)


def check_learning(args: argparse.Namespace) -> None:
    """Check an existing ``--learn`` book (mimic's book, its rows sound) before anything is written or created;
    a missing one is fine (:func:`open_learning` creates it). :class:`~search.runtime.errors.InputError` (or the
    book's own :class:`~search.book.schema.BookError`) when it cannot be used."""
    import sqlite3
    from pathlib import Path

    from search.book.tree import Book

    if args.learn is None or not Path(args.learn).exists():
        return
    try:
        with Book(args.learn, readonly=True) as book:
            book.check_rows()
    except (OSError, sqlite3.Error) as exc:  # a BookError (not mimic's book, damaged) names the file itself
        raise InputError(f"cannot open the book {args.learn}: {exc}") from exc


def open_learning(args: argparse.Namespace) -> None:
    """Create the ``--learn`` book when it is missing (a player may read it from the first game);
    :class:`~search.runtime.errors.InputError` when it cannot be. Called once every other check has passed
    (:func:`check_learning` came first), so a refused run creates no book."""
    import sqlite3

    from search.book.tree import Book

    if args.learn is None:
        return
    try:
        with Book(args.learn) as book:
            print(f"learning into {args.learn}: {book.game_count()} games, {book.edge_count()} edges so far")
    except (OSError, sqlite3.Error) as exc:  # a BookError (not mimic's book, damaged) names the file itself
        raise InputError(f"cannot open the book {args.learn}: {exc}") from exc


def learned(args: argparse.Namespace) -> None:
    """The ``--learn`` book's totals after a run (nothing without ``--learn``)."""
    from search.book.tree import Book

    if args.learn is not None:
        with Book(args.learn, readonly=True) as book:
            print(f"book {args.learn}: {book.game_count()} games, {book.edge_count()} edges")


def openings(args: argparse.Namespace) -> list[Opening]:
    """The openings of ``--openings`` (default: the shipped set) in the file's order or shuffled by ``--seed``,
    warnings printed; :class:`~search.runtime.errors.InputError` when there are none to play."""
    import random

    from search.games.openings import default_openings_path, load_openings

    errors: list[str] = []
    openings_path = args.openings or default_openings_path()
    try:
        found = load_openings(openings_path, errors.append)
    except OSError as exc:
        raise InputError(f"cannot read the openings: {os_error(exc, openings_path)}") from exc
    for msg in errors:
        warn(msg)
    if not found:
        raise InputError("no usable openings")
    if args.seed is not None:
        random.Random(args.seed).shuffle(found)
    return found


def warn_repeats(tc: TimeControl, games: int, openings: int) -> None:
    """Warn when ``games`` at a fixed number of nodes or plies a move ask for more than ``openings`` give distinct
    ones: each opening is a pair of games (colours swapped), and a deterministic search replays a pair it has
    played, so game ``2 * openings + k`` repeats game ``k`` and counts twice in the score's interval."""
    if (tc.nodes is None and tc.depth is None) or games <= 2 * openings:
        return
    warn(f"{games} games at a fixed {'nodes' if tc.nodes is not None else 'depth'} from {openings} openings: "
         f"deterministic players replay them, so at most {2 * openings} games are distinct and the interval is too "
         f"narrow; give more openings (--openings search/data/openings-500.epd)")


def time_control(args: argparse.Namespace) -> TimeControl:
    """The ``TimeControl`` of ``--tc``/``--depth``/``--nodes``/``--movetime`` (:data:`DEFAULT_MOVETIME` a move
    when none is given); a bad ``--tc`` is a :class:`~search.runtime.errors.SettingsError`."""
    from search.games.game import TimeControl

    if args.tc:
        return TimeControl.parse(args.tc)
    if args.depth or args.nodes or args.movetime:
        return TimeControl(depth=args.depth, nodes=args.nodes, movetime=args.movetime)
    return TimeControl(movetime=DEFAULT_MOVETIME)


def adjudication(args: argparse.Namespace) -> Adjudication:
    from search.games.game import Adjudication

    return Adjudication(resign_moves=args.resign_moves, resign_score=args.resign_score,
                        draw_movenumber=args.draw_movenumber, draw_moves=args.draw_moves,
                        draw_score=args.draw_score, max_plies=args.max_plies)


def games_line(summary: MatchSummary | RoundRobinSummary) -> str:
    """The closing line of a match or round robin: the games this run played, its wall time and their rate (the
    games resumed from the PGN said apart, so a resumed run's rate counts only what it played)."""
    played = summary.n - summary.resumed
    line = f"{played} games in {summary.seconds:.0f} s ({3600 * played / max(summary.seconds, 1e-9):.0f} games/hour)"
    return line + (f", {summary.resumed} more resumed from the PGN: {summary.n} in all" if summary.resumed else "")
