"""``mimic train-moves``: a move-probability net (:mod:`organisms.movenet`) trained on the mentor's best moves.

**Data** (:func:`load_move_data`): every label of a label file (read by :func:`evolve.data.cache.resolve_labels`,
the one label reader, at the labelled position, no cap) whose PV starts with a legal move and whose position has
at least two legal moves; the move features of every legal move (:func:`organisms.movenet.
move_indices`, extracted in worker processes) and which of them the mentor played. A seeded share of the
positions is held out.

**Training** (:func:`train_move_net`, torch): the net scores every legal move; the loss is the cross-entropy of
the softmax over a position's legal moves against the mentor's move (the likelihood Giraffe's move evaluator
maximises). Adam, minibatches of positions, a fixed number of epochs; a run takes minutes on 2 cores and is not
resumable (rerun it).

**Measured** (:func:`move_metrics`), on the held-out positions and on an optional test label file, for the net,
the probability-limited search's static heuristic (:func:`search.prob.move_weights` without hash move or
killers: SEE classes for captures and promotions, quiet moves 1) and the uniform distribution: top-1 accuracy
(the mentor's move has the highest probability; a tie of ``k`` moves counts ``1/k``), top-3 accuracy (likewise),
and the mean log-likelihood of the mentor's move in nats.

Writes ``movenet.npz`` (play with ``@search=prob-net:DIR/movenet.npz``), ``summary.md`` and ``curve.png``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evolve.data.cache import code_move, resolve_labels, target_board
from evolve.data.dataset import split
from evolve.nets.common import NoTrainingData, Report, curve_table, prelude, quiet, require_torch, write_summary
from organisms.movenet import N_ACTIVE, N_MOVE_FEATURES, MoveNet, make_header, move_indices, save_move_net
from search.prob import move_weights
from search.runtime.provenance import provenance
from search.runtime.workers import parallel_map

CHUNK = 2000
"""Positions per worker task (their legal moves' features)."""


@dataclass
class MoveNetData:
    """Positions with every legal move's features: ``idx`` (M, 8) int16 (the moves of position ``i`` are rows
    ``start[i]:start[i + 1]``), ``best`` (N,) the mentor's move's row within its position, ``heuristic`` (M,)
    the static heuristic's weight of each move."""

    idx: np.ndarray
    start: np.ndarray
    best: np.ndarray
    heuristic: np.ndarray
    source: str = ""
    total: int = 0  # label lines read
    skipped: int = 0  # labels without a legal first PV move, or with one legal move
    errors: list[str] = field(default_factory=list)  # the first malformed lines, FILE:LINE: reason
    malformed: int = 0  # malformed lines (all of them)

    @property
    def n(self) -> int:
        return len(self.best)

    def counts(self) -> np.ndarray:
        return np.diff(self.start)


def _chunk(part: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The move features of a chunk of labelled positions (rows, castling rights, en passant, the mentor's move:
    :class:`evolve.data.cache.ResolvedLabels` at the root); runs in a worker."""
    idx, counts, best, heur = [], [], [], []
    skipped = 0
    for row, rights, ep, code in zip(*part, strict=True):
        board = target_board(row, int(rights), int(ep))
        moves = list(board.legal_moves)
        first = code_move(int(code))
        if first is None or first not in moves or len(moves) < 2:
            skipped += 1
            continue
        idx.append(move_indices(board, moves).astype(np.int16))
        counts.append(len(moves))
        best.append(moves.index(first))
        heur.append(np.asarray(move_weights(board, moves, None, [None, None]), dtype=np.float32))
    return (_cat(idx, (0, N_ACTIVE), np.int16), np.array(counts, np.int64), np.array(best, np.int64),
            _cat(heur, (0,), np.float32), skipped)


def _cat(parts: Sequence[np.ndarray], empty: tuple[int, ...], dtype: Any) -> np.ndarray:
    return np.concatenate(parts) if len(parts) else np.zeros(empty, dtype)


def load_move_data(path: str | Path, n_jobs: int = 1, limit: int | None = None, use_cache: bool = True
                   ) -> MoveNetData:
    """The positions of a label file (module docstring); ``limit`` keeps the first ``limit`` label lines. The labels
    are read by :func:`evolve.data.cache.resolve_labels` (at the root, no cap; cached with ``use_cache``), their
    moves' features extracted in ``n_jobs`` worker processes."""
    r = resolve_labels(path, "root", None, n_jobs=n_jobs, use_cache=use_cache, limit=limit)
    columns = (r.rows, r.rights, r.ep, r.move)
    chunks = [tuple(c[i:i + CHUNK] for c in columns) for i in range(0, len(r.y), CHUNK)]
    parts = list(parallel_map(_chunk, chunks, n_jobs))
    counts = _cat([p[1] for p in parts], (0,), np.int64)
    data = MoveNetData(_cat([p[0] for p in parts], (0, N_ACTIVE), np.int16),
                       np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), _cat([p[2] for p in parts], (0,),
                       np.int64), _cat([p[3] for p in parts], (0,), np.float32), str(path), r.lines,
                       sum(p[4] for p in parts), r.errors, r.malformed)
    if not data.n:
        raise NoTrainingData(f"{path}: no usable labels (of {r.lines}: each needs a legal first PV move and a "
                             "choice of moves)")
    return data


def subset(data: MoveNetData, rows: np.ndarray) -> MoveNetData:
    """The positions ``rows`` of ``data``, in that order."""
    counts = data.counts()[rows]
    take = np.concatenate([np.arange(data.start[r], data.start[r + 1]) for r in rows]) if len(rows) else \
        np.zeros(0, np.int64)
    return MoveNetData(data.idx[take], np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), data.best[rows],
                       data.heuristic[take], data.source, len(rows))


