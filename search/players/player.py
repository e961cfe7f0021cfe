"""Players for matches and test suites: our engine around an evaluator, or an external engine.

Every player answers ``play(board, limit, timeout)`` with a :class:`MoveReport` or raises
:class:`PlayerError` naming why it could not (``crash``, ``time forfeit``, ``error``). A move request is
never left running past its ``timeout`` (seconds): our engine's search gets its own stop flag, raised by a timer
at the timeout, and answers with the best move found so far (whether that was too late is the game's clock's
call, :mod:`search.games.game`); external engines run through python-chess (``uci:PATH`` and ``xboard:PATH``
specs), each call guarded by that deadline, after which the engine process is killed. An external engine is sent
its spec's own limit alone when it has one (:meth:`ExternalPlayer.sent_limit`). A spec with an
experience book (``SPEC+book:PATH``, or the pure DeepRed player ``deepred:PATH``) is a :class:`BookPlayer` around
the player it names.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine

from search.base import Evaluator, Limit, MoveChooser, MovePolicy
from search.conventions import from_engine_score
from search.players.spec import DEFAULT_SEARCH, PlayerRegistry, PlayerSpec, SpecError
from search.prob import make_engine
from search.runtime.errors import MimicError


class _NoChatter(logging.Filter):
    """Drops python-chess's warning for each line an engine says that it does not parse ("Unexpected engine
    output"): Phalanx over XBoard says several a move (its thinking, "pondering off"), thousands a run, all
    harmless; errors and crashes are still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("%s: Unexpected engine output")  # python-chess's own format


logging.getLogger("chess.engine").addFilter(_NoChatter())

STOP_SHARE = 0.8
"""The share of a request's timeout after which an engine searching by depth or nodes alone is told to stop."""

ENGINE_START_TIMEOUT = 30.0
"""Seconds an external engine has to answer ``uci`` (``uciok``) or ``xboard`` (its features) when started."""


@dataclass
class MoveReport:
    """A move and what the engine said about it. ``score``: centipawns from the mover's view (a mate
    in n plies as ``±(MATE − n)``), ``None`` when the engine gave none."""

    move: chess.Move | None
    score: int | None = None
    depth: int = 0
    nodes: int = 0


class PlayerError(MimicError, RuntimeError):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class EnginePlayer:
    """Our alpha-beta engine with an evaluator; ``cap`` (from ``@depth=`` etc.) bounds every search; ``search``
    names the search it runs (``@search=``, :data:`search.players.spec.SEARCHES`), ``policy`` the
    move-probability net of ``prob-net:PATH``."""

    def __init__(self, name: str, evaluator: Evaluator, cap: Limit | None = None, hash_mb: int = 16,
                 search: str = DEFAULT_SEARCH, policy: MovePolicy | None = None) -> None:
        self.name = name
        self.engine = make_engine(evaluator, search, hash_mb, policy)
        self.cap = cap

    def new_game(self) -> None:
        self.engine.new_game()

    def play(self, board: chess.Board, limit: Limit, timeout: float | None = None) -> MoveReport:
        """Search ``board`` within ``limit`` (and the spec's cap); stopped at ``timeout`` seconds with the best move
        found so far (the first legal move when even the first iteration was cut short)."""
        stop = threading.Event()
        timer = None
        if timeout is not None:
            timer = threading.Timer(max(timeout, 0.0), stop.set)
            timer.daemon = True
            timer.start()
        try:
            r = self.engine.search(board, limit.capped(self.cap), stop=stop)
        except Exception as exc:  # an evaluator that raises loses the game, it does not stop the match
            raise PlayerError("crash", f"{type(exc).__name__}: {exc}") from exc
        finally:
            if timer is not None:
                timer.cancel()
        return MoveReport(r.move, r.score, r.depth, r.nodes)

    def close(self) -> None:
        pass


def _engine_limit(limit: Limit) -> chess.engine.Limit:
    return chess.engine.Limit(time=limit.movetime, depth=limit.depth, nodes=limit.nodes, mate=limit.mate,
                              white_clock=limit.wtime, black_clock=limit.btime, white_inc=limit.winc,
                              black_inc=limit.binc, remaining_moves=limit.movestogo)


