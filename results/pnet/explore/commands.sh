#!/usr/bin/env bash
# Exploration of the PSQT design before results/pnet's reference run, exactly as it was run (from the repository
# root, the nets in /tmp, not kept: training is deterministic, so these commands make the same weights again; the
# logs and PGNs here are the commands' own output). Each net was played 40 games against the expert at 2,000 nodes,
# one worker (u16 stopped after 29 games: it was clearly weaker). The first design without the PSQT path, and its
# own explorations: ../no-psqt/.
#
# psqt-wd0/: the PSQT net with plain Adam (train-pnet's settings at commit 314b76b), trained as results/pnet/pnet.npz
# by ../run.sh then (`train-pnet ... --units 64 --epochs 30 --seed 1 --psqt`), and the first 42 games of its 200-game
# match against the expert at 2,000 nodes (so its logs name it pnet:results/pnet/pnet.npz), stopped and moved here
# when the weight decay below did better.
set -euo pipefail
cd "$(dirname "$0")/../../.."
M=.venv/bin/mimic
PY=.venv/bin/python
L=results/rich-stockfish/labels.epd
# The PSQT path on the expert's own labels (the diagnostic of ../no-psqt/expert-labels with the PSQT path).
$M train-pnet results/rich-builtin/labels.epd --out /tmp/ps/expert --units 64 --epochs 150 --seed 1 \
  --wdl-model logistic --psqt
$M match pnet:/tmp/ps/expert/pnet.npz expert --games 40 --jobs 1 --nodes 2000 --pgn /tmp/ps/ex-vs-expert.pgn
# Where they depart from the expert (benchmarks/eval_gap.py), /tmp/ps/sf being psqt-wd0's net:
$M train-pnet $L --out /tmp/ps/sf --units 64 --epochs 30 --seed 1 --psqt
$PY benchmarks/eval_gap.py pnet:/tmp/ps/expert/pnet.npz pnet:results/pnet/expert-labels/pnet.npz \
  --games results/pnet/expert-labels/vs-expert-2000n.pgn > eval-gap-expert-labels-psqt.md  # before the move to no-psqt/
$PY benchmarks/eval_gap.py pnet:/tmp/ps/sf/pnet.npz pnet:results/pnet/pnet.npz organism:results/sf-wdl/organism.json \
  --games results/pnet/expert-labels/vs-expert-2000n.pgn > eval-gap-psqt-wd0.md  # ditto
# What evaluation noise costs: the expert plus position-keyed noise of sd 37 cp (mean |noise| 30 cp, the
# expert-taught net's distance from the expert) against the expert.
$PY benchmarks/noisy_expert.py 37 --games 40 --jobs 1 > noisy-expert-37.txt  # PGN: /tmp/noisy-expert/noisy-37.pgn
# A narrower PSQT net (plain Adam).
$M train-pnet $L --out /tmp/ps/x/u16 --units 16 --epochs 30 --seed 1
$M match pnet:/tmp/ps/x/u16/pnet.npz expert --games 40 --jobs 1 --nodes 2000 --pgn /tmp/ps/x/u16-vs-expert.pgn
# AdamW's weight decay on the first layer (the PSQT path not decayed), N = 64.
for wd in 0.1 1 3 10; do
  $M train-pnet $L --out /tmp/ps/x/wd$wd --units 64 --epochs 30 --seed 1 --weight-decay $wd
  $M match pnet:/tmp/ps/x/wd$wd/pnet.npz expert --games 40 --jobs 1 --nodes 2000 --pgn /tmp/ps/x/wd$wd-vs-expert.pgn
done
# The clipped units' share (explore/README.md): the spread (sd, cp) of the PSQT path's and of the clipped units'
# parts of the output over 400 positions of 5 random playouts (tests/conftest.py's random_positions(5, 400)).
PYTHONPATH=. $PY - results/pnet/pnet.npz /tmp/ps/x/wd0.1/pnet.npz /tmp/ps/x/wd1/pnet.npz /tmp/ps/x/wd3/pnet.npz \
  /tmp/ps/x/wd10/pnet.npz <<'PY'
import sys
import numpy as np
from organisms.pnet import PNet, QA
from tests.conftest import random_positions
boards = random_positions(5, 400)
for p in sys.argv[1:]:
    n = PNet.load(p)
    ps, cl = [], []
    for b in boards:
        acc = n.accumulator(b); n2 = n._n2
        ps.append((int(acc[n2] - acc[n2 + 1]) * (1 if b.turn else -1)) / 2 * n._unit)
        x = np.minimum(np.maximum(acc[:n2], 0), QA)
        cl.append((int(x @ n._out[b.turn]) + n._bias_out) * n._unit)
    print(p, "psqt sd %.0f, clipped sd %.0f, clipped mean %.0f, |w_in| mean %.4f"
          % (np.std(ps), np.std(cl), np.mean(cl), np.abs(n.arrays["w_in"]).mean()))
PY
