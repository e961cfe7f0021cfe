"""``mimic evolve``: from a label file (or, for ``--objective moves``, a player's games) to results/NAME/
(organism, logbook, curve, summary; the files beside the organism are written by :mod:`evolve.ga.summary`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evolve.data.dataset import Dataset, load_dataset
from evolve.data.moves import MoveData, load_moves, split_by_game
from evolve.ga.coordinate import DescentResult, coordinate_descent
from evolve.ga.errors import ObjectiveError
from evolve.ga.evolution import Evolution, GASettings, GenerationRecord, checkpoint_exists
from evolve.ga.fit import EXACT_LOSSES, Fit
from evolve.ga.fit_cache import cached_exact_fit
from evolve.ga.losses import DEFAULT_LOSS, LOSSES
from evolve.ga.objectives import AGREEMENTS, MOVE_LOSSES, MoveAgreement, Objective, ResultLoss
from evolve.ga.summary import write_results
from evolve.ga.wdl import MODELS, check_loss_power
from organisms import Organism
from organisms.features import LAYOUTS, feature_names
from organisms.genome import DEFAULT_ENCODING, MATERIAL_GENES, Genome, layout_genome
from organisms.imported import Start, read_start
from organisms.userfiles import ship_term_file
from search.runtime.errors import RunExists, SettingsError


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """One ``mimic evolve`` run (built by keyword): the label file (a PGN file for the ``moves``
    objective), the results folder, the GA's settings, the objective and the data options (``cap`` in
    centipawns, ``lam`` in plies). ``genome`` is the layout evolved: ``paper`` (49 genes), ``rich``
    (417, with piece-square genes) or a user's file. The ``moves`` objective's options: ``player`` (a name as
    :func:`evolve.data.moves.player_matches` reads it), ``skip_plies``, ``moves_loss`` (``agreement`` or
    ``likelihood``) and ``agreement`` (``count`` or ``squared``). ``init``: a file whose values (the
    nearest chromosome, and mutated copies of it) are generation 0, instead of random chromosomes: an organism
    file, named gene values or PeSTO-layout tables (:func:`organisms.imported.read_start`); ``"fit"`` (the
    mentor objective only): the nearest organism of the exact fit of the run's own loss (:data:`INIT_FIT`).
    The mentor objective's loss: ``loss``, a name of :data:`evolve.ga.losses.LOSSES` (``l1``, the paper's, mean
    absolute centipawns, or ``wdl``, win-probability space: ``loss_power``, ``wdl_model``, ``lambda_result``).
    ``quiet_labels``: keep only quiet labels (:meth:`mentor.labels.Label.quiet`), for the mentor and result
    objectives."""

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
    score: int = 0
    """A crowd's label file (``mimic label`` with several mentors): 0 trains on ``ce``, the crowd's median score;
    ``i`` on its ``i``-th mentor's (``c3``)."""
    lam: float = 60.0
    loss: str = DEFAULT_LOSS
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
            feature_names(self.genome)  # a user's layout: loaded and checked now, before any work starts
        if self.objective not in OBJECTIVES:
            raise SettingsError(f"unknown objective {self.objective!r} (one of {', '.join(OBJECTIVES)})")
        if self.objective == "moves" and not (self.player or "").strip():
            raise SettingsError("the moves objective needs --player NAME")
        if self.skip_plies < 0:
            raise SettingsError(f"skip_plies is a number of plies (>= 0), got {self.skip_plies}")
        if self.moves_loss not in MOVE_LOSSES:
            raise SettingsError(f"unknown move loss {self.moves_loss!r} (one of {', '.join(MOVE_LOSSES)})")
        if self.agreement not in AGREEMENTS:
            raise SettingsError(f"unknown agreement {self.agreement!r} (one of {', '.join(AGREEMENTS)})")
        if self.polish < 0:
            raise SettingsError(f"polish is a number of coordinate-descent passes (>= 0), got {self.polish}")
        if self.loss not in LOSSES:
            raise SettingsError(f"unknown loss {self.loss!r} (one of {', '.join(LOSSES)})")
        if self.loss != DEFAULT_LOSS and self.objective != "mentor":
            raise SettingsError(f"--loss {self.loss} is the mentor objective's (this run's objective: "
                                f"{self.objective})")
        if self.wdl_model not in MODELS:
            raise SettingsError(f"unknown win-probability model {self.wdl_model!r} (one of {', '.join(MODELS)})")
        check_loss_power(self.loss_power)
        if not 0 <= self.lambda_result <= 1:
            raise SettingsError(f"lambda-result is the mentor's share of the target, within [0, 1], got "
                             f"{self.lambda_result}")
        if self.init == INIT_FIT and self.objective != "mentor":
            raise SettingsError(f"--init fit starts from the mentor objective's exact fit (this run's objective: "
                             f"{self.objective})")
        if self.quiet_labels and self.objective == "moves":
            raise SettingsError("--quiet-labels filters label files; the moves objective reads games")


OBJECTIVES = ("mentor", "result", "moves")
"""``--objective``: the mentor's scores (with a loss of :data:`evolve.ga.losses.LOSSES`), game results, a player's
moves."""

