"""How a move-probability net's distribution changes with the softmax temperature of ``prob-net:PATH?t=T``.

    python tools/movenet_temperature.py NET.npz LABELS.epd [--t 1 2 3 4]

For each temperature: the mean entropy of the distribution over the legal moves (nats: how selective a
probability-limited search it drives), the mean log-likelihood and the top-1 accuracy of the mentor's move
(:func:`evolve.nets.movenet.move_metrics`); then the same for the search's static heuristic and the uniform
distribution. Top-1 does not change with the temperature (the ranking is the same).
"""

from __future__ import annotations

import argparse

import numpy as np

from evolve.nets.movenet import load_move_data, move_metrics
from organisms.movenet import MoveNet


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("net")
    ap.add_argument("labels")
    ap.add_argument("--t", type=float, nargs="+", default=[1.0, 2.0, 3.0, 4.0], help="temperatures")
    args = ap.parse_args()
    data = load_move_data(args.labels)
    scores = MoveNet.load(args.net).scores(data.idx.astype(np.int64))
    print(f"{args.net} on {data.n} positions of {args.labels}")
    print(f"{'source':<16} {'entropy':>8} {'log-likelihood':>15} {'top-1':>6}")
    rows = [(f"net, t={t:g}", scores / t) for t in args.t]
    rows += [("heuristic", np.log(data.heuristic)), ("uniform", np.zeros(len(data.idx)))]
    for name, s in rows:
        m = move_metrics(s, data)
        print(f"{name:<16} {m['entropy']:8.3f} {m['log_likelihood']:15.3f} {m['top1']:6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
