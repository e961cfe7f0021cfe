"""The tables of results/giraffe-selfplay/run.sh: what the Giraffe-style net needed, and the curve of TD-Leaf in play.

    python tools/giraffe_table.py labels DIR [DIR ...] > labels-needed.md   # one row per bootstrap folder
    python tools/giraffe_table.py td BOOT TD > td-curve.md                   # the bootstrap, then each kept TD net
    python tools/giraffe_table.py best DIR [DIR ...]                         # the folder that scored best

A bootstrap folder is a ``mimic train-net --out DIR`` folder: its ``net.npz`` header gives the labels read, the
training and held-out rows and the held-out error (cp, the same file's seeded split); its ``vs-expert-2000n.log`` the
match against the expert, and ``heldout-*.md`` the depth-2 error on the two held-out sets (benchmarks/heldout_error.py).
A TD folder holds ``net.npz`` (its header's TD curve: leaves, TD error and held-out error per iteration) and one
folder ``iter-NNNN`` per kept net with the same match and held-out files. Nothing is recomputed; passes or fails
nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "benchmarks"))
from pupil_study import heldout, score  # noqa: E402  (the pupil study's readers of the same files)
from wdl_study import match_line  # noqa: E402

from organisms.net import DEFAULT_HIDDEN, DEFAULT_UNITS, NetEvaluator  # noqa: E402
from search.runtime.provenance import describe  # noqa: E402


def labels_table(folders: list[Path]) -> list[str]:
    out = ["| net | label file | loss, variant | labels read | training rows | held-out cp (same file) | "
           "heldout-tcec | heldout-mixed | against the expert, 2,000 nodes |", "|---|---|---|---|---|---|---|---|---|"]
    for d in folders:
        if not (d / "net.npz").exists():
            out.append(f"| {d.name} (not trained yet) | – | – | – | – | – | – | – | – |")
            continue
        h = NetEvaluator.load(d / "net.npz").header
        rows = h.get("rows", {})
        labels, train = (f"{rows[k]:,}" if k in rows else "–" for k in ("labels", "train"))  # older nets lack them
        training = h.get("training", {})
        loss = training.get("supervised", {}).get("loss", "l1")  # nets trained before the choice: l1
        loss += ", linear path" if h.get("linear") else ""  # train-net --linear
        loss += ", the position's own score" if training.get("target") == "root" else ""  # train-net --target root
        loss += f", the mean of {len(h['members'])} nets" if h.get("members") else ""  # train-net --members
        units, hidden = [g[3] for g in h["groups"]], h["hidden"]  # a mean's are k times its members': say theirs
        k = len(h["members"]) if h.get("members") else 1
        if tuple(u // k for u in units) != DEFAULT_UNITS or hidden // k != DEFAULT_HIDDEN:  # --units, --hidden
            loss += f", widths {'/'.join(str(u // k) for u in units)}, {hidden // k}"
        out.append(f"| {d.name} | {training.get('labels', '–')} | {loss} | {labels} | {train} | "
                   f"{h['errors']['held_mae']:.1f} | "
                   f"{heldout(d / 'heldout-tcec.md')} | {heldout(d / 'heldout-mixed.md')} | {match_line(d)} |")
    return out


def td_table(boot: Path, td: Path) -> list[str]:
    curve = {}  # the TD curve is in the final net's header (train-net writes it when TD-Leaf is done)
    td_labels = None
    if (td / "net.npz").exists():
        header = NetEvaluator.load(td / "net.npz").header
        curve = {r["iteration"]: r for r in header.get("td_curve", [])}
        td_labels = header.get("training", {}).get("labels")
    out = ["| TD-Leaf iteration | TD error cp (before the step) | held-out cp (the TD run's label file) | "
           "heldout-tcec | heldout-mixed | against the expert, 2,000 nodes |", "|---|---|---|---|---|---|"]
    boot_net = boot / "net.npz"
    held = "–"  # the bootstrap's own held-out error, when it was on the same file (else not recomputed here)
    if boot_net.exists():
        h = NetEvaluator.load(boot_net).header
        if td_labels is None or h.get("training", {}).get("labels") == td_labels:
            held = f"{h['errors']['held_mae']:.1f}"
    out.append(f"| 0 (the bootstrap, {boot.name}) | – | {held} | {heldout(boot / 'heldout-tcec.md')} | "
               f"{heldout(boot / 'heldout-mixed.md')} | {match_line(boot)} |")
    for d in sorted(td.glob("iter-*")):
        it = int(d.name.split("-")[1])
        r = curve.get(it, {})
        out.append(f"| {it} | {r.get('td_error', float('nan')):.1f} | {r.get('held_mae', float('nan')):.1f} | "
                   f"{heldout(d / 'heldout-tcec.md')} | {heldout(d / 'heldout-mixed.md')} | {match_line(d)} |")
    return out


def main() -> int:
    what, folders = sys.argv[1], [Path(a) for a in sys.argv[2:]]
    if what == "best":  # the folder whose net scored best against the expert (the first when none has played)
        played = [(s, -i) for i, d in enumerate(folders) if (s := score(d)) is not None]
        print(folders[-max(played)[1]] if played else folders[0])
        return 0
    lines = [f"Gathered by `tools/giraffe_table.py {what} {' '.join(map(str, folders))}` ({describe()}).", ""]
    if what == "labels":
        lines = ["# The labels the Giraffe-style bootstrap needs", "", *lines, *labels_table(folders)]
    elif what == "td":
        lines = ["# TD-Leaf self-play in play: the curve over iterations", "", *lines, *td_table(*folders)]
    else:
        raise SystemExit(f"unknown table {what!r}: labels, td or best")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