class ExternalPlayer:
    """An engine process driven by python-chess over UCI or XBoard."""

    def __init__(self, name: str, path: str, options: dict[str, str] | None = None, protocol: str = "uci",
                 cap: Limit | None = None, start_timeout: float = ENGINE_START_TIMEOUT) -> None:
        self.name = name
        self.cap = cap
        self.protocol = protocol
        self.overruns = 0
        """Requests this engine did not answer within its own limit, told to stop (:meth:`play`)."""
        try:
            if protocol == "uci":
                self.engine = chess.engine.SimpleEngine.popen_uci([path], timeout=start_timeout)
            else:
                self.engine = chess.engine.SimpleEngine.popen_xboard([path], timeout=start_timeout)
        except TimeoutError as exc:
            raise PlayerError("crash", f"{path} does not answer {protocol} within {start_timeout:g} s") from exc
        except (OSError, chess.engine.EngineError) as exc:
            raise PlayerError("crash", f"cannot start {path}: {exc}") from exc
        if options:
            try:
                self.engine.configure({k: _option_value(v) for k, v in options.items()})
            except (chess.engine.EngineError, TimeoutError) as exc:
                self.close()
                raise PlayerError("error", f"{path}: option rejected: {exc}") from exc
        self._game = object()

    def new_game(self) -> None:
        self._game = object()

    @property
    def pid(self) -> int | None:
        transport = getattr(self.engine.protocol, "transport", None)
        return transport.get_pid() if transport is not None else None

    def sent_limit(self, limit: Limit) -> Limit:
        """The limit this engine is sent for a request of ``limit`` (the match's): its spec's own limit (``@depth``,
        ``@nodes``, ``@movetime``) alone when it has one, else ``limit``. Engines honour one limit of ``go``, not
        the first of several: Ethereal ignores ``nodes`` beside ``movetime`` or a clock and Toga II ignores
        ``nodes`` altogether, so a node-limited engine sent the match's time as well searches by the clock, and its
        games neither mean what its spec says nor replay."""
        cap = self.cap
        if cap is None or (cap.depth is None and cap.nodes is None and cap.movetime is None):
            return limit
        return Limit(depth=cap.depth, nodes=cap.nodes, movetime=cap.movetime, mate=limit.mate)

    def play(self, board: chess.Board, limit: Limit, timeout: float | None = None) -> MoveReport:
        """The engine's move within :meth:`sent_limit`; killed (``time forfeit``) past ``timeout`` seconds. When
        the sent limit has no time in it (depth or nodes alone) and ``timeout`` is given, the engine is told to
        stop (``stop``, XBoard's ``?``) at :data:`STOP_SHARE` of ``timeout`` and its move is taken: an engine
        that does not honour its limit is counted in :attr:`overruns` rather than forfeiting."""
        sent = self.sent_limit(limit)
        soft = None if timeout is None or sent.movetime is not None or sent.has_clock else timeout * STOP_SHARE
        result = self._call(self._play(board, _engine_limit(sent), soft), timeout)
        pov = result.info.get("score")
        score = None if pov is None else from_engine_score(pov.relative)
        return MoveReport(result.move, score, int(result.info.get("depth", 0)), int(result.info.get("nodes", 0)))

    async def _play(self, board: chess.Board, lim: chess.engine.Limit, soft: float | None) -> Any:
        """python-chess's ``play``, with ``stop`` sent after ``soft`` seconds (``None``: never)."""
        protocol = self.engine.protocol
        handle = None
        if soft is not None:
            handle = asyncio.get_running_loop().call_later(soft, self._stop_now)
        try:
            return await protocol.play(board, lim, game=self._game, info=chess.engine.INFO_SCORE)
        finally:
            if handle is not None:
                handle.cancel()

    def _stop_now(self) -> None:
        """Tell the engine to move now (a request past its stop time): UCI's ``stop``, XBoard's ``?``."""
        self.overruns += 1
        with contextlib.suppress(Exception):
            self.engine.protocol.send_line("stop" if self.protocol == "uci" else "?")

    def analyse(self, board: chess.Board, limit: Limit, multipv: int,
                timeout: float | None = None) -> list[tuple[chess.Move, int | None]]:
        """The engine's ``multipv`` best moves on ``board`` within ``limit`` (and the spec's cap), best first, each
        with its score in centipawns from the side to move's view (a mate in n plies as ``±(MATE − n)``; ``None``
        when the engine gave none); fewer when the position has fewer legal moves. Same game as :meth:`play` (its
        hash stays); a UCI engine's ``MultiPV`` (an XBoard engine gives one line)."""
        lim = _engine_limit(self.sent_limit(limit))
        infos = self._call(self.engine.protocol.analyse(board, lim, multipv=multipv, game=self._game,
                                                         info=chess.engine.INFO_SCORE | chess.engine.INFO_PV),
                           timeout)
        lines = []
        for info in infos:
            pv, pov = info.get("pv"), info.get("score")
            if pv:
                lines.append((pv[0], None if pov is None else from_engine_score(pov.relative)))
        return lines

    def _call(self, coro: Any, timeout: float | None) -> Any:
        """Run one request of python-chess's protocol within ``timeout`` seconds (then the process is killed)."""
        if timeout is not None:
            coro = asyncio.wait_for(coro, timeout)
        try:
            future = asyncio.run_coroutine_threadsafe(coro, self.engine.protocol.loop)
            return future.result()
        except TimeoutError as exc:
            self.kill()
            raise PlayerError("time forfeit", f"no move within {timeout:.2f} s") from exc
        except chess.engine.EngineTerminatedError as exc:
            raise PlayerError("crash", str(exc)) from exc
        except chess.engine.EngineError as exc:
            raise PlayerError("error", str(exc)) from exc

    def kill(self) -> None:
        pid = self.pid
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        try:
            self.engine.quit()
        except Exception:  # it may be dead already; the process is reaped either way
            self.kill()
            with contextlib.suppress(Exception):
                self.engine.close()


