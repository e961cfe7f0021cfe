"""Test-suite runner: does a player find a position's best move (``bm``) and avoid its ``am``?

STS files give points per move in ``c0`` (``"Nf3=10, e4=5"``); a row then scores the points of the
move played (0 when it is not listed), and a suite's score is their sum (STS: at most 10 a position).
Positions are spread over ``jobs`` joblib workers; every position starts from a fresh game (cleared
hash), so results do not depend on how they were spread. ``SuiteCsv`` writes each row as it arrives, and a
run resumed from that CSV skips the positions already in it.
"""

from __future__ import annotations

import csv
import re
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import chess
import chess.engine

from search.base import Limit
from search.conventions import from_engine_score, mate_moves
from search.formats.epd import EpdRecord, read_epd
from search.players.player import MoveReport, PlayerError, make_player
from search.players.spec import PlayerRegistry
from search.runtime.atomic import write_atomic
from search.runtime.errors import MimicError, RunExists
from search.runtime.files import read_regular
from search.runtime.workers import parallel_map


@dataclass
class SuiteRow:
    """The outcome of one position. ``score`` is centipawns (side to move) or ``None``; ``mate`` in moves."""

    id: str
    fen: str
    best: str  # the bm moves, SAN, space-separated
    avoid: str  # the am moves
    played: str  # SAN of the move played ("" when none)
    solved: bool
    points: int  # STS points of the move played (0 without c0)
    max_points: int
    depth: int
    nodes: int
    time: float  # seconds the player took
    score: int | None
    mate: int | None
    error: str = ""


_C0_ITEM = re.compile(r"\s*([^=,\s]+)\s*=\s*(\d+)\s*")


def sts_points(record: EpdRecord) -> dict[chess.Move, int]:
    """The ``c0`` points of an STS record by move (empty when the record has none or they do not parse)."""
    text = record.ops.get("c0")
    if not isinstance(text, str):
        return {}
    points: dict[chess.Move, int] = {}
    for item in text.split(","):
        m = _C0_ITEM.fullmatch(item)
        if m is None:
            return {}
        try:
            points[record.board.parse_san(m.group(1))] = int(m.group(2))
        except ValueError:
            return {}
    return points


def is_solved(record: EpdRecord, move: chess.Move | None) -> bool:
    """True when ``move`` is one of the ``bm`` moves (if any) and none of the ``am`` moves (if any)."""
    if move is None:
        return False
    best = record.ops.get("bm") or []
    avoid = record.ops.get("am") or []
    if not best and not avoid:
        return False
    return (not best or move in best) and move not in avoid


def make_row(record: EpdRecord, move: chess.Move | None, score: int | None, mate: int | None, depth: int,
             nodes: int, seconds: float, error: str = "") -> SuiteRow:
    board = record.board
    points = sts_points(record)

    def san_list(key: str) -> str:
        return " ".join(board.san(m) for m in record.ops.get(key) or [])

    legal = move is not None and move in board.legal_moves
    return SuiteRow(
        id=record.id, fen=board.fen(), best=san_list("bm"), avoid=san_list("am"),
        played=board.san(move) if legal and move is not None else "", solved=legal and is_solved(record, move),
        points=points.get(move, 0) if legal and move is not None else 0, max_points=max(points.values(), default=0),
        depth=depth, nodes=nodes, time=seconds, score=score, mate=mate, error=error,
    )


def solve_engine(engine: chess.engine.SimpleEngine, record: EpdRecord, movetime: float) -> SuiteRow:
    """Let a python-chess engine think ``movetime`` seconds on the record's position (a new game)."""
    result = engine.play(record.board, chess.engine.Limit(time=movetime), info=chess.engine.INFO_ALL,
                         game=object())
    info = result.info
    pov = info.get("score")
    score = None if pov is None else from_engine_score(pov.relative)
    return _row(record, result.move, score, int(info.get("depth", 0)), int(info.get("nodes", 0)),
                    float(info.get("time", 0.0)))


def _report_row(record: EpdRecord, report: MoveReport, seconds: float) -> SuiteRow:
    return _row(record, report.move, report.score, report.depth, report.nodes, seconds)


def _row(record: EpdRecord, move: chess.Move | None, score: int | None, depth: int, nodes: int,
         seconds: float) -> SuiteRow:
    """:func:`make_row` from an internal score (centipawns or a mate score, side to move's view)."""
    mate = None if score is None else mate_moves(score)
    return make_row(record, move, None if mate is not None else score, mate, depth, nodes, seconds)


def solve_chunk(spec: str, records: Sequence[EpdRecord], movetime: float,
                make_evaluator: PlayerRegistry) -> list[SuiteRow]:
    """Worker task: the records solved by one player made from ``spec`` (a new game per position)."""
    rows = []
    player = None
    try:
        for record in records:
            if player is None:
                player = make_player(spec, make_evaluator)
            player.new_game()
            t0 = time.perf_counter()
            try:
                report = player.play(record.board, Limit(movetime=movetime), timeout=movetime * 3 + 5)
            except PlayerError as exc:
                rows.append(make_row(record, None, None, None, 0, 0, time.perf_counter() - t0, str(exc)))
                player.close()
                player = None
                continue
            rows.append(_report_row(record, report, time.perf_counter() - t0))
    finally:
        if player is not None:
            player.close()
    return rows


def row_key(id_: str, fen: str) -> str:
    """What identifies a suite position across runs: its ``id`` and its FEN."""
    return f"{id_}\t{fen}"


