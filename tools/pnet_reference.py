"""A reference reader of ``mimic export``'s perspective-net file, in plain Python (the standard library only: no
numpy, nothing of mimic's). It reads only the exported file and a position's FEN, and scores the position as
mimic's engine does (``PNet.evaluate``), to the centipawn; docs/export.md gives the file's layout byte by byte and
the arithmetic below step by step, so a reader in C or Rust follows the same lines.

    python tools/pnet_reference.py NET.bin FEN ...          one score a line
    python tools/pnet_reference.py NET.bin --epd FILE.epd   one score per EPD line (after the FENs' scores, if any)

Scores are centipawns from the side to move's point of view.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from array import array
from operator import add, mul
from typing import Any

MAGIC = b"MIMICPNT"
HEADER = struct.Struct("<8s8Id")  # magic, 8 x uint32, float64 scale: 48 bytes
PIECES = "pnbrqk"  # piece type 0-5: pawn, knight, bishop, rook, queen, king


class NetFormatError(ValueError):
    """The file is not a whole version-1 export: names the file and what is wrong."""


def _ints(data: bytes, offset: int, count: int, width: int) -> tuple[list[int], int]:
    """``count`` little-endian signed integers of ``width`` bytes from ``offset``, and the offset after them."""
    a = array("h" if width == 2 else "i")  # C short and int: 2 and 4 bytes wherever CPython runs
    assert a.itemsize == width
    end = offset + count * width
    a.frombytes(data[offset:end])
    if sys.byteorder == "big":
        a.byteswap()
    return a.tolist(), end


class ReferenceNet:
    """An exported perspective net (docs/export.md): ``evaluate(fen)`` in centipawns, side to move's view."""

    def __init__(self, data: bytes, source: str = "<net>") -> None:
        if len(data) < HEADER.size:
            raise NetFormatError(f"{source}: {len(data)} bytes is shorter than the {HEADER.size}-byte header")
        magic, version, inputs, units, flags, width, qa, qa_out, limit, scale = HEADER.unpack_from(data)
        if magic != MAGIC:
            raise NetFormatError(f"{source}: not a mimic perspective-net export (magic {magic!r})")
        if version != 1 or inputs != 768 or width not in (2, 4) or flags & ~1 or not 0 < units <= 1 << 14:
            raise NetFormatError(f"{source}: version {version}, inputs {inputs}, units {units}, flags {flags}, "
                                 f"width {width}: this reader reads version 1, 768 inputs, width 2 or 4")
        self.units, self.qa, self.limit = units, qa, limit
        self.unit = scale / (qa * qa_out)  # centipawns per integer of the output (one division, as mimic)
        psqt = bool(flags & 1)
        size = HEADER.size + 769 * units * width + 4 * (2 * units + 1) + (3072 if psqt else 0) + 4
        if len(data) < size:
            raise NetFormatError(f"{source}: {len(data)} bytes, the header's net needs at least {size}")
        self.b_in, at = _ints(data, HEADER.size, units, width)
        w_in, at = _ints(data, at, 768 * units, width)
        self.w_in = [w_in[i * units:(i + 1) * units] for i in range(768)]
        self.w_out, at = _ints(data, at, 2 * units, 4)
        (self.b_out,), at = _ints(data, at, 1, 4)
        self.w_psqt, at = _ints(data, at, 768, 4) if psqt else ([0] * 768, at)
        (meta_len,) = struct.unpack_from("<I", data, at)
        if len(data) != at + 4 + meta_len:
            raise NetFormatError(f"{source}: {len(data)} bytes, the header and metadata length say {at + 4 + meta_len}")
        self.metadata: dict[str, Any] = json.loads(data[at + 4:].decode("utf-8"))

    @classmethod
    def load(cls, path: str) -> ReferenceNet:
        with open(path, "rb") as fh:
            return cls(fh.read(), path)

    def evaluate(self, fen: str) -> int:
        """Centipawns from the side to move's view of the position ``fen`` (its placement and side to move)."""
        fields = fen.split()
        if len(fields) < 2 or fields[1] not in ("w", "b"):
            raise ValueError(f"not a FEN (placement, then w or b): {fen!r}")
        white_to_move = fields[1] == "w"
        pieces = []  # (White's piece, type 0-5, square a1=0 .. h8=63)
        for rank_from_top, row in enumerate(fields[0].split("/")):
            file = 0
            for c in row:
                if c.isdigit():
                    file += int(c)
                    continue
                pieces.append((c.isupper(), PIECES.index(c.lower()), 8 * (7 - rank_from_top) + file))
                file += 1
        qa = self.qa
        clipped, psqt = [], []
        for white_side in (white_to_move, not white_to_move):  # the side to move's perspective first
            acc, ps = self.b_in, 0
            for white_piece, kind, square in pieces:
                ours = white_piece == white_side
                i = (0 if ours else 384) + 64 * kind + (square if white_side else square ^ 56)
                acc = list(map(add, acc, self.w_in[i]))
                ps += self.w_psqt[i]
            clipped += [0 if a < 0 else qa if a > qa else a for a in acc]
            psqt.append(ps)
        dot = sum(map(mul, clipped, self.w_out)) + self.b_out
        out = (dot + (psqt[0] - psqt[1]) / 2) * self.unit
        return round(min(max(out, -self.limit), self.limit))  # round half to even, as Python's round


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Score positions with an exported perspective net (plain Python).")
    p.add_argument("net", help="the file mimic export wrote from a pnet .npz")
    p.add_argument("fens", nargs="*", help="positions (quote each FEN)")
    p.add_argument("--epd", help="score every line of this EPD file instead")
    args = p.parse_intermixed_args(argv)
    try:
        net = ReferenceNet.load(args.net)
    except (OSError, ValueError) as exc:
        print(f"pnet_reference: {exc}", file=sys.stderr)
        return 2
    fens = list(args.fens)
    if args.epd:
        with open(args.epd, encoding="utf-8") as fh:
            fens += [" ".join(line.split()[:2]) for line in fh if line.strip()]
    for fen in fens:
        print(net.evaluate(fen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
