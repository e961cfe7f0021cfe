"""``mimic train-net``: a Giraffe-style net trained from a label file, then by TD-Leaf self-play; its files.

The run writes into its folder:

- ``boot-checkpoint.npz``: the bootstrap's checkpoint after every epoch (weights, Adam's state, the curve), from which
  a resumed run goes on; removed once ``bootstrap.npz`` is written;
- ``bootstrap.npz``: the net after the supervised bootstrap (:func:`evolve.nets.giraffe.train_supervised`), with the
  epoch curve in its header: a resumed run does not train it again;
- ``td-checkpoint.npz``: the TD-Leaf checkpoint (:mod:`evolve.nets.tdleaf`), one per iteration;
- ``net.npz``: the final net (:func:`organisms.net.save_net`; header: architecture, feature version, scale,
  the settings of both phases, the curves, the errors and provenance), played with ``net:DIR/net.npz``;
- ``summary.md`` and ``curve.png`` (held-out error per epoch, then the validation error and TD error per
  TD-Leaf iteration, beside the trivial baselines).

With ``members`` N above 1 (``train-net --members N``, bootstrap only) N nets are trained alike from seeds ``seed`` to
``seed + N - 1`` on one split, each in ``member-I/`` with the files above (each playable alone), and ``net.npz`` is
their mean played as one net (:func:`organisms.net.average_nets`): a mean of five perspective nets played 11 points
better than one, its members' seed-to-seed noise divided (results/pupil-study/study.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from evolve.nets.common import (
    EpochRecord,
    NoTrainingData,
    Report,
    RunExists,
    column,
    curve_table,
    prelude,
    quiet,
    require_torch,
    write_summary,
)
from evolve.nets.giraffe import (
    BOOT_LOSSES,
    EPOCH_FIELDS,
    NetData,
    NetShape,
    SupervisedSettings,
    baselines,
    build_model,
    evaluator,
    load_arrays,
    load_net_data,
    model_arrays,
    train_supervised,
)
from evolve.nets.tdleaf import TDRow, TDSettings, load_checkpoint, td_leaf
from mentor.labels import DEFAULT_CAP
from organisms.net import MAX_WIDTH, NetEvaluator, NetFileError, average_nets, save_net
from search.games.openings import Opening, default_openings_path, load_openings
from search.runtime.errors import SettingsError
from search.runtime.provenance import provenance
from search.runtime.readback import records


@dataclass(frozen=True, kw_only=True)
class NetRunSettings:
    labels: str
    out: str
    shape: NetShape = field(default_factory=NetShape)
    supervised: SupervisedSettings = field(default_factory=SupervisedSettings)
    td: TDSettings = field(default_factory=lambda: TDSettings(iterations=0))
    target: str = "leaf"
    cap: int = DEFAULT_CAP
    held_out: float = 0.2
    seed: int = 0
    jobs: int = 1
    openings: str | None = None
    limit: int | None = None  # only the first N label lines
    members: int = 1  # nets trained alike from consecutive seeds, played as their mean (bootstrap only)

    def __post_init__(self) -> None:
        if self.members < 1:
            raise SettingsError(f"--members must be at least 1, got {self.members}")
        if self.members > 1 and self.td.iterations > 0:
            raise SettingsError("--members averages bootstrapped nets; TD-Leaf trains one net (drop --td-iterations "
                                "or use --members 1)")
        wide = self.members * max(*self.shape.units, self.shape.hidden)
        if wide > MAX_WIDTH:
            raise SettingsError(f"--members {self.members} makes a mean net {wide} units wide, above a net file's "
                                f"{MAX_WIDTH}")


@dataclass
class NetOutcome:
    data: NetData
    epochs: list[EpochRecord]
    td: list[TDRow]
    baselines: dict[str, float]
    held_mae: float
    train_mae: float
    path: Path
    members: list[Path] = field(default_factory=list)  # the members' nets, when the net is their mean
    members_held_mae: list[float] = field(default_factory=list)  # their held-out errors (cp)


def _settings_dict(s: NetRunSettings) -> dict[str, Any]:
    d = asdict(s)
    d["shape"]["units"] = list(s.shape.units)
    return d


def train_net(settings: NetRunSettings, command: str = "", *, resume: bool = False, report: Report | None = None,
              on_game: Callable[[int, int], None] | None = None) -> NetOutcome:
    """Run the whole training (see the module docstring); progress goes to ``report`` (a line an epoch or TD-Leaf
    iteration) and ``on_game`` (:func:`evolve.nets.tdleaf.td_leaf`'s, a TD-Leaf game done). Raises
    :class:`~evolve.nets.common.RunExists` (a ``FileExistsError``) when the folder holds a run and ``resume`` is
    false, a ``MimicError`` for unusable labels or openings, or without torch."""
    torch = require_torch()
    torch.set_num_threads(1)
    out = Path(settings.out)
    folders = [out] if settings.members == 1 else [out / f"member-{i}" for i in range(1, settings.members + 1)]
    if not resume and any((f / n).exists() for f in folders
                          for n in ("bootstrap.npz", "td-checkpoint.npz", "boot-checkpoint.npz")):
        raise RunExists(f"{out}: holds a net training run (use --resume to continue it)")
    say = report or quiet
    boots = [read_bootstrap(f / "bootstrap.npz", settings.shape) if resume and (f / "bootstrap.npz").exists()
             else None for f in folders]  # checked before anything is trained or written
    if resume and (out / "td-checkpoint.npz").exists() and settings.td.iterations > 0:
        load_checkpoint(out / "td-checkpoint.npz", settings.shape)  # td_leaf reads it again
    data = load_net_data(settings.labels, settings.target, settings.cap, settings.held_out, settings.seed,
                         n_jobs=settings.jobs, limit=settings.limit)
    say(data.describe())
    base = baselines(data)
    outcomes = []
    for i, (folder, boot) in enumerate(zip(folders, boots, strict=True)):
        if len(folders) > 1:
            say(f"member {i + 1} of {len(folders)} (seed {settings.seed + i}): {folder}")
        outcomes.append(_train_one(settings, folder, i, boot, data, base, command, resume, say, on_game))
    if len(outcomes) == 1:
        return outcomes[0]
    return _write_mean(settings, outcomes, command)


def _train_one(settings: NetRunSettings, out: Path, offset: int,
               boot: tuple[dict[str, np.ndarray], list[EpochRecord]] | None, data: NetData, base: dict[str, float],
               command: str, resume: bool, say: Report, on_game: Callable[[int, int], None] | None) -> NetOutcome:
    """One net trained into ``out`` (its bootstrap from ``boot`` when read back, else trained, resumed from its
    checkpoint when there; then TD-Leaf): its net.npz, summary.md and curve.png. ``offset`` is added to the
    model's and the bootstrap's seeds (a member's place in an ensemble; 0 for a single net)."""
    shape = settings.shape
    boot_path, td_path, net_path = out / "bootstrap.npz", out / "td-checkpoint.npz", out / "net.npz"
    boot_checkpoint = out / "boot-checkpoint.npz"
    supervised = replace(settings.supervised, seed=settings.supervised.seed + offset)
    model = build_model(shape, settings.seed + offset)
    out.mkdir(parents=True, exist_ok=True)
    if boot is not None:
        arrays, epochs = boot
        load_arrays(model, arrays)
        say(f"resuming: the bootstrap ({len(epochs)} epochs) read from {boot_path}")
    else:
        if resume and boot_checkpoint.exists():
            say(f"resuming the bootstrap from {boot_checkpoint}")
        unit = BOOT_LOSSES[supervised.loss].unit
        unit = f" {unit}" if unit else ""
        identity = {k: v for k, v in _settings_dict(settings).items()
                    if k in ("labels", "target", "cap", "held_out", "seed", "limit")}
        epochs = train_supervised(model, data, shape, supervised,
                                  on_epoch=lambda r: say(f"epoch {r.epoch}: loss {r.loss:.4f}{unit}, "
                                                         f"training {r.train_mae:.1f} cp, "
                                                         f"held out {r.held_mae:.1f} cp"),
                                  checkpoint=boot_checkpoint, resume=resume, identity=identity)
        save_net(boot_path, model_arrays(model),
                 shape.header(epoch_curve=[r.to_json() for r in epochs]))
        boot_checkpoint.unlink()  # bootstrap.npz holds the bootstrap now
    td_rows: list[TDRow] = []
    if settings.td.iterations > 0:
        openings = _openings(settings.openings)
        held = (data.x[data.held], data.y[data.held])
        td_rows = td_leaf(model, shape, openings, settings.td, td_path, held, resume=resume, on_game=on_game,
                          on_iteration=lambda r: say(f"TD-Leaf iteration {r.iteration}: {r.positions} leaves, "
                                                     f"TD error {r.td_error:.1f} cp, held out {r.held_mae:.1f} cp"))
    net = evaluator(model, shape)
    train_mae, held_mae = _errors(net, data)
    record = _settings_dict(replace(settings, supervised=supervised))
    if offset:
        record["model_seed"] = settings.seed + offset  # a member's; its split is the ensemble's (``seed``)
    header = shape.header(
        training=record, command=command,
        epoch_curve=[r.to_json() for r in epochs], td_curve=[asdict(r) for r in td_rows],
        errors={"train_mae": train_mae, "held_mae": held_mae, "baselines": base},
        rows={"train": len(data.train), "held": len(data.held), "labels": data.total},
        provenance=provenance())
    save_net(net_path, model_arrays(model), header)
    outcome = NetOutcome(data, epochs, td_rows, base, held_mae, train_mae, net_path)
    plot_net_curve(out / "curve.png", epochs, td_rows, base)
    write_summary(out / "summary.md", summary_lines(settings, outcome, command))
    return outcome


def _errors(net: NetEvaluator, data: NetData) -> tuple[float, float]:
    """``net``'s mean absolute error on the training rows and on the held-out rows (NaN without any), cp."""
    held = float(np.abs(net.centipawns(data.x[data.held]) - data.y[data.held]).mean()) if len(data.held) \
        else float("nan")
    return float(np.abs(net.centipawns(data.x[data.train]) - data.y[data.train]).mean()), held


def _write_mean(settings: NetRunSettings, members: list[NetOutcome], command: str) -> NetOutcome:
    """The members' mean as one net in ``out/net.npz`` (:func:`organisms.net.average_nets`), its summary and curve
    (member 1's bootstrap curve beside the mean's errors)."""
    out = Path(settings.out)
    nets = [NetEvaluator.load(m.path) for m in members]
    arrays, scale = average_nets(nets)
    first, k = members[0], len(members)
    g, p, q = settings.shape.units  # the members share the run's shape: the mean is k times as wide
    shape = replace(settings.shape, units=(g * k, p * k, q * k), hidden=settings.shape.hidden * k, scale=scale)
    train_mae, held_mae = _errors(NetEvaluator(arrays, shape.header()), first.data)
    each = [m.held_mae for m in members]
    header = shape.header(training=_settings_dict(settings), command=command,
                          members=[str(m.path.relative_to(out)) for m in members],
                          epoch_curve=[r.to_json() for r in first.epochs], td_curve=[],
                          errors={"train_mae": train_mae, "held_mae": held_mae, "baselines": first.baselines,
                                  "members_held_mae": each},
                          rows={"train": len(first.data.train), "held": len(first.data.held),
                                "labels": first.data.total},
                          provenance=provenance())
    save_net(out / "net.npz", arrays, header)
    outcome = NetOutcome(first.data, first.epochs, [], first.baselines, held_mae, train_mae, out / "net.npz",
                         [m.path for m in members], each)
    plot_net_curve(out / "curve.png", first.epochs, [], first.baselines)
    write_summary(out / "summary.md", summary_lines(settings, outcome, command))
    return outcome


def read_bootstrap(path: Path, shape: NetShape) -> tuple[dict[str, np.ndarray], list[EpochRecord]]:
    """The weights and epoch curve of ``bootstrap.npz``, checked before anything is restored: a net file
    (:meth:`organisms.net.NetEvaluator.load`: header, shapes, finite floats) of the architecture ``shape`` and a
    curve of :data:`EPOCH_FIELDS` records; :class:`~organisms.net.NetFileError`, one line naming the file, otherwise."""
    net = NetEvaluator.load(path)
    if (net.units, net.hidden, net.scale, net.linear) != (tuple(shape.units), shape.hidden, shape.scale, shape.linear):
        raise NetFileError(f"{path}: a net of units {list(net.units)}, hidden {net.hidden}, scale {net.scale:g}, "
                           f"linear path {net.linear}; these settings need units {list(shape.units)}, hidden "
                           f"{shape.hidden}, scale {shape.scale:g}, linear path {shape.linear}")
    curve = records(net.header.get("epoch_curve"), EPOCH_FIELDS, "epoch_curve", str(path), error=NetFileError)
    return net.arrays, [EpochRecord.from_json(r) for r in curve]


def _openings(path: str | None) -> list[Opening]:
    errors: list[str] = []
    openings = load_openings(path or default_openings_path(), errors.append)
    if not openings:
        raise NoTrainingData(f"{path or default_openings_path()}: no openings to start TD-Leaf games from")
    return openings


def summary_lines(s: NetRunSettings, o: NetOutcome, command: str) -> list[str]:
    sh, loss = s.shape, BOOT_LOSSES[s.supervised.loss]
    lines = [*prelude(f"Giraffe-style net trained on {s.labels}", command),
             f"Data: {o.data.describe()}; target: {s.target}, held-out share {s.held_out}, seed {s.seed}.", "",
             "## Net", "",
             f"363 Giraffe features -> per-group first layer (global 19 -> {sh.units[0]}, piece-centric 216 -> "
             f"{sh.units[1]}, square-centric 128 -> {sh.units[2]}), ReLU -> {sh.hidden} ReLU -> 1 linear output"
             + (", plus a linear path from the 363 features (started at the piece values on the material counts)"
                if sh.linear else "")
             + f" x {sh.scale:g} = centipawns, side to move's view. File: `{o.path.name}`.", "",
             *([f"**An ensemble**: the mean of {len(o.members)} nets trained alike from seeds {s.seed} to "
                f"{s.seed + len(o.members) - 1} (the same split; "
                + ", ".join(f"`{m.parent.name}/{m.name}`" for m in o.members) + ", each playable alone), played as "
                f"one net: each group's first layers side by side, the hidden layers block-diagonal ("
                f"{len(o.members)} x the sizes above). Its held-out error {o.held_mae:.1f} cp; the members': "
                + ", ".join(f"{e:.1f}" for e in o.members_held_mae) + " cp. The bootstrap's table below is "
                "member 1's.", ""] if o.members else []),
             "## Errors (mean absolute error against the mentor, centipawns)", "",
             "| | training | held out |", "|---|---|---|",
             f"| net | {o.train_mae:.1f} | {o.held_mae:.1f} |",
             f"| predict 0 | | {o.baselines['zero']:.1f} |",
             f"| predict the training mean | | {o.baselines['mean']:.1f} |",
             f"| predict the training median | | {o.baselines['median']:.1f} |", "",
             f"## Supervised bootstrap ({s.supervised.epochs} epochs, batch {s.supervised.batch}, Adam lr "
             f"{s.supervised.lr:g}, {s.supervised.loss} loss: {loss.summary})", "",
             *curve_table(("epoch", f"loss ({loss.unit})" if loss.unit else "loss", "training cp", "held-out cp"),
                          ((r.epoch, r.loss, r.train_mae, r.held_mae) for r in o.epochs),
                          ("{}", "{:.4f}", "{:.1f}", "{:.1f}"))]
    if o.td:
        t = s.td
        lines += ["", f"## TD-Leaf(λ={t.lam:g}) self-play ({t.iterations} iterations x {t.games} games x "
                      f"{t.plies} plies, {t.nodes} nodes a search, SGD lr {t.lr:g})", "",
                  *curve_table(("iteration", "leaves", "TD error cp (before the step)", "held-out cp"),
                               ((r.iteration, r.positions, r.td_error, r.held_mae) for r in o.td),
                               ("{}", "{}", "{:.1f}", "{:.1f}"))]
    return lines


def plot_net_curve(path: Path, epochs: list[EpochRecord], td: list[TDRow], base: dict[str, float]) -> None:
    """``curve.png``: the bootstrap's training and held-out error per epoch beside the training median's, then
    (with TD-Leaf) the held-out and TD errors per iteration; centipawns."""
    from evolve.plots import Curve, Level, curves, figure, save

    panels = 2 if td else 1
    fig, axes = figure(1, panels, size=(6 * panels, 4), dpi=120, squeeze=False)
    x = [r.epoch for r in epochs]
    curves(axes[0][0], [Curve(x, column(epochs, "train_mae"), "training", {"color": "#1f77b4"}),
                        Curve(x, column(epochs, "held_mae"), "held out", {"color": "#d62728"})],
           levels=[Level(base["median"], "training median (held out)")], xlabel="epoch", integer_x=True,
           ylabel="mean |net - mentor| (cp)", title="supervised bootstrap")
    if td:
        x = [r.iteration for r in td]
        curves(axes[0][1], [Curve(x, [r.held_mae for r in td], "held out (validation)", {"color": "#d62728"}),
                            Curve(x, [r.td_error for r in td], "TD error (before the step)", {"color": "#2ca02c"})],
               xlabel="TD-Leaf iteration", integer_x=True, ylabel="cp", title="TD-Leaf self-play")
    save(fig, path)