def run_suite(path: str | Path, spec: str, movetime: float, make_evaluator: PlayerRegistry, jobs: int = 1,
              limit: int | None = None, on_error: Callable[[str], None] | None = None,
              on_row: Callable[[SuiteRow], None] | None = None, skip: Collection[str] = ()) -> list[SuiteRow]:
    """Solve every position of an EPD file (the first ``limit``) except those whose ``row_key`` is in
    ``skip``; rows in file order."""
    records = list(read_epd(path, (lambda e: on_error(str(e))) if on_error else None))[:limit]
    records = [r for r in records if row_key(r.id, r.board.fen()) not in skip]
    chunk = max(1, min(16, len(records) // max(jobs * 4, 1) or 1))
    batches = [records[i:i + chunk] for i in range(0, len(records), chunk)]
    rows: list[SuiteRow] = []
    for part in parallel_map(_solve_batch, batches, jobs, args=(spec, movetime, make_evaluator), batch_size=1):
        for row in part:
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


def _solve_batch(batch: list[EpdRecord], spec: str, movetime: float,
                 make_evaluator: PlayerRegistry) -> list[SuiteRow]:
    """:func:`solve_chunk` with the batch first (a worker's task for :func:`parallel_map`)."""
    return solve_chunk(spec, batch, movetime, make_evaluator)


_FIELDS = [f.name for f in fields(SuiteRow)]


def write_csv(rows: Sequence[SuiteRow], path: str | Path) -> None:
    """Write ``rows`` to a new CSV (one row a position, the ``SuiteRow`` fields as columns)."""
    with SuiteCsv(path) as out:
        for r in rows:
            out.append(r)


def _parse_row(raw: dict[str, str]) -> SuiteRow:
    def opt(text: str) -> int | None:
        return int(text) if text != "" else None

    return SuiteRow(id=raw["id"], fen=raw["fen"], best=raw["best"], avoid=raw["avoid"], played=raw["played"],
                    solved=raw["solved"] == "True", points=int(raw["points"]), max_points=int(raw["max_points"]),
                    depth=int(raw["depth"]), nodes=int(raw["nodes"]), time=float(raw["time"]),
                    score=opt(raw["score"]), mate=opt(raw["mate"]), error=raw["error"])


class SuiteCsvError(MimicError, ValueError):
    """A suite CSV that is not one ``SuiteCsv`` wrote (or a path to it that is not a file): ``FILE[:LINE]: why``."""


def read_csv(path: str | Path) -> list[SuiteRow]:
    """The rows of a suite CSV written by ``SuiteCsv``. A torn last line (a killed run) is dropped; any
    other malformed line raises ``ValueError`` naming the file and line."""
    rows: list[SuiteRow] = []
    try:
        text = read_regular(path, "suite CSV").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteCsvError(f"{path}: not a mimic suite CSV (not UTF-8 text: {exc.reason} at byte {exc.start})") \
            from exc
    lines = text.splitlines(keepends=True)
    complete = lines if text.endswith("\n") else lines[:-1]
    reader = csv.DictReader(complete)
    try:
        if reader.fieldnames is not None and list(reader.fieldnames) != _FIELDS:
            raise SuiteCsvError(f"{path}:1: not a mimic suite CSV (columns {str(reader.fieldnames)[:200]})")
        for raw in reader:
            try:
                rows.append(_parse_row(raw))
            except (KeyError, TypeError, ValueError) as exc:
                raise SuiteCsvError(f"{path}:{reader.line_num}: malformed suite row ({exc})") from exc
    except csv.Error as exc:
        raise SuiteCsvError(f"{path}:{reader.line_num}: not a mimic suite CSV ({exc})") from exc
    return rows


class SuiteCsv:
    """A suite CSV written as rows arrive (flushed each row). ``resume=True`` keeps the rows already in
    the file (``.done``) and appends; otherwise an existing file is an error, so no result is lost."""

    def __init__(self, path: str | Path, resume: bool = False) -> None:
        self.path = Path(path)
        self.done: list[SuiteRow] = []
        if self.path.exists() and not self.path.is_file():
            raise SuiteCsvError(f"{self.path}: not a regular file")
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists and not resume:
            raise RunExists(f"{self.path} exists; pass --resume to continue it, or remove it")
        if exists:
            self.done = read_csv(self.path)
            with open(self.path, newline="") as fh:  # rewrite without a torn last line
                keep = fh.read()
            if not keep.endswith("\n"):
                write_atomic(self.path, keep[: keep.rfind("\n") + 1])
        self._fh = open(self.path, "a", newline="")  # noqa: SIM115 - held until close()
        self._writer = csv.DictWriter(self._fh, fieldnames=_FIELDS)
        if not exists or not self.path.read_text():
            self._writer.writeheader()
            self._fh.flush()

    def keys(self) -> set[str]:
        return {row_key(r.id, r.fen) for r in self.done}

    def append(self, row: SuiteRow) -> None:
        self._writer.writerow(asdict(row))
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> SuiteCsv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class SuiteSummary:
    solved: int
    total: int
    points: int
    max_points: int
    errors: int

    def line(self) -> str:
        s = f"solved {self.solved} / {self.total}"
        if self.max_points:
            s += f"; points {self.points} / {self.max_points}"
        if self.errors:
            s += f"; {self.errors} positions without a move"
        return s


def summarize(rows: Sequence[SuiteRow]) -> SuiteSummary:
    return SuiteSummary(sum(r.solved for r in rows), len(rows), sum(r.points for r in rows),
                        sum(r.max_points for r in rows), sum(1 for r in rows if r.error))
