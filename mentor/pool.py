"""The mentor pool: who labels (:class:`MentorConfig`) and the mentors each worker keeps.

A mentor is described by a picklable :class:`MentorConfig`: a UCI engine (Stockfish, any path) or the
built-in mentor (our engine with the built-in expert). Each worker thread or process keeps one mentor per
configuration for its lifetime (engines do not pickle; :func:`close_mentors` ends them), restarting a UCI
engine that dies or hangs and retrying the position. :func:`label_batch` is a worker's task: a batch of
positions in, finished EPD lines out. The run that hands out the batches and writes the label file is
:mod:`mentor.labeller`.

May import: chess, ``mentor.labels``, ``mentor.uci_client``, ``search/`` and ``organisms/`` (the built-in
mentor's engine and evaluation).
"""

from __future__ import annotations

import atexit
import shutil
import threading
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

import chess

from mentor.labels import DEFAULT_CAP, Label
from mentor.uci_client import Analysis, EngineError, UciEngine, check_option
from search.conventions import ce_from_mate_moves, legal_prefix
from search.runtime.errors import SettingsError
from search.runtime.provenance import mimic_version

DEBIAN_STOCKFISH = "/usr/games/stockfish"


def find_stockfish() -> str | None:
    """Debian's ``/usr/games/stockfish`` if present, else ``stockfish`` on the PATH."""
    if Path(DEBIAN_STOCKFISH).exists():
        return DEBIAN_STOCKFISH
    return shutil.which("stockfish")


@dataclass(frozen=True)
class MentorConfig:
    """Who labels, and how deep. ``kind`` is ``"uci"`` (``command`` runs the engine) or ``"builtin"``;
    every other field by keyword."""

    kind: str
    _: KW_ONLY
    command: tuple[str, ...] = ()
    depth: int | None = None
    nodes: int | None = None
    hash_mb: int = 16
    timeout: float = 120.0
    retries: int = 3
    options: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("uci", "builtin"):
            raise SettingsError(f"unknown mentor kind {self.kind!r}")
        if self.kind == "uci" and not self.command:
            raise SettingsError("a UCI mentor needs a command")
        if (self.depth is None) == (self.nodes is None):
            raise SettingsError("give the mentor exactly one of depth and nodes")
        for name, value in self.options:
            check_option(name, value)

    def describe(self) -> str:
        limit = f"depth {self.depth}" if self.depth is not None else f"nodes {self.nodes}"
        who = "built-in mentor (expert evaluation)" if self.kind == "builtin" else " ".join(self.command)
        return f"{who}, {limit}"


BUILTIN_NAME = "mimic built-in mentor (expert evaluation)"


def mentor_identity(config: MentorConfig) -> str:
    """Start the mentor once and return its name: the UCI ``id name`` it reports (``""`` if none).

    Raises :class:`EngineError` when a UCI mentor cannot start, answer ``uci``/``isready`` within its
    timeout, or take its options. The built-in mentor is named with mimic's version.
    """
    if config.kind == "builtin":
        return f"{BUILTIN_NAME} {mimic_version()}"
    engine = UciEngine(list(config.command), {"Hash": str(config.hash_mb), **dict(config.options)},
                       timeout=config.timeout)
    try:
        engine.start()
        return engine.name
    finally:
        engine.close()


# ---------------------------------------------------------------------- worker side
class _BuiltinMentor:
    def __init__(self, config: MentorConfig) -> None:
        from organisms import Expert
        from search import Engine

        self.engine = Engine(Expert(), hash_mb=config.hash_mb)
        self.config = config

    def analyse(self, fen: str, new_game: bool = True) -> Analysis:
        """One position, from a cleared table unless ``new_game`` is false (the next position of a game)."""
        from search import Limit

        board = chess.Board(fen)
        if new_game:
            self.engine.new_game()
        r = self.engine.search(board, Limit(depth=self.config.depth, nodes=self.config.nodes))
        mate = r.mate
        return Analysis(None if mate is not None else r.score, mate, r.depth, [m.uci() for m in r.pv])

    def close(self) -> None:
        pass


