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
from search.runtime.atomic import atomic_open

_MATERIAL = {"pawn": 0, "knight": 1, "bishop": 2, "rook": 3, "queen": 4}


def write_logbook(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """One row per generation: gen, best, mean, std (of the population's loss on its sample),
    held_out (the best organism's loss on the held-out rows), seconds (cumulative wall time); and, when the
    records have it (a loss not in centipawns, ``--loss wdl``), held_out_cp (the same organism's mean absolute
    centipawn error on the held-out rows); the loss then has 6 decimals, not 4 (it lies in [0, 1])."""
    cp = bool(records) and "held_out_cp" in records[0]
    fmt = ".6f" if cp else ".4f"
    with atomic_open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["gen", "best", "mean", "std", "held_out", "seconds"] + (["held_out_cp"] if cp else []))
        for r in records:
            w.writerow([r["gen"], format(r["best"], fmt), format(r["mean"], fmt), format(r["std"], fmt),
                        format(r["held_out"], fmt), f"{r['seconds']:.4f}"]
                       + ([f"{r['held_out_cp']:.4f}"] if cp else []))


def plot_curve(path: Path, records: Sequence[dict[str, Any]], unit: str, title: str,
               ceiling: float | None = None, ceiling_label: str = "exact L1 fit (held out)") -> None:
    from evolve.plots import Curve, Level, curves, figure, save

    gen = [r["gen"] for r in records]
    fig, ax = figure(size=(7, 4.2), dpi=120)
    curves(ax, [Curve(gen, [r["mean"] for r in records], "population mean (sample)", {"color": "#bbbbbb"}),
                Curve(gen, [r["best"] for r in records], "best organism (sample)", {"color": "#1f77b4"}),
                Curve(gen, [r["held_out"] for r in records], "best organism (held out)", {"color": "#d62728"})],
           levels=[] if ceiling is None else [Level(ceiling, ceiling_label)],
           xlabel="generation", ylabel=f"error ({unit})", log_y=True, title=title, grid_which="both")
    save(fig, path)


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


def pst_boards(genome: Genome, weights: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """The organism's piece-square values as 8×8 boards (rank 8 first, file a first), centipawns for a
    White piece, keyed by (piece, phase ``mg``/``eg``): its material gene (0 for the king) plus the
    square's piece-square gene (files mirrored, as the rich layout reads them); NaN where the layout has
    no gene (pawns on ranks 1 and 8)."""
    import chess

    from organisms.features import PST_PIECES

    w = dict(zip(genome.names, np.asarray(weights, dtype=np.float64), strict=True))
    out = {}
    for piece in PST_PIECES:
        for phase in ("mg", "eg"):
            board = np.full((8, 8), np.nan)
            for sq in chess.SQUARES:
                rank, file = chess.square_rank(sq), chess.square_file(sq)
                name = f"pst_{piece}_{chess.square_name(rank * 8 + min(file, 7 - file))}_{phase}"
                if name in w:
                    board[7 - rank, file] = w.get(piece, 0.0) + w[name]
            out[piece, phase] = board
    return out


def expert_pst_boards() -> dict[tuple[str, str], np.ndarray]:
    """The expert's (PeSTO's) piece-square values laid out as :func:`pst_boards`: material plus table,
    centipawns for a White piece, rank 8 first. (The expert's other terms are not in these tables.)"""
    from organisms.features import PST_PIECES
    from organisms.pesto import EG_TABLES, MG_TABLES

    out = {}
    for k, piece in enumerate(PST_PIECES):
        for phase, tables, values in (("mg", MG_TABLES, MG_VALUE), ("eg", EG_TABLES, EG_VALUE)):
            # PeSTO lists a8 first, as these boards do.
            out[piece, phase] = values[k] + np.array(tables[k], dtype=np.float64).reshape(8, 8)
    return out


def plot_pst(path: Path, genome: Genome, weights: np.ndarray, title: str) -> None:
    """``pst.png``: for each piece (rows) the organism's middle-game and endgame piece-square values
    beside the expert's, as board heat maps (White's view, rank 8 on top), one colour scale per piece
    and phase shared by the organism and the expert, values printed on the squares (centipawns).

    Every board is the same way up, so only the outer boards carry the files (bottom row) and ranks (left
    column), and the margins are fixed rather than measured (``tight_layout``): 48 boards' tick labels and
    that measuring were half of the chart's 6 s."""
    from evolve.plots import figure, save
    from organisms.features import PST_PIECES

    mine, expert = pst_boards(genome, weights), expert_pst_boards()
    fig, axes = figure(len(PST_PIECES), 4, size=(13, 19), dpi=100)
    for i, piece in enumerate(PST_PIECES):
        for j, phase in enumerate(("mg", "eg")):
            both = np.concatenate([mine[piece, phase][~np.isnan(mine[piece, phase])],
                                   expert[piece, phase].ravel()])
            lo, hi = float(both.min()), float(both.max())
            for k, (who, board) in enumerate((("organism", mine[piece, phase]),
                                               ("expert", expert[piece, phase]))):
                ax = axes[i, 2 * j + k]
                ax.imshow(board, cmap="RdYlGn", vmin=lo, vmax=hi if hi > lo else lo + 1)
                for r in range(8):
                    for f in range(8):
                        if not np.isnan(board[r, f]):
                            ax.text(f, r, f"{board[r, f]:.0f}", ha="center", va="center", fontsize=6.5)
                if i == len(PST_PIECES) - 1:
                    ax.set_xticks(range(8), list("abcdefgh"), fontsize=7)
                else:
                    ax.set_xticks([])
                if j == k == 0:
                    ax.set_yticks(range(8), [str(8 - r) for r in range(8)], fontsize=7)
                else:
                    ax.set_yticks([])
                ax.set_title(f"{piece} {phase}: {who}", fontsize=9)
    fig.suptitle(title, fontsize=11)
    fig.subplots_adjust(left=0.03, right=0.99, bottom=0.02, top=0.955, wspace=0.06, hspace=0.12)
    save(fig, path, layout=False)
