"""``mimic train-pnet``: a perspective net trained on a label file's expected scores; its folder.

The run writes into ``out``:

- ``checkpoint.npz``: model, Adam's state and the curve after every epoch (:mod:`evolve.nets.pnet_train`); a
  resumed run continues from it to the weights an uninterrupted run reaches;
- ``pnet.npz``: the net (:func:`organisms.pnet.save_pnet`: the file ``pnet:OUT/pnet.npz`` plays; header:
  architecture, scale, K, the settings, the curve, the errors, the command and provenance);
- ``summary.md`` and ``curve.png`` (the loss and the error in the mentor's centipawns per epoch, training and
  held out, beside predicting the training median).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import chess
import numpy as np

from evolve.nets.common import (
    EpochRecord,
    Report,
    RunExists,
    column,
    curve_table,
    prelude,
    quiet,
    require_torch,
    write_summary,
)
from evolve.nets.pnet_data import K_RANGE, PNetData, load_pnet_data
from evolve.nets.pnet_train import PNetSettings, build_model, centipawns, cp_errors, net_arrays, train
from evolve.nets.pnet_unit import material_unit, piece_values
from mentor.labels import DEFAULT_CAP
from organisms.expert import Expert
from organisms.pnet import MAX_WIDTH, PNet, average_pnets, make_header, save_pnet
from search.runtime.errors import SettingsError
from search.runtime.provenance import provenance


@dataclass(frozen=True, kw_only=True)
class PNetRunSettings:
    """One run: the label file and folder, the data's options (as ``mimic evolve``'s: target, cap, held-out share,
    split seed, quiet filter, the win-probability model and the mentor's share ``lambda_result`` of the target),
    the net's K (``k_mode``: ``expert``, ``mentor`` or centipawns; :mod:`evolve.nets.pnet_data`), its output unit
    after training (``unit``: ``material``, rescaled so its piece values match the expert's, :mod:`evolve.nets.
    pnet_unit`; ``k``, the unit K_net gives), ``train_rows`` (only that many training rows), ``more_labels``
    (further label files whose labels only train), and the net and its training (:class:`PNetSettings`)."""

    labels: str
    out: str
    net: PNetSettings = field(default_factory=PNetSettings)
    target: str = "leaf"
    cap: int = DEFAULT_CAP
    held_out: float = 0.2
    score: int = 0  # a crowd's label file: 0 its ce (the crowd's), i its i-th mentor's score (c3)
    seed: int = 0
    quiet: bool = False
    wdl_model: str = "sf15.1"
    lambda_result: float = 1.0
    k_mode: str | float = "expert"
    unit: str = "material"
    train_rows: int | None = None
    jobs: int = 1
    more_labels: tuple[str, ...] = ()
    members: int = 1

    def __post_init__(self) -> None:
        """What can be checked before any work is (:class:`~search.runtime.errors.SettingsError` naming the flag):
        the net's own settings in :class:`PNetSettings`, here what the run adds."""
        if self.members < 1:
            raise SettingsError(f"--members must be at least 1, got {self.members}")
        if self.members > 1 and self.net.hidden:
            raise SettingsError("--members averages nets without hidden layers into one net; drop --hidden or use "
                                "--members 1")
        if self.members * self.net.units > MAX_WIDTH:
            raise SettingsError(f"--members {self.members} x --units {self.net.units} is a mean net of "
                                f"{self.members * self.net.units} units, above a net file's {MAX_WIDTH}")
        if not isinstance(self.k_mode, str) and not K_RANGE[0] <= self.k_mode <= K_RANGE[1]:
            raise SettingsError(f"--net-k must be expert, mentor or a number of centipawns within "
                                f"{K_RANGE[0]:g}..{K_RANGE[1]:g}, got {self.k_mode:g}")
        if not 0 <= self.lambda_result <= 1:
            raise SettingsError(f"--lambda-result is the mentor's share of the target, within [0, 1], got "
                                f"{self.lambda_result:g}")

    def data_identity(self) -> dict[str, Any]:
        """What the data depends on (stored in the checkpoint; a resumed run must have the same)."""
        d = asdict(self)
        for key in ("out", "net", "jobs", "unit"):
            d.pop(key)
        if not self.more_labels:  # as checkpoints written before --more-labels have it
            d.pop("more_labels")
        d.pop("members")  # each member's checkpoint is a single net's
        return d


@dataclass
class PNetOutcome:
    data: PNetData
    curve: list[EpochRecord]
    median_mae: float  # cp: held-out error of predicting the training median
    start_cp: int  # the net's score of the start position (cp, White to move)
    path: Path
    unit: float = 1.0  # the factor the output's scale and K_net were multiplied by (``unit`` material)
    values: dict[str, tuple[float, int]] = field(default_factory=dict)  # a piece up (cp, pairs), the net's
    members: list[Path] = field(default_factory=list)  # the members' nets, when the net is their mean
    mean_errors: dict[str, Any] = field(default_factory=dict)  # the mean's held-out errors, when it is one


def train_pnet(settings: PNetRunSettings, command: str = "", *, resume: bool = False,
               report: Report | None = None) -> PNetOutcome:
    """Run the whole training (see the module docstring). ``RunExists`` (a ``FileExistsError``) when ``out`` holds a
    checkpoint and ``resume`` is false; a ``MimicError`` for unusable labels or settings, or without torch."""
    torch = require_torch()
    torch.set_num_threads(1)
    out = Path(settings.out)
    folders = [out] if settings.members == 1 else [out / f"member-{i}" for i in range(1, settings.members + 1)]
    if not resume and any((f / "checkpoint.npz").exists() for f in folders):
        raise RunExists(f"{out}: holds a pnet training run (use --resume to continue it)")
    say = report or quiet
    s = settings.net
    data = load_pnet_data(settings.labels, target=settings.target, cap=settings.cap, held_out=settings.held_out,
                          score=settings.score,
                          seed=settings.seed, quiet=settings.quiet, model=settings.wdl_model, power=s.power,
                          lambda_result=settings.lambda_result, k_mode=settings.k_mode,
                          train_rows=settings.train_rows, n_jobs=settings.jobs, more=settings.more_labels)
    say(data.describe())
    median = float(np.abs(data.y[data.held] - np.median(data.y[data.train])).mean()) if len(data.held) \
        else float("nan")
    common = {"k_mentor": data.k_mentor,
              "training": {"run": {k: v for k, v in asdict(settings).items() if k != "net"},
                           "net": _net_record(s),
                           "rows": {"train": len(data.train), "held_out": len(data.held),
                                    "from_more_labels": data.more_used}},
              "command": command}
    members = []
    for i, folder in enumerate(folders):
        if len(folders) > 1:
            say(f"member {i + 1} of {len(folders)} (seed {s.seed + i}): {folder}")
        members.append(_train_member(replace(s, seed=s.seed + i), settings, data, folder, common, median, resume,
                                     say))
    net_path = out / "pnet.npz"
    curve, unit = members[0].curve, members[0].unit
    mean_errors: dict[str, Any] = {}
    if len(members) > 1:
        nets = [PNet.load(m.path) for m in members]
        arrays, scale = average_pnets(nets)
        unit = float(np.mean([m.unit for m in members]))
        k_net = data.k_net * unit  # the members' mean output unit times the K they trained with
        cp = np.mean([m.held_cp for m in members], axis=0)
        loss, mae = cp_errors(cp, data, data.held, k_net, s.power) if len(data.held) else (float("nan"),) * 2
        each = [m.curve[-1].held_mae for m in members if m.curve]
        mean_errors = {"held_loss": loss, "held_mae": mae, "median_mae": median, "members_held_mae": each}
        say(f"the members' mean: held-out error {mae:.1f} cp (members: " + ", ".join(f"{e:.1f}" for e in each) + ")")
        header = make_header(sum(n.units for n in nets), (), scale, any(n.psqt for n in nets), k_net=k_net,
                             unit=unit, members=[str(m.path.relative_to(out)) for m in members],
                             curve=[r.to_json() for r in curve], provenance=provenance(), errors=mean_errors,
                             **common)
        save_pnet(net_path, arrays, header)
    net = PNet.load(net_path)
    outcome = PNetOutcome(data, curve, median, net.evaluate(chess.Board()), net_path, unit, piece_values(net),
                          [m.path for m in members] if len(members) > 1 else [], mean_errors)
    plot_pnet_curve(out / "curve.png", curve, median)
    write_summary(out / "summary.md", summary_lines(settings, outcome, command))
    return outcome


def _net_record(s: PNetSettings) -> dict[str, Any]:
    """The net's settings as a header records them (JSON: ``hidden`` a list)."""
    return {**asdict(s), "hidden": list(s.hidden)}


@dataclass
class _Member:
    path: Path
    curve: list[EpochRecord]
    unit: float
    held_cp: np.ndarray  # its evaluations of the held-out rows in the output unit (cp), float


def _train_member(s: PNetSettings, settings: PNetRunSettings, data: PNetData, folder: Path, common: dict[str, Any],
                  median: float, resume: bool, say: Report) -> _Member:
    """One net trained in ``folder`` (its checkpoint, resumed where there) and written to ``folder/pnet.npz``."""
    folder.mkdir(parents=True, exist_ok=True)
    model = build_model(s)
    curve = train(model, data, s, folder / "checkpoint.npz", resume=resume, identity=settings.data_identity(),
                  on_epoch=lambda r: say(f"epoch {r.epoch}: loss {r.loss:.6f}, held out {r.held_loss:.6f} "
                                         f"({r.held_mae:.1f} cp), training {r.train_mae:.1f} cp, {r.seconds:.0f} s"))
    arrays = net_arrays(model)
    unit = 1.0
    if settings.unit == "material":
        unit = material_unit(PNet(arrays, make_header(s.units, s.hidden, s.scale, s.psqt)), Expert())
        say(f"output unit: x {unit:.3f} (the net's piece values matched to the expert's; the loss is unchanged)")
    header = make_header(s.units, s.hidden, s.scale * unit, s.psqt, k_net=data.k_net * unit, unit=unit,
                         curve=[r.to_json() for r in curve], provenance=provenance(),
                         errors={"held_mae": curve[-1].held_mae if curve else None, "median_mae": median}, **common)
    header["training"] = {**header["training"], "net": _net_record(s)}  # this member's seed
    save_pnet(folder / "pnet.npz", arrays, header)
    return _Member(folder / "pnet.npz", curve, unit, centipawns(model, s.scale * unit, data.stm[data.held],
                                                                   data.nstm[data.held]))


def summary_lines(r: PNetRunSettings, o: PNetOutcome, command: str) -> list[str]:
    s, d = r.net, o.data
    last = o.curve[-1] if o.curve else None
    arch = " -> ".join([f"(768 -> {s.units}) x 2", *(str(h) for h in s.hidden), "1"]) + (
        ", plus a linear PSQT path (768 weights a perspective, started at the piece values)" if s.psqt else "")
    lines = [*prelude(f"Perspective net trained on {r.labels}", command),
             f"Data: {d.describe()}. Target: {r.target}; held-out share {r.held_out}, split seed {r.seed} (the "
             f"organisms' split for the same file and settings); quiet labels only: {r.quiet}.", "",
             "## Net", "",
             f"{arch}, clipped ReLU, output x {s.scale * o.unit:.1f} = centipawns, side to move's view. File: "
             f"`{o.path.name}` (play it as `pnet:{o.path}`). The start position scores {o.start_cp:+d} cp. "
             + ("Output unit: " + (f"x {o.unit:.3f} after training, so that its values of a piece up match the "
                                   "expert's (evolve/nets/pnet_unit.py; the loss is unchanged)" if r.unit == "material"
                                   else "as K_net gives it") + ". A piece up in quiet positions (cp, pairs): "
                + ", ".join(f"{n} {v:.0f} ({k})" for n, (v, k) in o.values.items()) + "."), "",
             *([f"**An ensemble**: the mean of {len(o.members)} nets trained alike from seeds {s.seed} to "
                f"{s.seed + len(o.members) - 1} (the same split; "
                + ", ".join(f"`{m.parent.name}/{m.name}`" for m in o.members) + ", each playable alone), played as "
                f"one net with their first layers side by side ({s.units * len(o.members)} units a perspective; "
                f"organisms.pnet.average_pnets). Held-out error of the mean: {o.mean_errors['held_mae']:.1f} cp, "
                f"loss {o.mean_errors['held_loss']:.6f}; the members': "
                + ", ".join(f"{e:.1f}" for e in o.mean_errors["members_held_mae"])
                + " cp. The tables below are member 1's.", ""] if o.members else []),
             "## Loss", "",
             f"mean |σ(eval / K_net) − p|^{s.power:g}, p = the mentor's score through the {r.wdl_model} model"
             + (f", blended λ = {r.lambda_result:g} with the game result where known" if r.lambda_result < 1 else "")
             + f"; K_net = {d.k_net:.1f} cp ({r.k_mode}; {d.k_net * o.unit:.1f} cp in the output unit), the mentor's "
             f"K {d.k_mentor:.1f} cp, so a net centipawn is {d.mentor_per_net_cp / o.unit:.3f} of the mentor's. "
             + (f"AdamW (weight decay {s.weight_decay:g} on the first and hidden layers' weights)" if s.weight_decay
                else "Adam") + f", batch {s.batch}, lr {s.lr:g} to {s.lr_final:g}, "
             f"{s.epochs} epochs, seed {s.seed}.", "",
             "## Errors", "",
             "Errors in cp are the mentor's centipawns (the net's eval times K_mentor / K_net against the label).", "",
             "| | training | held out |", "|---|---|---|"]
    if last is not None:
        lines += [f"| loss | {last.train_loss:.6f} | {last.held_loss:.6f} |",
                  f"| mean abs error (cp) | {last.train_mae:.1f} | {last.held_mae:.1f} |"]
    lines += [f"| predict the training median (cp) | | {o.median_mae:.1f} |", ""]
    lines += curve_table(
        ("epoch", "loss (batches)", "training loss", "held-out loss", "training cp", "held-out cp", "CPU s"),
        ((e.epoch, e.loss, e.train_loss, e.held_loss, e.train_mae, e.held_mae, e.seconds) for e in o.curve),
        ("{}", "{:.6f}", "{:.6f}", "{:.6f}", "{:.1f}", "{:.1f}", "{:.0f}"))
    return lines


def plot_pnet_curve(path: Path, curve: list[EpochRecord], median: float) -> None:
    """``curve.png``: the loss (left) and the error in the mentor's centipawns (right) per epoch, training and
    held out."""
    from evolve.plots import Curve, Level, curves, figure, save

    fig, axes = figure(1, 2, size=(12, 4), dpi=120, squeeze=False)
    x = [r.epoch for r in curve]
    curves(axes[0][0], [Curve(x, column(curve, "train_loss"), "training", {"color": "#1f77b4"}),
                        Curve(x, column(curve, "held_loss"), "held out", {"color": "#d62728"})],
           xlabel="epoch", integer_x=True, ylabel="mean |σ(eval/K) − p|^P", title="win-probability loss")
    curves(axes[0][1], [Curve(x, column(curve, "train_mae"), "training", {"color": "#1f77b4"}),
                        Curve(x, column(curve, "held_mae"), "held out", {"color": "#d62728"})],
           levels=[Level(median, "training median (held out)")], xlabel="epoch", integer_x=True,
           ylabel="mean |net − mentor| (mentor's cp)", title="error")
    save(fig, path)
