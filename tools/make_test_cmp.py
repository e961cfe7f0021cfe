"""Write ``tests/data/material_cmp.npz``: a tiny DeepChess comparator (a few KB) that orders positions by material.

    python tools/make_test_cmp.py [--out tests/data/material_cmp.npz]

It exercises the numpy inference of ``organisms.comparator`` with weights a person can check by hand. Pos2Vec is
one layer of two units: White's material and Black's material in pawns (pawn 1, knight 3, bishop 3, rook 5,
queen 9, king 0, on the piece bits of each colour; ReLU keeps them as they are). The top is one linear layer on
``[white(a), black(a), white(b), black(b)]``: output 0 is ``balance(a) - balance(b)`` and output 1 its opposite,
where ``balance`` is White's material minus Black's, in pawns. So ``d(a, b) = 2 (balance(a) - balance(b))``,
the played score is ``s(a, b) = 8 (balance(a) - balance(b))`` and ``better(a, b)`` is "a has the better
material balance for White".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from organisms.comparator import expected_shapes, make_header, save_comparator

POS2VEC, TOP = (773, 2), (4, 2)
PAWNS = (1.0, 3.0, 3.0, 5.0, 9.0, 0.0)
"""Pawns per piece type, in the bit order pawn, knight, bishop, rook, queen, king."""


def material_cmp() -> dict[str, np.ndarray]:
    arrays = {n: np.zeros(s, dtype=np.float32) for n, s in expected_shapes(POS2VEC, TOP).items()}
    for colour in range(2):
        for piece, pawns in enumerate(PAWNS):
            arrays["enc_w0"][colour * 384 + piece * 64: colour * 384 + (piece + 1) * 64, colour] = pawns
    arrays["top_w0"][:, 0] = (1.0, -1.0, -1.0, 1.0)
    arrays["top_w0"][:, 1] = (-1.0, 1.0, 1.0, -1.0)
    return arrays


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "tests" / "data" / "material_cmp.npz")
    args = ap.parse_args()
    header = make_header(POS2VEC, TOP, note="orders positions by material balance (tools/make_test_cmp.py)")
    save_comparator(args.out, material_cmp(), header)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
