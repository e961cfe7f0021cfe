"""What an experiment writes for a person: ``confusion.png``, ``accuracy.png`` (through :mod:`evolve.plots`) and
``summary.md``, from the results of :func:`evolve.recognition.experiments.experiment`.

May import numpy, :mod:`evolve.plots`, :mod:`search.runtime` and the recognition modules below the experiment.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evolve.recognition.baselines import CP_BINS
from evolve.recognition.profile import MULTIPV
from evolve.recognition.training import SHARED, Trained
from search.runtime.atomic import write_atomic
from search.runtime.provenance import describe

if TYPE_CHECKING:
    from evolve.recognition.experiments import ExperimentSettings


def plot_confusion(path: Path, results: dict[str, Any], players: Sequence[str], method: str = "clones") -> None:
    """One confusion matrix of ``method`` (a key of each k's ``methods``) per k (rows: who played, columns: the
    top-ranked player), counts in the cells."""
    from evolve.plots import figure, save

    ks = list(results["k"])
    P = len(players)
    size = max(3.0, 0.45 * P + 1.5)
    fig, axes = figure(1, len(ks), size=(size * len(ks), size + 0.6), squeeze=False)
    for ax, k in zip(axes[0], ks, strict=True):
        rated = results["k"][k]["methods"][method]
        m = np.array(rated["confusion"], dtype=float)
        share = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
        ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
        for i in range(P):
            for j in range(P):
                if m[i, j]:
                    ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=8,
                            color="white" if share[i, j] > 0.5 else "black")
        top1 = rated["top1"]
        ax.set_title(f"k = {k}: top-1 {top1:.0%}" if np.isfinite(top1) else f"k = {k}: no queries", fontsize=10)
        ax.set_xticks(range(P), players, rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(P), players, fontsize=8)
        ax.set_xlabel("predicted (top-ranked player)")
        ax.set_ylabel("who played")
    fig.suptitle(f"{_method(method)} on held-out game sides: row = who played, shade = share of the row")
    save(fig, path, dpi=110)


def plot_accuracy(path: Path, results: dict[str, Any]) -> None:
    """Top-1 accuracy against k: the clones, the shared organism, the centipawn-loss profile, chance."""
    from evolve.plots import figure, save

    ks = list(results["k"])
    x = np.arange(len(ks))
    fig, ax = figure(size=(6, 4))
    for key, label, style in (("clones", "personal clones", "o-"), ("shared", "one shared organism", "s--"),
                              ("cp_loss", "centipawn-loss profile", "^--"), ("replay", "replay (engines)", "D-"),
                              ("chance", "chance", ":")):
        if key in results["k"][ks[0]]:
            ax.plot(x, [results["k"][k][key][0] for k in ks], style, label=label)
    if "replay_norm" in results["k"][ks[0]].get("methods", {}):
        ax.plot(x, [results["k"][k]["methods"]["replay_norm"]["top1"] for k in ks], "D--",
                label=_method("replay_norm"))
    for name in [n for n in results["k"][ks[0]].get("methods", {})
                 if n.startswith("features") and not n.startswith("features:-")]:
        ax.plot(x, [results["k"][k]["methods"][name]["top1"] for k in ks], "D-" if name == "features" else "x-.",
                label=_method(name))
    ax.set_xticks(x, [f"k = {k}" for k in ks])
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("top-1 accuracy (held-out test queries)")
    ax.set_xlabel("game sides per query")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, path, dpi=110)


def _pct(x: float) -> str:
    return f"{x:.1%}" if np.isfinite(x) else "–"


METHOD_NAMES = {"chance": "chance", "cp_loss": "centipawn-loss profile", "clones": "personal clones",
                "shared": "one shared organism", "features": "classifier, all families",
                "replay": "replay (engines)", "replay_norm": "replay, normalised (engines)"}
"""How summary.md names each method of an experiment's rows (``features:FAMILY``: the classifier on one family,
``features:-FAMILY``: on all but that one)."""


def _method(name: str) -> str:
    family = name.partition(":")[2]
    return METHOD_NAMES.get(name, f"classifier, all but {family[1:]}" if family.startswith("-")
                            else f"classifier, {family} alone")


def _cell(m: dict[str, Any], key: str) -> str:
    ci = m.get(f"{key}_ci")
    if ci is None or not np.isfinite(ci[0]):
        return _pct(m[key])
    return f"{_pct(m[key])} [{ci[0]:.0%}–{ci[1]:.0%}]"


def methods_table(results: dict[str, Any]) -> list[str]:
    """summary.md's table of every method: top-1 and top-3 at each k, each with its exact binomial 95 % interval
    (the queries counted under each k's heading)."""
    ks = [k for k, row in results["k"].items() if "methods" in row]
    if not ks:
        return []
    names = list(results["k"][ks[0]]["methods"])
    lines = ["", "## Every method: top-1 / top-3 with 95 % intervals (Clopper-Pearson)", "",
             "| method | " + " | ".join(f"k = {k} ({results['k'][k]['methods']['chance']['n']} queries)" for k in ks)
             + " |", "|---|" + "---|" * len(ks)]
    for name in names:
        cells = [f"{_cell(m, 'top1')} / {_cell(m, 'top3')}" if (m := results["k"][k]["methods"].get(name)) else "–"
                 for k in ks]
        lines.append(f"| {_method(name)} | " + " | ".join(cells) + " |")
    lines += ["", "The classifier rows: a logistic regression over the named feature families (alone, all but one: "
              "what that family adds, all), fitted on the training game sides, its strength picked on the validation "
              "sides; a query is scored by the sum of its sides' log-probabilities. The clones and the shared "
              "organism count only queries with positions."]
    k1 = ks[0]
    players = len(results["players"])
    lines += ["", f"Largest share of the k = {k1} predictions that go to one player (chance {1 / players:.1%}, twice "
              f"chance {2 / players:.1%}); queries per method in brackets:", "",
              "| method | largest share | player | queries |", "|---|---|---|---|"]
    for name in names:
        m = results["k"][k1]["methods"][name]
        if "confusion" not in m:
            continue
        column = np.array(m["confusion"]).sum(axis=0)
        lines.append(f"| {_method(name)} | {_pct(m['max_share'])} | {results['players'][int(column.argmax())]} | "
                     f"{m['n']} |")
    if "best" in results:
        lines += ["", f"`confusion.png`: the confusion matrices of the best method at k = {k1} "
                  f"({_method(results['best'])})."]
    return lines


def write_summary(path: Path, results: dict[str, Any], tr: Trained, settings: ExperimentSettings, command: str
                  ) -> None:
    """``summary.md``: how the run was made, the accuracy of the clones and the baselines at each k, per player,
    and the clones' figures."""
    st = settings.train
    m = tr.manifest
    players = list(st.players)
    g = m["games"]
    measure = ("mean log-likelihood of the played moves (nats a move, softmax β fitted on its training positions)"
               if st.score == "likelihood" else
               "agreement rate (share of positions where its 1-ply choice is the played move)")
    lines = [f"# Player recognition: {Path(st.out).name}", "", f"Made by ({describe()}):", "",
             "```", command, "```", "",
             f"Games: {g['read']} read from {len(g['files'])} files, {g['duplicates']} duplicates counted once, "
             f"{g['unique']} unique; {g['malformed']} malformed skipped; {g['ambiguous_sides']} game sides naming two "
             f"players left out. Split by game (seed {st.ga.seed}): {g['parts']['train']} training, "
             f"{g['parts']['validation']} validation, {g['parts']['test']} test games (`split.json`"
             + (f"; the test games are those of {', '.join(st.test_games)}, the others split into training and "
                "validation" if st.test_games else "") + "). Training game "
             f"sides per player capped at {m['settings']['max_games_applied']}"
             + (f"; validation and test sides at {st.max_held} each" if st.max_held is not None else "") + ".", "",
             f"Score: the clone's {measure} "
             "on the query's positions, minus the clone's average over all players' validation game sides "
             "(`recognize.json`: `normalisation`).", "",
             "## Top-1 / top-3 accuracy on the held-out test game sides", "",
             "| k (game sides a query) | queries | personal clones | one shared organism | centipawn-loss profile "
             "| chance |",
             "|---|---|---|---|---|---|"]
    for k, row in results["k"].items():
        shared = row.get("shared", (float("nan"), float("nan")))
        lines.append(f"| {k} | {row['queries']} | {_pct(row['clones'][0])} / {_pct(row['clones'][1])} | "
                     f"{_pct(shared[0])} / {_pct(shared[1])} | {_pct(row['cp_loss'][0])} / {_pct(row['cp_loss'][1])} | "
                     f"{_pct(row['chance'][0])} / {_pct(row['chance'][1])} |")
    lines += methods_table(results)
    if "replay" in next(iter(results["k"].values()), {}):
        lines += ["", "Replay for engines (`--candidates`; `replay-kK.csv`): each candidate replayed on the test "
                  "sides' positions, ranked by the share of the played moves it matches (ties: the played moves' "
                  f"mean MultiPV log-likelihood, {settings.multipv} lines, {settings.movetime:g} s a move at most)"
                  + (f"; each player's first {settings.replay_sides} test sides" if settings.replay_sides else "")
                  + (f", each side's first {settings.replay_positions} positions" if settings.replay_positions
                     else "") + ":",
                  "", "| k | top-1 / top-3 |", "|---|---|"]
        lines += [f"| {k} | {_pct(row['replay'][0])} / {_pct(row['replay'][1])} |" for k, row in results["k"].items()]
        lines += ["", "The row *replay, normalised* ranks by each candidate's matching share on the query minus its "
                  "share over all the replayed positions (whoever played them; no label used), so that a candidate "
                  "whose moves are everybody's common moves no longer takes the queries it merely agrees with.",
                  "", "Candidates: " + ", ".join(f"`{c.name}={c.spec}`" for c in settings.candidates) + "."]
        failed = next(iter(results["k"].values())).get("replay_failed", {})
        lines += ["", "Positions each candidate failed on (no move, an illegal or null move, a timeout, a crash; left "
                  "out of its scores): " + ", ".join(f"{n} {v}" for n, v in failed.items()) + "."]
    lines += ["", "Baselines, on the same split: *one shared organism* — one organism evolved on all players' "
              "training game sides; its measure of a query beside each player's mean on their validation sides, the "
              "nearest wins (strength without style); *centipawn-loss profile* — each move's loss against "
              + (f"the mentor profile's engine at its deepest depth (`{tr.manifest['classifier']['profile_engine']}`"
                 f" at depth {max(st.style(run=False).param('profile_depths'))}, MultiPV {MULTIPV}; the profile's "
                 "own bins)"
                 if results.get("cp_source") == "profile" else f"`{settings.mentor}`")
              + f" as a histogram over bins starting at {', '.join(map(str, CP_BINS))} cp, nearest "
              "centroid (Euclidean) of the players' training histograms"
              + (f" (at most {settings.cp_positions} positions a game side)"
                 if settings.cp_positions and results.get("cp_source") != "profile" else "") + ".",
              "", "## Per player (personal clones, top-1 / top-3, queries)", "",
              "| player | " + " | ".join(f"k = {k}" for k in results["k"]) + " |",
              "|---|" + "---|" * len(results["k"])]
    for p in players:
        cells = []
        for row in results["k"].values():
            a1, a3, n = row["per_player"][p]
            cells.append(f"{_pct(a1)} / {_pct(a3)} ({n})")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    lines += ["", "## Clones", "", "| player | training / validation / test sides | training positions | "
              "agreement training / validation | β (per cp) | normalisation |", "|---|---|---|---|---|---|"]
    for p in players:
        c = m["clones"][p]
        lines.append(f"| {p} | {c['train_sides']} / {c['validation_sides']} / {c['test_sides']} | "
                     f"{c['train_positions']} | {_pct(c['train_agreement'])} / {_pct(c['validation_agreement'])} | "
                     f"{c['beta']:.4g} | {c['normalisation']:.4f} |")
    if SHARED in m["clones"]:
        c = m["clones"][SHARED]
        lines.append(f"| (shared) | – | {c['train_positions']} | {_pct(c['train_agreement'])} / "
                     f"{_pct(c['validation_agreement'])} | {c['beta']:.4g} | – |")
    lines += ["", "Files: `recognize.json` (settings, players, clones, provenance), `split.json`, `clone-NAME.json` "
              "and `shared.json` (organisms), `queries-kK.csv` (the clones; one row per query: `player`, "
              "`predicted`, one `score:NAME` column per player), `features-kK.csv` (the classifier on all families, "
              "the same columns), `replay-kK.csv` (replay, when run), `confusion.png`, `accuracy.png`.", "",
              "Wall time: " + ", ".join(f"{k} {v:.1f} s" for k, v in m["seconds"].items())
              + f", centipawn losses {results['seconds_cp_loss']:.1f} s."]
    write_atomic(path, "\n".join(lines) + "\n")
