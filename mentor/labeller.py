"""Label positions with a mentor, in parallel, writing results as they arrive.

A mentor is described by a picklable :class:`MentorConfig`: a UCI engine (Stockfish, any path) or the
built-in mentor (our engine with the built-in expert). Work goes to ``jobs`` joblib workers in
batches (threads for UCI engines, whose work happens in their own processes; processes for the
built-in mentor); each worker keeps one mentor for its lifetime (engines do not pickle), restarting a
UCI engine that dies or hangs and retrying the position. The main process writes each finished batch
to the label file and flushes it, so a killed run loses at most the batches in flight, and
``resume=True`` skips every position already in the file.

Before the label file is touched, the mentor is started once (:func:`mentor_identity`): a mentor
that cannot start stops the run with nothing written, and the name it reports (UCI ``id name``) is
recorded in the file's provenance sidecar (:func:`record_run`, one schema for ``mimic label`` and
``mimic demo``).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import shutil
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import KW_ONLY, asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess

from mentor.labels import (
    DEFAULT_CAP,
    Label,
    LabelWriter,
    comment_lines,
    convert_legacy,
    labelled_keys,
    migrate_sidecar,
    read_sidecar,
    sidecar_path,
    write_json_atomic,
)
from mentor.samplers import Sample, SamplerOptions
from mentor.uci_client import Analysis, EngineError, UciEngine, check_option
from search.conventions import ce_from_mate_moves, legal_prefix
from search.runtime.provenance import mimic_version, provenance, utc_now
from search.tt import position_key

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
            raise ValueError(f"unknown mentor kind {self.kind!r}")
        if self.kind == "uci" and not self.command:
            raise ValueError("a UCI mentor needs a command")
        if (self.depth is None) == (self.nodes is None):
            raise ValueError("give the mentor exactly one of depth and nodes")
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

    def analyse(self, fen: str) -> Analysis:
        from search import Limit

        board = chess.Board(fen)
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

    def analyse(self, fen: str) -> Analysis:
        """One position, restarting the engine and retrying when it dies or hangs."""
        last: Exception | None = None
        for _ in range(self.config.retries + 1):
            try:
                self.ensure_running()
                return self.engine.analyse(fen, depth=self.config.depth, nodes=self.config.nodes)
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
    label = Label(board, ce, a.depth, legal_prefix(board, a.pv), result, id_, source, plies)
    return index, label.to_epd(cap), None, label.flag(cap)


def label_batch(config: MentorConfig, items: Sequence[Item], cap: int = DEFAULT_CAP) -> tuple[list[Done], int]:
    """Label ``items`` in this worker; return finished EPD lines and the engine restarts.

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
    limit = {"depth": config.depth, "nodes": config.nodes}
    in_flight = False
    for k, item in enumerate(items):
        analysis: Analysis | None = None
        try:
            if not in_flight:
                mentor.ensure_running()
                engine.send_go(item[1], **limit)
            analysis = engine.read_result(item[1])
        except EngineError:
            engine.close()
        in_flight = False
        if k + 1 < len(items) and analysis is not None:
            try:
                engine.send_go(items[k + 1][1], **limit)
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


# ---------------------------------------------------------------------- main side
@dataclass
class LabelSummary:
    requested: int = 0
    already_labelled: int = 0
    labelled: int = 0
    failed: int = 0
    restarts: int = 0
    mates: int = 0
    over_cap: int = 0
    seconds: float = 0.0
    sampling: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    mentor: str = ""  # the name the mentor reported (UCI id name)
    legacy_header: int = 0  # '#' lines moved from the label file into its sidecar on resume

    @property
    def positions_per_second(self) -> float:
        return self.labelled / self.seconds if self.seconds > 0 else 0.0

    def lines(self) -> list[str]:
        s = self.sampling
        skipped = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in s.items() if k not in ("yielded", "games") and v)
        return [
            f"mentor: {self.mentor or '(no id name)'}",
            *([f"moved {self.legacy_header} '#' header lines into the sidecar JSON (EPD has no comments)"]
              if self.legacy_header else []),
            f"positions: {self.requested} sampled, {self.already_labelled} already labelled, "
            f"{self.labelled} labelled now, {self.failed} failed",
            f"skipped while sampling: {skipped or 'none'}" + (f" (from {s['games']} games)" if s.get("games") else ""),
            f"flagged: {self.mates} mate scores, {self.over_cap} beyond the cap",
            f"engine restarts: {self.restarts}",
            f"speed: {self.positions_per_second:.1f} positions/s over {self.seconds:.1f} s",
        ]

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["positions_per_second"] = self.positions_per_second
        return d


