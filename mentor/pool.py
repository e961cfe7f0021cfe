"""The mentor pool: who labels (:class:`MentorConfig`) and the mentors each worker keeps.

A mentor is described by a picklable :class:`MentorConfig`: a UCI engine (Stockfish, any path) or the
built-in mentor (our engine with the built-in expert). Each worker thread or process keeps one mentor per
configuration for its lifetime (engines do not pickle; :func:`close_mentors` ends them), restarting a UCI
engine that dies, hangs or sends a score no engine can mean (:class:`mentor.uci_client.BadScore`, counted) and
retrying the position. :func:`label_batch` is a worker's task: a batch of
positions in, finished EPD lines out. The run that hands out the batches and writes the label file is
:mod:`mentor.labeller`.

May import: chess, ``mentor.labels``, ``mentor.uci_client``, ``search/`` and ``organisms/`` (the built-in
mentor's engine and evaluation).
"""

from __future__ import annotations

import atexit
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import chess

from mentor.labels import DEFAULT_CAP, Label
from mentor.uci_client import Analysis, BadScore, EngineError, UciEngine, check_option
from search.conventions import ce_from_mate_moves, legal_prefix
from search.runtime.errors import SettingsError
from search.runtime.provenance import mimic_version

DEBIAN_STOCKFISH = "/usr/games/stockfish"
MAX_DEPTH = 99
"""The deepest fixed depth a mentor is asked for: the deepest mimic's own engine searches (``search/root.py``'s
``MAX_PLY`` - 1); Stockfish stops at 245, and a UCI mentor at any depth is held to its per-position timeout."""
T = TypeVar("T")


def find_stockfish() -> str | None:
    """Debian's ``/usr/games/stockfish`` if present, else ``stockfish`` on the PATH."""
    if Path(DEBIAN_STOCKFISH).exists():
        return DEBIAN_STOCKFISH
    return shutil.which("stockfish")


@dataclass(frozen=True)
class MentorConfig:
    """Who labels, and how deep. ``kind`` is ``"uci"`` (``command`` runs the engine) or ``"builtin"`` (mimic's
    engine with the expert, or with the evaluator ``player`` names, built by ``make_player``); every other field by
    keyword. The limit is a ``depth`` or ``nodes``, or ``static``: no search, the static evaluation (a UCI engine's
    through Stockfish's ``eval`` command; the built-in mentor's evaluator's own)."""

    kind: str
    _: KW_ONLY
    command: tuple[str, ...] = ()
    depth: int | None = None
    nodes: int | None = None
    static: bool = False
    hash_mb: int = 16
    timeout: float = 120.0
    retries: int = 3
    options: tuple[tuple[str, str], ...] = ()
    player: str | None = None
    make_player: Callable[[str], Any] | None = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in ("uci", "builtin"):
            raise SettingsError(f"unknown mentor kind {self.kind!r}")
        if self.kind == "uci" and not self.command:
            raise SettingsError("a UCI mentor needs a command")
        if self.static and (self.depth is not None or self.nodes is not None):
            raise SettingsError("a static mentor has no depth or nodes")
        if not self.static and (self.depth is None) == (self.nodes is None):
            raise SettingsError("give the mentor exactly one of depth and nodes")
        if self.depth is not None and not 1 <= self.depth <= MAX_DEPTH:
            raise SettingsError(f"a mentor's depth (--depth, @depth=N) is 1 to {MAX_DEPTH} plies, not {self.depth}")
        if self.player is not None and (self.kind != "builtin" or self.make_player is None):
            raise SettingsError("a mentor's player spec is for the built-in mentor, with the factory that builds it")
        for name, value in self.options:
            check_option(name, value)

    def limit(self) -> str:
        """The mentor's limit in words: ``depth 8``, ``nodes 2000`` or ``static evaluation``."""
        if self.static:
            return "static evaluation"
        return f"depth {self.depth}" if self.depth is not None else f"nodes {self.nodes}"

    def describe(self) -> str:
        if self.kind == "builtin":
            who = f"mimic's engine with {self.player}" if self.player else "built-in mentor (expert evaluation)"
        else:
            who = " ".join(self.command)
        return f"{who}, {self.limit()}"


