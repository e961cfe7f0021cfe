"""``mimic train-cmp``: Pos2Vec pretraining, the siamese comparator and its distilled copy; their files.

The run writes into its folder:

- ``checkpoint.npz``: every weight so far, the running phase's optimizer state (and pretraining decoder) and the
  curves (header), after every epoch of every phase; ``--resume`` continues from it exactly: every epoch's pairs
  are seeded by its number, so a resumed run ends with the weights an uninterrupted one would (the header also
  keeps the wall time so far, summed over resumed runs);
- ``cmp.npz``: the comparator (:func:`organisms.comparator.save_comparator`; header: widths, bits version,
  settings, curves, accuracies, speed, provenance), played with ``cmp:DIR/cmp.npz``;
- ``cmp-small.npz``: the distilled comparator, played with ``cmp:DIR/cmp-small.npz`` (not with
  ``distill_epochs`` 0: no distillation, only the comparator is written and reported);
- ``summary.md`` and ``curve.png`` (reconstruction loss per pretraining epoch; pair accuracy per epoch).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np

from evolve.nets.checkpoint import adam_shapes, write_checkpoint
from evolve.nets.checkpoint import read_checkpoint as read_checkpoint_file
from evolve.nets.common import (
    NoTrainingData,
    Report,
    curve_table,
    prelude,
    quiet,
    refuse_existing,
    require_torch,
    write_summary,
)
from evolve.nets.deepchess import (
    CmpSettings,
    Curves,
    PhaseState,
    build_model,
    comparator,
    distill,
    load_arrays,
    model_arrays,
    pair_accuracy,
    pretrain,
    train_pairs,
    validation_pairs,
)
from evolve.nets.deepchess_data import PARTS, CmpData, load_positions
from organisms.comparator import ComparatorNet, make_header, save_comparator
from organisms.net import NetFileError
from search.base import Limit
from search.compare import CompareEngine
from search.runtime.provenance import provenance
from search.runtime.readback import finite, require, rows, whole

SPEED_FENS = ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
              "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
              "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1")
"""Positions of the speed measurement (an opening, a middle game, an endgame)."""
SPEED_NODES = 3000


@dataclass
class CmpOutcome:
    curves: Curves
    accuracy: dict[str, float]
    speed: dict[str, float]
    path: Path
    small_path: Path | None
    """None when ``distill_epochs`` is 0 (nothing distilled)."""
    seconds: float
    """Wall time of the training (pretraining to the accuracies; not the speed measurement), summed over resumed
    runs."""


def _settings_dict(s: CmpSettings) -> dict[str, Any]:
    d = asdict(s)
    for k in ("shape", "small"):
        d[k] = {"pos2vec": list(getattr(s, k).pos2vec), "top": list(getattr(s, k).top)}
    return d


def search_speed(net: ComparatorNet, nodes: int = SPEED_NODES) -> dict[str, float]:
    """Nodes and comparisons per second of the comparison search with ``net`` (fresh caches), over
    :data:`SPEED_FENS` at ``nodes`` nodes each."""
    fresh = ComparatorNet(net.arrays, net.header, net.source)
    engine = CompareEngine(fresh, hash_mb=8)
    n = c = 0
    start = time.perf_counter()
    for fen in SPEED_FENS:
        engine.new_game()
        r = engine.search(chess.Board(fen), Limit(nodes=nodes))
        n += r.nodes
    seconds = time.perf_counter() - start
    c = fresh.comparisons
    return {"nodes_per_second": n / seconds, "comparisons_per_second": c / seconds, "seconds": seconds}


def train_cmp(data_dir: str, out_dir: str, settings: CmpSettings, command: str = "", *, resume: bool = False,
              report: Report | None = None, measure_speed: bool = True) -> CmpOutcome:
    """The whole training (module docstring). ``RunExists`` (a ``FileExistsError``) when ``out_dir`` holds a run
    and ``resume`` is false; a ``MimicError`` for unusable data or without torch."""
    torch = require_torch()
    torch.set_num_threads(1)
    say = report or quiet
    out = Path(out_dir)
    ck = out / "checkpoint.npz"
    if not resume:
        refuse_existing(ck, f"{out}: holds a comparator training run (use --resume to continue it)")
    big = build_model(settings.shape, settings.seed)
    small = build_model(settings.small, settings.seed + 1)
    kept = read_checkpoint(ck, settings, big, small) if resume and ck.exists() else None  # before anything else
    data = load_positions(data_dir)
    counts = {name: int((data.part == i).sum()) for i, name in enumerate(PARTS)}
    say(f"{len(data.result)} positions in {data.source}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    curves = Curves()
    state = PhaseState()
    earlier = 0.0
    if kept is not None:
        arrays, header = kept
        load_arrays(big, arrays, "big_")
        load_arrays(small, arrays, "small_")
        curves = Curves(**header["curves"])
        earlier = float(header["seconds"])
        state = PhaseState(header["phase"],
                           {k.removeprefix("phase_"): v for k, v in arrays.items() if k.startswith("phase_")})
        say(f"resuming from {ck}: {len(curves.pretrain)} pretraining, {len(curves.compare)} comparator and "
            f"{len(curves.distill)} distillation epochs done")
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def seconds() -> float:
        return earlier + time.perf_counter() - start

    def save() -> None:
        arrays: dict[str, Any] = {**model_arrays(big, "big_"), **model_arrays(small, "small_"),
                                  **{f"phase_{k}": v for k, v in state.arrays.items()}}
        write_checkpoint(ck, arrays, {"kind": CHECKPOINT_KIND, "curves": asdict(curves),
                                      "settings": _settings_dict(settings), "seconds": seconds(), "phase": state.tag})

    train_x = data.bits[data.part == 0]
    if not len(train_x):
        raise NoTrainingData(f"{data.source}: no training positions")
    pretrain(big, train_x, settings, curves, state, save, say)
    val = validation_pairs(data, 1, settings.seed)
    test = validation_pairs(data, 2, settings.seed)
    train_pairs(big, data, settings, curves, val, state, save, say, settings.shape)
    teacher = comparator(big, settings.shape)
    nets = {"big": teacher}
    if settings.distill_epochs:
        distill(small, teacher, data, settings, curves, val, state, save, say)
        nets["small"] = comparator(small, settings.small)
    accuracy = {"validation_pairs": float(len(val[0])), "test_pairs": float(len(test[0]))}
    for name, net in nets.items():
        accuracy[f"{name}_validation"] = pair_accuracy(net, data, val)
        accuracy[f"{name}_test"] = pair_accuracy(net, data, test)
    took = seconds()
    speed: dict[str, float] = {}
    if measure_speed:
        for name, net in nets.items():
            for k, v in search_speed(net).items():
                speed[f"{name}_{k}"] = v
    common = {"training": _settings_dict(settings), "data": data.source, "command": command,
              "curves": asdict(curves), "accuracy": accuracy, "speed": speed, "seconds": round(took, 1),
              "provenance": provenance()}
    path, small_path = out / "cmp.npz", (out / "cmp-small.npz" if "small" in nets else None)
    save_comparator(path, model_arrays(big), make_header(settings.shape.tower, settings.shape.head, role="comparator",
                                                         **common))
    if small_path is not None:
        save_comparator(small_path, model_arrays(small),
                        make_header(settings.small.tower, settings.small.head, role="distilled", teacher=path.name,
                                    **common))
    outcome = CmpOutcome(curves, accuracy, speed, path, small_path, took)
    plot_curves(out / "curve.png", curves)
    write_summary(out / "summary.md", summary_lines(data, settings, outcome, command))
    return outcome


CHECKPOINT_KIND = "cmp-checkpoint"
"""The ``kind`` of a ``train-cmp`` checkpoint's header (files written before it have none, and are read as one)."""


