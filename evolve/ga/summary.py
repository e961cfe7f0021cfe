"""What ``mimic evolve`` writes beside its organism: the logbook, the curve, the exact L1 fit's weights, the
settings, ``summary.md`` and, for a run with ``--init``, ``changes.csv`` (:func:`write_results`), from a finished
run's :class:`evolve.ga.run.RunOutcome`.

What an objective adds (its settings rows, its errors section, its ceiling on the curve, what ``settings.json``
records of what it fitted) comes from the objective itself (:class:`evolve.ga.objective_api.Objective`).

May import: numpy, ``evolve.ga`` (objective_api, report, changes), ``evolve.data``, ``mentor.labels``,
``search.runtime``.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from evolve.data.dataset import Dataset
from evolve.ga.changes import changes_section, write_changes_csv
from evolve.ga.report import plot_curve, plot_pst, values_table, write_logbook
from mentor.sidecar import SidecarError, comment_lines, provenance_lines
from search.runtime.atomic import write_atomic
from search.runtime.provenance import describe, provenance

if TYPE_CHECKING:
    from evolve.ga.run import RunOutcome, RunSettings


def write_results(out: Path, settings: RunSettings, o: RunOutcome, command: str) -> None:
    write_logbook(out / "logbook.csv", o.records)
    objective = o.objective
    ceiling = objective.ceiling_loss(o.ceiling) if o.ceiling is not None else None
    plot_curve(out / "curve.png", o.records, objective.unit, f"{Path(settings.out).name}: {objective.name} error",
               ceiling, objective.ceiling_label)
    if any(n.startswith("pst_") for n in o.organism.genome.names):
        plot_pst(out / "pst.png", o.organism.genome, o.organism.weights,
                 f"{Path(settings.out).name}: the evolved organism's piece-square values (material + table, cp, "
                 "White's view) beside the expert's (PeSTO)")
    if o.fit_l1 is not None:
        write_atomic(out / "fit-l1.json", json.dumps(
            {"loss": "l1", "train_mae": o.fit_l1.train_mae, "held_out_mae": o.fit_l1.held_mae,
             "weights": dict(zip(o.organism.genome.names, o.fit_l1.weights.tolist(), strict=True))}, indent=1) + "\n")
    settings_json = {**asdict(settings), "command": command, "provenance": provenance(), **objective.settings_json()}
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
    lines += objective.settings_rows(settings)
    lines += ["", f"## {objective.summary_heading}", "", *objective.summary_errors(settings, o)]
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
    if o.start is not None:
        write_changes_csv(out / "changes.csv", o.start, o.organism.weights)
        lines += ["", "## Change from the start (--init)", "",
                  *changes_section(o.start, o.organism.weights, "changes.csv", "the GA's winner")]
    total = sum(o.seconds.values())
    lines += ["", "## Wall time", "", *(f"- {k}: {v:.2f} s" for k, v in o.seconds.items()),
              f"- total: {total:.2f} s", "",
              "Files: `organism.json` (the winner), `logbook.csv`, `curve.png`, `settings.json`, "
              "`checkpoint.npz` (resume with `--resume`)" + (", `fit-l1.json`" if o.fit_l1 else "")
              + (", `organism-polished.json`" if o.polished is not None else "")
              + (", `changes.csv`" if o.start is not None else "") + "."]
    write_atomic(out / "summary.md", "\n".join(lines) + "\n")


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
