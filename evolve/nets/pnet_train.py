"""Training the perspective net (torch, the optional extra ``nets``): the model, the win-probability loss, the
epochs, the checkpoint that resumes them to the same weights.

**The model** (:func:`build_model`) is :class:`organisms.pnet.PNet`'s arithmetic in floats: a first layer ``w_in``
(768 inputs + the zero padding row :data:`~evolve.nets.pnet_data.PAD`, N units) summed over a position's active
inputs (``embedding_bag``) plus ``b_in``, once per perspective, the two halves concatenated side to move first and
clamped to [0, 1], optional hidden layers clamped to [0, 1], one linear output, plus (``psqt``) half the difference
of the two perspectives' sums of the PSQT weights (one per input, the padding row zero, initialised from the piece
values: ``+v / scale`` for each of our pieces, ``-v / scale`` for each of theirs, ``v`` the centipawns of
:data:`search.conventions.PIECE_VALUES`, so an untrained net already counts material); times ``scale``, the
evaluation in centipawns from the side to move's view. :func:`net_arrays` gives the pnet file's arrays (weights as
(inputs, units) float32), which the engine quantises on loading (``organisms/pnet.py``).

**The loss**: ``mean |σ(eval / K_net) − p|^P`` over a mini-batch (``p``, ``K_net``: :mod:`evolve.nets.pnet_data`;
``P`` = ``power``, 2 by default), Adam, the learning rate decayed geometrically per epoch from ``lr`` to
``lr_final``, the training rows shuffled each epoch by a generator seeded with (seed, epoch).

**Checkpoints** (:func:`save_checkpoint`, :func:`load_checkpoint`): after every epoch, one ``.npz`` (the net
files' writer; read back through :func:`organisms.net.read_net_file`, never a pickle): the model's parameters,
Adam's moments, its step count and the curve in a JSON header with the settings. A resumed run restores all of
them and draws the same shuffles, so it reaches the same weights as an uninterrupted one, to the bit (one torch
thread; ``tests/test_pnet_train.py`` checks it).

May import numpy, torch (through :func:`evolve.nets.common.require_torch`), ``evolve.nets.common`` and
``evolve.nets.checkpoint``, ``organisms``, ``search.runtime``.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evolve.ga.wdl import check_loss_power
from evolve.nets.checkpoint import read_checkpoint, read_count, read_curve, write_checkpoint
from evolve.nets.common import EpochRecord, RunExists, record_fields, require_torch
from evolve.nets.pnet_data import PAD, PNetData
from organisms.pnet import DEFAULT_SCALE, MAX_HIDDEN, MAX_SCALE, MAX_WIDTH, N_INPUTS, WEIGHT_LIMIT
from search.conventions import PIECE_VALUES
from search.runtime.errors import MimicError, SettingsError

CHECKPOINT_KIND = "pnet-checkpoint"


@dataclass(frozen=True, kw_only=True)
class PNetSettings:
    """The net's shape and its training: ``units`` N, ``hidden`` widths, ``psqt`` (the linear path), ``scale`` (cp
    per output unit), epochs, mini-batch, Adam's learning rate (first and last epoch), the loss's power and the seed
    of the weights and shuffles."""

    units: int = 64
    hidden: tuple[int, ...] = ()
    psqt: bool = True
    scale: float = DEFAULT_SCALE
    epochs: int = 30
    batch: int = 1024
    lr: float = 2e-3
    lr_final: float = 2e-4
    power: float = 2.0
    weight_decay: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        """Everything a net file would refuse, or training could not do, is refused here, before any work
        (:class:`~search.runtime.errors.SettingsError` naming the flag): the limits are the net file's own
        (:mod:`organisms.pnet`)."""
        if not 1 <= self.units <= MAX_WIDTH:
            raise SettingsError(f"--units must be within 1..{MAX_WIDTH} (a net file's widths are), got {self.units}")
        if len(self.hidden) > MAX_HIDDEN or not all(1 <= h <= MAX_WIDTH for h in self.hidden):
            raise SettingsError(f"--hidden takes at most {MAX_HIDDEN} widths, each within 1..{MAX_WIDTH}, got "
                                f"{' '.join(map(str, self.hidden))}")
        if self.epochs < 0 or self.batch < 1:
            raise SettingsError(f"--epochs must not be negative and --batch must be positive, got {self.epochs} and "
                                f"{self.batch}")
        if not (math.isfinite(self.scale) and 0 < self.scale <= MAX_SCALE):
            raise SettingsError(f"--scale (cp per output unit) must be within (0, {MAX_SCALE:g}], got {self.scale:g}")
        for flag, value in (("--lr", self.lr), ("--lr-final", self.lr_final)):
            if not (math.isfinite(value) and value > 0):
                raise SettingsError(f"{flag} must be a positive number, got {value:g}")
        if not (math.isfinite(self.weight_decay) and self.weight_decay >= 0):
            raise SettingsError(f"--weight-decay must not be negative, got {self.weight_decay:g}")
        check_loss_power(self.power)


class TrainingDiverged(MimicError):
    """The loss (or a held-out error) stopped being a finite number: the run stops there, before a checkpoint of
    non-finite weights is written."""


def _diverged(s: PNetSettings, epoch: int, what: str, hint: str = "") -> TrainingDiverged:
    return TrainingDiverged(f"the training diverged at epoch {epoch} ({what}): lower --lr (now {s.lr:g}){hint}; "
                            "nothing of this epoch was written")


EPOCH_FIELDS = record_fields("train_loss", "held_loss", "train_mae", "held_mae", "seconds")
"""An epoch of the perspective net's curve (:class:`~evolve.nets.common.EpochRecord`) measures every optional field:
the training and held-out loss and error after the epoch, its CPU seconds."""


def material_psqt(scale: float) -> np.ndarray:
    """The PSQT weights' start (N_INPUTS + 1,): each input's piece value in output units (``scale`` cp each), plus
    for our pieces and minus for theirs, the king and the padding row 0."""
    w = np.zeros(N_INPUTS + 1)
    for i in range(N_INPUTS):
        w[i] = (1 if i < N_INPUTS // 2 else -1) * PIECE_VALUES[(i % (N_INPUTS // 2)) // 64 + 1] / scale
    return w


def build_model(s: PNetSettings) -> Any:
    """A freshly initialised model (seeded): ``w_in`` uniform in ±0.05 (its padding row zero), ``b_in`` 0.5 (the
    middle of the clipped ReLU), the PSQT weights :func:`material_psqt`, the other layers torch's default."""
    torch = require_torch()
    nn, f = torch.nn, torch.nn.functional

    class PerspectiveNet(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.w_in = nn.Parameter(torch.empty(N_INPUTS + 1, s.units).uniform_(-0.05, 0.05))
            with torch.no_grad():
                self.w_in[PAD].zero_()
            self.b_in = nn.Parameter(torch.full((s.units,), 0.5))
            widths = [2 * s.units, *s.hidden]
            self.hidden = nn.ModuleList([nn.Linear(a, b) for a, b in itertools.pairwise(widths)])
            self.out = nn.Linear(widths[-1], 1)
            if s.psqt:
                self.psqt = nn.Parameter(torch.from_numpy(material_psqt(s.scale).astype(np.float32))[:, None])

        def forward(self, stm: Any, nstm: Any) -> Any:
            us = f.embedding_bag(stm, self.w_in, mode="sum", padding_idx=PAD) + self.b_in
            them = f.embedding_bag(nstm, self.w_in, mode="sum", padding_idx=PAD) + self.b_in
            x = torch.clamp(torch.cat([us, them], dim=1), 0.0, 1.0)
            for layer in self.hidden:
                x = torch.clamp(layer(x), 0.0, 1.0)
            out = self.out(x)[:, 0]
            if s.psqt:
                out = out + 0.5 * (f.embedding_bag(stm, self.psqt, mode="sum", padding_idx=PAD)
                                   - f.embedding_bag(nstm, self.psqt, mode="sum", padding_idx=PAD))[:, 0]
            return out

    torch.manual_seed(s.seed)
    return PerspectiveNet()


def net_arrays(model: Any) -> dict[str, np.ndarray]:
    """The pnet file's arrays of the model's weights (:func:`organisms.pnet.expected_shapes` order)."""
    out = {"w_in": model.w_in.detach()[:N_INPUTS], "b_in": model.b_in.detach()}
    for i, layer in enumerate(model.hidden, 1):
        out[f"w_h{i}"], out[f"b_h{i}"] = layer.weight.detach().T, layer.bias.detach()
    out["w_out"], out["b_out"] = model.out.weight.detach().T, model.out.bias.detach()
    if hasattr(model, "psqt"):
        out["w_psqt"] = model.psqt.detach()[:N_INPUTS, 0]
    return {k: np.ascontiguousarray(v.numpy(), dtype=np.float32) for k, v in out.items()}


def centipawns(model: Any, scale: float, stm: np.ndarray, nstm: np.ndarray, chunk: int = 65536) -> np.ndarray:
    """The model's evaluations (cp, side to move, float64, unrounded) of the rows of inputs ``stm``/``nstm``."""
    torch = require_torch()
    out = []
    with torch.no_grad():
        for i in range(0, len(stm), chunk):
            e = model(torch.from_numpy(stm[i:i + chunk].astype(np.int64)),
                      torch.from_numpy(nstm[i:i + chunk].astype(np.int64)))
            out.append(e.double().numpy() * scale)
    return np.concatenate(out) if out else np.zeros(0)


def errors(model: Any, s: PNetSettings, data: PNetData, rows: np.ndarray) -> tuple[float, float]:
    """(the loss, the mean absolute error in the mentor's centipawns) of the model on ``rows``; NaN when none."""
    if not len(rows):
        return float("nan"), float("nan")
    return cp_errors(centipawns(model, s.scale, data.stm[rows], data.nstm[rows]), data, rows, data.k_net, s.power)


def cp_errors(cp: np.ndarray, data: PNetData, rows: np.ndarray, k_net: float, power: float) -> tuple[float, float]:
    """(the loss, the mean absolute error in the mentor's centipawns) of evaluations ``cp`` of ``rows`` (the net's
    centipawns, read as σ(cp / ``k_net``))."""
    with np.errstate(over="ignore"):  # exp of a large evaluation is inf, and σ of it 0, as it should be
        d = 1.0 / (1.0 + np.exp(-cp / k_net)) - data.p[rows]
    return float(np.mean(np.abs(d) ** power)), float(np.mean(np.abs(cp * data.k_mentor / k_net - data.y[rows])))


def _optimiser(model: Any, s: PNetSettings) -> Any:
    """Adam; with ``weight_decay``, AdamW's decoupled decay on the first layer's and hidden layers' weights only (the
    biases, the output layer and the PSQT path, which carries material, are not pulled towards zero)."""
    torch = require_torch()
    if not s.weight_decay:
        return torch.optim.Adam(model.parameters(), lr=s.lr)
    decayed = [model.w_in, *(layer.weight for layer in model.hidden)]
    ids = {id(p) for p in decayed}
    rest = [p for p in model.parameters() if id(p) not in ids]
    return torch.optim.AdamW([{"params": decayed, "weight_decay": s.weight_decay},
                              {"params": rest, "weight_decay": 0.0}], lr=s.lr)


def lr_at(s: PNetSettings, epoch: int) -> float:
    """The learning rate of ``epoch`` (1-based): geometric from ``lr`` (first) to ``lr_final`` (last)."""
    return s.lr * (s.lr_final / s.lr) ** ((epoch - 1) / max(s.epochs - 1, 1))


def train(model: Any, data: PNetData, s: PNetSettings, checkpoint: Path, *, resume: bool = False,
          identity: Mapping[str, Any] | None = None, on_epoch: Callable[[EpochRecord], None] | None = None
          ) -> list[EpochRecord]:
    """Train ``model`` (in place) for the epochs ``checkpoint`` does not hold yet (see the module docstring);
    ``identity`` (the data's settings) is stored in the checkpoint and must match on resuming. Returns the curve."""
    torch = require_torch()
    torch.set_num_threads(1)
    opt = _optimiser(model, s)
    ident = json.loads(json.dumps({"net": _settings_json(s), "data": dict(identity or {})}))
    rows: list[EpochRecord] = []
    if checkpoint.exists():
        if not resume:
            raise RunExists(f"{checkpoint}: a pnet training checkpoint is there (--resume to continue it)")
        rows = load_checkpoint(checkpoint, model, opt, s, ident)
    stm = torch.from_numpy(data.stm.astype(np.int64))
    nstm = torch.from_numpy(data.nstm.astype(np.int64))
    p = torch.from_numpy(data.p.astype(np.float32))
    k = float(data.k_net) / s.scale  # σ(out · scale / K_net) = σ(out / k)
    for epoch in range(len(rows) + 1, s.epochs + 1):
        for group in opt.param_groups:
            group["lr"] = lr_at(s, epoch)
        perm = np.random.default_rng([s.seed, 0x9E7, epoch]).permutation(data.train)
        t0 = time.process_time()
        total = 0.0
        model.train()
        for start in range(0, len(perm), s.batch):
            idx = torch.from_numpy(perm[start:start + s.batch])
            d = torch.sigmoid(model(stm[idx], nstm[idx]) / k) - p[idx]
            loss = (d * d).mean() if s.power == 2 else d.abs().pow(s.power).mean()
            value = float(loss.detach())
            if not math.isfinite(value):
                raise _diverged(s, epoch, f"the loss of mini-batch {start // s.batch + 1} is not a finite number",
                                " or check --net-k")
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += value * len(idx)
        seconds = time.process_time() - t0
        model.eval()
        tr, he = errors(model, s, data, data.train), errors(model, s, data, data.held)
        if not all(math.isfinite(v) for v in (*tr, *(he if len(data.held) else ()))):  # no held rows: NaN
            raise _diverged(s, epoch, "the error after the epoch is not a finite number", " or check --net-k")
        largest = max(float(np.abs(a).max()) for a in net_arrays(model).values())
        if not largest <= WEIGHT_LIMIT:  # a net file holds weights within +-WEIGHT_LIMIT only
            raise _diverged(s, epoch, f"a weight reached {largest:.3g}, beyond a net file's +-{WEIGHT_LIMIT:g}")
        rows.append(EpochRecord(epoch, total / max(len(perm), 1), train_loss=tr[0], held_loss=he[0], train_mae=tr[1],
                                held_mae=he[1], seconds=seconds))
        save_checkpoint(checkpoint, model, opt, rows, ident)
        if on_epoch is not None:
            on_epoch(rows[-1])
    return rows


def _settings_json(s: PNetSettings) -> dict[str, Any]:
    d = asdict(s)
    d["hidden"] = list(s.hidden)
    return d


def _state_shapes(s: PNetSettings) -> dict[str, tuple[int, ...]]:
    """The checkpoint's arrays: each parameter (by its model name) and its two Adam moments."""
    shapes: dict[str, tuple[int, ...]] = {"w_in": (N_INPUTS + 1, s.units), "b_in": (s.units,)}
    widths = [2 * s.units, *s.hidden]
    for i, (a, b) in enumerate(itertools.pairwise(widths)):
        shapes[f"hidden.{i}.weight"], shapes[f"hidden.{i}.bias"] = (b, a), (b,)
    shapes["out.weight"], shapes["out.bias"] = (1, widths[-1]), (1,)
    if s.psqt:
        shapes["psqt"] = (N_INPUTS + 1, 1)
    return {**shapes, **{f"{m}.{n}": sh for n, sh in shapes.items() for m in ("adam_m", "adam_v")}}


def save_checkpoint(path: Path, model: Any, opt: Any, rows: list[EpochRecord], ident: Mapping[str, Any]) -> None:
    """The model, Adam's state and the curve as one ``.npz`` (written whole or not at all)."""
    arrays: dict[str, np.ndarray] = {}
    steps = set()
    for name, param in model.named_parameters():
        arrays[name] = param.detach().numpy().copy()
        state = opt.state.get(param, {})
        arrays[f"adam_m.{name}"] = state["exp_avg"].numpy().copy() if state else np.zeros_like(arrays[name])
        arrays[f"adam_v.{name}"] = state["exp_avg_sq"].numpy().copy() if state else np.zeros_like(arrays[name])
        steps.add(int(state["step"]) if state else 0)
    header = {"format": "mimic-net", "kind": CHECKPOINT_KIND, "epoch": len(rows), "adam_step": max(steps),
              "curve": [r.to_json() for r in rows], **ident}
    write_checkpoint(path, arrays, header)


def load_checkpoint(path: Path, model: Any, opt: Any, s: PNetSettings, ident: Mapping[str, Any]) -> list[EpochRecord]:
    """Restore the model and Adam from ``path`` (checked first, :func:`evolve.nets.checkpoint.read_checkpoint`: kind,
    the same settings, every array of its shape, finite, a finite curve) and return the curve so far;
    :class:`~organisms.net.NetFileError`, one line naming the file, otherwise."""
    torch = require_torch()
    source = str(path)
    arrays, header = read_checkpoint(path, lambda h: _state_shapes(s), noun="pnet training checkpoint",
                                     kind=CHECKPOINT_KIND, identity=ident,
                                     nonfinite="holds numbers that are not finite")
    done = read_count(header, "epoch", source, s.epochs)
    step = read_count(header, "adam_step", source, 1 << 40)
    no_held = ident.get("data", {}).get("held_out") == 0  # then the held-out errors are NaN, and only then
    curve = read_curve(header, "curve", EPOCH_FIELDS, source, rows=done, index="epoch",
                       allow_nan=lambda k: no_held and k.startswith("held_"))
    with torch.no_grad():
        for name, param in model.named_parameters():
            param.copy_(torch.from_numpy(arrays[name].astype(np.float32)))
            if step:
                opt.state[param] = {"step": torch.tensor(float(step)),
                                    "exp_avg": torch.from_numpy(arrays[f"adam_m.{name}"].astype(np.float32)),
                                    "exp_avg_sq": torch.from_numpy(arrays[f"adam_v.{name}"].astype(np.float32))}
    return [EpochRecord.from_json(r) for r in curve]