CURVE_WIDTHS = {"pretrain": 3, "compare": 4, "distill": 4}
"""The columns of each curve's rows (:class:`~evolve.nets.deepchess.Curves`)."""


def checkpoint_shapes(header: dict[str, Any], settings: CmpSettings, big: Any, small: Any,
                      source: str) -> dict[str, tuple[int, ...]]:
    """The header of a ``train-cmp`` checkpoint checked (curves: lists of rows of finite numbers; ``seconds``;
    ``phase``: a phase of these settings) and the shape of every array it must hold: both nets' weights as these
    settings build them, and the running phase's state (its decoder, Adam's step and moments per parameter, with
    ``keeps_best`` the best epoch's weights); :class:`NetFileError` otherwise."""
    curves = require(header, "curves", dict, source, error=NetFileError)
    if set(curves) != set(CURVE_WIDTHS):
        raise NetFileError(f"{source}: curves has the keys {sorted(curves)[:5]}, expected {sorted(CURVE_WIDTHS)}")
    for name, width in CURVE_WIDTHS.items():
        rows(curves[name], width, f"curves.{name}", source, error=NetFileError)
    layers = len(big.enc)
    for i, r in enumerate(curves["pretrain"]):
        whole(r[0], f"curves.pretrain[{i}] layer", source, 0, layers - 1, error=NetFileError)
    header.setdefault("seconds", 0.0)  # checkpoints written before the wall time and the phase were kept
    header.setdefault("phase", "")
    finite(require(header, "seconds", (int, float), source, error=NetFileError), "seconds", source, 0,
           error=NetFileError)
    phase = require(header, "phase", str, source, error=NetFileError)
    shapes = {k: v.shape for k, v in {**model_arrays(big, "big_"), **model_arrays(small, "small_")}.items()}
    state: dict[str, tuple[int, ...]] = {}
    if phase.startswith("pretrain-") and phase.removeprefix("pretrain-") in {str(i) for i in range(layers)}:
        enc = big.enc[int(phase.removeprefix("pretrain-"))]
        n_in, n_out = enc.in_features, enc.out_features
        state = {"decoder_w": (n_in, n_out), "decoder_b": (n_in,),
                 **adam_shapes([(n_out, n_in), (n_out,), (n_in, n_out), (n_in,)])}
    elif phase == "compare":
        state = adam_shapes([tuple(p.shape) for p in big.parameters()])
        if settings.keeps_best:
            state.update({k: v.shape for k, v in model_arrays(big, "best_").items()})
    elif phase == "distill":
        state = adam_shapes([tuple(p.shape) for p in small.parameters()])
    elif phase not in ("", "compare-done"):
        raise NetFileError(f"{source}: phase is {phase[:40]!r}, expected pretrain-0 to pretrain-{layers - 1}, "
                              "compare, compare-done or distill")
    return {**shapes, **{f"phase_{k}": v for k, v in state.items()}}


