"""``mimic evolve``: from a label file (or, for ``--objective moves``, a player's games) to results/NAME/
(organism, logbook, curve, summary; the files beside the organism are written by :mod:`evolve.ga.summary`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evolve.data.dataset import Dataset, load_dataset
from evolve.data.moves import MoveData, load_moves, split_by_game
from evolve.ga.coordinate import DescentResult, coordinate_descent
from evolve.ga.evolution import Evolution, GASettings, checkpoint_exists
from evolve.ga.fit import Fit
from evolve.ga.fit_cache import cached_exact_fit, cached_wdl_fit
from evolve.ga.objectives import AGREEMENTS, MOVE_LOSSES, MentorLoss, MoveAgreement, Objective, ResultLoss
from evolve.ga.summary import write_results
from evolve.ga.wdl import LOSSES, MODELS, WdlLoss, check_loss_power, wdl_target
from organisms import Organism
from organisms.features import LAYOUTS
from organisms.genome import DEFAULT_ENCODING, Genome, layout_genome
from search.runtime.errors import SettingsError


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """One ``mimic evolve`` run (built by keyword): the label file (a PGN file for the ``moves``
    objective), the results folder, the GA's settings, the objective and the data options (``cap`` in
    centipawns, ``lam`` in plies). ``genome`` is the layout evolved: ``paper`` (49 genes) or ``rich``
    (417, with piece-square genes). The ``moves`` objective's options: ``player`` (a name as
    :func:`evolve.data.moves.player_matches` reads it), ``skip_plies``, ``moves_loss`` (``agreement`` or
    ``likelihood``) and ``agreement`` (``count`` or ``squared``). ``init``: an organism file whose
    chromosome (and mutated copies of it) is generation 0, instead of random chromosomes; ``"fit"`` (the
    mentor objective only): the nearest organism of the exact fit of the run's own loss (:data:`INIT_FIT`).
    The mentor objective's loss (:mod:`evolve.ga.wdl`): ``loss`` ``l1`` (the paper's, mean absolute centipawns)
    or ``wdl`` (win-probability space: ``loss_power``, ``wdl_model``, ``lambda_result``). ``quiet_labels``:
    keep only quiet labels (:meth:`mentor.labels.Label.quiet`), for the mentor and result objectives."""

    labels: str
    out: str
    ga: GASettings
    objective: str = "mentor"  # or "result", "moves"
    player: str | None = None
    skip_plies: int = 10
    moves_loss: str = "agreement"
    agreement: str = "count"
    init: str | None = None
    target: str = "leaf"
    cap: int = 1500
    held_out: float = 0.2
    lam: float = 60.0
    loss: str = "l1"
    loss_power: float = 2.0
    wdl_model: str = "sf15.1"
    lambda_result: float = 1.0
    quiet_labels: bool = False
    checkpoint_every: int = 10
    jobs: int = 1
    encoding: str = DEFAULT_ENCODING
    genome: str = "paper"
    polish: int = 0
    """The memetic option (off at 0): after the GA, up to this many passes of GreKo's coordinate descent
    from the GA's winner on the training rows. The pure GA's winner stays ``organism.json`` and its error
    stays in the summary; the polished organism is ``organism-polished.json``, reported beside it."""

    def __post_init__(self) -> None:
        if self.genome not in LAYOUTS:
            raise ValueError(f"unknown genome layout {self.genome!r} (one of {', '.join(LAYOUTS)})")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.objective!r} (one of {', '.join(OBJECTIVES)})")
        if self.objective == "moves" and not (self.player or "").strip():
            raise ValueError("the moves objective needs --player NAME")
        if self.skip_plies < 0:
            raise ValueError(f"skip_plies is a number of plies (>= 0), got {self.skip_plies}")
        if self.moves_loss not in MOVE_LOSSES:
            raise ValueError(f"unknown move loss {self.moves_loss!r} (one of {', '.join(MOVE_LOSSES)})")
        if self.agreement not in AGREEMENTS:
            raise ValueError(f"unknown agreement {self.agreement!r} (one of {', '.join(AGREEMENTS)})")
        if self.polish < 0:
            raise ValueError(f"polish is a number of coordinate-descent passes (>= 0), got {self.polish}")
        if self.loss not in LOSSES:
            raise ValueError(f"unknown loss {self.loss!r} (one of {', '.join(LOSSES)})")
        if self.loss != "l1" and self.objective != "mentor":
            raise ValueError(f"--loss {self.loss} is the mentor objective's (this run's objective: {self.objective})")
        if self.wdl_model not in MODELS:
            raise ValueError(f"unknown win-probability model {self.wdl_model!r} (one of {', '.join(MODELS)})")
        check_loss_power(self.loss_power)
        if not 0 <= self.lambda_result <= 1:
            raise ValueError(f"lambda-result is the mentor's share of the target, within [0, 1], got "
                             f"{self.lambda_result}")
        if self.init == INIT_FIT and self.objective != "mentor":
            raise ValueError(f"--init fit starts from the mentor objective's exact fit (this run's objective: "
                             f"{self.objective})")
        if self.quiet_labels and self.objective == "moves":
            raise ValueError("--quiet-labels filters label files; the moves objective reads games")


OBJECTIVES = ("mentor", "result", "moves")

INIT_FIT = "fit"
"""``--init fit``: generation 0 is the nearest organism of the exact fit of the run's loss (the L1 fit for ``l1``,
the L-BFGS-B wdl fit for ``wdl``) and mutated copies of it."""


@dataclass
class RunOutcome:
    organism: Organism
    train_loss: float
    held_loss: float
    fit_l1: Fit | None
    fit_l2: Fit | None
    descent: DescentResult | None  # GreKo's coordinate descent (the result objective's baseline)
    ratio: float | None
    seconds: dict[str, float]
    dataset: Dataset | MoveData
    objective: Objective
    records: list[dict[str, Any]]
    polished: DescentResult | None = None  # the memetic option's result (RunSettings.polish > 0)
    polished_ratio: float | None = None
    moves: dict[str, float] | None = None  # the moves objective's measures of the winner (move_measures)
    fit_wdl: Fit | None = None  # the win-probability ceiling (loss wdl)
    cp_errors: tuple[float, ...] | None = None  # loss wdl: the winner's mean |eval − mentor| (cp), train / held


def move_measures(objective: MoveAgreement, weights: np.ndarray, train: np.ndarray, held: np.ndarray
                  ) -> dict[str, float]:
    """Both measures of one organism on the training and held-out positions, whichever drives the GA:
    the agreement rate, the mean log-likelihood of the played moves at β fitted on the training positions
    (and that β), chance's agreement (the mean of 1 / legal moves) and a uniform choice's likelihood."""
    out: dict[str, float] = {}
    beta: np.ndarray | None = None
    for part, subset in (("train", train), ("held", held)):
        rows = np.intersect1d(subset, objective.rows)
        if not len(rows):
            continue
        w = np.atleast_2d(weights)
        out[f"{part}_agreement"] = float(objective.agreement(w, rows)[0])
        ll, beta = objective.log_likelihood(w, rows, beta)  # fitted on the training rows, kept for the held out
        out[f"{part}_log_likelihood"] = float(ll[0])
        out["beta"] = float(beta[0])
        lengths = objective.offsets[rows + 1] - objective.offsets[rows]
        out[f"{part}_chance"] = float(np.mean(1.0 / lengths))
        out[f"{part}_uniform_log_likelihood"] = float(np.mean(-np.log(lengths)))
        out[f"{part}_positions"] = float(len(rows))
    return out


def initial_chromosome(path: str | Path, genome: Genome) -> np.ndarray:
    """The chromosome of the organism file ``path`` (validated by :meth:`Organism.load`) in ``genome``:
    its values by gene name re-encoded (another encoding is fine). A paper organism starts a rich run
    with its piece-square genes at 0; any other difference of genes is refused."""
    organism = Organism.load(path)
    values = organism.values()
    missing = [n for n in genome.names if n not in values]
    extra = [n for n in values if n not in genome.names]
    if extra or (missing and organism.layout != "paper"):
        raise ValueError(f"{path}: the organism's genes ({organism.layout} layout) are not this run's genome's "
                         f"(unknown genes: {extra[:3] or 'none'}, missing: {missing[:3] or 'none'})")
    start = np.array([values.get(n, 0.0) for n in genome.names])
    # A value beyond a gene's range by more than half its grid step would be clamped: not where the user started.
    outside = np.flatnonzero((start < genome.low - genome.scale / 2) | (start > genome.high + genome.scale / 2))
    if len(outside):
        i = int(outside[0])
        raise SettingsError(f"--init {path}: gene {genome.names[i]} is {start[i]:g}, outside this run's range "
                            f"[{genome.low[i]:g}, {genome.high[i]:g}] ({len(outside)} gene(s) outside; they would be "
                            f"clamped): start from an organism of this layout")
    return genome.encode(start)


def build_objective(ds: Dataset, kind: str, lam: float, settings: RunSettings | None = None) -> Objective:
    """The mentor or result objective of a label file's dataset (the moves objective is built from a
    :class:`MoveData` by :func:`evolve`); the mentor objective's loss is ``settings.loss`` (l1 without
    settings), a wdl loss's K fitted here on the training rows."""
    if kind == "mentor" and settings is not None and settings.loss == "wdl":
        target = wdl_target(ds.y, ds.result, ds.ply, ds.train, settings.wdl_model, settings.loss_power,
                            settings.lambda_result)
        return WdlLoss(ds.features, ds.y, target)
    if kind == "mentor":
        return MentorLoss(ds.features, ds.y)
    if kind == "result":
        return ResultLoss(ds.features, ds.y, ds.result, ds.plies_to_end, ds.train, lam=lam)
    raise ValueError(f"unknown objective {kind!r} (mentor or result)")


