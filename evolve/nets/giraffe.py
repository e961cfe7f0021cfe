"""Training the Giraffe-style evaluation net (torch, the optional extra ``nets``): the model, its data, the
supervised bootstrap.

torch is imported lazily, inside the functions that train (:func:`evolve.nets.common.require_torch`, re-exported
here, says how to install it); the net it trains is written with :func:`organisms.net.save_net` and played by
:class:`organisms.net.NetEvaluator` with numpy alone. The model mirrors that evaluator exactly: three group
layers (each a ``Linear`` over its own feature columns), ReLU, a fully connected hidden layer, ReLU, one
linear output in pawns (``scale`` = 100 cp per unit), side to move's view; with ``NetShape.linear`` also a linear
path from the 363 features to the output (no bias), started at the piece values on the material counts (pawn 1,
knight and bishop 3, rook 5, queen 9 pawns; ours plus, theirs minus) and at 0 elsewhere.

**Data** (:func:`load_net_data`): a label file read as the organism GA reads it (:mod:`evolve.data.cache`, the
one label reader, and the split of :func:`evolve.data.dataset.kept_split`): each
label's target position (by default the quiet leaf of the mentor's PV, :mod:`mentor.target`) with the
mentor's score from that position's side to move, labels beyond the cap left out, and the same seeded split
(:func:`evolve.data.dataset.split`), so the held-out rows, and the held-out error (mean absolute error in
centipawns), are the organism's for the same file, cap and seed. Features: :func:`organisms.giraffe_matrix`
(cached on disk), of the resolved bitboards and Giraffe's castling bits.

**Bootstrap** (:func:`train_supervised`): Adam on minibatches, with the loss chosen by name in :data:`BOOT_LOSSES`:
``l1``, the mean absolute error in pawns (the organism's metric, Giraffe's and mimic's default), or ``wdl``, the
mean squared error in win-probability space, ``(σ(net / K) − p)²`` with ``p`` and K (the mentor's, fitted
Texel-style on the training rows) from :func:`evolve.ga.wdl.wdl_target` (the organisms' and the perspective net's
``--loss wdl`` convention, its one home): a large score's error weighs little, as in the perspective net's training.
The net learns the mentor's centipawns either way. One row of the error curve per epoch (training and held-out MAE,
centipawns). With a checkpoint file
(``boot-checkpoint.npz``, kind ``boot-checkpoint``) the weights, Adam's state and the curve are written after every
epoch, and a resumed bootstrap goes on from the last one to the weights an uninterrupted run reaches: the epochs'
shuffles come from one generator, drawn again for the epochs done.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evolve.data.cache import resolve_labels
from evolve.data.dataset import kept_split
from evolve.ga.wdl import WdlTarget, wdl_target
from evolve.nets.checkpoint import (
    adam_shapes,
    load_optimizer,
    optimizer_arrays,
    read_checkpoint,
    read_count,
    read_curve,
    write_checkpoint,
)
from evolve.nets.common import EpochRecord, RunExists, record_fields, require_torch
from mentor.labels import DEFAULT_CAP
from organisms.giraffe import GIRAFFE_FEATURE_NAMES, giraffe_matrix
from organisms.net import (
    DEFAULT_HIDDEN,
    DEFAULT_SCALE,
    DEFAULT_UNITS,
    GROUPS,
    NetEvaluator,
    expected_shapes,
    make_header,
)
from search.runtime.errors import SettingsError


@dataclass(frozen=True, kw_only=True)
class NetShape:
    """The architecture: first-layer units per feature group (global, piece, square), hidden units, scale, and
    whether a linear path from the features to the output is added (``linear``)."""

    units: tuple[int, int, int] = DEFAULT_UNITS
    hidden: int = DEFAULT_HIDDEN
    scale: float = DEFAULT_SCALE
    linear: bool = False

    def header(self, **extra: Any) -> dict[str, Any]:
        """A net file's header for this architecture (:func:`organisms.net.make_header`), ``extra`` kept as given."""
        return make_header(self.units, self.hidden, self.scale, linear=self.linear, **extra)

    def array_shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of every array of a net of this architecture (:func:`organisms.net.expected_shapes`)."""
        return expected_shapes(self.units, self.hidden, self.linear)


_PAWNS_PER_UNIT = {"queens": 9.0, "rooks": 10.0, "bishops": 6.0, "knights": 6.0, "pawns": 8.0}
"""A piece's worth in pawns times its count feature's divisor (queens /1, rooks /2, bishops /2, knights /2, pawns /8:
:mod:`organisms.giraffe`), so a whole count is worth 9, 5, 3, 3 and 1 pawns."""
MATERIAL_COLUMNS = {GIRAFFE_FEATURE_NAMES.index(f"{side}_{piece}"): sign * pawns
                    for side, sign in (("our", 1.0), ("their", -1.0)) for piece, pawns in _PAWNS_PER_UNIT.items()}
"""The linear path's starting weights on the global group's material counts (feature column: pawns per unit of the
feature; ours plus, theirs minus)."""


def build_model(shape: NetShape, seed: int = 0) -> Any:
    """A freshly initialised torch model of ``shape`` (torch's default init, seeded)."""
    torch = require_torch()
    nn = torch.nn

    class GiraffeNet(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.groups = nn.ModuleList([nn.Linear(hi - lo, u) for (_, lo, hi), u in
                                         zip(GROUPS, shape.units, strict=True)])
            self.hidden = nn.Linear(sum(shape.units), shape.hidden)
            self.out = nn.Linear(shape.hidden, 1)
            self.linear = nn.Linear(GROUPS[-1][2], 1, bias=False) if shape.linear else None

        def forward(self, x: Any) -> Any:
            h = torch.cat([layer(x[:, lo:hi]) for layer, (_, lo, hi) in zip(self.groups, GROUPS, strict=True)],
                          dim=1)
            h = torch.relu(self.hidden(torch.relu(h)))
            out = self.out(h)
            if self.linear is not None:
                out = out + self.linear(x)
            return out[:, 0]

    torch.manual_seed(seed)
    model = GiraffeNet()
    if model.linear is not None:
        with torch.no_grad():
            model.linear.weight.zero_()
            for col, pawns in MATERIAL_COLUMNS.items():
                model.linear.weight[0, col] = pawns
    return model


def model_arrays(model: Any) -> dict[str, np.ndarray]:
    """The model's weights as the net file's arrays (weight matrices transposed to (inputs, units))."""
    out: dict[str, np.ndarray] = {}
    for layer, (name, _, _) in zip(model.groups, GROUPS, strict=True):
        out[f"w_{name}"] = layer.weight.detach().numpy().T.astype(np.float32)
        out[f"b_{name}"] = layer.bias.detach().numpy().astype(np.float32)
    out["w_hidden"] = model.hidden.weight.detach().numpy().T.astype(np.float32)
    out["b_hidden"] = model.hidden.bias.detach().numpy().astype(np.float32)
    out["w_out"] = model.out.weight.detach().numpy().T.astype(np.float32)
    out["b_out"] = model.out.bias.detach().numpy().astype(np.float32)
    if model.linear is not None:
        out["w_linear"] = model.linear.weight.detach().numpy().T.astype(np.float32)
    return {n: np.ascontiguousarray(a) for n, a in out.items()}


def load_arrays(model: Any, arrays: dict[str, np.ndarray]) -> None:
    """Set the model's weights from net-file arrays (the inverse of :func:`model_arrays`)."""
    torch = require_torch()
    with torch.no_grad():
        for layer, (name, _, _) in zip(model.groups, GROUPS, strict=True):
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(arrays[f"w_{name}"].T)))
            layer.bias.copy_(torch.from_numpy(arrays[f"b_{name}"]))
        model.hidden.weight.copy_(torch.from_numpy(np.ascontiguousarray(arrays["w_hidden"].T)))
        model.hidden.bias.copy_(torch.from_numpy(arrays["b_hidden"]))
        model.out.weight.copy_(torch.from_numpy(np.ascontiguousarray(arrays["w_out"].T)))
        model.out.bias.copy_(torch.from_numpy(arrays["b_out"]))
        if model.linear is not None:
            model.linear.weight.copy_(torch.from_numpy(np.ascontiguousarray(arrays["w_linear"].T)))


