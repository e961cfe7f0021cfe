#!/usr/bin/env bash
# The first ensemble check, exactly as it was run (from the repository root; the nets in /tmp, not kept: training is
# deterministic, so these commands make the same weights again; the logs and the PGN here are the commands' own
# output). Before `train-pnet --members` existed: the single net trained on both label files with seed 1 (then
# results/pnet/pnet.npz, as below; now ../../more-labels/single/pnet.npz) and two more with seeds 2 and 3. --seed also sets
# the held-out split, so these three nets' training rows differ a little (train-pnet --members keeps one split and
# varies only the weights' seed). Their mean was written by the script below (what organisms.pnet.average_pnets now
# does: the first layers side by side, the output, bias and PSQT weights times scale_i / (3 * mean scale)) and played
# 100 games against the expert at 2,000 nodes, one worker, beside the single net's 200-game match (40.0 %).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
M=.venv/bin/mimic
for s in 2 3; do
  $M train-pnet results/rich-stockfish/labels.epd --out /tmp/ens/s$s --units 64 --epochs 30 --seed $s --psqt \
    --weight-decay 1 --more-labels results/pnet/more-labels/labels.epd > /tmp/ens/s$s.log 2>&1
done
.venv/bin/python - /tmp/ens/ens3.npz results/pnet/pnet.npz /tmp/ens/s2/pnet.npz /tmp/ens/s3/pnet.npz <<'PY'
import sys
import numpy as np
sys.path.insert(0, ".")
from organisms.pnet import PNet, make_header, save_pnet
out, paths = sys.argv[1], sys.argv[2:]
nets = [PNet.load(p) for p in paths]
K = len(nets)
S = float(np.mean([n.scale for n in nets]))
f = [n.scale / (K * S) for n in nets]
a = [n.arrays for n in nets]
N = [n.units for n in nets]
arr = {
 "w_in": np.concatenate([x["w_in"] for x in a], axis=1).astype(np.float32),
 "b_in": np.concatenate([x["b_in"] for x in a]).astype(np.float32),
 "w_out": np.concatenate([x["w_out"][:n] * fi for x, n, fi in zip(a, N, f)]
                         + [x["w_out"][n:] * fi for x, n, fi in zip(a, N, f)]).astype(np.float32),
 "b_out": np.array([sum(float(x["b_out"][0]) * fi for x, fi in zip(a, f))], dtype=np.float32),
 "w_psqt": sum(x["w_psqt"].astype(np.float64) * fi for x, fi in zip(a, f)).astype(np.float32),
}
save_pnet(out, arr, make_header(sum(N), (), S, True, members=paths))
PY
$M match pnet:/tmp/ens/ens3.npz expert --games 100 --jobs 1 --nodes 2000 --pgn /tmp/ens/ens3-vs-expert.pgn \
  > /tmp/ens/ens3-vs-expert.log 2>&1
cp /tmp/ens/ens3-vs-expert.pgn results/pnet/explore/ensemble/ens3-vs-expert-2000n.pgn
cp /tmp/ens/ens3-vs-expert.log results/pnet/explore/ensemble/ens3-vs-expert-2000n.log
cp /tmp/ens/s2.log results/pnet/explore/ensemble/seed2-train.log
cp /tmp/ens/s3.log results/pnet/explore/ensemble/seed3-train.log
# Nodes/s does not fall with the width (numpy's per-call cost dominates at these sizes), on an idle machine:
# benchmarks/pnet_speed.py --pnet X --organism results/rich-builtin/organism.json gave 1.165 (one net), 1.247 (the
# 3-net mean, 192 units) and 1.124 (a 5-net mean of 320 units: these nets and two repeated, for its width only).
