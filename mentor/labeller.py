"""Label positions with a mentor, in parallel, writing results as they arrive.

The mentor (:class:`~mentor.pool.MentorConfig`: a UCI engine or the built-in mentor) and the mentors each
worker keeps are :mod:`mentor.pool`'s. Work goes to ``jobs`` workers in batches (threads for UCI engines,
whose work happens in their own processes; processes of :func:`search.runtime.workers.parallel_map` for the
built-in mentor). The main process writes each finished batch to the label file and flushes it, so a killed
run loses at most the batches in flight, and ``resume=True`` skips every position already in the file.

Before the label file is touched, the mentor is started once (:func:`~mentor.pool.mentor_identity`): a
mentor that cannot start stops the run with nothing written, and the name it reports (UCI ``id name``) is
recorded in the file's provenance sidecar (:func:`record_run`, one schema for ``mimic label`` and
``mimic demo``).

May import: chess, joblib, the rest of ``mentor/``, ``search/`` and ``organisms/``.
"""

from __future__ import annotations

import contextlib
import errno
import time
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mentor.labels import DEFAULT_CAP, LabelWriter, labelled_keys, repair_label_file
from mentor.pool import BUILTIN_NAME as BUILTIN_NAME  # re-exported: callers import these from mentor.labeller
from mentor.pool import (
    Done,
    Item,
    MentorConfig,
    Trouble,
    close_mentors,
    crowd_batch,
    label_batch,
    mentor_identity,
    mentor_map,
)
from mentor.pool import find_stockfish as find_stockfish
from mentor.samplers import Sample, SamplerOptions
from mentor.sidecar import (
    check_resume,
    comment_lines,
    convert_legacy,
    identity,
    migrate_sidecar,
    read_sidecar,
    sidecar_path,
)
from search.runtime.atomic import write_json_atomic
from search.runtime.errors import RunExists
from search.runtime.provenance import provenance, utc_now
from search.tt import position_key


