"""The UCI front end of our engine (``mimic uci [--eval SPEC]``).

Handles ``uci``, ``isready``, ``ucinewgame``, ``position startpos|fen ... [moves ...]``,
``go`` (``depth``, ``nodes``, ``movetime``, ``wtime``, ``btime``, ``winc``, ``binc``, ``movestogo``,
``mate``, ``searchmoves``, ``infinite``, ``ponder``; ``go perft N`` as Stockfish), ``stop``, ``ponderhit``, ``quit``,
``setoption`` (``Hash``, ``Clear Hash``, ``Eval``, ``Move Overhead``) and ``debug``/``register``
(accepted, no effect), plus ``d`` (print the position).

The lines are read and answered on one thread; searches and changes to the engine run on another, in order
(:mod:`search.ucisearch`, which states the lifecycle's rules): every ``go`` gets exactly one ``bestmove`` unless
``quit`` comes first; ``stop``, ``ponderhit`` and ``quit`` take effect whenever they arrive, each ``go`` having its
own stop flag; ``isready`` is answered at once whatever runs. ``ucinewgame`` and ``setoption`` during a search
stop it (its ``bestmove`` goes out first) and take effect before the next ``go``; ``position`` during a search
leaves it on the position it was given; a ``go`` during a search stops it and searches next.
A spec with an experience book (``SPEC+book:PATH``, ``deepred:PATH``) answers ``go`` with the book's move where
it has one (``info string book move ...``), and searches elsewhere.
A malformed or unknown line is answered with ``info string`` and the reason, never with a crash. Standard output is
the protocol's alone (:func:`search.ucisearch.uci_channel`): whatever else the process prints (an organism's term
file) goes to stderr.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TextIO, TypeVar

import chess

from search.base import Evaluator, Limit, MoveChooser, MovePolicy, SearchResult
from search.choose import engine_label
from search.conventions import uci_score
from search.prob import engine_class, make_engine
from search.runtime.errors import MimicError
from search.ucisearch import EngineThread, Go, cut, echo, parse_go, uci_channel

NAME = "mimic"
AUTHOR = "the mimic authors"
MAX_HASH_MB = 4096

_UNPLAYABLE = (chess.STATUS_EMPTY | chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING
               | chess.STATUS_TOO_MANY_KINGS | chess.STATUS_PAWNS_ON_BACKRANK | chess.STATUS_OPPOSITE_CHECK)
"""Positions the search cannot play from (a missing king, pawns on the back rank, the side not to move
in check). Bad castling rights and en-passant squares are repaired instead."""
QUIT_WAIT = 0.9
"""Seconds ``quit`` waits for a stopped search to end before the session ends anyway."""

class _Spec(Protocol):
    """What the server reads of a parsed player spec (:class:`search.players.spec.PlayerSpec`)."""

    @property
    def limit(self) -> Limit | None: ...

    @property
    def search(self) -> str: ...

    @property
    def is_external(self) -> bool: ...


S = TypeVar("S", bound=_Spec)


class Players(Protocol[S]):
    """What the server needs of the player registry (:class:`search.players.spec.PlayerRegistry`, which the caller
    passes in: the core never imports its rooms): parse a spec, and build its evaluator, move policy and book."""

    def parse(self, text: str) -> S: ...

    def __call__(self, spec: S) -> Evaluator: ...

    def policy(self, spec: S) -> MovePolicy | None: ...

    def book(self, spec: S) -> MoveChooser | None: ...


class UciError(MimicError, ValueError):
    """A command that cannot be carried out; its message goes out as ``info string``."""


class UciFrontEnd:
    """One UCI session: reads commands, writes replies to ``out``.

    ``make_evaluator(spec)`` builds the evaluator named by a player spec (for ``--eval`` and the
    ``Eval`` option). A limit suffix in the spec (``expert@depth=3``) caps every ``go``; ``@search=prob`` picks
    the probability-limited search, whose ``info depth`` is the iteration number (:mod:`search.prob`).
    """

    def __init__(self, make_evaluator: Players[Any], eval_spec: str = "material",
                 out: TextIO | None = None, hash_mb: int = 16) -> None:
        self.make_evaluator = make_evaluator
        self.out = out if out is not None else sys.stdout
        self._lock = threading.Lock()
        self.eval_spec = eval_spec
        parsed = make_evaluator.parse(eval_spec)
        self.cap = parsed.limit
        self.search_name = parsed.search
        self.engine = make_engine(make_evaluator(parsed), parsed.search, hash_mb, make_evaluator.policy(parsed))
        self.chooser = make_evaluator.book(parsed)
        """The spec's experience book (``None`` without one), opened by the registry; a bad book raises
        ``OSError``/``ValueError``."""
        self.hash_mb = hash_mb
        self.overhead = self.engine.overhead
        """Seconds of ``Move Overhead`` (the engine's own copy changes in order with the other changes)."""
        self.board = chess.Board()
        self.jobs = EngineThread(self._search, self.info_string)
        self.debug = False

    # ------------------------------------------------------------------ output
    def send(self, line: str) -> None:
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info_string(self, text: str) -> None:
        self.send("info string " + " ".join(text.split()))

    # ------------------------------------------------------------------ loop
    def run(self, lines: Iterable[str]) -> None:
        """Handle lines until ``quit`` or the end of input, where a search with a limit runs to it and one without
        (``infinite``, ``ponder``, no limit) is stopped; every ``bestmove`` is written before returning."""
        for line in lines:
            if not self.handle(line):
                return
        self.jobs.close()

    def handle(self, line: str) -> bool:
        """Handle one line; return False after ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        handler = self._handlers().get(cmd)
        if handler is None:
            self.info_string(f"unknown command: {cut(line.strip())}")
            return True
        try:
            return handler(args) is not False
        except UciError as exc:
            self.info_string(f"error in {cmd}: {exc}")
        except Exception as exc:  # the protocol says: never die on input
            self.info_string(f"error in {cmd}: {type(exc).__name__}: {cut(str(exc))}")
        return True

    def _handlers(self) -> dict[str, Callable[[list[str]], object]]:
        return {
            "uci": self._uci, "isready": self._isready, "ucinewgame": self._ucinewgame,
            "position": self._position, "go": self._go, "stop": self._stop, "ponderhit": self._ponderhit,
            "quit": self._quit, "setoption": self._setoption, "debug": self._debug,
            "register": lambda args: None, "d": self._display,
        }

    @property
    def searching(self) -> bool:
        """True from ``go`` until its ``bestmove`` is decided."""
        return self.jobs.searching

    def wait(self, timeout: float | None = None) -> bool:
        """Wait (without stopping anything) until every ``go`` so far has written its ``bestmove`` and every change
        has been made; False on ``timeout`` (seconds). For tests and scripts: the reader never calls it."""
        return self.jobs.wait(timeout)

    def _change(self, what: str, fn: Callable[[], None]) -> None:
        """Make the change ``fn`` to the engine (``what``: the command, for the reply) once no search runs."""
        if self.jobs.change(fn):
            self.info_string(f"{what} during a search: the search was stopped")

    # ------------------------------------------------------------------ commands
    def _uci(self, args: list[str]) -> None:
        self.send(f"id name {NAME} ({self.eval_spec})")
        self.send(f"id author {AUTHOR}")
        self.send(f"option name Hash type spin default {self.hash_mb} min 1 max {MAX_HASH_MB}")
        self.send("option name Clear Hash type button")
        self.send(f"option name Eval type string default {self.eval_spec}")
        self.send(f"option name Move Overhead type spin default {round(self.overhead * 1000)} "
                  "min 0 max 5000")
        self.info_string(f"search {self.search_name}: {engine_label(self.engine)}")  # the engine chosen, said once
        self.send("uciok")

    def _isready(self, args: list[str]) -> None:
        self.send("readyok")

    def _ucinewgame(self, args: list[str]) -> None:
        def new_game() -> None:
            self.engine.new_game()
            if self.chooser is not None:
                self.chooser.new_game()

        self._change("ucinewgame", new_game)
        self.board = chess.Board()

    def _debug(self, args: list[str]) -> None:
        self.debug = bool(args) and args[0] == "on"

    def _display(self, args: list[str]) -> None:
        for row in str(self.board).splitlines():
            self.info_string(row)
        self.info_string(f"fen {self.board.fen()}")

    def _position(self, args: list[str]) -> None:
        if not args:
            raise UciError("expected 'position startpos|fen FEN [moves ...]'")
        if "moves" in args:
            i = args.index("moves")
            head, moves = args[:i], args[i + 1:]
        else:
            head, moves = args, []
        if not head:
            raise UciError("expected startpos or fen before 'moves'")
        if head[0] == "startpos":
            if len(head) > 1:
                raise UciError(f"unexpected {echo(' '.join(head[1:]))} after startpos")
            board = chess.Board()
        elif head[0] == "fen":
            fen = " ".join(head[1:])
            if not fen:
                raise UciError("position fen without a FEN")
            try:
                board = chess.Board(fen)
            except ValueError as exc:
                raise UciError(f"bad FEN {echo(fen)}: {cut(str(exc))}") from exc
            status = board.status()
            if status & _UNPLAYABLE:
                raise UciError(f"unplayable position {echo(fen)} ({status!r})")
            board.castling_rights = board.clean_castling_rights()
            if status & chess.STATUS_INVALID_EP_SQUARE:
                board.ep_square = None
        else:
            raise UciError(f"expected startpos or fen, got {echo(head[0])}")
        for n, uci in enumerate(moves, 1):
            try:
                move = board.parse_uci(uci)
            except ValueError as exc:
                self.board = board
                raise UciError(f"move {n} {echo(uci)} is not legal in {board.fen()}; position kept before it")\
                    from exc
            if not move and board.is_check():  # a null move would leave the king en prise
                self.board = board
                raise UciError(f"move {n} {uci!r} (a null move) is not allowed in check; position kept before it")
            board.push(move)
        self.board = board

    def _setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise UciError("expected 'setoption name NAME [value VALUE]'")
        if "value" in args:
            i = args.index("value")
            name, value = " ".join(args[1:i]), " ".join(args[i + 1:])
        else:
            name, value = " ".join(args[1:]), ""
        key = name.lower()
        if key == "hash":
            try:
                mb = int(value)
            except ValueError as exc:
                raise UciError(f"Hash needs a whole number of MiB, got {echo(value)}") from exc
            if not 1 <= mb <= MAX_HASH_MB:
                raise UciError(f"Hash must be within 1..{MAX_HASH_MB}, got {mb}")
            self.hash_mb = mb
            self._change("setoption", lambda: self.engine.set_hash(mb))
        elif key == "clear hash":
            self._change("setoption", lambda: self.engine.new_game())
        elif key == "eval":
            spec = self.make_evaluator.parse(value)
            if spec.is_external:
                raise UciError("Eval takes an evaluator spec, not an external engine")
            try:
                evaluator = self.make_evaluator(spec)
                policy = self.make_evaluator.policy(spec)
                chooser = self.make_evaluator.book(spec)
            except Exception as exc:  # any failure: one line, and the old evaluator stays
                raise UciError(f"cannot load Eval {echo(value)}: {type(exc).__name__}: {cut(str(exc))}; "
                               f"keeping {self.eval_spec!r}") from exc
            self.eval_spec, self.cap, hash_mb = value, spec.limit, self.hash_mb

            def switch() -> None:
                if spec.search != self.search_name or engine_class(evaluator, spec.search) is not type(self.engine):
                    # another search (or a comparator after an evaluator): a new engine (with an empty table)
                    overhead = self.engine.overhead
                    self.engine = make_engine(evaluator, spec.search, hash_mb, policy)
                    self.engine.overhead = overhead
                    self.search_name = spec.search
                else:
                    self.engine.set_evaluator(evaluator)
                if self.chooser is not None:
                    self.chooser.close()
                self.chooser = chooser

            self._change("setoption", switch)
        elif key == "move overhead":
            try:
                ms = int(value)
            except ValueError as exc:
                raise UciError(f"Move Overhead needs milliseconds, got {echo(value)}") from exc
            seconds = self.overhead = min(max(ms, 0), 5000) / 1000

            def set_overhead() -> None:
                self.engine.overhead = seconds

            self._change("setoption", set_overhead)
        else:
            raise UciError(f"no option named {echo(name)}")

    def _go(self, args: list[str]) -> None:
        if args[:1] == ["perft"]:
            return self._perft(args[1:])
        go = parse_go(args, self.board, self.cap, self.info_string)
        if self.jobs.go(go):
            self.info_string("go during a search: the search was stopped; this go searches next")

    def _perft(self, args: list[str]) -> None:
        """``go perft N`` as Stockfish answers it: ``move: leaves`` a root move, a blank line, ``Nodes searched: N``, a
        blank line (the compiled core's divide, run on the engine thread: ``isready`` is answered meanwhile)."""
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 20:
            raise UciError("go perft needs one depth from 1 to 20")
        board, depth = self.board.copy(), int(args[0])

        def run() -> None:
            from search.core.perft import divide  # numba loads only when perft is asked for

            rows = divide(board, depth)
            for move, leaves in rows:
                self.send(f"{move.uci()}: {leaves}")
            self.send("")
            self.send(f"Nodes searched: {sum(leaves for _, leaves in rows)}")
            self.send("")

        self._change("go perft", run)

    def _book_move(self, board: chess.Board, searchmoves: list[chess.Move] | None) -> chess.Move | None:
        """The book's move for ``board`` (within ``searchmoves`` when given), ``None`` without one."""
        if self.chooser is None:
            return None
        try:
            move = self.chooser.choose(board)
        except Exception as exc:  # a broken book: say so, and search instead
            self.info_string(f"book failed: {type(exc).__name__}: {cut(str(exc))}")
            return None
        if move is None or (searchmoves and move not in searchmoves):
            return None
        self.info_string(f"book move {move.uci()}")
        return move

    def _search(self, go: Go) -> None:
        """Run on the engine thread: answer ``go`` with exactly one ``bestmove`` (the book's move, or the search's
        within ``go.limit`` until ``go.stop`` is raised), held until ``go.release`` is raised."""
        board = go.board
        try:
            book = self._book_move(board, go.searchmoves)
            if book is not None:
                result = SearchResult(book, 0, 0, 0, 0, 0.0)
            else:
                result = self.engine.search(board, go.limit, root_moves=go.searchmoves, on_iteration=self._info,
                                            stop=go.stop)
        except Exception as exc:  # report it, and still answer with a legal move
            self.info_string(f"search failed: {type(exc).__name__}: {exc}")
            legal = list(board.legal_moves)
            result = SearchResult(legal[0] if legal else None, 0, 0, 0, 0, 0.0)
        go.release.wait()
        go.done.set()  # decided: a go that comes in reply to this bestmove is no longer "during a search"
        if result.move is None:
            self.send("bestmove (none)")
        elif len(result.pv) >= 2 and result.pv[0] == result.move:
            self.send(f"bestmove {result.move.uci()} ponder {result.pv[1].uci()}")
        else:
            self.send(f"bestmove {result.move.uci()}")

    def _info(self, r: SearchResult) -> None:
        score = uci_score(r.score)
        if r.bound == "lower":
            score += " lowerbound"
        elif r.bound == "upper":
            score += " upperbound"
        line = (f"info depth {r.depth} seldepth {max(r.seldepth, r.depth)} multipv 1 score {score} "
                f"nodes {r.nodes} nps {r.nps} hashfull {self.engine.tt.usage_permille()} "
                f"time {int(r.time * 1000)}")
        if r.pv:
            line += " pv " + " ".join(m.uci() for m in r.pv)
        self.send(line)

    def _stop(self, args: list[str]) -> None:
        self.jobs.stop()

    def _ponderhit(self, args: list[str]) -> None:
        self.jobs.ponderhit()

    def _quit(self, args: list[str]) -> bool:
        self.jobs.close(QUIT_WAIT, quit=True)
        return False


def main(make_evaluator: Players[Any], eval_spec: str = "material", hash_mb: int = 16) -> int:
    """Run a UCI session on standard input and output (:func:`uci_channel`)."""
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    with uci_channel() as out:
        front = UciFrontEnd(make_evaluator, eval_spec, out=out, hash_mb=hash_mb)
        front.run(stdin)
    return 0
