"""The one plotting module (:mod:`evolve.plots`): curves and levels with labelled axes, a chart saved whole (the
old file kept when drawing fails), and no chart of mimic's drawn anywhere else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_curves_draws_the_lines_then_the_levels_with_labelled_axes(tmp_path: Path) -> None:
    from matplotlib.ticker import MaxNLocator

    from evolve.plots import Curve, Level, curves, figure, save

    fig, ax = figure(size=(4, 3), dpi=50)
    curves(ax, [Curve([1, 2, 3], [3.0, 2.0, 1.0], "training", {"color": "#1f77b4"}),
                Curve([1, 2, 3], [4.0, 3.0, 2.5], "held out", {"marker": "o"})],
           levels=[Level(2.2, "baseline")], xlabel="epoch", ylabel="cp", title="t", integer_x=True, log_y=True)
    assert [line.get_label() for line in ax.get_lines()] == ["training", "held out", "baseline"]
    assert ax.get_lines()[2].get_ydata()[0] == 2.2 and ax.get_lines()[2].get_linestyle() == "--"
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title(), ax.get_yscale()) == ("epoch", "cp", "t", "log")
    assert isinstance(ax.xaxis.get_major_locator(), MaxNLocator)
    legend = ax.get_legend()
    assert legend is not None and [t.get_text() for t in legend.get_texts()] == ["training", "held out", "baseline"]
    path = tmp_path / "sub" / "c.png"
    save(fig, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in path.parent.iterdir()] == ["c.png"]  # no temporary file left


def test_save_closes_the_figure_and_keeps_the_old_file_when_drawing_fails(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    from evolve.plots import figure, save

    path = tmp_path / "chart.xyz"
    path.write_bytes(b"the previous chart")
    fig, ax = figure(size=(2, 2))
    ax.plot([0, 1], [1, 0])
    with pytest.raises(ValueError, match="xyz"):  # no such image format: savefig fails on the temporary file
        save(fig, path)
    assert path.read_bytes() == b"the previous chart"
    assert [p.name for p in tmp_path.iterdir()] == ["chart.xyz"]  # the temporary file is gone
    assert fig.number not in plt.get_fignums()


def test_every_chart_of_mimic_goes_through_the_plotting_module() -> None:
    # matplotlib is imported in evolve/plots.py only (evolve, tools, search, mentor, organisms).
    found = [str(p.relative_to(ROOT)) for folder in ("evolve", "tools", "search", "mentor", "organisms")
             for p in (ROOT / folder).rglob("*.py") if re.search(r"^\s*(import|from) matplotlib", p.read_text(), re.M)]
    assert found == ["evolve/plots.py"]