def read_checkpoint(path: Path, settings: CmpSettings, big: Any, small: Any) -> tuple[dict[str, np.ndarray],
                                                                                        dict[str, Any]]:
    """The arrays and header of the checkpoint ``path`` of a run of ``settings`` (nets ``big`` and ``small``, as
    built), everything checked before anything is restored (:func:`checkpoint_shapes`; the arrays through
    :func:`organisms.net.read_net_file`, finite floats of exactly their shapes); :class:`NetFileError`, one line
    naming the file and what is wrong, otherwise."""
    return read_checkpoint_file(path, lambda h: checkpoint_shapes(h, settings, big, small, str(path)),
                                noun="checkpoint", kind=CHECKPOINT_KIND, legacy_kind=True, error=NetFileError)


NET_LABELS = (("big", "comparator"), ("small", "distilled"))
"""The nets' keys in the accuracy and speed tables, and their names in the summary."""


def summary_lines(data: CmpData, s: CmpSettings, o: CmpOutcome, command: str) -> list[str]:
    a, sp = o.accuracy, o.speed
    paper = "773-600-400-200-100, top 200-400-200-100-2"
    lines = [*prelude(f"DeepChess comparator trained on {data.source}", command),
             f"Data: {len(data.result)} positions; " + ", ".join(
                 f"{int((data.part == i).sum())} {n}" for i, n in enumerate(PARTS)) + ".", "",
             "## Nets", "",
             f"- comparator (`{o.path.name}`): Pos2Vec {'-'.join(map(str, s.shape.tower))}, top "
             f"{'-'.join(map(str, s.shape.head))} (the paper's: {paper});",
             (f"- distilled (`{o.small_path.name}`): Pos2Vec {'-'.join(map(str, s.small.tower))}, top "
              f"{'-'.join(map(str, s.small.head))}." if o.small_path else "- none distilled (0 distillation epochs)."),
             "",
             f"Pretraining {s.ae_epochs} epochs a layer; comparator {s.epochs} epochs (Adam lr {s.lr:g}, x{s.decay:g} "
             f"an epoch, batch {s.batch})"
             + (f", stopped after {len(o.curves.compare)}: {s.patience} epochs without a better validation accuracy"
                if s.patience is not None and len(o.curves.compare) < s.epochs else "")
             + (f", kept at epoch {o.curves.best_compare_epoch()}, the best validation accuracy (so the validation "
                "accuracy below is no longer held out: the test accuracy is)"
                if s.keeps_best else ", the last epoch kept")
             + f"; distillation {s.distill_epochs} epochs; seed {s.seed}.", "",
             f"Wall time of the training: {o.seconds:.0f} s (summed over resumed runs; the speed measurement "
             "excluded).", "",
             "## Pair accuracy (one pair per White-win position, random order)", "",
             "| net | validation | test |", "|---|---|---|",
             *(f"| {label} | {a[f'{name}_validation']:.3f} | {a[f'{name}_test']:.3f} |"
               for name, label in NET_LABELS if f"{name}_test" in a), "",
             f"{int(a['validation_pairs'])} validation pairs, {int(a['test_pairs'])} test pairs; chance is 0.5."]
    if sp:
        lines += ["", f"## Speed (comparison search, {SPEED_NODES} nodes on each of {len(SPEED_FENS)} positions, "
                      "one core)", "", "| net | nodes/s | comparisons/s |", "|---|---|---|"]
        lines += [f"| {label} | {sp[f'{name}_nodes_per_second']:.0f} | {sp[f'{name}_comparisons_per_second']:.0f} |"
                  for name, label in NET_LABELS if f"{name}_nodes_per_second" in sp]
    lines += ["", "## Curves", "",
              *curve_table(("pretraining layer", "epoch", "reconstruction loss"),
                           ((int(r[0]) + 1, int(r[1]), r[2]) for r in o.curves.pretrain), ("{}", "{}", "{:.4f}")), "",
              *curve_table(("comparator epoch", "loss", "training accuracy", "validation accuracy"),
                           ((int(r[0]), *r[1:]) for r in o.curves.compare), ("{}", "{:.4f}", "{:.3f}", "{:.3f}")), "",
              *curve_table(("distillation epoch", "loss", "validation accuracy", "agreement with the comparator"),
                           ((int(r[0]), *r[1:]) for r in o.curves.distill), ("{}", "{:.4f}", "{:.3f}", "{:.3f}"))]
    return lines