def _option_value(text: str) -> str | int | bool:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


class BookPlayer:
    """A player with an experience book (a :class:`~search.base.MoveChooser`, opened by the registry's
    :meth:`~search.players.spec.PlayerRegistry.book`): the book's move where it has one, the wrapped player's move
    elsewhere. A book move is reported with no score (adjudication skips it)."""

    def __init__(self, inner: EnginePlayer | ExternalPlayer, chooser: MoveChooser, path: str) -> None:
        self.name = inner.name
        self.inner = inner
        self.chooser = chooser
        self.path = Path(path)
        """The book's file, for error messages."""

    def new_game(self) -> None:
        self.inner.new_game()
        self.chooser.new_game()

    def play(self, board: chess.Board, limit: Limit, timeout: float | None = None) -> MoveReport:
        """The book's move, or the wrapped player's within what is left of ``timeout`` (seconds) after the book."""
        t0 = time.perf_counter()
        try:
            move = self.chooser.choose(board)
        except sqlite3.Error as exc:
            raise PlayerError("crash", f"book {self.path}: {exc}") from exc
        if move is not None:
            return MoveReport(move)
        left = None if timeout is None else max(timeout - (time.perf_counter() - t0), 0.0)
        return self.inner.play(board, limit, left)

    def close(self) -> None:
        self.chooser.close()
        self.inner.close()


def make_player(spec: str | PlayerSpec, make_evaluator: PlayerRegistry,
                hash_mb: int = 16) -> EnginePlayer | ExternalPlayer | BookPlayer:
    """The player a spec names: our engine for evaluator specs, an engine process for ``uci:``/``xboard:``,
    either inside a :class:`BookPlayer` when the spec has a book (opened by the registry,
    :meth:`~search.players.spec.PlayerRegistry.book`)."""
    s = make_evaluator.parse(spec) if isinstance(spec, str) else spec
    inner: EnginePlayer | ExternalPlayer
    if s.is_external:
        assert s.arg is not None
        inner = ExternalPlayer(s.text, s.arg, dict(s.options), s.kind, s.limit)
    else:
        deepred = s.book is not None and s.book.seed is not None  # its engine never searches: a small table
        inner = EnginePlayer(s.text, make_evaluator(s), s.limit, 1 if deepred else hash_mb, s.search,
                             make_evaluator.policy(s))
    if s.book is None:
        return inner
    try:
        chooser = make_evaluator.book(s)
    except (OSError, ValueError, sqlite3.Error) as exc:
        inner.close()
        raise PlayerError("crash", f"cannot open the book {s.book.path}: {exc}") from exc
    assert chooser is not None
    return BookPlayer(inner, chooser, s.book.path)


Player = EnginePlayer | ExternalPlayer | BookPlayer