def evolve(settings: RunSettings, command: str, resume: bool = False, progress: bool = True,
           dataset: Dataset | None = None, report: Callable[[str], None] | None = None) -> RunOutcome:
    """Run (or resume) one evolution and write its results; see the package README.

    ``report`` receives console lines worth seeing before the evolution starts (malformed label lines).
    """
    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "checkpoint"
    if not resume and checkpoint_exists(checkpoint):
        raise FileExistsError(f"{out} holds a checkpoint; pass --resume to continue it, or choose another --out")
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    genome = layout_genome(settings.genome, settings.encoding)
    initial = initial_chromosome(settings.init, genome) if settings.init and settings.init != INIT_FIT else None
    ds: Dataset | MoveData
    objective: Objective
    if settings.objective == "moves":
        assert settings.player is not None  # RunSettings checks it
        ds, child_features = load_moves(settings.labels, settings.player, settings.skip_plies, layout=settings.genome,
                                        n_jobs=settings.jobs)
        if not ds.n:
            raise ValueError(f"{settings.labels}: no positions where {settings.player!r} moved "
                             f"({ds.player_games} of {ds.games} games by that player)")
        train, held = split_by_game(ds, settings.held_out, settings.ga.seed)
        objective = MoveAgreement(child_features, ds.sign, ds.fixed, ds.offsets, ds.played, settings.moves_loss,
                                  settings.agreement)
        del child_features  # the objective keeps its own (signed) copy
        seconds["games, resolved children and features"] = time.perf_counter() - t0
    else:
        ds = dataset or load_dataset(settings.labels, settings.target, settings.cap, settings.held_out,
                                     settings.ga.seed, n_jobs=settings.jobs, layout=settings.genome,
                                     quiet=settings.quiet_labels)
        train, held = ds.train, ds.held
        seconds["labels and features"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        objective = build_objective(ds, settings.objective, settings.lam, settings)
        if isinstance(objective, WdlLoss):
            seconds["win-probability targets and K"] = time.perf_counter() - t0
    if report is not None:
        for line in ds.malformed_report():
            report(line)

    t0 = time.perf_counter()
    fit_l1 = fit_l2 = fit_wdl = None
    if settings.objective == "mentor":
        assert isinstance(ds, Dataset)
        fit_l1 = cached_exact_fit(ds.features, ds.y, train, held, genome, "l1")
        fit_l2 = cached_exact_fit(ds.features, ds.y, train, held, genome, "l2")
        if isinstance(objective, WdlLoss):
            fit_wdl = cached_wdl_fit(ds.features, ds.y, train, held, genome, objective.target, fit_l1.weights,
                                     data_key=fit_l1.key)
    if settings.objective != "moves":
        seconds["exact fits"] = time.perf_counter() - t0
    if settings.init == INIT_FIT:
        start = fit_wdl if fit_wdl is not None else fit_l1
        assert start is not None  # RunSettings allows --init fit with the mentor objective only
        initial = Organism.from_weights(start.weights, genome).bits
    descent = None
    if settings.objective == "result":
        descent = coordinate_descent(genome, objective, train, held)
        seconds["GreKo coordinate descent"] = descent.seconds

    ev = Evolution(genome, objective, train, held, settings.ga, initial=initial)
    if resume and checkpoint_exists(checkpoint):
        ev.load(checkpoint)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=settings.ga.generations + 1, initial=ev.generation + 1, unit="gen", desc="evolving",
                   file=sys.stderr, dynamic_ncols=True)

    def tick(rec: Any) -> None:
        if bar is not None:
            bar.set_postfix(best=f"{rec.best:.4g}", held=f"{rec.held_out:.4g}", refresh=False)
            bar.update(1)

    try:
        ev.run(checkpoint=checkpoint, every=settings.checkpoint_every, on_generation=tick)
    finally:
        if bar is not None:
            bar.close()
    seconds["evolution"] = ev.elapsed

    bits, train_loss, held_loss = ev.winner()
    records = [dict(r) for r in ev.logbook]
    meta = {"labels": settings.labels, "objective": settings.objective, "target": settings.target,
            **({"player": settings.player, "moves_loss": settings.moves_loss} if settings.objective == "moves" else {}),
            "train_error": train_loss, "held_out_error": held_loss, "seed": settings.ga.seed,
            "generations": ev.generation, "command": command}
    if isinstance(objective, WdlLoss):
        meta.update(loss="wdl", wdl_model=settings.wdl_model, wdl_k=objective.target.k,
                    loss_power=settings.loss_power, lambda_result=settings.lambda_result)
    organism = Organism(genome, bits, meta=meta)
    organism.save(out / "organism.json")
    ceiling = ceiling_of(fit_wdl if isinstance(objective, WdlLoss) else fit_l1)
    ratio = held_loss / ceiling if ceiling else None
    polished = polished_ratio = None
    if settings.polish > 0:
        polished = coordinate_descent(genome, objective, train, held, start=organism.weights,
                                      max_passes=settings.polish)
        seconds["polish (coordinate descent)"] = polished.seconds
        Organism.from_weights(polished.weights, genome, meta={
            **meta, "train_error": polished.train_loss, "held_out_error": polished.held_loss,
            "polish_passes": polished.passes}).save(out / "organism-polished.json")
        if ceiling:
            polished_ratio = polished.held_loss / ceiling
    moves = None
    if isinstance(objective, MoveAgreement):
        moves = move_measures(objective, organism.weights, train, held)
    cp_errors = None
    if isinstance(objective, WdlLoss):
        miss = np.abs(objective.features @ organism.weights - objective.y)  # every row at once: no copy of rows
        cp_errors = tuple(float(miss[r].mean()) if len(r) else float("nan") for r in (train, held))
    outcome = RunOutcome(organism, train_loss, held_loss, fit_l1, fit_l2, descent, ratio, seconds, ds, objective,
                         records, polished, polished_ratio, moves, fit_wdl, cp_errors)
    write_results(out, settings, outcome, command)
    return outcome


