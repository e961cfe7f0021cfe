"""A label file with every score moved by LEAN centipawns against the labelled position's side to move.

    python tools/shift_labels.py LABELS OUT.epd --lean 40 [--lines N]

A depth-limited mentor's scores lean toward the side to move at the labelled position (benchmarks/leaf_parity.py,
results/leaf-parity: about 40 cp at Stockfish's depth 1, 10 at depth 8). The learners fit a label at the leaf of its
PV, with the sign set by the walk's parity, so the lean arrives as noise no static evaluation can see. Subtracting
it from the root's score (``ce``, side to move) removes it at every leaf, even walk or odd. Mate scores are kept.
Every other field of each line is kept as it is (read and written by :mod:`mentor.labels`; a malformed
line is named, skipped and counted); the first ``--lines`` lines only (all by default). Writes pure EPD
and OUT.json beside it (the source, the lean, the counts, provenance).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mentor.labels import EpdError, label_lines, parse_label
from search.runtime.atomic import write_json_atomic
from search.runtime.provenance import provenance


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels")
    ap.add_argument("out", type=Path)
    ap.add_argument("--lean", type=int, required=True, help="centipawns taken from every score (side to move)")
    ap.add_argument("--lines", type=int, default=None, help="the first N lines only")
    args = ap.parse_args()
    shifted = kept = skipped = 0
    tmp = args.out.with_name(args.out.name + ".tmp")
    with tmp.open("w") as out:
        for i, (line_no, line) in enumerate(label_lines(args.labels)):
            if args.lines is not None and i >= args.lines:
                break
            try:
                label = parse_label(line, args.labels, line_no)
            except EpdError as exc:  # named by file and line, skipped and counted
                skipped += 1
                if skipped <= 5:
                    print(exc, file=sys.stderr)
                continue
            if label.is_mate:
                kept += 1
            else:
                label = dataclasses.replace(label, ce=label.ce - args.lean)
                shifted += 1
            out.write(label.to_epd() + "\n")  # the label files' own writer: every other field as read
    tmp.replace(args.out)
    write_json_atomic(args.out.with_name(args.out.name + ".json"), {
        "source": args.labels, "lean_cp": args.lean, "lines": shifted + kept, "shifted": shifted,
        "kept (mates)": kept, "skipped (malformed)": skipped, "command": " ".join(sys.argv),
        "provenance": provenance()})
    print(f"{args.out}: {shifted} scores moved by -{args.lean} cp, {kept} mates kept, {skipped} malformed lines "
          "skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
