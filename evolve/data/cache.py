"""What a label file becomes before its features: parsed once, cached on disk, verified on reading.

:func:`resolve_labels` turns a label file into the arrays :func:`evolve.data.dataset.load_dataset` needs
before feature extraction and the split: each usable label's target position as a
:func:`organisms.features.bitboard_row` (uint64), the mentor's score at the target (centipawns, the
target's side to move), the game result and the plies to the end from that side's view (NaN when
unknown), the target's ply from the game's start (NaN unless the label has ``fmvn``), whether the label is
quiet (:meth:`mentor.labels.Label.quiet`: the labelled position not in check, the mentor's best move not a
capture or promotion), what the bitboards leave out of the target (its castling rights, as python-chess holds
them and as Giraffe's four bits, and its en-passant square) and the mentor's first move from the labelled
position, the counts (labels, over the cap, mates among them, malformed lines, lines read) and the malformed
lines' messages. Every trainer reads a label file here (the GA, the perspective net, the Giraffe-style net, the
move net); :func:`target_board` rebuilds a target position. Parsing (python-chess ``set_epd``) and target
resolution (:mod:`mentor.target`: PV walk and capture quiescence, in Python) are the slow part of a large file:
lines are parsed in chunks of :data:`CHUNK` by worker processes (:func:`evolve.data.chunks.map_label_chunks`).

The result is stored as one ``.npz`` (no pickle) under ``$MIMIC_CACHE/labels/``, named by its key: a
BLAKE2 hash of the label file's bytes, the target mode, the cap (``None``: no cap), the line limit (when one is
given) and :data:`FORMAT_VERSION`. The file holds that key and a digest of it and of every array keyed with the
user's secret cache key (:func:`organisms.feature_cache.save_keyed_npz`, :mod:`search.runtime.cachekey`); a file
whose key or digest disagrees (another label file, a truncated, tampered or forged cache) is ignored and
rewritten. The features are cached separately, by :func:`organisms.features.feature_matrix`, keyed by these rows and
:func:`organisms.features.feature_key` (the feature set's name and version), so a new feature version
recomputes the features and keeps the parsed labels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import chess
import numpy as np

from evolve.data.chunks import ChunkTally, map_label_chunks, read_chunk
from mentor.labels import DEFAULT_CAP
from mentor.target import target_with_plies
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from organisms.features import bitboard_row
from organisms.giraffe import giraffe_row
from search.conventions import result_points
from search.runtime.cachekey import cache_root
from search.runtime.errors import SettingsError
from search.runtime.files import open_regular

FORMAT_VERSION = 5
"""Bumped whenever what :func:`resolve_labels` computes or how it is stored changes (target rules, stored
arrays; 3: a keyed digest instead of a checksum; 4: the labels' plies and quiet flags; 5: castling rights, en
passant, the first move and the count of lines, for the nets)."""

CHUNK = 5000
"""Label lines per worker task."""

MAX_ERRORS = 1000
"""Malformed lines whose messages are kept (all are counted)."""

_ARRAYS = ("rows", "y", "result", "plies", "ply", "quiet", "castling", "rights", "ep", "move", "counts", "errors")
_COLUMNS = (("result", np.float64), ("plies", np.float64), ("ply", np.float64), ("quiet", np.bool_),
            ("castling", np.uint8), ("rights", np.uint64), ("ep", np.int8), ("move", np.int32))
"""The per-label arrays besides ``rows`` and ``y``, and their types."""


@dataclass
class ResolvedLabels:
    """A label file's usable labels at their targets (see the module docstring)."""

    rows: np.ndarray  # (N, 9) uint64 bitboard rows of the target positions
    y: np.ndarray  # (N,) float64 mentor score at the target, cp, target's side to move
    result: np.ndarray  # (N,) float64 1 / 0.5 / 0 for the target's side to move; NaN when unknown
    plies: np.ndarray  # (N,) float64 plies from the target to the game's end; NaN when unknown
    ply: np.ndarray  # (N,) float64 the target's ply from the game's start (fmvn + the walk); NaN when unknown
    quiet: np.ndarray  # (N,) bool: the label is quiet (see the module docstring)
    castling: np.ndarray  # (N,) uint8 the target's castling rights as Giraffe's bits (organisms.giraffe.giraffe_row)
    rights: np.ndarray  # (N,) uint64 the target's castling rights as python-chess holds them (rook squares)
    ep: np.ndarray  # (N,) int8 the target's en-passant square, -1 when none
    move: np.ndarray  # (N,) int32 the mentor's first PV move from the labelled position (move_code), -1 when none
    total: int = 0
    over_cap: int = 0
    mates: int = 0
    malformed: int = 0
    errors: list[str] = field(default_factory=list)  # FILE:LINE: reason (the first MAX_ERRORS)
    cached: bool = False  # read from the cache (nothing was parsed)
    lines: int = 0  # label lines read (labels and malformed lines; blank and comment lines not counted)

    def giraffe_rows(self) -> np.ndarray:
        """(N, 10) uint64: :func:`organisms.giraffe.giraffe_row` of each target (the bitboards, then Giraffe's
        castling bits)."""
        return np.ascontiguousarray(np.column_stack([self.rows, self.castling.astype(np.uint64)]), dtype=np.uint64)


