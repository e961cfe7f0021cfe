"""Numpy inference of a Giraffe-style evaluation net: the ``net:PATH.npz`` player's evaluator.

Imports chess, numpy and search's leaf modules (``search.runtime``) only (torch trains these nets in
``evolve.nets.giraffe``; playing needs none of it).

**The net** (after Matthew Lai's Giraffe, 2015; ``ann_builder.cpp``): the 363 Giraffe features
(:mod:`organisms.giraffe`) go into a first layer connected *per feature group* (global, piece-centric,
square-centric: each group's units see only that group's columns), then one fully connected hidden layer,
then one linear output. Both hidden layers are ReLU. A net with ``linear`` in its header adds a linear path from
the 363 features straight to the output (``w_linear``; not Giraffe's: its material counts then carry material
linearly at any imbalance, as the perspective net's PSQT path does). The output times ``scale`` is centipawns from
the side to move's view (the features are in that view already), rounded and clipped to :data:`EVAL_LIMIT`.

**The file** is one ``.npz`` (always read with ``allow_pickle=False``) holding ``header``, a JSON string, and the
float32 arrays ``w_global b_global w_piece b_piece w_square b_square w_hidden b_hidden w_out b_out`` (and
``w_linear``, (363, 1), with the linear path); a weight matrix is (inputs, units), so a layer is ``x @ w + b``. The
header names the format (:data:`FORMAT`, :data:`FORMAT_VERSION`), the feature set and its version (it must equal
:data:`~organisms.giraffe.GIRAFFE_FEATURE_VERSION`: a net trained on other features is refused), the architecture
(``groups``: name, first column, end column, units; ``hidden``; ``linear``, true or absent), ``scale`` (centipawns
per output unit), and whatever its writer records (training settings, provenance). Reading trusts nothing
(:func:`read_net_file`, the one reader of every net file, through :mod:`search.runtime.readback`): the header's size
and JSON nesting are bounded, widths are whole numbers in [1, :data:`MAX_WIDTH`], and each array's shape and dtype
are checked from its ``.npy`` header, against the architecture and the element cap, before it is read (issue 23).

A mean of nets (:func:`average_nets`; ``train-net --members``) is a net file like any other: its groups and hidden
layer are its members' side by side, the hidden weights block-diagonal, and its header lists the members' files.

For speed the three group layers are assembled, once, into one block-diagonal (363, units) matrix, so a
position costs three small matrix-vector products; positions are cached by the integers their features
depend on (:func:`~organisms.giraffe.giraffe_row`), in a bounded dictionary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np

from organisms.giraffe import GIRAFFE_FEATURE_VERSION, N_GIRAFFE, N_GLOBAL, N_PIECE, features_from_row, giraffe_row
from search.base import NativeForm
from search.runtime.atomic import atomic_path
from search.runtime.readback import NpzFile, ReadbackError, whole

FORMAT = "mimic-net"
FORMAT_VERSION = 1
KIND = "giraffe-eval"

FIXED = {"feature_set": "giraffe", "inputs": N_GIRAFFE, "activation": "relu", "output": "linear"}
"""The header's keys that name the net's inputs and activations: written by :func:`make_header`, checked on reading."""

GROUPS = (("global", 0, N_GLOBAL), ("piece", N_GLOBAL, N_GLOBAL + N_PIECE), ("square", N_GLOBAL + N_PIECE, N_GIRAFFE))
"""The feature groups of the first layer: (name, first column, end column) in the Giraffe feature order."""

DEFAULT_UNITS = (19, 44, 26)
"""First-layer units per group: Giraffe's multipliers (``ann_builder.cpp``, full net) applied to our groups:
the global group (counts, side to move, castling, kings: the game phase) passed through at 1.0x (19), the
piece-centric and square-centric groups at 0.2x, rounded up (216 -> 44, 128 -> 26)."""
DEFAULT_HIDDEN = 64
"""Units of the fully connected hidden layer (Giraffe's 64)."""
DEFAULT_SCALE = 100.0
"""Centipawns per output unit: the net is trained in pawns."""
EVAL_LIMIT = 10_000
"""The evaluation is clipped to +-this many centipawns, far inside the engine's mate scores (31,000+)."""
CACHE_SIZE = 1 << 16
"""Positions kept in an evaluator's cache; it is emptied when full (the engine keeps its own cache too)."""


class NetFileError(ReadbackError):
    """A net file that cannot be used: unreadable, another format or feature version, or wrong shapes."""


def expected_shapes(units: tuple[int, int, int], hidden: int, linear: bool = False) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a net with first-layer ``units`` per group and ``hidden`` units (and the linear
    path's ``w_linear`` with ``linear``)."""
    shapes: dict[str, tuple[int, ...]] = {}
    for (name, lo, hi), u in zip(GROUPS, units, strict=True):
        shapes[f"w_{name}"] = (hi - lo, u)
        shapes[f"b_{name}"] = (u,)
    shapes["w_hidden"] = (sum(units), hidden)
    shapes["b_hidden"] = (hidden,)
    shapes["w_out"] = (hidden, 1)
    shapes["b_out"] = (1,)
    if linear:
        shapes["w_linear"] = (N_GIRAFFE, 1)
    return shapes


def make_header(units: tuple[int, int, int] = DEFAULT_UNITS, hidden: int = DEFAULT_HIDDEN,
                scale: float = DEFAULT_SCALE, *, linear: bool = False, **extra: Any) -> dict[str, Any]:
    """A header for a net of this architecture (``linear``: the linear path; a net without it has no such key, as
    before the path existed); ``extra`` (training settings, provenance) is kept as given."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": KIND,
            "feature_version": GIRAFFE_FEATURE_VERSION, **FIXED,
            "groups": [[name, lo, hi, u] for (name, lo, hi), u in zip(GROUPS, units, strict=True)],
            "hidden": hidden, "scale": scale, **({"linear": True} if linear else {}), **extra}


def save_net(path: str | Path, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any]) -> None:
    """Write a net file after checking it: what :meth:`NetEvaluator.load` would refuse is not written."""
    net = NetEvaluator(arrays, header, source=str(path))
    write_net_file(path, net.arrays, header)


def write_net_file(path: str | Path, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any]) -> None:
    """Write ``header`` (as JSON) and ``arrays`` as one ``.npz``, beside ``path`` and then moved into place, so a
    net file is whole or absent (:func:`search.runtime.atomic.atomic_path`: fsynced, the temporary file removed on
    failure, the folder created; the one writer of every net file: evaluation net, comparator, move net)."""
    out: dict[str, Any] = dict(arrays)
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, header=np.array(json.dumps(dict(header), sort_keys=True)), **out)


MAX_HEADER_CHARS = 1 << 20
"""A net file's JSON header is at most this many characters (a real one is a few thousand)."""
MAX_WIDTH = 1 << 14
"""A layer of a net is at most this many units wide."""

ShapesOf = Callable[[dict[str, Any]], Mapping[str, tuple[int, ...]]]
"""What a reader of one kind of net file passes to :func:`read_net_file`: the header checked, the shape of
every array its architecture needs (a :class:`NetFileError` when the header is wrong)."""


def read_net_file(path: str | Path, shapes_of: ShapesOf | None = None, *,
                  error: type[NetFileError] | None = None, needs: str = "the header's architecture needs",
                  noun: str = "net file") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and header of a net file (or of a checkpoint in its format: ``noun`` and ``error`` name it);
    :class:`NetFileError` naming the file and what is wrong if it is not one. Read through
    :class:`search.runtime.readback.NpzFile`: every array's ``.npy`` header is checked before it is loaded (at most
    :data:`~search.runtime.readback.MAX_ARRAY_ELEMENTS` elements, no objects); with ``shapes_of``, only the arrays
    the header's architecture names are read, each of exactly its shape and of floats. The JSON header is one
    string of at most :data:`MAX_HEADER_CHARS` characters nested at most
    :data:`~search.runtime.readback.MAX_JSON_DEPTH` deep, and an object."""
    with NpzFile(path, noun, error=error or NetFileError, needs=needs) as npz:
        header = npz.json("header", MAX_HEADER_CHARS)
        wanted = dict(shapes_of(header)) if shapes_of is not None else dict.fromkeys(npz.names - {"header"})
        npz.require(wanted)
        return {n: npz.array(n, shape, kinds=None if shape is None else "f") for n, shape in wanted.items()}, header


def width(value: Any, what: str, source: str) -> int:
    """``value`` as a layer width: a whole number in [1, :data:`MAX_WIDTH`], else :class:`NetFileError`."""
    return whole(value, what, source, 1, MAX_WIDTH, error=NetFileError)


class NetEvaluator:
    """A Giraffe-style net as an Evaluator: ``evaluate(board)`` is centipawns from the side to move's view."""

    name = "net"

    def __init__(self, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any], source: str = "<net>") -> None:
        self.source = source
        self.header: dict[str, Any] = dict(header)
        self.units, self.hidden, self.scale, self.linear = _check_header(self.header, source)
        self.arrays = check_arrays(arrays, expected_shapes(self.units, self.hidden, self.linear), source)
        a = self.arrays
        w1 = np.zeros((N_GIRAFFE, sum(self.units)), dtype=np.float32)
        col = 0
        for (name, lo, hi), u in zip(GROUPS, self.units, strict=True):
            w1[lo:hi, col:col + u] = a[f"w_{name}"]
            col += u
        self.w1 = w1
        self.b1 = np.concatenate([a["b_global"], a["b_piece"], a["b_square"]])
        self.w2, self.b2 = a["w_hidden"], a["b_hidden"]
        self.w3, self.b3 = a["w_out"][:, 0].copy(), float(a["b_out"][0])
        self.w_lin = a["w_linear"][:, 0].copy() if self.linear else None
        self._cache: dict[tuple[int, ...], int] = {}

    @classmethod
    def load(cls, path: str | Path) -> NetEvaluator:
        """Read and check a net file (see the module docstring); :class:`NetFileError` names the file."""
        arrays, header = read_net_file(path, lambda h: _shapes(_check_header(h, str(path))))
        return cls(arrays, header, source=str(path))

    def native_form(self) -> NativeForm:
        """The net in the compiled core's form (kind ``giraffe``, :mod:`search.core.eval_giraffe`): ``wi`` its widths
        (global, piece and square units, hidden units, 1 with the linear path), ``wf`` the scale, the clip
        (:data:`EVAL_LIMIT`) and the output bias as float64, then each group's weights (inputs x units, row-major) and
        biases, the hidden layer's, the output weights and the linear path's, float32 packed two to a float64."""
        a = self.arrays
        parts = []
        for name in ("global", "piece", "square", "hidden"):
            parts += [a[f"w_{name}"].reshape(-1), a[f"b_{name}"]]
        parts.append(self.w3)
        if self.w_lin is not None:
            parts.append(self.w_lin)
        w = np.concatenate(parts).astype(np.float32)
        if w.size % 2:
            w = np.concatenate([w, np.zeros(1, np.float32)])
        wi = np.array([*self.units, self.hidden, int(self.linear)], dtype=np.int64)
        head = np.array([self.scale, float(EVAL_LIMIT), self.b3], dtype=np.float64)
        return NativeForm("giraffe", wi, np.concatenate([head, w.view(np.float64)]))

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The raw outputs (output units, not centipawns) of an (N, 363) feature matrix: (N,) float32."""
        x = np.asarray(x, dtype=np.float32)
        h = np.maximum(x @ self.w1 + self.b1, 0)
        h = np.maximum(h @ self.w2 + self.b2, 0)
        out = h @ self.w3 + self.b3
        if self.w_lin is not None:
            out = out + x @ self.w_lin
        return np.asarray(out, dtype=np.float32)

    def centipawns(self, x: np.ndarray) -> np.ndarray:
        """Centipawns (float, unrounded and unclipped) of an (N, 363) feature matrix."""
        return self.forward(x).astype(np.float64) * self.scale

    def evaluate(self, board: chess.Board) -> int:
        """Centipawns from the side to move's view, rounded and clipped to :data:`EVAL_LIMIT`."""
        row = giraffe_row(board)
        v = self._cache.get(row)
        if v is not None:
            return v
        x = features_from_row(*row)
        h = x @ self.w1 + self.b1
        np.maximum(h, 0, out=h)
        h = h @ self.w2 + self.b2
        np.maximum(h, 0, out=h)
        out = float(h @ self.w3) + self.b3
        if self.w_lin is not None:
            out += float(x @ self.w_lin)
        out *= self.scale
        v = round(min(max(out, -EVAL_LIMIT), EVAL_LIMIT))
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[row] = v
        return v


