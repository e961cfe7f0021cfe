"""The search lifecycle of the UCI front end (:mod:`search.uci`): one engine thread, its queue, a fresh flag per ``go``.

Owns :class:`Go` (one ``go``: what to search and its own ``stop``, ``release`` and ``done`` flags), :func:`parse_go`,
how replies quote bad input (:func:`echo`), the protocol's own channel on standard output (:func:`uci_channel`), and
:class:`EngineThread`, which runs the searches and the changes to the engine (``ucinewgame``, ``setoption``) one at a
time, in the order they were received, on one thread. The rules it keeps, whatever the timing:

* a ``go`` gets exactly one ``bestmove`` (unless ``quit`` comes first);
* its ``stop`` flag is created with the ``go``, raised only by the front end (``stop``, ``quit``, a later ``go``,
  ``ucinewgame`` or ``setoption``) and never cleared: the search only reads it, so a ``stop`` that arrives
  before the search starts, while it consults a book, during any iteration or after it finished is never lost;
* the reader never waits for a search: every method here returns at once (except :meth:`EngineThread.wait` and
  :meth:`EngineThread.close`, which are for the end of a session), so ``isready`` is answered whatever runs.

Imports only the standard library, chess and :mod:`search.base`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

import chess

from search.base import Limit

GO_INT_PARAMS = ("depth", "nodes", "movestogo", "mate")
GO_MS_PARAMS = ("movetime", "wtime", "btime", "winc", "binc")
GO_KEYWORDS = set(GO_INT_PARAMS + GO_MS_PARAMS + ("searchmoves", "infinite", "ponder"))
ECHO_CHARS = 80
"""Replies quote at most this many characters of a bad input text (then ``...``)."""


@contextlib.contextmanager
def uci_channel() -> Iterator[TextIO]:
    """The protocol's channel: a writer on a duplicate of standard output's descriptor, while standard output itself
    (descriptor 1 and ``sys.stdout``) is standard error until the session ends, so that nothing else the process
    writes (a term file's ``print``, a library's, a child process's) comes between the UCI lines. Without
    descriptors (a caller's capture), ``sys.stdout`` alone is swapped."""
    saved = sys.stdout
    saved.flush()
    try:
        fd, err = saved.fileno(), sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        channel, fd = saved, -1
    else:
        channel = os.fdopen(os.dup(fd), "w", encoding="utf-8", errors="replace")
        os.dup2(err, fd)
    sys.stdout = sys.stderr
    try:
        yield channel
    finally:
        sys.stdout = saved
        if fd >= 0:  # the channel stays open: a search still running after quit may write its bestmove
            os.dup2(channel.fileno(), fd)


def cut(text: str) -> str:
    """``text``, or its first ``ECHO_CHARS`` characters and ``...`` when longer."""
    return text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "..."


def echo(text: str) -> str:
    """A bad input ``text`` as quoted in a reply: the ``repr`` of :func:`cut` of it."""
    return repr(cut(text))


@dataclass(eq=False)
class Go:
    """One ``go``: the position (a copy), the limit, the ``searchmoves``, whether the ``bestmove`` is held until
    ``stop`` (``hold``: ``go infinite``, ``go ponder``) and whether ``ponderhit`` lets it out too (``ponder``).

    ``stop`` tells the search to end (the front end raises it, the search only reads it); ``release`` lets the
    ``bestmove`` go out (raised at once unless ``hold``); ``done`` is raised once the ``bestmove`` is decided (just
    before it is written)."""

    board: chess.Board
    limit: Limit
    searchmoves: list[chess.Move] | None = None
    hold: bool = False
    ponder: bool = False
    stop: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        if not self.hold:
            self.release.set()

    @property
    def bounded(self) -> bool:
        """True when the search ends by itself: not held, and with a depth, nodes, time, clock or mate limit."""
        lim = self.limit
        return not self.hold and (lim.depth is not None or lim.nodes is not None or lim.movetime is not None
                                  or lim.has_clock or lim.mate is not None)

    def halt(self) -> None:
        """End the search as soon as it can, and let its ``bestmove`` out."""
        self.stop.set()
        self.release.set()


def parse_go(args: list[str], board: chess.Board, cap: Limit | None, warn: Callable[[str], None]) -> Go:
    """The :class:`Go` of a ``go`` command's ``args`` on ``board`` (copied), its limit capped by ``cap``.

    A bad value is reported through ``warn`` (a reply's text) and skipped; the search still starts.
    """
    fields: dict[str, object] = {}
    searchmoves: list[chess.Move] | None = None
    ponder = False
    i = 0
    while i < len(args):
        tok = args[i]
        i += 1
        if tok == "infinite":
            fields["infinite"] = True
        elif tok == "ponder":
            ponder = True
        elif tok == "searchmoves":
            searchmoves = []
            while i < len(args) and args[i] not in GO_KEYWORDS:
                try:
                    searchmoves.append(board.parse_uci(args[i]))
                except ValueError:
                    warn(f"searchmoves: {echo(args[i])} is not a legal move; ignored")
                i += 1
        elif tok in GO_INT_PARAMS or tok in GO_MS_PARAMS:
            if i >= len(args):
                warn(f"go {tok} needs a value; ignored")
                continue
            raw = args[i]
            i += 1
            try:
                value = int(raw)
            except ValueError:
                warn(f"go {tok} {echo(raw)}: not an integer; ignored")
                continue
            if tok in GO_MS_PARAMS:
                fields[tok] = max(value, 0) / 1000
            else:
                fields[tok] = max(value, 1) if tok != "movestogo" else max(value, 0)
        else:
            warn(f"go: unknown token {echo(tok)}; ignored")
    limit = Limit(**fields).capped(cap)  # type: ignore[arg-type]
    return Go(board.copy(), limit, searchmoves, hold=limit.infinite or ponder, ponder=ponder)


Job = Go | Callable[[], None]
"""What the engine thread runs: a search, or a change to the engine (a function of no arguments)."""


class EngineThread:
    """Runs :class:`Go` searches (with ``run_go``, which must write exactly one ``bestmove``) and engine changes one
    at a time, in order, on one daemon thread started on first use. ``on_error(text)`` hears of a queued change that
    failed (a change run at once raises to its caller instead) or of a ``run_go`` that raised; the thread goes on."""

    def __init__(self, run_go: Callable[[Go], None], on_error: Callable[[str], None]) -> None:
        self._run_go = run_go
        self._on_error = on_error
        self._cond = threading.Condition()
        self._queue: deque[Job] = deque()
        self._running: Job | None = None
        self._closing = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ what the reader calls (never waits)
    @property
    def searching(self) -> bool:
        """True while a ``go`` is queued or has not written its ``bestmove``."""
        with self._cond:
            return any(isinstance(job, Go) and not job.done.is_set() for job in self._jobs())

    def go(self, go: Go) -> bool:
        """Queue ``go`` after stopping every earlier search (a ``go`` during a search supersedes it; the earlier one
        still sends its ``bestmove`` first). Returns True when an earlier search had to be stopped."""
        with self._cond:
            superseded = self._halt_all()
            self._queue.append(go)
            self._start()
            self._cond.notify_all()
        return superseded

    def change(self, fn: Callable[[], None]) -> bool:
        """Stop every search, then run ``fn`` (a change to the engine): at once when the engine thread is idle
        (its exceptions reach the caller), else queued behind the searches, which end promptly. Returns True when a
        search had to be stopped."""
        with self._cond:
            stopped = self._halt_all()
            if self._running is None and not self._queue:
                fn()
                return stopped
            self._queue.append(fn)
            self._cond.notify_all()
        return stopped

    def stop(self) -> None:
        """``stop``: end every search queued or running and let its ``bestmove`` out."""
        with self._cond:
            self._halt_all()

    def ponderhit(self) -> None:
        """``ponderhit``: let out the ``bestmove`` of every ``go ponder`` queued or running, which go on to their
        limits (the clock of a ``go ponder`` runs from the ``go``)."""
        with self._cond:
            for job in self._jobs():
                if isinstance(job, Go) and job.ponder:
                    job.release.set()

    # ------------------------------------------------------------------ the end of a session
    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every job received so far has run (no search is stopped); False on ``timeout`` (seconds)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._running is None and not self._queue, timeout)

    def close(self, timeout: float | None = None, *, quit: bool = False) -> bool:
        """End the thread once what is queued has run: at the end of input, searches that end by themselves
        (:attr:`Go.bounded`) run to their limits and the others are stopped; ``quit`` stops every search and
        forgets what is queued. False when the thread is still running after ``timeout`` seconds."""
        with self._cond:
            if quit:
                self._queue.clear()
            for job in self._jobs():
                if isinstance(job, Go) and (quit or not job.bounded):
                    job.halt()
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return False
        with self._cond:
            self._closing = False  # a later go starts a new thread
        return True

    # ------------------------------------------------------------------ inside
    def _jobs(self) -> list[Job]:
        return ([] if self._running is None else [self._running]) + list(self._queue)

    def _halt_all(self) -> bool:
        """Halt every search queued or running (the lock held); True when one had not written its ``bestmove``."""
        halted = False
        for job in self._jobs():
            if isinstance(job, Go):
                halted = halted or not job.done.is_set()
                job.halt()
        return halted

    def _start(self) -> None:
        if self._thread is None and not self._closing:
            self._thread = threading.Thread(target=self._loop, name="search", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._queue) or self._closing)
                if not self._queue:
                    self._thread = None
                    self._cond.notify_all()
                    return
                job = self._running = self._queue.popleft()
            try:
                if isinstance(job, Go):
                    self._run_go(job)
                else:
                    job()
            except Exception as exc:  # a change (or a search's reply) that failed: say so, and keep serving
                with contextlib.suppress(Exception):
                    self._on_error(f"{'search' if isinstance(job, Go) else 'queued change'} failed: "
                                   f"{type(exc).__name__}: {exc}")
            finally:
                if isinstance(job, Go):
                    job.done.set()
                with self._cond:
                    self._running = None
                    self._cond.notify_all()