class _UciMentor:
    def __init__(self, config: MentorConfig) -> None:
        self.config = config
        self.engine = UciEngine(list(config.command), {"Hash": str(config.hash_mb), **dict(config.options)},
                                timeout=config.timeout)
        self.restarts = 0
        self.started = False

    def ensure_running(self) -> None:
        """Start the engine; a start after the first counts as a restart."""
        if self.engine.alive():
            return
        if self.started:
            self.restarts += 1
        self.engine.start()
        self.started = True

    def analyse(self, fen: str, new_game: bool = True) -> Analysis:
        """One position, restarting the engine and retrying when it dies or hangs (a restarted engine's hash is
        empty: ``new_game`` as in :meth:`mentor.uci_client.UciEngine.analyse`)."""
        last: Exception | None = None
        for _ in range(self.config.retries + 1):
            try:
                self.ensure_running()
                return self.engine.analyse(fen, depth=self.config.depth, nodes=self.config.nodes, new_game=new_game)
            except EngineError as exc:
                last = exc
                self.engine.close()
        raise EngineError(f"gave up after {self.config.retries + 1} attempts: {last}")

    def close(self) -> None:
        self.engine.close()


_LOCAL = threading.local()  # each worker thread (or process) holds its own mentors
_ALL: list[_BuiltinMentor | _UciMentor] = []
_ALL_LOCK = threading.Lock()
_GENERATION = [0]  # close_mentors counts up: a thread's mentors of an older generation are closed


def _mentor(config: MentorConfig) -> _BuiltinMentor | _UciMentor:
    mentors: dict[MentorConfig, _BuiltinMentor | _UciMentor] | None = getattr(_LOCAL, "mentors", None)
    if mentors is None or getattr(_LOCAL, "generation", None) != _GENERATION[0]:
        mentors = _LOCAL.mentors = {}
        _LOCAL.generation = _GENERATION[0]
    m = mentors.get(config)
    if m is None:
        m = _BuiltinMentor(config) if config.kind == "builtin" else _UciMentor(config)
        mentors[config] = m
        with _ALL_LOCK:
            _ALL.append(m)
    return m


def close_mentors() -> None:
    """Close every mentor this process holds, in any thread (engine processes quit)."""
    with _ALL_LOCK:
        mentors = list(_ALL)
        _ALL.clear()
        _GENERATION[0] += 1  # other threads (a Dask worker's, closed from its event loop) start afresh
    for m in mentors:
        m.close()
    _LOCAL.__dict__.clear()


atexit.register(close_mentors)


Item = tuple[int, str, str | None, str | None, str | None, int | None]
"""What a worker needs of a sample: (index, FEN, result, id, source, plies to the end)."""
Done = tuple[int, str | None, str | None, str | None]
"""What it returns: (index, EPD line or None, error or None, flag or None)."""


def _finish(item: Item, a: Analysis, cap: int) -> Done:
    index, fen, result, id_, source, plies = item
    board = chess.Board(fen)
    ce = ce_from_mate_moves(a.mate) if a.mate is not None else int(a.score or 0)
    label = Label(board, ce, a.depth, legal_prefix(board, a.pv), result, id_, source, plies,
                  board.fullmove_number if plies is not None else None)  # a game's move number: its fmvn
    return index, label.to_epd(cap), None, label.flag(cap)


def label_batch(items: Sequence[Item], config: MentorConfig, cap: int = DEFAULT_CAP) -> tuple[list[Done], int]:
    """Label ``items`` with the mentor ``config`` names, in this worker (a task of
    :func:`search.runtime.workers.parallel_map`: the batch comes first); return finished EPD lines and the
    engine restarts.

    A UCI engine is kept busy: the next position's search is sent before this one's label is
    formatted (SAN, EPD), so our Python work overlaps the engine's.
    """
    mentor = _mentor(config)
    out: list[Done] = []
    if isinstance(mentor, _BuiltinMentor):
        for item in items:
            out.append(_finish(item, mentor.analyse(item[1]), cap))
        return out, 0
    before = mentor.restarts
    engine = mentor.engine
    depth, nodes = config.depth, config.nodes
    in_flight = False
    for k, item in enumerate(items):
        analysis: Analysis | None = None
        try:
            if not in_flight:
                mentor.ensure_running()
                engine.send_go(item[1], depth, nodes)
            analysis = engine.read_result(item[1])
        except EngineError:
            engine.close()
        in_flight = False
        if k + 1 < len(items) and analysis is not None:
            try:
                engine.send_go(items[k + 1][1], depth, nodes)
                in_flight = True
            except EngineError:
                engine.close()
        if analysis is None:  # died or hung: restart and retry this position on its own
            try:
                analysis = mentor.analyse(item[1])
            except EngineError as exc:
                out.append((item[0], None, str(exc), None))
                continue
        out.append(_finish(item, analysis, cap))
    return out, mentor.restarts - before