BUILTIN_NAME = "mimic built-in mentor (expert evaluation)"


def mentor_identity(config: MentorConfig) -> str:
    """Start the mentor once and return its name: the UCI ``id name`` it reports (``""`` if none).

    Raises :class:`EngineError` when a UCI mentor cannot start or answer ``uci``/``isready`` within its
    timeout, :class:`mentor.uci_client.UnknownOption` (a settings error) for an option it does not list. The
    built-in mentor is named with mimic's version.
    """
    if config.kind == "builtin":
        if config.player:
            return f"mimic {mimic_version()} ({config.player}{_file_digest(config.player)})"
        return f"{BUILTIN_NAME} {mimic_version()}"
    engine = UciEngine(list(config.command), dict(config.options), defaults={"Hash": str(config.hash_mb)},
                       timeout=config.timeout)
    try:
        engine.start()
        return engine.name
    finally:
        engine.close()


def _file_digest(spec: str) -> str:
    """``, sha256 …`` of the file a player spec names after its kind (``pnet:PATH``), so that a mentor's name
    changes with its net or organism; ``""`` when the spec names no readable file."""
    from search.runtime.files import NotRegularFile, sha256_of

    path = spec.partition(":")[2].partition("@")[0]
    try:
        digest = sha256_of(path) if path else None
    except (OSError, NotRegularFile):
        digest = None
    return f", sha256 {digest[:16]}" if digest is not None else ""


# ---------------------------------------------------------------------- worker side
class _BuiltinMentor:
    def __init__(self, config: MentorConfig) -> None:
        from organisms import Expert
        from search import make_engine

        evaluator = config.make_player(config.player) if config.player and config.make_player else Expert()
        self.evaluator = evaluator
        self.engine = make_engine(evaluator, hash_mb=config.hash_mb)  # the compiled core when it has a native form
        self.config = config

    def analyse(self, fen: str, new_game: bool = True) -> Analysis | None:
        """One position, from a cleared table unless ``new_game`` is false (the next position of a game); with a
        static limit, the evaluator's score (no search; ``None`` when the game is over there)."""
        from search import Limit

        board = chess.Board(fen)
        if self.config.static:
            if board.is_checkmate() or board.is_stalemate():
                return None
            return Analysis(int(self.evaluator.evaluate(board)), None, 0, [])
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
        self.engine = UciEngine(list(config.command), dict(config.options), defaults={"Hash": str(config.hash_mb)},
                                timeout=config.timeout)
        self.restarts = 0
        self.bad_scores = 0
        """Searches whose score was refused (:class:`~mentor.uci_client.BadScore`): each restarted the engine."""
        self.started = False

    def ensure_running(self) -> None:
        """Start the engine; a start after the first counts as a restart."""
        if self.engine.alive():
            return
        if self.started:
            self.restarts += 1
        self.engine.start()
        self.started = True

    def analyse(self, fen: str, new_game: bool = True) -> Analysis | None:
        """One position, restarting the engine and retrying when it dies or hangs (a restarted engine's hash is
        empty: ``new_game`` as in :meth:`mentor.uci_client.UciEngine.analyse`); a static mentor's evaluation
        (:meth:`~mentor.uci_client.UciEngine.static_eval`: ``None`` when the engine has none there)."""
        last: Exception | None = None
        for _ in range(self.config.retries + 1):
            try:
                self.ensure_running()
                if self.config.static:
                    return self.engine.static_eval(fen)
                return self.engine.analyse(fen, depth=self.config.depth, nodes=self.config.nodes, new_game=new_game)
            except EngineError as exc:
                last = exc
                self.failed(exc)
        raise EngineError(f"gave up after {self.config.retries + 1} attempts: {last}")

    def failed(self, exc: EngineError) -> None:
        """A search failed: count a refused score, and close the engine (the next search restarts it)."""
        self.bad_scores += isinstance(exc, BadScore)
        self.engine.close()

    def close(self) -> None:
        self.engine.close()


