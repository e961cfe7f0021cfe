"""Numpy inference of a move-probability net: the move probabilities of ``@search=prob-net:PATH.npz``.

Giraffe's probability-limited search (:mod:`search.prob`) spends its node budget by move probability; Giraffe
offers a learned source of those probabilities beside its static heuristics. This net scores every legal move
of a position from a few features of the move; the probabilities are the softmax of the scores over the legal
moves. It is trained (``mimic train-moves``, :mod:`evolve.nets.movenet`, torch) to give the mentor's best move (the
first move of a label's PV) a high probability.

**Features** (:func:`move_indices`): eight one-hot groups, so a move is eight active inputs out of
:data:`N_MOVE_FEATURES`. Squares are from the side to move's view (a Black move's squares are mirrored
rank-wise, ``square ^ 56``), so one set of weights serves both colours:

=========  ===========================================================  ======
group      what                                                         inputs
=========  ===========================================================  ======
to         moving piece type x destination square                         384
from       moving piece type x origin square                              384
capture    moving piece type x captured piece (none, P, N, B, R, Q)        36
see        not a capture or promotion; SEE > 0, = 0, < 0                    4
promotion  none, N, B, R, Q                                                 5
to-att     the destination is attacked by the opponent (before the move)   2
from-att   the origin is attacked by the opponent                           2
check      the move gives check                                             2
=========  ===========================================================  ======

**The net**: the active inputs' rows of ``w_in`` (:data:`N_MOVE_FEATURES`, hidden) summed with ``b_in``, ReLU,
then ``w_out`` (hidden, 1) and ``b_out``: one score per move. :meth:`MoveNet.move_weights` returns
``exp((score - max score) / temperature)``, proportional to the probabilities (temperature 1 by default: the
distribution it was trained to give; above 1 flatter, ``@search=prob-net:PATH?t=T``).

**The file** is one ``.npz`` read with ``allow_pickle=False``: a JSON ``header`` (format, kind
:data:`KIND`, feature version :data:`MOVE_FEATURE_VERSION`, ``hidden``, and what the trainer records) and the
float32 arrays ``w_in b_in w_out b_out``. A file of another kind or feature version, or with wrong shapes,
is refused with :class:`~organisms.net.NetFileError` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np

from organisms.net import (
    FORMAT,
    FORMAT_VERSION,
    check_arrays,
    check_format,
    read_net_file,
    width,
    write_net_file,
)
from search.runtime.errors import SettingsError
from search.see import see

KIND = "move-probability"
MOVE_FEATURE_VERSION = "moves-v1"

GROUPS = (("to", 384), ("from", 384), ("capture", 36), ("see", 4), ("promotion", 5), ("to-att", 2),
          ("from-att", 2), ("check", 2))
"""The feature groups, in input order: (name, inputs). One input of each group is active for a move."""
_OFFSET = {name: sum(n for _, n in GROUPS[:i]) for i, (name, _) in enumerate(GROUPS)}
N_MOVE_FEATURES = sum(n for _, n in GROUPS)
N_ACTIVE = len(GROUPS)
DEFAULT_HIDDEN = 32
ARRAY_NAMES = ("w_in", "b_in", "w_out", "b_out")

_TO, _FROM, _CAP, _SEE = _OFFSET["to"], _OFFSET["from"], _OFFSET["capture"], _OFFSET["see"]
_PROMO, _TO_ATT, _FROM_ATT, _CHECK = _OFFSET["promotion"], _OFFSET["to-att"], _OFFSET["from-att"], _OFFSET["check"]
_BB = chess.BB_SQUARES


def move_indices(board: chess.Board, moves: Sequence[chess.Move]) -> np.ndarray:
    """The active inputs of each of ``moves`` (legal in ``board``): (len(moves), :data:`N_ACTIVE`) int32.

    Offsets: to 0, from 384, capture 768, see 804, promotion 808, to-att 813, from-att 815, check 817.

    >>> board = chess.Board("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")  # exd5: a pawn takes an undefended pawn
    >>> move_indices(board, [chess.Move.from_uci("e4d5")]).tolist()
    [[35, 412, 769, 805, 808, 813, 816, 817]]

    (pawn to d5 = 35; pawn from e4 = 384 + 28; pawn takes pawn = 768 + 0 * 6 + 1; SEE +100 = 804 + 1; no
    promotion; d5 not attacked by Black; e4 attacked by the d5 pawn = 815 + 1; no check.)
    """
    turn = board.turn
    flip = 0 if turn == chess.WHITE else 56
    occ_them = board.occupied_co[not turn]
    ep = board.ep_square
    piece_type_at = board.piece_type_at
    attacked = board.is_attacked_by
    them = not turn
    out = np.empty((len(moves), N_ACTIVE), dtype=np.int32)
    for i, m in enumerate(moves):
        frm, to = m.from_square, m.to_square
        pt = piece_type_at(frm) or 1
        if _BB[to] & occ_them:
            captured = piece_type_at(to) or 0
        elif to == ep and pt == chess.PAWN:
            captured = chess.PAWN
        else:
            captured = 0
        if captured or m.promotion:
            gain = see(board, m)
            see_class = 1 if gain > 0 else (2 if gain == 0 else 3)
        else:
            see_class = 0
        row = out[i]
        row[0] = _TO + (pt - 1) * 64 + (to ^ flip)
        row[1] = _FROM + (pt - 1) * 64 + (frm ^ flip)
        row[2] = _CAP + (pt - 1) * 6 + min(captured, 5)
        row[3] = _SEE + see_class
        row[4] = _PROMO + (m.promotion - 1 if m.promotion else 0)
        row[5] = _TO_ATT + attacked(them, to)
        row[6] = _FROM_ATT + attacked(them, frm)
        row[7] = _CHECK + board.gives_check(m)
    return out


FIXED = {"feature_set": "moves", "inputs": N_MOVE_FEATURES, "activation": "relu", "output": "softmax"}
"""The header's keys that name the net's inputs and activations: written by :func:`make_header`, checked on reading."""


def expected_shapes(hidden: int) -> dict[str, tuple[int, ...]]:
    return {"w_in": (N_MOVE_FEATURES, hidden), "b_in": (hidden,), "w_out": (hidden, 1), "b_out": (1,)}


def make_header(hidden: int = DEFAULT_HIDDEN, **extra: Any) -> dict[str, Any]:
    """A header for a move net with ``hidden`` units; ``extra`` (training settings, provenance) kept as given."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": KIND,
            "feature_version": MOVE_FEATURE_VERSION, **FIXED, "active": N_ACTIVE,
            "groups": [list(g) for g in GROUPS], "hidden": hidden, **extra}


