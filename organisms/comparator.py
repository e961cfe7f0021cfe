"""DeepChess bits and the numpy inference of a DeepChess-style comparator: the ``cmp:PATH.npz`` player.

Imports chess, numpy, :mod:`organisms.net` and the position key (:func:`search.conventions.position_key`; torch trains
these nets in ``evolve.nets.deepchess``, playing needs none of it).

**The bits** (David, Netanyahu & Wolf, *DeepChess*, 2016): 773 bits a position, :data:`N_BITS`: for each colour
(White, then Black) and each piece type (pawn, knight, bishop, rook, queen, king) the 64 squares (a1 = 0 ... h8 =
63); then the side to move (1: White); then the castling rights White king side, White queen side, Black king
side, Black queen side. :data:`BITS_VERSION` names this layout: a net trained on another layout is refused.
The colour mirror of a position (:meth:`chess.Board.mirror`: colours swapped, the board flipped, the other side to
move) is a permutation of the bits, :data:`MIRROR`.

**The net**: *Pos2Vec*, a tower of fully connected ReLU layers (773 -> ... -> E), embeds each position; the
comparator concatenates the embeddings of positions ``a`` and ``b`` (2E) and runs fully connected ReLU layers to
two linear outputs: logits of "``a`` is the White-win position" and "``b`` is". A weight matrix is (inputs,
units); a layer is ``x @ w + b``.

**Playing**: ``d(a, b) = logit0 - logit1`` is the net's log-odds that ``a`` is better for White. The comparator
plays with ``s(a, b) = (d(a, b) + d(m(b), m(a))) - (d(b, a) + d(m(a), m(b)))`` (``m``: the colour mirror), so that
``s(b, a) = -s(a, b)`` (antisymmetric) and ``s(m(a), m(b)) = -s(a, b)`` (colour-consistent) by construction;
``better(a, b)`` is ``s(a, b) > 0`` and ``probability(a, b)`` is ``sigmoid(s / 4)``, the mean of the four
log-odds. Every position's embedding (and its mirror's) is computed once and cached by position key, with the
first top layer's two halves already applied, so a comparison runs only the top layers (the four ``d`` as one
batch). ``score(b, a)`` is exactly ``-score(a, b)`` (the pair is computed in the order of the position keys);
``score(m(a), m(b)) = -score(a, b)`` holds up to rounding.

**A derived score** (for UCI and for searches that need numbers): ``evaluate(board)`` compares the position with
its own colour mirror, whose value for White is the opposite, and reads the log-odds ``z = s(p, m(p)) / 4`` as
an Elo-like difference of ``2v``: ``v = 200 * z / ln 10`` centipawns for White, returned from the side to move's
view, clipped to :data:`EVAL_LIMIT`. It is a monotone reading of the net's confidence, not a trained
centipawn scale.

**The file** is one ``.npz`` (read with ``allow_pickle=False``): ``header`` (a JSON string: :data:`FORMAT`,
:data:`FORMAT_VERSION`, ``kind`` :data:`KIND`, ``bits_version``, ``pos2vec`` (the tower's widths, 773 first),
``top`` (the top layers' widths, 2E first and 2 last), and whatever its writer records) and float32 arrays
``enc_w0 enc_b0 ... top_w0 top_b0 ...``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np

from organisms.net import NetFileError, check_arrays, check_format, read_net_file, width, write_net_file
from search.conventions import position_key

__all__ = ["BITS_VERSION", "N_BITS", "ComparatorNet", "NetFileError", "board_bits", "expected_shapes",
           "make_header", "mirror_bits", "save_comparator"]

N_BITS = 773
"""Input bits of a position: 2 colours x 6 pieces x 64 squares, the side to move, 4 castling rights."""
BITS_VERSION = "deepchess-773-v1"
"""The bit layout of this module (see the module docstring); a net's header must name it."""
FORMAT = "mimic-net"
FORMAT_VERSION = 1
KIND = "deepchess-cmp"
MAX_LAYERS = 16
"""A comparator has at most this many layers in Pos2Vec and in its top (DeepChess: 5 and 4)."""
STM_BIT = 768
CASTLE_BITS = (chess.BB_H1, chess.BB_A1, chess.BB_H8, chess.BB_A8)
"""The rooks' squares of the castling rights, in bit order 769..772: White king side, White queen side, Black
king side, Black queen side."""
EVAL_LIMIT = 10_000
"""The derived score is clipped to +-this many centipawns, far inside the engine's mate scores."""
CACHE_SIZE = 1 << 17
"""Positions whose embeddings a comparator keeps; the cache is emptied when full."""
CP_PER_LOGIT = 200.0 / math.log(10.0)
"""Centipawns for White per unit of the log-odds that a position beats its own mirror (see the module docstring)."""


def _mirror_permutation() -> np.ndarray:
    perm = np.arange(N_BITS)
    for colour in range(2):
        for piece in range(6):
            for sq in range(64):
                perm[colour * 384 + piece * 64 + sq] = (1 - colour) * 384 + piece * 64 + (sq ^ 56)
    perm[769:773] = (771, 772, 769, 770)
    return perm


