"""TD-Leaf(λ) self-play for the Giraffe-style net (torch, the optional extra ``nets``), in Giraffe's pattern.

One **iteration**: the net's current weights become a numpy :class:`organisms.net.NetEvaluator` inside our
own engine (:class:`search.Engine`); for each of ``games`` start positions (drawn from the openings, or from a
random point of a game set's games, then one random legal move, as Giraffe does to diversify them), the
engine searches ``nodes`` nodes for each of ``plies`` half-moves and plays its move. Step ``t`` gives the
search score ``s_t`` (clipped to ``±cap``) and the leaf of its principal variation, resolved by the capture
quiescence the labels' targets use (:func:`mentor.target.quiet_leaf`). With the scores in White's view
``w_t``, the temporal differences ``d_t = w_{t+1} - w_t`` and the TD-Leaf target of step t is

    T_t = w_t + sum_{j >= t} λ^(j-t) d_j        (λ = 0.7, Giraffe's; T of the last step is w_t itself)

and the net is moved toward the targets: plain SGD (stateless, so a run resumes exactly) on
``(f(leaf_t) - T_t)^2 / 2`` in pawns, whose gradient is TD-Leaf's update ``-Σ λ^(j-t) d_j ∇f(leaf_t)`` up to
the difference between ``f(leaf_t)`` and ``s_t`` (none when the PV is whole). A game that ends within the
plies ends the chain with its value (mated: ``-cap`` for the side to move, drawn: 0), which is not trained
itself (the search scores finished games). Iteration ``i``'s randomness comes from ``[seed, i]``.

Each iteration appends one row to the curve (the mean |f(leaf) - T| before the step, in centipawns, and the
fixed validation error: the MAE of the net on held-out mentor labels) and writes the checkpoint (weights and
curve in one ``.npz`` with a JSON header, no pickle: :mod:`evolve.nets.checkpoint`), so a run killed between
iterations resumes where it was. With ``snapshot_every`` N, every Nth iteration's net is also kept as a net file
(``td-nets/iter-NNNN.npz`` beside the checkpoint, played as ``net:FILE``), so the curve of *play* over the
iterations can be measured in games, not only the curve of error. Progress reaches the caller through callbacks
(``on_game``, ``on_iteration``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np

from evolve.nets.checkpoint import read_checkpoint, read_count, read_curve, write_checkpoint
from evolve.nets.common import NoTrainingData, refuse_existing, require_torch
from evolve.nets.giraffe import NetShape, evaluator, load_arrays, mae, model_arrays
from mentor.target import quiet_leaf
from organisms.giraffe import giraffe_features
from organisms.net import check_arrays, save_net
from search import Engine, Limit
from search.games.openings import Opening


@dataclass(frozen=True, kw_only=True)
class TDSettings:
    iterations: int = 10
    games: int = 8  # start positions per iteration
    plies: int = 12  # half-moves searched per game (Giraffe: 12)
    nodes: int = 300  # nodes per search
    lam: float = 0.7
    lr: float = 1e-3
    batch: int = 64
    cap: int = 1500  # search scores and targets clipped to +-cap centipawns
    seed: int = 0
    hash_mb: int = 4
    snapshot_every: int = 0  # every N iterations the net is also written as td-nets/iter-NNNN.npz (0: never)


@dataclass
class TDRow:
    iteration: int
    positions: int  # leaves trained on
    td_error: float  # mean |f(leaf) - target| before the step, cp
    held_mae: float  # validation: MAE on the held-out labels after the step, cp


def td_targets(white_scores: Sequence[float], lam: float) -> np.ndarray:
    """TD(λ) targets of a chain of scores (White's view): ``T_t = w_t + Σ_{j>=t} λ^(j-t) (w_{j+1} - w_j)``.

    >>> td_targets([0, 100, 100], 0.5).tolist()  # d = (100, 0): T_0 = 0 + 100 + 0.5*0, T_1 = 100 + 0
    [100.0, 100.0, 100.0]
    >>> td_targets([0, 100, 300], 0.5).tolist()  # d = (100, 200): T_0 = 0 + 100 + 0.5*200 = 200, T_1 = 300
    [200.0, 300.0, 300.0]
    """
    w = np.asarray(white_scores, dtype=np.float64)
    acc = 0.0
    out = np.empty_like(w)
    for t in range(len(w) - 1, -1, -1):
        d = w[t + 1] - w[t] if t + 1 < len(w) else 0.0
        acc = d + lam * acc
        out[t] = w[t] + acc
    return out


def self_play_game(engine: Engine, start: chess.Board, settings: TDSettings
                   ) -> tuple[list[np.ndarray], list[float]]:
    """One TD-Leaf game from ``start``: the features of each trained leaf and its target in pawns from the
    leaf's side to move (see the module docstring)."""
    board = start.copy(stack=False)
    white: list[float] = []  # the chain of scores, White's view, cp
    leaves: list[chess.Board | None] = []
    cap = settings.cap
    for _ in range(settings.plies):
        if board.is_checkmate():
            white.append(-cap if board.turn == chess.WHITE else cap)
            leaves.append(None)
            break
        if board.is_game_over(claim_draw=True):
            white.append(0.0)
            leaves.append(None)
            break
        r = engine.search(board, Limit(nodes=settings.nodes))
        score = float(min(max(r.score, -cap), cap))
        white.append(score if board.turn == chess.WHITE else -score)
        leaf = board.copy(stack=False)
        for m in r.pv:
            if not leaf.is_legal(m):
                break
            leaf.push(m)
        leaf, _ = quiet_leaf(leaf)
        leaves.append(None if leaf.is_game_over() else leaf)
        assert r.move is not None
        board.push(r.move)
    targets = td_targets(white, settings.lam)
    xs, ys = [], []
    for trained, t in zip(leaves, targets, strict=True):
        if trained is None:
            continue
        xs.append(giraffe_features(trained))
        ys.append(float(min(max(t, -cap), cap)) * (1 if trained.turn == chess.WHITE else -1))
    return xs, ys


def start_position(opening: Opening, rng: np.random.Generator) -> chess.Board | None:
    """A game's start: the opening's position, or for a game of a PGN game set (an opening with moves) the
    position after a random number of its moves (0 to all), then one random legal move; ``None`` when the
    game is over there."""
    board = chess.Board(opening.fen)
    for m in opening.moves[:int(rng.integers(len(opening.moves) + 1))]:
        board.push_uci(m)
    moves = list(board.legal_moves)
    if not moves:
        return None
    board.push(moves[int(rng.integers(len(moves)))])
    return None if board.is_game_over() else board


TD_KIND = "td-checkpoint"
"""The ``kind`` of a TD-Leaf checkpoint's header (files written before it have none, and are read as one)."""

save_checkpoint = write_checkpoint
"""Weights and a JSON header in one ``.npz``, written whole or not at all (:mod:`evolve.nets.checkpoint`)."""


TD_FIELDS = {"iteration": int, "positions": int, "td_error": float, "held_mae": float}
"""The keys of a row of the TD-Leaf curve (:class:`TDRow`) and their types."""


def load_checkpoint(path: Path, shape: NetShape) -> tuple[dict[str, np.ndarray], int, list[TDRow]]:
    """The weights, iteration and curve of a TD-Leaf checkpoint of a net of ``shape``, checked before anything is
    restored (:func:`evolve.nets.checkpoint.read_checkpoint`): the net's arrays of exactly its shapes and finite,
    ``td_iteration`` a whole number and ``td_curve`` one :data:`TD_FIELDS` record per iteration, in order (the TD
    error and the held-out error may be NaN: none measured); :class:`~organisms.net.NetFileError`, one line naming
    the file, otherwise."""
    shapes = shape.array_shapes()
    arrays, header = read_checkpoint(path, lambda h: shapes, noun="TD-Leaf checkpoint", kind=TD_KIND,
                                     legacy_kind=True)
    arrays = check_arrays(arrays, shapes, str(path))
    source = str(path)
    done = read_count(header, "td_iteration", source, 1 << 30)
    curve = read_curve(header, "td_curve", TD_FIELDS, source, rows=done, index="iteration",
                       allow_nan=lambda k: k in ("td_error", "held_mae"))
    return arrays, done, [TDRow(**r) for r in curve]


def td_leaf(model: Any, shape: NetShape, openings: Sequence[Opening], settings: TDSettings, checkpoint: Path,
            validation: tuple[np.ndarray, np.ndarray], *, resume: bool = False,
            on_game: Callable[[int, int], None] | None = None,
            on_iteration: Callable[[TDRow], None] | None = None) -> list[TDRow]:
    """Run TD-Leaf iterations on ``model`` (changed in place), checkpointing to ``checkpoint`` after each;
    with ``resume``, start from the checkpoint's weights and iteration. ``validation`` is (features, cp) of
    the fixed held-out labels. Returns the whole curve (earlier iterations' rows included when resuming).
    Progress goes to the callbacks: ``on_game(done, total)`` after each game (games of the whole run, earlier
    iterations' counted), ``on_iteration(row)`` after each iteration."""
    torch = require_torch()
    if not openings:
        raise NoTrainingData("TD-Leaf needs start positions (no openings)")
    rows: list[TDRow] = []
    first = 0
    if resume and checkpoint.exists():
        arrays, first, rows = load_checkpoint(checkpoint, shape)
        load_arrays(model, arrays)
    elif not resume:
        refuse_existing(checkpoint, f"{checkpoint}: a TD-Leaf checkpoint is there (resume it, or choose another "
                                    "folder)")
    opt = torch.optim.SGD(model.parameters(), lr=settings.lr)
    total_games = settings.iterations * settings.games
    for it in range(first, settings.iterations):
        rng = np.random.default_rng([settings.seed, it, 0x7D1EAF])
        engine = Engine(evaluator(model, shape), hash_mb=settings.hash_mb)
        xs: list[np.ndarray] = []
        ys: list[float] = []
        for game in range(settings.games):
            start = start_position(openings[int(rng.integers(len(openings)))], rng)
            if start is not None:
                engine.new_game()
                gx, gy = self_play_game(engine, start, settings)
                xs += gx
                ys += gy
            if on_game is not None:
                on_game(it * settings.games + game + 1, total_games)
        td_error = float("nan")
        if xs:
            x = torch.from_numpy(np.stack(xs).astype(np.float32))
            y = torch.from_numpy((np.asarray(ys) / shape.scale).astype(np.float32))
            with torch.no_grad():
                td_error = float((model(x) - y).abs().mean()) * shape.scale
            perm = rng.permutation(len(ys))
            for s in range(0, len(ys), settings.batch):
                idx = torch.from_numpy(perm[s:s + settings.batch])
                loss = 0.5 * ((model(x[idx]) - y[idx]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        row = TDRow(it + 1, len(ys), td_error, mae(evaluator(model, shape), *validation))
        rows.append(row)
        save_checkpoint(checkpoint, model_arrays(model),
                        {"kind": TD_KIND, "td_iteration": it + 1, "td_curve": [asdict(r) for r in rows],
                         "td_settings": asdict(settings)})
        if settings.snapshot_every and (it + 1) % settings.snapshot_every == 0:
            save_net(snapshot_path(checkpoint, it + 1), model_arrays(model),
                     shape.header(td_iteration=it + 1, td_settings=asdict(settings)))
        if on_iteration is not None:
            on_iteration(row)
    return rows


def snapshot_path(checkpoint: Path, iteration: int) -> Path:
    """Where TD-Leaf keeps the net of ``iteration`` (1-based): ``td-nets/iter-NNNN.npz`` beside ``checkpoint``."""
    return checkpoint.parent / "td-nets" / f"iter-{iteration:04d}.npz"
