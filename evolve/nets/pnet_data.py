"""The perspective net's training data: a label file's target positions as the net's inputs, their targets in
win-probability space, the organisms' held-out split.

**Rows** (:func:`load_pnet_data`): the label file is resolved as the GA resolves it (:func:`evolve.data.cache.
resolve_labels`: each label's target position, by default the quiet leaf of the mentor's PV, the mentor's score
from that position's side to move in centipawns, the game result from the same side's view when the label has
``c9``, cached), optionally only its quiet labels (``quiet``: :meth:`mentor.labels.Label.quiet`, ``mimic evolve
--quiet-labels``'s filter), and split by :func:`evolve.data.dataset.kept_split`, so the held-out rows are the
organisms' for the same file, target, cap, quiet filter, share and seed. Further label files (``more``, ``mimic
train-pnet --more-labels``) add training rows only, resolved and filtered the same way: every kept label of theirs
trains, except those whose target position is also a held-out one (left out and counted), so the held-out rows and
their errors stay the first file's. ``train_rows`` keeps the first N of a seeded permutation of the training rows
(the held-out rows unchanged): how many positions the net needs.

**Inputs** (:func:`row_inputs`): each position's active inputs (:func:`organisms.pnet.feature_index`) from the
side to move's perspective and from the other side's, as two (rows, 32) int16 arrays padded with :data:`PAD`
(768, a zero row of the first layer), computed from the resolved bitboard rows with numpy.

**Targets** (:func:`evolve.ga.wdl.wdl_target`, the organisms' ``--loss wdl`` convention, its one home): the
mentor's score through a win-probability model (``sf15.1`` by default), blended with the game result where the
label has one (``lambda_result``), and K (cp) fitted Texel-style on the training rows. The net's own K
(:attr:`PNetData.k_net`) sets the centipawns it learns: with ``k_mode`` ``mentor`` it is the mentor's K (the
net learns the mentor's centipawns); with ``expert`` (the default), K fitted the same way on the built-in
expert's static scores of (up to :data:`K_SAMPLE` of) the training targets, so the net's centipawns follow the
expert's scale (Stockfish 15.1's normalised centipawns are smaller than PeSTO's: the engine's margins, and the
expert it plays, count in the latter); a number sets it.

May import numpy, chess, ``evolve.data``, ``evolve.ga.wdl``, ``organisms``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import numpy as np

from evolve.data.cache import resolve_labels
from evolve.data.dataset import LabelsError, kept_split
from evolve.ga.objectives import fit_k
from evolve.ga.wdl import wdl_target
from mentor.labels import DEFAULT_CAP
from organisms.expert import Expert
from organisms.pnet import N_INPUTS, feature_index
from search.runtime.errors import SettingsError

PAD = N_INPUTS
"""The padding input: a zero row of the first layer (a position has at most 32 pieces)."""
MAX_PIECES = 32
K_SAMPLE = 20_000
"""Training targets the expert scores to fit its K (``k_mode`` ``expert``), a seeded sample."""
K_MODES = ("expert", "mentor")


def _unpack(bitboards: np.ndarray) -> np.ndarray:
    """(rows,) uint64 bitboards -> (rows, 64) bool, column s the square s."""
    as_bytes = np.ascontiguousarray(bitboards, dtype="<u8").view(np.uint8).reshape(-1, 8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little").astype(bool)


def _other_perspective() -> np.ndarray:
    """``flip[i]``: the input of White's-perspective input ``i`` seen from Black's (ours/theirs swapped, squares
    flipped vertically); ``flip[PAD] = PAD``."""
    flip = np.full(N_INPUTS + 1, PAD, dtype=np.int16)
    for colour in chess.COLORS:
        for pt in chess.PIECE_TYPES:
            for sq in chess.SQUARES:
                flip[feature_index(chess.WHITE, colour, pt, sq)] = feature_index(chess.BLACK, colour, pt, sq)
    return flip


def row_inputs(rows: np.ndarray, chunk: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """The active inputs of bitboard rows (:func:`organisms.features.bitboard_row`: pawns..kings, White's and
    Black's pieces, White to move): (side to move's perspective, other side's), each (rows, 32) int16, sorted, padded
    with :data:`PAD`."""
    n = len(rows)
    white = np.full((n, MAX_PIECES), PAD, dtype=np.int16)
    for start in range(0, n, chunk):
        r = rows[start:start + chunk]
        mask = np.zeros((len(r), N_INPUTS), dtype=bool)
        for ci, colour in enumerate((chess.WHITE, chess.BLACK)):
            for pt in chess.PIECE_TYPES:
                base = feature_index(chess.WHITE, colour, pt, chess.A1)
                mask[:, base:base + 64] = _unpack(r[:, pt - 1] & r[:, 6 + ci])
        counts = mask.sum(axis=1)
        if counts.max(initial=0) > MAX_PIECES:
            raise LabelsError(f"a position has {counts.max()} pieces (at most {MAX_PIECES})")
        row_of, col = np.nonzero(mask)
        slot = np.arange(len(col)) - np.repeat(np.cumsum(counts) - counts, counts)
        white[start + row_of, slot] = col
    black = np.sort(_other_perspective()[white], axis=1)
    turn = rows[:, 8].astype(bool)[:, None]
    return np.where(turn, white, black), np.where(turn, black, white)


def row_board(row: np.ndarray) -> chess.Board:
    """The position of a bitboard row (no castling rights, no en passant: neither is in the row)."""
    board = chess.Board(None)
    (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings) = (int(v) for v in row[:6])
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = int(row[6]), int(row[7])
    board.occupied = int(row[6]) | int(row[7])
    board.turn = bool(row[8])
    return board


@dataclass
class PNetData:
    """Training data of the perspective net (see the module docstring). Scores are centipawns from the target's
    side to move; ``p`` the target expected score (0…1)."""

    stm: np.ndarray  # (N, 32) int16 inputs, side to move's perspective
    nstm: np.ndarray  # (N, 32) int16 inputs, the other side's
    y: np.ndarray  # (N,) mentor's score, cp
    p: np.ndarray  # (N,) target expected score
    train: np.ndarray
    held: np.ndarray
    k_mentor: float  # cp: σ(y / k_mentor) fits p (Texel)
    k_net: float  # cp: the net's eval is read as σ(eval / k_net)
    source: str = ""
    total: int = 0
    over_cap: int = 0
    malformed: int = 0
    not_quiet: int = 0
    quiet_only: bool = False
    blended: int = 0
    errors: list[str] = field(default_factory=list)
    more: list[str] = field(default_factory=list)  # further label files, training rows only
    more_used: int = 0  # their labels among the training rows
    more_held_out: int = 0  # their labels left out: the target position is a held-out row's

    @property
    def mentor_per_net_cp(self) -> float:
        """Mentor centipawns per net centipawn (the net's eval times this is comparable with the labels)."""
        return self.k_mentor / self.k_net

    def describe(self) -> str:
        return (f"{self.total} labels in {self.source}: {len(self.y)} used ({len(self.train)} training, "
                f"{len(self.held)} held out), {self.over_cap} beyond the cap left out, "
                + (f"{self.not_quiet} not quiet left out, " if self.quiet_only else "")
                + f"{self.malformed} malformed lines skipped; "
                + (f"of them {self.more_used} training rows from {', '.join(self.more)} ({self.more_held_out} "
                   f"left out as held-out rows' positions); " if self.more else "")
                + f"{self.blended} targets blended with the game result; K: mentor {self.k_mentor:.1f} cp, "
                f"net {self.k_net:.1f} cp")


def expert_k(rows: np.ndarray, p: np.ndarray, power: float, seed: int) -> float:
    """K (cp) fitted Texel-style on the built-in expert's static scores (side to move) of up to :data:`K_SAMPLE`
    of ``rows`` (a seeded sample) against their targets ``p``."""
    rng = np.random.default_rng([seed, 0x4B])
    pick = np.sort(rng.choice(len(rows), min(len(rows), K_SAMPLE), replace=False))
    expert = Expert()
    scores = np.array([expert.evaluate(row_board(rows[i])) for i in pick], dtype=np.float64)
    return fit_k(scores, p[pick], np.ones(len(pick)), power)


K_RANGE = (1.0, 100_000.0)
"""A net's K given as a number of centipawns lies within these (a mentor's fitted K is 100-400 cp; far below, eval/K
overflows, far above, the net's outputs would have to be enormous)."""


def check_more_labels(path: str | Path, more: Sequence[str | Path]) -> None:
    """Refuse (:class:`~search.runtime.errors.SettingsError`) a further label file that is the training file itself
    or is named twice: its rows would count twice."""
    seen = [Path(path)]
    for extra in map(Path, more):
        for earlier in seen:
            if extra.exists() and earlier.exists() and os.path.samefile(extra, earlier):
                what = "the training file itself" if earlier == seen[0] else f"{earlier} again"
                raise SettingsError(f"--more-labels {extra} is {what}: its rows would count twice")
        seen.append(extra)


def load_pnet_data(path: str | Path, *, target: str = "leaf", cap: int = DEFAULT_CAP, held_out: float = 0.2,
                   seed: int = 0, quiet: bool = False, model: str = "sf15.1", power: float = 2.0,
                   lambda_result: float = 1.0, k_mode: str | float = "expert", train_rows: int | None = None,
                   n_jobs: int = 1, more: Sequence[str | Path] = (), score: int = 0) -> PNetData:
    """Read ``path`` (and the training rows of the files ``more``; ``score`` ``i`` ≥ 1: a crowd's ``i``-th mentor's
    scores, :func:`evolve.data.cache.resolve_labels`) into :class:`PNetData` (see the module
    docstring)."""
    if isinstance(k_mode, str) and k_mode not in K_MODES:
        raise SettingsError(f"the net's K is {', '.join(K_MODES)} or a number of centipawns, got {k_mode!r}")
    check_more_labels(path, more)
    resolved = resolve_labels(path, target, cap, n_jobs=n_jobs, score=score)
    keep, train, held = kept_split(resolved, path, quiet, held_out, seed, cap)
    rows, y, result, ply = (a[keep] for a in (resolved.rows, resolved.y, resolved.result, resolved.ply))
    totals = [resolved.total, resolved.over_cap, resolved.malformed, int((~keep).sum())]
    errors = list(resolved.errors)
    held_keys = {r.tobytes() for r in rows[held]}
    more_used = more_held = 0
    for extra in more:
        r = resolve_labels(extra, target, cap, n_jobs=n_jobs, score=score)
        k = r.quiet.copy() if quiet else np.ones(len(r.y), dtype=bool)
        totals = [totals[0] + r.total, totals[1] + r.over_cap, totals[2] + r.malformed, totals[3] + int((~k).sum())]
        errors += r.errors
        fresh = np.array([row.tobytes() not in held_keys for row in r.rows], dtype=bool)
        more_held += int((k & ~fresh).sum())
        k &= fresh
        train = np.concatenate([train, len(y) + np.arange(int(k.sum()))])
        rows, y, result, ply = (np.concatenate([a, b[k]]) for a, b in
                                ((rows, r.rows), (y, r.y), (result, r.result), (ply, r.ply)))
        more_used += int(k.sum())
    if train_rows is not None:
        if train_rows > len(train):
            raise SettingsError(f"{path}: {train_rows} training rows asked for, the file has {len(train)}")
        train = np.sort(np.random.default_rng([seed, 0x7A1]).permutation(train)[:train_rows])
    t = wdl_target(y, result, ply, train, model, power, lambda_result)
    if k_mode == "mentor":
        k_net = t.k
    elif k_mode == "expert":
        k_net = expert_k(rows[train], t.p[train], power, seed)
    else:
        k_net = float(k_mode)
    stm, nstm = row_inputs(rows)
    total, over_cap, malformed, not_quiet = totals
    return PNetData(stm, nstm, y, t.p.astype(np.float32), train, held, t.k, k_net, str(path), total, over_cap,
                    malformed, not_quiet, quiet, t.blended, errors, [str(m) for m in more], more_used, more_held)
