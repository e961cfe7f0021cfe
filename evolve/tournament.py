"""``mimic tournament``'s results: the ratings of a round robin's games, summary.md, ratings.json, ratings.png.

The games are played by :mod:`search.games.roundrobin` and rated by :mod:`search.games.ratings`; this module turns a
finished (or resumed) run into its files. Imports chess, numpy, :mod:`search` and :mod:`evolve.plots` (the chart).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess

from search.conventions import result_points
from search.games.ratings import GameRecord, Ratings, rate
from search.games.roundrobin import RoundRobinSummary
from search.runtime.atomic import write_atomic, write_json_atomic
from search.runtime.errors import SettingsError
from search.runtime.provenance import provenance


def parse_anchor(text: str, option: str = "--anchor") -> tuple[str, float]:
    """``NAME=ELO`` -> ``(NAME, ELO)``; the last ``=`` splits (names such as ``material depth=1`` hold one).

    >>> parse_anchor("sf 1500=1500"), parse_anchor("material depth=1=0")
    (('sf 1500', 1500.0), ('material depth=1', 0.0))
    """
    name, sep, elo = text.rpartition("=")
    try:
        value = float(elo)
    except ValueError:
        value = math.nan
    if not sep or not name.strip() or not math.isfinite(value):
        raise SettingsError(f"{option} takes NAME=ELO (a player's name and a finite rating), got {text!r}")
    return name.strip(), value


def nominal_checks(ratings: Ratings, nominal: Sequence[tuple[str, float]]) -> list[dict[str, Any]]:
    """For each (player, nominal rating), e.g. a second anchor engine's ``UCI_Elo``: its fitted rating and 95%
    interval, and whether the interval contains the nominal rating. With an anchor the intervals are those of the
    difference to the anchor (every resample is fixed on it), so the check is also the one of the difference
    between the two nominal ratings."""
    out = []
    for name, value in nominal:
        i = ratings.names.index(name)
        low, high = float(ratings.low[i]), float(ratings.high[i])
        out.append({"player": name, "nominal": value, "elo": float(ratings.elo[i]), "low": low, "high": high,
                    "contains": bool(low <= value <= high) if math.isfinite(low) else None})
    return out


def nominal_lines(ratings: Ratings, checks: Sequence[dict[str, Any]]) -> list[str]:
    """summary.md's lines for :func:`nominal_checks`."""
    lines = []
    for c in checks:
        verdict = ("no interval" if c["contains"] is None else
                   "inside the interval" if c["contains"] else
                   f"outside the interval (fitted minus nominal: {c['elo'] - c['nominal']:+.1f})")
        line = (f"- {c['player']}: nominal {c['nominal']:g}, fitted {c['elo']:.1f} [{c['low']:.1f}, {c['high']:.1f}]"
                f": the nominal rating is {verdict}.")
        if ratings.anchor is not None:
            a, av = ratings.anchor
            line += (f" As a difference to the anchor {a} ({av:g}): nominal {c['nominal'] - av:+g}, fitted "
                     f"{c['elo'] - av:+.1f} [{c['low'] - av:+.1f}, {c['high'] - av:+.1f}].")
        lines.append(line)
    return lines


def _round_key(text: str) -> tuple[int, ...]:
    """``"12.3.2"`` -> ``(12, 3, 2)``: the schedule's order of a round (a malformed one sorts last)."""
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return (1 << 62,)


def game_records(summary: RoundRobinSummary) -> list[GameRecord]:
    """(White, Black, White's points) of every finished game of a round robin, in the order of their rounds (not
    the order they finished in, which varies with parallel games: the bootstrap resamples by position in this
    list, so the same games always give the same intervals)."""
    out: list[GameRecord] = []
    for g in sorted(summary.games, key=lambda g: _round_key(g.round)):
        s = result_points(g.result, chess.WHITE)
        if s is not None:
            out.append((g.white, g.black, s))
    return out


def rate_games(summary: RoundRobinSummary, *, anchor: tuple[str, float] | None = None, prior_draws: float = 0.2,
               bootstrap: int = 1000, seed: int = 0) -> Ratings:
    """The joint ratings of a round robin's players from its games (see :func:`search.games.ratings.rate`)."""
    return rate(game_records(summary), summary.names, anchor=anchor, prior_draws=prior_draws, bootstrap=bootstrap,
                seed=seed)