def evaluator(model: Any, shape: NetShape, **header: Any) -> NetEvaluator:
    """The numpy evaluator of the model's current weights (what the engine plays with)."""
    return NetEvaluator(model_arrays(model), shape.header(**header))


# ---------------------------------------------------------------------------------------------------
# Data.


@dataclass
class NetData:
    """Labelled target positions: Giraffe features ``x`` (N, 363) float32, mentor scores ``y`` (N,) cp from
    the target's side to move, and the organism's split (``train``, ``held`` row indices)."""

    x: np.ndarray
    y: np.ndarray
    train: np.ndarray
    held: np.ndarray
    source: str = ""
    total: int = 0
    over_cap: int = 0
    mates: int = 0
    malformed: int = 0
    errors: list[str] = field(default_factory=list)
    result: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (N,) 1 / 0.5 / 0 side to move; NaN unknown
    ply: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (N,) the target's ply in its game; NaN unknown

    def describe(self) -> str:
        return (f"{self.total} labels in {self.source}: {len(self.y)} used ({len(self.train)} training, "
                f"{len(self.held)} held out), {self.over_cap} beyond the cap left out ({self.mates} of them "
                f"mates), {self.malformed} malformed lines skipped")


CHUNK = 5000
"""Label lines per worker task when the targets are resolved in parallel (:func:`evolve.data.cache.resolve_labels`)."""