INIT_FIT = "fit"
"""``--init fit``: generation 0 is the nearest organism of the exact fit of the run's loss (the L1 fit for ``l1``,
the L-BFGS-B wdl fit for ``wdl``) and mutated copies of it."""


@dataclass
class RunOutcome:
    """A finished run: its winner and losses (in the objective's unit), the exact fits and the objective's ceiling,
    the baselines and what the objective measured of the winner."""

    organism: Organism
    train_loss: float
    held_loss: float
    fits: dict[str, Fit]  # the exact fits solved for the run (mentor objective: l1 and l2), by their loss
    ceiling: Fit | None  # the objective's own ceiling (Objective.ceiling; the L1 fit for l1)
    descent: DescentResult | None  # GreKo's coordinate descent (the result objective's baseline)
    ratio: float | None  # GA held-out loss / the ceiling's
    seconds: dict[str, float]
    dataset: Dataset | MoveData
    objective: Objective
    records: list[dict[str, Any]]
    polished: DescentResult | None = None  # the memetic option's result (RunSettings.polish > 0)
    polished_ratio: float | None = None
    measures: dict[str, float] | None = None  # Objective.winner_measures (the moves objective's agreement, ...)
    cp_errors: tuple[float, ...] | None = None  # Objective.reports_cp: the winner's mean |eval − mentor| (cp)
    start: Start | None = None  # where generation 0 started (--init): the summary's change from it, term by term
    term_file: Path | None = None  # a user layout's term file copied beside the organism (organisms.userfiles)

    @property
    def fit_l1(self) -> Fit | None:
        return self.fits.get("l1")

    @property
    def fit_l2(self) -> Fit | None:
        return self.fits.get("l2")

    @property
    def fit_wdl(self) -> Fit | None:
        """The win-probability ceiling (a ``--loss wdl`` run's :attr:`ceiling`)."""
        return self.fits.get("wdl")


def initial_chromosome(path: str | Path, genome: Genome) -> np.ndarray:
    """The chromosome an ``--init`` file gives ``genome`` (:func:`organisms.imported.read_start`: an organism file in
    any encoding, named gene values or PeSTO-layout tables; a gene beyond its range refused)."""
    return read_start(path, genome).bits


def build_objective(ds: Dataset, kind: str, lam: float, settings: RunSettings | None = None) -> Objective:
    """The mentor or result objective of a label file's dataset (the moves objective is built from a
    :class:`MoveData` by :func:`evolve`); the mentor objective's loss is ``settings.loss``'s entry of
    :data:`evolve.ga.losses.LOSSES` (l1 without settings), anything it fits (a wdl loss's K) fitted here on the
    training rows."""
    if kind == "mentor":
        return LOSSES[settings.loss if settings is not None else DEFAULT_LOSS].build(ds, settings or RunSettings(
            labels="", out="", ga=GASettings()))
    if kind == "result":
        return ResultLoss(ds.features, ds.y, ds.result, ds.plies_to_end, ds.train, lam=lam)
    raise SettingsError(f"unknown objective {kind!r} (mentor or result)")


