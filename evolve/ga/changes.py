"""The change term by term from where a run or a fit started (``--init``) to where it ended: old (the start: its
source's values as the genome holds them, each gene's nearest grid value), new (the result), and new − old, in
centipawns per unit of the feature of the gene's name.

:func:`changes_section` is what ``summary.md`` (``mimic evolve``) and ``mimic fit`` show: what was imported
(:meth:`organisms.imported.Start.lines`), then :func:`changes_table`, readable at any genome size: every gene that
is not a piece-square gene one row (material and terms), the piece-square genes summarised per piece and phase,
then the largest piece-square changes one row each. Every gene's row is in the CSV beside it
(:func:`write_changes_csv`).

May import: numpy, ``organisms``, ``search/runtime/``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from organisms.genome import Genome
from organisms.imported import Start
from search.runtime.atomic import atomic_open

LARGEST = 10
"""How many of the largest piece-square changes :func:`changes_table` lists one row each."""
CSV_COLUMNS = ("gene", "given", "old", "new", "change", "low", "high")
"""The CSV's columns: the gene, the value its source gave (tables: their projection; a gene not given: the default),
the start as the genome holds it (old), the result (new), new − old, and the gene's range (cp per unit of feature)."""


def _pst_group(name: str) -> tuple[str, str] | None:
    """(piece, phase) of a piece-square gene ``pst_PIECE_SQUARE_PHASE``, or None for any other gene."""
    parts = name.split("_")
    return (parts[1], parts[-1]) if parts[0] == "pst" and len(parts) >= 4 else None


def changes_table(genome: Genome, old: np.ndarray, new: np.ndarray, largest: int = LARGEST) -> list[str]:
    """Markdown tables of the change from ``old`` to ``new`` (gene values in ``genome`` order, cp per unit of
    feature): one row per gene that is not a piece-square gene; then, when the genome has piece-square genes, one row
    per piece and phase (the genes' mean old and new, mean change, mean absolute change, the largest change and its
    gene) and the ``largest`` piece-square changes one row each."""
    old, new = np.asarray(old, dtype=np.float64), np.asarray(new, dtype=np.float64)
    change = new - old
    names = genome.names
    groups: dict[tuple[str, str], list[int]] = {}
    lines = ["| gene | old | new | change |", "|---|---|---|---|"]
    for j, name in enumerate(names):
        group = _pst_group(name)
        if group is None:
            lines.append(f"| {name} | {old[j]:.1f} | {new[j]:.1f} | {change[j]:+.1f} |")
        else:
            groups.setdefault(group, []).append(j)
    if not groups:
        return lines
    lines += ["", "Piece-square genes (signed offsets added to the piece's material gene; files mirrored onto a-d, "
              "each side's own point of view), per piece and phase:", "",
              "| piece, phase | genes | mean old | mean new | mean change | mean \\|change\\| | largest change |",
              "|---|---|---|---|---|---|---|"]
    for (piece, phase), cols in groups.items():
        c = np.array(cols)
        k = int(c[np.argmax(np.abs(change[c]))])
        lines.append(f"| {piece} {phase} | {len(c)} | {old[c].mean():.1f} | {new[c].mean():.1f} | "
                     f"{change[c].mean():+.1f} | {np.abs(change[c]).mean():.1f} | {change[k]:+.1f} ({names[k]}) |")
    pst = [j for cols in groups.values() for j in cols]
    top = sorted(pst, key=lambda j: (-abs(change[j]), j))[:largest]
    lines += ["", f"The {len(top)} largest piece-square changes:", "", "| gene | old | new | change |",
              "|---|---|---|---|", *(f"| {names[j]} | {old[j]:.1f} | {new[j]:.1f} | {change[j]:+.1f} |" for j in top)]
    return lines


def changes_section(start: Start, new: np.ndarray, csv_name: str | None, result: str = "the result",
                    imported: bool = True) -> list[str]:
    """What was imported (unless not ``imported``) and the change from the start to ``new`` (``result`` names it),
    Markdown; ``csv_name`` is the CSV of every gene's row (:func:`write_changes_csv`), when one is written."""
    where = (f" Every gene's row, with the value its source gave, is in `{csv_name}`." if csv_name else "")
    return [*([*start.lines(), ""] if imported else []),
            f"Old: the start as the genome holds it (each gene's nearest grid value); new: {result}; change = new "
            f"− old, centipawns per unit of feature.{where}", "", *changes_table(start.genome, start.weights, new)]


def write_changes_csv(path: str | Path, start: Start, new: np.ndarray) -> None:
    """Every gene's row (:data:`CSV_COLUMNS`), written whole or not at all."""
    old, new = start.weights, np.asarray(new, dtype=np.float64)
    with atomic_open(Path(path), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for j, g in enumerate(start.genome.genes):
            w.writerow([g.name, f"{start.given[j]:.4f}", f"{old[j]:.4f}", f"{new[j]:.4f}", f"{new[j] - old[j]:.4f}",
                        f"{g.low:g}", f"{g.high:g}"])