# ---------------------------------------------------------------------- main side
@dataclass
class LabelSummary:
    requested: int = 0
    already_labelled: int = 0
    labelled: int = 0
    failed: int = 0
    restarts: int = 0
    bad_scores: int = 0  # searches whose score was refused (beyond every mate bound, NaN, unparsable): each restarted
    mates: int = 0
    over_cap: int = 0
    seconds: float = 0.0
    sampling: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    mentor: str = ""  # the name the mentor reported (UCI id name)
    legacy_header: int = 0  # '#' lines moved from the label file into its sidecar on resume
    cut: str = ""  # on resume, what was cut off the file's torn end (mentor.labels.Cut.note)

    @property
    def positions_per_second(self) -> float:
        return self.labelled / self.seconds if self.seconds > 0 else 0.0

    def lines(self) -> list[str]:
        s = self.sampling
        skipped = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in s.items() if k not in ("yielded", "games") and v)
        return [
            f"mentor: {self.mentor or '(no id name)'}",
            *([self.cut] if self.cut else []),
            *([f"moved {self.legacy_header} '#' header lines into the sidecar JSON (EPD has no comments)"]
              if self.legacy_header else []),
            f"positions: {self.requested} sampled, {self.already_labelled} already labelled, "
            f"{self.labelled} labelled now, {self.failed} failed",
            f"skipped while sampling: {skipped or 'none'}" + (f" (from {s['games']} games)" if s.get("games") else ""),
            f"flagged: {self.mates} mate scores, {self.over_cap} beyond the cap",
            f"engine restarts: {self.restarts}" + (f" ({self.bad_scores} after a score beyond the mate bound or not "
                                                   f"a number, refused)" if self.bad_scores else ""),
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
    details: dict[str, Any] = field(default_factory=dict)
    """What a source records beside the sampler's options (self-play: its :class:`mentor.selfplay.SelfPlayOptions`)."""


def record_run(path: str | Path, run: LabelRun, config: MentorConfig | Crowd, summary: LabelSummary, run_id: str,
               started: str, finished: str | None) -> None:
    """Record one run in the provenance sidecar of label file ``path`` (``FILE.json``).

    The one writer of label provenance, for ``mimic label`` and ``mimic demo``. The sidecar holds
    ``schema``, ``labels`` (the file's name), ``runs`` (one entry per run, resumed runs included,
    oldest first) and, for converted old files, ``legacy_header``. A run entry: ``command``,
    ``settings`` (sources, positions, seed, jobs, resume, cap, sampler), ``mentor`` (kind, command,
    ``id_name`` as the engine reported it, depth, nodes, ``static`` when true, the built-in mentor's ``player``
    spec when it has one, hash_mb, timeout, options),
    ``mimic_version``, ``git_commit`` and ``git_dirty`` (``None`` outside a checkout),
    ``started_utc``, ``finished_utc`` (``None`` while running, or when the run stopped on an error)
    and ``summary`` (:class:`LabelSummary`), under a random ``run_id``. Calling it again with the
    same ``run_id`` replaces that entry. The file is replaced atomically.
    """
    side = read_sidecar(path)  # a damaged sidecar: SidecarError, never overwritten
    side_file = sidecar_path(path)
    crowd = as_crowd(config)
    names = summary.mentor.split(CROWD_NAMES) if len(crowd) > 1 else [summary.mentor]
    prov = provenance()
    entry = {
        "run_id": run_id,
        "command": run.command,
        "settings": {"sources": list(run.sources), "positions": run.positions, "seed": run.seed, "jobs": run.jobs,
                     "resume": run.resume, "cap": run.cap, "sampler": asdict(run.sampler), **run.details},
        "mentor": _mentor_record(crowd[0], names[0]),
        **({"crowd": {"mentors": [_mentor_record(c, n) for c, n in zip(crowd, names, strict=True)],
                      "score": "ce: the median of the mentors' scores; c3: each mentor's score, in this order"}}
           if len(crowd) > 1 else {}),
        "mimic_version": prov["mimic_version"], "git_commit": prov["git_commit"], "git_dirty": prov["git_dirty"],
        "started_utc": started, "finished_utc": finished, "summary": summary.to_json(),
    }
    data = migrate_sidecar(side, Path(path).name)
    data["runs"] = [r for r in data["runs"] if r.get("run_id") != run_id] + [entry]
    write_json_atomic(side_file, data)


def _mentor_record(config: MentorConfig, name: str) -> dict[str, Any]:
    return {"kind": config.kind, "command": list(config.command), "id_name": name, "depth": config.depth,
            "nodes": config.nodes, **({"static": True} if config.static else {}),
            **({"player": config.player} if config.player else {}), "hash_mb": config.hash_mb,
            "timeout": config.timeout, "options": dict(config.options)}


Crowd = Sequence[MentorConfig]
"""Several mentors labelling the same positions (:func:`mentor.pool.crowd_batch`)."""
CROWD_NAMES = " | "
"""How a crowd's mentors' names are joined in :attr:`LabelSummary.mentor`."""


def as_crowd(config: MentorConfig | Crowd) -> tuple[MentorConfig, ...]:
    """``config`` as a tuple of mentors (one mentor: a crowd of one)."""
    return (config,) if isinstance(config, MentorConfig) else tuple(config)


def open_run(out: Path, resume: bool, crowd: Crowd, run: LabelRun | None = None) -> tuple[bool, str]:
    """The checks before a run writes the label file ``out``, in order: a directory is refused, an existing
    non-empty file without ``resume`` is :class:`~search.runtime.errors.RunExists`, a damaged sidecar is
    :class:`~mentor.sidecar.SidecarError`, a resumed file whose last run made other labels than ``run`` would (another
    command, mentor, depth, options; self-play's seed and options) is :class:`~search.runtime.errors.SettingsError`
    (:func:`mentor.sidecar.check_resume`), a mentor that cannot start is :class:`EngineError`, with nothing written.
    Whether the file holds labels already, and the mentors' names (:data:`CROWD_NAMES` between a crowd's)."""
    if out.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a label file", str(out))
    exists = out.exists() and out.stat().st_size > 0
    if exists and not resume:
        raise RunExists(f"{out} exists; pass --resume to continue it, or choose another --out")
    side = read_sidecar(out)
    if exists and run is not None:
        check_resume(out, side, identity({"seed": run.seed, **run.details}, [_mentor_record(c, "") for c in crowd]))
    return exists, CROWD_NAMES.join(mentor_identity(c) for c in crowd)


def label_samples(samples: Sequence[Sample], config: MentorConfig | Crowd, out: str | Path, *, jobs: int = 1,
                  resume: bool = False, batch_size: int | None = None, run: LabelRun | None = None,
                  cap: int = DEFAULT_CAP, on_progress: Callable[[int, int], None] | None = None,
                  sampling: dict[str, int] | None = None) -> LabelSummary:
    """Label ``samples`` into ``out`` (EPD). Refuses to overwrite an existing non-empty file unless
    ``resume`` is set, in which case positions already in the file are skipped.

    In order: ``out`` is checked (a directory is refused), then its sidecar (:func:`mentor.sidecar.read_sidecar`:
    a damaged one is :class:`~mentor.sidecar.SidecarError`, nothing written), the mentor is started once
    (:func:`mentor_identity`; :class:`EngineError` when it cannot start, with nothing written), an
    old file's ``#`` header is moved to the sidecar on resume, and the run is recorded in the
    sidecar when ``run`` is given (again at the end, with its summary). A failing write (disk full)
    raises ``OSError``: what was written stays, and a resume after space is freed completes the file.
    ``on_progress(done, total)`` hears the positions done (those already in the file first) after each batch.
    """
    out = Path(out)
    summary = LabelSummary(requested=len(samples), sampling=dict(sampling or {}))
    crowd = as_crowd(config)
    exists, summary.mentor = open_run(out, resume, crowd, run)
    done: set[int] = set()
    if exists:
        cut = repair_label_file(out)  # a torn end only; damage elsewhere is refused, the file untouched
        summary.cut = cut.note() if cut is not None else ""
        if comment_lines(out):
            summary.legacy_header = len(convert_legacy(out))
        done = labelled_keys(out)
    todo = [(i, s) for i, s in enumerate(samples) if position_key(s.board) not in done]
    summary.already_labelled = len(samples) - len(todo)
    items: list[Item] = [(i, s.board.fen(), s.result, s.id, s.source, s.plies_to_end) for i, s in todo]
    if batch_size is None:  # small batches keep every worker busy to the end; threads cost nothing per batch
        batch_size = 32 if crowd[0].kind == "builtin" else 8
        batch_size = max(1, min(batch_size, len(items) // max(4 * jobs, 1) or 1))

    t0 = time.perf_counter()
    started, run_id = utc_now(), uuid.uuid4().hex
    finished = False
    try:
        with contextlib.ExitStack() as stack, LabelWriter(out, cap=cap) as writer:
            if run is not None:
                record_run(out, run, config, summary, run_id, started, None)
            if on_progress is not None:
                on_progress(summary.already_labelled, len(samples))
            if items:
                pending = _run(config, items, batch_size, jobs, cap)
                stack.callback(_close_quietly, pending)
                for results, (restarts, bad_scores) in pending:
                    summary.restarts += restarts
                    summary.bad_scores += bad_scores
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
                    if on_progress is not None:
                        on_progress(summary.already_labelled + summary.labelled + summary.failed, len(samples))
        finished = True
    finally:
        close_mentors()  # the mentors of this process (serial runs, threads); a process pool's leave with it
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


def _close_quietly(pending: Iterator[tuple[list[Done], Trouble]]) -> None:
    """Stop the workers of a run that ends early (an error), without joblib's warning about the batches
    it cancels: the error itself is what the user needs to see."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*tasks which were still being processed")
        close = getattr(pending, "close", None)
        if close is not None:
            close()


def _run(config: MentorConfig | Crowd, items: list[Item], batch_size: int, jobs: int, cap: int
         ) -> Iterator[tuple[list[Done], Trouble]]:
    """Each batch's ``(finished lines, (engine restarts, refused scores))``, in the order of the batches (the workers
    still run ahead), so the label file has the same lines in the same order whatever the backend and the number of
    workers (:func:`mentor.pool.mentor_map`)."""
    crowd = as_crowd(config)
    task, whom = (label_batch, crowd[0]) if len(crowd) == 1 else (crowd_batch, crowd)
    return mentor_map(task, list(_batches(items, batch_size)), jobs, (whom, cap),
                      all(c.kind == "uci" for c in crowd))
