"""mimic export's exactness and cost (issue 40), on the committed positions of a label file:

    python benchmarks/export_exactness.py [--net results/pnet/pnet.npz] [--labels results/heldout-mixed/labels.epd]
                                          [--positions 1000] [--organism results/rich-stockfish/organism.json]

The net exported (``evolve.export``), read back by the plain-Python reference reader (tools/pnet_reference.py):
positions where its score differs from ``PNet.evaluate`` (goal: 0 cp on every one), and evaluations/s of both. The
organism exported as C in the pesto layout is PeSTO's integer arithmetic on whole-centipawn tables: with the
organism's positional terms and tempo set to zero (so that mimic's own score is material and tables alone), how far
PeSTO's arithmetic lands from mimic's score (the cost of rounding the tables and of PeSTO's truncating division).
Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.export.table import export_file
from organisms import Organism
from organisms.pnet import PNet

ROOT = Path(__file__).resolve().parents[1]
PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")


def _reader() -> type:
    spec = importlib.util.spec_from_file_location("pnet_reference", ROOT / "tools" / "pnet_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ReferenceNet  # type: ignore[no-any-return]


def pesto_score(d: dict, board: chess.Board) -> int:
    """PeSTO's evaluation with the JSON export's (pesto layout) tables, centipawns, side to move's view."""
    mg, eg, phase = [0, 0], [0, 0], 0
    for square, piece in board.piece_map().items():
        side, p = (0 if piece.color else 1), piece.piece_type - 1
        i = square ^ 56 if piece.color else square
        mg[side] += d["material"]["mg"][p] + d["piece_square"]["mg"][PIECES[p]][i]
        eg[side] += d["material"]["eg"][p] + d["piece_square"]["eg"][PIECES[p]][i]
        phase += (0, 1, 1, 2, 4, 0)[p]
    us, m = (0 if board.turn else 1), min(phase, 24)
    total = (mg[us] - mg[1 - us]) * m + (eg[us] - eg[1 - us]) * (24 - m)
    return abs(total) // 24 * (1 if total >= 0 else -1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--net", default=str(ROOT / "results/pnet/pnet.npz"))
    p.add_argument("--labels", default=str(ROOT / "results/heldout-mixed/labels.epd"))
    p.add_argument("--positions", type=int, default=1000)
    p.add_argument("--organism", default=str(ROOT / "results/rich-stockfish/organism.json"))
    args = p.parse_args()
    with open(args.labels, encoding="utf-8") as fh:
        boards = [chess.Board.from_epd(line)[0] for line, _ in zip(fh, range(args.positions), strict=False)]

    blob = export_file(args.net).data
    assert isinstance(blob, bytes)
    reference = _reader()(blob, "export")
    net = PNet.load(args.net)
    fens = [b.fen() for b in boards]
    t = time.perf_counter()
    theirs = [reference.evaluate(f) for f in fens]
    t_ref = time.perf_counter() - t
    t = time.perf_counter()
    ours = [net.evaluate(b) for b in boards]
    t_mimic = time.perf_counter() - t
    wrong = sum(a != b for a, b in zip(ours, theirs, strict=True))
    print(f"net {args.net}: {len(blob)} bytes exported; {len(boards)} positions of {args.labels}")
    print(f"  reference reader (plain Python) against PNet.evaluate: {wrong} positions differ, largest difference "
          f"{max(abs(a - b) for a, b in zip(ours, theirs, strict=True))} cp")
    print(f"  evaluations/s: reference reader {len(boards) / t_ref:,.0f}, mimic (numpy) {len(boards) / t_mimic:,.0f}")

    organism = Organism.load(args.organism)
    values = organism.values()
    keep = {"pawn", "knight", "bishop", "rook", "queen"}
    zeroed = Organism.from_weights({k: (v if k in keep or k.startswith("pst_") else 0.0) for k, v in values.items()},
                                   organism.genome)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "organism.json"
        zeroed.save(path)
        d = json.loads(export_file(path, "json", "pesto").data)
    gaps = [pesto_score(d, b) - zeroed.evaluate(b) for b in boards]
    print(f"organism {args.organism}, positional terms and tempo zeroed, pesto layout: PeSTO's score minus mimic's "
          f"over {len(boards)} positions: mean |gap| {statistics.mean(map(abs, gaps)):.2f} cp, largest "
          f"{max(map(abs, gaps))} cp, equal on {sum(g == 0 for g in gaps)}")


if __name__ == "__main__":
    main()
