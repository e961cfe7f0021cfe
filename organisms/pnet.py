"""Numpy inference of a perspective net (NNUE-style, issue 26): the ``pnet:PATH.npz`` player's evaluator.

Imports chess, numpy and search's leaf modules only (training, later, needs torch; playing needs none of it).

**The inputs** (:func:`feature_index`, :func:`pnet_inputs`): 768 = 2 colours x 6 piece types x 64 squares,
seen from one side's point of view (a *perspective*): the side's own pieces are "ours" (indices 0-383), the
other side's "theirs" (384-767); piece type pawn..king in that order, 64 squares each; Black's perspective
reads the board vertically flipped (square ``s ^ 56``), so both sides use the same first-layer weights. Castling
rights, en passant and the move counters are not inputs. :data:`PNET_FEATURE_VERSION` names this layout.

**The net**: ``(768 -> N) x 2 -> [hidden ...] -> 1``. The first layer (``w_in`` (768, N), ``b_in`` (N,)) is
shared by both perspectives; its two sums (the *accumulators*) are concatenated side to move first (2N), clamped
to [0, 1] (clipped ReLU), then optional fully connected layers, each clamped to [0, 1] too, then one linear
output. With ``psqt`` (header, default false) a linear path is added outside the clipped ReLU, Stockfish NNUE's
PSQT: one weight per input (``w_psqt`` (768,), in output units), summed over each perspective's active inputs
beside its accumulator, and ``(sum of the side to move - sum of the other side) / 2`` added to the output; it
carries material (and square values) linearly, however large the imbalance, where the clipped units saturate.
The output times ``scale`` (header; default 400) is centipawns from the side to move's view, rounded and
clipped to :data:`EVAL_LIMIT`. A position and its colour mirror (``board.mirror()``) have the same inputs for the
side to move, so they score the same: colour symmetry by construction.

**Arithmetic** (the weights are stored as float32; the evaluator quantises them once, on loading): first-layer
weights and biases become integers ``round(w * QA)`` (:data:`QA` = 255), the accumulators are int64 sums of them
(exact, in any order: the incremental accumulator equals a fresh one to the last bit), the clipped ReLU clamps to
[0, QA]. The PSQT weights become ``round(w * QA * QA_OUT)`` and their two sums ride in the accumulator's last two
columns (White's perspective, then Black's), so they are updated, and exact, with it. Without hidden layers the
output weights become ``round(w * QA_OUT)`` (:data:`QA_OUT` = 1024), the bias ``round(b * QA * QA_OUT)``, the output
an int64 dot product, times ``scale / (QA * QA_OUT)``; with hidden layers the clamped accumulators are divided by QA
and the rest is float32. Every weight must lie within +-:data:`WEIGHT_LIMIT` (no integer overflow).

**Incremental updates** (the engine's incremental-evaluator hook, :class:`search.base.IncrementalEvaluator`):
:meth:`PNet.refresh` computes both accumulators of the search's root, :meth:`PNet.push` (before the engine makes
a move) adds and subtracts the first-layer rows of the 2-4 inputs the move changes (castling, en passant,
promotion included; a null move keeps the accumulators), :meth:`PNet.pop` drops the top; :meth:`PNet.evaluate_current`
scores the accumulators on top. :meth:`PNet.evaluate` (any board, no state) computes them afresh.

**The file**: one ``.npz`` (``allow_pickle=False``, read through :func:`organisms.net.read_net_file`, hence
:mod:`search.runtime.readback`): ``header``, a JSON string (``format`` mimic-net, ``kind`` :data:`KIND`,
``feature_set``, ``feature_version``, ``inputs`` 768, ``units`` N, ``hidden`` (a list of widths, may be empty),
``activation``, ``output``, ``scale`` (centipawns per output unit), ``psqt`` (optional, false when absent), and
what its writer records: training settings, provenance), and the float32 arrays ``w_in b_in [w_h1 b_h1 ...] w_out
b_out [w_psqt]`` (a matrix is (inputs, units)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np

from organisms.net import (
    EVAL_LIMIT,
    FORMAT,
    FORMAT_VERSION,
    MAX_WIDTH,
    NetFileError,
    check_arrays,
    check_format,
    read_net_file,
    width,
    write_net_file,
)
from search.base import NativeForm

__all__ = ["KIND", "MAX_HIDDEN", "MAX_SCALE", "MAX_WIDTH", "N_INPUTS", "PNET_FEATURE_VERSION", "PNet",
           "average_pnets", "expected_shapes", "feature_index", "integer_weights", "make_header", "pnet_inputs",
           "random_pnet", "save_pnet"]

KIND = "pnet"
PNET_FEATURE_VERSION = "pnet-v1-768"
"""Names the input layout of the module docstring; a net's header must name it."""
N_INPUTS = 768
FIXED = {"feature_set": "perspective-768", "inputs": N_INPUTS, "activation": "clipped-relu", "output": "linear"}
"""The header's keys that name the net's inputs and activations: written by :func:`make_header`, checked on reading
(a file whose header lacks one or names another is refused)."""
QA = 255
"""The first layer's quantisation: weights, biases and accumulators in units of 1/255; the clipped ReLU is [0, 255]."""
QA_OUT = 1024
"""The output layer's quantisation (no hidden layers): output weights in units of 1/1024."""
WEIGHT_LIMIT = 1000.0
"""Every weight and bias of a net file lies within +-this (so no integer sum can overflow)."""
DEFAULT_SCALE = 400.0
"""Centipawns per output unit unless a header says otherwise."""
MAX_HIDDEN = 4
"""At most this many hidden layers after the accumulators."""
MAX_SCALE = 1e6
"""A net's scale (centipawns per output unit) is in (0, this]."""


