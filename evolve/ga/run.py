"""``mimic evolve``: from a label file (or, for ``--objective moves``, a player's games) to results/NAME/
(organism, logbook, curve, summary)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evolve.data.dataset import Dataset, load_dataset
from evolve.data.moves import MoveData, load_moves, split_by_game
from evolve.ga.coordinate import DescentResult, coordinate_descent
from evolve.ga.evolution import Evolution, GASettings, checkpoint_exists
from evolve.ga.fit import Fit
from evolve.ga.fit_cache import cached_exact_fit
from evolve.ga.objectives import AGREEMENTS, MOVE_LOSSES, MentorLoss, MoveAgreement, Objective, ResultLoss
from evolve.ga.report import plot_curve, plot_pst, values_table, write_logbook
from mentor.labels import comment_lines, provenance_lines
from organisms import Organism
from organisms.features import LAYOUTS
from organisms.genome import DEFAULT_ENCODING, Genome, layout_genome
from search.runtime.provenance import describe, provenance


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """One ``mimic evolve`` run (built by keyword): the label file (a PGN file for the ``moves``
    objective), the results folder, the GA's settings, the objective and the data options (``cap`` in
    centipawns, ``lam`` in plies). ``genome`` is the layout evolved: ``paper`` (49 genes) or ``rich``
    (417, with piece-square genes). The ``moves`` objective's options: ``player`` (a name as
    :func:`evolve.data.moves.player_matches` reads it), ``skip_plies``, ``moves_loss`` (``agreement`` or
    ``likelihood``) and ``agreement`` (``count`` or ``squared``). ``init``: an organism file whose
    chromosome (and mutated copies of it) is generation 0, instead of random chromosomes."""

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


OBJECTIVES = ("mentor", "result", "moves")


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
    return genome.encode(np.array([values.get(n, 0.0) for n in genome.names]))


def build_objective(ds: Dataset, kind: str, lam: float) -> Objective:
    """The mentor or result objective of a label file's dataset (the moves objective is built from a
    :class:`MoveData` by :func:`evolve`)."""
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
    initial = initial_chromosome(settings.init, genome) if settings.init else None
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
                                     settings.ga.seed, n_jobs=settings.jobs, layout=settings.genome)
        train, held = ds.train, ds.held
        seconds["labels and features"] = time.perf_counter() - t0
        objective = build_objective(ds, settings.objective, settings.lam)
    if report is not None:
        for line in ds.malformed_report():
            report(line)

    t0 = time.perf_counter()
    fit_l1 = fit_l2 = None
    if settings.objective == "mentor":
        assert isinstance(ds, Dataset)
        fit_l1 = cached_exact_fit(ds.features, ds.y, train, held, genome, "l1")
        fit_l2 = cached_exact_fit(ds.features, ds.y, train, held, genome, "l2")
    if settings.objective != "moves":
        seconds["exact fits"] = time.perf_counter() - t0
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
    organism = Organism(genome, bits, meta=meta)
    organism.save(out / "organism.json")
    ratio = held_loss / fit_l1.held_mae if fit_l1 is not None and fit_l1.held_mae > 0 else None
    polished = polished_ratio = None
    if settings.polish > 0:
        polished = coordinate_descent(genome, objective, train, held, start=organism.weights,
                                      max_passes=settings.polish)
        seconds["polish (coordinate descent)"] = polished.seconds
        Organism.from_weights(polished.weights, genome, meta={
            **meta, "train_error": polished.train_loss, "held_out_error": polished.held_loss,
            "polish_passes": polished.passes}).save(out / "organism-polished.json")
        if fit_l1 is not None and fit_l1.held_mae > 0:
            polished_ratio = polished.held_loss / fit_l1.held_mae
    moves = None
    if isinstance(objective, MoveAgreement):
        moves = move_measures(objective, organism.weights, train, held)
    outcome = RunOutcome(organism, train_loss, held_loss, fit_l1, fit_l2, descent, ratio, seconds, ds, objective,
                         records, polished, polished_ratio, moves)
    write_results(out, settings, outcome, command)
    return outcome


def write_results(out: Path, settings: RunSettings, o: RunOutcome, command: str) -> None:
    write_logbook(out / "logbook.csv", o.records)
    unit = o.objective.unit
    ceiling = o.fit_l1.held_mae if o.fit_l1 is not None else None
    plot_curve(out / "curve.png", o.records, unit, f"{Path(settings.out).name}: {o.objective.name} error",
               ceiling)
    if any(n.startswith("pst_") for n in o.organism.genome.names):
        plot_pst(out / "pst.png", o.organism.genome, o.organism.weights,
                 f"{Path(settings.out).name}: the evolved organism's piece-square values (material + table, cp, "
                 "White's view) beside the expert's (PeSTO)")
    if o.fit_l1 is not None:
        (out / "fit-l1.json").write_text(json.dumps(
            {"loss": "l1", "train_mae": o.fit_l1.train_mae, "held_out_mae": o.fit_l1.held_mae,
             "weights": dict(zip(o.organism.genome.names, o.fit_l1.weights.tolist(), strict=True))}, indent=1) + "\n")
    settings_json = {**asdict(settings), "command": command, "provenance": provenance()}
    (out / "settings.json").write_text(json.dumps(settings_json, indent=1) + "\n")

    ds = o.dataset
    label_header = _label_provenance(Path(settings.labels)) if isinstance(ds, Dataset) else []
    lines = [f"# Evolution: {Path(settings.out).name}", "",
             f"Made by ({describe()}):", "", "```", command, "```", "",
             f"{'Labels' if isinstance(ds, Dataset) else 'Games'}: {ds.describe()}."]
    if label_header:
        lines += ["", "The label file's provenance says it was made by:", "", "```", *label_header, "```"]
    lines += ["",
             "## Settings", "", "| setting | value |", "|---|---|"]
    for k, v in asdict(settings.ga).items():
        lines.append(f"| {k} | {v} |")
    keys: tuple[str, ...] = ("genome", "encoding", "polish", "objective", "target", "cap", "held_out", "init")
    if settings.objective == "moves":
        keys = ("genome", "encoding", "polish", "objective", "player", "skip_plies", "moves_loss", "agreement",
                "held_out", "init")
    for k in keys:
        lines.append(f"| {k} | {getattr(settings, k)} |")
    if settings.objective == "result":
        assert isinstance(o.objective, ResultLoss)
        lines.append(f"| lambda (plies) | {settings.lam:g} |")
        lines.append(f"| K (fitted, cp) | {o.objective.k:.1f} |")
    lines += ["", "## Move agreement" if settings.objective == "moves" else "## Errors", ""]
    if settings.objective == "mentor":
        lines += ["Mean absolute difference from the mentor's score, centipawns (side to move at the target).", "",
                  "| | training | held out |", "|---|---|---|",
                  f"| GA winner | {o.train_loss:.2f} | {o.held_loss:.2f} |"]
        for fit in (o.fit_l1, o.fit_l2):
            if fit is not None:
                lines.append(f"| exact {fit.loss.upper()} fit, bounded ({_METHODS.get(fit.method, fit.method)}) | "
                             f"{fit.train_mae:.2f} | {fit.held_mae:.2f} |")
        if o.polished is not None:
            lines.append(f"| GA winner + memetic polish ({o.polished.passes} coordinate-descent passes, "
                         f"{o.polished.evaluations} evaluations) | {o.polished.train_loss:.2f} | "
                         f"{o.polished.held_loss:.2f} |")
        if o.ratio is not None:
            lines += ["", f"**GA held-out error ÷ exact L1 fit held-out error: {o.ratio:.3f}** (pure GA)"]
        if o.polished_ratio is not None:
            lines += ["", f"GA + memetic polish held-out error ÷ exact L1 fit held-out error: "
                          f"{o.polished_ratio:.3f}"]
    elif settings.objective == "moves":
        lines += _moves_lines(settings, o)
    else:
        cd = o.descent
        assert cd is not None  # computed by evolve() for the result objective
        lines += ["Weighted squared error of σ(eval/K) against the game result.", "",
                  "| | training | held out | time |", "|---|---|---|---|",
                  f"| GA winner | {o.train_loss:.5f} | {o.held_loss:.5f} | {o.seconds['evolution']:.1f} s |",
                  f"| GreKo coordinate descent ({cd.passes} passes, {cd.evaluations} evaluations) | "
                  f"{cd.train_loss:.5f} | {cd.held_loss:.5f} | {cd.seconds:.1f} s |"]
        if o.polished is not None:
            lines.append(f"| GA winner + memetic polish ({o.polished.passes} coordinate-descent passes) | "
                         f"{o.polished.train_loss:.5f} | {o.polished.held_loss:.5f} | {o.polished.seconds:.1f} s |")
    picks = [g for g in (0, 50, 100, 200, 300) if g < len(o.records)]
    if o.records and o.records[-1]["gen"] not in picks:
        picks.append(o.records[-1]["gen"])
    lines += ["", "Best organism's error on its generation's sample, and on the held-out rows:", "",
              "| generation | " + " | ".join(str(g) for g in picks) + " |",
              "|---|" + "---|" * len(picks),
              "| sample | " + " | ".join(f"{o.records[g]['best']:.4g}" for g in picks) + " |",
              "| held out | " + " | ".join(f"{o.records[g]['held_out']:.4g}" for g in picks) + " |", ""]
    if len(o.records) > 100:
        h = [r["held_out"] for r in o.records]
        first, last = h[0], h[-1]
        at50 = h[50]
        share = 100 * (first - at50) / max(first - last, 1e-12)
        lines += [f"The paper's shape: a large initial error ({first:.4g}), a steep drop ({share:.0f}% of the "
                  f"whole improvement is made by generation 50), then fine tuning ({h[100]:.4g} at generation "
                  f"100, {last:.4g} at the end).", ""]
    if o.polished is not None:
        lines += [f"The memetic polish ran once, after generation {o.records[-1]['gen'] if o.records else 0}: up to "
                  f"{settings.polish} passes of GreKo's coordinate descent from the GA's winner on the training rows "
                  f"({o.polished.passes} made). The logbook and `organism.json` are the pure GA's; the polished "
                  "organism is `organism-polished.json`.", ""]
    lines += ["## Evolved values beside the expert's", "",
              "Centipawns per unit of feature (features are White − Black, side to move's view, tapered where "
              "named _mg/_eg, oriented so that every value is a magnitude).", ""]
    lines += values_table(o.organism.genome, o.organism.weights,
                          o.fit_l1.weights if o.fit_l1 is not None else None)
    total = sum(o.seconds.values())
    lines += ["", "## Wall time", "", *(f"- {k}: {v:.2f} s" for k, v in o.seconds.items()),
              f"- total: {total:.2f} s", "",
              "Files: `organism.json` (the winner), `logbook.csv`, `curve.png`, `settings.json`, "
              "`checkpoint.npz` (resume with `--resume`)" + (", `fit-l1.json`" if o.fit_l1 else "")
              + (", `organism-polished.json`" if o.polished is not None else "") + "."]
    (out / "summary.md").write_text("\n".join(lines) + "\n")


_METHODS = {"lp": "HiGHS LP", "irls": "IRLS", "lsq": "bounded least squares"}


def _moves_lines(settings: RunSettings, o: RunOutcome) -> list[str]:
    """The summary's table of the moves objective: both measures of the winner, beside chance."""
    m = o.moves or {}
    assert isinstance(o.objective, MoveAgreement)
    drives = ("the agreement" + (" (squared)" if settings.agreement == "squared" else "")
              if settings.moves_loss == "agreement" else "the log-likelihood")
    def cell(key: str, fmt: str) -> str:
        return format(m[key], fmt) if key in m else "–"
    lines = [f"The organism's choice at a position is the legal move whose child, resolved by a capture-only "
             f"quiescence (material values), scores best under its evaluation; it agrees when that is the move "
             f"{settings.player!r} played. The split is by game. {drives.capitalize()} drove the GA (loss: "
             f"{o.objective.unit}). Positions where a move mates ({o.objective.mate_positions}) are left out: "
             "every organism mates there.", "",
             "| | training | held out |", "|---|---|---|",
             f"| positions | {cell('train_positions', '.0f')} | {cell('held_positions', '.0f')} |",
             f"| agreement of the GA winner | {cell('train_agreement', '.2%')} | {cell('held_agreement', '.2%')} |",
             f"| agreement by chance (mean 1 / legal moves) | {cell('train_chance', '.2%')} | "
             f"{cell('held_chance', '.2%')} |",
             f"| log-likelihood of the played move, GA winner (nats a move) | {cell('train_log_likelihood', '.4f')} | "
             f"{cell('held_log_likelihood', '.4f')} |",
             f"| log-likelihood of a uniform choice (nats a move) | {cell('train_uniform_log_likelihood', '.4f')} | "
             f"{cell('held_uniform_log_likelihood', '.4f')} |",
             f"| GA loss ({o.objective.unit}) | {o.train_loss:.4f} | {o.held_loss:.4f} |", "",
             f"β = {cell('beta', '.4g')} per cp, fitted on the training positions by {MoveAgreement.NEWTON_STEPS} "
             "Newton steps on the convex negative log-likelihood of softmax(β · score), from β₀ = 1 / the mean gap "
             "between a child's score and its position's best; the held-out likelihood uses the same β. (While "
             "the GA runs, the likelihood loss fits β for each organism on the positions it is measured on: the "
             "logbook's held-out column fits that one parameter on the held-out positions.)"]
    return lines


def _label_provenance(path: Path) -> list[str]:
    """What made a label file: its sidecar's runs (:func:`mentor.labels.provenance_lines`), or the
    ``#`` lines of an old file not yet converted."""
    lines = provenance_lines(path)
    if lines:
        return lines
    try:
        return [text[1:].strip() for _, text in comment_lines(path)]
    except OSError:
        return []


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
    if o.fit_l1 is not None and o.ratio is not None:
        lines.append(f"exact L1 fit ({o.fit_l1.method}): training {o.fit_l1.train_mae:.4g}, "
                     f"held out {o.fit_l1.held_mae:.4g}; "
                     f"GA held-out / exact held-out = {o.ratio:.3f}")
    if o.polished is not None:
        lines.append(f"GA + memetic polish ({o.polished.passes} coordinate-descent passes): training "
                     f"{o.polished.train_loss:.4g} {unit}, held out {o.polished.held_loss:.4g} {unit}"
                     + (f"; / exact held-out = {o.polished_ratio:.3f}" if o.polished_ratio is not None else ""))
    lines.append("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in o.seconds.items()))
    return lines