def plot_curves(path: Path, curves: Curves) -> None:
    """``curve.png``: the reconstruction loss per pretraining epoch (one line a layer), then the pair accuracy per
    epoch of the comparator (training and validation) and of the distilled comparator (validation)."""
    from evolve.plots import Curve, Level, figure, save
    from evolve.plots import curves as draw

    fig, axes = figure(1, 2, size=(12, 4), dpi=120)
    layers = []
    for layer in sorted({int(r[0]) for r in curves.pretrain}):
        rows = [r for r in curves.pretrain if int(r[0]) == layer]
        layers.append(Curve([r[1] for r in rows], [r[2] for r in rows], f"layer {layer + 1}", {"marker": "o"}))
    draw(axes[0], layers, xlabel="pretraining epoch", integer_x=True, ylabel="reconstruction loss",
         title="Pos2Vec layer-wise pretraining")
    lines = []
    if curves.compare:
        x = [r[0] for r in curves.compare]
        lines += [Curve(x, [r[2] for r in curves.compare], "comparator, training"),
                  Curve(x, [r[3] for r in curves.compare], "comparator, validation")]
    if curves.distill:
        lines.append(Curve([r[0] for r in curves.distill], [r[2] for r in curves.distill], "distilled, validation"))
    draw(axes[1], lines, levels=[Level(0.5, "chance")], xlabel="epoch", integer_x=True, ylabel="pair accuracy",
         title="siamese comparator")
    save(fig, path)
