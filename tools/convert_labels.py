"""Convert old label files to standard EPD, their provenance into the sidecar's schema.

    python tools/convert_labels.py FILE.epd [FILE.epd ...]

Label files written before issue 10 began with ``#`` lines (the command and the mentor), which EPD
has no room for: ``chess.Board.from_epd`` raises on them. For each file this

1. moves the ``#`` lines into ``FILE.epd.json`` under ``legacy_header`` and rewrites the file with
   every other line unchanged, byte for byte (:func:`mentor.sidecar.convert_legacy`);
2. rewrites the sidecar's old run entries (``settings``/``summary``/``finished``) in the schema
   :func:`mentor.labeller.record_run` writes (:func:`mentor.sidecar.migrate_sidecar`). Nothing is
   invented: what the old entries did not record (the mentor's ``id name``, mimic's version and
   commit, UTC times) is ``null``; the old local finishing time is kept as ``finished_local``; the
   command is the header's first line;
3. checks that every line of the file parses with ``chess.Board.from_epd``.

Running it again on a converted file changes nothing. Exit status 1 when a file still holds a line
that is not EPD (named as ``FILE:LINE: reason``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess

from mentor.sidecar import convert_legacy, migrate_sidecar, read_sidecar, sidecar_path
from search.runtime.atomic import write_json_atomic


def convert(path: Path) -> list[str]:
    """Convert one label file and its sidecar; return the lines that are still not EPD."""
    moved = convert_legacy(path)
    side = read_sidecar(path)
    if side and side != migrate_sidecar(side, path.name):
        write_json_atomic(sidecar_path(path), migrate_sidecar(side, path.name))
    print(f"{path}: moved {len(moved)} '#' lines into {sidecar_path(path)}" if moved
          else f"{path}: no '#' lines")
    bad = []
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            try:
                chess.Board.from_epd(line)
            except ValueError as exc:
                bad.append(f"{path}:{no}: {exc}")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    bad: list[str] = []
    for path in args.files:
        try:
            bad += convert(path)
        except OSError as exc:
            print(f"convert_labels: {exc.filename}: {exc.strerror}", file=sys.stderr)
            return 2
    for line in bad[:10]:
        print(line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