class MoveNet:
    """A move-probability net (module docstring): the :class:`~search.base.MovePolicy` of ``prob-net``."""

    def __init__(self, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any], source: str = "<move net>",
                 temperature: float = 1.0) -> None:
        if not temperature > 0:
            raise SettingsError(f"the temperature must be positive, got {temperature}")
        self.source = source
        self.temperature = float(temperature)
        self.header: dict[str, Any] = dict(header)
        self.hidden = _check_header(self.header, source)
        self.arrays = check_arrays(arrays, expected_shapes(self.hidden), source)
        a = self.arrays
        self.w_in, self.b_in = a["w_in"], a["b_in"]
        self.w_out, self.b_out = a["w_out"][:, 0].copy(), float(a["b_out"][0])

    @classmethod
    def load(cls, path: str | Path, temperature: float = 1.0) -> MoveNet:
        """Read and check a move-net file; :class:`NetFileError` names the file and what is wrong."""
        arrays, header = read_net_file(path, lambda h: expected_shapes(_check_header(h, str(path))))
        return cls(arrays, header, source=str(path), temperature=temperature)

    def scores(self, indices: np.ndarray) -> np.ndarray:
        """The score of each move from its active inputs (N, :data:`N_ACTIVE`): (N,) float32 (log-probabilities
        up to a constant shared by the moves of one position)."""
        h = self.w_in[indices].sum(axis=1) + self.b_in
        np.maximum(h, 0, out=h)
        return np.asarray(h @ self.w_out + self.b_out, dtype=np.float32)

    def move_weights(self, board: chess.Board, moves: Sequence[chess.Move]) -> list[float]:
        """A positive weight for each of ``moves`` (legal in ``board``), proportional to its probability:
        ``exp((score - max score) / temperature)``."""
        if not moves:
            return []
        s = self.scores(move_indices(board, moves))
        return np.exp((s - s.max()) / self.temperature).tolist()

    def probabilities(self, board: chess.Board, moves: Sequence[chess.Move]) -> np.ndarray:
        """The probability of each of ``moves`` (the softmax of their scores; they sum to 1)."""
        w = np.asarray(self.move_weights(board, moves), dtype=np.float64)
        return w / w.sum()


def _check_header(header: Mapping[str, Any], source: str) -> int:
    """The hidden width of a move net's checked header."""
    check_format(header, source, KIND, "feature_version", MOVE_FEATURE_VERSION, "move features",
                 "retrain it (mimic train-moves)", FIXED)
    return width(header.get("hidden"), "hidden", source)


def save_move_net(path: str | Path, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any]) -> None:
    """Write a move-net file after checking it, as :meth:`MoveNet.load` would (whole or not at all)."""
    net = MoveNet(arrays, header, source=str(path))
    write_net_file(path, {n: net.arrays[n] for n in ARRAY_NAMES}, header)