def feature_index(perspective: chess.Color, colour: chess.Color, piece_type: chess.PieceType,
                  square: chess.Square) -> int:
    """The input (0-767) of a ``colour`` ``piece_type`` on ``square`` seen from ``perspective``'s side.

    >>> feature_index(chess.WHITE, chess.WHITE, chess.PAWN, chess.E2), feature_index(chess.BLACK, chess.WHITE,
    ...     chess.PAWN, chess.E2)  # White's pawn e2: ours on e2 for White, theirs on e7 (flipped) for Black
    (12, 436)
    """
    return (0 if colour == perspective else 384) + (piece_type - 1) * 64 + (square if perspective else square ^ 56)


def pnet_inputs(board: chess.Board) -> tuple[list[int], list[int]]:
    """The active inputs of ``board``: the side to move's perspective, then the other side's (sorted lists)."""
    out: tuple[list[int], list[int]] = ([], [])
    for i, p in enumerate((board.turn, not board.turn)):
        for square, piece in board.piece_map().items():
            out[i].append(feature_index(p, piece.color, piece.piece_type, square))
        out[i].sort()
    return out


def expected_shapes(units: int, hidden: Sequence[int], psqt: bool = False) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a net of ``units`` first-layer units, ``hidden`` widths and (``psqt``) the
    linear path."""
    shapes: dict[str, tuple[int, ...]] = {"w_in": (N_INPUTS, units), "b_in": (units,)}
    prev = 2 * units
    for i, h in enumerate(hidden, 1):
        shapes[f"w_h{i}"], shapes[f"b_h{i}"] = (prev, h), (h,)
        prev = h
    shapes["w_out"], shapes["b_out"] = (prev, 1), (1,)
    if psqt:
        shapes["w_psqt"] = (N_INPUTS,)
    return shapes


def make_header(units: int, hidden: Sequence[int] = (), scale: float = DEFAULT_SCALE, psqt: bool = False,
                **extra: Any) -> dict[str, Any]:
    """A header for a net of this architecture; ``extra`` (training settings, provenance) is kept as given."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": KIND, "feature_version": PNET_FEATURE_VERSION,
            **FIXED, "units": units, "hidden": list(hidden), "scale": scale, "psqt": psqt, **extra}


def save_pnet(path: str | Path, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any]) -> None:
    """Write a pnet file after checking it (what :meth:`PNet.load` would refuse is not written), atomically."""
    net = PNet(arrays, header, source=str(path))
    write_net_file(path, {n: net.arrays[n] for n in expected_shapes(net.units, net.hidden, net.psqt)}, header)


