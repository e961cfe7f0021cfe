"""A perspective net (:mod:`organisms.pnet`) as one file of raw little-endian integers, the ones its evaluator
computes with (:func:`organisms.pnet.integer_weights`), so that a reader in any language scores every position as
mimic does, to the centipawn. The layout, byte by byte, is docs/export.md's ("The perspective net file"); a
reference reader in plain Python (no numpy) is tools/pnet_reference.py.

Header (48 bytes): magic ``MIMICPNT``; uint32 version, inputs (768), units N, flags (bit 0: the PSQT path),
first-layer integer width in bytes (2 or 4), QA (255), QA_OUT (1024), the evaluation limit (10000 cp); float64
scale (centipawns per output unit). Then the arrays: ``b_in`` (N) and ``w_in`` (768 x N, input-major) as int16
when every first-layer integer fits, else int32; ``w_out`` (2N int32: the side to move's accumulator first),
``b_out`` (one int32), ``w_psqt`` (768 int32, when flag bit 0 is set); then uint32 M and M bytes of UTF-8 JSON
(where the net came from: informative, no reader needs it). Nets with hidden layers compute them in float32 and
have no integer form: they are refused.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np

from organisms.net import EVAL_LIMIT
from organisms.pnet import N_INPUTS, QA, QA_OUT, PNet, integer_weights
from search.runtime.errors import InputError

MAGIC = b"MIMICPNT"
VERSION = 1
HEADER = struct.Struct("<8s8Id")
"""magic, version, inputs, units, flags, first-layer width, QA, QA_OUT, evaluation limit, scale: 48 bytes."""
FLAG_PSQT = 1
INT16 = (-(1 << 15), (1 << 15) - 1)
INT32 = (-(1 << 31), (1 << 31) - 1)


def first_layer_width(ints: dict[str, np.ndarray]) -> int:
    """2 when every first-layer integer (``w_in``, ``b_in``) fits an int16, else 4 (bytes per integer)."""
    low = min(int(ints["w_in"].min()), int(ints["b_in"].min()))
    high = max(int(ints["w_in"].max()), int(ints["b_in"].max()))
    return 2 if INT16[0] <= low and high <= INT16[1] else 4


def _little(a: np.ndarray, width: int, name: str) -> bytes:
    """``a`` flattened (C order) as little-endian signed integers of ``width`` bytes; a value out of range is a bug
    (the net file's weight limit keeps every integer within int32)."""
    low, high = INT16 if width == 2 else INT32
    if a.size and (int(a.min()) < low or int(a.max()) > high):
        raise AssertionError(f"{name} does not fit {8 * width}-bit integers")
    return np.ascontiguousarray(a, dtype="<i2" if width == 2 else "<i4").tobytes()


def pnet_bytes(net: PNet, metadata: dict[str, Any] | None = None) -> bytes:
    """The export of ``net`` (module docstring): header, arrays, then ``metadata`` as JSON (with the net's own
    header, its training curve left out). ``InputError`` naming the net's file for a net with hidden layers."""
    if net.hidden:
        raise InputError(f"{net.source}: a net with hidden layers ({', '.join(map(str, net.hidden))}) computes them "
                         "in float32 and has no integer export; only nets without hidden layers export")
    ints = integer_weights(net.arrays, net.hidden)
    width = first_layer_width(ints)
    flags = FLAG_PSQT if net.psqt else 0
    parts = [HEADER.pack(MAGIC, VERSION, N_INPUTS, net.units, flags, width, QA, QA_OUT, EVAL_LIMIT, net.scale),
             _little(ints["b_in"], width, "b_in"), _little(ints["w_in"], width, "w_in"),
             _little(ints["w_out"], 4, "w_out"), _little(ints["b_out"], 4, "b_out")]
    if net.psqt:
        parts.append(_little(ints["w_psqt"], 4, "w_psqt"))
    header = {k: v for k, v in net.header.items() if k != "curve"}
    meta = json.dumps({**(metadata or {}), "net_header": header}, sort_keys=True).encode("utf-8")
    parts += [struct.pack("<I", len(meta)), meta]
    return b"".join(parts)