# ---------------------------------------------------------------------------------------------------
# Metrics.


def move_metrics(scores: np.ndarray, data: MoveNetData) -> dict[str, float]:
    """Top-1, top-3 accuracy and the mean log-likelihood (nats) of the mentor's move, from one score per move
    (log-weights: the softmax over a position's moves is its distribution); ties share (module docstring). Also
    the distribution's mean entropy (nats; uniform over ``n`` moves: ``log n``): how selective a search it
    drives is."""
    top1 = top3 = ll = entropy = 0.0
    for i in range(data.n):
        s = scores[data.start[i]:data.start[i + 1]].astype(np.float64)
        b = s[data.best[i]]
        higher, equal = int((s > b).sum()), int((s == b).sum())  # equal counts the mentor's move itself
        top1 += 1.0 / equal if higher == 0 else 0.0
        top3 += min(max(3 - higher, 0), equal) / equal
        m = s.max()
        log_z = np.log(np.exp(s - m).sum())
        ll += b - m - log_z
        logp = s - m - log_z
        entropy -= float((np.exp(logp) * logp).sum())
    n = max(data.n, 1)
    return {"top1": top1 / n, "top3": top3 / n, "log_likelihood": ll / n, "entropy": entropy / n,
            "positions": float(data.n)}


def all_metrics(net: MoveNet | None, data: MoveNetData) -> dict[str, dict[str, float]]:
    """:func:`move_metrics` of the uniform distribution, the static heuristic and (given) the net."""
    out = {"uniform": move_metrics(np.zeros(len(data.idx)), data),
           "heuristic": move_metrics(np.log(data.heuristic), data)}
    if net is not None:
        out["net"] = move_metrics(net.scores(data.idx.astype(np.int64)), data)
    return out


# ---------------------------------------------------------------------------------------------------
# Training.


@dataclass(frozen=True, kw_only=True)
class MoveTrainSettings:
    hidden: int = 32
    epochs: int = 8
    batch: int = 256  # positions a minibatch
    lr: float = 3e-3
    held_out: float = 0.1
    limit: int | None = None
    jobs: int = 1
    seed: int = 0


