#!/usr/bin/env bash
# Issue 24's study: on the same 200,000 Stockfish 15.1 labels (results/rich-stockfish/labels.epd, depth 10), the rich
# genome evolved with one factor changed at a time, each winner measured as users care:
#   l1          today's loss, mean |eval - mentor| in cp (the paper's; the reference run results/rich-stockfish)
#   wdl         --loss wdl: sigmoid(eval/K) against Stockfish 15.1's win expectation of the mentor's score, squared
#   wdl-result  wdl blended with the game result where the label has one (--lambda-result 0.5)
#   wdl-quiet   wdl on quiet labels only (--quiet-labels: not in check, the mentor's best move no capture/promotion)
#   wdl-self    wdl on the labels plus 8,000 positions of mimic's own games (selfplay.sh: the expert against the
#               organism it taught, 0.05 s a move, labelled by Stockfish at depth 10)
# Each row: the exact fit's ceiling for its loss (fit.log), the GA (3,000 generations, seed 1), its winner against the
# expert at 2,000 nodes a move (200 games, the shipped openings), and STS at 10,000 nodes a position.
# From the repository root: bash results/wdl-study/run.sh   (needs .venv from `make test`, Stockfish). Resumable:
# every step skips what it already wrote or resumes it.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/wdl-study
L=results/rich-stockfish/labels.epd
bash $R/selfplay.sh
if [ ! -s $R/with-selfplay.labels ]; then  # the two label files, one after the other (EPD lines; not committed)
  cat $L $R/selfplay-labels.epd > $R/with-selfplay.labels.tmp && mv $R/with-selfplay.labels.tmp $R/with-selfplay.labels
fi

row() {  # NAME LABELS FLAGS...
  local name=$1 labels=$2; shift 2
  local d=$R/$name
  mkdir -p $d
  [ -s $d/fit.log ] || $M fit $labels --genome rich --seed 1 "$@" --jobs 2 > $d/fit.log 2>&1
  if [ ! -f $d/organism.json ]; then
    local resume=; [ -f $d/checkpoint.npz ] && resume=--resume
    $M evolve $labels --genome rich --out $d --seed 1 --jobs 2 --no-progress $resume "$@" > $d/evolve.log 2>&1
  fi
  $M match organism:$d/organism.json expert --games 200 --jobs 2 --nodes 2000 --pgn $d/vs-expert-2000n.pgn \
    --resume > $d/vs-expert-2000n.log 2>&1
  $M suite benchmarks/data/sts-v3.epd --engine organism:$d/organism.json@nodes=10000 --movetime 60 --jobs 2 \
    --no-progress --csv $d/sts-10000n.csv --resume > $d/sts-10000n.log 2>&1
  echo "$name: $(grep -m1 '^Score' $d/vs-expert-2000n.log || tail -n 1 $d/vs-expert-2000n.log)"
}

row wdl $L --loss wdl
row wdl-quiet $L --loss wdl --quiet-labels
row wdl-result $L --loss wdl --lambda-result 0.5
row wdl-self $R/with-selfplay.labels --loss wdl
row l1 $L --loss l1
.venv/bin/python benchmarks/wdl_study.py $R > $R/study.md
