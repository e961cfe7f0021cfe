"""Repair a damaged label file keeping every readable line (``mimic label --out FILE --repair``).

``--resume`` refuses a label file damaged anywhere but the torn end a killed run leaves
(:class:`mentor.labels.DamagedLabelFile`), and changes nothing. :func:`salvage_label_file` then rewrites it with
every line that can still be read. A gzip file keeps each whole member byte for byte and, of each damaged stretch
(:func:`search.formats.gz.recover`: what its members decompress to before the damage), every whole line that parses
as a label, written as a new member in its place. A plain file (one with NUL bytes, say) keeps every line that
parses as a label, and its ``#`` header lines; the others, and a last line without its newline, are dropped and
counted. Lines keep their order. The damaged file is kept beside it as ``FILE.damaged`` (a hard link, else a copy),
and the new one is written atomically, so nothing is lost whatever happens. May import ``mentor.labels`` and
``search/``.
"""

from __future__ import annotations

import codecs
import os
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from mentor.labels import check_kind, parse_label
from search.formats import gz
from search.formats.epd import EpdError
from search.runtime.atomic import atomic_path
from search.runtime.errors import InputError

BACKUP = ".damaged"
"""The suffix of the damaged file kept beside the repaired one."""


@dataclass
class Salvage:
    """What a repair kept: ``whole`` lines (of ``members`` whole gzip members; of a plain file, every line that reads
    as a label), ``recovered`` lines of the damaged gzip stretches (starting at the byte offsets ``damaged``),
    ``dropped`` lines that could not be read (cut by the damage, or not a label); ``backup`` the damaged file kept,
    ``None`` when nothing needed repair."""

    path: Path
    gzip: bool = True
    members: int = 0
    whole: int = 0
    recovered: int = 0
    dropped: int = 0
    damaged: list[int] = field(default_factory=list)
    backup: Path | None = None

    def lines(self) -> list[str]:
        if self.backup is None:
            return [f"{self.path}: " + ("every gzip member is whole" if self.gzip else "every line reads as a label")
                    + ": nothing to repair"]
        if self.gzip:
            at = ", ".join(str(o) for o in self.damaged)
            kept = (f"kept {self.whole + self.recovered} lines: {self.whole} of {self.members} whole gzip members, "
                    f"{self.recovered} read from the damaged stretch{'es' if len(self.damaged) > 1 else ''} at byte "
                    f"{at} ({self.dropped} begun there could not be read, and what follows the damage in a member is "
                    "lost)")
        else:
            kept = f"kept {self.whole} lines, dropped {self.dropped} that do not read as labels"
        return [f"{self.path}: {kept}",
                f"the damaged file is kept as {self.backup}; `--resume` now continues the repaired one"]


def _is_label(raw: bytes, path: Path) -> bool:
    """Whether the line ``raw`` (without its newline) parses as a label."""
    try:
        parse_label(raw.decode("utf-8").strip().lstrip("\ufeff"), path)
    except (EpdError, UnicodeDecodeError, ValueError):
        return False
    return True


def _readable(text: bytes, path: Path) -> tuple[list[bytes], int]:
    """The whole lines of ``text`` that parse as labels (with their newlines), and how many lines begun in it do not
    (a last line without its newline is cut: by the damage, or by a killed run); ``#`` lines are kept, blank lines
    left out."""
    kept: list[bytes] = []
    *whole, last = text.split(b"\n")
    dropped = int(bool(last.strip()))
    for raw in whole:
        if not raw.strip():
            continue
        if raw.lstrip().startswith(b"#") or _is_label(raw, path):
            kept.append(raw + b"\n")
        else:
            dropped += 1
    return kept, dropped


def _replace(path: Path, write: Callable[[BinaryIO], object], report: Salvage) -> None:
    """Keep ``path`` as ``FILE.damaged`` and put what ``write(out)`` writes in its place, atomically."""
    backup = path.with_name(path.name + BACKUP)
    with atomic_path(path) as tmp, open(tmp, "wb") as out:
        write(out)
        try:
            os.link(path, backup)
        except OSError:
            shutil.copy2(path, backup)
    report.backup = backup


def salvage_label_file(path: str | Path) -> Salvage:
    """Repair the label file ``path`` keeping every readable line (see the module docstring); what it kept. A file
    with nothing to repair is left alone. :class:`InputError` when the file is missing, ``FILE.damaged`` is already
    there, or a plain file is UTF-16 or UTF-32 (nothing is changed)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no label file to repair")
    check_kind(path)
    backup = path.with_name(path.name + BACKUP)
    if backup.exists():
        raise InputError(f"{path}: {backup} is already there: move it away, then repair again")
    if not gz.is_gzip(path):
        return _salvage_plain(path)
    report = Salvage(path)
    regions = list(gz.regions(path))
    if all(r.problem is None for r in regions):
        report.members = len(regions)
        return report

    def write(out: BinaryIO) -> None:
        with open(path, "rb") as src:
            for region in regions:
                src.seek(region.start)
                if region.problem is None:
                    raw = src.read(region.end - region.start)
                    out.write(raw)
                    report.members += 1
                    report.whole += zlib.decompress(raw, wbits=31).count(b"\n")
                    continue
                report.damaged.append(region.start)
                kept: list[bytes] = []
                for text in gz.recover(path, region):
                    lines, dropped = _readable(text, path)
                    kept += lines
                    report.dropped += dropped
                if kept:
                    out.write(gz.member(b"".join(kept)))
                report.recovered += len(kept)

    _replace(path, write, report)
    return report


def _salvage_plain(path: Path) -> Salvage:
    """:func:`salvage_label_file` of a plain (UTF-8) file: every line that reads as a label, and ``#`` lines."""
    report = Salvage(path, gzip=False)
    with open(path, "rb") as fh:
        data = fh.read()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # the UTF-32 LE mark begins with UTF-16 LE's
        raise InputError(f"{path}: a UTF-16 or UTF-32 file: save it as UTF-8, then repair it")
    kept, report.dropped = _readable(data, path)
    report.whole = len(kept)
    if report.dropped:
        _replace(path, lambda out: out.write(b"".join(kept)), report)
    return report