def random_pnet(units: int = 32, seed: int = 0, hidden: Sequence[int] = (), scale: float = DEFAULT_SCALE,
                psqt: bool = False, **extra: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and header of a net with seeded random weights (tests, benchmarks): first-layer weights
    uniform in [-0.1, 0.1] and biases in [0, 0.5] (so most units are inside the clipped ReLU's slope), PSQT weights
    uniform in [-3, 3], the rest uniform in [-1, 1] / sqrt(inputs)."""
    rng = np.random.default_rng(seed)
    arrays: dict[str, np.ndarray] = {}
    for name, shape in expected_shapes(units, hidden, psqt).items():
        if name == "w_psqt":
            a = rng.uniform(-3, 3, shape)
        elif name == "w_in":
            a = rng.uniform(-0.1, 0.1, shape)
        elif name == "b_in":
            a = rng.uniform(0.0, 0.5, shape)
        else:
            a = rng.uniform(-1, 1, shape) / np.sqrt(shape[0] if len(shape) == 2 else 1)
        arrays[name] = a.astype(np.float32)
    return arrays, make_header(units, hidden, scale, psqt, **{"note": f"random weights, seed {seed}", **extra})


def average_pnets(nets: Sequence[PNet]) -> tuple[dict[str, np.ndarray], float]:
    """The arrays and scale (cp per output unit) of one net whose output is the mean of ``nets``' outputs in
    centipawns (an ensemble played at the cost of one wider net): their first layers side by side (``units`` the sum
    of theirs), each member's output weights, output bias and PSQT weights times ``scale_i / (K * scale)``, where
    ``scale`` is the members' mean scale. Exact before quantisation; the played net differs from the mean of the
    members' played scores by the rounding of its own weights (:data:`QA_OUT`) and of the members' scores (under
    1 cp each). Members without hidden layers only (``ValueError`` otherwise); members without a PSQT path count
    zero for it."""
    if not nets:
        raise ValueError("no nets to average")
    if any(n.hidden for n in nets):
        raise ValueError("only nets without hidden layers can be averaged into one net")
    scale = float(np.mean([n.scale for n in nets]))
    share = [n.scale / (len(nets) * scale) for n in nets]
    a = [n.arrays for n in nets]
    out = [x["w_out"][:n.units] * f for x, n, f in zip(a, nets, share, strict=True)]
    out += [x["w_out"][n.units:] * f for x, n, f in zip(a, nets, share, strict=True)]  # the other side's halves
    arrays = {"w_in": np.concatenate([x["w_in"] for x in a], axis=1),
              "b_in": np.concatenate([x["b_in"] for x in a]),
              "w_out": np.concatenate(out),
              "b_out": np.array([sum(float(x["b_out"][0]) * f for x, f in zip(a, share, strict=True))])}
    if any(n.psqt for n in nets):
        arrays["w_psqt"] = sum((x["w_psqt"].astype(np.float64) * f for x, n, f in zip(a, nets, share, strict=True)
                                if n.psqt), np.zeros(N_INPUTS))
    return {k: v.astype(np.float32) for k, v in arrays.items()}, scale


def integer_weights(arrays: Mapping[str, np.ndarray], hidden: Sequence[int] = ()) -> dict[str, np.ndarray]:
    """The integers a net's evaluation computes with (module docstring, Arithmetic), int64: ``w_in`` (768, N) and
    ``b_in`` (N,) times :data:`QA`, ``w_psqt`` (768,; when the net has it) times ``QA * QA_OUT``, and, for a net
    without ``hidden`` layers, ``w_out`` (2N,: the side to move's accumulator first) times :data:`QA_OUT` and
    ``b_out`` (1,) times ``QA * QA_OUT``; each is the float32 weight times its factor, rounded half to even. The
    evaluator uses these and nothing else, so an export of them (``mimic export``) scores as it does."""
    def fixed(a: np.ndarray, *factors: int) -> np.ndarray:
        x = np.asarray(a, dtype=np.float64)
        for f in factors:  # one factor at a time, left to right, as the evaluator always has
            x = x * f
        return np.rint(x).astype(np.int64)

    out = {"w_in": fixed(arrays["w_in"], QA), "b_in": fixed(arrays["b_in"], QA)}
    if "w_psqt" in arrays:
        out["w_psqt"] = fixed(arrays["w_psqt"], QA, QA_OUT)
    if not hidden:
        out["w_out"] = fixed(arrays["w_out"][:, 0], QA_OUT)
        out["b_out"] = fixed(arrays["b_out"], QA, QA_OUT)
    return out


def _check_header(header: Mapping[str, Any], source: str) -> tuple[int, tuple[int, ...], float, bool]:
    """The header's units, hidden widths, scale and PSQT flag; :class:`NetFileError` naming ``source`` and the
    key."""
    check_format(header, source, KIND, "feature_version", PNET_FEATURE_VERSION, "inputs",
                 "retrain the net", FIXED)
    for key in ("units", "hidden", "scale"):
        if key not in header:
            raise NetFileError(f"{source}: the header has no {key}")
    units = width(header["units"], "units", source)
    hidden = header["hidden"]
    if not isinstance(hidden, list) or len(hidden) > MAX_HIDDEN:
        raise NetFileError(f"{source}: hidden is {repr(hidden)[:60]}, expected a list of at most {MAX_HIDDEN} widths")
    widths = tuple(width(h, f"hidden[{i}]", source) for i, h in enumerate(hidden))
    scale = header["scale"]
    if type(scale) not in (int, float) or not np.isfinite(scale) or not 0 < scale <= MAX_SCALE:
        raise NetFileError(f"{source}: scale is {repr(scale)[:40]}, expected a number in (0, {MAX_SCALE:g}]")
    psqt = header.get("psqt", False)
    if not isinstance(psqt, bool):
        raise NetFileError(f"{source}: psqt is {repr(psqt)[:40]}, expected true or false")
    return units, widths, float(scale), psqt


class PNet:
    """A perspective net as an Evaluator (``evaluate(board)``: centipawns from the side to move's view) and an
    incremental evaluator (``refresh``, ``push``, ``pop``, ``evaluate_current``; module docstring)."""

    name = "pnet"

    def __init__(self, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any], source: str = "<pnet>") -> None:
        self.source = source
        self.header: dict[str, Any] = dict(header)
        self.units, self.hidden, self.scale, self.psqt = _check_header(self.header, source)
        self.arrays = check_arrays(arrays, expected_shapes(self.units, self.hidden, self.psqt), source)
        for name, a in self.arrays.items():
            if a.size and float(np.abs(a).max()) > WEIGHT_LIMIT:
                raise NetFileError(f"{source}: {name} holds {float(np.abs(a).max()):g}, beyond +-{WEIGHT_LIMIT:g}")
        n = self.units
        ints = integer_weights(self.arrays, self.hidden)
        w_in, b_in, w_psqt = ints["w_in"], ints["b_in"], ints.get("w_psqt")
        # One row per (colour, piece type, square): its first-layer column from White's view, then Black's, then
        # (psqt) its PSQT weight from White's view and from Black's.
        table = np.zeros((2, 7, 64, 2 * n + (2 if self.psqt else 0)), dtype=np.int64)
        for colour in chess.COLORS:
            for pt in chess.PIECE_TYPES:
                for sq in chess.SQUARES:
                    white = feature_index(chess.WHITE, colour, pt, sq)
                    black = feature_index(chess.BLACK, colour, pt, sq)
                    table[int(colour), pt, sq, :n] = w_in[white]
                    table[int(colour), pt, sq, n:2 * n] = w_in[black]
                    if w_psqt is not None:
                        table[int(colour), pt, sq, 2 * n:] = w_psqt[white], w_psqt[black]
        self._table = table
        self._rows = [[list(table[c, pt]) for pt in range(7)] for c in (0, 1)]
        """``_rows[colour][piece type][square]``: a view of the table's row, for the incremental updates."""
        self._bias = np.concatenate([b_in, b_in, np.zeros(table.shape[-1] - 2 * n, dtype=np.int64)])
        self._n2 = 2 * n
        # The output side, for White to move (its accumulator first) and for Black (halves swapped).
        swap = np.r_[n:2 * n, 0:n]
        if not self.hidden:
            w = ints["w_out"]
            self._out: tuple[np.ndarray, np.ndarray] = (w[swap], w)
            self._bias_out = int(ints["b_out"][0])
            self._unit = self.scale / (QA * QA_OUT)
        else:
            w1 = self.arrays["w_h1"] / np.float32(QA)
            self._out = (np.ascontiguousarray(w1[swap]), w1)
        self._stack: list[np.ndarray] = [self._bias]

    @classmethod
    def load(cls, path: str | Path) -> PNet:
        """Read and check a pnet file (module docstring); :class:`NetFileError` names the file and what is wrong."""
        def shapes(h: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
            units, hidden, _, psqt = _check_header(h, str(path))
            return expected_shapes(units, hidden, psqt)

        arrays, header = read_net_file(path, shapes)
        return cls(arrays, header, source=str(path))

    def native_form(self) -> NativeForm | None:
        """The compiled core's form of this net (kind ``pnet``; the layout is :mod:`search.core.eval_pnet`'s): the
        same integers this evaluator computes with, so the core scores every position as :meth:`evaluate` does, to
        the integer. ``None`` for a net with hidden layers (float32 through numpy's BLAS: today's engine plays it)."""
        if self.hidden:
            return None
        n, table = self.units, self._table
        # The first layer's rows and biases as int32 packed two to an int64 (within +-255,000 each: WEIGHT_LIMIT).
        rows = np.ascontiguousarray(table[:, 1:, :, :2 * n], dtype=np.int32).view(np.int64)
        psqt = table[:, 1:, :, 2 * n:] if self.psqt else np.zeros((2, 6, 64, 2), dtype=np.int64)
        bias = np.ascontiguousarray(self._bias[:2 * n], dtype=np.int32).view(np.int64)
        header = np.array([n, int(self.psqt), self._bias_out, 0, 0, 0, 0, 0], dtype=np.int64)
        wi = np.concatenate([header, rows.reshape(-1), psqt.reshape(-1), bias, self._out[chess.WHITE]])
        return NativeForm("pnet", wi, np.array([self._unit, float(EVAL_LIMIT)]))

    # ------------------------------------------------------------------ accumulators
    def accumulator(self, board: chess.Board) -> np.ndarray:
        """Both accumulators of ``board`` computed afresh: (2N,) int64, White's perspective then Black's, then (psqt)
        the two PSQT sums, White's perspective then Black's."""
        pieces = board.piece_map()
        colours = [int(p.color) for p in pieces.values()]
        types = [p.piece_type for p in pieces.values()]
        return np.asarray(self._table[colours, types, list(pieces)].sum(axis=0) + self._bias)

    def refresh(self, board: chess.Board) -> None:
        """Start following a search from ``board``: its accumulators computed afresh, the only ones kept."""
        self._stack = [self.accumulator(board)]

    def push(self, board: chess.Board, move: chess.Move) -> None:
        """Update the accumulators for ``move`` (a legal move of ``board`` or a null move), before it is made."""
        stack = self._stack
        acc = stack[-1]
        if not move:
            stack.append(acc)
            return
        fr, to = move.from_square, move.to_square
        turn = board.turn
        pt = board.piece_type_at(fr)
        assert pt is not None, f"push: no piece on {chess.square_name(fr)}"
        ours = self._rows[turn]
        to_bb = chess.BB_SQUARES[to]
        if pt == chess.KING and (board.occupied_co[turn] & to_bb or to - fr in (2, -2)):  # castling
            rank = fr & 56
            a_side = (to & 7) < (fr & 7)
            rook_from = to if board.occupied_co[turn] & to_bb else rank + (0 if a_side else 7)
            king_to, rook_to = (rank + 2, rank + 3) if a_side else (rank + 6, rank + 5)
            kings, rooks = ours[chess.KING], ours[chess.ROOK]
            stack.append(acc - kings[fr] + kings[king_to] - rooks[rook_from] + rooks[rook_to])
            return
        new = acc + ours[move.promotion or pt][to] - ours[pt][fr]
        if board.occupied_co[not turn] & to_bb:
            captured = board.piece_type_at(to)
            assert captured is not None
            new -= self._rows[not turn][captured][to]
        elif pt == chess.PAWN and to == board.ep_square:
            new -= self._rows[not turn][chess.PAWN][to - 8 if turn else to + 8]
        stack.append(new)

    def pop(self) -> None:
        """Forget the accumulators of the last move pushed."""
        self._stack.pop()

    # ------------------------------------------------------------------ scores
    def evaluate_current(self, board: chess.Board) -> int:
        """Centipawns from the side to move's view of the position the accumulators on top describe (the board
        the engine follows, passed for its side to move)."""
        return self._score(self._stack[-1], board.turn)

    def evaluate(self, board: chess.Board) -> int:
        """Centipawns from the side to move's view of any ``board`` (accumulators computed afresh)."""
        return self._score(self.accumulator(board), board.turn)

    def _score(self, acc: np.ndarray, turn: bool) -> int:
        n2 = self._n2
        # PSQT: twice (the side to move's sum - the other's), in units of 1 / (QA * QA_OUT); White's sum is first.
        psqt2 = int(acc[n2] - acc[n2 + 1]) * (1 if turn else -1) if self.psqt else 0
        x = np.minimum(np.maximum(acc[:n2], 0), QA)
        if not self.hidden:
            out = (int(x @ self._out[turn]) + self._bias_out + psqt2 / 2) * self._unit
        else:
            a = self.arrays
            h = np.minimum(np.maximum(x.astype(np.float32) @ self._out[turn] + a["b_h1"], 0), 1)
            for i in range(2, len(self.hidden) + 1):
                h = np.minimum(np.maximum(h @ a[f"w_h{i}"] + a[f"b_h{i}"], 0), 1)
            out = (float(h @ a["w_out"][:, 0]) + float(a["b_out"][0]) + psqt2 / (2 * QA * QA_OUT)) * self.scale
        return round(min(max(out, -EVAL_LIMIT), EVAL_LIMIT))