MIRROR = _mirror_permutation()
"""``bits(board.mirror())[i] == bits(board)[MIRROR[i]]`` for the piece and castling bits; the side-to-move bit flips."""


def board_indices(board: chess.Board) -> list[int]:
    """The indices of the set bits of ``board`` (increasing within each colour and piece block)."""
    out: list[int] = []
    for colour, base in ((chess.WHITE, 0), (chess.BLACK, 384)):
        occ = board.occupied_co[colour]
        for i, bb in enumerate((board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)):
            b = bb & occ
            off = base + i * 64
            while b:
                low = b & -b
                out.append(off + low.bit_length() - 1)
                b ^= low
    if board.turn == chess.WHITE:
        out.append(STM_BIT)
    cr = board.castling_rights
    for i, sq_bb in enumerate(CASTLE_BITS):
        if cr & sq_bb:
            out.append(769 + i)
    return out


def board_bits(board: chess.Board) -> np.ndarray:
    """The 773 bits of ``board`` as a (773,) uint8 vector (see the module docstring)."""
    x = np.zeros(N_BITS, dtype=np.uint8)
    x[board_indices(board)] = 1
    return x


def mirror_bits(x: np.ndarray) -> np.ndarray:
    """The bits of the colour mirror of the position(s) ``x`` ((773,) or (N, 773)): equals
    ``board_bits(board.mirror())``."""
    y = x[..., MIRROR].copy()
    y[..., STM_BIT] = 1 - x[..., STM_BIT]
    return y


def expected_shapes(pos2vec: Sequence[int], top: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a comparator with tower widths ``pos2vec`` and top widths ``top``."""
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(len(pos2vec) - 1):
        shapes[f"enc_w{i}"] = (pos2vec[i], pos2vec[i + 1])
        shapes[f"enc_b{i}"] = (pos2vec[i + 1],)
    for i in range(len(top) - 1):
        shapes[f"top_w{i}"] = (top[i], top[i + 1])
        shapes[f"top_b{i}"] = (top[i + 1],)
    return shapes


FIXED = {"inputs": N_BITS, "activation": "relu", "output": "2 logits (a better for White, b better for White)"}
"""The header's keys that name the net's inputs and activations: written by :func:`make_header`, checked on reading."""


def make_header(pos2vec: Sequence[int], top: Sequence[int], **extra: Any) -> dict[str, Any]:
    """A header for a comparator of these widths; ``extra`` (training settings, provenance) is kept as given."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": KIND, "bits_version": BITS_VERSION,
            **FIXED, "pos2vec": [int(v) for v in pos2vec], "top": [int(v) for v in top], **extra}


def save_comparator(path: str | Path, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any]) -> None:
    """Write a comparator file whole or not at all, after checking it: what :meth:`ComparatorNet.load` would
    refuse is not written."""
    net = ComparatorNet(arrays, header, source=str(path))
    write_net_file(path, net.arrays, header)


