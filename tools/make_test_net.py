"""Write ``tests/data/material_net.npz``: a tiny net (a few KB) whose output is the material balance.

    python tools/make_test_net.py [--out tests/data/material_net.npz]

It exercises the numpy inference of ``organisms.net`` with weights a person can check by hand: the global
group's two units are ``relu(ours - theirs)`` and ``relu(theirs - ours)`` of the material in pawns (queen 9,
rook 5, bishop 3, knight 3, pawn 1; the count columns are queens/1, rooks/2, bishops/2, knights/2, pawns/8,
hence the weights 9, 10, 6, 6, 8), the piece and square groups have one unit each with zero weights, the
hidden layer copies the two units, and the output is their difference: the material balance in pawns, from
the side to move's view, times the scale of 100: centipawns.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from organisms.giraffe import GIRAFFE_FEATURE_NAMES
from organisms.net import expected_shapes, make_header, save_net

UNITS, HIDDEN = (2, 1, 1), 2
PAWNS_PER_COLUMN = {"queens": 9.0, "rooks": 10.0, "bishops": 6.0, "knights": 6.0, "pawns": 8.0}


def material_net() -> dict[str, np.ndarray]:
    arrays = {n: np.zeros(s, dtype=np.float32) for n, s in expected_shapes(UNITS, HIDDEN).items()}
    for piece, pawns in PAWNS_PER_COLUMN.items():
        ours, theirs = GIRAFFE_FEATURE_NAMES.index(f"our_{piece}"), GIRAFFE_FEATURE_NAMES.index(f"their_{piece}")
        arrays["w_global"][ours] = (pawns, -pawns)
        arrays["w_global"][theirs] = (-pawns, pawns)
    arrays["w_hidden"][0, 0] = arrays["w_hidden"][1, 1] = 1.0  # rows 2, 3 (piece, square units) stay 0
    arrays["w_out"][:, 0] = (1.0, -1.0)
    return arrays


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "tests" / "data" / "material_net.npz")
    args = ap.parse_args()
    header = make_header(UNITS, HIDDEN, 100.0, note="material balance in centipawns (tools/make_test_net.py)")
    save_net(args.out, material_net(), header)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
