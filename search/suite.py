"""Test-suite runner: does an engine find a position's best move (``bm``) and avoid its ``am``?

STS files give points per move in ``c0`` (``"Nf3=10, e4=5"``); a row then scores the points of the
move played (0 when it is not listed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import chess
import chess.engine

from .epd import EpdRecord


@dataclass
class SuiteRow:
    """The outcome of one position. ``score`` is centipawns (side to move) or ``None`` for a mate."""

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
    time: float  # seconds the engine took
    score: int | None
    mate: int | None


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


def solve(engine: chess.engine.SimpleEngine, record: EpdRecord, movetime: float) -> SuiteRow:
    """Let ``engine`` think ``movetime`` seconds on the record's position (a new game each time)."""
    board = record.board
    result = engine.play(board, chess.engine.Limit(time=movetime), info=chess.engine.INFO_ALL,
                         game=object())
    move = result.move
    info = result.info
    pov = info.get("score")
    score = mate = None
    if pov is not None:
        rel = pov.relative
        mate = rel.mate()
        score = rel.score()
    points = sts_points(record)

    def san_list(key: str) -> str:
        return " ".join(board.san(m) for m in record.ops.get(key) or [])

    return SuiteRow(
        id=record.id, fen=board.fen(), best=san_list("bm"), avoid=san_list("am"),
        played=board.san(move) if move is not None else "", solved=is_solved(record, move),
        points=points.get(move, 0) if move is not None else 0, max_points=max(points.values(), default=0),
        depth=int(info.get("depth", 0)), nodes=int(info.get("nodes", 0)), time=float(info.get("time", 0.0)),
        score=score, mate=mate,
    )