class ComparatorNet:
    """A DeepChess-style comparator (see the module docstring): ``better(a, b)`` is true when ``a`` is better for
    White than ``b``; also an Evaluator through the derived score ``evaluate(board)`` (side to move's view, cp)."""

    name = "cmp"

    def __init__(self, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any], source: str = "<cmp>") -> None:
        self.source = source
        self.header: dict[str, Any] = dict(header)
        self.pos2vec, self.top = _check_header(self.header, source)
        self.arrays = check_arrays(arrays, expected_shapes(self.pos2vec, self.top), source)
        a = self.arrays
        self.enc = [(a[f"enc_w{i}"], a[f"enc_b{i}"]) for i in range(len(self.pos2vec) - 1)]
        self.tops = [(a[f"top_w{i}"], a[f"top_b{i}"]) for i in range(len(self.top) - 1)]
        e = self.pos2vec[-1]
        w0 = self.tops[0][0]
        self._w_first, self._w_second = w0[:e], w0[e:]
        self._b_top0 = self.tops[0][1]
        self._cache: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.comparisons = 0

    @classmethod
    def load(cls, path: str | Path) -> ComparatorNet:
        """Read and check a comparator file; :class:`NetFileError` names the file and what is wrong."""
        arrays, header = read_net_file(path, lambda h: expected_shapes(*_check_header(h, str(path))))
        return cls(arrays, header, source=str(path))

    # ------------------------------------------------------------------ batch inference (tests, training)
    def embed(self, x: np.ndarray) -> np.ndarray:
        """Pos2Vec embeddings (N, E) of an (N, 773) bit matrix."""
        h = np.asarray(x, dtype=np.float32)
        for w, b in self.enc:
            h = np.maximum(h @ w + b, 0)
        return h

    def logits(self, xa: np.ndarray, xb: np.ndarray) -> np.ndarray:
        """The raw (N, 2) outputs of the net for the ordered pairs (``xa[i]``, ``xb[i]``) of (N, 773) bits."""
        h = np.concatenate([self.embed(xa), self.embed(xb)], axis=1)
        return self._top(h)

    def _top(self, h: np.ndarray) -> np.ndarray:
        last = len(self.tops) - 1
        for i, (w, b) in enumerate(self.tops):
            h = h @ w + b
            if i < last:
                h = np.maximum(h, 0)
        return h

    def symmetric(self, xa: np.ndarray, xb: np.ndarray) -> np.ndarray:
        """``s(a, b)`` (module docstring) of (N, 773) bit matrices: (N,) log-odds sums, > 0 when ``a`` is better."""
        ma, mb = mirror_bits(np.asarray(xa)), mirror_bits(np.asarray(xb))

        def d(p: np.ndarray, q: np.ndarray) -> np.ndarray:
            z = self.logits(p, q)
            return z[:, 0] - z[:, 1]

        return np.asarray((d(xa, xb) + d(mb, ma)) - (d(xb, xa) + d(ma, mb)), dtype=np.float64)

    # ------------------------------------------------------------------ one position at a time (search)
    def _entry(self, board: chess.Board, key: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(first half, second half) of the first top layer applied to the embedding of ``board``, then the same
        for its colour mirror; cached by position key."""
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        idx = board_indices(board)
        midx = sorted([int(MIRROR[i]) for i in idx if i != STM_BIT] + ([STM_BIT] if board.turn != chess.WHITE else []))
        out = []
        w0, b0 = self.enc[0]
        for ix in (idx, midx):
            h = np.maximum(w0[ix].sum(axis=0) + b0, 0)
            for w, b in self.enc[1:]:
                h = np.maximum(h @ w + b, 0)
            out += [h @ self._w_first, h @ self._w_second]
        entry = (out[0], out[1], out[2], out[3])
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[key] = entry
        return entry

    def _d(self, h: np.ndarray) -> np.ndarray:
        """``d`` of the rows of ``h``: (first half of one position + second half of the other), (K, units)."""
        h = h + self._b_top0
        for w, b in self.tops[1:]:
            np.maximum(h, 0, out=h)
            h = h @ w + b
        return np.asarray(h[:, 0] - h[:, 1])

    def score(self, a: chess.Board, b: chess.Board) -> float:
        """``s(a, b)``: > 0 when ``a`` is better for White than ``b``. The four ``d`` run as one batch; the pair is
        taken in the order of the position keys, so ``score(b, a) == -score(a, b)`` exactly."""
        self.comparisons += 1
        ka, kb = position_key(a), position_key(b)
        ea, eb = self._entry(a, ka), self._entry(b, kb)
        if ka > kb:
            return -self._s(eb, ea)
        return self._s(ea, eb)

    def _s(self, ea: tuple[np.ndarray, ...], eb: tuple[np.ndarray, ...]) -> float:
        fa, sa, mfa, msa = ea
        fb, sb, mfb, msb = eb
        d = self._d(np.stack((fa + sb, mfb + msa, fb + sa, mfa + msb)))
        return float((d[0] + d[1]) - (d[2] + d[3]))

    def better(self, a: chess.Board, b: chess.Board) -> bool:
        """True when ``a`` is better than ``b`` for White (the Comparator contract)."""
        return self.score(a, b) > 0

    def probability(self, a: chess.Board, b: chess.Board) -> float:
        """The net's probability that ``a`` is better for White than ``b``: ``sigmoid(s(a, b) / 4)``."""
        z = self.score(a, b) / 4
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def evaluate(self, board: chess.Board) -> int:
        """The derived score (module docstring): centipawns from the side to move's view."""
        fa, sa, mfa, msa = self._entry(board, position_key(board))
        # The mirror's entry is (mfa, msa) and its mirror's (fa, sa): s(p, m(p)) = 2 (d(p, m) - d(m, p)).
        d = self._d(np.stack((fa + msa, mfa + sa)))
        z = float(d[0] - d[1]) / 2
        v = max(min(CP_PER_LOGIT * z, EVAL_LIMIT), -EVAL_LIMIT)
        return round(v if board.turn == chess.WHITE else -v)


def _check_header(header: Mapping[str, Any], source: str) -> tuple[list[int], list[int]]:
    check_format(header, source, KIND, "bits_version", BITS_VERSION, "bits",
                 "retrain the comparator (mimic train-cmp)", FIXED)
    layers = {}
    for key in ("pos2vec", "top"):
        widths = header.get(key)
        if not isinstance(widths, list) or not 2 <= len(widths) <= MAX_LAYERS:
            raise NetFileError(f"{source}: the header's {key} must be a list of 2 to {MAX_LAYERS} layer widths")
        layers[key] = [width(v, f"a width of {key}", source) for v in widths]
    pos2vec, top = layers["pos2vec"], layers["top"]
    if len(pos2vec) < 2 or pos2vec[0] != N_BITS or min(pos2vec) < 1:
        raise NetFileError(f"{source}: pos2vec {pos2vec} must start at {N_BITS} and have positive widths")
    if len(top) < 2 or top[0] != 2 * pos2vec[-1] or top[-1] != 2 or min(top) < 1:
        raise NetFileError(f"{source}: top {top} must run from twice the embedding ({2 * pos2vec[-1]}) to 2")
    return pos2vec, top
