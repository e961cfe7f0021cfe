#!/usr/bin/env bash
# Does removing the mentor's lean toward the side to move make a better organism? Stockfish 15.1's depth-1 scores
# lean about 40 cp toward the labelled position's side to move (results/leaf-parity/leaf-parity.md: 39.0-42.5 cp,
# whatever the evaluation), which the leaf targets turn into noise no static evaluation sees, and which pins the
# rich organism's tempo gene at 0. Two exact fits of the pupil study's kind (`mimic fit --genome rich --loss wdl
# --seed 1`) on the first 200,000 labels of results/data/sf-selfplay-d1: as they are (d1) and with 40 cp taken from
# every score (d1-lean40: tools/shift_labels.py), each played as the study plays a row: 200 games against the expert
# at 2,000 nodes from the first 100 openings of search/data/openings-500.epd (SPRT [0, 20], alpha = beta = 0.05,
# never before 40 games), and its depth-2 error on results/heldout-tcec and results/heldout-mixed. The label files
# (data/) are not committed: remade in a minute.
# From the repository root: bash results/lean/run.sh (needs .venv from `make test` and the data set:
# bash results/data/run.sh sf-selfplay-d1). Resumable: each step skips what it wrote; matches resume from their
# PGN. JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
PY=.venv/bin/python
R=results/lean
J=${JOBS:-2}
. results/steps.sh
mkdir -p $R/data
for lean in 0 40; do
  name=d1; [ $lean = 0 ] || name=d1-lean$lean
  d=$R/$name
  mkdir -p $d
  if [ ! -s $d/organism.json ]; then
    need sf-selfplay-d1
    [ -s $R/data/$name.epd ] || $PY tools/shift_labels.py results/data/sf-selfplay-d1/labels.epd.gz $R/data/$name.epd \
      --lean $lean --lines 200000
    $M fit $R/data/$name.epd --genome rich --seed 1 --jobs $J --out $d/organism.json --loss wdl > $d/fit.log 2>&1
  fi
  step $d vs-expert-2000n $M match organism:$d/organism.json expert --games 200 --jobs $J --nodes 2000 \
    --sprt 0,20,0.05,0.05 --sprt-min-games 40 --openings search/data/openings-500.epd --pgn $d/vs-expert-2000n.pgn \
    --resume
  heldout $d organism:$d/organism.json
done
$PY tools/match_table.py --title "The depth-1 organism with and without the mentor's lean (results/lean)" \
  $R/d1/vs-expert-2000n.log $R/d1-lean40/vs-expert-2000n.log > $R/matches.md
