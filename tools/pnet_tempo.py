"""A perspective net with T centipawns more for the side to move: its output bias raised by T / scale (the net's
output is from the side to move's view, so a constant there is a tempo bonus), everything else the same.

    python tools/pnet_tempo.py NET.npz T OUT.npz

An experiment on the learners' tempo (results/leaf-parity): the header keeps the source's and says what changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from organisms.pnet import PNet, save_pnet


def main() -> int:
    source, tempo, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    net = PNet.load(source)
    arrays = dict(net.arrays)
    arrays["b_out"] = (arrays["b_out"] + np.float32(tempo / net.scale)).astype(np.float32)
    save_pnet(out, arrays, {**net.header, "note": f"{source} with {tempo:+g} cp for the side to move (output bias)"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
