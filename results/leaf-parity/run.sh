#!/usr/bin/env bash
# How far Stockfish 15.1's scores lean toward the side to move at the labelled position, at depth 8 and at depth 1
# (results/data/sf-selfplay-d8 and its relabelling sf-selfplay-d1, the first 6,000 labels of each), seen from the
# leaf targets every learner fits (benchmarks/leaf_parity.py: the mentor's score at the leaf minus a static
# evaluation there, after even and after odd walks, for the expert, results/sf-pupil's organism and the pupil
# study's sp2m-d1 net): leaf-parity.md. Then the learners' tempo: the close pairs of the same self-play
# (benchmarks/close_pairs.py: quiet positions 1, 2 and 10 plies apart ordered as Stockfish orders them) for those
# three and for the net with 10 cp more for the side to move (tools/pnet_tempo.py: net-tempo-10.npz, not committed:
# remade in a second), close-pairs.md; and that net against the expert at 2,000 nodes as the study played sp2m-d1
# (200 games from the first 100 openings of search/data/openings-500.epd, SPRT [0, 20]): vs-expert-2000n.log.
# From the repository root: bash results/leaf-parity/run.sh (needs .venv from `make test` and the data sets:
# bash results/data/run.sh sf-selfplay-d8 sf-selfplay-d1). Resumable: each step skips what it wrote; the match
# resumes from its PGN. JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
PY=.venv/bin/python
R=results/leaf-parity
J=${JOBS:-2}
. results/steps.sh
NET=results/pupil-study/pnet/sp2m-d1/pnet.npz
EVALS=(expert organism:results/sf-pupil/organism.json pnet:$NET)
if [ ! -s $R/leaf-parity.md ]; then
  need sf-selfplay-d8
  need sf-selfplay-d1
  $PY benchmarks/leaf_parity.py results/data/sf-selfplay-d8/labels.epd.gz results/data/sf-selfplay-d1/labels.epd.gz \
    --evals "${EVALS[@]}" > $R/leaf-parity.md.tmp && mv $R/leaf-parity.md.tmp $R/leaf-parity.md
fi
[ -s $R/net-tempo-10.npz ] || $PY tools/pnet_tempo.py $NET 10 $R/net-tempo-10.npz
if [ ! -s $R/close-pairs.md ]; then
  need sf-selfplay-d8
  $PY benchmarks/close_pairs.py "${EVALS[@]}" pnet:$R/net-tempo-10.npz > $R/close-pairs.md.tmp
  mv $R/close-pairs.md.tmp $R/close-pairs.md
fi
step $R vs-expert-2000n $M match pnet:$R/net-tempo-10.npz expert --games 200 --jobs $J --nodes 2000 \
  --sprt 0,20,0.05,0.05 --sprt-min-games 40 --openings search/data/openings-500.epd --pgn $R/vs-expert-2000n.pgn \
  --resume