def average_nets(nets: Sequence[NetEvaluator]) -> tuple[dict[str, np.ndarray], float]:
    """The arrays and scale (cp per output unit) of one net whose output is the mean of ``nets``' outputs in
    centipawns (an ensemble played as one wider net, as :func:`organisms.pnet.average_pnets` for perspective nets):
    each group's first layers side by side (its units the sum of theirs), the hidden layers block-diagonal (each
    member's hidden units see only its own first-layer units; ``hidden`` the sum), each member's output weights and
    bias (and linear path) times ``scale_i / (n * scale)``, ``scale`` the members' mean scale. Exact up to float32
    rounding before the played score's rounding to a whole centipawn. ``ValueError`` without nets or when the mean is
    wider than a net file allows (:data:`MAX_WIDTH`)."""
    if not nets:
        raise ValueError("no nets to average")
    units = tuple(sum(n.units[g] for n in nets) for g in range(len(GROUPS)))
    hidden = sum(n.hidden for n in nets)
    if max(*units, hidden) > MAX_WIDTH:
        raise ValueError(f"the mean of {len(nets)} nets is {max(*units, hidden)} units wide, above a net file's "
                         f"{MAX_WIDTH}")
    scale = float(np.mean([n.scale for n in nets]))
    share = [n.scale / (len(nets) * scale) for n in nets]
    arrays: dict[str, np.ndarray] = {}
    for name, _, _ in GROUPS:
        arrays[f"w_{name}"] = np.concatenate([n.arrays[f"w_{name}"] for n in nets], axis=1)
        arrays[f"b_{name}"] = np.concatenate([n.arrays[f"b_{name}"] for n in nets])
    w_hidden = np.zeros((sum(units), hidden), dtype=np.float64)
    starts = np.cumsum([0, *units[:-1]])  # where each group's units begin in the mean's first layer
    done = [0] * len(GROUPS)  # the earlier members' units in each group
    col = 0
    for n in nets:
        row = 0  # this member's first-layer units: its groups' in order
        for g, u in enumerate(n.units):
            w_hidden[starts[g] + done[g]:starts[g] + done[g] + u, col:col + n.hidden] = n.w2[row:row + u]
            row += u
            done[g] += u
        col += n.hidden
    arrays["w_hidden"] = w_hidden
    arrays["b_hidden"] = np.concatenate([n.b2 for n in nets])
    arrays["w_out"] = np.concatenate([n.arrays["w_out"] * f for n, f in zip(nets, share, strict=True)])
    arrays["b_out"] = np.array([sum(n.b3 * f for n, f in zip(nets, share, strict=True))])
    if any(n.linear for n in nets):
        arrays["w_linear"] = sum((n.arrays["w_linear"].astype(np.float64) * f
                                  for n, f in zip(nets, share, strict=True) if n.linear), np.zeros((N_GIRAFFE, 1)))
    return {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}, scale