_LOCAL = threading.local()  # each worker thread (or process) holds its own mentors
_ALL: list[list[Any]] = []  # [owning thread, config, mentor] of every mentor this process started
_ALL_LOCK = threading.Lock()
_GENERATION = [0]  # close_mentors counts up: a thread's mentors of an older generation are closed


def worker_mentor(config: MentorConfig) -> _BuiltinMentor | _UciMentor:
    """This worker thread's (or process's) mentor of ``config``, started at its first use and kept. A thread's
    first use adopts the mentor of a thread that has ended, when there is one (each ``mentor_map`` call runs new
    threads: without adoption every call started engines and left the last call's idle, one pair a datagen round)."""
    mentors: dict[MentorConfig, _BuiltinMentor | _UciMentor] | None = getattr(_LOCAL, "mentors", None)
    if mentors is None or getattr(_LOCAL, "generation", None) != _GENERATION[0]:
        mentors = _LOCAL.mentors = {}
        _LOCAL.generation = _GENERATION[0]
    m = mentors.get(config)
    if m is None:
        me = threading.current_thread()
        with _ALL_LOCK:
            entry = next((e for e in _ALL if e[1] == config and not e[0].is_alive()), None)
            if entry is None:
                m = _BuiltinMentor(config) if config.kind == "builtin" else _UciMentor(config)
                _ALL.append([me, config, m])
            else:
                entry[0], m = me, entry[2]
        mentors[config] = m
    return m


def close_mentors() -> None:
    """Close every mentor this process holds, in any thread (engine processes quit)."""
    with _ALL_LOCK:
        mentors = [entry[2] for entry in _ALL]
        _ALL.clear()
        _GENERATION[0] += 1  # other threads (a Dask worker's, closed from its event loop) start afresh
    for m in mentors:
        m.close()
    _LOCAL.__dict__.clear()


atexit.register(close_mentors)


def mentor_map(task: Callable[..., T], items: Sequence[Any], jobs: int, args: Sequence[Any], uci: bool) -> Iterator[T]:
    """``task(item, *args)`` for every item, in order, as the workers finish (they run ahead): threads when every
    mentor is a UCI engine (the work is in its engine process; threads start at once and end with this process),
    else :func:`search.runtime.workers.parallel_map` (worker processes for the built-in mentor, which computes in
    Python, or a Dask cluster's workers, each starting its own mentors). The one branch of ``label`` and ``datagen``."""
    from search.runtime.workers import distributed, parallel_map

    if jobs != 1 and len(items) > 1 and uci and not distributed():
        from joblib import Parallel, delayed

        threads = Parallel(n_jobs=jobs, return_as="generator", batch_size=1, prefer="threads")
        return iter(threads(delayed(task)(item, *args) for item in items))
    return parallel_map(task, items, jobs, args=args, batch_size=1)


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


Trouble = tuple[int, int]
"""What went wrong in a batch besides its failed positions: (engine restarts, scores refused)."""


def label_batch(items: Sequence[Item], config: MentorConfig, cap: int = DEFAULT_CAP
                ) -> tuple[list[Done], Trouble]:
    """Label ``items`` with the mentor ``config`` names, in this worker (a task of
    :func:`search.runtime.workers.parallel_map`: the batch comes first); return finished EPD lines and the
    engine restarts and refused scores (:func:`analyse_batch`, then each position's label)."""
    found, trouble = analyse_batch(items, config)
    return [(item[0], None, error, None) if a is None else _finish(item, a, cap) for item, a, error in found], trouble


