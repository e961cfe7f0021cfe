"""EPD label files: one labelled position a line.

Opcodes (DESIGN.md): ``ce`` the mentor's score in centipawns from the side to move's view, ``acd``
the depth searched, ``pv`` the mentor's principal variation (SAN), ``c9`` the game's result when the
position comes from a game ("1-0", "0-1", "1/2-1/2"), ``id``. Also ``c0`` the position's source
(``random``, ``FILE:LINE``), ``c1`` a flag (``mate`` or ``over-cap``) and ``c2`` the number of plies
from the position to the end of its game (for the game-result objective).

A mate is written as ``ce ±(30000 − plies)`` (positive when the side to move mates), as EPD does;
any ``|ce| ≥ 29000`` is a mate. Scores beyond the cap (default 1500 cp) are kept and flagged; fitness
leaves them out.

Lines starting with ``#`` are comments: a label file starts with one giving the command and settings
that made it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import chess

from search.conventions import ce_is_mate, legal_prefix
from search.epd import EpdError, read_epd
from search.tt import position_key

DEFAULT_CAP = 1500


@dataclass
class Label:
    """A labelled position. ``ce``: centipawns, side to move's view (mates as ``±(30000 − plies)``)."""

    board: chess.Board
    ce: int
    acd: int
    pv: list[chess.Move] = field(default_factory=list)
    result: str | None = None
    id: str | None = None
    source: str | None = None
    plies_to_end: int | None = None

    @property
    def is_mate(self) -> bool:
        return ce_is_mate(self.ce)

    def flag(self, cap: int = DEFAULT_CAP) -> str | None:
        if self.is_mate:
            return "mate"
        if abs(self.ce) > cap:
            return "over-cap"
        return None

    @property
    def key(self) -> int:
        return position_key(self.board)

    def to_epd(self, cap: int = DEFAULT_CAP) -> str:
        ops: dict[str, object] = {"ce": int(self.ce), "acd": int(self.acd)}
        if self.pv:
            ops["pv"] = legal_prefix(self.board, self.pv)
        if self.result is not None:
            ops["c9"] = self.result
        if self.id is not None:
            ops["id"] = self.id
        if self.source is not None:
            ops["c0"] = self.source
        flag = self.flag(cap)
        if flag is not None:
            ops["c1"] = flag
        if self.plies_to_end is not None:
            ops["c2"] = str(self.plies_to_end)
        return self.board.epd(**ops)  # type: ignore[arg-type]


def read_labels(path: str | Path, on_error: Callable[[EpdError], None] | None = None) -> Iterator[Label]:
    """Labels of a file; a line without a numeric ``ce`` is reported as malformed (file:line)."""
    for rec in read_epd(path, on_error):
        ops = rec.ops
        ce = ops.get("ce")
        if not isinstance(ce, int | float):
            err = EpdError(rec.path, rec.line_no, "no numeric ce (centipawn evaluation) opcode")
            if on_error is None:
                raise err
            on_error(err)
            continue
        acd = ops.get("acd")
        pv = ops.get("pv") or []
        c2 = ops.get("c2")
        plies = None
        if c2 is not None:
            try:
                plies = int(str(c2))
            except ValueError:
                plies = None
        result = ops.get("c9")
        yield Label(rec.board, int(ce), int(acd) if isinstance(acd, int | float) else 0,
                    list(pv) if isinstance(pv, list) else [],
                    str(result) if result is not None else None,
                    str(ops["id"]) if "id" in ops else None,
                    str(ops["c0"]) if "c0" in ops else None, plies)


class LabelWriter:
    """Appends labels to a file, flushing every ``flush_every`` lines (and on close).

    Opening an existing file first truncates a partial last line (a run killed mid-write), so that a
    resumed run appends after the last complete label.
    """

    def __init__(self, path: str | Path, header: str | None = None, flush_every: int = 50,
                 cap: int = DEFAULT_CAP) -> None:
        self.path = Path(path)
        self.cap = cap
        self.flush_every = flush_every
        self._pending = 0
        repair_partial_line(self.path)
        new = not self.path.exists() or self.path.stat().st_size == 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        if new and header:
            for line in header.splitlines():
                self._fh.write(f"# {line}\n")
            self._fh.flush()

    def write(self, label: Label) -> None:
        self.write_line(label.to_epd(self.cap))

    def write_line(self, epd: str) -> None:
        """Append one finished EPD line (no newline)."""
        self._fh.write(epd + "\n")
        self._pending += 1
        if self._pending >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        """Hand buffered lines to the operating system: they survive the process being killed."""
        self._fh.flush()
        self._pending = 0

    def close(self) -> None:
        if not self._fh.closed:
            self.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()

    def __enter__(self) -> LabelWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def repair_partial_line(path: Path) -> bool:
    """Cut a trailing line that lacks its newline; True when something was cut."""
    if not path.exists():
        return False
    with open(path, "rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return False
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return False
        # Walk back to the last newline.
        pos = size - 1
        chunk = 4096
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            data = fh.read(pos - start)
            i = data.rfind(b"\n")
            if i >= 0:
                fh.truncate(start + i + 1)
                return True
            pos = start
        fh.truncate(0)
        return True


def labelled_keys(path: str | Path) -> set[int]:
    """Position keys of the complete labels already in ``path`` (for ``--resume``)."""
    p = Path(path)
    if not p.exists():
        return set()
    repair_partial_line(p)
    return {label.key for label in read_labels(p, on_error=lambda err: None)}
