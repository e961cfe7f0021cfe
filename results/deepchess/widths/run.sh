#!/usr/bin/env bash
# What the reference run's smaller widths cost in accuracy (issue 14: "choose smaller sizes if 2 CPU cores demand it
# and say what it costs"). The same data as results/deepchess/ (data/positions.npz, remade by that run.sh), the same
# seed and schedule, 10 comparator epochs each (the reference run's validation accuracy stops rising by then:
# ../summary.md), no distillation:
#   default/  train-cmp's default widths, Pos2Vec 773-100-100-100, top 200-100-50-2 (the reference run's nets);
#   paper/    the paper's widths, Pos2Vec 773-600-400-200-100, top 200-400-200-100-2.
# Each folder's summary.md has the held-out pair accuracy, the search's speed with the net and the wall time.
# From the repository root (needs .venv from `make test`):
#   bash results/deepchess/widths/run.sh
# Resumable: train-cmp continues from each folder's checkpoint (--resume); a finished folder is skipped.
set -euo pipefail
cd "$(dirname "$0")/../../.."
M=.venv/bin/mimic
R=results/deepchess/widths
D=results/deepchess/data
[ -s $D/positions.npz ] || { echo "no $D/positions.npz: run results/deepchess/run.sh's step 2 first" >&2; exit 1; }
train() {  # train NAME WIDTH-OPTIONS...
  local out=$R/$1; shift
  mkdir -p "$out"
  [ -s "$out/cmp.npz" ] || $M train-cmp $D --out "$out" "$@" --ae-epochs 5 --epochs 10 --distill-epochs 0 --seed 0 \
    $([ -e "$out/checkpoint.npz" ] && echo --resume) 2>&1 | tee -a "$out/train.log"
}
# Both at once, one core each (train-cmp uses one torch thread).
train default &
first=$!
train paper --pos2vec 600 400 200 100 --top 400 200 100
wait "$first"

# The reference run's 40 epochs overfit (training accuracy 0.96, validation falling from 0.830 at epoch 20 to 0.823):
# default/'s 10 epochs hold out better (test 0.830 against the reference's 0.809). Does that show in play? The same
# match as the reference's cmp-vs-material-nodes: 200 games, 2,000 nodes a move, 2 at a time, the shipped openings.
. results/steps.sh
step $R default-vs-material-nodes $M match cmp:$R/default/cmp.npz material --games 200 --jobs 2 --nodes 2000 \
  --pgn $R/default-vs-material-nodes.pgn --resume
# And against the best evolved organism at equal nodes, as the reference's cmp-vs-organism-nodes (4.5%).
step $R default-vs-organism-nodes $M match cmp:$R/default/cmp.npz organism:results/rich-stockfish/organism.json \
  --games 200 --jobs 2 --nodes 2000 --pgn $R/default-vs-organism-nodes.pgn --resume
# At equal time against the organism (0.1 s a move) and STS at 1 s, as the reference's cmp-vs-organism-time and sts.
step $R default-vs-organism-time $M match cmp:$R/default/cmp.npz organism:results/rich-stockfish/organism.json \
  --games 200 --jobs 2 --movetime 0.1 --pgn $R/default-vs-organism-time.pgn --resume
step $R default-sts $M suite benchmarks/data/sts-v3.epd --engine cmp:$R/default/cmp.npz --movetime 1 --jobs 2 \
  --csv $R/default-sts.csv --resume
.venv/bin/python tools/match_table.py --title "The 10-epoch comparator (default/) in play" \
  $R/default-vs-material-nodes.log results/deepchess/cmp-vs-material-nodes.log \
  $R/default-vs-organism-nodes.log results/deepchess/cmp-vs-organism-nodes.log \
  $R/default-vs-organism-time.log results/deepchess/cmp-vs-organism-time.log \
  $R/default-sts.log results/deepchess/sts.log > $R/matches.md