def plot_ratings(path: Path, ratings: Ratings, title: str) -> None:
    """A horizontal chart of the ratings (Elo), best at the top, each with its 95% interval as an error bar."""
    from evolve.plots import figure, save

    order = ratings.order()[::-1]
    y = list(range(len(order)))
    elo = [float(ratings.elo[i]) for i in order]
    fig, ax = figure(size=(7, 1.2 + 0.45 * len(order)), dpi=120)
    have = [i for i in order if math.isfinite(ratings.low[i])]
    if have:
        lo = [max(0.0, float(ratings.elo[i] - ratings.low[i])) if math.isfinite(ratings.low[i]) else 0.0
              for i in order]
        hi = [max(0.0, float(ratings.high[i] - ratings.elo[i])) if math.isfinite(ratings.high[i]) else 0.0
              for i in order]
        ax.errorbar(elo, y, xerr=[lo, hi], fmt="o", color="#1f77b4", ecolor="#1f77b4", capsize=4,
                    label="rating, 95% bootstrap interval")
    else:
        ax.plot(elo, y, "o", color="#1f77b4", label="rating")
    if ratings.anchor is not None:
        ax.axvline(ratings.anchor[1], color="#888888", linestyle="--", linewidth=1,
                   label=f"anchor: {ratings.anchor[0]} = {ratings.anchor[1]:g}")
    ax.set_yticks(y, [ratings.names[i] for i in order])
    ax.set_xlabel("Elo" + (" (mean 0)" if ratings.anchor is None else ""))
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    save(fig, path)


def summary_markdown(ratings: Ratings, summary: RoundRobinSummary, *, command: str, pgn: Path,
                     record: dict[str, object], nominal: Sequence[tuple[str, float]] = ()) -> str:
    """summary.md: the rating table with intervals, the crosstable, the games' tallies, the command and provenance."""
    prior = (f"{ratings.prior_draws:g} virtual draw(s) added to every pair that met" if ratings.prior_draws
             else "no prior (plain maximum likelihood)")
    lines = [
        f"# Tournament: {len(ratings.names)} players, {ratings.n_games} games ({pgn.name})",
        "",
        f"Ratings fitted jointly from all games: {ratings.model}; {prior}; "
        + (f"anchored on {ratings.anchor[0]} = {ratings.anchor[1]:g}." if ratings.anchor else "mean 0."),
        f"95% intervals: percentile bootstrap over games, {ratings.bootstrap} resamples, seed {ratings.seed}"
        + (f" ({ratings.failed} resamples without a finite fit left out)." if ratings.failed else "."),
        "",
        "```",
        *ratings.table_lines(),
        "```",
        "",
        *(["## Nominal ratings", "", *nominal_lines(ratings, nominal_checks(ratings, nominal)), ""] if nominal else []),
        "## Crosstable",
        "",
        "Points/games of the row's player against the column's (columns numbered by rank).",
        "",
        "```",
        *ratings.crosstable_lines(),
        "```",
        "",
        "## Games",
        "",
        "```",
        *summary.lines(),
        "```",
        "",
        "## Command and provenance",
        "",
        "```",
        command,
        "```",
        "",
        f"mimic {record['mimic_version']}, commit {record['git_commit']}"
        + (" (with local changes)" if record.get("git_dirty") else "") + f", written {record['time_utc']}.",
        f"Games in `{pgn.name}` (settings in `{pgn.name}.json`); ratings in `ratings.json`, chart `ratings.png`.",
        "",
    ]
    return "\n".join(lines)


def write_outputs(pgn: Path, ratings: Ratings, summary: RoundRobinSummary, *, command: str,
                  nominal: Sequence[tuple[str, float]] = ()) -> list[Path]:
    """Write summary.md, ratings.json and ratings.png into the PGN's folder; their paths. ``nominal``: players'
    nominal ratings to check against their intervals (:func:`nominal_checks`)."""
    folder = pgn.parent
    record = provenance()
    paths = [folder / "summary.md", folder / "ratings.json", folder / "ratings.png"]
    write_atomic(paths[0], summary_markdown(ratings, summary, command=command, pgn=pgn, record=record,
                                            nominal=nominal))
    data = {**ratings.to_json(), "nominal": nominal_checks(ratings, nominal), "pgn": pgn.name, "command": command,
            "provenance": record}
    write_json_atomic(paths[1], data, indent=2)
    title = f"{len(ratings.names)} players, {ratings.n_games} games"
    plot_ratings(paths[2], ratings, title)
    return paths
