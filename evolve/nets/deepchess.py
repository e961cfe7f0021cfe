"""DeepChess (David, Netanyahu & Wolf, 2016): its networks (torch, ``mimic train-cmp``); the data they learn from
is drawn by :mod:`evolve.nets.deepchess_data`.

torch is imported lazily (:func:`evolve.nets.common.require_torch`). Pos2Vec, a tower of ReLU layers, is pretrained
layer by layer as autoencoders on the training positions without labels (the first layer reconstructs the bits,
binary cross-entropy; the next ones the previous layer's activations, mean squared error); then the siamese
comparator (two copies of the tower, shared weights, their embeddings concatenated, ReLU layers to 2 outputs),
trained end to end with cross-entropy on fresh random (White-win, Black-win) pairs every epoch, each pair in both
orders (by default the colour mirrors of the training positions join them: a Black win mirrored is a White win,
which doubles the data); then a smaller comparator distilled from it: trained on fresh random pairs of training
positions to reproduce the big one's output probabilities. Pair accuracy is measured on fixed validation (and test)
pairs, one per White-win position, with the numpy comparator the engine plays
(:class:`organisms.comparator.ComparatorNet`, antisymmetric by construction). The run that writes the files is
:mod:`evolve.nets.deepchess_run`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evolve.nets.checkpoint import load_optimizer, optimizer_arrays
from evolve.nets.common import NoTrainingData, require_torch
from evolve.nets.deepchess_data import CmpData
from organisms.comparator import N_BITS, ComparatorNet, make_header, mirror_bits


@dataclass(frozen=True, kw_only=True)
class CmpShape:
    """Pos2Vec widths after the 773 inputs, and the top's hidden widths (the 2E input and 2 outputs implied)."""

    pos2vec: tuple[int, ...] = (100, 100, 100)
    top: tuple[int, ...] = (100, 50)

    @property
    def tower(self) -> list[int]:
        return [N_BITS, *self.pos2vec]

    @property
    def head(self) -> list[int]:
        return [2 * self.pos2vec[-1], *self.top, 2]


def build_model(shape: CmpShape, seed: int = 0) -> Any:
    """A freshly initialised siamese comparator (torch's default init, seeded): ``model(xa, xb)`` is (N, 2)."""
    torch = require_torch()
    nn = torch.nn

    class Siamese(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            t, h = shape.tower, shape.head
            self.enc = nn.ModuleList([nn.Linear(t[i], t[i + 1]) for i in range(len(t) - 1)])
            self.top = nn.ModuleList([nn.Linear(h[i], h[i + 1]) for i in range(len(h) - 1)])

        def embed(self, x: Any) -> Any:
            for layer in self.enc:
                x = torch.relu(layer(x))
            return x

        def forward(self, xa: Any, xb: Any) -> Any:
            h = torch.cat([self.embed(xa), self.embed(xb)], dim=1)
            last = len(self.top) - 1
            for i, layer in enumerate(self.top):
                h = layer(h)
                if i < last:
                    h = torch.relu(h)
            return h

    torch.manual_seed(seed)
    return Siamese()


def model_arrays(model: Any, prefix: str = "") -> dict[str, np.ndarray]:
    """The model's weights as comparator-file arrays (weight matrices transposed to (inputs, units)); copies, so
    that further training leaves them as they were."""
    out: dict[str, np.ndarray] = {}
    for group in ("enc", "top"):
        for i, layer in enumerate(getattr(model, group)):
            out[f"{prefix}{group}_w{i}"] = np.array(layer.weight.detach().numpy().T, dtype=np.float32, order="C")
            out[f"{prefix}{group}_b{i}"] = np.array(layer.bias.detach().numpy(), dtype=np.float32)
    return out


def load_arrays(model: Any, arrays: dict[str, np.ndarray], prefix: str = "") -> None:
    """Set the model's weights from arrays (the inverse of :func:`model_arrays`)."""
    torch = require_torch()
    with torch.no_grad():
        for group in ("enc", "top"):
            for i, layer in enumerate(getattr(model, group)):
                layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(arrays[f"{prefix}{group}_w{i}"].T)))
                layer.bias.copy_(torch.from_numpy(arrays[f"{prefix}{group}_b{i}"]))


def comparator(model: Any, shape: CmpShape, **header: Any) -> ComparatorNet:
    """The numpy comparator of the model's current weights (what the engine plays with)."""
    return ComparatorNet(model_arrays(model), make_header(shape.tower, shape.head, **header))


def validation_pairs(data: CmpData, part: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fixed pairs of one part: every White-win row with a random Black-win row, in a random order:
    (rows a, rows b, label) with label 1 when ``a`` is the White-win position."""
    rng = np.random.default_rng([seed, 0x5A1, part])
    w, b = data.rows(part, 1), data.rows(part, -1)
    n = min(len(w), len(b))
    w, b = rng.permutation(w)[:n], rng.permutation(b)[:n]
    swap = rng.random(n) < 0.5
    return np.where(swap, b, w), np.where(swap, w, b), (~swap).astype(np.int8)


def pair_accuracy(net: ComparatorNet, data: CmpData, pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float:
    """Share of ``pairs`` the comparator orders right (``s(a, b) > 0`` exactly when ``a`` won for White)."""
    a, b, label = pairs
    if not len(a):
        return float("nan")
    s = np.concatenate([net.symmetric(data.bits[a[i:i + 4096]], data.bits[b[i:i + 4096]])
                        for i in range(0, len(a), 4096)])
    return float(((s > 0) == (label == 1)).mean())


@dataclass(frozen=True, kw_only=True)
class CmpSettings:
    """``mimic train-cmp``'s settings: both nets' shapes, the epochs of each phase, mini-batch, Adam's learning rate
    and its decay an epoch, pairs an epoch, the colour mirrors, keeping the best comparator epoch, the seed."""

    shape: CmpShape = field(default_factory=CmpShape)
    small: CmpShape = field(default_factory=lambda: CmpShape(pos2vec=(64, 32), top=(32,)))
    ae_epochs: int = 3
    epochs: int = 20
    distill_epochs: int = 10
    batch: int = 256
    lr: float = 1e-3
    decay: float = 0.98
    pairs: int | None = None  # pairs per epoch (each in both orders); None: as many as the smaller class
    mirror: bool = True  # also train on the colour mirrors (a Black win mirrored is a White win)
    keep_best: bool = False  # keep the comparator epoch with the best validation accuracy, not the last
    patience: int | None = None  # stop the comparator after this many epochs without a better validation accuracy
    seed: int = 0

    @property
    def keeps_best(self) -> bool:
        """Whether the comparator keeps its best validation epoch: ``keep_best``, or early stopping (``patience``),
        which always stops past the best epoch."""
        return self.keep_best or self.patience is not None


@dataclass
class Curves:
    """One row per epoch: ``pretrain`` [layer, epoch, reconstruction loss], ``compare`` [epoch, training loss,
    training accuracy, validation accuracy], ``distill`` [epoch, loss, validation accuracy, agreement]."""

    pretrain: list[list[float]] = field(default_factory=list)
    compare: list[list[float]] = field(default_factory=list)
    distill: list[list[float]] = field(default_factory=list)

    def best_compare_epoch(self) -> int:
        """The comparator epoch with the best validation accuracy (the first of equals); 0 before any."""
        if not self.compare:
            return 0
        return int(self.compare[int(np.argmax([r[3] for r in self.compare]))][0])


@dataclass
class PhaseState:
    """What the running phase needs besides the weights to continue exactly: Adam's moments and step counts, and
    during pretraining the layer's decoder. ``tag`` names the phase (``pretrain-L``, ``compare``, ``distill``);
    the checkpoint keeps the arrays, and a phase restores them only when the tag is its own."""

    tag: str = ""
    arrays: dict[str, np.ndarray] = field(default_factory=dict)

    def mine(self, tag: str) -> dict[str, np.ndarray] | None:
        return self.arrays if self.tag == tag else None


def _batches(n: int, batch: int) -> range:
    return range(0, n, batch)


def pretrain(model: Any, x: np.ndarray, settings: CmpSettings, curves: Curves, state: PhaseState,
             save: Callable[[], None], say: Callable[[str], None]) -> None:
    """Layer-wise autoencoder pretraining of the tower on the rows ``x`` (module docstring); skips the
    (layer, epoch) rows ``curves`` holds already, resumes a layer's decoder and optimizer from ``state``, and
    updates ``state`` and calls ``save`` after every epoch."""
    torch = require_torch()
    nn = torch.nn
    done = {(int(r[0]), int(r[1])) for r in curves.pretrain}
    for li, enc in enumerate(model.enc):
        decoder = nn.Linear(enc.out_features, enc.in_features)
        torch.manual_seed(settings.seed + li)
        opt = torch.optim.Adam([*enc.parameters(), *decoder.parameters()], lr=settings.lr)
        tag = f"pretrain-{li}"
        if (kept := state.mine(tag)) is not None:
            with torch.no_grad():
                decoder.weight.copy_(torch.from_numpy(kept["decoder_w"]))
                decoder.bias.copy_(torch.from_numpy(kept["decoder_b"]))
            load_optimizer(opt, kept)
        for epoch in range(1, settings.ae_epochs + 1):
            if (li, epoch) in done:
                continue
            rng = np.random.default_rng([settings.seed, 0xAE, li, epoch])
            perm = rng.permutation(len(x))
            total = 0.0
            for s in _batches(len(x), settings.batch):
                xb = torch.from_numpy(x[perm[s:s + settings.batch]].astype(np.float32))
                with torch.no_grad():
                    for lower in model.enc[:li]:
                        xb = torch.relu(lower(xb))
                recon = decoder(torch.relu(enc(xb)))
                loss = (nn.functional.binary_cross_entropy_with_logits(recon, xb) if li == 0
                        else nn.functional.mse_loss(recon, xb))
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(xb)
            curves.pretrain.append([li, epoch, total / max(len(x), 1)])
            say(f"pretraining layer {li + 1} ({enc.in_features} -> {enc.out_features}), epoch {epoch}: "
                f"reconstruction loss {total / max(len(x), 1):.4f}")
            state.tag, state.arrays = tag, {"decoder_w": decoder.weight.detach().numpy().copy(),
                                            "decoder_b": decoder.bias.detach().numpy().copy(),
                                            **optimizer_arrays(opt)}
            save()


def stale(curves: Curves, settings: CmpSettings) -> bool:
    """Whether early stopping ends the comparator's training now: ``settings.patience`` epochs or more have passed
    since the epoch of best validation pair accuracy (never without a patience or before the first epoch)."""
    if settings.patience is None or not curves.compare:
        return False
    return len(curves.compare) - curves.best_compare_epoch() >= settings.patience


def train_pairs(model: Any, data: CmpData, settings: CmpSettings, curves: Curves, val: Any, state: PhaseState,
                save: Callable[[], None], say: Callable[[str], None], shape: CmpShape) -> None:
    """The siamese comparator, end to end, on fresh random (White-win, Black-win) training pairs every epoch,
    both orders; the epochs in ``curves`` are skipped and the optimizer resumed from ``state``; ``state``
    updated and ``save`` called after every epoch. With ``settings.keeps_best`` the weights of the epoch with the
    best validation accuracy are kept in ``state`` as they arise and put back in ``model`` at the end (then
    ``state`` is tagged ``compare-done`` and saved, so that a resumed run does not put them back twice). With
    ``settings.patience`` it stops early once that many epochs bring no better validation accuracy (:func:`stale`)."""
    torch = require_torch()
    w_rows, b_rows = data.rows(0, 1), data.rows(0, -1)
    if not len(w_rows) or not len(b_rows):
        raise NoTrainingData(f"{data.source}: no training pairs (White-win and Black-win positions)")
    wins, losses = data.bits[w_rows], data.bits[b_rows]
    if settings.mirror:  # a Black win's colour mirror is a White win, and the other way round
        wins, losses = np.concatenate([wins, mirror_bits(losses)]), np.concatenate([losses, mirror_bits(wins)])
    n = min(len(wins), len(losses))
    if settings.pairs is not None:
        n = min(n, settings.pairs)
    opt = torch.optim.Adam(model.parameters(), lr=settings.lr)
    if (kept := state.mine("compare")) is not None:
        load_optimizer(opt, kept)
    for epoch in range(1, settings.epochs + 1):
        if epoch <= len(curves.compare):
            continue
        if stale(curves, settings):
            say(f"comparator: stopped after epoch {epoch - 1}, {settings.patience} epochs without a better "
                "validation pair accuracy")
            break
        for g in opt.param_groups:
            g["lr"] = settings.lr * settings.decay ** (epoch - 1)
        rng = np.random.default_rng([settings.seed, 0xC0, epoch])
        w, b = rng.choice(len(wins), n, replace=False), rng.choice(len(losses), n, replace=False)
        both = np.concatenate([wins[w], losses[b]])  # both orders: (w, b) labelled 0 ("a better"), (b, w) 1
        other = np.concatenate([losses[b], wins[w]])
        label = np.concatenate([np.zeros(n, np.int64), np.ones(n, np.int64)])
        perm = rng.permutation(2 * n)
        total = 0.0
        right = 0
        model.train()
        for s in _batches(2 * n, settings.batch):
            idx = perm[s:s + settings.batch]
            xa = torch.from_numpy(both[idx].astype(np.float32))
            xb = torch.from_numpy(other[idx].astype(np.float32))
            y = torch.from_numpy(label[idx])
            out = model(xa, xb)
            loss = torch.nn.functional.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
            right += int((out.argmax(dim=1) == y).sum())
        acc = pair_accuracy(comparator(model, shape), data, val)
        curves.compare.append([epoch, total / (2 * n), right / (2 * n), acc])
        say(f"comparator epoch {epoch}: loss {total / (2 * n):.4f}, training accuracy {right / (2 * n):.3f}, "
            f"validation pair accuracy {acc:.3f}")
        best: dict[str, np.ndarray] = {}
        if settings.keeps_best:  # this epoch's weights if it is the best so far, else the best kept so far
            best = (model_arrays(model, "best_") if curves.best_compare_epoch() == epoch
                    else {k: v for k, v in state.arrays.items() if k.startswith("best_")})
        state.tag, state.arrays = "compare", {**optimizer_arrays(opt), **best}
        save()
    if settings.keeps_best and (kept := state.mine("compare")) is not None:
        load_arrays(model, kept, "best_")
        say(f"comparator: kept epoch {curves.best_compare_epoch()} (best validation pair accuracy)")
        state.tag, state.arrays = "compare-done", {}
        save()


def distill(student: Any, teacher: ComparatorNet, data: CmpData, settings: CmpSettings, curves: Curves,
            val: Any, state: PhaseState, save: Callable[[], None], say: Callable[[str], None]) -> None:
    """The small comparator, trained on fresh random pairs of training positions to reproduce the teacher's
    output probabilities (soft cross-entropy); the epochs in ``curves`` are skipped and the optimizer resumed
    from ``state``; ``state`` updated and ``save`` called after every epoch."""
    torch = require_torch()
    rows = np.flatnonzero(data.part == 0)
    n = len(rows) if settings.pairs is None else min(len(rows), 2 * settings.pairs)
    opt = torch.optim.Adam(student.parameters(), lr=settings.lr)
    if (kept := state.mine("distill")) is not None:
        load_optimizer(opt, kept)
    va, vb, _ = val
    teacher_says = teacher.symmetric(data.bits[va], data.bits[vb]) > 0 if len(va) else np.zeros(0, bool)
    for epoch in range(1, settings.distill_epochs + 1):
        if epoch <= len(curves.distill):
            continue
        rng = np.random.default_rng([settings.seed, 0xD1, epoch])
        a, b = rng.choice(rows, n), rng.choice(rows, n)
        total = 0.0
        student.train()
        for s in _batches(n, settings.batch):
            xa_np, xb_np = data.bits[a[s:s + settings.batch]], data.bits[b[s:s + settings.batch]]
            target = torch.from_numpy(_softmax(teacher.logits(xa_np, xb_np)))
            out = student(torch.from_numpy(xa_np.astype(np.float32)), torch.from_numpy(xb_np.astype(np.float32)))
            loss = -(target * torch.log_softmax(out, dim=1)).sum(dim=1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(xa_np)
        net = comparator(student, settings.small)
        acc = pair_accuracy(net, data, val)
        agree = float(((net.symmetric(data.bits[va], data.bits[vb]) > 0) == teacher_says).mean()) if len(va) \
            else float("nan")
        curves.distill.append([epoch, total / max(n, 1), acc, agree])
        say(f"distillation epoch {epoch}: loss {total / max(n, 1):.4f}, validation pair accuracy {acc:.3f}, "
            f"agreement with the big comparator {agree:.3f}")
        state.tag, state.arrays = "distill", optimizer_arrays(opt)
        save()


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


__all__ = [
    "CmpSettings",
    "CmpShape",
    "Curves",
    "PhaseState",
    "build_model",
    "comparator",
    "distill",
    "load_arrays",
    "model_arrays",
    "pair_accuracy",
    "pretrain",
    "train_pairs",
    "validation_pairs",
]