def _batches(items: list[Item], size: int) -> Iterator[list[Item]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


@dataclass(frozen=True)
class LabelRun:
    """What a labelling run was asked for, as recorded in the sidecar (see :func:`record_run`)."""

    command: str  # the command line that started it, e.g. "mimic label --mentor builtin ..."
    sources: tuple[str, ...]
    positions: int
    seed: int
    jobs: int
    resume: bool
    cap: int = DEFAULT_CAP
    sampler: SamplerOptions = field(default_factory=SamplerOptions)


def record_run(path: str | Path, run: LabelRun, config: MentorConfig, summary: LabelSummary, run_id: str,
               started: str, finished: str | None) -> None:
    """Record one run in the provenance sidecar of label file ``path`` (``FILE.json``).

    The one writer of label provenance, for ``mimic label`` and ``mimic demo``. The sidecar holds
    ``schema``, ``labels`` (the file's name), ``runs`` (one entry per run, resumed runs included,
    oldest first) and, for converted old files, ``legacy_header``. A run entry: ``command``,
    ``settings`` (sources, positions, seed, jobs, resume, cap, sampler), ``mentor`` (kind, command,
    ``id_name`` as the engine reported it, depth, nodes, hash_mb, timeout, options),
    ``mimic_version``, ``git_commit`` and ``git_dirty`` (``None`` outside a checkout),
    ``started_utc``, ``finished_utc`` (``None`` while running, or when the run stopped on an error)
    and ``summary`` (:class:`LabelSummary`), under a random ``run_id``. Calling it again with the
    same ``run_id`` replaces that entry. The file is replaced atomically.
    """
    side = read_sidecar(path)
    side_file = sidecar_path(path)
    if not side and side_file.exists() and side_file.stat().st_size > 0:  # damaged: kept, never overwritten
        keep = side_file.with_name(side_file.name + ".unreadable")
        side_file.replace(keep)
        warnings.warn(f"{side_file}: not a JSON object; moved to {keep}, a new one begins", stacklevel=2)
    prov = provenance()
    entry = {
        "run_id": run_id,
        "command": run.command,
        "settings": {"sources": list(run.sources), "positions": run.positions, "seed": run.seed, "jobs": run.jobs,
                     "resume": run.resume, "cap": run.cap, "sampler": asdict(run.sampler)},
        "mentor": {"kind": config.kind, "command": list(config.command), "id_name": summary.mentor,
                   "depth": config.depth, "nodes": config.nodes, "hash_mb": config.hash_mb,
                   "timeout": config.timeout, "options": dict(config.options)},
        "mimic_version": prov["mimic_version"], "git_commit": prov["git_commit"], "git_dirty": prov["git_dirty"],
        "started_utc": started, "finished_utc": finished, "summary": summary.to_json(),
    }
    data = migrate_sidecar(side, Path(path).name)
    data["runs"] = [r for r in data["runs"] if r.get("run_id") != run_id] + [entry]
    write_json_atomic(side_file, data)


def label_samples(samples: Sequence[Sample], config: MentorConfig, out: str | Path, *, jobs: int = 1,
                  resume: bool = False, batch_size: int | None = None, run: LabelRun | None = None,
                  cap: int = DEFAULT_CAP, progress: bool = True,
                  sampling: dict[str, int] | None = None) -> LabelSummary:
    """Label ``samples`` into ``out`` (EPD). Refuses to overwrite an existing non-empty file unless
    ``resume`` is set, in which case positions already in the file are skipped.

    In order: ``out`` is checked (a directory is refused), the mentor is started once
    (:func:`mentor_identity`; :class:`EngineError` when it cannot start, with nothing written), an
    old file's ``#`` header is moved to the sidecar on resume, and the run is recorded in the
    sidecar when ``run`` is given (again at the end, with its summary). A failing write (disk full)
    raises ``OSError``: what was written stays, and a resume after space is freed completes the file.
    """
    out = Path(out)
    summary = LabelSummary(requested=len(samples), sampling=dict(sampling or {}))
    if out.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a label file", str(out))
    exists = out.exists() and out.stat().st_size > 0
    if exists and not resume:
        raise FileExistsError(f"{out} exists; pass --resume to continue it, or choose another --out")
    summary.mentor = mentor_identity(config)
    done: set[int] = set()
    if exists:
        if comment_lines(out):
            summary.legacy_header = len(convert_legacy(out))
        done = labelled_keys(out)
    todo = [(i, s) for i, s in enumerate(samples) if position_key(s.board) not in done]
    summary.already_labelled = len(samples) - len(todo)
    items: list[Item] = [(i, s.board.fen(), s.result, s.id, s.source, s.plies_to_end) for i, s in todo]
    if batch_size is None:  # small batches keep every worker busy to the end; threads cost nothing per batch
        batch_size = 32 if config.kind == "builtin" else 8
        batch_size = max(1, min(batch_size, len(items) // max(4 * jobs, 1) or 1))

    t0 = time.perf_counter()
    started, run_id = utc_now(), uuid.uuid4().hex
    bar = None
    finished = False
    try:
        with contextlib.ExitStack() as stack, LabelWriter(out, cap=cap) as writer:
            if run is not None:
                record_run(out, run, config, summary, run_id, started, None)
            if progress:
                from tqdm import tqdm

                bar = tqdm(total=len(samples), initial=summary.already_labelled, unit="pos", desc="labelling",
                           file=sys.stderr, dynamic_ncols=True)
            if items:
                pending = _run(config, items, batch_size, jobs, cap)
                stack.callback(_close_quietly, pending)
                for results, restarts in pending:
                    summary.restarts += restarts
                    for i, line, error, flag in results:
                        if line is None:
                            summary.failed += 1
                            summary.failures.append(f"{samples[i].source}: {samples[i].board.fen()}: {error}")
                            continue
                        writer.write_line(line)
                        summary.labelled += 1
                        summary.mates += flag == "mate"
                        summary.over_cap += flag == "over-cap"
                    writer.flush()
                    if bar is not None:
                        bar.update(len(results))
        finished = True
    finally:
        if bar is not None:
            bar.close()
        if jobs == 1 or config.kind == "uci":
            close_mentors()
        _close_cluster_mentors()
        summary.seconds = time.perf_counter() - t0
        if run is not None and out.exists():
            try:
                record_run(out, run, config, summary, run_id, started, utc_now() if finished else None)
            except OSError:
                if finished:
                    raise
    return summary


def _close_cluster_mentors() -> None:
    """On a Dask cluster, stop the mentors the run started in its worker processes: a worker outlives
    the command, and each mentor configuration would keep its own engine there (Stockfish and its hash)."""
    from search.runtime.workers import distributed, on_every_worker

    if distributed():
        with contextlib.suppress(Exception):  # a worker that left has nothing to close
            on_every_worker(close_mentors)


def _close_quietly(pending: Iterator[tuple[list[Done], int]]) -> None:
    """Stop the workers of a run that ends early (an error), without joblib's warning about the batches
    it cancels: the error itself is what the user needs to see."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*tasks which were still being processed")
        close = getattr(pending, "close", None)
        if close is not None:
            close()


def _run(config: MentorConfig, items: list[Item], batch_size: int, jobs: int, cap: int
         ) -> Iterator[tuple[list[Done], int]]:
    if jobs == 1:
        for batch in _batches(items, batch_size):
            yield label_batch(config, batch, cap)
        return
    from joblib import Parallel, delayed

    from search.runtime.workers import distributed
    from search.runtime.workers import parallel as process_pool

    # A UCI mentor's work happens in its engine process: threads that drive the pipes are enough and
    # start at once (they end with this process). The built-in mentor computes in Python, so it needs
    # processes: loky workers that leave as soon as this process is gone (search.runtime.workers). On a Dask
    # cluster both go to its workers, each worker thread starting its own mentor (_mentor).
    # Results come back in the order of the batches (the workers still run ahead), so the label file has the
    # same lines in the same order whatever the backend and the number of workers.
    if config.kind == "uci" and not distributed():
        parallel = Parallel(n_jobs=jobs, return_as="generator", batch_size=1, prefer="threads")
    else:
        parallel = process_pool(jobs, return_as="generator", batch_size=1)
    yield from parallel(delayed(label_batch)(config, b, cap) for b in _batches(items, batch_size))