def ceiling_of(fit: Fit | None) -> float | None:
    """The held-out error a GA run is divided by: the L1 fit's (cp) or the wdl fit's own loss; None when
    there is no fit or it is 0."""
    if fit is None:
        return None
    value = fit.held_loss if fit.loss == "wdl" else fit.held_mae
    return value if value is not None and value > 0 else None


def format_outcome(o: RunOutcome) -> list[str]:
    unit = o.objective.unit
    lines = [f"winner: training {o.train_loss:.4g} {unit}, held out {o.held_loss:.4g} {unit}"]
    if o.moves:
        m = o.moves
        lines.append("move agreement: " + ", ".join(
            f"{name} {m[f'{p}_agreement']:.2%} (chance {m[f'{p}_chance']:.2%}), log-likelihood "
            f"{m[f'{p}_log_likelihood']:.4f} nats a move (uniform {m[f'{p}_uniform_log_likelihood']:.4f})"
            for p, name in (("train", "training"), ("held", "held out")) if f"{p}_agreement" in m)
            + (f"; beta {m['beta']:.3g}/cp (fitted on the training positions)" if "beta" in m else ""))
    if o.cp_errors is not None:
        lines.append(f"winner's centipawn error: training {o.cp_errors[0]:.4g} cp, held out {o.cp_errors[1]:.4g} cp")
    if o.fit_wdl is not None and o.fit_wdl.held_loss is not None:
        assert isinstance(o.objective, WdlLoss)
        lines.append(f"win-probability ceiling ({o.fit_wdl.method}, K {o.objective.target.k:.1f} cp): training "
                     f"{o.fit_wdl.train_loss:.4g}, held out {o.fit_wdl.held_loss:.4g} ({o.fit_wdl.held_mae:.4g} cp)"
                     + (f"; GA held-out / ceiling held-out = {o.ratio:.3f}" if o.ratio is not None else ""))
    if o.fit_l1 is not None and o.fit_wdl is not None:
        lines.append(f"exact L1 fit ({o.fit_l1.method}): training {o.fit_l1.train_mae:.4g} cp, "
                     f"held out {o.fit_l1.held_mae:.4g} cp")
    elif o.fit_l1 is not None and o.ratio is not None:
        lines.append(f"exact L1 fit ({o.fit_l1.method}): training {o.fit_l1.train_mae:.4g}, "
                     f"held out {o.fit_l1.held_mae:.4g}; "
                     f"GA held-out / exact held-out = {o.ratio:.3f}")
    if o.polished is not None:
        lines.append(f"GA + memetic polish ({o.polished.passes} coordinate-descent passes): training "
                     f"{o.polished.train_loss:.4g} {unit}, held out {o.polished.held_loss:.4g} {unit}"
                     + (f"; / exact held-out = {o.polished_ratio:.3f}" if o.polished_ratio is not None else ""))
    lines.append("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in o.seconds.items()))
    return lines
