"""EPD label files: one labelled position a line.

Opcodes (ARCHITECTURE.md, "Label file"): ``ce`` the mentor's score in centipawns from the side to move's view, ``acd``
the depth searched, ``pv`` the mentor's principal variation (SAN), ``c9`` the game's result when the
position comes from a game ("1-0", "0-1", "1/2-1/2"), ``id``. Also ``c0`` the position's source
(``random``, ``FILE:LINE``), ``c1`` a flag (``mate`` or ``over-cap``), ``c2`` the number of plies
from the position to the end of its game (for the game-result objective), and ``fmvn`` the move number when
known (read as :attr:`Label.fullmove`, for a win-probability model's ply).

A mate is written as ``ce ±(30000 − plies)`` (positive when the side to move mates), as EPD does;
any ``|ce| ≥ 29000`` is a mate. Scores beyond the cap (default 1500 cp) are kept and flagged; fitness
leaves them out.

A label file holds EPD lines only (every line parses with ``chess.Board.from_epd``). What EPD has no
room for, the provenance (the commands that made the file, their settings, the mentor's UCI ``id
name``, mimic's version and git commit), lives beside it in ``FILE.json`` (:func:`sidecar_path`).
Files written before that began with ``#`` lines: they still load (the lines are skipped, with one
warning per file) and :func:`convert_legacy` moves them into the sidecar's ``legacy_header``.

Whole files (the sidecar, a converted label file) are written through ``search.runtime.atomic``; a label
file grows by appending (:class:`LabelWriter`). On ``--resume`` (:func:`repair_label_file`) only what a killed run
left at the very end is cut (a torn last line or gzip member), and the run says how many lines that was (:class:`Cut`);
damage anywhere else is :class:`DamagedLabelFile`, the file untouched, and :mod:`mentor.salvage` repairs it keeping
every readable line. May import: chess and ``search/``.
"""

from __future__ import annotations

import errno
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import chess

from mentor.sidecar import sidecar_path
from search.conventions import ce_is_mate, legal_prefix
from search.formats import gz
from search.formats.epd import EpdError, epd_lines, parse_epd_line
from search.formats.textfile import EncodingError, detect_encoding
from search.runtime.errors import InputError
from search.tt import position_key

DEFAULT_CAP = 1500


@dataclass
class Label:
    """A labelled position. ``ce``: centipawns, side to move's view (mates as ``±(30000 − plies)``); ``pv`` legal
    from ``board`` (its makers check it: :func:`search.conventions.legal_prefix`, or SAN parsed from a file)."""

    board: chess.Board
    ce: int
    acd: int
    pv: list[chess.Move] = field(default_factory=list)
    result: str | None = None
    id: str | None = None
    source: str | None = None
    plies_to_end: int | None = None
    fullmove: int | None = None  # the EPD's fmvn (the labelled position's move number) when it has one
    crowd: tuple[int, ...] | None = None  # a crowd's label: each mentor's score (cp, side to move), in c3

    @property
    def root_ply(self) -> int | None:
        """The labelled position's ply from the game's start (0: White's first move), from ``fmvn``; ``None``
        when the label does not say (EPD drops the move counters unless ``fmvn`` is written)."""
        return None if self.fullmove is None else 2 * (self.fullmove - 1) + (self.board.turn == chess.BLACK)

    def quiet(self) -> bool:
        """Not in check, and the mentor's best move (the PV's first, when legal) neither a capture nor a
        promotion. A label without a PV is not quiet (its best move is unknown)."""
        first = legal_prefix(self.board, self.pv[:1])
        return (not self.board.is_check() and bool(first) and not self.board.is_capture(first[0])
                and first[0].promotion is None)

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
            ops["pv"] = self.pv  # legal: every label is made with a checked PV (legal_prefix, or parsed as SAN)
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
        if self.crowd is not None:
            ops["c3"] = " ".join(str(int(v)) for v in self.crowd)
        if self.fullmove is not None:
            ops["fmvn"] = int(self.fullmove)
        return self.board.epd(**ops)  # type: ignore[arg-type]


class LegacyHeaderWarning(UserWarning):
    """A label file still starts with ``#`` lines (mimic before issue 10); EPD has no comments."""


_WARNED: set[str] = set()


