"""The one plotting module: every chart mimic draws (``curve.png``, ``pst.png``, ``ratings.png``, recognition's
``confusion.png`` and ``accuracy.png``, the nets' curves, a tool's ``learning.png``) is a figure from :func:`figure`,
saved by :func:`save`.

:func:`figure` selects the Agg backend (files only: no window, no display needed) and builds the figure and its
axes with matplotlib's default style; :func:`save` lays it out, writes the PNG whole or not at all (through
:func:`search.runtime.atomic.atomic_path`) and closes the figure. :func:`curves` draws a panel of training curves
(a measure by epoch, generation or iteration) the one way the project draws them: the lines, then the reference
lines (a baseline, chance, an exact fit), labelled axes, a light grid and a legend.

May import: matplotlib (only inside the functions, so that importing this module stays cheap) and
:mod:`search.runtime.atomic`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from search.runtime.atomic import atomic_path

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

GRID: Mapping[str, Any] = {"alpha": 0.3}
"""The grid of a curves panel: light, behind the lines."""


def _pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure(rows: int = 1, cols: int = 1, *, size: tuple[float, float], dpi: float | None = None,
           squeeze: bool = True) -> tuple[Figure, Any]:
    """A new figure of ``size`` inches (width, height) with ``rows`` × ``cols`` axes, as
    ``matplotlib.pyplot.subplots`` returns them (one ``Axes`` when ``squeeze`` and 1 × 1, else an array);
    ``dpi`` (dots per inch) defaults to matplotlib's."""
    plt = _pyplot()
    fig, axes = plt.subplots(rows, cols, figsize=size, dpi=dpi, squeeze=squeeze)
    return fig, axes


def save(fig: Figure, path: str | Path, *, dpi: float | None = None,
         rect: tuple[float, float, float, float] | None = None, layout: bool = True) -> None:
    """Lay ``fig`` out (``tight_layout``, within ``rect`` when given; not when ``layout`` is false: a figure
    whose margins are set by its maker), write it to ``path`` as PNG whole or not at all, at ``dpi`` (default:
    the figure's own), and close it (also when writing fails)."""
    plt = _pyplot()
    try:
        if layout:
            fig.tight_layout(rect=rect)
        with atomic_path(path) as tmp:
            if dpi is None:
                fig.savefig(tmp)
            else:
                fig.savefig(tmp, dpi=dpi)
    finally:
        plt.close(fig)


@dataclass(frozen=True)
class Curve:
    """One line of a curves panel: ``y`` against ``x``, its legend ``label`` (none: not in the legend) and
    matplotlib line options (``color``, ``marker``, ...)."""

    x: Sequence[float]
    y: Sequence[float]
    label: str | None = None
    style: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Level:
    """A horizontal reference line across a curves panel (a baseline, chance, an exact fit): dashed black, thin."""

    y: float
    label: str


def curves(ax: Axes, lines: Sequence[Curve], *, xlabel: str, ylabel: str, title: str | None = None,
           levels: Sequence[Level] = (), integer_x: bool = False, log_y: bool = False,
           grid_which: Literal["major", "minor", "both"] = "major",
           grid: bool = True, legend: bool = True) -> None:
    """Draw ``lines`` into ``ax``, then the ``levels``; label the axes (whole numbers only on x when ``integer_x``:
    epochs, generations, iterations), a log-scaled y when ``log_y``, the title, a light grid (:data:`GRID`, on the
    ``grid_which`` ticks) and a legend, unless ``grid`` or ``legend`` is false."""
    for line in lines:
        if line.label is None:
            ax.plot(line.x, line.y, **line.style)
        else:
            ax.plot(line.x, line.y, label=line.label, **line.style)
    for level in levels:
        ax.axhline(level.y, color="black", linestyle="--", linewidth=1, label=level.label)
    ax.set_xlabel(xlabel)
    if integer_x:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("log")
    if title is not None:
        ax.set_title(title)
    if grid:
        ax.grid(True, which=grid_which, **GRID)
    if legend:
        ax.legend()
