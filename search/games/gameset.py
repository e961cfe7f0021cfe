"""The one game-set loop under a match and a round robin: play a schedule of games, resumable, each game
appended whole to the PGN log as it finishes and learnt by an experience book.

:func:`play_game_set` owns what :func:`search.games.match.run_match` and
:func:`search.games.roundrobin.run_round_robin` share: count the games the PGN holds already (``resume``),
play the rest (``jobs`` at once, in worker processes when more than one: a game a task, the worker starts
both players and closes them after it), append each finished game whole to the PGN
(:func:`search.games.pgnlog.append_whole`), add it to the ``--learn`` book (:mod:`search.book.tree`) and
tally it. A resumed set first adds the games the PGN holds to the book (the book skips the ones it has), so a
kill between the PGN and the book loses nothing. Imports chess and :mod:`search` only.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from search.book.tree import Book
from search.games.game import Adjudication, GameResult, Scheduled, TimeControl, play_game
from search.games.pgnlog import append_whole, games_to_resume, read_pgn_games
from search.players.spec import PlayerRegistry
from search.runtime.workers import parallel_map


class GameSetOptions(Protocol):
    """How a set of games is played (a :class:`~search.games.match.MatchSettings` or a
    :class:`~search.games.roundrobin.RoundRobinSettings`)."""

    @property
    def jobs(self) -> int: ...

    @property
    def tc(self) -> TimeControl: ...

    @property
    def adjudication(self) -> Adjudication: ...

    @property
    def event(self) -> str: ...

    @property
    def hash_mb(self) -> int: ...

    @property
    def learn(self) -> str | None: ...


class Tally(Protocol):
    """What counts a set's games (a match's or a round robin's summary)."""

    games: list[GameResult]
    resumed: int
    seconds: float

    def add(self, g: GameResult) -> None: ...

    @property
    def n(self) -> int: ...


T = TypeVar("T", bound=Tally)


def play_game_set(tally: T, todo: Sequence[Scheduled], make_evaluator: PlayerRegistry, pgn: Path | None,
                  options: GameSetOptions, *, resume: bool = False, names: Mapping[str, str] | None = None,
                  on_game: Callable[[GameResult, T], None] | None = None, stop: Callable[[T], bool] | None = None,
                  on_repair: Callable[[str], None] | None = None) -> T:
    """Play the games of ``todo`` the PGN at ``pgn`` lacks and return ``tally`` with every game added.

    The games the PGN holds already (same round, same names; ``names`` maps a spec to its header name) are
    added first and counted in ``tally.resumed`` (a torn game at the end is dropped first, ``on_repair`` is
    told); then each game played is appended to the PGN, learnt by ``options.learn``'s book, added to
    ``tally`` and given to ``on_game``; the set ends early when ``stop(tally)`` says so after a game (or after
    the resumed games, before any is played).
    ``tally.seconds`` is this run's wall time. Raises ``FileExistsError`` for an existing PGN without
    ``resume``, ``OSError`` when the PGN cannot be opened and :class:`~search.games.pgnlog.PgnWriteError`
    when a game cannot be written."""
    t0 = time.perf_counter()
    for g in games_to_resume(pgn, todo, resume, names=names, on_repair=on_repair):
        tally.add(g)
    tally.resumed = tally.n
    done = {g.round for g in tally.games}
    todo = [t for t in todo if t[0] not in done]
    if tally.n and stop is not None and stop(tally):  # the resumed games decide already: play none
        todo = []
    book = open_learning(options.learn, pgn)
    games = play_schedule(todo, make_evaluator, pgn, jobs=options.jobs, tc=options.tc,
                          adjudication=options.adjudication, event=options.event, hash_mb=options.hash_mb,
                          names=names, book=book)
    with contextlib.closing(games), closing_book(book):
        for g in games:
            tally.add(g)
            if on_game is not None:
                on_game(g, tally)
            if stop is not None and stop(tally):
                break
    tally.seconds = time.perf_counter() - t0
    return tally


@contextlib.contextmanager
def closing_book(book: Book | None) -> Iterator[None]:
    """Close ``book`` (when there is one) on leaving the block."""
    try:
        yield
    finally:
        if book is not None:
            book.close()


def open_learning(learn: str | Path | None, pgn: Path | None) -> Book | None:
    """The experience book a match learns into (``None`` without ``learn``), after adding to it the whole
    games the match PGN holds already (a resumed match; the book skips the games it has)."""
    if learn is None:
        return None
    book = Book(learn)
    try:
        if pgn is not None and pgn.is_file():
            book.add_pgn(b"".join(chunk for chunk, _ in read_pgn_games(pgn)[0]).decode("utf-8", errors="replace"))
    except BaseException:
        book.close()
        raise
    return book


def play_schedule(todo: Sequence[Scheduled], make_evaluator: PlayerRegistry, pgn: Path | None, *, jobs: int = 1,
                  tc: TimeControl, adjudication: Adjudication, event: str, hash_mb: int = 16,
                  names: Mapping[str, str] | None = None, book: Book | None = None
                  ) -> Generator[GameResult, None, None]:
    """Play the games of ``todo`` (``jobs`` at once, in worker processes when more than one) and yield
    each as it finishes, after appending it whole to ``pgn`` (see :func:`search.games.pgnlog.append_whole`) and
    adding it to ``book`` (its path from the game's start position); ``names`` maps a spec to the name its PGN
    headers show. Close the generator to stop early (the PGN is closed). Raises ``OSError`` when the PGN cannot be
    opened and :class:`~search.games.pgnlog.PgnWriteError` when a game cannot be written."""
    names = names or {}
    fd = os.open(pgn, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666) if pgn is not None else None
    try:
        for g in _play_all(todo, make_evaluator, jobs, tc, adjudication, event, hash_mb, names):
            if fd is not None and pgn is not None:
                append_whole(fd, g.pgn.encode("utf-8"), pgn)
            if book is not None:
                book.add_pgn(g.pgn)
            yield g
    finally:
        if fd is not None:
            os.close(fd)


def _play_scheduled(game: Scheduled, make_evaluator: PlayerRegistry, tc: TimeControl, adjudication: Adjudication,
                    event: str, hash_mb: int, names: Mapping[str, str]) -> GameResult:
    """Play one game of a schedule (a worker's task)."""
    rnd, w, b, op = game
    return play_game(w, b, op, tc, adjudication, make_evaluator, rnd, event, hash_mb=hash_mb,
                     white_name=names.get(w), black_name=names.get(b))


def _play_all(todo: Sequence[Scheduled], make_evaluator: PlayerRegistry, jobs: int, tc: TimeControl,
              adjudication: Adjudication, event: str, hash_mb: int, names: Mapping[str, str]
              ) -> Iterator[GameResult]:
    """Every game of ``todo``, in schedule order in this process, else as each finishes in the workers."""
    return parallel_map(_play_scheduled, todo, jobs, args=(make_evaluator, tc, adjudication, event, hash_mb, names),
                        ordered=False, batch_size=1)
