"""The export formats by name (``mimic export --format``), and :func:`export_file`: a source file (an organism or
a perspective net, told by its first bytes) read through mimic's checked readers and written in a format.

Each entry of :data:`FORMATS` is the kind of source it takes and (an organism's formats) the function that writes
it; the command line takes its choices from this table, and nothing else switches on the names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evolve.export.c_source import c_source
from evolve.export.json_export import json_text
from evolve.export.organism import TABLE_LAYOUTS, OrganismTables, organism_tables
from evolve.export.pnet import pnet_bytes
from evolve.export.rust_source import rust_source
from organisms import Organism
from organisms.pnet import PNet
from search.runtime.errors import InputError, SettingsError
from search.runtime.files import open_regular, sha256_of
from search.runtime.provenance import mimic_version

ORGANISM, NET = "organism", "pnet"
ZIP_MAGIC = b"PK\x03\x04"
"""A net file is an ``.npz``, a zip archive; an organism file is JSON text."""


@dataclass(frozen=True)
class Format:
    """An export format: the kind of source it takes, its help, and for an organism's formats the writer of its text
    (a net's one format is bytes, :func:`evolve.export.pnet.pnet_bytes`)."""

    kind: str
    help: str
    write: Callable[[OrganismTables, str], str] | None = None

    @property
    def text(self) -> bool:
        """Whether the export is text (else bytes)."""
        return self.write is not None


FORMATS: dict[str, Format] = {
    "c": Format(ORGANISM, "an organism as C99: named constants, tables, an evaluation function", c_source),
    "rust": Format(ORGANISM, "an organism as Rust: named constants, tables, an evaluation function", rust_source),
    "json": Format(ORGANISM, "an organism as JSON of a documented structure (docs/export.md)", json_text),
    "bin": Format(NET, "a perspective net as raw little-endian integers (docs/export.md)"),
}
DEFAULT_FORMAT = {ORGANISM: "c", NET: "bin"}
"""The format of each kind of source when none is named."""


@dataclass(frozen=True)
class Export:
    """An export: its bytes or text, the kind of source and the format."""

    data: str | bytes
    kind: str
    format: str
    summary: str
    """One line: what was exported (for the command's report)."""


def source_kind(path: str | Path) -> str:
    """The kind of source file ``path`` is, told by its first bytes: a net is a zip archive; anything else is read as
    an organism. ``InputError`` naming it when it is not a regular file or cannot be opened."""
    try:
        with open_regular(path, "organism or net file", error=InputError) as fh:
            head = fh.read(len(ZIP_MAGIC))
    except OSError as exc:
        raise InputError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    return NET if head == ZIP_MAGIC else ORGANISM


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of the bytes of ``path`` (a file its reader has already checked)."""
    return sha256_of(path, "organism or net file", error=InputError)


def export_file(path: str | Path, fmt: str | None = None, layout: str | None = None) -> Export:
    """``path`` (an organism file or a pnet file) in format ``fmt`` (default: :data:`DEFAULT_FORMAT` of its kind) and,
    for an organism, table ``layout`` (``mimic`` by default, or ``pesto``). ``InputError`` naming the file for a
    file that cannot be read or is not one of these (the organism and net readers' own errors name what is wrong);
    ``SettingsError`` for a format or layout that does not fit the source."""
    kind = source_kind(path)
    fmt = fmt or DEFAULT_FORMAT[kind]
    if fmt not in FORMATS:
        raise SettingsError(f"--format {fmt}: unknown (one of {', '.join(FORMATS)})")
    if FORMATS[fmt].kind != kind:
        takes = ", ".join(f for f, spec in FORMATS.items() if spec.kind == kind)
        raise SettingsError(f"--format {fmt} exports {FORMATS[fmt].kind} files, and {path} is a {kind} file "
                            f"(its formats: {takes})")
    if kind == NET:
        if layout is not None:
            raise SettingsError(f"--layout is for organisms' tables; {path} is a net file")
        net = PNet.load(path)
        blob = pnet_bytes(net, {"source": str(path), "source_sha256": file_sha256(path), "mimic": mimic_version()})
        members = net.header.get("members")
        mean = f", the mean of {len(members)} nets" if isinstance(members, list) and members else ""
        return Export(blob, kind, fmt, f"{path}: a perspective net of {net.units} units{mean}, "
                                       f"{'with' if net.psqt else 'without'} the PSQT path, {len(blob)} bytes")
    layout = layout or TABLE_LAYOUTS[0]
    if layout not in TABLE_LAYOUTS:
        raise SettingsError(f"--layout {layout}: unknown (one of {', '.join(TABLE_LAYOUTS)})")
    organism = Organism.load(path)
    write = FORMATS[fmt].write
    assert write is not None
    text = write(organism_tables(organism, str(path), file_sha256(path)), layout) + "\n"
    what = (f"a {organism.layout} organism" if organism.genome.layout is None else
            f"an organism of the user layout {organism.layout}")
    return Export(text, kind, fmt, f"{path}: {what} ({len(organism.genome)} genes) as {fmt}, {layout} layout")