def evolve(settings: RunSettings, command: str, resume: bool = False, dataset: Dataset | None = None,
           report: Callable[[str], None] | None = None,
           on_generation: Callable[[GenerationRecord, int, int], None] | None = None) -> RunOutcome:
    """Run (or resume) one evolution and write its results; see docs/evolving.md.

    ``report`` receives console lines worth seeing before the evolution starts (malformed label lines);
    ``on_generation(record, done, total)`` each generation's record as it ends, with the generations done and in
    all (generation 0 included), for a progress bar.
    """
    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "checkpoint"
    if not resume and checkpoint_exists(checkpoint):
        raise RunExists(f"{out} holds a checkpoint; pass --resume to continue it, or choose another --out")
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    genome = layout_genome(settings.genome, settings.encoding)
    if genome.layout is not None:  # a different file where the term file's copy goes: refused before any work
        ship_term_file(genome.layout, out, write=False)
    start = read_start(settings.init, genome) if settings.init and settings.init != INIT_FIT else None
    for line in (start.warning, start.note()) if start is not None else ():
        if report is not None and line is not None:
            report(line)
    ds: Dataset | MoveData
    objective: Objective
    if settings.objective == "moves":
        assert settings.player is not None  # RunSettings checks it
        ds, child_features = load_moves(settings.labels, settings.player, settings.skip_plies, layout=settings.genome,
                                        n_jobs=settings.jobs)
        if not ds.n:
            raise ObjectiveError(f"{settings.labels}: no positions where {settings.player!r} moved "
                             f"({ds.player_games} of {ds.games} games by that player)")
        train, held = split_by_game(ds, settings.held_out, settings.ga.seed)
        objective = MoveAgreement(child_features, ds.sign, ds.fixed, ds.offsets, ds.played, settings.moves_loss,
                                  settings.agreement)
        del child_features  # the objective keeps its own (signed) copy
        seconds["games, resolved children and features"] = time.perf_counter() - t0
    else:
        ds = dataset or load_dataset(settings.labels, settings.target, settings.cap, settings.held_out,
                                     settings.ga.seed, n_jobs=settings.jobs, layout=settings.genome,
                                     quiet=settings.quiet_labels, score=settings.score)
        train, held = ds.train, ds.held
        seconds["labels and features"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        objective = build_objective(ds, settings.objective, settings.lam, settings)
        timing = LOSSES[settings.loss].timing
        if timing is not None:
            seconds[timing] = time.perf_counter() - t0
    if report is not None:
        for line in ds.malformed_report():
            report(line)

    t0 = time.perf_counter()
    fits: dict[str, Fit] = {}
    ceiling = None
    if settings.objective == "mentor":
        assert isinstance(ds, Dataset)
        for loss in EXACT_LOSSES:  # both, whatever the run's loss: reported beside the GA
            fits[loss] = cached_exact_fit(ds.features, ds.y, train, held, genome, loss)
        ceiling = objective.ceiling(ds, genome, fits["l1"])
        if ceiling is not None:
            fits.setdefault(ceiling.loss, ceiling)
    if settings.objective != "moves":
        seconds["exact fits"] = time.perf_counter() - t0
    if settings.init == INIT_FIT:
        if ceiling is None:  # RunSettings allows --init fit with the mentor objective only: a loss without a fit
            raise SettingsError(f"--init fit starts from the exact fit of the run's loss; --loss {settings.loss} has "
                                "none")
        start = Start.of_weights(ceiling.weights, genome)
    descent = None
    if settings.objective == "result":
        descent = coordinate_descent(genome, objective, train, held)
        seconds["GreKo coordinate descent"] = descent.seconds

    ev = Evolution(genome, objective, train, held, settings.ga, initial=None if start is None else start.bits)
    if resume and checkpoint_exists(checkpoint):
        ev.load(checkpoint)
    total = settings.ga.generations + 1

    def tick(rec: GenerationRecord) -> None:
        if on_generation is not None:
            on_generation(rec, rec.gen + 1, total)

    ev.run(checkpoint=checkpoint, every=settings.checkpoint_every, on_generation=tick)
    seconds["evolution"] = ev.elapsed

    bits, train_loss, held_loss = ev.winner()
    records = [dict(r) for r in ev.logbook]
    meta = {"labels": settings.labels, "objective": settings.objective, "target": settings.target,
            **({"player": settings.player, "moves_loss": settings.moves_loss} if settings.objective == "moves" else {}),
            "train_error": train_loss, "held_out_error": held_loss, "seed": settings.ga.seed,
            "generations": ev.generation, "command": command}
    meta.update(objective.organism_meta())
    organism = Organism(genome, bits, meta=meta)
    organism.save(out / "organism.json")
    term_file = ship_term_file(genome.layout, out) if genome.layout is not None else None
    ceiling_loss = objective.ceiling_loss(ceiling) if ceiling is not None else None
    ratio = held_loss / ceiling_loss if ceiling_loss else None
    polished = polished_ratio = None
    if settings.polish > 0:
        polished = coordinate_descent(genome, objective, train, held, start=organism.weights,
                                      max_passes=settings.polish)
        seconds["polish (coordinate descent)"] = polished.seconds
        Organism.from_weights(polished.weights, genome, meta={
            **meta, "train_error": polished.train_loss, "held_out_error": polished.held_loss,
            "polish_passes": polished.passes}).save(out / "organism-polished.json")
        if ceiling_loss:
            polished_ratio = polished.held_loss / ceiling_loss
    outcome = RunOutcome(organism, train_loss, held_loss, fits, ceiling, descent, ratio, seconds, ds, objective,
                         records, polished, polished_ratio,
                         measures=objective.winner_measures(organism.weights, train, held),
                         cp_errors=objective.winner_cp(organism.weights, train, held), start=start,
                         term_file=term_file)
    write_results(out, settings, outcome, command)
    return outcome


def format_outcome(o: RunOutcome) -> list[str]:
    unit = o.objective.unit
    lines = [f"winner: training {o.train_loss:.4g} {unit}, held out {o.held_loss:.4g} {unit}"]
    if o.cp_errors is not None:
        lines.append(f"winner's centipawn error: training {o.cp_errors[0]:.4g} cp, held out {o.cp_errors[1]:.4g} cp")
    lines += o.objective.outcome_lines(o)
    if o.polished is not None:
        lines.append(f"GA + memetic polish ({o.polished.passes} coordinate-descent passes): training "
                     f"{o.polished.train_loss:.4g} {unit}, held out {o.polished.held_loss:.4g} {unit}"
                     + (f"; / exact held-out = {o.polished_ratio:.3f}" if o.polished_ratio is not None else ""))
    if o.start is not None:
        old, new = o.start.values(), o.organism.values()
        material = [f"{n} {old[n]:.0f} -> {new[n]:.0f}" for n in MATERIAL_GENES if n in old]
        lines.append("change from the start (--init): " + ", ".join(material)
                     + ("; " if material else "") + "every gene in summary.md and changes.csv")
    lines.append("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in o.seconds.items()))
    return lines
