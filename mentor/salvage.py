"""Repair a damaged label file keeping every readable line (``mimic label --out FILE --repair``).

``--resume`` refuses a gzip label file damaged anywhere but the torn end a killed run leaves
(:class:`mentor.labels.DamagedLabelFile`), and changes nothing. :func:`salvage_label_file` then rewrites it with
every line that can still be read: each whole gzip member byte for byte, and of each damaged stretch
(:func:`search.formats.gz.recover`: what its members decompress to before the damage) every whole line that parses
as a label, written as a new member in its place. Lines keep their order. The damaged file is kept beside it as
``FILE.damaged`` (a hard link, else a copy), and the new one is written atomically, so nothing is lost whatever
happens. A plain label file needs no repair: ``--resume`` cuts only a torn last line, and a malformed line is
skipped (and counted) wherever the file is read. May import ``mentor.labels`` and ``search/``.
"""

from __future__ import annotations

import os
import shutil
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from mentor.labels import check_kind, parse_label
from search.formats import gz
from search.formats.epd import EpdError
from search.runtime.atomic import atomic_path
from search.runtime.errors import InputError

BACKUP = ".damaged"
"""The suffix of the damaged file kept beside the repaired one."""


@dataclass
class Salvage:
    """What a repair kept: ``whole`` lines of ``members`` whole gzip members, ``recovered`` lines of the damaged
    stretches (starting at the byte offsets ``damaged``), ``dropped`` lines of them that could not be read (cut
    by the damage, or not a label); ``backup`` the damaged file kept."""

    path: Path
    members: int = 0
    whole: int = 0
    recovered: int = 0
    dropped: int = 0
    damaged: list[int] = field(default_factory=list)
    backup: Path | None = None

    def lines(self) -> list[str]:
        if not self.damaged:
            return [f"{self.path}: every gzip member is whole: nothing to repair"]
        at = ", ".join(str(o) for o in self.damaged)
        return [f"{self.path}: kept {self.whole + self.recovered} lines: {self.whole} of {self.members} whole gzip "
                f"members, {self.recovered} read from the damaged stretch{'es' if len(self.damaged) > 1 else ''} at "
                f"byte {at} ({self.dropped} begun there could not be read, and what follows the damage in a member "
                "is lost)",
                f"the damaged file is kept as {self.backup}; `--resume` now continues the repaired one"]


def _readable(text: bytes, path: Path) -> tuple[list[bytes], int]:
    """The whole lines of ``text`` (one damaged member's bytes before the damage) that parse as labels, and how many
    lines begun in it do not (a last line without its newline is cut by the damage)."""
    kept: list[bytes] = []
    dropped = 0
    *whole, last = text.split(b"\n")
    dropped += bool(last)
    for raw in whole:
        if not raw.strip():
            continue
        try:
            parse_label(raw.decode("utf-8"), path)
        except (EpdError, UnicodeDecodeError, ValueError):
            dropped += 1
            continue
        kept.append(raw + b"\n")
    return kept, dropped


def salvage_label_file(path: str | Path) -> Salvage:
    """Repair the label file ``path`` keeping every readable line (see the module docstring); what it kept. A plain
    file, or a gzip file whose members are all whole, is left alone. :class:`InputError` when the file is missing,
    or ``FILE.damaged`` is already there (nothing is changed)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no label file to repair")
    check_kind(path)
    report = Salvage(path)
    if not gz.is_gzip(path):
        raise InputError(f"{path}: a plain label file needs no repair (--resume cuts only a torn last line; a "
                         "malformed line is skipped and counted wherever the file is read)")
    regions = list(gz.regions(path))
    if all(r.problem is None for r in regions):
        report.members = len(regions)
        return report
    backup = path.with_name(path.name + BACKUP)
    if backup.exists():
        raise InputError(f"{path}: {backup} is already there: move it away, then repair again")
    with atomic_path(path) as tmp, open(tmp, "wb") as out, open(path, "rb") as src:
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
        try:
            os.link(path, backup)
        except OSError:
            shutil.copy2(path, backup)
    report.backup = backup
    return report