def check_format(header: Mapping[str, Any], source: str, kind: str, version_key: str, version: str,
                 inputs: str, retrain: str, fixed: Mapping[str, Any]) -> None:
    """The checks every net file's header passes first (the one home of them: evaluation net, perspective net,
    comparator, move net): format, ``kind``, format version, the version of the inputs it was trained on
    (``version_key`` must equal ``version``; ``inputs`` names them and ``retrain`` says what to do in the error),
    then every key of ``fixed`` (the kind's inputs and activations, which its ``make_header`` writes from the same
    mapping) present and equal to its value: a header that lacks one or names others is refused."""
    if header.get("format") != FORMAT or header.get("kind") != kind:
        raise NetFileError(f"{source}: not a {FORMAT} {kind} file (format {repr(header.get('format'))[:60]}, "
                           f"kind {repr(header.get('kind'))[:60]})")
    if header.get("format_version") != FORMAT_VERSION:
        raise NetFileError(f"{source}: net format version {repr(header.get('format_version'))[:60]}, this mimic "
                           f"reads {FORMAT_VERSION}")
    if header.get(version_key) != version:
        raise NetFileError(f"{source}: trained on {inputs} {repr(header.get(version_key))[:60]}, but this mimic "
                           f"computes {version!r}; {retrain}")
    for key, value in fixed.items():
        if key not in header:
            raise NetFileError(f"{source}: the header has no {key} (a {kind} net's is {value!r})")
        if header[key] != value or type(header[key]) is not type(value):
            raise NetFileError(f"{source}: the header's {key} is {repr(header[key])[:60]}, but a {kind} net's is "
                               f"{value!r}; {retrain}")