def _warn_legacy(path: str | Path, line_no: int) -> None:
    key = str(Path(path).resolve())
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(f"{path}:{line_no}: '#' lines are not EPD and were skipped; move them to {sidecar_path(path)} "
                  f"with: python tools/convert_labels.py {path}", LegacyHeaderWarning, stacklevel=3)


def label_lines(path: str | Path, on_error: Callable[[EpdError], None] | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line of a label file that may hold a label: blank lines are
    left out, ``#`` lines (old files' headers) too, with one :class:`LegacyHeaderWarning` per file.
    A file that cannot be decoded as text is reported once, as line 1, and yields nothing. The text is
    parsed by :func:`parse_label` (the two halves of :func:`read_labels`, so that a large file's lines
    can be parsed in chunks by worker processes)."""
    return epd_lines(path, on_error, on_comment=lambda line_no, _text: _warn_legacy(path, line_no))


def parse_label(text: str, path: str | Path = "<string>", line_no: int = 0) -> Label:
    """The label of one EPD line, or :class:`EpdError` (``FILE:LINE: reason``) when the line is not
    a position or has no numeric ``ce``."""
    rec = parse_epd_line(text, path, line_no)
    ops = rec.ops
    ce = ops.get("ce")
    if not isinstance(ce, int | float):
        raise EpdError(rec.path, rec.line_no, "no numeric ce (centipawn evaluation) opcode")
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
    fmvn = ops.get("fmvn")
    crowd = None
    if "c3" in ops:
        try:
            crowd = tuple(int(v) for v in str(ops["c3"]).split())
        except ValueError:
            raise EpdError(rec.path, rec.line_no, f"c3 must be the crowd's scores (integers), got {ops['c3']!r}") \
                from None
    return Label(rec.board, int(ce), int(acd) if isinstance(acd, int | float) else 0,
                 list(pv) if isinstance(pv, list) else [],
                 str(result) if result is not None else None,
                 str(ops["id"]) if "id" in ops else None,
                 str(ops["c0"]) if "c0" in ops else None, plies,
                 int(fmvn) if isinstance(fmvn, int) and fmvn >= 1 else None, crowd or None)


def read_labels(path: str | Path, on_error: Callable[[EpdError], None] | None = None) -> Iterator[Label]:
    """Labels of a file; a line without a numeric ``ce`` is reported as malformed (file:line).

    ``#`` lines (old files' headers) are skipped with one :class:`LegacyHeaderWarning` per file.
    """
    return parse_labels(label_lines(path, on_error), path, on_error)


def parse_labels(lines: Iterable[tuple[int, str]], path: str | Path,
                 on_error: Callable[[EpdError], None] | None = None) -> Iterator[Label]:
    """The labels of ``(line number, text)`` lines of ``path`` (:func:`label_lines`, or a chunk of them in a
    worker), in order; a malformed line goes to ``on_error`` and is skipped (raised without ``on_error``)."""
    for line_no, text in lines:
        try:
            yield parse_label(text, path, line_no)
        except EpdError as err:
            if on_error is None:
                raise
            on_error(err)


class LabelWriter:
    """Appends labels to a file, writing every ``flush_every`` lines (and on close).

    Opening an existing file first truncates a partial last line (a run killed mid-write), so that a
    resumed run appends after the last complete label. Lines are handed to the operating system
    whole, in one ``write`` per flush; when a write fails (disk full, file too large) the error is
    raised, nothing is retried and nothing more is written, so the file ends with complete labels and
    at most one partial line, which the next resume cuts.
    """

    def __init__(self, path: str | Path, flush_every: int = 50, cap: int = DEFAULT_CAP) -> None:
        self.path = Path(path)
        self.cap = cap
        self.flush_every = flush_every
        self._pending: list[str] = []
        if self.path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a label file", str(self.path))
        repair_label_file(self.path)  # also refuses a file whose name and bytes disagree on gzip
        self.gzip = gz.is_gzip_name(self.path)
        """Each flush is one gzip member (:mod:`search.formats.gz`) when the file's name ends with ``.gz``."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    def write(self, label: Label) -> None:
        self.write_line(label.to_epd(self.cap))

    def write_line(self, epd: str) -> None:
        """Append one finished EPD line (no newline)."""
        if "\n" in epd or "\r" in epd:
            raise ValueError(f"a label line may not contain a line break: {epd!r}")
        self._pending.append(epd + "\n")
        if len(self._pending) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        """Hand buffered lines to the operating system: they survive the process being killed."""
        if self._fd is None:
            if self._pending:
                raise OSError(errno.EBADF, "label file already closed", str(self.path))
            return
        data = "".join(self._pending).encode()
        self._pending = []
        if not data:
            return
        if self.gzip:
            data = gz.member(data)
        view = memoryview(data)
        try:
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
        except OSError as exc:
            fd, self._fd = self._fd, None
            os.close(fd)
            if exc.filename is None:
                exc.filename = str(self.path)
            raise

    def close(self) -> None:
        if self._fd is None:
            return
        self.flush()
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def __enter__(self) -> LabelWriter:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is not None and self._fd is not None:  # failing: keep what is written, add nothing
            self._pending = []
        self.close()


REPAIR = "mimic label --out {path} --repair"
"""The command that repairs a damaged label file keeping every readable line (:mod:`mentor.salvage`)."""


class DamagedLabelFile(InputError):
    """A label file damaged elsewhere than the torn end a killed run leaves (a changed byte, a gzip member cut short
    with others after it), or whose name and bytes disagree on gzip: one line naming it (and the damaged member's
    byte offset), the file untouched. Exit 2."""


@dataclass(frozen=True)
class Cut:
    """What resuming cut off the end of a label file: the torn last gzip member or line a run killed mid-write left
    (never acknowledged: the resumed run labels those positions again). ``offset``: the byte the file now ends at;
    ``lines``: the lines begun in what was cut (the whole ones and a partial one)."""

    path: str
    offset: int
    lines: int
    gzip: bool

    def note(self) -> str:
        what = "gzip member" if self.gzip else "line"
        return (f"resume: cut the torn last {what} of {self.path} at byte {self.offset} (a run killed mid-write): "
                f"{self.lines} line{'' if self.lines == 1 else 's'}, labelled again")


def check_kind(path: Path) -> None:
    """Refuse a non-empty label file whose name and bytes disagree on gzip (appending would mix plain lines and gzip
    members): :class:`DamagedLabelFile`."""
    if not path.is_file() or path.stat().st_size == 0 or gz.is_gzip(path) == gz.is_gzip_name(path):
        return
    if gz.is_gzip(path):
        raise DamagedLabelFile(f"{path}: gzip but not named .gz: rename it to {path.name}.gz to append to it")
    raise DamagedLabelFile(f"{path}: named .gz but not gzip (its first bytes are not gzip's magic number): rename it "
                           "without .gz to append to it as plain text")


def repair_label_file(path: Path) -> Cut | None:
    """Cut what a run killed mid-write left at the end of a label file, and say what (``None``: nothing): a torn last
    gzip member (a gzip file, :func:`search.formats.gz.check`) or a line without its newline (a plain one,
    :func:`repair_partial_line`). A gzip file damaged anywhere else, or whose name and bytes disagree on gzip
    (:func:`check_kind`), is :class:`DamagedLabelFile`, and nothing is changed."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return None
    check_kind(path)
    if not gz.is_gzip(path):
        try:  # NUL bytes near the start: no line can be read, and every position would be labelled again
            detect_encoding(path, "label file")
        except EncodingError as exc:
            raise DamagedLabelFile(f"{exc}; nothing was changed: `{REPAIR.format(path=path)}` keeps every line that "
                                   "reads as a label") from exc
        return Cut(str(path), path.stat().st_size, 1, False) if repair_partial_line(path) else None
    try:
        torn = gz.check(path)
    except gz.Damaged as exc:
        raise DamagedLabelFile(f"{exc}; nothing was changed: `{REPAIR.format(path=path)}` keeps every readable "
                               "line (docs/formats.md)") from exc
    if torn is None:
        return None
    text = b"".join(gz.recover(path, torn))
    with open(path, "rb+") as fh:
        fh.truncate(torn.start)
        os.fsync(fh.fileno())
    return Cut(str(path), torn.start, text.count(b"\n") + (not text.endswith(b"\n")), True)


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
    repair_label_file(p)
    return {label.key for label in read_labels(p, on_error=lambda err: None)}
