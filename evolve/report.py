"""Writing a run's results: logbook.csv, curve.png and summary.md."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from organisms.expert import EXPERT_WEIGHTS
from organisms.genome import Genome
from organisms.pesto import EG_VALUE, MG_VALUE

_MATERIAL = {"pawn": 0, "knight": 1, "bishop": 2, "rook": 3, "queen": 4}


def write_logbook(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """One row per generation: gen, best, mean, std (of the population's loss on its sample),
    held_out (the best organism's loss on the held-out rows), seconds (cumulative wall time)."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["gen", "best", "mean", "std", "held_out", "seconds"])
        for r in records:
            w.writerow([r["gen"], f"{r['best']:.4f}", f"{r['mean']:.4f}", f"{r['std']:.4f}",
                        f"{r['held_out']:.4f}", f"{r['seconds']:.4f}"])


def plot_curve(path: Path, records: Sequence[dict[str, Any]], unit: str, title: str,
               ceiling: float | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gen = [r["gen"] for r in records]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    ax.plot(gen, [r["mean"] for r in records], label="population mean (sample)", color="#bbbbbb")
    ax.plot(gen, [r["best"] for r in records], label="best organism (sample)", color="#1f77b4")
    ax.plot(gen, [r["held_out"] for r in records], label="best organism (held out)", color="#d62728")
    if ceiling is not None:
        ax.axhline(ceiling, color="black", linestyle="--", linewidth=1, label="exact L1 fit (held out)")
    ax.set_xlabel("generation")
    ax.set_ylabel(f"error ({unit})")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def expert_value(name: str) -> str:
    """The expert's value for a gene, as text (material comes from PeSTO's middle-game/endgame values)."""
    if name in _MATERIAL:
        i = _MATERIAL[name]
        return f"{MG_VALUE[i]} / {EG_VALUE[i]} (PeSTO mg/eg)"
    v = EXPERT_WEIGHTS.get(name)
    if v is None:
        return ""
    if v == 0 and (name.endswith("_center") or name.startswith("king_center")):
        return "0 (in its tables)"
    return f"{v:g}"


def values_table(genome: Genome, weights: np.ndarray, fit: np.ndarray | None = None) -> list[str]:
    head = "| gene | evolved | exact L1 fit | expert | range |" if fit is not None else \
        "| gene | evolved | expert | range |"
    lines = [head, "|" + "---|" * (5 if fit is not None else 4)]
    for j, g in enumerate(genome.genes):
        cells = [g.name, f"{weights[j]:.1f}"]
        if fit is not None:
            cells.append(f"{fit[j]:.1f}")
        cells += [expert_value(g.name), f"{g.low:g}–{g.high:g} ({g.bits} bits)"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines
