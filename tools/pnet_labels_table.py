"""A markdown table of perspective nets trained on growing numbers of positions: held-out error and play.

    python tools/pnet_labels_table.py --title "..." DIR [DIR ...] > labels-needed.md

For every ``DIR`` (a ``mimic train-pnet --out DIR`` folder): the training rows (counted in the header, else in
``DIR/train.md``; "all" when neither has them; a mean of nets, ``train-pnet --members``, gives its own held-out
errors and no training error), the held-out loss and error (the
last epoch of the curve in ``DIR/pnet.npz``'s header, read by :class:`organisms.pnet.PNet`), and the score line of
``DIR/vs-expert-2000n.log`` (a ``mimic match`` log) when there is one. Nothing is recomputed or edited.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from organisms.pnet import PNet
from search.runtime.provenance import describe


def row(folder: Path) -> str:
    header = PNet.load(folder / "pnet.npz").header
    last = header["curve"][-1]
    rows = header["training"].get("rows", {}).get("train")  # nets trained before the count was recorded lack it
    if rows is None and (folder / "train.md").exists():  # their training summary has it
        found = re.search(r"\((\d+) training, ", (folder / "train.md").read_text(encoding="utf-8"))
        rows = int(found.group(1)) if found else None
    if rows is None:
        rows = header["training"]["run"]["train_rows"]
    log = folder / "vs-expert-2000n.log"
    score = "–"
    if log.exists():
        lines = [ln for ln in log.read_text(encoding="utf-8").splitlines() if ln.startswith(("Score of", "Elo"))]
        score = "; ".join(lines[-2:]) if lines else "(not finished)"
    label = "all" if rows is None else f"{rows:,}"
    if "members" in header:  # the mean of nets (train-pnet --members): its own held-out errors, no training curve
        e = header["errors"]
        return (f"| {label}, the mean of {len(header['members'])} nets | – | {e['held_mae']:.1f} | "
                f"{e['held_loss']:.6f} | {score} |")
    return f"| {label} | {last['train_mae']:.1f} | {last['held_mae']:.1f} | {last['held_loss']:.6f} | {score} |"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", required=True)
    ap.add_argument("folders", nargs="+", type=Path)
    args = ap.parse_args()
    out = [f"# {args.title}", "", f"Gathered from the folders' pnet.npz and match logs by "
           f"`tools/pnet_labels_table.py` ({describe()}).", "",
           "| training rows | training cp | held-out cp | held-out loss | against the expert, 2,000 nodes |",
           "|---|---|---|---|---|", *(row(f) for f in args.folders), ""]
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