def analyse_batch(items: Sequence[Item], config: MentorConfig
                  ) -> tuple[list[tuple[Item, Analysis | None, str | None]], Trouble]:
    """The mentor's analysis of each of ``items`` (or ``None`` and why, when it gave up), in order, and the engine
    restarts and refused scores (:data:`Trouble`). A UCI engine is kept busy: the next position's search is sent
    before this one is returned to the caller's formatting, so our Python work overlaps the engine's."""
    mentor = worker_mentor(config)
    out: list[tuple[Item, Analysis | None, str | None]] = []
    if isinstance(mentor, _BuiltinMentor) or config.static:  # one at a time: nothing to overlap
        before, bad = getattr(mentor, "restarts", 0), getattr(mentor, "bad_scores", 0)
        for item in items:
            try:
                a = mentor.analyse(item[1])
            except EngineError as exc:
                out.append((item, None, str(exc)))
                continue
            out.append((item, a, None) if a is not None else (item, None, f"no {config.limit()} here"))
        return out, (getattr(mentor, "restarts", 0) - before, getattr(mentor, "bad_scores", 0) - bad)
    before, bad = mentor.restarts, mentor.bad_scores
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
        except EngineError as exc:
            mentor.failed(exc)
        in_flight = False
        if k + 1 < len(items) and analysis is not None:
            try:
                engine.send_go(items[k + 1][1], depth, nodes)
                in_flight = True
            except EngineError:
                engine.close()
        if analysis is None:  # died, hung or refused score: restart and retry this position on its own
            try:
                analysis = mentor.analyse(item[1])
            except EngineError as exc:
                out.append((item, None, str(exc)))
                continue
            assert analysis is not None  # a search always has a verdict
        out.append((item, analysis, None))
    return out, (mentor.restarts - before, mentor.bad_scores - bad)


def crowd_batch(items: Sequence[Item], configs: Sequence[MentorConfig], cap: int = DEFAULT_CAP
                ) -> tuple[list[Done], Trouble]:
    """Label ``items`` with a crowd of mentors (:func:`crowd_label`): each mentor analyses the batch in turn; a
    position that any of them gave up on is a failure naming that mentor."""
    every = [analyse_batch(items, c) for c in configs]
    out: list[Done] = []
    for k, item in enumerate(items):
        found = [(c, f[0][k]) for c, f in zip(configs, every, strict=True)]
        failed = next(((c, err) for c, (_, a, err) in found if a is None), None)
        if failed is not None:
            out.append((item[0], None, f"{failed[0].describe()}: {failed[1]}", None))
            continue
        out.append(crowd_label(item, [a for _, (_, a, _) in found if a is not None], cap))
    return out, (sum(t[0] for _, t in every), sum(t[1] for _, t in every))


def crowd_score(scores: Sequence[int]) -> int:
    """The crowd's score: the median of the mentors' scores (centipawns, side to move; a mate counts at its EPD
    value, beyond every centipawn score), the mean of the middle two rounded for an even crowd.

    >>> crowd_score([30, -10, 25]), crowd_score([30, -10, 25, 40]), crowd_score([29_995, 500])
    (25, 28, 15248)
    """
    ordered = sorted(scores)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else round((ordered[mid - 1] + ordered[mid]) / 2)


def crowd_label(item: Item, analyses: Sequence[Analysis], cap: int) -> Done:
    """The label of a position a crowd analysed: ``ce`` the crowd's score (:func:`crowd_score`), each mentor's
    score in ``c3`` (in the mentors' order, which the sidecar records), ``acd`` and ``pv`` the first mentor's."""
    index, fen, result, id_, source, plies = item
    board = chess.Board(fen)
    scores = tuple(ce_from_mate_moves(a.mate) if a.mate is not None else int(a.score or 0) for a in analyses)
    first = analyses[0]
    label = Label(board, crowd_score(scores), first.depth, legal_prefix(board, first.pv), result, id_, source, plies,
                  board.fullmove_number if plies is not None else None, crowd=scores)
    return index, label.to_epd(cap), None, label.flag(cap)