def load_net_data(path: str | Path, target_mode: str = "leaf", cap: int = DEFAULT_CAP, held_out: float = 0.2,
                  seed: int = 0, n_jobs: int = 1, use_cache: bool = True,
                  limit: int | None = None) -> NetData:
    """Read ``path`` (see the module docstring); ``limit`` keeps only the first ``limit`` label lines. Targets
    are resolved, and features extracted, in ``n_jobs`` worker processes (``-1``: every core); both are cached
    (``use_cache``): the resolved labels by :func:`evolve.data.cache.resolve_labels`, the features by
    :func:`organisms.giraffe.giraffe_matrix`."""
    resolved = resolve_labels(path, target_mode, cap, n_jobs=n_jobs, use_cache=use_cache, limit=limit, chunk=CHUNK)
    _, train, held = kept_split(resolved, path, False, held_out, seed, cap)
    x = giraffe_matrix(resolved.giraffe_rows(), n_jobs=n_jobs, use_cache=use_cache)
    return NetData(x, resolved.y, train, held, str(path), resolved.total, resolved.over_cap, resolved.mates,
                   resolved.malformed, resolved.errors, resolved.result, resolved.ply)


def mae(net: NetEvaluator, x: np.ndarray, y: np.ndarray) -> float:
    """Mean absolute error in centipawns of the net's (unrounded) evaluations of ``x`` against ``y``."""
    if not len(y):
        return float("nan")
    return float(np.abs(net.centipawns(x) - y).mean())


def baselines(data: NetData) -> dict[str, float]:
    """Held-out MAE (cp) of trivial predictions: 0, the training mean and the training median."""
    y_tr, y_h = data.y[data.train], data.y[data.held]
    return {"zero": float(np.abs(y_h).mean()), "mean": float(np.abs(y_h - y_tr.mean()).mean()),
            "median": float(np.abs(y_h - np.median(y_tr)).mean())}


# ---------------------------------------------------------------------------------------------------
# Supervised bootstrap.


@dataclass(frozen=True)
class BootLoss:
    """One bootstrap loss: its help text and the unit of its value (empty: a pure number)."""

    summary: str
    unit: str


BOOT_LOSSES: dict[str, BootLoss] = {
    "l1": BootLoss("mean |net - mentor| in pawns (Giraffe's; the organism's error)", "pawns"),
    "wdl": BootLoss("mean (sigmoid(net / K) - p)^2, p the mentor's expected score (sf15.1 model), K the mentor's "
                    "(Texel fit): the organisms' and the perspective net's --loss wdl", ""),
}
"""The bootstrap's losses by name: the one table ``train-net --loss``, :func:`train_supervised` and the run's
report and summary read."""


@dataclass(frozen=True, kw_only=True)
class SupervisedSettings:
    epochs: int = 20
    batch: int = 64
    lr: float = 1e-3
    seed: int = 0
    loss: str = "l1"  # a key of BOOT_LOSSES

    def __post_init__(self) -> None:
        if self.loss not in BOOT_LOSSES:
            raise SettingsError(f"unknown bootstrap loss {self.loss!r} (one of {', '.join(BOOT_LOSSES)})")


def boot_target(data: NetData, settings: SupervisedSettings) -> WdlTarget | None:
    """The win-probability targets and K of the training rows for the ``wdl`` loss (None for ``l1``): the mentor's
    scores through the sf15.1 model, K fitted Texel-style on the training rows (:func:`evolve.ga.wdl.wdl_target`)."""
    if settings.loss != "wdl":
        return None
    return wdl_target(data.y, data.result, data.ply, data.train)


EPOCH_FIELDS = record_fields("train_mae", "held_mae")
"""The keys of a row of the bootstrap's curve (:class:`~evolve.nets.common.EpochRecord`) and their types."""

BOOT_KIND = "boot-checkpoint"
"""The ``kind`` of the bootstrap's checkpoint header."""


