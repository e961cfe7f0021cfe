"""How much a crowd's mentors disagree: the mean absolute difference between each pair of mentors' scores of the
same positions, in centipawns and in expected score, from a crowd's label file (``mimic label`` with several
``--mentor``: each mentor's score in ``c3``, their names in the sidecar).

    python tools/crowd_disagreement.py LABELS.epd[.gz] [--out disagreement.md]

Expected score: Stockfish 15.1's WDL model (python-chess's ``Cp(cp).wdl(model="sf15.1", ply=PLY).expectation()``),
the ply from the label's ``fmvn`` (64 when it has none, as mimic's win-probability loss reads it); a mate counts as
a win or a loss. Scores are from the side to move. Prints (and with ``--out`` writes) a Markdown table, one row per
pair of mentors, and the mean over the crowd of each mentor's difference from the crowd's score (``ce``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import chess.engine
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mentor.labels import read_labels  # noqa: E402
from search.conventions import ce_is_mate  # noqa: E402

UNKNOWN_PLY = 64


def expectation(cp: int, ply: int) -> float:
    """The side to move's expected score of a score (cp, or an EPD mate value) at ``ply``, by sf15.1's model."""
    if ce_is_mate(cp):
        return 1.0 if cp > 0 else 0.0
    return chess.engine.Cp(int(cp)).wdl(model="sf15.1", ply=ply).expectation()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labels")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    side = json.loads(Path(f"{args.labels}.json").read_text())
    crowd = side["runs"][-1].get("crowd")
    if crowd is None:
        print(f"{args.labels}: not a crowd's label file (its sidecar has no crowd)", file=sys.stderr)
        return 2
    names = [f"{m['id_name']} ({'depth ' + str(m['depth']) if m['depth'] else str(m['nodes']) + ' nodes'})"
             for m in crowd["mentors"]]
    cp_rows, p_rows = [], []
    for label in read_labels(args.labels, on_error=lambda err: None):
        if label.crowd is None or len(label.crowd) != len(names):
            continue
        ply = label.root_ply if label.root_ply is not None else UNKNOWN_PLY
        cp_rows.append([*label.crowd, label.ce])
        p_rows.append([expectation(v, ply) for v in (*label.crowd, label.ce)])
    cp, p = np.array(cp_rows, dtype=np.float64), np.array(p_rows)
    finite = ~np.vectorize(ce_is_mate)(cp).any(axis=1)
    lines = [f"# How much the crowd disagrees: {len(cp)} positions of {Path(args.labels).name}", "",
             "Mean absolute difference between two mentors' scores of the same positions (side to move). "
             f"Centipawns over the {int(finite.sum())} positions without a mate score; expected score over all, by "
             "Stockfish 15.1's WDL model at the label's ply.", "",
             "| mentor | mentor | cp | expected score |", "|---|---|---|---|"]
    for i, j in itertools.combinations(range(len(names)), 2):
        lines.append(f"| {names[i]} | {names[j]} | {np.abs(cp[finite, i] - cp[finite, j]).mean():.1f} | "
                     f"{np.abs(p[:, i] - p[:, j]).mean():.4f} |")
    for i, name in enumerate(names):
        lines.append(f"| {name} | the crowd (median) | {np.abs(cp[finite, i] - cp[finite, -1]).mean():.1f} | "
                     f"{np.abs(p[:, i] - p[:, -1]).mean():.4f} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
