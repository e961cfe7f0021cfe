"""What ``mimic evolve`` writes beside its organism: the logbook, the curve, the exact L1 fit's weights, the
settings and ``summary.md`` (:func:`write_results`), from a finished run's :class:`evolve.ga.run.RunOutcome`.

May import: numpy, ``evolve.ga`` (objectives, report), ``evolve.data``, ``mentor.labels``, ``search.runtime``.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from evolve.data.dataset import Dataset
from evolve.ga.objectives import MoveAgreement, ResultLoss
from evolve.ga.report import plot_curve, plot_pst, values_table, write_logbook
from evolve.ga.wdl import LOGISTIC_SCALE, UNKNOWN_PLY, WdlLoss
from mentor.sidecar import SidecarError, comment_lines, provenance_lines
from search.runtime.atomic import write_atomic
from search.runtime.provenance import describe, provenance

if TYPE_CHECKING:
    from evolve.ga.run import RunOutcome, RunSettings


def write_results(out: Path, settings: RunSettings, o: RunOutcome, command: str) -> None:
    write_logbook(out / "logbook.csv", o.records)
    unit = o.objective.unit
    ceiling = o.fit_l1.held_mae if o.fit_l1 is not None else None
    label = "exact L1 fit (held out)"
    if o.fit_wdl is not None:
        ceiling, label = o.fit_wdl.held_loss, "win-probability ceiling (held out)"
    plot_curve(out / "curve.png", o.records, unit, f"{Path(settings.out).name}: {o.objective.name} error",
               ceiling, label)
    if any(n.startswith("pst_") for n in o.organism.genome.names):
        plot_pst(out / "pst.png", o.organism.genome, o.organism.weights,
                 f"{Path(settings.out).name}: the evolved organism's piece-square values (material + table, cp, "
                 "White's view) beside the expert's (PeSTO)")
    if o.fit_l1 is not None:
        write_atomic(out / "fit-l1.json", json.dumps(
            {"loss": "l1", "train_mae": o.fit_l1.train_mae, "held_out_mae": o.fit_l1.held_mae,
             "weights": dict(zip(o.organism.genome.names, o.fit_l1.weights.tolist(), strict=True))}, indent=1) + "\n")
    settings_json = {**asdict(settings), "command": command, "provenance": provenance()}
    if isinstance(o.objective, WdlLoss):
        t = o.objective.target
        settings_json["wdl_fitted"] = {"k_cp": t.k, "blended_with_result": t.blended,
                                       "read_at_unknown_ply": t.unknown_ply, "unknown_ply": UNKNOWN_PLY}
    write_atomic(out / "settings.json", json.dumps(settings_json, indent=1) + "\n")

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
    if settings.quiet_labels:
        assert isinstance(ds, Dataset)
        lines.append(f"| quiet_labels | True ({ds.not_quiet} labels not quiet left out) |")
    if isinstance(o.objective, WdlLoss):
        lines += _wdl_settings(o.objective)
    if settings.objective == "result":
        assert isinstance(o.objective, ResultLoss)
        lines.append(f"| lambda (plies) | {settings.lam:g} |")
        lines.append(f"| K (fitted, cp) | {o.objective.k:.1f} |")
    lines += ["", "## Move agreement" if settings.objective == "moves" else "## Errors", ""]
    if isinstance(o.objective, WdlLoss):
        lines += _wdl_errors(o)
    elif settings.objective == "mentor":
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
    write_atomic(out / "summary.md", "\n".join(lines) + "\n")


_METHODS = {"lp": "HiGHS LP", "irls": "IRLS", "lsq": "bounded least squares"}


def _wdl_settings(objective: WdlLoss) -> list[str]:
    """The settings table's rows of a win-probability loss (``--loss wdl``)."""
    t = objective.target
    model = (f"sf15.1 (Stockfish 15.1's WDL model; {t.unknown_ply} labels without a move number read at ply "
             f"{UNKNOWN_PLY})" if t.model == "sf15.1" else f"logistic, σ(cp / {LOGISTIC_SCALE:.1f})")
    return [f"| loss | wdl: mean \\|σ(eval/K) − p\\|^{t.power:g} |", f"| win-probability model | {model} |",
            f"| lambda_result | {t.lambda_result:g} ({t.blended} labels blended with their game result) |",
            f"| K (fitted on the training rows, cp) | {t.k:.2f} |"]


def _wdl_errors(o: RunOutcome) -> list[str]:
    """The errors table of a win-probability loss: the loss and the centipawn error, beside both ceilings."""
    assert isinstance(o.objective, WdlLoss)
    t = o.objective.target
    cp = o.cp_errors or (float("nan"), float("nan"))
    lines = [f"Win-probability loss {o.objective.unit} (p: the mentor's score through its model, K = {t.k:.2f} cp) "
             "and mean absolute difference from the mentor's score in centipawns (side to move at the target).", "",
             "| | training loss | held-out loss | training cp | held-out cp |", "|---|---|---|---|---|",
             f"| GA winner | {o.train_loss:.6f} | {o.held_loss:.6f} | {cp[0]:.2f} | {cp[1]:.2f} |"]
    for fit in (o.fit_wdl, o.fit_l1):
        if fit is None:
            continue
        if fit.loss == "wdl":
            lines.append(f"| win-probability ceiling, bounded ({fit.method}, from the L1 fit) | {fit.train_loss:.6f} | "
                         f"{fit.held_loss:.6f} | {fit.train_mae:.2f} | {fit.held_mae:.2f} |")
        else:
            lines.append(f"| exact L1 fit, bounded ({_METHODS.get(fit.method, fit.method)}) | – | – | "
                         f"{fit.train_mae:.2f} | {fit.held_mae:.2f} |")
    if o.polished is not None:
        lines.append(f"| GA winner + memetic polish ({o.polished.passes} coordinate-descent passes) | "
                     f"{o.polished.train_loss:.6f} | {o.polished.held_loss:.6f} | – | – |")
    if o.ratio is not None:
        lines += ["", f"**GA held-out loss ÷ win-probability ceiling's held-out loss: {o.ratio:.3f}** (pure GA)"]
    if o.polished_ratio is not None:
        lines += ["", f"GA + memetic polish held-out loss ÷ ceiling's: {o.polished_ratio:.3f}"]
    return lines


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
    """What made a label file: its sidecar's runs (:func:`mentor.sidecar.provenance_lines`), or the
    ``#`` lines of an old file not yet converted."""
    try:
        lines = provenance_lines(path)
    except SidecarError as exc:  # the run is done: its summary says what is wrong rather than failing
        return [f"(provenance unreadable: {exc})"]
    if lines:
        return lines
    try:
        return [text[1:].strip() for _, text in comment_lines(path)]
    except OSError:
        return []