def train_supervised(model: Any, data: NetData, shape: NetShape, settings: SupervisedSettings,
                     on_epoch: Callable[[EpochRecord], None] | None = None, *, checkpoint: Path | None = None,
                     resume: bool = False, identity: Mapping[str, Any] | None = None) -> list[EpochRecord]:
    """Fit ``model`` to the training rows of ``data`` (see the module docstring); returns the error curve: an
    :class:`~evolve.nets.common.EpochRecord` an epoch with the training and held-out MAE (cp, after the epoch),
    ``loss`` the mean of the training loss (:data:`BOOT_LOSSES`; the l1 loss in pawns) over the epoch's minibatches.
    With ``checkpoint``, written after every epoch;
    with ``resume`` too, training goes on from it (the earlier epochs' rows included in the curve returned).
    ``identity`` (the data's settings, JSON) is stored in it with ``shape`` and ``settings`` and must match on
    resuming; a checkpoint there without ``resume`` is :class:`~evolve.nets.common.RunExists`."""
    torch = require_torch()
    x_tr = torch.from_numpy(np.ascontiguousarray(data.x[data.train], dtype=np.float32))
    wdl = boot_target(data, settings)  # with it, the targets are win probabilities, the output sigmoid(pawns / K')
    y = data.y[data.train] / shape.scale if wdl is None else wdl.p[data.train]
    y_tr = torch.from_numpy(y.astype(np.float32))
    per_pawn = 0.0 if wdl is None else shape.scale / wdl.k
    opt = torch.optim.Adam(model.parameters(), lr=settings.lr)
    rng = np.random.default_rng([settings.seed, 0xB007])
    rows: list[EpochRecord] = []
    n = len(data.train)
    ident = json.loads(json.dumps({"shape": asdict(shape), "supervised": asdict(settings), "data": identity or {}}))
    if checkpoint is not None and checkpoint.exists():
        if not resume:
            raise RunExists(f"{checkpoint}: a bootstrap checkpoint is there (--resume to continue it)")
        rows = _load_boot(checkpoint, model, opt, shape, settings, ident)
        for _ in rows:  # the shuffles of the epochs done, drawn again: the next epoch's is an uninterrupted run's
            rng.permutation(n)
    for epoch in range(len(rows) + 1, settings.epochs + 1):
        perm = rng.permutation(n)
        total, count = 0.0, 0
        model.train()
        for start in range(0, n, settings.batch):
            idx = torch.from_numpy(perm[start:start + settings.batch])
            pred = model(x_tr[idx])
            if wdl is None:
                loss = (pred - y_tr[idx]).abs().mean()
            else:
                d = torch.sigmoid(pred * per_pawn) - y_tr[idx]
                loss = (d * d).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        net = evaluator(model, shape)
        row = EpochRecord(epoch, total / max(count, 1), train_mae=mae(net, data.x[data.train], data.y[data.train]),
                          held_mae=mae(net, data.x[data.held], data.y[data.held]))
        rows.append(row)
        if checkpoint is not None:
            write_checkpoint(checkpoint, {**model_arrays(model), **optimizer_arrays(opt)},
                             {"format": "mimic-net", "kind": BOOT_KIND, "epoch": len(rows),
                              "curve": [r.to_json() for r in rows], **ident})
        if on_epoch is not None:
            on_epoch(row)
    return rows


def _load_boot(path: Path, model: Any, opt: Any, shape: NetShape, settings: SupervisedSettings,
               ident: Mapping[str, Any]) -> list[EpochRecord]:
    """Restore the model and Adam from the bootstrap checkpoint ``path``, checked first
    (:func:`evolve.nets.checkpoint.read_checkpoint`: its kind, the same settings, every array of its shape and
    finite, a finite curve of one row an epoch done); the curve so far. :class:`~organisms.net.NetFileError`, one
    line naming the file, otherwise."""
    source = str(path)
    shapes = {**shape.array_shapes(), **adam_shapes([tuple(p.shape) for p in model.parameters()])}
    arrays, header = read_checkpoint(path, lambda h: shapes,
                                     noun="bootstrap checkpoint", kind=BOOT_KIND, identity=ident,
                                     nonfinite="holds numbers that are not finite")
    done = read_count(header, "epoch", source, settings.epochs)
    no_held = ident.get("data", {}).get("held_out") == 0  # then the held-out errors are NaN, and only then
    curve = read_curve(header, "curve", EPOCH_FIELDS, source, rows=done, index="epoch",
                       allow_nan=lambda k: no_held and k == "held_mae")
    load_arrays(model, arrays)
    load_optimizer(opt, arrays)
    return [EpochRecord.from_json(r) for r in curve]