def check_engines(specs: Iterable[PlayerSpec], timeout: float = ENGINE_START_TIMEOUT,
                  on_warning: Callable[[str], None] | None = None, replay: bool = False) -> None:
    """Start the engine of each distinct external spec among ``specs`` (by path, protocol and options), wait up
    to ``timeout`` seconds for it to answer ``uci`` or ``xboard`` and to take its options, and quit it; raise
    :class:`SpecError` naming the first spec whose engine does not (or whose executable is missing). Specs of
    our engine are not started. An engine whose spec gives a node limit is asked for one move at it and
    ``on_warning`` hears when it does not honour it (:func:`node_limit_complaint`); with ``replay``, also of an
    engine that searches with several threads by default (:func:`threads_complaint`). Meant for the parent
    process, before any game is scheduled."""
    seen: set[tuple[str, str | None, tuple[tuple[str, str], ...]]] = set()
    for spec in specs:
        key = (spec.kind, spec.arg, spec.options)
        if not spec.is_external or spec.arg is None or key in seen:
            continue
        seen.add(key)
        if shutil.which(spec.arg) is None:
            raise SpecError(f"{spec.text!r}: no executable {spec.arg}")
        try:
            with _quiet_engine_logs():
                player = ExternalPlayer(spec.text, spec.arg, dict(spec.options), spec.kind, spec.limit,
                                        start_timeout=timeout)
        except PlayerError as exc:
            raise SpecError(f"{spec.text!r}: {exc.detail or exc}") from exc
        try:
            complaints = [node_limit_complaint(player), threads_complaint(player, spec) if replay else None]
        finally:
            player.close()
        for complaint in complaints:
            if complaint is not None and on_warning is not None:
                on_warning(f"{spec.text!r}: {complaint}")


def threads_complaint(player: ExternalPlayer, spec: PlayerSpec) -> str | None:
    """Why a UCI engine will not replay its moves exactly when its default ``Threads`` is above 1 and its spec
    does not set it (Glaurung's default is 2: threads race, so its moves vary); else ``None``."""
    option = player.engine.options.get("Threads") if player.protocol == "uci" else None
    if option is None or any(name.lower() == "threads" for name, _ in spec.options):
        return None
    default = option.default
    if isinstance(default, int) and default > 1:
        return (f"it searches with {default} threads by default, which does not play the same move twice: "
                "give it ?Threads=1 to replay exactly")
    return None


NODE_PROBE_FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
"""Where :func:`node_limit_complaint` asks an engine for a move (the Two Knights: many sensible moves)."""

NODE_PROBE_SECONDS = 2.0
"""The probe's timeout; an engine still searching at :data:`STOP_SHARE` of it is told to stop."""


def node_limit_complaint(player: ExternalPlayer) -> str | None:
    """Whether a UCI engine given a node limit by its spec honours it: one search of :data:`NODE_PROBE_FEN` at the
    spec's own limit. ``None`` when it stops within a factor of 5 of its nodes (or has no node limit, or is not UCI);
    else why not. Engines differ: Stockfish and Glaurung stop at the limit, Ethereal 12 stops after depth 1 (a few
    nodes), Toga II does not stop at all."""
    cap = player.cap
    if player.protocol != "uci" or cap is None or cap.nodes is None:
        return None
    try:
        report = player.play(chess.Board(NODE_PROBE_FEN), Limit(nodes=cap.nodes), timeout=NODE_PROBE_SECONDS)
    except PlayerError as exc:
        return f"a node-limited search failed ({exc}); give it @depth= instead"
    if player.overruns:
        return (f"it does not stop at `go nodes {cap.nodes}` (told to stop after "
                f"{NODE_PROBE_SECONDS * STOP_SHARE:g} s): its moves depend on time; give it @depth= instead")
    if report.nodes and not cap.nodes / 5 <= report.nodes <= cap.nodes * 5:
        return (f"asked for {cap.nodes} nodes, it searched {report.nodes}: it does not honour `go nodes`; "
                "give it @depth= instead")
    return None


@contextlib.contextmanager
def _quiet_engine_logs() -> Iterator[None]:
    """python-chess's and asyncio's log lines about an engine that failed to start (the error says it once)."""
    loggers = [logging.getLogger(name) for name in ("chess.engine", "asyncio")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