def move_code(move: chess.Move | None) -> int:
    """A move as one integer: ``from + 64 * to + 4096 * promotion`` (0 without one); -1 for no move."""
    return -1 if move is None else move.from_square + 64 * move.to_square + 4096 * (move.promotion or 0)


def code_move(code: int) -> chess.Move | None:
    """The move of :func:`move_code` (``None`` for -1)."""
    if code < 0:
        return None
    return chess.Move(code % 64, code // 64 % 64, code // 4096 or None)


def target_board(row: np.ndarray, rights: int = 0, ep: int = -1) -> chess.Board:
    """The position of a bitboard row (:func:`organisms.features.bitboard_row`) with its castling ``rights`` (rook
    squares) and en-passant square ``ep`` (-1: none): the same legal moves as the labelled or target position."""
    board = chess.Board(None)
    (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings) = (int(v) for v in row[:6])
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = int(row[6]), int(row[7])
    board.occupied = int(row[6]) | int(row[7])
    board.turn = bool(row[8])
    board.castling_rights = int(rights)
    board.ep_square = None if ep < 0 else int(ep)
    return board


def label_cache_dir() -> Path:
    """``$MIMIC_CACHE/labels`` (``~/.cache/mimic/labels`` by default), beside the feature cache."""
    return cache_root() / "labels"


def file_digest(path: str | Path, chunk: int = 1 << 22) -> str:
    """BLAKE2 of a file's bytes, read in chunks of ``chunk`` bytes."""
    digest = hashlib.blake2b(digest_size=20)
    with open_regular(path, "label file") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def cache_key(path: str | Path, target: str, cap: int | None, limit: int | None = None, score: int = 0) -> str:
    """The key of a label file's resolved labels: its content, the target mode, the cap, the line limit, the mentor
    whose score it is (a crowd's), the format."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(file_digest(path).encode())
    digest.update(f"|target={target}|cap={cap}|labels-v{FORMAT_VERSION}".encode())
    if limit is not None:
        digest.update(f"|limit={limit}".encode())
    if score:
        digest.update(f"|score={score}".encode())
    return digest.hexdigest()


def _resolve_chunk(lines: list[tuple[int, str]], path: str, target: str, cap: int | None, score: int = 0
                   ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[int], list[str]]:
    """Parse and resolve one chunk of label lines (runs in a worker): rows, scores, the :data:`_COLUMNS`, the
    counts and the malformed lines."""
    rows: list[tuple[int, ...]] = []
    ys: list[float] = []
    columns: dict[str, list[float]] = {name: [] for name, _ in _COLUMNS}
    tally = ChunkTally()
    for label in read_chunk(lines, path, tally, cap, score):
        board, value, k = target_with_plies(label, target)
        rows.append(bitboard_row(board))
        ys.append(value)
        points = result_points(label.result, board.turn)  # the game's result from the target's side to move
        columns["result"].append(float("nan") if points is None else points)
        columns["plies"].append(float("nan") if label.plies_to_end is None else max(label.plies_to_end - k, 0))
        root = label.root_ply
        columns["ply"].append(float("nan") if root is None else root + k)
        columns["quiet"].append(label.quiet())
        columns["castling"].append(giraffe_row(board)[9])
        columns["rights"].append(board.castling_rights)
        columns["ep"].append(-1 if board.ep_square is None else board.ep_square)
        columns["move"].append(move_code(label.pv[0] if label.pv else None))
    return (np.array(rows, dtype=np.uint64).reshape(-1, 9), np.array(ys, dtype=np.float64),
            [np.array(columns[name], dtype=kind) for name, kind in _COLUMNS],
            [tally.total, tally.over, tally.mates], [f"{line}:{reason}" for line, reason in tally.errors])


def resolve_labels(path: str | Path, target: str = "leaf", cap: int | None = DEFAULT_CAP, n_jobs: int = 1,
                   use_cache: bool = True, cache_dir: str | Path | None = None,
                   on_chunk: Callable[[int], None] | None = None, *, limit: int | None = None,
                   chunk: int | None = None, score: int = 0) -> ResolvedLabels:
    """The resolved labels of ``path`` (see the module docstring), from the cache when it holds them.

    ``n_jobs`` worker processes (``-1``: every core) parse chunks of ``chunk`` (default :data:`CHUNK`) lines;
    ``cache_dir`` defaults to :func:`label_cache_dir`; ``on_chunk(lines)`` is called as each chunk is done; ``cap``
    ``None`` keeps every label; ``limit`` reads only the first ``limit`` label lines; ``score`` ``i`` ≥ 1 trains on a
    crowd's ``i``-th mentor's scores (:func:`evolve.data.chunks.read_chunk`), 0 on ``ce`` (the crowd's, or the
    one mentor's).
    """
    if target not in ("leaf", "root"):
        raise SettingsError(f"unknown target mode {target!r} (leaf or root)")
    cache_path = key = None
    if use_cache:
        key = cache_key(path, target, cap, limit, score)
        cache_path = Path(cache_dir or label_cache_dir()) / f"{key}.npz"
        cached = read_cached_labels(cache_path, key)
        if cached is not None:
            cached.errors = _with_path(path, cached.errors)
            return cached
    errors: list[str] = []  # "LINE:reason"; the path is added when read (the cache is keyed by content)
    parts, n_lines = map_label_chunks(path, _resolve_chunk, target, cap, score, chunk=chunk or CHUNK, n_jobs=n_jobs,
                                      limit=limit, on_error=lambda e: errors.append(f"{e.line_no}:{e.reason}"),
                                      on_chunk=on_chunk)
    total = over = mates = 0
    for part in parts:
        total, over, mates = total + part[3][0], over + part[3][1], mates + part[3][2]
        errors.extend(part[4])

    def joined(arrays: list[np.ndarray], empty: np.ndarray) -> np.ndarray:
        return np.concatenate(arrays) if arrays else empty

    columns = {name: joined([p[2][i] for p in parts], np.zeros(0, dtype=kind))
               for i, (name, kind) in enumerate(_COLUMNS)}
    out = _labels(joined([p[0] for p in parts], np.zeros((0, 9), dtype=np.uint64)),
                  joined([p[1] for p in parts], np.zeros(0)), columns,
                  [total, over, mates, len(errors), n_lines], errors[:MAX_ERRORS])
    if cache_path is not None and key is not None:
        write_cached_labels(cache_path, key, out)
    out.errors = _with_path(path, out.errors)
    return out


def _with_path(path: str | Path, errors: list[str]) -> list[str]:
    """``FILE:LINE: reason`` from the stored ``LINE:reason`` (a cache may have been made for a copy of
    the file under another name)."""
    return [f"{path}:{line}: {reason}" for line, _, reason in (e.partition(":") for e in errors)]


def _arrays(r: ResolvedLabels) -> dict[str, np.ndarray]:
    return {"rows": np.ascontiguousarray(r.rows, dtype=np.uint64), "y": np.asarray(r.y, dtype=np.float64),
            **{name: np.asarray(getattr(r, name), dtype=kind) for name, kind in _COLUMNS},
            "counts": np.array([r.total, r.over_cap, r.mates, r.malformed, r.lines], dtype=np.int64),
            "errors": np.array(r.errors, dtype=np.str_).reshape(-1)}


def read_cached_labels(path: Path, key: str) -> ResolvedLabels | None:
    """The resolved labels stored in ``path``, or ``None`` when the file is missing, unreadable,
    truncated, made for another key, inconsistent, or its keyed digest does not verify."""
    arrays = load_keyed_npz(path, _ARRAYS, key)
    if arrays is None:
        return None
    rows, counts = arrays["rows"], arrays["counts"]
    n = len(arrays["y"])
    if (rows.dtype != np.uint64 or rows.shape != (n, 9) or counts.shape != (5,)
            or any(arrays[k].shape != (n,) or arrays[k].dtype != kind for k, kind in _COLUMNS)):
        return None
    out = _labels(rows, arrays["y"], arrays, [int(x) for x in counts], [str(e) for e in arrays["errors"]])
    out.cached = True
    return out


def _labels(rows: np.ndarray, y: np.ndarray, columns: Mapping[str, np.ndarray], counts: list[int],
            errors: list[str]) -> ResolvedLabels:
    """:class:`ResolvedLabels` of the arrays, the :data:`_COLUMNS` by name and the counts (labels, over the cap,
    mates, malformed, lines)."""
    c = columns
    return ResolvedLabels(rows, y, c["result"], c["plies"], c["ply"], c["quiet"], c["castling"], c["rights"], c["ep"],
                          c["move"], total=counts[0], over_cap=counts[1], mates=counts[2], malformed=counts[3],
                          errors=errors, lines=counts[4])


def write_cached_labels(path: Path, key: str, resolved: ResolvedLabels) -> bool:
    """Store ``resolved`` under ``key`` with its keyed digest, written beside ``path`` and moved into place.
    A cache that cannot be written (full disk, read-only, no trusted secret key) is skipped: returns False,
    nothing half-written is left."""
    return save_keyed_npz(path, _arrays(resolved), _ARRAYS, key)