def build_model(hidden: int, seed: int) -> Any:
    """A fresh torch move net: an embedding of the :data:`N_MOVE_FEATURES` inputs (plus a zero padding row),
    summed over a move's active inputs, ReLU, one linear output."""
    torch = require_torch()
    nn = torch.nn

    class MoveScorer(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(N_MOVE_FEATURES + 1, hidden, padding_idx=N_MOVE_FEATURES)
            self.b_in = nn.Parameter(torch.zeros(hidden))
            self.out = nn.Linear(hidden, 1)

        def forward(self, idx: Any) -> Any:  # (..., N_ACTIVE) -> (...)
            h = torch.relu(self.emb(idx).sum(dim=-2) + self.b_in)
            return self.out(h).squeeze(-1)

    torch.manual_seed(seed)
    model = MoveScorer()
    with torch.no_grad():
        model.emb.weight.mul_(0.1)
        model.emb.weight[N_MOVE_FEATURES].zero_()
    return model


def model_arrays(model: Any) -> dict[str, np.ndarray]:
    return {"w_in": model.emb.weight.detach().numpy()[:N_MOVE_FEATURES].copy(),
            "b_in": model.b_in.detach().numpy().copy(),
            "w_out": model.out.weight.detach().numpy().T.copy(), "b_out": model.out.bias.detach().numpy().copy()}


def _padded(data: MoveNetData, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The moves of positions ``rows`` as (B, L, N_ACTIVE) indices padded with the padding input, and a (B, L)
    mask of real moves."""
    counts = data.counts()[rows]
    width = int(counts.max())
    idx = np.full((len(rows), width, N_ACTIVE), N_MOVE_FEATURES, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=bool)
    for j, r in enumerate(rows):
        c = int(counts[j])
        idx[j, :c] = data.idx[data.start[r]:data.start[r] + c]
        mask[j, :c] = True
    return idx, mask


@dataclass
class MoveOutcome:
    path: Path
    curve: list[list[float]]  # [epoch, training loss, held-out top-1, held-out log-likelihood]
    metrics: dict[str, dict[str, dict[str, float]]]  # part -> source -> metric
    seconds: float


def train_move_net(labels: str, out_dir: str, settings: MoveTrainSettings, command: str = "", *,
                   test: str | None = None, report: Report | None = None) -> MoveOutcome:
    """The whole run (module docstring); a line an epoch to ``report``. A ``MimicError`` for unusable labels or
    without torch."""
    torch = require_torch()
    torch.set_num_threads(1)
    say = report or quiet
    started = time.perf_counter()
    data = load_move_data(labels, settings.jobs, settings.limit)
    train_rows, held_rows = split(data.n, settings.held_out, settings.seed)
    held = subset(data, held_rows)
    say(f"{data.n} positions of {data.total} labels in {labels} ({data.skipped} without a legal PV move or a "
        f"choice, {data.malformed} malformed): {len(train_rows)} training, {len(held_rows)} held out; "
        f"{len(data.idx) / max(data.n, 1):.1f} legal moves a position")
    test_data = load_move_data(test, settings.jobs) if test else None
    model = build_model(settings.hidden, settings.seed)
    opt = torch.optim.Adam(model.parameters(), lr=settings.lr)
    rng = np.random.default_rng([settings.seed, 0x30E])
    curve: list[list[float]] = []
    header_extra = {"training": asdict(settings), "labels": labels, "command": command}
    for epoch in range(1, settings.epochs + 1):
        perm = rng.permutation(train_rows)
        total = 0.0
        model.train()
        for s in range(0, len(perm), settings.batch):
            rows = perm[s:s + settings.batch]
            idx, mask = _padded(data, rows)
            scores = model(torch.from_numpy(idx)).masked_fill(~torch.from_numpy(mask), float("-inf"))
            loss = torch.nn.functional.cross_entropy(scores, torch.from_numpy(data.best[rows]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(rows)
        net = MoveNet(model_arrays(model), make_header(settings.hidden))
        m = move_metrics(net.scores(held.idx.astype(np.int64)), held) if held.n else {"top1": float("nan"),
                                                                                      "log_likelihood": float("nan")}
        curve.append([epoch, total / max(len(perm), 1), m["top1"], m["log_likelihood"]])
        say(f"epoch {epoch}: loss {total / max(len(perm), 1):.4f}, held-out top-1 {m['top1']:.3f}, "
            f"log-likelihood {m['log_likelihood']:.3f}")
    net = MoveNet(model_arrays(model), make_header(settings.hidden))
    metrics = {"held-out": all_metrics(net, held)}
    if test_data is not None:
        metrics[f"test ({test})"] = all_metrics(net, test_data)
    seconds = time.perf_counter() - started
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "movenet.npz"
    save_move_net(path, net.arrays, make_header(settings.hidden, **header_extra, curve=curve, metrics=metrics,
                                                seconds=round(seconds, 1), provenance=provenance()))
    outcome = MoveOutcome(path, curve, metrics, seconds)
    _plot(out / "curve.png", curve)
    write_summary(out / "summary.md", summary_lines(data, settings, outcome, command, labels))
    return outcome


def summary_lines(data: MoveNetData, s: MoveTrainSettings, o: MoveOutcome, command: str, labels: str
                  ) -> list[str]:
    lines = [*prelude(f"Move-probability net trained on {labels}", command),
             f"Data: {data.n} positions of {data.total} labels ({data.skipped} without a legal first PV move or "
             f"with one legal move, {data.malformed} malformed), {len(data.idx) / max(data.n, 1):.1f} legal "
             f"moves a position; {s.held_out:.0%} held out (seed {s.seed}).", "",
             f"Net: {N_MOVE_FEATURES} move features ({N_ACTIVE} active a move), {s.hidden} hidden ReLU units, one "
             f"score a move, softmax over the legal moves. Adam lr {s.lr:g}, {s.epochs} epochs, {s.batch} "
             f"positions a minibatch. Wall time {o.seconds:.0f} s (features and training).", "",
             "## The mentor's move: how likely each source makes it", "",
             "Top-1/top-3: share of positions where the mentor's move is the most likely / among the 3 most likely "
             "(ties share). Log-likelihood: mean log-probability of the mentor's move, nats (higher is better). "
             "Heuristic: the probability-limited search's static weights (SEE classes, quiet 1; no hash move or "
             "killers outside a search).", "",
             "| positions | source | top-1 | top-3 | log-likelihood |", "|---|---|---|---|---|"]
    for part, by in o.metrics.items():
        for name, m in by.items():
            lines.append(f"| {part}, {int(m['positions'])} | {name} | {m['top1']:.3f} | {m['top3']:.3f} | "
                         f"{m['log_likelihood']:.3f} |")
    lines += ["", "## Curve", "",
              *curve_table(("epoch", "training loss", "held-out top-1", "held-out log-likelihood"),
                           ((int(r[0]), *r[1:]) for r in o.curve), ("{}", "{:.4f}", "{:.3f}", "{:.3f}"))]
    return lines


def _plot(path: Path, curve: Sequence[Sequence[float]]) -> None:
    """``curve.png``: the training loss and the held-out top-1 per epoch."""
    from evolve.plots import Curve, curves, figure, save

    fig, (a, b) = figure(1, 2, size=(9, 3.5))
    epochs = [r[0] for r in curve]
    curves(a, [Curve(epochs, [r[1] for r in curve], style={"marker": "o"})], xlabel="epoch",
           ylabel="training loss (nats)", title="cross-entropy of the mentor's move", grid=False, legend=False)
    curves(b, [Curve(epochs, [r[2] for r in curve], style={"marker": "o"})], xlabel="epoch", ylabel="held-out top-1",
           title="mentor's move ranked first", grid=False, legend=False)
    save(fig, path, dpi=100)