def _shapes(checked: tuple[tuple[int, int, int], int, float, bool]) -> dict[str, tuple[int, ...]]:
    """The arrays' shapes of a header :func:`_check_header` checked."""
    units, hidden, _, linear = checked
    return expected_shapes(units, hidden, linear)


def _check_header(header: Mapping[str, Any], source: str) -> tuple[tuple[int, int, int], int, float, bool]:
    check_format(header, source, KIND, "feature_version", GIRAFFE_FEATURE_VERSION, "features",
                 "retrain the net (mimic train-net)", FIXED)
    groups = header.get("groups")
    if (not isinstance(groups, list) or not all(isinstance(g, list) and len(g) == 4 for g in groups)
            or [tuple(g[:3]) for g in groups] != list(GROUPS)):
        raise NetFileError(f"{source}: the header's feature groups {repr(groups)[:200]} are not {list(GROUPS)} "
                           "(name, first column, end column), each with its units")
    units = (width(groups[0][3], "global units", source), width(groups[1][3], "piece units", source),
             width(groups[2][3], "square units", source))
    hidden = width(header.get("hidden"), "hidden", source)
    try:
        scale = float(header["scale"])
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise NetFileError(f"{source}: the header's scale is missing or not a number: {exc!r}") from exc
    if not np.isfinite(scale) or scale <= 0:
        raise NetFileError(f"{source}: the scale {scale} must be positive and finite")
    linear = header.get("linear", False)
    if not isinstance(linear, bool):
        raise NetFileError(f"{source}: the header's linear {repr(linear)[:60]} must be true or false")
    return units, hidden, scale, linear


def check_arrays(arrays: Mapping[str, np.ndarray], shapes: Mapping[str, tuple[int, ...]],
                 source: str) -> dict[str, np.ndarray]:
    """The arrays a header's architecture names, each of its shape, finite, as contiguous float32 (the one check
    of every net file's arrays: the evaluation net's and the comparator's); :class:`NetFileError` names the file."""
    missing = [n for n in shapes if n not in arrays]
    if missing:
        raise NetFileError(f"{source}: missing arrays {', '.join(missing)}")
    out: dict[str, np.ndarray] = {}
    for name, shape in shapes.items():
        a = np.asarray(arrays[name])
        if a.shape != shape:
            raise NetFileError(f"{source}: {name} has shape {a.shape}, the header's architecture needs {shape}")
        if a.dtype.kind != "f" or not np.all(np.isfinite(a)):
            raise NetFileError(f"{source}: {name} must hold finite floats")
        out[name] = np.ascontiguousarray(a, dtype=np.float32)
    return out
